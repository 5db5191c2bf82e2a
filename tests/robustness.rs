//! Adversarial inputs: each gives the right answer, or exit 2 with a clear message, and never a panic,
//! a hang or a stack overflow.

use assert_cmd::Command;
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt as _;

fn tool(name: &str, input: &Value) -> Value {
    json!({"name": name, "inputSchema": input})
}

fn diff(old: &Value, new: &Value) -> Vec<String> {
    let a = mcp_drift::diff_texts(&old.to_string(), &new.to_string()).unwrap();
    a.findings.iter().map(|f| f.rule.as_str().to_owned()).collect()
}

fn cli_on(content: &[u8]) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("snap.json");
    std::fs::write(&path, content).unwrap();
    let old = dir.path().join("old.json");
    std::fs::write(&old, br#"{"tools": []}"#).unwrap();
    let out = Command::cargo_bin("mcp-drift")
        .unwrap()
        .args(["diff", old.to_str().unwrap(), path.to_str().unwrap(), "--fail-on", "info"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    (out.status.code().unwrap_or(-1), err)
}

#[test]
fn hundred_thousand_deep_nesting_is_a_clean_error() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let (code, err) = cli_on(deep.as_bytes());
    assert_eq!(code, 2);
    assert!(err.contains("recursion limit"), "{err}");
}

#[test]
fn self_and_mutually_recursive_refs_terminate() {
    let selfref =
        |extra: Value| tool("t", &json!({"type": "object", "properties": {"node": {"$ref": "#"}, "v": extra}}));
    assert_eq!(diff(&selfref(json!({"type": "string"})), &selfref(json!({"type": "string"}))), Vec::<String>::new());
    assert!(
        diff(&selfref(json!({"type": ["string", "null"]})), &selfref(json!({"type": "string"})))
            .contains(&"input-type-narrowed".to_owned())
    );
    let mutual = |min: i64| {
        tool(
            "t",
            &json!({"$defs": {
            "a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}}},
            "b": {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}, "n": {"type": "integer", "minimum": min}}}
        }, "type": "object", "properties": {"root": {"$ref": "#/$defs/a"}}}),
        )
    };
    assert_eq!(diff(&mutual(0), &mutual(0)), Vec::<String>::new());
    assert!(diff(&mutual(0), &mutual(1)).contains(&"input-constraint-tightened".to_owned()));
    // A reference to itself and nothing else.
    let loop_ref = tool(
        "t",
        &json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"$ref": "#/$defs/x"}}}),
    );
    let loop_ref2 = tool(
        "t",
        &json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"$ref": "#/$defs/x"}}, "required": []}),
    );
    let _ = diff(&loop_ref, &loop_ref2);
}

#[test]
fn ten_thousand_hop_ref_chain_is_undecided_not_a_crash() {
    let chain = |last: &str| {
        let mut defs = serde_json::Map::new();
        for i in 0..10_000 {
            defs.insert(format!("d{i}"), json!({"$ref": format!("#/$defs/d{}", i + 1)}));
        }
        defs.insert("d10000".into(), json!({"type": last}));
        tool("t", &json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs}))
    };
    let rules = diff(&chain("string"), &chain("integer"));
    assert!(rules.contains(&"input-cannot-decide".to_owned()), "{rules:?}");
}

#[test]
fn a_million_value_enum_is_linear() {
    let values: Vec<String> = (0..1_000_000).map(|i| format!("v{i}")).collect();
    let old = tool("t", &json!({"type": "object", "properties": {"e": {"enum": values}}}));
    let new = tool("t", &json!({"type": "object", "properties": {"e": {"enum": values[1..]}}}));
    assert_eq!(diff(&old, &new), vec!["input-enum-narrowed"]);
}

