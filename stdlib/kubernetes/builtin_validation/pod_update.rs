//! What an update of a Pod may change (kubernetes `pkg/apis/core/validation/validation.go`,
//! `ValidatePodUpdate`, after the pod's metadata and spec are validated as on create): the
//! annotations the kubelet owns, the containers' and init containers' images (none added or
//! removed), `activeDeadlineSeconds` (set, or lowered), tolerations (added, or an existing
//! one's `tolerationSeconds`), scheduling gates (removed), for a pod still gated additions to
//! its `nodeSelector`, and `terminationGracePeriodSeconds` from a negative value to 1. Any
//! other change of `spec` is upstream's `Forbidden` error `pod updates may not change fields
//! other than ...` with the difference.
//!
//! The difference upstream appends is go-cmp's `cmp.Diff` of the internal Go structs, whose
//! output go-cmp documents as unstable and randomizes on purpose (`cmp/report_text.go`,
//! `appendIndent`: regular or non-breaking spaces, chosen per process), so no client can
//! rely on its text; here it is rendered in the same line-prefixed form (`- ` the stored
//! value, `+ ` the new one) for each field of `spec` that differs, by its JSON name.
//!
//! Left out: a gated pod's node affinity additions (upstream lets a gated pod add node
//! selector terms' requirements, `validateNodeAffinityMutation`; here any change of its
//! node affinity is refused by the general rule).

use serde_json::{Map, Value as Json};

use super::errors::{Errors, inclusive_range};
use super::{pod_spec_validation, read};
use crate::kubernetes::crd::field_error::FieldPath;

/// upstream's `updatablePodSpecFields`, joined as its error text joins them.
const UPDATABLE_POD_SPEC_FIELDS: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,\
`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),\
`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// The annotation of a mirror pod (`core.MirrorPodAnnotationKey`).
const MIRROR_POD_ANNOTATION: &str = "kubernetes.io/config.mirror";

/// The prefix of the deprecated AppArmor annotations
/// (`v1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix`).
const APPARMOR_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";

/// `ValidatePodUpdate` after the metadata and the pod's validation as on create: the update
/// rules of `object` (a Pod) against `old`, the stored one.
pub(super) fn validate(e: &mut Errors, object: &Json, old: &Json) {
    annotation_updates(e, object, old);
    let empty = Json::Null;
    let spec = read::field(object, "spec").unwrap_or(&empty);
    let old_spec = read::field(old, "spec").unwrap_or(&empty);
    let path = FieldPath::new("spec");
    for list in ["containers", "initContainers"] {
        if !container_updates(e, spec, old_spec, list, &path.child(list)) {
            return;
        }
    }
    if !active_deadline(e, spec, old_spec, &path.child("activeDeadlineSeconds")) {
        return;
    }
    only_added_tolerations(e, spec, old_spec, &path.child("tolerations"));
    only_deleted_scheduling_gates(e, spec, old_spec, &path.child("schedulingGates"));
    if same(spec, old_spec) {
        return;
    }
    let munged = munge(e, spec, old_spec, &path);
    if !same(&munged, old_spec) {
        e.forbidden(
            &path,
            &format!(
                "pod updates may not change fields other than {UPDATABLE_POD_SPEC_FIELDS}\n{}",
                difference(old_spec, &munged)
            ),
        );
    }
}

