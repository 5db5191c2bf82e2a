//! The GitHub Action's shell step, run as the runner would run it (bash, with the inputs as
//! environment variables), against the binary under test.

use std::path::Path;
use std::process::Command;

/// `action.yml`, parsed as the runner parses it: a file GitHub cannot read fails every user's job.
fn action() -> yaml_rust2::Yaml {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml")).unwrap();
    let mut docs = yaml_rust2::YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("action.yml: {e}"));
    assert_eq!(docs.len(), 1, "action.yml is one document");
    docs.remove(0)
}

/// The `run` script of the step with `id: run` in `action.yml`, as the runner reads it.
fn script() -> String {
    let action = action();
    let steps = action["runs"]["steps"].as_vec().expect("runs.steps");
    let step = steps.iter().find(|s| s["id"].as_str() == Some("run")).expect("step `run`");
    step["run"].as_str().expect("a run script").to_owned()
}

/// Every input has a string description and a string default (GitHub reads both as text).
#[test]
fn action_yml_parses_and_every_input_is_described() {
    let action = action();
    let inputs = action["inputs"].as_hash().expect("inputs");
    assert!(inputs.len() >= 8, "{inputs:?}");
    for (name, input) in inputs {
        let name = name.as_str().expect("an input name");
        assert!(input["description"].as_str().is_some_and(|d| !d.is_empty()), "{name}: description");
        if !input["default"].is_badvalue() {
            assert!(input["default"].as_str().is_some(), "{name}: default is a string");
        }
    }
}

fn run_action(env: &[(&str, &str)]) -> (i32, String, String) {
    run_action_in(Path::new(env!("CARGO_MANIFEST_DIR")), env)
}

/// [`run_action`] with `cwd` as the workspace.
fn run_action_in(cwd: &Path, env: &[(&str, &str)]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    let sarif = dir.path().join("out.sarif");
    let mut cmd = Command::new("bash");
    cmd.arg("-e").arg("-c").arg(script()).current_dir(cwd);
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
    if !env.iter().any(|(k, _)| *k == "SARIF") {
        let sarif: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
        assert_eq!(sarif["version"], "2.1.0", "the SARIF file is written whole");
    }
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

const BREAK: [(&str, &str); 2] =
    [("OLD", "corpus/seed-deploy-preview-region/old.json"), ("NEW", "corpus/seed-deploy-preview-region/new.json")];

/// The stop-commands blocks of a log: (token, the lines inside), and the lines outside any block.
fn blocks(log: &str) -> (Vec<(String, Vec<String>)>, Vec<String>) {
    let (mut inside, mut outside) = (Vec::new(), Vec::new());
    let mut open: Option<(String, Vec<String>)> = None;
    for line in log.lines() {
        match &mut open {
            Some((token, lines)) if line == format!("::{token}::") => {
                inside.push((token.clone(), std::mem::take(lines)));
                open = None;
            }
            Some((_, lines)) => lines.push(line.to_owned()),
            None => match line.strip_prefix("::stop-commands::") {
                Some(token) => open = Some((token.to_owned(), Vec::new())),
                None => outside.push(line.to_owned()),
            },
        }
    }
    assert!(open.is_none(), "a block is left open: {log}");
    (inside, outside)
}

#[test]
fn action_prints_reports_inside_a_stop_commands_block_with_a_random_token() {
    let mut tokens = Vec::new();
    for format in ["human", "json", "markdown", "junit", "sarif"] {
        let mut env = BREAK.to_vec();
        env.push(("FORMAT", format));
        let (code, log, _) = run_action(&env);
        assert_eq!(code, 1, "{format}: {log}");
        let (inside, outside) = blocks(&log);
        assert!(outside.is_empty(), "{format}: printed outside the block: {outside:?}");
        assert_eq!(inside.len(), 1, "{format}: {log}");
        let (token, lines) = &inside[0];
        assert!(token.len() == 32 && token.bytes().all(|b| b.is_ascii_hexdigit()), "{format}: token `{token}`");
        assert!(lines.join("\n").contains("input-required-added"), "{format}: {log}");
        assert!(!lines.iter().any(|l| l.contains(token.as_str())), "{format}: the token is in the report");
        tokens.push(token.clone());
    }
    tokens.sort();
    tokens.dedup();
    assert_eq!(tokens.len(), 5, "a fresh token per run: {tokens:?}");
}

#[test]
fn action_github_annotations_stay_outside_the_block_and_errors_go_inside() {
    let (code, log, _) = run_action(&BREAK);
    assert_eq!(code, 1, "{log}");
    let (inside, outside) = blocks(&log);
    assert!(inside.is_empty(), "{log}");
    assert!(outside.iter().any(|l| l.starts_with("::error file=")), "{log}");
    // An error message (which quotes a path the pull request chose) is inside a block.
    let (code, log, _) = run_action(&[("OLD", "::warning::no-such.json"), ("NEW", "also-missing.json"), ("SARIF", "")]);
    assert_eq!(code, 2, "{log}");
    let (inside, outside) = blocks(&log);
    assert!(outside.is_empty(), "{outside:?}");
    assert_eq!(inside.len(), 1, "{log}");
    assert_eq!(inside[0].1.iter().filter(|l| l.contains("no-such.json")).count(), 1, "{log}");
}

/// The steps of `action.yml` as (name, the step's text).
fn steps() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml")).unwrap();
    let steps = &text[text.find("\n  steps:\n").expect("steps")..];
    steps
        .split("\n    - ")
        .skip(1)
        .map(|s| {
            let name = s.lines().next().unwrap_or_default().trim_start_matches("name:").trim().to_owned();
            (name, s.to_owned())
        })
        .collect()
}

