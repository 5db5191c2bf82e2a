//! `schema-dialect-changed`: a change of `$schema` matters only where the schema uses a keyword whose
//! meaning differs between the two dialects.
//!
//! A schema without `$schema` is read as 2020-12 (the MCP default). Dialects group by what their
//! keywords mean: draft-04, draft-06/07 (and draft-03 read as 07), 2019-09 and 2020-12. An SDK upgrade
//! that drops `$schema: draft-07` from schemas that mean the same in 2020-12 (zod 3 -> 4) is silent;
//! one that keeps array-form `items`, `additionalItems`, `dependencies`, `$recursiveRef`, a `$ref`
//! beside assertions, a reference into `definitions`/`$defs`, or a boolean `exclusiveMinimum` is
//! reported with the keyword and where it is. An unrecognised `$schema` URI is always reported: what
//! its keywords mean is unknown.

use serde_json::{Map, Value};

use crate::load::span::escape_token;

/// What a dialect's keywords mean, for the keywords that differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dialect {
    Draft4,
    Draft7,
    Draft2019,
    Draft2020,
    /// A meta-schema this analysis does not know.
    Unknown,
}

impl Dialect {
    /// The dialect a `$schema` value names; `None` (no `$schema`) is 2020-12.
    pub(super) fn of(uri: Option<&str>) -> Dialect {
        let Some(uri) = uri else { return Dialect::Draft2020 };
        let u = uri.trim().trim_end_matches('#').trim_end_matches('/').to_ascii_lowercase();
        let u = u.strip_prefix("https://").or_else(|| u.strip_prefix("http://")).unwrap_or(&u);
        match u {
            "json-schema.org/draft-04/schema" => Dialect::Draft4,
            "json-schema.org/draft-03/schema"
            | "json-schema.org/draft-06/schema"
            | "json-schema.org/draft-07/schema"
            | "json-schema.org/schema" => Dialect::Draft7,
            "json-schema.org/draft/2019-09/schema" => Dialect::Draft2019,
            "json-schema.org/draft/2020-12/schema" => Dialect::Draft2020,
            _ => Dialect::Unknown,
        }
    }

    fn legacy(self) -> bool {
        matches!(self, Dialect::Draft4 | Dialect::Draft7)
    }
}

/// One use of a keyword whose meaning differs between two dialects: what it is and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Use {
    pub what: &'static str,
    pub pointer: String,
}

/// Whether a keyword use means something else under dialect `a` than under `b`. Each use changed
/// meaning at one boundary between drafts: it differs when the two dialects fall on either side of it.
fn differs(what: &str, a: Dialect, b: Dialect) -> bool {
    if a == b {
        return false;
    }
    let side = |d: Dialect| match what {
        // Tuples up to 2019-09 (`prefixItems` since 2020-12, which ignores `additionalItems`), and
        // the 2020-12 dynamic references.
        "`items` in array form" | "`additionalItems`" | "`prefixItems`" | "`$dynamicRef`" | "`$dynamicAnchor`" => {
            d == Dialect::Draft2020
        }
        // Recursive references exist in 2019-09 only.
        "`$recursiveRef`" | "`$recursiveAnchor`" => d == Dialect::Draft2019,
        // Draft-04's boolean `exclusiveMinimum`, and keywords draft-04 does not have.
        "boolean `exclusiveMinimum`/`exclusiveMaximum`"
        | "`propertyNames`"
        | "`const`"
        | "`contains`"
        | "`if`/`then`/`else`" => d == Dialect::Draft4,
        // Everything else changed in 2019-09: `dependencies` split into `dependentRequired` and
        // `dependentSchemas`, keywords beside `$ref` apply instead of being ignored, `definitions`
        // became `$defs`, and `unevaluated*`, `minContains`/`maxContains` and `$anchor` appeared.
        _ => d.legacy(),
    };
    side(a) != side(b)
}

