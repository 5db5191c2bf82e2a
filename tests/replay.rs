//! `mcp-drift replay` on the cases in `tests/replay-cases/<case>/` (`new.json`, `calls.jsonl`, and
//! `old.json` for `--old`): a golden report per format beside the inputs (`human.snap`, `json.snap`,
//! `sarif.snap`, `github.snap`, `markdown.snap`, `junit.snap`; review with `cargo insta review`), every
//! replay rule fires in some case, recorded values never reach any format without `--show-values`, and
//! the exit codes follow `--fail-on` as in `diff`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mcp_drift::catalog::{RuleDirection, RuleId, Severity};
use mcp_drift::load::{Limits, Select, Source};
use mcp_drift::replay::{Calls, Options};
use mcp_drift::report;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cases() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(root().join("tests/replay-cases"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// The replay of one case, with paths relative to the crate root so reports show stable names.
fn replay_case(case: &str, options: &Options) -> mcp_drift::Analysis {
    std::env::set_current_dir(root()).unwrap();
    let dir = format!("tests/replay-cases/{case}");
    let new = Source::Path(format!("{dir}/new.json").into());
    let old = Path::new(&format!("{dir}/old.json")).exists().then(|| Source::Path(format!("{dir}/old.json").into()));
    let mut analysis = match &old {
        Some(old) => mcp_drift::diff_selected(old, &new, Limits::default(), &Select::default()).unwrap(),
        None => mcp_drift::replay_target(&new, Limits::default(), &Select::default()).unwrap(),
    };
    mcp_drift::replay::replay(&mut analysis, &[Calls::Path(format!("{dir}/calls.jsonl").into())], options).unwrap();
    analysis
}

/// Every format, as `mcp-drift replay --format F` prints it (no colour, no links from the environment).
fn formats(analysis: &mcp_drift::Analysis) -> Vec<(&'static str, String)> {
    vec![
        ("human", report::human::render_run(analysis, false, report::human::Run::Replay)),
        ("json", report::json::render(analysis)),
        ("sarif", report::sarif::render(analysis)),
        ("github", report::github::render(analysis)),
        ("markdown", report::markdown::render_with(analysis, &report::links::Links::from_env(|_| None))),
        ("junit", report::junit::render(analysis, Some(Severity::Error))),
    ]
}

#[test]
fn replay_corpus_matches_golden_reports() {
    for case in cases() {
        let analysis = replay_case(&case, &Options::default());
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(root().join("tests/replay-cases").join(&case));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_input_file(root().join("tests/replay-cases").join(&case).join("calls.jsonl"));
        settings.bind(|| {
            for (name, text) in formats(&analysis) {
                insta::assert_snapshot!(name, text);
            }
        });
        if case.starts_with("clean") {
            assert!(analysis.findings.is_empty(), "{case}: {:#?}", analysis.findings);
        }
        // Every template placeholder is filled.
        for f in &analysis.findings {
            for text in [&f.message, &f.why, &f.migration] {
                let left = text.split('{').skip(1).any(|rest| {
                    rest.find('}')
                        .is_some_and(|end| end > 0 && rest[..end].bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
                });
                assert!(!left, "{case}: {}: unfilled placeholder in {text}", f.rule);
            }
        }
    }
}

#[test]
fn every_replay_rule_fires_in_some_case() {
    let mut fired = std::collections::BTreeSet::new();
    for case in cases() {
        fired.extend(replay_case(&case, &Options::default()).findings.iter().map(|f| f.rule));
    }
    let missing: Vec<&str> = RuleId::ALL
        .iter()
        .filter(|r| r.meta().direction == RuleDirection::Replay && !fired.contains(r))
        .map(|r| r.as_str())
        .collect();
    assert!(missing.is_empty(), "no tests/replay-cases case fires: {missing:?}");
}

/// Strings of `tests/replay-cases/all-shapes/calls.jsonl` that only the recorded values hold.
const SECRETS: [&str; 6] = ["4111-1111", "another private", "secret-codename", "\"medium\"", "\"red\"", "\"core\""];

#[test]
fn recorded_values_reach_no_format_unless_shown() {
    let hidden = replay_case("all-shapes", &Options::default());
    for (name, text) in formats(&hidden) {
        for secret in SECRETS {
            assert!(!text.contains(secret), "{name} shows `{secret}`:\n{text}");
        }
        assert!(!text.contains("4111"), "{name}:\n{text}");
    }
    // With --show-values the example shows them, clipped.
    let shown = replay_case("all-shapes", &Options { show_values: true, ..Options::default() });
    let json = report::json::render(&shown);
    assert!(json.contains("card 4111-1111-1111-1111"), "{json}");
    assert!(json.contains("release/secret-codename"), "{json}");
}

#[test]
fn hostile_names_and_values_are_escaped_and_clipped() {
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new.json");
    std::fs::write(
        &new,
        r#"{"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}]}"#,
    )
    .unwrap();
    let calls = dir.path().join("calls.jsonl");
    let evil = "x\u{1b}]52;\u{202e}\n::error::owned ##[group] <b>`@x";
    let lines = [
        serde_json::json!({"tool": evil, "arguments": {"a": evil}}),
        serde_json::json!({"tool": "t", "arguments": {"a": 1, evil: evil}}),
        serde_json::json!({"tool": "t", "arguments": {"a": "y".repeat(5000), "b": 2}}),
    ];
    let text: Vec<String> = lines.iter().map(ToString::to_string).collect();
    std::fs::write(&calls, text.join("\n") + "\n").unwrap();
    let mut analysis = mcp_drift::replay_target(&Source::Path(new), Limits::default(), &Select::default()).unwrap();
    let options = Options { show_values: true, ..Options::default() };
    mcp_drift::replay::replay(&mut analysis, &[Calls::Path(calls)], &options).unwrap();
    assert_eq!(analysis.findings.len(), 3, "{:#?}", analysis.findings);
    for (name, text) in formats(&analysis) {
        assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}'), "{name}:\n{text}");
        assert!(!text.contains("##[group]"), "{name}:\n{text}");
        assert!(!text.contains(&"y".repeat(41)), "{name} shows a value unclipped:\n{text}");
        if name != "github" {
            assert!(!text.lines().any(|l| l.trim_start().starts_with("::")), "{name}:\n{text}");
        }
    }
}

fn bin(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_mcp-drift"))
        .current_dir(root())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn exit_codes_follow_fail_on() {
    let new = "tests/replay-cases/all-shapes/new.json";
    let calls = "tests/replay-cases/all-shapes/calls.jsonl";
    assert_eq!(bin(&["replay", new, "--calls", calls]).0, 1);
    assert_eq!(bin(&["replay", new, "--calls", calls, "--fail-on", "never"]).0, 0);
    let clean = ["replay", "tests/replay-cases/clean/new.json", "--calls", "tests/replay-cases/clean/calls.jsonl"];
    let (code, out, err) = bin(&clean);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("calls/s)"), "the closing line gives the rate: {err}");
    // Only a warning (an ignored argument): fails from --fail-on warning.
    let dir = tempfile::tempdir().unwrap();
    let warn = dir.path().join("calls.jsonl");
    std::fs::write(&warn, "{\"tool\":\"annotate\",\"arguments\":{\"colour\":\"red\"}}\n").unwrap();
    let warn = warn.to_str().unwrap();
    assert_eq!(bin(&["replay", new, "--calls", warn]).0, 0);
    assert_eq!(bin(&["replay", new, "--calls", warn, "--fail-on", "warning"]).0, 1);
    // A configuration that turns the rule off.
    let config = dir.path().join("mcp-drift.toml");
    std::fs::write(&config, "[severity]\n\"replay-argument-ignored\" = \"off\"\n").unwrap();
    let (code, out, _) =
        bin(&["replay", new, "--calls", warn, "--fail-on", "warning", "--config", config.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("suppressed"), "{out}");
    // A calls file that does not exist, and bad usage: exit 2.
    let (code, _, err) = bin(&["replay", new, "--calls", "tests/replay-cases/none.jsonl"]);
    assert_eq!(code, 2);
    assert!(err.contains("none.jsonl"), "{err}");
    assert_eq!(bin(&["replay", new]).0, 2);
    assert_eq!(bin(&["replay", "-", "--calls", "-"]).0, 2);
}

#[test]
fn calls_can_come_from_standard_input() {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-drift"))
        .current_dir(root())
        .args(["replay", "tests/replay-cases/all-shapes/new.json", "--calls", "-", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let calls = std::fs::read(root().join("tests/replay-cases/all-shapes/calls.jsonl")).unwrap();
    child.stdin.take().unwrap().write_all(&calls).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let golden = replay_case("all-shapes", &Options::default());
    assert_eq!(report["findings"].as_array().unwrap().len(), golden.findings.len());
    assert!(report["notes"][0].as_str().unwrap().starts_with("replayed 9 recorded calls"), "{report}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("<stdin>:4"), "{report}");
}

#[test]
fn long_lines_are_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls.jsonl");
    let long = format!("{{\"tool\":\"search\",\"arguments\":{{\"q\":\"{}\"}}}}\n", "z".repeat(4096));
    std::fs::write(&calls, format!("{long}{{\"tool\":\"search\",\"arguments\":{{}}}}\n")).unwrap();
    let (code, out, err) = bin(&[
        "replay",
        "tests/replay-cases/all-shapes/new.json",
        "--calls",
        calls.to_str().unwrap(),
        "--max-line-bytes",
        "1KiB",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("note: 1 line was longer than 1024 bytes and skipped (first at "), "{out}");
    assert!(out.contains(":1)"), "{out}");
    assert!(out.contains("1 recorded call (at "), "{out}");
}

#[test]
fn hostile_inputs_stay_short_and_bounded() {
    let dir = tempfile::tempdir().unwrap();
    // A `$ref` diamond 40 levels deep: its validation could visit 2^40 subschemas.
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(format!("d{i}"), serde_json::json!({"allOf": [{"$ref": next}, {"$ref": next}]}));
    }
    defs.insert("d40".into(), serde_json::json!({"type": "string"}));
    let diamond = serde_json::json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d0"}}, "$defs": defs});
    let snapshot = serde_json::json!({"tools": [{"name": "t", "inputSchema": diamond}]});
    let new = dir.path().join("new.json");
    std::fs::write(&new, snapshot.to_string()).unwrap();
    let mut lines = Vec::new();
    for i in 0..2_000 {
        lines.push(format!(r#"{{"tool":"t","arguments":{{"a":"v{i}"}}}}"#));
        // Every missing tool name differs: more distinct failures than are itemized.
        lines.push(format!(r#"{{"tool":"gone-{i}-{}","arguments":{{}}}}"#, "n".repeat(300)));
    }
    lines.push("[".repeat(100_000));
    lines.push(format!(r#"{{"tool":"t","arguments":{{"{}":1}}}}"#, "k".repeat(100_000)));
    let calls = dir.path().join("calls.jsonl");
    std::fs::write(&calls, lines.join("\n")).unwrap();
    let started = std::time::Instant::now();
    let mut analysis = mcp_drift::replay_target(&Source::Path(new), Limits::default(), &Select::default()).unwrap();
    let options = Options { max_groups: 100, ..Options::default() };
    mcp_drift::replay::replay(&mut analysis, &[Calls::Path(calls)], &options).unwrap();
    assert!(started.elapsed().as_secs() < 20, "took {:?}", started.elapsed());
    assert_eq!(analysis.findings.len(), 100);
    let notes = analysis.notes.join("\n");
    assert!(notes.contains("2001 calls were not validated: its schema unfolds too far to validate"), "{notes}");
    assert!(notes.contains("1900 calls or results were counted, not itemized"), "{notes}");
    assert!(notes.contains("1 line was not JSON"), "{notes}");
    for (_, text) in formats(&analysis) {
        assert!(text.len() < 2_000_000, "{} bytes", text.len());
        assert!(!text.contains(&"n".repeat(201)), "a tool name from the calls is not clipped");
    }
}

/// Mutated recordings (bytes flipped, lines cut and spliced, a fixed-seed generator): replaying and
/// rendering them never panics, and every line is counted.
#[test]
fn mutated_recordings_never_panic() {
    let base = std::fs::read(root().join("tests/replay-cases/all-shapes/calls.jsonl")).unwrap();
    let lines: Vec<&[u8]> = base.split(|b| *b == b'\n').collect();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let pick = |n: u64, len: usize| usize::try_from(n % len.max(1) as u64).unwrap_or(0);
    for round in 0..60 {
        let mut text = Vec::new();
        for _ in 0..30 {
            let mut line = lines[pick(next(), lines.len())].to_vec();
            match next() % 5 {
                0 if !line.is_empty() => {
                    let i = pick(next(), line.len());
                    line[i] = u8::try_from(next() % 256).unwrap_or(b'?');
                }
                1 if !line.is_empty() => line.truncate(pick(next(), line.len())),
                2 => {
                    let other = lines[pick(next(), lines.len())];
                    let cut = pick(next(), other.len());
                    line.extend_from_slice(&other[cut..]);
                }
                _ => {}
            }
            text.extend_from_slice(&line);
            text.push(b'\n');
        }
        for new in ["tests/replay-cases/all-shapes/new.json", "tests/replay-cases/with-old/old.json"] {
            std::env::set_current_dir(root()).unwrap();
            let mut analysis =
                mcp_drift::replay_target(&Source::Path(new.into()), Limits::default(), &Select::default()).unwrap();
            let stats =
                mcp_drift::replay::replay_reader(&mut analysis, "m.jsonl", text.as_slice(), &Options::default())
                    .unwrap_or_else(|e| panic!("round {round}: {e}"));
            let newlines = u64::try_from(text.split(|b| *b == b'\n').count() - 1).unwrap();
            assert_eq!(stats.lines, newlines, "round {round}");
            let _ = formats(&analysis);
        }
    }
}
