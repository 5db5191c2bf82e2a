//! Stage 4, checks: turns typed [`Change`]s into [`Finding`]s: rule id, severity, message, why and
//! migration text (templates from `rules/*.md`, filled with the names of this case), source locations
//! and a stable fingerprint.
//!
//! Named `checks` so it is never confused with the top-level `rules/` data folder. Promises: findings
//! are sorted deterministically (tool, pointer, rule) and their fingerprints depend only on rule, tool
//! and pointer, so unrelated edits elsewhere in a file never change them.

pub mod invalid;
pub mod variants;

use std::collections::HashMap;
use std::fmt::Write as _;

use rayon::prelude::*;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::catalog::{RuleId, Severity, fill};
use crate::compare::witness::Witness;
use crate::compare::{Change, ChangeKind, Fate, SchemaChange, Side, hint_is_risky};
use crate::load::span::pointer_tokens;
use crate::load::{FileId, Snapshot, Sources, Tool, escape};

mod consequence;
mod counts;
mod defaults;
mod evidence;
mod named;
mod prose;
mod unlikely;

pub use crate::names::authority::{authority_word, parameter_authority};
use crate::names::is_identifier;
pub use crate::names::words;
use crate::schema::TypeSet;
pub use consequence::SeverityReason;
pub use evidence::evidence;

/// Where a finding sits in a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: FileId,
    /// The file's name as shown to users (may be `REV:PATH`).
    pub path: String,
    /// The file's repository path (see [`crate::load::SourceFile::path`]).
    pub artifact: String,
    pub line: usize,
    pub column: usize,
    /// Byte range to underline.
    pub range: std::ops::Range<usize>,
}

/// One reported problem or note.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The snapshot file (relative path) when directories of several snapshots are compared.
    pub snapshot: Option<String>,
    pub rule: RuleId,
    pub severity: Severity,
    pub tool: String,
    /// JSON Pointer inside the tool object.
    pub pointer: String,
    /// The old name or pointer, for renames.
    pub from: Option<String>,
    pub message: String,
    pub why: String,
    pub migration: String,
    pub old: Option<Location>,
    pub new: Option<Location>,
    pub fingerprint: String,
    /// Extra lines for human output (for example a word diff).
    pub notes: Vec<String>,
    /// The finding is about something that is gone: the old location is the primary one.
    pub at_old: bool,
    /// A confirmed counterexample (every schema `error` has one).
    pub witness: Option<Witness>,
    /// What changed, as a short digest of the old and new value at the finding's pointers (see
    /// [`evidence`]): a baseline entry that records it accepts this change and no later, different one
    /// at the same place. `None` for findings about one snapshot (lint).
    pub evidence: Option<String>,
    /// Why the finding is reported below its rule's default severity (a bound at a representation
    /// limit, a degenerate rejected value); see `checks/consequence.rs`.
    pub severity_reason: Option<SeverityReason>,
}

/// Turns changes into sorted findings.
#[must_use]
pub fn findings(changes: &[Change], old: &Snapshot, new: &Snapshot, sources: &Sources) -> Vec<Finding> {
    let renamed: HashMap<&str, &str> = changes
        .iter()
        .filter_map(|c| match &c.kind {
            ChangeKind::ToolRenamed { from } => Some((c.tool.as_str(), from.as_str())),
            _ => None,
        })
        .collect();
    // Schema changes by tool and pointer: a description that restates one is judged beside it.
    let mut schema = prose::SchemaByTool::new();
    for c in changes {
        if let (ChangeKind::Schema { change, .. }, Some(pointer)) =
            (&c.kind, c.new_ptr.as_deref().or(c.old_ptr.as_deref()))
        {
            schema.entry(c.tool.as_str()).or_default().push(prose::SchemaAt { pointer, change });
        }
    }
    // Each finding is built on its own; a description read into facts is the costly part.
    let mut out: Vec<Finding> = changes.par_iter().map(|c| finding(c, old, new, sources, &renamed, &schema)).collect();
    defaults::one_per_change(&mut out);
    sort(&mut out);
    out
}

