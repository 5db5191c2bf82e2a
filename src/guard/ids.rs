//! Request ids between the guard and the server. Every request the server receives, the client's
//! (forwarded) and the guard's own `tools/list` pages alike, carries an id the guard chose from one
//! counter, so the server cannot tell the guard's listing from the client's by its id and answer
//! the two differently; each answer gets the client's own id back before the client sees it.
//!
//! Takes outgoing messages (a request, a notification, a response, or a flat batch of them) and the
//! server's responses. Promises: ids sent are the numbers 1, 2, 3, ... in the order assigned; a
//! response whose id the guard did not send, or already saw answered, is [`Answer::Unknown`] (the
//! caller drops it: a server cannot forge the answer to a request nobody made); a client's
//! `notifications/cancelled` reaches the server only for a request the server was sent, with that
//! request's server-side id; a client id already awaiting an answer is refused (the cancellation
//! it names would be ambiguous); at most [`MAX_AWAITED`] client requests await answers, and the
//! guard's own ids are remembered for its last [`MAX_OWN`] requests only.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

/// Client requests awaiting the server's answer at once.
pub const MAX_AWAITED: usize = 65_536;
/// The guard's own requests whose answers are still recognized (a check asks for one page at a time;
/// older ones belong to checks given up).
const MAX_OWN: usize = 64;

/// Whose request a server's response answers.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer {
    /// A forwarded client request: the id is now the client's.
    Client,
    /// The guard's own request, with the id the guard gave it.
    Own(u64),
    /// A request never sent, or answered already.
    Unknown,
}

#[derive(Default)]
pub struct Ids {
    /// The last id given.
    last: u64,
    /// The client's id of each forwarded request awaiting an answer, by the id the server was sent.
    forwarded: HashMap<u64, Value>,
    /// The other way round, by the client id's JSON text (for cancellations).
    by_client: HashMap<String, u64>,
    own: VecDeque<u64>,
}

/// A request of the client: a `method`, and an `id` that is not null.
fn is_request(m: &Value) -> bool {
    m.get("method").is_some() && m.get("id").is_some_and(|i| !i.is_null())
}

/// A client's `notifications/cancelled` (an `id` of `null` too: then it is no request, and its
/// `requestId` is still the client's id to point at the server-side one, or to drop).
fn is_cancel(m: &Value) -> bool {
    m.get("method").and_then(Value::as_str) == Some("notifications/cancelled") && m.get("id").is_none_or(Value::is_null)
}

impl Ids {
    /// The id of one of the guard's own requests.
    pub fn own(&mut self) -> u64 {
        self.last += 1;
        if self.own.len() >= MAX_OWN {
            self.own.pop_front();
        }
        self.own.push_back(self.last);
        self.last
    }

    /// Gives every request of `message` (one message or a batch) an id of the guard's, and points each
    /// cancellation at the server-side id of the request it names. Returns whether anything is left to
    /// send: a cancellation of a request the server was never sent is taken out (the server could
    /// take its id for another request's).
    ///
    /// # Errors
    /// A client id already awaiting an answer, or too many awaiting: nothing is changed then.
    pub fn outbound(&mut self, message: &mut Value) -> Result<bool, String> {
        let items: Vec<&Value> = match &*message {
            Value::Array(items) => items.iter().collect(),
            one => vec![one],
        };
        let mut seen = Vec::new();
        for m in items.iter().filter(|m| is_request(m)) {
            let key = m["id"].to_string();
            if self.by_client.contains_key(&key) || seen.contains(&key) {
                return Err(format!("the id {key} is already used by a request that awaits its answer"));
            }
            seen.push(key);
        }
        if self.forwarded.len().saturating_add(seen.len()) > MAX_AWAITED {
            return Err(format!("more than {MAX_AWAITED} requests would await the server's answers"));
        }
        match message {
            Value::Array(items) => {
                items.retain_mut(|m| self.rewrite(m));
                Ok(!items.is_empty())
            }
            one => Ok(self.rewrite(one)),
        }
    }

    /// One message of [`Ids::outbound`]: whether to keep it.
    fn rewrite(&mut self, m: &mut Value) -> bool {
        if is_request(m) {
            self.last += 1;
            let client = std::mem::replace(&mut m["id"], Value::from(self.last));
            self.by_client.insert(client.to_string(), self.last);
            self.forwarded.insert(self.last, client);
        } else if is_cancel(m) {
            let Some(at) = m.pointer("/params/requestId").and_then(|id| self.by_client.get(&id.to_string())) else {
                return false;
            };
            m["params"]["requestId"] = Value::from(*at);
        }
        true
    }

