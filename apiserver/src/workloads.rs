//! What the create strategies of the workload kinds set on a new object after the field
//! manager has run (so no manager owns it), as kube-apiserver's `PrepareForCreate` does:
//!
//! - a Pod's status (`pkg/registry/core/pod` `PrepareForCreate`): phase `Pending`, its QoS
//!   class ([`kcel_stdlib::kubernetes::pod_qos`]), and with scheduling gates the
//!   `PodScheduled` condition `SchedulingGated` (`applySchedulingGatedCondition`). No
//!   scheduler or kubelet runs here, so a pod stays `Pending`, as on a server without nodes;
//! - the empty status of a ReplicaSet, StatefulSet, DaemonSet or Job, as encoded from Go's
//!   zero values (the counters without `omitempty` show as `0`: the object is encoded again
//!   with [`crate::defaults::go_round_trip`]);
//! - a Job's generated selector and pod labels unless `spec.manualSelector`
//!   (`pkg/registry/batch/job` `generateSelector`);
//! - the empty status of a CronJob (`pkg/registry/batch/cronjob` `PrepareForCreate`) and
//!   of an autoscaling/v2 HorizontalPodAutoscaler (`pkg/registry/autoscaling/
//!   horizontalpodautoscaler` `PrepareForCreate`: `desiredReplicas` has no `omitempty`,
//!   nor has `currentMetrics`, a nil list; v1's `currentReplicas` neither).
//!
//! And on a Pod's `/status` write, what `podStatusStrategy.PrepareForUpdate` keeps: the QoS
//! class, immutable once set at creation, when the new status has none.

use serde_json::{Map, Value, json};

use crate::object::Object;
use crate::resource::Resource;

/// Applies the create strategy of `resource`'s kind to `object` (other kinds: nothing).
pub fn prepare_for_create(resource: &Resource, object: &mut Object) {
    let status = match (resource.group, resource.kind) {
        ("", "Pod") => pod_status(object),
        // The zero status, encoded below.
        ("apps", "ReplicaSet" | "StatefulSet" | "DaemonSet")
        | ("batch", "CronJob")
        | ("autoscaling", "HorizontalPodAutoscaler") => json!({}),
        ("batch", "Job") => {
            if object
                .get("spec")
                .is_none_or(|s| s["manualSelector"] != true)
            {
                generate_job_selector(object);
            }
            json!({})
        }
        _ => return,
    };
    object.insert("status".to_owned(), status);
    crate::defaults::go_round_trip(resource, object);
}

/// Keeps a Pod's `status.qosClass` through a status write that leaves it out (old kubelets
/// dropped it); other kinds: nothing.
pub fn prepare_for_status_update(resource: &Resource, object: &mut Object, old: &Object) {
    if (resource.group, resource.kind) != ("", "Pod") {
        return;
    }
    let Some(qos) = old.get("status").and_then(|s| s.get("qosClass")).cloned() else {
        return;
    };
    let status = object
        .entry("status")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(status) = status.as_object_mut() {
        let unset = status
            .get("qosClass")
            .is_none_or(|q| q.is_null() || q == "");
        if unset {
            status.insert("qosClass".to_owned(), qos);
        }
    }
}

/// A new Pod's status.
fn pod_status(pod: &Object) -> Value {
    let spec = pod.get("spec").unwrap_or(&Value::Null);
    let mut status = json!({
        "phase": "Pending",
        "qosClass": kcel_stdlib::kubernetes::pod_qos::qos_class(spec),
    });
    let gated = spec["schedulingGates"]
        .as_array()
        .is_some_and(|g| !g.is_empty());
    if gated {
        status["conditions"] = json!([{
            "type": "PodScheduled",
            "status": "False",
            "lastProbeTime": null,
            "lastTransitionTime": crate::object::now_timestamp(),
            "reason": "SchedulingGated",
            "message": "Scheduling is blocked due to non-empty scheduling gates",
        }]);
    }
    status
}

/// The labels a Job's pods get (legacy names first) and the one its selector matches.
const JOB_NAME_LABELS: [&str; 2] = ["job-name", "batch.kubernetes.io/job-name"];
const CONTROLLER_UID_LABELS: [&str; 2] = ["controller-uid", "batch.kubernetes.io/controller-uid"];
const SELECTED_LABEL: &str = "batch.kubernetes.io/controller-uid";

