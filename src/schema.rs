//! Stage 2, schema: a JSON Schema 2020-12 model over `serde_json::Value`, with local `$ref`
//! resolution ([`refs`]) and the normalizations that make equivalent rewrites compare equal.
//!
//! Takes schema values and their JSON Pointers; returns [`View`]s: the validation keywords of one schema
//! object with `type` as a [`TypeSet`], `const`/`enum` as one value list, and `anyOf`/`oneOf` unions of
//! single-type branches (`anyOf: [{type: string}, {type: null}]`) folded into the type set. Promises:
//! every fold is an exact equivalence (the folded view accepts exactly the instances the original
//! accepts), and every keyword it does not model is kept so the compare stage can say "cannot decide".

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Number, Value};

pub mod pattern;
pub mod refs;
pub mod regex_budget;

pub use refs::{RefProblem, resolve, resolve_dynamic};

/// The JSON types a schema admits. `number` is split into integers and non-integers so that
/// `integer` is a subset of `number`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TypeSet(u8);

impl TypeSet {
    pub const NULL: TypeSet = TypeSet(1);
    pub const BOOLEAN: TypeSet = TypeSet(2);
    pub const OBJECT: TypeSet = TypeSet(4);
    pub const ARRAY: TypeSet = TypeSet(8);
    pub const STRING: TypeSet = TypeSet(16);
    pub const INTEGER: TypeSet = TypeSet(32);
    /// Numbers that are not integers.
    pub const FRACTION: TypeSet = TypeSet(64);
    pub const NUMBER: TypeSet = TypeSet(32 | 64);
    pub const ALL: TypeSet = TypeSet(127);
    pub const EMPTY: TypeSet = TypeSet(0);

    #[must_use]
    pub fn from_name(name: &str) -> Option<TypeSet> {
        Some(match name {
            "null" => Self::NULL,
            "boolean" => Self::BOOLEAN,
            "object" => Self::OBJECT,
            "array" => Self::ARRAY,
            "string" => Self::STRING,
            "integer" => Self::INTEGER,
            "number" => Self::NUMBER,
            _ => return None,
        })
    }

    /// The type of one instance.
    #[must_use]
    pub fn of(value: &Value) -> TypeSet {
        match value {
            Value::Null => Self::NULL,
            Value::Bool(_) => Self::BOOLEAN,
            Value::Object(_) => Self::OBJECT,
            Value::Array(_) => Self::ARRAY,
            Value::String(_) => Self::STRING,
            Value::Number(n) if is_integer(n) => Self::INTEGER,
            Value::Number(_) => Self::FRACTION,
        }
    }

    #[must_use]
    pub fn union(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 | other.0)
    }
    #[must_use]
    pub fn intersect(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 & other.0)
    }
    #[must_use]
    pub fn minus(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 & !other.0)
    }
    #[must_use]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    #[must_use]
    pub fn contains(self, other: TypeSet) -> bool {
        self.0 & other.0 == other.0
    }
    #[must_use]
    pub fn intersects(self, other: TypeSet) -> bool {
        self.0 & other.0 != 0
    }
    #[must_use]
    pub fn admits(self, value: &Value) -> bool {
        self.contains(TypeSet::of(value))
    }

    /// Human names, merging integers and fractions back into `number`.
    #[must_use]
    pub fn names(self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (bit, name) in [
            (Self::NULL, "null"),
            (Self::BOOLEAN, "boolean"),
            (Self::OBJECT, "object"),
            (Self::ARRAY, "array"),
            (Self::STRING, "string"),
        ] {
            if self.contains(bit) {
                out.push(name);
            }
        }
        if self.contains(Self::NUMBER) {
            out.push("number");
        } else if self.contains(Self::INTEGER) {
            out.push("integer");
        } else if self.contains(Self::FRACTION) {
            out.push("non-integer number");
        }
        out
    }

    /// `string`, `string | null`, `nothing` or `any`.
    #[must_use]
    pub fn describe(self) -> String {
        if self == Self::ALL {
            return "any type".to_owned();
        }
        if self.is_empty() {
            return "nothing".to_owned();
        }
        self.names().join(" | ")
    }
}

fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// Compares two JSON numbers by value, exactly for integers that fit 64 bits.
#[must_use]
pub fn num_cmp(a: &Number, b: &Number) -> Ordering {
    if let (Some(x), Some(y)) = (as_i128(a), as_i128(b)) {
        return x.cmp(&y);
    }
    let (x, y) = (a.as_f64().unwrap_or(f64::NAN), b.as_f64().unwrap_or(f64::NAN));
    x.partial_cmp(&y).unwrap_or(Ordering::Equal)
}

fn as_i128(n: &Number) -> Option<i128> {
    n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
}

/// Equality as JSON Schema defines it for `enum`/`const`: numbers compare by value (`1 == 1.0`).
#[must_use]
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => num_cmp(x, y) == Ordering::Equal,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// The longest prefix of `ptr` that exists in `root`: a validator's keyword location inside an
/// embedded resource or under a `$ref` is a path of evaluation, not always a pointer into the document.
#[must_use]
pub fn resolvable(root: &Value, ptr: &str) -> String {
    let mut p = ptr;
    loop {
        if p.is_empty() || root.pointer(p).is_some() {
            return p.to_owned();
        }
        p = p.rfind('/').map_or("", |cut| &p[..cut]);
    }
}

/// A hashable key with JSON Schema equality: equal keys iff [`json_eq`] (for values `serde_json` can
/// represent). Object keys are sorted because `serde_json::Map` is a `BTreeMap` here.
#[must_use]
pub fn canonical_key(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    use std::fmt::Write as _;
    match v {
        Value::Number(n) => match (as_i128(n), n.as_f64()) {
            (Some(i), _) => write!(out, "{i}").unwrap_or(()),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e18 => {
                #[allow(clippy::cast_possible_truncation, reason = "guarded: |f| < 1e18 and f has no fraction")]
                write!(out, "{}", f as i64).unwrap_or(());
            }
            _ => write!(out, "{n}").unwrap_or(()),
        },
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Keywords that never change which instances are valid.
pub const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "default",
    "$schema",
    "$id",
    "$anchor",
    "$defs",
    "definitions",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "$vocabulary",
];

/// Validation keywords of 2020-12 that the compare stage reasons about.
pub const MODELLED: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "contains",
    "minContains",
    "maxContains",
    "not",
    "dependentRequired",
    "patternProperties",
];

/// Validation keywords of 2020-12 that the compare stage does not reason about yet: any change under
/// them is reported as "cannot decide".
pub const UNMODELLED: &[&str] = &[
    "if",
    "then",
    "else",
    "dependentSchemas",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "dependencies",
];

/// Keywords that only apply to instances of one type.
fn keyword_type(keyword: &str) -> Option<TypeSet> {
    Some(match keyword {
        "minLength" | "maxLength" | "pattern" | "format" => TypeSet::STRING,
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => TypeSet::NUMBER,
        "items" | "prefixItems" | "minItems" | "maxItems" | "uniqueItems" | "contains" | "minContains"
        | "maxContains" | "unevaluatedItems" => TypeSet::ARRAY,
        "properties"
        | "required"
        | "additionalProperties"
        | "patternProperties"
        | "propertyNames"
        | "minProperties"
        | "maxProperties"
        | "dependentRequired"
        | "dependentSchemas"
        | "unevaluatedProperties" => TypeSet::OBJECT,
        _ => return None,
    })
}

/// A keyword's value and the JSON Pointer (within the tool) where it is written.
#[derive(Clone, Debug)]
pub struct At<'a> {
    pub value: &'a Value,
    pub ptr: String,
}

/// The validation-relevant content of one schema object after normalization.
#[derive(Clone, Debug)]
pub struct View<'a> {
    /// Pointer of the schema object itself.
    pub ptr: String,
    pub types: TypeSet,
    /// Where `type` (or the folded union) is written, when it is.
    pub types_at: Option<String>,
    /// `const`/`enum` as one list of allowed values, with its pointer.
    pub values: Option<(Vec<&'a Value>, String)>,
    /// Every other keyword, by name.
    pub keywords: BTreeMap<&'a str, At<'a>>,
    /// `properties` and `required` of merged `allOf` members, beside the schema's own.
    pub merged: Vec<(&'a str, &'a Value, String)>,
}

