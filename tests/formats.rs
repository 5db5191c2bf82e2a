//! Every output format, produced from the same findings: golden files for representative cases, and
//! the SARIF output validated against the official SARIF 2.1.0 schema (from `../shared/schemas/`).

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
