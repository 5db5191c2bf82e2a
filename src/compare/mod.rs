//! Stage 3, compare: a direction-aware walk over two snapshots that emits a closed set of typed
//! [`Change`]s, each with JSON Pointers into the old and the new tool object.
//!
//! Takes two [`Snapshot`]s; returns changes in a deterministic order (tools by name, then walk order).
//! Promises: a change under a keyword this stage does not model is reported as
//! [`SchemaChange::CannotDecide`], never skipped; `$ref` cycles and any nesting depth terminate
//! (a pair of references already under comparison is assumed compatible, as in coinductive proofs);
//! no network access, ever. Tools are compared in parallel; the order of the result does not depend on
//! the thread count.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use rayon::prelude::*;
use serde_json::{Map, Value, json};

pub mod budget;
mod defaults;
pub mod dialect;
mod probe;
mod spelling;
mod tool;
mod tools;
pub mod witness;

use crate::load::span::escape_token;
use crate::load::{Snapshot, Tool};
use crate::schema::{self, At, RefProblem, TypeSet, View, json_eq, num_cmp};
use budget::Budget;
use tool::compare_tool;
use tools::{
    Facts, Ident, POSTING_CAP, assign, blocked_pairs, candidate_pairs, description_words, jaccard, pair_renamed_tools,
    successors,
};
pub use tools::{name_similarity, normalize_name};
use witness::{Plan, Seg, Witness};

/// Which way a schema is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// `inputSchema`: the new schema must accept every old call.
    Input,
    /// `outputSchema`: the old schema must accept every new result.
    Output,
}

/// How the set of instances a schema accepts moved: `less` when some old instance is now rejected,
/// `more` when some instance is accepted that was not before. Both can hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    pub less: bool,
    pub more: bool,
}

impl Delta {
    const LESS: Delta = Delta { less: true, more: false };
    const MORE: Delta = Delta { less: false, more: true };

    fn of(less: bool, more: bool) -> Delta {
        Delta { less, more }
    }

    /// Whether this breaks old users of `input` (callers, who break on less) or of the output
    /// (consumers, who break on more).
    #[must_use]
    pub fn breaks(self, input: bool) -> bool {
        if input { self.less } else { self.more }
    }
}

/// What happens to an argument that old callers still send under a name the new schema no longer
/// declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// `additionalProperties: false`: the call is rejected.
    Rejected,
    /// The schema is open: validation passes and the server ignores the value.
    Ignored,
    /// `additionalProperties` is a schema: the value is validated against it and then ignored.
    Revalidated,
    /// Renamed to a property that is required now: old calls lack it and are rejected.
    MissingRequired,
}

/// One typed change inside a schema.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemaChange {
    PropertyRemoved { name: String, was_required: bool, fate: Fate },
    PropertyAdded { name: String, required: bool, old_closed: bool },
    PropertyRenamed { from: String, to: String, fate: Fate },
    RequiredAdded { name: String, new_property: bool },
    RequiredRemoved { name: String },
    Type { old: TypeSet, new: TypeSet },
    Enum { removed: Vec<Value>, added: Vec<Value>, introduced: bool, dropped: bool },
    Constraint { keyword: String, old: Option<Value>, new: Option<Value>, delta: Delta },
    Pattern { old: Option<String>, new: Option<String> },
    Format { old: Option<String>, new: Option<String> },
    AdditionalProperties { closed: bool },
    Default { old: Option<Value>, new: Option<Value> },
    Composition { keyword: String, detail: String, delta: Delta },
    CannotDecide { keyword: String, reason: String },
}

/// One typed change of a tool.
#[derive(Clone, Debug, PartialEq)]
pub enum ChangeKind {
    /// `successor`: the tool that most likely took over (several removed tools with one successor are a
    /// merge).
    ToolRemoved {
        successor: Option<String>,
        merged_with: Vec<String>,
    },
    /// The same name now carries an unrelated contract: most parameters replaced, description unrelated.
    ContractReplaced {
        kept: usize,
        old_params: usize,
        new_params: usize,
    },
    ToolAdded,
    ToolRenamed {
        from: String,
    },
    TitleChanged {
        old: Option<String>,
        new: Option<String>,
    },
    Annotation {
        hint: &'static str,
        old: bool,
        new: bool,
    },
    OutputSchemaAdded,
    OutputSchemaRemoved,
    DialectChanged {
        old: Option<String>,
        new: Option<String>,
        /// The keyword uses whose meaning differs between the two dialects (never empty: a change of
        /// `$schema` that means the same is not reported).
        uses: Vec<dialect::Use>,
    },
    Description {
        old: String,
        new: String,
    },
    Schema {
        side: Side,
        change: SchemaChange,
    },
    /// A candidate drawn from the accepting side (an old call, a new result) that the other side's
    /// validator rejects, found by the probe (see `compare/probe.rs`) whatever the walk modelled.
    Rejected {
        side: Side,
        /// The rejecting keyword, as the validator names it (`anyOf`, `required`).
        keyword: String,
        /// Where the candidate came from (`the minimal old call`, `` `enum[1]` of `region` ``).
        origin: String,
        /// Reasons of the `*-cannot-decide` changes this rejection explains (folded into it).
        undecided: Vec<String>,
    },
}

/// A change with where it happened. Pointers are relative to the tool object.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The tool's name in the new snapshot (the old one for removals).
    pub tool: String,
    pub kind: ChangeKind,
    pub old_ptr: Option<String>,
    pub new_ptr: Option<String>,
    /// A confirmed counterexample, for changes that narrow in the breaking direction.
    pub witness: Option<Witness>,
    /// What the walk handed over for confirmation (cleared once confirmed or given up).
    pub plan: Option<Plan>,
}

/// The effective annotation hints with the MCP defaults applied.
pub const HINTS: &[(&str, bool)] =
    &[("readOnlyHint", false), ("destructiveHint", true), ("idempotentHint", false), ("openWorldHint", true)];

/// Whether a hint value is the riskier one.
#[must_use]
pub fn hint_is_risky(hint: &str, value: bool) -> bool {
    match hint {
        "readOnlyHint" | "idempotentHint" => !value,
        _ => value,
    }
}

/// Nesting deeper than this is reported as "cannot decide" rather than walked.
const MAX_DEPTH: usize = 96;
/// Longest chain of `$ref` hops followed before giving up.
const MAX_REF_HOPS: usize = 64;

/// Compares two snapshots.
#[must_use]
pub fn compare(old: &Snapshot, new: &Snapshot) -> Vec<Change> {
    let removed: Vec<&Tool> = old.tools.values().filter(|t| !new.tools.contains_key(&t.name)).collect();
    let added: Vec<&Tool> = new.tools.values().filter(|t| !old.tools.contains_key(&t.name)).collect();
    // Names, parameters and description words once per tool; each removed tool's likely successor once.
    let (gone_facts, new_facts): (Vec<Facts>, Vec<Facts>) = rayon::join(
        || removed.par_iter().map(|t| Facts::of(t)).collect(),
        || added.par_iter().map(|t| Facts::of(t)).collect(),
    );
    let successor_of: Vec<Option<usize>> = successors(&gone_facts, &new_facts);
    // Several removed tools that share one successor were merged into it: that is not a rename.
    let mut merged: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, s) in successor_of.iter().enumerate() {
        if let Some(j) = s {
            merged.entry(*j).or_default().push(i);
        }
    }
    let targets: Vec<usize> = (0..added.len()).filter(|j| merged.get(j).is_none_or(|m| m.len() < 2)).collect();
    let target_facts: Vec<&Facts> = targets.iter().map(|&j| &new_facts[j]).collect();
    let renames: Vec<(&Tool, &Tool)> = pair_renamed_tools(&gone_facts, &target_facts)
        .into_iter()
        .map(|(i, k)| (removed[i], added[targets[k]]))
        .collect();
    let renamed_old: HashSet<&str> = renames.iter().map(|(o, _)| o.name.as_str()).collect();
    let renamed_new: HashSet<&str> = renames.iter().map(|(_, n)| n.name.as_str()).collect();

    let mut pairs: Vec<(&Tool, &Tool)> =
        old.tools.values().filter_map(|o| new.tools.get(&o.name).map(|n| (o, n))).collect();
    pairs.extend(renames.iter().copied());
    pairs.sort_by(|a, b| a.1.name.cmp(&b.1.name));

    let mut changes: Vec<Change> = Vec::new();
    for (i, t) in removed.iter().enumerate() {
        if renamed_old.contains(t.name.as_str()) {
            continue;
        }
        let successor = successor_of[i];
        let merged_with: Vec<String> = successor
            .and_then(|j| merged.get(&j))
            .into_iter()
            .flatten()
            .filter(|&&o| o != i && !renamed_old.contains(removed[o].name.as_str()))
            .map(|&o| removed[o].name.clone())
            .collect();
        changes.push(Change {
            tool: t.name.clone(),
            kind: ChangeKind::ToolRemoved { successor: successor.map(|j| added[j].name.clone()), merged_with },
            old_ptr: Some(String::new()),
            new_ptr: None,
            witness: None,
            plan: None,
        });
    }
    for t in &added {
        if !renamed_new.contains(t.name.as_str()) {
            changes.push(Change {
                tool: t.name.clone(),
                kind: ChangeKind::ToolAdded,
                old_ptr: None,
                new_ptr: Some(String::new()),
                witness: None,
                plan: None,
            });
        }
    }
    for (o, n) in &renames {
        changes.push(Change {
            tool: n.name.clone(),
            kind: ChangeKind::ToolRenamed { from: o.name.clone() },
            old_ptr: Some("/name".into()),
            new_ptr: Some("/name".into()),
            witness: None,
            plan: None,
        });
    }
    let per_tool: Vec<Vec<Change>> = pairs.par_iter().map(|(o, n)| compare_tool(o, n)).collect();
    changes.extend(per_tool.into_iter().flatten());
    changes
}

static TRUE: Value = Value::Bool(true);
/// The whole domain of `null` and `boolean`.
static SMALL: [Value; 3] = [Value::Null, Value::Bool(false), Value::Bool(true)];

/// The recursive walk over one pair of schemas.
struct Walker<'a, 'o> {
    tool: &'a str,
    side: Side,
    old_root: &'a Value,
    new_root: &'a Value,
    /// Pointer of the schema roots within the tool (`/inputSchema`).
    base: &'a str,
    out: &'o mut Vec<Change>,
    /// Pairs of reference targets under comparison (coinduction).
    in_progress: HashSet<(String, String)>,
    /// Pairs of reference targets already compared completely: reached again through another path
    /// (a `$ref` diamond), they would only repeat the changes already recorded, which [`dedupe`]
    /// drops; so they are not walked again.
    done: HashSet<(String, String)>,
    /// How many times the walk stopped at [`MAX_DEPTH`]: a pair walked past such a stop is not
    /// complete (a shallower path may see further).
    cutoffs: usize,
    /// Steps and bytes left for this tool and direction.
    budget: &'o Budget,
    depth: usize,
    /// Instance path from the root to the schemas under comparison.
    path: Vec<Seg>,
    /// The (old, new) schema objects under comparison, innermost last.
    locals: Vec<(&'a Value, &'a Value)>,
}

impl<'a, 'o> Walker<'a, 'o> {
    fn new(
        tool: &'a str,
        side: Side,
        old_root: &'a Value,
        new_root: &'a Value,
        base: &'a str,
        out: &'o mut Vec<Change>,
        budget: &'o Budget,
    ) -> Self {
        Walker {
            tool,
            side,
            old_root,
            new_root,
            base,
            out,
            in_progress: HashSet::new(),
            done: HashSet::new(),
            cutoffs: 0,
            budget,
            depth: 0,
            path: Vec::new(),
            locals: Vec::new(),
        }
    }

    fn emit(&mut self, change: SchemaChange, old_ptr: Option<String>, new_ptr: Option<String>) {
        let plan = self.plan_for(&change, old_ptr.as_deref(), new_ptr.as_deref());
        self.out.push(Change {
            tool: self.tool.to_owned(),
            kind: ChangeKind::Schema { side: self.side, change },
            old_ptr,
            new_ptr,
            witness: None,
            plan,
        });
    }

    /// Walks a pair of subschemas one instance step further down.
    #[allow(clippy::needless_pass_by_value, reason = "pointers are built per call site")]
    fn walk_at(&mut self, seg: Seg, o: &'a Value, op: String, n: &'a Value, np: String) {
        self.path.push(seg);
        self.walk(o, op, n, np);
        self.path.pop();
    }

