//! `Table` (meta.k8s.io) responses: the columns kube-apiserver prints for each served kind
//! (kubernetes/kubernetes `pkg/printers/internalversion`), so that `kubectl get` prints as it
//! does against upstream. Columns of priority 1 are the ones `-o wide` adds.

mod admission_policies;
mod autoscaling;
mod pod;
mod rbac;
mod volumes;

use serde_json::{Map, Value, json};

use crate::object::Object;
use crate::resource::Resource;

/// One column: name, type, format and priority.
struct Column(&'static str, &'static str, &'static str, u8);

const NAME: Column = Column("Name", "string", "name", 0);
const AGE: Column = Column("Age", "string", "", 0);

fn columns(kind: &str) -> Vec<Column> {
    let s = |name, priority| Column(name, "string", "", priority);
    match kind {
        "Namespace" => vec![NAME, s("Status", 0), AGE],
        "ConfigMap" => vec![NAME, Column("Data", "integer", "", 0), AGE],
        "Secret" => vec![NAME, s("Type", 0), Column("Data", "integer", "", 0), AGE],
        "Service" => vec![
            NAME,
            s("Type", 0),
            s("Cluster-IP", 0),
            s("External-IP", 0),
            s("Port(s)", 0),
            AGE,
            s("Selector", 1),
        ],
        "ServiceAccount" => vec![NAME, s("Secrets", 0), AGE],
        "Event" => vec![
            s("Last Seen", 0),
            s("Type", 0),
            s("Reason", 0),
            s("Object", 0),
            s("Subobject", 1),
            s("Source", 1),
            s("Message", 0),
            s("First Seen", 1),
            s("Count", 1),
            Column("Name", "string", "name", 1),
        ],
        "Deployment" => vec![
            NAME,
            s("Ready", 0),
            Column("Up-to-date", "integer", "", 0),
            Column("Available", "integer", "", 0),
            AGE,
            s("Containers", 1),
            s("Images", 1),
            s("Selector", 1),
        ],
        "Pod" => vec![
            NAME,
            s("Ready", 0),
            s("Status", 0),
            s("Restarts", 0),
            AGE,
            s("IP", 1),
            s("Node", 1),
            s("Nominated Node", 1),
            s("Readiness Gates", 1),
        ],
        "ReplicaSet" => vec![
            NAME,
            Column("Desired", "integer", "", 0),
            Column("Current", "integer", "", 0),
            Column("Ready", "integer", "", 0),
            AGE,
            s("Containers", 1),
            s("Images", 1),
            s("Selector", 1),
        ],
        "StatefulSet" => vec![NAME, s("Ready", 0), AGE, s("Containers", 1), s("Images", 1)],
        "DaemonSet" => vec![
            NAME,
            Column("Desired", "integer", "", 0),
            Column("Current", "integer", "", 0),
            Column("Ready", "integer", "", 0),
            Column("Up-to-date", "integer", "", 0),
            Column("Available", "integer", "", 0),
            s("Node Selector", 0),
            AGE,
            s("Containers", 1),
            s("Images", 1),
            s("Selector", 1),
        ],
        "Job" => vec![
            NAME,
            s("Status", 0),
            s("Completions", 0),
            s("Duration", 0),
            AGE,
            s("Containers", 1),
            s("Images", 1),
            s("Selector", 1),
        ],
        "CronJob" => vec![
            NAME,
            s("Schedule", 0),
            s("Timezone", 0),
            Column("Suspend", "boolean", "", 0),
            Column("Active", "integer", "", 0),
            s("Last Schedule", 0),
            AGE,
            s("Containers", 1),
            s("Images", 1),
            s("Selector", 1),
        ],
        "HorizontalPodAutoscaler" => vec![
            NAME,
            s("Reference", 0),
            s("Targets", 0),
            s("MinPods", 0),
            s("MaxPods", 0),
            s("Replicas", 0),
            AGE,
        ],
        "PersistentVolume" => vec![
            NAME,
            s("Capacity", 0),
            s("Access Modes", 0),
            s("Reclaim Policy", 0),
            s("Status", 0),
            s("Claim", 0),
            s("StorageClass", 0),
            s("VolumeAttributesClass", 0),
            s("Reason", 0),
            AGE,
            s("VolumeMode", 1),
        ],
        "PersistentVolumeClaim" => vec![
            NAME,
            s("Status", 0),
            s("Volume", 0),
            s("Capacity", 0),
            s("Access Modes", 0),
            s("StorageClass", 0),
            s("VolumeAttributesClass", 0),
            AGE,
            s("VolumeMode", 1),
        ],
        "RoleBinding" | "ClusterRoleBinding" => vec![
            NAME,
            s("Role", 0),
            AGE,
            s("Users", 1),
            s("Groups", 1),
            s("ServiceAccounts", 1),
        ],
        // No printer of their own: the default table convertor's columns
        // (k8s.io/apiserver `rest.DefaultTableConvertor`).
        "Role" | "ClusterRole" => vec![NAME, Column("Created At", "date", "", 0)],
        "Lease" => vec![NAME, s("Holder", 0), AGE],
        "CustomResourceDefinition" => vec![NAME, Column("Created At", "date", "", 0)],
        "ValidatingAdmissionPolicy" => vec![
            NAME,
            Column("Validations", "integer", "", 0),
            s("ParamKind", 0),
            AGE,
        ],
        "MutatingAdmissionPolicy" => vec![
            NAME,
            Column("Mutations", "integer", "", 0),
            s("ParamKind", 0),
            AGE,
        ],
        "ValidatingAdmissionPolicyBinding" | "MutatingAdmissionPolicyBinding" => {
            vec![NAME, s("PolicyName", 0), s("ParamRef", 0), AGE]
        }
        _ => vec![NAME, AGE],
    }
}

fn get<'a>(object: &'a Object, path: &[&str]) -> &'a Value {
    let mut node = object.get(path[0]).unwrap_or(&Value::Null);
    for field in &path[1..] {
        node = node.get(field).unwrap_or(&Value::Null);
    }
    node
}

