//! A finding's why and help agree with its severity (issue #14): where a rule is reported at another
//! severity than its default (decided at run time: a closed old schema, an optional field, an open
//! schema, an unknown dialect, a member a protocol revision does not know), its text says what that
//! severity means. An error never says "Additive" or "Nothing to migrate"; no text keeps a placeholder.

use mcp_drift::catalog::{RuleId, Severity};
use mcp_drift::{Analysis, Finding};
use serde_json::{Value, json};

fn one(analysis: &Analysis, rule: RuleId) -> &Finding {
    let found: Vec<&Finding> = analysis.findings.iter().filter(|f| f.rule == rule).collect();
    assert_eq!(found.len(), 1, "{rule:?}: {:#?}", analysis.findings);
    found[0]
}

fn text(f: &Finding) -> String {
    format!("{}\n{}\n{}", f.message, f.why, f.migration)
}

/// What a finding at `warning` or `error` must never say: it is not additive, and there is something
/// to do.
fn assert_not_harmless(f: &Finding) {
    let t = text(f);
    for calm in ["Additive", "is additive", "Nothing to migrate", "nothing breaks"] {
        assert!(!t.contains(calm), "{} at {} says {calm:?}:\n{t}", f.rule.as_str(), f.severity);
    }
}

/// No template variable is left unfilled (`{effect}`, `{advice}`, `{how}`, ...).
fn assert_filled(f: &Finding) {
    let t = text(f);
    let open = t.match_indices('{').any(|(i, _)| {
        let rest = &t[i + 1..];
        rest.find('}').is_some_and(|end| end > 0 && rest[..end].bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
    });
    assert!(!open, "{}: a placeholder is left in:\n{t}", f.rule.as_str());
}

fn with_output(output: &Value) -> Value {
    json!({"tools": [{
        "name": "get_pull_request",
        "description": "Get a pull request.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
        "outputSchema": output,
    }]})
}

fn diff(old: &Value, new: &Value) -> Analysis {
    mcp_drift::diff_texts(&old.to_string(), &new.to_string()).unwrap()
}

fn lint(snapshot: &Value, protocol: Option<mcp_drift::lint::Protocol>) -> Analysis {
    mcp_drift::lint_text(&snapshot.to_string(), mcp_drift::lint::Options { protocol }).unwrap()
}

#[test]
fn output_property_added_says_what_its_severity_means() {
    let props = json!({"number": {"type": "integer"}});
    let more = json!({"number": {"type": "integer"}, "draft": {"type": "boolean"}});
    // Open old schema: additive, an info.
    let open = diff(
        &with_output(&json!({"type": "object", "properties": props})),
        &with_output(&json!({"type": "object", "properties": more})),
    );
    let f = one(&open, RuleId::OutputPropertyAdded);
    assert_eq!(f.severity, Severity::Info);
    assert!(f.why.contains("additive"), "{}", f.why);
    assert_eq!(f.migration, "Keep the tool name; nothing to migrate.");
    assert_filled(f);
    // Closed old schema: consumers that validate results reject the new field, an error.
    let closed = diff(
        &with_output(&json!({"type": "object", "properties": props, "additionalProperties": false})),
        &with_output(&json!({"type": "object", "properties": more, "additionalProperties": false})),
    );
    let f = one(&closed, RuleId::OutputPropertyAdded);
    assert_eq!(f.severity, Severity::Error);
    assert_not_harmless(f);
    assert!(f.why.contains("reject every result that carries `draft`"), "{}", f.why);
    assert!(f.migration.contains("only once consumers that validate results accept it"), "{}", f.migration);
    assert_filled(f);
}

#[test]
fn output_property_removed_says_whether_it_was_optional() {
    let old = json!({"type": "object", "properties": {"number": {"type": "integer"}, "body": {"type": "string"}}});
    let new = json!({"type": "object", "properties": {"number": {"type": "integer"}}});
    let f = one(&diff(&with_output(&old), &with_output(&new)), RuleId::OutputPropertyRemoved).clone();
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.why.contains("it was optional"), "{}", f.why);
    assert_not_harmless(&f);
    assert_filled(&f);
    let mut old_required = old.clone();
    old_required["required"] = json!(["body"]);
    let f = one(&diff(&with_output(&old_required), &with_output(&new)), RuleId::OutputPropertyRemoved).clone();
    assert_eq!(f.severity, Severity::Error);
    assert!(f.why.contains("it is gone") && !f.why.contains("optional"), "{}", f.why);
    assert_filled(&f);
}

