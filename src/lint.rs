//! Lint: checks one snapshot on its own, before it ships. A stage beside compare/checks: it reads the
//! loaded [`Snapshot`] (loaded with [`Mode::Lint`](crate::load::Mode), so broken tools are findings
//! rather than input errors) and returns [`Finding`]s with one location each.
//!
//! Promises: every rule it emits has a document in `rules/` (ids start with `lint-`); an `error` is a
//! proven problem (a schema that cannot be satisfied, a reference that does not resolve, a tool the MCP
//! `Tool` definition rejects); heuristics are warnings; nothing is fetched from the network.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::str::FromStr;

use rayon::prelude::*;
use serde_json::{Map, Value};

use crate::catalog::{RuleId, Severity};
use crate::checks::{self, Finding};
use crate::load::span::escape_token;
use crate::load::{Snapshot, Sources, Tool, escape, hidden_kind};
use crate::schema::{self, RefProblem};

mod annotations;
mod descriptions;
mod open_input;
mod protocol;

/// An MCP protocol revision whose `Tool` definition `--protocol` checks against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Protocol {
    V2025_06_18,
    V2025_11_25,
    V2026_07_28,
}

impl Protocol {
    pub const ALL: [Protocol; 3] = [Protocol::V2025_06_18, Protocol::V2025_11_25, Protocol::V2026_07_28];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::V2025_06_18 => "2025-06-18",
            Protocol::V2025_11_25 => "2025-11-25",
            Protocol::V2026_07_28 => "2026-07-28",
        }
    }
}

impl FromStr for Protocol {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Protocol::ALL.into_iter().find(|p| p.as_str() == s).ok_or_else(|| {
            let known: Vec<&str> = Protocol::ALL.iter().map(|p| p.as_str()).collect();
            format!("unknown MCP protocol version `{s}` (known: {})", known.join(", "))
        })
    }
}

/// What to check beyond the default rules.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Check against the `Tool` definition of this protocol revision (`lint-protocol-version`).
    pub protocol: Option<Protocol>,
}

/// Lints every tool of a snapshot (in parallel), sorted like diff findings.
#[must_use]
pub fn lint(snapshot: &Snapshot, sources: &Sources, options: Options) -> Vec<Finding> {
    // `lint-open-input` is one summary of the snapshot, not one finding per tool: each tool only says
    // whether it is open.
    let per_tool: Vec<(Vec<Finding>, Option<&Tool>)> = snapshot
        .tools
        .par_iter()
        .map(|(_, tool)| {
            let (open, hits): (Vec<Hit>, Vec<Hit>) =
                tool_hits(&tool.parse(), options).into_iter().partition(|h| h.rule == RuleId::LintOpenInput);
            let findings =
                hits.into_iter().map(|h| checks::standalone(h.rule, h.severity, tool, h.pointer, h.vars, sources));
            (findings.collect(), (!open.is_empty()).then_some(tool))
        })
        .collect();
    let mut open: Vec<&Tool> = Vec::new();
    let mut out: Vec<Finding> = Vec::new();
    for (findings, tool) in per_tool {
        out.extend(findings);
        open.extend(tool);
    }
    out.extend(open_input::summary(&open, snapshot.tools.len(), sources));
    // Each repeat is reported where it is: "definition 2 of 3, first at file:line:column".
    let mut totals: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for tool in &snapshot.repeated {
        *totals.entry(tool.name.as_str()).or_insert(1) += 1;
    }
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for tool in &snapshot.repeated {
        let total = totals[tool.name.as_str()];
        let nth = *seen.entry(tool.name.as_str()).and_modify(|n| *n += 1).or_insert(2);
        let first = snapshot
            .tools
            .get(&tool.name)
            .and_then(|t| checks::locate(t, "", sources))
            .map(|l| format!(", first at {}:{}:{}", l.path, l.line, l.column));
        let detail = format!(" (definition {nth} of {total}{})", first.unwrap_or_default());
        out.push(checks::standalone(
            RuleId::LintDuplicateTool,
            None,
            tool,
            String::new(),
            vec![("detail", detail)],
            sources,
        ));
    }
    checks::sort(&mut out);
    out
}

