//! The validation kube-apiserver writes by hand for its built-in kinds (a Deployment's
//! selector matching its template, container names, Service ports, ConfigMap keys, an
//! immutable selector, ...), run on every create and update of a built-in object through
//! the library ([`BuiltinKind::validate_update`](kcel_stdlib::kubernetes::builtin::BuiltinKind::validate_update),
//! the same check `kcel validate` makes), answered as upstream's 422: `Deployment.apps "web"
//! is invalid: spec.template.metadata.labels: Invalid value: ...`.
//!
//! CustomResourceDefinitions and admission policies have their own validation (`crd`,
//! `admission`); custom resources are validated by their CRD. The update of every kind's
//! `metadata` is checked as upstream's `rest.BeforeUpdate` checks it (the library's
//! `object_meta_update`: immutable uid, timestamps, grace period, no new finalizers while
//! deleting).

use serde_json::Value;

use kcel_stdlib::kubernetes::{builtin, object_meta_update};

use crate::error::ApiError;
use crate::object::Object;
use crate::resource::Resource;

/// The groups whose kinds this server validates elsewhere.
const VALIDATED_ELSEWHERE: &[&str] = &["apiextensions.k8s.io", "admissionregistration.k8s.io"];

/// Checks a create (`old` is `None`) or an update of `object`, a built-in kind's object.
pub fn check(resource: &Resource, object: &Object, old: Option<&Object>) -> Result<(), ApiError> {
    let kind = builtin::kind(&resource.api_version(), resource.kind)
        .filter(|_| !VALIDATED_ELSEWHERE.contains(&resource.group));
    let errors = match (kind, old) {
        (Some(kind), _) => {
            let object = Value::Object(object.clone());
            let old = old.map(|o| Value::Object(o.clone()));
            kind.validate_update(&object, old.as_ref()).errors
        }
        // Every other kind's update: the metadata rules of rest.BeforeUpdate (read from the
        // two `metadata`s alone, no copy of the objects).
        (None, Some(old)) => {
            let meta = |o: &Object| serde_json::json!({"metadata": o.get("metadata")});
            object_meta_update::errors(&meta(object), &meta(old))
        }
        (None, None) => return Ok(()),
    };
    if errors.is_empty() {
        return Ok(());
    }
    let name = crate::object::meta_str(object, "name");
    Err(crate::crd::definition::invalid_error(
        &resource.group_kind(),
        resource.group,
        resource.kind,
        name,
        &errors,
    ))
}
