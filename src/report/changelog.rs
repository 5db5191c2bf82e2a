//! `mcp-drift notes`: release notes for the server's users, in Keep a Changelog sections.
//!
//! Sections, in this order and each only when it has an entry: `### Breaking` (error findings),
//! `### Deprecated` (a deprecation notice added to a tool or parameter description), `### Changed`
//! (warnings, and the compatible changes a user sees: a new title, a lowered risk annotation),
//! `### Added` (infos that let callers do more: a tool or parameter added, a constraint loosened, an
//! enum widened on input, a result field or schema added) and `### Removed` (infos that take
//! something away without breaking: results that produce less). Descriptions reworded without a
//! change of meaning are counted on one line at the end.
//!
//! One entry per place (snapshot file, tool, parameter or field) that changed: the most severe finding
//! there says what changed in the reader's terms, the others follow as "also", then what a caller does
//! about it. The catalog's migration texts are advice to the server's author (keep a deprecation
//! window, add an alias); they are quoted only when they speak to callers or consumers.
//!
//! Everything from the snapshots goes through the Markdown report's escaping ([`super::markdown`]):
//! names in code spans, other text with Markdown punctuation, HTML, mentions and bare links
//! neutralized, newlines escaped. Sizes are bounded: each section lists at most [`MAX_ENTRIES`]
//! entries and the whole text stays under [`BUDGET`] bytes; the rest is counted ("and N more").

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::markdown::{NameCache, code, names, prose_known, text};
use crate::Analysis;
use crate::catalog::{RuleId, Severity};
use crate::checks::Finding;
use crate::text::clip;

/// Entries listed per section; the rest are counted.
pub const MAX_ENTRIES: usize = 50;
/// Entries stop being written past this many bytes of output.
pub const BUDGET: usize = 56_000;
/// Further findings at one place named in one entry ("also ..."); the rest are counted.
const MAX_ALSO: usize = 4;
/// Longest example call or result shown, before escaping.
const MAX_EXAMPLE: usize = 200;
/// Longest deprecation notice quoted from a description, before escaping.
const MAX_NOTICE: usize = 300;

/// The Keep a Changelog section a finding belongs to, in the order they are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Section {
    Breaking,
    Deprecated,
    Changed,
    Added,
    Removed,
    /// Descriptions reworded without a change of meaning: counted, not listed.
    Reworded,
}

impl Section {
    const LISTED: [Section; 5] =
        [Section::Breaking, Section::Deprecated, Section::Changed, Section::Added, Section::Removed];

    fn title(self) -> &'static str {
        match self {
            Section::Breaking => "Breaking",
            Section::Deprecated => "Deprecated",
            Section::Changed => "Changed",
            Section::Added => "Added",
            Section::Removed => "Removed",
            Section::Reworded => "Reworded",
        }
    }
}

/// A description edit that adds a deprecation notice (see `meaning::deprecation`) and nothing that
/// breaks a call (an edit that also adds a side effect is an error, and breaking).
fn is_deprecation(f: &Finding) -> bool {
    f.rule == RuleId::DescriptionMeaningChanged
        && f.severity < Severity::Error
        && f.message.contains("deprecation added:")
}

/// The mapping from findings to sections (documented in docs/changelog-notes.md).
#[must_use]
pub fn section(f: &Finding) -> Section {
    use RuleId as R;
    if is_deprecation(f) {
        return Section::Deprecated;
    }
    match f.severity {
        Severity::Error => Section::Breaking,
        Severity::Warning => Section::Changed,
        Severity::Info => match f.rule {
            R::ToolAdded
            | R::InputPropertyAdded
            | R::InputConstraintLoosened
            | R::InputEnumWidened
            | R::InputTypeWidened
            | R::InputCompositionWidened
            | R::InputAdditionalPropertiesOpened
            | R::InputRequiredRemoved
            | R::OutputSchemaAdded
            | R::OutputPropertyAdded
            | R::OutputRequiredAdded => Section::Added,
            R::OutputEnumNarrowed
            | R::OutputConstraintTightened
            | R::OutputTypeNarrowed
            | R::OutputCompositionNarrowed
            | R::OutputAdditionalPropertiesClosed => Section::Removed,
            R::DescriptionReworded => Section::Reworded,
            // A user sees a new title or a tool declared safer; neither asks anything of them.
            _ => Section::Changed,
        },
    }
}

