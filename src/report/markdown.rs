//! `--format markdown`: a pull-request comment and changelog-ready "Migration notes" report: a summary
//! table by severity, then per tool the findings with their migration advice; long lists fold into
//! `<details>`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::Summary;
use crate::Analysis;
use crate::catalog::Severity;
use crate::checks::Finding;

/// Inline code that survives backticks and pipes in the text.
fn code(s: &str) -> String {
    let s = crate::load::escape(s).replace('|', "\\|");
    if s.contains('`') { format!("`` {s} ``") } else { format!("`{s}`") }
}

fn text(s: &str) -> String {
    crate::load::escape(s).replace('|', "\\|").replace('\n', " ").replace('<', "&lt;")
}

fn finding(out: &mut String, f: &Finding) {
    let _ = writeln!(out, "- **{}** {}: {}", f.severity, code(f.rule.as_str()), text(&f.message));
    let _ = writeln!(out, "  - Migration: {}", text(&f.migration));
    if let Some(w) = f.witness.as_ref().filter(|_| f.severity > Severity::Info) {
        let _ = writeln!(out, "  - Witness: {} ({})", code(&w.instance.to_string()), text(&w.rejected_because));
    }
}

#[must_use]
pub fn render(analysis: &Analysis) -> String {
    let s = Summary::of(&analysis.findings);
    let mut out = String::new();
    let _ = writeln!(out, "## Migration notes (mcp-drift)\n");
    let _ = writeln!(out, "{}\n", s.line());
    if analysis.findings.is_empty() {
        let _ = writeln!(out, "No contract changes.");
        return out;
    }
    let _ = writeln!(out, "| severity | findings |\n|---|---|");
    let _ = writeln!(out, "| error | {} |\n| warning | {} |\n| info | {} |\n", s.error, s.warning, s.info);
    let mut by_tool: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for f in &analysis.findings {
        by_tool.entry(&f.tool).or_default().push(f);
    }
    for (tool, findings) in by_tool {
        let _ = writeln!(out, "### {}\n", code(tool));
        let (loud, quiet): (Vec<&Finding>, Vec<&Finding>) =
            findings.into_iter().partition(|f| f.severity > Severity::Info);
        for f in &loud {
            finding(&mut out, f);
        }
        if !quiet.is_empty() {
            if quiet.len() > 3 || !loud.is_empty() {
                let _ = writeln!(
                    out,
                    "\n<details><summary>{} compatible change{}</summary>\n",
                    quiet.len(),
                    if quiet.len() == 1 { "" } else { "s" }
                );
                for f in &quiet {
                    finding(&mut out, f);
                }
                let _ = writeln!(out, "\n</details>");
            } else {
                for f in &quiet {
                    finding(&mut out, f);
                }
            }
        }
        out.push('\n');
    }
    out
}
