//! Scalars: `type`, `enum`/`const` (finite domains, including `null` and `boolean`), numeric bounds
//! and `multipleOf`, `pattern` and `format`.
//!
//! Takes the two [`View`]s of a schema pair; emits `Type`, `Enum`, `Constraint`, `Pattern` and `Format`
//! changes. Promises: a finite domain's difference is exact under JSON Schema equality (`1` is `1.0`)
//! and never quadratic in the enum's length; on integers, bounds compare as integer bounds
//! (`exclusiveMinimum: 0` is `minimum: 1`).

use std::collections::HashSet;

use serde_json::Value;

use super::walk::Walker;
use super::witness;
use super::{Delta, SchemaChange};
use crate::schema::{self, TypeSet, View, json_eq, num_cmp};

/// The whole domain of `null` and `boolean`.
static SMALL: [Value; 3] = [Value::Null, Value::Bool(false), Value::Bool(true)];

impl<'a> Walker<'a, '_> {
    pub(super) fn types_and_values(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let type_ptrs = || {
            (vo.types_at.clone().or_else(|| Some(vo.ptr.clone())), vn.types_at.clone().or_else(|| Some(vn.ptr.clone())))
        };
        if vo.values.is_none() && vn.values.is_none() {
            let lost = vo.types.minus(vn.types);
            let gained = vn.types.minus(vo.types);
            if !lost.is_empty() || !gained.is_empty() {
                let (a, b) = type_ptrs();
                self.emit(SchemaChange::Type { old: vo.types, new: vn.types }, a, b);
            }
            return;
        }
        let accepts = |v: &View<'_>, x: &Value| {
            v.types.admits(x) && v.values.as_ref().is_none_or(|(list, _)| list.iter().any(|w| json_eq(x, w)))
        };
        let finite_domain = |v: &View<'a>| -> Option<Vec<&'a Value>> {
            if let Some((list, _)) = &v.values {
                return Some(list.iter().copied().filter(|x| v.types.admits(x)).collect());
            }
            if TypeSet::NULL.union(TypeSet::BOOLEAN).contains(v.types) {
                return Some(SMALL.iter().filter(|x| v.types.admits(x)).collect());
            }
            None
        };
        let (old_dom, new_dom) = (finite_domain(vo), finite_domain(vn));
        let removed: Vec<Value> = old_dom.as_ref().map(|d| fast_difference(d, vn, &accepts)).unwrap_or_default();
        let added: Vec<Value> = new_dom.as_ref().map(|d| fast_difference(d, vo, &accepts)).unwrap_or_default();
        let introduced = old_dom.is_none() && new_dom.is_some();
        let dropped = old_dom.is_some() && new_dom.is_none();
        if removed.is_empty() && added.is_empty() && !introduced && !dropped {
            return;
        }
        let optr = vo
            .values
            .as_ref()
            .map(|(_, p)| p.clone())
            .or_else(|| vo.types_at.clone())
            .unwrap_or_else(|| vo.ptr.clone());
        let nptr = vn
            .values
            .as_ref()
            .map(|(_, p)| p.clone())
            .or_else(|| vn.types_at.clone())
            .unwrap_or_else(|| vn.ptr.clone());
        self.emit(SchemaChange::Enum { removed, added, introduced, dropped }, Some(optr), Some(nptr));
    }

    #[allow(
        clippy::float_cmp,
        reason = "equal written bounds are exactly equal; anything else is compared by divisibility"
    )]
    pub(super) fn numbers(&mut self, vo: &View<'a>, vn: &View<'a>, common: TypeSet) {
        let integers_only = !common.intersects(TypeSet::FRACTION);
        for lower in [true, false] {
            let a = bound(vo, lower, integers_only);
            let b = bound(vn, lower, integers_only);
            let (tighter, looser) = compare_bounds(a.as_ref(), b.as_ref(), lower);
            if tighter || looser {
                let keyword =
                    b.as_ref().or(a.as_ref()).map_or(if lower { "minimum" } else { "maximum" }, |x| x.keyword);
                let op = a.as_ref().map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
                let np = b.as_ref().map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone());
                self.emit(
                    SchemaChange::Constraint {
                        keyword: keyword.to_owned(),
                        old: a.map(|x| x.written),
                        new: b.map(|x| x.written),
                        delta: Delta::of(tighter, looser),
                    },
                    Some(op),
                    Some(np),
                );
            }
        }
        let (a, b) = (vo.get("multipleOf"), vn.get("multipleOf"));
        let delta = match (a.and_then(|x| x.value.as_f64()), b.and_then(|x| x.value.as_f64())) {
            (None, None) => return,
            (Some(_), None) => Delta::MORE,
            (None, Some(_)) => Delta::LESS,
            (Some(x), Some(y)) if x == y => return,
            (Some(x), Some(y)) => {
                // New accepts every old value iff old's step is a multiple of new's step.
                let old_in_new = divides(y, x);
                let new_in_old = divides(x, y);
                Delta::of(!old_in_new, !new_in_old)
            }
        };
        self.constraint("multipleOf", vo, vn, delta);
    }

    pub(super) fn strings(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let text = |v: &View<'a>, k: &str| {
            v.get(k).map(|x| x.value.as_str().map_or_else(|| x.value.to_string(), str::to_owned))
        };
        let (a, b) = (text(vo, "pattern"), text(vn, "pattern"));
        if a != b {
            let op = vo.get("pattern").map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
            let np = vn.get("pattern").map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone());
            let implied = |p: &Option<String>, q: &Option<String>| match (p, q) {
                (_, None) => true,
                (None, Some(_)) => false,
                (Some(p), Some(q)) => witness::pattern_implies(p, q),
            };
            let (old_in_new, new_in_old) = (implied(&a, &b), implied(&b, &a));
            if old_in_new || new_in_old {
                if !(old_in_new && new_in_old) {
                    let delta = Delta::of(!old_in_new, !new_in_old);
                    let (old, new) = (a.map(Value::String), b.map(Value::String));
                    self.emit(
                        SchemaChange::Constraint { keyword: "pattern".into(), old, new, delta },
                        Some(op),
                        Some(np),
                    );
                }
            } else if let (Some(x), Some(y)) = (
                a.as_deref().and_then(witness::literal_alternatives),
                b.as_deref().and_then(witness::literal_alternatives),
            ) {
                // Both patterns are anchored lists of literals: compare them as sets, exactly.
                let lost = x.iter().any(|l| !y.contains(l));
                let gained = y.iter().any(|l| !x.contains(l));
                if lost || gained {
                    let (old, new) = (a.map(Value::String), b.map(Value::String));
                    self.emit(
                        SchemaChange::Constraint {
                            keyword: "pattern".into(),
                            old,
                            new,
                            delta: Delta::of(lost, gained),
                        },
                        Some(op),
                        Some(np),
                    );
                }
            } else {
                self.emit(SchemaChange::Pattern { old: a, new: b }, Some(op), Some(np));
            }
        }
        let (a, b) = (text(vo, "format"), text(vn, "format"));
        if a != b {
            let op = vo.get("format").map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
            let np = vn.get("format").map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone());
            self.emit(SchemaChange::Format { old: a, new: b }, Some(op), Some(np));
        }
    }
}

