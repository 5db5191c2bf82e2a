//! `--format sarif`: SARIF 2.1.0 for code-scanning dashboards. One reporting descriptor per rule (with
//! the rule document as help and a link to it), one result per finding with its level, message,
//! location (the new file; the old file for removals) and a partial fingerprint.

use serde_json::{Value, json};

use crate::Analysis;
use crate::catalog::{RuleId, Severity};
use crate::checks::Finding;
use crate::text::{escape, uri_path};

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// Where the rule documents are published.
#[must_use]
pub fn rule_uri(id: &str) -> String {
    format!("{}/blob/main/rules/{id}.md", env!("CARGO_PKG_REPOSITORY"))
}

/// A rule's message template as rule metadata: the optional notes a finding appends (`{note}`,
/// `{successor_note}`) are left out; the named parts (`{tool}`) stay as placeholders.
fn generic(template: &str) -> String {
    template.replace("{note}", "").replace("{successor_note}", "")
}

#[must_use]
pub fn render(analysis: &Analysis) -> String {
    let rules: Vec<Value> = RuleId::ALL
        .iter()
        .map(|r| {
            let m = r.meta();
            json!({
                "id": m.id,
                "name": m.name,
                "shortDescription": {"text": m.summary},
                "fullDescription": {"text": format!("{}. {}", m.summary, generic(m.why))},
                "help": {"text": generic(m.migration), "markdown": m.doc},
                "helpUri": rule_uri(m.id),
                "defaultConfiguration": {"level": level(m.severity)},
                "properties": {"direction": m.direction.as_str()},
            })
        })
        .collect();
    let mut results: Vec<Value> = analysis.findings.iter().map(result).collect();
    // Accepted findings stay results, marked the SARIF way: suppressed externally, with the reason.
    results.extend(analysis.suppressed.iter().map(|(f, reason)| {
        let mut r = result(f);
        r["suppressions"] = json!([{"kind": "external", "justification": escape(reason)}]);
        r
    }));
    let mut doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "mcp-drift",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    if !analysis.notes.is_empty() {
        let notes: Vec<Value> =
            analysis.notes.iter().map(|n| json!({"level": "note", "message": {"text": escape(n)}})).collect();
        doc["runs"][0]["invocations"] = json!([{"executionSuccessful": true, "toolExecutionNotifications": notes}]);
    }
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    crate::text::json_guard(out)
}

/// One result: level, message (escaped for display), location (percent-encoded uri), fingerprint, and
/// the exact tool, pointer and witness as properties.
fn result(f: &Finding) -> Value {
    let at = if f.at_old || f.new.is_none() { f.old.as_ref().or(f.new.as_ref()) } else { f.new.as_ref() };
    let text = format!("{}: {} Why: {} Migration: {}", f.tool, f.message, f.why, f.migration);
    let mut result = json!({
        "ruleId": f.rule.as_str(),
        "ruleIndex": RuleId::ALL.iter().position(|r| *r == f.rule).unwrap_or(0),
        "level": level(f.severity),
        "message": {"text": escape(&text)},
        "partialFingerprints": {"mcpDrift/v1": f.fingerprint},
        "properties": {"tool": f.tool, "pointer": f.pointer},
    });
    if let Some(l) = at {
        result["locations"] = json!([{
            "physicalLocation": {
                "artifactLocation": {"uri": uri_path(&l.path)},
                "region": {"startLine": l.line, "startColumn": l.column},
            }
        }]);
    }
    if let Some(w) = &f.witness {
        result["properties"]["witness"] = json!({"instance": w.instance, "rejected_because": w.rejected_because});
    }
    result
}
