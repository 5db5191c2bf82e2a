//! `mcp-drift guard`: the lock enforced at run time. Takes the lock, the policy and a stdio server's
//! command line; sits between an MCP client (the caller's streams) and the server it spawns, and
//! returns the server's exit code when the session ends.
//!
//! Client messages reach the server as the guard judged them, re-serialized ([`wire`]); server
//! messages pass as read unless a reader could split them otherwise. A `tools/call` of a tool whose
//! contract drifted from the lock (as the guard lists it, or as the server showed it to the client),
//! or whose arguments the approved `inputSchema` rejects, is answered by the guard (`isError: true`,
//! `error_code: "STALE_TOOL_SCHEMA"`, `required_action`) and never reaches the server; a result whose
//! `structuredContent` the locked `outputSchema` rejects is audited (and replaced, when enforced).
//! Before every call (by default, [`Recheck::EveryCall`]: many servers change their tools without
//! `notifications/tools/list_changed`), or only before the first and after every notification
//! ([`Recheck::OnNotify`]), the guard lists the tools itself (every page, ids of its own, one deadline
//! for the whole listing) and checks them ([`check`]); calls wait meanwhile. The parts: [`wire`]
//! (framing, strict parsing and message kinds), [`check`] (verdicts), [`reply`] (what the guard writes
//! itself), `proxy` (the threads), `process` (the child).
//!
//! Promises: nothing the peers send can make it panic or hold more than a few messages of at most
//! [`Bounds::max_message_bytes`] each; notices go to the caller's [`Notice`] as plain text (the
//! caller escapes them), never to the client's stream.

pub mod check;
mod ids;
pub mod listen;
pub mod listing;
mod process;
mod proxy;
pub mod reply;
mod upstream;
pub mod wire;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use check::Policy;

use crate::error::Error;

/// Where notices about the session go (one line of plain, unescaped text each).
pub type Notice = Arc<dyn Fn(&str) + Send + Sync>;

/// How much the guard holds and how long it waits.
#[derive(Clone, Debug)]
pub struct Bounds {
    /// The longest message (one line) read from either side.
    pub max_message_bytes: usize,
    /// Calls that may wait for a `tools/list` check at once.
    pub max_queued_calls: usize,
    /// Their total size.
    pub max_queued_bytes: usize,
    /// How long one check may take: every page of the guard's `tools/list`, together.
    pub timeout: Duration,
    pub max_pages: usize,
    pub max_tools: usize,
    /// The total size of one listing's pages (what is held, then checked, at once).
    pub max_listing_bytes: usize,
    /// How long the server gets to exit after its input closes, and again after SIGTERM.
    pub grace: Duration,
    /// The most bytes read from the lock file.
    pub max_lock_bytes: u64,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            max_message_bytes: 64 << 20,
            max_queued_calls: 256,
            max_queued_bytes: 64 << 20,
            timeout: Duration::from_secs(30),
            max_pages: 1000,
            max_tools: 100_000,
            max_listing_bytes: 256 << 20,
            grace: Duration::from_secs(2),
            max_lock_bytes: 256 << 20,
        }
    }
}

/// When the guard lists the server's tools again before forwarding a call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Recheck {
    /// Before every `tools/call`: each call is decided by a listing asked for after it arrived.
    #[default]
    EveryCall,
    /// Before the first call, after `notifications/tools/list_changed` and after the client's own
    /// `tools/list`: a server that changes silently is not seen until then.
    OnNotify,
}

/// One guard session's settings.
pub struct Options {
    pub lock: PathBuf,
    /// Append one JSON line per call here.
    pub audit: Option<PathBuf>,
    /// Append every message of the session here, both directions, verbatim, one line each (the input
    /// of `mcp-drift replay`).
    pub record: Option<PathBuf>,
    pub policy: Policy,
    pub recheck: Recheck,
    /// Replace a result whose `structuredContent` the locked `outputSchema` rejects with an `isError`
    /// result saying why (else it is only noticed and audited).
    pub enforce_results: bool,
    /// The server: a program to start, or a streamable HTTP endpoint.
    pub server: Upstream,
    pub bounds: Bounds,
}

/// The guarded server.
#[derive(Clone, Debug)]
pub enum Upstream {
    /// A stdio server: its program and arguments.
    Command(Vec<OsString>),
    /// A streamable HTTP server: its URL and the headers sent with every request (name, value; the
    /// values are never printed).
    Url { url: String, headers: Vec<(String, String)> },
}

/// Reads the lock, opens the audit log, starts the server and proxies until the session ends.
///
/// # Errors
/// Before the server starts: a missing or corrupt lock, an audit log that cannot be opened, a server
/// that cannot be started. Once it runs, nothing is an error: the result is its exit code.
pub fn run(
    options: Options,
    client_in: impl Read + Send + 'static,
    client_out: impl Write + Send + 'static,
    notice: Notice,
) -> Result<i32, Error> {
    let lock =
        check::Lock::read(&options.lock, crate::load::Limits { max_input_bytes: options.bounds.max_lock_bytes })?;
    // The session's validators borrow the locked schemas for as long as the process runs.
    let lock: &'static check::Lock = Box::leak(Box::new(lock));
    let append = |path: &Option<PathBuf>| match path {
        Some(path) => std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map(Some)
            .map_err(|e| Error::Io { path: path.display().to_string(), message: e.to_string() }),
        None => Ok(None),
    };
    let audit = append(&options.audit)?;
    let record = append(&options.record)?;
    let (peer, server_in, server_out): (process::Peer, Box<dyn Write + Send>, Box<dyn Read + Send>) =
        match &options.server {
            Upstream::Command(command) => {
                let (server, stdin, stdout) = process::spawn(command)?;
                (process::Peer::Process(server), Box::new(stdin), Box::new(stdout))
            }
            Upstream::Url { url, headers } => {
                let (writer, reader, handle) =
                    upstream::connect(url, headers.clone(), options.bounds.max_message_bytes, options.bounds.timeout);
                (process::Peer::Http(handle), Box::new(writer), Box::new(reader))
            }
        };
    let mut shared =
        proxy::Shared::new(lock, options.policy, options.bounds, audit, server_in, Box::new(client_out), notice);
    shared.record_to(record);
    shared.recheck(options.recheck);
    shared.enforce_results(options.enforce_results);
    Ok(proxy::run(shared, peer, server_out, client_in))
}
