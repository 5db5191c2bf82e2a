//! What a finding accepted: a short digest of the old and new value at its pointers, so that a baseline
//! entry accepts the change it recorded and not a later, different one at the same place. The digest
//! is of RFC 8785 canonical JSON: reformatting a snapshot (key order, whitespace, `1.0` for `1`) keeps it.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::hex;
use crate::load::Tool;

/// The value at `pointer` inside `tool`, when both exist.
pub(super) fn value_at<'t>(tool: Option<&'t Tool>, pointer: Option<&str>) -> Option<&'t Value> {
    tool.zip(pointer).and_then(|(t, p)| t.value().pointer(p))
}

/// A digest of what changed: the old and the new value (each RFC 8785 canonical JSON, so key order and
/// whitespace do not count; an absent value is distinct from every value), hashed together.
#[must_use]
pub fn evidence(old: Option<&Value>, new: Option<&Value>) -> String {
    let mut h = Sha256::new();
    for side in [old, new] {
        match side.map(serde_jcs::to_string) {
            Some(Ok(text)) => {
                h.update([1]);
                h.update(text.as_bytes());
            }
            // Absent, or (never for parsed JSON) not canonicalizable.
            _ => h.update([0]),
        }
        h.update([0xff]);
    }
    hex(&h.finalize()[..8])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn evidence_ignores_formatting_and_sees_every_change() {
        let a = parsed(r#"{"type": "string", "enum": ["eu", "us"], "maximum": 1.0}"#);
        let b = parsed("{\n  \"maximum\": 1,\n  \"enum\": [\"eu\",\"us\"],\n  \"type\":\"string\"\n}");
        let c = parsed(r#"{"type": "string", "enum": ["us", "eu"], "maximum": 1}"#);
        assert_eq!(evidence(None, Some(&a)), evidence(None, Some(&b)));
        assert_ne!(evidence(None, Some(&a)), evidence(None, Some(&c)), "enum order is part of the value");
        assert_ne!(evidence(None, Some(&a)), evidence(Some(&a), None), "added is not removed");
        assert_ne!(evidence(Some(&a), Some(&a)), evidence(None, Some(&a)));
        let one = parsed("1");
        let five = parsed("5");
        assert_ne!(evidence(None, Some(&one)), evidence(None, Some(&five)));
        assert_ne!(evidence(None, Some(&one)), evidence(Some(&one), None));
        assert_eq!(evidence(None, Some(&one)).len(), 16);
    }
}
