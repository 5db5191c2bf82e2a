//! `lint-protocol-version`: the checks of one MCP revision's `Tool` definition (`--protocol`).

use serde_json::{Map, Value};

use super::{Hit, Protocol};
use crate::catalog::{RuleId, Severity};
use crate::checks;
use crate::load::escape;
use crate::load::span::escape_token;
use crate::text::value_kind as kind_of;

/// What an `error` of this rule says: the revision's `Tool` definition rejects the tool.
const NOT_VALID: &str = "not valid for";

/// What one revision of the MCP `Tool` definition adds to the other lint rules.
pub(super) fn protocol(t: &Map<String, Value>, p: Protocol, out: &mut Vec<Hit>) {
    let version = p.as_str();
    let mut hit = |pointer: String, detail: String| {
        out.push(
            Hit::new(RuleId::LintProtocolVersion, pointer)
                .var("how", NOT_VALID)
                .var("version", version)
                .var("detail", detail),
        );
    };
    let object_roots = p < Protocol::V2026_07_28;
    match t.get("outputSchema") {
        Some(Value::Object(o)) if object_roots && o.get("type") != Some(&Value::String("object".into())) => hit(
            "/outputSchema".into(),
            "`outputSchema` must have `\"type\": \"object\"` at its root (any schema is allowed from 2026-07-28)"
                .into(),
        ),
        Some(Value::Bool(_)) => {
            hit("/outputSchema".into(), "`outputSchema` must be a schema object, not a boolean".into());
        }
        _ => {}
    }
    if object_roots {
        for side in ["inputSchema", "outputSchema"] {
            let Some(Value::Object(props)) = t.get(side).and_then(|s| s.get("properties")) else { continue };
            for (name, schema) in props {
                if !schema.is_object() {
                    hit(
                        format!("/{side}/properties/{}", escape_token(name)),
                        format!(
                            "the schema of `{}` must be an object, not {} (boolean property schemas are allowed from 2026-07-28)",
                            escape(name),
                            kind_of(schema)
                        ),
                    );
                }
            }
        }
    }
    let absent = |key: &str, since: &str, until: Option<&str>| {
        let exists = version >= since && until.is_none_or(|u| version < u);
        (t.contains_key(key) && !exists).then(|| {
            let span = until.map_or_else(|| format!("from {since}"), |u| format!("from {since} until {u}"));
            format!("`{key}` is not part of this revision (it exists {span})")
        })
    };
    for (key, since, until) in [("icons", "2025-11-25", None), ("execution", "2025-11-25", Some("2026-07-28"))] {
        if let Some(detail) = absent(key, since, until) {
            out.push(
                Hit::new(RuleId::LintProtocolVersion, format!("/{key}"))
                    .severity(Severity::Warning)
                    .var("how", "ignored by clients of")
                    .var("version", version)
                    .var("detail", detail),
            );
        } else if t.contains_key(key) {
            let problems = if key == "icons" { icons(&t[key]) } else { execution(&t[key]) };
            for (pointer, detail) in problems {
                out.push(
                    Hit::new(RuleId::LintProtocolVersion, format!("/{key}{pointer}"))
                        .var("how", NOT_VALID)
                        .var("version", version)
                        .var("detail", detail),
                );
            }
        }
    }
}

/// Problems of an `icons` member against the `Icon` definition.
fn icons(v: &Value) -> Vec<(String, String)> {
    let Value::Array(list) = v else {
        return vec![(String::new(), format!("`icons` must be an array, found {}", kind_of(v)))];
    };
    let mut out = Vec::new();
    for (i, icon) in list.iter().enumerate() {
        let Value::Object(m) = icon else {
            out.push((format!("/{i}"), format!("an icon must be an object, found {}", kind_of(icon))));
            continue;
        };
        match m.get("src") {
            Some(Value::String(_)) => {}
            Some(other) => out.push((format!("/{i}/src"), format!("`src` must be a string, found {}", kind_of(other)))),
            None => out.push((format!("/{i}"), "an icon needs a `src`".into())),
        }
        if let Some(x) = m.get("mimeType").filter(|x| !x.is_string()) {
            out.push((format!("/{i}/mimeType"), format!("`mimeType` must be a string, found {}", kind_of(x))));
        }
        if let Some(x) = m.get("sizes").filter(|x| !x.as_array().is_some_and(|a| a.iter().all(Value::is_string))) {
            out.push((
                format!("/{i}/sizes"),
                format!("`sizes` must be an array of strings, found {}", checks::show(x)),
            ));
        }
        if let Some(x) = m.get("theme").filter(|x| !matches!(x.as_str(), Some("dark" | "light"))) {
            out.push((
                format!("/{i}/theme"),
                format!("`theme` must be \"dark\" or \"light\", found {}", checks::show(x)),
            ));
        }
    }
    out
}

/// Problems of an `execution` member against the 2025-11-25 `ToolExecution` definition.
fn execution(v: &Value) -> Vec<(String, String)> {
    let Value::Object(m) = v else {
        return vec![(String::new(), format!("`execution` must be an object, found {}", kind_of(v)))];
    };
    match m.get("taskSupport") {
        Some(x) if !matches!(x.as_str(), Some("forbidden" | "optional" | "required")) => vec![(
            "/taskSupport".into(),
            format!("`taskSupport` must be \"forbidden\", \"optional\" or \"required\", found {}", checks::show(x)),
        )],
        _ => Vec::new(),
    }
}
