//! Stage 3, compare: a direction-aware walk over two snapshots that emits a closed set of typed
//! [`Change`]s, each with JSON Pointers into the old and the new tool object.
//!
//! Takes two [`Snapshot`]s; returns changes in a deterministic order (tools by name, then walk order).
//! Promises: a change under a keyword this stage does not model is reported as
//! [`SchemaChange::CannotDecide`], never skipped; `$ref` cycles and any nesting depth terminate
//! (a pair of references already under comparison is assumed compatible, as in coinductive proofs);
//! no network access, ever. Tools are compared in parallel; the order of the result does not depend on
//! the thread count.
//!
//! This file holds the change types and [`compare`]; one file per concern does the rest:
//! `tools` (tool pairing and renames), `tool` (one tool pair), `walk` (the schema walk and its
//! dispatch), `references`, `scalars`, `arrays`, `objects`, `unions`, `conditionals` (one family of
//! keywords each), `plan` (candidate witnesses), [`witness`] (building and confirming them), `probe`
//! (fail-closed checks beyond the walk), [`budget`] (bounded work), [`dialect`], `defaults`,
//! `spelling`.

use std::collections::{BTreeMap, HashMap, HashSet};

use rayon::prelude::*;
use serde_json::Value;

use crate::sorted::{self, Joined};

mod arrays;
pub mod budget;
mod conditionals;
pub mod decision;
mod defaults;
pub mod dialect;
mod objects;
mod plan;
mod probe;
mod references;
mod scalars;
mod spelling;
mod tool;
mod tools;
mod unions;
mod walk;
pub mod witness;

use crate::load::{Snapshot, Tool};
use crate::schema::TypeSet;
use tool::compare_tool;
use tools::{Facts, pair_renamed_tools, successors};
pub use tools::{name_similarity, normalize_name};
use witness::{Plan, Witness};

/// Which way a schema is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// `inputSchema`: the new schema must accept every old call.
    Input,
    /// `outputSchema`: the old schema must accept every new result.
    Output,
}

/// How the set of instances a schema accepts moved: `less` when some old instance is now rejected,
/// `more` when some instance is accepted that was not before. Both can hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    pub less: bool,
    pub more: bool,
}

impl Delta {
    const LESS: Delta = Delta { less: true, more: false };
    const MORE: Delta = Delta { less: false, more: true };

    fn of(less: bool, more: bool) -> Delta {
        Delta { less, more }
    }

    /// Whether this breaks old users of `input` (callers, who break on less) or of the output
    /// (consumers, who break on more).
    #[must_use]
    pub fn breaks(self, input: bool) -> bool {
        if input { self.less } else { self.more }
    }
}

/// What happens to an argument that old callers still send under a name the new schema no longer
/// declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// `additionalProperties: false`: the call is rejected.
    Rejected,
    /// The schema is open: validation passes and the server ignores the value.
    Ignored,
    /// `additionalProperties` is a schema: the value is validated against it and then ignored.
    Revalidated,
    /// Renamed to a property that is required now: old calls lack it and are rejected.
    MissingRequired,
}

/// One typed change inside a schema.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemaChange {
    PropertyRemoved { name: String, was_required: bool, fate: Fate },
    PropertyAdded { name: String, required: bool, old_closed: bool },
    PropertyRenamed { from: String, to: String, fate: Fate },
    RequiredAdded { name: String, new_property: bool },
    RequiredRemoved { name: String },
    Type { old: TypeSet, new: TypeSet },
    Enum { removed: Vec<Value>, added: Vec<Value>, introduced: bool, dropped: bool },
    Constraint { keyword: String, old: Option<Value>, new: Option<Value>, delta: Delta },
    Pattern { old: Option<String>, new: Option<String> },
    Format { old: Option<String>, new: Option<String> },
    AdditionalProperties { closed: bool },
    Default { old: Option<Value>, new: Option<Value> },
    Composition { keyword: String, detail: String, delta: Delta },
    CannotDecide { keyword: String, reason: String },
}

