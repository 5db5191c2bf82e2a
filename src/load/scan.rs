//! One pass over a file's text that does everything loading needs before tools are compared:
//! validates the text as JSON (RFC 8259, as strictly as `serde_json` parses values), refuses a key
//! repeated in one object, nesting deeper than [`MAX_NESTING`] and a number out of the range of a
//! 64-bit float, and records the members of the containers a file's shape is found through (an
//! [`Interest`]), each with its byte range.
//!
//! Takes the text; returns an [`Outline`] or `None`. Promises: with an outline, the text is JSON
//! that `serde_json` parses into values and [`super::span::scan_structure`] finds nothing wrong with, so
//! the caller may skip both; with `None`, the caller runs those slower checks, which say what is
//! wrong and where (a lone surrogate escape is `None` here, stricter than `serde_json`'s raw parse).
//! Iterative and bounded by [`MAX_NESTING`]; nothing is allocated per value beyond the members of
//! containers of interest and the keys of the object being read.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

use super::span::MAX_NESTING;

/// One member of a recorded container: its key (`None` for an array element) and its value's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member<'t> {
    pub key: Option<Cow<'t, str>>,
    pub span: Range<usize>,
}

/// A container whose members were recorded, by the offset of its opening bracket.
#[derive(Debug)]
struct Node {
    start: usize,
    members: Range<usize>,
}

/// The containers of interest of a valid file, each with its members.
#[derive(Debug, Default)]
pub struct Outline<'t> {
    /// Sorted by `start` (containers open in text order).
    nodes: Vec<Node>,
    members: Vec<Member<'t>>,
}

impl<'t> Outline<'t> {
    /// The members of the recorded container that starts at byte `start`.
    #[must_use]
    pub fn members(&self, start: usize) -> Option<&[Member<'t>]> {
        let i = self.nodes.binary_search_by_key(&start, |n| n.start).ok()?;
        self.members.get(self.nodes[i].members.clone())
    }
}

/// Which containers' members are recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interest {
    /// The containers a snapshot's tools are found through: the root, and below a recorded
    /// container every array element and every member named `tools` or `result`. The tool objects
    /// are among them; the insides of their schemas are not.
    Snapshot,
    /// A lock file: the root, its `tools` object, each locked entry and each contract (four levels).
    Lock,
}

impl Interest {
    /// Whether a container at `key` (`None`: an array element) inside a recorded container at
    /// nesting `depth` is recorded too.
    fn child(self, depth: usize, key: Option<&str>) -> bool {
        match self {
            Interest::Snapshot => key.is_none_or(|k| k == "tools" || k == "result"),
            Interest::Lock => depth < 3,
        }
    }
}

/// One open container. Frames are kept and reused as the nesting goes up and down.
#[derive(Default)]
struct Frame<'t> {
    object: bool,
    start: usize,
    /// Its index in [`Outline::nodes`] when recorded, with the members read so far.
    node: Option<usize>,
    recorded: Vec<Member<'t>>,
    /// The keys read so far (objects), each with a cheap fingerprint, for repeated keys; a set once
    /// there are many, unless (`ascending`) each key so far is greater than the one before (a lock
    /// file, canonical text): such keys cannot repeat, and the next one needs only one comparison.
    keys: Vec<(u64, Cow<'t, str>)>,
    set: HashSet<Cow<'t, str>>,
    many: bool,
    ascending: bool,
    /// The key of the member being read (recorded objects only).
    key: Option<Cow<'t, str>>,
}

impl Frame<'_> {
    fn open(&mut self, object: bool, start: usize, node: Option<usize>) {
        self.object = object;
        self.start = start;
        self.node = node;
        self.keys.clear();
        if self.many {
            self.set.clear();
            self.many = false;
        }
        self.ascending = false;
        self.key = None;
    }

    /// Moves the keys read so far into the set, which checks every later key.
    fn spill(&mut self) {
        self.set.extend(self.keys.drain(..).map(|(_, k)| k));
        self.many = true;
    }
}

