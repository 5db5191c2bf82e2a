//! `mcp-drift notes`: release notes for users. Goldens on corpus pairs (one per section at least) and
//! on a real server's consecutive releases (`tests/snapshots/notes/`; review with `cargo insta
//! review`), a hostile-text test, the bounds and the command line's exit codes.

use std::path::Path;

use assert_cmd::Command;
use mcp_drift::report::changelog;

fn in_root() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
}

fn notes(old: &str, new: &str, title: Option<&str>) -> String {
    in_root();
    let analysis = mcp_drift::diff(old, new).unwrap_or_else(|e| panic!("{old} {new}: {e}"));
    changelog::render(&analysis, title)
}

fn golden(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/notes"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

fn corpus(case: &str) -> String {
    notes(&format!("corpus/{case}/old.json"), &format!("corpus/{case}/new.json"), None)
}

/// The `### ` headings, in order.
fn sections(text: &str) -> Vec<&str> {
    text.lines().filter_map(|l| l.strip_prefix("### ")).collect()
}

#[test]
fn corpus_pairs_match_golden_notes_and_land_in_their_section() {
    let cases = [
        ("seed-deploy-preview-region", vec!["Breaking"]),
        ("tool-renamed", vec!["Breaking"]),
        ("description-deprecation-notice", vec!["Deprecated"]),
        ("input-default-changed", vec!["Breaking"]),
        ("tool-added", vec!["Added"]),
        ("input-enum-widened", vec!["Added"]),
        ("output-enum-narrowed", vec!["Removed"]),
        ("description-reworded-only", vec![]),
        ("identical", vec![]),
    ];
    for (case, expected) in cases {
        let text = corpus(case);
        assert_eq!(sections(&text), expected, "{case}:\n{text}");
        golden(case, &text);
    }
}

#[test]
fn the_seed_reads_as_the_issue_asks() {
    let text = corpus("seed-deploy-preview-region");
    assert!(text.contains("- `deploy_preview` now requires `region`; calls without it are rejected."), "{text}");
    assert!(text.contains("Pass `region` in every call."), "{text}");
    // Both findings about `region` make one entry.
    assert_eq!(text.lines().filter(|l| l.starts_with("- ")).count(), 1, "{text}");
}

#[test]
fn a_deprecation_names_its_successor() {
    let text = corpus("description-deprecation-notice");
    assert!(text.contains("`fetch_url` is deprecated; use `fetch_page` instead."), "{text}");
}

#[test]
fn rewording_is_one_counted_line() {
    let text = corpus("description-reworded-only");
    assert!(text.ends_with("1 description reworded without a change of meaning.\n"), "{text:?}");
    assert!(!text.contains("- "), "{text}");
    assert_eq!(corpus("identical"), "No changes for users of these tools.\n");
}

#[test]
fn a_real_release_pair_matches_golden_notes() {
    let dir = "tests/releases/captures/pypi__arxiv-mcp-server";
    let text = notes(&format!("{dir}/0.6.3.json"), &format!("{dir}/0.7.0.json"), Some("arxiv-mcp-server 0.7.0"));
    // Its one breaking entry was `start` "side effect added", read from "a prior truncated response";
    // that is no side effect (issue #31), so nothing here is breaking any more.
    assert!(text.starts_with("## arxiv-mcp-server 0.7.0\n\n### Changed\n"), "{text}");
    assert_eq!(sections(&text), ["Changed", "Added"], "{text}");
    assert!(text.contains("- New tool `list_watches`."), "{text}");
    assert!(text.contains("descriptions reworded without a change of meaning."), "{text}");
    golden("pypi__arxiv-mcp-server-0.6.3-0.7.0", &text);
    let dir = "tests/releases/captures/npm__tavily-mcp";
    let text = notes(&format!("{dir}/0.2.9.json"), &format!("{dir}/0.2.10.json"), None);
    assert!(text.contains("Stop sending `categories`."), "{text}");
    // The removed parameter still validates: the example says its value is ignored, not rejected.
    assert!(text.contains("Example of a call whose value is now ignored"), "{text}");
    golden("npm__tavily-mcp-0.2.9-0.2.10", &text);
}

const HOSTILE: [&str; 7] =
    ["a`b``c", "<script>alert(1)</script>", "[x](http://a)", "@user", "line\n# heading", "esc\u{1b}[31mred", "# top"];

/// The text with every code span (a run of N backticks to the next run of exactly N) taken out, as
/// `CommonMark` reads them; an unclosed run stays as literal backticks.
fn outside_code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let bytes = line.as_bytes();
        let run_at = |at: usize| bytes[at..].iter().take_while(|&&c| c == b'`').count();
        let mut at = 0;
        while at < bytes.len() {
            if bytes[at] != b'`' || (at > 0 && bytes[at - 1] == b'\\') {
                let c = line[at..].chars().next().unwrap();
                out.push(c);
                at += c.len_utf8();
                continue;
            }
            let fence = run_at(at);
            let mut next = at + fence;
            let mut close = None;
            while next < bytes.len() {
                if bytes[next] == b'`' {
                    let run = run_at(next);
                    if run == fence {
                        close = Some(next + run);
                        break;
                    }
                    next += run;
                } else {
                    next += 1;
                }
            }
            if let Some(end) = close {
                at = end;
            } else {
                out.push_str(&line[at..at + fence]);
                at += fence;
            }
        }
        out.push('\n');
    }
    out
}

