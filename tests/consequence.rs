//! Severity follows the consequence (issue #31): a bound at a representation limit is an `info`, a
//! narrowing whose whole rejected set is `""`, `[]` or `{}` a `warning` with its witness, each with a
//! named reason; the containment verdict stays `incompatible`, and a configured severity still wins.

use assert_cmd::Command;
use mcp_drift::catalog::RuleId;
use mcp_drift::{Analysis, Finding, Severity};
use serde_json::{Value, json};

fn snapshot(properties: &Value) -> String {
    json!({"tools": [{
        "name": "list_releases",
        "description": "List the releases of a repository.",
        "inputSchema": {"type": "object", "properties": properties, "required": ["repo"]}
    }]})
    .to_string()
}

fn diff(old: &Value, new: &Value) -> Analysis {
    mcp_drift::diff_texts(&snapshot(old), &snapshot(new)).expect("valid snapshots")
}

/// The one `input-constraint-tightened` finding of a change to the parameter `p` (beside `repo`).
fn tightened(old: &Value, new: &Value) -> Finding {
    let a = diff(&json!({"repo": {"type": "string"}, "p": old}), &json!({"repo": {"type": "string"}, "p": new}));
    let found: Vec<&Finding> = a.findings.iter().filter(|f| f.rule == RuleId::InputConstraintTightened).collect();
    assert_eq!(found.len(), 1, "{old} -> {new}: {:#?}", a.findings);
    found[0].clone()
}

