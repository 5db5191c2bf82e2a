//! Aligned word diffs: changes a bag of facts cannot see because every word is still there, or because
//! one word became its opposite in an otherwise unchanged sentence.
//!
//! - an opposite swapped in (`ascending` -> `descending`, `raises` -> `lowers`, `inclusive` ->
//!   `exclusive`): the opposites are data (`opposites.txt`, `WordNet` 3.1 antonyms and opposing affixes
//!   seen in real MCP descriptions; see `tests/meaning/build/opposites/`);
//! - a negation added or removed in an otherwise unchanged sentence ("Includes drafts" -> "Does not
//!   include drafts");
//! - two terms traded places around a word that orders them ("from the server to the workspace" ->
//!   "from the workspace to the server", "A to Z" -> "Z to A"); around `and`/`or` it is a reordered list;
//! - a mapping of numbers to words reassigned ("1 = critical ... 5 = trivial" -> "1 = trivial ... 5 =
//!   critical").
//!
//! Each is found only where the two sentences are otherwise aligned (a small changed run with unchanged
//! words beside it), so a full rewrite that happens to use an opposite is not read as a flip.

use std::collections::{BTreeMap, HashSet};
use std::sync::OnceLock;

use similar::{Algorithm, DiffOp, capture_diff_slices};

/// A change found by alignment: what it is, and the words as written on each side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Aligned {
    pub what: AlignedKind,
    pub old: String,
    pub new: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AlignedKind {
    /// A word replaced by its opposite.
    Opposite,
    /// A negation added or removed.
    Polarity,
    /// Two terms traded places around an ordering word.
    Swap,
    /// Numbers mapped to other words.
    Mapping,
}

/// The most words of one side aligned; longer descriptions are aligned sentence by sentence within it.
const ALIGN_LIMIT: usize = 4000;
/// The longest changed run (each side) read as a local edit.
const SMALL_RUN: usize = 3;

fn opposites() -> &'static HashSet<(&'static str, &'static str)> {
    static SET: OnceLock<HashSet<(&'static str, &'static str)>> = OnceLock::new();
    SET.get_or_init(|| {
        include_str!("opposites.txt")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once(' '))
            .collect()
    })
}

/// Whether two words (lower case) are listed as opposites, as written or in their base form.
pub(super) fn are_opposites(a: &str, b: &str) -> bool {
    let set = opposites();
    let pair = |x: &str, y: &str| if x <= y { set.contains(&(x, y)) } else { set.contains(&(y, x)) };
    if a == b {
        return false;
    }
    pair(a, b) || {
        let (sa, sb) = (super::facts::stem(a), super::facts::stem(b));
        sa != sb && pair(&sa, &sb)
    }
}

const NEGATORS: &[&str] = &["not", "no", "never", "cannot", "don't", "doesn't", "isn't", "aren't", "won't", "nt"];
const AUXILIARIES: &[&str] = &["do", "does", "did", "is", "are", "be", "will", "can", "should", "must", "may"];
/// Words that order the two terms beside them: trading the terms changes what is meant.
const ORDERING: &[&str] =
    &["to", "from", "into", "onto", "than", "before", "after", "over", "then", "=", "->", "→", "per", "above", "below"];

/// A token of a sentence: lower case, with its sentence index.
#[derive(Clone, Debug)]
struct Token {
    word: String,
    raw: String,
    sentence: usize,
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut sentence = 0;
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    let flush = |cur: &mut String, out: &mut Vec<Token>, sentence: usize| {
        if !cur.is_empty() {
            let raw = std::mem::take(cur);
            let word = raw.to_lowercase().replace('’', "'");
            let word = if let Some(head) = word.strip_suffix("n't") {
                // "doesn't" -> "does not": a negation is one token whatever its spelling.
                out.push(Token { word: head.to_owned(), raw: raw.clone(), sentence });
                "not".to_owned()
            } else {
                word
            };
            out.push(Token { word, raw, sentence });
        }
    };
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        if c.is_alphanumeric()
            || (matches!(c, '\'' | '’' | '_' | '-' | '.' | ',')
                && !cur.is_empty()
                && next.is_some_and(char::is_alphanumeric))
        {
            if c != ',' {
                cur.push(c);
            }
            continue;
        }
        flush(&mut cur, &mut out, sentence);
        if matches!(c, '=' | '→') {
            out.push(Token { word: c.to_string(), raw: c.to_string(), sentence });
        }
        if c == '-' && next == Some('>') {
            out.push(Token { word: "->".into(), raw: "->".into(), sentence });
        }
        if matches!(c, '.' | '!' | '?' | '\n' | ';') {
            sentence += 1;
        }
        if out.len() >= ALIGN_LIMIT {
            break;
        }
    }
    flush(&mut cur, &mut out, sentence);
    out.truncate(ALIGN_LIMIT);
    out
}

