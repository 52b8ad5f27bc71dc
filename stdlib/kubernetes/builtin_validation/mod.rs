//! The validation kube-apiserver writes by hand for its built-in kinds (the
//! `pkg/apis/<group>/validation` packages of kubernetes/kubernetes): what a create or an
//! update of a Deployment, Pod, Service, ConfigMap, ... must satisfy beyond its OpenAPI
//! schema and its `metadata` — a selector matching the pod template's labels, container
//! names, ports, restart policies, config keys, immutable selectors.
//!
//! Objects are read as the API server reads them after decoding and defaulting: a field left
//! out (or given as `""`, which defaulting treats alike) takes its default (`restartPolicy:
//! Always`, `protocol: TCP`, `replicas: 1`, ...), so the `Required` errors upstream keeps for
//! fields that defaulting always fills never show. Values are assumed to have the kind's
//! types (the caller reports decoding errors first, as the API server does).
//!
//! Bad values are shown as kube-apiserver 1.34 and later shows them: strings quoted, numbers
//! bare, maps and structs as their JSON (`{"app":"web"}`).
//!
//! One module per API group: `core` (Pod, Service, ConfigMap, Secret), `apps` (Deployment,
//! ReplicaSet, StatefulSet, DaemonSet), `batch` (Job, CronJob); `pod` is the pod spec and pod
//! template they share, `label_selector` `metav1.LabelSelector` (validation, matching,
//! rendering), `errors` the field errors as upstream's `field` package builds them.
//!
//! Left out, for now (an object can pass here and still be refused upstream): volume sources
//! (one source per volume and each source's fields), sub-paths, mount propagation and volume
//! devices; pod and container security contexts; affinity, topology spread constraints,
//! readiness and scheduling gates, image pull secrets, host aliases, DNS nameserver
//! addresses and search domains; resource names, huge pages and resize policies; ephemeral
//! containers' rules; pod-specific annotations (seccomp, AppArmor, tolerations, deletion
//! cost); the paths of env `fieldRef`s; Service cluster IPs, IP families, node ports,
//! external IPs, load balancer fields, duplicate (protocol, port) pairs, `appProtocol`;
//! ConfigMap sizes; the contents of dockercfg Secrets; Deployment strategy types other than
//! the two and the percent syntax of `maxSurge`/`maxUnavailable`; DaemonSet update
//! strategies; StatefulSet update strategies, ordinals, claim templates, retention policies
//! and update rules; Job selectors, completion modes, failure and success policies and
//! update rules; CronJob schedule syntax and time zones; Namespace finalizers; every other
//! kind (Ingress, NetworkPolicy, RBAC, PersistentVolumeClaim, ...); status updates; the
//! metadata update rules (`ValidateObjectMetaUpdate`).

mod apps;
mod batch;
mod core;
mod errors;
mod label_selector;
mod pod;

use serde_json::Value as Json;

use super::crd::FieldError;

/// The errors of the kind's own validation of `object` (after the `metadata` errors the
/// caller reports), and on update (`old` given) of its update rules; none for a kind without
/// hand-written rules here.
pub(crate) fn validate(
    group: &str,
    kind: &str,
    object: &Json,
    old: Option<&Json>,
) -> Vec<FieldError> {
    let mut e = errors::Errors::default();
    match (group, kind) {
        ("", "Pod") => core::pod(&mut e, object),
        ("", "Service") => core::service(&mut e, object),
        ("", "ConfigMap") => core::config_map(&mut e, object, old),
        ("", "Secret") => core::secret(&mut e, object, old),
        ("apps", "Deployment") => apps::deployment(&mut e, object, old),
        ("apps", "ReplicaSet") => apps::replica_set(&mut e, object, old),
        ("apps", "StatefulSet") => apps::stateful_set(&mut e, object, old),
        ("apps", "DaemonSet") => apps::daemon_set(&mut e, object, old),
        ("batch", "Job") => batch::job(&mut e, object),
        ("batch", "CronJob") => batch::cron_job(&mut e, object),
        _ => {}
    }
    e.into_vec()
}

/// Field access on a decoded object: absent, `null` and the wrong type all read as unset.
mod read {
    use serde_json::{Map, Value as Json};

    /// The string at `key` (`""` when unset).
    pub(super) fn text<'a>(v: &'a Json, key: &str) -> &'a str {
        v.get(key).and_then(Json::as_str).unwrap_or_default()
    }

    /// The integer at `key`.
    pub(super) fn int(v: &Json, key: &str) -> Option<i64> {
        v.get(key).and_then(Json::as_i64)
    }

    /// The list at `key` (empty when unset).
    pub(super) fn list<'a>(v: &'a Json, key: &str) -> &'a [Json] {
        v.get(key)
            .and_then(Json::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The object at `key`.
    pub(super) fn object<'a>(v: &'a Json, key: &str) -> Option<&'a Map<String, Json>> {
        v.get(key).and_then(Json::as_object)
    }

    /// The value at `key` unless unset (`null` is unset).
    pub(super) fn field<'a>(v: &'a Json, key: &str) -> Option<&'a Json> {
        v.get(key).filter(|x| !x.is_null())
    }

    /// A map of strings as `(key, value)` pairs in key order.
    pub(super) fn strings(v: &Json, key: &str) -> Vec<(String, String)> {
        object(v, key)
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
