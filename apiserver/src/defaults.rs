//! The defaults the API server gives objects of the built-in kinds it serves (the fields
//! clients read), on create and after mutating admission policies changed an object.

use serde_json::{Map, Value, json};

use crate::object::{self, Object};
use crate::resource::Resource;

/// The defaults of an object created: its fields' ([`fields`]) and the empty status
/// upstream's create strategies give a Deployment and a Service.
pub fn on_create(resource: &Resource, object: &mut Object) {
    fields(resource, object);
    match resource.kind {
        "Deployment" => {
            object.insert("status".to_owned(), json!({}));
        }
        "Service" => {
            object.insert("status".to_owned(), json!({"loadBalancer": {}}));
        }
        _ => {}
    }
}

/// The field defaults of the built-in kinds the server serves, as upstream's
/// `SetDefaults_*` give them when an object is decoded: a Namespace's name label, a
/// Secret's type, a Service's type, session affinity and port protocols and target
/// ports, a Deployment's and its pod template's defaults. Idempotent: applied on create
/// and again to an object mutating admission policies changed (kube-apiserver's
/// MutatingAdmissionPolicy dispatcher defaults every mutated object, `dispatchOne`).
pub fn fields(resource: &Resource, object: &mut Object) {
    match resource.kind {
        "Namespace" => {
            // Upstream labels every namespace with its name.
            let name = object::meta_str(object, "name").to_owned();
            let meta = object::metadata_mut(object);
            let labels = meta
                .entry("labels")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(labels) = labels.as_object_mut() {
                labels.insert("kubernetes.io/metadata.name".to_owned(), Value::from(name));
            }
        }
        "Secret" => {
            object.entry("type").or_insert_with(|| json!("Opaque"));
        }
        "Service" => {
            if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
                spec.entry("type").or_insert_with(|| json!("ClusterIP"));
                spec.entry("sessionAffinity")
                    .or_insert_with(|| json!("None"));
                if let Some(ports) = spec.get_mut("ports").and_then(Value::as_array_mut) {
                    for port in ports.iter_mut().filter_map(Value::as_object_mut) {
                        port.entry("protocol").or_insert_with(|| json!("TCP"));
                        if let Some(p) = port.get("port").cloned() {
                            port.entry("targetPort").or_insert(p);
                        }
                    }
                }
            }
        }
        "Deployment" => default_deployment(object),
        _ => {}
    }
}

/// Sets `field` of `map` to `value` if it is absent (nothing if `map` is not an object).
fn default_field(map: &mut Value, field: &str, value: Value) {
    if let Some(m) = map.as_object_mut() {
        m.entry(field).or_insert(value);
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

/// Upstream's defaults for an apps/v1 Deployment and its pod template (the ones `kubectl
/// describe` and `rollout` read).
fn default_deployment(object: &mut Object) {
    let spec = object
        .entry("spec")
        .or_insert_with(|| Value::Object(Map::new()));
    if !spec.is_object() {
        return; // not a Deployment's shape: validation is not this function's job
    }
    default_field(spec, "replicas", json!(1));
    default_field(spec, "revisionHistoryLimit", json!(10));
    default_field(spec, "progressDeadlineSeconds", json!(600));
    if let Some(strategy) = child_object(spec, "strategy") {
        default_field(strategy, "type", json!("RollingUpdate"));
        if strategy["type"] == "RollingUpdate"
            && let Some(rolling) = child_object(strategy, "rollingUpdate")
        {
            default_field(rolling, "maxUnavailable", json!("25%"));
            default_field(rolling, "maxSurge", json!("25%"));
        }
    }
    let Some(pod) = child_object(spec, "template").and_then(|t| {
        if t.get("spec").is_some_and(Value::is_object) {
            t.get_mut("spec")
        } else {
            None
        }
    }) else {
        return;
    };
    default_field(pod, "restartPolicy", json!("Always"));
    default_field(pod, "terminationGracePeriodSeconds", json!(30));
    default_field(pod, "dnsPolicy", json!("ClusterFirst"));
    default_field(pod, "securityContext", json!({}));
    default_field(pod, "schedulerName", json!("default-scheduler"));
    if let Some(containers) = pod.get_mut("containers").and_then(Value::as_array_mut) {
        for container in containers.iter_mut().filter(|c| c.is_object()) {
            let image = container["image"].as_str().unwrap_or("").to_owned();
            let tag = image
                .rsplit('/')
                .next()
                .and_then(|last| last.split_once(':'))
                .map(|(_, t)| t);
            let digest = image.contains('@');
            let policy = if !digest && tag.is_none_or(|t| t == "latest") {
                "Always"
            } else {
                "IfNotPresent"
            };
            default_field(container, "imagePullPolicy", json!(policy));
            default_field(
                container,
                "terminationMessagePath",
                json!("/dev/termination-log"),
            );
            default_field(container, "terminationMessagePolicy", json!("File"));
            if let Some(ports) = container.get_mut("ports").and_then(Value::as_array_mut) {
                for port in ports.iter_mut().filter(|p| p.is_object()) {
                    default_field(port, "protocol", json!("TCP"));
                }
            }
        }
    }
}
