//! `unevaluatedProperties` and `unevaluatedItems` in the normal form ([`super::nf`]).
//!
//! Takes the schema object that holds the keyword, its document, the [`Side`] and (on `Sup`) which
//! union branches the conjunct chose; returns what the keyword adds to that conjunct: an [`Obj`]
//! whose named and patterned entries are `true` (the names the in-place subschemas evaluate) and whose
//! `additional` is the keyword's subschema, or a tuple of `true` items (the positions `prefixItems`
//! evaluates) followed by it. Nothing when every name or item is evaluated anyway (an
//! `additionalProperties`, an `items`, a nested `unevaluated*`).
//!
//! What is evaluated is read from the in-place applicators (`allOf`, `$ref`, `$dynamicRef`, `anyOf`,
//! `oneOf`, `if`/`then`/`else`, `dependentSchemas`; never through `not`, whose annotations are
//! dropped). Promises, by side:
//! - `Sub` (a widening): a conjunct counts the names of what it merged (the branches of an `anyOf`
//!   expanded by [`subsets`], the one branch of a `oneOf` that holds, `if` with `then`, or `else`),
//!   and every name of a union too large to expand and of `dependentSchemas`; so the union of the
//!   conjuncts is never stricter than the keyword. `contains` (which evaluates the items it matches)
//!   or a reference that cannot be followed drops the constraint.
//! - `Sup` (exact as a union): a conjunct counts the names of the union branches it chose. For a
//!   `oneOf` (a union only when its branches are disjoint, so exactly one holds) that is exact; an
//!   `anyOf` whose branches evaluate is expanded by [`subsets`] (every non-empty set of branches that
//!   hold), so each conjunct accepts only instances of the keyword and their union is all of them.
//!   Where the set depends on the instance otherwise (`if`, `dependentSchemas`, `contains`, a union
//!   the form keeps opaque, a reference not followed), the caller keeps the keyword opaque.
//!
//! The walk is bounded by [`FUEL`] subschemas; running out is a widening on `Sub` and opaque on `Sup`.

#![allow(clippy::needless_for_each, reason = "one walk step per subschema reads best on one line")]

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::nf::{Obj, S, Side, token};

static TRUE: Value = Value::Bool(true);
/// Subschemas one walk visits at most.
const FUEL: usize = 1_024;

/// What an `unevaluated*` keyword adds to one conjunct.
#[derive(Debug)]
pub enum Reading<T> {
    /// This constraint.
    Adds(T),
    /// Nothing: every name (or item) is evaluated anyway.
    Nothing,
    /// Not exact here (`Sup` only): the caller keeps the keyword opaque.
    Opaque,
}

impl<T> Reading<T> {
    fn map<U>(self, f: impl FnOnce(T) -> U) -> Reading<U> {
        match self {
            Reading::Adds(t) => Reading::Adds(f(t)),
            Reading::Nothing => Reading::Nothing,
            Reading::Opaque => Reading::Opaque,
        }
    }
}

/// What the in-place subschemas of one schema object evaluate.
#[derive(Default)]
struct Evaluated<'a> {
    names: BTreeSet<&'a str>,
    patterns: BTreeSet<&'a str>,
    /// Items evaluated by position (the longest `prefixItems`).
    prefix: usize,
    /// Every name (or item) is evaluated.
    all: bool,
    /// The set depends on the instance (a conditional applicator reaches an evaluating keyword, or a
    /// reference could not be followed, or the walk ran out of fuel).
    inexact: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Properties,
    Items,
}

/// What `unevaluatedProperties` of `m` (at `node`) adds to a conjunct: an object constraint.
pub fn properties<'a>(
    root: &'a Value,
    m: &'a Map<String, Value>,
    node: &S<'a>,
    side: Side,
    seen: &dyn Fn(&Value) -> Option<bool>,
) -> Reading<Obj<'a>> {
    let Some(u) = m.get("unevaluatedProperties") else { return Reading::Nothing };
    settle(walk(root, m, Kind::Properties, side, seen), side).map(|e| {
        let at = format!("{}/unevaluatedProperties", node.at);
        let evaluated = |name: &'a str| (name, S::new(&TRUE, format!("{at}/{}", token(name))));
        Obj {
            props: e.names.iter().map(|n| evaluated(n)).collect(),
            patterns: e.patterns.iter().map(|p| (*p, S::new(&TRUE, at.clone()))).collect(),
            additional: Some(S::new(u, at.clone())),
        }
    })
}

