//! Stage 4b, policy: what a team decided about findings. Reads `mcp-drift.toml` (or `--config`, checked
//! by `policy/config.rs`) and the baseline file, then applies per-rule severity overrides (including `off`),
//! ignores by tool, pointer or rule, and accepted changes (by fingerprint, or rule + tool + pointer,
//! and the change's `evidence` when the entry records it) with a required reason and an optional
//! expiry date after which the finding returns.
//!
//! Promises: an accepted finding is never dropped silently: it moves to `suppressed` with its reason,
//! and the summary counts it. Every problem of a configuration file is reported at once, each at its
//! line and column. An entry that matches nothing, and a baseline entry that accepts by fingerprint
//! alone, are notices of [`Policy::apply`].

mod atomic;
mod config;
pub(crate) mod date;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::catalog::Severity;
use crate::checks::Finding;
use crate::error::Error;
use crate::load::{git, read};

/// The limit named in messages about configuration and baseline files.
const SETTINGS_LIMIT: &str = "configuration file";

/// The text of a configuration or baseline file.
fn settings_text(name: &str, bytes: Vec<u8>) -> Result<String, Error> {
    String::from_utf8(bytes).map_err(|_| Error::Input {
        file: name.to_owned(),
        line: 0,
        column: 0,
        message: "file is not valid UTF-8".into(),
    })
}

/// A notice when the working tree's `path` differs from `committed` (its bytes at `rev`, `None` when
/// absent there): the run used the revision's `what`, and `option` chooses another. The working
/// tree's file is read up to `cap` bytes.
pub(crate) fn changed_note(
    rev: &str,
    path: &str,
    committed: Option<&[u8]>,
    (what, option): (&str, &str),
    cap: u64,
) -> Option<String> {
    let local = Path::new(path);
    let present = std::fs::symlink_metadata(local).is_ok();
    // Unreadable (a FIFO, too large): not used, and not the same as the revision's.
    let current = present.then(|| read::file(local, cap, SETTINGS_LIMIT).ok()).flatten();
    match (committed, present) {
        (None, false) => None,
        (Some(c), true) if current.as_deref() == Some(c) => None,
        (Some(_), true) => {
            Some(format!("{path} differs from {rev}'s; this run used {rev}'s {what} (pass {option} to use another)"))
        }
        (None, true) => Some(format!(
            "{path} is new in the working tree and absent at {rev}; this run used no {what} (pass {option} to use it)"
        )),
        (Some(_), false) => Some(format!(
            "{path} is removed from the working tree; this run used {rev}'s {what} (pass {option} to use another)"
        )),
    }
}

pub use atomic::{
    Pending, remove_pending, signals_handled_elsewhere, temp_dir_builder, write_atomically, write_atomically_with,
};
pub use config::{Accept, Config, FailOn, Ignore, Level};
pub use date::today;

impl FailOn {
    #[must_use]
    pub fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Info => Some(Severity::Info),
            FailOn::Never => None,
        }
    }
}

/// The baseline file written by `mcp-drift baseline write`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub version: u32,
    pub accepted: Vec<Accept>,
}

/// The file name looked for in the current directory.
pub const CONFIG_FILE: &str = "mcp-drift.toml";
/// The default baseline file name.
pub const BASELINE_FILE: &str = "mcp-drift-baseline.json";

/// A loaded policy: the config, its accepted changes and the baseline's.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    pub config: Config,
    pub accepted: Vec<Accept>,
    /// `YYYY-MM-DD` of today, for expiry.
    pub today: String,
    /// The configuration file as named in messages (empty without one).
    pub file: String,
    /// One-line notices about where the policy came from (for example that the working tree changes
    /// `mcp-drift.toml` and the revision's was used); [`crate::Analysis::apply_policy`] passes them on.
    pub notes: Vec<String>,
}

impl Policy {
    /// Loads `explicit`, or `mcp-drift.toml` from the current directory when it exists.
    ///
    /// # Errors
    /// Unreadable or invalid configuration or baseline files.
    pub fn load(explicit: Option<&Path>) -> Result<Policy, Error> {
        Policy::load_with(explicit, true)
    }

