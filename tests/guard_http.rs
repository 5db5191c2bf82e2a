//! `mcp-drift guard --url` (issue #32, "Remote servers"): the guard in front of a streamable HTTP
//! server, with the same discipline as over stdio. Real servers in HTTP mode on loopback: the drift
//! server (the official Python SDK, `FastMCP` in `streamable-http`, its own log of the calls that reached it)
//! and server-everything (official TypeScript SDK); the official Python SDK's client on the other side
//! where a real client matters; a misbehaving fake (`tests/servers/fake_http.py`) for redirects.

mod servers;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(30);

fn bin() -> String {
    env!("CARGO_BIN_EXE_mcp-drift").to_owned()
}

/// A scripted JSON-RPC client of the guard's stdin and stdout.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
}

impl Client {
    fn start(args: &[String], env: &[(&str, &str)]) -> Client {
        let mut child = Command::new(bin())
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the guard");
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
        Client { child, stdin, lines }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(format!("{message}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, id: i64, method: &str, params: &Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.lines.recv_timeout(WAIT).expect("a response in time");
            let v: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
            if v.get("method").is_none() && v.get("id") == Some(&json!(id)) {
                return v;
            }
        }
    }

    fn initialize(&mut self) {
        let params = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "guard-http-test", "version": "1"}});
        let v = self.request(0, "initialize", &params);
        assert!(v.get("result").is_some(), "{v}");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    fn call(&mut self, id: i64, tool: &str, arguments: &Value) -> Value {
        self.request(id, "tools/call", &json!({"name": tool, "arguments": arguments}))
    }

    /// Closes the client's side; the guard's exit code, stdout and stderr.
    fn close(mut self) -> (i32, String) {
        self.stdin.take();
        let out = self.child.wait_with_output().unwrap();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// `capture --url` then `lock`: DIR/mcp-tools.lock.
fn lock_of(dir: &Path, url: &str) -> std::path::PathBuf {
    let out = Command::new(bin())
        .current_dir(dir)
        .args(["capture", "--url", url, "-o", "list.json", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new(bin()).current_dir(dir).args(["lock", "list.json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    dir.join("mcp-tools.lock")
}

fn calls_logged(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect()
}

/// A server that moves its contract under a running session over HTTP, without a notification, gets
/// no call under the new contract: the guard re-lists over HTTP before the call and refuses it; the
/// server's own log shows the drifted call never ran. Headers given with `--header` and
/// `--header-env` appear nowhere in what the guard prints or audits.
#[test]
fn silent_drift_over_http_is_refused_and_never_reaches_the_server() {
    let Some(s) = servers::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let revision = dir.path().join("revision");
    let log = dir.path().join("calls.log");
    std::fs::write(&revision, "A\n").unwrap();
    let server =
        s.drift_http(&[("DRIFT_REVISION_FILE", revision.to_str().unwrap()), ("DRIFT_LOG", log.to_str().unwrap())]);
    let lock = lock_of(dir.path(), &server.url());
    std::fs::remove_file(&log).ok();
    let audit = dir.path().join("audit.jsonl");
    let secret = "s3cret-header-value-4711";
    let args: Vec<String> = [
        "guard",
        "--lock",
        lock.to_str().unwrap(),
        "--audit",
        audit.to_str().unwrap(),
        "--url",
        &server.url(),
        "--header",
        &format!("X-Test-Secret: {secret}"),
        "--header-env",
        "X-Other=GUARD_HTTP_TEST_SECRET",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let mut client = Client::start(&args, &[("GUARD_HTTP_TEST_SECRET", secret)]);
    client.initialize();
    let hit = client.call(1, "search", &json!({"query": "before"}));
    assert_eq!(hit["result"]["isError"], false, "{hit}");
    std::fs::write(&revision, "B\n").unwrap();
    let refused = client.call(2, "search", &json!({"query": "after", "q": "after"}));
    let sc = &refused["result"]["structuredContent"];
    assert_eq!(sc["error_code"], "STALE_TOOL_SCHEMA", "{refused}");
    assert_eq!(sc["rules"], json!(["input-property-renamed"]), "{refused}");
    assert_eq!(sc["side_effect_started"], false);
    let (code, stderr) = client.close();
    assert_eq!(code, 0, "{stderr}");
    let logged = calls_logged(&log);
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["arguments"]["query"], "before", "the drifted call ran: {logged:?}");
    let audited = std::fs::read_to_string(&audit).unwrap();
    assert_eq!(audited.lines().count(), 2, "{audited}");
    assert!(!stderr.contains(secret) && !audited.contains(secret), "a header value was printed");
}

/// The official Python SDK's stdio client, through `guard --url`, to server-everything over
/// streamable HTTP (the official TypeScript SDK's server): initialize, list, a call, 20 more calls.
#[test]
fn the_official_client_calls_server_everything_over_http_through_the_guard() {
    let Some(s) = servers::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let server = s.everything_http();
    let lock = lock_of(dir.path(), &server.url());
    let script = r#"
import asyncio, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
async def main():
    p = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with stdio_client(p) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            tools = await s.list_tools()
            for i in range(21):
                res = await s.call_tool("echo", {"message": f"hi {i}"})
                assert not res.isError, res
            print("tools", len(tools.tools), "last", res.content[0].text)
asyncio.run(main())
"#;
    let out = Command::new(&s.python)
        .arg("-c")
        .arg(script)
        .arg(bin())
        .args(["guard", "--lock", lock.to_str().unwrap(), "--url", &server.url()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("last Echo: hi 20"), "{stdout}");
}

/// A redirect is never followed: the guard's own listing fails, so the call is refused, and the
/// refusal names no address.
#[test]
fn a_redirecting_server_is_not_followed() {
    let Some(s) = servers::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("list.json"),
        json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}).to_string(),
    )
    .unwrap();
    let out = Command::new(bin()).current_dir(dir.path()).args(["lock", "list.json"]).output().unwrap();
    assert!(out.status.success());
    let port = servers::free_port();
    let mut cmd = Command::new(&s.python);
    cmd.arg(servers::path("fake_http.py")).arg(port.to_string()).arg("redirect");
    let fake = servers::HttpServer::start(cmd, port);
    let args: Vec<String> =
        ["guard", "--lock", dir.path().join("mcp-tools.lock").to_str().unwrap(), "--url", &fake.url()]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
    let mut client = Client::start(&args, &[]);
    let init = client.request(
        0,
        "initialize",
        &json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    let message = init["error"]["message"].as_str().unwrap_or_default().to_owned();
    assert!(message.contains("redirect") && !message.contains("://"), "{init}");
    let refused = client.call(1, "t", &json!({}));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    client.close();
}

/// `--url` and a server command are one or the other.
#[test]
fn url_and_a_command_are_exclusive() {
    let out = Command::new(bin()).args(["guard", "--url", "http://127.0.0.1:9/mcp", "--", "true"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(bin()).args(["guard", "--header", "a: b", "--", "true"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `guard --listen`: the official Python SDK's streamable HTTP client talks to the guard, which runs
/// the drift server over stdio. A silent switch is refused before the call; the server's own log shows
/// only the call made under the locked contract; the session ends with the client's DELETE, and the
/// guard with it.
#[test]
fn listen_serves_the_official_http_client_and_refuses_silent_drift() {
    let Some(s) = servers::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let revision = dir.path().join("revision");
    let log = dir.path().join("calls.log");
    std::fs::write(&revision, "A\n").unwrap();
    let drift = [s.python.to_str().unwrap().to_owned(), s.drift.to_str().unwrap().to_owned()];
    let out = Command::new(bin())
        .current_dir(dir.path())
        .args(["capture", "-o", "list.json", "--quiet", "--"])
        .args(&drift)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(Command::new(bin()).current_dir(dir.path()).args(["lock", "list.json"]).output().unwrap().status.success());
    let port = servers::free_port();
    let mut guard = Command::new(bin())
        .current_dir(dir.path())
        .args(["guard", "--listen", &format!("127.0.0.1:{port}"), "--"])
        .args(&drift)
        .env("DRIFT_REVISION_FILE", &revision)
        .env("DRIFT_LOG", &log)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + WAIT;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "the guard did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    let script = r#"
import asyncio, sys
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client
async def main():
    async with streamablehttp_client(sys.argv[1]) as (r, w, _):
        async with ClientSession(r, w) as s:
            await s.initialize()
            tools = await s.list_tools()
            a = await s.call_tool("search", {"query": "before"})
            open(sys.argv[2], "w").write("B\n")
            b = await s.call_tool("search", {"query": "after", "q": "after"})
            print("tools", len(tools.tools), "a", a.isError, "b", b.isError, (b.structuredContent or {}).get("error_code"))
asyncio.run(main())
"#;
    let out = Command::new(&s.python)
        .arg("-c")
        .arg(script)
        .arg(format!("http://127.0.0.1:{port}/mcp"))
        .arg(&revision)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("tools 4 a False b True STALE_TOOL_SCHEMA"), "{stdout}");
    let logged = calls_logged(&log);
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["arguments"]["query"], "before", "the drifted call ran: {logged:?}");
    // The client's DELETE ended the session: the guard exits on its own.
    let ended = (0..200).any(|_| {
        std::thread::sleep(Duration::from_millis(50));
        guard.try_wait().ok().flatten().is_some()
    });
    if !ended {
        let _ = guard.kill();
    }
    assert!(ended, "the guard did not end with the session");
}

/// One raw HTTP/1.1 exchange with `--listen`.
fn exchange(port: u16, request: &str) -> String {
    use std::io::Read;
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut buf = [0u8; 4096];
    let n = stream.read(&mut buf).unwrap_or(0);
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// What `--listen` refuses before anything reaches the judging core: a non-loopback address (exit 2),
/// a request from a web page's origin (DNS rebinding: 403), a body with a raw CR inside a string (the
/// line a reader could split in two: 400), a first message that is not `initialize`, a later one
/// without the session id.
#[test]
fn listen_refuses_what_it_cannot_judge_exactly() {
    let out = Command::new(bin()).args(["guard", "--listen", "0.0.0.0:0", "--", "true"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let Some(s) = servers::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("list.json"), json!({"tools": []}).to_string()).unwrap();
    assert!(Command::new(bin()).current_dir(dir.path()).args(["lock", "list.json"]).output().unwrap().status.success());
    let port = servers::free_port();
    let mut guard = Command::new(bin())
        .current_dir(dir.path())
        .args(["guard", "--listen", &format!("127.0.0.1:{port}"), "--"])
        .args(s.drift_stdio())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        std::thread::sleep(Duration::from_millis(50));
    }
    let request = |extra: &str, body: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    assert!(exchange(port, &request("Origin: https://evil.example\r\n", list)).starts_with("HTTP/1.1 403"));
    assert!(exchange(port, &request("", list)).starts_with("HTTP/1.1 400"), "not initialize first");
    let hidden =
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":{\"a\":\"\r{\\\"jsonrpc\\\":\\\"2.0\\\"}\"}}";
    assert!(exchange(port, &request("", hidden)).starts_with("HTTP/1.1 400"));
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let answer = exchange(port, &request("", init));
    assert!(answer.starts_with("HTTP/1.1 200") && answer.to_ascii_lowercase().contains("mcp-session-id:"), "{answer}");
    assert!(exchange(port, &request("", list)).starts_with("HTTP/1.1 400"), "no session id");
    assert!(exchange(port, &request("Mcp-Session-Id: wrong\r\n", list)).starts_with("HTTP/1.1 404"));
    let _ = guard.kill();
    let _ = guard.wait();
}
