//! Writes of custom resources, as apiextensions-apiserver's custom resource strategy makes
//! them: the object pruned and defaulted by its version's schema, then validated by the
//! library's [`CrdValidator`](kcel_stdlib::kubernetes::crd::CrdValidator) (metadata, OpenAPI
//! values, list types, the `x-kubernetes-validations` rules with `oldSelf` correlated to the
//! stored object, ratcheting, the per-request cost budget); failures are 422 Invalid
//! naming `<Kind>.<group>`, ratcheted failures `Warning:` headers.

use serde_json::Value;

use kcel_stdlib::kubernetes::crd::CrdError;

use super::definition::invalid_error;
use super::registry::CustomResource;
use crate::error::ApiError;
use crate::object::{self, Object};
use crate::resource::Resource;

fn not_served(resource: &Resource, e: CrdError) -> ApiError {
    match e {
        CrdError::NotServed(m) => ApiError::bad_request(m.to_string()),
        CrdError::Schema { errors, .. } => ApiError::internal(format!(
            "the schema of {} is invalid: {}",
            resource.group_resource(),
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Prunes (and defaults) the object by the schema of its version; answers the paths of the
/// pruned fields (sorted), for `fieldValidation`.
pub fn prune_unknown(
    crd: &CustomResource,
    resource: &Resource,
    object: &mut Object,
) -> Result<Vec<String>, ApiError> {
    object::set_type(object, resource);
    // Pruned and defaulted in place: the object is given to the validator and taken back
    // (on an error the request fails and the object is not used again).
    let value = Value::Object(std::mem::take(object));
    let (decoded, unknown) = crd
        .validator
        .decode_owned(value)
        .map_err(|e| not_served(resource, e))?;
    if let Value::Object(o) = decoded {
        *object = o;
    }
    Ok(unknown)
}

/// Decodes a custom resource being written (`old` on update) as apiextensions-apiserver's
/// request scope decodes it, before any admission plugin sees it: refused while its CRD is
/// being deleted (creates only), typed, pruned and defaulted by its version's schema.
pub fn decode(
    crd: &CustomResource,
    resource: &Resource,
    object: &mut Object,
    old: Option<&Object>,
) -> Result<(), ApiError> {
    if old.is_none() && crd.terminating {
        return Err(ApiError {
            code: 405,
            reason: "MethodNotAllowed",
            message: "create not allowed while custom resource definition is terminating"
                .to_owned(),
            details: None,
        });
    }
    prune_unknown(crd, resource, object).map(drop)
}

/// Validates a custom resource being written (`old` on update), after mutating admission,
/// as the custom resource strategy does in `rest.BeforeCreate`/`BeforeUpdate`: on create
/// with a status subresource the status goes (`PrepareForCreate`); the object is pruned and
/// defaulted again (a mutation may have added fields outside the schema) and validated;
/// ratcheted failures become warnings.
pub fn validate(
    crd: &CustomResource,
    resource: &Resource,
    object: &mut Object,
    old: Option<&Object>,
    warnings: &mut Vec<String>,
) -> Result<(), ApiError> {
    object::set_type(object, resource);
    if old.is_none() && resource.status {
        // With a status subresource, a create cannot set the status (upstream's
        // PrepareForCreate).
        object.remove("status");
    }
    // Pruned, defaulted and validated in place: no copy of the object on the way.
    let value = Value::Object(std::mem::take(object));
    let old_value = old.map(|o| std::sync::Arc::new(Value::Object(o.clone())));
    let (decoded, outcome) = crd
        .validator
        .validate_owned(value, old_value.as_ref())
        .map_err(|e| not_served(resource, e))?;
    if let Value::Object(o) = decoded {
        *object = o;
    }
    if !outcome.errors.is_empty() {
        let name = object::meta_str(object, "name").to_owned();
        return Err(invalid_error(
            &resource.group_kind(),
            resource.group,
            resource.kind,
            &name,
            &outcome.errors,
        ));
    }
    for w in outcome.warnings {
        if !w.starts_with("unknown field ") && !warnings.contains(&w) {
            warnings.push(w);
        }
    }
    Ok(())
}
