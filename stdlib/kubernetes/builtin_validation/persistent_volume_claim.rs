//! PersistentVolumeClaims (kubernetes/kubernetes `pkg/apis/core/validation/validation.go`):
//! `ValidatePersistentVolumeClaimSpec` — access modes, the selector, the storage request,
//! the storage and volume attributes class names, the volume mode, the data sources — on the
//! spec as the claim strategy's `PrepareForCreate` and `PrepareForUpdate` leave it
//! ([`prepare`]), with the update's options (`ValidationOptionsForPersistentVolumeClaim`: an
//! invalid old selector's label values and an old data source's API group allowed).
//!
//! Left out: the update's own rules (`ValidatePersistentVolumeClaimUpdate`: an immutable spec
//! reported with a Go `cmp.Diff` of the two specs, storage requests that may only grow) and
//! the warnings (`GetWarningsForPersistentVolumeClaim`).

use serde_json::Value as Json;

use super::errors::Errors;
use super::label_selector::LabelSelector;
use super::read;
use crate::kubernetes::crd::field_error::FieldPath;
use crate::kubernetes::quantity::from_go_json;

/// What an update lets stand (`PersistentVolumeClaimSpecValidationOptions`).
#[derive(Default)]
struct Options {
    /// `AllowInvalidLabelValueInSelector`: the old selector was invalid.
    allow_invalid_label_values: bool,
    /// `AllowInvalidAPIGroupInDataSourceOrRef`: the old spec's data source or reference
    /// names an API group.
    allow_invalid_api_group: bool,
}

impl Options {
    fn of(old: Option<&Json>) -> Options {
        let Some(old) = old else {
            return Options::default();
        };
        let spec = read::field(old, "spec").unwrap_or(&Json::Null);
        let has_group = |field: &str| {
            read::field(spec, field).is_some_and(|r| read::field(r, "apiGroup").is_some())
        };
        Options {
            allow_invalid_label_values: read::field(spec, "selector")
                .is_some_and(|s| LabelSelector::read(s).is_invalid()),
            allow_invalid_api_group: has_group("dataSource") || has_group("dataSourceRef"),
        }
    }
}

/// `ValidatePersistentVolumeClaim`'s spec (after the metadata).
pub(super) fn persistent_volume_claim(e: &mut Errors, object: &Json, old: Option<&Json>) {
    let options = Options::of(old);
    let mut prepared = object.clone();
    prepare(&mut prepared, old);
    let spec = read::field(&prepared, "spec").unwrap_or(&Json::Null);
    let path = FieldPath::new("spec");
    let modes: Vec<&str> = read::list(spec, "accessModes")
        .iter()
        .map(|m| m.as_str().unwrap_or_default())
        .collect();
    if modes.is_empty() {
        e.required(
            &path.child("accessModes"),
            "at least 1 access mode is required",
        );
    }
    if let Some(selector) = read::field(spec, "selector") {
        LabelSelector::read(selector).validate_with(
            e,
            &path.child("selector"),
            options.allow_invalid_label_values,
        );
    }
    const MODES: [&str; 4] = [
        "ReadOnlyMany",
        "ReadWriteMany",
        "ReadWriteOnce",
        "ReadWriteOncePod",
    ];
    let (mut once_pod, mut others) = (false, false);
    for mode in &modes {
        if !MODES.contains(mode) {
            e.not_supported(&path.child("accessModes"), mode, &MODES);
        } else if *mode == "ReadWriteOncePod" {
            once_pod = true;
        } else {
            others = true;
        }
    }
    if once_pod && others {
        e.forbidden(
            &path.child("accessModes"),
            "may not use ReadWriteOncePod with other access modes",
        );
    }
    let storage_at = path.child("resources").key("storage");
    let requests = read::field(spec, "resources").and_then(|r| read::field(r, "requests"));
    // A `null` request decodes as the zero quantity, present.
    match requests.and_then(|r| r.get("storage")) {
        None => e.required(&storage_at, ""),
        Some(value) => {
            if let Ok(q) = from_go_json(value)
                && q.sign() <= 0
            {
                e.invalid(
                    &storage_at,
                    &q.canonical_string(),
                    "must be greater than zero",
                );
            }
        }
    }
    for field in ["storageClassName", "volumeAttributesClassName"] {
        if let Some(name) = read::field(spec, field).and_then(Json::as_str)
            && !name.is_empty()
        {
            e.dns1123_subdomain(&path.child(field), name);
        }
    }
    if let Some(mode) = read::field(spec, "volumeMode").and_then(Json::as_str)
        && !matches!(mode, "Block" | "Filesystem")
    {
        e.not_supported(&path.child("volumeMode"), mode, &["Block", "Filesystem"]);
    }
    data_sources(e, spec, &path, &options);
}

