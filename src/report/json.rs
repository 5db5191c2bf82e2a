//! `--format json`: the machine-readable report, version 1. Field order is fixed by the structs below.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Summary;
use crate::Analysis;
use crate::checks::Location;
use crate::decide::Verdict;

#[derive(Serialize)]
struct Doc<'a> {
    version: u32,
    /// Empty for `lint`, which has one side.
    #[serde(skip_serializing_if = "str::is_empty")]
    old: &'a str,
    new: &'a str,
    summary: Counts,
    /// Notices about the run itself (for example a configuration the pull request changed).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
    findings: Vec<JsonFinding<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suppressed: Vec<Suppressed<'a>>,
    /// Per paired tool, the pure containment answer of each direction (empty for `lint`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    compatibility: BTreeMap<&'a str, Directions<'a>>,
}

#[derive(Serialize)]
struct Directions<'a> {
    input: JsonVerdict<'a>,
    output: JsonVerdict<'a>,
}

/// `compatible`; `incompatible` with a witness the validators confirmed; `undecided` with the keyword
/// that blocked and why.
#[derive(Serialize)]
struct JsonVerdict<'a> {
    verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    witness: Option<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    keyword: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

fn verdict(v: &Verdict) -> JsonVerdict<'_> {
    let none = JsonVerdict { verdict: "compatible", witness: None, keyword: None, at: None, reason: None };
    match v {
        Verdict::Compatible => none,
        Verdict::Incompatible { witness, instance_at, because, .. } => JsonVerdict {
            verdict: "incompatible",
            witness: Some(witness),
            at: Some(instance_at),
            reason: Some(because),
            ..none
        },
        Verdict::Undecided { keyword, at, reason } => {
            JsonVerdict { verdict: "undecided", keyword: Some(keyword), at: Some(at), reason: Some(reason), ..none }
        }
    }
}

#[derive(Serialize)]
struct Suppressed<'a> {
    rule: &'a str,
    tool: &'a str,
    pointer: &'a str,
    fingerprint: &'a str,
    reason: &'a str,
}

#[derive(Serialize)]
struct Counts {
    error: usize,
    warning: usize,
    info: usize,
    #[serde(skip_serializing_if = "is_zero")]
    suppressed: usize,
}

#[allow(clippy::trivially_copy_pass_by_ref, reason = "serde's skip_serializing_if passes a reference")]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot: Option<&'a str>,
    rule: &'a str,
    severity: &'a str,
    tool: &'a str,
    pointer: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<&'a str>,
    message: &'a str,
    why: &'a str,
    migration: &'a str,
    old: Option<Place<'a>>,
    new: Option<Place<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    witness: Option<JsonWitness<'a>>,
    /// Why the finding is reported below its rule's default severity, while that severity holds (a
    /// severity set in the configuration replaces it, and then this is left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    severity_reason: Option<&'a str>,
    /// Extra lines of the finding (a word diff, why an accepted change at this place is reported again).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
    fingerprint: &'a str,
}

#[derive(Serialize)]
struct JsonWitness<'a> {
    instance: &'a serde_json::Value,
    rejected_because: &'a str,
}

#[derive(Serialize)]
struct Place<'a> {
    file: &'a str,
    line: usize,
    column: usize,
}

fn place(loc: Option<&Location>) -> Option<Place<'_>> {
    loc.map(|l| Place { file: &l.path, line: l.line, column: l.column })
}

/// Renders the analysis as one JSON document (with a trailing newline).
#[must_use]
pub fn render(analysis: &Analysis) -> String {
    let summary = Summary::of(&analysis.findings);
    let findings = analysis
        .findings
        .iter()
        .map(|f| JsonFinding {
            snapshot: f.snapshot.as_deref(),
            rule: f.rule.as_str(),
            severity: f.severity.as_str(),
            tool: &f.tool,
            pointer: &f.pointer,
            from: f.from.as_deref(),
            message: &f.message,
            why: &f.why,
            migration: &f.migration,
            old: place(f.old.as_ref()),
            new: place(f.new.as_ref()),
            witness: f
                .witness
                .as_ref()
                .map(|w| JsonWitness { instance: &w.instance, rejected_because: &w.rejected_because }),
            severity_reason: f.severity_reason.as_ref().filter(|r| r.severity == f.severity).map(|r| r.reason.as_str()),
            notes: &f.notes,
            fingerprint: &f.fingerprint,
        })
        .collect();
    let doc = Doc {
        version: 1,
        old: &analysis.old.label,
        new: &analysis.new.label,
        summary: Counts {
            error: summary.error,
            warning: summary.warning,
            info: summary.info,
            suppressed: analysis.suppressed.len(),
        },
        notes: &analysis.notes,
        findings,
        suppressed: analysis
            .suppressed
            .iter()
            .map(|(f, reason)| Suppressed {
                rule: f.rule.as_str(),
                tool: &f.tool,
                pointer: &f.pointer,
                fingerprint: &f.fingerprint,
                reason,
            })
            .collect(),
        compatibility: analysis
            .compatibility
            .iter()
            .map(|(tool, c)| (tool.as_str(), Directions { input: verdict(&c.input), output: verdict(&c.output) }))
            .collect(),
    };
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    // The exact strings, written so that no line holds `##[` or a raw bidi or line-separator character.
    crate::text::json_guard(out)
}
