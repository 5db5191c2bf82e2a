//! Nothing a pull request writes becomes a workflow command, markup or a terminal control: a hostile
//! pair of snapshots (payloads in a tool name, a property name, a description, an enum value and so a
//! witness, the file names, a suppressed finding's tool and reason, a run note) rendered in all six
//! formats, and an input error on standard error.
//!
//! For every output: no line (after leading whitespace) starts with `::` except the `github` format's
//! own commands, no `##[` anywhere, and no character that moves the cursor, breaks a line, reorders or
//! hides text. Markdown is parsed with a `CommonMark` parser (no HTML, link or image from the input, every
//! finding outside any HTML comment, no mention); `JUnit` with an XML parser.

use std::fmt::Write as _;
use std::path::PathBuf;

use assert_cmd::Command;
use mcp_drift::report;
use mcp_drift::text::needs_escape;
use serde_json::json;

/// A bit of everything: line breaks the runner and terminals honour, workflow commands both ways, OSC 52
/// (clipboard write), BEL, bidi override, line separators, VT/FF, zero-width and tag characters, NUL,
/// a noncharacter, and Markdown: an HTML comment, a mention, a link, an image, raw HTML, backtick runs.
const P: &str = "\n::error::forged\r##[warning]legacy\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J\u{202e}\u{2066}\u{2028}\u{2029}\u{85}\u{b}\u{c}\u{200b}\u{e0041}\u{0}\u{fffe}\u{7f}\u{9b}<!-- @octocat [x](https://evil.example) ![i](https://evil.example/i.png) <img src=x onerror=alert(1)> www.evil.example ``` ``";

/// A file name an attacker can commit: newline then a workflow command, OSC 52, a bidi override.
const FILE: &str = "new\n::error::forged-file\u{1b}]52;c;ZXZpbA==\u{7}\u{202e}nosj.json";

fn snapshots() -> (String, String) {
    let old = json!({"tools": [
        {"name": format!("gone{P}"), "inputSchema": {"type": "object"}},
        {"name": format!("deploy{P}"), "description": format!("Deploys the branch.{P}"), "inputSchema": {
            "type": "object",
            "properties": {
                "mode": {"type": "string", "enum": ["fast", P]},
                format!("opt{P}"): {"type": "string", "description": format!("An option.{P}")},
            },
        }},
        {"name": "zeta", "inputSchema": {"type": "object", "properties": {"z": {"type": "boolean"}}}},
    ]});
    let new = json!({"tools": [
        {"name": format!("deploy{P}"), "description": format!("Deletes the repository.{P}"), "inputSchema": {
            "type": "object",
            "properties": {
                "mode": {"type": "string", "enum": ["fast"]},
                format!("opt{P}"): {"type": "integer", "description": format!("An option.{P}")},
                format!("region{P}"): {"type": "string"},
            },
            "required": [format!("region{P}")],
        }},
        {"name": "x\n<!--", "inputSchema": {
            "type": "object", "properties": {"q": {"type": "integer"}}, "required": ["q"],
        }},
    ]});
    // A lone CR (JSON whitespace) on a quoted line, and raw bidi characters inside strings.
    let new = serde_json::to_string_pretty(&new).unwrap().replace("\"required\": [", "\"required\":\r [");
    (serde_json::to_string_pretty(&old).unwrap(), new)
}

struct Fixture {
    dir: tempfile::TempDir,
    old: PathBuf,
    new: PathBuf,
    config: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let (old_text, new_text) = snapshots();
    let old = dir.path().join(FILE.replacen("new", "old", 1));
    let new = dir.path().join(FILE);
    std::fs::write(&old, old_text).unwrap();
    std::fs::write(&new, new_text).unwrap();
    let config = dir.path().join("mcp-drift.toml");
    let toml = format!(
        "[[accept]]\nrule = \"tool-removed\"\ntool = {}\nreason = {}\n",
        toml_string(&format!("gone{P}")),
        toml_string(&format!("reviewed{P}"))
    );
    std::fs::write(&config, toml).unwrap();
    Fixture { dir, old, new, config }
}

