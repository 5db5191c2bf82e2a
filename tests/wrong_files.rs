//! Issue #33: a JSON file that is no tools/list snapshot in any shape is a usage error that says what
//! was expected, never "one tool, every other tool removed".

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

const TOOLS: &str = r#"{"tools": [{"name": "deploy", "inputSchema": {"type": "object"}}]}"#;

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(d.path().join(name), text).unwrap();
    }
    d
}

#[test]
fn a_package_json_is_not_a_snapshot_of_one_tool() {
    let d = dir_with(&[
        ("tools.json", TOOLS),
        ("package.json", r#"{"name": "my-server", "version": "1.0.0", "description": "An MCP server"}"#),
    ]);
    for args in [&["diff", "tools.json", "package.json"][..], &["lint", "package.json"], &["lock", "package.json"]] {
        let (code, out, err) = drift(d.path(), args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains("not a tools/list snapshot") && err.contains("`name` and `inputSchema`"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn a_lock_file_given_as_a_snapshot_says_what_it_is() {
    let d = dir_with(&[("tools.json", TOOLS)]);
    assert_eq!(drift(d.path(), &["lock", "tools.json"]).0, 0);
    let (code, _, err) = drift(d.path(), &["diff", "tools.json", "mcp-tools.lock"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("lock file") && err.contains("--lock"), "{err}");
}

#[test]
fn a_sarif_report_given_as_a_snapshot_says_what_it_is() {
    let d = dir_with(&[("tools.json", TOOLS)]);
    let (_, sarif, _) = drift(d.path(), &["diff", "tools.json", "tools.json", "--format", "sarif"]);
    std::fs::write(d.path().join("report.sarif"), sarif).unwrap();
    let (code, _, err) = drift(d.path(), &["diff", "tools.json", "report.sarif"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("SARIF report"), "{err}");
}

#[test]
fn an_array_of_non_tools_is_not_a_snapshot() {
    let d =
        dir_with(&[("tools.json", TOOLS), ("numbers.json", "[1, 2, 3]"), ("names.json", r#"[{"id": 1}, {"id": 2}]"#)]);
    for file in ["numbers.json", "names.json"] {
        let (code, _, err) = drift(d.path(), &["diff", "tools.json", file]);
        assert_eq!(code, 2, "{file}: {err}");
        assert!(err.contains("not a tools/list snapshot"), "{err}");
    }
}

#[test]
fn one_tool_object_with_both_fields_is_still_a_snapshot() {
    let d =
        dir_with(&[("tools.json", TOOLS), ("one.json", r#"{"name": "deploy", "inputSchema": {"type": "object"}}"#)]);
    let (code, out, err) = drift(d.path(), &["diff", "tools.json", "one.json"]);
    assert_eq!(code, 0, "{out}{err}");
}
