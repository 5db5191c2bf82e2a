//! The decision procedure: is there an instance that `sub` accepts and `sup` rejects?
//!
//! Takes two whole schema documents (draft 2020-12; each root is the resource root for local `$ref`,
//! `true`/`false` are schemas) and [`Limits`]; returns a [`Verdict`]. Callers pick the direction:
//! input `sub` = old, `sup` = new; output `sub` = new, `sup` = old.
//!
//! How, in order (the first answer wins):
//! 1. **Finite domains, exactly** ([`finite`]): when the widened normal form of `sub` has finitely many
//!    instances (`const`, `enum`, `false`, types `null`/`boolean` only), every candidate is checked with
//!    the `jsonschema` validators of both documents. The answer is exact: `Compatible` or a witness.
//!    `enum`/`const`/`default`/`examples` values are data, never read as schemas.
//! 2. **Witness search** ([`generate`]): bounded candidates of `sub` (minimal instances of each
//!    disjunct, `examples`/`default` values, and for each constraint of `sup` an instance of `sub`
//!    pushed to violate it, embedded at its path), each validated against both documents. Only a
//!    candidate the validators confirm (`sub` accepts, `sup` rejects) becomes `Incompatible`.
//! 3. **Proof of inclusion** ([`include`]), sound only, on the and-or normal form ([`nf`]): per JSON
//!    type a conjunction of constraints, `anyOf`/`oneOf`/`enum`/`type` as disjunctions, `allOf` and
//!    `$ref` merged (with coinductive memoization on guarded reference pairs), `not` pushed through its
//!    duals (`type`, `enum`/`const`, bounds, and the types a schema cannot reject), `oneOf` as "this
//!    branch and no other", `if`/`then`/`else` by cases, `unevaluated*` over what the in-place
//!    subschemas evaluate.
//! 4. Otherwise `Undecided`, naming the keyword that blocked, its pointer and why.
//!
//! What is decided, and how completely:
//! - **Exact** (the answer is always `Compatible` or a confirmed witness, within the limits): a `sub`
//!   whose root normal form is finite (`const`, `enum`, `false`, only `null`/`boolean`).
//! - **Complete proofs** (a true inclusion is proven) for conjunctions and `anyOf`/`allOf`/`$ref`
//!   combinations of: `type`; `minimum`/`maximum`/exclusive bounds (integers up to 2^53 exactly);
//!   `multipleOf` between integers; `minLength`/`maxLength`; identical `pattern`s (others as far as
//!   `schema::pattern` decides inclusion); `prefixItems`/`items`/`minItems`/`maxItems`/`uniqueItems`;
//!   `properties`/`additionalProperties`/`required`/`minProperties`/`maxProperties`;
//!   `dependentRequired` (by closure); `propertyNames` when `sub` closes its names; nested finite
//!   values (checked one by one); `not` of `type`, `enum`/`const`, `not`, one bound, one length or
//!   count, one required name; identical (reference-free) subschemas anywhere;
//!   `unevaluatedProperties`/`unevaluatedItems` whose evaluated names or positions come from
//!   `properties`/`patternProperties`/`prefixItems` reached through `allOf`, `$ref`, `oneOf`, an
//!   `anyOf` of at most 4 branches, or `if`/`then`/`else`.
//! - **Sound but incomplete** (may stay undecided although included): `oneOf` whose branches the form
//!   cannot negate (their negation is kept, and a `sub` must be shown outside each other branch:
//!   by types, values, a required name, or the identical branch failed in `sub`), other `not`s,
//!   `if`/`then`/`else` with different conditions, `dependentSchemas`, `contains`,
//!   `patternProperties` with different patterns, `propertyNames` over open names, fractional
//!   `multipleOf`, numbers past 2^53.
//! - **Undecided unless `sub` carries the identical keyword** (and, for `unevaluated*`, the identical
//!   enclosing subschema): unknown keywords; `unevaluated*` whose evaluated set depends on
//!   `dependentSchemas`, `contains` or an `anyOf` of more than 4 evaluating branches; also
//!   `$dynamicRef` whose target depends on the evaluation path, remote references, and documents the
//!   validator does not compile.
//! - **Refutations are heuristic but never wrong**: a non-inclusion is `Incompatible` only when one
//!   of the bounded candidates is confirmed by both validators; otherwise the proof's blocking keyword
//!   is reported as `Undecided`.
//!
//! Promises: never panics, and every loop is bounded by [`Limits`] (steps, disjuncts, depth, bytes of
//! a candidate instance); a limit hit is `Undecided` with the limit named. Validation is only run on
//! instances whose validation work is bounded (see [`affordable`]).

