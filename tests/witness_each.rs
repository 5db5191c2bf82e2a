//! Every break gets its own witness (issue #31): a second, independent narrowing in a tool that
//! already has a witnessed break is proven by a witness of its own, which the validator rejects at
//! that narrowing's keyword, not "cannot decide" and not the other break's witness.

use mcp_drift::catalog::RuleId;
use mcp_drift::{Finding, Severity};
use serde_json::{Value, json};

fn tool(properties: &Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

fn findings(old: &Value, new: &Value) -> Vec<Finding> {
    let snapshot =
        |s: &Value| json!({"tools": [{"name": "t", "description": "A tool.", "inputSchema": s}]}).to_string();
    mcp_drift::diff_texts(&snapshot(old), &snapshot(new)).expect("valid snapshots").findings
}

/// The finding at `pointer` is an error whose witness the oracle confirms (old accepts, new rejects)
/// and whose rejection happens at that pointer's keyword.
fn assert_own_witness(found: &[Finding], old: &Value, new: &Value, pointer: &str) {
    let f = found.iter().find(|f| f.pointer == pointer).unwrap_or_else(|| {
        panic!("nothing at {pointer}: {:#?}", found.iter().map(|f| (&f.rule, &f.pointer)).collect::<Vec<_>>())
    });
    assert_ne!(f.rule, RuleId::InputCannotDecide, "{f:#?}");
    assert_eq!(f.severity, Severity::Error, "{f:#?}");
    let w = f.witness.as_ref().unwrap_or_else(|| panic!("{pointer} has no witness"));
    let validator = |s: &Value| jsonschema::draft202012::new(s).expect("the oracle compiles the schema");
    assert!(validator(old).is_valid(&w.instance), "old rejects {}", w.instance);
    let keyword = pointer.strip_prefix("/inputSchema").expect("an input pointer");
    let at_keyword = validator(new).iter_errors(&w.instance).any(|e| e.schema_path().to_string() == keyword);
    assert!(at_keyword, "{pointer}: {} is not rejected there ({})", w.instance, w.rejected_because);
}

#[test]
fn a_union_narrowed_beside_another_break_gets_its_own_witness() {
    let attachment = json!({"anyOf": [
        {"type": "string"},
        {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}
    ]});
    let old = tool(
        &json!({"channel": {"type": "string"}, "attachment": attachment, "priority": {"type": "integer", "maximum": 10}}),
        &["channel"],
    );
    let new = tool(
        &json!({"channel": {"type": "string"}, "attachment": {"type": "string"}, "priority": {"type": "integer", "maximum": 5}}),
        &["channel"],
    );
    let found = findings(&old, &new);
    assert_own_witness(&found, &old, &new, "/inputSchema/properties/priority/maximum");
    assert_own_witness(&found, &old, &new, "/inputSchema/properties/attachment/type");
    assert!(found.iter().all(|f| f.rule != RuleId::InputCannotDecide), "{found:#?}");
}

#[test]
fn a_length_and_a_pattern_change_on_one_string_each_get_their_own_witness() {
    let old = tool(&json!({"branch": {"type": "string", "pattern": "^[a-z0-9/_-]+$"}}), &["branch"]);
    let new = tool(&json!({"branch": {"type": "string", "pattern": "^[a-z0-9/-]+$", "minLength": 3}}), &["branch"]);
    let found = findings(&old, &new);
    assert_own_witness(&found, &old, &new, "/inputSchema/properties/branch/minLength");
    assert_own_witness(&found, &old, &new, "/inputSchema/properties/branch/pattern");
}

/// The tool's verdict is `incompatible` by a witness the decision procedure found at a removed result
/// field: the finding about that field carries that rejection, not only "the value is dropped".
#[test]
fn a_finding_is_never_weaker_than_the_verdict_that_its_own_place_proves() {
    let old =
        json!({"type": "object", "properties": {"a": {"not": {"oneOf": [{"type": "integer", "multipleOf": 2}]}}}});
    let new = json!({"type": "object", "properties": {}});
    let snapshot =
        |s: &Value| json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": s}]}).to_string();
    let a = mcp_drift::diff_texts(&snapshot(&old), &snapshot(&new)).unwrap();
    assert!(matches!(a.compatibility["t"].output, mcp_drift::decide::Verdict::Incompatible { .. }));
    let f = a.findings.iter().find(|f| f.rule == RuleId::OutputPropertyRemoved).expect("the removed field");
    let w = f.witness.as_ref().expect("a witness");
    assert!(!w.dropped, "{w:?}");
    let validator = |s: &Value| jsonschema::draft202012::new(s).unwrap();
    assert!(validator(&new).is_valid(&w.instance) && !validator(&old).is_valid(&w.instance), "{w:?}");
}
