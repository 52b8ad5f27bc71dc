//! The field defaults of built-in kinds, as kube-apiserver's `SetDefaults_*` functions (and
//! the declarative `+default` markers of k8s.io/api) give them when an object is decoded: a
//! Namespace's name label, a Secret's type, a Service's type, session affinity and port
//! protocols and target ports; a Pod's and every pod template's defaults (`pod`); the
//! workloads of apps/v1 (`apps`: Deployment, ReplicaSet, StatefulSet, DaemonSet) and
//! batch/v1 (`batch`: Job, CronJob); PersistentVolumes and PersistentVolumeClaims
//! (`volumes`); autoscaling/v2 and v1 HorizontalPodAutoscalers (`autoscaling`,
//! `autoscaling_v1`); the RBAC bindings'
//! role references and subjects (`rbac`). Feature gates are taken at their Kubernetes 1.37
//! defaults.
//!
//! Shared by the API server (objects it stores, and objects mutating admission policies
//! changed) and `kcel test` (objects mutating policies changed): kube-apiserver's
//! MutatingAdmissionPolicy dispatcher defaults the object after each mutation
//! (`policy/mutating/dispatcher.go`, `dispatchOne`: `o.GetObjectDefaulter().Default`), so a
//! later policy sees the defaults of the fields an earlier one set.
//!
//! ```
//! use kcel_stdlib::kubernetes::defaults;
//! use serde_json::json;
//!
//! let mut service = json!({"spec": {"ports": [{"port": 80}]}});
//! defaults::apply("v1", "Service", service.as_object_mut().unwrap());
//! assert_eq!(service["spec"]["type"], "ClusterIP");
//! assert_eq!(service["spec"]["ports"][0], json!({"port": 80, "protocol": "TCP", "targetPort": 80}));
//! ```

mod apps;
mod autoscaling;
mod autoscaling_v1;
mod batch;
mod image;
mod pod;
mod rbac;
mod volumes;

use serde_json::{Map, Value, json};

/// Applies the field defaults of the built-in kind `kind` of `api_version` (`v1`,
/// `apps/v1`) to `object`; other kinds are left as they are. Idempotent: fields already set
/// keep their values.
pub fn apply(api_version: &str, kind: &str, object: &mut Map<String, Value>) {
    match (api_version, kind) {
        ("v1", "Namespace") => default_namespace(object),
        ("v1", "Secret") => {
            object.entry("type").or_insert_with(|| json!("Opaque"));
        }
        ("v1", "Service") => default_service(object),
        ("v1", "Pod") => pod::pod(object),
        ("v1", "PersistentVolume") => volumes::persistent_volume(object),
        ("v1", "PersistentVolumeClaim") => volumes::persistent_volume_claim(object),
        ("autoscaling/v2", "HorizontalPodAutoscaler") => {
            autoscaling::horizontal_pod_autoscaler(object)
        }
        ("autoscaling/v1", "HorizontalPodAutoscaler") => {
            autoscaling_v1::horizontal_pod_autoscaler(object)
        }
        ("rbac.authorization.k8s.io/v1", kind) => rbac::apply(kind, object),
        ("apps/v1", kind) => apps::apply(kind, object),
        ("batch/v1", kind) => batch::apply(kind, object),
        _ => {}
    }
}

/// Upstream labels every namespace with its name (`kubernetes.io/metadata.name`).
fn default_namespace(object: &mut Map<String, Value>) {
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let Some(name) = meta.get("name").and_then(Value::as_str).map(str::to_owned) else {
        return;
    };
    let labels = meta
        .entry("labels")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(labels) = labels.as_object_mut() {
        labels.insert("kubernetes.io/metadata.name".to_owned(), Value::from(name));
    }
}

/// `SetDefaults_Service`: type and session affinity (with the ClientIP timeout), the ports'
/// protocol and target port, the traffic policies and `allocateLoadBalancerNodePorts`.
fn default_service(object: &mut Map<String, Value>) {
    let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    default_string(spec, "sessionAffinity", "None");
    let affinity = spec["sessionAffinity"].clone();
    if affinity == "None" {
        spec.remove("sessionAffinityConfig");
    } else if affinity == "ClientIP"
        && spec
            .get("sessionAffinityConfig")
            .and_then(|c| c.get("clientIP"))
            .and_then(|c| c.get("timeoutSeconds"))
            .is_none_or(Value::is_null)
    {
        spec.insert(
            "sessionAffinityConfig".to_owned(),
            json!({"clientIP": {"timeoutSeconds": 10800}}),
        );
    }
    default_string(spec, "type", "ClusterIP");
    let kind = spec["type"].clone();
    if let Some(ports) = spec.get_mut("ports").and_then(Value::as_array_mut) {
        for port in ports.iter_mut().filter_map(Value::as_object_mut) {
            port.entry("protocol").or_insert_with(|| json!("TCP"));
            if let Some(p) = port.get("port").cloned() {
                port.entry("targetPort").or_insert(p);
            }
        }
    }
    // `service.ExternallyAccessible`: NodePort, LoadBalancer, or ClusterIP with external IPs.
    let external_ips = spec
        .get("externalIPs")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    let accessible =
        kind == "NodePort" || kind == "LoadBalancer" || (kind == "ClusterIP" && external_ips);
    if accessible {
        default_string(spec, "externalTrafficPolicy", "Cluster");
    }
    if kind == "NodePort" || kind == "LoadBalancer" || kind == "ClusterIP" {
        spec.entry("internalTrafficPolicy")
            .or_insert_with(|| json!("Cluster"));
    }
    if kind == "LoadBalancer" {
        spec.entry("allocateLoadBalancerNodePorts")
            .or_insert_with(|| json!(true));
    }
}

/// Sets a string field that is absent or empty (Go's `if obj.X == ""`).
fn default_string(map: &mut Map<String, Value>, field: &str, value: &str) {
    let unset = map
        .get(field)
        .is_none_or(|v| v.is_null() || v.as_str() == Some(""));
    if unset {
        map.insert(field.to_owned(), json!(value));
    }
}

/// Sets `field` of `map` to `value` if it is unset (nothing if `map` is not an object):
/// absent or `null` (a nil pointer), or, for a string default, `""` (Go's zero string,
/// which upstream's `if obj.X == ""` defaulting replaces).
fn default_field(map: &mut Value, field: &str, value: Value) {
    let Some(m) = map.as_object_mut() else {
        return;
    };
    let unset = match m.get(field) {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty() && value.is_string(),
        Some(_) => false,
    };
    if unset {
        m.insert(field.to_owned(), value);
    }
}

/// The object under `field` of `map`, made empty if absent; `None` if either is no object.
fn child_object<'a>(map: &'a mut Value, field: &str) -> Option<&'a mut Value> {
    let child = map
        .as_object_mut()?
        .entry(field)
        .or_insert_with(|| Value::Object(Map::new()));
    child.is_object().then_some(child)
}

#[cfg(test)]
mod tests;
