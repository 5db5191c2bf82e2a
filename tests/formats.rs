//! Every output format, produced from the same findings: golden files for representative cases, and
//! the SARIF output validated against the official SARIF 2.1.0 schema (from a pinned npm package,
//! fetched by `tests/official/fetch.sh`).

mod official;

use std::path::Path;

use mcp_drift::catalog::Severity;
use mcp_drift::report;

const CASES: &[&str] =
    &["seed-deploy-preview-region", "seed-query-renamed-q", "tool-removed-merged", "snapshot-reworded-only"];

fn analysis(case: &str) -> mcp_drift::Analysis {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    mcp_drift::diff(&format!("corpus/{case}/old.json"), &format!("corpus/{case}/new.json")).unwrap()
}

#[test]
fn golden_outputs_per_format() {
    for case in CASES {
        let a = analysis(case);
        insta::assert_snapshot!(format!("{case}.github"), report::github::render(&a));
        insta::assert_snapshot!(format!("{case}.markdown"), report::markdown::render(&a));
        insta::assert_snapshot!(format!("{case}.junit"), report::junit::render(&a, Some(Severity::Error)));
        insta::assert_snapshot!(format!("{case}.sarif"), report::sarif::render(&a));
    }
}

/// The official schema, with the one `pattern` that Rust's regex engine rejects made equivalent.
fn sarif_validator() -> Option<jsonschema::Validator> {
    let mut schema = official::schema("sarif-schema-2.1.0.json")?;
    // Draft-07 schema: validate with its own draft; formats are annotations.
    schema.as_object_mut().unwrap().remove("$schema");
    let build = |s: &serde_json::Value| jsonschema::options().with_draft(jsonschema::Draft::Draft7).build(s);
    match build(&schema) {
        Ok(v) => Some(v),
        Err(e) => panic!("the SARIF schema does not build: {e}"),
    }
}

