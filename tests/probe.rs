//! The probe fails closed on obvious breaks: candidate calls drawn from the old `inputSchema` (and
//! results from the new `outputSchema`) are checked with the validator, whatever the walk models.
//!
//! - Breaks under constructs the walk does not reason about exit 1 with the default gate, with a
//!   witness that the old schema accepts and the new one rejects (checked here with `jsonschema`).
//! - The probe stays out where the walk already proved the break, and never reports on identical or
//!   equivalent schemas (property test over rewrites).

use std::time::{Duration, Instant};

use assert_cmd::Command;
use proptest::prelude::*;
use serde_json::{Value, json};

fn valid(schema: &Value, instance: &Value) -> bool {
    jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(schema).unwrap().is_valid(instance)
}

fn snapshot(tool: &Value) -> String {
    json!({ "tools": [tool] }).to_string()
}

fn input_tool(schema: &Value) -> Value {
    json!({"name": "deploy", "description": "Deploy a service.", "inputSchema": schema})
}

fn output_tool(schema: &Value) -> Value {
    json!({"name": "get_order", "description": "Get an order.", "inputSchema": {"type": "object"}, "outputSchema": schema})
}

/// Runs `mcp-drift diff OLD NEW --format json` with the default gate; the exit code and the report.
fn run(old: &Value, new: &Value) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let (o, n) = (dir.path().join("old.json"), dir.path().join("new.json"));
    std::fs::write(&o, snapshot(old)).unwrap();
    std::fs::write(&n, snapshot(new)).unwrap();
    let out = Command::cargo_bin("mcp-drift")
        .unwrap()
        .args(["diff", o.to_str().unwrap(), n.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    (out.status.code().unwrap(), serde_json::from_slice(&out.stdout).unwrap())
}

fn findings<'r>(report: &'r Value, rule: &str) -> Vec<&'r Value> {
    report["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == rule).collect()
}

/// The report holds exactly one `rule` error whose witness `sub` accepts and `sup` rejects.
fn assert_rejected(report: &Value, rule: &str, sub: &Value, sup: &Value) -> Value {
    let found = findings(report, rule);
    assert_eq!(found.len(), 1, "{report:#}");
    let f = found[0];
    assert_eq!(f["severity"], "error", "{f:#}");
    let w = &f["witness"]["instance"];
    assert!(valid(sub, w), "witness {w} is not accepted by {sub}");
    assert!(!valid(sup, w), "witness {w} is not rejected by {sup}");
    assert!(!f["witness"]["rejected_because"].as_str().unwrap().is_empty());
    f.clone()
}

#[test]
fn any_of_of_required_added_at_the_root_fails_the_gate() {
    let old = json!({"type": "object", "properties": {"service": {"type": "string"}, "region": {"type": "string"}}, "required": ["service"]});
    let mut new = old.clone();
    new["anyOf"] = json!([{"required": ["region"]}]);
    let (code, report) = run(&input_tool(&old), &input_tool(&new));
    assert_eq!(code, 1, "{report:#}");
    let f = assert_rejected(&report, "input-call-rejected", &old, &new);
    assert_eq!(f["pointer"], "/inputSchema/anyOf");
    assert!(f["message"].as_str().unwrap().contains("`anyOf`"), "{f:#}");
    let because = f["witness"]["rejected_because"].as_str().unwrap();
    assert!(because.contains("\"region\" is a required property"), "{because}");
    // The warning it explains is folded into the error, not repeated beside it.
    assert!(findings(&report, "input-cannot-decide").is_empty(), "{report:#}");
    assert!(f["why"].as_str().unwrap().contains("`anyOf` was added"), "{f:#}");
}

#[test]
fn one_of_of_two_identical_branches_rejects_every_call() {
    let old = json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]});
    let mut new = old.clone();
    new["oneOf"] = json!([{"type": "object"}, {"type": "object"}]);
    let (code, report) = run(&input_tool(&old), &input_tool(&new));
    assert_eq!(code, 1, "{report:#}");
    let f = assert_rejected(&report, "input-call-rejected", &old, &new);
    assert_eq!(f["pointer"], "/inputSchema/oneOf");
    assert!(findings(&report, "input-cannot-decide").is_empty(), "{report:#}");
}

#[test]
fn a_new_result_the_old_schema_rejects_fails_the_gate() {
    let new = json!({"type": "object", "properties": {"id": {"type": "string"}, "status": {"type": "string"}}});
    let mut old = new.clone();
    old["anyOf"] = json!([{"required": ["id"]}]);
    let (code, report) = run(&output_tool(&old), &output_tool(&new));
    assert_eq!(code, 1, "{report:#}");
    let f = assert_rejected(&report, "output-result-rejected", &new, &old);
    assert_eq!(f["pointer"], "/outputSchema/anyOf", "the rejecting keyword is in the old schema");
}

