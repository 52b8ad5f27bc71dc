//! Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`), as kubectl's
//! generators send them (`kubectl create configmap|secret|namespace|deployment|...`): the
//! `k8s\0` magic, then a `runtime.Unknown` envelope (type meta and the raw object), decoded
//! into the JSON object the server works with. Answers stay JSON.
//!
//! The decoder is driven by `protobuf/messages.json`, made by `protobuf/generate.py` from the
//! `k8s-pb` crate's message definitions (field numbers and wire types) and the vendored
//! OpenAPI schemas (JSON names), for the messages the served kinds reach.

use std::sync::OnceLock;

use base64::Engine;
use serde_json::{Map, Value};

use crate::error::ApiError;
use crate::object::Object;
use crate::resource::Resource;

/// The magic bytes in front of every Kubernetes protobuf body.
pub const MAGIC: &[u8] = b"k8s\0";

fn table() -> &'static Value {
    static TABLE: OnceLock<Value> = OnceLock::new();
    TABLE.get_or_init(|| {
        serde_json::from_str(include_str!("../protobuf/messages.json"))
            .expect("the vendored protobuf table is JSON")
    })
}

/// The message name of a served kind, e.g. `io.k8s.api.core.v1.ConfigMap`.
pub fn message_name(resource: &Resource) -> String {
    let package = match resource.group {
        "" => "core",
        group => group.split('.').next().unwrap_or(group),
    };
    format!(
        "io.k8s.api.{package}.{}.{}",
        resource.version, resource.kind
    )
}

/// Why a protobuf body does not decode (the part of the 400's message after
/// `the object provided is unrecognized (must be of type <kind>): `).
#[derive(Debug, thiserror::Error)]
pub enum ProtobufError {
    /// A varint cut short.
    #[error("unexpected end of a varint")]
    VarintEnd,
    /// A varint longer than 64 bits.
    #[error("varint too long")]
    VarintTooLong,
    /// A length past the address space.
    #[error("length overflow")]
    LengthOverflow,
    /// A field cut short.
    #[error("unexpected end of a field")]
    FieldEnd,
    /// A wire type kcel does not read (groups).
    #[error("unsupported wire type {0}")]
    WireType(u64),
    /// A string field that is not UTF-8.
    #[error(transparent)]
    Utf8(#[from] std::str::Utf8Error),
    /// A scalar field of another wire type than its kind's.
    #[error("a {0} field with the wrong wire type")]
    ScalarWireType(String),
    /// A time outside chrono's range.
    #[error("time out of range")]
    TimeRange,
    /// A `RawExtension` whose bytes are not JSON.
    #[error(transparent)]
    RawJson(#[from] serde_json::Error),
    /// A special message the table names but the decoder does not know.
    #[error("unknown special message {0}")]
    UnknownSpecial(String),
    /// A message the table does not have.
    #[error("no protobuf table for {0}")]
    NoTable(String),
    /// A map field that is not length-delimited.
    #[error("map field {0} is not length-delimited")]
    MapWireType(String),
    /// A map field repeated as another type.
    #[error("a map field repeated as another type")]
    MapRepeated,
    /// A message field that is not length-delimited.
    #[error("message field {0} is not length-delimited")]
    MessageWireType(String),
    /// A body without the `k8s\0` magic.
    #[error("provided data does not have the Kubernetes protobuf prefix")]
    NoMagic,
    /// An envelope without its object.
    #[error("the protobuf envelope holds no object")]
    NoObject,
    /// A message that decodes to something other than an object.
    #[error("not an object")]
    NotAnObject,
}

/// A reader of protobuf wire format.
struct Wire<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Wire<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Wire { bytes, at: 0 }
    }

    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    fn varint(&mut self) -> Result<u64, ProtobufError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.bytes.get(self.at).ok_or(ProtobufError::VarintEnd)?;
            self.at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(ProtobufError::VarintTooLong)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], ProtobufError> {
        let end = self
            .at
            .checked_add(n)
            .ok_or(ProtobufError::LengthOverflow)?;
        let slice = self
            .bytes
            .get(self.at..end)
            .ok_or(ProtobufError::FieldEnd)?;
        self.at = end;
        Ok(slice)
    }

    fn delimited(&mut self) -> Result<&'a [u8], ProtobufError> {
        let n = usize::try_from(self.varint()?).map_err(|_| ProtobufError::LengthOverflow)?;
        self.take(n)
    }

    /// The next field: its number, wire type, and (for length-delimited fields) its bytes or
    /// (for varints and fixed fields) its value.
    fn field(&mut self) -> Result<(u64, Field<'a>), ProtobufError> {
        let key = self.varint()?;
        let field = match key & 7 {
            0 => Field::Varint(self.varint()?),
            1 => Field::Fixed64(u64::from_le_bytes(
                self.take(8)?.try_into().expect("took 8 bytes"),
            )),
            2 => Field::Bytes(self.delimited()?),
            5 => Field::Fixed32(u32::from_le_bytes(
                self.take(4)?.try_into().expect("took 4 bytes"),
            )),
            other => return Err(ProtobufError::WireType(other)),
        };
        Ok((key >> 3, field))
    }
}