#[test]
fn sarif_validates_against_the_official_schema() {
    let Some(validator) = sarif_validator() else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut checked = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let case = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !root.join(&case).join("old.json").exists() {
            continue;
        }
        let sarif: serde_json::Value = serde_json::from_str(&report::sarif::render(&analysis(&case))).unwrap();
        let errors: Vec<String> =
            validator.iter_errors(&sarif).map(|e| format!("{}: {e}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{case}: {}", errors.join("\n"));
        checked += 1;
    }
    assert!(checked > 50);
    // Lint reports are SARIF too (one location, no old side).
    for entry in std::fs::read_dir(root.join("lint")).unwrap() {
        let case = entry.unwrap().path().join("snapshot.json");
        let analysis =
            mcp_drift::lint(&[case.to_string_lossy().into_owned()], mcp_drift::lint::Options::default()).unwrap();
        let sarif: serde_json::Value = serde_json::from_str(&report::sarif::render(&analysis)).unwrap();
        let errors: Vec<String> =
            validator.iter_errors(&sarif).map(|e| format!("{}: {e}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{}: {}", case.display(), errors.join("\n"));
    }
    // The validator does reject what is not SARIF.
    let broken = serde_json::json!({"runs": [{"results": []}]});
    assert!(!validator.is_valid(&broken));
}

#[test]
fn github_commands_escape_everything_they_must() {
    let a = analysis("seed-deploy-preview-region");
    let text = report::github::render(&a);
    for line in text.lines() {
        assert!(
            line.starts_with("::error ") || line.starts_with("::warning ") || line.starts_with("::notice "),
            "{line}"
        );
        assert_eq!(line.matches("::").count(), 2, "one separator only: {line}");
    }
}

/// An accepted finding and a run note, as every format shows them.
fn with_suppressed_and_note() -> mcp_drift::Analysis {
    let mut a = analysis("seed-deploy-preview-region");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp-drift.toml");
    std::fs::write(
        &config,
        "[[accept]]\nrule = \"input-required-added\"\ntool = \"deploy_preview\"\nreason = \"callers moved (JIRA-1)\"\n",
    )
    .unwrap();
    a.apply_policy(&mcp_drift::policy::Policy::load(Some(&config)).unwrap());
    assert_eq!(a.suppressed.len(), 1);
    a.notes.push("the pull request changes mcp-drift.toml".into());
    a
}

#[test]
fn suppressed_findings_and_notes_are_valid_sarif() {
    let a = with_suppressed_and_note();
    let sarif: serde_json::Value = serde_json::from_str(&report::sarif::render(&a)).unwrap();
    let run = &sarif["runs"][0];
    let suppressed: Vec<&serde_json::Value> =
        run["results"].as_array().unwrap().iter().filter(|r| r.get("suppressions").is_some()).collect();
    assert_eq!(suppressed.len(), 1);
    assert_eq!(
        suppressed[0]["suppressions"],
        serde_json::json!([{"kind": "external", "justification": "callers moved (JIRA-1)"}])
    );
    assert_eq!(suppressed[0]["ruleId"], "input-required-added");
    let notes = &run["invocations"][0]["toolExecutionNotifications"];
    assert_eq!(notes[0]["message"]["text"], "the pull request changes mcp-drift.toml");
    let Some(validator) = sarif_validator() else { return };
    let errors: Vec<String> = validator.iter_errors(&sarif).map(|e| format!("{}: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn golden_outputs_with_suppressed_and_note() {
    let a = with_suppressed_and_note();
    insta::assert_snapshot!("suppressed.human", report::human::render(&a, false));
    insta::assert_snapshot!("suppressed.github", report::github::render(&a));
    insta::assert_snapshot!("suppressed.markdown", report::markdown::render(&a));
    insta::assert_snapshot!("suppressed.junit", report::junit::render(&a, Some(Severity::Error)));
}

fn sh(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git").current_dir(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// `mcp-drift ARGS` in `dir`: exit code and standard output.
fn drift_in(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-drift")).current_dir(dir).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A repository whose `v1/tools.json` (committed) has `deploy` and, on line 3, `status`; the working
/// tree's `v2/tools.json` changes `deploy` and removes `status`.
fn moved_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    sh(dir.path(), &["init", "-q", "-b", "main"]);
    sh(dir.path(), &["config", "user.email", "ci@example.com"]);
    sh(dir.path(), &["config", "user.name", "CI"]);
    sh(dir.path(), &["config", "commit.gpgsign", "false"]);
    std::fs::create_dir_all(dir.path().join("v1")).unwrap();
    std::fs::create_dir_all(dir.path().join("v2 snaps")).unwrap();
    std::fs::write(
        dir.path().join("v1/tools.json"),
        "{\"tools\": [\n{\"name\": \"deploy\", \"inputSchema\": {\"type\": \"object\"}},\n{\"name\": \"status\", \"inputSchema\": {\"type\": \"object\"}}\n]}\n",
    )
    .unwrap();
    sh(dir.path(), &["add", "."]);
    sh(dir.path(), &["commit", "-qm", "v1"]);
    std::fs::write(
        dir.path().join("v2 snaps/tools.json"),
        "{\"tools\": [\n{\"name\": \"deploy\", \"inputSchema\": {\"type\": \"object\", \"properties\": {\"r\": {\"type\": \"string\"}}, \"required\": [\"r\"]}}\n]}\n",
    )
    .unwrap();
    dir
}

#[test]
fn sarif_and_github_locations_are_repository_paths() {
    let repo = moved_repo();
    let (code, out) =
        drift_in(repo.path(), &["diff", "HEAD:v1/tools.json", "v2 snaps/tools.json", "--format", "sarif"]);
    assert_eq!(code, 1, "{out}");
    let sarif: serde_json::Value = serde_json::from_str(&out).unwrap();
    let run = &sarif["runs"][0];
    assert!(run["originalUriBaseIds"]["%SRCROOT%"].is_object(), "{run:#}");
    let mut by_rule = std::collections::BTreeMap::new();
    for result in run["results"].as_array().unwrap() {
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%", "{location:#}");
        by_rule.insert(result["ruleId"].as_str().unwrap().to_owned(), location.clone());
    }
    // The removed tool points at the old file, at its line; the changed one at the new file, encoded.
    let removed = &by_rule["tool-removed"];
    assert_eq!(removed["artifactLocation"]["uri"], "v1/tools.json");
    assert_eq!(removed["region"]["startLine"], 3);
    assert_eq!(by_rule["input-required-added"]["artifactLocation"]["uri"], "v2%20snaps/tools.json");
    if let Some(validator) = sarif_validator() {
        let errors: Vec<String> =
            validator.iter_errors(&sarif).map(|e| format!("{}: {e}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{}", errors.join("\n"));
    }

    let (_, out) = drift_in(repo.path(), &["diff", "HEAD:v1/tools.json", "v2 snaps/tools.json", "--format", "github"]);
    let removal = out.lines().find(|l| l.contains("tool-removed")).unwrap();
    assert!(removal.starts_with("::error file=v1/tools.json,line=3,"), "{out}");
    let required = out.lines().find(|l| l.contains("input-required-added")).unwrap();
    assert!(required.starts_with("::error file=v2 snaps/tools.json,line=2,"), "{out}");
    assert!(!out.contains("HEAD%3A"), "{out}");
}

#[test]
fn sarif_driver_names_its_version_and_existing_rule_documents() {
    let sarif: serde_json::Value =
        serde_json::from_str(&report::sarif::render(&analysis("seed-deploy-preview-region"))).unwrap();
    let driver = &sarif["runs"][0]["tool"]["driver"];
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(driver["semanticVersion"], env!("CARGO_PKG_VERSION"));
    assert_eq!(driver["informationUri"], env!("CARGO_PKG_REPOSITORY"));
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(rules.len(), mcp_drift::catalog::RuleId::ALL.len());
    let base = format!("{}/blob/main/", env!("CARGO_PKG_REPOSITORY"));
    for rule in rules {
        let uri = rule["helpUri"].as_str().unwrap();
        let tail = uri.strip_prefix(&base).unwrap_or_else(|| panic!("{uri} is not under {base}"));
        assert!(tail.starts_with("rules/"), "{uri}");
        assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join(tail).is_file(), "{uri}: no such file in this repository");
        assert_eq!(tail, format!("rules/{}.md", rule["id"].as_str().unwrap()));
    }
}

/// Two tools with errors, one of them with a warning too; three narrowed enums share one migration.
fn mixed() -> mcp_drift::Analysis {
    let tool = |name: &str, desc: &str, required: bool, modes: &[&str]| {
        let mut schema = serde_json::json!({"type": "object", "properties": {
            "r": {"type": "string"},
            "m1": {"type": "string", "enum": modes}, "m2": {"type": "string", "enum": modes},
        }});
        if required {
            schema["required"] = serde_json::json!(["r"]);
        }
        serde_json::json!({"name": name, "description": desc, "inputSchema": schema})
    };
    let old = serde_json::json!({"tools": [
        tool("alpha", "Lists open items.", false, &["a", "b"]),
        tool("beta", "Deploys.", false, &["a", "b"]),
    ]});
    let new = serde_json::json!({"tools": [
        tool("alpha", "Lists open items. Requires the `items:read` scope.", true, &["a"]),
        tool("beta", "Deploys.", true, &["a"]),
    ]});
    mcp_drift::diff_texts(&old.to_string(), &new.to_string()).unwrap()
}

#[test]
fn markdown_lists_errors_first_and_says_a_shared_migration_once() {
    let a = mixed();
    let md = report::markdown::render(&a);
    let lines: Vec<&str> = md.lines().collect();
    let last_error = lines.iter().rposition(|l| l.starts_with("- **error**")).unwrap();
    let first_warning = lines.iter().position(|l| l.starts_with("- **warning**")).unwrap();
    assert!(last_error < first_warning, "an error after a warning:\n{md}");
    assert!(md.contains("### Errors (6)") && md.contains("### Warnings ("), "{md}");
    let migration = "Keep accepting the removed values for a deprecation window";
    assert_eq!(md.matches(migration).count(), 1, "{md}");
    assert!(md.contains("  - Migration (**M1**, for 4 findings): Keep accepting"), "{md}");
    assert_eq!(md.matches("  - Migration: as **M1** above.").count(), 3, "{md}");
    insta::assert_snapshot!("mixed.markdown", md);
}

#[test]
fn markdown_links_locations_when_the_repository_is_known() {
    let a = mixed();
    let links = report::links::Links::from_env(|k| match k {
        "GITHUB_SERVER_URL" => Some("https://github.com".into()),
        "GITHUB_REPOSITORY" => Some("octo/tools".into()),
        "GITHUB_SHA" => Some("0123abc".into()),
        _ => None,
    });
    let md = report::markdown::render_with(&a, &links);
    let at = md.lines().find(|l| l.starts_with("  - At ")).unwrap();
    assert!(
        at.starts_with("  - At [`new.json:")
            && at.contains("](https://github.com/octo/tools/blob/0123abc/new.json#L")
            && at.contains("(before: [`old.json:"),
        "{at}"
    );
    // Without a repository, the same places, not linked.
    let plain = report::markdown::render(&a);
    assert!(!plain.contains("](http"), "{plain}");
    assert!(plain.lines().any(|l| l.starts_with("  - At `new.json:")), "{plain}");
}

#[test]
fn markdown_shows_the_word_diff_of_a_description_edit() {
    let md = report::markdown::render(&mixed());
    assert!(md.contains("  - Edit: Lists open items. <ins>Requires the \\`items:read\\` scope.</ins>"), "{md}");
}

#[test]
fn markdown_links_places_read_at_a_commit_to_that_commit() {
    let repo = moved_repo();
    let head = std::process::Command::new("git").current_dir(repo.path()).args(["rev-parse", "HEAD"]).output().unwrap();
    let head = String::from_utf8(head.stdout).unwrap().trim().to_owned();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-drift"))
        .current_dir(repo.path())
        .args(["diff", &format!("{head}:v1/tools.json"), "v2 snaps/tools.json", "--format", "markdown"])
        .env("GITHUB_SERVER_URL", "https://github.com")
        .env("GITHUB_REPOSITORY", "octo/tools")
        .env("GITHUB_SHA", "feedbeef")
        .env_remove("MCP_DRIFT_HEAD_SHA")
        .env_remove("MCP_DRIFT_BASE_SHA")
        .output()
        .unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    // The removed tool: the old file at the commit it was read at, shown by its repository path.
    assert!(
        md.contains(&format!(
            "  - At [`v1/tools.json:3`](https://github.com/octo/tools/blob/{head}/v1/tools.json#L3) (removed)"
        )),
        "{md}"
    );
    // The working tree's file: at the checked-out commit, percent-encoded.
    assert!(md.contains("](https://github.com/octo/tools/blob/feedbeef/v2%20snaps/tools.json#L2)"), "{md}");
    // `HEAD:` is not a commit id: without MCP_DRIFT_BASE_SHA that side is not linked.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-drift"))
        .current_dir(repo.path())
        .args(["diff", "HEAD:v1/tools.json", "v2 snaps/tools.json", "--format", "markdown"])
        .env("GITHUB_REPOSITORY", "octo/tools")
        .env("GITHUB_SHA", "feedbeef")
        .env_remove("MCP_DRIFT_BASE_SHA")
        .output()
        .unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("  - At `HEAD:v1/tools.json:3` (removed)"), "{md}");
}

#[test]
fn markdown_clean_runs_count_the_tools() {
    let same = analysis("seed-deploy-preview-region");
    let same = mcp_drift::diff(&same.old.label, &same.old.label).unwrap();
    assert!(report::markdown::render(&same).contains("\nNo contract changes across 1 tool.\n"));
    let lint =
        mcp_drift::lint(&["corpus/lint/clean/snapshot.json".to_owned()], mcp_drift::lint::Options::default()).unwrap();
    assert!(report::markdown::render(&lint).contains("\nNo lint findings across 3 tools.\n"));
}
