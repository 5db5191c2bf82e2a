//! Unions: `anyOf`/`oneOf` alternatives (paired identical first, then by shape), `allOf` members,
//! `oneOf` exclusivity (discriminated or provably disjoint branches), and `not`.
//!
//! Takes the two [`View`]s (or branch lists) of a schema pair; walks paired branches one step down
//! and emits `Composition` changes for unpaired ones. Promises: disjointness is only ever claimed when
//! proven (different types, disjoint values, a required discriminator), with bounded depth and budget;
//! beyond [`ONE_OF_PAIR_BUDGET`] pairs, `oneOf` overlap without a discriminator is reported, not proven.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::Value;

use super::budget::Budget;
use super::references::follow;
use super::tools::{POSTING_CAP, assign, candidate_pairs, jaccard};
use super::walk::Walker;
use super::witness::{self, Plan, Seg};
use super::{Change, ChangeKind, Delta, SchemaChange, Side, breaks};
use crate::schema::{self, TypeSet, View, json_eq};

impl<'a> Walker<'a, '_> {
    /// `not`: the old schema is contained in the new one when the new `not` excludes nothing that the old
    /// `not` allowed, i.e. when `new.not` is contained in `old.not`. That is the same walk with the pair
    /// swapped; its findings are folded into one `not` change with the witnesses it found.
    pub(super) fn not(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let input = self.side == Side::Input;
        let (a, b) = (vo.get("not").cloned(), vn.get("not").cloned());
        let (delta, detail, tries) = match (&a, &b) {
            (None, None) => return,
            (Some(x), Some(y)) if x.value == y.value && !schema::contains_ref(x.value) => return,
            (Some(x), Some(y)) => {
                let mut produced = Vec::new();
                let mut inner = Walker::new(
                    self.tool,
                    self.side,
                    self.new_root,
                    self.old_root,
                    self.base,
                    &mut produced,
                    self.budget,
                );
                inner.path.clone_from(&self.path);
                inner.depth = self.depth + 1;
                inner.walk(y.value, y.ptr.clone(), x.value, x.ptr.clone());
                if let Some(reason) = produced.iter().find_map(|c| match &c.kind {
                    ChangeKind::Schema { change: SchemaChange::CannotDecide { reason, .. }, .. } => {
                        Some(reason.clone())
                    }
                    _ => None,
                }) {
                    let (op, np) = (x.ptr.clone(), y.ptr.clone());
                    return self.cannot_decide("not", format!("inside `not`: {reason}"), &op, &np);
                }
                let breaking: Vec<&Change> = produced
                    .iter()
                    .filter(|c| matches!(&c.kind, ChangeKind::Schema { side, change } if breaks(*side, change)))
                    .collect();
                let schema_changes = produced.iter().any(|c| matches!(c.kind, ChangeKind::Schema { .. }));
                if breaking.is_empty() && !schema_changes {
                    return;
                }
                let tries: Vec<(Vec<Seg>, Value)> =
                    breaking.iter().filter_map(|c| c.plan.as_ref()).flat_map(|p| p.tries.clone()).collect();
                let narrowed = !breaking.is_empty();
                let delta = if narrowed == input { Delta::LESS } else { Delta::MORE };
                (delta, "the `not` schema changed what it excludes".to_owned(), tries)
            }
            (None, Some(y)) => {
                let tries = witness::example(y.value, self.new_root, self.budget)
                    .map(|v| (self.path.clone(), v))
                    .into_iter()
                    .collect();
                (Delta::LESS, "a `not` was added".to_owned(), tries)
            }
            (Some(x), None) => {
                let tries = witness::example(x.value, self.old_root, self.budget)
                    .map(|v| (self.path.clone(), v))
                    .into_iter()
                    .collect();
                (Delta::MORE, "a `not` was removed".to_owned(), tries)
            }
        };
        let op = a.as_ref().map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
        let np = b.as_ref().map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone());
        let breaking = delta.breaks(input);
        self.out.push(Change {
            tool: self.tool.to_owned(),
            kind: ChangeKind::Schema {
                side: self.side,
                change: SchemaChange::Composition { keyword: "not".into(), detail, delta },
            },
            old_ptr: Some(op),
            new_ptr: Some(np),
            witness: None,
            plan: breaking.then_some(Plan { tries, dropped: None, at: None }),
        });
    }

    /// `oneOf` rejects a value that matches two branches. When the branches of the side that judges
    /// old values (the new side for inputs, the old side for outputs) changed, they must be provably
    /// disjoint, or a value that matched one branch may now match two.
    #[allow(clippy::type_complexity, reason = "the (keyword, branches) pairs of `alternatives`")]
    pub(super) fn one_of_exclusivity(
        &mut self,
        ao: Option<&(&'static str, Vec<(&'a Value, String)>)>,
        an: Option<&(&'static str, Vec<(&'a Value, String)>)>,
        op: &str,
        np: &str,
    ) -> bool {
        let (judge, other, root) =
            if self.side == Side::Input { (an, ao, self.new_root) } else { (ao, an, self.old_root) };
        let Some(("oneOf", branches)) = judge else { return false };
        let same = other.is_some_and(|(_, list)| {
            list.len() == branches.len()
                && list.iter().zip(branches).all(|(a, b)| a.0 == b.0 && !schema::contains_ref(a.0))
        });
        if same {
            return false;
        }
        let values: Vec<&Value> = branches.iter().map(|b| b.0).collect();
        if discriminated(&values, root) {
            return false;
        }
        let at = |p: &str| p.rsplit('/').next().unwrap_or("").to_owned();
        let detail = if branches.len() * branches.len().saturating_sub(1) / 2 > ONE_OF_PAIR_BUDGET {
            format!(
                "`oneOf` has {} branches and no discriminator (a required property with distinct constant values), too many to prove disjoint pair by pair, so a value that matched exactly one branch may now match two and be rejected",
                branches.len()
            )
        } else {
            let overlapping = branches.iter().enumerate().find_map(|(i, a)| {
                branches[i + 1..].iter().find(|b| !disjoint(a.0, b.0, root, self.budget)).map(|b| (&a.1, &b.1))
            });
            let Some((a, b)) = overlapping else { return false };
            format!(
                "`oneOf` branches {} and {} may overlap, so a value that matched exactly one branch may now match two and be rejected",
                at(a),
                at(b)
            )
        };
        // Witness candidates: examples of every branch on both sides.
        let sub_root = if self.side == Side::Input { self.old_root } else { self.new_root };
        let tries = ao
            .into_iter()
            .chain(an)
            .flat_map(|(_, list)| list.iter())
            .filter_map(|(branch, _)| witness::example(branch, sub_root, self.budget))
            .map(|v| (self.path.clone(), v))
            .collect();
        let delta = if self.side == Side::Input { Delta::LESS } else { Delta::MORE };
        self.out.push(Change {
            tool: self.tool.to_owned(),
            kind: ChangeKind::Schema {
                side: self.side,
                change: SchemaChange::Composition { keyword: "oneOf".into(), detail, delta },
            },
            old_ptr: Some(op.to_owned()),
            new_ptr: Some(np.to_owned()),
            witness: None,
            plan: Some(Plan { tries, dropped: None, at: None }),
        });
        true
    }

    /// Compares two lists of alternatives (`anyOf`/`oneOf` branches; a plain schema is a list of one).
    /// Identical branches pair first, then the most similar; unpaired old branches accept less, unpaired
    /// new branches accept more.
    pub(super) fn alternatives(
        &mut self,
        keyword: &str,
        ao: &[(&'a Value, String)],
        an: &[(&'a Value, String)],
        op: &str,
        np: &str,
        overlap_reported: bool,
    ) {
        // Branches that are only a `$ref` compare as their targets.
        let resolve = |root: &'a Value, list: &[(&'a Value, String)]| -> Vec<(&'a Value, String)> {
            list.iter()
                .map(|(v, p)| match self.deref(root, v, p.clone()) {
                    Ok((t, tp, _)) => (t, tp),
                    Err(_) => (*v, p.clone()),
                })
                .collect()
        };
        // Branches are walked as written (`$ref` and all), so that the walk sees the reference and
        // applies coinduction and its memo to the target pair; they pair by their targets.
        let (wo, wn) = (ao, an);
        let (ao, an) = (resolve(self.old_root, ao), resolve(self.new_root, an));
        let (ao, an) = (ao.as_slice(), an.as_slice());
        let firsts = |list: &[(&'a Value, String)]| list.iter().map(|b| b.0).collect::<Vec<_>>();
        let (same, left_o, left_n) = pair_identical(&firsts(ao), &firsts(an));
        for (i, j) in same {
            if schema::contains_ref(ao[i].0) {
                let seg = Seg::Branch { keyword: static_keyword(keyword), old: i, new: j };
                self.walk_at(seg, wo[i].0, wo[i].1.clone(), wn[j].0, wn[j].1.clone());
            }
        }
        let shape = |k: &usize, list: &[(&'a Value, String)]| Shape::of(list[*k].0);
        let (so, sn): (Vec<Shape>, Vec<Shape>) =
            (left_o.iter().map(|k| shape(k, ao)).collect(), left_n.iter().map(|k| shape(k, an)).collect());
        let scored = |a: usize, b: usize| {
            let score = so[a].similarity(&sn[b]);
            (score > 0.3).then_some((score, a, b))
        };
        let candidates: Vec<(f64, usize, usize)> =
            candidate_pairs(so.len(), sn.len(), || Shape::blocked_pairs(&so, &sn))
                .into_iter()
                .filter_map(|(a, b)| scored(a, b))
                .collect();
        let pairs = assign(candidates);
        let (mut paired_o, mut paired_n) = (HashSet::new(), HashSet::new());
        for (a, b) in pairs {
            let (i, j) = (left_o[a], left_n[b]);
            paired_o.insert(i);
            paired_n.insert(j);
            let seg = Seg::Branch { keyword: static_keyword(keyword), old: i, new: j };
            self.walk_at(seg, wo[i].0, wo[i].1.clone(), wn[j].0, wn[j].1.clone());
        }
        for &i in left_o.iter().filter(|i| !paired_o.contains(*i)) {
            let detail = format!(
                "the alternative at {} was removed",
                ao[i].1.rsplit('/').next().map_or_else(String::new, |k| format!("index {k}"))
            );
            self.emit(
                SchemaChange::Composition { keyword: keyword.to_owned(), detail, delta: Delta::LESS },
                Some(ao[i].1.clone()),
                Some(np.to_owned()),
            );
        }
        for &j in left_n.iter().filter(|j| !paired_n.contains(*j) && !overlap_reported) {
            let detail = format!("a new alternative was added at index {}", an[j].1.rsplit('/').next().unwrap_or(""));
            self.emit(
                SchemaChange::Composition { keyword: keyword.to_owned(), detail, delta: Delta::MORE },
                Some(op.to_owned()),
                Some(an[j].1.clone()),
            );
        }
    }

    pub(super) fn composition(&mut self, keyword: &str, vo: &View<'a>, vn: &View<'a>) {
        let (a, b) = (vo.get(keyword), vn.get(keyword));
        let (a, b) = match (a, b) {
            (None, None) => return,
            (Some(x), Some(y)) if x.value == y.value && !schema::contains_ref(x.value) => return,
            (Some(x), Some(y)) => (x.clone(), y.clone()),
            (x, y) => {
                let op = x.map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
                let np = y.map_or_else(|| vn.ptr.clone(), |y| y.ptr.clone());
                let what = if x.is_none() { "was added" } else { "was removed" };
                self.cannot_decide(keyword, format!("`{keyword}` {what}"), &op, &np);
                return;
            }
        };
        let (Some(la), Some(lb)) = (a.value.as_array(), b.value.as_array()) else {
            return self.cannot_decide(keyword, format!("`{keyword}` is not an array"), &a.ptr, &b.ptr);
        };
        // Identical branches pair first; the rest pair by position among the unmatched.
        let (same, unmatched_a, unmatched_b) =
            pair_identical(&la.iter().collect::<Vec<_>>(), &lb.iter().collect::<Vec<_>>());
        for (i, j) in same {
            if schema::contains_ref(&la[i]) {
                let seg = Seg::Branch { keyword: static_keyword(keyword), old: i, new: j };
                self.walk_at(seg, &la[i], format!("{}/{i}", a.ptr), &lb[j], format!("{}/{j}", b.ptr));
            }
        }
        for (&i, &j) in unmatched_a.iter().zip(&unmatched_b) {
            let seg = Seg::Branch { keyword: static_keyword(keyword), old: i, new: j };
            self.walk_at(seg, &la[i], format!("{}/{i}", a.ptr), &lb[j], format!("{}/{j}", b.ptr));
        }
        let extra_a = unmatched_a.len().saturating_sub(unmatched_b.len());
        let extra_b = unmatched_b.len().saturating_sub(unmatched_a.len());
        let conjunction = keyword == "allOf";
        for &i in unmatched_a.iter().skip(unmatched_b.len()) {
            // A branch of anyOf/oneOf removed accepts less; a conjunct of allOf removed accepts more.
            let delta = if conjunction { Delta::MORE } else { Delta::LESS };
            let detail = format!("{} of {} was removed ({extra_a} fewer)", branch_word(keyword), keyword);
            self.emit(
                SchemaChange::Composition { keyword: keyword.to_owned(), detail, delta },
                Some(format!("{}/{i}", a.ptr)),
                Some(b.ptr.clone()),
            );
        }
        for &j in unmatched_b.iter().skip(unmatched_a.len()) {
            let delta = if conjunction { Delta::LESS } else { Delta::MORE };
            let detail = format!("{} of {} was added ({extra_b} more)", branch_word(keyword), keyword);
            self.emit(
                SchemaChange::Composition { keyword: keyword.to_owned(), detail, delta },
                Some(a.ptr.clone()),
                Some(format!("{}/{j}", b.ptr)),
            );
        }
    }
}

/// The branches of a schema that is nothing but an `anyOf`/`oneOf` (annotations aside).
pub(super) fn alternatives<'a>(v: &'a Value, ptr: &str) -> Option<(&'static str, Vec<(&'a Value, String)>)> {
    let map = v.as_object()?;
    let keyword = if map.contains_key("anyOf") { "anyOf" } else { "oneOf" };
    let list = map.get(keyword)?.as_array()?;
    let only = map.keys().all(|k| k == keyword || schema::ANNOTATIONS.contains(&k.as_str()));
    if !only || list.is_empty() {
        return None;
    }
    Some((keyword, list.iter().enumerate().map(|(i, b)| (b, format!("{ptr}/{keyword}/{i}"))).collect()))
}

/// Whether no instance can satisfy both schemas: different types, disjoint `enum`/`const` sets, or a
/// required discriminator property with disjoint values. `false` means "not proven".
fn disjoint(a: &Value, b: &Value, root: &Value, budget: &Budget) -> bool {
    disjoint_at(a, b, root, 0, budget)
}

#[allow(clippy::many_single_char_names, reason = "a and b are the two schemas, as in the literature")]
fn disjoint_at(a: &Value, b: &Value, root: &Value, depth: usize, budget: &Budget) -> bool {
    // Out of budget: not proven.
    if depth > 8 || !budget.step() {
        return false;
    }
    let (a, b) = (follow(a, root), follow(b, root));
    let (va, vb) = (View::new(a, ""), View::new(b, ""));
    if !va.types.intersects(vb.types) {
        return true;
    }
    let values_disjoint = |x: &View<'_>, y: &View<'_>| match (&x.values, &y.values) {
        (Some((p, _)), Some((q, _))) => p.iter().all(|v| !q.iter().any(|w| json_eq(v, w))),
        (Some((p, _)), None) => p.iter().all(|v| !y.types.admits(v)),
        (None, Some((q, _))) => q.iter().all(|v| !x.types.admits(v)),
        (None, None) => false,
    };
    if values_disjoint(&va, &vb) {
        return true;
    }
    // A discriminator: a property both require, whose values cannot coincide.
    let required = |v: &Value| -> BTreeSet<String> {
        v.get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let both_objects = !va.types.minus(TypeSet::OBJECT).intersects(vb.types);
    if both_objects {
        for name in required(a).intersection(&required(b)) {
            let (Some(pa), Some(pb)) = (property(a, name), property(b, name)) else {
                continue;
            };
            if disjoint_at(pa, pb, root, depth + 1, budget) {
                return true;
            }
        }
    }
    false
}

pub(super) fn property<'v>(schema: &'v Value, name: &str) -> Option<&'v Value> {
    schema.get("properties")?.get(name)
}

/// Proves every pair of branches disjoint in one pass: branches that are each a `const`/`enum` with
/// values no two branches share (an enum with a description per value), or a discriminated union,
/// where each branch admits only objects and some property that every branch requires has
/// `const`/`enum` values that no two branches share. `false` means "not proven this way".
fn discriminated(branches: &[&Value], root: &Value) -> bool {
    let resolved: Vec<&Value> = branches.iter().map(|b| follow(b, root)).collect();
    if distinct_values(resolved.iter().map(|b| Some(*b))) {
        return true;
    }
    let objects_only = |v: &Value| {
        let types = View::new(v, "").types;
        !types.is_empty() && types.minus(TypeSet::OBJECT).is_empty()
    };
    let required = |v: &'_ Value, name: &str| {
        v.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|x| x.as_str() == Some(name)))
    };
    let Some(first) = resolved.first() else { return true };
    if !resolved.iter().all(|v| objects_only(v)) {
        return false;
    }
    let names = first.get("required").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    names.iter().filter_map(Value::as_str).any(|name| {
        distinct_values(
            resolved
                .iter()
                .map(|branch| property(branch, name).filter(|_| required(branch, name)).map(|p| follow(p, root))),
        )
    })
}