fn text<'a>(object: &'a Object, path: &[&str]) -> &'a str {
    get(object, path).as_str().unwrap_or("")
}

fn int(object: &Object, path: &[&str]) -> i64 {
    get(object, path).as_i64().unwrap_or(0)
}

fn len(object: &Object, path: &[&str]) -> i64 {
    match get(object, path) {
        Value::Object(m) => m.len() as i64,
        Value::Array(a) => a.len() as i64,
        _ => 0,
    }
}

fn or_none(text: String) -> String {
    if text.is_empty() {
        "<none>".to_owned()
    } else {
        text
    }
}

/// A label map as `k=v,k2=v2` in key order.
fn selector_text(value: &Value) -> String {
    let Some(map) = value.as_object() else {
        return String::new();
    };
    let mut pairs: Vec<String> = map
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
        .collect();
    pairs.sort();
    pairs.join(",")
}

/// Upstream's `duration.HumanDuration`.
pub fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".to_owned();
    }
    if seconds < 0 {
        return "0s".to_owned();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let d = (hours / 24) % 365;
        return if d == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{d}d", hours / 24 / 365)
        };
    }
    format!("{}y", hours / 24 / 365)
}

/// The time since an RFC 3339 timestamp, as upstream's `translateTimestampSince`.
fn since(timestamp: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(timestamp) {
        Ok(t) => human_duration((chrono::Utc::now() - t.with_timezone(&chrono::Utc)).num_seconds()),
        Err(_) => "<unknown>".to_owned(),
    }
}

fn age(object: &Object) -> Value {
    Value::from(since(text(object, &["metadata", "creationTimestamp"])))
}

fn name(object: &Object) -> Value {
    Value::from(text(object, &["metadata", "name"]))
}

