//! The default a parameter's description states in prose ("Defaults to private").
//!
//! Only explicit default statements count: "defaults to X", "(will) default to X", "default: X",
//! "default = X", "(default X)", "default is X", "the default value is X", "X by default" when "by
//! default" closes a short clause ("descending by default", "is descending by default"). The word used
//! otherwise is not a statement: "uses the default branch", "the default state of", "by default both open
//! and closed issues are returned" (a sentence about behaviour, not a value), "per page by default".
//! "If omitted, X" is a condition, not a default value: it is left to the description classifier.

/// Words that end a stated value ("defaults to 30 if unset" -> `30`).
const VALUE_END: &[&str] = &[
    "if",
    "when",
    "unless",
    "and",
    "or",
    "but",
    "which",
    "that",
    "who",
    "you",
    "for",
    "in",
    "on",
    "from",
    "with",
    "otherwise",
    "except",
];

/// At most this many words make a stated value.
const MAX_VALUE_WORDS: usize = 4;

/// The default a description states in prose: "Defaults to private", "(default: 30)", "Default is
/// merge", "descending by default". Lower-cased; `None` when no default is stated.
#[must_use]
pub fn stated_default(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    clauses(&lower).into_iter().find_map(|c| in_clause(&c))
}

/// The clauses of a text, each as its words: split at sentence ends (`.` before a space or the end),
/// commas, semicolons, parentheses and line breaks.
fn clauses(text: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut clause: Vec<String> = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let sentence_end = c == '.' && chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        let boundary = sentence_end || matches!(c, ',' | ';' | '(' | ')' | '[' | ']' | '\n' | '!' | '?');
        if boundary || c.is_whitespace() || matches!(c, '`' | '"' | '*') {
            push_word(&mut clause, &mut word);
            if boundary && !clause.is_empty() {
                out.push(std::mem::take(&mut clause));
            }
            continue;
        }
        if matches!(c, ':' | '=') {
            push_word(&mut clause, &mut word);
            clause.push(c.to_string());
            continue;
        }
        word.push(c);
    }
    push_word(&mut clause, &mut word);
    if !clause.is_empty() {
        out.push(clause);
    }
    out
}

/// Ends a word; single quotes around it are quoting, inside it an apostrophe (`caller's`).
fn push_word(clause: &mut Vec<String>, word: &mut String) {
    let w = std::mem::take(word);
    let w = w.trim_matches('\'');
    if !w.is_empty() {
        clause.push(w.to_owned());
    }
}

/// The default one clause states, or `None`.
fn in_clause(w: &[String]) -> Option<String> {
    let at = |i: usize| w.get(i).map_or("", String::as_str);
    for i in 0..w.len() {
        match at(i) {
            // "defaults to X", "defaulting to X", "(will) default to X"
            "defaults" | "defaulting" | "default" if at(i + 1) == "to" && !(i > 0 && at(i - 1) == "the") => {
                return value(&w[i + 2..]);
            }
            "default" => {
                // "default: X", "default = X", "default X" right after an opening "(" (a clause start)
                if matches!(at(i + 1), ":" | "=") {
                    return value(&w[i + 2..]);
                }
                // "default is X", "the default value is X", "default value: X"
                let mut j = i + 1;
                if at(j) == "value" {
                    j += 1;
                }
                if matches!(at(j), "is" | ":" | "=") {
                    return value(&w[j + 1..]);
                }
                // "(default X)": the whole clause is "default" and its value
                if i == 0 && w.len() <= 1 + MAX_VALUE_WORDS && w.len() > 1 && !matches!(at(1), "value" | "values") {
                    return value(&w[1..]);
                }
                // "X by default" closing a short clause, or "... is X by default"
                if i >= 2 && at(i - 1) == "by" && i + 1 == w.len() {
                    let before = &w[..i - 1];
                    if before.len() <= 2 || matches!(at(i - 3), "is" | "are") {
                        return Some(before[before.len() - 1].clone());
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// A stated value: the words up to a word that ends it, at most [`MAX_VALUE_WORDS`], without a leading
/// article.
fn value(words: &[String]) -> Option<String> {
    let words = match words.first().map(String::as_str) {
        Some("the" | "a" | "an") => &words[1..],
        _ => words,
    };
    let end = words.iter().position(|w| VALUE_END.contains(&w.as_str())).unwrap_or(words.len());
    let words = &words[..end];
    if words.is_empty() || words.len() > MAX_VALUE_WORDS {
        return None;
    }
    Some(words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_in_prose() {
        assert_eq!(stated_default("Visibility. Defaults to private.").as_deref(), Some("private"));
        assert_eq!(stated_default("Notify watchers (default: true).").as_deref(), Some("true"));
        assert_eq!(stated_default("Sort direction, descending by default.").as_deref(), Some("descending"));
        assert_eq!(stated_default("Merge method. Default is squash.").as_deref(), Some("squash"));
        assert_eq!(stated_default("The issue title."), None);
    }

    #[test]
    fn explicit_statements_only() {
        assert_eq!(stated_default("Results per page (default 30).").as_deref(), Some("30"));
        assert_eq!(stated_default("Timeout in seconds. Default: 2.5").as_deref(), Some("2.5"));
        assert_eq!(stated_default("The event ID. Defaults to `latest`.").as_deref(), Some("latest"));
        assert_eq!(stated_default("The sort order is descending by default.").as_deref(), Some("descending"));
        assert_eq!(
            stated_default("This will default to all projects you have access to.").as_deref(),
            Some("all projects")
        );
        assert_eq!(stated_default("Defaults to 30 if not set.").as_deref(), Some("30"));
        assert_eq!(stated_default("The default value is `main`.").as_deref(), Some("main"));
        assert_eq!(stated_default("Defaults to the caller's account.").as_deref(), Some("caller's account"));
    }

    #[test]
    fn the_word_used_otherwise_is_not_a_statement() {
        // github-mcp-server list_issues `state` (the real false positive: `(none stated) -> "state"`).
        assert_eq!(
            stated_default("Filter by state, by default both open and closed issues are returned when not provided"),
            None
        );
        // github-mcp-server list_commits `sha` (reported as `(none stated) -> "branch"`).
        assert_eq!(
            stated_default(
                "Commit SHA, branch or tag name to list commits of. If not provided, uses the default branch of the repository."
            ),
            None
        );
        assert_eq!(stated_default("Returns at least 30 results per page by default, but can return more."), None);
        assert_eq!(stated_default("The default state of the issue is decided by the server."), None);
        assert_eq!(stated_default("Set the default branch to this name."), None);
        assert_eq!(stated_default("Overrides the default values of the template."), None);
    }
}
