//! autoscaling/v1 defaults: kubernetes `pkg/apis/autoscaling/v1/defaults.go`
//! (`SetDefaults_HorizontalPodAutoscaler`). v1's implicit CPU target is no default but part
//! of its conversion to the storage version (the API server's).

use serde_json::{Map, Value, json};

use super::default_field;

/// `SetDefaults_HorizontalPodAutoscaler`: one replica at least.
pub(super) fn horizontal_pod_autoscaler(object: &mut Map<String, Value>) {
    let spec = object
        .entry("spec")
        .or_insert_with(|| Value::Object(Map::new()));
    if spec.is_object() {
        default_field(spec, "minReplicas", json!(1));
    }
}
