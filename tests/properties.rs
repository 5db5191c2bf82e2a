//! Property tests (proptest) of the engine's verdicts against the `jsonschema` validator, and of the
//! invariants every run must keep.
//!
//! - Whenever the engine answers Yes for a generated pair, no generated instance that the accepting side
//!   allows is rejected by the other side.
//! - Whenever it answers No, the witness it printed is confirmed by the validator.
//! - Comparing a schema with itself finds nothing; the result does not depend on key order.

mod common;

use common::{Verdict, verdict};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({})),
        Just(json!(true)),
        Just(json!(false)),
        prop::sample::subsequence(vec!["string", "integer", "number", "null", "boolean", "object", "array"], 1..3)
            .prop_map(|t| json!({ "type": t })),
        prop::sample::subsequence(vec![json!("a"), json!("b"), json!(1), json!(2.5), json!(null), json!(true)], 0..4)
            .prop_map(|v| json!({ "enum": v })),
        prop_oneof![Just(json!("a")), Just(json!(1)), Just(json!(null))].prop_map(|c| json!({ "const": c })),
        (
            prop::option::of(-2i64..4),
            prop::option::of(-2i64..4),
            any::<bool>(),
            prop::sample::select(vec![None, Some(1), Some(2), Some(3)])
        )
            .prop_map(|(lo, hi, ex, m)| {
                let mut s = json!({"type": if ex { "number" } else { "integer" }});
                if let Some(l) = lo {
                    s[if ex { "exclusiveMinimum" } else { "minimum" }] = json!(l);
                }
                if let Some(h) = hi {
                    s["maximum"] = json!(h);
                }
                if let Some(m) = m {
                    s["multipleOf"] = json!(m);
                }
                s
            }),
        (
            prop::option::of(0u64..3),
            prop::option::of(0u64..4),
            prop::sample::select(vec![None, Some("^a"), Some("^(a|b)$"), Some("^[ab]+$")])
        )
            .prop_map(|(lo, hi, p)| {
                let mut s = json!({"type": "string"});
                if let Some(l) = lo {
                    s["minLength"] = json!(l);
                }
                if let Some(h) = hi {
                    s["maxLength"] = json!(h);
                }
                if let Some(p) = p {
                    s["pattern"] = json!(p);
                }
                s
            }),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 3, |inner| {
        prop_oneof![
            (
                prop::collection::btree_map(prop::sample::select(vec!["a", "b", "c"]), inner.clone(), 0..3),
                prop::sample::subsequence(vec!["a", "b", "c"], 0..2),
                prop::option::of(prop_oneof![Just(json!(false)), Just(json!(true)), inner.clone()])
            )
                .prop_map(|(props, req, ap)| {
                    let mut s = json!({"type": "object", "properties": props, "required": req});
                    if let Some(ap) = ap {
                        s["additionalProperties"] = ap;
                    }
                    s
                }),
            (inner.clone(), prop::option::of(0u64..3), any::<bool>()).prop_map(|(items, min, unique)| {
                let mut s = json!({"type": "array", "items": items});
                if let Some(m) = min {
                    s["minItems"] = json!(m);
                }
                if unique {
                    s["uniqueItems"] = json!(true);
                }
                s
            }),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|b| json!({ "anyOf": b })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|b| json!({ "oneOf": b })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|b| json!({ "allOf": b })),
            inner.clone().prop_map(|n| json!({ "not": n })),
        ]
    })
}

fn instance() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..5).prop_map(Value::from),
        prop::sample::select(vec![0.5, 2.5, -1.5]).prop_map(Value::from),
        prop::sample::select(vec!["", "a", "b", "ab", "abc", "ba", "c"]).prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(vec!["a", "b", "c", "d"]), inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect::<Map<_, _>>())),
        ]
    })
}