/// One typed change of a tool.
#[derive(Clone, Debug, PartialEq)]
pub enum ChangeKind {
    /// `successor`: the tool that most likely took over (several removed tools with one successor are a
    /// merge).
    ToolRemoved {
        successor: Option<String>,
        merged_with: Vec<String>,
    },
    /// The same name now carries an unrelated contract: most parameters replaced, description unrelated.
    ContractReplaced {
        kept: usize,
        old_params: usize,
        new_params: usize,
    },
    ToolAdded,
    ToolRenamed {
        from: String,
    },
    TitleChanged {
        old: Option<String>,
        new: Option<String>,
    },
    Annotation {
        hint: &'static str,
        old: bool,
        new: bool,
    },
    OutputSchemaAdded,
    OutputSchemaRemoved,
    DialectChanged {
        old: Option<String>,
        new: Option<String>,
        /// The keyword uses whose meaning differs between the two dialects (never empty: a change of
        /// `$schema` that means the same is not reported).
        uses: Vec<dialect::Use>,
    },
    Description {
        old: String,
        new: String,
    },
    Schema {
        side: Side,
        change: SchemaChange,
    },
    /// A candidate drawn from the accepting side (an old call, a new result) that the other side's
    /// validator rejects, found by the probe (see `compare/probe.rs`) whatever the walk modelled.
    Rejected {
        side: Side,
        /// The rejecting keyword, as the validator names it (`anyOf`, `required`).
        keyword: String,
        /// Where the candidate came from (`the minimal old call`, `` `enum[1]` of `region` ``).
        origin: String,
        /// Reasons of the `*-cannot-decide` changes this rejection explains (folded into it).
        undecided: Vec<String>,
    },
}

/// A change with where it happened. Pointers are relative to the tool object.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The tool's name in the new snapshot (the old one for removals).
    pub tool: String,
    pub kind: ChangeKind,
    pub old_ptr: Option<String>,
    pub new_ptr: Option<String>,
    /// A confirmed counterexample, for changes that narrow in the breaking direction.
    pub witness: Option<Witness>,
    /// What the walk handed over for confirmation (cleared once confirmed or given up).
    pub plan: Option<Plan>,
}

/// The effective annotation hints with the MCP defaults applied.
pub const HINTS: &[(&str, bool)] =
    &[("readOnlyHint", false), ("destructiveHint", true), ("idempotentHint", false), ("openWorldHint", true)];

/// Whether a hint value is the riskier one.
#[must_use]
pub fn hint_is_risky(hint: &str, value: bool) -> bool {
    match hint {
        "readOnlyHint" | "idempotentHint" => !value,
        _ => value,
    }
}

/// Compares two snapshots.
#[must_use]
pub fn compare(old: &Snapshot, new: &Snapshot) -> Vec<Change> {
    compare_all(old, new).changes
}

/// What [`compare_all`] found: the typed changes, and per paired tool (by its new name) the
/// containment verdict of each direction.
#[derive(Debug, Default)]
pub struct Comparison {
    pub changes: Vec<Change>,
    pub compatibility: BTreeMap<String, decision::Compatibility>,
}

