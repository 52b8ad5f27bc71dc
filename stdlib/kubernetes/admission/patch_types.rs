//! The types mutation expressions build (Kubernetes' `mutation.DynamicTypeResolver`):
//! `Object` and `Object.<field>...` (an object literal of any fields, each `dyn`, for apply
//! configurations and JSON patch values) and `JSONPatch` (`op`, `path`, `from` strings and a
//! `dyn` `value`), their values, their conversion to JSON, and the `jsonpatch.escapeKey`
//! function (`library.JSONPatch`).

use std::sync::Arc;

use kcel::library::{Implementation, Library};
use kcel::{EvalError, Opaque, StructConstructor, Type, Value};

use super::json_patch::value::{PatchValue, scalar_text};
use crate::kubernetes::crd::{go_json_float, go_json_quote};

/// One `Object...` literal named otherwise than its field path from the root `Object`
/// (`ObjectVal.CheckTypeNamesMatchFieldPathNames`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unexpected type name {found:?}, expected {expected:?}, which matches field name path from root Object type"
)]
pub struct TypeNameError {
    /// The literal's type name.
    pub found: String,
    /// The name its path gives.
    pub expected: String,
}

/// The type name mismatches of one value, joined by newlines (Go's `errors.Join`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct TypeNameErrors(pub Vec<TypeNameError>);

/// Why a CEL value has no JSON form (upstream's `convertField` and `structpb` conversion).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum JsonConversionError {
    /// A double JSON cannot hold (NaN, infinities): `json: unsupported value: NaN`.
    #[error("json: unsupported value: {0}")]
    UnsupportedDouble(f64),
    /// A map key that is not a string (the key as written).
    #[error("map key {0} is not a string")]
    MapKey(String),
    /// A field of an `Object...` literal did not convert.
    #[error("fail to convert field {field:?}: {error}")]
    Field {
        /// The field's name.
        field: String,
        /// Why its value did not convert.
        error: Box<JsonConversionError>,
    },
}

/// The name of apply configuration object types (`Object`, `Object.spec`, ...).
pub const OBJECT_TYPE: &str = "Object";
/// The name of the JSON patch operation type.
pub const JSON_PATCH_TYPE: &str = "JSONPatch";

/// Whether `name` is one of the mutation types.
pub(crate) fn is_patch_type(name: &str) -> bool {
    name == JSON_PATCH_TYPE || name == OBJECT_TYPE || name.starts_with("Object.")
}

/// The type of a field of a mutation type: any field of an `Object` type is `dyn`; a
/// `JSONPatch` has `op`, `path`, `from` (strings) and `value` (`dyn`).
pub(crate) fn field_type(name: &str, field: &str) -> Option<Type> {
    if name == JSON_PATCH_TYPE {
        return match field {
            "op" | "path" | "from" => Some(Type::String),
            "value" => Some(Type::Dyn),
            _ => None,
        };
    }
    is_patch_type(name).then_some(Type::Dyn)
}

/// The constructor of struct literals of a mutation type.
pub(crate) fn constructor(name: &str) -> Option<StructConstructor> {
    if name == JSON_PATCH_TYPE {
        return Some(Arc::new(json_patch_value));
    }
    if !is_patch_type(name) {
        return None;
    }
    let name: Arc<str> = name.into();
    Some(Arc::new(move |fields: &[(Arc<str>, Value)]| {
        Ok(Value::Opaque(Arc::new(ObjectValue {
            type_name: name.clone(),
            fields: fields.to_vec(),
        })))
    }))
}

/// A value built by an `Object...{...}` literal.
#[derive(Debug, Clone)]
pub struct ObjectValue {
    /// The literal's type name (`Object.spec.template`).
    pub type_name: Arc<str>,
    /// The fields set, in written order.
    pub fields: Vec<(Arc<str>, Value)>,
}

