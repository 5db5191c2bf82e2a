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
        ("colour = true\n", "unknown key `colour`"),
        ("[severity]\ninput-required-addd = \"off\"\n", "did you mean `input-required-added`"),
        ("[[accept]]\nrule = \"input-required-added\"\ntool = \"x\"\nreason = \"\"\n", "non-empty `reason`"),
        ("[[accept]]\nfingerprint = \"abc\"\nreason = \"r\"\nexpires = \"tomorrow\"\n", "YYYY-MM-DD"),
        ("[[accept]]\nrule = \"input-required-added\"\n", "missing field `reason`"),
        (
            "[[accept]]\nfingerprint = \"abc\"\nreason = \"r\"\nevidence = \"C07EE760\"\n",
            "mcp-drift.toml:4:12: `evidence` must be 16 hex digits",
        ),
    ] {
        let dir = with_config(toml);
        let (code, _, err) = run(dir.path(), &["diff", OLD, NEW]);
        assert_eq!(code, 2, "{toml}: {err}");
        assert!(err.contains(want), "{toml}: {err}");
    }
}

/// `expires` is a TOML local date or a quoted one; a day that is not on the calendar, a date-time or a
/// time is refused at the value's position.
#[test]
fn expires_takes_toml_and_quoted_dates_that_exist() {
    let accept = |expires: &str| {
        format!(
            "[[accept]]\nrule = \"input-required-added\"\ntool = \"deploy_preview\"\nreason = \"rollout\"\nexpires = {expires}\n"
        )
    };
    for later in ["2999-01-31", "\"2999-01-31\""] {
        let dir = with_config(&accept(later));
        let (code, out, err) = run(dir.path(), &["diff", OLD, NEW, "--format", "json"]);
        assert_eq!(code, 0, "{later}: {err}");
        assert!(out.contains("\"suppressed\": 1"), "{later}: {out}");
    }
    let dir = with_config(&accept("2001-01-01"));
    let (code, out, _) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 1, "an expired TOML date returns the finding");
    assert!(out.contains("expired on 2001-01-01"), "{out}");
    for (bad, want) in [
        ("2027-02-30", "expected day between 01 and 28"),
        ("\"2027-02-30\"", "`2027-02-30` is not a date: 2027-02 has days 01 to 28"),
        ("\"2028-02-30\"", "2028-02 has days 01 to 29"),
        ("2027-13-01", "mcp-drift.toml:5:11: "),
        ("\"2027-13-01\"", "`2027-13-01` is not a date: there is no month 13"),
        ("2027-01-31T10:00:00Z", "not a date-time"),
        ("2027-01-31T10:00:00", "not a date-time"),
        ("10:00:00", "not a date-time or time"),
        ("20270131", "must be a date written YYYY-MM-DD, found integer 20270131"),
    ] {
        let dir = with_config(&accept(bad));
        let (code, _, err) = run(dir.path(), &["diff", OLD, NEW]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.starts_with("error: mcp-drift.toml:5:11: "), "{bad}: {err}");
        assert!(err.contains(want), "{bad}: {err}");
        assert_eq!(err.lines().count(), 1, "one problem, not an echo of it: {err}");
    }
}

