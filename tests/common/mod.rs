//! Shared by the containment tests: what the engine answers for one pair of schemas.

use mcp_drift::catalog::{RuleDirection, RuleId};
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Yes,
    No,
    Unknown,
}

/// What the engine says about `old ⊆ new` (input) or `new ⊆ old` (output).
pub fn verdict(old: &Value, new: &Value, input: bool) -> Verdict {
    let wrap = |s: &Value| {
        if input {
            // Definitions move to the document root, where `#/$defs/..` points.
            let mut s = s.clone();
            let mut root = json!({"type": "object", "required": ["v"]});
            for key in ["$defs", "definitions"] {
                if let Some(defs) = s.as_object_mut().and_then(|m| m.remove(key)) {
                    root[key] = defs;
                }
            }
            root["properties"] = json!({"v": s});
            json!({"name": "t", "inputSchema": root})
        } else {
            json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": s})
        }
    };
    let analysis = mcp_drift::diff_texts(&wrap(old).to_string(), &wrap(new).to_string()).expect("valid pair");
    let mut unknown = false;
    for f in &analysis.findings {
        if !matches!(f.rule.meta().direction, RuleDirection::Input | RuleDirection::Output) {
            continue;
        }
        if let Some(w) = &f.witness
            && !w.dropped
        {
            return Verdict::No;
        }
        // An argument that is now undeclared in an open schema still validates: containment holds for
        // this change (the finding is about the value being dropped, not rejected).
        if f.witness.as_ref().is_some_and(|w| w.dropped)
            && matches!(f.rule, RuleId::InputPropertyRemoved | RuleId::InputPropertyRenamed)
        {
            continue;
        }
        // A finding that claims a break (or cannot decide) without a confirmed witness leaves the
        // question open; description, default and format findings say nothing about validity.
        let claims_break = f.severity == mcp_drift::Severity::Error
            || matches!(
                f.rule,
                RuleId::InputCannotDecide
                    | RuleId::OutputCannotDecide
                    | RuleId::InputPatternChanged
                    | RuleId::OutputPatternChanged
                    | RuleId::OutputEnumWidened
                    | RuleId::OutputConstraintLoosened
                    | RuleId::OutputAdditionalPropertiesOpened
                    | RuleId::OutputPropertyRemoved
                    | RuleId::OutputPropertyRenamed
                    | RuleId::OutputIdentifierRemoved
                    // Strictly narrowing when the old schema was open (reported at info by policy).
                    | RuleId::InputPropertyAdded
            );
        if claims_break && f.witness.is_none() {
            unknown = true;
        }
    }
    if unknown { Verdict::Unknown } else { Verdict::Yes }
}
