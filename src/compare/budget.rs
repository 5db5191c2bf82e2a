//! The work budget of one tool and direction: every schema walk step, `$ref` hop, example node and
//! witness validation spends steps, and every example or witness instance spends bytes. Past either
//! limit the work stops and the tool's direction gets one `*-cannot-decide` change naming the budget,
//! instead of a long run: a few hundred bytes of schema can describe 2^96 paths or a 10 GB instance.
//!
//! Shared by reference (the counters are cells) between the walker, the walkers it starts for `not`,
//! and the witness builder, so that they all draw on one allowance.

use std::cell::Cell;

use super::{Change, ChangeKind, SchemaChange, Side};

/// Steps per tool and direction (walk calls, `$ref` hops, example nodes, witness validations), plus
/// [`STEPS_PER_NODE`] for each JSON value of the two schemas: work linear in the input is never cut
/// short, and a tiny schema that describes exponential work gets this much.
pub const STEPS: u64 = 200_000;
/// Steps added per JSON value of the two schemas compared.
pub const STEPS_PER_NODE: u64 = 4;
/// Bytes of example and witness instances built per tool and direction.
pub const BYTES: u64 = 64 << 20;
/// Bytes of one example or witness instance: a larger one is not built (and so not shown).
pub const INSTANCE_BYTES: u64 = 1 << 20;

/// What ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exhausted {
    Steps(u64),
    Bytes(u64),
    /// A schema unfolds at its `$ref`s to more subschemas than this: validating even one witness
    /// against it could take exponential time. `0`: a `$ref` cycle takes no step into the instance.
    Unfolded(u64),
}

/// A budget of steps and bytes.
#[derive(Debug)]
pub struct Budget {
    steps_limit: u64,
    bytes_limit: u64,
    steps: Cell<u64>,
    bytes: Cell<u64>,
    exhausted: Cell<Option<Exhausted>>,
    /// Spent on witnesses now (the walk is over): an exhausted budget then stops only witnesses.
    witnessing: Cell<bool>,
    /// The budget ran out while looking for witnesses.
    exhausted_witnessing: Cell<bool>,
    /// An example or witness was not built because one instance would exceed [`INSTANCE_BYTES`].
    instance_too_large: Cell<bool>,
    /// Changes whose witness candidates were all tried and none confirmed.
    unconfirmed: Cell<usize>,
    /// Some instance was not validated because validating it could take too long (see
    /// [`Budget::unfolded_too_large`]): the limit it was over, `0` for a cycle.
    unaffordable: Cell<Option<u64>>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(STEPS, BYTES)
    }
}

impl Budget {
    /// The budget for comparing `old` with `new`: [`STEPS`] plus [`STEPS_PER_NODE`] per value in them.
    #[must_use]
    pub fn for_schemas(old: &serde_json::Value, new: &serde_json::Value) -> Budget {
        let nodes = count_values(old).saturating_add(count_values(new));
        Budget::new(STEPS.saturating_add(nodes.saturating_mul(STEPS_PER_NODE)), BYTES)
    }

    #[must_use]
    pub fn new(steps: u64, bytes: u64) -> Budget {
        Budget {
            steps_limit: steps,
            bytes_limit: bytes,
            steps: Cell::new(0),
            bytes: Cell::new(0),
            exhausted: Cell::new(None),
            witnessing: Cell::new(false),
            exhausted_witnessing: Cell::new(false),
            instance_too_large: Cell::new(false),
            unconfirmed: Cell::new(0),
            unaffordable: Cell::new(None),
        }
    }

    /// Spends one step; `false` once the budget is exhausted (this step included).
    pub fn step(&self) -> bool {
        self.steps_n(1)
    }

    /// Spends `n` steps; `false` once the budget is exhausted.
    pub fn steps_n(&self, n: u64) -> bool {
        if self.exhausted.get().is_some() {
            return false;
        }
        let used = self.steps.get().saturating_add(n);
        self.steps.set(used);
        if used > self.steps_limit {
            self.run_out(Exhausted::Steps(self.steps_limit));
            return false;
        }
        true
    }

    /// Spends `n` bytes; `false` once the budget is exhausted.
    pub fn bytes(&self, n: u64) -> bool {
        if self.exhausted.get().is_some() {
            return false;
        }
        let used = self.bytes.get().saturating_add(n);
        self.bytes.set(used);
        if used > self.bytes_limit {
            self.run_out(Exhausted::Bytes(self.bytes_limit));
            return false;
        }
        true
    }

    fn run_out(&self, what: Exhausted) {
        self.exhausted.set(Some(what));
        self.exhausted_witnessing.set(self.witnessing.get());
    }

