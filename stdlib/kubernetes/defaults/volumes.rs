//! core/v1 PersistentVolume and PersistentVolumeClaim defaults: kubernetes
//! `pkg/apis/core/v1/defaults.go` (`SetDefaults_PersistentVolume`,
//! `SetDefaults_PersistentVolumeClaim`, `SetDefaults_PersistentVolumeClaimSpec`) and the
//! defaults `zz_generated.defaults.go` gives a volume's source (`SetDefaults_HostPathVolumeSource`,
//! `..._RBDPersistentVolumeSource`, `..._ISCSIPersistentVolumeSource`,
//! `..._AzureDiskVolumeSource`, `..._ScaleIOPersistentVolumeSource`).

use serde_json::{Map, Value, json};

use super::{default_field, pod};

/// `SetDefaults_PersistentVolume`: phase `Pending`, reclaim policy `Retain`, volume mode
/// `Filesystem`; then the defaults of its volume source.
pub(super) fn persistent_volume(object: &mut Map<String, Value>) {
    default_field(entry(object, "status"), "phase", json!("Pending"));
    let spec = entry(object, "spec");
    default_field(spec, "persistentVolumeReclaimPolicy", json!("Retain"));
    default_field(spec, "volumeMode", json!("Filesystem"));
    if spec.is_object() {
        source(spec);
    }
}

/// `SetDefaults_PersistentVolumeClaim` (phase `Pending`) and its spec's
/// ([`pod::claim_spec`]: volume mode `Filesystem`).
pub(super) fn persistent_volume_claim(object: &mut Map<String, Value>) {
    let spec = entry(object, "spec");
    if spec.is_object() {
        pod::claim_spec(spec);
    }
    default_field(entry(object, "status"), "phase", json!("Pending"));
}

/// The value at `field` of `object`, an empty object when absent or `null` (a nil struct
/// pointer's defaults still apply to the struct Go decodes).
fn entry<'a>(object: &'a mut Map<String, Value>, field: &str) -> &'a mut Value {
    let value = object
        .entry(field)
        .or_insert_with(|| Value::Object(Map::new()));
    if value.is_null() {
        *value = Value::Object(Map::new());
    }
    value
}

/// Whether `spec` gives the source `field`.
fn given(spec: &Value, field: &str) -> bool {
    spec.get(field).is_some_and(Value::is_object)
}

/// The defaults of the persistent volume source given in `spec` (only the sources given:
/// unlike a pod's volume, a PersistentVolume gets no `emptyDir`).
fn source(spec: &mut Value) {
    if given(spec, "hostPath") {
        default_field(&mut spec["hostPath"], "type", json!(""));
    }
    if given(spec, "rbd") {
        let rbd = &mut spec["rbd"];
        default_field(rbd, "pool", json!("rbd"));
        default_field(rbd, "user", json!("admin"));
        default_field(rbd, "keyring", json!("/etc/ceph/keyring"));
    }
    if given(spec, "iscsi") {
        default_field(&mut spec["iscsi"], "iscsiInterface", json!("default"));
    }
    if given(spec, "azureDisk") {
        let azure = &mut spec["azureDisk"];
        default_field(azure, "cachingMode", json!("ReadWrite"));
        default_field(azure, "fsType", json!("ext4"));
        default_field(azure, "readOnly", json!(false));
        default_field(azure, "kind", json!("Shared"));
    }
    if given(spec, "scaleIO") {
        let scale_io = &mut spec["scaleIO"];
        default_field(scale_io, "storageMode", json!("ThinProvisioned"));
        default_field(scale_io, "fsType", json!("xfs"));
    }
}
