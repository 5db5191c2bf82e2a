//! Snapshots at a git revision (`REV:PATH`, `--base REV PATH`), read by shelling out to `git` as oasdiff
//! and buf do. Never fetches; never passes a revision that starts with `-`; every revision goes after
//! `--end-of-options`, and paths are literal (`--literal-pathspecs`). A revision missing from the
//! clone (typical of shallow CI checkouts) is an error that says how to fetch that revision.
//!
//! Paths are relative to the current directory, like working-tree paths; in a bare repository (no
//! working tree) they are relative to the repository root. A tree is read with one `git ls-tree -r -l`
//! (which gives every blob's size, checked against the cap before anything is read) and one
//! `git cat-file --batch` by object id, so what was measured is what is read, whatever the number of
//! files.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::process::{Command, Stdio};

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

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).trim().to_owned()
}

/// Whether the current directory is in a bare repository (one without a working tree).
#[must_use]
pub fn is_bare() -> bool {
    git(&["rev-parse", "--is-bare-repository"]).is_ok_and(|o| o.status.success() && stdout(&o) == "true")
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

/// Checks that `rev` is a commit here and returns the current directory's path inside the
/// repository (`git rev-parse --show-prefix`: empty at the root and in a bare repository), both
/// from one `git rev-parse`.
fn check_revision(rev: &str) -> Result<String, Error> {
    static CHECKED: std::sync::Mutex<Vec<(std::path::PathBuf, String, String)>> = std::sync::Mutex::new(Vec::new());
    if rev.is_empty() || rev.starts_with('-') {
        return Err(Error::Usage(format!("`{rev}` is not a revision (revisions may not start with `-`)")));
    }
    // One run reads a revision's snapshot, configuration and baseline: asked once, from one directory.
    let cwd = std::env::current_dir().unwrap_or_default();
    let known = |c: &Vec<(std::path::PathBuf, String, String)>| {
        c.iter().find(|(d, r, _)| *d == cwd && r == rev).map(|(_, _, prefix)| prefix.clone())
    };
    if let Some(prefix) = CHECKED.lock().ok().as_deref().and_then(known) {
        return Ok(prefix);
    }
    let prefix = verify_revision(rev)?;
    if let Ok(mut c) = CHECKED.lock() {
        c.push((cwd, rev.to_owned(), prefix.clone()));
    }
    Ok(prefix)
}

fn verify_revision(rev: &str) -> Result<String, Error> {
    let verified = git(&["rev-parse", "--show-prefix", "--verify", "--end-of-options", &format!("{rev}^{{commit}}")])?;
    if verified.status.success() {
        // A tag pushed with the name of the base branch (`origin/main`) would silently become the base:
        // git resolves it with only a warning.
        if String::from_utf8_lossy(&verified.stderr).contains("ambiguous") {
            return Err(Error::Usage(format!(
                "revision `{rev}` is ambiguous: several refs (a branch and a tag, or a local and a remote branch) \
                 have that name; name the one you mean in full (`refs/heads/...`, `refs/remotes/...` or `refs/tags/...`)"
            )));
        }
        let text = String::from_utf8_lossy(&verified.stdout);
        let prefix = text.lines().next().unwrap_or("").trim_end_matches('\r');
        // The last line is the commit id; with an empty prefix, it is the only one.
        let prefix = if text.lines().count() >= 2 { prefix } else { "" };
        return Ok(prefix.to_owned());
    }
    let in_repo = git(&["rev-parse", "--git-dir"])?;
    if !in_repo.status.success() {
        return Err(Error::Usage(format!(
            "`{rev}` names a git revision, but the current directory is not in a git repository"
        )));
    }
    // It may name an object that is not a commit (`v1^{tree}`, a blob id).
    let any = git(&["rev-parse", "--verify", "--quiet", "--end-of-options", rev])?;
    // (A full commit id verifies whether or not the object exists: only an object git has counts.)
    let kind = if any.status.success() {
        git(&["cat-file", "-t", "--end-of-options", &stdout(&any)])
            .ok()
            .filter(|o| o.status.success())
            .map(|o| stdout(&o))
    } else {
        None
    };
    if let Some(kind) = kind.filter(|k| !k.is_empty()) {
        return Err(Error::Usage(format!(
            "`{rev}` names a {kind}, not a commit; snapshots are read at a commit (a branch, a tag or a commit id)"
        )));
    }
    let shallow = git(&["rev-parse", "--is-shallow-repository"]).is_ok_and(|o| stdout(&o) == "true");
    Err(Error::Usage(missing_revision(rev, shallow)))
}

/// What to do about a revision the clone does not have, for the kind of revision it is.
fn missing_revision(rev: &str, shallow: bool) -> String {
    let mut message = format!("revision `{rev}` is not in this repository");
    if shallow {
        message.push_str(" (this is a shallow clone)");
    }
    let reflog = rev.contains("@{");
    let relative = rev.find(['~', '^']).filter(|&i| i > 0 && !reflog).map(|i| &rev[..i]);
    let hex = rev.len() >= 7 && rev.bytes().all(|b| b.is_ascii_hexdigit());
    let versionish = |s: &str| {
        let s = s.strip_prefix('v').unwrap_or(s);
        s.starts_with(|c: char| c.is_ascii_digit()) && s.contains('.')
    };
    let advice = if reflog {
        "; `@{...}` names a reflog entry, which exists only in the clone that made it (a CI checkout has \
         none): name a branch, a tag or a commit id"
            .to_owned()
    } else if let Some(base) = relative {
        if shallow {
            format!(
                "; `{rev}` counts commits back from `{base}`, and this clone's history is cut short: fetch more of it \
                 (`git fetch --deepen=N` or `git fetch --unshallow`, or `fetch-depth: 0` on actions/checkout)"
            )
        } else {
            format!("; `{rev}` counts commits back from `{base}`, and its history is shorter than that")
        }
    } else if hex {
        format!(
            "; fetch the commit, e.g. `git fetch --depth=1 origin {rev}` (a full commit id), or in GitHub Actions set \
             `fetch-depth: 0` on actions/checkout"
        )
    } else if let Some(tag) = rev.strip_prefix("refs/tags/").or_else(|| versionish(rev).then_some(rev)) {
        format!(
            "; if it is a tag, fetch it: `git fetch --depth=1 origin tag {tag}`, or set `fetch-tags: true` on actions/checkout"
        )
    } else {
        let branch = rev
            .strip_prefix("refs/remotes/origin/")
            .or_else(|| rev.strip_prefix("origin/"))
            .or_else(|| rev.strip_prefix("refs/heads/"))
            .unwrap_or(rev);
        format!(
            "; fetch it first, e.g. `git fetch --depth=1 origin {branch}`, or in GitHub Actions set `fetch-depth: 0` \
             on actions/checkout"
        )
    };
    message.push_str(&advice);
    message.push_str(". mcp-drift never fetches on its own");
    message
}

/// Splits `REV:PATH` at its first colon, when both parts are non-empty and REV does not start with
/// `-`. Only a split: whether it means a revision is decided by [`crate::load::Source::parse`].
#[must_use]
pub fn split(spec: &str) -> Option<(&str, &str)> {
    let (rev, path) = spec.split_once(':')?;
    (!rev.is_empty() && !path.is_empty() && !rev.starts_with('-')).then_some((rev, path))
}

/// `path` (relative to the current directory, whose repository path is `prefix`) as a path from the
/// repository root: `.` and `..` resolved, `/`-separated, no trailing `/`. `None` when it leaves the
/// repository.
#[must_use]
pub fn repository_path(prefix: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = prefix.split('/').filter(|p| !p.is_empty()).collect();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// One snapshot file at a revision.
#[derive(Debug, Clone)]
pub struct Blob {
    /// The path from the repository root.
    pub path: String,
    /// The path relative to the path that was asked for (the file name when a file was asked for).
    pub rel: String,
    pub oid: String,
    pub size: u64,
}

/// What `path` is at `rev`.
#[derive(Debug)]
pub enum Listing {
    /// The path does not exist at the revision (the revision does).
    Missing,
    /// A file.
    File(Blob),
    /// A directory: its `*.json`/`*.snap` files, sorted by path.
    Dir(Vec<Blob>),
}

/// Lists `path` at `rev` with one `git ls-tree`. Absolute paths are refused: a revision has no
/// absolute paths.
///
/// # Errors
/// A missing revision, a path outside the repository, or git failing.
pub fn list(rev: &str, path: &str) -> Result<Listing, Error> {
    let prefix = check_revision(rev)?;
    if path.starts_with('/') {
        return Err(Error::Usage(format!(
            "{rev}:{path}: a path at a git revision is relative to the current directory, not absolute"
        )));
    }
    let Some(root_path) = repository_path(&prefix, path) else {
        return Err(Error::Usage(format!("{rev}:{path}: the path leaves the repository")));
    };
    let mut args = vec!["--literal-pathspecs", "ls-tree", "-r", "-l", "-z", "--full-tree", "--end-of-options", rev];
    if !root_path.is_empty() {
        args.extend(["--", root_path.as_str()]);
    }
    let out = git(&args)?;
    if !out.status.success() {
        return Err(Error::Io { path: format!("{rev}:{path}"), message: stderr(&out) });
    }
    let mut blobs = Vec::new();
    let mut links = Vec::new();
    let dir_prefix = if root_path.is_empty() { String::new() } else { format!("{root_path}/") };
    // `<mode> <type> <object> <size>\t<path>`, NUL-terminated.
    for entry in out.stdout.split(|&b| b == 0).filter(|e| !e.is_empty()) {
        let entry = String::from_utf8_lossy(entry);
        let Some((meta, name)) = entry.split_once('\t') else { continue };
        let fields: Vec<&str> = meta.split_whitespace().collect();
        let [mode, kind, object, size] = fields[..] else { continue };
        if name == root_path {
            if kind != "blob" {
                return Err(Error::Usage(format!("{rev}:{path}: is a {kind} at `{rev}`, not a file")));
            }
            if mode == SYMLINK {
                return Err(Error::Usage(format!(
                    "{rev}:{path}: is a symbolic link at `{rev}`; name the file it points to"
                )));
            }
            let rel = name.rsplit('/').next().unwrap_or(name).to_owned();
            let size = size.parse().unwrap_or(u64::MAX);
            return Ok(Listing::File(Blob { path: name.to_owned(), rel, oid: object.to_owned(), size }));
        }
        let Some(rel) = name.strip_prefix(&dir_prefix) else { continue };
        let is_snapshot = std::path::Path::new(rel)
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("json") || x.eq_ignore_ascii_case("snap"));
        if kind != "blob" || !is_snapshot {
            continue;
        }
        let size = size.parse().unwrap_or(u64::MAX);
        let blob = Blob { path: name.to_owned(), rel: rel.to_owned(), oid: object.to_owned(), size };
        if mode == SYMLINK { links.push(blob) } else { blobs.push(blob) }
    }
    if !links.is_empty() {
        follow_links(rev, path, links, &mut blobs)?;
    }
    // Git keeps no empty directories: a path that lists nothing does not exist (the root always does).
    if out.stdout.is_empty() && !root_path.is_empty() {
        return Ok(Listing::Missing);
    }
    blobs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Listing::Dir(blobs))
}