/// One problem found in a tool, before it becomes a [`Finding`].
struct Hit {
    rule: RuleId,
    severity: Option<Severity>,
    /// JSON Pointer inside the tool object.
    pointer: String,
    vars: Vec<(&'static str, String)>,
}

impl Hit {
    fn new(rule: RuleId, pointer: impl Into<String>) -> Hit {
        Hit { rule, severity: None, pointer: pointer.into(), vars: Vec::new() }
    }
    fn var(mut self, key: &'static str, value: impl Into<String>) -> Hit {
        self.vars.push((key, value.into()));
        self
    }
    fn severity(mut self, s: Severity) -> Hit {
        self.severity = Some(s);
        self
    }
}

fn tool_hits(tool: &Value, options: Options) -> Vec<Hit> {
    let mut out = Vec::new();
    let Some(t) = tool.as_object() else { return out };
    let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
    // Each schema document is walked once; every check reads the same list of subschemas.
    let docs: Vec<Doc<'_>> = ["inputSchema", "outputSchema"]
        .into_iter()
        .filter_map(|side| t.get(side).filter(|v| v.is_object() || v.is_boolean()).map(|root| Doc::new(root, side)))
        .collect();
    let doc = |side: &str| docs.iter().find(|d| d.side == side);
    tool_name(name, &mut out);
    tool_members(t, &mut out);
    hidden_text(t, &docs, &mut out);
    descriptions::descriptions(t, &mut out);
    annotations::annotations(t, &mut out);
    match t.get("inputSchema") {
        Some(Value::Object(root)) => {
            input_shape(root, &mut out);
            if let Some(d) = doc("inputSchema") {
                schema_checks(d, &mut out);
            }
        }
        other => out.push(Hit::new(RuleId::LintInputNotObject, if other.is_some() { "/inputSchema" } else { "" }).var(
            "detail",
            match other {
                None => "is missing".to_owned(),
                Some(v) => format!("is {}, not a JSON Schema object", crate::text::value_kind(v)),
            },
        )),
    }
    if let Some(output) = t.get("outputSchema") {
        if let Some(d) = doc("outputSchema") {
            schema_checks(d, &mut out);
        } else {
            out.push(
                Hit::new(RuleId::LintToolInvalid, "/outputSchema")
                    .var("detail", format!("`outputSchema` is {}, not a JSON Schema", crate::text::value_kind(output))),
            );
        }
    }
    if let Some(p) = options.protocol {
        protocol::protocol(t, p, &mut out);
    }
    out
}

/// `lint-tool-name`: 1 to 128 characters of `A-Za-z0-9_-.` (the MCP naming guidance).
fn tool_name(name: &str, out: &mut Vec<Hit>) {
    let count = name.chars().count();
    let detail = if count == 0 {
        Some("is empty".to_owned())
    } else if count > 128 {
        Some(format!("is {count} characters long (at most 128)"))
    } else {
        let odd: BTreeSet<char> =
            name.chars().filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))).collect();
        (!odd.is_empty()).then(|| {
            let shown: Vec<String> =
                odd.iter().take(5).map(|c| format!("{} (U+{:04X})", show_char(*c), *c as u32)).collect();
            format!("contains {} (allowed: A-Z, a-z, 0-9, `_`, `-`, `.`)", shown.join(", "))
        })
    };
    if let Some(detail) = detail {
        out.push(Hit::new(RuleId::LintToolName, "/name").var("detail", detail));
    }
}

fn show_char(c: char) -> String {
    match c {
        ' ' => "a space".to_owned(),
        c if c.is_whitespace() => "a blank".to_owned(),
        c if hidden_kind(c).is_some() => "a hidden character".to_owned(),
        c => format!("`{c}`"),
    }
}

