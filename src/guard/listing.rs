//! A `tools/list` answer read tool by tool: each tool is parsed (strictly, as [`super::wire::parse`]
//! parses), hashed as `lock` hashes it, and dropped unless the caller keeps it, so a large listing
//! is never held as values all at once. Takes one line from the server; returns the answer's id,
//! every tool's name and contract hash, the tools kept, and the next cursor.
//!
//! Promises: accepts exactly the lines [`super::wire::parse`] accepts (a key repeated in any object
//! is an error, and so is anything that is not one JSON text), and reads a line that is not a
//! response with a `result.tools` array as [`Read::Other`], so the caller reads it the usual way;
//! the hash of a tool is [`super::check::listed_hash`]'s.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::check;

/// One listed tool.
#[derive(Debug, PartialEq)]
pub struct Listed {
    /// Its `name`, when that is a string.
    pub name: Option<String>,
    /// Its contract hash, when it has one ([`check::listed_hash`]).
    pub hash: Option<String>,
    /// The tool object, when the caller kept it.
    pub value: Option<Value>,
}

/// A `tools/list` answer.
#[derive(Debug, PartialEq)]
pub struct Listing {
    pub id: Value,
    pub tools: Vec<Listed>,
    /// `result.nextCursor` as sent (any JSON value).
    pub next_cursor: Option<Value>,
}

/// What one line holds.
#[derive(Debug, Default, PartialEq)]
pub enum Read {
    Listing(Listing),
    /// Anything else: a request, a notification, an error, a result without a `tools` array.
    #[default]
    Other,
}

/// Which tools to keep, by name and hash (`None` when the tool has none).
pub type Keep<'k> = &'k dyn Fn(Option<&str>, Option<&str>) -> bool;

/// Reads one line.
///
/// # Errors
/// Why it is not one JSON text, or repeats a key (the parser's words).
pub fn read(line: &[u8], keep: Keep<'_>) -> Result<Read, String> {
    let mut de = serde_json::Deserializer::from_slice(line);
    let read = Message { keep }.deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(read)
}

/// A value parsed strictly and dropped.
fn strict<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Value, A::Error> {
    // `wire::parse`'s value, through its strict visitor.
    map.next_value_seed(StrictSeed)
}

struct StrictSeed;

impl<'de> DeserializeSeed<'de> for StrictSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        super::wire::strict_value(d)
    }
}

/// Keys seen in one object: a repeated one is an error, as [`super::wire::parse`] says.
fn seen<E: de::Error>(keys: &mut Vec<String>, key: &str) -> Result<(), E> {
    if keys.iter().any(|k| k == key) {
        return Err(E::custom(format!("the key `{key}` is repeated in one object")));
    }
    keys.push(key.to_owned());
    Ok(())
}

/// A scalar where a visitor wanted an object or an array: not the shape it reads (`Default`: the
/// visitor's "not this"), a non-finite number refused as `wire::parse` refuses it.
macro_rules! not_this_shape {
    () => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            serde_json::Number::from_f64(v)
                .map(|_| Self::Value::default())
                .ok_or_else(|| E::custom("a number out of range"))
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }
    };
}

struct Message<'k> {
    keep: Keep<'k>,
}

impl<'de> DeserializeSeed<'de> for Message<'_> {
    type Value = Read;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Read, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Message<'_> {
    type Value = Read;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Read, A::Error> {
        let (mut keys, mut id, mut result, mut other) = (Vec::new(), None, None, false);
        while let Some(key) = map.next_key::<String>()? {
            seen(&mut keys, &key)?;
            match key.as_str() {
                "id" => id = Some(strict(&mut map)?),
                "result" => result = map.next_value_seed(ResultSeed { keep: self.keep })?,
                "method" | "error" => {
                    other = true;
                    strict(&mut map)?;
                }
                _ => {
                    strict(&mut map)?;
                }
            }
        }
        Ok(match (other, id, result) {
            (false, Some(id), Some((tools, next_cursor))) => Read::Listing(Listing { id, tools, next_cursor }),
            _ => Read::Other,
        })
    }

    // Anything but an object: not a listing, parsed strictly all the same.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Read, A::Error> {
        while seq.next_element_seed(StrictSeed)?.is_some() {}
        Ok(Read::Other)
    }
    not_this_shape!();
}

/// `result`: its tools and next cursor, when it is an object with a `tools` array.
struct ResultSeed<'k> {
    keep: Keep<'k>,
}