/// The mode `git ls-tree` gives a symbolic link.
const SYMLINK: &str = "120000";

/// Symbolic links in a directory read at a revision, followed as on disk when they point at a
/// snapshot file of the same listing (each link reads as that file, under its own path).
fn follow_links(rev: &str, path: &str, links: Vec<Blob>, blobs: &mut Vec<Blob>) -> Result<(), Error> {
    /// A link's text is a path; a longer one is not a link git wrote.
    const MAX_TARGET: u64 = 4096;
    let targets = read_blobs(&links, MAX_TARGET, "symbolic link", &|b| format!("{rev}:{}", b.path))?;
    for (link, target) in links.into_iter().zip(targets) {
        let target = String::from_utf8_lossy(&target).into_owned();
        let parent = link.path.rsplit_once('/').map_or("", |(p, _)| p);
        let resolved = if target.starts_with('/') { None } else { repository_path(parent, &target) };
        let Some(found) = resolved.and_then(|r| blobs.iter().find(|b| b.path == r).cloned()) else {
            return Err(Error::Usage(format!(
                "{rev}:{}: is a symbolic link to `{}`, which is not a snapshot file of `{path}` at `{rev}`; \
                 at a revision mcp-drift follows links only to files of the directory read (leave it out with --exclude)",
                link.path,
                crate::text::escape(&target)
            )));
        };
        blobs.push(Blob { path: link.path, rel: link.rel, oid: found.oid, size: found.size });
    }
    Ok(())
}

