//! `mcp-drift.toml`: its typed form and the checker that reads it. Takes the file's text; returns a
//! [`Config`], or every problem in the file at once, in file order, each at the line and column of the
//! key or value it is about (unknown keys, wrong types, unknown rules and levels, impossible dates,
//! incomplete `[[accept]]` entries). A TOML syntax error stops the check: what follows it is not
//! reliably the table the author meant.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::date;
use crate::catalog::RuleId;
use crate::error::{Error, Problem};

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

/// Findings to leave out entirely (a tool that is internal, a pointer that is generated).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Ignore {
    /// A tool name; a trailing `*` matches any suffix.
    pub tool: Option<String>,
    /// A JSON Pointer prefix inside the tool.
    pub pointer: Option<String>,
    pub rule: Option<String>,
    pub reason: Option<String>,
    /// The line of its `[[ignore]]` header in the configuration file.
    #[serde(skip)]
    pub line: usize,
}

/// A change the team reviewed and accepted.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
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
    /// What was accepted: [`crate::checks::Finding::evidence`] of the finding (a digest of the old and
    /// new value at its pointer). With it, a later, different change at the same place is reported
    /// again; without it (baselines written before it existed), the fingerprint alone matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    pub reason: String,
    /// `YYYY-MM-DD`; from that day on the finding is reported again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
    /// The line of its `[[accept]]` header in the configuration file; 0 for a baseline's entries.
    #[serde(skip)]
    pub line: usize,
}

/// `mcp-drift.toml`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub fail_on: Option<FailOn>,
    /// Path of the baseline file, relative to the config file.
    pub baseline: Option<PathBuf>,
    pub severity: BTreeMap<String, Level>,
    pub ignore: Vec<Ignore>,
    pub accept: Vec<Accept>,
    /// Globs of snapshot files to read (relative to a snapshot directory); empty: every file.
    pub include: Vec<String>,
    /// Globs of snapshot files to skip, applied after `include`.
    pub exclude: Vec<String>,
}

/// A checked configuration, the problems found in it so far, and where its `baseline` value is, for a
/// problem found later (the file it names does not exist).
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub config: Config,
    /// Byte offset of the `baseline` value.
    pub baseline_at: usize,
    /// Byte offset and message of each problem; syntax errors are flagged, and a problem at the offset
    /// of a syntax error is its echo (the value the parser could not read), not a second problem.
    problems: Vec<(usize, String, bool)>,
}

impl Parsed {
    /// Adds a problem at byte offset `at`.
    pub(crate) fn problem(&mut self, at: usize, message: String) {
        self.problems.push((at, message, false));
    }

    /// Whether any problem was found.
    pub(crate) fn has_problems(&self) -> bool {
        !self.problems.is_empty()
    }

    /// The configuration, or every problem in file order.
    ///
    /// # Errors
    /// [`Error::Config`] when a problem was found.
    pub(crate) fn finish(mut self, name: &str, text: &str) -> Result<Config, Error> {
        if self.problems.is_empty() {
            return Ok(self.config);
        }
        let syntax: Vec<usize> = self.problems.iter().filter(|p| p.2).map(|p| p.0).collect();
        self.problems.retain(|(at, _, is_syntax)| *is_syntax || !syntax.contains(at));
        self.problems.sort_by_key(|(at, _, is_syntax)| (*at, !*is_syntax));
        let problems = self
            .problems
            .into_iter()
            .map(|(at, message, _)| {
                let (line, column) = position(text, at);
                Problem { line, column, message }
            })
            .collect();
        Err(Error::Config { file: name.to_owned(), problems })
    }
}

/// The top-level keys, for "did you mean".
const KEYS: &[&str] = &["fail-on", "baseline", "severity", "ignore", "accept", "include", "exclude"];
const IGNORE_KEYS: &[&str] = &["tool", "pointer", "rule", "reason"];
const ACCEPT_KEYS: &[&str] = &["fingerprint", "rule", "tool", "pointer", "evidence", "reason", "expires"];

