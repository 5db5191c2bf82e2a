//! Severity follows the consequence: an input narrowing whose whole rejected set is proven, from the
//! schema change itself, to be something no real call sends (a number past a representation limit)
//! or a degenerate value (`""`, `[]`, `{}`) is reported below `error`, with the reason named.
//!
//! Takes one change and the old and new tool; returns the severity and its reason, or nothing (the
//! rule's default applies). Promises: the containment fact is untouched (the verdict in the JSON
//! report stays `incompatible`, the witness stays); only `input-constraint-tightened` is lowered, and
//! only when the change's own schema proves what is rejected:
//! - **a representation limit** (`info`): a numeric bound added where the old schema had none on that
//!   side, at a value a number representation ends at (`maximum: 9007199254740991`, the largest
//!   integer a JavaScript number holds exactly; the 32- and 64-bit integer limits; the largest
//!   finite 64- and 32-bit floats; `exclusiveMaximum` one above an integer limit, `exclusiveMinimum`
//!   one below): only numbers beyond the limit are rejected;
//! - **a degenerate rejected set** (`warning`, with the witness): `minLength`, `minItems` or
//!   `minProperties` raised from none (or 0) to 1 while nothing else that validates changed at that
//!   schema (no `$ref` in it, annotations aside): the only old value now rejected is `""`, `[]` or
//!   `{}`. A confirmed witness holding exactly that value is required too.
//! - **an unpublished old contract** (`warning`): the old tool's `inputSchema` validates nothing and
//!   is not even the `type: "object"` MCP requires (`{"$schema": ...}`, `{}`, `true`: what a schema
//!   generator writes when it fails), so no call could be planned from it; every input narrowing of
//!   that tool is the new schema publishing the arguments the tool always needed. Measured on the
//!   team's release pairs (issue #31): server-github 0.6.2 published 26 such schemas, and its next
//!   release's 47 errors were all labelled harmless.

use serde_json::{Map, Value};

use crate::catalog::Severity;
use crate::compare::witness::Witness;
use crate::compare::{Change, ChangeKind, SchemaChange, Side};
use crate::load::{Snapshot, Tool};

/// A severity below the rule's default and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeverityReason {
    /// The severity the reason gives (a configured override replaces it; see [`crate::report::json`]).
    pub severity: Severity,
    /// One sentence: what is rejected and why that matters less.
    pub reason: String,
}

/// The lowered severity of a change, its reason, and the why and migration texts that go with it.
pub(super) struct Lowered {
    pub reason: SeverityReason,
    pub why: String,
    pub migration: String,
}

/// Integer limits: (value, name). Inclusive upper bounds; the lower ones are their negatives (and
/// `-2^31`, `-2^63`).
const UPPER: &[(i128, &str)] = &[
    ((1 << 53) - 1, "the largest integer a JavaScript number holds exactly (2^53-1, `Number.MAX_SAFE_INTEGER`)"),
    ((1 << 31) - 1, "the largest 32-bit signed integer (2^31-1)"),
    ((1 << 32) - 1, "the largest 32-bit unsigned integer (2^32-1)"),
    ((1 << 63) - 1, "the largest 64-bit signed integer (2^63-1)"),
    ((1 << 64) - 1, "the largest 64-bit unsigned integer (2^64-1)"),
];
const LOWER: &[(i128, &str)] = &[
    (-((1 << 53) - 1), "the smallest integer a JavaScript number holds exactly (-(2^53-1), `Number.MIN_SAFE_INTEGER`)"),
    (-((1 << 31) - 1), "the negative of the largest 32-bit signed integer (-(2^31-1))"),
    (-(1 << 31), "the smallest 32-bit signed integer (-2^31)"),
    (-((1 << 63) - 1), "the negative of the largest 64-bit signed integer (-(2^63-1))"),
    (-(1 << 63), "the smallest 64-bit signed integer (-2^63)"),
];
/// Float limits, for `maximum` (and their negatives for `minimum`).
const FLOATS: &[(f64, &str)] = &[
    (f64::MAX, "the largest finite 64-bit float (1.7976931348623157e308)"),
    (f32::MAX as f64, "the largest finite 32-bit float (3.4028234663852886e38)"),
];

