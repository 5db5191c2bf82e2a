//! Byte spans of JSON Pointers in the original source text.
//!
//! `serde_json` does not keep positions, and keeping them for every value of a 100 MB snapshot would cost
//! more than the analysis. Instead this module re-scans the text lazily, only for the pointers that a
//! finding names. The scanner is iterative, so no nesting depth can overflow the stack.

use std::ops::Range;

/// Where a pointer's target sits in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// The member key (`"region"` including quotes) when the target is an object member.
    pub key: Option<Range<usize>>,
    /// The value itself.
    pub value: Range<usize>,
}

impl Located {
    /// The range to underline: the key when there is one, else the value cut to its first line.
    #[must_use]
    pub fn label_range(&self, text: &str) -> Range<usize> {
        if let Some(key) = &self.key {
            return key.clone();
        }
        let v = &self.value;
        let end = text.get(v.clone()).and_then(|s| s.find('\n')).map_or(v.end, |n| v.start + n);
        // A lone opening bracket is a poor label; keep at least one character.
        v.start..end.max(v.start + 1).min(v.end.max(v.start + 1))
    }
}

/// Splits a JSON Pointer (RFC 6901) into unescaped tokens.
pub fn pointer_tokens(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~"))
}

/// Escapes one token for use in a JSON Pointer.
#[must_use]
pub fn escape_token(token: &str) -> String {
    if token.contains(['~', '/']) { token.replace('~', "~0").replace('/', "~1") } else { token.to_owned() }
}

/// Finds `pointer` in `text` (a complete JSON document). Returns `None` when the pointer does not
/// exist or the text is not the JSON it was parsed from.
#[must_use]
pub fn locate(text: &str, pointer: &str) -> Option<Located> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    let mut key = None;
    for token in pointer_tokens(pointer) {
        match *b.get(i)? {
            b'{' => {
                i += 1;
                let mut found = None;
                loop {
                    i = skip_ws(b, i);
                    if *b.get(i)? != b'"' {
                        return None;
                    }
                    let key_start = i;
                    i = skip_string(b, i)?;
                    let key_range = key_start..i;
                    i = skip_ws(b, i);
                    if *b.get(i)? != b':' {
                        return None;
                    }
                    i = skip_ws(b, i + 1);
                    // Later duplicates win in serde_json, so keep scanning the object for the last match.
                    if key_matches(&text[key_range.clone()], &token) {
                        found = Some((key_range, i));
                    }
                    i = skip_ws(b, skip_value(b, i)?);
                    match *b.get(i)? {
                        b',' => i += 1,
                        b'}' => break,
                        _ => return None,
                    }
                }
                let (k, v) = found?;
                key = Some(k);
                i = v;
            }
            b'[' => {
                let index: usize = token.parse().ok()?;
                i = skip_ws(b, i + 1);
                for _ in 0..index {
                    if *b.get(i)? == b']' {
                        return None;
                    }
                    i = skip_ws(b, skip_value(b, i)?);
                    if *b.get(i)? != b',' {
                        return None;
                    }
                    i = skip_ws(b, i + 1);
                }
                if *b.get(i)? == b']' {
                    return None;
                }
                key = None;
            }
            _ => return None,
        }
    }
    let end = skip_value(b, i)?;
    Some(Located { key, value: i..end })
}

