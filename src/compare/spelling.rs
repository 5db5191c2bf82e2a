//! Spellings an SDK regeneration changes without changing what a schema means (zod 3 -> 4): records
//! that spell out `propertyNames: {"type": "string"}`, and a parameter whose description moved: from
//! the `anyOf` wrapper into its one non-null branch, behind a `$ref` into a `$defs` entry, or into an
//! `allOf` member (see [`described`]).

use serde_json::Value;

use crate::schema;

/// Schema objects [`described`] visits at most per call (references and `allOf` members).
const DESCRIBED_VISITS: usize = 64;

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

/// The description a schema gives the instance it validates, wherever a rewrite wrote it, with the
/// pointer of that text (`ptr` is the schema's own pointer in the tool, `base` the pointer of the
/// document `root`, such as `/inputSchema`): the schema's own `description`; else, through a `$ref`,
/// what the referenced schema says; else what the one `allOf` member that describes it says (several
/// members with different texts: none); else the one non-null branch's of an `anyOf`/`oneOf`.
/// The nearest text wins, as for a reader: a `$ref` beside a `description` is described by that text.
/// Bounded by [`DESCRIBED_VISITS`] schema objects; a reference that does not resolve describes nothing.
pub(super) fn described<'v>(root: &'v Value, schema: &'v Value, ptr: &str, base: &str) -> Option<(&'v str, String)> {
    let mut visits = 0;
    described_at(root, schema, ptr, base, &mut visits)
}

fn described_at<'v>(
    root: &'v Value,
    schema: &'v Value,
    ptr: &str,
    base: &str,
    visits: &mut usize,
) -> Option<(&'v str, String)> {
    *visits += 1;
    if *visits > DESCRIBED_VISITS {
        return None;
    }
    let map = schema.as_object()?;
    if let Some(d) = map.get("description") {
        return d.as_str().map(|d| (d, format!("{ptr}/description")));
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        let (at, target) = schema::resolve(root, Some(map), reference).ok()?;
        return described_at(root, target, &format!("{base}{at}"), base, visits);
    }
    if let Some(Value::Array(members)) = map.get("allOf") {
        let mut found: Option<(&str, String)> = None;
        for (i, m) in members.iter().enumerate() {
            if let Some((text, at)) = described_at(root, m, &format!("{ptr}/allOf/{i}"), base, visits) {
                match &found {
                    None => found = Some((text, at)),
                    Some((first, _)) if *first == text => {}
                    // Members that say different things: no one text describes the instance.
                    Some(_) => return None,
                }
            }
        }
        return found;
    }
    let (keyword, branches) =
        ["anyOf", "oneOf"].into_iter().find_map(|k| map.get(k)?.as_array().map(|list| (k, list)))?;
    let mut real = branches.iter().enumerate().filter(|(_, b)| b.get("type").is_none_or(|t| t != "null"));
    match (real.next(), real.next()) {
        (Some((i, only)), None) => described_at(root, only, &format!("{ptr}/{keyword}/{i}"), base, visits),
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
    fn described_through_references_and_all_of() {
        let root = json!({
            "$defs": {"Id": {"type": "string", "description": "An identifier."}, "Text": {"type": "string"}},
            "properties": {
                "a": {"$ref": "#/$defs/Id"},
                "b": {"$ref": "#/$defs/Id", "description": "The customer to bill."},
                "c": {"allOf": [{"$ref": "#/$defs/Text"}, {"description": "Free text."}]},
                "d": {"allOf": [{"description": "One."}, {"description": "Two."}]},
                "e": {"anyOf": [{"$ref": "#/$defs/Id"}, {"type": "null"}]},
                "f": {"$ref": "#/properties/f"}
            }
        });
        let at = |name: &str| {
            let ptr = format!("/inputSchema/properties/{name}");
            described(&root, &root["properties"][name], &ptr, "/inputSchema").map(|(t, p)| (t.to_owned(), p))
        };
        assert_eq!(at("a"), Some(("An identifier.".into(), "/inputSchema/$defs/Id/description".into())));
        assert_eq!(at("b"), Some(("The customer to bill.".into(), "/inputSchema/properties/b/description".into())));
        assert_eq!(at("c"), Some(("Free text.".into(), "/inputSchema/properties/c/allOf/1/description".into())));
        assert_eq!(at("d"), None);
        assert_eq!(at("e"), Some(("An identifier.".into(), "/inputSchema/$defs/Id/description".into())));
        // A reference to itself ends, describing nothing.
        assert_eq!(at("f"), None);
    }

    #[test]
    fn description_of_a_nullable_wrapper() {
        let v = json!({"anyOf": [{"type": "string", "description": "The region."}, {"type": "null"}]});
        assert_eq!(described(&v, &v, "", "").map(|d| d.0), Some("The region."));
        let v = json!({"anyOf": [{"type": "string", "description": "A"}, {"type": "integer"}]});
        assert_eq!(described(&v, &v, "", ""), None);
    }
}
