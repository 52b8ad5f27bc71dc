//! A Pod's quality-of-service class, as kube-apiserver computes it when a Pod is created
//! (kubernetes `pkg/apis/core/helper/qos` `ComputePodQOS`, which the pod strategy's
//! `PrepareForCreate` writes to `status.qosClass`): `BestEffort` without CPU or memory
//! requests or limits, `Guaranteed` when every container (or, with pod-level resources, the
//! pod) limits both and the summed requests equal the summed limits, else `Burstable`.
//! Requests are read after defaulting (a limit without a request is its request).
//!
//! ```
//! use kcel_stdlib::kubernetes::pod_qos::qos_class;
//! use serde_json::json;
//!
//! let spec = json!({"containers": [{"resources": {
//!     "limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}}}]});
//! assert_eq!(qos_class(&spec), "Guaranteed");
//! assert_eq!(qos_class(&json!({"containers": [{}]})), "BestEffort");
//! ```

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde_json::Value;

use super::quantity::{Quantity, parse_quantity};

/// The resources the QoS class is computed from (`isSupportedQoSComputeResource`).
const QOS_RESOURCES: [&str; 2] = ["cpu", "memory"];

/// Positive quantities of the QoS resources, summed per resource.
#[derive(Default)]
struct Sums(BTreeMap<&'static str, Quantity>);

impl Sums {
    /// Adds the positive quantities of `list`; returns the QoS resources it gives a positive
    /// quantity.
    fn add(&mut self, list: &Value) -> usize {
        let mut found = 0;
        for name in QOS_RESOURCES {
            let Some(q) = list[name].as_str().and_then(|s| parse_quantity(s).ok()) else {
                continue;
            };
            if q.sign() <= 0 {
                continue;
            }
            found += 1;
            let sum = match self.0.get(name) {
                Some(previous) => q.add(previous).unwrap_or(q),
                None => q,
            };
            self.0.insert(name, sum);
        }
        found
    }
}

/// The QoS class of a pod with this `spec`: `BestEffort`, `Burstable` or `Guaranteed`.
pub fn qos_class(spec: &Value) -> &'static str {
    let (mut requests, mut limits) = (Sums::default(), Sums::default());
    let mut guaranteed = true;
    let pod_level = &spec["resources"];
    if pod_level.is_object() {
        // PodLevelResources (on by default): the pod's own requests and limits decide.
        requests.add(&pod_level["requests"]);
        let has_limits = pod_level["limits"]
            .as_object()
            .is_some_and(|l| !l.is_empty());
        if has_limits && limits.add(&pod_level["limits"]) < QOS_RESOURCES.len() {
            guaranteed = false;
        }
    } else {
        // Ephemeral containers cannot have resources.
        for field in ["containers", "initContainers"] {
            for container in spec[field].as_array().into_iter().flatten() {
                let resources = &container["resources"];
                requests.add(&resources["requests"]);
                if limits.add(&resources["limits"]) < QOS_RESOURCES.len() {
                    guaranteed = false;
                }
            }
        }
    }
    if requests.0.is_empty() && limits.0.is_empty() {
        return "BestEffort";
    }
    let equal = requests.0.iter().all(|(name, request)| {
        limits
            .0
            .get(name)
            .is_some_and(|limit| limit.compare(request) == Ordering::Equal)
    });
    if guaranteed && equal && requests.0.len() == limits.0.len() {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn container(requests: Value, limits: Value) -> Value {
        json!({"resources": {"requests": requests, "limits": limits}})
    }

    // kubernetes pkg/apis/core/helper/qos/qos_test.go TestComputePodQOS (its cases over
    // cpu and memory).
    #[test]
    fn classes_of_upstreams_cases() {
        let cases = [
            (
                json!({"containers": [container(json!({}), json!({}))]}),
                "BestEffort",
            ),
            (
                json!({"containers": [container(json!({"cpu": "0"}), json!({"memory": "0"}))]}),
                "BestEffort",
            ),
            (
                json!({"containers": [
                    container(json!({"cpu": "100m", "memory": "100Mi"}), json!({"cpu": "100m", "memory": "100Mi"})),
                    container(json!({"cpu": "100m", "memory": "100Mi"}), json!({"cpu": "0.1", "memory": "100Mi"}))]}),
                "Guaranteed",
            ),
            (
                json!({"containers": [
                    container(json!({"cpu": "100m", "memory": "100Mi"}), json!({"cpu": "100m", "memory": "100Mi"})),
                    container(json!({}), json!({}))]}),
                "Burstable",
            ),
            (
                json!({"containers": [container(json!({"cpu": "100m"}), json!({"cpu": "100m"}))]}),
                "Burstable",
            ),
            (
                json!({"containers": [container(json!({"cpu": "50m", "memory": "100Mi"}), json!({"cpu": "100m", "memory": "100Mi"}))]}),
                "Burstable",
            ),
            (
                json!({"containers": [container(json!({"cpu": "1", "memory": "1Gi"}), json!({"cpu": "1", "memory": "1Gi"}))],
                    "initContainers": [container(json!({"cpu": "1"}), json!({}))]}),
                "Burstable",
            ),
            // Pod-level resources decide when given.
            (
                json!({"resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}},
                    "containers": [container(json!({}), json!({}))]}),
                "Guaranteed",
            ),
            (
                json!({"resources": {"requests": {"cpu": "1"}}, "containers": [
                    container(json!({"cpu": "1", "memory": "1Gi"}), json!({"cpu": "1", "memory": "1Gi"}))]}),
                "Burstable",
            ),
        ];
        for (spec, want) in cases {
            assert_eq!(qos_class(&spec), want, "{spec}");
        }
    }
}