type Parts = Option<(Vec<Listed>, Option<Value>)>;

impl<'de> DeserializeSeed<'de> for ResultSeed<'_> {
    type Value = Parts;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Parts, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ResultSeed<'_> {
    type Value = Parts;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parts, A::Error> {
        let (mut keys, mut tools, mut cursor) = (Vec::new(), None, None);
        while let Some(key) = map.next_key::<String>()? {
            seen(&mut keys, &key)?;
            match key.as_str() {
                "tools" => tools = map.next_value_seed(ToolsSeed { keep: self.keep })?,
                "nextCursor" => cursor = Some(strict(&mut map)?),
                _ => {
                    strict(&mut map)?;
                }
            }
        }
        Ok(tools.map(|t| (t, cursor)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parts, A::Error> {
        while seq.next_element_seed(StrictSeed)?.is_some() {}
        Ok(None)
    }
    not_this_shape!();
}

/// `result.tools`: each element parsed, hashed, and kept or dropped.
struct ToolsSeed<'k> {
    keep: Keep<'k>,
}

impl<'de> DeserializeSeed<'de> for ToolsSeed<'_> {
    type Value = Option<Vec<Listed>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ToolsSeed<'_> {
    type Value = Option<Vec<Listed>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(tool) = seq.next_element_seed(StrictSeed)? {
            out.push(listed(tool, self.keep));
        }
        Ok(Some(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut keys = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            seen(&mut keys, &key)?;
            strict(&mut map)?;
        }
        Ok(None)
    }
    not_this_shape!();
}

/// One listed tool object: its name and hash, and the object itself when `keep` says so.
#[must_use]
pub fn listed(tool: Value, keep: Keep<'_>) -> Listed {
    let name = tool.get("name").and_then(Value::as_str).map(str::to_owned);
    let hash = check::listed_hash(&tool).map(|(_, h)| h);
    let kept = keep(name.as_deref(), hash.as_deref());
    Listed { name, hash, value: kept.then_some(tool) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn all(_: Option<&str>, _: Option<&str>) -> bool {
        true
    }

    fn none(_: Option<&str>, _: Option<&str>) -> bool {
        false
    }

    #[test]
    fn a_listing_is_read_tool_by_tool() {
        let a = json!({"name": "a", "inputSchema": {"type": "object"}});
        let line = json!({"jsonrpc": "2.0", "id": 4, "result": {"_meta": {"x": [1]}, "nextCursor": "p2",
            "tools": [a, {"name": 3}]}})
        .to_string();
        let Read::Listing(l) = read(line.as_bytes(), &none).unwrap() else { panic!("a listing") };
        assert_eq!((l.id, l.next_cursor), (json!(4), Some(json!("p2"))));
        assert_eq!(l.tools[0].name.as_deref(), Some("a"));
        assert_eq!(l.tools[0].hash, check::listed_hash(&a).map(|(_, h)| h));
        assert_eq!((&l.tools[1].name, &l.tools[1].hash, &l.tools[0].value), (&None, &None, &None));
        let Read::Listing(l) = read(line.as_bytes(), &all).unwrap() else { panic!("a listing") };
        assert_eq!(l.tools[0].value, Some(a));
    }

    #[test]
    fn other_lines_and_strictness_agree_with_the_wire_parser() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1},"result":{"tools":[]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","result":{"tools":[]}}"#,
            r#"{"jsonrpc":"2.0","result":{"tools":[]}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}]"#,
            "7",
        ] {
            assert_eq!(read(line.as_bytes(), &all), Ok(Read::Other), "{line}");
            assert!(super::super::wire::parse(line.as_bytes()).is_ok());
        }
        for line in [
            r#"{"id":1,"id":2,"result":{"tools":[]}}"#,
            r#"{"id":1,"result":{"tools":[],"tools":[]}}"#,
            r#"{"id":1,"result":{"tools":[{"name":"a","name":"b"}]}}"#,
            r#"{"id":1,"result":{"tools":{"a":1,"a":2}}}"#,
            r#"{"id":1,"result":{"tools":[]}} x"#,
            r#"{"id":1,"result":{"tools":[1e999]}}"#,
            r#"{"id":1,"result":{"tools":[]}"#,
        ] {
            assert!(read(line.as_bytes(), &all).is_err(), "{line}");
            assert!(super::super::wire::parse(line.as_bytes()).is_err(), "{line}");
        }
    }
}
