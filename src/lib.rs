//! mcp-drift: direction-aware breaking-change analysis for MCP `tools/list` snapshots.
//!
//! The pipeline, one module per stage: [`load`] (sources, snapshot shapes, byte spans) ->
//! [`schema`] (JSON Schema 2020-12 model, `$ref` resolution, normalization) -> [`compare`] (typed
//! changes with JSON Pointers) -> [`checks`] (changes to findings) -> [`report`] (renderers).
//! Rule metadata lives in `rules/*.md` and is embedded by [`catalog`].

pub mod catalog;
pub mod checks;
pub mod compare;
pub mod error;
pub mod lint;
pub mod load;
pub mod lock;
pub mod meaning;
pub mod policy;
pub mod report;
pub mod schema;
pub mod text;

pub use catalog::{RuleId, Severity};
pub use checks::Finding;
pub use error::Error;

use std::path::PathBuf;

use load::{Snapshot, Sources};

/// Everything one `diff` run produced.
#[derive(Debug)]
pub struct Analysis {
    pub sources: Sources,
    pub old: Snapshot,
    pub new: Snapshot,
    pub findings: Vec<Finding>,
    /// Findings accepted by the configuration or the baseline, with the reason given.
    pub suppressed: Vec<(Finding, String)>,
    /// One-line notices about the run itself that every format prints (for example "the pull request
    /// changes mcp-drift.toml"). Plain text; renderers neutralize it like any other input-derived text.
    pub notes: Vec<String>,
}

