//! Git revisions as inputs, in real throwaway repositories (including a shallow clone).

use assert_cmd::Command;
use std::path::Path;

fn sh(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git").current_dir(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    sh(dir.path(), &["init", "-q", "-b", "main"]);
    sh(dir.path(), &["config", "user.email", "ci@example.com"]);
    sh(dir.path(), &["config", "user.name", "CI"]);
    sh(dir.path(), &["config", "commit.gpgsign", "false"]);
    dir
}

/// Stages everything in the working tree and commits it.
fn commit_all(dir: &Path, message: &str) {
    sh(dir, &["add", "."]);
    sh(dir, &["commit", "-qm", message]);
}

const V1: &str = r#"{"tools": [{"name": "deploy", "inputSchema": {"type": "object", "properties": {"branch": {"type": "string"}}, "required": ["branch"]}}]}"#;
const V2: &str = r#"{"tools": [{"name": "deploy", "inputSchema": {"type": "object", "properties": {"branch": {"type": "string"}, "region": {"type": "string"}}, "required": ["branch", "region"]}}]}"#;

fn drift(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("mcp-drift").unwrap().current_dir(dir).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn base_revision_against_the_working_tree() {
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    commit_all(r.path(), "v1");
    std::fs::write(r.path().join("tools.json"), V2).unwrap();
    let (code, out, err) = drift(r.path(), &["diff", "--base", "HEAD", "tools.json"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("error[input-required-added]") && out.contains("HEAD:tools.json:1:"), "{out}");
    let (code, out, _) = drift(r.path(), &["diff", "HEAD:tools.json", "tools.json", "--format", "json"]);
    assert_eq!(code, 1);
    assert!(out.contains("\"file\": \"HEAD:tools.json\""), "{out}");
}

#[test]
fn directories_at_a_revision_and_from_a_subdirectory() {
    let r = repo();
    let snaps = r.path().join("pkg/__toolsnaps__");
    std::fs::create_dir_all(&snaps).unwrap();
    std::fs::write(snaps.join("deploy.snap"), r#"{"name": "deploy", "inputSchema": {"type": "object"}}"#).unwrap();
    std::fs::write(snaps.join("status.snap"), r#"{"name": "status", "inputSchema": {"type": "object"}}"#).unwrap();
    commit_all(r.path(), "v1");
    std::fs::remove_file(snaps.join("status.snap")).unwrap();
    let (code, out, err) = drift(&r.path().join("pkg"), &["diff", "--base", "HEAD", "__toolsnaps__"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("error[tool-removed]") && out.contains("status"), "{out}");
}

#[test]
fn missing_revision_in_a_shallow_clone_says_how_to_fetch() {
    let origin = repo();
    std::fs::write(origin.path().join("tools.json"), V1).unwrap();
    commit_all(origin.path(), "v1");
    std::fs::write(origin.path().join("tools.json"), V2).unwrap();
    sh(origin.path(), &["commit", "-qam", "v2"]);
    let clone = tempfile::tempdir().unwrap();
    let url = format!("file://{}", origin.path().display());
    sh(clone.path(), &["clone", "-q", "--depth", "1", &url, "c"]);
    let c = clone.path().join("c");
    let (code, _, err) = drift(&c, &["diff", "--base", "HEAD~1", "tools.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("shallow clone") && err.contains("fetch-depth: 0") && err.contains("git fetch"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn revisions_never_start_with_a_dash() {
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    let (code, _, err) = drift(r.path(), &["diff", "--base=--output=/tmp/x", "tools.json"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = drift(r.path(), &["diff", "--", "-x:tools.json", "tools.json"]);
    assert_eq!(code, 2);
}

#[test]
fn missing_path_at_revision() {
    let r = repo();
    std::fs::write(r.path().join("other.json"), V1).unwrap();
    commit_all(r.path(), "v1");
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    let (code, _, err) = drift(r.path(), &["diff", "--base", "HEAD", "tools.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("does not exist at revision `HEAD`"), "{err}");
}
