//! What the guard writes itself: its `tools/list` requests, its answers to calls it does not forward
//! (a tool result with `isError: true`, so the model reads it, not a transport error), JSON-RPC errors
//! for messages it cannot forward, and audit lines. Takes verdicts and ids; returns finished lines.
//!
//! Promises: every line is one JSON text followed by `\n`; text built from the server's or the lock's
//! content (tool names, finding messages) is escaped to one visible line per item (`text::escape`),
//! and a refusal lists at most [`MAX_LINES`] changes.

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::check::Verdict;
use crate::text;

/// The most changes a refusal's text lists (the `rules` array still names every rule).
pub const MAX_LINES: usize = 20;

fn line(v: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec(v).unwrap_or_default();
    out.push(b'\n');
    out
}

/// The guard's own `tools/list` request: the same text as a client's forwarded one (keys in one
/// order, a number id from the same counter, and the `params` the client's last `tools/list` had,
/// `shape`, with this page's cursor: `None` when it had none, as the Python SDK sends it).
#[must_use]
pub fn list_request(id: u64, cursor: Option<&str>, shape: Option<&Value>) -> Vec<u8> {
    let mut request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
    let mut params = shape.cloned().filter(Value::is_object);
    if let Some(c) = cursor {
        params.get_or_insert_with(|| json!({}))["cursor"] = json!(c);
    } else if let Some(Value::Object(p)) = &mut params {
        p.remove("cursor");
    }
    if let Some(p) = params {
        request["params"] = p;
    }
    line(&request)
}

/// A JSON-RPC error response.
#[must_use]
pub fn error(id: Option<&Value>, code: i64, message: &str) -> Vec<u8> {
    line(
        &json!({"jsonrpc": "2.0", "id": id.cloned().unwrap_or(Value::Null), "error": {"code": code, "message": message}}),
    )
}

fn short(hash: Option<&str>) -> String {
    hash.map_or_else(|| "none".to_owned(), |h| h.chars().take(12).collect())
}

/// What the agent is told to do about a refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// The contract differs from the approved one: only the operator, who owns the lock, can help.
    OperatorReview,
    /// The call does not fit the contract the server publishes: listing the tools again helps.
    RefreshTools,
}

impl Action {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Action::OperatorReview => "operator_review",
            Action::RefreshTools => "refresh_tools",
        }
    }

    /// The action for a blocked tool: a tool neither locked nor listed is the agent's mistake (a refresh
    /// shows it is not there); every other refusal is a contract that differs from the lock.
    #[must_use]
    pub fn of(verdict: &Verdict) -> Action {
        if verdict.locked.is_none() && verdict.current.is_none() && verdict.changes.is_empty() {
            Action::RefreshTools
        } else {
            Action::OperatorReview
        }
    }

    fn advice(self, lock: &str) -> String {
        match self {
            Action::OperatorReview => format!(
                "\nNothing was executed: the call did not reach the server. Refreshing the tool list does not \
                 help: the contract approved in {lock} must be reviewed by an operator (mcp-drift verify) and \
                 the lock updated before this tool can be called."
            ),
            Action::RefreshTools => "\nNothing was executed: the call did not reach the server. Refresh the tool \
                 list (tools/list) and check the tool's current definition before calling it again."
                .to_owned(),
        }
    }
}

/// The text of a refusal: which contract, what changed (one line per finding), that nothing ran, and
/// what to do.
#[must_use]
pub fn refusal_text(tool: &str, verdict: &Verdict, lock: &str) -> String {
    let tool = text::escape(tool);
    let lock = text::escape(lock);
    let mut out = match (&verdict.locked, &verdict.current) {
        (Some(_), Some(_)) if verdict.problem.is_some() => format!(
            "mcp-drift guard did not call `{tool}`: {}.",
            text::escape(verdict.problem.as_deref().unwrap_or_default())
        ),
        (None, Some(_)) => format!(
            "mcp-drift guard did not call `{tool}`: the tool is not in {lock}, so its contract was never reviewed."
        ),
        (_, None) => format!(
            "mcp-drift guard did not call `{tool}`: {}.",
            text::escape(verdict.problem.as_deref().unwrap_or("its current contract is unknown"))
        ),
        (Some(_), Some(_)) => format!(
            "mcp-drift guard did not call `{tool}`: its contract changed since {lock} was made (sha256 {} -> {}).",
            short(verdict.locked.as_deref()),
            short(verdict.current.as_deref())
        ),
    };
    if verdict.changes.is_empty() {
        if verdict.current.is_some() && verdict.locked.is_some() && verdict.locked != verdict.current {
            out.push_str("\nWhat changed: the contract hash differs, and no diff rule explains the difference.");
        }
    } else {
        out.push_str("\nWhat changed:");
        for c in verdict.changes.iter().take(MAX_LINES) {
            let _ = write!(out, "\n- {} ({}): {}", c.rule.as_str(), c.severity.as_str(), text::escape(&c.message));
        }
        if verdict.changes.len() > MAX_LINES {
            let _ = write!(out, "\n- and {} more", verdict.changes.len() - MAX_LINES);
        }
    }
    out.push_str(&Action::of(verdict).advice(&lock));
    out
}

