//! With `--old`: each replay finding tied to the `diff OLD NEW` finding that explains it.
//!
//! Takes the diff's findings and the replay's (each with its number of calls and the name it is
//! about); appends to each replay finding's message which diff finding explains it (or that none
//! does), and to each explaining diff finding's message how many recorded calls or results it affects.
//! Promises: a replay finding is tied to at most one diff finding, the most specific (longest pointer)
//! of the same tool whose new-side pointer contains or is inside the rejecting keyword's, or names
//! the property a `required` failure names; the decision of what fails is never changed here.

use std::fmt::Write as _;

use crate::catalog::{RuleDirection, RuleId};
use crate::checks::Finding;

/// A replay finding with what it counts.
pub(super) struct Replayed {
    pub finding: Finding,
    pub count: u64,
    /// The argument (ignored) or required property the finding is about.
    pub name: Option<String>,
}

/// Whether the pointer `b` is `a` or inside it.
fn within(a: &str, b: &str) -> bool {
    a == b || (b.starts_with(a) && b[a.len()..].starts_with('/'))
}

/// How well the diff finding `d` explains the replay finding `r`: `None` when it does not; else
/// higher is better (a pointer that contains or is inside the rejecting keyword's beats one that only
/// names the property a `required` failure names).
fn explains(d: &Finding, r: &Replayed) -> Option<u8> {
    let f = &r.finding;
    let direction = d.rule.meta().direction;
    let related = within(&d.pointer, &f.pointer) || within(&f.pointer, &d.pointer);
    let yes = |b: bool, rank: u8| b.then_some(rank);
    match f.rule {
        RuleId::ReplayToolRemoved => yes(
            (d.rule == RuleId::ToolRemoved && d.tool == f.tool)
                || (d.rule == RuleId::ToolRenamed && d.from.as_deref() == Some(f.tool.as_str())),
            2,
        ),
        _ if d.tool != f.tool => None,
        RuleId::ReplayCallRejected if direction == RuleDirection::Input => {
            if related {
                return Some(2);
            }
            let named = f.pointer.strip_suffix("/required").zip(r.name.as_deref()).is_some_and(|(parent, name)| {
                within(&format!("{parent}/properties/{}", super::pointer_token(name)), &d.pointer)
            });
            yes(named, 1)
        }
        RuleId::ReplayArgumentIgnored => yes(
            direction == RuleDirection::Input
                && (d.pointer == f.pointer || d.from.as_deref() == Some(f.pointer.as_str())),
            2,
        ),
        RuleId::ReplayResultUndescribed => yes(direction == RuleDirection::Output && related, 2),
        _ => None,
    }
}

/// Ties every replay finding to its explaining diff finding and writes both messages.
pub(super) fn tie(diff: &mut [Finding], replayed: &mut [Replayed]) {
    // Per diff finding: recorded calls and results it affects.
    let mut affected = vec![(0u64, 0u64); diff.len()];
    for r in replayed.iter_mut() {
        // The best rank, then the most specific pointer, then the louder rule, then the first.
        let best = diff
            .iter()
            .enumerate()
            .filter(|(_, d)| d.rule.meta().direction != RuleDirection::Replay)
            .filter_map(|(i, d)| explains(d, r).map(|rank| (rank, d.pointer.len(), d.rule.meta().severity, i)))
            .max_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)).then(b.3.cmp(&a.3)))
            .map(|(.., i)| i);
        match best {
            Some(i) => {
                let d = &diff[i];
                let at = if d.pointer.is_empty() { String::new() } else { format!(" at `{}`", d.pointer) };
                let _ = write!(r.finding.message, "; explained by `{}`{at}", d.rule.as_str());
                if r.finding.rule == RuleId::ReplayResultUndescribed {
                    affected[i].1 += r.count;
                } else {
                    affected[i].0 += r.count;
                }
            }
            None => r.finding.message.push_str("; no finding of `diff OLD NEW` explains it"),
        }
    }
    let plural = |n: u64, w: &str| format!("{n} recorded {w}{}", if n == 1 { "" } else { "s" });
    for (d, (calls, results)) in diff.iter_mut().zip(affected) {
        let parts: Vec<String> = [(calls, "call"), (results, "result")]
            .into_iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, w)| plural(n, w))
            .collect();
        if !parts.is_empty() {
            let _ = write!(d.message, " (affects {})", parts.join(" and "));
        }
    }
}
