//! Stage 1, load: turns a command-line source (a file, a directory of per-tool files, or `-`) into a
//! [`Snapshot`]: the tools by name, each with the file it came from and its JSON Pointer there.
//!
//! Accepts every shape users really have: a JSON-RPC response, a `tools/list` result, an array of result
//! pages, a bare array of tools, or one tool object. Promises: every tool has a string `name`, names are
//! unique, `inputSchema` is an object and `outputSchema` (when present) is a schema (object or boolean).
//! Any violation is an [`Error::Input`] with the file, line and column.

pub mod git;
pub mod read;
pub mod span;

pub use read::Limits;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use serde_json::value::RawValue;

use crate::error::Error;
pub use crate::text::{escape, hidden_kind, is_hidden};

/// One source file, kept whole so that diagnostics can quote it.
#[derive(Debug)]
pub struct SourceFile {
    /// The name shown to users (the path as given, `REV:PATH`, or `<stdin>`).
    pub name: String,
    /// The file's path for tools that link to the repository (SARIF `artifactLocation.uri`, GitHub
    /// `file=`): relative, `/`-separated, without a revision. Equal to `name` unless set otherwise.
    pub path: String,
    /// The whole file; tools share it (each keeps its byte range), so no tool text is copied.
    pub text: std::sync::Arc<String>,
    line_starts: std::sync::OnceLock<Vec<usize>>,
    char_marks: std::sync::OnceLock<Vec<usize>>,
    /// Where each tool object starts (by its JSON Pointer), recorded while loading.
    tool_offsets: std::collections::HashMap<String, usize>,
    /// Per tool start: lookups so far, and after a few an index of every pointer in the tool, so that
    /// a tool with thousands of findings is scanned once, not once per finding.
    lookups: std::sync::Mutex<std::collections::HashMap<usize, Lookups>>,
}

impl SourceFile {
    #[must_use]
    pub fn new(name: String, text: String) -> SourceFile {
        SourceFile {
            path: name.clone(),
            name,
            text: std::sync::Arc::new(text),
            line_starts: std::sync::OnceLock::new(),
            char_marks: std::sync::OnceLock::new(),
            tool_offsets: std::collections::HashMap::new(),
            lookups: std::sync::Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// Line starts, computed on first use (only files with findings pay for it).
    pub fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| span::line_starts(&self.text))
    }

    /// Where the tool object at `base` starts in the text.
    #[must_use]
    pub fn tool_offset(&self, base: &str) -> Option<usize> {
        self.tool_offsets.get(base).copied()
    }

    /// The pointer index of the tool object that starts at `start`, once it has been asked for
    /// often enough to be worth building (`None` before that: scan the text directly).
    pub fn tool_index(&self, start: usize) -> Option<std::sync::Arc<span::PointerIndex>> {
        /// Lookups answered by scanning before the tool is indexed.
        const SCANS: u32 = 8;
        let mut lookups = self.lookups.lock().ok()?;
        let entry = lookups.entry(start).or_insert(Lookups::Scans(0));
        match entry {
            Lookups::Index(index) => Some(index.clone()),
            Lookups::Scans(n) if *n < SCANS => {
                *n += 1;
                None
            }
            Lookups::Scans(_) => {
                let index = std::sync::Arc::new(span::PointerIndex::build(self.text.get(start..)?));
                *entry = Lookups::Index(index.clone());
                Some(index)
            }
        }
    }

    /// 1-based line and column of a byte offset.
    #[must_use]
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let marks = self.char_marks.get_or_init(|| span::char_marks(&self.text));
        span::line_column_marked(&self.text, self.line_starts(), marks, offset)
    }
}

/// See [`SourceFile::tool_index`].
#[derive(Debug)]
enum Lookups {
    Scans(u32),
    Index(std::sync::Arc<span::PointerIndex>),
}

/// Index of a file in [`Sources`].
pub type FileId = usize;

/// All files read for one run.
#[derive(Debug, Default)]
pub struct Sources {
    pub files: Vec<SourceFile>,
}

impl Sources {
    /// Moves the files of `other` behind these, renumbering the tools of `snapshot` that refer to them.
    pub fn absorb(&mut self, other: Sources, snapshot: &mut Snapshot) {
        let shift = self.files.len();
        self.files.extend(other.files);
        for tool in snapshot.tools.values_mut().chain(&mut snapshot.repeated) {
            tool.file += shift;
        }
    }

    fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        self.files.len() - 1
    }

    #[must_use]
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id]
    }
}

