//! The probe: fail closed on obvious breaks, whatever the walk models.
//!
//! For a changed schema pair, candidate instances are drawn from the accepting side (the old
//! `inputSchema` for calls, the new `outputSchema` for results): a minimal instance built from its
//! required properties, its `examples` and `default` at the root, an example of each root
//! `anyOf`/`oneOf` branch, the `const`, `enum`, `examples` and `default` values of its properties
//! (a few levels down) embedded into such a minimal instance, and one instance with every declared
//! root property filled. Each is checked with the `jsonschema` validators of the tool's [`Judge`]:
//! a candidate that the accepting side allows and the other side rejects is a
//! [`ChangeKind::Rejected`] change with that witness, even under constructs the walk does not reason
//! about (`anyOf` of `required` added at the root, `oneOf` of identical branches).
//!
//! Promises: only a rejection the validators confirm on a candidate the accepting side allows is
//! reported (an instance the old schema does not accept is not an old call); a direction whose walk
//! already confirmed a witness is left alone (that break is reported with its own rule and severity);
//! a `*-cannot-decide` change at the rejecting keyword is replaced by the probe's change, which keeps
//! its reason; at most [`MAX_CANDIDATES`] candidates of bounded size are built, without network.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::Value;

use super::budget::Budget;
use super::witness::{self, Judge, Seg, Witness};
use super::{Change, ChangeKind, SchemaChange, Side};

/// Candidates checked per tool and direction.
pub const MAX_CANDIDATES: usize = 64;
/// Values taken from one `enum` or `examples` list.
const PER_LIST: usize = 8;
/// How deep below the root property values are drawn from.
const MAX_PROPERTY_DEPTH: usize = 3;
/// Estimated JSON size (bytes) of the largest example the probe builds; a schema whose minimal
/// instance would be larger gets no built candidates (its literal examples are still tried).
const MAX_CANDIDATE_SIZE: usize = 16 * 1024;

/// Levels of nesting and `$ref` hops followed while counting them.
const MAX_REF_DEPTH: usize = 256;

/// One candidate instance and where it came from.
struct Candidate {
    instance: Value,
    /// For people: `the minimal old call`, `` the `enum` value "eu" of `region` ``.
    origin: String,
    /// Where the value was taken from in the accepting schema, relative to its root.
    from: String,
}

/// Runs the probe for the directions that changed (`input`: old and new `inputSchema`; `output`: old
/// and new `outputSchema`), reusing the judges `confirm_witnesses` built.
pub(super) fn probe<'v>(
    tool: &str,
    changes: &mut Vec<Change>,
    input: Option<(&'v Value, &'v Value)>,
    output: Option<(&'v Value, &'v Value)>,
    judges: (Option<Judge<'v>>, Option<Judge<'v>>),
    budgets: &(Budget, Budget),
) {
    let (input_judge, output_judge) = judges;
    if let Some((old, new)) = input {
        side(tool, changes, Side::Input, (old, new), input_judge, &budgets.0);
    }
    if let Some((old, new)) = output {
        side(tool, changes, Side::Output, (new, old), output_judge, &budgets.1);
    }
}