enum Field<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    Bytes(&'a [u8]),
}

/// The fields kept even when zero (pointers upstream, where zero means something), by message.
const KEEP_ZERO: &[(&str, &str)] = &[("io.k8s.api.apps.v1.DeploymentSpec", "replicas")];

fn scalar(kind: &str, field: Field) -> Result<Value, ProtobufError> {
    Ok(match (kind, field) {
        ("string", Field::Bytes(b)) => Value::from(std::str::from_utf8(b)?.to_owned()),
        ("bytes", Field::Bytes(b)) => {
            Value::from(base64::engine::general_purpose::STANDARD.encode(b))
        }
        ("bool", Field::Varint(v)) => Value::from(v != 0),
        ("int32", Field::Varint(v)) => Value::from(v as i32),
        ("int64", Field::Varint(v)) => Value::from(v as i64),
        ("double", Field::Fixed64(v)) => Value::from(f64::from_bits(v)),
        ("float", Field::Fixed32(v)) => Value::from(f64::from(f32::from_bits(v))),
        (kind, _) => return Err(ProtobufError::ScalarWireType(kind.to_owned())),
    })
}

fn is_zero(value: &Value) -> bool {
    match value {
        Value::String(s) => s.is_empty(),
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Null => true,
        _ => false,
    }
}

/// The RFC 3339 text of a `Time` (whole seconds) or `MicroTime` (microseconds); `null` for the
/// zero time, as upstream's JSON writes it.
fn time(bytes: &[u8], micro: bool) -> Result<Value, ProtobufError> {
    let (mut seconds, mut nanos) = (0i64, 0i64);
    let mut wire = Wire::new(bytes);
    while !wire.done() {
        match wire.field()? {
            (1, Field::Varint(v)) => seconds = v as i64,
            (2, Field::Varint(v)) => nanos = i64::from(v as i32),
            _ => {}
        }
    }
    if seconds == 0 && nanos == 0 {
        return Ok(Value::Null);
    }
    let t =
        chrono::DateTime::from_timestamp(seconds, nanos as u32).ok_or(ProtobufError::TimeRange)?;
    Ok(Value::from(if micro {
        t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
    } else {
        t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
    }))
}

fn special(kind: &str, bytes: &[u8]) -> Result<Value, ProtobufError> {
    match kind {
        "time" => time(bytes, false),
        "microtime" => time(bytes, true),
        "quantity" => {
            let mut wire = Wire::new(bytes);
            let mut text = Value::from("");
            while !wire.done() {
                if let (1, f) = wire.field()? {
                    text = scalar("string", f)?;
                }
            }
            Ok(text)
        }
        "intorstring" => {
            let (mut kind, mut int, mut text) = (0u64, 0i64, String::new());
            let mut wire = Wire::new(bytes);
            while !wire.done() {
                match wire.field()? {
                    (1, Field::Varint(v)) => kind = v,
                    (2, Field::Varint(v)) => int = i64::from(v as i32),
                    (3, f) => text = scalar("string", f)?.as_str().unwrap_or("").to_owned(),
                    _ => {}
                }
            }
            Ok(if kind == 0 {
                Value::from(int)
            } else {
                Value::from(text)
            })
        }
        "rawjson" => {
            let mut wire = Wire::new(bytes);
            while !wire.done() {
                if let (1, Field::Bytes(b)) = wire.field()? {
                    return Ok(serde_json::from_slice(b)?);
                }
            }
            Ok(Value::Null)
        }
        other => Err(ProtobufError::UnknownSpecial(other.to_owned())),
    }
}

