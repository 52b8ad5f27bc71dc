//! How kube-apiserver's patch handler decodes each patch type's body, and what it answers
//! when the body does not decode (kubernetes
//! `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go`):
//!
//! - JSON patch (`jsonPatcher.applyJSPatch`): under `fieldValidation` Warn (the default) or
//!   Strict the body is first decoded as `[]handlers.jsonPatchOp` by sigs.k8s.io/json, a
//!   failure answering 400 `error decoding patch: <decoder's text>`; then (whatever the
//!   validation) by evanphx/json-patch's `DecodePatch` into `jsonpatch.Patch`, a failure
//!   answering 400 with the decoder's text alone; more than 10,000 operations answer 413
//!   `Request entity too large: The allowed maximum operations in a JSON patch is 10000,
//!   got <n>`. An operation that does not apply answers 422 with the generic text of
//!   `NewGenericServerResponse` (its library error is not passed on).
//! - Merge patch: under Warn or Strict decoded as `map[string]interface {}` first (400
//!   `error decoding patch: ...`); evanphx/json-patch's `MergePatch` then refuses a body
//!   that is not JSON, `null` or a scalar with 400 `Invalid JSON Patch`, and takes an array
//!   as the whole new object, which then does not decode (422 naming `patch`).
//! - Strategic merge patch (`strategicPatchObject`): decoded as `map[string]interface {}`
//!   whatever the validation; a failure answers 400 with the decoder's text alone; `null`
//!   is an empty patch.
//!
//! Bodies are read before the object is (as upstream reads them before `applyPatch`), but
//! a body's error is answered only where upstream decodes it: after the object was found.

use kcel_stdlib::documents::DocumentError;
use kcel_stdlib::kubernetes::admission::json_patch::raw::{self, Split};
use kcel_stdlib::kubernetes::admission::json_patch::{Operation, PatchValue};
use kcel_stdlib::kubernetes::admission::mutation_errors::DecodeError;
use kcel_stdlib::kubernetes::crd::go_json_type;
use serde_json::{Map, Value};

/// The most operations a JSON patch may hold (upstream's `maxJSONPatchOperations`).
pub const MAX_JSON_PATCH_OPERATIONS: usize = 10_000;

/// Why a patch body is refused before it is applied.
#[derive(Debug, thiserror::Error)]
pub enum PatchDecodeError {
    /// 400: the typed decoding of a JSON or merge patch under Warn or Strict failed.
    #[error("error decoding patch: {0}")]
    Typed(String),
    /// 400: the decoder's text alone (`jsonpatch.DecodePatch`; a strategic merge patch).
    #[error("{0}")]
    Plain(String),
    /// 400: evanphx/json-patch's `MergePatch` refused the patch (`ErrBadJSONPatch`).
    #[error("Invalid JSON Patch")]
    BadMergePatch,
    /// 413: more operations than [`MAX_JSON_PATCH_OPERATIONS`].
    #[error(
        "The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {0}"
    )]
    TooManyOperations(usize),
    /// 422: the patched object is an array (a merge patch that is one, or a JSON patch
    /// that replaced the whole object with one), which does not decode as an object
    /// (`patched`: the array as Go marshals it; `detail`: the decoder's text).
    #[error("{detail}")]
    NotAnObject {
        /// The patched "object" as encoding/json writes it.
        patched: String,
        /// Why it does not decode.
        detail: String,
    },
}

fn cannot_unmarshal(value: &Value, go_type: &str) -> String {
    format!(
        "json: cannot unmarshal {} into Go value of type {go_type}",
        go_json_type(value)
    )
}

/// The operations of a JSON patch `body` (`parsed`: the body as read), decoded as the patch
/// handler decodes them; `typed`: `fieldValidation` is Warn or Strict.
pub fn json_patch_operations(
    parsed: Result<&Value, &DocumentError>,
    body: &[u8],
    typed: bool,
) -> Result<Vec<Operation>, PatchDecodeError> {
    let value = parsed.map_err(|e| match typed {
        true => PatchDecodeError::Typed(e.to_string()),
        false => PatchDecodeError::Plain(e.to_string()),
    })?;
    if typed && let Some(error) = typed_operations_error(value) {
        return Err(PatchDecodeError::Typed(error));
    }
    let items: &[Value] = match value {
        Value::Null => &[],
        Value::Array(items) => items,
        other => {
            return Err(PatchDecodeError::Plain(cannot_unmarshal(
                other,
                "jsonpatch.Patch",
            )));
        }
    };
    if let Some(item) = items
        .iter()
        .find(|i| !matches!(i, Value::Null | Value::Object(_)))
    {
        return Err(PatchDecodeError::Plain(cannot_unmarshal(
            item,
            "jsonpatch.Operation",
        )));
    }
    if items.len() > MAX_JSON_PATCH_OPERATIONS {
        return Err(PatchDecodeError::TooManyOperations(items.len()));
    }
    let texts = value_texts(body);
    Ok(items
        .iter()
        .enumerate()
        .map(|(i, item)| operation(item, texts.get(i).copied().flatten()))
        .collect())
}

