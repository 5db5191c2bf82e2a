//! One snapshot file to tool objects: validates the JSON (UTF-8, duplicate keys, nesting, numbers),
//! recognizes the file's shape (a JSON-RPC response, a `tools/list` result with or without its
//! JSON-RPC envelope, an array of result pages, a bare array of tools, or one tool object) and checks
//! each tool object.
//!
//! Promises: a file that is not JSON, or has no shape this module knows, is an [`Error::Input`] at its
//! line and column, and so are tool definitions of other ecosystems (Anthropic's `input_schema`, `OpenAI`
//! function definitions), named as what they are. In [`Mode::Contract`], a tool that cannot be
//! compared (no object `inputSchema`, an `outputSchema` that is not a schema, no string `name`, not an
//! object) is an [`Entry::Problem`] instead, so one bad tool never hides the others.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use serde_json::value::RawValue;

use super::scan::{self, Member};
use super::{FileId, Mode, Problem, ProblemKind, SourceFile, Sources, Tool, escape, span};
use crate::error::Error;

/// One tool object found in a file, in file order.
#[derive(Debug)]
pub enum Entry {
    Tool(Tool),
    Problem(Problem),
}

/// Adds the file to `sources` and finds its tool objects.
///
/// # Errors
/// Not UTF-8, empty, not JSON, an unrecognized shape, or (in [`Mode::Lint`]) a tool without a name.
pub fn parse_file(
    sources: &mut Sources,
    name: String,
    bytes: Vec<u8>,
    mode: Mode,
) -> Result<(FileId, Vec<Entry>), Error> {
    parse_as(sources, name, bytes, (mode, false), None, (usize::MAX, usize::MAX))
}

/// [`parse_file`] (or, with `per_tool`, [`parse_tool_file`]) of one file of a side that may hold at
/// most `left` more tools of its `max` in all: more is refused once they are found, before any is
/// checked (checking is most of what a tool costs).
///
/// # Errors
/// As [`parse_file`]; also more tools than `left` ([`Error::Usage`], naming `max`).
pub fn parse_side_file(
    sources: &mut Sources,
    name: String,
    bytes: Vec<u8>,
    (mode, per_tool): (Mode, bool),
    (left, max): (usize, usize),
) -> Result<(FileId, Vec<Entry>), Error> {
    parse_as(sources, name, bytes, (mode, per_tool), None, (left, max))
}

/// [`parse_file`] of a file in a directory of per-tool files, where one object with only `name` or
/// only `inputSchema` is still that file's tool (reported as a finding), not a file of another kind.
///
/// # Errors
/// As [`parse_file`].
pub fn parse_tool_file(
    sources: &mut Sources,
    name: String,
    bytes: Vec<u8>,
    mode: Mode,
) -> Result<(FileId, Vec<Entry>), Error> {
    parse_as(sources, name, bytes, (mode, true), None, (usize::MAX, usize::MAX))
}

/// Parses a lock file written by `mcp-drift lock` (`{"version": 1, "tools": {KEY: {"contract": TOOL,
/// ...}}}`): its contracts are the tools, located in the lock file itself, so a finding about a
/// locked contract points at its line in the lock.
///
/// # Errors
/// As [`parse_file`].
pub fn parse_lock(
    sources: &mut Sources,
    name: String,
    bytes: Vec<u8>,
) -> Result<(FileId, Vec<Entry>, Option<LockIndex>), Error> {
    let mut index = None;
    let (file, entries) =
        parse_as(sources, name, bytes, (Mode::Contract, false), Some(&mut index), (usize::MAX, usize::MAX))?;
    Ok((file, entries, index))
}

/// Tool objects found in a file: JSON Pointer and bytes.
type Found = Vec<(String, Range<usize>)>;

/// What a lock file in exactly the shape `mcp-drift lock` writes records besides its contracts:
/// `{"version": V, "tools": {KEY: {"sha256": HASH, "contract": ...}}}` and nothing else.
#[derive(Debug)]
pub struct LockIndex {
    pub version: u32,
    /// Key, hash and the contract's bytes, in key order.
    pub entries: Vec<(String, String, Range<usize>)>,
}

