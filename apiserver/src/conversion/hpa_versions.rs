//! HorizontalPodAutoscalers between `autoscaling/v1` and `autoscaling/v2` (their storage
//! version), as kubernetes `pkg/apis/autoscaling/v1/conversion.go` converts them through
//! the internal version: v1's `targetCPUUtilizationPercentage` is a `Resource` metric of
//! `cpu` with an `Utilization` target (80 when a v1 object names no metric at all, v1's
//! implicit default), `currentCPUUtilizationPercentage` its current value; what v1 cannot
//! hold travels in annotations — the other metrics (`autoscaling.alpha.kubernetes.io/metrics`,
//! in v1's `MetricSpec` shape), the current metrics (`.../current-metrics`), the conditions
//! (`.../conditions`) and the behavior (`.../behavior`, the internal type's Go field names)
//! — and is read back out of them (and the annotations dropped) when a v1 object is
//! written. The annotations' JSON is written in the Go types' field order, as
//! `encoding/json` writes them.

use serde_json::{Map, Value, json};

use super::{ConversionError, mapped};
use crate::object::Object;

const METRICS: &str = "autoscaling.alpha.kubernetes.io/metrics";
const CURRENT_METRICS: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
const CONDITIONS: &str = "autoscaling.alpha.kubernetes.io/conditions";
const BEHAVIOR: &str = "autoscaling.alpha.kubernetes.io/behavior";

/// The annotations the conversion writes and reads (`DropRoundTripHorizontalPodAutoscalerAnnotations`).
const ROUND_TRIP: [&str; 4] = [METRICS, CURRENT_METRICS, CONDITIONS, BEHAVIOR];

/// The CPU utilization v1 implies when no metric is given (`DefaultCPUUtilization`).
const DEFAULT_CPU_UTILIZATION: i64 = 80;