fn write(dir: &Path, name: &str, tools: &serde_json::Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(&serde_json::json!({ "tools": tools })).unwrap()).unwrap();
    path.to_string_lossy().into_owned()
}

/// Hostile tool names, parameter names and descriptions, in every section that lists entries.
fn hostile_pair(dir: &Path) -> (String, String) {
    let mut old = Vec::new();
    let mut new = Vec::new();
    for (i, h) in HOSTILE.iter().enumerate() {
        let name = format!("{h}{i}");
        let props = serde_json::json!({ *h: {"type": "string", "description": format!("{h} value")} });
        old.push(serde_json::json!({
            "name": name, "description": format!("Reads {h} things."),
            "inputSchema": {"type": "object", "properties": props}
        }));
        // Now required (Breaking), deprecated (Deprecated), and a new hostile tool (Added).
        new.push(serde_json::json!({
            "name": name, "description": format!("Deprecated: use `{h}` instead, until {h} is removed. Reads {h} things."),
            "inputSchema": {"type": "object", "properties": props, "required": [h]}
        }));
        new.push(serde_json::json!({
            "name": format!("{h} new{i}"), "description": h,
            "inputSchema": {"type": "object", "properties": props}
        }));
    }
    (write(dir, "old.json", &serde_json::Value::Array(old)), write(dir, "new.json", &serde_json::Value::Array(new)))
}

#[test]
fn hostile_text_never_becomes_markup() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = hostile_pair(dir.path());
    let analysis = mcp_drift::diff(&old, &new).unwrap();
    let text = changelog::render(&analysis, Some("<b>@team</b> [t](http://x)\n# h"));
    for s in ["Breaking", "Deprecated", "Added"] {
        assert!(sections(&text).contains(&s), "{s} missing:\n{text}");
    }
    assert!(!text.contains('\u{1b}'), "{text}");
    // Inside code spans text shows as it is; outside them nothing may be markup.
    // The check itself sees markup outside code spans.
    assert_eq!(outside_code("`<s>` <s> ``a`b`` \\`<i>`"), " <s>  \\`<i>`\n");
    // An escaped bracket (`\]`) opens or closes no link.
    let outside = outside_code(&text).replace("\\[", "").replace("\\]", "");
    for markup in ["<script", "<b>", "](http", "@user", "@team", "http://"] {
        assert!(!outside.contains(markup), "{markup} outside a code span:\n{outside}\n---\n{text}");
    }
    for line in text.lines() {
        // Only the notes' own headings; every other line is an entry, the rewording count or empty.
        assert!(
            line.is_empty()
                || line.starts_with("- ")
                || line.starts_with("### ")
                || line.starts_with("## ")
                || line.chars().next().is_some_and(|c| c.is_ascii_digit()),
            "{line:?} in\n{text}"
        );
        if let Some(h) = line.strip_prefix("### ") {
            assert!(["Breaking", "Deprecated", "Changed", "Added", "Removed"].contains(&h), "{line:?}");
        }
    }
    assert_eq!(text.lines().filter(|l| l.starts_with("## ")).count(), 1, "{text}");
    // Each hostile tool is there, its name in a code span that holds its backticks.
    assert!(text.contains("``a`b``c0``"), "{text}");
    assert!(text.contains("`line\\n# heading4`"), "{text}");
}

