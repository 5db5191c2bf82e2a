//! Any bytes as a snapshot: loading returns a snapshot or a typed error, never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut sources = mcp_drift::load::Sources::default();
    let _ = mcp_drift::load::load_bytes("fuzz.json", data.to_vec(), &mut sources);
});
