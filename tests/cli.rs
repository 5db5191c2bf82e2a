//! The command line as users run it: exit codes, formats, stdin, and one clear error for bad input.

use assert_cmd::Command;
use std::path::Path;

fn bin() -> Command {
    let mut c = Command::cargo_bin("mcp-drift").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR")).env_remove("NO_COLOR");
    c
}

const SEED_OLD: &str = "corpus/seed-deploy-preview-region/old.json";
const SEED_NEW: &str = "corpus/seed-deploy-preview-region/new.json";

#[test]
fn breaking_change_exits_1_and_names_the_rule() {
    let out = bin().args(["diff", SEED_OLD, SEED_NEW]).assert().code(1).get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("error[input-required-added]"), "{text}");
    assert!(text.contains("new.json:12:11") && text.contains("old.json:8:9"), "{text}");
    assert!(!text.contains('\u{1b}'), "no colour when stdout is not a terminal");
}

#[test]
fn fail_on_threshold() {
    let warn = ["corpus/annotation-risk-raised/old.json", "corpus/annotation-risk-raised/new.json"];
    bin().args(["diff", warn[0], warn[1]]).assert().code(0);
    // A prose-only change of what a value denotes is an error: the default gate fails on it.
    let prose = ["corpus/seed-limit-meaning-changed/old.json", "corpus/seed-limit-meaning-changed/new.json"];
    bin().args(["diff", prose[0], prose[1]]).assert().code(1);
    bin().args(["diff", warn[0], warn[1], "--fail-on", "warning"]).assert().code(1);
    bin().args(["diff", SEED_OLD, SEED_NEW, "--fail-on", "never"]).assert().code(0);
    let info = ["corpus/tool-added/old.json", "corpus/tool-added/new.json"];
    bin().args(["diff", info[0], info[1], "--fail-on", "warning"]).assert().code(0);
    bin().args(["diff", info[0], info[1], "--fail-on", "info"]).assert().code(1);
}

#[test]
fn identical_input_says_so_in_one_line() {
    bin().args(["diff", SEED_OLD, SEED_OLD]).assert().code(0).stdout("no contract changes across 1 tool\n");
    let many = "corpus/reordered-keys-and-tools/old.json";
    bin().args(["diff", many, many]).assert().code(0).stdout("no contract changes across 3 tools\n");
}

#[test]
fn color_always_colours() {
    let out =
        bin().args(["diff", SEED_OLD, SEED_NEW, "--color", "always"]).assert().code(1).get_output().stdout.clone();
    assert!(out.contains(&0x1b));
}

#[test]
fn json_format_is_valid_json() {
    let out = bin().args(["diff", SEED_OLD, SEED_NEW, "--format", "json"]).assert().code(1).get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["summary"]["error"], 1);
    let f = v["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "input-required-added").unwrap();
    assert_eq!(f["pointer"], "/inputSchema/properties/region");
    assert_eq!(f["new"]["line"], 12);
}

#[test]
fn output_writes_the_report_to_a_file_and_keeps_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.sarif");
    let out = path.to_str().unwrap();
    bin().args(["diff", SEED_OLD, SEED_NEW, "--format", "sarif", "--output", out]).assert().code(1).stdout("");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["ruleId"] == "input-required-added"), "{results:?}");
    // Human reports in a file carry no terminal colours; `lint` takes the option too.
    let human = dir.path().join("report.txt");
    bin()
        .args(["lint", "corpus/lint/tool-name/snapshot.json", "--output", human.to_str().unwrap()])
        .assert()
        .stdout("");
    let text = std::fs::read_to_string(&human).unwrap();
    assert!(text.contains("warning[lint-tool-name]") && !text.contains('\u{1b}'), "{text}");
    // A report that cannot be written is exit 2 with the path, and leaves nothing behind.
    let missing = dir.path().join("no/such/dir/report.json");
    let err = bin()
        .args(["diff", SEED_OLD, SEED_NEW, "--format", "json", "--output", missing.to_str().unwrap()])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&err).contains("no/such/dir/report.json"), "{}", String::from_utf8_lossy(&err));
}

#[test]
fn stdin_is_one_side() {
    let new = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(SEED_NEW)).unwrap();
    let out = bin().args(["diff", SEED_OLD, "-"]).write_stdin(new).assert().code(1).get_output().stdout.clone();
    assert!(String::from_utf8(out).unwrap().contains("<stdin>:12:11"));
    bin().args(["diff", "-", "-"]).assert().code(2);
}

#[test]
fn directories_of_toolsnaps() {
    bin()
        .args(["diff", "corpus/toolsnaps-directory/old", "corpus/toolsnaps-directory/new", "--fail-on", "info"])
        .assert()
        .code(1);
}