/// The parameter or result field a pointer names (`region`, `items[].id`), when it is inside a schema.
fn path_of(pointer: &str) -> Option<String> {
    (pointer.starts_with("/inputSchema/") || pointer.starts_with("/outputSchema/"))
        .then(|| crate::checks::readable_path(pointer))
        .filter(|p| !p.is_empty())
}

/// Where a finding is, for grouping: the snapshot file, the tool, the side and the parameter or field.
type Place<'a> = (Option<&'a str>, &'a str, String);

fn place(f: &Finding) -> Place<'_> {
    let side = if f.pointer.starts_with("/outputSchema") { "output" } else { "input" };
    let at = path_of(&f.pointer).map_or_else(|| f.pointer.clone(), |p| format!("{side}:{p}"));
    (f.snapshot.as_deref(), f.tool.as_str(), at)
}

/// The message as a sentence ending in a full stop, with its quoted names in code spans.
fn sentence(s: &str, names: &super::markdown::Names<'_>) -> String {
    let mut out = prose_known(s.trim_end_matches('.'), names);
    out.push('.');
    out
}

/// The tool, with its snapshot file when directories of several snapshots are compared.
fn tool_of(f: &Finding) -> String {
    match &f.snapshot {
        Some(file) => format!("{} (in {})", code(&f.tool), code(file)),
        None => code(&f.tool),
    }
}

/// What changed, for the reader: a sentence of its own for the common changes, else the finding's
/// message after the tool's name.
fn lead(f: &Finding, names: &super::markdown::Names<'_>) -> String {
    use RuleId as R;
    let t = tool_of(f);
    // `/inputSchema/required`: an existing parameter made required, named by the message only.
    let p = path_of(&f.pointer).filter(|_| !f.pointer.ends_with("/required")).map(|p| code(&p)).unwrap_or_default();
    let from = f.from.as_deref().map(|p| code(&path_of(p).unwrap_or_else(|| p.to_owned()))).unwrap_or_default();
    match f.rule {
        R::InputRequiredAdded if !p.is_empty() => format!("{t} now requires {p}; calls without it are rejected."),
        R::InputRequiredAdded => {
            format!("{t}: {}; calls without it are rejected.", prose_known(f.message.trim_end_matches('.'), names))
        }
        R::InputPropertyAdded if !p.is_empty() => format!("{t} accepts a new optional parameter {p}."),
        R::InputRequiredRemoved if !p.is_empty() => format!("{t} no longer requires {p}."),
        R::InputPropertyRenamed if !p.is_empty() && !from.is_empty() => {
            format!("{t}: parameter {from} is now called {p}; calls that send {from} are rejected or lose the value.")
        }
        R::OutputPropertyRenamed if !p.is_empty() && !from.is_empty() => {
            format!("{t}: result field {from} is now called {p}.")
        }
        R::ToolAdded => format!("New tool {t}."),
        R::ToolRemoved => format!("{t} was removed; calls to it fail."),
        R::ToolRenamed if f.from.is_some() => {
            let old = code(f.from.as_deref().unwrap_or(""));
            format!("{old} was renamed to {t}; calls to {old} fail.")
        }
        R::OutputSchemaAdded => format!("{t} now declares the structure of its results (`outputSchema`)."),
        R::OutputSchemaRemoved => format!("{t} no longer declares the structure of its results (`outputSchema`)."),
        _ if is_deprecation(f) => deprecation(f, &t, &p, names),
        _ => format!("{t}: {}", sentence(&f.message, names)),
    }
}

/// `fetch_url` is deprecated; use `fetch_page` instead.
fn deprecation(f: &Finding, t: &str, p: &str, names: &super::markdown::Names<'_>) -> String {
    let subject = if p.is_empty() { t.to_owned() } else { format!("Parameter {p} of {t}") };
    let trigger = f.message.split("deprecation added:").nth(1).unwrap_or("");
    let trigger = trigger.trim_start_matches(':').trim().trim_end_matches(')');
    match trigger.split_once("use ") {
        Some((_, successor)) => format!("{subject} is deprecated; use {} instead.", prose_known(successor, names)),
        None => format!("{subject} is deprecated."),
    }
}