    /// Local candidate witnesses for a change that narrows in the breaking direction: values the
    /// accepting side ("sub": old for inputs, new for outputs) allows at this place and the other side
    /// may reject. Confirmed later against the whole schemas.
    #[allow(clippy::too_many_lines, reason = "one arm per change kind")]
    fn plan_for(&self, change: &SchemaChange, old_ptr: Option<&str>, new_ptr: Option<&str>) -> Option<Plan> {
        let input = self.side == Side::Input;
        let &(lo, ln) = self.locals.last()?;
        let (sub, sub_root) = if input { (lo, self.old_root) } else { (ln, self.new_root) };
        let budget = self.budget;
        let ex = |s: &Value| witness::example(s, sub_root, budget);
        let sub_obj = || match ex(sub) {
            Some(Value::Object(m)) => Some(m),
            _ if sub.get("type").is_none_or(|t| t == "object") => Some(Map::new()),
            _ => None,
        };
        let with = |name: &str, value: Option<Value>| -> Vec<Value> {
            match (sub_obj(), value) {
                (Some(mut o), Some(v)) => {
                    o.insert(name.to_owned(), v);
                    vec![Value::Object(o)]
                }
                _ => Vec::new(),
            }
        };
        let prop = |name: &str| sub.get("properties").and_then(|p| p.get(name)).unwrap_or(&TRUE);
        let obj_only = || sub_obj().map(Value::Object).into_iter().collect::<Vec<_>>();
        let mut dropped = None;
        let candidates: Vec<Value> = match change {
            SchemaChange::RequiredAdded { .. } if input => obj_only(),
            SchemaChange::RequiredRemoved { .. } if !input => obj_only(),
            SchemaChange::PropertyRemoved { name, was_required, fate } => {
                if input {
                    if *fate == Fate::Ignored {
                        dropped = Some(name.clone());
                    }
                    with(name, ex(prop(name)))
                } else {
                    if !was_required {
                        dropped = Some(name.clone());
                    }
                    // The new schema may now allow values the old one forbade under that name.
                    let mut v: Vec<Value> = type_probes(&TRUE, TypeSet::ALL, sub_root, budget)
                        .into_iter()
                        .flat_map(|x| with(name, Some(x)))
                        .collect();
                    v.extend(obj_only());
                    v
                }
            }
            SchemaChange::PropertyRenamed { from, fate, .. } => {
                if input {
                    if *fate == Fate::Ignored {
                        dropped = Some(from.clone());
                    }
                    with(from, ex(prop(from)))
                } else {
                    dropped = Some(from.clone());
                    obj_only()
                }
            }
            SchemaChange::PropertyAdded { name, old_closed: true, .. } if !input => with(name, ex(prop(name))),
            // Strictly, an open old schema accepted any value under the new name; a witness shows it
            // (reported at `info`: undeclared arguments are not part of the old contract).
            SchemaChange::PropertyAdded { name, old_closed: false, .. } if input => {
                [json!(null), json!(true), json!("example"), json!(1), json!(0.5), json!([]), json!({})]
                    .into_iter()
                    .flat_map(|v| with(name, Some(v)))
                    .collect()
            }
            SchemaChange::AdditionalProperties { closed } if *closed == input => {
                with(witness::EXTRA_KEY, ex(sub.get("additionalProperties").unwrap_or(&TRUE)))
            }
            SchemaChange::Type { old, new } => {
                let lost = if input { old.minus(*new) } else { new.minus(*old) };
                type_probes(sub, lost, sub_root, budget)
            }
            SchemaChange::Enum { removed, added, introduced, dropped: gone } => {
                let mut v: Vec<Value> = if input { removed } else { added }.iter().take(8).cloned().collect();
                if (input && *introduced) || (!input && *gone) {
                    let types = View::new(sub, "").types;
                    v.extend(type_probes(sub, types, sub_root, budget));
                    v.extend([
                        json!("x-mcp-drift"),
                        json!(""),
                        json!(0),
                        json!(-1),
                        json!(0.5),
                        json!(true),
                        json!(null),
                    ]);
                }
                v
            }
            SchemaChange::Constraint { keyword, old, new, delta } if delta.breaks(input) => {
                let sup = if input { ln } else { lo };
                constraint_probes(keyword, old.as_ref(), new.as_ref(), sub, sup, (sub_root, budget))
            }
            SchemaChange::Pattern { .. } => {
                let mut v = pattern_probes(sub);
                v.extend(ex(sub));
                v
            }
            SchemaChange::Composition { delta, .. } if delta.breaks(input) => {
                let (root, ptr) = if input { (self.old_root, old_ptr) } else { (self.new_root, new_ptr) };
                let branch = ptr.and_then(|p| p.strip_prefix(self.base)).and_then(|p| root.pointer(p));
                let mut v: Vec<Value> =
                    branch.and_then(|b| witness::example(b, sub_root, budget)).into_iter().collect();
                if let Some(b) = branch {
                    v.extend(type_probes(b, View::new(b, "").types, sub_root, budget));
                }
                v
            }
            _ => return None,
        };
        Some(Plan { tries: candidates.into_iter().map(|c| (self.path.clone(), c)).collect(), dropped })
    }

    fn cannot_decide(&mut self, keyword: &str, reason: String, op: &str, np: &str) {
        self.emit(
            SchemaChange::CannotDecide { keyword: keyword.to_owned(), reason },
            Some(op.to_owned()),
            Some(np.to_owned()),
        );
    }

    /// Follows `$ref` (and `$dynamicRef`) while the schema is nothing but a reference (annotations
    /// aside), each resolved in the resource it is written in. Returns the target and its pointer, or
    /// the problem that stopped resolution.
    fn deref(
        &self,
        root: &'a Value,
        mut schema: &'a Value,
        mut ptr: String,
    ) -> Result<(&'a Value, String, bool), RefProblem> {
        let mut followed = false;
        for _ in 0..MAX_REF_HOPS {
            let Some(map) = schema.as_object() else { return Ok((schema, ptr, followed)) };
            if let Some(d) = map.get("$recursiveRef") {
                return Err(RefProblem::Dynamic(d.as_str().unwrap_or("?").to_owned()));
            }
            if let Some(d) = map.get("$dynamicRef") {
                let Some(reference) = d.as_str() else { return Err(RefProblem::Unresolved(d.to_string())) };
                if !map.keys().all(|k| k == "$dynamicRef" || schema::ANNOTATIONS.contains(&k.as_str())) {
                    // Beside other validation keywords; the caller compares it as a keyword.
                    return Ok((schema, ptr, followed));
                }
                let (target_ptr, target) = schema::resolve_dynamic(root, Some(map), reference)?;
                schema = target;
                ptr = format!("{}{target_ptr}", self.base);
                followed = true;
                continue;
            }
            // `allOf` with one member and nothing else is that member (pydantic writes `allOf: [{$ref}]`).
            if let Some(Value::Array(members)) = map.get("allOf")
                && members.len() == 1
                && map.keys().all(|k| k == "allOf" || schema::ANNOTATIONS.contains(&k.as_str()))
            {
                schema = &members[0];
                ptr = format!("{ptr}/allOf/0");
                continue;
            }
            let Some(reference) = map.get("$ref").and_then(Value::as_str) else { return Ok((schema, ptr, followed)) };
            let only_ref = map.keys().all(|k| k == "$ref" || schema::ANNOTATIONS.contains(&k.as_str()));
            if !only_ref {
                // `$ref` beside other validation keywords; the caller compares it as a keyword.
                return Ok((schema, ptr, followed));
            }
            let (target_ptr, target) = schema::resolve(root, Some(map), reference)?;
            schema = target;
            ptr = format!("{}{target_ptr}", self.base);
            followed = true;
        }
        Err(RefProblem::TooLong(MAX_REF_HOPS))
    }