/// Every problem of a configuration file at once, in file order, each at its own line and column.
#[test]
fn every_configuration_problem_is_reported_at_once() {
    let dir = with_config(concat!(
        "fail-on = \"sometimes\"\n",
        "colour = true\n",
        "include = \"snapshots/*.json\"\n",
        "exclude = [\"*_ff_*.snap\", 3]\n",
        "\n",
        "[severity]\n",
        "input-required-addd = \"off\"\n",
        "input-required-added = \"loud\"\n",
        "\n",
        "[[ignore]]\n",
        "tol = \"internal_*\"\n",
        "\n",
        "[[accept]]\n",
        "rule = \"input-required-added\"\n",
        "tool = \"deploy_preview\"\n",
        "expires = \"2027-02-30\"\n",
        "\n",
        "[[accept]]\n",
        "fingerprint = \"abc\"\n",
        "reason = \" \"\n",
        "severty = 1\n",
    ));
    let (code, out, err) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 2, "{out}{err}");
    let want = [
        "error: mcp-drift.toml:1:11: `fail-on` must be `error`, `warning`, `info` or `never`, found `sometimes`",
        "error: mcp-drift.toml:2:1: unknown key `colour`",
        "error: mcp-drift.toml:3:11: `include` must be an array of glob strings, found string `snapshots/*.json`",
        "error: mcp-drift.toml:4:27: `exclude` must hold glob strings, found integer 3",
        "error: mcp-drift.toml:7:1: unknown rule `input-required-addd`; did you mean `input-required-added`?",
        "error: mcp-drift.toml:8:24: the level of `input-required-added` must be `error`, `warning`, `info` or `off`, found `loud`",
        "error: mcp-drift.toml:11:1: unknown key `tol` in [[ignore]]; did you mean `tool`?",
        "error: mcp-drift.toml:13:1: an accepted change needs a `reason` (missing field `reason`)",
        "error: mcp-drift.toml:16:11: `2027-02-30` is not a date: 2027-02 has days 01 to 28",
        "error: mcp-drift.toml:20:10: an accepted change needs a non-empty `reason`",
        "error: mcp-drift.toml:21:1: unknown key `severty` in [[accept]]",
    ];
    assert_eq!(err.lines().collect::<Vec<_>>(), want, "{err}");
}

/// A misspelled top-level key names the key it is closest to.
#[test]
fn unknown_keys_suggest_the_nearest() {
    let dir = with_config("fail-on = \"error\"\n\n[severty]\ninput-required-added = \"warning\"\n");
    let (code, _, err) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 2);
    assert_eq!(err.trim_end(), "error: mcp-drift.toml:3:2: unknown key `severty`; did you mean `severity`?");
}

/// `include` and `exclude` are arrays of globs; the run accepts them (selection is the loader's).
#[test]
fn include_and_exclude_are_globs() {
    let dir = with_config("include = [\"**/*.json\"]\nexclude = [\"*_ff_*.snap\"]\n");
    let (code, out, err) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 1, "{out}{err}");
    let dir = with_config("include = [\"\"]\n");
    let (code, _, err) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 2);
    assert!(err.contains("mcp-drift.toml:1:12: `include` holds an empty glob"), "{err}");
}

/// A `baseline` the configuration names must exist, as `--baseline` must.
#[test]
fn a_configured_baseline_that_does_not_exist_is_an_error() {
    let dir = with_config("fail-on = \"error\"\nbaseline = \"mcp-drift-baseline.json\"\n");
    let (code, out, err) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.starts_with("error: mcp-drift.toml:2:12: the baseline `mcp-drift-baseline.json` does not exist"),
        "{err}"
    );
}