/// One tool of a snapshot.
#[derive(Debug, Clone)]
pub struct Tool {
    pub name: String,
    /// The text of the file the tool is in, shared with its `SourceFile`, and where the tool object is
    /// in it (see [`Tool::raw`]).
    text: std::sync::Arc<String>,
    range: std::ops::Range<usize>,
    /// The parsed tool object, built on first use: tools whose text did not change are never parsed.
    parsed: std::sync::OnceLock<Value>,
    pub file: FileId,
    /// JSON Pointer of the tool object inside its file.
    pub base: String,
}

impl Tool {
    /// A tool from a value (tests and embedding).
    #[must_use]
    pub fn from_value(name: String, value: Value, file: FileId, base: String) -> Tool {
        let text = std::sync::Arc::new(value.to_string());
        let range = 0..text.len();
        Tool { name, text, range, parsed: std::sync::OnceLock::from(value), file, base }
    }

    /// The tool object's JSON text as published (validated JSON).
    #[must_use]
    pub fn raw(&self) -> &str {
        self.text.get(self.range.clone()).unwrap_or("null")
    }

    /// The whole tool object, parsed afresh and not kept (for one pass over every tool, such as lint,
    /// where caching every parsed tool would hold the whole snapshot as values at once).
    #[must_use]
    pub fn parse(&self) -> Value {
        match self.parsed.get() {
            Some(v) => v.clone(),
            None => serde_json::from_str(self.raw()).unwrap_or(Value::Null),
        }
    }

    /// The whole tool object.
    pub fn value(&self) -> &Value {
        // `raw` was validated when it was loaded; a failure here cannot happen, and is not a panic.
        self.parsed.get_or_init(|| serde_json::from_str(self.raw()).unwrap_or(Value::Null))
    }
}

/// The tools of one side of a comparison, sorted by name.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// What the user named on the command line.
    pub label: String,
    pub tools: BTreeMap<String, Tool>,
    /// Tools whose name repeats an earlier tool's ([`Mode::Lint`] only; contract loading refuses them).
    pub repeated: Vec<Tool>,
}

impl Snapshot {
    /// An empty snapshot (a side that does not exist).
    #[must_use]
    pub fn empty(label: &str) -> Snapshot {
        Snapshot { label: label.to_owned(), ..Snapshot::default() }
    }
}

/// How strict loading is about the tool objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// For comparing contracts: a tool without an object `inputSchema`, an `outputSchema` that is not
    /// a schema, or a repeated name is an input error.
    Contract,
    /// For `lint`: such tools are kept (lint reports them as findings); only what makes a tool
    /// unidentifiable (no string `name`, not an object) is an input error.
    Lint,
}

/// Where a snapshot comes from. A command-line argument becomes one with [`Source::parse`]; `--base`
/// builds [`Source::Git`] directly, so a revision never goes through string splitting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `-`.
    Stdin,
    /// A file or directory in the file system.
    Path(PathBuf),
    /// `path` (relative to the current directory) as committed at `rev`, never the working tree.
    Git { rev: String, path: String },
}

impl Source {
    /// Reads a command-line argument: `-` is standard input; `REV:PATH` is PATH at a git revision
    /// when no such file exists; a path starting with `./`, `../` or `/` is always a path.
    ///
    /// # Errors
    /// [`Error::Usage`] when `REV:PATH` names both an existing file and a resolvable revision: which
    /// one is meant cannot be told, and a pull request could commit a file of that name.
    pub fn parse(spec: &str) -> Result<Source, Error> {
        if spec == "-" {
            return Ok(Source::Stdin);
        }
        let explicit = ["./", "../", "/"].iter().any(|p| spec.starts_with(p));
        let Some((rev, path)) = git::split(spec).filter(|_| !explicit) else {
            return Ok(Source::Path(PathBuf::from(spec)));
        };
        if std::fs::symlink_metadata(spec).is_err() {
            return Ok(Source::Git { rev: rev.to_owned(), path: path.to_owned() });
        }
        if git::is_revision(rev) {
            return Err(Error::Usage(format!(
                "`{spec}` names both a file in the working tree and `{path}` at git revision `{rev}`; \
                 write `./{spec}` for the file, or rename the file to read the revision \
                 (with diff, `--base {rev} {path}` always reads the revision)"
            )));
        }
        Ok(Source::Path(PathBuf::from(spec)))
    }

    /// The name shown to users.
    #[must_use]
    pub fn label(&self) -> String {
        match self {
            Source::Stdin => "-".to_owned(),
            Source::Path(p) => p.display().to_string(),
            Source::Git { rev, path } => format!("{rev}:{path}"),
        }
    }
}