/// A TOML basic string (JSON's escapes are TOML's, except that TOML spells them `\uXXXX`/`\UXXXXXXXX`).
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() || needs_escape(c) => {
                let _ = write!(out, "\\U{:08X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn analysis(fx: &Fixture) -> mcp_drift::Analysis {
    let mut a = mcp_drift::diff(&fx.old.to_string_lossy(), &fx.new.to_string_lossy()).unwrap();
    let policy = mcp_drift::policy::Policy::load(Some(&fx.config)).unwrap();
    a.apply_policy(&policy);
    a.notes.push(format!("the pull request changes mcp-drift.toml{P}"));
    a
}

/// The properties every output must have. `github`: the format's own commands are allowed.
fn assert_neutral(format: &str, text: &str, github: bool) {
    assert!(!text.contains("##["), "{format}: `##[` in\n{text}");
    for (i, line) in text.split(['\n', '\r']).enumerate() {
        if let Some(c) = line.chars().find(|&c| needs_escape(c)) {
            panic!("{format}: line {} has {:?}: {line:?}", i + 1, c);
        }
        let body = line.trim_start();
        if github && !body.is_empty() {
            let ours = ["::error ", "::warning ", "::notice "].iter().any(|p| body.starts_with(p));
            assert!(ours && line == body, "{format}: not one of its commands: {line:?}");
            // The properties end at the first `::`: no property value holds one.
            let (_, rest) = body.split_once(' ').unwrap();
            let (props, _) = rest.split_once("::").unwrap();
            assert!(
                props.split(',').all(|p| ["file=", "line=", "col=", "title="].iter().any(|k| p.starts_with(k))),
                "{line}"
            );
        } else {
            assert!(!body.starts_with("::"), "{format}: line {} starts a workflow command: {line:?}", i + 1);
        }
    }
    // Only LF breaks lines: no CR anywhere, which the runner would also split on.
    assert!(!text.contains('\r'), "{format}: raw CR");
}

fn rules(a: &mcp_drift::Analysis) -> Vec<&'static str> {
    a.findings.iter().map(|f| f.rule.as_str()).collect()
}

#[test]
fn the_fixture_is_hostile_where_it_should_be() {
    let fx = fixture();
    let a = analysis(&fx);
    let rules = rules(&a);
    for rule in ["input-required-added", "input-enum-narrowed", "tool-removed", "tool-added"] {
        assert!(rules.contains(&rule), "{rule} missing from {rules:?}");
    }
    assert!(a.findings.iter().any(|f| f.tool.contains("::error::forged")), "a hostile tool name");
    assert!(a.findings.iter().any(|f| f.witness.as_ref().is_some_and(|w| w.instance.to_string().contains("##["))));
    assert!(a.findings.iter().any(|f| f.new.as_ref().is_some_and(|l| l.path.contains('\u{202e}'))), "a hostile path");
    assert_eq!(a.suppressed.len(), 1, "the accepted removal of the hostile tool");
}

#[test]
fn every_format_is_neutral() {
    let fx = fixture();
    let a = analysis(&fx);
    assert_neutral("human", &report::human::render(&a, false), false);
    assert_neutral("human (color)", &report::human::render(&a, true).replace('\u{1b}', ""), false);
    assert_neutral("json", &report::json::render(&a), false);
    assert_neutral("sarif", &report::sarif::render(&a), false);
    assert_neutral("github", &report::github::render(&a), true);
    assert_neutral("markdown", &report::markdown::render(&a), false);
    assert_neutral("junit", &report::junit::render(&a, Some(mcp_drift::Severity::Error)), false);
}

#[test]
fn the_cli_output_is_neutral_in_every_format() {
    let fx = fixture();
    for format in ["human", "json", "sarif", "github", "markdown", "junit"] {
        let out = Command::cargo_bin("mcp-drift")
            .unwrap()
            .current_dir(fx.dir.path())
            .args(["diff", "--format", format, "--color", "always"])
            .arg(&fx.old)
            .arg(&fx.new)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{format}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stdout = if format == "human" { strip_sgr(&stdout) } else { stdout };
        assert_neutral(format, &stdout, format == "github");
        assert!(stdout.contains("tool-removed"), "{format}: the suppressed finding is named:\n{stdout}");
    }
}