fn service_ports(object: &Object) -> String {
    let Some(ports) = get(object, &["spec", "ports"]).as_array() else {
        return String::new();
    };
    ports
        .iter()
        .map(|p| {
            let port = p.get("port").and_then(Value::as_i64).unwrap_or(0);
            let protocol = p.get("protocol").and_then(Value::as_str).unwrap_or("TCP");
            match p.get("nodePort").and_then(Value::as_i64) {
                Some(node) if node != 0 => format!("{port}:{node}/{protocol}"),
                _ => format!("{port}/{protocol}"),
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn service_external_ip(object: &Object) -> String {
    let external: Vec<&str> = get(object, &["spec", "externalIPs"])
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    match text(object, &["spec", "type"]) {
        "ExternalName" => text(object, &["spec", "externalName"]).to_owned(),
        "LoadBalancer" => {
            let mut ips: Vec<&str> = get(object, &["status", "loadBalancer", "ingress"])
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|i| i.get("ip").or(i.get("hostname")).and_then(Value::as_str))
                        .collect()
                })
                .unwrap_or_default();
            ips.extend(external);
            if ips.is_empty() {
                "<pending>".to_owned()
            } else {
                ips.join(",")
            }
        }
        _ => or_none(external.join(",")),
    }
}

fn event_source(object: &Object) -> String {
    let mut component = text(object, &["source", "component"]);
    let mut host = text(object, &["source", "host"]);
    if component.is_empty() {
        component = text(object, &["reportingComponent"]);
        host = text(object, &["reportingInstance"]);
    }
    if host.is_empty() {
        component.to_owned()
    } else {
        format!("{component}, {host}")
    }
}

fn event_time(object: &Object, field: &str) -> String {
    let t = text(object, &[field]);
    if !t.is_empty() {
        return since(t);
    }
    let t = text(object, &["eventTime"]);
    if !t.is_empty() {
        return since(t);
    }
    since(text(object, &["metadata", "creationTimestamp"]))
}

/// One field of each container of the object's pod template, comma-joined (the CONTAINERS
/// and IMAGES columns).
fn containers(object: &Object, field: &str) -> String {
    pod_containers(get(object, &["spec", "template", "spec"]), field)
}

/// One field of each container of a pod spec, comma-joined.
fn pod_containers(pod_spec: &Value, field: &str) -> String {
    pod_spec["containers"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| c.get(field).and_then(Value::as_str).unwrap_or(""))
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default()
}

/// A label selector as text: `k=v,k2 in (a,b),!k3`.
pub fn label_selector_text(value: &Value) -> String {
    let mut parts = Vec::new();
    let labels = selector_text(&value["matchLabels"]);
    if !labels.is_empty() {
        parts.push(labels);
    }
    if let Some(exprs) = value["matchExpressions"].as_array() {
        for e in exprs {
            let key = e["key"].as_str().unwrap_or("");
            let values: Vec<&str> = e["values"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            parts.push(match e["operator"].as_str().unwrap_or("") {
                "In" => format!("{key} in ({})", values.join(",")),
                "NotIn" => format!("{key} notin ({})", values.join(",")),
                "Exists" => key.to_owned(),
                "DoesNotExist" => format!("!{key}"),
                other => format!("{key} {other}"),
            });
        }
    }
    parts.join(",")
}

/// Whether the Job's first condition of `kind` is `True` (upstream's `hasJobCondition`).
fn job_condition(o: &Object, kind: &str) -> bool {
    get(o, &["status", "conditions"])
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == kind))
        .is_some_and(|c| c["status"] == "True")
}

/// A Job's status column (`printJob`).
fn job_status(o: &Object) -> &'static str {
    if job_condition(o, "Complete") {
        "Complete"
    } else if job_condition(o, "Failed") {
        "Failed"
    } else if !get(o, &["metadata", "deletionTimestamp"]).is_null() {
        "Terminating"
    } else if job_condition(o, "Suspended") {
        "Suspended"
    } else if job_condition(o, "FailureTarget") {
        "FailureTarget"
    } else {
        "Running"
    }
}

/// A Job's completions column: `<succeeded>/<completions>`, or without completions
/// `<succeeded>/1` (`of <parallelism>` above one).
fn job_completions(o: &Object) -> String {
    let succeeded = int(o, &["status", "succeeded"]);
    if let Some(completions) = get(o, &["spec", "completions"]).as_i64() {
        return format!("{succeeded}/{completions}");
    }
    match int(o, &["spec", "parallelism"]) {
        p if p > 1 => format!("{succeeded}/1 of {p}"),
        _ => format!("{succeeded}/1"),
    }
}

/// A Job's duration column: empty before it starts, then the time since its start or from
/// its start to its completion.
fn job_duration(o: &Object) -> String {
    let time = |field: &str| {
        chrono::DateTime::parse_from_rfc3339(text(o, &["status", field]))
            .ok()
            .map(|t| t.with_timezone(&chrono::Utc))
    };
    match (time("startTime"), time("completionTime")) {
        (None, _) => String::new(),
        (Some(start), None) => human_duration((chrono::Utc::now() - start).num_seconds()),
        (Some(start), Some(end)) => human_duration((end - start).num_seconds()),
    }
}

/// A CronJob's row (`printCronJob`): its schedule, time zone (`<none>`), `suspend` as
/// `True`/`False` (`<unset>`), active jobs, the time since the last schedule (`<none>`),
/// and its job template's containers, images and selector (`<none>`).
fn cron_job(o: &Object) -> Vec<Value> {
    let or = |value: &Value, none: &str| value.as_str().unwrap_or(none).to_owned();
    let suspend = match get(o, &["spec", "suspend"]).as_bool() {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    };
    let last = match get(o, &["status", "lastScheduleTime"]).as_str() {
        Some(t) => since(t),
        None => "<none>".to_owned(),
    };
    let job = get(o, &["spec", "jobTemplate", "spec"]);
    let listed = |field: &str| pod_containers(&job["template"]["spec"], field);
    vec![
        name(o),
        Value::from(text(o, &["spec", "schedule"])),
        Value::from(or(get(o, &["spec", "timeZone"]), "<none>")),
        Value::from(suspend),
        Value::from(len(o, &["status", "active"])),
        Value::from(last),
        age(o),
        Value::from(listed("name")),
        Value::from(listed("image")),
        Value::from(or_none(label_selector_text(&job["selector"]))),
    ]
}

