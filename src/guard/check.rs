//! The guard's judgement of one `tools/list`: takes the lock (read once at start) and the tools the
//! server lists now, returns per tool name its locked and current contract hash, the `diff` findings
//! that explain a difference (rule, severity after the configuration's overrides, one-line message),
//! and whether a call of it is blocked under the team's policy (`--allow-drift`, `--block-on`, the
//! configuration's `[severity]`).
//!
//! Promises: a tool is drifted exactly when its hash (`lock::hash` of `lock::contract`) differs from
//! its locked one, or it is not in the lock; a drifted tool is blocked when one of its findings is at
//! or above `block_on` (every finding when `None`) and neither allowed nor turned off; a drift that no
//! finding explains, a tool whose definition cannot be hashed (no object `inputSchema`,
//! a repeated name) and a tool the server no longer lists are always blocked. Never panics on any
//! `tools/list` content: the diff engine's own bounds apply.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use super::listing::Listed;
use crate::catalog::{RuleId, Severity};
use crate::error::Error;
use crate::load::Sources;
use crate::lock::{self, LockFile};

/// The lock, as read once when the guard starts.
#[derive(Debug)]
pub struct Lock {
    pub file: LockFile,
    /// The name shown in refusals (the path as given).
    pub name: String,
    /// Each tool's locked contract in its canonical text (compact: about the size of the listing, not
    /// the lock file's indented twice that), by published name: parsed when the tool is first called
    /// ([`Lock::schemas`]) or when a drift is explained, never held as values for every tool at once.
    contracts: BTreeMap<String, Box<str>>,
}

impl Lock {
    /// Reads and checks the lock (a corrupt hash is an error, as for `verify`).
    ///
    /// # Errors
    /// A missing, unreadable or corrupt lock.
    pub fn read(path: &Path, limits: crate::load::Limits) -> Result<Lock, Error> {
        let mut sources = Sources::default();
        let (file, snapshot) = lock::load(path, limits, &mut sources)?;
        let contracts = snapshot
            .tools
            .values()
            .map(|tool| (tool.published_name().to_owned(), lock::canonical_contract(tool).into_boxed_str()))
            .collect();
        Ok(Lock { file, name: path.display().to_string(), contracts })
    }

    /// The locked `inputSchema` (`true` when there is none) and `outputSchema` (when there is one) of
    /// `tool`, parsed from the lock's text.
    #[must_use]
    pub fn schemas(&self, tool: &str) -> Option<(Value, Option<Value>)> {
        let mut v: Value = serde_json::from_str(self.contracts.get(tool)?).ok()?;
        let input = v.get_mut("inputSchema").map_or(Value::Bool(true), Value::take);
        let output = v.get_mut("outputSchema").map(Value::take).filter(|s| !s.is_null());
        Some((input, output))
    }

    /// The locked contract of `tool` (name, title, description, schemas, annotations), as a tool object.
    #[must_use]
    pub fn contract(&self, tool: &str) -> Option<Value> {
        serde_json::from_str(self.contracts.get(tool)?).ok()
    }

    /// Whether `tool` is in the lock.
    #[must_use]
    pub fn has(&self, tool: &str) -> bool {
        self.contracts.contains_key(tool)
    }
}

/// The contract hash of a listed tool object, as `lock` computes it, when it has one the guard can
/// compute without loading the listing: a string `name` and an object `inputSchema`.
#[must_use]
pub fn listed_hash(tool: &Value) -> Option<(&str, String)> {
    let name = tool.get("name")?.as_str()?;
    tool.get("inputSchema")?.as_object()?;
    Some((name, lock::hash(&lock::contract_of(name, tool))))
}

