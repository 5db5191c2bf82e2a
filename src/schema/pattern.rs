//! STUB of the string-pattern automata (issue #15, written by another engineer; the real file replaces
//! this one at merge). Takes ECMA-262 patterns as JSON Schema writes them; returns inclusion and
//! witness answers. This stub only answers the trivial cases and says `TooLarge` for everything else,
//! which callers must treat as "cannot decide".

/// Why a pattern question is not answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsupported {
    Lookaround,
    Backreference,
    Syntax(String),
    TooLarge,
}

/// A string of length `min_len..=max_len` that matches every pattern of `yes` and none of `no`.
///
/// # Errors
/// Always [`Unsupported::TooLarge`] in this stub, except with no patterns at all.
pub fn find(yes: &[&str], no: &[&str], min_len: u64, max_len: Option<u64>) -> Result<Option<String>, Unsupported> {
    if yes.is_empty() && no.is_empty() && min_len <= 4_096 {
        if max_len.is_some_and(|m| m < min_len) {
            return Ok(None);
        }
        return Ok(Some("a".repeat(usize::try_from(min_len).unwrap_or(0))));
    }
    Err(Unsupported::TooLarge)
}

/// Whether every string matching all of `sub` also matches `sup`.
///
/// # Errors
/// Always [`Unsupported::TooLarge`] in this stub, except when `sup` is one of `sub`.
pub fn subset(sub: &[&str], sup: &str) -> Result<bool, Unsupported> {
    if sub.contains(&sup) || sup.is_empty() {
        return Ok(true);
    }
    Err(Unsupported::TooLarge)
}
