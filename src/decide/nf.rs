//! The and-or normal form of one schema location: a disjunction of [`Conj`]s, each a conjunction of
//! per-type constraints (jsonsubschema's canonical form; the and-or form of Attouche et al., VLDB 2022).
//!
//! Takes a list of schema nodes (their conjunction) in one document and a [`Side`]; returns the
//! disjuncts. `allOf` and `$ref` are merged into the conjunct; `anyOf` multiplies disjuncts (under an
//! `unevaluated*` keyword, by every set of branches that hold); `oneOf` is "this branch and no other"
//! unless its branches are provably disjoint; `if`/`then`/`else` is `(if ∧ then) ∨ (¬if ∧ else)` (on
//! `Sup` only under `unevaluated*`; elsewhere kept as `conds` for the proof's case split); `not` is
//! pushed inward ([`super::negate`]); `unevaluated*` becomes an object or tuple constraint over what
//! the in-place subschemas evaluate ([`super::unevaluated`]). The splits are in [`super::cases`].
//! Child schemas (properties, items, ...) stay as nodes, unfolded only when the proof descends into
//! them, so recursion through the instance is never unfolded here.
//!
//! Promises: on the `Sub` side the form is a *widening* (every instance of the nodes is accepted by some
//! disjunct: keywords and negations it cannot model are dropped); on the `Sup` side the union of the
//! disjuncts is *exact for the modelled keywords* and every other keyword is kept in
//! [`Conj::opaque`] (or `nots`, `conds`) for the proof to refuse or match. [`Conj::failed`] records
//! nodes every instance of a conjunct fails, on both sides. Work is bounded by the caller's [`Cx`]
//! (steps, disjuncts, depth): a limit hit is a [`Block`].

#![allow(clippy::needless_for_each, reason = "one keyword applied to every conjunct reads best on one line")]

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value};

use super::{Block, Cx};
use crate::schema::{TypeSet, json_eq, parse_types};

/// A schema node: a value in one document and its JSON Pointer there.
#[derive(Clone, Debug)]
pub struct S<'a> {
    pub v: &'a Value,
    pub at: String,
}

impl<'a> S<'a> {
    #[must_use]
    pub fn new(v: &'a Value, at: String) -> S<'a> {
        S { v, at }
    }
    pub(super) fn child(&self, v: &'a Value, key: &str) -> S<'a> {
        S { v, at: format!("{}/{}", self.at, token(key)) }
    }
}

/// One JSON Pointer token.
#[must_use]
pub fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Sub,
    Sup,
}

/// A numeric bound; `strict` for the exclusive keywords.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    pub v: f64,
    pub strict: bool,
}

/// The object keywords of one schema object: for a property name, the schemas that apply to it are
/// its `properties` entry and the matching `patternProperties`, else `additionalProperties`.
#[derive(Clone, Debug, Default)]
pub struct Obj<'a> {
    pub props: Vec<(&'a str, S<'a>)>,
    pub patterns: Vec<(&'a str, S<'a>)>,
    pub additional: Option<S<'a>>,
}

/// A keyword the form does not model: kept so that the proof refuses it or finds it on the other side.
#[derive(Clone, Debug)]
pub struct Opaque<'a> {
    pub keyword: String,
    pub value: &'a Value,
    /// The schema object that holds it.
    pub holder: S<'a>,
}