#[test]
fn property_values_are_embedded_into_a_minimal_call() {
    // An `if`/`then` added: only calls that send `mode: "bulk"` break.
    let old = json!({"type": "object", "properties": {"items": {"type": "array"}, "mode": {"enum": ["one", "bulk"]}, "confirm": {"type": "boolean"}}, "required": ["items"]});
    let mut new = old.clone();
    new["if"] = json!({"properties": {"mode": {"const": "bulk"}}, "required": ["mode"]});
    new["then"] = json!({"required": ["confirm"]});
    let (code, report) = run(&input_tool(&old), &input_tool(&new));
    assert_eq!(code, 1, "{report:#}");
    let f = assert_rejected(&report, "input-call-rejected", &old, &new);
    assert_eq!(f["witness"]["instance"]["mode"], "bulk", "{f:#}");
    assert!(f["message"].as_str().unwrap().contains("`enum[1]` of `mode`"), "{f:#}");
}

#[test]
fn the_probe_stays_out_where_the_walk_proved_the_break() {
    let old = json!({"type": "object", "properties": {"service": {"type": "string"}}, "required": ["service"]});
    let mut new = old.clone();
    new["properties"]["region"] = json!({"type": "string"});
    new["required"] = json!(["service", "region"]);
    new["anyOf"] = json!([{"required": ["service"]}]);
    let (code, report) = run(&input_tool(&old), &input_tool(&new));
    assert_eq!(code, 1);
    assert_eq!(findings(&report, "input-required-added").len(), 1, "{report:#}");
    assert!(findings(&report, "input-call-rejected").is_empty(), "{report:#}");
}

#[test]
fn an_instance_the_old_schema_rejects_is_not_an_old_call() {
    // `mode: "b"` is listed in the enum but forbidden by the old root `not`: the new schema says the
    // same with `if`/`then: false`. No old call is rejected, so nothing is an error.
    let old = json!({"type": "object", "properties": {"mode": {"enum": ["a", "b"]}}, "not": {"properties": {"mode": {"const": "b"}}, "required": ["mode"]}});
    let new = json!({"type": "object", "properties": {"mode": {"enum": ["a", "b"]}}, "if": {"properties": {"mode": {"const": "b"}}, "required": ["mode"]}, "then": false});
    let (code, report) = run(&input_tool(&old), &input_tool(&new));
    assert!(findings(&report, "input-call-rejected").is_empty(), "{report:#}");
    assert_eq!(code, 0, "{report:#}");
}

#[test]
fn an_unrelated_undecided_change_stays_beside_the_error() {
    // A compatible `propertyNames` change the walk cannot decide, and a root `anyOf` that rejects.
    let old = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "propertyNames": {"maxLength": 3}});
    let mut new = old.clone();
    new["propertyNames"] = json!({"maxLength": 4});
    new["anyOf"] = json!([{"required": ["b"]}]);
    let (_, report) = run(&input_tool(&old), &input_tool(&new));
    assert_rejected(&report, "input-call-rejected", &old, &new);
    let undecided: Vec<&Value> = findings(&report, "input-cannot-decide");
    assert!(undecided.iter().any(|f| f["pointer"] == "/inputSchema/propertyNames"), "{report:#}");
}

#[test]
fn huge_minimal_instances_are_not_built() {
    // minItems 1000 of minItems 1000 of minLength 10000: the probe estimates and skips it.
    let bomb = json!({"type": "array", "minItems": 1000, "items": {"type": "array", "minItems": 1000, "items": {"type": "string", "minLength": 10000}}});
    let old = json!({"type": "object", "properties": {"x": bomb}, "required": ["x"]});
    let mut new = old.clone();
    new["anyOf"] = json!([{"required": ["y"]}]);
    let start = Instant::now();
    let analysis = mcp_drift::diff_texts(&snapshot(&input_tool(&old)), &snapshot(&input_tool(&new))).unwrap();
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
    // Undecided, never a crash or a guess.
    assert!(analysis.findings.iter().all(|f| f.rule.as_str() != "input-call-rejected"));
}

/// Schemas the probe's candidates meet: objects with required and optional properties holding enums,
/// consts, examples, defaults, type lists, bounds and nested objects.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({})),
        prop::sample::subsequence(vec!["string", "integer", "number", "null", "boolean"], 1..4)
            .prop_map(|t| json!({ "type": t })),
        prop::sample::subsequence(vec![json!("a"), json!("b"), json!(1), json!(2.5), json!(null), json!(true)], 1..5)
            .prop_map(|v| json!({ "enum": v })),
        prop_oneof![Just(json!("a")), Just(json!(1)), Just(json!(null))].prop_map(|c| json!({ "const": c })),
        (prop::option::of(-2i64..4), prop::option::of(-2i64..4), prop::option::of(-3i64..5)).prop_map(|(lo, hi, d)| {
            let mut s = json!({"type": "integer"});
            if let Some(l) = lo {
                s["minimum"] = json!(l);
            }
            if let Some(h) = hi {
                s["maximum"] = json!(h);
            }
            if let Some(d) = d {
                s["default"] = json!(d);
                s["examples"] = json!([d, d + 1]);
            }
            s
        }),
        (prop::option::of(0u64..3), prop::option::of(0u64..4)).prop_map(|(lo, hi)| {
            let mut s = json!({"type": "string", "examples": ["", "ab", "abcd"]});
            if let Some(l) = lo {
                s["minLength"] = json!(l);
            }
            if let Some(h) = hi {
                s["maxLength"] = json!(h);
            }
            s
        }),
    ]
}

