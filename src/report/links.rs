//! Links from a report to the lines of the repository it judged (`--format markdown`).
//!
//! Takes the repository's web address and the revisions a CI run knows (GitHub Actions sets
//! `GITHUB_SERVER_URL`, `GITHUB_REPOSITORY` and `GITHUB_SHA`, the commit actions/checkout checked
//! out; `MCP_DRIFT_HEAD_SHA` overrides it and `MCP_DRIFT_BASE_SHA` names the base commit, for example
//! `github.event.pull_request.base.sha`). Returns, for a finding location, a
//! `https://github.com/OWNER/REPO/blob/REV/PATH#LLINE` address, or nothing when the revision of that
//! file is not known: a link that lands on the wrong line is worse than none.
//!
//! Which revision: a working-tree file is at the checked-out commit (head); a file read at `REV:PATH`
//! is at REV when REV is a full commit id, else, on the old side, at the base commit when one is
//! given; otherwise it is not linked. Every part of an address is checked or percent-encoded, so no
//! address holds a character that ends a Markdown link.

use crate::checks::Location;
use crate::text::uri_path;

/// Where locations link to. [`Links::default`] links nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Links {
    /// `https://github.com/OWNER/REPO`.
    repository: Option<String>,
    /// The revision of the working tree.
    head: Option<String>,
    /// The revision of the old side, when it is read from git at a name that is not a commit id.
    base: Option<String>,
}

/// A web address made of characters that need no escaping in a Markdown link destination.
fn plain_url(s: &str) -> bool {
    (s.starts_with("https://") || s.starts_with("http://"))
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~:/%".contains(&b))
}

/// `OWNER/REPO` as GitHub spells them.
fn repository_name(s: &str) -> bool {
    let ok = |part: &str| {
        !part.is_empty()
            && part != "."
            && part != ".."
            && part.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    };
    s.split_once('/').is_some_and(|(owner, name)| ok(owner) && ok(name))
}

/// A revision that can stand in a `blob/REV/` address: a commit id or a branch or tag name.
fn revision(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(['-', '/'])
        && !s.contains("..")
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./".contains(&b))
}

/// A full commit id (SHA-1 or SHA-256).
fn commit_id(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

impl Links {
    /// Links from the environment of a CI run, read with `var` (`std::env::var` in the binary). Values
    /// that are not a plain address, repository name or revision are ignored.
    #[must_use]
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Links {
        let get = |k: &str| var(k).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        let server = get("GITHUB_SERVER_URL").unwrap_or_else(|| "https://github.com".to_owned());
        let repository = get("GITHUB_REPOSITORY")
            .filter(|r| repository_name(r) && plain_url(&server))
            .map(|r| format!("{}/{r}", server.trim_end_matches('/')));
        let head = get("MCP_DRIFT_HEAD_SHA").or_else(|| get("GITHUB_SHA")).filter(|r| revision(r));
        let base = get("MCP_DRIFT_BASE_SHA").filter(|r| revision(r));
        Links { repository, head, base }
    }

    /// The address of `loc`'s line, or `None` (see the module header for which revision). `old`: the
    /// location is on the old side of a comparison.
    #[must_use]
    pub fn url(&self, loc: &Location, old: bool) -> Option<String> {
        let repository = self.repository.as_deref()?;
        let path = loc.artifact.as_str();
        let inside = !path.is_empty()
            && path != "<stdin>"
            && !path.starts_with('/')
            && !path.contains('\\')
            && path.as_bytes().get(1) != Some(&b':')
            && path.split('/').all(|s| !s.is_empty() && s != "." && s != "..");
        if !inside {
            return None;
        }
        let rev = match git_revision(loc) {
            Some(rev) if commit_id(rev) => rev,
            Some(_) if old => self.base.as_deref()?,
            Some(_) => return None,
            None => self.head.as_deref()?,
        };
        Some(format!("{repository}/blob/{rev}/{}#L{}", uri_path(path), loc.line))
    }
}

/// The revision a location was read at: the `REV` of a name `REV:PATH` (a working-tree file's name
/// is its path, which [`Location::artifact`] also holds, minus any `./`).
fn git_revision(loc: &Location) -> Option<&str> {
    let (rev, _) = loc.path.split_once(':')?;
    let working_tree = loc.path.trim_start_matches("./") == loc.artifact
        || loc.path.replace('\\', "/").trim_start_matches("./") == loc.artifact;
    // `C:\x.json`: a drive letter, not a revision.
    (!working_tree && !rev.is_empty() && rev.len() > 1).then_some(rev)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(path: &str, artifact: &str) -> Location {
        Location { file: 0, path: path.into(), artifact: artifact.into(), line: 7, column: 3, range: 0..1 }
    }

    fn env(pairs: &[(&str, &str)]) -> Links {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        Links::from_env(|k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
    }

    #[test]
    fn revisions_per_side() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let l = env(&[("GITHUB_REPOSITORY", "o/r"), ("GITHUB_SHA", "feed"), ("MCP_DRIFT_BASE_SHA", "bead")]);
        assert_eq!(
            l.url(&loc("./a b.json", "a b.json"), false).unwrap(),
            "https://github.com/o/r/blob/feed/a%20b.json#L7"
        );
        // A working-tree file on the old side is in the checkout too.
        assert_eq!(l.url(&loc("v1.json", "v1.json"), true).unwrap(), "https://github.com/o/r/blob/feed/v1.json#L7");
        assert_eq!(
            l.url(&loc("origin/main:x.json", "x.json"), true).unwrap(),
            "https://github.com/o/r/blob/bead/x.json#L7"
        );
        assert_eq!(l.url(&loc("origin/main:x.json", "x.json"), false), None);
        assert_eq!(
            l.url(&loc(&format!("{sha}:x.json"), "x.json"), false).unwrap(),
            format!("https://github.com/o/r/blob/{sha}/x.json#L7")
        );
        assert_eq!(l.url(&loc("<stdin>", "<stdin>"), false), None);
        assert_eq!(l.url(&loc("/tmp/x.json", "/tmp/x.json"), false), None);
        assert_eq!(l.url(&loc("../x.json", "../x.json"), false), None);
        let no_base = env(&[("GITHUB_REPOSITORY", "o/r"), ("GITHUB_SHA", "feed")]);
        assert_eq!(no_base.url(&loc("origin/main:x.json", "x.json"), true), None);
    }

    #[test]
    fn only_plain_values_make_links() {
        assert_eq!(env(&[]), Links::default());
        assert_eq!(env(&[("GITHUB_SHA", "feed")]).url(&loc("x.json", "x.json"), false), None);
        let odd = env(&[("GITHUB_REPOSITORY", "o/r) [x](y"), ("GITHUB_SHA", "feed")]);
        assert_eq!(odd.url(&loc("x.json", "x.json"), false), None);
        let odd =
            env(&[("GITHUB_SERVER_URL", "javascript:alert(1)"), ("GITHUB_REPOSITORY", "o/r"), ("GITHUB_SHA", "f")]);
        assert_eq!(odd.url(&loc("x.json", "x.json"), false), None);
        let odd = env(&[("GITHUB_REPOSITORY", "o/r"), ("GITHUB_SHA", "f) <b>")]);
        assert_eq!(odd.url(&loc("x.json", "x.json"), false), None);
        let ghes =
            env(&[("GITHUB_SERVER_URL", "https://git.example/"), ("GITHUB_REPOSITORY", "o/r"), ("GITHUB_SHA", "f")]);
        assert_eq!(ghes.url(&loc("x.json", "x.json"), false).unwrap(), "https://git.example/o/r/blob/f/x.json#L7");
    }
}
