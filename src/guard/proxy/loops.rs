//! The proxy's two readers: the client's lines (judged, then forwarded, answered or queued as calls)
//! and the server's (each response given back the client's id, or taken as the guard's own).
//! Takes the shared state; returns when its stream ends. Promises: those of [`super`].

use std::io::Read;

use serde_json::Value;

use super::{Answer, Shared, hold};

/// Lines at least this long that hold `"tools"` are first read as a `tools/list` answer, tool by tool.
const STREAM_LISTING_BYTES: usize = 64 << 10;
use crate::guard::reply;
use crate::guard::wire::{self, Client, Frame, Lines, Server};

/// Reads the client until it closes.
pub(super) fn client_loop(shared: &Shared, input: impl Read) {
    let mut lines = Lines::new(input, shared.bounds.max_message_bytes);
    loop {
        let line = match lines.next_frame() {
            Ok(Frame::Line(line)) => line,
            Ok(Frame::TooLong(n)) => {
                (shared.notice)(&format!("refused a message of {n} bytes from the client (over the size limit)"));
                let max = shared.bounds.max_message_bytes;
                shared.to_client(&reply::error(None, -32600, &format!("mcp-drift guard: message over {max} bytes")));
                continue;
            }
            Ok(Frame::Eof) | Err(_) => return,
        };
        if wire::is_blank(&line) {
            continue;
        }
        // What is forwarded is the message as judged, re-serialized: never the bytes as read.
        let judged = match wire::client(&line) {
            Ok(judged) => judged,
            Err(refused) => {
                shared.recorded(&line);
                (shared.notice)(&format!("refused a message from the client: {}", refused.message));
                shared.to_client(&reply::error(refused.id.as_ref(), refused.code, &refused.message));
                continue;
            }
        };
        shared.recorded(&judged.line);
        for kind in &judged.kinds {
            match kind {
                Client::Cancel { id } => shared.cancel(id),
                Client::List { id } => {
                    shared.relist();
                    shared.client_lists(id);
                    if !judged.value.is_array() {
                        shared.list_shape(&judged.value);
                    }
                }
                Client::Call { .. } | Client::Other => {}
            }
        }
        let size = judged.line.len();
        match judged.kinds.as_slice() {
            [Client::Call { id, name: Some(name), arguments }] => {
                shared.call(id.clone(), name.clone(), arguments.clone(), judged.value, size);
            }
            [Client::Call { id, name: None, .. }] => {
                if id.is_some() {
                    shared.to_client(&reply::error(id.as_ref(), -32602, "tools/call needs a string `params.name`"));
                }
            }
            _ => {
                let id = judged.value.get("id").filter(|_| judged.value.get("method").is_some()).cloned();
                if let Err(why) = shared.forward(judged.value) {
                    (shared.notice)(&format!("refused a message from the client: {why}"));
                    shared.to_client(&reply::error(id.as_ref(), -32600, &format!("mcp-drift guard: {why}")));
                }
            }
        }
    }
}

/// Reads the server until it closes.
pub(super) fn server_loop(shared: &Shared, output: impl Read) {
    let mut lines = Lines::new(output, shared.bounds.max_message_bytes);
    loop {
        let line = match lines.next_frame() {
            Ok(Frame::Line(line)) => line,
            Ok(Frame::TooLong(n)) => {
                (shared.notice)(&format!("dropped a message of {n} bytes from the server (over the size limit)"));
                continue;
            }
            Ok(Frame::Eof) | Err(_) => return,
        };
        if wire::is_blank(&line) {
            continue;
        }
        // A large listing is read tool by tool, never held as values whole.
        if line.len() >= STREAM_LISTING_BYTES
            && wire::unambiguous(&line)
            && memchr::memmem::find(&line, b"\"tools\"").is_some()
            && shared.listing_line(&line)
        {
            continue;
        }
        let value = match wire::parse(&line) {
            Ok(v) => v,
            Err(e) => {
                (shared.notice)(&format!("dropped a line from the server that is not one JSON text: {e}"));
                continue;
            }
        };
        let Value::Array(items) = value else {
            match shared.inbound(value, line.len()) {
                Inbound::Pass(value) => shared.to_client_as_read(&line, &value),
                // The answer as the server wrote it, with the client's id back in it.
                Inbound::Renamed(value) => match wire::id_span(&line) {
                    Some(span) if wire::unambiguous(&line) => shared.to_client_with_id(&line, span, &value["id"]),
                    _ => shared.to_client(&wire::serialize(&value)),
                },
                Inbound::Changed(value) => shared.to_client(&wire::serialize(&value)),
                Inbound::Taken => true,
            };
            continue;
        };
        // A batch: each message is seen as if it came alone; the guard's own answers are taken out.
        let count = items.len();
        let (mut rest, mut same) = (Vec::with_capacity(count), true);
        for item in items {
            match shared.inbound(item, line.len()) {
                Inbound::Pass(item) => rest.push(item),
                Inbound::Changed(item) | Inbound::Renamed(item) => {
                    same = false;
                    rest.push(item);
                }
                Inbound::Taken => same = false,
            }
        }
        if !rest.is_empty() || count == 0 {
            let batch = Value::Array(rest);
            if same {
                shared.to_client_as_read(&line, &batch);
            } else {
                shared.to_client(&wire::serialize(&batch));
            }
        }
    }
}

/// What becomes of one message from the server.
enum Inbound {
    /// Passed to the client as it came.
    Pass(Value),
    /// A response with the client's id back, nothing else changed.
    Renamed(Value),
    /// Passed to the client changed: a result replaced.
    Changed(Value),
    /// Not for the client: the answer to the guard's own request, or to no request.
    Taken,
}

impl Shared {
    /// One message from the server (`size`: the bytes of the line it came in).
    fn inbound(&self, mut m: Value, size: usize) -> Inbound {
        match wire::server(&m) {
            Server::ListChanged => {
                // Stale first: a call the client sends on seeing the notification waits for the check.
                self.list_changed();
                Inbound::Pass(m)
            }
            Server::Other => Inbound::Pass(m),
            Server::Malformed => {
                (self.notice)(
                    "dropped a message from the server that is neither a request, a notification nor a response",
                );
                Inbound::Taken
            }
            Server::Response => {
                let answer = hold(&self.ids).inbound(&mut m);
                match answer {
                    Answer::Own(id) => {
                        self.own_value(id, m, size);
                        Inbound::Taken
                    }
                    Answer::Unknown => {
                        let id = m.get("id").map_or_else(|| "none".to_owned(), Value::to_string);
                        let id = crate::text::line(&id.chars().take(40).collect::<String>());
                        (self.notice)(&format!(
                            "dropped a response from the server to no request it was sent (id {id})"
                        ));
                        Inbound::Taken
                    }
                    Answer::Client => {
                        if let Some(instead) = self.answered(&m) {
                            return Inbound::Changed(instead);
                        }
                        self.shown_to_client(&m);
                        Inbound::Renamed(m)
                    }
                }
            }
        }
    }
}
