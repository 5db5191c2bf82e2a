//! One tool pair: the tool-level fields (title, description, annotation hints, `$schema` dialect),
//! then the walk of each direction's schemas, then witness confirmation and the probe.
//!
//! Takes the old and the new [`Tool`] of one pair; returns its [`Change`]s in walk order, deduplicated.
//! Promises: a tool whose text did not change costs nothing; each direction has its own
//! [`Budget`], shared by its walk and its witnesses; a witness is attached only once the `jsonschema`
//! validators confirm it.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::budget::{self, Budget};
use super::decision::{self, Compatibility};
use super::tools::{description_words, jaccard, param_names};
use super::walk::Walker;
use super::witness::Judge;
use super::{Change, ChangeKind, HINTS, Side, dialect, probe};
use crate::decide;
use crate::load::Tool;
use crate::schema;

#[allow(clippy::too_many_lines, reason = "the tool-level fields, then the two schema walks, in reading order")]
pub(super) fn compare_tool(old: &Tool, new: &Tool) -> (Vec<Change>, Compatibility) {
    let tool = new.name.clone();
    let mut out = Vec::new();
    // The common case in large snapshots: the same text, so nothing to parse or compare.
    if old.raw() == new.raw() || (old.digest.is_some() && old.digest == new.digest) {
        return (out, Compatibility::unchanged());
    }
    let (o, n) = (old.value(), new.value());
    if o == n {
        return (out, Compatibility::unchanged());
    }
    // A name reused for an unrelated contract is one finding, not a list of unrelated edits.
    let (po, pn) = (param_names(old), param_names(new));
    let kept = po.intersection(&pn).count();
    let unrelated_text = jaccard(&description_words(o, 3), &description_words(n, 3)) < 0.2;
    if old.name == new.name && po.len() >= 2 && kept * 4 <= po.len() && unrelated_text {
        out.push(Change {
            tool,
            kind: ChangeKind::ContractReplaced { kept, old_params: po.len(), new_params: pn.len() },
            old_ptr: Some("/inputSchema".into()),
            new_ptr: Some("/inputSchema".into()),
            witness: None,
            plan: None,
        });
        return (out, verdicts_only(o, n));
    }
    let mut push = |kind, old_ptr: Option<String>, new_ptr: Option<String>| {
        out.push(Change { tool: tool.clone(), kind, old_ptr, new_ptr, witness: None, plan: None });
    };
    for ptr in ["/title", "/annotations/title"] {
        let (a, b) = (str_at(o, ptr), str_at(n, ptr));
        if a != b {
            push(
                ChangeKind::TitleChanged { old: a.map(str::to_owned), new: b.map(str::to_owned) },
                present(o, ptr),
                present(n, ptr),
            );
        }
    }
    if let (a, b) = (str_at(o, "/description").unwrap_or(""), str_at(n, "/description").unwrap_or(""))
        && a != b
    {
        push(
            ChangeKind::Description { old: a.to_owned(), new: b.to_owned() },
            present(o, "/description"),
            present(n, "/description"),
        );
    }
    for (hint, default) in HINTS {
        let ptr = format!("/annotations/{hint}");
        let a = o.pointer(&ptr).and_then(Value::as_bool).unwrap_or(*default);
        let b = n.pointer(&ptr).and_then(Value::as_bool).unwrap_or(*default);
        if a != b {
            push(ChangeKind::Annotation { hint, old: a, new: b }, present(o, &ptr), present(n, &ptr));
        }
    }
    for root in ["/inputSchema", "/outputSchema"] {
        let ptr = format!("{root}/$schema");
        let (a, b) = (str_at(o, &ptr), str_at(n, &ptr));
        let none = Value::Null;
        let uses = if a == b {
            Vec::new()
        } else {
            dialect::why_it_matters(a, b, o.pointer(root).unwrap_or(&none), n.pointer(root).unwrap_or(&none), root)
        };
        if !uses.is_empty() {
            push(
                ChangeKind::DialectChanged { old: a.map(str::to_owned), new: b.map(str::to_owned), uses },
                present(o, &ptr),
                present(n, &ptr),
            );
        }
    }

    let empty = Value::Object(Map::new());
    let (oi, ni) = (o.get("inputSchema").unwrap_or(&empty), n.get("inputSchema").unwrap_or(&empty));
    // Each schema document is indexed for `$ref` resolution once, on its first reference.
    let _refs =
        schema::refs::Scope::new([oi, ni].into_iter().chain(o.get("outputSchema")).chain(n.get("outputSchema")));
    // One budget per direction, for its walk and its witnesses (sized by the schemas it compares).
    let (oo, no) = (o.get("outputSchema").unwrap_or(&empty), n.get("outputSchema").unwrap_or(&empty));
    let budgets = (Budget::for_schemas(oi, ni), Budget::for_schemas(oo, no));
    // Identical documents resolve every reference identically: nothing to walk.
    let input_changed = oi != ni;
    if input_changed {
        Walker::new(&tool, Side::Input, oi, ni, "/inputSchema", &mut out, &budgets.0).walk(
            oi,
            "/inputSchema".into(),
            ni,
            "/inputSchema".into(),
        );
    }
    let output = match (o.get("outputSchema"), n.get("outputSchema")) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => None,
    };
    let output_changed = output.is_some_and(|(a, b)| a != b);
    match (o.get("outputSchema"), n.get("outputSchema")) {
        (None, Some(_)) => out.push(Change {
            tool: tool.clone(),
            kind: ChangeKind::OutputSchemaAdded,
            old_ptr: None,
            new_ptr: Some("/outputSchema".into()),
            witness: None,
            plan: None,
        }),
        (Some(_), None) => out.push(Change {
            tool: tool.clone(),
            kind: ChangeKind::OutputSchemaRemoved,
            old_ptr: Some("/outputSchema".into()),
            new_ptr: None,
            witness: None,
            plan: None,
        }),
        (Some(a), Some(b)) if output_changed => {
            Walker::new(&tool, Side::Output, a, b, "/outputSchema", &mut out, &budgets.1).walk(
                a,
                "/outputSchema".into(),
                b,
                "/outputSchema".into(),
            );
        }
        // Absent on both sides, or the same document.
        _ => {}
    }
    let judges = confirm_witnesses(&mut out, (oi, ni), output, &budgets);
    probe::probe(
        &tool,
        &mut out,
        input_changed.then_some((oi, ni)),
        output.filter(|_| output_changed),
        judges,
        &budgets,
    );
    for (side, budget) in [(Side::Input, &budgets.0), (Side::Output, &budgets.1)] {
        budget::report(&mut out, &tool, side, budget);
    }
    // One truth: the decision procedure settles each changed direction and the changes follow it.
    let mut verdicts = Compatibility::unchanged();
    if input_changed {
        verdicts.input = decision::settle(&tool, &mut out, Side::Input, (oi, ni));
    }
    match (o.get("outputSchema"), n.get("outputSchema")) {
        (Some(a), Some(b)) if output_changed => {
            verdicts.output = decision::settle(&tool, &mut out, Side::Output, (b, a));
        }
        // An old consumer without an `outputSchema` validates nothing; one whose schema went away
        // meets results the schema it holds may reject.
        (Some(a), None) => verdicts.output = decision::decide_only(Side::Output, (&Value::Bool(true), a)),
        _ => {}
    }
    (dedupe(out), verdicts)
}

