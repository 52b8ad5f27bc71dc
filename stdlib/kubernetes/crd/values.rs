//! JSON data bound to a schema, as CEL values.
//!
//! An object is converted once ([`to_value`]); every rule at every node reads the same
//! shared values (sub-values are `Arc` clones, never deep copies). Objects become maps
//! keyed by escaped field names; set and map lists carry their semantics
//! ([`kcel::List::semantics`]).

use std::sync::Arc;

use base64::Engine;

use super::decl_types::{DeclKind, DeclType, ListKind};
use super::escaping::is_reserved;
use super::list_types::{MapList, SetList};
use kcel::Type;
use kcel::library::standard::{duration_text, timestamp_text};
use kcel::{Key, List, Map, Value};

/// Data nested deeper than this is an error.
pub const MAX_DATA_DEPTH: usize = 256;

/// Data that does not fit its schema, in Kubernetes' words (apiserver's
/// `UnstructuredToVal`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// Data nested deeper than 256 levels.
    #[error("data nested deeper than {MAX_DATA_DEPTH} levels")]
    TooDeep,
    /// `null` where the schema is not nullable.
    #[error("invalid data, got null for schema with nullable=false")]
    Null,
    /// Not a map under `type: object`.
    #[error("invalid data, expected a map for the provided schema with type=object")]
    ExpectedMap,
    /// Not an array under `type: array`.
    #[error("invalid data, expected an array for the provided schema with type=array")]
    ExpectedArray,
    /// Neither a string nor an integer under `x-kubernetes-int-or-string`.
    #[error("invalid data, expected XIntOrString value to be either a string or integer")]
    ExpectedIntOrString,
    /// A scalar of another type (Go's names: `bool`, `int`, `float`, `string`; the value's
    /// `%T`).
    #[error("invalid data, expected {expected}, got {found}")]
    Expected {
        /// The schema's type.
        expected: &'static str,
        /// The data's Go type.
        found: &'static str,
    },
    /// A `format: byte` string that is not base64.
    #[error("base64 decoding failed: {0}")]
    Base64(String),
    /// A `format: duration` string that is not a Go duration.
    #[error("Invalid duration {text}: {reason}")]
    Duration {
        /// The string.
        text: String,
        /// Go's parse error.
        reason: duration_text::DurationSyntaxError,
    },
    /// A `format: date`/`date-time` string that is neither.
    #[error("Invalid date formatted string {0}")]
    Date(String),
    /// A schema type values cannot have.
    #[error("unsupported type: {0}")]
    UnsupportedType(Type),
}

/// Converts `json` under `ty`; errors use Kubernetes' texts
/// (`invalid data, got null for schema with nullable=false`, ...).
pub fn to_value(json: &serde_json::Value, ty: &DeclType) -> Result<Value, DataError> {
    convert(json, ty, 0)
}

/// Go's `%T` of a value decoded from JSON, as Kubernetes' messages show it.
fn go_type(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "<nil>",
        serde_json::Value::Bool(_) => "bool",
        serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => "int64",
        serde_json::Value::Number(_) => "float64",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "[]interface {}",
        serde_json::Value::Object(_) => "map[string]interface {}",
    }
}

fn convert(json: &serde_json::Value, ty: &DeclType, depth: usize) -> Result<Value, DataError> {
    use serde_json::Value as J;
    if depth > MAX_DATA_DEPTH {
        return Err(DataError::TooDeep);
    }
    if json.is_null() {
        return if ty.nullable {
            Ok(Value::Null)
        } else {
            Err(DataError::Null)
        };
    }
    match &ty.kind {
        DeclKind::Object {
            fields,
            untyped,
            preserve_unknown,
            ..
        } => {
            let J::Object(obj) = json else {
                return Err(DataError::ExpectedMap);
            };
            let mut map = Map::with_capacity(obj.len());
            for (escaped, field) in fields {
                match obj.get(&field.property) {
                    None | Some(J::Null) => {}
                    Some(v) => {
                        let v = convert(v, &field.ty, depth + 1)?;
                        // Since Kubernetes 1.31 a reserved word may also be selected
                        // unescaped (`self.namespace`) where the parser allows it.
                        if is_reserved(&field.property) {
                            map.insert(Key::from(field.property.as_str()), v.clone());
                        }
                        map.insert(Key::from(escaped.as_str()), v);
                    }
                }
            }
            // Untyped properties as plain data: compared, never selected.
            for property in untyped {
                if let Some(v) = obj.get(property).filter(|v| !v.is_null()) {
                    map.insert(Key::from(property.as_str()), Value::from(v));
                }
            }
            if *preserve_unknown {
                for (k, v) in obj {
                    if !fields.values().any(|f| &f.property == k) && !untyped.contains(k) {
                        map.insert(Key::from(k.as_str()), Value::from(v));
                    }
                }
            }
            Ok(Value::Map(Arc::new(map)))
        }
        DeclKind::Map { value } => {
            let J::Object(obj) = json else {
                return Err(DataError::ExpectedMap);
            };
            let mut map = Map::with_capacity(obj.len());
            for (k, v) in obj {
                map.insert(Key::from(k.as_str()), convert(v, value, depth + 1)?);
            }
            Ok(Value::Map(Arc::new(map)))
        }
        DeclKind::List { elem, list } => {
            let J::Array(items) = json else {
                return Err(DataError::ExpectedArray);
            };
            let items = items
                .iter()
                .map(|v| convert(v, elem, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Value::List(Arc::new(match list {
                ListKind::Atomic => List::from(items),
                ListKind::Set => List::with_semantics(items, Arc::new(SetList)),
                ListKind::Map(keys) => {
                    List::with_semantics(items, Arc::new(MapList { keys: keys.clone() }))
                }
            })))
        }
        DeclKind::Scalar => scalar(json, &ty.cel),
    }
}

fn scalar(json: &serde_json::Value, ty: &Type) -> Result<Value, DataError> {
    use serde_json::Value as J;
    let expected = |expected: &'static str| DataError::Expected {
        expected,
        found: go_type(json),
    };
    match ty {
        Type::Dyn => match json {
            J::String(s) => Ok(Value::string(s.as_str())),
            J::Number(n) if n.is_i64() => Ok(Value::Int(n.as_i64().unwrap_or_default())),
            _ => Err(DataError::ExpectedIntOrString),
        },
        Type::Bool => json
            .as_bool()
            .map(Value::Bool)
            .ok_or_else(|| expected("bool")),
        Type::Int => match json {
            J::Number(n) if n.is_i64() => Ok(Value::Int(n.as_i64().unwrap_or_default())),
            _ => Err(expected("int")),
        },
        Type::Double => match json {
            J::Number(n) => n
                .as_f64()
                .map(Value::Double)
                .ok_or_else(|| expected("float")),
            _ => Err(expected("float")),
        },
        Type::String => match json {
            J::String(s) => Ok(Value::string(s.as_str())),
            _ => Err(expected("string")),
        },
        Type::Bytes => {
            let J::String(s) = json else {
                return Err(expected("string"));
            };
            base64::engine::general_purpose::STANDARD
                .decode(s)
                .map(|b| Value::Bytes(b.into()))
                .map_err(|e| DataError::Base64(e.to_string()))
        }
        Type::Duration => {
            let J::String(s) = json else {
                return Err(expected("string"));
            };
            duration_text::parse(s)
                .map(|n| Value::Duration(duration_text::from_nanos(n)))
                .map_err(|reason| DataError::Duration {
                    text: s.to_string(),
                    reason,
                })
        }
        Type::Timestamp => {
            let J::String(s) = json else {
                return Err(expected("string"));
            };
            parse_date_or_time(s)
                .map(Value::Timestamp)
                .ok_or_else(|| DataError::Date(s.to_string()))
        }
        other => Err(DataError::UnsupportedType(other.clone())),
    }
}