/// Loads `spec` (see [`Source::parse`]): `-` for standard input, a directory, a file, or `REV:PATH`.
///
/// # Errors
/// [`Error::Io`] when it cannot be read, [`Error::Input`] when it is not a valid snapshot.
pub fn load(spec: &str, sources: &mut Sources) -> Result<Snapshot, Error> {
    load_with(spec, sources, Mode::Contract)
}

/// [`load`] with a choice of strictness.
///
/// # Errors
/// As [`load`].
pub fn load_with(spec: &str, sources: &mut Sources, mode: Mode) -> Result<Snapshot, Error> {
    load_source(&Source::parse(spec)?, sources, mode, Limits::default())
}

/// Loads a snapshot from `source`, reading at most `limits.max_input_bytes` per file.
///
/// # Errors
/// [`Error::Io`] when it cannot be read, [`Error::Usage`] when it is not a regular file or directory
/// or is over the cap, [`Error::Input`] when it is not a valid snapshot.
pub fn load_source(source: &Source, sources: &mut Sources, mode: Mode, limits: Limits) -> Result<Snapshot, Error> {
    let cap = limits.max_input_bytes;
    let mut snapshot = Snapshot::empty(&source.label());
    let path = match source {
        Source::Stdin => {
            add_file(&mut snapshot, sources, "<stdin>".into(), read::stdin(cap)?, mode)?;
            return Ok(snapshot);
        }
        Source::Git { rev, path } => {
            for (name, bytes) in git::read(rev, path, cap)? {
                let repo_path = name.strip_prefix(&format!("{rev}:")).unwrap_or(&name).to_owned();
                add_file(&mut snapshot, sources, name, bytes, mode)?;
                if let Some(last) = sources.files.last_mut() {
                    last.path = artifact_path(&repo_path);
                }
            }
            return Ok(snapshot);
        }
        Source::Path(path) => path,
    };
    let meta = std::fs::metadata(path).map_err(|e| io_error(path, &e))?;
    if meta.is_dir() {
        let files = snapshot_files(path)?;
        if files.is_empty() {
            return Err(Error::input(&source.label(), 0, 0, "directory holds no *.json or *.snap files"));
        }
        for file in files {
            let bytes = read::file(&file, cap, read::INPUT_LIMIT)?;
            add_file(&mut snapshot, sources, file.display().to_string(), bytes, mode)?;
        }
    } else {
        let bytes = read::file(path, cap, read::INPUT_LIMIT)?;
        add_file(&mut snapshot, sources, source.label(), bytes, mode)?;
    }
    for file in &mut sources.files {
        file.path = artifact_path(&file.path);
    }
    Ok(snapshot)
}

/// A path as tools that link to a repository want it: `/`-separated, without a leading `./`.
fn artifact_path(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut rest = path.as_str();
    while let Some(r) = rest.strip_prefix("./") {
        rest = r.trim_start_matches('/');
    }
    rest.to_owned()
}

/// Loads a snapshot from bytes already in memory (used by tests and by git revisions).
///
/// # Errors
/// As [`load`].
pub fn load_bytes(name: &str, bytes: Vec<u8>, sources: &mut Sources) -> Result<Snapshot, Error> {
    load_bytes_with(name, bytes, sources, Mode::Contract)
}

/// [`load_bytes`] with a choice of strictness.
///
/// # Errors
/// As [`load`].
pub fn load_bytes_with(name: &str, bytes: Vec<u8>, sources: &mut Sources, mode: Mode) -> Result<Snapshot, Error> {
    let mut snapshot = Snapshot::empty(name);
    add_file(&mut snapshot, sources, name.to_owned(), bytes, mode)?;
    Ok(snapshot)
}

fn io_error(path: &Path, e: &std::io::Error) -> Error {
    Error::Io { path: path.display().to_string(), message: e.to_string() }
}

/// A snapshot file's relative path and where it is on each side (`None`: that side lacks it).
pub type SnapshotPair = (String, Option<PathBuf>, Option<PathBuf>);

