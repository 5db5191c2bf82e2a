//! Round-trip latency of `mcp::Session::request` against a live server: N `ping` requests, N
//! `tools/list` and, with `--tool NAME ARGS_JSON`, N `tools/call`s of that tool, after `initialize`,
//! reported as median and p99. The cost the transport adds on top of the server's own answer time is
//! part of these numbers; run it once against the server and once against `mcp-drift guard -- server`
//! to see what the guard adds.
//!
//! `cargo run --release --example mcp_latency -- [--calls N] [--tool NAME ARGS_JSON] [--url URL | -- CMD ARGS...]`

use std::time::{Duration, Instant};

use mcp_drift::mcp::{self, Session, Transport};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut calls = 1000;
    if args.first().map(String::as_str) == Some("--calls") && args.len() > 1 {
        calls = args[1].parse().unwrap_or(calls);
        args.drain(..2);
    }
    let mut tool = None;
    if args.first().map(String::as_str) == Some("--tool") && args.len() > 2 {
        let arguments: serde_json::Value = serde_json::from_str(&args[2]).unwrap_or_default();
        tool = Some(serde_json::json!({"name": args[1], "arguments": arguments}));
        args.drain(..3);
    }
    let limits = mcp::Limits::default();
    let transport: Box<dyn Transport> = if args.first().map(String::as_str) == Some("--url") && args.len() > 1 {
        Box::new(mcp::http::Http::new(&args[1], Vec::new(), limits))
    } else {
        let command: Vec<String> = args.into_iter().skip_while(|a| a == "--").collect();
        let options = mcp::stdio::Options { stderr: None, max_message_bytes: limits.max_message_bytes };
        match mcp::stdio::Stdio::spawn(&command, options) {
            Ok(t) => Box::new(t),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        }
    };
    let mut session = Session::new(transport, limits);
    if let Err(e) = session.initialize() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
    let mut methods = vec![("ping", None), ("tools/list", None)];
    if let Some(t) = tool {
        methods.push(("tools/call", Some(t)));
    }
    for (method, params) in methods {
        let mut times = Vec::with_capacity(calls);
        for _ in 0..calls {
            let started = Instant::now();
            if let Err(e) = session.request(method, params.clone()) {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
            times.push(started.elapsed());
        }
        times.sort();
        let at = |q: f64| {
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::cast_precision_loss,
                reason = "an index into a short list"
            )]
            let i = ((times.len() as f64 - 1.0) * q).round() as usize;
            times.get(i).copied().unwrap_or(Duration::ZERO)
        };
        println!(
            "{method}: {calls} calls, median {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            at(0.5).as_secs_f64() * 1e3,
            at(0.99).as_secs_f64() * 1e3,
            at(1.0).as_secs_f64() * 1e3
        );
    }
    let started = Instant::now();
    session.close();
    println!("shutdown: {:.3} ms", started.elapsed().as_secs_f64() * 1e3);
}
