//! The decision procedure through its public API: the examples of issue #15 as regression tests, both
//! directions of each, equivalent rewrites, and a property test that re-validates every witness and
//! checks every `Compatible` against a pool of instances.

#![allow(clippy::needless_pass_by_value, reason = "cases read best as `json!` literals passed straight in")]

use mcp_drift::decide::{Limits, Verdict, decide};
use serde_json::{Value, json};

fn validator(s: &Value) -> jsonschema::Validator {
    jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(s).expect("schema compiles")
}

fn verdict(sub: &Value, sup: &Value) -> Verdict {
    decide(sub, sup, &Limits::default())
}

/// Asserts an `Incompatible` verdict whose witness both validators confirm; returns the witness.
#[track_caller]
fn incompatible(sub: Value, sup: Value) -> Value {
    match verdict(&sub, &sup) {
        Verdict::Incompatible { witness, .. } => {
            assert!(validator(&sub).is_valid(&witness), "sub rejects {witness}");
            assert!(!validator(&sup).is_valid(&witness), "sup accepts {witness}");
            witness
        }
        v => panic!("expected incompatible for {sub} ⊄ {sup}, got {v:?}"),
    }
}

#[track_caller]
fn compatible(sub: Value, sup: Value) {
    let v = verdict(&sub, &sup);
    assert_eq!(v, Verdict::Compatible, "{sub} ⊆ {sup}");
}

/// Input direction: old = sub, new = sup. Removing the constraint only widens; adding it breaks.
#[track_caller]
fn narrowing(loose: Value, strict: Value) -> Value {
    compatible(strict.clone(), loose.clone());
    incompatible(loose, strict)
}

#[test]
fn finite_old_values_are_checked_against_new_constraints() {
    let w = incompatible(json!({"enum": ["a", "bb"]}), json!({"maxLength": 1}));
    assert_eq!(w, json!("bb"));
    compatible(json!({"enum": ["a", "b"]}), json!({"maxLength": 1}));
    incompatible(json!({"const": {"foo": 1, "bar": {}}}), json!({"properties": {"bar": {"type": "string"}}}));
    compatible(json!({"const": {"foo": 1, "bar": "x"}}), json!({"properties": {"bar": {"type": "string"}}}));
}

#[test]
fn a_type_replaced_by_another_is_a_break() {
    // Output direction: sub = new (`const: true`), sup = old (`type: null`).
    let w = incompatible(json!({"const": true}), json!({"type": "null"}));
    assert_eq!(w, json!(true));
    incompatible(json!({"type": "null"}), json!({"const": true}));
    compatible(json!({"type": "boolean"}), json!({"enum": [true, false]}));
}

#[test]
fn instance_data_is_not_read_as_schema() {
    for key in ["$ref", "$id", "$anchor"] {
        let value = json!({key: "#/$defs/x"});
        let sub = json!({"enum": [value.clone()], "$defs": {"x": {"type": "string"}}});
        compatible(sub.clone(), json!({"type": "object"}));
        incompatible(sub, json!({"type": "string"}));
        compatible(json!({"const": value.clone()}), json!({"const": value.clone()}));
        let other = json!({"const": {key: "#/other"}});
        incompatible(json!({"const": value}), other);
    }
}

#[test]
fn root_unions_added_or_removed() {
    let union = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
    narrowing(union.clone(), json!({"type": "string"}));
    let one = json!({"oneOf": [{"type": "string"}, {"type": "integer"}]});
    narrowing(one, json!({"type": "integer"}));
    compatible(json!({"type": "string", "maxLength": 3}), union);
}

#[test]
fn an_enum_narrowed_inside_a_oneof_branch() {
    let old = json!({"oneOf": [{"enum": ["a", "b", "c"]}, {"type": "integer"}]});
    let new = json!({"oneOf": [{"enum": ["a", "b"]}, {"type": "integer"}]});
    assert_eq!(narrowing(old, new), json!("c"));
}

#[test]
fn property_names() {
    let w = narrowing(
        json!({"type": "object", "additionalProperties": {"type": "string"}}),
        json!({"type": "object", "additionalProperties": {"type": "string"}, "propertyNames": {"maxLength": 3}}),
    );
    assert!(w.as_object().is_some_and(|o| o.keys().any(|k| k.chars().count() > 3)), "{w}");
    compatible(
        json!({"type": "object", "properties": {"ab": {}}, "additionalProperties": false}),
        json!({"type": "object", "propertyNames": {"maxLength": 3}}),
    );
}

