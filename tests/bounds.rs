//! Inputs are bounded: only regular files and directories are read, each file (and standard input,
//! and every git blob) up to `--max-input-bytes`, configuration and baseline files up to 16 MiB. A
//! snapshot, configuration, baseline or lock that is `/dev/zero`, a FIFO without a writer or a 2 GiB
//! sparse file is exit 2 with one clear line, decided from metadata (timings: see docs/performance.md). The
//! timeout is only a safety net: before this, such inputs blocked or read without end.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const V1: &str = r#"{"tools": [{"name": "deploy", "inputSchema": {"type": "object"}}]}"#;

fn drift(dir: &Path, args: &[&str], stdin: Option<std::process::Stdio>) -> (i32, String, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-drift"));
    cmd.current_dir(dir).args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(stdin.unwrap_or_else(Stdio::null));
    let mut child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} did not finish in 20 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A directory with `tools.json`, a FIFO `pipe.json` and a 2 GiB sparse `sparse.json`.
fn hostile_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tools.json"), V1).unwrap();
    let status = std::process::Command::new("mkfifo").arg(dir.path().join("pipe.json")).status().unwrap();
    assert!(status.success(), "mkfifo");
    let sparse = std::fs::File::create(dir.path().join("sparse.json")).unwrap();
    sparse.set_len(2 << 30).unwrap();
    dir
}

fn assert_refused(dir: &Path, args: &[&str], want: &str) {
    let (code, out, err) = drift(dir, args, None);
    assert_eq!(code, 2, "{args:?}: {out}{err}");
    assert!(err.contains(want), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
}

const FIFO: &str = "is a FIFO (named pipe); mcp-drift reads only regular files and directories";
const DEVICE: &str = "is a character device; mcp-drift reads only regular files and directories";
const BIG: &str = "is 2147483648 bytes, over the --max-input-bytes limit of 268435456 bytes";
const BIG_SETTINGS: &str = "is 2147483648 bytes, over the configuration file limit of 16777216 bytes";

#[test]
fn snapshots_that_are_devices_fifos_or_huge_are_refused() {
    let d = hostile_dir();
    for cmd in [&["diff"][..], &["lint"], &["baseline", "write"], &["baseline", "lint"], &["lock"], &["verify"]] {
        let two = cmd[0] == "diff" || cmd.get(1) == Some(&"write");
        for (file, want) in [("/dev/zero", DEVICE), ("pipe.json", FIFO), ("sparse.json", BIG)] {
            let mut args = cmd.to_vec();
            args.push(file);
            if two {
                args.push("tools.json");
            }
            if cmd[0] == "verify" {
                // A lock to compare with.
                assert_eq!(drift(d.path(), &["lock", "tools.json"], None).0, 0);
            }
            assert_refused(d.path(), &args, want);
        }
    }
    // New side too, and the second snapshot of lint.
    assert_refused(d.path(), &["diff", "tools.json", "/dev/zero"], DEVICE);
    assert_refused(d.path(), &["lint", "tools.json", "pipe.json"], FIFO);
}

#[test]
fn max_input_bytes_caps_each_file() {
    let d = hostile_dir();
    let (code, _, err) = drift(d.path(), &["diff", "tools.json", "tools.json", "--max-input-bytes", "64MiB"], None);
    assert_eq!(code, 0, "{err}");
    let small = (V1.len() - 1).to_string();
    assert_refused(
        d.path(),
        &["diff", "tools.json", "tools.json", "--max-input-bytes", &small],
        &format!("tools.json: is {} bytes, over the --max-input-bytes limit of {small} bytes", V1.len()),
    );
    assert_refused(d.path(), &["lint", "tools.json", "--max-input-bytes", &small], "over the --max-input-bytes limit");
    assert_refused(d.path(), &["lock", "tools.json", "--max-input-bytes", &small], "over the --max-input-bytes limit");
    // A directory of snapshots: each file.
    std::fs::create_dir(d.path().join("dir")).unwrap();
    std::fs::write(d.path().join("dir/a.json"), V1).unwrap();
    assert_refused(d.path(), &["lint", "dir", "--max-input-bytes", &small], "over the --max-input-bytes limit");
    let (code, _, err) = drift(d.path(), &["lint", "tools.json", "--max-input-bytes", "lots"], None);
    assert_eq!(code, 2);
    assert!(err.contains("is not a size"), "{err}");
}

#[test]
fn standard_input_is_capped() {
    let d = hostile_dir();
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let (code, _, err) = drift(d.path(), &["diff", "-", "tools.json", "--max-input-bytes", "1MiB"], Some(zero.into()));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("<stdin>: is over the --max-input-bytes limit of 1048576 bytes"), "{err}");
    // A redirected regular file is measured before it is read.
    let sparse = std::fs::File::open(d.path().join("sparse.json")).unwrap();
    let (code, _, err) = drift(d.path(), &["lint", "-"], Some(sparse.into()));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("<stdin>: {BIG}")), "{err}");
    let ok = std::fs::File::open(d.path().join("tools.json")).unwrap();
    assert_eq!(drift(d.path(), &["diff", "-", "tools.json"], Some(ok.into())).0, 0);
}