fn object() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(2, 16, 4, |inner| {
        (
            prop::collection::btree_map(prop::sample::select(vec!["a", "b", "c", "d"]), inner, 0..4),
            prop::sample::subsequence(vec!["a", "b", "c", "d"], 0..3),
            prop::option::of(any::<bool>()),
        )
            .prop_map(|(props, req, closed)| {
                let req: Vec<&str> = req.into_iter().filter(|r| props.contains_key(r)).collect();
                let mut s = json!({"type": "object", "properties": props, "required": req});
                if let Some(c) = closed {
                    s["additionalProperties"] = json!(!c);
                }
                s
            })
    })
}

/// An equivalent spelling of `s`: `type` lists as `anyOf`, one-value `enum` as `const` (and back),
/// `required` and `enum` lists reversed, members wrapped in single-member `allOf` or moved behind a
/// `$ref` to `$defs` (at the document root, `defs`).
fn rewrite(s: &Value, defs: &mut serde_json::Map<String, Value>, k: u32) -> Value {
    let Value::Object(map) = s else { return s.clone() };
    let mut out = serde_json::Map::new();
    for (key, v) in map {
        let v = match key.as_str() {
            "properties" => Value::Object(
                v.as_object()
                    .unwrap()
                    .iter()
                    .enumerate()
                    .map(|(i, (name, p))| {
                        let p = rewrite(p, defs, k.wrapping_mul(31).wrapping_add(u32::try_from(i).unwrap()));
                        let p = match k % 3 {
                            0 => json!({"allOf": [p]}),
                            1 => {
                                let id = format!("d{}", defs.len());
                                defs.insert(id.clone(), p);
                                json!({"$ref": format!("#/$defs/{id}")})
                            }
                            _ => p,
                        };
                        (name.clone(), p)
                    })
                    .collect(),
            ),
            "required" | "enum" => Value::Array(v.as_array().unwrap().iter().rev().cloned().collect()),
            _ => v.clone(),
        };
        out.insert(key.clone(), v);
    }
    if let Some(Value::Array(types)) = out.get("type").cloned()
        && types.len() > 1
    {
        out.remove("type");
        out.insert("anyOf".into(), types.iter().map(|t| json!({ "type": t })).collect());
    }
    if let Some(Value::Array(values)) = out.get("enum").cloned()
        && values.len() == 1
    {
        out.remove("enum");
        out.insert("const".into(), values[0].clone());
    }
    Value::Object(out)
}

fn equivalent(s: &Value, k: u32) -> Value {
    let mut defs = serde_json::Map::new();
    let mut out = rewrite(s, &mut defs, k);
    if !defs.is_empty() {
        out["$defs"] = Value::Object(defs);
    }
    out
}

const PROBE_RULES: [&str; 2] = ["input-call-rejected", "output-result-rejected"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Identical and equivalent schemas never make the probe report, in either direction.
    #[test]
    fn the_probe_never_reports_on_equivalent_schemas(s in object(), k in 0u32..6) {
        let e = equivalent(&s, k);
        let tool = |x: &Value| json!({"name": "t", "inputSchema": x, "outputSchema": x});
        for (a, b) in [(&s, &s), (&s, &e), (&e, &s)] {
            let analysis = mcp_drift::diff_texts(&snapshot(&tool(a)), &snapshot(&tool(b))).unwrap();
            let probed: Vec<&str> = analysis.findings.iter().map(|f| f.rule.as_str()).filter(|r| PROBE_RULES.contains(r)).collect();
            prop_assert!(probed.is_empty(), "{probed:?}\nold {a}\nnew {b}\n{:#?}", analysis.findings);
        }
    }

    /// Every probe witness is confirmed: the accepting side allows it and the other side rejects it.
    #[test]
    fn probe_witnesses_are_confirmed(a in object(), b in object()) {
        let tool = |x: &Value| json!({"name": "t", "inputSchema": x, "outputSchema": x});
        let analysis = mcp_drift::diff_texts(&snapshot(&tool(&a)), &snapshot(&tool(&b))).unwrap();
        for f in analysis.findings.iter().filter(|f| PROBE_RULES.contains(&f.rule.as_str())) {
            let w = &f.witness.as_ref().unwrap().instance;
            let (sub, sup) = if f.rule.as_str() == PROBE_RULES[0] { (&a, &b) } else { (&b, &a) };
            prop_assert!(valid(sub, w) && !valid(sup, w), "{}: {w}\nold {a}\nnew {b}", f.rule);
        }
    }
}