/// 1-based line and column of a byte offset.
pub(crate) fn position(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Collects problems by byte offset; [`Parsed::finish`] puts them in file order.
struct Checker<'t> {
    text: &'t str,
    problems: Vec<(usize, String)>,
}

type Value<'i> = Spanned<DeValue<'i>>;

impl Checker<'_> {
    fn problem(&mut self, span: &Range<usize>, message: impl Into<String>) {
        self.problems.push((span.start, message.into()));
    }

    fn unknown_key(&mut self, key: &Spanned<std::borrow::Cow<'_, str>>, known: &[&str], within: &str) {
        let name = key.get_ref().as_ref();
        let hint = closest(name, known).map(|c| format!("; did you mean `{c}`?")).unwrap_or_default();
        let place = if within.is_empty() { String::new() } else { format!(" in {within}") };
        self.problem(&key.span(), format!("unknown key `{name}`{place}{hint}"));
    }

    fn string(&mut self, key: &str, value: &Value<'_>) -> Option<String> {
        match value.get_ref() {
            DeValue::String(s) => Some(s.to_string()),
            other => {
                self.problem(&value.span(), format!("`{key}` must be a string, found {}", describe(other)));
                None
            }
        }
    }

    /// An array of strings (`include`, `exclude`).
    fn strings(&mut self, key: &str, value: &Value<'_>) -> Vec<String> {
        let DeValue::Array(items) = value.get_ref() else {
            let found = describe(value.get_ref());
            self.problem(&value.span(), format!("`{key}` must be an array of glob strings, found {found}"));
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            match item.get_ref() {
                DeValue::String(s) if !s.is_empty() => out.push(s.to_string()),
                DeValue::String(_) => self.problem(&item.span(), format!("`{key}` holds an empty glob")),
                other => {
                    self.problem(&item.span(), format!("`{key}` must hold glob strings, found {}", describe(other)));
                }
            }
        }
        out
    }

    /// The entries of an array of tables (`[[ignore]]`, `[[accept]]`), with their spans.
    fn tables<'v, 'i>(&mut self, key: &str, value: &'v Value<'i>) -> Vec<(&'v DeTable<'i>, Range<usize>)> {
        let DeValue::Array(items) = value.get_ref() else {
            let found = describe(value.get_ref());
            self.problem(&value.span(), format!("`{key}` must be an array of tables (`[[{key}]]`), found {found}"));
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            match item.get_ref() {
                DeValue::Table(t) => out.push((t, item.span())),
                other => self.problem(&item.span(), format!("`{key}` must hold tables, found {}", describe(other))),
            }
        }
        out
    }

    fn fail_on(&mut self, value: &Value<'_>) -> Option<FailOn> {
        let s = self.string("fail-on", value)?;
        let level = match s.as_str() {
            "error" => FailOn::Error,
            "warning" => FailOn::Warning,
            "info" => FailOn::Info,
            "never" => FailOn::Never,
            _ => {
                let message = format!("`fail-on` must be `error`, `warning`, `info` or `never`, found `{s}`");
                self.problem(&value.span(), message);
                return None;
            }
        };
        Some(level)
    }

    fn severity(&mut self, value: &Value<'_>) -> BTreeMap<String, Level> {
        let mut out = BTreeMap::new();
        let DeValue::Table(table) = value.get_ref() else {
            let found = describe(value.get_ref());
            self.problem(&value.span(), format!("`severity` must be a table (`[severity]`), found {found}"));
            return out;
        };
        for (key, value) in table {
            let rule = key.get_ref().as_ref();
            let known = self.rule(rule, &key.span());
            let Some(level) = self.string(rule, value) else { continue };
            let level = match level.as_str() {
                "error" => Level::Error,
                "warning" => Level::Warning,
                "info" => Level::Info,
                "off" => Level::Off,
                _ => {
                    let message =
                        format!("the level of `{rule}` must be `error`, `warning`, `info` or `off`, found `{level}`");
                    self.problem(&value.span(), message);
                    continue;
                }
            };
            if known {
                out.insert(rule.to_owned(), level);
            }
        }
        out
    }

    /// Whether `rule` is a rule id; a problem at `span` when not.
    fn rule(&mut self, rule: &str, span: &Range<usize>) -> bool {
        if RuleId::from_id(rule).is_some() {
            return true;
        }
        let hint = crate::catalog::closest(rule).map(|c| format!("; did you mean `{c}`?")).unwrap_or_default();
        self.problem(span, format!("unknown rule `{rule}`{hint}"));
        false
    }

    fn ignore(&mut self, table: &DeTable<'_>, span: &Range<usize>) -> Ignore {
        let mut ignore = Ignore { line: position(self.text, span.start).0, ..Ignore::default() };
        for (key, value) in table {
            let name = key.get_ref().as_ref();
            let slot = match name {
                "tool" => &mut ignore.tool,
                "pointer" => &mut ignore.pointer,
                "rule" => &mut ignore.rule,
                "reason" => &mut ignore.reason,
                _ => {
                    self.unknown_key(key, IGNORE_KEYS, "[[ignore]]");
                    continue;
                }
            };
            *slot = self.string(name, value);
            if name == "rule"
                && let Some(rule) = slot.clone()
            {
                self.rule(&rule, &value.span());
            }
        }
        ignore
    }

    fn accept(&mut self, table: &DeTable<'_>, span: &Range<usize>) -> Accept {
        let mut accept = Accept { line: position(self.text, span.start).0, ..Accept::default() };
        let mut reason = None;
        for (key, value) in table {
            let name = key.get_ref().as_ref();
            let slot = match name {
                "fingerprint" => &mut accept.fingerprint,
                "rule" => &mut accept.rule,
                "tool" => &mut accept.tool,
                "pointer" => &mut accept.pointer,
                "evidence" => &mut accept.evidence,
                "reason" => &mut reason,
                "expires" => {
                    accept.expires = self.expires(value);
                    continue;
                }
                _ => {
                    self.unknown_key(key, ACCEPT_KEYS, "[[accept]]");
                    continue;
                }
            };
            *slot = self.string(name, value);
            if name == "rule"
                && let Some(rule) = slot.clone()
            {
                self.rule(&rule, &value.span());
            }
            if name == "evidence"
                && let Some(e) = slot.as_deref()
                && !(e.len() == 16 && e.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
            {
                let message =
                    format!("`evidence` must be 16 hex digits as `mcp-drift baseline write` records it, found `{e}`");
                self.problem(&value.span(), message);
            }
            if name == "reason" && slot.as_deref().is_some_and(|r| r.trim().is_empty()) {
                self.problem(&value.span(), "an accepted change needs a non-empty `reason`");
            }
        }
        if accept.fingerprint.is_none() && (accept.rule.is_none() || accept.tool.is_none()) {
            let message = "an accepted change needs `fingerprint`, or `rule` and `tool` (and optionally `pointer`)";
            self.problem(span, message);
        }
        if !table.iter().any(|(k, _)| k.get_ref().as_ref() == "reason") {
            self.problem(span, "an accepted change needs a `reason` (missing field `reason`)");
        }
        accept.reason = reason.unwrap_or_default();
        accept
    }

    /// `expires`: a TOML local date (`2027-01-31`) or a quoted one (`"2027-01-31"`) that exists.
    fn expires(&mut self, value: &Value<'_>) -> Option<String> {
        let checked = match value.get_ref() {
            DeValue::String(s) => date::parse(s)
                .map_err(|why| if why.starts_with('`') { why } else { format!("`expires` {why}, found `{s}`") }),
            DeValue::Datetime(dt) => match (dt.date, dt.time, dt.offset) {
                (Some(d), None, None) => match date::impossible(d.year.into(), d.month.into(), d.day.into()) {
                    Some(why) => Err(format!("`{d}` is not a date: {why}")),
                    None => Ok(d.to_string()),
                },
                _ => Err(format!("`expires` must be a date (YYYY-MM-DD), not a date-time or time, found `{dt}`")),
            },
            other => Err(format!("`expires` must be a date written YYYY-MM-DD, found {}", describe(other))),
        };
        checked.map_err(|message| self.problem(&value.span(), message)).ok()
    }
}