#[test]
fn a_changed_if() {
    let cond = |kind: &str| {
        json!({"type": "object", "if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
               "then": {"required": ["x"]}})
    };
    incompatible(cond("a"), cond("b"));
    incompatible(cond("b"), cond("a"));
    // Removing the conditional only widens.
    compatible(cond("a"), json!({"type": "object"}));
}

#[test]
fn dependent_schemas() {
    narrowing(
        json!({"type": "object"}),
        json!({"type": "object", "dependentSchemas": {"card": {"required": ["address"]}}}),
    );
    narrowing(json!({"type": "object"}), json!({"type": "object", "dependentRequired": {"card": ["address"]}}));
}

#[test]
fn unevaluated_properties() {
    let open = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let closed = json!({"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": false});
    let w = incompatible(open.clone(), closed.clone());
    assert!(w.as_object().is_some_and(|o| o.keys().any(|k| k != "a")), "{w}");
    // Removing it only widens: `sup` has no unmodelled keyword left.
    compatible(closed.clone(), open);
    compatible(closed.clone(), closed);
}

#[test]
fn unique_items() {
    let w = narrowing(
        json!({"type": "array", "items": {"type": "integer"}}),
        json!({"type": "array", "items": {"type": "integer"}, "uniqueItems": true}),
    );
    assert_eq!(w.as_array().map(Vec::len), Some(2));
}

#[test]
fn bounds_lengths_and_required() {
    narrowing(json!({"type": "string"}), json!({"type": "string", "maxLength": 5}));
    narrowing(json!({"type": "integer", "minimum": 0}), json!({"type": "integer", "minimum": 1}));
    narrowing(json!({"type": "number"}), json!({"type": "integer"}));
    narrowing(json!({"type": "integer"}), json!({"type": "integer", "multipleOf": 2}));
    compatible(json!({"type": "integer", "multipleOf": 4}), json!({"type": "integer", "multipleOf": 2}));
    compatible(json!({"type": "integer", "exclusiveMinimum": 0}), json!({"type": "integer", "minimum": 1}));
    narrowing(
        json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
    );
    narrowing(
        json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
    );
    narrowing(
        json!({"type": "array", "items": {"type": "string"}}),
        json!({"type": "array", "items": {"type": "string"}, "maxItems": 2}),
    );
    narrowing(
        json!({"type": "object", "properties": {"a": {"type": "array", "items": {"enum": [1, 2, 3]}}}}),
        json!({"type": "object", "properties": {"a": {"type": "array", "items": {"enum": [1, 2]}}}}),
    );
}

#[test]
fn equivalent_rewrites_are_compatible_both_ways() {
    let pairs = [
        (json!({"type": "string", "maxLength": 3}), json!({"allOf": [{"type": "string", "maxLength": 3}]})),
        (
            json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}, "required": ["a"]}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/name"}}, "required": ["a"],
                   "$defs": {"name": {"type": "string", "minLength": 1}}}),
        ),
        (json!({"type": ["string", "null"]}), json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
        (json!({"type": ["string", "integer"]}), json!({"oneOf": [{"type": "string"}, {"type": "integer"}]})),
    ];
    for (a, b) in pairs {
        compatible(a.clone(), b.clone());
        compatible(b, a);
    }
}

#[test]
fn recursive_schemas_are_decided_coinductively() {
    let tree = |leaf: &str| {
        json!({"$defs": {"node": {"type": "object", "properties": {
            "value": {"type": leaf}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
            "$ref": "#/$defs/node"})
    };
    compatible(tree("integer"), tree("number"));
    incompatible(tree("number"), tree("integer"));
}

#[test]
fn unguarded_cycles_and_limits_are_undecided_not_wrong() {
    let cyc = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "type": "string", "$ref": "#/$defs/a"});
    // The validator refuses or loops on this; either way no claim is made.
    let v = verdict(&json!({"type": "string"}), &cyc);
    assert!(!matches!(v, Verdict::Compatible), "{v:?}");
    let tiny = Limits { steps: 5, ..Limits::default() };
    let sub = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}});
    let sup = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}});
    assert_eq!(decide(&sub, &sup, &Limits::default()), Verdict::Compatible);
    match decide(&sub, &sup, &tiny) {
        Verdict::Undecided { keyword, reason, .. } => {
            assert_eq!(keyword, "steps");
            assert!(reason.contains("steps"), "{reason}");
        }
        v => panic!("{v:?}"),
    }
}