/// The report order (tool, pointer, rule, message), without exact repeats.
pub(crate) fn sort(findings: &mut Vec<Finding>) {
    findings.sort_by(|a, b| {
        (a.tool.as_str(), a.pointer.as_str(), a.rule.as_str(), a.message.as_str()).cmp(&(
            b.tool.as_str(),
            b.pointer.as_str(),
            b.rule.as_str(),
            b.message.as_str(),
        ))
    });
    findings.dedup_by(|a, b| a.fingerprint == b.fingerprint && a.message == b.message);
}

/// A finding about one snapshot on its own (lint): one location, templates filled with `vars`.
pub(crate) fn standalone(
    rule: RuleId,
    severity: Option<Severity>,
    tool: &Tool,
    pointer: String,
    mut vars: Vec<(&'static str, String)>,
    sources: &Sources,
) -> Finding {
    let mut all = vec![("tool", escape(&tool.name)), ("pointer", pointer.clone())];
    all.append(&mut vars);
    let meta = rule.meta();
    Finding {
        snapshot: None,
        rule,
        severity: severity.unwrap_or(meta.severity),
        tool: tool.name.clone(),
        new: locate(tool, &pointer, sources),
        fingerprint: fingerprint(rule.as_str(), &tool.name, &pointer),
        pointer,
        from: None,
        message: with_published_name(fill(meta.message, &all), Some(tool)),
        why: fill(meta.why, &all),
        migration: fill(meta.migration, &all),
        old: None,
        notes: Vec::new(),
        at_old: false,
        witness: None,
        evidence: None,
        severity_reason: None,
    }
}

impl Finding {
    /// A finding about a whole snapshot rather than one tool (the `lint-open-input` summary): its `tool`
    /// and `pointer` are empty, and renderers name no tool for it. A tool may itself be named `""`, so
    /// this, not an empty name, tells them apart.
    #[must_use]
    pub fn is_summary(&self) -> bool {
        self.rule == RuleId::LintOpenInput
    }
}

struct Draft {
    rule: RuleId,
    severity: Option<Severity>,
    vars: Vec<(&'static str, String)>,
    /// Report at the old pointer (removals) instead of the new one.
    at_old: bool,
    from: Option<String>,
    notes: Vec<String>,
}

impl Draft {
    fn new(rule: RuleId) -> Draft {
        Draft { rule, severity: None, vars: Vec::new(), at_old: false, from: None, notes: Vec::new() }
    }
    fn var(mut self, key: &'static str, value: impl Into<String>) -> Draft {
        self.vars.push((key, value.into()));
        self
    }
    fn old(mut self) -> Draft {
        self.at_old = true;
        self
    }
    fn severity(mut self, s: Severity) -> Draft {
        self.severity = Some(s);
        self
    }
}

fn finding(
    change: &Change,
    old: &Snapshot,
    new: &Snapshot,
    sources: &Sources,
    renamed: &HashMap<&str, &str>,
    schema: &prose::SchemaByTool<'_>,
) -> Finding {
    let old_tool = tool_for(old, change, renamed);
    let new_tool = new.tools.get(&change.tool);
    // Severity follows the consequence: a tightening whose rejected set the change itself proves
    // harmless or degenerate is reported lower, with the reason (the witness and verdict stay). Decided
    // before `prove`: a bound at a float limit has no witness JSON can carry, and needs none.
    let mut first = draft(change, new_tool, schema);
    // A reason only ever lowers: a rule already at or below its severity keeps its own texts.
    let default = first.severity.unwrap_or(first.rule.meta().severity);
    let lowered = consequence::lowered(change, old_tool, new_tool, old).filter(|l| l.reason.severity < default);
    let lowered_rule = first.rule;
    if let Some(l) = &lowered {
        first.severity = Some(l.reason.severity);
    }
    let mut draft = prove(first, change);
    let pointer = if draft.at_old {
        change.old_ptr.clone().or_else(|| change.new_ptr.clone())
    } else {
        change.new_ptr.clone().or_else(|| change.old_ptr.clone())
    }
    .unwrap_or_default();
    let mut vars = vec![("tool", escape(&change.tool)), ("pointer", pointer.clone())];
    vars.append(&mut draft.vars);
    let meta = draft.rule.meta();
    let fingerprint = fingerprint(draft.rule.as_str(), &change.tool, &pointer);
    let evidence = evidence::of_change(change, old_tool, new_tool);
    let mut f = Finding {
        snapshot: None,
        rule: draft.rule,
        severity: draft.severity.unwrap_or(meta.severity),
        tool: change.tool.clone(),
        pointer,
        from: draft.from,
        message: with_published_name(fill(meta.message, &vars), new_tool.or(old_tool)),
        why: fill(meta.why, &vars),
        migration: fill(meta.migration, &vars),
        old: old_tool.and_then(|t| change.old_ptr.as_deref().and_then(|p| locate(t, p, sources))),
        new: new_tool.and_then(|t| change.new_ptr.as_deref().and_then(|p| locate(t, p, sources))),
        fingerprint,
        notes: draft.notes,
        at_old: draft.at_old,
        witness: change.witness.clone(),
        evidence,
        severity_reason: None,
    };
    // A default that now selects another behaviour is an error, with the old call that omits the
    // parameter as its witness (both schemas accept it); without a confirmed one it stays a warning.
    if f.rule == RuleId::InputDefaultChanged
        && let ChangeKind::Schema { change: SchemaChange::Default { old, new }, .. } = &change.kind
        && defaults::selects_another_behaviour(old.as_ref(), new.as_ref(), new_tool, change.new_ptr.as_deref())
        && let Some(w) =
            defaults::omitted_call(old_tool, new_tool, change.new_ptr.as_deref(), old.as_ref(), new.as_ref())
    {
        f.severity = Severity::Error;
        f.witness = Some(w);
    }
    if f.rule == lowered_rule
        && let Some(lowered) = lowered
    {
        f.why = lowered.why;
        f.migration = lowered.migration;
        f.severity_reason = Some(lowered.reason);
    }
    f
}

/// A tool keyed by its file's path (see [`crate::load::dir`]) is named by its key in messages; the
/// first mention also gives the name the server publishes: "tool `issue_write_ff` (name `issue_write`)".
fn with_published_name(message: String, tool: Option<&Tool>) -> String {
    let Some((key, published)) = tool.and_then(|t| t.published.as_deref().map(|p| (&t.name, p))) else {
        return message;
    };
    let mention = format!("`{}`", escape(key));
    match message.find(&mention) {
        Some(at) => {
            let end = at + mention.len();
            format!("{} (name `{}`){}", &message[..end], escape(published), &message[end..])
        }
        None => format!("{message} (tool `{}`, name `{}`)", escape(key), escape(published)),
    }
}

/// Sound or say so: a schema finding at `error` needs a confirmed witness. Without one it becomes
/// `*-cannot-decide`; a pattern change with a witness is a proven tightening.
fn prove(draft: Draft, change: &Change) -> Draft {
    let ChangeKind::Schema { side, change: sc } = &change.kind else { return draft };
    let input = *side == Side::Input;
    if let (SchemaChange::Pattern { old, new }, Some(_)) = (sc, &change.witness) {
        let rule = if input { RuleId::InputConstraintTightened } else { RuleId::OutputConstraintLoosened };
        let show = |p: &Option<String>| p.as_deref().map_or_else(|| "(none)".into(), escape);
        let path = draft.vars.iter().find(|(k, _)| *k == "path").map(|(_, v)| v.clone()).unwrap_or_default();
        return Draft::new(rule)
            .var("path", path)
            .var("keyword", "pattern")
            .var("old", show(old))
            .var("new", show(new));
    }
    let severity = draft.severity.unwrap_or(draft.rule.meta().severity);
    if severity < Severity::Error || change.witness.is_some() {
        return draft;
    }
    let vars: Vec<(&str, String)> = draft.vars.iter().map(|(k, v)| (*k, v.clone())).collect();
    let claim = fill(draft.rule.meta().message, &[vec![("tool", escape(&change.tool))], vars].concat());
    let path = draft.vars.iter().find(|(k, _)| *k == "path").map_or_else(String::new, |(_, v)| v.clone());
    let rule = if input { RuleId::InputCannotDecide } else { RuleId::OutputCannotDecide };
    let reason = format!(
        "{claim} ({}), but no instance could be confirmed that the {} schema accepts and the {} one rejects",
        draft.rule.as_str(),
        if input { "old" } else { "new" },
        if input { "new" } else { "old" }
    );
    let mut d = Draft::new(rule).var("path", path).var("keyword", draft.rule.as_str()).var("reason", reason);
    d.at_old = draft.at_old;
    d.from = draft.from;
    d
}

/// The old tool for a change. Changes of a renamed tool carry the new name; `renamed` maps it back.
fn tool_for<'s>(old: &'s Snapshot, change: &Change, renamed: &HashMap<&str, &str>) -> Option<&'s Tool> {
    let name = renamed.get(change.tool.as_str()).copied().unwrap_or(&change.tool);
    old.tools.get(name)
}