/// A value removed from the middle of a long enum: the containment proof looks each value of one list
/// up in the other (it used to scan the whole list for each: 57 s at half this length in a debug build).
#[test]
fn a_value_removed_from_the_middle_of_a_long_enum_is_found_in_linear_time() {
    let values: Vec<String> = (0..200_000).map(|i| format!("v{i}")).collect();
    let mut fewer = values.clone();
    fewer.remove(100_000);
    let old = tool("t", &json!({"type": "object", "properties": {"e": {"enum": values}}}));
    let new = tool("t", &json!({"type": "object", "properties": {"e": {"enum": fewer}}}));
    let found = bounded_diff(&old, &new, 60);
    let rules: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(rules, ["input-enum-narrowed"], "{found:?}");
}

#[test]
fn a_long_enum_moved_or_reordered_is_compared_by_value() {
    let values: Vec<Value> = (0..5_000).map(|i| json!(format!("v{i}"))).collect();
    let with = |v: Vec<Value>| tool("t", &json!({"type": "object", "properties": {"e": {"enum": v}}}));
    // A value moved from the front to the back: same set, nothing to report.
    let mut rotated = values.clone();
    rotated.rotate_left(1);
    assert!(diff(&with(values.clone()), &with(rotated)).is_empty());
    // Reversed with one value gone and one new: a narrowing naming exactly that value.
    let mut reversed: Vec<Value> = values.iter().rev().filter(|v| **v != json!("v1234")).cloned().collect();
    reversed.push(json!(7));
    let a = mcp_drift::diff_texts(&with(values.clone()).to_string(), &with(reversed).to_string()).unwrap();
    let messages: Vec<&str> = a.findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(messages, ["allowed values of `e` narrowed: removed \"v1234\"; added 7"]);
    // Numbers compare by value: 3 and 3.0 are the same enum member.
    let numbers: Vec<Value> = (0..1_000).map(|i| json!(i)).collect();
    let mut as_floats = numbers.clone();
    as_floats[500] = json!(500.0);
    assert!(diff(&with(numbers.clone()), &with(as_floats)).is_empty());
}

#[test]
fn a_hundred_thousand_tools() {
    let tools: Vec<Value> = (0..100_000).map(|i| tool(&format!("tool_{i}"), &json!({"type": "object"}))).collect();
    let mut changed = tools.clone();
    changed[500]["inputSchema"]["required"] = json!(["x"]);
    let rules = diff(&json!({"tools": tools}), &json!({"tools": changed}));
    assert_eq!(rules, vec!["input-required-added"]);
}

#[test]
fn a_megabyte_description() {
    let big: String = (0..200_000).map(|i| ["w", &(i % 977).to_string(), " "].concat()).collect();
    let mut edited = big.clone();
    edited.push_str("Must not be used on main.");
    let rules = diff(
        &json!({"name": "t", "description": big, "inputSchema": {}}),
        &json!({"name": "t", "description": edited, "inputSchema": {}}),
    );
    assert_eq!(rules, vec!["description-meaning-changed"]);
}

#[test]
fn odd_bytes_and_numbers() {
    let t = br#"{"name": "t", "inputSchema": {}}"#;
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend_from_slice(t);
    assert_eq!(cli_on(&bom).0, 1, "a BOM is skipped and the new tool is found");
    let (code, err) = cli_on(b"{\"name\": \"t\", \"inputSchema\": {\"maximum\": NaN}}");
    assert_eq!(code, 2, "{err}");
    let huge = format!("{{\"name\": \"t\", \"inputSchema\": {{\"maximum\": 1{}}}}}", "0".repeat(400));
    let (code, err) = cli_on(huge.as_bytes());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("snap.json:1:"), "{err}");
    let (code, err) = cli_on(b"\xff\xfe{}");
    assert_eq!(code, 2);
    assert!(err.contains("not valid UTF-8"), "{err}");
    let (code, err) = cli_on(br#"{"name": "t", "name": "u", "inputSchema": {}}"#);
    assert_eq!(code, 2);
    assert!(err.contains("duplicate key `name`") && err.contains("snap.json:1:15"), "{err}");
    let (code, _) = cli_on(b"   \n");
    assert_eq!(code, 2);
    // Odd Unicode is data, not a problem: names and descriptions may hold any character.
    let odd = json!({"name": "t\u{202e}x", "description": "a\u{200b}b \u{1F600}", "inputSchema": {}});
    assert_eq!(cli_on(odd.to_string().as_bytes()).0, 1);
}

