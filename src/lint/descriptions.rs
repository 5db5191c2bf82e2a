//! `lint-missing-description`: the tool and each top-level parameter of `inputSchema`.

use serde_json::{Map, Value};

use super::Hit;
use crate::catalog::RuleId;
use crate::load::escape;
use crate::load::span::escape_token;
use crate::schema;

/// `lint-missing-description`: the tool and each top-level parameter.
pub(super) fn descriptions(t: &Map<String, Value>, out: &mut Vec<Hit>) {
    // A description of the wrong type is `lint-tool-invalid`, not missing.
    let blank = |v: Option<&Value>| v.is_none_or(|v| v.as_str().is_some_and(|s| s.trim().is_empty()));
    if blank(t.get("description")) {
        let pointer = if t.contains_key("description") { "/description" } else { "" };
        out.push(Hit::new(RuleId::LintMissingDescription, pointer).var("what", "the tool"));
    }
    let Some(root) = t.get("inputSchema").filter(|v| v.is_object()) else { return };
    let Some(Value::Object(props)) = root.get("properties") else { return };
    for (name, schema) in props {
        // A parameter described where its `$ref` points is described.
        let target =
            schema.get("$ref").and_then(Value::as_str).and_then(|r| schema::resolve(root, schema.as_object(), r).ok());
        let described = !blank(schema.get("description")) || target.is_some_and(|(_, v)| !blank(v.get("description")));
        if !described {
            out.push(
                Hit::new(RuleId::LintMissingDescription, format!("/inputSchema/properties/{}", escape_token(name)))
                    .var("what", format!("parameter `{}`", escape(name))),
            );
        }
    }
}
