//! `$ref` and `$dynamicRef` resolution inside one schema document, as JSON Schema 2020-12 defines it.
//!
//! A reference resolves against the base URI of the schema resource it is written in: the document
//! root is one resource (its `$id`, resolved against the placeholder [`DEFAULT_BASE`], is its base URI),
//! and every subschema with an `$id` starts another one, whose base is its `$id` resolved against the
//! base of the resource around it. `#/...` pointers are relative to the resource, `#name` finds the
//! `$anchor` (or `$dynamicAnchor`) of that name in that resource only, and a URI finds the embedded
//! resource with that base. Nothing is ever fetched: a URI that no resource of the document has is
//! [`RefProblem::Remote`]. URI syntax and RFC 3986 reference resolution are `fluent-uri`'s.
//!
//! Each document is indexed once (resources, anchors, and which resource every reference is written
//! in), so resolving is a few hash look-ups however many resources the document has. Inside a
//! [`Scope`] the index of each of its roots is built on first use and kept until the scope ends;
//! outside one, every call indexes the document again (fine for one-off calls, quadratic in a loop).
//!
//! Which resource a reference is written in is found by the address of the schema object holding it
//! (the "site"), so callers that do not track pointers (witness construction) resolve correctly too. A
//! site that is not part of the indexed document resolves against the root resource.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::rc::Rc;

use fluent_uri::{Uri, UriRef};
use serde_json::{Map, Value};

use crate::load::span::escape_token;

/// The base URI of a document without a root `$id`: the one the `jsonschema` crate uses, so that a
/// relative `$id` resolves the same way here and in the validator that confirms witnesses.
pub const DEFAULT_BASE: &str = "json-schema:///";

/// Base URIs longer than this are not tracked (a chain of relative `$id`s would otherwise build
/// quadratic text): the resource still resolves `#...` references, but no URI names it.
const MAX_BASE_LEN: usize = 4_096;

/// Text the index may hold (pointers and base URIs). Past it, further locations are not recorded and
/// references to them do not resolve (cannot decide): deep documents with long keys would otherwise
/// make the pointers quadratic in the document.
const MAX_INDEX_TEXT: usize = 32 << 20;

/// Pointers longer than this are not recorded either (their references do not resolve).
const MAX_POINTER_LEN: usize = 16 << 10;

/// Why a `$ref` could not be followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefProblem {
    /// Points outside the document (a URL or another file): never fetched.
    Remote(String),
    /// `$dynamicRef` (or `$recursiveRef`) whose target depends on the dynamic scope of evaluation.
    Dynamic(String),
    /// Local, but nothing is there.
    Unresolved(String),
    /// Local, but the anchor or URI names more than one schema of the document.
    Ambiguous(String),
    /// A chain of references longer than the walk follows.
    TooLong(usize),
}

/// One schema resource: where it is (none past the text budget) and its base URI (none when it cannot
/// be resolved, is too long or is past the budget).
#[derive(Debug)]
struct Resource {
    ptr: Option<String>,
    base: Option<String>,
}

/// A named location in a resource (none past the text budget).
#[derive(Debug)]
struct Anchor {
    ptr: Option<String>,
    /// Declared by more than one schema of the resource.
    twice: bool,
    dynamic: bool,
}

/// Where the `$dynamicAnchor`s of one name are, and what a `$dynamicRef` to one of them can mean.
#[derive(Debug, Default)]
struct DynamicAnchors {
    /// Pointers of the schemas that declare it, in document order (none past the text budget).
    ptrs: Vec<Option<String>>,
    /// The one the root resource declares: the outermost of every dynamic scope, so always chosen.
    in_root: Option<String>,
    /// Every declaration is the same schema with no reference in it: whichever one the dynamic scope
    /// picks, it is that schema.
    uniform: bool,
}

/// The resources and anchors of one document.
#[derive(Debug)]
pub struct Index {
    resources: Vec<Resource>,
    /// Base URI (no fragment) to resource; `None` when two resources share it.
    by_uri: HashMap<String, Option<usize>>,
    /// `(resource, name)` to the schema with that `$anchor`/`$dynamicAnchor`.
    anchors: HashMap<(usize, String), Anchor>,
    dynamic: HashMap<String, DynamicAnchors>,
    /// The resource of every object holding `$ref`, `$dynamicRef` or `$recursiveRef`, by address.
    sites: HashMap<usize, usize>,
    /// Bytes of pointers and URIs held, against [`MAX_INDEX_TEXT`].
    text: usize,
}