/// `sub` accepts the candidates, `sup` is asked to reject them.
fn side<'v>(
    tool: &str,
    changes: &mut Vec<Change>,
    side: Side,
    (sub, sup): (&'v Value, &'v Value),
    judge: Option<Judge<'v>>,
    budget: &Budget,
) {
    let confirmed = changes.iter().any(|c| {
        matches!(c.kind, ChangeKind::Schema { side: s, .. } if s == side)
            && c.witness.as_ref().is_some_and(|w| !w.dropped)
    });
    if confirmed {
        return;
    }
    // A documentation edit inside the schema (the common change) cannot reject anything. Schemas with
    // reference chains too deep to compile quickly are not probed.
    if same_constraints(sub, sup, false) || expansion(sub).is_none() || expansion(sup).is_none() {
        return;
    }
    let input = side == Side::Input;
    let handed_over = judge.is_some();
    let judge = judge.unwrap_or_else(|| Judge::new(sub, sup));
    // The validator has no step budget of its own: a candidate whose validation would cost too much
    // is left out, and the budget says so in the report.
    let built = candidates(sub, sup, input, budget);
    let tried = built.len();
    let candidates: Vec<Candidate> = built.into_iter().filter(|c| judge.affordable(&c.instance, budget)).collect();
    if candidates.len() < tried {
        // Some candidate went unchecked: the budget's report says so.
        budget.unconfirmed();
    }
    if candidates.is_empty() {
        return;
    }
    let instances: Vec<Value> = candidates.iter().map(|c| c.instance.clone()).collect();
    // Most changed schemas are compatible: the rejecting side's validator alone settles that, and the
    // accepting side's is built only when some candidate is rejected.
    if !handed_over && !judge.long_enums() {
        let Ok(rejecting) = crate::schema::regex_budget::options().build(sup) else {
            return;
        };
        if instances.iter().all(|i| rejecting.is_valid(i)) {
            return;
        }
    }
    let found = judge.with_validators(&instances, |accepting, rejecting| {
        instances.iter().enumerate().find_map(|(i, instance)| {
            if rejecting.is_valid(instance) || !accepting.is_valid(instance) {
                return None;
            }
            let e = rejecting.validate(instance).err()?;
            let at = e.instance_path().to_string();
            let message = judge.message(&e);
            let because = if at.is_empty() { message } else { format!("at {at}: {message}") };
            Some((i, e.kind().keyword().to_owned(), e.schema_path().to_string(), because))
        })
    });
    let Some((i, keyword, schema_path, because)) = found else { return };
    let candidate = &candidates[i];
    let rejection = Rejection {
        instance: candidate.instance.clone(),
        keyword,
        schema_path,
        because,
        origin: candidate.origin.clone(),
        from: candidate.from.clone(),
    };
    record(tool, changes, side, (sub, sup), rejection);
}

/// A candidate that the accepting side allows and the other side's validator rejects.
pub(super) struct Rejection {
    pub instance: Value,
    /// The rejecting keyword, as the validator names it.
    pub keyword: String,
    /// The validator's location of the rejecting keyword in the rejecting schema.
    pub schema_path: String,
    /// The validator's message, with the instance location.
    pub because: String,
    /// For people: where the candidate came from.
    pub origin: String,
    /// Where in the accepting schema the candidate was drawn from, relative to its root.
    pub from: String,
}

/// Records a confirmed rejection: a break the walk found at the rejecting keyword but could not
/// witness gets the witness and keeps its own rule; otherwise it is a [`ChangeKind::Rejected`] change
/// that folds in the `*-cannot-decide` changes it explains.
pub(super) fn record(tool: &str, changes: &mut Vec<Change>, side: Side, (sub, sup): (&Value, &Value), r: Rejection) {
    let input = side == Side::Input;
    let base = if input { "/inputSchema" } else { "/outputSchema" };
    let at = format!("{base}{}", crate::schema::resolvable(sup, &r.schema_path));
    let from = format!("{base}{}", crate::schema::resolvable(sub, &r.from));
    let (keyword, origin) = (r.keyword, r.origin);
    let witness = Witness { instance: r.instance, rejected_because: r.because, dropped: false };
    // A break the walk found at the rejecting keyword but could not witness is proven by this
    // candidate: it keeps its own, more specific rule and gets the witness.
    let unproven = changes.iter_mut().find(|c| unproven(c, side, &at));
    if let Some(change) = unproven {
        change.witness = Some(witness);
        return;
    }
    // The `*-cannot-decide` changes this rejection explains are folded into it.
    let mut undecided = Vec::new();
    changes.retain(|c| match &c.kind {
        ChangeKind::Schema { side: s, change: SchemaChange::CannotDecide { reason, .. } } if *s == side => {
            let ptr = if input { c.new_ptr.as_deref() } else { c.old_ptr.as_deref() };
            let explained = ptr.is_some_and(|p| related(p, &at));
            if explained {
                undecided.push(reason.clone());
            }
            !explained
        }
        _ => true,
    });
    let (old_ptr, new_ptr) = if input { (from, at) } else { (at, from) };
    changes.push(Change {
        tool: tool.to_owned(),
        kind: ChangeKind::Rejected { side, keyword, origin, undecided },
        old_ptr: Some(old_ptr),
        new_ptr: Some(new_ptr),
        witness: Some(witness),
        plan: None,
    });
}

