//! The MCP stdio transport as the guard sees it: takes a byte stream, returns newline-delimited
//! messages exactly as they were written (trailing `\n` included), parses each one strictly and tells
//! the few kinds the guard acts on from everything it passes through.
//!
//! Promises: a line never grows past `max` bytes in memory (a longer one is skipped to its end and
//! reported by size only); reading never blocks on anything but the stream itself. A client line is
//! either refused ([`Refused`]: not JSON, a key repeated in one object, not one JSON-RPC message or a
//! flat batch of them, a method name that is not exactly a known one but looks like
//! one) or judged, and then the bytes to forward are [`serialize`]d from the value that was judged,
//! never the bytes that were read: a reader that splits lines elsewhere (at a bare CR, at U+2028)
//! or keeps the first of two keys sees the same message as the guard. A server line is parsed as
//! strictly and passed on as read only when no reader can split it differently ([`unambiguous`]).

use std::fmt;
use std::io::{self, BufRead, BufReader, Read};

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

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

/// A line with nothing but whitespace: not a message, and nothing to forward.
#[must_use]
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// A value read by [`parse`]: like `serde_json::Value`, but a key repeated in one object is an error
/// (parsers disagree on which of the two wins).
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom("a number out of range"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(v) = map.next_value()?;
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("the key `{key}` is repeated in one object")));
            }
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// A value read through `d` as [`parse`] reads one: a key repeated in one object is an error.
///
/// # Errors
/// `d`'s, or a repeated key.
pub fn strict_value<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    Strict::deserialize(d).map(|s| s.0)
}

/// Parses one message: JSON (`serde_json`'s nesting limit), no key repeated in any object.
///
/// # Errors
/// Why it is not such a message (the parser's words; may quote a key of the input).
pub fn parse(line: &[u8]) -> Result<Value, String> {
    serde_json::from_slice::<Strict>(line).map(|s| s.0).map_err(|e| e.to_string())
}

/// The line that carries `v`: compact JSON, U+2028, U+2029 and U+0085 escaped (some readers end a
/// line there; `serde_json` already escapes every other control character), one `\n` at the end.
#[must_use]
pub fn serialize(v: &Value) -> Vec<u8> {
    let raw = serde_json::to_vec(v).unwrap_or_default();
    let mut out = Vec::with_capacity(raw.len() + 1);
    let mut i = 0;
    // These bytes only ever start those characters, and only inside strings in serde_json's output.
    while i < raw.len() {
        match raw[i..] {
            [0xE2, 0x80, 0xA8, ..] => (out.extend_from_slice(b"\\u2028"), i += 3),
            [0xE2, 0x80, 0xA9, ..] => (out.extend_from_slice(b"\\u2029"), i += 3),
            [0xC2, 0x85, ..] => (out.extend_from_slice(b"\\u0085"), i += 2),
            _ => (out.push(raw[i]), i += 1),
        };
    }
    out.push(b'\n');
    out
}

/// Whether every reader splits `line` into the one line the guard read: no CR but the one of a final
/// CRLF, no U+2028, U+2029 or U+0085.
#[must_use]
pub fn unambiguous(line: &[u8]) -> bool {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let body = body.strip_suffix(b"\r").unwrap_or(body);
    !body.contains(&b'\r')
        && memchr::memmem::find(body, "\u{2028}".as_bytes()).is_none()
        && memchr::memmem::find(body, "\u{2029}".as_bytes()).is_none()
        && memchr::memmem::find(body, "\u{85}".as_bytes()).is_none()
}

/// The byte range of the value of the top-level `id` member of the object in `line` (one JSON object
/// that [`parse`] accepted), found as `load::span` finds any member: what a response's id is
/// replaced in, so the answer passes as the server wrote it with only its id given back.
#[must_use]
pub fn id_span(line: &[u8]) -> Option<std::ops::Range<usize>> {
    crate::load::span::locate(std::str::from_utf8(line).ok()?, "/id").map(|l| l.value)
}

/// Every method name MCP defines, in either direction (2024-11-05 to 2025-11-25).
pub const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "tasks/get",
    "tasks/list",
    "tasks/result",
    "tasks/cancel",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/message",
    "notifications/roots/list_changed",
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
    "notifications/prompts/list_changed",
    "notifications/elicitation/complete",
    "notifications/tasks/status",
];

