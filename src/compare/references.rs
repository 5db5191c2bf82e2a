//! References: following `$ref` and `$dynamicRef` during the walk, and why one is not followed.
//!
//! Takes a schema and its document root; returns the target and its pointer, or the
//! [`RefProblem`] that stopped resolution. Promises: at most [`MAX_REF_HOPS`] hops per chain; never
//! fetches anything (a remote reference is a problem, reported as cannot-decide by the walk); a
//! reference written the same on both sides with the same siblings is the same opaque schema.

use serde_json::Value;

use super::walk::Walker;
use crate::schema::{self, At, RefProblem};

/// Longest chain of `$ref` hops followed before giving up.
const MAX_REF_HOPS: usize = 64;

impl<'a> Walker<'a, '_> {
    /// Follows `$ref` (and `$dynamicRef`) while the schema is nothing but a reference (annotations
    /// aside), each resolved in the resource it is written in. Returns the target and its pointer, or
    /// the problem that stopped resolution.
    pub(super) fn deref(
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

    /// The same problem on both sides. A remote or dangling reference that is written the same on
    /// both sides, with the same siblings, is the same opaque schema; a dynamic or ambiguous one may
    /// name different schemas on each side, so it is never skipped.
    pub(super) fn ref_problem(&mut self, o: &Value, n: &Value, problem: &RefProblem, op: &str, np: &str) {
        if o == n && matches!(problem, RefProblem::Remote(_) | RefProblem::Unresolved(_)) {
            return;
        }
        self.cannot_decide("$ref", ref_reason(problem), op, np);
    }

    /// Compares the targets of a `$ref` (or `$dynamicRef`) written beside other keywords in the schema
    /// objects `o` and `n`, one hop.
    pub(super) fn walk_ref_keyword(&mut self, dynamic: bool, old: (&'a Value, &At<'a>), new: (&'a Value, &At<'a>)) {
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
}

/// Why a reference is not followed, for a `*-cannot-decide` finding.
pub(super) fn ref_reason(problem: &RefProblem) -> String {
    match problem {
        RefProblem::Remote(r) => format!("`$ref: {r}` leaves the document and is never fetched"),
        RefProblem::Dynamic(r) => format!("dynamic reference `{r}` depends on the path of evaluation; not followed"),
        RefProblem::Unresolved(r) => format!("reference `{r}` does not resolve"),
        RefProblem::Ambiguous(r) => format!("reference `{r}` names more than one schema"),
        RefProblem::TooLong(n) => format!("a chain of more than {n} references is not followed"),
    }
}

/// A schema with its `$ref` chain followed inside `root` (as far as it resolves locally).
pub(super) fn follow<'v>(mut v: &'v Value, root: &'v Value) -> &'v Value {
    for _ in 0..MAX_REF_HOPS {
        let Some(r) = v.get("$ref").and_then(Value::as_str) else { break };
        match schema::resolve(root, v.as_object(), r) {
            Ok((_, t)) => v = t,
            Err(_) => break,
        }
    }
    v
}