/// The lowered severity of `change`, when its schema proves the rejected set harmless or degenerate.
pub(super) fn lowered(
    change: &Change,
    old_tool: Option<&Tool>,
    new_tool: Option<&Tool>,
    old: &Snapshot,
) -> Option<Lowered> {
    if let ChangeKind::Schema { side: Side::Input, .. } = &change.kind
        && old_tool.is_some_and(|t| declares_nothing(t.value().get("inputSchema")))
    {
        return Some(unpublished());
    }
    if let (Some(o), Some(n)) = (old_tool, new_tool)
        && let Some(l) = super::named::lowered(change, o, n).or_else(|| super::unlikely::lowered(change, o, n, old))
    {
        return Some(l);
    }
    if let ChangeKind::Schema { side: Side::Input, change: SchemaChange::AdditionalProperties { closed: true } } =
        &change.kind
    {
        return closed_beside_declared(change, old_tool?);
    }
    let ChangeKind::Schema { side: Side::Input, change: SchemaChange::Constraint { keyword, old, new, delta } } =
        &change.kind
    else {
        return None;
    };
    if !delta.less {
        return None;
    }
    let new = new.as_ref()?;
    if let Some(limit) = limit(keyword, new).filter(|_| old.is_none()) {
        let reason = format!(
            "`{keyword}: {new}` is {limit}: only numbers beyond it are rejected, and a client that holds numbers \
             as JavaScript numbers or as integers of that width cannot send one (SDKs write this bound for every \
             integer)"
        );
        return Some(Lowered {
            why: format!(
                "By default reported at `info`, not `error`: {reason}. The containment verdict stays incompatible: \
                 a caller that sends such a number exactly is rejected."
            ),
            migration: "Nothing to migrate for callers within the limit; if some caller sends larger numbers exactly \
                        (arbitrary-precision decimals), keep the old range for them."
                .to_owned(),
            reason: SeverityReason { severity: Severity::Info, reason },
        });
    }
    if old.is_none()
        && let Some(l) = super::counts::lowered(change, keyword, new, old_tool?)
    {
        return Some(l);
    }
    let (empty, what) = match keyword.as_str() {
        "minLength" => (Value::String(String::new()), "the empty string `\"\"`"),
        "minItems" => (Value::Array(Vec::new()), "the empty array `[]`"),
        "minProperties" => (Value::Object(Map::new()), "the empty object `{}`"),
        _ => return None,
    };
    let was = old.as_ref().map_or(Some(0.0), Value::as_f64)?;
    if was != 0.0 || new.as_f64() != Some(1.0) {
        return None;
    }
    if !holds_at_witness(change.witness.as_ref(), &empty) {
        return None;
    }
    let reason =
        format!("`{keyword}: 1` rejects only {what}; any other change at this schema is weighed in its own finding");
    Some(Lowered {
        why: format!(
            "By default reported at `warning`, not `error`: {reason}. Old calls that send it are rejected; it rarely carries \
             meaning, but a caller may send it on purpose (for example as \"no filter\")."
        ),
        migration: format!(
            "Check that no caller sends {what} on purpose; if one may, treat it like an absent value on the server \
             for a deprecation window before rejecting it."
        ),
        reason: SeverityReason { severity: Severity::Warning, reason },
    })
}

/// `additionalProperties: false` added to an input object that already declared its parameters: a call
/// planned from the old schema sends declared names only and is unaffected; only a call that sent a
/// name the schema never declared is now rejected. A `warning` with the witness (measured on the dev
/// release pairs, issue #31: an SDK upgrade closed 90 schemas of one server at once, none labelled
/// blocking). The same for a tool's arguments object that declared no parameters at all (a tool that
/// takes none): a call planned from it sends `{}`, still accepted (17 of 18 blind labels on the fresh
/// dev pairs: not blocking). A nested object that declared nothing (a free-form `metadata` object)
/// stays an `error`: every key an old caller put there was undeclared.
fn closed_beside_declared(change: &Change, old_tool: &Tool) -> Option<Lowered> {
    let ptr = change.old_ptr.as_deref().or(change.new_ptr.as_deref())?;
    let holder = ptr.strip_suffix("/additionalProperties").unwrap_or(ptr);
    let object = old_tool.value().pointer(holder)?.as_object()?;
    if object.contains_key("patternProperties") {
        return None;
    }
    let properties = object.get("properties");
    let declared = properties.and_then(Value::as_object).is_some_and(|p| !p.is_empty());
    let takes_none = holder == "/inputSchema"
        && properties.is_none_or(|p| p.as_object().is_some_and(Map::is_empty))
        && object.get("type").and_then(Value::as_str) == Some("object");
    let reason = if declared {
        "the object already declared its parameters: a call planned from the old schema sends declared names \
         only and is unaffected; only a call that sends an undeclared name is now rejected"
    } else if takes_none {
        "the tool declared no parameters: a call planned from the old schema sends no arguments and is \
         unaffected; only a call that sends a name the schema never declared is now rejected"
    } else {
        return None;
    };
    Some(Lowered {
        why: format!(
            "By default reported at `warning`, not `error`: {reason}. A renamed or removed parameter has its own finding."
        ),
        migration:
            "Check that no caller sends extra names (metadata, parameters only the description mentioned); if one \
                    may, accept and ignore them for a deprecation window before closing the object."
                .to_owned(),
        reason: SeverityReason { severity: Severity::Warning, reason: reason.to_owned() },
    })
}

