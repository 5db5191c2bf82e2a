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

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

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
}