/// Letters and digits only, lower case: two names with one skeleton differ only by case, spacing or
/// punctuation, and a lenient server may take one for the other.
fn skeleton(name: &str) -> String {
    name.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

/// Why a method name cannot be judged exactly: not a known name, but one that a server could take
/// for one (other case, spaces, control or look-alike characters), or not printable ASCII at all.
#[must_use]
pub fn doubtful_method(method: &str) -> Option<String> {
    if KNOWN_METHODS.contains(&method) {
        return None;
    }
    if !method.bytes().all(|b| b.is_ascii_graphic()) {
        return Some("a method name with characters other than printable ASCII".into());
    }
    let s = skeleton(method);
    KNOWN_METHODS
        .iter()
        .find(|known| skeleton(known) == s)
        .map(|known| format!("a method name that differs from `{known}` only by case or punctuation"))
}

/// A client line the guard does not forward, and the JSON-RPC error that answers it.
#[derive(Debug, PartialEq)]
pub struct Refused {
    /// The id to answer (`None`: `null`, the id is unknown or the message was a notification).
    pub id: Option<Value>,
    pub code: i64,
    pub message: String,
}

fn refused(id: Option<&Value>, code: i64, message: impl Into<String>) -> Refused {
    Refused { id: id.cloned(), code, message: format!("mcp-drift guard: {}", message.into()) }
}

/// What one judged client message is, as far as the guard cares.
#[derive(Debug, PartialEq)]
pub enum Client {
    /// `tools/call` (with or without an id): the tool name when it is a string, and its arguments
    /// (`{}` when there are none).
    Call { id: Option<Value>, name: Option<String>, arguments: Value },
    /// `notifications/cancelled` naming a request id.
    Cancel { id: Value },
    /// The client's own `tools/list`, with its id.
    List { id: Value },
    /// Any other request, notification or response.
    Other,
}

/// A client line the guard judged: what it holds, the value judged and its line.
#[derive(Debug)]
pub struct Judged {
    /// One kind per message (several for a batch; a batch never holds a call).
    pub kinds: Vec<Client>,
    /// What was judged: forwarded as [`serialize`]d from this value (with ids of the guard's).
    pub value: Value,
    /// [`serialize`]d from the judged value, the client's ids kept (for the recording).
    pub line: Vec<u8>,
}

/// Judges one line from the client.
///
/// # Errors
/// What cannot be judged exactly (see the module's promises), with the error to answer.
pub fn client(line: &[u8]) -> Result<Judged, Refused> {
    let value = parse(line).map_err(|e| refused(None, -32700, format!("parse error: {e}")))?;
    let kinds = match &value {
        Value::Array(items) => {
            if items.is_empty() {
                return Err(refused(None, -32600, "an empty batch"));
            }
            let mut kinds = Vec::with_capacity(items.len());
            for item in items {
                if item.is_array() {
                    return Err(refused(None, -32600, "a batch inside a batch is not forwarded"));
                }
                match client_one(item)? {
                    Client::Call { id, .. } => {
                        return Err(refused(id.as_ref(), -32600, "a batch that calls a tool is not forwarded"));
                    }
                    kind => kinds.push(kind),
                }
            }
            kinds
        }
        one => vec![client_one(one)?],
    };
    let line = serialize(&value);
    Ok(Judged { kinds, value, line })
}

/// One message: a request (string `method`, string or number `id`), a notification (no `id`) or a
/// response (`id`, and `result` or `error`, no `method`).
fn client_one(m: &Value) -> Result<Client, Refused> {
    let Value::Object(o) = m else {
        return Err(refused(None, -32600, "not a JSON-RPC message object"));
    };
    let id = o.get("id");
    let answer_to = id.filter(|i| i.is_string() || i.is_number());
    if let Some(i) = id
        && !(i.is_string() || i.is_number() || i.is_null())
    {
        return Err(refused(None, -32600, "an id that is not a string or a number"));
    }
    let Some(method) = o.get("method") else {
        // A response to a request of the server.
        return if id.is_some() && (o.contains_key("result") ^ o.contains_key("error")) {
            Ok(Client::Other)
        } else {
            Err(refused(answer_to, -32600, "neither a request, a notification nor a response"))
        };
    };
    let Some(method) = method.as_str() else {
        return Err(refused(answer_to, -32600, "a method that is not a string"));
    };
    // An id the guard gives back as the client wrote it: a string, or an integer (JSON-RPC's ids
    // should have no fractional part; `1e2`, `-0` or an integer past 64 bits would come back in
    // another spelling, and two of them could read as one).
    if let Some(Value::Number(n)) = id
        && !(n.is_i64() || n.is_u64())
    {
        return Err(refused(None, -32600, "an id that is a number must be an integer that fits in 64 bits"));
    }
    if o.contains_key("result") || o.contains_key("error") {
        return Err(refused(answer_to, -32600, "a request that also carries a result or an error"));
    }
    if let Some(why) = doubtful_method(method) {
        return Err(refused(answer_to, -32601, why));
    }
    let id = id.filter(|i| !i.is_null()).cloned();
    Ok(match (method, id) {
        ("tools/call", id) => Client::Call {
            id,
            name: m.pointer("/params/name").and_then(Value::as_str).map(str::to_owned),
            arguments: m
                .pointer("/params/arguments")
                .filter(|a| !a.is_null())
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new())),
        },
        ("tools/list", Some(id)) => Client::List { id },
        ("notifications/cancelled", None) => match m.pointer("/params/requestId") {
            Some(id) if !id.is_null() => Client::Cancel { id: id.clone() },
            _ => Client::Other,
        },
        _ => Client::Other,
    })
}

