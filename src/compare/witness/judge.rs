//! The [`Judge`]: the `jsonschema` validators (draft 2020-12, no network) for the two whole schemas
//! of one direction, and the confirmation of candidate witnesses with them.
//!
//! Takes the accepting ("sub") and the other ("sup") schema, and a [`Plan`] of candidates; returns a
//! [`Witness`] only when the sub schema accepts the instance and the other rejects it (or, for a
//! dropped name, both accept it). Promises: validators are built once and only when needed; a schema
//! that unfolds past [`UNFOLDED`] visits per instance is not validated; long enums are shrunk to the
//! values an instance holds, which is exact for that instance.

use std::collections::HashSet;

use serde_json::Value;

use super::embed::embed_at;
use super::example::Cx;
use super::{Plan, Seg, Witness};
use crate::compare::budget::Budget;
use crate::schema;

/// Validators for the two whole schemas of one direction.
pub struct Judge<'s> {
    sub: &'s Value,
    sup: &'s Value,
    /// Either schema has an enum longer than [`LONG_ENUM`]: validators are then built per plan from
    /// shrunk copies (see [`shrink_enums`]) instead of once from the whole documents.
    long_enums: bool,
    whole: std::cell::OnceCell<Validators>,
    /// Why validation is not attempted: a document unfolds past [`UNFOLDED`] subschemas (`true`), or
    /// has a `$ref` cycle that takes no step into the instance (`false`).
    unfolded: std::cell::OnceCell<Option<bool>>,
    /// The backtracking patterns of both schemas: an instance some of them cannot match within the
    /// regex budget is not validated (the validators' verdict on it would not be exact).
    backtracking: std::cell::OnceCell<schema::regex_budget::Backtracking>,
}

type Validators = (Option<jsonschema::Validator>, Option<jsonschema::Validator>);

/// Enums longer than this are shrunk before validating a witness: compiling a million-value enum
/// builds a hash set of a million values, twice, for a handful of instances.
const LONG_ENUM: usize = 256;

/// Validation errors of one candidate looked at to tell whose rejection it is.
const MAX_ERRORS: usize = 16;

/// Patterns match with the bounded engine ([`schema::regex_budget`]): an instance on which a match
/// would run out of budget is never validated ([`Judge::affordable`]).
fn build(schema: &Value) -> Option<jsonschema::Validator> {
    schema::regex_budget::options().build(schema).ok()
}

