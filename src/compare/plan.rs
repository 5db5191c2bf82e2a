//! Candidate witnesses: for a change that narrows in the breaking direction, a few values the
//! accepting side ("sub": old for inputs, new for outputs) allows at the change's place and the other
//! side may reject.
//!
//! Takes a [`SchemaChange`] at the walker's current location; returns a [`Plan`] (instance path and
//! local candidates), or nothing for changes that cannot break. Promises nothing about the candidates
//! themselves: they are only guesses until [`Judge::confirm`] checks them against the whole schemas.

use serde_json::{Map, Value, json};

use super::budget::Budget;
use super::objects::{dependencies, dependency_chain};
use super::walk::{TRUE, Walker};
use super::witness::{self, Plan};
use super::{Fate, SchemaChange, Side};
use crate::load::span::escape_token;
use crate::schema::{TypeSet, View};

impl Walker<'_, '_> {
    /// Local candidate witnesses for a change that narrows in the breaking direction: values the
    /// accepting side ("sub": old for inputs, new for outputs) allows at this place and the other side
    /// may reject. Confirmed later against the whole schemas.
    #[allow(clippy::too_many_lines, reason = "one arm per change kind")]
    pub(super) fn plan_for(&self, change: &SchemaChange, old_ptr: Option<&str>, new_ptr: Option<&str>) -> Option<Plan> {
        let input = self.side == Side::Input;
        let &(lo, ln) = self.locals.last()?;
        let (sub, sub_root) = if input { (lo, self.old_root) } else { (ln, self.new_root) };
        let budget = self.budget;
        let ex = |s: &Value| witness::example(s, sub_root, budget);
        let sub_obj = || match ex(sub) {
            Some(Value::Object(m)) => Some(m),
            _ if sub.get("type").is_none_or(|t| t == "object") => Some(Map::new()),
            _ => None,
        };
        let with = |name: &str, value: Option<Value>| -> Vec<Value> {
            match (sub_obj(), value) {
                (Some(mut o), Some(v)) => {
                    o.insert(name.to_owned(), v);
                    vec![Value::Object(o)]
                }
                _ => Vec::new(),
            }
        };
        let prop = |name: &str| sub.get("properties").and_then(|p| p.get(name)).unwrap_or(&TRUE);
        let obj_only = || sub_obj().map(Value::Object).into_iter().collect::<Vec<_>>();
        let mut dropped = None;
        let candidates: Vec<Value> = match change {
            SchemaChange::RequiredAdded { .. } if input => obj_only(),
            SchemaChange::RequiredRemoved { .. } if !input => obj_only(),
            SchemaChange::PropertyRemoved { name, was_required, fate } => {
                if input {
                    if *fate == Fate::Ignored {
                        dropped = Some(name.clone());
                    }
                    with(name, ex(prop(name)))
                } else {
                    if !was_required {
                        dropped = Some(name.clone());
                    }
                    // The new schema may now allow values the old one forbade under that name.
                    let mut v: Vec<Value> = type_probes(&TRUE, TypeSet::ALL, sub_root, budget)
                        .into_iter()
                        .flat_map(|x| with(name, Some(x)))
                        .collect();
                    v.extend(obj_only());
                    v
                }
            }
            SchemaChange::PropertyRenamed { from, fate, .. } => {
                if input {
                    if *fate == Fate::Ignored {
                        dropped = Some(from.clone());
                    }
                    with(from, ex(prop(from)))
                } else {
                    dropped = Some(from.clone());
                    obj_only()
                }
            }
            SchemaChange::PropertyAdded { name, old_closed: true, .. } if !input => with(name, ex(prop(name))),
            // Strictly, an open old schema accepted any value under the new name; a witness shows it
            // (reported at `info`: undeclared arguments are not part of the old contract).
            SchemaChange::PropertyAdded { name, old_closed: false, .. } if input => {
                [json!(null), json!(true), json!("example"), json!(1), json!(0.5), json!([]), json!({})]
                    .into_iter()
                    .flat_map(|v| with(name, Some(v)))
                    .collect()
            }
            SchemaChange::AdditionalProperties { closed } if *closed == input => {
                with(witness::EXTRA_KEY, ex(sub.get("additionalProperties").unwrap_or(&TRUE)))
            }
            SchemaChange::Type { old, new } => {
                let lost = if input { old.minus(*new) } else { new.minus(*old) };
                let mut v = type_probes(sub, lost, sub_root, budget);
                // A union: the lost type's own branches, whose keywords (a required `url`) the
                // wrapper's example of that type does not know.
                let branches = ["anyOf", "oneOf"].into_iter().find_map(|k| sub.get(k).and_then(Value::as_array));
                for b in branches.into_iter().flatten().take(8) {
                    let types = View::new(witness::deref(b, sub_root), "").types.intersect(lost);
                    if !types.is_empty() {
                        v.extend(ex(b));
                        v.extend(type_probes(witness::deref(b, sub_root), types, sub_root, budget));
                    }
                }
                v
            }
            SchemaChange::Enum { removed, added, introduced, dropped: gone } => {
                let mut v: Vec<Value> = if input { removed } else { added }.iter().take(8).cloned().collect();
                if (input && *introduced) || (!input && *gone) {
                    let types = View::new(sub, "").types;
                    v.extend(type_probes(sub, types, sub_root, budget));
                    v.extend([
                        json!("x-mcp-drift"),
                        json!(""),
                        json!(0),
                        json!(-1),
                        json!(0.5),
                        json!(true),
                        json!(null),
                    ]);
                }
                v
            }
            SchemaChange::Constraint { keyword, old, new, delta } if delta.breaks(input) => {
                let sup = if input { ln } else { lo };
                constraint_probes(keyword, old.as_ref(), new.as_ref(), sub, sup, (sub_root, budget))
            }
            SchemaChange::Pattern { .. } => {
                let sup = if input { ln } else { lo };
                let mut v = separating_strings(sub, sup);
                v.extend(pattern_probes(sub));
                v.extend(ex(sub));
                v
            }
            SchemaChange::Composition { delta, .. } if delta.breaks(input) => {
                let (root, ptr) = if input { (self.old_root, old_ptr) } else { (self.new_root, new_ptr) };
                let branch = ptr.and_then(|p| p.strip_prefix(self.base)).and_then(|p| root.pointer(p));
                let mut v: Vec<Value> =
                    branch.and_then(|b| witness::example(b, sub_root, budget)).into_iter().collect();
                if let Some(b) = branch {
                    v.extend(type_probes(b, View::new(b, "").types, sub_root, budget));
                }
                v
            }
            _ => return None,
        };
        // A change of one keyword is proven only by a rejection at that keyword.
        let keyword = match change {
            SchemaChange::Constraint { keyword, .. } => Some(keyword.as_str()),
            SchemaChange::Pattern { .. } => Some("pattern"),
            _ => None,
        };
        let rejecting = if input { new_ptr } else { old_ptr };
        let at = keyword
            .zip(rejecting)
            .filter(|(k, p)| p.ends_with(&format!("/{k}")))
            .and_then(|(_, p)| p.strip_prefix(self.base))
            .map(str::to_owned);
        Some(Plan { tries: candidates.into_iter().map(|c| (self.path.clone(), c)).collect(), dropped, at })
    }
}

