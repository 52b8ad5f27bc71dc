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
//! template they share, `volumes` a pod volume's source, `cron_schedule` a CronJob's schedule
//! (robfig/cron's parser), `label_selector` `metav1.LabelSelector` (validation, matching,
//! rendering), `errors` the field errors as upstream's `field` package builds them.
//!
//! Left out, for now (an object can pass here and still be refused upstream): the sources
//! other than emptyDir, hostPath, secret, configMap, nfs, persistentVolumeClaim and projected
//! (their fields; one source per volume is checked for all), downward API items and cluster
//! trust bundles in projections, sub-paths, mount propagation and volume devices; pod and
//! container security contexts; affinity, topology spread constraints, readiness and
//! scheduling gates, image pull secrets, host aliases, DNS nameserver addresses and search
//! domains; resource names, huge pages and resize policies; ephemeral containers' rules;
//! pod-specific annotations (seccomp, AppArmor, tolerations, deletion cost); the paths of env
//! `fieldRef`s; Service cluster IPs and IP families (`ValidateServiceClusterIPsRelatedFields`),
//! external IPs, source range CIDRs, load balancer classes, duplicate (protocol, port) pairs,
//! `appProtocol`, client IP affinity configs, traffic distribution, node port ranges (the
//! allocator's); ConfigMap sizes (the error has an empty, non-nil path); the contents of
//! dockercfg Secrets; Deployment strategy types other than the two and the percent syntax of
//! `maxSurge`/`maxUnavailable`; DaemonSet update strategies; StatefulSet update strategies,
//! ordinals, claim templates, retention policies and update rules; Job selectors (generated
//! by the API server), `managedBy`, pod failure and success policies' contents and update
//! rules; whether a CronJob's time zone exists (Go's `time.LoadLocation`), a schedule's
//! `TZ=` zone and `@every` duration; Namespace finalizers; every other kind (Ingress,
//! NetworkPolicy, RBAC, PersistentVolumeClaim, ...); status updates; the metadata update rules
//! (`ValidateObjectMetaUpdate`).

mod apps;
mod batch;
mod core;
mod cron_schedule;
mod errors;
mod label_selector;
mod pod;
mod volumes;

use serde_json::Value as Json;

use super::crd::FieldError;

/// The errors of `object`'s `metadata` (`metadata`, found by the caller) and of the kind's
/// own validation, and on update (`old` given) of its update rules, in upstream's order:
/// `metadata` first, but for the kinds whose update validation checks its update rules
/// before it validates the object as on create (ConfigMap, Secret).
pub(crate) fn validate(
    group: &str,
    kind: &str,
    object: &Json,
    old: Option<&Json>,
    metadata: Vec<FieldError>,
) -> Vec<FieldError> {
    let mut e = errors::Errors::default();
    match (group, kind) {
        ("", "ConfigMap") => return core::config_map(e, object, old, metadata).into_vec(),
        ("", "Secret") => return core::secret(e, object, old, metadata).into_vec(),
        _ => e.extend(metadata),
    }
    match (group, kind) {
        ("", "Pod") => core::pod(&mut e, object),
        ("", "Service") => core::service(&mut e, object),
        ("apps", "Deployment") => apps::deployment(&mut e, object, old),
        ("apps", "ReplicaSet") => apps::replica_set(&mut e, object, old),
        ("apps", "StatefulSet") => apps::stateful_set(&mut e, object, old),
        ("apps", "DaemonSet") => apps::daemon_set(&mut e, object, old),
        ("batch", "Job") => batch::job(&mut e, object),
        ("batch", "CronJob") => batch::cron_job(&mut e, object, old),
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
