//! The real MCP servers the tests run against, as `tests/servers/setup.sh` installs them into
//! `target/servers`: `@modelcontextprotocol/server-everything` (npm) and `drift_server.py` (a Python
//! server on the `mcp` package, two tool revisions A and B).
//!
//! Use it from an integration test with `mod servers;` and, at the top of each test,
//! `let Some(s) = servers::find() else { return };`. When `target/servers` is missing the test prints a
//! loud "skipped: run tests/servers/setup.sh" and passes, unless `MCP_DRIFT_REQUIRE_SERVERS=1` (CI),
//! where it fails.
#![allow(dead_code, reason = "each test file uses part of the helpers")]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where the installed servers are.
#[derive(Clone, Debug)]
pub struct Servers {
    /// `node`, from PATH.
    pub node: PathBuf,
    /// server-everything's entry point (`dist/index.js`; its first argument picks the transport).
    pub everything: PathBuf,
    /// The venv's Python (with `mcp` installed).
    pub python: PathBuf,
    /// `tests/servers/drift_server.py`.
    pub drift: PathBuf,
}

/// The crate root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The installed servers, or `None` (after a loud message) when they are not installed and
/// `MCP_DRIFT_REQUIRE_SERVERS` is not `1`.
///
/// # Panics
/// When the servers are missing and `MCP_DRIFT_REQUIRE_SERVERS=1`.
#[must_use]
pub fn find() -> Option<Servers> {
    let dir = root().join("target/servers");
    let everything = dir.join("npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let python = dir.join("venv/bin/python");
    let node = which("node");
    let missing: Vec<String> = [(everything.as_path(), "server-everything"), (python.as_path(), "the Python venv")]
        .into_iter()
        .filter(|(p, _)| !p.exists())
        .map(|(p, what)| format!("{what} ({})", p.display()))
        .chain(node.is_none().then(|| "node on PATH".to_owned()))
        .collect();
    if missing.is_empty() {
        return Some(Servers {
            node: node.unwrap_or_default(),
            everything,
            python,
            drift: root().join("tests/servers/drift_server.py"),
        });
    }
    let message = format!("missing {}: run tests/servers/setup.sh", missing.join(", "));
    assert!(
        std::env::var("MCP_DRIFT_REQUIRE_SERVERS").as_deref() != Ok("1"),
        "MCP_DRIFT_REQUIRE_SERVERS=1 but {message}"
    );
    // Straight to the process's stderr: the test harness captures `eprintln!` of passing tests.
    let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("\n*** skipped: {message} ***\n\n").as_bytes());
    None
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| std::env::split_paths(&paths).map(|d| d.join(name)).find(|p| p.is_file()))
}

impl Servers {
    /// The command line of server-everything over stdio.
    #[must_use]
    pub fn everything_stdio(&self) -> Vec<String> {
        vec![self.node.display().to_string(), self.everything.display().to_string(), "stdio".into()]
    }

    /// The command line of the drift server over stdio (the revision comes from the environment).
    #[must_use]
    pub fn drift_stdio(&self) -> Vec<String> {
        vec![self.python.display().to_string(), self.drift.display().to_string()]
    }

    /// server-everything in its streamable HTTP mode on a free loopback port, ready to answer.
    ///
    /// # Panics
    /// When it cannot be started or does not listen within 30 seconds.
    #[must_use]
    pub fn everything_http(&self) -> HttpServer {
        let port = free_port();
        let mut cmd = Command::new(&self.node);
        cmd.arg(&self.everything).arg("streamableHttp").env("PORT", port.to_string());
        HttpServer::start(cmd, port)
    }

    /// The drift server over streamable HTTP on a free loopback port, with these environment variables.
    ///
    /// # Panics
    /// When it cannot be started or does not listen within 30 seconds.
    #[must_use]
    pub fn drift_http(&self, env: &[(&str, &str)]) -> HttpServer {
        let port = free_port();
        let mut cmd = Command::new(&self.python);
        cmd.arg(&self.drift).arg("--http").arg(port.to_string());
        for (k, v) in env {
            cmd.env(k, v);
        }
        HttpServer::start(cmd, port)
    }
}

/// A port nobody listens on right now (the kernel's pick; another process may take it meanwhile, rarely).
///
/// # Panics
/// When no loopback port can be bound.
#[must_use]
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free loopback port")
}

/// A server listening on a loopback port; killed when dropped.
pub struct HttpServer {
    child: Child,
    pub port: u16,
}

impl HttpServer {
    /// Starts `cmd`, which is to listen on `port`, and waits until it does.
    ///
    /// # Panics
    /// When it cannot be started or does not listen within 30 seconds.
    #[must_use]
    pub fn start(mut cmd: Command, port: u16) -> HttpServer {
        let child = cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("start server");
        let mut server = HttpServer { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("the HTTP test server exited before listening on {port}: {status}");
            }
            assert!(Instant::now() < deadline, "the HTTP test server did not listen on {port} within 30 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// Its MCP endpoint.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `tests/servers/<name>`.
#[must_use]
pub fn path(name: &str) -> PathBuf {
    root().join("tests/servers").join(name)
}
