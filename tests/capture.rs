//! `mcp-drift capture` against real servers (tests/servers: server-everything from npm, the Python
//! drift server on the `mcp` package) and against tiny fake servers for each failure
//! (`tests/servers/fake_server.py`, standard library only).

mod servers;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcp-drift"))
}

/// `mcp-drift capture ARGS... -- CMD...` with extra environment variables.
fn capture(args: &[&str], cmd: &[String], env: &[(&str, &str)]) -> Output {
    let mut c = bin();
    c.arg("capture").args(args).arg("--").args(cmd).stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run mcp-drift")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn fake(mode: &str) -> Vec<String> {
    vec!["python3".into(), servers::path("fake_server.py").display().to_string(), mode.into()]
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The rule ids `diff OLD NEW` reports, with the tool each is about.
fn rules(old: &Path, new: &Path) -> BTreeSet<(String, String)> {
    let o =
        bin().arg("diff").arg(old).arg(new).args(["--format", "json", "--fail-on", "never"]).output().expect("diff");
    assert!(o.status.success(), "diff failed: {}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("diff --format json");
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| (f["tool"].as_str().unwrap_or_default().to_owned(), f["rule"].as_str().unwrap_or_default().to_owned()))
        .collect()
}

/// The installed servers answer `initialize` over stdio (the helper finds them, the pins work).
#[test]
fn test_servers_answer_initialize() {
    let Some(s) = servers::find() else { return };
    for cmd in [s.everything_stdio(), s.drift_stdio()] {
        let mut child = Command::new(&cmd[0])
            .args(&cmd[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let mut stdin = child.stdin.take().expect("stdin");
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
        )
        .expect("write");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        // server-everything may send a notification first.
        loop {
            line.clear();
            assert!(out.read_line(&mut line).expect("read") > 0, "{cmd:?} closed stdout");
            if line.contains(r#""id":1"#) {
                break;
            }
        }
        assert!(line.contains("protocolVersion"), "{cmd:?}: {line}");
        drop(stdin);
        let _ = child.kill();
        let _ = child.wait();
    }
}

#[test]
fn everything_over_stdio_and_http_gives_the_same_canonical_snapshot() {
    let Some(s) = servers::find() else { return };
    let tmp = tempfile::tempdir().expect("tmp");
    let (stdio, http) = (tmp.path().join("stdio.json"), tmp.path().join("http.json"));
    let o = capture(&["--quiet", "-o", &stdio.display().to_string()], &s.everything_stdio(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let server = s.everything_http();
    let o = bin()
        .args(["capture", "--url", &server.url(), "--header", "X-Probe: never-printed", "-o"])
        .arg(&http)
        .output()
        .expect("run");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("never-printed"));
    assert!(stderr(&o).contains("captured ") && stderr(&o).contains("everything"), "{}", stderr(&o));
    let text = read(&stdio);
    assert_eq!(text, read(&http), "stdio and HTTP captures differ");
    let snapshot: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let names: Vec<&str> =
        snapshot["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.len() > 5 && names.contains(&"echo"), "{names:?}");
    assert!(names.windows(2).all(|w| w[0] <= w[1]), "tools are sorted: {names:?}");
    assert!(text.starts_with("{\n  \"tools\": [\n    {\n") && text.ends_with("}\n"));
    // The capture is a snapshot the other commands read: compared with itself, nothing.
    assert!(rules(&stdio, &http).is_empty());
}

#[test]
fn drift_server_captures_are_byte_stable_and_diff_as_expected() {
    let Some(s) = servers::find() else { return };
    let tmp = tempfile::tempdir().expect("tmp");
    let path = |n: &str| tmp.path().join(n);
    for (file, rev) in [("a1.json", "A"), ("a2.json", "A"), ("b.json", "B")] {
        let o = capture(&["-o", &path(file).display().to_string()], &s.drift_stdio(), &[("DRIFT_REVISION", rev)]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(std::fs::read(path("a1.json")).ok(), std::fs::read(path("a2.json")).ok(), "capture twice differs");
    let found = rules(&path("a1.json"), &path("b.json"));
    for expected in [
        ("search", "input-property-renamed"),
        ("create_ticket", "input-required-added"),
        ("create_ticket", "input-enum-narrowed"),
    ] {
        assert!(found.contains(&(expected.0.to_owned(), expected.1.to_owned())), "{expected:?} not in {found:?}");
    }
    let unchanged: Vec<_> = found.iter().filter(|(tool, _)| tool == "echo" || tool == "switch_revision").collect();
    assert!(unchanged.is_empty(), "unchanged tools have findings: {unchanged:?}");
    // Over HTTP, revision B from a file: the same bytes as over stdio.
    let revision = path("revision");
    std::fs::write(&revision, "B\n").expect("write");
    let server = s.drift_http(&[("DRIFT_REVISION_FILE", &revision.display().to_string())]);
    let o = bin().args(["capture", "--url", &server.url(), "-o"]).arg(path("b-http.json")).output().expect("run");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read(&path("b.json")), read(&path("b-http.json")));
}

#[test]
fn per_tool_directories_load_like_the_single_file() {
    let Some(s) = servers::find() else { return };
    let tmp = tempfile::tempdir().expect("tmp");
    let (file, dir) = (tmp.path().join("a.json"), tmp.path().join("a-snaps"));
    let env = [("DRIFT_REVISION", "A")];
    assert!(capture(&["-o", &file.display().to_string()], &s.drift_stdio(), &env).status.success());
    let o = capture(&["--per-tool", &dir.display().to_string()], &s.drift_stdio(), &env);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["create_ticket.snap", "echo.snap", "search.snap", "switch_revision.snap"]);
    assert!(rules(&file, &dir).is_empty(), "the file and the directory differ");
    // A second capture into the directory replaces it: revision B's directory diffs like B's file.
    let o = capture(&["--per-tool", &dir.display().to_string()], &s.drift_stdio(), &[("DRIFT_REVISION", "B")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(rules(&file, &dir).iter().any(|(_, r)| r == "input-property-renamed"));
}

#[test]
fn pages_are_followed_sorted_and_stripped_of_meta() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("pages.json");
    let o = capture(&["-o", &out.display().to_string()], &fake("pages"), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("4 tool(s)") && stderr(&o).contains("3 page(s)"), "{}", stderr(&o));
    let text = read(&out);
    let snapshot: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let names: Vec<&str> =
        snapshot["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["alpha", "beta", "mid", "zeta"]);
    assert!(!text.contains("_meta"), "{text}");
    // Timestamps in `_meta` change every time: dropping them is what makes captures stable.
    let again = tmp.path().join("again.json");
    assert!(capture(&["-o", &again.display().to_string()], &fake("pages"), &[]).status.success());
    assert_eq!(text, read(&again));
    let o = capture(&["--keep-meta"], &fake("pages"), &[]);
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("\"_meta\""));
}

#[test]
fn interleaved_server_requests_are_answered_and_strays_ignored() {
    // The fake exits 9 unless its ping is answered and its roots/list refused with -32601.
    let o = capture(&[], &fake("noisy"), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("\"only\"") && !out.contains("\"wrong\""), "{out}");
}

#[test]
fn an_unknown_protocol_version_is_named_and_accepted() {
    let o = capture(&[], &fake("version"), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("protocol version `2099-01-01`, which mcp-drift does not know"), "{}", stderr(&o));
    let o = capture(&[], &fake("pages"), &[]);
    assert!(!stderr(&o).contains("does not know"), "{}", stderr(&o));
}

/// A failure case: what, the server, extra arguments, what the message says.
type Case<'a> = (&'a str, Vec<String>, &'a [&'a str], &'a [&'a str]);

/// Each failure: exit 2, a message that says what happened, no output file, an older file untouched.
#[test]
fn every_failure_exits_2_with_a_clear_message_and_no_partial_file() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cases: &[Case] = &[
        ("not found", vec!["/nonexistent/mcp-server".into()], &[], &["command `/nonexistent/mcp-server` not found"]),
        (
            "exits",
            fake("exit"),
            &[],
            &[
                "the server exited (exit code 3) during `initialize`",
                "stderr: loading config",
                "stderr: fatal: no API key \\u{1b}[31m",
            ],
        ),
        (
            "json-rpc error",
            fake("error"),
            &[],
            &["answered `tools/list` with a JSON-RPC error (code -32603): database \\u{1b}[2J unavailable"],
        ),
        ("not json", fake("notjson"), &[], &["not JSON-RPC during `initialize`: `Server listening on port 3000"]),
        ("cursor loop", fake("loop"), &[], &["page 2 gave the cursor `again` that an earlier page gave"]),
        ("timeout", fake("hang"), &["--timeout", "300ms"], &["did not answer `initialize` within 300 ms (--timeout)"]),
    ];
    for (what, cmd, args, expected) in cases {
        for existing in [false, true] {
            let out = tmp.path().join(format!("{}.json", what.replace(' ', "-")));
            if existing {
                std::fs::write(&out, "old\n").expect("write");
            }
            let mut all: Vec<&str> = args.to_vec();
            let shown = out.display().to_string();
            all.extend(["-o", &shown]);
            let started = Instant::now();
            let o = capture(&all, cmd, &[]);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{what}: {err}");
            for e in *expected {
                assert!(err.contains(e), "{what}: `{e}` not in:\n{err}");
            }
            assert!(started.elapsed() < Duration::from_secs(10), "{what} took {:?}", started.elapsed());
            if existing {
                assert_eq!(read(&out), "old\n", "{what}: the older file changed");
            } else {
                assert!(!out.exists(), "{what}: a file was written");
            }
            assert!(o.stdout.is_empty(), "{what}: printed a snapshot");
        }
    }
    // Nothing was left beside the outputs (no temporary files).
    let left: Vec<_> =
        std::fs::read_dir(tmp.path()).expect("dir").filter_map(Result::ok).map(|e| e.file_name()).collect();
    assert_eq!(left.len(), 6, "{left:?}");
}

#[test]
fn an_oversized_line_is_refused_without_being_buffered_whole() {
    let o = capture(&["--quiet"], &[fake("huge"), vec![(40u32 << 20).to_string()]].concat(), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("one line of its stdout went over the limit of 33554432 bytes"), "{}", stderr(&o));
}

#[test]
fn server_stderr_is_passed_through_escaped_unless_quiet() {
    let o = capture(&[], &fake("hostile"), &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("server: \\u{1b}]0;pwned\\u{7}::error::forged by the server"), "{err}");
    for line in err.lines() {
        assert!(
            !line.trim_start().starts_with("::") && !line.contains("##["),
            "a workflow command got through: {line}"
        );
        assert!(!line.contains('\u{1b}'), "an escape got through: {line:?}");
    }
    let o = capture(&["--quiet"], &fake("hostile"), &[]);
    let err = stderr(&o);
    assert!(!err.contains("server: "), "{err}");
    // The tail is still in the failure message.
    assert!(err.contains("stderr: \\u{1b}]0;pwned"), "{err}");
}

fn alive(pid: &str) -> bool {
    // A zombie has exited; `ps` shows it as `Z` until it is reaped.
    let o = Command::new("ps").args(["-o", "stat=", "-p", pid]).output().expect("ps");
    let stat = String::from_utf8_lossy(&o.stdout);
    !stat.trim().is_empty() && !stat.trim().starts_with('Z')
}

#[test]
fn shutdown_ends_the_whole_process_group_even_when_it_ignores_sigterm() {
    let tmp = tempfile::tempdir().expect("tmp");
    let pid_file: PathBuf = tmp.path().join("child.pid");
    let started = Instant::now();
    let o = capture(&["--quiet"], &[fake("linger"), vec![pid_file.display().to_string()]].concat(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(started.elapsed() < Duration::from_secs(8), "shutdown took {:?}", started.elapsed());
    let pid = read(&pid_file);
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid.trim()) {
        assert!(Instant::now() < deadline, "the server's child {pid} outlived the capture");
        std::thread::sleep(Duration::from_millis(50));
    }
    let started = Instant::now();
    let o = capture(&["--quiet"], &fake("stubborn"), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(started.elapsed() < Duration::from_secs(8), "shutdown took {:?}", started.elapsed());
}

#[test]
fn usage_errors_name_the_problem() {
    let o = bin().arg("capture").output().expect("run");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("capture needs a server"), "{}", stderr(&o));
    let o = bin().args(["capture", "--url", "ftp://x/mcp"]).output().expect("run");
    assert!(stderr(&o).contains("only http:// and https://"), "{}", stderr(&o));
    let o =
        bin().args(["capture", "--url", "http://127.0.0.1:9/mcp", "--header", "s3cret-token"]).output().expect("run");
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains("s3cret"), "{}", stderr(&o));
    let o = bin()
        .args(["capture", "--url", "http://127.0.0.1:9/mcp", "--header-env", "X-Token=MCP_DRIFT_UNSET_VAR"])
        .output()
        .expect("run");
    assert!(stderr(&o).contains("`MCP_DRIFT_UNSET_VAR` is not set"), "{}", stderr(&o));
}

#[test]
fn an_unreachable_url_fails_cleanly() {
    let port = servers::free_port();
    let o = bin()
        .args(["capture", "--url", &format!("http://127.0.0.1:{port}/mcp"), "--timeout", "2s"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("HTTP request for `initialize` failed"), "{}", stderr(&o));
}

/// `tests/servers/fake_http.py` in `mode` (standard library only: no setup needed).
fn fake_http(mode: &str) -> servers::HttpServer {
    let port = servers::free_port();
    let mut cmd = Command::new("python3");
    cmd.arg(servers::path("fake_http.py")).arg(port.to_string()).arg(mode);
    servers::HttpServer::start(cmd, port)
}

fn capture_url(url: &str, args: &[&str]) -> Output {
    bin().args(["capture", "--url", url, "--timeout", "10s"]).args(args).output().expect("run")
}

#[test]
fn http_answers_in_sse_streams_with_a_server_ping_between() {
    // The fake answers `tools/list` only after its ping (sent in the same stream) was answered by a
    // POST with the session id; it also checks MCP-Protocol-Version, and primes streams with an
    // event without data.
    let server = fake_http("sse");
    let o = capture_url(&server.url(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.find("\"a\"") < out.find("\"b\"") && out.contains("\"b\""), "{out}");
}

#[test]
fn http_json_bodies_and_pages() {
    let server = fake_http("json");
    let o = capture_url(&server.url(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 tool(s)") && stderr(&o).contains("2 page(s)"), "{}", stderr(&o));
}

#[test]
fn http_failures_say_what_happened() {
    let server = fake_http("redirect");
    let o = capture_url(&server.url(), &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("redirects (HTTP 307); capture follows no redirect"), "{err}");
    assert!(!err.contains("elsewhere"), "the redirect's target is not followed or shown: {err}");
    let server = fake_http("hang");
    let started = Instant::now();
    let o = bin().args(["capture", "--url", &server.url(), "--timeout", "1s"]).output().expect("run");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("did not answer `tools/list` within 1 s"), "{}", stderr(&o));
    assert!(started.elapsed() < Duration::from_secs(6), "{:?}", started.elapsed());
    let server = fake_http("status");
    let o = capture_url(&server.url(), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("`tools/list` failed: HTTP 500: internal \\u{1b}[31merror"), "{}", stderr(&o));
}

/// The library's session against the drift server: `switch_revision` flips the served revision and
/// sends `notifications/tools/list_changed`, which the session remembers (what `guard` builds on).
#[test]
fn a_session_sees_list_changed_from_the_drift_server() {
    use mcp_drift::mcp::{Limits, Session, stdio};
    let Some(s) = servers::find() else { return };
    let tmp = tempfile::tempdir().expect("tmp");
    let revision = tmp.path().join("revision");
    std::fs::write(&revision, "A\n").expect("write");
    // The server reads DRIFT_REVISION_FILE from its environment: run it through `env`.
    let command: Vec<String> =
        [vec!["env".to_owned(), format!("DRIFT_REVISION_FILE={}", revision.display())], s.drift_stdio()].concat();
    let transport = stdio::Stdio::spawn(&command, stdio::Options { stderr: None, max_message_bytes: 1 << 20 })
        .expect("spawn the drift server");
    let mut session = Session::new(Box::new(transport), Limits::default());
    session.initialize().expect("initialize");
    let params = |t: &serde_json::Value| {
        t["tools"].as_array().expect("tools").iter().find(|t| t["name"] == "search").expect("search")["inputSchema"]
            ["properties"]
            .clone()
    };
    let before = session.request("tools/list", None).expect("tools/list");
    assert!(params(&before).get("query").is_some(), "{before}");
    assert!(!session.list_changed);
    let call = serde_json::json!({"name": "switch_revision", "arguments": {"revision": "B"}});
    let result = session.request("tools/call", Some(call)).expect("tools/call");
    assert_eq!(result["structuredContent"]["result"], "now serving revision B", "{result}");
    assert!(session.list_changed, "no notifications/tools/list_changed arrived with the answer");
    let after = session.request("tools/list", None).expect("tools/list");
    assert!(params(&after).get("q").is_some() && params(&after).get("query").is_none(), "{after}");
    assert_eq!(std::fs::read_to_string(&revision).expect("read").trim(), "B");
    session.close();
}

/// One overall deadline: a server whose every page comes just within `--timeout`, with a next cursor
/// each time, ends at `--deadline`, not after 1,000 pages.
#[test]
fn the_whole_capture_ends_at_its_deadline() {
    let cmd = vec![
        "python3".to_owned(),
        servers::path("fake_server.py").display().to_string(),
        "slowpages".to_owned(),
        "0.2".to_owned(),
    ];
    let started = Instant::now();
    let o = capture(&["--timeout", "1s", "--deadline", "1500ms"], &cmd, &[]);
    let took = started.elapsed();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("did not finish within --deadline 1500 ms"), "{}", stderr(&o));
    assert!(took < Duration::from_secs(10), "{took:?}");
}