    /// [`Policy::load`] without reading the baseline the configuration names: for `baseline write`,
    /// which replaces the baseline, so it need not exist yet.
    ///
    /// # Errors
    /// An unreadable or invalid configuration file.
    pub fn load_config(explicit: Option<&Path>) -> Result<Policy, Error> {
        Policy::load_with(explicit, false)
    }

    fn load_with(explicit: Option<&Path>, with_baseline: bool) -> Result<Policy, Error> {
        let path = match explicit {
            Some(p) => Some(p.to_path_buf()),
            None => Some(PathBuf::from(CONFIG_FILE)).filter(|p| std::fs::symlink_metadata(p).is_ok()),
        };
        let Some(path) = path else { return Ok(Policy { today: today(), ..Policy::default() }) };
        let name = path.display().to_string();
        crate::load::dir::own_file_contained(&path)?;
        let text = settings_text(&name, read::file(&path, read::MAX_SETTINGS_BYTES, SETTINGS_LIMIT)?)?;
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        Policy::from_text(&name, &text, |baseline| {
            crate::load::dir::named_file_contained(&dir, baseline, "baseline")?;
            let b = dir.join(baseline);
            match (with_baseline, b.exists()) {
                (false, _) => Ok(Some(Baseline::default())),
                (true, true) => read_baseline(&b).map(Some),
                (true, false) => Ok(None),
            }
        })
    }

    /// Loads `./mcp-drift.toml` and the baseline it names as committed at `rev` (for `--base`: the
    /// pull request must not choose the policy that judges it). Paths are relative to the current
    /// directory, as for [`Policy::load`]. When the working tree's files differ from the revision's
    /// (changed, added or removed), [`Policy::notes`] says so.
    ///
    /// # Errors
    /// A missing revision, or unreadable or invalid files at the revision.
    pub fn load_at(rev: &str) -> Result<Policy, Error> {
        let name = format!("{rev}:{CONFIG_FILE}");
        let committed = git::read_file(rev, CONFIG_FILE, read::MAX_SETTINGS_BYTES, SETTINGS_LIMIT)?;
        let mut notes = Vec::new();
        if let Some(note) = changed_note(
            rev,
            CONFIG_FILE,
            committed.as_deref(),
            ("configuration", "--config"),
            read::MAX_SETTINGS_BYTES,
        ) {
            notes.push(note);
        }
        let Some(bytes) = committed else { return Ok(Policy { today: today(), notes, ..Policy::default() }) };
        let text = settings_text(&name, bytes)?;
        let mut policy = Policy::from_text(&name, &text, |baseline| {
            let path = baseline.to_string_lossy().into_owned();
            let committed = git::read_file(rev, &path, read::MAX_SETTINGS_BYTES, SETTINGS_LIMIT)?;
            if let Some(note) =
                changed_note(rev, &path, committed.as_deref(), ("baseline", "--baseline"), read::MAX_SETTINGS_BYTES)
            {
                notes.push(note);
            }
            let Some(bytes) = committed else { return Ok(None) };
            let shown = format!("{rev}:{path}");
            let text = settings_text(&shown, bytes)?;
            let (baseline, version) = parse_versioned(&shown, &text, "invalid baseline", |b: &Baseline| b.version)?;
            check_version(Path::new(&shown), "baseline", version)?;
            Ok(Some(baseline))
        })?;
        policy.notes = notes;
        Ok(policy)
    }

    /// A policy from the text of a configuration file named `name`; `baseline` reads the baseline the
    /// configuration names (`None`: it does not exist, which is a problem at the `baseline` key).
    fn from_text(
        name: &str,
        text: &str,
        baseline: impl FnOnce(&Path) -> Result<Option<Baseline>, Error>,
    ) -> Result<Policy, Error> {
        let mut parsed = config::parse(text);
        let mut accepted = parsed.config.accept.clone();
        if let Some(b) = parsed.config.baseline.clone() {
            match baseline(&b) {
                Ok(Some(b)) => accepted.extend(b.accepted),
                Ok(None) => parsed.problem(
                    parsed.baseline_at,
                    format!(
                        "the baseline `{}` does not exist; write it with `mcp-drift baseline write`, or remove `baseline`",
                        b.display()
                    ),
                ),
                // The configuration's own problems come first; the baseline is read again once they are fixed.
                Err(e) if !parsed.has_problems() => return Err(e),
                Err(_) => {}
            }
        }
        let config = parsed.finish(name, text)?;
        Ok(Policy { config, accepted, today: today(), file: name.to_owned(), notes: Vec::new() })
    }

