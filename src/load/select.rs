//! Which snapshot files a run reads (`--include GLOB`, `--exclude GLOB`, and the `include`/`exclude`
//! keys of `mcp-drift.toml`): gitignore-style globs (`**` crosses directories, `*` does not) matched
//! against a file's path relative to the directory given (for a single file, its own path), the same
//! on disk and at git revisions. An exclude wins over an include; no include means every file.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

use crate::error::Error;

/// A compiled file selection. The default selects every file.
#[derive(Clone, Debug, Default)]
pub struct Select {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
    /// The globs as given, for messages ("no file matches --include ...").
    pub described: Vec<String>,
}

fn compile(globs: &[String], flag: &str) -> Result<Option<GlobSet>, Error> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut set = GlobSetBuilder::new();
    for glob in globs {
        let g: Glob = GlobBuilder::new(glob)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| Error::Usage(format!("{flag} `{glob}` is not a valid glob: {}", e.kind())))?;
        set.add(g);
    }
    set.build().map(Some).map_err(|e| Error::Usage(format!("{flag}: {e}")))
}

impl Select {
    /// A selection from include and exclude globs.
    ///
    /// # Errors
    /// [`Error::Usage`] naming the first glob that does not parse.
    pub fn new(include: &[String], exclude: &[String]) -> Result<Select, Error> {
        let mut described: Vec<String> = include.iter().map(|g| format!("--include {g}")).collect();
        described.extend(exclude.iter().map(|g| format!("--exclude {g}")));
        Ok(Select { include: compile(include, "--include")?, exclude: compile(exclude, "--exclude")?, described })
    }

    /// Whether this selects every file.
    #[must_use]
    pub fn is_all(&self) -> bool {
        self.include.is_none() && self.exclude.is_none()
    }

    /// Whether the file at `rel` (relative to the directory given, `/`-separated) is read.
    #[must_use]
    pub fn selects(&self, rel: &str) -> bool {
        let rel = rel.trim_start_matches("./");
        if self.exclude.as_ref().is_some_and(|x| x.is_match(rel)) {
            return false;
        }
        self.include.as_ref().is_none_or(|i| i.is_match(rel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(include: &[&str], exclude: &[&str]) -> Select {
        let v = |x: &[&str]| x.iter().map(|g| (*g).to_owned()).collect::<Vec<_>>();
        Select::new(&v(include), &v(exclude)).unwrap()
    }

    #[test]
    fn exclude_wins_and_stars_stay_in_their_directory() {
        let sel = s(&["**/*.snap"], &["*_ff_*.snap", "**/legacy/**"]);
        assert!(sel.selects("issue_write.snap"));
        assert!(sel.selects("a/b/get_me.snap"));
        assert!(!sel.selects("issue_write_ff_remote.snap"));
        assert!(!sel.selects("x/legacy/old.snap"));
        assert!(!sel.selects("tools.json"));
        assert!(s(&[], &[]).selects("anything.json"));
        assert!(!s(&["*.json"], &[]).selects("dir/tools.json"), "`*` does not cross `/`");
    }

    #[test]
    fn a_bad_glob_names_itself() {
        let e = Select::new(&["a[".to_owned()], &[]).unwrap_err().to_string();
        assert!(e.contains("--include `a[`"), "{e}");
    }
}
