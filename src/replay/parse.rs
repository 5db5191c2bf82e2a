//! One recorded line to the events it holds: the shapes `mcp-drift replay` reads.
//!
//! Takes the bytes of one line (JSON); returns the [`Event`]s in it, in order, or `Err` when the line
//! is not JSON. Promises: never panics; looks at most [`MAX_WRAP`] wrappers deep and into one batch
//! level; ids are kept only as short canonical keys (at most [`MAX_ID_BYTES`]), so a pending request
//! costs little whatever the line holds.
//!
//! The shapes, any mix in one file:
//! - a JSON-RPC message: a `tools/call` request (`params.name`, `params.arguments`), or a response
//!   (`result.structuredContent`, `result.isError`, `error`); other messages are [`Event::Other`];
//! - a JSON-RPC batch (an array of messages);
//! - a wrapper object holding a message under one of [`WRAPPERS`] (proxy and inspector logs), as an
//!   object, an array, or a JSON string;
//! - a bare record `{"tool": NAME, "arguments": {...}}`, optionally with `"structuredContent"`;
//! - a `guard --audit` line (`tool` and `decision`, no arguments).

use serde_json::{Map, Value};

/// The fields of a wrapper object that may hold the message (`{"direction": "...", "message": {...}}`).
pub const WRAPPERS: [&str; 2] = ["message", "payload"];

/// Wrappers looked into, at most, for one line.
pub const MAX_WRAP: usize = 2;

/// Longest id, as canonical JSON, that requests and responses are matched by.
pub const MAX_ID_BYTES: usize = 256;

/// What a recorded line says.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A call of `tool` (a `tools/call` request or a bare record). `arguments` is `None` when the call
    /// carries none (the server then sees `{}`). `id` is the request's id key, if it has one that can be
    /// matched; `result` is a result recorded with it (bare records).
    Call { id: Option<String>, tool: String, arguments: Option<Value>, result: Option<Recorded> },
    /// A response to the request with this id key.
    Response { id: String, result: Recorded },
    /// A request other than `tools/call` (`initialize`, `tools/list`, a server's `ping`): its response
    /// is matched and left alone.
    Request { id: String },
    /// A `guard --audit` line: a call of `tool` without its arguments.
    Audit { tool: String },
    /// A `tools/call` request without a string `params.name`: a call that names no tool.
    Unnamed,
    /// Any other message (notifications, other methods, a response without a usable id).
    Other,
}

/// What a call's response recorded.
#[derive(Clone, Debug, PartialEq)]
pub enum Recorded {
    /// `structuredContent` of a successful result.
    Structured(Value),
    /// A result with `isError: true` (not described by the `outputSchema`).
    ToolError,
    /// A JSON-RPC `error`.
    RpcError,
    /// A result without `structuredContent`.
    Unstructured,
}

/// A line that is not JSON.
#[derive(Debug, PartialEq, Eq)]
pub struct NotJson;

/// The events of one line.
///
/// # Errors
/// When the line is not JSON.
pub fn events(line: &[u8]) -> Result<Vec<Event>, NotJson> {
    let value: Value = serde_json::from_slice(line).map_err(|_| NotJson)?;
    let mut out = Vec::new();
    top(value, 0, &mut out);
    Ok(out)
}

/// A line's value: a batch, a message, a record or a wrapper.
fn top(value: Value, wraps: usize, out: &mut Vec<Event>) {
    match value {
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::Object(m) => out.push(message(m)),
                    _ => out.push(Event::Other),
                }
            }
        }
        Value::Object(m) => object(m, wraps, out),
        _ => out.push(Event::Other),
    }
}

