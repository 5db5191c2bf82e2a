//! Which snapshot files a run reads (`--include GLOB`, `--exclude GLOB`, and the `include`/`exclude`
//! keys of `mcp-drift.toml`): gitignore-style globs (`**` crosses directories, `*` does not) matched
//! against a file's path relative to the directory given (for a single file, its own path), the same
//! on disk and at git revisions. An exclude wins over an include; no include means every file.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

use crate::error::Error;
use crate::text::escape;

/// A compiled file selection. The default selects every file.
#[derive(Clone, Debug, Default)]
pub struct Select {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
    /// The globs as given, for messages ("no file matches --include ...").
    pub described: Vec<String>,
    /// The most bytes the selected files of one side may hold together (`--max-total-bytes`);
    /// `None`: [`super::read::DEFAULT_MAX_TOTAL_BYTES`]. Kept with the selection, which every
    /// command builds once from its flags.
    max_total_bytes: Option<u64>,
    /// The most tools one side may hold (`--max-tools`); `None`: [`DEFAULT_MAX_TOOLS`].
    max_tools: Option<usize>,
}

/// The default cap on the tools of one side (`--max-tools`), as the guard's: a million minimal tools
/// fit in 36 MB, under every byte cap, and drove `lint` to 5.65 GB and 830 MB of output (attack B3
/// of the second #33 pass); a tenth of that is a tenth of the cost, and ten times the largest
/// public server's tool count.
pub const DEFAULT_MAX_TOOLS: usize = 100_000;

/// Globs with where each came from (`--include`, `mcp-drift.toml include`), for messages.
type Labeled<'a> = [(&'a str, &'a str)];

fn compile(globs: &Labeled<'_>) -> Result<Option<GlobSet>, Error> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut set = GlobSetBuilder::new();
    for (label, glob) in globs {
        let pattern = gitignore(glob);
        // As in gitignore, a pattern also matches a directory, and so everything below it.
        let below = if pattern.ends_with("/**") { None } else { Some(format!("{pattern}/**")) };
        for p in std::iter::once(pattern).chain(below) {
            let g: Glob =
                GlobBuilder::new(&p).literal_separator(true).backslash_escape(true).build().map_err(|e| {
                    Error::Usage(format!("{label} `{}` is not a valid glob: {}", escape(glob), e.kind()))
                })?;
            set.add(g);
        }
    }
    set.build().map(Some).map_err(|e| Error::Usage(format!("file selection: {e}")))
}

/// A glob with gitignore's placement rules, as a `globset` pattern: a leading `/` anchors it to the
/// directory given; without a `/` (other than a trailing one) it matches at any depth; a trailing `/`
/// selects everything below a directory.
fn gitignore(glob: &str) -> String {
    let (body, dir) = match glob.strip_suffix('/') {
        Some(b) if !b.is_empty() => (b, true),
        _ => (glob, false),
    };
    let anchored = body.strip_prefix('/');
    let body = match anchored {
        Some(b) => b.to_owned(),
        None if !body.contains('/') => format!("**/{body}"),
        None => body.to_owned(),
    };
    if dir { format!("{body}/**") } else { body }
}

impl Select {
    /// A selection from include and exclude globs (command-line flags).
    ///
    /// # Errors
    /// [`Error::Usage`] naming the first glob that does not parse.
    pub fn new(include: &[String], exclude: &[String]) -> Result<Select, Error> {
        Select::with_config(include, exclude, &[], &[])
    }