/// Removes the colour sequences (`ESC [ ... m`) the human renderer writes itself with `--color always`.
fn strip_sgr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let end = tail.find(|c: char| !(c.is_ascii_digit() || c == ';')).unwrap_or(tail.len());
        assert_eq!(tail.as_bytes().get(end), Some(&b'm'), "only SGR sequences: {:?}", tail.get(..=end));
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn errors_on_stderr_are_one_neutral_line() {
    let dir = tempfile::tempdir().unwrap();
    // A duplicate key named with a payload, in a file named with another.
    let name = dir.path().join(FILE);
    let key = serde_json::to_string(&format!("k{P}")).unwrap();
    std::fs::write(&name, format!("{{\"tools\": [{{\"name\": \"a\", {key}: 1, {key}: 2, \"inputSchema\": {{}}}}]}}"))
        .unwrap();
    let missing = dir.path().join(format!("missing{P}.json").replace('\0', ""));
    // A configuration key with a payload (TOML quoted key), in a config file named with one.
    let config = dir.path().join(format!("cfg{}.toml", &FILE[3..FILE.len() - 9]));
    std::fs::write(&config, format!("{} = 1\n", toml_string(&format!("key{P}")))).unwrap();
    let runs: [(Vec<PathBuf>, &str); 4] = [
        (vec![name.clone(), name.clone()], "duplicate key"),
        // On disk, a path missing on either side is an error (at git revisions it is a partial snapshot).
        (vec![missing.clone(), name.clone()], "missing"),
        // Both sides load at once; the old side's error is the one reported.
        (vec![name.clone(), missing], "duplicate key"),
        (vec!["--config".into(), config, name.clone(), name], "key"),
    ];
    for (args, needle) in runs {
        let out = Command::cargo_bin("mcp-drift").unwrap().arg("diff").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_neutral("stderr", &stderr, false);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(needle), "{needle}: {stderr}");
        assert!(stderr.contains("\\n"), "the payload is shown, escaped: {stderr}");
    }
}

#[test]
fn suppressed_findings_are_counted_and_named_in_every_format() {
    let fx = fixture();
    let a = analysis(&fx);
    let (f, _) = &a.suppressed[0];
    let human = report::human::render(&a, false);
    assert!(
        human.lines().any(|l| l.starts_with("suppressed: tool-removed on gone") && l.contains("reviewed")),
        "{human}"
    );
    let markdown = report::markdown::render(&a);
    assert!(markdown.contains("### Suppressed findings (1)") && markdown.contains("reviewed"), "{markdown}");
    let github = report::github::render(&a);
    assert!(
        github.lines().any(|l| l.starts_with("::notice title=suppressed tool-removed") && l.contains("reviewed")),
        "{github}"
    );
    let junit = report::junit::render(&a, Some(mcp_drift::Severity::Error));
    assert!(junit.contains("suppressed error[tool-removed]") && junit.contains("reviewed"), "{junit}");
    let json: serde_json::Value = serde_json::from_str(&report::json::render(&a)).unwrap();
    assert_eq!(json["suppressed"][0]["tool"], f.tool.as_str());
    let sarif: serde_json::Value = serde_json::from_str(&report::sarif::render(&a)).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let marked: Vec<_> = results.iter().filter(|r| r.get("suppressions").is_some()).collect();
    assert_eq!(marked.len(), 1);
    assert_eq!(marked[0]["ruleId"], "tool-removed");
    assert_eq!(marked[0]["properties"]["tool"], f.tool.as_str(), "the exact name, JSON-escaped");
    assert_eq!(marked[0]["suppressions"][0]["kind"], "external");
    assert!(marked[0]["suppressions"][0]["justification"].as_str().unwrap().starts_with("reviewed\\n::error"));
}