/// Every schema is there and lists values (`const`/`enum`), and no value occurs twice among them.
fn distinct_values<'v>(schemas: impl IntoIterator<Item = Option<&'v Value>>) -> bool {
    let mut seen = HashSet::new();
    schemas.into_iter().all(|schema| match schema.and_then(|s| View::new(s, "").values) {
        Some((values, _)) => values.iter().all(|v| seen.insert(schema::canonical_key(v))),
        None => false,
    })
}

/// Pairs equal schemas (JSON Schema equality), each old one with the first unused equal new one, in
/// linear time. Returns the pairs and the unpaired indices of each side, in order.
fn pair_identical(old: &[&Value], new: &[&Value]) -> (Vec<(usize, usize)>, Vec<usize>, Vec<usize>) {
    let mut by_key: HashMap<String, std::collections::VecDeque<usize>> = HashMap::new();
    for (j, v) in new.iter().enumerate() {
        by_key.entry(schema::canonical_key(v)).or_default().push_back(j);
    }
    let (mut pairs, mut left_old) = (Vec::new(), Vec::new());
    let mut used = vec![false; new.len()];
    for (i, v) in old.iter().enumerate() {
        match by_key.get_mut(&schema::canonical_key(v)).and_then(std::collections::VecDeque::pop_front) {
            Some(j) => {
                used[j] = true;
                pairs.push((i, j));
            }
            None => left_old.push(i),
        }
    }
    let left_new = (0..new.len()).filter(|&j| !used[j]).collect();
    (pairs, left_old, left_new)
}