/// Stable id of a finding: rule, tool and pointer, nothing that unrelated edits can move.
#[must_use]
pub fn fingerprint(rule: &str, tool: &str, pointer: &str) -> String {
    let mut h = Sha256::new();
    for part in [rule, tool, pointer] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    hex(&h.finalize()[..8])
}

/// Lower-case hexadecimal of some bytes (fingerprints, lock hashes).
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    // Two digits per byte from a table: `verify` makes one of these per tool on each side, and the
    // formatter's per-byte `{:02x}` was 3% of its time on the 15,000-tool pair.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

/// Finds the pointer in the tool's file, climbing to the nearest parent that exists.
pub(crate) fn locate(tool: &Tool, pointer: &str, sources: &Sources) -> Option<Location> {
    let file = sources.get(tool.file);
    // Search inside the tool object only: the tool knows where it starts.
    let start = tool.start_in(file);
    let (text, offset, mut p) = match start {
        Some(start) => (&file.text[start..], start, pointer.to_owned()),
        None => (file.text.as_str(), 0, format!("{}{pointer}", tool.base)),
    };
    let index = start.and_then(|start| file.tool_index(start));
    loop {
        let found = match &index {
            Some(index) => index.label(text, &p),
            None => crate::load::span::locate_label(text, &p),
        };
        if let Some(local) = found {
            let range = local.start + offset..local.end + offset;
            let (line, column) = file.line_column(range.start);
            return Some(Location {
                file: tool.file,
                path: file.name.clone(),
                artifact: file.path.clone(),
                line,
                column,
                range,
            });
        }
        let cut = p.rfind('/')?;
        p.truncate(cut);
    }
}

