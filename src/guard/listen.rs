//! The guard as a streamable HTTP endpoint (`guard --listen 127.0.0.1:PORT`): one client session over
//! HTTP, turned into the same stream of lines the stdio side reads, so every message is judged by the
//! same core ([`super::wire`]).
//!
//! Takes a loopback address and the message limit; returns the client's lines (a reader), the writer
//! the guard answers into, and the bound address. Promises: only loopback addresses are served; a
//! request with an `Origin` that is not a loopback one is refused (403: DNS rebinding); the first
//! `POST` must be `initialize`, which gets the guard's own `Mcp-Session-Id`, required on every later
//! request (404 when it is another); a body is one JSON text of at most the message limit, with a
//! `Content-Length` (no chunked bodies), and a raw CR or LF inside one of its strings refuses it (400:
//! such a body is not JSON, and a line reader could split it); CR and LF between tokens become spaces;
//! a `POST` of notifications or responses only is answered 202, one with requests waits for all their
//! answers and gets them as one JSON body; `GET` is the stream of the server's own messages (SSE, one
//! at a time; messages wait for it in a bounded queue); `DELETE` ends the session and the guard.
//! Headers are bounded (16 KiB), connections too ([`MAX_CONNECTIONS`]), and every read has a timeout.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;

use crate::error::Error;

/// Connections served at once.
const MAX_CONNECTIONS: usize = 16;
/// The request line and headers together.
const MAX_HEADER_BYTES: usize = 16 << 10;
/// Server messages waiting for the client's `GET` stream.
const MAX_QUEUED: usize = 256;
/// How long a request's answers may take (a `tools/call` can be long).
const ANSWER_WAIT: Duration = Duration::from_mins(10);
/// How long a connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

fn hold<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[derive(Default)]
struct Session {
    id: Option<String>,
    ended: bool,
    /// Answers awaited, by the request id's JSON text.
    waiting: HashMap<String, Sender<Value>>,
    /// The server's own messages, for the `GET` stream.
    queue: VecDeque<Vec<u8>>,
}

struct Shared {
    session: Mutex<Session>,
    changed: Condvar,
    to_guard: Mutex<Option<Sender<Vec<u8>>>>,
    connections: AtomicUsize,
    max_message_bytes: usize,
}

/// The writer the guard answers the client into.
pub struct Answers {
    shared: Arc<Shared>,
    partial: Vec<u8>,
}

/// Binds `addr` (loopback only) and serves one client session on a thread.
///
/// # Errors
/// A non-loopback address (a usage error) or one that cannot be bound.
pub fn bind(
    addr: SocketAddr,
    max_message_bytes: usize,
) -> Result<(super::upstream::Reader, Answers, SocketAddr), Error> {
    if !addr.ip().is_loopback() {
        return Err(Error::Usage(format!(
            "--listen {addr}: the guard serves loopback addresses only (127.0.0.1 or [::1]); put a reverse proxy you trust in front of it for anything else"
        )));
    }
    let listener = TcpListener::bind(addr)
        .map_err(|e| Error::Io { path: addr.to_string(), message: format!("cannot listen: {e}") })?;
    let bound = listener.local_addr().unwrap_or(addr);
    let (tx, rx): (Sender<Vec<u8>>, Receiver<Vec<u8>>) = channel();
    let shared = Arc::new(Shared {
        session: Mutex::new(Session::default()),
        changed: Condvar::new(),
        to_guard: Mutex::new(Some(tx)),
        connections: AtomicUsize::new(0),
        max_message_bytes,
    });
    let serving = Arc::clone(&shared);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            if hold(&serving.session).ended {
                return;
            }
            if serving.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                serving.connections.fetch_sub(1, Ordering::SeqCst);
                let mut stream = stream;
                let _ = respond(&mut stream, 503, &[], b"too many connections");
                continue;
            }
            let s = Arc::clone(&serving);
            std::thread::spawn(move || {
                connection(&s, stream);
                s.connections.fetch_sub(1, Ordering::SeqCst);
            });
        }
    });
    Ok((super::upstream::Reader::new(rx), Answers { shared, partial: Vec::new() }, bound))
}

