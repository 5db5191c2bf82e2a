//! The files of a source: which snapshot files a path holds (on disk or at a git revision, through the
//! same [`Select`]), how whole-snapshot directories pair up file by file, and how tools of a per-tool
//! directory are named when several files carry one `name`.
//!
//! Identity in per-tool directories (one tool per file, as `__toolsnaps__` keeps them): a tool's key is
//! its `name`, except when several files of the directory carry the same `name`: then each of them
//! whose path without the extension is not the name is keyed by that path (`issue_write_ff_fields`),
//! so the base file `issue_write.snap` stays `issue_write` on both sides and a variant added later is a
//! new tool.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::shape::Entry;
use super::{Limits, Select, Source, git, io_error, read, span};
use crate::error::Error;

/// One file of a source, read but not parsed.
#[derive(Debug)]
pub struct FileRead {
    /// The name shown to users (`REV:PATH` at a revision).
    pub name: String,
    /// The repository path (see [`super::SourceFile::path`]).
    pub path: String,
    /// The path relative to the directory given (for a single file, its own path).
    pub rel: String,
    pub bytes: Vec<u8>,
}

/// The selected files of a source that exists.
#[derive(Debug)]
pub struct Found {
    /// The source is a directory (tools may be named by their file's path).
    pub directory: bool,
    pub files: Vec<FileRead>,
    /// The most tools the side may hold ([`Select::max_tools`]).
    pub max_tools: usize,
}

/// Reads the selected snapshot files of `source`. `None` when the path does not exist.
///
/// # Errors
/// Unreadable files or directories, git failing, a missing revision, a file over the cap.
pub fn gather(source: &Source, limits: Limits, select: &Select) -> Result<Option<Found>, Error> {
    let cap = limits.max_input_bytes;
    match source {
        Source::Stdin => {
            let bytes = read::stdin(cap)?;
            let file = FileRead { name: "<stdin>".into(), path: "<stdin>".into(), rel: "-".into(), bytes };
            Ok(Some(Found { directory: false, files: vec![file], max_tools: select.max_tools() }))
        }
        Source::Git { rev, path } => {
            let (directory, blobs) = match git::list(rev, path)? {
                git::Listing::Missing => return Ok(None),
                git::Listing::File(mut blob) => {
                    blob.rel = super::artifact_path(path);
                    (false, vec![blob])
                }
                git::Listing::Dir(blobs) => (true, blobs),
            };
            let dir = path.trim_end_matches('/');
            let display =
                |b: &git::Blob| if directory { format!("{rev}:{dir}/{}", b.rel) } else { format!("{rev}:{path}") };
            let blobs: Vec<git::Blob> = blobs.into_iter().filter(|b| select.selects(&b.rel)).collect();
            // Every entry counts, shared blobs too (each is parsed as its own file); decided from the
            // listing's sizes, before anything is read.
            let total = blobs.iter().fold(0u64, |sum, b| sum.saturating_add(b.size));
            if total > select.max_total_bytes() {
                return Err(over_total(&source.label(), total, blobs.len(), select.max_total_bytes()));
            }
            let bytes = git::read_blobs(&blobs, cap, read::INPUT_LIMIT, &display)?;
            let files = blobs
                .iter()
                .zip(bytes)
                .map(|(b, bytes)| FileRead { name: display(b), path: b.path.clone(), rel: b.rel.clone(), bytes })
                .collect();
            Ok(Some(Found { directory, files, max_tools: select.max_tools() }))
        }
        Source::Path(path) => {
            let meta = match std::fs::metadata(path) {
                Ok(meta) => meta,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(io_error(path, &e)),
            };
            // Git is asked where the work tree is while the files are read.
            std::thread::scope(|scope| {
                // A thread that cannot start: asked here, after the reading.
                let root = std::thread::Builder::new().spawn_scoped(scope, work_tree);
                let read = read_path(path, &meta, cap, select, source);
                let root = match root {
                    Ok(asking) => asking.join().ok().flatten(),
                    Err(_) => work_tree(),
                };
                read.and_then(|(directory, files)| {
                    contained(path, directory, root.as_deref(), &files)?;
                    let files = files
                        .into_iter()
                        .map(|(file, name, rel, bytes)| FileRead {
                            name,
                            path: repository_path(root.as_deref(), &file),
                            rel,
                            bytes,
                        })
                        .collect();
                    Ok(Some(Found { directory, files, max_tools: select.max_tools() }))
                })
            })
        }
    }
}