/// When both sides are directories of whole snapshots (one per server or tool set, rather than one
/// file per tool), the files paired by relative path: `(relative path, old file, new file)`, with
/// `None` for a file on one side only. `None` when this is not that layout.
///
/// # Errors
/// Unreadable directories.
pub fn snapshot_pairs(old: &Source, new: &Source, limits: Limits) -> Result<Option<Vec<SnapshotPair>>, Error> {
    let (Source::Path(o), Source::Path(n)) = (old, new) else { return Ok(None) };
    let (o, n) = (o.as_path(), n.as_path());
    if !(o.is_dir() && n.is_dir()) {
        return Ok(None);
    }
    let (fo, fn_) = (snapshot_files(o)?, snapshot_files(n)?);
    let holds_list = |p: &PathBuf| {
        // Unreadable files are reported when the pair is loaded.
        read::file(p, limits.max_input_bytes, read::INPUT_LIMIT).is_ok_and(|bytes| {
            let t = String::from_utf8_lossy(&bytes);
            let t = t.trim_start_matches('\u{feff}').trim_start();
            t.starts_with('[') || ["/tools", "/result", "/jsonrpc"].iter().any(|k| span::locate(t, k).is_some())
        })
    };
    if !fo.iter().chain(&fn_).any(holds_list) {
        return Ok(None);
    }
    let rel = |base: &Path, p: &PathBuf| p.strip_prefix(base).unwrap_or(p).to_string_lossy().replace('\\', "/");
    let mut pairs: BTreeMap<String, (Option<PathBuf>, Option<PathBuf>)> = BTreeMap::new();
    for p in fo {
        let key = rel(o, &p);
        pairs.entry(key).or_default().0 = Some(p);
    }
    for p in fn_ {
        let key = rel(n, &p);
        pairs.entry(key).or_default().1 = Some(p);
    }
    Ok(Some(pairs.into_iter().map(|(k, (a, b))| (k, a, b)).collect()))
}

/// The `*.json` and `*.snap` files below `dir`, sorted so that runs are deterministic.
fn snapshot_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir).follow_links(true).sort_by_file_name() {
        let entry = entry.map_err(|e| {
            let path = e.path().map_or_else(|| dir.display().to_string(), |p| p.display().to_string());
            let message = if e.loop_ancestor().is_some() {
                "symbolic link loop".to_owned()
            } else {
                e.io_error().map_or_else(|| e.to_string(), ToString::to_string)
            };
            Error::Io { path, message }
        })?;
        let is_snapshot = entry.path().extension().is_some_and(|x| x == "json" || x == "snap");
        let kind = entry.file_type();
        if is_snapshot && !kind.is_file() && !kind.is_dir() {
            // A FIFO or device named like a snapshot is not skipped unseen: its tools would be missing.
            return Err(read::not_regular(&entry.path().display().to_string(), kind));
        }
        if kind.is_file() && is_snapshot {
            out.push(entry.into_path());
        }
    }
    Ok(out)
}

fn add_file(
    snapshot: &mut Snapshot,
    sources: &mut Sources,
    name: String,
    bytes: Vec<u8>,
    mode: Mode,
) -> Result<(), Error> {
    let mut text = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let prefix = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
        let (line, column) = span::line_column(&prefix, &span::line_starts(&prefix), valid);
        Error::input(&name, line, column, "file is not valid UTF-8")
    })?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    if text.trim().is_empty() {
        return Err(Error::input(&name, 1, 1, "file is empty; expected a JSON tools/list snapshot"));
    }
    let file = sources.add(SourceFile::new(name, text));
    let source = sources.get(file);
    let text = source.text.as_str();
    // The duplicate-key scan runs beside the parse: it reads the same bytes and needs no result of it.
    // The parse only validates and finds the tool objects; tools are parsed on demand.
    let (parsed, duplicate) = rayon::join(|| serde_json::from_str::<&RawValue>(text), || span::scan_structure(text));
    let raw = parsed.map_err(|e| json_error(&source.name, &e))?;
    match duplicate {
        Some(span::Structure::DuplicateKey(offset, key)) => {
            let (line, column) = source.line_column(offset);
            return Err(Error::input(
                &source.name,
                line,
                column,
                format!("duplicate key `{}` in one object: parsers disagree on which value wins", escape(&key)),
            ));
        }
        Some(span::Structure::TooDeep(offset)) => {
            let (line, column) = source.line_column(offset);
            return Err(Error::input(
                &source.name,
                line,
                column,
                format!("nesting deeper than {} levels (recursion limit)", span::MAX_NESTING),
            ));
        }
        Some(span::Structure::NumberOutOfRange(offset)) => {
            let (line, column) = source.line_column(offset);
            return Err(Error::input(&source.name, line, column, "number out of range for a 64-bit float"));
        }
        None => {}
    }
    let mut found = Vec::new();
    collect_tools(raw, String::new(), source, &mut found)?;
    // Checking a tool reads its members; thousands of tools share the cores.
    let tools: Vec<Tool> = {
        use rayon::prelude::*;
        found.par_iter().map(|(base, raw)| check_tool(raw, base, file, source, mode)).collect::<Result<_, _>>()?
    };
    sources.files[file].tool_offsets = tools.iter().map(|t| (t.base.clone(), t.range.start)).collect();
    let source = sources.get(file);
    for tool in tools {
        if mode == Mode::Lint && snapshot.tools.contains_key(&tool.name) {
            snapshot.repeated.push(tool);
            continue;
        }
        if let Some(previous) = snapshot.tools.get(&tool.name) {
            let first = sources.get(previous.file);
            let (pl, pc) = position(first, &previous.base);
            let (line, column) = position(source, &tool.base);
            return Err(Error::input(
                &source.name,
                line,
                column,
                format!("duplicate tool name `{}` (first defined at {}:{pl}:{pc})", escape(&tool.name), first.name),
            ));
        }
        snapshot.tools.insert(tool.name.clone(), tool);
    }
    Ok(())
}

