//! Invariants of the rule catalog: every rule document's example fires its rule, every input rule has
//! its output mirror (or says why not), and docs/rules.md's rule table matches `rules/`.

use std::fmt::Write as _;

use mcp_drift::catalog::{RuleDirection, RuleId};

/// The `json` code blocks after `Before:` and `After:` in a rule document.
fn example(doc: &str) -> (String, String) {
    let block = |label: &str| {
        let start = doc.find(label).unwrap_or_else(|| panic!("no `{label}` in example"));
        let rest = &doc[start..];
        let open = rest.find("```json\n").expect("json block") + 8;
        let close = rest[open..].find("\n```").expect("closing fence");
        rest[open..open + close].to_owned()
    };
    (block("Before:"), block("After:"))
}

/// The `json` code block of a lint rule's example, linted from a temporary file.
fn lint_example(doc: &str) -> Vec<String> {
    let start = doc.find("Snapshot (`mcp-drift lint`):").expect("lint example");
    let rest = &doc[start..];
    let open = rest.find("```json\n").expect("json block") + 8;
    let close = rest[open..].find("\n```").expect("closing fence");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.json");
    std::fs::write(&path, &rest[open..open + close]).unwrap();
    let protocol = Some(mcp_drift::lint::Protocol::V2025_06_18);
    let analysis =
        mcp_drift::lint(&[path.to_string_lossy().into_owned()], mcp_drift::lint::Options { protocol }).unwrap();
    analysis.findings.iter().map(|f| f.rule.as_str().to_owned()).collect()
}

/// The new snapshot and the recorded calls of a replay rule's example, replayed from temporary files.
fn replay_example(doc: &str) -> Vec<String> {
    let block = |label: &str, fence: &str| {
        let start = doc.find(label).unwrap_or_else(|| panic!("no `{label}` in example"));
        let rest = &doc[start..];
        let open = rest.find(fence).expect("code block") + fence.len();
        let close = rest[open..].find("\n```").expect("closing fence");
        rest[open..open + close].to_owned()
    };
    let dir = tempfile::tempdir().unwrap();
    let (new, calls) = (dir.path().join("new.json"), dir.path().join("calls.jsonl"));
    std::fs::write(&new, block("New snapshot (`mcp-drift replay`):", "```json\n")).unwrap();
    std::fs::write(&calls, block("Recorded calls:", "```jsonl\n")).unwrap();
    let source = mcp_drift::load::Source::Path(new);
    let mut analysis =
        mcp_drift::replay_target(&source, mcp_drift::load::Limits::default(), &mcp_drift::load::Select::default())
            .unwrap();
    let options = mcp_drift::replay::Options::default();
    mcp_drift::replay::replay(&mut analysis, &[mcp_drift::replay::Calls::Path(calls)], &options).unwrap();
    analysis.findings.iter().map(|f| f.rule.as_str().to_owned()).collect()
}

#[test]
fn every_example_fires_its_rule() {
    for rule in RuleId::ALL {
        let meta = rule.meta();
        if meta.direction == RuleDirection::Replay {
            let fired = replay_example(meta.doc);
            assert!(fired.iter().any(|r| r == meta.id), "{}: example fired {fired:?}", meta.id);
            continue;
        }
        if meta.direction == RuleDirection::Snapshot {
            let fired = lint_example(meta.doc);
            assert!(fired.iter().any(|r| r == meta.id), "{}: example fired {fired:?}", meta.id);
            continue;
        }
        let (before, after) = example(meta.doc);
        let analysis = mcp_drift::diff_texts(&before, &after).unwrap_or_else(|e| panic!("{}: {e}", meta.id));
        let fired: Vec<&str> = analysis.findings.iter().map(|f| f.rule.as_str()).collect();
        assert!(fired.contains(&meta.id), "{}: example fired {fired:?}", meta.id);
        // The example is also a clean case in the other direction of time: nothing panics.
        let _ = mcp_drift::diff_texts(&after, &before).unwrap();
    }
}

#[test]
fn every_directional_rule_has_a_mirror_or_a_reason() {
    for rule in RuleId::ALL {
        let m = rule.meta();
        match (m.mirror, m.mirror_reason) {
            (Some(mirror), None) => {
                let other =
                    RuleId::from_id(mirror).unwrap_or_else(|| panic!("{}: mirror {mirror} does not exist", m.id));
                assert_eq!(other.meta().mirror, Some(m.id), "{}: mirror {mirror} does not point back", m.id);
                if m.direction == RuleDirection::Input {
                    assert_eq!(other.meta().direction, RuleDirection::Output, "{}", m.id);
                }
            }
            (None, Some(reason)) => assert!(reason.len() > 20, "{}: give a real reason", m.id),
            _ => panic!("{}: needs exactly one of `mirror` or `mirror_reason`", m.id),
        }
    }
}

#[test]
fn rule_ids_are_specific() {
    for rule in RuleId::ALL {
        let id = rule.as_str();
        for vague in ["misc", "other", "generic", "general", "unknown", "bad", "check"] {
            assert!(!id.split('-').any(|w| w == vague), "{id}: vague word `{vague}`");
        }
        let prefix_ok = match rule.meta().direction {
            RuleDirection::Input => id.starts_with("input-"),
            RuleDirection::Output => id.starts_with("output-"),
            RuleDirection::Snapshot => id.starts_with("lint-"),
            RuleDirection::Replay => id.starts_with("replay-"),
            RuleDirection::Tool => !["input-", "lint-", "replay-"].iter().any(|p| id.starts_with(p)),
        };
        assert!(prefix_ok, "{id}: prefix does not match its direction");
    }
}

#[test]
fn templates_only_use_known_placeholders() {
    const KNOWN: &[&str] = &[
        "tool",
        "pointer",
        "path",
        "effect",
        "from",
        "to",
        "name",
        "how",
        "extra",
        "detail",
        "keyword",
        "old",
        "new",
        "presence",
        "note",
        "hint",
        "what",
        "trigger",
        "word",
        "reason",
        "successor_note",
        "kept",
        "dialect",
        "version",
        "consequence",
        "advice",
    ];
    for rule in RuleId::ALL {
        let m = rule.meta();
        for template in [m.message, m.why, m.migration] {
            let mut rest = template;
            while let Some(i) = rest.find('{') {
                let end = rest[i..].find('}').map_or(rest.len(), |e| i + e);
                let key = &rest[i + 1..end];
                if key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
                    assert!(KNOWN.contains(&key), "{}: unknown placeholder {{{key}}}", m.id);
                }
                rest = &rest[end.min(rest.len())..];
                if rest.len() <= 1 {
                    break;
                }
                rest = &rest[1..];
            }
        }
    }
}

/// The rule table of docs/rules.md is generated from `rules/`; this test fails with the table to paste.
#[test]
fn docs_rule_table_is_current() {
    let mut table = String::from("| rule | severity | direction | summary |\n|---|---|---|---|\n");
    for rule in RuleId::ALL {
        let m = rule.meta();
        let _ = writeln!(
            table,
            "| [`{}`](../rules/{}.md) | {} | {} | {} |",
            m.id,
            m.id,
            m.severity.as_str(),
            m.direction.as_str(),
            m.summary
        );
    }
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md")).unwrap();
    assert!(page.contains(&table), "docs/rules.md rule table is out of date; replace it with:\n{table}");
}

#[test]
fn explain_prints_every_section() {
    for rule in RuleId::ALL {
        let text = mcp_drift::catalog::explain(*rule);
        for section in ["## What it detects", "## Why it breaks", "## Example", "## Migration"] {
            assert!(text.contains(section), "{rule}: {section}");
        }
    }
}
