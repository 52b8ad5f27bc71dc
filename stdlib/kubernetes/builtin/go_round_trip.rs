//! A built-in object as kube-apiserver stores and answers it: decoded into the kind's Go
//! structs and encoded again with encoding/json, so that what the JSON tags and Go types say
//! is applied to it.
//!
//! - A field tagged `omitempty` whose decoded value is Go's zero (`""`, `0`, `false`, a nil
//!   pointer, an empty or nil slice or map) is left out — a ConfigMap's `"data": {}`, an
//!   object's `"finalizers": []`. A struct (not a pointer to one) is never left out by
//!   `omitempty`: a Service's `status` is always there.
//! - A field without `omitempty` is always written: a nil slice, map or pointer as `null`
//!   (a Role without `rules` answers `"rules": null`), a string as `""`, a number as `0`, a
//!   bool as `false`, a struct as its fields are encoded.
//! - `omitzero` leaves out a value whose `IsZero` (or Go's zero test) holds: since 1.34
//!   `metav1.ObjectMeta.CreationTimestamp` (so a pod template's `creationTimestamp: null` is
//!   gone).
//! - The types with their own `MarshalJSON` encode their zero value themselves
//!   ([`Custom::zero`]) and write a value in their own form, what their `UnmarshalJSON`
//!   then `MarshalJSON` make of it ([`Custom::reencode`]): a `resource.Quantity` in
//!   canonical form (`1000m` is `"1"`, `1.5Gi` `"1536Mi"`, the number `2` `"2"`), a
//!   `metav1.Time` in UTC at whole seconds (`null` for the zero time), a `MicroTime` in UTC
//!   with six digits of fraction, a `metav1.Duration` as Go's `Duration.String` (`90s` is
//!   `1m30s`). `IntOrString` and the raw JSON holders write back what they read; the
//!   apiextensions schema wrappers encode the `JSONSchemaProps` they hold as a struct.
//! - A `[]byte` is written as standard padded base64 of the bytes the lenient decoding gave
//!   (line breaks gone, stray trailing bits cleared); a float64 as encoding/json writes it
//!   (`1.0` is `1`).
//!
//! The facts come from `go_fields.json`, which `go_fields.py` (beside this file) writes from
//! the Go sources of Kubernetes 1.37's k8s.io/api, k8s.io/apimachinery and
//! k8s.io/apiextensions-apiserver: per struct (by OpenAPI schema name) and JSON field name,
//! its tag options and Go kind. The walk follows the kind's vendored OpenAPI schema
//! (references, array items, map values); fields the table does not know (another version's,
//! or ones the decoder drops as unknown) are left as they are. A value of the wrong JSON type,
//! or one its type's decoder refuses, is left as it is too: the typed decoding rejects it
//! before this runs.
//!
//! The API server's write path and the mutating admission's defaulting call this; the
//! browser modules run neither, so they do not link the table.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{Map, Value as Json};

use kcel::library::standard::duration_text;

use super::catalogue::schemas;
use super::typed_decoding::OpenApiSchema;
use crate::documents::{MAX_DEPTH, with_deep_stack};
use crate::ext::encoders;
use crate::kubernetes::crd::go_json_float;
use crate::kubernetes::go_time::{self, Instant};
use crate::kubernetes::quantity;

/// The vendored table (see `go_fields.py`).
const GO_FIELDS: &str = include_str!("go_fields.json");

/// The Go kind of a field, as far as its zero value and encoding depend on it.
#[derive(Clone, Debug, PartialEq)]
enum Kind {
    String,
    Integer,
    Float,
    Bool,
    /// `[]byte`: a base64 string, `null` when nil.
    Bytes,
    /// `interface{}`.
    Interface,
    Pointer(Box<Kind>),
    Slice(Box<Kind>),
    Map(Box<Kind>),
    /// A struct without its own marshaller; its fields are its schema's table entry.
    Struct,
    Custom(Custom),
}

