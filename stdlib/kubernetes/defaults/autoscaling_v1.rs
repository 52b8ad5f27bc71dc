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

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn min_replicas_only() {
        let mut hpa = json!({"spec": {"maxReplicas": 3, "targetCPUUtilizationPercentage": 50}});
        super::super::apply(
            "autoscaling/v1",
            "HorizontalPodAutoscaler",
            hpa.as_object_mut().unwrap(),
        );
        assert_eq!(
            hpa,
            json!({"spec": {"minReplicas": 1, "maxReplicas": 3,
                "targetCPUUtilizationPercentage": 50}})
        );
        let mut given = json!({"spec": {"minReplicas": 2}});
        super::super::apply(
            "autoscaling/v1",
            "HorizontalPodAutoscaler",
            given.as_object_mut().unwrap(),
        );
        assert_eq!(given["spec"]["minReplicas"], 2);
    }
}