/// Compares two snapshots, with the containment verdicts.
#[must_use]
pub fn compare_all(old: &Snapshot, new: &Snapshot) -> Comparison {
    let (mut removed, mut added, mut pairs): (Vec<&Tool>, Vec<&Tool>, Vec<(&Tool, &Tool)>) = Default::default();
    for side in sorted::join(old.tools.iter(), new.tools.iter(), |t| t.0, |t| t.0) {
        match side {
            Joined::Left((_, o)) => removed.push(o),
            Joined::Right((_, n)) => added.push(n),
            Joined::Both((_, o), (_, n)) => pairs.push((o, n)),
        }
    }
    // Names, parameters and description words once per tool; each removed tool's likely successor once.
    let (gone_facts, new_facts): (Vec<Facts>, Vec<Facts>) = rayon::join(
        || removed.par_iter().map(|t| Facts::of(t)).collect(),
        || added.par_iter().map(|t| Facts::of(t)).collect(),
    );
    let successor_of: Vec<Option<usize>> = successors(&gone_facts, &new_facts);
    // Several removed tools that share one successor were merged into it: that is not a rename.
    let mut merged: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, s) in successor_of.iter().enumerate() {
        if let Some(j) = s {
            merged.entry(*j).or_default().push(i);
        }
    }
    let targets: Vec<usize> = (0..added.len()).filter(|j| merged.get(j).is_none_or(|m| m.len() < 2)).collect();
    let target_facts: Vec<&Facts> = targets.iter().map(|&j| &new_facts[j]).collect();
    let renames: Vec<(&Tool, &Tool)> = pair_renamed_tools(&gone_facts, &target_facts)
        .into_iter()
        .map(|(i, k)| (removed[i], added[targets[k]]))
        .collect();
    let renamed_old: HashSet<&str> = renames.iter().map(|(o, _)| o.name.as_str()).collect();
    let renamed_new: HashSet<&str> = renames.iter().map(|(_, n)| n.name.as_str()).collect();

    if !renames.is_empty() {
        pairs.extend(renames.iter().copied());
        pairs.sort_by(|a, b| a.1.name.cmp(&b.1.name));
    }

    let mut changes: Vec<Change> = Vec::new();
    for (i, t) in removed.iter().enumerate() {
        if renamed_old.contains(t.name.as_str()) {
            continue;
        }
        let successor = successor_of[i];
        let merged_with: Vec<String> = successor
            .and_then(|j| merged.get(&j))
            .into_iter()
            .flatten()
            .filter(|&&o| o != i && !renamed_old.contains(removed[o].name.as_str()))
            .map(|&o| removed[o].name.clone())
            .collect();
        changes.push(Change {
            tool: t.name.clone(),
            kind: ChangeKind::ToolRemoved { successor: successor.map(|j| added[j].name.clone()), merged_with },
            old_ptr: Some(String::new()),
            new_ptr: None,
            witness: None,
            plan: None,
        });
    }
    for t in &added {
        if !renamed_new.contains(t.name.as_str()) {
            changes.push(Change {
                tool: t.name.clone(),
                kind: ChangeKind::ToolAdded,
                old_ptr: None,
                new_ptr: Some(String::new()),
                witness: None,
                plan: None,
            });
        }
    }
    for (o, n) in &renames {
        changes.push(Change {
            tool: n.name.clone(),
            kind: ChangeKind::ToolRenamed { from: o.name.clone() },
            old_ptr: Some("/name".into()),
            new_ptr: Some("/name".into()),
            witness: None,
            plan: None,
        });
    }
    let per_tool: Vec<(Vec<Change>, decision::Compatibility)> =
        pairs.par_iter().map(|(o, n)| compare_tool(o, n)).collect();
    let mut verdicts = Vec::with_capacity(pairs.len());
    for ((_, n), (tool_changes, compatibility)) in pairs.iter().zip(per_tool) {
        changes.extend(tool_changes);
        verdicts.push((n.name.clone(), compatibility));
    }
    // In name order: the map is built in one pass.
    Comparison { changes, compatibility: verdicts.into_iter().collect() }
}

/// Whether a change narrows in the breaking direction of its side (or cannot be decided).
fn breaks(side: Side, change: &SchemaChange) -> bool {
    let input = side == Side::Input;
    match change {
        SchemaChange::PropertyRemoved { .. }
        | SchemaChange::PropertyRenamed { .. }
        | SchemaChange::Pattern { .. }
        | SchemaChange::CannotDecide { .. } => true,
        SchemaChange::PropertyAdded { old_closed, .. } => input || *old_closed,
        SchemaChange::RequiredAdded { .. } => input,
        SchemaChange::RequiredRemoved { .. } => !input,
        SchemaChange::Type { old, new } => !(if input { old.minus(*new) } else { new.minus(*old) }).is_empty(),
        SchemaChange::Enum { removed, added, introduced, dropped } => {
            if input {
                !removed.is_empty() || *introduced
            } else {
                !added.is_empty() || *dropped
            }
        }
        SchemaChange::Constraint { delta, .. } | SchemaChange::Composition { delta, .. } => delta.breaks(input),
        SchemaChange::AdditionalProperties { closed } => *closed == input,
        SchemaChange::Format { .. } | SchemaChange::Default { .. } => false,
    }
}