/// The bytes of each operation's `value` as `body` writes them (the last `value` member of
/// each item of the body's array), which a `test` compares: evanphx/json-patch decodes the
/// members into `json.RawMessage`s.
fn value_texts(body: &[u8]) -> Vec<Option<&[u8]>> {
    let Split::Array(items) = raw::split(body) else {
        return Vec::new();
    };
    items.into_iter().map(value_text).collect()
}

/// The bytes of the last `value` member of an operation's text.
fn value_text(item: &[u8]) -> Option<&[u8]> {
    match raw::split(item) {
        Split::Object(members) => members
            .into_iter()
            .rev()
            .find_map(|(key, text)| (key == "value").then_some(text)),
        _ => None,
    }
}

/// The first error of decoding `value` as `[]handlers.jsonPatchOp` (fields `op`, `path` and
/// `from` strings, `value` anything): encoding/json keeps going after a type error and
/// reports the first.
fn typed_operations_error(value: &Value) -> Option<String> {
    let items = match value {
        Value::Null => return None,
        Value::Array(items) => items,
        other => return Some(cannot_unmarshal(other, "[]handlers.jsonPatchOp")),
    };
    items.iter().find_map(|item| match item {
        Value::Null => None,
        Value::Object(fields) => ["op", "path", "from"].iter().find_map(|name| {
            fields
                .get(*name)
                .filter(|v| !matches!(v, Value::Null | Value::String(_)))
                .map(|v| {
                    format!(
                        "json: cannot unmarshal {} into Go struct field jsonPatchOp.{name} of type string",
                        go_json_type(v)
                    )
                })
        }),
        other => Some(cannot_unmarshal(other, "handlers.jsonPatchOp")),
    })
}

/// One operation as evanphx/json-patch reads its members: an `op` that is not a string is
/// `unknown` (`Unexpected kind`); a `path` or `from` that is missing or not a string fails
/// the operation (its decoding error): it is read as `unknown`, the library's placeholder,
/// which no pointer resolves (the empty pointer names the whole document to `test`);
/// `value` may be absent, and `null` is Go's nil (`text`: the value's bytes in the body).
fn operation(item: &Value, text: Option<&[u8]>) -> Operation {
    let pointer = |name: &str| {
        item.get(name)
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_owned()
    };
    Operation {
        op: item
            .get("op")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_owned(),
        path: pointer("path"),
        from: pointer("from"),
        value: item.get("value").map(|value| match value {
            Value::Null => PatchValue::Nil,
            value => PatchValue::Text(text.map_or_else(
                || kcel_stdlib::kubernetes::crd::go_json_value(value).into_bytes(),
                <[u8]>::to_vec,
            )),
        }),
    }
}

/// The object of a merge patch body (a JSON object), decoded as the patch handler decodes
/// it; `typed`: `fieldValidation` is Warn or Strict.
pub fn merge_patch_object<'v>(
    parsed: Result<&'v Value, &DocumentError>,
    typed: bool,
) -> Result<&'v Value, PatchDecodeError> {
    let value = parsed.map_err(|e| match typed {
        true => PatchDecodeError::Typed(e.to_string()),
        false => PatchDecodeError::BadMergePatch,
    })?;
    match value {
        Value::Object(_) => Ok(value),
        Value::Null => Err(PatchDecodeError::BadMergePatch),
        other if typed => Err(PatchDecodeError::Typed(cannot_unmarshal(
            other,
            "map[string]interface {}",
        ))),
        Value::Array(items) => {
            // `MergePatch` takes the array (its nulls pruned) as the document, which the
            // codec's `DefaultMetaFactory.Interpret` cannot read for apiVersion and kind.
            let mut pruned = Value::Array(items.clone());
            prune_nulls(&mut pruned);
            Err(array_patched(&pruned))
        }
        _ => Err(PatchDecodeError::BadMergePatch),
    }
}

/// The error of a patch whose result is the array `patched` (a merge patch that is an
/// array; a JSON patch that replaced the whole object with one): the codec's
/// `DefaultMetaFactory.Interpret` cannot read it for apiVersion and kind, and the patch
/// handler answers 422 naming `patch` (`jsonPatcher.applyPatchToCurrentObject`).
pub fn array_patched(patched: &Value) -> PatchDecodeError {
    PatchDecodeError::NotAnObject {
        patched: kcel_stdlib::kubernetes::crd::go_json_value(patched),
        detail: DecodeError::List.to_string(),
    }
}

/// evanphx/json-patch's `pruneAryNulls` / `pruneDocNulls`: nulls dropped from lists and
/// maps, all the way down.
fn prune_nulls(value: &mut Value) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => {
                items.retain(|v| !v.is_null());
                pending.extend(items.iter_mut());
            }
            Value::Object(fields) => {
                fields.retain(|_, v| !v.is_null());
                pending.extend(fields.values_mut());
            }
            _ => {}
        }
    }
}