/// Reads `blobs` with one `git cat-file --batch`, after checking every size (from `ls-tree`) against
/// `cap`. `name` gives each blob's display name for messages.
///
/// # Errors
/// A blob over `cap`, a blob whose object is not what was listed, or git failing.
pub fn read_blobs(blobs: &[Blob], cap: u64, what: &str, name: &dyn Fn(&Blob) -> String) -> Result<Vec<Vec<u8>>, Error> {
    if let Some(big) = blobs.iter().find(|b| b.size > cap) {
        return Err(read::too_large(&name(big), Some(big.size), cap, what));
    }
    // A blob that several entries share (a tree of many paths to one object) is read once.
    let (unique, of) = shared(blobs);
    if unique.len() == blobs.len() {
        return read_unique(blobs, name);
    }
    let unique: Vec<Blob> = unique.into_iter().map(|i| blobs[i].clone()).collect();
    let mut read: Vec<Option<Vec<u8>>> = read_unique(&unique, name)?.into_iter().map(Some).collect();
    let mut left: Vec<usize> = vec![0; unique.len()];
    for &i in &of {
        left[i] += 1;
    }
    let mut out = Vec::with_capacity(blobs.len());
    for &i in &of {
        left[i] -= 1;
        // The last entry of a blob takes its bytes; the others get copies.
        let bytes = if left[i] == 0 { read[i].take() } else { read[i].clone() };
        out.push(bytes.unwrap_or_default());
    }
    Ok(out)
}