#[test]
fn unmodelled_sup_keywords_block_unless_identical() {
    let sub = json!({"type": "string"});
    let sup = json!({"type": "string", "x-unknown-keyword": 1, "pattern": "^a"});
    match verdict(&sub, &sup) {
        Verdict::Incompatible { .. } | Verdict::Undecided { .. } => {}
        Verdict::Compatible => panic!("an unmodelled pattern proved compatible"),
    }
    compatible(json!({"type": "string", "pattern": "^a"}), json!({"type": "string", "pattern": "^a"}));
    compatible(json!({"type": "string", "pattern": "^a", "maxLength": 2}), json!({"type": "string", "pattern": "^a"}));
}

#[test]
fn booleans_are_schemas() {
    compatible(json!(false), json!({"type": "string"}));
    compatible(json!({"type": "string"}), json!(true));
    incompatible(json!(true), json!(false));
    incompatible(json!({"type": "string"}), json!(false));
}

#[test]
fn undecided_names_the_keyword_and_where() {
    // A pattern the stub cannot compare, with no witness among the candidates.
    let v = verdict(&json!({"type": "string", "pattern": "^ab"}), &json!({"type": "string", "pattern": "^a"}));
    match v {
        Verdict::Undecided { keyword, at, reason } => {
            assert_eq!(keyword, "pattern");
            assert_eq!(at, "/pattern");
            assert!(reason.contains("sup"), "{reason}");
        }
        Verdict::Compatible => {} // once `schema::pattern` decides inclusion
        v @ Verdict::Incompatible { .. } => panic!("{v:?}"),
    }
}

mod generated {
    //! Random small schema pairs from a generator written for this test (not an independent oracle):
    //! every `Incompatible` witness is re-validated, every `Compatible` is checked against a pool of
    //! instances.
    use super::{Limits, Value, Verdict, decide, json, validator};
    use mcp_drift::decide::Cx;
    use mcp_drift::decide::include::prove;
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

    fn leaf() -> impl Strategy<Value = Value> {
        let small = || {
            prop_oneof![
                Just(json!(0)),
                Just(json!(1)),
                Just(json!(2)),
                Just(json!("a")),
                Just(json!("ab")),
                Just(json!(null)),
                Just(json!(true))
            ]
        };
        prop_oneof![
            prop::sample::select(vec!["null", "boolean", "integer", "number", "string", "array", "object"])
                .prop_map(|t| json!({"type": t})),
            prop::collection::vec(small(), 1..4).prop_map(|v| json!({"enum": v})),
            small().prop_map(|v| json!({"const": v})),
            (0i64..3).prop_map(|n| json!({"minimum": n})),
            (0i64..3).prop_map(|n| json!({"exclusiveMaximum": n})),
            (0i64..3).prop_map(|n| json!({"maximum": n})),
            (0i64..3).prop_map(|n| json!({"exclusiveMinimum": n})),
            (0u64..3).prop_map(|n| json!({"maxLength": n})),
            (1u64..3).prop_map(|n| json!({"minLength": n})),
            Just(json!({"multipleOf": 2})),
            Just(json!(true)),
            Just(json!(false)),
            Just(json!({"required": ["a"]})),
            Just(json!({"propertyNames": {"maxLength": 1}})),
            Just(json!({"dependentRequired": {"a": ["b"]}})),
            Just(json!({"uniqueItems": true})),
            (0u64..3).prop_map(|n| json!({"maxItems": n})),
            Just(json!({"type": "object", "additionalProperties": false})),
        ]
    }