#[test]
fn lint_rules_at_two_severities_say_which() {
    let tool = |name: &str, input: Value| json!({"name": name, "description": "A tool.", "inputSchema": input});
    let closed = lint(
        &json!({"tools": [tool("a", json!({"type": "object", "required": ["x"], "additionalProperties": false}))]}),
        None,
    );
    let f = one(&closed, RuleId::LintRequiredUndeclared);
    assert_eq!(f.severity, Severity::Error);
    assert!(f.why.contains("every call invalid"), "{}", f.why);
    assert_filled(f);
    let open = lint(&json!({"tools": [tool("a", json!({"type": "object", "required": ["x"]}))]}), None);
    let f = one(&open, RuleId::LintRequiredUndeclared);
    assert_eq!(f.severity, Severity::Warning);
    assert!(!f.why.contains("every call invalid") && f.why.contains("the schema is open"), "{}", f.why);
    assert_filled(f);

    // A dialect mcp-drift does not know: the schema was not checked, so it is not called invalid.
    let dialect = json!({"$schema": "https://example.com/my-dialect", "type": "object", "additionalProperties": false});
    let f = one(&lint(&json!({"tools": [tool("a", dialect)]}), None), RuleId::LintSchemaInvalid).clone();
    assert_eq!(f.severity, Severity::Warning);
    assert!(!f.message.contains("not valid") && f.message.contains("could not be checked"), "{}", f.message);
    assert!(!f.migration.contains("validates against its meta-schema"), "{}", f.migration);
    assert_filled(&f);
    let invalid = json!({"type": "object", "properties": {"a": {"type": 5}}, "additionalProperties": false});
    let f = one(&lint(&json!({"tools": [tool("a", invalid)]}), None), RuleId::LintSchemaInvalid).clone();
    assert_eq!(f.severity, Severity::Error);
    assert!(f.message.contains("is not valid JSON Schema (2020-12)"), "{}", f.message);
    assert_filled(&f);

    // A member a revision does not know is ignored by its clients (a warning), not invalid.
    let mut with_icons = tool("a", json!({"type": "object", "additionalProperties": false}));
    with_icons["icons"] = json!([{"src": "https://example.com/a.png"}]);
    with_icons["outputSchema"] = json!({"type": "string"});
    let analysis = lint(&json!({"tools": [with_icons]}), Some(mcp_drift::lint::Protocol::V2025_06_18));
    let by_severity = |s: Severity| {
        analysis
            .findings
            .iter()
            .filter(|f| f.rule == RuleId::LintProtocolVersion && f.severity == s)
            .collect::<Vec<_>>()
    };
    let [warning] = by_severity(Severity::Warning)[..] else { panic!("{:#?}", analysis.findings) };
    assert!(warning.message.starts_with("ignored by clients of MCP 2025-06-18"), "{}", warning.message);
    let [error] = by_severity(Severity::Error)[..] else { panic!("{:#?}", analysis.findings) };
    assert!(error.message.starts_with("not valid for MCP 2025-06-18"), "{}", error.message);
    assert_filled(warning);
    assert_filled(error);
}

/// Over every corpus case, diff and lint: no warning or error calls itself harmless, and no text keeps
/// a placeholder.
#[test]
fn corpus_findings_agree_with_their_severity() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut checked = 0;
    for entry in std::fs::read_dir("corpus").unwrap() {
        let case = entry.unwrap().path();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let mut analyses = Vec::new();
        if name == "lint" {
            for lint_case in std::fs::read_dir(&case).unwrap() {
                let path = lint_case.unwrap().path().join("snapshot.json");
                let protocol = Some(mcp_drift::lint::Protocol::V2025_06_18);
                analyses.push(mcp_drift::lint(&[path.display().to_string()], mcp_drift::lint::Options { protocol }));
            }
        } else {
            let side = |s: &str| {
                let file = case.join(format!("{s}.json"));
                if file.exists() { file } else { case.join(s) }.display().to_string()
            };
            analyses.push(mcp_drift::diff(&side("old"), &side("new")));
        }
        for analysis in analyses {
            for f in &analysis.unwrap().findings {
                if f.severity > Severity::Info {
                    assert_not_harmless(f);
                }
                assert_filled(f);
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} findings");
}