/// `lint-tool-invalid`: members whose type the MCP `Tool` definition fixes in every revision.
fn tool_members(t: &Map<String, Value>, out: &mut Vec<Hit>) {
    let mut bad = |pointer: &str, what: &str, expected: &str, v: &Value| {
        out.push(
            Hit::new(RuleId::LintToolInvalid, pointer)
                .var("detail", format!("`{what}` must be {expected}, found {}", crate::text::value_kind(v))),
        );
    };
    for key in ["title", "description"] {
        if let Some(v) = t.get(key).filter(|v| !v.is_string()) {
            bad(&format!("/{key}"), key, "a string", v);
        }
    }
    if let Some(v) = t.get("_meta").filter(|v| !v.is_object()) {
        bad("/_meta", "_meta", "an object", v);
    }
    match t.get("annotations") {
        Some(Value::Object(a)) => {
            for (key, v) in a {
                let expected = match key.as_str() {
                    "title" => (!v.is_string()).then_some("a string"),
                    "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint" => {
                        (!v.is_boolean()).then_some("a boolean")
                    }
                    _ => None,
                };
                if let Some(expected) = expected {
                    bad(&format!("/annotations/{}", escape_token(key)), &format!("annotations.{key}"), expected, v);
                }
            }
        }
        Some(v) => bad("/annotations", "annotations", "an object", v),
        None => {}
    }
}

