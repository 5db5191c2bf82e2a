//! Spellings an SDK regeneration changes without changing what a schema means (zod 3 -> 4): records
//! that spell out `propertyNames: {"type": "string"}`, and a nullable parameter whose description moved
//! from the `anyOf` wrapper into its one non-null branch.

use serde_json::{Map, Value};

/// A `propertyNames` schema that every property name satisfies (names are always strings), or none.
pub(super) fn accepts_every_name(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Bool(true)) => true,
        Some(Value::Object(m)) => m.iter().all(|(k, v)| match k.as_str() {
            "type" => v == "string" || v.as_array().is_some_and(|a| a.iter().any(|t| t == "string")),
            "description" | "title" | "$comment" => true,
            _ => false,
        }),
        Some(_) => false,
    }
}

/// The description of a schema: its own, or else that of the only branch of its `anyOf`/`oneOf` that
/// is not `{"type": "null"}`.
pub(super) fn description(map: &Map<String, Value>) -> Option<&str> {
    if let Some(d) = map.get("description") {
        return d.as_str();
    }
    let branches = ["anyOf", "oneOf"].into_iter().find_map(|k| map.get(k)?.as_array())?;
    let mut real = branches.iter().filter(|b| b.get("type").is_none_or(|t| t != "null"));
    match (real.next(), real.next()) {
        (Some(only), None) => only.get("description").and_then(Value::as_str),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn trivial_property_names() {
        assert!(accepts_every_name(None));
        assert!(accepts_every_name(Some(&json!({"type": "string"}))));
        assert!(accepts_every_name(Some(&json!({}))));
        assert!(!accepts_every_name(Some(&json!({"type": "string", "pattern": "^a"}))));
        assert!(!accepts_every_name(Some(&json!({"enum": ["a"]}))));
    }

    #[test]
    fn description_of_a_nullable_wrapper() {
        let v = json!({"anyOf": [{"type": "string", "description": "The region."}, {"type": "null"}]});
        assert_eq!(description(v.as_object().unwrap()), Some("The region."));
        let v = json!({"anyOf": [{"type": "string", "description": "A"}, {"type": "integer"}]});
        assert_eq!(description(v.as_object().unwrap()), None);
    }
}