#[test]
fn action_installs_from_its_own_directory_with_an_explicit_toolchain() {
    let steps = steps();
    let (_, install) = steps.iter().find(|(n, _)| n == "Build mcp-drift").expect("build step");
    let env = &install[install.find("\n      env:\n").expect("the install step has env")..];
    assert!(env.lines().any(|l| l.trim() == "RUSTUP_TOOLCHAIN: stable"), "{install}");
    let run = &install[install.find("run: |\n").expect("run block")..];
    let lines: Vec<&str> = run.lines().skip(1).map(str::trim).collect();
    assert_eq!(lines.first(), Some(&"cd \"$GITHUB_ACTION_PATH\""), "{run}");
    assert!(lines.iter().any(|l| l.starts_with("cargo install --locked --path . ")), "{run}");
    // No `${{ }}` expression is pasted into a script: inputs reach the shell as environment variables.
    for (name, step) in &steps {
        if let Some(at) = step.find("run: |") {
            assert!(!step[at..].contains("${{"), "step `{name}` interpolates into its script");
        }
    }
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git").current_dir(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// `git init` in `p` with a branch `main` and a committer, unsigned.
fn init_repo(p: &Path) {
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.email", "ci@example.com"],
        &["config", "user.name", "CI"],
        &["config", "commit.gpgsign", "false"],
    ] {
        git(p, args);
    }
}

/// A repository whose main branch locks the seed's old snapshot; the pull request changes the
/// snapshot, rewrites the lock with `verify --update` and commits `[[ignore]] tool = "*"`.
fn hostile_pull_request() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let p = dir.path();
    init_repo(p);
    std::fs::copy(root.join("corpus/seed-deploy-preview-region/old.json"), p.join("tools.json")).unwrap();
    let bin = env!("CARGO_BIN_EXE_mcp-drift");
    assert!(Command::new(bin).current_dir(p).args(["lock", "tools.json"]).status().unwrap().success());
    git(p, &["add", "."]);
    git(p, &["commit", "-qm", "v1"]);
    std::fs::copy(root.join("corpus/seed-deploy-preview-region/new.json"), p.join("tools.json")).unwrap();
    std::fs::write(p.join("mcp-drift.toml"), "[[ignore]]\ntool = \"*\"\nreason = \"trust me\"\n").unwrap();
    assert!(Command::new(bin).current_dir(p).args(["verify", "tools.json", "--update"]).status().unwrap().success());
    dir
}

#[test]
fn action_verify_runs_verify_against_the_base_lock() {
    let r = hostile_pull_request();
    // Without a base, the pull request's own lock and configuration pass it.
    let (code, log, _) = run_action_in(r.path(), &[("COMMAND", "verify"), ("NEW", "tools.json")]);
    assert_eq!(code, 0, "{log}");
    let (code, log, summary) =
        run_action_in(r.path(), &[("COMMAND", "verify"), ("NEW", "tools.json"), ("BASE", "main")]);
    assert_eq!(code, 1, "{log}");
    assert!(summary.contains("input-required-added"), "{summary}");
    // Verify, not diff: the report names the lock.
    assert!(summary.contains("mcp-tools.lock"), "{summary}");
}

