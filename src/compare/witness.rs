//! Witnesses: concrete instances that prove a break. For an input change, a complete arguments object
//! that the old `inputSchema` accepts and the new one rejects; for an output change, a value the new
//! `outputSchema` allows and the old one rejects.
//!
//! The walk records, for every change that narrows in the breaking direction, the instance path that
//! leads to it and a few local candidate values. This module builds full instances around the
//! candidates (using examples of the enclosing schemas) and confirms them with the `jsonschema` crate
//! (draft 2020-12, no network). Only a confirmed witness is ever returned.

use std::collections::HashSet;

use serde_json::{Map, Number, Value, json};

use super::budget::{Budget, INSTANCE_BYTES};
use crate::schema::{self, TypeSet};

/// A step from a schema to the instance location of a subschema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// An object member; the name can differ between the sides for renames.
    Key { old: String, new: String },
    /// A member matched by `additionalProperties`.
    Extra,
    /// An array element (`items` or `prefixItems`).
    Index(usize),
    /// A branch of `anyOf`/`oneOf`/`allOf`, by index on each side.
    Branch { keyword: &'static str, old: usize, new: usize },
}

/// What the walk hands over for confirmation.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Instance paths and the local values to place there, tried in order.
    pub tries: Vec<(Vec<Seg>, Value)>,
    /// The change drops a declared name without making validation fail (a removed or renamed
    /// parameter of an open schema): a witness accepted by both sides still proves it.
    pub dropped: Option<String>,
}

/// A confirmed counterexample.
#[derive(Clone, Debug, PartialEq)]
pub struct Witness {
    /// The complete instance (arguments object, or result value).
    pub instance: Value,
    /// Why the other schema rejects it, as the validator says; or why the value is lost.
    pub rejected_because: String,
    /// Both schemas accept the instance, but a declared value is silently dropped.
    pub dropped: bool,
}

/// The name used for a property that no schema declares.
pub const EXTRA_KEY: &str = "x-mcp-drift-extra";

const MAX_DEPTH: usize = 24;
const MAX_EXAMPLE_ITEMS: usize = 1_000;
const MAX_EXAMPLE_LENGTH: usize = 10_000;

/// One instance under construction: the shared budget, and the bytes this instance holds so far
/// (about: string lengths, member names, and 8 per other value).
struct Cx<'b> {
    budget: &'b Budget,
    size: u64,
}

