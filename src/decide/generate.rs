//! Witness search: candidate instances of `sub` built from its normal form, confirmed by the validators.
//!
//! Takes both documents, the [`Judge`] and a [`Cx`]; returns the first candidate that `sub` accepts and
//! `sup` rejects, as `Incompatible`, or `None`. Candidates: `examples`/`default` of the `sub` root, a
//! minimal instance of each `sub` disjunct, and, walking both normal forms together location by
//! location, for each `sup` constraint that `sub` may not imply a value pushed to violate it (a type
//! `sup` dropped, a `sub` enum value, a string one past `maxLength`, a number past a bound, an extra or
//! missing property, a duplicated item, a name outside `propertyNames`, an instance of a `not` or an
//! `if`), embedded at its path into a minimal instance of `sub`. Promises: the number of candidates is
//! at most [`super::MAX_CANDIDATES`], each within `instance_bytes`, the walk within `depth` and
//! `steps`; nothing here is trusted: only the validators' answers make a witness.

use serde_json::{Map, Value, json};

use super::nf::{Conj, S, Side, dnf, for_name};
use super::{Cx, Judge, MAX_CANDIDATES, Verdict};
use crate::schema::{TypeSet, json_eq};

/// Nesting of a generated instance.
const GEN_DEPTH: usize = 12;
/// Disjuncts looked at per location and side.
const PER_LOCATION: usize = 16;

/// A step of a path into an instance.
#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

/// Searches for a confirmed witness; see the module header.
pub fn search(sub: &Value, sup: &Value, judge: &mut Judge<'_>, cx: &mut Cx) -> Option<Verdict> {
    let limits = cx.limits.clone();
    let root = S::new(sub, String::new());
    let mut bases: Vec<Value> = Vec::new();
    if let Value::Object(m) = sub {
        if let Some(Value::Array(ex)) = m.get("examples") {
            bases.extend(ex.iter().take(64).cloned());
        }
        bases.extend(m.get("default").cloned());
    }
    bases.extend(instances(sub, std::slice::from_ref(&root), cx, 0));
    for b in &bases {
        if let Some(v) = judge.check(b, &limits) {
            return Some(v);
        }
    }
    let base = bases.into_iter().find(|b| judge.both(b, &limits).is_some()).unwrap_or(Value::Null);
    let mut w = Walk { sub_root: sub, sup_root: sup, base, judge, found: None };
    w.walk(&mut Vec::new(), &[root], &[S::new(sup, String::new())], cx, 0);
    w.found
}