fn base(w: &str) -> String {
    super::facts::fold(w)
}

/// Every aligned change between two descriptions, at most a handful.
pub(super) fn changes(old: &str, new: &str) -> Vec<Aligned> {
    let (a, b) = (tokens(old), tokens(new));
    let (wa, wb): (Vec<&str>, Vec<&str>) =
        (a.iter().map(|t| t.word.as_str()).collect(), b.iter().map(|t| t.word.as_str()).collect());
    let ops = capture_diff_slices(Algorithm::Myers, &wa, &wb);
    let mut out = Vec::new();
    // How many changed runs each old sentence has: a negation flip must be its sentence's only change.
    let mut runs_in: BTreeMap<usize, usize> = BTreeMap::new();
    for op in &ops {
        let at = match *op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Replace { old_index, .. } | DiffOp::Delete { old_index, .. } | DiffOp::Insert { old_index, .. } => {
                old_index
            }
        };
        if let Some(t) = a.get(at.min(a.len().saturating_sub(1))) {
            *runs_in.entry(t.sentence).or_default() += 1;
        }
    }
    let (words_a, words_b): (HashSet<&str>, HashSet<&str>) =
        (wa.iter().copied().collect(), wb.iter().copied().collect());
    let equal_len = |op: Option<&DiffOp>| match op {
        Some(DiffOp::Equal { len, .. }) => *len,
        _ => 0,
    };
    for (k, op) in ops.iter().enumerate() {
        let (old_range, new_range) = match *op {
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                (old_index..old_index + old_len, new_index..new_index + new_len)
            }
            DiffOp::Delete { old_index, old_len, new_index } => (old_index..old_index + old_len, new_index..new_index),
            DiffOp::Insert { old_index, new_index, new_len } => (old_index..old_index, new_index..new_index + new_len),
            DiffOp::Equal { .. } => continue,
        };
        // A local edit: a short run with unchanged words beside it.
        let before = if k > 0 { equal_len(ops.get(k - 1)) } else { 0 };
        let after = equal_len(ops.get(k + 1));
        if old_range.len() > SMALL_RUN || new_range.len() > SMALL_RUN || before + after < 2 {
            continue;
        }
        let (d, i) = (&a[old_range.clone()], &b[new_range.clone()]);
        // A word replaced by its opposite.
        if let Some((x, y)) =
            d.iter().flat_map(|x| i.iter().map(move |y| (x, y))).find(|(x, y)| are_opposites(&x.word, &y.word))
        {
            out.push(Aligned { what: AlignedKind::Opposite, old: x.raw.clone(), new: y.raw.clone() });
            continue;
        }
        // A negation added or removed, the rest of the run the same words.
        let content = |ts: &[Token]| -> Vec<String> {
            ts.iter()
                .filter(|t| !NEGATORS.contains(&t.word.as_str()) && !AUXILIARIES.contains(&t.word.as_str()))
                .map(|t| base(&t.word))
                .collect()
        };
        // One value put where another of the same list was ("`P0` is the most urgent" -> "`P3` is the
        // most urgent"): both values are named on both sides, so the list is the same and the roles moved.
        if let ([x], [y]) = (d, i)
            && x.word.chars().any(|c| c.is_ascii_digit())
            && [x, y].iter().all(|t| words_a.contains(t.word.as_str()) && words_b.contains(t.word.as_str()))
        {
            out.push(Aligned { what: AlignedKind::Mapping, old: x.raw.clone(), new: y.raw.clone() });
            continue;
        }
        let negated = |ts: &[Token]| ts.iter().any(|t| NEGATORS.contains(&t.word.as_str()));
        let sentence = a.get(old_range.start.min(a.len().saturating_sub(1))).map(|t| t.sentence);
        let alone = sentence.is_some_and(|s| runs_in.get(&s) == Some(&1));
        if alone && negated(d) != negated(i) && content(d) == content(i) {
            // The changed run with a word of context on each side.
            let phrase = |r: &std::ops::Range<usize>, all: &[Token]| -> String {
                let (from, to) = (r.start.saturating_sub(1), (r.end + 1).min(all.len()));
                let words: Vec<&str> = all[from..to].iter().map(|t| t.raw.as_str()).collect();
                words.join(" ")
            };
            out.push(Aligned { what: AlignedKind::Polarity, old: phrase(&old_range, &a), new: phrase(&new_range, &b) });
        }
    }
    // A reassigned mapping is also a trade of places around `=`, and a reversed route one around `to`:
    // each is named once.
    if let Some(m) = mapping(old, new) {
        out.push(m);
    } else {
        let reversed = routes(&a, &b);
        out.extend(if reversed.is_empty() { swaps(&a, &b) } else { reversed });
    }
    out.truncate(4);
    out
}