/// `ValidatePodSpecificAnnotationUpdates`: the mirror pod annotation and the deprecated
/// AppArmor annotations may not be added, removed or changed.
fn annotation_updates(e: &mut Errors, object: &Json, old: &Json) {
    let annotations = |o: &Json| -> Map<String, Json> {
        o.get("metadata")
            .and_then(|m| read::object(m, "annotations"))
            .cloned()
            .unwrap_or_default()
    };
    let (new, old) = (annotations(object), annotations(old));
    let path = FieldPath::new("metadata").child("annotations");
    let guarded = |k: &str| k.starts_with(APPARMOR_PREFIX) || k == MIRROR_POD_ANNOTATION;
    let what = |k: &str| match k.starts_with(APPARMOR_PREFIX) {
        true => "AppArmor annotations",
        false => "mirror pod annotation",
    };
    // Changed or removed ones, then added ones, each in key order (upstream ranges over Go
    // maps, in no fixed order).
    for (k, v) in &old {
        if new.get(k) != Some(v) && guarded(k) {
            e.forbidden(
                &path.key(k),
                &format!("may not remove or update {}", what(k)),
            );
        }
    }
    for k in new.keys() {
        if !old.contains_key(k) && guarded(k) {
            e.forbidden(&path.key(k), &format!("may not add {}", what(k)));
        }
    }
}

/// `ValidateContainerUpdates` of one list: none added or removed (which ends the
/// validation: false), every image given without surrounding whitespace.
fn container_updates(
    e: &mut Errors,
    spec: &Json,
    old_spec: &Json,
    list: &str,
    path: &FieldPath,
) -> bool {
    let (new, old) = (read::list(spec, list), read::list(old_spec, list));
    if new.len() != old.len() {
        e.forbidden(path, "pod updates may not add or remove containers");
        return false;
    }
    for (i, c) in new.iter().enumerate() {
        let image = read::text(c, "image");
        let at = path.index(i).child("image");
        if image.is_empty() {
            e.required(&at, "");
        }
        if image.trim().len() != image.len() {
            e.invalid(&at, image, "must not have leading or trailing whitespace");
        }
    }
    true
}

/// `spec.activeDeadlineSeconds` may be set, or lowered, but not removed; false when the
/// validation ends here (a value out of range, or raised).
fn active_deadline(e: &mut Errors, spec: &Json, old_spec: &Json, path: &FieldPath) -> bool {
    let old = read::int(old_spec, "activeDeadlineSeconds");
    match read::field(spec, "activeDeadlineSeconds") {
        Some(value) => {
            let new = value.as_i64().unwrap_or(0);
            if !(0..=i64::from(i32::MAX)).contains(&new) {
                e.invalid_int(path, new, &inclusive_range(0, i64::from(i32::MAX)));
                return false;
            }
            if old.is_some_and(|old| old < new) {
                e.invalid_int(path, new, "must be less than or equal to previous value");
                return false;
            }
        }
        None if old.is_some() => {
            e.invalid_json(
                path,
                &Json::Null,
                "must not update from a positive integer to nil value",
            );
        }
        None => {}
    }
    true
}

/// A toleration without its `tolerationSeconds`, as compared between updates.
fn without_seconds(t: &Json) -> [&str; 4] {
    ["key", "operator", "value", "effect"].map(|k| read::text(t, k))
}

/// `validateOnlyAddedTolerations`: every stored toleration is still there (its
/// `tolerationSeconds` aside); then the new ones validated as on create.
fn only_added_tolerations(e: &mut Errors, spec: &Json, old_spec: &Json, path: &FieldPath) {
    let new = read::list(spec, "tolerations");
    for old in read::list(old_spec, "tolerations") {
        let kept = without_seconds(old);
        if !new.iter().any(|t| without_seconds(t) == kept) {
            e.forbidden(
                path,
                "existing toleration can not be modified except its tolerationSeconds",
            );
            return;
        }
    }
    pod_spec_validation::tolerations(e, new, path);
}

/// `validateOnlyDeletedSchedulingGates`: no gate a pod did not have.
fn only_deleted_scheduling_gates(e: &mut Errors, spec: &Json, old_spec: &Json, path: &FieldPath) {
    let old = read::list(old_spec, "schedulingGates");
    for (i, gate) in read::list(spec, "schedulingGates").iter().enumerate() {
        let name = read::text(gate, "name");
        if !old.iter().any(|g| read::text(g, "name") == name) {
            e.forbidden(
                &path.index(i).child("name"),
                &format!("only deletion is allowed, but found new scheduling gate '{name}'"),
            );
        }
    }
}

