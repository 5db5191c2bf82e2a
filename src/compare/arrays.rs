//! Arrays: `uniqueItems`, `prefixItems` and `items` element by element, and `contains` with its counts.
//!
//! Takes the two [`View`]s of a schema pair that both admit arrays; walks element schemas one
//! instance step down and emits `Constraint` changes. Promises: a `contains` change it cannot compare
//! exactly is cannot-decide, never skipped.

use serde_json::Value;

use super::Delta;
use super::walk::{TRUE, Walker};
use super::witness::Seg;
use crate::schema::{self, View};

impl<'a> Walker<'a, '_> {
    pub(super) fn arrays(&mut self, vo: &View<'a>, vn: &View<'a>) {
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

    /// `contains` with `minContains`/`maxContains`. With the same `contains` schema, the counts are
    /// bounds like `minItems`; with the same counts (at most one required match, no maximum), a
    /// `contains` schema that accepts less breaks exactly as an element schema would.
    pub(super) fn contains(&mut self, vo: &View<'a>, vn: &View<'a>) {
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
}
