//! Tool contracts as dependencies: `lock` records a SHA-256 per tool over the RFC 8785 canonical JSON
//! of its contract (name, title, description, inputSchema, outputSchema, annotations with the MCP
//! defaults applied), plus the contract itself; `verify` recomputes the hashes and explains every
//! difference with the diff engine, so a drifted description shows as the edit and its rule.
//!
//! Promises: key order, whitespace and annotation hints spelled out at their defaults never change a
//! hash; the lock file is written atomically; a missing or corrupt lock is a clear error.

pub mod canonical;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::compare::HINTS;
use crate::error::Error;
use crate::load::scan;
use crate::load::{Snapshot, Sources, Tool};
use crate::sorted::{self, Joined};

/// The default lock file name.
pub const LOCK_FILE: &str = "mcp-tools.lock";

/// `mcp-tools.lock`, version 1.
#[derive(Clone, Debug, PartialEq)]
pub struct LockFile {
    pub version: u32,
    pub tools: BTreeMap<String, LockedTool>,
}

/// One tool's hash: the SHA-256 of its contract's canonical text (the lock file also records the
/// contract; [`read_text`] checks the two agree and [`locked_snapshot`] reads the contracts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedTool {
    pub sha256: String,
}

/// The parts of a tool that make its contract, with annotation defaults spelled out.
#[must_use]
pub fn contract(tool: &Tool) -> Value {
    contract_of(&tool.name, tool.value())
}

/// [`contract`] of a tool object `v` named `name` (a listed tool, not loaded as a [`Tool`]).
#[must_use]
pub fn contract_of(name: &str, v: &Value) -> Value {
    let mut c = Map::new();
    c.insert("name".into(), json!(name));
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
    digest(&canonical)
}

fn digest(canonical: &str) -> String {
    crate::checks::hex(&Sha256::digest(canonical.as_bytes()))
}

/// The canonical text of [`contract`]`(tool)`, written from the tool's text without parsing it
/// into values (the value path when the text has something [`canonical`] does not handle).
#[must_use]
pub fn canonical_contract(tool: &Tool) -> String {
    fast_contract(tool).unwrap_or_else(|| serde_jcs::to_string(&contract(tool)).unwrap_or_default())
}

/// [`canonical_contract`] from the text; `None` to take the value path.
fn fast_contract(tool: &Tool) -> Option<String> {
    // The members loading found, or (a tool made from a value) found here.
    let scanned;
    let (text, head): (&str, Vec<(&str, std::ops::Range<usize>)>) = if tool.head.is_empty() {
        let raw = tool.raw();
        scanned = scan::scan(raw, scan::Interest::Lock)?;
        let members = scanned.members(scan::ws(raw.as_bytes(), 0))?;
        (raw, members.iter().map(|m| Some((m.key.as_deref()?, m.span.clone()))).collect::<Option<_>>()?)
    } else {
        (tool.file_text(), tool.head.iter().map(|(k, r)| (&**k, r.clone())).collect())
    };
    let get = |key: &str| head.iter().find(|(k, _)| *k == key).map(|(_, r)| r.clone());
    let mut w = canonical::Writer::new(text);
    w.out.reserve(tool.raw().len() + 256);
    // Keys in RFC 8785 order: annotations, description, inputSchema, name, outputSchema, title.
    w.out.extend_from_slice(b"{\"annotations\":");
    annotations(text, get("annotations").as_ref(), &mut w)?;
    for key in ["description", "inputSchema", "name", "outputSchema", "title"] {
        if key == "name" {
            w.out.extend_from_slice(b",\"name\":");
            serde_json::to_writer(&mut w.out, &tool.name).ok()?;
        } else if let Some(span) = get(key) {
            w.out.push(b',');
            serde_json::to_writer(&mut w.out, key).ok()?;
            w.out.push(b':');
            w.span(&span)?;
        }
    }
    w.out.push(b'}');
    String::from_utf8(std::mem::take(&mut w.out)).ok()
}

