//! What went wrong with a server, as a typed value. Its `Display` is one or more neutral lines (every
//! part that came from the server or the command line through [`crate::text::line`]); the first line
//! says what happened, the next ones (when there are any) are the last lines of the server's stderr.

use std::fmt;
use std::time::Duration;

use crate::text;

/// The longest excerpt of server output quoted in a message, in characters.
pub const EXCERPT: usize = 120;

/// Why a session with a server failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The command to start the server does not exist.
    NotFound { command: String },
    /// The command exists but could not be started.
    Spawn { command: String, message: String },
    /// The server exited (or closed its stdout) during `step`.
    Exited { step: String, status: String, stderr: Vec<String> },
    /// The server answered `step` with a JSON-RPC error.
    JsonRpc { step: String, code: Option<i64>, message: String },
    /// The server wrote something that is not JSON where a message belongs.
    NotJson { step: String, excerpt: String },
    /// One message, or the whole session, was over its byte limit.
    TooLarge { step: String, what: String, limit: usize },
    /// A `tools/list` page gave a cursor an earlier page already gave.
    CursorLoop { page: usize, cursor: String },
    /// More pages or tools than the limit.
    TooMany { what: String, limit: usize },
    /// The step did not finish in time.
    Timeout { step: String, after: Duration },
    /// Nothing more can come (an HTTP response ended) and the answer was not in it.
    NoAnswer { step: String },
    /// The server broke the protocol in another way.
    Protocol { step: String, message: String },
    /// The HTTP exchange failed (connection, status, redirect).
    Http { step: String, message: String },
}

impl Failure {
    /// The server's stderr tail, when the failure carries one.
    #[must_use]
    pub fn stderr(&self) -> &[String] {
        match self {
            Failure::Exited { stderr, .. } => stderr,
            _ => &[],
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = match self {
            Failure::NotFound { command } => format!("cannot start the server: command `{command}` not found"),
            Failure::Spawn { command, message } => format!("cannot start the server `{command}`: {message}"),
            Failure::Exited { step, status, stderr } => {
                let tail = if stderr.is_empty() { "" } else { "; the last lines of its stderr:" };
                format!("the server exited ({status}) during `{step}`{tail}")
            }
            Failure::JsonRpc { step, code, message } => {
                let code = code.map_or_else(|| "no code".to_owned(), |c| format!("code {c}"));
                format!("the server answered `{step}` with a JSON-RPC error ({code}): {}", text::clip(message, 400))
            }
            Failure::NotJson { step, excerpt } => {
                format!("the server wrote something that is not JSON-RPC during `{step}`: `{excerpt}`")
            }
            Failure::TooLarge { step, what, limit } => {
                format!("during `{step}`, {what} went over the limit of {limit} bytes")
            }
            Failure::CursorLoop { page, cursor } => format!(
                "`tools/list` page {page} gave the cursor `{}` that an earlier page gave: the pages loop",
                text::clip(cursor, EXCERPT)
            ),
            Failure::TooMany { what, limit } => format!("the server lists more than {limit} {what}"),
            Failure::Timeout { step, after } => {
                format!("the server did not answer `{step}` within {} (--timeout)", seconds(*after))
            }
            Failure::NoAnswer { step } => format!("the server's response ended without an answer to `{step}`"),
            Failure::Protocol { step, message } => format!("the server broke the protocol during `{step}`: {message}"),
            Failure::Http { step, message } => format!("HTTP request for `{step}` failed: {message}"),
        };
        f.write_str(&text::line(&first))?;
        for line in self.stderr() {
            write!(f, "\n  stderr: {}", text::line(&text::clip(line, 400)))?;
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}

/// A duration as people write it: `30 s`, `1.5 s`, `250 ms`.
#[must_use]
pub fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else if d.as_secs() == 0 {
        format!("{} ms", d.as_millis())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// An excerpt of bytes the server sent, as text (lossy, clipped): for [`Failure::NotJson`].
#[must_use]
pub fn excerpt(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(EXCERPT * 4)];
    text::clip(String::from_utf8_lossy(head).trim(), EXCERPT).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_text_is_neutral_in_every_line() {
        let f = Failure::Exited {
            step: "initialize".into(),
            status: "exit code 3".into(),
            stderr: vec!["boom\u{1b}[31m".into(), "::error::forged".into()],
        };
        assert_eq!(
            f.to_string(),
            "the server exited (exit code 3) during `initialize`; the last lines of its stderr:\n  stderr: boom\\u{1b}[31m\n  stderr: \\::error::forged"
        );
        let f = Failure::NotJson { step: "tools/list".into(), excerpt: excerpt(b"hello\n::warning::x\xff") };
        assert_eq!(
            f.to_string(),
            "the server wrote something that is not JSON-RPC during `tools/list`: `hello\\n::warning::x\u{fffd}`"
        );
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(250)), "250 ms");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }
}
