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
        .with_message(match &f.snapshot {
            Some(file) => format!("{}: {}: {}", escape(file), escape(&f.tool), escape(&f.message)),
            None => format!("{}: {}", escape(&f.tool), escape(&f.message)),
        })
        .with_labels(labels)
        .with_notes(notes)
}

/// Renders every finding and a summary line; nothing at all when there are no findings.
#[must_use]
pub fn render(analysis: &Analysis, color: bool) -> String {
    if analysis.findings.is_empty() && analysis.suppressed.is_empty() && analysis.notes.is_empty() {
        return String::new();
    }
    let display = Display::new(&analysis.sources);
    let config = Config::default();
    let mut buffer = if color { Buffer::ansi() } else { Buffer::no_color() };
    for f in &analysis.findings {
        // A rendering failure for one finding (a span the file does not have) must not hide the rest.
        if term::emit_to_write_style(&mut buffer, &config, &display, &diagnostic(f, &analysis.sources)).is_err() {
            let d = Diagnostic { labels: Vec::new(), ..diagnostic(f, &analysis.sources) };
            let _ = term::emit_to_write_style(&mut buffer, &config, &display, &d);
        }
    }
    let mut out = String::from_utf8_lossy(buffer.as_slice()).into_owned();
    for note in &analysis.notes {
        let _ = writeln!(out, "note: {}", escape(note));
    }
    out.push_str(&Summary::of(&analysis.findings).line());
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
    fn mask_keeps_offsets_and_hides_lone_cr() {
        let text = "a\rb\r\nc\u{2028}d\u{1b}]52;\u{202e}e\tf\n";
        let masked = mask(text);
        assert_eq!(masked, "a?b\r\nc???d?]52;???e\tf\n");
        assert_eq!(masked.len(), text.len(), "byte offsets stay valid");
        assert!(matches!(mask("plain\r\nlines\n"), Cow::Borrowed(_)));
    }
}
