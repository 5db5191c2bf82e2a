//! The proof of inclusion `sub ⊆ sup` on the normal form ([`super::nf`]), sound only.
//!
//! Takes both documents and a [`Cx`]; returns `Ok(())` only when every instance of `sub` is proven to
//! be accepted by `sup`, else the [`Block`] that stopped the proof (keyword, pointer, reason; the
//! pointer is into `sup` unless the reason says `sub`). Each `sub` disjunct is split by JSON type and
//! must fit one `sup` disjunct of that type; finite parts (`enum`, `const`, `null`, booleans) are
//! checked value by value with [`eval`], an evaluator exact for the modelled keywords. Children are
//! compared position by position (array positions over the feasible lengths) and name by name (every
//! name either side declares, then the rest by `patternProperties`/`additionalProperties`).
//!
//! `$ref` pairs are memoized: a (sub nodes, sup node) pair met again deeper in the instance is assumed
//! to hold (coinduction, sound because the recursion went through an instance step); met again at the
//! same instance depth it is not assumed, and the depth limit stops it. A `sup` keyword the form does
//! not model blocks unless `sub` carries it identically (reference-free), and for `unevaluated*` only
//! when the whole enclosing subschema is identical.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::nf::{Bound, Conj, S, Side, dnf, feasible, for_name};
use super::{Block, Cx};
use crate::schema::{TypeSet, contains_ref, json_eq};

static TRUE: Value = Value::Bool(true);
/// `dependentRequired` entries compared per object (each entry's closure is linear in them).
pub const MAX_DEPENDENCIES: usize = 512;
/// The schema of every property name.
static ANY_NAME: std::sync::OnceLock<Value> = std::sync::OnceLock::new();

/// Proves that every instance of the document `sub` is accepted by the document `sup`.
///
/// # Errors
/// The [`Block`] that stopped the proof.
pub fn prove(sub: &Value, sup: &Value, cx: &mut Cx) -> Result<(), Block> {
    let mut p =
        Prover { sub_root: sub, sup_root: sup, stack: HashMap::new(), proven: HashSet::new(), frames: 0, assumed: 0 };
    p.incl(&[S::new(sub, String::new())], &S::new(sup, String::new()), 0, cx)
}

pub(super) struct Prover<'a> {
    pub(super) sub_root: &'a Value,
    pub(super) sup_root: &'a Value,
    /// Pairs being proven, with the instance depth they were entered at.
    pub(super) stack: HashMap<String, usize>,
    pub(super) proven: HashSet<String>,
    /// Nested `incl` calls (same-level steps such as a `$ref` chain on the `sup` side included).
    pub(super) frames: usize,
    /// Times a pair on the stack was assumed to hold.
    pub(super) assumed: usize,
}

pub(super) fn same(a: &Value, b: &Value) -> bool {
    json_eq(a, b) && !contains_ref(a)
}

fn sup_block(keyword: &str, at: &str, why: &str) -> Block {
    Block::new(keyword, at, format!("in `sup`: {why}"))
}

/// The types one conjunct may take (its values' types when it has `enum`/`const`).
pub(super) fn types_of(c: &Conj<'_>) -> TypeSet {
    match &c.values {
        Some(v) => v.iter().fold(TypeSet::EMPTY, |t, v| t.union(TypeSet::of(v))).intersect(c.types),
        None => c.types,
    }
}