/// Minimal instances of the conjunction of `nodes` (of the document `root`), one per disjunct.
fn instances(root: &Value, nodes: &[S<'_>], cx: &mut Cx, depth: usize) -> Vec<Value> {
    if depth > GEN_DEPTH {
        return Vec::new();
    }
    let Ok(d) = dnf(root, nodes, Side::Sub, cx) else { return Vec::new() };
    d.iter().take(PER_LOCATION).filter_map(|c| first_of(root, c, cx, depth)).collect()
}

/// An instance of one conjunct, of its first feasible type.
fn first_of(root: &Value, c: &Conj<'_>, cx: &mut Cx, depth: usize) -> Option<Value> {
    if let Some(vals) = &c.values {
        return vals
            .iter()
            .find(|v| c.types.admits(v) && !c.excluded.iter().any(|x| json_eq(x, v)))
            .map(|v| (*v).clone());
    }
    for t in [
        TypeSet::OBJECT,
        TypeSet::STRING,
        TypeSet::INTEGER,
        TypeSet::ARRAY,
        TypeSet::NULL,
        TypeSet::BOOLEAN,
        TypeSet::FRACTION,
    ] {
        if c.types.contains(t)
            && let Some(v) = typed(root, c, t, cx, depth)
        {
            return Some(v);
        }
    }
    None
}

/// An instance of `c` of type `t` (best effort: the validator judges it).
fn typed(root: &Value, c: &Conj<'_>, t: TypeSet, cx: &mut Cx, depth: usize) -> Option<Value> {
    let ok = |v: &Value| !c.excluded.iter().any(|x| json_eq(x, v));
    // Bounded building: every value costs its bytes (a string its minimum length), so nested
    // `minItems` of long strings stop at the limit instead of building gigabytes.
    let cost = if t == TypeSet::STRING { c.min_len.max(2) } else { 8 };
    if !cx.build(cost) {
        return None;
    }
    match t {
        TypeSet::NULL => Some(Value::Null).filter(ok),
        TypeSet::BOOLEAN => [Value::Bool(true), Value::Bool(false)].into_iter().find(ok),
        TypeSet::INTEGER => {
            let lo = c.lo.map(|b| if b.strict { b.v.floor() + 1.0 } else { b.v.ceil() });
            let hi = c.hi.map(|b| if b.strict { b.v.ceil() - 1.0 } else { b.v.floor() });
            let mut x = lo.unwrap_or_else(|| hi.map_or(0.0, |h| h.min(0.0)));
            if let Some(m) = c.multiple_of.iter().find(|m| m.fract() == 0.0) {
                x = (x / m).ceil() * m;
            }
            if hi.is_some_and(|h| x > h) || x.abs() > 9.0e15 {
                return None;
            }
            #[allow(clippy::cast_possible_truncation)] // Checked to be an integer within 2^53 above.
            Some(json!(x as i64)).filter(ok)
        }
        TypeSet::FRACTION => {
            let x = match (c.lo, c.hi) {
                (Some(l), Some(h)) => f64::midpoint(l.v, h.v),
                (Some(l), None) => l.v + 0.5,
                (None, Some(h)) => h.v - 0.5,
                (None, None) => 0.5,
            };
            let x = if x.fract() == 0.0 { x + 0.5 } else { x };
            serde_json::Number::from_f64(x).map(Value::Number).filter(ok)
        }
        TypeSet::STRING => {
            let yes: Vec<&str> = c.patterns.iter().map(|(p, _)| *p).collect();
            let found = if yes.is_empty() {
                // No pattern: the shortest string is `min_len` letters.
                usize::try_from(c.min_len)
                    .map(|n| Some("a".repeat(n)))
                    .map_err(|_| crate::schema::pattern::Unsupported::TooLarge)
            } else {
                crate::schema::pattern::find(&yes, &[], c.min_len, c.max_len)
            };
            let s = match found {
                Ok(Some(s)) => s,
                Ok(None) => return None,
                Err(_) => "a".repeat(usize::try_from(c.min_len.min(4_096)).ok()?),
            };
            Some(Value::String(s)).filter(ok)
        }
        TypeSet::ARRAY => {
            let n = usize::try_from(c.min_items.min(64)).ok()?;
            let mut items = Vec::new();
            for i in 0..n {
                items.push(position(root, c, i, cx, depth));
            }
            for (s, min, _) in &c.contains {
                if *min > 0 && items.len() < 64 {
                    let v = instances(root, std::slice::from_ref(s), cx, depth + 1)
                        .into_iter()
                        .next()
                        .unwrap_or(Value::Null);
                    if items.is_empty() {
                        items.push(v);
                    } else {
                        items[0] = v;
                    }
                }
            }
            Some(Value::Array(items))
        }
        TypeSet::OBJECT => {
            let mut o = Map::new();
            for r in &c.required {
                o.insert((*r).to_owned(), named(root, c, r, cx, depth));
            }
            let mut i = 0;
            while (o.len() as u64) < c.min_props.min(64) {
                let k = format!("p{i}");
                let v = named(root, c, &k, cx, depth);
                o.insert(k, v);
                i += 1;
            }
            Some(Value::Object(o))
        }
        _ => None,
    }
}

fn position(root: &Value, c: &Conj<'_>, i: usize, cx: &mut Cx, depth: usize) -> Value {
    let here: Vec<S<'_>> = c.tuples.iter().filter_map(|(p, r)| p.get(i).cloned().or_else(|| r.clone())).collect();
    instances(root, &here, cx, depth + 1).into_iter().next().unwrap_or(Value::Null)
}

fn named(root: &Value, c: &Conj<'_>, name: &str, cx: &mut Cx, depth: usize) -> Value {
    let mut m = |p: &str, s: &str| cx.matches(p, s);
    let here = for_name(c, name, &mut m).unwrap_or_default();
    instances(root, &here, cx, depth + 1).into_iter().next().unwrap_or(Value::Null)
}

struct Walk<'a, 'j, 's> {
    sub_root: &'a Value,
    sup_root: &'a Value,
    base: Value,
    judge: &'j mut Judge<'s>,
    found: Option<Verdict>,
}

