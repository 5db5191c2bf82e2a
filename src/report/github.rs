//! `--format github`: GitHub Actions workflow commands, one per finding, anchored to the repository path
//! ([`crate::checks::Location::artifact`], never `REV:PATH`) of the new file (the
//! old file for removals), with the escaping GitHub requires. These commands are the only workflow
//! commands the output contains: every value from the input is escaped first ([`crate::text::escape`]),
//! then `%`, CR and LF (and `:` and `,` in properties) are percent-encoded and `##[` is broken up.

use std::fmt::Write as _;

use crate::Analysis;
use crate::catalog::Severity;
use crate::checks::Finding;
use crate::text::escape;

/// More suppressed findings than this are summarized in one notice instead of one notice each.
const MAX_SUPPRESSED_NOTICES: usize = 10;

/// Escapes the message part of a workflow command.
fn data(s: &str) -> String {
    let s = s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
    if s.contains("##[") { s.replace("##[", "##\\[") } else { s }
}

/// Escapes a property value (`file=`, `title=`): also `:` and `,`.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

fn anchor(f: &Finding) -> Option<&crate::checks::Location> {
    if f.at_old || f.new.is_none() { f.old.as_ref().or(f.new.as_ref()) } else { f.new.as_ref() }
}

#[must_use]
pub fn render(analysis: &Analysis) -> String {
    let mut out = String::new();
    for note in &analysis.notes {
        let _ = writeln!(out, "::notice title=mcp-drift::{}", data(&escape(note)));
    }
    for f in &analysis.findings {
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut props = Vec::new();
        if let Some(l) = anchor(f) {
            props.push(format!("file={}", property(&escape(&l.artifact))));
            props.push(format!("line={}", l.line));
            props.push(format!("col={}", l.column));
        }
        let title = if f.is_summary() {
            f.rule.as_str().to_owned()
        } else {
            format!("{} ({})", f.rule.as_str(), escape(&f.tool))
        };
        props.push(format!("title={}", property(&title)));
        let message = format!("{}\n\nWhy: {}\nMigration: {}", escape(&f.message), escape(&f.why), escape(&f.migration));
        let _ = writeln!(out, "::{command} {}::{}", props.join(","), data(&message));
    }
    suppressed(&mut out, analysis);
    out
}

/// One notice per suppressed finding (rule, tool, pointer, reason), or one notice that counts and names
/// them when there are many.
fn suppressed(out: &mut String, analysis: &Analysis) {
    let all = &analysis.suppressed;
    let name = |(f, reason): &(Finding, String)| {
        format!("{} on {} at {}: {}", f.rule.as_str(), escape(&f.tool), escape(&f.pointer), escape(reason))
    };
    if all.len() <= MAX_SUPPRESSED_NOTICES {
        for s in all {
            let title = format!("suppressed {} ({})", s.0.rule.as_str(), escape(&s.0.tool));
            let _ = writeln!(out, "::notice title={}::{}", property(&title), data(&format!("suppressed: {}", name(s))));
        }
    } else {
        let shown = all.iter().take(MAX_SUPPRESSED_NOTICES).map(name).collect::<Vec<_>>().join("\n");
        let _ = writeln!(
            out,
            "::notice title={}::{}",
            property(&format!("{} findings suppressed", all.len())),
            data(&format!(
                "{} findings were suppressed by the configuration or the baseline:\n{shown}\n... and {} more (the JSON or SARIF output lists all of them)",
                all.len(),
                all.len() - MAX_SUPPRESSED_NOTICES
            ))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(data("50% a\r\nb"), "50%25 a%0D%0Ab");
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
        assert_eq!(data("x ##[error]y"), "x ##\\[error]y");
    }
}