/// The length and first eight bytes of a key: unequal fingerprints mean unequal keys. `b[at..]`
/// starts with the key's bytes (the text, for a key without escapes: one load, no copy).
fn fingerprint(b: &[u8], at: usize, len: usize) -> u64 {
    let head = match b.get(at..at + 8) {
        Some(chunk) if len < 8 => word(chunk) & ((1u64 << (8 * len)) - 1),
        Some(chunk) => word(chunk),
        None => b.get(at..).unwrap_or_default().iter().take(len.min(8)).rev().fold(0, |h, &c| h << 8 | u64::from(c)),
    };
    head ^ (len as u64).rotate_right(8)
}

/// Keys compared one by one up to this many; a hash set beyond.
const LINEAR_KEYS: usize = 16;

/// Scans `text` (see the module header).
#[must_use]
pub fn scan(text: &str, interest: Interest) -> Option<Outline<'_>> {
    let b = text.as_bytes();
    let mut out = Outline::default();
    // `stack[..depth]` are the open containers.
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut depth = 0;
    let mut i = ws(b, 0);
    'value: loop {
        let mut start = i;
        match *b.get(i)? {
            c @ (b'{' | b'[') => {
                if depth >= MAX_NESTING {
                    return None;
                }
                let object = c == b'{';
                let recorded = depth == 0 || {
                    let parent = stack.get(depth - 1)?;
                    parent.node.is_some() && interest.child(depth - 1, parent.key.as_deref())
                };
                let node = recorded.then(|| {
                    out.nodes.push(Node { start, members: 0..0 });
                    out.nodes.len() - 1
                });
                i = ws(b, i + 1);
                if b.get(i) == Some(if object { &b'}' } else { &b']' }) {
                    i += 1;
                } else {
                    if depth == stack.len() {
                        stack.push(Frame::default());
                    }
                    let frame = stack.get_mut(depth)?;
                    frame.open(object, start, node);
                    depth += 1;
                    if object {
                        i = key(text, i, frame)?;
                    }
                    continue 'value;
                }
            }
            b'"' => i = string(b, i)?.0,
            b'-' | b'0'..=b'9' => i = number(text, i)?,
            b't' => i = literal(b, i, b"true")?,
            b'f' => i = literal(b, i, b"false")?,
            b'n' => i = literal(b, i, b"null")?,
            _ => return None,
        }
        // A value ended at `i`: the member of the innermost container, or the whole text.
        loop {
            if depth == 0 {
                return (ws(b, i) == b.len()).then_some(out);
            }
            let top = stack.get_mut(depth - 1)?;
            if top.node.is_some() {
                let key = top.key.take();
                top.recorded.push(Member { key, span: start..i });
            }
            i = ws(b, i);
            match *b.get(i)? {
                b',' => {
                    i = ws(b, i + 1);
                    if top.object {
                        i = key(text, i, top)?;
                    }
                    continue 'value;
                }
                b'}' if top.object => {}
                b']' if !top.object => {}
                _ => return None,
            }
            i += 1;
            depth -= 1;
            if let Some(n) = top.node {
                let first = out.members.len();
                out.members.append(&mut top.recorded);
                out.nodes[n].members = first..out.members.len();
            }
            start = top.start;
        }
    }
}

