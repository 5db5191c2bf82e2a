//! `capture`: a live server's `tools/list` as a canonical snapshot.
//!
//! Takes a [`Session`] (stdio or HTTP) and [`Limits`]; returns a [`Capture`]: every tool of every page
//! (`nextCursor` followed, a cursor seen before is a loop), sorted by name, `_meta` removed unless it is
//! kept. [`Capture::text`] is the snapshot as one file (a `tools/list` result, keys sorted, 2-space
//! indentation, a final newline), [`Capture::files`] the per-tool `.snap` layout that directories load.
//! Promises: the same server gives the same bytes; no more than [`Limits::max_pages`] pages and
//! [`Limits::max_tools`] tools; [`write_file`] and [`write_dir`] leave the finished output or nothing.

pub mod plan;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::error::Error;
use crate::mcp::{Failure, ServerInfo, Session};

/// How far `capture` follows the server.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_pages: usize,
    pub max_tools: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_pages: 1000, max_tools: 10_000 }
    }
}

/// A captured server.
#[derive(Debug)]
pub struct Capture {
    pub server: ServerInfo,
    /// The tools, sorted by name (a tool without a string name sorts first, in server order).
    pub tools: Vec<Value>,
    pub pages: usize,
}

/// `initialize`, then every page of `tools/list`.
///
/// # Errors
/// Every [`Failure`] of the session, a page without a `tools` array, a cursor loop, too many pages or
/// tools.
pub fn capture(session: &mut Session, limits: Limits, keep_meta: bool) -> Result<Capture, Failure> {
    let server = session.initialize()?;
    let mut tools = Vec::new();
    let mut seen = HashSet::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        if pages == limits.max_pages {
            return Err(Failure::TooMany { what: "pages of tools".into(), limit: limits.max_pages });
        }
        pages += 1;
        let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
        let result = session.request("tools/list", params)?;
        let Value::Object(mut page) = result else {
            return Err(page_problem(pages, "is not an object"));
        };
        let Some(Value::Array(list)) = page.remove("tools") else {
            return Err(page_problem(pages, "has no `tools` array"));
        };
        if tools.len() + list.len() > limits.max_tools {
            return Err(Failure::TooMany { what: "tools".into(), limit: limits.max_tools });
        }
        tools.extend(list);
        match page.remove("nextCursor") {
            Some(Value::String(next)) if !next.is_empty() => {
                if let Some(c) = cursor.take() {
                    seen.insert(c);
                }
                if seen.contains(&next) {
                    return Err(Failure::CursorLoop { page: pages, cursor: next });
                }
                cursor = Some(next);
            }
            None | Some(Value::Null | Value::String(_)) => break,
            Some(other) => {
                return Err(page_problem(
                    pages,
                    &format!("has a `nextCursor` that is {}", crate::text::value_kind(&other)),
                ));
            }
        }
    }
    if !keep_meta {
        for tool in &mut tools {
            if let Value::Object(t) = tool {
                t.remove("_meta");
            }
        }
    }
    tools.sort_by(|a, b| name_of(a).cmp(&name_of(b)));
    Ok(Capture { server, tools, pages })
}

fn page_problem(page: usize, what: &str) -> Failure {
    Failure::Protocol { step: "tools/list".into(), message: format!("page {page} of the result {what}") }
}

fn name_of(tool: &Value) -> Option<&str> {
    tool.get("name").and_then(Value::as_str)
}