/// `baseline write` replaces the baseline the configuration names, so it need not exist yet; then it is
/// read.
#[test]
fn baseline_write_creates_the_baseline_the_configuration_names() {
    let dir = with_config("baseline = \"mcp-drift-baseline.json\"\n");
    let (code, _, err) = run(dir.path(), &["baseline", "write", OLD, NEW]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 findings suppressed"), "{out}");
    let dir = with_config("baseline = \"mcp-drift-baseline.json\"\ncolour = 1\n");
    let (code, _, err) = run(dir.path(), &["baseline", "write", OLD, NEW]);
    assert_eq!(code, 2, "the configuration is still checked: {err}");
}

/// Entries that match no finding of the run are notices, like ruff's unused `noqa`.
#[test]
fn entries_that_match_nothing_are_notices() {
    let dir = with_config(concat!(
        "[[ignore]]\n",
        "tool = \"internal_*\"\n",
        "reason = \"internal\"\n",
        "\n",
        "[[accept]]\n",
        "rule = \"input-required-added\"\n",
        "tool = \"search\"\n",
        "reason = \"gone\"\n",
        "\n",
        "[[accept]]\n",
        "rule = \"input-required-added\"\n",
        "tool = \"deploy_preview\"\n",
        "reason = \"rollout\"\n",
    ));
    let (code, out, err) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 0, "{err}");
    let notes: Vec<&str> = out.lines().filter(|l| l.starts_with("note: mcp-drift.toml")).collect();
    assert_eq!(
        notes,
        [
            "note: mcp-drift.toml:1: [[ignore]] for tool `internal_*` matched nothing; remove it",
            "note: mcp-drift.toml:5: [[accept]] for `input-required-added` on `search` matched nothing; remove it",
        ],
        "{out}"
    );
    let (_, json, _) = run(dir.path(), &["diff", OLD, NEW, "--format", "json"]);
    assert!(json.contains("[[accept]] for `input-required-added` on `search` matched nothing"), "{json}");

    // Baseline entries are counted in one notice.
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run(dir.path(), &["baseline", "write", OLD, NEW]).0, 0);
    let (code, out, _) = run(dir.path(), &["diff", OLD, OLD, "--baseline", "mcp-drift-baseline.json"]);
    assert_eq!(code, 0);
    assert!(out.contains("2 baseline entries matched nothing; `mcp-drift baseline write` rewrites it"), "{out}");
    let (_, out, _) = run(dir.path(), &["diff", OLD, NEW, "--baseline", "mcp-drift-baseline.json"]);
    assert!(!out.contains("matched nothing"), "{out}");
}

/// One tool, one string parameter `q` whose `minLength` changes between versions.
fn minlength_snapshot(dir: &Path, file: &str, text: &str) -> String {
    std::fs::write(dir.join(file), text).unwrap();
    file.to_owned()
}

const UNBOUNDED: &str =
    r#"{"tools": [{"name": "search", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}"#;
const AT_LEAST_1: &str = r#"{"tools": [{"name": "search", "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "minLength": 1}}}}]}"#;
/// The same contract as [`AT_LEAST_1`], reformatted: other key order, other whitespace.
const AT_LEAST_1_REFORMATTED: &str = "{\n  \"tools\": [\n    {\n      \"inputSchema\": {\n        \"properties\": {\n          \"q\": { \"minLength\": 1, \"type\": \"string\" }\n        },\n        \"type\": \"object\"\n      },\n      \"name\": \"search\"\n    }\n  ]\n}\n";
const AT_LEAST_5: &str = r#"{"tools": [{"name": "search", "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "minLength": 5}}}}]}"#;

/// A baseline entry accepts the change it recorded, and not a later, different one at the same pointer.
#[test]
fn baseline_entries_accept_only_the_change_they_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let v0 = minlength_snapshot(d, "v0.json", UNBOUNDED);
    let v1 = minlength_snapshot(d, "v1.json", AT_LEAST_1);
    let v1b = minlength_snapshot(d, "v1-reformatted.json", AT_LEAST_1_REFORMATTED);
    let v5 = minlength_snapshot(d, "v5.json", AT_LEAST_5);
    let (code, _, err) = run(d, &["baseline", "write", &v0, &v1]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(d.join("mcp-drift-baseline.json")).unwrap();
    let baseline: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(baseline["accepted"][0]["evidence"].as_str().is_some_and(|e| e.len() == 16), "{text}");

    let diff = |old: &str, new: &str| run(d, &["diff", old, new, "--baseline", "mcp-drift-baseline.json"]);
    // The same change again, and the same change reformatted, stay accepted.
    for new in [&v1, &v1b] {
        let (code, out, _) = diff(&v0, new);
        assert_eq!(code, 0, "{new}: {out}");
        assert!(out.contains("1 finding suppressed"), "{new}: {out}");
    }
    // A different change at the same pointer is reported again, and says why.
    for (old, new) in [(&v0, &v5), (&v1, &v5)] {
        let (code, out, _) = diff(old, new);
        assert_eq!(code, 1, "{old} -> {new}: {out}");
        assert!(out.contains("error[input-constraint-tightened]"), "{out}");
        assert!(out.contains("an accepted change at this place"), "{out}");
        assert!(!out.contains("matched nothing"), "the entry matched the place: {out}");
    }

    // A baseline written before evidence existed still matches by fingerprint, with one notice.
    let old_style = text.lines().filter(|l| !l.contains("\"evidence\"")).collect::<Vec<_>>().join("\n");
    std::fs::write(d.join("old-baseline.json"), old_style).unwrap();
    let (code, out, err) = run(d, &["diff", &v0, &v5, "--baseline", "old-baseline.json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 baseline entry records no `evidence`"), "{out}");
    assert!(out.contains("`mcp-drift baseline write` rewrites the baseline"), "{out}");
}