/// Reads the key at `i` of an object member, its colon and the whitespace after; returns where the
/// value starts. `None` for a malformed member or a key the object already has.
fn key<'t>(text: &'t str, i: usize, frame: &mut Frame<'t>) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let (end, escaped) = string(b, i)?;
    let (key, print): (Cow<'t, str>, u64) = if escaped {
        let key = serde_json::from_str::<String>(text.get(i..end)?).ok()?;
        let print = fingerprint(key.as_bytes(), 0, key.len());
        (Cow::Owned(key), print)
    } else {
        (Cow::Borrowed(text.get(i + 1..end - 1)?), fingerprint(b, i + 1, end - i - 2))
    };
    if frame.node.is_some() {
        frame.key = Some(key.clone());
    }
    let repeated = if frame.many {
        !frame.set.insert(key)
    } else if frame.ascending {
        if frame.keys.last().is_some_and(|(_, last)| *last < key) {
            frame.keys.push((print, key));
            false
        } else {
            // The first key out of order: from here on, a set of them all.
            frame.ascending = false;
            frame.spill();
            !frame.set.insert(key)
        }
    } else {
        let repeated = frame.keys.iter().any(|(p, k)| *p == print && *k == key);
        frame.keys.push((print, key));
        if frame.keys.len() > LINEAR_KEYS {
            if frame.keys.windows(2).all(|w| w[0].1 < w[1].1) {
                frame.ascending = true;
            } else {
                frame.spill();
            }
        }
        repeated
    };
    if repeated {
        return None;
    }
    let i = ws(b, end);
    if b.get(i) != Some(&b':') {
        return None;
    }
    Some(ws(b, i + 1))
}

