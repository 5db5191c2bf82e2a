//! Description edits as findings: `description-meaning-changed`, `description-reworded`, and a default
//! stated in a parameter's prose (`input-default-changed`).

use super::{Draft, readable_path};
use crate::catalog::RuleId as R;
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
    let rule = if verdict.meaning { R::DescriptionMeaningChanged } else { R::DescriptionReworded };
    let mut d = Draft::new(rule).var("what", what).var("trigger", verdict.trigger.clone());
    d.notes.push(format!("edit: {}", verdict.diff));
    d
}
