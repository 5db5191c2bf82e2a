//! `mcp-drift replay`: recorded calls and results against the new contract.
//!
//! Takes an [`Analysis`] whose `new` side is the snapshot about to ship (with an old side and the
//! findings of `diff OLD NEW` when `--old` is given) and calls files (JSON Lines in the shapes
//! [`parse`] reads); adds one finding per distinct failure (`replay-*` rules: rule, tool, schema
//! location or argument, reason) with the number of recorded calls and the first one as an example, and
//! run notes that count everything else. With an old side, each replay finding names the diff finding
//! that explains it, and each diff finding that explains some says how many recorded calls it affects.
//!
//! Promises: files are streamed line by line and never held (a line over
//! [`Options::max_line_bytes`] is skipped and counted); at most [`Options::max_pending`] requests wait
//! for their response per file and at most [`Options::max_groups`] failures are itemized (the rest are
//! counted); validators are built once per tool, on first use ([`check`]); no value from the calls
//! reaches a finding unless [`Options::show_values`], and then clipped ([`values`]). A line that is not
//! JSON is counted, not fatal; a calls file that cannot be opened is an error.

pub mod check;
pub mod parse;
mod tie;
pub mod values;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Read;

use serde_json::Value;

use crate::Analysis;
use crate::catalog::RuleId;
use crate::checks::Finding;
use crate::compare::witness::Witness;
use crate::error::Error;
use crate::guard::wire::{Frame, Lines};
use crate::load::Tool;
use check::{Declared, Schema, Verdict};
use parse::{Event, Recorded};

/// How much one replay holds and what it shows.
#[derive(Clone, Debug)]
pub struct Options {
    /// Show recorded values (clipped) in examples instead of their kinds.
    pub show_values: bool,
    /// Longer lines are skipped and counted.
    pub max_line_bytes: usize,
    /// Requests waiting for their response, per file; more are not matched (and counted).
    pub max_pending: usize,
    /// Distinct failures itemized; calls of further ones are counted in a note.
    pub max_groups: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options { show_values: false, max_line_bytes: 16 << 20, max_pending: 100_000, max_groups: 10_000 }
    }
}

/// A calls file as named on the command line (`-` is standard input).
#[derive(Clone, Debug)]
pub enum Calls {
    Path(std::path::PathBuf),
    Stdin,
}

impl Calls {
    #[must_use]
    pub fn parse(s: &str) -> Calls {
        if s == "-" { Calls::Stdin } else { Calls::Path(s.into()) }
    }

    /// The name reports use.
    #[must_use]
    pub fn label(&self) -> String {
        match self {
            Calls::Path(p) => p.display().to_string(),
            Calls::Stdin => "<stdin>".into(),
        }
    }
}

/// What one replay saw, for the closing line.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub lines: u64,
    /// Calls, audit lines included.
    pub calls: u64,
    /// Recorded results with a `structuredContent` checked against an `outputSchema`.
    pub results: u64,
}

/// A place in a calls file: its index in the run's list, and a 1-based line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct At {
    file: usize,
    line: u64,
}

/// One distinct failure.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Key {
    rule: RuleId,
    tool: String,
    pointer: String,
    reason: String,
}

#[derive(Debug)]
struct Group {
    count: u64,
    first: At,
    example: Value,
    keyword: String,
    /// The instance location of the example's failure.
    instance_path: String,
    /// The argument (ignored) or property (`required`) the group is about.
    name: Option<String>,
}

/// The checks of one tool of NEW, built on its first call.
struct Checks<'a> {
    input: Schema<'a>,
    output: Option<Schema<'a>>,
    declared: Declared,
}

/// Counts that become the run notes.
#[derive(Default)]
struct Counts {
    blank: u64,
    unparseable: (u64, Option<At>),
    too_long: (u64, Option<At>),
    unnamed: u64,
    audit: u64,
    accepted: u64,
    rejected: u64,
    ignored: u64,
    removed: u64,
    unusable_tool: u64,
    not_validated: BTreeMap<&'static str, u64>,
    described: u64,
    undescribed: u64,
    results_not_checked: BTreeMap<&'static str, u64>,
    orphans: u64,
    pending_overflow: u64,
    not_itemized: u64,
}

