//! Events between the core group's `v1` (their storage) and `events.k8s.io/v1`, as kubernetes
//! `pkg/apis/events/v1/conversion.go` converts them through the internal (core) Event:
//! `regarding` is `involvedObject`, `note` is `message`, `deprecatedSource`,
//! `deprecatedFirstTimestamp`, `deprecatedLastTimestamp` and `deprecatedCount` are `source`,
//! `firstTimestamp`, `lastTimestamp` and `count`, and `reportingController` is the core
//! field `reportingComponent` (the internal `ReportingController`); the other fields
//! (`reason`, `type`, `eventTime`, `series`, `action`, `related`, `reportingInstance`) have
//! the same names in both.

use super::mapped;
use crate::object::Object;

/// The fields of both, `(core name, events.k8s.io name)`, in the events.k8s.io type's order.
const FIELDS: &[(&str, &str)] = &[
    ("metadata", "metadata"),
    ("eventTime", "eventTime"),
    ("series", "series"),
    ("reportingComponent", "reportingController"),
    ("reportingInstance", "reportingInstance"),
    ("action", "action"),
    ("reason", "reason"),
    ("involvedObject", "regarding"),
    ("related", "related"),
    ("message", "note"),
    ("type", "type"),
    ("source", "deprecatedSource"),
    ("firstTimestamp", "deprecatedFirstTimestamp"),
    ("lastTimestamp", "deprecatedLastTimestamp"),
    ("count", "deprecatedCount"),
];

/// A core `v1` Event as `events.k8s.io/v1` serves it.
pub fn from_core(mut object: Object) -> Object {
    mapped(&mut object, FIELDS)
}

/// An `events.k8s.io/v1` Event as the core group stores it.
pub fn to_core(mut object: Object) -> Object {
    let swapped: Vec<(&str, &str)> = FIELDS.iter().map(|(a, b)| (*b, *a)).collect();
    mapped(&mut object, &swapped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn fields_are_renamed_both_ways() {
        let core = json!({"metadata": {"name": "e1", "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": "web"}, "reason": "Started",
            "message": "started", "source": {"component": "kubelet"},
            "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:01Z",
            "count": 2, "type": "Normal", "reportingComponent": "kubelet",
            "reportingInstance": "node-1"});
        let events = from_core(core.as_object().unwrap().clone());
        let events = Value::Object(events);
        assert_eq!(events["regarding"]["name"], "web");
        assert_eq!(events["note"], "started");
        assert_eq!(events["deprecatedSource"]["component"], "kubelet");
        assert_eq!(events["deprecatedCount"], 2);
        assert_eq!(events["reportingController"], "kubelet");
        assert!(events.get("message").is_none() && events.get("involvedObject").is_none());
        let back = to_core(events.as_object().unwrap().clone());
        assert_eq!(Value::Object(back), core);
    }
}