fn object(mut m: Map<String, Value>, wraps: usize, out: &mut Vec<Event>) {
    if m.contains_key("jsonrpc") || m.contains_key("method") || m.contains_key("result") || m.contains_key("error") {
        out.push(message(m));
        return;
    }
    if let Some(Value::String(tool)) = m.get("tool") {
        let tool = tool.clone();
        if m.contains_key("decision") && !m.contains_key("arguments") {
            out.push(Event::Audit { tool });
            return;
        }
        let arguments = m.remove("arguments").filter(|a| !a.is_null());
        let result = m.remove("structuredContent").map(Recorded::Structured);
        out.push(Event::Call { id: None, tool, arguments, result });
        return;
    }
    if wraps < MAX_WRAP {
        for field in WRAPPERS {
            match m.remove(field) {
                Some(inner @ (Value::Object(_) | Value::Array(_))) => return top(inner, wraps + 1, out),
                Some(Value::String(text)) => {
                    if let Ok(inner @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str::<Value>(&text) {
                        return top(inner, wraps + 1, out);
                    }
                }
                _ => {}
            }
        }
    }
    out.push(Event::Other);
}

/// One JSON-RPC message.
fn message(mut m: Map<String, Value>) -> Event {
    let id = m.get("id").and_then(id_key);
    if m.get("method").and_then(Value::as_str) == Some("tools/call") {
        let Some(Value::Object(mut params)) = m.remove("params") else { return Event::Unnamed };
        let Some(Value::String(tool)) = params.remove("name") else { return Event::Unnamed };
        let arguments = params.remove("arguments").filter(|a| !a.is_null());
        return Event::Call { id, tool, arguments, result: None };
    }
    if m.contains_key("method") {
        return id.map_or(Event::Other, |id| Event::Request { id });
    }
    let Some(id) = id else { return Event::Other };
    if m.contains_key("error") {
        return Event::Response { id, result: Recorded::RpcError };
    }
    match m.remove("result") {
        Some(Value::Object(mut r)) => {
            let result = if r.get("isError").and_then(Value::as_bool) == Some(true) {
                Recorded::ToolError
            } else {
                match r.remove("structuredContent") {
                    Some(v) => Recorded::Structured(v),
                    None => Recorded::Unstructured,
                }
            };
            Event::Response { id, result }
        }
        _ => Event::Other,
    }
}

/// The key an id is matched by: its canonical JSON (`1` and `"1"` differ, as in JSON-RPC). Only
/// strings and numbers are ids; longer keys than [`MAX_ID_BYTES`] are not matched.
fn id_key(id: &Value) -> Option<String> {
    match id {
        Value::String(_) | Value::Number(_) => {
            let key = id.to_string();
            (key.len() <= MAX_ID_BYTES).then_some(key)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(line: &str) -> Event {
        let mut e = events(line.as_bytes()).unwrap();
        assert_eq!(e.len(), 1, "{line}: {e:?}");
        e.remove(0)
    }

    #[test]
    fn requests_and_responses() {
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"q":"x"}}}"#),
            Event::Call {
                id: Some("7".into()),
                tool: "search".into(),
                arguments: Some(json!({"q": "x"})),
                result: None
            }
        );
        // No arguments: the server sees `{}`; a string id is not the number.
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","id":"7","method":"tools/call","params":{"name":"ping"}}"#),
            Event::Call { id: Some("\"7\"".into()), tool: "ping".into(), arguments: None, result: None }
        );
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"n":1}}}"#),
            Event::Response { id: "7".into(), result: Recorded::Structured(json!({"n": 1})) }
        );
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"n":1},"isError":true}}"#),
            Event::Response { id: "7".into(), result: Recorded::ToolError }
        );
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}}"#),
            Event::Response { id: "7".into(), result: Recorded::RpcError }
        );
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}"#),
            Event::Response { id: "7".into(), result: Recorded::Unstructured }
        );
        assert_eq!(one(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), Event::Other);
        assert_eq!(one(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#), Event::Request { id: "1".into() });
        assert_eq!(one(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3}}"#), Event::Unnamed);
        // An id that is neither a string nor a number, or too long, cannot be matched.
        assert_eq!(one(r#"{"jsonrpc":"2.0","id":{"a":1},"result":{}}"#), Event::Other);
        let long = format!(r#"{{"jsonrpc":"2.0","id":"{}","result":{{}}}}"#, "x".repeat(MAX_ID_BYTES));
        assert_eq!(one(&long), Event::Other);
    }

    #[test]
    fn batches_wrappers_records_and_audit_lines() {
        let batch = events(
            br#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}},{"jsonrpc":"2.0","method":"x"},3]"#,
        )
        .unwrap();
        assert_eq!(batch.len(), 3);
        assert!(matches!(&batch[0], Event::Call { tool, .. } if tool == "a"));
        assert_eq!(batch[1..], [Event::Other, Event::Other]);
        let wrapped = r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b","arguments":{}}}}"#;
        assert!(matches!(one(wrapped), Event::Call { tool, .. } if tool == "b"));
        let as_text = r#"{"payload":"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}"}"#;
        assert_eq!(one(as_text), Event::Response { id: "2".into(), result: Recorded::Unstructured });
        // Wrappers nest only so deep.
        let deep = r#"{"message":{"message":{"message":{"tool":"c","arguments":{}}}}}"#;
        assert_eq!(one(deep), Event::Other);
        assert_eq!(
            one(r#"{"tool":"c","arguments":{"k":1},"structuredContent":{"ok":true}}"#),
            Event::Call {
                id: None,
                tool: "c".into(),
                arguments: Some(json!({"k": 1})),
                result: Some(Recorded::Structured(json!({"ok": true})))
            }
        );
        let audit = r#"{"time":"2026-01-01T00:00:00Z","tool":"c","id":4,"decision":"forwarded","locked_hash":"ab","current_hash":"ab","rules":[]}"#;
        assert_eq!(one(audit), Event::Audit { tool: "c".into() });
        assert!(events(b"not json").is_err());
        assert!(events(b"{\"a\":").is_err());
        assert_eq!(one("17"), Event::Other);
    }
}