struct Replayer<'a> {
    tools: Vec<&'a Tool>,
    /// Each tool's key in NEW (its identity, which findings are located by).
    keys: Vec<&'a str>,
    index: HashMap<&'a str, usize>,
    /// Tools of NEW that cannot be compared (no usable schema): their calls are not validated.
    unusable: std::collections::HashSet<&'a str>,
    checks: Vec<Option<Checks<'a>>>,
    groups: HashMap<Key, Group>,
    fuel: u64,
    counts: Counts,
    stats: Stats,
    options: &'a Options,
}

/// Replays every calls file against `analysis.new` and adds the findings and notes to `analysis`.
///
/// # Errors
/// When a calls file cannot be opened or read.
pub fn replay(analysis: &mut Analysis, calls: &[Calls], options: &Options) -> Result<Stats, Error> {
    let names: Vec<String> = calls.iter().map(Calls::label).collect();
    run(analysis, &names, options, |file| match &calls[file] {
        Calls::Stdin => Ok(Box::new(std::io::stdin().lock())),
        Calls::Path(path) => std::fs::File::open(path)
            .map(|f| Box::new(f) as Box<dyn Read>)
            .map_err(|e| Error::Io { path: names[file].clone(), message: e.to_string() }),
    })
}

/// [`replay`] of one stream of recorded lines named `name` (tests and embedding).
///
/// # Errors
/// When the stream cannot be read.
pub fn replay_reader(analysis: &mut Analysis, name: &str, input: impl Read, options: &Options) -> Result<Stats, Error> {
    let mut input = Some(input);
    run(analysis, &[name.to_owned()], options, |_| match input.take() {
        Some(i) => Ok(Box::new(i) as Box<dyn Read + '_>),
        None => Err(Error::Io { path: name.to_owned(), message: "read twice".into() }),
    })
}

/// Reads each named input (opened by `open`, one after the other) and adds the findings and notes.
fn run<'r>(
    analysis: &mut Analysis,
    names: &[String],
    options: &Options,
    mut open: impl FnMut(usize) -> Result<Box<dyn Read + 'r>, Error>,
) -> Result<Stats, Error> {
    let (groups, counts, stats) = {
        let mut r = Replayer::new(analysis, options);
        for (file, name) in names.iter().enumerate() {
            r.read(file, open(file)?, name)?;
        }
        (r.groups, r.counts, r.stats)
    };
    let mut replayed = findings(analysis, groups, names);
    if !analysis.old.label.is_empty() {
        tie::tie(&mut analysis.findings, &mut replayed);
    }
    analysis.findings.extend(replayed.into_iter().map(|r| r.finding));
    crate::checks::sort(&mut analysis.findings);
    analysis.notes.extend(notes(&counts, &stats, names, options));
    Ok(stats)
}