fn json_error(file: &str, e: &serde_json::Error) -> Error {
    let message = e.to_string();
    // serde_json appends " at line L column C"; the position goes in front instead.
    let message = message.rsplit_once(" at line ").map_or(message.as_str(), |(m, _)| m).to_owned();
    Error::input(file, e.line(), e.column(), format!("invalid JSON: {message}"))
}

/// 1-based position of the value at `pointer`, or of the start of the file.
fn position(source: &SourceFile, pointer: &str) -> (usize, usize) {
    span::locate(&source.text, pointer).map_or((1, 1), |l| source.line_column(l.key.unwrap_or(l.value).start))
}

fn shape_error(source: &SourceFile, pointer: &str, message: impl Into<String>) -> Error {
    let (line, column) = position(source, pointer);
    Error::input(&source.name, line, column, message)
}

/// The first significant byte of a JSON value.
fn first_byte(raw: &RawValue) -> u8 {
    raw.get().bytes().find(|b| !b.is_ascii_whitespace()).unwrap_or(b' ')
}

/// Finds the tool objects in any supported shape.
fn collect_tools<'t>(
    raw: &'t RawValue,
    base: String,
    source: &SourceFile,
    out: &mut Vec<(String, &'t RawValue)>,
) -> Result<(), Error> {
    let parse_err = |e: &serde_json::Error| json_error(&source.name, e);
    match first_byte(raw) {
        b'{' => {
            let map: BTreeMap<String, &'t RawValue> = serde_json::from_str(raw.get()).map_err(|e| parse_err(&e))?;
            if map.contains_key("jsonrpc") || (map.contains_key("id") && map.contains_key("result")) {
                if map.contains_key("error") {
                    return Err(shape_error(
                        source,
                        &format!("{base}/error"),
                        "JSON-RPC error response, not a tools/list result",
                    ));
                }
                let Some(result) = map.get("result") else {
                    return Err(shape_error(source, &base, "JSON-RPC response without `result`"));
                };
                return collect_tools(result, format!("{base}/result"), source, out);
            }
            if let Some(tools) = map.get("tools") {
                if first_byte(tools) != b'[' {
                    return Err(shape_error(
                        source,
                        &format!("{base}/tools"),
                        "`tools` must be an array of tool objects",
                    ));
                }
                let list: Vec<&'t RawValue> = serde_json::from_str(tools.get()).map_err(|e| parse_err(&e))?;
                for (i, tool) in list.into_iter().enumerate() {
                    out.push((format!("{base}/tools/{i}"), tool));
                }
                return Ok(());
            }
            if map.contains_key("name") {
                out.push((base, raw));
                return Ok(());
            }
            Err(shape_error(
                source,
                &base,
                "expected a tools/list result (`{\"tools\": [...]}`), a JSON-RPC response, an array of tools or pages, or one tool object",
            ))
        }
        b'[' => {
            #[derive(serde::Deserialize)]
            struct Page<'a> {
                #[serde(borrow)]
                tools: Option<&'a RawValue>,
                #[serde(borrow)]
                result: Option<&'a RawValue>,
            }
            let items: Vec<&'t RawValue> = serde_json::from_str(raw.get()).map_err(|e| parse_err(&e))?;
            let is_page = |i: &&RawValue| {
                first_byte(i) == b'{'
                    && serde_json::from_str::<Page<'_>>(i.get()).is_ok_and(|p| p.tools.is_some() || p.result.is_some())
            };
            let pages = !items.is_empty() && items.iter().all(is_page);
            for (i, item) in items.into_iter().enumerate() {
                let pointer = format!("{base}/{i}");
                if pages {
                    collect_tools(item, pointer, source, out)?;
                } else {
                    out.push((pointer, item));
                }
            }
            Ok(())
        }
        _ => Err(shape_error(source, &base, "expected a JSON object or array, found a scalar")),
    }
}