/// `lint-hidden-text`: invisible or terminal-controlling characters in names, titles and descriptions.
fn hidden_text(t: &Map<String, Value>, docs: &[Doc<'_>], out: &mut Vec<Hit>) {
    // Pointer and wording are built only for text that has something to report.
    let mut check = |text: &str, place: &dyn Fn() -> (String, String)| {
        if let Some(detail) = hidden_detail(text) {
            let (pointer, what) = place();
            out.push(Hit::new(RuleId::LintHiddenText, pointer).var("what", what).var("detail", detail));
        }
    };
    for (key, what) in [("name", "the tool name"), ("title", "the tool title"), ("description", "the tool description")]
    {
        if let Some(s) = t.get(key).and_then(Value::as_str) {
            check(s, &|| (format!("/{key}"), what.to_owned()));
        }
    }
    if let Some(s) = t.get("annotations").and_then(|a| a.get("title")).and_then(Value::as_str) {
        check(s, &|| ("/annotations/title".into(), "annotations.title".into()));
    }
    for (ptr, map) in docs.iter().flat_map(|d| &d.nodes) {
        for key in ["title", "description"] {
            if let Some(s) = map.get(key).and_then(Value::as_str) {
                check(s, &|| (format!("{ptr}/{key}"), format!("the {key} at `{}`", where_(ptr))));
            }
        }
        for name in map.get("properties").and_then(Value::as_object).into_iter().flat_map(Map::keys) {
            check(name, &|| {
                (format!("{ptr}/properties/{}", escape_token(name)), format!("a property name in `{}`", where_(ptr)))
            });
        }
    }
}

/// `U+200B (zero-width) at character 12, …` or `None` for clean text. A carriage return before a
/// newline is ordinary line ending.
fn hidden_detail(text: &str) -> Option<String> {
    // Printable ASCII, newlines and tabs hide nothing: the common case, checked bytewise.
    if text.bytes().all(|b| matches!(b, 0x20..=0x7E | b'\n' | b'\t')) {
        return None;
    }
    if !text.chars().any(|c| hidden_kind(c).is_some()) {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    let found: Vec<(usize, char, &str)> = chars
        .iter()
        .enumerate()
        .filter(|&(i, &c)| !(c == '\r' && chars.get(i + 1) == Some(&'\n')))
        .filter_map(|(i, &c)| hidden_kind(c).map(|k| (i + 1, c, k)))
        .collect();
    if found.is_empty() {
        return None;
    }
    let mut detail: Vec<String> =
        found.iter().take(3).map(|(at, c, kind)| format!("U+{:04X} ({kind}) at character {at}", *c as u32)).collect();
    if found.len() > 3 {
        detail.push(format!("and {} more", found.len() - 3));
    }
    Some(detail.join(", "))
}

/// `lint-input-not-object`, `lint-root-combinator`, `lint-open-input`: the root of `inputSchema`.
fn input_shape(root: &Map<String, Value>, out: &mut Vec<Hit>) {
    match root.get("type") {
        Some(Value::String(s)) if s == "object" => {}
        None => out.push(
            Hit::new(RuleId::LintInputNotObject, "/inputSchema")
                .var("detail", "has no `\"type\": \"object\"` at its root".to_owned()),
        ),
        Some(other) => out.push(
            Hit::new(RuleId::LintInputNotObject, "/inputSchema/type")
                .var("detail", format!("has `\"type\": {}` at its root, not `\"object\"`", checks::show(other))),
        ),
    }
    for keyword in ["anyOf", "oneOf", "allOf", "not", "if"] {
        if root.contains_key(keyword) {
            out.push(Hit::new(RuleId::LintRootCombinator, format!("/inputSchema/{keyword}")).var("keyword", keyword));
        }
    }
    let closed = |k: &str| root.get(k) == Some(&Value::Bool(false));
    let open = matches!(root.get("additionalProperties"), None | Some(Value::Bool(true)));
    if open && !closed("unevaluatedProperties") && root.get("type") == Some(&Value::String("object".into())) {
        out.push(Hit::new(RuleId::LintOpenInput, "/inputSchema"));
    }
}

/// `inputSchema`, `/properties/a/items` -> `inputSchema.a[]`.
fn where_(ptr: &str) -> String {
    let side = if ptr.starts_with("/outputSchema") { "outputSchema" } else { "inputSchema" };
    let rest = checks::readable_path(ptr);
    if rest.starts_with('(') {
        side.to_owned()
    } else if rest.starts_with('#') {
        format!("{side} {rest}")
    } else {
        format!("{side}.{rest}")
    }
}

/// One schema document of a tool (`inputSchema` or `outputSchema`) and all its subschemas.
struct Doc<'a> {
    side: &'static str,
    root: &'a Value,
    /// `/inputSchema` or `/outputSchema`.
    base: String,
    /// Every subschema object in pre-order, with its pointer inside the tool.
    nodes: Vec<(String, &'a Map<String, Value>)>,
    /// Keeps the document's reference index while the document is linted.
    _refs: schema::refs::Scope<'a>,
}

impl<'a> Doc<'a> {
    fn new(root: &'a Value, side: &'static str) -> Doc<'a> {
        let base = format!("/{side}");
        let nodes = subschemas(root, &base);
        Doc { side, root, base, nodes, _refs: schema::refs::Scope::new([root]) }
    }
}

/// Every subschema of `root` (schema positions only: applicators and definitions, never instance data
/// such as `enum`, `const`, `default`, `examples`), with its pointer, in pre-order. Iterative.
fn subschemas<'a>(root: &'a Value, base: &str) -> Vec<(String, &'a Map<String, Value>)> {
    const MAPS: &[&str] = &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
    const ONE: &[&str] = &[
        "additionalProperties",
        "items",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "additionalItems",
        "contentSchema",
    ];
    const LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];
    let mut found = Vec::new();
    let mut stack = vec![(base.to_owned(), root)];
    while let Some((ptr, value)) = stack.pop() {
        let Value::Object(map) = value else { continue };
        for (k, v) in map.iter().rev() {
            // Pointers are built for schema positions only, not for every member.
            let at = || format!("{ptr}/{}", escape_token(k));
            match v {
                Value::Object(children) if MAPS.contains(&k.as_str()) => {
                    let at = at();
                    for (name, child) in children.iter().rev() {
                        stack.push((format!("{at}/{}", escape_token(name)), child));
                    }
                }
                Value::Object(_) if ONE.contains(&k.as_str()) => stack.push((at(), v)),
                Value::Array(list) if LISTS.contains(&k.as_str()) => {
                    let at = at();
                    for (i, child) in list.iter().enumerate().rev() {
                        stack.push((format!("{at}/{i}"), child));
                    }
                }
                _ => {}
            }
        }
        found.push((ptr, map));
    }
    found
}

/// The JSON Schema dialect a schema declares with `$schema` (2020-12 when it declares none, as MCP
/// specifies), or the unknown URI.
fn dialect(schema: &Value) -> Result<jsonschema::Draft, String> {
    use jsonschema::Draft;
    let Some(uri) = schema.get("$schema") else { return Ok(Draft::Draft202012) };
    let Some(s) = uri.as_str() else { return Err(uri.to_string()) };
    let bare = s.trim_end_matches('#').trim_start_matches("https://").trim_start_matches("http://");
    Ok(match bare {
        "json-schema.org/draft/2020-12/schema" => Draft::Draft202012,
        "json-schema.org/draft/2019-09/schema" => Draft::Draft201909,
        "json-schema.org/draft-07/schema" => Draft::Draft7,
        "json-schema.org/draft-06/schema" => Draft::Draft6,
        "json-schema.org/draft-04/schema" => Draft::Draft4,
        _ => return Err(s.to_owned()),
    })
}

