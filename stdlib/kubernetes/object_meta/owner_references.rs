//! `metadata.ownerReferences` as the API server validates them on every write: apimachinery
//! `pkg/api/validation/objectmeta.go`, `ValidateOwnerReferences` and
//! `validateOwnerReference` (Kubernetes 1.37: the errors at the reference's index, the empty
//! fields `Required`, the API version parsed by `schema.ParseGroupVersion`).
//!
//! The API server checks no more than this: a reference to the object itself or to an
//! object that does not exist is accepted (the garbage collector deals with them), and a
//! reference given twice, identical, is merged with a warning by the request handler before
//! validation (k8s.io/apiserver `handlers/rest.go` `dedupOwnerReferencesAndAddWarning`; not
//! this module's business).

use serde_json::Value as Json;

use crate::kubernetes::crd::field_error::{ErrorType, FieldError, FieldPath, go_json_quote};

/// apimachinery `BannedOwners`: the kinds that may own nothing, as `(group, version, kind)`.
const BANNED_OWNERS: &[(&str, &str, &str)] = &[("", "v1", "Event")];

/// The errors of `references` (the list at `path`, `metadata.ownerReferences`), in
/// upstream's order: per reference its apiVersion, kind, name, uid and banned owner kind,
/// and every reference after the first with `controller: true`.
pub fn errors(path: &FieldPath, references: &[Json]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut first_controller: Option<String> = None;
    for (i, reference) in references.iter().enumerate() {
        let at = path.index(i);
        let text = |f: &str| reference.get(f).and_then(Json::as_str).unwrap_or_default();
        let api_version = text("apiVersion");
        let parsed = parse_group_version(api_version);
        if api_version.is_empty() {
            errors.push(required(at.child("apiVersion")));
        } else if parsed.is_none_or(|(_, version)| version.is_empty()) {
            errors.push(FieldError::new(
                at.child("apiVersion"),
                ErrorType::Invalid,
                api_version,
                "must be <group>/<version> or <version>",
            ));
        }
        for field in ["kind", "name", "uid"] {
            if text(field).is_empty() {
                errors.push(required(at.child(field)));
            }
        }
        // A version that does not parse is the zero GroupVersion here, as upstream.
        let (group, version) = parsed.unwrap_or_default();
        let kind = text("kind");
        if BANNED_OWNERS.contains(&(group, version, kind)) {
            // The bad value is the OwnerReference struct, shown as json.Marshal writes it;
            // the detail names the GroupVersionKind as its String() does.
            errors.push(FieldError::with_rendered_value(
                at,
                ErrorType::Invalid,
                go_json(reference),
                format!("{group}/{version}, Kind={kind} is disallowed from being an owner"),
            ));
        }
        if reference.get("controller") == Some(&Json::Bool(true)) {
            let current = format!("{kind}/{}", text("name"));
            match &first_controller {
                Some(first) => {
                    let all: Vec<String> = references.iter().map(go_json).collect();
                    errors.push(FieldError::with_rendered_value(
                        path.clone(),
                        ErrorType::Invalid,
                        format!("[{}]", all.join(",")),
                        format!(
                            "Only one reference can have Controller set to true. Found \"true\" \
                             in references for {first} and {current}"
                        ),
                    ));
                }
                None => first_controller = Some(current),
            }
        }
    }
    errors
}

/// `field.Required(path, "must not be empty")`.
fn required(path: FieldPath) -> FieldError {
    FieldError::new(path, ErrorType::Required, "", "must not be empty")
}

/// apimachinery `schema.ParseGroupVersion`: `""` and `"/"` are the empty GroupVersion, no
/// `/` the legacy core group, one `/` splits group and version, more is an error (`None`).
pub(crate) fn parse_group_version(text: &str) -> Option<(&str, &str)> {
    if text.is_empty() || text == "/" {
        return Some(("", ""));
    }
    match text.matches('/').count() {
        0 => Some(("", text)),
        1 => text.split_once('/'),
        _ => None,
    }
}