/// The blobs to ask git for, each object once (indices into `blobs`, first occurrence), and for each
/// entry of `blobs` the index of its object in that list.
fn shared(blobs: &[Blob]) -> (Vec<usize>, Vec<usize>) {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut unique = Vec::new();
    let of = blobs
        .iter()
        .enumerate()
        .map(|(i, b)| {
            *seen.entry(&b.oid).or_insert_with(|| {
                unique.push(i);
                unique.len() - 1
            })
        })
        .collect();
    (unique, of)
}

/// [`read_blobs`] of blobs with distinct objects, sizes already checked.
fn read_unique(blobs: &[Blob], name: &dyn Fn(&Blob) -> String) -> Result<Vec<Vec<u8>>, Error> {
    if blobs.is_empty() {
        return Ok(Vec::new());
    }
    let io = |message: String| Error::Io { path: "git cat-file --batch".into(), message };
    let mut child = Command::new("git")
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| io(format!("cannot run git: {e}")))?;
    let mut input = String::with_capacity(blobs.len() * 41);
    for b in blobs {
        if !b.oid.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(io(format!("unexpected object id `{}`", b.oid)));
        }
        input.push_str(&b.oid);
        input.push('\n');
    }
    let mut stdin = child.stdin.take().ok_or_else(|| io("no stdin".into()))?;
    // Written from another thread: git answers while it reads, and a full pipe would block both.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let mut out = BufReader::new(child.stdout.take().ok_or_else(|| io("no stdout".into()))?);
    let mut result = Vec::with_capacity(blobs.len());
    let mut failure = None;
    for b in blobs {
        let mut header = String::new();
        if out.read_line(&mut header).map_err(|e| io(e.to_string()))? == 0 {
            failure = Some(format!("git ended before `{}`", name(b)));
            break;
        }
        let fields: Vec<&str> = header.split_whitespace().collect();
        // `<oid> blob <size>`; the size is the one measured, or the object is not the one listed.
        if fields[..] != [b.oid.as_str(), "blob", b.size.to_string().as_str()] {
            failure = Some(format!("{}: unexpected answer from git cat-file: `{}`", name(b), header.trim()));
            break;
        }
        let size = usize::try_from(b.size).map_err(|e| io(e.to_string()))?;
        let mut bytes = Vec::with_capacity(size);
        (&mut out).take(b.size).read_to_end(&mut bytes).map_err(|e| io(e.to_string()))?;
        let mut newline = [0u8; 1];
        out.read_exact(&mut newline).map_err(|e| io(e.to_string()))?;
        if bytes.len() != size {
            failure = Some(format!("{}: short read from git", name(b)));
            break;
        }
        result.push(bytes);
    }
    drop(out);
    let _ = writer.join();
    let status = child.wait().map_err(|e| io(e.to_string()))?;
    if let Some(message) = failure {
        return Err(io(message));
    }
    if !status.success() {
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        return Err(io(err.trim().to_owned()));
    }
    Ok(result)
}