/// The answer to a call of a blocked tool.
#[must_use]
pub fn refusal(id: &Value, tool: &str, verdict: &Verdict, lock: &str) -> Vec<u8> {
    line(&json!({"jsonrpc": "2.0", "id": id, "result": {
        "content": [{"type": "text", "text": refusal_text(tool, verdict, lock)}],
        "isError": true,
        "structuredContent": {
            "error_code": "STALE_TOOL_SCHEMA",
            "tool": tool,
            "required_action": Action::of(verdict).as_str(),
            "side_effect_started": false,
            "locked_hash": verdict.locked,
            "current_hash": verdict.current,
            "rules": verdict.rules(),
            "changes": verdict.changes.iter().take(MAX_LINES).map(|c| json!({
                "rule": c.rule.as_str(), "severity": c.severity.as_str(), "message": c.message,
            })).collect::<Vec<_>>(),
        }
    }}))
}

/// One line per rejection, escaped, at most [`MAX_LINES`].
fn rejections(out: &mut String, reasons: &[String]) {
    for r in reasons.iter().take(MAX_LINES) {
        let _ = write!(out, "\n- {}", text::escape(r));
    }
}

/// The answer to a call whose arguments the locked `inputSchema` rejects: the agent's call does not fit
/// the contract (which did not drift beyond the policy), so listing the tools again helps.
#[must_use]
pub fn arguments_refused(id: &Value, tool: &str, verdict: &Verdict, reasons: &[String], lock: &str) -> Vec<u8> {
    let mut text = format!(
        "mcp-drift guard did not call `{}`: its arguments do not fit the tool's inputSchema as approved in {}:",
        text::escape(tool),
        text::escape(lock)
    );
    rejections(&mut text, reasons);
    text.push_str(&Action::RefreshTools.advice(&text::escape(lock)));
    line(&json!({"jsonrpc": "2.0", "id": id, "result": {
        "content": [{"type": "text", "text": text}],
        "isError": true,
        "structuredContent": {
            "error_code": "STALE_TOOL_SCHEMA",
            "tool": tool,
            "required_action": Action::RefreshTools.as_str(),
            "side_effect_started": false,
            "locked_hash": verdict.locked,
            "current_hash": verdict.current,
            "rules": verdict.rules(),
            "violations": reasons.iter().take(MAX_LINES).collect::<Vec<_>>(),
        }
    }}))
}

/// What replaces a result whose `structuredContent` the locked `outputSchema` rejects (with
/// `--enforce-results`): the call did run, so the text says so.
#[must_use]
pub fn result_withheld(id: &Value, tool: &str, reasons: &[String], lock: &str) -> Value {
    let mut text = format!(
        "mcp-drift guard withheld the result of `{}`: its structuredContent does not fit the tool's outputSchema as \
         approved in {}:",
        text::escape(tool),
        text::escape(lock)
    );
    rejections(&mut text, reasons);
    text.push_str(
        "\nThe call did reach the server and may have had effects; its result is not in the approved shape. An \
         operator must review the server's change (mcp-drift verify).",
    );
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}], "isError": true}})
}

/// The audit line of a result the locked `outputSchema` rejects.
#[must_use]
pub fn result_audit(tool: &str, id: &Value, replaced: bool, reasons: &[String], now: SystemTime) -> Vec<u8> {
    line(&json!({
        "time": rfc3339(now),
        "tool": tool,
        "id": id,
        "decision": if replaced { "result-replaced" } else { "result-rejected" },
        "reasons": reasons.iter().take(MAX_LINES).collect::<Vec<_>>(),
    }))
}

/// The answer to a call the guard could not check (its `tools/list` failed or timed out, the server
/// is gone, too many calls wait).
#[must_use]
pub fn unchecked(id: &Value, tool: &str, reason: &str) -> Vec<u8> {
    let text = format!(
        "mcp-drift guard did not call `{}`: {}. Nothing was executed: the call did not reach the server. \
         It is safe to retry.",
        text::escape(tool),
        text::escape(reason)
    );
    line(&json!({"jsonrpc": "2.0", "id": id, "result": {
        "content": [{"type": "text", "text": text}],
        "isError": true,
        "structuredContent": {
            "error_code": "TOOL_CHECK_FAILED",
            "tool": tool,
            "required_action": "retry",
            "side_effect_started": false,
            "reason": reason,
        }
    }}))
}

