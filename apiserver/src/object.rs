//! Objects as stored and served: unstructured JSON with server-owned metadata.
//!
//! Stored objects carry `metadata.uid` and `metadata.creationTimestamp` (set at create) but no
//! `resourceVersion`: that is the storage revision of the key, put in when an object is read.

use serde_json::Value;

use crate::error::ApiError;
use crate::resource::Resource;
use crate::storage::KeyValue;

pub use crate::metadata::{Object, meta_str, metadata_mut};

/// Parses a request body into an object of `resource`: it must be a JSON object, and its
/// `apiVersion` and `kind`, when given, must be the resource's.
pub fn decode(body: &[u8], resource: &Resource) -> Result<Object, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {}): {e}",
            resource.kind
        ))
    })?;
    check(value, resource)
}

/// Checks that a decoded body is an object of `resource`: a JSON object whose `apiVersion` and
/// `kind`, when given, are the resource's.
pub fn check(value: Value, resource: &Resource) -> Result<Object, ApiError> {
    let Value::Object(object) = value else {
        return Err(ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {}): not a JSON object",
            resource.kind
        )));
    };
    let api_version = resource.api_version();
    if let Some(v) = object.get("apiVersion").and_then(Value::as_str)
        && v != api_version
    {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({v}) does not match the expected API version ({api_version})"
        )));
    }
    if let Some(k) = object.get("kind").and_then(Value::as_str)
        && k != resource.kind
    {
        return Err(ApiError::bad_request(format!(
            "the kind in the data ({k}) does not match the expected kind ({})",
            resource.kind
        )));
    }
    Ok(object)
}

/// Sets `apiVersion` and `kind` to the resource's.
pub fn set_type(object: &mut Object, resource: &Resource) {
    object.insert("apiVersion".to_owned(), Value::from(resource.api_version()));
    object.insert("kind".to_owned(), Value::from(resource.kind));
}

/// The bytes to store: the object without `resourceVersion` (which storage owns).
pub fn encode_for_storage(object: &Object) -> Vec<u8> {
    let as_is = object
        .get("metadata")
        .and_then(Value::as_object)
        .is_some_and(|m| !m.contains_key("resourceVersion"));
    if as_is {
        // Nothing to take out (a create's object): no copy.
        return serde_json::to_vec(object).expect("a JSON map always serializes");
    }
    let mut object = object.clone();
    metadata_mut(&mut object).remove("resourceVersion");
    serde_json::to_vec(&object).expect("a JSON map always serializes")
}

/// The object stored in `kv` as it was stored (its `apiVersion` the one it was written in),
/// without a `resourceVersion`.
pub fn stored(kv: &KeyValue) -> Result<Object, ApiError> {
    parse_stored(&kv.value)
        .map_err(|e| ApiError::internal(format!("stored object {} is not JSON: {e}", kv.key)))
}

/// Why stored bytes are not an object.
#[derive(Debug, thiserror::Error)]
pub enum StoredError {
    /// serde_json's error.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The documents reader's error.
    #[error(transparent)]
    Document(#[from] kcel_stdlib::documents::DocumentError),
    /// JSON, but not an object.
    #[error("not a JSON object")]
    NotAnObject,
}

/// An object from the JSON the server stored: read by serde_json, whose recursion limit is
/// 128 levels; an object nested deeper (bodies are read up to Kubernetes' 10,000 levels)
/// is read again by the documents reader, which holds any depth the server accepts.
pub fn parse_stored(bytes: &[u8]) -> Result<Object, StoredError> {
    match serde_json::from_slice(bytes) {
        Ok(object) => Ok(object),
        // What the server stored is JSON: a syntax error is serde_json's recursion limit.
        Err(e) if e.is_syntax() => match kcel_stdlib::documents::read_body(bytes, false)?.0 {
            Value::Object(object) => Ok(object),
            _ => Err(StoredError::NotAnObject),
        },
        Err(e) => Err(e.into()),
    }
}

/// The object stored in `kv`, with its `resourceVersion` from the key's revision.
pub fn from_storage(kv: &KeyValue, resource: &Resource) -> Result<Object, ApiError> {
    let mut object = stored(kv)?;
    set_type(&mut object, resource);
    metadata_mut(&mut object).insert(
        "resourceVersion".to_owned(),
        Value::from(kv.mod_revision.to_string()),
    );
    Ok(object)
}

/// Whether the object stored in `kv` is being deleted (a non-empty string
/// `metadata.deletionTimestamp`, as [`meta_str`] reads it), read out of the stored JSON
/// without building the object: a create checks its namespace this way.
pub fn stored_is_deleting(kv: &KeyValue) -> Result<bool, ApiError> {
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(rename = "deletionTimestamp", default)]
        deletion_timestamp: Option<Value>,
    }
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(default)]
        metadata: Option<Meta>,
    }
    let head: Head = serde_json::from_slice(&kv.value)
        .map_err(|e| ApiError::internal(format!("stored object {} is not JSON: {e}", kv.key)))?;
    Ok(head
        .metadata
        .and_then(|m| m.deletion_timestamp)
        .is_some_and(|t| t.as_str().is_some_and(|t| !t.is_empty())))
}