/// `issue.id`, `items[].name`, `$defs/Node.next`: a readable path from a schema pointer.
#[must_use]
pub fn readable_path(pointer: &str) -> String {
    let tokens: Vec<String> = pointer_tokens(pointer).collect();
    let mut out = String::new();
    let mut i = 1; // skip inputSchema/outputSchema
    while i < tokens.len() {
        match tokens[i].as_str() {
            "properties" if i + 1 < tokens.len() => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&tokens[i + 1]);
                i += 2;
            }
            "items" | "additionalProperties" => {
                out.push_str(if tokens[i] == "items" { "[]" } else { ".*" });
                i += 1;
            }
            "$defs" | "definitions" if i + 1 < tokens.len() => {
                out = format!("#/{}/{}", tokens[i], tokens[i + 1]);
                i += 2;
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" if i + 1 < tokens.len() => {
                let _ = write!(out, "<{} {}>", tokens[i], tokens[i + 1]);
                i += 2;
            }
            _ => i += 1,
        }
    }
    if out.is_empty() {
        return if pointer.starts_with("/outputSchema") { "(result)" } else { "(arguments)" }.to_owned();
    }
    escape(&out)
}

pub(crate) fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 { format!("{}…", s.chars().take(59).collect::<String>()) } else { escape(&s) }
}

fn show_opt(v: Option<&Value>) -> String {
    v.map_or_else(|| "(none)".to_owned(), show)
}

fn list_values(values: &[Value]) -> String {
    let shown: Vec<String> = values.iter().take(5).map(show).collect();
    let more = values.len().saturating_sub(5);
    if more > 0 { format!("{} and {more} more", shown.join(", ")) } else { shown.join(", ") }
}

