//! `lock` and `verify`: round trip, drift explained with the diff's rules, stable hashes, clear errors
//! and atomic writes.

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

const TOOLS: &str = r#"{"tools": [{"name": "search", "description": "Search issues. Returns at most 100 results.", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}, "annotations": {"readOnlyHint": true}}]}"#;

#[test]
fn lock_verify_round_trip_and_one_word_edit() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tools.json"), TOOLS).unwrap();
    assert_eq!(drift(dir.path(), &["lock", "tools.json"]).0, 0);
    let lock = std::fs::read_to_string(dir.path().join("mcp-tools.lock")).unwrap();
    assert!(lock.contains("\"version\": 1") && lock.contains("\"sha256\""));
    assert_eq!(
        drift(dir.path(), &["verify", "tools.json"]),
        (0, "1 tool matches mcp-tools.lock\n".to_owned(), String::new())
    );

    // A limit changed in prose only is an error: the default gate fails on it.
    std::fs::write(dir.path().join("tools.json"), TOOLS.replace("most 100", "most 50")).unwrap();
    let (code, out, _) = drift(dir.path(), &["verify", "tools.json"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[description-meaning-changed]"), "{out}");
    assert!(out.contains("limit: at most 100 results -> at most 50 results"), "{out}");
    // `verify` reads `mcp-drift.toml` like `diff` and `lint`: severities and the fail-on threshold.
    std::fs::write(dir.path().join("mcp-drift.toml"), "[severity]\ndescription-meaning-changed = \"warning\"\n")
        .unwrap();
    let (code, out, _) = drift(dir.path(), &["verify", "tools.json"]);
    assert_eq!(code, 0, "a warning is below the default fail-on: {out}");
    assert!(out.contains("warning[description-meaning-changed]"), "{out}");
    std::fs::write(
        dir.path().join("mcp-drift.toml"),
        "fail-on = \"warning\"\n[severity]\ndescription-meaning-changed = \"warning\"\n",
    )
    .unwrap();
    assert_eq!(drift(dir.path(), &["verify", "tools.json"]).0, 1);
    std::fs::remove_file(dir.path().join("mcp-drift.toml")).unwrap();
    assert_eq!(drift(dir.path(), &["verify", "tools.json", "--update"]).0, 0);
    assert_eq!(drift(dir.path(), &["verify", "tools.json", "--fail-on", "info"]).0, 0);
}

#[test]
fn hashes_ignore_key_order_whitespace_and_spelled_out_defaults() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.json"), TOOLS).unwrap();
    let reordered = r#"{"tools":[{"annotations":{"destructiveHint":true,"readOnlyHint":true,"openWorldHint":true},
        "inputSchema":{"properties":{"q":{"type":"string"}},"type":"object"},
        "description":"Search issues. Returns at most 100 results.","name":"search"}]}"#;
    std::fs::write(dir.path().join("b.json"), reordered).unwrap();
    drift(dir.path(), &["lock", "a.json", "--output", "a.lock"]);
    drift(dir.path(), &["lock", "b.json", "--output", "b.lock"]);
    let hash = |f: &str| {
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join(f)).unwrap()).unwrap();
        v["tools"]["search"]["sha256"].as_str().unwrap().to_owned()
    };
    assert_eq!(hash("a.lock"), hash("b.lock"));
}

