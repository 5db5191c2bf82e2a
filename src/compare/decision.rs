//! One truth: the decision procedure ([`crate::decide`]) settles each changed direction, and the
//! walk's changes are made to agree with it.
//!
//! Takes one tool's changes after the walk, witness confirmation and the probe, and the two schema
//! documents of each changed direction; returns the [`Compatibility`] of the tool (the pure
//! containment answer the JSON report prints) and edits the changes:
//! - **incompatible**: a break that a change already proves with a confirmed witness stays as it is;
//!   otherwise the decision's witness is recorded like a probe rejection (the walk's unwitnessed break
//!   at the rejecting keyword gets it, or an `input-call-rejected` / `output-result-rejected` change
//!   is added at the rejecting keyword), so no proven break is dropped;
//! - **compatible** (proven): the walk's containment claims on that side that no validator confirmed
//!   are disproved and dropped, and so are its `*-cannot-decide` changes; findings about meaning and
//!   policy (a removed or renamed property that old calls still send, a default, a format) stay;
//! - **undecided**: if nothing on that side already says "cannot decide" or proves a break, a
//!   `*-cannot-decide` change names the keyword and the reason: what cannot be proven is never silent.
//!   A decision stopped by one of its own limits (steps, disjuncts, depth) adds no change: the walk's
//!   budget report speaks for the walk, and the JSON verdict names the limit.
//!
//! Promises: a verdict of `incompatible` always carries a witness the `jsonschema` validators
//! confirmed (the decision's, or a change's); the work is bounded by [`crate::decide::Limits`].

use serde_json::Value;

use super::probe::{self, Rejection};
use super::witness::Witness;
use super::{Change, ChangeKind, SchemaChange, Side};
use crate::decide::{self, Limits, Verdict};

/// The containment answer of one tool, per direction: input (is there an old call the new
/// `inputSchema` rejects?) and output (is there a new result the old `outputSchema` rejects?).
#[derive(Clone, Debug, PartialEq)]
pub struct Compatibility {
    pub input: Verdict,
    pub output: Verdict,
}

impl Compatibility {
    /// Both directions unchanged.
    #[must_use]
    pub fn unchanged() -> Compatibility {
        Compatibility { input: Verdict::Compatible, output: Verdict::Compatible }
    }
}

/// Decides one direction (`sub` accepts, `sup` is asked to reject) and reconciles `changes` with it.
pub(super) fn settle(tool: &str, changes: &mut Vec<Change>, side: Side, (sub, sup): (&Value, &Value)) -> Verdict {
    let mut verdict = decide_only(side, (sub, sup));
    let base = if side == Side::Input { "/inputSchema" } else { "/outputSchema" };
    // The walk's unwitnessed break at the rejecting keyword is proven by the decision's witness, whatever
    // else on this side already has one: every break gets its own witness.
    if let Verdict::Incompatible { witness, instance_at, schema_at, because } = &verdict {
        let at = format!("{base}{schema_at}");
        if let Some(c) = changes.iter_mut().find(|c| probe::unproven(c, side, &at)) {
            let because = if instance_at.is_empty() { because.clone() } else { format!("at {instance_at}: {because}") };
            c.witness = Some(Witness { instance: witness.clone(), rejected_because: because, dropped: false });
        }
    }
    // A break a change proves with a validator-confirmed witness is the answer, whatever the
    // decision said (both are confirmed by the same validators, so they can only disagree on which
    // witness is shown).
    if let Some(w) = changes.iter().filter(|c| on_side(c, side)).find_map(|c| c.witness.as_ref().filter(|w| !w.dropped))
    {
        if !matches!(verdict, Verdict::Incompatible { .. }) {
            verdict = Verdict::Incompatible {
                witness: w.instance.clone(),
                instance_at: String::new(),
                schema_at: String::new(),
                because: w.rejected_because.clone(),
            };
        }
        return verdict;
    }
    match &verdict {
        // A break a change already names at the rejecting keyword (a renamed or removed property
        // whose old name now takes any value) is that change's consequence, not a second finding.
        Verdict::Incompatible { schema_at, .. } if explained(changes, side, &format!("{base}{schema_at}")) => {}
        Verdict::Incompatible { witness, instance_at, schema_at, because } => {
            let keyword = schema_at.rsplit('/').next().unwrap_or("").to_owned();
            let at = if instance_at.is_empty() { because.clone() } else { format!("at {instance_at}: {because}") };
            let rejection = Rejection {
                instance: witness.clone(),
                keyword,
                schema_path: schema_at.clone(),
                because: at,
                origin: "a counterexample the decision procedure built".to_owned(),
                from: String::new(),
            };
            probe::record(tool, changes, side, (sub, sup), rejection);
        }
        Verdict::Compatible => {
            changes.retain(|c| !(on_side(c, side) && c.witness.is_none() && disproved(c, side)));
            for c in changes.iter_mut().filter(|c| on_side(c, side) && c.witness.is_none()) {
                proven_harmless(c, side);
            }
        }
        Verdict::Undecided { keyword, at, reason } => {
            // Already said: a `*-cannot-decide`, a pattern change that could not be proven (its own
            // warning), or a `$schema` change whose meaning differs (the dialect warning).
            let said = changes.iter().any(|c| match &c.kind {
                ChangeKind::Schema {
                    side: s,
                    change: SchemaChange::CannotDecide { .. } | SchemaChange::Pattern { .. },
                } => *s == side,
                ChangeKind::DialectChanged { .. } => true,
                _ => false,
            }) || explained(changes, side, &format!("{base}{}", pointer_part(at)));
            // A decision stopped by its own limits (huge unions, long searches) adds nothing to what
            // the walk, with its own budget and report, already said; the JSON verdict names the limit.
            let limited = reason.contains("(limit `");
            if !said && !limited {
                let reason = reason.clone();
                let ptr = Some(format!("{base}{}", pointer_part(at)));
                changes.push(Change {
                    tool: tool.to_owned(),
                    kind: ChangeKind::Schema {
                        side,
                        change: SchemaChange::CannotDecide { keyword: keyword.clone(), reason },
                    },
                    old_ptr: ptr.clone(),
                    new_ptr: ptr,
                    witness: None,
                    plan: None,
                });
            }
        }
    }
    verdict
}

