//! Words of names: how a parameter name splits into words, and identifier shape; what a name's words
//! say about authority is in [`authority`].
//!
//! Takes identifiers (and, for authority, the parameter's schema); returns words and verdicts; reads
//! nothing else. A lower module than both `compare` (rename pairing, a required input that picks the
//! target) and `checks` (rule selection), so neither imports the other for it.

pub mod authority;

/// Lower-case words of an identifier: `accountId` -> `account`, `id`.
#[must_use]
pub fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Output fields that identify something: consumers pass them to the next call.
pub(crate) fn is_identifier(name: &str) -> bool {
    let w = words(name);
    let last = w.last().map_or("", String::as_str);
    matches!(
        last,
        "id" | "ids" | "uuid" | "guid" | "key" | "url" | "uri" | "href" | "sha" | "number" | "slug" | "handle" | "ref"
    )
}