/// What the audit log records of one call.
pub struct Audit<'a> {
    pub tool: &'a str,
    pub id: Option<&'a Value>,
    pub forwarded: bool,
    pub locked: Option<&'a str>,
    pub current: Option<&'a str>,
    pub rules: Vec<&'a str>,
    /// Why a call was refused without a verdict (its check failed).
    pub reason: Option<&'a str>,
}

/// One audit line, stamped `now`.
#[must_use]
pub fn audit(a: &Audit<'_>, now: SystemTime) -> Vec<u8> {
    let mut v = json!({
        "time": rfc3339(now),
        "tool": a.tool,
        "id": a.id.cloned().unwrap_or(Value::Null),
        "decision": if a.forwarded { "forwarded" } else { "refused" },
        "locked_hash": a.locked,
        "current_hash": a.current,
        "rules": a.rules,
    });
    if let (Some(reason), Some(map)) = (a.reason, v.as_object_mut()) {
        map.insert("reason".into(), json!(reason));
    }
    line(&v)
}

/// RFC 3339 in UTC with milliseconds (`2026-12-01T20:10:38.123Z`).
#[must_use]
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (year, month, day) = crate::policy::date::civil(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guard's listing looks like the client's: its `params`, or none when it sent none.
    #[test]
    fn the_guards_listing_has_the_clients_shape() {
        let v = |line: Vec<u8>| serde_json::from_slice::<Value>(&line).unwrap();
        assert_eq!(v(list_request(4, None, None)), json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}));
        assert_eq!(
            v(list_request(5, Some("p2"), None)),
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"cursor": "p2"}})
        );
        let shape = json!({"cursor": "old", "_meta": {"x": 1}});
        assert_eq!(
            v(list_request(6, None, Some(&shape))),
            json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": {"_meta": {"x": 1}}})
        );
        assert_eq!(v(list_request(7, None, Some(&json!({}))))["params"], json!({}));
    }
    use crate::catalog::{RuleId, Severity};
    use crate::guard::check::Change;
    use std::time::Duration;

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_millis(951_782_400_123)), "2000-02-29T00:00:00.123Z");
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_secs(1_796_157_038)), "2026-12-01T20:30:38.000Z");
    }

    #[test]
    fn refusal_has_the_structured_result_and_neutral_text() {
        let verdict = Verdict {
            locked: Some("a".repeat(64)),
            current: Some("b".repeat(64)),
            changes: vec![Change {
                rule: RuleId::InputRequiredAdded,
                severity: Severity::Error,
                message: "`n`\n::error::x is now required".into(),
            }],
            problem: None,
            blocked: true,
        };
        let out = refusal(&json!(3), "search\u{202e}", &verdict, "mcp-tools.lock");
        assert_eq!(out.last(), Some(&b'\n'));
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], 3);
        assert_eq!(v["result"]["isError"], true);
        let s = &v["result"]["structuredContent"];
        assert_eq!(s["error_code"], "STALE_TOOL_SCHEMA");
        assert_eq!(s["required_action"], "operator_review");
        assert_eq!(s["changes"][0]["rule"], "input-required-added");
        assert_eq!(s["changes"][0]["severity"], "error");
        assert_eq!(s["side_effect_started"], false);
        assert_eq!(s["rules"], json!(["input-required-added"]));
        assert_eq!(s["locked_hash"], "a".repeat(64));
        let text = v["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("search\\u{202e}") && text.contains("- input-required-added (error): `n`\\n::error::x"),
            "{text}"
        );
        assert!(text.contains("Nothing was executed") && text.contains("reviewed by an operator"), "{text}");
        assert!(!text.contains("Refresh the tool list"), "{text}");
        assert_eq!(text.lines().count(), 4, "{text}");
        // A tool that neither the lock nor the server knows: the agent's mistake, a refresh helps.
        let unknown =
            Verdict { locked: None, current: None, changes: vec![], problem: Some("not listed".into()), blocked: true };
        let v: Value = serde_json::from_slice(&refusal(&json!(4), "nope", &unknown, "l")).unwrap();
        assert_eq!(v["result"]["structuredContent"]["required_action"], "refresh_tools");
        assert!(v["result"]["content"][0]["text"].as_str().unwrap().contains("Refresh the tool list"));
    }
}
