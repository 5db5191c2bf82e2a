//! `--format github`: GitHub Actions workflow commands, one per finding, anchored to the new file (the
//! old file for removals), with the escaping GitHub requires.

use std::fmt::Write as _;

use crate::Analysis;
use crate::catalog::Severity;

/// Escapes the message part of a workflow command.
fn data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a property value (`file=`, `title=`): also `:` and `,`.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

#[must_use]
pub fn render(analysis: &Analysis) -> String {
    let mut out = String::new();
    for f in &analysis.findings {
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let at = if f.at_old || f.new.is_none() { f.old.as_ref().or(f.new.as_ref()) } else { f.new.as_ref() };
        let mut props = Vec::new();
        if let Some(l) = at {
            props.push(format!("file={}", property(&l.path)));
            props.push(format!("line={}", l.line));
            props.push(format!("col={}", l.column));
        }
        props.push(format!("title={}", property(&format!("{} ({})", f.rule.as_str(), crate::load::escape(&f.tool)))));
        let message = format!("{}\n\nWhy: {}\nMigration: {}", f.message, f.why, f.migration);
        let _ = writeln!(out, "::{command} {}::{}", props.join(","), data(&crate::load::escape(&message)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(data("50% a\r\nb"), "50%25 a%0D%0Ab");
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
    }
}
