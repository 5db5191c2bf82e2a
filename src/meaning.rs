//! Meaning drift in prose: decides whether a description edit changes what a tool or parameter means
//! (a finding at `warning`) or only how it is worded (`info`), and says what triggered the call.
//!
//! Takes two description strings; returns a [`Verdict`] with a word-level diff. Promises: edits of
//! whitespace, case, punctuation, Markdown markup and word order, and small typo fixes, are never
//! called meaning changes; edits of numbers, negation, obligation, defaults and scope words always are.

use std::collections::BTreeMap;

use similar::{ChangeTag, TextDiff};

use crate::load::escape;

mod default;
pub use default::stated_default;

/// The call on one description edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub meaning: bool,
    /// What decided it: `"100" -> "50"`, `added "must"`, `typo fix`...
    pub trigger: String,
    /// Word diff in `[-old-]{+new+}` form.
    pub diff: String,
}

const NEGATION: &[&str] = &["not", "no", "never", "none", "without", "cannot", "nothing", "neither", "nor", "except"];
const OBLIGATION: &[&str] = &[
    "must",
    "required",
    "require",
    "requires",
    "optional",
    "optionally",
    "only",
    "deprecated",
    "may",
    "should",
    "shall",
    "always",
    "mandatory",
    "unless",
    "ignored",
    "ignore",
    "ignores",
];
const SCOPE: &[&str] = &[
    "all",
    "any",
    "every",
    "each",
    "organization",
    "organisation",
    "org",
    "account",
    "private",
    "public",
    "internal",
    "global",
    "tenant",
    "workspace",
    "repository",
    "owner",
    "team",
    "user",
    "users",
    "everyone",
];
const DEFAULTS: &[&str] = &["default", "defaults", "defaulting", "defaulted"];
const STOPWORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "of",
    "to",
    "in",
    "for",
    "on",
    "with",
    "and",
    "or",
    "is",
    "are",
    "be",
    "this",
    "that",
    "it",
    "its",
    "by",
    "as",
    "at",
    "from",
    "will",
    "can",
    "which",
    "e",
    "g",
    "i",
    "ie",
    "eg",
    "use",
    "used",
    "using",
    "you",
    "your",
    "please",
    "here",
    "there",
    "tool",
    "return",
    "whether",
    "if",
    "about",
    "new",
    "given",
    "specified",
];

/// Words that tool descriptions use interchangeably; each group is read as its first word.
const SYNONYMS: &[&[&str]] = &[
    &["get", "fetch", "retrieve", "obtain"],
    &["show", "display"],
    &["create", "make"],
    &["edit", "change", "update", "modify"],
    &["delete", "remove"],
    &["id", "identifier"],
    &["info", "information", "detail"],
    &["repository", "repo"],
    &["all", "every", "each"],
    &["list", "enumerate"],
];

/// A light English stemmer: plural and third-person `-s`, `-es`, `-ies`, and a trailing possessive.
fn stem(word: &str) -> String {
    let w = word.strip_suffix("'s").unwrap_or(word);
    if w.len() > 4 && w.ends_with("ies") {
        return format!("{}y", &w[..w.len() - 3]);
    }
    if w.len() > 4 && (w.ends_with("ches") || w.ends_with("shes") || w.ends_with("xes") || w.ends_with("sses")) {
        return w[..w.len() - 2].to_owned();
    }
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        return w[..w.len() - 1].to_owned();
    }
    w.to_owned()
}

/// The word as compared: stemmed, then mapped to its synonym group.
fn normal(word: &str) -> String {
    let w = stem(word);
    SYNONYMS.iter().find(|g| g.contains(&w.as_str())).map_or(w, |g| g[0].to_owned())
}

