//! `mcp-drift guard` between a scripted client (this file, speaking JSON-RPC over the guard's stdin and
//! stdout) and real servers: the drift server (revisions A and B, its own log of the calls that reached
//! it) and server-everything; a dependency-free fake server (`tests/guard/fake_server.py`) for what a
//! real server will not do on purpose (pages that loop, silence, exiting mid-call).

mod servers;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(30);

/// A scripted MCP client of one process (the guard, or a server directly).
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    /// Every line received, in order.
    seen: Vec<Vec<u8>>,
    /// The id of every request sent.
    sent: Vec<Value>,
}

impl Session {
    fn start(command: &[String], env: &[(&str, &Path)]) -> Session {
        let mut cmd = Command::new(&command[0]);
        cmd.args(&command[1..]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                if reader.read_until(b'\n', &mut line).unwrap_or(0) == 0 || tx.send(line).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Session { child, stdin, lines, seen: Vec::new(), sent: Vec::new() }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let parsed: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
        let messages = if let Value::Array(items) = parsed { items } else { vec![parsed] };
        for m in messages {
            if m.get("method").is_some()
                && let Some(id) = m.get("id")
            {
                self.sent.push(id.clone());
            }
        }
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, message: &Value) {
        self.send_raw(format!("{message}\n").as_bytes());
    }

    /// The next line, or `None` at the end of the stream.
    fn line(&mut self) -> Option<Vec<u8>> {
        let line = self.lines.recv_timeout(WAIT).ok()?;
        self.seen.push(line.clone());
        Some(line)
    }

    /// Reads until the response with this id: its exact bytes and its value.
    fn response(&mut self, id: &Value) -> (Vec<u8>, Value) {
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            let line = self.line().expect("a response before the end of the stream");
            let v: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
            if v.get("method").is_none() && v.get("id") == Some(id) {
                return (line, v);
            }
        }
        panic!("no response to {id}");
    }

    fn request(&mut self, id: i64, method: &str, params: &Value) -> (Vec<u8>, Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(&json!(id))
    }

