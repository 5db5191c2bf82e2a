//! Runs every case in `corpus/` against the whole rule set and compares the human and JSON reports
//! with the golden files beside the inputs (`corpus/<case>/human.snap`, `json.snap`; review changes
//! with `cargo insta review`, or accept them with `INSTA_UPDATE=always cargo test`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mcp_drift::catalog::{RuleId, Severity};

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.ends_with("lint"))
        .collect();
    out.sort();
    assert!(out.len() >= 50, "corpus has only {} cases", out.len());
    out
}

/// `corpus/lint/<case>/snapshot.json`, linted with the protocol named in `protocol` when it exists.
fn lint_cases() -> Vec<(String, mcp_drift::Analysis)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/lint");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    dirs.iter()
        .map(|case| {
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            let protocol = std::fs::read_to_string(case.join("protocol")).ok().map(|p| p.trim().parse().unwrap());
            let path = format!("corpus/lint/{name}/snapshot.json");
            let analysis = mcp_drift::lint(&[path], mcp_drift::lint::Options { protocol })
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, analysis)
        })
        .collect()
}

#[test]
fn lint_corpus_matches_golden_output() {
    in_root(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/lint");
        for (name, analysis) in lint_cases() {
            let mut settings = insta::Settings::clone_current();
            settings.set_snapshot_path(root.join(&name));
            settings.set_prepend_module_to_snapshot(false);
            settings.set_omit_expression(true);
            settings.set_input_file(root.join(&name).join("snapshot.json"));
            settings.bind(|| {
                insta::assert_snapshot!("human", mcp_drift::report::human::render(&analysis, false));
                insta::assert_snapshot!("json", mcp_drift::report::json::render(&analysis));
            });
            if name.starts_with("clean") || name.ends_with("-valid") {
                assert!(analysis.findings.is_empty(), "{name} must print nothing: {:#?}", analysis.findings);
            } else if let Some(rule) = RuleId::ALL.iter().find(|r| {
                let id = r.as_str().trim_start_matches("lint-");
                name == id || name.starts_with(&format!("{id}-"))
            }) {
                assert!(analysis.findings.iter().any(|f| f.rule == *rule), "{name}: {:#?}", analysis.findings);
            }
        }
    });
}

/// `old.json` or `old/`, relative to the crate root so reports show stable paths.
fn side(case: &Path, name: &str) -> String {
    let rel = case.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
    let file = rel.join(format!("{name}.json"));
    let path = if Path::new(env!("CARGO_MANIFEST_DIR")).join(&file).exists() { file } else { rel.join(name) };
    path.to_string_lossy().into_owned()
}

fn in_root<T>(f: impl FnOnce() -> T) -> T {
    // Integration tests run in the crate root already; make that explicit for the relative paths.
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    f()
}

#[test]
fn corpus_matches_golden_output() {
    in_root(|| {
        for case in cases() {
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            let analysis =
                mcp_drift::diff(&side(&case, "old"), &side(&case, "new")).unwrap_or_else(|e| panic!("{name}: {e}"));
            let mut settings = insta::Settings::clone_current();
            settings.set_snapshot_path(&case);
            settings.set_prepend_module_to_snapshot(false);
            settings.set_omit_expression(true);
            settings.set_input_file(case.join("new.json"));
            settings.bind(|| {
                insta::assert_snapshot!("human", mcp_drift::report::human::render(&analysis, false));
                insta::assert_snapshot!("json", mcp_drift::report::json::render(&analysis));
            });
        }
    });
}

#[test]
fn every_rule_fires_in_some_corpus_case() {
    in_root(|| {
        let mut fired = BTreeSet::new();
        for case in cases() {
            let analysis = mcp_drift::diff(&side(&case, "old"), &side(&case, "new")).unwrap();
            fired.extend(analysis.findings.iter().map(|f| f.rule));
        }
        for (_, analysis) in lint_cases() {
            fired.extend(analysis.findings.iter().map(|f| f.rule));
        }
        // Replay rules fire on recorded calls, in tests/replay-cases (tests/replay.rs checks them).
        let missing: Vec<&str> = RuleId::ALL
            .iter()
            .filter(|r| r.meta().direction != mcp_drift::catalog::RuleDirection::Replay && !fired.contains(r))
            .map(|r| r.as_str())
            .collect();
        assert!(missing.is_empty(), "no corpus case fires: {missing:?}");
    });
}

#[test]
fn every_snapshot_compared_with_itself_is_silent() {
    in_root(|| {
        for case in cases() {
            for name in ["old", "new"] {
                let path = side(&case, name);
                let analysis = mcp_drift::diff(&path, &path).unwrap();
                assert!(analysis.findings.is_empty(), "{path}: {:?}", analysis.findings);
            }
        }
    });
}

/// Cases named `identical`, `reordered-*`, `*-spelled-out`, `equivalent-*` must print nothing at all;
/// `*-reworded-only` may print infos but nothing louder.
#[test]
fn silent_cases_are_silent() {
    in_root(|| {
        for case in cases() {
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            let analysis = mcp_drift::diff(&side(&case, "old"), &side(&case, "new")).unwrap();
            if name == "identical"
                || name.starts_with("reordered-")
                || name.ends_with("-spelled-out")
                || name.starts_with("equivalent-")
            {
                assert!(analysis.findings.is_empty(), "{name}: {:#?}", analysis.findings);
            }
            if name.ends_with("-reworded-only") {
                assert!(
                    analysis.findings.iter().all(|f| f.severity == Severity::Info),
                    "{name}: {:#?}",
                    analysis.findings
                );
            }
        }
    });
}

/// Every case named after a rule fires that rule, at its default severity unless the rule documents a
/// different one for the case.
#[test]
fn cases_named_after_rules_fire_them() {
    in_root(|| {
        for case in cases() {
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            let Some(rule) =
                RuleId::ALL.iter().find(|r| name == r.as_str() || name.starts_with(&format!("{}-", r.as_str())))
            else {
                continue;
            };
            let analysis = mcp_drift::diff(&side(&case, "old"), &side(&case, "new")).unwrap();
            assert!(analysis.findings.iter().any(|f| f.rule == *rule), "{name}: {:#?}", analysis.findings);
        }
    });
}

/// Sound or say so: every schema `error` in the corpus carries a witness confirmed by the validator.
#[test]
fn every_schema_error_has_a_confirmed_witness() {
    use mcp_drift::catalog::RuleDirection;
    in_root(|| {
        for case in cases() {
            let analysis = mcp_drift::diff(&side(&case, "old"), &side(&case, "new")).unwrap();
            for f in &analysis.findings {
                let schema_rule = matches!(f.rule.meta().direction, RuleDirection::Input | RuleDirection::Output);
                if schema_rule && f.severity == Severity::Error {
                    assert!(f.witness.is_some(), "{}: {} at {} has no witness", case.display(), f.rule, f.pointer);
                }
            }
        }
    });
}