/// Subschema-holding keywords whose values are maps of schemas.
const SCHEMA_MAPS: &[&str] = &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
/// Keywords whose values are arrays of schemas.
const SCHEMA_LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose values are one schema.
const SCHEMA_ONE: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "contains",
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "items",
];
/// Keywords that only annotate: harmless beside `$ref` in any dialect.
const NOTES: &[&str] =
    &["description", "title", "examples", "default", "deprecated", "readOnly", "writeOnly", "$comment"];

/// How many schema objects are looked at, at most (then the change is reported, to be safe).
const MAX_NODES: usize = 100_000;

/// The uses, in `schema`, of keywords whose meaning differs between dialects, in document order.
/// `None` when the schema is too large to look at completely.
fn uses(schema: &Value, base: &str) -> Option<Vec<Use>> {
    let mut out = Vec::new();
    let mut stack = vec![(schema, base.to_owned())];
    let mut seen = 0usize;
    while let Some((v, ptr)) = stack.pop() {
        seen += 1;
        if seen > MAX_NODES {
            return None;
        }
        let Some(map) = v.as_object() else { continue };
        keyword_uses(map, &ptr, &mut out);
        let mut children = Vec::new();
        for (k, child) in map {
            let at = format!("{ptr}/{}", escape_token(k));
            if SCHEMA_MAPS.contains(&k.as_str()) || k == "dependencies" {
                if let Some(m) = child.as_object() {
                    children.extend(m.iter().map(|(name, s)| (s, format!("{at}/{}", escape_token(name)))));
                }
            } else if SCHEMA_LISTS.contains(&k.as_str()) || (k == "items" && child.is_array()) {
                if let Some(list) = child.as_array() {
                    children.extend(list.iter().enumerate().map(|(i, s)| (s, format!("{at}/{i}"))));
                }
            } else if SCHEMA_ONE.contains(&k.as_str()) {
                children.push((child, at));
            }
        }
        // Document order: the stack pops the last pushed first.
        stack.extend(children.into_iter().rev());
    }
    Some(out)
}

fn keyword_uses(map: &Map<String, Value>, ptr: &str, out: &mut Vec<Use>) {
    let mut add = |what: &'static str, key: &str| {
        out.push(Use { what, pointer: format!("{ptr}/{}", escape_token(key)) });
    };
    for (k, v) in map {
        match k.as_str() {
            "items" if v.is_array() => add("`items` in array form", k),
            "additionalItems" => add("`additionalItems`", k),
            "prefixItems" => add("`prefixItems`", k),
            "dependencies" => add("`dependencies`", k),
            "dependentRequired" => add("`dependentRequired`", k),
            "dependentSchemas" => add("`dependentSchemas`", k),
            "$recursiveRef" => add("`$recursiveRef`", k),
            "$recursiveAnchor" => add("`$recursiveAnchor`", k),
            "$dynamicRef" => add("`$dynamicRef`", k),
            "$dynamicAnchor" => add("`$dynamicAnchor`", k),
            "unevaluatedProperties" => add("`unevaluatedProperties`", k),
            "unevaluatedItems" => add("`unevaluatedItems`", k),
            "minContains" => add("`minContains`", k),
            "maxContains" => add("`maxContains`", k),
            "$anchor" => add("`$anchor`", k),
            "propertyNames" => add("`propertyNames`", k),
            "const" => add("`const`", k),
            "contains" => add("`contains`", k),
            "if" => add("`if`/`then`/`else`", k),
            "exclusiveMinimum" | "exclusiveMaximum" if v.is_boolean() => {
                add("boolean `exclusiveMinimum`/`exclusiveMaximum`", k);
            }
            "$ref" => {
                let target = v.as_str().unwrap_or("");
                if target.starts_with("#/definitions/") {
                    add("a reference into `definitions`", k);
                } else if target.starts_with("#/$defs/") {
                    add("a reference into `$defs`", k);
                }
                if map.keys().any(|s| s != "$ref" && !NOTES.contains(&s.as_str())) {
                    add("keywords beside `$ref`", k);
                }
            }
            _ => {}
        }
    }
}