    fn initialize(&mut self) -> Vec<u8> {
        let params = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "guard-test", "version": "1"}});
        let (raw, v) = self.request(0, "initialize", &params);
        assert!(v.get("result").is_some(), "{v}");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        raw
    }

    fn call(&mut self, id: i64, tool: &str, arguments: &Value) -> (Vec<u8>, Value) {
        self.request(id, "tools/call", &json!({"name": tool, "arguments": arguments}))
    }

    /// Closes the client's side and returns the exit code and standard error.
    fn close(mut self) -> (i32, String) {
        self.stdin.take();
        let out = self.child.wait_with_output().unwrap();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn bin() -> String {
    env!("CARGO_BIN_EXE_mcp-drift").to_owned()
}

/// `mcp-drift guard ARGS -- SERVER`.
fn guard(args: &[&str], server: &[String]) -> Vec<String> {
    let mut cmd = vec![bin(), "guard".to_owned()];
    cmd.extend(args.iter().map(|s| (*s).to_owned()));
    cmd.push("--".into());
    cmd.extend(server.iter().cloned());
    cmd
}

/// The server's `tools/list` result, asked directly.
fn listing(server: &[String], env: &[(&str, &Path)]) -> Value {
    let mut s = Session::start(server, env);
    s.initialize();
    let (_, v) = s.request(1, "tools/list", &json!({}));
    s.close();
    v["result"].clone()
}

/// Writes `listing` to DIR/list.json and locks it in DIR/mcp-tools.lock.
fn lock(dir: &Path, listing: &Value) -> PathBuf {
    std::fs::write(dir.join("list.json"), listing.to_string()).unwrap();
    let out = Command::new(bin()).current_dir(dir).args(["lock", "list.json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    dir.join("mcp-tools.lock")
}

/// The tools named in the server's call log, in order.
fn calls_logged(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["tool"].as_str().unwrap().to_owned())
        .collect()
}

fn locked_hash(lock: &Path, tool: &str) -> String {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(lock).unwrap()).unwrap();
    v["tools"][tool]["sha256"].as_str().unwrap().to_owned()
}

/// No line the client saw answers a request it did not send: the guard's own traffic stays its own.
fn no_guard_ids(session: &Session) {
    for line in &session.seen {
        let v: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
        let messages = if let Value::Array(items) = v { items } else { vec![v] };
        for m in messages {
            if m.get("method").is_none()
                && let Some(id) = m.get("id").filter(|i| !i.is_null())
            {
                assert!(session.sent.contains(id), "an answer to a request the client never sent: {m}");
            }
        }
    }
}

#[test]
fn unchanged_tools_are_forwarded_byte_for_byte() {
    let Some(s) = servers::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.log");
    let env = [("DRIFT_LOG", log.as_path())];
    let lock = lock(dir.path(), &listing(&s.drift_stdio(), &[]));
    std::fs::remove_file(&log).ok();
    // What the server says to the same requests, directly and through the guard.
    let script = |session: &mut Session| {
        let init = session.initialize();
        let (list, _) = session.request(1, "tools/list", &json!({}));
        let (echo, _) = session.call(2, "echo", &json!({"text": "héllo \u{202e} ::x"}));
        let (search, _) = session.call(3, "search", &json!({"query": "drift", "limit": 2}));
        vec![init, list, echo, search]
    };
    let mut direct = Session::start(&s.drift_stdio(), &env);
    let expected = script(&mut direct);
    direct.close();
    let mut guarded = Session::start(&guard(&["--lock", lock.to_str().unwrap()], &s.drift_stdio()), &env);
    let got = script(&mut guarded);
    no_guard_ids(&guarded);
    let (code, stderr) = guarded.close();
    assert_eq!(code, 0, "{stderr}");
    for (e, g) in expected.iter().zip(&got) {
        assert_eq!(String::from_utf8_lossy(e), String::from_utf8_lossy(g));
    }
    assert!(String::from_utf8_lossy(&got[2]).contains("héllo"));
    assert_eq!(calls_logged(&log), ["echo", "search", "echo", "search"]);
}

#[test]
fn a_drifted_tool_is_refused_and_never_reaches_the_server() {
    let Some(s) = servers::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let lock = lock(dir.path(), &listing(&s.drift_stdio(), &[]));
    let b = PathBuf::from("B");
    let log = dir.path().join("calls.log");
    let env = [("DRIFT_REVISION", b.as_path()), ("DRIFT_LOG", log.as_path())];
    let mut session = Session::start(&guard(&["--lock", lock.to_str().unwrap()], &s.drift_stdio()), &env);
    session.initialize();
    let (_, refused) = session.call(1, "search", &json!({"query": "drift"}));
    let result = &refused["result"];
    assert_eq!(result["isError"], true, "{refused}");
    let sc = &result["structuredContent"];
    assert_eq!(sc["error_code"], "STALE_TOOL_SCHEMA");
    assert_eq!(sc["tool"], "search");
    // The lock is the operator's: refreshing the tool list would not help the agent.
    assert_eq!(sc["required_action"], "operator_review");
    assert_eq!(sc["side_effect_started"], false);
    assert_eq!(sc["locked_hash"], locked_hash(&lock, "search"));
    assert_eq!(sc["changes"][0]["rule"], "input-property-renamed", "{sc}");
    assert_eq!(sc["changes"][0]["severity"], "error", "{sc}");
    assert!(sc["changes"][0]["message"].as_str().unwrap().contains("`query` was renamed to `q`"), "{sc}");
    let current = sc["current_hash"].as_str().unwrap();
    assert!(current.len() == 64 && current != locked_hash(&lock, "search"), "{sc}");
    assert_eq!(sc["rules"], json!(["input-property-renamed"]));
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("`search`") && text.contains("mcp-tools.lock"), "{text}");
    assert!(text.contains("\n- input-property-renamed (error): parameter `query` was renamed to `q`"), "{text}");
    assert!(text.contains("Nothing was executed") && text.contains("reviewed by an operator"), "{text}");
    assert!(!text.contains("Refresh the tool list"), "{text}");

    let (_, refused) = session.call(2, "create_ticket", &json!({"title": "t"}));
    let rules = refused["result"]["structuredContent"]["rules"].as_array().unwrap().clone();
    assert!(
        rules.contains(&json!("input-required-added")) && rules.contains(&json!("input-enum-narrowed")),
        "{rules:?}"
    );
    // The unchanged tool is forwarded.
    let (_, echoed) = session.call(3, "echo", &json!({"text": "still here"}));
    assert_eq!(echoed["result"]["structuredContent"]["result"], "still here", "{echoed}");
    // The client's own tools/list gets the server's answer: revision B, as it is.
    let (_, listed) = session.request(4, "tools/list", &json!({}));
    let search = listed["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "search").unwrap().clone();
    assert!(search["inputSchema"]["properties"].get("q").is_some(), "{search}");
    no_guard_ids(&session);
    let (code, stderr) = session.close();
    assert_eq!(code, 0);
    assert!(stderr.contains("refused tools/call `search`"), "{stderr}");
    assert_eq!(calls_logged(&log), ["echo"], "only the unchanged tool's call reached the server");
}

#[test]
fn a_list_change_mid_session_is_checked_before_the_next_call() {
    let Some(s) = servers::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let lock = lock(dir.path(), &listing(&s.drift_stdio(), &[]));
    let revision = dir.path().join("revision");
    std::fs::write(&revision, "A\n").unwrap();
    let log = dir.path().join("calls.log");
    let audit = dir.path().join("audit.jsonl");
    let env = [("DRIFT_REVISION_FILE", revision.as_path()), ("DRIFT_LOG", log.as_path())];
    let args = ["--lock", lock.to_str().unwrap(), "--audit", audit.to_str().unwrap()];
    let mut session = Session::start(&guard(&args, &s.drift_stdio()), &env);
    session.initialize();
    let (_, hit) = session.call(1, "search", &json!({"query": "a"}));
    assert_eq!(hit["result"]["isError"], false, "{hit}");
    let (_, switched) = session.call(2, "switch_revision", &json!({"revision": "B"}));
    assert_eq!(switched["result"]["isError"], false, "{switched}");
    // The notification reaches the client too.
    assert!(
        session.seen.iter().any(|l| String::from_utf8_lossy(l).contains("notifications/tools/list_changed")),
        "the client saw no list_changed"
    );
    let (_, refused) = session.call(3, "search", &json!({"query": "a"}));
    assert_eq!(refused["result"]["structuredContent"]["error_code"], "STALE_TOOL_SCHEMA", "{refused}");
    // Back to A: the same tool is forwarded again.
    std::fs::write(&revision, "A\n").unwrap();
    let (_, back) = session.call(4, "switch_revision", &json!({"revision": "A"}));
    assert_eq!(back["result"]["isError"], false, "{back}");
    let (_, again) = session.call(5, "search", &json!({"query": "b"}));
    assert_eq!(again["result"]["isError"], false, "{again}");
    // A change without a notification: the client's own tools/list makes the guard look again.
    std::fs::write(&revision, "B\n").unwrap();
    session.request(6, "tools/list", &json!({}));
    let (_, refused) = session.call(7, "search", &json!({"query": "c"}));
    assert_eq!(refused["result"]["structuredContent"]["error_code"], "STALE_TOOL_SCHEMA", "{refused}");
    no_guard_ids(&session);
    assert_eq!(session.close().0, 0);
    assert_eq!(calls_logged(&log), ["search", "switch_revision", "switch_revision", "search"]);

    // One audit line per call, in order.
    let lines: Vec<Value> =
        std::fs::read_to_string(&audit).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let decisions: Vec<(&str, &str, i64)> = lines
        .iter()
        .map(|l| (l["tool"].as_str().unwrap(), l["decision"].as_str().unwrap(), l["id"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        decisions,
        [
            ("search", "forwarded", 1),
            ("switch_revision", "forwarded", 2),
            ("search", "refused", 3),
            ("switch_revision", "forwarded", 4),
            ("search", "forwarded", 5),
            ("search", "refused", 7)
        ]
    );
    let refused = &lines[2];
    assert_eq!(refused["locked_hash"], locked_hash(&lock, "search"));
    assert_ne!(refused["current_hash"], refused["locked_hash"]);
    assert_eq!(refused["rules"], json!(["input-property-renamed"]));
    assert_eq!(lines[0]["current_hash"], lines[0]["locked_hash"]);
    for l in &lines {
        let time = l["time"].as_str().unwrap();
        assert!(time.len() == 24 && time.ends_with('Z') && time.as_bytes()[10] == b'T', "{time}");
    }
}

#[test]
fn allowed_drift_and_a_severity_threshold_forward_calls() {
    let Some(s) = servers::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut a = listing(&s.drift_stdio(), &[]);
    // The lock knows `echo` by an older wording: a reworded description (info) is the only drift.
    for t in a["tools"].as_array_mut().unwrap() {
        if t["name"] == "echo" {
            t["description"] = json!("Echo back the text.");
        }
    }
    let lock = lock(dir.path(), &a);
    let lock = lock.to_str().unwrap();
    let b = PathBuf::from("B");
    let env = [("DRIFT_REVISION", b.as_path())];
    let run = |args: &[&str]| {
        let mut session = Session::start(&guard(args, &s.drift_stdio()), &env);
        session.initialize();
        let echo = session.call(1, "echo", &json!({"text": "x"})).1["result"]["isError"] == true;
        let search = session.call(2, "search", &json!({"q": "x"})).1["result"]["structuredContent"]["error_code"]
            == "STALE_TOOL_SCHEMA";
        let create = session.call(3, "create_ticket", &json!({"title": "x", "project": "p"})).1["result"]["structuredContent"]
            ["error_code"]
            == "STALE_TOOL_SCHEMA";
        assert_eq!(session.close().0, 0);
        (echo, search, create)
    };
    // By default the guard blocks warnings and errors (what can change what a call means), info too when
    // the team's fail-on does: the reworded description (info) passes, the renamed and the newly
    // required parameters do not.
    assert_eq!(run(&["--lock", lock]), (false, true, true));
    let config = |text: &str| {
        let path = dir.path().join(format!("c{}.toml", text.len()));
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    for (text, expected) in [
        ("fail-on = \"info\"\n", (true, true, true)),
        ("fail-on = \"never\"\n", (true, true, true)),
        ("fail-on = \"warning\"\n", (false, true, true)),
        ("fail-on = \"error\"\n", (false, true, true)),
        ("[severity]\ndescription-reworded = \"error\"\n", (true, true, true)),
        ("[severity]\ninput-property-renamed = \"off\"\n", (false, false, true)),
        ("[severity]\ninput-property-renamed = \"info\"\n", (false, false, true)),
    ] {
        assert_eq!(run(&["--lock", lock, "--config", &config(text)]), expected, "{text}");
    }
    assert_eq!(
        run(&["--lock", lock, "--config", &config("fail-on = \"info\"\n"), "--block-on", "error"]),
        (false, true, true)
    );
    assert_eq!(run(&["--lock", lock, "--block-on", "info"]), (true, true, true), "info: any finding refuses");
    assert_eq!(run(&["--lock", lock, "--block-on", "warning"]), (false, true, true));
    assert_eq!(
        run(&["--lock", lock, "--allow-drift", "input-property-renamed", "description-reworded"]),
        (false, false, true)
    );
    assert_eq!(
        run(&["--lock", lock, "--allow-drift", "input-property-renamed", "--block-on", "error"]),
        (false, false, true)
    );

    let out = Command::new(bin())
        .args(["guard", "--lock", lock, "--allow-drift", "input-propery-renamed", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown rule `input-propery-renamed`; did you mean `input-property-renamed`?"),
        "{stderr}"
    );
}

#[test]
fn server_everything_calls_pass_through() {
    let Some(s) = servers::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let lock = lock(dir.path(), &listing(&s.everything_stdio(), &[]));
    let script = |session: &mut Session| {
        session.initialize();
        let (list, _) = session.request(1, "tools/list", &json!({}));
        let (echo, v) = session.call(2, "echo", &json!({"message": "through the guard"}));
        assert!(v["result"]["content"][0]["text"].as_str().unwrap().contains("through the guard"), "{v}");
        let (sum, _) = session.call(3, "get-sum", &json!({"a": 2, "b": 3}));
        (list, echo, sum)
    };
    let mut direct = Session::start(&s.everything_stdio(), &[]);
    let expected = script(&mut direct);
    direct.close();
    let mut guarded = Session::start(&guard(&["--lock", lock.to_str().unwrap()], &s.everything_stdio()), &[]);
    let got = script(&mut guarded);
    no_guard_ids(&guarded);
    let (code, stderr) = guarded.close();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(String::from_utf8_lossy(&expected.0), String::from_utf8_lossy(&got.0));
    assert_eq!(String::from_utf8_lossy(&expected.1), String::from_utf8_lossy(&got.1));
    assert_eq!(String::from_utf8_lossy(&expected.2), String::from_utf8_lossy(&got.2));
}

fn fake() -> Vec<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/guard/fake_server.py");
    vec!["python3".into(), script.display().to_string()]
}

/// A lock of the fake server's two tools (both pages).
fn fake_lock(dir: &Path) -> PathBuf {
    let tools = json!({"tools": [
        {"name": "echo", "description": "Echo the text.",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
        {"name": "add", "description": "Add two numbers.",
         "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}},
    ]});
    lock(dir, &tools)
}

#[test]
fn pages_are_all_read_and_hostile_client_lines_never_reach_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let lock = fake_lock(dir.path());
    let log = dir.path().join("received.log");
    let args = ["--lock", lock.to_str().unwrap(), "--max-message-bytes", "4KiB"];
    let mut session = Session::start(&guard(&args, &fake()), &[("FAKE_LOG", log.as_path())]);
    session.initialize();
    // `add` is on the second page of the guard's own listing.
    let (_, added) = session.call(1, "add", &json!({"a": 1, "b": 2}));
    assert_eq!(added["result"]["content"][0]["text"], "{\"a\": 1, \"b\": 2}", "{added}");
    session.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"},\"x\":NaN}\n",
    );
    let (_, v) = session.response(&Value::Null);
    assert_eq!(v["error"]["code"], -32700, "{v}");
    // An id like the guard's own is an id like any other: the server answers it, to the client.
    session.send(&json!({"jsonrpc": "2.0", "id": "mcp-drift-guard-1", "method": "ping"}));
    let (_, v) = session.response(&json!("mcp-drift-guard-1"));
    assert!(v.get("result").is_some(), "{v}");
    session.send(&json!([{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo"}}]));
    let (_, v) = session.response(&json!(3));
    assert_eq!(v["error"]["code"], -32600, "{v}");
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"{}\"}}}}}}\n",
        "x".repeat(5000)
    );
    session.send_raw(huge.as_bytes());
    let (_, v) = session.response(&Value::Null);
    assert_eq!(v["error"]["code"], -32600, "{v}");
    // A call of a tool the server does not list is refused too.
    let (_, v) = session.call(5, "nonexistent", &json!({}));
    assert_eq!(v["result"]["structuredContent"]["error_code"], "STALE_TOOL_SCHEMA", "{v}");
    // Neither locked nor listed: the agent's mistake, and a refresh shows it.
    assert_eq!(v["result"]["structuredContent"]["required_action"], "refresh_tools", "{v}");
    // Its name reaches standard error escaped.
    let (_, v) = session.call(7, "x\u{1b}]0;owned\u{7}\n::error::forged", &json!({}));
    assert_eq!(v["result"]["isError"], true, "{v}");
    // And the session still works.
    let (_, echoed) = session.call(6, "echo", &json!({"text": "ok"}));
    assert_eq!(echoed["result"]["content"][0]["text"], "{\"text\": \"ok\"}", "{echoed}");
    no_guard_ids(&session);
    let (code, stderr) = session.close();
    assert_eq!(code, 0);
    assert!(stderr.contains("`x\\u{1b}]0;owned\\u{7}\\n::error::forged`"), "{stderr}");
    assert!(!stderr.contains('\u{1b}') && !stderr.lines().any(|l| l.starts_with("::")), "{stderr}");
    let received = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<&str> = received.lines().filter(|l| l.contains("tools/call")).collect();
    assert_eq!(calls.len(), 2, "{received}");
    assert!(calls[0].contains("\"add\"") && calls[1].contains("\"ok\""), "{received}");
    // The guard's own listing, two pages, before each of the four calls it decided.
    assert_eq!(received.lines().filter(|l| l.contains("tools/list")).count(), 8, "{received}");
    // The server sees number ids only, each once, the client's and the guard's from one counter.
    let ids: Vec<u64> = received
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|m| m.get("id").and_then(Value::as_u64))
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(ids, sorted, "{received}");
    assert!(!received.contains("mcp-drift-guard-"), "{received}");
}

#[test]
fn a_listing_that_loops_or_never_comes_refuses_calls_it_cannot_check() {
    let dir = tempfile::tempdir().unwrap();
    let lock = fake_lock(dir.path());
    let log = dir.path().join("received.log");
    for (mode, reason) in [("loop", "loop back to a cursor"), ("silent", "did not answer tools/list within 0.5 s")] {
        let m = PathBuf::from(mode);
        let args = ["--lock", lock.to_str().unwrap(), "--timeout", "500ms"];
        let mut session =
            Session::start(&guard(&args, &fake()), &[("FAKE_MODE", m.as_path()), ("FAKE_LOG", log.as_path())]);
        session.initialize();
        let (_, v) = session.call(1, "echo", &json!({"text": "x"}));
        let sc = &v["result"]["structuredContent"];
        assert_eq!(sc["error_code"], "TOOL_CHECK_FAILED", "{v}");
        assert_eq!(sc["side_effect_started"], false);
        assert!(sc["reason"].as_str().unwrap().contains(reason), "{v}");
        assert_eq!(session.close().0, 0);
    }
    let received = std::fs::read_to_string(&log).unwrap();
    assert!(!received.lines().any(|l| l.contains("tools/call")), "{received}");
}

#[test]
fn the_server_exit_code_is_passed_on() {
    let dir = tempfile::tempdir().unwrap();
    let lock = fake_lock(dir.path());
    let lock = lock.to_str().unwrap();
    // The client closes; the server exits with its own code.
    let three = PathBuf::from("3");
    let mut session = Session::start(&guard(&["--lock", lock], &fake()), &[("FAKE_EXIT", three.as_path())]);
    session.initialize();
    assert_eq!(session.close().0, 3);
    // The server dies during a call: the client's stream ends, the code is the server's.
    let exit = PathBuf::from("exit");
    let mut session = Session::start(&guard(&["--lock", lock], &fake()), &[("FAKE_MODE", exit.as_path())]);
    session.initialize();
    session
        .send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {}}}));
    let started = Instant::now();
    while session.line().is_some() {}
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(session.close().0, 7);
    // A server that cannot be started is an error of the guard.
    let out = Command::new(bin()).args(["guard", "--lock", lock, "--", "/nonexistent/server"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start the server"));
}

#[test]
fn what_the_server_left_running_in_its_group_ends_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let lock = fake_lock(dir.path());
    let pidfile = dir.path().join("pid");
    let script =
        format!("sleep 300 </dev/null >/dev/null 2>&1 & echo $! > '{}'; exec {}", pidfile.display(), fake().join(" "));
    let server = vec!["sh".to_owned(), "-c".to_owned(), script];
    let mut session = Session::start(&guard(&["--lock", lock.to_str().unwrap()], &server), &[]);
    session.initialize();
    let pid = std::fs::read_to_string(&pidfile).unwrap().trim().to_owned();
    let alive = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| stat.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')))
    };
    assert!(alive(), "the server's background child runs");
    assert_eq!(session.close().0, 0);
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!alive(), "the guard's exit leaves the server's child {pid} running");
}

#[test]
fn calls_that_wait_for_the_check_keep_their_order_and_can_be_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let lock = fake_lock(dir.path());
    let log = dir.path().join("received.log");
    let audit = dir.path().join("audit.jsonl");
    let args = ["--lock", lock.to_str().unwrap(), "--audit", audit.to_str().unwrap()];
    let mut session = Session::start(&guard(&args, &fake()), &[("FAKE_LOG", log.as_path())]);
    session.initialize();
    // All sent before the guard's own listing (two pages) can have come back.
    for i in 1..=5 {
        session.send(&json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "echo", "arguments": {"n": i}}}));
    }
    for i in 1..=5 {
        let (_, v) = session.response(&json!(i));
        assert_eq!(v["result"]["content"][0]["text"], format!("{{\"n\": {i}}}"), "{v}");
    }
    assert_eq!(session.close().0, 0);
    let received = std::fs::read_to_string(&log).unwrap();
    let order: Vec<i64> = received
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["method"] == "tools/call")
        .map(|v| v["params"]["arguments"]["n"].as_i64().unwrap())
        .collect();
    assert_eq!(order, [1, 2, 3, 4, 5]);

    // A call that still waits (the server never answers the guard's listing) is dropped when cancelled.
    let silent = PathBuf::from("silent");
    let args = ["--lock", lock.to_str().unwrap(), "--audit", audit.to_str().unwrap(), "--timeout", "1"];
    let mut session =
        Session::start(&guard(&args, &fake()), &[("FAKE_MODE", silent.as_path()), ("FAKE_LOG", log.as_path())]);
    session.initialize();
    session.send(
        &json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "echo", "arguments": {}}}),
    );
    session.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 10}}));
    session.send(
        &json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "echo", "arguments": {}}}),
    );
    let (_, v) = session.response(&json!(11));
    assert_eq!(v["result"]["structuredContent"]["error_code"], "TOOL_CHECK_FAILED", "{v}");
    assert_eq!(session.close().0, 0);
    // The server sees ids of the guard's: count the calls instead (the five of the first session).
    assert_eq!(calls_received(&log), 5, "a cancelled call reached the server");
    let audit = std::fs::read_to_string(&audit).unwrap();
    let last: Vec<Value> = audit.lines().rev().take(2).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(last[1]["id"], 10);
    assert_eq!(last[1]["reason"], "cancelled by the client while waiting");
    assert_eq!(last[0]["id"], 11);
    assert_eq!(last[0]["decision"], "refused");
}

