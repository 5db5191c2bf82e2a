//! `lint-missing-description`: the tool and each top-level parameter of `inputSchema`.
//!
//! A tool without a description is a warning: an agent cannot tell what it does. A parameter without
//! one is a warning only when its name and schema leave its meaning open (an undocumented `limit` may
//! be a count or a page index; `timeout` has no unit); where they say it (`path`, `owner`, `issue_id`,
//! `timeout_ms`, an `enum` of values, `format: uri`, a tool description that names it) it is an info.
//! On the newest releases of the team's 14 real servers, 171 warnings were 171 parameters, most of them
//! `owner`, `repo`, `path`, `project_id`; see [`inferable`].

use serde_json::{Map, Value};

use super::Hit;
use crate::catalog::{RuleId, Severity};
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

/// Final words of a parameter name that say what a string (or a list of strings) holds: an identifier,
/// a place, a piece of text. `file_path`, `repo`, `project_id`, `search_query`, `labels`.
const TEXT_NOUNS: &[&str] = &[
    "id",
    "ids",
    "uuid",
    "slug",
    "sha",
    "name",
    "names",
    "title",
    "path",
    "paths",
    "file",
    "filename",
    "dir",
    "directory",
    "folder",
    "url",
    "urls",
    "uri",
    "email",
    "owner",
    "repo",
    "repository",
    "branch",
    "commit",
    "tag",
    "tags",
    "label",
    "labels",
    "namespace",
    "content",
    "contents",
    "body",
    "text",
    "message",
    "comment",
    "query",
    "q",
    "prompt",
    "code",
    "script",
    "command",
    "language",
    "locale",
    "username",
    "login",
    "pattern",
    "glob",
    "host",
    "hostname",
    "description",
    "summary",
    "subject",
];

/// Final words of an integer parameter's name that say what it is: an identifier, not a quantity.
const NUMBER_NOUNS: &[&str] = &["id", "number", "pid", "port"];

/// Final words that give a number its unit (`timeout_ms`, `max_bytes`, `delay_seconds`).
const UNITS: &[&str] = &[
    "ms",
    "millis",
    "milliseconds",
    "sec",
    "secs",
    "seconds",
    "minutes",
    "hours",
    "days",
    "bytes",
    "kb",
    "mb",
    "percent",
    "pct",
];

/// Single-word boolean names that say what they switch.
const SWITCHES: &[&str] = &["recursive", "force", "overwrite", "draft", "private", "archived", "verbose"];

/// `format`s that say what a string holds, whatever it is called.
const FORMATS: &[&str] =
    &["uri", "uri-reference", "iri", "email", "date-time", "date", "time", "uuid", "hostname", "ipv4", "ipv6"];

/// The words of a parameter name, lowercased: `perPage` -> `per`, `page`; `file_path` -> `file`, `path`.
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The declared `type`s of a parameter, looking through a nullable wrapper (`anyOf: [X, {type: null}]`).
fn types(schema: &Map<String, Value>) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect(),
        _ => ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| schema.get(*k).and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_object)
            .flat_map(types)
            .filter(|t| *t != "null")
            .collect(),
    }
}

/// Why an agent can infer an undescribed parameter's meaning anyway, or None when it cannot: the reason
/// the finding is an info rather than a warning.
fn inferable(tool_description: &str, name: &str, schema: &Value) -> Option<String> {
    let Value::Object(map) = schema else { return None };
    let shown = escape(name);
    if map.get("enum").and_then(Value::as_array).is_some_and(|e| !e.is_empty() && e.iter().all(Value::is_string))
        || map.get("const").is_some_and(Value::is_string)
    {
        return Some(format!("its values are listed (`enum`), and `{shown}` names them"));
    }
    if let Some(f) = map.get("format").and_then(Value::as_str).filter(|f| FORMATS.contains(f)) {
        return Some(format!("`format: {}` says what it holds", escape(f)));
    }
    if name.chars().count() >= 3 && mentions(tool_description, name) {
        return Some(format!("the tool's description names `{shown}`"));
    }
    let words = words(name);
    let last = words.last()?.as_str();
    let types = types(map);
    let all = |wanted: &[&str]| !types.is_empty() && types.iter().all(|t| wanted.contains(t));
    let items_are_strings = map.get("items").and_then(|i| i.get("type")).and_then(Value::as_str) == Some("string");
    let text = all(&["string"]) || (all(&["array"]) && items_are_strings);
    let number = all(&["integer", "number"]);
    let said = (text && TEXT_NOUNS.contains(&last))
        || (number && (NUMBER_NOUNS.contains(&last) || UNITS.contains(&last)))
        || (all(&["boolean"]) && (words.len() >= 2 || SWITCHES.contains(&last)));
    said.then(|| format!("its name and type say what it holds (`{shown}`, {})", types.join(" or ")))
}

/// Whether the tool's description documents `name`: in code marks (`` `name` ``), as a docstring
/// entry (a line that starts with `name:` or `name (`, as Python's `Args:` sections do), or, for a name
/// no English sentence contains by chance (`max_results`, `promptId`), as a whole word anywhere. A
/// plain word (`value`, `range`) in prose is not taken for the parameter.
fn mentions(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    if text.contains(&format!("`{name}`")) {
        return true;
    }
    let entry = text.lines().any(|line| {
        line.trim_start().strip_prefix(name).is_some_and(|rest| rest.starts_with(':') || rest.starts_with(" ("))
    });
    let identifier = name.contains('_') || name.chars().skip(1).any(|c| c.is_uppercase() || c.is_ascii_digit());
    entry
        || identifier
            && text.match_indices(name).any(|(at, _)| {
                !text[..at].chars().next_back().is_some_and(word)
                    && !text[at + name.len()..].chars().next().is_some_and(word)
            })
}

/// `lint-missing-description`: the tool and each top-level parameter.
pub(super) fn descriptions(t: &Map<String, Value>, out: &mut Vec<Hit>) {
    let tool_description = t.get("description").and_then(Value::as_str).unwrap_or_default();
    if blank(t.get("description")) {
        let pointer = if t.contains_key("description") { "/description" } else { "" };
        out.push(Hit::new(RuleId::LintMissingDescription, pointer).var("what", "the tool").var("reason", ""));
    }
    let Some(root) = t.get("inputSchema").filter(|v| v.is_object()) else { return };
    let Some(Value::Object(props)) = root.get("properties") else { return };
    for (name, schema) in props {
        if !described(root, schema, 0) {
            let hit =
                Hit::new(RuleId::LintMissingDescription, format!("/inputSchema/properties/{}", escape_token(name)))
                    .var("what", format!("parameter `{}`", escape(name)));
            out.push(match inferable(tool_description, name, schema) {
                Some(reason) => hit.var("reason", format!("; {reason}")).severity(Severity::Info),
                None => hit.var("reason", ""),
            });
        }
    }
}