fn check_tool(raw: &RawValue, base: &str, file: FileId, source: &SourceFile, mode: Mode) -> Result<Tool, Error> {
    if first_byte(raw) != b'{' {
        return Err(shape_error(source, base, "a tool must be a JSON object"));
    }
    // Members as raw text: only the keys are built, so `null` and absence stay apart.
    let head: BTreeMap<String, &RawValue> =
        serde_json::from_str(raw.get()).map_err(|e| json_error(&source.name, &e))?;
    let raw_name = head.get("name");
    let Some(name) = raw_name.and_then(|n| serde_json::from_str::<String>(n.get()).ok()) else {
        let at = if raw_name.is_some() { format!("{base}/name") } else { base.to_owned() };
        return Err(shape_error(source, &at, "a tool needs a string `name`"));
    };
    // `raw` borrows from the file's text, so where the tool is there is a pointer difference: no search.
    let at = (raw.get().as_ptr() as usize).wrapping_sub(source.text.as_ptr() as usize);
    let range = at..at + raw.get().len();
    if source.text.get(range.clone()).map(str::as_ptr) != Some(raw.get().as_ptr()) {
        return Err(shape_error(source, base, "internal: a tool's text is not inside its file"));
    }
    let text = std::sync::Arc::clone(&source.text);
    let tool = Tool { name, text, range, parsed: std::sync::OnceLock::new(), file, base: base.to_owned() };
    if mode == Mode::Lint {
        return Ok(tool);
    }
    let name = &tool.name;
    match head.get("inputSchema").map(|r| first_byte(r)) {
        Some(b'{') => {}
        Some(_) => {
            return Err(shape_error(
                source,
                &format!("{base}/inputSchema"),
                format!("tool `{}`: `inputSchema` must be a JSON Schema object", escape(name)),
            ));
        }
        None => return Err(shape_error(source, base, format!("tool `{}` has no `inputSchema`", escape(name)))),
    }
    if let Some(output) = head.get("outputSchema")
        && !(first_byte(output) == b'{' || matches!(output.get().trim(), "true" | "false"))
    {
        return Err(shape_error(
            source,
            &format!("{base}/outputSchema"),
            format!("tool `{}`: `outputSchema` must be a JSON Schema (object or boolean)", escape(name)),
        ));
    }
    Ok(tool)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Result<Vec<String>, Error> {
        let mut sources = Sources::default();
        let s = load_bytes("t.json", text.as_bytes().to_vec(), &mut sources)?;
        Ok(s.tools.into_keys().collect())
    }

    const T: &str = r#"{"name":"a","inputSchema":{"type":"object"}}"#;

    #[test]
    fn every_shape_loads() {
        let shapes = [
            format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":[{T}],"nextCursor":null,"ttlMs":5}}}}"#),
            format!(r#"{{"tools":[{T}]}}"#),
            format!("[{T}]"),
            format!(r#"[{{"tools":[{T}]}},{{"tools":[]}}]"#),
            T.to_owned(),
        ];
        for shape in shapes {
            assert_eq!(names(&shape).unwrap(), vec!["a"], "{shape}");
        }
    }

    #[test]
    fn input_errors_have_positions() {
        let cases = [
            (format!("[{T},\n {T}]"), "duplicate tool name `a`", 2),
            (r#"{"tools":[{"inputSchema":{}}]}"#.to_owned(), "string `name`", 1),
            (r#"{"tools":[{"name":"x","inputSchema":null}]}"#.to_owned(), "must be a JSON Schema object", 1),
            ("{\"tools\":\n[".to_owned(), "invalid JSON", 2),
            (String::new(), "file is empty", 1),
            ("42".to_owned(), "found a scalar", 1),
        ];
        for (text, want, line) in cases {
            match names(&text) {
                Err(Error::Input { message, line: l, .. }) => {
                    assert!(message.contains(want), "{message}");
                    assert_eq!(l, line, "{message}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn deep_nesting_is_a_clean_error() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(matches!(names(&deep), Err(Error::Input { .. })));
    }
}
