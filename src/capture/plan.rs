//! What one `capture` run does, from validated settings: start the server (stdio or HTTP), capture it,
//! write the snapshot. Also the parsers of the command line's `--header`, `--header-env` and
//! `--timeout` values.
//!
//! Takes a [`Plan`]; returns what was captured and, for standard output, the text to print. Promises:
//! on any failure nothing is written (no partial file, no partial directory); header values appear in
//! no message.

use std::path::PathBuf;
use std::time::Duration;

use super::{Capture, Limits, capture, write_dir, write_file};
use crate::error::Error;
use crate::mcp::stdio::{Options, StderrSink, Stdio};
use crate::mcp::{self, Session, Transport, http::Http};

/// Which server.
pub enum Target {
    /// A stdio server: program and arguments.
    Command(Vec<String>),
    /// A streamable HTTP server, with the headers to send.
    Url { url: String, headers: Vec<(String, String)> },
}

/// Where the snapshot goes.
pub enum Output {
    Stdout,
    File(PathBuf),
    Dir(PathBuf),
}

/// One validated `capture` run.
pub struct Plan {
    pub target: Target,
    pub output: Output,
    pub keep_meta: bool,
    pub limits: Limits,
    pub transport: mcp::Limits,
    /// How long the whole capture may take (`--deadline`): every step's wait ends by then.
    pub deadline: Duration,
    /// Where the stdio server's stderr lines go (escaped); `None` drops them.
    pub stderr: Option<StderrSink>,
}

/// What a run did.
pub struct Done {
    pub capture: Capture,
    /// The snapshot, when it is for standard output.
    pub stdout: Option<String>,
}

/// Runs the plan.
///
/// # Errors
/// [`Error::Server`] for everything the server did wrong, [`Error::Io`] when the output cannot be
/// written, [`Error::Usage`] for an output directory that holds other files.
pub fn run(plan: Plan) -> Result<Done, Error> {
    let transport: Box<dyn Transport> = match plan.target {
        Target::Command(command) => Box::new(Stdio::spawn(
            &command,
            Options { stderr: plan.stderr, max_message_bytes: plan.transport.max_message_bytes },
        )?),
        Target::Url { url, headers } => Box::new(Http::new(&url, headers, plan.transport)),
    };
    let at = std::time::Instant::now() + plan.deadline;
    let mut session = Session::new(Box::new(Deadline { inner: transport, at }), plan.transport);
    let captured = capture(&mut session, plan.limits, plan.keep_meta);
    // The server is stopped before anything is written: a snapshot is of a server that behaved.
    session.close();
    let captured = captured.map_err(|f| match f {
        mcp::Failure::Timeout { step, .. } if std::time::Instant::now() >= at => Error::Usage(format!(
            "capture: the server did not finish within --deadline {} (it was at `{step}`); raise --deadline for a slow server",
            shown(plan.deadline)
        )),
        f => Error::from(f),
    })?;
    let stdout = match plan.output {
        Output::Stdout => Some(captured.text()),
        Output::File(path) => {
            write_file(&path, &captured.text())?;
            None
        }
        Output::Dir(dir) => {
            write_dir(&dir, &captured.files())?;
            None
        }
    };
    Ok(Done { capture: captured, stdout })
}

/// A transport whose every wait ends by `at`, the capture's overall deadline, whatever the step's own
/// timeout: 1,000 pages of 30 s each are not an 8-hour run.
struct Deadline {
    inner: Box<dyn Transport>,
    at: std::time::Instant,
}

impl Deadline {
    fn by(&self, step: &str, deadline: std::time::Instant) -> Result<std::time::Instant, mcp::Failure> {
        if std::time::Instant::now() >= self.at {
            return Err(mcp::Failure::Timeout { step: step.to_owned(), after: Duration::ZERO });
        }
        Ok(deadline.min(self.at))
    }
}

impl Transport for Deadline {
    fn send(
        &mut self,
        message: &serde_json::Value,
        step: &str,
        deadline: std::time::Instant,
    ) -> Result<(), mcp::Failure> {
        let by = self.by(step, deadline)?;
        self.inner.send(message, step, by)
    }

    fn recv(&mut self, step: &str, deadline: std::time::Instant) -> Result<Option<mcp::Received>, mcp::Failure> {
        let by = self.by(step, deadline)?;
        self.inner.recv(step, by)
    }

