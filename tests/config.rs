//! `mcp-drift.toml` and baselines: severity overrides (including `off`), ignores, accepted changes with
//! reasons and expiry, `baseline write`, and clear errors for bad configuration.

use assert_cmd::Command;
use std::path::Path;

const OLD: &str = "corpus/seed-deploy-preview-region/old.json";
const NEW: &str = "corpus/seed-deploy-preview-region/new.json";

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args: Vec<String> = args
        .iter()
        .map(|a| if a.starts_with("corpus/") { root.join(a).display().to_string() } else { (*a).to_owned() })
        .collect();
    let out = Command::cargo_bin("mcp-drift").unwrap().current_dir(dir).args(&args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn with_config(toml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mcp-drift.toml"), toml).unwrap();
    dir
}

#[test]
fn severity_override_and_off() {
    let dir = with_config("[severity]\ninput-required-added = \"warning\"\n");
    let (code, out, _) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("warning[input-required-added]"));
    let dir = with_config("fail-on = \"warning\"\n[severity]\ninput-required-added = \"warning\"\n");
    assert_eq!(run(dir.path(), &["diff", OLD, NEW]).0, 1, "fail-on from the config");
    let dir = with_config("[severity]\ninput-required-added = \"off\"\n");
    let (code, out, _) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 0);
    assert!(!out.contains("error[input-required-added]"), "{out}");
    // Off is not unseen: counted and named with its reason.
    assert!(out.contains("suppressed: input-required-added") && out.contains("is off in the configuration"), "{out}");
}

/// Findings left out by `[[ignore]]` or `off` are counted and named in every format, like accepted ones.
#[test]
fn ignored_and_off_findings_are_named_in_every_format() {
    for toml in [
        "[[ignore]]\ntool = \"deploy_*\"\nreason = \"internal tools\"\n",
        "[severity]\ninput-required-added = \"off\"\n",
    ] {
        let dir = with_config(toml);
        let (_, json, _) = run(dir.path(), &["diff", OLD, NEW, "--format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let suppressed = v["suppressed"].as_array().unwrap_or_else(|| panic!("{json}"));
        assert!(suppressed.iter().any(|s| s["rule"] == "input-required-added"), "{json}");
        for format in ["human", "github", "markdown", "junit", "sarif"] {
            let (code, out, err) = run(dir.path(), &["diff", OLD, NEW, "--format", format]);
            assert_eq!(code, 0, "{format}: {err}");
            assert!(out.contains("input-required-added"), "{toml} {format}: {out}");
        }
    }
}

/// An ignore's pointer is a prefix of whole pointer tokens: `/properties/reg` does not cover `region`.
#[test]
fn ignore_pointers_match_whole_tokens() {
    let dir = with_config(
        "[[ignore]]\ntool = \"deploy_preview\"\npointer = \"/inputSchema/properties/reg\"\nreason = \"x\"\n",
    );
    let (code, out, _) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[input-required-added]"), "{out}");
}

#[test]
fn ignores_by_tool_pointer_and_rule() {
    for ignore in ["tool = \"deploy_*\"", "tool = \"deploy_preview\"\npointer = \"/inputSchema/properties\""] {
        let dir = with_config(&format!("[[ignore]]\n{ignore}\nreason = \"internal\"\n"));
        let (code, out, _) = run(dir.path(), &["diff", OLD, NEW]);
        assert_eq!(code, 0, "{ignore}: {out}");
        assert!(
            !out.contains("error[") && out.contains("suppressed: ") && out.contains("(internal)"),
            "{ignore}: {out}"
        );
    }
    let dir = with_config("[[ignore]]\nrule = \"input-required-added\"\n");
    let (code, out, _) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 0);
    assert!(!out.contains("error[input-required-added]") && out.contains("warning[input-authority-expanded]"), "{out}");
    assert!(out.contains("suppressed: input-required-added"), "{out}");
    let dir = with_config("[[ignore]]\ntool = \"other\"\n");
    assert_eq!(run(dir.path(), &["diff", OLD, NEW]).0, 1);
}

#[test]
fn accepted_changes_are_suppressed_and_counted_until_they_expire() {
    let dir = with_config(
        "[[accept]]\nrule = \"input-required-added\"\ntool = \"deploy_preview\"\npointer = \"/inputSchema/properties/region\"\nreason = \"region rollout, all clients updated\"\nexpires = \"2999-01-01\"\n",
    );
    let (code, out, _) = run(dir.path(), &["diff", OLD, NEW, "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["suppressed"], 1);
    assert_eq!(v["suppressed"][0]["reason"], "region rollout, all clients updated");
    let (_, human, _) = run(dir.path(), &["diff", OLD, NEW]);
    assert!(human.contains("1 finding suppressed by configuration or baseline"), "{human}");

    let dir = with_config(
        "[[accept]]\nrule = \"input-required-added\"\ntool = \"deploy_preview\"\nreason = \"temporary\"\nexpires = \"2001-01-01\"\n",
    );
    let (code, out, _) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 1, "an expired acceptance returns the finding");
    assert!(out.contains("expired on 2001-01-01"), "{out}");
}

#[test]
fn baseline_write_then_diff_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(dir.path(), &["baseline", "write", OLD, NEW]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(dir.path().join("mcp-drift-baseline.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["version"], 1);
    let rules: Vec<&str> = v["accepted"].as_array().unwrap().iter().map(|a| a["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["input-authority-expanded", "input-required-added"]);
    let (code, out, _) =
        run(dir.path(), &["diff", OLD, NEW, "--baseline", "mcp-drift-baseline.json", "--format", "json"]);
    assert_eq!(code, 0);
    assert!(out.contains("\"suppressed\": 2"), "{out}");
    // Referenced from the config too.
    std::fs::write(dir.path().join("mcp-drift.toml"), "baseline = \"mcp-drift-baseline.json\"\n").unwrap();
    assert_eq!(run(dir.path(), &["diff", OLD, NEW]).0, 0);
}

#[test]
fn bad_configuration_is_exit_2_with_position() {
    for (toml, want) in [
        ("fail-on = \"sometimes\"\n", "mcp-drift.toml:1:"),
        ("colour = true\n", "unknown field `colour`"),
        ("[severity]\ninput-required-addd = \"off\"\n", "did you mean `input-required-added`"),
        ("[[accept]]\nrule = \"input-required-added\"\ntool = \"x\"\nreason = \"\"\n", "non-empty `reason`"),
        ("[[accept]]\nfingerprint = \"abc\"\nreason = \"r\"\nexpires = \"tomorrow\"\n", "YYYY-MM-DD"),
        ("[[accept]]\nrule = \"input-required-added\"\n", "missing field `reason`"),
    ] {
        let dir = with_config(toml);
        let (code, _, err) = run(dir.path(), &["diff", OLD, NEW]);
        assert_eq!(code, 2, "{toml}: {err}");
        assert!(err.contains(want), "{toml}: {err}");
    }
}
