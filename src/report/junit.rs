//! `--format junit`: one test case per tool; findings at or above `--fail-on` are failures, the rest are
//! listed in `system-out`. GitLab and Jenkins read it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::Analysis;
use crate::catalog::Severity;
use crate::checks::Finding;

/// Text for an XML 1.0 attribute or element: escaped by [`crate::text::escape`] first (so no
/// character XML 1.0 forbids, such as U+0000-U+0008 or U+FFFE, and no raw line break remains), then
/// the five markup characters as entities.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in crate::text::escape(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The test case of findings about the whole snapshot.
const ALL_TOOLS: &str = "(all tools)";

/// `fail_on`: the lowest severity that fails a test case (`None`: nothing fails).
#[must_use]
pub fn render(analysis: &Analysis, fail_on: Option<Severity>) -> String {
    // A finding about the whole snapshot (`lint-open-input`) has no tool: its own test case.
    fn case(f: &Finding) -> &str {
        if f.is_summary() { ALL_TOOLS } else { f.tool.as_str() }
    }
    let mut tools: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    let mut accepted: BTreeMap<&str, Vec<(&Finding, &str)>> = BTreeMap::new();
    for (f, reason) in &analysis.suppressed {
        accepted.entry(case(f)).or_default().push((f, reason));
    }
    for name in analysis.old.tools.keys().chain(analysis.new.tools.keys()) {
        tools.entry(name).or_default();
    }
    for (f, _) in &analysis.suppressed {
        tools.entry(case(f)).or_default();
    }
    for f in &analysis.findings {
        tools.entry(case(f)).or_default().push(f);
    }
    let fails = |f: &Finding| fail_on.is_some_and(|t| f.severity >= t);
    let failures = tools.values().filter(|fs| fs.iter().any(|f| fails(f))).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(out, "<testsuites name=\"mcp-drift\" tests=\"{}\" failures=\"{failures}\">", tools.len());
    let _ = writeln!(out, "  <testsuite name=\"mcp-drift\" tests=\"{}\" failures=\"{failures}\">", tools.len());
    if !analysis.notes.is_empty() {
        out.push_str("    <properties>\n");
        for note in &analysis.notes {
            let _ = writeln!(out, "      <property name=\"note\" value=\"{}\"/>", xml(note));
        }
        out.push_str("    </properties>\n");
    }
    for (tool, findings) in tools {
        let _ = write!(out, "    <testcase classname=\"mcp-drift\" name=\"{}\"", xml(tool));
        let suppressed = accepted.get(tool).map_or(&[][..], Vec::as_slice);
        if findings.is_empty() && suppressed.is_empty() {
            out.push_str("/>\n");
            continue;
        }
        out.push_str(">\n");
        for f in findings.iter().filter(|f| fails(f)) {
            let _ = writeln!(
                out,
                "      <failure type=\"{}\" message=\"{}\">{}\n{}</failure>",
                f.rule.as_str(),
                xml(&f.message),
                xml(&format!("{} at {}", f.severity, f.pointer)),
                format_args!("Why: {}\nMigration: {}", xml(&f.why), xml(&f.migration))
            );
        }
        let rest: Vec<String> = findings
            .iter()
            .filter(|f| !fails(f))
            .map(|f| format!("{}[{}]: {}", f.severity, f.rule.as_str(), xml(&f.message)))
            .chain(suppressed.iter().map(|(f, reason)| {
                format!("suppressed {}[{}] at {}: {}", f.severity, f.rule.as_str(), xml(&f.pointer), xml(reason))
            }))
            .collect();
        if !rest.is_empty() {
            let _ = writeln!(out, "      <system-out>{}</system-out>", rest.join("\n"));
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    match crate::text::guard(&out) {
        std::borrow::Cow::Borrowed(_) => out,
        std::borrow::Cow::Owned(guarded) => guarded,
    }
}