    fn schema() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(3, 16, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"anyOf": v})),
                prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"oneOf": v})),
                prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"allOf": v})),
                inner.clone().prop_map(|s| json!({"not": s})),
                (inner.clone(), inner.clone()).prop_map(|(i, t)| json!({"if": i, "then": t})),
                (inner.clone(), inner.clone(), any::<bool>()).prop_map(|(a, b, closed)| {
                    json!({"type": "object", "properties": {"a": a, "b": b}, "additionalProperties": !closed})
                }),
                inner.clone().prop_map(|s| json!({"type": "array", "items": s})),
                (inner.clone(), inner).prop_map(|(a, b)| json!({"dependentSchemas": {"a": a}, "properties": {"b": b}})),
            ]
        })
    }

    /// `(sub, sup)`: unrelated, narrowed by a conjunct, or widened by a disjunct.
    fn pair() -> impl Strategy<Value = (Value, Value)> {
        prop_oneof![
            unrelated(),
            (schema(), schema()).prop_map(|(s, extra)| (json!({"allOf": [s.clone(), extra]}), s)),
            (schema(), schema()).prop_map(|(s, extra)| (s.clone(), json!({"anyOf": [s, extra]}))),
            (schema(), schema()).prop_map(|(s, extra)| (s.clone(), json!({"allOf": [s, extra]}))),
            schema().prop_map(|s| (s.clone(), json!({"$defs": {"d": s}, "$ref": "#/$defs/d"}))),
            schema().prop_map(|s| (json!({"$defs": {"d": s}, "$ref": "#/$defs/d"}), s)),
        ]
    }

    fn unrelated() -> impl Strategy<Value = (Value, Value)> {
        (schema(), schema())
    }

    fn pool() -> Vec<Value> {
        let mut p = vec![
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(1),
            json!(-1),
            json!(2),
            json!(3),
            json!(2.5),
            json!(-0.5),
            json!(""),
            json!("a"),
            json!("ab"),
            json!("abc"),
            json!([]),
            json!([1]),
            json!([1, 1]),
            json!([1, "a"]),
            json!(["a", "b"]),
            json!([null]),
            json!([[]]),
            json!({}),
        ];
        let vals = [json!(1), json!("a"), json!(null), json!(true), json!([]), json!({}), json!(2), json!("ab")];
        for v in &vals {
            p.push(json!({"a": v}));
            p.push(json!({"b": v}));
            p.push(json!({"a": v, "b": v}));
            p.push(json!({"ab": v}));
            p.push(json!({"a": 1, "b": v}));
            p.push(json!({"a": v, "b": "a"}));
            p.push(json!([v, v]));
            p.push(json!([v]));
        }
        p
    }

    fn compiles(s: &Value) -> bool {
        jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(s).is_ok()
    }

    /// `Some(true)` decided, `Some(false)` undecided; panics on a wrong verdict.
    fn judge(sub: &Value, sup: &Value, pool: &[Value]) -> Result<bool, TestCaseError> {
        let (Ok(vs), Ok(vp)) = (
            jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(sub),
            jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(sup),
        ) else {
            return Ok(false);
        };
        match decide(sub, sup, &Limits::default()) {
            Verdict::Incompatible { witness, .. } => {
                prop_assert!(vs.is_valid(&witness), "sub rejects the witness {} ({} vs {})", witness, sub, sup);
                prop_assert!(!vp.is_valid(&witness), "sup accepts the witness {} ({} vs {})", witness, sub, sup);
                Ok(true)
            }
            Verdict::Compatible => {
                for i in pool {
                    prop_assert!(
                        !vs.is_valid(i) || vp.is_valid(i),
                        "Compatible, but {} is a counterexample ({} vs {})",
                        i,
                        sub,
                        sup
                    );
                }
                Ok(true)
            }
            Verdict::Undecided { .. } => Ok(false),
        }
    }

    /// The proof alone (no witness search in front of it to mask an unsound step).
    fn proof_is_sound(sub: &Value, sup: &Value, pool: &[Value]) -> Result<(), TestCaseError> {
        let (Ok(vs), Ok(vp)) = (
            jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(sub),
            jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(sup),
        ) else {
            return Ok(());
        };
        if prove(sub, sup, &mut Cx::new(&Limits::default())).is_ok() {
            for i in pool {
                prop_assert!(
                    !vs.is_valid(i) || vp.is_valid(i),
                    "proof claims {} ⊆ {}, but {} is a counterexample",
                    sub,
                    sup,
                    i
                );
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(Config { cases: 512, ..Config::default() })]
        #[test]
        fn witnesses_hold_and_compatible_is_never_contradicted((sub, sup) in pair()) {
            let _ = validator(&json!(true));
            let pool = pool();
            judge(&sub, &sup, &pool)?;
            proof_is_sound(&sub, &sup, &pool)?;
            proof_is_sound(&sup, &sub, &pool)?;
        }
    }

    /// The decided share on this generator, with a fixed seed (printed with `--nocapture`): over all
    /// pairs, and over the unrelated pairs alone (no side contains the other verbatim).
    #[test]
    fn decided_share_on_own_generator() {
        share("all pairs", pair(), 2_000, 90);
        share("unrelated pairs", unrelated(), 1_000, 80);
    }

    fn share(what: &str, pairs: impl Strategy<Value = (Value, Value)>, n: u32, at_least: u32) {
        let mut runner =
            TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]));
        let pool = pool();
        let (mut decided, mut total) = (0u32, 0u32);
        for _ in 0..n {
            let (sub, sup) = pairs.new_tree(&mut runner).expect("value").current();
            if !compiles(&sub) || !compiles(&sup) {
                continue;
            }
            if let Ok(d) = judge(&sub, &sup, &pool) {
                total += 1;
                decided += u32::from(d);
                if !d
                    && std::env::var_os("DECIDE_SHOW").is_some()
                    && let Verdict::Undecided { keyword, at, reason } = decide(&sub, &sup, &Limits::default())
                {
                    println!("UNDECIDED {keyword} {at} {reason} :: {sub} vs {sup}");
                }
            } else {
                panic!("wrong verdict for {sub} vs {sup}");
            }
        }
        println!("{what}: decided {decided} of {total} ({:.1}%)", f64::from(decided) * 100.0 / f64::from(total));
        assert!(decided * 100 >= total * at_least, "{what}: decided {decided} of {total}");
    }
}

