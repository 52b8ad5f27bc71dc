//! What the create strategies of PersistentVolumes and PersistentVolumeClaims set on a new
//! object after the field manager has run (so no manager owns it), as kube-apiserver does:
//!
//! - a PersistentVolume's status is reset to phase `Pending` with the time of that phase
//!   (`pkg/registry/core/persistentvolume` `PrepareForCreate`,
//!   `PersistentVolumeLastPhaseTransitionTime`, GA);
//! - a PersistentVolumeClaim's status is reset (`pkg/registry/core/persistentvolumeclaim`
//!   `PrepareForCreate`), and read back with the phase `Pending` its defaulting gives
//!   (`SetDefaults_PersistentVolumeClaim`, applied when kube-apiserver decodes it); its data
//!   sources are those the strategy keeps and copies, on create and on update
//!   ([`kcel_stdlib::kubernetes::builtin::prepare_claim`]).
//!
//! No volume controller runs here: volumes and claims stay `Pending`, unbound.

use serde_json::json;

use crate::object::Object;
use crate::resource::Resource;

/// Applies the create strategy of `resource`'s kind to `object` (other kinds: nothing).
pub fn prepare_for_create(resource: &Resource, object: &mut Object) {
    let status = match (resource.group, resource.kind) {
        ("", "PersistentVolume") => json!({
            "phase": "Pending",
            "lastPhaseTransitionTime": crate::object::now_timestamp(),
        }),
        ("", "PersistentVolumeClaim") => {
            prepare_claim_sources(object, None);
            json!({"phase": "Pending"})
        }
        _ => return,
    };
    object.insert("status".to_owned(), status);
}

/// The claim strategy's `PrepareForUpdate` of the data sources (other kinds: nothing).
pub fn prepare_for_update(resource: &Resource, object: &mut Object, old: &Object) {
    if (resource.group, resource.kind) == ("", "PersistentVolumeClaim") {
        prepare_claim_sources(object, Some(old));
    }
}

fn prepare_claim_sources(object: &mut Object, old: Option<&Object>) {
    let old = old.map(|o| serde_json::Value::Object(o.clone()));
    let mut value = serde_json::Value::Object(std::mem::take(object));
    kcel_stdlib::kubernetes::builtin::prepare_claim(&mut value, old.as_ref());
    if let serde_json::Value::Object(prepared) = value {
        *object = prepared;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{CONFIGMAPS, PERSISTENTVOLUMECLAIMS, PERSISTENTVOLUMES};

    #[test]
    fn volumes_and_claims_start_pending() {
        let mut pv: Object = serde_json::from_value(
            json!({"spec": {}, "status": {"phase": "Bound", "message": "m"}}),
        )
        .unwrap();
        prepare_for_create(&PERSISTENTVOLUMES, &mut pv);
        assert_eq!(pv["status"]["phase"], "Pending");
        assert!(pv["status"]["lastPhaseTransitionTime"].is_string());
        assert!(pv["status"].get("message").is_none());
        let mut pvc: Object =
            serde_json::from_value(json!({"status": {"phase": "Bound"}})).unwrap();
        prepare_for_create(&PERSISTENTVOLUMECLAIMS, &mut pvc);
        assert_eq!(pvc["status"], json!({"phase": "Pending"}));
        let mut cm: Object = serde_json::from_value(json!({"data": {}})).unwrap();
        prepare_for_create(&CONFIGMAPS, &mut cm);
        assert!(cm.get("status").is_none());
    }

    #[test]
    fn claims_data_sources_are_kept_and_copied_as_upstream() {
        let claim = |spec: serde_json::Value| -> Object {
            serde_json::from_value(json!({"spec": spec})).unwrap()
        };
        let source =
            json!({"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": "s"});
        let mut created = claim(json!({"dataSource": source}));
        prepare_for_create(&PERSISTENTVOLUMECLAIMS, &mut created);
        assert_eq!(created["spec"]["dataSourceRef"], source);
        // An update of a claim without data sources drops one it cannot use; a stored
        // claim with a data source keeps a new one as it is.
        let old = claim(json!({}));
        let mut updated = claim(json!({"dataSource": {"kind": "Pod", "name": "p"}}));
        prepare_for_update(&PERSISTENTVOLUMECLAIMS, &mut updated, &old);
        assert_eq!(updated["spec"], json!({}));
        let old = claim(json!({"dataSource": source}));
        let mut updated = claim(json!({"dataSource": {"kind": "Pod", "name": "p"}}));
        prepare_for_update(&PERSISTENTVOLUMECLAIMS, &mut updated, &old);
        assert_eq!(
            updated["spec"]["dataSourceRef"],
            json!({"kind": "Pod", "name": "p"})
        );
    }
}
