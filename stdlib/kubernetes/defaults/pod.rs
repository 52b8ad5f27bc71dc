//! The defaults of a pod spec, shared by a Pod and every pod template (Deployment,
//! ReplicaSet, StatefulSet, DaemonSet, Job, CronJob): kubernetes `pkg/apis/core/v1`
//! `defaults.go` (`SetDefaults_PodSpec`, `SetDefaults_Container`, `SetDefaults_Probe`,
//! `SetDefaults_HTTPGetAction`, the volume sources' `SetDefaults_*`,
//! `SetDefaults_ObjectFieldSelector`, `SetDefaults_ServiceAccountTokenProjection`) and the
//! declarative `+default` markers of k8s.io/api `core/v1/types.go`, in the order
//! `zz_generated.defaults.go` walks them (`SetObjectDefaults_PodTemplate` for a template),
//! plus `SetDefaults_Pod` for a Pod itself (`SetObjectDefaults_Pod`), which templates do not
//! get: requests defaulted from limits, `enableServiceLinks`, host ports under host
//! networking.
//!
//! Left out: `SetDefaults_ResourceList`'s rounding of quantities up to milli units, and the
//! pod-level resources defaulting (`PodLevelResources`: `spec.resources` requests and limits
//! aggregated from the containers').

use serde_json::{Map, Value, json};

use super::{child_object, default_field};

/// `SetObjectDefaults_Pod`: `SetDefaults_Pod`, then the pod spec's defaults.
pub(super) fn pod(object: &mut Map<String, Value>) {
    let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    pod_only(spec);
    pod_spec(spec);
}

/// The defaults of a `PodTemplateSpec` at `template` (its `spec`, when it has one).
pub(super) fn template(template: &mut Value) {
    if let Some(spec) = template.get_mut("spec").filter(|s| s.is_object()) {
        pod_spec(spec);
    }
}

/// `SetDefaults_Pod`: a container's (and an init container's) requests default to its limits
/// for every resource without a request; `enableServiceLinks: true`; with `hostNetwork`,
/// every container port's `hostPort` defaults to its `containerPort`.
fn pod_only(spec: &mut Value) {
    for field in ["containers", "initContainers"] {
        for container in items(spec, field) {
            requests_from_limits(container);
        }
    }
    default_field(spec, "enableServiceLinks", json!(true));
    if spec["hostNetwork"] == true {
        for field in ["containers", "initContainers"] {
            for container in items(spec, field) {
                for port in items(container, "ports") {
                    let container_port = port["containerPort"].clone();
                    let unset = port
                        .get("hostPort")
                        .is_none_or(|p| p.is_null() || p.as_i64() == Some(0));
                    if unset && let Some(p) = port.as_object_mut() {
                        p.insert("hostPort".to_owned(), container_port);
                    }
                }
            }
        }
    }
}

/// A container's `resources.requests` gets each of `resources.limits` it lacks.
fn requests_from_limits(container: &mut Value) {
    let Some(resources) = container.get_mut("resources").filter(|r| r.is_object()) else {
        return;
    };
    let Some(limits) = resources.get("limits").and_then(Value::as_object).cloned() else {
        return;
    };
    if let Some(requests) = child_object(resources, "requests").and_then(Value::as_object_mut) {
        for (name, quantity) in limits {
            requests.entry(name).or_insert(quantity);
        }
    }
}

/// The pod spec's own defaults (`SetDefaults_PodSpec`), then its volumes' and containers'.
fn pod_spec(spec: &mut Value) {
    default_field(spec, "dnsPolicy", json!("ClusterFirst"));
    default_field(spec, "restartPolicy", json!("Always"));
    default_field(spec, "securityContext", json!({}));
    default_field(spec, "terminationGracePeriodSeconds", json!(30));
    default_field(spec, "schedulerName", json!("default-scheduler"));
    for volume in items(spec, "volumes") {
        self::volume(volume);
    }
    for field in ["initContainers", "containers", "ephemeralContainers"] {
        for c in items(spec, field) {
            container(c);
        }
    }
}

/// The objects of the list at `field` of `value` (none when it is no list).
fn items<'a>(value: &'a mut Value, field: &str) -> impl Iterator<Item = &'a mut Value> {
    value
        .get_mut(field)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter(|v| v.is_object())
}

/// The object at `field` of `value`, if it is one (not created when absent).
fn object_at<'a>(value: &'a mut Value, field: &str) -> Option<&'a mut Value> {
    value.get_mut(field).filter(|v| v.is_object())
}

