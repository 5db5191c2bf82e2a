//! The default, compiler-style report (codespan-reporting), with labels in the new and the old file.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term::{self, Config, termcolor::Buffer};

use super::Summary;
use crate::Analysis;
use crate::catalog::Severity;
use crate::checks::Finding;
use crate::load::{FileId, Sources};
use crate::text::{clip, escape, needs_escape};

/// The source files as codespan sees them: hidden characters masked with same-length stand-ins, so byte
/// offsets stay valid and nothing invisible reaches the terminal; file names escaped.
struct Display<'a> {
    sources: &'a Sources,
    names: Vec<String>,
    texts: Vec<Cow<'a, str>>,
}

impl<'a> Display<'a> {
    fn new(sources: &'a Sources) -> Display<'a> {
        let texts = sources.files.iter().map(|f| mask(&f.text)).collect();
        let names = sources.files.iter().map(|f| escape(&f.name)).collect();
        Display { sources, names, texts }
    }
}

/// A character of a quoted source line that must not reach the terminal: everything [`needs_escape`]
/// names except LF, tab, and a CR that ends a line (CRLF).
fn masked(c: char, next: Option<char>) -> bool {
    needs_escape(c) && c != '\n' && c != '\t' && !(c == '\r' && next == Some('\n'))
}

/// Replaces masked characters with `?` repeated to the same UTF-8 length.
fn mask(text: &str) -> Cow<'_, str> {
    let mut chars = text.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if masked(c, chars.peek().copied()) {
            any = true;
            break;
        }
    }
    if !any {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if masked(c, chars.peek().copied()) {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

impl<'a> Files<'a> for Display<'a> {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, FilesError> {
        self.names.get(id).map(String::as_str).ok_or(FilesError::FileMissing)
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, FilesError> {
        self.texts.get(id).map(AsRef::as_ref).ok_or(FilesError::FileMissing)
    }

    fn line_index(&'a self, id: FileId, byte_index: usize) -> Result<usize, FilesError> {
        let starts = self.sources.files.get(id).ok_or(FilesError::FileMissing)?.line_starts();
        Ok(starts.partition_point(|&s| s <= byte_index).saturating_sub(1))
    }

    fn line_range(&'a self, id: FileId, line_index: usize) -> Result<Range<usize>, FilesError> {
        let file = self.sources.files.get(id).ok_or(FilesError::FileMissing)?;
        let starts = file.line_starts();
        let start =
            *starts.get(line_index).ok_or(FilesError::LineTooLarge { given: line_index, max: starts.len() - 1 })?;
        let end = starts.get(line_index + 1).copied().unwrap_or(file.text.len());
        Ok(start..end)
    }
}

/// Lines longer than this (minified snapshots) are not quoted: the location is printed instead.
const MAX_QUOTED_LINE: usize = 400;

fn long_line(sources: &Sources, loc: &crate::checks::Location) -> bool {
    let file = sources.get(loc.file);
    let starts = file.line_starts();
    let line = loc.line.saturating_sub(1);
    let start = starts.get(line).copied().unwrap_or(0);
    let end = starts.get(line + 1).copied().unwrap_or(file.text.len());
    end.saturating_sub(start) > MAX_QUOTED_LINE
}

fn diagnostic(f: &Finding, sources: &Sources) -> Diagnostic<FileId> {
    let base = match f.severity {
        Severity::Error => Diagnostic::error(),
        Severity::Warning => Diagnostic::warning(),
        Severity::Info => Diagnostic::note(),
    };
    let removal = f.new.is_none() || f.at_old;
    let mut labels = Vec::new();
    let mut places = Vec::new();
    let quoted = |loc: &crate::checks::Location| !long_line(sources, loc);
    // A lint finding has one place: "here", not "now".
    let now = if f.old.is_none() && f.rule.meta().direction == crate::catalog::RuleDirection::Snapshot {
        "here"
    } else {
        "now"
    };
    for (loc, word) in [(&f.new, now), (&f.old, "before")] {
        if let Some(l) = loc.as_ref().filter(|l| !quoted(l)) {
            places.push(format!("{word}: {}:{}:{}", escape(&l.path), l.line, l.column));
        }
    }
    if let Some(new) = f.new.as_ref().filter(|l| quoted(l)) {
        let label = if removal {
            Label::secondary(new.file, new.range.clone())
        } else {
            Label::primary(new.file, new.range.clone())
        };
        labels.push(label.with_message(now));
    }
    if let Some(old) = f.old.as_ref().filter(|l| quoted(l)) {
        let label = if removal {
            Label::primary(old.file, old.range.clone())
        } else {
            Label::secondary(old.file, old.range.clone())
        };
        labels.push(label.with_message("before"));
    }
    let mut notes: Vec<String> = places;
    notes.extend(f.notes.iter().map(|n| escape(n)));
    // An info finding can carry a witness of a strict-containment difference that the contract does not
    // count as a break (an undeclared name that became declared); it stays in JSON and out of the way.
    if let Some(w) = f.witness.as_ref().filter(|_| f.severity > Severity::Info) {
        notes.push(format!("witness: {}", escape(&clip(&w.instance.to_string(), 400))));
        let label = if w.dropped { "effect" } else { "rejected because" };
        notes.push(format!("{label}: {}", escape(&clip(&w.rejected_because, 400))));
    }
    notes.push(format!("why: {}", escape(&f.why)));
    notes.push(format!("help: {}", escape(&f.migration)));
    base.with_code(f.rule.as_str())
        .with_message(match (&f.snapshot, f.is_summary()) {
            (Some(file), false) => format!("{}: {}: {}", escape(file), escape(&f.tool), escape(&f.message)),
            (Some(file), true) => format!("{}: {}", escape(file), escape(&f.message)),
            // A finding about the whole snapshot (`lint-open-input`) has no tool to name.
            (None, true) => escape(&f.message),
            (None, false) => format!("{}: {}", escape(&f.tool), escape(&f.message)),
        })
        .with_labels(labels)
        .with_notes(notes)
}

/// Which command produced the analysis: what its clean line says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Run<'a> {
    /// `diff`: `no contract changes across 3 tools`.
    Diff,
    /// `lint`: `no lint findings across 3 tools`.
    Lint,
    /// `replay`: `no replay findings across 3 tools`.
    Replay,
    /// `verify`: `all 3 tools match mcp-tools.lock`, or, when some hashes moved without a contract
    /// finding, `no contract changes across 3 tools (1 tool differs from mcp-tools.lock in its hash
    /// only)`.
    Verify {
        /// The lock file as named on the command line.
        lock: &'a str,
        /// Tools whose hash differs from the lock's.
        drifted: usize,
    },
}