/// Sentences with the same words in another order, where two terms traded places around a word that
/// orders them.
fn swaps(old: &[Token], new: &[Token]) -> Vec<Aligned> {
    let sentences = |ts: &[Token]| -> BTreeMap<usize, Vec<Token>> {
        let mut m: BTreeMap<usize, Vec<Token>> = BTreeMap::new();
        for t in ts {
            m.entry(t.sentence).or_default().push(t.clone());
        }
        m
    };
    let (sa, sb) = (sentences(old), sentences(new));
    let mut out = Vec::new();
    for s_old in sa.values() {
        let words: Vec<&str> = s_old.iter().map(|t| t.word.as_str()).collect();
        for s_new in sb.values() {
            let other: Vec<&str> = s_new.iter().map(|t| t.word.as_str()).collect();
            if words == other || words.len() != other.len() || bag(s_old) != bag(s_new) {
                continue;
            }
            let start = words.iter().zip(&other).take_while(|(x, y)| x == y).count();
            let end = words.len() - words.iter().rev().zip(other.iter().rev()).take_while(|(x, y)| x == y).count();
            if end <= start {
                continue;
            }
            let (m1, m2) = (&words[start..end], &other[start..end]);
            // m1 = X R Y and m2 = Y R X, with R holding an ordering word.
            let len = m1.len();
            let found = (1..len).any(|x_len| {
                (1..len - x_len).any(|y_len| {
                    let r_len = len - x_len - y_len;
                    let (first, rel, second) = (&m1[..x_len], &m1[x_len..x_len + r_len], &m1[x_len + r_len..]);
                    m2[..y_len] == *second
                        && m2[y_len..y_len + r_len] == *rel
                        && m2[y_len + r_len..] == *first
                        && rel.iter().any(|w| ORDERING.contains(w))
                })
            });
            if found {
                let show = |ts: &[Token]| ts[start..end].iter().map(|t| t.raw.as_str()).collect::<Vec<_>>().join(" ");
                out.push(Aligned { what: AlignedKind::Swap, old: show(s_old), new: show(s_new) });
            }
        }
    }
    out
}

/// "from X to Y" / "from X into Y": the two ends of each route, by their last word.
fn ends(ts: &[Token]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for (k, t) in ts.iter().enumerate() {
        if t.word != "from" {
            continue;
        }
        let span: Vec<&Token> = ts[k + 1..].iter().take(6).take_while(|x| x.sentence == t.sentence).collect();
        let Some(to) = span.iter().position(|x| matches!(x.word.as_str(), "to" | "into" | "onto")) else { continue };
        let after: Vec<&Token> = ts[k + 2 + to..].iter().take(4).take_while(|x| x.sentence == t.sentence).collect();
        let last = |xs: &[&Token]| xs.iter().rev().find(|x| x.word.len() > 2).map(|x| x.word.clone());
        if let (Some(from), Some(dest)) = (last(&span[..to]), last(&after)) {
            let shown = std::iter::once(t).chain(span[..=to].iter().copied()).chain(after.iter().copied());
            out.push((from, dest, shown.map(|x| x.raw.as_str()).collect::<Vec<_>>().join(" ")));
        }
    }
    out
}