/// The annotations object with every hint spelled out (a hint that is not a boolean takes its
/// default, as in [`contract`]); `span` is the tool's `annotations` member.
fn annotations(raw: &str, span: Option<&std::ops::Range<usize>>, w: &mut canonical::Writer<'_>) -> Option<()> {
    let text = span.and_then(|s| raw.get(s.clone())).filter(|t| t.starts_with('{'));
    // The members of a non-object `annotations` are none, as `as_object` makes them.
    let mut members: Vec<(String, Option<std::ops::Range<usize>>, Option<bool>)> = Vec::new();
    if let (Some(text), Some(span)) = (text, span) {
        let outline = scan::scan(text, scan::Interest::Snapshot)?;
        for m in outline.members(0)? {
            let key = m.key.as_deref()?.to_owned();
            members.push((key, Some(m.span.start + span.start..m.span.end + span.start), None));
        }
    }
    for (hint, default) in HINTS {
        let value = match members.iter().position(|(k, ..)| k == hint) {
            Some(i) => {
                let v = match members[i].1.as_ref().and_then(|r| raw.get(r.clone())) {
                    Some("true") => true,
                    Some("false") => false,
                    _ => *default,
                };
                members.remove(i);
                v
            }
            None => *default,
        };
        members.push(((*hint).to_owned(), None, Some(value)));
    }
    members.sort_by(|a, b| canonical::key_order(&a.0, &b.0));
    w.out.push(b'{');
    for (n, (key, span, flag)) in members.iter().enumerate() {
        if n > 0 {
            w.out.push(b',');
        }
        serde_json::to_writer(&mut w.out, key).ok()?;
        w.out.push(b':');
        match (span, flag) {
            (_, Some(v)) => w.out.extend_from_slice(if *v { b"true" } else { b"false" }),
            (Some(span), None) => w.span(span)?,
            (None, None) => return None,
        }
    }
    w.out.push(b'}');
    Some(())
}

/// The lock of a snapshot.
#[must_use]
pub fn lock(snapshot: &Snapshot) -> LockFile {
    use rayon::prelude::*;
    let tools: Vec<(String, LockedTool)> = snapshot
        .tools
        .par_iter()
        .map(|(name, t)| (name.clone(), LockedTool { sha256: digest(&canonical_contract(t)) }))
        .collect();
    LockFile { version: 1, tools: tools.into_iter().collect() }
}

/// Records each tool's hash in `lock` on the tool (see [`Tool::digest`]). For the snapshot of the
/// lock itself ([`locked_snapshot`]), only on a tool read from the entry of its own name.
pub fn pin(snapshot: &mut Snapshot, lock: &LockFile) {
    // Both maps are in name order: one merge, no lookups.
    for side in sorted::join(snapshot.tools.iter_mut(), lock.tools.iter(), |t| t.0, |t| t.0) {
        let ((name, tool), entry) = match side {
            Joined::Left(tool) => (tool, None),
            Joined::Both(tool, (_, entry)) => (tool, Some(entry)),
            Joined::Right(_) => continue,
        };
        if !tool.base.ends_with("/contract") || own_entry(&tool.base, name) {
            tool.digest = entry.map(|t| t.sha256.clone());
        }
    }
}

/// Whether `base` is `/tools/NAME/contract`, the pointer of the contract of `name`'s own entry.
fn own_entry(base: &str, name: &str) -> bool {
    base.strip_prefix("/tools/")
        .and_then(|b| b.strip_suffix("/contract"))
        .is_some_and(|key| key == crate::load::span::escape_token(name))
}

/// Tools per step of [`write`]: a step's entries are made in parallel while the step before is written.
const WRITE_STEP: usize = 512;

/// Writes the lock file of `snapshot`: `serde_json::to_string_pretty`'s layout of `{"version": 1,
/// "tools": {NAME: {"sha256": HASH, "contract": CONTRACT}}}`, each contract in its canonical form.
/// Streamed: two steps' text is held at a time, never the whole lock.
///
/// # Errors
/// When `out` fails.
pub fn write(snapshot: &Snapshot, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use rayon::prelude::*;
    let entry = |(name, tool): &(&String, &Tool)| {
        let contract = canonical_contract(tool);
        let mut entry = String::with_capacity(contract.len() * 3 + 128);
        entry.push_str("\n    ");
        entry.push_str(&serde_json::to_string(name).unwrap_or_default());
        entry.push_str(": {\n      \"sha256\": \"");
        entry.push_str(&digest(&contract));
        entry.push_str("\",\n      \"contract\": ");
        canonical::pretty(&contract, 6, &mut entry);
        entry.push_str("\n    }");
        entry
    };
    let tools: Vec<(&String, &Tool)> = snapshot.tools.iter().collect();
    write!(out, "{{\n  \"version\": 1,\n  \"tools\": {{")?;
    let (sender, steps) = std::sync::mpsc::sync_channel::<Vec<String>>(1);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            for chunk in tools.chunks(WRITE_STEP) {
                // The writer stopped (a write failed): nothing more to make.
                if sender.send(chunk.par_iter().map(entry).collect()).is_err() {
                    return;
                }
            }
        });
        let mut first = true;
        for step in steps {
            for entry in step {
                if !first {
                    out.write_all(b",")?;
                }
                first = false;
                out.write_all(entry.as_bytes())?;
            }
        }
        out.write_all(if first { b"}\n}\n" } else { b"\n  }\n}\n" })
    })
}