impl Opaque for ObjectValue {
    fn type_name(&self) -> &str {
        &self.type_name
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        let Some(other) = other.as_any().downcast_ref::<ObjectValue>() else {
            return false;
        };
        self.type_name == other.type_name
            && self.fields.len() == other.fields.len()
            && self.fields.iter().all(|(k, v)| {
                other.fields.iter().any(|(ok, ov)| {
                    ok == k && kcel::library::standard::equals(v, ov) == Ok(Value::Bool(true))
                })
            })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn to_display_string(&self) -> String {
        self.type_name.to_string()
    }

    fn field(&self, name: &str) -> Option<Result<Value, EvalError>> {
        let found = self.fields.iter().rev().find(|(k, _)| &**k == name);
        found.map(|(_, v)| Ok(v.clone()))
    }
}

/// A value built by a `JSONPatch{...}` literal.
#[derive(Debug, Clone, Default)]
pub struct JsonPatchValue {
    /// `op`.
    pub op: String,
    /// `path`.
    pub path: String,
    /// `from`.
    pub from: String,
    /// `value`, if set.
    pub value: Option<Value>,
}

/// Go's `%T` of a CEL value's native form, for the `JSONPatch` field errors.
fn go_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "structpb.NullValue",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int64",
        Value::Uint(_) => "uint64",
        Value::Double(_) => "float64",
        Value::String(_) => "string",
        Value::Bytes(_) => "[]uint8",
        Value::List(_) => "[]ref.Val",
        Value::Map(_) => "map[ref.Val]ref.Val",
        Value::Timestamp(_) => "time.Time",
        Value::Duration(_) => "time.Duration",
        _ => "interface {}",
    }
}

/// `JSONPatchType.Val`: the fields, checked.
fn json_patch_value(fields: &[(Arc<str>, Value)]) -> Result<Value, EvalError> {
    let mut patch = JsonPatchValue::default();
    for (name, value) in fields {
        let text = |field: &str| match value {
            Value::String(s) => Ok(s.to_string()),
            other => Err(EvalError::new(format!(
                "unexpected type {} for JSONPatchType '{field}' field",
                go_type(other)
            ))),
        };
        match &**name {
            "op" => patch.op = text("op")?,
            "path" => patch.path = text("path")?,
            "from" => patch.from = text("from")?,
            "value" => patch.value = Some(value.clone()),
            other => {
                return Err(EvalError::new(format!(
                    "unexpected JSONPatchType field: {other}"
                )));
            }
        }
    }
    Ok(Value::Opaque(Arc::new(patch)))
}

