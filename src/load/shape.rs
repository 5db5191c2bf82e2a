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

use std::collections::BTreeMap;

use serde_json::value::RawValue;

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
    parse_as(sources, name, bytes, mode, false)
}

/// Parses a lock file written by `mcp-drift lock` (`{"version": 1, "tools": {KEY: {"contract": TOOL,
/// ...}}}`): its contracts are the tools, located in the lock file itself, so a finding about a
/// locked contract points at its line in the lock.
///
/// # Errors
/// As [`parse_file`].
pub fn parse_lock(sources: &mut Sources, name: String, bytes: Vec<u8>) -> Result<(FileId, Vec<Entry>), Error> {
    parse_as(sources, name, bytes, Mode::Contract, true)
}

fn parse_as(
    sources: &mut Sources,
    name: String,
    bytes: Vec<u8>,
    mode: Mode,
    lock: bool,
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
    // The duplicate-key scan runs beside the parse: it reads the same bytes and needs no result of it.
    // The parse only validates and finds the tool objects; tools are parsed on demand.
    let (parsed, duplicate) = rayon::join(|| serde_json::from_str::<&RawValue>(text), || span::scan_structure(text));
    let raw = parsed.map_err(|e| json_error(&source.name, &e))?;
    match duplicate {
        Some(span::Structure::DuplicateKey(offset, key)) => {
            let (line, column) = source.line_column(offset);
            return Err(Error::input(
                &source.name,
                line,
                column,
                format!("duplicate key `{}` in one object: parsers disagree on which value wins", escape(&key)),
            ));
        }
        Some(span::Structure::TooDeep(offset)) => {
            let (line, column) = source.line_column(offset);
            return Err(Error::input(
                &source.name,
                line,
                column,
                format!("nesting deeper than {} levels (recursion limit)", span::MAX_NESTING),
            ));
        }
        Some(span::Structure::NumberOutOfRange(offset)) => {
            let (line, column) = source.line_column(offset);
            return Err(Error::input(&source.name, line, column, "number out of range for a 64-bit float"));
        }
        None => {}
    }
    let mut found = Vec::new();
    if lock {
        collect_locked(raw, source, &mut found)?;
    } else {
        collect_tools(raw, String::new(), source, &mut found)?;
    }
    // Checking a tool reads its members; thousands of tools share the cores.
    let entries: Vec<Entry> = {
        use rayon::prelude::*;
        found.par_iter().map(|(base, raw)| check_tool(raw, base, file, source, mode)).collect::<Result<_, _>>()?
    };
    sources.files[file].tool_offsets = entries
        .iter()
        .map(|e| match e {
            Entry::Tool(t) | Entry::Problem(Problem { tool: t, .. }) => (t.base.clone(), t.range.start),
        })
        .collect();
    Ok((file, entries))
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

/// The first significant byte of a JSON value.
fn first_byte(raw: &RawValue) -> u8 {
    raw.get().bytes().find(|b| !b.is_ascii_whitespace()).unwrap_or(b' ')
}

/// What mcp-drift reads, for messages about shapes it does not.
const EXPECTED: &str = "mcp-drift reads MCP tools/list snapshots, where each tool has `name` and `inputSchema`";

/// A tool definition of another ecosystem, recognized by its members: an error that names it.
fn foreign_tool(map: &BTreeMap<String, &RawValue>, base: &str, source: &SourceFile) -> Option<Error> {
    if map.contains_key("inputSchema") {
        return None;
    }
    let is_function = map.get("type").is_some_and(|t| t.get().trim() == "\"function\"");
    if map.contains_key("input_schema") {
        return Some(shape_error(
            source,
            &format!("{base}/input_schema"),
            format!("this is an Anthropic Messages API tool (`input_schema`), not an MCP tool; {EXPECTED} (camelCase)"),
        ));
    }
    if is_function && map.contains_key("function") {
        return Some(shape_error(
            source,
            &format!("{base}/function"),
            format!(
                "this is an OpenAI function definition (`{{\"type\": \"function\", \"function\": {{...}}}}`), not an MCP tool; {EXPECTED}"
            ),
        ));
    }
    if map.contains_key("parameters") && (is_function || map.contains_key("name")) {
        return Some(shape_error(
            source,
            &format!("{base}/parameters"),
            format!("this is an OpenAI function definition (`parameters`), not an MCP tool; {EXPECTED}"),
        ));
    }
    None
}

/// The contracts of a lock file, at `/tools/KEY/contract`.
fn collect_locked<'t>(
    raw: &'t RawValue,
    source: &SourceFile,
    out: &mut Vec<(String, &'t RawValue)>,
) -> Result<(), Error> {
    #[derive(serde::Deserialize)]
    struct Lock<'a> {
        #[serde(borrow)]
        tools: BTreeMap<String, Locked<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Locked<'a> {
        #[serde(borrow)]
        contract: &'a RawValue,
    }
    let lock: Lock<'t> = serde_json::from_str(raw.get()).map_err(|e| json_error(&source.name, &e))?;
    for (key, locked) in lock.tools {
        out.push((format!("/tools/{}/contract", span::escape_token(&key)), locked.contract));
    }
    Ok(())
}