/// Reads the blob of `path` at `rev`, at most `cap` bytes (`what` names the limit in messages).
/// `Ok(None)` when the revision exists but the path does not.
///
/// # Errors
/// A missing revision, a path that is a directory, a blob over `cap`, or git failing.
pub fn read_file(rev: &str, path: &str, cap: u64, what: &str) -> Result<Option<Vec<u8>>, Error> {
    let name = format!("{rev}:{path}");
    match list(rev, path)? {
        Listing::Missing => Ok(None),
        Listing::Dir(_) => Err(Error::Usage(format!("{name}: is a tree at `{rev}`, not a file"))),
        Listing::File(blob) => {
            let mut bytes = read_blobs(std::slice::from_ref(&blob), cap, what, &|_| name.clone())?;
            Ok(bytes.pop())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_blob_is_asked_for_once() {
        let blob = |oid: &str| Blob { path: String::new(), rel: String::new(), oid: oid.to_owned(), size: 1 };
        let blobs: Vec<Blob> = ["a", "b", "a", "a", "c", "b"].iter().map(|o| blob(o)).collect();
        assert_eq!(shared(&blobs), (vec![0, 1, 4], vec![0, 1, 0, 0, 2, 1]));
        let forty: Vec<Blob> = (0..40).map(|_| blob("a")).collect();
        assert_eq!(shared(&forty).0, [0]);
    }

    #[test]
    fn repository_paths() {
        assert_eq!(repository_path("a/b/", "c.json").as_deref(), Some("a/b/c.json"));
        assert_eq!(repository_path("a/b/", "../c/./d/").as_deref(), Some("a/c/d"));
        assert_eq!(repository_path("", "./x").as_deref(), Some("x"));
        assert_eq!(repository_path("", "../x"), None);
    }

    #[test]
    fn advice_fits_the_revision() {
        let m = missing_revision("HEAD~999999", false);
        assert!(m.contains("history is shorter") && !m.contains("git fetch --depth=1 origin HEAD"), "{m}");
        let m = missing_revision("HEAD~3", true);
        assert!(m.contains("--unshallow") || m.contains("--deepen"), "{m}");
        assert!(missing_revision("origin/feature", false).contains("git fetch --depth=1 origin feature`"));
        assert!(missing_revision("v1.2.3", false).contains("git fetch --depth=1 origin tag v1.2.3`"));
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let m = missing_revision(sha, false);
        assert!(m.contains(&format!("git fetch --depth=1 origin {sha}`")) && m.contains("fetch-depth: 0"), "{m}");
    }
}
