//! The cost of matching a `pattern`: every validator mcp-drift builds to match patterns against
//! values it read (lint's `default` and `examples`, replay's recorded calls, names against
//! `patternProperties`) comes from [`options`], so a backtracking pattern (a back-reference, a
//! look-around) cannot make a run long.
//!
//! Promises: a match gives up after [`BACKTRACK_LIMIT`] backtracking steps, and the validator then
//! reports it as undecided ([`is_undecided`]), never as a match or a mismatch; each pattern is
//! compiled once per run, however many validators share it.

/// Backtracking steps one match may take (the `fancy-regex` engine's limit; patterns without
/// back-references or look-around run on the linear-time `regex` engine and never reach it).
/// `fancy-regex`'s own default is 1,000,000.
pub const BACKTRACK_LIMIT: usize = 20_000;

/// Validation options with the bounded regex engine and the run's shared pattern cache, draft 2020-12.
#[must_use]
pub fn options() -> jsonschema::ValidationOptions<'static> {
    static CACHE: std::sync::OnceLock<jsonschema::PatternCache> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(jsonschema::PatternCache::new).clone();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .with_pattern_options(jsonschema::PatternOptions::fancy_regex().backtrack_limit(BACKTRACK_LIMIT))
        .with_pattern_cache(cache)
}

/// Whether a validation error says that a pattern's match could not be finished within its budget
/// (so whether the value is valid is not decided).
#[must_use]
pub fn is_undecided(e: &jsonschema::ValidationError<'_>) -> bool {
    use jsonschema::error::ValidationErrorKind as Kind;
    matches!(e.kind(), Kind::BacktrackLimitExceeded { .. } | Kind::RegexEngineFailure { .. })
}

/// Distinct patterns one [`Backtracking`] checks at most; a schema with more is never decided by it.
const MAX_PATTERNS: usize = 64;
/// Matches one [`Backtracking`] makes at most, over every instance it is asked about (each at most
/// [`BACKTRACK_LIMIT`] steps); past them, nothing more is decided.
const MAX_MATCHES: usize = 8_192;
/// Schema nodes of the documents it walks at most (values under `enum`, `const`, `default` and
/// `examples` are data, not walked). The validators it vouches for compile documents of that size
/// anyway; past it, nothing is decided.
const MAX_NODES: usize = 4_000_000;

/// Keywords whose values map names to schemas.
const NAMED: &[&str] = &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/// Keywords whose values are instances, not schemas: no pattern inside them is ever matched.
const DATA: &[&str] = &["enum", "const", "default", "examples"];

/// The patterns of some schema documents that may need the backtracking engine (a back-reference or
/// a look-around), for telling whether a validator built with [`options`] decides an instance
/// exactly. Such a validator cannot say when a match deep inside it ran out of budget: under `not`
/// or `anyOf` the budget's error becomes a pass or a failure like any other. So before trusting
/// its verdict, every string of the instance is matched against each of these patterns on its own:
/// when each finishes within the budget, so does every match the validator makes, and its verdict
/// is exact.
pub struct Backtracking {
    /// One validator per pattern (`{"type": "string", "pattern": p}`); `None` when they could not all
    /// be collected (too many, or too large a document): then nothing is decided.
    checks: Option<Vec<jsonschema::Validator>>,
    /// Matches made so far.
    spent: std::cell::Cell<usize>,
}

impl Backtracking {
    /// The backtracking patterns of `docs` (`pattern` values and `patternProperties` keys).
    #[must_use]
    pub fn of(docs: &[&serde_json::Value]) -> Backtracking {
        let mut found: Vec<&str> = Vec::new();
        let mut nodes = 0usize;
        // Each value with whether its keys are names (of `properties`, `$defs`, ...), not keywords: a
        // property called `default` is a schema like any other.
        let mut stack: Vec<(&serde_json::Value, bool)> = docs.iter().map(|d| (*d, false)).collect();
        while let Some((v, names)) = stack.pop() {
            nodes += 1;
            if nodes > MAX_NODES {
                return Backtracking { checks: None, spent: std::cell::Cell::new(0) };
            }
            match v {
                serde_json::Value::Object(map) => {
                    for (key, value) in map {
                        if key == "pattern"
                            && let Some(p) = value.as_str()
                        {
                            found.push(p);
                        }
                        if key == "patternProperties"
                            && let Some(props) = value.as_object()
                        {
                            found.extend(props.keys().map(String::as_str));
                        }
                        if names {
                            stack.push((value, false));
                        } else if !DATA.contains(&key.as_str()) {
                            stack.push((value, NAMED.contains(&key.as_str())));
                        }
                    }
                }
                serde_json::Value::Array(items) => stack.extend(items.iter().map(|i| (i, false))),
                _ => {}
            }
        }
        found.retain(|p| may_backtrack(p));
        found.sort_unstable();
        found.dedup();
        if found.len() > MAX_PATTERNS {
            return Backtracking { checks: None, spent: std::cell::Cell::new(0) };
        }
        // A pattern that does not compile makes the whole validator fail to build, elsewhere.
        let checks = found
            .iter()
            .filter_map(|p| options().build(&serde_json::json!({"type": "string", "pattern": p})).ok())
            .collect();
        Backtracking { checks: Some(checks), spent: std::cell::Cell::new(0) }
    }

