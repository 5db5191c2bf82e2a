//! `--format json`: the machine-readable report, version 1.

use serde_json::{Value, json};

use super::Summary;
use crate::Analysis;
use crate::checks::Location;

fn location(loc: Option<&Location>) -> Value {
    loc.map_or(Value::Null, |l| json!({"file": l.path, "line": l.line, "column": l.column}))
}

/// Renders the analysis as one JSON document (with a trailing newline).
#[must_use]
pub fn render(analysis: &Analysis) -> String {
    let summary = Summary::of(&analysis.findings);
    let findings: Vec<Value> = analysis
        .findings
        .iter()
        .map(|f| {
            let mut v = json!({
                "rule": f.rule.as_str(),
                "severity": f.severity.as_str(),
                "tool": f.tool,
                "pointer": f.pointer,
                "message": f.message,
                "why": f.why,
                "migration": f.migration,
                "old": location(f.old.as_ref()),
                "new": location(f.new.as_ref()),
                "fingerprint": f.fingerprint,
            });
            if let Some(from) = &f.from {
                v["from"] = json!(from);
            }
            v
        })
        .collect();
    let doc = json!({
        "version": 1,
        "old": analysis.old.label,
        "new": analysis.new.label,
        "summary": {"error": summary.error, "warning": summary.warning, "info": summary.info},
        "findings": findings,
    });
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}