fn valid(schema: &Value, instance: &Value) -> bool {
    jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(schema).is_ok_and(|v| v.is_valid(instance))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    /// Yes is never wrong on the sampled instances.
    #[test]
    fn yes_means_no_sampled_counterexample(a in schema(), b in schema(), xs in prop::collection::vec(instance(), 24)) {
        for input in [true, false] {
            if verdict(&a, &b, input) == Verdict::Yes {
                let (sub, sup) = if input { (&a, &b) } else { (&b, &a) };
                for x in &xs {
                    prop_assert!(!valid(sub, x) || valid(sup, x), "engine said Yes ({}) but {} breaks it:\nold {}\nnew {}",
                        if input { "input" } else { "output" }, x, a, b);
                }
            }
        }
    }

    /// Every witness is confirmed: the accepting side allows it, the other side rejects it.
    #[test]
    fn witnesses_are_confirmed(a in schema(), b in schema()) {
        for input in [true, false] {
            let tool = |s: &Value| if input {
                json!({"name": "t", "inputSchema": {"type": "object", "properties": {"v": s}, "required": ["v"]}})
            } else {
                json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": s})
            };
            let (old, new) = (tool(&a), tool(&b));
            let analysis = mcp_drift::diff_texts(&old.to_string(), &new.to_string()).unwrap();
            let root = |t: &Value| t[if input { "inputSchema" } else { "outputSchema" }].clone();
            let (sub, sup) = if input { (root(&old), root(&new)) } else { (root(&new), root(&old)) };
            for f in &analysis.findings {
                if let Some(w) = &f.witness {
                    prop_assert!(valid(&sub, &w.instance), "{}: witness {} not accepted", f.rule, w.instance);
                    prop_assert!(w.dropped || !valid(&sup, &w.instance), "{}: witness {} not rejected", f.rule, w.instance);
                }
            }
        }
    }

    /// Nothing is found when a schema is compared with itself, even with its keys reordered.
    #[test]
    fn self_comparison_is_silent(a in schema()) {
        let tool = json!({"name": "t", "inputSchema": {"type": "object", "properties": {"v": a}}, "outputSchema": a});
        let analysis = mcp_drift::diff_texts(&tool.to_string(), &reversed_text(&tool)).unwrap();
        prop_assert!(analysis.findings.is_empty(), "{:?}", analysis.findings.iter().map(|f| f.rule.as_str()).collect::<Vec<_>>());
    }
}

/// JSON text of the value with every object's keys written in reverse order (`serde_json`'s map would
/// sort them back, so the text is written here).
fn reversed_text(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let members: Vec<String> =
                m.iter().rev().map(|(k, v)| format!("{}: {}", Value::String(k.clone()), reversed_text(v))).collect();
            format!("{{{}}}", members.join(", "))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(reversed_text).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// The report does not depend on the order of tools in the snapshot, and every renderer handles
    /// every finding.
    #[test]
    fn tool_order_does_not_matter_and_renderers_never_panic(
        schemas in prop::collection::vec((schema(), schema()), 1..5),
        rotate in 0usize..5,
    ) {
        let tools = |pick: fn(&(Value, Value)) -> &Value| -> Vec<Value> {
            schemas.iter().enumerate().map(|(i, p)| json!({
                "name": format!("t{i}"),
                "description": format!("Tool {i}"),
                "inputSchema": {"type": "object", "properties": {"v": pick(p)}},
                "outputSchema": pick(p),
            })).collect()
        };
        let (old, new) = (tools(|p| &p.0), tools(|p| &p.1));
        let mut shuffled = new.clone();
        let len = shuffled.len();
        shuffled.rotate_left(rotate % len);
        shuffled.reverse();
        let a = mcp_drift::diff_texts(&json!({"tools": old}).to_string(), &json!({"tools": new}).to_string()).unwrap();
        let b = mcp_drift::diff_texts(&json!({"tools": old}).to_string(), &json!({"tools": shuffled}).to_string()).unwrap();
        let key = |x: &mcp_drift::Analysis| x.findings.iter().map(|f| (f.rule, f.tool.clone(), f.pointer.clone(), f.message.clone())).collect::<Vec<_>>();
        prop_assert_eq!(key(&a), key(&b));
        let _ = mcp_drift::report::human::render(&a, true);
        let _ = mcp_drift::report::json::render(&a);
        let _ = mcp_drift::report::sarif::render(&a);
        let _ = mcp_drift::report::github::render(&a);
        let _ = mcp_drift::report::markdown::render(&a);
        let _ = mcp_drift::report::junit::render(&a, Some(mcp_drift::Severity::Warning));
    }
}