const TYPES: [TypeSet; 7] = [
    TypeSet::NULL,
    TypeSet::BOOLEAN,
    TypeSet::OBJECT,
    TypeSet::ARRAY,
    TypeSet::STRING,
    TypeSet::INTEGER,
    TypeSet::FRACTION,
];

/// Names tried for a property `sup` may not allow.
const ODD_NAMES: [&str; 6] = ["x", "extra", "0", "A", "", "-"];

impl<'a> Walk<'a, '_, '_> {
    /// Tries `local` at `path`; `true` once a witness is found or the candidate budget is spent.
    fn try_at(&mut self, path: &[Seg], local: Value, cx: &Cx) -> bool {
        if self.found.is_some() || self.judge.tried >= MAX_CANDIDATES {
            return true;
        }
        let mut inst = self.base.clone();
        embed(&mut inst, path, local);
        if let Some(v) = self.judge.check(&inst, &cx.limits) {
            self.found = Some(v);
            return true;
        }
        false
    }

    #[allow(clippy::too_many_lines)] // One block per kind of violation.
    fn walk(&mut self, path: &mut Vec<Seg>, sub: &[S<'a>], sup: &[S<'a>], cx: &mut Cx, depth: usize) {
        if depth > cx.limits.depth.min(GEN_DEPTH) || self.found.is_some() || self.judge.tried >= MAX_CANDIDATES {
            return;
        }
        let Ok(a) = dnf(self.sub_root, sub, Side::Sub, cx) else { return };
        let Ok(b) = dnf(self.sup_root, sup, Side::Sup, cx) else { return };
        let mut locals: Vec<Value> = Vec::new();
        for ac in a.iter().take(PER_LOCATION) {
            if let Some(vals) = &ac.values {
                locals.extend(vals.iter().take(64).map(|v| (*v).clone()));
                continue;
            }
            let sup_types = b.iter().fold(TypeSet::EMPTY, |t, c| t.union(c.types));
            for t in TYPES {
                if ac.types.contains(t)
                    && (!sup_types.contains(t) || b.iter().any(|c| c.values.is_some()))
                    && let Some(v) = typed(self.sub_root, ac, t, cx, depth)
                {
                    locals.push(v);
                }
            }
            if let Some(v) = first_of(self.sub_root, ac, cx, depth) {
                locals.push(v);
            }
            for bc in b.iter().take(PER_LOCATION) {
                violations(self.sub_root, self.sup_root, ac, bc, cx, depth, &mut locals);
            }
        }
        for bc in b.iter().take(PER_LOCATION) {
            locals.extend(bc.excluded.iter().take(64).map(|v| (*v).clone()));
        }
        for v in locals {
            if self.try_at(path, v, cx) {
                return;
            }
        }
        // Children: every name either side declares, and the first positions of arrays.
        // The names `sup` constrains come first (a name only `sup` declares is where an old value of
        // any type meets a new constraint), then the rest, each once, at most 256.
        let mut names: Vec<&str> = Vec::new();
        let mut k = 0;
        for c in b.iter().take(PER_LOCATION).chain(a.iter().take(PER_LOCATION)) {
            names.extend(c.objs.iter().flat_map(|o| o.props.iter().map(|(n, _)| *n)));
            names.extend(c.required.iter().copied());
            k = k.max(c.tuples.iter().map(|(p, _)| p.len()).max().unwrap_or(0));
        }
        let mut seen = std::collections::HashSet::new();
        names.retain(|n| seen.insert(*n));
        for n in names.into_iter().take(256) {
            let (mut sn, mut bn) = (Vec::new(), Vec::new());
            for ac in a.iter().take(PER_LOCATION) {
                let mut m = |p: &str, s: &str| cx.matches(p, s);
                sn.extend(for_name(ac, n, &mut m).unwrap_or_default());
            }
            if a.len() > 1 {
                sn.truncate(0);
                if let Some(ac) = a.first() {
                    let mut m = |p: &str, s: &str| cx.matches(p, s);
                    sn = for_name(ac, n, &mut m).unwrap_or_default();
                }
            }
            for bc in b.iter().take(PER_LOCATION) {
                let mut m = |p: &str, s: &str| cx.matches(p, s);
                bn = for_name(bc, n, &mut m).unwrap_or_default();
                if !bn.is_empty() {
                    break;
                }
            }
            if bn.is_empty() {
                continue;
            }
            path.push(Seg::Key(n.to_owned()));
            self.walk(path, &sn, &bn, cx, depth + 1);
            path.pop();
        }
        if let (Some(ac), Some(bc)) = (a.first(), b.first()) {
            for i in 0..=k.min(8) {
                let at = |c: &Conj<'a>| -> Vec<S<'a>> {
                    c.tuples.iter().filter_map(|(p, r)| p.get(i).cloned().or_else(|| r.clone())).collect()
                };
                let (si, bi) = (at(ac), at(bc));
                if bi.is_empty() {
                    continue;
                }
                path.push(Seg::Index(i));
                self.walk(path, &si, &bi, cx, depth + 1);
                path.pop();
            }
        }
    }
}