/// One conjunct of the normal form.
#[derive(Clone, Debug)]
pub struct Conj<'a> {
    pub types: TypeSet,
    /// Intersection of every `enum`/`const` (values of every type).
    pub values: Option<Vec<&'a Value>>,
    /// The keys of `values`, built on the first membership test of a long set (see [`member`]), so
    /// that membership costs a lookup, not a scan: a million-value `enum` against another is not a
    /// trillion comparisons. Shared by the clones of the conjunct.
    pub value_keys: Keys,
    pub excluded: Vec<&'a Value>,
    pub lo: Option<Bound>,
    pub hi: Option<Bound>,
    pub multiple_of: Vec<f64>,
    pub min_len: u64,
    pub max_len: Option<u64>,
    pub patterns: Vec<(&'a str, String)>,
    pub min_items: u64,
    pub max_items: Option<u64>,
    pub unique: bool,
    /// `(prefixItems, items)` of each schema object that has either.
    pub tuples: Vec<(Vec<S<'a>>, Option<S<'a>>)>,
    pub contains: Vec<(S<'a>, u64, Option<u64>)>,
    pub objs: Vec<Obj<'a>>,
    pub required: BTreeSet<&'a str>,
    pub min_props: u64,
    pub max_props: Option<u64>,
    pub names: Vec<S<'a>>,
    pub dep_required: Vec<(&'a str, Vec<&'a str>)>,
    pub dep_schemas: Vec<(&'a str, S<'a>)>,
    pub opaque: Vec<Opaque<'a>>,
    pub nots: Vec<S<'a>>,
    /// `(if, then, else)` (`Sup` side only).
    pub conds: Vec<(S<'a>, Option<S<'a>>, Option<S<'a>>)>,
    /// Every node merged into this conjunct (the chosen branches included): their conjunction is the
    /// conjunct (exactly, or widened on the `Sub` side).
    pub nodes: Vec<S<'a>>,
    /// Nodes every instance of the conjunct fails (a `oneOf`'s other branches, an `if` in the `else`
    /// case): evidence for disjointness, also where `¬node` could not be expressed (on `Sub`).
    pub failed: Vec<S<'a>>,
    /// The document the nodes are in.
    pub side: Side,
}

impl Default for Conj<'_> {
    fn default() -> Self {
        Conj {
            types: TypeSet::ALL,
            values: None,
            value_keys: Keys::default(),
            excluded: Vec::new(),
            lo: None,
            hi: None,
            multiple_of: Vec::new(),
            min_len: 0,
            max_len: None,
            patterns: Vec::new(),
            min_items: 0,
            max_items: None,
            unique: false,
            tuples: Vec::new(),
            contains: Vec::new(),
            objs: Vec::new(),
            required: BTreeSet::new(),
            min_props: 0,
            max_props: None,
            names: Vec::new(),
            dep_required: Vec::new(),
            dep_schemas: Vec::new(),
            opaque: Vec::new(),
            nots: Vec::new(),
            conds: Vec::new(),
            nodes: Vec::new(),
            failed: Vec::new(),
            side: Side::Sup,
        }
    }
}

/// Keywords that never constrain an instance in 2020-12 (annotations, identifiers, containers).
#[must_use]
pub fn annotation(k: &str) -> bool {
    matches!(
        k,
        "title"
            | "description"
            | "default"
            | "examples"
            | "$comment"
            | "$schema"
            | "$id"
            | "$anchor"
            | "$dynamicAnchor"
            | "$defs"
            | "definitions"
            | "$vocabulary"
            | "format"
            | "deprecated"
            | "readOnly"
            | "writeOnly"
            | "contentMediaType"
            | "contentEncoding"
            | "contentSchema"
            | "then"
            | "else"
            | "minContains"
            | "maxContains"
    )
}

pub(super) fn as_u64(v: &Value) -> Option<u64> {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "checked: a non-negative integer below 2^64"
    )]
    v.as_u64().or_else(|| v.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1.8e19).map(|f| f as u64))
}

/// An exactly representable numeric bound (integers past 2^53 are not: comparing them as `f64` could
/// call two different bounds equal).
pub(super) fn exact_f64(v: &Value) -> Option<f64> {
    let f = v.as_f64()?;
    if !f.is_finite() {
        return None;
    }
    if let Some(i) = v.as_i64() {
        if i.unsigned_abs() > (1 << 53) {
            return None;
        }
    } else if v.as_u64().is_some_and(|u| u > (1 << 53)) {
        return None;
    }
    Some(f)
}

/// The normal form of the conjunction of `nodes`, in the document `root`.
///
/// # Errors
/// A [`Block`] when a limit is hit, a reference cannot be followed or a keyword is malformed.
pub fn dnf<'a>(root: &'a Value, nodes: &[S<'a>], side: Side, cx: &mut Cx) -> Result<Vec<Conj<'a>>, Block> {
    let mut acc = vec![Conj { side, ..Conj::default() }];
    for n in nodes {
        acc = add(root, acc, n, side, 0, cx)?;
    }
    Ok(acc)
}

pub(super) fn limit_disjuncts(n: usize, at: &str, side: Side, cx: &Cx) -> Result<(), Block> {
    if n > cx.limits.disjuncts {
        return Err(Block::new(
            "anyOf",
            at,
            format!(
                "{}: the normal form has more than {} disjuncts (limit `disjuncts`)",
                side_name(side),
                cx.limits.disjuncts
            ),
        ));
    }
    Ok(())
}

#[must_use]
pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::Sub => "in `sub`",
        Side::Sup => "in `sup`",
    }
}