impl<'s> Judge<'s> {
    /// `sub` must accept the witness and `sup` must reject it.
    #[must_use]
    pub fn new(sub: &'s Value, sup: &'s Value) -> Judge<'s> {
        let long_enums = has_long_enum(sub) || has_long_enum(sup);
        Judge {
            sub,
            sup,
            long_enums,
            whole: std::cell::OnceCell::new(),
            unfolded: std::cell::OnceCell::new(),
            backtracking: std::cell::OnceCell::new(),
        }
    }

    /// Tries the candidates of a plan; the first confirmed one wins. Building and validating each
    /// instance spends `budget`; none is tried once it is exhausted.
    #[must_use]
    pub fn confirm(&self, sub_root: &Value, plan: &Plan, old_side: bool, budget: &Budget) -> Option<Witness> {
        // A change under a renamed member is also tried under the new name: callers who follow the
        // rename meet it there.
        let renamed = |path: &Vec<Seg>| path.iter().any(|s| matches!(s, Seg::Key { old, new } if old != new));
        let instances: Vec<Value> = plan
            .tries
            .iter()
            .flat_map(|(path, candidate)| {
                let mut v = vec![(path, candidate, old_side)];
                if renamed(path) {
                    v.push((path, candidate, !old_side));
                }
                v
            })
            .filter_map(|(path, candidate, key_side)| {
                let mut cx = Cx::new(budget);
                let local = cx.copy(candidate)?;
                let v = embed_at(sub_root, sub_root, path, (key_side, old_side), local, 0, &mut cx);
                // Validation is bounded by the instance's bytes (spent here) and by `unfolded` below.
                cx.finish(v)
            })
            .collect();
        if instances.is_empty() {
            return None;
        }
        let instances: Vec<Value> = instances.into_iter().filter(|i| self.affordable(i, budget)).collect();
        if instances.is_empty() {
            return None;
        }
        let shrunk;
        let (sub, sup) = if self.long_enums {
            let keep = Members::of(&instances);
            shrunk = (build(&shrink_enums(self.sub, &keep)), build(&shrink_enums(self.sup, &keep)));
            (shrunk.0.as_ref()?, shrunk.1.as_ref()?)
        } else {
            let whole = self.whole.get_or_init(|| (build(self.sub), build(self.sup)));
            (whole.0.as_ref()?, whole.1.as_ref()?)
        };
        let mut dropped = None;
        // A witness rejected at the change's keyword and elsewhere too, kept until one rejected there
        // alone is found.
        let mut shared = None;
        for instance in instances {
            if !sub.is_valid(&instance) {
                continue;
            }
            match sup.validate(&instance) {
                Err(e) => {
                    let Some(at) = &plan.at else {
                        return Some(self.witness(instance.clone(), &e));
                    };
                    // Bounded: a few errors are enough to tell whose rejection this is.
                    let errors: Vec<_> = sup.iter_errors(&instance).take(MAX_ERRORS).collect();
                    let own = |e: &&jsonschema::ValidationError<'_>| self.rejects_at(e, at);
                    let Some(mine) = errors.iter().find(own) else { continue };
                    if errors.iter().all(|e| own(&e)) {
                        return Some(self.witness(instance.clone(), mine));
                    }
                    if shared.is_none() {
                        shared = Some(self.witness(instance.clone(), mine));
                    }
                }
                Ok(()) => {
                    if let (Some(name), None) = (&plan.dropped, &dropped) {
                        dropped = Some(Witness {
                            instance,
                            rejected_because: format!(
                                "not rejected: `{name}` is no longer declared, so validation passes and the value is silently dropped"
                            ),
                            dropped: true,
                        });
                    }
                }
            }
        }
        shared.or(dropped)
    }

    /// A witness with the validator's reason for rejecting it.
    fn witness(&self, instance: Value, e: &jsonschema::ValidationError<'_>) -> Witness {
        let at = e.instance_path().to_string();
        let message = self.message(e);
        let because = if at.is_empty() { message } else { format!("at {at}: {message}") };
        Witness { instance, rejected_because: because, dropped: false }
    }

    /// Whether the rejection `e` is at the keyword written at `at` (a pointer into the rejecting
    /// schema). A location the document does not hold as written (evaluated through a `$ref`) cannot
    /// be told apart, and counts.
    fn rejects_at(&self, e: &jsonschema::ValidationError<'_>, at: &str) -> bool {
        let path = e.schema_path().to_string();
        let loc = schema::resolvable(self.sup, &path);
        loc != path || loc == at || loc.starts_with(&format!("{at}/")) || at.starts_with(&format!("{loc}/"))
    }

    /// Whether validating `instance` against both documents is within bounds. The validator has no
    /// budget of its own, so its work is bounded first (a `$ref` diamond makes it exponential in the
    /// size of the schema): by the documents' unfolded size (once per judge), and, for documents that
    /// unfold too far, by the visits this instance takes. A refusal is recorded in `budget`.
    pub(crate) fn affordable(&self, instance: &Value, budget: &Budget) -> bool {
        let backtracking =
            self.backtracking.get_or_init(|| schema::regex_budget::Backtracking::of(&[self.sub, self.sup]));
        if !backtracking.decided(instance) {
            return false;
        }
        let unfolded = *self.unfolded.get_or_init(|| {
            unfolded_size(self.sub, UNFOLDED, budget).and_then(|_| unfolded_size(self.sup, UNFOLDED, budget)).err()
        });
        if unfolded.is_none() {
            return true;
        }
        let visits = |doc| instance_visits(doc, instance, UNFOLDED, budget);
        match visits(self.sub).and_then(|_| visits(self.sup)) {
            Ok(_) => true,
            Err(too_large) => {
                budget.unfolded_too_large(if too_large { UNFOLDED } else { 0 });
                false
            }
        }
    }

    /// Whether validators are built per call from shrunk copies (an enum is longer than [`LONG_ENUM`]).
    pub(crate) fn long_enums(&self) -> bool {
        self.long_enums
    }

    /// Runs `f` with the (accepting, rejecting) validators fit for `instances`: the whole documents'
    /// (built once per judge), or shrunk copies when an enum is long. `None` when a schema does not
    /// compile.
    pub(crate) fn with_validators<T>(
        &self,
        instances: &[Value],
        f: impl FnOnce(&jsonschema::Validator, &jsonschema::Validator) -> Option<T>,
    ) -> Option<T> {
        if self.long_enums {
            let keep = Members::of(instances);
            let (sub, sup) = (build(&shrink_enums(self.sub, &keep)), build(&shrink_enums(self.sup, &keep)));
            return f(sub.as_ref()?, sup.as_ref()?);
        }
        let whole = self.whole.get_or_init(|| (build(self.sub), build(self.sup)));
        f(whole.0.as_ref()?, whole.1.as_ref()?)
    }

    /// The validator's message, except that a shrunk enum is described by its whole list, and that a
    /// value no `anyOf`/`oneOf` branch accepts is explained by the branch that came closest (fewest
    /// errors, then the deepest one) instead of the whole value again.
    pub(crate) fn message(&self, e: &jsonschema::ValidationError<'_>) -> String {
        use jsonschema::error::ValidationErrorKind as Kind;
        if let Kind::AnyOf { context } | Kind::OneOfNotValid { context } = e.kind()
            && let Some((branch, inner)) = closest_branch(context)
        {
            let keyword = if matches!(e.kind(), Kind::AnyOf { .. }) { "anyOf" } else { "oneOf" };
            let at = inner.instance_path().to_string();
            let at =
                if at.is_empty() || at == e.instance_path().to_string() { String::new() } else { format!(" at {at}") };
            return format!(
                "no `{keyword}` branch accepts it; the closest, branch {branch}, rejects it{at}: {}",
                self.message(inner)
            );
        }
        if let Kind::Enum { .. } = e.kind()
            && self.long_enums
            && let Some(Value::Array(all)) = self.sup.pointer(e.schema_path().as_str())
            && all.len() > LONG_ENUM
        {
            return format!(
                "{} is not one of {}, {} or {} other candidates",
                e.instance(),
                all[0],
                all[1],
                all.len() - 2
            );
        }
        e.to_string()
    }
}