/// What `unevaluatedItems` of `m` adds: `(prefix, rest)` like `prefixItems`/`items`, as
/// [`properties`] does.
#[allow(clippy::type_complexity, reason = "the tuple shape of `Conj::tuples`")]
pub fn items<'a>(
    root: &'a Value,
    m: &'a Map<String, Value>,
    node: &S<'a>,
    side: Side,
    seen: &dyn Fn(&Value) -> Option<bool>,
) -> Reading<(Vec<S<'a>>, Option<S<'a>>)> {
    let Some(u) = m.get("unevaluatedItems") else { return Reading::Nothing };
    settle(walk(root, m, Kind::Items, side, seen), side).map(|e| {
        let at = format!("{}/unevaluatedItems", node.at);
        let prefix = (0..e.prefix).map(|_| S::new(&TRUE, at.clone())).collect();
        (prefix, Some(S::new(u, at)))
    })
}

/// Applies the side's promise: `Sub` widens what it cannot know to "everything evaluated".
fn settle(e: Evaluated<'_>, side: Side) -> Reading<Evaluated<'_>> {
    match side {
        Side::Sup if e.inexact => Reading::Opaque,
        Side::Sub if e.inexact => Reading::Nothing,
        _ if e.all => Reading::Nothing,
        _ => Reading::Adds(e),
    }
}

fn walk<'a>(
    root: &'a Value,
    m: &'a Map<String, Value>,
    kind: Kind,
    side: Side,
    seen: &dyn Fn(&Value) -> Option<bool>,
) -> Evaluated<'a> {
    let mut w = Walk { root, kind, side, seen, fuel: FUEL, e: Evaluated::default() };
    w.visit(m, false, true);
    w.e
}

/// Whether some subschema of `branches` (in place) evaluates names (or items) of `kind`: an `anyOf`
/// of those is worth expanding by [`subsets`].
#[must_use]
pub fn evaluates<'v>(root: &Value, branches: impl IntoIterator<Item = &'v Value>, properties: bool) -> bool {
    let kind = if properties { Kind::Properties } else { Kind::Items };
    branches.into_iter().any(|b| {
        let Value::Object(m) = b else { return false };
        let e = walk(root, m, kind, Side::Sub, &|_| None);
        e.all || e.inexact || e.prefix > 0 || !e.names.is_empty() || !e.patterns.is_empty()
    })
}

/// Branches of an `anyOf` expanded by [`subsets`] at most (2^n - 1 conjuncts).
pub const MAX_SUBSET_BRANCHES: usize = 4;

/// Every non-empty set of `0..n`, smallest first: `anyOf` as the union over which branches hold.
#[must_use]
pub fn subsets(n: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> =
        (1u32..(1 << n)).map(|bits| (0..n).filter(|i| bits & (1 << i) != 0).collect()).collect();
    out.sort_by_key(Vec::len);
    out
}

struct Walk<'a, 'c> {
    root: &'a Value,
    kind: Kind,
    side: Side,
    /// Whether the conjunct merged this node (`Some(true)`), knows it fails (`Some(false)`), or
    /// neither.
    seen: &'c dyn Fn(&Value) -> Option<bool>,
    fuel: usize,
    e: Evaluated<'a>,
}

