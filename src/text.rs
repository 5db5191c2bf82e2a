//! The neutralizing layer: every string that comes from the input (tool and property names,
//! descriptions, enum values, pointers, witnesses, file names, JSON keys quoted in errors, config keys,
//! run notes) passes through here before it is printed, in every format and on standard error.
//!
//! Three threats, three tools:
//! - characters that move the cursor, start a line, reorder or hide text (C0 and C1 controls, CR, LF,
//!   U+0085, U+2028, U+2029, ESC, bidi controls, zero-width and tag characters, noncharacters):
//!   [`escape`] spells them visibly (`\n`, `\u{202e}`);
//! - GitHub Actions workflow commands (a line that starts with `::`, after leading whitespace, or
//!   `##[` anywhere in a line): [`guard`] neutralizes them in finished plain text, [`json_guard`] in
//!   finished JSON (with JSON escapes, so consumers still read the exact string);
//! - format markup (Markdown, XML) is the renderer's business, on top of [`escape`].

use std::borrow::Cow;
use std::fmt::Write as _;

/// Makes untrusted text safe to print on one line: every character [`needs_escape`] names becomes a
/// visible escape (`\n`, `\r`, `\t`, `\u{202e}`); everything else is kept. The result never contains
/// such a character, so escaping twice changes nothing.
#[must_use]
pub fn escape(s: &str) -> String {
    if !s.chars().any(needs_escape) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    out
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if needs_escape(c) => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// [`escape`], then [`guard`]: one line of untrusted text, ready for any plain-text output.
#[must_use]
pub fn line(s: &str) -> String {
    let escaped = escape(s);
    match guard(&escaped) {
        Cow::Borrowed(_) => escaped,
        Cow::Owned(o) => o,
    }
}

/// A character that must not reach any output as itself: every control (C0, DEL, C1, so also CR, LF,
/// tab, VT, FF, U+0085), the line and paragraph separators, the characters [`hidden_kind`] names, and
/// the noncharacters U+FFFE and U+FFFF (which XML 1.0 forbids).
#[must_use]
pub fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{FFF9}'..='\u{FFFB}' | '\u{FFFE}' | '\u{FFFF}')
        || hidden_kind(c).is_some()
}

/// Characters that change or hide what a terminal shows.
#[must_use]
pub fn is_hidden(c: char) -> bool {
    hidden_kind(c).is_some()
}

/// What kind of hidden character `c` is, or `None` for a character that shows as itself. Newline and
/// tab are ordinary text.
#[must_use]
pub fn hidden_kind(c: char) -> Option<&'static str> {
    Some(match c {
        '\n' | '\t' => return None,
        '\u{1B}' => "ANSI escape",
        '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{180E}' | '\u{00AD}' => "zero-width",
        '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => "bidi control",
        '\u{E0000}'..='\u{E007F}' => "Unicode tag",
        '\u{E0100}'..='\u{E01EF}' => "variation selector",
        c if c.is_control() => "control",
        _ => return None,
    })
}

/// Neutralizes workflow commands in finished plain text: a `\` goes before `::` that starts a line
/// (after leading whitespace), and `##[` becomes `##\[`. Lines end at LF or CR (the Actions runner
/// splits on both). Text without either pattern is returned as it is.
#[must_use]
pub fn guard(text: &str) -> Cow<'_, str> {
    if !text.contains("::") && !text.contains("##[") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for segment in text.split_inclusive(['\n', '\r']) {
        let body = segment.trim_start();
        out.push_str(&segment[..segment.len() - body.len()]);
        if body.starts_with("::") {
            out.push('\\');
        }
        let mut rest = body;
        while let Some(at) = rest.find("##[") {
            out.push_str(&rest[..at]);
            out.push_str("##\\[");
            rest = &rest[at + 3..];
        }
        out.push_str(rest);
    }
    Cow::Owned(out)
}