    /// The selection of a run: command-line `--include` globs replace the configuration's `include`
    /// (the way a command-line option overrides a configured one), and excludes from both apply (an
    /// exclude in the configuration is the team's decision; a flag cannot bring such files back).
    ///
    /// # Errors
    /// [`Error::Usage`] naming the first glob that does not parse, and where it came from.
    pub fn with_config(
        include: &[String],
        exclude: &[String],
        config_include: &[String],
        config_exclude: &[String],
    ) -> Result<Select, Error> {
        fn label<'g>(flag: &'static str, globs: &'g [String]) -> impl Iterator<Item = (&'static str, &'g str)> {
            globs.iter().map(move |g| (flag, g.as_str()))
        }
        let includes: Vec<(&str, &str)> = if include.is_empty() {
            label("mcp-drift.toml include", config_include).collect()
        } else {
            label("--include", include).collect()
        };
        let mut excludes: Vec<(&str, &str)> = label("mcp-drift.toml exclude", config_exclude).collect();
        excludes.extend(label("--exclude", exclude));
        let described = includes
            .iter()
            .map(|(l, g)| format!("{} {g}", l.replace(" include", " include =")))
            .chain(excludes.iter().map(|(l, g)| format!("{} {g}", l.replace(" exclude", " exclude ="))))
            .collect();
        Ok(Select {
            include: compile(&includes)?,
            exclude: compile(&excludes)?,
            described,
            max_total_bytes: None,
            max_tools: None,
        })
    }

    /// This selection, reading at most `bytes` for one side in all (`--max-total-bytes`).
    #[must_use]
    pub fn with_max_total_bytes(mut self, bytes: u64) -> Select {
        self.max_total_bytes = Some(bytes);
        self
    }

    /// The most bytes the selected files of one side may hold together.
    #[must_use]
    pub fn max_total_bytes(&self) -> u64 {
        self.max_total_bytes.unwrap_or(super::read::DEFAULT_MAX_TOTAL_BYTES)
    }

    /// This selection, reading at most `tools` tools for one side (`--max-tools`).
    #[must_use]
    pub fn with_max_tools(mut self, tools: usize) -> Select {
        self.max_tools = Some(tools);
        self
    }

    /// The most tools one side may hold.
    #[must_use]
    pub fn max_tools(&self) -> usize {
        self.max_tools.unwrap_or(DEFAULT_MAX_TOOLS)
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
        assert!(!s(&["/*.json"], &[]).selects("dir/tools.json"), "`*` does not cross `/`");
        assert!(s(&["*.json"], &[]).selects("dir/tools.json"), "no slash: any depth, as in gitignore");
    }

    #[test]
    fn placement_follows_gitignore() {
        let sel = |g: &str| s(&[g], &[]);
        assert!(sel("a.snap").selects("sub/a.snap") && sel("a.snap").selects("a.snap"), "no slash: any depth");
        assert!(sel("/b.snap").selects("b.snap") && !sel("/b.snap").selects("sub/b.snap"), "leading slash: anchored");
        assert!(sel("/sub/a.snap").selects("sub/a.snap"));
        assert!(
            sel("sub/*.snap").selects("sub/a.snap") && !sel("sub/*.snap").selects("x/sub/a.snap"),
            "inner slash: anchored"
        );
        assert!(sel("legacy/").selects("legacy/x/y.json") && sel("legacy/").selects("a/legacy/y.json"));
        assert!(
            sel("dir").selects("dir/b.snap")
                && sel("dir").selects("x/dir/c.snap")
                && !sel("dir").selects("dirt/a.snap")
        );
        assert!(
            s(&[], &["x"]).selects("o.snap") && !s(&[], &["x"]).selects("x/y/a.snap"),
            "a directory name excludes below it"
        );
    }

    #[test]
    fn a_bad_glob_names_itself() {
        let e = Select::new(&["a[".to_owned()], &[]).unwrap_err().to_string();
        assert!(e.contains("--include `a[`"), "{e}");
        let e = Select::with_config(&[], &[], &[], &["b{".to_owned()]).unwrap_err().to_string();
        assert!(e.contains("mcp-drift.toml exclude `b{`"), "{e}");
    }

    #[test]
    fn flags_replace_configured_includes_and_excludes_add_up() {
        let v = |x: &[&str]| x.iter().map(|g| (*g).to_owned()).collect::<Vec<_>>();
        let sel = Select::with_config(&v(&["b/*"]), &v(&["b/x.json"]), &v(&["a/*"]), &v(&["b/y.json"])).unwrap();
        assert!(!sel.selects("a/t.json"), "the flag's include replaces the configured one");
        assert!(sel.selects("b/t.json"));
        assert!(!sel.selects("b/x.json") && !sel.selects("b/y.json"), "both excludes apply");
        let configured = Select::with_config(&[], &[], &v(&["a/*"]), &[]).unwrap();
        assert!(configured.selects("a/t.json") && !configured.selects("b/t.json"));
    }
}
