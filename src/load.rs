//! Stage 1, load: turns a command-line source (a file, a directory of per-tool files, `REV:PATH` or
//! `-`) into a [`Snapshot`]: the tools by identity, each with the file it came from and its JSON
//! Pointer there, and the tools that cannot be compared as [`Problem`]s.
//!
//! The shapes of a file are [`shape`]'s; which files a directory holds, how they pair up and how tools
//! in per-tool directories are named are [`dir`]'s; which files are read at all is [`Select`]'s.
//! Promises: every tool in [`Snapshot::tools`] has a string `name`, keys are unique, and in
//! [`Mode::Contract`] `inputSchema` is an object and `outputSchema` (when present) a schema. A file
//! that is not a snapshot at all is an [`Error::Input`] with the file, line and column.

pub mod dir;
pub mod git;
pub mod read;
pub mod scan;
pub mod select;
pub mod shape;
pub mod span;

pub use read::Limits;
pub use select::{DEFAULT_MAX_TOOLS, Select};

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

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
    marks: std::sync::OnceLock<span::Marks>,
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
            marks: std::sync::OnceLock::new(),
            lookups: std::sync::Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// Line starts, computed on first use (only files with findings pay for it).
    pub fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| span::line_starts(&self.text))
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
        self.marks.get_or_init(|| span::Marks::new(&self.text)).line_column(&self.text, offset)
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
        snapshot.shift_files(shift);
    }

    pub(crate) fn add(&mut self, file: SourceFile) -> FileId {
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
    /// The tool's identity in its snapshot: its published `name`, or in a per-tool directory where
    /// several files carry one name, its file's path without the extension (see [`dir`]).
    pub name: String,
    /// The published `name` when it differs from the identity.
    pub published: Option<String>,
    /// The text of the file the tool is in, shared with its `SourceFile`, and where the tool object is
    /// in it (see [`Tool::raw`]).
    text: std::sync::Arc<String>,
    range: std::ops::Range<usize>,
    /// The parsed tool object, built on first use: tools whose text did not change are never parsed.
    parsed: std::sync::OnceLock<Value>,
    pub file: FileId,
    /// JSON Pointer of the tool object inside its file.
    pub base: String,
    /// The SHA-256 of its canonical contract, when a lock was made or read for it: two tools with
    /// the same digest have the same contract and are compared as unchanged without a walk.
    pub digest: Option<String>,
    /// The tool object's members as loading found them: key and byte range in the file's text
    /// (empty for a tool made from a value).
    pub head: std::sync::Arc<[(Box<str>, std::ops::Range<usize>)]>,
}

impl Tool {
    /// A tool from a value (tests and embedding).
    #[must_use]
    pub fn from_value(name: String, value: Value, file: FileId, base: String) -> Tool {
        let text = std::sync::Arc::new(value.to_string());
        let range = 0..text.len();
        Tool {
            name,
            published: None,
            text,
            range,
            parsed: std::sync::OnceLock::from(value),
            file,
            base,
            digest: None,
            head: std::sync::Arc::new([]),
        }
    }

    /// The tool object's JSON text as published (validated JSON).
    #[must_use]
    pub fn raw(&self) -> &str {
        self.text.get(self.range.clone()).unwrap_or("null")
    }

    /// Where the tool object starts in `file`'s text: `None` unless the tool was read from that
    /// file (a tool made from a value has a text of its own).
    #[must_use]
    pub fn start_in(&self, file: &SourceFile) -> Option<usize> {
        std::sync::Arc::ptr_eq(&self.text, &file.text).then_some(self.range.start)
    }

