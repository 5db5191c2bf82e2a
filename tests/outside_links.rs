//! Issue #33: a working-tree symbolic link that leads out of the repository (or out of the directory
//! given, outside any repository) is refused, as it is at a git revision: a pull request could commit
//! a link to a file elsewhere on the runner, and a report would quote its lines.
#![cfg(unix)]

use assert_cmd::Command;
use std::os::unix::fs::symlink;
use std::path::Path;

fn drift(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("mcp-drift").unwrap().current_dir(dir).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn sh(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git").current_dir(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

const TOOL: &str = r#"{"name": "deploy", "inputSchema": {"type": "object"}}"#;
/// A file elsewhere on the runner: a tool whose description holds a secret.
const SECRET: &str = r#"{"name": "leak", "inputSchema": {"type": "objekt"}, "description": "TOKEN=hunter2"}"#;

/// A repository with `snaps/deploy.snap`, and a secret file outside it.
fn setup() -> (tempfile::TempDir, tempfile::TempDir) {
    let repo = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    sh(repo.path(), &["init", "-q", "-b", "main"]);
    std::fs::create_dir_all(repo.path().join("snaps")).unwrap();
    std::fs::write(repo.path().join("snaps/deploy.snap"), TOOL).unwrap();
    std::fs::write(outside.path().join("secret.json"), SECRET).unwrap();
    (repo, outside)
}

#[test]
fn a_link_in_a_snapshot_directory_to_a_file_outside_the_repository_is_refused() {
    let (repo, outside) = setup();
    symlink(outside.path().join("secret.json"), repo.path().join("snaps/leak.snap")).unwrap();
    for args in [&["lint", "snaps"][..], &["diff", "snaps", "snaps"], &["lock", "snaps"]] {
        let (code, out, err) = drift(repo.path(), args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains("snaps/leak.snap") && err.contains("outside the repository"), "{err}");
        assert!(!out.contains("hunter2") && !err.contains("hunter2"), "{out}{err}");
    }
    // Left out, the rest is read.
    let (code, out, err) = drift(repo.path(), &["lint", "snaps", "--exclude", "leak.snap"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_snapshot_file_that_is_a_link_out_of_the_repository_is_refused() {
    let (repo, outside) = setup();
    symlink(outside.path().join("secret.json"), repo.path().join("tools.json")).unwrap();
    let (code, out, err) = drift(repo.path(), &["lint", "tools.json"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(!out.contains("hunter2") && !err.contains("hunter2"), "{out}{err}");
    // A path outside the repository, given as such, is the user's choice.
    let secret = outside.path().join("secret.json");
    let (code, out, err) = drift(repo.path(), &["lint", secret.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
}

#[test]
fn links_that_stay_inside_the_repository_are_followed() {
    let (repo, _outside) = setup();
    std::fs::create_dir_all(repo.path().join("shared")).unwrap();
    std::fs::write(repo.path().join("shared/status.snap"), TOOL.replace("deploy", "status")).unwrap();
    symlink("../shared/status.snap", repo.path().join("snaps/status.snap")).unwrap();
    let (code, out, err) = drift(repo.path(), &["lint", "snaps"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn outside_a_repository_a_link_out_of_the_directory_given_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("snaps")).unwrap();
    std::fs::write(dir.path().join("snaps/deploy.snap"), TOOL).unwrap();
    std::fs::write(outside.path().join("secret.json"), SECRET).unwrap();
    symlink(outside.path().join("secret.json"), dir.path().join("snaps/leak.snap")).unwrap();
    let (code, out, err) = drift(dir.path(), &["lint", "snaps"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("outside the directory given"), "{err}");
    assert!(!out.contains("hunter2") && !err.contains("hunter2"), "{out}{err}");
}

/// mcp-drift's own files too (attack 6.8 of the #33 pass): a committed `mcp-drift.toml`, a baseline it
/// names or a lock that links out of the repository is refused, and its content (here key names and
/// quoted values a parse error would print) is never shown. The same files given by their own path
/// outside the repository are the user's choice and read.
#[test]
fn a_configuration_baseline_or_lock_linked_out_of_the_repository_is_refused() {
    let (repo, outside) = setup();
    let o = outside.path();
    std::fs::write(o.join("secret.toml"), "TOKEN = \"hunter2\"\n").unwrap();
    std::fs::write(o.join("secret-lock.json"), r#"{"version": "hunter2"}"#).unwrap();
    std::fs::write(repo.path().join("tools.json"), format!("{{\"tools\": [{TOOL}]}}")).unwrap();
    let r = repo.path();
    let cases: [(&str, &Path, &[&str]); 3] = [
        ("mcp-drift.toml", &o.join("secret.toml"), &["lint", "tools.json"]),
        ("mcp-tools.lock", &o.join("secret-lock.json"), &["verify", "tools.json"]),
        ("bl.json", &o.join("secret-lock.json"), &["diff", "tools.json", "tools.json", "--baseline", "bl.json"]),
    ];
    for (name, target, args) in cases {
        symlink(target, r.join(name)).unwrap();
        let (code, out, err) = drift(r, args);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(err.contains(name) && err.contains("outside the repository"), "{name}: {err}");
        assert!(!out.contains("hunter2") && !err.contains("hunter2"), "{name}: {out}{err}");
        assert!(!err.contains("TOKEN"), "{name}: {err}");
        std::fs::remove_file(r.join(name)).unwrap();
    }
    // Given by its own path outside the repository, the file is read (and its parse error names it).
    let (code, _, err) = drift(r, &["lint", "tools.json", "--config", o.join("secret.toml").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("outside the repository"), "{err}");
}

/// A baseline that the working tree's configuration names by a path out of the repository
/// (`/abs/...`, `../...`) is refused before it is read, as a link out is: the configuration may be
/// the pull request's own (attack B2 of the second #33 pass quoted a token from such a file).
#[test]
fn a_baseline_the_configuration_names_outside_the_repository_is_refused() {
    let (repo, outside) = setup();
    let (o, r) = (outside.path(), repo.path());
    std::fs::write(o.join("secret.json"), r#"{"version": "ghp_SECRETTOKEN123"}"#).unwrap();
    std::fs::write(r.join("tools.json"), format!("{{\"tools\": [{TOOL}]}}")).unwrap();
    let relative = format!("../{}/secret.json", o.file_name().unwrap().to_str().unwrap());
    for named in [o.join("secret.json").display().to_string(), relative] {
        std::fs::write(r.join("mcp-drift.toml"), format!("baseline = {named:?}\n")).unwrap();
        let (code, out, err) = drift(r, &["lint", "tools.json"]);
        assert_eq!(code, 2, "{named}: {out}{err}");
        assert!(err.contains("outside the repository"), "{named}: {err}");
        assert!(!err.contains("ghp_") && !out.contains("ghp_"), "{named}: {out}{err}");
    }
    // One inside is read as before.
    std::fs::create_dir_all(r.join("policy")).unwrap();
    std::fs::write(r.join("policy/bl.json"), r#"{"version": 1, "accepted": []}"#).unwrap();
    std::fs::write(r.join("mcp-drift.toml"), "baseline = \"policy/../policy/bl.json\"\n").unwrap();
    let (code, out, err) = drift(r, &["lint", "tools.json"]);
    assert_eq!(code, 0, "{out}{err}");
}
