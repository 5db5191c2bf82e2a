//! Issue #33: nothing left behind. SIGINT, SIGTERM, SIGHUP or SIGQUIT during a real `lock` or
//! `capture -o` writing a large file removes the temporary file; written files take the user's umask
//! (0644 under 022), not 0600, and a file replaced keeps its mode.
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
    interrupted_write_leaves_nothing(d.path(), &["lock", "tools.json", "--output", "out.lock"], signal);
}

/// `capture -o` of a server's 30 MB listing: `capture` has a signal handler of its own (it stops the
/// server's process group), which must remove the temporary file too, whichever handler runs first.
fn interrupted_capture_leaves_nothing(signal: &str) {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("tools.json"), "").unwrap();
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/fake_server.py");
    let server = server.to_str().unwrap();
    interrupted_write_leaves_nothing(
        d.path(),
        &["capture", "--quiet", "-o", "out.json", "--", "python3", server, "many", "10000"],
        signal,
    );
}

/// Runs mcp-drift with `args` in `dir`, sends `signal` once a temporary file exists beside the target,
/// and checks that the run failed and left nothing but `tools.json`.
fn interrupted_write_leaves_nothing(dir: &Path, args: &[&str], signal: &str) {
    let d = dir;
    let mut child = std::process::Command::new(BIN)
        .current_dir(d)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Sent once the temporary file exists beside the target.
    let started = Instant::now();
    while !others(d).iter().any(|n| n.starts_with(".tmp") || n.starts_with(".mcp-drift-capture-")) {
        assert!(started.elapsed() < Duration::from_mins(1), "no temporary file appeared: {:?}", others(d));
        assert!(child.try_wait().unwrap().is_none(), "{args:?} finished before it could be interrupted");
        std::thread::sleep(Duration::from_millis(2));
    }
    let sent = std::process::Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    assert!(!status.success(), "{status:?}");
    assert_eq!(others(d), Vec::<String>::new(), "left behind");
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
fn sighup_and_sigquit_during_lock_remove_the_temporary_file() {
    interrupted_lock_leaves_nothing("-HUP");
    interrupted_lock_leaves_nothing("-QUIT");
}

/// `capture --per-tool` of 9,000 tools, a signal while the files are written: the staging directory
/// goes with every file in it (a file written during the removal left it behind, with part of its
/// files: attack B6 of the second #33 pass, in most runs).
#[test]
fn a_signal_during_capture_per_tool_removes_the_staging_directory() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/fake_server.py");
    let server = server.to_str().unwrap();
    for signal in ["-TERM", "-INT", "-HUP", "-QUIT", "-TERM", "-INT"] {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("tools.json"), "").unwrap();
        interrupted_write_leaves_nothing(
            d.path(),
            &["capture", "--quiet", "--per-tool", "pt", "--", "python3", server, "many", "9000"],
            signal,
        );
    }
}

#[test]
fn a_signal_during_capture_output_removes_the_temporary_file() {
    for signal in ["-TERM", "-INT", "-HUP"] {
        interrupted_capture_leaves_nothing(signal);
    }
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

/// A file replaced keeps its permission bits: a lock the operator made 0600 is not widened to 0644.
#[test]
fn a_replaced_file_keeps_its_mode() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("tools.json"), r#"{"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}"#)
        .unwrap();
    std::fs::write(d.path().join("mcp-tools.lock"), "old").unwrap();
    std::fs::set_permissions(d.path().join("mcp-tools.lock"), std::fs::Permissions::from_mode(0o600)).unwrap();
    let script = format!("umask 022 && '{BIN}' lock tools.json");
    let out = std::process::Command::new("sh").current_dir(d.path()).args(["-c", &script]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lock = d.path().join("mcp-tools.lock");
    assert_ne!(std::fs::read_to_string(&lock).unwrap(), "old");
    assert_eq!(std::fs::metadata(&lock).unwrap().permissions().mode() & 0o777, 0o600);
}

/// `capture --per-tool` over an earlier capture keeps the directory's mode and each replaced file's.
#[test]
fn a_replaced_per_tool_directory_keeps_its_modes() {
    let d = tempfile::tempdir().unwrap();
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/fake_server.py");
    let run = || {
        let script =
            format!("umask 022 && '{BIN}' capture --quiet --per-tool pt -- python3 '{}' pages", server.display());
        let out = std::process::Command::new("sh").current_dir(d.path()).args(["-c", &script]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    run();
    let pt = d.path().join("pt");
    std::fs::set_permissions(pt.join("alpha.snap"), std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::set_permissions(&pt, std::fs::Permissions::from_mode(0o700)).unwrap();
    run();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&pt), 0o700);
    assert_eq!(mode(&pt.join("alpha.snap")), 0o600);
    assert_eq!(mode(&pt.join("beta.snap")), 0o644);
}