fn key_matches(raw: &str, token: &str) -> bool {
    // Fast path: no escapes in the key.
    let inner = &raw[1..raw.len() - 1];
    if !inner.contains('\\') {
        return inner == token;
    }
    serde_json::from_str::<String>(raw).is_ok_and(|k| k == token)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// `i` is at the opening quote; returns the index after the closing quote.
fn skip_string(b: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    None
}

/// Skips one value without recursion; returns the index after it.
fn skip_value(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match *b.get(i)? {
            b'"' => i = skip_string(b, i)?,
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            _ if depth > 0 => i += 1,
            _ => {
                // A scalar at depth 0: read to the next delimiter.
                while i < b.len() && !matches!(b[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    i += 1;
                }
                return Some(i);
            }
        }
        if depth == 0 {
            return Some(i);
        }
    }
}

/// The first object member whose key repeats an earlier key of the same object: its byte offset and
/// the key. `serde_json` silently keeps the last one; other parsers keep the first, so a snapshot with
/// duplicate keys means different contracts to different clients. Iterative, one pass.
#[must_use]
pub fn first_duplicate_key(text: &str) -> Option<(usize, String)> {
    match scan_structure(text) {
        Some(Structure::DuplicateKey(offset, key)) => Some((offset, key)),
        _ => None,
    }
}

/// Nesting deeper than this is refused (`serde_json`'s own limit for building values).
pub const MAX_NESTING: usize = 128;

/// What a structural scan can find wrong with valid JSON.
#[derive(Debug, PartialEq, Eq)]
pub enum Structure {
    /// A key repeated in one object: byte offset and key.
    DuplicateKey(usize, String),
    /// An array or object nested deeper than [`MAX_NESTING`]: byte offset of the bracket.
    TooDeep(usize),
    /// A number too large for a 64-bit float (`serde_json` cannot hold it): byte offset.
    NumberOutOfRange(usize),
}

/// One pass over the text for duplicate keys and excessive nesting.
#[must_use]
pub fn scan_structure(text: &str) -> Option<Structure> {
    enum Frame {
        Object { keys: Vec<String>, set: Option<std::collections::HashSet<String>>, expect_key: bool },
        Array,
    }
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' | b'[' if stack.len() >= MAX_NESTING => return Some(Structure::TooDeep(i)),
            b'{' => {
                stack.push(Frame::Object { keys: Vec::new(), set: None, expect_key: true });
                i += 1;
            }
            b'[' => {
                stack.push(Frame::Array);
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
            }
            b',' => {
                if let Some(Frame::Object { expect_key, .. }) = stack.last_mut() {
                    *expect_key = true;
                }
                i += 1;
            }
            b'"' => {
                let start = i;
                let end = skip_string(b, i)?;
                if let Some(Frame::Object { keys, set, expect_key }) = stack.last_mut()
                    && *expect_key
                {
                    *expect_key = false;
                    let raw = &text[start..end];
                    let key = if raw.contains('\\') {
                        serde_json::from_str::<String>(raw).ok()?
                    } else {
                        raw[1..raw.len() - 1].to_owned()
                    };
                    let seen = if let Some(set) = set {
                        !set.insert(key.clone())
                    } else {
                        let dup = keys.contains(&key);
                        keys.push(key.clone());
                        if keys.len() > 16 {
                            *set = Some(keys.drain(..).collect());
                        }
                        dup
                    };
                    if seen {
                        return Some(Structure::DuplicateKey(start, key));
                    }
                }
                i = end;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                    i += 1;
                }
                if text[start..i].parse::<f64>().is_ok_and(|f| !f.is_finite()) {
                    return Some(Structure::NumberOutOfRange(start));
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// Byte offsets of the values at the `wanted` pointers, in one pass over the text. Values below the
/// depth of the deepest wanted pointer are skipped without being looked into, so the pass is cheap.
#[must_use]
#[allow(clippy::implicit_hasher, reason = "an internal index; the default hasher is what callers use")]
pub fn offsets_of(text: &str, wanted: &std::collections::HashSet<String>) -> std::collections::HashMap<String, usize> {
    let mut out = std::collections::HashMap::new();
    let max_depth = wanted.iter().map(|p| p.matches('/').count()).max().unwrap_or(0);
    let b = text.as_bytes();
    let mut ptr = String::new();
    let start = skip_ws(b, 0);
    offsets_at(text, b, start, &mut ptr, 0, max_depth, wanted, &mut out);
    out
}

#[allow(clippy::too_many_arguments, reason = "a private recursive helper; depth is bounded by the pointers")]
#[allow(clippy::implicit_hasher, reason = "an internal index; the default hasher is what callers use")]
fn offsets_at(
    text: &str,
    b: &[u8],
    mut i: usize,
    ptr: &mut String,
    depth: usize,
    max_depth: usize,
    wanted: &std::collections::HashSet<String>,
    out: &mut std::collections::HashMap<String, usize>,
) -> Option<usize> {
    if wanted.contains(ptr.as_str()) {
        out.insert(ptr.clone(), i);
    }
    if depth >= max_depth {
        return skip_value(b, i);
    }
    match *b.get(i)? {
        b'{' => {
            i = skip_ws(b, i + 1);
            if *b.get(i)? == b'}' {
                return Some(i + 1);
            }
            loop {
                let key_start = i;
                i = skip_string(b, i)?;
                let raw = &text[key_start..i];
                let key = if raw.contains('\\') {
                    serde_json::from_str::<String>(raw).ok()?
                } else {
                    raw[1..raw.len() - 1].to_owned()
                };
                i = skip_ws(b, i);
                if *b.get(i)? != b':' {
                    return None;
                }
                i = skip_ws(b, i + 1);
                let len = ptr.len();
                ptr.push('/');
                ptr.push_str(&escape_token(&key));
                i = offsets_at(text, b, i, ptr, depth + 1, max_depth, wanted, out)?;
                ptr.truncate(len);
                i = skip_ws(b, i);
                match *b.get(i)? {
                    b',' => i = skip_ws(b, i + 1),
                    b'}' => return Some(i + 1),
                    _ => return None,
                }
            }
        }
        b'[' => {
            i = skip_ws(b, i + 1);
            if *b.get(i)? == b']' {
                return Some(i + 1);
            }
            let mut index = 0usize;
            loop {
                let len = ptr.len();
                ptr.push('/');
                ptr.push_str(&index.to_string());
                i = offsets_at(text, b, i, ptr, depth + 1, max_depth, wanted, out)?;
                ptr.truncate(len);
                index += 1;
                i = skip_ws(b, i);
                match *b.get(i)? {
                    b',' => i = skip_ws(b, i + 1),
                    b']' => return Some(i + 1),
                    _ => return None,
                }
            }
        }
        _ => skip_value(b, i),
    }
}

/// 1-based line and column (in Unicode scalar values) of a byte offset, given the line starts.
#[must_use]
pub fn line_column(text: &str, line_starts: &[usize], offset: usize) -> (usize, usize) {
    let line = line_starts.partition_point(|&s| s <= offset).saturating_sub(1);
    let start = line_starts.get(line).copied().unwrap_or(0);
    let column = text.get(start..offset).map_or(1, |s| s.chars().count() + 1);
    (line + 1, column)
}

/// Byte offsets at which lines start.
#[must_use]
pub fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(memchr_newlines(text)).collect()
}

fn memchr_newlines(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.bytes().enumerate().filter(|&(_, c)| c == b'\n').map(|(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"{
  "tools": [
    {"name": "a", "inputSchema": {"type": "object"}},
    {"name": "b/c", "x~y": [1, [2, 3], {"k": "v"}]}
  ]
}"#;

    fn text_at(p: &str) -> &'static str {
        let l = locate(DOC, p).unwrap();
        &DOC[l.key.unwrap_or(l.value)]
    }

    #[test]
    fn finds_members_and_elements() {
        assert_eq!(text_at("/tools/0/inputSchema"), "\"inputSchema\"");
        assert_eq!(text_at("/tools/1/x~0y/1/0"), "2");
        assert_eq!(text_at("/tools/1/x~0y/2/k"), "\"k\"");
        assert_eq!(text_at("/tools/1"), "{\"name\": \"b/c\", \"x~y\": [1, [2, 3], {\"k\": \"v\"}]}");
        assert!(locate(DOC, "/tools/2").is_none());
        assert!(locate(DOC, "/nope").is_none());
    }

    #[test]
    fn line_and_column() {
        let starts = line_starts(DOC);
        let at = locate(DOC, "/tools/1/name").unwrap().key.unwrap().start;
        assert_eq!(line_column(DOC, &starts, at), (4, 6));
    }

    #[test]
    fn escaped_keys_match() {
        let doc = r#"{"a\u0062": 1, "ab": 2}"#;
        // serde_json keeps the last duplicate, and so do we.
        assert_eq!(&doc[locate(doc, "/ab").unwrap().value], "2");
    }

    #[test]
    fn duplicate_keys_are_found() {
        assert_eq!(first_duplicate_key(r#"{"a": {"b": 1, "c": [{"b": 2}], "b": 3}}"#), Some((32, "b".to_owned())));
        assert_eq!(first_duplicate_key(r#"{"a": 1, "b": {"a": 2}, "c": ["a", "a"]}"#), None);
        assert_eq!(first_duplicate_key(r#"{"\u0061": 1, "a": 2}"#).map(|d| d.1), Some("a".to_owned()));
        let many: String =
            format!("{{{}, \"k5\": 0}}", (0..40).map(|i| format!("\"k{i}\": 0")).collect::<Vec<_>>().join(", "));
        assert_eq!(first_duplicate_key(&many).map(|d| d.1), Some("k5".to_owned()));
    }

    #[test]
    fn offsets_in_one_pass() {
        let wanted: std::collections::HashSet<String> = ["/tools/1".to_owned(), "/tools/0".to_owned()].into();
        let found = offsets_of(DOC, &wanted);
        assert_eq!(&DOC[found["/tools/1"]..found["/tools/1"] + 9], "{\"name\": ");
        assert_eq!(found.len(), 2);
    }

    #[test]
    fn garbage_is_none_not_panic() {
        for doc in ["", "{", "[", "{\"a\"", "{\"a\":", "[1,", "\"", "}", "]]]"] {
            let _ = locate(doc, "/a/0");
        }
    }
}
