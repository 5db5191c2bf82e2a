//! The validators of one tool of NEW, built once on first use, and what they say about one recorded
//! call or result.
//!
//! Takes a tool's `inputSchema` or `outputSchema`; returns a [`Verdict`] per instance, with a reason
//! that never quotes the instance's values (recorded traffic holds user data). Promises: the validator
//! is built once per schema (draft 2020-12, no network, as the rest of the crate); a validation whose
//! cost bound ([`unfolded`](crate::compare::witness::unfolded) size times instance size) is over
//! [`MAX_CALL_COST`] is not run, and neither is any once [`MAX_TOTAL_COST`] is spent: the run stays
//! short whatever NEW and the calls hold.

use std::collections::HashSet;

use serde_json::Value;

use crate::text::value_kind;

/// The most (subschema, instance value) visits one validation may be expected to make.
pub const MAX_CALL_COST: u64 = 10_000_000;

/// The most such visits one run may spend in all.
pub const MAX_TOTAL_COST: u64 = 20_000_000_000;

/// Failures kept per instance: a call that fails several ways counts in each of its first few.
pub const MAX_FAILURES: usize = 8;

/// Why a call is not judged when a `pattern` match ran out of its budget.
pub const UNDECIDED: &str = "a `pattern` match ran out of its budget (cannot decide)";

/// Calls of one schema whose `pattern` match may run out of its budget before the schema's later calls
/// are not matched at all: a backtracking pattern costs each call its whole budget, and 20,000
/// distinct values took 37 s (attack 8.4 of the #33 pass); past this many, the rest are "cannot
/// decide" at once.
pub const MAX_UNDECIDED: u32 = 64;

/// Why a call is not judged once [`MAX_UNDECIDED`] calls of its schema ran out of budget.
pub const UNDECIDED_SPENT: &str =
    "earlier calls of this schema ran out of their `pattern` budget; later ones are not matched (cannot decide)";

/// Why a call is not judged when it holds more strings and keys than a backtracking pattern may be
/// matched against ([`crate::schema::regex_budget::MAX_SUBJECTS`]).
pub const UNDECIDED_CROWDED: &str =
    "its arguments hold too many strings and keys to match against the schema's backtracking patterns (cannot decide)";

/// How deep `properties` are looked for through `$ref`s and combinators.
const DECLARED_DEPTH: usize = 8;

/// A schema ready to validate instances.
pub struct Schema<'s> {
    root: &'s Value,
    /// `None`: the schema does not compile, or unfolds too far to be validated.
    validator: Option<jsonschema::Validator>,
    /// The cost bound of one instance value.
    size: u64,
    /// Why it cannot validate.
    pub unusable: Option<&'static str>,
    /// Calls whose `pattern` match ran out of its budget so far.
    undecided: std::sync::atomic::AtomicU32,
    /// The validator of the schema without its backtracking `pattern`s, built once calls stop being
    /// matched against them ([`MAX_UNDECIDED`]): it still finds the other keywords' rejections.
    stripped: std::sync::OnceLock<Option<jsonschema::Validator>>,
    /// Whether the schema has backtracking patterns at all (asked once).
    backtracks: std::sync::OnceLock<bool>,
}