fn cells(kind: &str, o: &Object) -> Vec<Value> {
    match kind {
        "Namespace" => vec![name(o), Value::from(text(o, &["status", "phase"])), age(o)],
        "ConfigMap" => {
            let data = len(o, &["data"]) + len(o, &["binaryData"]);
            vec![name(o), Value::from(data), age(o)]
        }
        "Secret" => vec![
            name(o),
            Value::from(text(o, &["type"])),
            Value::from(len(o, &["data"])),
            age(o),
        ],
        "Service" => {
            let cluster_ip = text(o, &["spec", "clusterIP"]);
            vec![
                name(o),
                Value::from(text(o, &["spec", "type"])),
                Value::from(or_none(cluster_ip.to_owned())),
                Value::from(service_external_ip(o)),
                Value::from(or_none(service_ports(o))),
                age(o),
                Value::from(or_none(selector_text(get(o, &["spec", "selector"])))),
            ]
        }
        "ServiceAccount" => vec![name(o), Value::from(len(o, &["secrets"])), age(o)],
        "Event" => {
            let count = int(o, &["count"]);
            let last = event_time(o, "lastTimestamp");
            let last = if count > 1 {
                format!("{last} (x{count} over {})", event_time(o, "firstTimestamp"))
            } else {
                last
            };
            let involved = |f: &str| text(o, &["involvedObject", f]).to_owned();
            vec![
                Value::from(last),
                Value::from(text(o, &["type"])),
                Value::from(text(o, &["reason"])),
                Value::from(format!(
                    "{}/{}",
                    involved("kind").to_lowercase(),
                    involved("name")
                )),
                Value::from(involved("fieldPath")),
                Value::from(event_source(o)),
                Value::from(text(o, &["message"]).trim()),
                Value::from(event_time(o, "firstTimestamp")),
                Value::from(count),
                name(o),
            ]
        }
        "Deployment" => {
            let desired = int(o, &["spec", "replicas"]);
            let ready = int(o, &["status", "readyReplicas"]);
            vec![
                name(o),
                Value::from(format!("{ready}/{desired}")),
                Value::from(int(o, &["status", "updatedReplicas"])),
                Value::from(int(o, &["status", "availableReplicas"])),
                age(o),
                Value::from(containers(o, "name")),
                Value::from(containers(o, "image")),
                Value::from(label_selector_text(get(o, &["spec", "selector"]))),
            ]
        }
        "Pod" => pod::cells(o),
        "ReplicaSet" => vec![
            name(o),
            Value::from(int(o, &["spec", "replicas"])),
            Value::from(int(o, &["status", "replicas"])),
            Value::from(int(o, &["status", "readyReplicas"])),
            age(o),
            Value::from(containers(o, "name")),
            Value::from(containers(o, "image")),
            Value::from(label_selector_text(get(o, &["spec", "selector"]))),
        ],
        "StatefulSet" => {
            let ready = int(o, &["status", "readyReplicas"]);
            let desired = int(o, &["spec", "replicas"]);
            vec![
                name(o),
                Value::from(format!("{ready}/{desired}")),
                age(o),
                Value::from(containers(o, "name")),
                Value::from(containers(o, "image")),
            ]
        }
        "DaemonSet" => {
            let status = |f: &str| Value::from(int(o, &["status", f]));
            let node_selector = get(o, &["spec", "template", "spec", "nodeSelector"]);
            vec![
                name(o),
                status("desiredNumberScheduled"),
                status("currentNumberScheduled"),
                status("numberReady"),
                status("updatedNumberScheduled"),
                status("numberAvailable"),
                Value::from(or_none(selector_text(node_selector))),
                age(o),
                Value::from(containers(o, "name")),
                Value::from(containers(o, "image")),
                Value::from(label_selector_text(get(o, &["spec", "selector"]))),
            ]
        }
        "Job" => vec![
            name(o),
            Value::from(job_status(o)),
            Value::from(job_completions(o)),
            Value::from(job_duration(o)),
            age(o),
            Value::from(containers(o, "name")),
            Value::from(containers(o, "image")),
            Value::from(label_selector_text(get(o, &["spec", "selector"]))),
        ],
        "CronJob" => cron_job(o),
        "HorizontalPodAutoscaler" => {
            let target = |f: &str| text(o, &["spec", "scaleTargetRef", f]).to_owned();
            let min = match get(o, &["spec", "minReplicas"]).as_i64() {
                Some(n) => n.to_string(),
                None => "<unset>".to_owned(),
            };
            vec![
                name(o),
                Value::from(format!("{}/{}", target("kind"), target("name"))),
                Value::from(autoscaling::targets(
                    get(o, &["spec", "metrics"]),
                    get(o, &["status", "currentMetrics"]),
                )),
                Value::from(min),
                Value::from(int(o, &["spec", "maxReplicas"])),
                Value::from(int(o, &["status", "currentReplicas"])),
                age(o),
            ]
        }
        "PersistentVolume" => volumes::persistent_volume(o),
        "PersistentVolumeClaim" => volumes::persistent_volume_claim(o),
        "RoleBinding" | "ClusterRoleBinding" => rbac::binding(o),
        "Role" | "ClusterRole" => vec![
            name(o),
            Value::from(text(o, &["metadata", "creationTimestamp"])),
        ],
        "Lease" => vec![
            name(o),
            Value::from(text(o, &["spec", "holderIdentity"])),
            age(o),
        ],
        "CustomResourceDefinition" => vec![
            name(o),
            Value::from(text(o, &["metadata", "creationTimestamp"])),
        ],
        "ValidatingAdmissionPolicy" => admission_policies::policy(o, "validations"),
        "MutatingAdmissionPolicy" => admission_policies::policy(o, "mutations"),
        "ValidatingAdmissionPolicyBinding" | "MutatingAdmissionPolicyBinding" => {
            admission_policies::binding(o)
        }
        _ => vec![name(o), age(o)],
    }
}