/// What a caller does about a change, when anything: `None` for changes that ask nothing of them.
fn advice(f: &Finding, names: &super::markdown::Names<'_>) -> Option<String> {
    use RuleId as R;
    // A migration text that speaks to callers is theirs as written.
    let m = f.migration.trim_start();
    if ["Callers ", "Consumers ", "Clients "].iter().any(|w| m.starts_with(w)) {
        return Some(sentence(m, names));
    }
    let t = code(&f.tool);
    let p = path_of(&f.pointer).filter(|_| !f.pointer.ends_with("/required")).map(|p| code(&p));
    let p = p.as_deref().unwrap_or("it");
    let from = f.from.as_deref().map(|x| code(&path_of(x).unwrap_or_else(|| x.to_owned())));
    let from = from.as_deref().unwrap_or("the old name");
    Some(match f.rule {
        _ if is_deprecation(f) => "Move to the replacement before the deprecated form is removed.".to_owned(),
        R::InputRequiredAdded => format!("Pass {p} in every call."),
        R::InputPropertyRemoved => format!("Stop sending {p}."),
        R::InputPropertyRenamed => format!("Send {p} instead of {from}."),
        R::InputAdditionalPropertiesClosed => "Send only the parameters the schema declares.".to_owned(),
        R::InputTypeNarrowed
        | R::InputEnumNarrowed
        | R::InputConstraintTightened
        | R::InputCompositionNarrowed
        | R::InputCallRejected
        | R::InputPatternChanged
        | R::InputFormatChanged => {
            format!(
                "Check the values you send for {p} against the new schema; some calls that worked before are rejected."
            )
        }
        R::InputCannotDecide => format!("Check your calls to {t} against the new schema."),
        R::InputDefaultChanged => format!("Pass {p} explicitly to keep the old behaviour."),
        R::InputAuthorityExpanded => format!("Review what calls to {t} may now act on before approving them."),
        R::AnnotationRiskRaised => format!("Review the approvals you give {t}."),
        R::DescriptionMeaningChanged => format!("Review how you use {t}: what it is documented to do changed."),
        R::ToolRemoved => format!("Stop calling {t}."),
        R::ToolRenamed => format!("Call {t} instead of {}.", code(f.from.as_deref().unwrap_or(""))),
        R::ToolContractReplaced => format!("Read the new schema of {t} before calling it: it does something else now."),
        R::OutputPropertyRemoved | R::OutputRequiredRemoved | R::OutputIdentifierRemoved => {
            format!("Do not rely on {p} in results of {t}.")
        }
        R::OutputPropertyRenamed => format!("Read {p} instead of {from}."),
        R::OutputEnumWidened => format!("Handle values of {p} you have not seen before (add a default branch)."),
        R::OutputSchemaRemoved => format!("Read the text content of results of {t}; structured results may be gone."),
        R::OutputTypeWidened
        | R::OutputConstraintLoosened
        | R::OutputCompositionWidened
        | R::OutputAdditionalPropertiesOpened
        | R::OutputResultRejected
        | R::OutputFormatChanged
        | R::OutputPatternChanged
        | R::OutputCannotDecide => format!("Code that reads results of {t} must accept the new shape of {p}."),
        _ => return None,
    })
}

/// An example from the finding's witness: the call now rejected, or the result now possible.
fn example(f: &Finding) -> Option<String> {
    let w = f.witness.as_ref().filter(|_| f.severity == Severity::Error)?;
    let what = if f.rule == RuleId::InputDefaultChanged {
        "a call that now gets the new default"
    } else if w.dropped {
        "a call whose value is now ignored"
    } else if f.pointer.starts_with("/outputSchema") {
        "a result that is possible now"
    } else {
        "a call that is rejected now"
    };
    Some(format!("Example of {what}: {}.", code(&clip(&w.instance.to_string(), MAX_EXAMPLE))))
}

/// The sentence of the new description that says when the deprecated form goes, when it says so.
fn window(f: &Finding, analysis: &Analysis) -> Option<String> {
    let key = match &f.snapshot {
        Some(file) => format!("{file}: {}", f.tool),
        None => f.tool.clone(),
    };
    let description = analysis.new.tools.get(&key)?.value().pointer(&f.pointer)?.as_str()?;
    let when = ["until", "removed", "remove", "will be", "sunset", "end of", "after", "before", "release", "version"];
    let notice = description.split_inclusive(['.', '\n']).map(str::trim).find(|s| {
        let l = s.to_lowercase();
        l.contains("deprecat") && when.iter().any(|w| l.contains(w))
    })?;
    Some(format!("Deprecation window, as announced: \u{201c}{}\u{201d}", text(&clip(notice, MAX_NOTICE))))
}

