//! Any bytes as a snapshot: loading returns a snapshot or a typed error, never panics; what loads in
//! lint mode is linted (with a protocol revision) and rendered.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_drift::lint::{Options, Protocol};

fuzz_target!(|data: &[u8]| {
    let mut sources = mcp_drift::load::Sources::default();
    let _ = mcp_drift::load::load_bytes("fuzz.json", data.to_vec(), &mut sources);
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(analysis) = mcp_drift::lint_text(text, Options { protocol: Some(Protocol::V2025_06_18) })
    {
        let _ = mcp_drift::report::human::render(&analysis, false);
        let _ = mcp_drift::report::json::render(&analysis);
        let _ = mcp_drift::report::sarif::render(&analysis);
    }
});