/// A message from the server, as far as the guard cares.
#[derive(Debug, PartialEq, Eq)]
pub enum Server {
    /// Neither a request, a notification nor a response as JSON-RPC has them: a `method` that is not
    /// a string, a request that also carries a result or an error, a response without exactly one
    /// of `result` and `error`. Not passed on: a client could take it for an answer the guard never
    /// judged (attack B1 of the #32 pass: `"method": null` beside a forged `tools/list` result).
    Malformed,
    /// A response (no `method`): to a request the guard sent, its own or the client's.
    Response,
    /// `notifications/tools/list_changed`.
    ListChanged,
    /// Anything else (the server's requests and notifications), forwarded.
    Other,
}

/// Classifies one message (an element of a batch, or the whole line) from the server.
#[must_use]
pub fn server(m: &Value) -> Server {
    let Some(o) = m.as_object() else { return Server::Malformed };
    let answers = usize::from(o.contains_key("result")) + usize::from(o.contains_key("error"));
    match o.get("method") {
        None if answers == 1 && o.contains_key("id") => Server::Response,
        Some(Value::String(method)) if answers == 0 => {
            if method == "notifications/tools/list_changed" && o.get("id").is_none() {
                Server::ListChanged
            } else {
                Server::Other
            }
        }
        _ => Server::Malformed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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

    fn kinds(line: &[u8]) -> Vec<Client> {
        client(line).unwrap().kinds
    }

    fn code(line: &[u8]) -> i64 {
        client(line).unwrap_err().code
    }

    #[test]
    fn client_messages() {
        let call = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#;
        assert_eq!(kinds(call), [Client::Call { id: Some(json!(7)), name: Some("echo".into()), arguments: json!({}) }]);
        let note = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":7,"arguments":[1]}}"#;
        assert_eq!(kinds(note), [Client::Call { id: None, name: None, arguments: json!([1]) }]);
        assert_eq!(kinds(br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#), [Client::List { id: json!(2) }]);
        assert_eq!(kinds(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#), [Client::Other]);
        assert_eq!(
            kinds(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#),
            [Client::Cancel { id: json!(3) }]
        );
        // A response to the server's request.
        assert_eq!(kinds(br#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#), [Client::Other]);
        // Batched tools/list and cancellations are seen like single ones.
        let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}]"#;
        assert_eq!(kinds(batch), [Client::List { id: json!(1) }, Client::Cancel { id: json!(9) }]);
    }

    #[test]
    fn what_cannot_be_judged_exactly_is_refused() {
        assert_eq!(code(b"{\"id\":1,\"method\":\"tools/call\",\"x\":NaN}"), -32700);
        // Two `method` members: one parser keeps the first, another the last.
        assert_eq!(code(br#"{"id":1,"method":"ping","method":"tools/call"}"#), -32700);
        assert_eq!(code(br#"{"id":1,"method":"tools/call","params":{"name":"a","name":"b"}}"#), -32700);
        // Batches: of calls, nested, empty.
        assert_eq!(code(br#"[{"jsonrpc":"2.0","id":1,"method":"tools/call"}]"#), -32600);
        assert_eq!(code(br#"[[{"jsonrpc":"2.0","id":1,"method":"tools/call"}]]"#), -32600);
        assert_eq!(code(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},[]]"#), -32600);
        assert_eq!(code(b"[]"), -32600);
        // Not a message.
        for m in [
            r#""tools/call""#,
            "7",
            r#"{"jsonrpc":"2.0"}"#,
            r#"{"id":1,"method":3}"#,
            r#"{"id":{},"method":"ping"}"#,
            r#"{"id":1,"method":"tools/call","result":{}}"#,
            r#"{"a":{"jsonrpc":"2.0","id":9,"method":"tools/call"}}"#,
        ] {
            assert_eq!(code(m.as_bytes()), -32600, "{m}");
        }
        // Method names a lenient server could take for a known one.
        for m in [
            "Tools/Call",
            "tools/call ",
            " tools/call",
            "tools\u{2215}call",
            "tools/\u{441}all",
            "tools/call\u{0}",
            "TOOLS_CALL",
            "tools//call",
            "tools.list",
            "notifications/tools/list_changed\t",
        ] {
            let line = json!({"jsonrpc": "2.0", "id": 1, "method": m, "params": {"name": "echo"}}).to_string();
            assert_eq!(code(line.as_bytes()), -32601, "{m:?}");
        }
        // Another name altogether is forwarded: the server answers it.
        assert_eq!(kinds(br#"{"jsonrpc":"2.0","id":1,"method":"x-vendor/thing"}"#), [Client::Other]);
    }

    #[test]
    fn the_forwarded_line_is_the_judged_value_on_one_line() {
        // Bare CRs are whitespace to JSON and a line end to some readers: a call hides between them.
        let smuggled = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"x\":\r{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"search\"}}\r}}\n";
        let judged = client(smuggled).unwrap();
        assert_eq!(judged.kinds, [Client::Other]);
        assert!(!judged.line.contains(&b'\r'));
        assert_eq!(memchr::memchr_iter(b'\n', &judged.line).count(), 1);
        assert_eq!(parse(&judged.line).unwrap(), parse(smuggled).unwrap());
        // Line separators inside strings are escaped; the value is the same.
        let v = json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"t": "a\u{2028}b\u{2029}c\u{85}d\re\u{7f}"}});
        let line = serialize(&v);
        assert!(std::str::from_utf8(&line).unwrap().lines().count() == 1 && !line.contains(&b'\r'));
        assert!(!String::from_utf8_lossy(&line).contains(['\u{2028}', '\u{2029}', '\u{85}']));
        assert_eq!(parse(&line).unwrap(), v);
        assert!(unambiguous(b"{\"a\":1}\r\n") && unambiguous(b"{\"a\":\"\xc3\xa9\"}\n"));
        assert!(!unambiguous(b"{\"a\":\r1}\n") && !unambiguous("{\"a\":\"\u{2028}\"}\n".as_bytes()));
    }

    #[test]
    fn an_answer_gets_its_id_back_byte_for_byte() {
        let with_id =
            |line: &[u8], id: &str| id_span(line).map(|s| [&line[..s.start], id.as_bytes(), &line[s.end..]].concat());
        let line = b"{\"result\": {\"id\": 9, \"t\": \"a\\\"}\"}, \"jsonrpc\": \"2.0\",  \"id\" : 17 }\n";
        let out = with_id(line, "\"abc\"").unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"result\": {\"id\": 9, \"t\": \"a\\\"}\"}, \"jsonrpc\": \"2.0\",  \"id\" : \"abc\" }\n"
        );
        // An escaped key is the same key.
        let out = with_id(br#"{"\u0069d":3,"result":[1,{"x":[]}]}"#, "2").unwrap();
        assert_eq!(out, br#"{"\u0069d":2,"result":[1,{"x":[]}]}"#);
        let out = with_id(br#"{"result":[1,{"x":[]}],"id":3}"#, "2").unwrap();
        assert_eq!(out, br#"{"result":[1,{"x":[]}],"id":2}"#);
        assert_eq!(with_id(br#"{"result":{}}"#, "1"), None);
        assert_eq!(with_id(b"[1]", "1"), None);
    }

    #[test]
    fn server_messages() {
        let v = |s: &str| parse(s.as_bytes()).unwrap();
        assert_eq!(server(&v(r#"{"jsonrpc":"2.0","id":4,"result":{"tools":[]}}"#)), Server::Response);
        assert_eq!(server(&v(r#"{"jsonrpc":"2.0","id":"x","error":{}}"#)), Server::Response);
        assert_eq!(server(&v(r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#)), Server::Other);
        assert_eq!(server(&v(r#"{"jsonrpc":"2.0","method":"notifications/message"}"#)), Server::Other);
        // What a client could take for an answer the guard never judged.
        for m in [
            r#"{"jsonrpc":"2.0","id":2,"method":null,"result":{"tools":[]}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":7,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"ping","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{},"error":{}}"#,
            r#"{"jsonrpc":"2.0","id":2}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            "[1]",
            "3",
        ] {
            assert_eq!(server(&v(m)), Server::Malformed, "{m}");
        }
        assert_eq!(server(&v(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#)), Server::ListChanged);
        assert!(parse(b"not json").is_err());
    }
}
