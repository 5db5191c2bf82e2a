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
}

impl Analysis {
    /// Applies a team's policy (severity overrides, ignores, accepted changes).
    pub fn apply_policy(&mut self, policy: &policy::Policy) {
        let (kept, suppressed) = policy.apply(std::mem::take(&mut self.findings));
        self.findings = kept;
        self.suppressed.extend(suppressed);
    }
}

/// Loads both sides and compares them.
///
/// # Errors
/// When either side cannot be read or is not a valid snapshot.
pub fn diff(old: &str, new: &str) -> Result<Analysis, Error> {
    if let Some(pairs) = load::snapshot_pairs(old, new)? {
        return diff_many(old, new, &pairs);
    }
    if old == "-" && new == "-" {
        return Err(Error::Usage("only one side can be read from standard input".into()));
    }
    // Both sides load at once: parsing dominates the run time of large snapshots.
    let (old, new) = rayon::join(
        || {
            let mut sources = Sources::default();
            load::load(old, &mut sources).map(|s| (sources, s))
        },
        || {
            let mut sources = Sources::default();
            load::load(new, &mut sources).map(|s| (sources, s))
        },
    );
    let (mut sources, old) = old?;
    let (new_sources, mut new) = new?;
    sources.absorb(new_sources, &mut new);
    Ok(analyze(sources, old, new))
}

/// Directories of several snapshot files: each pair analyzed on its own (in parallel), a file on one
/// side only compared with an empty snapshot, findings grouped by file in path order.
fn diff_many(old: &str, new: &str, pairs: &[load::SnapshotPair]) -> Result<Analysis, Error> {
    use rayon::prelude::*;
    let side = |path: &Option<PathBuf>, label: &str| -> Result<(Sources, Snapshot), Error> {
        let mut sources = Sources::default();
        let snapshot = match path {
            Some(p) => load::load(&p.to_string_lossy(), &mut sources)?,
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
    let mut all = Analysis {
        sources: Sources::default(),
        old: Snapshot::empty(old),
        new: Snapshot::empty(new),
        findings: Vec::new(),
        suppressed: Vec::new(),
    };
    for result in analyses {
        let (rel, a) = result?;
        let shift = all.sources.files.len();
        all.sources.files.extend(a.sources.files);
        for (side, into) in [(a.old, &mut all.old), (a.new, &mut all.new)] {
            for (name, mut tool) in side.tools {
                tool.file += shift;
                into.tools.insert(format!("{rel}: {name}"), tool);
            }
        }
        for mut f in a.findings {
            for loc in [f.old.as_mut(), f.new.as_mut()].into_iter().flatten() {
                loc.file += shift;
            }
            f.fingerprint = checks::fingerprint(f.rule.as_str(), &format!("{rel}: {}", f.tool), &f.pointer);
            f.snapshot = Some(rel.clone());
            all.findings.push(f);
        }
    }
    Ok(all)
}

/// Compares two loaded snapshots.
#[must_use]
pub fn analyze(sources: Sources, old: Snapshot, new: Snapshot) -> Analysis {
    let changes = compare::compare(&old, &new);
    let findings = checks::findings(&changes, &old, &new, &sources);
    Analysis { sources, old, new, findings, suppressed: Vec::new() }
}

/// Verifies a snapshot against a lock: the locked contracts are the old side.
///
/// # Errors
/// When the snapshot or the lock cannot be read.
pub fn verify(
    snapshot: &str,
    lock_path: &std::path::Path,
) -> Result<(Analysis, lock::LockFile, lock::LockFile), Error> {
    let locked = lock::read(lock_path)?;
    let mut sources = Sources::default();
    let old = lock::locked_snapshot(&locked, &lock_path.display().to_string(), &mut sources)?;
    let new = load::load(snapshot, &mut sources)?;
    let current = lock::lock(&new);
    Ok((analyze(sources, old, new), locked, current))
}

/// Lints snapshots on their own (`mcp-drift lint`). Each is loaded leniently, so a broken tool is a
/// finding; with several snapshots, findings name the snapshot they belong to.
///
/// # Errors
/// When a snapshot cannot be read or is not JSON with tool objects in it.
pub fn lint(specs: &[String], options: lint::Options) -> Result<Analysis, Error> {
    use rayon::prelude::*;
    let loaded: Vec<Result<(Sources, Snapshot), Error>> = specs
        .par_iter()
        .map(|spec| {
            let mut sources = Sources::default();
            load::load_with(spec, &mut sources, load::Mode::Lint).map(|s| (sources, s))
        })
        .collect();
    let label = specs.join(" ");
    let mut all = Analysis {
        sources: Sources::default(),
        old: Snapshot::empty(""),
        new: Snapshot::empty(&label),
        findings: Vec::new(),
        suppressed: Vec::new(),
    };
    let several = specs.len() > 1;
    for result in loaded {
        let (sources, mut snapshot) = result?;
        let mut findings = lint::lint(&snapshot, &sources, options);
        let shift = all.sources.files.len();
        all.sources.absorb(sources, &mut snapshot);
        for f in &mut findings {
            for loc in [f.old.as_mut(), f.new.as_mut()].into_iter().flatten() {
                loc.file += shift;
            }
            if several {
                f.fingerprint =
                    checks::fingerprint(f.rule.as_str(), &format!("{}: {}", snapshot.label, f.tool), &f.pointer);
                f.snapshot = Some(snapshot.label.clone());
            }
        }
        all.findings.append(&mut findings);
        for (name, tool) in snapshot.tools {
            let key = if several { format!("{}: {name}", snapshot.label) } else { name };
            all.new.tools.insert(key, tool);
        }
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
    let findings = lint::lint(&snapshot, &sources, options);
    Ok(Analysis { sources, old: Snapshot::empty(""), new: snapshot, findings, suppressed: Vec::new() })
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