#[test]
fn missing_and_corrupt_locks_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tools.json"), TOOLS).unwrap();
    let (code, _, err) = drift(dir.path(), &["verify", "tools.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("mcp-drift lock"), "{err}");
    std::fs::write(dir.path().join("mcp-tools.lock"), "{\"version\": 1, \"tools\": {").unwrap();
    let (code, _, err) = drift(dir.path(), &["verify", "tools.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("corrupt lock") && err.contains("mcp-tools.lock:1:"), "{err}");
    drift(dir.path(), &["lock", "tools.json"]);
    let tampered = std::fs::read_to_string(dir.path().join("mcp-tools.lock")).unwrap().replace("most 100", "most 10");
    std::fs::write(dir.path().join("mcp-tools.lock"), tampered).unwrap();
    let (code, _, err) = drift(dir.path(), &["verify", "tools.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("does not match its recorded contract"), "{err}");
}

#[test]
fn a_failed_write_leaves_the_old_file_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp-tools.lock");
    std::fs::write(&path, "previous").unwrap();
    // The rename onto a directory fails after the temporary file was written: the target stays as it
    // was and no temporary file is left behind.
    let blocked = dir.path().join("blocked");
    std::fs::create_dir(&blocked).unwrap();
    std::fs::write(blocked.join("x"), "keep").unwrap();
    assert!(mcp_drift::policy::write_atomically(&blocked, "new").is_err());
    assert_eq!(std::fs::read_to_string(blocked.join("x")).unwrap(), "keep");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "previous");
    mcp_drift::policy::write_atomically(&path, "next").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "next");
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn a_killed_lock_leaves_the_old_lock_or_the_whole_new_one() {
    // `lock` of a 4,000-tool snapshot over an existing lock, killed (SIGKILL) at ten points of its run:
    // afterwards the lock is byte for byte the old one or the complete new one, never a mix or a prefix.
    let dir = tempfile::tempdir().unwrap();
    let snapshot = |words: &str| {
        let tools: Vec<serde_json::Value> = (0..4_000)
            .map(|i| {
                serde_json::json!({"name": format!("tool_{i}"), "description": format!("{words} {i}."),
                    "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "Query text."}}}})
            })
            .collect();
        serde_json::json!({ "tools": tools }).to_string()
    };
    std::fs::write(dir.path().join("old.json"), snapshot("Old tool")).unwrap();
    std::fs::write(dir.path().join("new.json"), snapshot("New tool")).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("mcp-drift");
    let lock = |snapshot: &str, output: &str| {
        let status = std::process::Command::new(&bin)
            .current_dir(dir.path())
            .args(["lock", snapshot, "--output", output])
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
        std::fs::read(dir.path().join(output)).unwrap()
    };
    let new_lock = lock("new.json", "new.lock");
    let started = std::time::Instant::now();
    let old_lock = lock("old.json", "mcp-tools.lock");
    let run = started.elapsed();
    for k in 1..=10 {
        let mut child = std::process::Command::new(&bin)
            .current_dir(dir.path())
            .args(["lock", "new.json"])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(run * k / 10);
        let _ = child.kill();
        child.wait().unwrap();
        let now = std::fs::read(dir.path().join("mcp-tools.lock")).unwrap();
        assert!(now == old_lock || now == new_lock, "kill at {k}/10 of the run left {} bytes", now.len());
        std::fs::write(dir.path().join("mcp-tools.lock"), &old_lock).unwrap();
    }
}

/// Findings about locked contracts point into the lock file itself: its repository path (in a git
/// work tree, from any subdirectory) and the line of the contract there, in SARIF and GitHub output.
#[test]
fn verify_locates_locked_contracts_in_the_lock_file() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("d");
    std::fs::create_dir_all(&sub).unwrap();
    assert!(std::process::Command::new("git").args(["init", "-q"]).current_dir(dir.path()).status().unwrap().success());
    let two = TOOLS.replace("]}", r#", {"name": "zap", "inputSchema": {"type": "object"}}]}"#);
    std::fs::write(sub.join("tools.json"), &two).unwrap();
    assert_eq!(drift(&sub, &["lock", "tools.json"]).0, 0);
    std::fs::write(sub.join("tools.json"), TOOLS).unwrap();
    let lock = std::fs::read_to_string(sub.join("mcp-tools.lock")).unwrap();
    let line = lock.lines().position(|l| l.trim_start().starts_with("\"zap\"")).unwrap() + 1;
    let (code, out, err) = drift(&sub, &["verify", "tools.json", "--format", "sarif"]);
    assert_eq!(code, 1, "{err}");
    let sarif: serde_json::Value = serde_json::from_str(&out).unwrap();
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "tool-removed", "{out}");
    let place = &result["locations"][0]["physicalLocation"];
    assert_eq!(place["artifactLocation"]["uri"], "d/mcp-tools.lock", "{out}");
    let at = usize::try_from(place["region"]["startLine"].as_u64().unwrap()).unwrap();
    assert!(at > line && at < line + 8, "line {at}: the contract of `zap` starts after line {line}\n{lock}");
    let (_, github, _) = drift(&sub, &["verify", "tools.json", "--format", "github"]);
    assert!(github.contains("file=d/mcp-tools.lock,line="), "{github}");
}

/// A tool without a usable contract cannot be pinned: `lock` refuses it at its position instead of
/// writing a lock that the next `verify` of the same file fails.
#[test]
fn lock_refuses_tools_without_a_contract() {
    let dir = tempfile::tempdir().unwrap();
    let bad = TOOLS.replace("]}", r#", {"name": "b", "inputSchema": null}]}"#);
    std::fs::write(dir.path().join("tools.json"), bad).unwrap();
    let (code, _, err) = drift(dir.path(), &["lock", "tools.json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("tools.json:1:") && err.contains("tool `b` cannot be locked: `inputSchema` is null"), "{err}");
    assert!(!dir.path().join("mcp-tools.lock").exists());
}

/// A lock in another layout than `lock` writes (minified, keys reordered, a float spelled `2.0`, written
/// by an older version or by hand) verifies the same; a contract edited without its hash is corrupt
/// in that layout too; a lock with a member `lock` never writes is refused by name.
#[test]
fn a_lock_in_another_layout_verifies_and_an_edited_one_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let tools = TOOLS.replace(r#""type": "string"}"#, r#""type": "string", "maxLength": 2.0}"#);
    std::fs::write(dir.path().join("tools.json"), &tools).unwrap();
    assert_eq!(drift(dir.path(), &["lock", "tools.json"]).0, 0);
    let text = std::fs::read_to_string(dir.path().join("mcp-tools.lock")).unwrap();
    assert!(text.contains("\"maxLength\": 2,"), "the lock holds the canonical form: {text}");
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["tools"]["search"]["contract"]["inputSchema"]["properties"]["q"]["maxLength"] = serde_json::json!(2.0);
    let other = format!("{{\"tools\":{},\"version\":1}}", serde_json::to_string(&v["tools"]).unwrap());
    assert!(other.contains("2.0"), "{other}");
    std::fs::write(dir.path().join("mcp-tools.lock"), &other).unwrap();
    assert_eq!(
        drift(dir.path(), &["verify", "tools.json"]),
        (0, "1 tool matches mcp-tools.lock\n".to_owned(), String::new())
    );
    std::fs::write(dir.path().join("mcp-tools.lock"), other.replace("most 100", "most 10")).unwrap();
    let (code, _, err) = drift(dir.path(), &["verify", "tools.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("the hash of `search` does not match its recorded contract"), "{err}");
    std::fs::write(dir.path().join("mcp-tools.lock"), other.replace("\"version\":1", "\"version\":1,\"extra\":0"))
        .unwrap();
    let (code, _, err) = drift(dir.path(), &["verify", "tools.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("corrupt lock") && err.contains("unknown field `extra`"), "{err}");
}