/// What branch pairing compares: the types a branch admits and its property names.
struct Shape<'v> {
    types: TypeSet,
    keys: BTreeSet<&'v str>,
    /// The `const`/`enum` values, when the branch lists them (canonical keys).
    values: Option<BTreeSet<String>>,
}

impl<'v> Shape<'v> {
    fn of(v: &'v Value) -> Shape<'v> {
        let keys = v.get("properties").and_then(Value::as_object).map(|m| m.keys().map(String::as_str).collect());
        let view = View::new(v, "");
        let values = view.values.map(|(list, _)| list.iter().map(|x| schema::canonical_key(x)).collect());
        Shape { types: view.types, keys: keys.unwrap_or_default(), values }
    }

    /// How alike two branches are: the same types, and shared values when both list values (two
    /// branches with no value in common are different alternatives, not one edited), else shared
    /// property names.
    fn similarity(&self, other: &Shape<'_>) -> f64 {
        if !self.types.intersects(other.types) {
            return 0.0;
        }
        let overlap = match (&self.values, &other.values) {
            (Some(a), Some(b)) if a.is_disjoint(b) => return 0.0,
            (Some(a), Some(b)) => jaccard(a, b),
            _ => jaccard(&self.keys, &other.keys),
        };
        0.5 * f64::from(u8::from(self.types == other.types)) + 0.5 * overlap
    }

    /// The pairs worth scoring when there are too many to score all: the same position among the
    /// unpaired branches, and branches that share a property name no more than [`POSTING_CAP`] branches
    /// on the new side have.
    fn blocked_pairs(old: &[Shape<'_>], new: &[Shape<'_>]) -> Vec<(usize, usize)> {
        let mut postings: HashMap<&str, Vec<usize>> = HashMap::new();
        for (j, shape) in new.iter().enumerate() {
            for key in &shape.keys {
                postings.entry(key).or_default().push(j);
            }
        }
        let mut out: BTreeSet<(usize, usize)> = (0..old.len().min(new.len())).map(|k| (k, k)).collect();
        for (i, shape) in old.iter().enumerate() {
            for key in &shape.keys {
                if let Some(list) = postings.get(key).filter(|l| l.len() <= POSTING_CAP) {
                    out.extend(list.iter().map(|&j| (i, j)));
                }
            }
        }
        out.into_iter().collect()
    }
}

pub(super) fn static_keyword(keyword: &str) -> &'static str {
    match keyword {
        "anyOf" => "anyOf",
        "oneOf" => "oneOf",
        _ => "allOf",
    }
}

