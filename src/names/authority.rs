//! Authority by structure (`input-authority-expanded`): whether a new parameter, or new `enum` values
//! of one, let the tool address a target it could not address before (an account, organization,
//! repository, environment, host, user, tenant, project...).
//!
//! Decided from whole words and the parameter's role, never from substrings:
//! - the *head noun* of the name, after identifier suffixes: `accountId` -> account (a target),
//!   `target_date` -> date (not), `ignoreUserCount` -> count (not), `regionUrl` -> a URL that picks a
//!   host (a target), `profileUrl` -> a URL that names one resource (an identifier, not a target);
//! - otherwise the head noun of the first noun phrase of the title or description: "The organization
//!   to act on" -> organization, "Name of the workspace" -> workspace, "Filter by path" -> filter;
//! - a parameter whose title or description calls it a filter only narrows what is returned: never
//!   authority (`environment`: "Optional environment filter");
//! - new values of an action selector (`method`, `action`, `operation`, `op`, `command`, `verb`) name
//!   operations of a tool that groups them by design: never authority (plain `input-enum-widened`).
//!   `mode` is not a selector: a new `admin` mode widens reach.

use serde_json::Value;

use super::words;

/// Head nouns that name a target or scope an action can address.
const TARGETS: &[&str] = &[
    "account",
    "accounts",
    "org",
    "orgs",
    "organization",
    "organizations",
    "organisation",
    "owner",
    "owners",
    "repository",
    "repositories",
    "repo",
    "repos",
    "host",
    "hostname",
    "environment",
    "environments",
    "env",
    "region",
    "user",
    "users",
    "username",
    "project",
    "projects",
    "tenant",
    "workspace",
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
    "audience",
    "instance",
    "as",
];

/// Trailing words that say *how* a target is named, not what it is: `org_slug` is an org.
const IDENTIFIER_SUFFIXES: &[&str] =
    &["id", "ids", "uuid", "guid", "key", "name", "names", "slug", "slugs", "login", "handle", "identifier"];

/// Modifiers that make a URL pick the host requests go to (`baseUrl`, `regionUrl`), rather than name one
/// resource (`profileUrl`, `issue_url`).
const HOST_MODIFIERS: &[&str] = &["base", "api", "service", "root"];

/// Parameters that select which operation a grouped tool performs.
const SELECTORS: &[&str] = &["method", "action", "actions", "operation", "op", "command", "cmd", "verb"];

/// Enum values that widen the scope of an action on a scope-like parameter.
const SCOPE_VALUES: &[&str] =
    &["public", "global", "everyone", "admin", "production", "prod", "internal", "all", "any", "external"];

/// Scope values that widen reach whatever the parameter is called (`all` and `any` only do on a scope
/// parameter: on a `state` filter they are ordinary values).
const STRONG_SCOPE_VALUES: &[&str] = &["public", "global", "everyone", "admin", "production", "prod"];

/// Words that say a parameter narrows what is returned.
const FILTER_WORDS: &[&str] =
    &["filter", "filters", "filtered", "filtering", "restrict", "restricts", "narrow", "narrows"];

/// Names too generic to say what they select: `target` of "Target date." is a date.
const GENERIC: &[&str] = &["target", "scope"];

/// Head nouns of names that say what a parameter is without selecting a target: ordering, paging,
/// filters, flags and fields. Their descriptions are not read for a target ("Sort repositories by").
const NOT_TARGETS: &[&str] = &[
    "sort",
    "order",
    "direction",
    "page",
    "limit",
    "cursor",
    "offset",
    "since",
    "until",
    "before",
    "after",
    "query",
    "q",
    "search",
    "filter",
    "filters",
    "state",
    "status",
    "label",
    "labels",
    "path",
    "field",
    "fields",
    "column",
    "columns",
    "format",
    "type",
    "kind",
    "draft",
    "count",
    "date",
    "time",
    "minutes",
    "seconds",
    "window",
    "title",
    "body",
    "description",
    "message",
    "text",
    "content",
];

