//! mcp-drift: direction-aware breaking-change analysis for MCP `tools/list` snapshots.
//!
//! The pipeline, one module per stage: [`load`] (sources, snapshot shapes, byte spans) ->
//! [`schema`] (JSON Schema 2020-12 model, `$ref` resolution, normalization) -> [`compare`] (typed
//! changes with JSON Pointers) -> [`checks`] (changes to findings) -> [`report`] (renderers).
//! [`names`] (the words of identifiers) sits below both `compare` and `checks`. [`replay`] checks
//! recorded calls and results against a snapshot (`mcp-drift replay`), as findings of its own rules.
//! Rule metadata lives in `rules/*.md` and is embedded by [`catalog`].

pub mod capture;
pub mod catalog;
pub mod checks;
pub mod compare;
pub mod decide;
pub mod error;
pub mod guard;
pub mod lint;
pub mod load;
pub mod lock;
pub mod mcp;
pub mod meaning;
pub mod names;
pub mod policy;
pub mod replay;
pub mod report;
pub mod schema;
pub mod sorted;
pub mod text;

pub use catalog::{RuleId, Severity};
pub use checks::Finding;
pub use error::Error;

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
    /// Per paired tool (its key in `new`), the containment verdict of each direction.
    pub compatibility: std::collections::BTreeMap<String, compare::decision::Compatibility>,
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
            compatibility: std::collections::BTreeMap::new(),
        }
    }

    /// Moves the files, tools and findings of `part` into this one. With a `label` (the snapshot file
    /// of a multi-snapshot run), tool keys, fingerprints and findings name it.
    fn absorb(&mut self, part: Analysis, label: Option<&str>) {
        let shift = self.sources.files.len();
        self.notes.extend(part.notes);
        for (name, verdicts) in part.compatibility {
            self.compatibility.insert(label.map_or_else(|| name.clone(), |l| format!("{l}: {name}")), verdicts);
        }
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
            for mut problem in side.problems {
                problem.tool.file += shift;
                into.problems.push(problem);
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
    diff_selected(old, new, limits, &load::Select::default())
}

/// [`diff_sources`] of the files `select` selects. A side whose path does not exist (or holds no
/// selected file) is an empty snapshot with a note, when the other side has files: every tool is then
/// added or removed.
///
/// # Errors
/// As [`diff`]; also when neither side exists or has selected files.
pub fn diff_selected(
    old: &load::Source,
    new: &load::Source,
    limits: load::Limits,
    select: &load::Select,
) -> Result<Analysis, Error> {
    if *old == load::Source::Stdin && *new == load::Source::Stdin {
        return Err(Error::Usage("only one side can be read from standard input".into()));
    }
    let (found_old, found_new) =
        rayon::join(|| load::dir::gather(old, limits, select), || load::dir::gather(new, limits, select));
    let (found_old, found_new) = (found_old?, found_new?);
    // `None`: the side has files; else why it has none.
    let absent = |f: &Option<load::dir::Found>| match f {
        None => Some("does not exist"),
        Some(f) if f.files.is_empty() && select.is_all() => Some("holds no *.json or *.snap files"),
        Some(f) if f.files.is_empty() => Some("holds no selected file"),
        Some(_) => None,
    };
    let (old_absent, new_absent) = (absent(&found_old), absent(&found_new));
    // A path missing on one side counts as "every tool added/removed" only across git revisions, where
    // it means the pull request adds or deletes the snapshot. Between two paths on disk it is far more
    // often a typo, and a typo on the old side must not turn the gate green.
    // And only when both sides name the same path (as `--base` does): `v1:s.jsno v2:s.json` is a typo,
    // not a snapshot new in the pull request.
    let path_of = |s: &load::Source| match s {
        load::Source::Git { path, .. } => Some(path.trim_start_matches("./").trim_end_matches('/').to_owned()),
        load::Source::Path(p) => {
            Some(p.display().to_string().trim_start_matches("./").trim_end_matches('/').to_owned())
        }
        load::Source::Stdin => None,
    };
    let same_path = path_of(old).is_some() && path_of(old) == path_of(new);
    let git = same_path && (matches!(old, load::Source::Git { .. }) || matches!(new, load::Source::Git { .. }));
    let missing = |source: &load::Source, why: Option<&str>| {
        (why == Some("does not exist") && !git).then(|| Error::Io {
            path: source.label(),
            message: "does not exist (a snapshot that exists on one side only is reported as every tool \
                      added or removed when both sides name the same path and one is read at a git revision: \
                      `REV:PATH`, or `--base REV PATH`)"
                .into(),
        })
    };
    if let Some(e) = missing(old, old_absent) {
        return Err(e);
    }
    // The old side's own errors come first.
    let new_missing = missing(new, new_absent);
    let (found_old, found_new) = match load::dir::snapshot_pairs(found_old, found_new) {
        Ok(pairs) if old_absent.is_none() || new_absent.is_none() => {
            if let Some(e) = new_missing {
                return Err(e);
            }
            let mut all = diff_many(&old.label(), &new.label(), pairs)?;
            all.notes.splice(0..0, one_side_note(old, new, old_absent, new_absent, select));
            return Ok(all);
        }
        Ok(_) => (None, None),
        Err(sides) => sides,
    };
    // Both sides load at once: parsing dominates the run time of large snapshots.
    let parse = |found| {
        let mut sources = Sources::default();
        load::parse_found(found, &mut sources, load::Mode::Contract).map(|s| (sources, s))
    };
    let (o, n) = rayon::join(|| parse(found_old), || parse(found_new));
    let (mut sources, o) = o?;
    if let Some(e) = new_missing {
        return Err(e);
    }
    let (new_sources, n) = n?;
    // Names that collide on either side key both sides' per-tool files by path.
    let mut colliding = o.colliding();
    colliding.extend(n.colliding());
    let mode = load::Mode::Contract;
    let (o, n) = rayon::join(
        || o.into_side(&old.label(), &sources, mode, &colliding),
        || n.into_side(&new.label(), &new_sources, mode, &colliding),
    );
    let (old_snapshot, mut new_snapshot) = match (o, n) {
        (load::Side::Loaded(o), load::Side::Loaded(n)) => (o, n),
        (load::Side::Loaded(o), _) => (o, Snapshot::empty(&new.label())),
        (_, load::Side::Loaded(n)) => (Snapshot::empty(&old.label()), n),
        (side, _) => return Err(side.error(old, select)),
    };
    sources.absorb(new_sources, &mut new_snapshot);
    let mut analysis = analyze(sources, old_snapshot, new_snapshot);
    analysis.notes.splice(0..0, one_side_note(old, new, old_absent, new_absent, select));
    Ok(analysis)
}

/// The note for a side that does not exist or has no files: every tool of the other side is added or
/// removed.
fn one_side_note(
    old: &load::Source,
    new: &load::Source,
    old_absent: Option<&str>,
    new_absent: Option<&str>,
    select: &load::Select,
) -> Option<String> {
    let (source, why, what) = match (old_absent, new_absent) {
        (Some(why), None) => (old, why, "added"),
        (None, Some(why)) => (new, why, "removed"),
        _ => return None,
    };
    let place = match source {
        load::Source::Git { rev, path } => format!("`{path}` {why} at `{rev}`"),
        other => format!("`{}` {why}", other.label()),
    };
    let selection =
        if why == "holds no selected file" { format!(" ({})", select.described.join(" ")) } else { String::new() };
    Some(format!("{place}{selection}; every tool is reported as {what}"))
}

/// Directories of several snapshot files: each pair analyzed on its own (in parallel), a file on one
/// side only compared with an empty snapshot, findings grouped by file in path order.
fn diff_many(old: &str, new: &str, pairs: Vec<load::SnapshotPair>) -> Result<Analysis, Error> {
    use rayon::prelude::*;
    let side = |file: Option<load::dir::FileRead>| -> Result<(Sources, Snapshot), Error> {
        let mut sources = Sources::default();
        let Some(file) = file else { return Ok((sources, Snapshot::empty("(absent)"))) };
        let label = file.name.clone();
        let found = load::dir::Found { directory: false, files: vec![file], max_tools: load::DEFAULT_MAX_TOOLS };
        let snapshot = match load::load_found(Some(found), &label, &mut sources, load::Mode::Contract)? {
            load::Side::Loaded(s) => s,
            load::Side::Missing | load::Side::Empty => Snapshot::empty(&label),
        };
        Ok((sources, snapshot))
    };
    let analyses: Vec<Result<(String, Analysis), Error>> = pairs
        .into_par_iter()
        .map(|(rel, a, b)| {
            let (mut sources, old) = side(a)?;
            let (more, mut new) = side(b)?;
            sources.absorb(more, &mut new);
            Ok((rel, analyze(sources, old, new)))
        })
        .collect();
    let mut all = Analysis::empty(Snapshot::empty(old), Snapshot::empty(new));
    for result in analyses {
        let (rel, a) = result?;
        all.absorb(a, Some(&rel));
    }
    Ok(all)
}

/// Compares two loaded snapshots. Tools that cannot be compared are reported by
/// [`checks::invalid`] and left out of the comparison.
#[must_use]
pub fn analyze(sources: Sources, mut old: Snapshot, mut new: Snapshot) -> Analysis {
    checks::invalid::hold_back(&mut old, &mut new);
    let compare::Comparison { changes, compatibility } = compare::compare_all(&old, &new);
    let mut findings = checks::findings(&changes, &old, &new, &sources);
    checks::variants::soften(&mut findings, &old, &new);
    let (problems, notes) = checks::invalid::problems(&old, &new, &sources);
    if !problems.is_empty() {
        findings.extend(problems);
        checks::sort(&mut findings);
    }
    Analysis { sources, old, new, findings, suppressed: Vec::new(), notes, compatibility }
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
    verify_selected(snapshot, &load::Source::Path(lock_path.to_path_buf()), limits, &load::Select::default())
}

/// [`verify_source`] of the files `select` selects, with the lock read from `lock` (a file, `REV:PATH`
/// or standard input, see [`lock::load_source`]).
///
/// # Errors
/// As [`verify`]; also when both the snapshot and the lock are standard input.
pub fn verify_selected(
    snapshot: &load::Source,
    lock: &load::Source,
    limits: load::Limits,
    select: &load::Select,
) -> Result<(Analysis, lock::LockFile, lock::LockFile), Error> {
    if *snapshot == load::Source::Stdin && *lock == load::Source::Stdin {
        return Err(Error::Usage("only one of the snapshot and the lock can be read from standard input".into()));
    }
    let (old, new) = rayon::join(
        || {
            let mut sources = Sources::default();
            lock::load_source(lock, limits, &mut sources).map(|s| (sources, s))
        },
        || {
            let mut sources = Sources::default();
            // Hashed here, while the (larger) lock is still loading.
            load::load_selected(snapshot, &mut sources, load::Mode::Contract, limits, select).map(|s| {
                let current = lock::lock(&s);
                (sources, s, current)
            })
        },
    );
    let ((mut sources, (locked, mut old, lock_note)), (new_sources, mut new, current)) = (old?, new?);
    sources.absorb(new_sources, &mut new);
    // A tool whose hash is the locked one has the locked contract: compared without a walk.
    lock::pin(&mut old, &locked);
    lock::pin(&mut new, &current);
    let mut analysis = analyze(sources, old, new);
    analysis.notes.extend(lock_note);
    // The lock records contracts, not the files they came from: a selection cannot be applied to it.
    let gone = analysis.findings.iter().filter(|f| f.rule == RuleId::ToolRemoved).count();
    if !select.is_all() && gone > 0 {
        analysis.notes.push(format!(
            "{gone} locked tool(s) are not in the selected files ({}); the lock holds every tool it was made \
             with, so lock and verify with the same --include/--exclude",
            select.described.join(" ")
        ));
    }
    Ok((analysis, locked, current))
}

/// The snapshot `mcp-drift replay` checks recorded calls against, without an old side: an analysis
/// with no findings yet, whose `new` is the snapshot (see [`replay::replay`]).
///
/// # Errors
/// When the snapshot cannot be read or is not a valid snapshot.
pub fn replay_target(new: &load::Source, limits: load::Limits, select: &load::Select) -> Result<Analysis, Error> {
    let mut sources = Sources::default();
    let new = load::load_selected(new, &mut sources, load::Mode::Contract, limits, select)?;
    Ok(Analysis { sources, ..Analysis::empty(Snapshot::empty(""), new) })
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
    lint_selected(specs, options, limits, &load::Select::default())
}

/// [`lint_sources`] of the files `select` selects.
///
/// # Errors
/// As [`lint`].
pub fn lint_selected(
    specs: &[load::Source],
    options: lint::Options,
    limits: load::Limits,
    select: &load::Select,
) -> Result<Analysis, Error> {
    use rayon::prelude::*;
    let parts: Vec<Result<Analysis, Error>> = specs
        .par_iter()
        .map(|spec| {
            let mut sources = Sources::default();
            let snapshot = load::load_selected(spec, &mut sources, load::Mode::Lint, limits, select)?;
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
    let mut findings = lint::lint(&snapshot, &sources, options);
    // Tools that are not objects or have no name cannot be linted; each is a finding, as in `diff`.
    let (problems, _) = checks::invalid::problems(&Snapshot::empty(""), &snapshot, &sources);
    if !problems.is_empty() {
        findings.extend(problems);
        checks::sort(&mut findings);
    }
    Analysis {
        sources,
        old: Snapshot::empty(""),
        new: snapshot,
        findings,
        suppressed: Vec::new(),
        notes: Vec::new(),
        compatibility: std::collections::BTreeMap::new(),
    }
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