/// `diff DIR DIR`: the exit code and standard error.
fn diff_dir(dir: &std::path::Path) -> (Option<i32>, String) {
    let out = Command::cargo_bin("mcp-drift")
        .unwrap()
        .args(["diff", dir.to_str().unwrap(), dir.to_str().unwrap()])
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn directories_with_broken_links_and_loops() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.json"), br#"{"name": "a", "inputSchema": {}}"#).unwrap();
    std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).unwrap();
    let (code, err) = diff_dir(dir.path());
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("symbolic link loop"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(dir.path().join("missing.json"), dir.path().join("gone.json")).unwrap();
    let (code, err) = diff_dir(dir.path());
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("gone.json"), "{err}");

    // A file without read permission (only checkable when not running as root, who reads it anyway).
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked.json");
    std::fs::write(&locked, br#"{"name": "a", "inputSchema": {}}"#).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&locked).is_ok() {
        eprintln!("running as root: permission denial cannot be tested");
        return;
    }
    let (code, err) = diff_dir(dir.path());
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("locked.json") && err.contains("ermission denied"), "{err}");
}

fn lint(snapshot: &Value) -> Vec<String> {
    let options = mcp_drift::lint::Options { protocol: Some(mcp_drift::lint::Protocol::V2025_06_18) };
    let a = mcp_drift::lint_text(&snapshot.to_string(), options).unwrap();
    a.findings.iter().map(|f| f.rule.as_str().to_owned()).collect()
}

#[test]
fn lint_survives_adversarial_schemas() {
    // Self, mutual and 10,000-hop references: each is followed once, never recursively.
    let selfref = tool("t", &json!({"type": "object", "properties": {"node": {"$ref": "#"}}}));
    assert!(!lint(&selfref).iter().any(|r| r.starts_with("lint-ref")));
    let loop_ref = tool(
        "t",
        &json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"$ref": "#/$defs/x"}}}),
    );
    let _ = lint(&loop_ref);
    let mut defs = serde_json::Map::new();
    for i in 0..10_000 {
        defs.insert(format!("d{i}"), json!({"$ref": format!("#/$defs/d{}", i + 1)}));
    }
    let chain = tool("t", &json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs}));
    assert_eq!(lint(&chain).iter().filter(|r| *r == "lint-ref-unresolved").count(), 1, "only d9999 -> d10000 dangles");
    // A million-value enum with a default outside it: linear, one finding.
    let values: Vec<String> = (0..1_000_000).map(|i| format!("v{i}")).collect();
    let big = tool("t", &json!({"type": "object", "properties": {"e": {"enum": values, "default": "nope"}}}));
    assert!(lint(&big).contains(&"lint-enum-default-mismatch".to_owned()));
    // Nesting at the loader's limit, every level with a `required` that nothing declares.
    let mut schema = json!({"type": "object"});
    for _ in 0..60 {
        schema = json!({"type": "object", "properties": {"n": schema}, "required": ["n", "ghost"]});
    }
    let deep = lint(&tool("t", &schema));
    assert_eq!(deep.iter().filter(|r| *r == "lint-required-undeclared").count(), 60);
    // Odd Unicode everywhere: names, keys, descriptions.
    let odd = json!({"name": "\u{202e}evil\u{0}", "description": "\u{1b}[31mred\u{e0041}",
        "inputSchema": {"type": "object", "properties": {"a\u{200b}b": {"type": "string", "description": "\r"}}}});
    let rules = lint(&odd);
    assert!(rules.iter().filter(|r| *r == "lint-hidden-text").count() >= 3, "{rules:?}");
    assert!(rules.contains(&"lint-tool-name".to_owned()));
    // Invalid regular expressions are findings, not crashes.
    let regex = tool(
        "t",
        &json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "(?<x"}},
        "patternProperties": {"[": {}}}),
    );
    assert_eq!(lint(&regex).iter().filter(|r| *r == "lint-schema-invalid").count(), 2, "{:?}", lint(&regex));
}