#[test]
fn notes_are_printed_in_every_format() {
    let fx = fixture();
    let a = analysis(&fx);
    let needle = "the pull request changes mcp-drift.toml";
    assert!(report::human::render(&a, false).contains(needle));
    assert!(report::markdown::render(&a).contains(needle));
    assert!(report::github::render(&a).lines().any(|l| l.starts_with("::notice ") && l.contains(needle)));
    assert!(report::junit::render(&a, None).contains(needle));
    let sarif: serde_json::Value = serde_json::from_str(&report::sarif::render(&a)).unwrap();
    let note = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"];
    assert!(note.as_str().unwrap().starts_with(needle), "{note}");
    let json: serde_json::Value = serde_json::from_str(&report::json::render(&a)).unwrap();
    assert_eq!(json["notes"][0], a.notes[0].as_str(), "JSON keeps the exact text");
}

#[test]
fn json_and_sarif_keep_the_exact_strings() {
    let fx = fixture();
    let a = analysis(&fx);
    let json: serde_json::Value = serde_json::from_str(&report::json::render(&a)).unwrap();
    let tools: Vec<&str> = json["findings"].as_array().unwrap().iter().map(|f| f["tool"].as_str().unwrap()).collect();
    assert!(tools.contains(&format!("deploy{P}").as_str()), "{tools:?}");
    let sarif: serde_json::Value = serde_json::from_str(&report::sarif::render(&a)).unwrap();
    let uris: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str())
        .collect();
    assert!(!uris.is_empty());
    for uri in uris {
        // The fixture's files are absolute temporary paths: `file:` URIs, the rest percent-encoded.
        let uri = uri.strip_prefix("file://").unwrap_or(uri);
        assert!(uri.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~/%".contains(&b)), "{uri}");
        assert!(
            uri.contains("%0A%3A%3Aerror%3A%3Aforged-file%1B%5D52%3Bc%3BZXZpbA%3D%3D%07%E2%80%AEnosj.json"),
            "{uri}"
        );
    }
}

#[test]
fn markdown_renders_input_as_text() {
    let fx = fixture();
    let a = analysis(&fx);
    let md = report::markdown::render(&a);
    check_markdown(&md, &a);
}

/// Parses `md` as `CommonMark` and checks that the input rendered as text.
fn check_markdown(md: &str, a: &mcp_drift::Analysis) {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut in_heading = false;
    let mut headings = Vec::new();
    let mut visible = String::new();
    let mut text = String::new();
    for event in Parser::new(md) {
        if !matches!(event, Event::Text(_)) && !text.is_empty() {
            // A mention needs `@` right before a name; a bare link its scheme or `www.`.
            let t = std::mem::take(&mut text);
            assert!(t.match_indices('@').all(|(i, _)| t[i + 1..].starts_with('\u{200b}')), "mention: {t}");
            assert!(!t.contains("://") && !t.to_ascii_lowercase().contains("www."), "bare link: {t}");
        }
        match event {
            Event::Html(h) | Event::InlineHtml(h) => {
                let ours = ["<details><summary>", "</summary>", "</details>", "<del>", "</del>", "<ins>", "</ins>"];
                let h = h.trim();
                assert!(
                    ours.iter().any(|o| h.starts_with(o)) && !h.contains("<!--") && !h.contains("<img"),
                    "HTML from the input: {h:?}"
                );
            }
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => panic!("a link or image from the input:\n{md}"),
            Event::Start(Tag::Heading { .. }) => {
                in_heading = true;
                headings.push(String::new());
            }
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Text(t) => {
                text.push_str(&t);
                if in_heading {
                    headings.last_mut().unwrap().push_str(&t);
                }
                visible.push_str(&t);
                visible.push(' ');
            }
            Event::Code(t) => {
                if in_heading {
                    headings.last_mut().unwrap().push_str(&t);
                }
                visible.push_str(&t);
                visible.push(' ');
            }
            _ => {}
        }
    }
    // One heading per tool with findings, holding the whole (escaped) name; plus the title and the
    // suppressed section.
    let tools: std::collections::BTreeSet<(Option<&str>, &str)> =
        a.findings.iter().map(|f| (f.snapshot.as_deref(), f.tool.as_str())).collect();
    for (file, tool) in &tools {
        // Escaped, with `##[` broken up (`::` is not at a line start there).
        let mid =
            |s: &str| if s.is_empty() { " ".to_owned() } else { mcp_drift::text::escape(s).replace("##[", "##\\[") };
        let shown = match file {
            Some(file) => format!("{}: {}", mid(file), mid(tool)),
            None => mid(tool),
        };
        assert!(headings.contains(&shown), "no heading {shown:?} in {headings:?}");
    }
    // Besides: a section per severity, a tool heading per severity it has.
    let sections: std::collections::BTreeSet<_> = a.findings.iter().map(|f| f.severity).collect();
    let per_section: std::collections::BTreeSet<_> =
        a.findings.iter().map(|f| (f.severity, f.snapshot.as_deref(), f.tool.as_str())).collect();
    assert_eq!(
        headings.len(),
        1 + sections.len() + per_section.len() + usize::from(!a.suppressed.is_empty()),
        "{headings:?}"
    );
    // Every finding is visible: its rule id is in the rendered text (nothing hides it in a comment).
    for rule in rules(a) {
        assert!(visible.contains(rule), "{rule} hidden:\n{md}");
    }
}