/// `lock`: read as a lock file, its [`LockIndex`] stored there when it has exactly the lock's shape.
fn parse_as(
    sources: &mut Sources,
    name: String,
    bytes: Vec<u8>,
    (mode, per_tool): (Mode, bool),
    lock: Option<&mut Option<LockIndex>>,
    (left, max): (usize, usize),
) -> Result<(FileId, Vec<Entry>), Error> {
    let mut text = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let prefix = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
        let (line, column) = span::line_column(&prefix, &span::line_starts(&prefix), valid);
        Error::input(&name, line, column, "file is not valid UTF-8")
    })?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    if text.trim().is_empty() {
        return Err(Error::input(&name, 1, 1, "file is empty; expected a JSON tools/list snapshot"));
    }
    let file = sources.add(SourceFile::new(name, text));
    let source = sources.get(file);
    let text = source.text.as_str();
    // One pass validates the JSON, its keys, nesting and numbers and finds the containers the tools
    // are in; only when it refuses the text do the slower checks run, to say what is wrong and where.
    let outline = scan::scan(text, if lock.is_some() { scan::Interest::Lock } else { scan::Interest::Snapshot });
    if outline.is_none() {
        check_slowly(source)?;
    }
    let doc = Doc { text, outline, per_tool };
    let mut found = Vec::new();
    if let Some(index) = lock {
        *index = collect_locked(&doc, source, &mut found)?;
    } else {
        collect_tools(&doc, doc.root(), String::new(), source, &mut found)?;
    }
    if found.len() > left {
        return Err(too_many_tools(&source.name, max));
    }
    // Checking a tool reads its members; thousands of tools share the cores. Collected in place, in
    // file order (the first error in the file is the one reported), then unwrapped.
    let checked: Vec<Result<Entry, Error>> = {
        use rayon::prelude::*;
        found.par_iter().map(|(base, span)| check_tool(&doc, span, base, file, source, mode)).collect()
    };
    let entries: Vec<Entry> = checked.into_iter().collect::<Result<_, _>>()?;
    Ok((file, entries))
}

/// The error for a side of more than `max` tools (`--max-tools`).
#[must_use]
pub fn too_many_tools(name: &str, max: usize) -> Error {
    Error::Usage(format!(
        "{}: one side holds more than {max} tools (--max-tools); raise it, or read fewer files with --include/--exclude",
        crate::text::line(name)
    ))
}

/// What is wrong with a text the one-pass scan refused: invalid JSON, a repeated key, too deep a
/// nesting or a number out of range, at its line and column. `Ok` when none of these (the scan is
/// stricter than `serde_json` about lone surrogate escapes): loading then goes on without an outline.
fn check_slowly(source: &SourceFile) -> Result<(), Error> {
    let text = source.text.as_str();
    let (parsed, structure) =
        rayon::join(|| serde_json::from_str::<&RawValue>(text).map(|_| ()), || span::scan_structure(text));
    parsed.map_err(|e| json_error(&source.name, &e))?;
    let (offset, message) = match structure {
        Some(span::Structure::DuplicateKey(offset, key)) => {
            (offset, format!("duplicate key `{}` in one object: parsers disagree on which value wins", escape(&key)))
        }
        Some(span::Structure::TooDeep(offset)) => {
            (offset, format!("nesting deeper than {} levels (recursion limit)", span::MAX_NESTING))
        }
        Some(span::Structure::NumberOutOfRange(offset)) => {
            (offset, "number out of range for a 64-bit float".to_owned())
        }
        None => return Ok(()),
    };
    let (line, column) = source.line_column(offset);
    Err(Error::input(&source.name, line, column, message))
}

/// A valid file's text and, when the scan gave one, its outline.
struct Doc<'t> {
    text: &'t str,
    outline: Option<scan::Outline<'t>>,
    /// A file of a per-tool directory: see [`parse_tool_file`].
    per_tool: bool,
}

