//! `metadata` as the API server validates it on every write (apimachinery
//! `pkg/api/validation/objectmeta.go`, `ValidateObjectMetaAccessor` with
//! `NameIsDNSSubdomain`): the name or generateName, the namespace by the resource's scope,
//! label keys and values, annotation keys and their total size, owner references
//! ([`owner_references`]), finalizers ([`finalizers`]) and managed fields
//! ([`managed_fields`]).
//!
//! Offline, a missing namespace of a namespaced object is not an error (the API server
//! takes it from the request), nor a missing name with a `generateName` (the API server
//! generates the name before it validates). `generation` is not checked: on create the API
//! server sets it (`PrepareForCreate`), on update it keeps the stored one (`BeforeUpdate`),
//! so upstream's `ValidateNonnegativeField` of it never fails a request.

pub mod finalizers;
pub mod managed_fields;
pub mod owner_references;

use serde_json::Value as Json;

use super::crd::field_error::{ErrorType, FieldError, FieldPath};
use super::named_formats::{mask_trailing_dash, messages};

/// The most bytes of annotations, keys and values together (`TotalAnnotationSizeLimitB`).
pub const MAX_ANNOTATIONS_BYTES: usize = 256 * 1024;

/// Whether a resource lives in namespaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Namespaced,
    Cluster,
}

/// The errors of an object's `metadata` (`metadata` absent is treated as empty).
pub fn validate(object: &Json, scope: Scope) -> Vec<FieldError> {
    validate_named(object, scope, &dns_subdomain_name)
}

/// [`validate`] with the kind's own rule for names (and generated-name prefixes): upstream's
/// `ValidateNameFunc` of the kind, answering what is wrong with a name (nothing when valid).
pub fn validate_named(object: &Json, scope: Scope, name_rule: NameRule) -> Vec<FieldError> {
    validate_at(
        object.get("metadata"),
        &FieldPath::new("metadata"),
        scope,
        name_rule,
    )
}

/// [`validate_named`] of a `metadata` value (absent: empty) that sits at `path` (an
/// embedded resource's, `spec.template.metadata`).
pub fn validate_at(
    meta: Option<&Json>,
    path: &FieldPath,
    scope: Scope,
    name_rule: NameRule,
) -> Vec<FieldError> {
    let text = |f: &str| {
        meta.and_then(|m| m.get(f))
            .and_then(Json::as_str)
            .unwrap_or_default()
    };
    let strings = |f: &str| -> Vec<(String, String)> {
        meta.and_then(|m| m.get(f))
            .and_then(Json::as_object)
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let finalizers = meta_finalizer_names(meta);
    Meta {
        name: text("name"),
        generate_name: text("generateName"),
        namespace: text("namespace"),
        labels: &strings("labels"),
        annotations: &strings("annotations"),
        owner_references: meta_list(meta, "ownerReferences"),
        finalizers: &finalizers,
        managed_fields: meta.and_then(|m| m.get("managedFields")),
    }
    .errors_at(path, scope, name_rule)
}

/// The list `field` of an object's `metadata` (none when absent or not a list).
fn list<'a>(object: &'a Json, field: &str) -> &'a [Json] {
    meta_list(object.get("metadata"), field)
}