/// Whether `c` is a break on `side` that the walk found but no rejected witness proves yet, at or around the
/// rejecting keyword `at` (a pointer into the rejecting schema, in the tool).
pub(super) fn unproven(c: &Change, side: Side, at: &str) -> bool {
    match &c.kind {
        ChangeKind::Schema { side: s, change } if *s == side => {
            let ptr = if side == Side::Input { c.new_ptr.as_deref() } else { c.old_ptr.as_deref() };
            // A removed property's witness that only shows a value silently dropped proves no
            // rejection (a rename's stays: the dropped old name is what it is about).
            let open =
                c.witness.as_ref().is_none_or(|w| w.dropped && matches!(change, SchemaChange::PropertyRemoved { .. }));
            open && !matches!(change, SchemaChange::CannotDecide { .. })
                && super::breaks(side, change)
                && ptr.is_some_and(|p| related(p, at))
        }
        _ => false,
    }
}

/// An upper bound of the subschemas one validation against `root` visits, with each `$ref` target
/// counted where it is used (memoized, so the work is linear in the document) and a reference back
/// into its own expansion counted once. `None` past [`MAX_REF_DEPTH`] levels of nesting and
/// references: the validator compiles long reference chains in quadratic time. (What one validation
/// costs is bounded per candidate by [`Judge::affordable`]: a `$ref` diamond that a candidate never
/// reaches, such as an unused optional property, does not stop the probe.)
pub(super) fn expansion(root: &Value) -> Option<u64> {
    let mut memo = HashMap::new();
    let mut open = HashSet::new();
    expanded(root, root, 0, &mut memo, &mut open)
}

fn expanded(
    v: &Value,
    root: &Value,
    depth: usize,
    memo: &mut HashMap<*const Value, u64>,
    open: &mut HashSet<*const Value>,
) -> Option<u64> {
    if depth > MAX_REF_DEPTH {
        return None;
    }
    match v {
        Value::Object(map) => {
            let key = std::ptr::from_ref(v);
            if let Some(n) = memo.get(&key) {
                return Some(*n);
            }
            if !open.insert(key) {
                return Some(1);
            }
            let mut total = 1u64;
            for (k, x) in map {
                if crate::schema::is_instance_data(k) {
                    continue;
                }
                let n = match (k.as_str(), x.as_str()) {
                    ("$ref" | "$dynamicRef", Some(r)) => match crate::schema::resolve(root, Some(map), r) {
                        Ok((_, target)) => expanded(target, root, depth + 1, memo, open)?,
                        Err(_) => 1,
                    },
                    _ => expanded(x, root, depth + 1, memo, open)?,
                };
                total = total.saturating_add(n);
            }
            open.remove(&key);
            memo.insert(key, total);
            Some(total)
        }
        Value::Array(items) => {
            let mut total = 0u64;
            for x in items {
                total = total.saturating_add(expanded(x, root, depth + 1, memo, open)?);
            }
            Some(total)
        }
        _ => Some(0),
    }
}

/// Whether two schemas are equal but for the text of `description`, `title` and `$comment`, which never
/// affect validation (a string cannot be a `$ref` target either). `names`: the objects compared are
/// maps of names to schemas (`properties`, `$defs`), whose keys are all significant.
fn same_constraints(a: &Value, b: &Value, names: bool) -> bool {
    const TEXT: [&str; 3] = ["description", "title", "$comment"];
    const NAME_MAPS: [&str; 5] = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let significant = |m: &'_ serde_json::Map<String, Value>| {
                m.iter().filter(|(k, v)| names || !(TEXT.contains(&k.as_str()) && v.is_string())).count()
            };
            significant(x) == significant(y)
                && x.iter().all(|(k, v)| {
                    if !names && TEXT.contains(&k.as_str()) && v.is_string() {
                        return y.get(k).is_none_or(Value::is_string);
                    }
                    y.get(k).is_some_and(|w| {
                        if crate::schema::is_instance_data(k) {
                            v == w
                        } else {
                            same_constraints(v, w, !names && NAME_MAPS.contains(&k.as_str()))
                        }
                    })
                })
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_constraints(v, w, false))
        }
        _ => a == b,
    }
}

/// Whether the pointer `b` is `a` or inside it.
pub(super) fn within(a: &str, b: &str) -> bool {
    a == b || (b.starts_with(a) && b[a.len()..].starts_with('/'))
}

/// Whether an undecided change at `undecided` is about the keyword that rejected, at `at`: one
/// pointer contains the other, or both are parts of one `if`/`then`/`else`.
fn related(undecided: &str, at: &str) -> bool {
    if within(undecided, at) || within(at, undecided) {
        return true;
    }
    conditional(undecided)
        .is_some_and(|holder| ["if", "then", "else"].iter().any(|k| within(&format!("{holder}/{k}"), at)))
}

