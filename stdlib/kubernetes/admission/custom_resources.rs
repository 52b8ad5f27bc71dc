//! Custom resources around admission, as kube-apiserver writes one: the request's object
//! is decoded by its CRD before any admission plugin sees it ([`decode`]: pruned of the
//! fields its version's schema does not know and defaulted, as apiextensions-apiserver's
//! request scope decodes a body, `customresource_handler.go`: `schemaCoercingDecoder`, then
//! `unstructuredDefaulter`; the stored old object is read through the same coercion), the
//! mutating admission policies run (each mutation's result defaulted,
//! [`super::mutating`]), then the custom resource strategy validates the object
//! ([`validate`]: k8s.io/apiserver `registry/generic/registry/store.go`, `Create` calls
//! `rest.BeforeCreate`, which runs `customResourceStrategy.Validate`, and `Update` runs
//! `rest.BeforeUpdate` with `ValidateUpdate`, before the `createValidation` /
//! `updateValidation` admission callbacks: metadata, the OpenAPI schema, list types, the
//! `x-kubernetes-validations` rules, ratcheted on update) and only a valid object reaches
//! the validating admission policies. An object the strategy refuses is the request's 422
//! (`errors.NewInvalid(<Kind>.<group>, name, errs)`, [`invalid_message`]).
//!
//! The object validated, shown to the validating policies and answered is pruned again
//! after the mutations, as the kcel API server prunes it (its `crd::validate`). kube-apiserver
//! prunes a mutated custom resource when it encodes it for storage and decodes the answer,
//! after validating admission: a field outside the schema that a JSON patch adds is never
//! stored nor answered there either, but its validating policies could read it.

use std::sync::Arc;

use serde_json::Value as Json;

use super::{AdmissionRequest, Status};
use crate::kubernetes::crd::{CrdError, CrdValidator, invalid_message};

/// A custom resource as the API server would store it after admission, with the warnings
/// its validation gave (rules that failed but were ratcheted on update).
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    /// The object, typed, pruned, defaulted and valid.
    pub object: Json,
    /// `Warning` header texts.
    pub warnings: Vec<String>,
}

/// Whether `request` writes an object of `crd`'s kind through its main resource (a create
/// or an update with an object; subresources are validated otherwise upstream).
pub fn writes(crd: &CrdValidator, request: &AdmissionRequest) -> bool {
    matches!(request.operation.as_str(), "CREATE" | "UPDATE")
        && request.sub_resource.is_empty()
        && request.object.is_some()
        && request.kind.group == crd.group()
        && request.kind.kind == crd.kind()
}

/// Decodes the request's object and old object as the API server decodes a custom
/// resource it is given or reads (typed as the request's kind and named as the request
/// when they do not say, then pruned and defaulted by their version's schema). An error is the request's failure (a version the CRD does not serve,
/// a schema that does not compile).
pub fn decode(crd: &CrdValidator, request: &mut AdmissionRequest) -> Result<(), Status> {
    for field in [&mut request.object, &mut request.old_object] {
        if let Some(mut object) = field.take() {
            complete(&mut object, request_identity(&request.kind, &request.name));
            let (decoded, _pruned) = crd
                .decode_owned(object)
                .map_err(|e| failure(e, &request.resource))?;
            *field = Some(decoded);
        }
    }
    Ok(())
}

/// Validates the request's object (after the mutating policies) as the custom resource
/// strategy does, the request's old object the stored one on update: the object pruned,
/// defaulted and valid with the validation's warnings, or the 422 Invalid naming
/// `<Kind>.<group>` and the object with every field error.
pub fn validate(crd: &CrdValidator, request: &AdmissionRequest) -> Result<Written, Status> {
    let mut object = request.object.clone().unwrap_or(Json::Null);
    let identity = request_identity(&request.kind, &request.name);
    complete(&mut object, identity);
    let old = request.old_object.clone().map(|mut old| {
        complete(&mut old, identity);
        Arc::new(old)
    });
    let name = object
        .pointer("/metadata/name")
        .and_then(Json::as_str)
        .unwrap_or(&request.name)
        .to_owned();
    let (object, outcome) = crd
        .validate_owned(object, old.as_ref())
        .map_err(|e| failure(e, &request.resource))?;
    if !outcome.errors.is_empty() {
        let qualified_kind = format!("{}.{}", crd.kind(), crd.group());
        return Err(Status {
            code: 422,
            reason: "Invalid".to_owned(),
            message: invalid_message(&qualified_kind, &name, &outcome.errors),
            cause: None,
        });
    }
    // Pruned fields are warned of only under `fieldValidation=Warn` of the request body
    // (the API server's decoding), not after admission.
    let warnings = (outcome.warnings.into_iter())
        .filter(|w| !w.starts_with("unknown field "))
        .collect();
    Ok(Written { object, warnings })
}

/// The request's kind and name, which an object without them takes.
#[derive(Clone, Copy)]
struct Identity<'a> {
    group: &'a str,
    version: &'a str,
    kind: &'a str,
    name: &'a str,
}