/// The new spec with what an update may change taken from the stored one (upstream's
/// `mungedPodSpec`); a gated pod's `nodeSelector` additions are checked here.
fn munge(e: &mut Errors, spec: &Json, old_spec: &Json, path: &FieldPath) -> Json {
    let mut munged = spec.as_object().cloned().unwrap_or_default();
    let old = old_spec.as_object().cloned().unwrap_or_default();
    for list in ["containers", "initContainers"] {
        if let Some(Json::Array(containers)) = munged.get_mut(list) {
            for (c, o) in containers.iter_mut().zip(read::list(old_spec, list)) {
                if let Some(c) = c.as_object_mut() {
                    take(c, o.as_object(), "image");
                }
            }
        }
    }
    for field in ["activeDeadlineSeconds", "schedulingGates", "tolerations"] {
        take(&mut munged, Some(&old), field);
    }
    let old_grace = read::int(old_spec, "terminationGracePeriodSeconds");
    if old_grace.is_some_and(|g| g < 0)
        && read::int(spec, "terminationGracePeriodSeconds") == Some(1)
    {
        take(&mut munged, Some(&old), "terminationGracePeriodSeconds");
    }
    let gated = !read::list(old_spec, "schedulingGates").is_empty();
    let selector = |s: &Json| read::object(s, "nodeSelector").cloned().unwrap_or_default();
    if gated && selector(spec) != selector(old_spec) {
        let (new, old_selector) = (selector(spec), selector(old_spec));
        if old_selector.iter().any(|(k, v)| new.get(k) != Some(v)) {
            e.invalid_json(
                &path.child("nodeSelector"),
                &Json::Object(new),
                "only additions to spec.nodeSelector are allowed (no mutations or deletions)",
            );
        }
        take(&mut munged, Some(&old), "nodeSelector");
    }
    Json::Object(munged)
}

/// Sets `field` of `to` as `from` has it (absent when `from` has not).
fn take(to: &mut Map<String, Json>, from: Option<&Map<String, Json>>, field: &str) {
    match from.and_then(|f| f.get(field)) {
        Some(v) => to.insert(field.to_owned(), v.clone()),
        None => to.remove(field),
    };
}

/// Whether two values are equal as apimachinery's semantic equality compares the decoded
/// structs: unset, `null`, empty strings, lists and maps alike.
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Object(a), Json::Object(b)) => a.keys().chain(b.keys()).all(|k| {
            let null = Json::Null;
            same(a.get(k).unwrap_or(&null), b.get(k).unwrap_or(&null))
        }),
        (Json::Array(a), Json::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        _ if empty(a) && empty(b) => true,
        _ => a == b,
    }
}

/// Unset in Go's terms: `null`, `""`, `[]`, `{}`.
fn empty(v: &Json) -> bool {
    match v {
        Json::Null => true,
        Json::String(s) => s.is_empty(),
        Json::Array(a) => a.is_empty(),
        Json::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// The fields of `spec` that differ, one `- ` line with the stored value and one `+ ` line
/// with the new value each, in key order (see the module's note on upstream's text).
fn difference(old: &Json, new: &Json) -> String {
    let null = Json::Null;
    let fields = |v: &Json| v.as_object().cloned().unwrap_or_default();
    let (old, new) = (fields(old), fields(new));
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut lines = String::new();
    for k in keys {
        let (o, n) = (old.get(k).unwrap_or(&null), new.get(k).unwrap_or(&null));
        if same(o, n) {
            continue;
        }
        if !empty(o) {
            lines.push_str(&format!("- {k}: {o}\n"));
        }
        if !empty(n) {
            lines.push_str(&format!("+ {k}: {n}\n"));
        }
    }
    lines
}