/// The map of a strategic merge patch body (a JSON object; `None`: `null`, an empty
/// patch), decoded as `strategicPatchObject` decodes it.
pub fn strategic_patch_map<'v>(
    parsed: Result<&'v Value, &DocumentError>,
) -> Result<Option<&'v Map<String, Value>>, PatchDecodeError> {
    match parsed.map_err(|e| PatchDecodeError::Plain(e.to_string()))? {
        Value::Object(patch) => Ok(Some(patch)),
        Value::Null => Ok(None),
        other => Err(PatchDecodeError::Plain(cannot_unmarshal(
            other,
            "map[string]interface {}",
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn json_patch_error(body: &str, typed: bool) -> String {
        let parsed = kcel_stdlib::documents::read_body(body.as_bytes(), false).map(|(v, _)| v);
        json_patch_operations(parsed.as_ref(), body.as_bytes(), typed)
            .unwrap_err()
            .to_string()
    }

    // Texts of encoding/json (`UnmarshalTypeError.Error`) for the Go types patch.go decodes
    // into: `[]handlers.jsonPatchOp` under Warn/Strict, `jsonpatch.Patch` (`DecodePatch`)
    // under Ignore.
    #[test]
    fn json_patch_decoding_texts() {
        let cases = [
            (
                r#"{"op":"add"}"#,
                true,
                "error decoding patch: json: cannot unmarshal object into Go value of type \
                 []handlers.jsonPatchOp",
            ),
            (
                r#"{"op":"add"}"#,
                false,
                "json: cannot unmarshal object into Go value of type jsonpatch.Patch",
            ),
            (
                r#"[1]"#,
                true,
                "error decoding patch: json: cannot unmarshal number into Go value of type \
                 handlers.jsonPatchOp",
            ),
            (
                r#"["x"]"#,
                false,
                "json: cannot unmarshal string into Go value of type jsonpatch.Operation",
            ),
            (
                r#"[{"op":"add","path":7}]"#,
                true,
                "error decoding patch: json: cannot unmarshal number into Go struct field \
                 jsonPatchOp.path of type string",
            ),
            (
                r#"[{"op":["add"]}]"#,
                true,
                "error decoding patch: json: cannot unmarshal array into Go struct field \
                 jsonPatchOp.op of type string",
            ),
            (
                "[{",
                true,
                "error decoding patch: unexpected end of JSON input",
            ),
            (
                "nope",
                false,
                "invalid character 'o' in literal null (expecting 'u')",
            ),
        ];
        for (body, typed, expected) in cases {
            assert_eq!(json_patch_error(body, typed), expected, "{body}");
        }
    }

    #[test]
    fn json_patch_members_as_the_library_reads_them() {
        let body = br#"[{"op": 1, "path": "/a", "value": 1.0}, {"op": "add", "value": null},
            null, {"op": "test", "path": "", "value" : "a\u003cb", "value": { "k" : 1 } }]"#;
        let parsed = kcel_stdlib::documents::read_body(body, false).unwrap().0;
        let ops = json_patch_operations(Ok(&parsed), body, false).unwrap();
        assert_eq!(ops[0].op, "unknown");
        // The value's text as written: `test` compares it.
        assert_eq!(ops[0].value, Some(PatchValue::Text(b"1.0".to_vec())));
        assert_eq!(ops[1].path, "unknown");
        assert_eq!(ops[1].value, Some(PatchValue::Nil));
        assert_eq!(ops[2].op, "unknown");
        assert_eq!(ops[3].path, "");
        assert_eq!(
            ops[3].value,
            Some(PatchValue::Text(b"{ \"k\" : 1 }".to_vec()))
        );
        assert!(
            json_patch_operations(Ok(&Value::Null), b"null", true)
                .unwrap()
                .is_empty()
        );
        let many = Value::Array(vec![json!({"op": "test", "path": "/a"}); 10_001]);
        assert_eq!(
            json_patch_operations(Ok(&many), b"", true)
                .unwrap_err()
                .to_string(),
            "The allowed maximum operations in a JSON patch is 10000, got 10001"
        );
    }

    #[test]
    fn merge_and_strategic_decoding_texts() {
        let merge = |v: Value, typed| merge_patch_object(Ok(&v), typed).map(|_| ());
        assert_eq!(
            merge(json!([1]), true).unwrap_err().to_string(),
            "error decoding patch: json: cannot unmarshal array into Go value of type \
             map[string]interface {}"
        );
        assert_eq!(
            merge(Value::Null, true).unwrap_err().to_string(),
            "Invalid JSON Patch"
        );
        assert_eq!(
            merge(json!("x"), false).unwrap_err().to_string(),
            "Invalid JSON Patch"
        );
        match merge(json!([{"a": null, "b": 1}, null]), false) {
            Err(PatchDecodeError::NotAnObject { patched, .. }) => {
                assert_eq!(patched, r#"[{"b":1}]"#)
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            strategic_patch_map(Ok(&json!(3))).unwrap_err().to_string(),
            "json: cannot unmarshal number into Go value of type map[string]interface {}"
        );
        assert!(strategic_patch_map(Ok(&Value::Null)).unwrap().is_none());
    }
}