fn dialect_name(d: jsonschema::Draft) -> &'static str {
    use jsonschema::Draft;
    match d {
        Draft::Draft4 => "draft-04",
        Draft::Draft6 => "draft-06",
        Draft::Draft7 => "draft-07",
        Draft::Draft201909 => "2019-09",
        _ => "2020-12",
    }
}

fn meta_validator(d: jsonschema::Draft) -> jsonschema::meta::MetaValidator<'static> {
    use jsonschema::Draft;
    match d {
        Draft::Draft4 => jsonschema::draft4::meta::validator(),
        Draft::Draft6 => jsonschema::draft6::meta::validator(),
        Draft::Draft7 => jsonschema::draft7::meta::validator(),
        Draft::Draft201909 => jsonschema::draft201909::meta::validator(),
        _ => jsonschema::draft202012::meta::validator(),
    }
}

/// `lint-schema-invalid` at `error`: the schema is invalid, what that does, what to do.
const INVALID: &str = "is not valid JSON Schema";
const REJECTED: &str = "a schema it rejects makes some clients drop the tool, others skip validation silently";
const FIX: &str = "fix it so that it validates against its meta-schema";

/// At most this many meta-schema violations are reported per schema.
const MAX_INVALID: usize = 10;

/// Everything checked inside one schema document (`inputSchema` or `outputSchema`).
fn schema_checks(doc: &Doc<'_>, out: &mut Vec<Hit>) {
    let (root, base, side) = (doc.root, doc.base.as_str(), doc.side);
    let draft = match dialect(root) {
        Ok(d) => d,
        Err(_) if root.get("$schema").is_some_and(|v| !v.is_string()) => {
            out.push(
                Hit::new(RuleId::LintSchemaInvalid, format!("{base}/$schema"))
                    .var("what", side)
                    .var("dialect", "any dialect")
                    .var("detail", "`$schema` must be a URI string".to_owned())
                    .var("how", INVALID)
                    .var("effect", REJECTED)
                    .var("advice", FIX),
            );
            return;
        }
        Err(uri) => {
            out.push(
                Hit::new(RuleId::LintSchemaInvalid, format!("{base}/$schema"))
                    .severity(Severity::Warning)
                    .var("what", side)
                    .var("how", "could not be checked")
                    .var("effect", "one that does not know the dialect `$schema` names may reject the schema, or skip validation silently")
                    .var("advice", "name a dialect they know in `$schema`: 2020-12, which MCP specifies, or none")
                    .var("dialect", "unknown dialect")
                    .var(
                        "detail",
                        format!(
                            "`$schema` {} is not a JSON Schema dialect mcp-drift knows, so the schema was not checked",
                            checks::show(&Value::String(uri))
                        ),
                    ),
            );
            return;
        }
    };
    let meta = meta_validator(draft);
    // Collecting errors is slower than a yes/no answer: only invalid schemas pay for it.
    let errors: Vec<(String, String)> = if meta.is_valid(root) {
        // `is_valid` does not assert `format: "regex"`; check the patterns themselves.
        bad_patterns(doc, draft)
    } else {
        meta.iter_errors(root).map(|e| (format!("{base}{}", e.instance_path()), e.to_string())).collect()
    };
    for (pointer, message) in errors.iter().take(MAX_INVALID) {
        out.push(
            Hit::new(RuleId::LintSchemaInvalid, pointer.clone())
                .var("what", side)
                .var("dialect", dialect_name(draft))
                .var("detail", escape(message))
                .var("how", INVALID)
                .var("effect", REJECTED)
                .var("advice", FIX),
        );
    }
    references(doc, out);
    required_declared(doc, out);
    if errors.is_empty() {
        defaults(doc, draft, out);
    }
}

