//! A pod volume's source (kubernetes/kubernetes `pkg/apis/core/validation`:
//! `validateVolumeSource`, `validateHostPathVolumeSource`, `validateSecretVolumeSource`,
//! `validateConfigMapVolumeSource`, `validateKeyToPath`, `validateNFSVolumeSource`,
//! `validatePersistentClaimVolumeSource`, `validateProjectedVolumeSource`,
//! `validateProjectionSources`, `ValidateLocalNonReservedPath`): exactly one source per
//! volume, and the fields of the common ones. Values are read after defaulting (modes 0644,
//! a host path's type `""`, a token's expiry 3600 seconds).
//!
//! Not checked here: the fields of the other sources (iSCSI, RBD, Ceph, CSI, ephemeral
//! claims, images, ...), downward API items and cluster trust bundles in projections.

use serde_json::Value as Json;

use super::errors::Errors;
use super::read;
use crate::kubernetes::crd::field_error::FieldPath;
use crate::kubernetes::quantity::parse_quantity;

/// `fileModeErrorMsg`.
const FILE_MODE: &str = "must be a number between 0 and 0777 (octal), both inclusive";

/// The text of a second source.
const MORE_THAN_ONE: &str = "may not specify more than 1 volume type";

/// The sources of a volume in the order `validateVolumeSource` looks at them: the JSON
/// field, and the path upstream names when the source is one too many (two differ from the
/// field: `cephFS` and `downwarAPI`, as upstream spells them).
const SOURCES: [(&str, &str); 30] = [
    ("emptyDir", "emptyDir"),
    ("hostPath", "hostPath"),
    ("gitRepo", "gitRepo"),
    ("gcePersistentDisk", "gcePersistentDisk"),
    ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("secret", "secret"),
    ("nfs", "nfs"),
    ("iscsi", "iscsi"),
    ("glusterfs", "glusterfs"),
    ("flocker", "flocker"),
    ("persistentVolumeClaim", "persistentVolumeClaim"),
    ("rbd", "rbd"),
    ("cinder", "cinder"),
    ("cephfs", "cephFS"),
    ("quobyte", "quobyte"),
    ("downwardAPI", "downwarAPI"),
    ("fc", "fc"),
    ("flexVolume", "flexVolume"),
    ("configMap", "configMap"),
    ("azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"),
    ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"),
    ("storageos", "storageos"),
    ("projected", "projected"),
    ("scaleIO", "scaleIO"),
    ("csi", "csi"),
    ("ephemeral", "ephemeral"),
    ("image", "image"),
];

/// `supportedHostPathTypes`, sorted as `sets.List` gives them.
const HOST_PATH_TYPES: [&str; 8] = [
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
];

/// `validateVolumeSource` of the volume at `path` (`spec.volumes[0]`).
pub(super) fn source(e: &mut Errors, volume: &Json, path: &FieldPath) {
    let mut found = 0;
    for (field, forbidden_at) in SOURCES {
        let Some(source) = read::field(volume, field) else {
            continue;
        };
        if field == "emptyDir" {
            found += 1;
            empty_dir(e, source, &path.child(field));
            continue;
        }
        if found > 0 {
            e.forbidden(&path.child(forbidden_at), MORE_THAN_ONE);
            continue;
        }
        found += 1;
        let at = path.child(field);
        match field {
            "hostPath" => host_path(e, source, &at),
            "secret" => secret(e, source, &at),
            "nfs" => nfs(e, source, &at),
            "persistentVolumeClaim" if read::text(source, "claimName").is_empty() => {
                e.required(&at.child("claimName"), "");
            }
            "configMap" => config_map(e, source, &at),
            "projected" => projected(e, source, &at),
            _ => {}
        }
    }
    if found == 0 {
        e.required(path, "must specify a volume type");
    }
}

/// An `emptyDir`'s size limit may not be negative.
fn empty_dir(e: &mut Errors, source: &Json, path: &FieldPath) {
    let negative = match read::field(source, "sizeLimit") {
        Some(Json::String(s)) => parse_quantity(s.trim()).is_ok_and(|q| q.sign() < 0),
        Some(Json::Number(n)) => n.as_f64().is_some_and(|f| f < 0.0),
        _ => false,
    };
    if negative {
        e.forbidden(
            &path.child("sizeLimit"),
            "SizeLimit field must be a valid resource quantity",
        );
    }
}

/// `validateHostPathVolumeSource`: a path without `..` elements, a known type.
fn host_path(e: &mut Errors, source: &Json, path: &FieldPath) {
    let host = read::text(source, "path");
    if host.is_empty() {
        e.required(&path.child("path"), "");
        return;
    }
    no_backsteps(e, host, &path.child("path"));
    let kind = read::text(source, "type");
    if !HOST_PATH_TYPES.contains(&kind) {
        e.not_supported(&path.child("type"), kind, &HOST_PATH_TYPES);
    }
}