/// What the claim strategy's `PrepareForCreate` and `PrepareForUpdate` do to the data
/// sources of `object` (`old`: the stored claim on update): with no reference given, a data
/// source other than a claim or a `snapshot.storage.k8s.io` VolumeSnapshot is dropped unless
/// the old claim had a data source (`EnforceDataSourceBackwardsCompatibility`); then a data
/// source alone is copied to `dataSourceRef`, a reference without a namespace to
/// `dataSource` (`NormalizeDataSources`).
pub(super) fn prepare(object: &mut Json, old: Option<&Json>) {
    let old_spec = old.and_then(|o| read::field(o, "spec"));
    let old_in_use = old_spec.is_some_and(|s| {
        read::field(s, "dataSource").is_some() || read::field(s, "dataSourceRef").is_some()
    });
    let Some(spec) = object.get_mut("spec").and_then(Json::as_object_mut) else {
        return;
    };
    let unset =
        |spec: &serde_json::Map<String, Json>, key: &str| spec.get(key).is_none_or(Json::is_null);
    if !old_in_use && unset(spec, "dataSourceRef") {
        let kept = spec.get("dataSource").is_some_and(|s| {
            matches!(
                (read::text(s, "kind"), read::text(s, "apiGroup")),
                ("PersistentVolumeClaim", "") | ("VolumeSnapshot", "snapshot.storage.k8s.io")
            )
        });
        if !kept {
            spec.remove("dataSource");
        }
    }
    // The copies hold the kind, the name and the API group, as upstream builds them.
    let copy = |r: &Json| {
        let mut out = serde_json::Map::new();
        for key in ["apiGroup", "kind", "name"] {
            if let Some(v) = read::field(r, key) {
                out.insert(key.to_owned(), v.clone());
            }
        }
        Json::Object(out)
    };
    match (unset(spec, "dataSource"), unset(spec, "dataSourceRef")) {
        (false, true) => {
            let reference = copy(&spec["dataSource"]);
            spec.insert("dataSourceRef".to_owned(), reference);
        }
        (true, false) if read::text(&spec["dataSourceRef"], "namespace").is_empty() => {
            let source = copy(&spec["dataSourceRef"]);
            spec.insert("dataSource".to_owned(), source);
        }
        _ => {}
    }
}

/// The data source and its reference (as [`prepare`] leaves them).
fn data_sources(e: &mut Errors, spec: &Json, path: &FieldPath, options: &Options) {
    let source = read::field(spec, "dataSource");
    let reference = read::field(spec, "dataSourceRef");
    if let Some(source) = source {
        data_source(e, source, &path.child("dataSource"), options);
    }
    let ref_namespace = reference
        .map(|r| read::text(r, "namespace"))
        .unwrap_or_default();
    if let Some(reference) = reference {
        let at = path.child("dataSourceRef");
        data_source(e, reference, &at, options);
        if !ref_namespace.is_empty() {
            e.dns1123_label(&at.child("namespace"), ref_namespace);
        }
    }
    let source_at = path.child("dataSource").to_string();
    if !ref_namespace.is_empty() {
        if source.is_some() {
            e.invalid_rendered(
                path,
                source_at,
                "may not be specified when dataSourceRef.namespace is specified",
            );
        }
    } else if let (Some(s), Some(r)) = (source, reference) {
        let same = read::field(s, "apiGroup") == read::field(r, "apiGroup")
            && read::text(s, "kind") == read::text(r, "kind")
            && read::text(s, "name") == read::text(r, "name");
        if !same {
            e.invalid_rendered(path, source_at, "must match dataSourceRef");
        }
    }
}

/// `validateDataSource` / `validateDataSourceRef` (without the namespace).
fn data_source(e: &mut Errors, source: &Json, path: &FieldPath, options: &Options) {
    let kind = read::text(source, "kind");
    if read::text(source, "name").is_empty() {
        e.required(&path.child("name"), "");
    }
    if kind.is_empty() {
        e.required(&path.child("kind"), "");
    }
    let group = read::text(source, "apiGroup");
    if group.is_empty() && kind != "PersistentVolumeClaim" {
        e.invalid(
            path,
            kind,
            "must be 'PersistentVolumeClaim' when referencing the default apiGroup",
        );
    }
    if !group.is_empty() && !options.allow_invalid_api_group {
        e.dns1123_subdomain(&path.child("apiGroup"), group);
    }
}
