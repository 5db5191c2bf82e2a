//! Case splits of the normal form ([`super::nf`]) that need more than one conjunct per branch:
//! `oneOf` as "this branch and no other", `if`/`then`/`else` as `(if ∧ then) ∨ (¬if ∧ else)`, an
//! `anyOf` under `unevaluated*` as the union over which branches hold, and the hook that adds the
//! `unevaluated*` constraint ([`super::unevaluated`]) to every conjunct.
//!
//! Takes the conjuncts built so far and the branches; returns the split conjuncts (their union is the
//! keyword's meaning: exact on `Sup`, a widening on `Sub`, as [`super::nf`] promises). Bounded by
//! the caller's [`Cx`] (steps and the `disjuncts` limit).

use serde_json::{Map, Value};

use super::negate::negate;
use super::nf::{Conj, Opaque, S, Side, add, feasible, limit_disjuncts};
use super::unevaluated::Reading;
use super::{Block, Cx};

/// `if`/`then`/`else` as `(if ∧ then) ∨ (¬if ∧ else)`, with `if` recorded as failed in the second
/// conjunct ([`Conj::failed`]). `¬if` is applied as far as [`negate`] expresses it: on `Sub` the rest
/// is dropped (a widening), on `Sup` kept in `nots` (exact).
#[allow(clippy::too_many_arguments, reason = "the recursion's state, as `add` has it")]
pub(super) fn if_then_else<'a>(
    root: &'a Value,
    acc: Vec<Conj<'a>>,
    ifs: &S<'a>,
    t: Option<&S<'a>>,
    e: Option<&S<'a>>,
    side: Side,
    depth: usize,
    cx: &mut Cx,
) -> Result<Vec<Conj<'a>>, Block> {
    let mut with_then = add(root, acc.clone(), ifs, side, depth + 1, cx)?;
    if let Some(t) = t {
        with_then = add(root, with_then, t, side, depth + 1, cx)?;
    }
    let mut otherwise = acc;
    let mut double = Vec::new();
    negate(&mut otherwise, ifs.v, ifs, side, &mut double)?;
    for c in &mut otherwise {
        c.failed.push(ifs.clone());
    }
    for d in &double {
        otherwise = add(root, otherwise, d, side, depth + 1, cx)?;
    }
    if let Some(e) = e {
        otherwise = add(root, otherwise, e, side, depth + 1, cx)?;
    }
    let mut out = with_then;
    out.extend(otherwise);
    out.retain(feasible);
    limit_disjuncts(out.len(), &ifs.at, side, cx)?;
    Ok(out)
}

/// `oneOf` as the union over `i` of branch `i` and the negation of every other branch (exactly one
/// holds), each other branch recorded as failed ([`Conj::failed`]). A negation [`negate`] cannot
/// express is dropped on `Sub` (a widening) and kept in `nots` on `Sup` (exact).
pub(super) fn one_of<'a>(
    root: &'a Value,
    acc: &[Conj<'a>],
    base: &S<'a>,
    branches: &'a [Value],
    side: Side,
    depth: usize,
    cx: &mut Cx,
) -> Result<Vec<Conj<'a>>, Block> {
    let mut out = Vec::new();
    for (i, b) in branches.iter().enumerate() {
        let mut more = add(root, acc.to_vec(), &base.child(b, &i.to_string()), side, depth + 1, cx)?;
        let mut double = Vec::new();
        for (j, other) in branches.iter().enumerate().filter(|(j, _)| *j != i) {
            cx.step(&base.at)?;
            let at = base.child(other, &j.to_string());
            negate(&mut more, other, &at, side, &mut double)?;
            for c in &mut more {
                c.failed.push(at.clone());
            }
        }
        for d in &double {
            more = add(root, more, d, side, depth + 1, cx)?;
        }
        more.retain(feasible);
        out.extend(more);
        limit_disjuncts(out.len(), &base.at, side, cx)?;
    }
    Ok(out)
}

/// Whether an `anyOf` under an `unevaluated*` keyword is read as the union over every non-empty
/// set of branches that hold, so that a conjunct knows which branches evaluated names.
pub(super) fn expand_by_subsets(root: &Value, branches: &[Value], cx: &Cx) -> bool {
    cx.uneval > 0
        && (2..=super::unevaluated::MAX_SUBSET_BRANCHES).contains(&branches.len())
        && (super::unevaluated::evaluates(root, branches, true) || super::unevaluated::evaluates(root, branches, false))
}

/// `unevaluatedProperties`/`unevaluatedItems` of `m`, as [`super::unevaluated`] reads them for each
/// conjunct (on `Sup`, with the union branches it merged); opaque where that reading is not exact.
pub(super) fn unevaluated<'a>(
    root: &'a Value,
    acc: &mut [Conj<'a>],
    m: &'a Map<String, Value>,
    node: &S<'a>,
    side: Side,
) {
    if !m.contains_key("unevaluatedProperties") && !m.contains_key("unevaluatedItems") {
        return;
    }
    for c in acc.iter_mut() {
        let (merged, failed) = (c.nodes.clone(), c.failed.clone());
        let seen = |v: &Value| {
            if merged.iter().any(|n| std::ptr::eq(n.v, v)) {
                Some(true)
            } else if failed.iter().any(|n| std::ptr::eq(n.v, v)) {
                Some(false)
            } else {
                None
            }
        };
        let opaque = |c: &mut Conj<'a>, k: &str| {
            c.opaque.push(Opaque { keyword: k.to_owned(), value: &m[k], holder: node.clone() });
        };
        match super::unevaluated::properties(root, m, node, side, &seen) {
            Reading::Adds(o) => c.objs.push(o),
            Reading::Nothing => {}
            Reading::Opaque => opaque(c, "unevaluatedProperties"),
        }
        match super::unevaluated::items(root, m, node, side, &seen) {
            Reading::Adds(t) => c.tuples.push(t),
            Reading::Nothing => {}
            Reading::Opaque => opaque(c, "unevaluatedItems"),
        }
    }
}