/// A file read from disk, before its repository path is known: path, shown name, path relative to
/// the directory given, bytes.
type OnDisk = (PathBuf, String, String, Vec<u8>);

/// The selected files at `path` (a file, or a directory of snapshot files) and whether it is a
/// directory.
fn read_path(
    path: &Path,
    meta: &std::fs::Metadata,
    cap: u64,
    select: &Select,
    source: &Source,
) -> Result<(bool, Vec<OnDisk>), Error> {
    if !meta.is_dir() {
        let rel = super::artifact_path(&path.display().to_string());
        if !select.selects(&rel) {
            return Ok((false, Vec::new()));
        }
        let bytes = read::file(path, cap, read::INPUT_LIMIT)?;
        return Ok((false, vec![(path.to_path_buf(), source.label(), rel, bytes)]));
    }
    let (total, mut used) = (select.max_total_bytes(), 0u64);
    // Sizes first: a side over the total is refused before any of it is read. Every path counts,
    // hard links to one file too: each is parsed as a file of its own.
    let mut selected = Vec::new();
    let mut sized = 0u64;
    for file in snapshot_files(path)? {
        let rel = relative(path, &file);
        if !select.selects(&rel) {
            continue;
        }
        sized = sized.saturating_add(std::fs::metadata(&file).map_or(0, |m| m.len()));
        selected.push((file, rel));
        if sized > total {
            return Err(over_total(&source.label(), sized, selected.len(), total));
        }
    }
    let mut files = Vec::with_capacity(selected.len());
    for (file, rel) in selected {
        // A file that grows after its size was taken still stops at the total.
        let left = total - used;
        let bytes = read::file(&file, cap.min(left), if left < cap { read::TOTAL_LIMIT } else { read::INPUT_LIMIT })?;
        used += bytes.len() as u64;
        let name = file.display().to_string();
        files.push((file, name, rel, bytes));
    }
    Ok((true, files))
}

/// The error for a side whose selected files hold more than `--max-total-bytes` together.
fn over_total(label: &str, bytes: u64, files: usize, total: u64) -> Error {
    Error::Usage(format!(
        "{}: its snapshot files hold at least {bytes} bytes together ({files} file(s)), over the {} limit of \
         {total} bytes for one side; raise it, or read fewer files with --include/--exclude",
        crate::text::line(label),
        read::TOTAL_LIMIT
    ))
}

fn relative(base: &Path, p: &Path) -> String {
    p.strip_prefix(base).unwrap_or(p).to_string_lossy().replace('\\', "/")
}

/// The root of the work tree the current directory is in, canonical (`None` outside one); asked of
/// git once per run and directory.
fn work_tree() -> Option<PathBuf> {
    static KNOWN: std::sync::Mutex<Vec<(PathBuf, Option<PathBuf>)>> = std::sync::Mutex::new(Vec::new());
    let cwd = std::env::current_dir().ok()?;
    // Held while git answers: both sides of a comparison ask at once, and git runs once.
    let mut known = KNOWN.lock().ok()?;
    if let Some((_, root)) = known.iter().find(|(d, _)| *d == cwd) {
        return root.clone();
    }
    let root = ask_work_tree();
    known.push((cwd, root.clone()));
    root
}

fn ask_work_tree() -> Option<PathBuf> {
    let out = std::process::Command::new("git").args(["rev-parse", "--show-toplevel"]).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let root = String::from_utf8(out.stdout).ok()?;
    std::fs::canonicalize(root.trim_end_matches(['\n', '\r'])).ok()
}

/// The repository path of a working-tree file (see [`super::SourceFile::path`]).
#[must_use]
pub fn working_path(path: &Path) -> String {
    repository_path(work_tree().as_deref(), path)
}

