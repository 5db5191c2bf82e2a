//! Description edits as findings: `description-meaning-changed`, `description-reworded`, and a default
//! stated in a parameter's prose (`input-default-changed`).
//!
//! Severity follows the consequence, fact by fact. A fact that a schema change at the same place
//! carries (a `maximum` that moved with "max 100" -> "max 50") has its own finding; the description
//! restating it is shown as `info`. Of the facts left, a prose-only change of what a value denotes, a
//! limit, a unit, a default, a direction, a mapping or a destructive side effect is an `error` (every
//! old call still validates and now means something else); a fact only added (documentation, an
//! obligation, a deprecation) is a warning; a fact only dropped or a name mentioned is `info`. Two
//! edits are never an `error` (issue #31, the fresh release pairs): a description written where there
//! was none (it documents what old calls already got), and a tool description whose first phrase
//! names the tool's action in other words (a parameter's first phrase still says which value it is).

use serde_json::Value;

use super::{Draft, readable_path};
use crate::catalog::{RuleId as R, Severity};
use crate::compare::{Change, SchemaChange};
use crate::load::escape;
use crate::meaning::{self, FactChange, FactKind};

/// A schema change of a tool, where it is.
pub(super) struct SchemaAt<'c> {
    pub pointer: &'c str,
    pub change: &'c SchemaChange,
}

const GRAVE: &str =
    "Only the prose carries this change: every old call still validates and now asks for something else. ";
const MINOR: &str = "An old call means what it meant: the edit drops a fact, names a value, restates a rule in other words or adds explanation around an unchanged text; it is shown for review. ";
const ADDED: &str = "The text was written where there was none: old calls were planned without it, so it documents what they already got; it is shown for review. ";
const TOOL_HEAD: &str = "The first phrase of a tool description names what the tool does; what a call does is carried by the tool's name, its schema and the facts read from the text, each weighed on its own; it is shown for review. ";
const PARAMETER_ACTION: &str = "A destructive action only named in or dropped from a parameter's text documents the value or the tool's own action; what the tool does is in its own description, weighed on its own; it is shown for review. ";
const RESTATED: &str =
    "The edit restates a schema change at the same place, which has its own finding; it is shown for review. ";

/// Schema changes by tool: each description looks only at its own tool's.
pub(super) type SchemaByTool<'c> = std::collections::HashMap<&'c str, Vec<SchemaAt<'c>>>;

pub(super) fn description_draft(change: &Change, old: &str, new: &str, schema: &SchemaByTool<'_>) -> Draft {
    let verdict = meaning::classify(old, new);
    let pointer = change.new_ptr.as_deref().unwrap_or("/description");
    let holder = pointer.strip_suffix("/description").unwrap_or(pointer);
    let is_parameter = pointer.starts_with("/inputSchema/") && pointer.ends_with("/description");
    let what = if holder.is_empty() {
        "the tool description".to_owned()
    } else {
        format!("the description of `{}`", readable_path(pointer))
    };
    if !verdict.meaning {
        let mut d = Draft::new(R::DescriptionReworded).var("what", what).var("trigger", escape(&verdict.trigger));
        d.notes.push(format!("edit: {}", verdict.diff));
        return d;
    }
    // The schema changes at the same place: the parameter and below it, or for the tool description
    // the tool's schema changes whose values the fact names.
    let here: Vec<&SchemaAt<'_>> = schema
        .get(change.tool.as_str())
        .into_iter()
        .flatten()
        .filter(|s| holder.is_empty() || s.pointer == holder || s.pointer.starts_with(&format!("{holder}/")))
        .collect();
    let carried = |c: &FactChange| {
        here.iter().any(|s| carries(s.change, c.kind) && (!holder.is_empty() || names_a_value_of(c, s.change)))
    };
    let (restated, own): (Vec<&FactChange>, Vec<&FactChange>) = verdict.changes.iter().partition(|c| carried(c));
    let default_only = |cs: &[&FactChange]| cs.iter().all(|c| c.kind == FactKind::Default || c.label == "default");
    let (was, now) = verdict.defaults.clone();
    if own.is_empty() {
        // A stated default that moved with the `default` keyword: one change, one finding. The keyword's
        // `input-default-changed` takes this one's word diff (see `checks::defaults`).
        if is_parameter && was != now && default_only(&restated) {
            let show =
                |d: Option<String>| d.map_or_else(|| "(none stated)".to_owned(), |d| format!("\"{}\"", escape(&d)));
            let mut d = Draft::new(R::InputDefaultChanged)
                .var("path", readable_path(holder))
                .var("old", show(was))
                .var("new", show(now));
            d.notes.push(format!("stated in the description: {}", verdict.diff));
            return d;
        }
        let mut d = Draft::new(R::DescriptionMeaningChanged)
            .var("what", what)
            .var("trigger", escape(&meaning::summary(&restated)))
            .var("consequence", RESTATED)
            .severity(Severity::Info);
        d.notes.push("restates the schema change at the same place, which has its own finding".to_owned());
        d.notes.push(format!("edit: {}", verdict.diff));
        return d;
    }
    // A description written where there was none (a generator that dropped every description, then
    // restored them: mongodb-mcp-server 2.1.1 -> 3.0.3) contradicts nothing an old call was planned on:
    // additive documentation, at most a warning (issue #31).
    let first_text = old.trim().is_empty();
    // What a tool description's first phrase names is what the tool does, often as a verb ("Engages in
    // a conversation" -> "Answer a question": perplexity 0.5.1 -> 0.8.4, labelled harmless): the call's
    // meaning is carried by the tool's name, its schema and the facts read from the text (a side
    // effect, a scope, a direction), each weighed on its own. A changed head is grave for a parameter,
    // where it says which value an argument is ("maximum number of results" -> "page index").
    // A destructive action only added to or dropped from a parameter's text ("The commit message",
    // "Force push, overwrites remote history") documents the value or the tool's own action; the tool
    // description carries what the tool does (git-mcp-server's regenerations, labelled harmless). A
    // side effect denied on one side and affirmed on the other stays grave anywhere.
    let one_sided = |c: &FactChange| c.old.is_none() || c.new.is_none();
    let grave_here = |c: &&FactChange| {
        c.grave
            && !(holder.is_empty() && c.kind == FactKind::Denotes)
            && !(is_parameter && c.kind == FactKind::SideEffect && one_sided(c))
    };
    let grave = !first_text && own.iter().any(grave_here);
    // Nothing an old call does can change: a fact only dropped from the text, a literal named or not.
    let minor = own.iter().all(|c| c.minor && !c.grave);
    let mut d =
        Draft::new(R::DescriptionMeaningChanged).var("what", what).var("trigger", escape(&meaning::summary(&own))).var(
            "consequence",
            if grave {
                GRAVE
            } else if first_text {
                ADDED
            } else if own.iter().any(|c| c.grave && c.kind == FactKind::Denotes) {
                TOOL_HEAD
            } else if own.iter().any(|c| c.grave) {
                PARAMETER_ACTION
            } else if minor {
                MINOR
            } else {
                ""
            },
        );
    if grave {
        d = d.severity(Severity::Error);
    } else if minor {
        d = d.severity(Severity::Info);
    }
    // The message names the first two changed facts; the notes name them all when there are more.
    if own.len() > 2 {
        for c in &own {
            d.notes.push(format!("fact {}", escape(&c.to_string())));
        }
    }
    for c in &restated {
        d.notes.push(format!("restates a schema change with its own finding: {}", escape(&c.to_string())));
    }
    d.notes.push(format!("edit: {}", verdict.diff));
    d
}