/// The list `field` of a `metadata` value (none when absent or not a list).
fn meta_list<'a>(meta: Option<&'a Json>, field: &str) -> &'a [Json] {
    meta.and_then(|m| m.get(field))
        .and_then(Json::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// An object's `metadata.finalizers` (the strings among them).
pub fn finalizer_names(object: &Json) -> Vec<&str> {
    meta_finalizer_names(object.get("metadata"))
}

/// The strings among a `metadata` value's `finalizers`.
fn meta_finalizer_names(meta: Option<&Json>) -> Vec<&str> {
    meta_list(meta, "finalizers")
        .iter()
        .filter_map(Json::as_str)
        .collect()
}

/// What every kind's metadata validation checks beyond names and namespaces, for the kinds
/// whose validation this library does not otherwise run: an object's owner references,
/// finalizers and managed fields (`Meta::errors_named`'s last three parts), in its order.
pub fn reference_errors(object: &Json) -> Vec<FieldError> {
    let path = FieldPath::new("metadata");
    let mut errors = owner_references::errors(
        &path.child("ownerReferences"),
        list(object, "ownerReferences"),
    );
    errors.extend(finalizers::errors(
        &path.child("finalizers"),
        &finalizer_names(object),
    ));
    errors.extend(managed_fields::request_errors(
        &path.child("managedFields"),
        object.get("metadata").and_then(|m| m.get("managedFields")),
    ));
    errors
}

/// A kind's rule for names (upstream's `ValidateNameFunc`): the messages for a name, or for
/// a `generateName` when the flag (`prefix`) is set; none when it is valid.
pub type NameRule<'a> = &'a dyn Fn(&str, bool) -> Vec<String>;

/// The messages of `format` for a name, with a prefix's trailing dash masked first
/// (apimachinery `NameIsDNSSubdomain` and its siblings: `maskTrailingDash` when `prefix`).
fn dns_name(format: &str, name: &str, prefix: bool) -> Vec<String> {
    if prefix {
        messages(format, &mask_trailing_dash(name))
    } else {
        messages(format, name)
    }
}

/// apimachinery `NameIsDNSSubdomain`: most kinds' names.
pub fn dns_subdomain_name(name: &str, prefix: bool) -> Vec<String> {
    dns_name("dns1123Subdomain", name, prefix)
}

/// apimachinery `NameIsDNSLabel` (core `ValidateNamespaceName`, apps
/// `ValidateStatefulSetName`).
pub fn dns_label_name(name: &str, prefix: bool) -> Vec<String> {
    dns_name("dns1123Label", name, prefix)
}

/// apimachinery `NameIsDNS1035Label` (core `ValidateServiceName`).
pub fn dns1035_label_name(name: &str, prefix: bool) -> Vec<String> {
    dns_name("dns1035Label", name, prefix)
}

/// apimachinery `path.ValidatePathSegmentName`: a name as [`path_segment_name`] checks it;
/// a prefix only for `/` and `%` (`IsValidPathSegmentPrefix`: a suffix may make `.` valid).
pub fn path_segment(name: &str, prefix: bool) -> Vec<String> {
    if prefix {
        forbidden_path_content(name)
    } else {
        path_segment_name(name)
    }
}

/// rbac `ValidateRBACName`: a name or a prefix alike, as [`path_segment_name`] checks a
/// name (upstream ignores the prefix flag).
pub fn rbac_name(name: &str, _prefix: bool) -> Vec<String> {
    path_segment_name(name)
}

/// The fields of `metadata` that are validated.
#[derive(Default)]
pub struct Meta<'a> {
    pub name: &'a str,
    pub generate_name: &'a str,
    pub namespace: &'a str,
    pub labels: &'a [(String, String)],
    pub annotations: &'a [(String, String)],
    /// `ownerReferences`, as sent.
    pub owner_references: &'a [Json],
    /// `finalizers`.
    pub finalizers: &'a [&'a str],
    /// `managedFields`, as sent (validated as the field manager keeps them:
    /// [`managed_fields::request_errors`]).
    pub managed_fields: Option<&'a Json>,
}

impl Meta<'_> {
    /// The errors, in the API server's order.
    pub fn errors(&self, scope: Scope) -> Vec<FieldError> {
        self.errors_named(scope, &dns_subdomain_name)
    }

    /// The errors, with the kind's own rule for names.
    pub fn errors_named(&self, scope: Scope, name_rule: NameRule) -> Vec<FieldError> {
        self.errors_at(&FieldPath::new("metadata"), scope, name_rule)
    }

    /// [`Meta::errors_named`] of a `metadata` at `path`.
    pub fn errors_at(
        &self,
        path: &FieldPath,
        scope: Scope,
        name_rule: NameRule,
    ) -> Vec<FieldError> {
        let mut errors = Vec::new();
        let invalid = |errors: &mut Vec<FieldError>, at: &FieldPath, value: &str, msg: &str| {
            errors.push(FieldError::new(at.clone(), ErrorType::Invalid, value, msg));
        };
        if !self.generate_name.is_empty() {
            for m in name_rule(self.generate_name, true) {
                invalid(
                    &mut errors,
                    &path.child("generateName"),
                    self.generate_name,
                    &m,
                );
            }
        }
        if self.name.is_empty() {
            if self.generate_name.is_empty() {
                errors.push(FieldError::new(
                    path.child("name"),
                    ErrorType::Required,
                    "",
                    "name or generateName is required",
                ));
            }
        } else {
            for m in name_rule(self.name, false) {
                invalid(&mut errors, &path.child("name"), self.name, &m);
            }
        }
        match scope {
            Scope::Namespaced if !self.namespace.is_empty() => {
                for m in messages("dns1123Label", self.namespace) {
                    invalid(&mut errors, &path.child("namespace"), self.namespace, &m);
                }
            }
            Scope::Cluster if !self.namespace.is_empty() => {
                errors.push(FieldError::new(
                    path.child("namespace"),
                    ErrorType::Forbidden,
                    "",
                    "not allowed on this type",
                ));
            }
            _ => {}
        }
        errors.extend(label_errors(&path.child("labels"), self.labels));
        errors.extend(annotation_errors(
            &path.child("annotations"),
            self.annotations,
        ));
        errors.extend(owner_references::errors(
            &path.child("ownerReferences"),
            self.owner_references,
        ));
        errors.extend(finalizers::errors(
            &path.child("finalizers"),
            self.finalizers,
        ));
        errors.extend(managed_fields::request_errors(
            &path.child("managedFields"),
            self.managed_fields,
        ));
        errors
    }
}