#![allow(clippy::float_cmp, reason = "numeric bounds are compared exactly: a bound is the value the schema wrote")]
#![allow(
    clippy::many_single_char_names,
    reason = "`a`/`b` are the sub/sup conjuncts, `v` an instance, `c` a conjunct, as in the papers"
)]
#![allow(clippy::similar_names, reason = "`sub`/`sup` pairs are the subject of this module")]
#![allow(clippy::cast_precision_loss, reason = "lengths and counts compared against JSON numbers are far below 2^53")]

pub mod cases;
pub mod eval;
pub mod finite;
pub mod generate;
pub mod include;
pub mod negate;
pub mod nf;
pub mod unevaluated;

use std::collections::HashMap;

use serde_json::Value;

/// The answer for one tool and one direction.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Proven: every instance of `sub` is accepted by `sup`.
    Compatible,
    /// `witness` is accepted by `sub` and rejected by `sup`, both confirmed with the `jsonschema`
    /// validator (draft 2020-12). `instance_at` and `schema_at` are the validator's locations of the
    /// rejection (in the witness and in `sup`); `because` is its message.
    Incompatible { witness: Value, instance_at: String, schema_at: String, because: String },
    /// Neither proven nor refuted: the keyword that blocked, where (a JSON Pointer into `sup` or `sub`,
    /// `reason` says which), and why.
    Undecided { keyword: String, at: String, reason: String },
}

/// Bounds on the work of one decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Normal-form, proof and evaluation steps.
    pub steps: u64,
    /// Disjuncts of one normal form (DNF blow-up).
    pub disjuncts: usize,
    /// Nesting of subschemas (and `$ref` hops) and of instances.
    pub depth: usize,
    /// Bytes of one candidate instance (serialized).
    pub instance_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { steps: 200_000, disjuncts: 256, depth: 64, instance_bytes: 1 << 20 }
    }
}

/// Why a step of the procedure could not go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub keyword: String,
    pub at: String,
    pub reason: String,
}

impl Block {
    #[must_use]
    pub fn new(keyword: &str, at: &str, reason: String) -> Block {
        Block { keyword: keyword.to_owned(), at: at.to_owned(), reason }
    }

    fn undecided(self) -> Verdict {
        Verdict::Undecided { keyword: self.keyword, at: self.at, reason: self.reason }
    }
}

/// Shared state of one decision: the limits, the steps spent, compiled `pattern`s.
pub struct Cx {
    pub limits: Limits,
    steps: u64,
    /// Normal forms being built inside another one (a `oneOf` checked for disjointness).
    pub nest: usize,
    /// Schema objects with an `unevaluated*` keyword whose in-place applicators are being read.
    pub uneval: usize,
    /// Schema objects whose keywords are being merged, nested (normal forms inside normal forms).
    pub active: usize,
    patterns: HashMap<String, Option<jsonschema::Validator>>,
    /// Bytes of candidate instances built so far (see [`Cx::build`]).
    built: u64,
}

/// Candidate bytes one decision may build, in multiples of `instance_bytes`: a schema whose minimal
/// instance is huge (`minItems` of `minItems` of `minLength`) gets no more candidates once it is spent.
const BUILT_PER_DECISION: u64 = 4;

/// Patterns longer than this are not compiled for matching (cannot decide).
const MAX_PATTERN: usize = 4_096;
/// Distinct patterns compiled in one decision.
const MAX_PATTERNS: usize = 256;

impl Cx {
    #[must_use]
    pub fn new(limits: &Limits) -> Cx {
        Cx { limits: limits.clone(), steps: 0, nest: 0, uneval: 0, active: 0, patterns: HashMap::new(), built: 0 }
    }

    /// Spends `bytes` of candidate instance about to be built; `false` (build nothing) once one
    /// value would exceed `instance_bytes` or the decision's total is spent.
    pub fn build(&mut self, bytes: u64) -> bool {
        self.built = self.built.saturating_add(bytes);
        bytes <= self.limits.instance_bytes
            && self.built <= self.limits.instance_bytes.saturating_mul(BUILT_PER_DECISION)
    }

    /// Spends one step.
    ///
    /// # Errors
    /// A [`Block`] naming the `steps` limit once it is spent.
    pub fn step(&mut self, at: &str) -> Result<(), Block> {
        self.steps += 1;
        if self.steps > self.limits.steps {
            return Err(Block::new(
                "steps",
                at,
                format!("the step budget of {} is spent (limit `steps`)", self.limits.steps),
            ));
        }
        Ok(())
    }