fn fate_text(fate: Fate) -> &'static str {
    match fate {
        Fate::Rejected => "old calls that still send it are now rejected (`additionalProperties: false`)",
        Fate::Ignored => "old calls that still send it still validate, and the value is silently ignored",
        Fate::MissingRequired => "old calls send the old name, lack the required new one, and are rejected",
        Fate::Revalidated => {
            "old calls that still send it are checked against `additionalProperties` and the value is then ignored"
        }
    }
}

fn side_word(side: Side) -> &'static str {
    if side == Side::Input { "parameter" } else { "field" }
}

#[allow(clippy::too_many_lines, reason = "one arm per change kind; splitting would scatter the mapping")]
fn draft(change: &Change, new_tool: Option<&Tool>, schema: &prose::SchemaByTool<'_>) -> Draft {
    use RuleId as R;
    let path_of = |p: &Option<String>| p.as_deref().map_or_else(String::new, readable_path);
    let old_path = path_of(&change.old_ptr);
    let new_path = path_of(&change.new_ptr);
    match &change.kind {
        ChangeKind::ToolRemoved { successor, merged_with } => {
            let note = match (successor, merged_with.is_empty()) {
                (Some(s), true) => format!(
                    " Its parameters live on in `{}`: keep `{}` as a thin wrapper that forwards to `{}` for the window.",
                    escape(s),
                    escape(&change.tool),
                    escape(s)
                ),
                (Some(s), false) => format!(
                    " It was merged into `{}` together with {}: keep each old tool as a wrapper that forwards to `{}` for the window.",
                    escape(s),
                    merged_with.iter().map(|m| format!("`{}`", escape(m))).collect::<Vec<_>>().join(", "),
                    escape(s)
                ),
                (None, _) => String::new(),
            };
            Draft::new(R::ToolRemoved).old().var("successor_note", note)
        }
        ChangeKind::ContractReplaced { kept, old_params, new_params } => Draft::new(R::ToolContractReplaced)
            .var("kept", kept.to_string())
            .var("old", old_params.to_string())
            .var("new", new_params.to_string()),
        ChangeKind::ToolAdded => Draft::new(R::ToolAdded),
        ChangeKind::ToolRenamed { from } => {
            let mut d = Draft::new(R::ToolRenamed).var("from", escape(from));
            d.from = Some(from.clone());
            d
        }
        ChangeKind::TitleChanged { old, new } => Draft::new(R::ToolTitleChanged)
            .var("old", old.as_deref().map_or_else(|| "(none)".into(), escape))
            .var("new", new.as_deref().map_or_else(|| "(none)".into(), escape)),
        ChangeKind::Annotation { hint, old, new } => {
            let rule = if hint_is_risky(hint, *new) { R::AnnotationRiskRaised } else { R::AnnotationRiskLowered };
            Draft::new(rule).var("hint", *hint).var("old", old.to_string()).var("new", new.to_string())
        }
        ChangeKind::OutputSchemaAdded => Draft::new(R::OutputSchemaAdded),
        ChangeKind::OutputSchemaRemoved => Draft::new(R::OutputSchemaRemoved).old(),
        ChangeKind::DialectChanged { old, new, uses } => Draft::new(R::SchemaDialectChanged)
            .var("old", old.as_deref().map_or_else(|| "(none)".into(), escape))
            .var("new", new.as_deref().map_or_else(|| "(none)".into(), escape))
            .var("detail", dialect_uses(uses)),
        ChangeKind::Description { old, new } => prose::description_draft(change, old, new, schema),
        ChangeKind::Schema { side, change: sc } => schema_draft(*side, sc, &old_path, &new_path, change, new_tool),
        ChangeKind::Rejected { side, keyword, origin, undecided } => {
            let input = *side == Side::Input;
            let note = if undecided.is_empty() {
                String::new()
            } else {
                format!(" The structural comparison alone could not decide it: {}.", undecided.join("; "))
            };
            let d = Draft::new(if input { R::InputCallRejected } else { R::OutputResultRejected })
                .var("path", holder_path(if input { change.new_ptr.as_deref() } else { change.old_ptr.as_deref() }))
                .var("keyword", escape(keyword))
                .var("what", origin.clone())
                .var("note", note);
            if input { d } else { d.old() }
        }
    }
}