/// The `PartialObjectMetadata` of an object (a Table row's `object`, and the metadata-only
/// representation).
pub fn partial_metadata(object: &Object, version: &str) -> Value {
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": format!("meta.k8s.io/{version}"),
        "metadata": object.get("metadata").cloned().unwrap_or_else(|| Value::Object(Map::new())),
    })
}

/// A Table of `objects` of a built-in `resource`; `headers` false leaves the column
/// definitions out (watch events after the first). Custom resources: the
/// served module.
pub fn table(
    resource: &Resource,
    objects: &[&Object],
    list_metadata: Value,
    version: &str,
    headers: bool,
) -> Value {
    let definitions: Vec<Value> = if headers {
        columns(resource.kind)
            .iter()
            .map(|Column(name, kind, format, priority)| {
                json!({"name": name, "type": kind, "format": format, "description": "", "priority": priority})
            })
            .collect()
    } else {
        Vec::new()
    };
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| {
            let mut row = json!({
                "cells": cells(resource.kind, o),
                "object": partial_metadata(o, version),
            });
            if resource.kind == "Pod"
                && let Some(conditions) = pod::conditions(o)
            {
                row["conditions"] = conditions;
            }
            row
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": format!("meta.k8s.io/{version}"),
        "metadata": list_metadata,
        "columnDefinitions": definitions,
        "rows": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{CONFIGMAPS, SERVED};

    #[test]
    fn human_durations_are_upstreams() {
        let cases = [
            (0, "0s"),
            (-1, "0s"),
            (-5, "<invalid>"),
            (119, "119s"),
            (120, "2m"),
            (125, "2m5s"),
            (600, "10m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 60, "3h1m"),
            (47 * 3600, "47h"),
            (50 * 3600, "2d2h"),
            (30 * 86400, "30d"),
            (3 * 365 * 86400, "3y"),
            (9 * 365 * 86400, "9y"),
        ];
        for (s, want) in cases {
            assert_eq!(human_duration(s), want, "{s}");
        }
    }

    #[test]
    fn configmap_rows_count_data() {
        let o: Object = serde_json::from_value(json!({
            "metadata": {"name": "a", "creationTimestamp": "2020-01-01T00:00:00Z"},
            "data": {"x": "1", "y": "2"}, "binaryData": {"z": ""}
        }))
        .unwrap();
        let t = table(
            &CONFIGMAPS,
            &[&o],
            json!({"resourceVersion": "5"}),
            "v1",
            true,
        );
        assert_eq!(t["columnDefinitions"][1]["name"], "Data");
        assert_eq!(t["rows"][0]["cells"][0], "a");
        assert_eq!(t["rows"][0]["cells"][1], 3);
        assert_eq!(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
        for r in SERVED {
            let empty = Object::new();
            assert_eq!(
                cells(r.kind, &empty).len(),
                columns(r.kind).len(),
                "{}",
                r.kind
            );
        }
    }
}