    /// Whether every match a validator built with [`options`] makes on `instance` finishes within
    /// the budget, so that its verdict is exact.
    #[must_use]
    pub fn decided(&self, instance: &serde_json::Value) -> bool {
        let Some(checks) = &self.checks else { return false };
        if checks.is_empty() {
            return true;
        }
        let mut stack = vec![instance];
        let each = |s: &str| {
            self.spent.set(self.spent.get().saturating_add(checks.len()));
            self.spent.get() <= MAX_MATCHES
                && checks.iter().all(|v| {
                    v.validate(&serde_json::Value::String(s.to_owned())).err().is_none_or(|e| !is_undecided(&e))
                })
        };
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::String(s) if !each(s) => return false,
                serde_json::Value::Object(map) => {
                    for (key, value) in map {
                        if !each(key) {
                            return false;
                        }
                        stack.push(value);
                    }
                }
                serde_json::Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
        true
    }
}

/// `schema` with every constraint that may need the backtracking engine taken out, and what leans on
/// them: backtracking `pattern`s; backtracking `patternProperties` keys, with `additionalProperties`
/// of the same object (which would take their names); and then every `unevaluatedProperties` (which
/// would too). Data under `enum`, `const`, `default` and `examples` is untouched. Only constraints
/// are removed, so it accepts every instance `schema` accepts, in every position outside `not`:
/// an error its validator reports outside every combinator ([`outside_combinators`]) is an error
/// of `schema` too, found without matching a backtracking pattern.
#[must_use]
pub fn without_backtracking(schema: &serde_json::Value) -> serde_json::Value {
    fn walk(v: &mut serde_json::Value, names: bool, depth: usize, keys_gone: &mut bool) {
        if depth > 256 {
            return;
        }
        match v {
            serde_json::Value::Object(map) => {
                if !names {
                    if map.get("pattern").and_then(serde_json::Value::as_str).is_some_and(may_backtrack) {
                        map.remove("pattern");
                    }
                    if let Some(serde_json::Value::Object(props)) = map.get_mut("patternProperties") {
                        let before = props.len();
                        props.retain(|k, _| !may_backtrack(k));
                        if props.len() < before {
                            *keys_gone = true;
                            map.remove("additionalProperties");
                        }
                    }
                }
                for (key, value) in map.iter_mut() {
                    if names {
                        walk(value, false, depth + 1, keys_gone);
                    } else if !DATA.contains(&key.as_str()) {
                        walk(value, NAMED.contains(&key.as_str()), depth + 1, keys_gone);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|i| walk(i, false, depth + 1, keys_gone)),
            _ => {}
        }
    }
    fn unevaluated(v: &mut serde_json::Value, depth: usize) {
        if depth > 256 {
            return;
        }
        match v {
            serde_json::Value::Object(map) => {
                map.remove("unevaluatedProperties");
                map.values_mut().for_each(|x| unevaluated(x, depth + 1));
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|i| unevaluated(i, depth + 1)),
            _ => {}
        }
    }
    let mut out = schema.clone();
    let mut keys_gone = false;
    walk(&mut out, false, 0, &mut keys_gone);
    if keys_gone {
        unevaluated(&mut out, 0);
    }
    out
}

/// Whether `schema` has a constraint that may need the backtracking engine (see
/// [`without_backtracking`]).
#[must_use]
pub fn has_backtracking(schema: &serde_json::Value) -> bool {
    without_backtracking(schema) != *schema
}

/// Values with more strings and object keys than this are not matched against backtracking patterns
/// at all: each costs up to [`BACKTRACK_LIMIT`] steps per pattern, and 100,000 keys against one
/// `patternProperties` pattern took 45 s (attack B4 of the second #33 pass).
pub const MAX_SUBJECTS: usize = 64;

/// The strings and object keys in `v`, counted up to `cap`.
#[must_use]
pub fn subjects(v: &serde_json::Value, cap: usize) -> usize {
    let (mut n, mut stack) = (0usize, vec![v]);
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::String(_) => n += 1,
            serde_json::Value::Object(m) => {
                n += m.len();
                stack.extend(m.values());
            }
            serde_json::Value::Array(items) => stack.extend(items),
            _ => {}
        }
        if n > cap {
            return n;
        }
    }
    n
}

