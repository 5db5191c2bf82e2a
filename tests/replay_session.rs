//! `mcp-drift replay` on traffic recorded from a real session: the drift server (tests/servers)
//! revision A behind `mcp-drift guard --record`, driven by a scripted client with calls that are
//! valid under A, then replayed against revision B as `mcp-drift capture` writes it.

mod servers;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcp-drift"))
}

/// Runs `mcp-drift ARGS` in `dir`; exit code, stdout, stderr.
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let o = bin().current_dir(dir).args(args).stdin(Stdio::null()).output().expect("run mcp-drift");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A session through `mcp-drift guard --record rec.jsonl --audit audit.jsonl` with revision A: the
/// calls, each answered before the next is sent.
fn record(s: &servers::Servers, dir: &Path, calls: &[(&str, Value)]) {
    let mut cmd = bin();
    cmd.current_dir(dir)
        .args(["guard", "--lock", "mcp-tools.lock", "--record", "rec.jsonl", "--audit", "audit.jsonl", "--"])
        .args(s.drift_stdio())
        .env("DRIFT_REVISION", "A")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().expect("start guard");
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |id: i64, method: &str, params: Value| {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
        loop {
            let mut text = String::new();
            assert!(out.read_line(&mut text).unwrap() > 0, "the guard closed before answering {id}");
            let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            if v.get("method").is_none() && v["id"] == json!(id) {
                return v;
            }
        }
    };
    let init = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "replay-test", "version": "1"}});
    assert!(ask(0, "initialize", init).get("result").is_some());
    for (i, (tool, arguments)) in calls.iter().enumerate() {
        let id = i64::try_from(i).unwrap() + 1;
        let v = ask(id, "tools/call", json!({"name": tool, "arguments": arguments}));
        assert_eq!(v["result"]["isError"], json!(false), "{tool} under A: {v}");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn calls_recorded_under_a_replayed_against_b() {
    let Some(s) = servers::find() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for (file, rev) in [("a.json", "A"), ("b.json", "B")] {
        let o = bin()
            .current_dir(dir)
            .args(["capture", "--quiet", "-o", file, "--"])
            .args(s.drift_stdio())
            .env("DRIFT_REVISION", rev)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert_eq!(run(dir, &["lock", "a.json"]).0, 0);
    record(
        &s,
        dir,
        &[
            // B renames `query` to `q`.
            ("search", json!({"query": "s3cr3t-query-value", "limit": 2})),
            ("search", json!({"query": "another", "limit": 1})),
            // B drops "medium" (and adds the required `project`).
            ("create_ticket", json!({"title": "t", "priority": "medium"})),
            ("echo", json!({"text": "hello"})),
        ],
    );
    let recorded = std::fs::read_to_string(dir.join("rec.jsonl")).unwrap();
    // Verbatim: the client's request as it was sent.
    let sent = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search", "arguments": {"query": "s3cr3t-query-value", "limit": 2}}});
    let sent = sent.to_string();
    assert!(recorded.lines().any(|l| l == sent), "{recorded}");
    // The guard's own tools/list traffic is not recorded.
    assert!(!recorded.contains("mcp-drift-guard-"), "{recorded}");
    // Both directions, one message a line: initialize, initialized is not sent, four calls.
    assert_eq!(recorded.lines().filter(|l| l.contains("\"tools/call\"")).count(), 4, "{recorded}");
    assert_eq!(recorded.lines().filter(|l| l.contains("structuredContent")).count(), 4, "{recorded}");

    // Against A itself, every recorded call and result passes.
    let (code, out, err) = run(dir, &["replay", "a.json", "--calls", "rec.jsonl"]);
    assert_eq!((code, out.lines().last()), (0, Some("no replay findings across 4 tools")), "{out}{err}");
    assert!(err.contains("replayed 4 call(s) and 4 result(s)"), "{err}");

    let (code, out, err) =
        run(dir, &["replay", "b.json", "--calls", "rec.jsonl", "--old", "a.json", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let replayed: Vec<(String, String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"].as_str().unwrap().starts_with("replay-"))
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap().to_owned();
            (s("rule"), s("tool"), s("message"))
        })
        .collect();
    let expected = [
        (
            "replay-call-rejected",
            "create_ticket",
            "1 recorded call (at rec.jsonl:7) rejected by `enum` at `/inputSchema/properties/priority/enum`: a string that is not one of [\"low\",\"high\"]; explained by `input-enum-narrowed` at `/inputSchema/properties/priority/enum`",
        ),
        (
            "replay-call-rejected",
            "create_ticket",
            "1 recorded call (at rec.jsonl:7) rejected by `required` at `/inputSchema/required`: `project` is a required property; explained by `input-required-added` at `/inputSchema/properties/project`",
        ),
        (
            "replay-call-rejected",
            "search",
            "2 recorded calls (first at rec.jsonl:3) rejected by `required` at `/inputSchema/required`: `q` is a required property; explained by `input-property-renamed` at `/inputSchema/properties/q`",
        ),
    ];
    let got: Vec<(&str, &str, &str)> = replayed.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
    assert_eq!(got, expected, "{out}");
    // The diff findings say how many recorded calls they affect.
    let affects = |rule: &str| {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == rule)
            .map(|f| f["message"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert!(affects("input-property-renamed").iter().any(|m| m.ends_with("(affects 2 recorded calls)")), "{out}");
    assert!(affects("input-required-added").iter().any(|m| m.ends_with("(affects 1 recorded call)")), "{out}");
    assert!(affects("input-enum-narrowed").iter().any(|m| m.ends_with("(affects 1 recorded call)")), "{out}");
    // The recorded argument value never reaches the report.
    assert!(!out.contains("s3cr3t"), "{out}");

    // The audit file of the same session: four calls, named only, none validated.
    let (code, out, err) = run(dir, &["replay", "b.json", "--calls", "audit.jsonl"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("note: 4 guard --audit lines were counted as calls to their tools and not validated"),
        "{out}"
    );
}