/// What a schema says about one instance.
#[derive(Debug)]
pub enum Verdict {
    Valid,
    /// Every distinct failure (at most [`MAX_FAILURES`]), in the validator's order.
    Invalid(Vec<Rejection>),
    /// Not validated: why.
    Skipped(&'static str),
}

/// A validator's rejection, without the instance's values.
#[derive(Debug)]
pub struct Rejection {
    pub keyword: String,
    /// The rejecting keyword's location in the schema (a pointer into it that exists).
    pub schema_path: String,
    /// The instance location that failed.
    pub instance_path: String,
    /// The reason, quoting names and schema values, never instance values.
    pub reason: String,
}

impl<'s> Schema<'s> {
    /// Builds the validator of `root`.
    #[must_use]
    pub fn new(root: &'s Value) -> Schema<'s> {
        let Some(size) = crate::compare::witness::unfolded(root) else {
            return Schema {
                root,
                validator: None,
                size: 0,
                unusable: Some("its schema unfolds too far to validate"),
                undecided: 0.into(),
                stripped: std::sync::OnceLock::new(),
                backtracks: std::sync::OnceLock::new(),
            };
        };
        match crate::schema::regex_budget::options().build(root) {
            Ok(v) => Schema {
                root,
                validator: Some(v),
                size: size.max(1),
                unusable: None,
                undecided: 0.into(),
                stripped: std::sync::OnceLock::new(),
                backtracks: std::sync::OnceLock::new(),
            },
            Err(_) => Schema {
                root,
                validator: None,
                size: 0,
                unusable: Some("its schema does not compile"),
                undecided: 0.into(),
                stripped: std::sync::OnceLock::new(),
                backtracks: std::sync::OnceLock::new(),
            },
        }
    }

    /// Validates `instance`, spending its cost bound from `fuel`.
    pub fn check(&self, instance: &Value, fuel: &mut u64) -> Verdict {
        let Some(validator) = &self.validator else { return Verdict::Skipped(self.unusable.unwrap_or("unusable")) };
        let cost = self.size.saturating_mul(count_values(instance, MAX_CALL_COST));
        if cost > MAX_CALL_COST {
            return Verdict::Skipped("too costly to validate");
        }
        if cost > *fuel {
            return Verdict::Skipped("the run's validation budget was spent");
        }
        let undecided = &self.undecided;
        *fuel -= cost;
        let crowded = || {
            crate::schema::regex_budget::subjects(instance, crate::schema::regex_budget::MAX_SUBJECTS)
                > crate::schema::regex_budget::MAX_SUBJECTS
                && *self.backtracks.get_or_init(|| crate::schema::regex_budget::has_backtracking(self.root))
        };
        if undecided.load(std::sync::atomic::Ordering::Relaxed) >= MAX_UNDECIDED || crowded() {
            // The backtracking patterns are no longer matched; what the other keywords reject, outside
            // every combinator, is still a rejection (a call with a wrong type is not hidden behind
            // calls that ran out of budget: attack B5 of the second #33 pass).
            let stripped = self.stripped.get_or_init(|| {
                crate::schema::regex_budget::options()
                    .build(&crate::schema::regex_budget::without_backtracking(self.root))
                    .ok()
            });
            let exact = stripped.as_ref().map(|v| self.exact_rejections(v, instance)).unwrap_or_default();
            let why = if undecided.load(std::sync::atomic::Ordering::Relaxed) >= MAX_UNDECIDED {
                UNDECIDED_SPENT
            } else {
                UNDECIDED_CROWDED
            };
            return if exact.is_empty() { Verdict::Skipped(why) } else { Verdict::Invalid(exact) };
        }
        if validator.is_valid(instance) {
            return Verdict::Valid;
        }
        // The errors up to the first undecided one: a match that ran out of budget decides nothing.
        let mut ran_out = false;
        let errors = validator.iter_errors(instance).map_while(|e| {
            ran_out |= crate::schema::regex_budget::is_undecided(&e);
            (!ran_out).then_some(e)
        });
        let out = self.rejections(errors);
        if ran_out {
            undecided.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let exact = self.exact_rejections(validator, instance);
            return if exact.is_empty() { Verdict::Skipped(UNDECIDED) } else { Verdict::Invalid(exact) };
        }
        if out.is_empty() { Verdict::Valid } else { Verdict::Invalid(out) }
    }

    /// The rejections of `instance` by `validator` that hold whatever a `pattern` match that ran out
    /// of budget would have said: not themselves undecided, outside every combinator.
    fn exact_rejections(&self, validator: &jsonschema::Validator, instance: &Value) -> Vec<Rejection> {
        self.rejections(validator.iter_errors(instance).filter(|e| {
            !crate::schema::regex_budget::is_undecided(e)
                && crate::schema::regex_budget::outside_combinators(e.schema_path().as_str())
        }))
    }

    /// `errors` as rejections: each distinct one once, at most [`MAX_FAILURES`].
    fn rejections<'e>(&self, errors: impl Iterator<Item = jsonschema::ValidationError<'e>>) -> Vec<Rejection> {
        let mut out: Vec<Rejection> = Vec::new();
        for e in errors {
            let r = Rejection {
                keyword: e.kind().keyword().to_owned(),
                schema_path: crate::schema::resolvable(self.root, e.schema_path().as_str()),
                instance_path: e.instance_path().to_string(),
                reason: reason(&e, self.root),
            };
            if !out.iter().any(|o| o.schema_path == r.schema_path && o.reason == r.reason) {
                out.push(r);
            }
            if out.len() >= MAX_FAILURES {
                break;
            }
        }
        out
    }
}

/// Values in `v`, counted up to `cap`.
fn count_values(v: &Value, cap: u64) -> u64 {
    let mut n = 0u64;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        n += 1;
        if n >= cap {
            return n;
        }
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    n
}

/// A schema value for a message: compact JSON, clipped.
fn quoted(v: &Value) -> String {
    crate::text::clip(&v.to_string(), 80).into_owned()
}

/// The validator's reason in words that name what the schema says and the kind of the value, never
/// the value.
fn reason(e: &jsonschema::ValidationError<'_>, root: &Value) -> String {
    use jsonschema::error::ValidationErrorKind as Kind;
    let kind = value_kind(e.instance());
    let at_schema = || root.pointer(e.schema_path().as_str()).map(quoted);
    let names = |names: &[String]| {
        let shown: Vec<String> =
            names.iter().take(3).map(|n| format!("`{}`", crate::text::clip(n, 40))).collect::<Vec<_>>();
        let more = names.len().saturating_sub(3);
        if more > 0 { format!("{} and {more} more", shown.join(", ")) } else { shown.join(", ") }
    };
    match e.kind() {
        Kind::Required { property } => {
            format!("`{}` is a required property", crate::text::clip(property.as_str().unwrap_or("?"), 80))
        }
        Kind::AdditionalProperties { unexpected } | Kind::UnevaluatedProperties { unexpected } => {
            format!("{} {} not allowed", names(unexpected), if unexpected.len() == 1 { "is" } else { "are" })
        }
        Kind::Type { .. } => format!("{kind} is not of type {}", at_schema().unwrap_or_default()),
        Kind::Enum { options } => format!("{kind} that is not one of {}", quoted(options)),
        Kind::Constant { expected_value } => format!("{kind} that is not {}", quoted(expected_value)),
        Kind::FalseSchema => format!("{kind}, where the schema allows nothing"),
        Kind::AnyOf { .. } => format!("no `anyOf` branch accepts {kind}"),
        Kind::OneOfNotValid { .. } => format!("no `oneOf` branch accepts {kind}"),
        Kind::OneOfMultipleValid { .. } => format!("more than one `oneOf` branch accepts {kind}"),
        Kind::Not { .. } => format!("{kind} that the `not` schema accepts"),
        Kind::Format { format } => format!("{kind} that is not a valid `{}`", crate::text::clip(format, 40)),
        Kind::Referencing(_) => "a `$ref` that cannot be resolved".to_owned(),
        other => {
            let keyword = other.keyword();
            match at_schema() {
                Some(limit) => format!("{kind} that fails `{keyword}: {limit}`"),
                None => format!("{kind} that fails `{keyword}`"),
            }
        }
    }
}

/// The top-level argument names an `inputSchema` declares, for "accepted but ignored".
pub struct Declared {
    names: HashSet<String>,
    /// A matcher of the `patternProperties` names; `None` when there are none.
    patterns: Option<jsonschema::Validator>,
    /// The schema declares no name and no pattern (an open bag of arguments), or its patterns do not
    /// compile: nothing is judged ignored.
    pub open: bool,
}

impl Declared {
    #[must_use]
    pub fn of(root: &Value) -> Declared {
        let mut names = HashSet::new();
        let mut patterns = Vec::new();
        collect(root, root, 0, &mut HashSet::new(), &mut names, &mut patterns);
        let matcher = if patterns.is_empty() {
            None
        } else {
            let any: Vec<Value> = patterns.into_iter().map(|p| serde_json::json!({"pattern": p})).collect();
            match crate::schema::regex_budget::options().build(&serde_json::json!({"anyOf": any})) {
                Ok(v) => Some(v),
                Err(_) => return Declared { names, patterns: None, open: true },
            }
        };
        let open = names.is_empty() && matcher.is_none();
        Declared { names, patterns: matcher, open }
    }