/// Whether a schema change states the same kind of fact: a bound moves a limit, a `default` a default,
/// an `enum` the values named, a `format` or `pattern` a format, a type or a rename what it denotes,
/// `required` an obligation.
fn carries(change: &SchemaChange, kind: FactKind) -> bool {
    match change {
        SchemaChange::Constraint { .. } => kind == FactKind::Number,
        SchemaChange::Default { .. } => matches!(kind, FactKind::Default | FactKind::Number | FactKind::Literal),
        SchemaChange::Enum { .. } => kind == FactKind::Literal,
        SchemaChange::Format { .. } | SchemaChange::Pattern { .. } => {
            matches!(kind, FactKind::Unit | FactKind::Literal)
        }
        SchemaChange::Type { .. } => matches!(kind, FactKind::Denotes | FactKind::Unit),
        SchemaChange::PropertyRenamed { .. }
        | SchemaChange::PropertyAdded { .. }
        | SchemaChange::PropertyRemoved { .. } => {
            matches!(kind, FactKind::Denotes | FactKind::Literal)
        }
        SchemaChange::RequiredAdded { .. } | SchemaChange::RequiredRemoved { .. } => kind == FactKind::Obligation,
        _ => false,
    }
}

/// For the tool description: whether the fact names a value the schema change is about (its bound,
/// default, enum value or property name), as a whole word.
fn names_a_value_of(fact: &FactChange, change: &SchemaChange) -> bool {
    let mut values: Vec<String> = Vec::new();
    let mut push = |v: &Value| match v {
        Value::String(s) => values.push(s.to_lowercase()),
        Value::Number(n) => values.push(n.to_string()),
        Value::Bool(b) => values.push(b.to_string()),
        _ => {}
    };
    match change {
        SchemaChange::Constraint { old, new, .. } | SchemaChange::Default { old, new } => {
            old.iter().chain(new).for_each(&mut push);
        }
        SchemaChange::Enum { removed, added, .. } => removed.iter().chain(added).for_each(&mut push),
        SchemaChange::PropertyRenamed { from, to, .. } => values.extend([from.to_lowercase(), to.to_lowercase()]),
        SchemaChange::PropertyAdded { name, .. }
        | SchemaChange::PropertyRemoved { name, .. }
        | SchemaChange::RequiredAdded { name, .. }
        | SchemaChange::RequiredRemoved { name } => values.push(name.to_lowercase()),
        _ => {}
    }
    let text = format!("{} {}", fact.old.as_deref().unwrap_or(""), fact.new.as_deref().unwrap_or("")).to_lowercase();
    let words: Vec<&str> = text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-'))).collect();
    values.iter().any(|v| !v.is_empty() && words.iter().any(|w| w.trim_matches('.') == v))
}
