//! Finite domains, decided exactly.
//!
//! Takes the `sub` document; when the widened normal form of its root has finitely many instances
//! (every disjunct has an `enum`/`const`, or only the types `null`/`boolean`; `false` has none), returns
//! the exact verdict by validating each candidate with both documents' validators: `Compatible` when
//! `sup` accepts every candidate `sub` accepts, else the first rejected one as the witness. `None` when
//! the domain is not finite or larger than the candidate budget. The candidates are a superset of the
//! instances of `sub` (the normal form only widens on that side), so the answer is exact.
//! `enum`/`const` values are data: their content is never read as a schema.

use serde_json::Value;

use super::nf::{S, Side, dnf};
use super::{Block, Cx, Judge, MAX_CANDIDATES, Verdict};
use crate::schema::{TypeSet, canonical_key};

static NULL: Value = Value::Null;
static TRUE: Value = Value::Bool(true);
static FALSE: Value = Value::Bool(false);

/// The candidates of a finite domain, or `None` when some disjunct is not finite.
///
/// # Errors
/// A [`Block`] from the normal form.
pub fn domain<'a>(root: &'a Value, nodes: &[S<'a>], side: Side, cx: &mut Cx) -> Result<Option<Vec<&'a Value>>, Block> {
    let disjuncts = dnf(root, nodes, side, cx)?;
    let mut out: Vec<&'a Value> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for c in &disjuncts {
        let vals: Vec<&'a Value> = match &c.values {
            Some(v) => v.clone(),
            None if TypeSet::NULL.union(TypeSet::BOOLEAN).contains(c.types) => vec![&NULL, &TRUE, &FALSE],
            None => return Ok(None),
        };
        for v in vals {
            if c.types.admits(v)
                && !c.excluded.iter().any(|x| crate::schema::json_eq(x, v))
                && seen.insert(canonical_key(v))
            {
                out.push(v);
                if out.len() > MAX_CANDIDATES {
                    return Ok(None);
                }
            }
        }
    }
    Ok(Some(out))
}

/// The exact verdict for a finite `sub`, or `None` (not finite, or a candidate could not be validated).
///
/// # Errors
/// A [`Block`] from the normal form.
pub fn decide(sub: &Value, judge: &mut Judge<'_>, cx: &mut Cx) -> Result<Option<Verdict>, Block> {
    let Some(values) = domain(sub, &[S::new(sub, String::new())], Side::Sub, cx)? else { return Ok(None) };
    let limits = cx.limits.clone();
    for v in values {
        match judge.both(v, &limits) {
            Some(false) => return Ok(judge.check(v, &limits)),
            None if judge.too_large => return Ok(None),
            Some(true) | None => {}
        }
    }
    Ok(Some(Verdict::Compatible))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::Limits;
    use serde_json::json;

    fn run(sub: &Value, sup: &Value) -> Option<Verdict> {
        let mut judge = Judge::new(sub, sup).expect("compiles");
        finite::decide(sub, &mut judge, &mut Cx::new(&Limits::default())).expect("not blocked")
    }

    use crate::decide::finite;

    #[test]
    fn only_finite_domains_are_decided_here() {
        assert_eq!(run(&json!({"type": "string"}), &json!({"maxLength": 1})), None);
        assert_eq!(
            run(&json!({"type": ["null", "boolean"]}), &json!({"not": {"type": "string"}})),
            Some(Verdict::Compatible)
        );
        assert_eq!(run(&json!(false), &json!(false)), Some(Verdict::Compatible));
    }

    #[test]
    fn each_value_is_checked_and_values_the_sub_rejects_are_skipped() {
        // "bb" is in the enum but `sub` itself rejects it: not a witness.
        let sub = json!({"enum": ["a", "bb"], "maxLength": 1});
        assert_eq!(run(&sub, &json!({"maxLength": 1})), Some(Verdict::Compatible));
        let Some(Verdict::Incompatible { witness, instance_at, schema_at, .. }) =
            run(&json!({"enum": [1, {"a": "x"}, {"a": 2}]}), &json!({"properties": {"a": {"type": "string"}}}))
        else {
            panic!("expected a witness")
        };
        assert_eq!((witness, instance_at.as_str(), schema_at.as_str()), (json!({"a": 2}), "/a", "/properties/a/type"));
    }

    #[test]
    fn booleans_and_null_are_finite() {
        let Some(Verdict::Incompatible { witness, .. }) = run(&json!({"type": "boolean"}), &json!({"const": true}))
        else {
            panic!("expected a witness")
        };
        assert_eq!(witness, json!(false));
    }
}
