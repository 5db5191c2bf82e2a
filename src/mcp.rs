//! An MCP client: JSON-RPC 2.0 over a stdio server ([`stdio`]) or streamable HTTP ([`http`]), the
//! `initialize` handshake with protocol version negotiation, and requests ([`Session::request`]).
//!
//! Takes a [`Transport`] and [`Limits`]; returns the results of requests, or a [`Failure`] that says
//! what the server did. Promises, whatever the server writes: no panic, no step waits longer than
//! [`Limits::timeout`], no message over [`Limits::max_message_bytes`] is buffered, no more than
//! [`Limits::max_total_bytes`] are read in one session, and nothing the server sent is put into a
//! message without [`crate::text`] escaping (see [`Failure`]'s `Display`). Server-to-client requests
//! are answered (`ping` with an empty result, anything else with "method not found"); notifications
//! are ignored except that `notifications/tools/list_changed` is remembered. Nothing here prints.

pub mod failure;
pub mod groups;
pub mod http;
pub mod stdio;

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

pub use failure::Failure;

use crate::lint::Protocol;

/// How much one session may take from the server, and how long one step may wait.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// How long one step (one request and its answer) may take.
    pub timeout: Duration,
    /// The largest single message (a stdio line, an HTTP body or SSE event).
    pub max_message_bytes: usize,
    /// All bytes read from the server in one session.
    pub max_total_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { timeout: Duration::from_secs(30), max_message_bytes: 32 << 20, max_total_bytes: 128 << 20 }
    }
}

/// One message from the server, parsed, with its size on the wire.
#[derive(Debug)]
pub struct Received {
    pub message: Value,
    pub bytes: usize,
}

/// A way to exchange JSON-RPC messages with a server.
pub trait Transport {
    /// Sends one message.
    ///
    /// # Errors
    /// When the server cannot be reached or refuses the message.
    fn send(&mut self, message: &Value, step: &str, deadline: Instant) -> Result<(), Failure>;

    /// The next message from the server; `None` when nothing more can come for this step (an HTTP
    /// response that ended). Waits until `deadline` at most.
    ///
    /// # Errors
    /// Timeout, a message that is not JSON or too large, the server exiting.
    fn recv(&mut self, step: &str, deadline: Instant) -> Result<Option<Received>, Failure>;

    /// Told once `initialize` is answered: the protocol version in use (HTTP sends it as a header).
    fn negotiated(&mut self, _version: &str) {}

    /// Ends the session cleanly (closes stdin and ends the process group; deletes the HTTP session).
    fn close(&mut self) {}
}

/// What the server said about itself in `initialize`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerInfo {
    /// `serverInfo.name`, `serverInfo.version` (empty when absent).
    pub name: String,
    pub version: String,
    /// The protocol version the server answered.
    pub protocol_version: String,
    /// That version, when mcp-drift knows it.
    pub protocol: Option<Protocol>,
    /// The `initialize` result as the server sent it.
    pub result: Value,
}

/// The newest MCP revision mcp-drift knows: what `initialize` offers.
#[must_use]
pub fn newest_protocol() -> Protocol {
    Protocol::ALL[Protocol::ALL.len() - 1]
}

/// A JSON-RPC session with one server.
pub struct Session {
    transport: Box<dyn Transport>,
    limits: Limits,
    next_id: u64,
    received: usize,
    /// A `notifications/tools/list_changed` arrived since this was last cleared.
    pub list_changed: bool,
    closed: bool,
}

impl Session {
    #[must_use]
    pub fn new(transport: Box<dyn Transport>, limits: Limits) -> Session {
        Session { transport, limits, next_id: 1, received: 0, list_changed: false, closed: false }
    }