/// The verdicts of a tool whose contract was replaced (reported as one change, not walked).
fn verdicts_only(o: &Value, n: &Value) -> Compatibility {
    let empty = Value::Object(Map::new());
    let (oi, ni) = (o.get("inputSchema").unwrap_or(&empty), n.get("inputSchema").unwrap_or(&empty));
    let output = match (o.get("outputSchema"), n.get("outputSchema")) {
        (Some(a), Some(b)) => decision::decide_only(Side::Output, (b, a)),
        (Some(a), None) => decision::decide_only(Side::Output, (&Value::Bool(true), a)),
        _ => decide::Verdict::Compatible,
    };
    Compatibility { input: decision::decide_only(Side::Input, (oi, ni)), output }
}

/// Turns each change's plan into a confirmed witness, or nothing. Validators are built only for the
/// directions that have something to confirm; the judges are handed on to the probe.
fn confirm_witnesses<'v>(
    changes: &mut [Change],
    input: (&'v Value, &'v Value),
    output: Option<(&'v Value, &'v Value)>,
    budgets: &(Budget, Budget),
) -> (Option<Judge<'v>>, Option<Judge<'v>>) {
    let (mut input_judge, mut output_judge): (Option<Judge>, Option<Judge>) = (None, None);
    budgets.0.start_witnesses();
    budgets.1.start_witnesses();
    for change in changes.iter_mut() {
        let Some(plan) = change.plan.take() else { continue };
        let ChangeKind::Schema { side, .. } = change.kind else { continue };
        let (sub, sup, judge, budget) = match (side, output) {
            (Side::Input, _) => (input.0, input.1, &mut input_judge, &budgets.0),
            (Side::Output, Some((old, new))) => (new, old, &mut output_judge, &budgets.1),
            (Side::Output, None) => continue,
        };
        if budget.exhausted().is_some() {
            continue;
        }
        let judge = judge.get_or_insert_with(|| Judge::new(sub, sup));
        change.witness = judge.confirm(sub, &plan, side == Side::Input, budget);
        if change.witness.is_none() {
            budget.unconfirmed();
        }
    }
    (input_judge, output_judge)
}

/// A `$defs` entry reached from several places is compared once per place; report it once.
fn dedupe(changes: Vec<Change>) -> Vec<Change> {
    let mut seen = HashSet::new();
    changes
        .into_iter()
        .filter(|c| seen.insert((format!("{:?}", c.kind), c.old_ptr.clone(), c.new_ptr.clone())))
        .collect()
}

fn str_at<'a>(v: &'a Value, ptr: &str) -> Option<&'a str> {
    v.pointer(ptr).and_then(Value::as_str)
}

fn present(v: &Value, ptr: &str) -> Option<String> {
    v.pointer(ptr).map(|_| ptr.to_owned())
}
