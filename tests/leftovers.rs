//! Issue #33: nothing left behind. SIGINT or SIGTERM during a real `lock` writing a large file removes
//! the temporary file; written files take the user's umask (0644 under 022), not 0600.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-drift");

/// A snapshot whose lock takes a while to write (tens of MB).
fn large_snapshot(dir: &Path) {
    let description = "d".repeat(2000);
    let tools: Vec<String> = (0..20_000)
        .map(|i| format!(r#"{{"name": "t{i}", "description": "{description}", "inputSchema": {{"type": "object"}}}}"#))
        .collect();
    std::fs::write(dir.join("tools.json"), format!("{{\"tools\": [{}]}}", tools.join(",\n"))).unwrap();
}

/// Names in `dir` other than the snapshot.
fn others(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "tools.json")
        .collect()
}

fn interrupted_lock_leaves_nothing(signal: &str) {
    let d = tempfile::tempdir().unwrap();
    large_snapshot(d.path());
    let mut child = std::process::Command::new(BIN)
        .current_dir(d.path())
        .args(["lock", "tools.json", "--output", "out.lock"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Sent once the temporary file exists beside the target.
    let started = Instant::now();
    while !others(d.path()).iter().any(|n| n.starts_with(".tmp")) {
        assert!(started.elapsed() < Duration::from_mins(1), "no temporary file appeared: {:?}", others(d.path()));
        assert!(child.try_wait().unwrap().is_none(), "lock finished before it could be interrupted");
        std::thread::sleep(Duration::from_millis(2));
    }
    let sent = std::process::Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    assert!(!status.success(), "{status:?}");
    assert_eq!(others(d.path()), Vec::<String>::new(), "left behind");
}

#[test]
fn sigterm_during_lock_removes_the_temporary_file() {
    interrupted_lock_leaves_nothing("-TERM");
}

#[test]
fn sigint_during_lock_removes_the_temporary_file() {
    interrupted_lock_leaves_nothing("-INT");
}

#[test]
fn written_files_take_the_umask() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("tools.json"), r#"{"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}"#)
        .unwrap();
    let script = format!(
        "umask 022 && '{BIN}' lock tools.json && '{BIN}' diff tools.json tools.json --output report.txt \
         && '{BIN}' baseline write tools.json tools.json --output base.json"
    );
    let out = std::process::Command::new("sh").current_dir(d.path()).args(["-c", &script]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for name in ["mcp-tools.lock", "report.txt", "base.json"] {
        let mode = std::fs::metadata(d.path().join(name)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "{name}: {mode:o}");
    }
}
