//! `lint-open-input`: one summary per snapshot of the tools whose `inputSchema` accepts undeclared
//! arguments. It is a property of how a server generates its schemas (most SDKs leave them open), so
//! one finding per tool would be a wall of identical notes that teaches people to switch the rule off.
//!
//! The summary is about the snapshot, not one tool: its `tool` and `pointer` are empty, so its
//! fingerprint depends on the rule alone (and the snapshot file in a multi-snapshot run) and stays the
//! same whichever tools are open. Its evidence is the sorted list of open tools, so a baseline entry
//! that accepted it accepts that list and no other: a tool that becomes open reports it again. It is
//! located at the first open tool's `inputSchema`, and names them all in a note.

use serde_json::Value;

use crate::catalog::RuleId;
use crate::catalog::fill;
use crate::checks::{self, Finding};
use crate::load::{Sources, Tool, escape};

/// Tools named in the message; the note names up to [`NOTE_NAMES`].
const SHOWN: usize = 5;
const NOTE_NAMES: usize = 100;

/// `` `a`, `b` and 3 more ``: at most `limit` names.
fn names(tools: &[&Tool], limit: usize) -> String {
    let shown: Vec<String> = tools.iter().take(limit).map(|t| format!("`{}`", escape(&t.name))).collect();
    let more = tools.len().saturating_sub(limit);
    if more > 0 { format!("{} and {more} more", shown.join(", ")) } else { shown.join(", ") }
}

/// The one `lint-open-input` finding of a snapshot of `total` tools, or `None` when none is open.
pub(super) fn summary(open: &[&Tool], total: usize, sources: &Sources) -> Option<Finding> {
    let mut open = open.to_vec();
    open.sort_by(|a, b| a.name.cmp(&b.name));
    let first = *open.first()?;
    let rule = RuleId::LintOpenInput;
    let what = match (open.len(), total) {
        (1, 1) => "the only tool".to_owned(),
        (2, 2) => "both tools".to_owned(),
        (n, t) if n == t => format!("all {t} tools"),
        (n, t) => format!("{n} of {t} tools"),
    };
    let vars = vec![("what", what), ("detail", names(&open, SHOWN))];
    let mut f = checks::standalone(rule, None, first, "/inputSchema".to_owned(), vars.clone(), sources);
    // Not about one tool: no tool name is added to the message, and the place is the snapshot's.
    f.message = fill(rule.meta().message, &vars);
    f.tool = String::new();
    f.pointer = String::new();
    f.fingerprint = checks::fingerprint(rule.as_str(), "", "");
    let listed: Vec<Value> = open.iter().map(|t| Value::from(t.name.as_str())).collect();
    f.evidence = Some(checks::evidence(None, Some(&Value::Array(listed))));
    if open.len() > SHOWN {
        f.notes.push(format!("open: {}", names(&open, NOTE_NAMES)));
    }
    Some(f)
}
