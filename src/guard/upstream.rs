//! The guarded server over streamable HTTP (`guard --url`): the proxy writes the messages it judged
//! as lines and reads the server's messages as lines, exactly as with a stdio server; this bridge turns
//! each written line into a POST and each answer (a JSON body, or every message event of an SSE
//! stream) back into lines.
//!
//! Takes the URL, the extra headers and the guard's bounds; returns a writer, a reader and a handle.
//! Promises: each line is sent in its own `POST`, on its own thread (at most [`MAX_IN_FLIGHT`] at once, so a slow
//! `tools/call` never holds the guard's own `tools/list` back); `Mcp-Session-Id` from the initialize
//! answer goes on every later request and `MCP-Protocol-Version` once negotiated; no redirect is
//! followed (a 3xx is an error that names the status, never the address); header values appear in no
//! message; a request the server does not answer properly gets a JSON-RPC error answer in its place,
//! so the guard's own listing fails closed and the client is told; each body or event is bounded by
//! the message limit, each request by the guard's timeout (a long call's SSE stream by ten times
//! it); the server's stream of its own messages (`GET`) is opened once the session exists, when the
//! server offers one. Closing the writer ends the session (`DELETE`).

use std::io::{BufReader, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use crate::mcp::http;

/// POSTs in flight at once.
const MAX_IN_FLIGHT: usize = 32;
/// Messages read from the server that the proxy has not taken yet.
const QUEUE: usize = 1024;

#[derive(Default)]
struct Session {
    id: Option<String>,
    protocol_version: Option<String>,
    stream_opened: bool,
}

struct Bridge {
    agent: ureq::Agent,
    url: String,
    headers: Vec<(String, String)>,
    session: Mutex<Session>,
    in_flight: (Mutex<usize>, Condvar),
    max_message_bytes: usize,
    timeout: Duration,
    /// Requests that failed: counted for the notice, never printed with their headers.
    failures: AtomicUsize,
}

fn hold<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The writer half: one POST per complete line.
pub struct Writer {
    bridge: Arc<Bridge>,
    out: Sender<Vec<u8>>,
    partial: Vec<u8>,
}

/// The reader half: the server's messages, one line each (also the HTTP listener's client side).
pub struct Reader {
    rx: Receiver<Vec<u8>>,
    current: Vec<u8>,
    at: usize,
}

/// Ends the HTTP session when the guard stops.
pub struct Handle {
    bridge: Arc<Bridge>,
}

/// A bridge to the server at `url`.
#[must_use]
pub fn connect(
    url: &str,
    headers: Vec<(String, String)>,
    max_message_bytes: usize,
    timeout: Duration,
) -> (Writer, Reader, Handle) {
    let bridge = Arc::new(Bridge {
        agent: http::agent(),
        url: url.to_owned(),
        headers,
        session: Mutex::new(Session::default()),
        in_flight: (Mutex::new(0), Condvar::new()),
        max_message_bytes,
        timeout,
        failures: AtomicUsize::new(0),
    });
    let (tx, rx) = std::sync::mpsc::channel();
    // The proxy reads lines; a bounded queue between the HTTP threads and it.
    let (bounded_tx, bounded_rx): (SyncSender<Vec<u8>>, Receiver<Vec<u8>>) = sync_channel(QUEUE);
    std::thread::spawn(move || {
        for line in rx {
            if bounded_tx.send(line).is_err() {
                return;
            }
        }
    });
    let writer = Writer { bridge: Arc::clone(&bridge), out: tx, partial: Vec::new() };
    (writer, Reader { rx: bounded_rx, current: Vec::new(), at: 0 }, Handle { bridge })
}

impl Write for Writer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(buf);
        while let Some(end) = memchr::memchr(b'\n', &self.partial) {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            let (lock, freed) = &self.bridge.in_flight;
            let mut n = hold(lock);
            while *n >= MAX_IN_FLIGHT {
                n = freed.wait(n).unwrap_or_else(PoisonError::into_inner);
            }
            *n += 1;
            drop(n);
            let (bridge, out) = (Arc::clone(&self.bridge), self.out.clone());
            std::thread::spawn(move || {
                post(&bridge, &line, &out);
                let (lock, freed) = &bridge.in_flight;
                *hold(lock) -= 1;
                freed.notify_all();
            });
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Reader {
    /// Lines as they arrive on `rx`; the end of input when every sender is gone.
    pub(super) fn new(rx: Receiver<Vec<u8>>) -> Reader {
        Reader { rx, current: Vec::new(), at: 0 }
    }
}

impl Read for Reader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at >= self.current.len() {
            match self.rx.recv() {
                Ok(line) => {
                    self.current = line;
                    self.at = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len() - self.at);
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl Handle {
    /// Ends the session (`DELETE`, when the server gave one); the exit code the guard reports.
    pub fn finish(self) -> i32 {
        let id = hold(&self.bridge.session).id.take();
        if let Some(id) = id {
            let mut request = self
                .bridge
                .agent
                .delete(&self.bridge.url)
                .config()
                .timeout_global(Some(Duration::from_secs(2)))
                .build();
            for (name, value) in &self.bridge.headers {
                request = request.header(name.as_str(), value.as_str());
            }
            let _ = request.header("mcp-session-id", id.as_str()).call();
        }
        i32::from(self.bridge.failures.load(Ordering::Relaxed) > 0)
    }
}

/// What a line asks of the server: its id (when it is a request) and whether it is `initialize`.
fn request_of(line: &[u8]) -> (Option<Value>, bool) {
    let Ok(v) = serde_json::from_slice::<Value>(line) else { return (None, false) };
    let one = |m: &Value| (m.get("method").is_some() && m.get("id").is_some()).then(|| m["id"].clone());
    match &v {
        Value::Array(items) => (items.iter().find_map(one), false),
        m => (one(m), m.get("method").and_then(Value::as_str) == Some("initialize")),
    }
}

/// The answer that takes the place of one the server did not give.
fn error_answer(id: &Value, message: &str) -> Vec<u8> {
    let v = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": format!("mcp-drift guard: {message}")}});
    let mut line = serde_json::to_vec(&v).unwrap_or_default();
    line.push(b'\n');
    line
}

/// A request with the `--header`s and, once known, the session id and the negotiated version.
fn with_session<B>(bridge: &Bridge, mut request: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
    for (name, value) in &bridge.headers {
        request = request.header(name.as_str(), value.as_str());
    }
    let s = hold(&bridge.session);
    if let Some(sid) = &s.id {
        request = request.header("mcp-session-id", sid.as_str());
    }
    if let Some(v) = &s.protocol_version {
        request = request.header("mcp-protocol-version", v.as_str());
    }
    request
}

fn post(bridge: &Arc<Bridge>, line: &[u8], out: &Sender<Vec<u8>>) {
    let (id, initialize) = request_of(line);
    let fail = |message: &str| {
        bridge.failures.fetch_add(1, Ordering::Relaxed);
        if let Some(id) = &id {
            let _ = out.send(error_answer(id, message));
        }
    };
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let request = bridge
        .agent
        .post(&bridge.url)
        .config()
        .timeout_global(Some(bridge.timeout * 10))
        .build()
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    let response = match with_session(bridge, request).send(body) {
        Ok(r) => r,
        Err(e) => return fail(&format!("the server at --url did not answer: {}", http::describe(&e))),
    };
    let status = response.status().as_u16();
    if (300..400).contains(&status) {
        return fail(&format!("the server redirects (HTTP {status}); the guard follows no redirect"));
    }
    if initialize && let Some(sid) = response.headers().get("mcp-session-id") {
        match sid.to_str().ok().filter(|s| http::valid_session_id(s)) {
            Some(sid) => hold(&bridge.session).id = Some(sid.to_owned()),
            None => return fail("the server's `Mcp-Session-Id` is not 1 to 1024 visible ASCII characters"),
        }
    }
    if status >= 400 {
        return fail(&format!("the server answered HTTP {status}"));
    }
    if status == 202 || status == 204 {
        return;
    }
    let mime = response.body().mime_type().unwrap_or_default().to_ascii_lowercase();
    let max = bridge.max_message_bytes;
    let mut body = response.into_body();
    let mut answered = false;
    let mut send = |message: Vec<u8>| {
        if initialize
            && let Ok(v) = serde_json::from_slice::<Value>(&message)
            && let Some(version) = v.pointer("/result/protocolVersion").and_then(Value::as_str)
            && version.len() <= 64
            && version.bytes().all(|b| b.is_ascii_graphic())
        {
            hold(&bridge.session).protocol_version = Some(version.to_owned());
        }
        answered |=
            id.as_ref().is_some_and(|id| serde_json::from_slice::<Value>(&message).is_ok_and(|v| answers(&v, id)));
        let mut line = message;
        line.retain(|b| *b != b'\n' && *b != b'\r');
        line.push(b'\n');
        out.send(line).is_ok()
    };
    match mime.as_str() {
        "application/json" => match body.with_config().limit(max as u64).read_to_vec() {
            Ok(bytes) => {
                send(bytes);
            }
            Err(e) => return fail(&format!("its answer could not be read: {}", http::describe(&e))),
        },
        "text/event-stream" => {
            let mut stream = BufReader::with_capacity(1 << 16, body.into_reader());
            loop {
                match http::read_sse_event(&mut stream, max) {
                    Ok(Some(data)) => {
                        if !send(data) {
                            return;
                        }
                    }
                    Ok(None) => break,
                    Err(message) => return fail(&message),
                }
            }
        }
        _ => {
            return fail(&format!(
                "HTTP {status} with content type `{}`, not JSON or an SSE stream",
                crate::text::line(&mime)
            ));
        }
    }
    if let Some(id) = id.as_ref().filter(|_| !answered) {
        bridge.failures.fetch_add(1, Ordering::Relaxed);
        let _ = out.send(error_answer(id, "the server's HTTP answer held no response to this request"));
    }
    if initialize && answered {
        open_stream(bridge, out);
    }
}

/// Whether `v` (a message or a batch) answers the request `id`.
fn answers(v: &Value, id: &Value) -> bool {
    match v {
        Value::Array(items) => items.iter().any(|m| answers(m, id)),
        m => m.get("method").is_none() && m.get("id") == Some(id),
    }
}

/// The server's own messages (`GET`, an SSE stream), on a thread, once per session; a server that
/// offers none (405) is fine.
fn open_stream(bridge: &Arc<Bridge>, out: &Sender<Vec<u8>>) {
    {
        let mut s = hold(&bridge.session);
        if s.stream_opened || s.id.is_none() {
            return;
        }
        s.stream_opened = true;
    }
    let (bridge, out) = (Arc::clone(bridge), out.clone());
    std::thread::spawn(move || {
        let request = bridge.agent.get(&bridge.url).header("accept", "text/event-stream");
        let Ok(response) = with_session(&bridge, request).call() else { return };
        let ok = response.status().as_u16() == 200
            && response.body().mime_type().is_some_and(|m| m.eq_ignore_ascii_case("text/event-stream"));
        if !ok {
            return;
        }
        let mut stream = BufReader::with_capacity(1 << 16, response.into_body().into_reader());
        while let Ok(Some(mut data)) = http::read_sse_event(&mut stream, bridge.max_message_bytes) {
            data.retain(|b| *b != b'\n' && *b != b'\r');
            data.push(b'\n');
            if out.send(data).is_err() {
                return;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_their_answers_are_recognised() {
        assert_eq!(request_of(br#"{"jsonrpc":"2.0","id":3,"method":"initialize"}"#), (Some(json!(3)), true));
        assert_eq!(request_of(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), (None, false));
        assert_eq!(request_of(br#"[{"jsonrpc":"2.0","id":"a","method":"tools/list"}]"#), (Some(json!("a")), false));
        assert!(answers(&json!({"jsonrpc": "2.0", "id": 3, "result": {}}), &json!(3)));
        assert!(!answers(&json!({"jsonrpc": "2.0", "id": 3, "method": "x"}), &json!(3)));
        let e: Value = serde_json::from_slice(&error_answer(&json!(7), "x")).unwrap();
        assert_eq!(e["id"], 7);
        assert!(e["error"]["message"].as_str().unwrap().starts_with("mcp-drift guard: "));
    }
}