/// `SetDefaults_Container` (for ephemeral containers too) and the defaults below it: ports'
/// protocol, env `fieldRef` API versions and `fileKeyRef.optional`, probes, lifecycle
/// handlers.
fn container(c: &mut Value) {
    let policy = super::image::pull_policy(c["image"].as_str().unwrap_or_default());
    default_field(c, "imagePullPolicy", json!(policy));
    default_field(c, "terminationMessagePath", json!("/dev/termination-log"));
    default_field(c, "terminationMessagePolicy", json!("File"));
    for port in items(c, "ports") {
        default_field(port, "protocol", json!("TCP"));
    }
    for env in items(c, "env") {
        if let Some(from) = object_at(env, "valueFrom") {
            if let Some(field_ref) = object_at(from, "fieldRef") {
                field_selector(field_ref);
            }
            if let Some(file_key) = object_at(from, "fileKeyRef") {
                default_field(file_key, "optional", json!(false));
            }
        }
    }
    for field in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(p) = object_at(c, field) {
            probe(p);
        }
    }
    if let Some(lifecycle) = object_at(c, "lifecycle") {
        for field in ["postStart", "preStop"] {
            if let Some(handler) = object_at(lifecycle, field)
                && let Some(get) = object_at(handler, "httpGet")
            {
                http_get(get);
            }
        }
    }
}

/// `SetDefaults_Probe` and its handler's: an HTTP GET's path and scheme, a gRPC check's
/// `service: ""` (`+default=""`).
fn probe(p: &mut Value) {
    for (field, value) in [
        ("timeoutSeconds", 1),
        ("periodSeconds", 10),
        ("successThreshold", 1),
        ("failureThreshold", 3),
    ] {
        // A zero is unset (the fields are not pointers upstream).
        if p.get(field)
            .is_none_or(|v| v.is_null() || v.as_i64() == Some(0))
        {
            p[field] = json!(value);
        }
    }
    if let Some(get) = object_at(p, "httpGet") {
        http_get(get);
    }
    if let Some(grpc) = object_at(p, "grpc") {
        default_field(grpc, "service", json!(""));
    }
}

/// `SetDefaults_HTTPGetAction`.
fn http_get(get: &mut Value) {
    default_field(get, "path", json!("/"));
    default_field(get, "scheme", json!("HTTP"));
}

/// `SetDefaults_ObjectFieldSelector`: `apiVersion: v1`.
fn field_selector(field_ref: &mut Value) {
    default_field(field_ref, "apiVersion", json!("v1"));
}

/// The volume source fields of `VolumeSource` (a volume without any becomes an `emptyDir`).
const SOURCES: &[&str] = &[
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
];

/// The mode of a secret, config map, downward API or projected volume's files (0644).
const DEFAULT_MODE: i64 = 0o644;

/// `SetDefaults_Volume` and the defaults of the volume's source.
fn volume(v: &mut Value) {
    if SOURCES.iter().all(|s| v.get(*s).is_none_or(Value::is_null)) {
        v["emptyDir"] = json!({});
    }
    if let Some(image) = object_at(v, "image") {
        // ImageVolume (on by default in 1.37): the pull policy by the reference's tag.
        let policy = super::image::pull_policy(image["reference"].as_str().unwrap_or_default());
        default_field(image, "pullPolicy", json!(policy));
    }
    if let Some(host_path) = object_at(v, "hostPath") {
        default_field(host_path, "type", json!(""));
    }
    for source in ["secret", "configMap"] {
        if let Some(s) = object_at(v, source) {
            default_field(s, "defaultMode", json!(DEFAULT_MODE));
        }
    }
    if let Some(downward) = object_at(v, "downwardAPI") {
        default_field(downward, "defaultMode", json!(DEFAULT_MODE));
        downward_items(downward);
    }
    if let Some(projected) = object_at(v, "projected") {
        default_field(projected, "defaultMode", json!(DEFAULT_MODE));
        for source in items(projected, "sources") {
            if let Some(downward) = object_at(source, "downwardAPI") {
                downward_items(downward);
            }
            if let Some(token) = object_at(source, "serviceAccountToken") {
                default_field(token, "expirationSeconds", json!(3600));
            }
        }
    }
    if let Some(iscsi) = object_at(v, "iscsi") {
        default_field(iscsi, "iscsiInterface", json!("default"));
    }
    if let Some(rbd) = object_at(v, "rbd") {
        default_field(rbd, "pool", json!("rbd"));
        default_field(rbd, "user", json!("admin"));
        default_field(rbd, "keyring", json!("/etc/ceph/keyring"));
    }
    if let Some(azure) = object_at(v, "azureDisk") {
        default_field(azure, "cachingMode", json!("ReadWrite"));
        default_field(azure, "fsType", json!("ext4"));
        default_field(azure, "readOnly", json!(false));
        default_field(azure, "kind", json!("Shared"));
    }
    if let Some(scale_io) = object_at(v, "scaleIO") {
        default_field(scale_io, "storageMode", json!("ThinProvisioned"));
        default_field(scale_io, "fsType", json!("xfs"));
    }
    if let Some(claim) = object_at(v, "ephemeral").and_then(|e| object_at(e, "volumeClaimTemplate"))
        && let Some(spec) = object_at(claim, "spec")
    {
        claim_spec(spec);
    }
}

/// The `fieldRef`s of a downward API source's items.
fn downward_items(downward: &mut Value) {
    for item in items(downward, "items") {
        if let Some(field_ref) = object_at(item, "fieldRef") {
            field_selector(field_ref);
        }
    }
}

/// `SetDefaults_PersistentVolumeClaimSpec`: `volumeMode: Filesystem`.
pub(super) fn claim_spec(spec: &mut Value) {
    default_field(spec, "volumeMode", json!("Filesystem"));
}
