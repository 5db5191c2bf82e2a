//! The walk: the [`Walker`] and its core dispatch over one pair of schemas (old, new) for one
//! direction, with what every keyword family shares (emitting a change, one instance step down,
//! cannot-decide, `min*`/`max*` counts, and the annotations: descriptions and defaults).
//! Each concern is an `impl Walker` block in its own file: `references` (`$ref`),
//! `scalars` (types, enums, bounds, patterns, formats), `arrays`, `objects`, `unions`
//! (`anyOf`/`oneOf`/`allOf`/`not`), `conditionals` (`if`/`then`/`else`, `dependentSchemas`), `plan`
//! (candidate witnesses for each change).
//!
//! Takes two schema documents and the tool and direction they belong to; appends typed
//! [`Change`]s (with JSON Pointers into the tool objects) to the caller's list.
//! Promises: any change under a keyword the walk does not model is [`SchemaChange::CannotDecide`],
//! never skipped; nesting beyond [`MAX_DEPTH`] and an exhausted [`Budget`] stop the walk and say so;
//! a pair of references already under comparison is assumed compatible (coinduction), so `$ref`
//! cycles terminate.

use std::collections::HashSet;

use serde_json::Value;

use super::budget::Budget;
use super::objects::plain_objects;
use super::references::ref_reason;
use super::unions::alternatives;
use super::witness::Seg;
use super::{Change, ChangeKind, Delta, SchemaChange, Side, defaults, spelling};
use crate::schema::{self, TypeSet, View};

/// Nesting deeper than this is reported as "cannot decide" rather than walked.
const MAX_DEPTH: usize = 96;

/// The schema that accepts every instance (what an absent subschema means).
pub(super) static TRUE: Value = Value::Bool(true);

/// The recursive walk over one pair of schemas.
pub(super) struct Walker<'a, 'o> {
    pub(super) tool: &'a str,
    pub(super) side: Side,
    pub(super) old_root: &'a Value,
    pub(super) new_root: &'a Value,
    /// Pointer of the schema roots within the tool (`/inputSchema`).
    pub(super) base: &'a str,
    pub(super) out: &'o mut Vec<Change>,
    /// Pairs of reference targets under comparison (coinduction).
    pub(super) in_progress: HashSet<(String, String)>,
    /// Pairs of reference targets already compared completely: reached again through another path
    /// (a `$ref` diamond), they would only repeat the changes already recorded, which
    /// [`dedupe`](super::tool) drops; so they are not walked again.
    pub(super) done: HashSet<(String, String)>,
    /// How many times the walk stopped at [`MAX_DEPTH`]: a pair walked past such a stop is not
    /// complete (a shallower path may see further).
    pub(super) cutoffs: usize,
    /// Steps and bytes left for this tool and direction.
    pub(super) budget: &'o Budget,
    pub(super) depth: usize,
    /// Instance path from the root to the schemas under comparison.
    pub(super) path: Vec<Seg>,
    /// The (old, new) schema objects under comparison, innermost last.
    pub(super) locals: Vec<(&'a Value, &'a Value)>,
}

impl<'a, 'o> Walker<'a, 'o> {
    pub(super) fn new(
        tool: &'a str,
        side: Side,
        old_root: &'a Value,
        new_root: &'a Value,
        base: &'a str,
        out: &'o mut Vec<Change>,
        budget: &'o Budget,
    ) -> Self {
        Walker {
            tool,
            side,
            old_root,
            new_root,
            base,
            out,
            in_progress: HashSet::new(),
            done: HashSet::new(),
            cutoffs: 0,
            budget,
            depth: 0,
            path: Vec::new(),
            locals: Vec::new(),
        }
    }

    pub(super) fn emit(&mut self, change: SchemaChange, old_ptr: Option<String>, new_ptr: Option<String>) {
        let plan = self.plan_for(&change, old_ptr.as_deref(), new_ptr.as_deref());
        self.out.push(Change {
            tool: self.tool.to_owned(),
            kind: ChangeKind::Schema { side: self.side, change },
            old_ptr,
            new_ptr,
            witness: None,
            plan,
        });
    }

    /// Walks a pair of subschemas one instance step further down.
    #[allow(clippy::needless_pass_by_value, reason = "pointers are built per call site")]
    pub(super) fn walk_at(&mut self, seg: Seg, o: &'a Value, op: String, n: &'a Value, np: String) {
        self.path.push(seg);
        self.walk(o, op, n, np);
        self.path.pop();
    }

    pub(super) fn cannot_decide(&mut self, keyword: &str, reason: String, op: &str, np: &str) {
        self.emit(
            SchemaChange::CannotDecide { keyword: keyword.to_owned(), reason },
            Some(op.to_owned()),
            Some(np.to_owned()),
        );
    }

