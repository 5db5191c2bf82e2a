//! Building examples: a plausible instance of a schema (required members, types, bounds, lengths,
//! pattern literals, `const`/`enum`/`examples`/`default`), and the probe numbers around a bound.
//!
//! Takes a schema, its document root and the direction's [`Budget`]; returns a value or nothing.
//! Promises: bounded work (depth, steps, and at most [`INSTANCE_BYTES`] per instance, counted by
//! [`Cx`]); the example is not guaranteed valid: callers confirm it with a validator.

use serde_json::{Map, Number, Value, json};

use super::patterns::literal_alternatives;
use crate::compare::budget::{Budget, INSTANCE_BYTES};
use crate::schema::{self, TypeSet};

const MAX_DEPTH: usize = 24;

const MAX_EXAMPLE_ITEMS: usize = 1_000;

const MAX_EXAMPLE_LENGTH: usize = 10_000;

/// One instance under construction: the shared budget, and the bytes this instance holds so far
/// (about: string lengths, member names, and 8 per other value).
pub(super) struct Cx<'b> {
    pub(super) budget: &'b Budget,
    size: u64,
}

impl<'b> Cx<'b> {
    pub(super) fn new(budget: &'b Budget) -> Cx<'b> {
        Cx { budget, size: 0 }
    }

    /// Adds `n` bytes to the instance; `false` past [`INSTANCE_BYTES`] (the instance is not built).
    fn grow(&mut self, n: u64) -> bool {
        self.size = self.size.saturating_add(n);
        if self.size > INSTANCE_BYTES {
            self.budget.instance_too_large();
            return false;
        }
        true
    }

    /// A copy of `v` when it fits in the instance.
    pub(super) fn copy(&mut self, v: &Value) -> Option<Value> {
        let room = INSTANCE_BYTES.saturating_sub(self.size);
        let n = size_within(v, room)?;
        (self.grow(n) && self.budget.steps_n(n / 64)).then(|| v.clone())
    }

    /// Spends the instance's bytes on the budget once it is built.
    pub(super) fn finish(self, v: Option<Value>) -> Option<Value> {
        v.filter(|_| self.budget.bytes(self.size))
    }
}

/// The approximate size of `v` (as [`Cx`] counts it), or `None` past `limit`: linear in `limit` at
/// most, whatever the size of `v`.
pub(crate) fn size_within(v: &Value, limit: u64) -> Option<u64> {
    let mut total = 0u64;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        total += match v {
            Value::String(s) => s.len() as u64 + 2,
            Value::Array(a) => {
                stack.extend(a);
                8
            }
            Value::Object(o) => {
                for (k, x) in o {
                    total += k.len() as u64 + 4;
                    stack.push(x);
                }
                8
            }
            _ => 8,
        };
        if total > limit {
            return None;
        }
    }
    Some(total)
}

/// Follows `$ref` and single-member `allOf` from `schema`.
pub(crate) fn deref<'a>(mut schema: &'a Value, root: &'a Value) -> &'a Value {
    for _ in 0..32 {
        let Some(map) = schema.as_object() else { return schema };
        if let Some(r) = map.get("$ref").and_then(Value::as_str) {
            match schema::resolve(root, Some(map), r) {
                Ok((_, target)) => schema = target,
                Err(_) => return schema,
            }
        } else if let Some(Value::Array(members)) = map.get("allOf")
            && members.len() == 1
        {
            schema = &members[0];
        } else {
            return schema;
        }
    }
    schema
}

/// A plausible instance of `schema`, or `None` when none is found within the budget (and at most
/// [`INSTANCE_BYTES`]). Not guaranteed valid: callers confirm with a validator.
#[must_use]
pub fn example(schema: &Value, root: &Value, budget: &Budget) -> Option<Value> {
    let mut cx = Cx::new(budget);
    let v = example_at(schema, root, 0, &mut cx);
    cx.finish(v)
}

