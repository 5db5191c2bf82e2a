//! Negation in the normal form ([`super::nf`]): `not` pushed inward through the keywords' duals.
//!
//! Takes the conjuncts and the negated schema; narrows every conjunct to the instances that fail it
//! where that is expressible (`true`/`{}`, `¬¬x`, `type`, `enum`/`const`, one bound, length, count or
//! required name), and always by the JSON types on which the negated schema accepts everything
//! ([`vacuous`]). What is left is kept in `nots` on `Sup` (exact) and dropped on `Sub` (a widening).

use serde_json::Value;

use super::Block;
use super::nf::{Bound, Conj, Obj, S, Side, annotation, as_u64, exact_f64, side_name};
use crate::schema::{TypeSet, parse_types};

/// `not: v` (at `ns`) applied to every conjunct: `true`/`{}` reject everything, `¬¬x` is `x` (pushed to
/// `double`), `type`, `enum`/`const` and one-keyword duals exactly; anything else is kept in `nots` on
/// `Sup` and dropped on `Sub` (a widening).
pub(super) fn negate<'a>(
    acc: &mut [Conj<'a>],
    v: &'a Value,
    ns: &S<'a>,
    side: Side,
    double: &mut Vec<S<'a>>,
) -> Result<(), Block> {
    let bad =
        || Block::new("not", &ns.at, format!("{}: `not` has a value the validator would refuse", side_name(side)));
    if vacuous(v, 0) == TypeSet::ALL {
        // `not: {}` (or `true`, `{allOf: [{}]}`) rejects everything.
        for c in acc.iter_mut() {
            c.types = TypeSet::EMPTY;
        }
        return Ok(());
    }
    let Value::Object(nm) = v else { return Ok(()) };
    let only = |key: &str| nm.keys().all(|x| x == key || annotation(x));
    if nm.keys().all(|x| annotation(x)) {
        for c in acc.iter_mut() {
            c.types = TypeSet::EMPTY;
        }
        return Ok(());
    }
    if let Some(inner) = nm.get("not").filter(|_| only("not")) {
        // ¬¬x = x, exactly, on both sides.
        double.push(ns.child(inner, "not"));
        return Ok(());
    }
    if nm.contains_key("type") && only("type") {
        let t = parse_types(&nm["type"]).ok_or_else(bad)?;
        for c in acc.iter_mut() {
            c.types = c.types.minus(t);
        }
    } else if nm.contains_key("enum") && only("enum") || nm.contains_key("const") && only("const") {
        let vals: Vec<&Value> = match nm.get("const") {
            Some(x) => vec![x],
            None => nm["enum"].as_array().map(|a| a.iter().collect()).ok_or_else(bad)?,
        };
        for c in acc.iter_mut() {
            c.excluded.extend(vals.iter().copied());
        }
    } else if let Some((kw, x)) =
        nm.iter().find(|(k, _)| !annotation(k)).filter(|_| nm.keys().filter(|k| !annotation(k)).count() == 1)
        && dual(acc, kw, x, ns)
    {
    } else {
        // An instance of a type on which `v` accepts everything cannot fail it.
        let t = vacuous(v, 0);
        for c in acc.iter_mut() {
            c.types = c.types.minus(t);
            if side == Side::Sup {
                c.nots.push(ns.clone());
            }
        }
    }
    Ok(())
}

/// The JSON types on which the schema `v` accepts every instance (an under-estimate): a keyword only
/// constrains its own type (`minLength` strings, `required` objects, ...), `type` the others, `allOf`
/// every member's, `anyOf` one branch's; anything else (`enum`, `not`, `$ref`, ...) counts as
/// constraining every type.
#[must_use]
pub fn vacuous(v: &Value, depth: usize) -> TypeSet {
    let m = match v {
        Value::Bool(true) => return TypeSet::ALL,
        Value::Object(m) if depth < 8 => m,
        _ => return TypeSet::EMPTY,
    };
    let mut t = TypeSet::ALL;
    for (k, x) in m {
        let only = match k.as_str() {
            k if annotation(k) => continue,
            "type" => match parse_types(x) {
                Some(types) => {
                    t = t.intersect(types);
                    continue;
                }
                None => TypeSet::EMPTY,
            },
            "minLength" | "maxLength" | "pattern" => TypeSet::STRING,
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => TypeSet::NUMBER,
            "items" | "prefixItems" | "contains" | "minItems" | "maxItems" | "uniqueItems" | "unevaluatedItems" => {
                TypeSet::ARRAY
            }
            "properties"
            | "patternProperties"
            | "additionalProperties"
            | "required"
            | "minProperties"
            | "maxProperties"
            | "propertyNames"
            | "dependentRequired"
            | "dependentSchemas"
            | "unevaluatedProperties" => TypeSet::OBJECT,
            "allOf" => {
                let Value::Array(a) = x else { return TypeSet::EMPTY };
                t = a.iter().fold(t, |t, s| t.intersect(vacuous(s, depth + 1)));
                continue;
            }
            "anyOf" => {
                let Value::Array(a) = x else { return TypeSet::EMPTY };
                t = t.intersect(a.iter().fold(TypeSet::EMPTY, |u, s| u.union(vacuous(s, depth + 1))));
                continue;
            }
            _ => TypeSet::ALL,
        };
        t = t.minus(only);
    }
    t
}