/// The values of a finite domain that `other` does not accept, in the order the domain lists them.
/// Against a long plain enum this is linear in the usual case (the two lists share their order with a
/// few edits) and `O(n log n)` otherwise, never quadratic.
fn fast_difference(domain: &[&Value], other: &View<'_>, accepts: &dyn Fn(&View<'_>, &Value) -> bool) -> Vec<Value> {
    let Some((list, _)) = &other.values else {
        return domain.iter().filter(|x| !accepts(other, x)).map(|x| (*x).clone()).collect();
    };
    if list.len() <= 16 {
        return domain.iter().filter(|x| !accepts(other, x)).map(|x| (*x).clone()).collect();
    }
    let theirs: Vec<&Value> = list.iter().copied().filter(|x| other.types.admits(x)).collect();
    // A value equal to theirs at the same position from either end is accepted; only the middle of
    // `domain` needs a membership test. Strict equality implies JSON Schema equality, so this only
    // ever shortens the work.
    let prefix = domain.iter().zip(&theirs).take_while(|(a, b)| a == b).count();
    let room = domain.len().min(theirs.len()) - prefix;
    let suffix = domain.iter().rev().zip(theirs.iter().rev()).take(room).take_while(|(a, b)| a == b).count();
    let middle = &domain[prefix..domain.len() - suffix];
    if middle.is_empty() {
        return Vec::new();
    }
    let missing: Vec<&Value> = if middle.len() <= 16 {
        // A few candidates (the usual edit): one pass over theirs, comparing against each.
        let mut wanted: Vec<EnumKey<'_>> = middle.iter().map(|x| EnumKey::of(x)).collect();
        for x in &theirs {
            if wanted.is_empty() {
                break;
            }
            let key = EnumKey::of(x);
            wanted.retain(|w| *w != key);
        }
        middle.iter().copied().filter(|x| wanted.contains(&EnumKey::of(x))).collect()
    } else if middle.len() <= 4096 {
        let mut wanted: HashSet<EnumKey<'_>> = middle.iter().map(|x| EnumKey::of(x)).collect();
        for x in &theirs {
            if wanted.is_empty() {
                break;
            }
            wanted.remove(&EnumKey::of(x));
        }
        middle.iter().copied().filter(|x| wanted.contains(&EnumKey::of(x))).collect()
    } else {
        sorted_difference(middle, &theirs)
    };
    missing.into_iter().cloned().collect()
}

