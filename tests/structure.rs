//! Authority, defaults and dialect decided by structure, not by word lists (issue #14). Each case is
//! shaped like a real false positive from github-mcp-server or sentry-mcp history (own fixtures).

use mcp_drift::catalog::Severity;

/// The rules (with severity) the diff of two one-tool snapshots reports, in report order.
fn rules(old_tool: &str, new_tool: &str) -> Vec<(String, Severity)> {
    let wrap = |t: &str| format!("{{\"tools\": [{t}]}}");
    let analysis = mcp_drift::diff_texts(&wrap(old_tool), &wrap(new_tool)).unwrap();
    analysis.findings.iter().map(|f| (f.rule.as_str().to_owned(), f.severity)).collect()
}

fn count(found: &[(String, Severity)], rule: &str) -> usize {
    found.iter().filter(|(r, _)| r == rule).count()
}

fn tool(name: &str, properties: &str) -> String {
    format!(
        r#"{{"name": "{name}", "description": "A tool.", "inputSchema": {{"type": "object", "properties": {{{properties}}}}}}}"#
    )
}

#[test]
fn a_new_method_value_of_a_grouped_tool_is_an_operation_not_authority() {
    let old = tool(
        "projects_write",
        r#""method": {"type": "string", "description": "The method to execute", "enum": ["add_project_item", "delete_project_item"]}"#,
    );
    let new = tool(
        "projects_write",
        r#""method": {"type": "string", "description": "The method to execute", "enum": ["add_project_item", "delete_project_item", "create_project_status_update"]}"#,
    );
    let found = rules(&old, &new);
    assert_eq!(count(&found, "input-authority-expanded"), 0, "{found:?}");
    assert_eq!(count(&found, "input-enum-widened"), 1, "{found:?}");
}