mod hostile {
    //! Inputs a pull-request author controls: none may panic, run long or grow large.
    use super::{Limits, Verdict, decide, json};
    use serde_json::Value;
    use std::time::{Duration, Instant};

    fn quick(sub: &Value, sup: &Value) -> Verdict {
        let t = Instant::now();
        let v = decide(sub, sup, &Limits::default());
        assert!(t.elapsed() < Duration::from_secs(30), "took {:?}", t.elapsed());
        v
    }

    fn chain(n: usize, leaf: Value) -> Value {
        let mut defs = serde_json::Map::new();
        for i in 0..n {
            defs.insert(format!("d{i}"), json!({"$ref": format!("#/$defs/d{}", i + 1)}));
        }
        defs.insert(format!("d{n}"), leaf);
        json!({"$defs": defs, "$ref": "#/$defs/d0"})
    }

    #[test]
    fn long_ref_chains_do_not_overflow() {
        let v = quick(&json!({"type": "string"}), &chain(5_000, json!({"type": "string"})));
        assert!(!matches!(v, Verdict::Incompatible { .. }), "{v:?}");
        let v = quick(&chain(5_000, json!({"type": "integer"})), &json!({"type": "string"}));
        assert!(!matches!(v, Verdict::Compatible), "{v:?}");
    }