#[test]
fn a_long_reference_chain_is_not_probed() {
    // The validator compiles a reference chain in quadratic time (20,000 hops: about 5 s in release);
    // the walk stops after 64 hops and the probe does not start.
    let chain = |last: &str| {
        let mut defs: serde_json::Map<String, Value> =
            (0..20_000).map(|i| (format!("d{i}"), json!({"$ref": format!("#/$defs/d{}", i + 1)}))).collect();
        defs.insert("d20000".into(), json!({ "type": last }));
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs})
    };
    let (old, new) = (chain("string"), chain("integer"));
    let start = Instant::now();
    let analysis = mcp_drift::diff_texts(&snapshot(&input_tool(&old)), &snapshot(&input_tool(&new))).unwrap();
    assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
    assert!(analysis.findings.iter().any(|f| f.rule.as_str() == "input-cannot-decide"));
}

/// A pattern (or a `not` of one) that singles out a value no old example spells: the words of the new
/// pattern are tried as values, and the walk's unwitnessed tightening becomes a proven error under its
/// own rule, with nothing left undecided beside it.
#[test]
fn words_of_a_new_pattern_witness_the_tightening() {
    let old = json!({"type": "object", "properties": {"branch": {"type": "string"}}, "required": ["branch"]});
    for (constraint, rule) in [
        (json!({"pattern": "^(?!main$)"}), "input-constraint-tightened"),
        (json!({"not": {"pattern": "^(main|master|release/.*)$"}}), "input-composition-narrowed"),
    ] {
        let mut new = old.clone();
        for (k, v) in constraint.as_object().unwrap() {
            new["properties"]["branch"][k] = v.clone();
        }
        let (code, report) = run(&input_tool(&old), &input_tool(&new));
        assert_eq!(code, 1, "{constraint}: {report:#}");
        let f = assert_rejected(&report, rule, &old, &new);
        assert_eq!(f["witness"]["instance"], json!({"branch": "main"}), "{f:#}");
        assert!(findings(&report, "input-cannot-decide").is_empty(), "{report:#}");
    }
}

/// Padding the schema with a `$ref` diamond (2^30 subschemas unfolded, in 2 KB) behind an optional
/// property does not switch the probe off: what a validation costs is bounded per candidate, and the
/// minimal call never reaches the pad. Behind a required property no old call can be built within
/// bounds, and the change stays undecided instead of silent.
#[test]
fn padding_does_not_switch_the_probe_off() {
    let mut defs = serde_json::Map::new();
    for i in 0..30 {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(format!("d{i}"), json!({"allOf": [{"$ref": next}, {"$ref": next}]}));
    }
    defs.insert("d30".into(), json!({"type": "string"}));
    let old = json!({"type": "object", "properties": {"branch": {"type": "string"}, "region": {"type": "string"}}, "required": ["branch"]});
    let mut new = old.clone();
    new["anyOf"] = json!([{"required": ["region"]}]);
    new["properties"]["pad"] = json!({"$ref": "#/$defs/d0"});
    new["$defs"] = Value::Object(defs.clone());
    let start = Instant::now();
    let (code, report) = run(&input_tool(&old), &input_tool(&new));
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    assert_eq!(code, 1, "{report:#}");
    let new_unpadded = {
        let mut n = new.clone();
        n["properties"].as_object_mut().unwrap().remove("pad");
        n.as_object_mut().unwrap().remove("$defs");
        n
    };
    assert_rejected(&report, "input-call-rejected", &old, &new_unpadded);
    // The pad on a required property of both sides: no silent pass.
    let mut old_req = old.clone();
    old_req["properties"]["pad"] = json!({"$ref": "#/$defs/d0"});
    old_req["$defs"] = Value::Object(defs);
    old_req["required"] = json!(["branch", "pad"]);
    let mut new_req = old_req.clone();
    new_req["anyOf"] = json!([{"required": ["region"]}]);
    let (code, report) = run(&input_tool(&old_req), &input_tool(&new_req));
    // No old call can be built within bounds (the pad is 30 levels deep): the walk's undecided
    // `anyOf` stays, never silence.
    let said = report["findings"].as_array().unwrap().iter().any(|f| {
        f["rule"] == "input-call-rejected"
            || (f["rule"] == "input-cannot-decide" && f["message"].as_str().unwrap_or("").contains("anyOf"))
    });
    assert!(said, "{code} {report:#}");
}