#[test]
fn markdown_stays_under_githubs_limit() {
    // 3,000 tools removed, each with a long hostile name: far over 65,536 characters in full.
    let long = format!("{}{P}", "n".repeat(300));
    let tools: Vec<_> =
        (0..3000).map(|i| json!({"name": format!("{i}{long}"), "inputSchema": {"type": "object"}})).collect();
    let old = json!({ "tools": tools }).to_string();
    let a = mcp_drift::diff_texts(&old, r#"{"tools": []}"#).unwrap();
    assert_eq!(a.findings.len(), 3000);
    let md = report::markdown::render(&a);
    assert!(md.chars().count() < 65_536, "{} characters", md.chars().count());
    let left_out = md.lines().find(|l| l.contains("left out")).expect("a line that counts what was left out");
    let shown = md.lines().filter(|l| l.starts_with("- **error**")).count();
    assert!(left_out.contains(&format!("{} more findings", 3000 - shown)), "{left_out}");
    assert!(left_out.contains("--format json") && left_out.contains("--format sarif"), "{left_out}");
    assert!(shown > 10, "only {shown} shown");
    assert_neutral("markdown (large)", &md, false);
}

/// Past the budget, what is left out is never an error while warnings are shown: 4,000 tools with a
/// reworded-meaning description (warnings) sort before the one tool with a new required property.
#[test]
fn markdown_budget_shows_errors_first() {
    let tool = |name: String, desc: &str, required: bool| {
        let mut schema = json!({"type": "object", "properties": {"r": {"type": "string"}}});
        if required {
            schema["required"] = json!(["r"]);
        }
        json!({"name": name, "description": desc, "inputSchema": schema})
    };
    let mut old: Vec<_> = (0..4000).map(|i| tool(format!("a{i:04}"), "Lists open items.", false)).collect();
    let mut new: Vec<_> = (0..4000)
        .map(|i| tool(format!("a{i:04}"), "Lists open items. Requires the `items:read` scope.", false))
        .collect();
    old.push(tool("zzz".into(), "Deploys.", false));
    new.push(tool("zzz".into(), "Deploys.", true));
    let a = mcp_drift::diff_texts(&json!({ "tools": old }).to_string(), &json!({ "tools": new }).to_string()).unwrap();
    assert!(a.findings.len() > 4000, "{}", a.findings.len());
    let md = report::markdown::render(&a);
    assert!(md.chars().count() < 65_536);
    assert!(md.contains("left out"), "the budget applies");
    assert!(md.contains("- **error** `input-required-added`"), "the error is shown");
}

#[test]
fn junit_is_well_formed_xml() {
    let fx = fixture();
    let a = analysis(&fx);
    for fail_on in [Some(mcp_drift::Severity::Error), Some(mcp_drift::Severity::Info), None] {
        let xml = report::junit::render(&a, fail_on);
        let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}:\n{xml}"));
        let cases: Vec<_> = doc.descendants().filter(|n| n.has_tag_name("testcase")).collect();
        assert!(cases.iter().any(|c| c.attribute("name").is_some_and(|n| n.starts_with("deploy\\n::error"))));
        assert!(cases.iter().any(|c| c.attribute("name") == Some("x\\n<!--")), "the name, escaped, as text");
    }
    // Every character XML 1.0 forbids, in a tool name and a description.
    let bad: String = ('\u{0}'..='\u{1f}').chain(['\u{fffe}', '\u{ffff}']).collect();
    let old = json!({"tools": [{"name": format!("t{bad}"), "inputSchema": {"type": "object"}}]}).to_string();
    let a = mcp_drift::diff_texts(&old, r#"{"tools": []}"#).unwrap();
    let xml = report::junit::render(&a, Some(mcp_drift::Severity::Error));
    roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}:\n{xml}"));
}