/// One entry: the lead finding's sentence, the others at the same place, the caller's advice.
fn entry(group: &[&Finding], analysis: &Analysis, cache: &mut NameCache) -> String {
    let lead_f = group[0];
    let lead_names = names(lead_f, analysis, cache);
    let mut parts = vec![lead(lead_f, &lead_names)];
    let mut advices: Vec<String> = advice(lead_f, &lead_names).into_iter().collect();
    let mut also = Vec::new();
    let mut seen = vec![lead_f.message.as_str()];
    for f in &group[1..] {
        if section(f) == Section::Reworded || seen.contains(&f.message.as_str()) {
            continue;
        }
        seen.push(&f.message);
        let n = names(f, analysis, cache);
        if also.len() < MAX_ALSO {
            also.push(prose_known(f.message.trim_end_matches('.'), &n));
        } else {
            also.push(String::new());
        }
        if let Some(a) = advice(f, &n).filter(|a| !advices.contains(a)) {
            advices.push(a);
        }
    }
    if !also.is_empty() {
        let shown: Vec<&str> = also.iter().filter(|a| !a.is_empty()).map(String::as_str).collect();
        let more = also.len() - shown.len();
        let more = if more > 0 { format!("; and {more} more") } else { String::new() };
        parts.push(format!("Also: {}{more}.", shown.join("; ")));
    }
    if is_deprecation(lead_f) {
        parts.extend(window(lead_f, analysis));
    }
    parts.extend(advices);
    parts.extend(example(lead_f));
    format!("- {}\n", parts.join(" "))
}

/// The release notes: an optional `## TITLE`, then the sections that have entries.
#[must_use]
pub fn render(analysis: &Analysis, title: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(title) = title {
        let _ = writeln!(out, "## {}\n", text(title));
    }
    // Findings by place, in report order; a place's section is that of its most pressing finding.
    let mut places: BTreeMap<Place<'_>, Vec<&Finding>> = BTreeMap::new();
    for f in &analysis.findings {
        places.entry(place(f)).or_default().push(f);
    }
    let mut sections: BTreeMap<Section, Vec<Vec<&Finding>>> = BTreeMap::new();
    for (_, mut group) in places {
        group.sort_by_key(|f| section(f));
        sections.entry(section(group[0])).or_default().push(group);
    }
    let mut cache = NameCache::new();
    for s in Section::LISTED {
        let Some(groups) = sections.get(&s) else { continue };
        let _ = writeln!(out, "### {}\n", s.title());
        let mut left = 0;
        for (i, group) in groups.iter().enumerate() {
            let e = entry(group, analysis, &mut cache);
            if i < MAX_ENTRIES && out.len() + e.len() <= BUDGET {
                out.push_str(&e);
            } else {
                left += 1;
            }
        }
        if left > 0 {
            let _ = writeln!(out, "- And {left} more (`mcp-drift diff --format json` lists every change).");
        }
        out.push('\n');
    }
    let reworded = sections.get(&Section::Reworded).map_or(0, Vec::len);
    if reworded > 0 {
        let _ = writeln!(
            out,
            "{reworded} description{} reworded without a change of meaning.\n",
            if reworded == 1 { "" } else { "s" }
        );
    }
    if analysis.findings.is_empty() {
        let _ = writeln!(out, "No changes for users of these tools.\n");
    }
    let n = analysis.suppressed.len();
    if n > 0 {
        let _ = writeln!(
            out,
            "{n} change{} accepted by the configuration or the baseline {} not listed.\n",
            if n == 1 { "" } else { "s" },
            if n == 1 { "is" } else { "are" }
        );
    }
    // One line break at the end.
    while out.ends_with("\n\n") {
        out.pop();
    }
    match crate::text::guard(&out) {
        std::borrow::Cow::Borrowed(_) => out,
        std::borrow::Cow::Owned(guarded) => guarded,
    }
}