/// Why a change of dialect from `old` to `new` matters to the schemas `old_schema` and `new_schema`:
/// the keyword uses whose meaning differs, or one entry saying the dialect is unknown. Empty when the
/// schemas mean the same under both dialects.
#[must_use]
pub fn why_it_matters(
    old: Option<&str>,
    new: Option<&str>,
    old_schema: &Value,
    new_schema: &Value,
    base: &str,
) -> Vec<Use> {
    let (a, b) = (Dialect::of(old), Dialect::of(new));
    if a == b {
        return Vec::new();
    }
    if a == Dialect::Unknown || b == Dialect::Unknown {
        return vec![Use { what: "an unrecognised meta-schema", pointer: format!("{base}/$schema") }];
    }
    let (Some(mut u), Some(un)) = (uses(old_schema, base), uses(new_schema, base)) else {
        return vec![Use { what: "a schema too large to check keyword by keyword", pointer: base.to_owned() }];
    };
    for x in un {
        if !u.contains(&x) {
            u.push(x);
        }
    }
    u.retain(|x| differs(x.what, a, b));
    u
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const D7: Option<&str> = Some("http://json-schema.org/draft-07/schema#");

    fn whats(old: Option<&str>, new: Option<&str>, s: &Value) -> Vec<&'static str> {
        why_it_matters(old, new, s, s, "/inputSchema").into_iter().map(|u| u.what).collect()
    }

    #[test]
    fn dialects_by_uri() {
        assert_eq!(Dialect::of(D7), Dialect::Draft7);
        assert_eq!(Dialect::of(Some("https://json-schema.org/draft/2020-12/schema")), Dialect::Draft2020);
        assert_eq!(Dialect::of(None), Dialect::Draft2020);
        assert_eq!(Dialect::of(Some("http://json-schema.org/draft-04/schema#")), Dialect::Draft4);
        assert_eq!(Dialect::of(Some("https://example.com/my-meta")), Dialect::Unknown);
    }

    #[test]
    fn keywords_that_mean_the_same_are_silent() {
        // What zod 3 wrote under draft-07: all of it means the same in 2020-12.
        let s = json!({"type": "object", "properties": {
            "q": {"type": "string", "minLength": 1},
            "tags": {"type": "array", "items": {"type": "string"}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}, "propertyNames": {"minLength": 1}},
            "n": {"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "null"}]},
            "items": {"type": "string", "const": "x"}
        }, "required": ["q"], "additionalProperties": false});
        assert!(whats(D7, None, &s).is_empty());
        assert!(whats(None, D7, &s).is_empty());
    }

    #[test]
    fn keywords_that_differ_are_named() {
        let s = json!({"type": "object", "properties": {
            "pair": {"type": "array", "items": [{"type": "string"}, {"type": "number"}], "additionalItems": false},
            "node": {"$ref": "#/definitions/node", "maxLength": 3}
        }, "dependencies": {"a": ["b"]}, "definitions": {"node": {"type": "string"}}});
        let mut found = whats(D7, None, &s);
        found.sort_unstable();
        let expected = [
            "`additionalItems`",
            "`dependencies`",
            "`items` in array form",
            "a reference into `definitions`",
            "keywords beside `$ref`",
        ];
        assert_eq!(found, expected);
        // The same keywords between draft-06 and draft-07 mean the same.
        assert!(whats(D7, Some("http://json-schema.org/draft-06/schema#"), &s).is_empty());
        assert_eq!(whats(D7, Some("https://example.com/meta"), &s), ["an unrecognised meta-schema"]);
        let s = json!({"$recursiveAnchor": true, "properties": {"next": {"$recursiveRef": "#"}}});
        assert_eq!(
            whats(Some("https://json-schema.org/draft/2019-09/schema"), None, &s),
            ["`$recursiveAnchor`", "`$recursiveRef`"]
        );
        let s = json!({"properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}});
        assert_eq!(
            whats(Some("http://json-schema.org/draft-04/schema#"), None, &s),
            ["boolean `exclusiveMinimum`/`exclusiveMaximum`"]
        );
    }

    #[test]
    fn property_names_are_not_keywords() {
        let s = json!({"properties": {"dependencies": {"type": "string"}, "additionalItems": {"type": "array", "items": {}}}});
        assert!(whats(D7, None, &s).is_empty());
    }
}