impl Analysis {
    /// An analysis with no files and no findings yet.
    fn empty(old: Snapshot, new: Snapshot) -> Analysis {
        Analysis {
            sources: Sources::default(),
            old,
            new,
            findings: Vec::new(),
            suppressed: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Moves the files, tools and findings of `part` into this one. With a `label` (the snapshot file
    /// of a multi-snapshot run), tool keys, fingerprints and findings name it.
    fn absorb(&mut self, part: Analysis, label: Option<&str>) {
        let shift = self.sources.files.len();
        self.notes.extend(part.notes);
        self.sources.files.extend(part.sources.files);
        for (side, into) in [(part.old, &mut self.old), (part.new, &mut self.new)] {
            for (name, mut tool) in side.tools {
                tool.file += shift;
                into.tools.insert(label.map_or_else(|| name.clone(), |l| format!("{l}: {name}")), tool);
            }
            for mut tool in side.repeated {
                tool.file += shift;
                into.repeated.push(tool);
            }
        }
        for mut f in part.findings {
            for loc in [f.old.as_mut(), f.new.as_mut()].into_iter().flatten() {
                loc.file += shift;
            }
            if let Some(l) = label {
                f.fingerprint = checks::fingerprint(f.rule.as_str(), &format!("{l}: {}", f.tool), &f.pointer);
                f.snapshot = Some(l.to_owned());
            }
            self.findings.push(f);
        }
    }

    /// Applies a team's policy (severity overrides, ignores, accepted changes).
    pub fn apply_policy(&mut self, policy: &policy::Policy) {
        self.notes.extend(policy.notes.iter().cloned());
        let applied = policy.apply(std::mem::take(&mut self.findings));
        self.findings = applied.kept;
        self.suppressed.extend(applied.suppressed);
        self.notes.extend(applied.notes);
    }
}

/// Loads both sides and compares them.
///
/// # Errors
/// When either side cannot be read or is not a valid snapshot.
pub fn diff(old: &str, new: &str) -> Result<Analysis, Error> {
    diff_sources(&load::Source::parse(old)?, &load::Source::parse(new)?, load::Limits::default())
}

/// [`diff`] of two [`load::Source`]s, reading at most `limits` per file.
///
/// # Errors
/// As [`diff`].
pub fn diff_sources(old: &load::Source, new: &load::Source, limits: load::Limits) -> Result<Analysis, Error> {
    if let Some(pairs) = load::snapshot_pairs(old, new, limits)? {
        return diff_many(&old.label(), &new.label(), &pairs, limits);
    }
    if *old == load::Source::Stdin && *new == load::Source::Stdin {
        return Err(Error::Usage("only one side can be read from standard input".into()));
    }
    // Both sides load at once: parsing dominates the run time of large snapshots.
    let (old, new) = rayon::join(
        || {
            let mut sources = Sources::default();
            load::load_source(old, &mut sources, load::Mode::Contract, limits).map(|s| (sources, s))
        },
        || {
            let mut sources = Sources::default();
            load::load_source(new, &mut sources, load::Mode::Contract, limits).map(|s| (sources, s))
        },
    );
    let (mut sources, old) = old?;
    let (new_sources, mut new) = new?;
    sources.absorb(new_sources, &mut new);
    Ok(analyze(sources, old, new))
}

/// Directories of several snapshot files: each pair analyzed on its own (in parallel), a file on one
/// side only compared with an empty snapshot, findings grouped by file in path order.
fn diff_many(old: &str, new: &str, pairs: &[load::SnapshotPair], limits: load::Limits) -> Result<Analysis, Error> {
    use rayon::prelude::*;
    let side = |path: &Option<PathBuf>, label: &str| -> Result<(Sources, Snapshot), Error> {
        let mut sources = Sources::default();
        let snapshot = match path {
            Some(p) => load::load_source(&load::Source::Path(p.clone()), &mut sources, load::Mode::Contract, limits)?,
            None => Snapshot::empty(label),
        };
        Ok((sources, snapshot))
    };
    let analyses: Vec<Result<(String, Analysis), Error>> = pairs
        .par_iter()
        .map(|(rel, a, b)| {
            let (mut sources, old) = side(a, "(absent)")?;
            let (more, mut new) = side(b, "(absent)")?;
            sources.absorb(more, &mut new);
            Ok((rel.clone(), analyze(sources, old, new)))
        })
        .collect();
    let mut all = Analysis::empty(Snapshot::empty(old), Snapshot::empty(new));
    for result in analyses {
        let (rel, a) = result?;
        all.absorb(a, Some(&rel));
    }
    Ok(all)
}

/// Compares two loaded snapshots.
#[must_use]
pub fn analyze(sources: Sources, old: Snapshot, new: Snapshot) -> Analysis {
    let changes = compare::compare(&old, &new);
    let findings = checks::findings(&changes, &old, &new, &sources);
    Analysis { sources, old, new, findings, suppressed: Vec::new(), notes: Vec::new() }
}

/// Verifies a snapshot against a lock: the locked contracts are the old side.
///
/// # Errors
/// When the snapshot or the lock cannot be read.
pub fn verify(
    snapshot: &str,
    lock_path: &std::path::Path,
) -> Result<(Analysis, lock::LockFile, lock::LockFile), Error> {
    verify_source(&load::Source::parse(snapshot)?, lock_path, load::Limits::default())
}

/// [`verify`] of a [`load::Source`], reading at most `limits` per file (the lock file included).
///
/// # Errors
/// As [`verify`].
pub fn verify_source(
    snapshot: &load::Source,
    lock_path: &std::path::Path,
    limits: load::Limits,
) -> Result<(Analysis, lock::LockFile, lock::LockFile), Error> {
    let locked = lock::read_with(lock_path, limits)?;
    let mut sources = Sources::default();
    let old = lock::locked_snapshot(&locked, &lock_path.display().to_string(), &mut sources)?;
    let new = load::load_source(snapshot, &mut sources, load::Mode::Contract, limits)?;
    let current = lock::lock(&new);
    Ok((analyze(sources, old, new), locked, current))
}

/// Lints snapshots on their own (`mcp-drift lint`). Each is loaded leniently, so a broken tool is a
/// finding; with several snapshots, findings name the snapshot they belong to.
///
/// # Errors
/// When a snapshot cannot be read or is not JSON with tool objects in it.
pub fn lint(specs: &[String], options: lint::Options) -> Result<Analysis, Error> {
    let sources = specs.iter().map(|s| load::Source::parse(s)).collect::<Result<Vec<_>, _>>()?;
    lint_sources(&sources, options, load::Limits::default())
}

/// [`lint`] of [`load::Source`]s, reading at most `limits` per file.
///
/// # Errors
/// As [`lint`].
pub fn lint_sources(specs: &[load::Source], options: lint::Options, limits: load::Limits) -> Result<Analysis, Error> {
    use rayon::prelude::*;
    let parts: Vec<Result<Analysis, Error>> = specs
        .par_iter()
        .map(|spec| {
            let mut sources = Sources::default();
            let snapshot = load::load_source(spec, &mut sources, load::Mode::Lint, limits)?;
            Ok(lint_loaded(sources, snapshot, options))
        })
        .collect();
    let labels: Vec<String> = specs.iter().map(load::Source::label).collect();
    let mut all = Analysis::empty(Snapshot::empty(""), Snapshot::empty(&labels.join(" ")));
    let several = specs.len() > 1;
    for (label, part) in labels.iter().zip(parts) {
        all.absorb(part?, several.then_some(label.as_str()));
    }
    Ok(all)
}

/// Lints one snapshot given as text (for tests and embedding).
///
/// # Errors
/// When the text is not JSON with tool objects in it.
pub fn lint_text(text: &str, options: lint::Options) -> Result<Analysis, Error> {
    let mut sources = Sources::default();
    let snapshot = load::load_bytes_with("snapshot.json", text.as_bytes().to_vec(), &mut sources, load::Mode::Lint)?;
    Ok(lint_loaded(sources, snapshot, options))
}

/// Lints a loaded snapshot: the snapshot is the new side, there is no old one.
fn lint_loaded(sources: Sources, snapshot: Snapshot, options: lint::Options) -> Analysis {
    let findings = lint::lint(&snapshot, &sources, options);
    Analysis { sources, old: Snapshot::empty(""), new: snapshot, findings, suppressed: Vec::new(), notes: Vec::new() }
}

/// Compares two snapshots given as text (for tests and embedding).
///
/// # Errors
/// When either text is not a valid snapshot.
pub fn diff_texts(old: &str, new: &str) -> Result<Analysis, Error> {
    let mut sources = Sources::default();
    let old = load::load_bytes("old.json", old.as_bytes().to_vec(), &mut sources)?;
    let new = load::load_bytes("new.json", new.as_bytes().to_vec(), &mut sources)?;
    Ok(analyze(sources, old, new))
}
