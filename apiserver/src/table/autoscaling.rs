//! A HorizontalPodAutoscaler's `TARGETS` cell as kube-apiserver prints it (kubernetes
//! `pkg/printers/internalversion` `formatHPAMetrics`): each metric as
//! `<current>/<target>` (resource metrics prefixed with the resource's name, average values
//! of object and external metrics suffixed with ` (avg)`), at most two, then ` + <n>
//! more...`; `<none>` without metrics. The current values come from the status's metric
//! at the same index; `<unknown>` until a controller reports one.

use serde_json::Value;

/// At most this many metrics are shown.
const SHOWN: usize = 2;

/// The text of an autoscaling/v2 HPA's metrics (`spec.metrics`, `status.currentMetrics`).
pub(super) fn targets(spec_metrics: &Value, current_metrics: &Value) -> String {
    let Some(specs) = spec_metrics.as_array().filter(|m| !m.is_empty()) else {
        return "<none>".to_owned();
    };
    let statuses = current_metrics
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut list: Vec<String> = specs
        .iter()
        .enumerate()
        .map(|(i, spec)| metric(spec, statuses.get(i).unwrap_or(&Value::Null)))
        .collect();
    let count = list.len();
    if count > SHOWN {
        list.truncate(SHOWN);
        return format!("{} + {} more...", list.join(", "), count - SHOWN);
    }
    list.join(", ")
}

/// A quantity as printed: the stored text, `0` when absent (a zero quantity's `String()`).
fn quantity(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => "0".to_owned(),
    }
}

/// One metric's text.
fn metric(spec: &Value, status: &Value) -> String {
    let unknown = || "<unknown>".to_owned();
    match spec["type"].as_str().unwrap_or_default() {
        kind @ ("External" | "Object") => {
            let field = if kind == "External" {
                "external"
            } else {
                "object"
            };
            let target = &spec[field]["target"];
            let current = &status[field];
            if !target["averageValue"].is_null() {
                let now = if current.is_object() && !current["current"]["averageValue"].is_null() {
                    quantity(&current["current"]["averageValue"])
                } else {
                    unknown()
                };
                format!("{now}/{} (avg)", quantity(&target["averageValue"]))
            } else {
                let now = if current.is_object() {
                    quantity(&current["current"]["value"])
                } else {
                    unknown()
                };
                format!("{now}/{}", quantity(&target["value"]))
            }
        }
        "Pods" => {
            let now = if status["pods"].is_object() {
                quantity(&status["pods"]["current"]["averageValue"])
            } else {
                unknown()
            };
            format!(
                "{now}/{}",
                quantity(&spec["pods"]["target"]["averageValue"])
            )
        }
        kind @ ("Resource" | "ContainerResource") => {
            let field = if kind == "Resource" {
                "resource"
            } else {
                "containerResource"
            };
            let source = &spec[field];
            let name = source["name"].as_str().unwrap_or_default();
            let target = &source["target"];
            let current = &status[field];
            if !target["averageValue"].is_null() {
                let now = if current.is_object() {
                    quantity(&current["current"]["averageValue"])
                } else {
                    unknown()
                };
                format!("{name}: {now}/{}", quantity(&target["averageValue"]))
            } else {
                let now = match current["current"]["averageUtilization"].as_i64() {
                    Some(u) if current.is_object() => format!("{u}%"),
                    _ => unknown(),
                };
                let goal = match target["averageUtilization"].as_i64() {
                    Some(u) => format!("{u}%"),
                    None => "<auto>".to_owned(),
                };
                format!("{name}: {now}/{goal}")
            }
        }
        _ => "<unknown type>".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn metrics_as_format_hpa_metrics_prints_them() {
        assert_eq!(targets(&Value::Null, &Value::Null), "<none>");
        let cpu = json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": 80}}}]);
        assert_eq!(targets(&cpu, &Value::Null), "cpu: <unknown>/80%");
        let now = json!([{"type": "Resource", "resource": {"name": "cpu",
            "current": {"averageUtilization": 35}}}]);
        assert_eq!(targets(&cpu, &now), "cpu: 35%/80%");
        let three = json!([
            {"type": "Pods", "pods": {"target": {"averageValue": "1k"}}},
            {"type": "Object", "object": {"target": {"averageValue": "2"}}},
            {"type": "External", "external": {"target": {"value": "3"}}},
        ]);
        assert_eq!(
            targets(&three, &json!([])),
            "<unknown>/1k, <unknown>/2 (avg) + 1 more..."
        );
        assert_eq!(
            targets(&json!([{"type": "Other"}]), &Value::Null),
            "<unknown type>"
        );
    }
}
