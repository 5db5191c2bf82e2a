//! The RFC 8785 (JCS) canonical text of JSON read straight from its text, without building values:
//! what `serde_jcs::to_string` gives for the `serde_json::Value` of the same text, byte for byte
//! (keys sorted by UTF-16 code units, numbers as ECMAScript prints the 64-bit float `serde_json`
//! reads, strings with only the escapes JSON requires). Also the two other text forms a lock needs:
//! the digest of a text with its insignificant whitespace left out, and the pretty layout of
//! canonical text that `serde_json::to_string_pretty` gives.
//!
//! Takes text that loading validated (see [`crate::load::scan`]); returns `None` for anything it
//! does not handle exactly (the caller then takes the value path), never a different text.
//! Iterative over arrays and object members, recursive only in nesting, which loading bounds at
//! [`MAX_NESTING`] (and so does this module).

use std::cmp::Ordering;
use std::ops::Range;

use crate::load::scan::{string, ws};
use crate::load::span::MAX_NESTING;

/// The canonical text of the JSON value `text` (valid JSON) appended to `out`.
pub fn value(text: &str, out: &mut Vec<u8>) -> Option<()> {
    let mut w = Writer::new(text);
    w.out = std::mem::take(out);
    let end = w.value(0, 0);
    *out = std::mem::take(&mut w.out);
    (ws(text.as_bytes(), end?) == text.len()).then_some(())
}

/// Writes canonical text; keeps its buffers across values (and, once dropped, for the next writer
/// on its thread).
pub struct Writer<'t> {
    text: &'t str,
    pub out: Vec<u8>,
    spare: Spare,
}

/// A member's key: its text between the quotes (no escapes), or decoded.
enum Key {
    Text(Range<usize>),
    Decoded(String),
}

/// A member of an object being written: its key's first eight bytes (big-endian, zero-padded: for
/// ASCII keys, ordered as the keys are, ties aside), its key, and its `"key":value` in the output.
type Member = (u64, Key, Range<usize>);

/// The first eight bytes of `key`, the first highest.
fn prefix(key: &[u8]) -> u64 {
    key.iter().take(8).enumerate().fold(0, |p, (n, &c)| p | u64::from(c) << (56 - 8 * n))
}

/// The key's text (`text` is the writer's).
fn text_key<'a>(text: &'a str, key: &'a Key) -> &'a str {
    match key {
        Key::Text(r) => text.get(r.clone()).unwrap_or_default(),
        Key::Decoded(k) => k,
    }
}

/// Per nesting level, the members of the object open there, each with its key and its range in the
/// output; and room for one object written again in key order.
#[derive(Default)]
struct Spare {
    levels: Vec<Vec<Member>>,
    scratch: Vec<u8>,
}

thread_local! {
    static SPARE: std::cell::Cell<Spare> = std::cell::Cell::new(Spare::default());
}

/// Scratch space kept for the next writer at most (each of the two buffers): a giant tool's is let go.
const KEEP: usize = 16 << 20;

impl Drop for Writer<'_> {
    fn drop(&mut self) {
        let members: usize = self.spare.levels.iter().map(Vec::capacity).sum();
        if self.spare.scratch.capacity() <= KEEP && members.saturating_mul(size_of::<Member>()) <= KEEP {
            let spare = std::mem::take(&mut self.spare);
            SPARE.with(|s| s.set(spare));
        }
    }
}