/// The verdicts of a listing that lists exactly the locked tools, each with its locked hash: none
/// drifted, nothing to explain. `None` for any other listing (the diff engine judges it).
fn unchanged(lock: &Lock, tools: &[Listed]) -> Option<Checked> {
    if tools.len() != lock.file.tools.len() {
        return None;
    }
    let mut checked = Checked::default();
    for tool in tools {
        let (name, hash) = (tool.name.as_deref()?, tool.hash.clone()?);
        if lock.file.tools.get(name)?.sha256 != hash || checked.tools.contains_key(name) {
            return None;
        }
        let verdict = Verdict {
            locked: Some(hash.clone()),
            current: Some(hash),
            changes: Vec::new(),
            problem: None,
            blocked: false,
        };
        checked.tools.insert(name.to_owned(), verdict);
    }
    checked.locked = lock.file.tools.iter().map(|(n, t)| (n.clone(), t.sha256.clone())).collect();
    Some(checked)
}

/// Which drift a team accepts: `allow` rules and rules turned off never block; with `block_on`, only
/// findings at or above it block; without, every finding does.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    pub allow: Vec<RuleId>,
    pub block_on: Option<Severity>,
    /// The configuration's severity of a rule (`None`: the rule is off).
    pub severity: BTreeMap<RuleId, Option<Severity>>,
}

impl Policy {
    /// A finding's severity under the configuration (`None`: its rule is off).
    fn severity(&self, rule: RuleId, default: Severity) -> Option<Severity> {
        self.severity.get(&rule).copied().unwrap_or(Some(default))
    }
}

/// One finding of the diff between the locked and the current contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub rule: RuleId,
    pub severity: Severity,
    pub message: String,
}

/// What the guard knows of one tool name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The hash in the lock (`None`: not locked).
    pub locked: Option<String>,
    /// The hash of the listed contract (`None`: not listed, or not hashable).
    pub current: Option<String>,
    pub changes: Vec<Change>,
    /// Why the tool cannot be judged by its findings alone (not listed, not hashable), when so.
    pub problem: Option<String>,
    pub blocked: bool,
}

impl Verdict {
    /// The rule ids of the changes, sorted, once each.
    #[must_use]
    pub fn rules(&self) -> Vec<&'static str> {
        let set: BTreeSet<&'static str> = self.changes.iter().map(|c| c.rule.as_str()).collect();
        set.into_iter().collect()
    }
}

/// The verdicts of one `tools/list`, by published tool name.
#[derive(Debug, Default)]
pub struct Checked {
    tools: BTreeMap<String, Verdict>,
    /// Findings by tool name, for tools the server no longer lists.
    gone: BTreeMap<String, Vec<Change>>,
    locked: BTreeMap<String, String>,
    /// The listed `inputSchema` of each tool whose drift the policy lets through: its calls are judged
    /// by the contract the team accepted, not the locked one.
    accepted_inputs: BTreeMap<String, Value>,
}

impl Checked {
    /// The verdict for a call of `name`: a tool the server does not list is blocked.
    #[must_use]
    pub fn verdict(&self, name: &str) -> Verdict {
        if let Some(v) = self.tools.get(name) {
            return v.clone();
        }
        Verdict {
            locked: self.locked.get(name).cloned(),
            current: None,
            changes: self.gone.get(name).cloned().unwrap_or_default(),
            problem: Some("the server's tools/list does not list it".into()),
            blocked: true,
        }
    }

    /// The listed `inputSchema` of a tool whose drift the policy lets through.
    #[must_use]
    pub fn accepted_input(&self, name: &str) -> Option<&Value> {
        self.accepted_inputs.get(name)
    }

    /// How many listed tools are drifted, and how many of those are blocked.
    #[must_use]
    pub fn counts(&self) -> (usize, usize, usize) {
        let drifted = self.tools.values().filter(|v| v.locked != v.current).count();
        let blocked = self.tools.values().filter(|v| v.blocked).count();
        (self.tools.len(), drifted, blocked)
    }
}

/// Whether to keep a listed tool's object for [`check_listed`]: unless it has the locked hash of
/// its name (then the lock's contract stands for it).
#[must_use]
pub fn keep(lock: &Lock, name: Option<&str>, hash: Option<&str>) -> bool {
    match (name, hash) {
        (Some(name), Some(hash)) => lock.file.tools.get(name).is_none_or(|t| t.sha256 != hash),
        _ => true,
    }
}