/// Values of the given types that respect the schema's other keywords where possible.
fn type_probes(sub: &Value, types: TypeSet, root: &Value, budget: &Budget) -> Vec<Value> {
    let mut out = Vec::new();
    let map = sub.as_object();
    for (bit, fallback) in [
        (TypeSet::NULL, json!(null)),
        (TypeSet::BOOLEAN, json!(true)),
        (TypeSet::STRING, json!("example")),
        (TypeSet::INTEGER, json!(1)),
        (TypeSet::FRACTION, json!(0.5)),
        (TypeSet::ARRAY, json!([])),
        (TypeSet::OBJECT, json!({})),
    ] {
        if !types.contains(bit) {
            continue;
        }
        // An example of the schema restricted to this one type.
        if let Some(m) = map {
            let mut only = m.clone();
            only.remove("enum");
            only.remove("const");
            only.remove("anyOf");
            only.remove("oneOf");
            let name = bit.names().first().map_or("null", |n| if *n == "non-integer number" { "number" } else { n });
            only.insert("type".into(), json!(name));
            if let Some(v) = witness::example(&Value::Object(only), root, budget) {
                if bit == TypeSet::FRACTION && TypeSet::of(&v) != TypeSet::FRACTION {
                    out.extend(v.as_f64().and_then(|f| witness::number(f + 0.5)));
                } else {
                    out.push(v);
                }
            }
        }
        out.push(fallback);
        if bit == TypeSet::FRACTION {
            out.extend([json!(1.5), json!(-0.5), json!(99.5)]);
        }
    }
    out
}

