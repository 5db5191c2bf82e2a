//! The GitHub Action's shell step, run as the runner would run it (bash, with the inputs as
//! environment variables), against the binary under test.

use std::path::Path;
use std::process::Command;

/// The `run: |` block of the step with `id: run` in `action.yml`.
fn script() -> String {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml")).unwrap();
    let step = &text[text.find("id: run").expect("step `run`")..];
    let body = &step[step.find("run: |\n").expect("run block") + 7..];
    let mut out = String::new();
    for line in body.lines().take_while(|l| l.starts_with("        ") || l.is_empty()) {
        out.push_str(line.trim_start_matches("        "));
        out.push('\n');
    }
    out
}

fn run_action(env: &[(&str, &str)]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    let sarif = dir.path().join("out.sarif");
    let mut cmd = Command::new("bash");
    cmd.arg("-e").arg("-c").arg(script()).current_dir(env!("CARGO_MANIFEST_DIR"));
    for (k, v) in [
        ("COMMAND", "diff"),
        ("PROTOCOL", ""),
        ("OLD", ""),
        ("NEW", ""),
        ("BASE", ""),
        ("FAIL_ON", "error"),
        ("FORMAT", "github"),
        ("CONFIG", ""),
    ] {
        cmd.env(k, v);
    }
    cmd.env("SARIF", &sarif).env("GITHUB_STEP_SUMMARY", &summary).env("MCP_DRIFT", env!("CARGO_BIN_EXE_mcp-drift"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let summary = std::fs::read_to_string(&summary).unwrap_or_default();
    let sarif: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0", "the SARIF file is written whole");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), summary)
}

#[test]
fn action_diff_reports_and_fails_on_a_break() {
    let (code, log, summary) = run_action(&[
        ("OLD", "corpus/seed-deploy-preview-region/old.json"),
        ("NEW", "corpus/seed-deploy-preview-region/new.json"),
    ]);
    assert_eq!(code, 1, "{log}");
    assert!(log.contains("::error file="), "{log}");
    assert!(summary.contains("input-required-added"), "{summary}");
    let (code, log, _) = run_action(&[("OLD", "corpus/identical/old.json"), ("NEW", "corpus/identical/new.json")]);
    assert_eq!(code, 0, "{log}");
}

#[test]
fn action_lint_checks_one_snapshot() {
    let (code, log, summary) = run_action(&[
        ("COMMAND", "lint"),
        ("NEW", "corpus/lint/input-not-object/snapshot.json"),
        ("PROTOCOL", "2025-11-25"),
    ]);
    assert_eq!(code, 1, "{log}");
    assert!(summary.contains("lint-input-not-object"), "{summary}");
    let (code, log, _) = run_action(&[("COMMAND", "lint"), ("NEW", "corpus/lint/clean/snapshot.json")]);
    assert_eq!(code, 0, "{log}");
}
