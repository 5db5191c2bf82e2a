//! Pattern literals: what can be read off a `pattern` without a regex engine (an anchored list of
//! literals, a literal prefix), and the implication between two patterns that this proves.
//!
//! Takes pattern strings; returns literals, or whether one pattern implies another. Promises:
//! `pattern_implies` is only `true` when proven; `false` means "not proven", never "disjoint".

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

#[cfg(test)]
mod tests {
    use super::*;

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