/// Whether the server received a tools/call with this id.
/// How many `tools/call`s the server received.
fn calls_received(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["method"] == "tools/call")
        .count()
}

#[test]
fn at_most_256_calls_wait_for_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let lock = fake_lock(dir.path());
    let silent = PathBuf::from("silent");
    let args = ["--lock", lock.to_str().unwrap(), "--timeout", "60s"];
    let mut session = Session::start(&guard(&args, &fake()), &[("FAKE_MODE", silent.as_path())]);
    session.initialize();
    let mut burst = String::new();
    for i in 1..=257 {
        let call =
            json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "echo", "arguments": {}}});
        burst.push_str(&call.to_string());
        burst.push('\n');
    }
    session.send_raw(burst.as_bytes());
    // The 257th is answered at once; the others still wait.
    let (_, v) = session.response(&json!(257));
    assert_eq!(v["result"]["structuredContent"]["error_code"], "TOOL_CHECK_FAILED", "{v}");
    assert!(v["result"]["structuredContent"]["reason"].as_str().unwrap().contains("too many calls"), "{v}");
    assert_eq!(session.seen.len(), 2, "only initialize and the 257th were answered");
    assert_eq!(session.close().0, 0);
}

#[test]
fn a_silent_switch_refuses_the_very_next_call() {
    let Some(s) = servers::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let lock = lock(dir.path(), &listing(&s.drift_stdio(), &[]));
    let revision = dir.path().join("revision");
    let log = dir.path().join("calls.log");
    let env = [("DRIFT_REVISION_FILE", revision.as_path()), ("DRIFT_LOG", log.as_path())];
    // Revision A, one call; then the server serves B (`query` renamed `q`) without a notification.
    // The second call's arguments run under either revision (FastMCP ignores unknown arguments).
    let run = |extra: &[&str]| -> Value {
        std::fs::write(&revision, "A\n").unwrap();
        std::fs::remove_file(&log).ok();
        let mut args = vec!["--lock", lock.to_str().unwrap()];
        args.extend_from_slice(extra);
        let mut session = Session::start(&guard(&args, &s.drift_stdio()), &env);
        session.initialize();
        let (_, hit) = session.call(1, "search", &json!({"query": "before"}));
        assert_eq!(hit["result"]["isError"], false, "{hit}");
        std::fs::write(&revision, "B\n").unwrap();
        let (_, second) = session.call(2, "search", &json!({"query": "after", "q": "after"}));
        assert!(!session.seen.iter().any(|l| String::from_utf8_lossy(l).contains("list_changed")));
        no_guard_ids(&session);
        assert_eq!(session.close().0, 0);
        second
    };
    let refused = run(&[]);
    let sc = &refused["result"]["structuredContent"];
    assert_eq!(sc["error_code"], "STALE_TOOL_SCHEMA", "{refused}");
    assert_eq!(sc["rules"], json!(["input-property-renamed"]), "{refused}");
    assert_eq!(sc["side_effect_started"], false);
    let logged = std::fs::read_to_string(&log).unwrap();
    assert_eq!(calls_logged(&log), ["search"], "{logged}");
    assert!(logged.contains("before") && !logged.contains("after"), "the drifted call ran: {logged}");
    // `--recheck on-notify` (the old behaviour) does not see the switch: the call runs under B.
    let ran = run(&["--recheck", "on-notify"]);
    assert_eq!(ran["result"]["isError"], false, "{ran}");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains(r#""q": "after""#), "{logged}");
}

#[test]
fn a_destructive_tool_whose_description_alone_changed_silently_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tool = |description: &str| {
        json!({"name": "delete_ticket", "description": description,
               "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
               "annotations": {"destructiveHint": true}})
    };
    let tools = dir.path().join("tools.json");
    std::fs::write(&tools, json!([tool("Delete the ticket.")]).to_string()).unwrap();
    let lock = lock(dir.path(), &json!({"tools": [tool("Delete the ticket.")]}));
    let log = dir.path().join("received.log");
    let env = [("FAKE_TOOLS", tools.as_path()), ("FAKE_LOG", log.as_path())];
    let mut session = Session::start(&guard(&["--lock", lock.to_str().unwrap()], &fake()), &env);
    session.initialize();
    let (_, first) = session.call(1, "delete_ticket", &json!({"id": "T-1"}));
    assert_eq!(first["result"]["content"][0]["text"], r#"{"id": "T-1"}"#, "{first}");
    std::fs::write(&tools, json!([tool("Erase every customer record in the account.")]).to_string()).unwrap();
    let (_, second) = session.call(2, "delete_ticket", &json!({"id": "T-2"}));
    let sc = &second["result"]["structuredContent"];
    assert_eq!(sc["error_code"], "STALE_TOOL_SCHEMA", "{second}");
    assert!(sc["rules"].as_array().unwrap().contains(&json!("description-meaning-changed")), "{second}");
    assert_eq!(session.close().0, 0);
    let received = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<&str> = received.lines().filter(|l| l.contains("tools/call")).collect();
    assert_eq!(calls.len(), 1, "{received}");
    assert!(calls[0].contains("T-1"), "{received}");
}

/// The smuggling line: one progress notification to a JSON parser; three lines to a reader that ends
/// lines at a bare CR, the second of them a `tools/call` of `search` under revision B's contract.
const SMUGGLED: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":1,\"x\":\r{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":{\"q\":\"smuggled\"}}}\r}}\n";

#[test]
fn a_call_hidden_behind_bare_carriage_returns_never_runs_on_the_python_sdk() {
    let Some(s) = servers::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let lock = lock(dir.path(), &listing(&s.drift_stdio(), &[]));
    let b = PathBuf::from("B");
    let log = dir.path().join("calls.log");
    let env = [("DRIFT_REVISION", b.as_path()), ("DRIFT_LOG", log.as_path())];
    // The attack is real: sent straight to the official SDK's stdio server, the hidden call runs.
    let mut direct = Session::start(&s.drift_stdio(), &env);
    direct.initialize();
    direct.send_raw(SMUGGLED);
    direct.call(10, "echo", &json!({"text": "sync"}));
    direct.close();
    assert_eq!(calls_logged(&log), ["search", "echo"], "the SDK no longer splits at a bare CR");
    std::fs::remove_file(&log).unwrap();
    // Through the guard, the server gets the one message the guard judged.
    let mut session = Session::start(&guard(&["--lock", lock.to_str().unwrap()], &s.drift_stdio()), &env);
    session.initialize();
    session.send_raw(SMUGGLED);
    let (_, echoed) = session.call(10, "echo", &json!({"text": "after"}));
    assert_eq!(echoed["result"]["isError"], false, "{echoed}");
    let answered_9 = session.seen.iter().any(|l| serde_json::from_slice::<Value>(l).is_ok_and(|v| v["id"] == 9));
    assert!(!answered_9, "the hidden call was answered");
    assert_eq!(session.close().0, 0);
    let logged = std::fs::read_to_string(&log).unwrap();
    assert_eq!(calls_logged(&log), ["echo"], "{logged}");
}

#[test]
fn messages_that_could_mean_two_things_never_reach_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let lock = fake_lock(dir.path());
    let log = dir.path().join("received.log");
    let audit = dir.path().join("audit.jsonl");
    let args = ["--lock", lock.to_str().unwrap(), "--audit", audit.to_str().unwrap()];
    let mut session = Session::start(&guard(&args, &fake()), &[("FAKE_LOG", log.as_path())]);
    session.initialize();
    let hostile: Vec<(String, Value, i64)> = vec![
        // Duplicate keys: the guard would judge one name, a first-wins server call the other.
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nonexistent","name":"echo"}}"#.into(),
            json!(null),
            -32700,
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"ping","method":"tools/call","params":{"name":"echo"}}"#.into(),
            json!(null),
            -32700,
        ),
        // Method names a lenient server may route to tools/call.
        (
            json!({"jsonrpc": "2.0", "id": 3, "method": "Tools/Call", "params": {"name": "echo"}}).to_string(),
            json!(3),
            -32601,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call ", "params": {"name": "echo"}}).to_string(),
            json!(4),
            -32601,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools\u{2215}call", "params": {"name": "echo"}}).to_string(),
            json!(5),
            -32601,
        ),
        // A call with the guard's own id: its answer would have been swallowed as the guard's.
        // Nested batches and a call inside a batch.
        (
            json!([[{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "echo"}}]]).to_string(),
            json!(null),
            -32600,
        ),
        (
            json!([{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo"}}]).to_string(),
            json!(7),
            -32600,
        ),
        // A call wrapped as the member of something that is not a message.
        (
            json!({"x": {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "echo"}}}).to_string(),
            json!(null),
            -32600,
        ),
    ];
    for (line, id, code) in &hostile {
        session.send_raw(format!("{line}\n").as_bytes());
        let (_, v) = session.response(id);
        assert_eq!(v["error"]["code"], *code, "{line}: {v}");
    }
    let (_, echoed) = session.call(20, "echo", &json!({"text": "ok"}));
    assert_eq!(echoed["result"]["content"][0]["text"], "{\"text\": \"ok\"}", "{echoed}");
    assert_eq!(session.close().0, 0);
    let received = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<&str> = received.lines().filter(|l| l.to_lowercase().contains("call")).collect();
    assert_eq!(calls.len(), 1, "{received}");
    assert!(calls[0].contains("\"ok\""), "{received}");
}

