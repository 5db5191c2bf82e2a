//! Where a parameter's `default` is compared, so that one change of a default is one finding.
//!
//! A default belongs to the parameter, wherever the generator wrote it: next to an `anyOf` or inside
//! one of its branches (`{"default": 30, "anyOf": [...]}` vs `{"anyOf": [{"type": "integer",
//! "default": 30}, {"type": "null"}]}`). So defaults are compared once, at the schema that holds the
//! alternatives, using the default of the schema or else of its first branch that has one; the walk of
//! a branch pair does not compare them again. A `default` of `null` and no `default` mean the same to a
//! caller that omits the parameter (zod 4 writes one where zod 3 wrote the other).

use serde_json::{Map, Value};

use crate::schema::json_eq;

/// Whether a pointer names a branch of an `anyOf`/`oneOf` (`.../anyOf/1`).
pub(super) fn is_branch(ptr: &str) -> bool {
    let mut it = ptr.rsplit('/');
    let last = it.next().unwrap_or("");
    !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()) && matches!(it.next(), Some("anyOf" | "oneOf"))
}

/// The default of a schema and its pointer: its own, or else that of the first `anyOf`/`oneOf` branch
/// that states one.
pub(super) fn effective<'v>(map: &'v Map<String, Value>, ptr: &str) -> Option<(&'v Value, String)> {
    if let Some(d) = map.get("default") {
        return Some((d, format!("{ptr}/default")));
    }
    ["anyOf", "oneOf"].into_iter().find_map(|k| {
        map.get(k)?
            .as_array()?
            .iter()
            .enumerate()
            .find_map(|(i, b)| b.get("default").map(|d| (d, format!("{ptr}/{k}/{i}/default"))))
    })
}

/// Whether two defaults mean the same to a caller that omits the parameter.
pub(super) fn same(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => json_eq(x, y),
        (Some(x), None) | (None, Some(x)) => x.is_null(),
        (None, None) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn branches_and_effective_defaults() {
        assert!(is_branch("/inputSchema/properties/a/anyOf/1"));
        assert!(!is_branch("/inputSchema/properties/anyOf"));
        assert!(!is_branch("/inputSchema/properties/a/items/1"));
        let v = json!({"anyOf": [{"type": "null"}, {"type": "integer", "default": 30}]});
        let (d, p) = effective(v.as_object().unwrap(), "/p").unwrap();
        assert_eq!((d, p.as_str()), (&json!(30), "/p/anyOf/1/default"));
        assert!(same(Some(&json!(null)), None));
        assert!(!same(Some(&json!(30)), None));
        assert!(same(Some(&json!(1.0)), Some(&json!(1))));
    }
}