impl<'t> Doc<'t> {
    /// The top-level value's bytes.
    fn root(&self) -> Range<usize> {
        let b = self.text.as_bytes();
        let start = scan::ws(b, 0);
        let end = b.iter().rposition(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r')).map_or(start, |e| e + 1);
        start..end
    }

    fn get(&self, span: &Range<usize>) -> &'t str {
        self.text.get(span.clone()).unwrap_or("null")
    }

    /// The members of the object or array at `span`: from the outline, or parsed when it has none.
    fn members(&self, span: &Range<usize>) -> Result<Cow<'_, [Member<'t>]>, serde_json::Error> {
        if let Some(members) = self.outline.as_ref().and_then(|o| o.members(span.start)) {
            return Ok(Cow::Borrowed(members));
        }
        let base = self.text.as_ptr() as usize;
        let at = |r: &RawValue| {
            let start = (r.get().as_ptr() as usize).wrapping_sub(base);
            start..start + r.get().len()
        };
        let text = self.get(span);
        Ok(Cow::Owned(if first_byte(text) == b'{' {
            let map: BTreeMap<String, &'t RawValue> = serde_json::from_str(text)?;
            map.into_iter().map(|(k, v)| Member { key: Some(Cow::Owned(k)), span: at(v) }).collect()
        } else {
            let list: Vec<&'t RawValue> = serde_json::from_str(text)?;
            list.into_iter().map(|v| Member { key: None, span: at(v) }).collect()
        }))
    }
}

/// The member named `key`.
fn member<'m>(members: &'m [Member<'_>], key: &str) -> Option<&'m Range<usize>> {
    members.iter().find(|m| m.key.as_deref() == Some(key)).map(|m| &m.span)
}

pub(super) fn json_error(file: &str, e: &serde_json::Error) -> Error {
    let message = e.to_string();
    // serde_json appends " at line L column C"; the position goes in front instead.
    let message = message.rsplit_once(" at line ").map_or(message.as_str(), |(m, _)| m).to_owned();
    Error::input(file, e.line(), e.column(), format!("invalid JSON: {message}"))
}

/// 1-based position of the value at `pointer`, or of the start of the file.
pub(super) fn position(source: &SourceFile, pointer: &str) -> (usize, usize) {
    span::locate(&source.text, pointer).map_or((1, 1), |l| source.line_column(l.key.unwrap_or(l.value).start))
}

fn shape_error(source: &SourceFile, pointer: &str, message: impl Into<String>) -> Error {
    let (line, column) = position(source, pointer);
    Error::input(&source.name, line, column, message)
}

/// The first significant byte of a JSON value's text.
fn first_byte(text: &str) -> u8 {
    text.bytes().find(|b| !b.is_ascii_whitespace()).unwrap_or(b' ')
}

/// What mcp-drift reads, for messages about shapes it does not.
const EXPECTED: &str = "mcp-drift reads MCP tools/list snapshots, where each tool has `name` and `inputSchema`";

/// A tool definition of another ecosystem, recognized by its members: an error that names it.
fn foreign_tool(doc: &Doc<'_>, members: &[Member<'_>], base: &str, source: &SourceFile) -> Option<Error> {
    let has = |key| member(members, key).is_some();
    if has("inputSchema") {
        return None;
    }
    let is_function = member(members, "type").is_some_and(|t| doc.get(t).trim() == "\"function\"");
    if has("input_schema") {
        return Some(shape_error(
            source,
            &format!("{base}/input_schema"),
            format!("this is an Anthropic Messages API tool (`input_schema`), not an MCP tool; {EXPECTED} (camelCase)"),
        ));
    }
    if is_function && has("function") {
        return Some(shape_error(
            source,
            &format!("{base}/function"),
            format!(
                "this is an OpenAI function definition (`{{\"type\": \"function\", \"function\": {{...}}}}`), not an MCP tool; {EXPECTED}"
            ),
        ));
    }
    if has("parameters") && (is_function || has("name")) {
        return Some(shape_error(
            source,
            &format!("{base}/parameters"),
            format!("this is an OpenAI function definition (`parameters`), not an MCP tool; {EXPECTED}"),
        ));
    }
    None
}