/// The strings of a JSON list: nothing for `None` or a value that is no list, non-strings
/// skipped.
pub fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// The current time as Kubernetes writes timestamps: RFC 3339 in UTC, whole seconds.
pub fn now_timestamp() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::CONFIGMAPS;
    use serde_json::json;

    #[test]
    fn decode_checks_type() {
        assert!(decode(br#"{"metadata":{"name":"a"}}"#, &CONFIGMAPS).is_ok());
        assert!(decode(br#"{"apiVersion":"v1","kind":"ConfigMap"}"#, &CONFIGMAPS).is_ok());
        let e = decode(br#"{"apiVersion":"v2"}"#, &CONFIGMAPS).unwrap_err();
        assert_eq!(
            e.message,
            "the API version in the data (v2) does not match the expected API version (v1)"
        );
        assert_eq!(
            decode(br#"{"kind":"Secret"}"#, &CONFIGMAPS)
                .unwrap_err()
                .code,
            400
        );
        assert_eq!(decode(b"[1]", &CONFIGMAPS).unwrap_err().code, 400);
        assert_eq!(decode(b"{", &CONFIGMAPS).unwrap_err().code, 400);
    }

    #[test]
    fn resource_version_is_the_storage_revision() {
        let mut obj = decode(
            br#"{"metadata":{"name":"a","resourceVersion":"9"}}"#,
            &CONFIGMAPS,
        )
        .unwrap();
        let stored = encode_for_storage(&obj);
        assert!(!String::from_utf8_lossy(&stored).contains("resourceVersion"));
        let kv = KeyValue {
            key: "/registry/configmaps/default/a".to_owned(),
            value: stored,
            create_revision: 4,
            mod_revision: 7,
        };
        let read = from_storage(&kv, &CONFIGMAPS).unwrap();
        assert_eq!(
            Value::Object(read),
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "a", "resourceVersion": "7"}})
        );
        metadata_mut(&mut obj).clear();
        assert_eq!(meta_str(&obj, "name"), "");
    }

    #[test]
    fn deletion_is_read_as_the_full_decode_reads_it() {
        use crate::resource::NAMESPACES;
        for (bytes, deleting) in [
            (r#"{"metadata":{"name":"a"}}"#, false),
            (
                r#"{"metadata":{"name":"a","deletionTimestamp":null}}"#,
                false,
            ),
            (r#"{"metadata":{"name":"a","deletionTimestamp":""}}"#, false),
            (r#"{"metadata":{"name":"a","deletionTimestamp":7}}"#, false),
            (r#"{"spec":{"finalizers":["kubernetes"]}}"#, false),
            (
                r#"{"metadata":{"deletionTimestamp":"2026-12-02T14:00:00Z","name":"a"},"spec":{}}"#,
                true,
            ),
        ] {
            let kv = KeyValue {
                key: "/registry/namespaces/a".to_owned(),
                value: bytes.as_bytes().to_vec(),
                create_revision: 1,
                mod_revision: 1,
            };
            let full = from_storage(&kv, &NAMESPACES).unwrap();
            assert_eq!(
                !meta_str(&full, "deletionTimestamp").is_empty(),
                deleting,
                "{bytes}"
            );
            assert_eq!(stored_is_deleting(&kv).unwrap(), deleting, "{bytes}");
        }
        let corrupt = KeyValue {
            key: "/registry/namespaces/a".to_owned(),
            value: b"{".to_vec(),
            create_revision: 1,
            mod_revision: 1,
        };
        assert_eq!(stored_is_deleting(&corrupt).unwrap_err().code, 500);
    }

    #[test]
    fn timestamps_are_whole_seconds_in_utc() {
        let t = now_timestamp();
        assert_eq!(t.len(), 20);
        assert!(t.ends_with('Z'));
    }
}