#[test]
fn many_suppressed_findings_are_summarized_in_github_and_bounded_in_markdown() {
    let name = |i: usize| format!("t{i}{P}{}", "n".repeat(500));
    let tools: Vec<_> = (0..400).map(|i| json!({"name": name(i), "inputSchema": {"type": "object"}})).collect();
    let mut a = mcp_drift::diff_texts(&json!({ "tools": tools }).to_string(), r#"{"tools": []}"#).unwrap();
    let accepted = (0..400)
        .map(|i| mcp_drift::policy::Accept {
            fingerprint: None,
            rule: Some("tool-removed".into()),
            tool: Some(name(i)),
            pointer: None,
            reason: format!("reviewed{P}"),
            ..mcp_drift::policy::Accept::default()
        })
        .collect();
    a.apply_policy(&mcp_drift::policy::Policy { accepted, ..mcp_drift::policy::Policy::default() });
    assert_eq!((a.findings.len(), a.suppressed.len()), (0, 400));
    let github = report::github::render(&a);
    assert_neutral("github", &github, true);
    assert_eq!(github.lines().count(), 1, "one summarizing notice:\n{github}");
    assert!(github.starts_with("::notice title=400 findings suppressed::") && github.contains("390 more"), "{github}");
    let md = report::markdown::render(&a);
    assert_neutral("markdown", &md, false);
    assert!(md.chars().count() < 65_536, "{} characters", md.chars().count());
    assert!(md.contains("### Suppressed findings (400)"), "{md}");
    let named = md.lines().filter(|l| l.starts_with("- `tool-removed`")).count();
    assert!(named > 5 && md.contains(&format!("{} more suppressed findings left out", 400 - named)), "{named}\n{md}");
}

/// Every format of one analysis.
fn all_formats(a: &mcp_drift::Analysis) -> Vec<(&'static str, String)> {
    vec![
        ("human", report::human::render(a, false)),
        ("json", report::json::render(a)),
        ("sarif", report::sarif::render(a)),
        ("github", report::github::render(a)),
        ("markdown", report::markdown::render(a)),
        ("junit", report::junit::render(a, Some(mcp_drift::Severity::Error))),
    ]
}

#[test]
fn lint_and_directory_reports_are_neutral() {
    let fx = fixture();
    // Lint reads more of the input (descriptions with hidden characters, names, references).
    let lint = mcp_drift::lint(&[fx.new.to_string_lossy().into_owned()], mcp_drift::lint::Options::default()).unwrap();
    assert!(!lint.findings.is_empty());
    for (format, text) in all_formats(&lint) {
        assert_neutral(&format!("lint {format}"), &text, format == "github");
    }
    // Directories of snapshots: findings carry the hostile relative file name as their snapshot.
    let (old_text, new_text) = snapshots();
    let root = tempfile::tempdir().unwrap();
    for (side, text) in [("old", &old_text), ("new", &new_text)] {
        std::fs::create_dir_all(root.path().join(side)).unwrap();
        std::fs::write(root.path().join(side).join(FILE), text).unwrap();
        std::fs::write(root.path().join(side).join("plain.json"), text).unwrap();
    }
    let dirs = mcp_drift::diff(&root.path().join("old").to_string_lossy(), &root.path().join("new").to_string_lossy())
        .unwrap();
    assert!(dirs.findings.iter().any(|f| f.snapshot.as_deref() == Some(FILE)), "the hostile file is a snapshot label");
    for (format, text) in all_formats(&dirs) {
        assert_neutral(&format!("directories {format}"), &text, format == "github");
    }
    check_markdown(&report::markdown::render(&dirs), &dirs);
}

/// Strings with a high share of the characters that matter here.
fn nasty() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let pieces = prop_oneof![
        Just("::".to_owned()),
        Just("##[".to_owned()),
        Just("#".to_owned()),
        Just("\n".to_owned()),
        Just("\r".to_owned()),
        Just("`".to_owned()),
        Just("<!--".to_owned()),
        Just("@".to_owned()),
        Just("https://".to_owned()),
        Just("\u{1b}]52;".to_owned()),
        Just(" ".to_owned()),
        any::<char>().prop_map(String::from),
        "[\\u{0}-\\u{ff}\\u{2028}\\u{202a}-\\u{202e}\\u{fffe}\\u{ffff}\\u{e0000}-\\u{e007f}]".prop_map(|s| s),
    ];
    proptest::collection::vec(pieces, 0..24).prop_map(|v| v.concat())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 96, ..Default::default() })]

    #[test]
    fn any_string_is_neutral_on_one_line(s in nasty()) {
        let shown = mcp_drift::text::line(&s);
        proptest::prop_assert!(!shown.contains('\n'));
        assert_neutral("line", &shown, false);
        let json = mcp_drift::text::json_guard(serde_json::to_string_pretty(&json!({ &s: [&s] })).unwrap());
        assert_neutral("json", &json, false);
        proptest::prop_assert_eq!(serde_json::from_str::<serde_json::Value>(&json).unwrap(), json!({ &s: [&s] }));
    }

    #[test]
    fn any_tool_name_renders_safely(s in nasty()) {
        let old = json!({"tools": [{"name": &s, "inputSchema": {"type": "object"}}, {"name": "z", "inputSchema": {"type": "object"}}]});
        let a = mcp_drift::diff_texts(&old.to_string(), r#"{"tools": []}"#).unwrap();
        for (format, text) in all_formats(&a) {
            assert_neutral(format, &text, format == "github");
        }
        roxmltree::Document::parse(&report::junit::render(&a, None)).unwrap();
        check_markdown(&report::markdown::render(&a), &a);
    }
}

