//! Embedding: a complete instance of a whole schema with a local value placed at an instance path
//! (the path the walk recorded down to a change), the rest filled with examples.
//!
//! Takes the root schema, a path of [`Seg`]s, which side's member names to use and the local value;
//! returns the instance or nothing. Promises: bounded depth and budget, like the examples it builds on.

use serde_json::{Map, Value};

use super::example::{Cx, deref, example_at, merge_parent};
use super::{EXTRA_KEY, Seg};
use crate::compare::budget::Budget;

/// Builds a complete instance of `root` with `local` at `path`. `old_side` picks the member names.
#[must_use]
pub fn embed(root: &Value, path: &[Seg], old_side: bool, local: Value, budget: &Budget) -> Option<Value> {
    let mut cx = Cx::new(budget);
    let v = embed_at(root, root, path, (old_side, old_side), local, 0, &mut cx);
    cx.finish(v)
}

/// `sides`: which side's member names and which side's branch indices to follow. They differ when a
/// witness for a renamed member is built with its new name on the old schema.
pub(super) fn embed_at(
    schema: &Value,
    root: &Value,
    path: &[Seg],
    sides: (bool, bool),
    local: Value,
    depth: usize,
    cx: &mut Cx<'_>,
) -> Option<Value> {
    let (old_side, old_branches) = sides;
    let Some((seg, rest)) = path.split_first() else { return Some(local) };
    if depth > 64 || !cx.budget.step() {
        return None;
    }
    let schema = deref(schema, root);
    let map = schema.as_object();
    let get = |k: &str| map.and_then(|m| m.get(k));
    match seg {
        Seg::Key { .. } | Seg::Extra => {
            let (key, child) = match seg {
                Seg::Key { old, new } => {
                    let k = if old_side { old } else { new };
                    (k.clone(), get("properties").and_then(|p| p.get(k)).or_else(|| get("additionalProperties")))
                }
                _ => (EXTRA_KEY.to_owned(), get("additionalProperties")),
            };
            let mut base = match example_at(schema, root, depth, cx) {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            let value = embed_at(child.unwrap_or(&Value::Bool(true)), root, rest, sides, local, depth + 1, cx)?;
            base.insert(key, value);
            Some(Value::Object(base))
        }
        Seg::Index(i) => {
            let child =
                get("prefixItems").and_then(|p| p.get(*i)).or_else(|| get("items")).unwrap_or(&Value::Bool(true));
            let mut items = match example_at(schema, root, depth, cx) {
                Some(Value::Array(a)) => a,
                _ => Vec::new(),
            };
            while items.len() <= *i {
                let filler = get("prefixItems").and_then(|p| p.get(items.len())).unwrap_or(child);
                items.push(example_at(filler, root, depth + 1, cx).unwrap_or(Value::Null));
            }
            items[*i] = embed_at(child, root, rest, sides, local, depth + 1, cx)?;
            Some(Value::Array(items))
        }
        Seg::Branch { keyword, old, new } => {
            let index = if old_branches { *old } else { *new };
            // The sides may use different keywords, and a plain schema is a list of one alternative.
            let list = [*keyword, "anyOf", "oneOf", "allOf"].into_iter().find_map(|k| get(k).and_then(Value::as_array));
            let Some(list) = list else {
                return embed_at(schema, root, rest, sides, local, depth + 1, cx);
            };
            let branch = list.get(index)?;
            let inner = embed_at(branch, root, rest, sides, local, depth + 1, cx)?;
            Some(match (inner, map) {
                (Value::Object(o), Some(m)) => merge_parent(Value::Object(o), m, root, depth, cx),
                (v, _) => v,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn embeds_along_a_path() {
        let root = json!({"type": "object", "required": ["q"], "properties": {"q": {"type": "string"}, "filter": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}}});
        let path = [
            Seg::Key { old: "filter".into(), new: "filter".into() },
            Seg::Key { old: "tags".into(), new: "tags".into() },
            Seg::Index(0),
        ];
        let v = embed(&root, &path, true, json!(7), &Budget::default()).unwrap();
        assert_eq!(v, json!({"q": "example", "filter": {"tags": [7]}}));
    }
}