/// metav1 `ValidateLabels`: each key a qualified name, each value a label value, the errors
/// at `path` itself (not at the key), in the order of `labels`.
pub fn label_errors(path: &FieldPath, labels: &[(String, String)]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (key, value) in labels {
        for m in messages("qualifiedName", key) {
            errors.push(FieldError::new(path.clone(), ErrorType::Invalid, key, m));
        }
        for m in messages("labelValue", value) {
            errors.push(FieldError::new(path.clone(), ErrorType::Invalid, value, m));
        }
    }
    errors
}

/// apimachinery `ValidateAnnotations`: keys qualified names whatever their case, keys and
/// values together at most 256 KiB (`TotalAnnotationSizeLimitB`); the errors at `path`.
pub fn annotation_errors(path: &FieldPath, annotations: &[(String, String)]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut size = 0;
    for (key, value) in annotations {
        for m in messages("qualifiedName", &key.to_lowercase()) {
            errors.push(FieldError::new(path.clone(), ErrorType::Invalid, key, m));
        }
        size += key.len() + value.len();
    }
    if size > MAX_ANNOTATIONS_BYTES {
        errors.push(FieldError::too_long(path.clone(), MAX_ANNOTATIONS_BYTES));
    }
    errors
}

/// apimachinery's `path.IsValidPathSegmentName`: not `.` or `..`, without `/` or `%`.
pub fn path_segment_name(name: &str) -> Vec<String> {
    if name == "." || name == ".." {
        return vec![format!("may not be '{name}'")];
    }
    forbidden_path_content(name)
}

/// apimachinery `path.IsValidPathSegmentPrefix`: without `/` or `%`.
fn forbidden_path_content(name: &str) -> Vec<String> {
    ["/", "%"]
        .iter()
        .filter(|bad| name.contains(*bad))
        .map(|bad| format!("may not contain '{bad}'"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(object: Json, scope: Scope) -> Vec<String> {
        validate(&object, scope)
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    // apimachinery objectmeta_test.go (TestValidateObjectMetaNamespaces,
    // TestValidateObjectMetaUpdate's name cases, TestValidateAnnotations).
    #[test]
    fn names_namespaces_labels_and_annotations() {
        assert_eq!(
            errors(json!({"metadata": {}}), Scope::Namespaced),
            ["metadata.name: Required value: name or generateName is required"]
        );
        assert!(
            errors(
                json!({"metadata": {"generateName": "web-"}}),
                Scope::Namespaced
            )
            .is_empty()
        );
        assert_eq!(
            errors(
                json!({"metadata": {"name": "Web_1", "namespace": "a.b"}}),
                Scope::Namespaced
            ),
            [
                "metadata.name: Invalid value: \"Web_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "metadata.namespace: Invalid value: \"a.b\": must not contain dots",
            ]
        );
        assert_eq!(
            errors(
                json!({"metadata": {"name": "x", "namespace": "default"}}),
                Scope::Cluster
            ),
            ["metadata.namespace: Forbidden: not allowed on this type"]
        );
        let bad = errors(
            json!({"metadata": {"name": "x", "labels": {"a/b/c": "ok", "k": "-bad"}}}),
            Scope::Namespaced,
        );
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert!(bad[0].starts_with("metadata.labels: Invalid value: \"a/b/c\": a valid label key"));
        assert!(
            bad[1].starts_with("metadata.labels: Invalid value: \"-bad\": a valid label must be")
        );
        let big = "x".repeat(MAX_ANNOTATIONS_BYTES);
        assert_eq!(
            errors(
                json!({"metadata": {"name": "x", "annotations": {"a": big}}}),
                Scope::Namespaced
            ),
            ["metadata.annotations: Too long: may not be more than 262144 bytes"]
        );
    }

    // validateObjectMetaAccessorWithOptsCommon's order: labels, annotations, owner
    // references, finalizers, managed fields (these last three also alone, for the kinds
    // validated elsewhere: reference_errors).
    #[test]
    fn owners_finalizers_and_managed_fields_follow_labels() {
        let object = json!({"metadata": {
            "name": "x",
            "labels": {"k": "-bad"},
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p"}],
            "finalizers": ["orphan", "foregroundDeletion"],
            "managedFields": [{"manager": "m".repeat(129), "operation": "Update",
                               "apiVersion": "v1", "fieldsType": "FieldsV1"}],
        }});
        let all = errors(object.clone(), Scope::Namespaced);
        let paths: Vec<&str> = all.iter().map(|e| &e[..e.find(':').unwrap()]).collect();
        assert_eq!(
            paths,
            [
                "metadata.labels",
                "metadata.ownerReferences[0].uid",
                "metadata.finalizers",
                "metadata.managedFields[0].manager",
            ]
        );
        let references: Vec<String> = reference_errors(&object)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(references, all[1..]);
    }

    #[test]
    fn generate_name_is_a_prefix() {
        assert_eq!(mask_trailing_dash("web-"), "wea");
        assert_eq!(mask_trailing_dash("-"), "-");
        assert!(
            errors(
                json!({"metadata": {"generateName": "-"}}),
                Scope::Namespaced
            )[0]
            .starts_with("metadata.generateName: Invalid value: \"-\"")
        );
    }
}