/// What a file that is no snapshot in any shape was expected to be.
const NOT_A_SNAPSHOT: &str = "not a tools/list snapshot: expected a tools/list result (`{\"tools\": [...]}`), a JSON-RPC response, an array of tools or pages, or one tool object (with `name` and `inputSchema`)";

/// A file of mcp-drift's own or of another tool given where a snapshot was expected (a lock, a SARIF
/// report): an error that names it.
fn foreign_file(doc: &Doc<'_>, members: &[Member<'_>], base: &str, source: &SourceFile) -> Option<Error> {
    if !base.is_empty() {
        return None;
    }
    let has = |key| member(members, key).is_some();
    if has("runs") && has("version") && !has("tools") {
        return Some(shape_error(
            source,
            "/runs",
            "this is a SARIF report (`runs`), not a tools/list snapshot; give the snapshot the report was made from",
        ));
    }
    let lock = has("version") && member(members, "tools").is_some_and(|t| first_byte(doc.get(t)) == b'{');
    if lock {
        return Some(shape_error(
            source,
            "/tools",
            "this is an mcp-drift lock file (`{\"version\", \"tools\": {...}}`), not a tools/list snapshot; `mcp-drift verify SNAPSHOT --lock FILE` reads it",
        ));
    }
    None
}

/// The shape of a lock file as `serde` checks it, for its message when the file is not one.
#[derive(serde::Deserialize)]
struct Lock<'a> {
    #[serde(borrow)]
    #[allow(dead_code, reason = "only the shape is checked here")]
    tools: BTreeMap<String, Locked<'a>>,
}

#[derive(serde::Deserialize)]
struct Locked<'a> {
    #[serde(borrow)]
    #[allow(dead_code, reason = "only the shape is checked here")]
    contract: &'a RawValue,
}