/// The types with their own `MarshalJSON` that served fields have.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Custom {
    Time,
    MicroTime,
    Duration,
    FieldsV1,
    Quantity,
    IntOrString,
    RawExtension,
    Json,
    PropsOrBool,
    PropsOrArray,
    PropsOrStringArray,
}

impl Custom {
    fn named(name: &str) -> Option<Custom> {
        Some(match name {
            "Time" => Custom::Time,
            "MicroTime" => Custom::MicroTime,
            "Duration" => Custom::Duration,
            "FieldsV1" => Custom::FieldsV1,
            "Quantity" => Custom::Quantity,
            "IntOrString" => Custom::IntOrString,
            "RawExtension" => Custom::RawExtension,
            "JSON" => Custom::Json,
            "JSONSchemaPropsOrBool" => Custom::PropsOrBool,
            "JSONSchemaPropsOrArray" => Custom::PropsOrArray,
            "JSONSchemaPropsOrStringArray" => Custom::PropsOrStringArray,
            _ => return None,
        })
    }

    /// What the type's `MarshalJSON` writes for its zero value.
    fn zero(self) -> Json {
        match self {
            // metav1 `Time.MarshalJSON`, `MicroTime.MarshalJSON`: `null` when `IsZero`.
            Custom::Time | Custom::MicroTime => Json::Null,
            // metav1 `Duration.MarshalJSON`: `time.Duration(0).String()`.
            Custom::Duration => Json::from("0s"),
            // metav1 `FieldsV1.MarshalJSON`: `null` without raw bytes.
            Custom::FieldsV1 => Json::Null,
            // resource `Quantity.MarshalJSON`: the canonical form of zero.
            Custom::Quantity => Json::from("0"),
            // intstr `IntOrString.MarshalJSON`: the zero value is of type Int, value 0.
            Custom::IntOrString => Json::from(0),
            // runtime `RawExtension.MarshalJSON`: `null` without raw bytes or an object.
            Custom::RawExtension => Json::Null,
            // apiextensions v1 `JSON.MarshalJSON`: `null` without raw bytes.
            Custom::Json => Json::Null,
            // apiextensions v1 `JSONSchemaPropsOrBool.MarshalJSON`: no schema and `Allows`
            // false is `false`.
            Custom::PropsOrBool => Json::Bool(false),
            // `JSONSchemaPropsOrArray.MarshalJSON`: no schemas, the nil `Schema` marshalled;
            // `JSONSchemaPropsOrStringArray.MarshalJSON`: `null` without either.
            Custom::PropsOrArray | Custom::PropsOrStringArray => Json::Null,
        }
    }

    /// What the type's `MarshalJSON` writes for `value` (not `null`) as its `UnmarshalJSON`
    /// decoded it; `None` where that is `value` itself, or where the decoder refuses it
    /// (typed decoding answers that first).
    fn reencode(self, value: &Json) -> Option<Json> {
        match (self, value) {
            // resource `Quantity.MarshalJSON`: the text `ParseQuantity` kept, else the
            // canonical form (`String()`).
            (Custom::Quantity, _) => quantity::from_go_json(value)
                .ok()
                .map(|q| Json::from(q.canonical_string())),
            // metav1 `Time.MarshalJSON`: `t.UTC().Format(time.RFC3339)`.
            (Custom::Time, Json::String(s)) => {
                time_json(go_time::parse_rfc3339(s).ok()?, Instant::rfc3339_utc)
            }
            // metav1 `MicroTime.MarshalJSON`: `t.UTC().Format(RFC3339Micro)`.
            (Custom::MicroTime, Json::String(s)) => time_json(
                go_time::parse_rfc3339_micro(s).ok()?,
                Instant::rfc3339_micro_utc,
            ),
            // metav1 `Duration`: `time.ParseDuration`, then `Duration.String()`.
            (Custom::Duration, Json::String(s)) => {
                let nanos = duration_text::parse(s).ok()?;
                Some(Json::from(duration_text::go_string(nanos)))
            }
            // `IntOrString` writes the string or int32 it read; `FieldsV1`, `RawExtension`
            // and `JSON` the raw JSON they hold.
            _ => None,
        }
    }