impl Write for Answers {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(buf);
        while let Some(end) = memchr::memchr(b'\n', &self.partial) {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            let Ok(value) = serde_json::from_slice::<Value>(&line) else { continue };
            let mut session = hold(&self.shared.session);
            let answered = response_ids(&value)
                .first()
                .and_then(|id| session.waiting.get(id).cloned())
                .is_some_and(|waiter| waiter.send(value.clone()).is_ok());
            if !answered {
                if session.queue.len() >= MAX_QUEUED {
                    session.queue.pop_front();
                }
                session.queue.push_back(line);
            }
            drop(session);
            self.shared.changed.notify_all();
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The ids (JSON text) of the responses in a message or batch.
fn response_ids(v: &Value) -> Vec<String> {
    let one = |m: &Value| (m.get("method").is_none()).then(|| m.get("id").map(Value::to_string)).flatten();
    match v {
        Value::Array(items) => items.iter().filter_map(one).collect(),
        m => one(m).into_iter().collect(),
    }
}

/// The ids (JSON text) of the requests in a message or batch, and whether one is `initialize`.
fn request_ids(v: &Value) -> (Vec<String>, bool) {
    let one = |m: &Value| m.get("method").and(m.get("id")).map(Value::to_string);
    let init = |m: &Value| m.get("method").and_then(Value::as_str) == Some("initialize");
    match v {
        Value::Array(items) => (items.iter().filter_map(one).collect(), items.iter().any(init)),
        m => (one(m).into_iter().collect(), init(m)),
    }
}

/// One line from a body: CR and LF between tokens become spaces; `None` when one is inside a string
/// (not JSON, and a reader that splits lines there would see two messages).
fn one_line(body: &[u8]) -> Option<Vec<u8>> {
    let (mut in_string, mut escaped) = (false, false);
    let mut out = Vec::with_capacity(body.len() + 1);
    for &b in body {
        if in_string {
            if b == b'\r' || b == b'\n' {
                return None;
            }
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            out.push(b);
        } else {
            in_string = b == b'"';
            out.push(if b == b'\r' || b == b'\n' { b' ' } else { b });
        }
    }
    out.push(b'\n');
    Some(out)
}

struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Reads one request; `Err` is the status and reason to answer with.
fn read_request(reader: &mut impl BufRead, max_body: usize) -> Result<Option<Request>, (u16, &'static str)> {
    let mut head = Vec::new();
    loop {
        let mut line = Vec::new();
        let n = reader
            .by_ref()
            .take((MAX_HEADER_BYTES + 1 - head.len().min(MAX_HEADER_BYTES)) as u64)
            .read_until(b'\n', &mut line)
            .map_err(|_| (408, "request timeout"))?;
        if n == 0 {
            return if head.is_empty() { Ok(None) } else { Err((400, "incomplete request")) };
        }
        if head.len() + line.len() > MAX_HEADER_BYTES {
            return Err((431, "request headers too large"));
        }
        let blank = line == b"\r\n" || line == b"\n";
        head.extend_from_slice(&line);
        if blank {
            break;
        }
    }
    let text = std::str::from_utf8(&head).map_err(|_| (400, "headers are not UTF-8"))?;
    let mut lines = text.split("\r\n").flat_map(|l| l.split('\n'));
    let start = lines.next().unwrap_or_default();
    let mut parts = start.split(' ');
    let (method, path) = (parts.next().unwrap_or_default().to_owned(), parts.next().unwrap_or_default().to_owned());
    let mut headers = Vec::new();
    for l in lines.filter(|l| !l.is_empty()) {
        let (k, v) = l.split_once(':').ok_or((400, "malformed header"))?;
        headers.push((k.trim().to_owned(), v.trim().to_owned()));
    }
    let mut request = Request { method, path, headers, body: Vec::new() };
    if request.header("transfer-encoding").is_some() {
        return Err((411, "a body needs a Content-Length"));
    }
    let length: usize = match request.header("content-length") {
        Some(v) => v.parse().map_err(|_| (400, "bad Content-Length"))?,
        None => 0,
    };
    if length > max_body {
        return Err((413, "body over the message limit"));
    }
    request.body.resize(length, 0);
    reader.read_exact(&mut request.body).map_err(|_| (408, "request timeout"))?;
    Ok(Some(request))
}

fn respond(stream: &mut TcpStream, status: u16, headers: &[(&str, &str)], body: &[u8]) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Error",
    };
    let mut head = format!("HTTP/1.1 {status} {reason}\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        let _ = write!(head, "{k}: {v}\r\n");
    }
    head.push_str("\r\n");
    // One write: a head and a body sent apart wait for the peer's delayed ACK (40 ms a request).
    let mut message = head.into_bytes();
    message.extend_from_slice(body);
    stream.write_all(&message)?;
    stream.flush()
}

