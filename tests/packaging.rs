//! The packaging files agree with Cargo.toml and with each other, so a release bumps one version:
//! pyproject.toml takes its version from Cargo.toml, every npm package and pin is Cargo.toml's version,
//! the launcher knows exactly the platform packages that exist, the action installs this version, and
//! every action a workflow or the action uses is pinned by commit. (tests/packaging/run.sh builds and
//! installs the packages; this file only reads them.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: impl AsRef<Path>) -> String {
    let path = root().join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json(path: impl AsRef<Path>) -> serde_json::Value {
    serde_json::from_str(&read(path)).unwrap()
}

/// The platform templates under npm/: directory name (`linux-x64`) -> package.json.
fn templates() -> BTreeMap<String, serde_json::Value> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(root().join("npm")).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if entry.file_type().unwrap().is_dir() && name != "mcp-drift" {
            out.insert(name.clone(), json(format!("npm/{name}/package.json")));
        }
    }
    out
}

#[test]
fn pyproject_takes_name_version_and_summary_from_cargo_toml() {
    let py: toml::Table = read("pyproject.toml").parse().unwrap();
    let project = py["project"].as_table().unwrap();
    assert_eq!(project["name"].as_str(), Some(env!("CARGO_PKG_NAME")));
    assert!(project.get("version").is_none(), "the version is Cargo.toml's, not written twice");
    assert!(project["dynamic"].as_array().unwrap().iter().any(|v| v.as_str() == Some("version")));
    assert_eq!(project["description"].as_str(), Some(env!("CARGO_PKG_DESCRIPTION")));
    assert_eq!(project["license"].as_str(), Some(env!("CARGO_PKG_LICENSE")));
    assert_eq!(project["readme"].as_str(), Some("README.md"));
    assert_eq!(py["tool"]["maturin"]["bindings"].as_str(), Some("bin"));
}

#[test]
fn npm_packages_and_pins_are_cargo_toml_s_version() {
    let main = json("npm/mcp-drift/package.json");
    assert_eq!(main["version"], VERSION, "npm/mcp-drift/package.json");
    assert_eq!(main["description"], env!("CARGO_PKG_DESCRIPTION"));
    assert_eq!(main["bin"]["mcp-drift"], "bin/mcp-drift.js");
    let templates = templates();
    assert!(templates.contains_key("linux-x64"), "{:?}", templates.keys());
    let deps = main["optionalDependencies"].as_object().unwrap();
    let want: BTreeMap<String, serde_json::Value> =
        templates.keys().map(|k| (format!("@mcp-drift/cli-{k}"), VERSION.into())).collect();
    let got: BTreeMap<String, serde_json::Value> = deps.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(got, want, "optionalDependencies: every template, exactly, at this version");
    for (key, pkg) in &templates {
        let (os, cpu) = key.split_once('-').unwrap();
        assert_eq!(pkg["name"], format!("@mcp-drift/cli-{key}"), "npm/{key}");
        assert_eq!(pkg["version"], VERSION, "npm/{key}");
        assert_eq!(pkg["os"], serde_json::json!([os]), "npm/{key}");
        assert_eq!(pkg["cpu"], serde_json::json!([cpu]), "npm/{key}");
        let exe = if os == "win32" { "mcp-drift.exe" } else { "mcp-drift" };
        assert_eq!(pkg["files"], serde_json::json!([exe]), "npm/{key}");
        // A glibc binary must not be installed on musl (Alpine); the launcher then says so.
        if os == "linux" {
            assert_eq!(pkg["libc"], serde_json::json!(["glibc"]), "npm/{key}");
        }
    }
}

#[test]
fn the_launcher_knows_exactly_the_platform_packages() {
    let launcher = read("npm/mcp-drift/bin/mcp-drift.js");
    let table = &launcher[launcher.find("const PACKAGES = {").unwrap()..];
    let table = &table[..table.find("};").unwrap()];
    let entries: Vec<&str> = table.lines().skip(1).map(str::trim).filter(|l| !l.is_empty()).collect();
    let want: Vec<String> = templates().keys().map(|k| format!("\"{k}\": \"@mcp-drift/cli-{k}\",")).collect();
    assert_eq!(entries, want);
}

#[test]
fn the_action_installs_this_version() {
    let action = read("action.yml");
    let pins: Vec<&str> = action.lines().filter_map(|l| l.trim().strip_prefix("MCP_DRIFT_VERSION: ")).collect();
    assert_eq!(pins, [VERSION], "action.yml pins the release it installs: Cargo.toml's version");
}

#[test]
fn ci_and_the_release_pin_one_maturin() {
    let requirements = read("tests/packaging/requirements.txt");
    let pinned: Vec<&str> = requirements.lines().filter_map(|l| l.strip_prefix("maturin==")).collect();
    assert_eq!(pinned.len(), 1, "{requirements}");
    let release = read(".github/workflows/release.yml");
    let versions: Vec<&str> = release.lines().filter_map(|l| l.trim().strip_prefix("maturin-version: ")).collect();
    assert!(!versions.is_empty(), "the release workflow pins maturin-version");
    for v in versions {
        assert_eq!(v.trim_matches('"').trim_start_matches('v'), pinned[0], "release.yml and requirements.txt");
    }
}

/// Every `uses:` names a full commit (`owner/repo@<40 hex> # vX.Y.Z`), so a moved tag cannot change
/// what runs with the release's or the pull request's token.
#[test]
fn actions_are_pinned_by_commit() {
    for file in ["action.yml", ".github/workflows/release.yml"] {
        let text = read(file);
        let uses: Vec<&str> =
            text.lines().filter_map(|l| l.trim().trim_start_matches("- ").strip_prefix("uses: ")).collect();
        assert!(!uses.is_empty(), "{file}");
        for u in uses {
            let (_, rest) = u.split_once('@').unwrap_or_else(|| panic!("{file}: `{u}` has no ref"));
            let (sha, comment) = rest.split_once(" # v").unwrap_or_else(|| panic!("{file}: `{u}` names no version"));
            assert!(sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()), "{file}: `{u}` is not a commit");
            assert!(comment.starts_with(|c: char| c.is_ascii_digit()), "{file}: `{u}`");
        }
    }
}

/// README "Install" (issue #34): what works on a fresh machine comes first (`cargo install --locked
/// --path .` from a clone); the pip/uvx and npx lines follow, in a block that is not run, under a
/// heading that says they exist only from the first published release; the quick start uses the
/// installed binary, never `cargo run`.
#[test]
fn readme_install_leads_with_what_works_today() {
    let readme = read("README.md");
    let section = &readme[readme.find("\n## Install\n").unwrap()..];
    let section = &section[..=section[1..].find("\n## ").unwrap()];
    let first = &section[section.find("```sh\n").unwrap() + 6..];
    let first = &first[..first.find("```").unwrap()];
    assert!(first.lines().any(|l| l == "cargo install --locked --path ."), "{first}");
    let marked = section.find("available only from the first published release").expect("the pip/npx lines are marked");
    let text = &section[section.find("```text\n").unwrap() + 8..];
    let text = &text[..text.find("```").unwrap()];
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("pip install mcp-drift ") && lines[0].contains("uvx mcp-drift"), "{text}");
    assert!(lines[1].starts_with("npx mcp-drift "), "{text}");
    assert!(marked < section.find("```text\n").unwrap(), "the mark comes before the pip/npx lines");
    assert!(section.contains("--require-hashes"), "the name check the action does is shown");
    assert!(!readme.contains("cargo run"), "the quick start runs the installed binary");
}
