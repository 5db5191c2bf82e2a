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
pub fn escape_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) {
        std::borrow::Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        std::borrow::Cow::Borrowed(token)
    }
}

/// Finds `pointer` in `text` (a complete JSON document). Returns `None` when the pointer does not
/// exist or the text is not the JSON it was parsed from.
#[must_use]
pub fn locate(text: &str, pointer: &str) -> Option<Located> {
    let (key, start) = find(text, pointer)?;
    let end = skip_value(text.as_bytes(), start)?;
    Some(Located { key, value: start..end })
}

/// The range to underline for `pointer` (see [`Located::label_range`]) without scanning to the end of
/// a value that has a key: a million-value enum is not read just to point at `"enum"`.
#[must_use]
pub fn locate_label(text: &str, pointer: &str) -> Option<Range<usize>> {
    match find(text, pointer)? {
        (Some(key), _) => Some(key),
        (None, start) => {
            Some(Located { key: None, value: start..skip_value(text.as_bytes(), start)? }.label_range(text))
        }
    }
}

/// The key range (for an object member) and the start of the value that `pointer` names. The first
/// member with a matching key wins: loading rejects snapshots with duplicate keys.
fn find(text: &str, pointer: &str) -> Option<(Option<Range<usize>>, usize)> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    let mut key = None;
    for token in pointer_tokens(pointer) {
        match *b.get(i)? {
            b'{' => {
                i += 1;
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
                    if key_matches(&text[key_range.clone()], &token) {
                        key = Some(key_range);
                        break;
                    }
                    i = skip_ws(b, skip_value(b, i)?);
                    match *b.get(i)? {
                        b',' => i += 1,
                        _ => return None,
                    }
                }
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
    Some((key, i))
}

/// Every JSON Pointer of a document with its key range and value start, built in one pass: for a
/// tool with thousands of findings, each located in constant time instead of a scan each.
#[derive(Debug, Default)]
pub struct PointerIndex(std::collections::HashMap<String, (Option<Range<usize>>, usize)>);

impl PointerIndex {
    /// Indexes `text` (a complete JSON document). Stops quietly at anything that is not JSON.
    #[must_use]
    pub fn build(text: &str) -> PointerIndex {
        let mut index = PointerIndex::default();
        let _ = index.fill(text);
        index
    }

    fn fill(&mut self, text: &str) -> Option<()> {
        enum Frame {
            Object(String),
            Array(String, usize),
        }
        let b = text.as_bytes();
        let mut stack: Vec<Frame> = Vec::new();
        let mut i = skip_ws(b, 0);
        let mut pending = Some((String::new(), None));
        // Reads `"key": ` at `i` inside the object at `ptr`; the next value's pointer and key range.
        let member = |i: &mut usize, ptr: &str| -> Option<(String, Option<Range<usize>>)> {
            let start = *i;
            *i = skip_string(b, *i)?;
            let key = key_text(&text[start..*i])?;
            let range = start..*i;
            *i = skip_ws(b, *i);
            if *b.get(*i)? != b':' {
                return None;
            }
            *i = skip_ws(b, *i + 1);
            Some((format!("{ptr}/{}", escape_token(&key)), Some(range)))
        };
        loop {
            if let Some((ptr, key)) = pending.take() {
                // The first of duplicate keys wins, as in `locate`.
                self.0.entry(ptr.clone()).or_insert((key, i));
                match *b.get(i)? {
                    b'{' => {
                        i = skip_ws(b, i + 1);
                        if *b.get(i)? == b'}' {
                            i += 1;
                        } else {
                            pending = Some(member(&mut i, &ptr)?);
                            stack.push(Frame::Object(ptr));
                            continue;
                        }
                    }
                    b'[' => {
                        i = skip_ws(b, i + 1);
                        if *b.get(i)? == b']' {
                            i += 1;
                        } else {
                            pending = Some((format!("{ptr}/0"), None));
                            stack.push(Frame::Array(ptr, 0));
                            continue;
                        }
                    }
                    _ => i = skip_value(b, i)?,
                }
            }
            i = skip_ws(b, i);
            match stack.last_mut() {
                None => return Some(()),
                Some(Frame::Object(ptr)) => match *b.get(i)? {
                    b',' => {
                        i = skip_ws(b, i + 1);
                        pending = Some(member(&mut i, ptr)?);
                    }
                    b'}' => {
                        i += 1;
                        stack.pop();
                    }
                    _ => return None,
                },
                Some(Frame::Array(ptr, n)) => match *b.get(i)? {
                    b',' => {
                        *n += 1;
                        i = skip_ws(b, i + 1);
                        pending = Some((format!("{ptr}/{n}"), None));
                    }
                    b']' => {
                        i += 1;
                        stack.pop();
                    }
                    _ => return None,
                },
            }
        }
    }

    /// What [`locate_label`] returns for `pointer` in the indexed `text`.
    #[must_use]
    pub fn label(&self, text: &str, pointer: &str) -> Option<Range<usize>> {
        match self.0.get(pointer)? {
            (Some(key), _) => Some(key.clone()),
            (None, start) => {
                Some(Located { key: None, value: *start..skip_value(text.as_bytes(), *start)? }.label_range(text))
            }
        }
    }
}

/// The text of a JSON string token (quotes included), unescaped only when it has escapes.
fn key_text(raw: &str) -> Option<String> {
    if raw.contains('\\') { serde_json::from_str::<String>(raw).ok() } else { Some(raw[1..raw.len() - 1].to_owned()) }
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
    loop {
        i += memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        if b[i] == b'"' {
            return Some(i + 1);
        }
        i += 2;
    }
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
                    let key = key_text(&text[start..end])?;
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

/// 1-based line and column (in Unicode scalar values) of a byte offset, given the line starts.
#[must_use]
pub fn line_column(text: &str, line_starts: &[usize], offset: usize) -> (usize, usize) {
    let line = line_starts.partition_point(|&s| s <= offset).saturating_sub(1);
    let start = line_starts.get(line).copied().unwrap_or(0);
    let column = text.get(start..offset).map_or(1, |s| s.chars().count() + 1);
    (line + 1, column)
}

/// Bytes per block of [`Marks`].
const MARK_BLOCK: usize = 4096;

/// Per [`MARK_BLOCK`]-byte block of a text: the characters and lines before it and where the last
/// line before it starts, so that a line and column cost one block to count, not the whole file (a
/// minified snapshot is one long line; a pretty one has a million short ones).
#[derive(Debug, Default)]
pub struct Marks(Vec<Mark>);

#[derive(Debug, Clone, Copy)]
struct Mark {
    chars: usize,
    lines: usize,
    line_start: usize,
}

impl Marks {
    /// One pass over `text`; over a long text, its two halves at once. On a plain thread, not a
    /// rayon task: this runs inside a lazy cell that other rayon tasks may wait on, and a rayon
    /// join would let this thread take up one of them and ask for the cell again.
    #[must_use]
    pub fn new(text: &str) -> Marks {
        let b = text.as_bytes();
        let counts = if b.len() >= PARALLEL_MARKS {
            let (first, second) = b.split_at(b.len() / 2 / MARK_BLOCK * MARK_BLOCK);
            std::thread::scope(|scope| {
                let rest = std::thread::Builder::new().spawn_scoped(scope, || block_counts(second));
                let mut counts = block_counts(first);
                // A thread that cannot start or panicked: counted here instead.
                counts.extend(rest.ok().and_then(|t| t.join().ok()).unwrap_or_else(|| block_counts(second)));
                counts
            })
        } else {
            block_counts(b)
        };
        let mut marks = Vec::with_capacity(counts.len() + 1);
        let mut at = Mark { chars: 0, lines: 0, line_start: 0 };
        for (i, (chars, lines, last)) in counts.into_iter().enumerate() {
            marks.push(at);
            at.chars += chars;
            at.lines += lines;
            if let Some(last) = last {
                at.line_start = i * MARK_BLOCK + last + 1;
            }
        }
        marks.push(at);
        Marks(marks)
    }

    /// Characters before byte `offset` (at most the text's length).
    fn chars_before(&self, text: &[u8], offset: usize) -> usize {
        let block = offset / MARK_BLOCK;
        self.0.get(block).map_or(0, |m| m.chars) + chars_in(text.get(block * MARK_BLOCK..offset).unwrap_or_default())
    }

    /// 1-based line and column (in characters) of a byte offset.
    #[must_use]
    pub fn line_column(&self, text: &str, offset: usize) -> (usize, usize) {
        let b = text.as_bytes();
        let offset = offset.min(b.len());
        let block = offset / MARK_BLOCK;
        let Some(mark) = self.0.get(block) else { return (1, 1) };
        let before = b.get(block * MARK_BLOCK..offset).unwrap_or_default();
        let line = mark.lines + memchr::memchr_iter(b'\n', before).count();
        let start = memchr::memrchr(b'\n', before).map_or(mark.line_start, |i| block * MARK_BLOCK + i + 1);
        (line + 1, self.chars_before(b, offset) - self.chars_before(b, start) + 1)
    }
}

/// Texts at least this long have their [`Marks`] counted in two halves at once.
const PARALLEL_MARKS: usize = 4 << 20;

/// Per [`MARK_BLOCK`]-byte block of `bytes` (which starts at a block boundary): its characters, its
/// newlines and where its last newline is.
fn block_counts(bytes: &[u8]) -> Vec<(usize, usize, Option<usize>)> {
    bytes
        .chunks(MARK_BLOCK)
        .map(|block| (chars_in(block), memchr::memchr_iter(b'\n', block).count(), memchr::memrchr(b'\n', block)))
        .collect()
}

/// Characters in a slice of UTF-8 bytes that may start or end inside a character: the bytes that are
/// not continuation bytes.
fn chars_in(bytes: &[u8]) -> usize {
    if bytes.is_ascii() {
        return bytes.len();
    }
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// Byte offsets at which lines start.
#[must_use]
pub fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(memchr_newlines(text)).collect()
}

fn memchr_newlines(text: &str) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1)
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
        // The block-marked version agrees everywhere, across multi-byte characters and block edges.
        let long: String = (0..3000).map(|i| if i % 7 == 0 { "é\n" } else { "ab€" }).collect();
        let (starts, marks) = (line_starts(&long), Marks::new(&long));
        for offset in (0..long.len()).filter(|&o| long.is_char_boundary(o)) {
            assert_eq!(marks.line_column(&long, offset), line_column(&long, &starts, offset), "{offset}");
        }
        // A text without newlines, and one that is nothing but.
        for text in ["x".repeat(10_000), "\n".repeat(10_000)] {
            let (starts, marks) = (line_starts(&text), Marks::new(&text));
            for offset in [0, 1, 4095, 4096, 4097, 9999, 10_000] {
                assert_eq!(marks.line_column(&text, offset), line_column(&text, &starts, offset), "{offset}");
            }
        }
    }

    #[test]
    fn the_marks_of_a_long_text_counted_in_halves_agree() {
        // Past the size counted in two halves; short and long lines, multi-byte characters on both
        // sides of the split and of block edges.
        let long: String = (0..(PARALLEL_MARKS / 3 + 5_000))
            .map(|i| match i % 5 {
                0 => "é\n",
                1 => "ab€x",
                2 => "\n\n",
                _ => "𝄞",
            })
            .collect();
        assert!(long.len() > PARALLEL_MARKS);
        let (starts, marks) = (line_starts(&long), Marks::new(&long));
        let half = long.len() / 2 / MARK_BLOCK * MARK_BLOCK;
        let near = |o: usize| o.saturating_sub(40)..(o + 40).min(long.len() + 1);
        let offsets =
            near(half).chain(near(half + MARK_BLOCK)).chain(near(long.len())).chain((0..long.len()).step_by(9_973));
        for offset in offsets.filter(|&o| long.is_char_boundary(o)) {
            assert_eq!(marks.line_column(&long, offset), line_column(&long, &starts, offset), "{offset}");
        }
    }

    #[test]
    fn escaped_keys_match() {
        let doc = r#"{"x": 0, "a\u0062": 1}"#;
        assert_eq!(&doc[locate(doc, "/ab").unwrap().value], "1");
        // Loading rejects duplicate keys, so the first match is the only one.
        let dup = r#"{"ab": [1, 2], "ab": 3}"#;
        assert_eq!(&dup[locate(dup, "/ab").unwrap().value], "[1, 2]");
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
    fn pointer_index_agrees_with_locate() {
        let doc = r#"{"tools": [{"name": "a", "inputSchema": {"type": "object", "properties": {"a/b": {"enum": [1, [2, {}], "x"]}, "q\"": {}}}}, [], {}], "e": {"k": 1, "k": 2}}"#;
        let index = PointerIndex::build(doc);
        assert!(index.0.len() > 10);
        for p in index.0.keys() {
            assert_eq!(index.label(doc, p), locate_label(doc, p), "{p}");
        }
        assert_eq!(
            index.label(doc, "/tools/0/inputSchema/properties/a~1b/enum/1/1"),
            locate_label(doc, "/tools/0/inputSchema/properties/a~1b/enum/1/1")
        );
        assert!(index.label(doc, "/nope").is_none());
        for garbage in ["", "{", "[1,", "{\"a\" 1}", "]"] {
            let _ = PointerIndex::build(garbage);
        }
    }

    #[test]
    fn garbage_is_none_not_panic() {
        for doc in ["", "{", "[", "{\"a\"", "{\"a\":", "[1,", "\"", "}", "]]]"] {
            let _ = locate(doc, "/a/0");
        }
    }
}