    #[allow(
        clippy::needless_pass_by_value,
        reason = "pointers are built per call site; owning them keeps call sites short"
    )]
    fn walk(&mut self, o: &'a Value, op: String, n: &'a Value, np: String) {
        // Every recursion and every `$ref` expansion spends the budget; past it nothing is walked (the
        // caller records one cannot-decide change for the whole direction).
        if !self.budget.step() {
            return;
        }
        if o == n && !schema::contains_ref(o) {
            return;
        }
        if self.depth >= MAX_DEPTH {
            self.cutoffs += 1;
            self.cannot_decide("", format!("schemas nested deeper than {MAX_DEPTH} levels are not compared"), &op, &np);
            return;
        }
        let ((o2, op2, of), (n2, np2, nf)) =
            match (self.deref(self.old_root, o, op.clone()), self.deref(self.new_root, n, np.clone())) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(p), Err(q)) if p == q => return self.ref_problem(o, n, &p, &op, &np),
                // One side resolves and the other does not (or not in the same way): what is behind
                // differs even where the reference is written the same.
                (Err(p), _) | (_, Err(p)) => return self.cannot_decide("$ref", ref_reason(&p), &op, &np),
            };
        if of || nf {
            let key = (op2.clone(), np2.clone());
            if self.done.contains(&key) || !self.in_progress.insert(key.clone()) {
                // Compared completely already (a `$ref` diamond), or already comparing this pair
                // further up: assume compatible (coinduction).
                return;
            }
            let cutoffs = self.cutoffs;
            self.depth += 1;
            self.walk_resolved(o2, op2, n2, np2);
            self.depth -= 1;
            self.in_progress.remove(&key);
            if self.cutoffs == cutoffs && self.budget.exhausted().is_none() {
                self.done.insert(key);
            }
        } else {
            self.depth += 1;
            self.walk_resolved(o2, op2, n2, np2);
            self.depth -= 1;
        }
    }

    /// The same problem on both sides. A remote or dangling reference that is written the same on
    /// both sides, with the same siblings, is the same opaque schema; a dynamic or ambiguous one may
    /// name different schemas on each side, so it is never skipped.
    fn ref_problem(&mut self, o: &Value, n: &Value, problem: &RefProblem, op: &str, np: &str) {
        if o == n && matches!(problem, RefProblem::Remote(_) | RefProblem::Unresolved(_)) {
            return;
        }
        self.cannot_decide("$ref", ref_reason(problem), op, np);
    }

    #[allow(
        clippy::needless_pass_by_value,
        reason = "pointers are built per call site; owning them keeps call sites short"
    )]
    fn walk_resolved(&mut self, o: &'a Value, op: String, n: &'a Value, np: String) {
        self.locals.push((o, n));
        self.walk_resolved_inner(o, op, n, np);
        self.locals.pop();
    }

    #[allow(
        clippy::needless_pass_by_value,
        reason = "pointers are built per call site; owning them keeps call sites short"
    )]
    fn walk_resolved_inner(&mut self, o: &'a Value, op: String, n: &'a Value, np: String) {
        let vo = View::in_document(o, &op, Some((self.old_root, self.base)));
        let vn = View::in_document(n, &np, Some((self.new_root, self.base)));
        // No instance on the accepting side: containment holds whatever the other side says.
        let sub_view = if self.side == Side::Input { &vo } else { &vn };
        if sub_view.types.is_empty() {
            return;
        }
        let unfolded = |v: &View<'_>| v.get("anyOf").is_some() || v.get("oneOf").is_some();
        if unfolded(&vo) || unfolded(&vn) {
            let (ao, an) = (alternatives(o, &op), alternatives(n, &np));
            if ao.is_some() || an.is_some() {
                let keyword = ao.as_ref().or(an.as_ref()).map_or("anyOf", |(k, _)| *k);
                let overlap = self.one_of_exclusivity(ao.as_ref(), an.as_ref(), &op, &np);
                let ao = ao.map_or_else(|| vec![(o, op.clone())], |(_, list)| list);
                let an = an.map_or_else(|| vec![(n, np.clone())], |(_, list)| list);
                self.alternatives(keyword, &ao, &an, &op, &np, overlap);
                self.annotations(o, &op, n, &np);
                return;
            }
        }
        self.unmodelled(&vo, &vn);
        if let (Some(a), Some(b)) = (vo.get("$ref"), vn.get("$ref")) {
            // `$ref` with sibling keywords: compare the targets as one more keyword.
            let (a, b) = (a.clone(), b.clone());
            self.walk_ref_keyword(false, (o, &a), (n, &b));
        } else if vo.get("$ref").is_some() || vn.get("$ref").is_some() {
            self.cannot_decide("$ref", "a `$ref` beside other keywords was added or removed".into(), &op, &np);
        }
        if let (Some(a), Some(b)) = (vo.get("$dynamicRef"), vn.get("$dynamicRef")) {
            // Added, removed or rewritten, `unmodelled` reports it; the same on both sides, what is
            // behind it is compared.
            let (a, b) = (a.clone(), b.clone());
            self.walk_ref_keyword(true, (o, &a), (n, &b));
        }
        self.types_and_values(&vo, &vn);
        let common = vo.types.intersect(vn.types);
        if common.intersects(TypeSet::NUMBER) {
            self.numbers(&vo, &vn, common);
        }
        if common.intersects(TypeSet::STRING) {
            self.lengths(&vo, &vn, &["minLength", "maxLength"]);
            self.strings(&vo, &vn);
        }
        if common.intersects(TypeSet::ARRAY) {
            self.lengths(&vo, &vn, &["minItems", "maxItems"]);
            self.arrays(&vo, &vn);
        }
        if common.intersects(TypeSet::OBJECT) {
            self.lengths(&vo, &vn, &["minProperties", "maxProperties"]);
            self.objects(&vo, &vn);
        }
        for keyword in ["anyOf", "oneOf", "allOf"] {
            self.composition(keyword, &vo, &vn);
        }
        self.not(&vo, &vn);
        self.conditionals(&vo, &vn);
        self.annotations(o, &op, n, &np);
    }

    /// Compares the targets of a `$ref` (or `$dynamicRef`) written beside other keywords in the schema
    /// objects `o` and `n`, one hop.
    fn walk_ref_keyword(&mut self, dynamic: bool, old: (&'a Value, &At<'a>), new: (&'a Value, &At<'a>)) {
        let ((o, a), (n, b)) = (old, new);
        let (ra, rb) = (a.value.as_str().unwrap_or(""), b.value.as_str().unwrap_or(""));
        let resolve = |root: &'a Value, site: &'a Value, reference: &str| {
            if dynamic {
                schema::resolve_dynamic(root, site.as_object(), reference)
            } else {
                schema::resolve(root, site.as_object(), reference)
            }
        };
        let (op, np) = (a.ptr.clone(), b.ptr.clone());
        match (resolve(self.old_root, o, ra), resolve(self.new_root, n, rb)) {
            (Ok((pa, ta)), Ok((pb, tb))) => {
                self.walk(ta, format!("{}{pa}", self.base), tb, format!("{}{pb}", self.base));
            }
            (Err(problem), Err(other)) if problem == other => self.ref_problem(a.value, b.value, &problem, &op, &np),
            (Err(problem), _) | (_, Err(problem)) => self.cannot_decide("$ref", ref_reason(&problem), &op, &np),
        }
    }

    /// Any change under a keyword the walk does not model is "cannot decide".
    fn unmodelled(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let plain = plain_objects(vo, vn);
        let same_if = vo.get("if").map(|x| x.value) == vn.get("if").map(|x| x.value)
            && vo.get("if").is_none_or(|x| !schema::contains_ref(x.value));
        for keyword in schema::UNMODELLED {
            // Handled elsewhere when it is safe: `then`/`else` under the same `if`, and
            // `unevaluatedProperties` on objects without subschemas (where it is `additionalProperties`).
            let same_dependent_keys = match (vo.get("dependentSchemas"), vn.get("dependentSchemas")) {
                (Some(x), Some(y)) => {
                    x.value.as_object().map(|m| m.keys().collect::<Vec<_>>())
                        == y.value.as_object().map(|m| m.keys().collect())
                }
                _ => false,
            };
            if (same_if && matches!(*keyword, "then" | "else"))
                || (plain && *keyword == "unevaluatedProperties")
                || (same_dependent_keys && *keyword == "dependentSchemas")
            {
                continue;
            }
            let (a, b) = (vo.get(keyword), vn.get(keyword));
            // zod 4 spells out `propertyNames: {"type": "string"}` for records: no constraint.
            if *keyword == "propertyNames"
                && spelling::accepts_every_name(a.map(|x| x.value))
                && spelling::accepts_every_name(b.map(|x| x.value))
            {
                continue;
            }
            let same = match (a, b) {
                (None, None) => true,
                (Some(x), Some(y)) => x.value == y.value && !schema::contains_ref(x.value),
                _ => false,
            };
            if !same {
                let op = a.map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
                let np = b.map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone());
                let what = match (a, b) {
                    (None, Some(_)) => "was added",
                    (Some(_), None) => "was removed",
                    _ => "changed",
                };
                self.cannot_decide(
                    keyword,
                    format!("`{keyword}` {what}; its effect on validity is not analyzed yet"),
                    &op,
                    &np,
                );
            }
        }
    }

    fn types_and_values(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let type_ptrs = || {
            (vo.types_at.clone().or_else(|| Some(vo.ptr.clone())), vn.types_at.clone().or_else(|| Some(vn.ptr.clone())))
        };
        if vo.values.is_none() && vn.values.is_none() {
            let lost = vo.types.minus(vn.types);
            let gained = vn.types.minus(vo.types);
            if !lost.is_empty() || !gained.is_empty() {
                let (a, b) = type_ptrs();
                self.emit(SchemaChange::Type { old: vo.types, new: vn.types }, a, b);
            }
            return;
        }
        let accepts = |v: &View<'_>, x: &Value| {
            v.types.admits(x) && v.values.as_ref().is_none_or(|(list, _)| list.iter().any(|w| json_eq(x, w)))
        };
        let finite_domain = |v: &View<'a>| -> Option<Vec<&'a Value>> {
            if let Some((list, _)) = &v.values {
                return Some(list.iter().copied().filter(|x| v.types.admits(x)).collect());
            }
            if TypeSet::NULL.union(TypeSet::BOOLEAN).contains(v.types) {
                return Some(SMALL.iter().filter(|x| v.types.admits(x)).collect());
            }
            None
        };
        let (old_dom, new_dom) = (finite_domain(vo), finite_domain(vn));
        let removed: Vec<Value> = old_dom.as_ref().map(|d| fast_difference(d, vn, &accepts)).unwrap_or_default();
        let added: Vec<Value> = new_dom.as_ref().map(|d| fast_difference(d, vo, &accepts)).unwrap_or_default();
        let introduced = old_dom.is_none() && new_dom.is_some();
        let dropped = old_dom.is_some() && new_dom.is_none();
        if removed.is_empty() && added.is_empty() && !introduced && !dropped {
            return;
        }
        let optr = vo
            .values
            .as_ref()
            .map(|(_, p)| p.clone())
            .or_else(|| vo.types_at.clone())
            .unwrap_or_else(|| vo.ptr.clone());
        let nptr = vn
            .values
            .as_ref()
            .map(|(_, p)| p.clone())
            .or_else(|| vn.types_at.clone())
            .unwrap_or_else(|| vn.ptr.clone());
        self.emit(SchemaChange::Enum { removed, added, introduced, dropped }, Some(optr), Some(nptr));
    }

    #[allow(
        clippy::float_cmp,
        reason = "equal written bounds are exactly equal; anything else is compared by divisibility"
    )]
    fn numbers(&mut self, vo: &View<'a>, vn: &View<'a>, common: TypeSet) {
        let integers_only = !common.intersects(TypeSet::FRACTION);
        for lower in [true, false] {
            let a = bound(vo, lower, integers_only);
            let b = bound(vn, lower, integers_only);
            let (tighter, looser) = compare_bounds(a.as_ref(), b.as_ref(), lower);
            if tighter || looser {
                let keyword =
                    b.as_ref().or(a.as_ref()).map_or(if lower { "minimum" } else { "maximum" }, |x| x.keyword);
                let op = a.as_ref().map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
                let np = b.as_ref().map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone());
                self.emit(
                    SchemaChange::Constraint {
                        keyword: keyword.to_owned(),
                        old: a.map(|x| x.written),
                        new: b.map(|x| x.written),
                        delta: Delta::of(tighter, looser),
                    },
                    Some(op),
                    Some(np),
                );
            }
        }
        let (a, b) = (vo.get("multipleOf"), vn.get("multipleOf"));
        let delta = match (a.and_then(|x| x.value.as_f64()), b.and_then(|x| x.value.as_f64())) {
            (None, None) => return,
            (Some(_), None) => Delta::MORE,
            (None, Some(_)) => Delta::LESS,
            (Some(x), Some(y)) if x == y => return,
            (Some(x), Some(y)) => {
                // New accepts every old value iff old's step is a multiple of new's step.
                let old_in_new = divides(y, x);
                let new_in_old = divides(x, y);
                Delta::of(!old_in_new, !new_in_old)
            }
        };
        self.constraint("multipleOf", vo, vn, delta);
    }

    fn constraint(&mut self, keyword: &str, vo: &View<'a>, vn: &View<'a>, delta: Delta) {
        let (a, b) = (vo.get(keyword), vn.get(keyword));
        let op = a.map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
        let np = b.map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone());
        self.emit(
            SchemaChange::Constraint {
                keyword: keyword.to_owned(),
                old: a.map(|x| x.value.clone()),
                new: b.map(|x| x.value.clone()),
                delta,
            },
            Some(op),
            Some(np),
        );
    }

    /// `min*`/`max*` counts: a larger minimum or a smaller maximum accepts less.
    #[allow(clippy::float_cmp, reason = "counts are integers written in JSON; exact comparison is intended")]
    fn lengths(&mut self, vo: &View<'a>, vn: &View<'a>, keywords: &[&str; 2]) {
        for (i, keyword) in keywords.iter().enumerate() {
            let get = |v: &View<'a>| v.get(keyword).and_then(|x| x.value.as_f64());
            let (a, b) = (get(vo), get(vn));
            let is_min = i == 0;
            let norm = |x: Option<f64>| x.unwrap_or(if is_min { 0.0 } else { f64::INFINITY });
            let (x, y) = (norm(a), norm(b));
            if x == y {
                continue;
            }
            let tighter = if is_min { y > x } else { y < x };
            self.constraint(keyword, vo, vn, Delta::of(tighter, !tighter));
        }
    }

    fn strings(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let text = |v: &View<'a>, k: &str| {
            v.get(k).map(|x| x.value.as_str().map_or_else(|| x.value.to_string(), str::to_owned))
        };
        let (a, b) = (text(vo, "pattern"), text(vn, "pattern"));
        if a != b {
            let op = vo.get("pattern").map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
            let np = vn.get("pattern").map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone());
            let implied = |p: &Option<String>, q: &Option<String>| match (p, q) {
                (_, None) => true,
                (None, Some(_)) => false,
                (Some(p), Some(q)) => witness::pattern_implies(p, q),
            };
            let (old_in_new, new_in_old) = (implied(&a, &b), implied(&b, &a));
            if old_in_new || new_in_old {
                if !(old_in_new && new_in_old) {
                    let delta = Delta::of(!old_in_new, !new_in_old);
                    let (old, new) = (a.map(Value::String), b.map(Value::String));
                    self.emit(
                        SchemaChange::Constraint { keyword: "pattern".into(), old, new, delta },
                        Some(op),
                        Some(np),
                    );
                }
            } else if let (Some(x), Some(y)) = (
                a.as_deref().and_then(witness::literal_alternatives),
                b.as_deref().and_then(witness::literal_alternatives),
            ) {
                // Both patterns are anchored lists of literals: compare them as sets, exactly.
                let lost = x.iter().any(|l| !y.contains(l));
                let gained = y.iter().any(|l| !x.contains(l));
                if lost || gained {
                    let (old, new) = (a.map(Value::String), b.map(Value::String));
                    self.emit(
                        SchemaChange::Constraint {
                            keyword: "pattern".into(),
                            old,
                            new,
                            delta: Delta::of(lost, gained),
                        },
                        Some(op),
                        Some(np),
                    );
                }
            } else {
                self.emit(SchemaChange::Pattern { old: a, new: b }, Some(op), Some(np));
            }
        }
        let (a, b) = (text(vo, "format"), text(vn, "format"));
        if a != b {
            let op = vo.get("format").map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
            let np = vn.get("format").map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone());
            self.emit(SchemaChange::Format { old: a, new: b }, Some(op), Some(np));
        }
    }

    fn arrays(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let flag = |v: &View<'a>| v.get("uniqueItems").and_then(|x| x.value.as_bool()).unwrap_or(false);
        let (a, b) = (flag(vo), flag(vn));
        if a != b {
            self.constraint("uniqueItems", vo, vn, Delta::of(b, a));
        }
        // Element by element: position i is governed by `prefixItems[i]` when there is one, else by
        // `items` (absent means any value). Then the tail beyond both tuples.
        let tuple = |v: &View<'a>| {
            v.get("prefixItems").map(|x| (x.value.as_array().map_or(&[][..], Vec::as_slice), x.ptr.clone()))
        };
        let rest =
            |v: &View<'a>| v.get("items").map_or((&TRUE, format!("{}/items", v.ptr)), |x| (x.value, x.ptr.clone()));
        let (to, tn) = (tuple(vo), tuple(vn));
        let (ro, rn) = (rest(vo), rest(vn));
        let len = to.as_ref().map_or(0, |t| t.0.len()).max(tn.as_ref().map_or(0, |t| t.0.len()));
        let at = |t: &Option<(&'a [Value], String)>, r: &(&'a Value, String), i: usize| match t {
            Some((list, ptr)) if i < list.len() => (&list[i], format!("{ptr}/{i}")),
            _ => (r.0, r.1.clone()),
        };
        for i in 0..len {
            let ((x, xp), (y, yp)) = (at(&to, &ro, i), at(&tn, &rn, i));
            self.walk_at(Seg::Index(i), x, xp, y, yp);
        }
        if vo.get("items").is_some() || vn.get("items").is_some() {
            self.walk_at(Seg::Index(len), ro.0, ro.1.clone(), rn.0, rn.1.clone());
        }
        self.contains(vo, vn);
    }

    /// `then`/`else` under an unchanged `if` (the instance is split the same way on both sides, so each
    /// part is compared on its own), and `dependentSchemas` with the same trigger names.
    fn conditionals(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let same_if = vo.get("if").map(|x| x.value) == vn.get("if").map(|x| x.value);
        if same_if && vo.get("if").is_some() {
            for keyword in ["then", "else"] {
                let (a, b) = (vo.get(keyword).cloned(), vn.get(keyword).cloned());
                if a.is_none() && b.is_none() {
                    continue;
                }
                let (x, xp) = a.map_or((&TRUE, format!("{}/{keyword}", vo.ptr)), |x| (x.value, x.ptr));
                let (y, yp) = b.map_or((&TRUE, format!("{}/{keyword}", vn.ptr)), |y| (y.value, y.ptr));
                let start = self.out.len();
                self.walk(x, xp, y, yp);
                // Witnesses for `then` must also satisfy the `if`.
                if keyword == "then" {
                    let root = if self.side == Side::Input { self.old_root } else { self.new_root };
                    if let Some(Value::Object(cond)) =
                        vo.get("if").and_then(|i| witness::example(i.value, root, self.budget))
                    {
                        self.merge_into_plans(start, &cond);
                    }
                }
            }
        }
        let (a, b) = (vo.get("dependentSchemas").cloned(), vn.get("dependentSchemas").cloned());
        if let (Some(x), Some(y)) = (&a, &b)
            && let (Some(mx), Some(my)) = (x.value.as_object(), y.value.as_object())
            && mx.keys().eq(my.keys())
            && x.value != y.value
        {
            let root = if self.side == Side::Input { self.old_root } else { self.new_root };
            let sub = if self.side == Side::Input { vo } else { vn };
            for (key, sx) in mx {
                let k = escape_token(key);
                let start = self.out.len();
                self.walk(sx, format!("{}/{k}", x.ptr), &my[key], format!("{}/{k}", y.ptr));
                // Witnesses must have the trigger name present.
                let value = sub
                    .properties()
                    .get(key.as_str())
                    .and_then(|p| witness::example(p.value, root, self.budget))
                    .unwrap_or(json!("example"));
                let mut trigger = Map::new();
                trigger.insert(key.clone(), value);
                self.merge_into_plans(start, &trigger);
            }
        }
    }

    /// Adds `extra` members to the object candidates that the changes since `start` placed at the
    /// current instance location.
    fn merge_into_plans(&mut self, start: usize, extra: &Map<String, Value>) {
        let here = self.path.clone();
        for change in &mut self.out[start..] {
            let Some(plan) = change.plan.as_mut() else { continue };
            for (path, value) in &mut plan.tries {
                if *path == here
                    && let Value::Object(m) = value
                {
                    for (k, v) in extra {
                        m.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
            }
        }
    }

    /// `dependentRequired`: a name newly required when another is present accepts less.
    fn dependent_required(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let deps = |v: &View<'a>| dependencies(v.get("dependentRequired").map(|x| x.value));
        let (a, b) = (deps(vo), deps(vn));
        if a == b {
            return;
        }
        let keys: BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
        let empty = BTreeSet::new();
        let (required_a, required_b) = (vo.required(), vn.required());
        for key in keys {
            let (x, y) = (a.get(key).unwrap_or(&empty), b.get(key).unwrap_or(&empty));
            if x == y {
                continue;
            }
            // A name one side adds is no change when the other side already requires it, directly
            // (`required`) or through a chain of dependencies (`a` needs `b`, `b` needs `c`).
            let implied = |deps: &BTreeMap<&'a str, BTreeSet<&'a str>>, required: &BTreeSet<&str>, names: Vec<&str>| {
                let mut left: BTreeSet<&str> = names.into_iter().filter(|n| !required.contains(n)).collect();
                let mut reached = dependency_chain(deps, key);
                while !left.is_empty()
                    && let Some(name) = reached.next()
                {
                    left.remove(name);
                }
                left.is_empty()
            };
            let more = !implied(&a, &required_a, y.difference(x).copied().collect());
            let fewer = !implied(&b, &required_b, x.difference(y).copied().collect());
            if !more && !fewer {
                continue;
            }
            let delta = Delta::of(more, fewer);
            let op = vo.get("dependentRequired").map_or_else(|| vo.ptr.clone(), |v| v.ptr.clone());
            let np = vn.get("dependentRequired").map_or_else(|| vn.ptr.clone(), |v| v.ptr.clone());
            self.emit(
                SchemaChange::Constraint {
                    keyword: "dependentRequired".into(),
                    old: Some(json!({ key: x })),
                    new: Some(json!({ key: y })),
                    delta,
                },
                Some(op),
                Some(np),
            );
        }
    }

    /// `patternProperties` with the same patterns: each pattern's schema is compared like a property,
    /// at a member name that the pattern matches. Different patterns cannot be decided here.
    #[allow(clippy::many_single_char_names, reason = "a/b are the old/new keyword, x/y their values, as elsewhere")]
    fn pattern_properties(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let (a, b) = (vo.get("patternProperties").cloned(), vn.get("patternProperties").cloned());
        let (ma, mb) = match (&a, &b) {
            (None, None) => return,
            (Some(x), Some(y)) if x.value == y.value && !schema::contains_ref(x.value) => return,
            (Some(x), Some(y)) => match (x.value.as_object(), y.value.as_object()) {
                (Some(p), Some(q)) if p.keys().eq(q.keys()) => (p, q),
                _ => {
                    return self.cannot_decide(
                        "patternProperties",
                        "the set of patterns changed".into(),
                        &x.ptr,
                        &y.ptr,
                    );
                }
            },
            (x, y) => {
                let op = x.as_ref().map_or_else(|| vo.ptr.clone(), |v| v.ptr.clone());
                let np = y.as_ref().map_or_else(|| vn.ptr.clone(), |v| v.ptr.clone());
                return self.cannot_decide(
                    "patternProperties",
                    "`patternProperties` was added or removed".into(),
                    &op,
                    &np,
                );
            }
        };
        let (pa, pb) = (a.map(|x| x.ptr).unwrap_or_default(), b.map(|x| x.ptr).unwrap_or_default());
        for (pattern, x) in ma {
            let y = &mb[pattern];
            let probe = witness::literal_alternatives(pattern)
                .and_then(|l| l.into_iter().next())
                .or_else(|| witness::literal_prefix(pattern).map(|p| format!("{p}x")))
                .unwrap_or_else(|| "x".to_owned());
            let seg = Seg::Key { old: probe.clone(), new: probe };
            let key = escape_token(pattern);
            self.walk_at(seg, x, format!("{pa}/{key}"), y, format!("{pb}/{key}"));
        }
    }

    /// `not`: the old schema is contained in the new one when the new `not` excludes nothing that the old
    /// `not` allowed, i.e. when `new.not` is contained in `old.not`. That is the same walk with the pair
    /// swapped; its findings are folded into one `not` change with the witnesses it found.
    fn not(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let input = self.side == Side::Input;
        let (a, b) = (vo.get("not").cloned(), vn.get("not").cloned());
        let (delta, detail, tries) = match (&a, &b) {
            (None, None) => return,
            (Some(x), Some(y)) if x.value == y.value && !schema::contains_ref(x.value) => return,
            (Some(x), Some(y)) => {
                let mut produced = Vec::new();
                let mut inner = Walker::new(
                    self.tool,
                    self.side,
                    self.new_root,
                    self.old_root,
                    self.base,
                    &mut produced,
                    self.budget,
                );
                inner.path.clone_from(&self.path);
                inner.depth = self.depth + 1;
                inner.walk(y.value, y.ptr.clone(), x.value, x.ptr.clone());
                if let Some(reason) = produced.iter().find_map(|c| match &c.kind {
                    ChangeKind::Schema { change: SchemaChange::CannotDecide { reason, .. }, .. } => {
                        Some(reason.clone())
                    }
                    _ => None,
                }) {
                    let (op, np) = (x.ptr.clone(), y.ptr.clone());
                    return self.cannot_decide("not", format!("inside `not`: {reason}"), &op, &np);
                }
                let breaking: Vec<&Change> = produced
                    .iter()
                    .filter(|c| matches!(&c.kind, ChangeKind::Schema { side, change } if breaks(*side, change)))
                    .collect();
                let schema_changes = produced.iter().any(|c| matches!(c.kind, ChangeKind::Schema { .. }));
                if breaking.is_empty() && !schema_changes {
                    return;
                }
                let tries: Vec<(Vec<Seg>, Value)> =
                    breaking.iter().filter_map(|c| c.plan.as_ref()).flat_map(|p| p.tries.clone()).collect();
                let narrowed = !breaking.is_empty();
                let delta = if narrowed == input { Delta::LESS } else { Delta::MORE };
                (delta, "the `not` schema changed what it excludes".to_owned(), tries)
            }
            (None, Some(y)) => {
                let tries = witness::example(y.value, self.new_root, self.budget)
                    .map(|v| (self.path.clone(), v))
                    .into_iter()
                    .collect();
                (Delta::LESS, "a `not` was added".to_owned(), tries)
            }
            (Some(x), None) => {
                let tries = witness::example(x.value, self.old_root, self.budget)
                    .map(|v| (self.path.clone(), v))
                    .into_iter()
                    .collect();
                (Delta::MORE, "a `not` was removed".to_owned(), tries)
            }
        };
        let op = a.as_ref().map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
        let np = b.as_ref().map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone());
        let breaking = delta.breaks(input);
        self.out.push(Change {
            tool: self.tool.to_owned(),
            kind: ChangeKind::Schema {
                side: self.side,
                change: SchemaChange::Composition { keyword: "not".into(), detail, delta },
            },
            old_ptr: Some(op),
            new_ptr: Some(np),
            witness: None,
            plan: breaking.then_some(Plan { tries, dropped: None }),
        });
    }

    /// `contains` with `minContains`/`maxContains`. With the same `contains` schema, the counts are
    /// bounds like `minItems`; with the same counts (at most one required match, no maximum), a
    /// `contains` schema that accepts less breaks exactly as an element schema would.
    fn contains(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let (a, b) = (vo.get("contains"), vn.get("contains"));
        if a.is_none() && b.is_none() {
            return;
        }
        let count = |v: &View<'a>, k: &str| v.get(k).map(|x| x.value.clone());
        let same_counts = count(vo, "minContains") == count(vn, "minContains")
            && count(vo, "maxContains") == count(vn, "maxContains");
        match (a, b) {
            (Some(x), Some(y)) if x.value == y.value && !schema::contains_ref(x.value) => {
                self.lengths(vo, vn, &["minContains", "maxContains"]);
            }
            (Some(x), Some(y))
                if same_counts
                    && count(vo, "maxContains").is_none()
                    && count(vo, "minContains").and_then(|m| m.as_u64()).is_none_or(|m| m <= 1) =>
            {
                let (x, y) = (x.clone(), y.clone());
                self.walk_at(Seg::Index(0), x.value, x.ptr, y.value, y.ptr);
            }
            _ => {
                let op = a.map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
                let np = b.map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone());
                self.cannot_decide(
                    "contains",
                    "`contains` changed together with its counts, or was added or removed".into(),
                    &op,
                    &np,
                );
            }
        }
    }

    #[allow(clippy::too_many_lines, reason = "one pass over the object keywords reads best in one place")]
    fn objects(&mut self, vo: &View<'a>, vn: &View<'a>) {
        let (po, pn) = (vo.properties(), vn.properties());
        let (ro, rn) = (vo.required(), vn.required());
        // Without subschemas that could evaluate properties, `unevaluatedProperties` means exactly what
        // `additionalProperties` means.
        let plain = plain_objects(vo, vn);
        let ap = |v: &View<'a>| {
            v.get("additionalProperties").or_else(|| v.get("unevaluatedProperties").filter(|_| plain)).map(|x| x.value)
        };
        let closed = |v: &View<'a>| {
            matches!(ap(v), Some(Value::Bool(false)))
                || matches!(v.get("unevaluatedProperties").map(|x| x.value), Some(Value::Bool(false)))
        };
        let fate_in = |v: &View<'a>| {
            if closed(v) {
                Fate::Rejected
            } else if matches!(ap(v), Some(Value::Object(_))) || v.get("patternProperties").is_some() {
                Fate::Revalidated
            } else {
                Fate::Ignored
            }
        };
        let new_fate = fate_in(vn);
        let old_closed = closed(vo);

        let removed: Vec<&str> = po.keys().filter(|k| !pn.contains_key(*k)).copied().collect();
        let added: Vec<&str> = pn.keys().filter(|k| !po.contains_key(*k)).copied().collect();
        let renames = pair_renamed_properties(&removed, &added, &po, &pn, &ro, &rn);
        let renamed_from: HashMap<&str, &str> = renames.iter().map(|(a, b)| (*a, *b)).collect();
        let renamed_to: HashSet<&str> = renames.iter().map(|(_, b)| *b).collect();
        let required_at = |v: &View<'a>| v.required_at();

        for (name, a) in &po {
            if let Some(b) = pn.get(name) {
                let seg = Seg::Key { old: (*name).to_owned(), new: (*name).to_owned() };
                self.walk_at(seg, a.value, a.ptr.clone(), b.value, b.ptr.clone());
            } else if let Some(to) = renamed_from.get(name) {
                let b = &pn[to];
                self.emit(
                    SchemaChange::PropertyRenamed {
                        from: (*name).to_owned(),
                        to: (*to).to_owned(),
                        fate: if rn.contains(to) { Fate::MissingRequired } else { new_fate },
                    },
                    Some(a.ptr.clone()),
                    Some(b.ptr.clone()),
                );
                if rn.contains(to) && !ro.contains(name) {
                    self.emit(
                        SchemaChange::RequiredAdded { name: (*to).to_owned(), new_property: false },
                        Some(required_at(vo)),
                        Some(required_at(vn)),
                    );
                }
                let seg = Seg::Key { old: (*name).to_owned(), new: (*to).to_owned() };
                self.walk_at(seg, a.value, a.ptr.clone(), b.value, b.ptr.clone());
            } else if a.value == &Value::Bool(false) {
                // The name was forbidden; now `additionalProperties` (or nothing) governs it.
                let (b, bp) =
                    ap(vn).map_or((&TRUE, vn.ptr.clone()), |x| (x, format!("{}/additionalProperties", vn.ptr)));
                let seg = Seg::Key { old: (*name).to_owned(), new: (*name).to_owned() };
                self.walk_at(seg, a.value, a.ptr.clone(), b, bp);
            } else {
                self.emit(
                    SchemaChange::PropertyRemoved {
                        name: (*name).to_owned(),
                        was_required: ro.contains(name),
                        fate: new_fate,
                    },
                    Some(a.ptr.clone()),
                    Some(vn.properties_at()),
                );
            }
        }
        for name in &added {
            if renamed_to.contains(name) {
                continue;
            }
            let b = &pn[name];
            let op = Some(vo.properties_at());
            if rn.contains(name) && self.side == Side::Input {
                self.emit(
                    SchemaChange::RequiredAdded { name: (*name).to_owned(), new_property: true },
                    op.clone(),
                    Some(b.ptr.clone()),
                );
                // A required input that picks the target is also a change of authority: reported on
                // its own, since its migration (a new tool name) differs from the syntax break's.
                if crate::names::authority::parameter_authority(name, Some(b.value)).is_some() {
                    self.emit(
                        SchemaChange::PropertyAdded { name: (*name).to_owned(), required: true, old_closed },
                        op,
                        Some(b.ptr.clone()),
                    );
                }
            } else {
                self.emit(
                    SchemaChange::PropertyAdded { name: (*name).to_owned(), required: rn.contains(name), old_closed },
                    op,
                    Some(b.ptr.clone()),
                );
                if let Some(a) = ap(vo).filter(|s| s.is_object()) {
                    // The name used to fall under `additionalProperties`: compare against that schema.
                    let ptr = format!("{}/additionalProperties", vo.ptr);
                    let seg = Seg::Key { old: (*name).to_owned(), new: (*name).to_owned() };
                    self.walk_at(seg, a, ptr, b.value, b.ptr.clone());
                }
            }
        }
        for name in rn.difference(&ro) {
            let known_before = po.contains_key(name) || !pn.contains_key(name);
            if known_before && !renamed_from.contains_key(name) {
                self.emit(
                    SchemaChange::RequiredAdded { name: (*name).to_owned(), new_property: false },
                    Some(required_at(vo)),
                    Some(required_at(vn)),
                );
            }
        }
        for name in ro.difference(&rn) {
            // A removed or renamed property already says it.
            let forbidden_before = po.get(name).is_some_and(|a| a.value == &Value::Bool(false));
            if pn.contains_key(name) || forbidden_before || (!po.contains_key(name) && !renamed_from.contains_key(name))
            {
                self.emit(
                    SchemaChange::RequiredRemoved { name: (*name).to_owned() },
                    Some(required_at(vo)),
                    Some(required_at(vn)),
                );
            }
        }

        self.dependent_required(vo, vn);
        self.pattern_properties(vo, vn);
        let (a, b) = (ap(vo), ap(vn));
        let (pa, pb) = (
            vo.get("additionalProperties").map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone()),
            vn.get("additionalProperties").map_or_else(|| vn.ptr.clone(), |x| x.ptr.clone()),
        );
        match (a, b) {
            (x, y) if x == y && !x.is_some_and(schema::contains_ref) => {}
            (x, Some(Value::Bool(false))) if x != Some(&Value::Bool(false)) => {
                self.emit(SchemaChange::AdditionalProperties { closed: true }, Some(pa), Some(pb));
            }
            (Some(Value::Bool(false)), _) => {
                self.emit(SchemaChange::AdditionalProperties { closed: false }, Some(pa), Some(pb));
            }
            (x, y) => self.walk_at(Seg::Extra, x.unwrap_or(&TRUE), pa, y.unwrap_or(&TRUE), pb),
        }
    }

    /// `oneOf` rejects a value that matches two branches. When the branches of the side that judges
    /// old values (the new side for inputs, the old side for outputs) changed, they must be provably
    /// disjoint, or a value that matched one branch may now match two.
    #[allow(clippy::type_complexity, reason = "the (keyword, branches) pairs of `alternatives`")]
    fn one_of_exclusivity(
        &mut self,
        ao: Option<&(&'static str, Vec<(&'a Value, String)>)>,
        an: Option<&(&'static str, Vec<(&'a Value, String)>)>,
        op: &str,
        np: &str,
    ) -> bool {
        let (judge, other, root) =
            if self.side == Side::Input { (an, ao, self.new_root) } else { (ao, an, self.old_root) };
        let Some(("oneOf", branches)) = judge else { return false };
        let same = other.is_some_and(|(_, list)| {
            list.len() == branches.len()
                && list.iter().zip(branches).all(|(a, b)| a.0 == b.0 && !schema::contains_ref(a.0))
        });
        if same {
            return false;
        }
        let values: Vec<&Value> = branches.iter().map(|b| b.0).collect();
        if discriminated(&values, root) {
            return false;
        }
        let at = |p: &str| p.rsplit('/').next().unwrap_or("").to_owned();
        let detail = if branches.len() * branches.len().saturating_sub(1) / 2 > ONE_OF_PAIR_BUDGET {
            format!(
                "`oneOf` has {} branches and no discriminator (a required property with distinct constant values), too many to prove disjoint pair by pair, so a value that matched exactly one branch may now match two and be rejected",
                branches.len()
            )
        } else {
            let overlapping = branches.iter().enumerate().find_map(|(i, a)| {
                branches[i + 1..].iter().find(|b| !disjoint(a.0, b.0, root, self.budget)).map(|b| (&a.1, &b.1))
            });
            let Some((a, b)) = overlapping else { return false };
            format!(
                "`oneOf` branches {} and {} may overlap, so a value that matched exactly one branch may now match two and be rejected",
                at(a),
                at(b)
            )
        };
        // Witness candidates: examples of every branch on both sides.
        let sub_root = if self.side == Side::Input { self.old_root } else { self.new_root };
        let tries = ao
            .into_iter()
            .chain(an)
            .flat_map(|(_, list)| list.iter())
            .filter_map(|(branch, _)| witness::example(branch, sub_root, self.budget))
            .map(|v| (self.path.clone(), v))
            .collect();
        let delta = if self.side == Side::Input { Delta::LESS } else { Delta::MORE };
        self.out.push(Change {
            tool: self.tool.to_owned(),
            kind: ChangeKind::Schema {
                side: self.side,
                change: SchemaChange::Composition { keyword: "oneOf".into(), detail, delta },
            },
            old_ptr: Some(op.to_owned()),
            new_ptr: Some(np.to_owned()),
            witness: None,
            plan: Some(Plan { tries, dropped: None }),
        });
        true
    }

    /// Compares two lists of alternatives (`anyOf`/`oneOf` branches; a plain schema is a list of one).
    /// Identical branches pair first, then the most similar; unpaired old branches accept less, unpaired
    /// new branches accept more.
    fn alternatives(
        &mut self,
        keyword: &str,
        ao: &[(&'a Value, String)],
        an: &[(&'a Value, String)],
        op: &str,
        np: &str,
        overlap_reported: bool,
    ) {
        // Branches that are only a `$ref` compare as their targets.
        let resolve = |root: &'a Value, list: &[(&'a Value, String)]| -> Vec<(&'a Value, String)> {
            list.iter()
                .map(|(v, p)| match self.deref(root, v, p.clone()) {
                    Ok((t, tp, _)) => (t, tp),
                    Err(_) => (*v, p.clone()),
                })
                .collect()
        };
        // Branches are walked as written (`$ref` and all), so that the walk sees the reference and
        // applies coinduction and its memo to the target pair; they pair by their targets.
        let (wo, wn) = (ao, an);
        let (ao, an) = (resolve(self.old_root, ao), resolve(self.new_root, an));
        let (ao, an) = (ao.as_slice(), an.as_slice());
        let firsts = |list: &[(&'a Value, String)]| list.iter().map(|b| b.0).collect::<Vec<_>>();
        let (same, left_o, left_n) = pair_identical(&firsts(ao), &firsts(an));
        for (i, j) in same {
            if schema::contains_ref(ao[i].0) {
                let seg = Seg::Branch { keyword: static_keyword(keyword), old: i, new: j };
                self.walk_at(seg, wo[i].0, wo[i].1.clone(), wn[j].0, wn[j].1.clone());
            }
        }
        let shape = |k: &usize, list: &[(&'a Value, String)]| Shape::of(list[*k].0);
        let (so, sn): (Vec<Shape>, Vec<Shape>) =
            (left_o.iter().map(|k| shape(k, ao)).collect(), left_n.iter().map(|k| shape(k, an)).collect());
        let scored = |a: usize, b: usize| {
            let score = so[a].similarity(&sn[b]);
            (score > 0.3).then_some((score, a, b))
        };
        let candidates: Vec<(f64, usize, usize)> =
            candidate_pairs(so.len(), sn.len(), || Shape::blocked_pairs(&so, &sn))
                .into_iter()
                .filter_map(|(a, b)| scored(a, b))
                .collect();
        let pairs = assign(candidates);
        let (mut paired_o, mut paired_n) = (HashSet::new(), HashSet::new());
        for (a, b) in pairs {
            let (i, j) = (left_o[a], left_n[b]);
            paired_o.insert(i);
            paired_n.insert(j);
            let seg = Seg::Branch { keyword: static_keyword(keyword), old: i, new: j };
            self.walk_at(seg, wo[i].0, wo[i].1.clone(), wn[j].0, wn[j].1.clone());
        }
        for &i in left_o.iter().filter(|i| !paired_o.contains(*i)) {
            let detail = format!(
                "the alternative at {} was removed",
                ao[i].1.rsplit('/').next().map_or_else(String::new, |k| format!("index {k}"))
            );
            self.emit(
                SchemaChange::Composition { keyword: keyword.to_owned(), detail, delta: Delta::LESS },
                Some(ao[i].1.clone()),
                Some(np.to_owned()),
            );
        }
        for &j in left_n.iter().filter(|j| !paired_n.contains(*j) && !overlap_reported) {
            let detail = format!("a new alternative was added at index {}", an[j].1.rsplit('/').next().unwrap_or(""));
            self.emit(
                SchemaChange::Composition { keyword: keyword.to_owned(), detail, delta: Delta::MORE },
                Some(op.to_owned()),
                Some(an[j].1.clone()),
            );
        }
    }

    fn composition(&mut self, keyword: &str, vo: &View<'a>, vn: &View<'a>) {
        let (a, b) = (vo.get(keyword), vn.get(keyword));
        let (a, b) = match (a, b) {
            (None, None) => return,
            (Some(x), Some(y)) if x.value == y.value && !schema::contains_ref(x.value) => return,
            (Some(x), Some(y)) => (x.clone(), y.clone()),
            (x, y) => {
                let op = x.map_or_else(|| vo.ptr.clone(), |x| x.ptr.clone());
                let np = y.map_or_else(|| vn.ptr.clone(), |y| y.ptr.clone());
                let what = if x.is_none() { "was added" } else { "was removed" };
                self.cannot_decide(keyword, format!("`{keyword}` {what}"), &op, &np);
                return;
            }
        };
        let (Some(la), Some(lb)) = (a.value.as_array(), b.value.as_array()) else {
            return self.cannot_decide(keyword, format!("`{keyword}` is not an array"), &a.ptr, &b.ptr);
        };
        // Identical branches pair first; the rest pair by position among the unmatched.
        let (same, unmatched_a, unmatched_b) =
            pair_identical(&la.iter().collect::<Vec<_>>(), &lb.iter().collect::<Vec<_>>());
        for (i, j) in same {
            if schema::contains_ref(&la[i]) {
                let seg = Seg::Branch { keyword: static_keyword(keyword), old: i, new: j };
                self.walk_at(seg, &la[i], format!("{}/{i}", a.ptr), &lb[j], format!("{}/{j}", b.ptr));
            }
        }
        for (&i, &j) in unmatched_a.iter().zip(&unmatched_b) {
            let seg = Seg::Branch { keyword: static_keyword(keyword), old: i, new: j };
            self.walk_at(seg, &la[i], format!("{}/{i}", a.ptr), &lb[j], format!("{}/{j}", b.ptr));
        }
        let extra_a = unmatched_a.len().saturating_sub(unmatched_b.len());
        let extra_b = unmatched_b.len().saturating_sub(unmatched_a.len());
        let conjunction = keyword == "allOf";
        for &i in unmatched_a.iter().skip(unmatched_b.len()) {
            // A branch of anyOf/oneOf removed accepts less; a conjunct of allOf removed accepts more.
            let delta = if conjunction { Delta::MORE } else { Delta::LESS };
            let detail = format!("{} of {} was removed ({extra_a} fewer)", branch_word(keyword), keyword);
            self.emit(
                SchemaChange::Composition { keyword: keyword.to_owned(), detail, delta },
                Some(format!("{}/{i}", a.ptr)),
                Some(b.ptr.clone()),
            );
        }
        for &j in unmatched_b.iter().skip(unmatched_a.len()) {
            let delta = if conjunction { Delta::LESS } else { Delta::MORE };
            let detail = format!("{} of {} was added ({extra_b} more)", branch_word(keyword), keyword);
            self.emit(
                SchemaChange::Composition { keyword: keyword.to_owned(), detail, delta },
                Some(a.ptr.clone()),
                Some(format!("{}/{j}", b.ptr)),
            );
        }
    }

    fn annotations(&mut self, old: &Value, op: &str, new: &Value, np: &str) {
        let (Some(mo), Some(mn)) = (old.as_object(), new.as_object()) else { return };
        // A schema without alternatives paired with one branch of the other side (a type made
        // nullable with `anyOf`): its annotations were compared with the other side's whole schema.
        let whole_with_branch = defaults::is_branch(op) != defaults::is_branch(np);
        let (da, db) = (mo.get("description").and_then(Value::as_str), mn.get("description").and_then(Value::as_str));
        // A nullable wrapper's description and its one real branch's are one text (zod 4 keeps only
        // the branch's): compared as such, a move between them is no edit.
        let moved = da != db && spelling::description(mo) == spelling::description(mn);
        if da != db && !whole_with_branch && !moved {
            self.out.push(Change {
                tool: self.tool.to_owned(),
                kind: ChangeKind::Description { old: da.unwrap_or("").to_owned(), new: db.unwrap_or("").to_owned() },
                old_ptr: Some(da.map_or_else(|| op.to_owned(), |_| format!("{op}/description"))),
                new_ptr: Some(db.map_or_else(|| np.to_owned(), |_| format!("{np}/description"))),
                witness: None,
                plan: None,
            });
        }
        // Defaults are compared once, at the schema that holds the alternatives (see `defaults`).
        if self.side == Side::Input && !defaults::is_branch(op) && !defaults::is_branch(np) {
            let (a, b) = (defaults::effective(mo, op), defaults::effective(mn, np));
            let (va, vb) = (a.as_ref().map(|x| x.0), b.as_ref().map(|x| x.0));
            if !defaults::same(va, vb) {
                self.emit(
                    SchemaChange::Default { old: va.cloned(), new: vb.cloned() },
                    Some(a.map_or_else(|| op.to_owned(), |x| x.1)),
                    Some(b.map_or_else(|| np.to_owned(), |x| x.1)),
                );
            }
        }
    }
}

/// The branches of a schema that is nothing but an `anyOf`/`oneOf` (annotations aside).
fn alternatives<'a>(v: &'a Value, ptr: &str) -> Option<(&'static str, Vec<(&'a Value, String)>)> {
    let map = v.as_object()?;
    let keyword = if map.contains_key("anyOf") { "anyOf" } else { "oneOf" };
    let list = map.get(keyword)?.as_array()?;
    let only = map.keys().all(|k| k == keyword || schema::ANNOTATIONS.contains(&k.as_str()));
    if !only || list.is_empty() {
        return None;
    }
    Some((keyword, list.iter().enumerate().map(|(i, b)| (b, format!("{ptr}/{keyword}/{i}"))).collect()))
}

/// Neither side has subschemas that evaluate properties (so `unevaluatedProperties` is
/// `additionalProperties`).
fn plain_objects(vo: &View<'_>, vn: &View<'_>) -> bool {
    const APPLICATORS: &[&str] =
        &["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "dependentSchemas", "$dynamicRef"];
    [vo, vn].iter().all(|v| APPLICATORS.iter().all(|k| v.get(k).is_none()) && v.merged.is_empty())
}

/// Whether a change narrows in the breaking direction of its side (or cannot be decided).
fn breaks(side: Side, change: &SchemaChange) -> bool {
    let input = side == Side::Input;
    match change {
        SchemaChange::PropertyRemoved { .. }
        | SchemaChange::PropertyRenamed { .. }
        | SchemaChange::Pattern { .. }
        | SchemaChange::CannotDecide { .. } => true,
        SchemaChange::PropertyAdded { old_closed, .. } => input || *old_closed,
        SchemaChange::RequiredAdded { .. } => input,
        SchemaChange::RequiredRemoved { .. } => !input,
        SchemaChange::Type { old, new } => !(if input { old.minus(*new) } else { new.minus(*old) }).is_empty(),
        SchemaChange::Enum { removed, added, introduced, dropped } => {
            if input {
                !removed.is_empty() || *introduced
            } else {
                !added.is_empty() || *dropped
            }
        }
        SchemaChange::Constraint { delta, .. } | SchemaChange::Composition { delta, .. } => delta.breaks(input),
        SchemaChange::AdditionalProperties { closed } => *closed == input,
        SchemaChange::Format { .. } | SchemaChange::Default { .. } => false,
    }
}

/// Whether no instance can satisfy both schemas: different types, disjoint `enum`/`const` sets, or a
/// required discriminator property with disjoint values. `false` means "not proven".
fn disjoint(a: &Value, b: &Value, root: &Value, budget: &Budget) -> bool {
    disjoint_at(a, b, root, 0, budget)
}

#[allow(clippy::many_single_char_names, reason = "a and b are the two schemas, as in the literature")]
fn disjoint_at(a: &Value, b: &Value, root: &Value, depth: usize, budget: &Budget) -> bool {
    // Out of budget: not proven.
    if depth > 8 || !budget.step() {
        return false;
    }
    let (a, b) = (follow(a, root), follow(b, root));
    let (va, vb) = (View::new(a, ""), View::new(b, ""));
    if !va.types.intersects(vb.types) {
        return true;
    }
    let values_disjoint = |x: &View<'_>, y: &View<'_>| match (&x.values, &y.values) {
        (Some((p, _)), Some((q, _))) => p.iter().all(|v| !q.iter().any(|w| json_eq(v, w))),
        (Some((p, _)), None) => p.iter().all(|v| !y.types.admits(v)),
        (None, Some((q, _))) => q.iter().all(|v| !x.types.admits(v)),
        (None, None) => false,
    };
    if values_disjoint(&va, &vb) {
        return true;
    }
    // A discriminator: a property both require, whose values cannot coincide.
    let required = |v: &Value| -> BTreeSet<String> {
        v.get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let both_objects = !va.types.minus(TypeSet::OBJECT).intersects(vb.types);
    if both_objects {
        for name in required(a).intersection(&required(b)) {
            let (Some(pa), Some(pb)) = (property(a, name), property(b, name)) else {
                continue;
            };
            if disjoint_at(pa, pb, root, depth + 1, budget) {
                return true;
            }
        }
    }
    false
}

/// A `dependentRequired` value as a map from each trigger to the names it requires (empty when absent
/// or malformed).
fn dependencies(keyword: Option<&Value>) -> BTreeMap<&str, BTreeSet<&str>> {
    keyword
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, list)| (name.as_str(), list.as_array().into_iter().flatten().filter_map(Value::as_str).collect()))
        .collect()
}

/// The names required when `key` is present, following `dependentRequired` from name to name, nearest
/// first, each once, and at most [`CHAIN_CAP`] of them (beyond that a dependency counts as not
/// implied: a change is reported, never hidden).
fn dependency_chain<'d, 'v>(
    deps: &'d BTreeMap<&'v str, BTreeSet<&'v str>>,
    key: &str,
) -> impl Iterator<Item = &'v str> + 'd {
    let mut seen: HashSet<&'v str> = HashSet::new();
    let mut queue: std::collections::VecDeque<&'v str> = deps.get(key).into_iter().flatten().copied().collect();
    std::iter::from_fn(move || {
        while let Some(name) = queue.pop_front() {
            if seen.insert(name) {
                queue.extend(deps.get(name).into_iter().flatten().copied());
                return Some(name);
            }
        }
        None
    })
    .take(CHAIN_CAP)
}

/// How many names a `dependentRequired` chain is followed through.
const CHAIN_CAP: usize = 1_024;

/// Why a reference is not followed, for a `*-cannot-decide` finding.
fn ref_reason(problem: &RefProblem) -> String {
    match problem {
        RefProblem::Remote(r) => format!("`$ref: {r}` leaves the document and is never fetched"),
        RefProblem::Dynamic(r) => format!("dynamic reference `{r}` depends on the path of evaluation; not followed"),
        RefProblem::Unresolved(r) => format!("reference `{r}` does not resolve"),
        RefProblem::Ambiguous(r) => format!("reference `{r}` names more than one schema"),
        RefProblem::TooLong(n) => format!("a chain of more than {n} references is not followed"),
    }
}

/// A schema with its `$ref` chain followed inside `root` (as far as it resolves locally).
fn follow<'v>(mut v: &'v Value, root: &'v Value) -> &'v Value {
    for _ in 0..MAX_REF_HOPS {
        let Some(r) = v.get("$ref").and_then(Value::as_str) else { break };
        match schema::resolve(root, v.as_object(), r) {
            Ok((_, t)) => v = t,
            Err(_) => break,
        }
    }
    v
}

fn property<'v>(schema: &'v Value, name: &str) -> Option<&'v Value> {
    schema.get("properties")?.get(name)
}

/// Proves every pair of branches disjoint in one pass: branches that are each a `const`/`enum` with
/// values no two branches share (an enum with a description per value), or a discriminated union,
/// where each branch admits only objects and some property that every branch requires has
/// `const`/`enum` values that no two branches share. `false` means "not proven this way".
fn discriminated(branches: &[&Value], root: &Value) -> bool {
    let resolved: Vec<&Value> = branches.iter().map(|b| follow(b, root)).collect();
    if distinct_values(resolved.iter().map(|b| Some(*b))) {
        return true;
    }
    let objects_only = |v: &Value| {
        let types = View::new(v, "").types;
        !types.is_empty() && types.minus(TypeSet::OBJECT).is_empty()
    };
    let required = |v: &'_ Value, name: &str| {
        v.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|x| x.as_str() == Some(name)))
    };
    let Some(first) = resolved.first() else { return true };
    if !resolved.iter().all(|v| objects_only(v)) {
        return false;
    }
    let names = first.get("required").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    names.iter().filter_map(Value::as_str).any(|name| {
        distinct_values(
            resolved
                .iter()
                .map(|branch| property(branch, name).filter(|_| required(branch, name)).map(|p| follow(p, root))),
        )
    })
}

