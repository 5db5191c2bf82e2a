//! `lint-annotation-contradiction`: tool annotations that promise what the description denies.

use serde_json::{Map, Value};

use super::Hit;
use crate::catalog::RuleId;

/// Verbs that say a tool deletes or overwrites something.
const DESTRUCTIVE: &[&str] = &[
    "delete",
    "deletes",
    "deleting",
    "remove",
    "removes",
    "removing",
    "destroy",
    "destroys",
    "drop",
    "drops",
    "purge",
    "purges",
    "erase",
    "erases",
    "wipe",
    "wipes",
    "overwrite",
    "overwrites",
    "truncate",
    "truncates",
];

/// `lint-annotation-contradiction`: a description that says the tool deletes or overwrites, under
/// hints that promise it does not.
///
/// The hints are read as the MCP `ToolAnnotations` definition reads them: absent ones take their
/// defaults (`readOnlyHint: false`, `destructiveHint: true`, `idempotentHint: false`), and
/// `destructiveHint` and `idempotentHint` are "meaningful only when `readOnlyHint == false`". So a
/// read-only tool with either of them set, either way, contradicts nothing: clients ignore them (a
/// server that spells out every hint, like github-mcp-server's `idempotentHint: false` on each
/// read-only tool, is not warned about each one).
pub(super) fn annotations(t: &Map<String, Value>, out: &mut Vec<Hit>) {
    let Some(Value::Object(a)) = t.get("annotations") else { return };
    let hint = |k: &str| a.get(k).and_then(Value::as_bool);
    let read_only = hint("readOnlyHint").unwrap_or(false);
    // The hint that promises no destructive effect, when one does.
    let promise = if read_only {
        Some("readOnlyHint")
    } else if hint("destructiveHint") == Some(false) {
        Some("destructiveHint")
    } else {
        None
    };
    if let (Some(key), Some(description)) = (promise, t.get("description").and_then(Value::as_str))
        && let Some(verb) = destructive_verb(description)
    {
        let detail = format!(
            "`{key}: {}` promises no destructive effect, but the description says \"{verb}\"",
            key == "readOnlyHint"
        );
        out.push(Hit::new(RuleId::LintAnnotationContradiction, format!("/annotations/{key}")).var("detail", detail));
    }
}

/// The first destructive verb of a text that is not negated just before it ("never deletes").
fn destructive_verb(text: &str) -> Option<String> {
    let words: Vec<String> =
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    words.iter().enumerate().find_map(|(i, w)| {
        let negated = words[i.saturating_sub(3)..i]
            .iter()
            .any(|p| matches!(p.as_str(), "not" | "never" | "no" | "without" | "nothing" | "doesn" | "won" | "cannot"));
        (DESTRUCTIVE.contains(&w.as_str()) && !negated).then(|| w.clone())
    })
}
