//! autoscaling/v2 defaults: kubernetes `pkg/apis/autoscaling/v2/defaults.go`
//! (`SetDefaults_HorizontalPodAutoscaler`, `SetDefaults_HorizontalPodAutoscalerBehavior`).

use serde_json::{Map, Value, json};

use super::{child_object, default_field};

/// `SetDefaults_HorizontalPodAutoscaler`: one replica at least; without metrics, one CPU
/// resource metric at 80% average utilization (`autoscaling.DefaultCPUUtilization`); a
/// behavior given gets its scale-up and scale-down rules filled in
/// (`GenerateHPAScaleUpRules`, `GenerateHPAScaleDownRules`).
pub(super) fn horizontal_pod_autoscaler(object: &mut Map<String, Value>) {
    let spec = object
        .entry("spec")
        .or_insert_with(|| Value::Object(Map::new()));
    if !spec.is_object() {
        return;
    }
    default_field(spec, "minReplicas", json!(1));
    if spec["metrics"].as_array().is_none_or(Vec::is_empty) {
        spec["metrics"] = json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": 80}}}]);
    }
    if spec.get("behavior").is_some_and(Value::is_object) {
        let behavior = &mut spec["behavior"];
        for rules in ["scaleUp", "scaleDown"] {
            // A nil rules pointer is generated whole.
            if behavior.get(rules).is_none_or(Value::is_null) {
                behavior[rules] = json!({});
            }
        }
        if let Some(up) = child_object(behavior, "scaleUp") {
            // defaultHPAScaleUpRules: no stabilization, the larger of 4 pods or 100% per 15 s.
            scaling_rules(
                up,
                Some(0),
                json!([
                    {"type": "Pods", "value": 4, "periodSeconds": 15},
                    {"type": "Percent", "value": 100, "periodSeconds": 15},
                ]),
            );
        }
        if let Some(down) = child_object(behavior, "scaleDown") {
            // defaultHPAScaleDownRules: the stabilization window stays unset (the controller's
            // flag decides it); 100% per 15 s.
            scaling_rules(
                down,
                None,
                json!([{"type": "Percent", "value": 100, "periodSeconds": 15}]),
            );
        }
    }
}

/// `copyHPAScalingRules` onto the defaults: each field given (any value, `""` and `[]`
/// too: Go copies every non-nil pointer and slice) wins; `selectPolicy` is `Max`.
fn scaling_rules(rules: &mut Value, stabilization: Option<i64>, policies: Value) {
    let Some(rules) = rules.as_object_mut() else {
        return;
    };
    let mut default = |field: &str, value: Value| {
        if rules.get(field).is_none_or(Value::is_null) {
            rules.insert(field.to_owned(), value);
        }
    };
    default("selectPolicy", json!("Max"));
    if let Some(seconds) = stabilization {
        default("stabilizationWindowSeconds", json!(seconds));
    }
    default("policies", policies);
}