    /// Whether the ECMA-262 `pattern` matches `s`, as the validator decides it (`None`: the pattern
    /// does not compile, or is too long).
    pub fn matches(&mut self, pattern: &str, s: &str) -> Option<bool> {
        if pattern.len() > MAX_PATTERN {
            return None;
        }
        if !self.patterns.contains_key(pattern) {
            if self.patterns.len() >= MAX_PATTERNS {
                return None;
            }
            let v = build(&serde_json::json!({"type": "string", "pattern": pattern}));
            self.patterns.insert(pattern.to_owned(), v);
        }
        let v = self.patterns.get(pattern)?.as_ref()?;
        // A match out of its backtracking budget decides nothing.
        match v.validate(&Value::String(s.to_owned())) {
            Ok(()) => Some(true),
            Err(e) if crate::schema::regex_budget::is_undecided(&e) => None,
            Err(_) => Some(false),
        }
    }
}

/// The validator of one whole document, with the options `compare::witness::Judge` uses.
fn build(schema: &Value) -> Option<jsonschema::Validator> {
    crate::schema::regex_budget::options().build(schema).ok()
}

/// The validators of both documents, and the witness check.
pub struct Judge<'s> {
    sub_doc: &'s Value,
    sup_doc: &'s Value,
    sub: jsonschema::Validator,
    sup: jsonschema::Validator,
    /// Candidates tried so far, and what was refused for size.
    pub tried: usize,
    pub too_large: bool,
    /// Schema/instance visits left for all validations of this decision.
    fuel: u64,
    /// Whether a validation's regex matches all finished within their budget (else it decides nothing).
    backtracking: crate::schema::regex_budget::Backtracking,
}

/// Candidates validated in one decision.
pub const MAX_CANDIDATES: usize = 4_096;
/// Schema/instance visits one validation may take (the validator has no budget of its own).
const MAX_VISITS: u64 = 200_000;
/// Visits all validations of one decision may take together.
const TOTAL_VISITS: u64 = 4_000_000;

impl<'s> Judge<'s> {
    fn new(sub_doc: &'s Value, sup_doc: &'s Value) -> Result<Judge<'s>, Block> {
        let compile = |doc: &Value, which: &str| {
            crate::schema::regex_budget::options().build(doc).map_err(|e| {
                let why: String = e.to_string().chars().take(200).collect();
                Block::new("$schema", "", format!("the validator does not compile `{which}` as draft 2020-12: {why}"))
            })
        };
        Ok(Judge {
            sub_doc,
            sup_doc,
            sub: compile(sub_doc, "sub")?,
            sup: compile(sup_doc, "sup")?,
            tried: 0,
            too_large: false,
            fuel: TOTAL_VISITS,
            backtracking: crate::schema::regex_budget::Backtracking::of(&[sub_doc, sup_doc]),
        })
    }

    /// `Some(verdict)` when `sub` accepts `instance` and `sup` rejects it.
    pub fn check(&mut self, instance: &Value, limits: &Limits) -> Option<Verdict> {
        if self.tried >= MAX_CANDIDATES {
            return None;
        }
        self.tried += 1;
        if !self.afford(instance, limits) || !self.backtracking.decided(instance) {
            return None;
        }
        if !self.sub.is_valid(instance) {
            return None;
        }
        let e = self.sup.validate(instance).err()?;
        Some(Verdict::Incompatible {
            witness: instance.clone(),
            instance_at: e.instance_path().to_string(),
            schema_at: e.schema_path().to_string(),
            because: e.to_string(),
        })
    }

    /// Whether both validators accept (`Some(true)`), `sub` accepts and `sup` rejects (`Some(false)`);
    /// `None` when `sub` rejects or validation is not affordable.
    pub fn both(&mut self, instance: &Value, limits: &Limits) -> Option<bool> {
        if !self.afford(instance, limits) || !self.backtracking.decided(instance) {
            return None;
        }
        if !self.sub.is_valid(instance) {
            return None;
        }
        Some(self.sup.is_valid(instance))
    }
}

impl Judge<'_> {
    /// Whether `instance` may be validated: affordable alone, and within what is left of the total.
    fn afford(&mut self, instance: &Value, limits: &Limits) -> bool {
        let before = self.fuel.min(MAX_VISITS);
        let mut fuel = before;
        let ok = bytes_ok(instance, limits)
            && visits(self.sub_doc, self.sub_doc, instance, 0, &mut fuel)
            && visits(self.sup_doc, self.sup_doc, instance, 0, &mut fuel);
        self.fuel -= before - fuel;
        if !ok {
            self.too_large = true;
        }
        ok
    }
}

