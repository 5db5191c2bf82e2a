//! What a finding accepted: a short digest of the old and new value at its pointers, so that a baseline
//! entry accepts the change it recorded and not a later, different one at the same place. The digest
//! is of RFC 8785 canonical JSON: reformatting a snapshot (key order, whitespace, `1.0` for `1`) keeps it.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::hex;
use crate::compare::{Change, ChangeKind, SchemaChange};
use crate::load::Tool;

/// The evidence of a change: the values at its old and new pointers, narrowed to what changed. A side
/// whose pointer contains the other's (the schema a property left or joined) is looked at where the
/// other's points, and a change of `additionalProperties` at that keyword: so an unrelated edit
/// elsewhere in the same schema keeps an accepted change accepted. An enum change is its removed and
/// added values (not the whole lists: a million-value enum is not hashed twice), a renamed tool its two
/// names. A tool added or removed has none: its place says it all, and its text is never parsed.
pub(super) fn of_change(change: &Change, old: Option<&Tool>, new: Option<&Tool>) -> Option<String> {
    match &change.kind {
        ChangeKind::ToolAdded | ChangeKind::ToolRemoved { .. } => return None,
        ChangeKind::ToolRenamed { from } => {
            return Some(evidence(Some(&Value::from(from.as_str())), Some(&Value::from(change.tool.as_str()))));
        }
        ChangeKind::Schema { change: SchemaChange::Enum { removed, added, introduced, dropped }, .. } => {
            let removed = Value::from(vec![Value::from(removed.clone()), Value::from(*dropped)]);
            let added = Value::from(vec![Value::from(added.clone()), Value::from(*introduced)]);
            return Some(evidence(Some(&removed), Some(&added)));
        }
        _ => {}
    }
    let (mut o, mut n) = (change.old_ptr.clone(), change.new_ptr.clone());
    if let (Some(a), Some(b)) = (&o, &n) {
        if below(b, a) {
            o.clone_from(&n);
        } else if below(a, b) {
            n.clone_from(&o);
        }
    }
    if let ChangeKind::Schema { change: SchemaChange::AdditionalProperties { .. }, .. } = &change.kind {
        for p in [&mut o, &mut n].into_iter().flatten() {
            p.push_str("/additionalProperties");
        }
    }
    Some(evidence(value_at(old, o.as_deref()), value_at(new, n.as_deref())))
}

/// Whether `pointer` lies strictly below `prefix`.
fn below(pointer: &str, prefix: &str) -> bool {
    pointer.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('/'))
}

/// The value at `pointer` inside `tool`, when both exist.
fn value_at<'t>(tool: Option<&'t Tool>, pointer: Option<&str>) -> Option<&'t Value> {
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

    #[test]
    fn below_is_by_whole_tokens() {
        assert!(below("/inputSchema/properties/a", "/inputSchema"));
        assert!(below("/a/b", ""));
        assert!(!below("/inputSchema", "/inputSchema"));
        assert!(!below("/inputSchemas/x", "/inputSchema"));
    }
}