    /// Adds the accepted changes of a baseline file.
    ///
    /// # Errors
    /// An unreadable or invalid baseline.
    pub fn with_baseline(mut self, path: &Path) -> Result<Policy, Error> {
        self.accepted.extend(read_baseline(path)?.accepted);
        Ok(self)
    }

    /// Applies the policy: the findings to report, the suppressed ones with their reasons, and notices
    /// about the policy itself (entries that matched nothing, baseline entries that predate evidence).
    #[must_use]
    pub fn apply(&self, findings: Vec<Finding>) -> Applied {
        let mut out = Applied::default();
        let mut ignore_used = vec![false; self.config.ignore.len()];
        let mut accept_used = vec![false; self.accepted.len()];
        let mut without_evidence = 0;
        // Nothing leaves the report unseen: a rule switched off and an ignored finding are suppressed
        // with a reason like an accepted one, so every format counts and names them.
        'findings: for mut f in findings {
            match self.config.severity.get(f.rule.as_str()) {
                Some(Level::Off) => {
                    let reason = format!("rule `{}` is off in the configuration", f.rule.as_str());
                    out.suppressed.push((f, reason));
                    continue;
                }
                Some(Level::Error) => f.severity = Severity::Error,
                Some(Level::Warning) => f.severity = Severity::Warning,
                Some(Level::Info) => f.severity = Severity::Info,
                None => {}
            }
            for (i, used) in self.config.ignore.iter().zip(&mut ignore_used) {
                if i.tool.as_deref().is_none_or(|t| tool_matches(t, &f.tool))
                    && i.pointer.as_deref().is_none_or(|p| pointer_within(&f.pointer, p))
                    && i.rule.as_deref().is_none_or(|r| r == f.rule.as_str())
                {
                    *used = true;
                    let reason =
                        format!("ignored by the configuration ({})", i.reason.as_deref().unwrap_or("no reason given"));
                    out.suppressed.push((f, reason));
                    continue 'findings;
                }
            }
            let matching = self.accepted.iter().enumerate().filter(|(_, a)| accepts(a, &f));
            let (same, other): (Vec<_>, Vec<_>) = matching.partition(|(_, a)| same_evidence(a, &f));
            for (i, _) in same.iter().chain(&other) {
                accept_used[*i] = true;
            }
            if let Some((_, a)) = other.first().filter(|_| same.is_empty()) {
                f.notes.push(format!(
                    "an accepted change at this place ({}) was a different one; review this change and accept it again",
                    a.reason
                ));
            }
            if let Some((_, a)) = same.first() {
                // Written by `baseline write` before entries recorded evidence.
                if a.line == 0 && a.fingerprint.is_some() && a.evidence.is_none() && f.evidence.is_some() {
                    without_evidence += 1;
                }
                match &a.expires {
                    Some(day) if day.as_str() <= self.today.as_str() => {
                        f.notes.push(format!("the acceptance of this change expired on {day} ({})", a.reason));
                    }
                    _ => {
                        out.suppressed.push((f, a.reason.clone()));
                        continue;
                    }
                }
            }
            out.kept.push(f);
        }
        // Unused entries of the configuration, in file order.
        let mut unused: Vec<(usize, String)> = Vec::new();
        for (i, _) in self.config.ignore.iter().zip(&ignore_used).filter(|(_, used)| !**used) {
            unused.push((i.line, format!("[[ignore]] {}", ignore_scope(i))));
        }
        let mut unused_baseline = 0;
        for (a, _) in self.accepted.iter().zip(&accept_used).filter(|(_, used)| !**used) {
            if a.line == 0 {
                unused_baseline += 1;
            } else {
                unused.push((a.line, format!("[[accept]] {}", accept_scope(a))));
            }
        }
        unused.sort_by_key(|(line, _)| *line);
        for (line, entry) in unused {
            out.notes.push(format!("{}:{line}: {entry} matched nothing; remove it", self.file));
        }
        if unused_baseline > 0 {
            out.notes.push(format!(
                "{unused_baseline} baseline {} matched nothing; `mcp-drift baseline write` rewrites it",
                if unused_baseline == 1 { "entry" } else { "entries" }
            ));
        }
        if without_evidence > 0 {
            out.notes.push(format!(
                "{without_evidence} baseline {} no `evidence` of the change {} accepted, so a later, different change at the same place would stay accepted; `mcp-drift baseline write` rewrites the baseline with it",
                if without_evidence == 1 { "entry records" } else { "entries record" },
                if without_evidence == 1 { "it" } else { "they" },
            ));
        }
        out
    }
}