/// The contracts of a lock file, at `/tools/KEY/contract`, in key order; the lock's index when the
/// file has exactly the lock's shape.
fn collect_locked(
    doc: &Doc<'_>,
    source: &SourceFile,
    out: &mut Vec<(String, Range<usize>)>,
) -> Result<Option<LockIndex>, Error> {
    let fast = || -> Option<(Found, Option<LockIndex>)> {
        let root = doc.members(&doc.root()).ok()?;
        let tools = member(&root, "tools").filter(|t| first_byte(doc.get(t)) == b'{')?;
        let exactly = |m: &[Member<'_>], keys: [&str; 2]| m.len() == 2 && keys.iter().all(|k| member(m, k).is_some());
        let version = member(&root, "version").and_then(|v| doc.get(v).parse::<u32>().ok());
        let mut index = version
            .filter(|_| exactly(&root, ["version", "tools"]))
            .map(|version| LockIndex { version, entries: Vec::new() });
        let mut found = Vec::new();
        for entry in doc.members(tools).ok()?.iter() {
            let key = entry.key.as_deref()?;
            let members = doc.members(&entry.span).ok()?;
            let contract = member(&members, "contract")?.clone();
            let sha256 = member(&members, "sha256").and_then(|h| serde_json::from_str::<String>(doc.get(h)).ok());
            match (&mut index, sha256) {
                (Some(index), Some(sha256)) if exactly(&members, ["sha256", "contract"]) => {
                    index.entries.push((key.to_owned(), sha256, contract.clone()));
                }
                _ => index = None,
            }
            found.push((format!("/tools/{}/contract", span::escape_token(key)), contract));
        }
        Some((found, index))
    };
    if let Some((mut found, mut index)) = fast().filter(|_| first_byte(doc.get(&doc.root())) == b'{') {
        found.sort_by(|a, b| a.0.cmp(&b.0));
        out.extend(found);
        if let Some(index) = &mut index {
            index.entries.sort_by(|a, b| a.0.cmp(&b.0));
        }
        return Ok(index);
    }
    // Not the shape of a lock: serde's message says what is missing.
    serde_json::from_str::<Lock<'_>>(doc.get(&doc.root())).map_err(|e| json_error(&source.name, &e))?;
    Err(shape_error(source, "", "internal: a lock file's contracts could not be found"))
}

/// Finds the tool objects in any supported shape.
fn collect_tools(
    doc: &Doc<'_>,
    at: Range<usize>,
    base: String,
    source: &SourceFile,
    out: &mut Vec<(String, Range<usize>)>,
) -> Result<(), Error> {
    let parse_err = |e: &serde_json::Error| json_error(&source.name, e);
    match first_byte(doc.get(&at)) {
        b'{' => {
            let map = doc.members(&at).map_err(|e| parse_err(&e))?;
            let has = |key| member(&map, key).is_some();
            let envelope = has("jsonrpc") || (has("id") && has("result"));
            if envelope && has("error") {
                return Err(shape_error(
                    source,
                    &format!("{base}/error"),
                    "JSON-RPC error response, not a tools/list result",
                ));
            }
            if envelope && !has("result") {
                return Err(shape_error(source, &base, "JSON-RPC response without `result`"));
            }
            // `{"result": {"tools": [...]}}`: a response saved without its envelope.
            let unwrapped = !has("tools") && !has("name");
            if let Some(result) = member(&map, "result").filter(|_| envelope || unwrapped) {
                return collect_tools(doc, result.clone(), format!("{base}/result"), source, out);
            }
            if let Some(e) = foreign_file(doc, &map, &base, source) {
                return Err(e);
            }
            if let Some(tools) = member(&map, "tools") {
                if first_byte(doc.get(tools)) != b'[' {
                    return Err(shape_error(
                        source,
                        &format!("{base}/tools"),
                        "`tools` must be an array of tool objects",
                    ));
                }
                let list = doc.members(tools).map_err(|e| parse_err(&e))?;
                for (i, tool) in list.iter().enumerate() {
                    out.push((format!("{base}/tools/{i}"), tool.span.clone()));
                }
                return Ok(());
            }
            if let Some(e) = foreign_tool(doc, &map, &base, source) {
                return Err(e);
            }
            // One tool object has the fields of one: a `package.json` (`name`, `description`) is not a
            // snapshot of one tool with every other tool removed.
            if (has("name") && has("inputSchema")) || (doc.per_tool && (has("name") || has("inputSchema"))) {
                out.push((base, at));
                return Ok(());
            }
            Err(shape_error(source, &base, NOT_A_SNAPSHOT))
        }
        b'[' => {
            let items = doc.members(&at).map_err(|e| parse_err(&e))?;
            // A page has `tools` or `result` that is not null.
            let is_page = |item: &Member<'_>| {
                first_byte(doc.get(&item.span)) == b'{'
                    && doc.members(&item.span).is_ok_and(|m| {
                        ["tools", "result"].iter().any(|k| member(&m, k).is_some_and(|v| doc.get(v) != "null"))
                    })
            };
            let pages = !items.is_empty() && items.iter().all(is_page);
            // An array of tools holds at least one object with a tool's field: `[1, 2]` or a list
            // of records of another kind is not a snapshot of invalid tools.
            let tool_like = |item: &Member<'_>| {
                first_byte(doc.get(&item.span)) == b'{'
                    && doc.members(&item.span).is_ok_and(|m| {
                        member(&m, "name").is_some()
                            || member(&m, "inputSchema").is_some()
                            // Another ecosystem's tool: checking it says which.
                            || foreign_tool(doc, &m, "", source).is_some()
                    })
            };
            if !pages && !items.is_empty() && !items.iter().any(tool_like) {
                return Err(shape_error(source, &base, NOT_A_SNAPSHOT));
            }
            for (i, item) in items.iter().enumerate() {
                let pointer = format!("{base}/{i}");
                if pages {
                    collect_tools(doc, item.span.clone(), pointer, source, out)?;
                } else {
                    out.push((pointer, item.span.clone()));
                }
            }
            Ok(())
        }
        _ => Err(shape_error(source, &base, "expected a JSON object or array, found a scalar")),
    }
}

