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
            None => Some(PathBuf::from(CONFIG_FILE)).filter(|p| p.exists()),
        };
        let mut policy = Policy { today: today(), ..Policy::default() };
        let Some(path) = path else { return Ok(policy) };
        let name = path.display().to_string();
        let text =
            std::fs::read_to_string(&path).map_err(|e| Error::Io { path: name.clone(), message: e.to_string() })?;
        let config: Config = toml::from_str(&text).map_err(|e| {
            let (line, column) = e.span().map_or((0, 0), |s| position(&text, s.start));
            Error::Input { file: name.clone(), line, column, message: e.message().to_owned() }
        })?;
        for key in config.severity.keys() {
            if RuleId::from_id(key).is_none() {
                let offset = text.find(key.as_str()).unwrap_or(0);
                let (line, column) = position(&text, offset);
                let hint = crate::catalog::closest(key).map(|c| format!("; did you mean `{c}`?")).unwrap_or_default();
                return Err(Error::Input { file: name, line, column, message: format!("unknown rule `{key}`{hint}") });
            }
        }
        for accept in &config.accept {
            check_accept(accept, &name, &text)?;
        }
        policy.accepted.clone_from(&config.accept);
        let baseline_path = config.baseline.clone().map(|b| path.parent().unwrap_or(Path::new("")).join(b));
        if let Some(b) = baseline_path.filter(|b| b.exists()) {
            policy.accepted.extend(read_baseline(&b)?.accepted);
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
        'findings: for mut f in findings {
            match self.config.severity.get(f.rule.as_str()) {
                Some(Level::Off) => continue,
                Some(Level::Error) => f.severity = Severity::Error,
                Some(Level::Warning) => f.severity = Severity::Warning,
                Some(Level::Info) => f.severity = Severity::Info,
                None => {}
            }
            for i in &self.config.ignore {
                if i.tool.as_deref().is_none_or(|t| tool_matches(t, &f.tool))
                    && i.pointer.as_deref().is_none_or(|p| f.pointer.starts_with(p))
                    && i.rule.as_deref().is_none_or(|r| r == f.rule.as_str())
                {
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
    let (baseline, version): (Baseline, u32) = read_versioned(path, "invalid baseline", "", |b: &Baseline| b.version)?;
    check_version(path, "baseline", version)?;
    Ok(baseline)
}

/// Reads a JSON file written by mcp-drift (baseline, lock): I/O errors carry `io_hint`, parse errors
/// say `what` with the line and column. Returns the value and its `version` field.
///
/// # Errors
/// Unreadable or invalid files.
pub(crate) fn read_versioned<T: serde::de::DeserializeOwned>(
    path: &Path,
    what: &str,
    io_hint: &str,
    version: impl Fn(&T) -> u32,
) -> Result<(T, u32), Error> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Io { path: name.clone(), message: format!("{e}{io_hint}") })?;
    let value: T = serde_json::from_str(&text).map_err(|e| Error::Input {
        file: name,
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
