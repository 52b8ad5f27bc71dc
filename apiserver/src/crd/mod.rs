//! CustomResourceDefinitions (issue 20): CRDs stored as objects, checked and completed when
//! written ([`definition`]), served as soon as they are established ([`registry`], kept in step
//! with storage by [`tracking`]), and their custom resources written through the library's
//! CRD validation ([`mod@custom`]), listed in discovery ([`crd_discovery`]), printed as Tables
//! ([`columns`]) and scaled through the paths their CRD names ([`json_path`]).
//!
//! The built-in handlers stay as they are: they find custom resources through
//! the served module's `find`, and call [`decode`] and [`validate`] on every write
//! (before and after mutating admission).

pub mod columns;
pub mod conversion_spec;
pub mod crd_conversion;
pub mod crd_discovery;
pub mod crd_openapi;
pub mod crd_swagger;
pub mod custom;
pub mod definition;
pub mod json_path;
pub mod registry;
pub mod tracking;
pub mod webhook_client;

use crate::error::ApiError;
use crate::object::Object;
use crate::resource::{CUSTOMRESOURCEDEFINITIONS, Resource};

pub use crd_conversion::Versions;
pub use registry::{Crds, CustomResource, ServedVersion};
pub use tracking::track;

/// The structural schema of the custom resource version `resource`, for server-side apply
/// and managedFields (`None` for built-in kinds, or a version without a usable schema).
pub fn apply_schema<'a>(
    crd: Option<&'a CustomResource>,
    resource: &Resource,
) -> Option<&'a kcel_stdlib::kubernetes::crd::Schema> {
    let validator = crd?.validator.version(resource.version)?.ok()?;
    Some(validator.schema())
}

/// The resource part of storage keys: `<group>/<plural>` for CRDs and custom resources,
/// as kube-apiserver keys them; `None` for the built-in kinds (keyed by plural).
pub fn storage_resource(resource: &Resource) -> Option<String> {
    let built_in =
        crate::resource::built_in(resource.group, resource.version, resource.plural).is_some();
    (*resource == CUSTOMRESOURCEDEFINITIONS || !built_in)
        .then(|| format!("{}/{}", resource.group, resource.plural))
}

/// The decoding of every create and update (`old` given) before admission: a CRD's spec
/// defaulted; a custom resource refused while its CRD terminates (creates), typed, pruned
/// and defaulted by its CRD ([`custom::decode`]). Other kinds have nothing here.
pub fn decode(
    crds: &Crds,
    resource: &Resource,
    object: &mut Object,
    old: Option<&Object>,
) -> Result<(), ApiError> {
    if *resource == CUSTOMRESOURCEDEFINITIONS {
        definition::default_spec(object);
        return Ok(());
    }
    match crds.custom(resource) {
        Some(crd) => custom::decode(&crd, resource, object, old),
        None => Ok(()),
    }
}

/// The strategy's validation of every create and update (`old` given), after mutating
/// admission: CRDs are defaulted, validated and given their status
/// ([`definition::admit`]); custom resources pruned, defaulted and validated by their CRD
/// ([`custom::validate`]). Warnings (ratcheted rule failures) are added to `warnings`.
pub fn validate(
    crds: &Crds,
    resource: &Resource,
    object: &mut Object,
    old: Option<&Object>,
    warnings: &mut Vec<String>,
) -> Result<(), ApiError> {
    if *resource == CUSTOMRESOURCEDEFINITIONS {
        return definition::admit(crds, resource, object, old, warnings);
    }
    match crds.custom(resource) {
        Some(crd) => custom::validate(&crd, resource, object, old, warnings),
        None => Ok(()),
    }
}

/// The `Warning:` text of a request to a deprecated custom resource version.
pub fn deprecation(crds: &Crds, resource: &Resource) -> Option<String> {
    crds.custom(resource)?
        .version_of(resource)?
        .deprecation
        .clone()
}

/// The Table of custom resource objects, by their version's printer columns.
pub fn table(
    crds: &Crds,
    resource: &Resource,
    objects: &[&Object],
    list_metadata: &serde_json::Value,
    version: &str,
    headers: bool,
) -> Option<serde_json::Value> {
    let crd = crds.custom(resource)?;
    let v = crd.version_of(resource)?;
    Some(columns::table(
        v,
        objects,
        list_metadata.clone(),
        version,
        headers,
    ))
}