fn bad_input(content: &[u8], want: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(&path, content).unwrap();
    let out = bin().args(["diff", SEED_OLD, path.to_str().unwrap()]).assert().code(2).get_output().clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.stdout.is_empty(), "nothing on stdout for bad input");
    assert!(err.contains(want), "expected `{want}` in: {err}");
    assert_eq!(err.lines().count(), 1, "one clear error line: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_input_is_one_error_with_position_and_exit_2() {
    bad_input(b"{\"tools\": [{\"name\": \"a\", \"inputSchema\": {", "bad.json:1:");
    bad_input(b"{\"tools\": {}}", "`tools` must be an array");
    // A repeated name, a `null` or array `inputSchema`, a name that is not a string and an
    // `outputSchema` that is not a schema are findings, not input errors (tests/layouts.rs).
    bad_input(b"\"just a string\"", "found a scalar");
    bad_input(b"", "file is empty");
    bad_input(b"{\"tools\": [{\"name\": \"\xff\"}]}", "not valid UTF-8");
    bad_input(b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"error\": {\"code\": -32601}}", "JSON-RPC error response");
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    bad_input(deep.as_bytes(), "recursion limit");
    let deep_schema =
        format!("{{\"name\": \"a\", \"inputSchema\": {}{{}}{}}}", "{\"items\": ".repeat(10_000), "}".repeat(10_000));
    bad_input(deep_schema.as_bytes(), "recursion limit");
}

#[test]
fn missing_file_exits_2() {
    // Missing on one side is a partial snapshot (tests/layouts.rs); on both, an error.
    let out =
        bin().args(["diff", "no/such/file.json", "no/such/new.json"]).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8(out).unwrap().contains("no/such/file.json"));
}

#[test]
fn usage_errors_exit_2() {
    bin().args(["diff", SEED_OLD]).assert().code(2);
    bin().args(["diff", SEED_OLD, SEED_NEW, "--format", "yaml"]).assert().code(2);
    bin()
        .args(["explain", "input-required-addd"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("did you mean `input-required-added`"));
}

#[test]
fn rules_and_explain() {
    let out = bin().args(["rules"]).assert().code(0).get_output().stdout.clone();
    assert!(String::from_utf8(out).unwrap().lines().count() >= 50);
    let out = bin().args(["rules", "--format", "json"]).assert().code(0).get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert!(v["rules"].as_array().unwrap().len() >= 50);
    let out = bin().args(["explain", "input-property-renamed"]).assert().code(0).get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("## Why it breaks") && text.contains("## Migration"), "{text}");
}

#[test]
fn directories_of_several_snapshots_pair_by_path_and_group_by_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    std::fs::create_dir_all(old.join("servers")).unwrap();
    std::fs::create_dir_all(new.join("servers")).unwrap();
    let copy = |from: &str, to: &Path| std::fs::copy(root.join(from), to).unwrap();
    copy(SEED_OLD, &old.join("servers/deploy.json"));
    copy(SEED_NEW, &new.join("servers/deploy.json"));
    copy("corpus/tool-removed/old.json", &old.join("github.json"));
    copy("corpus/tool-removed/new.json", &new.join("github.json"));
    copy("corpus/identical/old.json", &new.join("added.json"));
    let run = |threads: &str| {
        let out = bin()
            .env("RAYON_NUM_THREADS", threads)
            .args(["diff", old.to_str().unwrap(), new.to_str().unwrap(), "--format", "json"])
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    let one = run("1");
    assert_eq!(one, run("2"), "output does not depend on the thread count");
    let v: serde_json::Value = serde_json::from_str(&one).unwrap();
    let files: Vec<&str> = v["findings"].as_array().unwrap().iter().map(|f| f["snapshot"].as_str().unwrap()).collect();
    let mut sorted = files.clone();
    sorted.sort_unstable();
    assert_eq!(files, sorted, "grouped by file");
    assert!(files.contains(&"added.json") && files.contains(&"servers/deploy.json") && files.contains(&"github.json"));
}

#[test]
fn lint_exit_codes_formats_and_config() {
    let clean = "corpus/lint/clean/snapshot.json";
    bin().args(["lint", clean]).assert().code(0).stdout("no lint findings across 3 tools\n");
    bin().args(["lint", clean, "--protocol", "2025-06-18", "--format", "json"]).assert().code(0);
    let broken = "corpus/lint/input-not-object/snapshot.json";
    let out = bin().args(["lint", broken]).assert().code(1).get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("error[lint-input-not-object]") && text.contains("snapshot.json:"), "{text}");
    // Warnings pass by default and fail with --fail-on warning.
    let warn = "corpus/lint/missing-description/snapshot.json";
    bin().args(["lint", warn]).assert().code(0);
    bin().args(["lint", warn, "--fail-on", "warning"]).assert().code(1);
    // Several snapshots at once: findings name their snapshot.
    let out = bin().args(["lint", clean, broken, "--format", "json"]).assert().code(1).get_output().stdout.clone();
    let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert!(doc["findings"].as_array().unwrap().iter().all(|f| f["snapshot"] == broken), "{doc}");
    // `lint-open-input` is an info unless the team opts in to a warning.
    let open = "corpus/lint/open-input/snapshot.json";
    bin().args(["lint", open, "--fail-on", "warning"]).assert().code(0);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp-drift.toml");
    std::fs::write(&config, "[severity]\nlint-open-input = \"warning\"\n").unwrap();
    bin().args(["lint", open, "--fail-on", "warning", "--config", config.to_str().unwrap()]).assert().code(1);
    for format in ["sarif", "github", "markdown", "junit"] {
        bin().args(["lint", broken, "--format", format]).assert().code(1);
    }
}