/// Words that end the first noun phrase of a description.
const PHRASE_END: &[&str] = &[
    "of", "to", "for", "in", "on", "by", "as", "that", "which", "where", "with", "from", "whose", "is", "are", "if",
    "when", "or", "and", "used", "must", "should", "can", "will", "e", "g", "eg", "ie",
];

/// Words that may start a noun phrase and are not its head.
const LEADING: &[&str] = &["the", "a", "an", "optional", "required", "this", "its", "their", "your", "which"];

/// The target word of an identifier's head noun (`accountId` -> `account`, `target_date` -> none).
#[must_use]
pub fn authority_word(name: &str) -> Option<String> {
    head_target(&words(name))
}

/// The target a new parameter selects, from its name, title and description, or `None` when it does not
/// select one (see the module docs).
#[must_use]
pub fn parameter_authority(name: &str, schema: Option<&Value>) -> Option<String> {
    let (title, description) = schema.map_or(("", ""), texts);
    if is_filter(title) || is_filter(description) {
        return None;
    }
    let named = words(name);
    if named.last().is_some_and(|w| NOT_TARGETS.contains(&w.as_str()))
        || named.iter().any(|w| FILTER_WORDS.contains(&w.as_str()))
    {
        return None;
    }
    let from_text = || phrase_target(title).or_else(|| phrase_target(description));
    match authority_word(name) {
        // `target` described as "Target date." names a date; with no description it stays a target.
        Some(w) if GENERIC.contains(&w.as_str()) && !(title.is_empty() && description.is_empty()) => from_text(),
        Some(w) => Some(w),
        None => from_text(),
    }
}

/// The word that makes new `enum` values of `property` a wider authority, or `None`.
#[must_use]
pub fn enum_authority(property: &str, schema: Option<&Value>, added: &[Value]) -> Option<String> {
    let name = words(property);
    if name.last().is_some_and(|w| SELECTORS.contains(&w.as_str())) {
        return None;
    }
    let (title, description) = schema.map_or(("", ""), texts);
    if is_filter(title) || is_filter(description) {
        return None;
    }
    let on_scope = head_target(&name);
    for v in added.iter().filter_map(Value::as_str) {
        let w = words(v);
        let scope_list = if on_scope.is_some() { SCOPE_VALUES } else { STRONG_SCOPE_VALUES };
        if let Some(s) = w.iter().find(|w| scope_list.contains(&w.as_str())) {
            return Some(s.clone());
        }
        // A value that is itself a target (`owner_type` gains `org`).
        if w.len() == 1 && TARGETS.contains(&w[0].as_str()) {
            return Some(w[0].clone());
        }
    }
    if added.is_empty() { None } else { on_scope }
}

/// The target a list of words names by its head noun, identifier suffixes skipped.
fn head_target(w: &[String]) -> Option<String> {
    let mut end = w.len();
    while end > 1 && IDENTIFIER_SUFFIXES.contains(&w[end - 1].as_str()) {
        end -= 1;
    }
    let head = w.get(end.checked_sub(1)?)?.as_str();
    if TARGETS.contains(&head) {
        return Some(head.to_owned());
    }
    if matches!(head, "url" | "uri" | "urls" | "endpoint") {
        // A bare URL is where the action goes; a modified one goes to a host or names one resource.
        let modifier = end.checked_sub(2).map(|i| w[i].as_str());
        return match modifier {
            None => Some(head.to_owned()),
            // `target_url` is where a link points, not a host the action addresses.
            Some(m) if GENERIC.contains(&m) => None,
            Some(m) if TARGETS.contains(&m) => Some(m.to_owned()),
            Some(m) if HOST_MODIFIERS.contains(&m) => Some(format!("{m} {head}")),
            Some(_) => None,
        };
    }
    None
}