/// Every schema is there and lists values (`const`/`enum`), and no value occurs twice among them.
fn distinct_values<'v>(schemas: impl IntoIterator<Item = Option<&'v Value>>) -> bool {
    let mut seen = HashSet::new();
    schemas.into_iter().all(|schema| match schema.and_then(|s| View::new(s, "").values) {
        Some((values, _)) => values.iter().all(|v| seen.insert(schema::canonical_key(v))),
        None => false,
    })
}

/// Pairs equal schemas (JSON Schema equality), each old one with the first unused equal new one, in
/// linear time. Returns the pairs and the unpaired indices of each side, in order.
fn pair_identical(old: &[&Value], new: &[&Value]) -> (Vec<(usize, usize)>, Vec<usize>, Vec<usize>) {
    let mut by_key: HashMap<String, std::collections::VecDeque<usize>> = HashMap::new();
    for (j, v) in new.iter().enumerate() {
        by_key.entry(schema::canonical_key(v)).or_default().push_back(j);
    }
    let (mut pairs, mut left_old) = (Vec::new(), Vec::new());
    let mut used = vec![false; new.len()];
    for (i, v) in old.iter().enumerate() {
        match by_key.get_mut(&schema::canonical_key(v)).and_then(std::collections::VecDeque::pop_front) {
            Some(j) => {
                used[j] = true;
                pairs.push((i, j));
            }
            None => left_old.push(i),
        }
    }
    let left_new = (0..new.len()).filter(|&j| !used[j]).collect();
    (pairs, left_old, left_new)
}