/// What a value is, for "found ...".
fn describe(value: &DeValue<'_>) -> String {
    match value {
        DeValue::String(s) => format!("string `{s}`"),
        DeValue::Integer(i) => format!("integer {}", i.as_str()),
        DeValue::Float(f) => format!("float {}", f.as_str()),
        DeValue::Boolean(b) => format!("boolean {b}"),
        DeValue::Datetime(d) => format!("date-time {d}"),
        DeValue::Array(_) => "an array".into(),
        DeValue::Table(_) => "a table".into(),
    }
}

/// The nearest of `known` to a misspelled key, when it is close.
fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(name, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Checks the text of a configuration file; [`Parsed::finish`] reports what it found.
pub(crate) fn parse(text: &str) -> Parsed {
    let mut checker = Checker { text, problems: Vec::new() };
    let (root, errors) = DeTable::parse_recoverable(text);
    let mut parsed = Parsed::default();
    for e in errors {
        parsed.problems.push((e.span().map_or(0, |s| s.start), e.message().trim().to_owned(), true));
    }
    for (key, value) in root.get_ref() {
        let config = &mut parsed.config;
        match key.get_ref().as_ref() {
            "fail-on" => config.fail_on = checker.fail_on(value),
            "baseline" => {
                parsed.baseline_at = value.span().start;
                config.baseline = match checker.string("baseline", value) {
                    Some(p) if p.is_empty() => {
                        checker.problem(&value.span(), "`baseline` must name a file");
                        None
                    }
                    other => other.map(PathBuf::from),
                };
            }
            "severity" => config.severity = checker.severity(value),
            "ignore" => {
                for (table, span) in checker.tables("ignore", value) {
                    config.ignore.push(checker.ignore(table, &span));
                }
            }
            "accept" => {
                for (table, span) in checker.tables("accept", value) {
                    config.accept.push(checker.accept(table, &span));
                }
            }
            "include" => config.include = checker.strings("include", value),
            "exclude" => config.exclude = checker.strings("exclude", value),
            _ => checker.unknown_key(key, KEYS, ""),
        }
    }
    // Entries in file order, whatever order the table keeps.
    parsed.config.ignore.sort_by_key(|i| i.line);
    parsed.config.accept.sort_by_key(|a| a.line);
    parsed.problems.extend(checker.problems.into_iter().map(|(at, message)| (at, message, false)));
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_and_exclude_are_parsed_in_order() {
        let text = "include = [\"pkg/**/*.snap\", \"tools.json\"]\nexclude = [\"**/*_ff_*.snap\"]\n";
        let config = parse(text).finish("c.toml", text).unwrap();
        assert_eq!(config.include, ["pkg/**/*.snap", "tools.json"]);
        assert_eq!(config.exclude, ["**/*_ff_*.snap"]);
    }

    #[test]
    fn dates_are_normalized_whatever_their_spelling() {
        for expires in ["2027-01-31", "\"2027-01-31\""] {
            let text = format!("[[accept]]\nfingerprint = \"f\"\nreason = \"r\"\nexpires = {expires}\n");
            let config = parse(&text).finish("c.toml", &text).unwrap();
            assert_eq!(config.accept[0].expires.as_deref(), Some("2027-01-31"));
            assert_eq!(config.accept[0].line, 1);
        }
    }

    #[test]
    fn positions_count_characters_and_survive_odd_offsets() {
        assert_eq!(position("a\nbé c", 6), (2, 4));
        assert_eq!(position("é", 1), (1, 1), "inside a character");
        assert_eq!(position("ab", 99), (1, 3));
    }
}