/// The target named by the head of the first noun phrase of a text ("The organization to act on",
/// "Name of the workspace"), or `None`.
fn phrase_target(text: &str) -> Option<String> {
    let w = words(text);
    let mut i = 0;
    loop {
        while i < w.len() && LEADING.contains(&w[i].as_str()) {
            i += 1;
        }
        let start = i;
        while i < w.len() && i - start < 4 && !PHRASE_END.contains(&w[i].as_str()) {
            i += 1;
        }
        let phrase = &w[start..i];
        // "How many users must be affected": a question about a quantity or manner, not a noun phrase.
        if phrase.first().is_some_and(|f| matches!(f.as_str(), "how" | "what" | "whether" | "when" | "who")) {
            return None;
        }
        // "Name of the workspace", "ID of the account": the head is what follows "of".
        let only_identifier = phrase.len() == 1 && IDENTIFIER_SUFFIXES.contains(&phrase[0].as_str());
        if only_identifier && w.get(i).is_some_and(|x| x == "of") && i - start < 4 {
            i += 1;
            continue;
        }
        // "Optional project slug to create", "The new project's name": what the tool creates is not a
        // target it could not address before.
        // "Organization to create the repository in" names where the thing is created: a target.
        let place = w.iter().skip(i + 2).take(6).any(|x| matches!(x.as_str(), "in" | "under" | "within" | "inside"));
        let creates =
            w.get(i).is_some_and(|x| x == "to") && w.get(i + 1).is_some_and(|x| x == "create" || x == "be") && !place;
        if creates || phrase.iter().any(|x| x == "new") {
            return None;
        }
        return head_target(phrase);
    }
}

fn is_filter(text: &str) -> bool {
    words(text).iter().any(|w| FILTER_WORDS.contains(&w.as_str()))
}

/// A parameter's title and description, looked up through a nullable `anyOf`/`oneOf` wrapper.
fn texts(schema: &Value) -> (&str, &str) {
    let own = |k: &str| schema.get(k).and_then(Value::as_str);
    let branch = |k: &str| {
        ["anyOf", "oneOf"]
            .iter()
            .filter_map(|c| schema.get(*c).and_then(Value::as_array))
            .flatten()
            .find_map(|b| b.get(k).and_then(Value::as_str))
    };
    (
        own("title").or_else(|| branch("title")).unwrap_or(""),
        own("description").or_else(|| branch("description")).unwrap_or(""),
    )
}