/// `pattern` values and `patternProperties` names that the validator's regex engine rejects, with
/// their pointers.
fn bad_patterns(doc: &Doc<'_>, draft: jsonschema::Draft) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let check =
        |p: &str| schema::regex_budget::options().with_draft(draft).build(&serde_json::json!({"pattern": p})).err();
    for (ptr, map) in &doc.nodes {
        if let Some(Value::String(p)) = map.get("pattern")
            && let Some(e) = check(p)
        {
            out.push((format!("{ptr}/pattern"), e.to_string()));
        }
        for name in map.get("patternProperties").and_then(Value::as_object).into_iter().flat_map(Map::keys) {
            if let Some(e) = check(name) {
                out.push((format!("{ptr}/patternProperties/{}", escape_token(name)), e.to_string()));
            }
        }
    }
    out
}

/// `lint-ref-unresolved` and `lint-ref-remote`.
fn references(doc: &Doc<'_>, out: &mut Vec<Hit>) {
    let root = doc.root;
    for (ptr, map) in &doc.nodes {
        for keyword in ["$ref", "$dynamicRef"] {
            let Some(reference) = map.get(keyword).and_then(Value::as_str) else { continue };
            let pointer = format!("{ptr}/{}", escape_token(keyword));
            let resolved = if keyword == "$dynamicRef" {
                dynamic_anchor(doc, map, reference)
            } else {
                schema::resolve(root, Some(map), reference).map(|_| ())
            };
            match resolved {
                Ok(()) | Err(RefProblem::Dynamic(_) | RefProblem::TooLong(_)) => {}
                Err(RefProblem::Remote(_)) => out.push(
                    Hit::new(RuleId::LintRefRemote, pointer).var("keyword", keyword).var("name", escape(reference)),
                ),
                // Ambiguous: two schemas of the resource declare the name (or share the `$id`), so
                // there is no single target.
                Err(RefProblem::Unresolved(_) | RefProblem::Ambiguous(_)) => out.push(
                    Hit::new(RuleId::LintRefUnresolved, pointer).var("keyword", keyword).var("name", escape(reference)),
                ),
            }
        }
    }
}

/// A `$dynamicRef` resolves like a `$ref`, or to a `$dynamicAnchor` of that name.
fn dynamic_anchor(doc: &Doc<'_>, site: &Map<String, Value>, reference: &str) -> Result<(), RefProblem> {
    if let Some(name) = reference.strip_prefix('#').filter(|n| !n.is_empty() && !n.starts_with('/'))
        && doc.nodes.iter().any(|(_, map)| map.get("$dynamicAnchor").and_then(Value::as_str) == Some(name))
    {
        return Ok(());
    }
    schema::resolve_dynamic(doc.root, Some(site), reference).map(|_| ())
}

