//! `--format sarif`: SARIF 2.1.0 for code-scanning dashboards. One reporting descriptor per rule (with
//! the rule document as help and a link to it), one result per finding with its level, message,
//! location (the new file; the old file for removals) and a partial fingerprint.
//!
//! Locations are repository-relative URI references (`artifactLocation.uri`, percent-encoded) resolved
//! against `%SRCROOT%`, the repository root, as GitHub code scanning expects: never `REV:PATH`, which a
//! SARIF reader would parse as a URI with the scheme `REV`. An absolute file path becomes a `file:` URI.

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

/// The base id of every relative location: the root of the repository under analysis.
pub const SRCROOT: &str = "%SRCROOT%";

/// Where the rule documents are published: `rules/<id>.md` of this repository (Cargo `repository`).
#[must_use]
pub fn rule_uri(id: &str) -> String {
    format!("{}/blob/main/rules/{id}.md", env!("CARGO_PKG_REPOSITORY").trim_end_matches('/'))
}

/// An `artifactLocation` for a file's repository path ([`crate::checks::Location::artifact`]):
/// relative to [`SRCROOT`]; an absolute path (a file outside any repository) as a `file:` URI; standard
/// input by its name, without a base.
#[must_use]
pub fn artifact_location(artifact: &str) -> Value {
    let path = artifact.replace('\\', "/");
    let drive = path.as_bytes().get(1) == Some(&b':') && path.as_bytes().first().is_some_and(u8::is_ascii_alphabetic);
    if drive {
        // `C:/x`: the drive letter's colon is part of a file URI's path.
        json!({"uri": format!("file:///{}:{}", &path[..1], uri_path(&path[2..]))})
    } else if path.starts_with('/') {
        json!({"uri": format!("file://{}", uri_path(&path))})
    } else if path == "<stdin>" || path.is_empty() {
        json!({"uri": uri_path(&path), "description": {"text": "standard input"}})
    } else {
        json!({"uri": uri_path(&path), "uriBaseId": SRCROOT})
    }
}

/// A rule's message template as rule metadata: the optional notes a finding adds (`{note}`,
/// `{successor_note}`, `{consequence}`) are left out; the named parts (`{tool}`) stay as placeholders.
fn generic(template: &str) -> String {
    template.replace("{note}", "").replace("{successor_note}", "").replace("{consequence}", "")
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
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules,
            }},
            "originalUriBaseIds": {SRCROOT: {
                "description": {"text": "The root of the repository whose snapshots were compared."},
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    if !analysis.notes.is_empty() {
        let notes: Vec<Value> =
            analysis.notes.iter().map(|n| json!({"level": "note", "message": {"text": plain(n)}})).collect();
        doc["runs"][0]["invocations"] = json!([{"executionSuccessful": true, "toolExecutionNotifications": notes}]);
    }
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    crate::text::json_guard(out)
}

/// SARIF plain-text message text: escaped for display, and with `[` and `]` escaped (SARIF 2.1.0
/// §3.11.6), so text from a snapshot such as `[x](https://...)` is never an embedded link.
fn plain(s: &str) -> String {
    let s = escape(s);
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            '\\' if matches!(chars.peek(), Some('[' | ']')) => out.push_str("\\\\"),
            _ => out.push(c),
        }
    }
    out
}

/// One result: level, message (escaped for display), location (percent-encoded uri), fingerprint, and
/// the exact tool, pointer and witness as properties.
fn result(f: &Finding) -> Value {
    let at = if f.at_old || f.new.is_none() { f.old.as_ref().or(f.new.as_ref()) } else { f.new.as_ref() };
    let subject = if f.is_summary() { String::new() } else { format!("{}: ", f.tool) };
    let text = format!("{subject}{} Why: {} Migration: {}", f.message, f.why, f.migration);
    let mut result = json!({
        "ruleId": f.rule.as_str(),
        "ruleIndex": RuleId::ALL.iter().position(|r| *r == f.rule).unwrap_or(0),
        "level": level(f.severity),
        "message": {"text": plain(&text)},
        "partialFingerprints": {"mcpDrift/v1": f.fingerprint},
        "properties": {"tool": f.tool, "pointer": f.pointer},
    });
    if let Some(l) = at {
        result["locations"] = json!([{
            "physicalLocation": {
                "artifactLocation": artifact_location(&l.artifact),
                "region": {"startLine": l.line, "startColumn": l.column},
            }
        }]);
    }
    if let Some(w) = &f.witness {
        result["properties"]["witness"] = json!({"instance": w.instance, "rejected_because": w.rejected_because});
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_are_not_links() {
        assert_eq!(plain("see [b](https://evil.example/d)"), "see \\[b\\](https://evil.example/d)");
        assert_eq!(plain("a\\[b"), "a\\\\\\[b");
    }

    #[test]
    fn artifact_locations() {
        assert_eq!(artifact_location("pkg/a b.snap"), json!({"uri": "pkg/a%20b.snap", "uriBaseId": SRCROOT}));
        assert_eq!(artifact_location("main:x.json"), json!({"uri": "main%3Ax.json", "uriBaseId": SRCROOT}));
        assert_eq!(artifact_location("/tmp/x y.json"), json!({"uri": "file:///tmp/x%20y.json"}));
        assert_eq!(artifact_location("C:\\w\\x.json"), json!({"uri": "file:///C:/w/x.json"}));
        assert_eq!(artifact_location("<stdin>")["uri"], "%3Cstdin%3E");
    }
}