/// The innermost property a JSON pointer is in: its name and its schema in `tool`.
#[must_use]
pub fn property_at<'t>(tool: &'t Value, pointer: &str) -> Option<(String, &'t Value)> {
    let tokens: Vec<&str> = pointer.split('/').collect();
    let mut last = None;
    let mut i = 1;
    while i < tokens.len() {
        match tokens[i] {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if tokens[i] == "properties" && i + 1 < tokens.len() {
                    last = Some(i + 1);
                }
                i += 2;
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => i += 2,
            _ => i += 1,
        }
    }
    let at = last?;
    let name = tokens[at].replace("~1", "/").replace("~0", "~");
    Some((name, tool.pointer(&tokens[..=at].join("/"))?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Cases a blind red-team pass found.
    #[test]
    fn red_team_cases() {
        assert_eq!(param("name", "Organization to create the repository in.").as_deref(), Some("organization"));
        assert_eq!(param("target", "Target date."), None);
        assert_eq!(param("target_url", "URL the status links to."), None);
        assert_eq!(param("filter_org", "Restrict results to this organization."), None);
        assert_eq!(param("baseUrl", "The API base URL.").as_deref(), Some("base url"));
        assert_eq!(param("organization", "The organization to act on.").as_deref(), Some("organization"));
    }

    fn param(name: &str, description: &str) -> Option<String> {
        parameter_authority(name, Some(&json!({"type": "string", "description": description})))
    }

    #[test]
    fn head_noun_of_the_name_decides() {
        assert_eq!(authority_word("accountId").as_deref(), Some("account"));
        assert_eq!(authority_word("organization_slug").as_deref(), Some("organization"));
        assert_eq!(authority_word("item_owner").as_deref(), Some("owner"));
        assert_eq!(authority_word("regionUrl").as_deref(), Some("region"));
        assert_eq!(authority_word("baseUrl").as_deref(), Some("base url"));
        assert_eq!(authority_word("url").as_deref(), Some("url"));
        assert_eq!(authority_word("environment").as_deref(), Some("environment"));
        // The real false positives: a date, counts about users, a listing filter, a resource URL.
        for not in ["target_date", "ignoreUserCount", "ignoreUserWindowMinutes", "path", "since", "until", "query"] {
            assert_eq!(authority_word(not), None, "{not}");
        }
        for not in ["state", "label", "sort", "per_page", "profileUrl", "owner_type", "limit"] {
            assert_eq!(authority_word(not), None, "{not}");
        }
    }

    #[test]
    fn description_names_the_target_by_its_first_noun_phrase() {
        assert_eq!(param("slug", "The organization to act on.").as_deref(), Some("organization"));
        assert_eq!(param("ref", "Name of the workspace that owns the run.").as_deref(), Some("workspace"));
        assert_eq!(param("dest", "Cloud account to deploy into.").as_deref(), Some("account"));
        assert_eq!(param("path", "Only commits containing this file path will be returned."), None);
        assert_eq!(param("since", "Only commits after this date (ISO 8601)."), None);
        assert_eq!(param("count", "Number of users affected before the issue is shown."), None);
        assert_eq!(param("ignoreUserCount", "How many users must be affected before the issue is shown."), None);
        // A filter narrows a listing, whatever it filters by.
        assert_eq!(param("environment", "Optional environment filter for dataset='replays'."), None);
        assert_eq!(param("path", "Filter by path"), None);
        // Real false positives of the first version (github-mcp-server, sentry-mcp history).
        assert_eq!(param("sort", "Sort repositories by field, defaults to best match"), None);
        assert_eq!(param("draft", "Mark pull request as draft (true) or ready for review (false)"), None);
        assert_eq!(param("visible_fields", "Ordered project field database IDs to show on create"), None);
        assert_eq!(param("slug", "Optional project slug to create."), None);
    }

    #[test]
    fn nullable_wrapper_descriptions_are_read() {
        let s = json!({"anyOf": [{"type": "string", "description": "The tenant to bill."}, {"type": "null"}]});
        assert_eq!(parameter_authority("billing", Some(&s)).as_deref(), Some("tenant"));
    }

    #[test]
    fn action_selectors_name_operations_not_targets() {
        let added = [json!("create_project_status_update"), json!("delete_project_view")];
        assert_eq!(enum_authority("method", None, &added), None);
        assert_eq!(enum_authority("action", None, &[json!("admin")]), None);
        // Scope values of a scope parameter still widen reach.
        assert_eq!(enum_authority("environment", None, &[json!("production")]).as_deref(), Some("production"));
        assert_eq!(enum_authority("environment", None, &[json!("qa")]).as_deref(), Some("environment"));
        assert_eq!(enum_authority("visibility", None, &[json!("all")]).as_deref(), Some("all"));
        assert_eq!(enum_authority("mode", None, &[json!("admin")]).as_deref(), Some("admin"));
        assert_eq!(enum_authority("owner_type", None, &[json!("org")]).as_deref(), Some("org"));
        // `all` on a state filter is an ordinary value.
        assert_eq!(enum_authority("state", None, &[json!("all")]), None);
        assert_eq!(enum_authority("sort", None, &[json!("created")]), None);
    }

    #[test]
    fn property_of_a_pointer() {
        let tool = json!({"inputSchema": {"properties": {"a/b": {"type": "object", "properties": {"properties": {"enum": [1]}}}}}});
        let (name, _) = property_at(&tool, "/inputSchema/properties/a~1b").unwrap();
        assert_eq!(name, "a/b");
        let (name, s) = property_at(&tool, "/inputSchema/properties/a~1b/properties/properties/enum").unwrap();
        assert_eq!((name.as_str(), s["enum"][0].as_i64()), ("properties", Some(1)));
        assert!(property_at(&tool, "/inputSchema").is_none());
    }
}