/// Refuses a file read through a symbolic link that leads out of the repository `root` (or, for a
/// directory outside any repository, out of the directory given): a pull request could commit a link
/// to a file elsewhere on the runner, whose lines a report would quote. At a revision, [`git::list`]
/// refuses such links the same way. A file given by a path outside the repository is the user's
/// choice and read as it is.
fn contained(given: &Path, directory: bool, root: Option<&Path>, files: &[OnDisk]) -> Result<(), Error> {
    let boundary = match root {
        Some(root) if lexical_absolute(given).is_some_and(|p| p.starts_with(root)) => root.to_path_buf(),
        _ if directory => std::fs::canonicalize(given).map_err(|e| io_error(given, &e))?,
        _ => return Ok(()),
    };
    for (file, name, ..) in files {
        let real = std::fs::canonicalize(file).map_err(|e| io_error(file, &e))?;
        if !real.starts_with(&boundary) {
            let outside = if root.is_some() { "the repository" } else { "the directory given" };
            return Err(Error::Usage(format!(
                "{}: is a symbolic link to a file outside {outside}; mcp-drift reads snapshot files only \
                 inside it (leave it out with --exclude, or give the file's own path)",
                crate::text::line(name)
            )));
        }
    }
    Ok(())
}

/// Refuses one of mcp-drift's own files (a configuration, a baseline, a lock) read through a symbolic
/// link that leads out of the repository it is in: a pull request could commit `mcp-drift.toml ->
/// /elsewhere`, and a parse error would quote what it found there. A path outside any repository, or
/// outside the current one, is the user's choice and read as it is.
///
/// # Errors
/// [`Error::Usage`] for such a link.
pub fn own_file_contained(path: &Path) -> Result<(), Error> {
    let Some(root) = work_tree() else { return Ok(()) };
    if !lexical_absolute(path).is_some_and(|p| p.starts_with(&root)) {
        return Ok(());
    }
    // A file that cannot be resolved (missing) is left to the read, which says so with its own hint.
    if std::fs::canonicalize(path).map_or(true, |real| real.starts_with(&root)) {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "{}: is a symbolic link to a file outside the repository; mcp-drift reads its configuration, baseline \
         and lock only inside it (give the file's own path)",
        crate::text::line(&path.display().to_string())
    )))
}

/// A file that a configuration names (its `baseline`) must be inside the repository the current
/// directory is in, or, outside any repository, inside the configuration's own directory `dir`:
/// checked on the path as written (`/etc/x`, `../x`) and on where it leads (a link out). A
/// configuration is the pull request's own file whenever no base revision is known, and a path it
/// names would otherwise be read and quoted in a parse error (attack B2 of the second #33 pass).
///
/// # Errors
/// A path outside, as a usage error that names it.
pub fn named_file_contained(dir: &Path, path: &Path, what: &str) -> Result<(), Error> {
    let root = work_tree().or_else(|| lexical_absolute(dir).and_then(|d| std::fs::canonicalize(d).ok()));
    let Some(root) = root else { return Ok(()) };
    let joined = dir.join(path);
    let inside = lexical_absolute(&joined).is_some_and(|p| p.starts_with(&root))
        && std::fs::canonicalize(&joined).map_or(true, |real| real.starts_with(&root));
    if inside {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "{}: the {what} the configuration names is outside the repository; mcp-drift reads it only inside (give \
         --baseline FILE to read another)",
        crate::text::line(&path.display().to_string())
    )))
}

/// `path` made absolute from the canonical current directory, with `.` and `..` resolved lexically
/// (a symbolic link keeps its own path).
fn lexical_absolute(path: &Path) -> Option<PathBuf> {
    let cwd = std::env::current_dir().and_then(std::fs::canonicalize).ok()?;
    let mut parts: Vec<std::path::Component<'_>> = Vec::new();
    let joined = cwd.join(path);
    for c in joined.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    Some(parts.iter().collect())
}