#[allow(clippy::too_many_lines)] // One match arm per keyword reads better than a dispatch table.
pub(super) fn add<'a>(
    root: &'a Value,
    acc: Vec<Conj<'a>>,
    node: &S<'a>,
    side: Side,
    depth: usize,
    cx: &mut Cx,
) -> Result<Vec<Conj<'a>>, Block> {
    cx.step(&node.at)?;
    if depth > cx.limits.depth {
        return Err(Block::new(
            "$ref",
            &node.at,
            format!(
                "{}: subschemas nest deeper than {} without reaching the instance (an unguarded `$ref` cycle, or limit `depth`)",
                side_name(side),
                cx.limits.depth
            ),
        ));
    }
    let m = match node.v {
        Value::Bool(true) => {
            // Recorded, so that a union branch `true` shows as chosen (see `unevaluated`).
            let mut acc = acc;
            acc.iter_mut().for_each(|c| c.nodes.push(node.clone()));
            return Ok(acc);
        }
        Value::Bool(false) => return Ok(Vec::new()),
        Value::Object(m) => m,
        _ => return Err(Block::new("schema", &node.at, format!("{}: not a schema", side_name(side)))),
    };
    if acc.is_empty() {
        return Ok(acc);
    }
    // Normal forms built inside this one (a `oneOf` checked for disjointness) start again at depth 0:
    // `active` bounds the nesting of `add` itself, and so the stack.
    if cx.active >= cx.limits.depth {
        return Err(Block::new(
            "$ref",
            &node.at,
            format!("{}: subschemas nest deeper than {} (limit `depth`)", side_name(side), cx.limits.depth),
        ));
    }
    let holds = m.contains_key("unevaluatedProperties") || m.contains_key("unevaluatedItems");
    cx.uneval += usize::from(holds);
    cx.active += 1;
    let acc = in_place(root, acc, node, m, side, depth, cx);
    cx.active -= 1;
    cx.uneval -= usize::from(holds);
    let mut acc = acc?;
    super::cases::unevaluated(root, &mut acc, m, node, side);
    acc.retain(feasible);
    Ok(acc)
}

