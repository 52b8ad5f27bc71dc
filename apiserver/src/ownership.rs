//! The parts of `metadata` the garbage collector reads, validated on every write as
//! apimachinery's `ValidateObjectMetaAccessor` does (`pkg/api/validation/objectmeta.go`:
//! `ValidateOwnerReferences`, `validateOwnerReference`, `ValidateFinalizers`).

use serde_json::Value;

use crate::error::{ApiError, FieldError};
use crate::metadata::Object;
use crate::propagation::{FOREGROUND, ORPHAN};
use crate::resource::Resource;

/// An owner reference as Go encodes `metav1.OwnerReference` (its field order, pointers left
/// out when unset): the value upstream shows in its messages.
fn go_json(reference: &Value) -> String {
    let text = |f: &str| Value::from(reference[f].as_str().unwrap_or("")).to_string();
    let mut fields: Vec<String> = ["apiVersion", "kind", "name", "uid"]
        .iter()
        .map(|f| format!("\"{f}\":{}", text(f)))
        .collect();
    for field in ["controller", "blockOwnerDeletion"] {
        if let Some(b) = reference[field].as_bool() {
            fields.push(format!("\"{field}\":{b}"));
        }
    }
    format!("{{{}}}", fields.join(","))
}

fn invalid(field: &str, value: String, detail: &str) -> FieldError {
    let mut error = FieldError::invalid_string(field, "", detail);
    error.value = Some(value);
    error
}

/// The errors of `metadata.ownerReferences` and `metadata.finalizers`, in upstream's order.
pub fn errors(object: &Object) -> Vec<FieldError> {
    let meta = object.get("metadata");
    let mut errors = Vec::new();
    let references = meta
        .and_then(|m| m.get("ownerReferences"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let path = "metadata.ownerReferences";
    let mut first_controller: Option<String> = None;
    for reference in &references {
        let text = |f: &str| reference[f].as_str().unwrap_or("");
        let api_version = text("apiVersion");
        // schema.FromAPIVersionAndKind: the version is what follows the last `/`.
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let quoted = |s: &str| Value::from(s).to_string();
        if version.is_empty() {
            let value = quoted(api_version);
            errors.push(invalid(
                &format!("{path}.apiVersion"),
                value,
                "version must not be empty",
            ));
        }
        for field in ["kind", "name", "uid"] {
            if text(field).is_empty() {
                errors.push(invalid(
                    &format!("{path}.{field}"),
                    quoted(""),
                    "must not be empty",
                ));
            }
        }
        // BannedOwners: events may own nothing.
        if group.is_empty() && version == "v1" && text("kind") == "Event" {
            errors.push(invalid(
                path,
                go_json(reference),
                "/v1, Kind=Event is disallowed from being an owner",
            ));
        }
        if reference["controller"] == Value::Bool(true) {
            let current = format!("{}/{}", text("kind"), text("name"));
            match &first_controller {
                Some(first) => {
                    let all: Vec<String> = references.iter().map(go_json).collect();
                    errors.push(invalid(
                        path,
                        format!("[{}]", all.join(",")),
                        &format!(
                            "Only one reference can have Controller set to true. Found \"true\" \
                             in references for {first} and {current}"
                        ),
                    ));
                }
                None => first_controller = Some(current),
            }
        }
    }
    let finalizers: Vec<&str> = meta
        .and_then(|m| m.get("finalizers"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if finalizers.contains(&ORPHAN) && finalizers.contains(&FOREGROUND) {
        errors.push(invalid(
            "metadata.finalizers",
            Value::from(finalizers.clone()).to_string(),
            &format!("finalizer {ORPHAN} and {FOREGROUND} cannot be both set"),
        ));
    }
    errors
}

/// A 422 for `resource`'s object `name` when its owner references or finalizers are invalid.
pub fn check(resource: &Resource, object: &Object, name: &str) -> Result<(), ApiError> {
    let causes = errors(object);
    match causes.is_empty() {
        true => Ok(()),
        false => Err(ApiError::invalid(resource, name, causes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(metadata: Value) -> Vec<String> {
        let object = json!({ "metadata": metadata });
        errors(object.as_object().unwrap())
            .iter()
            .map(FieldError::to_string)
            .collect()
    }

    // After upstream's TestValidateObjectMetaOwnerReferences and
    // TestValidateFinalizersPreventConflictingFinalizers (objectmeta_test.go).
    #[test]
    fn owner_references_and_finalizers_as_upstream() {
        assert!(
            messages(json!({"ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": "1", "controller": true},
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "2", "controller": false},
            ]}))
            .is_empty()
        );
        assert_eq!(
            messages(json!({"ownerReferences": [{"apiVersion": "apps/", "kind": ""}]})),
            [
                "metadata.ownerReferences.apiVersion: Invalid value: \"apps/\": version must not be empty",
                "metadata.ownerReferences.kind: Invalid value: \"\": must not be empty",
                "metadata.ownerReferences.name: Invalid value: \"\": must not be empty",
                "metadata.ownerReferences.uid: Invalid value: \"\": must not be empty",
            ]
        );
        assert_eq!(
            messages(json!({"ownerReferences": [
                {"uid": "1", "name": "a", "kind": "K", "apiVersion": "x/v1", "controller": true, "blockOwnerDeletion": true},
                {"apiVersion": "x/v1", "kind": "K", "name": "b", "uid": "2", "controller": true},
            ]})),
            [
                "metadata.ownerReferences: Invalid value: [{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"name\":\"a\",\"uid\":\"1\",\"controller\":true,\"blockOwnerDeletion\":true},{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"name\":\"b\",\"uid\":\"2\",\"controller\":true}]: Only one reference can have Controller set to true. Found \"true\" in references for K/a and K/b",
            ]
        );
        assert_eq!(
            messages(
                json!({"ownerReferences": [{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "3"}]})
            ),
            [
                "metadata.ownerReferences: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"e\",\"uid\":\"3\"}: /v1, Kind=Event is disallowed from being an owner",
            ]
        );
        assert_eq!(
            messages(json!({"finalizers": ["orphan", "x/y", "foregroundDeletion"]})),
            [
                "metadata.finalizers: Invalid value: [\"orphan\",\"x/y\",\"foregroundDeletion\"]: finalizer orphan and foregroundDeletion cannot be both set",
            ]
        );
    }
}