#[test]
fn batched_list_changes_and_listings_are_noticed_on_notify() {
    let dir = tempfile::tempdir().unwrap();
    let tool = |name: &str, description: &str| {
        json!({"name": name, "description": description,
               "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}})
    };
    let before = json!([tool("echo", "Echo the text."), tool("notify", "Say that the tools changed.")]);
    let after = json!([tool("echo", "Erase every customer record."), tool("notify", "Say that the tools changed.")]);
    let lock = lock(dir.path(), &json!({"tools": before}));
    let tools = dir.path().join("tools.json");
    let log = dir.path().join("received.log");
    let env = [("FAKE_TOOLS", tools.as_path()), ("FAKE_LOG", log.as_path())];
    let args = ["--lock", lock.to_str().unwrap(), "--recheck", "on-notify"];
    let echo = |session: &mut Session, id: i64| {
        session.call(id, "echo", &json!({"text": id.to_string()})).1["result"]["structuredContent"]["error_code"]
            == "STALE_TOOL_SCHEMA"
    };
    // The server says so in a batch.
    std::fs::write(&tools, before.to_string()).unwrap();
    let mut session = Session::start(&guard(&args, &fake()), &env);
    session.initialize();
    assert!(!echo(&mut session, 1));
    std::fs::write(&tools, after.to_string()).unwrap();
    session.call(2, "notify", &json!({}));
    assert!(echo(&mut session, 3), "a batched list_changed was not noticed");
    assert_eq!(session.close().0, 0);
    // The client lists in a batch.
    std::fs::write(&tools, before.to_string()).unwrap();
    let mut session = Session::start(&guard(&args, &fake()), &env);
    session.initialize();
    assert!(!echo(&mut session, 4));
    std::fs::write(&tools, after.to_string()).unwrap();
    session.send(&json!([{"jsonrpc": "2.0", "id": 5, "method": "tools/list"}]));
    assert!(echo(&mut session, 6), "a batched tools/list was not noticed");
    assert_eq!(session.close().0, 0);
    let received = std::fs::read_to_string(&log).unwrap();
    let echoed: Vec<&str> = received.lines().filter(|l| l.contains("tools/call") && l.contains("\"echo\"")).collect();
    assert_eq!(echoed.len(), 2, "{received}");
    assert!(!received.contains("\"3\"") && !received.contains("\"6\""), "{received}");
}

#[test]
fn arguments_the_locked_contract_rejects_never_reach_the_server() {
    let Some(s) = servers::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let lock = lock(dir.path(), &listing(&s.drift_stdio(), &[]));
    let log = dir.path().join("calls.log");
    let audit = dir.path().join("audit.jsonl");
    let env = [("DRIFT_LOG", log.as_path())];
    let args = ["--lock", lock.to_str().unwrap(), "--audit", audit.to_str().unwrap()];
    let mut session = Session::start(&guard(&args, &s.drift_stdio()), &env);
    session.initialize();
    // Revision A's `search` needs `query`: a call with B's `q` does not fit the approved contract.
    let (_, v) = session.call(1, "search", &json!({"q": "x"}));
    let sc = &v["result"]["structuredContent"];
    assert_eq!(sc["error_code"], "STALE_TOOL_SCHEMA", "{v}");
    assert_eq!(sc["required_action"], "refresh_tools", "{v}");
    assert_eq!(sc["side_effect_started"], false);
    assert_eq!(sc["violations"], json!(["`query` is a required property"]), "{v}");
    assert_eq!(sc["current_hash"], locked_hash(&lock, "search"));
    let text = v["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("Refresh the tool list") && text.contains("`query` is a required property"), "{text}");
    let (_, v) = session.call(2, "create_ticket", &json!({"title": "t", "priority": "urgent"}));
    let violations = v["result"]["structuredContent"]["violations"].to_string();
    assert!(violations.contains("not one of") && violations.contains("/priority"), "{v}");
    let (_, v) = session.call(3, "search", &json!({"query": "fits", "limit": 1}));
    assert_eq!(v["result"]["isError"], false, "{v}");
    assert_eq!(session.close().0, 0);
    assert_eq!(calls_logged(&log), ["search"]);
    let audit = std::fs::read_to_string(&audit).unwrap();
    let first: Value = serde_json::from_str(audit.lines().next().unwrap()).unwrap();
    assert_eq!(first["decision"], "refused");
    assert!(first["reason"].as_str().unwrap().contains("inputSchema"), "{first}");
}

#[test]
fn results_the_locked_output_schema_rejects_are_audited_or_replaced() {
    let dir = tempfile::tempdir().unwrap();
    // The fake server returns the arguments as structuredContent.
    let tools = json!([{"name": "count", "description": "Count.",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}]);
    let lock = lock(dir.path(), &json!({"tools": tools}));
    let file = dir.path().join("tools.json");
    std::fs::write(&file, tools.to_string()).unwrap();
    let log = dir.path().join("received.log");
    let env = [("FAKE_TOOLS", file.as_path()), ("FAKE_LOG", log.as_path())];
    for enforce in [false, true] {
        let audit = dir.path().join(format!("audit-{enforce}.jsonl"));
        let mut args = vec!["--lock", lock.to_str().unwrap(), "--audit", audit.to_str().unwrap()];
        if enforce {
            args.push("--enforce-results");
        }
        let mut session = Session::start(&guard(&args, &fake()), &env);
        session.initialize();
        let (_, fits) = session.call(1, "count", &json!({"n": 7}));
        assert_eq!(fits["result"]["structuredContent"], json!({"n": 7}), "{fits}");
        let (_, bad) = session.call(2, "count", &json!({"n": "seven"}));
        if enforce {
            assert_eq!(bad["result"]["isError"], true, "{bad}");
            assert!(bad["result"].get("structuredContent").is_none(), "{bad}");
            let text = bad["result"]["content"][0]["text"].as_str().unwrap();
            assert!(text.contains("withheld the result of `count`") && text.contains("/n"), "{text}");
        } else {
            assert_eq!(bad["result"]["structuredContent"], json!({"n": "seven"}), "{bad}");
        }
        let (code, stderr) = session.close();
        assert_eq!(code, 0);
        assert!(stderr.contains("does not fit its locked outputSchema"), "{stderr}");
        let lines: Vec<Value> =
            std::fs::read_to_string(&audit).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let result = lines.iter().find(|l| l["decision"].as_str().unwrap().starts_with("result-")).unwrap();
        assert_eq!(result["decision"], if enforce { "result-replaced" } else { "result-rejected" }, "{result}");
        assert_eq!((&result["tool"], &result["id"]), (&json!("count"), &json!(2)));
        assert_eq!(lines.iter().filter(|l| l["decision"].as_str().unwrap().starts_with("result-")).count(), 1);
    }
}

#[test]
fn a_signal_to_guard_or_capture_ends_the_server_and_its_group() {
    for (command, signal, code) in
        [("guard", "TERM", 143), ("guard", "INT", 130), ("capture", "TERM", 143), ("capture", "INT", 130)]
    {
        let dir = tempfile::tempdir().unwrap();
        let lock = fake_lock(dir.path());
        let pidfile = dir.path().join("pid");
        // A server that ignores SIGTERM and the end of its input, with a child of its own: only SIGKILL
        // to the group ends it. Silent: `capture` waits for its tools/list.
        let script = format!(
            "trap '' TERM; sleep 300 </dev/null >/dev/null 2>&1 & echo $! > '{}'; FAKE_MODE=silent {}; sleep 300",
            pidfile.display(),
            fake().join(" ")
        );
        let server = vec!["sh".to_owned(), "-c".to_owned(), script];
        let argv = if command == "guard" {
            guard(&["--lock", lock.to_str().unwrap()], &server)
        } else {
            [vec![bin(), "capture".to_owned(), "--".to_owned()], server].concat()
        };
        let mut session = Session::start(&argv, &[]);
        if command == "guard" {
            session.initialize();
        }
        let deadline = Instant::now() + WAIT;
        while std::fs::read_to_string(&pidfile).map_or(true, |p| !p.ends_with('\n')) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let pid = std::fs::read_to_string(&pidfile).unwrap().trim().to_owned();
        let alive = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|stat| stat.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')))
        };
        assert!(alive(), "the server's child runs");
        let me = session.child.id().to_string();
        assert!(Command::new("kill").args([format!("-{signal}"), me]).status().unwrap().success());
        let started = Instant::now();
        let status = loop {
            if let Some(status) = session.child.try_wait().unwrap() {
                break status;
            }
            assert!(started.elapsed() < Duration::from_secs(15), "{command} did not end on SIG{signal}");
            std::thread::sleep(Duration::from_millis(20));
        };
        // `capture` may report the server it just stopped as a failure (exit 2, nothing written) before
        // its signal exit: either way the run ends and the group is gone (checked below).
        assert!(
            status.code() == Some(code) || (command == "capture" && status.code() == Some(2)),
            "{command} SIG{signal}: {status:?}"
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        while alive() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!alive(), "SIG{signal} to {command} left the server's child {pid} running");
    }
}

#[test]
fn capture_into_a_pipe_that_closes_early_does_not_panic() {
    let dir = tempfile::tempdir().unwrap();
    // A listing far larger than a pipe's buffer: the reader is gone before the last byte is written.
    let tools: Vec<Value> = (0..3000)
        .map(|i| json!({"name": format!("t{i}"), "description": "x".repeat(200), "inputSchema": {"type": "object"}}))
        .collect();
    let file = dir.path().join("tools.json");
    std::fs::write(&file, Value::Array(tools).to_string()).unwrap();
    let script =
        format!("'{}' capture -- {} 2>&1 | head -c1 >/dev/null; exit ${{PIPESTATUS[0]}}", bin(), fake().join(" "));
    for _ in 0..3 {
        let out = Command::new("bash").args(["-c", &script]).env("FAKE_TOOLS", &file).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn a_server_that_shows_the_client_another_listing_than_the_guard_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tool = |description: &str| {
        json!({"name": "echo", "description": description,
               "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}})
    };
    let honest = json!([tool("Echo the text.")]);
    let lock = lock(dir.path(), &json!({"tools": honest}));
    let (file, lie) = (dir.path().join("tools.json"), dir.path().join("lie.json"));
    std::fs::write(&file, honest.to_string()).unwrap();
    std::fs::write(&lie, json!([tool("Erase every customer record.")]).to_string()).unwrap();
    let log = dir.path().join("received.log");
    let env = [("FAKE_TOOLS", file.as_path()), ("FAKE_LIE", lie.as_path()), ("FAKE_LOG", log.as_path())];
    let mut session = Session::start(&guard(&["--lock", lock.to_str().unwrap()], &fake()), &env);
    session.initialize();
    // Before the client lists, only the guard's listing counts: it matches the lock.
    let (_, first) = session.call(1, "echo", &json!({"text": "a"}));
    assert_eq!(first["result"]["content"][0]["text"], r#"{"text": "a"}"#, "{first}");
    let (_, shown) = session.request(2, "tools/list", &json!({}));
    assert_eq!(shown["result"]["tools"][0]["description"], "Erase every customer record.");
    let (_, refused) = session.call(3, "echo", &json!({"text": "b"}));
    let sc = &refused["result"]["structuredContent"];
    assert_eq!(sc["error_code"], "STALE_TOOL_SCHEMA", "{refused}");
    assert_eq!(sc["required_action"], "operator_review", "{refused}");
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("showed the client another contract"), "{text}");
    assert_eq!(session.close().0, 0);
    let received = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<&str> = received.lines().filter(|l| l.contains("tools/call")).collect();
    assert_eq!(calls.len(), 1, "{received}");
}

/// A listing over 64 KiB is read tool by tool (never held as values whole): an unchanged one passes,
/// one changed tool among 300 is refused with its rule, and the client's own listing reaches it
/// byte for byte with its id back, a lie in it still caught.
#[test]
fn a_large_listing_is_judged_as_a_small_one() {
    let dir = tempfile::tempdir().unwrap();
    let many = |required: &[&str], description: &str| -> Value {
        let tools: Vec<Value> = (0..300)
            .map(|i| {
                json!({"name": format!("t{i}"), "description": format!("{description} {}", "x".repeat(300)),
                    "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}},
                    "required": if i == 7 { required.to_vec() } else { Vec::new() }}})
            })
            .collect();
        Value::Array(tools)
    };
    let honest = many(&[], "Search.");
    let lock = lock(dir.path(), &json!({ "tools": honest }));
    let (file, log) = (dir.path().join("tools.json"), dir.path().join("received.log"));
    std::fs::write(&file, honest.to_string()).unwrap();
    assert!(honest.to_string().len() > 100_000);
    let env = [("FAKE_TOOLS", file.as_path()), ("FAKE_LOG", log.as_path())];
    let mut session = Session::start(&guard(&["--lock", lock.to_str().unwrap()], &fake()), &env);
    session.initialize();
    let (_, ok) = session.call(1, "t7", &json!({"q": "a"}));
    assert_eq!(ok["result"]["content"][0]["text"], r#"{"q": "a"}"#, "{ok}");
    // The client's listing, as the server wrote it but for the id.
    let (raw, shown) = session.request(2, "tools/list", &json!({}));
    assert_eq!(shown["result"]["tools"], honest);
    assert!(String::from_utf8_lossy(&raw).starts_with(r#"{"jsonrpc": "2.0", "id": 2, "result": "#));
    // One tool of 300 changes without a notification.
    std::fs::write(&file, many(&["q"], "Search.").to_string()).unwrap();
    let (_, refused) = session.call(3, "t7", &json!({"q": "b"}));
    assert_eq!(refused["result"]["structuredContent"]["rules"], json!(["input-required-added"]), "{refused}");
    let (_, other) = session.call(4, "t8", &json!({"q": "c"}));
    assert_eq!(other["result"]["isError"], Value::Null, "{other}");
    no_guard_ids(&session);
    assert_eq!(session.close().0, 0);
    assert_eq!(calls_received(&log), 2);
}

/// A server message that is no JSON-RPC message (`"method": null` beside a result: the Python SDK
/// took it for the answer to its `tools/list`, attack B1 of the #32 pass) never reaches the client;
/// nor does a cancellation of a request never sent, even with `"id": null`; a numeric id that would
/// come back in another spelling is refused.
#[test]
fn what_is_no_message_or_no_request_never_passes() {
    let dir = tempfile::tempdir().unwrap();
    let lock = fake_lock(dir.path());
    let log = dir.path().join("received.log");
    let forge = PathBuf::from("1");
    let env = [("FAKE_FORGE", forge.as_path()), ("FAKE_LOG", log.as_path())];
    let mut session = Session::start(&guard(&["--lock", lock.to_str().unwrap()], &fake()), &env);
    session.initialize();
    let (_, listed) = session.request(1, "tools/list", &json!({}));
    assert_eq!(listed["result"]["tools"][0]["name"], "echo", "{listed}");
    let (_, called) = session.call(2, "echo", &json!({"text": "ok"}));
    assert_eq!(called["result"]["content"][0]["text"], r#"{"text": "ok"}"#, "{called}");
    assert!(
        !session.seen.iter().any(|l| String::from_utf8_lossy(l).contains("forged")),
        "a forged answer reached the client"
    );
    session
        .send(&json!({"jsonrpc": "2.0", "id": null, "method": "notifications/cancelled", "params": {"requestId": 77}}));
    session.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1e2,\"method\":\"ping\"}\n");
    let (_, v) = session.response(&Value::Null);
    assert_eq!(v["error"]["code"], -32600, "{v}");
    no_guard_ids(&session);
    assert_eq!(session.close().0, 0);
    let received = std::fs::read_to_string(&log).unwrap();
    assert!(!received.contains("notifications/cancelled"), "{received}");
    assert!(!received.contains("\"ping\""), "{received}");
}

/// The guard's own listing takes the shape of the client's last `tools/list` (the Python SDK sends
/// no `params`, and the guard's `"params": {}` told a server which listing was the guard's: B2 of
/// the #32 pass).
#[test]
fn the_guards_listing_looks_like_the_clients() {
    let dir = tempfile::tempdir().unwrap();
    let lock = fake_lock(dir.path());
    let log = dir.path().join("received.log");
    let mut session =
        Session::start(&guard(&["--lock", lock.to_str().unwrap()], &fake()), &[("FAKE_LOG", log.as_path())]);
    session.initialize();
    session.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    session.response(&json!(1));
    let (_, called) = session.call(2, "echo", &json!({"text": "ok"}));
    assert_eq!(called["result"]["content"][0]["text"], r#"{"text": "ok"}"#, "{called}");
    assert_eq!(session.close().0, 0);
    let received = std::fs::read_to_string(&log).unwrap();
    let lists: Vec<Value> = received
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["method"] == "tools/list")
        .collect();
    // The client's, then the guard's two pages before the call: the first page as the client's.
    assert!(lists.len() >= 2, "{received}");
    assert!(lists[0].get("params").is_none(), "{received}");
    let first_page_after = lists.iter().skip(1).find(|m| m.pointer("/params/cursor").is_none()).expect("a first page");
    assert!(first_page_after.get("params").is_none(), "{received}");
}