impl<'a> Replayer<'a> {
    fn new(analysis: &'a Analysis, options: &'a Options) -> Replayer<'a> {
        let tools: Vec<&Tool> = analysis.new.tools.values().collect();
        let keys: Vec<&str> = analysis.new.tools.keys().map(String::as_str).collect();
        let mut index = HashMap::new();
        // The published name first, then the identity (which differs in per-tool directories only).
        for (i, (key, tool)) in analysis.new.tools.iter().enumerate() {
            index.entry(tool.published_name()).or_insert(i);
            index.entry(key.as_str()).or_insert(i);
        }
        let unusable = analysis.new.problems.iter().map(|p| p.tool.name.as_str()).collect();
        let checks = tools.iter().map(|_| None).collect();
        Replayer {
            tools,
            keys,
            index,
            unusable,
            checks,
            groups: HashMap::new(),
            fuel: check::MAX_TOTAL_COST,
            counts: Counts::default(),
            stats: Stats::default(),
            options,
        }
    }

    fn read(&mut self, file: usize, input: impl Read, name: &str) -> Result<(), Error> {
        let mut lines = Lines::new(input, self.options.max_line_bytes);
        // Request id -> (tool index in NEW, when it has one).
        let mut pending: HashMap<String, Option<usize>> = HashMap::new();
        let mut line = 0u64;
        loop {
            let frame = lines.next_frame().map_err(|e| Error::Io { path: name.to_owned(), message: e.to_string() })?;
            line += 1;
            let at = At { file, line };
            let bytes = match frame {
                Frame::Eof => break,
                Frame::TooLong(_) => {
                    self.stats.lines += 1;
                    note_first(&mut self.counts.too_long, at);
                    continue;
                }
                Frame::Line(bytes) => bytes,
            };
            self.stats.lines += 1;
            if crate::guard::wire::is_blank(&bytes) {
                self.counts.blank += 1;
                continue;
            }
            let Ok(events) = parse::events(&bytes) else {
                note_first(&mut self.counts.unparseable, at);
                continue;
            };
            drop(bytes);
            for event in events {
                self.event(event, at, &mut pending);
            }
        }
        Ok(())
    }

    fn event(&mut self, event: Event, at: At, pending: &mut HashMap<String, Option<usize>>) {
        match event {
            Event::Call { id, tool, arguments, result } => {
                let index = self.call(&tool, &arguments.unwrap_or_else(|| Value::Object(serde_json::Map::new())), at);
                if let Some(id) = id {
                    if pending.len() >= self.options.max_pending && !pending.contains_key(&id) {
                        self.counts.pending_overflow += 1;
                    } else {
                        // A later request reusing an id replaces the one still waiting.
                        pending.insert(id, index);
                    }
                }
                if let (Some(i), Some(result)) = (index, result) {
                    self.result(i, result, at);
                }
            }
            Event::Response { id, result } => match pending.remove(&id) {
                Some(Some(i)) => self.result(i, result, at),
                Some(None) => {}
                None => self.counts.orphans += 1,
            },
            Event::Audit { tool } => {
                self.stats.calls += 1;
                self.counts.audit += 1;
                if !self.index.contains_key(tool.as_str()) && !self.unusable.contains(tool.as_str()) {
                    self.removed(&tool, &Value::Null, at);
                }
            }
            Event::Request { id } => {
                if pending.len() < self.options.max_pending || pending.contains_key(&id) {
                    pending.insert(id, None);
                }
            }
            Event::Unnamed => self.counts.unnamed += 1,
            Event::Other => {}
        }
    }

    /// Judges one call; returns the tool's index in NEW.
    fn call(&mut self, tool: &str, arguments: &Value, at: At) -> Option<usize> {
        self.stats.calls += 1;
        let Some(&i) = self.index.get(tool) else {
            if self.unusable.contains(tool) {
                self.counts.unusable_tool += 1;
            } else {
                self.removed(tool, arguments, at);
            }
            return None;
        };
        let tool = self.keys[i];
        let Some(checks) = self.take_checks(i) else { return Some(i) };
        match checks.input.check(arguments, &mut self.fuel) {
            Verdict::Skipped(why) => *self.counts.not_validated.entry(why).or_default() += 1,
            Verdict::Invalid(failures) => {
                self.counts.rejected += 1;
                for r in failures {
                    let name = (r.keyword == "required")
                        .then(|| r.reason.strip_prefix('`').and_then(|s| s.split('`').next()).map(str::to_owned))
                        .flatten();
                    let key = Key {
                        rule: RuleId::ReplayCallRejected,
                        tool: tool.to_owned(),
                        pointer: format!("/inputSchema{}", r.schema_path),
                        reason: r.reason,
                    };
                    self.group(key, at, arguments, r.keyword, r.instance_path, name);
                }
            }
            Verdict::Valid => {
                self.counts.accepted += 1;
                let undeclared: Vec<String> = match arguments {
                    Value::Object(m) if !checks.declared.open => {
                        // Names come from the calls: clipped, so that a hostile name costs little to key.
                        let clipped = |k: &String| crate::text::clip(k, 100).into_owned();
                        m.keys().filter(|k| !checks.declared.has(k)).take(8).map(clipped).collect()
                    }
                    _ => Vec::new(),
                };
                if !undeclared.is_empty() {
                    self.counts.ignored += 1;
                }
                for name in undeclared {
                    let key = Key {
                        rule: RuleId::ReplayArgumentIgnored,
                        tool: tool.to_owned(),
                        pointer: format!("/inputSchema/properties/{}", pointer_token(&name)),
                        reason: String::new(),
                    };
                    let path = format!("/{}", pointer_token(&name));
                    self.group(key, at, arguments, String::new(), path, Some(name));
                }
            }
        }
        self.checks[i] = Some(checks);
        Some(i)
    }

    fn result(&mut self, i: usize, result: Recorded, at: At) {
        let tool = self.keys[i];
        let value = match result {
            Recorded::Structured(v) => v,
            Recorded::ToolError => {
                return *self.counts.results_not_checked.entry("the call failed (isError)").or_default() += 1;
            }
            Recorded::RpcError => {
                return *self.counts.results_not_checked.entry("the call was answered with an error").or_default() += 1;
            }
            Recorded::Unstructured => {
                return *self.counts.results_not_checked.entry("the result has no structuredContent").or_default() += 1;
            }
        };
        let Some(checks) = self.take_checks(i) else { return };
        let verdict = checks.output.as_ref().map(|o| o.check(&value, &mut self.fuel));
        self.checks[i] = Some(checks);
        let Some(verdict) = verdict else {
            *self.counts.results_not_checked.entry("the tool declares no outputSchema in NEW").or_default() += 1;
            return;
        };
        self.stats.results += 1;
        match verdict {
            Verdict::Valid => self.counts.described += 1,
            Verdict::Skipped(why) => *self.counts.results_not_checked.entry(why).or_default() += 1,
            Verdict::Invalid(failures) => {
                self.counts.undescribed += 1;
                for r in failures {
                    let key = Key {
                        rule: RuleId::ReplayResultUndescribed,
                        tool: tool.to_owned(),
                        pointer: format!("/outputSchema{}", r.schema_path),
                        reason: r.reason,
                    };
                    self.group(key, at, &value, r.keyword, r.instance_path, None);
                }
            }
        }
    }

    fn removed(&mut self, tool: &str, arguments: &Value, at: At) {
        self.counts.removed += 1;
        // Tool names come from the calls: clipped, so that a hostile name costs little to key.
        let key = Key {
            rule: RuleId::ReplayToolRemoved,
            tool: crate::text::clip(tool, 200).into_owned(),
            pointer: String::new(),
            reason: String::new(),
        };
        self.group(key, at, arguments, String::new(), String::new(), None);
    }

    /// The checks of tool `i`, built on first use; the caller puts them back.
    fn take_checks(&mut self, i: usize) -> Option<Checks<'a>> {
        static TRUE: Value = Value::Bool(true);
        static NULL: Value = Value::Null;
        let tool = self.tools.get(i)?;
        let slot = self.checks.get_mut(i)?;
        Some(slot.take().unwrap_or_else(|| {
            let value = tool.value();
            let input = Schema::new(value.get("inputSchema").unwrap_or(&TRUE));
            let output = value.get("outputSchema").filter(|s| !s.is_null()).map(Schema::new);
            let declared = Declared::of(value.get("inputSchema").unwrap_or(&NULL));
            Checks { input, output, declared }
        }))
    }

    fn group(
        &mut self,
        key: Key,
        at: At,
        instance: &Value,
        keyword: String,
        instance_path: String,
        name: Option<String>,
    ) {
        if let Some(g) = self.groups.get_mut(&key) {
            g.count += 1;
            return;
        }
        if self.groups.len() >= self.options.max_groups {
            self.counts.not_itemized += 1;
            return;
        }
        let example = values::shown(instance, self.options.show_values);
        self.groups.insert(key, Group { count: 1, first: at, example, keyword, instance_path, name });
    }
}