#[test]
fn many_findings_on_one_minified_line_are_linear() {
    // 20,000 repeats of one tool on a single 1 MB line: each finding's column is found without
    // counting the line from its start (that was quadratic: 20,000 x 1 MB).
    let tools: Vec<Value> =
        (0..20_000).map(|_| tool("a", &json!({"type": "object", "additionalProperties": false}))).collect();
    let text = json!({"tools": tools}).to_string();
    let a = mcp_drift::lint_text(&text, mcp_drift::lint::Options::default()).unwrap();
    let dups: Vec<_> = a.findings.iter().filter(|f| f.rule.as_str() == "lint-duplicate-tool").collect();
    assert_eq!(dups.len(), 19_999);
    let last = dups.iter().filter_map(|f| f.new.as_ref()).map(|l| (l.line, l.column)).max().unwrap();
    assert_eq!(last.0, 1);
    assert_eq!(last.1, text.rfind("{\"inputSchema\"").unwrap() + 1, "columns count characters (all ASCII here)");
}

#[test]
fn twenty_thousand_findings_in_one_tool_are_linear() {
    // Each finding is located through a pointer index of the tool built once, not by a scan of the
    // tool's text per finding (that was 69 s here in a release build).
    let schema = |t: &str| {
        let props: serde_json::Map<String, Value> =
            (0..20_000).map(|i| (format!("p{i}"), json!({"type": t, "description": "A parameter."}))).collect();
        tool("t", &json!({"type": "object", "properties": props}))
    };
    let (old, new) = (
        serde_json::to_string_pretty(&schema("string")).unwrap(),
        serde_json::to_string_pretty(&schema("integer")).unwrap(),
    );
    let a = mcp_drift::diff_texts(&old, &new).unwrap();
    assert_eq!(a.findings.len(), 20_000);
    let f = a.findings.iter().find(|f| f.pointer == "/inputSchema/properties/p19999/type").unwrap();
    let at = f.new.as_ref().unwrap();
    assert_eq!(&new[at.range.clone()], "\"type\"");
}

#[test]
fn thousands_of_renamed_properties_are_paired_without_scoring_every_pair() {
    // 2,000 parameters out and 2,000 in: 4 million pairs would be scored one by one; beyond a budget
    // only pairs that share evidence are (here: the same normalized name).
    let schema = |name: fn(usize) -> String| {
        let props: serde_json::Map<String, Value> = (0..2_000)
            .map(|i| (name(i), json!({"type": "string", "description": format!("Filter number {i}.")})))
            .collect();
        tool("t", &json!({"type": "object", "properties": props}))
    };
    let old = schema(|i| format!("issueFilter{i}"));
    let new = schema(|i| format!("issue_filter_{i}"));
    let rules = diff(&old, &new);
    assert_eq!(rules.len(), 2_000);
    assert!(rules.iter().all(|r| r == "input-property-renamed"), "{:?}", &rules[..3]);
}

#[test]
fn thousands_of_replaced_tools_are_paired_without_scoring_every_pair() {
    // 1,500 tools out and 1,500 in (2.25 million pairs): renames, successors and merges come from
    // candidates that share a name feature or a parameter, each tool prepared once.
    let tools = |name: fn(usize) -> String| -> Value {
        let list: Vec<Value> = (0..1_500)
            .map(|i| {
                json!({"name": name(i), "description": format!("Tool {i}."), "inputSchema": {"type": "object", "properties": {
                    "owner": {"type": "string"}, "repo": {"type": "string"}, format!("x{i}"): {"type": "integer"}}}})
            })
            .collect();
        json!({"tools": list})
    };
    let old = tools(|i| format!("getIssue{i}"));
    let new = tools(|i| format!("get_issue_{i}"));
    let rules = diff(&old, &new);
    assert_eq!(rules.len(), 1_500);
    assert!(rules.iter().all(|r| r == "tool-renamed"), "{:?}", &rules[..3]);
}