#[test]
fn configuration_baseline_and_lock_are_bounded() {
    let d = hostile_dir();
    for (file, want) in [("/dev/zero", DEVICE), ("pipe.json", FIFO), ("sparse.json", BIG_SETTINGS)] {
        assert_refused(d.path(), &["diff", "tools.json", "tools.json", "--config", file], want);
        assert_refused(d.path(), &["diff", "tools.json", "tools.json", "--baseline", file], want);
        assert_refused(d.path(), &["lint", "tools.json", "--baseline", file], want);
        let lock_want = if file == "sparse.json" { BIG } else { want };
        assert_refused(d.path(), &["verify", "tools.json", "--lock", file], lock_want);
    }
    // The default ./mcp-drift.toml, and the baseline a configuration names.
    let status = std::process::Command::new("mkfifo").arg(d.path().join("mcp-drift.toml")).status().unwrap();
    assert!(status.success());
    assert_refused(d.path(), &["diff", "tools.json", "tools.json"], &format!("mcp-drift.toml: {FIFO}"));
    std::fs::remove_file(d.path().join("mcp-drift.toml")).unwrap();
    std::fs::write(d.path().join("mcp-drift.toml"), "baseline = \"sparse.json\"\n").unwrap();
    assert_refused(d.path(), &["diff", "tools.json", "tools.json"], BIG_SETTINGS);
}

#[test]
fn git_blobs_are_measured_before_they_are_read() {
    let d = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git").current_dir(d.path()).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["config", "user.email", "ci@example.com"]);
    git(&["config", "user.name", "CI"]);
    std::fs::create_dir(d.path().join("snaps")).unwrap();
    std::fs::write(d.path().join("tools.json"), V1).unwrap();
    std::fs::write(d.path().join("snaps/a.json"), V1).unwrap();
    let big = format!("{V1}{}", " ".repeat(4096));
    std::fs::write(d.path().join("mcp-drift.toml"), format!("fail-on = \"error\"\n{}", "#".repeat(100))).unwrap();
    git(&["add", "."]);
    git(&["-c", "commit.gpgsign=false", "commit", "-qm", "v1"]);
    std::fs::write(d.path().join("tools.json"), &big).unwrap();
    let (code, _, err) = drift(d.path(), &["diff", "--base", "main", "tools.json", "--max-input-bytes", "1KiB"], None);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("tools.json: is 4162 bytes, over the --max-input-bytes limit of 1024 bytes"), "{err}");
    let small = (V1.len() - 1).to_string();
    let (code, _, err) = drift(d.path(), &["diff", "--base", "main", "tools.json", "--max-input-bytes", &small], None);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("main:tools.json: is {} bytes, over", V1.len())), "{err}");
    let (code, _, err) = drift(d.path(), &["lint", "main:snaps", "--max-input-bytes", &small], None);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("main:snaps/a.json: is {} bytes, over", V1.len())), "{err}");
    let (code, _, err) = drift(d.path(), &["lint", "main:snaps"], None);
    assert_eq!(code, 0, "{err}");
}

/// A FIFO or device named like a snapshot inside a snapshot directory is refused, not skipped unseen.
#[test]
fn special_files_inside_snapshot_directories_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let snaps = d.path().join("snaps");
    std::fs::create_dir(&snaps).unwrap();
    std::fs::write(snaps.join("tools.json"), V1).unwrap();
    std::fs::write(d.path().join("old.json"), V1).unwrap();
    let status = std::process::Command::new("mkfifo").arg(snaps.join("pipe.json")).status().unwrap();
    assert!(status.success(), "mkfifo");
    assert_refused(d.path(), &["diff", "old.json", "snaps"], FIFO);
    std::fs::remove_file(snaps.join("pipe.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", snaps.join("zero.json")).unwrap();
    assert_refused(d.path(), &["diff", "old.json", "snaps"], DEVICE);
}