/// What branch pairing compares: the types a branch admits and its property names.
struct Shape<'v> {
    types: TypeSet,
    keys: BTreeSet<&'v str>,
    /// The `const`/`enum` values, when the branch lists them (canonical keys).
    values: Option<BTreeSet<String>>,
}

impl<'v> Shape<'v> {
    fn of(v: &'v Value) -> Shape<'v> {
        let keys = v.get("properties").and_then(Value::as_object).map(|m| m.keys().map(String::as_str).collect());
        let view = View::new(v, "");
        let values = view.values.map(|(list, _)| list.iter().map(|x| schema::canonical_key(x)).collect());
        Shape { types: view.types, keys: keys.unwrap_or_default(), values }
    }

    /// How alike two branches are: the same types, and shared values when both list values (two
    /// branches with no value in common are different alternatives, not one edited), else shared
    /// property names.
    fn similarity(&self, other: &Shape<'_>) -> f64 {
        if !self.types.intersects(other.types) {
            return 0.0;
        }
        let overlap = match (&self.values, &other.values) {
            (Some(a), Some(b)) if a.is_disjoint(b) => return 0.0,
            (Some(a), Some(b)) => jaccard(a, b),
            _ => jaccard(&self.keys, &other.keys),
        };
        0.5 * f64::from(u8::from(self.types == other.types)) + 0.5 * overlap
    }

    /// The pairs worth scoring when there are too many to score all: the same position among the
    /// unpaired branches, and branches that share a property name no more than [`POSTING_CAP`] branches
    /// on the new side have.
    fn blocked_pairs(old: &[Shape<'_>], new: &[Shape<'_>]) -> Vec<(usize, usize)> {
        let mut postings: HashMap<&str, Vec<usize>> = HashMap::new();
        for (j, shape) in new.iter().enumerate() {
            for key in &shape.keys {
                postings.entry(key).or_default().push(j);
            }
        }
        let mut out: BTreeSet<(usize, usize)> = (0..old.len().min(new.len())).map(|k| (k, k)).collect();
        for (i, shape) in old.iter().enumerate() {
            for key in &shape.keys {
                if let Some(list) = postings.get(key).filter(|l| l.len() <= POSTING_CAP) {
                    out.extend(list.iter().map(|&j| (i, j)));
                }
            }
        }
        out.into_iter().collect()
    }
}

fn static_keyword(keyword: &str) -> &'static str {
    match keyword {
        "anyOf" => "anyOf",
        "oneOf" => "oneOf",
        _ => "allOf",
    }
}