fn note_first(slot: &mut (u64, Option<At>), at: At) {
    slot.0 += 1;
    slot.1.get_or_insert(at);
}

/// A name as one JSON Pointer reference token.
fn pointer_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn plural(n: u64, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// `1 line was` / `2 lines were`.
fn were(n: u64, word: &str) -> String {
    format!("{} {}", plural(n, word), if n == 1 { "was" } else { "were" })
}

/// The groups as findings, located in NEW (or OLD, for a tool NEW lacks).
fn findings(analysis: &Analysis, groups: HashMap<Key, Group>, names: &[String]) -> Vec<tie::Replayed> {
    let mut groups: Vec<(Key, Group)> = groups.into_iter().collect();
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    groups
        .into_iter()
        .map(|(key, g)| {
            let meta = key.rule.meta();
            let place = |at: At| format!("{}:{}", names.get(at.file).map_or("?", String::as_str), at.line);
            let noun = if key.rule == RuleId::ReplayResultUndescribed { "result" } else { "call" };
            let what = if g.count == 1 {
                format!("1 recorded {noun} (at {})", place(g.first))
            } else {
                format!("{} (first at {})", plural(g.count, &format!("recorded {noun}")), place(g.first))
            };
            let path = if g.instance_path.is_empty() { "the root".to_owned() } else { g.instance_path.clone() };
            let name = g.name.clone().unwrap_or_default();
            let vars = [
                ("what", what),
                ("keyword", g.keyword.clone()),
                ("path", key.pointer.clone()),
                ("reason", key.reason.clone()),
                ("name", name.clone()),
                ("tool", key.tool.clone()),
                ("note", String::new()),
            ];
            let fill = |t: &str| crate::catalog::fill(t, &vars);
            let (new, old, at_old) = match (analysis.new.tools.get(&key.tool), analysis.old.tools.get(&key.tool)) {
                (Some(t), _) => (crate::checks::locate(t, &key.pointer, &analysis.sources), None, false),
                (None, Some(t)) => (None, crate::checks::locate(t, "", &analysis.sources), true),
                (None, None) => (None, None, false),
            };
            let because = match key.rule {
                RuleId::ReplayArgumentIgnored => {
                    format!(
                        "not rejected: `{name}` is not declared, so validation passes and the value is silently ignored"
                    )
                }
                RuleId::ReplayToolRemoved => format!("`{}` is not a tool of the new snapshot", key.tool),
                _ => format!("at {path}: {}", key.reason),
            };
            let example = if key.rule == RuleId::ReplayToolRemoved && g.example.is_null() {
                None
            } else {
                Some(Witness {
                    instance: g.example,
                    rejected_because: because,
                    dropped: key.rule == RuleId::ReplayArgumentIgnored,
                })
            };
            let finding = Finding {
                snapshot: None,
                rule: key.rule,
                severity: meta.severity,
                fingerprint: crate::checks::fingerprint(
                    meta.id,
                    &key.tool,
                    &format!("{}\u{0}{}\u{0}{name}", key.pointer, key.reason),
                ),
                tool: key.tool,
                pointer: key.pointer,
                from: None,
                message: fill(meta.message),
                why: fill(meta.why),
                migration: fill(meta.migration),
                old,
                new,
                notes: Vec::new(),
                at_old,
                witness: example,
                evidence: None,
                severity_reason: None,
            };
            tie::Replayed { finding, count: g.count, name: g.name }
        })
        .collect()
}

/// The run notes: what was replayed, and everything that was not judged.
fn notes(c: &Counts, stats: &Stats, names: &[String], options: &Options) -> Vec<String> {
    let place = |at: Option<At>| {
        at.map(|a| format!("{}:{}", names.get(a.file).map_or("?", String::as_str), a.line)).unwrap_or_default()
    };
    let mut out = Vec::new();
    let mut line = format!(
        "replayed {} from {}: {} accepted ({} with arguments the new schema does not declare), {} rejected, {} to tools NEW does not have",
        plural(stats.calls, "recorded call"),
        plural(names.len() as u64, "calls file"),
        c.accepted,
        c.ignored,
        c.rejected,
        c.removed,
    );
    let _ = write!(line, "; {}: {} described, {} not", plural(stats.results, "result"), c.described, c.undescribed);
    out.push(line);
    if c.audit > 0 {
        let (line, calls) = if c.audit == 1 {
            ("1 guard --audit line was".to_owned(), "a call to its tool")
        } else {
            (format!("{} guard --audit lines were", c.audit), "calls to their tools")
        };
        out.push(format!("{line} counted as {calls} and not validated (audit lines carry no arguments)"));
    }
    if c.unusable_tool > 0 {
        out.push(format!(
            "{} not validated: the tool has no usable contract in NEW (see `mcp-drift lint`)",
            were(c.unusable_tool, "call")
        ));
    }
    for (why, n) in &c.not_validated {
        out.push(format!("{} not validated: {why}", were(*n, "call")));
    }
    for (why, n) in &c.results_not_checked {
        out.push(format!("{} not checked: {why}", were(*n, "result")));
    }
    if c.unparseable.0 > 0 {
        out.push(format!(
            "{} not JSON and skipped (first at {})",
            were(c.unparseable.0, "line"),
            place(c.unparseable.1)
        ));
    }
    if c.too_long.0 > 0 {
        out.push(format!(
            "{} longer than {} bytes and skipped (first at {})",
            were(c.too_long.0, "line"),
            options.max_line_bytes,
            place(c.too_long.1)
        ));
    }
    if c.unnamed > 0 {
        out.push(format!("{} skipped: no string `params.name`", were(c.unnamed, "tools/call request")));
    }
    if c.orphans > 0 {
        out.push(format!("{} skipped: no recorded request has its id (in the same file)", were(c.orphans, "response")));
    }
    if c.pending_overflow > 0 {
        out.push(format!(
            "{} not matched to a response: {} other requests were still waiting for theirs",
            were(c.pending_overflow, "request"),
            options.max_pending
        ));
    }
    if c.not_itemized > 0 {
        out.push(format!(
            "{} counted, not itemized: they fail in ways beyond the first {} distinct failures",
            if c.not_itemized == 1 {
                "1 call or result was".to_owned()
            } else {
                format!("{} calls or results were", c.not_itemized)
            },
            options.max_groups
        ));
    }
    out
}