/// Whether an error at `schema_path` rejects the instance whatever any combinator around it decides:
/// no `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `contains` or `dependentSchemas` on its path.
#[must_use]
pub fn outside_combinators(schema_path: &str) -> bool {
    const COMBINATORS: &[&str] = &["anyOf", "oneOf", "not", "if", "then", "else", "contains", "dependentSchemas"];
    !schema_path.split('/').any(|seg| COMBINATORS.contains(&seg))
}

/// Whether `pattern` may use the backtracking engine: it has what looks like a back-reference
/// (`\1`..`\9`, `\k<`) or a look-around. Over-inclusive (an escaped backslash before a digit counts):
/// a pattern counted wrongly is only checked, never trusted wrongly.
fn may_backtrack(pattern: &str) -> bool {
    let b = pattern.as_bytes();
    b.windows(2).any(|w| w[0] == b'\\' && (w[1].is_ascii_digit() && w[1] != b'0' || w[1] == b'k'))
        || ["(?=", "(?!", "(?<=", "(?<!"].iter().any(|l| pattern.contains(l))
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    /// Only constraints that may backtrack go, with what leans on them; the rest stays.
    #[test]
    fn without_backtracking_removes_constraints_only() {
        let schema = serde_json::json!({
            "type": "object", "unevaluatedProperties": false,
            "properties": {"pattern": {"type": "string", "pattern": "^(a)\\1$"},
                "plain": {"type": "string", "pattern": "^a+$", "default": {"pattern": "^(a)\\1$"}}},
            "patternProperties": {"^(b)\\1$": {}, "^c$": {}}, "additionalProperties": false});
        let out = super::without_backtracking(&schema);
        assert_eq!(
            out,
            serde_json::json!({
            "type": "object",
            "properties": {"pattern": {"type": "string"},
                "plain": {"type": "string", "pattern": "^a+$", "default": {"pattern": "^(a)\\1$"}}},
            "patternProperties": {"^c$": {}}})
        );
        assert!(super::has_backtracking(&schema) && !super::has_backtracking(&out));
        assert!(super::outside_combinators("/properties/a/type") && !super::outside_combinators("/anyOf/0/type"));
        assert_eq!(super::subjects(&serde_json::json!({"a": ["x", 1, {"b": "y"}]}), 100), 4);
    }

    /// A back-reference forces the backtracking engine; `(a|a)*` doubles its work per character.
    #[test]
    fn a_backtracking_pattern_is_undecided_quickly() {
        let schema = serde_json::json!({"type": "string", "pattern": "^(a|a)*\\1$"});
        let v = super::options().build(&schema).expect("compiles");
        let subject = serde_json::json!(format!("{}b", "a".repeat(28)));
        let started = Instant::now();
        let err = v.validate(&subject).expect_err("not decided valid");
        assert!(super::is_undecided(&err), "{err}");
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
        // Short subjects are still decided.
        assert!(v.is_valid(&serde_json::json!("aa")));
        assert!(v.validate(&serde_json::json!("ab")).is_err_and(|e| !super::is_undecided(&e)));
    }

    /// Under `not`, the budget's error reads as a pass: the validator alone would call this string
    /// rejected by `not`... accepted. `Backtracking` says the verdict is not exact.
    #[test]
    fn a_match_out_of_budget_is_seen_even_under_not() {
        let schema = serde_json::json!({"not": {"type": "string", "pattern": "^(a|a)*\\1$"}});
        let long = serde_json::json!(format!("{}b", "a".repeat(28)));
        let checks = super::Backtracking::of(&[&schema]);
        assert!(!checks.decided(&long));
        assert!(!checks.decided(&serde_json::json!({"k": [long]})));
        assert!(checks.decided(&serde_json::json!("ab")));
        let plain = super::Backtracking::of(&[&serde_json::json!({"pattern": "^[a-z]+$"})]);
        assert!(plain.decided(&long), "a regular pattern never runs out");
    }

    /// Values under `enum`/`default` are data and not walked (a million-value enum is not a million
    /// schema nodes), but a property *named* `default` is a schema whose pattern counts.
    #[test]
    fn data_is_skipped_but_a_property_named_like_a_keyword_is_not() {
        let long = serde_json::json!(format!("{}b", "a".repeat(28)));
        let data = serde_json::json!({"default": {"pattern": "^(a|a)*\\1$"}, "enum": [{"pattern": "(x)\\1"}]});
        assert!(super::Backtracking::of(&[&data]).decided(&long));
        let named = serde_json::json!({"properties": {"default": {"type": "string", "pattern": "^(a|a)*\\1$"}}});
        assert!(!super::Backtracking::of(&[&named]).decided(&long));
        let defs = serde_json::json!({"$defs": {"examples": {"pattern": "^(a|a)*\\1$"}}});
        assert!(!super::Backtracking::of(&[&defs]).decided(&long));
    }
}