/// What [`Policy::apply`] made of the findings.
#[derive(Debug, Default)]
pub struct Applied {
    /// Findings to report.
    pub kept: Vec<Finding>,
    /// Findings left out, each with the reason.
    pub suppressed: Vec<(Finding, String)>,
    /// One-line notices about the policy (unused entries, baselines to rewrite).
    pub notes: Vec<String>,
}

/// "for tool `x`, rule `y`": what an ignore entry names.
fn ignore_scope(i: &Ignore) -> String {
    let parts: Vec<String> = [("tool", &i.tool), ("pointer", &i.pointer), ("rule", &i.rule)]
        .into_iter()
        .filter_map(|(k, v)| v.as_deref().map(|v| format!("{k} `{v}`")))
        .collect();
    if parts.is_empty() { "for every finding".into() } else { format!("for {}", parts.join(", ")) }
}

/// "for `rule` on `tool`" or "for fingerprint `...`": what an accepted change names.
fn accept_scope(a: &Accept) -> String {
    match (&a.fingerprint, &a.rule, &a.tool) {
        (None, Some(rule), Some(tool)) => {
            let at = a.pointer.as_deref().map(|p| format!(" at `{p}`")).unwrap_or_default();
            format!("for `{rule}` on `{tool}`{at}")
        }
        (Some(fp), _, _) => format!("for fingerprint `{fp}`"),
        _ => String::new(),
    }
}