    fn negotiated(&mut self, version: &str) {
        self.inner.negotiated(version);
    }

    fn close(&mut self) {
        self.inner.close();
    }
}

/// A duration as people write it: `90 s`, `250 ms`.
fn shown(d: Duration) -> String {
    if d.subsec_millis() == 0 { format!("{} s", d.as_secs()) } else { format!("{} ms", d.as_millis()) }
}

/// A URL `capture --url` can talk to.
///
/// # Errors
/// When it is not `http://` or `https://`.
pub fn check_url(url: &str) -> Result<(), Error> {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        Ok(())
    } else {
        Err(Error::Usage(format!("--url `{url}`: only http:// and https:// URLs are supported")))
    }
}

/// `--header 'Name: value'`.
///
/// # Errors
/// No colon, an invalid name, or a line break in the value (the value is never shown).
pub fn parse_header(spec: &str) -> Result<(String, String), Error> {
    let Some((name, value)) = spec.split_once(':') else {
        return Err(Error::Usage("--header: expected 'Name: value' (the argument is not shown)".into()));
    };
    header(name.trim(), value.trim(), "--header")
}

/// `--header-env Name=ENVVAR`: the value is read from the environment variable.
///
/// # Errors
/// No `=`, an invalid name, or the variable is unset or not valid as a header value.
pub fn parse_header_env(spec: &str, env: impl Fn(&str) -> Option<String>) -> Result<(String, String), Error> {
    let Some((name, var)) = spec.split_once('=') else {
        return Err(Error::Usage(format!("--header-env `{spec}`: expected Name=ENVVAR")));
    };
    let Some(value) = env(var) else {
        return Err(Error::Usage(format!("--header-env {}: the environment variable `{var}` is not set", name.trim())));
    };
    header(name.trim(), value.trim(), "--header-env")
}

fn header(name: &str, value: &str, flag: &str) -> Result<(String, String), Error> {
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.is_empty() || !name.bytes().all(token) {
        return Err(Error::Usage(format!("{flag} `{name}`: not a valid header name")));
    }
    if value.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
        return Err(Error::Usage(format!("{flag} {name}: the value holds a line break or NUL (not shown)")));
    }
    Ok((name.to_owned(), value.to_owned()))
}

/// `--timeout`: `30`, `30s`, `500ms`, `2m`; more than zero, at most a day.
///
/// # Errors
/// Anything else.
pub fn parse_timeout(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = digits.parse().map_err(|_| format!("`{s}` is not a duration (e.g. 30s, 500ms, 2m)"))?;
    let d = match unit.trim() {
        "" | "s" => Duration::from_secs(n),
        "ms" => Duration::from_millis(n),
        "m" => Duration::from_secs(n.saturating_mul(60)),
        _ => return Err(format!("`{s}` is not a duration (e.g. 30s, 500ms, 2m)")),
    };
    if d.is_zero() || d > Duration::from_hours(24) {
        return Err(format!("`{s}`: the timeout must be more than zero and at most a day"));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_never_reach_a_message() {
        assert_eq!(
            parse_header("Authorization: Bearer s3cret").ok(),
            Some(("Authorization".into(), "Bearer s3cret".into()))
        );
        for bad in ["Bearer s3cret", "Bad Name: s3cret", "X: s3cret\r\nEvil: 1"] {
            let e = parse_header(bad).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(!e.is_empty() && !e.contains("s3cret"), "{bad}: {e}");
        }
        let env = |k: &str| (k == "TOKEN").then(|| "s3cret\n".to_owned());
        assert_eq!(parse_header_env("X-Token=TOKEN", env).ok(), Some(("X-Token".into(), "s3cret".into())));
        let e = parse_header_env("X-Token=MISSING", env).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("`MISSING` is not set"), "{e}");
    }

    #[test]
    fn timeouts_parse_like_people_write_them() {
        assert_eq!(parse_timeout("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_timeout("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_timeout("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_timeout("2m"), Ok(Duration::from_mins(2)));
        assert!(parse_timeout("0").is_err() && parse_timeout("1h").is_err() && parse_timeout("-1").is_err());
    }

    #[test]
    fn only_http_urls() {
        assert!(check_url("http://127.0.0.1:1/mcp").is_ok() && check_url("HTTPS://x").is_ok());
        assert!(check_url("file:///etc/passwd").is_err() && check_url("127.0.0.1:80").is_err());
    }
}