/// Values of the given types that respect the schema's other keywords where possible.
fn type_probes(sub: &Value, types: TypeSet, root: &Value, budget: &Budget) -> Vec<Value> {
    let mut out = Vec::new();
    let map = sub.as_object();
    for (bit, fallback) in [
        (TypeSet::NULL, json!(null)),
        (TypeSet::BOOLEAN, json!(true)),
        (TypeSet::STRING, json!("example")),
        (TypeSet::INTEGER, json!(1)),
        (TypeSet::FRACTION, json!(0.5)),
        (TypeSet::ARRAY, json!([])),
        (TypeSet::OBJECT, json!({})),
    ] {
        if !types.contains(bit) {
            continue;
        }
        // An example of the schema restricted to this one type.
        if let Some(m) = map {
            let mut only = m.clone();
            only.remove("enum");
            only.remove("const");
            only.remove("anyOf");
            only.remove("oneOf");
            let name = bit.names().first().map_or("null", |n| if *n == "non-integer number" { "number" } else { n });
            only.insert("type".into(), json!(name));
            if let Some(v) = witness::example(&Value::Object(only), root, budget) {
                if bit == TypeSet::FRACTION && TypeSet::of(&v) != TypeSet::FRACTION {
                    out.extend(v.as_f64().and_then(|f| witness::number(f + 0.5)));
                } else {
                    out.push(v);
                }
            }
        }
        out.push(fallback);
        if bit == TypeSet::FRACTION {
            out.extend([json!(1.5), json!(-0.5), json!(99.5)]);
        }
    }
    out
}

