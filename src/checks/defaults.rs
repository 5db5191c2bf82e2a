//! One change of a default is one finding: when a parameter's `default` keyword changed and its
//! description's stated default changed with it (`"default": true` added beside "Defaults to true."),
//! the keyword finding stays and carries the description's word diff as a note; the prose one goes.

use serde_json::Value;

use super::Finding;
use crate::catalog::RuleId;
use crate::compare::budget::Budget;
use crate::compare::witness::{Witness, example};
use crate::load::{Tool, escape};

/// Whether a changed `default` makes an old call that omits the parameter do another kind of thing,
/// not only more or less of it: a boolean flipped, or another value of the parameter's own `enum`
/// (`"draft"` -> `"published"`). Such a change is an `error` (measured on the team's release pairs,
/// issue #31: tavily-mcp's `allow_external` false -> true was labelled blocking); a number (a page
/// size 5 -> 8) or a free-form string (a field list) stays the rule's `warning`.
pub(super) fn selects_another_behaviour(
    old: Option<&Value>,
    new: Option<&Value>,
    tool: Option<&Tool>,
    pointer: Option<&str>,
) -> bool {
    let (Some(old), Some(new)) = (old, new) else { return false };
    if let (Value::Bool(a), Value::Bool(b)) = (old, new) {
        return a != b;
    }
    if !old.is_string() || !new.is_string() || old == new {
        return false;
    }
    let (Some(tool), Some(pointer)) = (tool, pointer) else { return false };
    let holder = pointer.strip_suffix("/default").unwrap_or(pointer);
    [holder, parameter_of(pointer)].iter().any(|p| {
        tool.value()
            .pointer(p)
            .and_then(|s| s.get("enum"))
            .and_then(Value::as_array)
            .is_some_and(|values| values.contains(old) && values.contains(new))
    })
}

/// The witness of a changed default: a call both schemas accept that omits the parameter (an example
/// of the old `inputSchema` without it, checked by both validators), on which the server now applies
/// the new default. Only for a top-level parameter; `None` when no such call is confirmed.
pub(super) fn omitted_call(
    old_tool: Option<&Tool>,
    new_tool: Option<&Tool>,
    pointer: Option<&str>,
    old: Option<&Value>,
    new: Option<&Value>,
) -> Option<Witness> {
    let name = parameter_of(pointer?).strip_prefix("/inputSchema/properties/")?;
    if name.contains('/') {
        return None;
    }
    let name = name.replace("~1", "/").replace("~0", "~");
    let (old_root, new_root) = (old_tool?.value().get("inputSchema")?, new_tool?.value().get("inputSchema")?);
    let mut call = example(old_root, old_root, &Budget::default())?;
    call.as_object_mut()?.remove(&name);
    let accepts = |root: &Value| crate::schema::regex_budget::options().build(root).is_ok_and(|v| v.is_valid(&call));
    if !accepts(old_root) || !accepts(new_root) {
        return None;
    }
    let show = |v: Option<&Value>| v.map_or_else(|| "none".to_owned(), |v| escape(&v.to_string()));
    Some(Witness {
        rejected_because: format!(
            "both schemas accept this call, which omits `{}`: the server now applies `{}` where it applied `{}`",
            escape(&name),
            show(new),
            show(old)
        ),
        instance: call,
        dropped: true,
    })
}

/// The parameter a default finding's pointer is about (`.../x/default`, `.../x/description` -> `.../x`).
fn parameter(pointer: &str) -> (&str, bool) {
    if let Some(p) = pointer.strip_suffix("/description") {
        return (p, true);
    }
    // A keyword default, possibly in a branch of the parameter's `anyOf` (`.../x/anyOf/1/default`).
    let p = pointer.strip_suffix("/default").unwrap_or(pointer);
    let p = match p.rsplit_once('/') {
        Some((head, last)) if last.bytes().all(|b| b.is_ascii_digit()) && !last.is_empty() => {
            head.strip_suffix("/anyOf").or_else(|| head.strip_suffix("/oneOf")).unwrap_or(p)
        }
        _ => p,
    };
    (p, false)
}

/// The parameter a keyword default's pointer is about (`.../x/anyOf/1/default` -> `.../x`).
pub(super) fn parameter_of(pointer: &str) -> &str {
    parameter(pointer).0
}

/// Drops each prose `input-default-changed` finding whose parameter also has a keyword one.
pub(super) fn one_per_change(findings: &mut Vec<Finding>) {
    let is_default = |f: &Finding| f.rule == RuleId::InputDefaultChanged;
    let keyword: Vec<(String, String)> = findings
        .iter()
        .filter(|f| is_default(f))
        .filter_map(|f| match parameter(&f.pointer) {
            (p, false) => Some((f.tool.clone(), p.to_owned())),
            (_, true) => None,
        })
        .collect();
    let mut moved: Vec<(String, String, Vec<String>)> = Vec::new();
    findings.retain(|f| {
        let (p, true) = parameter(&f.pointer) else { return true };
        if !is_default(f) {
            return true;
        }
        if keyword.iter().any(|(t, k)| *t == f.tool && k == p) {
            moved.push((f.tool.clone(), p.to_owned(), f.notes.clone()));
            return false;
        }
        true
    });
    for (tool, p, notes) in moved {
        if let Some(f) = findings
            .iter_mut()
            .find(|f| is_default(f) && f.tool == tool && parameter(&f.pointer) == (p.as_str(), false))
        {
            f.notes.extend(notes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_name_their_parameter() {
        assert_eq!(parameter("/inputSchema/properties/a/default"), ("/inputSchema/properties/a", false));
        assert_eq!(parameter("/inputSchema/properties/a/anyOf/1/default"), ("/inputSchema/properties/a", false));
        assert_eq!(parameter("/inputSchema/properties/a"), ("/inputSchema/properties/a", false));
        assert_eq!(parameter("/inputSchema/properties/a/description"), ("/inputSchema/properties/a", true));
    }
}