/// `[[accept]]` in the configuration may record evidence too (copied from a baseline).
#[test]
fn accept_entries_may_record_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let v0 = minlength_snapshot(d, "v0.json", UNBOUNDED);
    let v1 = minlength_snapshot(d, "v1.json", AT_LEAST_1);
    let v5 = minlength_snapshot(d, "v5.json", AT_LEAST_5);
    assert_eq!(run(d, &["baseline", "write", &v0, &v1]).0, 0);
    let text = std::fs::read_to_string(d.join("mcp-drift-baseline.json")).unwrap();
    let baseline: serde_json::Value = serde_json::from_str(&text).unwrap();
    let evidence = baseline["accepted"][0]["evidence"].as_str().unwrap().to_owned();
    std::fs::write(
        d.join("mcp-drift.toml"),
        format!(
            "[[accept]]\nrule = \"input-constraint-tightened\"\ntool = \"search\"\nevidence = \"{evidence}\"\nreason = \"reviewed\"\n"
        ),
    )
    .unwrap();
    assert_eq!(run(d, &["diff", &v0, &v1]).0, 0);
    let (code, out, _) = run(d, &["diff", &v0, &v5]);
    assert_eq!(code, 1, "{out}");
    assert!(!out.contains("records no `evidence`"), "{out}");
}

/// Each problem is one line on standard error, whatever its key holds: a line break in a key cannot
/// start a line of its own (a forged workflow command).
#[test]
fn each_problem_is_one_neutral_line() {
    let dir = with_config("\"a\\n::error::forged\" = 1\n\"b\\r\\n##[warning]x\" = 2\n");
    let (code, _, err) = run(dir.path(), &["diff", OLD, NEW]);
    assert_eq!(code, 2);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines.iter().all(|l| l.starts_with("error: mcp-drift.toml:")), "{err}");
    assert!(lines[0].starts_with("error: mcp-drift.toml:1:1: unknown key `a\\n::error::forged`"), "{err}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

    /// Any configuration text, however broken, loads or fails with positioned problems; never a panic,
    /// and every problem is on a line of the file.
    #[test]
    fn any_configuration_text_is_checked_without_panic(
        parts in proptest::collection::vec(proptest::sample::select(vec![
            "[[accept]]\n", "[[ignore]]\n", "[severity]\n", "[accept]\n", "rule = ", "tool = ", "reason = ",
            "expires = ", "fail-on = ", "include = ", "baseline = ", "\"input-required-added\"", "\"\"",
            "2027-02-30", "2027-01-31T00:00:00Z", "\"2027-13-01\"", "[\"a\", 1]", "{ x = 1 }", "1.5", "true",
            "\n", "é", "\u{202e}", "= =", "[[", "\"\\u0000\"", "'''", "#c\n",
        ]), 0..24),
    ) {
        let text: String = parts.concat();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp-drift.toml");
        std::fs::write(&path, &text).unwrap();
        if let Err(mcp_drift::Error::Config { problems, .. }) = mcp_drift::policy::Policy::load(Some(&path)) {
            let lines = text.split('\n').count();
            proptest::prop_assert!(!problems.is_empty());
            for p in problems {
                proptest::prop_assert!(p.line >= 1 && p.line <= lines && p.column >= 1, "{p:?} in {text:?}");
            }
        }
    }
}