/// `lint-required-undeclared`: a required name no schema declares. An error when the same schema
/// forbids undeclared names (nothing can satisfy it), a warning otherwise.
fn required_declared(doc: &Doc<'_>, out: &mut Vec<Hit>) {
    let root = doc.root;
    // Per visited schema: the names it and its applicator members declare for the same object. Visits
    // come in pre-order, so the ancestors of a schema are already here when it is checked.
    let mut seen: Vec<(&str, BTreeSet<String>)> = Vec::new();
    for (ptr, map) in &doc.nodes {
        let ptr = ptr.as_str();
        let mut shared = declared(root, map);
        for k in ["allOf", "anyOf", "oneOf"] {
            for member in map.get(k).and_then(Value::as_array).into_iter().flatten() {
                if let Value::Object(m) = member {
                    shared.extend(declared(root, m));
                }
            }
        }
        for k in ["if", "then", "else"] {
            if let Some(Value::Object(m)) = map.get(k) {
                shared.extend(declared(root, m));
            }
        }
        seen.push((ptr, shared));
        let Some(Value::Array(required)) = map.get("required") else { continue };
        // `additionalProperties` sees only the `properties` of its own schema object.
        let local: BTreeSet<&str> = map
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let closed = map.get("additionalProperties") == Some(&Value::Bool(false));
        let patterns = map.get("patternProperties").and_then(Value::as_object);
        let dynamic = map.contains_key("$dynamicRef") || map.contains_key("$recursiveRef");
        // Built on the first undeclared name, once per schema object.
        let names_matcher: std::cell::OnceCell<Option<Option<jsonschema::Validator>>> = std::cell::OnceCell::new();
        for (i, name) in required.iter().enumerate() {
            let Some(name) = name.as_str() else { continue };
            if local.contains(name) {
                continue;
            }
            let matched = names_matcher
                .get_or_init(|| patterns.map(pattern_matcher))
                .as_ref()
                // A match that ran out of its budget counts as a match: no finding that cannot be decided.
                .map(|m| {
                    m.as_ref().map(|v| {
                        v.validate(&serde_json::json!({ name: null }))
                            .map_or_else(|e| schema::regex_budget::is_undecided(&e), |()| true)
                    })
                });
            let pointer = format!("{ptr}/required/{i}");
            if closed && matches!(matched, None | Some(Some(false))) {
                out.push(
                    Hit::new(RuleId::LintRequiredUndeclared, pointer)
                        .var("name", escape(name))
                        .var("path", where_(ptr))
                        .var(
                            "detail",
                            "; `additionalProperties: false` in the same schema forbids it, so no object is valid here",
                        )
                        .var("effect", "makes every call invalid when the same schema forbids undeclared names (`additionalProperties: false`)"),
                );
                continue;
            }
            let known =
                seen.iter().any(|(p, names)| (*p == ptr || is_applicator_child(p, ptr)) && names.contains(name));
            if !known && matched.is_none() && !dynamic {
                out.push(
                    Hit::new(RuleId::LintRequiredUndeclared, pointer)
                        .severity(Severity::Warning)
                        .var("name", escape(name))
                        .var("path", where_(ptr))
                        .var("detail", "; callers are told to send it but not what it is")
                        .var(
                            "effect",
                            "asks callers for a value they know nothing about (the schema is open, so a call that sends one can be valid)",
                        ),
                );
            }
        }
    }
}

/// Whether `child` is reached from `parent` through applicators only (same instance location).
fn is_applicator_child(parent: &str, child: &str) -> bool {
    let Some(rest) = child.strip_prefix(parent).and_then(|r| r.strip_prefix('/')) else { return false };
    let mut tokens = rest.split('/').peekable();
    while let Some(t) = tokens.next() {
        match t {
            "allOf" | "anyOf" | "oneOf" | "dependentSchemas" => {
                if tokens.next().is_none() {
                    return false;
                }
            }
            "not" | "if" | "then" | "else" => {}
            _ => return false,
        }
    }
    true
}

/// Property names a schema object declares, including through a local `$ref` beside them.
fn declared(root: &Value, map: &Map<String, Value>) -> BTreeSet<String> {
    let mut names: BTreeSet<String> =
        map.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default();
    if let Some(r) = map.get("$ref").and_then(Value::as_str)
        && let Ok((_, Value::Object(target))) = schema::resolve(root, Some(map), r)
        && let Some(Value::Object(p)) = target.get("properties")
    {
        names.extend(p.keys().cloned());
    }
    names
}

/// A validator that accepts `{name: null}` exactly when some `patternProperties` pattern matches
/// `name` (the validator's own regex engine decides); `None` when a pattern cannot be compiled.
fn pattern_matcher(patterns: &Map<String, Value>) -> Option<jsonschema::Validator> {
    let any: Vec<Value> = patterns.keys().map(|p| serde_json::json!({"pattern": p})).collect();
    let probe = serde_json::json!({"propertyNames": {"anyOf": any}});
    schema::regex_budget::options().build(&probe).ok()
}

