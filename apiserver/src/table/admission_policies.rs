//! Table rows of the admission policies and their bindings as kube-apiserver prints them
//! (kubernetes `pkg/printers/internalversion`: `printValidatingAdmissionPolicy`,
//! `printMutatingAdmissionPolicy` and their bindings' printers): a policy's rule count and
//! `paramKind` as `<apiVersion>/<kind>`; a binding's policy and `paramRef` — `<namespace>/<name>`,
//! `*/<name>` without a namespace, or the selector as Go prints a `*metav1.LabelSelector`
//! (its generated `String()`), `<unset>` otherwise.

use serde_json::Value;

use super::{age, get, name, text};
use crate::object::Object;

/// The cells of a policy whose rules are the list at `spec.<rules>`.
pub(super) fn policy(o: &Object, rules: &str) -> Vec<Value> {
    let count = get(o, &["spec", rules]).as_array().map_or(0, Vec::len);
    let param_kind = match get(o, &["spec", "paramKind"]) {
        Value::Object(kind) => format!(
            "{}/{}",
            kind.get("apiVersion").and_then(Value::as_str).unwrap_or(""),
            kind.get("kind").and_then(Value::as_str).unwrap_or("")
        ),
        _ => "<unset>".to_owned(),
    };
    vec![name(o), Value::from(count), Value::from(param_kind), age(o)]
}

/// The cells of a binding.
pub(super) fn binding(o: &Object) -> Vec<Value> {
    let param_ref = get(o, &["spec", "paramRef"]);
    let param_name = param_ref["name"].as_str().unwrap_or("");
    let param = if !param_name.is_empty() {
        match param_ref["namespace"].as_str().unwrap_or("") {
            "" => format!("*/{param_name}"),
            namespace => format!("{namespace}/{param_name}"),
        }
    } else if let Value::Object(_) = &param_ref["selector"] {
        go_label_selector(&param_ref["selector"])
    } else {
        "<unset>".to_owned()
    };
    vec![
        name(o),
        Value::from(text(o, &["spec", "policyName"])),
        Value::from(param),
        age(o),
    ]
}

/// A label selector as the generated `String()` of `*metav1.LabelSelector` writes it:
/// `&LabelSelector{MatchLabels:map[string]string{k: v,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[a b],},},}`,
/// labels sorted by key.
fn go_label_selector(selector: &Value) -> String {
    let mut labels: Vec<(&String, &str)> = selector["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k, v.as_str().unwrap_or("")))
        .collect();
    labels.sort();
    let labels: String = labels.iter().map(|(k, v)| format!("{k}: {v},")).collect();
    let expressions: String = selector["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let values: Vec<&str> = r["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            format!(
                "LabelSelectorRequirement{{Key:{},Operator:{},Values:[{}],}},",
                r["key"].as_str().unwrap_or(""),
                r["operator"].as_str().unwrap_or(""),
                values.join(" ")
            )
        })
        .collect();
    format!(
        "&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{{expressions}}},}}"
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{binding, go_label_selector, policy};

    fn object(v: serde_json::Value) -> crate::object::Object {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn policies_print_their_rule_count_and_param_kind() {
        let p = object(json!({"metadata": {"name": "p"}, "spec": {
            "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
            "validations": [{"expression": "true"}, {"expression": "false"}]}}));
        let cells = policy(&p, "validations");
        assert_eq!(cells[..3], [json!("p"), json!(2), json!("v1/ConfigMap")]);
        let m = object(json!({"metadata": {"name": "m"}, "spec": {}}));
        assert_eq!(
            policy(&m, "mutations")[..3],
            [json!("m"), json!(0), json!("<unset>")]
        );
    }

    #[test]
    fn bindings_print_the_param_reference_as_upstream() {
        let cell = |param_ref: serde_json::Value| {
            binding(&object(json!({"metadata": {"name": "b"},
                "spec": {"policyName": "p", "paramRef": param_ref}})))[2]
                .clone()
        };
        assert_eq!(cell(json!({"name": "x", "namespace": "ns"})), "ns/x");
        assert_eq!(cell(json!({"name": "x"})), "*/x");
        assert_eq!(cell(json!({"parameterNotFoundAction": "Deny"})), "<unset>");
        assert_eq!(
            cell(json!({"selector": {}})),
            "&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}"
        );
        assert_eq!(
            go_label_selector(&json!({
                "matchLabels": {"tier": "b", "app": "a"},
                "matchExpressions": [
                    {"key": "env", "operator": "In", "values": ["x", "y"]},
                    {"key": "gone", "operator": "DoesNotExist"}]})),
            "&LabelSelector{MatchLabels:map[string]string{app: a,tier: b,},\
             MatchExpressions:[]LabelSelectorRequirement{\
             LabelSelectorRequirement{Key:env,Operator:In,Values:[x y],},\
             LabelSelectorRequirement{Key:gone,Operator:DoesNotExist,Values:[],},},}"
        );
        let none = binding(&object(
            json!({"metadata": {"name": "b"}, "spec": {"policyName": "p"}}),
        ));
        assert_eq!(none[..3], [json!("b"), json!("p"), json!("<unset>")]);
    }
}
