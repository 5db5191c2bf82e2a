//! The official schemas in `../shared/schemas/` (SARIF 2.1.0, MCP), read where they are, never copied.

use std::path::Path;

/// The parsed schema `../shared/schemas/<file>`, or `None` (with a note) outside CI when `../shared`
/// is not beside the checkout; in CI a missing file fails the test.
pub fn schema(file: &str) -> Option<serde_json::Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/schemas").join(file);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))),
        Err(e) => {
            assert!(std::env::var_os("CI").is_none(), "CI must have {}: {e}", path.display());
            eprintln!("skipping: {} not found", path.display());
            None
        }
    }
}
