//! JSON data bound to a schema, as CEL values.
//!
//! Rules read a document lazily, as Kubernetes' unstructured values (apiserver
//! `pkg/cel/common/values.go`, `UnstructuredToVal`) do: [`view`] checks only the shape of
//! the node it is given; an object's fields convert when a rule selects them (an
//! [`kcel::Opaque`] standing for the map, [`LazyObject`]), so data a rule does not read is
//! never converted and is an error only when read. [`to_value`] converts a node whole (for
//! equality and functions that need the whole value). Objects read as maps keyed by escaped
//! field names; set and map lists carry their semantics ([`kcel::List::semantics`]).

use std::sync::Arc;

use base64::Engine;

use super::decl_types::{DeclKind, DeclType, ListKind};
use super::escaping::is_reserved;
use super::list_types::{AtomicList, MapList, SetList};
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

/// One step from a document's root towards a node.
#[derive(Debug)]
enum Step {
    Property(String),
    Index(usize),
}

/// The steps from a document's root to a node (shared by the nodes below it).
#[derive(Debug)]
struct Path {
    parent: Option<Arc<Path>>,
    step: Step,
}

/// A node of a shared, immutable JSON document: the document and the steps to the node.
#[derive(Clone, Debug)]
pub struct Doc {
    root: Arc<serde_json::Value>,
    path: Option<Arc<Path>>,
}

impl Doc {
    /// The root of `root`.
    pub fn new(root: Arc<serde_json::Value>) -> Doc {
        Doc { root, path: None }
    }

    /// The JSON this node points at.
    pub fn get(&self) -> &serde_json::Value {
        fn resolve<'a>(root: &'a serde_json::Value, path: Option<&Path>) -> &'a serde_json::Value {
            let Some(p) = path else { return root };
            let parent = resolve(root, p.parent.as_deref());
            match &p.step {
                Step::Property(k) => &parent[k.as_str()],
                Step::Index(i) => &parent[*i],
            }
        }
        resolve(&self.root, self.path.as_deref())
    }

    /// The node of property `k` of this object.
    pub fn property(&self, k: &str) -> Doc {
        self.child(Step::Property(k.to_owned()))
    }

    /// The node of item `i` of this array.
    pub fn index(&self, i: usize) -> Doc {
        self.child(Step::Index(i))
    }

    fn child(&self, step: Step) -> Doc {
        Doc {
            root: self.root.clone(),
            path: Some(Arc::new(Path {
                parent: self.path.clone(),
                step,
            })),
        }
    }
}

/// The value of the node `doc` under `ty`, read lazily: the node's shape is checked
/// (`null` against `nullable`, a map for `type: object`, an array for `type: array`) and
/// scalars are converted; an object's fields convert when they are selected; the values of
/// maps (`additionalProperties`) and the items of lists are read the same way, objects among
/// them lazily.
pub fn view(doc: &Doc, ty: &Arc<DeclType>) -> Result<Value, DataError> {
    lazy(doc.get(), ty, &|| doc.clone())
}

