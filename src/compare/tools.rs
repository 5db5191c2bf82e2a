//! Tool pairing: which removed tool was renamed to which added one, and which new tool took over a
//! removed tool's job (its successor), from names, parameter names and description words.
//!
//! Takes the removed and added tools' [`Facts`]; returns index pairs. Also the name similarity and the
//! one-to-one assignment that property renames use ([`Ident`], [`assign`], [`candidate_pairs`]).
//! Promises: deterministic (ties break by index or name); bounded work: beyond [`PAIR_BUDGET`] pairs
//! only pairs that share some evidence are scored, and evidence shared by more than [`POSTING_CAP`]
//! items is not used.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::Value;

use crate::load::Tool;

/// What tool-level pairing knows about a removed or added tool, computed once.
pub(super) struct Facts {
    ident: Ident,
    params: BTreeSet<String>,
    words: BTreeSet<String>,
    name: String,
}

impl Facts {
    /// The identifier and the parameter names: what renames and successors are selected by when
    /// there are too many pairs to score (a rename keeps at least half of the parameters).
    fn evidence(&self) -> (&Ident, Vec<String>) {
        let keys = if self.params.is_empty() {
            vec!["p:".to_owned()]
        } else {
            self.params.iter().map(|p| format!("p:{p}")).collect()
        };
        (&self.ident, keys)
    }

    pub(super) fn of(tool: &Tool) -> Facts {
        Facts {
            ident: Ident::of(&tool.name),
            params: param_names(tool),
            words: description_words(tool.value(), 3),
            name: tool.name.clone(),
        }
    }
}

/// For each removed tool, the new tool that most likely took over its job: most of its parameters,
/// and a related name or description. Beyond [`PAIR_BUDGET`] pairs, only new tools that share a
/// name feature or a parameter name are considered.
pub(super) fn successors(removed: &[Facts], added: &[Facts]) -> Vec<Option<usize>> {
    let pairs = candidate_pairs(removed.len(), added.len(), || {
        let old: Vec<(&Ident, Vec<String>)> = removed.iter().map(Facts::evidence).collect();
        let new: Vec<(&Ident, Vec<String>)> = added.iter().map(Facts::evidence).collect();
        blocked_pairs(&old, &new)
    });
    let mut best: Vec<Option<(f64, usize)>> = vec![None; removed.len()];
    for (i, j) in pairs {
        let (r, t) = (&removed[i], &added[j]);
        if r.params.is_empty() {
            continue;
        }
        let covered = r.params.iter().filter(|p| t.params.contains(*p)).count();
        #[allow(clippy::cast_precision_loss, reason = "counts of properties are small")]
        let coverage = covered as f64 / r.params.len() as f64;
        let related = r.ident.similarity(&t.ident).max(jaccard(&r.words, &t.words));
        if coverage >= 0.6 && related >= 0.3 {
            let score = coverage + related;
            // Highest score; on a tie, the first name in order.
            let better = best[i].is_none_or(|(s, k)| match score.total_cmp(&s) {
                std::cmp::Ordering::Greater => true,
                std::cmp::Ordering::Equal => t.name < added[k].name,
                std::cmp::Ordering::Less => false,
            });
            if better {
                best[i] = Some((score, j));
            }
        }
    }
    best.into_iter().map(|b| b.map(|(_, j)| j)).collect()
}

/// The lower-cased words of a `description`, longer than `longer_than` characters, from its first
/// 64 KiB: a similarity measure, not worth the cost of sorting the words of a megabyte.
pub(super) fn description_words(value: &Value, longer_than: usize) -> BTreeSet<String> {
    let text = value.get("description").and_then(Value::as_str).unwrap_or("");
    let end = (0..=text.len().min(64 * 1024)).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    text[..end].split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() > longer_than).map(str::to_lowercase).collect()
}

/// Pairs removed and added tools that are clearly the same tool under a new name: similar names and
/// mostly the same parameters. Returns indices into `removed` and `added`.
pub(super) fn pair_renamed_tools(removed: &[Facts], added: &[&Facts]) -> Vec<(usize, usize)> {
    let pairs = candidate_pairs(removed.len(), added.len(), || {
        let old: Vec<(&Ident, Vec<String>)> = removed.iter().map(Facts::evidence).collect();
        let new: Vec<(&Ident, Vec<String>)> = added.iter().map(|f| f.evidence()).collect();
        blocked_pairs(&old, &new)
    });
    let mut candidates = Vec::new();
    for (i, j) in pairs {
        let (a, b) = (&removed[i], added[j]);
        let name = a.ident.similarity(&b.ident);
        let params = jaccard(&a.params, &b.params);
        let score = 0.6 * name + 0.4 * params;
        if name >= 0.75 && params >= 0.5 && score >= 0.8 {
            candidates.push((score, i, j));
        }
    }
    assign(candidates)
}

