//! The guarded server as a child process: takes the command line, returns the running child with its
//! stdin and stdout piped (stderr is the guard's own, so the server's log reaches the client's log
//! unchanged), in its own process group on Unix.
//!
//! Promises: shutting down never waits longer than twice the grace period: wait for the server to exit
//! on its own (its stdin is closed first), then SIGTERM its process group, then SIGKILL; leftovers
//! in the group are sent SIGTERM after the server itself has exited. The exit code is the server's,
//! or 128 + the signal that ended it.

use std::ffi::OsString;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::error::Error;

/// The running server.
pub struct Server {
    child: Child,
    status: Option<ExitStatus>,
}

/// Starts `command` (program and arguments).
///
/// # Errors
/// An empty command line, or a program that cannot be started (not found, not executable).
pub fn spawn(command: &[OsString]) -> Result<(Server, ChildStdin, ChildStdout), Error> {
    let Some((program, args)) = command.split_first() else {
        return Err(Error::Usage("guard needs the server's command after `--`".into()));
    };
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().map_err(|e| Error::Io {
        path: program.to_string_lossy().into_owned(),
        message: format!("cannot start the server: {e}"),
    })?;
    crate::mcp::groups::register(child.id());
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        return Err(Error::Io {
            path: program.to_string_lossy().into_owned(),
            message: "no pipes to the server".into(),
        });
    };
    Ok((Server { child, status: None }, stdin, stdout))
}

impl Server {
    /// Whether the server has exited (without waiting).
    pub fn exited(&mut self) -> bool {
        if self.status.is_none() {
            self.status = self.child.try_wait().ok().flatten();
        }
        self.status.is_some()
    }

    fn wait_for(&mut self, within: Duration) -> bool {
        let until = Instant::now() + within;
        while !self.exited() {
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        true
    }

    /// Ends the server (its stdin must be closed already) and returns its exit code.
    pub fn finish(mut self, grace: Duration) -> i32 {
        if !self.wait_for(grace) {
            self.signal(false);
            if !self.wait_for(grace) {
                self.signal(true);
                let _ = self.child.kill();
                self.status = self.child.wait().ok();
            }
        }
        // Whatever the server left running in its group goes with it.
        self.signal(false);
        crate::mcp::groups::unregister(self.child.id());
        self.status.map_or(1, code)
    }

    #[cfg(unix)]
    fn signal(&mut self, kill: bool) {
        use rustix::process::{Pid, Signal, kill_process_group};
        if let Some(pid) = i32::try_from(self.child.id()).ok().and_then(Pid::from_raw) {
            let _ = kill_process_group(pid, if kill { Signal::KILL } else { Signal::TERM });
        }
    }

    #[cfg(not(unix))]
    fn signal(&mut self, kill: bool) {
        if kill {
            let _ = self.child.kill();
        }
    }
}

/// The exit code to pass on.
fn code(status: ExitStatus) -> i32 {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return 128 + signal;
        }
    }
    status.code().unwrap_or(1)
}

/// What the guard stops when the session ends: the server's process, or its HTTP session.
pub enum Peer {
    Process(Server),
    Http(super::upstream::Handle),
}

impl Peer {
    /// Whether the server has gone (an HTTP server is never seen exiting: its stream ends instead).
    pub fn exited(&mut self) -> bool {
        match self {
            Peer::Process(s) => s.exited(),
            Peer::Http(_) => false,
        }
    }

    /// Stops it; the exit code the guard reports (an HTTP session: 0, or 1 after a failed request).
    pub fn finish(self, grace: Duration) -> i32 {
        match self {
            Peer::Process(s) => s.finish(grace),
            Peer::Http(h) => h.finish(),
        }
    }
}
