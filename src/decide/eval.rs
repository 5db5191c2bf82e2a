//! Evaluation of one value against a conjunct, and disjointness, for the proof ([`super::include`]).
//!
//! Takes values (from `enum`/`const`, booleans, `null`, names) and conjuncts of either document; returns
//! `Some(true)`/`Some(false)` when the modelled keywords decide membership and `None` when a keyword the
//! form does not model (or a fractional `multipleOf`, a pattern that does not compile, more than 256
//! items or properties) leaves it open. Exact for `sup` conjuncts; for `sub` conjuncts (widened) only
//! `Some(false)` is meaningful, and only that is used. Disjointness is shown by types, by values, or by
//! a property one side forbids and the other requires; a `oneOf` whose branches are pairwise disjoint
//! that way (or by a required property with disjoint `const`/`enum` values) is a union.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::include::{Prover, types_of};
use super::nf::{Conj, S, Side, dnf, for_name};
use super::{Block, Cx};
use crate::schema::json_eq;

impl<'a> Prover<'a> {
    /// Whether no instance of `a` satisfies the `sup` node `n` (`false`: not shown).
    pub(super) fn disjoint_from(&mut self, a: &Conj<'a>, n: &S<'a>, inst: usize, cx: &mut Cx) -> Result<bool, Block> {
        let d = dnf(self.sup_root, std::slice::from_ref(n), Side::Sup, cx)?;
        for c in &d {
            if !self.conj_disjoint(a, c, inst, cx)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    pub(super) fn conj_disjoint(
        &mut self,
        a: &Conj<'a>,
        c: &Conj<'a>,
        inst: usize,
        cx: &mut Cx,
    ) -> Result<bool, Block> {
        if !types_of(a).intersects(types_of(c)) {
            return Ok(true);
        }
        // Every instance of one fails a node the other is the conjunction of.
        let fails = |x: &Conj<'a>, y: &Conj<'a>| {
            x.failed.iter().any(|f| y.nodes.iter().any(|n| std::ptr::eq(f.v, n.v) || super::include::same(f.v, n.v)))
        };
        if fails(a, c) || fails(c, a) {
            return Ok(true);
        }
        if let Some(vals) = &c.values {
            let mut all = true;
            for v in vals {
                if self.eval_conj(v, a, inst, cx)? != Some(false) {
                    all = false;
                    break;
                }
            }
            if all {
                return Ok(true);
            }
        }
        if let Some(vals) = &a.values {
            let mut all = true;
            for v in vals {
                if self.eval_conj(v, c, inst, cx)? != Some(false) {
                    all = false;
                    break;
                }
            }
            if all {
                return Ok(true);
            }
        }
        // `sub` forbids a property that `c` requires.
        let mut m = |p: &str, s: &str| cx.matches(p, s);
        Ok(c.required
            .iter()
            .any(|r| for_name(a, r, &mut m).is_some_and(|v| v.iter().any(|s| s.v == &Value::Bool(false)))))
    }

    /// Whether `v` is accepted by some disjunct of `b` (`None`: not known).
    pub(super) fn eval_any(
        &mut self,
        v: &Value,
        b: &[Conj<'a>],
        inst: usize,
        cx: &mut Cx,
    ) -> Result<Option<bool>, Block> {
        let mut unknown = false;
        for c in b {
            match self.eval_conj(v, c, inst, cx)? {
                Some(true) => return Ok(Some(true)),
                Some(false) => {}
                None => unknown = true,
            }
        }
        Ok(if unknown { None } else { Some(false) })
    }

    fn eval_nodes(
        &mut self,
        v: &Value,
        nodes: &[S<'a>],
        side: Side,
        inst: usize,
        cx: &mut Cx,
    ) -> Result<Option<bool>, Block> {
        let root = if side == Side::Sup { self.sup_root } else { self.sub_root };
        let mut unknown = false;
        for n in nodes {
            let d = dnf(root, std::slice::from_ref(n), side, cx)?;
            match self.eval_any(v, &d, inst + 1, cx)? {
                Some(false) => return Ok(Some(false)),
                None => unknown = true,
                Some(true) => {}
            }
        }
        Ok(if unknown { None } else { Some(true) })
    }

    /// Whether `v` satisfies the conjunct `c` (`None`: not known). Exact for the modelled keywords.
    #[allow(clippy::too_many_lines)] // One block per keyword.
    pub(super) fn eval_conj(
        &mut self,
        v: &Value,
        c: &Conj<'a>,
        inst: usize,
        cx: &mut Cx,
    ) -> Result<Option<bool>, Block> {
        cx.step("")?;
        if inst > cx.limits.depth {
            return Ok(None);
        }
        // Which document `c` came from decides where its child nodes resolve.
        let side = c.side;
        if !c.types.admits(v) || c.excluded.iter().any(|x| json_eq(x, v)) {
            return Ok(Some(false));
        }
        if let Some(vals) = &c.values
            && !super::nf::member(v, vals, &c.value_keys)
        {
            return Ok(Some(false));
        }
        // A `sub` conjunct is a widening whose only use here is `Some(false)`, so what it dropped does
        // not matter; a `sup` conjunct with an unmodelled keyword cannot say `Some(true)`.
        let mut unknown = side == Side::Sup
            && c.opaque.iter().any(|o| super::unevaluated::applies(&o.keyword, crate::schema::TypeSet::of(v)));
        match v {
            Value::Number(n) => {
                let Some(x) = n.as_f64().filter(|_| n.as_i64().is_none_or(|i| i.unsigned_abs() <= 1 << 53)) else {
                    return Ok(None);
                };
                if c.lo.is_some_and(|b| x < b.v || (b.strict && x == b.v))
                    || c.hi.is_some_and(|b| x > b.v || (b.strict && x == b.v))
                {
                    return Ok(Some(false));
                }
                for m in &c.multiple_of {
                    if x.fract() == 0.0 && m.fract() == 0.0 {
                        if x % m != 0.0 {
                            return Ok(Some(false));
                        }
                    } else {
                        unknown = true;
                    }
                }
            }
            Value::String(s) => {
                let len = s.chars().count() as u64;
                if len < c.min_len || c.max_len.is_some_and(|m| len > m) {
                    return Ok(Some(false));
                }
                for (p, _) in &c.patterns {
                    match cx.matches(p, s) {
                        Some(false) => return Ok(Some(false)),
                        None => unknown = true,
                        Some(true) => {}
                    }
                }
            }
            Value::Array(items) => {
                let len = items.len() as u64;
                if len < c.min_items || c.max_items.is_some_and(|m| len > m) {
                    return Ok(Some(false));
                }
                if c.unique && items.len() <= 256 {
                    for (i, x) in items.iter().enumerate() {
                        if items[..i].iter().any(|y| json_eq(x, y)) {
                            return Ok(Some(false));
                        }
                    }
                } else if c.unique {
                    unknown = true;
                }
                for (i, item) in items.iter().enumerate().take(256) {
                    let here: Vec<S<'a>> =
                        c.tuples.iter().filter_map(|(p, r)| p.get(i).cloned().or_else(|| r.clone())).collect();
                    match self.eval_nodes(item, &here, side, inst, cx)? {
                        Some(false) => return Ok(Some(false)),
                        None => unknown = true,
                        Some(true) => {}
                    }
                }
                if items.len() > 256 {
                    unknown = true;
                }
                for (s, min, max) in &c.contains.clone() {
                    let mut count = 0u64;
                    for item in items.iter().take(256) {
                        match self.eval_nodes(item, std::slice::from_ref(s), side, inst, cx)? {
                            Some(true) => count += 1,
                            None => unknown = true,
                            Some(false) => {}
                        }
                    }
                    if !unknown && (count < *min || max.is_some_and(|m| count > m)) {
                        return Ok(Some(false));
                    }
                }
            }
            Value::Object(o) => {
                if c.required.iter().any(|r| !o.contains_key(*r)) {
                    return Ok(Some(false));
                }
                let n = o.len() as u64;
                if n < c.min_props || c.max_props.is_some_and(|m| n > m) {
                    return Ok(Some(false));
                }
                for (k, deps) in &c.dep_required {
                    if o.contains_key(*k) && deps.iter().any(|d| !o.contains_key(*d)) {
                        return Ok(Some(false));
                    }
                }
                for (name, item) in o.iter().take(256) {
                    let mut m = |p: &str, s: &str| cx.matches(p, s);
                    let Some(here) = for_name(c, name, &mut m) else {
                        unknown = true;
                        continue;
                    };
                    let key = Value::String(name.clone());
                    let verdicts = [
                        self.eval_nodes(item, &here, side, inst, cx)?,
                        self.eval_nodes(&key, &c.names, side, inst, cx)?,
                    ];
                    if verdicts.contains(&Some(false)) {
                        return Ok(Some(false));
                    }
                    unknown |= verdicts.contains(&None);
                }
                if o.len() > 256 {
                    unknown = true;
                }
                for (k, s) in &c.dep_schemas {
                    if o.contains_key(*k) {
                        match self.eval_nodes(v, std::slice::from_ref(s), side, inst, cx)? {
                            Some(false) => return Ok(Some(false)),
                            None => unknown = true,
                            Some(true) => {}
                        }
                    }
                }
            }
            _ => {}
        }
        for n in &c.nots {
            match self.eval_nodes(v, std::slice::from_ref(n), side, inst, cx)? {
                Some(true) => return Ok(Some(false)),
                None => unknown = true,
                Some(false) => {}
            }
        }
        for (i, t, e) in &c.conds {
            let branch = match self.eval_nodes(v, std::slice::from_ref(i), side, inst, cx)? {
                Some(true) => t,
                Some(false) => e,
                None => {
                    unknown = true;
                    continue;
                }
            };
            if let Some(b) = branch {
                match self.eval_nodes(v, std::slice::from_ref(b), side, inst, cx)? {
                    Some(false) => return Ok(Some(false)),
                    None => unknown = true,
                    Some(true) => {}
                }
            }
        }
        Ok(if unknown { None } else { Some(true) })
    }
}

/// Whether the branches of a `sup` `oneOf` are pairwise disjoint (then it is an `anyOf`).
///
/// # Errors
/// A [`Block`] when a branch's normal form is blocked.
pub fn pairwise_disjoint<'a>(root: &'a Value, base: &S<'a>, branches: &'a [Value], cx: &mut Cx) -> Result<bool, Block> {
    if branches.len() > 32 || cx.nest > cx.limits.depth {
        return Ok(false);
    }
    cx.nest += 1;
    let r = disjoint_branches(root, base, branches, cx);
    cx.nest -= 1;
    r
}

fn disjoint_branches<'a>(root: &'a Value, base: &S<'a>, branches: &'a [Value], cx: &mut Cx) -> Result<bool, Block> {
    let forms: Vec<Vec<Conj<'a>>> = branches
        .iter()
        .enumerate()
        .map(|(i, b)| dnf(root, &[S::new(b, format!("{}/{i}", base.at))], Side::Sup, cx))
        .collect::<Result<_, _>>()?;
    let mut p =
        Prover { sub_root: root, sup_root: root, stack: HashMap::new(), proven: HashSet::new(), frames: 0, assumed: 0 };
    for (i, fi) in forms.iter().enumerate() {
        for fj in &forms[i + 1..] {
            for a in fi {
                for b in fj {
                    if !p.conj_disjoint(a, b, 0, cx)? && !discriminated(a, b, root, cx)? {
                        return Ok(false);
                    }
                }
            }
        }
    }
    Ok(true)
}

/// Two conjuncts require the same property with disjoint `const`/`enum` values.
fn discriminated<'a>(a: &Conj<'a>, b: &Conj<'a>, root: &'a Value, cx: &mut Cx) -> Result<bool, Block> {
    for r in a.required.intersection(&b.required) {
        let mut m = |p: &str, s: &str| cx.matches(p, s);
        let (Some(x), Some(y)) = (for_name(a, r, &mut m), for_name(b, r, &mut m)) else { continue };
        let (dx, dy) = (dnf(root, &x, Side::Sup, cx)?, dnf(root, &y, Side::Sup, cx)?);
        let finite = |d: &[Conj<'a>]| -> Option<Vec<&'a Value>> {
            let mut out = Vec::new();
            for c in d {
                out.extend(c.values.clone()?);
            }
            Some(out)
        };
        if let (Some(vx), Some(vy)) = (finite(&dx), finite(&dy))
            && !vx.iter().any(|p| vy.iter().any(|q| json_eq(p, q)))
        {
            return Ok(true);
        }
    }
    Ok(false)
}
