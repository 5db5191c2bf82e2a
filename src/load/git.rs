//! Snapshots at a git revision (`REV:PATH`, `--base REV PATH`), read by shelling out to `git` as oasdiff
//! and buf do. Never fetches; never passes a revision that starts with `-`; every revision goes after
//! `--end-of-options`. A revision missing from the clone (typical of shallow CI checkouts) is an error
//! that says how to fetch it.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::error::Error;

fn git(args: &[&str]) -> Result<std::process::Output, Error> {
    Command::new("git")
        .args(args)
        .output()
        .map_err(|e| Error::Io { path: "git".into(), message: format!("cannot run git: {e}") })
}

fn check_revision(rev: &str) -> Result<(), Error> {
    if rev.is_empty() || rev.starts_with('-') {
        return Err(Error::Usage(format!("`{rev}` is not a revision (revisions may not start with `-`)")));
    }
    let out = git(&["rev-parse", "--verify", "--quiet", "--end-of-options", &format!("{rev}^{{commit}}")])?;
    if out.status.success() {
        return Ok(());
    }
    let inside = git(&["rev-parse", "--is-inside-work-tree"])?;
    if !inside.status.success() {
        return Err(Error::Usage(format!(
            "`{rev}` names a git revision, but the current directory is not in a git repository"
        )));
    }
    let shallow = git(&["rev-parse", "--is-shallow-repository"])
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "true");
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

/// `REV:PATH` when PATH does not exist as a file: the revision part, if it looks like one.
#[must_use]
pub fn split_rev_path(spec: &str) -> Option<(&str, &str)> {
    if Path::new(spec).exists() {
        return None;
    }
    let (rev, path) = spec.split_once(':')?;
    (!rev.is_empty() && !path.is_empty() && !rev.starts_with('-')).then_some((rev, path))
}

/// The files of `path` at `rev`: one blob, or every `*.json`/`*.snap` blob below a tree, as
/// (display name, bytes), sorted by path.
///
/// # Errors
/// A missing revision or path, or git failing.
pub fn read(rev: &str, path: &str) -> Result<Vec<(String, Vec<u8>)>, Error> {
    check_revision(rev)?;
    let rel = if path.starts_with('/') || path.starts_with("./") || path.starts_with("../") {
        path.to_owned()
    } else {
        format!("./{path}")
    };
    let object = format!("{rev}:{rel}");
    let kind = git(&["cat-file", "-t", "--end-of-options", &object])?;
    if !kind.status.success() {
        return Err(Error::Input {
            file: format!("{rev}:{path}"),
            line: 0,
            column: 0,
            message: format!("`{path}` does not exist at revision `{rev}`"),
        });
    }
    let blob = |name: &str| -> Result<Vec<u8>, Error> {
        let out = git(&["cat-file", "blob", "--end-of-options", &format!("{rev}:{name}")])?;
        if out.status.success() {
            Ok(out.stdout)
        } else {
            Err(Error::Io {
                path: format!("{rev}:{name}"),
                message: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            })
        }
    };
    match String::from_utf8_lossy(&kind.stdout).trim() {
        "blob" => Ok(vec![(format!("{rev}:{path}"), blob(&rel)?)]),
        "tree" => {
            let out = git(&["ls-tree", "-r", "-z", "--name-only", "--end-of-options", rev, "--", &rel])?;
            if !out.status.success() {
                return Err(Error::Io {
                    path: format!("{rev}:{path}"),
                    message: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
                });
            }
            let mut names: Vec<String> = out
                .stdout
                .split(|&b| b == 0)
                .filter(|n| !n.is_empty())
                .map(|n| String::from_utf8_lossy(n).into_owned())
                .filter(|n| {
                    Path::new(n)
                        .extension()
                        .is_some_and(|x| x.eq_ignore_ascii_case("json") || x.eq_ignore_ascii_case("snap"))
                })
                .collect();
            names.sort();
            names
                .into_iter()
                .map(|n| {
                    let local = if n.starts_with("../") || n.starts_with('/') { n.clone() } else { format!("./{n}") };
                    blob(&local).map(|bytes| (format!("{rev}:{n}"), bytes))
                })
                .collect()
        }
        other => Err(Error::Input {
            file: format!("{rev}:{path}"),
            line: 0,
            column: 0,
            message: format!("`{path}` at `{rev}` is a {other}, not a file or directory"),
        }),
    }
}
