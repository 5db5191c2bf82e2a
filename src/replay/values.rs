//! What a report may show of a recorded value: recorded traffic holds user data.
//!
//! Takes a recorded argument object or result; returns a small copy for the report. Promises: without
//! `show`, no string, number or boolean of the input survives (each becomes its kind, and a string its
//! length); with `show`, strings are clipped to [`MAX_STRING`] characters. Either way at most
//! [`MAX_ENTRIES`] entries per object or array and [`MAX_DEPTH`] levels are kept, and keys are clipped
//! (renderers escape everything).

use serde_json::{Map, Value};

/// Longest string shown with `--show-values`.
pub const MAX_STRING: usize = 40;

/// Entries kept per object or array.
pub const MAX_ENTRIES: usize = 20;

/// Levels kept.
pub const MAX_DEPTH: usize = 6;

/// The shown copy of `v`.
#[must_use]
pub fn shown(v: &Value, show: bool) -> Value {
    copy(v, show, 0)
}

fn copy(v: &Value, show: bool, depth: usize) -> Value {
    match v {
        Value::Null => Value::Null,
        Value::Bool(_) if !show => Value::String("<boolean>".into()),
        Value::Number(_) if !show => Value::String("<number>".into()),
        Value::String(s) if !show => {
            let n = s.chars().count();
            Value::String(format!("<string, {n} char{}>", if n == 1 { "" } else { "s" }))
        }
        Value::String(s) => Value::String(crate::text::clip(s, MAX_STRING).into_owned()),
        Value::Bool(_) | Value::Number(_) => v.clone(),
        Value::Array(items) if depth >= MAX_DEPTH => Value::String(format!("<array of {}>", items.len())),
        Value::Object(m) if depth >= MAX_DEPTH => Value::String(format!("<object of {}>", m.len())),
        Value::Array(items) => {
            let mut out: Vec<Value> = items.iter().take(MAX_ENTRIES).map(|x| copy(x, show, depth + 1)).collect();
            if items.len() > MAX_ENTRIES {
                out.push(Value::String(format!("<{} more>", items.len() - MAX_ENTRIES)));
            }
            Value::Array(out)
        }
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, x) in m.iter().take(MAX_ENTRIES) {
                out.insert(crate::text::clip(k, MAX_STRING).into_owned(), copy(x, show, depth + 1));
            }
            if m.len() > MAX_ENTRIES {
                out.insert("<more>".into(), Value::String(format!("<{} more>", m.len() - MAX_ENTRIES)));
            }
            Value::Object(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_become_kinds_unless_shown() {
        let v = json!({"token": "hunter2", "n": 42, "ok": true, "none": null, "list": ["a", 1]});
        assert_eq!(
            shown(&v, false),
            json!({"token": "<string, 7 chars>", "n": "<number>", "ok": "<boolean>", "none": null, "list": ["<string, 1 char>", "<number>"]})
        );
        assert_eq!(shown(&v, true), v);
        let long = "x".repeat(100);
        assert_eq!(shown(&json!(long), true), json!(format!("{}…", "x".repeat(MAX_STRING - 1))));
    }

    #[test]
    fn copies_are_bounded() {
        let wide: Vec<u32> = (0..100).collect();
        let out = shown(&json!(wide), true);
        assert_eq!(out.as_array().unwrap().len(), MAX_ENTRIES + 1);
        let mut deep = json!(1);
        for _ in 0..50 {
            deep = json!([deep]);
        }
        assert!(shown(&deep, true).to_string().len() < 100);
    }
}
