//! The streamable HTTP transport: every message is a POST to one URL; the answer is a JSON body or an
//! SSE stream of messages; `Mcp-Session-Id` from the `initialize` answer is sent back on every later
//! request, and `MCP-Protocol-Version` once negotiated.
//!
//! Takes a URL, extra headers and the limits; returns an [`Http`] [`Transport`]. Promises: no redirect
//! is followed (a redirect is a failure that names no address); header values never reach a message;
//! each request is bounded by the step's deadline, each JSON body or SSE event by the message limit and
//! each SSE stream by the session's byte limit.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::failure::excerpt;
use super::{Failure, Limits, Received, Transport, left};

type Stream = BufReader<ureq::BodyReader<'static>>;

/// A streamable HTTP session.
pub struct Http {
    agent: ureq::Agent,
    url: String,
    headers: Vec<(String, String)>,
    session_id: Option<String>,
    protocol_version: Option<String>,
    limits: Limits,
    queue: VecDeque<Received>,
    streams: VecDeque<Stream>,
}

impl Http {
    /// A session with the server at `url`, sending `headers` (name, value) on every request.
    #[must_use]
    pub fn new(url: &str, headers: Vec<(String, String)>, limits: Limits) -> Http {
        Http {
            agent: agent(),
            url: url.to_owned(),
            headers,
            session_id: None,
            protocol_version: None,
            limits,
            queue: VecDeque::new(),
            streams: VecDeque::new(),
        }
    }

    fn post(&mut self, message: &Value, step: &str, deadline: Instant) -> Result<(), Failure> {
        let mut request = self
            .agent
            .post(&self.url)
            .config()
            .timeout_global(Some(left(deadline).max(Duration::from_millis(1))))
            .build()
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        if let Some(id) = &self.session_id {
            request = request.header("mcp-session-id", id.as_str());
        }
        if let Some(v) = &self.protocol_version {
            request = request.header("mcp-protocol-version", v.as_str());
        }
        let body = serde_json::to_vec(message).unwrap_or_default();
        let response = request.send(&body[..]).map_err(|e| failure(step, &e))?;
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            return Err(Failure::Http {
                step: step.to_owned(),
                message: format!(
                    "the server redirects (HTTP {status}); capture follows no redirect: give the final URL with --url"
                ),
            });
        }
        if status == 404 && self.session_id.is_some() {
            return Err(Failure::Http {
                step: step.to_owned(),
                message: "the server no longer knows the session (HTTP 404)".into(),
            });
        }
        if let Some(id) = response.headers().get("mcp-session-id") {
            let id = id.to_str().ok().filter(|s| valid_session_id(s));
            let Some(id) = id else {
                return Err(Failure::Protocol {
                    step: step.to_owned(),
                    message: "its `Mcp-Session-Id` is not 1 to 1024 visible ASCII characters".into(),
                });
            };
            self.session_id = Some(id.to_owned());
        }
        let mime = response.body().mime_type().unwrap_or_default().to_ascii_lowercase();
        let mut body = response.into_body();
        if status >= 400 {
            let text = body.with_config().limit(4096).lossy_utf8(true).read_to_string().unwrap_or_default();
            let detail = if text.trim().is_empty() { String::new() } else { format!(": {}", excerpt(text.as_bytes())) };
            return Err(Failure::Http { step: step.to_owned(), message: format!("HTTP {status}{detail}") });
        }
        if status == 202 || status == 204 {
            return Ok(());
        }
        match mime.as_str() {
            "text/event-stream" => {
                let reader = body.into_with_config().limit(self.limits.max_total_bytes as u64).reader();
                self.streams.push_back(BufReader::with_capacity(1 << 16, reader));
            }
            "application/json" => {
                let limit = self.limits.max_message_bytes;
                let bytes = body.with_config().limit(limit as u64).read_to_vec().map_err(|e| match e {
                    ureq::Error::BodyExceedsLimit(_) => {
                        Failure::TooLarge { step: step.to_owned(), what: "one response body".into(), limit }
                    }
                    e => failure(step, &e),
                })?;
                self.queue_messages(&bytes, step)?;
            }
            _ => {
                return Err(Failure::Protocol {
                    step: step.to_owned(),
                    message: format!("HTTP {status} with content type `{mime}`, not JSON or an SSE stream"),
                });
            }
        }
        Ok(())
    }

    /// A JSON body: one message, or an array of them.
    fn queue_messages(&mut self, bytes: &[u8], step: &str) -> Result<(), Failure> {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Array(items)) => {
                let each = bytes.len() / items.len().max(1);
                self.queue.extend(items.into_iter().map(|message| Received { message, bytes: each }));
            }
            Ok(message) => self.queue.push_back(Received { message, bytes: bytes.len() }),
            Err(_) if bytes.trim_ascii().is_empty() => {}
            Err(_) => return Err(Failure::NotJson { step: step.to_owned(), excerpt: excerpt(bytes) }),
        }
        Ok(())
    }

    /// The next event's data from the first open stream, if any stream has one.
    fn next_event(&mut self, step: &str) -> Result<Option<Vec<u8>>, Failure> {
        let max = self.limits.max_message_bytes;
        while let Some(stream) = self.streams.front_mut() {
            match read_event(stream, max) {
                Ok(Some(data)) => return Ok(Some(data)),
                Ok(None) => {
                    self.streams.pop_front();
                }
                Err(Event::TooLarge) => {
                    return Err(Failure::TooLarge { step: step.to_owned(), what: "one SSE event".into(), limit: max });
                }
                Err(Event::Io(e)) => {
                    self.streams.pop_front();
                    return Err(io_failure(step, &e));
                }
            }
        }
        Ok(None)
    }
}