    /// The text of the file the tool is in (what the ranges of [`Tool::head`] are in).
    #[must_use]
    pub fn file_text(&self) -> &str {
        &self.text
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

    /// The name the server publishes (`name` in the tool object).
    #[must_use]
    pub fn published_name(&self) -> &str {
        self.published.as_deref().unwrap_or(&self.name)
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
    /// Tools whose name repeats an earlier tool's ([`Mode::Lint`] only; contract loading makes them
    /// [`ProblemKind::NameDuplicate`] problems).
    pub repeated: Vec<Tool>,
    /// Tools that cannot be compared ([`Mode::Contract`] only), in file order.
    pub problems: Vec<Problem>,
}

impl Snapshot {
    /// An empty snapshot (a side that does not exist).
    #[must_use]
    pub fn empty(label: &str) -> Snapshot {
        Snapshot { label: label.to_owned(), ..Snapshot::default() }
    }

    /// Renumbers every file reference by `shift` (when files move behind others).
    pub fn shift_files(&mut self, shift: usize) {
        for tool in self.tools.values_mut().chain(&mut self.repeated) {
            tool.file += shift;
        }
        for p in &mut self.problems {
            p.tool.file += shift;
        }
    }
}

/// A tool that cannot be compared, kept so that it is reported at its place and every other tool is
/// still compared.
#[derive(Debug, Clone)]
pub struct Problem {
    pub kind: ProblemKind,
    /// The tool object (its `name` is empty when it has none).
    pub tool: Tool,
    /// JSON Pointer of the offending member inside the tool object (`""`: the object itself).
    pub pointer: String,
    /// What is wrong, as one sentence for messages (`inputSchema` is null; ...).
    pub detail: String,
}

/// What makes a tool unusable for comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// No object `inputSchema`, an `outputSchema` that is not a schema, or not an object.
    Invalid,
    /// No string `name`.
    Unnamed,
    /// A name an earlier tool of the same snapshot already has (the first one is compared).
    NameDuplicate,
}

/// How strict loading is about the tool objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// For comparing contracts: a tool without an object `inputSchema`, an `outputSchema` that is not
    /// a schema, without a string `name`, or with a repeated name is a [`Problem`].
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
/// or is over the cap, [`Error::Input`] when it is not a valid snapshot or does not exist.
pub fn load_source(source: &Source, sources: &mut Sources, mode: Mode, limits: Limits) -> Result<Snapshot, Error> {
    load_selected(source, sources, mode, limits, &Select::default())
}

/// [`load_source`] of the files `select` selects.
///
/// # Errors
/// As [`load_source`]; also when the selection leaves no file.
pub fn load_selected(
    source: &Source,
    sources: &mut Sources,
    mode: Mode,
    limits: Limits,
    select: &Select,
) -> Result<Snapshot, Error> {
    match load_side(source, sources, mode, limits, select)? {
        Side::Loaded(snapshot) => Ok(snapshot),
        other => Err(other.error(source, select)),
    }
}

/// One side of a comparison as found.
#[derive(Debug)]
pub enum Side {
    Loaded(Snapshot),
    /// The path does not exist (on disk, or at the revision).
    Missing,
    /// A directory without snapshot files, or whose files the selection leaves out.
    Empty,
}

impl Side {
    /// The error for a side that has to exist.
    #[must_use]
    pub fn error(&self, source: &Source, select: &Select) -> Error {
        let label = source.label();
        match (self, source) {
            (Side::Missing, Source::Git { rev, path }) => {
                Error::input(&label, 0, 0, format!("`{path}` does not exist at revision `{rev}`"))
            }
            (Side::Missing, _) => Error::Io { path: label, message: "No such file or directory".into() },
            (Side::Empty, _) if !select.is_all() => {
                Error::input(&label, 0, 0, format!("no snapshot file is selected by {}", select.described.join(" ")))
            }
            _ => Error::input(&label, 0, 0, "directory holds no *.json or *.snap files"),
        }
    }
}

/// Loads `source` when it exists and holds selected files.
///
/// # Errors
/// As [`load_source`], except for a missing path or no selected file.
pub fn load_side(
    source: &Source,
    sources: &mut Sources,
    mode: Mode,
    limits: Limits,
    select: &Select,
) -> Result<Side, Error> {
    load_found(dir::gather(source, limits, select)?, &source.label(), sources, mode)
}

/// Parses files already read by [`dir::gather`] into one snapshot labelled `label`.
///
/// # Errors
/// A file that is not a snapshot.
pub fn load_found(found: Option<dir::Found>, label: &str, sources: &mut Sources, mode: Mode) -> Result<Side, Error> {
    Ok(parse_found(found, sources, mode)?.into_side(label, sources, mode, &HashSet::new()))
}

/// One side parsed, its tools not yet keyed ([`finish`] keys them). Comparing two per-tool
/// directories keys both sides with the names that collide on either ([`Parsed::colliding`]), so a
/// variant file added or deleted on one side never re-keys the unchanged files of the other.
#[derive(Debug)]
pub enum Parsed {
    Missing,
    Empty,
    Files { directory: bool, files: Vec<(String, Vec<shape::Entry>)> },
}

impl Parsed {
    /// The side, its tools keyed by [`finish`].
    #[must_use]
    #[allow(clippy::implicit_hasher, reason = "one set type for tool names throughout")]
    pub fn into_side(self, label: &str, sources: &Sources, mode: Mode, colliding: &HashSet<String>) -> Side {
        match self {
            Parsed::Missing => Side::Missing,
            Parsed::Empty => Side::Empty,
            files @ Parsed::Files { .. } => Side::Loaded(finish(files, label, sources, mode, colliding)),
        }
    }