fn check_tool(
    doc: &Doc<'_>,
    range: &Range<usize>,
    base: &str,
    file: FileId,
    source: &SourceFile,
    mode: Mode,
) -> Result<Entry, Error> {
    let tool = |name: String, head: &std::sync::Arc<[(Box<str>, Range<usize>)]>| Tool {
        name,
        published: None,
        text: std::sync::Arc::clone(&source.text),
        range: range.clone(),
        parsed: std::sync::OnceLock::new(),
        file,
        base: base.to_owned(),
        digest: None,
        head: std::sync::Arc::clone(head),
    };
    let problem = |kind, name: String, pointer: &str, detail: String| {
        Ok(Entry::Problem(Problem {
            kind,
            tool: tool(name, &std::sync::Arc::from(Vec::new())),
            pointer: pointer.to_owned(),
            detail,
        }))
    };
    if first_byte(doc.get(range)) != b'{' {
        return problem(ProblemKind::Invalid, String::new(), "", "a tool must be a JSON object".to_owned());
    }
    // Members as raw text: only the keys are built, so `null` and absence stay apart.
    let head = doc.members(range).map_err(|e| json_error(&source.name, &e))?;
    let head_of: std::sync::Arc<[(Box<str>, Range<usize>)]> =
        head.iter().filter_map(|m| Some((Box::from(m.key.as_deref()?), m.span.clone()))).collect();
    if let Some(e) = foreign_tool(doc, &head, base, source) {
        return Err(e);
    }
    let raw_name = member(&head, "name").map(|n| doc.get(n));
    let Some(name) = raw_name.and_then(|n| serde_json::from_str::<String>(n).ok()) else {
        let (at, detail) = match raw_name {
            Some(n) => ("/name", format!("`name` is {}, not a string", kind_of(n))),
            None => ("", "the tool has no `name`".to_owned()),
        };
        return problem(ProblemKind::Unnamed, String::new(), at, detail);
    };
    if mode == Mode::Lint {
        return Ok(Entry::Tool(tool(name, &head_of)));
    }
    match member(&head, "inputSchema").map(|r| doc.get(r)) {
        Some(r) if first_byte(r) == b'{' => {}
        Some(r) => {
            let detail = format!("`inputSchema` is {}; it must be a JSON Schema object", kind_of(r));
            return problem(ProblemKind::Invalid, name, "/inputSchema", detail);
        }
        None => return problem(ProblemKind::Invalid, name, "", "the tool has no `inputSchema`".to_owned()),
    }
    if let Some(output) = member(&head, "outputSchema").map(|r| doc.get(r))
        && !(first_byte(output) == b'{' || matches!(output.trim(), "true" | "false"))
    {
        let detail = format!("`outputSchema` is {}; it must be a JSON Schema (object or boolean)", kind_of(output));
        return problem(ProblemKind::Invalid, name, "/outputSchema", detail);
    }
    Ok(Entry::Tool(tool(name, &head_of)))
}

/// `null`, `a string`, `an array`, ... for messages.
fn kind_of(text: &str) -> &'static str {
    match first_byte(text) {
        b'n' => "null",
        b'"' => "a string",
        b'[' => "an array",
        b'{' => "an object",
        b't' | b'f' => "a boolean",
        _ => "a number",
    }
}

#[cfg(test)]
mod tests {
    use crate::error::Error;
    use crate::load::{Sources, load_bytes};

    fn names(text: &str) -> Result<Vec<String>, Error> {
        let mut sources = Sources::default();
        let s = load_bytes("t.json", text.as_bytes().to_vec(), &mut sources)?;
        Ok(s.tools.into_keys().collect())
    }

    const T: &str = r#"{"name":"a","inputSchema":{"type":"object"}}"#;