/// Strings to try against a changed `pattern`: general probes, the literals of an anchored
/// alternation, and strings that start with the pattern's literal prefix.
fn pattern_probes(sub: &Value) -> Vec<Value> {
    let mut v = string_probes();
    let pattern = sub.get("pattern").and_then(Value::as_str).unwrap_or("");
    if let Some(lits) = witness::literal_alternatives(pattern) {
        v.extend(lits.into_iter().map(Value::String));
    }
    if let Some(prefix) = witness::literal_prefix(pattern) {
        v.extend([json!(format!("{prefix}x")), json!(format!("{prefix}0")), json!(prefix)]);
    }
    v
}

fn string_probes() -> Vec<Value> {
    ["", "a", "A", "0", "-", " ", "a b", "ä", "aaaaaaaaaa", "A-1_b.c/d", "x@y", "https://example.com"]
        .into_iter()
        .map(|s| json!(s))
        .collect()
}

/// Values around the old and new bounds of a constraint.
#[allow(clippy::too_many_lines, reason = "one arm per keyword family")]
fn constraint_probes(
    keyword: &str,
    old: Option<&Value>,
    new: Option<&Value>,
    sub: &Value,
    sup: &Value,
    (root, budget): (&Value, &Budget),
) -> Vec<Value> {
    let (o, n) = (old.and_then(Value::as_f64), new.and_then(Value::as_f64));
    // The other bound of the same family matters too: a witness for a raised minimum must still
    // respect the maximum of the accepting side.
    let family: &[&str] = match keyword {
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
        }
        "minLength" | "maxLength" => &["minLength", "maxLength"],
        "minContains" | "maxContains" => &["minContains", "maxContains"],
        "minItems" | "maxItems" => &["minItems", "maxItems"],
        "minProperties" | "maxProperties" => &["minProperties", "maxProperties"],
        _ => &[],
    };
    let mut bounds: Vec<Option<f64>> = vec![o, n];
    for k in family {
        bounds.push(sub.get(*k).and_then(Value::as_f64));
        bounds.push(sup.get(*k).and_then(Value::as_f64));
    }
    let lengths = || -> Vec<usize> {
        let mut v: Vec<usize> = vec![0, 1, 2];
        for x in bounds.iter().copied().flatten() {
            if (0.0..100_000.0).contains(&x) {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "guarded: 0 <= x < 1e5")]
                let x = x as usize;
                v.extend([x, x.saturating_sub(1), x + 1]);
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    };
    let item = || sub.get("items").and_then(|i| witness::example(i, root, budget)).unwrap_or(json!("x"));
    match keyword {
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
            let mut exact: Vec<&Value> = vec![];
            exact.extend(old);
            exact.extend(new);
            for k in family {
                exact.extend(sub.get(*k));
                exact.extend(sup.get(*k));
            }
            let mut v = witness::integer_probes(&exact);
            v.extend(witness::numeric_probes(&bounds));
            v
        }
        "multipleOf" => {
            let mut v = Vec::new();
            for m in [o, n].into_iter().flatten() {
                for k in [1.0, 2.0, 3.0, 5.0] {
                    v.extend(witness::number(m * k));
                }
            }
            v.extend([json!(1), json!(0.5), json!(7), json!(10)]);
            v
        }
        "minLength" | "maxLength" => lengths().into_iter().map(|l| json!("a".repeat(l))).collect(),
        "minItems" | "maxItems" => lengths().into_iter().map(|l| Value::Array(vec![item(); l])).collect(),
        "uniqueItems" => vec![Value::Array(vec![item(), item()])],
        "minContains" | "maxContains" => {
            let matching = sub.get("contains").and_then(|c| witness::example(c, root, budget)).unwrap_or(json!("x"));
            lengths().into_iter().map(|l| Value::Array(vec![matching.clone(); l])).collect()
        }
        "dependentRequired" => {
            let trigger = new.or(old).and_then(Value::as_object).and_then(|m| m.keys().next().cloned());
            let base = match witness::example(sub, root, budget) {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            trigger
                .map(|k| {
                    let example_of = |name: &str| {
                        sub.pointer(&format!("/properties/{}", escape_token(name)))
                            .and_then(|s| witness::example(s, root, budget))
                            .unwrap_or(json!("example"))
                    };
                    let mut m = base;
                    m.insert(k.clone(), example_of(&k));
                    // What `sub` requires along with the trigger, through chains of dependencies.
                    let deps = dependencies(sub.get("dependentRequired"));
                    for d in dependency_chain(&deps, &k) {
                        let v = example_of(d);
                        m.entry(d.to_owned()).or_insert(v);
                    }
                    Value::Object(m)
                })
                .into_iter()
                .collect()
        }
        "minProperties" | "maxProperties" => {
            let base = match witness::example(sub, root, budget) {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            lengths()
                .into_iter()
                .map(|l| {
                    let mut m = base.clone();
                    let mut i = 0;
                    while m.len() < l {
                        m.insert(format!("{}-{i}", witness::EXTRA_KEY), json!("x"));
                        i += 1;
                    }
                    Value::Object(m)
                })
                .collect()
        }
        "pattern" => pattern_probes(sub),
        _ => Vec::new(),
    }
}

fn branch_word(keyword: &str) -> &'static str {
    if keyword == "allOf" { "a member schema" } else { "a branch" }
}

/// The values of a finite domain that `other` does not accept, in the order the domain lists them.
/// Against a long plain enum this is linear in the usual case (the two lists share their order with a
/// few edits) and `O(n log n)` otherwise, never quadratic.
fn fast_difference(domain: &[&Value], other: &View<'_>, accepts: &dyn Fn(&View<'_>, &Value) -> bool) -> Vec<Value> {
    let Some((list, _)) = &other.values else {
        return domain.iter().filter(|x| !accepts(other, x)).map(|x| (*x).clone()).collect();
    };
    if list.len() <= 16 {
        return domain.iter().filter(|x| !accepts(other, x)).map(|x| (*x).clone()).collect();
    }
    let theirs: Vec<&Value> = list.iter().copied().filter(|x| other.types.admits(x)).collect();
    // A value equal to theirs at the same position from either end is accepted; only the middle of
    // `domain` needs a membership test. Strict equality implies JSON Schema equality, so this only
    // ever shortens the work.
    let prefix = domain.iter().zip(&theirs).take_while(|(a, b)| a == b).count();
    let room = domain.len().min(theirs.len()) - prefix;
    let suffix = domain.iter().rev().zip(theirs.iter().rev()).take(room).take_while(|(a, b)| a == b).count();
    let middle = &domain[prefix..domain.len() - suffix];
    if middle.is_empty() {
        return Vec::new();
    }
    let missing: Vec<&Value> = if middle.len() <= 16 {
        // A few candidates (the usual edit): one pass over theirs, comparing against each.
        let mut wanted: Vec<EnumKey<'_>> = middle.iter().map(|x| EnumKey::of(x)).collect();
        for x in &theirs {
            if wanted.is_empty() {
                break;
            }
            let key = EnumKey::of(x);
            wanted.retain(|w| *w != key);
        }
        middle.iter().copied().filter(|x| wanted.contains(&EnumKey::of(x))).collect()
    } else if middle.len() <= 4096 {
        let mut wanted: HashSet<EnumKey<'_>> = middle.iter().map(|x| EnumKey::of(x)).collect();
        for x in &theirs {
            if wanted.is_empty() {
                break;
            }
            wanted.remove(&EnumKey::of(x));
        }
        middle.iter().copied().filter(|x| wanted.contains(&EnumKey::of(x))).collect()
    } else {
        sorted_difference(middle, &theirs)
    };
    missing.into_iter().cloned().collect()
}