#[test]
fn a_bound_at_a_representation_limit_is_an_info_that_names_the_limit() {
    let cases = [
        (json!({"type": "integer"}), json!({"type": "integer", "maximum": 9_007_199_254_740_991_i64}), "2^53-1"),
        (json!({"type": "integer"}), json!({"type": "integer", "minimum": -9_007_199_254_740_991_i64}), "2^53-1"),
        (
            json!({"type": "integer"}),
            json!({"type": "integer", "exclusiveMaximum": 9_007_199_254_740_992_i64}),
            "2^53-1",
        ),
        (json!({"type": "integer"}), json!({"type": "integer", "maximum": 2_147_483_647}), "2^31-1"),
        (json!({"type": "integer"}), json!({"type": "integer", "minimum": -2_147_483_648_i64}), "-2^31"),
        (
            json!({"type": "integer", "minimum": 0}),
            json!({"type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64}),
            "2^32-1",
        ),
        (json!({"type": "integer"}), json!({"type": "integer", "maximum": 9_223_372_036_854_775_807_i64}), "2^63-1"),
        (json!({"type": "integer"}), json!({"type": "integer", "maximum": u64::MAX}), "2^64-1"),
        (json!({"type": "number"}), json!({"type": "number", "maximum": f64::MAX}), "64-bit float"),
        (json!({"type": "integer"}), json!({"type": "integer", "maximum": 9_007_199_254_740_991.0}), "2^53-1"),
    ];
    for (old, new, limit) in cases {
        let f = tightened(&old, &new);
        assert_eq!(f.severity, Severity::Info, "{new}");
        let reason = f.severity_reason.as_ref().expect("a named reason");
        assert_eq!(reason.severity, Severity::Info);
        assert!(reason.reason.contains(limit), "{new}: {}", reason.reason);
        assert!(f.why.contains(limit) && f.why.contains("info"), "{}", f.why);
    }
}

#[test]
fn a_real_bound_or_a_bound_that_replaces_another_stays_an_error() {
    for (old, new) in [
        (json!({"type": "integer"}), json!({"type": "integer", "maximum": 9_007_199_254_740_990_i64})),
        (json!({"type": "integer"}), json!({"type": "integer", "maximum": 100})),
        // A 64-bit range narrowed to JavaScript's: real for callers with 64-bit integers.
        (
            json!({"type": "integer", "maximum": 9_223_372_036_854_775_807_i64}),
            json!({"type": "integer", "maximum": 9_007_199_254_740_991_i64}),
        ),
    ] {
        let f = tightened(&old, &new);
        assert_eq!(f.severity, Severity::Error, "{old} -> {new}");
        assert!(f.severity_reason.is_none());
    }
}

#[test]
fn a_degenerate_rejected_set_is_a_warning_with_its_witness() {
    for (old, new, empty) in [
        (json!({"type": "string"}), json!({"type": "string", "minLength": 1}), json!("")),
        (json!({"type": "string", "minLength": 0}), json!({"type": "string", "minLength": 1}), json!("")),
        (
            json!({"type": "array", "items": {"type": "string"}}),
            json!({"type": "array", "items": {"type": "string"}, "minItems": 1}),
            json!([]),
        ),
        (json!({"type": "object"}), json!({"type": "object", "minProperties": 1}), json!({})),
        // Annotations may change beside it.
        (
            json!({"type": "string", "description": "Tag filter."}),
            json!({"type": "string", "minLength": 1, "description": "Tag."}),
            json!(""),
        ),
    ] {
        let f = tightened(&old, &new);
        assert_eq!(f.severity, Severity::Warning, "{old} -> {new}");
        let w = f.witness.as_ref().expect("the witness stays");
        assert_eq!(w.instance["p"], empty, "{w:?}");
        assert!(f.severity_reason.as_ref().is_some_and(|r| r.reason.contains(&empty.to_string())), "{f:#?}");
    }
}

#[test]
fn the_degenerate_test_is_exact() {
    // Rejects one-character strings too: nothing is lowered.
    for (old, new) in [
        (json!({"type": "string"}), json!({"type": "string", "minLength": 2})),
        (json!({"type": "string", "minLength": 1}), json!({"type": "string", "minLength": 2})),
    ] {
        let a = diff(&json!({"repo": {"type": "string"}, "p": old}), &json!({"repo": {"type": "string"}, "p": new}));
        let lowered: Vec<&Finding> = a.findings.iter().filter(|f| f.severity_reason.is_some()).collect();
        assert!(lowered.is_empty(), "{old} -> {new}: {lowered:#?}");
        assert!(a.findings.iter().any(|f| f.severity == Severity::Error), "{old} -> {new}: {:#?}", a.findings);
    }
    // Something else changed at the same place: that change is its own error with its own witness;
    // only the `minLength`/`minItems: 1` finding, whose own rejected set is the empty value, is lower.
    for (old, new, other) in [
        (json!({"type": "string"}), json!({"type": "string", "minLength": 1, "maxLength": 3}), "maxLength"),
        (
            json!({"type": "string", "maxLength": 10}),
            json!({"type": "string", "minLength": 1, "maxLength": 5}),
            "maxLength",
        ),
        (json!({"type": "array"}), json!({"type": "array", "minItems": 1, "uniqueItems": true}), "uniqueItems"),
    ] {
        let a = diff(&json!({"repo": {"type": "string"}, "p": old}), &json!({"repo": {"type": "string"}, "p": new}));
        for f in a.findings.iter().filter(|f| f.severity_reason.is_some()) {
            assert!(f.pointer.ends_with("/minLength") || f.pointer.ends_with("/minItems"), "{old} -> {new}: {f:#?}");
        }
        assert!(
            a.findings.iter().any(|f| f.severity == Severity::Error && f.pointer.ends_with(other)),
            "{old} -> {new}: {:#?}",
            a.findings
        );
    }
}

fn cli(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("mcp-drift").unwrap().current_dir(dir).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn json_keeps_the_verdict_and_adds_the_reason_and_configuration_still_wins() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let old = json!({"repo": {"type": "string"}, "page": {"type": "integer", "minimum": 1}});
    let new = json!({"repo": {"type": "string"}, "page": {"type": "integer", "minimum": 1, "maximum": 9_007_199_254_740_991_i64}});
    std::fs::write(d.join("old.json"), snapshot(&old)).unwrap();
    std::fs::write(d.join("new.json"), snapshot(&new)).unwrap();
    let (code, out) = cli(d, &["diff", "old.json", "new.json", "--format", "json"]);
    assert_eq!(code, 0, "an info does not fail the gate: {out}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    let f = &doc["findings"][0];
    assert_eq!(f["severity"], "info");
    assert!(f["severity_reason"].as_str().is_some_and(|r| r.contains("2^53-1")), "{f}");
    assert_eq!(f["witness"]["instance"]["page"], json!(9_007_199_254_740_992_i64), "{f}");
    assert_eq!(doc["compatibility"]["list_releases"]["input"]["verdict"], "incompatible");
    // A severity from the configuration applies on top, and the reason for the default goes.
    std::fs::write(d.join("mcp-drift.toml"), "[severity]\ninput-constraint-tightened = \"error\"\n").unwrap();
    let (code, out) = cli(d, &["diff", "old.json", "new.json", "--format", "json"]);
    assert_eq!(code, 1, "{out}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["findings"][0]["severity"], "error");
    assert!(doc["findings"][0].get("severity_reason").is_none(), "{out}");
}

/// Closing an input object that already declared its parameters is a warning (a call planned from the
/// old schema is unaffected), with its witness and reason; so is closing the arguments of a tool that
/// takes none (a planned call sends `{}`). Closing a nested free-form object stays an error (every key
/// an old caller put there was undeclared). The verdict stays incompatible either way.
#[test]
fn closing_a_declared_object_is_a_warning_and_a_free_form_one_an_error() {
    let tool = |schema: Value| json!({"tools": [{"name": "search", "inputSchema": schema}]}).to_string();
    let declared = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    let mut closed = declared.clone();
    closed["additionalProperties"] = json!(false);
    let a = mcp_drift::diff_texts(&tool(declared), &tool(closed)).unwrap();
    let f = a.findings.iter().find(|f| f.rule == RuleId::InputAdditionalPropertiesClosed).expect("a finding");
    assert_eq!(f.severity, Severity::Warning, "{f:#?}");
    assert!(f.witness.is_some() && f.severity_reason.is_some(), "{f:#?}");
    for none in [json!({"type": "object"}), json!({"type": "object", "properties": {}})] {
        let mut closed = none.clone();
        closed["additionalProperties"] = json!(false);
        let a = mcp_drift::diff_texts(&tool(none), &tool(closed)).unwrap();
        let f = a.findings.iter().find(|f| f.rule == RuleId::InputAdditionalPropertiesClosed).expect("a finding");
        assert_eq!(f.severity, Severity::Warning, "{f:#?}");
        assert!(f.severity_reason.as_ref().is_some_and(|r| r.reason.contains("no parameters")), "{f:#?}");
        assert!(matches!(a.compatibility["search"].input, mcp_drift::decide::Verdict::Incompatible { .. }));
    }
    let free = |closed: bool| {
        let mut meta = json!({"type": "object"});
        if closed {
            meta["additionalProperties"] = json!(false);
        }
        json!({"type": "object", "properties": {"q": {"type": "string"}, "metadata": meta}})
    };
    let a = mcp_drift::diff_texts(&tool(free(false)), &tool(free(true))).unwrap();
    let f = a.findings.iter().find(|f| f.rule == RuleId::InputAdditionalPropertiesClosed).expect("a finding");
    assert_eq!(f.severity, Severity::Error, "{f:#?}");
}

fn tool_texts(old_input: &Value, new_input: &Value) -> Analysis {
    let side = |input: &Value| {
        json!({"tools": [{"name": "create_branch", "description": "Create a branch.", "inputSchema": input}]})
            .to_string()
    };
    mcp_drift::diff_texts(&side(old_input), &side(new_input)).expect("valid snapshots")
}

/// server-github 0.6.2 published `{"$schema": ...}` for every tool (its schema generator failed); the
/// next release's real schemas gave 47 errors, all labelled harmless (issue #31). An old contract that
/// declares nothing cannot have been planned from: each narrowing is a warning with that reason.
#[test]
fn narrowing_an_input_schema_that_declared_nothing_is_a_warning_that_says_why() {
    let published = json!({
        "type": "object",
        "properties": {"owner": {"type": "string"}, "branch": {"type": "string"}},
        "required": ["owner", "branch"],
        "additionalProperties": false,
    });
    for old in [json!({"$schema": "http://json-schema.org/draft-07/schema#"}), json!({})] {
        let a = tool_texts(&old, &published);
        assert!(!a.findings.is_empty(), "{old}");
        for f in &a.findings {
            assert!(f.severity <= Severity::Warning, "{old}: {f:#?}");
            if f.severity == Severity::Warning && f.severity_reason.is_some() || f.rule == RuleId::InputRequiredAdded {
                let reason = f.severity_reason.as_ref().map(|r| r.reason.as_str()).unwrap_or_default();
                assert!(reason.contains("declared nothing"), "{old}: {f:#?}");
            }
        }
        assert!(a.findings.iter().any(|f| f.rule == RuleId::InputRequiredAdded), "{old}: {:#?}", a.findings);
    }
    // An object that declared no parameters is a contract (a tool that takes none): requiring one
    // now rejects yesterday's `{}` call, an error.
    let a = tool_texts(&json!({"type": "object"}), &published);
    assert!(
        a.findings.iter().any(|f| f.rule == RuleId::InputRequiredAdded && f.severity == Severity::Error),
        "{:#?}",
        a.findings
    );
}

/// A changed `default` is an error when an omitted argument now selects another behaviour (a boolean
/// flipped, another value of the parameter's own `enum`: tavily-mcp's `allow_external` false -> true,
/// labelled blocking); another number or a free-form string stays a warning (issue #31).
#[test]
fn a_default_that_selects_another_behaviour_is_an_error() {
    let severity = |old: Value, new: Value| -> Severity {
        let a = diff(&json!({"repo": {"type": "string"}, "p": old}), &json!({"repo": {"type": "string"}, "p": new}));
        let found: Vec<&Finding> = a.findings.iter().filter(|f| f.rule == RuleId::InputDefaultChanged).collect();
        assert_eq!(found.len(), 1, "{:#?}", a.findings);
        found[0].severity
    };
    let flag = |d: bool| json!({"type": "boolean", "default": d});
    assert_eq!(severity(flag(false), flag(true)), Severity::Error);
    let state = |d: &str| json!({"type": "string", "enum": ["draft", "published"], "default": d});
    assert_eq!(severity(state("draft"), state("published")), Severity::Error);
    let size = |d: u64| json!({"type": "integer", "default": d});
    assert_eq!(severity(size(5), size(8)), Severity::Warning);
    let fields = |d: &str| json!({"type": "string", "default": d});
    assert_eq!(severity(fields("labels,status"), fields("labels,status,versions")), Severity::Warning);
}
