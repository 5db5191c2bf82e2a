//! The proxy itself: one thread reads the client, one reads the server, and the caller's thread
//! supervises (timeouts, shutdown). Takes the client's streams, the spawned server's pipes and the
//! settings; returns when the session is over.
//!
//! Promises:
//! - a client message reaches the server only as judged and re-serialized (`wire::client`): what
//!   cannot be judged exactly, a batch that calls a tool and a line over the size limit are answered
//!   with a JSON-RPC error instead; `tools/call`s are forwarded only when the tool's verdict allows
//!   it, else answered here;
//! - a server message reaches the client as read when no reader can split it otherwise, else
//!   re-serialized; the guard's own `tools/list` responses never do (in a batch too), and a line
//!   that is not one JSON text is dropped;
//! - with `Recheck::EveryCall`, no call reaches the server before a `tools/list` the guard asked for
//!   after the call arrived was checked (calls that arrive during a listing wait for the next one);
//!   with `Recheck::OnNotify`, before one fetched after the last `notifications/tools/list_changed`
//!   it has seen; calls wait in order, at most `max_queued_calls` of them, and one check has one
//!   deadline (`Bounds::timeout`) however many pages or restarts it takes;
//! - lock order is state, then a stream: a thread never waits for the state while holding a stream,
//!   and every decision is written while the state is held, so calls reach the server in the order
//!   they were decided.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{Read, Write};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use sha2::{Digest, Sha256};

mod loops;

use super::check::{self, Checked, Lock, Policy, Verdict};
use super::ids::{Answer, Ids};
use super::listing::{self, Listed};
use super::wire;
use super::{Bounds, Notice, Recheck, reply};
use crate::replay::check::{Schema, Verdict as Validation};

/// A list that changes while the guard fetches it is fetched again, this often at most in a row.
const MAX_RESTARTS: usize = 8;

/// The client's `tools/list` requests whose answers are awaited (to see what the client is shown).
const MAX_CLIENT_LISTS: usize = 256;

/// Forwarded calls whose results are awaited (to check them against the locked `outputSchema`); calls
/// beyond this many at once are forwarded without their results being checked.
const MAX_IN_FLIGHT: usize = 4096;

/// The validators of one locked tool, built on its first call.
struct Checks {
    input: Schema<'static>,
    output: Option<Schema<'static>>,
}

enum Event {
    /// The client closed its output (or it could not be read).
    ClientClosed,
    /// The server closed its output.
    ServerClosed,
}

/// What the guard knows of the server's tools.
enum View {
    /// Nothing checked since the start or the last change: the next call fetches.
    Stale,
    Fetching(Box<Fetch>),
    Ready(Arc<Checked>),
}

struct Fetch {
    /// The id of the page request in flight.
    id: u64,
    /// Every page's tools: names and hashes, and the objects of those not locked as listed.
    tools: Vec<Listed>,
    /// The size of the pages read so far.
    bytes: usize,
    cursors: HashSet<String>,
    pages: usize,
    /// When the first page was asked for: the whole check has one deadline.
    began: Instant,
    /// The calls it may decide: those that arrived before it began (`Pending::seq` below this).
    covers: u64,
    /// The SHA-256 of the listed tools as read so far (each page's `tools` array, serialized).
    digest: Sha256,
    /// A `list_changed` arrived during this fetch: its result may already be old.
    changed: bool,
    restarts: usize,
}

struct Pending {
    /// Its place in the order calls arrived (see `Fetch::covers`).
    seq: u64,
    id: Option<Value>,
    tool: String,
    arguments: Value,
    /// The message as judged, with the client's id.
    message: Value,
    /// The size of its line.
    size: usize,
}

struct State {
    view: View,
    queue: VecDeque<Pending>,
    queued_bytes: usize,
    /// How many calls have arrived.
    arrivals: u64,
    /// The digest of the last listing checked and its verdicts: an unchanged listing (the common case
    /// when every call re-lists) is not judged again.
    last: Option<(Vec<u8>, Arc<Checked>)>,
    /// The server closed its output: nothing more can be forwarded.
    gone: bool,
}