/// The candidates drawn from `root`, the accepting side, in the order they are tried.
fn candidates(root: &Value, other: &Value, input: bool, budget: &Budget) -> Vec<Candidate> {
    let mut out = Candidates { list: Vec::new(), root, input, words: pattern_words(other), budget };
    let (side, noun) = if input { ("old", "call") } else { ("new", "result") };
    let top = witness::deref(root, root);
    let schema = if input { "inputSchema" } else { "outputSchema" };
    // Every built candidate starts from an example of the root: none when that would be huge.
    if !fits(root, root) {
        literals(&mut out, top, ("", &format!("the {side} {schema}"), ""), Some);
        return out.list;
    }
    let minimal = witness::example(root, root, budget);
    if let Some(m) = &minimal {
        out.push(m.clone(), format!("the minimal {side} {noun}"), String::new());
    }
    literals(&mut out, top, ("", &format!("the {side} {schema}"), ""), Some);
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = top.get(keyword) else { continue };
        for (i, branch) in branches.iter().enumerate().take(PER_LIST) {
            if !fits(branch, root) {
                continue;
            }
            let path = [Seg::Branch { keyword: super::unions::static_keyword(keyword), old: i, new: i }];
            if let Some(v) = witness::example(branch, root, budget)
                .and_then(|local| witness::embed(root, &path, input, local, budget))
            {
                out.push(v, format!("the {side} {noun} built for `{keyword}` branch {i}"), format!("/{keyword}/{i}"));
            }
        }
    }
    properties(&mut out, top);
    // Every declared root property filled: catches rejections of optional members.
    if let (Some(Value::Object(mut all)), Some(Value::Object(props))) = (minimal, top.get("properties")) {
        let before = all.len();
        for (name, schema) in props {
            if !all.contains_key(name)
                && fits(schema, root)
                && let Some(v) = witness::example(schema, root, budget)
            {
                all.insert(name.clone(), v);
            }
        }
        if all.len() > before {
            let what = if input { "parameter" } else { "field" };
            out.push(Value::Object(all), format!("the {side} {noun} with every declared {what}"), String::new());
        }
    }
    out.list
}

struct Candidates<'r> {
    list: Vec<Candidate>,
    root: &'r Value,
    input: bool,
    /// Literal words of the other side's `pattern`s (see [`pattern_words`]), tried as string values.
    words: Vec<String>,
    /// The direction's work budget, spent building candidates.
    budget: &'r Budget,
}

impl Candidates<'_> {
    fn full(&self) -> bool {
        self.list.len() >= MAX_CANDIDATES
    }

    fn push(&mut self, instance: Value, origin: String, from: String) {
        if self.full() || !small(&instance) || self.list.iter().any(|c| c.instance == instance) {
            return;
        }
        self.list.push(Candidate { instance, origin, from });
    }
}

/// The `const`, `enum`, `examples` and `default` values of `schema` (at `ptr`, named `what` for
/// people), each turned into a whole instance by `place`; `prefix` starts the origin text.
fn literals(
    out: &mut Candidates<'_>,
    schema: &Value,
    (ptr, what, prefix): (&str, &str, &str),
    place: impl Fn(Value) -> Option<Value>,
) {
    let Some(map) = schema.as_object() else { return };
    let mut values: Vec<(Value, String, String)> = Vec::new();
    if let Some(c) = map.get("const") {
        values.push((c.clone(), format!("`const` of {what}"), format!("{ptr}/const")));
    }
    for keyword in ["enum", "examples"] {
        if let Some(Value::Array(list)) = map.get(keyword) {
            for (i, v) in list.iter().enumerate().take(PER_LIST) {
                values.push((v.clone(), format!("`{keyword}[{i}]` of {what}"), format!("{ptr}/{keyword}/{i}")));
            }
        }
    }
    if let Some(d) = map.get("default") {
        values.push((d.clone(), format!("`default` of {what}"), format!("{ptr}/default")));
    }
    for (v, origin, from) in values {
        if out.full() {
            return;
        }
        if !small(&v) {
            continue;
        }
        if let Some(instance) = place(v) {
            out.push(instance, format!("{prefix}{origin}"), from);
        }
    }
}

