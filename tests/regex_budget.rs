//! Issue #33: a backtracking `pattern` (a back-reference) cannot make `lint` or `replay` long: each
//! match has a budget, and a match that runs out of it is "cannot decide" at that place, never a
//! finding that the value is invalid.

use assert_cmd::Command;
use std::path::Path;
use std::time::{Duration, Instant};

fn drift(dir: &Path, args: &[&str]) -> (i32, String, String, Duration) {
    let started = Instant::now();
    let out = Command::cargo_bin("mcp-drift").unwrap().current_dir(dir).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        started.elapsed(),
    )
}

/// A back-reference forces the backtracking engine, and `(a|a)*` doubles its work per character.
const PATTERN: &str = r"^(a|a)*\1$";

fn subject() -> String {
    format!("{}b", "a".repeat(28))
}

fn tool(extra: &str) -> String {
    format!(
        r#"{{"name": "t", "description": "d", "inputSchema": {{"type": "object", "properties": {{"q": {{"type": "string", "description": "q", "pattern": {}{extra}}}}}}}}}"#,
        serde_json::to_string(PATTERN).unwrap()
    )
}

#[test]
fn lint_of_examples_against_a_backtracking_pattern_is_short_and_undecided() {
    let d = tempfile::tempdir().unwrap();
    let examples: Vec<String> = (0..1000).map(|_| format!("\"{}\"", subject())).collect();
    let text = format!("{{\"tools\": [{}]}}", tool(&format!(", \"examples\": [{}]", examples.join(", "))));
    assert!(text.len() > 30_000);
    std::fs::write(d.path().join("tools.json"), text).unwrap();
    let (_, out, err, took) = drift(d.path(), &["lint", "tools.json", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let findings = v["findings"].as_array().unwrap();
    assert!(!findings.iter().any(|f| f["rule"] == "lint-default-invalid"), "{out}");
    let undecided: Vec<_> =
        findings.iter().filter(|f| f["message"].as_str().is_some_and(|m| m.contains("not decided"))).collect();
    assert_eq!(undecided.len(), 1, "{out}");
    assert!(undecided[0]["pointer"].as_str().unwrap().ends_with("/examples/0"), "{out}");
    // Minutes before (a debug build took 49 s); well under a second now.
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn replay_of_calls_against_a_backtracking_pattern_is_short_and_undecided() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("new.json"), format!("{{\"tools\": [{}]}}", tool(""))).unwrap();
    let line = format!("{{\"tool\": \"t\", \"arguments\": {{\"q\": \"{}\"}}}}\n", subject());
    std::fs::write(d.path().join("calls.jsonl"), line.repeat(300)).unwrap();
    let (code, out, err, took) = drift(d.path(), &["replay", "new.json", "--calls", "calls.jsonl", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let notes: Vec<&str> = v["notes"].as_array().unwrap().iter().filter_map(|n| n.as_str()).collect();
    // The first 64 calls run out of their budget; the schema's later calls are not matched at all.
    assert!(notes.iter().any(|n| n.contains("64 calls were not validated") && n.contains("ran out")), "{notes:?}");
    assert!(
        notes.iter().any(|n| n.contains("236 calls were not validated") && n.contains("later ones are not matched")),
        "{notes:?}"
    );
    assert!(notes.iter().any(|n| n.contains("0 rejected")), "{notes:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

/// Distinct values defeat any cache of match results: before, each of 20,000 such calls paid its
/// whole budget (37 s in a release build, attack 8.4 of the #33 pass). A schema whose matches ran
/// out of budget 64 times is not matched again in the run: every later call is "cannot decide" at
/// once, so the run's cost no longer grows with the log.
#[test]
fn replay_stops_matching_a_pattern_that_keeps_running_out_of_budget() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("new.json"), format!("{{\"tools\": [{}]}}", tool(""))).unwrap();
    let mut lines = String::new();
    for i in 0..3000 {
        let line = format!("{{\"tool\": \"t\", \"arguments\": {{\"q\": \"{}{i}\"}}}}\n", subject());
        lines.push_str(&line);
    }
    std::fs::write(d.path().join("calls.jsonl"), lines).unwrap();
    let (code, out, err, _) = drift(d.path(), &["replay", "new.json", "--calls", "calls.jsonl", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let notes: Vec<&str> = v["notes"].as_array().unwrap().iter().filter_map(|n| n.as_str()).collect();
    assert!(notes.iter().any(|n| n.contains("64 calls were not validated")), "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("2936 calls were not validated")), "{notes:?}");
}

/// Calls that other keywords reject are still rejected once the pattern stops being matched, and
/// beside a match that ran out of budget: 100 calls whose `q` is a number, behind 100 that trip the
/// budget, are 100 rejections (they were "not validated", the run green: attack B5 of the second
/// #33 pass).
#[test]
fn calls_other_keywords_reject_are_not_hidden_behind_a_spent_pattern() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("new.json"), format!("{{\"tools\": [{}]}}", tool(""))).unwrap();
    let tripping = (0..100).map(|i| format!("{{\"tool\": \"t\", \"arguments\": {{\"q\": \"{}{i}\"}}}}\n", subject()));
    let wrong = (0..100).map(|i| format!("{{\"tool\": \"t\", \"arguments\": {{\"q\": {i}}}}}\n"));
    let lines: String = tripping.chain(wrong).collect();
    std::fs::write(d.path().join("calls.jsonl"), lines).unwrap();
    let (code, out, err, _) = drift(d.path(), &["replay", "new.json", "--calls", "calls.jsonl", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rejected: Vec<_> =
        v["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "replay-call-rejected").collect();
    assert_eq!(rejected.len(), 1, "{out}");
    assert!(rejected[0]["message"].as_str().unwrap().contains("100"), "{out}");
}

/// The diff engine's own validators (witness judge, probe, decide) match with the same budget: a pull
/// request that puts backtracking patterns beside `minLength`, a `default` and `examples` on many tools
/// cannot make `diff` long. Before, this pair took 51 s in a debug build (1.9 s now); the release
/// build took 6.8 s on a pair with one example per tool.
#[test]
fn diff_of_many_tools_with_a_backtracking_pattern_is_short() {
    let d = tempfile::tempdir().unwrap();
    let tool_of = |i: usize, tightened: bool| {
        let extra =
            if tightened { format!(r#", "minLength": 30, "default": "{}""#, "a".repeat(40)) } else { String::new() };
        format!(
            r#"{{"name": "t{i}", "inputSchema": {{"type": "object", "properties": {{"q": {{"type": "string", "pattern": {p}{extra}}}, "r": {{"type": "string", "pattern": "^(a|aa)+\\1b$", "examples": [{a}]}}}}, "required": ["q"]}}}}"#,
            p = serde_json::to_string(PATTERN).unwrap(),
            a = (30..50).map(|n| format!("\"{}\"", "a".repeat(n))).collect::<Vec<_>>().join(", ")
        )
    };
    let side = |tightened: bool| {
        format!("{{\"tools\": [{}]}}", (0..200).map(|i| tool_of(i, tightened)).collect::<Vec<_>>().join(", "))
    };
    std::fs::write(d.path().join("old.json"), side(true)).unwrap();
    std::fs::write(d.path().join("new.json"), side(false)).unwrap();
    let (code, out, err, took) = drift(d.path(), &["diff", "old.json", "new.json", "--format", "json"]);
    assert!(code == 0 || code == 1, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    // Each tool's loosening is still reported (the new schema accepts strings shorter than 30).
    let loosened =
        v["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "input-constraint-loosened").count();
    assert_eq!(loosened, 200, "{out}");
    assert!(took < Duration::from_secs(30), "{took:?}");
}

/// A value with many keys against a backtracking `patternProperties` pattern: each key used to cost
/// a whole budget (100,000 keys took 45 s in `lint`, 50,000 in one replayed call 45 s: attack B4 of
/// the second #33 pass). Past 64 strings and keys such a value is "cannot decide" at once, and a
/// call's other rejections still count.
#[test]
fn many_keys_against_a_backtracking_pattern_property_are_not_matched_one_by_one() {
    let d = tempfile::tempdir().unwrap();
    let keys: Vec<String> = (0..20_000).map(|i| format!("\"{}{i}\": 1", "a".repeat(28))).collect();
    let object = format!("{{{}}}", keys.join(", "));
    let schema = |extra: &str| {
        format!(
            r#"{{"type": "object", "properties": {{"m": {{"type": "object", "patternProperties": {{{}: {{"type": "integer"}}}}{extra}}}, "n": {{"type": "string"}}}}}}"#,
            serde_json::to_string(PATTERN).unwrap()
        )
    };
    let snapshot_tool =
        |extra: &str| format!(r#"{{"name": "t", "description": "d", "inputSchema": {}}}"#, schema(extra));
    std::fs::write(
        d.path().join("lint.json"),
        format!("{{\"tools\": [{}]}}", snapshot_tool(&format!(", \"default\": {object}"))),
    )
    .unwrap();
    let (_, out, err, took) = drift(d.path(), &["lint", "lint.json", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let undecided = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["message"].as_str().is_some_and(|m| m.contains("not decided")))
        .count();
    assert_eq!(undecided, 1, "{out}");
    assert!(took < Duration::from_secs(20), "{took:?}");
    std::fs::write(d.path().join("new.json"), format!("{{\"tools\": [{}]}}", snapshot_tool(""))).unwrap();
    let calls = format!(
        "{{\"tool\": \"t\", \"arguments\": {{\"m\": {object}}}}}\n{{\"tool\": \"t\", \"arguments\": {{\"m\": {object}, \"n\": 5}}}}\n"
    );
    std::fs::write(d.path().join("calls.jsonl"), calls).unwrap();
    let (code, out, err, took) = drift(d.path(), &["replay", "new.json", "--calls", "calls.jsonl", "--format", "json"]);
    assert_eq!(code, 1, "the wrong-typed `n` is still a rejection: {out}{err}");
    assert!(out.contains("too many strings and keys"), "{out}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}