/// The name of the representation limit `value` is at, as a bound written with `keyword`.
#[allow(clippy::float_cmp, reason = "a limit is matched exactly, as written")]
fn limit(keyword: &str, value: &Value) -> Option<&'static str> {
    let n = value.as_number()?;
    let integer: Option<i128> = n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from)).or_else(|| {
        let f = n.as_f64()?;
        // A float that is a whole number below 2^65 is compared as that integer (exactly: such a
        // float is an integer value).
        #[allow(clippy::cast_possible_truncation, reason = "checked: a whole number below 2^65 in magnitude")]
        (f.fract() == 0.0 && f.abs() < 3.7e19).then_some(f as i128)
    });
    let (list, shift): (&[(i128, &str)], i128) = match keyword {
        "maximum" => (UPPER, 0),
        "exclusiveMaximum" => (UPPER, 1),
        "minimum" => (LOWER, 0),
        "exclusiveMinimum" => (LOWER, -1),
        _ => return None,
    };
    if let Some(i) = integer
        && let Some((_, name)) = list.iter().find(|(l, _)| *l + shift == i)
    {
        return Some(name);
    }
    let f = n.as_f64()?;
    let sign = match keyword {
        "maximum" => 1.0,
        "minimum" => -1.0,
        _ => return None,
    };
    FLOATS.iter().find(|(l, _)| *l * sign == f).map(|(_, name)| *name)
}

/// Whether the witness holds `empty` where its rejection points (`at /q: ...`), or is `empty` itself.
fn holds_at_witness(witness: Option<&Witness>, empty: &Value) -> bool {
    let Some(w) = witness.filter(|w| !w.dropped) else { return false };
    // The innermost rejection: a `oneOf` or `anyOf` names its closest branch's rejection last ("at
    // /d/0: no `oneOf` branch accepts it; the closest, branch 1, rejects it at /d/0/fields: ...").
    let text = &w.rejected_because;
    let last = text.rfind(" at /").map(|i| &text[i + 4..]).or_else(|| text.strip_prefix("at "));
    let at = last.and_then(|r| r.split_once(": ")).map_or("", |(p, _)| p);
    w.instance.pointer(at) == Some(empty)
}

/// Keywords that validate nothing (annotations and identifiers).
const ANNOTATIONS: &[&str] =
    &["$schema", "$id", "$comment", "$anchor", "title", "description", "examples", "default", "deprecated"];

/// Whether an `inputSchema` published no contract at all: absent, `true`, or an object with nothing
/// but annotations (no `type`, so not even the object MCP requires).
fn declares_nothing(schema: Option<&Value>) -> bool {
    match schema {
        None | Some(Value::Bool(true)) => true,
        Some(Value::Object(map)) => map.keys().all(|k| ANNOTATIONS.contains(&k.as_str())),
        Some(_) => false,
    }
}

fn unpublished() -> Lowered {
    let reason = "the old `inputSchema` declared nothing (no `type`, no parameters: what a schema generator writes \
                  when it fails), so no call could be planned from it; the new schema publishes the arguments the tool \
                  needed"
        .to_owned();
    Lowered {
        why: format!(
            "By default reported at `warning`, not `error`: {reason}. A caller that guessed other arguments was \
             guessing before as well; the server decided then what the schema decides now."
        ),
        migration: "Check the new schema against what callers actually send (a call log, `mcp-drift replay`); \
                    nothing to migrate for calls that already sent what the tool needed."
            .to_owned(),
        reason: SeverityReason { severity: Severity::Warning, reason },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn limits_are_matched_exactly() {
        assert!(limit("maximum", &json!(9_007_199_254_740_991_i64)).is_some_and(|n| n.contains("2^53-1")));
        assert!(limit("maximum", &json!(9_007_199_254_740_991.0)).is_some());
        assert!(limit("exclusiveMaximum", &json!(9_007_199_254_740_992_i64)).is_some());
        assert!(limit("minimum", &json!(-9_007_199_254_740_991_i64)).is_some());
        assert!(limit("exclusiveMinimum", &json!(-9_007_199_254_740_992_i64)).is_some());
        assert!(limit("minimum", &json!(-2_147_483_648_i64)).is_some());
        assert!(limit("maximum", &json!(4_294_967_295_u64)).is_some());
        assert!(limit("maximum", &json!(u64::MAX)).is_some());
        assert!(limit("minimum", &json!(i64::MIN)).is_some());
        assert!(limit("maximum", &json!(f64::MAX)).is_some());
        assert!(limit("minimum", &json!(-f64::MAX)).is_some());
        // Not limits: one off, the wrong side, or a real bound.
        for (k, v) in [
            ("maximum", json!(9_007_199_254_740_990_i64)),
            ("maximum", json!(9_007_199_254_740_992_i64)),
            ("exclusiveMaximum", json!(9_007_199_254_740_991_i64)),
            ("minimum", json!(9_007_199_254_740_991_i64)),
            ("maximum", json!(-9_007_199_254_740_991_i64)),
            ("maximum", json!(100)),
            ("minimum", json!(0)),
            ("minLength", json!(2_147_483_647)),
        ] {
            assert_eq!(limit(k, &v), None, "{k}: {v}");
        }
    }
}
