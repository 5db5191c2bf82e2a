//! `$ref` resolution as JSON Schema 2020-12 defines it (issue #12): a reference resolves in the schema
//! resource it is written in, a change behind a `$dynamicRef` is compared or reported, and no reference
//! string makes resolution panic or go quadratic. The `jsonschema` validator is the oracle: every
//! witness must be accepted by the old schema and rejected by the new one.

use mcp_drift::catalog::RuleId;
use mcp_drift::{Finding, Severity};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn snapshot(input: &Value) -> String {
    json!({"tools": [{"name": "t", "description": "A tool.", "inputSchema": input}]}).to_string()
}

fn findings(old: &Value, new: &Value) -> Vec<Finding> {
    mcp_drift::diff_texts(&snapshot(old), &snapshot(new)).expect("valid snapshots").findings
}

/// The oracle: the validator accepts `instance` under `old` and rejects it under `new`.
fn oracle_confirms(old: &Value, new: &Value, instance: &Value) -> bool {
    let validator = |s: &Value| jsonschema::draft202012::new(s).expect("the oracle compiles the schema");
    validator(old).is_valid(instance) && !validator(new).is_valid(instance)
}

/// Exactly one input break, an error with a witness that the oracle confirms.
fn assert_break_confirmed(old: &Value, new: &Value) {
    let found = findings(old, new);
    let errors: Vec<&Finding> = found.iter().filter(|f| f.severity == Severity::Error).collect();
    assert!(!errors.is_empty(), "no break reported: {:?}", found.iter().map(|f| &f.message).collect::<Vec<_>>());
    for f in errors {
        let w = f.witness.as_ref().expect("every schema error has a witness");
        assert!(
            oracle_confirms(old, new, &w.instance),
            "{}: witness {} not confirmed by the oracle",
            f.rule,
            w.instance
        );
    }
}

/// Nothing that claims a break (no error, no cannot-decide).
fn assert_no_break(old: &Value, new: &Value) {
    let found = findings(old, new);
    let claims: Vec<String> = found
        .iter()
        .filter(|f| f.severity == Severity::Error || f.rule == RuleId::InputCannotDecide)
        .map(|f| format!("{} {}", f.rule, f.message))
        .collect();
    assert!(claims.is_empty(), "{claims:?}");
}

fn with_max_length(mut schema: Value, ptr: &str) -> Value {
    schema.pointer_mut(ptr).expect("pointer in the test schema")["maxLength"] = json!(3);
    schema
}

/// `#foo` resolves in the resource the `$ref` is written in, although another embedded resource
/// declares the same anchor (and comes first in the search the old code did).
#[test]
fn anchor_is_looked_up_in_its_own_resource() {
    let old = json!({
        "type": "object",
        "properties": {"name": {"$ref": "#foo"}},
        "required": ["name"],
        "$defs": {
            "mine": {"$anchor": "foo", "type": "string"},
            "other": {"$id": "other.json", "$defs": {"decoy": {"$anchor": "foo", "type": "string"}}}
        }
    });
    let new = with_max_length(old.clone(), "/$defs/mine");
    assert_break_confirmed(&old, &new);
    // The same edit in the other resource's `foo` changes nothing that `#foo` here names.
    let decoy = with_max_length(old.clone(), "/$defs/other/$defs/decoy");
    assert_no_break(&old, &decoy);
    assert!(jsonschema::draft202012::new(&decoy).unwrap().is_valid(&json!({"name": "long enough"})));
}

/// `#/$defs/x` inside an embedded resource is relative to that resource, not to the document root.
#[test]
fn pointer_inside_an_embedded_resource_is_relative_to_it() {
    let old = json!({
        "type": "object",
        "properties": {"address": {"$ref": "address.json"}},
        "required": ["address"],
        "$defs": {
            "x": {"type": "string"},
            "address": {
                "$id": "address.json",
                "type": "object",
                "properties": {"zip": {"$ref": "#/$defs/x"}},
                "required": ["zip"],
                "$defs": {"x": {"type": "string"}}
            }
        }
    });
    let new = with_max_length(old.clone(), "/$defs/address/$defs/x");
    assert_break_confirmed(&old, &new);
    let root_only = with_max_length(old.clone(), "/$defs/x");
    assert_no_break(&old, &root_only);
}