impl<'a> View<'a> {
    /// Builds the view of a schema value (after `$ref` resolution by the caller).
    #[must_use]
    pub fn new(schema: &'a Value, ptr: &str) -> View<'a> {
        View::in_document(schema, ptr, None)
    }

    /// Like [`View::new`], with the document root (and the pointer of the root within the tool) so
    /// that `allOf` members written as local `$ref`s can be merged too.
    #[must_use]
    pub fn in_document(schema: &'a Value, ptr: &str, root: Option<(&'a Value, &str)>) -> View<'a> {
        let mut view = View {
            ptr: ptr.to_owned(),
            types: TypeSet::ALL,
            types_at: None,
            values: None,
            keywords: BTreeMap::new(),
            merged: Vec::new(),
        };
        match schema {
            Value::Bool(false) => {
                view.types = TypeSet::EMPTY;
                view.types_at = Some(ptr.to_owned());
            }
            Value::Object(map) => view.absorb(map, ptr),
            _ => {}
        }
        view.fold_all_of(root);
        view.fold_unions();
        view.fold_nullable_values();
        view.types = view.types.minus(view.empty_types());
        view
    }

    /// The types for which the schema's own keywords leave no instance (`minLength: 3, maxLength: 1`
    /// has no strings). Conservative: a type not listed may still be empty, never the reverse.
    #[allow(clippy::float_cmp, reason = "bounds written in JSON are compared exactly, as validators do")]
    fn empty_types(&self) -> TypeSet {
        let num = |k: &str| self.get(k).and_then(|a| a.value.as_f64());
        let mut empty = TypeSet::EMPTY;
        let range_empty = |lo: Option<f64>, hi: Option<f64>| matches!((lo, hi), (Some(l), Some(h)) if l > h);
        if range_empty(num("minLength"), num("maxLength")) {
            empty = empty.union(TypeSet::STRING);
        }
        if range_empty(num("minItems"), num("maxItems")) {
            empty = empty.union(TypeSet::ARRAY);
        }
        let required = self.get("required").and_then(|a| a.value.as_array()).map_or(0, Vec::len);
        #[allow(clippy::cast_precision_loss, reason = "a count of required names")]
        let required = required as f64;
        if range_empty(num("minProperties"), num("maxProperties")) || num("maxProperties").is_some_and(|m| required > m)
        {
            empty = empty.union(TypeSet::OBJECT);
        }
        // Numbers: the interval between the effective bounds.
        let lo = [num("minimum").map(|v| (v, false)), num("exclusiveMinimum").map(|v| (v, true))]
            .into_iter()
            .flatten()
            .max_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let hi = [num("maximum").map(|v| (v, false)), num("exclusiveMaximum").map(|v| (v, true))]
            .into_iter()
            .flatten()
            .min_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
        if let (Some((l, le)), Some((h, he))) = (lo, hi) {
            if l > h || (l == h && (le || he)) {
                empty = empty.union(TypeSet::NUMBER);
            } else {
                // Integers in the interval.
                let first = if le { l.floor() + 1.0 } else { l.ceil() };
                let last = if he { h.ceil() - 1.0 } else { h.floor() };
                if first > last {
                    empty = empty.union(TypeSet::INTEGER);
                }
                // A single point is one number: an integer or a non-integer, not both.
                if l == h && l.fract() == 0.0 {
                    empty = empty.union(TypeSet::FRACTION);
                }
            }
        }
        empty
    }

    fn absorb(&mut self, map: &'a Map<String, Value>, ptr: &str) {
        for (key, value) in map {
            let at = At { value, ptr: format!("{ptr}/{}", crate::load::span::escape_token(key)) };
            match key.as_str() {
                "type" => {
                    self.types = parse_types(value).unwrap_or(TypeSet::ALL);
                    self.types_at = Some(at.ptr);
                }
                "const" => self.add_values(vec![value], at.ptr),
                "enum" => {
                    let list = value.as_array().map(|a| a.iter().collect()).unwrap_or_default();
                    self.add_values(list, at.ptr);
                }
                _ => {
                    // `not: {}` and `not: true` exclude everything.
                    if key == "not" && (value == &Value::Bool(true) || value.as_object().is_some_and(Map::is_empty)) {
                        self.types = TypeSet::EMPTY;
                    }
                    self.keywords.insert(key.as_str(), at);
                }
            }
        }
    }

    fn add_values(&mut self, list: Vec<&'a Value>, ptr: String) {
        self.values = Some(match self.values.take() {
            None => (list, ptr),
            // `const` and `enum` together: only values in both are valid.
            Some((prev, p)) => (prev.into_iter().filter(|v| list.iter().any(|w| json_eq(v, w))).collect(), p),
        });
    }

    /// Merges `allOf` members into the schema when that is exact: each keyword appears in one part only
    /// (except `properties` with distinct names, `required`, and `type`, which combine exactly), and no
    /// keyword whose meaning depends on its siblings (`additionalProperties`, `items`, `contains`,
    /// `unevaluated*`, `if`) would be separated from the keywords it depends on.
    fn fold_all_of(&mut self, root: Option<(&'a Value, &str)>) {
        const DEPENDENT: &[(&str, &[&str])] = &[
            ("additionalProperties", &["properties", "patternProperties", "additionalProperties"]),
            ("items", &["prefixItems", "items"]),
            ("minContains", &["contains", "minContains", "maxContains"]),
            ("maxContains", &["contains", "minContains", "maxContains"]),
        ];
        const NEVER: &[&str] = &["unevaluatedProperties", "unevaluatedItems", "if", "then", "else", "$dynamicRef"];
        let Some(at) = self.keywords.get("allOf") else { return };
        let Some(members) = at.value.as_array() else { return };
        let base = at.ptr.clone();
        let mut parts: Vec<(&'a Map<String, Value>, String)> = Vec::new();
        for (i, m) in members.iter().enumerate() {
            let mut target = m;
            let mut ptr = format!("{base}/{i}");
            if let (Some(r), Some((doc, doc_base))) = (m.get("$ref").and_then(Value::as_str), root)
                && m.as_object().is_some_and(|o| o.keys().all(|k| k == "$ref" || ANNOTATIONS.contains(&k.as_str())))
            {
                match resolve(doc, m.as_object(), r) {
                    Ok((p, t)) => {
                        target = t;
                        ptr = format!("{doc_base}{p}");
                    }
                    Err(_) => return,
                }
            }
            match target {
                Value::Object(map) if !map.contains_key("$ref") && !map.contains_key("allOf") => parts.push((map, ptr)),
                Value::Bool(true) => {}
                _ => return,
            }
        }
        let own: Vec<&str> = self.keywords.keys().copied().filter(|k| *k != "allOf").collect();
        let part_keys: Vec<Vec<&str>> = std::iter::once(own)
            .chain(
                parts.iter().map(|(m, _)| m.keys().map(String::as_str).filter(|k| !ANNOTATIONS.contains(k)).collect()),
            )
            .collect();
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for (n, keys) in part_keys.iter().enumerate() {
            for k in keys {
                if NEVER.contains(k) {
                    return;
                }
                if let Some(&other) = seen.get(k)
                    && other != n
                    && !matches!(*k, "properties" | "required" | "type")
                {
                    return;
                }
                seen.insert(k, n);
            }
        }
        for (dependent, group) in DEPENDENT {
            let holders = part_keys.iter().filter(|keys| keys.iter().any(|k| group.contains(k))).count();
            if holders > 1 && part_keys.iter().any(|keys| keys.contains(dependent)) {
                return;
            }
        }
        // Distinct property names across parts.
        let mut names = BTreeSet::new();
        let own_props = self.keywords.get("properties").and_then(|a| a.value.as_object());
        for map in own_props
            .into_iter()
            .chain(parts.iter().filter_map(|(m, _)| m.get("properties").and_then(Value::as_object)))
        {
            for k in map.keys() {
                if !names.insert(k.clone()) {
                    return;
                }
            }
        }
        // Exact: merge.
        self.keywords.remove("allOf");
        for (map, ptr) in parts {
            for (k, v) in map {
                let kp = format!("{ptr}/{}", crate::load::span::escape_token(k));
                match k.as_str() {
                    "type" => {
                        self.types = self.types.intersect(parse_types(v).unwrap_or(TypeSet::ALL));
                        self.types_at.get_or_insert(kp);
                    }
                    "const" => self.add_values(vec![v], kp),
                    "enum" => self.add_values(v.as_array().map(|a| a.iter().collect()).unwrap_or_default(), kp),
                    "properties" | "required" => self.merged.push((k.as_str(), v, kp)),
                    _ if ANNOTATIONS.contains(&k.as_str()) => {}
                    _ => {
                        self.keywords.insert(k.as_str(), At { value: v, ptr: kp });
                    }
                }
            }
        }
    }

    /// Folds `anyOf`/`oneOf` whose branches each admit one disjoint type and only carry keywords of
    /// that type, e.g. `anyOf: [{type: string, maxLength: 5}, {type: null}]` == `type: [string, null]`
    /// with `maxLength: 5`. Exact: a keyword of one type ignores instances of every other type.
    fn fold_unions(&mut self) {
        for key in ["anyOf", "oneOf"] {
            let Some(at) = self.keywords.get(key) else { continue };
            let Some(branches) = at.value.as_array() else { continue };
            let base = at.ptr.clone();
            let mut union = TypeSet::EMPTY;
            let mut folded: BTreeMap<&'a str, At<'a>> = BTreeMap::new();
            let mut ok = !branches.is_empty();
            for (i, branch) in branches.iter().enumerate() {
                let Some(map) = branch.as_object() else {
                    ok = false;
                    break;
                };
                let Some(t) = map.get("type").and_then(parse_types) else {
                    ok = false;
                    break;
                };
                let single = t == TypeSet::NUMBER || t.names().len() == 1;
                if !single || union.intersects(t) {
                    ok = false;
                    break;
                }
                union = union.union(t);
                for (k, v) in map {
                    if k == "type" || ANNOTATIONS.contains(&k.as_str()) {
                        continue;
                    }
                    let fits = keyword_type(k).is_some_and(|kt| t.intersects(kt) && kt.contains(t));
                    let clash = folded.contains_key(k.as_str()) || self.keywords.contains_key(k.as_str());
                    if !fits || clash {
                        ok = false;
                        break;
                    }
                    folded.insert(k.as_str(), At { value: v, ptr: format!("{base}/{i}/{k}") });
                }
                if !ok {
                    break;
                }
            }
            if ok {
                self.types = self.types.intersect(union);
                self.types_at.get_or_insert(base);
                self.keywords.remove(key);
                self.keywords.extend(folded);
            }
        }
    }

    /// Folds a nullable `enum`, `anyOf: [{type: string, enum: [a, b]}, {type: null}]`, into
    /// `type: [string, null]` with `enum: [a, b, null]` (what zod 3 wrote and zod 4 rewrites). Exact:
    /// the union accepts the listed values of the branch's type, and `null`.
    fn fold_nullable_values(&mut self) {
        static NULL: Value = Value::Null;
        for key in ["anyOf", "oneOf"] {
            let Some(at) = self.keywords.get(key) else { continue };
            let Some([first, second]) = at.value.as_array().map(Vec::as_slice) else { continue };
            let only = |m: &Map<String, Value>, allowed: &[&str]| {
                m.keys().all(|k| allowed.contains(&k.as_str()) || ANNOTATIONS.contains(&k.as_str()))
            };
            let is_null = |v: &Value| {
                v.as_object().is_some_and(|m| m.get("type").is_some_and(|t| t == "null") && only(m, &["type"]))
            };
            let (index, listed) = if is_null(second) {
                (0, first)
            } else if is_null(first) {
                (1, second)
            } else {
                continue;
            };
            let Some(branch) = listed.as_object().filter(|m| only(m, &["type", "enum", "const"])) else { continue };
            let Some(types) = branch.get("type").and_then(parse_types) else { continue };
            let mut values: Vec<&'a Value> = match (branch.get("enum").and_then(Value::as_array), branch.get("const")) {
                (Some(list), None) => list.iter().filter(|v| types.admits(v)).collect(),
                (None, Some(c)) if types.admits(c) => vec![c],
                _ => continue,
            };
            values.push(&NULL);
            let ptr = format!("{}/{index}/{}", at.ptr, if branch.contains_key("enum") { "enum" } else { "const" });
            let base = at.ptr.clone();
            self.types = self.types.intersect(types.union(TypeSet::NULL));
            self.types_at.get_or_insert(base);
            self.keywords.remove(key);
            self.add_values(values, ptr);
            return;
        }
    }

    #[must_use]
    pub fn get(&self, keyword: &str) -> Option<&At<'a>> {
        self.keywords.get(keyword)
    }

    /// Declared properties, own and merged from `allOf`, with the pointer of each property schema.
    #[must_use]
    pub fn properties(&self) -> BTreeMap<&'a str, At<'a>> {
        let own = self.get("properties").map(|a| (a.value, a.ptr.clone()));
        let merged = self.merged.iter().filter(|(k, _, _)| *k == "properties").map(|(_, v, p)| (*v, p.clone()));
        let mut out = BTreeMap::new();
        for (value, ptr) in own.into_iter().chain(merged) {
            if let Some(map) = value.as_object() {
                for (k, s) in map {
                    out.insert(
                        k.as_str(),
                        At { value: s, ptr: format!("{ptr}/{}", crate::load::span::escape_token(k)) },
                    );
                }
            }
        }
        out
    }

    /// Required names, own and merged from `allOf`.
    #[must_use]
    pub fn required(&self) -> BTreeSet<&'a str> {
        let own = self.get("required").map(|a| a.value);
        let merged = self.merged.iter().filter(|(k, _, _)| *k == "required").map(|(_, v, _)| *v);
        own.into_iter().chain(merged).filter_map(Value::as_array).flatten().filter_map(Value::as_str).collect()
    }

    /// Where `required` is written (the first place, when merged), or the schema itself.
    #[must_use]
    pub fn required_at(&self) -> String {
        self.written_at("required")
    }

    /// Where `properties` is written (the first place, when merged), or the schema itself.
    #[must_use]
    pub fn properties_at(&self) -> String {
        self.written_at("properties")
    }

    fn written_at(&self, keyword: &str) -> String {
        self.get(keyword)
            .map(|a| a.ptr.clone())
            .or_else(|| self.merged.iter().find(|(k, _, _)| *k == keyword).map(|(_, _, p)| p.clone()))
            .unwrap_or_else(|| self.ptr.clone())
    }
}