pub(super) fn param_names(tool: &Tool) -> BTreeSet<String> {
    tool.value()
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
        .map(|m| m.keys().map(|k| normalize_name(k)).collect())
        .unwrap_or_default()
}

pub(super) fn jaccard<T: Ord>(a: &BTreeSet<T>, b: &BTreeSet<T>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let inter = a.intersection(b).count();
    let union = a.union(b).count();
    #[allow(clippy::cast_precision_loss, reason = "counts of properties are small")]
    let score = inter as f64 / union as f64;
    score
}

/// Best one-to-one pairing of candidates `(score, a, b)`: exact (maximum total score) when either side
/// has at most 12 members with candidates, greedy by descending score beyond that. Ties break by
/// index so the result is deterministic.
pub(super) fn assign(mut candidates: Vec<(f64, usize, usize)>) -> Vec<(usize, usize)> {
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let rows: BTreeSet<usize> = candidates.iter().map(|c| c.1).collect();
    let cols: BTreeSet<usize> = candidates.iter().map(|c| c.2).collect();
    if rows.len().min(cols.len()) <= 12 && rows.len() * cols.len() <= 4096 {
        return assign_exact(&candidates, &rows, &cols);
    }
    let (mut used_a, mut used_b) = (HashSet::new(), HashSet::new());
    let mut out = Vec::new();
    for (_, i, j) in candidates {
        if used_a.contains(&i) || used_b.contains(&j) {
            continue;
        }
        used_a.insert(i);
        used_b.insert(j);
        out.push((i, j));
    }
    out
}

/// Maximum-weight matching by dynamic programming over the subsets of the smaller side.
fn assign_exact(
    candidates: &[(f64, usize, usize)],
    rows: &BTreeSet<usize>,
    cols: &BTreeSet<usize>,
) -> Vec<(usize, usize)> {
    let flip = cols.len() < rows.len();
    let (outer, inner): (Vec<usize>, Vec<usize>) = if flip {
        (rows.iter().copied().collect(), cols.iter().copied().collect())
    } else {
        (cols.iter().copied().collect(), rows.iter().copied().collect())
    };
    // `inner` is the smaller side (at most 12): subsets of it are the DP state.
    let score = |o: usize, i: usize| -> Option<f64> {
        let (r, c) = if flip { (outer[o], inner[i]) } else { (inner[i], outer[o]) };
        candidates.iter().find(|x| x.1 == r && x.2 == c).map(|x| x.0)
    };
    let full = 1usize << inner.len();
    // best[o][mask]: best total using outer members from o on, with `mask` of inner already used.
    let mut best = vec![vec![0.0f64; full]; outer.len() + 1];
    for o in (0..outer.len()).rev() {
        for mask in 0..full {
            let mut b = best[o + 1][mask];
            for i in 0..inner.len() {
                if mask & (1 << i) == 0
                    && let Some(s) = score(o, i)
                {
                    b = b.max(s + best[o + 1][mask | (1 << i)]);
                }
            }
            best[o][mask] = b;
        }
    }
    let mut out = Vec::new();
    let mut mask = 0usize;
    for o in 0..outer.len() {
        if (best[o][mask] - best[o + 1][mask]).abs() < 1e-12 {
            continue;
        }
        for i in 0..inner.len() {
            if mask & (1 << i) == 0
                && let Some(s) = score(o, i)
                && (s + best[o + 1][mask | (1 << i)] - best[o][mask]).abs() < 1e-12
            {
                mask |= 1 << i;
                out.push(if flip { (outer[o], inner[i]) } else { (inner[i], outer[o]) });
                break;
            }
        }
    }
    out
}

/// Lower-case words of an identifier, joined: `issueNumber`, `issue_number` and `issue-number` all
/// become `issuenumber`.
#[must_use]
pub fn normalize_name(name: &str) -> String {
    name.chars().filter(char::is_ascii_alphanumeric).flat_map(char::to_lowercase).collect::<String>()
        + &name.chars().filter(|c| !c.is_ascii() && c.is_alphanumeric()).collect::<String>()
}

/// How likely two identifiers name the same thing, from 0 to 1.
#[must_use]
pub fn name_similarity(a: &str, b: &str) -> f64 {
    Ident::of(a).similarity(&Ident::of(b))
}