/// A relative `$id` inside a relative `$id` (no `$id` at the root): both resolve against the
/// placeholder base, and a reference by the nested URI reaches the right schema.
#[test]
fn relative_ids_nest() {
    let old = json!({
        "type": "object",
        "properties": {"v": {"$ref": "dir/leaf.json#/$defs/s"}},
        "required": ["v"],
        "$defs": {
            "dir": {"$id": "dir/", "$defs": {"leaf": {"$id": "leaf.json", "$defs": {"s": {"type": "string"}}}}},
            "leaf": {"$id": "leaf.json", "$defs": {"s": {"type": "string"}}}
        }
    });
    let new = with_max_length(old.clone(), "/$defs/dir/$defs/leaf/$defs/s");
    assert_break_confirmed(&old, &new);
    assert_no_break(&old, &with_max_length(old.clone(), "/$defs/leaf/$defs/s"));
}

/// A break behind a `$dynamicRef` that only one `$dynamicAnchor` can satisfy is compared like a
/// `$ref` (the old code skipped it because the reference is written the same on both sides).
#[test]
fn change_behind_a_resolvable_dynamic_ref_is_compared() {
    let old = json!({
        "type": "object",
        "properties": {"tree": {"$dynamicRef": "#node"}},
        "required": ["tree"],
        "$defs": {"node": {
            "$dynamicAnchor": "node",
            "type": "object",
            "properties": {"label": {"type": "string"}, "kids": {"type": "array", "items": {"$dynamicRef": "#node"}}},
            "required": ["label"]
        }}
    });
    let new = with_max_length(old.clone(), "/$defs/node/properties/label");
    assert_break_confirmed(&old, &new);
}

/// When the dynamic scope decides the target (two resources declare the anchor differently), a
/// change behind the reference is `input-cannot-decide`, never nothing. Here `a.json` is reached only
/// through the `$dynamicRef` (written the same on both sides, which the old code skipped).
#[test]
fn change_behind_an_undecidable_dynamic_ref_is_reported() {
    let old = json!({
        "type": "object",
        "properties": {"b": {"$ref": "b.json"}},
        "$defs": {
            "a": {"$id": "a.json", "$dynamicAnchor": "item", "type": "string",
                  "$defs": {"list": {"type": "array", "items": {"$dynamicRef": "#item"}}}},
            "b": {"$id": "b.json", "$dynamicAnchor": "item", "type": "object",
                  "properties": {"list": {"$ref": "a.json#/$defs/list"}}}
        }
    });
    let mut new = old.clone();
    new["$defs"]["a"]["maxLength"] = json!(3);
    let found = findings(&old, &new);
    assert!(
        found.iter().any(|f| f.rule == RuleId::InputCannotDecide || f.severity == Severity::Error),
        "{:?}",
        found.iter().map(|f| format!("{} {}", f.rule, f.message)).collect::<Vec<_>>()
    );
    // Identical documents: nothing.
    assert!(findings(&old, &old).is_empty());
}

/// An anchor declared twice in one resource names no single schema: a change to either is
/// `input-cannot-decide`, even though the reference is written the same on both sides.
#[test]
fn ambiguous_anchor_is_reported() {
    let old = json!({
        "type": "object",
        "properties": {"name": {"$ref": "#foo"}},
        "required": ["name"],
        "$defs": {"a": {"$anchor": "foo", "type": "string"}, "b": {"$anchor": "foo", "type": "string"}}
    });
    for changed in ["/$defs/a", "/$defs/b"] {
        let new = with_max_length(old.clone(), changed);
        let found = findings(&old, &new);
        assert!(found.iter().any(|f| f.rule == RuleId::InputCannotDecide), "{changed}: {found:?}");
    }
}

/// The same `$ref` that resolves in the old document but not in the new one (the anchor moved into
/// an embedded resource, where `#foo` from the root does not reach it) is reported.
#[test]
fn reference_that_stops_resolving_is_reported() {
    let old = json!({
        "type": "object",
        "properties": {"name": {"$ref": "#foo"}},
        "$defs": {"s": {"$anchor": "foo", "type": "string"}}
    });
    let new = json!({
        "type": "object",
        "properties": {"name": {"$ref": "#foo"}},
        "$defs": {"s": {"$id": "s.json", "$anchor": "foo", "type": "string"}}
    });
    let found = findings(&old, &new);
    assert!(found.iter().any(|f| f.rule == RuleId::InputCannotDecide), "{found:?}");
}

/// `$ref: "#name"` reaches a `$dynamicAnchor: name` (it defines a plain-name fragment too).
#[test]
fn lint_accepts_a_ref_to_a_dynamic_anchor() {
    let text = snapshot(&json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#node", "description": "The tree."}},
        "$defs": {"node": {"$dynamicAnchor": "node", "type": "object"}}
    }));
    let analysis = mcp_drift::lint_text(&text, mcp_drift::lint::Options::default()).unwrap();
    let unresolved: Vec<&Finding> = analysis.findings.iter().filter(|f| f.rule == RuleId::LintRefUnresolved).collect();
    assert!(unresolved.is_empty(), "{:?}", unresolved.iter().map(|f| &f.message).collect::<Vec<_>>());
    // And a genuinely dangling one is still reported.
    let dangling = snapshot(&json!({"type": "object", "properties": {"x": {"$ref": "#nothing", "description": "X."}}}));
    let analysis = mcp_drift::lint_text(&dangling, mcp_drift::lint::Options::default()).unwrap();
    assert!(analysis.findings.iter().any(|f| f.rule == RuleId::LintRefUnresolved));
}