fn branch_word(keyword: &str) -> &'static str {
    if keyword == "allOf" { "a member schema" } else { "a branch" }
}

/// `oneOf` branches beyond this many pairs are not proven disjoint pair by pair (each proof may
/// follow `$ref`s and discriminators); without a discriminator the overlap is then undecided.
const ONE_OF_PAIR_BUDGET: usize = 50_000;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn discriminated_unions_need_objects_a_required_tag_and_distinct_values() {
        let root = json!({"$defs": {"b": {"type": "object", "properties": {"kind": {"enum": ["b", "c"]}}, "required": ["kind"]}}});
        let a = json!({"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]});
        let by_ref = json!({"$ref": "#/$defs/b"});
        assert!(discriminated(&[&a, &by_ref], &root));
        // The same value in two branches, an optional tag, or a branch that also admits strings.
        let shared = json!({"type": "object", "properties": {"kind": {"const": "c"}}, "required": ["kind"]});
        assert!(!discriminated(&[&a, &by_ref, &shared], &root));
        let optional = json!({"type": "object", "properties": {"kind": {"const": "d"}}});
        assert!(!discriminated(&[&a, &optional], &root));
        let untyped = json!({"properties": {"kind": {"const": "d"}}, "required": ["kind"]});
        assert!(!discriminated(&[&a, &untyped], &root));
        // Documented enum values: one `const` per branch.
        let (x, y, z) = (json!({"const": "x", "description": "X."}), json!({"enum": ["y", 1]}), json!({"const": 1.0}));
        assert!(discriminated(&[&x, &y], &root));
        assert!(!discriminated(&[&x, &y, &z], &root), "1 and 1.0 are the same value");
    }

    #[test]
    fn identical_branches_pair_in_order_by_json_schema_equality() {
        let (x, y, one, one_f) =
            (json!({"type": "string"}), json!({"type": "integer"}), json!({"minimum": 1}), json!({"minimum": 1.0}));
        let (pairs, left_old, left_new) = pair_identical(&[&x, &y, &x, &one], &[&one_f, &x, &x]);
        assert_eq!(pairs, vec![(0, 1), (2, 2), (3, 0)]);
        assert_eq!((left_old, left_new), (vec![1], vec![]));
    }
}
