//! Narrowings whose rejected calls the old contract itself made unlikely, and an output promise that
//! only repeated the text: each a `warning` with its reason and witness (issue #31, classes measured on
//! the fresh release pairs; the verdict in the JSON report stays as proven).
//!
//! - **null for an optional value** (`anyOf [string, null]` -> `string`, the parameter optional on both
//!   sides): a call that omits it is unaffected; only an explicit `null` is now rejected. Not when the
//!   old description gives `null` a meaning ("or null to clear").
//! - **required by the server's own convention**: an existing parameter made required that the old
//!   listing already required, under the same name and description, in at least [`CONVENTION`] of
//!   the other tools that take it (at least [`CONVENTION_TOOLS`] of them): gitlab's `project_id`,
//!   required by 86 of its 96 tools, made required in the other ten.
//! - **a length no name reaches**: `maxLength` of at least [`LONG`] added where there was none.
//! - **a removed output wrapper**: an `outputSchema` that was only `{result: string}` (what `FastMCP`
//!   writes for a tool returning a string, the same text the content block carries) removed.
//!
//! Takes the change, both tools and the old listing; returns the lowered severity or nothing.

use serde_json::{Map, Value};

use super::consequence::{Lowered, SeverityReason};
use crate::catalog::Severity;
use crate::compare::{Change, ChangeKind, SchemaChange, Side};
use crate::load::{Snapshot, Tool, escape};
use crate::schema::TypeSet;

/// The share of the other tools that must require a parameter for it to be the server's convention.
const CONVENTION: f64 = 0.8;
/// The fewest other tools taking the parameter that make a convention.
const CONVENTION_TOOLS: usize = 5;
/// The most tools a listing may have for its convention to be read (each is parsed and kept; a larger
/// listing keeps the error, so the cost stays within the diff's own).
const CONVENTION_LISTING: usize = 500;
/// A `maxLength` at least this long is past any name, identifier or path segment (255 is the common
/// file-name and reference-name limit).
const LONG: u64 = 255;

pub(super) fn lowered(change: &Change, old_tool: &Tool, new_tool: &Tool, old: &Snapshot) -> Option<Lowered> {
    match &change.kind {
        ChangeKind::Schema { side: Side::Input, change: SchemaChange::Type { old: was, new: now } } => {
            null_for_optional(change, *was, *now, old_tool, new_tool)
        }
        ChangeKind::Schema { side: Side::Input, change: SchemaChange::RequiredAdded { name, new_property: false } } => {
            convention(change, name, old_tool, old)
        }
        ChangeKind::Schema {
            side: Side::Input,
            change: SchemaChange::Constraint { keyword, old: None, new: Some(bound), .. },
        } if keyword == "maxLength" => long(bound),
        ChangeKind::OutputSchemaRemoved => wrapper_removed(old_tool),
        _ => None,
    }
}

fn warning(reason: String, migration: &str) -> Lowered {
    Lowered {
        why: format!("By default reported at `warning`, not `error`: {reason}."),
        migration: migration.to_owned(),
        reason: SeverityReason { severity: Severity::Warning, reason },
    }
}

/// The object holding the property at `ptr` (`.../properties/<name>/...`) and the property's name.
fn holder_of(ptr: &str) -> Option<(&str, String)> {
    let (object, rest) = ptr.rsplit_once("/properties/")?;
    let name = rest.split('/').next()?;
    Some((object, name.replace("~1", "/").replace("~0", "~")))
}

fn required_in(tool: &Tool, object: &str, name: &str) -> bool {
    tool.value()
        .pointer(&format!("{object}/required"))
        .and_then(Value::as_array)
        .is_some_and(|r| r.iter().any(|v| v.as_str() == Some(name)))
}

