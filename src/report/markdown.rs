//! `--format markdown`: a pull-request comment and changelog-ready "Migration notes" report: a summary
//! table by severity, then one section per severity (errors first, compatible changes folded into
//! `<details>`), per tool inside it, each finding with its places (linked to the repository's lines
//! when [`Links`] knows the revision), the word diff of a description edit (`<del>`/`<ins>`), and its
//! migration advice: a text several findings share is written once (`M1`) and referred to after.
//!
//! Everything from the input renders as text: names and witnesses in code spans whose fence is longer
//! than any backtick run inside, every other text with Markdown punctuation backslash-escaped, `<`, `>`
//! and `&` as entities, and mentions and bare links broken with a zero-width space entity. Newlines are
//! escaped ([`crate::text::escape`]), so nothing leaves its line or heading. The comment stays under
//! GitHub's 65,536-character limit: past [`FINDINGS_BUDGET`] the remaining findings are counted and
//! pointed to the JSON and SARIF outputs.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::Summary;
use super::links::Links;
use crate::Analysis;
use crate::catalog::Severity;
use crate::checks::Finding;
use crate::text::{clip, escape};

/// GitHub rejects comments of 65,536 characters or more; the output stays below this many bytes
/// (a byte count is never below the character count).
pub const LIMIT: usize = 65_000;
/// Findings stop being written past this many bytes of output.
pub const FINDINGS_BUDGET: usize = 56_000;
/// Run notes stop being written past this many bytes of output.
const NOTES_BUDGET: usize = 8_000;
/// Suppressed findings stop being named past this many bytes of output.
const SUPPRESSED_BUDGET: usize = 63_000;
/// Longest text kept from one input-derived field (before escaping).
const MAX_FIELD: usize = 1_000;
/// Longest witness kept, as in human output.
const MAX_WITNESS: usize = 400;

/// Inline code that holds any text: the fence is one backtick longer than the longest run inside.
pub(crate) fn code(s: &str) -> String {
    let s = escape(&clip(s, MAX_FIELD));
    let (mut run, mut longest) = (0, 0);
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    if s.is_empty() {
        "` `".to_owned()
    } else if s.starts_with('`')
        || s.ends_with('`')
        || (s.starts_with(' ') && s.ends_with(' ') && !s.bytes().all(|b| b == b' '))
    {
        // CommonMark strips one space from each side of such a span: these pads are the ones it strips.
        format!("{fence} {s} {fence}")
    } else {
        format!("{fence}{s}{fence}")
    }
}

/// Plain text that renders as itself: no HTML, link, image, emphasis, mention or autolink.
pub(crate) fn text(s: &str) -> String {
    let s = escape(&clip(s, MAX_FIELD));
    let mut out = String::with_capacity(s.len() + 16);
    let mut rest = s.as_str();
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            // A mention or an e-mail autolink needs `@` next to a name.
            '@' => out.push_str("@&#8203;"),
            // `https://`, `www.`: bare links that GitHub would turn into links.
            ':' if rest.starts_with("//") => out.push_str(":&#8203;"),
            // `#1`: GitHub links issue and pull request numbers in text, escaped or not.
            '#' if rest.starts_with(|c: char| c.is_ascii_digit()) => out.push_str("\\#&#8203;"),
            '.' if out.len() >= 3 && out.get(out.len() - 3..).is_some_and(|w| w.eq_ignore_ascii_case("www")) => {
                out.push_str("&#8203;.");
            }
            '\\' | '`' | '*' | '_' | '[' | ']' | '!' | '|' | '~' | '#' | '$' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A message whose `code` parts keep their code spans: split at backticks, the outer parts are
/// [`text`] and the inner ones [`code`]. Safe for any input (a name with a backtick only moves the
/// split); an unpaired last backtick stays a literal one.
fn prose(s: &str) -> String {
    prose_named(s, &[])
}

/// [`prose`] that knows the names a message may quote (`names`): a backtick followed by one of them
/// and a closing backtick is that name in one code span, whatever backticks the name holds (the
/// longest such name wins); any other backtick pairs up as in [`prose`].
/// The names a finding may quote: its own (tool, pointer tokens) and its tool's property names.
pub(crate) struct Names<'c> {
    own: Vec<String>,
    properties: Option<&'c std::collections::HashSet<String>>,
}

impl Names<'_> {
    fn knows(&self, s: &str) -> bool {
        !s.is_empty() && (self.own.iter().any(|n| n == s) || self.properties.is_some_and(|p| p.contains(s)))
    }
}

