//! Words of names: how a parameter name splits into words, identifier shape, and the words that
//! name an authority or a scope (`input-authority-expanded`).

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

/// Inputs that pick the target or scope of the action.
pub(crate) const AUTHORITY: &[&str] = &[
    "account",
    "accounts",
    "org",
    "orgs",
    "organization",
    "organisation",
    "owner",
    "repository",
    "repo",
    "repos",
    "host",
    "hostname",
    "environment",
    "env",
    "region",
    "user",
    "users",
    "project",
    "tenant",
    "workspace",
    "path",
    "url",
    "scope",
    "target",
    "visibility",
    "team",
    "namespace",
    "cluster",
    "domain",
    "endpoint",
    "server",
    "database",
    "bucket",
    "subscription",
    "zone",
    "site",
    "channel",
    "recipient",
    "recipients",
    "as",
];

/// Enum values that widen the scope of an action.
pub(crate) const SCOPE_VALUES: &[&str] = &["public", "global", "everyone", "admin", "production", "prod", "internal"];

/// The word of an input name that selects a target or scope (`accountId` -> `account`).
#[must_use]
pub fn authority_word(name: &str) -> Option<String> {
    words(name).into_iter().find(|w| AUTHORITY.contains(&w.as_str()))
}

/// A scope noun in a new parameter's description (`"The organization to bill"`).
#[must_use]
pub fn authority_in_text(description: &str) -> Option<String> {
    const NOUNS: &[&str] = &["organization", "organisation", "tenant", "workspace", "account", "environment", "region"];
    words(description).into_iter().take(8).find(|t| NOUNS.contains(&t.as_str()))
}
