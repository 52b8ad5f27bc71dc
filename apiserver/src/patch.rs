//! PATCH bodies: JSON patch (RFC 6902), JSON merge patch (RFC 7386) and strategic merge patch
//! (the last in [`crate::strategic_merge`]).

use serde_json::{Map, Value};

use kcel_stdlib::kubernetes::admission::json_patch;

use crate::error::ApiError;
use crate::openapi::Schema;
use crate::patch_decode::{self, PatchDecodeError};
use crate::strategic_merge::{self, StrategicMergeError};

/// Why a JSON patch failed.
#[derive(Debug, thiserror::Error)]
pub enum JsonPatchError {
    /// The body is not a list of operations (the patch handler's texts).
    #[error(transparent)]
    Decode(#[from] PatchDecodeError),
    /// An operation did not apply (a failed `test`, a missing path), in evanphx/json-patch
    /// v4's words (which kube-apiserver does not pass on: its 422 has a generic text).
    #[error(transparent)]
    Apply(#[from] json_patch::PatchError),
}

impl JsonPatchError {
    /// The patch handler's answer: the body's decoding error; 422 with a generic text for
    /// an operation that does not apply; 500 in plain text where the library panics
    /// (upstream's panic recovery answers it, see [`ApiError::panicked`]).
    pub fn status(self) -> ApiError {
        match self {
            JsonPatchError::Decode(e) => ApiError::from(e),
            JsonPatchError::Apply(json_patch::PatchError::Panic) => ApiError::panicked(),
            JsonPatchError::Apply(_) => ApiError::patch_not_applied(),
        }
    }
}

/// Applies an RFC 6902 JSON patch (`patch`: `body` as read), its body decoded as under
/// `fieldValidation` Warn, its operations applied as kube-apiserver's evanphx/json-patch v4
/// applies them.
pub fn json_patch(target: &mut Value, patch: &Value, body: &[u8]) -> Result<(), JsonPatchError> {
    let operations = patch_decode::json_patch_operations(Ok(patch), body, true)?;
    apply_json_patch(target, &operations)
}

/// Applies decoded JSON patch operations (all or none). A `replace` of the whole object
/// may leave an array, which the patch handler cannot decode as an object (422).
pub fn apply_json_patch(
    target: &mut Value,
    operations: &[json_patch::Operation],
) -> Result<(), JsonPatchError> {
    let patched = json_patch::apply(target, operations)?;
    if patched.is_array() {
        return Err(patch_decode::array_patched(&patched).into());
    }
    *target = patched;
    Ok(())
}

/// Applies an RFC 7386 JSON merge patch.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    ::json_patch::merge(target, patch);
}

/// Applies a strategic merge patch to an object, with the kind's schema if known
/// ([`crate::strategic_merge`]).
pub fn strategic_merge(
    target: &mut Value,
    patch: &Map<String, Value>,
    schema: Option<Schema>,
) -> Result<(), StrategicMergeError> {
    let original = match std::mem::take(target) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    *target = Value::Object(strategic_merge::apply(original, patch.clone(), schema)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_and_merge_patches() {
        let patch = |v: &mut Value, p: Value| json_patch(v, &p, p.to_string().as_bytes());
        let mut v = json!({"a": {"b": 1}});
        patch(&mut v, json!([{"op": "add", "path": "/a/c", "value": 2}])).unwrap();
        assert_eq!(v, json!({"a": {"b": 1, "c": 2}}));
        assert!(patch(&mut v, json!([{"op": "test", "path": "/a/b", "value": 9}])).is_err());
        merge_patch(&mut v, &json!({"a": {"b": null}}));
        assert_eq!(v, json!({"a": {"c": 2}}));
    }
}
