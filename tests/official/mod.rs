//! The official schemas the conformance tests check against, read where they are, never copied:
//! - SARIF 2.1.0 from the registry: `tests/official/fetch.sh` takes it from a pinned npm package
//!   (Microsoft's SARIF SDK) into `target/schemas/`;
//! - the MCP revisions' JSON schemas from `../shared/schemas/`, because no registry package publishes
//!   them (the official TypeScript SDK ships its types only, generated from a draft of the spec). This
//!   is the one input from outside the repository; issue #34 keeps it open.

use std::path::{Path, PathBuf};

/// Where the official schema `file` is read from.
fn path(file: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if file.starts_with("mcp-schema-") {
        root.join("../shared/schemas").join(file)
    } else {
        root.join("target/schemas").join(file)
    }
}

/// The parsed official schema `file`, or `None` (with a note) outside CI when it is not there; in CI
/// a missing file fails the test.
pub fn schema(file: &str) -> Option<serde_json::Value> {
    let path = path(file);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))),
        Err(e) => {
            let how = if file.starts_with("mcp-schema-") { "" } else { " (run tests/official/fetch.sh)" };
            assert!(std::env::var_os("CI").is_none(), "CI must have {}{how}: {e}", path.display());
            eprintln!("skipping: {} not found{how}", path.display());
            None
        }
    }
}