/// Whether a change on `side` (other than an undecided one) sits at or above the rejecting keyword
/// `at` in the rejecting schema (below the schema root, which every pointer is under).
fn explained(changes: &[Change], side: Side, at: &str) -> bool {
    changes.iter().filter(|c| on_side(c, side)).any(|c| {
        if matches!(&c.kind, ChangeKind::Schema { change: SchemaChange::CannotDecide { .. }, .. }) {
            return false;
        }
        let ptr = if side == Side::Input { c.new_ptr.as_deref() } else { c.old_ptr.as_deref() };
        ptr.is_some_and(|p| p.matches('/').count() > 1 && probe::within(p, at))
    })
}

/// The decision speaks of `sub` (the accepting schema) and `sup` (the one asked to reject); people
/// read old and new.
fn in_words(reason: &str, side: Side) -> String {
    let (sub, sup) =
        if side == Side::Input { ("the old schema", "the new schema") } else { ("the new schema", "the old schema") };
    reason.replace("`sub`", sub).replace("`sup`", sup)
}

/// The decision alone, its reason in words of old and new.
pub(super) fn decide_only(side: Side, (sub, sup): (&Value, &Value)) -> Verdict {
    // The validator compiles long reference chains in quadratic time (20,000 hops: seconds); like the
    // probe, the decision does not start on them.
    if probe::expansion(sub).is_none() || probe::expansion(sup).is_none() {
        return Verdict::Undecided {
            keyword: "$ref".to_owned(),
            at: String::new(),
            reason: "a `$ref` chain or nesting deeper than 256 levels is not decided (validating it would cost quadratic time)".to_owned(),
        };
    }
    match decide::decide(sub, sup, &Limits::default()) {
        Verdict::Undecided { keyword, at, reason } => {
            Verdict::Undecided { keyword, at, reason: in_words(&reason, side) }
        }
        v => v,
    }
}

fn on_side(c: &Change, side: Side) -> bool {
    match &c.kind {
        ChangeKind::Schema { side: s, .. } | ChangeKind::Rejected { side: s, .. } => *s == side,
        _ => false,
    }
}

/// A containment claim the proof of compatibility disproves: a break in `side`'s direction that no
/// validator confirmed, of a kind that is only about which instances are accepted. Removed and
/// renamed properties are kept: old calls that still send them are a finding (silently ignored
/// values) even when every call is still accepted.
fn disproved(c: &Change, side: Side) -> bool {
    let ChangeKind::Schema { change, .. } = &c.kind else { return false };
    match change {
        SchemaChange::PropertyRemoved { .. }
        | SchemaChange::PropertyRenamed { .. }
        | SchemaChange::Format { .. }
        | SchemaChange::Default { .. }
        | SchemaChange::Pattern { .. } => false,
        // A new input parameter is a finding of its own (additive, or an authority), never a claim
        // that old calls are rejected; a result property added to a closed object is one.
        SchemaChange::PropertyAdded { old_closed, .. } => side == Side::Output && *old_closed,
        SchemaChange::CannotDecide { .. } => true,
        other => super::breaks(side, other),
    }
}

/// A pattern change the proof shows rejects no old call (input) or admits no new result the old
/// schema rejects (output) is a loosened (input) or tightened (output) constraint, not an
/// undecided pattern change.
fn proven_harmless(c: &mut Change, side: Side) {
    let ChangeKind::Schema { change: change @ SchemaChange::Pattern { .. }, .. } = &mut c.kind else { return };
    let SchemaChange::Pattern { old, new } = change else { return };
    let delta = if side == Side::Input {
        super::Delta { less: false, more: true }
    } else {
        super::Delta { less: true, more: false }
    };
    *change = SchemaChange::Constraint {
        keyword: "pattern".to_owned(),
        old: old.take().map(Value::String),
        new: new.take().map(Value::String),
        delta,
    };
}

/// The pointer in a decision's `at` ("`/properties/x` in the new schema" -> "/properties/x"): the part
/// up to the first space, if it is a JSON Pointer.
fn pointer_part(at: &str) -> &str {
    let head = at.split(' ').next().unwrap_or("");
    if head.starts_with('/') { head } else { "" }
}