impl Opaque for JsonPatchValue {
    fn type_name(&self) -> &str {
        JSON_PATCH_TYPE
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        let Some(other) = other.as_any().downcast_ref::<JsonPatchValue>() else {
            return false;
        };
        self.op == other.op
            && self.path == other.path
            && self.from == other.from
            && match (&self.value, &other.value) {
                (None, None) => true,
                (Some(a), Some(b)) => {
                    kcel::library::standard::equals(a, b) == Ok(Value::Bool(true))
                }
                _ => false,
            }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn to_display_string(&self) -> String {
        JSON_PATCH_TYPE.to_string()
    }

    /// Every field reads (empty when unset, as upstream's `Get`); `has()` is true when set.
    fn field(&self, name: &str) -> Option<Result<Value, EvalError>> {
        Some(Ok(match name {
            "op" => Value::from(self.op.as_str()),
            "path" => Value::from(self.path.as_str()),
            "from" => Value::from(self.from.as_str()),
            "value" => self.value.clone()?,
            _ => return None,
        }))
        .filter(|v| !matches!(v, Ok(Value::String(s)) if s.is_empty()))
    }
}

/// The `jsonpatch` library: `jsonpatch.escapeKey(string) -> string` escapes `~` and `/` of
/// a key for use in a JSON patch path (`~0`, `~1`).
pub fn library() -> Library {
    let mut lib = Library::new("kubernetes.jsonpatch", 0);
    lib.function(
        "jsonpatch.escapeKey",
        "Escapes a string for use as a JSON patch path key (`~` as `~0`, `/` as `~1`).",
    )
    .global(
        "string_jsonpatch_escapeKey_string",
        &["string"],
        "string",
        Implementation::Unary(escape_key),
    )
    .examples(&["jsonpatch.escapeKey('k8s.io/my~label') == 'k8s.io~1my~0label'"]);
    lib
}

fn escape_key(v: &Value) -> Result<Value, EvalError> {
    match v {
        Value::String(s) => Ok(Value::from(s.replace('~', "~0").replace('/', "~1"))),
        _ => Err(EvalError::no_matching_overload("jsonpatch.escapeKey")),
    }
}

/// A CEL value as JSON for a patch (upstream's `convertField` and `structpb` conversion):
/// objects as maps, lists as arrays, map keys must be strings.
pub fn to_json(value: &Value) -> Result<serde_json::Value, JsonConversionError> {
    use serde_json::Value as Json;
    Ok(match value {
        Value::Null | Value::Optional(None) => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::Uint(u) => Json::from(*u),
        Value::Double(d) => serde_json::Number::from_f64(*d)
            .map(Json::Number)
            .ok_or(JsonConversionError::UnsupportedDouble(*d))?,
        Value::String(s) => Json::String(s.to_string()),
        Value::List(items) => Json::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        Value::Map(m) => {
            let mut out = serde_json::Map::new();
            for (k, v) in m.iter() {
                let kcel::Key::String(key) = k else {
                    return Err(JsonConversionError::MapKey(format!("{k:?}")));
                };
                out.insert(key.to_string(), to_json(v)?);
            }
            Json::Object(out)
        }
        Value::Opaque(o) => {
            if let Some(object) = o.as_any().downcast_ref::<ObjectValue>() {
                let mut out = serde_json::Map::new();
                for (k, v) in &object.fields {
                    let converted = to_json(v).map_err(|e| JsonConversionError::Field {
                        field: k.to_string(),
                        error: Box::new(e),
                    })?;
                    out.insert(k.to_string(), converted);
                }
                Json::Object(out)
            } else {
                Json::String(o.to_display_string())
            }
        }
        Value::Optional(Some(v)) => to_json(v)?,
        other => other.to_natural_json(),
    })
}

/// The largest integer cel-go converts to a JSON number (`maxIntJSON`, 2^53 − 1).
const MAX_INT_JSON: u64 = (1 << 53) - 1;

/// A JSON patch operation's value as kube-apiserver's JSON patcher hands it to
/// evanphx/json-patch (`policy/mutating/patch/json_patch.go`, `evaluatePatchExpression`:
/// `ConvertToNative` to a `structpb.Value`, then `json.Marshal`, which runs protojson and
/// compacts its output with encoding/json's HTML escaping): its text, which `add` and
/// `replace` put and `test` compares. A value without a JSON form fails as [`to_json`]
/// words it.
pub fn patch_value(value: &Value) -> Result<PatchValue, JsonConversionError> {
    to_json(value)?;
    let mut text = String::new();
    patch_text(value, false, &mut text)?;
    Ok(PatchValue::Text(text.into_bytes()))
}

/// The text of `value` in a JSON patch (see [`patch_value`]): an int or uint within
/// ±(2^53 − 1) is a number, beyond it a decimal string (cel-go's conversion to
/// `structpb.Value`), except inside an `Object...` literal, whose fields reach
/// `structpb.NewStruct` as Go values, every integer a float64; doubles as Go writes a
/// float64 (`1` for `1.0`); strings as encoding/json quotes them; `null` is `null`.
fn patch_text(value: &Value, in_object: bool, out: &mut String) -> Result<(), JsonConversionError> {
    match value {
        Value::Int(i) if in_object || i.unsigned_abs() <= MAX_INT_JSON => {
            out.push_str(&go_json_float(*i as f64));
        }
        Value::Uint(u) if in_object || *u <= MAX_INT_JSON => {
            out.push_str(&go_json_float(*u as f64))
        }
        Value::Int(i) => out.push_str(&go_json_quote(&i.to_string())),
        Value::Uint(u) => out.push_str(&go_json_quote(&u.to_string())),
        Value::Double(d) => out.push_str(&go_json_float(*d)),
        Value::String(s) => out.push_str(&go_json_quote(s)),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                patch_text(item, in_object, out)?;
            }
            out.push(']');
        }
        Value::Map(m) => {
            let members = m.iter().map(|(k, v)| match k {
                kcel::Key::String(key) => Ok((key.as_ref(), v)),
                other => Err(JsonConversionError::MapKey(format!("{other:?}"))),
            });
            members_text(members, in_object, out)?;
        }
        Value::Opaque(o) if o.as_any().is::<ObjectValue>() => {
            let object = o.as_any().downcast_ref::<ObjectValue>().expect("checked");
            let members = object.fields.iter().map(|(k, v)| Ok((k.as_ref(), v)));
            members_text(members, true, out)?;
        }
        Value::Optional(Some(v)) => patch_text(v, in_object, out)?,
        other => json_text(&to_json(other)?, out),
    }
    Ok(())
}