/// A JSON value written with its object fields in a given order (Go's struct order).
enum Ordered {
    Plain(Value),
    Fields(Vec<(&'static str, Ordered)>),
    List(Vec<Ordered>),
}

impl Ordered {
    fn write(&self, out: &mut String) {
        match self {
            Ordered::Plain(v) => out.push_str(&v.to_string()),
            Ordered::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Ordered::Fields(fields) => {
                out.push('{');
                for (i, (name, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::from(*name).to_string());
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }

    fn text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }
}

fn get<'a>(v: &'a Value, field: &str) -> &'a Value {
    v.get(field).unwrap_or(&Value::Null)
}

fn text(v: &Value, field: &str) -> Value {
    Value::from(get(v, field).as_str().unwrap_or_default())
}

/// A `resource.Quantity` field without `omitempty`: `"0"` when unset.
fn quantity(v: &Value) -> Value {
    match v {
        Value::Null => Value::from("0"),
        v => v.clone(),
    }
}

/// Appends `(name, value)` unless the value is unset (`omitempty` of a pointer).
fn optional(fields: &mut Vec<(&'static str, Ordered)>, name: &'static str, value: &Value) {
    if !value.is_null() {
        fields.push((name, Ordered::Plain(value.clone())));
    }
}

/// A `metav1.LabelSelector` in Go's order (`matchLabels`, then `matchExpressions` with
/// `key`, `operator`, `values`).
fn selector(v: &Value) -> Ordered {
    let mut fields = Vec::new();
    optional(&mut fields, "matchLabels", get(v, "matchLabels"));
    if let Some(list) = get(v, "matchExpressions").as_array() {
        let items = list
            .iter()
            .map(|e| {
                let mut f = vec![
                    ("key", Ordered::Plain(text(e, "key"))),
                    ("operator", Ordered::Plain(text(e, "operator"))),
                ];
                optional(&mut f, "values", get(e, "values"));
                Ordered::Fields(f)
            })
            .collect();
        fields.push(("matchExpressions", Ordered::List(items)));
    }
    Ordered::Fields(fields)
}

fn optional_selector(fields: &mut Vec<(&'static str, Ordered)>, name: &'static str, v: &Value) {
    if !v.is_null() {
        fields.push((name, selector(v)));
    }
}

/// A `CrossVersionObjectReference` (`kind`, `name`, `apiVersion` if set).
fn reference(v: &Value) -> Ordered {
    let mut fields = vec![
        ("kind", Ordered::Plain(text(v, "kind"))),
        ("name", Ordered::Plain(text(v, "name"))),
    ];
    if get(v, "apiVersion").as_str().is_some_and(|s| !s.is_empty()) {
        fields.push(("apiVersion", Ordered::Plain(text(v, "apiVersion"))));
    }
    Ordered::Fields(fields)
}

/// One side of a metric in v1's shape: the spec's targets (`MetricSpec`) or the status's
/// current values (`MetricStatus`). The two Go types have the same field order; they differ
/// in the names' prefix and in two fields a plain `Quantity` in the status but a pointer in
/// the spec (the Resource's average value, the External's value).
struct Side {
    /// v2's field holding the values (`target` or `current`).
    values: &'static str,
    /// v1's names of the value, the average value and the average utilization.
    value: &'static str,
    average_value: &'static str,
    average_utilization: &'static str,
    /// Whether the two fields above are plain quantities (`"0"` when unset): the status's,
    /// whose v2 values (`MetricValueStatus`) carry no `type`.
    plain: bool,
}

const SPEC: Side = Side {
    values: "target",
    value: "targetValue",
    average_value: "targetAverageValue",
    average_utilization: "targetAverageUtilization",
    plain: false,
};

const STATUS: Side = Side {
    values: "current",
    value: "currentValue",
    average_value: "currentAverageValue",
    average_utilization: "currentAverageUtilization",
    plain: true,
};

impl Side {
    /// Appends a field that is a pointer in the spec and a plain quantity in the status.
    fn push_quantity(&self, f: &mut Vec<(&'static str, Ordered)>, name: &'static str, v: &Value) {
        if self.plain {
            f.push((name, Ordered::Plain(quantity(v))));
        } else {
            optional(f, name, v);
        }
    }
}

/// The field of a metric of type `kind` that holds its source (both versions name it alike).
fn source_field(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "Object" => "object",
        "Pods" => "pods",
        "Resource" => "resource",
        "ContainerResource" => "containerResource",
        "External" => "external",
        _ => return None,
    })
}

/// One v2 metric as v1's (`Convert_autoscaling_MetricSpec_To_v1_MetricSpec` and the
/// status's counterpart): its source with the values of `side`.
fn metric_to_v1(m: &Value, side: &Side) -> Ordered {
    let kind = get(m, "type").as_str().unwrap_or_default();
    let mut out = vec![("type", Ordered::Plain(Value::from(kind)))];
    let Some(field) = source_field(kind) else {
        return Ordered::Fields(out);
    };
    let s = get(m, field);
    let (values, id) = (get(s, side.values), get(s, "metric"));
    let metric_name = || ("metricName", Ordered::Plain(text(id, "name")));
    let mut f = Vec::new();
    match kind {
        "Object" => {
            f.push(("target", reference(get(s, "describedObject"))));
            f.push(metric_name());
            f.push((side.value, Ordered::Plain(quantity(get(values, "value")))));
            optional_selector(&mut f, "selector", get(id, "selector"));
            optional(&mut f, "averageValue", get(values, "averageValue"));
        }
        "Pods" => {
            f.push(metric_name());
            let average = quantity(get(values, "averageValue"));
            f.push((side.average_value, Ordered::Plain(average)));
            optional_selector(&mut f, "selector", get(id, "selector"));
        }
        "Resource" | "ContainerResource" => {
            f.push(("name", Ordered::Plain(text(s, "name"))));
            let utilization = get(values, "averageUtilization");
            optional(&mut f, side.average_utilization, utilization);
            side.push_quantity(&mut f, side.average_value, get(values, "averageValue"));
            if kind == "ContainerResource" {
                f.push(("container", Ordered::Plain(text(s, "container"))));
            }
        }
        _ => {
            f.push(metric_name());
            optional_selector(&mut f, "metricSelector", get(id, "selector"));
            side.push_quantity(&mut f, side.value, get(values, "value"));
            optional(&mut f, side.average_value, get(values, "averageValue"));
        }
    }
    out.push((field, Ordered::Fields(f)));
    Ordered::Fields(out)
}

/// A v2 condition as v1's (`lastTransitionTime` null when unset: a `metav1.Time` is never
/// left out).
fn condition_to_v1(c: &Value) -> Ordered {
    let mut f = vec![
        ("type", Ordered::Plain(text(c, "type"))),
        ("status", Ordered::Plain(text(c, "status"))),
        (
            "lastTransitionTime",
            Ordered::Plain(get(c, "lastTransitionTime").clone()),
        ),
    ];
    for field in ["reason", "message"] {
        if get(c, field).as_str().is_some_and(|s| !s.is_empty()) {
            f.push((field, Ordered::Plain(text(c, field))));
        }
    }
    Ordered::Fields(f)
}

/// The internal behavior as `encoding/json` writes it (no JSON tags: Go's field names; nil
/// pointers and slices as null).
fn behavior_to_internal(b: &Value) -> Ordered {
    let rules = |r: &Value| {
        if r.is_null() {
            return Ordered::Plain(Value::Null);
        }
        let policies = match get(r, "policies").as_array() {
            Some(list) => Ordered::List(
                list.iter()
                    .map(|p| {
                        Ordered::Fields(vec![
                            ("Type", Ordered::Plain(text(p, "type"))),
                            ("Value", Ordered::Plain(get(p, "value").clone())),
                            (
                                "PeriodSeconds",
                                Ordered::Plain(get(p, "periodSeconds").clone()),
                            ),
                        ])
                    })
                    .collect(),
            ),
            None => Ordered::Plain(Value::Null),
        };
        let mut f = vec![
            (
                "StabilizationWindowSeconds",
                Ordered::Plain(get(r, "stabilizationWindowSeconds").clone()),
            ),
            (
                "SelectPolicy",
                Ordered::Plain(get(r, "selectPolicy").clone()),
            ),
            ("Policies", policies),
        ];
        optional(&mut f, "Tolerance", get(r, "tolerance"));
        Ordered::Fields(f)
    };
    Ordered::Fields(vec![
        ("ScaleUp", rules(get(b, "scaleUp"))),
        ("ScaleDown", rules(get(b, "scaleDown"))),
    ])
}

/// Whether a v2 metric is v1's `targetCPUUtilizationPercentage`.
fn is_cpu_utilization(m: &Value) -> bool {
    get(m, "type") == "Resource"
        && get(get(m, "resource"), "name") == "cpu"
        && !get(get(get(m, "resource"), "target"), "averageUtilization").is_null()
}

fn annotations_mut(object: &mut Object) -> &mut Map<String, Value> {
    let meta = crate::object::metadata_mut(object);
    let annotations = meta
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    if !annotations.is_object() {
        *annotations = Value::Object(Map::new());
    }
    annotations.as_object_mut().expect("made an object above")
}

/// Removes the round-trip annotations (and `annotations` itself when nothing is left);
/// returns those removed.
fn take_round_trip(object: &mut Object) -> Map<String, Value> {
    let mut taken = Map::new();
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return taken;
    };
    let Some(annotations) = meta.get_mut("annotations").and_then(Value::as_object_mut) else {
        return taken;
    };
    for key in ROUND_TRIP {
        if let Some(v) = annotations.remove(key) {
            taken.insert(key.to_owned(), v);
        }
    }
    if annotations.is_empty() {
        meta.remove("annotations");
    }
    taken
}

/// An `autoscaling/v2` HorizontalPodAutoscaler as `autoscaling/v1` serves it.
pub fn v2_to_v1(mut object: Object) -> Object {
    take_round_trip(&mut object);
    let spec = object.remove("spec").unwrap_or(Value::Null);
    let status = object.remove("status");
    let metrics = get(&spec, "metrics")
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut v1_spec = Map::new();
    for field in ["scaleTargetRef", "minReplicas", "maxReplicas"] {
        if let Some(v) = spec.get(field) {
            v1_spec.insert(field.to_owned(), v.clone());
        }
    }
    // The first `cpu` Resource metric decides, utilization or not (upstream breaks there).
    if let Some(cpu) = metrics
        .iter()
        .find(|m| get(m, "type") == "Resource" && get(get(m, "resource"), "name") == "cpu")
    {
        let utilization = get(get(get(cpu, "resource"), "target"), "averageUtilization");
        if !utilization.is_null() {
            v1_spec.insert(
                "targetCPUUtilizationPercentage".to_owned(),
                utilization.clone(),
            );
        }
    }
    object.insert("spec".to_owned(), Value::Object(v1_spec));
    let other: Vec<Ordered> = metrics
        .iter()
        .filter(|m| !is_cpu_utilization(m))
        .map(|m| metric_to_v1(m, &SPEC))
        .collect();
    let mut annotations: Vec<(&str, String)> = Vec::new();
    if !other.is_empty() {
        annotations.push((METRICS, Ordered::List(other).text()));
    }
    if let Some(status) = status {
        let current = get(&status, "currentMetrics")
            .as_array()
            .cloned()
            .unwrap_or_default();
        let conditions = get(&status, "conditions")
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut v1_status = Map::new();
        for field in ["observedGeneration", "lastScaleTime"] {
            if let Some(v) = status.get(field).filter(|v| !v.is_null()) {
                v1_status.insert(field.to_owned(), v.clone());
            }
        }
        for field in ["currentReplicas", "desiredReplicas"] {
            let v = status.get(field).cloned().unwrap_or(json!(0));
            v1_status.insert(field.to_owned(), v);
        }
        for m in &current {
            let resource = get(m, "resource");
            let utilization = get(get(resource, "current"), "averageUtilization");
            if get(m, "type") == "Resource"
                && get(resource, "name") == "cpu"
                && !utilization.is_null()
            {
                v1_status.insert(
                    "currentCPUUtilizationPercentage".to_owned(),
                    utilization.clone(),
                );
            }
        }
        object.insert("status".to_owned(), Value::Object(v1_status));
        if !current.is_empty() {
            let list = Ordered::List(current.iter().map(|m| metric_to_v1(m, &STATUS)).collect());
            annotations.push((CURRENT_METRICS, list.text()));
        }
        if !conditions.is_empty() {
            let list = Ordered::List(conditions.iter().map(condition_to_v1).collect());
            annotations.push((CONDITIONS, list.text()));
        }
    }
    if let Some(behavior) = spec.get("behavior").filter(|b| !b.is_null()) {
        annotations.push((BEHAVIOR, behavior_to_internal(behavior).text()));
    }
    if !annotations.is_empty() {
        let map = annotations_mut(&mut object);
        for (key, value) in annotations {
            map.insert(key.to_owned(), Value::from(value));
        }
    }
    object
}

/// The JSON list an annotation carries.
fn annotation_list(
    taken: &Map<String, Value>,
    key: &'static str,
) -> Result<Option<Vec<Value>>, ConversionError> {
    let Some(text) = taken.get(key) else {
        return Ok(None);
    };
    let text = text.as_str().unwrap_or_default();
    serde_json::from_str::<Option<Vec<Value>>>(text)
        .map(Option::unwrap_or_default)
        .map(Some)
        .map_err(|e| ConversionError::Annotation {
            key,
            cause: e.to_string(),
        })
}

/// A metric identifier (`name`, `selector` if set).
fn identifier(name: &Value, selector: &Value) -> Value {
    let mut id = Map::new();
    id.insert("name".to_owned(), Value::from(name.as_str().unwrap_or("")));
    if !selector.is_null() {
        id.insert("selector".to_owned(), selector.clone());
    }
    Value::Object(id)
}

/// One v1 metric of an annotation (a `MetricSpec` or a `MetricStatus`, as `side` says) as
/// v2's, its values in `side.values`: the spec's `MetricTarget` with the `type` upstream
/// infers from which fields are set, the status's `MetricValueStatus` without one.
fn metric_from_v1(m: &Value, side: &Side) -> Value {
    let kind = get(m, "type").as_str().unwrap_or_default();
    let Some(field) = source_field(kind) else {
        return json!({"type": kind});
    };
    let s = get(m, field);
    // A field that is a pointer in the spec and a plain quantity in the status.
    let pointer_or_plain = |v: &Value| if side.plain { quantity(v) } else { v.clone() };
    let mut source = Map::new();
    let mut put = |name: &str, v: Value| source.insert(name.to_owned(), v);
    let (inferred, value, average, utilization) = match kind {
        "Object" => {
            put("describedObject", get(s, "target").clone());
            put(
                "metric",
                identifier(get(s, "metricName"), get(s, "selector")),
            );
            let average = get(s, "averageValue").clone();
            let t = if average.is_null() {
                "Value"
            } else {
                "AverageValue"
            };
            (t, quantity(get(s, side.value)), average, Value::Null)
        }
        "Pods" => {
            put(
                "metric",
                identifier(get(s, "metricName"), get(s, "selector")),
            );
            let average = quantity(get(s, side.average_value));
            ("AverageValue", Value::Null, average, Value::Null)
        }
        "Resource" | "ContainerResource" => {
            put("name", text(s, "name"));
            if kind == "ContainerResource" {
                put("container", text(s, "container"));
            }
            let utilization = get(s, side.average_utilization).clone();
            let t = if utilization.is_null() {
                "AverageValue"
            } else {
                "Utilization"
            };
            let average = pointer_or_plain(get(s, side.average_value));
            (t, Value::Null, average, utilization)
        }
        _ => {
            put(
                "metric",
                identifier(get(s, "metricName"), get(s, "metricSelector")),
            );
            let value = pointer_or_plain(get(s, side.value));
            let t = if value.is_null() {
                "AverageValue"
            } else {
                "Value"
            };
            (t, value, get(s, side.average_value).clone(), Value::Null)
        }
    };
    let mut values = Map::new();
    if !side.plain {
        values.insert("type".to_owned(), Value::from(inferred));
    }
    for (name, v) in [
        ("value", value),
        ("averageValue", average),
        ("averageUtilization", utilization),
    ] {
        if !v.is_null() {
            values.insert(name.to_owned(), v);
        }
    }
    put(side.values, Value::Object(values));
    json!({"type": kind, field: source})
}

/// The behavior annotation (the internal type's Go field names, matched without regard to
/// case as `encoding/json` does) as v2's `spec.behavior`.
fn behavior_from_internal(b: &Value) -> Value {
    fn lower_keys(v: &Value) -> Value {
        match v {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| {
                        let mut chars = k.chars();
                        let key = match chars.next() {
                            Some(c) => c.to_ascii_lowercase().to_string() + chars.as_str(),
                            None => String::new(),
                        };
                        (key, lower_keys(v))
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(lower_keys).collect()),
            v => v.clone(),
        }
    }
    lower_keys(b)
}

/// An `autoscaling/v1` HorizontalPodAutoscaler as `autoscaling/v2` stores it.
pub fn v1_to_v2(mut object: Object) -> Result<Object, ConversionError> {
    let taken = take_round_trip(&mut object);
    let spec = object.remove("spec").unwrap_or(Value::Null);
    let mut v2_spec = match spec {
        Value::Object(mut s) => {
            let cpu = s.remove("targetCPUUtilizationPercentage");
            let mut out = mapped(
                &mut s,
                &[
                    ("scaleTargetRef", "scaleTargetRef"),
                    ("minReplicas", "minReplicas"),
                    ("maxReplicas", "maxReplicas"),
                ],
            );
            let mut metrics: Vec<Value> = annotation_list(&taken, METRICS)?
                .unwrap_or_default()
                .iter()
                .map(|m| metric_from_v1(m, &SPEC))
                .collect();
            if let Some(cpu) = cpu.filter(|c| !c.is_null()) {
                metrics.push(json!({"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": cpu}}}));
            }
            out.insert("metrics".to_owned(), Value::Array(metrics));
            out
        }
        _ => Map::new(),
    };
    if v2_spec
        .get("metrics")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        v2_spec.insert(
            "metrics".to_owned(),
            json!([{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}}}]),
        );
    }
    if let Some(text) = taken.get(BEHAVIOR) {
        let behavior: Value =
            serde_json::from_str(text.as_str().unwrap_or_default()).map_err(|e| {
                ConversionError::Annotation {
                    key: BEHAVIOR,
                    cause: e.to_string(),
                }
            })?;
        if !behavior.is_null() {
            v2_spec.insert("behavior".to_owned(), behavior_from_internal(&behavior));
        }
    }
    object.insert("spec".to_owned(), Value::Object(v2_spec));
    if let Some(Value::Object(mut status)) = object.remove("status") {
        let cpu = status.remove("currentCPUUtilizationPercentage");
        let mut v2_status = mapped(
            &mut status,
            &[
                ("observedGeneration", "observedGeneration"),
                ("lastScaleTime", "lastScaleTime"),
                ("currentReplicas", "currentReplicas"),
                ("desiredReplicas", "desiredReplicas"),
            ],
        );
        let current = match annotation_list(&taken, CURRENT_METRICS)? {
            Some(list) => list.iter().map(|m| metric_from_v1(m, &STATUS)).collect(),
            None => match cpu.filter(|c| !c.is_null()) {
                Some(cpu) => vec![json!({"type": "Resource", "resource": {"name": "cpu",
                    "current": {"averageUtilization": cpu}}})],
                None => Vec::new(),
            },
        };
        // Both written always by v2 (`currentMetrics` null when there are none).
        let current = match current.is_empty() {
            true => Value::Null,
            false => Value::Array(current),
        };
        v2_status.insert("currentMetrics".to_owned(), current);
        v2_status.entry("desiredReplicas").or_insert(json!(0));
        if let Some(conditions) = annotation_list(&taken, CONDITIONS)? {
            let conditions: Vec<Value> = conditions
                .into_iter()
                .map(|mut c| {
                    if let Some(map) = c.as_object_mut() {
                        map.retain(|_, v| !v.is_null());
                    }
                    c
                })
                .collect();
            v2_status.insert("conditions".to_owned(), Value::Array(conditions));
        }
        object.insert("status".to_owned(), Value::Object(v2_status));
    }
    Ok(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(v: Value) -> Object {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn cpu_target_and_the_implicit_default() {
        let v1 = object(json!({"metadata": {"name": "web"}, "spec": {
            "scaleTargetRef": {"kind": "Deployment", "name": "web"},
            "minReplicas": 1, "maxReplicas": 5, "targetCPUUtilizationPercentage": 60}}));
        let v2 = v1_to_v2(v1.clone()).unwrap();
        assert_eq!(
            v2["spec"]["metrics"],
            json!([{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 60}}}])
        );
        assert_eq!(Value::Object(v2_to_v1(v2)), Value::Object(v1));
        let bare = object(json!({"metadata": {"name": "web"}, "spec": {"maxReplicas": 2}}));
        let v2 = v1_to_v2(bare).unwrap();
        assert_eq!(
            v2["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
            80
        );
        assert_eq!(v2_to_v1(v2)["spec"]["targetCPUUtilizationPercentage"], 80);
    }

    #[test]
    fn other_metrics_status_and_behavior_round_trip_through_annotations() {
        let v2 = object(json!({
            "metadata": {"name": "web", "annotations": {"keep": "me"}},
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 1, "maxReplicas": 5,
                "metrics": [
                    {"type": "Pods", "pods": {"metric": {"name": "qps"},
                        "target": {"type": "AverageValue", "averageValue": "10"}}},
                    {"type": "Resource", "resource": {"name": "memory",
                        "target": {"type": "AverageValue", "averageValue": "1Gi"}}},
                    {"type": "Resource", "resource": {"name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 50}}},
                ],
                "behavior": {"scaleDown": {"stabilizationWindowSeconds": 300,
                    "selectPolicy": "Min",
                    "policies": [{"type": "Pods", "value": 4, "periodSeconds": 60}]}},
            },
            "status": {"currentReplicas": 2, "desiredReplicas": 3,
                "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu",
                    "current": {"averageUtilization": 40, "averageValue": "200m"}}}],
                "conditions": [{"type": "AbleToScale", "status": "True",
                    "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "Ready"}]},
        }));
        let v1 = v2_to_v1(v2.clone());
        let annotations = &v1["metadata"]["annotations"];
        assert_eq!(
            annotations[METRICS],
            r#"[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}},{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}}]"#
        );
        assert_eq!(
            annotations[CURRENT_METRICS],
            r#"[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":40,"currentAverageValue":"200m"}}]"#
        );
        assert_eq!(
            annotations[CONDITIONS],
            r#"[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"Ready"}]"#
        );
        assert_eq!(
            annotations[BEHAVIOR],
            r#"{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":"Min","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":60}]}}"#
        );
        assert_eq!(annotations["keep"], "me");
        assert_eq!(v1["spec"]["targetCPUUtilizationPercentage"], 50);
        assert_eq!(v1["status"]["currentCPUUtilizationPercentage"], 40);
        // Back to v2: the same object, the annotations gone (cpu last among the metrics,
        // as upstream appends it after the annotation's).
        let back = v1_to_v2(v1).unwrap();
        let mut expected = v2.clone();
        let metrics = expected["spec"]["metrics"].as_array().unwrap().clone();
        assert_eq!(back["spec"]["metrics"], json!(metrics));
        expected["metadata"] = json!({"name": "web", "annotations": {"keep": "me"}});
        assert_eq!(back["metadata"], expected["metadata"]);
        assert_eq!(back["spec"]["behavior"], v2["spec"]["behavior"]);
        assert_eq!(back["status"], v2["status"]);
    }

    #[test]
    fn object_external_and_container_metrics_in_spec_and_status() {
        let selector = json!({"matchLabels": {"app": "web"}});
        let v2 = object(json!({
            "metadata": {"name": "web"},
            "spec": {
                "scaleTargetRef": {"kind": "Deployment", "name": "web"},
                "minReplicas": 1, "maxReplicas": 5,
                "metrics": [
                    {"type": "Object", "object": {
                        "describedObject": {"kind": "Service", "name": "front", "apiVersion": "v1"},
                        "metric": {"name": "rps", "selector": selector},
                        "target": {"type": "Value", "value": "5"}}},
                    {"type": "External", "external": {"metric": {"name": "queue"},
                        "target": {"type": "AverageValue", "averageValue": "3"}}},
                    {"type": "ContainerResource", "containerResource": {"name": "cpu",
                        "container": "app",
                        "target": {"type": "Utilization", "averageUtilization": 60}}},
                ],
            },
            "status": {"currentReplicas": 1, "desiredReplicas": 1, "currentMetrics": [
                {"type": "Object", "object": {
                    "describedObject": {"kind": "Service", "name": "front"},
                    "metric": {"name": "rps"}, "current": {"value": "7"}}},
                {"type": "External", "external": {"metric": {"name": "queue",
                    "selector": selector}, "current": {"value": "4", "averageValue": "2"}}},
                {"type": "ContainerResource", "containerResource": {"name": "memory",
                    "container": "app", "current": {"averageValue": "1Gi"}}},
            ]},
        }));
        let v1 = v2_to_v1(v2.clone());
        let annotations = &v1["metadata"]["annotations"];
        // The spec's optional values left out, the status's plain quantities written.
        assert_eq!(
            annotations[METRICS],
            r#"[{"type":"Object","object":{"target":{"kind":"Service","name":"front","apiVersion":"v1"},"metricName":"rps","targetValue":"5","selector":{"matchLabels":{"app":"web"}}}},{"type":"External","external":{"metricName":"queue","targetAverageValue":"3"}},{"type":"ContainerResource","containerResource":{"name":"cpu","targetAverageUtilization":60,"container":"app"}}]"#
        );
        assert_eq!(
            annotations[CURRENT_METRICS],
            r#"[{"type":"Object","object":{"target":{"kind":"Service","name":"front"},"metricName":"rps","currentValue":"7"}},{"type":"External","external":{"metricName":"queue","metricSelector":{"matchLabels":{"app":"web"}},"currentValue":"4","currentAverageValue":"2"}},{"type":"ContainerResource","containerResource":{"name":"memory","currentAverageValue":"1Gi","container":"app"}}]"#
        );
        let back = v1_to_v2(v1).unwrap();
        assert_eq!(back["spec"]["metrics"], v2["spec"]["metrics"]);
        assert_eq!(
            back["status"]["currentMetrics"],
            v2["status"]["currentMetrics"]
        );
    }

    #[test]
    fn a_bad_annotation_is_an_error() {
        let v1 = object(json!({"metadata": {"name": "web",
            "annotations": {METRICS: "not json"}}, "spec": {"maxReplicas": 1}}));
        let e = v1_to_v2(v1).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("annotation {METRICS}: ")),
            "{e}"
        );
    }
}
