//! The replay driver on small calls files: requests matched to responses by id, bounds, notes.

use super::*;

const NEW: &str = r#"{"tools": [
  {"name": "search", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
   "outputSchema": {"type": "object", "required": ["hits"]}},
  {"name": "ping", "inputSchema": {"type": "object"}}
]}"#;

/// Replays `files` (each a list of lines) against [`NEW`]; the findings as (rule, message) and notes.
fn run(files: &[&[&str]], options: &Options) -> (Vec<(String, String)>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut sources = crate::load::Sources::default();
    let new = crate::load::load_bytes("new.json", NEW.as_bytes().to_vec(), &mut sources).unwrap();
    let mut analysis = Analysis { sources, ..Analysis::empty(crate::load::Snapshot::empty(""), new) };
    let calls: Vec<Calls> = files
        .iter()
        .enumerate()
        .map(|(i, lines)| {
            let path = dir.path().join(format!("{i}.jsonl"));
            std::fs::write(&path, lines.join("\n")).unwrap();
            Calls::Path(path)
        })
        .collect();
    replay(&mut analysis, &calls, options).unwrap();
    let dir = dir.path().display().to_string();
    let findings = analysis
        .findings
        .iter()
        .map(|f| (f.rule.as_str().to_owned(), f.message.replace(&format!("{dir}/"), "")))
        .collect();
    (findings, analysis.notes)
}

const CALL_1: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"q":"a"}}}"#;
const BAD_RESULT_1: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"total":1}}}"#;

#[test]
fn responses_match_their_request_by_id() {
    let (findings, notes) = run(&[&[CALL_1, BAD_RESULT_1]], &Options::default());
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].0, "replay-result-undescribed");
    assert!(findings[0].1.starts_with("1 recorded result (at 0.jsonl:2) rejected by `required`"), "{findings:?}");
    assert!(notes[0].contains("1 result: 0 described, 1 not"), "{notes:?}");
    // A later request that reuses the id replaces the waiting one: the result is ping's (no
    // outputSchema), not search's.
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping"}}"#;
    let (findings, notes) = run(&[&[CALL_1, ping, BAD_RESULT_1]], &Options::default());
    assert!(findings.is_empty(), "{findings:?}");
    assert!(
        notes.iter().any(|n| n == "1 result was not checked: the tool declares no outputSchema in NEW"),
        "{notes:?}"
    );
    // A response is matched once.
    let (findings, notes) = run(&[&[CALL_1, BAD_RESULT_1, BAD_RESULT_1]], &Options::default());
    assert_eq!(findings.len(), 1);
    assert!(notes.iter().any(|n| n.starts_with("1 response was skipped")), "{notes:?}");
}

#[test]
fn ids_differ_by_type_and_by_file() {
    let string_id = r#"{"jsonrpc":"2.0","id":"1","result":{"structuredContent":{"total":1}}}"#;
    let (findings, notes) = run(&[&[CALL_1, string_id]], &Options::default());
    assert!(findings.is_empty(), "{findings:?}");
    assert!(notes.iter().any(|n| n.starts_with("1 response was skipped")), "{notes:?}");
    let (findings, notes) = run(&[&[CALL_1], &[BAD_RESULT_1]], &Options::default());
    assert!(findings.is_empty(), "{findings:?}");
    assert!(notes[0].starts_with("replayed 1 recorded call from 2 calls files"), "{notes:?}");
    // Other requests' responses are matched and left alone.
    let list = r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#;
    let listed = r#"{"jsonrpc":"2.0","id":5,"result":{"tools":[]}}"#;
    let (_, notes) = run(&[&[list, listed]], &Options::default());
    assert!(!notes.iter().any(|n| n.contains("response")), "{notes:?}");
}

#[test]
fn waiting_requests_and_itemized_failures_are_bounded() {
    let call = |id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"search","arguments":{{"q":"a"}}}}}}"#
        )
    };
    let result = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"structuredContent":{{}}}}}}"#);
    let lines: Vec<String> = (1..=3).map(call).chain((1..=3).map(result)).collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let options = Options { max_pending: 2, ..Options::default() };
    let (findings, notes) = run(&[&lines], &options);
    assert!(findings[0].1.starts_with("2 recorded results"), "{findings:?}");
    assert!(
        notes.iter().any(|n| n.starts_with("1 request was not matched to a response: 2 other requests")),
        "{notes:?}"
    );
    let lines = [r#"{"tool":"search","arguments":{}}"#, r#"{"tool":"gone","arguments":{}}"#, r#"{"tool":"gone2"}"#];
    let (findings, notes) = run(&[&lines], &Options { max_groups: 1, ..Options::default() });
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(notes.iter().any(|n| n.starts_with("2 calls or results were counted, not itemized")), "{notes:?}");
}

#[test]
fn messy_lines_are_counted_not_fatal() {
    let lines = ["", "not json", r#"{"jsonrpc":"2.0","method":"tools/call","params":{}}"#, "[1, 2]", CALL_1];
    let (findings, notes) = run(&[&lines], &Options::default());
    assert!(findings.is_empty(), "{findings:?}");
    assert!(
        notes.iter().any(|n| n.starts_with("1 line was not JSON and skipped (first at ") && n.ends_with("0.jsonl:2)")),
        "{notes:?}"
    );
    assert!(notes.iter().any(|n| n.starts_with("1 tools/call request was skipped")), "{notes:?}");
}