fn bytes_ok(instance: &Value, limits: &Limits) -> bool {
    serde_json::to_vec(instance).is_ok_and(|b| b.len() as u64 <= limits.instance_bytes)
}

/// Whether validating `instance` against both documents is bounded: its serialized size is within
/// `instance_bytes`, and the schema/instance visits the validator makes (counted without memoization,
/// as the validator works, so a `$ref` diamond counts every path) stay under [`MAX_VISITS`].
#[must_use]
pub fn affordable(sub: &Value, sup: &Value, instance: &Value, limits: &Limits) -> bool {
    if !bytes_ok(instance, limits) {
        return false;
    }
    let mut fuel = MAX_VISITS;
    visits(sub, sub, instance, 0, &mut fuel) && visits(sup, sup, instance, 0, &mut fuel)
}

/// Spends one unit of `fuel` per (subschema, instance location) visit; `false` when it runs out.
fn visits(root: &Value, schema: &Value, instance: &Value, depth: usize, fuel: &mut u64) -> bool {
    if *fuel == 0 || depth > 256 {
        return false;
    }
    *fuel -= 1;
    let Value::Object(m) = schema else { return true };
    let mut go = |s: &Value, i: &Value, d: usize| visits(root, s, i, d, fuel);
    for k in ["$ref", "$dynamicRef"] {
        if let Some(r) = m.get(k).and_then(Value::as_str)
            && let Ok((_, t)) = crate::schema::resolve(root, Some(m), r)
            && !go(t, instance, depth + 1)
        {
            return false;
        }
    }
    for (k, v) in m {
        if crate::schema::is_instance_data(k) {
            continue;
        }
        let ok = match (k.as_str(), v) {
            ("allOf" | "anyOf" | "oneOf", Value::Array(a)) => a.iter().all(|s| go(s, instance, depth + 1)),
            ("not" | "if" | "then" | "else", s) => go(s, instance, depth + 1),
            ("dependentSchemas", Value::Object(d)) => d.values().all(|s| go(s, instance, depth + 1)),
            ("properties" | "patternProperties", Value::Object(p)) => match instance {
                Value::Object(o) => o.iter().all(|(name, i)| {
                    let s = p.get(name);
                    s.is_none_or(|s| go(s, i, depth + 1))
                        && (k != "patternProperties" || p.values().all(|s| go(s, i, depth + 1)))
                }),
                _ => true,
            },
            ("additionalProperties" | "unevaluatedProperties", s) => match instance {
                Value::Object(o) => o.values().all(|i| go(s, i, depth + 1)),
                _ => true,
            },
            ("propertyNames", s) => match instance {
                Value::Object(o) => o.keys().all(|n| go(s, &Value::String(n.clone()), depth + 1)),
                _ => true,
            },
            ("items" | "prefixItems" | "contains" | "unevaluatedItems", s) => match instance {
                Value::Array(a) => a.iter().all(|i| match s {
                    Value::Array(p) => p.iter().all(|s| go(s, i, depth + 1)),
                    s => go(s, i, depth + 1),
                }),
                _ => true,
            },
            _ => true,
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Decides whether some instance of `sub` is rejected by `sup`; see the module header.
#[must_use]
pub fn decide(sub: &Value, sup: &Value, limits: &Limits) -> Verdict {
    let _scope = crate::schema::refs::Scope::new([sub, sup]);
    let mut judge = match Judge::new(sub, sup) {
        Ok(j) => j,
        Err(b) => return b.undecided(),
    };
    if crate::schema::json_eq(sub, sup) {
        return Verdict::Compatible;
    }
    let mut cx = Cx::new(limits);
    // Not finite, or its normal form is blocked: then the search and the proof say why.
    if let Ok(Some(v)) = finite::decide(sub, &mut judge, &mut cx) {
        return v;
    }
    if let Some(v) = generate::search(sub, sup, &mut judge, &mut cx) {
        return v;
    }
    let mut proof_cx = Cx::new(limits);
    match include::prove(sub, sup, &mut proof_cx) {
        Ok(()) => Verdict::Compatible,
        Err(b) if judge.too_large => Block::new(
            &b.keyword,
            &b.at,
            format!("{}; some witness candidates were not validated: their validation is unbounded (limit `instance_bytes` or the schema unfolds too far)", b.reason),
        )
        .undecided(),
        Err(b) => b.undecided(),
    }
}