    #[test]
    fn self_referencing_unions_stop() {
        let s = json!({"$defs": {"a": {"oneOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]}}, "$ref": "#/$defs/a"});
        let v = quick(&json!({"type": "string"}), &s);
        assert!(!matches!(v, Verdict::Compatible), "{v:?}");
        let s = json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]}}, "$ref": "#/$defs/a"});
        let _ = quick(&s, &json!({"type": "string"}));
    }

    #[test]
    fn large_enums_and_wide_unions_are_bounded() {
        let big: Vec<Value> = (0..100_000).map(|i| json!(format!("v{i}"))).collect();
        let v = quick(&json!({"enum": big}), &json!({"type": "string", "maxLength": 5}));
        assert!(matches!(v, Verdict::Incompatible { .. } | Verdict::Undecided { .. }), "{v:?}");
        let branches: Vec<Value> = (0..40).map(|i| json!({"anyOf": [{"minimum": i}, {"maxLength": i}]})).collect();
        let v = quick(&json!({"allOf": branches}), &json!({"type": "string"}));
        assert!(!matches!(v, Verdict::Compatible), "{v:?}");
    }

    #[test]
    fn validation_work_is_bounded_in_total() {
        // Every validation against `sup` walks a `$ref` diamond (2^15 paths); the candidates are many.
        let mut defs = serde_json::Map::new();
        for i in 0..15 {
            let next = format!("#/$defs/d{}", i + 1);
            defs.insert(format!("d{i}"), json!({"allOf": [{"$ref": next}, {"$ref": next}]}));
        }
        defs.insert("d15".into(), json!({"maxLength": 1000}));
        let props: serde_json::Map<String, Value> =
            (0..200).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
        let sub = json!({"type": "object", "properties": props});
        let mut sup = json!({"type": "object", "properties": props, "$defs": defs, "allOf": [{"$ref": "#/$defs/d0"}]});
        sup["properties"]["p199"] = json!({"type": "integer"});
        let v = quick(&sub, &sup);
        assert!(!matches!(v, Verdict::Compatible), "{v:?}");
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut s = json!({"type": "string"});
        for _ in 0..100 {
            s = json!({"type": "object", "properties": {"a": s}, "required": ["a"]});
        }
        let mut t = json!({"type": "string", "maxLength": 1});
        for _ in 0..100 {
            t = json!({"type": "object", "properties": {"a": t}, "required": ["a"]});
        }
        let _ = quick(&s, &t);
        let _ = quick(&t, &s);
        let _ = quick(&s, &s.clone());
    }
}

/// The project's hand-written containment pairs (`tests/containment/pairs.json`, answers known in both
/// directions; not written for this module): no wrong verdict, and the decided share (printed).
#[test]
fn hand_written_containment_pairs() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/containment/pairs.json")).expect("pairs");
    let list: Vec<Value> = serde_json::from_str(&text).expect("json");
    let (mut decided, mut total) = (0u32, 0u32);
    for p in &list {
        for (sub, sup, truth) in [(&p["a"], &p["b"], &p["a_in_b"]), (&p["b"], &p["a"], &p["b_in_a"])] {
            total += 1;
            match (verdict(sub, sup), truth.as_bool()) {
                (Verdict::Compatible, Some(true)) => decided += 1,
                (Verdict::Incompatible { witness, .. }, Some(false)) => {
                    assert!(validator(sub).is_valid(&witness) && !validator(sup).is_valid(&witness), "{}", p["name"]);
                    decided += 1;
                }
                (Verdict::Undecided { keyword, reason, .. }, _) => {
                    if std::env::var_os("DECIDE_SHOW").is_some() {
                        println!("UNDECIDED {} {keyword}: {reason}", p["name"]);
                    }
                }
                (v, t) => panic!("{}: {v:?} but the answer is {t:?}", p["name"]),
            }
        }
    }
    println!("hand-written pairs: decided {decided} of {total}");
    assert!(decided * 10 >= total * 8, "decided {decided} of {total}");
}

// Session 8: `unevaluated*`, `oneOf` as "this branch and no other", `if` split by cases. Pairs from
// the oracle's suite set (JSON-Schema-Test-Suite groups `unevaluatedProperties`, `unevaluatedItems`,
// `oneOf`, `not`), each undecided before.

#[test]
fn unevaluated_properties_count_what_allof_and_patterns_evaluate() {
    let closed = json!({"properties": {"foo": {"type": "string"}},
        "allOf": [{"patternProperties": {"^bar": {"type": "string"}}}], "unevaluatedProperties": false});
    let mut strict = closed.clone();
    strict["required"] = json!(["foo"]);
    compatible(strict.clone(), closed.clone());
    assert_eq!(incompatible(closed.clone(), strict), json!({}));
    // The same closed object written with `additionalProperties`: equivalent both ways.
    let plain = json!({"properties": {"foo": {"type": "string"}},
        "patternProperties": {"^bar": {"type": "string"}}, "additionalProperties": false});
    compatible(closed.clone(), plain.clone());
    compatible(plain, closed);
}

