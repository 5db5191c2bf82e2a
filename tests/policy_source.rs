//! Issue #33: every command reads its policy (configuration, baseline, lock) at the base revision when
//! there is one, so a pull request cannot set the policy that judges it. Real throwaway repositories.

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

fn commit_all(dir: &Path, message: &str) {
    sh(dir, &["add", "."]);
    sh(dir, &["commit", "-qm", message]);
}

const V1: &str = r#"{"tools": [{"name": "deploy", "inputSchema": {"type": "object", "properties": {"branch": {"type": "string"}}, "required": ["branch"]}}]}"#;
const V2: &str = r#"{"tools": [{"name": "deploy", "inputSchema": {"type": "object", "properties": {"branch": {"type": "string"}, "region": {"type": "string"}}, "required": ["branch", "region"]}}]}"#;
/// Silences every finding: what a hostile pull request commits.
const SILENCE: &str = "[[ignore]]\ntool = \"*\"\nreason = \"trust me\"\n";

fn drift(dir: &Path, args: &[&str]) -> (i32, String, String) {
    drift_in(dir, args, None)
}

fn drift_in(dir: &Path, args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut cmd = Command::cargo_bin("mcp-drift").unwrap();
    cmd.current_dir(dir).args(args);
    if let Some(s) = stdin {
        cmd.write_stdin(s);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn notes(json: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    v["notes"]
        .as_array()
        .map(|a| a.iter().map(|n| n.as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default()
}

/// A repository at v1 with its lock committed; the pull request changes the tools and commits
/// `verify --update`'s new lock with them.
fn relocked() -> tempfile::TempDir {
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    assert_eq!(drift(r.path(), &["lock", "tools.json"]).0, 0);
    commit_all(r.path(), "v1");
    std::fs::write(r.path().join("tools.json"), V2).unwrap();
    let (code, _, err) = drift(r.path(), &["verify", "tools.json", "--update"]);
    assert_eq!(code, 0, "{err}");
    r
}

#[test]
fn verify_base_reads_the_lock_at_the_revision_and_says_the_pull_request_changed_it() {
    let r = relocked();
    // The pull request's own lock passes its own change: the hole.
    assert_eq!(drift(r.path(), &["verify", "tools.json"]).0, 0);
    let (code, out, err) = drift(r.path(), &["verify", "--base", "main", "tools.json", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("input-required-added"), "{out}");
    assert_eq!(
        notes(&out),
        ["mcp-tools.lock differs from main's; this run used main's lock (pass --lock to use another)"]
    );
    // The human format says it in one line too.
    let (_, human, _) = drift(r.path(), &["verify", "--base", "main", "tools.json"]);
    assert_eq!(human.matches("mcp-tools.lock differs from main's").count(), 1, "{human}");
    // `--lock REV:PATH` reads the lock at the revision.
    let (code, out, err) = drift(r.path(), &["verify", "--lock", "main:mcp-tools.lock", "tools.json"]);
    assert_eq!(code, 1, "{out}{err}");
    // With --base, `./PATH` is the working tree's lock.
    let (code, out, err) = drift(r.path(), &["verify", "--base", "main", "--lock", "./mcp-tools.lock", "tools.json"]);
    assert_eq!(code, 0, "{out}{err}");
    // `--update` rewrites a working-tree file only.
    let (code, _, err) = drift(r.path(), &["verify", "--base", "main", "tools.json", "--update"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--update"), "{err}");
}

#[test]
fn verify_base_reads_the_configuration_at_the_revision() {
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    assert_eq!(drift(r.path(), &["lock", "tools.json"]).0, 0);
    commit_all(r.path(), "v1");
    std::fs::write(r.path().join("tools.json"), V2).unwrap();
    std::fs::write(r.path().join("mcp-drift.toml"), SILENCE).unwrap();
    assert_eq!(drift(r.path(), &["verify", "tools.json"]).0, 0);
    let (code, out, err) = drift(r.path(), &["verify", "--base", "main", "tools.json", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(notes(&out).iter().any(|n| n.contains("mcp-drift.toml is new in the working tree")), "{out}");
    // A lock at a revision judges with that revision's configuration.
    let (code, _, _) = drift(r.path(), &["verify", "--lock", "main:mcp-tools.lock", "tools.json"]);
    assert_eq!(code, 1);
}

#[test]
fn verify_reads_the_lock_from_standard_input_and_refuses_a_missing_one_at_a_revision() {
    let r = relocked();
    let old_lock = {
        let out = std::process::Command::new("git")
            .current_dir(r.path())
            .args(["show", "main:mcp-tools.lock"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let (code, out, err) = drift_in(r.path(), &["verify", "--lock", "-", "tools.json"], Some(&old_lock));
    assert_eq!(code, 1, "{out}{err}");
    let (code, _, err) = drift_in(r.path(), &["verify", "--lock", "-", "-"], Some(&old_lock));
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = drift(r.path(), &["verify", "--lock", "main:other.lock", "tools.json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no lock `other.lock` at `main`"), "{err}");
}

/// A snapshot lint reports an error for: `type` misspelled.
const LINT_BAD: &str = r#"{"tools": [{"name": "deploy", "inputSchema": {"type": "objekt"}}]}"#;

#[test]
fn lint_base_reads_the_configuration_at_the_revision() {
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    commit_all(r.path(), "v1");
    std::fs::write(r.path().join("tools.json"), LINT_BAD).unwrap();
    std::fs::write(r.path().join("mcp-drift.toml"), SILENCE).unwrap();
    // The committed `[[ignore]] tool = "*"` turns the lint green: the hole.
    assert_eq!(drift(r.path(), &["lint", "tools.json"]).0, 0);
    let (code, out, err) = drift(r.path(), &["lint", "--base", "main", "tools.json", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(notes(&out).iter().any(|n| n.contains("mcp-drift.toml is new in the working tree")), "{out}");
}

/// `lint REV:PATH` lints the file at REV under REV's configuration, as `diff REV:PATH ...` does
/// (it used the working tree's, which the change under review may have written).
#[test]
fn lint_of_a_revision_reads_the_configuration_there() {
    let r = repo();
    std::fs::write(r.path().join("tools.json"), LINT_BAD).unwrap();
    commit_all(r.path(), "bad");
    std::fs::write(r.path().join("mcp-drift.toml"), SILENCE).unwrap();
    assert_eq!(drift(r.path(), &["lint", "tools.json"]).0, 0);
    let (code, out, err) = drift(r.path(), &["lint", "main:tools.json"]);
    assert_eq!(code, 1, "{out}{err}");
    // `--config` says whose configuration applies, as it always did.
    assert_eq!(drift(r.path(), &["lint", "main:tools.json", "--config", "mcp-drift.toml"]).0, 0);
    // Two revisions: which configuration applies is the user's to say.
    sh(r.path(), &["tag", "v1"]);
    let (code, _, err) = drift(r.path(), &["lint", "main:tools.json", "v1:tools.json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("snapshots at two revisions"), "{err}");
}

#[test]
fn replay_with_an_old_revision_reads_the_configuration_there() {
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    commit_all(r.path(), "v1");
    std::fs::write(r.path().join("tools.json"), V2).unwrap();
    std::fs::write(r.path().join("mcp-drift.toml"), SILENCE).unwrap();
    std::fs::write(r.path().join("calls.jsonl"), "{\"tool\": \"deploy\", \"arguments\": {\"branch\": \"x\"}}\n")
        .unwrap();
    let args = ["replay", "tools.json", "--calls", "calls.jsonl", "--old", "main:tools.json"];
    let (code, out, err) = drift(r.path(), &args);
    assert_eq!(code, 1, "{out}{err}");
    // Without a revision, the working tree's configuration, as before.
    std::fs::write(r.path().join("old.json"), V1).unwrap();
    let (code, out, err) = drift(r.path(), &["replay", "tools.json", "--calls", "calls.jsonl", "--old", "old.json"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn config_from_judges_two_files_on_disk_by_the_revision() {
    let r = repo();
    std::fs::write(r.path().join("README"), "x").unwrap();
    commit_all(r.path(), "v1");
    std::fs::write(r.path().join("mcp-drift.toml"), SILENCE).unwrap();
    std::fs::write(r.path().join("base.json"), V1).unwrap();
    std::fs::write(r.path().join("head.json"), V2).unwrap();
    assert_eq!(drift(r.path(), &["diff", "base.json", "head.json"]).0, 0);
    let (code, out, err) = drift(r.path(), &["diff", "base.json", "head.json", "--config-from", "main"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("mcp-drift.toml is new in the working tree"), "{out}");
    let (code, _, err) =
        drift(r.path(), &["diff", "base.json", "head.json", "--config-from", "main", "--config", "mcp-drift.toml"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = drift(r.path(), &["diff", "base.json", "head.json", "--config-from", "-x"]);
    assert_eq!(code, 2, "{err}");
}
