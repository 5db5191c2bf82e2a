//! An `enum` introduced on an input value whose old description already named exactly those values
//! ("Role of the message (e.g., system, user, assistant)" -> `enum: [system, user, assistant]`): a
//! call planned from the old contract sent one of them and is still accepted; only a value the old
//! text never named is now rejected. A `warning` with the witness, never silence (issue #31:
//! perplexity's three `role` enums, labelled harmless on the fresh dev pairs).
//!
//! Takes the change and both tools; returns the lowered severity or nothing. Promises: lowered only
//! when every new value is named in the old description as one list, nothing else stands between the
//! named values, and no further item follows the list (`..., assistant, etc.` or `..., tool` keeps
//! the error: the old text named a value the enum leaves out, or left the list open).

use serde_json::Value;

use super::consequence::{Lowered, SeverityReason};
use crate::catalog::Severity;
use crate::compare::{Change, ChangeKind, SchemaChange, Side};
use crate::load::{Tool, escape};

/// At most this many values are matched (a longer enum is not a list a sentence names).
const MAX_VALUES: usize = 16;
/// Words that join list items.
const JOINERS: &[&str] = &["or", "and"];

pub(super) fn lowered(change: &Change, old_tool: &Tool, new_tool: &Tool) -> Option<Lowered> {
    let ChangeKind::Schema { side: Side::Input, change: SchemaChange::Enum { introduced: true, removed, .. } } =
        &change.kind
    else {
        return None;
    };
    if !removed.is_empty() {
        return None;
    }
    let new_ptr = change.new_ptr.as_deref()?;
    let holder = new_ptr.strip_suffix("/enum")?;
    let values: Vec<&str> =
        new_tool.value().pointer(new_ptr)?.as_array()?.iter().map(Value::as_str).collect::<Option<_>>()?;
    if values.is_empty() || values.len() > MAX_VALUES || values.iter().any(|v| v.is_empty() || v.len() > 64) {
        return None;
    }
    // The old pointer is the value's `type` (or the value itself) when it had no `enum`.
    let old_holder = change
        .old_ptr
        .as_deref()
        .map_or(holder, |p| p.strip_suffix("/enum").or_else(|| p.strip_suffix("/type")).unwrap_or(p));
    let old = old_tool.value().pointer(old_holder)?.as_object()?;
    if old.contains_key("enum") || old.contains_key("const") {
        return None;
    }
    let description = old.get("description")?.as_str()?;
    if !names_exactly(description, &values) {
        return None;
    }
    let shown = values.iter().map(|v| format!("`{}`", escape(v))).collect::<Vec<_>>().join(", ");
    let reason = format!(
        "the old description already named exactly these values ({shown}): a call planned from the old contract \
         sends one of them and is still accepted; only a value the old text never named is now rejected"
    );
    Some(Lowered {
        why: format!("By default reported at `warning`, not `error`: {reason}."),
        migration: "Check that no caller sends another value (a call log, `mcp-drift replay`); if one may, accept it \
                    for a deprecation window before rejecting it."
            .to_owned(),
        reason: SeverityReason { severity: Severity::Warning, reason },
    })
}

/// A word or a separator of a description.
#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    Comma,
    /// Anything else that ends a list: a full stop, a parenthesis, a colon, a semicolon.
    End,
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<Token>| {
        let w = word.trim_end_matches('.');
        if !w.is_empty() {
            out.push(Token::Word(w.to_lowercase()));
        }
        let ended = word.ends_with('.');
        word.clear();
        if ended {
            out.push(Token::End);
        }
    };
    for c in text.chars().take(4096) {
        if c.is_alphanumeric() || matches!(c, '_' | '-' | '.') {
            word.push(c);
            continue;
        }
        flush(&mut word, &mut out);
        match c {
            ',' | '/' | '|' => out.push(Token::Comma),
            c if c.is_whitespace() || matches!(c, '`' | '\'' | '"') => {}
            _ => out.push(Token::End),
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Whether `text` names every one of `values` in one list with nothing else in it, and no item after it.
fn names_exactly(text: &str, values: &[&str]) -> bool {
    let tokens = tokens(text);
    let lower: Vec<String> = values.iter().map(|v| v.to_lowercase()).collect();
    let is_value = |t: &Token| matches!(t, Token::Word(w) if lower.contains(w));
    let at: Vec<usize> = tokens.iter().enumerate().filter(|(_, t)| is_value(t)).map(|(i, _)| i).collect();
    let (Some(&lo), Some(&hi)) = (at.first(), at.last()) else { return false };
    let named = |v: &String| tokens[lo..=hi].iter().any(|t| matches!(t, Token::Word(w) if w == v));
    if !lower.iter().all(named) {
        return false;
    }
    let inside_ok = tokens[lo..=hi].iter().all(|t| match t {
        Token::Word(w) => lower.contains(w) || JOINERS.contains(&w.as_str()),
        Token::Comma => true,
        Token::End => false,
    });
    // After the list: a comma or a joiner followed by another word is one more item.
    let mut rest = tokens[hi + 1..].iter();
    let follows = match rest.next() {
        Some(Token::Comma) => true,
        Some(Token::Word(w)) => JOINERS.contains(&w.as_str()),
        _ => false,
    };
    let another = follows && matches!(rest.next(), Some(Token::Word(_)));
    inside_ok && !another
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_of_exactly_the_values_is_named() {
        let v = ["system", "user", "assistant"];
        assert!(names_exactly("Role of the message (e.g., system, user, assistant)", &v));
        assert!(names_exactly("One of: system, user or assistant.", &v));
        assert!(names_exactly("`system`, `user` and `assistant`", &v));
    }

    #[test]
    fn another_item_or_an_open_list_or_prose_between_is_not() {
        let v = ["system", "user", "assistant"];
        assert!(!names_exactly("Role (e.g., system, user, assistant, tool)", &v));
        assert!(!names_exactly("Role (e.g., system, user, assistant, etc.)", &v));
        assert!(!names_exactly("system for instructions, user for prompts, assistant for answers", &v));
        assert!(!names_exactly("Role of the message (system or user)", &v));
        assert!(!names_exactly("The role: user", &["user", "admin"]));
    }
}