    /// Whether the value holds a `JSONSchemaProps` that is encoded as a struct.
    fn holds_schemas(self) -> bool {
        matches!(
            self,
            Custom::PropsOrBool | Custom::PropsOrArray | Custom::PropsOrStringArray
        )
    }
}

/// One field of a struct: its tag options and kind.
#[derive(Debug)]
struct Field {
    name: String,
    omitempty: bool,
    omitzero: bool,
    kind: Kind,
}

/// The table: struct schema name to its fields, in the Go struct's order.
type Table = HashMap<String, Vec<Field>>;

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| parse_table(GO_FIELDS).unwrap_or_default())
}

/// Reads the vendored table; `None` for a table not in `go_fields.py`'s form.
fn parse_table(text: &str) -> Option<Table> {
    let json: Json = serde_json::from_str(text).ok()?;
    let mut out = Table::new();
    for (schema, fields) in json.get("types")?.as_object()? {
        let fields = fields.as_str()?;
        let parsed = fields
            .split(',')
            .filter(|f| !f.is_empty())
            .map(parse_field)
            .collect::<Option<Vec<_>>>()?;
        out.insert(schema.clone(), parsed);
    }
    Some(out)
}

/// `name?~KIND`, `name?KIND`, `name~KIND` or `name=KIND`.
fn parse_field(text: &str) -> Option<Field> {
    let at = text.find(['?', '~', '='])?;
    let (name, rest) = text.split_at(at);
    let omitempty = rest.starts_with('?');
    let rest = rest.strip_prefix(['?', '=']).unwrap_or(rest);
    let omitzero = rest.starts_with('~');
    let rest = rest.strip_prefix('~').unwrap_or(rest);
    let (kind, tail) = parse_kind(rest)?;
    tail.is_empty().then(|| Field {
        name: name.to_owned(),
        omitempty,
        omitzero,
        kind,
    })
}

fn parse_kind(text: &str) -> Option<(Kind, &str)> {
    let mut chars = text.chars();
    let first = chars.next()?;
    let rest = chars.as_str();
    let boxed = |rest| parse_kind(rest).map(|(k, tail)| (Box::new(k), tail));
    Some(match first {
        's' => (Kind::String, rest),
        'i' => (Kind::Integer, rest),
        'f' => (Kind::Float, rest),
        'b' => (Kind::Bool, rest),
        'y' => (Kind::Bytes, rest),
        'a' => (Kind::Interface, rest),
        '{' => (Kind::Struct, rest),
        '*' => boxed(rest).map(|(k, t)| (Kind::Pointer(k), t))?,
        '[' => boxed(rest).map(|(k, t)| (Kind::Slice(k), t))?,
        'm' => boxed(rest).map(|(k, t)| (Kind::Map(k), t))?,
        '!' => (Kind::Custom(Custom::named(rest)?), ""),
        _ => return None,
    })
}

/// Applies kube-apiserver's typed round trip to `object`, an object of the struct whose
/// OpenAPI schema is `schema_name` in the vendored catalogue (`io.k8s.api.core.v1.ConfigMap`).
/// Answers whether the table knows that struct (else `object` is left as it is, as is a
/// value that is not a JSON object).
pub fn go_round_trip(schema_name: &str, object: &mut Json) -> bool {
    match object {
        Json::Object(map) => go_round_trip_fields(schema_name, map),
        _ => table().contains_key(schema_name),
    }
}

/// [`go_round_trip`] of an object's fields.
pub(super) fn go_round_trip_fields(schema_name: &str, object: &mut Map<String, Json>) -> bool {
    let (Some(schema), true) = (
        OpenApiSchema::named(schemas(), schema_name),
        table().contains_key(schema_name),
    ) else {
        return false;
    };
    with_deep_stack(|| Walk { table: table() }.fields(schema, schema_name, object, 0));
    true
}