/// Words of a description, lower-cased, with `n't` spelled `not` and numbers kept whole (`1.5`).
fn tokens(text: &str) -> Vec<String> {
    let text = text.replace("n't", " not").replace("N'T", " NOT").replace("'s ", " ").replace("’s ", " ");
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let in_number = c == '.'
            && cur.chars().all(|d| d.is_ascii_digit())
            && !cur.is_empty()
            && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_alphanumeric() || in_number {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.iter().map(|t| normal(t)).collect()
}

fn multiset(tokens: &[String]) -> BTreeMap<&str, i64> {
    let mut m = BTreeMap::new();
    for t in tokens {
        *m.entry(t.as_str()).or_insert(0) += 1;
    }
    m
}

/// `100`, `1.5`, `10k`, `30s`: digits, optionally followed by a unit suffix. Identifiers such as
/// `org_8f3k2` are not numbers.
fn is_number(t: &str) -> bool {
    let digits = t.chars().take_while(|c| c.is_ascii_digit() || *c == '.').count();
    digits > 0 && t.chars().skip(digits).all(char::is_alphabetic) && t.len() - digits <= 3
}

/// Classifies one description edit.
#[must_use]
pub fn classify(old: &str, new: &str) -> Verdict {
    let diff = word_diff(old, new);
    let (a, b) = (tokens(old), tokens(new));
    let cosmetic = |trigger: &str| Verdict { meaning: false, trigger: trigger.to_owned(), diff: diff.clone() };
    if a == b {
        return cosmetic("whitespace, case, punctuation, markup or word forms only");
    }
    let (ma, mb) = (multiset(&a), multiset(&b));
    if ma == mb {
        return cosmetic("same words, reordered");
    }
    let mut removed: Vec<&str> = Vec::new();
    let mut added: Vec<&str> = Vec::new();
    for (t, n) in &ma {
        for _ in 0..(n - mb.get(t).copied().unwrap_or(0)).max(0) {
            removed.push(t);
        }
    }
    for (t, n) in &mb {
        for _ in 0..(n - ma.get(t).copied().unwrap_or(0)).max(0) {
            added.push(t);
        }
    }
    let typos = drop_typo_pairs(&mut removed, &mut added);
    let meaning = |trigger: String| Verdict { meaning: true, trigger, diff: diff.clone() };
    // Numbers: `100` -> `50`.
    let (rn, an): (Vec<&str>, Vec<&str>) = (
        removed.iter().copied().filter(|t| is_number(t)).collect(),
        added.iter().copied().filter(|t| is_number(t)).collect(),
    );
    if !rn.is_empty() || !an.is_empty() {
        return meaning(match (rn.first(), an.first()) {
            (Some(x), Some(y)) => format!("number \"{x}\" -> \"{y}\""),
            (Some(x), None) => format!("removed number \"{x}\""),
            (None, Some(y)) => format!("added number \"{y}\""),
            (None, None) => unreachable!("one of the lists is not empty"),
        });
    }
    for (list, label) in [(NEGATION, "negation"), (OBLIGATION, "obligation"), (DEFAULTS, "default"), (SCOPE, "scope")] {
        if let Some(t) = removed.iter().find(|t| list.contains(t)) {
            return meaning(format!("removed {label} word \"{t}\""));
        }
        if let Some(t) = added.iter().find(|t| list.contains(t)) {
            return meaning(format!("added {label} word \"{t}\""));
        }
    }
    let content = |list: &[&str]| -> Vec<String> {
        list.iter().filter(|t| !STOPWORDS.contains(t)).map(|t| (*t).to_owned()).collect()
    };
    let (cr, ca) = (content(&removed), content(&added));
    if cr.is_empty() && ca.is_empty() {
        return cosmetic(if typos { "typo fix" } else { "only filler words changed" });
    }
    match (cr.first(), ca.first()) {
        (Some(x), Some(y)) => meaning(format!("\"{}\" -> \"{}\"", escape(x), escape(y))),
        (Some(x), None) => meaning(format!("removed \"{}\"", escape(x))),
        (None, Some(y)) => meaning(format!("added \"{}\"", escape(y))),
        (None, None) => unreachable!("checked above"),
    }
}

/// Removes pairs of a removed and an added word that are the same word misspelt (small edit distance,
/// not numbers). Returns whether any pair was found.
fn drop_typo_pairs(removed: &mut Vec<&str>, added: &mut Vec<&str>) -> bool {
    let mut found = false;
    let mut i = 0;
    while i < removed.len() {
        let r = removed[i];
        let hit = added.iter().position(|a| {
            // Same first letter: `inclusive`/`exclusive` and `ascending`/`descending` are not typos.
            !is_number(r) && !is_number(a) && r.len() >= 4 && a.len() >= 4 && r.chars().next() == a.chars().next() && {
                let d = strsim::damerau_levenshtein(r, a);
                d <= 2 && d * 4 <= r.len().max(a.len())
            }
        });
        if let Some(j) = hit {
            removed.remove(i);
            added.remove(j);
            found = true;
        } else {
            i += 1;
        }
    }
    found
}

/// A git-style word diff, `[-old-]{+new+}`, cut to a readable length.
#[must_use]
pub fn word_diff(old: &str, new: &str) -> String {
    /// Unchanged words kept on each side of a change; longer unchanged runs are elided.
    const CONTEXT: usize = 6;
    /// The most characters of a diff shown.
    const LIMIT: usize = 600;
    /// A diff up to this long is shown whole.
    const SHORT: usize = 240;
    // Myers' diff is quadratic in the worst case; a megabyte of rewritten prose must not stall a run.
    let diff = TextDiff::configure().timeout(std::time::Duration::from_millis(200)).diff_words(old, new);
    // Runs of one tag, with their text.
    let mut runs: Vec<(ChangeTag, String)> = Vec::new();
    for change in diff.iter_all_changes() {
        match runs.last_mut() {
            Some((tag, text)) if *tag == change.tag() => text.push_str(change.value()),
            _ => runs.push((change.tag(), change.value().to_owned())),
        }
    }
    let full = render_runs(&runs, usize::MAX);
    let flat = if full.chars().count() <= SHORT { full } else { render_runs(&runs, CONTEXT) };
    let flat = escape(&flat);
    if flat.chars().count() > LIMIT { format!("{}…", flat.chars().take(LIMIT - 1).collect::<String>()) } else { flat }
}

/// [`word_diff`]'s text of the runs, keeping `context` unchanged words beside each change.
fn render_runs(runs: &[(ChangeTag, String)], context: usize) -> String {
    let last = runs.len().saturating_sub(1);
    let mut out = String::new();
    for (i, (tag, text)) in runs.iter().enumerate() {
        let words: Vec<&str> = text.split_whitespace().collect();
        let (lead, trail) = (text.starts_with(char::is_whitespace), text.ends_with(char::is_whitespace));
        let body = match tag {
            ChangeTag::Equal => {
                // Only the words next to a change are shown: a long description's edit stays visible.
                let keep_head = if i == 0 { 0 } else { context };
                let keep_tail = if i == last { 0 } else { context };
                if runs.len() == 1 || words.len() <= keep_head.saturating_add(keep_tail).saturating_add(1) {
                    words.join(" ")
                } else {
                    let mut parts: Vec<String> = Vec::new();
                    if keep_head > 0 {
                        parts.push(words[..keep_head].join(" "));
                    }
                    parts.push("…".to_owned());
                    if keep_tail > 0 {
                        parts.push(words[words.len() - keep_tail..].join(" "));
                    }
                    parts.join(" ")
                }
            }
            // A change of whitespace only shows as a space: in prose it carries no word.
            _ if words.is_empty() => String::new(),
            ChangeTag::Delete => format!("[-{}-]", words.join(" ")),
            ChangeTag::Insert => format!("{{+{}+}}", words.join(" ")),
        };
        if lead && !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
        out.push_str(&body);
        if (trail || (body.is_empty() && !text.is_empty())) && i != last && !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_meaning(a: &str, b: &str) -> bool {
        classify(a, b).meaning
    }

    #[test]
    fn cosmetic_edits() {
        assert!(!is_meaning("Search  issues.", "search issues"));
        assert!(!is_meaning("List the **open** pull requests", "List the open pull requests."));
        assert!(!is_meaning("Retrieve a repositroy by name", "Retrieve a repository by name"));
        assert!(!is_meaning("Lists issues. Supports paging.", "Supports paging. Lists issues."));
    }

    #[test]
    fn meaning_edits() {
        assert_eq!(classify("Max 100 results", "Max 50 results").trigger, "number \"100\" -> \"50\"");
        assert!(is_meaning("Maximum number of results", "Page index"));
        assert!(is_meaning("Deletes the branch", "Deletes the branch. Must not be main"));
        assert!(is_meaning("Defaults to open", "Defaults to closed"));
        assert!(is_meaning("The issue state", "The issue state. Don't pass drafts"));
    }

    #[test]
    fn diff_is_readable() {
        assert_eq!(word_diff("Max 100 results", "Max 50 results"), "Max [-100-]{+50+} results");
        // A long description: the change is shown with its neighbouring words, the rest elided.
        let prefix = "word ".repeat(200);
        let suffix = " tail".repeat(200);
        let diff =
            word_diff(&format!("{prefix}at most 100 results{suffix}"), &format!("{prefix}at most 50 results{suffix}"));
        assert_eq!(diff, "… word word word word at most [-100-]{+50+} results tail tail tail tail tail …");
    }
}