#[test]
fn new_parameters_that_do_not_select_a_target_are_not_authority() {
    let old = tool("projects_write", r#""owner": {"type": "string"}"#);
    for (name, description) in [
        ("target_date", "The target date of the status update in YYYY-MM-DD format."),
        ("path", "Only commits containing this file path will be returned"),
        ("since", "Only commits after this date will be returned (ISO 8601 format)"),
        ("ignoreUserCount", "How many users must be affected before the issue stops being ignored."),
        ("environment", "Optional environment filter for dataset='replays'."),
        ("profileUrl", "Sentry profile URL. If provided, the identifiers are extracted from the URL."),
    ] {
        let new = tool(
            "projects_write",
            &format!(
                r#""owner": {{"type": "string"}}, "{name}": {{"type": "string", "description": "{description}"}}"#
            ),
        );
        let found = rules(&old, &new);
        assert_eq!(count(&found, "input-authority-expanded"), 0, "{name}: {found:?}");
        assert_eq!(count(&found, "input-property-added"), 1, "{name}: {found:?}");
    }
}

#[test]
fn new_parameters_that_select_a_target_still_are_authority() {
    let old = tool("create_repository", r#""name": {"type": "string"}"#);
    for (name, description) in [
        ("organization", "Organization to create the repository in (omit to create in your personal account)"),
        ("item_owner", "The owner (user or organization) of the repository containing the issue."),
        ("regionUrl", "The region URL for the organization you're querying, if known."),
        ("accountId", "Cloud account to deploy into."),
        ("slug", "The workspace to act on."),
    ] {
        let new = tool(
            "create_repository",
            &format!(r#""name": {{"type": "string"}}, "{name}": {{"type": "string", "description": "{description}"}}"#),
        );
        let found = rules(&old, &new);
        assert_eq!(count(&found, "input-authority-expanded"), 1, "{name}: {found:?}");
    }
    // Scope values of a scope parameter widen reach.
    let old = tool("deploy", r#""environment": {"type": "string", "enum": ["preview", "staging"]}"#);
    let new = tool("deploy", r#""environment": {"type": "string", "enum": ["preview", "staging", "production"]}"#);
    assert_eq!(count(&rules(&old, &new), "input-authority-expanded"), 1);
}

#[test]
fn a_prose_default_is_an_explicit_statement() {
    // github-mcp-server list_issues `state`: "by default" used in a sentence about behaviour.
    let old = tool("list_issues", r#""state": {"type": "string", "description": "Filter by state"}"#);
    let new = tool(
        "list_issues",
        r#""state": {"type": "string", "description": "Filter by state, by default both open and closed issues are returned when not provided"}"#,
    );
    assert_eq!(count(&rules(&old, &new), "input-default-changed"), 0);
}

#[test]
fn one_change_of_a_default_is_one_finding() {
    // The keyword and the description change together (github-mcp-server create_repository `private`).
    let old =
        tool("create_repository", r#""private": {"type": "boolean", "description": "Whether repo should be private"}"#);
    let new = tool(
        "create_repository",
        r#""private": {"type": "boolean", "default": true, "description": "Whether repo should be private. Defaults to true."}"#,
    );
    assert_eq!(count(&rules(&old, &new), "input-default-changed"), 1);
    // The default moved next to an `anyOf` (sentry-mcp get_event_stacktrace `eventId`): no change.
    let old = tool(
        "get_event",
        r#""eventId": {"type": "string", "default": "latest", "description": "Defaults to `latest`."}"#,
    );
    let new = tool(
        "get_event",
        r#""eventId": {"default": "latest", "description": "Defaults to `latest`.", "anyOf": [{"type": "string", "const": "latest"}, {"type": "string", "description": "The ID of the event."}]}"#,
    );
    assert_eq!(count(&rules(&old, &new), "input-default-changed"), 0);
    // zod 4 moves the default into the non-null branch: a changed value is one finding.
    let old = tool("list_events", r#""perPage": {"type": "integer", "default": 30}"#);
    let new = tool("list_events", r#""perPage": {"anyOf": [{"type": "integer", "default": 50}, {"type": "null"}]}"#);
    assert_eq!(count(&rules(&old, &new), "input-default-changed"), 1);
    let new = tool("list_events", r#""perPage": {"anyOf": [{"type": "integer", "default": 30}, {"type": "null"}]}"#);
    assert_eq!(count(&rules(&old, &new), "input-default-changed"), 0);
    // `"default": null` and no default mean the same to a caller that omits the parameter.
    let old = tool("search_docs", r#""guide": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}"#);
    let new = tool("search_docs", r#""guide": {"anyOf": [{"type": "string"}, {"type": "null"}]}"#);
    assert_eq!(count(&rules(&old, &new), "input-default-changed"), 0);
}

#[test]
fn dropping_draft_07_from_a_schema_that_means_the_same_is_silent() {
    let old = r#"{"name": "find_teams", "description": "Find teams.", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "exclusiveMinimum": 0}}}}"#;
    let new = r#"{"name": "find_teams", "description": "Find teams.", "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "exclusiveMinimum": 0}}}}"#;
    assert!(rules(old, new).is_empty(), "{:?}", rules(old, new));
    // A keyword whose meaning differs is reported, and named.
    let old = r#"{"name": "t", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"a": {"type": "string"}}, "dependencies": {"a": ["b"]}}}"#;
    let new = r#"{"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "dependencies": {"a": ["b"]}}}"#;
    let wrap = |t: &str| format!("{{\"tools\": [{t}]}}");
    let analysis = mcp_drift::diff_texts(&wrap(old), &wrap(new)).unwrap();
    let dialect: Vec<_> = analysis.findings.iter().filter(|f| f.rule.as_str() == "schema-dialect-changed").collect();
    assert_eq!(dialect.len(), 1, "{:?}", analysis.findings);
    assert!(dialect[0].message.contains("`dependencies`"), "{}", dialect[0].message);
}

#[test]
fn a_zod_3_to_4_regeneration_only_reports_what_changed() {
    // corpus/sdk-regenerated-zod3-to-zod4: `$schema` dropped, records spell out `propertyNames`,
    // nullable forms rewritten (a nullable `enum` too), descriptions moved into the non-null branch,
    // `additionalProperties: false` dropped from inputs. Only the last is a change: an info each.
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/sdk-regenerated-zod3-to-zod4");
    let analysis = mcp_drift::diff(&format!("{root}/old.json"), &format!("{root}/new.json")).unwrap();
    let found: Vec<(&str, Severity)> = analysis.findings.iter().map(|f| (f.rule.as_str(), f.severity)).collect();
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(found.iter().all(|f| *f == ("input-additional-properties-opened", Severity::Info)), "{found:?}");
}