/// `validatePathNoBacksteps`: no `..` element.
fn no_backsteps(e: &mut Errors, target: &str, path: &FieldPath) {
    if target.split('/').any(|part| part == "..") {
        e.invalid(path, target, "must not contain '..'");
    }
}

/// `ValidateLocalNonReservedPath`: relative, no `..` element, not starting with `..`.
fn local_non_reserved(e: &mut Errors, target: &str, path: &FieldPath) {
    if target.starts_with('/') {
        e.invalid(path, target, "must be a relative path");
    }
    no_backsteps(e, target, path);
    if target.starts_with("..") && !target.starts_with("../") {
        e.invalid(path, target, "must not start with '..'");
    }
}

/// A file mode (`defaultMode`, an item's `mode`) between 0 and 0777.
fn mode(e: &mut Errors, source: &Json, field: &str, path: &FieldPath) {
    if let Some(m) = read::int(source, field).filter(|m| !(0..=0o777).contains(m)) {
        e.invalid_int(&path.child(field), m, FILE_MODE);
    }
}

/// `validateKeyToPath`.
fn key_to_path(e: &mut Errors, item: &Json, path: &FieldPath) {
    if read::text(item, "key").is_empty() {
        e.required(&path.child("key"), "");
    }
    let target = read::text(item, "path");
    if target.is_empty() {
        e.required(&path.child("path"), "");
    }
    local_non_reserved(e, target, &path.child("path"));
    mode(e, item, "mode", path);
}

/// `validateSecretVolumeSource` / `validateConfigMapVolumeSource`: the object's name
/// (`name_field`), the default mode, the items.
fn named_items(e: &mut Errors, source: &Json, name_field: &str, path: &FieldPath) {
    if read::text(source, name_field).is_empty() {
        e.required(&path.child(name_field), "");
    }
    mode(e, source, "defaultMode", path);
    for (i, item) in read::list(source, "items").iter().enumerate() {
        key_to_path(e, item, &path.child("items").index(i));
    }
}

fn secret(e: &mut Errors, source: &Json, path: &FieldPath) {
    named_items(e, source, "secretName", path);
}

fn config_map(e: &mut Errors, source: &Json, path: &FieldPath) {
    named_items(e, source, "name", path);
}

/// `validateNFSVolumeSource`.
fn nfs(e: &mut Errors, source: &Json, path: &FieldPath) {
    if read::text(source, "server").is_empty() {
        e.required(&path.child("server"), "");
    }
    let target = read::text(source, "path");
    if target.is_empty() {
        e.required(&path.child("path"), "");
    }
    if !target.starts_with('/') {
        e.invalid(&path.child("path"), target, "must be an absolute path");
    }
}

/// `validateProjectedVolumeSource`: the default mode, then each source (one kind each;
/// secret and config map items with paths not used twice; a service account token's
/// expiry and path).
fn projected(e: &mut Errors, source: &Json, path: &FieldPath) {
    mode(e, source, "defaultMode", path);
    let mut paths = std::collections::BTreeSet::new();
    for (i, s) in read::list(source, "sources").iter().enumerate() {
        let at = path.child("sources").index(i);
        let mut kinds = 0;
        for kind in ["secret", "configMap"] {
            let Some(object) = read::field(s, kind) else {
                continue;
            };
            kinds += 1;
            let proj = at.child(kind);
            let name = read::text(object, "name");
            if name.is_empty() {
                e.required(&proj.child("name"), "");
            }
            for (j, item) in read::list(object, "items").iter().enumerate() {
                key_to_path(e, item, &proj.child("items").index(j));
                let target = read::text(item, "path");
                if !target.is_empty() && !paths.insert(target.to_owned()) {
                    e.invalid(path, name, "conflicting duplicate paths");
                }
            }
        }
        if read::field(s, "downwardAPI").is_some() {
            kinds += 1;
        }
        if let Some(token) = read::field(s, "serviceAccountToken") {
            kinds += 1;
            let proj = at.child("serviceAccountToken");
            let expiry = read::int(token, "expirationSeconds").unwrap_or(3600);
            if expiry < 10 * 60 {
                e.invalid_int(
                    &proj.child("expirationSeconds"),
                    expiry,
                    "may not specify a duration less than 10 minutes",
                );
            }
            if expiry > 1 << 32 {
                e.invalid_int(
                    &proj.child("expirationSeconds"),
                    expiry,
                    "may not specify a duration larger than 2^32 seconds",
                );
            }
            // (Upstream names the projected volume's `path`, not the source's.)
            let target = read::text(token, "path");
            if target.is_empty() {
                e.required(&path.child("path"), "");
            } else {
                local_non_reserved(e, target, &path.child("path"));
            }
        }
        if read::field(s, "clusterTrustBundle").is_some() {
            kinds += 1;
        }
        if kinds > 1 {
            e.forbidden(&at, "may not specify more than 1 volume type per source");
        }
    }
}
