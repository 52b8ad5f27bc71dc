//! apps/v1 defaults: kubernetes `pkg/apis/apps/v1/defaults.go` (`SetDefaults_Deployment`,
//! `SetDefaults_ReplicaSet`, `SetDefaults_StatefulSet`, `SetDefaults_DaemonSet`), each
//! followed by its pod template's ([`super::pod::template`]) and, for a StatefulSet, its
//! volume claim templates' (`SetDefaults_PersistentVolumeClaim`, `..._ClaimSpec`), as
//! `zz_generated.defaults.go` orders them.

use serde_json::{Map, Value, json};

use super::{child_object, default_field, pod};

/// The defaults of the apps/v1 kind `kind` (other kinds are left as they are).
pub(super) fn apply(kind: &str, object: &mut Map<String, Value>) {
    let defaults: fn(&mut Value) = match kind {
        "Deployment" => deployment,
        "ReplicaSet" => replica_set,
        "StatefulSet" => stateful_set,
        "DaemonSet" => daemon_set,
        _ => return,
    };
    let spec = object
        .entry("spec")
        .or_insert_with(|| Value::Object(Map::new()));
    if !spec.is_object() {
        return; // not the kind's shape: validation is not this function's job
    }
    defaults(spec);
    if let Some(template) = spec.get_mut("template").filter(|t| t.is_object()) {
        pod::template(template);
    }
}

/// `SetDefaults_Deployment`: one replica, a rolling update of 25% surge and unavailability,
/// ten revisions kept, a progress deadline of 600 s.
fn deployment(spec: &mut Value) {
    default_field(spec, "replicas", json!(1));
    if let Some(strategy) = child_object(spec, "strategy") {
        default_field(strategy, "type", json!("RollingUpdate"));
        if strategy["type"] == "RollingUpdate"
            && let Some(rolling) = child_object(strategy, "rollingUpdate")
        {
            default_field(rolling, "maxUnavailable", json!("25%"));
            default_field(rolling, "maxSurge", json!("25%"));
        }
    }
    default_field(spec, "revisionHistoryLimit", json!(10));
    default_field(spec, "progressDeadlineSeconds", json!(600));
}

/// `SetDefaults_ReplicaSet`: one replica.
fn replica_set(spec: &mut Value) {
    default_field(spec, "replicas", json!(1));
}

/// `SetDefaults_StatefulSet`: `OrderedReady` pod management, a rolling update from
/// partition 0, claims retained when deleted or scaled (`StatefulSetAutoDeletePVC`, GA), one
/// replica, ten revisions kept; then its claim templates' defaults.
fn stateful_set(spec: &mut Value) {
    default_field(spec, "podManagementPolicy", json!("OrderedReady"));
    if let Some(strategy) = child_object(spec, "updateStrategy") {
        if strategy.get("type").is_none_or(|t| t.is_null() || t == "") {
            strategy["type"] = json!("RollingUpdate");
            child_object(strategy, "rollingUpdate");
        }
        if strategy["type"] == "RollingUpdate"
            && let Some(rolling) = strategy.get_mut("rollingUpdate").filter(|r| r.is_object())
        {
            default_field(rolling, "partition", json!(0));
        }
    }
    if let Some(retention) = child_object(spec, "persistentVolumeClaimRetentionPolicy") {
        default_field(retention, "whenDeleted", json!("Retain"));
        default_field(retention, "whenScaled", json!("Retain"));
    }
    default_field(spec, "replicas", json!(1));
    default_field(spec, "revisionHistoryLimit", json!(10));
    if let Some(claims) = spec
        .get_mut("volumeClaimTemplates")
        .and_then(Value::as_array_mut)
    {
        for claim in claims.iter_mut().filter(|c| c.is_object()) {
            // SetDefaults_PersistentVolumeClaim: a claim's phase starts `Pending`.
            if let Some(status) = child_object(claim, "status") {
                default_field(status, "phase", json!("Pending"));
            }
            if let Some(claim_spec) = child_object(claim, "spec") {
                pod::claim_spec(claim_spec);
            }
        }
    }
}

/// `SetDefaults_DaemonSet`: a rolling update of one unavailable pod and no surge, ten
/// revisions kept.
fn daemon_set(spec: &mut Value) {
    if let Some(strategy) = child_object(spec, "updateStrategy") {
        default_field(strategy, "type", json!("RollingUpdate"));
        if strategy["type"] == "RollingUpdate"
            && let Some(rolling) = child_object(strategy, "rollingUpdate")
        {
            default_field(rolling, "maxUnavailable", json!(1));
            default_field(rolling, "maxSurge", json!(0));
        }
    }
    default_field(spec, "revisionHistoryLimit", json!(10));
}