/// A working-tree file's path from the root of its repository when it is inside the work tree `root`
/// (lexically: a symbolic link keeps its own path), else the path as given without `./`.
fn repository_path(root: Option<&Path>, path: &Path) -> String {
    let shown = super::artifact_path(&path.display().to_string());
    let Some(root) = root else { return shown };
    let Some(absolute) = lexical_absolute(path) else { return shown };
    absolute.strip_prefix(root).map_or(shown, |rel| rel.to_string_lossy().replace('\\', "/"))
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

/// A snapshot file's relative path and its content on each side (`None`: that side lacks it).
pub type SnapshotPair = (String, Option<FileRead>, Option<FileRead>);

/// When every side that exists is a directory of whole snapshots (one `tools/list` per server or
/// tool set, rather than one file per tool), the files paired by relative path, with `None` for a
/// file on one side only.
///
/// # Errors
/// When this is not that layout: the sides, given back to be loaded as they are.
pub fn snapshot_pairs(
    old: Option<Found>,
    new: Option<Found>,
) -> Result<Vec<SnapshotPair>, (Option<Found>, Option<Found>)> {
    let directories = [&old, &new].iter().all(|s| s.as_ref().is_none_or(|f| f.directory));
    if !directories {
        return Err((old, new));
    }
    let holds_list = |f: &FileRead| {
        let t = String::from_utf8_lossy(&f.bytes);
        let t = t.trim_start_matches('\u{feff}').trim_start();
        t.starts_with('[') || ["/tools", "/result", "/jsonrpc"].iter().any(|k| span::locate(t, k).is_some())
    };
    let lists = [&old, &new].iter().any(|s| s.as_ref().is_some_and(|f| f.files.iter().any(holds_list)));
    if !lists {
        return Err((old, new));
    }
    let mut pairs: BTreeMap<String, (Option<FileRead>, Option<FileRead>)> = BTreeMap::new();
    for f in old.map(|f| f.files).unwrap_or_default() {
        let rel = f.rel.clone();
        pairs.entry(rel).or_default().0 = Some(f);
    }
    for f in new.map(|f| f.files).unwrap_or_default() {
        let rel = f.rel.clone();
        pairs.entry(rel).or_default().1 = Some(f);
    }
    Ok(pairs.into_iter().map(|(k, (a, b))| (k, a, b)).collect())
}

/// The published name of an entry (`None`: it has none).
fn name_of(entry: &Entry) -> Option<&str> {
    let tool = match entry {
        Entry::Tool(t) => t,
        Entry::Problem(p) => &p.tool,
    };
    Some(tool.name.as_str()).filter(|n| !n.is_empty())
}

/// Keys the tools of a per-tool directory (every file holds one tool) by path where names collide
/// (see the module header). A directory of files with several tools each is left alone: a repeated
/// name there is a duplicate.
#[allow(clippy::implicit_hasher, reason = "one set type for tool names throughout")]
pub fn name_by_path(files: &mut [(String, Vec<Entry>)], colliding: &HashSet<String>) {
    let mut colliding = colliding.clone();
    colliding.extend(self::colliding(files));
    if colliding.is_empty() || !files.iter().all(|(_, entries)| entries.len() == 1) {
        return;
    }
    for (rel, entries) in files.iter_mut() {
        let Some(entry) = entries.first_mut() else { continue };
        let stem = rel.rsplit_once('.').map_or(rel.as_str(), |(stem, _)| stem).to_owned();
        let Some(name) = name_of(entry).map(str::to_owned) else { continue };
        if colliding.contains(&name) && stem != name {
            let tool = match entry {
                Entry::Tool(t) => t,
                Entry::Problem(p) => &mut p.tool,
            };
            tool.published = Some(std::mem::replace(&mut tool.name, stem));
        }
    }
}

/// The names several files of a per-tool directory carry (none when a file holds several tools: a
/// repeated name there is a duplicate).
#[must_use]
pub fn colliding(files: &[(String, Vec<Entry>)]) -> HashSet<String> {
    if !files.iter().all(|(_, entries)| entries.len() == 1) {
        return HashSet::new();
    }
    let mut counts: HashMap<String, usize> = HashMap::new();
    for (_, entries) in files {
        if let Some(name) = entries.first().and_then(name_of) {
            *counts.entry(name.to_owned()).or_default() += 1;
        }
    }
    counts.into_iter().filter(|&(_, n)| n > 1).map(|(name, _)| name).collect()
}
