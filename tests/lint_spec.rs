//! Lint rules read snapshots the way the MCP specification and JSON Schema read them (issue #14): the
//! false positives named there, in the shape of the real snapshots they came from, stay silent, and
//! the true findings next to them stay.

use mcp_drift::catalog::{RuleId, Severity};
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

fn open_tool(name: &str) -> Value {
    json!({"name": name, "description": "A tool.", "inputSchema": {"type": "object", "properties": {}}})
}

/// Most SDKs leave every `inputSchema` open: github-mcp-server's toolsnaps at v1.10.1 gave 117
/// `lint-open-input` notes, one per tool. It is one summary per snapshot that counts and names them.
#[test]
fn open_input_is_one_summary_per_snapshot() {
    let mut tools: Vec<Value> = (0..8).map(|i| open_tool(&format!("tool_{i}"))).collect();
    tools.push(tool("closed", "A closed tool.", &json!({"readOnlyHint": true})));
    let analysis = lint(&json!({"tools": tools}));
    let open: Vec<&mcp_drift::Finding> = analysis.findings.iter().filter(|f| f.rule == RuleId::LintOpenInput).collect();
    assert_eq!(open.len(), 1, "{open:#?}");
    let f = open[0];
    assert_eq!((f.tool.as_str(), f.pointer.as_str()), ("", ""));
    assert!(f.message.contains("in 8 of 9 tools"), "{}", f.message);
    assert!(f.message.contains("`tool_0`, `tool_1`, `tool_2`, `tool_3`, `tool_4` and 3 more"), "{}", f.message);
    assert_eq!(f.notes, ["open: `tool_0`, `tool_1`, `tool_2`, `tool_3`, `tool_4`, `tool_5`, `tool_6`, `tool_7`"]);
    // Located at the first open tool's `inputSchema`, so every format has a place to point at.
    assert!(f.new.is_some());
    // The human line names no tool; the summary line counts the finding, not a tool.
    let human = mcp_drift::report::human::render(&analysis, false);
    assert!(
        human.starts_with("note[lint-open-input]: `inputSchema` accepts undeclared arguments in 8 of 9"),
        "{human}"
    );
    assert!(human.ends_with("0 errors, 0 warnings, 1 info\n"), "{human}");
    let json: Value = serde_json::from_str(&mcp_drift::report::json::render(&analysis)).unwrap();
    assert_eq!(json["findings"][0]["tool"], "");
    assert_eq!(json["findings"][0]["notes"][0], f.notes[0].as_str());
}

/// The fingerprint names the rule (and in a multi-snapshot run, the snapshot), not which tools are open:
/// a baseline keeps matching it as tools come and go. Its evidence is the list of open tools, so a
/// baseline that accepted 2 open tools reports a third.
#[test]
fn open_input_summary_has_a_stable_place_and_the_open_tools_as_evidence() {
    let two = lint(&json!({"tools": [open_tool("a"), open_tool("b")]}));
    let three = lint(&json!({"tools": [open_tool("a"), open_tool("b"), open_tool("c")]}));
    let other = lint(&json!({"tools": [open_tool("x")]}));
    let summary =
        |a: &mcp_drift::Analysis| a.findings.iter().find(|f| f.rule == RuleId::LintOpenInput).unwrap().clone();
    let (two, three, other) = (summary(&two), summary(&three), summary(&other));
    assert_eq!(two.fingerprint, three.fingerprint);
    assert_eq!(two.fingerprint, other.fingerprint);
    assert_eq!(two.fingerprint, mcp_drift::checks::fingerprint("lint-open-input", "", ""));
    assert!(two.evidence.is_some());
    assert_ne!(two.evidence, three.evidence);
    // A baseline written for the two open tools accepts the same list and reports the third.
    let policy_dir = tempfile::tempdir().unwrap();
    let path = policy_dir.path().join("baseline.json");
    let baseline = mcp_drift::policy::baseline_of(std::slice::from_ref(&two), "accepted");
    std::fs::write(&path, serde_json::to_string(&baseline).unwrap()).unwrap();
    let policy = mcp_drift::policy::Policy::default().with_baseline(&path).unwrap();
    assert!(policy.apply(vec![two.clone()]).kept.is_empty());
    let applied = policy.apply(vec![three]);
    assert_eq!(applied.kept.len(), 1);
    assert!(applied.kept[0].notes.iter().any(|n| n.contains("was a different one")), "{:?}", applied.kept[0].notes);
}

/// Issue #34: a parameter whose name and schema (or the tool's own description) say what it holds is
/// an info; one whose meaning is open stays a warning. On the newest releases of 14 real servers,
/// most of 171 warnings were `owner`, `repo`, `path`, `project_id`.
#[test]
fn an_undescribed_parameter_is_a_warning_only_when_its_meaning_is_open() {
    let snapshot = json!({"tools": [{
        "name": "search",
        "description": "Search a repository.\n\nArgs:\n    cursor: Where the previous page ended.\n\nSee `mode` and max_results. The value is kept.",
        "inputSchema": {"type": "object", "properties": {
            "owner": {"type": "string"},
            "file_path": {"type": "string"},
            "labels": {"type": "array", "items": {"type": "string"}},
            "issue_number": {"type": "number"},
            "timeout_ms": {"type": "integer"},
            "include_archived": {"type": "boolean"},
            "state": {"type": "string", "enum": ["open", "closed"]},
            "since": {"type": "string", "format": "date-time"},
            "cursor": {"type": "string"},
            "mode": {"type": "string"},
            "max_results": {"type": "integer"},
            "limit": {"type": "integer"},
            "timeout": {"type": "number"},
            "value": {"type": "string"},
            "options": {"type": "object"},
            "flag": {"type": "boolean"},
            "owner_count": {"type": "string"},
        }},
    }]});
    let report = lint(&snapshot);
    let of = |severity: Severity| -> Vec<String> {
        let mut names: Vec<String> = report
            .findings
            .iter()
            .filter(|f| f.rule == RuleId::LintMissingDescription && f.severity == severity)
            .map(|f| f.pointer.trim_start_matches("/inputSchema/properties/").to_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        of(Severity::Info),
        [
            "cursor",
            "file_path",
            "include_archived",
            "issue_number",
            "labels",
            "max_results",
            "mode",
            "owner",
            "since",
            "state",
            "timeout_ms"
        ]
    );
    assert_eq!(of(Severity::Warning), ["flag", "limit", "options", "owner_count", "timeout", "value"]);
    let owner = report.findings.iter().find(|f| f.pointer.ends_with("/owner")).unwrap();
    assert!(owner.message.contains("its name and type say what it holds"), "{}", owner.message);
}