/// A `%` before a multi-byte character panicked in `percent_decode` (byte-slicing a `str`).
#[test]
fn percent_before_a_multibyte_character_does_not_panic() {
    let old = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/%a\u{e9}"}}, "$defs": {}});
    let new = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/%a\u{e9}", "title": "x"}, "y": {}}});
    let _ = findings(&old, &new);
    let lint = mcp_drift::lint_text(&snapshot(&old), mcp_drift::lint::Options::default()).unwrap();
    assert!(lint.findings.iter().any(|f| f.rule == RuleId::LintRefUnresolved));
}

/// 100,000 resources, each referring to the next by URI and anchor: indexed once, so resolving every
/// reference is linear (the old depth-first search per reference took minutes).
#[test]
fn many_resources_resolve_in_linear_time() {
    const N: usize = 100_000;
    let defs: Map<String, Value> = (0..N)
        .map(|i| {
            (
                format!("r{i}"),
                json!({"$id": format!("r{i}.json"), "$anchor": "a", "$ref": format!("r{}.json#a", (i + 1) % N)}),
            )
        })
        .collect();
    let root = json!({"$defs": defs});
    let start = std::time::Instant::now();
    let _scope = mcp_drift::schema::refs::Scope::new([&root]);
    for i in 0..N {
        let site = root["$defs"][format!("r{i}")].as_object();
        let (ptr, _) = mcp_drift::schema::resolve(&root, site, &format!("r{}.json#a", (i + 1) % N)).unwrap();
        assert_eq!(ptr, format!("/$defs/r{}", (i + 1) % N));
    }
    let took = start.elapsed();
    assert!(took < std::time::Duration::from_secs(20), "{took:?}");
}

/// Deeply nested resources with long relative `$id`s: the base URIs and pointers the index keeps are
/// bounded, not quadratic in the document.
#[test]
fn nested_resources_with_long_ids_stay_bounded() {
    let segment = "s".repeat(10_000);
    let mut schema = json!({"type": "string"});
    for _ in 0..120 {
        schema = json!({"$id": format!("{segment}/"), "$anchor": "a", "properties": {segment.clone(): schema}});
    }
    let start = std::time::Instant::now();
    let index = mcp_drift::schema::refs::Index::build(&schema);
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
    let _ = index.resolve(&schema, None, "#a");
}

fn reference() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[#%a-z0-9/:.~é\u{1F600}$_-]{0,16}",
        prop::sample::select(vec![
            "#",
            "#/",
            "#a",
            "#/$defs/a",
            "a.json",
            "a.json#a",
            "b/#/$defs/x",
            "%",
            "#%",
            "#/%e9",
            "#/%a\u{e9}",
            "json-schema:///a.json",
            "urn:x:y#a",
            "../a.json",
            "//host/a",
            "#/$defs/%7e0",
        ])
        .prop_map(str::to_owned),
    ]
}