#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// The pointer of `path`, or `None` when it would be longer than [`MAX_POINTER_LEN`] (measured before
/// anything is written).
fn pointer(path: &[Seg<'_>]) -> Option<String> {
    use std::fmt::Write as _;
    let estimate: usize = path.iter().map(|s| if let Seg::Key(k) = s { k.len() + 1 } else { 8 }).sum();
    if estimate > MAX_POINTER_LEN {
        return None;
    }
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                out.push('/');
                out.push_str(&escape_token(k));
            }
            Seg::Index(i) => write!(out, "/{i}").unwrap_or(()),
        }
    }
    Some(out)
}

fn address(map: &Map<String, Value>) -> usize {
    std::ptr::from_ref(map) as usize
}

/// What a value is, by the keyword that holds it (2020-12, plus the draft-07 spellings that MCP
/// servers still write).
#[derive(Clone, Copy)]
enum Holds {
    /// A schema.
    One,
    /// A list of schemas.
    List,
    /// An object of schemas.
    Named,
    /// Not a schema: its content is not searched for `$id`s and anchors.
    Data,
}

fn holds(keyword: &str, value: &Value) -> Holds {
    match keyword {
        "items" if value.is_array() => Holds::List,
        "additionalProperties"
        | "contains"
        | "contentSchema"
        | "else"
        | "if"
        | "items"
        | "not"
        | "propertyNames"
        | "then"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "additionalItems" => Holds::One,
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Holds::List,
        "$defs" | "definitions" | "dependentSchemas" | "patternProperties" | "properties" | "dependencies" => {
            Holds::Named
        }
        _ => Holds::Data,
    }
}

/// Resolves the URI reference `reference` (no fragment) against `base`; the normalized absolute URI
/// without fragment, or `None` when either is not a URI (reference) or cannot be combined.
fn resolve_uri(base: Option<&str>, reference: &str) -> Option<String> {
    let reference = UriRef::parse(reference).ok()?;
    let absolute = match base {
        Some(base) => reference.resolve_against(&Uri::parse(base).ok()?).ok()?.normalize(),
        None => Uri::parse(reference.as_str()).ok()?.normalize(),
    };
    let out = absolute.strip_fragment().as_str().to_owned();
    (out.len() <= MAX_BASE_LEN).then_some(out)
}