static FALSE: Value = Value::Bool(false);

/// `not: {kw: x}` through the keyword's dual, exactly (the instances that fail `kw` are all of its
/// type and past the opposite bound). `false` when `kw` has no dual here.
fn dual<'a>(acc: &mut [Conj<'a>], kw: &str, x: &'a Value, ns: &S<'a>) -> bool {
    let num = exact_f64(x);
    let count = as_u64(x);
    for c in acc.iter_mut() {
        match (kw, num, count) {
            ("minimum", Some(v), _) => {
                c.types = c.types.intersect(TypeSet::NUMBER);
                c.hi = Some(tighter_hi(c.hi, Bound { v, strict: true }));
            }
            ("exclusiveMinimum", Some(v), _) => {
                c.types = c.types.intersect(TypeSet::NUMBER);
                c.hi = Some(tighter_hi(c.hi, Bound { v, strict: false }));
            }
            ("maximum", Some(v), _) => {
                c.types = c.types.intersect(TypeSet::NUMBER);
                c.lo = Some(tighter_lo(c.lo, Bound { v, strict: true }));
            }
            ("exclusiveMaximum", Some(v), _) => {
                c.types = c.types.intersect(TypeSet::NUMBER);
                c.lo = Some(tighter_lo(c.lo, Bound { v, strict: false }));
            }
            ("minLength", _, Some(n)) => {
                c.types = c.types.intersect(TypeSet::STRING);
                match n.checked_sub(1) {
                    Some(m) => c.max_len = Some(c.max_len.map_or(m, |o| o.min(m))),
                    None => c.types = TypeSet::EMPTY,
                }
            }
            ("maxLength", _, Some(n)) => {
                c.types = c.types.intersect(TypeSet::STRING);
                c.min_len = c.min_len.max(n.saturating_add(1));
            }
            ("minItems", _, Some(n)) => {
                c.types = c.types.intersect(TypeSet::ARRAY);
                match n.checked_sub(1) {
                    Some(m) => c.max_items = Some(c.max_items.map_or(m, |o| o.min(m))),
                    None => c.types = TypeSet::EMPTY,
                }
            }
            ("maxItems", _, Some(n)) => {
                c.types = c.types.intersect(TypeSet::ARRAY);
                c.min_items = c.min_items.max(n.saturating_add(1));
            }
            ("minProperties", _, Some(n)) => {
                c.types = c.types.intersect(TypeSet::OBJECT);
                match n.checked_sub(1) {
                    Some(m) => c.max_props = Some(c.max_props.map_or(m, |o| o.min(m))),
                    None => c.types = TypeSet::EMPTY,
                }
            }
            ("maxProperties", _, Some(n)) => {
                c.types = c.types.intersect(TypeSet::OBJECT);
                c.min_props = c.min_props.max(n.saturating_add(1));
            }
            ("required", _, _) => {
                // One name only: `not: {required: [a, b]}` is a disjunction (a missing, or b missing).
                let Some([Value::String(name)]) = x.as_array().map(Vec::as_slice) else { return false };
                c.types = c.types.intersect(TypeSet::OBJECT);
                let at = S { v: &FALSE, at: format!("{}/required/0", ns.at) };
                c.objs.push(Obj { props: vec![(name.as_str(), at)], patterns: Vec::new(), additional: None });
            }
            _ => return false,
        }
    }
    true
}

pub(super) fn tighter_lo(a: Option<Bound>, b: Bound) -> Bound {
    match a {
        Some(a) if a.v > b.v || (a.v == b.v && a.strict) => a,
        _ => b,
    }
}

pub(super) fn tighter_hi(a: Option<Bound>, b: Bound) -> Bound {
    match a {
        Some(a) if a.v < b.v || (a.v == b.v && a.strict) => a,
        _ => b,
    }
}