    #[allow(
        clippy::needless_pass_by_value,
        reason = "pointers are built per call site; owning them keeps call sites short"
    )]
    pub(super) fn walk(&mut self, o: &'a Value, op: String, n: &'a Value, np: String) {
        // Every recursion and every `$ref` expansion spends the budget; past it nothing is walked (the
        // caller records one cannot-decide change for the whole direction).
        if !self.budget.step() {
            return;
        }
        if o == n && !schema::contains_ref(o) {
            return;
        }
        if self.depth >= MAX_DEPTH {
            self.cutoffs += 1;
            self.cannot_decide("", format!("schemas nested deeper than {MAX_DEPTH} levels are not compared"), &op, &np);
            return;
        }
        // Before references are followed: a `$ref` or `allOf` wrapper may carry the text itself.
        self.descriptions(o, &op, n, &np);
        let ((o2, op2, of), (n2, np2, nf)) =
            match (self.deref(self.old_root, o, op.clone()), self.deref(self.new_root, n, np.clone())) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(p), Err(q)) if p == q => return self.ref_problem(o, n, &p, &op, &np),
                // One side resolves and the other does not (or not in the same way): what is behind
                // differs even where the reference is written the same.
                (Err(p), _) | (_, Err(p)) => return self.cannot_decide("$ref", ref_reason(&p), &op, &np),
            };
        if of || nf {
            let key = (op2.clone(), np2.clone());
            if self.done.contains(&key) || !self.in_progress.insert(key.clone()) {
                // Compared completely already (a `$ref` diamond), or already comparing this pair
                // further up: assume compatible (coinduction).
                return;
            }
            let cutoffs = self.cutoffs;
            self.depth += 1;
            self.walk_resolved(o2, op2, n2, np2);
            self.depth -= 1;
            self.in_progress.remove(&key);
            if self.cutoffs == cutoffs && self.budget.exhausted().is_none() {
                self.done.insert(key);
            }
        } else {
            self.depth += 1;
            self.walk_resolved(o2, op2, n2, np2);
            self.depth -= 1;
        }
    }

    #[allow(
        clippy::needless_pass_by_value,
        reason = "pointers are built per call site; owning them keeps call sites short"
    )]
    pub(super) fn walk_resolved(&mut self, o: &'a Value, op: String, n: &'a Value, np: String) {
        self.locals.push((o, n));
        self.walk_resolved_inner(o, op, n, np);
        self.locals.pop();
    }

    #[allow(
        clippy::needless_pass_by_value,
        reason = "pointers are built per call site; owning them keeps call sites short"
    )]
    pub(super) fn walk_resolved_inner(&mut self, o: &'a Value, op: String, n: &'a Value, np: String) {
        let vo = View::in_document(o, &op, Some((self.old_root, self.base)));
        let vn = View::in_document(n, &np, Some((self.new_root, self.base)));
        // No instance on the accepting side: containment holds whatever the other side says.
        let sub_view = if self.side == Side::Input { &vo } else { &vn };
        if sub_view.types.is_empty() {
            return;
        }
        let unfolded = |v: &View<'_>| v.get("anyOf").is_some() || v.get("oneOf").is_some();
        if unfolded(&vo) || unfolded(&vn) {
            let (ao, an) = (alternatives(o, &op), alternatives(n, &np));
            if ao.is_some() || an.is_some() {
                let keyword = ao.as_ref().or(an.as_ref()).map_or("anyOf", |(k, _)| *k);
                let overlap = self.one_of_exclusivity(ao.as_ref(), an.as_ref(), &op, &np);
                let ao = ao.map_or_else(|| vec![(o, op.clone())], |(_, list)| list);
                let an = an.map_or_else(|| vec![(n, np.clone())], |(_, list)| list);
                self.alternatives(keyword, &ao, &an, &op, &np, overlap);
                self.annotations(o, &op, n, &np);
                return;
            }
        }
        self.unmodelled(&vo, &vn);
        if let (Some(a), Some(b)) = (vo.get("$ref"), vn.get("$ref")) {
            // `$ref` with sibling keywords: compare the targets as one more keyword.
            let (a, b) = (a.clone(), b.clone());
            self.walk_ref_keyword(false, (o, &a), (n, &b));
        } else if vo.get("$ref").is_some() || vn.get("$ref").is_some() {
            self.cannot_decide("$ref", "a `$ref` beside other keywords was added or removed".into(), &op, &np);
        }
        if let (Some(a), Some(b)) = (vo.get("$dynamicRef"), vn.get("$dynamicRef")) {
            // Added, removed or rewritten, `unmodelled` reports it; the same on both sides, what is
            // behind it is compared.
            let (a, b) = (a.clone(), b.clone());
            self.walk_ref_keyword(true, (o, &a), (n, &b));
        }
        self.types_and_values(&vo, &vn);
        let common = vo.types.intersect(vn.types);
        if common.intersects(TypeSet::NUMBER) {
            self.numbers(&vo, &vn, common);
        }
        if common.intersects(TypeSet::STRING) {
            self.lengths(&vo, &vn, &["minLength", "maxLength"]);
            self.strings(&vo, &vn);
        }
        if common.intersects(TypeSet::ARRAY) {
            self.lengths(&vo, &vn, &["minItems", "maxItems"]);
            self.arrays(&vo, &vn);
        }
        if common.intersects(TypeSet::OBJECT) {
            self.lengths(&vo, &vn, &["minProperties", "maxProperties"]);
            self.objects(&vo, &vn);
        }
        for keyword in ["anyOf", "oneOf", "allOf"] {
            self.composition(keyword, &vo, &vn);
        }
        self.not(&vo, &vn);
        self.conditionals(&vo, &vn);
        self.annotations(o, &op, n, &np);
    }

    /// Any change under a keyword the walk does not model is "cannot decide".
    pub(super) fn unmodelled(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let plain = plain_objects(vo, vn);
        let same_if = vo.get("if").map(|x| x.value) == vn.get("if").map(|x| x.value)
            && vo.get("if").is_none_or(|x| !schema::contains_ref(x.value));
        for keyword in schema::UNMODELLED {
            // Handled elsewhere when it is safe: `then`/`else` under the same `if`, and
            // `unevaluatedProperties` on objects without subschemas (where it is `additionalProperties`).
            let same_dependent_keys = match (vo.get("dependentSchemas"), vn.get("dependentSchemas")) {
                (Some(x), Some(y)) => {
                    x.value.as_object().map(|m| m.keys().collect::<Vec<_>>())
                        == y.value.as_object().map(|m| m.keys().collect())
                }
                _ => false,
            };
            if (same_if && matches!(*keyword, "then" | "else"))
                || (plain && *keyword == "unevaluatedProperties")
                || (same_dependent_keys && *keyword == "dependentSchemas")
            {
                continue;
            }
            let (a, b) = (vo.get(keyword), vn.get(keyword));
            // zod 4 spells out `propertyNames: {"type": "string"}` for records: no constraint.
            if *keyword == "propertyNames"
                && spelling::accepts_every_name(a.map(|x| x.value))
                && spelling::accepts_every_name(b.map(|x| x.value))
            {
                continue;
            }
            let same = match (a, b) {
                (None, None) => true,
                (Some(x), Some(y)) => x.value == y.value && !schema::contains_ref(x.value),
                _ => false,
            };
            if !same {
                let op = a.map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
                let np = b.map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone());
                let what = match (a, b) {
                    (None, Some(_)) => "was added",
                    (Some(_), None) => "was removed",
                    _ => "changed",
                };
                self.cannot_decide(
                    keyword,
                    format!("`{keyword}` {what}; its effect on validity is not analyzed yet"),
                    &op,
                    &np,
                );
            }
        }
    }

    pub(super) fn constraint(&mut self, keyword: &str, vo: &View<'a>, vn: &View<'a>, delta: Delta) {
        let (a, b) = (vo.get(keyword), vn.get(keyword));
        let op = a.map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
        let np = b.map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone());
        self.emit(
            SchemaChange::Constraint {
                keyword: keyword.to_owned(),
                old: a.map(|x| x.value.clone()),
                new: b.map(|x| x.value.clone()),
                delta,
            },
            Some(op),
            Some(np),
        );
    }

    /// `min*`/`max*` counts: a larger minimum or a smaller maximum accepts less.
    #[allow(clippy::float_cmp, reason = "counts are integers written in JSON; exact comparison is intended")]
    pub(super) fn lengths(&mut self, vo: &View<'a>, vn: &View<'a>, keywords: &[&str; 2]) {
        for (i, keyword) in keywords.iter().enumerate() {
            let get = |v: &View<'a>| v.get(keyword).and_then(|x| x.value.as_f64());
            let (a, b) = (get(vo), get(vn));
            let is_min = i == 0;
            let norm = |x: Option<f64>| x.unwrap_or(if is_min { 0.0 } else { f64::INFINITY });
            let (x, y) = (norm(a), norm(b));
            if x == y {
                continue;
            }
            let tighter = if is_min { y > x } else { y < x };
            self.constraint(keyword, vo, vn, Delta::of(tighter, !tighter));
        }
    }

    /// The description of the instance at a pair of places, as each side's reader finds it (see
    /// [`spelling::described`]): the text written on a `$ref` or `allOf` wrapper, else in what it
    /// references or in the one member that has one. Equal texts are no change, wherever each is
    /// written; a text moved and edited is compared with its own old text, at both its places.
    fn descriptions(&mut self, o: &'a Value, op: &str, n: &'a Value, np: &str) {
        // A schema without alternatives paired with one branch of the other side (a type made
        // nullable with `anyOf`): its text was compared with the other side's whole schema.
        if defaults::is_branch(op) != defaults::is_branch(np) {
            return;
        }
        let a = spelling::described(self.old_root, o, op, self.base);
        let b = spelling::described(self.new_root, n, np, self.base);
        let (da, db) = (a.as_ref().map(|x| x.0), b.as_ref().map(|x| x.0));
        if da == db {
            return;
        }
        self.out.push(Change {
            tool: self.tool.to_owned(),
            kind: ChangeKind::Description { old: da.unwrap_or("").to_owned(), new: db.unwrap_or("").to_owned() },
            old_ptr: Some(a.map_or_else(|| op.to_owned(), |x| x.1)),
            new_ptr: Some(b.map_or_else(|| np.to_owned(), |x| x.1)),
            witness: None,
            plan: None,
        });
    }

    /// Defaults (descriptions are compared by [`Walker::descriptions`], before references are followed).
    pub(super) fn annotations(&mut self, old: &Value, op: &str, new: &Value, np: &str) {
        let (Some(mo), Some(mn)) = (old.as_object(), new.as_object()) else { return };
        // Defaults are compared once, at the schema that holds the alternatives (see `defaults`).
        if self.side == Side::Input && !defaults::is_branch(op) && !defaults::is_branch(np) {
            let (a, b) = (defaults::effective(mo, op), defaults::effective(mn, np));
            let (va, vb) = (a.as_ref().map(|x| x.0), b.as_ref().map(|x| x.0));
            if !defaults::same(va, vb) {
                self.emit(
                    SchemaChange::Default { old: va.cloned(), new: vb.cloned() },
                    Some(a.map_or_else(|| op.to_owned(), |x| x.1)),
                    Some(b.map_or_else(|| np.to_owned(), |x| x.1)),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::*;
    use crate::compare::budget;

    #[test]
    fn an_exhausted_budget_stops_the_walk_and_says_so_once() {
        let schema = |t: &str| {
            let props: Map<String, Value> = (0..100).map(|i| (format!("p{i}"), json!({"type": t}))).collect();
            json!({"type": "object", "properties": props})
        };
        let (a, b) = (schema("string"), schema("integer"));
        let walk = |budget: &Budget| {
            let mut out = Vec::new();
            Walker::new("t", Side::Input, &a, &b, "/inputSchema", &mut out, budget).walk(
                &a,
                "/inputSchema".into(),
                &b,
                "/inputSchema".into(),
            );
            budget::report(&mut out, "t", Side::Input, budget);
            out
        };
        let all = walk(&Budget::default());
        assert_eq!(all.len(), 100, "a budget that suffices changes nothing");
        let cut = walk(&Budget::new(50, budget::BYTES));
        let reasons: Vec<&str> = cut
            .iter()
            .filter_map(|c| match &c.kind {
                ChangeKind::Schema { change: SchemaChange::CannotDecide { reason, .. }, .. } => Some(reason.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            reasons,
            ["comparison stopped after 50 steps (budget); the rest of this tool's input schema is not compared"]
        );
        assert!(cut.len() < 60, "the walk stopped: {}", cut.len());
    }

    #[test]
    fn a_ref_pair_compared_completely_is_not_compared_again() {
        // Ten properties reference one definition: its pair is walked once, then remembered.
        let schema = |t: &str| {
            let props: Map<String, Value> = (0..10).map(|i| (format!("p{i}"), json!({"$ref": "#/$defs/d"}))).collect();
            json!({"type": "object", "properties": props, "$defs": {"d": {"properties": {"v": {"type": t}}}}})
        };
        let (a, b) = (schema("string"), schema("integer"));
        let budget = Budget::default();
        let mut out = Vec::new();
        Walker::new("t", Side::Input, &a, &b, "/inputSchema", &mut out, &budget).walk(
            &a,
            "/inputSchema".into(),
            &b,
            "/inputSchema".into(),
        );
        assert_eq!(out.len(), 1, "{out:?}");
        // The root, ten references, `v` once and its witness example (not once per reference: 31).
        assert!(budget.steps_used() <= 13, "{}", budget.steps_used());
    }
}
