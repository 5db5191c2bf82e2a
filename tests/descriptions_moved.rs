//! A description is the text a reader finds for a parameter, wherever a rewrite wrote it (issue #31):
//! moved behind a `$ref` into a `$defs` entry, onto a `$ref` or `allOf` wrapper, or into one `allOf`
//! member, an unchanged text is no finding; a moved and edited one is compared with its own old text.

use mcp_drift::catalog::RuleId;
use mcp_drift::{Analysis, Finding};
use serde_json::{Value, json};

fn diff(old: &Value, new: &Value) -> Analysis {
    let snapshot = |input: &Value| {
        json!({"tools": [{"name": "create_invoice", "description": "Create an invoice.", "inputSchema": input}]})
            .to_string()
    };
    mcp_drift::diff_texts(&snapshot(old), &snapshot(new)).expect("valid snapshots")
}

fn about_descriptions(a: &Analysis) -> Vec<&Finding> {
    a.findings
        .iter()
        .filter(|f| matches!(f.rule, RuleId::DescriptionMeaningChanged | RuleId::DescriptionReworded))
        .collect()
}

const TEXT: &str = "Number of days the customer has to pay the invoice. Defaults to 30.";

fn inline() -> Value {
    json!({"type": "object", "properties": {"days_until_due": {"type": "integer", "minimum": 1, "description": TEXT}}})
}

#[test]
fn an_unchanged_text_moved_behind_a_reference_or_all_of_is_no_finding() {
    let rewrites = [
        // pydantic: a single-member `allOf` with the text beside it.
        json!({"allOf": [{"type": "integer", "minimum": 1}], "description": TEXT}),
        // A `$ref` with the text beside it, the `$defs` entry with a text of its own.
        json!({"$ref": "#/$defs/Days", "description": TEXT}),
        // The text inside one `allOf` member.
        json!({"allOf": [{"type": "integer"}, {"minimum": 1, "description": TEXT}]}),
        // The text in the `$defs` entry behind a bare `$ref`, inside `allOf`.
        json!({"allOf": [{"$ref": "#/$defs/DaysDescribed"}]}),
    ];
    for rewrite in rewrites {
        let new = json!({
            "type": "object",
            "properties": {"days_until_due": rewrite},
            "$defs": {
                "Days": {"type": "integer", "minimum": 1, "description": "A count of days."},
                "DaysDescribed": {"type": "integer", "minimum": 1, "description": TEXT}
            }
        });
        let a = diff(&inline(), &new);
        assert!(about_descriptions(&a).is_empty(), "{rewrite}: {:#?}", about_descriptions(&a));
        let back = diff(&new, &inline());
        assert!(about_descriptions(&back).is_empty(), "back from {rewrite}: {:#?}", about_descriptions(&back));
    }
}

#[test]
fn a_moved_and_edited_text_is_compared_with_its_own_old_text() {
    let edited = "Number of days the customer has to pay the invoice. Defaults to 14.";
    // Moved into `$defs` and edited: the pair is the old property's text and the entry's.
    let new = json!({
        "type": "object",
        "properties": {"days_until_due": {"$ref": "#/$defs/Days"}},
        "$defs": {"Days": {"type": "integer", "minimum": 1, "description": edited}}
    });
    let a = diff(&inline(), &new);
    let found = about_descriptions(&a);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].rule, RuleId::DescriptionMeaningChanged);
    assert_eq!(found[0].pointer, "/inputSchema/$defs/Days/description");
    // The word diff pairs the old property's text with the entry's: only the number changed.
    assert_eq!(found[0].notes.iter().filter(|n| n.contains("30") && n.contains("14")).count(), 1, "{found:#?}");
    // Behind a single-member `allOf`, edited on the wrapper: compared with the wrapper's text, not the
    // member's (which has none).
    let new = json!({"type": "object", "properties": {"days_until_due": {
        "allOf": [{"type": "integer", "minimum": 1}], "description": edited
    }}});
    let a = diff(&inline(), &new);
    let found = about_descriptions(&a);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].pointer, "/inputSchema/properties/days_until_due/description");
    assert!(found[0].message.contains("`days_until_due`"), "{}", found[0].message);
}
