//! Reading a value from a JSON or YAML document (any self-describing serde format), as
//! Kubernetes reads objects without a schema: integral numbers become `int` (`uint` beyond
//! `i64`), other numbers `double`, sequences lists, mappings maps. Unlike
//! `Value::from(&serde_json::Value)`, map keys keep their scalar kind (YAML's `1: one` is
//! `{1: "one"}`), so the playground and the CLI read variables alike.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::{Key, Map, Value};

/// Reads one document's value from a self-describing deserializer.
///
/// ```
/// let mut json = serde_json::Deserializer::from_str(r#"{"a": [1, 2.5, null]}"#);
/// let value = kcel::from_document(&mut json).unwrap();
/// assert_eq!(value.to_string(), r#"{"a": [1, 2.5, null]}"#);
/// ```
pub fn from_document<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    deserializer.deserialize_any(ValueVisitor)
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON or YAML value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        from_document(d)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Int(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(i64::try_from(u).map_or(Value::Uint(u), Value::Int))
    }
    fn visit_f64<E>(self, d: f64) -> Result<Value, E> {
        Ok(Value::Double(d))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::from(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(Document)? {
            items.push(item);
        }
        Ok(Value::from(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Value, A::Error> {
        let mut map = Map::with_capacity(entries.size_hint().unwrap_or(0));
        while let Some(key) = entries.next_key_seed(Document)? {
            let key = match key {
                Value::String(s) => Key::String(s),
                Value::Int(i) => Key::Int(i),
                Value::Uint(u) => Key::Uint(u),
                Value::Bool(b) => Key::Bool(b),
                other => {
                    return Err(de::Error::custom(format!(
                        "unsupported map key {other} (keys must be strings, integers or booleans)"
                    )));
                }
            };
            map.insert(key, entries.next_value_seed(Document)?);
        }
        Ok(Value::from(map))
    }
}

/// A seed reading nested values with the same rules.
struct Document;

impl<'de> DeserializeSeed<'de> for Document {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        from_document(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Result<Value, String> {
        from_document(serde_norway::Deserializer::from_str(text)).map_err(|e| e.to_string())
    }

    #[test]
    fn yaml_keys_keep_their_kind() {
        assert_eq!(yaml("1: one").unwrap().to_string(), "{1: \"one\"}");
        assert_eq!(
            yaml("a: 1\nb: [x, true, 2.5, ~]\n").unwrap().to_string(),
            "{\"a\": 1, \"b\": [\"x\", true, 2.5, null]}"
        );
        assert_eq!(yaml("18446744073709551615").unwrap(), Value::Uint(u64::MAX));
        assert!(yaml("[1]: x").unwrap_err().contains("unsupported map key"));
    }
}
