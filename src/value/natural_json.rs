//! Values as "natural JSON": what scripts expect rather than a type-tagged encoding.
//!
//! int and uint are exact integers; doubles are numbers, or `"NaN"`, `"Infinity"`,
//! `"-Infinity"`; bytes are base64; timestamps RFC 3339; durations like `"1.5s"`; types by
//! name; `optional.none()` is null and `optional.of(v)` is `v`; library values (IP, URL, ...)
//! by their string form. The same shape serialises to YAML.
//!
//! Map keys: a map whose keys are all strings is an object with those keys. A map with a
//! key of another type is an object whose every key is written as a CEL literal: `1`
//! (ints and uints alike: CEL takes `1` and `1u` for the same key), `true`, and strings
//! quoted (`"\"a\""`), so that `{true: 1, "true": 2}` is
//! `{"true":1,"\"true\"":2}` — no two keys collide and each can be read back (with the
//! map's type, which says which of the two forms a map has).

use super::{Key, Value, format_duration};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// Serialises a [`Value`] as natural JSON (with `serde_json`, `serde_norway`, ...).
///
/// ```
/// use kcel::Natural;
/// use kcel::Value;
///
/// let v = Value::list(vec![Value::Int(1), Value::Double(f64::NAN)]);
/// assert_eq!(serde_json::to_string(&Natural(&v)).unwrap(), r#"[1,"NaN"]"#);
/// ```
pub struct Natural<'a>(pub &'a Value);

impl Value {
    /// The value as natural JSON (see [`Natural`]).
    pub fn to_natural_json(&self) -> serde_json::Value {
        serde_json::to_value(Natural(self)).unwrap_or(serde_json::Value::Null)
    }
}

impl Serialize for Natural<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Null | Value::Optional(None) => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::Uint(u) => s.serialize_u64(*u),
            Value::Double(d) if d.is_nan() => s.serialize_str("NaN"),
            Value::Double(d) if d.is_infinite() => {
                s.serialize_str(if *d > 0.0 { "Infinity" } else { "-Infinity" })
            }
            Value::Double(d) => s.serialize_f64(*d),
            Value::String(text) => s.serialize_str(text),
            Value::Bytes(b) => s.serialize_str(&STANDARD.encode(b)),
            Value::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items.iter() {
                    seq.serialize_element(&Natural(item))?;
                }
                seq.end()
            }
            Value::Map(m) => {
                let literal_keys = m.iter().any(|(k, _)| !matches!(k, Key::String(_)));
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m.iter() {
                    map.serialize_entry(&key_string(k, literal_keys), &Natural(v))?;
                }
                map.end()
            }
            // cel-go's JSON form of a timestamp is its `string()` (`Timestamp.ConvertToNative`):
            // RFC 3339 at the timestamp's offset.
            Value::Timestamp(t) => {
                s.serialize_str(&crate::standard::timestamp_text::format_rfc3339(t))
            }
            Value::Duration(d) => s.serialize_str(&format_duration(d)),
            Value::Type(t) => s.serialize_str(t.name()),
            Value::Optional(Some(v)) => Natural(v).serialize(s),
            Value::Opaque(o) => s.serialize_str(&o.to_display_string()),
            Value::Json(j) => match j.json() {
                Some(json) => json.serialize(s),
                None => s.collect_seq(j.elements()),
            },
        }
    }
}

/// A map key as a JSON object key: a string key as itself, unless the map's keys are
/// written as CEL literals (`literal`) because some key is not a string.
fn key_string(key: &Key, literal: bool) -> String {
    match key {
        Key::String(s) if !literal => s.to_string(),
        Key::String(s) => {
            let mut out = String::with_capacity(s.len() + 2);
            // Writing to a String cannot fail.
            let _ = super::write_string_literal(&mut out, s);
            out
        }
        Key::Int(i) => i.to_string(),
        // 1 and 1u are the same key in CEL: a map holds at most one of them.
        Key::Uint(u) => u.to_string(),
        Key::Bool(b) => b.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn json(v: &Value) -> String {
        serde_json::to_string(&Natural(v)).unwrap()
    }

    #[test]
    fn scalars_are_natural() {
        assert_eq!(json(&Value::Int(i64::MIN)), "-9223372036854775808");
        assert_eq!(json(&Value::Uint(u64::MAX)), "18446744073709551615");
        assert_eq!(json(&Value::Double(1.0)), "1.0");
        assert_eq!(json(&Value::Double(f64::NAN)), "\"NaN\"");
        assert_eq!(json(&Value::Double(f64::NEG_INFINITY)), "\"-Infinity\"");
        assert_eq!(json(&Value::Bytes(Arc::from(&b"hi"[..]))), "\"aGk=\"");
        assert_eq!(json(&Value::Optional(None)), "null");
    }

    #[test]
    fn map_keys_become_literals_in_order() {
        let m: crate::Map = [
            (Key::Int(2), Value::Bool(true)),
            (Key::Uint(1), Value::Null),
            (Key::Bool(false), Value::Int(0)),
        ]
        .into_iter()
        .collect();
        assert_eq!(json(&Value::from(m)), r#"{"2":true,"1":null,"false":0}"#);
    }

    #[test]
    fn mixed_keys_do_not_collide() {
        let m: crate::Map = [
            (Key::Bool(true), Value::Int(1)),
            (Key::String("true".into()), Value::Int(2)),
        ]
        .into_iter()
        .collect();
        assert_eq!(json(&Value::from(m)), r#"{"true":1,"\"true\"":2}"#);
        let strings: crate::Map = [(Key::String("1".into()), Value::Int(1))]
            .into_iter()
            .collect();
        assert_eq!(json(&Value::from(strings)), r#"{"1":1}"#);
    }
}