impl<'b> Cx<'b> {
    fn new(budget: &'b Budget) -> Cx<'b> {
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
    fn copy(&mut self, v: &Value) -> Option<Value> {
        let room = INSTANCE_BYTES.saturating_sub(self.size);
        let n = size_within(v, room)?;
        (self.grow(n) && self.budget.steps_n(n / 64)).then(|| v.clone())
    }

    /// Spends the instance's bytes on the budget once it is built.
    fn finish(self, v: Option<Value>) -> Option<Value> {
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

fn example_at(schema: &Value, root: &Value, depth: usize, cx: &mut Cx<'_>) -> Option<Value> {
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
fn merge_parent(v: Value, parent: &Map<String, Value>, root: &Value, depth: usize, cx: &mut Cx<'_>) -> Value {
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

fn count(map: &Map<String, Value>, key: &str) -> Option<usize> {
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

/// The literals of `^(a|b|c)$` or `^a$`, when the pattern is nothing else.
#[must_use]
pub fn literal_alternatives(pattern: &str) -> Option<Vec<String>> {
    let inner = pattern.strip_prefix('^')?.strip_suffix('$')?;
    let inner = inner
        .strip_prefix("(?:")
        .or_else(|| inner.strip_prefix('('))
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or(inner);
    let is_literal =
        |s: &str| s.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' ' | ':' | '@' | '/' | ','));
    let parts: Vec<String> = inner.split('|').map(str::to_owned).collect();
    parts.iter().all(|p| is_literal(p)).then_some(parts)
}

/// The literal text a pattern requires at the start (`^refs/heads/` -> `refs/heads/`).
#[must_use]
pub fn literal_prefix(pattern: &str) -> Option<String> {
    let rest = pattern.strip_prefix('^')?;
    let prefix: String =
        rest.chars().take_while(|c| c.is_alphanumeric() || matches!(c, '/' | '_' | '-' | ':' | '@')).collect();
    (!prefix.is_empty()).then_some(prefix)
}

/// Builds a complete instance of `root` with `local` at `path`. `old_side` picks the member names.
#[must_use]
pub fn embed(root: &Value, path: &[Seg], old_side: bool, local: Value, budget: &Budget) -> Option<Value> {
    let mut cx = Cx::new(budget);
    let v = embed_at(root, root, path, (old_side, old_side), local, 0, &mut cx);
    cx.finish(v)
}

/// `sides`: which side's member names and which side's branch indices to follow. They differ when a
/// witness for a renamed member is built with its new name on the old schema.
fn embed_at(
    schema: &Value,
    root: &Value,
    path: &[Seg],
    sides: (bool, bool),
    local: Value,
    depth: usize,
    cx: &mut Cx<'_>,
) -> Option<Value> {
    let (old_side, old_branches) = sides;
    let Some((seg, rest)) = path.split_first() else { return Some(local) };
    if depth > 64 || !cx.budget.step() {
        return None;
    }
    let schema = deref(schema, root);
    let map = schema.as_object();
    let get = |k: &str| map.and_then(|m| m.get(k));
    match seg {
        Seg::Key { .. } | Seg::Extra => {
            let (key, child) = match seg {
                Seg::Key { old, new } => {
                    let k = if old_side { old } else { new };
                    (k.clone(), get("properties").and_then(|p| p.get(k)).or_else(|| get("additionalProperties")))
                }
                _ => (EXTRA_KEY.to_owned(), get("additionalProperties")),
            };
            let mut base = match example_at(schema, root, depth, cx) {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            let value = embed_at(child.unwrap_or(&Value::Bool(true)), root, rest, sides, local, depth + 1, cx)?;
            base.insert(key, value);
            Some(Value::Object(base))
        }
        Seg::Index(i) => {
            let child =
                get("prefixItems").and_then(|p| p.get(*i)).or_else(|| get("items")).unwrap_or(&Value::Bool(true));
            let mut items = match example_at(schema, root, depth, cx) {
                Some(Value::Array(a)) => a,
                _ => Vec::new(),
            };
            while items.len() <= *i {
                let filler = get("prefixItems").and_then(|p| p.get(items.len())).unwrap_or(child);
                items.push(example_at(filler, root, depth + 1, cx).unwrap_or(Value::Null));
            }
            items[*i] = embed_at(child, root, rest, sides, local, depth + 1, cx)?;
            Some(Value::Array(items))
        }
        Seg::Branch { keyword, old, new } => {
            let index = if old_branches { *old } else { *new };
            // The sides may use different keywords, and a plain schema is a list of one alternative.
            let list = [*keyword, "anyOf", "oneOf", "allOf"].into_iter().find_map(|k| get(k).and_then(Value::as_array));
            let Some(list) = list else {
                return embed_at(schema, root, rest, sides, local, depth + 1, cx);
            };
            let branch = list.get(index)?;
            let inner = embed_at(branch, root, rest, sides, local, depth + 1, cx)?;
            Some(match (inner, map) {
                (Value::Object(o), Some(m)) => merge_parent(Value::Object(o), m, root, depth, cx),
                (v, _) => v,
            })
        }
    }
}

/// Validators for the two whole schemas of one direction.
pub struct Judge<'s> {
    sub: &'s Value,
    sup: &'s Value,
    /// Either schema has an enum longer than [`LONG_ENUM`]: validators are then built per plan from
    /// shrunk copies (see [`shrink_enums`]) instead of once from the whole documents.
    long_enums: bool,
    whole: std::cell::OnceCell<Validators>,
    /// Why validation is not attempted: a document unfolds past [`UNFOLDED`] subschemas (`true`), or
    /// has a `$ref` cycle that takes no step into the instance (`false`).
    unfolded: std::cell::OnceCell<Option<bool>>,
}

type Validators = (Option<jsonschema::Validator>, Option<jsonschema::Validator>);

/// Enums longer than this are shrunk before validating a witness: compiling a million-value enum
/// builds a hash set of a million values, twice, for a handful of instances.
const LONG_ENUM: usize = 256;

fn build(schema: &Value) -> Option<jsonschema::Validator> {
    jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(schema).ok()
}

impl<'s> Judge<'s> {
    /// `sub` must accept the witness and `sup` must reject it.
    #[must_use]
    pub fn new(sub: &'s Value, sup: &'s Value) -> Judge<'s> {
        let long_enums = has_long_enum(sub) || has_long_enum(sup);
        Judge { sub, sup, long_enums, whole: std::cell::OnceCell::new(), unfolded: std::cell::OnceCell::new() }
    }

    /// Tries the candidates of a plan; the first confirmed one wins. Building and validating each
    /// instance spends `budget`; none is tried once it is exhausted.
    #[must_use]
    pub fn confirm(&self, sub_root: &Value, plan: &Plan, old_side: bool, budget: &Budget) -> Option<Witness> {
        // A change under a renamed member is also tried under the new name: callers who follow the
        // rename meet it there.
        let renamed = |path: &Vec<Seg>| path.iter().any(|s| matches!(s, Seg::Key { old, new } if old != new));
        let instances: Vec<Value> = plan
            .tries
            .iter()
            .flat_map(|(path, candidate)| {
                let mut v = vec![(path, candidate, old_side)];
                if renamed(path) {
                    v.push((path, candidate, !old_side));
                }
                v
            })
            .filter_map(|(path, candidate, key_side)| {
                let mut cx = Cx::new(budget);
                let local = cx.copy(candidate)?;
                let v = embed_at(sub_root, sub_root, path, (key_side, old_side), local, 0, &mut cx);
                // Validation is bounded by the instance's bytes (spent here) and by `unfolded` below.
                cx.finish(v)
            })
            .collect();
        if instances.is_empty() {
            return None;
        }
        let instances: Vec<Value> = instances.into_iter().filter(|i| self.affordable(i, budget)).collect();
        if instances.is_empty() {
            return None;
        }
        let shrunk;
        let (sub, sup) = if self.long_enums {
            let keep = Members::of(&instances);
            shrunk = (build(&shrink_enums(self.sub, &keep)), build(&shrink_enums(self.sup, &keep)));
            (shrunk.0.as_ref()?, shrunk.1.as_ref()?)
        } else {
            let whole = self.whole.get_or_init(|| (build(self.sub), build(self.sup)));
            (whole.0.as_ref()?, whole.1.as_ref()?)
        };
        let mut dropped = None;
        for instance in instances {
            if !sub.is_valid(&instance) {
                continue;
            }
            match sup.validate(&instance) {
                Err(e) => {
                    let at = e.instance_path().to_string();
                    let message = self.message(&e);
                    let because = if at.is_empty() { message } else { format!("at {at}: {message}") };
                    return Some(Witness { instance, rejected_because: because, dropped: false });
                }
                Ok(()) => {
                    if let (Some(name), None) = (&plan.dropped, &dropped) {
                        dropped = Some(Witness {
                            instance,
                            rejected_because: format!(
                                "not rejected: `{name}` is no longer declared, so validation passes and the value is silently dropped"
                            ),
                            dropped: true,
                        });
                    }
                }
            }
        }
        dropped
    }

    /// Whether validating `instance` against both documents is within bounds. The validator has no
    /// budget of its own, so its work is bounded first (a `$ref` diamond makes it exponential in the
    /// size of the schema): by the documents' unfolded size (once per judge), and, for documents that
    /// unfold too far, by the visits this instance takes. A refusal is recorded in `budget`.
    pub(crate) fn affordable(&self, instance: &Value, budget: &Budget) -> bool {
        let unfolded = *self.unfolded.get_or_init(|| {
            unfolded_size(self.sub, UNFOLDED, budget).and_then(|_| unfolded_size(self.sup, UNFOLDED, budget)).err()
        });
        if unfolded.is_none() {
            return true;
        }
        let visits = |doc| instance_visits(doc, instance, UNFOLDED, budget);
        match visits(self.sub).and_then(|_| visits(self.sup)) {
            Ok(_) => true,
            Err(too_large) => {
                budget.unfolded_too_large(if too_large { UNFOLDED } else { 0 });
                false
            }
        }
    }

    /// Whether validators are built per call from shrunk copies (an enum is longer than [`LONG_ENUM`]).
    pub(crate) fn long_enums(&self) -> bool {
        self.long_enums
    }

    /// Runs `f` with the (accepting, rejecting) validators fit for `instances`: the whole documents'
    /// (built once per judge), or shrunk copies when an enum is long. `None` when a schema does not
    /// compile.
    pub(crate) fn with_validators<T>(
        &self,
        instances: &[Value],
        f: impl FnOnce(&jsonschema::Validator, &jsonschema::Validator) -> Option<T>,
    ) -> Option<T> {
        if self.long_enums {
            let keep = Members::of(instances);
            let (sub, sup) = (build(&shrink_enums(self.sub, &keep)), build(&shrink_enums(self.sup, &keep)));
            return f(sub.as_ref()?, sup.as_ref()?);
        }
        let whole = self.whole.get_or_init(|| (build(self.sub), build(self.sup)));
        f(whole.0.as_ref()?, whole.1.as_ref()?)
    }

    /// The validator's message, except that a shrunk enum is described by its whole list, and that a
    /// value no `anyOf`/`oneOf` branch accepts is explained by the branch that came closest (fewest
    /// errors, then the deepest one) instead of the whole value again.
    pub(crate) fn message(&self, e: &jsonschema::ValidationError<'_>) -> String {
        use jsonschema::error::ValidationErrorKind as Kind;
        if let Kind::AnyOf { context } | Kind::OneOfNotValid { context } = e.kind()
            && let Some((branch, inner)) = closest_branch(context)
        {
            let keyword = if matches!(e.kind(), Kind::AnyOf { .. }) { "anyOf" } else { "oneOf" };
            let at = inner.instance_path().to_string();
            let at =
                if at.is_empty() || at == e.instance_path().to_string() { String::new() } else { format!(" at {at}") };
            return format!(
                "no `{keyword}` branch accepts it; the closest, branch {branch}, rejects it{at}: {}",
                self.message(inner)
            );
        }
        if let Kind::Enum { .. } = e.kind()
            && self.long_enums
            && let Some(Value::Array(all)) = self.sup.pointer(e.schema_path().as_str())
            && all.len() > LONG_ENUM
        {
            return format!(
                "{} is not one of {}, {} or {} other candidates",
                e.instance(),
                all[0],
                all[1],
                all.len() - 2
            );
        }
        e.to_string()
    }
}

/// How many subschemas validating one instance location can apply, at most, through `$ref`s: the
/// size of `doc` unfolded at its references, each reference cycle counted once (the instance bounds
/// how often it is taken). `Err(true)` past `limit` (or the budget), `Err(false)` on a cycle that
/// takes no step into the instance (a validator may never leave it). Linear in the size of `doc`:
/// the count of each subschema is memoized; a `$ref` diamond is exponential in its depth only in
/// the result.
fn unfolded_size(doc: &Value, limit: u64, budget: &Budget) -> Result<u64, bool> {
    struct Unfold<'d> {
        doc: &'d Value,
        limit: u64,
        budget: &'d Budget,
        memo: std::collections::HashMap<*const Value, u64>,
        /// Subschemas being counted, with the instance steps taken when each was entered.
        open: std::collections::HashMap<*const Value, usize>,
        steps: usize,
        depth: usize,
    }
    impl<'d> Unfold<'d> {
        fn size(&mut self, s: &'d Value) -> Result<u64, bool> {
            let key: *const Value = s;
            if let Some(&n) = self.memo.get(&key) {
                return Ok(n);
            }
            if let Some(&at) = self.open.get(&key) {
                return if self.steps > at { Ok(1) } else { Err(false) };
            }
            if self.depth > 512 || !self.budget.step() {
                return Err(true);
            }
            let Value::Object(m) = s else { return Ok(1) };
            self.open.insert(key, self.steps);
            self.depth += 1;
            let mut total = 1u64;
            for (k, v) in m {
                const STEP: &[&str] = &[
                    "properties",
                    "patternProperties",
                    "additionalProperties",
                    "unevaluatedProperties",
                    "propertyNames",
                    "items",
                    "prefixItems",
                    "additionalItems",
                    "contains",
                    "unevaluatedItems",
                ];
                if schema::is_instance_data(k) || matches!(k.as_str(), "$defs" | "definitions") {
                    continue;
                }
                let step = usize::from(STEP.contains(&k.as_str()));
                self.steps += step;
                let n = match (k.as_str(), v) {
                    ("$ref" | "$dynamicRef" | "$recursiveRef", Value::String(r)) => {
                        schema::resolve(self.doc, Some(m), r).ok().map_or(Ok(0), |(_, t)| self.size(t))
                    }
                    ("properties" | "patternProperties" | "dependentSchemas", Value::Object(map)) => {
                        map.values().try_fold(0u64, |acc, x| Ok(acc.saturating_add(self.size(x)?)))
                    }
                    (_, Value::Array(list)) => {
                        list.iter().try_fold(0u64, |acc, x| Ok(acc.saturating_add(self.size(x)?)))
                    }
                    (_, Value::Object(_)) => self.size(v),
                    _ => Ok(0),
                };
                self.steps -= step;
                total = total.saturating_add(n?);
                if total > self.limit {
                    return Err(true);
                }
            }
            self.depth -= 1;
            self.open.remove(&key);
            self.memo.insert(key, total);
            Ok(total)
        }
    }
    let mut u = Unfold {
        doc,
        limit,
        budget,
        memo: std::collections::HashMap::new(),
        open: std::collections::HashMap::new(),
        steps: 0,
        depth: 0,
    };
    u.size(doc)
}

/// How many (subschema, instance location) visits validating `instance` against `doc` takes at most,
/// through every applicator and `$ref` (as if no `anyOf` stopped early): the exact count for the
/// validator's worst case, found in one visit per distinct pair (memoized), so a `$ref` diamond is
/// exponential only in the result. Errors as [`unfolded_size`]. For schemas that unfold too far to
/// validate every instance blindly, but whose instance takes few of the paths.
fn instance_visits(doc: &Value, instance: &Value, limit: u64, budget: &Budget) -> Result<u64, bool> {
    type Pair = (*const Value, *const Value);
    struct Visits<'d> {
        doc: &'d Value,
        limit: u64,
        budget: &'d Budget,
        memo: std::collections::HashMap<Pair, u64>,
        open: HashSet<Pair>,
        depth: usize,
    }
    impl<'d> Visits<'d> {
        fn sum(&mut self, pairs: impl Iterator<Item = (&'d Value, &'d Value)>) -> Result<u64, bool> {
            let mut total = 0u64;
            for (s, i) in pairs {
                total = total.saturating_add(self.count(s, i)?);
                if total > self.limit {
                    return Err(true);
                }
            }
            Ok(total)
        }

        fn count(&mut self, s: &'d Value, i: &'d Value) -> Result<u64, bool> {
            let key: Pair = (s, i);
            if let Some(&n) = self.memo.get(&key) {
                return Ok(n);
            }
            let Value::Object(m) = s else { return Ok(1) };
            if !self.open.insert(key) {
                return Err(false);
            }
            if self.depth > 512 || !self.budget.step() {
                return Err(true);
            }
            self.depth += 1;
            let get = |k: &str| m.get(k);
            let mut here: Vec<&'d Value> = Vec::new();
            for k in ["$ref", "$dynamicRef", "$recursiveRef"] {
                if let Some(r) = get(k).and_then(Value::as_str)
                    && let Ok((_, target)) = schema::resolve(self.doc, Some(m), r)
                {
                    here.push(target);
                }
            }
            for k in ["allOf", "anyOf", "oneOf"] {
                here.extend(get(k).and_then(Value::as_array).into_iter().flatten());
            }
            here.extend(["not", "if", "then", "else"].into_iter().filter_map(get));
            here.extend(get("dependentSchemas").and_then(Value::as_object).into_iter().flat_map(|d| d.values()));
            let mut pairs: Vec<(&'d Value, &'d Value)> = here.into_iter().map(|x| (x, i)).collect();
            let mut names = 0u64;
            match i {
                Value::Object(members) => {
                    let props = get("properties").and_then(Value::as_object);
                    let patterns = get("patternProperties").and_then(Value::as_object);
                    let rest: Vec<&'d Value> =
                        ["additionalProperties", "unevaluatedProperties"].into_iter().filter_map(get).collect();
                    for (k, v) in members {
                        pairs.extend(props.and_then(|p| p.get(k)).map(|x| (x, v)));
                        pairs.extend(patterns.into_iter().flat_map(|p| p.values()).map(|x| (x, v)));
                        pairs.extend(rest.iter().map(|x| (*x, v)));
                    }
                    if get("propertyNames").is_some() {
                        names = members.len() as u64;
                    }
                }
                Value::Array(items) => {
                    let prefix = get("prefixItems").and_then(Value::as_array);
                    let rest: Vec<&'d Value> = ["items", "additionalItems", "contains", "unevaluatedItems"]
                        .into_iter()
                        .filter_map(get)
                        .collect();
                    for (n, v) in items.iter().enumerate() {
                        pairs.extend(prefix.and_then(|p| p.get(n)).map(|x| (x, v)));
                        pairs.extend(rest.iter().map(|x| (*x, v)));
                    }
                }
                _ => {}
            }
            let total = self.sum(pairs.into_iter())?.saturating_add(1 + names);
            self.depth -= 1;
            self.open.remove(&key);
            self.memo.insert(key, total);
            Ok(total)
        }
    }
    let mut v = Visits { doc, limit, budget, memo: std::collections::HashMap::new(), open: HashSet::new(), depth: 0 };
    v.count(doc, instance)
}

/// Validating one instance may take at most this many (subschema, instance location) visits; past it
/// no witness is validated. Checked for the whole schema first ([`unfolded_size`], once), and per
/// instance ([`instance_visits`]) only when the schema unfolds past it.
pub const UNFOLDED: u64 = 1_000_000;

/// The branch of a failed `anyOf`/`oneOf` that came closest to accepting the value: the fewest errors,
/// then the deepest error (the most specific reason), then the first branch; with that deepest error.
fn closest_branch<'e>(
    context: &'e [Vec<jsonschema::ValidationError<'static>>],
) -> Option<(usize, &'e jsonschema::ValidationError<'static>)> {
    let depth = |e: &jsonschema::ValidationError<'_>| e.instance_path().to_string().matches('/').count();
    context
        .iter()
        .enumerate()
        .filter_map(|(k, errors)| errors.iter().max_by_key(|e| depth(e)).map(|deepest| (k, errors.len(), deepest)))
        .min_by_key(|(k, count, deepest)| (*count, std::cmp::Reverse(depth(deepest)), *k))
        .map(|(k, _, deepest)| (k, deepest))
}