/// Markdown punctuation, entities, mentions, issue references and links: what a maintainer must see
/// as written, never as markup.
const Q: &str = "<b>x</b> a|b \\| `t` `` &amp; &lt; @user #1 https://e.x/y www.e.x *em* _u_ [l](u) ![i](u) ~~s~~ <!-- c --> </details>";

/// Collapses what `CommonMark` may change without changing what is read: runs of spaces, the zero-width
/// spaces that break mentions and links, and the backticks of code spans.
fn read(s: &str) -> String {
    s.replace(['\u{200b}', '`'], "").split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn markdown_shows_exactly_the_input_text() {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let old = json!({"tools": [{"name": format!("t{Q}"), "description": format!("Returns at most 100 items. {Q}"),
    "inputSchema": {"type": "object", "properties": {
        format!("p{Q}"): {"type": "string"},
        "mode": {"type": "string", "enum": ["a", Q]},
    }}}]});
    let new = json!({"tools": [{"name": format!("t{Q}"), "description": format!("Returns at most 10 items. {Q}"),
        "inputSchema": {"type": "object", "properties": {
            format!("p{Q}"): {"type": "string"},
            "mode": {"type": "string", "enum": ["a"]},
        }, "required": [format!("p{Q}")]}}]});
    let a = mcp_drift::diff_texts(&old.to_string(), &new.to_string()).unwrap();
    assert!(a.findings.len() >= 3, "{:#?}", a.findings);
    let links = report::links::Links::from_env(|k| match k {
        "GITHUB_REPOSITORY" => Some("o/r".into()),
        "GITHUB_SHA" => Some("feed".into()),
        _ => None,
    });
    let md = report::markdown::render_with(&a, &links);
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;

    // The first line of every finding, as read; the struck and inserted words of the word diff; code.
    let (mut items, mut depth, mut line, mut in_first) = (Vec::new(), 0, String::new(), false);
    let (mut marked, mut mark, mut codes) = (Vec::new(), None::<String>, Vec::new());
    for event in Parser::new_ext(&md, options) {
        match event {
            Event::Start(Tag::Item) => {
                depth += 1;
                in_first = depth == 1;
            }
            Event::Start(Tag::List(_)) if depth == 1 && in_first => {
                in_first = false;
                items.push(std::mem::take(&mut line));
            }
            Event::End(TagEnd::Item) => {
                if depth == 1 && in_first {
                    items.push(std::mem::take(&mut line));
                }
                depth -= 1;
            }
            Event::Text(ref t) | Event::Code(ref t) => {
                if let Event::Code(c) = &event {
                    codes.push(c.to_string());
                }
                if in_first {
                    line.push_str(t);
                }
                if let Some(m) = mark.as_mut() {
                    m.push_str(t);
                }
            }
            Event::InlineHtml(h) | Event::Html(h) => match h.trim() {
                "<del>" | "<ins>" => mark = Some(String::new()),
                "</del>" | "</ins>" => marked.push(mark.take().unwrap()),
                h if h.starts_with("<details><summary>") || h == "</summary>" || h == "</details>" => {}
                h => panic!("HTML from the input: {h:?}\n{md}"),
            },
            Event::Start(Tag::Link { dest_url, .. }) => {
                // Both texts are working-tree files here: both sides are in the checked-out commit.
                let ours = ["new.json", "old.json"].map(|f| format!("https://github.com/o/r/blob/feed/{f}#L"));
                assert!(ours.iter().any(|o| dest_url.starts_with(o.as_str())), "{dest_url}\n{md}");
            }
            Event::Start(Tag::Image { .. } | Tag::Strikethrough | Tag::Emphasis | Tag::HtmlBlock) => {
                panic!("markup from the input: {event:?}\n{md}");
            }
            Event::Start(Tag::Strong) if !in_first => panic!("bold text from the input:\n{md}"),
            _ => {}
        }
    }
    let visible: Vec<String> = items.iter().map(|i| read(i)).collect();
    for f in &a.findings {
        let expected = read(&format!("{} {}: {}", f.severity, f.rule.as_str(), mcp_drift::text::escape(&f.message)));
        assert!(visible.contains(&expected), "{expected:?} is not shown as written in\n{visible:#?}\n{md}");
    }
    // Backticks too: a quoted name is one code span, whatever it holds.
    let exact = |s: &str| s.replace('\u{200b}', "").split_whitespace().collect::<Vec<_>>().join(" ");
    let wanted = exact(&format!("error input-required-added: p{Q} is now required (existing parameter made required)"));
    assert!(items.iter().any(|i| exact(i) == wanted), "{wanted:?} not in\n{items:#?}");
    // The word diff: `100` struck through, `10` inserted, the payload around them as written.
    assert_eq!(marked, ["100", "10"], "{md}");
    let edit = md.lines().find(|l| l.contains("Edit:")).unwrap();
    let shown = Parser::new_ext(edit, options)
        .filter_map(|e| match e {
            Event::Text(t) | Event::Code(t) => Some(t.to_string()),
            _ => None,
        })
        .collect::<String>();
    assert!(read(&shown).ends_with(&read(&format!("10010 items. {Q}"))), "{shown:?}");
    // Names and witnesses in code spans show exactly (no entity or backslash escape inside).
    assert!(codes.iter().any(|c| c.trim() == format!("t{Q}")), "{codes:#?}");
    assert!(codes.contains(&json!({"mode": Q}).to_string()), "the witness as written: {codes:#?}");
    // No issue reference (`#1`) in text: GitHub would link it, escaped or not.
    for event in Parser::new_ext(&md, options) {
        if let Event::Text(t) = event {
            assert!(!t.as_bytes().windows(2).any(|w| w[0] == b'#' && w[1].is_ascii_digit()), "{t:?}");
        }
    }
    // Every location links to its line at the checked-out commit.
    assert!(md.contains("](https://github.com/o/r/blob/feed/new.json#L"), "{md}");
}