    /// Records that one instance was not validated: through the schema's `$ref`s its validation could
    /// apply more than `limit` subschemas (`0`: a cycle that takes no step into the instance). Only
    /// that instance is skipped, so that a costly corner (an optional property padded with a `$ref`
    /// diamond) cannot switch off the witnesses and the probe for the rest of the tool.
    pub fn unfolded_too_large(&self, limit: u64) {
        self.unaffordable.set(Some(limit));
    }

    /// The walk is over; what is spent from now on is spent on witnesses.
    pub fn start_witnesses(&self) {
        self.witnessing.set(true);
    }

    /// Whether work must stop.
    #[must_use]
    pub fn exhausted(&self) -> Option<Exhausted> {
        self.exhausted.get()
    }

    /// Records that one instance would have been larger than [`INSTANCE_BYTES`].
    pub fn instance_too_large(&self) {
        self.instance_too_large.set(true);
    }

    /// Whether some example or witness was left unbuilt for its size.
    #[must_use]
    pub fn any_instance_too_large(&self) -> bool {
        self.instance_too_large.get()
    }

    /// Counts a change whose witness was looked for and not confirmed.
    pub fn unconfirmed(&self) {
        self.unconfirmed.set(self.unconfirmed.get() + 1);
    }

    /// Steps spent so far.
    #[must_use]
    pub fn steps_used(&self) -> u64 {
        self.steps.get()
    }
}

/// Records what the budget of one tool and direction stopped: one cannot-decide change at the schema
/// root when the budget ran out (the walk and the witnesses stopped there), and one when witnesses
/// were left unbuilt because an instance would exceed [`INSTANCE_BYTES`].
pub fn report(out: &mut Vec<Change>, tool: &str, side: Side, budget: &Budget) {
    let (root, what) = match side {
        Side::Input => ("/inputSchema", "input schema"),
        Side::Output => ("/outputSchema", "output schema"),
    };
    let mut push = |reason: String| {
        out.push(Change {
            tool: tool.to_owned(),
            kind: ChangeKind::Schema { side, change: SchemaChange::CannotDecide { keyword: "budget".into(), reason } },
            old_ptr: Some(root.to_owned()),
            new_ptr: Some(root.to_owned()),
            witness: None,
            plan: None,
        });
    };
    if let Some(why) = budget.exhausted() {
        push(if budget.exhausted_witnessing.get() {
            format!(
                "{}; the changes of this tool's {what} without a witness are not proven",
                why.describe().replacen("comparison", "witness search", 1)
            )
        } else {
            format!("{}; the rest of this tool's {what} is not compared", why.describe())
        });
    }
    if let Some(limit) = budget.unaffordable.get()
        && budget.unconfirmed.get() > 0
    {
        push(format!(
            "{}; the changes of this tool's {what} without a witness are not proven",
            Exhausted::Unfolded(limit).describe()
        ));
    }
    if budget.any_instance_too_large() && budget.unconfirmed.get() > 0 {
        push(format!(
            "a witness would be larger than {} MiB (budget), so none was built: the changes of this tool's {what} without one are not proven",
            INSTANCE_BYTES >> 20
        ));
    }
}

impl Exhausted {
    /// "comparison stopped after 200,000 steps (budget)", for the reason of a cannot-decide change.
    #[must_use]
    pub fn describe(self) -> String {
        match self {
            Exhausted::Steps(n) => format!("comparison stopped after {} steps (budget)", thousands(n)),
            Exhausted::Bytes(n) => {
                format!("comparison stopped after building {} MiB of example instances (budget)", n >> 20)
            }
            Exhausted::Unfolded(0) => "a witness was not validated: the schema's `$ref`s form a cycle that takes no \
                                      step into the instance (budget)"
                .to_owned(),
            Exhausted::Unfolded(n) => format!(
                "a witness was not validated: through the schema's `$ref`s its validation could apply more than {} \
                 subschemas (budget)",
                thousands(n)
            ),
        }
    }
}

/// How many JSON values `v` holds, itself included.
fn count_values(v: &serde_json::Value) -> u64 {
    use serde_json::Value;
    let mut n = 0u64;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        n += 1;
        match v {
            Value::Array(a) => stack.extend(a),
            Value::Object(o) => stack.extend(o.values()),
            _ => {}
        }
    }
    n
}

/// `200000` as `200,000`.
#[must_use]
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_bytes_run_out_once() {
        let b = Budget::new(3, 10);
        assert!(b.step() && b.step() && b.step());
        assert!(!b.step());
        assert_eq!(b.exhausted(), Some(Exhausted::Steps(3)));
        assert!(!b.bytes(1), "an exhausted budget stays exhausted");
        let b = Budget::new(100, 10);
        assert!(b.bytes(10));
        assert!(!b.bytes(1));
        assert_eq!(b.exhausted(), Some(Exhausted::Bytes(10)));
    }

    #[test]
    fn reasons_name_the_budget() {
        assert_eq!(Exhausted::Steps(200_000).describe(), "comparison stopped after 200,000 steps (budget)");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(12), "12");
    }
}
