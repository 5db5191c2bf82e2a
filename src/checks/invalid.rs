//! Tools that cannot be compared ([`Problem`]s of loading): no object `inputSchema`, an `outputSchema`
//! that is not a schema, no string `name`, a repeated name. They become findings (`tool-invalid`,
//! `tool-unnamed`, `tool-name-duplicate`) when the new side introduces or changes them, and one note
//! when they are the same on both sides: a defect every pull request inherits is not a new break, and
//! an error on each of them would teach people to ignore the gate (buf and oasdiff report what the
//! change under review did).
//!
//! A tool invalid on either side is left out of the comparison on both sides: its contract cannot be
//! compared, so no addition, removal or schema change is invented for it.

use std::collections::HashSet;

use super::{Finding, fingerprint, standalone};
use crate::catalog::RuleId;
use crate::load::{Problem, ProblemKind, Snapshot, Sources};

/// What pairs a problem with the same problem on the other side: its kind and the tool's key, or for a
/// tool without a name, its text.
fn identity(p: &Problem) -> (ProblemKind, String) {
    let key = if p.tool.name.is_empty() { p.tool.raw().to_owned() } else { p.tool.name.clone() };
    (p.kind, key)
}

/// How a problem is named in messages.
fn shown(p: &Problem) -> String {
    match (p.tool.name.is_empty(), p.tool.base.is_empty()) {
        (false, _) => p.tool.name.clone(),
        (true, false) => p.tool.base.clone(),
        (true, true) => "/".to_owned(),
    }
}

fn rule(kind: ProblemKind) -> RuleId {
    match kind {
        ProblemKind::Invalid => RuleId::ToolInvalid,
        ProblemKind::Unnamed => RuleId::ToolUnnamed,
        ProblemKind::NameDuplicate => RuleId::ToolNameDuplicate,
    }
}

/// Removes from both sides every tool that is invalid on either side (see the module header).
pub fn hold_back(old: &mut Snapshot, new: &mut Snapshot) {
    let invalid: HashSet<String> = old
        .problems
        .iter()
        .chain(&new.problems)
        .filter(|p| p.kind == ProblemKind::Invalid && !p.tool.name.is_empty())
        .map(|p| p.tool.name.clone())
        .collect();
    for key in &invalid {
        old.tools.remove(key);
        new.tools.remove(key);
    }
}

/// Findings for the problems the new side introduces or changes, notes for the others.
#[must_use]
pub fn problems(old: &Snapshot, new: &Snapshot, sources: &Sources) -> (Vec<Finding>, Vec<String>) {
    let mut findings = Vec::new();
    let mut notes = Vec::new();
    let old_ids: Vec<(ProblemKind, String)> = old.problems.iter().map(identity).collect();
    let new_ids: HashSet<(ProblemKind, String)> = new.problems.iter().map(identity).collect();
    for p in &new.problems {
        let id = identity(p);
        let unchanged = old.problems.iter().any(|o| identity(o) == id && o.tool.raw() == p.tool.raw());
        let name = shown(p);
        if unchanged {
            let rule = rule(p.kind).as_str();
            notes.push(match p.kind {
                ProblemKind::Invalid => format!(
                    "tool `{name}` is invalid the same way in both snapshots ({}) and is not compared ({rule}); \
                     fix it in the server",
                    p.detail
                ),
                ProblemKind::Unnamed => format!(
                    "the tool at `{name}` has no usable name in both snapshots ({}) and is not compared ({rule})",
                    p.detail
                ),
                ProblemKind::NameDuplicate => format!(
                    "tool `{name}` is defined more than once in both snapshots{}; the first definition is compared \
                     ({rule})",
                    p.detail
                ),
            });
            continue;
        }
        let mut tool = p.tool.clone();
        tool.name.clone_from(&name);
        let mut f =
            standalone(rule(p.kind), None, &tool, p.pointer.clone(), vec![("detail", p.detail.clone())], sources);
        f.fingerprint = fingerprint(f.rule.as_str(), &identity(p).1, &p.pointer);
        findings.push(f);
    }
    for (p, id) in old.problems.iter().zip(&old_ids) {
        // A duplicate or a nameless tool the new side no longer has is a fix, not news.
        if p.kind == ProblemKind::Invalid && !new_ids.contains(id) {
            notes.push(format!(
                "tool `{}` was invalid in {} ({}): its contract in {} cannot be compared with the old one, so no \
                 change is reported for it",
                shown(p),
                old.label,
                p.detail,
                new.label
            ));
        }
    }
    (findings, notes)
}
