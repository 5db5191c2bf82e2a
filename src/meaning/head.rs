//! What a value or a tool denotes: the head noun of the first noun phrase of its description
//! ("the maximum number of results" -> `result`; "page index" -> `index`), and the content words of
//! the first clause.

use super::facts::{Reading, Word, clip};
use super::lexicon::{LIMIT, STOPWORDS};

/// The clause that says what the value or the tool is: the first untagged one, after a short leading
/// condition ("When true, shows ...", "If set, ...", "For list operation, show only remote branches").
fn first_clause(r: &Reading) -> Option<usize> {
    let first = r.words.iter().find(|w| !r.tags.contains(&w.clause))?.clause;
    let lead: Vec<&Word> = r.words.iter().filter(|w| w.clause == first).collect();
    let condition = match lead.first().map(|w| w.norm.as_str()) {
        Some("when" | "if") => lead.len() <= 3,
        Some("for") => lead.len() <= 4,
        _ => false,
    };
    if condition && let Some(next) = r.words.iter().find(|w| w.clause > first) {
        return Some(next.clause);
    }
    Some(first)
}

/// The content words of the first clause: what the value or the tool is.
pub(super) fn head(r: &Reading) -> Vec<String> {
    let first = first_clause(r).unwrap_or(0);
    r.words
        .iter()
        .skip_while(|w| w.clause < first)
        .take_while(|w| w.clause == first)
        .filter(|w| !STOPWORDS.contains(&w.norm.as_str()) && !w.number)
        .map(|w| w.norm.clone())
        .collect()
}

/// Words that end the first noun phrase.
const NP_END: &[&str] = &[
    "to",
    "for",
    "in",
    "on",
    "with",
    "by",
    "from",
    "that",
    "which",
    "who",
    "when",
    "where",
    "if",
    "and",
    "or",
    "is",
    "are",
    "was",
    "be",
    "will",
    "should",
    "required",
    "can",
    "may",
    "used",
    "using",
    "get",
    "containing",
    "matching",
    "including",
    "as",
    "at",
    "into",
    "via",
    "per",
    "whose",
    "than",
    "not",
    "only",
    "unless",
    "after",
    "before",
    "over",
    "under",
    "across",
    "between",
    "within",
    "without",
    "like",
    "e.g",
    "eg",
    "i.e",
    "ie",
    "against",
    "around",
    "about",
    "through",
    "each",
];
/// Nouns that wrap the noun that matters: "the maximum number of results" is about results.
const WRAPPERS: &[&str] = &[
    "number",
    "count",
    "list",
    "array",
    "set",
    "maximum",
    "minimum",
    "total",
    "amount",
    "collection",
    "comma",
    "separated",
    "one",
    "each",
    "all",
    "type",
    "kind",
    "some",
    "group",
    "series",
    "sequence",
    "pair",
];
const ARTICLES: &[&str] = &[
    "a",
    "an",
    "the",
    "this",
    "that",
    "your",
    "its",
    "their",
    "our",
    "optional",
    "what",
    "which",
    "how",
    "whether",
    "wether",
    "when",
    "where",
    "who",
    "powerful",
    "comprehensive",
    "advanced",
    "simple",
    "basic",
    "new",
    "full",
    "detailed",
    "complete",
    "specific",
    "given",
    "current",
];

/// Whether the first clause named a count and now names a position ("maximum number of results" ->
/// "which page of results"): the same integer now picks where to start, not how many.
pub(super) fn count_became_position(old: &[String], new: &[String]) -> bool {
    const COUNT: &[&str] = &["maximum", "limit", "count", "number", "size", "amount", "quantity", "total", "many"];
    const POSITION: &[&str] = &["page", "index", "offset", "cursor", "position", "skip", "start", "which"];
    let has = |words: &[String], set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
    (has(old, COUNT) && !has(old, POSITION) && has(new, POSITION) && !has(new, COUNT))
        || (has(old, POSITION) && !has(old, COUNT) && has(new, COUNT) && !has(new, POSITION))
}

/// The head noun of the first noun phrase ("the maximum number of results" -> `result`; "page index"
/// -> `index`; "Lists open alerts" -> `alert`), with the phrase as written.
pub(super) fn head_noun(r: &Reading) -> Option<(String, String)> {
    // "When true, shows ...", "If set, ...": the condition is not what the value denotes.
    let first = first_clause(r)?;
    let mut phrase: Vec<&Word> = Vec::new();
    for w in r.words.iter().skip_while(|w| w.clause < first).take_while(|w| w.clause == first) {
        if !phrase.is_empty() && (NP_END.contains(&w.norm.as_str()) || (w.raw.ends_with("ing") && phrase.len() > 1)) {
            break;
        }
        if phrase.is_empty() && ARTICLES.contains(&w.norm.as_str()) {
            continue;
        }
        phrase.push(w);
    }
    // "X of Y": the head is Y when X wraps it, else X.
    let of = phrase.iter().position(|w| w.norm == "of");
    let words: Vec<&Word> = match of {
        Some(i)
            if phrase[..i].iter().all(|w| WRAPPERS.contains(&w.norm.as_str()) || LIMIT.contains(&w.norm.as_str())) =>
        {
            let rest = &phrase[i + 1..];
            let end = rest.iter().position(|w| w.norm == "of").unwrap_or(rest.len());
            rest[..end].iter().copied().filter(|w| !ARTICLES.contains(&w.norm.as_str())).collect()
        }
        Some(i) => phrase[..i].to_vec(),
        None => phrase.clone(),
    };
    let head = words.iter().rev().find(|w| !w.number && !ARTICLES.contains(&w.norm.as_str()))?;
    let shown = phrase.iter().map(|w| w.raw.as_str()).collect::<Vec<_>>().join(" ");
    Some((head.norm.clone(), clip(&shown, 80)))
}