/// The values that occur anywhere in a set of instances (every member, element and the roots).
struct Members<'i> {
    strings: HashSet<&'i str>,
    others: HashSet<String>,
}

impl<'i> Members<'i> {
    fn of(instances: &'i [Value]) -> Members<'i> {
        let mut m = Members { strings: HashSet::new(), others: HashSet::new() };
        let mut stack: Vec<&Value> = instances.iter().collect();
        while let Some(v) = stack.pop() {
            match v {
                Value::String(s) => {
                    m.strings.insert(s);
                }
                Value::Array(a) => stack.extend(a),
                Value::Object(o) => stack.extend(o.values()),
                _ => {}
            }
            if !v.is_string() {
                m.others.insert(schema::canonical_key(v));
            }
        }
        m
    }

    fn contains(&self, v: &Value) -> bool {
        match v {
            // Instances hold a few strings; a linear look beats hashing each of a million values.
            Value::String(s) if self.strings.len() <= 16 => self.strings.iter().any(|x| *x == s.as_str()),
            Value::String(s) => self.strings.contains(s.as_str()),
            other => self.others.contains(&schema::canonical_key(other)),
        }
    }
}

fn has_long_enum(schema: &Value) -> bool {
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    match (k.as_str(), x) {
                        ("enum", Value::Array(list)) if list.len() > LONG_ENUM => return true,
                        (k, _) if schema::is_instance_data(k) => {}
                        _ => stack.push(x),
                    }
                }
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    false
}

