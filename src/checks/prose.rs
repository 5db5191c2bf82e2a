//! Description edits as findings: `description-meaning-changed`, `description-reworded`, and a default
//! stated in a parameter's prose (`input-default-changed`).
//!
//! Severity follows the consequence: a prose-only change of what a value denotes, a limit, a unit, a
//! default or an obligation is an `error` (every old call still validates and now means something
//! else); other meaning changes are warnings; an edit that restates a schema change with its own
//! finding at the same place is `info` beside it ([`restated`]).

use super::{Draft, Finding, readable_path};
use crate::catalog::{RuleId as R, Severity};
use crate::compare::Change;
use crate::load::escape;
use crate::meaning;

pub(super) fn description_draft(change: &Change, old: &str, new: &str) -> Draft {
    let verdict = meaning::classify(old, new);
    let is_parameter =
        change.new_ptr.as_deref().is_some_and(|p| p.starts_with("/inputSchema/") && p.ends_with("/description"));
    let (was, now) = (meaning::stated_default(old), meaning::stated_default(new));
    if is_parameter && verdict.meaning && was != now {
        let path = change
            .new_ptr
            .as_deref()
            .map(|p| readable_path(p.strip_suffix("/description").unwrap_or(p)))
            .unwrap_or_default();
        let show = |d: Option<String>| d.map_or_else(|| "(none stated)".to_owned(), |d| format!("\"{}\"", escape(&d)));
        let mut d = Draft::new(R::InputDefaultChanged).var("path", path).var("old", show(was)).var("new", show(now));
        d.notes.push(format!("stated in the description: {}", verdict.diff));
        return d;
    }
    let what = match change.new_ptr.as_deref() {
        Some("/description") | None => "the tool description".to_owned(),
        Some(p) => format!("the description of `{}`", readable_path(p)),
    };
    if !verdict.meaning {
        let mut d = Draft::new(R::DescriptionReworded).var("what", what).var("trigger", escape(&verdict.trigger));
        d.notes.push(format!("edit: {}", verdict.diff));
        return d;
    }
    let grave = verdict.grave();
    let mut d = Draft::new(R::DescriptionMeaningChanged)
        .var("what", what)
        .var("trigger", escape(&verdict.trigger))
        .var("consequence", if grave { GRAVE } else { "" });
    if grave {
        d = d.severity(Severity::Error);
    }
    // The message names the first two changed facts; the notes name them all when there are more.
    if verdict.changes.len() > 2 {
        for c in &verdict.changes {
            d.notes.push(format!("fact {}", escape(&c.to_string())));
        }
    }
    d.notes.push(format!("edit: {}", verdict.diff));
    d
}

const GRAVE: &str =
    "Only the prose carries this change: every old call still validates and now asks for something else. ";
const RESTATED: &str =
    "The edit restates a schema change at the same place, which has its own finding; it is shown for review. ";

/// A description-meaning finding that restates a schema change with its own finding is not a second
/// warning: it becomes `info`. For a parameter's description the schema change is at or below the
/// parameter; for the tool description it is any schema finding of the tool whose message names a
/// number or literal of the changed facts.
pub(super) fn restated(findings: &mut [Finding]) {
    // The facts of a tool-description finding: its message (first two facts) and notes.
    let schema: Vec<(String, String, String)> = findings
        .iter()
        .filter(|f| {
            !matches!(f.rule, R::DescriptionMeaningChanged | R::DescriptionReworded) && f.severity >= Severity::Warning
        })
        .map(|f| (f.tool.clone(), f.pointer.clone(), format!("{} {}", f.rule.as_str(), f.message)))
        .collect();
    for f in findings.iter_mut().filter(|f| f.rule == R::DescriptionMeaningChanged) {
        let holder = f.pointer.strip_suffix("/description").unwrap_or(&f.pointer).to_owned();
        let hit = schema.iter().find(|(tool, pointer, message)| {
            tool == &f.tool
                && if holder.is_empty() {
                    mentions_fact(
                        message,
                        &[f.message.split_once("changed meaning (").map_or("", |(_, t)| t).to_owned()],
                    )
                } else {
                    pointer == &holder || pointer.starts_with(&format!("{holder}/"))
                }
        });
        if let Some((_, _, message)) = hit {
            let rule = message.split(' ').next().unwrap_or_default().to_owned();
            f.severity = Severity::Info;
            f.why = format!("{RESTATED}{}", f.why.strip_prefix(GRAVE).unwrap_or(&f.why));
            f.notes.insert(0, format!("restates the schema change reported as `{rule}`"));
        }
    }
}

/// Whether a schema finding's message names a number or a literal of the changed facts.
fn mentions_fact(message: &str, notes: &[String]) -> bool {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .map(|w| w.trim_matches('.').to_lowercase())
            .filter(|w| w.len() >= 2 && (w.chars().any(|c| c.is_ascii_digit()) || w.contains('_')))
            .collect()
    };
    let said = words(message);
    notes.iter().flat_map(|n| words(n)).any(|w| said.contains(&w))
}
