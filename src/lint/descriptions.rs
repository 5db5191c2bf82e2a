//! `lint-missing-description`: the tool and each top-level parameter of `inputSchema`.

use serde_json::{Map, Value};

use super::Hit;
use crate::catalog::RuleId;
use crate::load::escape;
use crate::load::span::escape_token;
use crate::schema;

/// How deep [`described`] follows `$ref`s and wrappers (a reference cycle ends here).
const MAX_DEPTH: usize = 8;

/// Missing, or a blank string. A description of the wrong type is `lint-tool-invalid`, not missing.
fn blank(v: Option<&Value>) -> bool {
    v.is_none_or(|v| v.as_str().is_some_and(|s| s.trim().is_empty()))
}

/// Whether a parameter's schema carries a description an agent reads: on itself, where its `$ref`
/// points, or on a member of an `anyOf`/`oneOf`/`allOf` around it. Schema generators put it on the
/// branch: zod 4 writes an optional nullable string as
/// `{"anyOf": [{"type": "string", "description": "..."}, {"type": "null"}]}` (sentry-mcp: 76 of the 84
/// warnings of one snapshot were that shape), so a description on the branch or on the property both
/// count.
fn described(root: &Value, schema: &Value, depth: usize) -> bool {
    let Value::Object(map) = schema else { return false };
    if !blank(map.get("description")) {
        return true;
    }
    if depth >= MAX_DEPTH {
        return false;
    }
    if let Some(r) = map.get("$ref").and_then(Value::as_str)
        && let Ok((_, target)) = schema::resolve(root, Some(map), r)
        && described(root, target, depth + 1)
    {
        return true;
    }
    ["anyOf", "oneOf", "allOf"]
        .iter()
        .filter_map(|k| map.get(*k).and_then(Value::as_array))
        .flatten()
        .any(|member| described(root, member, depth + 1))
}

/// `lint-missing-description`: the tool and each top-level parameter.
pub(super) fn descriptions(t: &Map<String, Value>, out: &mut Vec<Hit>) {
    if blank(t.get("description")) {
        let pointer = if t.contains_key("description") { "/description" } else { "" };
        out.push(Hit::new(RuleId::LintMissingDescription, pointer).var("what", "the tool"));
    }
    let Some(root) = t.get("inputSchema").filter(|v| v.is_object()) else { return };
    let Some(Value::Object(props)) = root.get("properties") else { return };
    for (name, schema) in props {
        if !described(root, schema, 0) {
            out.push(
                Hit::new(RuleId::LintMissingDescription, format!("/inputSchema/properties/{}", escape_token(name)))
                    .var("what", format!("parameter `{}`", escape(name))),
            );
        }
    }
}