fn document() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({"type": "string"})),
        reference().prop_map(|r| json!({ "$ref": r })),
        reference().prop_map(|r| json!({ "$dynamicRef": r })),
        prop::sample::select(vec!["a", "b", "a.json", "b/", "urn:x:y", "#a", "", "%"])
            .prop_map(|id| json!({ "$id": id })),
        prop::sample::select(vec!["a", "b", ""]).prop_map(|a| json!({ "$anchor": a, "$dynamicAnchor": a })),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            prop::collection::btree_map(prop::sample::select(vec!["a", "b", "$defs"]), inner.clone(), 0..3)
                .prop_map(|m| json!({ "$defs": m })),
            (inner.clone(), prop::option::of(reference()), prop::option::of("[a-z/.#]{0,6}")).prop_map(|(s, r, id)| {
                let mut s = json!({"properties": {"p": s}, "allOf": [{"$ref": r.clone().unwrap_or_default()}]});
                if let Some(id) = id {
                    s["$id"] = json!(id);
                }
                if let Some(r) = r {
                    s["$ref"] = json!(r);
                }
                s
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// No reference string, in no document, makes resolution or a diff panic.
    #[test]
    fn resolution_and_diff_never_panic(doc in document(), other in document(), r in reference()) {
        let _ = mcp_drift::schema::resolve(&doc, doc.as_object(), &r);
        let _ = mcp_drift::schema::resolve_dynamic(&doc, None, &r);
        let _ = mcp_drift::schema::refs::percent_decode(&r);
        let _ = mcp_drift::diff_texts(&snapshot(&doc), &snapshot(&other));
        let _ = mcp_drift::diff_texts(&snapshot(&doc), &snapshot(&json!({"$ref": r})));
    }
}

fn string_schema() -> impl Strategy<Value = Value> {
    (prop::option::of(0u64..3), prop::option::of(0u64..4)).prop_map(|(lo, hi)| {
        let mut s = json!({"type": "string"});
        if let Some(l) = lo {
            s["minLength"] = json!(l);
        }
        if let Some(h) = hi {
            s["maxLength"] = json!(h);
        }
        s
    })
}

/// Two resources that both declare `#foo` and `/$defs/x`, with the constraints of each drawn
/// independently per side, and references (the same on both sides) from the root and from inside the
/// embedded resource.
fn two_resources(outer: Value, inner: Value, from_root: &str, from_inner: &str) -> Value {
    let anchored = |mut s: Value| {
        s["$anchor"] = json!("foo");
        s
    };
    json!({
        "type": "object",
        "properties": {"v": {"$ref": from_root}, "w": {"$ref": "r.json#/$defs/y"}},
        "required": ["v", "w"],
        "$defs": {
            "x": anchored(outer),
            "r": {"$id": "r.json", "$defs": {"x": anchored(inner), "y": {"$ref": from_inner}}}
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    /// The engine and the validator agree on which schema each reference names: when the engine finds
    /// no break (and is not undecided), no probe the old schema accepts is rejected by the new one;
    /// every witness it reports is accepted by the old schema and rejected by the new one.
    #[test]
    fn verdicts_agree_with_the_validator(
        (o1, o2, n1, n2) in (string_schema(), string_schema(), string_schema(), string_schema()),
        from_root in prop::sample::select(vec!["#foo", "#/$defs/x", "r.json#foo", "r.json#/$defs/x"]),
        from_inner in prop::sample::select(vec!["#foo", "#/$defs/x", "json-schema:///#foo", "json-schema:///r.json#/$defs/x"]),
    ) {
        let old = two_resources(o1, o2, from_root, from_inner);
        let new = two_resources(n1, n2, from_root, from_inner);
        let found = findings(&old, &new);
        // A break reported below `error` for a named reason (a degenerate rejected set) is still a
        // claim with its witness.
        let lowered = |f: &&Finding| f.severity_reason.is_some();
        for f in found.iter().filter(|f| f.severity == Severity::Error || lowered(f)) {
            let w = f.witness.as_ref().expect("every schema error has a witness");
            prop_assert!(oracle_confirms(&old, &new, &w.instance), "{}: {}", f.rule, w.instance);
        }
        let claims = found
            .iter()
            .any(|f| f.severity == Severity::Error || f.rule == RuleId::InputCannotDecide || lowered(&f));
        if !claims {
            let (vo, vn) = (jsonschema::draft202012::new(&old).unwrap(), jsonschema::draft202012::new(&new).unwrap());
            for v in 0..6 {
                for w in 0..6 {
                    let probe = json!({"v": "a".repeat(v), "w": "b".repeat(w)});
                    prop_assert!(!vo.is_valid(&probe) || vn.is_valid(&probe), "missed break: {probe}");
                }
            }
        }
    }
}

/// In a diff every document is indexed once: 20,000 properties, each a `$ref` to its own anchor, with
/// every target changed (the old code searched the whole document for each anchor).
#[test]
fn diff_indexes_each_document_once() {
    const N: usize = 20_000;
    let doc = |max: Option<u64>| {
        let props: Map<String, Value> = (0..N).map(|i| (format!("p{i}"), json!({"$ref": format!("#a{i}")}))).collect();
        let defs: Map<String, Value> = (0..N)
            .map(|i| {
                let mut s = json!({"$anchor": format!("a{i}"), "type": "string"});
                if let Some(m) = max {
                    s["maxLength"] = json!(m);
                }
                (format!("d{i}"), s)
            })
            .collect();
        json!({"type": "object", "properties": props, "$defs": defs})
    };
    let (old, new) = (doc(None), doc(Some(3)));
    let start = std::time::Instant::now();
    let found = findings(&old, &new);
    let took = start.elapsed();
    assert!(found.iter().filter(|f| f.rule == RuleId::InputConstraintTightened).count() >= N / 2, "{}", found.len());
    assert!(took < std::time::Duration::from_secs(30), "{took:?}");
    eprintln!("{N} anchored references compared in {took:?}");
}