    /// The names that several files of this per-tool directory carry (empty for anything else).
    #[must_use]
    pub fn colliding(&self) -> HashSet<String> {
        match self {
            Parsed::Files { directory: true, files } => dir::colliding(files),
            _ => HashSet::new(),
        }
    }
}

/// Parses the files of one side.
///
/// # Errors
/// A file that is not a snapshot.
pub fn parse_found(found: Option<dir::Found>, sources: &mut Sources, mode: Mode) -> Result<Parsed, Error> {
    let Some(found) = found else { return Ok(Parsed::Missing) };
    if found.files.is_empty() {
        return Ok(Parsed::Empty);
    }
    let mut parsed = Vec::with_capacity(found.files.len());
    // Tools found so far: each file may hold what is left of `--max-tools` (checked as it is read).
    let mut tools = 0usize;
    for file in found.files {
        let left = found.max_tools.saturating_sub(tools);
        let (id, entries) =
            shape::parse_side_file(sources, file.name, file.bytes, (mode, found.directory), (left, found.max_tools))?;
        tools += entries.len();
        sources.files[id].path = file.path;
        parsed.push((file.rel, entries));
    }
    Ok(Parsed::Files { directory: found.directory, files: parsed })
}

/// Keys the tools of a parsed side into a snapshot; in a per-tool directory, names in `colliding`
/// (those several files carry, on either side of a comparison) are keyed by path.
#[must_use]
#[allow(clippy::implicit_hasher, reason = "one set type for tool names throughout")]
pub fn finish(parsed: Parsed, label: &str, sources: &Sources, mode: Mode, colliding: &HashSet<String>) -> Snapshot {
    let mut snapshot = Snapshot::empty(label);
    let Parsed::Files { directory, files: mut parsed } = parsed else { return snapshot };
    if directory {
        dir::name_by_path(&mut parsed, colliding);
    }
    let entries: Vec<shape::Entry> = parsed.into_iter().flat_map(|(_, entries)| entries).collect();
    insert_all(&mut snapshot, sources, entries, mode);
    snapshot
}

/// Adds every entry of an empty snapshot, in order: a tool whose name an earlier one has is repeated
/// ([`Mode::Lint`]) or a duplicate problem. In one sort: the tools by name (stable, so of several with
/// one name the first in file order is kept), the map built from sorted keys.
fn insert_all(snapshot: &mut Snapshot, sources: &Sources, entries: Vec<shape::Entry>, mode: Mode) {
    use rayon::slice::ParallelSliceMut as _;
    fn name(e: &shape::Entry) -> Option<&str> {
        match e {
            shape::Entry::Tool(t) => Some(t.name.as_str()),
            shape::Entry::Problem(_) => None,
        }
    }
    let mut order: Vec<usize> = (0..entries.len()).filter(|&i| name(&entries[i]).is_some()).collect();
    order.par_sort_by(|&a, &b| name(&entries[a]).cmp(&name(&entries[b])));
    // For each repeated tool, the first with its name.
    let mut first = vec![None; entries.len()];
    for pair in order.windows(2) {
        if name(&entries[pair[0]]) == name(&entries[pair[1]]) {
            first[pair[1]] = Some(first[pair[0]].unwrap_or(pair[0]));
        }
    }
    let mut slots: Vec<Option<shape::Entry>> = entries.into_iter().map(Some).collect();
    for i in 0..slots.len() {
        let repeated = match (first[i], &slots[i]) {
            (_, Some(shape::Entry::Problem(_))) | (Some(_), _) => slots[i].take(),
            (None, _) => None,
        };
        match repeated {
            Some(shape::Entry::Problem(p)) => snapshot.problems.push(p),
            Some(shape::Entry::Tool(tool)) if mode == Mode::Lint => snapshot.repeated.push(tool),
            Some(shape::Entry::Tool(tool)) => {
                let Some(Some(shape::Entry::Tool(earlier))) = first[i].map(|f| &slots[f]) else { continue };
                let file = sources.get(earlier.file);
                let (line, column) = shape::position(file, &earlier.base);
                let detail = format!(" (first defined at {}:{line}:{column})", file.name);
                snapshot.problems.push(Problem {
                    kind: ProblemKind::NameDuplicate,
                    tool,
                    pointer: String::new(),
                    detail,
                });
            }
            None => {}
        }
    }
    let kept = order.into_iter().filter_map(|i| match slots[i].take() {
        Some(shape::Entry::Tool(t)) => Some((t.name.clone(), t)),
        _ => None,
    });
    // Keys in order: the map is built in one pass.
    debug_assert!(snapshot.tools.is_empty());
    snapshot.tools = kept.collect();
}

/// The contracts of a lock file's text as a snapshot, located in the lock file (`name` is shown,
/// `path` is its repository path).
///
/// # Errors
/// A lock file that is not JSON in the lock's shape.
pub fn load_lock(name: &str, path: &Path, bytes: Vec<u8>, sources: &mut Sources) -> Result<Snapshot, Error> {
    load_lock_indexed(name, path, bytes, sources).map(|(snapshot, _)| snapshot)
}

/// [`load_lock`], with the lock's [`shape::LockIndex`] when the file has exactly the lock's shape.
///
/// # Errors
/// As [`load_lock`].
pub fn load_lock_indexed(
    name: &str,
    path: &Path,
    bytes: Vec<u8>,
    sources: &mut Sources,
) -> Result<(Snapshot, Option<shape::LockIndex>), Error> {
    let (id, entries, index) = shape::parse_lock(sources, name.to_owned(), bytes)?;
    sources.files[id].path = dir::working_path(path);
    let parsed = Parsed::Files { directory: false, files: vec![(String::new(), entries)] };
    Ok((finish(parsed, name, sources, Mode::Contract, &HashSet::new()), index))
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
    let (_, entries) = shape::parse_file(sources, name.to_owned(), bytes, mode)?;
    insert_all(&mut snapshot, sources, entries, mode);
    Ok(snapshot)
}

/// A path as tools that link to a repository want it: `/`-separated, without a leading `./`.
pub(crate) fn artifact_path(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut rest = path.as_str();
    while let Some(r) = rest.strip_prefix("./") {
        rest = r.trim_start_matches('/');
    }
    rest.to_owned()
}

fn io_error(path: &Path, e: &std::io::Error) -> Error {
    Error::Io { path: path.display().to_string(), message: e.to_string() }
}

pub use dir::{SnapshotPair, snapshot_pairs};