fn prose_named(s: &str, names: &[String]) -> String {
    prose_known(s, &Names { own: names.to_vec(), properties: None })
}

pub(crate) fn prose_known(s: &str, names: &Names<'_>) -> String {
    let s = clip(s, MAX_FIELD);
    let mut out = String::with_capacity(s.len() + 16);
    let mut plain = String::new();
    let mut rest: &str = &s;
    while let Some(at) = rest.find('`') {
        plain.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        // The longest known name that the text quotes whole: a name may hold backticks itself.
        let known = after.rmatch_indices('`').map(|(i, _)| i).find(|&i| names.knows(&after[..i]));
        let end = known.or_else(|| after.find('`'));
        let Some(end) = end else {
            // An unpaired backtick: a literal one ([`text`] escapes it).
            plain.push('`');
            rest = after;
            continue;
        };
        let (inner, next) = (&after[..end], &after[end + 1..]);
        // Two code spans side by side would read as one longer fence: keep them apart.
        if plain.is_empty() && out.ends_with('`') {
            out.push_str("&#8203;");
        }
        out.push_str(&text(&std::mem::take(&mut plain)));
        out.push_str(&code(inner));
        rest = next;
    }
    plain.push_str(rest);
    out.push_str(&text(&plain));
    out
}

/// The input names a finding's message and migration may quote: the tool, the old name of a rename,
/// and the parameter path and names of the pointers; when the text holds more backticks than its
/// rule's template (a quoted name has backticks of its own), also every property name of the tool.
/// Property names of each tool, collected once per tool: a tool with thousands of findings would
/// otherwise walk its schemas once per finding.
pub(crate) type NameCache = BTreeMap<String, std::collections::HashSet<String>>;

pub(crate) fn names<'c>(f: &Finding, analysis: &Analysis, cache: &'c mut NameCache) -> Names<'c> {
    let mut out = vec![f.tool.clone()];
    for p in std::iter::once(f.pointer.as_str()).chain(f.from.as_deref()) {
        if p.starts_with('/') {
            out.push(crate::checks::readable_path(p));
            out.extend(crate::load::span::pointer_tokens(p));
        } else {
            out.push(p.to_owned());
        }
    }
    let ticks = |s: &str| s.matches('`').count();
    let meta = f.rule.meta();
    if ticks(&f.message) > ticks(meta.message) || ticks(&f.migration) > ticks(meta.migration) {
        let key = match &f.snapshot {
            Some(file) => format!("{file}: {}", f.tool),
            None => f.tool.clone(),
        };
        let properties = cache.entry(key).or_insert_with_key(|key| {
            let mut found = Vec::new();
            for side in [&analysis.old, &analysis.new] {
                if let Some(tool) = side.tools.get(key) {
                    property_names(tool.value(), &mut found);
                }
            }
            found.into_iter().collect()
        });
        return Names { own: out, properties: Some(properties) };
    }
    Names { own: out, properties: None }
}

/// The most property names [`property_names`] collects from one tool.
const MAX_NAMES: usize = 10_000;

/// The keys of every `properties` object inside `v` (iteratively: schemas can nest deeply).
fn property_names(v: &serde_json::Value, out: &mut Vec<String>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        if out.len() >= MAX_NAMES {
            return;
        }
        match v {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::Object(props)) = map.get("properties") {
                    out.extend(props.keys().cloned());
                }
                stack.extend(map.values());
            }
            serde_json::Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
}

/// A word diff (`[-old-]{+new+}`, as [`crate::meaning::word_diff`] writes it) with the removed words
/// struck through and the added ones underlined; every word through [`text`]. An unclosed marker (the
/// diff is cut to a length) runs to the end.
fn word_diff(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while !rest.is_empty() {
        let del = rest.find("[-");
        let ins = rest.find("{+");
        let (at, open, close, tag) = match (del, ins) {
            (Some(d), Some(i)) if i < d => (i, "{+", "+}", "ins"),
            (Some(d), _) => (d, "[-", "-]", "del"),
            (None, Some(i)) => (i, "{+", "+}", "ins"),
            (None, None) => break,
        };
        out.push_str(&text(&rest[..at]));
        let inner = &rest[at + open.len()..];
        let end = inner.find(close).unwrap_or(inner.len());
        let _ = write!(out, "<{tag}>{}</{tag}>", text(&inner[..end]));
        rest = inner.get(end + close.len()..).unwrap_or("");
    }
    out.push_str(&text(rest));
    out
}