pub(super) struct Shared {
    state: Mutex<State>,
    server_in: Mutex<Option<Box<dyn Write + Send>>>,
    /// The ids of requests sent to the server.
    ids: Mutex<Ids>,
    client_out: Mutex<Box<dyn Write + Send>>,
    audit: Option<Mutex<std::fs::File>>,
    /// `--record`: every message read from the client and written to it, one line each.
    recording: Option<Mutex<std::fs::File>>,
    lock: &'static Lock,
    /// Validators by tool name, built on first use.
    schemas: Mutex<HashMap<String, Arc<Checks>>>,
    /// Forwarded calls awaiting their result: the tool, by the request id's JSON text.
    in_flight: Mutex<HashMap<String, String>>,
    /// Replace a result the locked `outputSchema` rejects with an `isError` result.
    enforce_results: bool,
    /// The `params` of the client's last `tools/list` (`None`: it had none, or none was sent yet), for
    /// the guard's own to look the same.
    list_shape: Mutex<Option<Value>>,
    /// The ids (JSON text) of the client's `tools/list` requests not answered yet.
    client_lists: Mutex<HashSet<String>>,
    /// The contract hash of each tool as the server last showed it to the client (`None`: not hashable).
    shown: Mutex<HashMap<String, Option<String>>>,
    policy: Policy,
    bounds: Bounds,
    recheck: Recheck,
    notice: Notice,
}

