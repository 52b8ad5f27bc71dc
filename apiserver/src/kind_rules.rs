//! The validation kube-apiserver writes by hand for its built-in kinds (a Deployment's
//! selector matching its template, container names, Service ports, ConfigMap keys, an
//! immutable selector, ...), run on every create and update of a built-in object through
//! the library ([`BuiltinKind::validate_update`](kcel_stdlib::kubernetes::builtin::BuiltinKind::validate_update),
//! the same check `kcel validate` makes), answered as upstream's 422: `Deployment.apps "web"
//! is invalid: spec.template.metadata.labels: Invalid value: ...`.
//!
//! CustomResourceDefinitions and admission policies have their own validation (`crd`,
//! `admission`); custom resources are validated by their CRD.

use serde_json::Value;

use kcel_stdlib::kubernetes::builtin;

use crate::error::ApiError;
use crate::object::Object;
use crate::resource::Resource;

/// The groups whose kinds this server validates elsewhere.
const VALIDATED_ELSEWHERE: &[&str] = &["apiextensions.k8s.io", "admissionregistration.k8s.io"];

/// Checks a create (`old` is `None`) or an update of `object`, a built-in kind's object.
pub fn check(resource: &Resource, object: &Object, old: Option<&Object>) -> Result<(), ApiError> {
    if VALIDATED_ELSEWHERE.contains(&resource.group) {
        return Ok(());
    }
    let Some(kind) = builtin::kind(&resource.api_version(), resource.kind) else {
        return Ok(());
    };
    let object = Value::Object(object.clone());
    let old = old.map(|o| Value::Object(o.clone()));
    let outcome = kind.validate_update(&object, old.as_ref());
    if outcome.errors.is_empty() {
        return Ok(());
    }
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    Err(crate::crd::definition::invalid_error(
        &resource.group_kind(),
        resource.group,
        resource.kind,
        name,
        &outcome.errors,
    ))
}