/// The canonical text of a JSON value: keys sorted, 2-space indentation, a final newline.
fn canonical(value: &Value) -> String {
    // `serde_json` keeps object keys in a sorted map (no `preserve_order`): sorted output comes free,
    // and a unit test holds it.
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

impl Capture {
    /// The snapshot as one file: `{"tools": [...]}`.
    #[must_use]
    pub fn text(&self) -> String {
        let mut result = Map::new();
        result.insert("tools".into(), Value::Array(self.tools.clone()));
        canonical(&Value::Object(result))
    }

    /// The snapshot as `(file name, contents)`, one `.snap` file per tool. A name that is not a safe
    /// file name is spelled with `%XX` escapes (and cut, with a hash, past 150 bytes); a second tool of
    /// the same name gets `~2`, `~3` (the directory loader keys those by path, as variants).
    #[must_use]
    pub fn files(&self) -> Vec<(String, String)> {
        let mut taken: BTreeMap<String, usize> = BTreeMap::new();
        self.tools
            .iter()
            .map(|tool| {
                let stem = file_stem(name_of(tool).unwrap_or("unnamed"));
                // Counted without case: `Dup.snap` and `dup.snap` are one file on macOS and Windows.
                // A real name never ends in `~N` here: `file_stem` escapes `~`.
                let n = taken.entry(stem.to_ascii_lowercase()).or_insert(0);
                *n += 1;
                let stem = if *n == 1 { stem } else { format!("{stem}~{n}") };
                (format!("{stem}.snap"), canonical(tool))
            })
            .collect()
    }
}

/// Windows device names: a file called `con.snap` or `nul.x.snap` opens the device, not a file.
const RESERVED: [&str; 4] = ["con", "prn", "aux", "nul"];

/// Whether `stem` (up to its first dot) is a Windows device name, in any case: `con`, `prn`, `aux`,
/// `nul`, `com0`-`com9`, `lpt0`-`lpt9`.
fn reserved_on_windows(stem: &str) -> bool {
    let base = stem.split('.').next().unwrap_or_default().to_ascii_lowercase();
    RESERVED.contains(&base.as_str())
        || (base.len() == 4
            && (base.starts_with("com") || base.starts_with("lpt"))
            && base.as_bytes()[3].is_ascii_digit())
}

/// A tool name as a file stem that is safe on every common file system and cannot leave the
/// directory: `[A-Za-z0-9_-]` and inner dots kept, every other byte `%XX`; a trailing dot (which
/// Windows drops) and the first letter of a Windows device name (`con`, `nul.x`, `COM1`) escaped too.
#[must_use]
pub fn file_stem(name: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let escape_first = reserved_on_windows(name);
    let last = name.len().saturating_sub(1);
    for (i, b) in name.bytes().enumerate() {
        let keep = b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (b == b'.' && i > 0 && i < last);
        let keep = keep && !(i == 0 && escape_first);
        if keep {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    if out.is_empty() {
        out.push_str("%00empty");
    }
    if out.len() > 150 {
        use sha2::Digest as _;
        let digest = crate::checks::hex(&sha2::Sha256::digest(name.as_bytes())[..6]);
        out.truncate(out.floor_char_boundary(120));
        out.push('~');
        out.push_str(&digest);
    }
    out
}

/// Writes `text` to `path` atomically (a finished file or the old one).
///
/// # Errors
/// When the file cannot be written.
pub fn write_file(path: &Path, text: &str) -> Result<(), Error> {
    crate::policy::write_atomically(path, text)
}

/// Makes `dir` hold exactly `files`: written into a new directory beside it, which then takes its
/// place. An existing `dir` must be a directory of `.snap` files only (an earlier capture).
///
/// # Errors
/// When `dir` holds anything else, or the files cannot be written.
pub fn write_dir(dir: &Path, files: &[(String, String)]) -> Result<(), Error> {
    let io = |p: &Path, e: &std::io::Error| Error::Io { path: p.display().to_string(), message: e.to_string() };
    let shown = dir.display().to_string();
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => {
            for entry in std::fs::read_dir(dir).map_err(|e| io(dir, &e))? {
                let entry = entry.map_err(|e| io(dir, &e))?;
                let is_snap = entry.file_type().is_ok_and(|t| t.is_file())
                    && Path::new(&entry.file_name()).extension().is_some_and(|x| x == "snap");
                if !is_snap {
                    return Err(Error::Usage(format!(
                        "--per-tool {shown}: the directory holds `{}`, which is not a .snap file of an earlier capture; give an empty or new directory",
                        entry.file_name().to_string_lossy()
                    )));
                }
            }
        }
        Ok(_) => return Err(Error::Usage(format!("--per-tool {shown}: exists and is not a directory"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(dir, &e)),
    }
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    // Made with the umask's permissions (a temporary directory is 0700 otherwise), and removed if a
    // signal ends the run before it takes `dir`'s place.
    let (fresh, _pending) = crate::policy::Pending::create(
        || crate::policy::temp_dir_builder().prefix(".mcp-drift-capture-").tempdir_in(parent),
        tempfile::TempDir::path,
    )
    .map_err(|e| io(parent, &e))?;
    for (name, text) in files {
        let path = fresh.path().join(name);
        std::fs::write(&path, text).map_err(|e| io(&path, &e))?;
        // A file replaced keeps its mode, as `write_atomically` keeps a single file's.
        if let Ok(old) = std::fs::metadata(dir.join(name)) {
            std::fs::set_permissions(&path, old.permissions()).map_err(|e| io(&path, &e))?;
        }
    }
    if let Ok(old) = std::fs::metadata(dir) {
        std::fs::set_permissions(fresh.path(), old.permissions()).map_err(|e| io(fresh.path(), &e))?;
    }
    // The old directory steps aside, the new one takes its name, the old one goes.
    let old: Option<PathBuf> = if dir.exists() {
        let aside =
            tempfile::Builder::new().prefix(".mcp-drift-old-").tempdir_in(parent).map_err(|e| io(parent, &e))?;
        let aside = aside.keep();
        std::fs::remove_dir(&aside).map_err(|e| io(&aside, &e))?;
        std::fs::rename(dir, &aside).map_err(|e| io(dir, &e))?;
        Some(aside)
    } else {
        None
    };
    let fresh = fresh.keep();
    if let Err(e) = std::fs::rename(&fresh, dir) {
        if let Some(old) = &old {
            let _ = std::fs::rename(old, dir);
        }
        let _ = std::fs::remove_dir_all(&fresh);
        return Err(io(dir, &e));
    }
    if let Some(old) = old {
        let _ = std::fs::remove_dir_all(old);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture_of(tools: Value) -> Capture {
        let server = ServerInfo {
            name: String::new(),
            version: String::new(),
            protocol_version: String::new(),
            protocol: None,
            result: Value::Null,
        };
        let Value::Array(tools) = tools else { unreachable!("an array") };
        Capture { server, tools, pages: 1 }
    }

    #[test]
    fn text_is_sorted_indented_and_ends_with_a_newline() {
        let c = capture_of(json!([{"name": "b", "inputSchema": {"type": "object", "a": 1}}]));
        assert_eq!(
            c.text(),
            "{\n  \"tools\": [\n    {\n      \"inputSchema\": {\n        \"a\": 1,\n        \"type\": \"object\"\n      },\n      \"name\": \"b\"\n    }\n  ]\n}\n"
        );
    }

    /// A server whose every `tools/list` page gives a new cursor and `per_page` tools.
    struct Endless {
        per_page: usize,
        page: usize,
        pending: Option<Value>,
    }

    impl crate::mcp::Transport for Endless {
        fn send(&mut self, m: &Value, _: &str, _: std::time::Instant) -> Result<(), Failure> {
            let Some(id) = m.get("id").cloned() else { return Ok(()) };
            let result = if m["method"] == "initialize" {
                json!({"protocolVersion": "2025-11-25"})
            } else {
                self.page += 1;
                let tools: Vec<Value> =
                    (0..self.per_page).map(|i| json!({"name": format!("t{}-{i}", self.page)})).collect();
                json!({"tools": tools, "nextCursor": format!("c{}", self.page)})
            };
            self.pending = Some(json!({"jsonrpc": "2.0", "id": id, "result": result}));
            Ok(())
        }
        fn recv(&mut self, _: &str, _: std::time::Instant) -> Result<Option<crate::mcp::Received>, Failure> {
            Ok(self.pending.take().map(|message| crate::mcp::Received { message, bytes: 1 }))
        }
    }

    fn endless(per_page: usize, limits: Limits) -> Result<Capture, Failure> {
        let transport = Box::new(Endless { per_page, page: 0, pending: None });
        capture(&mut Session::new(transport, crate::mcp::Limits::default()), limits, false)
    }

    #[test]
    fn pages_and_tools_are_capped() {
        let limits = Limits { max_pages: 5, max_tools: 100 };
        let pages = endless(1, limits).err();
        assert_eq!(pages, Some(Failure::TooMany { what: "pages of tools".into(), limit: 5 }));
        let tools = endless(30, limits).err();
        assert_eq!(tools, Some(Failure::TooMany { what: "tools".into(), limit: 100 }));
    }

    #[test]
    fn hostile_names_stay_inside_the_directory() {
        assert_eq!(file_stem("get_me"), "get_me");
        assert_eq!(file_stem("a.b"), "a.b");
        assert_eq!(file_stem("../../etc/passwd"), "%2E.%2F..%2Fetc%2Fpasswd");
        assert_eq!(file_stem(".hidden"), "%2Ehidden");
        assert_eq!(file_stem(""), "%00empty");
        assert_eq!(file_stem("a\u{0}b c"), "a%00b%20c");
        // Windows device names and a trailing dot, which Windows would drop.
        assert_eq!(file_stem("con"), "%63on");
        assert_eq!(file_stem("NUL.txt"), "%4EUL.txt");
        assert_eq!(file_stem("com1"), "%63om1");
        assert_eq!(file_stem("Lpt9.x"), "%4Cpt9.x");
        assert_eq!(file_stem("console"), "console");
        assert_eq!(file_stem("com"), "com");
        assert_eq!(file_stem("comX"), "comX");
        assert_eq!(file_stem("a."), "a%2E");
        let long = file_stem(&"x".repeat(400));
        assert!(long.len() < 150 && long.starts_with("xxx"), "{long}");
        assert_ne!(long, file_stem(&"x".repeat(401)));
    }

    #[test]
    fn repeated_names_get_numbered_files() {
        let c = capture_of(json!([{"name": "a"}, {"name": "a"}, {"name": "b"}]));
        let names: Vec<String> = c.files().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["a.snap", "a~2.snap", "b.snap"]);
    }

    /// Two tools of one name and a third whose real name is the second's numbered one; and names
    /// that differ only in case, which are one file on case-insensitive file systems.
    #[test]
    fn numbered_files_collide_with_no_other_tool() {
        let c = capture_of(json!([{"name": "dup"}, {"name": "dup"}, {"name": "dup~2"}, {"name": "Dup"}]));
        let names: Vec<String> = c.files().into_iter().map(|(n, _)| n.to_ascii_lowercase()).collect();
        let distinct: std::collections::BTreeSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), 4, "{names:?}");
    }

    #[test]
    fn write_dir_replaces_an_earlier_capture_and_refuses_other_directories() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("snaps");
        write_dir(&dir, &[("a.snap".into(), "1".into()), ("b.snap".into(), "2".into())]).unwrap();
        write_dir(&dir, &[("a.snap".into(), "3".into())]).unwrap();
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["a.snap"]);
        assert_eq!(std::fs::read_to_string(dir.join("a.snap")).unwrap(), "3");
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        assert!(matches!(write_dir(&dir, &[]), Err(Error::Usage(_))));
        assert!(dir.join("notes.txt").exists());
        // Nothing is left beside it.
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
    }
}