pub(super) fn example_at(schema: &Value, root: &Value, depth: usize, cx: &mut Cx<'_>) -> Option<Value> {
    if depth > MAX_DEPTH || !cx.budget.step() {
        return None;
    }
    let schema = deref(schema, root);
    let map = match schema {
        Value::Bool(true) => return cx.grow(9).then(|| json!("example")),
        Value::Object(m) => m,
        _ => return None,
    };
    if let Some(c) = map.get("const") {
        return cx.copy(c);
    }
    let types = map.get("type").and_then(schema::parse_types).unwrap_or_else(|| infer_types(map));
    if let Some(Value::Array(values)) = map.get("enum") {
        return values.iter().find(|v| types.admits(v)).and_then(|v| cx.copy(v));
    }
    for key in ["default", "examples"] {
        let v = if key == "examples" { map.get(key).and_then(|e| e.get(0)) } else { map.get(key) };
        if let Some(v) = v
            && types.admits(v)
        {
            return cx.copy(v);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            return branches
                .iter()
                .find_map(|b| example_at(b, root, depth + 1, cx))
                .map(|v| merge_parent(v, map, root, depth, cx));
        }
    }
    if let Some(Value::Array(members)) = map.get("allOf") {
        let mut acc: Option<Value> = None;
        for m in members {
            let v = example_at(m, root, depth + 1, cx)?;
            acc = Some(match (acc, v) {
                (Some(Value::Object(mut a)), Value::Object(b)) => {
                    a.extend(b);
                    Value::Object(a)
                }
                (_, v) => v,
            });
        }
        return acc.map(|v| merge_parent(v, map, root, depth, cx));
    }
    let order = [
        TypeSet::OBJECT,
        TypeSet::ARRAY,
        TypeSet::STRING,
        TypeSet::INTEGER,
        TypeSet::FRACTION,
        TypeSet::BOOLEAN,
        TypeSet::NULL,
    ];
    order.into_iter().filter(|t| types.contains(*t)).find_map(|t| of_type(map, t, root, depth, cx))
}

/// Adds the parent's own required properties to an example taken from one of its branches.
pub(super) fn merge_parent(
    v: Value,
    parent: &Map<String, Value>,
    root: &Value,
    depth: usize,
    cx: &mut Cx<'_>,
) -> Value {
    match (v, parent.contains_key("properties") || parent.contains_key("required")) {
        (Value::Object(mut obj), true) => {
            if let Some(Value::Object(base)) = of_type(parent, TypeSet::OBJECT, root, depth, cx) {
                for (k, x) in base {
                    obj.entry(k).or_insert(x);
                }
            }
            Value::Object(obj)
        }
        (v, _) => v,
    }
}

fn infer_types(map: &Map<String, Value>) -> TypeSet {
    let has = |keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
    if has(&["properties", "required", "additionalProperties", "minProperties", "maxProperties"]) {
        TypeSet::OBJECT
    } else if has(&["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"]) {
        TypeSet::ARRAY
    } else if has(&["minLength", "maxLength", "pattern", "format"]) {
        TypeSet::STRING
    } else if has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]) {
        TypeSet::NUMBER
    } else {
        TypeSet::ALL
    }
}

fn num(map: &Map<String, Value>, key: &str) -> Option<f64> {
    map.get(key).and_then(Value::as_f64)
}

pub(super) fn count(map: &Map<String, Value>, key: &str) -> Option<usize> {
    map.get(key).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok())
}

/// An example of one type that tries to respect the schema's keywords for that type.
fn of_type(map: &Map<String, Value>, t: TypeSet, root: &Value, depth: usize, cx: &mut Cx<'_>) -> Option<Value> {
    // Witnesses are for people to read; a schema that needs a huge instance gets none.
    if ["minItems", "minProperties"].iter().any(|k| count(map, k).is_some_and(|n| n > MAX_EXAMPLE_ITEMS))
        || count(map, "minLength").is_some_and(|n| n > MAX_EXAMPLE_LENGTH)
    {
        return None;
    }
    if !cx.grow(8) {
        return None;
    }
    Some(match t {
        TypeSet::NULL => Value::Null,
        TypeSet::BOOLEAN => Value::Bool(true),
        TypeSet::STRING => {
            // Checked before it is built: `minLength` alone can ask for more than the instance holds.
            let least = count(map, "minLength").map_or(0, |n| n as u64);
            if !cx.grow(least) {
                return None;
            }
            let s = string_example(map);
            if !cx.grow((s.len() as u64).saturating_sub(least)) {
                return None;
            }
            Value::String(s)
        }
        TypeSet::INTEGER | TypeSet::FRACTION => number_example(map, t == TypeSet::INTEGER)?,
        TypeSet::ARRAY => {
            let min = count(map, "minItems").unwrap_or(0);
            let mut items = Vec::new();
            if let Some(Value::Array(prefix)) = map.get("prefixItems") {
                for p in prefix.iter().take(min.max(prefix.len().min(min))) {
                    items.push(example_at(p, root, depth + 1, cx)?);
                }
            }
            let item_schema = map.get("items").unwrap_or(&Value::Bool(true));
            while items.len() < min {
                items.push(example_at(item_schema, root, depth + 1, cx)?);
            }
            Value::Array(items)
        }
        TypeSet::OBJECT => {
            let mut obj = Map::new();
            let props = map.get("properties").and_then(Value::as_object);
            if let Some(Value::Array(required)) = map.get("required") {
                for name in required.iter().filter_map(Value::as_str) {
                    let s = props
                        .and_then(|p| p.get(name))
                        .or_else(|| map.get("additionalProperties"))
                        .unwrap_or(&Value::Bool(true));
                    cx.grow(name.len() as u64 + 4).then_some(())?;
                    obj.insert(name.to_owned(), example_at(s, root, depth + 1, cx)?);
                }
            }
            let min = count(map, "minProperties").unwrap_or(0);
            if obj.len() < min
                && let Some(p) = props
            {
                for (name, s) in p {
                    if obj.len() >= min {
                        break;
                    }
                    if !obj.contains_key(name) {
                        cx.grow(name.len() as u64 + 4).then_some(())?;
                        obj.insert(name.clone(), example_at(s, root, depth + 1, cx)?);
                    }
                }
            }
            Value::Object(obj)
        }
        _ => return None,
    })
}

