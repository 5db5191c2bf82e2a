//! The MCP stdio transport as the guard sees it: takes a byte stream, returns newline-delimited
//! messages exactly as they were written (trailing `\n` included), and tells the few kinds the guard
//! acts on from everything it passes through untouched.
//!
//! Promises: a line never grows past `max` bytes in memory (a longer one is skipped to its end and
//! reported by size only); reading never blocks on anything but the stream itself; classification
//! never fails (what is not JSON-RPC-shaped is [`Client::Other`] / [`Server::Other`]).

use std::borrow::Cow;
use std::io::{self, BufRead, BufReader, Read};

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// The prefix of every request id the guard itself sends. A client request using it is refused, so a
/// response with such an id is always the guard's.
pub const ID_PREFIX: &str = "mcp-drift-guard-";

/// One read from a stream.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A whole line, with its line end (the last line of a stream may have none).
    Line(Vec<u8>),
    /// A line over the limit, skipped: its length in bytes.
    TooLong(usize),
    Eof,
}

/// Reads lines of at most `max` bytes.
pub struct Lines<R> {
    reader: BufReader<R>,
    max: usize,
}

impl<R: Read> Lines<R> {
    pub fn new(inner: R, max: usize) -> Lines<R> {
        Lines { reader: BufReader::with_capacity(64 * 1024, inner), max: max.max(1) }
    }

    /// The next line.
    ///
    /// # Errors
    /// A read error of the stream (other than an interrupted read).
    pub fn next_frame(&mut self) -> io::Result<Frame> {
        let mut line = Vec::new();
        let mut skipped = 0usize;
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(match (skipped, line.is_empty()) {
                    (0, true) => Frame::Eof,
                    (0, false) => Frame::Line(line),
                    (n, _) => Frame::TooLong(n),
                });
            }
            let (take, end) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            if skipped == 0 && line.len() + take <= self.max {
                line.extend_from_slice(&buf[..take]);
            } else {
                skipped = skipped.saturating_add(line.len() + take);
                line = Vec::new();
            }
            self.reader.consume(take);
            if end {
                return Ok(if skipped == 0 { Frame::Line(line) } else { Frame::TooLong(skipped) });
            }
        }
    }
}

/// A line with nothing but whitespace: not a message, passed on as it is.
#[must_use]
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// A message from the client, as far as the guard cares.
#[derive(Debug)]
pub enum Client {
    /// `tools/call` (with or without an id): the tool name when it is a string.
    Call { id: Option<Value>, name: Option<String> },
    /// A request whose id starts with [`ID_PREFIX`].
    Reserved { id: Value },
    /// `notifications/cancelled` naming a request id.
    Cancel { id: Value },
    /// The client's own `tools/list` (forwarded; the guard checks again before the next call).
    List,
    /// A JSON-RPC batch that calls a tool or uses a reserved id (not forwarded).
    Batch,
    /// Anything else that is JSON: forwarded unchanged.
    Other,
    /// Not JSON: answered with a parse error, never forwarded (the guard cannot tell what the server
    /// would make of it).
    Invalid,
}

/// Classifies one line from the client.
#[must_use]
pub fn client(line: &[u8]) -> Client {
    let Ok(value) = serde_json::from_slice::<Value>(line) else { return Client::Invalid };
    match &value {
        Value::Array(items) => {
            if items.iter().any(|m| matches!(client_one(m), Client::Call { .. } | Client::Reserved { .. })) {
                Client::Batch
            } else {
                Client::Other
            }
        }
        one => client_one(one),
    }
}

fn client_one(m: &Value) -> Client {
    let method = m.get("method").and_then(Value::as_str);
    let id = m.get("id").filter(|i| !i.is_null()).cloned();
    match (method, id) {
        (Some("tools/call"), id) => {
            Client::Call { id, name: m.pointer("/params/name").and_then(Value::as_str).map(str::to_owned) }
        }
        (Some(_), Some(id)) if id.as_str().is_some_and(|s| s.starts_with(ID_PREFIX)) => Client::Reserved { id },
        (Some("tools/list"), Some(_)) => Client::List,
        (Some("notifications/cancelled"), None) => match m.pointer("/params/requestId") {
            Some(id) if !id.is_null() => Client::Cancel { id: id.clone() },
            _ => Client::Other,
        },
        _ => Client::Other,
    }
}