/// Neutralizes finished JSON text (as `serde_json` writes it, where every input string is inside a
/// JSON string): `[` after `##` is written `\u005b`, and every character [`needs_escape`] names that
/// `serde_json` leaves raw (DEL, C1, U+2028, bidi, zero-width, tags, ...) as `\uXXXX`. A consumer parses
/// exactly the same strings; no line of the text contains `##[`, a control or a bidi character.
#[must_use]
pub fn json_guard(text: String) -> String {
    if !text.contains("##[") && !text.chars().any(|c| c > '\u{7e}' && needs_escape(c)) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut hashes = 0;
    for c in text.chars() {
        if c == '[' && hashes >= 2 {
            out.push_str("\\u005b");
        } else if c > '\u{7e}' && needs_escape(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            out.push(c);
        }
        hashes = if c == '#' { hashes + 1 } else { 0 };
    }
    out
}

/// Percent-encodes a relative path or URI reference for SARIF's `artifactLocation.uri` (RFC 3986):
/// unreserved characters and `/` stay, every other byte of the UTF-8 text becomes `%XX`. Backslashes
/// become `/` first.
#[must_use]
pub fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'\\' => out.push('/'),
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(char::from(b)),
            b => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// The first `max` characters of `s`, with `…` when something was cut. One pass over at most `max`
/// characters.
#[must_use]
pub fn clip(s: &str, max: usize) -> Cow<'_, str> {
    if s.char_indices().nth(max).is_none() {
        return Cow::Borrowed(s);
    }
    let end = s.char_indices().nth(max.saturating_sub(1)).map_or(s.len(), |(i, _)| i);
    Cow::Owned(format!("{}…", &s[..end]))
}

/// What kind of JSON value `v` is, for messages ("a string", "null", ...).
#[must_use]
pub fn value_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_hides_controls() {
        assert_eq!(escape("a\u{202E}b\u{1b}[31m"), "a\\u{202e}b\\u{1b}[31m");
        assert_eq!(
            escape("a\nb\r\tc\u{85}\u{2028}\u{2029}\u{b}\u{c}"),
            "a\\nb\\r\\tc\\u{85}\\u{2028}\\u{2029}\\u{b}\\u{c}"
        );
        assert_eq!(escape("\u{E0041}\u{200B}\u{FFFE}\u{7f}"), "\\u{e0041}\\u{200b}\\u{fffe}\\u{7f}");
        let once = escape("x\n\u{1b}");
        assert_eq!(escape(&once), once);
    }

    #[test]
    fn guard_neutralizes_workflow_commands() {
        assert_eq!(guard("plain"), "plain");
        assert_eq!(guard("::error::x\n  ::warning::y\r::notice::z"), "\\::error::x\n  \\::warning::y\r\\::notice::z");
        assert_eq!(guard("a ##[error]b ###[c"), "a ##\\[error]b ###\\[c");
        assert_eq!(guard("a::b"), "a::b");
        assert_eq!(line("t\n::error::forged"), "t\\n::error::forged");
    }

    #[test]
    fn json_guard_keeps_the_strings() {
        let v = serde_json::json!({"k##[x": "\u{202E}##[error]\u{2028}\u{85}\u{7f}\u{E0041}é"});
        let text = json_guard(serde_json::to_string_pretty(&v).unwrap());
        assert!(!text.contains("##["), "{text}");
        assert!(!text.chars().any(needs_escape_or_newline), "{text}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), v);
    }

    fn needs_escape_or_newline(c: char) -> bool {
        c != '\n' && needs_escape(c)
    }

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(uri_path("corpus/a-b_c.~/new.json"), "corpus/a-b_c.~/new.json");
        assert_eq!(uri_path("x\u{1b}]52;c\u{202E}.json"), "x%1B%5D52%3Bc%E2%80%AE.json");
        assert_eq!(uri_path("main:a b\\c%"), "main%3Aa%20b/c%25");
    }

    #[test]
    fn clip_counts_characters() {
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("abcd", 3), "ab…");
        assert_eq!(clip("ééé", 2), "é…");
    }
}
