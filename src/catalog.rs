//! The rule catalog: ids, default severities and documentation, embedded from `rules/*.md` at build
//! time (see `build.rs`).
//!
//! Takes nothing at run time; returns `'static` metadata. Promises: every `RuleId` has a document with
//! the sections `explain` prints, and message templates that the checks stage fills in.

use std::fmt;
use std::fmt::Write as _;
use std::str::FromStr;

/// How loudly a finding is reported. Ordered from quietest to loudest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Severity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "info" => Ok(Severity::Info),
            "warning" => Ok(Severity::Warning),
            "error" => Ok(Severity::Error),
            other => Err(format!("unknown severity `{other}` (expected error, warning or info)")),
        }
    }
}

/// Which side of the contract a rule is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleDirection {
    /// Arguments sent by callers: breaks when the new schema accepts less.
    Input,
    /// Results read by consumers: breaks when the new schema can produce more.
    Output,
    /// The tool as a whole (name, annotations, descriptions).
    Tool,
    /// One snapshot on its own (lint rules).
    Snapshot,
    /// Recorded calls and results against a snapshot (`mcp-drift replay`).
    Replay,
}

impl RuleDirection {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RuleDirection::Input => "input",
            RuleDirection::Output => "output",
            RuleDirection::Tool => "tool",
            RuleDirection::Snapshot => "snapshot",
            RuleDirection::Replay => "replay",
        }
    }
}

/// The machine-readable half of a rule document.
#[derive(Debug)]
pub struct RuleMeta {
    pub id: &'static str,
    /// The id in upper camel case (`InputRequiredAdded`), as SARIF's `name` wants it.
    pub name: &'static str,
    pub severity: Severity,
    pub direction: RuleDirection,
    pub summary: &'static str,
    /// One-line message template; `{name}`-style placeholders are filled per finding.
    pub message: &'static str,
    /// Why it matters, as a template.
    pub why: &'static str,
    /// Migration advice, as a template.
    pub migration: &'static str,
    /// The rule for the same change in the other direction.
    pub mirror: Option<&'static str>,
    /// Why there is no mirror rule.
    pub mirror_reason: Option<&'static str>,
    /// The Markdown body of the rule document (everything after the front matter).
    pub doc: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/rules.rs"));

impl RuleId {
    #[must_use]
    pub fn meta(self) -> &'static RuleMeta {
        &META[self as usize]
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.meta().id
    }

    /// Looks a rule up by its public id.
    #[must_use]
    pub fn from_id(id: &str) -> Option<RuleId> {
        RuleId::ALL.iter().copied().find(|r| r.as_str() == id)
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Fills `{key}` placeholders in a rule template. Unknown placeholders are left as written so a
/// missing variable shows up in review instead of vanishing.
#[must_use]
pub fn fill(template: &str, vars: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        match after.find('}') {
            Some(end) if after[..end].bytes().all(|b| b.is_ascii_lowercase() || b == b'_') => {
                let key = &after[..end];
                match vars.iter().find(|(k, _)| *k == key) {
                    Some((_, v)) => out.push_str(v),
                    None => out.push_str(&rest[start..start + end + 2]),
                }
                rest = &after[end + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `mcp-drift rules`: one line per rule.
#[must_use]
pub fn table() -> String {
    let width = RuleId::ALL.iter().map(|r| r.as_str().len()).max().unwrap_or(0);
    let mut out = String::new();
    for rule in RuleId::ALL {
        let m = rule.meta();
        let _ = writeln!(out, "{:width$}  {:7}  {:8}  {}", m.id, m.severity.as_str(), m.direction.as_str(), m.summary);
    }
    out
}

/// `mcp-drift rules --format json`.
#[must_use]
pub fn json() -> String {
    let rules: Vec<serde_json::Value> = RuleId::ALL
        .iter()
        .map(|r| {
            let m = r.meta();
            serde_json::json!({"id": m.id, "severity": m.severity.as_str(), "direction": m.direction.as_str(), "summary": m.summary})
        })
        .collect();
    let mut out = serde_json::to_string_pretty(&serde_json::json!({"version": 1, "rules": rules})).unwrap_or_default();
    out.push('\n');
    out
}

/// `mcp-drift explain ID`: the rule document as written.
#[must_use]
pub fn explain(rule: RuleId) -> String {
    let m = rule.meta();
    let mut out =
        format!("{} (default severity: {}, direction: {})\n\n", m.id, m.severity.as_str(), m.direction.as_str());
    out.push_str(m.doc.trim_end());
    out.push('\n');
    out
}

/// The rule id closest to a misspelt one.
#[must_use]
pub fn closest(id: &str) -> Option<&'static str> {
    RuleId::ALL
        .iter()
        .map(|r| (strsim::jaro_winkler(id, r.as_str()), r.as_str()))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, id)| id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_replaces_known_and_keeps_unknown() {
        let vars = [("name", "region".to_owned())];
        assert_eq!(fill("`{name}` and {other} {", &vars), "`region` and {other} {");
    }

    #[test]
    fn ids_round_trip() {
        for rule in RuleId::ALL {
            assert_eq!(RuleId::from_id(rule.as_str()), Some(*rule));
        }
    }
}