#[test]
fn action_lint_with_a_base_reads_the_base_policy() {
    let r = hostile_pull_request();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/lint/input-not-object/snapshot.json"),
        r.path().join("tools.json"),
    )
    .unwrap();
    let (code, log, _) = run_action_in(r.path(), &[("COMMAND", "lint"), ("NEW", "tools.json")]);
    assert_eq!(code, 0, "{log}");
    let (code, log, summary) = run_action_in(r.path(), &[("COMMAND", "lint"), ("NEW", "tools.json"), ("BASE", "main")]);
    assert_eq!(code, 1, "{log}");
    assert!(summary.contains("lint-input-not-object"), "{summary}");
}

#[test]
fn action_refuses_an_unknown_command() {
    let mut env = BREAK.to_vec();
    env.push(("COMMAND", "difff"));
    env.push(("SARIF", ""));
    let (code, log, summary) = run_action(&env);
    assert_eq!(code, 2, "{log}");
    assert!(summary.is_empty(), "{summary}");
}

/// With a base, a `config` input cannot hand the pull request's own file to the gate: the default path
/// spelled out still reads the base's configuration, and any other path is refused (attack 5.4 of the
/// #33 pass: `config: mcp-drift.toml` beside `base` used the pull request's ignore-all file).
#[test]
fn action_with_a_base_reads_the_base_configuration_whatever_config_says() {
    let r = hostile_pull_request();
    for config in ["mcp-drift.toml", "./mcp-drift.toml"] {
        let (code, log, summary) = run_action_in(
            r.path(),
            &[("COMMAND", "verify"), ("NEW", "tools.json"), ("BASE", "main"), ("CONFIG", config)],
        );
        assert_eq!(code, 1, "{config}: {log}");
        assert!(summary.contains("input-required-added"), "{config}: {summary}");
    }
    std::fs::copy(r.path().join("mcp-drift.toml"), r.path().join("relaxed.toml")).unwrap();
    let (code, log, _) = run_action_in(
        r.path(),
        &[("COMMAND", "verify"), ("NEW", "tools.json"), ("BASE", "main"), ("CONFIG", "relaxed.toml"), ("SARIF", "")],
    );
    assert_eq!(code, 2, "refused before anything runs: {log}");
}

/// With a base, the `lock` input is a path read as committed at the base: the default spelled out
/// with `./` still reads the base's lock, and a working-tree or other-revision spelling is refused
/// (attack B1 of the second #33 pass: `lock: ./mcp-tools.lock` used the pull request's own lock).
#[test]
fn action_with_a_base_reads_the_base_lock_whatever_lock_says() {
    let r = hostile_pull_request();
    std::fs::remove_file(r.path().join("mcp-drift.toml")).unwrap();
    for lock in ["mcp-tools.lock", "./mcp-tools.lock"] {
        let (code, log, summary) =
            run_action_in(r.path(), &[("COMMAND", "verify"), ("NEW", "tools.json"), ("BASE", "main"), ("LOCK", lock)]);
        assert_eq!(code, 1, "{lock}: {log}");
        assert!(summary.contains("input-required-added"), "{lock}: {summary}");
    }
    let abs = r.path().join("mcp-tools.lock");
    for lock in ["HEAD:mcp-tools.lock", abs.to_str().unwrap(), "../x.lock", "a/../../x.lock"] {
        let (code, log, _) = run_action_in(
            r.path(),
            &[("COMMAND", "verify"), ("NEW", "tools.json"), ("BASE", "main"), ("LOCK", lock), ("SARIF", "")],
        );
        assert_eq!(code, 2, "{lock}: refused before anything runs: {log}");
    }
}

/// An empty `fail-on` input leaves the threshold to the configuration, the base's with a base: a
/// base that says `fail-on = "never"` is obeyed (the input's old default `error` overrode it).
#[test]
fn action_fail_on_defaults_to_the_base_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let (root, p) = (Path::new(env!("CARGO_MANIFEST_DIR")), dir.path());
    init_repo(p);
    std::fs::copy(root.join("corpus/seed-deploy-preview-region/old.json"), p.join("tools.json")).unwrap();
    std::fs::write(p.join("mcp-drift.toml"), "fail-on = \"never\"\n").unwrap();
    git(p, &["add", "."]);
    git(p, &["commit", "-qm", "v1"]);
    std::fs::copy(root.join("corpus/seed-deploy-preview-region/new.json"), p.join("tools.json")).unwrap();
    std::fs::write(p.join("mcp-drift.toml"), "").unwrap();
    let env = |fail_on| vec![("NEW", "tools.json"), ("BASE", "main"), ("FAIL_ON", fail_on)];
    assert_eq!(run_action_in(p, &env("")).0, 0);
    assert_eq!(run_action_in(p, &env("error")).0, 1);
}