impl Run<'_> {
    /// The run `analysis` comes from when the caller does not say: `lint` builds analyses without an
    /// old side (no label, no tools); anything else is read as a `diff`.
    #[must_use]
    pub fn of(analysis: &Analysis) -> Run<'static> {
        if analysis.old.label.is_empty() && analysis.old.tools.is_empty() { Run::Lint } else { Run::Diff }
    }
}

fn tools(n: usize) -> String {
    format!("{n} tool{}", if n == 1 { "" } else { "s" })
}

/// How many tools the run looked at, as its clean line counts them: both sides' tools once for a
/// comparison, the new side's for `lint` and `replay`.
fn compared(analysis: &Analysis, run: Run<'_>) -> usize {
    match run {
        Run::Lint => analysis.new.tools.len() + analysis.new.repeated.len(),
        Run::Replay => analysis.new.tools.len(),
        Run::Diff | Run::Verify { .. } => {
            analysis.old.tools.keys().chain(analysis.new.tools.keys()).collect::<std::collections::BTreeSet<_>>().len()
        }
    }
}

/// The one line of a run without findings. Tools are counted once across both sides (a tool that
/// exists on either side is compared).
#[must_use]
pub fn clean_line(analysis: &Analysis, run: Run<'_>) -> String {
    let both = analysis.old.tools.keys().chain(analysis.new.tools.keys()).collect::<std::collections::BTreeSet<_>>();
    match run {
        Run::Diff => format!("no contract changes across {}", tools(both.len())),
        Run::Replay => format!("no replay findings across {}", tools(analysis.new.tools.len())),
        Run::Lint => {
            format!("no lint findings across {}", tools(analysis.new.tools.len() + analysis.new.repeated.len()))
        }
        Run::Verify { lock, drifted: 0 } => {
            let lock = escape(lock);
            match both.len() {
                0 => format!("no tools, as in {lock}"),
                1 => format!("1 tool matches {lock}"),
                n => format!("all {n} tools match {lock}"),
            }
        }
        Run::Verify { lock, drifted } => format!(
            "no contract changes across {} ({} differ{} from {} in {} hash only)",
            tools(both.len()),
            tools(drifted),
            if drifted == 1 { "s" } else { "" },
            escape(lock),
            if drifted == 1 { "its" } else { "their" }
        ),
    }
}

/// Renders every finding and a summary line; for a run without findings, the run notes and one line
/// that says so ([`clean_line`], with the run read from the analysis by [`Run::of`]).
#[must_use]
pub fn render(analysis: &Analysis, color: bool) -> String {
    render_run(analysis, color, Run::of(analysis))
}

