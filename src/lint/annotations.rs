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

/// `lint-annotation-contradiction`: hints that cannot all be true, or a destructive description under
/// hints that promise no harm.
pub(super) fn annotations(t: &Map<String, Value>, out: &mut Vec<Hit>) {
    let Some(Value::Object(a)) = t.get("annotations") else { return };
    let hint = |k: &str| a.get(k).and_then(Value::as_bool);
    let mut say = |pointer: &str, detail: String| {
        out.push(Hit::new(RuleId::LintAnnotationContradiction, pointer).var("detail", detail));
    };
    if hint("readOnlyHint") == Some(true) {
        if hint("destructiveHint") == Some(true) {
            say(
                "/annotations/destructiveHint",
                "`readOnlyHint: true` says the tool changes nothing, `destructiveHint: true` says it may destroy data"
                    .into(),
            );
        }
        if hint("idempotentHint") == Some(false) {
            say(
                "/annotations/idempotentHint",
                "`readOnlyHint: true` says the tool changes nothing, so repeating a call cannot have more effect, yet `idempotentHint: false`".into(),
            );
        }
    }
    let promise = if hint("readOnlyHint") == Some(true) {
        Some("readOnlyHint")
    } else if hint("readOnlyHint") == Some(false) && hint("destructiveHint") == Some(false) {
        Some("destructiveHint")
    } else {
        None
    };
    if let (Some(key), Some(description)) = (promise, t.get("description").and_then(Value::as_str))
        && let Some(verb) = destructive_verb(description)
    {
        say(
            &format!("/annotations/{key}"),
            format!(
                "`{key}: {}` promises no destructive effect, but the description says \"{verb}\"",
                key == "readOnlyHint"
            ),
        );
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
