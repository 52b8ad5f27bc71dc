//! Owner references given twice, identical, merged before a write is validated, with
//! upstream's warning (k8s.io/apiserver `pkg/endpoints/handlers/rest.go`:
//! `dedupOwnerReferences`, `dedupOwnerReferencesAndAddWarning`; creates and updates are
//! deduplicated before and after mutating admission, patches after it only).

use serde_json::Value;

use crate::metadata::Object;

/// upstream's `DuplicateOwnerReferencesWarningFormat` (before `%v`).
const BEFORE_ADMISSION: &str = ".metadata.ownerReferences contains duplicate entries; API \
    server dedups owner references in 1.20+, and may reject such requests as early as 1.24; \
    please fix your requests; duplicate UID(s) observed: ";

/// upstream's `DuplicateOwnerReferencesAfterMutatingAdmissionWarningFormat` (before `%v`).
const AFTER_ADMISSION: &str = ".metadata.ownerReferences contains duplicate entries after \
    mutating admission happens; API server dedups owner references in 1.20+, and may reject \
    such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ";

/// Where in the request the references are merged (which warning it gives).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// A create's or update's body, as decoded.
    BeforeMutatingAdmission,
    /// The object after mutating admission (a patch's only stage).
    AfterMutatingAdmission,
}

/// Drops every owner reference equal to an earlier one (as Go compares the
/// `metav1.OwnerReference` structs: the same apiVersion, kind, name, uid, controller and
/// blockOwnerDeletion) and answers the warning naming their uids, if any were dropped.
pub fn dedup(object: &mut Object, stage: Stage) -> Option<String> {
    let references = object
        .get_mut("metadata")?
        .get_mut("ownerReferences")?
        .as_array_mut()?;
    let fields = |r: &Value| {
        [
            "apiVersion",
            "kind",
            "name",
            "uid",
            "controller",
            "blockOwnerDeletion",
        ]
        .map(|f| r.get(f).filter(|v| !v.is_null()).cloned())
    };
    let mut kept: Vec<Value> = Vec::with_capacity(references.len());
    let mut duplicates: Vec<String> = Vec::new();
    for reference in references.drain(..) {
        if kept.iter().any(|k| fields(k) == fields(&reference)) {
            let uid = reference.get("uid").and_then(Value::as_str).unwrap_or("");
            duplicates.push(uid.to_owned());
        } else {
            kept.push(reference);
        }
    }
    *references = kept;
    if duplicates.is_empty() {
        return None;
    }
    let format = match stage {
        Stage::BeforeMutatingAdmission => BEFORE_ADMISSION,
        Stage::AfterMutatingAdmission => AFTER_ADMISSION,
    };
    Some(format!("{format}{}", duplicates.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // handlers/rest_test.go TestDedupOwnerReferences-style: identical references merged,
    // references that differ in any field (here `controller`) kept.
    #[test]
    fn identical_references_are_merged() {
        let a = json!({"apiVersion": "v1", "kind": "Pod", "name": "a", "uid": "1"});
        let b = json!({"apiVersion": "v1", "kind": "Pod", "name": "b", "uid": "2"});
        let mut a_controller = a.clone();
        a_controller["controller"] = json!(true);
        let mut object = json!({"metadata": {"ownerReferences": [a, b, a, a_controller, b]}});
        let object = object.as_object_mut().unwrap();
        assert_eq!(
            dedup(object, Stage::BeforeMutatingAdmission).as_deref(),
            Some(
                ".metadata.ownerReferences contains duplicate entries; API server dedups owner \
                 references in 1.20+, and may reject such requests as early as 1.24; please fix \
                 your requests; duplicate UID(s) observed: 1, 2"
            )
        );
        assert_eq!(
            object["metadata"]["ownerReferences"],
            json!([a, b, a_controller])
        );
        assert_eq!(dedup(object, Stage::AfterMutatingAdmission), None);
        let mut none = json!({"metadata": {}});
        assert_eq!(
            dedup(none.as_object_mut().unwrap(), Stage::AfterMutatingAdmission),
            None
        );
    }
}
