//! Layouts as repositories keep them, on disk: per-tool directories whose files share a `name`
//! (feature-flag variants), tools that cannot be compared, partial snapshots, file selection and the
//! shapes of other ecosystems. Every fixture is written here, shaped like the real ones.

use assert_cmd::Command;
use std::path::Path;

fn drift(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("mcp-drift").unwrap().current_dir(dir).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// `(rule, tool, message)` of every finding of a JSON report.
fn findings(out: &str) -> Vec<(String, String, String)> {
    json(out)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or_default().to_owned();
            (s("rule"), s("tool"), s("message"))
        })
        .collect()
}

fn notes(out: &str) -> Vec<String> {
    json(out)["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_owned()).collect()
}

/// A `.snap` file as github-mcp-server's `__toolsnaps__` keeps them: one pretty-printed tool.
fn snap(name: &str, properties: &str, required: &str) -> String {
    format!(
        "{{\n  \"annotations\": {{\n    \"title\": \"{name}\"\n  }},\n  \"description\": \"Does {name}.\",\n  \
         \"inputSchema\": {{\n    \"type\": \"object\",\n    \"properties\": {{{properties}}},\n    \
         \"required\": [{required}]\n  }},\n  \"name\": \"{name}\"\n}}\n"
    )
}

const NULL_SCHEMA: &str = "{\n  \"annotations\": {\n    \"title\": \"Get me\"\n  },\n  \"description\": \"Who am I.\",\n  \"inputSchema\": null,\n  \"name\": \"get_me\"\n}\n";

const ISSUE_PROPS: &str = r#""owner": {"type": "string"}, "repo": {"type": "string"}, "method": {"type": "string", "enum": ["create", "update"]}"#;
const ISSUE_PROPS_LESS: &str = r#""owner": {"type": "string"}, "repo": {"type": "string"}"#;

fn write(dir: &Path, files: &[(&str, String)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

/// old/ and new/ shaped like two releases of `__toolsnaps__`: the new one adds a feature-flag
/// variant that carries the base tool's name, removes a parameter of the base tool, and publishes
/// `get_me` with a `null` inputSchema.
fn toolsnaps() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(
        &d.path().join("old"),
        &[
            ("issue_write.snap", snap("issue_write", ISSUE_PROPS, r#""owner""#)),
            ("get_me.snap", snap("get_me", "", "")),
            ("list_tags.snap", snap("list_tags", r#""owner": {"type": "string"}"#, "")),
        ],
    );
    write(
        &d.path().join("new"),
        &[
            ("issue_write.snap", snap("issue_write", ISSUE_PROPS_LESS, r#""owner""#)),
            ("issue_write_ff_remote_mcp_issue_fields.snap", snap("issue_write", ISSUE_PROPS, r#""owner""#)),
            ("get_me.snap", NULL_SCHEMA.to_owned()),
            ("list_tags.snap", snap("list_tags", r#""owner": {"type": "string"}"#, r#""owner""#)),
        ],
    );
    d
}

#[test]
fn feature_flag_variants_are_keyed_by_path_and_a_null_schema_is_one_finding() {
    let d = toolsnaps();
    let (code, out, err) = drift(d.path(), &["diff", "old", "new", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let f = findings(&out);
    let has = |rule: &str, tool: &str| f.iter().any(|(r, t, _)| r == rule && t == tool);
    // The real breaks of the release are all there.
    assert!(has("input-property-removed", "issue_write"), "{f:#?}");
    assert!(has("input-required-added", "list_tags"), "{f:#?}");
    // The variant is a tool of its own, named by its path, with its published name in the message.
    let variant = f.iter().find(|(_, t, _)| t == "issue_write_ff_remote_mcp_issue_fields").expect("variant");
    assert_eq!(variant.0, "tool-added", "{f:#?}");
    assert!(variant.2.contains("`issue_write_ff_remote_mcp_issue_fields` (name `issue_write`)"), "{}", variant.2);
    // `get_me` is one error at its `inputSchema`, not a removal.
    let get_me: Vec<_> = f.iter().filter(|(_, t, _)| t == "get_me").collect();
    assert_eq!(get_me.len(), 1, "{f:#?}");
    assert_eq!(get_me[0].0, "tool-invalid");
    assert!(get_me[0].2.contains("`inputSchema` is null"), "{}", get_me[0].2);
    let (_, human, _) = drift(d.path(), &["diff", "old", "new"]);
    assert!(human.contains("error[tool-invalid]") && human.contains("new/get_me.snap:6:3"), "{human}");
}

#[test]
fn a_tool_invalid_the_same_way_on_both_sides_is_a_note_not_an_error() {
    let d = tempfile::tempdir().unwrap();
    for side in ["old", "new"] {
        write(
            &d.path().join(side),
            &[("get_me.snap", NULL_SCHEMA.to_owned()), ("list_tags.snap", snap("list_tags", "", ""))],
        );
    }
    let (code, out, err) = drift(d.path(), &["diff", "old", "new", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(findings(&out).is_empty(), "{out}");
    let n = notes(&out);
    assert!(n.len() == 1 && n[0].contains("get_me") && n[0].contains("tool-invalid"), "{n:?}");
    // Invalid in the old snapshot only: its new contract is not compared, and not reported as added.
    write(&d.path().join("new"), &[("get_me.snap", snap("get_me", "", ""))]);
    let (code, out, err) = drift(d.path(), &["diff", "old", "new", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(findings(&out).is_empty(), "{out}");
    assert!(notes(&out).iter().any(|n| n.contains("get_me") && n.contains("cannot be compared")), "{out}");
}

#[test]
fn bad_tools_in_one_file_never_hide_the_others() {
    let d = tempfile::tempdir().unwrap();
    let old =
        r#"{"tools": [{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}]}"#;
    let new = "{\"tools\": [\n{\"name\": \"a\", \"inputSchema\": {\"type\": \"object\", \"properties\": {\"x\": {\"type\": \"string\"}}, \"required\": [\"x\"]}},\n\
               {\"name\": \"a\", \"inputSchema\": {\"type\": \"object\"}},\n\
               {\"inputSchema\": {\"type\": \"object\"}},\n\
               {\"name\": \"b\", \"inputSchema\": {}, \"outputSchema\": 3},\n\
               \"not a tool\"\n]}";
    write(d.path(), &[("old.json", old.to_owned()), ("new.json", new.to_owned())]);
    let (code, out, err) = drift(d.path(), &["diff", "old.json", "new.json", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let f = findings(&out);
    let rules: Vec<&str> = f.iter().map(|(r, _, _)| r.as_str()).collect();
    for want in ["input-required-added", "tool-name-duplicate", "tool-unnamed", "tool-invalid"] {
        assert!(rules.contains(&want), "{want}: {rules:?}");
    }
    assert_eq!(rules.iter().filter(|r| **r == "tool-invalid").count(), 2, "{rules:?}");
    let (_, human, _) = drift(d.path(), &["diff", "old.json", "new.json"]);
    assert!(human.contains("error[tool-name-duplicate]") && human.contains("new.json:3:1"), "{human}");
    assert!(human.contains("error[tool-unnamed]") && human.contains("new.json:4:1"), "{human}");
    // Compared with itself: nothing is new, so no finding, one note per defect.
    let (code, out, err) = drift(d.path(), &["diff", "new.json", "new.json", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(findings(&out).is_empty(), "{out}");
    let n = notes(&out);
    assert_eq!(n.len(), 4, "{n:?}");
    assert!(
        n[0].starts_with("tool `a` is defined more than once in both snapshots (first defined at new.json:2:1)"),
        "{n:?}"
    );
    assert!(n[1].starts_with("the tool at `/tools/2` has no usable name in both snapshots"), "{n:?}");
}

/// On disk, a path missing on one side is an error (most often a typo, and a typo on the old side must
/// not pass the gate as "every tool added"); at git revisions it is a snapshot the pull request adds or
/// deletes (tests/git.rs, `missing_path_at_revision`).
#[test]
fn a_path_missing_on_disk_is_an_error() {
    let d = toolsnaps();
    for args in [["diff", "missing", "old"], ["diff", "old", "missing"], ["diff", "missing", "gone"]] {
        let (code, _, err) = drift(d.path(), &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("missing: does not exist") || err.contains("gone: does not exist"), "{err}");
        assert!(err.contains("--base"), "the message says where one-side snapshots work: {err}");
    }
}

/// `include`/`exclude` in `mcp-drift.toml` select files like the flags; `--include` replaces the
/// configured includes, and excludes of both apply.
#[test]
fn configured_selection_applies_and_flags_refine_it() {
    let d = toolsnaps();
    std::fs::write(d.path().join("mcp-drift.toml"), "exclude = [\"*_ff_*.snap\", \"get_me.snap\"]\n").unwrap();
    let (code, out, err) = drift(d.path(), &["diff", "old", "new", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let f = findings(&out);
    assert!(f.iter().all(|(_, t, _)| t != "get_me" && !t.contains("_ff_")), "{f:#?}");
    assert!(f.iter().any(|(r, _, _)| r == "input-property-removed"), "{f:#?}");
    std::fs::write(d.path().join("mcp-drift.toml"), "include = [\"get_me.snap\"]\nexclude = [\"*_ff_*.snap\"]\n")
        .unwrap();
    let (_, out, _) = drift(d.path(), &["diff", "old", "new", "--format", "json"]);
    assert!(findings(&out).iter().all(|(_, t, _)| t == "get_me"), "{out}");
    let (_, out, _) = drift(d.path(), &["diff", "old", "new", "--include", "*.snap", "--format", "json"]);
    let f = findings(&out);
    assert!(f.iter().any(|(_, t, _)| t == "list_tags"), "the flag replaced the configured include: {f:#?}");
    assert!(f.iter().all(|(_, t, _)| !t.contains("_ff_")), "the configured exclude still applies: {f:#?}");
    std::fs::write(d.path().join("mcp-drift.toml"), "exclude = [\"a[\"]\n").unwrap();
    let (code, _, err) = drift(d.path(), &["lint", "new"]);
    assert_eq!(code, 2);
    assert!(err.contains("mcp-drift.toml exclude `a[`"), "{err}");
}

#[test]
fn include_and_exclude_select_files() {
    let d = toolsnaps();
    let (code, out, err) = drift(
        d.path(),
        &["diff", "old", "new", "--exclude", "*_ff_*.snap", "--exclude", "get_me.snap", "--format", "json"],
    );
    assert_eq!(code, 1, "{out}{err}");
    let f = findings(&out);
    assert!(f.iter().all(|(_, t, _)| t != "get_me" && !t.contains("_ff_")), "{f:#?}");
    assert!(f.iter().any(|(r, _, _)| r == "input-property-removed"), "{f:#?}");
    // An exclude wins over an include.
    let (code, out, _) = drift(
        d.path(),
        &[
            "diff",
            "old",
            "new",
            "--include",
            "list_*",
            "--include",
            "get_me.snap",
            "--exclude",
            "get_me.snap",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 1);
    assert!(findings(&out).iter().all(|(_, t, _)| t == "list_tags"), "{out}");
    // The same selection for lint and lock.
    let (code, out, err) = drift(d.path(), &["lint", "new", "--include", "list_tags.snap", "--format", "json"]);
    assert!(code < 2, "{out}{err}");
    // The `lint-open-input` summary names no tool; it counts the selected one only.
    let only_list_tags = |(r, t, m): &(String, String, String)| {
        t == "list_tags" || (r == "lint-open-input" && m.contains("the only tool") && m.contains("`list_tags`"))
    };
    assert!(findings(&out).iter().all(only_list_tags), "{out}");
    let (code, _, err) = drift(d.path(), &["lock", "new", "--include", "list_tags.snap", "--output", "x.lock"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("locked 1 tool(s)"), "{err}");
    let (code, out, err) = drift(d.path(), &["verify", "new", "--include", "list_tags.snap", "--lock", "x.lock"]);
    assert_eq!((code, out.as_str()), (0, "1 tool matches x.lock\n"), "{err}");
    let (code, _, err) =
        drift(d.path(), &["baseline", "write", "old", "new", "--include", "list_tags.snap", "--output", "b.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote 1 accepted finding(s)"), "{err}");
    // A selection that leaves one side without files: every tool of the other is added, with a note.
    write(&d.path().join("older"), &[("get_me.snap", snap("get_me", "", ""))]);
    let (code, out, err) = drift(d.path(), &["diff", "older", "old", "--include", "list_*", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(notes(&out), ["`older` holds no selected file (--include list_*); every tool is reported as added"]);
    // Nothing selected on either side is an error that says so; a bad glob names itself.
    let (code, _, err) = drift(d.path(), &["diff", "old", "new", "--include", "nothing/**"]);
    assert_eq!(code, 2);
    assert!(err.contains("no snapshot file is selected by --include nothing/**"), "{err}");
    let (code, _, err) = drift(d.path(), &["diff", "old", "new", "--exclude", "a[b"]);
    assert_eq!(code, 2);
    assert!(err.contains("--exclude `a[b`"), "{err}");
}

#[test]
fn shapes_of_other_ecosystems_are_named() {
    let d = tempfile::tempdir().unwrap();
    let mcp = r#"{"result": {"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}}"#;
    let anthropic = "[\n  {\"name\": \"a\",\n   \"input_schema\": {\"type\": \"object\"}}\n]";
    let openai = "{\"tools\": [{\"type\": \"function\",\n \"function\": {\"name\": \"a\", \"parameters\": {}}}]}";
    write(d.path(), &[("mcp.json", mcp.into()), ("anthropic.json", anthropic.into()), ("openai.json", openai.into())]);
    let (code, out, err) = drift(d.path(), &["diff", "mcp.json", "mcp.json"]);
    assert_eq!(
        (code, out.as_str()),
        (0, "no contract changes across 1 tool\n"),
        "a result without its JSON-RPC envelope: {err}"
    );
    let (code, _, err) = drift(d.path(), &["diff", "mcp.json", "anthropic.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("anthropic.json:3:4:") && err.contains("Anthropic") && err.contains("`inputSchema`"), "{err}");
    let (code, _, err) = drift(d.path(), &["diff", "openai.json", "mcp.json"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("openai.json:2:2:") && err.contains("OpenAI function") && err.contains("`inputSchema`"),
        "{err}"
    );
}

/// A variant file added or deleted on one side re-keys nothing on the other: a name that collides on
/// either side keys both sides' files by path, so an unchanged file is compared with itself.
#[test]
fn identity_is_stable_when_a_colliding_file_comes_or_goes() {
    let d = tempfile::tempdir().unwrap();
    let x_p = snap("x", r#""p": {"type": "string"}"#, r#""p""#);
    let x_q = snap("x", r#""q": {"type": "string"}"#, r#""q""#);
    write(&d.path().join("q1"), &[("x_ff_flag.snap", x_p.clone())]);
    write(&d.path().join("q2"), &[("x_ff_flag.snap", x_p.clone()), ("x.snap", x_q.clone())]);
    let (code, out, err) = drift(d.path(), &["diff", "q1", "q2", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let f = findings(&out);
    assert_eq!(f.iter().map(|(r, t, _)| (r.as_str(), t.as_str())).collect::<Vec<_>>(), [("tool-added", "x")], "{f:#?}");
    write(&d.path().join("r1"), &[("one.snap", x_p.clone()), ("two.snap", x_q)]);
    write(&d.path().join("r2"), &[("one.snap", x_p)]);
    let (code, out, err) = drift(d.path(), &["diff", "r1", "r2", "--format", "json"]);
    // `two` was a variant of `x`, which `one.snap` still serves: an `info` (see below).
    assert_eq!(code, 0, "{out}{err}");
    let f = findings(&out);
    assert_eq!(
        f.iter().map(|(r, t, _)| (r.as_str(), t.as_str())).collect::<Vec<_>>(),
        [("tool-removed", "two")],
        "{f:#?}"
    );
}

/// In a per-tool directory, a file holding a tool object without a name is that tool's finding, not
/// the end of the run.
#[test]
fn a_nameless_tool_file_is_a_finding() {
    let d = tempfile::tempdir().unwrap();
    write(&d.path().join("p1"), &[("a.snap", snap("a", "", ""))]);
    write(
        &d.path().join("p2"),
        &[
            ("a.snap", snap("a", r#""p": {"type": "string"}"#, r#""p""#)),
            ("d.snap", "{\"inputSchema\": {\"type\": \"object\"}}".into()),
        ],
    );
    let (code, out, err) = drift(d.path(), &["diff", "p1", "p2", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let f = findings(&out);
    assert!(f.iter().any(|(r, _, _)| r == "tool-unnamed"), "{f:#?}");
    assert!(f.iter().any(|(r, t, _)| r == "input-required-added" && t == "a"), "{f:#?}");
}

/// `lint` keeps going past a tool it cannot lint, like `diff`: a list entry that is not an object
/// and a nameless tool are findings, and the other tools are linted.
#[test]
fn lint_reports_tools_it_cannot_lint() {
    let d = tempfile::tempdir().unwrap();
    let text =
        "{\"tools\": [\n{\"name\": \"a\", \"inputSchema\": {\"type\": \"object\"}},\n42,\n{\"inputSchema\": {}}\n]}\n";
    write(d.path(), &[("l.json", text.into())]);
    let (code, out, err) = drift(d.path(), &["lint", "l.json", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let f = findings(&out);
    assert!(f.iter().any(|(r, _, _)| r == "tool-invalid") && f.iter().any(|(r, _, _)| r == "tool-unnamed"), "{f:#?}");
    assert!(f.iter().any(|(r, t, _)| r == "lint-missing-description" && t == "a"), "the other tool is linted: {f:#?}");
}

/// A lock made of every file, verified with a selection: the tools left out are reported as removed,
/// and a note says why and what to do.
#[test]
fn verify_with_a_selection_the_lock_was_not_made_with_says_so() {
    let d = toolsnaps();
    let (code, _, err) = drift(d.path(), &["lock", "old", "--output", "all.lock"]);
    assert_eq!(code, 0, "{err}");
    let (_, out, err) =
        drift(d.path(), &["verify", "old", "--lock", "all.lock", "--include", "list_tags.snap", "--format", "json"]);
    let n = notes(&out);
    assert!(n.iter().any(|n| n.starts_with("2 locked tool(s) are not in the selected files")), "{n:?} {err}");
}

/// A variant file that goes away while its published name is still served (a feature flag that
/// graduated), or one replaced by another variant of the same name, removes or renames nothing a
/// caller calls: `info`, with the reason, never an error.
#[test]
fn retired_variant_files_are_not_breaks() {
    let d = tempfile::tempdir().unwrap();
    let base = snap("search", "", "");
    let flagged = snap("search", r#""fields": {"type": "string"}"#, "");
    write(&d.path().join("a"), &[("search.snap", base), ("search_ff_fields.snap", flagged.clone())]);
    write(&d.path().join("b"), &[("search.snap", flagged)]);
    let (code, out, err) = drift(d.path(), &["diff", "a", "b", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let doc = json(&out);
    let removed = doc["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "tool-removed").expect("finding");
    assert_eq!(removed["severity"], "info", "{out}");
    assert!(removed["why"].as_str().unwrap().contains("still serves"), "{out}");
    write(
        &d.path().join("c"),
        &[("t.snap", snap("t", "", "")), ("t_v1.snap", snap("t", r#""p": {"type": "string"}"#, ""))],
    );
    write(
        &d.path().join("e"),
        &[("t.snap", snap("t", "", "")), ("t_v2.snap", snap("t", r#""p": {"type": "string"}"#, ""))],
    );
    let (code, out, err) = drift(d.path(), &["diff", "c", "e", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(findings(&out).iter().all(|(r, _, _)| r != "tool-renamed" || out.contains("\"info\"")), "{out}");
}
