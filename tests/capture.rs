//! `mcp-drift capture` against real servers (tests/servers: server-everything from npm, the Python
//! drift server on the `mcp` package) and against tiny fake servers for each failure.

mod servers;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

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

/// Both servers listen in their streamable HTTP mode.
#[test]
fn test_servers_listen_over_http() {
    let Some(s) = servers::find() else { return };
    let a = s.everything_http();
    let b = s.drift_http(&[("DRIFT_REVISION", "B")]);
    assert_ne!(a.url(), b.url());
}