/// The text [`write`] writes (for tests and small snapshots).
#[must_use]
pub fn text(snapshot: &Snapshot) -> String {
    let mut out = Vec::new();
    // Writing to memory does not fail.
    let _ = write(snapshot, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// The hash of a JSON value's text, whatever its layout and key order.
fn hash_text(raw: &str) -> String {
    let mut out = Vec::new();
    match canonical::value(raw, &mut out).and_then(|()| String::from_utf8(out).ok()) {
        Some(c) => digest(&c),
        None => hash(&serde_json::from_str::<Value>(raw).unwrap_or_default()),
    }
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

/// The lock file as `serde` reads it: for its messages when the one-pass read refuses a text.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Strict {
    version: u32,
    tools: BTreeMap<String, StrictTool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StrictTool {
    sha256: String,
    contract: Value,
}

/// [`read_with`], also returning the lock's text (what [`locked_snapshot`] locates findings in).
///
/// # Errors
/// As [`read_with`].
pub fn read_text(path: &Path, limits: crate::load::Limits) -> Result<(LockFile, String), Error> {
    let mut sources = Sources::default();
    let (lock, snapshot) = load(path, limits, &mut sources)?;
    drop(snapshot);
    let text = sources.files.pop().map(|f| std::sync::Arc::unwrap_or_clone(f.text)).unwrap_or_default();
    Ok((lock, text))
}

/// A lock in another layout than `lock` writes (or not a lock at all) read as `serde` reads it: its
/// message says what is wrong, and each contract is hashed as it is.
fn read_strict(name: &str, text: &str) -> Result<LockFile, Error> {
    let (strict, version) = crate::policy::parse_versioned(name, text, "corrupt lock", |l: &Strict| l.version)?;
    crate::policy::check_version(Path::new(name), "lock", version)?;
    let mut tools = BTreeMap::new();
    for (tool, locked) in strict.tools {
        if hash(&locked.contract) != locked.sha256 {
            return Err(corrupt(name, &tool));
        }
        tools.insert(tool, LockedTool { sha256: locked.sha256 });
    }
    Ok(LockFile { version, tools })
}

fn corrupt(file: &str, tool: &str) -> Error {
    Error::Input {
        file: file.to_owned(),
        line: 0,
        column: 0,
        message: format!("corrupt lock: the hash of `{tool}` does not match its recorded contract"),
    }
}

/// Reads the lock at `path` and its contracts as a snapshot (what [`read_text`] and then
/// [`locked_snapshot`] give), reading the text once when it is in the shape `lock` writes.
///
/// # Errors
/// As [`read_text`].
pub fn load(path: &Path, limits: crate::load::Limits, sources: &mut Sources) -> Result<(LockFile, Snapshot), Error> {
    let name = path.display().to_string();
    let text = crate::policy::read_own_text(path, limits.max_input_bytes, "; create it with `mcp-drift lock`")?;
    load_text(&name, path, text, sources)
}

/// [`load`] of a lock named by a command-line source: a file, `REV:PATH` (the lock as committed at a
/// revision, so a pull request cannot judge itself with the lock it brings) or `-` (standard input).
///
/// The third value is a one-line notice when the lock was read at a revision and the working tree's
/// file of that path differs (the pull request changes its own lock).
///
/// # Errors
/// As [`load`]; also a revision that does not exist, and a path absent at it.
pub fn load_source(
    source: &crate::load::Source,
    limits: crate::load::Limits,
    sources: &mut Sources,
) -> Result<(LockFile, Snapshot, Option<String>), Error> {
    use crate::load::{Source, git, read};
    let mut note = None;
    let (name, path, bytes) = match source {
        Source::Path(p) => return load(p, limits, sources).map(|(l, s)| (l, s, None)),
        Source::Stdin => ("<stdin>".to_owned(), "<stdin>".to_owned(), read::stdin(limits.max_input_bytes)?),
        Source::Git { rev, path } => {
            let name = format!("{rev}:{path}");
            let Some(bytes) = git::read_file(rev, path, limits.max_input_bytes, read::INPUT_LIMIT)? else {
                return Err(Error::Input {
                    file: name,
                    line: 0,
                    column: 0,
                    message: format!(
                        "there is no lock `{path}` at `{rev}`; create it with `mcp-drift lock` and commit it"
                    ),
                });
            };
            note = crate::policy::changed_note(rev, path, Some(&bytes), ("lock", "--lock"), limits.max_input_bytes);
            (name, path.clone(), bytes)
        }
    };
    let text = String::from_utf8(bytes).map_err(|_| Error::Input {
        file: name.clone(),
        line: 0,
        column: 0,
        message: "file is not valid UTF-8".into(),
    })?;
    load_text(&name, Path::new(&path), text, sources).map(|(l, s)| (l, s, note))
}

/// [`load`] of a lock's text already read; `name` is shown, `path` is its repository path.
fn load_text(name: &str, path: &Path, text: String, sources: &mut Sources) -> Result<(LockFile, Snapshot), Error> {
    if text.trim().is_empty() {
        // The strict reading says where the JSON ends.
        read_strict(name, &text)?;
    }
    let mut own = Sources::default();
    let loaded = crate::load::load_lock_indexed(name, path, text.into_bytes(), &mut own);
    // The text as loading kept it: what the strict reading below judges, without a second read.
    let kept = own.files.first().map(|f| std::sync::Arc::clone(&f.text));
    match (loaded, kept) {
        (Ok((mut snapshot, Some(index))), Some(text)) => {
            crate::policy::check_version(Path::new(name), "lock", index.version)?;
            let tools = checked(name, &text, index.entries)?;
            sources.absorb(own, &mut snapshot);
            Ok((LockFile { version: index.version, tools }, snapshot))
        }
        // Not in the lock's shape: the strict reading says why, or reads it as it is.
        (Ok((mut snapshot, None)), Some(text)) => {
            let lock = read_strict(name, &text)?;
            sources.absorb(own, &mut snapshot);
            Ok((lock, snapshot))
        }
        (Err(e), Some(text)) => {
            read_strict(name, &text)?;
            Err(e)
        }
        (Ok(_) | Err(_), None) => {
            Err(Error::Input { file: name.to_owned(), line: 0, column: 0, message: "corrupt lock: not JSON".into() })
        }
    }
}

/// The entries (name, hash, contract bytes in `text`) whose hash is that of their contract; the
/// first that is not is a corrupt lock.
fn checked(
    name: &str,
    text: &str,
    entries: Vec<(String, String, std::ops::Range<usize>)>,
) -> Result<BTreeMap<String, LockedTool>, Error> {
    use rayon::prelude::*;
    let checked: Vec<Result<(String, LockedTool), Error>> = entries
        .into_par_iter()
        .map(|(tool, sha256, span)| {
            // As `lock` wrote it, the contract without its layout is the canonical text; else it is
            // made canonical here.
            let raw = text.get(span).unwrap_or_default();
            if crate::checks::hex(&canonical::minified_digest(raw)) == sha256 || hash_text(raw) == sha256 {
                Ok((tool, LockedTool { sha256 }))
            } else {
                Err(corrupt(name, &tool))
            }
        })
        .collect();
    checked.into_iter().collect()
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
    // Both maps are in name order: one merge gives the names in order, each once.
    sorted::join(lock.tools.iter(), current.tools.iter(), |t| t.0, |t| t.0)
        .filter_map(|side| match side {
            Joined::Left((name, _)) | Joined::Right((name, _)) => Some(name.clone()),
            Joined::Both((name, t), (_, c)) => (t.sha256 != c.sha256).then(|| name.clone()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock_of(tools: &[(&str, &str)]) -> LockFile {
        let tools = tools.iter().map(|(n, h)| ((*n).to_owned(), LockedTool { sha256: (*h).to_owned() })).collect();
        LockFile { version: 1, tools }
    }

    #[test]
    fn drifted_names_are_the_changed_the_gone_and_the_new_in_order_once() {
        let lock = lock_of(&[("a", "1"), ("b", "2"), ("c", "3"), ("e", "5"), ("g", "7")]);
        let current = lock_of(&[("b", "2"), ("c", "x"), ("d", "4"), ("e", "5"), ("f", "6")]);
        assert_eq!(drifted(&lock, &current), ["a", "c", "d", "f", "g"]);
        assert_eq!(drifted(&current, &lock), ["a", "c", "d", "f", "g"]);
        assert!(drifted(&lock, &lock).is_empty());
        assert_eq!(drifted(&lock, &lock_of(&[])), ["a", "b", "c", "e", "g"]);
        assert_eq!(drifted(&lock_of(&[]), &lock), ["a", "b", "c", "e", "g"]);
    }

    #[test]
    fn a_pin_takes_the_hash_of_the_tool_of_the_same_name() {
        let text = r#"{"tools": [{"name": "a", "inputSchema": {}}, {"name": "b/c", "inputSchema": {}},
            {"name": "d", "inputSchema": {}}]}"#;
        let mut sources = Sources::default();
        let mut snapshot = crate::load::load_bytes("s.json", text.as_bytes().to_vec(), &mut sources).expect("loads");
        pin(&mut snapshot, &lock_of(&[("0", "z"), ("a", "1"), ("b/c", "2"), ("c", "3")]));
        let digests: Vec<Option<&str>> = snapshot.tools.values().map(|t| t.digest.as_deref()).collect();
        assert_eq!(digests, [Some("1"), Some("2"), None]);
        assert!(own_entry("/tools/b~1c/contract", "b/c"));
        assert!(!own_entry("/tools/b/c/contract", "b/c"));
        assert!(!own_entry("/tools/a/contract/x", "a"));
    }
}