/// The keywords of the schema object `m` (at `node`) and its in-place applicators, merged into `acc`.
fn in_place<'a>(
    root: &'a Value,
    mut acc: Vec<Conj<'a>>,
    node: &S<'a>,
    m: &'a Map<String, Value>,
    side: Side,
    depth: usize,
    cx: &mut Cx,
) -> Result<Vec<Conj<'a>>, Block> {
    for c in &mut acc {
        c.nodes.push(node.clone());
    }
    let mut double = Vec::new();
    for (k, v) in m {
        local(&mut acc, k, v, m, node, side, &mut double)?;
    }
    for d in &double {
        acc = add(root, acc, d, side, depth + 1, cx)?;
    }
    for k in ["$ref", "$dynamicRef"] {
        if let Some(r) = m.get(k) {
            let Some(r) = r.as_str() else {
                return Err(Block::new(k, &node.at, format!("{}: `{k}` is not a string", side_name(side))));
            };
            let target = if k == "$ref" {
                crate::schema::resolve(root, Some(m), r)
            } else {
                crate::schema::resolve_dynamic(root, Some(m), r)
            };
            let (ptr, t) = target.map_err(|e| {
                Block::new(k, &node.at, format!("{}: the reference cannot be followed ({e:?})", side_name(side)))
            })?;
            acc = add(root, acc, &S::new(t, ptr), side, depth + 1, cx)?;
        }
    }
    if let Some(Value::Array(all)) = m.get("allOf") {
        let base = node.child(&m["allOf"], "allOf");
        for (i, s) in all.iter().enumerate() {
            acc = add(root, acc, &base.child(s, &i.to_string()), side, depth + 1, cx)?;
        }
    }
    for k in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = m.get(k) else { continue };
        let base = node.child(&m[k], k);
        if k == "oneOf" && (side == Side::Sub || !super::eval::pairwise_disjoint(root, &base, branches, cx)?) {
            // Not provably disjoint (on `Sup`), or on `Sub`: "this branch and no other".
            acc = super::cases::one_of(root, &acc, &base, branches, side, depth, cx)?;
            continue;
        }
        let mut out = Vec::new();
        if k == "anyOf" && super::cases::expand_by_subsets(root, branches, cx) {
            // Each conjunct is the branches that hold (see `unevaluated`): the same union.
            for set in super::unevaluated::subsets(branches.len()) {
                let mut more = acc.clone();
                for i in set {
                    more = add(root, more, &base.child(&branches[i], &i.to_string()), side, depth + 1, cx)?;
                }
                out.extend(more);
                limit_disjuncts(out.len(), &base.at, side, cx)?;
            }
            acc = out;
            continue;
        }
        for (i, b) in branches.iter().enumerate() {
            let more = add(root, acc.clone(), &base.child(b, &i.to_string()), side, depth + 1, cx)?;
            out.extend(more);
            limit_disjuncts(out.len(), &base.at, side, cx)?;
        }
        acc = out;
    }
    if let Some(i) = m.get("if") {
        let (t, e) = (m.get("then"), m.get("else"));
        let ifs = node.child(i, "if");
        let (t, e) = (t.map(|t| node.child(t, "then")), e.map(|e| node.child(e, "else")));
        // On `Sup` only where an `unevaluated*` keyword needs to know which case evaluated what;
        // elsewhere the proof takes the cases itself (`conds`).
        let parts = || [Some(i), m.get("then"), m.get("else")].into_iter().flatten();
        let split = side == Side::Sub
            || (cx.uneval > 0
                && (super::unevaluated::evaluates(root, parts(), true)
                    || super::unevaluated::evaluates(root, parts(), false)));
        if split {
            acc = super::cases::if_then_else(root, acc, &ifs, t.as_ref(), e.as_ref(), side, depth, cx)?;
        } else if t.is_some() || e.is_some() {
            for c in &mut acc {
                c.conds.push((ifs.clone(), t.clone(), e.clone()));
            }
        }
    }
    Ok(acc)
}

/// Whether a conjunct may have an instance (a quick check; `false` only when it certainly has none).
#[must_use]
pub fn feasible(c: &Conj<'_>) -> bool {
    if c.types.is_empty() {
        return false;
    }
    if let Some(vals) = &c.values {
        return vals.iter().any(|v| c.types.admits(v) && !c.excluded.iter().any(|x| json_eq(x, v)));
    }
    true
}