/// Strings to try against a changed `pattern`: general probes, the literals of an anchored
/// alternation, and strings that start with the pattern's literal prefix.
fn pattern_probes(sub: &Value) -> Vec<Value> {
    let mut v = string_probes();
    let pattern = sub.get("pattern").and_then(Value::as_str).unwrap_or("");
    if let Some(lits) = witness::literal_alternatives(pattern) {
        v.extend(lits.into_iter().map(Value::String));
    }
    if let Some(prefix) = witness::literal_prefix(pattern) {
        v.extend([json!(format!("{prefix}x")), json!(format!("{prefix}0")), json!(prefix)]);
    }
    v
}

fn string_probes() -> Vec<Value> {
    ["", "a", "A", "0", "-", " ", "a b", "ä", "aaaaaaaaaa", "A-1_b.c/d", "x@y", "https://example.com"]
        .into_iter()
        .map(|s| json!(s))
        .collect()
}

/// Values around the old and new bounds of a constraint.
#[allow(clippy::too_many_lines, reason = "one arm per keyword family")]
fn constraint_probes(
    keyword: &str,
    old: Option<&Value>,
    new: Option<&Value>,
    sub: &Value,
    sup: &Value,
    (root, budget): (&Value, &Budget),
) -> Vec<Value> {
    let (o, n) = (old.and_then(Value::as_f64), new.and_then(Value::as_f64));
    // The other bound of the same family matters too: a witness for a raised minimum must still
    // respect the maximum of the accepting side.
    let family: &[&str] = match keyword {
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
        }
        "minLength" | "maxLength" => &["minLength", "maxLength"],
        "minContains" | "maxContains" => &["minContains", "maxContains"],
        "minItems" | "maxItems" => &["minItems", "maxItems"],
        "minProperties" | "maxProperties" => &["minProperties", "maxProperties"],
        _ => &[],
    };
    let mut bounds: Vec<Option<f64>> = vec![o, n];
    for k in family {
        bounds.push(sub.get(*k).and_then(Value::as_f64));
        bounds.push(sup.get(*k).and_then(Value::as_f64));
    }
    let lengths = || -> Vec<usize> {
        let mut v: Vec<usize> = vec![0, 1, 2];
        for x in bounds.iter().copied().flatten() {
            if (0.0..100_000.0).contains(&x) {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "guarded: 0 <= x < 1e5")]
                let x = x as usize;
                v.extend([x, x.saturating_sub(1), x + 1]);
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    };
    let item = || sub.get("items").and_then(|i| witness::example(i, root, budget)).unwrap_or(json!("x"));
    match keyword {
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
            let mut exact: Vec<&Value> = vec![];
            exact.extend(old);
            exact.extend(new);
            for k in family {
                exact.extend(sub.get(*k));
                exact.extend(sup.get(*k));
            }
            let mut v = witness::integer_probes(&exact);
            v.extend(witness::numeric_probes(&bounds));
            v
        }
        "multipleOf" => {
            let mut v = Vec::new();
            for m in [o, n].into_iter().flatten() {
                for k in [1.0, 2.0, 3.0, 5.0] {
                    v.extend(witness::number(m * k));
                }
            }
            v.extend([json!(1), json!(0.5), json!(7), json!(10)]);
            v
        }
        "minLength" | "maxLength" => {
            // Of each length, a string both sides' patterns accept (so that only the length can
            // reject it), then the plain one.
            let patterns: Vec<&str> =
                [sub, sup].iter().filter_map(|s| s.get("pattern").and_then(Value::as_str)).collect();
            let mut v = Vec::new();
            for l in lengths() {
                if !patterns.is_empty()
                    && l <= MAX_PATTERN_LENGTH
                    && let Ok(Some(s)) = crate::schema::pattern::find(&patterns, &[], l as u64, Some(l as u64))
                {
                    v.push(json!(s));
                }
                v.push(json!("a".repeat(l)));
            }
            v
        }
        "minItems" | "maxItems" => lengths().into_iter().map(|l| Value::Array(vec![item(); l])).collect(),
        "uniqueItems" => vec![Value::Array(vec![item(), item()])],
        "minContains" | "maxContains" => {
            let matching = sub.get("contains").and_then(|c| witness::example(c, root, budget)).unwrap_or(json!("x"));
            lengths().into_iter().map(|l| Value::Array(vec![matching.clone(); l])).collect()
        }
        "dependentRequired" => {
            let trigger = new.or(old).and_then(Value::as_object).and_then(|m| m.keys().next().cloned());
            let base = match witness::example(sub, root, budget) {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            trigger
                .map(|k| {
                    let example_of = |name: &str| {
                        sub.pointer(&format!("/properties/{}", escape_token(name)))
                            .and_then(|s| witness::example(s, root, budget))
                            .unwrap_or(json!("example"))
                    };
                    let mut m = base;
                    m.insert(k.clone(), example_of(&k));
                    // What `sub` requires along with the trigger, through chains of dependencies.
                    let deps = dependencies(sub.get("dependentRequired"));
                    for d in dependency_chain(&deps, &k) {
                        let v = example_of(d);
                        m.entry(d.to_owned()).or_insert(v);
                    }
                    Value::Object(m)
                })
                .into_iter()
                .collect()
        }
        "minProperties" | "maxProperties" => {
            let base = match witness::example(sub, root, budget) {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            lengths()
                .into_iter()
                .map(|l| {
                    let mut m = base.clone();
                    let mut i = 0;
                    while m.len() < l {
                        m.insert(format!("{}-{i}", witness::EXTRA_KEY), json!("x"));
                        i += 1;
                    }
                    Value::Object(m)
                })
                .collect()
        }
        "pattern" => {
            let mut v = separating_strings(sub, sup);
            v.extend(pattern_probes(sub));
            v
        }
        _ => Vec::new(),
    }
}

/// Longest string asked of the pattern engine for a candidate (longer bounds get the plain probes).
const MAX_PATTERN_LENGTH: usize = 4096;

/// A string the accepting side's `pattern` matches and the rejecting side's does not, of a length
/// both sides allow (so that only the pattern rejects it), when the pattern engine finds one.
fn separating_strings(sub: &Value, sup: &Value) -> Vec<Value> {
    let pattern = |s: &Value| s.get("pattern").and_then(Value::as_str).map(str::to_owned);
    let (Some(yes), Some(no)) = (pattern(sub), pattern(sup)) else { return Vec::new() };
    let len = |s: &Value, k: &str| s.get(k).and_then(Value::as_u64);
    let min = len(sub, "minLength").unwrap_or(0).max(len(sup, "minLength").unwrap_or(0));
    let max = match (len(sub, "maxLength"), len(sup, "maxLength")) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    if min > MAX_PATTERN_LENGTH as u64 {
        return Vec::new();
    }
    match crate::schema::pattern::find(&[yes.as_str()], &[no.as_str()], min, max) {
        Ok(Some(s)) => vec![json!(s)],
        _ => Vec::new(),
    }
}