impl Index {
    /// Indexes `root` in one iterative pass.
    #[must_use]
    pub fn build(root: &Value) -> Index {
        let mut index = Index {
            resources: vec![Resource { ptr: Some(String::new()), base: Some(DEFAULT_BASE.to_owned()) }],
            by_uri: HashMap::new(),
            anchors: HashMap::new(),
            dynamic: HashMap::new(),
            sites: HashMap::new(),
            text: 0,
        };
        // Pre-order: (value, depth, segment from its parent, resource around it, what the value is).
        let mut stack: Vec<(&Value, usize, Option<Seg<'_>>, usize, Holds)> = vec![(root, 0, None, 0, Holds::One)];
        let mut path: Vec<Seg<'_>> = Vec::new();
        while let Some((value, depth, seg, mut resource, what)) = stack.pop() {
            path.truncate(depth.saturating_sub(1));
            path.extend(seg);
            match value {
                Value::Object(map) => {
                    if matches!(what, Holds::One) {
                        resource = index.declare(map, depth, resource, &path);
                    }
                    if ["$ref", "$dynamicRef", "$recursiveRef"].iter().any(|k| map.contains_key(*k)) {
                        index.sites.insert(address(map), resource);
                    }
                    for (k, v) in map {
                        let inner = match what {
                            // The values of `properties` and friends are schemas.
                            Holds::Named => Holds::One,
                            Holds::One if crate::schema::is_instance_data(k) => continue,
                            Holds::One => holds(k, v),
                            Holds::List | Holds::Data => Holds::Data,
                        };
                        stack.push((v, depth + 1, Some(Seg::Key(k.as_str())), resource, inner));
                    }
                }
                Value::Array(items) => {
                    // The items of `allOf` and friends are schemas; other arrays are data.
                    let inner = if matches!(what, Holds::List) { Holds::One } else { Holds::Data };
                    for (i, v) in items.iter().enumerate().rev() {
                        stack.push((v, depth + 1, Some(Seg::Index(i)), resource, inner));
                    }
                }
                _ => {}
            }
        }
        index.finish(root);
        index
    }

    /// Records the `$id` and anchors of a schema object; returns the resource its content is in.
    fn declare(&mut self, map: &Map<String, Value>, depth: usize, parent: usize, path: &[Seg<'_>]) -> usize {
        let mut resource = parent;
        if let Some(id) = map.get("$id").and_then(Value::as_str) {
            let (uri, fragment) = id.split_once('#').unwrap_or((id, ""));
            if !uri.is_empty() || depth == 0 {
                let base = resolve_uri(self.resources[parent].base.as_deref(), uri).and_then(|b| self.spend(b));
                if depth == 0 {
                    self.resources[0].base = base;
                } else {
                    let ptr = pointer(path).and_then(|p| self.spend(p));
                    self.resources.push(Resource { ptr, base });
                    resource = self.resources.len() - 1;
                }
            }
            // Draft-07 spelling of an anchor: `"$id": "#name"`.
            if uri.is_empty() && !fragment.is_empty() && !fragment.starts_with('/') {
                self.anchor(resource, fragment, path, false);
            }
        }
        if let Some(name) = map.get("$anchor").and_then(Value::as_str) {
            self.anchor(resource, name, path, false);
        }
        if let Some(name) = map.get("$dynamicAnchor").and_then(Value::as_str) {
            self.anchor(resource, name, path, true);
            let ptr = pointer(path).and_then(|p| self.spend(p));
            let entry = self.dynamic.entry(name.to_owned()).or_default();
            if resource == 0 && entry.in_root.is_none() {
                entry.in_root.clone_from(&ptr);
            }
            entry.ptrs.push(ptr);
        }
        resource
    }

    /// Counts `text` against the budget: `None` once it is spent.
    fn spend(&mut self, text: String) -> Option<String> {
        self.text = self.text.saturating_add(text.len());
        (self.text <= MAX_INDEX_TEXT).then_some(text)
    }

    fn anchor(&mut self, resource: usize, name: &str, path: &[Seg<'_>], dynamic: bool) {
        let ptr = pointer(path);
        if let Some(a) = self.anchors.get_mut(&(resource, name.to_owned())) {
            // The same schema may declare a name as `$anchor` and `$dynamicAnchor`; two schemas may not.
            a.twice |= ptr.is_none() || a.ptr != ptr;
            a.dynamic |= dynamic;
            return;
        }
        let ptr = ptr.and_then(|p| self.spend(p));
        self.anchors.insert((resource, name.to_owned()), Anchor { ptr, twice: false, dynamic });
    }

    fn finish(&mut self, root: &Value) {
        for (i, r) in self.resources.iter().enumerate() {
            if let Some(base) = &r.base {
                self.by_uri.entry(base.clone()).and_modify(|e| *e = None).or_insert(Some(i));
            }
        }
        for anchors in self.dynamic.values_mut() {
            let at = |p: &Option<String>| p.as_deref().and_then(|p| root.pointer(p));
            let first = anchors.ptrs.first().and_then(at);
            anchors.uniform = first.is_some_and(|f| !crate::schema::contains_ref(f))
                && anchors.ptrs.iter().skip(1).all(|p| at(p) == first);
        }
    }

    /// The pointer (relative to the document root) of what `reference`, written in `site`, names.
    fn lookup(&self, site: Option<&Map<String, Value>>, reference: &str) -> Result<String, RefProblem> {
        let from = site.and_then(|m| self.sites.get(&address(m))).copied().unwrap_or(0);
        let (uri, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let resource = if uri.is_empty() {
            from
        } else {
            let Some(absolute) = resolve_uri(self.resources[from].base.as_deref(), uri) else {
                // Not a URI reference, or relative to a resource whose base is unknown.
                return Err(if UriRef::parse(uri).is_err() {
                    RefProblem::Unresolved(reference.to_owned())
                } else {
                    RefProblem::Remote(reference.to_owned())
                });
            };
            match self.by_uri.get(&absolute) {
                Some(Some(r)) => *r,
                Some(None) => return Err(RefProblem::Ambiguous(reference.to_owned())),
                None => return Err(RefProblem::Remote(reference.to_owned())),
            }
        };
        if fragment.is_empty() || fragment.starts_with('/') {
            let Some(at) = &self.resources[resource].ptr else {
                return Err(RefProblem::Unresolved(reference.to_owned()));
            };
            return Ok(format!("{at}{}", percent_decode(fragment)));
        }
        match self.anchors.get(&(resource, fragment.to_owned())) {
            Some(Anchor { twice: true, .. }) => Err(RefProblem::Ambiguous(reference.to_owned())),
            Some(Anchor { ptr: Some(p), .. }) => Ok(p.clone()),
            Some(Anchor { ptr: None, .. }) | None => Err(RefProblem::Unresolved(reference.to_owned())),
        }
    }

    /// Resolves a `$ref` written in `site` (a schema object of `root`; `None` for the root resource).
    ///
    /// # Errors
    /// A [`RefProblem`] for remote, dangling or ambiguous references.
    pub fn resolve<'a>(
        &self,
        root: &'a Value,
        site: Option<&Map<String, Value>>,
        reference: &str,
    ) -> Result<(String, &'a Value), RefProblem> {
        let ptr = self.lookup(site, reference)?;
        match root.pointer(&ptr) {
            Some(v) => Ok((ptr, v)),
            None => Err(RefProblem::Unresolved(reference.to_owned())),
        }
    }

    /// Resolves a `$dynamicRef` written in `site`. It is a `$ref` unless its target declares a
    /// `$dynamicAnchor` of the fragment's name; then the outermost resource of the dynamic scope that
    /// declares that name wins. That is known without evaluating when the root resource declares it
    /// (the root is the outermost resource of every scope), when only one schema declares it, or when
    /// every declaration is the same reference-free schema; otherwise [`RefProblem::Dynamic`].
    ///
    /// # Errors
    /// A [`RefProblem`] as for [`Index::resolve`], or `Dynamic` as above.
    pub fn resolve_dynamic<'a>(
        &self,
        root: &'a Value,
        site: Option<&Map<String, Value>>,
        reference: &str,
    ) -> Result<(String, &'a Value), RefProblem> {
        let (ptr, target) = self.resolve(root, site, reference)?;
        let name = reference.split_once('#').map_or("", |(_, f)| f);
        if name.is_empty()
            || name.starts_with('/')
            || target.get("$dynamicAnchor").and_then(Value::as_str) != Some(name)
        {
            return Ok((ptr, target));
        }
        let Some(anchors) = self.dynamic.get(name) else { return Ok((ptr, target)) };
        let chosen = if anchors.in_root.is_some() {
            anchors.in_root.as_ref()
        } else if anchors.ptrs.len() == 1 || anchors.uniform {
            anchors.ptrs.first().and_then(Option::as_ref)
        } else {
            None
        };
        chosen
            .and_then(|p| root.pointer(p).map(|v| (p.clone(), v)))
            .ok_or_else(|| RefProblem::Dynamic(reference.to_owned()))
    }
}

/// A document of a live [`Scope`]: (scope id, root address, its index once built).
type Entry = (u64, usize, Rc<OnceCell<Index>>);

thread_local! {
    /// The documents of the live [`Scope`]s of this thread.
    static SCOPES: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
    static NEXT_SCOPE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// While alive, each of its roots is indexed at most once (on the first reference resolved in it).
/// It borrows the roots, so no other document can take their addresses while it lives.
pub struct Scope<'a> {
    id: u64,
    /// Borrows the roots; not `Send`, because it must end on the thread whose list it joined.
    roots: PhantomData<(&'a Value, *const ())>,
}

impl<'a> Scope<'a> {
    #[must_use]
    pub fn new(roots: impl IntoIterator<Item = &'a Value>) -> Scope<'a> {
        let id = NEXT_SCOPE.with(|n| {
            let id = n.get();
            n.set(id.wrapping_add(1));
            id
        });
        SCOPES.with_borrow_mut(|scopes| {
            for root in roots {
                scopes.push((id, std::ptr::from_ref(root) as usize, Rc::new(OnceCell::new())));
            }
        });
        Scope { id, roots: PhantomData }
    }
}

impl Drop for Scope<'_> {
    fn drop(&mut self) {
        let id = self.id;
        SCOPES.with_borrow_mut(|scopes| scopes.retain(|(s, _, _)| *s != id));
    }
}

/// Runs `f` with the index of `root`: the scope's, built once, or a fresh one.
fn with_index<R>(root: &Value, f: impl FnOnce(&Index) -> R) -> R {
    let key = std::ptr::from_ref(root) as usize;
    let cell =
        SCOPES.with_borrow(|scopes| scopes.iter().rev().find(|(_, a, _)| *a == key).map(|(_, _, c)| Rc::clone(c)));
    match cell {
        Some(cell) => f(cell.get_or_init(|| Index::build(root))),
        None => f(&Index::build(root)),
    }
}

/// Resolves a `$ref` written in `site` (a schema object inside `root`; `None` for the root resource)
/// against the document `root`. Returns the pointer of the target relative to `root` and the target.
///
/// # Errors
/// A [`RefProblem`] for remote, dangling or ambiguous references.
pub fn resolve<'a>(
    root: &'a Value,
    site: Option<&Map<String, Value>>,
    reference: &str,
) -> Result<(String, &'a Value), RefProblem> {
    with_index(root, |index| index.resolve(root, site, reference))
}

/// Resolves a `$dynamicRef` written in `site` against `root`: see [`Index::resolve_dynamic`].
///
/// # Errors
/// A [`RefProblem`]; `Dynamic` when the target depends on the path of evaluation.
pub fn resolve_dynamic<'a>(
    root: &'a Value,
    site: Option<&Map<String, Value>>,
    reference: &str,
) -> Result<(String, &'a Value), RefProblem> {
    with_index(root, |index| index.resolve_dynamic(root, site, reference))
}

/// Decodes `%XX` escapes of a URI fragment (a JSON Pointer in a `$ref`). A `%` not followed by two hex
/// digits stays as it is; bytes that do not form UTF-8 become U+FFFD.
#[must_use]
pub fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let hex = |b: u8| char::from(b).to_digit(16);
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) =
                (bytes.get(i + 1).and_then(|b| hex(*b)), bytes.get(i + 2).and_then(|b| hex(*b)))
        {
            #[allow(clippy::cast_possible_truncation, reason = "two hex digits are at most 255")]
            out.push((hi * 16 + lo) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn site<'a>(root: &'a Value, ptr: &str) -> Option<&'a Map<String, Value>> {
        root.pointer(ptr).and_then(Value::as_object)
    }

    #[test]
    fn refs_resolve_locally_only() {
        let root = json!({"$defs": {"a b": {"$anchor": "x", "type": "string"}}});
        assert_eq!(resolve(&root, None, "#/$defs/a%20b").unwrap().0, "/$defs/a b");
        assert_eq!(resolve(&root, None, "#x").unwrap().0, "/$defs/a b");
        assert!(matches!(resolve(&root, None, "https://e.com/s"), Err(RefProblem::Remote(_))));
        let embedded = json!({"$id": "https://e.com/root.json", "$defs": {"addr": {"$id": "https://e.com/address.json", "$defs": {"zip": {"type": "string"}}}}});
        assert_eq!(resolve(&embedded, None, "address.json#/$defs/zip").unwrap().0, "/$defs/addr/$defs/zip");
        assert_eq!(resolve(&embedded, None, "https://e.com/address.json").unwrap().0, "/$defs/addr");
        assert!(matches!(resolve(&root, None, "#/nope"), Err(RefProblem::Unresolved(_))));
    }

    #[test]
    fn references_resolve_in_their_own_resource() {
        let root = json!({
            "$defs": {
                "x": {"type": "integer"},
                "foo": {"$anchor": "foo", "type": "null"},
                "inner": {
                    "$id": "inner/",
                    "$defs": {"x": {"type": "string"}, "here": {"$anchor": "foo"}},
                    "properties": {"p": {"$ref": "#/$defs/x"}, "q": {"$ref": "#foo"}, "r": {"$ref": "child.json#bar"}},
                    "items": {"$id": "child.json", "$defs": {"b": {"$anchor": "bar"}}}
                },
                "outer": {"$ref": "#foo"},
                "to_inner": {"$ref": "inner/#/$defs/x"},
                "absolute": {"$ref": "json-schema:///inner/child.json"}
            }
        });
        let at = |p: &str, r: &str| resolve(&root, site(&root, p), r).map(|(p, _)| p);
        assert_eq!(at("/$defs/inner/properties/p", "#/$defs/x").unwrap(), "/$defs/inner/$defs/x");
        assert_eq!(at("/$defs/inner/properties/q", "#foo").unwrap(), "/$defs/inner/$defs/here");
        assert_eq!(at("/$defs/inner/properties/r", "child.json#bar").unwrap(), "/$defs/inner/items/$defs/b");
        assert_eq!(at("/$defs/outer", "#foo").unwrap(), "/$defs/foo");
        assert_eq!(at("/$defs/to_inner", "inner/#/$defs/x").unwrap(), "/$defs/inner/$defs/x");
        assert_eq!(at("/$defs/absolute", "json-schema:///inner/child.json").unwrap(), "/$defs/inner/items");
        // A site that is not part of the document resolves in the root resource.
        assert_eq!(resolve(&root, Some(&Map::new()), "#/$defs/x").unwrap().0, "/$defs/x");
    }

    #[test]
    fn dynamic_anchors_define_plain_names_and_duplicates_are_ambiguous() {
        let root = json!({
            "$defs": {"d": {"$dynamicAnchor": "node"}, "a": {"$anchor": "twice"}, "b": {"$anchor": "twice"}},
            "$ref": "#node"
        });
        assert_eq!(resolve(&root, site(&root, ""), "#node").unwrap().0, "/$defs/d");
        assert!(matches!(resolve(&root, None, "#twice"), Err(RefProblem::Ambiguous(_))));
        let ids = json!({"$defs": {"a": {"$id": "same"}, "b": {"$id": "same"}}});
        assert!(matches!(resolve(&ids, None, "same"), Err(RefProblem::Ambiguous(_))));
    }

    #[test]
    fn dynamic_refs_resolve_when_the_scope_does_not_matter() {
        // Pointer fragment, or a target without a matching `$dynamicAnchor`: a plain `$ref`.
        let plain = json!({"$defs": {"t": {"$anchor": "t", "type": "string"}}});
        assert_eq!(resolve_dynamic(&plain, None, "#t").unwrap().0, "/$defs/t");
        assert_eq!(resolve_dynamic(&plain, None, "#/$defs/t").unwrap().0, "/$defs/t");
        // The root resource declares it: the outermost of every dynamic scope.
        let rooted = json!({"$dynamicAnchor": "n", "$defs": {"e": {"$id": "e", "$dynamicAnchor": "n", "$ref": "#n"}}});
        let e = site(&rooted, "/$defs/e");
        assert_eq!(resolve_dynamic(&rooted, e, "#n").unwrap().0, "");
        // Two different declarations in embedded resources: depends on the path of evaluation.
        let two = json!({"$defs": {
            "a": {"$id": "a", "$dynamicAnchor": "n", "type": "string"},
            "b": {"$id": "b", "$dynamicAnchor": "n", "type": "integer", "$ref": "#n"}
        }});
        let b = site(&two, "/$defs/b");
        assert!(matches!(resolve_dynamic(&two, b, "#n"), Err(RefProblem::Dynamic(_))));
    }

    #[test]
    fn percent_decoding_never_splits_characters() {
        assert_eq!(percent_decode("/$defs/%a\u{e9}"), "/$defs/%a\u{e9}");
        assert_eq!(percent_decode("%"), "%");
        assert_eq!(percent_decode("%2"), "%2");
        assert_eq!(percent_decode("/a%20b%7e"), "/a b~");
        assert_eq!(percent_decode("%ff"), "\u{fffd}");
        assert!(matches!(resolve(&json!({}), None, "#/$defs/%a\u{e9}"), Err(RefProblem::Unresolved(_))));
    }
}