fn hold<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    pub(super) fn new(
        lock: &'static Lock,
        policy: Policy,
        bounds: Bounds,
        audit: Option<std::fs::File>,
        server_in: Box<dyn Write + Send>,
        client_out: Box<dyn Write + Send>,
        notice: Notice,
    ) -> Shared {
        Shared {
            state: Mutex::new(State {
                view: View::Stale,
                queue: VecDeque::new(),
                queued_bytes: 0,
                arrivals: 0,
                last: None,
                gone: false,
            }),
            server_in: Mutex::new(Some(server_in)),
            ids: Mutex::new(Ids::default()),
            client_out: Mutex::new(client_out),
            audit: audit.map(Mutex::new),
            recording: None,
            lock,
            schemas: Mutex::new(HashMap::new()),
            in_flight: Mutex::new(HashMap::new()),
            enforce_results: false,
            client_lists: Mutex::new(HashSet::new()),
            list_shape: Mutex::new(None),
            shown: Mutex::new(HashMap::new()),
            policy,
            bounds,
            recheck: Recheck::EveryCall,
            notice,
        }
    }

    /// Results the locked `outputSchema` rejects are replaced (`--enforce-results`).
    pub(super) fn enforce_results(&mut self, on: bool) {
        self.enforce_results = on;
    }

    /// The validators of a locked tool.
    fn checks(&self, tool: &str) -> Option<Arc<Checks>> {
        if !self.lock.has(tool) {
            return None;
        }
        let mut cache = hold(&self.schemas);
        if let Some(c) = cache.get(tool) {
            return Some(Arc::clone(c));
        }
        let (input, output) = self.lock.schemas(tool)?;
        // Kept for the session, like the cache entry that borrows them: once per tool called.
        let input: &'static Value = Box::leak(Box::new(input));
        let output: Option<&'static Value> = output.map(|o| &*Box::leak(Box::new(o)));
        let c = Arc::new(Checks { input: Schema::new(input), output: output.map(Schema::new) });
        cache.insert(tool.to_owned(), Arc::clone(&c));
        Some(c)
    }

    /// Why the approved `inputSchema` rejects a call's arguments, when it does: the locked one, or the
    /// listed one when the policy lets the tool's drift through.
    fn rejected_arguments(&self, checked: &Checked, p: &Pending) -> Option<Vec<String>> {
        let mut fuel = crate::replay::check::MAX_CALL_COST;
        let verdict = match checked.accepted_input(&p.tool) {
            Some(accepted) => Schema::new(accepted).check(&p.arguments, &mut fuel),
            None => self.checks(&p.tool)?.input.check(&p.arguments, &mut fuel),
        };
        match verdict {
            Validation::Invalid(rejections) => Some(reasons(&rejections)),
            Validation::Valid | Validation::Skipped(_) => None,
        }
    }

    /// The client's `tools/list` message: its `params` become the shape of the guard's own.
    fn list_shape(&self, message: &Value) {
        let mut params = message.get("params").filter(|p| p.is_object()).cloned();
        // A progress token is the client's: the server's progress for the guard's listing must not
        // reach the client under it.
        if let Some(Value::Object(meta)) = params.as_mut().and_then(|p| p.get_mut("_meta")) {
            meta.remove("progressToken");
        }
        // Bounded: a shape is a few keys, never a large value held for the session.
        if params.as_ref().is_none_or(|p| p.to_string().len() <= 1024) {
            *hold(&self.list_shape) = params;
        }
    }

    /// The client asked for the tools: its answer is what the client is shown.
    fn client_lists(&self, id: &Value) {
        let mut lists = hold(&self.client_lists);
        if lists.len() < MAX_CLIENT_LISTS {
            lists.insert(id.to_string());
        }
    }

    /// A response from the server to the client's own `tools/list`: the contracts it shows the client
    /// are remembered, to be compared with the guard's own listing before each call.
    fn shown_to_client(&self, m: &Value) {
        if m.get("method").is_some() {
            return;
        }
        let Some(id) = m.get("id") else { return };
        if !hold(&self.client_lists).remove(&id.to_string()) {
            return;
        }
        let Some(Value::Array(tools)) = m.pointer("/result/tools") else { return };
        self.shown(
            tools.iter().map(|t| (t.get("name").and_then(Value::as_str), check::listed_hash(t).map(|(_, h)| h))),
        );
    }

    /// Remembers the contract hash of each tool the client was shown (by hash only: what the client
    /// is shown is compared with the guard's own listing by hash).
    fn shown<'t>(&self, tools: impl Iterator<Item = (Option<&'t str>, Option<String>)>) {
        let mut hashes: HashMap<&str, Option<String>> = HashMap::new();
        for (name, hash) in tools {
            let Some(name) = name else { continue };
            // A name listed twice has no one contract.
            hashes.entry(name).and_modify(|h| *h = None).or_insert(hash);
        }
        let mut shown = hold(&self.shown);
        for (name, hash) in hashes {
            shown.insert(name.to_owned(), hash);
        }
    }

    /// A large line from the server read as a `tools/list` answer, tool by tool, without holding it
    /// as values ([`listing`]): the guard's own page, or the answer to the client's `tools/list`
    /// (passed on as the server wrote it, with the client's id back). Returns whether it was one of
    /// those; anything else is left to the usual reading.
    fn listing_line(&self, line: &[u8]) -> bool {
        let keep = |name: Option<&str>, hash: Option<&str>| check::keep(self.lock, name, hash);
        let Ok(listing::Read::Listing(l)) = listing::read(line, &keep) else { return false };
        let mut message = serde_json::json!({ "id": l.id });
        let mut ids = hold(&self.ids);
        // Where the id is, for the line as the client gets it: the server's bytes, the client's id.
        let span = match ids.peek(&message["id"]) {
            (Answer::Own(_), _) => None,
            (Answer::Client, Some(client)) if hold(&self.client_lists).contains(&client.to_string()) => {
                let Some(span) = wire::id_span(line) else { return false };
                Some(span)
            }
            _ => return false,
        };
        let answer = ids.inbound(&mut message);
        drop(ids);
        match (answer, span) {
            (Answer::Own(id), _) => self.own(id, Page::Tools { tools: l.tools, cursor: l.next_cursor }, line.len()),
            (Answer::Client, Some(span)) => {
                hold(&self.client_lists).remove(&message["id"].to_string());
                self.shown(l.tools.iter().map(|t| (t.name.as_deref(), t.hash.clone())));
                self.to_client_with_id(line, span, &message["id"]);
            }
            _ => {}
        }
        true
    }

    /// A response from the server: when it answers a forwarded call of a tool with a locked
    /// `outputSchema`, its `structuredContent` is checked; a rejection is noticed and audited, and with
    /// `--enforce-results` the message to send instead is returned.
    fn answered(&self, m: &Value) -> Option<Value> {
        if m.get("method").is_some() {
            return None;
        }
        let id = m.get("id")?;
        let tool = hold(&self.in_flight).remove(&id.to_string())?;
        let result = m.get("result")?;
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            return None;
        }
        let checks = self.checks(&tool)?;
        let output = checks.output.as_ref()?;
        let mut fuel = crate::replay::check::MAX_CALL_COST;
        let reasons = match result.get("structuredContent") {
            None => vec!["the result has no structuredContent, which its outputSchema calls for".to_owned()],
            Some(content) => match output.check(content, &mut fuel) {
                Validation::Invalid(rejections) => reasons(&rejections),
                Validation::Valid | Validation::Skipped(_) => return None,
            },
        };
        let what = if self.enforce_results { "replaced" } else { "passed on" };
        (self.notice)(&format!(
            "the result of tools/call `{tool}` does not fit its locked outputSchema ({what}): {}",
            reasons.join("; ")
        ));
        if let Some(file) = &self.audit {
            let line = reply::result_audit(&tool, id, self.enforce_results, &reasons, SystemTime::now());
            let mut file = hold(file);
            if let Err(e) = file.write_all(&line).and_then(|()| file.flush()) {
                (self.notice)(&format!("cannot write the audit log: {e}"));
            }
        }
        self.enforce_results.then(|| reply::result_withheld(id, &tool, &reasons, &self.lock.name))
    }

    /// When the server's tools are listed again before a call (see [`Recheck`]).
    pub(super) fn recheck(&mut self, recheck: Recheck) {
        self.recheck = recheck;
    }

    /// Records every message of the session in `file` (see [`Shared::recorded`]).
    pub(super) fn record_to(&mut self, file: Option<std::fs::File>) {
        self.recording = file.map(Mutex::new);
    }

    /// Appends one message, as it passed, to the recording (flushed, so a crash loses nothing).
    fn recorded(&self, line: &[u8]) {
        let Some(file) = &self.recording else { return };
        if wire::is_blank(line) {
            return;
        }
        let mut file = hold(file);
        let end: &[u8] = if line.ends_with(b"\n") { b"" } else { b"\n" };
        if let Err(e) = file.write_all(line).and_then(|()| file.write_all(end)).and_then(|()| file.flush()) {
            (self.notice)(&format!("cannot write the recording: {e}"));
        }
    }

    fn to_client(&self, line: &[u8]) -> bool {
        self.recorded(line);
        let mut out = hold(&self.client_out);
        out.write_all(line).and_then(|()| out.flush()).is_ok()
    }

    /// [`Shared::to_client`] of `line` with the bytes at `span` replaced by `id`, written in three
    /// parts: a large answer is not copied to give it its id back.
    fn to_client_with_id(&self, line: &[u8], span: std::ops::Range<usize>, id: &Value) -> bool {
        // As `wire::serialize` writes it (line separators escaped), without its line end.
        let mut id = wire::serialize(id);
        id.pop();
        let (head, tail) = (&line[..span.start], &line[span.end..]);
        if self.recording.is_some() {
            self.recorded(&[head, &id, tail].concat());
        }
        let mut out = hold(&self.client_out);
        out.write_all(head)
            .and_then(|()| out.write_all(&id))
            .and_then(|()| out.write_all(tail))
            .and_then(|()| out.flush())
            .is_ok()
    }

    /// Passes a server's message on as it was read when every reader reads it as the guard did, else
    /// as the guard read it.
    fn to_client_as_read(&self, line: &[u8], value: &Value) -> bool {
        if wire::unambiguous(line) { self.to_client(line) } else { self.to_client(&wire::serialize(value)) }
    }

    fn to_server(&self, line: &[u8]) -> bool {
        match hold(&self.server_in).as_mut() {
            Some(stdin) => stdin.write_all(line).and_then(|()| stdin.flush()).is_ok(),
            None => false,
        }
    }

    /// Sends a judged client message to the server with ids of the guard's ([`Ids::outbound`]).
    /// `Ok(false)`: nothing was left to send, or the server no longer reads.
    ///
    /// # Errors
    /// Why the ids refused it (nothing was sent).
    fn forward(&self, mut message: Value) -> Result<bool, String> {
        if !hold(&self.ids).outbound(&mut message)? {
            return Ok(false);
        }
        Ok(self.to_server(&wire::serialize(&message)))
    }

    fn close_server_input(&self) {
        hold(&self.server_in).take();
    }

    fn record(&self, a: &reply::Audit<'_>) {
        let Some(file) = &self.audit else { return };
        let line = reply::audit(a, SystemTime::now());
        let mut file = hold(file);
        if let Err(e) = file.write_all(&line).and_then(|()| file.flush()) {
            (self.notice)(&format!("cannot write the audit log: {e}"));
        }
    }

    /// Answers a call without forwarding it, because it could not be checked.
    fn unchecked(&self, p: &Pending, reason: &str) {
        if let Some(id) = &p.id {
            self.to_client(&reply::unchecked(id, &p.tool, reason));
        }
        (self.notice)(&format!("did not forward tools/call `{}`: {reason}", p.tool));
        self.record_unforwarded(p, reason);
    }

    /// The audit line of a call that was never forwarded and never checked against a listing.
    fn record_unforwarded(&self, p: &Pending, reason: &str) {
        self.record(&reply::Audit {
            tool: &p.tool,
            id: p.id.as_ref(),
            forwarded: false,
            locked: self.lock.file.tools.get(&p.tool).map(|t| t.sha256.as_str()),
            current: None,
            rules: Vec::new(),
            reason: Some(reason),
        });
    }

    /// Refuses a call of an allowed contract whose arguments that contract rejects.
    fn refuse_arguments(&self, p: &Pending, verdict: &Verdict, reasons: &[String]) {
        if let Some(id) = &p.id {
            self.to_client(&reply::arguments_refused(id, &p.tool, verdict, reasons, &self.lock.name));
        }
        let why = format!("its arguments do not fit the locked inputSchema: {}", reasons.join("; "));
        (self.notice)(&format!("refused tools/call `{}`: {why}", p.tool));
        self.record(&reply::Audit {
            tool: &p.tool,
            id: p.id.as_ref(),
            forwarded: false,
            locked: verdict.locked.as_deref(),
            current: verdict.current.as_deref(),
            rules: verdict.rules(),
            reason: Some(&why),
        });
    }

    /// Forwards or refuses one call, by the tools as last checked.
    fn decide(&self, checked: &Checked, p: &Pending) {
        let mut verdict = checked.verdict(&p.tool);
        // A server that shows the guard one contract and the client another is refused: the client
        // acts on what it was shown.
        if let Some(shown) = hold(&self.shown).get(&p.tool)
            && *shown != verdict.current
        {
            verdict.blocked = true;
            verdict.problem = Some(format!(
                "the server showed the client another contract (sha256 {}) than the guard's own tools/list (sha256 {})",
                short(shown.as_deref()),
                short(verdict.current.as_deref())
            ));
        }
        let mut forwarded = false;
        if !verdict.blocked {
            if let Some(reasons) = self.rejected_arguments(checked, p) {
                return self.refuse_arguments(p, &verdict, &reasons);
            }
            if let Some(id) = &p.id {
                let mut in_flight = hold(&self.in_flight);
                if in_flight.len() < MAX_IN_FLIGHT {
                    in_flight.insert(id.to_string(), p.tool.clone());
                }
            }
            match self.forward(p.message.clone()) {
                Ok(true) => forwarded = true,
                Ok(false) => return self.unchecked(p, "the server no longer reads its input"),
                Err(why) => {
                    if let Some(id) = &p.id {
                        hold(&self.in_flight).remove(&id.to_string());
                    }
                    return self.unchecked(p, &why);
                }
            }
        } else if let Some(id) = &p.id {
            self.to_client(&reply::refusal(id, &p.tool, &verdict, &self.lock.name));
        }
        if !forwarded {
            let rules = verdict.rules().join(", ");
            let rules = if rules.is_empty() { String::new() } else { format!(" ({rules})") };
            let why = match (&verdict.problem, &verdict.locked) {
                (Some(problem), _) => problem.as_str(),
                (None, None) => "it is not in the lock",
                (None, Some(_)) => "its contract differs from the lock",
            };
            (self.notice)(&format!("refused tools/call `{}`: {why}{rules}", p.tool));
        }
        self.record(&reply::Audit {
            tool: &p.tool,
            id: p.id.as_ref(),
            forwarded,
            locked: verdict.locked.as_deref(),
            current: verdict.current.as_deref(),
            rules: verdict.rules(),
            reason: None,
        });
    }

    /// Sends the first page request of a fetch.
    /// A restart keeps the deadline of the check it restarts (`began`).
    fn start_fetch(&self, st: &mut State, restarts: usize, began: Instant) {
        let id = hold(&self.ids).own();
        let shape = hold(&self.list_shape).clone();
        if !self.to_server(&reply::list_request(id, None, shape.as_ref())) {
            return self.fail(st, "the server no longer reads its input");
        }
        // Every call waiting now arrived before this listing was asked for; on notice, a listing
        // decides every call that waits for it.
        let covers = match self.recheck {
            Recheck::EveryCall => st.arrivals,
            Recheck::OnNotify => u64::MAX,
        };
        st.view = View::Fetching(Box::new(Fetch {
            id,
            tools: Vec::new(),
            bytes: 0,
            cursors: HashSet::new(),
            pages: 1,
            began,
            covers,
            digest: Sha256::new(),
            changed: false,
            restarts,
        }));
    }

    /// Gives up on the fetch in flight: every waiting call is answered, the next one fetches again.
    fn fail(&self, st: &mut State, reason: &str) {
        st.view = View::Stale;
        st.queued_bytes = 0;
        let queue = std::mem::take(&mut st.queue);
        if queue.is_empty() {
            (self.notice)(&format!("could not check the server's tools: {reason}"));
        }
        for p in &queue {
            self.unchecked(p, &format!("its tools could not be checked against the lock: {reason}"));
        }
    }

    /// A `tools/call` from the client.
    fn call(&self, id: Option<Value>, tool: String, arguments: Value, message: Value, size: usize) {
        let mut st = hold(&self.state);
        let p = Pending { seq: st.arrivals, id, tool, arguments, message, size };
        st.arrivals += 1;
        if st.gone {
            return self.unchecked(&p, "the server has exited");
        }
        // On notice only, a listing checked since the last change decides at once; every call
        // otherwise waits for a listing asked for after it arrived.
        if let (View::Ready(checked), true, Recheck::OnNotify) = (&st.view, st.queue.is_empty(), self.recheck) {
            return self.decide(checked, &p);
        }
        if st.queue.len() >= self.bounds.max_queued_calls
            || st.queued_bytes.saturating_add(p.size) > self.bounds.max_queued_bytes
        {
            return self.unchecked(&p, "too many calls are waiting for the guard's tools/list check");
        }
        st.queued_bytes += p.size;
        st.queue.push_back(p);
        if !matches!(st.view, View::Fetching(_)) {
            self.start_fetch(&mut st, 0, Instant::now());
        }
    }

    /// `notifications/cancelled` for a call that still waits: it is dropped, never forwarded.
    fn cancel(&self, id: &Value) {
        let mut st = hold(&self.state);
        if let Some(at) = st.queue.iter().position(|p| p.id.as_ref() == Some(id))
            && let Some(p) = st.queue.remove(at)
        {
            st.queued_bytes = st.queued_bytes.saturating_sub(p.size);
            self.record_unforwarded(&p, "cancelled by the client while waiting");
        }
    }

    /// The client lists the tools itself: what it will call next is checked against a fresh listing
    /// too, even from a server that changes its tools without saying so.
    fn relist(&self) {
        let mut st = hold(&self.state);
        if matches!(st.view, View::Ready(_)) {
            st.view = View::Stale;
        }
    }

    fn list_changed(&self) {
        let mut st = hold(&self.state);
        match &mut st.view {
            View::Ready(_) => self.start_fetch(&mut st, 0, Instant::now()),
            View::Fetching(f) => f.changed = true,
            View::Stale => {}
        }
    }

    /// A response to the guard's own request, parsed whole (`size`: the bytes of the line it came in).
    fn own_value(&self, id: u64, mut value: Value, size: usize) {
        let page = if let Some(e) = value.get("error") {
            Page::Error(e.get("message").and_then(Value::as_str).unwrap_or("no message").to_owned())
        } else if let Some(Value::Array(tools)) = value.pointer_mut("/result/tools").map(Value::take) {
            let keep = |name: Option<&str>, hash: Option<&str>| check::keep(self.lock, name, hash);
            let tools = tools.into_iter().map(|t| listing::listed(t, &keep)).collect();
            Page::Tools { tools, cursor: value.pointer_mut("/result/nextCursor").map(Value::take) }
        } else {
            Page::NoTools
        };
        self.own(id, page, size);
    }

    /// A page of the guard's own listing (`size`: the bytes of the line it came in).
    fn own(&self, id: u64, page: Page, size: usize) {
        let mut st = hold(&self.state);
        let View::Fetching(f) = &mut st.view else { return };
        if f.id != id {
            return;
        }
        let (tools, cursor) = match page {
            Page::Error(message) => {
                return self.fail(&mut st, &format!("the server answered tools/list with an error: {message}"));
            }
            Page::NoTools => return self.fail(&mut st, "the server's tools/list result has no `tools` array"),
            Page::Tools { tools, cursor } => (tools, cursor),
        };
        f.bytes = f.bytes.saturating_add(size);
        if f.bytes > self.bounds.max_listing_bytes {
            let max = self.bounds.max_listing_bytes;
            return self.fail(&mut st, &format!("the server's tools/list is over {max} bytes"));
        }
        if f.tools.len().saturating_add(tools.len()) > self.bounds.max_tools {
            let max = self.bounds.max_tools;
            return self.fail(&mut st, &format!("the server lists more than {max} tools"));
        }
        for t in &tools {
            // What the verdicts depend on: each name and hash, and the objects kept.
            let _ = serde_json::to_writer(Hashing(&mut f.digest), &(&t.name, &t.hash, &t.value));
        }
        f.tools.extend(tools);
        if let Some(cursor) = cursor.as_ref().and_then(Value::as_str).filter(|c| !c.is_empty()) {
            if !f.cursors.insert(cursor.to_owned()) {
                return self.fail(&mut st, "the server's tools/list pages loop back to a cursor already seen");
            }
            if f.pages >= self.bounds.max_pages {
                let max = self.bounds.max_pages;
                return self.fail(&mut st, &format!("the server's tools/list has more than {max} pages"));
            }
            let id = hold(&self.ids).own();
            let shape = hold(&self.list_shape).clone();
            if !self.to_server(&reply::list_request(id, Some(cursor), shape.as_ref())) {
                return self.fail(&mut st, "the server no longer reads its input");
            }
            if let View::Fetching(f) = &mut st.view {
                f.id = id;
                f.pages += 1;
            }
            return;
        }
        let View::Fetching(mut f) = std::mem::replace(&mut st.view, View::Stale) else { return };
        if f.changed {
            if f.restarts >= MAX_RESTARTS {
                return self.fail(&mut st, "the server's tool list kept changing while the guard read it");
            }
            return self.start_fetch(&mut st, f.restarts + 1, f.began);
        }
        let digest = f.digest.finalize().to_vec();
        let checked = match &st.last {
            Some((d, checked)) if *d == digest => Arc::clone(checked),
            _ => {
                let checked = Arc::new(check::check_listed(self.lock, std::mem::take(&mut f.tools), &self.policy));
                let (listed, drifted, blocked) = checked.counts();
                if drifted > 0 {
                    (self.notice)(&format!(
                        "{listed} tool(s) listed, {drifted} differ from {}, {blocked} blocked",
                        self.lock.name
                    ));
                }
                st.last = Some((digest, Arc::clone(&checked)));
                checked
            }
        };
        drop(f.tools);
        while st.queue.front().is_some_and(|p| p.seq < f.covers) {
            let Some(p) = st.queue.pop_front() else { break };
            st.queued_bytes = st.queued_bytes.saturating_sub(p.size);
            self.decide(&checked, &p);
        }
        st.view = View::Ready(checked);
        // Calls that arrived while this listing was read wait for one asked for after them.
        if !st.queue.is_empty() {
            self.start_fetch(&mut st, 0, Instant::now());
        }
    }

    /// Fails a fetch that waited too long.
    fn tick(&self) {
        let mut st = hold(&self.state);
        // One deadline for the whole check, however many pages it has.
        if let View::Fetching(f) = &st.view
            && f.began.elapsed() > self.bounds.timeout
        {
            let secs = self.bounds.timeout.as_secs_f64();
            self.fail(&mut st, &format!("the server did not answer tools/list within {secs} s"));
        }
    }

    /// The server is gone: waiting calls are answered, later ones too.
    fn server_gone(&self) {
        let mut st = hold(&self.state);
        st.gone = true;
        let queue = std::mem::take(&mut st.queue);
        st.queued_bytes = 0;
        for p in &queue {
            self.unchecked(p, "the server has exited");
        }
    }
}