/// A 300-value enum (strings, numbers, objects, arrays) and an edited copy: values dropped, added,
/// written as equal floats, and the list reversed or rotated. Long enums take the positional and
/// shrunk-validator paths of the engine.
fn long_enum_pair() -> impl Strategy<Value = (Vec<Value>, Vec<Value>)> {
    (
        prop::collection::vec(0usize..300, 0..4),
        prop::collection::vec(0usize..50, 0..3),
        prop::collection::vec(0usize..300, 0..3),
        0usize..3,
    )
        .prop_map(|(drop, add, as_float, order)| {
            let value = |i: usize| match i % 4 {
                0 => json!(format!("s{i}")),
                1 => json!(i),
                2 => json!({"k": i}),
                _ => json!([i, "x"]),
            };
            let old: Vec<Value> = (0..300).map(value).collect();
            let mut new: Vec<Value> = (0..300)
                .filter(|i| !drop.contains(i))
                .map(|i| {
                    if i % 4 == 1 && as_float.contains(&i) {
                        json!(f64::from(u32::try_from(i).unwrap()))
                    } else {
                        value(i)
                    }
                })
                .collect();
            new.extend(add.iter().map(|a| json!(format!("n{a}"))));
            match order {
                1 => new.reverse(),
                2 => new.rotate_left(7),
                _ => {}
            }
            (old, new)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Long enums: a narrowing is reported exactly when a value was dropped, with a witness that the
    /// whole (unshrunk) schemas confirm, in plain, array-item and branch positions.
    #[test]
    fn long_enum_changes_are_exact_and_witnessed((old, new) in long_enum_pair()) {
        let wrappers: [fn(&[Value]) -> Value; 3] = [
            |e| json!({"enum": e}),
            |e| json!({"type": "array", "items": {"enum": e}}),
            |e| json!({"anyOf": [{"enum": e}, {"type": "boolean"}]}),
        ];
        for (w, wrap) in wrappers.iter().enumerate() {
            let tool = |e: &[Value]| json!({"name": "t", "inputSchema": {"type": "object", "properties": {"v": wrap(e)}, "required": ["v"]}});
            let (a, b) = (tool(&old), tool(&new));
            let analysis = mcp_drift::diff_texts(&a.to_string(), &b.to_string()).unwrap();
            for f in &analysis.findings {
                if let Some(wit) = &f.witness {
                    prop_assert!(valid(&a["inputSchema"], &wit.instance), "{}: {} not accepted", f.rule, wit.instance);
                    prop_assert!(!valid(&b["inputSchema"], &wit.instance), "{}: {} not rejected", f.rule, wit.instance);
                }
            }
            let dropped = old.iter().any(|x| !new.iter().any(|y| mcp_drift::schema::json_eq(x, y)));
            let errors = analysis.findings.iter().filter(|f| f.severity == mcp_drift::Severity::Error).count();
            if w == 0 {
                prop_assert_eq!(dropped, errors > 0, "{:?}", analysis.findings.iter().map(|f| &f.message).collect::<Vec<_>>());
                prop_assert!(analysis.findings.iter().all(|f| f.severity < mcp_drift::Severity::Error || f.witness.is_some()));
            }
        }
    }
}