/// Whether `pointer` is `prefix` or lies below it: `/properties/reg` does not cover
/// `/properties/region`.
fn pointer_within(pointer: &str, prefix: &str) -> bool {
    let prefix = prefix.strip_suffix('/').unwrap_or(prefix);
    pointer.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

fn tool_matches(pattern: &str, tool: &str) -> bool {
    pattern.strip_suffix('*').map_or(pattern == tool, |prefix| tool.starts_with(prefix))
}

/// Whether `a` names the place of `f` (fingerprint, or rule, tool and pointer).
fn accepts(a: &Accept, f: &Finding) -> bool {
    match &a.fingerprint {
        Some(fp) => *fp == f.fingerprint,
        None => {
            a.rule.as_deref() == Some(f.rule.as_str())
                && a.tool.as_deref() == Some(f.tool.as_str())
                && a.pointer.as_deref().is_none_or(|p| p == f.pointer)
        }
    }
}

/// Whether `a` accepted this very change: entries and findings without evidence compare by place only.
fn same_evidence(a: &Accept, f: &Finding) -> bool {
    match (&a.evidence, &f.evidence) {
        (Some(accepted), Some(now)) => accepted == now,
        _ => true,
    }
}

fn read_baseline(path: &Path) -> Result<Baseline, Error> {
    let (baseline, version, _) =
        read_versioned(path, read::MAX_SETTINGS_BYTES, "invalid baseline", "", |b: &Baseline| b.version)?;
    check_version(path, "baseline", version)?;
    Ok(baseline)
}

/// Reads a JSON file written by mcp-drift (baseline, lock), at most `cap` bytes: I/O errors carry
/// `io_hint`, parse errors say `what` with the line and column. Returns the value and its `version`
/// field, and its text.
///
/// # Errors
/// Unreadable or invalid files, files that are not regular files, files over `cap`.
pub(crate) fn read_versioned<T: serde::de::DeserializeOwned>(
    path: &Path,
    cap: u64,
    what: &str,
    io_hint: &str,
    version: impl Fn(&T) -> u32,
) -> Result<(T, u32, String), Error> {
    let text = read_own_text(path, cap, io_hint)?;
    let (t, v) = parse_versioned(&path.display().to_string(), &text, what, version)?;
    Ok((t, v, text))
}

/// The text of a file mcp-drift wrote (see [`read_versioned`]), not parsed.
///
/// # Errors
/// As [`read_versioned`], but for the parse.
pub(crate) fn read_own_text(path: &Path, cap: u64, io_hint: &str) -> Result<String, Error> {
    let limit = if cap == read::MAX_SETTINGS_BYTES { SETTINGS_LIMIT } else { read::INPUT_LIMIT };
    crate::load::dir::own_file_contained(path)?;
    let bytes = read::file(path, cap, limit).map_err(|e| match e {
        Error::Io { path, message } => Error::Io { path, message: format!("{message}{io_hint}") },
        other => other,
    })?;
    settings_text(&path.display().to_string(), bytes)
}

/// Parses the text of a JSON file written by mcp-drift (see [`read_versioned`]).
pub(crate) fn parse_versioned<T: serde::de::DeserializeOwned>(
    name: &str,
    text: &str,
    what: &str,
    version: impl Fn(&T) -> u32,
) -> Result<(T, u32), Error> {
    let value: T = serde_json::from_str(text).map_err(|e| Error::Input {
        file: name.to_owned(),
        line: e.line(),
        column: e.column(),
        message: format!("{what}: {e}"),
    })?;
    let v = version(&value);
    Ok((value, v))
}

/// Only version 1 of our own files exists.
///
/// # Errors
/// Any other version.
pub(crate) fn check_version(path: &Path, what: &str, version: u32) -> Result<(), Error> {
    if version == 1 {
        return Ok(());
    }
    Err(Error::Input {
        file: path.display().to_string(),
        line: 1,
        column: 1,
        message: format!("unsupported {what} version {version}"),
    })
}

/// A baseline that accepts every given finding.
#[must_use]
pub fn baseline_of(findings: &[Finding], reason: &str) -> Baseline {
    let mut accepted: Vec<Accept> = findings
        .iter()
        .map(|f| Accept {
            fingerprint: Some(f.fingerprint.clone()),
            rule: Some(f.rule.as_str().to_owned()),
            tool: Some(f.tool.clone()),
            pointer: Some(f.pointer.clone()),
            evidence: f.evidence.clone(),
            reason: reason.to_owned(),
            expires: None,
            line: 0,
        })
        .collect();
    accepted.sort_by(|a, b| (&a.tool, &a.pointer, &a.rule).cmp(&(&b.tool, &b.pointer, &b.rule)));
    accepted.dedup();
    Baseline { version: 1, accepted }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At a revision as on disk: the baseline the configuration names must exist there.
    #[test]
    fn a_configured_baseline_absent_at_the_revision_is_a_problem_at_its_key() {
        let text = "fail-on = \"error\"\nbaseline   = \"accepted.json\"\n";
        let Err(Error::Config { file, problems }) = Policy::from_text("main:mcp-drift.toml", text, |_| Ok(None)) else {
            panic!("a missing baseline is an error");
        };
        assert_eq!(file, "main:mcp-drift.toml");
        assert_eq!((problems.len(), problems[0].line, problems[0].column), (1, 2, 14));
        assert!(problems[0].message.contains("`accepted.json` does not exist"), "{problems:?}");
        let found = Baseline { version: 1, accepted: Vec::new() };
        assert!(Policy::from_text("main:mcp-drift.toml", text, |_| Ok(Some(found))).is_ok());
    }

    /// The configuration's own problems come before the baseline's: its error waits until they are fixed.
    #[test]
    fn configuration_problems_come_before_an_unreadable_baseline() {
        let unreadable = |_: &Path| Err(Error::Usage("unreadable baseline".into()));
        let Err(Error::Config { problems, .. }) =
            Policy::from_text("c.toml", "baseline = \"b\"\ncolor = 1\n", unreadable)
        else {
            panic!("the configuration's problem");
        };
        assert_eq!(problems.len(), 1);
        assert!(matches!(Policy::from_text("c.toml", "baseline = \"b\"\n", unreadable), Err(Error::Usage(_))));
    }
}