/// One object branch of a union: its own two properties, `maxLength` as given, and optionally a
/// `kind` discriminator.
fn variant(i: usize, max_length: usize, discriminator: bool) -> Value {
    let mut branch = json!({
        "type": "object",
        "properties": {
            format!("field{i}"): {"type": "string", "maxLength": max_length},
            format!("count{i}"): {"type": "integer"}
        },
        "required": [format!("field{i}")]
    });
    if discriminator {
        branch["properties"]["kind"] = json!({"const": format!("variant{i}")});
        branch["required"].as_array_mut().unwrap().push(json!("kind"));
    }
    branch
}

fn union(keyword: &str, branches: impl Iterator<Item = Value>) -> Value {
    let branches: Vec<Value> = branches.collect();
    tool("t", &json!({"type": "object", "properties": {"payload": {keyword: branches}}}))
}

#[test]
fn thousands_of_changed_branches_are_paired_by_shape_not_position() {
    // 1,500 changed branches in reverse order (2.25 million pairs): each pairs with the branch that
    // shares its property names, found through those names, so every change is a loosened bound
    // and no branch counts as removed or added.
    let n = 1_500;
    let old = union("anyOf", (0..n).map(|i| variant(i, 50, false)));
    let new = union("anyOf", (0..n).rev().map(|i| variant(i, 60, false)));
    let rules = diff(&old, &new);
    assert_eq!(rules.len(), n, "{:?}", &rules[..3]);
    assert!(rules.iter().all(|r| r == "input-constraint-loosened"), "{:?}", &rules[..3]);
}

#[test]
fn a_large_one_of_is_disjoint_by_its_discriminator_or_undecided() {
    // A changed 1,000-branch `oneOf` with a `kind` discriminator is proven disjoint in one pass; the
    // same union without a discriminator is too large to prove pair by pair, and says so.
    let n = 1_000;
    let rules = |discriminator: bool| {
        let old = union("oneOf", (0..n).map(|i| variant(i, 50, discriminator)));
        let new = union("oneOf", (0..n).map(|i| variant(i, 60, discriminator)));
        diff(&old, &new)
    };
    let with = rules(true);
    assert_eq!(with.len(), n);
    assert!(with.iter().all(|r| r == "input-constraint-loosened"));
    let without = rules(false);
    assert_eq!(without.iter().filter(|r| *r == "input-cannot-decide").count(), 1, "{without:?}");
    // An enum documented value by value (`oneOf` of `const`s) is disjoint by its values: replacing one
    // is one alternative removed (a proven narrowing, not an undecided overlap) and one added, not
    // one branch whose value and description were edited.
    let documented = |values: &mut dyn Iterator<Item = usize>| {
        let branches: Vec<Value> =
            values.map(|i| json!({"const": format!("v{i}"), "description": format!("Mode {i}.")})).collect();
        tool("t", &json!({"type": "object", "properties": {"mode": {"oneOf": branches}}}))
    };
    let rules = diff(&documented(&mut (0..n)), &documented(&mut (0..n).filter(|i| *i != 7).chain([n])));
    assert_eq!(rules, ["input-composition-narrowed", "input-composition-widened"]);
}

#[test]
fn a_long_dependency_chain_is_followed_not_rewitnessed() {
    // `p{i}` needs `p{i+1}`; the new side also spells out `p{i+2}` for every `p{i}`, which the chain
    // already implies: no finding, except the last link, which names `p0` and is a real break.
    let n = 5_000;
    let props: serde_json::Map<String, Value> = (0..n).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
    let deps = |extra: bool| -> serde_json::Map<String, Value> {
        (0..n - 1)
            .map(|i| {
                let mut needs = vec![format!("p{}", i + 1)];
                if extra {
                    needs.push(format!("p{}", (i + 2) % n));
                }
                (format!("p{i}"), json!(needs))
            })
            .collect()
    };
    let schema = |extra| tool("t", &json!({"type": "object", "properties": props, "dependentRequired": deps(extra)}));
    assert_eq!(diff(&schema(false), &schema(true)), vec!["input-constraint-tightened"]);
}

// Bounded work (issue #12): tiny schemas that describe exponential work, or instances of gigabytes,
// end quickly with a result, and a budget that stops work says so once per tool and direction. Each
// input is generated here and timed in release by `benches/adversarial.py` (the "a." to "f." cases).