    /// Whose request a response with this id would answer, without taking it: the client's id for a
    /// forwarded request.
    #[must_use]
    pub fn peek(&self, id: &Value) -> (Answer, Option<&Value>) {
        let Some(n) = id.as_u64() else { return (Answer::Unknown, None) };
        if let Some(client) = self.forwarded.get(&n) {
            return (Answer::Client, Some(client));
        }
        if self.own.contains(&n) {
            return (Answer::Own(n), None);
        }
        (Answer::Unknown, None)
    }

    /// Whose request the server's response `m` answers; a forwarded client request's gets the
    /// client's id back.
    pub fn inbound(&mut self, m: &mut Value) -> Answer {
        let Some(id) = m.get("id").and_then(Value::as_u64) else { return Answer::Unknown };
        if let Some(client) = self.forwarded.remove(&id) {
            self.by_client.remove(&client.to_string());
            m["id"] = client;
            return Answer::Client;
        }
        if let Some(at) = self.own.iter().position(|o| *o == id) {
            self.own.remove(at);
            return Answer::Own(id);
        }
        Answer::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_server_sees_one_counter_and_the_client_its_own_ids() {
        let mut ids = Ids::default();
        let mut call = json!({"jsonrpc": "2.0", "id": "abc", "method": "tools/call", "params": {"name": "x"}});
        assert_eq!(ids.outbound(&mut call), Ok(true));
        assert_eq!(call["id"], json!(1));
        assert_eq!(ids.own(), 2);
        let mut list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        assert_eq!(ids.outbound(&mut list), Ok(true));
        assert_eq!(list["id"], json!(3));
        // Answers, in any order.
        let mut own = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}});
        assert_eq!(ids.inbound(&mut own), Answer::Own(2));
        let mut answer = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        assert_eq!(ids.inbound(&mut answer), Answer::Client);
        assert_eq!(answer["id"], json!("abc"));
        let mut answer = json!({"jsonrpc": "2.0", "id": 3, "result": {}});
        assert_eq!(ids.inbound(&mut answer), Answer::Client);
        assert_eq!(answer["id"], json!(2));
        // Answered already, never asked, or not a number.
        for id in [json!(1), json!(2), json!(99), json!("1"), Value::Null] {
            assert_eq!(ids.inbound(&mut json!({"jsonrpc": "2.0", "id": id, "result": {}})), Answer::Unknown, "{id}");
        }
    }

    #[test]
    fn notifications_responses_and_cancellations() {
        let mut ids = Ids::default();
        // Notifications and responses to the server's own requests keep their ids.
        let mut note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(ids.outbound(&mut note), Ok(true));
        assert_eq!(note, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let mut pong = json!({"jsonrpc": "2.0", "id": "srv-1", "result": {}});
        assert_eq!(ids.outbound(&mut pong), Ok(true));
        assert_eq!(pong["id"], json!("srv-1"));
        // A cancellation names the server-side id, or is not sent.
        let mut call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call"});
        ids.outbound(&mut call).unwrap();
        let mut cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}});
        assert_eq!(ids.outbound(&mut cancel), Ok(true));
        assert_eq!(cancel["params"]["requestId"], json!(1));
        let mut stray = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 8}});
        assert_eq!(ids.outbound(&mut stray), Ok(false));
        let mut batch = json!([stray, {"jsonrpc": "2.0", "id": 9, "method": "ping"}]);
        assert_eq!(ids.outbound(&mut batch), Ok(true));
        assert_eq!(batch, json!([{"jsonrpc": "2.0", "id": 2, "method": "ping"}]));
    }

    #[test]
    fn an_id_awaiting_its_answer_is_not_given_twice() {
        let mut ids = Ids::default();
        ids.outbound(&mut json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).unwrap();
        assert!(ids.outbound(&mut json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).is_err());
        let mut twice =
            json!([{"jsonrpc": "2.0", "id": 5, "method": "ping"}, {"jsonrpc": "2.0", "id": 5, "method": "ping"}]);
        assert!(ids.outbound(&mut twice).is_err());
        // Nothing changed by a refusal.
        assert_eq!(twice[0]["id"], json!(5));
        assert_eq!(ids.inbound(&mut json!({"jsonrpc": "2.0", "id": 1, "result": {}})), Answer::Client);
        assert_eq!(ids.outbound(&mut json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})), Ok(true));
    }
}