/// [`render`] for a run the caller names.
#[must_use]
pub fn render_run(analysis: &Analysis, color: bool, run: Run<'_>) -> String {
    render_shown(analysis, color, run, true)
}

/// [`render_run`], printing `info` findings in full only with `show_infos`; without it each rule's
/// infos are counted on one line, so a real pair's three errors are not lost among seventy notes.
#[must_use]
pub fn render_shown(analysis: &Analysis, color: bool, run: Run<'_>, show_infos: bool) -> String {
    let display = Display::new(&analysis.sources);
    let config = Config::default();
    let mut buffer = if color { Buffer::ansi() } else { Buffer::no_color() };
    let mut hidden: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for f in &analysis.findings {
        if !show_infos && f.severity == Severity::Info {
            *hidden.entry(f.rule.as_str()).or_default() += 1;
            continue;
        }
        // A rendering failure for one finding (a span the file does not have) must not hide the rest.
        if term::emit_to_write_style(&mut buffer, &config, &display, &diagnostic(f, &analysis.sources)).is_err() {
            let d = Diagnostic { labels: Vec::new(), ..diagnostic(f, &analysis.sources) };
            let _ = term::emit_to_write_style(&mut buffer, &config, &display, &d);
        }
    }
    let mut out = String::from_utf8_lossy(buffer.as_slice()).into_owned();
    for (rule, n) in &hidden {
        let _ = writeln!(out, "info[{rule}]: {n} not shown (--show-infos or -v prints them)");
    }
    for note in &analysis.notes {
        let _ = writeln!(out, "note: {}", escape(note));
    }
    if analysis.findings.is_empty() && analysis.suppressed.is_empty() {
        out.push_str(&clean_line(analysis, run));
    } else {
        out.push_str(&Summary::of(&analysis.findings).line_of(compared(analysis, run)));
    }
    if !analysis.suppressed.is_empty() {
        let n = analysis.suppressed.len();
        let _ = write!(out, " ({n} finding{} suppressed by configuration or baseline)", if n == 1 { "" } else { "s" });
    }
    out.push('\n');
    for (f, reason) in &analysis.suppressed {
        let _ = writeln!(
            out,
            "suppressed: {} on {} at {}: {}",
            f.rule.as_str(),
            escape(&f.tool),
            escape(if f.pointer.is_empty() { "(tool)" } else { &f.pointer }),
            escape(reason)
        );
    }
    // Everything above is escaped; this catches workflow commands that quoted source lines or the
    // joins of escaped parts could still form.
    match crate::text::guard(&out) {
        Cow::Borrowed(_) => out,
        Cow::Owned(guarded) => guarded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_lines_count_tools_exactly() {
        let one = r#"{"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}"#;
        let a = crate::diff_texts(one, one).unwrap();
        assert_eq!(render(&a, false), "no contract changes across 1 tool\n");
        let two = r#"{"tools": [{"name": "a", "inputSchema": {"type": "object"}}, {"name": "b", "inputSchema": {"type": "object"}}]}"#;
        let mut a = crate::diff_texts(two, two).unwrap();
        assert_eq!(clean_line(&a, Run::Diff), "no contract changes across 2 tools");
        // A tool on one side only counts once in the union.
        a.new.tools.remove("b");
        assert_eq!(clean_line(&a, Run::Diff), "no contract changes across 2 tools");
        assert_eq!(clean_line(&a, Run::Verify { lock: "x.lock", drifted: 0 }), "all 2 tools match x.lock");
        assert_eq!(
            clean_line(&a, Run::Verify { lock: "x\n.lock", drifted: 1 }),
            "no contract changes across 2 tools (1 tool differs from x\\n.lock in its hash only)"
        );
        let lint = crate::lint_text(one, crate::lint::Options::default()).unwrap();
        assert_eq!(Run::of(&lint), Run::Lint);
        a.notes.push("a note".into());
        assert_eq!(render(&a, false), "note: a note\nno contract changes across 2 tools\n");
    }

    #[test]
    fn mask_keeps_offsets_and_hides_lone_cr() {
        let text = "a\rb\r\nc\u{2028}d\u{1b}]52;\u{202e}e\tf\n";
        let masked = mask(text);
        assert_eq!(masked, "a?b\r\nc???d?]52;???e\tf\n");
        assert_eq!(masked.len(), text.len(), "byte offsets stay valid");
        assert!(matches!(mask("plain\r\nlines\n"), Cow::Borrowed(_)));
    }
}