/// An object's members in a JSON patch's text (see [`patch_text`]).
fn members_text<'a>(
    members: impl Iterator<Item = Result<(&'a str, &'a Value), JsonConversionError>>,
    in_object: bool,
    out: &mut String,
) -> Result<(), JsonConversionError> {
    out.push('{');
    for (i, member) in members.enumerate() {
        let (key, value) = member?;
        if i > 0 {
            out.push(',');
        }
        out.push_str(&go_json_quote(key));
        out.push(':');
        patch_text(value, in_object, out)?;
    }
    out.push('}');
    Ok(())
}

/// A converted value's text as encoding/json writes it.
fn json_text(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value as Json;
    match value {
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_text(item, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&go_json_quote(k));
                out.push(':');
                json_text(v, out);
            }
            out.push('}');
        }
        scalar => out.push_str(&scalar_text(scalar)),
    }
}

/// `ObjectVal.CheckTypeNamesMatchFieldPathNames`: every `Object...` literal nested in
/// `value` must be named by its field path from the root (`Object.spec` under `spec`);
/// the mismatches (which render joined by newlines, as Go's `errors.Join`).
pub fn check_type_names(value: &Value) -> Result<(), TypeNameErrors> {
    let mut errors = Vec::new();
    if let Value::Opaque(o) = value
        && let Some(object) = o.as_any().downcast_ref::<ObjectValue>()
    {
        let mut path = vec![object.type_name.to_string()];
        type_names(value, &mut path, &mut errors);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(TypeNameErrors(errors))
    }
}

fn type_names(value: &Value, path: &mut Vec<String>, errors: &mut Vec<TypeNameError>) {
    match value {
        Value::Opaque(o) => {
            if let Some(object) = o.as_any().downcast_ref::<ObjectValue>() {
                let expected = path.join(".");
                if *object.type_name != *expected {
                    errors.push(TypeNameError {
                        found: object.type_name.to_string(),
                        expected,
                    });
                }
                for (k, v) in &object.fields {
                    path.push(k.to_string());
                    type_names(v, path, errors);
                    path.pop();
                }
            }
        }
        Value::List(items) => items.iter().for_each(|v| type_names(v, path, errors)),
        Value::Map(m) => m.iter().for_each(|(_, v)| type_names(v, path, errors)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(value: &Value) -> String {
        match patch_value(value).unwrap() {
            PatchValue::Text(text) => String::from_utf8(text).unwrap(),
            PatchValue::Nil => "<nil>".to_owned(),
        }
    }

    // cel-go `common/types/int.go` `ConvertToNative` (JSON numbers only within
    // ±(2^53 − 1)), protojson's float64 form and encoding/json's HTML escaping.
    #[test]
    fn patch_values_as_upstream_marshals_them() {
        assert_eq!(text(&Value::Int(1)), "1");
        assert_eq!(text(&Value::Int(-(1 << 53) + 1)), "-9007199254740991");
        assert_eq!(text(&Value::Int(1 << 53)), "\"9007199254740992\"");
        assert_eq!(text(&Value::Uint(u64::MAX)), "\"18446744073709551615\"");
        assert_eq!(text(&Value::Double(1.0)), "1");
        assert_eq!(text(&Value::Double(1e21)), "1e+21");
        assert_eq!(text(&Value::from("a<b")), r#""a\u003cb""#);
        assert_eq!(text(&Value::Null), "null");
        let list = Value::list(vec![Value::Int(2), Value::Bool(true)]);
        assert_eq!(text(&list), "[2,true]");
    }
}
