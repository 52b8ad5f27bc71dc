//! What the create strategies of PersistentVolumes and PersistentVolumeClaims set on a new
//! object after the field manager has run (so no manager owns it), as kube-apiserver does:
//!
//! - a PersistentVolume's status is reset to phase `Pending` with the time of that phase
//!   (`pkg/registry/core/persistentvolume` `PrepareForCreate`,
//!   `PersistentVolumeLastPhaseTransitionTime`, GA);
//! - a PersistentVolumeClaim's status is reset (`pkg/registry/core/persistentvolumeclaim`
//!   `PrepareForCreate`), and read back with the phase `Pending` its defaulting gives
//!   (`SetDefaults_PersistentVolumeClaim`, applied when kube-apiserver decodes it).
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
        ("", "PersistentVolumeClaim") => json!({"phase": "Pending"}),
        _ => return,
    };
    object.insert("status".to_owned(), status);
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
}