/// `diff_texts` on a thread, failing the test (instead of hanging it) past `seconds`. Returns each
/// finding as (rule, pointer, message, has a witness).
fn bounded_diff(old: &Value, new: &Value, seconds: u64) -> Vec<(String, String, String, bool)> {
    let (old, new) = (old.to_string(), new.to_string());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let a = mcp_drift::diff_texts(&old, &new).unwrap();
        let found = a
            .findings
            .iter()
            .map(|f| (f.rule.as_str().to_owned(), f.pointer.clone(), f.message.clone(), f.witness.is_some()))
            .collect::<Vec<_>>();
        let _ = tx.send(found);
    });
    rx.recv_timeout(std::time::Duration::from_secs(seconds))
        .unwrap_or_else(|_| panic!("no result within {seconds} s: the work is not bounded"))
}

/// A root object whose property `x` is the reference `to`, with the given `$defs`.
fn defs_tool(defs: &serde_json::Map<String, Value>, to: &str, required: bool) -> Value {
    let mut schema = json!({"type": "object", "properties": {"x": {"$ref": to}}, "$defs": defs});
    if required {
        schema["required"] = json!(["x"]);
    }
    tool("t", &schema)
}

/// Debug builds are several times slower than the release build the limits are for.
const LIMIT_S: u64 = 30;

#[test]
fn a_24_level_all_of_diamond_is_walked_once_per_pair() {
    // d0 = allOf [d1, d1], d1 = allOf [d2, d2], ...: 2^24 paths to the leaf in about 4 KB.
    let diamond = |leaf: &str| {
        let mut defs = serde_json::Map::new();
        for i in 0..24 {
            let r = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            defs.insert(format!("d{i}"), json!({"allOf": [r, r]}));
        }
        defs.insert("d24".into(), json!({"type": "object", "properties": {"v": {"type": leaf}}}));
        defs_tool(&defs, "#/$defs/d0", false)
    };
    let found = bounded_diff(&diamond("string"), &diamond("integer"), LIMIT_S);
    let rules: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
    // The change is found (once), and the validator, which would take every path, is not run:
    // one finding says why there is no witness.
    assert!(rules.iter().filter(|r| r.ends_with("type-narrowed") || r.ends_with("cannot-decide")).count() >= 1);
    assert!(found.iter().any(|f| f.2.contains("`#/$defs/d24.v`")), "{found:?}");
    let budget: Vec<_> = found.iter().filter(|f| f.2.contains("(budget)")).collect();
    assert_eq!(budget.len(), 1, "{found:?}");
    assert!(budget[0].2.contains("its validation could apply more than 1,000,000 subschemas"), "{found:?}");
}