    #[test]
    fn every_shape_loads() {
        let shapes = [
            format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":[{T}],"nextCursor":null,"ttlMs":5}}}}"#),
            format!(r#"{{"result":{{"tools":[{T}]}}}}"#),
            format!(r#"{{"tools":[{T}]}}"#),
            format!("[{T}]"),
            format!(r#"[{{"tools":[{T}]}},{{"tools":[]}}]"#),
            T.to_owned(),
        ];
        for shape in shapes {
            assert_eq!(names(&shape).unwrap(), vec!["a"], "{shape}");
        }
    }

    #[test]
    fn input_errors_have_positions() {
        let cases = [
            ("{\"tools\":\n[".to_owned(), "invalid JSON", 2),
            (String::new(), "file is empty", 1),
            ("42".to_owned(), "found a scalar", 1),
            (
                "{\"tools\": [\n {\"name\": \"a\",\n  \"input_schema\": {}}]}".to_owned(),
                "Anthropic Messages API tool (`input_schema`)",
                3,
            ),
            (
                "[{\"type\": \"function\",\n \"function\": {\"name\": \"a\", \"parameters\": {}}}]".to_owned(),
                "OpenAI function definition",
                2,
            ),
            (
                "{\"type\": \"function\", \"name\": \"a\",\n \"parameters\": {}}".to_owned(),
                "OpenAI function definition (`parameters`)",
                2,
            ),
        ];
        for (text, want, line) in cases {
            match names(&text) {
                Err(Error::Input { message, line: l, .. }) => {
                    assert!(message.contains(want), "{message}");
                    assert!(message.contains("inputSchema") || !want.contains("Open"), "{message}");
                    assert_eq!(l, line, "{message}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn bad_tools_are_problems_not_errors() {
        let text = format!(
            r#"[{T}, {{"name":"b","inputSchema":null}}, {{"inputSchema":{{}}}}, 7, {{"name":"c","inputSchema":{{}},"outputSchema":"x"}}, {T}]"#
        );
        let mut sources = Sources::default();
        let s = load_bytes("t.json", text.into_bytes(), &mut sources).unwrap();
        assert_eq!(s.tools.keys().collect::<Vec<_>>(), ["a"]);
        let details: Vec<String> = s.problems.iter().map(|p| format!("{:?} {}", p.kind, p.detail)).collect();
        assert_eq!(details.len(), 5, "{details:?}");
        assert!(details[0].contains("Invalid `inputSchema` is null"), "{details:?}");
        assert!(details[1].starts_with("Unnamed"), "{details:?}");
        assert!(details[4].starts_with("NameDuplicate"), "{details:?}");
    }

    /// Several tools of one name: the first in file order is kept, each later one is a problem in
    /// its place among the others, pointing at the first.
    #[test]
    fn of_repeated_names_the_first_is_kept_and_problems_keep_file_order() {
        let tool = |name: &str, d: &str| format!(r#"{{"name":"{name}","description":"{d}","inputSchema":{{}}}}"#);
        let text = format!(
            "[{}, {},\n{}, 7, {},\n{}, {}]",
            tool("b", "1"),
            tool("a", "2"),
            tool("b", "3"),
            tool("c", "4"),
            tool("a", "5"),
            tool("b", "6")
        );
        let mut sources = Sources::default();
        let s = load_bytes("t.json", text.into_bytes(), &mut sources).unwrap();
        let description = |raw: &str| raw.split("\"description\":\"").nth(1).unwrap_or_default()[..1].to_owned();
        let kept: Vec<_> = s.tools.iter().map(|(k, t)| format!("{k}{}", description(t.raw()))).collect();
        assert_eq!(kept, ["a2", "b1", "c4"]);
        let details: Vec<String> =
            s.problems.iter().map(|p| format!("{:?} {} {}", p.kind, p.tool.name, p.detail)).collect();
        assert_eq!(
            details,
            [
                "NameDuplicate b  (first defined at t.json:1:2)",
                "Invalid  a tool must be a JSON object",
                "NameDuplicate a  (first defined at t.json:1:51)",
                "NameDuplicate b  (first defined at t.json:1:2)",
            ]
        );
    }

    #[test]
    fn deep_nesting_is_a_clean_error() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(matches!(names(&deep), Err(Error::Input { .. })));
    }
}