/// [`check`] of a listing read tool by tool ([`super::listing`]): a listing of exactly the locked
/// contracts is judged from the hashes alone (the common case, when every call re-lists); any other
/// is judged by the diff engine, each tool not kept (it has its locked hash) stood for by the lock's
/// contract.
#[must_use]
pub fn check_listed(lock: &Lock, tools: Vec<Listed>, policy: &Policy) -> Checked {
    if let Some(checked) = unchanged(lock, &tools) {
        return checked;
    }
    let values: Vec<Value> = tools
        .into_iter()
        .filter_map(|t| t.value.or_else(|| t.name.as_deref().and_then(|n| lock.contract(n))))
        .collect();
    check(lock, &values, policy)
}

/// Judges `tools` (the concatenated `tools` arrays of every `tools/list` page) against the lock.
#[must_use]
pub fn check(lock: &Lock, tools: &[Value], policy: &Policy) -> Checked {
    let locked: BTreeMap<String, String> = lock.file.tools.iter().map(|(n, t)| (n.clone(), t.sha256.clone())).collect();
    let mut checked = Checked { locked: locked.clone(), ..Checked::default() };
    let mut sources = Sources::default();
    // The locked contracts as a listing (canonical texts `Lock::read` made, so this does not fail; if
    // it did, nothing is judged and every call is blocked as unlisted).
    let mut old_text = String::from("{\"tools\": [");
    for (i, contract) in lock.contracts.values().enumerate() {
        if i > 0 {
            old_text.push(',');
        }
        old_text.push_str(contract);
    }
    old_text.push_str("]}");
    let Ok(old) = crate::load::load_bytes(&lock.name, old_text.into_bytes(), &mut sources) else { return checked };
    let listing = serde_json::json!({ "tools": tools });
    let bytes = serde_json::to_vec(&listing).unwrap_or_default();
    let Ok(new) = crate::load::load_bytes("tools/list", bytes, &mut sources) else { return checked };
    let mut new = new;
    let current = lock::lock(&new);
    // A tool whose hash is the locked one has the locked contract: compared without a walk.
    let mut old = old;
    lock::pin(&mut old, &lock.file);
    lock::pin(&mut new, &current);
    // Tools that cannot be hashed: blocked by name, whatever their findings.
    let mut problems: BTreeMap<String, String> = BTreeMap::new();
    for p in &new.problems {
        let name = p.tool.published_name();
        if !name.is_empty() {
            problems
                .entry(name.to_owned())
                .or_insert_with(|| format!("its definition cannot be checked: {}", p.detail));
        }
    }
    let analysis = crate::analyze(sources, old, new);
    let mut by_tool: BTreeMap<String, Vec<Change>> = BTreeMap::new();
    let mut off: BTreeSet<String> = BTreeSet::new();
    for f in &analysis.findings {
        // A rule turned off neither blocks nor shows; the drift it explains is still explained.
        let Some(severity) = policy.severity(f.rule, f.severity) else {
            off.insert(f.tool.clone());
            continue;
        };
        let change = Change { rule: f.rule, severity, message: f.message.clone() };
        by_tool.entry(f.tool.clone()).or_default().push(change.clone());
        // A renamed tool: a call of its old name sees the rename too.
        if f.rule == RuleId::ToolRenamed
            && let Some(from) = &f.from
        {
            by_tool.entry(from.clone()).or_default().push(change);
        }
    }
    for (name, tool) in &current.tools {
        let locked_hash = locked.get(name).cloned();
        let changes = if locked_hash.as_deref() == Some(tool.sha256.as_str()) {
            Vec::new()
        } else {
            by_tool.get(name).cloned().unwrap_or_default()
        };
        let problem = problems.remove(name);
        let mut verdict =
            Verdict { locked: locked_hash, current: Some(tool.sha256.clone()), changes, problem, blocked: false };
        verdict.blocked = blocks(&verdict, policy, off.contains(name));
        if !verdict.blocked && verdict.locked != verdict.current {
            // A tool is hashable only when its name is listed once, so this finds it.
            let listed = tools.iter().find(|t| t.get("name").and_then(Value::as_str) == Some(name.as_str()));
            let input = listed.and_then(|t| t.get("inputSchema")).cloned().unwrap_or(Value::Bool(true));
            checked.accepted_inputs.insert(name.clone(), input);
        }
        checked.tools.insert(name.clone(), verdict);
    }
    for (name, problem) in problems {
        let verdict = Verdict {
            locked: locked.get(&name).cloned(),
            current: None,
            changes: by_tool.get(&name).cloned().unwrap_or_default(),
            problem: Some(problem),
            blocked: true,
        };
        checked.tools.insert(name, verdict);
    }
    for (name, changes) in by_tool {
        if !checked.tools.contains_key(&name) {
            checked.gone.insert(name, changes);
        }
    }
    checked
}