struct Walk<'t> {
    table: &'t Table,
}

impl Walk<'_> {
    /// `value`, decoded as `kind` (not `null`: that is the zero value, see [`Walk::zero`]),
    /// encoded again.
    fn value(&self, schema: OpenApiSchema<'static>, kind: &Kind, value: &mut Json, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match kind {
            Kind::Pointer(inner) => self.value(schema, inner, value, depth),
            Kind::Struct => {
                if let (Json::Object(map), Some(name)) = (value, schema.ref_name()) {
                    self.fields(schema, name, map, depth);
                }
            }
            Kind::Slice(inner) => {
                if let (Json::Array(items), Some(items_schema)) = (value, schema.items()) {
                    for item in items {
                        self.element(items_schema, inner, item, depth + 1);
                    }
                }
            }
            Kind::Map(inner) => {
                if let (Json::Object(map), Some(values)) = (value, schema.additional_properties()) {
                    for item in map.values_mut() {
                        self.element(values, inner, item, depth + 1);
                    }
                }
            }
            Kind::Custom(custom) if custom.holds_schemas() => {
                self.schema_wrapper(schema, value, depth);
            }
            Kind::Custom(custom) => {
                if let Some(encoded) = custom.reencode(value) {
                    *value = encoded;
                }
            }
            Kind::Bytes => reencode_bytes(value),
            Kind::Float => reencode_float(value),
            _ => {}
        }
    }

    /// An element of a slice or a value of a map: `null` decodes to the element type's zero.
    fn element(&self, schema: OpenApiSchema<'static>, kind: &Kind, item: &mut Json, depth: usize) {
        if item.is_null() {
            *item = self.zero(schema, kind, depth);
        } else {
            self.value(schema, kind, item, depth);
        }
    }

    /// The fields of the struct `name` (the table's entry) in `map`.
    fn fields(
        &self,
        schema: OpenApiSchema<'static>,
        name: &str,
        map: &mut Map<String, Json>,
        depth: usize,
    ) {
        let Some(fields) = self.table.get(name) else {
            return;
        };
        for field in fields {
            let field_schema = schema.property(&field.name);
            let present = map.get_mut(&field.name).filter(|v| !v.is_null());
            let keep = match present {
                Some(value) => {
                    if let Some(s) = field_schema {
                        self.value(s, &field.kind, value, depth + 1);
                    }
                    !(field.omitempty && is_empty(&field.kind, value)
                        || field.omitzero && is_zero(&field.kind, value))
                }
                // Absent or `null`: the Go zero value.
                None => {
                    if field.omitempty && droppable(&field.kind) || field.omitzero {
                        false
                    } else {
                        let zero = match field_schema {
                            Some(s) => self.zero(s, &field.kind, depth + 1),
                            None if field.kind == Kind::Struct => Json::Object(Map::new()),
                            None => plain_zero(&field.kind),
                        };
                        map.insert(field.name.clone(), zero);
                        true
                    }
                }
            };
            if !keep {
                map.remove(&field.name);
            }
        }
    }

    /// The encoding of `kind`'s zero value.
    fn zero(&self, schema: OpenApiSchema<'static>, kind: &Kind, depth: usize) -> Json {
        match kind {
            Kind::Struct => {
                let mut map = Map::new();
                if depth <= MAX_DEPTH
                    && let Some(name) = schema.ref_name()
                {
                    self.fields(schema, name, &mut map, depth);
                }
                Json::Object(map)
            }
            other => plain_zero(other),
        }
    }

    /// A `JSONSchemaPropsOrBool`/`OrArray`/`OrStringArray`: the schema (or each schema of an
    /// array) it holds is encoded as the `JSONSchemaProps` struct.
    fn schema_wrapper(&self, schema: OpenApiSchema<'static>, value: &mut Json, depth: usize) {
        let Some(name) = schema
            .ref_name()
            .and_then(|n| n.rsplit_once('.'))
            .map(|(package, _)| format!("{package}.JSONSchemaProps"))
        else {
            return;
        };
        let Some(props) = OpenApiSchema::named(schemas(), &name) else {
            return;
        };
        let mut walk = |item: &mut Json| {
            if let Json::Object(map) = item {
                self.fields(props, &name, map, depth + 1);
            }
        };
        match value {
            Json::Array(items) => items.iter_mut().for_each(&mut walk),
            other => walk(other),
        }
    }
}