fn string_example(map: &Map<String, Value>) -> String {
    if let Some(p) = map.get("pattern").and_then(Value::as_str)
        && let Some(first) = literal_alternatives(p).and_then(|l| l.into_iter().next())
    {
        return first;
    }
    let base = match map.get("format").and_then(Value::as_str) {
        Some("date") => "2024-01-31",
        Some("date-time") => "2024-01-31T12:00:00Z",
        Some("time") => "12:00:00Z",
        Some("email") => "dev@example.com",
        Some("uri" | "url" | "iri") => "https://example.com/a",
        Some("uuid") => "123e4567-e89b-12d3-a456-426614174000",
        Some("ipv4") => "192.0.2.1",
        Some("hostname") => "example.com",
        _ => "example",
    };
    let min = count(map, "minLength").unwrap_or(0);
    let max = count(map, "maxLength").unwrap_or(usize::MAX);
    // Counted once: a `chars().count()` per pushed character is quadratic in `minLength`.
    let mut s: String = base.to_owned();
    let have = s.chars().count();
    s.extend(std::iter::repeat_n('x', min.saturating_sub(have)));
    if max < have.max(min) { s.chars().take(max).collect() } else { s }
}

fn number_example(map: &Map<String, Value>, integer: bool) -> Option<Value> {
    let lo = num(map, "minimum").or_else(|| num(map, "exclusiveMinimum").map(|x| x + 1.0));
    let hi = num(map, "maximum").or_else(|| num(map, "exclusiveMaximum").map(|x| x - 1.0));
    let step = num(map, "multipleOf");
    let mut x = lo.unwrap_or_else(|| hi.map_or(1.0, |h| h.min(1.0)));
    if let Some(m) = step.filter(|m| *m > 0.0) {
        x = (x / m).ceil() * m;
    }
    if integer {
        x = x.ceil();
    } else if step.is_none() {
        x += 0.5;
        if let Some(h) = hi
            && x > h
        {
            x = f64::midpoint(lo.unwrap_or(h - 1.0), h);
        }
    }
    number(x)
}

/// A JSON number for `x`, written as an integer when it is one.
#[must_use]
pub fn number(x: f64) -> Option<Value> {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        #[allow(clippy::cast_possible_truncation, reason = "guarded: integral and |x| < 9e15")]
        return Some(Value::Number(Number::from(x as i64)));
    }
    Number::from_f64(x).map(Value::Number)
}

/// Exact integer neighbours of integer bounds (no rounding through `f64`).
#[must_use]
pub fn integer_probes(values: &[&Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for v in values {
        let base = v.as_i64().map(i128::from).or_else(|| v.as_u64().map(i128::from));
        if let Some(b) = base {
            for d in [0i128, -1, 1] {
                let x = b + d;
                if let Ok(i) = i64::try_from(x) {
                    out.push(Value::from(i));
                } else if let Ok(u) = u64::try_from(x) {
                    out.push(Value::from(u));
                }
            }
        }
    }
    out
}

/// Probe values for a bound change: the bounds themselves and their neighbours.
#[must_use]
pub fn numeric_probes(values: &[Option<f64>]) -> Vec<Value> {
    let mut out = Vec::new();
    for v in values.iter().flatten() {
        for d in [0.0, -1.0, 1.0, -0.5, 0.5] {
            if let Some(n) = number(v + d) {
                out.push(n);
            }
        }
    }
    for extra in [0.0, 1.0, -1.0, 0.5, 1e9, -1e9] {
        out.extend(number(extra));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_respect_constraints() {
        let root = json!({});
        let s = json!({"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "integer", "minimum": 5, "multipleOf": 3}, "b": {"type": "string", "minLength": 9}}});
        let v = example(&s, &root, &Budget::default()).unwrap();
        assert!(jsonschema::is_valid(&s, &v), "{v}");
    }
}
