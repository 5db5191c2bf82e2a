//! Objects: `properties` (added, removed, renamed), `required`, `additionalProperties` (and
//! `unevaluatedProperties` where it means the same), `dependentRequired` and `patternProperties`.
//!
//! Takes the two [`View`]s of a schema pair that both admit objects; walks property schemas one
//! instance step down and emits property, required, and closedness changes. Promises: a renamed
//! property is reported once, as a rename, with its fate under the new schema; a change of the set
//! of `patternProperties` patterns is cannot-decide; `dependentRequired` chains are followed at most
//! [`CHAIN_CAP`] names deep.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::{Value, json};

use super::tools::{Ident, assign, blocked_pairs, candidate_pairs, description_words, jaccard};
use super::walk::{TRUE, Walker};
use super::witness::{self, Seg};
use super::{Delta, Fate, SchemaChange, Side};
use crate::load::span::escape_token;
use crate::schema::{self, At, TypeSet, View};

impl<'a> Walker<'a, '_> {
    /// `dependentRequired`: a name newly required when another is present accepts less.
    pub(super) fn dependent_required(&mut self, vo: &View<'a>, vn: &View<'a>) {
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
    pub(super) fn pattern_properties(&mut self, vo: &View<'a>, vn: &View<'a>) {
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

    #[allow(clippy::too_many_lines, reason = "one pass over the object keywords reads best in one place")]
    pub(super) fn objects(&mut self, vo: &View<'a>, vn: &View<'a>) {
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
}

/// Neither side has subschemas that evaluate properties (so `unevaluatedProperties` is
/// `additionalProperties`).
pub(super) fn plain_objects(vo: &View<'_>, vn: &View<'_>) -> bool {
    const APPLICATORS: &[&str] =
        &["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "dependentSchemas", "$dynamicRef"];
    [vo, vn].iter().all(|v| APPLICATORS.iter().all(|k| v.get(k).is_none()) && v.merged.is_empty())
}

/// A `dependentRequired` value as a map from each trigger to the names it requires (empty when absent
/// or malformed).
pub(super) fn dependencies(keyword: Option<&Value>) -> BTreeMap<&str, BTreeSet<&str>> {
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
pub(super) fn dependency_chain<'d, 'v>(
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
