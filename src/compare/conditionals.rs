//! Conditionals: `then`/`else` under an unchanged `if`, and `dependentSchemas` with the same trigger
//! names.
//!
//! Takes the two [`View`]s of a schema pair; walks each branch schema and completes the candidate
//! witnesses it planned so that they reach that branch (they satisfy the `if`, or carry the trigger
//! name). Promises: a changed `if` or trigger set is left to `unmodelled` (cannot-decide).

use serde_json::{Map, Value, json};

use super::Side;
use super::walk::{TRUE, Walker};
use super::witness;
use crate::load::span::escape_token;
use crate::schema::View;

impl<'a> Walker<'a, '_> {
    /// `then`/`else` under an unchanged `if` (the instance is split the same way on both sides, so each
    /// part is compared on its own), and `dependentSchemas` with the same trigger names.
    pub(super) fn conditionals(&mut self, vo: &View<'a>, vn: &View<'a>) {
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
    pub(super) fn merge_into_plans(&mut self, start: usize, extra: &Map<String, Value>) {
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
}
