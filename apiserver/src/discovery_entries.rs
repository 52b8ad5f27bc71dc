//! The discovery entries of one served resource, built-in or custom: its aggregated
//! (`apidiscovery.k8s.io/v2` `APIResourceDiscovery`) entry and its legacy (`APIResource`)
//! entries, the resource's own first and then its subresources. The routes' discovery
//! handlers and the CRD module both build theirs here.

use serde_json::{Value, json};

use crate::resource::Resource;

/// The verbs of the status and scale subresources.
const SUBRESOURCE_VERBS: [&str; 3] = ["get", "patch", "update"];

/// The kind a scale subresource answers with.
fn scale_kind() -> Value {
    json!({"group": "autoscaling", "version": "v1", "kind": "Scale"})
}

/// Whether the resource is the core group's namespaces, with its `finalize` subresource.
fn has_finalize(resource: &Resource) -> bool {
    resource.kind == "Namespace" && resource.group.is_empty()
}

/// The aggregated discovery entry of `resource`, in `categories`.
pub fn aggregated<S: AsRef<str>>(resource: &Resource, categories: &[S]) -> Value {
    let r = resource;
    let kind = json!({"group": r.group, "version": r.version, "kind": r.kind});
    let mut entry = json!({
        "resource": r.plural,
        "responseKind": kind,
        "scope": if r.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": r.singular,
        "verbs": r.verbs,
    });
    if !r.short_names.is_empty() {
        entry["shortNames"] = json!(r.short_names);
    }
    if !categories.is_empty() {
        entry["categories"] = json!(categories.iter().map(AsRef::as_ref).collect::<Vec<_>>());
    }
    let mut subresources = Vec::new();
    if has_finalize(r) {
        subresources.push(json!({"subresource": "finalize", "responseKind": kind,
            "verbs": ["update"]}));
    }
    if r.status {
        subresources.push(
            json!({"subresource": "status", "responseKind": kind, "verbs": SUBRESOURCE_VERBS}),
        );
    }
    if r.scale {
        subresources.push(json!({"subresource": "scale", "responseKind": scale_kind(),
            "verbs": SUBRESOURCE_VERBS}));
    }
    if !subresources.is_empty() {
        entry["subresources"] = json!(subresources);
    }
    entry
}

/// The legacy `APIResource` entries of `resource`, in `categories`: its own, then one per
/// subresource.
pub fn legacy<S: AsRef<str>>(resource: &Resource, categories: &[S]) -> Vec<Value> {
    let r = resource;
    let mut entry = json!({
        "name": r.plural,
        "singularName": r.singular,
        "namespaced": r.namespaced,
        "kind": r.kind,
        "verbs": r.verbs,
    });
    if !r.short_names.is_empty() {
        entry["shortNames"] = json!(r.short_names);
    }
    if !categories.is_empty() {
        entry["categories"] = json!(categories.iter().map(AsRef::as_ref).collect::<Vec<_>>());
    }
    let mut out = vec![entry];
    let sub = |name: &str, kind: Value| {
        let mut entry = json!({
            "name": format!("{}/{name}", r.plural),
            "singularName": "",
            "namespaced": r.namespaced,
            "verbs": SUBRESOURCE_VERBS,
        });
        if let (Some(entry), Value::Object(kind)) = (entry.as_object_mut(), kind) {
            entry.extend(kind);
        }
        entry
    };
    if has_finalize(r) {
        let mut finalize = sub("finalize", json!({"kind": r.kind}));
        finalize["verbs"] = json!(["update"]);
        out.push(finalize);
    }
    if r.status {
        out.push(sub("status", json!({"kind": r.kind})));
    }
    if r.scale {
        out.push(sub("scale", scale_kind()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{CONFIGMAPS, DEPLOYMENTS, NAMESPACES};

    #[test]
    fn entries_carry_subresources_and_categories() {
        let none: [&str; 0] = [];
        let cm = aggregated(&CONFIGMAPS, &none);
        assert_eq!(cm["resource"], "configmaps");
        assert_eq!(cm["shortNames"], json!(["cm"]));
        assert!(cm.get("categories").is_none() && cm.get("subresources").is_none());
        let deploy = aggregated(&DEPLOYMENTS, &["all"]);
        assert_eq!(deploy["categories"], json!(["all"]));
        assert_eq!(deploy["subresources"][1]["subresource"], "scale");
        assert_eq!(deploy["subresources"][1]["responseKind"]["kind"], "Scale");
        let legacy = legacy(&DEPLOYMENTS, &["all".to_owned()]);
        let names: Vec<&str> = legacy.iter().map(|e| e["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            ["deployments", "deployments/status", "deployments/scale"]
        );
        assert_eq!(legacy[1]["kind"], "Deployment");
        assert_eq!(legacy[2]["group"], "autoscaling");
        assert_eq!(legacy[2]["singularName"], "");
        // As kube-apiserver lists them: namespaces/finalize (update only), then status.
        let ns = crate::discovery_entries::legacy(&NAMESPACES, &none);
        let names: Vec<&str> = ns.iter().map(|e| e["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            ["namespaces", "namespaces/finalize", "namespaces/status"]
        );
        assert_eq!(ns[1]["verbs"], json!(["update"]));
        let ns = aggregated(&NAMESPACES, &none);
        assert_eq!(ns["subresources"][0]["subresource"], "finalize");
        assert_eq!(ns["subresources"][1]["subresource"], "status");
    }
}
