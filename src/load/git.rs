//! Snapshots at a git revision (`REV:PATH`, `--base REV PATH`), read by shelling out to `git` as oasdiff
//! and buf do. Never fetches; never passes a revision that starts with `-`; every revision goes after
//! `--end-of-options`. A revision missing from the clone (typical of shallow CI checkouts) is an error
//! that says how to fetch it.
//!
//! Paths are relative to the current directory (`REV:./PATH` in git's syntax), like working-tree
//! paths. Every blob's size is asked of git (`cat-file -s`, or `ls-tree -l` for a directory) and
//! checked against the cap before the blob is read; blobs are read by object id, so what was measured
//! is what is read.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::error::Error;
use crate::load::read;

fn git(args: &[&str]) -> Result<std::process::Output, Error> {
    Command::new("git")
        .args(args)
        .output()
        .map_err(|e| Error::Io { path: "git".into(), message: format!("cannot run git: {e}") })
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Whether `rev` names a commit in the repository of the current directory (quietly: no git, no
/// repository or no such revision are all `false`).
#[must_use]
pub fn is_revision(rev: &str) -> bool {
    !rev.is_empty()
        && !rev.starts_with('-')
        && git(&["rev-parse", "--verify", "--quiet", "--end-of-options", &format!("{rev}^{{commit}}")])
            .is_ok_and(|o| o.status.success())
}

fn check_revision(rev: &str) -> Result<(), Error> {
    if rev.is_empty() || rev.starts_with('-') {
        return Err(Error::Usage(format!("`{rev}` is not a revision (revisions may not start with `-`)")));
    }
    let verified = git(&["rev-parse", "--verify", "--end-of-options", &format!("{rev}^{{commit}}")])?;
    if verified.status.success() {
        // A tag pushed with the name of the base branch (`origin/main`) would silently become the base:
        // git resolves it with only a warning.
        if String::from_utf8_lossy(&verified.stderr).contains("ambiguous") {
            return Err(Error::Usage(format!(
                "revision `{rev}` is ambiguous: several refs (a branch and a tag, or a local and a remote branch) \
                 have that name; name the one you mean in full (`refs/heads/...`, `refs/remotes/...` or `refs/tags/...`)"
            )));
        }
        return Ok(());
    }
    let inside = git(&["rev-parse", "--is-inside-work-tree"])?;
    if !inside.status.success() {
        return Err(Error::Usage(format!(
            "`{rev}` names a git revision, but the current directory is not in a git repository"
        )));
    }
    let shallow = git(&["rev-parse", "--is-shallow-repository"]).is_ok_and(|o| stdout(&o) == "true");
    let branch = rev.strip_prefix("origin/").unwrap_or(rev);
    let mut message = format!("revision `{rev}` is not in this repository");
    if shallow {
        message.push_str(" (this is a shallow clone)");
    }
    let _ = write!(
        message,
        "; fetch it first, e.g. `git fetch --depth=1 origin {branch}`, or in GitHub Actions set `fetch-depth: 0` on actions/checkout. mcp-drift never fetches on its own"
    );
    Err(Error::Usage(message))
}

/// Splits `REV:PATH` at its first colon, when both parts are non-empty and REV does not start with
/// `-`. Only a split: whether it means a revision is decided by [`crate::load::Source::parse`].
#[must_use]
pub fn split(spec: &str) -> Option<(&str, &str)> {
    let (rev, path) = spec.split_once(':')?;
    (!rev.is_empty() && !path.is_empty() && !rev.starts_with('-')).then_some((rev, path))
}

/// `path` in git's syntax, relative to the current directory.
fn relative(path: &str) -> String {
    if path.starts_with('/') || path.starts_with("./") || path.starts_with("../") {
        path.to_owned()
    } else {
        format!("./{path}")
    }
}

/// The object id and type of `path` at `rev`, or `None` when the path does not exist there.
fn object(rev: &str, path: &str) -> Result<Option<(String, String)>, Error> {
    check_revision(rev)?;
    let spec = format!("{rev}:{}", relative(path));
    let out = git(&["rev-parse", "--verify", "--quiet", "--end-of-options", &spec])?;
    if !out.status.success() {
        return Ok(None);
    }
    let oid = stdout(&out);
    let kind = git(&["cat-file", "-t", "--end-of-options", &oid])?;
    if !kind.status.success() {
        return Err(Error::Io { path: format!("{rev}:{path}"), message: stderr(&kind) });
    }
    Ok(Some((oid, stdout(&kind))))
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).trim().to_owned()
}

/// The bytes of a blob known to be at most `cap` bytes long.
fn blob(oid: &str, name: &str) -> Result<Vec<u8>, Error> {
    let out = git(&["cat-file", "blob", "--end-of-options", oid])?;
    if out.status.success() { Ok(out.stdout) } else { Err(Error::Io { path: name.to_owned(), message: stderr(&out) }) }
}

/// Reads the blob of `path` at `rev`, at most `cap` bytes (`what` names the limit in messages).
/// `Ok(None)` when the revision exists but the path does not.
///
/// # Errors
/// A missing revision, a path that is a directory, a blob over `cap`, or git failing.
pub fn read_file(rev: &str, path: &str, cap: u64, what: &str) -> Result<Option<Vec<u8>>, Error> {
    let name = format!("{rev}:{path}");
    let Some((oid, kind)) = object(rev, path)? else { return Ok(None) };
    if kind != "blob" {
        return Err(Error::Usage(format!("{name}: is a {kind} at `{rev}`, not a file")));
    }
    measured_blob(&oid, &name, cap, what).map(Some)
}

/// The bytes of blob `oid`, after `git cat-file -s` says it is at most `cap` bytes.
fn measured_blob(oid: &str, name: &str, cap: u64, what: &str) -> Result<Vec<u8>, Error> {
    let size = git(&["cat-file", "-s", "--end-of-options", oid])?;
    let size: u64 = stdout(&size).parse().map_err(|_| Error::Io { path: name.to_owned(), message: stderr(&size) })?;
    if size > cap {
        return Err(read::too_large(name, Some(size), cap, what));
    }
    blob(oid, name)
}

/// The files of `path` at `rev`: one blob, or every `*.json`/`*.snap` blob below a tree, as
/// (display name, bytes), sorted by path. Each blob is at most `cap` bytes.
///
/// # Errors
/// A missing revision or path, a blob over `cap`, or git failing.
pub fn read(rev: &str, path: &str, cap: u64) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let missing = || Error::Input {
        file: format!("{rev}:{path}"),
        line: 0,
        column: 0,
        message: format!("`{path}` does not exist at revision `{rev}`"),
    };
    let Some((oid, kind)) = object(rev, path)? else { return Err(missing()) };
    match kind.as_str() {
        "blob" => {
            let name = format!("{rev}:{path}");
            let bytes = measured_blob(&oid, &name, cap, read::INPUT_LIMIT)?;
            Ok(vec![(name, bytes)])
        }
        "tree" => {
            let out = git(&["ls-tree", "-r", "-l", "-z", "--full-tree", "--end-of-options", &oid])?;
            if !out.status.success() {
                return Err(Error::Io { path: format!("{rev}:{path}"), message: stderr(&out) });
            }
            let dir = path.trim_end_matches('/');
            let mut entries = Vec::new();
            // `<mode> <type> <object> <size>\t<path>`, NUL-terminated.
            for entry in out.stdout.split(|&b| b == 0).filter(|e| !e.is_empty()) {
                let entry = String::from_utf8_lossy(entry);
                let Some((meta, name)) = entry.split_once('\t') else { continue };
                let fields: Vec<&str> = meta.split_whitespace().collect();
                let [_, "blob", object, size] = fields[..] else { continue };
                let is_snapshot = Path::new(name)
                    .extension()
                    .is_some_and(|x| x.eq_ignore_ascii_case("json") || x.eq_ignore_ascii_case("snap"));
                if !is_snapshot {
                    continue;
                }
                let display = format!("{rev}:{dir}/{name}");
                let size: u64 = size.parse().unwrap_or(u64::MAX);
                if size > cap {
                    return Err(read::too_large(&display, Some(size), cap, read::INPUT_LIMIT));
                }
                entries.push((display, object.to_owned()));
            }
            entries.sort();
            entries.into_iter().map(|(display, oid)| blob(&oid, &display).map(|bytes| (display, bytes))).collect()
        }
        other => Err(Error::Input {
            file: format!("{rev}:{path}"),
            line: 0,
            column: 0,
            message: format!("`{path}` at `{rev}` is a {other}, not a file or directory"),
        }),
    }
}