/// `domain` minus `theirs` by sorting both and merging (sequential memory access, no hashing), in
/// the order `domain` lists them.
fn sorted_difference<'v>(domain: &[&'v Value], theirs: &[&Value]) -> Vec<&'v Value> {
    let mut theirs: Vec<EnumKey<'_>> = theirs.iter().map(|x| EnumKey::of(x)).collect();
    theirs.sort_unstable();
    let mut ours: Vec<(EnumKey<'_>, usize)> = domain.iter().enumerate().map(|(i, x)| (EnumKey::of(x), i)).collect();
    ours.sort_unstable();
    let mut missing: Vec<usize> = Vec::new();
    let mut j = 0;
    for (key, i) in &ours {
        while j < theirs.len() && theirs[j] < *key {
            j += 1;
        }
        if j >= theirs.len() || theirs[j] != *key {
            missing.push(*i);
        }
    }
    missing.sort_unstable();
    missing.into_iter().map(|i| domain[i]).collect()
}

/// A hashable enum value with JSON Schema equality; strings (the common large enum) are borrowed, not
/// copied.
#[derive(PartialEq, Eq, PartialOrd, Ord, Hash)]
enum EnumKey<'a> {
    Str(&'a str),
    Other(String),
}

impl<'a> EnumKey<'a> {
    fn of(v: &'a Value) -> EnumKey<'a> {
        match v {
            Value::String(s) => EnumKey::Str(s),
            other => EnumKey::Other(schema::canonical_key(other)),
        }
    }
}

/// A numeric bound as written, normalized for comparison.
struct Bound {
    keyword: &'static str,
    written: Value,
    value: serde_json::Number,
    exclusive: bool,
    ptr: String,
}

fn bound(v: &View<'_>, lower: bool, integers_only: bool) -> Option<Bound> {
    let (inc, exc) = if lower { ("minimum", "exclusiveMinimum") } else { ("maximum", "exclusiveMaximum") };
    let get = |k: &'static str, exclusive: bool| {
        v.get(k).and_then(|at| {
            at.value.as_number().map(|n| Bound {
                keyword: k,
                written: at.value.clone(),
                value: n.clone(),
                exclusive,
                ptr: at.ptr.clone(),
            })
        })
    };
    let candidates = [get(inc, false), get(exc, true)];
    // The effective bound is the stricter of the two keywords.
    let mut best: Option<Bound> = None;
    for b in candidates.into_iter().flatten() {
        let b = if integers_only { integer_bound(b, lower) } else { b };
        best = match best {
            None => Some(b),
            Some(cur) => {
                let (tighter, _) = compare_bounds(Some(&cur), Some(&b), lower);
                Some(if tighter { b } else { cur })
            }
        };
    }
    best
}

/// On integers, `exclusiveMinimum: 0` is `minimum: 1` and `minimum: 0.5` is `minimum: 1`.
fn integer_bound(mut b: Bound, lower: bool) -> Bound {
    let Some(f) = b.value.as_f64() else { return b };
    let rounded = if lower { f.floor() } else { f.ceil() };
    let is_int = b.value.is_i64() || b.value.is_u64() || f.fract() == 0.0;
    if !is_int || b.exclusive {
        let target = if !is_int {
            if lower { f.ceil() } else { f.floor() }
        } else if lower {
            rounded + 1.0
        } else {
            rounded - 1.0
        };
        if target.abs() < 9.0e15 {
            #[allow(clippy::cast_possible_truncation, reason = "guarded: |target| < 9e15, exactly representable")]
            let i = target as i64;
            b.value = serde_json::Number::from(i);
            b.exclusive = false;
        }
    }
    b
}

/// (new is tighter somewhere, new is looser somewhere) for one side of the range.
fn compare_bounds(old: Option<&Bound>, new: Option<&Bound>, lower: bool) -> (bool, bool) {
    match (old, new) {
        (None, None) => (false, false),
        (None, Some(_)) => (true, false),
        (Some(_), None) => (false, true),
        (Some(a), Some(b)) => {
            let ord = num_cmp(&b.value, &a.value);
            let ord = if lower { ord } else { ord.reverse() };
            match ord {
                std::cmp::Ordering::Greater => (true, false),
                std::cmp::Ordering::Less => (false, true),
                std::cmp::Ordering::Equal => (b.exclusive && !a.exclusive, a.exclusive && !b.exclusive),
            }
        }
    }
}

/// Whether `step` divides `value` (both positive), tolerating binary rounding of decimal steps.
fn divides(step: f64, value: f64) -> bool {
    if step <= 0.0 {
        return false;
    }
    let q = value / step;
    (q - q.round()).abs() < 1e-9 && q.round() >= 1.0
}

/// What rename pairing knows about one property, computed once.
struct Param<'a> {
    name: &'a str,
    ident: Ident,
    types: Option<TypeSet>,
    required: bool,
    description: BTreeSet<String>,
}

impl<'a> Param<'a> {
    fn of(name: &'a str, props: &BTreeMap<&'a str, At<'a>>, required: &BTreeSet<&str>) -> Param<'a> {
        let value = props[name].value;
        Param {
            name,
            ident: Ident::of(name),
            types: value.get("type").and_then(schema::parse_types),
            required: required.contains(name),
            description: description_words(value, 2),
        }
    }
}

/// `oneOf` branches beyond this many pairs are not proven disjoint pair by pair (each proof may
/// follow `$ref`s and discriminators); without a discriminator the overlap is then undecided.
const ONE_OF_PAIR_BUDGET: usize = 50_000;

/// Pairs removed and added properties that are the same parameter under a new name.
fn pair_renamed_properties<'a>(
    removed: &[&'a str],
    added: &[&'a str],
    po: &BTreeMap<&'a str, At<'a>>,
    pn: &BTreeMap<&'a str, At<'a>>,
    ro: &BTreeSet<&str>,
    rn: &BTreeSet<&str>,
) -> Vec<(&'a str, &'a str)> {
    let old: Vec<Param<'a>> = removed.iter().map(|a| Param::of(a, po, ro)).collect();
    let new: Vec<Param<'a>> = added.iter().map(|b| Param::of(b, pn, rn)).collect();
    let pairs = candidate_pairs(old.len(), new.len(), || {
        fn evidence<'p>(p: &'p Param<'_>) -> (&'p Ident, Vec<String>) {
            let words: Vec<&str> = p.description.iter().map(String::as_str).collect();
            (&p.ident, if words.is_empty() { Vec::new() } else { vec![format!("d:{}", words.join(" "))] })
        }
        let old_keys: Vec<(&Ident, Vec<String>)> = old.iter().map(evidence).collect();
        let new_keys: Vec<(&Ident, Vec<String>)> = new.iter().map(evidence).collect();
        blocked_pairs(&old_keys, &new_keys)
    });
    // One parameter out, one in, of the same shape: a rename even under a less similar name.
    let unambiguous = old.len() == 1 && new.len() == 1;
    let mut candidates = Vec::new();
    for (i, j) in pairs {
        let (a, b) = (&old[i], &new[j]);
        let mut score = a.ident.similarity(&b.ident);
        if a.types.is_some() && a.types == b.types {
            score += 0.1;
        } else if a.types.is_some() && b.types.is_some() {
            score -= 0.15;
        }
        if a.required == b.required {
            score += 0.05;
        }
        if !a.description.is_empty() && !b.description.is_empty() {
            let similar = jaccard(&a.description, &b.description);
            score += if similar >= 0.5 {
                0.2
            } else if similar < 0.1 {
                -0.1
            } else {
                0.0
            };
        }
        if score >= 0.85 || (unambiguous && score >= 0.75) {
            candidates.push((score, i, j));
        }
    }
    assign(candidates).into_iter().map(|(i, j)| (old[i].name, new[j].name)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exhausted_budget_stops_the_walk_and_says_so_once() {
        let schema = |t: &str| {
            let props: Map<String, Value> = (0..100).map(|i| (format!("p{i}"), json!({"type": t}))).collect();
            json!({"type": "object", "properties": props})
        };
        let (a, b) = (schema("string"), schema("integer"));
        let walk = |budget: &Budget| {
            let mut out = Vec::new();
            Walker::new("t", Side::Input, &a, &b, "/inputSchema", &mut out, budget).walk(
                &a,
                "/inputSchema".into(),
                &b,
                "/inputSchema".into(),
            );
            budget::report(&mut out, "t", Side::Input, budget);
            out
        };
        let all = walk(&Budget::default());
        assert_eq!(all.len(), 100, "a budget that suffices changes nothing");
        let cut = walk(&Budget::new(50, budget::BYTES));
        let reasons: Vec<&str> = cut
            .iter()
            .filter_map(|c| match &c.kind {
                ChangeKind::Schema { change: SchemaChange::CannotDecide { reason, .. }, .. } => Some(reason.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            reasons,
            ["comparison stopped after 50 steps (budget); the rest of this tool's input schema is not compared"]
        );
        assert!(cut.len() < 60, "the walk stopped: {}", cut.len());
    }

    #[test]
    fn a_ref_pair_compared_completely_is_not_compared_again() {
        // Ten properties reference one definition: its pair is walked once, then remembered.
        let schema = |t: &str| {
            let props: Map<String, Value> = (0..10).map(|i| (format!("p{i}"), json!({"$ref": "#/$defs/d"}))).collect();
            json!({"type": "object", "properties": props, "$defs": {"d": {"properties": {"v": {"type": t}}}}})
        };
        let (a, b) = (schema("string"), schema("integer"));
        let budget = Budget::default();
        let mut out = Vec::new();
        Walker::new("t", Side::Input, &a, &b, "/inputSchema", &mut out, &budget).walk(
            &a,
            "/inputSchema".into(),
            &b,
            "/inputSchema".into(),
        );
        assert_eq!(out.len(), 1, "{out:?}");
        // The root, ten references, `v` once and its witness example (not once per reference: 31).
        assert!(budget.steps_used() <= 13, "{}", budget.steps_used());
    }

    #[test]
    fn discriminated_unions_need_objects_a_required_tag_and_distinct_values() {
        let root = json!({"$defs": {"b": {"type": "object", "properties": {"kind": {"enum": ["b", "c"]}}, "required": ["kind"]}}});
        let a = json!({"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]});
        let by_ref = json!({"$ref": "#/$defs/b"});
        assert!(discriminated(&[&a, &by_ref], &root));
        // The same value in two branches, an optional tag, or a branch that also admits strings.
        let shared = json!({"type": "object", "properties": {"kind": {"const": "c"}}, "required": ["kind"]});
        assert!(!discriminated(&[&a, &by_ref, &shared], &root));
        let optional = json!({"type": "object", "properties": {"kind": {"const": "d"}}});
        assert!(!discriminated(&[&a, &optional], &root));
        let untyped = json!({"properties": {"kind": {"const": "d"}}, "required": ["kind"]});
        assert!(!discriminated(&[&a, &untyped], &root));
        // Documented enum values: one `const` per branch.
        let (x, y, z) = (json!({"const": "x", "description": "X."}), json!({"enum": ["y", 1]}), json!({"const": 1.0}));
        assert!(discriminated(&[&x, &y], &root));
        assert!(!discriminated(&[&x, &y, &z], &root), "1 and 1.0 are the same value");
    }

    #[test]
    fn identical_branches_pair_in_order_by_json_schema_equality() {
        let (x, y, one, one_f) =
            (json!({"type": "string"}), json!({"type": "integer"}), json!({"minimum": 1}), json!({"minimum": 1.0}));
        let (pairs, left_old, left_new) = pair_identical(&[&x, &y, &x, &one], &[&one_f, &x, &x]);
        assert_eq!(pairs, vec![(0, 1), (2, 2), (3, 0)]);
        assert_eq!((left_old, left_new), (vec![1], vec![]));
    }

    #[test]
    fn divisibility() {
        assert!(divides(0.1, 0.3));
        assert!(divides(2.0, 6.0));
        assert!(!divides(4.0, 6.0));
    }
}
