//! Arbitrary reference strings resolved in arbitrary documents (split at the first NUL byte: a JSON
//! document, then a reference): `$ref`, `$dynamicRef` and percent-decoding never panic, and a
//! resolved pointer names the value returned.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_drift::schema::{self, refs};

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (doc, reference) = (&data[..split], data.get(split + 1..).unwrap_or(&[]));
    let Ok(reference) = std::str::from_utf8(reference) else { return };
    let _ = refs::percent_decode(reference);
    let Ok(root) = serde_json::from_slice::<serde_json::Value>(doc) else { return };
    let _scope = refs::Scope::new([&root]);
    // From the root, and from every object of the document that holds a reference.
    let mut sites = vec![root.as_object()];
    let mut stack = vec![&root];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(map) => {
                if map.contains_key("$ref") || map.contains_key("$dynamicRef") {
                    sites.push(Some(map));
                }
                stack.extend(map.values());
            }
            serde_json::Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    for site in sites.into_iter().take(64) {
        for written in
            [Some(reference), site.and_then(|m| m.get("$ref")).and_then(|r| r.as_str())].into_iter().flatten()
        {
            if let Ok((ptr, target)) = schema::resolve(&root, site, written) {
                assert!(std::ptr::eq(root.pointer(&ptr).expect("the pointer resolves"), target));
            }
            let _ = schema::resolve_dynamic(&root, site, written);
        }
    }
    // And through a diff, where the walker, lint and witnesses follow it.
    let tool =
        |schema: &serde_json::Value| serde_json::json!({"tools": [{"name": "t", "inputSchema": schema}]}).to_string();
    let _ = mcp_drift::diff_texts(&tool(&root), &tool(&serde_json::json!({"$ref": reference})));
});
