//! A Pod's Table row as kube-apiserver prints it (kubernetes `pkg/printers/internalversion`
//! `printPod`): `NAME READY STATUS RESTARTS AGE`, and for `-o wide` `IP NODE NOMINATED NODE
//! READINESS GATES`; the status text is the phase or reason, overridden by what the init
//! containers and containers report, and `Terminating` once the pod is being deleted.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::{get, since, text};
use crate::object::Object;

/// A terminated container's `finishedAt`, if it has one.
fn finished_at(status: &Value) -> Option<DateTime<Utc>> {
    let t = status["lastState"]["terminated"]["finishedAt"].as_str()?;
    DateTime::parse_from_rfc3339(t)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Keeps the later of `last` and the container's last termination.
fn later(last: &mut Option<DateTime<Utc>>, status: &Value) {
    if let Some(t) = finished_at(status)
        && last.is_none_or(|l| l < t)
    {
        *last = Some(t);
    }
}

/// Whether an init container is a sidecar (`restartPolicy: Always`).
fn restartable(init: Option<&Value>) -> bool {
    init.is_some_and(|c| c["restartPolicy"] == "Always")
}

/// The text of a terminated state without a reason: `<prefix>Signal:<n>` or
/// `<prefix>ExitCode:<n>`.
fn exit_text(prefix: &str, terminated: &Value) -> String {
    match terminated["signal"].as_i64() {
        Some(signal) if signal != 0 => format!("{prefix}Signal:{signal}"),
        _ => format!(
            "{prefix}ExitCode:{}",
            terminated["exitCode"].as_i64().unwrap_or(0)
        ),
    }
}

fn has_condition(pod: &Object, kind: &str, status: &str) -> bool {
    list(get(pod, &["status", "conditions"]))
        .iter()
        .any(|c| c["type"] == kind && c["status"] == status)
}

fn list(value: &Value) -> &[Value] {
    value.as_array().map(Vec::as_slice).unwrap_or_default()
}

/// The row's cells: name, ready, status, restarts, age, IP, node, nominated node, readiness
/// gates.
pub(super) fn cells(pod: &Object) -> Vec<Value> {
    let spec_containers = list(get(pod, &["spec", "containers"]));
    let init_specs = list(get(pod, &["spec", "initContainers"]));
    let init_by_name = |name: &Value| init_specs.iter().find(|c| c["name"] == *name);
    let total = spec_containers.len() + init_specs.iter().filter(|c| restartable(Some(*c))).count();
    let mut ready = 0;
    let mut restarts = 0;
    let mut sidecar_restarts = 0;
    let mut last_restart = None;
    let mut last_sidecar_restart = None;
    let phase = text(pod, &["status", "phase"]);
    let mut reason = match text(pod, &["status", "reason"]) {
        "" => phase.to_owned(),
        r => r.to_owned(),
    };
    let gated = list(get(pod, &["status", "conditions"]))
        .iter()
        .any(|c| c["type"] == "PodScheduled" && c["reason"] == "SchedulingGated");
    if gated {
        reason = "SchedulingGated".to_owned();
    }
    let mut initializing = false;
    for (i, status) in list(get(pod, &["status", "initContainerStatuses"]))
        .iter()
        .enumerate()
    {
        restarts += status["restartCount"].as_i64().unwrap_or(0);
        later(&mut last_restart, status);
        let sidecar = restartable(init_by_name(&status["name"]));
        if sidecar {
            sidecar_restarts += status["restartCount"].as_i64().unwrap_or(0);
            later(&mut last_sidecar_restart, status);
        }
        let terminated = &status["state"]["terminated"];
        let waiting = &status["state"]["waiting"];
        if terminated.is_object() && terminated["exitCode"].as_i64().unwrap_or(0) == 0 {
            continue;
        }
        if sidecar && status["started"] == true {
            if status["ready"] == true {
                ready += 1;
            }
            continue;
        }
        if terminated.is_object() {
            reason = match terminated["reason"].as_str().unwrap_or("") {
                "" => exit_text("Init:", terminated),
                r => format!("Init:{r}"),
            };
        } else if let Some(r) = waiting["reason"]
            .as_str()
            .filter(|r| !r.is_empty() && *r != "PodInitializing")
        {
            reason = format!("Init:{r}");
        } else {
            reason = format!("Init:{i}/{}", init_specs.len());
        }
        initializing = true;
        break;
    }
    if !initializing || has_condition(pod, "Initialized", "True") {
        restarts = sidecar_restarts;
        last_restart = last_sidecar_restart;
        let mut running = false;
        for status in list(get(pod, &["status", "containerStatuses"]))
            .iter()
            .rev()
        {
            restarts += status["restartCount"].as_i64().unwrap_or(0);
            later(&mut last_restart, status);
            let state = &status["state"];
            let waiting = state["waiting"]["reason"].as_str().unwrap_or("");
            let terminated = &state["terminated"];
            if state["waiting"].is_object() && !waiting.is_empty() {
                reason = waiting.to_owned();
            } else if terminated.is_object() {
                reason = match terminated["reason"].as_str().unwrap_or("") {
                    "" => exit_text("", terminated),
                    r => r.to_owned(),
                };
            } else if status["ready"] == true && state["running"].is_object() {
                running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && running {
            reason = if has_condition(pod, "Ready", "True") {
                "Running".to_owned()
            } else {
                "NotReady".to_owned()
            };
        }
    }
    let deleting = !get(pod, &["metadata", "deletionTimestamp"]).is_null();
    if deleting && text(pod, &["status", "reason"]) == "NodeLost" {
        reason = "Unknown".to_owned();
    } else if deleting && phase != "Succeeded" && phase != "Failed" {
        reason = "Terminating".to_owned();
    }
    let restarts_text = match last_restart {
        Some(t) if restarts != 0 => format!("{restarts} ({} ago)", since(&t.to_rfc3339())),
        _ => restarts.to_string(),
    };
    let or_none = |s: &str| {
        if s.is_empty() {
            "<none>".to_owned()
        } else {
            s.to_owned()
        }
    };
    let ip = list(get(pod, &["status", "podIPs"]))
        .first()
        .and_then(|p| p["ip"].as_str())
        .unwrap_or("");
    let gates = list(get(pod, &["spec", "readinessGates"]));
    let gates_text = if gates.is_empty() {
        "<none>".to_owned()
    } else {
        let conditions = list(get(pod, &["status", "conditions"]));
        let true_ones = gates
            .iter()
            .filter(|g| {
                conditions
                    .iter()
                    .find(|c| c["type"] == g["conditionType"])
                    .is_some_and(|c| c["status"] == "True")
            })
            .count();
        format!("{true_ones}/{}", gates.len())
    };
    vec![
        Value::from(text(pod, &["metadata", "name"])),
        Value::from(format!("{ready}/{total}")),
        Value::from(reason),
        Value::from(restarts_text),
        Value::from(since(text(pod, &["metadata", "creationTimestamp"]))),
        Value::from(or_none(ip)),
        Value::from(or_none(text(pod, &["spec", "nodeName"]))),
        Value::from(or_none(text(pod, &["status", "nominatedNodeName"]))),
        Value::from(gates_text),
    ]
}

/// The row's conditions: a succeeded or failed pod is `Completed` (upstream's
/// `podSuccessConditions` and `podFailedConditions`).
pub(super) fn conditions(pod: &Object) -> Option<Value> {
    let (reason, message) = match text(pod, &["status", "phase"]) {
        "Succeeded" => ("Succeeded", "The pod has completed successfully."),
        "Failed" => ("Failed", "The pod failed."),
        _ => return None,
    };
    Some(json!([{"type": "Completed", "status": "True", "reason": reason, "message": message}]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(value: Value) -> Object {
        serde_json::from_value(value).unwrap()
    }

    // kubernetes pkg/printers/internalversion/printers_test.go TestPrintPod (the cases
    // whose texts do not depend on the clock).
    #[test]
    fn statuses_as_upstream_prints_them() {
        let cases = [
            // A new pod on a server without nodes.
            (
                json!({"spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Pending"}}),
                ["0/1", "Pending", "0"],
            ),
            (
                json!({"spec": {"containers": [{}, {}]}, "status": {"phase": "podPhase",
                    "containerStatuses": [
                        {"ready": true, "restartCount": 3, "state": {"running": {}}},
                        {"restartCount": 3}]}}),
                ["1/2", "podPhase", "6"],
            ),
            (
                json!({"spec": {"containers": [{}, {}]}, "status": {"phase": "podPhase",
                    "containerStatuses": [
                        {"restartCount": 3, "state": {"waiting": {"reason": "ContainerWaitingReason"}}},
                        {"restartCount": 3}]}}),
                ["0/2", "ContainerWaitingReason", "6"],
            ),
            (
                json!({"spec": {"containers": [{}, {}]}, "status": {"phase": "podPhase",
                    "containerStatuses": [
                        {"restartCount": 3, "state": {"terminated": {"reason": "ContainerTerminatedReason"}}},
                        {"restartCount": 3}]}}),
                ["0/2", "ContainerTerminatedReason", "6"],
            ),
            (
                json!({"spec": {"containers": [{}]}, "status": {"phase": "podPhase",
                    "containerStatuses": [{"state": {"terminated": {"signal": 9}}}]}}),
                ["0/1", "Signal:9", "0"],
            ),
            (
                json!({"spec": {"containers": [{}]}, "status": {"phase": "podPhase",
                    "containerStatuses": [{"state": {"terminated": {"exitCode": 2}}}]}}),
                ["0/1", "ExitCode:2", "0"],
            ),
            (
                json!({"spec": {"containers": [{}]}, "status": {"phase": "Pending",
                    "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]}}),
                ["0/1", "SchedulingGated", "0"],
            ),
            (
                json!({"spec": {"initContainers": [{"name": "i"}, {"name": "j"}], "containers": [{}]},
                    "status": {"phase": "Pending", "initContainerStatuses": [
                        {"name": "i", "state": {"terminated": {"exitCode": 0}}},
                        {"name": "j", "state": {"running": {}}}]}}),
                ["0/1", "Init:1/2", "0"],
            ),
            (
                json!({"spec": {"initContainers": [{"name": "s", "restartPolicy": "Always"}],
                    "containers": [{}]},
                    "status": {"phase": "Running", "conditions": [{"type": "Initialized", "status": "True"}],
                    "initContainerStatuses": [{"name": "s", "started": true, "ready": true,
                        "restartCount": 2, "state": {"running": {}}}],
                    "containerStatuses": [{"ready": true, "state": {"running": {}}}]}}),
                ["2/2", "Running", "2"],
            ),
            (
                json!({"metadata": {"deletionTimestamp": "2020-01-01T00:00:00Z"},
                    "spec": {"containers": [{}]}, "status": {"phase": "Running"}}),
                ["0/1", "Terminating", "0"],
            ),
            (
                json!({"metadata": {"deletionTimestamp": "2020-01-01T00:00:00Z"},
                    "spec": {"containers": [{}]}, "status": {"phase": "Succeeded"}}),
                ["0/1", "Succeeded", "0"],
            ),
        ];
        for (value, want) in cases {
            let row = cells(&pod(value.clone()));
            assert_eq!(row[1..4], want.map(Value::from), "{value}");
            assert_eq!(row[5], "<none>");
            assert_eq!(row[8], "<none>");
        }
    }

    #[test]
    fn wide_columns_and_conditions() {
        let p = pod(json!({"spec": {"nodeName": "n1", "containers": [{}],
            "readinessGates": [{"conditionType": "a"}, {"conditionType": "b"}]},
            "status": {"phase": "Succeeded", "podIPs": [{"ip": "10.0.0.1"}],
                "conditions": [{"type": "a", "status": "True"}, {"type": "b", "status": "False"}]}}));
        let row = cells(&p);
        assert_eq!(
            row[5..],
            ["10.0.0.1", "n1", "<none>", "1/2"].map(Value::from)
        );
        assert_eq!(conditions(&p).unwrap()[0]["reason"], "Succeeded");
        assert!(conditions(&pod(json!({"status": {"phase": "Pending"}}))).is_none());
    }
}