impl Transport for Http {
    fn send(&mut self, message: &Value, step: &str, deadline: Instant) -> Result<(), Failure> {
        self.post(message, step, deadline)
    }

    fn recv(&mut self, step: &str, _deadline: Instant) -> Result<Option<Received>, Failure> {
        if let Some(r) = self.queue.pop_front() {
            return Ok(Some(r));
        }
        // The stream's reads are bounded by the deadline of the request that opened it. An event
        // with no data (a resumption point the server primes a stream with) carries no message.
        let data = loop {
            match self.next_event(step)? {
                None => return Ok(None),
                Some(data) if data.trim_ascii().is_empty() => {}
                Some(data) => break data,
            }
        };
        let bytes = data.len();
        match serde_json::from_slice::<Value>(&data) {
            Ok(message) => Ok(Some(Received { message, bytes })),
            Err(_) => Err(Failure::NotJson { step: step.to_owned(), excerpt: excerpt(&data) }),
        }
    }

    fn negotiated(&mut self, version: &str) {
        self.protocol_version = Some(version.to_owned());
    }

    fn close(&mut self) {
        self.streams.clear();
        if let Some(id) = self.session_id.take() {
            let mut request =
                self.agent.delete(&self.url).config().timeout_global(Some(Duration::from_secs(2))).build();
            for (name, value) in &self.headers {
                request = request.header(name.as_str(), value.as_str());
            }
            let _ = request.header("mcp-session-id", id.as_str()).call();
        }
    }
}

/// The one HTTP client configuration of the crate (`capture --url`, `guard --url`): no redirect is
/// followed, a status is an answer (not an error), and the user agent names mcp-drift.
pub(crate) fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .user_agent(concat!("mcp-drift/", env!("CARGO_PKG_VERSION")))
        .build()
        .new_agent()
}

/// An `Mcp-Session-Id` as the specification allows it: 1 to 1024 visible ASCII characters.
pub(crate) fn valid_session_id(s: &str) -> bool {
    !s.is_empty() && s.len() <= 1024 && s.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

/// A ureq error in one line with no address or header in it.
pub(crate) fn describe(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => "timed out".to_owned(),
        ureq::Error::BodyExceedsLimit(n) => format!("a body over {n} bytes"),
        ureq::Error::Io(io) => crate::text::line(&io.kind().to_string()),
        ureq::Error::ConnectionFailed => "the connection failed".to_owned(),
        _ => "an HTTP error".to_owned(),
    }
}

