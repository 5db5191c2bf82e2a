//! A lower bound added to a count ("how many"): `minimum: 0` or `1`, `exclusiveMinimum: 0` on
//! `page_size`, `limit`, `numDimensions`. What it rejects is a count of nothing or less than nothing,
//! which asks for no result; a `warning` with the witness and this reason (issue #31: clickhouse's
//! `page_size > 0` and mongodb's `numDimensions >= 1`, labelled harmless on the fresh dev pairs).
//!
//! Takes the change's keyword and bound, and both tools; returns the lowered severity or nothing.
//! Promises: only a bound added where the old schema had none on that side, at 0 or 1; only an
//! `integer` or `number` value whose name ends in a count word (`size`, `limit`, `count`, ...) or
//! starts with one (`max_`, `num`, `top`) and is not a position (`page`, `offset`, `index`, ...);
//! never when the old description gives zero or a negative number a meaning ("0 for no limit", "-1
//! means all"): then a real old call is rejected and the error stays.

use serde_json::Value;

use super::consequence::{Lowered, SeverityReason};
use crate::catalog::Severity;
use crate::compare::Change;
use crate::load::{Tool, escape};

/// Last words of a name that say "how many".
const COUNT_LAST: &[&str] = &[
    "size",
    "limit",
    "count",
    "max",
    "results",
    "items",
    "dimensions",
    "depth",
    "amount",
    "quantity",
    "length",
    "k",
    "n",
    "entries",
    "rows",
    "lines",
    "tokens",
    "chars",
    "characters",
];
/// First words of a name that say "how many" (`max_results`, `numDimensions`, `top_k`).
const COUNT_FIRST: &[&str] = &["max", "maximum", "num", "number", "top", "limit"];
/// Words that make a name a position, not a count.
const POSITION: &[&str] = &["page", "index", "offset", "start", "cursor", "skip", "position", "from", "id", "number"];
/// Words of an old description that give zero or a negative count a meaning.
const MEANINGFUL_ZERO: &[&str] =
    &["0", "zero", "unlimited", "negative", "-1", "infinite", "disable", "disables", "all"];

pub(super) fn lowered(change: &Change, keyword: &str, bound: &Value, old_tool: &Tool) -> Option<Lowered> {
    let bound = bound.as_f64()?;
    let rejects = match (keyword, bound) {
        ("minimum", 0.0) => "a negative count",
        ("minimum", 1.0) | ("exclusiveMinimum", 0.0) => "a count of zero or less",
        _ => return None,
    };

    let ptr = change.old_ptr.as_deref()?;
    let holder = ptr.strip_suffix(&format!("/{keyword}")).unwrap_or(ptr);
    let (parent, name) = holder.rsplit_once('/')?;
    if !parent.ends_with("/properties") {
        return None;
    }
    let name = name.replace("~1", "/").replace("~0", "~");
    let old = old_tool.value().pointer(holder)?.as_object()?;
    let numeric = match old.get("type") {
        Some(Value::String(t)) => t == "integer" || t == "number",
        _ => false,
    };
    if !numeric || !is_count(&name) {
        return None;
    }
    let said = old.get("description").and_then(Value::as_str).unwrap_or("");
    if words(said).iter().any(|w| MEANINGFUL_ZERO.contains(&w.as_str())) {
        return None;
    }
    let reason = format!(
        "`{}` is a count and only {rejects} is now rejected, which asks for nothing; the old description gave no \
         meaning to zero or a negative number",
        escape(&name)
    );
    Some(Lowered {
        why: format!(
            "By default reported at `warning`, not `error`: {reason}. Some APIs read 0 as \"no limit\"; a caller \
             that sent it that way is now rejected."
        ),
        migration: "Check that no caller sends 0 or less on purpose (a call log, `mcp-drift replay`); if one may, \
                    map it to the old behaviour for a deprecation window."
            .to_owned(),
        reason: SeverityReason { severity: Severity::Warning, reason },
    })
}

/// The lower-case words of a name (`page_size`, `numDimensions`, `max-results`) or a text.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    let mut chars = text.chars().take(4096).peekable();
    while let Some(c) = chars.next() {
        let minus = c == '-' && word.is_empty() && chars.peek().is_some_and(char::is_ascii_digit);
        if c.is_alphanumeric() || minus {
            if c.is_uppercase() && prev_lower && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            word.extend(c.to_lowercase());
        } else {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn is_count(name: &str) -> bool {
    let w = words(name);
    let (Some(first), Some(last)) = (w.first(), w.last()) else { return false };
    if POSITION.contains(&last.as_str()) {
        return false;
    }
    COUNT_LAST.contains(&last.as_str()) || (w.len() > 1 && COUNT_FIRST.contains(&first.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_told_from_positions() {
        for count in ["page_size", "pageSize", "limit", "max_results", "maxResults", "numDimensions", "top_k", "count"]
        {
            assert!(is_count(count), "{count}");
        }
        for other in ["page", "pageNumber", "offset", "start_index", "page_index", "priority", "port", "max_id"] {
            assert!(!is_count(other), "{other}");
        }
    }

    #[test]
    fn a_description_that_gives_zero_a_meaning_is_seen() {
        assert!(words("Use 0 for no limit.").contains(&"0".to_owned()));
        assert!(words("-1 means all").contains(&"-1".to_owned()));
        assert_eq!(words("max-results"), ["max", "results"]);
        assert!(!words("Number of tables per page").iter().any(|w| MEANINGFUL_ZERO.contains(&w.as_str())));
    }
}
