//! Issue #33: `--max-total-bytes` bounds what one side reads in all, not only per file: a directory
//! of many hard links to one snapshot, or a git tree of many entries of one blob, is refused before
//! it is read whole, and every path counts.

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

fn sh(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git").current_dir(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A tools/list of about 40 KB.
fn big_snapshot() -> String {
    let tools: Vec<String> = (0..400)
        .map(|i| {
            format!(r#"{{"name": "t{i}", "description": "{}", "inputSchema": {{"type": "object"}}}}"#, "x".repeat(60))
        })
        .collect();
    format!("{{\"tools\": [{}]}}", tools.join(",\n"))
}

#[test]
fn hard_links_to_one_snapshot_count_against_the_total() {
    let d = tempfile::tempdir().unwrap();
    let snaps = d.path().join("snaps");
    std::fs::create_dir_all(&snaps).unwrap();
    let text = big_snapshot();
    std::fs::write(snaps.join("s00.json"), &text).unwrap();
    for i in 1..40 {
        std::fs::hard_link(snaps.join("s00.json"), snaps.join(format!("s{i:02}.json"))).unwrap();
    }
    let size = text.len();
    // Each file is under the per-file cap; 40 of them are over the total.
    let total = (size * 10).to_string();
    let (code, out, err) = drift(d.path(), &["lint", "snaps", "--max-total-bytes", &total]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("--max-total-bytes limit") && err.contains("snaps"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // Under the total, read as before.
    let (code, _, err) = drift(d.path(), &["lint", "snaps", "--max-total-bytes", &(size * 40).to_string()]);
    assert_ne!(code, 2, "{err}");
}

#[test]
fn a_git_tree_of_many_entries_of_one_blob_is_refused_from_its_listing() {
    let r = tempfile::tempdir().unwrap();
    let p = r.path();
    sh(p, &["init", "-q", "-b", "main"]);
    sh(p, &["config", "user.email", "ci@example.com"]);
    sh(p, &["config", "user.name", "CI"]);
    std::fs::create_dir_all(p.join("snaps")).unwrap();
    let text = big_snapshot();
    for i in 0..40 {
        std::fs::write(p.join(format!("snaps/s{i:02}.json")), &text).unwrap();
    }
    sh(p, &["add", "."]);
    sh(p, &["commit", "-qm", "v1"]);
    let total = (text.len() * 10).to_string();
    let (code, out, err) = drift(p, &["diff", "HEAD:snaps", "snaps", "--max-total-bytes", &total]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("HEAD:snaps") && err.contains("--max-total-bytes limit"), "{err}");
    // Within the total, the shared blob reads as every entry's file.
    let (code, out, err) = drift(p, &["diff", "HEAD:snaps", "snaps", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// The default total is what one file may hold (256 MiB), not four times it: 39 tree entries of one
/// 27 MB blob (1 GiB in all, under the old default) drove `diff` past 16 GB (attack 7.3 of the #33
/// pass). Sparse files make the size without writing it: the total is refused from the sizes alone.
#[test]
fn the_default_total_is_one_files_worth() {
    let d = tempfile::tempdir().unwrap();
    let snaps = d.path().join("snaps");
    std::fs::create_dir_all(&snaps).unwrap();
    let one = std::fs::File::create(snaps.join("s00.json")).unwrap();
    one.set_len(100 << 20).unwrap();
    drop(one);
    for i in 1..3 {
        std::fs::hard_link(snaps.join("s00.json"), snaps.join(format!("s{i:02}.json"))).unwrap();
    }
    // 300 MiB in all, each file under the per-file default.
    let (code, out, err) = drift(d.path(), &["lint", "snaps"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("--max-total-bytes limit of 268435456 bytes"), "{err}");
}

/// A working-tree side over the total is refused from its files' sizes before any file is read:
/// with 1 GiB allowed per file and 1.5 GiB in all, two sparse files of 1 GiB under a 512 MiB address
/// space limit are refused with the total's message (read first, the first file alone would not fit
/// in memory: attack 7.1 of the #33 pass read most of the total before refusing it).
#[cfg(target_os = "linux")]
#[test]
fn a_side_over_the_total_is_refused_before_it_is_read() {
    let d = tempfile::tempdir().unwrap();
    let snaps = d.path().join("snaps");
    std::fs::create_dir_all(&snaps).unwrap();
    for name in ["a.json", "b.json"] {
        let f = std::fs::File::create(snaps.join(name)).unwrap();
        f.set_len(1 << 30).unwrap();
    }
    let bin = assert_cmd::cargo::cargo_bin("mcp-drift");
    let script = format!(
        "ulimit -v 524288 && exec '{}' lint snaps --max-input-bytes 1073741824 --max-total-bytes 1610612736",
        bin.display()
    );
    let out = std::process::Command::new("sh").current_dir(d.path()).args(["-c", &script]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("over the --max-total-bytes limit of 1610612736 bytes"), "{err}");
}

/// A side of more tools than `--max-tools` (100,000 by default) is refused before it is judged: a
/// million minimal tools fit in 36 MB and drove `lint` to 5.65 GB and 830 MB of output (attack B3
/// of the second #33 pass).
#[test]
fn a_side_of_too_many_tools_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let tools: Vec<String> = (0..2000).map(|i| format!(r#"{{"name":"t{i}","inputSchema":{{}}}}"#)).collect();
    std::fs::write(d.path().join("many.json"), format!("{{\"tools\":[{}]}}", tools.join(","))).unwrap();
    let (code, out, err) = drift(d.path(), &["lint", "many.json", "--max-tools", "1000"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("more than 1000 tools (--max-tools)"), "{err}");
    let (code, _, err) = drift(d.path(), &["diff", "many.json", "many.json", "--max-tools", "1999"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(drift(d.path(), &["diff", "many.json", "many.json", "--max-tools", "2000"]).0, 0);
    // A directory of per-tool files counts its files' tools together.
    std::fs::create_dir_all(d.path().join("snaps")).unwrap();
    for i in 0..3 {
        std::fs::write(d.path().join(format!("snaps/t{i}.snap")), format!(r#"{{"name":"t{i}","inputSchema":{{}}}}"#))
            .unwrap();
    }
    let (code, _, err) = drift(d.path(), &["lint", "snaps", "--max-tools", "2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("more than 2 tools (--max-tools)"), "{err}");
    assert_ne!(drift(d.path(), &["lint", "snaps", "--max-tools", "3"]).0, 2);
    // The default: a file of 100,001 tools is refused.
    let tools: Vec<String> = (0..100_001).map(|i| format!(r#"{{"name":"t{i}","inputSchema":{{}}}}"#)).collect();
    std::fs::write(d.path().join("more.json"), format!("{{\"tools\":[{}]}}", tools.join(","))).unwrap();
    let (code, _, err) = drift(d.path(), &["lint", "more.json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("more than 100000 tools"), "{err}");
}