/// Values of `a` at one location pushed to violate the constraints of `b`.
#[allow(clippy::too_many_lines)] // One block per keyword.
fn violations(
    sub_root: &Value,
    sup_root: &Value,
    a: &Conj<'_>,
    b: &Conj<'_>,
    cx: &mut Cx,
    depth: usize,
    out: &mut Vec<Value>,
) {
    // Strings.
    if a.types.contains(TypeSet::STRING) {
        let mut lens = vec![a.min_len];
        lens.extend(b.max_len.map(|m| m + 1));
        lens.extend(b.min_len.checked_sub(1));
        for n in lens {
            if n <= 1 << 16 && a.max_len.is_none_or(|m| n <= m) && n >= a.min_len && cx.build(n) {
                out.push(Value::String("a".repeat(usize::try_from(n).unwrap_or(0))));
            }
        }
        let yes: Vec<&str> = a.patterns.iter().map(|(p, _)| *p).collect();
        for (p, _) in &b.patterns {
            if let Ok(Some(s)) = crate::schema::pattern::find(&yes, &[p], a.min_len, a.max_len) {
                out.push(Value::String(s));
            }
        }
        for s in ["", "0", "A", " ", "-"] {
            out.push(Value::String(s.to_owned()));
        }
    }
    // Numbers.
    if a.types.intersects(TypeSet::NUMBER) {
        let mut xs: Vec<f64> = vec![0.0, -1.0, 1.0, 0.5, -0.5, 1e9, -1e9];
        for bd in [b.lo, b.hi, a.lo, a.hi].into_iter().flatten() {
            xs.extend([bd.v, bd.v - 1.0, bd.v + 1.0, bd.v - 0.5, bd.v + 0.5, bd.v.floor(), bd.v.ceil()]);
        }
        for m in &b.multiple_of {
            xs.extend([m * 0.5, m * 1.5, m + 1.0]);
        }
        for m in &a.multiple_of {
            xs.extend([*m, m * 3.0, -m]);
        }
        for x in xs {
            if !x.is_finite() {
                continue;
            }
            #[allow(clippy::cast_possible_truncation)] // Only integers within 2^53.
            let v = if x.fract() == 0.0 && x.abs() < 9.0e15 { json!(x as i64) } else { json!(x) };
            out.push(v);
        }
    }
    // Arrays.
    if a.types.contains(TypeSet::ARRAY) {
        let item = position(sub_root, a, 0, cx, depth);
        let mut lens = vec![0u64, 1, 2];
        lens.extend(b.max_items.map(|m| m + 1));
        lens.extend(b.min_items.checked_sub(1));
        for n in lens {
            if n <= 1_024 {
                let items: Vec<Value> = (0..usize::try_from(n).unwrap_or(0))
                    .map(|i| if i < 8 { position(sub_root, a, i, cx, depth) } else { item.clone() })
                    .collect();
                out.push(Value::Array(items));
            }
        }
        if b.unique {
            out.push(Value::Array(vec![item.clone(), item.clone()]));
        }
        // One past the longest tuple of either side.
        let k = a.tuples.iter().chain(&b.tuples).map(|(p, _)| p.len()).max().unwrap_or(0);
        if k > 0 && k < 64 {
            out.push(Value::Array((0..=k).map(|i| position(sub_root, a, i, cx, depth)).collect()));
        }
        // Each type `contains` admits, alone.
        for (s, _, _) in &a.contains {
            let Ok(d) = dnf(sub_root, std::slice::from_ref(s), Side::Sub, cx) else { continue };
            for c in d.iter().take(PER_LOCATION) {
                for t in TYPES {
                    if c.types.contains(t)
                        && let Some(v) = typed(sub_root, c, t, cx, depth + 1)
                    {
                        out.push(Value::Array(vec![v]));
                    }
                }
            }
        }
    }
    // Objects.
    if a.types.contains(TypeSet::OBJECT)
        && let Some(Value::Object(base)) = typed(sub_root, a, TypeSet::OBJECT, cx, depth)
    {
        out.push(Value::Object(base.clone()));
        for r in &b.required {
            let mut o = base.clone();
            if o.remove(*r).is_some() {
                out.push(Value::Object(o));
            }
        }
        let mut extra: Vec<String> = ODD_NAMES.iter().map(|s| (*s).to_owned()).collect();
        extra.extend(a.objs.iter().flat_map(|o| o.props.iter().map(|(n, _)| (*n).to_owned())).take(64));
        extra.extend(b.dep_required.iter().map(|(k, _)| (*k).to_owned()));
        for o in a.objs.iter().chain(&b.objs) {
            extra.extend(o.patterns.iter().take(16).map(|(p, _)| literal_prefix(p)));
        }
        extra.extend(b.dep_schemas.iter().map(|(k, _)| (*k).to_owned()));
        if let Some(m) = b.max_props.filter(|m| *m < 64) {
            let mut o = base.clone();
            let mut i = 0;
            while o.len() as u64 <= m {
                let k = format!("p{i}");
                let v = named(sub_root, a, &k, cx, depth);
                o.insert(k, v);
                i += 1;
            }
            out.push(Value::Object(o));
        }
        // A few entries suffice for a witness; each one builds an object of its closure.
        for (k, deps) in
            b.dep_required.iter().take(if a.dep_required.len() > super::include::MAX_DEPENDENCIES { 0 } else { 16 })
        {
            let present = super::include::closure(a, k);
            if let Some(missing) = deps.iter().find(|d| !present.contains(d)) {
                let mut o = base.clone();
                for n in present.iter().filter(|n| *n != missing) {
                    if !o.contains_key(*n) {
                        let v = named(sub_root, a, n, cx, depth);
                        o.insert((*n).to_owned(), v);
                    }
                }
                o.remove(*missing);
                out.push(Value::Object(o));
            }
        }
        for n in extra {
            if base.contains_key(&n) {
                continue;
            }
            let mut o = base.clone();
            let v = named(sub_root, a, &n, cx, depth);
            o.insert(n, v);
            out.push(Value::Object(o));
        }
    }
    // `not` and `if` of `sup`: their own instances, merged into an instance of `a`.
    let mine = first_of(sub_root, a, cx, depth);
    let mut theirs: Vec<Value> = Vec::new();
    for n in &b.nots {
        theirs.extend(instances(sup_root, std::slice::from_ref(n), cx, depth));
    }
    for (i, t, e) in &b.conds {
        theirs.extend(instances(sup_root, std::slice::from_ref(i), cx, depth));
        // A value of `a` pushed to violate a branch: the validator tells whether that branch applies.
        nested(sub_root, sup_root, a, t.iter().chain(e), cx, depth, out);
    }
    for o in b.opaque.iter().filter(|o| o.keyword == "oneOf") {
        if let Value::Array(branches) = o.value {
            let all: Vec<S<'_>> =
                branches.iter().enumerate().map(|(i, x)| S::new(x, format!("{}/oneOf/{i}", o.holder.at))).collect();
            for br in &all {
                theirs.extend(instances(sup_root, std::slice::from_ref(br), cx, depth));
            }
            nested(sub_root, sup_root, a, all.iter(), cx, depth, out);
        }
    }
    for t in theirs {
        if let Some(m) = &mine {
            out.push(merge(m, &t));
        }
        out.push(t);
    }
}

