//! The field defaults of built-in kinds, as kube-apiserver's `SetDefaults_*` functions give
//! them when an object is decoded: the part of upstream's defaulting that clients read (a
//! Namespace's name label, a Secret's type, a Service's type, session affinity and port
//! protocols and target ports, a Deployment's and its pod template's defaults).
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
        ("apps/v1", "Deployment") => default_deployment(object),
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

/// A Service's type and session affinity, its ports' protocol and target port.
fn default_service(object: &mut Map<String, Value>) {
    let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
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
fn default_deployment(object: &mut Map<String, Value>) {
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
            default_container(container);
        }
    }
}

/// A container's image pull policy (`Always` for an untagged or `latest` image without a
/// digest, else `IfNotPresent`), termination message path and policy, port protocols.
fn default_container(container: &mut Value) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn defaulted(api_version: &str, kind: &str, mut object: Value) -> Value {
        apply(api_version, kind, object.as_object_mut().unwrap());
        object
    }

    // kubernetes pkg/apis/apps/v1/defaults.go, SetDefaults_Deployment; pkg/apis/core/v1/
    // defaults.go, SetDefaults_Container / SetDefaults_PodSpec.
    #[test]
    fn a_deployment_and_its_pod_template() {
        let d = defaulted(
            "apps/v1",
            "Deployment",
            json!({"spec": {"template": {"spec": {"containers": [
                {"name": "a", "image": "nginx"}, {"name": "b", "image": "nginx:1.27"},
                {"name": "c", "image": "r.io/x@sha256:00", "ports": [{"containerPort": 80}]}]}}}}),
        );
        assert_eq!(d["spec"]["replicas"], 1);
        assert_eq!(d["spec"]["revisionHistoryLimit"], 10);
        assert_eq!(d["spec"]["progressDeadlineSeconds"], 600);
        assert_eq!(
            d["spec"]["strategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
        );
        let pod = &d["spec"]["template"]["spec"];
        assert_eq!(pod["restartPolicy"], "Always");
        assert_eq!(pod["dnsPolicy"], "ClusterFirst");
        let policies: Vec<_> = (0..3)
            .map(|i| pod["containers"][i]["imagePullPolicy"].clone())
            .collect();
        assert_eq!(
            policies,
            [
                json!("Always"),
                json!("IfNotPresent"),
                json!("IfNotPresent")
            ]
        );
        assert_eq!(pod["containers"][2]["ports"][0]["protocol"], "TCP");
    }

    #[test]
    fn a_recreate_strategy_gets_no_rolling_update() {
        let d = defaulted(
            "apps/v1",
            "Deployment",
            json!({"spec": {"replicas": 3, "strategy": {"type": "Recreate"}}}),
        );
        assert_eq!(d["spec"]["replicas"], 3);
        assert_eq!(d["spec"]["strategy"], json!({"type": "Recreate"}));
    }

    #[test]
    fn idempotent_and_only_known_kinds() {
        let once = defaulted(
            "v1",
            "Service",
            json!({"spec": {"ports": [{"port": 8080}]}}),
        );
        assert_eq!(defaulted("v1", "Service", once.clone()), once);
        let cm = json!({"data": {"a": "b"}});
        assert_eq!(defaulted("v1", "ConfigMap", cm.clone()), cm);
        // Another version of the group is another kind.
        assert_eq!(
            defaulted("apps/v1beta2", "Deployment", json!({})),
            json!({})
        );
    }

    #[test]
    fn a_namespace_label_and_a_secret_type() {
        let ns = defaulted("v1", "Namespace", json!({"metadata": {"name": "team"}}));
        assert_eq!(
            ns["metadata"]["labels"]["kubernetes.io/metadata.name"],
            "team"
        );
        let secret = defaulted("v1", "Secret", json!({}));
        assert_eq!(secret["type"], "Opaque");
    }
}