/// Property values a few levels down, breadth first, each embedded into a minimal instance.
fn properties(out: &mut Candidates<'_>, top: &Value) {
    let (root, budget) = (out.root, out.budget);
    let mut queue: VecDeque<(Vec<Seg>, String, String, &Value)> = VecDeque::new();
    queue.push_back((Vec::new(), String::new(), String::new(), top));
    while let Some((path, ptr, name, schema)) = queue.pop_front() {
        if out.full() {
            return;
        }
        let schema = witness::deref(schema, root);
        let Some(map) = schema.as_object() else { continue };
        let mut children: Vec<(Seg, String, String, &Value)> = Vec::new();
        if let Some(Value::Object(props)) = map.get("properties") {
            for (key, s) in props {
                let child_name = if name.is_empty() { key.clone() } else { format!("{name}.{key}") };
                let seg = Seg::Key { old: key.clone(), new: key.clone() };
                children.push((
                    seg,
                    format!("{ptr}/properties/{}", crate::load::span::escape_token(key)),
                    child_name,
                    s,
                ));
            }
        }
        if let Some(items) = map.get("items").filter(|i| i.is_object()) {
            children.push((Seg::Index(0), format!("{ptr}/items"), format!("{name}[]"), items));
        }
        for (seg, child_ptr, child_name, child) in children {
            if out.full() {
                return;
            }
            if !fits(child, root) {
                continue;
            }
            let mut child_path = path.clone();
            child_path.push(seg);
            let target = witness::deref(child, root);
            let what = format!("`{}`", crate::load::escape(&child_name));
            let input = out.input;
            let prefix = if input { "the old call with " } else { "the new result with " };
            literals(out, target, (&child_ptr, &what, prefix), |v| witness::embed(root, &child_path, input, v, budget));
            if accepts_strings(target) {
                for word in out.words.clone() {
                    if let Some(v) = witness::embed(root, &child_path, input, Value::String(word.clone()), budget) {
                        let origin = format!(
                            "{prefix}{what} set to {}, a word of a `pattern` it now meets",
                            Value::String(word)
                        );
                        out.push(v, origin, child_ptr.clone());
                    }
                }
            }
            if child_path.len() < MAX_PROPERTY_DEPTH {
                queue.push_back((child_path, child_ptr, child_name, child));
            }
        }
    }
}

/// Words longer than this are not tried.
const MAX_WORD: usize = 64;