#[test]
fn b_two_any_of_definitions_that_reference_each_other_terminate() {
    // a = anyOf [b, b, leaf], b = anyOf [a, a, integer]: about 300 bytes; the walk used to follow the
    // branches to depth 96 (3^96 pairs, about 300 MB of memory per second).
    let mutual = |leaf: &str| {
        let defs = json!({
            "a": {"anyOf": [{"$ref": "#/$defs/b"}, {"$ref": "#/$defs/b"}, {"type": leaf}]},
            "b": {"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}, {"type": "integer"}]}
        });
        defs_tool(defs.as_object().unwrap(), "#/$defs/a", true)
    };
    let found = bounded_diff(&mutual("string"), &mutual("boolean"), LIMIT_S);
    assert!(!found.iter().any(|f| f.2.contains("nested deeper")), "coinduction applies to branches: {found:?}");
    // The string alternative was removed and a boolean one added, both at `#/$defs/a`.
    assert!(found.iter().any(|f| f.1 == "/inputSchema/$defs/a/anyOf/2"), "{found:?}");
    assert!(found.iter().any(|f| f.2.contains("a cycle that takes no step into the instance")), "{found:?}");
}

/// `levels` levels of 10 properties that each reference the next level: 10^levels paths to the leaf.
fn fan_out(levels: usize, leaf: &str, required: bool) -> Value {
    let names: Vec<String> = (0..10).map(|k| format!("p{k}")).collect();
    let mut defs = serde_json::Map::new();
    for i in 0..levels {
        let props: serde_json::Map<String, Value> =
            names.iter().map(|n| (n.clone(), json!({"$ref": format!("#/$defs/d{}", i + 1)}))).collect();
        let mut d = json!({"type": "object", "properties": props});
        if required {
            d["required"] = json!(names);
        }
        defs.insert(format!("d{i}"), d);
    }
    defs.insert(format!("d{levels}"), json!({"type": leaf}));
    defs_tool(&defs, "#/$defs/d0", required)
}

#[test]
fn c_a_changed_leaf_below_a_million_ref_paths_is_found_once_with_a_witness() {
    let found = bounded_diff(&fan_out(6, "string", false), &fan_out(6, "integer", false), LIMIT_S);
    assert_eq!(found.len(), 1, "{found:?}");
    let (rule, pointer, _, witness) = &found[0];
    assert_eq!(
        (rule.as_str(), pointer.as_str(), *witness),
        ("input-type-narrowed", "/inputSchema/$defs/d6/type", true)
    );
}

#[test]
fn d_a_witness_through_ten_million_required_paths_is_not_built_and_says_so() {
    let found = bounded_diff(&fan_out(7, "string", true), &fan_out(7, "integer", true), LIMIT_S);
    assert!(found.iter().any(|f| f.1 == "/inputSchema/$defs/d7/type"), "{found:?}");
    let budget: Vec<_> = found.iter().filter(|f| f.2.contains("(budget)")).collect();
    assert_eq!(budget.len(), 1, "{found:?}");
    assert!(budget[0].2.contains("a witness would be larger than 1 MiB (budget)"), "{found:?}");
}

#[test]
fn e_a_ten_gigabyte_witness_is_not_built_and_says_so() {
    let arrays = |extra: bool| {
        let mut schema = json!({"type": "object", "required": ["m"], "properties": {"m": {
            "type": "array", "minItems": 1000, "items": {
                "type": "array", "minItems": 1000, "items": {"type": "string", "minLength": 10000}}}}});
        if extra {
            schema["properties"]["y"] = json!({"type": "string"});
            schema["required"] = json!(["m", "y"]);
        }
        tool("t", &schema)
    };
    let found = bounded_diff(&arrays(false), &arrays(true), LIMIT_S);
    assert!(found.iter().any(|f| f.2.contains("`y`") && f.0 == "input-cannot-decide"), "{found:?}");
    assert_eq!(found.iter().filter(|f| f.2.contains("larger than 1 MiB (budget)")).count(), 1, "{found:?}");
}

#[test]
fn f_four_thousand_long_required_strings_are_linear_and_bounded() {
    let strings = |extra: bool| {
        let mut props: serde_json::Map<String, Value> =
            (0..4000).map(|i| (format!("s{i}"), json!({"type": "string", "minLength": 10_000}))).collect();
        let mut required: Vec<String> = props.keys().cloned().collect();
        if extra {
            props.insert("y".into(), json!({"type": "string"}));
            required.push("y".into());
        }
        tool("t", &json!({"type": "object", "properties": props, "required": required}))
    };
    let found = bounded_diff(&strings(false), &strings(true), LIMIT_S);
    assert!(found.iter().any(|f| f.2.contains("`y`")), "{found:?}");
    assert_eq!(found.iter().filter(|f| f.2.contains("larger than 1 MiB (budget)")).count(), 1, "{found:?}");
    // Small enough, the same shape has its witness: each string is built once, not char by char.
    let small = |extra: bool| {
        let mut schema =
            json!({"type": "object", "required": ["s"], "properties": {"s": {"type": "string", "minLength": 10_000}}});
        if extra {
            schema["properties"]["y"] = json!({"type": "string"});
            schema["required"] = json!(["s", "y"]);
        }
        tool("t", &schema)
    };
    let found = bounded_diff(&small(false), &small(true), LIMIT_S);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].3, "a 10 KB witness is built: {found:?}");
}