/// Violations of each `sup` node of `nodes`, at the same location (nested at most a few levels).
fn nested<'n>(
    sub_root: &Value,
    sup_root: &'n Value,
    a: &Conj<'_>,
    nodes: impl Iterator<Item = &'n S<'n>>,
    cx: &mut Cx,
    depth: usize,
    out: &mut Vec<Value>,
) {
    if depth > GEN_DEPTH || out.len() > MAX_CANDIDATES {
        return;
    }
    for n in nodes {
        let Ok(d) = dnf(sup_root, std::slice::from_ref(n), Side::Sup, cx) else { continue };
        for bc in d.iter().take(PER_LOCATION) {
            violations(sub_root, sup_root, a, bc, cx, depth + 4, out);
        }
    }
}

/// The literal text a pattern starts with (after `^`), plus one letter: a name it likely matches.
fn literal_prefix(p: &str) -> String {
    let mut out: String = p
        .trim_start_matches('^')
        .chars()
        .take_while(|c| c.is_alphanumeric() || "-_:.@ ".contains(*c))
        .take(64)
        .collect();
    out.push('a');
    out
}

/// `b` over `a`: objects merged key by key, anything else replaced.
fn merge(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut o = x.clone();
            for (k, v) in y {
                let nv = o.get(k).map_or_else(|| v.clone(), |old| merge(old, v));
                o.insert(k.clone(), nv);
            }
            Value::Object(o)
        }
        _ => b.clone(),
    }
}

/// Puts `local` at `path` in `inst`, creating containers on the way.
fn embed(inst: &mut Value, path: &[Seg], local: Value) {
    let Some((first, rest)) = path.split_first() else {
        *inst = local;
        return;
    };
    match first {
        Seg::Key(k) => {
            if !inst.is_object() {
                *inst = Value::Object(Map::new());
            }
            if let Value::Object(o) = inst {
                let slot = o.entry(k.clone()).or_insert(Value::Null);
                embed(slot, rest, local);
            }
        }
        Seg::Index(i) => {
            if !inst.is_array() {
                *inst = Value::Array(Vec::new());
            }
            if let Value::Array(a) = inst {
                while a.len() <= *i {
                    let fill = a.last().cloned().unwrap_or(Value::Null);
                    a.push(fill);
                }
                embed(&mut a[*i], rest, local);
            }
        }
    }
}