/// The literal words in the `pattern`s of `schema` (a bounded walk; instance data skipped), at most
/// [`PER_LIST`] of them: `^(?!main$)` and `^(main|master|release/.*)$` give `main`, `master` and
/// `release/`. A pattern added to the other side often singles out exactly such a value, and no
/// example drawn from the accepting side spells it; the validators decide whether it is a witness.
fn pattern_words(schema: &Value) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut stack = vec![schema];
    let mut visits = 0usize;
    while let Some(v) = stack.pop() {
        visits += 1;
        if visits > 10_000 || words.len() >= PER_LIST {
            break;
        }
        match v {
            Value::Object(map) => {
                if let Some(Value::String(p)) = map.get("pattern") {
                    for w in regex_words(p) {
                        if words.len() < PER_LIST && !words.contains(&w) {
                            words.push(w);
                        }
                    }
                }
                stack.extend(map.iter().filter(|(k, _)| !crate::schema::is_instance_data(k)).map(|(_, v)| v));
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    words
}

/// Maximal runs of literal characters in a regular expression (an escaped character ends a run).
fn regex_words(pattern: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || matches!(c, '_' | '-' | '/' | '@' | ':') {
            word.push(c);
            continue;
        }
        if !word.is_empty() && word.len() <= MAX_WORD {
            out.push(std::mem::take(&mut word));
        }
        word.clear();
        if c == '\\' {
            chars.next();
        }
    }
    if !word.is_empty() && word.len() <= MAX_WORD {
        out.push(word);
    }
    out
}

/// Whether `schema` may accept a string (no `type`, or one that lists `string`).
fn accepts_strings(schema: &Value) -> bool {
    match schema.get("type") {
        None => schema.is_object(),
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
        Some(_) => false,
    }
}

/// The schema holding an `if`, `then` or `else` at `p`.
fn conditional(p: &str) -> Option<&str> {
    let (holder, last) = p.rsplit_once('/')?;
    matches!(last, "if" | "then" | "else").then_some(holder)
}

/// Whether an instance is small enough to show and check (its size as witnesses count it).
fn small(v: &Value) -> bool {
    witness::size_within(v, MAX_CANDIDATE_SIZE as u64).is_some()
}

/// Whether the example [`witness::example`] builds for `schema` stays under [`MAX_CANDIDATE_SIZE`],
/// estimated without building it: `minItems` of `minItems` of `minLength` multiply. Bounded work:
/// every schema visited costs at least one unit of the budget.
fn fits(schema: &Value, root: &Value) -> bool {
    let mut steps = MAX_CANDIDATE_SIZE;
    estimate(schema, root, 0, &mut steps).is_some_and(|n| n <= MAX_CANDIDATE_SIZE)
}

fn estimate(schema: &Value, root: &Value, depth: usize, steps: &mut usize) -> Option<usize> {
    *steps = steps.checked_sub(1)?;
    if depth > 24 {
        return Some(1);
    }
    let schema = witness::deref(schema, root);
    let Some(map) = schema.as_object() else { return Some(9) };
    let count = |k: &str| map.get(k).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok()).unwrap_or(0);
    let mut total = 9 + count("minLength");
    for keyword in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(members)) = map.get(keyword) {
            for m in members {
                total = total.checked_add(estimate(m, root, depth + 1, steps)?)?;
            }
        }
    }
    if let Some(Value::Array(required)) = map.get("required") {
        let props = map.get("properties").and_then(Value::as_object);
        let fallback = map.get("additionalProperties").unwrap_or(&Value::Bool(true));
        for name in required.iter().filter_map(Value::as_str) {
            let s = props.and_then(|p| p.get(name)).unwrap_or(fallback);
            total = total.checked_add(name.len() + 4)?.checked_add(estimate(s, root, depth + 1, steps)?)?;
        }
    }
    let min_properties = count("minProperties");
    if min_properties > 0
        && let Some(Value::Object(props)) = map.get("properties")
    {
        for (name, s) in props.iter().take(min_properties) {
            total = total.checked_add(name.len() + 4)?.checked_add(estimate(s, root, depth + 1, steps)?)?;
        }
    }
    let min_items = count("minItems");
    if min_items > 0 {
        let item = map.get("items").map_or(Some(9), |i| estimate(i, root, depth + 1, steps))?;
        total = total.checked_add(min_items.checked_mul(item + 1)?)?;
    }
    if let Some(Value::Array(prefix)) = map.get("prefixItems") {
        for p in prefix.iter().take(min_items) {
            total = total.checked_add(estimate(p, root, depth + 1, steps)?)?;
        }
    }
    (total <= MAX_CANDIDATE_SIZE).then_some(total)
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::*;

    #[test]
    fn estimates_multiply_nested_counts() {
        let root = json!({});
        let bomb = json!({"type": "array", "minItems": 1000, "items": {"type": "array", "minItems": 1000, "items": {"type": "string", "minLength": 10000}}});
        assert!(!fits(&bomb, &root));
        let wide = json!({"type": "object", "required": (0..4000).map(|i| format!("p{i}")).collect::<Vec<_>>(), "additionalProperties": {"type": "string", "minLength": 10000}});
        assert!(!fits(&wide, &root));
        assert!(fits(&json!({"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}), &root));
    }

    #[test]
    fn candidates_are_capped_and_start_with_the_minimal_call() {
        let values: Vec<Value> = (0..200).map(|i| json!(format!("v{i}"))).collect();
        let props: Map<String, Value> = (0..40).map(|i| (format!("p{i}"), json!({"enum": values}))).collect();
        let root = json!({"type": "object", "required": ["p0"], "properties": props});
        let list = candidates(&root, &root, true, &Budget::new(1 << 40, 1 << 40));
        assert_eq!(list.len(), MAX_CANDIDATES);
        assert_eq!(list[0].origin, "the minimal old call");
        assert_eq!(list[0].instance, json!({"p0": "v0"}));
    }

    #[test]
    fn documentation_edits_are_not_constraints() {
        let a =
            json!({"type": "object", "description": "A", "properties": {"title": {"type": "string", "title": "T"}}});
        let b = json!({"type": "object", "description": "B", "properties": {"title": {"type": "string"}}});
        assert!(same_constraints(&a, &b, false));
        // A property named like an annotation is a name, and data is compared whole.
        let c = json!({"type": "object", "properties": {"title": {"type": "integer"}}});
        assert!(!same_constraints(&a, &c, false));
        assert!(!same_constraints(&json!({"properties": {"description": {}}}), &json!({"properties": {}}), false));
        assert!(!same_constraints(
            &json!({"const": {"description": "a"}}),
            &json!({"const": {"description": "b"}}),
            false
        ));
        assert!(!same_constraints(
            &json!({"title": {"type": "string"}}),
            &json!({"title": {"type": "integer"}}),
            false
        ));
        assert!(!same_constraints(&json!({"anyOf": [{"minimum": 1}]}), &json!({"anyOf": [{"minimum": 2}]}), false));
    }

    #[test]
    fn no_candidate_is_built_around_a_huge_root() {
        // 7 levels of 10 required `$ref` properties: a minimal instance of 10^7 leaves.
        let level = |inner: String| {
            let props: serde_json::Map<String, Value> =
                (0..10).map(|i| (format!("p{i}"), json!({"$ref": inner.clone()}))).collect();
            json!({"type": "object", "properties": props, "required": (0..10).map(|i| format!("p{i}")).collect::<Vec<_>>()})
        };
        let mut defs = serde_json::Map::new();
        defs.insert("l0".into(), json!({"type": "string", "enum": ["a", "b"]}));
        for l in 1..7 {
            defs.insert(format!("l{l}"), level(format!("#/$defs/l{}", l - 1)));
        }
        let mut s = level("#/$defs/l6".into());
        s["$defs"] = Value::Object(defs);
        s["examples"] = json!([{"p0": 1}]);
        let list = candidates(&s, &s, true, &Budget::new(1 << 40, 1 << 40));
        assert_eq!(list.len(), 1, "only the literal example");
        assert_eq!(list[0].instance, json!({"p0": 1}));
        // The same below a required member, beside a small optional one: embedding the optional
        // member's values would build the huge minimal instance first.
        let s = json!({"type": "object", "required": ["big"], "properties": {"big": {"$ref": "#/$defs/l5"}, "mode": {"enum": ["a", "b"]}}, "$defs": s["$defs"]});
        // A guard against building the 10^6-leaf instance (minutes), not a performance claim: the
        // bound is generous because a loaded 2-core machine took 0.8 s where a quiet one takes 0.1 s.
        let start = std::time::Instant::now();
        assert!(candidates(&s, &s, true, &Budget::new(1 << 40, 1 << 40)).is_empty());
        assert!(start.elapsed() < std::time::Duration::from_secs(10), "{:?}", start.elapsed());
    }

    #[test]
    fn reference_expansion_is_bounded() {
        let tree = |levels: usize, leaf: Value| {
            let mut defs: serde_json::Map<String, Value> = (0..levels)
                .map(|i| (format!("d{i}"), json!({"allOf": [{"$ref": format!("#/$defs/d{}", i + 1)}, {"$ref": format!("#/$defs/d{}", i + 1)}]})))
                .collect();
            defs.insert(format!("d{levels}"), leaf);
            json!({"type": "object", "not": {"$ref": "#/$defs/d0"}, "$defs": defs})
        };
        assert!(expansion(&tree(10, json!({}))).is_some_and(|n| n > 1024));
        // A diamond is counted in linear time (what validating it costs is bounded per candidate).
        assert!(expansion(&tree(24, json!({}))).is_some_and(|n| n > 1 << 24));
        let chain = |hops: usize| {
            let mut defs: serde_json::Map<String, Value> =
                (0..hops).map(|i| (format!("d{i}"), json!({"$ref": format!("#/$defs/d{}", i + 1)}))).collect();
            defs.insert(format!("d{hops}"), json!({"type": "string"}));
            json!({"properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs})
        };
        assert!(expansion(&chain(50)).is_some());
        assert!(expansion(&chain(10_000)).is_none());
        // Recursion through properties is counted once per cycle.
        let list = json!({"$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}}, "$ref": "#/$defs/node"});
        assert!(expansion(&list).is_some());
    }

    #[test]
    fn related_pointers() {
        assert!(related("/inputSchema/anyOf", "/inputSchema/anyOf"));
        assert!(related("/inputSchema", "/inputSchema/properties/a/type"));
        assert!(related("/inputSchema/if", "/inputSchema/then/required"));
        assert!(!related("/inputSchema/anyOf", "/inputSchema/anyOfx"));
        assert!(!related("/inputSchema/properties/a", "/inputSchema/properties/b/type"));
    }
}
