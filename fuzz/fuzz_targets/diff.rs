//! Two arbitrary inputs (split at the first NUL byte) compared and rendered in every format: never a
//! panic, a hang or a stack overflow.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (old, new) = (&data[..split], data.get(split + 1..).unwrap_or(&[]));
    let (Ok(old), Ok(new)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else { return };
    if let Ok(analysis) = mcp_drift::diff_texts(old, new) {
        let _ = mcp_drift::report::human::render(&analysis, true);
        let _ = mcp_drift::report::json::render(&analysis);
    }
});