/// A finding's extra lines: the word diff of a description edit, readably; any other note as text.
fn note(n: &str) -> String {
    for (prefix, label) in [("edit: ", "Edit"), ("stated in the description: ", "Stated in the description")] {
        if let Some(diff) = n.strip_prefix(prefix) {
            return format!("{label}: {}", word_diff(diff));
        }
    }
    let mut chars = n.chars();
    let first = chars.next().map(|c| c.to_uppercase().collect::<String>()).unwrap_or_default();
    text(&(first + chars.as_str()))
}

/// `path:line`, linked to the repository when [`Links`] knows the file's revision (then the path is
/// the repository path, the revision being in the address); otherwise the file's name as given
/// (`REV:PATH` for a file read from git).
fn place(l: &crate::checks::Location, old: bool, links: &Links) -> String {
    match links.url(l, old) {
        Some(url) => format!("[{}]({url})", code(&format!("{}:{}", l.artifact, l.line))),
        None => code(&format!("{}:{}", l.path, l.line)),
    }
}

/// Migration texts written once: a text that several findings share is labelled (M1, M2, ...) where it
/// first appears and referred to after that.
#[derive(Default)]
struct Migrations<'a> {
    shared: BTreeMap<&'a str, (usize, usize)>,
    written: std::collections::BTreeSet<&'a str>,
}

/// Shorter migration texts are repeated: a reference would be about as long.
const SHARED_MIGRATION: usize = 60;