/// `lint-default-invalid` and `lint-enum-default-mismatch`: `default` and `examples` values that their
/// own schema rejects.
fn defaults(doc: &Doc<'_>, draft: jsonschema::Draft, out: &mut Vec<Hit>) {
    let root = doc.root;
    // Asked once per document, and only when some value is large enough to matter.
    let backtracks = std::cell::OnceCell::new();
    for (ptr, map) in &doc.nodes {
        let mut values: Vec<(String, &'static str, &Value)> = Vec::new();
        if let Some(d) = map.get("default") {
            values.push((format!("{ptr}/default"), "default", d));
        }
        if let Some(Value::Array(list)) = map.get("examples") {
            for (i, e) in list.iter().enumerate() {
                values.push((format!("{ptr}/examples/{i}"), "examples", e));
            }
        }
        if values.is_empty() {
            continue;
        }
        let mut validator: Option<Option<jsonschema::Validator>> = None;
        for (pointer, keyword, value) in values {
            let allowed = match (map.get("enum"), map.get("const")) {
                (Some(Value::Array(list)), _) => list.iter().any(|x| schema::json_eq(x, value)),
                (_, Some(c)) => schema::json_eq(c, value),
                _ => true,
            };
            if !allowed {
                out.push(
                    Hit::new(RuleId::LintEnumDefaultMismatch, pointer)
                        .var("keyword", keyword)
                        .var("detail", checks::show(value))
                        .var("path", where_(ptr)),
                );
                continue;
            }
            let crowded = schema::regex_budget::subjects(value, schema::regex_budget::MAX_SUBJECTS)
                > schema::regex_budget::MAX_SUBJECTS;
            if crowded && *backtracks.get_or_init(|| schema::regex_budget::has_backtracking(root)) {
                // Each of its strings and keys could cost a whole budget per pattern: not matched.
                out.push(undecided_pattern(doc.side, &pointer, keyword));
                break;
            }
            let v = validator.get_or_insert_with(|| standalone_validator(root, map, draft));
            if let Some(err) = v.as_ref().and_then(|v| v.validate(value).err()) {
                if schema::regex_budget::is_undecided(&err) {
                    // Cannot decide here; the other values of this schema would cost as much.
                    out.push(undecided_pattern(doc.side, &pointer, keyword));
                    break;
                }
                let at = err.instance_path().to_string();
                let mut reason = escape(&err.to_string());
                if !at.is_empty() {
                    let _ = write!(reason, " (at {at})");
                }
                out.push(
                    Hit::new(RuleId::LintDefaultInvalid, pointer)
                        .var("keyword", keyword)
                        .var("detail", checks::show(value))
                        .var("path", where_(ptr))
                        .var("reason", reason),
                );
            }
        }
    }
}

/// A `default` or `examples` value whose validity is not decided: matching a `pattern` against it ran
/// out of its budget ([`schema::regex_budget`]). Reported once per schema, where it happened.
fn undecided_pattern(side: &str, pointer: &str, keyword: &str) -> Hit {
    Hit::new(RuleId::LintSchemaInvalid, pointer.to_owned())
        .severity(Severity::Warning)
        .var("what", side)
        .var("how", "could not be checked")
        .var("dialect", "pattern")
        .var(
            "detail",
            format!(
                "whether this `{keyword}` value is valid is not decided: matching a `pattern` against it ran out of \
                 its budget ({} backtracking steps), and later values of this schema were not judged",
                schema::regex_budget::BACKTRACK_LIMIT
            ),
        )
        .var("effect", "a client's regex engine may spend as long, or longer, on such a value")
        .var("advice", "write the `pattern` without back-references or nested repetition")
}

/// A validator for one subschema on its own; local references into the root's definitions keep
/// working. `None` when it cannot be built that way (a reference elsewhere into the root): then the
/// value is not judged.
fn standalone_validator(
    root: &Value,
    map: &Map<String, Value>,
    draft: jsonschema::Draft,
) -> Option<jsonschema::Validator> {
    let mut schema = map.clone();
    schema.remove("default");
    schema.remove("examples");
    if schema::contains_ref(&Value::Object(schema.clone())) {
        for k in ["$defs", "definitions"] {
            if let (Some(defs), false) = (root.get(k), schema.contains_key(k)) {
                schema.insert(k.to_owned(), defs.clone());
            }
        }
    }
    schema::regex_budget::options().with_draft(draft).build(&Value::Object(schema)).ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_ascii_fast_path_agrees_with_the_character_test() {
        for b in 0u8..128 {
            let c = char::from(b);
            let text = format!("ab{c}cd");
            assert_eq!(super::hidden_detail(&text).is_some(), super::hidden_kind(c).is_some(), "{b:#x}");
        }
        assert!(super::hidden_detail("line\r\nnext").is_none());
        assert!(super::hidden_detail("zero\u{200B}width").is_some());
    }
}