    /// Whether `name` is declared.
    #[must_use]
    pub fn has(&self, name: &str) -> bool {
        self.open
            || self.names.contains(name)
            // A match that ran out of its budget counts as declared: "ignored" is not claimed undecided.
            || self.patterns.as_ref().is_some_and(|p| {
                p.validate(&Value::String(name.to_owned()))
                    .map_or_else(|e| crate::schema::regex_budget::is_undecided(&e), |()| true)
            })
    }
}

/// Each subschema is read once (`seen`), so shared `$ref` targets cost nothing twice.
fn collect<'v>(
    schema: &'v Value,
    root: &'v Value,
    depth: usize,
    seen: &mut HashSet<*const Value>,
    names: &mut HashSet<String>,
    patterns: &mut Vec<String>,
) {
    let Value::Object(m) = schema else { return };
    if depth > DECLARED_DEPTH || !seen.insert(std::ptr::from_ref(schema)) {
        return;
    }
    if let Some(Value::Object(p)) = m.get("properties") {
        names.extend(p.keys().cloned());
    }
    if let Some(Value::Object(p)) = m.get("patternProperties") {
        patterns.extend(p.keys().cloned());
    }
    if let Some(r) = m.get("$ref").and_then(Value::as_str)
        && let Ok((_, target)) = crate::schema::resolve(root, Some(m), r)
    {
        collect(target, root, depth + 1, seen, names, patterns);
    }
    for k in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(items)) = m.get(k) {
            for s in items {
                collect(s, root, depth + 1, seen, names, patterns);
            }
        }
    }
    for k in ["then", "else"] {
        if let Some(s) = m.get(k) {
            collect(s, root, depth + 1, seen, names, patterns);
        }
    }
    if let Some(Value::Object(d)) = m.get("dependentSchemas") {
        for s in d.values() {
            collect(s, root, depth + 1, seen, names, patterns);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reasons_never_quote_the_value() {
        let schema = json!({
            "type": "object",
            "properties": {"mode": {"enum": ["low", "high"]}, "n": {"type": "integer", "maximum": 3}},
            "required": ["q"],
        });
        let s = Schema::new(&schema);
        let mut fuel = MAX_TOTAL_COST;
        let reason = |v: Value, fuel: &mut u64| match s.check(&v, fuel) {
            Verdict::Invalid(mut r) => {
                let r = r.remove(0);
                (r.keyword, r.schema_path, r.reason)
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(
            reason(json!({}), &mut fuel),
            ("required".into(), "/required".into(), "`q` is a required property".into())
        );
        let (k, at, why) = reason(json!({"q": 1, "mode": "s3cr3t-medium"}), &mut fuel);
        assert_eq!((k.as_str(), at.as_str()), ("enum", "/properties/mode/enum"));
        assert_eq!(why, r#"a string that is not one of ["low","high"]"#);
        let (_, _, why) = reason(json!({"q": 1, "n": 123_456_789}), &mut fuel);
        assert_eq!(why, "a number that fails `maximum: 3`");
        assert!(matches!(s.check(&json!({"q": 1}), &mut fuel), Verdict::Valid));
        // Every way a call fails, once each.
        let Verdict::Invalid(all) = s.check(&json!({"mode": "x", "n": 9}), &mut fuel) else { panic!() };
        let keywords: Vec<&str> = all.iter().map(|r| r.keyword.as_str()).collect();
        assert_eq!(keywords.len(), 3, "{all:?}");
        assert!(["required", "enum", "maximum"].iter().all(|k| keywords.contains(k)), "{all:?}");
        // Spent fuel stops validation.
        let mut none = 0;
        assert!(matches!(s.check(&json!({"q": 1}), &mut none), Verdict::Skipped(_)));
    }

    #[test]
    fn declared_names_follow_refs_and_branches() {
        let schema = json!({
            "$defs": {"base": {"properties": {"a": {}}}},
            "$ref": "#/$defs/base",
            "allOf": [{"properties": {"b": {}}}],
            "patternProperties": {"^x-": {}},
        });
        let d = Declared::of(&schema);
        assert!(d.has("a") && d.has("b") && d.has("x-trace"));
        assert!(!d.has("c"));
        assert!(Declared::of(&json!({"type": "object"})).open);
        assert!(Declared::of(&json!({"patternProperties": {"(": {}}})).open);
        // Shared references are read once: a wide diamond stays cheap.
        let wide: Vec<Value> = (0..64).map(|_| json!({"$ref": "#"})).collect();
        let diamond = json!({"properties": {"a": {}}, "allOf": wide});
        assert!(Declared::of(&diamond).has("a"));
    }
}
