//! The validation kube-apiserver writes by hand for its built-in kinds (a Deployment's
//! selector matching its template, container names, Service ports, ConfigMap keys, an
//! immutable selector, ...), run on every create and update of a built-in object through
//! the library ([`BuiltinKind::validate_update`](kcel_stdlib::kubernetes::builtin::BuiltinKind::validate_update),
//! the same check `kcel validate` makes), answered as upstream's 422: `Deployment.apps "web"
//! is invalid: spec.template.metadata.labels: Invalid value: ...`.
//!
//! CustomResourceDefinitions and admission policies have their own validation (`crd`,
//! `admission`); custom resources are validated by their CRD (`metadata` included). For the
//! kinds whose validation is not the library's, the parts of `metadata` every kind's
//! validation checks (`ValidateObjectMetaAccessor`: owner references, finalizers, managed
//! fields; the library's `reference_errors`) are checked here on every write, and the
//! update of `metadata` as upstream's `rest.BeforeUpdate` checks it (the library's
//! `object_meta_update`: immutable uid, timestamps, grace period, no new finalizers while
//! deleting).

use serde_json::Value;

use kcel_stdlib::kubernetes::{builtin, object_meta_update};

use crate::error::ApiError;
use crate::object::Object;
use crate::resource::Resource;

/// The groups whose kinds this server validates elsewhere: CRDs in `crd::definition::admit`
/// (with the library's CRD validation, which `validate_update` would run a second time)
/// and admission policies in `admission`.
const VALIDATED_ELSEWHERE: &[&str] = &["apiextensions.k8s.io", "admissionregistration.k8s.io"];

/// The library's built-in kind of `resource`, if the library validates its objects here.
fn library_kind(resource: &Resource) -> Option<builtin::BuiltinKind> {
    builtin::kind(&resource.api_version(), resource.kind)
        .filter(|_| !VALIDATED_ELSEWHERE.contains(&resource.group))
}

/// Whether [`check`] validates the whole `metadata` of `resource`'s objects (name rule
/// included) with the library, as the kind's strategy does upstream.
pub fn validates_metadata(resource: &Resource) -> bool {
    library_kind(resource).is_some()
}

/// Checks a create (`old` is `None`) or an update of `object`, a built-in kind's object.
pub fn check(resource: &Resource, object: &Object, old: Option<&Object>) -> Result<(), ApiError> {
    let kind = library_kind(resource);
    let errors = match (kind, old) {
        (Some(kind), _) => {
            let object = Value::Object(object.clone());
            let old = old.map(|o| Value::Object(o.clone()));
            kind.validate_update(&object, old.as_ref()).errors
        }
        // Every other kind: owner references, finalizers and managed fields, then on update
        // the metadata rules of rest.BeforeUpdate (read from the two `metadata`s alone, no
        // copy of the objects). A custom resource got here valid: this finds nothing new.
        (None, old) => {
            let meta = |o: &Object| serde_json::json!({"metadata": o.get("metadata")});
            let new = meta(object);
            let mut errors = kcel_stdlib::kubernetes::reference_errors(&new);
            if let Some(old) = old {
                errors.extend(object_meta_update::errors(&new, &meta(old)));
            }
            errors
        }
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