/// Whether an `Origin` header (when there is one) names a loopback host.
fn loopback_origin(origin: Option<&str>) -> bool {
    let Some(origin) = origin else { return true };
    let host = origin.split("://").nth(1).unwrap_or(origin);
    let host = host.split('/').next().unwrap_or(host);
    let host =
        host.rsplit_once(':').map_or(host, |(h, port)| if port.bytes().all(|b| b.is_ascii_digit()) { h } else { host });
    matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

fn new_session_id() -> String {
    let mut bytes = [0u8; 16];
    if std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes)).is_err() {
        let seed = std::collections::hash_map::RandomState::new();
        let h = std::hash::BuildHasher::hash_one(&seed, std::time::SystemTime::now());
        bytes[..8].copy_from_slice(&h.to_le_bytes());
    }
    crate::checks::hex(&bytes)
}

fn connection(shared: &Arc<Shared>, stream: TcpStream) {
    // Answers are small and wait on nothing: Nagle's algorithm would hold each behind an ACK.
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let Ok(mut out) = stream.try_clone() else { return };
    let mut reader = BufReader::new(stream);
    loop {
        let request = match read_request(&mut reader, shared.max_message_bytes) {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err((status, why)) => {
                let _ = respond(&mut out, status, &[("Connection", "close")], why.as_bytes());
                return;
            }
        };
        if request.path.split('?').next() != Some("/mcp") {
            let _ = respond(&mut out, 404, &[], b"the MCP endpoint is /mcp");
            continue;
        }
        if !loopback_origin(request.header("origin")) {
            let _ = respond(&mut out, 403, &[], b"the guard answers loopback origins only");
            continue;
        }
        let keep = match request.method.as_str() {
            "POST" => post(shared, &mut out, &request),
            "GET" => return get(shared, &mut out, &request),
            "DELETE" => {
                if session_ok(shared, &mut out, &request) {
                    end(shared);
                    let _ = respond(&mut out, 200, &[], b"");
                }
                return;
            }
            _ => respond(&mut out, 405, &[("Allow", "GET, POST, DELETE")], b"").is_ok(),
        };
        if !keep {
            return;
        }
    }
}

fn end(shared: &Shared) {
    hold(&shared.session).ended = true;
    hold(&shared.to_guard).take();
    shared.changed.notify_all();
}

/// Whether the request carries the session's id (answers 400/404 when not).
fn session_ok(shared: &Shared, out: &mut TcpStream, request: &Request) -> bool {
    let session = hold(&shared.session);
    match (&session.id, request.header("mcp-session-id")) {
        (Some(id), Some(given)) if id == given && !session.ended => true,
        (_, None) => {
            drop(session);
            let _ = respond(out, 400, &[], b"Mcp-Session-Id is required");
            false
        }
        _ => {
            drop(session);
            let _ = respond(out, 404, &[], b"unknown session");
            false
        }
    }
}