/// A copy of `schema` whose long enums keep only their first value and the values in `keep`.
///
/// Exact for validating instances whose values are all in `keep`: at any instance location the value
/// there is in `keep`, so it is in the shrunk list exactly when it is in the whole one. Data keywords
/// (`const`, `default`, `examples`) are copied untouched, so a member that merely looks like an
/// `enum` is never changed; that can only leave a list long, never make it wrong.
fn shrink_enums(schema: &Value, keep: &Members<'_>) -> Value {
    match schema {
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| {
                    let x = match (k.as_str(), x) {
                        ("enum", Value::Array(list)) if list.len() > LONG_ENUM => Value::Array(
                            list.iter()
                                .enumerate()
                                .filter(|(i, v)| *i == 0 || keep.contains(v))
                                .map(|(_, v)| v.clone())
                                .collect(),
                        ),
                        (k, _) if schema::is_instance_data(k) => x.clone(),
                        _ => shrink_enums(x, keep),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| shrink_enums(x, keep)).collect()),
        other => other.clone(),
    }
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

/// Whether every string matching `p` also matches `q`, for the shapes this can be proven on: equal
/// patterns, `q` a bare literal prefix that `p`'s literal prefix extends, or both anchored literal
/// alternations with `p`'s literals all allowed by `q`. `false` means "not proven".
#[must_use]
pub fn pattern_implies(p: &str, q: &str) -> bool {
    if p == q {
        return true;
    }
    let q_prefix_only = literal_prefix(q).filter(|l| q.len() == l.len() + 1);
    if let Some(l) = &q_prefix_only {
        if literal_prefix(p).is_some_and(|pl| pl.starts_with(l.as_str())) {
            return true;
        }
        if let Some(lits) = literal_alternatives(p) {
            return lits.iter().all(|x| x.starts_with(l.as_str()));
        }
    }
    match (literal_alternatives(p), literal_alternatives(q)) {
        (Some(a), Some(b)) => a.iter().all(|x| b.contains(x)),
        _ => false,
    }
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

    #[test]
    fn embeds_along_a_path() {
        let root = json!({"type": "object", "required": ["q"], "properties": {"q": {"type": "string"}, "filter": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}}});
        let path = [
            Seg::Key { old: "filter".into(), new: "filter".into() },
            Seg::Key { old: "tags".into(), new: "tags".into() },
            Seg::Index(0),
        ];
        let v = embed(&root, &path, true, json!(7), &Budget::default()).unwrap();
        assert_eq!(v, json!({"q": "example", "filter": {"tags": [7]}}));
    }

    #[test]
    fn pattern_implication() {
        assert!(pattern_implies("^refs/heads/", "^refs/"));
        assert!(pattern_implies("^refs/heads/[a-z]+$", "^refs/"));
        assert!(!pattern_implies("^refs/", "^refs/heads/"));
        assert!(pattern_implies("^(a|b)$", "^(a|b|c)$"));
        assert!(!pattern_implies("^(a|b|c)$", "^(a|b)$"));
        assert!(!pattern_implies("^[a-z]+$", "^[a-z0-9]+$"));
    }

    #[test]
    fn literal_patterns() {
        assert_eq!(literal_alternatives("^(open|closed)$").unwrap(), vec!["open", "closed"]);
        assert!(literal_alternatives("^[a-z]+$").is_none());
    }
}
