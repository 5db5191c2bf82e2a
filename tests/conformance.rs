//! `lint --protocol` against the official MCP JSON schemas (`../shared/schemas/mcp-schema-*.json`, the
//! `Tool` definition of each revision): for every tool of the corpus and of `tests/conformance/tools.json`,
//! - the official schema rejects it => lint reports an error (`lint-input-not-object`,
//!   `lint-tool-invalid`, `lint-protocol-version`, or `lint-schema-invalid` for schema keywords);
//! - the official schema accepts it => none of the first three reports an error.

mod official;

use std::path::{Path, PathBuf};

use mcp_drift::catalog::{RuleId, Severity};
use mcp_drift::lint::{Options, Protocol};
use serde_json::{Value, json};

/// A validator for the `Tool` definition of one revision, or `None` outside CI without `../shared`.
fn official_tool(protocol: Protocol) -> Option<jsonschema::Validator> {
    let file = format!("mcp-schema-{}.json", protocol.as_str());
    let mut schema = official::schema(&file)?;
    let draft7 = schema["$schema"].as_str().is_some_and(|s| s.contains("draft-07"));
    let defs = if draft7 { "definitions" } else { "$defs" };
    assert!(schema[defs]["Tool"].is_object(), "{file}: no {defs}/Tool");
    schema["$ref"] = json!(format!("#/{defs}/Tool"));
    let draft = if draft7 { jsonschema::Draft::Draft7 } else { jsonschema::Draft::Draft202012 };
    Some(jsonschema::options().with_draft(draft).should_validate_formats(false).build(&schema).unwrap())
}

/// Every tool object of the corpus (both diff sides and the lint cases) and the boundary cases.
fn tools() -> Vec<Value> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/conformance/tools.json")).unwrap()).unwrap();
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root.join("corpus"))
        .into_iter()
        .filter_map(Result::ok)
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    for file in files {
        let mut sources = mcp_drift::load::Sources::default();
        let spec = file.to_string_lossy().into_owned();
        if let Ok(snapshot) = mcp_drift::load::load_with(&spec, &mut sources, mcp_drift::load::Mode::Lint) {
            out.extend(snapshot.tools.values().map(|t| t.value().clone()));
        }
    }
    out
}

#[test]
fn lint_protocol_agrees_with_the_official_tool_definitions() {
    let tools = tools();
    assert!(tools.len() > 200, "only {} tools", tools.len());
    let structural = [RuleId::LintInputNotObject, RuleId::LintToolInvalid, RuleId::LintProtocolVersion];
    for protocol in Protocol::ALL {
        let Some(official) = official_tool(protocol) else { return };
        let (mut valid, mut invalid) = (0, 0);
        for tool in &tools {
            let text = json!({"tools": [tool]}).to_string();
            let analysis = mcp_drift::lint_text(&text, Options { protocol: Some(protocol) }).unwrap();
            let errors: Vec<RuleId> =
                analysis.findings.iter().filter(|f| f.severity == Severity::Error).map(|f| f.rule).collect();
            if official.is_valid(tool) {
                valid += 1;
                let wrong: Vec<&RuleId> = errors.iter().filter(|r| structural.contains(r)).collect();
                assert!(
                    wrong.is_empty(),
                    "{}: official schema accepts {tool} but lint says {wrong:?}",
                    protocol.as_str()
                );
            } else {
                invalid += 1;
                let caught = errors.iter().any(|r| structural.contains(r) || *r == RuleId::LintSchemaInvalid);
                let why: Vec<String> = official.iter_errors(tool).map(|e| e.to_string()).collect();
                assert!(caught, "{}: official schema rejects {tool} ({why:?}) but lint is silent", protocol.as_str());
            }
        }
        eprintln!("MCP {}: {valid} valid and {invalid} invalid tools agree", protocol.as_str());
        assert!(invalid >= 15, "{}: only {invalid} invalid tools exercised", protocol.as_str());
    }
}
