//! Witnesses: concrete instances that prove a break. For an input change, a complete arguments object
//! that the old `inputSchema` accepts and the new one rejects; for an output change, a value the new
//! `outputSchema` allows and the old one rejects.
//!
//! The walk records, for every change that narrows in the breaking direction, the instance path that
//! leads to it and a few local candidate values. This module builds full instances around the
//! candidates (using examples of the enclosing schemas) and confirms them with the `jsonschema` crate
//! (draft 2020-12, no network). Only a confirmed witness is ever returned.

use serde_json::Value;

mod embed;
mod example;
mod judge;
mod patterns;

pub use embed::embed;
pub(crate) use example::{deref, size_within};
pub use example::{example, integer_probes, number, numeric_probes};
pub use judge::{Judge, UNFOLDED, unfolded};
pub use patterns::{literal_alternatives, literal_prefix, pattern_implies};

/// A step from a schema to the instance location of a subschema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// An object member; the name can differ between the sides for renames.
    Key { old: String, new: String },
    /// A member matched by `additionalProperties`.
    Extra,
    /// An array element (`items` or `prefixItems`).
    Index(usize),
    /// A branch of `anyOf`/`oneOf`/`allOf`, by index on each side.
    Branch { keyword: &'static str, old: usize, new: usize },
}

/// What the walk hands over for confirmation.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Instance paths and the local values to place there, tried in order.
    pub tries: Vec<(Vec<Seg>, Value)>,
    /// The change drops a declared name without making validation fail (a removed or renamed
    /// parameter of an open schema): a witness accepted by both sides still proves it.
    pub dropped: Option<String>,
    /// For a change of one keyword (a bound, a `pattern`): where that keyword is written in the
    /// rejecting schema, relative to its root. A witness must be rejected there: an instance rejected
    /// only by another change at the same place is that change's witness, not this one's.
    pub at: Option<String>,
}

/// A confirmed counterexample.
#[derive(Clone, Debug, PartialEq)]
pub struct Witness {
    /// The complete instance (arguments object, or result value).
    pub instance: Value,
    /// Why the other schema rejects it, as the validator says; or why the value is lost.
    pub rejected_because: String,
    /// Both schemas accept the instance, but a declared value is silently dropped.
    pub dropped: bool,
}

/// The name used for a property that no schema declares.
pub const EXTRA_KEY: &str = "x-mcp-drift-extra";