/// Applies one keyword of a schema object to every conjunct.
#[allow(clippy::too_many_lines)] // One arm per keyword.
fn local<'a>(
    acc: &mut [Conj<'a>],
    k: &'a str,
    v: &'a Value,
    m: &'a Map<String, Value>,
    node: &S<'a>,
    side: Side,
    double: &mut Vec<S<'a>>,
) -> Result<(), Block> {
    let opaque = |acc: &mut [Conj<'a>]| {
        for c in acc.iter_mut() {
            c.opaque.push(Opaque { keyword: k.to_owned(), value: v, holder: node.clone() });
        }
    };
    let bad = || Block::new(k, &node.at, format!("{}: `{k}` has a value the validator would refuse", side_name(side)));
    match k {
        "$ref" | "$dynamicRef" | "allOf" | "anyOf" | "oneOf" | "if" => {
            if matches!(k, "anyOf" | "oneOf") && side == Side::Sub {
                // Recorded so an identical union on the other side is recognised.
                opaque(acc);
            }
        }
        "type" => {
            let t = parse_types(v).ok_or_else(bad)?;
            for c in acc.iter_mut() {
                c.types = c.types.intersect(t);
            }
        }
        "enum" | "const" => {
            let vals: Vec<&Value> = match (k, v) {
                ("const", v) => vec![v],
                (_, Value::Array(a)) => a.iter().collect(),
                _ => return Err(bad()),
            };
            let keys = Keys::default();
            for c in acc.iter_mut() {
                c.values = Some(match c.values.take() {
                    None => vals.clone(),
                    Some(old) => old.into_iter().filter(|o| member(o, &vals, &keys)).collect(),
                });
                c.value_keys = Keys::default();
            }
        }
        "not" => super::negate::negate(acc, v, &node.child(v, "not"), side, double)?,
        "minimum" | "exclusiveMinimum" | "maximum" | "exclusiveMaximum" => {
            let Some(x) = exact_f64(v) else {
                if v.is_number() && side == Side::Sup {
                    opaque(acc);
                    return Ok(());
                }
                return if v.is_number() { Ok(()) } else { Err(bad()) };
            };
            let b = Bound { v: x, strict: k.starts_with("exclusive") };
            for c in acc.iter_mut() {
                if k.ends_with("inimum") {
                    c.lo = Some(super::negate::tighter_lo(c.lo, b));
                } else {
                    c.hi = Some(super::negate::tighter_hi(c.hi, b));
                }
            }
        }
        "multipleOf" => {
            let x = exact_f64(v).filter(|x| *x > 0.0);
            match x {
                Some(x) => acc.iter_mut().for_each(|c| c.multiple_of.push(x)),
                None if side == Side::Sup => opaque(acc),
                None => {}
            }
        }
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" => {
            let n = as_u64(v).ok_or_else(bad)?;
            for c in acc.iter_mut() {
                match k {
                    "minLength" => c.min_len = c.min_len.max(n),
                    "maxLength" => c.max_len = Some(c.max_len.map_or(n, |m| m.min(n))),
                    "minItems" => c.min_items = c.min_items.max(n),
                    "maxItems" => c.max_items = Some(c.max_items.map_or(n, |m| m.min(n))),
                    "minProperties" => c.min_props = c.min_props.max(n),
                    _ => c.max_props = Some(c.max_props.map_or(n, |m| m.min(n))),
                }
            }
        }
        "pattern" => {
            let p = v.as_str().ok_or_else(bad)?;
            let at = node.child(v, k).at;
            acc.iter_mut().for_each(|c| c.patterns.push((p, at.clone())));
        }
        "uniqueItems" => {
            if v.as_bool().ok_or_else(bad)? {
                acc.iter_mut().for_each(|c| c.unique = true);
            }
        }
        "prefixItems" | "items" => {
            if k == "items" && m.contains_key("prefixItems") {
                return Ok(());
            }
            let prefix: Vec<S<'a>> = match m.get("prefixItems") {
                Some(Value::Array(p)) => {
                    let base = node.child(&m["prefixItems"], "prefixItems");
                    p.iter().enumerate().map(|(i, s)| base.child(s, &i.to_string())).collect()
                }
                Some(_) => return Err(bad()),
                None => Vec::new(),
            };
            let rest = match m.get("items") {
                Some(Value::Array(_)) => return Err(bad()),
                Some(s) => Some(node.child(s, "items")),
                None => None,
            };
            acc.iter_mut().for_each(|c| c.tuples.push((prefix.clone(), rest.clone())));
        }
        "contains" => {
            let min = m.get("minContains").map_or(Some(1), as_u64).ok_or_else(bad)?;
            let max = m.get("maxContains").map(|x| as_u64(x).ok_or_else(bad)).transpose()?;
            let s = node.child(v, k);
            acc.iter_mut().for_each(|c| c.contains.push((s.clone(), min, max)));
        }
        "properties" | "patternProperties" | "additionalProperties" => {
            if k != "properties"
                && (m.contains_key("properties") || k == "additionalProperties" && m.contains_key("patternProperties"))
            {
                return Ok(());
            }
            let named = |key: &str| -> Result<Vec<(&'a str, S<'a>)>, Block> {
                match m.get(key) {
                    Some(Value::Object(p)) => {
                        let base = node.child(&m[key], key);
                        Ok(p.iter().map(|(n, s)| (n.as_str(), base.child(s, n))).collect())
                    }
                    Some(_) => Err(bad()),
                    None => Ok(Vec::new()),
                }
            };
            let o = Obj {
                props: named("properties")?,
                patterns: named("patternProperties")?,
                additional: m.get("additionalProperties").map(|s| node.child(s, "additionalProperties")),
            };
            acc.iter_mut().for_each(|c| c.objs.push(o.clone()));
        }
        "required" => {
            let Value::Array(r) = v else { return Err(bad()) };
            let names: Vec<&str> = r.iter().map(Value::as_str).collect::<Option<_>>().ok_or_else(bad)?;
            acc.iter_mut().for_each(|c| c.required.extend(names.iter().copied()));
        }
        "propertyNames" => {
            let s = node.child(v, k);
            acc.iter_mut().for_each(|c| c.names.push(s.clone()));
        }
        "dependentRequired" => {
            let Value::Object(d) = v else { return Err(bad()) };
            for (key, deps) in d {
                let Value::Array(deps) = deps else { return Err(bad()) };
                let deps: Vec<&str> = deps.iter().map(Value::as_str).collect::<Option<_>>().ok_or_else(bad)?;
                acc.iter_mut().for_each(|c| c.dep_required.push((key.as_str(), deps.clone())));
            }
        }
        "dependentSchemas" => {
            let Value::Object(d) = v else { return Err(bad()) };
            let base = node.child(v, k);
            for (key, s) in d {
                let s = base.child(s, key);
                acc.iter_mut().for_each(|c| c.dep_schemas.push((key.as_str(), s.clone())));
            }
        }
        // Read with the in-place applicators, in `add` (see `unevaluated`).
        "unevaluatedProperties" | "unevaluatedItems" => {}
        _ if annotation(k) => {}
        // Everything else: unknown keywords the validator might honour, ...
        _ => opaque(acc),
    }
    Ok(())
}