impl<'a> Walk<'a, '_> {
    /// Records what the schema object `m` evaluates, and recurses into its in-place applicators.
    /// `conditional`: reached through an applicator that does not hold for every instance of the
    /// conjunct; `top`: the object holding the keyword (its own `unevaluated*` is the keyword itself).
    fn visit(&mut self, m: &'a Map<String, Value>, conditional: bool, top: bool) {
        if self.fuel == 0 {
            self.e.inexact = true;
            return;
        }
        self.fuel -= 1;
        let e = &mut self.e;
        let before = (e.names.len(), e.patterns.len(), e.prefix, e.all);
        match self.kind {
            Kind::Properties => {
                if let Some(Value::Object(p)) = m.get("properties") {
                    e.names.extend(p.keys().map(String::as_str));
                }
                if let Some(Value::Object(p)) = m.get("patternProperties") {
                    e.patterns.extend(p.keys().map(String::as_str));
                }
                if m.contains_key("additionalProperties") || (!top && m.contains_key("unevaluatedProperties")) {
                    e.all = true;
                }
            }
            Kind::Items => {
                if let Some(Value::Array(p)) = m.get("prefixItems") {
                    e.prefix = e.prefix.max(p.len());
                }
                if m.contains_key("items") || (!top && m.contains_key("unevaluatedItems")) {
                    e.all = true;
                }
                if m.contains_key("contains") {
                    // Evaluates the items it matches: which ones depends on the instance.
                    e.inexact = true;
                }
            }
        }
        if conditional && before != (e.names.len(), e.patterns.len(), e.prefix, e.all) {
            e.inexact = true;
        }
        for k in ["$ref", "$dynamicRef"] {
            let Some(r) = m.get(k) else { continue };
            let target = r.as_str().ok_or(()).and_then(|r| {
                if k == "$ref" {
                    crate::schema::resolve(self.root, Some(m), r).map_err(|_| ())
                } else {
                    crate::schema::resolve_dynamic(self.root, Some(m), r).map_err(|_| ())
                }
            });
            match target {
                Ok((_, t)) => self.go(t, conditional),
                Err(()) => self.e.inexact = true,
            }
        }
        if let Some(Value::Array(all)) = m.get("allOf") {
            all.iter().for_each(|s| self.go(s, conditional));
        }
        for k in ["anyOf", "oneOf"] {
            let Some(Value::Array(b)) = m.get(k) else { continue };
            // The branches this conjunct merged hold. An `anyOf` expanded by `subsets` merged exactly
            // the ones its conjunct stands for; a `oneOf` (on `Sup` a union only when disjoint; on `Sub`
            // read as `anyOf`, but of its instances exactly one branch holds) one. Any other union:
            // on `Sup` the set depends on the instance, on `Sub` every branch is counted (wider).
            let taken: Vec<&'a Value> = b.iter().filter(|s| (self.seen)(s) == Some(true)).collect();
            let exact = !taken.is_empty() && (k == "oneOf" || b.len() <= MAX_SUBSET_BRANCHES);
            if exact {
                taken.into_iter().for_each(|s| self.go(s, conditional));
            } else {
                let sub = self.side == Side::Sub;
                b.iter().for_each(|s| self.go(s, conditional || !sub));
            }
        }
        if let Some(i) = m.get("if") {
            // Split into `if` with `then` and `else` with `if` failed (see `nf`); otherwise, on `Sup`
            // the set depends on the instance and on `Sub` all three count (wider).
            match (self.seen)(i) {
                Some(true) => {
                    self.go(i, conditional);
                    m.get("then").into_iter().for_each(|t| self.go(t, conditional));
                }
                Some(false) => m.get("else").into_iter().for_each(|e| self.go(e, conditional)),
                None => {
                    let sub = self.side == Side::Sub;
                    for k in ["if", "then", "else"] {
                        m.get(k).into_iter().for_each(|s| self.go(s, conditional || !sub));
                    }
                }
            }
        }
        if let Some(Value::Object(d)) = m.get("dependentSchemas") {
            // Applies when its name is present: on `Sub` counted as evaluated (wider).
            let sub = self.side == Side::Sub;
            d.values().for_each(|s| self.go(s, conditional || !sub));
        }
    }

    fn go(&mut self, s: &'a Value, conditional: bool) {
        match s {
            Value::Object(c) => self.visit(c, conditional, false),
            Value::Bool(_) => {}
            _ => self.e.inexact = true,
        }
    }
}

/// Whether the keyword `k` (kept opaque) can reject an instance of the JSON types `t`: the
/// `unevaluated*` keywords only look at objects or arrays.
#[must_use]
pub fn applies(k: &str, t: crate::schema::TypeSet) -> bool {
    use crate::schema::TypeSet;
    match k {
        "unevaluatedProperties" => t.intersects(TypeSet::OBJECT),
        "unevaluatedItems" => t.intersects(TypeSet::ARRAY),
        _ => true,
    }
}