/// The next message event of an SSE stream, or `None` at its end; an event over `max` bytes or a read
/// error ends the stream with a one-line reason.
pub(crate) fn read_sse_event(stream: &mut impl BufRead, max: usize) -> Result<Option<Vec<u8>>, String> {
    read_event(stream, max).map_err(|e| match e {
        Event::TooLarge => format!("an event of its SSE stream is over {max} bytes"),
        Event::Io(e) => format!("its SSE stream broke: {}", crate::text::line(&e.kind().to_string())),
    })
}

enum Event {
    TooLarge,
    Io(std::io::Error),
}

/// Reads SSE lines up to the next dispatched event with data (`event:` absent or `message`); `None`
/// at the end of the stream.
fn read_event(stream: &mut impl BufRead, max: usize) -> Result<Option<Vec<u8>>, Event> {
    let mut data: Vec<u8> = Vec::new();
    let mut has_data = false;
    let mut kind_is_message = true;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = stream.take(max as u64 + 2).read_until(b'\n', &mut line).map_err(Event::Io)?;
        if n == 0 {
            return Ok(None);
        }
        if !line.ends_with(b"\n") && line.len() > max {
            return Err(Event::TooLarge);
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.is_empty() {
            if has_data && kind_is_message {
                return Ok(Some(data));
            }
            data.clear();
            has_data = false;
            kind_is_message = true;
            continue;
        }
        let (field, value) = match memchr::memchr(b':', text) {
            Some(0) => continue, // a comment (keep-alive)
            Some(i) => (&text[..i], text[i + 1..].strip_prefix(b" ").unwrap_or(&text[i + 1..])),
            None => (text, &b""[..]),
        };
        match field {
            b"data" => {
                if has_data {
                    data.push(b'\n');
                }
                if data.len() + value.len() > max {
                    return Err(Event::TooLarge);
                }
                data.extend_from_slice(value);
                has_data = true;
            }
            b"event" => kind_is_message = value.is_empty() || value == b"message",
            _ => {}
        }
    }
}

fn failure(step: &str, e: &ureq::Error) -> Failure {
    match e {
        ureq::Error::Timeout(_) => Failure::Timeout { step: step.to_owned(), after: Duration::ZERO },
        ureq::Error::Io(io) => io_failure(step, io),
        e => Failure::Http { step: step.to_owned(), message: e.to_string() },
    }
}

fn io_failure(step: &str, e: &std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::TimedOut {
        return Failure::Timeout { step: step.to_owned(), after: Duration::ZERO };
    }
    // ureq wraps its own timeouts and limits in io errors when read through a BodyReader.
    if let Some(inner) = e.get_ref().and_then(|i| i.downcast_ref::<ureq::Error>()) {
        return failure(step, inner);
    }
    Failure::Http { step: step.to_owned(), message: e.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(stream: &str, max: usize) -> Vec<String> {
        let mut r = stream.as_bytes();
        let mut out = Vec::new();
        loop {
            match read_event(&mut r, max) {
                Ok(Some(d)) => out.push(String::from_utf8_lossy(&d).into_owned()),
                Ok(None) => return out,
                Err(Event::TooLarge) => {
                    out.push("<too large>".into());
                    return out;
                }
                Err(Event::Io(e)) => panic!("{e}"),
            }
        }
    }

    #[test]
    fn sse_events_are_framed_like_the_spec_says() {
        let stream = ": keep-alive\n\nevent: message\nid: 1\ndata: {\"a\":\ndata: 1}\n\nevent: other\ndata: x\n\r\ndata:{}\r\n\r\ndata: tail-without-blank-line\n";
        assert_eq!(events(stream, 100), ["{\"a\":\n1}", "{}"]);
    }

    #[test]
    fn an_sse_event_over_the_limit_stops_the_stream() {
        assert_eq!(events("data: 0123456789\n\n", 5), ["<too large>"]);
        assert_eq!(events("data: 012\ndata: 345\n\n", 6), ["<too large>"]);
    }
}