impl<'a> Migrations<'a> {
    fn of(findings: &[&'a Finding]) -> Migrations<'a> {
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        let mut order = Vec::new();
        for f in findings {
            let n = count.entry(f.migration.as_str()).or_default();
            if *n == 0 {
                order.push(f.migration.as_str());
            }
            *n += 1;
        }
        let mut shared = BTreeMap::new();
        for m in order {
            if count[m] > 1 && m.chars().count() > SHARED_MIGRATION {
                let label = shared.len() + 1;
                shared.insert(m, (label, count[m]));
            }
        }
        Migrations { shared, written: std::collections::BTreeSet::new() }
    }

    fn line(&mut self, migration: &'a str, names: &Names<'_>) -> String {
        match self.shared.get(migration) {
            Some(&(label, _)) if self.written.contains(migration) => format!("Migration: as **M{label}** above."),
            Some(&(label, n)) => {
                self.written.insert(migration);
                format!("Migration (**M{label}**, for {n} findings): {}", prose_known(migration, names))
            }
            None => format!("Migration: {}", prose_known(migration, names)),
        }
    }
}

fn finding<'a>(
    f: &'a Finding,
    analysis: &Analysis,
    links: &Links,
    migrations: &mut Migrations<'a>,
    cache: &mut NameCache,
) -> String {
    let mut out = String::new();
    let names = names(f, analysis, cache);
    let _ = writeln!(out, "- **{}** {}: {}", f.severity, code(f.rule.as_str()), prose_known(&f.message, &names));
    let removal = f.at_old || f.new.is_none();
    let at = match (&f.new, &f.old) {
        (Some(new), Some(old)) if removal => {
            Some(format!("{} (now {})", place(old, true, links), place(new, false, links)))
        }
        (Some(new), Some(old)) => Some(format!("{} (before: {})", place(new, false, links), place(old, true, links))),
        (Some(new), None) => Some(place(new, false, links)),
        (None, Some(old)) => Some(format!("{} (removed)", place(old, true, links))),
        (None, None) => None,
    };
    if let Some(at) = at {
        let _ = writeln!(out, "  - At {at}");
    }
    for n in &f.notes {
        let _ = writeln!(out, "  - {}", note(n));
    }
    let _ = writeln!(out, "  - {}", migrations.line(&f.migration, &names));
    if let Some(w) = f.witness.as_ref().filter(|_| f.severity > Severity::Info) {
        let instance = w.instance.to_string();
        let _ = writeln!(out, "  - Witness: {} ({})", code(&clip(&instance, MAX_WITNESS)), prose(&w.rejected_because));
    }
    out
}

/// The output with a byte budget: a part is written only while it fits.
struct Budget {
    out: String,
    left_out: usize,
}

impl Budget {
    /// Writes `part` when the output stays within `limit`; counts it as left out otherwise. Once
    /// something is left out, everything after it is too, so the report never skips around.
    fn push(&mut self, part: &str, limit: usize) -> bool {
        if self.left_out == 0 && self.out.len() + part.len() <= limit {
            self.out.push_str(part);
            true
        } else {
            self.left_out += 1;
            false
        }
    }
}

/// The report without links to the repository.
#[must_use]
pub fn render(analysis: &Analysis) -> String {
    render_with(analysis, &Links::default())
}

/// The report with each location linked where `links` knows its revision.
#[must_use]
pub fn render_with(analysis: &Analysis, links: &Links) -> String {
    let s = Summary::of(&analysis.findings);
    let mut out = String::new();
    let _ = writeln!(out, "## Migration notes (mcp-drift)\n");
    let mut notes = Budget { out, left_out: 0 };
    for note in &analysis.notes {
        notes.push(&format!("> **Note:** {}\n\n", text(note)), NOTES_BUDGET);
    }
    let mut out = notes.out;
    if notes.left_out > 0 {
        let _ = writeln!(out, "> {} more notes: the JSON output lists them.\n", notes.left_out);
    }
    let n = analysis.suppressed.len();
    let accepted = if n == 0 {
        String::new()
    } else {
        format!(" ({n} finding{} suppressed by configuration or baseline)", if n == 1 { "" } else { "s" })
    };
    let _ = writeln!(out, "{}{accepted}\n", s.line());
    if analysis.findings.is_empty() {
        // `no contract changes across 3 tools`, as the human format says it, as a sentence.
        let line = super::human::clean_line(analysis, super::human::Run::of(analysis));
        let mut chars = line.chars();
        let first = chars.next().map(|c| c.to_uppercase().collect::<String>()).unwrap_or_default();
        let _ = writeln!(out, "{}.", text(&(first + chars.as_str())));
    } else {
        let _ = writeln!(out, "| severity | findings |\n|---|---|");
        let _ = writeln!(out, "| error | {} |\n| warning | {} |\n| info | {} |\n", s.error, s.warning, s.info);
        out = findings(out, analysis, links);
    }
    suppressed(&mut out, analysis);
    // `##[` inside code spans (which show text as it is) and any join of escaped parts.
    match crate::text::guard(&out) {
        std::borrow::Cow::Borrowed(_) => out,
        std::borrow::Cow::Owned(guarded) => guarded,
    }
}

/// Sections by severity (errors, then warnings, then compatible changes, folded when there is more
/// to read), per tool inside each; only the findings that fit in the budget, then a line that counts
/// the rest.
fn findings(out: String, analysis: &Analysis, links: &Links) -> String {
    // Past the budget what is left out is never an error while a warning is shown: the most severe
    // section first; inside it, tools by file and name, findings in report order.
    let mut ordered: Vec<&Finding> = analysis.findings.iter().collect();
    ordered.sort_by_key(|f| std::cmp::Reverse(f.severity));
    let mut migrations = Migrations::of(&ordered);
    let mut cache = NameCache::new();
    let loud = ordered.iter().filter(|f| f.severity > Severity::Info).count();
    let mut b = Budget { out, left_out: 0 };
    for (severity, title) in
        [(Severity::Error, "Errors"), (Severity::Warning, "Warnings"), (Severity::Info, "Compatible changes")]
    {
        // Per snapshot file (directories of several snapshots) and tool.
        let mut by_tool: BTreeMap<(Option<&str>, &str, bool), Vec<&Finding>> = BTreeMap::new();
        for f in ordered.iter().filter(|f| f.severity == severity) {
            by_tool.entry((f.snapshot.as_deref(), &f.tool, f.is_summary())).or_default().push(f);
        }
        let n: usize = by_tool.values().map(Vec::len).sum();
        if n == 0 {
            continue;
        }
        let fold = severity == Severity::Info && (n > 3 || loud > 0);
        let mut section = format!("### {title} ({n})\n\n");
        if fold {
            let _ = writeln!(
                section,
                "<details><summary>{n} compatible change{}</summary>\n",
                if n == 1 { "" } else { "s" }
            );
        }
        // A heading goes out with the first finding under it that fits.
        let mut section = Some(section);
        let mut written = false;
        for ((file, tool, summary), findings) in by_tool {
            // A finding about the whole snapshot (`lint-open-input`) has no tool: "All tools".
            let mut heading = Some(match (file, summary) {
                (Some(file), false) => format!("#### {}: {}\n\n", code(file), code(tool)),
                (Some(file), true) => format!("#### {}: all tools\n\n", code(file)),
                (None, false) => format!("#### {}\n\n", code(tool)),
                (None, true) => "#### All tools\n\n".to_owned(),
            });
            for f in findings {
                let part = finding(f, analysis, links, &mut migrations, &mut cache);
                let head = format!("{}{}", section.as_deref().unwrap_or(""), heading.as_deref().unwrap_or(""));
                if b.push(&(head + &part), FINDINGS_BUDGET) {
                    section = None;
                    heading = None;
                    written = true;
                }
            }
            if heading.is_none() {
                b.out.push('\n');
            }
        }
        if fold && written {
            b.out.push_str("</details>\n\n");
        }
    }
    let mut out = b.out;
    if b.left_out > 0 {
        let _ = writeln!(
            out,
            "**{} more finding{} left out** to keep this comment under GitHub's size limit: the JSON \
             (`--format json`) or SARIF (`--format sarif`) output lists every finding.\n",
            b.left_out,
            if b.left_out == 1 { " was" } else { "s were" }
        );
    }
    out
}

/// A section that counts and names every finding accepted by the configuration or the baseline.
fn suppressed(out: &mut String, analysis: &Analysis) {
    if analysis.suppressed.is_empty() {
        return;
    }
    let mut b = Budget { out: std::mem::take(out), left_out: 0 };
    let n = analysis.suppressed.len();
    if !b.out.ends_with("\n\n") {
        b.out.push('\n');
    }
    let _ = writeln!(b.out, "### Suppressed findings ({n})\n");
    let _ = writeln!(b.out, "Accepted by the configuration or the baseline; they do not fail the check.\n");
    for (f, reason) in &analysis.suppressed {
        let line =
            format!("- {} on {} at {}: {}\n", code(f.rule.as_str()), code(&f.tool), code(&f.pointer), text(reason));
        b.push(&line, SUPPRESSED_BUDGET);
    }
    *out = b.out;
    if b.left_out > 0 {
        let _ = writeln!(
            out,
            "\n{} more suppressed finding{} left out: the JSON output (`--format json`) lists all of them.",
            b.left_out,
            if b.left_out == 1 { "" } else { "s" }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_hold_any_backticks() {
        assert_eq!(code("a"), "`a`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("``x"), "``` ``x ```");
        assert_eq!(code(""), "` `");
        assert_eq!(code(" a "), "`  a  `");
        assert_eq!(code(" a"), "` a`");
        assert_eq!(code("x\n<!--"), "`x\\n<!--`");
    }

    #[test]
    fn text_renders_as_itself() {
        assert_eq!(text("<img src=x>"), "&lt;img src=x&gt;");
        assert_eq!(text("[a](http://e)"), "\\[a\\](http:&#8203;//e)");
        assert_eq!(prose("a `b` c"), "a `b` c");
        assert_eq!(prose("a `<b>` `c"), "a `<b>` \\`c");
        assert_eq!(prose("`x``y`"), "`x`&#8203;`y`");
        assert_eq!(prose("`a`b` c"), "`a`b\\` c");
        let names = ["a`b".to_owned(), "a".to_owned()];
        assert_eq!(prose_named("`a`b` is `a` now `", &names), "``a`b`` is `a` now \\`");
        assert_eq!(text("hi @team www.x.io"), "hi @&#8203;team www&#8203;.x.io");
        assert_eq!(text("éwww.x"), "éwww&#8203;.x");
        assert_eq!(text("é."), "é.");
        assert_eq!(text("a\nb"), "a\\\\nb");
        assert_eq!(text("see #12, # 1"), "see \\#&#8203;12, \\# 1");
    }

    #[test]
    fn word_diffs_strike_and_insert_as_text() {
        assert_eq!(word_diff("at most [-100-]{+10+} items"), "at most <del>100</del><ins>10</ins> items");
        assert_eq!(word_diff("{+<b>+} [-*x*-]"), "<ins>&lt;b&gt;</ins> <del>\\*x\\*</del>");
        // Cut to a length: an open marker runs to the end.
        assert_eq!(word_diff("a [-b c…"), "a <del>b c…</del>");
        assert_eq!(word_diff("{+"), "<ins></ins>");
        assert_eq!(note("edit: [-a-]{+b+}"), "Edit: <del>a</del><ins>b</ins>");
        assert_eq!(note("the acceptance expired"), "The acceptance expired");
    }
}
