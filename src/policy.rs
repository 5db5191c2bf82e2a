//! Stage 4b, policy: what a team decided about findings. Reads `mcp-drift.toml` (or `--config`) and the
//! baseline file, then applies per-rule severity overrides (including `off`), ignores by tool, pointer
//! or rule, and accepted changes (by fingerprint, or rule + tool + pointer) with a required reason and an
//! optional expiry date after which the finding returns.
//!
//! Promises: an accepted finding is never dropped silently: it moves to `suppressed` with its reason,
//! and the summary counts it. Configuration errors name the file, line and column.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::catalog::{RuleId, Severity};
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
/// absent there): the run used the revision's `what`, and `option` chooses another.
fn changed_note(rev: &str, path: &str, committed: Option<&[u8]>, what: &str, option: &str) -> Option<String> {
    let local = Path::new(path);
    let present = std::fs::symlink_metadata(local).is_ok();
    // Unreadable (a FIFO, too large): not used, and not the same as the revision's.
    let current = present.then(|| read::file(local, read::MAX_SETTINGS_BYTES, SETTINGS_LIMIT).ok()).flatten();
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

/// A severity or `off`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Info,
    Off,
}

/// `fail-on` values.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

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

/// Findings to leave out entirely (a tool that is internal, a pointer that is generated).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Ignore {
    /// A tool name; a trailing `*` matches any suffix.
    pub tool: Option<String>,
    /// A JSON Pointer prefix inside the tool.
    pub pointer: Option<String>,
    pub rule: Option<String>,
    pub reason: Option<String>,
}

/// A change the team reviewed and accepted.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Accept {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    pub reason: String,
    /// `YYYY-MM-DD`; from that day on the finding is reported again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
}

/// `mcp-drift.toml`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    pub fail_on: Option<FailOn>,
    /// Path of the baseline file, relative to the config file.
    pub baseline: Option<PathBuf>,
    #[serde(default)]
    pub severity: BTreeMap<String, Level>,
    #[serde(default)]
    pub ignore: Vec<Ignore>,
    #[serde(default)]
    pub accept: Vec<Accept>,
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
    /// One-line notices about where the policy came from (for example that the working tree changes
    /// `mcp-drift.toml` and the revision's was used); [`crate::Analysis::apply_policy`] passes them on.
    pub notes: Vec<String>,
}

fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

