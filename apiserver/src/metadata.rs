//! Objects as JSON maps and their `metadata`, depending on no other module (so that
//! server-side apply and the HTTP side can share them without an import circle).

use serde_json::{Map, Value};

/// A JSON object (the body of one Kubernetes object).
pub type Object = Map<String, Value>;

/// The object's `metadata`, made an empty object if missing or not an object.
pub fn metadata_mut(object: &mut Object) -> &mut Object {
    let slot = object
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    slot.as_object_mut().expect("made an object above")
}

/// A string field of the object's `metadata` (empty if absent).
pub fn meta_str<'a>(object: &'a Object, field: &str) -> &'a str {
    object
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_str)
        .unwrap_or("")
}