/// A `metav1.OwnerReference` as `json.Marshal` writes it: its fields in declaration order,
/// the two `*bool` fields only when set.
fn go_json(reference: &Json) -> String {
    let text = |f: &str| go_json_quote(reference.get(f).and_then(Json::as_str).unwrap_or(""));
    let mut fields: Vec<String> = ["apiVersion", "kind", "name", "uid"]
        .iter()
        .map(|f| format!("\"{f}\":{}", text(f)))
        .collect();
    for field in ["controller", "blockOwnerDeletion"] {
        if let Some(b) = reference.get(field).and_then(Json::as_bool) {
            fields.push(format!("\"{field}\":{b}"));
        }
    }
    format!("{{{}}}", fields.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(references: Json) -> Vec<String> {
        let path = FieldPath::new("metadata").child("ownerReferences");
        errors(&path, references.as_array().unwrap())
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn owner(api_version: &str, kind: &str) -> Json {
        json!({"apiVersion": api_version, "kind": kind, "name": "name", "uid": "1"})
    }

    // apimachinery objectmeta_test.go TestValidateObjectMetaOwnerReferences, case by case.
    #[test]
    fn validate_object_meta_owner_references() {
        // "simple success - third party extension."
        assert!(
            messages(json!([owner(
                "customresourceVersion",
                "customresourceKind"
            )]))
            .is_empty()
        );
        // "simple failures - event shouldn't be set as an owner"
        assert_eq!(
            messages(json!([owner("v1", "Event")])),
            [
                "metadata.ownerReferences[0]: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"name\",\"uid\":\"1\"}: /v1, Kind=Event is disallowed from being an owner"
            ]
        );
        // "simple failures - invalid apiVersion with too many slashes" / "with empty version"
        for bad in ["a/b/c", "foo/", "/"] {
            assert_eq!(
                messages(json!([owner(bad, "Pod")])),
                [format!(
                    "metadata.ownerReferences[0].apiVersion: Invalid value: \"{bad}\": must be <group>/<version> or <version>"
                )]
            );
        }
        // "simple success - apiVersion with no slashes (legacy core group)"; a leading `/`
        // is the core group too.
        assert!(messages(json!([owner("v1", "Pod"), owner("/v1", "Pod")])).is_empty());
        // "simple controller ref success - one reference with Controller set"
        let with = |uid: &str, kind: &str, controller: Option<bool>| {
            let mut r = json!({"apiVersion": "customresourceVersion", "kind": kind,
                               "name": "name", "uid": uid});
            if let Some(c) = controller {
                r["controller"] = json!(c);
            }
            r
        };
        assert!(
            messages(json!([
                with("1", "customresourceKind", Some(false)),
                with("2", "customresourceKind", Some(true)),
                with("3", "customresourceKind", Some(false)),
                with("4", "customresourceKind", None),
            ]))
            .is_empty()
        );
        // "simple controller ref failure - two references with Controller set"
        assert_eq!(
            messages(json!([
                with("1", "customresourceKind1", Some(false)),
                with("2", "customresourceKind2", Some(true)),
                with("3", "customresourceKind3", Some(true)),
                with("4", "customresourceKind4", None),
            ])),
            [
                "metadata.ownerReferences: Invalid value: [{\"apiVersion\":\"customresourceVersion\",\"kind\":\"customresourceKind1\",\"name\":\"name\",\"uid\":\"1\",\"controller\":false},{\"apiVersion\":\"customresourceVersion\",\"kind\":\"customresourceKind2\",\"name\":\"name\",\"uid\":\"2\",\"controller\":true},{\"apiVersion\":\"customresourceVersion\",\"kind\":\"customresourceKind3\",\"name\":\"name\",\"uid\":\"3\",\"controller\":true},{\"apiVersion\":\"customresourceVersion\",\"kind\":\"customresourceKind4\",\"name\":\"name\",\"uid\":\"4\"}]: Only one reference can have Controller set to true. Found \"true\" in references for customresourceKind2/name and customresourceKind3/name"
            ]
        );
    }

    // validateOwnerReference: every empty field Required (1.37 marks them covered by
    // declarative validation, whose alpha errors are not enforced), at the reference's index.
    #[test]
    fn empty_fields_are_required() {
        assert_eq!(
            messages(json!([owner("v1", "Pod"), {"controller": true}])),
            [
                "metadata.ownerReferences[1].apiVersion: Required value: must not be empty",
                "metadata.ownerReferences[1].kind: Required value: must not be empty",
                "metadata.ownerReferences[1].name: Required value: must not be empty",
                "metadata.ownerReferences[1].uid: Required value: must not be empty",
            ]
        );
        // Strings as json.Marshal escapes them.
        assert_eq!(
            messages(json!([{"apiVersion": "v1", "kind": "Event", "name": "<a&b>", "uid": "u"}])),
            [
                "metadata.ownerReferences[0]: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"\\u003ca\\u0026b\\u003e\",\"uid\":\"u\"}: /v1, Kind=Event is disallowed from being an owner"
            ]
        );
    }
}