/// A route reversed: "from the remote server into the local workspace" -> "from the local workspace up
/// to the remote server".
fn routes(a: &[Token], b: &[Token]) -> Vec<Aligned> {
    let (ra, rb) = (ends(a), ends(b));
    ra.iter()
        .filter_map(|(f, t, shown)| {
            let back = rb.iter().find(|(g, u, _)| g == t && u == f && f != t)?;
            Some(Aligned { what: AlignedKind::Swap, old: shown.clone(), new: back.2.clone() })
        })
        .take(1)
        .collect()
}

/// The words of a sentence, sorted: two sentences with the same bag say the same words in some order.
fn bag(sentence: &[Token]) -> Vec<&str> {
    let mut v: Vec<&str> = sentence.iter().map(|t| t.word.as_str()).collect();
    v.sort_unstable();
    v
}

/// `1 = critical`, `1: critical`, `1 (critical)`, `critical = 1`: numbers mapped to words.
fn pairs(text: &str) -> BTreeMap<String, String> {
    let t = tokens(text);
    let mut m = BTreeMap::new();
    let is_num = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit());
    let is_word = |w: &str| w.chars().any(char::is_alphabetic) && !AUXILIARIES.contains(&w);
    for k in 0..t.len() {
        let w = t[k].word.as_str();
        let next = t.get(k + 1).map(|x| x.word.as_str());
        let next2 = t.get(k + 2).map(|x| x.word.as_str());
        if is_num(w) {
            if let (Some("=" | "->" | "→" | "means" | "is"), Some(v)) = (next, next2)
                && is_word(v)
            {
                m.insert(w.to_owned(), v.to_owned());
            }
        } else if is_word(w)
            && let (Some("="), Some(n)) = (next, next2)
            && is_num(n)
        {
            m.insert(n.to_owned(), w.to_owned());
        }
    }
    m
}

fn mapping(old: &str, new: &str) -> Option<Aligned> {
    let (pa, pb) = (pairs(old), pairs(new));
    if pa.len() < 2 || pa == pb || pa.keys().ne(pb.keys()) {
        return None;
    }
    let mut va: Vec<&String> = pa.values().collect();
    let mut vb: Vec<&String> = pb.values().collect();
    va.sort();
    vb.sort();
    if va != vb {
        return None;
    }
    let show =
        |m: &BTreeMap<String, String>| m.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ");
    Some(Aligned { what: AlignedKind::Mapping, old: show(&pa), new: show(&pb) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(a: &str, b: &str) -> Vec<AlignedKind> {
        changes(a, b).into_iter().map(|c| c.what).collect()
    }

    #[test]
    fn opposites_come_from_the_data() {
        assert!(are_opposites("ascending", "descending"));
        assert!(are_opposites("inclusive", "exclusive"));
        assert!(are_opposites("raises", "lowers"));
        assert!(!are_opposites("search", "find"));
    }

    #[test]
    fn flips_in_an_otherwise_unchanged_sentence() {
        assert_eq!(
            kinds("Results are sorted in ascending order.", "Results are sorted in descending order."),
            [AlignedKind::Opposite]
        );
        assert_eq!(kinds("The `end` date is inclusive.", "The `end` date is exclusive."), [AlignedKind::Opposite]);
        assert_eq!(
            kinds("Includes drafts in the list.", "Does not include drafts in the list."),
            [AlignedKind::Polarity]
        );
        assert_eq!(
            kinds(
                "Copies the file from the server to the workspace.",
                "Copies the file from the workspace to the server."
            ),
            [AlignedKind::Swap]
        );
        assert_eq!(kinds("Sorted A to Z.", "Sorted Z to A."), [AlignedKind::Swap]);
        assert_eq!(
            kinds(
                "Severity: 1 = critical, 3 = normal, 5 = trivial.",
                "Severity: 1 = trivial, 3 = normal, 5 = critical."
            ),
            [AlignedKind::Mapping]
        );
    }

    #[test]
    fn reorders_and_rewrites_are_not_flips() {
        assert!(kinds("Search issues and pull requests.", "Search pull requests and issues.").is_empty());
        assert!(kinds("Lists issues. Supports paging.", "Supports paging. Lists issues.").is_empty());
        assert!(kinds("Get a file.", "Retrieve a single file from the repository, including its metadata.").is_empty());
    }
}
