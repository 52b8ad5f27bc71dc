//! PersistentVolume and PersistentVolumeClaim Table rows as kube-apiserver prints them
//! (kubernetes `pkg/printers/internalversion` `printPersistentVolume`,
//! `printPersistentVolumeClaim`, and the `helper` functions they call).

use serde_json::Value;

use super::{age, get, name, text};
use crate::object::Object;

/// The storage class annotation that takes precedence over `spec.storageClassName`.
const BETA_STORAGE_CLASS: &str = "volume.beta.kubernetes.io/storage-class";

/// `GetAccessModesAsString`: the modes given, without duplicates, as `RWO,ROX,RWX,RWOP`
/// in that order.
fn access_modes(modes: &Value) -> String {
    let given: Vec<&str> = modes
        .as_array()
        .map(|m| m.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(mode, _)| given.contains(mode))
    .map(|(_, short)| *short)
    .collect::<Vec<_>>()
    .join(",")
}

/// `GetPersistentVolumeClass` / `GetPersistentVolumeClaimClass`: the beta annotation, else
/// `spec.storageClassName`.
fn storage_class(o: &Object) -> String {
    let annotation = get(o, &["metadata", "annotations", BETA_STORAGE_CLASS]);
    match annotation.as_str() {
        Some(class) => class.to_owned(),
        None => text(o, &["spec", "storageClassName"]).to_owned(),
    }
}

/// A phase, `Terminating` once the object is being deleted.
fn phase(o: &Object) -> String {
    if get(o, &["metadata", "deletionTimestamp"]).is_null() {
        text(o, &["status", "phase"]).to_owned()
    } else {
        "Terminating".to_owned()
    }
}

/// A pointer field's text, `<unset>` when nil.
fn or_unset(o: &Object, path: &[&str]) -> String {
    get(o, path).as_str().unwrap_or("<unset>").to_owned()
}

/// The `storage` quantity of a resource list as printed (`0` when absent).
fn storage(list: &Value) -> String {
    match &list["storage"] {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => "0".to_owned(),
    }
}

/// `printPersistentVolume`: name, capacity, access modes, reclaim policy, status, claim
/// (`<namespace>/<name>`), storage class, volume attributes class, reason, age, volume mode.
pub(super) fn persistent_volume(o: &Object) -> Vec<Value> {
    let claim = get(o, &["spec", "claimRef"]);
    let claim = if claim.is_object() {
        format!(
            "{}/{}",
            claim["namespace"].as_str().unwrap_or_default(),
            claim["name"].as_str().unwrap_or_default()
        )
    } else {
        String::new()
    };
    vec![
        name(o),
        Value::from(storage(get(o, &["spec", "capacity"]))),
        Value::from(access_modes(get(o, &["spec", "accessModes"]))),
        Value::from(text(o, &["spec", "persistentVolumeReclaimPolicy"])),
        Value::from(phase(o)),
        Value::from(claim),
        Value::from(storage_class(o)),
        Value::from(or_unset(o, &["spec", "volumeAttributesClassName"])),
        Value::from(text(o, &["status", "reason"])),
        age(o),
        Value::from(or_unset(o, &["spec", "volumeMode"])),
    ]
}

/// `printPersistentVolumeClaim`: name, status, volume, then the capacity and access modes
/// of the bound volume (empty while unbound), storage class, volume attributes class, age,
/// volume mode.
pub(super) fn persistent_volume_claim(o: &Object) -> Vec<Value> {
    let volume = text(o, &["spec", "volumeName"]);
    let (capacity, modes) = if volume.is_empty() {
        (String::new(), String::new())
    } else {
        (
            storage(get(o, &["status", "capacity"])),
            access_modes(get(o, &["status", "accessModes"])),
        )
    };
    vec![
        name(o),
        Value::from(phase(o)),
        Value::from(volume),
        Value::from(capacity),
        Value::from(modes),
        Value::from(storage_class(o)),
        Value::from(or_unset(o, &["spec", "volumeAttributesClassName"])),
        age(o),
        Value::from(or_unset(o, &["spec", "volumeMode"])),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Object {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn volume_and_claim_rows() {
        let pv = object(json!({"metadata": {"name": "pv1"}, "spec": {
            "capacity": {"storage": "5Gi"}, "accessModes": ["ReadWriteMany", "ReadWriteOnce", "ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "slow",
            "claimRef": {"namespace": "ns", "name": "c"}, "volumeMode": "Filesystem"},
            "status": {"phase": "Pending"}}));
        let cells = persistent_volume(&pv);
        assert_eq!(
            cells[..9],
            [
                json!("pv1"),
                json!("5Gi"),
                json!("RWO,RWX"),
                json!("Retain"),
                json!("Pending"),
                json!("ns/c"),
                json!("slow"),
                json!("<unset>"),
                json!("")
            ]
        );
        assert_eq!(cells[10], "Filesystem");
        let pvc = object(
            json!({"metadata": {"name": "c", "annotations": {BETA_STORAGE_CLASS: "beta"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
            "status": {"phase": "Pending"}}),
        );
        let cells = persistent_volume_claim(&pvc);
        assert_eq!(
            cells[..7],
            [
                json!("c"),
                json!("Pending"),
                json!(""),
                json!(""),
                json!(""),
                json!("beta"),
                json!("<unset>")
            ]
        );
        assert_eq!(cells[8], "<unset>");
    }
}