impl<'t> Writer<'t> {
    /// A writer of values of `text`.
    #[must_use]
    pub fn new(text: &'t str) -> Writer<'t> {
        Writer { text, out: Vec::new(), spare: SPARE.with(std::cell::Cell::take) }
    }

    /// Appends the canonical text of the value at `span` of the text.
    pub fn span(&mut self, span: &Range<usize>) -> Option<()> {
        let end = self.value(span.start, 0)?;
        (end == span.end).then_some(())
    }

    /// The value starting at or after `i` (whitespace first); returns the index after it.
    fn value(&mut self, i: usize, depth: usize) -> Option<usize> {
        let text = self.text;
        let b = text.as_bytes();
        let i = ws(b, i);
        match *b.get(i)? {
            b'{' => self.object(i, depth),
            b'[' => {
                if depth >= MAX_NESTING {
                    return None;
                }
                self.out.push(b'[');
                let mut j = ws(b, i + 1);
                if b.get(j) == Some(&b']') {
                    self.out.push(b']');
                    return Some(j + 1);
                }
                loop {
                    j = ws(b, self.value(j, depth + 1)?);
                    match *b.get(j)? {
                        b',' => self.out.push(b','),
                        b']' => {
                            self.out.push(b']');
                            return Some(j + 1);
                        }
                        _ => return None,
                    }
                    j += 1;
                }
            }
            b'"' => {
                let (end, escaped) = string(b, i)?;
                if escaped {
                    let s: String = serde_json::from_str(text.get(i..end)?).ok()?;
                    serde_json::to_writer(&mut self.out, &s).ok()?;
                } else {
                    self.out.extend_from_slice(b.get(i..end)?);
                }
                Some(end)
            }
            b't' | b'f' | b'n' => {
                let word: &[u8] = match b[i] {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                (b.get(i..i + word.len())? == word).then_some(())?;
                self.out.extend_from_slice(word);
                Some(i + word.len())
            }
            _ => {
                let end = i + b[i..]
                    .iter()
                    .take_while(|c| matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .count();
                let token = text.get(i..end)?;
                number(token, &mut self.out)?;
                Some(end)
            }
        }
    }

    fn object(&mut self, i: usize, depth: usize) -> Option<usize> {
        let text = self.text;
        let b = text.as_bytes();
        if depth >= MAX_NESTING {
            return None;
        }
        let mut j = ws(b, i + 1);
        if b.get(j) == Some(&b'}') {
            self.out.extend_from_slice(b"{}");
            return Some(j + 1);
        }
        if self.spare.levels.len() <= depth {
            self.spare.levels.resize_with(depth + 1, Vec::new);
        }
        let mut members = std::mem::take(&mut self.spare.levels[depth]);
        members.clear();
        // Members are written in text order, each `"key":value`; an object whose keys are not in key
        // order is written again in key order.
        let base = self.out.len();
        self.out.push(b'{');
        let mut ascii = true;
        loop {
            let (end, escaped) = string(b, j)?;
            let start = self.out.len();
            let (key, bytes_of) = if escaped {
                let key = serde_json::from_str::<String>(text.get(j..end)?).ok()?;
                serde_json::to_writer(&mut self.out, &key).ok()?;
                let p = prefix(key.as_bytes());
                ascii &= key.is_ascii();
                (Key::Decoded(key), p)
            } else {
                let bytes = b.get(j..end)?;
                self.out.extend_from_slice(bytes);
                let inner = bytes.get(1..bytes.len() - 1)?;
                ascii &= inner.is_ascii();
                (Key::Text(j + 1..end - 1), prefix(inner))
            };
            j = ws(b, end);
            if b.get(j) != Some(&b':') {
                return None;
            }
            self.out.push(b':');
            j = ws(b, self.value(j + 1, depth + 1)?);
            members.push((bytes_of, key, start..self.out.len()));
            match *b.get(j)? {
                b',' => {
                    self.out.push(b',');
                    j = ws(b, j + 1);
                }
                b'}' => break,
                _ => return None,
            }
        }
        self.out.push(b'}');
        // ASCII keys: by their first bytes, then whole (bytes); others by UTF-16 code units.
        let order = |x: &Member, y: &Member| {
            if ascii {
                x.0.cmp(&y.0).then_with(|| text_key(text, &x.1).as_bytes().cmp(text_key(text, &y.1).as_bytes()))
            } else {
                key_order(text_key(text, &x.1), text_key(text, &y.1))
            }
        };
        if !members.is_sorted_by(|x, y| order(x, y) == Ordering::Less) {
            members.sort_unstable_by(order);
            let scratch = &mut self.spare.scratch;
            scratch.clear();
            scratch.reserve(self.out.len() - base);
            scratch.push(b'{');
            for (n, (_, _, range)) in members.iter().enumerate() {
                if n > 0 {
                    scratch.push(b',');
                }
                scratch.extend_from_slice(self.out.get(range.clone())?);
            }
            scratch.push(b'}');
            self.out.truncate(base);
            self.out.extend_from_slice(scratch);
        }
        self.spare.levels[depth] = members;
        Some(j + 1)
    }
}

/// RFC 8785 key order: UTF-16 code units. It differs from byte (code point) order only between a
/// character above U+FFFF and one in U+E000..=U+FFFF, so two keys of which one is ASCII compare as bytes.
pub(crate) fn key_order(a: &str, b: &str) -> Ordering {
    if a.is_ascii() || b.is_ascii() { a.cmp(b) } else { a.encode_utf16().cmp(b.encode_utf16()) }
}

/// A number token as JCS writes the float `serde_json` reads from it. A plain integer of at most 15
/// digits is exact as a float and printed as it is written (`-0` as `0`).
fn number(token: &str, out: &mut Vec<u8>) -> Option<()> {
    let digits = token.strip_prefix('-').unwrap_or(token);
    if !digits.is_empty() && digits.len() <= 15 && digits.bytes().all(|c| c.is_ascii_digit()) {
        out.extend_from_slice(if token == "-0" { b"0" } else { token.as_bytes() });
        return Some(());
    }
    let n: serde_json::Number = serde_json::from_str(token).ok()?;
    out.extend_from_slice(serde_jcs::to_string(&n).ok()?.as_bytes());
    Some(())
}

/// The SHA-256 of `text` (valid JSON) without the whitespace outside its strings: for canonical
/// text laid out by [`pretty`], the digest of the canonical text itself. Streamed, nothing copied.
#[must_use]
pub fn minified_digest(text: &str) -> [u8; 32] {
    use sha2::Digest as _;
    let b = text.as_bytes();
    let mut hasher = sha2::Sha256::new();
    // The runs between whitespace are short (a line each): gathered, and hashed a block at a time.
    let mut block = Vec::with_capacity(1 << 16);
    let mut take = |run: &[u8], hasher: &mut sha2::Sha256| {
        if block.len() + run.len() > block.capacity() {
            hasher.update(&block);
            block.clear();
        }
        if run.len() > block.capacity() {
            hasher.update(run);
        } else {
            block.extend_from_slice(run);
        }
    };
    let mut i = 0;
    let mut run = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' => {
                take(&b[run..i], &mut hasher);
                i = ws(b, i);
                run = i;
            }
            b'"' => i = string(b, i).map_or(b.len(), |(end, _)| end),
            _ => i += 1,
        }
    }
    take(&b[run..], &mut hasher);
    hasher.update(&block);
    hasher.finalize().into()
}

