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
    // Never a revision: a path, here one that does not exist. Between two paths on disk a missing one
    // is an error (a typo must not pass as "every tool added").
    let (code, _, err) = drift(r.path(), &["diff", "--format", "json", "--", "-x:tools.json", "tools.json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("-x:tools.json: does not exist"), "{err}");
}

/// A snapshot new in the pull request: every tool is added, with a note; missing on both sides is
/// still an error.
#[test]
fn missing_path_at_revision() {
    let r = repo();
    std::fs::write(r.path().join("other.json"), V1).unwrap();
    commit_all(r.path(), "v1");
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    let (code, out, err) = drift(r.path(), &["diff", "--base", "HEAD", "tools.json", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(notes(&out), ["`tools.json` does not exist at `HEAD`; every tool is reported as added"]);
    assert!(out.contains("\"rule\": \"tool-added\""), "{out}");
    let (code, _, err) = drift(r.path(), &["diff", "HEAD:nothing.json", "HEAD:neither.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("HEAD:nothing.json: does not exist"), "{err}");
}

/// A pull request that commits a copy of its new snapshot as `main:tools.json` cannot make
/// `--base main tools.json` compare the new file with itself.
#[test]
fn base_never_reads_a_working_tree_file_named_like_the_revision() {
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    commit_all(r.path(), "v1");
    sh(r.path(), &["checkout", "-qb", "pr"]);
    std::fs::write(r.path().join("tools.json"), V2).unwrap();
    std::fs::write(r.path().join("main:tools.json"), V2).unwrap();
    commit_all(r.path(), "pr");
    let (code, out, err) = drift(r.path(), &["diff", "--base", "main", "tools.json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("error[input-required-added]") && out.contains("main:tools.json:1:"), "{out}");
    // The same with the PR's copy committed in a subdirectory, run from there.
    std::fs::create_dir(r.path().join("sub")).unwrap();
    std::fs::write(r.path().join("sub/tools.json"), V1).unwrap();
    commit_all(r.path(), "sub v1");
    std::fs::write(r.path().join("sub/tools.json"), V2).unwrap();
    std::fs::write(r.path().join("sub/HEAD:tools.json"), V2).unwrap();
    let (code, out, err) = drift(&r.path().join("sub"), &["diff", "--base", "HEAD", "tools.json"]);
    assert_eq!(code, 1, "{out}{err}");
}

/// `REV:PATH` naming both a file and a revision is refused, and the message says how to mean each;
/// `./REV:PATH` is the file; a prefix that is no revision is just a file name.
#[test]
fn ambiguous_rev_path_is_a_usage_error() {
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    commit_all(r.path(), "v1");
    std::fs::write(r.path().join("tools.json"), V2).unwrap();
    std::fs::write(r.path().join("main:tools.json"), V2).unwrap();
    for args in [
        &["diff", "main:tools.json", "tools.json"][..],
        &["diff", "tools.json", "main:tools.json"],
        &["lint", "main:tools.json"],
        &["baseline", "write", "main:tools.json", "tools.json"],
        &["baseline", "lint", "main:tools.json"],
        &["lock", "main:tools.json"],
        &["verify", "main:tools.json"],
    ] {
        let (code, out, err) = drift(r.path(), args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains("`./main:tools.json`") && err.contains("--base main tools.json"), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert!(!r.path().join("mcp-drift-baseline.json").exists());
    let (code, out, err) = drift(r.path(), &["diff", "./main:tools.json", "tools.json"]);
    assert_eq!(
        (code, out.as_str()),
        (0, "no contract changes across 1 tool\n"),
        "the file, compared with an identical one: {err}"
    );
    let (code, out, err) = drift(r.path(), &["diff", "main:tools.json", "./main:tools.json"]);
    assert_eq!(code, 2, "{out}{err}");
    // Not a revision: the file, as before.
    std::fs::write(r.path().join("nosuchrev:tools.json"), V1).unwrap();
    let (code, out, err) = drift(r.path(), &["diff", "nosuchrev:tools.json", "tools.json"]);
    assert_eq!(code, 1, "{out}{err}");
    // No such file: the revision, as before.
    std::fs::remove_file(r.path().join("main:tools.json")).unwrap();
    let (code, out, err) = drift(r.path(), &["diff", "main:tools.json", "tools.json"]);
    assert_eq!(code, 1, "{out}{err}");
}

fn notes(json: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    v["notes"]
        .as_array()
        .map(|a| a.iter().map(|n| n.as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default()
}

/// With `--base`, the configuration the pull request writes is not the one that judges it.
#[test]
fn base_reads_the_configuration_at_the_revision() {
    let silence = "[[ignore]]\ntool = \"deploy\"\nreason = \"trust me\"\n";
    // Added by the pull request.
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    commit_all(r.path(), "v1");
    std::fs::write(r.path().join("tools.json"), V2).unwrap();
    std::fs::write(r.path().join("mcp-drift.toml"), silence).unwrap();
    let (code, out, err) = drift(r.path(), &["diff", "--base", "main", "tools.json", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let n = notes(&out);
    assert_eq!(n.len(), 1, "{n:?}");
    assert!(n[0].contains("mcp-drift.toml") && n[0].contains("main") && n[0].contains("--config"), "{n:?}");
    let (_, human, _) = drift(r.path(), &["diff", "--base", "main", "tools.json"]);
    assert!(human.contains("mcp-drift.toml is new in the working tree"), "{human}");
    // Named explicitly: used, and no note.
    let (code, out, err) =
        drift(r.path(), &["diff", "--base", "main", "tools.json", "--config", "mcp-drift.toml", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(notes(&out).is_empty(), "{out}");
    // OLD given as `REV:PATH` judges the same way: the revision's configuration, with the note.
    let (code, out, err) = drift(r.path(), &["diff", "main:tools.json", "tools.json", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(notes(&out).len(), 1, "{out}");
    // Two snapshot files on disk: the working tree's configuration, as before.
    std::fs::write(r.path().join("old.json"), V1).unwrap();
    let (code, _, _) = drift(r.path(), &["diff", "old.json", "tools.json"]);
    assert_eq!(code, 0);

    // Changed by the pull request: the revision's is used.
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    std::fs::write(r.path().join("mcp-drift.toml"), "fail-on = \"error\"\n").unwrap();
    commit_all(r.path(), "v1");
    std::fs::write(r.path().join("tools.json"), V2).unwrap();
    std::fs::write(r.path().join("mcp-drift.toml"), format!("fail-on = \"never\"\n{silence}")).unwrap();
    let (code, out, err) = drift(r.path(), &["diff", "--base", "main", "tools.json", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        notes(&out),
        ["mcp-drift.toml differs from main's; this run used main's configuration (pass --config to use another)"]
    );
    // Unchanged: no note.
    commit_all(r.path(), "pr");
    let (code, out, _) = drift(r.path(), &["diff", "--base", "HEAD", "tools.json", "--format", "json"]);
    assert_eq!(code, 0);
    // No note about the configuration's origin; only that its ignore, with nothing left to ignore, is unused.
    assert_eq!(notes(&out), ["HEAD:mcp-drift.toml:2: [[ignore]] for tool `deploy` matched nothing; remove it"]);

    // Removed by the pull request: the revision's still applies.
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    std::fs::write(r.path().join("mcp-drift.toml"), "[severity]\ninput-required-added = \"warning\"\n").unwrap();
    commit_all(r.path(), "v1");
    std::fs::write(r.path().join("tools.json"), V2).unwrap();
    std::fs::remove_file(r.path().join("mcp-drift.toml")).unwrap();
    let (code, out, err) = drift(r.path(), &["diff", "--base", "main", "tools.json", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\"warning\""), "{out}");
    assert!(notes(&out).iter().any(|n| n.contains("removed")), "{out}");
}

/// The baseline the configuration names is the revision's too; `--baseline` is read as given.
#[test]
fn base_reads_the_configured_baseline_at_the_revision() {
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    std::fs::write(r.path().join("mcp-drift.toml"), "baseline = \"accepted.json\"\n").unwrap();
    std::fs::write(r.path().join("accepted.json"), "{\"version\": 1, \"accepted\": []}\n").unwrap();
    commit_all(r.path(), "v1");
    std::fs::write(r.path().join("tools.json"), V2).unwrap();
    let (code, _, err) =
        drift(r.path(), &["baseline", "write", "main:tools.json", "tools.json", "--output", "accepted.json"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = drift(r.path(), &["diff", "--base", "main", "tools.json", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        notes(&out),
        ["accepted.json differs from main's; this run used main's baseline (pass --baseline to use another)"]
    );
    let (code, out, err) =
        drift(r.path(), &["diff", "--base", "main", "tools.json", "--baseline", "accepted.json", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// A tag pushed with the name of the base branch must not silently become the base.
#[test]
fn an_ambiguous_base_revision_is_a_usage_error() {
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    commit_all(r.path(), "v1");
    sh(r.path(), &["branch", "base"]);
    std::fs::write(r.path().join("tools.json"), V2).unwrap();
    commit_all(r.path(), "pr");
    sh(r.path(), &["tag", "base", "HEAD"]);
    for args in [&["diff", "--base", "base", "tools.json"][..], &["diff", "base:tools.json", "tools.json"]] {
        let (code, out, err) = drift(r.path(), args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains("ambiguous") && err.contains("refs/heads/"), "{err}");
    }
    let (code, out, err) = drift(r.path(), &["diff", "--base", "refs/heads/base", "tools.json"]);
    assert_eq!(code, 1, "{out}{err}");
}

/// Two tags of a repository that keeps one `.snap` per tool, like `__toolsnaps__`.
fn toolsnaps_history() -> tempfile::TempDir {
    let r = repo();
    std::fs::write(r.path().join("README.md"), "no snapshots yet\n").unwrap();
    commit_all(r.path(), "v0");
    sh(r.path(), &["tag", "v0.1.0"]);
    let snaps = r.path().join("pkg/github/__toolsnaps__");
    std::fs::create_dir_all(&snaps).unwrap();
    let tool = |name: &str, schema: &str| format!("{{\n  \"inputSchema\": {schema},\n  \"name\": \"{name}\"\n}}\n");
    std::fs::write(snaps.join("get_me.snap"), tool("get_me", "{\"type\": \"object\"}")).unwrap();
    std::fs::write(
        snaps.join("issue_write.snap"),
        tool("issue_write", r#"{"type": "object", "properties": {"m": {"type": "string"}}}"#),
    )
    .unwrap();
    commit_all(r.path(), "v1");
    sh(r.path(), &["tag", "v0.2.0"]);
    std::fs::write(snaps.join("get_me.snap"), tool("get_me", "null")).unwrap();
    std::fs::write(snaps.join("issue_write.snap"), tool("issue_write", r#"{"type": "object"}"#)).unwrap();
    std::fs::write(snaps.join("issue_write_ff_fields.snap"), tool("issue_write", r#"{"type": "object"}"#)).unwrap();
    commit_all(r.path(), "v2");
    sh(r.path(), &["tag", "v0.3.0"]);
    r
}

const SNAPS: &str = "pkg/github/__toolsnaps__";

fn rules(json: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    v["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn per_tool_directories_across_tags() {
    let r = toolsnaps_history();
    // The directory does not exist at the older tag: every tool is added, with a note.
    let (code, out, err) =
        drift(r.path(), &["diff", &format!("v0.1.0:{SNAPS}"), &format!("v0.2.0:{SNAPS}"), "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(rules(&out), ["tool-added", "tool-added"]);
    assert_eq!(notes(&out), [format!("`{SNAPS}` does not exist at `v0.1.0`; every tool is reported as added")]);
    // A variant carrying the base tool's name and a null inputSchema: findings, not exit 2.
    let (code, out, err) =
        drift(r.path(), &["diff", &format!("v0.2.0:{SNAPS}"), &format!("v0.3.0:{SNAPS}"), "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let got = rules(&out);
    for want in ["input-property-removed", "tool-added", "tool-invalid"] {
        assert!(got.iter().any(|r| r == want), "{want}: {got:?}");
    }
    assert!(!got.iter().any(|r| r == "tool-removed"), "{got:?}");
    // Selection works at revisions as on disk.
    let (code, out, err) = drift(
        r.path(),
        &[
            "diff",
            &format!("v0.2.0:{SNAPS}"),
            &format!("v0.3.0:{SNAPS}"),
            "--exclude",
            "get_me.snap",
            "--exclude",
            "*_ff_*",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(rules(&out), ["input-property-removed"]);
}

/// CI checkouts without a working tree: a bare repository (paths from its root) and a
/// `--no-checkout` clone.
#[test]
fn bare_repositories_and_no_checkout_clones() {
    let r = toolsnaps_history();
    let clones = tempfile::tempdir().unwrap();
    let url = format!("file://{}", r.path().display());
    sh(clones.path(), &["clone", "-q", "--bare", &url, "bare.git"]);
    sh(clones.path(), &["clone", "-q", "--no-checkout", &url, "nock"]);
    for dir in ["bare.git", "nock"] {
        let (code, out, err) = drift(
            &clones.path().join(dir),
            &["diff", &format!("v0.2.0:{SNAPS}"), &format!("v0.3.0:{SNAPS}"), "--format", "json"],
        );
        assert_eq!(code, 1, "{dir}: {out}{err}");
        assert!(rules(&out).iter().any(|r| r == "tool-invalid"), "{dir}: {out}");
        let (code, _, err) = drift(&clones.path().join(dir), &["diff", "v0.9.9:x.json", "v0.3.0:x.json"]);
        assert_eq!(code, 2);
        assert!(err.contains("git fetch --depth=1 origin tag v0.9.9"), "{dir}: {err}");
    }
    // `--base` compares with the working tree: a bare repository has none, which is a usage error,
    // not "every tool removed".
    let (code, out, err) = drift(&clones.path().join("bare.git"), &["diff", "--base", "v0.2.0", SNAPS]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("bare") && err.contains(&format!("v0.2.0:{SNAPS} HEAD:{SNAPS}")), "{err}");
}

#[test]
fn advice_for_a_missing_revision_fits_it() {
    let r = repo();
    std::fs::write(r.path().join("tools.json"), V1).unwrap();
    commit_all(r.path(), "v1");
    let (code, _, err) = drift(r.path(), &["diff", "--base", "HEAD~999999", "tools.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("history is shorter") && !err.contains("origin HEAD~"), "{err}");
    let (code, _, err) = drift(r.path(), &["diff", "HEAD^{tree}:tools.json", "tools.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("names a tree, not a commit"), "{err}");
    let (_, _, err) = drift(r.path(), &["diff", "--base", "main@{99}", "tools.json"]);
    assert!(err.contains("reflog entry") && !err.contains("counts commits back"), "{err}");
    let (_, _, err) = drift(r.path(), &["diff", "--base", "origin/feature", "tools.json"]);
    assert!(err.contains("`git fetch --depth=1 origin feature`"), "{err}");
    let sha = "0123456789abcdef0123456789abcdef01234567";
    let (_, _, err) = drift(r.path(), &["diff", "--base", sha, "tools.json"]);
    assert!(err.contains(&format!("`git fetch --depth=1 origin {sha}`")) && err.contains("fetch-depth: 0"), "{err}");
}

/// Directories of whole snapshots (one tools/list per server) at revisions: file by file, as on disk.
#[test]
fn whole_snapshot_directories_at_revisions() {
    let r = repo();
    let servers = r.path().join("servers");
    std::fs::create_dir_all(&servers).unwrap();
    std::fs::write(servers.join("deploy.json"), V1).unwrap();
    std::fs::write(servers.join("other.json"), V1).unwrap();
    commit_all(r.path(), "v1");
    std::fs::write(servers.join("deploy.json"), V2).unwrap();
    commit_all(r.path(), "v2");
    let (code, out, err) = drift(r.path(), &["diff", "HEAD~1:servers", "HEAD:servers", "--format", "json"]);
    assert_eq!(code, 1, "two files with a tool `deploy` each are two snapshots, not duplicates: {out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = v["findings"].as_array().unwrap();
    assert!(f.iter().all(|f| f["snapshot"] == "deploy.json"), "{out}");
    assert!(f.iter().any(|f| f["rule"] == "input-required-added"), "{out}");
    let (code, out, err) = drift(r.path(), &["diff", "--base", "HEAD~1", "servers", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
}

/// Files are located by their repository path (`SourceFile.path`, which SARIF and GitHub output
/// link to), from any subdirectory, at revisions and in the working tree. The only test here that
/// changes the process's directory (the others give it to the child process).
#[test]
fn files_are_located_by_their_repository_path() {
    let r = toolsnaps_history();
    let sub = r.path().join("pkg/github");
    std::fs::write(sub.join("old.json"), V1).unwrap();
    std::fs::write(sub.join("new.json"), V2).unwrap();
    std::env::set_current_dir(&sub).unwrap();
    let paths = |a: mcp_drift::Analysis| a.sources.files.iter().map(|f| f.path.clone()).collect::<Vec<_>>();
    let git = mcp_drift::diff("v0.2.0:__toolsnaps__", "v0.3.0:__toolsnaps__/get_me.snap").unwrap();
    assert_eq!(
        paths(git),
        [format!("{SNAPS}/get_me.snap"), format!("{SNAPS}/issue_write.snap"), format!("{SNAPS}/get_me.snap")]
    );
    let disk = mcp_drift::diff("old.json", "./__toolsnaps__/../new.json").unwrap();
    assert_eq!(paths(disk), ["pkg/github/old.json", "pkg/github/new.json"]);
}

/// A tree at a revision costs a fixed number of git processes, whatever its number of files: one
/// `rev-parse`, one `ls-tree` and one `cat-file --batch` per side (plus the configuration lookup).
#[cfg(unix)]
#[test]
fn a_tree_is_read_with_a_fixed_number_of_git_processes() {
    use std::os::unix::fs::PermissionsExt as _;
    let r = repo();
    let snaps = r.path().join("snaps");
    std::fs::create_dir_all(&snaps).unwrap();
    for i in 0..40 {
        let tool = format!(r#"{{"name": "t{i}", "inputSchema": {{"type": "object"}}}}"#);
        std::fs::write(snaps.join(format!("t{i}.snap")), tool).unwrap();
    }
    commit_all(r.path(), "v1");
    std::fs::write(snaps.join("t0.snap"), r#"{"name": "t0", "inputSchema": {"type": "object", "required": ["x"]}}"#)
        .unwrap();
    commit_all(r.path(), "v2");
    // A `git` first on PATH that logs each run and hands it to the real one.
    let real = std::process::Command::new("sh").args(["-c", "command -v git"]).output().unwrap();
    let real = String::from_utf8(real.stdout).unwrap().trim().to_owned();
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("log");
    let wrapper = bin.path().join("git");
    std::fs::write(&wrapper, format!("#!/bin/sh\necho \"$1\" >> '{}'\nexec '{real}' \"$@\"\n", log.display())).unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::cargo_bin("mcp-drift")
        .unwrap()
        .current_dir(r.path())
        .env("PATH", path)
        .args(["diff", "HEAD~1:snaps", "HEAD:snaps"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let runs = std::fs::read_to_string(&log).unwrap();
    assert!(runs.lines().count() <= 8, "{} git processes for 80 files:\n{runs}", runs.lines().count());
}

/// A committed symbolic link in a snapshot directory reads at a revision as on disk: as the file it
/// points to, under its own path. A link out of the directory is a clear error.
#[cfg(unix)]
#[test]
fn symbolic_links_in_a_tree_read_as_on_disk() {
    let r = repo();
    let dir = r.path().join("snaps");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.json"), V1).unwrap();
    std::os::unix::fs::symlink("a.json", dir.join("b.json")).unwrap();
    commit_all(r.path(), "v1");
    let (disk_code, disk, _) = drift(r.path(), &["diff", "snaps", "snaps", "--format", "json"]);
    let (code, out, err) = drift(r.path(), &["diff", "HEAD:snaps", "HEAD:snaps", "--format", "json"]);
    assert_eq!((code, disk_code), (0, 0), "{out}{err}");
    let count = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap()["findings"].as_array().unwrap().len();
    assert_eq!(count(&out), count(&disk), "{out}\n{disk}");
    let (code, _, err) = drift(r.path(), &["diff", "--base", "HEAD", "snaps"]);
    assert_eq!(code, 0, "{err}");
    std::os::unix::fs::symlink("../elsewhere.json", dir.join("c.json")).unwrap();
    commit_all(r.path(), "v2");
    let (code, _, err) = drift(r.path(), &["diff", "HEAD:snaps", "HEAD:snaps"]);
    assert_eq!(code, 2);
    assert!(err.contains("snaps/c.json: is a symbolic link to `../elsewhere.json`"), "{err}");
}

/// A path missing on one side counts as "every tool added/removed" only when both sides name the same
/// path: a typo in one of two different paths is an error, not a green gate.
#[test]
fn a_typo_in_one_of_two_paths_is_an_error() {
    let r = repo();
    std::fs::write(r.path().join("s.json"), V1).unwrap();
    commit_all(r.path(), "v1");
    for args in [
        ["diff", "HEAD:s.jsno", "HEAD:s.json"],
        ["diff", "HEAD:s.json", "HEAD:s.jsno"],
        ["diff", "HEAD:s.json", "nosuch.json"],
    ] {
        let (code, _, err) = drift(r.path(), &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("does not exist"), "{err}");
    }
}