/// A message from the server, as far as the guard cares.
#[derive(Debug, PartialEq, Eq)]
pub enum Server {
    /// A response to one of the guard's own requests: its id.
    Own(String),
    /// `notifications/tools/list_changed`.
    ListChanged,
    /// Anything else, forwarded unchanged (a line that is not JSON too: the client judges it).
    Other,
}

/// Only the members the guard reads; everything else is skipped without being built.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
}

/// Classifies one line from the server.
#[must_use]
pub fn server(line: &[u8]) -> Server {
    let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(line) else { return Server::Other };
    match (envelope.method.as_deref(), envelope.id) {
        (Some("notifications/tools/list_changed"), None) => Server::ListChanged,
        (None, Some(raw)) => match serde_json::from_str::<Value>(raw.get()) {
            Ok(Value::String(s)) if s.starts_with(ID_PREFIX) => Server::Own(s),
            _ => Server::Other,
        },
        _ => Server::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        let mut lines = Lines::new(input, max);
        let mut out = Vec::new();
        loop {
            let f = lines.next_frame().unwrap();
            if f == Frame::Eof {
                return out;
            }
            out.push(f);
        }
    }

    #[test]
    fn lines_are_kept_byte_for_byte_and_bounded() {
        assert_eq!(
            frames(b"{\"a\":1}\r\n\n{\"b\" : 2}", 64),
            vec![
                Frame::Line(b"{\"a\":1}\r\n".to_vec()),
                Frame::Line(b"\n".to_vec()),
                Frame::Line(b"{\"b\" : 2}".to_vec())
            ]
        );
        let long = [b"x".repeat(100), b"\nok\n".to_vec(), b"y".repeat(50)].concat();
        assert_eq!(frames(&long, 10), vec![Frame::TooLong(101), Frame::Line(b"ok\n".to_vec()), Frame::TooLong(50)]);
        // A line longer than the read buffer is still one line.
        let big = [b"z".repeat(200_000), b"\n".to_vec()].concat();
        assert_eq!(frames(&big, 300_000), vec![Frame::Line(big.clone())]);
    }

    #[test]
    fn client_messages() {
        let call = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#;
        assert!(matches!(client(call), Client::Call { id: Some(Value::Number(_)), name: Some(n) } if n == "echo"));
        let note = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":7}}"#;
        assert!(matches!(client(note), Client::Call { id: None, name: None }));
        assert!(matches!(
            client(br#"{"jsonrpc":"2.0","id":"mcp-drift-guard-1","method":"ping"}"#),
            Client::Reserved { .. }
        ));
        assert!(matches!(client(br#"{"jsonrpc":"2.0","id":"mcp-drift-guard-1","result":{}}"#), Client::Other));
        assert!(matches!(client(br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#), Client::List));
        assert!(matches!(client(br#"[{"jsonrpc":"2.0","id":1,"method":"tools/call"}]"#), Client::Batch));
        assert!(matches!(client(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#), Client::Other));
        assert!(matches!(client(b"{\"id\":1,\"method\":\"tools/call\",\"x\":NaN}"), Client::Invalid));
        // The last of two `method` members is the one a JSON parser keeps, here as in the server.
        assert!(matches!(client(br#"{"id":1,"method":"ping","method":"tools/call"}"#), Client::Call { .. }));
        assert!(matches!(
            client(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#),
            Client::Cancel { .. }
        ));
    }

    #[test]
    fn server_messages() {
        assert_eq!(
            server(br#"{"jsonrpc":"2.0","id":"mcp-drift-guard-4","result":{"tools":[]}}"#),
            Server::Own("mcp-drift-guard-4".into())
        );
        assert_eq!(server(br#"{"jsonrpc":"2.0","id":"mcp-drift-guard-4","method":"ping"}"#), Server::Other);
        assert_eq!(server(br#"{"jsonrpc":"2.0","id":4,"result":{}}"#), Server::Other);
        assert_eq!(server(br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#), Server::ListChanged);
        assert_eq!(server(b"not json"), Server::Other);
    }
}