/// [`unfolded_size`] of a whole document up to [`UNFOLDED`], for callers outside the comparison
/// (`replay` bounds the validation of each recorded call with it): `None` past it, or on a `$ref`
/// cycle that takes no step into the instance.
#[must_use]
pub fn unfolded(doc: &Value) -> Option<u64> {
    unfolded_size(doc, UNFOLDED, &Budget::new(u64::MAX, u64::MAX)).ok()
}

/// How many subschemas validating one instance location can apply, at most, through `$ref`s: the
/// size of `doc` unfolded at its references, each reference cycle counted once (the instance bounds
/// how often it is taken). `Err(true)` past `limit` (or the budget), `Err(false)` on a cycle that
/// takes no step into the instance (a validator may never leave it). Linear in the size of `doc`:
/// the count of each subschema is memoized; a `$ref` diamond is exponential in its depth only in
/// the result.
fn unfolded_size(doc: &Value, limit: u64, budget: &Budget) -> Result<u64, bool> {
    struct Unfold<'d> {
        doc: &'d Value,
        limit: u64,
        budget: &'d Budget,
        memo: std::collections::HashMap<*const Value, u64>,
        /// Subschemas being counted, with the instance steps taken when each was entered.
        open: std::collections::HashMap<*const Value, usize>,
        steps: usize,
        depth: usize,
    }
    impl<'d> Unfold<'d> {
        fn size(&mut self, s: &'d Value) -> Result<u64, bool> {
            let key: *const Value = s;
            if let Some(&n) = self.memo.get(&key) {
                return Ok(n);
            }
            if let Some(&at) = self.open.get(&key) {
                return if self.steps > at { Ok(1) } else { Err(false) };
            }
            if self.depth > 512 || !self.budget.step() {
                return Err(true);
            }
            let Value::Object(m) = s else { return Ok(1) };
            self.open.insert(key, self.steps);
            self.depth += 1;
            let mut total = 1u64;
            for (k, v) in m {
                const STEP: &[&str] = &[
                    "properties",
                    "patternProperties",
                    "additionalProperties",
                    "unevaluatedProperties",
                    "propertyNames",
                    "items",
                    "prefixItems",
                    "additionalItems",
                    "contains",
                    "unevaluatedItems",
                ];
                if schema::is_instance_data(k) || matches!(k.as_str(), "$defs" | "definitions") {
                    continue;
                }
                let step = usize::from(STEP.contains(&k.as_str()));
                self.steps += step;
                let n = match (k.as_str(), v) {
                    ("$ref" | "$dynamicRef" | "$recursiveRef", Value::String(r)) => {
                        schema::resolve(self.doc, Some(m), r).ok().map_or(Ok(0), |(_, t)| self.size(t))
                    }
                    ("properties" | "patternProperties" | "dependentSchemas", Value::Object(map)) => {
                        map.values().try_fold(0u64, |acc, x| Ok(acc.saturating_add(self.size(x)?)))
                    }
                    (_, Value::Array(list)) => {
                        list.iter().try_fold(0u64, |acc, x| Ok(acc.saturating_add(self.size(x)?)))
                    }
                    (_, Value::Object(_)) => self.size(v),
                    _ => Ok(0),
                };
                self.steps -= step;
                total = total.saturating_add(n?);
                if total > self.limit {
                    return Err(true);
                }
            }
            self.depth -= 1;
            self.open.remove(&key);
            self.memo.insert(key, total);
            Ok(total)
        }
    }
    let mut u = Unfold {
        doc,
        limit,
        budget,
        memo: std::collections::HashMap::new(),
        open: std::collections::HashMap::new(),
        steps: 0,
        depth: 0,
    };
    u.size(doc)
}