pub(crate) fn ws(b: &[u8], mut i: usize) -> usize {
    loop {
        match b.get(i) {
            Some(b' ') => {
                // Indentation comes in runs of spaces: eight bytes at a time, to the first other one.
                loop {
                    let Some(chunk) = b.get(i..i + 8) else {
                        while b.get(i) == Some(&b' ') {
                            i += 1;
                        }
                        break;
                    };
                    let other = nonzero(word(chunk) ^ (ONES * u64::from(b' ')));
                    if other != 0 {
                        i += (other.trailing_zeros() / 8) as usize;
                        break;
                    }
                    i += 8;
                }
            }
            Some(b'\t' | b'\n' | b'\r') => i += 1,
            _ => return i,
        }
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Eight bytes as a little-endian word (the first byte lowest).
fn word(chunk: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(chunk);
    u64::from_le_bytes(w)
}

/// The high bit of each byte of `v` that is not zero, exactly (no carry crosses a byte).
fn nonzero(v: u64) -> u64 {
    (((v & !HIGH) + !HIGH) | v) & HIGH
}

fn literal(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    (b.get(i..i + word.len())? == word).then_some(i + word.len())
}

/// A number token at `i`; returns the index after it. Out of a 64-bit float's range is `None`.
fn number(text: &str, start: usize) -> Option<usize> {
    let b = text.as_bytes();
    let digits = |mut i: usize| {
        let from = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > from).then_some(i)
    };
    let mut i = start + usize::from(b.get(start) == Some(&b'-'));
    i = match b.get(i)? {
        b'0' => i + 1,
        b'1'..=b'9' => digits(i)?,
        _ => return None,
    };
    if b.get(i) == Some(&b'.') {
        i = digits(i + 1)?;
    }
    let mut exponent = false;
    if let Some(b'e' | b'E') = b.get(i) {
        exponent = true;
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        i = digits(i)?;
    }
    // Only an exponent or more than 308 digits can leave the range of a float.
    if (exponent || i - start > 300) && !text.get(start..i)?.parse::<f64>().is_ok_and(f64::is_finite) {
        return None;
    }
    Some(i)
}

/// A string token at `i` (the opening quote); returns the index after the closing quote and
/// whether it has escapes. Control characters, bad escapes and lone surrogates are `None`.
pub(crate) fn string(b: &[u8], i: usize) -> Option<(usize, bool)> {
    let mut i = i + 1;
    let mut escaped = false;
    loop {
        // Eight bytes at a time, straight to the first that needs a look.
        while let Some(chunk) = b.get(i..i + 8) {
            let special = special(word(chunk));
            if special != 0 {
                i += (special.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        match *b.get(i)? {
            b'"' => return Some((i + 1, escaped)),
            b'\\' => {
                escaped = true;
                i = escape(b, i)?;
            }
            0..=0x1f => return None,
            _ => i += 1,
        }
    }
}

/// The high bit of the bytes of `word` that are `"`, `\` or a control character. The lowest set
/// bit is exact (a borrow only runs upwards from a found byte), which is all the callers use.
fn special(word: u64) -> u64 {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    zero(word ^ (ONES * u64::from(b'"'))) | zero(word ^ (ONES * u64::from(b'\\'))) | below_space
}

/// The escape at `i` (the backslash); returns the index after it.
fn escape(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(i + 2),
        b'u' => {
            let unit = hex4(b, i + 2)?;
            match unit {
                0xD800..=0xDBFF => {
                    // A high surrogate must be followed by an escaped low one.
                    if b.get(i + 6..i + 8)? != b"\\u" || !(0xDC00..=0xDFFF).contains(&hex4(b, i + 8)?) {
                        return None;
                    }
                    Some(i + 12)
                }
                0xDC00..=0xDFFF => None,
                _ => Some(i + 6),
            }
        }
        _ => None,
    }
}

fn hex4(b: &[u8], i: usize) -> Option<u32> {
    let digits = std::str::from_utf8(b.get(i..i + 4)?).ok()?;
    if !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the scan agrees with the slower path it replaces on whether `text` is acceptable.
    fn agrees_with_serde(text: &str) -> bool {
        let fast = scan(text, Interest::Snapshot).is_some();
        let slow = serde_json::from_str::<serde_json::Value>(text).is_ok()
            && super::super::span::scan_structure(text).is_none();
        // Stricter is allowed (the slow path then decides); laxer never.
        !fast || slow
    }

    fn keys(o: &Outline<'_>, start: usize) -> Vec<String> {
        o.members(start)
            .unwrap_or_default()
            .iter()
            .map(|m| m.key.as_deref().map_or_else(|| format!("#{}..{}", m.span.start, m.span.end), str::to_owned))
            .collect()
    }

    #[test]
    fn records_the_containers_of_interest() {
        let text = r#"{"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "nextCursor": null}"#;
        let o = scan(text, Interest::Snapshot).unwrap();
        assert_eq!(keys(&o, 0), ["tools", "nextCursor"]);
        let list = text.find('[').unwrap();
        let tool = list + 1;
        assert_eq!(keys(&o, list), [format!("#{tool}..{}", text.rfind(']').unwrap())]);
        assert_eq!(keys(&o, tool), ["name", "inputSchema"]);
        // The schema's members are not recorded.
        assert!(o.members(text.find("{\"type\"").unwrap()).is_none());
        let m = &o.members(tool).unwrap()[1];
        assert_eq!(&text[m.span.clone()], r#"{"type": "object"}"#);
    }

    #[test]
    fn lock_interest_is_four_levels() {
        let text = r#"{"version": 1, "tools": {"a": {"sha256": "x", "contract": {"name": "a", "inputSchema": {"type": "object"}}}}}"#;
        let o = scan(text, Interest::Lock).unwrap();
        let entry = text.find("{\"sha256\"").unwrap();
        assert_eq!(keys(&o, entry), ["sha256", "contract"]);
        assert_eq!(keys(&o, text.find("{\"name\"").unwrap()), ["name", "inputSchema"]);
        assert!(o.members(text.find("{\"type\"").unwrap()).is_none());
    }

    #[test]
    fn accepts_what_json_accepts() {
        for text in [
            "0",
            "-0.5e+3",
            " [ ] ",
            "{}",
            r#"{"a\u0062": "\ud83d\ude00\n", "ac": 1}"#,
            "[1, 2.0, -3E-2, true, false, null, \"x\", [[]], {\"k\": {}}]",
            "\"\u{e9}\u{1f600}\"",
        ] {
            assert!(scan(text, Interest::Snapshot).is_some(), "{text}");
        }
    }

    #[test]
    fn refuses_what_the_slow_path_refuses() {
        for text in [
            "",
            "[1,]",
            "{\"a\":1,}",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "+1",
            "tru",
            "nul",
            "[1 2]",
            "{\"a\" 1}",
            "{1: 2}",
            "\"\t\"",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"abc",
            "[1] 2",
            "1e400",
            "-1e309",
            r#"{"a": 1, "a": 2}"#,
            r#"{"a": 1, "\u0061": 2}"#,
            "{\"k0\":0,\"k1\":0,\"k2\":0,\"k3\":0,\"k4\":0,\"k5\":0,\"k6\":0,\"k7\":0,\"k8\":0,\"k9\":0,\"k10\":0,\"k11\":0,\"k12\":0,\"k13\":0,\"k14\":0,\"k15\":0,\"k16\":0,\"k3\":1}",
        ] {
            assert!(scan(text, Interest::Snapshot).is_none(), "{text}");
        }
        let deep = "[".repeat(MAX_NESTING + 1) + &"]".repeat(MAX_NESTING + 1);
        assert!(scan(&deep, Interest::Snapshot).is_none());
        let ok = "[".repeat(MAX_NESTING) + &"]".repeat(MAX_NESTING);
        assert!(scan(&ok, Interest::Snapshot).is_some());
        let many_digits = "1".repeat(400);
        assert!(scan(&many_digits, Interest::Snapshot).is_none());
    }

    #[test]
    fn the_first_special_byte_and_the_first_non_space_are_found_exactly() {
        // Every pair of lanes: the lowest flagged lane is the first special byte, whatever follows.
        let fill = [b'a', 0xff, 0x80, b' ', 0x7f, 0x20, 0x21];
        for first in 0..8 {
            for c in [b'"', b'\\', 0x00, 0x01, 0x1f] {
                for later in [b'"', b'\\', 0x00, 0x1f, b'a', 0xff] {
                    for f in fill {
                        let mut w = [f; 8];
                        w[first] = c;
                        if let Some(x) = w.get_mut(first + 1) {
                            *x = later;
                        }
                        assert_eq!((special(word(&w)).trailing_zeros() / 8) as usize, first, "{w:?}");
                    }
                }
            }
            for f in fill {
                let w = [f; 8];
                assert_eq!(special(word(&w)), 0, "{w:?}");
            }
            for c in [b'a', b'\n', 0x00, 0xff, 0xa0, b'!', 0x1f] {
                let mut w = [b' '; 8];
                w[first] = c;
                let other = nonzero(word(&w) ^ (ONES * u64::from(b' ')));
                assert_eq!(other, 0x80 << (8 * first), "{w:?}");
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Never laxer than `serde_json` plus the structure scan, on JSON-like noise.
        #[test]
        fn never_laxer_on_noise(text in r#"[\[\]{}",:0-9eE.+\- tfrulnas\\/u\x00-\x1fé]{0,40}"#) {
            proptest::prop_assert!(agrees_with_serde(&text), "{text:?}");
        }

        /// A repeated key is refused in any order: keys in ascending order (many, then one out of
        /// order), shuffled, escaped.
        #[test]
        fn repeated_keys_are_found_in_any_order(
            mut keys in proptest::collection::vec("[abc]{0,3}", 0..60),
            sort in proptest::bool::ANY,
            tail in proptest::option::of(0usize..60),
            escaped in 0usize..60,
        ) {
            if sort {
                keys.sort();
                keys.dedup();
            }
            if let Some(t) = tail.filter(|_| !keys.is_empty()) {
                let again = keys[t % keys.len()].clone();
                keys.push(again);
            }
            let members: Vec<String> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    let k = if i == escaped { k.replace('a', "\\u0061") } else { k.clone() };
                    format!("\"{k}\": {i}")
                })
                .collect();
            let text = format!("{{{}}}", members.join(", "));
            let distinct = keys.iter().collect::<HashSet<_>>().len() == keys.len();
            proptest::prop_assert_eq!(scan(&text, Interest::Snapshot).is_some(), distinct, "{}", text);
        }

        /// Accepts every valid document (from serialized values) unless it has repeated keys.
        #[test]
        fn accepts_serialized_values(v in json_value()) {
            let text = serde_json::to_string_pretty(&v).unwrap();
            proptest::prop_assert!(scan(&text, Interest::Snapshot).is_some(), "{text}");
            proptest::prop_assert!(agrees_with_serde(&text));
        }
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(serde_json::Value::from),
            "\\PC{0,8}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
                proptest::collection::btree_map("\\PC{0,6}", inner, 0..6)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }
}