#[test]
fn unevaluated_properties_under_anyof_count_every_branch_that_holds() {
    let branches = json!([
        {"properties": {"bar": {"const": "bar"}}, "required": ["bar"]},
        {"properties": {"baz": {"const": "baz"}}, "required": ["baz"]}]);
    let with_foo =
        json!({"properties": {"foo": {"type": "string"}}, "anyOf": branches, "unevaluatedProperties": false});
    let without = json!({"properties": {}, "anyOf": branches, "unevaluatedProperties": false});
    compatible(without.clone(), with_foo.clone());
    incompatible(with_foo.clone(), without);
    // `{bar, baz}` holds both branches, so both names are evaluated: the closed spelling must agree.
    let spelled = json!({"properties": {"foo": {"type": "string"}, "bar": {"const": "bar"}, "baz": {"const": "baz"}},
        "anyOf": [{"required": ["bar"]}, {"required": ["baz"]}], "additionalProperties": false});
    compatible(with_foo.clone(), spelled.clone());
    // Undecided the other way: `spelled`'s conjunct "bar required, baz optional" would have to be
    // split by whether `baz` is present to fit one conjunct of `with_foo`. Never a false break.
    assert!(!matches!(verdict(&spelled, &with_foo), Verdict::Incompatible { .. }));
}

#[test]
fn unevaluated_items_follow_the_if_case_that_applies() {
    let a = json!({"prefixItems": [{"const": "foo"}], "if": {"prefixItems": [true, {"const": "bar"}]},
        "then": {"prefixItems": [true, true, {"const": "then"}]},
        "else": {"prefixItems": [true, true, true, {"const": "else"}]}, "unevaluatedItems": false});
    let mut b = a.clone();
    b["else"]["prefixItems"][2] = json!(false);
    compatible(b.clone(), a.clone());
    // The break (a three-item array in the `else` case) is found by the walk's probe, not here.
    assert_ne!(verdict(&a, &b), Verdict::Compatible);
}

#[test]
fn unevaluated_items_under_anyof_are_decided() {
    let a = json!({"unevaluatedItems": {"type": "boolean"}, "anyOf": [{"items": {"type": "string"}}, true]});
    let b = json!({"unevaluatedItems": {"type": "boolean"},
        "anyOf": [{"items": {"type": "string"}}, true, {"type": "boolean"}]});
    compatible(a.clone(), b.clone());
    compatible(b, a.clone());
    // Dropping the union leaves only the `unevaluatedItems` of every item.
    let plain = json!({"unevaluatedItems": {"type": "boolean"}});
    compatible(plain.clone(), a.clone());
    incompatible(a, plain);
}

#[test]
fn one_of_is_one_branch_and_no_other() {
    // Null, numbers, ... satisfy both branches, so this `oneOf` accepts only strings.
    let typed = json!({"type": "string", "oneOf": [{"minLength": 2}, {"maxLength": 4}]});
    let bare = json!({"oneOf": [{"minLength": 2}, {"maxLength": 4}]});
    compatible(bare.clone(), typed.clone());
    compatible(typed, bare);
    // A branch `boolean`: `true` now holds two branches (`minimum` says nothing of booleans).
    let a = json!({"oneOf": [{"type": "integer"}, {"minimum": 2}]});
    let b = json!({"oneOf": [{"type": "integer"}, {"minimum": 2}, {"type": "boolean"}]});
    compatible(b.clone(), a.clone());
    assert_eq!(incompatible(a, b), json!(true));
}

#[test]
fn a_not_of_an_empty_allof_rejects_everything() {
    let a = json!({"properties": {"foo": {"not": {}}}});
    let b = json!({"properties": {"foo": {"not": {"allOf": [{}]}}}});
    compatible(a.clone(), b.clone());
    compatible(b, a);
}

#[test]
fn additional_properties_follow_their_own_objects_patterns() {
    // `q123z` matches a pattern of the first object only; the second object closes it. Was called
    // compatible: a `sub` pattern was matched against any `sup` object's patterns.
    let sub = json!({"type": "object", "patternProperties": {"^q[0-9]{3}z$": {"type": "integer"}},
        "additionalProperties": false});
    let sup = json!({"type": "object", "allOf": [{"patternProperties": {"^q[0-9]{3}z$": true}},
        {"patternProperties": {"^w": true}, "additionalProperties": false}]});
    assert_ne!(verdict(&sub, &sup), Verdict::Compatible);
}