#[allow(clippy::too_many_lines, reason = "one arm per schema change kind")]
fn schema_draft(
    side: Side,
    sc: &SchemaChange,
    old_path: &str,
    new_path: &str,
    change: &Change,
    new_tool: Option<&Tool>,
) -> Draft {
    use RuleId as R;
    let input = side == Side::Input;
    let pick = |i: R, o: R| if input { i } else { o };
    let kind = side_word(side);
    match sc {
        SchemaChange::PropertyRemoved { name, was_required, fate } => {
            if input {
                Draft::new(R::InputPropertyRemoved).old().var("path", old_path).var("effect", fate_text(*fate))
            } else if is_identifier(name) {
                Draft::new(R::OutputIdentifierRemoved)
                    .old()
                    .var("path", old_path)
                    .var("effect", "it is gone from results")
            } else {
                let d = Draft::new(R::OutputPropertyRemoved).old().var("path", old_path);
                let d = d.var("presence", if *was_required { "always present" } else { "optional" });
                if *was_required {
                    d.severity(Severity::Error).var("effect", "it is gone, so the next step works with a missing value")
                } else {
                    d.severity(Severity::Warning).var(
                        "effect",
                        "it was optional, so careful consumers handle its absence, but code that expected it whenever it applied now never gets it",
                    )
                }
            }
        }
        SchemaChange::PropertyRenamed { from, to, fate } => {
            let base = if input {
                Draft::new(R::InputPropertyRenamed).var("effect", fate_text(*fate))
            } else if is_identifier(from) {
                Draft::new(R::OutputIdentifierRemoved).var("effect", format!("it was renamed to `{}`", escape(to)))
            } else {
                Draft::new(R::OutputPropertyRenamed)
            };
            let mut d =
                base.var("path", if input || !is_identifier(from) { new_path.to_owned() } else { old_path.to_owned() });
            d = d.var("from", old_path).var("to", new_path).var("name", escape(to));
            d.from.clone_from(&change.old_ptr);
            if !input && is_identifier(from) {
                d.at_old = true;
            }
            d
        }
        SchemaChange::PropertyAdded { name, required, old_closed } => {
            if input {
                let schema = new_tool.zip(change.new_ptr.as_deref()).and_then(|(t, p)| t.value().pointer(p));
                match parameter_authority(name, schema) {
                    Some(w) => Draft::new(R::InputAuthorityExpanded)
                        .var("path", new_path)
                        .var("word", w)
                        .var("what", "is a new parameter that selects the target of the action"),
                    None => Draft::new(R::InputPropertyAdded).var("path", new_path),
                }
            } else {
                let d = Draft::new(R::OutputPropertyAdded)
                    .var("path", new_path)
                    .var("presence", if *required { "always present" } else { "optional" });
                if *old_closed {
                    d.severity(Severity::Error)
                        .var("note", " The old schema had `additionalProperties: false`.")
                        .var(
                            "effect",
                            format!(", but consumers that validate results against the old schema reject every result that carries `{new_path}`"),
                        )
                        .var(
                            "advice",
                            format!(", and return `{new_path}` only once consumers that validate results accept it; announce it (a result schema without `additionalProperties: false` keeps later additions additive)"),
                        )
                } else {
                    d.var("note", "").var("effect", ": the change is additive").var("advice", "; nothing to migrate")
                }
            }
        }
        SchemaChange::RequiredAdded { name, new_property } => {
            let path = join_path(old_path, name);
            let how =
                if *new_property { format!("new required {kind}") } else { format!("existing {kind} made required") };
            let d = Draft::new(pick(R::InputRequiredAdded, R::OutputRequiredAdded)).var("path", path).var("how", how);
            let schema = new_tool.zip(change.new_ptr.as_deref()).and_then(|(t, p)| t.value().pointer(p));
            if input && parameter_authority(name, schema).is_some() {
                d.var(
                    "extra",
                    " It also selects the target of the action: approval given for the old shape does not cover it.",
                )
            } else {
                d.var("extra", "")
            }
        }
        SchemaChange::RequiredRemoved { name } => {
            Draft::new(pick(R::InputRequiredRemoved, R::OutputRequiredRemoved)).var("path", join_path(old_path, name))
        }
        SchemaChange::Type { old, new } => {
            let lost = old.minus(*new);
            let gained = new.minus(*old);
            let breaking = if input { !lost.is_empty() } else { !gained.is_empty() };
            let rule = match (input, breaking) {
                (true, true) => R::InputTypeNarrowed,
                (true, false) => R::InputTypeWidened,
                (false, true) => R::OutputTypeWidened,
                (false, false) => R::OutputTypeNarrowed,
            };
            let detail = if lost == TypeSet::NULL && gained.is_empty() {
                "no longer accepts `null`".to_owned()
            } else if gained == TypeSet::NULL && lost.is_empty() {
                "became nullable".to_owned()
            } else if lost == TypeSet::FRACTION && gained.is_empty() {
                "changed from `number` to `integer`".to_owned()
            } else {
                format!("changed from `{}` to `{}`", old.describe(), new.describe())
            };
            Draft::new(rule).var("path", new_path).var("detail", detail)
        }
        SchemaChange::Enum { removed, added, introduced, dropped } => {
            let less = !removed.is_empty() || *introduced;
            let more = !added.is_empty() || *dropped;
            let breaking = if input { less } else { more };
            let property = new_tool
                .zip(change.new_ptr.as_deref())
                .and_then(|(t, p)| crate::names::authority::property_at(t.value(), p));
            let word =
                property.and_then(|(name, schema)| crate::names::authority::enum_authority(&name, Some(schema), added));
            if let Some(word) = word.filter(|_| input && !breaking) {
                return Draft::new(R::InputAuthorityExpanded)
                    .var("path", new_path)
                    .var("word", word)
                    .var("what", format!("now also accepts {}", list_values(added)));
            }
            let rule = match (input, breaking) {
                (true, true) => R::InputEnumNarrowed,
                (true, false) => R::InputEnumWidened,
                (false, true) => R::OutputEnumWidened,
                (false, false) => R::OutputEnumNarrowed,
            };
            let mut parts = Vec::new();
            if *introduced {
                parts.push("a fixed set of allowed values was introduced".to_owned());
            }
            if *dropped {
                parts.push("the fixed set of allowed values was dropped".to_owned());
            }
            if !removed.is_empty() {
                parts.push(format!("removed {}", list_values(removed)));
            }
            if !added.is_empty() {
                parts.push(format!("added {}", list_values(added)));
            }
            Draft::new(rule).var("path", new_path).var("detail", parts.join("; "))
        }
        SchemaChange::Constraint { keyword, old, new, delta } => {
            let breaking = if input { delta.less } else { delta.more };
            let rule = match (input, breaking) {
                (true, true) => R::InputConstraintTightened,
                (true, false) => R::InputConstraintLoosened,
                (false, true) => R::OutputConstraintLoosened,
                (false, false) => R::OutputConstraintTightened,
            };
            Draft::new(rule)
                .var("path", new_path)
                .var("keyword", keyword.clone())
                .var("old", show_opt(old.as_ref()))
                .var("new", show_opt(new.as_ref()))
        }
        SchemaChange::Pattern { old, new } => Draft::new(pick(R::InputPatternChanged, R::OutputPatternChanged))
            .var("path", new_path)
            .var("old", old.as_deref().map_or_else(|| "(none)".into(), escape))
            .var("new", new.as_deref().map_or_else(|| "(none)".into(), escape)),
        SchemaChange::Format { old, new } => Draft::new(pick(R::InputFormatChanged, R::OutputFormatChanged))
            .var("path", new_path)
            .var("old", old.as_deref().map_or_else(|| "(none)".into(), escape))
            .var("new", new.as_deref().map_or_else(|| "(none)".into(), escape)),
        SchemaChange::AdditionalProperties { closed } => {
            let rule = match (input, closed) {
                (true, true) => R::InputAdditionalPropertiesClosed,
                (true, false) => R::InputAdditionalPropertiesOpened,
                (false, true) => R::OutputAdditionalPropertiesClosed,
                (false, false) => R::OutputAdditionalPropertiesOpened,
            };
            Draft::new(rule).var("path", holder_path(change.new_ptr.as_deref()))
        }
        SchemaChange::Default { old, new } => Draft::new(R::InputDefaultChanged)
            .var(
                "path",
                change.new_ptr.as_deref().map_or_else(String::new, |p| readable_path(defaults::parameter_of(p))),
            )
            .var("old", show_opt(old.as_ref()))
            .var("new", show_opt(new.as_ref())),
        SchemaChange::Composition { keyword, detail, delta } => {
            let breaking = if input { delta.less } else { delta.more };
            let rule = match (input, breaking) {
                (true, true) => R::InputCompositionNarrowed,
                (true, false) => R::InputCompositionWidened,
                (false, true) => R::OutputCompositionWidened,
                (false, false) => R::OutputCompositionNarrowed,
            };
            let d = Draft::new(rule)
                .var("path", holder_path(change.new_ptr.as_deref()))
                .var("keyword", keyword.clone())
                .var("detail", detail.clone());
            if delta.less && !input { d.old() } else { d }
        }
        SchemaChange::CannotDecide { keyword, reason } => Draft::new(pick(R::InputCannotDecide, R::OutputCannotDecide))
            .var("path", new_path)
            .var("keyword", keyword.clone())
            .var("reason", reason.clone()),
    }
}