/// An identifier prepared for [`name_similarity`]: normalized once, compared many times.
pub(super) struct Ident {
    norm: String,
    words: Vec<String>,
}

impl Ident {
    pub(super) fn of(name: &str) -> Ident {
        Ident { norm: normalize_name(name), words: crate::names::words(name) }
    }

    pub(super) fn similarity(&self, other: &Ident) -> f64 {
        let (x, y) = (&self.norm, &other.norm);
        if x.is_empty() || y.is_empty() {
            return 0.0;
        }
        if x == y {
            return 1.0;
        }
        let (short, long) = if x.len() <= y.len() { (x, y) } else { (y, x) };
        // `q` -> `query`, `repo` -> `repository`: an abbreviation is a prefix of the full word.
        if long.starts_with(short.as_str()) {
            return 0.85;
        }
        // `id` -> `issueId`, `name` -> `repo_name`: the words of one are a part of the other's.
        let (few, many) = if self.words.len() <= other.words.len() {
            (&self.words, &other.words)
        } else {
            (&other.words, &self.words)
        };
        if !few.is_empty() && few.iter().all(|w| many.contains(w)) {
            return 0.8;
        }
        strsim::jaro_winkler(x, y)
    }
}

/// Above this many (removed x added) pairs, only pairs that share some evidence are scored.
const PAIR_BUDGET: usize = 250_000;

/// The (row, column) pairs to score: all of them within [`PAIR_BUDGET`], else the `blocked` ones.
pub(super) fn candidate_pairs(
    rows: usize,
    cols: usize,
    blocked: impl FnOnce() -> Vec<(usize, usize)>,
) -> Vec<(usize, usize)> {
    if rows * cols <= PAIR_BUDGET {
        (0..rows).flat_map(|i| (0..cols).map(move |j| (i, j))).collect()
    } else {
        blocked()
    }
}

/// The pairs worth scoring when there are too many to score all: the same normalized name (always),
/// prefix-related names, a shared word, the same first three letters, or a shared `extra` key (the
/// caller's evidence: description words, parameter names). A key shared by more than
/// [`POSTING_CAP`] items (a word in every name) is not used.
pub(super) fn blocked_pairs(old: &[(&Ident, Vec<String>)], new: &[(&Ident, Vec<String>)]) -> Vec<(usize, usize)> {
    let keys = |ident: &Ident, extra: &[String]| -> Vec<String> {
        let mut k: Vec<String> = ident.words.iter().map(|w| format!("w:{w}")).collect();
        k.push(format!("h:{}", ident.norm.chars().take(3).collect::<String>()));
        k.extend(extra.iter().cloned());
        k
    };
    let mut by_norm: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
    let mut sorted: Vec<(&str, usize)> = Vec::with_capacity(new.len());
    for (j, (ident, extra)) in new.iter().enumerate() {
        by_norm.entry(ident.norm.as_str()).or_default().push(j);
        sorted.push((ident.norm.as_str(), j));
        for k in keys(ident, extra) {
            by_key.entry(k).or_default().push(j);
        }
    }
    sorted.sort_unstable();
    let mut out: BTreeSet<(usize, usize)> = BTreeSet::new();
    for (i, (ident, extra)) in old.iter().enumerate() {
        let norm = ident.norm.as_str();
        let mut found: Vec<usize> = by_norm.get(norm).cloned().unwrap_or_default();
        let capped = |list: Option<&Vec<usize>>| list.filter(|l| l.len() <= POSTING_CAP).cloned().unwrap_or_default();
        // Names this one is a prefix of (`repo` -> `repository`), nearest first, and its own prefixes.
        let start = sorted.partition_point(|(n, _)| *n < norm);
        found
            .extend(sorted[start..].iter().take_while(|(n, _)| n.starts_with(norm)).take(POSTING_CAP).map(|(_, j)| *j));
        for (k, _) in norm.char_indices().skip(1) {
            found.extend(capped(by_norm.get(&norm[..k])));
        }
        for k in keys(ident, extra) {
            found.extend(capped(by_key.get(&k)));
        }
        out.extend(found.into_iter().map(|j| (i, j)));
    }
    out.into_iter().collect()
}

/// Evidence shared by more items than this is too common to select candidates by.
pub(super) const POSTING_CAP: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_normalize_across_styles() {
        assert!(name_similarity("issueNumber", "issue_number") >= 1.0);
        assert!(name_similarity("q", "query") >= 0.85);
        assert!(name_similarity("owner", "limit") < 0.7);
    }
}