    /// `initialize` (offering [`newest_protocol`]) and `notifications/initialized`.
    ///
    /// # Errors
    /// Any failure of the request, or a result without a `protocolVersion` string.
    pub fn initialize(&mut self) -> Result<ServerInfo, Failure> {
        let params = json!({
            "protocolVersion": newest_protocol().as_str(),
            "capabilities": {},
            "clientInfo": {"name": "mcp-drift", "version": env!("CARGO_PKG_VERSION")},
        });
        let result = self.request("initialize", Some(params))?;
        let Some(version) = result.get("protocolVersion").and_then(Value::as_str).map(str::to_owned) else {
            return Err(Failure::Protocol {
                step: "initialize".into(),
                message: "the result has no `protocolVersion` string".into(),
            });
        };
        let text = |key: &str| {
            result.get("serverInfo").and_then(|i| i.get(key)).and_then(Value::as_str).unwrap_or_default().to_owned()
        };
        let info = ServerInfo {
            name: text("name"),
            version: text("version"),
            protocol: version.parse().ok(),
            protocol_version: version,
            result: result.clone(),
        };
        self.transport.negotiated(&info.protocol_version);
        self.notify("notifications/initialized", None)?;
        Ok(info)
    }

    /// Sends a request and waits for its answer, answering and skipping whatever comes between.
    ///
    /// # Errors
    /// The server answers with a JSON-RPC error, exits, writes something that is not JSON-RPC, sends
    /// too much, or does not answer within the timeout.
    pub fn request(&mut self, method: &str, params: Option<Value>) -> Result<Value, Failure> {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(p) = params {
            message["params"] = p;
        }
        let deadline = Instant::now() + self.limits.timeout;
        let timeout = self.limits.timeout;
        let with_timeout = |f: Failure| match f {
            Failure::Timeout { step, .. } => Failure::Timeout { step, after: timeout },
            f => f,
        };
        self.transport.send(&message, method, deadline).map_err(with_timeout)?;
        loop {
            let Some(received) = self.transport.recv(method, deadline).map_err(with_timeout)? else {
                return Err(Failure::NoAnswer { step: method.to_owned() });
            };
            self.received = self.received.saturating_add(received.bytes);
            if self.received > self.limits.max_total_bytes {
                return Err(Failure::TooLarge {
                    step: method.to_owned(),
                    what: "the session".into(),
                    limit: self.limits.max_total_bytes,
                });
            }
            if let Some(result) = self.handle(received.message, id, method, deadline).map_err(with_timeout)? {
                return Ok(result);
            }
        }
    }

    /// Sends a notification.
    ///
    /// # Errors
    /// When it cannot be sent.
    pub fn notify(&mut self, method: &str, params: Option<Value>) -> Result<(), Failure> {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            message["params"] = p;
        }
        self.transport.send(&message, method, Instant::now() + self.limits.timeout)
    }

    /// One incoming message while waiting for the answer to `id`: the result when it is that answer.
    fn handle(&mut self, message: Value, id: u64, method: &str, deadline: Instant) -> Result<Option<Value>, Failure> {
        let Value::Object(mut m) = message else {
            return Err(Failure::Protocol {
                step: method.to_owned(),
                message: format!(
                    "the server sent {}, not a JSON-RPC message object",
                    crate::text::value_kind(&message)
                ),
            });
        };
        if let Some(Value::String(called)) = m.get("method") {
            match m.get("id") {
                // A request from the server: answer it, or it may wait for us as we wait for it.
                Some(their_id) if !their_id.is_null() => {
                    let answer = if called == "ping" {
                        json!({"jsonrpc": "2.0", "id": their_id, "result": {}})
                    } else {
                        json!({"jsonrpc": "2.0", "id": their_id, "error": {"code": -32601, "message": "method not found"}})
                    };
                    self.transport.send(&answer, method, deadline)?;
                }
                _ => {
                    if called == "notifications/tools/list_changed" {
                        self.list_changed = true;
                    }
                }
            }
            return Ok(None);
        }
        // A response: ours only when the id is the number we sent (not "1", not 1.0).
        if m.get("id").and_then(Value::as_u64) != Some(id) || !m.get("id").is_some_and(Value::is_u64) {
            return Ok(None);
        }
        if let Some(error) = m.remove("error") {
            return Err(jsonrpc_error(method, &error));
        }
        match m.remove("result") {
            Some(result) => Ok(Some(result)),
            None => Err(Failure::Protocol {
                step: method.to_owned(),
                message: "the answer has neither `result` nor `error`".into(),
            }),
        }
    }

    /// Ends the session (see [`Transport::close`]); also done on drop.
    pub fn close(&mut self) {
        if !self.closed {
            self.closed = true;
            self.transport.close();
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.close();
    }
}