impl<'a> Prover<'a> {
    /// The conjunction of `sub` (nodes of the `sub` document) is included in `sup`.
    fn incl(&mut self, sub: &[S<'a>], sup: &S<'a>, inst: usize, cx: &mut Cx) -> Result<(), Block> {
        cx.step(&sup.at)?;
        if sup.v == &TRUE || sup.v.as_object().is_some_and(serde_json::Map::is_empty) {
            return Ok(());
        }
        if sub.iter().any(|s| same(s.v, sup.v) || s.v == &Value::Bool(false)) {
            return Ok(());
        }
        if inst > cx.limits.depth {
            return Err(sup_block(
                "depth",
                &sup.at,
                &format!("the instance nests deeper than {} (limit `depth`)", cx.limits.depth),
            ));
        }
        let mut key: String = sub.iter().map(|s| s.at.as_str()).collect::<Vec<_>>().join("\u{0}");
        key.push('\u{1}');
        key.push_str(&sup.at);
        if self.proven.contains(&key) {
            return Ok(());
        }
        if let Some(&d) = self.stack.get(&key) {
            if d < inst {
                self.assumed += 1;
                return Ok(());
            }
            return Err(sup_block("$ref", &sup.at, "the same subschemas recur without a step into the instance"));
        }
        if self.frames > 4 * cx.limits.depth {
            return Err(sup_block(
                "depth",
                &sup.at,
                &format!("the proof nests deeper than {} steps (limit `depth`)", 4 * cx.limits.depth),
            ));
        }
        self.stack.insert(key.clone(), inst);
        self.frames += 1;
        let assumed = self.assumed;
        let r = self.structural(sub, sup, inst, cx);
        self.frames -= 1;
        self.stack.remove(&key);
        // Only a result that rested on no assumption is kept: one proven while assuming a pair that
        // later fails (inside an `anyOf` branch tried and dropped) would otherwise be reused.
        if r.is_ok() && self.assumed == assumed {
            self.proven.insert(key);
        }
        r
    }

    /// Exact structural steps before the normal form, so that a subschema moved behind `$ref` or into
    /// an `allOf`/`anyOf` is still recognised as identical: a pure `allOf`/`$ref` on the `sub` side is
    /// replaced by its members, a pure `anyOf` there is split (each branch must be included), a pure
    /// `allOf`/`$ref` on the `sup` side must include `sub` member by member, and a pure `anyOf` there
    /// is satisfied by one branch that includes `sub`.
    fn structural(&mut self, sub: &[S<'a>], sup: &S<'a>, inst: usize, cx: &mut Cx) -> Result<(), Block> {
        let mut flat: Vec<S<'a>> = Vec::new();
        let mut todo: Vec<(S<'a>, usize)> = sub.iter().rev().map(|s| (s.clone(), 0)).collect();
        while let Some((s, hops)) = todo.pop() {
            cx.step(&s.at)?;
            match pure(&s, self.sub_root) {
                Some(Pure::All(members)) if hops < cx.limits.depth => {
                    todo.extend(members.into_iter().rev().map(|m| (m, hops + 1)));
                }
                _ => flat.push(s),
            }
        }
        if flat.iter().any(|s| same(s.v, sup.v) || s.v == &Value::Bool(false)) {
            return Ok(());
        }
        if let Some(i) = flat.iter().position(|s| matches!(pure(s, self.sub_root), Some(Pure::Any(_)))) {
            let Some(Pure::Any(branches)) = pure(&flat[i], self.sub_root) else {
                return self.incl_now(&flat, sup, inst, cx);
            };
            for b in branches {
                let mut next = flat.clone();
                next[i] = b;
                self.incl(&next, sup, inst, cx)?;
            }
            return Ok(());
        }
        match pure(sup, self.sup_root) {
            Some(Pure::All(members)) => {
                for m in &members {
                    self.incl(&flat, m, inst, cx)?;
                }
                Ok(())
            }
            Some(Pure::Any(branches)) => {
                for b in &branches {
                    if self.try_incl(&flat, b, inst, cx)? {
                        return Ok(());
                    }
                }
                self.incl_now(&flat, sup, inst, cx)
            }
            None => self.incl_now(&flat, sup, inst, cx),
        }
    }

    fn incl_now(&mut self, sub: &[S<'a>], sup: &S<'a>, inst: usize, cx: &mut Cx) -> Result<(), Block> {
        let a = dnf(self.sub_root, sub, Side::Sub, cx)?;
        if a.is_empty() {
            return Ok(());
        }
        let b = dnf(self.sup_root, std::slice::from_ref(sup), Side::Sup, cx)?;
        for c in &a {
            self.conj_in(c, &b, sup, inst, cx)?;
        }
        Ok(())
    }

    /// One `sub` conjunct is included in the disjunction `b`.
    fn conj_in(&mut self, a: &Conj<'a>, b: &[Conj<'a>], sup: &S<'a>, inst: usize, cx: &mut Cx) -> Result<(), Block> {
        if !feasible(a) {
            return Ok(());
        }
        if let Some(vals) = &a.values {
            for v in vals {
                if !a.types.admits(v) || a.excluded.iter().any(|x| json_eq(x, v)) {
                    continue;
                }
                if self.eval_any(v, b, inst, cx)? != Some(true) {
                    return Err(sup_block(
                        "enum",
                        &sup.at,
                        &format!("the `sub` value {} is not shown to be accepted", short(v)),
                    ));
                }
            }
            return Ok(());
        }
        for t in [TypeSet::NULL, TypeSet::BOOLEAN] {
            if a.types.contains(t) {
                let vals: &[Value] =
                    if t == TypeSet::NULL { &[Value::Null] } else { &[Value::Bool(true), Value::Bool(false)] };
                for v in vals {
                    if !a.excluded.iter().any(|x| json_eq(x, v)) && self.eval_any(v, b, inst, cx)? != Some(true) {
                        return Err(sup_block("type", &sup.at, &format!("{} is not shown to be accepted", short(v))));
                    }
                }
            }
        }
        for t in [TypeSet::OBJECT, TypeSet::ARRAY, TypeSet::STRING, TypeSet::INTEGER, TypeSet::FRACTION] {
            if !a.types.contains(t) || empty_for(a, t) {
                continue;
            }
            let mut first: Option<Block> = None;
            let mut done = false;
            for bi in b.iter().filter(|bi| types_of(bi).contains(t)) {
                if bi.values.is_some() {
                    first.get_or_insert_with(|| {
                        sup_block(
                            "enum",
                            &sup.at,
                            &format!(
                                "a finite set of values, but `sub` admits unboundedly many of type {}",
                                t.describe()
                            ),
                        )
                    });
                    continue;
                }
                match self.type_in(a, bi, t, inst, cx) {
                    Ok(()) => {
                        done = true;
                        break;
                    }
                    Err(e) if e.keyword == "steps" => return Err(e),
                    Err(e) => {
                        first.get_or_insert(e);
                    }
                }
            }
            if !done {
                return Err(first.unwrap_or_else(|| {
                    sup_block("type", &sup.at, &format!("no branch admits the type {} that `sub` admits", t.describe()))
                }));
            }
        }
        Ok(())
    }

    /// `a` restricted to the type `t` is included in the conjunct `b`.
    fn type_in(&mut self, a: &Conj<'a>, b: &Conj<'a>, t: TypeSet, inst: usize, cx: &mut Cx) -> Result<(), Block> {
        let at = b.nodes.first().map_or(String::new(), |n| n.at.clone());
        for x in &b.excluded {
            if TypeSet::of(x).intersects(t) && self.eval_conj(x, a, inst, cx)? != Some(false) {
                return Err(sup_block(
                    "not",
                    &at,
                    &format!("excludes {}, which `sub` is not shown to exclude", short(x)),
                ));
            }
        }
        for o in b.opaque.iter().filter(|o| super::unevaluated::applies(&o.keyword, t)) {
            let matched = a.nodes.iter().any(|n| same(n.v, o.holder.v))
                || (!o.keyword.starts_with("unevaluated")
                    && a.opaque.iter().any(|p| p.keyword == o.keyword && same(p.value, o.value)));
            if !matched {
                return Err(sup_block(
                    &o.keyword,
                    &o.holder.at,
                    &format!("`{}` is not modelled and `sub` does not carry it identically", o.keyword),
                ));
            }
        }
        for n in &b.nots {
            if !self.disjoint_from(a, n, inst, cx)? {
                return Err(sup_block("not", &n.at, "`sub` is not shown to exclude what this `not` forbids"));
            }
        }
        for (i, th, el) in &b.conds {
            let th = th.clone().unwrap_or_else(|| S::new(&TRUE, i.at.clone()));
            let el = el.clone().unwrap_or_else(|| S::new(&TRUE, i.at.clone()));
            let ok = (self.try_incl(&a.nodes, i, inst, cx)? && self.try_incl(&a.nodes, &th, inst, cx)?)
                || (self.disjoint_from(a, i, inst, cx)? && self.try_incl(&a.nodes, &el, inst, cx)?)
                || (self.try_incl(&a.nodes, &th, inst, cx)? && self.try_incl(&a.nodes, &el, inst, cx)?);
            if !ok {
                return Err(sup_block(
                    "if",
                    &i.at,
                    "`sub` is shown neither inside `if` and `then`, nor outside `if` and inside `else`, nor inside both branches",
                ));
            }
        }
        match t {
            TypeSet::STRING => Self::string_in(a, b, &at),
            TypeSet::INTEGER | TypeSet::FRACTION => num_in(a, b, t, &at),
            TypeSet::ARRAY => self.array_in(a, b, &at, inst, cx),
            TypeSet::OBJECT => self.object_in(a, b, &at, inst, cx),
            _ => Ok(()),
        }
    }

    pub(super) fn try_incl(&mut self, sub: &[S<'a>], sup: &S<'a>, inst: usize, cx: &mut Cx) -> Result<bool, Block> {
        match self.incl(sub, sup, inst, cx) {
            Ok(()) => Ok(true),
            Err(e) if e.keyword == "steps" => Err(e),
            Err(_) => Ok(false),
        }
    }

    fn string_in(a: &Conj<'a>, b: &Conj<'a>, at: &str) -> Result<(), Block> {
        if a.min_len < b.min_len {
            return Err(sup_block(
                "minLength",
                at,
                &format!("requires at least {} characters; `sub` allows {}", b.min_len, a.min_len),
            ));
        }
        if let Some(m) = b.max_len
            && a.max_len.is_none_or(|x| x > m)
        {
            return Err(sup_block("maxLength", at, &format!("allows at most {m} characters; `sub` allows more")));
        }
        for (p, pat) in &b.patterns {
            let subs: Vec<&str> = a.patterns.iter().map(|(q, _)| *q).collect();
            match crate::schema::pattern::subset(&subs, p) {
                Ok(true) => {}
                Ok(false) => return Err(sup_block("pattern", pat, "`sub` admits strings this pattern rejects")),
                Err(e) => return Err(sup_block("pattern", pat, &format!("pattern inclusion is not decided ({e:?})"))),
            }
        }
        Ok(())
    }

    fn array_in(&mut self, a: &Conj<'a>, b: &Conj<'a>, at: &str, inst: usize, cx: &mut Cx) -> Result<(), Block> {
        let closed = a.tuples.iter().filter(|(_, r)| r.as_ref().is_some_and(|r| r.v == &Value::Bool(false)));
        let a_max = closed.map(|(p, _)| p.len() as u64).chain(a.max_items).min();
        if a_max.is_some_and(|m| m < a.min_items) {
            return Ok(());
        }
        if a.min_items < b.min_items {
            return Err(sup_block(
                "minItems",
                at,
                &format!("requires at least {} items; `sub` allows {}", b.min_items, a.min_items),
            ));
        }
        if let Some(m) = b.max_items
            && a_max.is_none_or(|x| x > m)
        {
            return Err(sup_block("maxItems", at, &format!("allows at most {m} items; `sub` allows more")));
        }
        if b.unique && !a.unique && a_max.is_none_or(|m| m > 1) {
            return Err(sup_block("uniqueItems", at, "requires unique items; `sub` allows duplicates"));
        }
        for (s, min, max) in &b.contains {
            if *min == 0 && max.is_none() {
                continue;
            }
            let mut ok = false;
            for (s2, min2, max2) in &a.contains {
                let counts = min2 >= min && max.is_none_or(|m| max2.is_some_and(|m2| m2 <= m));
                if counts
                    && (same(s2.v, s.v)
                        || (max.is_none() && self.try_incl(std::slice::from_ref(s2), s, inst + 1, cx)?))
                {
                    ok = true;
                    break;
                }
            }
            if !ok {
                return Err(sup_block("contains", &s.at, "`sub` is not shown to contain what this requires"));
            }
        }
        let k = a.tuples.iter().chain(&b.tuples).map(|(p, _)| p.len()).max().unwrap_or(0);
        let at_pos = |c: &Conj<'a>, i: usize| -> Vec<S<'a>> {
            c.tuples.iter().filter_map(|(p, r)| if i < p.len() { Some(p[i].clone()) } else { r.clone() }).collect()
        };
        for i in 0..=k {
            if a_max.is_some_and(|m| i as u64 >= m) {
                break;
            }
            let ai = at_pos(a, i);
            if ai.iter().any(|s| s.v == &Value::Bool(false)) {
                break;
            }
            for s in at_pos(b, i) {
                self.incl(&ai, &s, inst + 1, cx)?;
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_lines)] // The object keywords, one block each.
    fn object_in(&mut self, a: &Conj<'a>, b: &Conj<'a>, at: &str, inst: usize, cx: &mut Cx) -> Result<(), Block> {
        let mut matches = |p: &str, n: &str| cx.matches(p, n);
        let mut names: Vec<&str> = Vec::new();
        for c in [a, b] {
            names.extend(c.objs.iter().flat_map(|o| o.props.iter().map(|(n, _)| *n)));
            names.extend(c.required.iter().copied());
            names.extend(c.dep_required.iter().map(|(n, _)| *n));
            names.extend(c.dep_schemas.iter().map(|(n, _)| *n));
        }
        names.sort_unstable();
        names.dedup();
        let mut allowed: HashMap<&str, Vec<S<'a>>> = HashMap::new();
        for n in &names {
            let an = for_name(a, n, &mut matches).ok_or_else(|| {
                Block::new(
                    "patternProperties",
                    at,
                    format!(
                        "in `sub`: a pattern does not compile to match `{}`",
                        short(&Value::String((*n).to_owned()))
                    ),
                )
            })?;
            allowed.insert(n, an);
        }
        let impossible = |n: &str, allowed: &HashMap<&str, Vec<S<'a>>>| {
            allowed.get(n).is_some_and(|v| v.iter().any(|s| s.v == &Value::Bool(false)))
        };
        if a.required.iter().any(|r| impossible(r, &allowed)) {
            return Ok(());
        }
        for r in &b.required {
            if !a.required.contains(r) {
                return Err(sup_block(
                    "required",
                    at,
                    &format!("requires `{}`, which `sub` does not", short(&Value::String((*r).to_owned()))),
                ));
            }
        }
        let a_min = a.min_props.max(a.required.len() as u64);
        if a_min < b.min_props {
            return Err(sup_block(
                "minProperties",
                at,
                &format!("requires at least {} properties; `sub` allows {a_min}", b.min_props),
            ));
        }
        // Names `sub` allows, when it closes its objects to the names it lists.
        let closed: Option<Vec<&str>> = a
            .objs
            .iter()
            .find(|o| o.patterns.is_empty() && o.additional.as_ref().is_some_and(|s| s.v == &Value::Bool(false)))
            .map(|o| o.props.iter().map(|(n, _)| *n).filter(|n| !impossible(n, &allowed)).collect());
        if let Some(m) = b.max_props {
            let a_max = a.max_props.into_iter().chain(closed.as_ref().map(|c| c.len() as u64)).min();
            if a_max.is_none_or(|x| x > m) {
                return Err(sup_block(
                    "maxProperties",
                    at,
                    &format!("allows at most {m} properties; `sub` allows more"),
                ));
            }
        }
        for n in &names {
            if impossible(n, &allowed) || closed.as_ref().is_some_and(|c| !c.contains(n)) {
                continue;
            }
            let bn = for_name(b, n, &mut |p, s| cx.matches(p, s))
                .ok_or_else(|| sup_block("patternProperties", at, "a pattern does not compile"))?;
            let an = allowed[n].clone();
            for s in bn {
                self.incl(&an, &s, inst + 1, cx)?;
            }
        }
        if closed.is_none() {
            // Every other name: each `sup` pattern's schema and its `additionalProperties` must hold of
            // whatever `sub` lets such a name carry.
            let targets: Vec<S<'a>> = b
                .objs
                .iter()
                .flat_map(|o| o.patterns.iter().map(|(_, s)| s.clone()).chain(o.additional.clone()))
                .collect();
            // A name matching `p` carries every schema `sub` gives that same pattern (among others).
            let same_pattern = |p: &str| -> Vec<S<'a>> {
                a.objs.iter().flat_map(|o| &o.patterns).filter(|(q, _)| *q == p).map(|(_, s)| s.clone()).collect()
            };
            for o in &b.objs {
                for (p, sp) in &o.patterns {
                    let asp = same_pattern(p);
                    if !asp.is_empty() {
                        self.incl(&asp, sp, inst + 1, cx)?;
                    }
                }
            }
            for tgt in targets {
                if let Some((p, _)) = b.objs.iter().flat_map(|o| &o.patterns).find(|(_, s)| std::ptr::eq(s.v, tgt.v))
                    && !same_pattern(p).is_empty()
                {
                    continue;
                }
                // `sup`'s `additionalProperties`, when every pattern of a `sub` object is one of the
                // patterns of the `sup` object that holds it: a name that object leaves to its
                // `additionalProperties` matches none of that `sub` object's patterns either.
                if let Some(owner) =
                    b.objs.iter().find(|o| o.additional.as_ref().is_some_and(|s| std::ptr::eq(s.v, tgt.v)))
                {
                    let mut ok = false;
                    let own: Vec<&str> = owner.patterns.iter().map(|(p, _)| *p).collect();
                    for o in a.objs.iter().filter(|o| o.patterns.iter().all(|(q, _)| own.contains(q))) {
                        let rest = o.additional.clone().unwrap_or_else(|| S::new(&TRUE, String::new()));
                        if self.try_incl(std::slice::from_ref(&rest), &tgt, inst + 1, cx)? {
                            ok = true;
                            break;
                        }
                    }
                    if ok {
                        continue;
                    }
                }
                let mut ok = a.objs.is_empty() && self.try_incl(&[S::new(&TRUE, String::new())], &tgt, inst + 1, cx)?;
                for o in &a.objs {
                    if ok {
                        break;
                    }
                    let mut all = true;
                    let rest = o.additional.clone().unwrap_or_else(|| S::new(&TRUE, String::new()));
                    for s in o.patterns.iter().map(|(_, s)| s.clone()).chain([rest]) {
                        if !self.try_incl(std::slice::from_ref(&s), &tgt, inst + 1, cx)? {
                            all = false;
                            break;
                        }
                    }
                    ok = all;
                }
                if !ok {
                    return Err(sup_block(
                        "additionalProperties",
                        &tgt.at,
                        "`sub` allows other property names whose values this rejects",
                    ));
                }
            }
        }
        for pn in &b.names {
            if let Some(c) = &closed {
                let d = dnf(self.sup_root, std::slice::from_ref(pn), Side::Sup, cx)?;
                for n in c {
                    if self.eval_any(&Value::String((*n).to_owned()), &d, inst + 1, cx)? != Some(true) {
                        return Err(sup_block(
                            "propertyNames",
                            &pn.at,
                            &format!(
                                "rejects the name `{}`, which `sub` allows",
                                short(&Value::String((*n).to_owned()))
                            ),
                        ));
                    }
                }
            } else {
                // Every property name is a string: that is the name language of an object without
                // `propertyNames` (zod 4 spells out `propertyNames: {type: string}` for records).
                let any_name = ANY_NAME.get_or_init(|| serde_json::json!({"type": "string"}));
                let names: Vec<S<'a>> =
                    std::iter::once(S::new(any_name, String::new())).chain(a.names.iter().cloned()).collect();
                if !self.try_incl(&names, pn, inst + 1, cx)? {
                    return Err(sup_block("propertyNames", &pn.at, "`sub` allows names this is not shown to accept"));
                }
            }
        }
        if a.dep_required.len().max(b.dep_required.len()) > MAX_DEPENDENCIES {
            return Err(sup_block(
                "dependentRequired",
                at,
                &format!(
                    "more than {MAX_DEPENDENCIES} `dependentRequired` entries are not compared (limit `dependencies`)"
                ),
            ));
        }
        for (k, deps) in &b.dep_required {
            let present = closure(a, k);
            let ok = impossible(k, &allowed)
                || closed.as_ref().is_some_and(|c| !c.contains(k))
                || deps.iter().all(|d| present.contains(d));
            if !ok {
                return Err(sup_block(
                    "dependentRequired",
                    at,
                    &format!(
                        "`{}` requires properties `sub` does not require with it",
                        short(&Value::String((*k).to_owned()))
                    ),
                ));
            }
        }
        for (k, s) in &b.dep_schemas {
            let ok = impossible(k, &allowed)
                || closed.as_ref().is_some_and(|c| !c.contains(k))
                || a.dep_schemas.iter().any(|(k2, s2)| k2 == k && same(s2.v, s.v))
                || self.try_incl(&a.nodes, s, inst, cx)?;
            if !ok {
                return Err(sup_block(
                    "dependentSchemas",
                    &s.at,
                    "`sub` is not shown to satisfy this when the property is present",
                ));
            }
        }
        Ok(())
    }
}

enum Pure<'a> {
    /// Only `allOf` and/or `$ref` (and annotations): the conjunction of these.
    All(Vec<S<'a>>),
    /// Only `anyOf` (and annotations): the disjunction of these.
    Any(Vec<S<'a>>),
}

/// A schema object that is only a conjunction or only a disjunction of subschemas.
fn pure<'a>(s: &S<'a>, root: &'a Value) -> Option<Pure<'a>> {
    let Value::Object(m) = s.v else { return None };
    let structural = |k: &str| matches!(k, "allOf" | "$ref" | "anyOf");
    if !m.keys().all(|k| structural(k) || super::nf::annotation(k)) || m.keys().all(|k| !structural(k)) {
        return None;
    }
    let list = |k: &str| -> Option<Vec<S<'a>>> {
        match m.get(k) {
            Some(Value::Array(a)) => {
                Some(a.iter().enumerate().map(|(i, x)| S::new(x, format!("{}/{k}/{i}", s.at))).collect())
            }
            Some(_) => None,
            None => Some(Vec::new()),
        }
    };
    if m.contains_key("anyOf") {
        if m.len() != 1 && m.keys().any(|k| k == "allOf" || k == "$ref") {
            return None;
        }
        return list("anyOf").filter(|b| !b.is_empty()).map(Pure::Any);
    }
    let mut out = list("allOf")?;
    if let Some(r) = m.get("$ref") {
        let (ptr, t) = crate::schema::resolve(root, Some(m), r.as_str()?).ok()?;
        out.push(S::new(t, ptr));
    }
    Some(Pure::All(out))
}

/// The names an instance of `a` that has `k` certainly has: `k`, `required`, and the
/// `dependentRequired` closure.
#[must_use]
pub fn closure<'a>(a: &Conj<'a>, k: &'a str) -> Vec<&'a str> {
    let index: std::collections::HashMap<&str, &Vec<&'a str>> =
        a.dep_required.iter().map(|(key, d)| (*key, d)).collect();
    let mut seen: std::collections::HashSet<&'a str> = std::collections::HashSet::new();
    let mut out: Vec<&'a str> = Vec::new();
    let mut work: Vec<&'a str> = std::iter::once(k).chain(a.required.iter().copied()).collect();
    while let Some(n) = work.pop() {
        if seen.insert(n) {
            out.push(n);
            if let Some(deps) = index.get(n) {
                work.extend(deps.iter().copied());
            }
        }
    }
    out
}

/// `a` has no instance of type `t` (for the numeric types: an empty range, or integers only).
fn empty_for(a: &Conj<'_>, t: TypeSet) -> bool {
    match t {
        TypeSet::FRACTION => a.multiple_of.iter().any(|m| m.fract() == 0.0) || range(a.lo, a.hi).is_none(),
        TypeSet::INTEGER => int_range(a.lo, a.hi).is_none(),
        TypeSet::STRING => a.max_len.is_some_and(|m| m < a.min_len),
        TypeSet::OBJECT => a.max_props.is_some_and(|m| m < a.min_props.max(a.required.len() as u64)),
        TypeSet::ARRAY => a.max_items.is_some_and(|m| m < a.min_items),
        _ => false,
    }
}

/// `Some(())` when the real range may be non-empty.
fn range(lo: Option<Bound>, hi: Option<Bound>) -> Option<()> {
    match (lo, hi) {
        (Some(l), Some(h)) if l.v > h.v || (l.v == h.v && (l.strict || h.strict)) => None,
        _ => Some(()),
    }
}

/// The integer range of the bounds (`None` when empty); open ends are infinite.
fn int_range(lo: Option<Bound>, hi: Option<Bound>) -> Option<(f64, f64)> {
    let l = lo.map_or(f64::NEG_INFINITY, |b| if b.strict && b.v.fract() == 0.0 { b.v + 1.0 } else { b.v.ceil() });
    let h = hi.map_or(f64::INFINITY, |b| if b.strict && b.v.fract() == 0.0 { b.v - 1.0 } else { b.v.floor() });
    (l <= h).then_some((l, h))
}

fn num_in(a: &Conj<'_>, b: &Conj<'_>, t: TypeSet, at: &str) -> Result<(), Block> {
    let ok_lo = |bb: Option<Bound>| -> bool {
        let Some(bb) = bb else { return true };
        if t == TypeSet::INTEGER {
            let Some((l, _)) = int_range(a.lo, a.hi) else { return true };
            l > bb.v || (l == bb.v && !bb.strict)
        } else {
            a.lo.is_some_and(|al| al.v > bb.v || (al.v == bb.v && (al.strict || !bb.strict)))
        }
    };
    let ok_hi = |bb: Option<Bound>| -> bool {
        let Some(bb) = bb else { return true };
        if t == TypeSet::INTEGER {
            let Some((_, h)) = int_range(a.lo, a.hi) else { return true };
            h < bb.v || (h == bb.v && !bb.strict)
        } else {
            a.hi.is_some_and(|ah| ah.v < bb.v || (ah.v == bb.v && (ah.strict || !bb.strict)))
        }
    };
    if !ok_lo(b.lo) {
        let kw = if b.lo.is_some_and(|b| b.strict) { "exclusiveMinimum" } else { "minimum" };
        return Err(sup_block(kw, at, "has a lower bound that `sub` does not imply"));
    }
    if !ok_hi(b.hi) {
        let kw = if b.hi.is_some_and(|b| b.strict) { "exclusiveMaximum" } else { "maximum" };
        return Err(sup_block(kw, at, "has an upper bound that `sub` does not imply"));
    }
    for m in &b.multiple_of {
        let exact_int = |x: f64| x.fract() == 0.0 && x.abs() <= 9.007_199_254_740_992e15;
        let by_int = t == TypeSet::INTEGER && (*m == 1.0 || [0.5, 0.25, 0.125].contains(m));
        let by_a = a.multiple_of.iter().any(|k| k == m || (exact_int(*k) && exact_int(*m) && k % m == 0.0));
        if !by_int && !by_a {
            return Err(sup_block("multipleOf", at, &format!("requires multiples of {m}, which `sub` does not imply")));
        }
    }
    Ok(())
}

/// A short rendering of a value for a reason (callers escape it at output).
pub(super) fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 { format!("{}…", s.chars().take(60).collect::<String>()) } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::Limits;
    use serde_json::json;

    fn proves(sub: &Value, sup: &Value) -> bool {
        prove(sub, sup, &mut Cx::new(&Limits::default())).is_ok()
    }

    #[test]
    fn negated_bounds_keep_their_exclusivity() {
        let not_min = json!({"not": {"minimum": 0}});
        assert!(proves(&json!({"type": "number", "exclusiveMaximum": 0}), &not_min));
        assert!(!proves(&json!({"type": "number", "maximum": 0}), &not_min));
        let not_max = json!({"not": {"exclusiveMaximum": 3}});
        assert!(proves(&json!({"type": "integer", "minimum": 3}), &not_max));
        assert!(!proves(&json!({"type": "integer", "minimum": 2}), &not_max));
        assert!(proves(&json!({"not": {"maxLength": 2}}), &json!({"type": "string", "minLength": 3})));
        assert!(!proves(&json!({"not": {"maxLength": 2}}), &json!({"type": "string", "minLength": 4})));
    }

    #[test]
    fn an_unguarded_cycle_is_never_assumed() {
        let cyc = json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"});
        assert!(!proves(&json!({"type": "integer"}), &cyc));
        let cyc = json!({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}], "type": "string"}}, "$ref": "#/$defs/a"});
        assert!(!proves(&json!({"type": "string"}), &cyc));
    }

    #[test]
    fn a_guarded_cycle_is_assumed_one_level_down() {
        let list = |t: &str| json!({"$defs": {"l": {"type": "object", "properties": {"v": {"type": t}, "next": {"$ref": "#/$defs/l"}}}}, "$ref": "#/$defs/l"});
        assert!(proves(&list("integer"), &list("number")));
        assert!(!proves(&list("number"), &list("integer")));
    }

    #[test]
    fn the_proof_names_what_blocked_it() {
        let e = prove(
            &json!({"type": "object"}),
            &json!({"type": "object", "required": ["a"]}),
            &mut Cx::new(&Limits::default()),
        );
        let e = e.expect_err("not included");
        assert_eq!(e.keyword, "required");
        assert!(e.reason.starts_with("in `sup`"), "{}", e.reason);
        let e = prove(
            &json!({"properties": {"a": {"type": "string", "maxLength": 2}}}),
            &json!({"properties": {"a": {"maxLength": 3}}}),
            &mut Cx::new(&Limits::default()),
        );
        assert!(e.is_ok(), "{e:?}");
        let e = prove(
            &json!({"properties": {"a": {"maxLength": 5}}}),
            &json!({"properties": {"a": {"maxLength": 3}}}),
            &mut Cx::new(&Limits::default()),
        );
        let e = e.expect_err("not included");
        assert_eq!((e.keyword.as_str(), e.at.as_str()), ("maxLength", "/properties/a"));
    }

    #[test]
    fn oneof_is_a_union_only_when_its_branches_are_disjoint() {
        let disjoint = json!({"oneOf": [{"type": "string"}, {"type": "integer"}]});
        assert!(proves(&json!({"type": "string"}), &disjoint));
        let tagged = json!({"oneOf": [
            {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
            {"properties": {"kind": {"const": "b"}}, "required": ["kind"]}]});
        assert!(proves(&json!({"properties": {"kind": {"const": "a"}}, "required": ["kind"]}), &tagged));
        let overlapping = json!({"oneOf": [{"type": "string"}, {"maxLength": 2}]});
        assert!(!proves(&json!({"type": "string"}), &overlapping));
    }
}