fn post(shared: &Arc<Shared>, out: &mut TcpStream, request: &Request) -> bool {
    let Some(line) = one_line(&request.body) else {
        return respond(out, 400, &[], b"a raw CR or LF inside a JSON string").is_ok();
    };
    let Ok(value) = serde_json::from_slice::<Value>(&request.body) else {
        return respond(out, 400, &[], b"the body is not one JSON text").is_ok();
    };
    let (ids, initialize) = request_ids(&value);
    let mut extra: Vec<(&str, String)> = Vec::new();
    {
        let mut session = hold(&shared.session);
        if session.id.is_none() {
            if !initialize {
                drop(session);
                return respond(out, 400, &[], b"the session starts with initialize").is_ok();
            }
            session.id = Some(new_session_id());
        } else if initialize {
            drop(session);
            return respond(out, 400, &[], b"the session is already initialized").is_ok();
        }
        if initialize {
            extra.push(("Mcp-Session-Id", session.id.clone().unwrap_or_default()));
        }
    }
    if !initialize && !session_ok(shared, out, request) {
        return true;
    }
    let (tx, rx) = channel();
    {
        let mut session = hold(&shared.session);
        for id in &ids {
            session.waiting.insert(id.clone(), tx.clone());
        }
    }
    let sent = hold(&shared.to_guard).as_ref().is_some_and(|g| g.send(line).is_ok());
    if !sent {
        let _ = respond(out, 404, &[], b"the session has ended");
        return false;
    }
    if ids.is_empty() {
        return respond(out, 202, &[], b"").is_ok();
    }
    let mut answers = Vec::new();
    while answers.len() < ids.len() {
        match rx.recv_timeout(ANSWER_WAIT) {
            Ok(Value::Array(items)) => answers.extend(items),
            Ok(v) => answers.push(v),
            Err(_) => break,
        }
    }
    {
        let mut session = hold(&shared.session);
        for id in &ids {
            session.waiting.remove(id);
        }
    }
    let body = if matches!(value, Value::Array(_)) {
        serde_json::to_vec(&Value::Array(answers))
    } else {
        serde_json::to_vec(answers.first().unwrap_or(&Value::Null))
    }
    .unwrap_or_default();
    let mut headers: Vec<(&str, &str)> = vec![("Content-Type", "application/json")];
    headers.extend(extra.iter().map(|(k, v)| (*k, v.as_str())));
    respond(out, 200, &headers, &body).is_ok()
}

/// The server's own messages as an SSE stream, until the session ends or the client goes.
fn get(shared: &Arc<Shared>, out: &mut TcpStream, request: &Request) {
    if !request.header("accept").is_some_and(|a| a.contains("text/event-stream")) {
        let _ = respond(out, 405, &[("Allow", "POST, DELETE")], b"");
        return;
    }
    if !session_ok(shared, out, request) {
        return;
    }
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n";
    if out.write_all(head.as_bytes()).and_then(|()| out.flush()).is_err() {
        return;
    }
    loop {
        let mut session = hold(&shared.session);
        while session.queue.is_empty() && !session.ended {
            let (s, _) =
                shared.changed.wait_timeout(session, Duration::from_secs(15)).unwrap_or_else(PoisonError::into_inner);
            session = s;
            if session.queue.is_empty() && !session.ended {
                drop(session);
                if out.write_all(b": keep-alive\n\n").is_err() {
                    return;
                }
                session = hold(&shared.session);
            }
        }
        if session.ended {
            return;
        }
        let messages: Vec<Vec<u8>> = session.queue.drain(..).collect();
        drop(session);
        for m in messages {
            let data = m.strip_suffix(b"\n").unwrap_or(&m);
            if out
                .write_all(b"event: message\ndata: ")
                .and_then(|()| out.write_all(data))
                .and_then(|()| out.write_all(b"\n\n"))
                .and_then(|()| out.flush())
                .is_err()
            {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_becomes_one_line_or_is_refused() {
        assert_eq!(one_line(b"{\n  \"a\": 1\r\n}").unwrap(), b"{   \"a\": 1  }\n");
        assert_eq!(one_line(br#"{"a": "x\"\n"}"#).unwrap(), b"{\"a\": \"x\\\"\\n\"}\n".to_vec());
        assert!(one_line(b"{\"a\": \"x\ry\"}").is_none());
    }

    #[test]
    fn origins_and_ids() {
        assert!(loopback_origin(None));
        assert!(loopback_origin(Some("http://localhost:3000")));
        assert!(loopback_origin(Some("http://127.0.0.1")));
        assert!(!loopback_origin(Some("https://evil.example")));
        assert!(!loopback_origin(Some("http://localhost.evil.example")));
        let (ids, init) = request_ids(&serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"}));
        assert_eq!((ids, init), (vec!["1".to_owned()], true));
        assert_eq!(response_ids(&serde_json::json!([{"id": "a", "result": {}}])), vec!["\"a\"".to_owned()]);
    }

    #[test]
    fn a_non_loopback_address_is_refused() {
        let e = bind("0.0.0.0:0".parse().unwrap(), 1024).err().unwrap();
        assert!(matches!(e, Error::Usage(_)), "{e}");
    }
}