/// The zero value of a kind that is not a struct: `""`, `0`, `false`, `null` for nil.
fn plain_zero(kind: &Kind) -> Json {
    match kind {
        Kind::String => Json::from(""),
        Kind::Integer | Kind::Float => Json::from(0),
        Kind::Bool => Json::Bool(false),
        Kind::Custom(custom) => custom.zero(),
        Kind::Struct => Json::Object(Map::new()),
        Kind::Bytes | Kind::Interface | Kind::Pointer(_) | Kind::Slice(_) | Kind::Map(_) => {
            Json::Null
        }
    }
}

/// Whether `omitempty` leaves out a kind's zero value: every kind but a struct (with or
/// without its own marshaller: encoding/json's `isEmptyValue` never holds for one).
fn droppable(kind: &Kind) -> bool {
    !matches!(kind, Kind::Struct | Kind::Custom(_))
}

/// encoding/json's `isEmptyValue` of a decoded (non-`null`) value: an empty string, slice or
/// map, `false`, zero; never a pointer, interface or struct.
fn is_empty(kind: &Kind, value: &Json) -> bool {
    match (kind, value) {
        (Kind::String | Kind::Bytes, Json::String(s)) => s.is_empty(),
        (Kind::Integer | Kind::Float, Json::Number(n)) => n.as_f64() == Some(0.0),
        (Kind::Bool, Json::Bool(b)) => !b,
        (Kind::Slice(_), Json::Array(a)) => a.is_empty(),
        (Kind::Map(_), Json::Object(m)) => m.is_empty(),
        _ => false,
    }
}

/// `omitzero`'s test of a decoded (non-`null`) value, given as [`Walk::value`] encoded it:
/// the type's `IsZero` (metav1 `Time` and `MicroTime`: the zero instant, which their
/// `MarshalJSON` writes as `null`), else Go's zero value of a string, number or bool. A
/// non-nil slice, map or pointer is not zero.
fn is_zero(kind: &Kind, value: &Json) -> bool {
    match (kind, value) {
        (Kind::Custom(Custom::Time | Custom::MicroTime), _) => value.is_null(),
        (Kind::String | Kind::Integer | Kind::Float | Kind::Bool, _) => is_empty(kind, value),
        _ => false,
    }
}

/// A metav1 `Time` or `MicroTime` as its `MarshalJSON` writes it: `null` when `IsZero`,
/// else `format`'s text.
fn time_json(instant: Instant, format: fn(Instant) -> Option<String>) -> Option<Json> {
    if instant.is_zero() {
        return Some(Json::Null);
    }
    format(instant).map(Json::from)
}

/// A `[]byte` as encoding/json writes what it decoded: the string read with
/// `base64.StdEncoding` (line breaks skipped, non-zero trailing bits accepted), written
/// again with it. Text the decoder refuses is left as it is.
fn reencode_bytes(value: &mut Json) {
    if let Json::String(text) = value
        && let Ok(bytes) = encoders::decode_std(text)
    {
        *text = encoders::encode_std(&bytes);
    }
}

/// A float64 as encoding/json writes what it decoded: the nearest float64, in Go's format
/// ([`go_json_float`]: `1.0` is `1`, an integer beyond 2^53 is rounded), kept as the JSON
/// number that text is.
fn reencode_float(value: &mut Json) {
    if let Json::Number(n) = value
        && let Some(f) = n.as_f64()
        && let Ok(number) = go_json_float(f).parse()
    {
        *n = number;
    }
}

#[cfg(test)]
#[path = "go_round_trip_tests.rs"]
mod tests;