/// How many (subschema, instance location) visits validating `instance` against `doc` takes at most,
/// through every applicator and `$ref` (as if no `anyOf` stopped early): the exact count for the
/// validator's worst case, found in one visit per distinct pair (memoized), so a `$ref` diamond is
/// exponential only in the result. Errors as [`unfolded_size`]. For schemas that unfold too far to
/// validate every instance blindly, but whose instance takes few of the paths.
fn instance_visits(doc: &Value, instance: &Value, limit: u64, budget: &Budget) -> Result<u64, bool> {
    type Pair = (*const Value, *const Value);
    struct Visits<'d> {
        doc: &'d Value,
        limit: u64,
        budget: &'d Budget,
        memo: std::collections::HashMap<Pair, u64>,
        open: HashSet<Pair>,
        depth: usize,
    }
    impl<'d> Visits<'d> {
        fn sum(&mut self, pairs: impl Iterator<Item = (&'d Value, &'d Value)>) -> Result<u64, bool> {
            let mut total = 0u64;
            for (s, i) in pairs {
                total = total.saturating_add(self.count(s, i)?);
                if total > self.limit {
                    return Err(true);
                }
            }
            Ok(total)
        }

        fn count(&mut self, s: &'d Value, i: &'d Value) -> Result<u64, bool> {
            let key: Pair = (s, i);
            if let Some(&n) = self.memo.get(&key) {
                return Ok(n);
            }
            let Value::Object(m) = s else { return Ok(1) };
            if !self.open.insert(key) {
                return Err(false);
            }
            if self.depth > 512 || !self.budget.step() {
                return Err(true);
            }
            self.depth += 1;
            let get = |k: &str| m.get(k);
            let mut here: Vec<&'d Value> = Vec::new();
            for k in ["$ref", "$dynamicRef", "$recursiveRef"] {
                if let Some(r) = get(k).and_then(Value::as_str)
                    && let Ok((_, target)) = schema::resolve(self.doc, Some(m), r)
                {
                    here.push(target);
                }
            }
            for k in ["allOf", "anyOf", "oneOf"] {
                here.extend(get(k).and_then(Value::as_array).into_iter().flatten());
            }
            here.extend(["not", "if", "then", "else"].into_iter().filter_map(get));
            here.extend(get("dependentSchemas").and_then(Value::as_object).into_iter().flat_map(|d| d.values()));
            let mut pairs: Vec<(&'d Value, &'d Value)> = here.into_iter().map(|x| (x, i)).collect();
            let mut names = 0u64;
            match i {
                Value::Object(members) => {
                    let props = get("properties").and_then(Value::as_object);
                    let patterns = get("patternProperties").and_then(Value::as_object);
                    let rest: Vec<&'d Value> =
                        ["additionalProperties", "unevaluatedProperties"].into_iter().filter_map(get).collect();
                    for (k, v) in members {
                        pairs.extend(props.and_then(|p| p.get(k)).map(|x| (x, v)));
                        pairs.extend(patterns.into_iter().flat_map(|p| p.values()).map(|x| (x, v)));
                        pairs.extend(rest.iter().map(|x| (*x, v)));
                    }
                    if get("propertyNames").is_some() {
                        names = members.len() as u64;
                    }
                }
                Value::Array(items) => {
                    let prefix = get("prefixItems").and_then(Value::as_array);
                    let rest: Vec<&'d Value> = ["items", "additionalItems", "contains", "unevaluatedItems"]
                        .into_iter()
                        .filter_map(get)
                        .collect();
                    for (n, v) in items.iter().enumerate() {
                        pairs.extend(prefix.and_then(|p| p.get(n)).map(|x| (x, v)));
                        pairs.extend(rest.iter().map(|x| (*x, v)));
                    }
                }
                _ => {}
            }
            let total = self.sum(pairs.into_iter())?.saturating_add(1 + names);
            self.depth -= 1;
            self.open.remove(&key);
            self.memo.insert(key, total);
            Ok(total)
        }
    }
    let mut v = Visits { doc, limit, budget, memo: std::collections::HashMap::new(), open: HashSet::new(), depth: 0 };
    v.count(doc, instance)
}

