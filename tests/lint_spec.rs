//! Lint rules read snapshots the way the MCP specification and JSON Schema read them (issue #14): the
//! false positives named there, in the shape of the real snapshots they came from, stay silent, and
//! the true findings next to them stay.

use mcp_drift::catalog::RuleId;
use serde_json::{Value, json};

fn lint(snapshot: &Value) -> mcp_drift::Analysis {
    mcp_drift::lint_text(&snapshot.to_string(), mcp_drift::lint::Options::default()).unwrap()
}

/// `(rule, tool, pointer)` of every finding of one rule.
fn hits(snapshot: &Value, rule: RuleId) -> Vec<(String, String)> {
    lint(snapshot).findings.iter().filter(|f| f.rule == rule).map(|f| (f.tool.clone(), f.pointer.clone())).collect()
}

fn tool(name: &str, description: &str, annotations: &Value) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
        "annotations": annotations,
    })
}

/// github-mcp-server's toolsnaps spell out `idempotentHint: false` on every read-only tool (57 warnings
/// on one release). The spec: `destructiveHint` and `idempotentHint` are meaningful only when
/// `readOnlyHint` is false, so a read-only tool with either set, either way, contradicts nothing.
#[test]
fn hints_a_read_only_tool_ignores_are_no_contradiction() {
    let snapshot = json!({"tools": [
        tool("actions_get", "Get details about specific GitHub Actions resources.\n",
            &json!({"idempotentHint": false, "readOnlyHint": true, "title": "Get details of GitHub Actions resources"})),
        tool("get_me", "Get details of the authenticated GitHub user.",
            &json!({"readOnlyHint": true, "idempotentHint": true})),
        tool("list_branches", "List branches in a GitHub repository.",
            &json!({"readOnlyHint": true, "destructiveHint": true})),
        tool("get_file", "Get the contents of a file.",
            &json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": false})),
    ]});
    assert_eq!(hits(&snapshot, RuleId::LintAnnotationContradiction), Vec::<(String, String)>::new());
}

/// What the rule is for stays: a read-only or non-destructive promise over a description that deletes.
#[test]
fn a_promise_the_description_breaks_is_a_contradiction() {
    let snapshot = json!({"tools": [
        // Read-only, but the description deletes (the other hints do not matter).
        tool("delete_branch", "Delete a branch.", &json!({"readOnlyHint": true, "destructiveHint": true})),
        // `destructiveHint: false` means "only additive updates"; removing the type is not additive
        // (github-mcp-server `update_issue_type`).
        tool("update_issue_type", "Set or remove the type of an existing issue. Pass null to remove the current type.",
            &json!({"destructiveHint": false, "idempotentHint": false, "openWorldHint": true, "readOnlyHint": false})),
        // `readOnlyHint` absent is `false` (its default), so `destructiveHint: false` is a promise too.
        tool("purge_cache", "Purges the cache of a project.", &json!({"destructiveHint": false})),
        // Negated, or no promise (`destructiveHint` defaults to true): nothing to say.
        tool("search", "Search issues. Never deletes anything.", &json!({"readOnlyHint": true})),
        tool("delete_file", "Delete a file.", &json!({"readOnlyHint": false})),
    ]});
    let found = hits(&snapshot, RuleId::LintAnnotationContradiction);
    let expected: Vec<(String, String)> = [
        ("delete_branch", "/annotations/readOnlyHint"),
        ("purge_cache", "/annotations/destructiveHint"),
        ("update_issue_type", "/annotations/destructiveHint"),
    ]
    .iter()
    .map(|(t, p)| ((*t).to_owned(), (*p).to_owned()))
    .collect();
    assert_eq!(found, expected);
    let analysis = lint(&snapshot);
    let message = &analysis.findings.iter().find(|f| f.tool == "delete_branch").unwrap().message;
    assert!(message.contains("the description says \"delete\""), "{message}");
    assert!(!message.contains("each other"), "one hint against the description: {message}");
}

/// sentry-mcp's generated schemas (zod 4) put an optional nullable parameter's description on the
/// non-null branch: 76 of the 84 `lint-missing-description` warnings of its `toolDefinitions.json`.
#[test]
fn a_description_inside_a_nullable_wrapper_is_a_description() {
    let region = "The region URL for the organization you're querying, if known.";
    let snapshot = json!({"tools": [{
        "name": "add_issue_note",
        "description": "Add a human-visible comment to a Sentry issue's activity feed.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "regionUrl": {"default": null, "anyOf": [{"type": "string", "description": region}, {"type": "null"}]},
                "end": {"default": null, "oneOf": [
                    {"type": "null"},
                    {"type": "string", "format": "date-time", "description": "End of the window (ISO 8601)."},
                ]},
                // On the branch through a `$ref`, or on an `allOf` member.
                "project": {"anyOf": [{"$ref": "#/$defs/Project"}, {"type": "null"}]},
                "sort": {"allOf": [{"type": "string", "description": "Sort order."}]},
                // On the property, around a branch without one: also described.
                "limit": {"description": "At most this many.", "anyOf": [{"type": "integer"}, {"type": "null"}]},
                // Nothing anywhere: still missing.
                "cursor": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "blank": {"anyOf": [{"type": "string", "description": "  "}, {"type": "null"}]},
                "loop": {"$ref": "#/$defs/Loop"},
            },
            "$defs": {
                "Project": {"type": "string", "description": "The project slug."},
                "Loop": {"anyOf": [{"$ref": "#/$defs/Loop"}]},
            },
            "additionalProperties": false,
        },
    }]});
    let pointers: Vec<String> =
        hits(&snapshot, RuleId::LintMissingDescription).into_iter().map(|(_, pointer)| pointer).collect();
    assert_eq!(
        pointers,
        ["/inputSchema/properties/blank", "/inputSchema/properties/cursor", "/inputSchema/properties/loop"]
    );
}