/// Decodes one message (by its table name) into a JSON value.
fn message(bytes: &[u8], name: &str) -> Result<Value, ProtobufError> {
    let table = table();
    if let Some(kind) = table["special"].get(name).and_then(Value::as_str) {
        return special(kind, bytes);
    }
    let fields = table["messages"]
        .get(name)
        .and_then(Value::as_object)
        .ok_or_else(|| ProtobufError::NoTable(name.to_owned()))?;
    let mut out = Map::new();
    let mut wire = Wire::new(bytes);
    while !wire.done() {
        let (number, field) = wire.field()?;
        let Some(spec) = fields.get(&number.to_string()) else {
            continue; // a field this server does not know: dropped, as unknown JSON fields are
        };
        let json_name = spec["name"].as_str().unwrap_or("");
        let repeated = spec["repeated"] == Value::Bool(true);
        let value = if let Some(map) = spec["map"].as_str() {
            let Field::Bytes(entry) = field else {
                return Err(ProtobufError::MapWireType(json_name.to_owned()));
            };
            let (mut key, mut value) = (String::new(), Value::Null);
            let mut wire = Wire::new(entry);
            while !wire.done() {
                match wire.field()? {
                    (1, f) => key = scalar("string", f)?.as_str().unwrap_or("").to_owned(),
                    (2, Field::Bytes(b)) if map == "message" => {
                        value = message(b, spec["message"].as_str().unwrap_or(""))?
                    }
                    (2, f) => value = scalar(map, f)?,
                    _ => {}
                }
            }
            if value.is_null() {
                value = match map {
                    "message" => Value::Object(Map::new()),
                    _ => Value::from(""),
                };
            }
            out.entry(json_name)
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
                .ok_or(ProtobufError::MapRepeated)?
                .insert(key, value);
            continue;
        } else if let Some(target) = spec["message"].as_str() {
            let Field::Bytes(b) = field else {
                return Err(ProtobufError::MessageWireType(json_name.to_owned()));
            };
            let decoded = message(b, target)?;
            if spec["inline"] == Value::Bool(true) {
                if let Value::Object(inner) = decoded {
                    out.extend(inner);
                }
                continue;
            }
            decoded
        } else {
            let kind = spec["scalar"].as_str().unwrap_or("");
            match field {
                // Packed repeated numbers.
                Field::Bytes(b) if repeated && kind != "string" && kind != "bytes" => {
                    let mut wire = Wire::new(b);
                    let list = out
                        .entry(json_name)
                        .or_insert_with(|| Value::Array(Vec::new()));
                    while !wire.done() {
                        let v = scalar(kind, Field::Varint(wire.varint()?))?;
                        if let Value::Array(a) = list {
                            a.push(v);
                        }
                    }
                    continue;
                }
                f => scalar(kind, f)?,
            }
        };
        if repeated {
            if let Value::Array(list) = out
                .entry(json_name)
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                list.push(value);
            }
        } else if !is_zero(&value)
            || KEEP_ZERO.contains(&(name, json_name))
            || value.is_null() && json_name == "creationTimestamp"
        {
            out.insert(json_name.to_owned(), value);
        }
    }
    Ok(Value::Object(out))
}

/// Decodes a protobuf request body into an object of `resource`.
pub fn decode(body: &[u8], resource: &Resource) -> Result<Object, ApiError> {
    decode_as(body, &message_name(resource), resource.kind)
}