fn request_identity<'a>(kind: &'a super::api::GroupVersionKind, name: &'a str) -> Identity<'a> {
    Identity {
        group: &kind.group,
        version: &kind.version,
        kind: &kind.kind,
        name,
    }
}

/// Types the object as the request's kind (`apiVersion` and `kind`, which the API server
/// sets from the request's path) and names it as the request when it has no name (an
/// admission request's object carries the name upstream; suites may leave it out).
fn complete(object: &mut Json, identity: Identity<'_>) {
    let Some(map) = object.as_object_mut() else {
        return;
    };
    let api_version = if identity.group.is_empty() {
        identity.version.to_owned()
    } else {
        format!("{}/{}", identity.group, identity.version)
    };
    map.insert("apiVersion".to_owned(), Json::from(api_version));
    map.insert("kind".to_owned(), Json::from(identity.kind));
    let metadata = map
        .entry("metadata")
        .or_insert_with(|| Json::Object(Default::default()));
    if let Some(meta) = metadata.as_object_mut()
        && meta
            .get("name")
            .and_then(Json::as_str)
            .is_none_or(str::is_empty)
        && !identity.name.is_empty()
    {
        meta.insert("name".to_owned(), Json::from(identity.name));
    }
}

/// The request's failure for a CRD that cannot validate the object, as the kcel API
/// server answers it: a version it does not serve is 400 BadRequest, a version whose
/// schema does not compile 500 InternalError.
fn failure(error: CrdError, resource: &super::api::GroupVersionResource) -> Status {
    match error {
        CrdError::NotServed(reason) => Status {
            code: 400,
            reason: "BadRequest".to_owned(),
            message: reason.to_string(),
            cause: None,
        },
        CrdError::Schema { errors, .. } => {
            let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
            let resource = if resource.group.is_empty() {
                resource.resource.clone()
            } else {
                format!("{}.{}", resource.resource, resource.group)
            };
            Status::internal_error(format!(
                "the schema of {resource} is invalid: {}",
                errors.join(", ")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd() -> CrdValidator {
        CrdValidator::new(&json!({
            "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"},
                "scope": "Namespaced",
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                        "spec": {"type": "object", "properties": {
                            "size": {"type": "integer", "maximum": 3, "default": 1}}}}}}}]}
        }))
        .unwrap()
    }

    fn request(object: Json) -> AdmissionRequest {
        serde_json::from_value(json!({
            "kind": {"group": "example.com", "version": "v1", "kind": "Widget"},
            "resource": {"group": "example.com", "version": "v1", "resource": "widgets"},
            "name": "w", "namespace": "default", "operation": "CREATE", "object": object
        }))
        .unwrap()
    }

    #[test]
    fn objects_are_typed_named_pruned_and_defaulted() {
        let crd = crd();
        let mut r = request(json!({"spec": {"extra": true}, "extra": 1}));
        assert!(writes(&crd, &r));
        decode(&crd, &mut r).unwrap();
        assert_eq!(
            r.object.unwrap(),
            json!({"apiVersion": "example.com/v1", "kind": "Widget",
                   "metadata": {"name": "w"}, "spec": {"size": 1}})
        );
    }

    #[test]
    fn an_invalid_object_is_the_servers_422() {
        let status = validate(&crd(), &request(json!({"spec": {"size": 5}}))).unwrap_err();
        assert_eq!(status.code, 422);
        assert_eq!(status.reason, "Invalid");
        assert_eq!(
            status.message,
            "Widget.example.com \"w\" is invalid: spec.size: Invalid value: 5: spec.size in \
             body should be less than or equal to 3"
        );
        let written = validate(&crd(), &request(json!({"spec": {"size": 2, "x": 1}}))).unwrap();
        assert_eq!(written.object["spec"], json!({"size": 2}));
        assert!(written.warnings.is_empty(), "{:?}", written.warnings);
    }

    #[test]
    fn other_kinds_subresources_and_deletes_are_not_written_here() {
        let crd = crd();
        let mut other = request(json!({}));
        other.kind.kind = "Gadget".into();
        assert!(!writes(&crd, &other));
        let mut status = request(json!({}));
        status.sub_resource = "status".into();
        assert!(!writes(&crd, &status));
        let mut delete = request(json!({}));
        delete.operation = "DELETE".into();
        assert!(!writes(&crd, &delete));
    }

    #[test]
    fn invalid_messages_aggregate_as_apimachinery() {
        use crate::kubernetes::crd::{ErrorType, FieldError, FieldPath};
        let e = |f: &str| FieldError::new(FieldPath::new(f), ErrorType::Required, "", "");
        assert_eq!(invalid_message("K.g", "n", &[]), "K.g \"n\" is invalid");
        assert_eq!(
            invalid_message("K.g", "n", &[e("a"), e("a")]),
            "K.g \"n\" is invalid: a: Required value"
        );
        assert_eq!(
            invalid_message("K.g", "n", &[e("a"), e("b"), e("a")]),
            "K.g \"n\" is invalid: [a: Required value, b: Required value]"
        );
    }
}
