//! The stdio transport: a server started as a child process in its own process group, one JSON-RPC
//! message per line on its stdin and stdout, its stderr passed to a sink (or dropped) with the last
//! lines kept for messages.
//!
//! Takes a command line and [`Options`]; returns a [`Stdio`] [`Transport`]. Promises: the caller never
//! blocks on the server (reading and writing happen on threads, bounded queues, every wait has a
//! deadline); no stdout line over the message limit is buffered; stderr lines reach the sink escaped by
//! [`crate::text::line`]; closing (or dropping) closes stdin, waits briefly, then ends the whole
//! process group with SIGTERM and, if that does not do, SIGKILL.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio as Piped};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::failure::excerpt;
use super::{Failure, Received, Transport, left};
use crate::text;

/// How many stderr lines are kept for a failure message.
const TAIL_LINES: usize = 12;
/// Longer stderr lines are split (the sink and the tail hold no more per line).
const STDERR_LINE: usize = 4096;
/// Messages to the server that may wait unsent (answers to its pings) before it counts as not reading.
const OUTBOX: usize = 256;
/// How long a closed stdin is given to end the server, then SIGTERM.
const GRACE: Duration = Duration::from_secs(1);

/// Where the server's stderr goes: each line, escaped. `None` drops it (`--quiet`).
pub type StderrSink = Box<dyn FnMut(&str) + Send>;

/// How to run the server.
pub struct Options {
    pub stderr: Option<StderrSink>,
    pub max_message_bytes: usize,
}

enum Out {
    Line(Vec<u8>),
    TooLong,
    Eof,
    Failed(String),
}

/// A running stdio server.
pub struct Stdio {
    child: Child,
    outbox: Option<SyncSender<Vec<u8>>>,
    lines: Receiver<Out>,
    tail: Arc<Mutex<VecDeque<String>>>,
    stderr_done: Receiver<()>,
    max_message_bytes: usize,
    ended: bool,
}

impl Stdio {
    /// Starts `command` (program and arguments) with piped stdio, in a process group of its own.
    ///
    /// # Errors
    /// [`Failure::NotFound`] when the program does not exist, [`Failure::Spawn`] when it cannot start.
    pub fn spawn(command: &[String], options: Options) -> Result<Stdio, Failure> {
        let Some((program, args)) = command.split_first() else {
            return Err(Failure::Spawn { command: String::new(), message: "no command given".into() });
        };
        let mut cmd = Command::new(program);
        cmd.args(args).stdin(Piped::piped()).stdout(Piped::piped()).stderr(Piped::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Failure::NotFound { command: program.clone() },
            _ => Failure::Spawn { command: program.clone(), message: e.to_string() },
        })?;
        super::groups::register(child.id());
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Failure::Spawn { command: program.clone(), message: "no pipes to the process".into() });
        };
        let (outbox, queue) = sync_channel(OUTBOX);
        std::thread::spawn(move || write_all(stdin, &queue));
        let (line_tx, lines) = sync_channel(1);
        let max = options.max_message_bytes;
        std::thread::spawn(move || read_lines(stdout, max, &line_tx));
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let (done_tx, stderr_done) = sync_channel(1);
        let keep = Arc::clone(&tail);
        let sink = options.stderr;
        std::thread::spawn(move || {
            pass_stderr(stderr, sink, &keep);
            let _ = done_tx.send(());
        });
        Ok(Stdio {
            child,
            outbox: Some(outbox),
            lines,
            tail,
            stderr_done,
            max_message_bytes: options.max_message_bytes,
            ended: false,
        })
    }

    /// The failure for a server whose stdout ended during `step`: its exit status and stderr tail.
    fn exited(&mut self, step: &str) -> Failure {
        let status = wait_for(&mut self.child, Duration::from_secs(2));
        // The rest of its stderr, when it closed its stderr too.
        let _ = self.stderr_done.recv_timeout(Duration::from_millis(500));
        let status = match status {
            Some(s) => describe(s),
            None => "its stdout closed, the process still runs".to_owned(),
        };
        let stderr = self.tail.lock().map(|t| t.iter().cloned().collect()).unwrap_or_default();
        Failure::Exited { step: step.to_owned(), status, stderr }
    }
}