/// Decodes a protobuf request body holding the message `name` (an object of `kind`).
pub fn decode_as(body: &[u8], name: &str, kind_name: &str) -> Result<Object, ApiError> {
    let bad = |e: ProtobufError| {
        ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {kind_name}): {e}"
        ))
    };
    let envelope = body
        .strip_prefix(MAGIC)
        .ok_or_else(|| bad(ProtobufError::NoMagic))?;
    let (mut api_version, mut kind, mut raw) = (String::new(), String::new(), None);
    let mut wire = Wire::new(envelope);
    while !wire.done() {
        match wire.field().map_err(bad)? {
            (1, Field::Bytes(type_meta)) => {
                let mut wire = Wire::new(type_meta);
                while !wire.done() {
                    match wire.field().map_err(bad)? {
                        (1, f) => {
                            api_version = scalar("string", f)
                                .map_err(bad)?
                                .as_str()
                                .unwrap_or("")
                                .to_owned()
                        }
                        (2, f) => {
                            kind = scalar("string", f)
                                .map_err(bad)?
                                .as_str()
                                .unwrap_or("")
                                .to_owned()
                        }
                        _ => {}
                    }
                }
            }
            (2, Field::Bytes(b)) => raw = Some(b),
            _ => {}
        }
    }
    let raw = raw.ok_or_else(|| bad(ProtobufError::NoObject))?;
    let Value::Object(mut object) = message(raw, name).map_err(bad)? else {
        return Err(bad(ProtobufError::NotAnObject));
    };
    if !api_version.is_empty() {
        object.insert("apiVersion".to_owned(), Value::from(api_version));
    }
    if !kind.is_empty() {
        object.insert("kind".to_owned(), Value::from(kind));
    }
    Ok(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{CONFIGMAPS, SERVED};
    use serde_json::json;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }

    fn bytes_field(number: u64, data: &[u8], out: &mut Vec<u8>) {
        varint(number << 3 | 2, out);
        varint(data.len() as u64, out);
        out.extend_from_slice(data);
    }

    #[test]
    fn every_served_kind_has_a_message() {
        // kubectl sends CustomResourceDefinitions, admission policies and the second
        // versions of a stored kind (autoscaling/v1, events.k8s.io/v1) as JSON (no
        // generator makes them).
        for r in SERVED.iter().filter(|r| {
            !matches!(
                r.group,
                "apiextensions.k8s.io" | "admissionregistration.k8s.io"
            ) && crate::resource::storage_of(r).is_none()
        }) {
            assert!(
                table()["messages"].get(message_name(r)).is_some(),
                "{}",
                r.kind
            );
        }
    }

    #[test]
    fn a_configmap_as_kubectl_create_sends_it() {
        // ObjectMeta{name: "c1", creationTimestamp: {}} with empty strings, as Go writes them.
        let mut meta = Vec::new();
        bytes_field(1, b"c1", &mut meta);
        bytes_field(2, b"", &mut meta);
        bytes_field(8, b"", &mut meta);
        let mut entry = Vec::new();
        bytes_field(1, b"a", &mut entry);
        bytes_field(2, b"b", &mut entry);
        let mut cm = Vec::new();
        bytes_field(1, &meta, &mut cm);
        bytes_field(2, &entry, &mut cm);
        let mut type_meta = Vec::new();
        bytes_field(1, b"v1", &mut type_meta);
        bytes_field(2, b"ConfigMap", &mut type_meta);
        let mut body = MAGIC.to_vec();
        bytes_field(1, &type_meta, &mut body);
        bytes_field(2, &cm, &mut body);
        bytes_field(3, b"", &mut body);
        bytes_field(4, b"", &mut body);
        let object = decode(&body, &CONFIGMAPS).unwrap();
        assert_eq!(
            Value::Object(object),
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "c1", "creationTimestamp": null},
                   "data": {"a": "b"}})
        );
        assert_eq!(decode(b"{}", &CONFIGMAPS).unwrap_err().code, 400);
        assert_eq!(decode(b"k8s\0\x12\xff", &CONFIGMAPS).unwrap_err().code, 400);
    }
}