/// One page of the guard's own listing.
enum Page {
    /// The server answered with an error: its message.
    Error(String),
    /// A result without a `tools` array.
    NoTools,
    Tools {
        tools: Vec<Listed>,
        cursor: Option<Value>,
    },
}

/// Feeds serialized JSON to a hash without holding it.
struct Hashing<'h>(&'h mut Sha256);

impl Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A hash as shown in messages: its first 12 digits.
fn short(hash: Option<&str>) -> String {
    hash.map_or_else(|| "none".to_owned(), |h| h.chars().take(12).collect())
}

/// A validator's rejections in words, each with the place in the instance when it is not the root.
fn reasons(rejections: &[crate::replay::check::Rejection]) -> Vec<String> {
    rejections
        .iter()
        .map(|r| {
            if r.instance_path.is_empty() { r.reason.clone() } else { format!("{} (at {})", r.reason, r.instance_path) }
        })
        .collect()
}

/// Runs the session until either side closes; returns the server's exit code.
pub(super) fn run(
    shared: Shared,
    mut server: super::process::Peer,
    server_out: impl Read + Send + 'static,
    client_in: impl Read + Send + 'static,
) -> i32 {
    let shared = Arc::new(shared);
    let (tx, rx) = mpsc::channel();
    let spawn = |f: Box<dyn FnOnce() + Send>| std::thread::Builder::new().spawn(f);
    let (s, t) = (Arc::clone(&shared), tx.clone());
    let client = spawn(Box::new(move || {
        loops::client_loop(&s, client_in);
        let _ = t.send(Event::ClientClosed);
    }));
    let (s, t) = (Arc::clone(&shared), tx);
    let server_thread = spawn(Box::new(move || {
        loops::server_loop(&s, server_out);
        let _ = t.send(Event::ServerClosed);
    }));
    if client.is_err() || server_thread.is_err() {
        (shared.notice)("cannot start the proxy threads");
        shared.close_server_input();
        return server.finish(shared.bounds.grace);
    }
    let mut client_closed: Option<Instant> = None;
    let mut exited_at: Option<Instant> = None;
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(Event::ClientClosed) => {
                shared.close_server_input();
                client_closed.get_or_insert_with(Instant::now);
            }
            Ok(Event::ServerClosed) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        shared.tick();
        // The server's last words are still read after it exits, briefly (a child it left behind may
        // hold its output open).
        if exited_at.is_none() && server.exited() {
            exited_at = Some(Instant::now());
        }
        let grace = shared.bounds.grace;
        if exited_at.is_some_and(|t| t.elapsed() > grace) || client_closed.is_some_and(|t| t.elapsed() > grace) {
            break;
        }
    }
    shared.server_gone();
    shared.close_server_input();
    let code = server.finish(shared.bounds.grace);
    let _ = hold(&shared.client_out).flush();
    code
}