impl Transport for Stdio {
    fn send(&mut self, message: &Value, step: &str, _deadline: Instant) -> Result<(), Failure> {
        let mut bytes = serde_json::to_vec(message).unwrap_or_default();
        bytes.push(b'\n');
        let Some(outbox) = &self.outbox else { return Err(self.exited(step)) };
        match outbox.try_send(bytes) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => Err(Failure::Protocol {
                step: step.to_owned(),
                message: format!("the server does not read its stdin ({OUTBOX} messages to it are waiting)"),
            }),
            Err(TrySendError::Disconnected(_)) => Err(self.exited(step)),
        }
    }

    fn recv(&mut self, step: &str, deadline: Instant) -> Result<Option<Received>, Failure> {
        loop {
            match self.lines.recv_timeout(left(deadline)) {
                Ok(Out::Line(line)) => {
                    let trimmed = line.trim_ascii();
                    if trimmed.is_empty() {
                        continue;
                    }
                    return match serde_json::from_slice::<Value>(trimmed) {
                        Ok(message) => Ok(Some(Received { message, bytes: line.len() + 1 })),
                        Err(_) => Err(Failure::NotJson { step: step.to_owned(), excerpt: excerpt(trimmed) }),
                    };
                }
                Ok(Out::TooLong) => {
                    return Err(Failure::TooLarge {
                        step: step.to_owned(),
                        what: "one line of its stdout".into(),
                        limit: self.max_message_bytes,
                    });
                }
                Ok(Out::Failed(message)) => {
                    return Err(Failure::Protocol {
                        step: step.to_owned(),
                        message: format!("reading its stdout: {message}"),
                    });
                }
                Ok(Out::Eof) | Err(RecvTimeoutError::Disconnected) => return Err(self.exited(step)),
                Err(RecvTimeoutError::Timeout) => {
                    // The session fills in the timeout it set.
                    return Err(Failure::Timeout { step: step.to_owned(), after: Duration::ZERO });
                }
            }
        }
    }

    fn close(&mut self) {
        if self.ended {
            return;
        }
        self.ended = true;
        // Closing stdin is the polite stop (the MCP stdio shutdown); the writer thread drops it.
        self.outbox = None;
        let exited = wait_for(&mut self.child, GRACE).is_some();
        // The group too: a wrapper (`npx`, a shell) may leave its children behind.
        signal_group(&self.child, Signal::Term);
        if !exited && wait_for(&mut self.child, GRACE).is_none() {
            signal_group(&self.child, Signal::Kill);
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        super::groups::unregister(self.child.id());
    }
}

impl Drop for Stdio {
    fn drop(&mut self) {
        self.close();
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

#[cfg(unix)]
fn signal_group(child: &Child, signal: Signal) {
    use rustix::process::{Pid, Signal as S, kill_process_group};
    let Some(pid) = i32::try_from(child.id()).ok().and_then(Pid::from_raw) else { return };
    let sig = match signal {
        Signal::Term => S::TERM,
        Signal::Kill => S::KILL,
    };
    // ESRCH (the group is gone) is the good case.
    let _ = kill_process_group(pid, sig);
}

#[cfg(not(unix))]
fn signal_group(_: &Child, _: Signal) {}

/// Waits up to `limit` for the child to exit.
fn wait_for(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let end = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < end => std::thread::sleep(Duration::from_millis(10)),
            _ => return None,
        }
    }
}

fn describe(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit code {code}");
    }
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return format!("killed by signal {signal}");
    }
    status.to_string()
}

fn write_all(mut stdin: ChildStdin, queue: &Receiver<Vec<u8>>) {
    while let Ok(bytes) = queue.recv() {
        if stdin.write_all(&bytes).and_then(|()| stdin.flush()).is_err() {
            return;
        }
    }
}

/// Splits stdout into lines of at most `max` bytes; a longer line ends the reading.
fn read_lines(stdout: impl Read, max: usize, out: &SyncSender<Out>) {
    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    let mut line = Vec::new();
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = out.send(Out::Failed(e.to_string()));
                return;
            }
        };
        if buf.is_empty() {
            if !line.is_empty() {
                let _ = out.send(Out::Line(std::mem::take(&mut line)));
            }
            let _ = out.send(Out::Eof);
            return;
        }
        let (take, end) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        if line.len() + take > max {
            let _ = out.send(Out::TooLong);
            return;
        }
        line.extend_from_slice(&buf[..take]);
        reader.consume(if end { take + 1 } else { take });
        if end && out.send(Out::Line(std::mem::take(&mut line))).is_err() {
            return;
        }
    }
}

/// Passes stderr on line by line (escaped) and keeps the last lines.
fn pass_stderr(stderr: impl Read, mut sink: Option<StderrSink>, tail: &Mutex<VecDeque<String>>) {
    let mut reader = BufReader::new(stderr.take(u64::MAX));
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut reader).take(STDERR_LINE as u64).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.strip_suffix('\n').unwrap_or(&text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        if let Some(sink) = sink.as_mut() {
            sink(&text::line(text));
        }
        if let Ok(mut t) = tail.lock() {
            if t.len() == TAIL_LINES {
                t.pop_front();
            }
            t.push_back(text.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<String> {
        let (tx, rx) = sync_channel(100);
        read_lines(input, max, &tx);
        rx.try_iter()
            .map(|o| match o {
                Out::Line(l) => String::from_utf8_lossy(&l).into_owned(),
                Out::TooLong => "<too long>".into(),
                Out::Eof => "<eof>".into(),
                Out::Failed(m) => m,
            })
            .collect()
    }

    #[test]
    fn stdout_is_split_into_bounded_lines() {
        assert_eq!(lines(b"a\nbc\n\nd", 10), ["a", "bc", "", "d", "<eof>"]);
        assert_eq!(lines(b"short\nmuch too long a line\nnever", 10), ["short", "<too long>"]);
    }

    #[test]
    fn stderr_is_escaped_for_the_sink_and_kept_raw_in_the_tail() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = Arc::clone(&seen);
        let sink: StderrSink = Box::new(move |l: &str| s.lock().unwrap().push(l.to_owned()));
        let tail = Mutex::new(VecDeque::new());
        let input: Vec<u8> = (0..20).flat_map(|i| format!("line {i}\u{1b}[2J\r\n").into_bytes()).collect();
        pass_stderr(&input[..], Some(sink), &tail);
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 20);
        assert_eq!(seen[0], "line 0\\u{1b}[2J");
        let tail = tail.lock().unwrap();
        assert_eq!((tail.len(), tail[0].as_str()), (TAIL_LINES, "line 8\u{1b}[2J"));
    }
}