impl Policy {
    /// Loads `explicit`, or `mcp-drift.toml` from the current directory when it exists.
    ///
    /// # Errors
    /// Unreadable or invalid configuration or baseline files.
    pub fn load(explicit: Option<&Path>) -> Result<Policy, Error> {
        let path = match explicit {
            Some(p) => Some(p.to_path_buf()),
            None => Some(PathBuf::from(CONFIG_FILE)).filter(|p| std::fs::symlink_metadata(p).is_ok()),
        };
        let Some(path) = path else { return Ok(Policy { today: today(), ..Policy::default() }) };
        let name = path.display().to_string();
        let text = settings_text(&name, read::file(&path, read::MAX_SETTINGS_BYTES, SETTINGS_LIMIT)?)?;
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        Policy::from_text(&name, &text, |baseline| {
            let b = dir.join(baseline);
            if b.exists() { read_baseline(&b).map(Some) } else { Ok(None) }
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
        if let Some(note) = changed_note(rev, CONFIG_FILE, committed.as_deref(), "configuration", "--config") {
            notes.push(note);
        }
        let Some(bytes) = committed else { return Ok(Policy { today: today(), notes, ..Policy::default() }) };
        let text = settings_text(&name, bytes)?;
        let mut policy = Policy::from_text(&name, &text, |baseline| {
            let path = baseline.to_string_lossy().into_owned();
            let committed = git::read_file(rev, &path, read::MAX_SETTINGS_BYTES, SETTINGS_LIMIT)?;
            if let Some(note) = changed_note(rev, &path, committed.as_deref(), "baseline", "--baseline") {
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
    /// configuration names (`None`: it does not exist).
    fn from_text(
        name: &str,
        text: &str,
        baseline: impl FnOnce(&Path) -> Result<Option<Baseline>, Error>,
    ) -> Result<Policy, Error> {
        let mut policy = Policy { today: today(), ..Policy::default() };
        let config: Config = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map_or((0, 0), |s| position(text, s.start));
            Error::Input { file: name.to_owned(), line, column, message: e.message().to_owned() }
        })?;
        for key in config.severity.keys() {
            if RuleId::from_id(key).is_none() {
                let offset = text.find(key.as_str()).unwrap_or(0);
                let (line, column) = position(text, offset);
                let hint = crate::catalog::closest(key).map(|c| format!("; did you mean `{c}`?")).unwrap_or_default();
                return Err(Error::Input {
                    file: name.to_owned(),
                    line,
                    column,
                    message: format!("unknown rule `{key}`{hint}"),
                });
            }
        }
        for accept in &config.accept {
            check_accept(accept, name, text)?;
        }
        policy.accepted.clone_from(&config.accept);
        if let Some(b) = &config.baseline
            && let Some(b) = baseline(b)?
        {
            policy.accepted.extend(b.accepted);
        }
        policy.config = config;
        Ok(policy)
    }

    /// Adds the accepted changes of a baseline file.
    ///
    /// # Errors
    /// An unreadable or invalid baseline.
    pub fn with_baseline(mut self, path: &Path) -> Result<Policy, Error> {
        self.accepted.extend(read_baseline(path)?.accepted);
        Ok(self)
    }

    /// Applies the policy: returns the findings to report and the suppressed ones with their reasons.
    #[must_use]
    pub fn apply(&self, findings: Vec<Finding>) -> (Vec<Finding>, Vec<(Finding, String)>) {
        let mut kept = Vec::new();
        let mut suppressed = Vec::new();
        // Nothing leaves the report unseen: a rule switched off and an ignored finding are suppressed
        // with a reason like an accepted one, so every format counts and names them.
        'findings: for mut f in findings {
            match self.config.severity.get(f.rule.as_str()) {
                Some(Level::Off) => {
                    let reason = format!("rule `{}` is off in the configuration", f.rule.as_str());
                    suppressed.push((f, reason));
                    continue;
                }
                Some(Level::Error) => f.severity = Severity::Error,
                Some(Level::Warning) => f.severity = Severity::Warning,
                Some(Level::Info) => f.severity = Severity::Info,
                None => {}
            }
            for i in &self.config.ignore {
                if i.tool.as_deref().is_none_or(|t| tool_matches(t, &f.tool))
                    && i.pointer.as_deref().is_none_or(|p| pointer_within(&f.pointer, p))
                    && i.rule.as_deref().is_none_or(|r| r == f.rule.as_str())
                {
                    let reason =
                        format!("ignored by the configuration ({})", i.reason.as_deref().unwrap_or("no reason given"));
                    suppressed.push((f, reason));
                    continue 'findings;
                }
            }
            if let Some(a) = self.accepted.iter().find(|a| accepts(a, &f)) {
                match &a.expires {
                    Some(day) if day.as_str() <= self.today.as_str() => {
                        f.notes.push(format!("the acceptance of this change expired on {day} ({})", a.reason));
                    }
                    _ => {
                        suppressed.push((f, a.reason.clone()));
                        continue;
                    }
                }
            }
            kept.push(f);
        }
        (kept, suppressed)
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

fn check_accept(a: &Accept, name: &str, text: &str) -> Result<(), Error> {
    let anchor = a.fingerprint.as_deref().or(a.rule.as_deref()).unwrap_or("[[accept]]");
    let (line, column) = position(text, text.find(anchor).unwrap_or(0));
    let fail = |message: String| Err(Error::Input { file: name.to_owned(), line, column, message });
    if a.fingerprint.is_none() && (a.rule.is_none() || a.tool.is_none()) {
        return fail("an accepted change needs `fingerprint`, or `rule` and `tool` (and optionally `pointer`)".into());
    }
    if a.reason.trim().is_empty() {
        return fail("an accepted change needs a non-empty `reason`".into());
    }
    if let Some(day) = &a.expires
        && !is_date(day)
    {
        return fail(format!("`expires` must be a date written YYYY-MM-DD, found `{day}`"));
    }
    Ok(())
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn read_baseline(path: &Path) -> Result<Baseline, Error> {
    let (baseline, version): (Baseline, u32) =
        read_versioned(path, read::MAX_SETTINGS_BYTES, "invalid baseline", "", |b: &Baseline| b.version)?;
    check_version(path, "baseline", version)?;
    Ok(baseline)
}

/// Reads a JSON file written by mcp-drift (baseline, lock), at most `cap` bytes: I/O errors carry
/// `io_hint`, parse errors say `what` with the line and column. Returns the value and its `version`
/// field.
///
/// # Errors
/// Unreadable or invalid files, files that are not regular files, files over `cap`.
pub(crate) fn read_versioned<T: serde::de::DeserializeOwned>(
    path: &Path,
    cap: u64,
    what: &str,
    io_hint: &str,
    version: impl Fn(&T) -> u32,
) -> Result<(T, u32), Error> {
    let name = path.display().to_string();
    let limit = if cap == read::MAX_SETTINGS_BYTES { SETTINGS_LIMIT } else { read::INPUT_LIMIT };
    let bytes = read::file(path, cap, limit).map_err(|e| match e {
        Error::Io { path, message } => Error::Io { path, message: format!("{message}{io_hint}") },
        other => other,
    })?;
    parse_versioned(&name, &settings_text(&name, bytes)?, what, version)
}

/// Parses the text of a JSON file written by mcp-drift (see [`read_versioned`]).
fn parse_versioned<T: serde::de::DeserializeOwned>(
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
            reason: reason.to_owned(),
            expires: None,
        })
        .collect();
    accepted.sort_by(|a, b| (&a.tool, &a.pointer, &a.rule).cmp(&(&b.tool, &b.pointer, &b.rule)));
    accepted.dedup();
    Baseline { version: 1, accepted }
}

/// Writes `contents` to `path` atomically: a temporary file in the same directory, then a rename, so a
/// reader never sees half a file and an interrupted run leaves the old file intact.
///
/// # Errors
/// When the directory is not writable.
pub fn write_atomically(path: &Path, contents: &str) -> Result<(), Error> {
    use std::io::Write as _;
    let io = |e: std::io::Error| Error::Io { path: path.display().to_string(), message: e.to_string() };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    tmp.write_all(contents.as_bytes()).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// Today's date in UTC as `YYYY-MM-DD` (civil-from-days, Howard Hinnant's algorithm).
#[must_use]
pub fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let (y, m, d) = civil(days);
    format!("{y:04}-{m:02}-{d:02}")
}

fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(20_423), (2025, 12, 1));
        assert_eq!(civil(11_016), (2000, 2, 29));
    }

    #[test]
    fn config_errors_have_positions() {
        let text = "fail-on = \"error\"\n[severity]\ninput-required-added = \"loud\"\n";
        let e = toml::from_str::<Config>(text).unwrap_err();
        assert_eq!(position(text, e.span().unwrap().start).0, 3);
        assert!(toml::from_str::<Config>("unknown = 1\n").is_err());
    }
}