#[test]
fn lint_input_errors_and_usage() {
    bin().args(["lint"]).assert().code(2);
    bin().args(["lint", "corpus/lint/clean/snapshot.json", "--protocol", "2024-11-05"]).assert().code(2);
    bin().args(["lint", "no/such/file.json"]).assert().code(2);
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, b"{\"tools\": [{\"name\": \"a\", \"inputSchema\": {}},]}").unwrap();
    let out = bin().args(["lint", bad.to_str().unwrap()]).assert().code(2).get_output().stderr.clone();
    let err = String::from_utf8(out).unwrap();
    assert!(err.contains("bad.json:1:") && err.lines().count() == 1, "{err}");
    // What `diff` refuses as input (a null schema, a repeated name) is a lint finding instead.
    std::fs::write(
        &bad,
        b"{\"tools\": [{\"name\": \"a\", \"inputSchema\": null}, {\"name\": \"a\", \"inputSchema\": {}}]}",
    )
    .unwrap();
    let out =
        bin().args(["lint", bad.to_str().unwrap(), "--format", "json"]).assert().code(1).get_output().stdout.clone();
    let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let rules: Vec<&str> = doc["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert!(rules.contains(&"lint-input-not-object") && rules.contains(&"lint-duplicate-tool"), "{rules:?}");
    // Standard input works for lint too.
    bin()
        .args(["lint", "-"])
        .write_stdin("{\"name\": \"ok\", \"description\": \"Fine.\", \"inputSchema\": {\"type\": \"object\", \"additionalProperties\": false}}")
        .assert()
        .code(0)
        .stdout("no lint findings across 1 tool\n");
}

#[test]
fn lint_never_prints_raw_control_characters() {
    for format in ["human", "json", "sarif", "github", "markdown", "junit"] {
        let out = bin()
            .args(["lint", "corpus/lint/hidden-text/snapshot.json", "--format", format, "--color", "never"])
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8(out).unwrap();
        let raw: Vec<char> = text.chars().filter(|c| mcp_drift::load::is_hidden(*c) && *c != '\r').collect();
        assert!(raw.is_empty(), "{format}: raw hidden characters {raw:?}");
    }
}

#[test]
fn lint_baseline_accepts_todays_findings() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("baseline.json");
    let noisy = "corpus/lint/hidden-text/snapshot.json";
    bin().args(["lint", noisy]).assert().code(1);
    bin().args(["baseline", "lint", noisy, "--output", baseline.to_str().unwrap()]).assert().code(0);
    let out = bin()
        .args(["lint", noisy, "--baseline", baseline.to_str().unwrap()])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8(out).unwrap().contains("3 findings suppressed by configuration or baseline"));
}

/// Issue #31: a real pair printed 782 lines, 72 notes around 3 findings. Infos are counted one line per
/// rule unless `--show-infos` (or `-v`) asks for them; the summary counts the tools compared.
#[test]
fn infos_are_counted_unless_asked_for() {
    let case = ["corpus/description-restated-quantities/old.json", "corpus/description-restated-quantities/new.json"];
    let out = bin().args(["diff", case[0], case[1]]).assert().code(0).get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("note[description-reworded]"), "{text}");
    assert!(text.contains("info[description-reworded]: 4 not shown (--show-infos or -v prints them)"), "{text}");
    assert!(text.ends_with("0 errors, 0 warnings, 5 infos across 2 tools\n"), "{text}");
    for flag in ["--show-infos", "-v"] {
        let out = bin().args(["diff", case[0], case[1], flag]).assert().code(0).get_output().stdout.clone();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches("note[description-reworded]").count(), 4, "{text}");
        assert!(!text.contains("not shown"), "{text}");
    }
    // Errors and warnings are always shown in full.
    let out = bin().args(["diff", SEED_OLD, SEED_NEW]).assert().code(1).get_output().stdout.clone();
    assert!(String::from_utf8(out).unwrap().contains("error[input-required-added]"));
}