/// Parses `type` as a string or a list of strings.
#[must_use]
pub fn parse_types(value: &Value) -> Option<TypeSet> {
    match value {
        Value::String(s) => TypeSet::from_name(s),
        Value::Array(items) => items
            .iter()
            .try_fold(TypeSet::EMPTY, |acc, item| item.as_str().and_then(TypeSet::from_name).map(|t| acc.union(t))),
        _ => None,
    }
}

/// Keywords whose values are instances, not schemas: never searched or rewritten as schemas.
#[must_use]
pub fn is_instance_data(keyword: &str) -> bool {
    matches!(keyword, "enum" | "const" | "default" | "examples")
}

/// Whether a value contains a `$ref`-like keyword anywhere (iterative).
#[must_use]
pub fn contains_ref(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if map.contains_key("$ref") || map.contains_key("$dynamicRef") || map.contains_key("$recursiveRef") {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_nullable_enum_folds_with_null_among_its_values() {
        let a = json!({"type": ["string", "null"], "enum": ["open", "closed", null]});
        let b = json!({"anyOf": [{"type": "string", "enum": ["open", "closed"]}, {"type": "null"}]});
        let (va, vb) = (View::new(&a, ""), View::new(&b, ""));
        assert_eq!(va.types, vb.types);
        assert_eq!(va.values.map(|v| v.0), vb.values.map(|v| v.0));
        assert!(View::new(&b, "").get("anyOf").is_none());
        // Not folded when the branch carries more than its values.
        let c = json!({"anyOf": [{"type": "string", "enum": ["a"], "minLength": 1}, {"type": "null"}]});
        assert!(View::new(&c, "").get("anyOf").is_some());
    }

    #[test]
    fn union_of_types_folds_like_type_list() {
        let a = json!({"type": ["string", "null"], "maxLength": 3});
        let b = json!({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]});
        let (va, vb) = (View::new(&a, ""), View::new(&b, ""));
        assert_eq!(va.types, vb.types);
        assert_eq!(va.get("maxLength").unwrap().value, vb.get("maxLength").unwrap().value);
        assert!(vb.get("anyOf").is_none());
    }

    #[test]
    fn unions_that_are_not_equivalent_stay() {
        for s in [
            json!({"anyOf": [{"type": "string"}, {"type": "string", "maxLength": 2}]}),
            json!({"anyOf": [{"type": "integer"}, {"type": "number"}]}),
            json!({"anyOf": [{"type": "string", "minimum": 2}, {"type": "null"}]}),
            json!({"maxLength": 1, "anyOf": [{"type": "string", "maxLength": 2}, {"type": "null"}]}),
        ] {
            assert!(View::new(&s, "").get("anyOf").is_some(), "{s}");
        }
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert_eq!(canonical_key(&json!({"b": [1.0], "a": "x"})), canonical_key(&json!({"a": "x", "b": [1]})));
        assert_eq!(TypeSet::of(&json!(2.0)), TypeSet::INTEGER);
    }
}
