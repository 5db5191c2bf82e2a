//! Tool contracts as dependencies: `lock` records a SHA-256 per tool over the RFC 8785 canonical JSON
//! of its contract (name, title, description, inputSchema, outputSchema, annotations with the MCP
//! defaults applied), plus the contract itself; `verify` recomputes the hashes and explains every
//! difference with the diff engine, so a drifted description shows as the edit and its rule.
//!
//! Promises: key order, whitespace and annotation hints spelled out at their defaults never change a
//! hash; the lock file is written atomically; a missing or corrupt lock is a clear error.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::compare::HINTS;
use crate::error::Error;
use crate::load::{Snapshot, Sources, Tool};

/// The default lock file name.
pub const LOCK_FILE: &str = "mcp-tools.lock";

/// `mcp-tools.lock`, version 1.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LockFile {
    pub version: u32,
    pub tools: BTreeMap<String, LockedTool>,
}

/// One tool's hash and the contract it was computed over.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LockedTool {
    pub sha256: String,
    pub contract: Value,
}

/// The parts of a tool that make its contract, with annotation defaults spelled out.
#[must_use]
pub fn contract(tool: &Tool) -> Value {
    let v = tool.value();
    let mut c = Map::new();
    c.insert("name".into(), json!(tool.name));
    for key in ["title", "description", "inputSchema", "outputSchema"] {
        if let Some(x) = v.get(key) {
            c.insert(key.into(), x.clone());
        }
    }
    let mut annotations = v.get("annotations").and_then(Value::as_object).cloned().unwrap_or_default();
    for (hint, default) in HINTS {
        let value = annotations.get(*hint).and_then(Value::as_bool).unwrap_or(*default);
        annotations.insert((*hint).to_owned(), json!(value));
    }
    c.insert("annotations".into(), Value::Object(annotations));
    Value::Object(c)
}

/// SHA-256 (hex) of the RFC 8785 canonical form.
#[must_use]
pub fn hash(contract: &Value) -> String {
    let canonical = serde_jcs::to_string(contract).unwrap_or_default();
    crate::checks::hex(&Sha256::digest(canonical.as_bytes()))
}

/// The lock of a snapshot.
#[must_use]
pub fn lock(snapshot: &Snapshot) -> LockFile {
    let tools = snapshot
        .tools
        .values()
        .map(|t| {
            let c = contract(t);
            (t.name.clone(), LockedTool { sha256: hash(&c), contract: c })
        })
        .collect();
    LockFile { version: 1, tools }
}

/// Stable, reviewable JSON text of a lock.
#[must_use]
pub fn to_text(lock: &LockFile) -> String {
    let mut out = serde_json::to_string_pretty(lock).unwrap_or_default();
    out.push('\n');
    out
}

/// Reads a lock file.
///
/// # Errors
/// A missing, unreadable or corrupt lock, with the position of the problem.
pub fn read(path: &Path) -> Result<LockFile, Error> {
    read_with(path, crate::load::Limits::default())
}

/// [`read`], reading at most `limits.max_input_bytes`.
///
/// # Errors
/// As [`read`], and a lock that is not a regular file or is over the cap.
pub fn read_with(path: &Path, limits: crate::load::Limits) -> Result<LockFile, Error> {
    read_text(path, limits).map(|(lock, _)| lock)
}

/// [`read_with`], also returning the lock's text (what [`locked_snapshot`] locates findings in).
///
/// # Errors
/// As [`read_with`].
pub fn read_text(path: &Path, limits: crate::load::Limits) -> Result<(LockFile, String), Error> {
    let name = path.display().to_string();
    let (lock, version, text) = crate::policy::read_versioned(
        path,
        limits.max_input_bytes,
        "corrupt lock",
        "; create it with `mcp-drift lock`",
        |l: &LockFile| l.version,
    )?;
    crate::policy::check_version(path, "lock", version)?;
    for (tool, locked) in &lock.tools {
        if hash(&locked.contract) != locked.sha256 {
            return Err(Error::Input {
                file: name,
                line: 0,
                column: 0,
                message: format!("corrupt lock: the hash of `{tool}` does not match its recorded contract"),
            });
        }
    }
    Ok((lock, text))
}

/// The locked contracts as a snapshot, located in the lock file's own text (`text`, as
/// [`read_text`] returned it), for the diff engine.
///
/// # Errors
/// Never for a lock that `read_text` accepted.
pub fn locked_snapshot(text: String, path: &Path, sources: &mut Sources) -> Result<Snapshot, Error> {
    let name = path.display().to_string();
    crate::load::load_lock(&name, path, text.into_bytes(), sources)
}

/// Tools whose hash differs, or that were added or removed.
#[must_use]
pub fn drifted(lock: &LockFile, current: &LockFile) -> Vec<String> {
    let mut names: Vec<String> = lock
        .tools
        .iter()
        .filter(|(n, t)| current.tools.get(*n).is_none_or(|c| c.sha256 != t.sha256))
        .map(|(n, _)| n.clone())
        .chain(current.tools.keys().filter(|n| !lock.tools.contains_key(*n)).cloned())
        .collect();
    names.sort();
    names.dedup();
    names
}