/// `domain` minus `theirs` by sorting both and merging (sequential memory access, no hashing), in
/// the order `domain` lists them.
fn sorted_difference<'v>(domain: &[&'v Value], theirs: &[&Value]) -> Vec<&'v Value> {
    let mut theirs: Vec<EnumKey<'_>> = theirs.iter().map(|x| EnumKey::of(x)).collect();
    theirs.sort_unstable();
    let mut ours: Vec<(EnumKey<'_>, usize)> = domain.iter().enumerate().map(|(i, x)| (EnumKey::of(x), i)).collect();
    ours.sort_unstable();
    let mut missing: Vec<usize> = Vec::new();
    let mut j = 0;
    for (key, i) in &ours {
        while j < theirs.len() && theirs[j] < *key {
            j += 1;
        }
        if j >= theirs.len() || theirs[j] != *key {
            missing.push(*i);
        }
    }
    missing.sort_unstable();
    missing.into_iter().map(|i| domain[i]).collect()
}

/// A hashable enum value with JSON Schema equality; strings (the common large enum) are borrowed, not
/// copied.
#[derive(PartialEq, Eq, PartialOrd, Ord, Hash)]
enum EnumKey<'a> {
    Str(&'a str),
    Other(String),
}

impl<'a> EnumKey<'a> {
    fn of(v: &'a Value) -> EnumKey<'a> {
        match v {
            Value::String(s) => EnumKey::Str(s),
            other => EnumKey::Other(schema::canonical_key(other)),
        }
    }
}

/// A numeric bound as written, normalized for comparison.
struct Bound {
    keyword: &'static str,
    written: Value,
    value: serde_json::Number,
    exclusive: bool,
    ptr: String,
}

fn bound(v: &View<'_>, lower: bool, integers_only: bool) -> Option<Bound> {
    let (inc, exc) = if lower { ("minimum", "exclusiveMinimum") } else { ("maximum", "exclusiveMaximum") };
    let get = |k: &'static str, exclusive: bool| {
        v.get(k).and_then(|at| {
            at.value.as_number().map(|n| Bound {
                keyword: k,
                written: at.value.clone(),
                value: n.clone(),
                exclusive,
                ptr: at.ptr.clone(),
            })
        })
    };
    let candidates = [get(inc, false), get(exc, true)];
    // The effective bound is the stricter of the two keywords.
    let mut best: Option<Bound> = None;
    for b in candidates.into_iter().flatten() {
        let b = if integers_only { integer_bound(b, lower) } else { b };
        best = match best {
            None => Some(b),
            Some(cur) => {
                let (tighter, _) = compare_bounds(Some(&cur), Some(&b), lower);
                Some(if tighter { b } else { cur })
            }
        };
    }
    best
}

/// On integers, `exclusiveMinimum: 0` is `minimum: 1` and `minimum: 0.5` is `minimum: 1`.
fn integer_bound(mut b: Bound, lower: bool) -> Bound {
    let Some(f) = b.value.as_f64() else { return b };
    let rounded = if lower { f.floor() } else { f.ceil() };
    let is_int = b.value.is_i64() || b.value.is_u64() || f.fract() == 0.0;
    if !is_int || b.exclusive {
        let target = if !is_int {
            if lower { f.ceil() } else { f.floor() }
        } else if lower {
            rounded + 1.0
        } else {
            rounded - 1.0
        };
        if target.abs() < 9.0e15 {
            #[allow(clippy::cast_possible_truncation, reason = "guarded: |target| < 9e15, exactly representable")]
            let i = target as i64;
            b.value = serde_json::Number::from(i);
            b.exclusive = false;
        }
    }
    b
}

/// (new is tighter somewhere, new is looser somewhere) for one side of the range.
fn compare_bounds(old: Option<&Bound>, new: Option<&Bound>, lower: bool) -> (bool, bool) {
    match (old, new) {
        (None, None) => (false, false),
        (None, Some(_)) => (true, false),
        (Some(_), None) => (false, true),
        (Some(a), Some(b)) => {
            let ord = num_cmp(&b.value, &a.value);
            let ord = if lower { ord } else { ord.reverse() };
            match ord {
                std::cmp::Ordering::Greater => (true, false),
                std::cmp::Ordering::Less => (false, true),
                std::cmp::Ordering::Equal => (b.exclusive && !a.exclusive, a.exclusive && !b.exclusive),
            }
        }
    }
}

/// Whether `step` divides `value` (both positive), tolerating binary rounding of decimal steps.
fn divides(step: f64, value: f64) -> bool {
    if step <= 0.0 {
        return false;
    }
    let q = value / step;
    (q - q.round()).abs() < 1e-9 && q.round() >= 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisibility() {
        assert!(divides(0.1, 0.3));
        assert!(divides(2.0, 6.0));
        assert!(!divides(4.0, 6.0));
    }
}