/// Finds the tool objects in any supported shape.
fn collect_tools<'t>(
    raw: &'t RawValue,
    base: String,
    source: &SourceFile,
    out: &mut Vec<(String, &'t RawValue)>,
) -> Result<(), Error> {
    let parse_err = |e: &serde_json::Error| json_error(&source.name, e);
    match first_byte(raw) {
        b'{' => {
            let map: BTreeMap<String, &'t RawValue> = serde_json::from_str(raw.get()).map_err(|e| parse_err(&e))?;
            let envelope = map.contains_key("jsonrpc") || (map.contains_key("id") && map.contains_key("result"));
            if envelope && map.contains_key("error") {
                return Err(shape_error(
                    source,
                    &format!("{base}/error"),
                    "JSON-RPC error response, not a tools/list result",
                ));
            }
            if envelope && !map.contains_key("result") {
                return Err(shape_error(source, &base, "JSON-RPC response without `result`"));
            }
            // `{"result": {"tools": [...]}}`: a response saved without its envelope.
            let unwrapped = !map.contains_key("tools") && !map.contains_key("name");
            if let Some(result) = map.get("result").filter(|_| envelope || unwrapped) {
                return collect_tools(result, format!("{base}/result"), source, out);
            }
            if let Some(tools) = map.get("tools") {
                if first_byte(tools) != b'[' {
                    return Err(shape_error(
                        source,
                        &format!("{base}/tools"),
                        "`tools` must be an array of tool objects",
                    ));
                }
                let list: Vec<&'t RawValue> = serde_json::from_str(tools.get()).map_err(|e| parse_err(&e))?;
                for (i, tool) in list.into_iter().enumerate() {
                    out.push((format!("{base}/tools/{i}"), tool));
                }
                return Ok(());
            }
            if let Some(e) = foreign_tool(&map, &base, source) {
                return Err(e);
            }
            // A tool object without a name is still a tool (reported as `tool-unnamed`).
            if map.contains_key("name") || map.contains_key("inputSchema") {
                out.push((base, raw));
                return Ok(());
            }
            Err(shape_error(
                source,
                &base,
                "expected a tools/list result (`{\"tools\": [...]}`), a JSON-RPC response, an array of tools or pages, or one tool object",
            ))
        }
        b'[' => {
            #[derive(serde::Deserialize)]
            struct Page<'a> {
                #[serde(borrow)]
                tools: Option<&'a RawValue>,
                #[serde(borrow)]
                result: Option<&'a RawValue>,
            }
            let items: Vec<&'t RawValue> = serde_json::from_str(raw.get()).map_err(|e| parse_err(&e))?;
            let is_page = |i: &&RawValue| {
                first_byte(i) == b'{'
                    && serde_json::from_str::<Page<'_>>(i.get()).is_ok_and(|p| p.tools.is_some() || p.result.is_some())
            };
            let pages = !items.is_empty() && items.iter().all(is_page);
            for (i, item) in items.into_iter().enumerate() {
                let pointer = format!("{base}/{i}");
                if pages {
                    collect_tools(item, pointer, source, out)?;
                } else {
                    out.push((pointer, item));
                }
            }
            Ok(())
        }
        _ => Err(shape_error(source, &base, "expected a JSON object or array, found a scalar")),
    }
}

fn check_tool(raw: &RawValue, base: &str, file: FileId, source: &SourceFile, mode: Mode) -> Result<Entry, Error> {
    // `raw` borrows from the file's text, so where the tool is there is a pointer difference: no search.
    let at = (raw.get().as_ptr() as usize).wrapping_sub(source.text.as_ptr() as usize);
    let range = at..at + raw.get().len();
    if source.text.get(range.clone()).map(str::as_ptr) != Some(raw.get().as_ptr()) {
        return Err(shape_error(source, base, "internal: a tool's text is not inside its file"));
    }
    let tool = |name: String| Tool {
        name,
        published: None,
        text: std::sync::Arc::clone(&source.text),
        range: range.clone(),
        parsed: std::sync::OnceLock::new(),
        file,
        base: base.to_owned(),
    };
    let problem = |kind, name: String, pointer: &str, detail: String| {
        Ok(Entry::Problem(Problem { kind, tool: tool(name), pointer: pointer.to_owned(), detail }))
    };
    if first_byte(raw) != b'{' {
        return problem(ProblemKind::Invalid, String::new(), "", "a tool must be a JSON object".to_owned());
    }
    // Members as raw text: only the keys are built, so `null` and absence stay apart.
    let head: BTreeMap<String, &RawValue> =
        serde_json::from_str(raw.get()).map_err(|e| json_error(&source.name, &e))?;
    if let Some(e) = foreign_tool(&head, base, source) {
        return Err(e);
    }
    let raw_name = head.get("name");
    let Some(name) = raw_name.and_then(|n| serde_json::from_str::<String>(n.get()).ok()) else {
        let (at, detail) = match raw_name {
            Some(n) => ("/name", format!("`name` is {}, not a string", kind_of(n))),
            None => ("", "the tool has no `name`".to_owned()),
        };
        return problem(ProblemKind::Unnamed, String::new(), at, detail);
    };
    if mode == Mode::Lint {
        return Ok(Entry::Tool(tool(name)));
    }
    match head.get("inputSchema") {
        Some(r) if first_byte(r) == b'{' => {}
        Some(r) => {
            let detail = format!("`inputSchema` is {}; it must be a JSON Schema object", kind_of(r));
            return problem(ProblemKind::Invalid, name, "/inputSchema", detail);
        }
        None => return problem(ProblemKind::Invalid, name, "", "the tool has no `inputSchema`".to_owned()),
    }
    if let Some(output) = head.get("outputSchema")
        && !(first_byte(output) == b'{' || matches!(output.get().trim(), "true" | "false"))
    {
        let detail = format!("`outputSchema` is {}; it must be a JSON Schema (object or boolean)", kind_of(output));
        return problem(ProblemKind::Invalid, name, "/outputSchema", detail);
    }
    Ok(Entry::Tool(tool(name)))
}

/// `null`, `a string`, `an array`, ... for messages.
fn kind_of(raw: &RawValue) -> &'static str {
    match first_byte(raw) {
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

    #[test]
    fn deep_nesting_is_a_clean_error() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(matches!(names(&deep), Err(Error::Input { .. })));
    }
}