/// "`items` in array form at `pair`; `dependencies` at (arguments)" (the first three, then a count).
fn dialect_uses(uses: &[crate::compare::dialect::Use]) -> String {
    let mut parts: Vec<String> = uses
        .iter()
        .take(3)
        .map(|u| {
            let holder = u.pointer.rsplit_once('/').map_or(u.pointer.as_str(), |(h, _)| h);
            format!("{} at `{}`", u.what, readable_path(holder))
        })
        .collect();
    if uses.len() > 3 {
        parts.push(format!("{} more", uses.len() - 3));
    }
    parts.join("; ")
}

fn join_path(parent: &str, name: &str) -> String {
    if parent.starts_with('(') || parent.is_empty() { escape(name) } else { format!("{parent}.{}", escape(name)) }
}

/// The readable path of the schema that holds a keyword or branch pointer (`.../additionalProperties`,
/// `.../anyOf/2`).
fn holder_path(pointer: Option<&str>) -> String {
    let Some(p) = pointer else { return String::new() };
    let mut p = p;
    if let Some((head, last)) = p.rsplit_once('/') {
        if last.bytes().all(|b| b.is_ascii_digit()) {
            p = head.rsplit_once('/').map_or(head, |(h, _)| h);
        } else if last == "additionalProperties" {
            p = head;
        }
    }
    readable_path(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_two_lower_case_digits_per_byte() {
        let bytes: Vec<u8> = (0..=255).collect();
        let want = bytes.iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        });
        assert_eq!(hex(&bytes), want);
        assert_eq!(hex(&[]), "");
    }

    #[test]
    fn readable_paths() {
        assert_eq!(readable_path("/outputSchema/properties/issue/properties/id"), "issue.id");
        assert_eq!(readable_path("/inputSchema/properties/tags/items"), "tags[]");
        assert_eq!(readable_path("/inputSchema"), "(arguments)");
        assert_eq!(readable_path("/outputSchema/additionalProperties"), ".*");
        assert_eq!(readable_path("/inputSchema/$defs/Node/properties/next"), "#/$defs/Node.next");
    }

    #[test]
    fn identifier_and_authority_words() {
        for id in ["id", "issue_id", "issueId", "html_url", "sha", "number", "uuid"] {
            assert!(is_identifier(id), "{id}");
        }
        for not in ["title", "identity", "keyword", "numbers_only"] {
            assert!(!is_identifier(not), "{not}");
        }
        assert_eq!(authority_word("accountId").as_deref(), Some("account"));
        assert_eq!(authority_word("limit"), None);
        // Whole words by role, not substrings (issue #14): a date, a listing filter, counts about users.
        for not in ["target_date", "path", "ignoreUserCount"] {
            assert_eq!(authority_word(not), None, "{not}");
        }
    }

    #[test]
    fn fingerprints_are_stable() {
        assert_eq!(fingerprint("a", "b", "/c"), fingerprint("a", "b", "/c"));
        assert_ne!(fingerprint("a", "b", "/c"), fingerprint("a", "b", "/d"));
    }
}