/// The evidence is what changed, not the whole schema around it: an unrelated edit to the same schema
/// (another parameter added) keeps a removed parameter and an opened schema accepted.
#[test]
fn unrelated_edits_keep_accepted_changes_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let closed = minlength_snapshot(
        d,
        "closed.json",
        r#"{"tools": [{"name": "tag", "inputSchema": {"type": "object", "additionalProperties": false, "properties": {"id": {"type": "string"}, "labels": {"type": "array", "items": {"type": "string"}}}}}]}"#,
    );
    let removed = minlength_snapshot(
        d,
        "removed.json",
        r#"{"tools": [{"name": "tag", "inputSchema": {"type": "object", "additionalProperties": false, "properties": {"id": {"type": "string"}}}}]}"#,
    );
    let removed_and_added = minlength_snapshot(
        d,
        "removed-and-added.json",
        r#"{"tools": [{"name": "tag", "inputSchema": {"type": "object", "additionalProperties": false, "properties": {"id": {"type": "string"}, "note": {"type": "string"}}}}]}"#,
    );
    let opened = minlength_snapshot(
        d,
        "opened.json",
        r#"{"tools": [{"name": "tag", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}, "labels": {"type": "array", "items": {"type": "string"}}}}}]}"#,
    );
    let opened_and_added = minlength_snapshot(
        d,
        "opened-and-added.json",
        r#"{"tools": [{"name": "tag", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}, "labels": {"type": "array", "items": {"type": "string"}}, "note": {"type": "string"}}}}]}"#,
    );
    for (accepted, later, rule) in [
        (&removed, &removed_and_added, "input-property-removed"),
        (&opened, &opened_and_added, "input-additional-properties-opened"),
    ] {
        let (code, _, err) = run(d, &["baseline", "write", &closed, accepted, "--output", "b.json"]);
        assert_eq!(code, 0, "{err}");
        let (_, out, _) = run(d, &["diff", &closed, accepted, "--baseline", "b.json", "--format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(v["suppressed"].as_array().unwrap().iter().any(|s| s["rule"] == rule), "{out}");
        let (_, out, _) = run(d, &["diff", &closed, later, "--baseline", "b.json", "--format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let reported: Vec<&str> = v["findings"].as_array().unwrap().iter().filter_map(|f| f["rule"].as_str()).collect();
        assert!(!reported.contains(&rule), "{rule} stays accepted: {out}");
        assert!(v["suppressed"].as_array().unwrap().iter().any(|s| s["rule"] == rule), "{out}");
    }
}

/// An enum change is accepted by the values it removed and added: the same removal with the list
/// reordered stays accepted, another value removed is reported.
#[test]
fn enum_changes_are_accepted_by_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let snapshot = |file: &str, values: &str| {
        let text = format!(
            r#"{{"tools": [{{"name": "deploy", "inputSchema": {{"type": "object", "properties": {{"region": {{"type": "string", "enum": {values}}}}}}}}}]}}"#
        );
        minlength_snapshot(d, file, &text)
    };
    let abc = snapshot("abc.json", r#"["eu", "us", "ap"]"#);
    let without_us = snapshot("without-us.json", r#"["eu", "ap"]"#);
    let without_us_reordered = snapshot("without-us-reordered.json", r#"["ap", "eu"]"#);
    let without_ap = snapshot("without-ap.json", r#"["eu", "us"]"#);
    let (code, _, err) = run(d, &["baseline", "write", &abc, &without_us]);
    assert_eq!(code, 0, "{err}");
    let diff = |new: &str| run(d, &["diff", &abc, new, "--baseline", "mcp-drift-baseline.json"]);
    for accepted in [&without_us, &without_us_reordered] {
        let (code, out, _) = diff(accepted);
        assert_eq!(code, 0, "{accepted}: {out}");
    }
    let (code, out, _) = diff(&without_ap);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[input-enum-narrowed]") && out.contains("an accepted change at this place"), "{out}");
}