/// Validating one instance may take at most this many (subschema, instance location) visits; past it
/// no witness is validated. Checked for the whole schema first ([`unfolded_size`], once), and per
/// instance ([`instance_visits`]) only when the schema unfolds past it.
pub const UNFOLDED: u64 = 1_000_000;

/// The branch of a failed `anyOf`/`oneOf` that came closest to accepting the value: the fewest errors,
/// then the deepest error (the most specific reason), then the first branch; with that deepest error.
fn closest_branch<'e>(
    context: &'e [Vec<jsonschema::ValidationError<'static>>],
) -> Option<(usize, &'e jsonschema::ValidationError<'static>)> {
    let depth = |e: &jsonschema::ValidationError<'_>| e.instance_path().to_string().matches('/').count();
    context
        .iter()
        .enumerate()
        .filter_map(|(k, errors)| errors.iter().max_by_key(|e| depth(e)).map(|deepest| (k, errors.len(), deepest)))
        .min_by_key(|(k, count, deepest)| (*count, std::cmp::Reverse(depth(deepest)), *k))
        .map(|(k, _, deepest)| (k, deepest))
}

/// The values that occur anywhere in a set of instances (every member, element and the roots).
struct Members<'i> {
    strings: HashSet<&'i str>,
    others: HashSet<String>,
}

impl<'i> Members<'i> {
    fn of(instances: &'i [Value]) -> Members<'i> {
        let mut m = Members { strings: HashSet::new(), others: HashSet::new() };
        let mut stack: Vec<&Value> = instances.iter().collect();
        while let Some(v) = stack.pop() {
            match v {
                Value::String(s) => {
                    m.strings.insert(s);
                }
                Value::Array(a) => stack.extend(a),
                Value::Object(o) => stack.extend(o.values()),
                _ => {}
            }
            if !v.is_string() {
                m.others.insert(schema::canonical_key(v));
            }
        }
        m
    }

    fn contains(&self, v: &Value) -> bool {
        match v {
            // Instances hold a few strings; a linear look beats hashing each of a million values.
            Value::String(s) if self.strings.len() <= 16 => self.strings.iter().any(|x| *x == s.as_str()),
            Value::String(s) => self.strings.contains(s.as_str()),
            other => self.others.contains(&schema::canonical_key(other)),
        }
    }
}

fn has_long_enum(schema: &Value) -> bool {
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    match (k.as_str(), x) {
                        ("enum", Value::Array(list)) if list.len() > LONG_ENUM => return true,
                        (k, _) if schema::is_instance_data(k) => {}
                        _ => stack.push(x),
                    }
                }
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    false
}

/// A copy of `schema` whose long enums keep only their first value and the values in `keep`.
///
/// Exact for validating instances whose values are all in `keep`: at any instance location the value
/// there is in `keep`, so it is in the shrunk list exactly when it is in the whole one. Data keywords
/// (`const`, `default`, `examples`) are copied untouched, so a member that merely looks like an
/// `enum` is never changed; that can only leave a list long, never make it wrong.
fn shrink_enums(schema: &Value, keep: &Members<'_>) -> Value {
    match schema {
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| {
                    let x = match (k.as_str(), x) {
                        ("enum", Value::Array(list)) if list.len() > LONG_ENUM => Value::Array(
                            list.iter()
                                .enumerate()
                                .filter(|(i, v)| *i == 0 || keep.contains(v))
                                .map(|(_, v)| v.clone())
                                .collect(),
                        ),
                        (k, _) if schema::is_instance_data(k) => x.clone(),
                        _ => shrink_enums(x, keep),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| shrink_enums(x, keep)).collect()),
        other => other.clone(),
    }
}