#[test]
fn long_lists_are_elided_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let tools: Vec<serde_json::Value> = (0..changelog::MAX_ENTRIES + 7)
        .map(|i| serde_json::json!({"name": format!("t{i:03}"), "description": "x", "inputSchema": {"type": "object"}}))
        .collect();
    let old = write(dir.path(), "old.json", &serde_json::json!([]));
    let new = write(dir.path(), "new.json", &serde_json::Value::Array(tools));
    let text = changelog::render(&mcp_drift::diff(&old, &new).unwrap(), None);
    assert_eq!(text.lines().filter(|l| l.starts_with("- New tool")).count(), changelog::MAX_ENTRIES, "{text}");
    assert!(text.contains("- And 7 more (`mcp-drift diff --format json` lists every change)."), "{text}");
    assert!(text.len() <= changelog::BUDGET + 200);
}

fn bin() -> Command {
    let mut c = Command::cargo_bin("mcp-drift").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

#[test]
fn the_command_writes_notes_and_exits_0_even_with_breaking_changes() {
    let out = bin()
        .args([
            "notes",
            "corpus/seed-deploy-preview-region/old.json",
            "corpus/seed-deploy-preview-region/new.json",
            "--title",
            "1.2.0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("## 1.2.0\n\n### Breaking\n\n- `deploy_preview` now requires `region`"), "{stdout}");
}

#[test]
fn bad_input_exits_2_with_diffs_error_format() {
    let notes = bin().args(["notes", "corpus/nope.json", "corpus/tool-added/new.json"]).output().unwrap();
    let diff = bin().args(["diff", "corpus/nope.json", "corpus/tool-added/new.json"]).output().unwrap();
    assert_eq!(notes.status.code(), Some(2));
    assert!(notes.stdout.is_empty());
    assert_eq!(notes.stderr, diff.stderr);
    assert!(String::from_utf8_lossy(&notes.stderr).starts_with("error: "));
}

#[test]
fn the_baseline_and_configuration_apply_as_for_diff() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp-drift.toml");
    std::fs::write(&config, "[severity]\ninput-required-added = \"off\"\ninput-authority-expanded = \"off\"\n")
        .unwrap();
    let out = bin()
        .args([
            "notes",
            "corpus/seed-deploy-preview-region/old.json",
            "corpus/seed-deploy-preview-region/new.json",
            "--config",
        ])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!stdout.contains("### Breaking"), "{stdout}");
}

#[test]
fn a_deprecation_window_announced_in_the_description_is_quoted() {
    let dir = tempfile::tempdir().unwrap();
    let tool = |description: &str| serde_json::json!([{"name": "fetch_url", "description": description, "inputSchema": {"type": "object"}}]);
    let old = write(dir.path(), "old.json", &tool("Fetches a web page and returns it as Markdown."));
    let new = write(
        dir.path(),
        "new.json",
        &tool(
            "Deprecated: use `fetch_page` instead; supported until 2027-01-31. Fetches a web page and returns it as Markdown.",
        ),
    );
    let text = changelog::render(&mcp_drift::diff(&old, &new).unwrap(), None);
    assert_eq!(sections(&text), ["Deprecated"], "{text}");
    assert!(text.contains("`fetch_url` is deprecated; use `fetch_page` instead."), "{text}");
    assert!(text.contains("Deprecation window, as announced:"), "{text}");
    assert!(text.contains("2027-01-31"), "{text}");
}