/// The policy's decision for a listed tool (`off`: a finding of a rule turned off explains some of
/// its drift).
fn blocks(v: &Verdict, policy: &Policy, off: bool) -> bool {
    if v.problem.is_some() || v.current.is_none() || v.locked.is_none() {
        return true;
    }
    if v.locked == v.current {
        return false;
    }
    // A drift no finding explains cannot be judged by rule or severity.
    if v.changes.is_empty() {
        return !off;
    }
    v.changes.iter().any(|c| !policy.allow.contains(&c.rule) && policy.block_on.is_none_or(|t| c.severity >= t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lock_of(tools: &Value) -> Lock {
        let dir = tempfile::tempdir().unwrap();
        let snap = dir.path().join("tools.json");
        std::fs::write(&snap, tools.to_string()).unwrap();
        let mut sources = Sources::default();
        let s = crate::load::load_bytes("tools.json", tools.to_string().into_bytes(), &mut sources).unwrap();
        let path = dir.path().join("mcp-tools.lock");
        std::fs::write(&path, lock::text(&s)).unwrap();
        Lock::read(&path, crate::load::Limits::default()).unwrap()
    }

    fn tool(name: &str, description: &str, required: &[&str]) -> Value {
        json!({"name": name, "description": description, "inputSchema": {
            "type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}, "required": required}})
    }

    #[test]
    fn unchanged_tools_pass_and_drifted_ones_are_explained() {
        let lock = lock_of(&json!({"tools": [tool("a", "Search.", &[]), tool("b", "Echo.", &[])]}));
        let checked = check(&lock, &[tool("a", "Search.", &["n"]), tool("b", "Echo.", &[])], &Policy::default());
        let b = checked.verdict("b");
        assert!(!b.blocked && b.locked == b.current && b.changes.is_empty(), "{b:?}");
        let a = checked.verdict("a");
        assert!(a.blocked && a.locked != a.current, "{a:?}");
        assert_eq!(a.rules(), vec!["input-required-added"]);
        assert_eq!(checked.counts(), (2, 1, 1));
    }

    /// The fast path (a listing of exactly the locked contracts) gives the verdicts the diff engine
    /// gives, with hashes computed from the listed values as `lock` computes them from text: also
    /// for annotations left to their defaults, numbers in other forms and keys in another order.
    #[test]
    fn an_unchanged_listing_is_judged_without_the_diff_engine_and_alike() {
        let odd = json!({"name": "odd", "title": "Odd", "annotations": {"readOnlyHint": true},
            "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "maximum": 1e3, "minimum": 0.5}},
            "required": ["n"]}, "outputSchema": {"type": "object"}, "_meta": {"x": 1}});
        let tools = vec![tool("a", "Search. \u{e9}\u{1F600}", &["q"]), odd];
        let lock = lock_of(&json!({ "tools": tools }));
        let listed = |tools: &[Value]| -> Vec<Listed> {
            tools.iter().map(|t| super::super::listing::listed(t.clone(), &|n, h| keep(&lock, n, h))).collect()
        };
        let fast = unchanged(&lock, &listed(&tools)).expect("the locked listing is unchanged");
        let mut reordered: Vec<Value> = tools
            .iter()
            .rev()
            .map(|t| serde_json::from_str(&serde_json::to_string_pretty(t).unwrap()).unwrap())
            .collect();
        reordered[0]["inputSchema"]["properties"]["n"]["maximum"] = json!(1000.0);
        assert!(unchanged(&lock, &listed(&reordered)).is_some(), "the same contracts in another form");
        // What the slow path says of the same listing, a drifted tool beside it forcing it; and the
        // slow path of tools not kept (the lock's contracts standing for them) says the same.
        let mut more = tools.clone();
        more.push(tool("extra", "New.", &[]));
        let slow = check(&lock, &more, &Policy::default());
        let stood_for = check_listed(&lock, listed(&more), &Policy::default());
        assert!(listed(&more)[..2].iter().all(|t| t.value.is_none()));
        for name in ["a", "odd", "extra"] {
            assert_eq!(stood_for.verdict(name), slow.verdict(name), "{name}");
        }
        for name in ["a", "odd"] {
            assert_eq!(fast.verdict(name), slow.verdict(name), "{name}");
        }
        assert!(unchanged(&lock, &listed(&more)).is_none());
        assert!(unchanged(&lock, &listed(&tools[..1])).is_none());
        assert!(unchanged(&lock, &listed(&[tools[0].clone(), tools[0].clone()])).is_none());
    }

    #[test]
    fn unlocked_unlisted_and_unhashable_tools_are_blocked() {
        let lock = lock_of(&json!({"tools": [tool("a", "Search.", &[]), tool("gone", "Old.", &[])]}));
        let broken = json!({"name": "c", "inputSchema": null});
        let checked = check(&lock, &[tool("a", "Search.", &[]), tool("new", "New.", &[]), broken], &Policy::default());
        assert!(!checked.verdict("a").blocked);
        let new = checked.verdict("new");
        assert!(new.blocked && new.locked.is_none() && new.current.is_some(), "{new:?}");
        let gone = checked.verdict("gone");
        assert!(gone.blocked && gone.current.is_none() && gone.rules() == vec!["tool-removed"], "{gone:?}");
        let c = checked.verdict("c");
        assert!(c.blocked && c.problem.is_some(), "{c:?}");
        assert!(checked.verdict("never-heard-of").blocked);
        // Whatever the threshold: a tool nobody reviewed is not judged by the severity of `tool-added`.
        let lenient = Policy { block_on: Some(Severity::Error), ..Policy::default() };
        let checked = check(&lock, &[tool("a", "Search.", &[]), tool("new", "New.", &[])], &lenient);
        assert!(checked.verdict("new").blocked && !checked.verdict("a").blocked);
    }

    #[test]
    fn policy_lets_accepted_drift_through() {
        let lock = lock_of(&json!({"tools": [tool("a", "Search the issues of the project.", &[])]}));
        let reworded = vec![tool("a", "Search the project's issues.", &[])];
        let required = vec![tool("a", "Search the issues of the project.", &["n"])];
        let default = Policy::default();
        assert!(check(&lock, &reworded, &default).verdict("a").blocked, "any hash change blocks by default");
        let warning = Policy { block_on: Some(Severity::Warning), ..Policy::default() };
        let v = check(&lock, &reworded, &warning).verdict("a");
        assert!(!v.blocked, "an info finding is below --block-on warning: {v:?}");
        assert!(check(&lock, &required, &warning).verdict("a").blocked);
        let allow = Policy { allow: vec![RuleId::InputRequiredAdded], ..Policy::default() };
        assert!(!check(&lock, &required, &allow).verdict("a").blocked);
        assert!(check(&lock, &reworded, &allow).verdict("a").blocked, "only the allowed rule passes");
        // The configuration's severities: raised, the reworded description blocks at `warning`; off, the
        // required parameter does not block (and is not shown).
        let mut raised = Policy { block_on: Some(Severity::Warning), ..Policy::default() };
        raised.severity.insert(RuleId::DescriptionReworded, Some(Severity::Error));
        let v = check(&lock, &reworded, &raised).verdict("a");
        assert!(v.blocked && v.changes[0].severity == Severity::Error, "{v:?}");
        let mut off = Policy::default();
        off.severity.insert(RuleId::InputRequiredAdded, None);
        let v = check(&lock, &required, &off).verdict("a");
        assert!(!v.blocked && v.changes.is_empty() && v.locked != v.current, "{v:?}");
    }
}