/// An RFC 3339 date-time, keeping its offset as Kubernetes' `strfmt.ParseDateTime` does
/// (`time.ParseInLocation` keeps a fixed zone, so `string(self.ts)` shows the offset written),
/// or a full date (`2024-01-31`) at midnight UTC.
fn parse_date_or_time(s: &str) -> Option<kcel::Timestamp> {
    if let Some(t) = timestamp_text::parse_rfc3339(s) {
        return Some(t);
    }
    let date = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()?;
    Some(date.and_hms_opt(0, 0, 0)?.and_utc().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubernetes::crd::decl_types::SchemaTypes;
    use crate::kubernetes::crd::schema::Schema;
    use serde_json::json;

    fn convert(schema: serde_json::Value, data: serde_json::Value) -> Result<Value, String> {
        let s = Schema::from_json(&schema).unwrap();
        let (_, root) = SchemaTypes::build(&s, "selfType", false).unwrap();
        to_value(&data, &root.unwrap()).map_err(|e| e.to_string())
    }

    #[test]
    fn converts_formats_and_escapes_fields() {
        let v = convert(
            json!({"type": "object", "properties": {
                "b": {"type": "string", "format": "byte"},
                "d": {"type": "string", "format": "duration"},
                "day": {"type": "string", "format": "date"},
                "n": {"type": "number"},
                "a-b": {"type": "integer"},
                "gone": {"type": "string"}
            }}),
            json!({"b": "aGk=", "d": "1h2m", "day": "2024-01-31", "n": 3, "a-b": 1, "gone": null}),
        )
        .unwrap();
        let Value::Map(m) = v else { panic!() };
        assert_eq!(m.get_str("b"), Some(&Value::Bytes(b"hi".to_vec().into())));
        assert_eq!(
            m.get_str("d"),
            Some(&Value::Duration(chrono::TimeDelta::seconds(3720)))
        );
        assert_eq!(m.get_str("n").map(|v| v.type_name()), Some("double"));
        assert_eq!(m.get_str("a__dash__b"), Some(&Value::Int(1)));
        assert!(m.get_str("gone").is_none());
        assert!(m.get_str("day").is_some());
    }

    #[test]
    fn wrong_shapes_have_kubernetes_texts() {
        let obj = json!({"type": "object", "properties": {"x": {"type": "string"}}});
        assert_eq!(
            convert(obj, json!([1])).unwrap_err(),
            "invalid data, expected a map for the provided schema with type=object"
        );
        let list = json!({"type": "array", "items": {"type": "string"}});
        assert_eq!(
            convert(list.clone(), json!({})).unwrap_err(),
            "invalid data, expected an array for the provided schema with type=array"
        );
        assert_eq!(
            convert(list, json!([null])).unwrap_err(),
            "invalid data, got null for schema with nullable=false"
        );
        let nullable = json!({"type": "array", "items": {"type": "string", "nullable": true}});
        assert_eq!(
            convert(nullable, json!([null])).unwrap(),
            Value::list(vec![Value::Null])
        );
        assert_eq!(
            convert(json!({"x-kubernetes-int-or-string": true}), json!(1.5)).unwrap_err(),
            "invalid data, expected XIntOrString value to be either a string or integer"
        );
        assert_eq!(
            convert(json!({"type": "integer"}), json!("1")).unwrap_err(),
            "invalid data, expected int, got string"
        );
    }
}
