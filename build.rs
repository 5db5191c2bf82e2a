//! Turns the rule documents in `rules/*.md` into the `RuleId` enum and its metadata table.
//!
//! The rule files are the single source of truth: adding a rule means adding one file there plus the
//! code that detects it. A malformed front matter fails the build with the file name and the reason, so
//! the binary can never ship a rule it cannot explain.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

const SEVERITIES: &[&str] = &["error", "warning", "info"];
const DIRECTIONS: &[&str] = &["input", "output", "tool", "snapshot", "replay"];
const REQUIRED: &[&str] = &["id", "severity", "direction", "summary", "message", "why", "migration"];
const SECTIONS: &[&str] = &["## What it detects", "## Why it breaks", "## Example", "## Migration"];

fn main() {
    let dir = Path::new(&env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("rules");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut entries: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("readable rules/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    entries.sort();

    let mut variants = String::new();
    let mut metas = String::new();
    for path in &entries {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (front, body) =
            split_front_matter(&text).unwrap_or_else(|| panic!("{}: missing +++ front matter", path.display()));
        let table: toml::Table = front.parse().unwrap_or_else(|e| panic!("{}: bad front matter: {e}", path.display()));
        for key in REQUIRED {
            assert!(
                table.get(*key).is_some_and(toml::Value::is_str),
                "{}: front matter needs a string `{key}`",
                path.display()
            );
        }
        for key in table.keys() {
            assert!(
                !(!REQUIRED.contains(&key.as_str()) && key != "mirror" && key != "mirror_reason"),
                "{}: unknown front matter key `{key}`",
                path.display()
            );
        }
        let get = |k: &str| table.get(k).and_then(toml::Value::as_str).map(str::to_owned);
        let id = get("id").unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy();
        assert_eq!(stem, id, "{}: id must equal the file name", path.display());
        let severity = get("severity").unwrap();
        assert!(SEVERITIES.contains(&severity.as_str()), "{}: bad severity {severity}", path.display());
        let direction = get("direction").unwrap();
        assert!(DIRECTIONS.contains(&direction.as_str()), "{}: bad direction {direction}", path.display());
        for section in SECTIONS {
            assert!(body.contains(section), "{}: missing section `{section}`", path.display());
        }
        let variant = camel(&id);
        writeln!(variants, "    {variant},").unwrap();
        let opt = |k: &str| match get(k) {
            Some(s) => format!("Some({s:?})"),
            None => "None".to_owned(),
        };
        writeln!(
            metas,
            "    RuleMeta {{ id: {id:?}, name: {variant:?}, severity: Severity::{sev}, direction: RuleDirection::{dir}, summary: {summary:?}, message: {message:?}, why: {why:?}, migration: {migration:?}, mirror: {mirror}, mirror_reason: {reason}, doc: {doc:?} }},",
            sev = camel(&severity),
            dir = camel(&direction),
            summary = get("summary").unwrap(),
            message = get("message").unwrap(),
            why = get("why").unwrap(),
            migration = get("migration").unwrap(),
            mirror = opt("mirror"),
            reason = opt("mirror_reason"),
            doc = body.trim_start(),
        )
        .unwrap();
    }
    let mut all = String::new();
    for p in &entries {
        write!(all, "RuleId::{}, ", camel(&p.file_stem().unwrap().to_string_lossy())).unwrap();
    }
    let out = format!(
        "/// Every rule mcp-drift can report; generated from `rules/*.md` by `build.rs`.\n\
         #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]\n\
         pub enum RuleId {{\n{variants}}}\n\n\
         impl RuleId {{\n    /// All rules, in file-name order.\n    pub const ALL: &'static [RuleId] = &[{all}];\n}}\n\n\
         static META: &[RuleMeta] = &[\n{metas}];\n"
    );
    let dest = Path::new(&env::var("OUT_DIR").unwrap()).join("rules.rs");
    fs::write(dest, out).expect("write generated rules.rs");
}

fn split_front_matter(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("+++\n")?;
    let end = rest.find("\n+++\n")?;
    Some((&rest[..end], &rest[end + 5..]))
}

fn camel(id: &str) -> String {
    id.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect()
}