/// The schemas that apply to the property `name` in a conjunct, or `None` when they depend on a
/// pattern the caller could not match (`matches` answers whether a pattern matches a name).
pub fn for_name<'a>(
    c: &Conj<'a>,
    name: &str,
    matches: &mut dyn FnMut(&str, &str) -> Option<bool>,
) -> Option<Vec<S<'a>>> {
    let mut out = Vec::new();
    for o in &c.objs {
        let mut hit = false;
        for (n, s) in &o.props {
            if *n == name {
                out.push(s.clone());
                hit = true;
            }
        }
        for (p, s) in &o.patterns {
            if matches(p, name)? {
                out.push(s.clone());
                hit = true;
            }
        }
        if !hit && let Some(a) = &o.additional {
            out.push(a.clone());
        }
    }
    Some(out)
}

/// Value sets longer than this get a hashed index ([`Conj::value_keys`]).
const INDEXED_VALUES: usize = 32;

/// A hashable value with JSON Schema equality: a string as itself (no copy), anything else by its
/// canonical text ([`crate::schema::canonical_key`]).
#[derive(Hash)]
enum Key<'v> {
    Str(&'v str),
    Other(String),
}

fn key(v: &Value) -> Key<'_> {
    match v {
        Value::String(s) => Key::Str(s),
        other => Key::Other(crate::schema::canonical_key(other)),
    }
}

/// The index of one long value list (see [`Conj::value_keys`]): positions by keyed hash (`SipHash`
/// with a random key, so a hostile list cannot make every value collide), built on first use.
pub type Keys = std::sync::Arc<std::sync::OnceLock<Index>>;

#[derive(Debug)]
pub struct Index {
    hasher: std::collections::hash_map::RandomState,
    at: HashMap<u64, Vec<u32>>,
}

/// Whether `v` is one of `values` (JSON Schema equality): a scan of a short list, a lookup in `keys`
/// (built from `values` on first use) for a long one.
#[must_use]
pub fn member(v: &Value, values: &[&Value], keys: &Keys) -> bool {
    use std::hash::BuildHasher as _;
    if values.len() <= INDEXED_VALUES {
        return values.iter().any(|x| json_eq(x, v));
    }
    let index = keys.get_or_init(|| {
        let hasher = std::collections::hash_map::RandomState::new();
        let mut at: HashMap<u64, Vec<u32>> = HashMap::with_capacity(values.len());
        for (i, x) in values.iter().enumerate() {
            at.entry(hasher.hash_one(key(x))).or_default().push(u32::try_from(i).unwrap_or(u32::MAX));
        }
        Index { hasher, at }
    });
    index
        .at
        .get(&index.hasher.hash_one(key(v)))
        .is_some_and(|hits| hits.iter().any(|&i| values.get(i as usize).is_some_and(|x| json_eq(x, v))))
}