/// Appends canonical text (compact, valid JSON) in `serde_json::to_string_pretty`'s layout, its
/// nested lines indented `indent` spaces deeper than the first.
pub fn pretty(canonical: &str, indent: usize, out: &mut String) {
    let b = canonical.as_bytes();
    let mut level = indent;
    let newline = |out: &mut String, level: usize| {
        const SPACES: &str = "                                                                ";
        out.push('\n');
        let mut left = level;
        while left > 0 {
            let n = left.min(SPACES.len());
            out.push_str(&SPACES[..n]);
            left -= n;
        }
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                if b.get(i + 1) == Some(&close) {
                    out.push(char::from(open));
                    out.push(char::from(close));
                    i += 2;
                    continue;
                }
                out.push(char::from(open));
                level += 2;
                newline(out, level);
            }
            close @ (b'}' | b']') => {
                level = level.saturating_sub(2);
                newline(out, level);
                out.push(char::from(close));
            }
            b',' => {
                out.push(',');
                newline(out, level);
            }
            b':' => out.push_str(": "),
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'"' => {
                let end = string(b, i).map_or(b.len(), |(end, _)| end);
                out.push_str(canonical.get(i..end).unwrap_or_default());
                i = end;
                continue;
            }
            _ => {
                let end = i + b[i..]
                    .iter()
                    .take_while(|c| !matches!(c, b',' | b'}' | b']' | b':' | b' ' | b'\t' | b'\n' | b'\r'))
                    .count();
                out.push_str(canonical.get(i..end).unwrap_or_default());
                i = end;
                continue;
            }
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;
    use sha2::Digest as _;

    fn canonical(text: &str) -> Option<String> {
        let mut out = Vec::new();
        value(text, &mut out)?;
        String::from_utf8(out).ok()
    }

    #[test]
    fn matches_serde_jcs_on_the_rfc_cases() {
        for text in [
            r#"{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}"#,
            r#"{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}"#,
            "[-0, 0, -1, 12345678901234567890, 9007199254740993, -9223372036854775808, 1.0, 1e21, 1e-7, 123456789012345]",
            "{ \"b\" : [ ] , \"a\" : { } }",
        ] {
            let want = serde_jcs::to_string(&serde_json::from_str::<Value>(text).unwrap()).unwrap();
            assert_eq!(canonical(text).unwrap(), want, "{text}");
        }
    }

    #[test]
    fn pretty_is_serde_json_pretty_and_minifies_back() {
        let text = r#"{"a": [], "b": {}, "c": [1, {"d": "x,y:{}[]\"", "e": [true, null]}], "f": "\u00e9"}"#;
        let c = canonical(text).unwrap();
        let mut p = String::new();
        pretty(&c, 0, &mut p);
        assert_eq!(p, serde_json::to_string_pretty(&serde_json::from_str::<Value>(&c).unwrap()).unwrap());
        assert_eq!(minified_digest(&p), <[u8; 32]>::from(sha2::Sha256::digest(c.as_bytes())));
    }

    /// Runs longer than the digest's block, and many short ones past a block's end.
    #[test]
    fn the_minified_digest_of_long_texts() {
        let long = "x".repeat(200_000);
        let lines: Vec<String> = (0..30_000).map(|i| format!("k{i}")).collect();
        let value = serde_json::json!({"a": long, "b": lines, "c": [long.clone(), 1, long]});
        let c = serde_jcs::to_string(&value).unwrap();
        let mut p = String::new();
        pretty(&c, 0, &mut p);
        assert_eq!(minified_digest(&p), <[u8; 32]>::from(sha2::Sha256::digest(c.as_bytes())));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        /// Byte for byte what `serde_jcs` gives for the value, on values with any keys, strings and
        /// numbers, written compact and pretty.
        #[test]
        fn agrees_with_serde_jcs(v in json_value()) {
            let want = serde_jcs::to_string(&v).unwrap();
            for text in [serde_json::to_string(&v).unwrap(), serde_json::to_string_pretty(&v).unwrap()] {
                prop_assert_eq!(canonical(&text), Some(want.clone()), "{}", text);
            }
            let mut p = String::new();
            pretty(&want, 0, &mut p);
            prop_assert_eq!(minified_digest(&p), <[u8; 32]>::from(sha2::Sha256::digest(want.as_bytes())));
            prop_assert_eq!(serde_json::from_str::<Value>(&p).unwrap(), serde_json::from_str::<Value>(&want).unwrap());
        }

        /// Number tokens as written by people: any digits, fractions and exponents.
        #[test]
        fn numbers_agree(int in "-?(0|[1-9][0-9]{0,24})", frac in "(\\.[0-9]{1,20})?", exp in "([eE][+-]?[0-9]{1,3})?") {
            let token = format!("{int}{frac}{exp}");
            if let Ok(v) = serde_json::from_str::<Value>(&token) {
                prop_assert_eq!(canonical(&token), Some(serde_jcs::to_string(&v).unwrap()), "{}", token);
            }
        }
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            "\\PC{0,8}|[\\x00-\\x1f\"\\\\/\u{7f}\u{e000}\u{ffff}\u{10000}]{0,4}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::btree_map("\\PC{0,6}|[a\u{e000}\u{ffff}\u{10000}\u{10ffff}]{1,3}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }
}