/// Labels the Job's pod template with its name and uid (where not labelled so already) and
/// selects the uid label (`generateSelector`).
fn generate_job_selector(job: &mut Object) {
    let meta = job.get("metadata").cloned().unwrap_or_default();
    let name = meta["name"].clone();
    let uid = meta["uid"].clone();
    let Some(spec) = job.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let template = object_entry(spec, "template");
    if let Some(labels) = template
        .and_then(|t| object_entry(t, "metadata"))
        .and_then(|m| object_entry(m, "labels"))
    {
        for key in JOB_NAME_LABELS {
            labels.entry(key).or_insert_with(|| name.clone());
        }
        for key in CONTROLLER_UID_LABELS {
            labels.entry(key).or_insert_with(|| uid.clone());
        }
    }
    if let Some(match_labels) =
        object_entry(spec, "selector").and_then(|s| object_entry(s, "matchLabels"))
    {
        match_labels.entry(SELECTED_LABEL).or_insert(uid);
    }
}

/// The map at `field` of `map`, made empty when absent or `null`; `None` when it is
/// something else.
fn object_entry<'a>(
    map: &'a mut Map<String, Value>,
    field: &str,
) -> Option<&'a mut Map<String, Value>> {
    let entry = map
        .entry(field)
        .or_insert_with(|| Value::Object(Map::new()));
    if entry.is_null() {
        *entry = Value::Object(Map::new());
    }
    entry.as_object_mut()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{CRONJOBS, DAEMONSETS, HORIZONTALPODAUTOSCALERS, JOBS, PODS};

    fn object(value: Value) -> Object {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_pod_is_pending_with_its_qos_class() {
        let mut pod = object(json!({"spec": {"containers": [{"name": "c", "resources": {
            "limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}}}]},
            "status": {"phase": "Running", "podIP": "10.0.0.1"}}));
        prepare_for_create(&PODS, &mut pod);
        assert_eq!(
            pod["status"],
            json!({"phase": "Pending", "qosClass": "Guaranteed"})
        );
        let mut gated = object(json!({"spec": {"containers": [{"name": "c"}],
            "schedulingGates": [{"name": "example.com/wait"}]}}));
        prepare_for_create(&PODS, &mut gated);
        let condition = &gated["status"]["conditions"][0];
        assert_eq!(condition["reason"], "SchedulingGated");
        assert_eq!(
            condition["message"],
            "Scheduling is blocked due to non-empty scheduling gates"
        );
        assert_eq!(gated["status"]["qosClass"], "BestEffort");
    }

    #[test]
    fn a_status_write_keeps_the_qos_class() {
        let old = object(json!({"status": {"phase": "Pending", "qosClass": "Burstable"}}));
        let mut new = object(json!({"status": {"phase": "Running"}}));
        prepare_for_status_update(&PODS, &mut new, &old);
        assert_eq!(
            new["status"],
            json!({"phase": "Running", "qosClass": "Burstable"})
        );
        let mut given = object(json!({"status": {"qosClass": "Guaranteed"}}));
        prepare_for_status_update(&PODS, &mut given, &old);
        assert_eq!(given["status"]["qosClass"], "Guaranteed");
        let mut job = object(json!({"status": {}}));
        prepare_for_status_update(&JOBS, &mut job, &old);
        assert_eq!(job["status"], json!({}));
    }

    #[test]
    fn a_job_selects_its_uid_and_labels_its_pods() {
        let mut job = object(json!({"metadata": {"name": "pi", "uid": "u-1"},
            "spec": {"template": {"metadata": {"labels": {"job-name": "mine"}}}}}));
        prepare_for_create(&JOBS, &mut job);
        assert_eq!(
            job["spec"]["template"]["metadata"]["labels"],
            json!({"job-name": "mine", "batch.kubernetes.io/job-name": "pi",
                "controller-uid": "u-1", "batch.kubernetes.io/controller-uid": "u-1"})
        );
        assert_eq!(
            job["spec"]["selector"],
            json!({"matchLabels": {"batch.kubernetes.io/controller-uid": "u-1"}})
        );
        assert_eq!(job["status"], json!({}));
        let mut manual = object(json!({"metadata": {"name": "pi", "uid": "u-1"},
            "spec": {"manualSelector": true, "selector": {"matchLabels": {"a": "b"}}}}));
        prepare_for_create(&JOBS, &mut manual);
        assert_eq!(
            manual["spec"]["selector"],
            json!({"matchLabels": {"a": "b"}})
        );
        let mut ds = object(json!({"spec": {}}));
        prepare_for_create(&DAEMONSETS, &mut ds);
        assert_eq!(ds["status"]["numberMisscheduled"], 0);
        let mut hpa = object(json!({"spec": {}, "status": {"currentReplicas": 9}}));
        prepare_for_create(&HORIZONTALPODAUTOSCALERS, &mut hpa);
        assert_eq!(
            hpa["status"],
            json!({"currentMetrics": null, "desiredReplicas": 0})
        );
        let mut cron = object(json!({"status": {"active": [{"name": "x"}]}}));
        prepare_for_create(&CRONJOBS, &mut cron);
        assert_eq!(cron["status"], json!({}));
    }
}