fn null_for_optional(change: &Change, was: TypeSet, now: TypeSet, old_tool: &Tool, new_tool: &Tool) -> Option<Lowered> {
    if was.minus(now) != TypeSet::NULL {
        return None;
    }
    let (object, name) = holder_of(change.new_ptr.as_deref()?)?;
    let (old_object, _) = holder_of(change.old_ptr.as_deref()?)?;
    if required_in(old_tool, old_object, &name) || required_in(new_tool, object, &name) {
        return None;
    }
    // "Milestone number, or null to clear": the old text gave `null` a meaning of its own.
    let said = old_tool
        .value()
        .pointer(&format!("{old_object}/properties/{}", name.replace('~', "~0").replace('/', "~1")))
        .and_then(|p| p.get("description"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_lowercase();
    if said.split(|c: char| !c.is_alphanumeric()).any(|w| matches!(w, "null" | "nil" | "none" | "clear" | "unset")) {
        return None;
    }
    let reason = format!(
        "`{}` stays optional: a call that omits it is unaffected; only a call that sends an explicit `null` is now \
         rejected",
        escape(&name)
    );
    Some(warning(
        reason,
        "Check that no caller sends `null` for it (some clients send `null` for every unset field); if one may, \
         treat `null` like an absent value for a deprecation window.",
    ))
}

fn convention(change: &Change, name: &str, old_tool: &Tool, old: &Snapshot) -> Option<Lowered> {
    let object = change.new_ptr.as_deref()?.strip_suffix("/required")?;
    if object != "/inputSchema" || old.tools.len() > CONVENTION_LISTING {
        return None;
    }
    let described = |t: &Tool| -> Option<Value> {
        t.value().pointer("/inputSchema/properties")?.as_object()?.get(name).map(strip_titles)
    };
    let this = described(old_tool)?;
    let (mut taking, mut requiring) = (0usize, 0usize);
    for t in old.tools.values().filter(|t| t.name != old_tool.name) {
        if described(t).is_some_and(|d| d == this) {
            taking += 1;
            requiring += usize::from(required_in(t, "/inputSchema", name));
        }
    }
    #[allow(clippy::cast_precision_loss, reason = "tool counts are small")]
    let share = requiring as f64 / taking.max(1) as f64;
    if taking < CONVENTION_TOOLS || share < CONVENTION {
        return None;
    }
    let reason = format!(
        "the old listing already required `{}`, with the same schema and description, in {requiring} of the {taking} \
         other tools that take it: a call planned by an agent that follows the server's contract sends it; only a \
         call that omitted it here is now rejected",
        escape(name)
    );
    Some(warning(
        reason,
        "Check that no caller omits it for this tool (a call log, `mcp-drift replay`); if one may, keep the old \
         fallback for a deprecation window.",
    ))
}

/// A property schema without its title, examples and comment; its description stays (two parameters
/// are "the same" when they say the same).
fn strip_titles(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "title" | "examples" | "$comment"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Map<String, Value>>(),
        ),
        other => other.clone(),
    }
}

fn long(bound: &Value) -> Option<Lowered> {
    let n = bound.as_u64().filter(|n| *n >= LONG)?;
    let reason = format!(
        "`maxLength: {n}` rejects only strings longer than {n} characters, longer than any name, identifier or path \
         segment"
    );
    Some(warning(
        reason,
        "Check that no caller sends longer text (a message, a document) here; if one may, raise the limit or accept \
         it for a deprecation window.",
    ))
}

fn wrapper_removed(old_tool: &Tool) -> Option<Lowered> {
    let schema = old_tool.value().get("outputSchema")?.as_object()?;
    let properties = schema.get("properties")?.as_object()?;
    let only_result = properties.len() == 1
        && properties.get("result").and_then(|r| r.get("type")).and_then(Value::as_str) == Some("string");
    let other_keys = schema.keys().any(|k| {
        !matches!(
            k.as_str(),
            "type" | "properties" | "required" | "title" | "description" | "x-fastmcp-wrap-result" | "$schema"
        )
    });
    if !only_result || other_keys {
        return None;
    }
    let reason = "the old `outputSchema` only wrapped a string as `{result: string}` (what FastMCP writes for a tool \
                  that returns text), the same text its content block carries; a consumer that read \
                  `structuredContent.result` must now read the text content"
        .to_owned();
    Some(warning(
        reason,
        "Tell consumers to read the text content; keep sending `structuredContent` for a deprecation window if one \
         reads it.",
    ))
}