fn jsonrpc_error(method: &str, error: &Value) -> Failure {
    let empty = Map::new();
    let e = error.as_object().unwrap_or(&empty);
    Failure::JsonRpc {
        step: method.to_owned(),
        code: e.get("code").and_then(Value::as_i64),
        message: e.get("message").and_then(Value::as_str).unwrap_or_default().to_owned(),
    }
}

/// The time left until `deadline` (zero when it passed).
pub(crate) fn left(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::rc::Rc;

    /// A scripted server: hands out prepared messages, records what it is sent.
    struct Script {
        incoming: VecDeque<Value>,
        sent: Rc<RefCell<Vec<Value>>>,
    }

    impl Transport for Script {
        fn send(&mut self, message: &Value, _: &str, _: Instant) -> Result<(), Failure> {
            self.sent.borrow_mut().push(message.clone());
            Ok(())
        }
        fn recv(&mut self, _: &str, _: Instant) -> Result<Option<Received>, Failure> {
            Ok(self.incoming.pop_front().map(|message| Received { message, bytes: 10 }))
        }
    }

    fn session(incoming: Vec<Value>) -> (Session, Rc<RefCell<Vec<Value>>>) {
        let sent = Rc::new(RefCell::new(Vec::new()));
        let script = Script { incoming: incoming.into(), sent: Rc::clone(&sent) };
        (Session::new(Box::new(script), Limits::default()), sent)
    }

    #[test]
    fn interleaved_requests_notifications_and_stray_ids_are_handled() {
        let (mut s, sent) = session(vec![
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
            json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage"}),
            json!({"jsonrpc": "2.0", "id": 99, "result": {"wrong": true}}),
            json!({"jsonrpc": "2.0", "id": "1", "result": {"wrong": true}}),
            json!({"jsonrpc": "2.0", "id": 1.0, "result": {"wrong": true}}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"ok": true}}),
        ]);
        assert_eq!(s.request("tools/list", None).ok(), Some(json!({"ok": true})));
        assert!(s.list_changed);
        let sent = sent.borrow();
        assert_eq!(sent.len(), 3, "{sent:?}");
        assert_eq!(sent[0]["method"], json!("tools/list"));
        assert_eq!(sent[1], json!({"jsonrpc": "2.0", "id": "p", "result": {}}));
        assert_eq!((&sent[2]["id"], &sent[2]["error"]["code"]), (&json!(7), &json!(-32601)));
    }

    #[test]
    fn a_jsonrpc_error_is_a_failure_with_its_code() {
        let (mut s, _) =
            session(vec![json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "boom"}})]);
        let Err(Failure::JsonRpc { code, message, .. }) = s.request("tools/list", None) else {
            panic!("an error answer fails the request");
        };
        assert_eq!((code, message.as_str()), (Some(-32000), "boom"));
    }

    #[test]
    fn no_answer_and_non_objects_fail() {
        let (mut s, _) = session(Vec::new());
        assert!(matches!(s.request("tools/list", None), Err(Failure::NoAnswer { .. })));
        let (mut s, _) = session(vec![json!([1, 2])]);
        assert!(matches!(s.request("tools/list", None), Err(Failure::Protocol { .. })));
    }

    #[test]
    fn the_session_byte_cap_holds() {
        let many = (0..20).map(|_| json!({"jsonrpc": "2.0", "method": "notifications/message"})).collect();
        let (mut s, _) = session(many);
        s.limits.max_total_bytes = 100;
        assert!(matches!(s.request("tools/list", None), Err(Failure::TooLarge { .. })));
    }

    #[test]
    fn initialize_offers_the_newest_revision_and_reads_the_answer() {
        let (mut s, sent) = session(vec![json!({"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": "2031-01-01", "serverInfo": {"name": "n", "version": "v"}}})]);
        let info = s.initialize().ok();
        assert_eq!(sent.borrow()[0]["params"]["protocolVersion"], json!(newest_protocol().as_str()));
        assert_eq!(sent.borrow()[1]["method"], json!("notifications/initialized"));
        let info = info.map(|i| (i.name, i.version, i.protocol_version, i.protocol));
        assert_eq!(info, Some(("n".into(), "v".into(), "2031-01-01".into(), None)));
    }
}
