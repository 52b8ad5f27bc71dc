//! The autoscaling/v1 `Scale` of an object with a `/scale` subresource (a Deployment,
//! ReplicaSet or StatefulSet, or a custom resource by its CRD's scale paths): what the subresource serves and what admission
//! judges as `object`/`oldObject` of a scale write, as kube-apiserver does.

use serde_json::{Value, json};

use crate::object::Object;

/// The scale paths of a custom resource with a `/scale` subresource.
pub fn custom_paths(
    crds: &crate::crd::Crds,
    resource: &crate::resource::Resource,
) -> Option<crate::crd::registry::ScalePaths> {
    crds.custom(resource)?.version_of(resource)?.scale.clone()
}

/// The `Scale` of an object: a custom resource's by its CRD's paths, else an apps/v1
/// workload's (`spec.replicas`, `status.replicas`, `spec.selector`).
pub fn scale_of(
    crds: &crate::crd::Crds,
    resource: &crate::resource::Resource,
    object: &Object,
) -> Value {
    let Some(paths) = custom_paths(crds, resource) else {
        return deployment_scale(object);
    };
    use crate::crd::json_path;
    let root = Value::Object(object.clone());
    let at = |p: &str| json_path::parse(p).and_then(|s| json_path::get(&root, &s).cloned());
    let mut scale = deployment_scale(object);
    scale["apiVersion"] = json!("autoscaling/v1");
    scale["spec"] = json!({"replicas": at(&paths.spec_replicas).unwrap_or(json!(0))});
    scale["status"] = json!({"replicas": at(&paths.status_replicas).unwrap_or(json!(0))});
    if let Some(selector) = paths.label_selector.as_deref().and_then(at) {
        scale["status"]["selector"] = selector;
    }
    scale
}

/// The `Scale` of a Deployment, ReplicaSet or StatefulSet.
fn deployment_scale(deployment: &Object) -> Value {
    let meta = deployment.get("metadata").cloned().unwrap_or(json!({}));
    let mut metadata = json!({});
    for field in [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
    ] {
        if let Some(v) = meta.get(field) {
            metadata[field] = v.clone();
        }
    }
    let selector = crate::table::label_selector_text(
        deployment
            .get("spec")
            .and_then(|s| s.get("selector"))
            .unwrap_or(&Value::Null),
    );
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": metadata,
        "spec": {"replicas": deployment.get("spec").and_then(|s| s.get("replicas")).cloned().unwrap_or(json!(0))},
        "status": {
            "replicas": deployment.get("status").and_then(|s| s.get("replicas")).cloned().unwrap_or(json!(0)),
            "selector": selector,
        },
    })
}

/// Sets an object's replicas from a `Scale` (a mutated one: admission mutates the `Scale` of
/// a scale write, whose `spec.replicas` is what the write changes): the custom resource's
/// `specReplicasPath`, else a Deployment's `spec.replicas`.
pub fn set_replicas(
    crds: &crate::crd::Crds,
    resource: &crate::resource::Resource,
    object: &mut Object,
    scale: &Value,
) {
    let Some(replicas) = scale.get("spec").and_then(|s| s.get("replicas")).cloned() else {
        return;
    };
    let path = custom_paths(crds, resource)
        .map_or_else(|| ".spec.replicas".to_owned(), |p| p.spec_replicas);
    let Some(steps) = crate::crd::json_path::parse(&path) else {
        return;
    };
    let mut root = Value::Object(std::mem::take(object));
    crate::crd::json_path::set(&mut root, &steps, replicas);
    if let Value::Object(o) = root {
        *object = o;
    }
}