fn lazy(
    json: &serde_json::Value,
    ty: &Arc<DeclType>,
    doc: &dyn Fn() -> Doc,
) -> Result<Value, DataError> {
    use serde_json::Value as J;
    if json.is_null() {
        return if ty.nullable {
            Ok(Value::Null)
        } else {
            Err(DataError::Null)
        };
    }
    match &ty.kind {
        DeclKind::Object { .. } => {
            if !json.is_object() {
                return Err(DataError::ExpectedMap);
            }
            Ok(Value::Opaque(Arc::new(LazyObject {
                doc: doc(),
                ty: ty.clone(),
            })))
        }
        DeclKind::Map { value } => {
            let J::Object(obj) = json else {
                return Err(DataError::ExpectedMap);
            };
            let mut map = Map::with_capacity(obj.len());
            let doc = needs_doc(value).then(doc);
            for (k, v) in obj {
                let at = || doc.as_ref().map_or_else(placeholder, |d| d.property(k));
                map.insert(Key::from(k.as_str()), lazy(v, value, &at)?);
            }
            Ok(Value::Map(Arc::new(map)))
        }
        DeclKind::List { elem, list } => {
            let J::Array(items) = json else {
                return Err(DataError::ExpectedArray);
            };
            let doc = needs_doc(elem).then(doc);
            let items = items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    lazy(v, elem, &|| {
                        doc.as_ref().map_or_else(placeholder, |d| d.index(i))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Value::List(Arc::new(match list {
                ListKind::Atomic => List::with_semantics(items, Arc::new(AtomicList)),
                ListKind::Set => List::with_semantics(items, Arc::new(SetList)),
                ListKind::Map(keys) => {
                    List::with_semantics(items, Arc::new(MapList { keys: keys.clone() }))
                }
            })))
        }
        DeclKind::Scalar => scalar(json, &ty.cel),
    }
}

/// Whether values of `ty` may hold a lazily read object (and so need their place in the
/// document).
fn needs_doc(ty: &DeclType) -> bool {
    match &ty.kind {
        DeclKind::Object { .. } => true,
        DeclKind::Map { value } => needs_doc(value),
        DeclKind::List { elem, .. } => needs_doc(elem),
        DeclKind::Scalar => false,
    }
}

/// Never used: only types without objects below ask for no place (see [`needs_doc`]).
fn placeholder() -> Doc {
    Doc::new(Arc::new(serde_json::Value::Null))
}

/// An object read lazily (Kubernetes' `unstructuredMap`): its fields convert as they are
/// selected; it reads as a map (`type()` is `map`); equality and functions that need it
/// whole see it converted whole ([`to_value`]).
#[derive(Debug)]
pub struct LazyObject {
    doc: Doc,
    ty: Arc<DeclType>,
}

impl LazyObject {
    /// The object converted whole.
    pub fn whole(&self) -> Result<Value, DataError> {
        to_value(self.doc.get(), &self.ty)
    }

    /// The value of the field a rule names `name` (escaped, or a reserved word unescaped):
    /// `None` when the object has no such field or it is `null`.
    pub fn get(&self, name: &str) -> Option<Result<Value, DataError>> {
        use serde_json::Value as J;
        let J::Object(obj) = self.doc.get() else {
            return None;
        };
        let DeclKind::Object {
            fields,
            untyped,
            preserve_unknown,
            ..
        } = &self.ty.kind
        else {
            return None;
        };
        if let Some(f) = self.ty.field(name) {
            let v = obj.get(&f.property).filter(|v| !v.is_null())?;
            return Some(lazy(v, &f.ty, &|| self.doc.property(&f.property)));
        }
        let plain = untyped.iter().any(|p| p == name)
            || (*preserve_unknown && !fields.values().any(|f| f.property == name));
        if !plain {
            return None;
        }
        obj.get(name)
            .filter(|v| !v.is_null())
            .map(|v| Ok(Value::from(v)))
    }

    /// The number of entries the converted map has (its size for costs).
    fn entries(&self) -> u64 {
        let (
            serde_json::Value::Object(obj),
            DeclKind::Object {
                fields,
                untyped,
                preserve_unknown,
                ..
            },
        ) = (self.doc.get(), &self.ty.kind)
        else {
            return 0;
        };
        let present = |p: &str| obj.get(p).is_some_and(|v| !v.is_null());
        let mut n = 0u64;
        for f in fields.values() {
            if present(&f.property) {
                n += if is_reserved(&f.property) { 2 } else { 1 };
            }
        }
        n += untyped.iter().filter(|p| present(p)).count() as u64;
        if *preserve_unknown {
            n += obj
                .keys()
                .filter(|k| !fields.values().any(|f| f.property == **k) && !untyped.contains(*k))
                .count() as u64;
        }
        n
    }
}

impl kcel::Opaque for LazyObject {
    fn type_name(&self) -> &str {
        "map"
    }

    fn equals(&self, other: &dyn kcel::Opaque) -> bool {
        let Some(other) = other.as_any().downcast_ref::<LazyObject>() else {
            return false;
        };
        match (self.whole(), other.whole()) {
            (Ok(a), Ok(b)) => a.cel_eq(&b),
            _ => false,
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn to_display_string(&self) -> String {
        self.whole()
            .map_or_else(|e| e.to_string(), |v| v.to_string())
    }

    fn equal_to(&self, other: &Value) -> Option<bool> {
        let me = self.whole().ok()?;
        let other = match other {
            Value::Opaque(o) => match o.to_value() {
                Some(v) => v.ok()?,
                None => return Some(false),
            },
            other => other.clone(),
        };
        Some(me.cel_eq(&other))
    }

    fn field(&self, name: &str) -> Option<Result<Value, kcel::EvalError>> {
        self.get(name)
            .map(|r| r.map_err(|e| kcel::EvalError::new(e.to_string())))
    }

    fn size(&self) -> Option<u64> {
        Some(self.entries())
    }

    fn to_value(&self) -> Option<Result<Value, kcel::EvalError>> {
        Some(
            self.whole()
                .map_err(|e| kcel::EvalError::new(e.to_string())),
        )
    }
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
                ListKind::Atomic => List::with_semantics(items, Arc::new(AtomicList)),
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

    /// apiserver `pkg/cel/common/values.go`: an unstructured map converts a field when it is
    /// read (`unstructuredMap.Get`), so ill-typed data is an error only when read.
    #[test]
    fn objects_are_read_lazily() {
        let schema = json!({"type": "object", "properties": {
            "ok": {"type": "string"},
            "bad": {"type": "object", "properties": {"x": {"type": "string"}}},
            "in": {"type": "integer"},
            "list": {"type": "array", "items": {"type": "string"}},
            "gone": {"type": "string"}
        }});
        let s = Schema::from_json(&schema).unwrap();
        let (_, root) = SchemaTypes::build(&s, "selfType", false).unwrap();
        let root = root.unwrap();
        let data = json!({"ok": "yes", "bad": [1], "in": 1, "list": ["a"], "gone": null});
        let doc = Doc::new(Arc::new(data.clone()));
        let Ok(Value::Opaque(o)) = view(&doc, &root) else {
            panic!("an object reads as a lazy map")
        };
        assert_eq!(o.type_name(), "map");
        assert_eq!(o.field("ok"), Some(Ok(Value::string("yes"))));
        assert_eq!(
            o.field("bad").unwrap().unwrap_err().to_string(),
            "invalid data, expected a map for the provided schema with type=object"
        );
        assert_eq!(o.field("gone"), None);
        assert_eq!(o.field("nope"), None);
        // The reserved word `in` is selectable escaped and unescaped, and counts twice, as
        // the converted map has it under both names.
        assert_eq!(o.field("__in__"), Some(Ok(Value::Int(1))));
        assert_eq!(o.field("in"), Some(Ok(Value::Int(1))));
        assert_eq!(o.size(), Some(5));
        // Converted whole, it fails as the whole conversion does.
        assert_eq!(
            o.to_value().unwrap().unwrap_err().to_string(),
            "invalid data, expected a map for the provided schema with type=object"
        );
        // Unstructured lists: Kubernetes' index error.
        let Some(Ok(Value::List(l))) = o.field("list") else {
            panic!("a list")
        };
        assert_eq!(l.index_error(3).to_string(), "index out of bounds: 3");
    }

    #[test]
    fn lazy_objects_compare_as_their_maps() {
        let schema = json!({"type": "array", "items": {"type": "object", "properties": {
            "k": {"type": "string"}, "v": {"type": "integer"}}}});
        let s = Schema::from_json(&schema).unwrap();
        let (_, root) = SchemaTypes::build(&s, "selfType", false).unwrap();
        let root = root.unwrap();
        let doc = Doc::new(Arc::new(
            json!([{"k": "a", "v": 1}, {"k": "b"}, {"k": "a", "v": 1}]),
        ));
        let Ok(Value::List(items)) = view(&doc, &root) else {
            panic!("a list")
        };
        let (a, b, c) = (&items[0], &items[1], &items[2]);
        assert!(a.cel_eq(c) && !a.cel_eq(b));
        let whole = to_value(doc.get(), &root).unwrap();
        let Value::List(whole) = whole else { panic!() };
        assert_eq!(
            kcel::library::actual_size(a),
            kcel::library::actual_size(&whole[0])
        );
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
