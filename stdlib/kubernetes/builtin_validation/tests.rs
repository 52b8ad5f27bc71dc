//! Unit tests of the built-in kinds' own validation (the fixtures in `tests/builtin/` cover the
//! texts end to end).

use serde_json::json;

use super::validate;

fn texts(group: &str, kind: &str, object: serde_json::Value) -> Vec<String> {
    validate(group, kind, &object, None, Vec::new())
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn a_valid_deployment_has_no_errors() {
    let d = json!({"spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}},
                     "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}});
    assert!(texts("apps", "Deployment", d).is_empty());
}

// apimachinery pkg/util/validation/validation_test.go TestIsValidPortName.
#[test]
fn port_names_as_is_valid_port_name() {
    use super::errors::port_name;
    for good in [
        "telnet",
        "re-mail-ck",
        "pop3",
        "a",
        "a-1",
        "1-a",
        "a-1-b-2-c",
        "1-a-2-b-3",
    ] {
        assert!(port_name(good).is_empty(), "{good}");
    }
    assert_eq!(port_name("longerthan15characters").len(), 1);
    assert_eq!(
        port_name("12345"),
        ["must contain at least one letter (a-z)"]
    );
    assert_eq!(port_name("a--b"), ["must not contain consecutive hyphens"]);
    assert_eq!(port_name("-ab"), ["must not begin or end with a hyphen"]);
    assert_eq!(
        port_name(""),
        [
            "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
            "must contain at least one letter (a-z)",
        ]
    );
}

// apimachinery validation_test.go TestIsConfigMapKey and TestIsRelaxedEnvVarName.
#[test]
fn config_keys_and_environment_variable_names() {
    use super::errors::{config_key, env_var_name};
    for good in [
        "a", "ab", "abc", "a1", "a-1", "a_1", "a.1", "A", "AB", ".a", "a..", "a.b", ".a.b",
    ] {
        assert!(config_key(good).is_empty(), "{good}");
    }
    assert_eq!(config_key(".."), ["must not be '..'"]);
    assert_eq!(config_key("..a"), ["must not start with '..'"]);
    assert_eq!(
        config_key(&"a".repeat(254)),
        ["must be no more than 253 characters"]
    );
    assert_eq!(config_key("a b").len(), 1);
    assert!(env_var_name("A B-c.d_1").is_empty());
    assert_eq!(env_var_name("é").len(), 1);
    assert_eq!(env_var_name("").len(), 1);
}

// apimachinery labels selector semantics (selector_test.go) through a LabelSelector.
#[test]
fn label_selectors_match_convert_and_print() {
    use super::label_selector::{LabelSelector, to_json_text};
    let raw = json!({"matchLabels": {"b": "2", "a": "1"},
        "matchExpressions": [{"key": "t", "operator": "NotIn", "values": ["x"]},
                             {"key": "e", "operator": "Exists"}]});
    let s = LabelSelector::read(&raw);
    let labels = |v: serde_json::Value| v.as_object().unwrap().clone();
    assert!(s.matches(&labels(json!({"a": "1", "b": "2", "e": ""}))));
    assert!(!s.matches(&labels(json!({"a": "1", "b": "2", "e": "", "t": "x"}))));
    assert!(!s.matches(&labels(json!({"a": "1", "b": "2"}))));
    assert!(s.converts() && !s.is_empty());
    assert_eq!(
        to_json_text(&raw),
        r#"{"matchLabels":{"a":"1","b":"2"},"matchExpressions":[{"key":"t","operator":"NotIn","values":["x"]},{"key":"e","operator":"Exists"}]}"#
    );
    let empty = json!({"matchLabels": {}, "matchExpressions": []});
    assert!(LabelSelector::read(&empty).is_empty());
    assert_eq!(to_json_text(&empty), "{}");
    let bad = json!({"matchExpressions": [{"key": "k", "operator": "Exists", "values": ["v"]}]});
    assert!(!LabelSelector::read(&bad).converts());
}

#[test]
fn an_update_keeps_the_selector() {
    let d = |app: &str| {
        json!({"spec": {
        "selector": {"matchLabels": {"app": app}},
        "template": {"metadata": {"labels": {"app": app}},
                     "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}})
    };
    let errors: Vec<String> = validate("apps", "Deployment", &d("b"), Some(&d("a")), Vec::new())
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        errors,
        ["spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"b\"}}: field is immutable"]
    );
    assert!(validate("apps", "Deployment", &d("a"), Some(&d("a")), Vec::new()).is_empty());
}

// kubernetes pkg/apis/core/validation ValidateConfigMap (TestValidateConfigMap's "too large"
// cases): data and decoded binaryData together at most core.MaxSecretSize (1 MiB), reported
// at field.NewPath(""), which prints as `[]`.
#[test]
fn config_map_total_size() {
    let limit = 1024 * 1024;
    let half = "x".repeat(limit / 2);
    let at_limit = json!({"data": {"a": half, "b": half}});
    assert!(texts("", "ConfigMap", at_limit).is_empty());
    let over = json!({"data": {"a": half, "b": format!("{half}x")}});
    assert_eq!(
        texts("", "ConfigMap", over),
        ["[]: Too long: may not be more than 1048576 bytes"]
    );
    // binaryData counts its decoded bytes: 4 base64 characters are 3 bytes.
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD.encode(vec![0u8; limit / 2 + 1]);
    let binary = json!({"data": {"a": half}, "binaryData": {"b": bytes}});
    assert_eq!(
        texts("", "ConfigMap", binary),
        ["[]: Too long: may not be more than 1048576 bytes"]
    );
    let bytes = base64::engine::general_purpose::STANDARD.encode(vec![0u8; limit / 2]);
    let binary = json!({"data": {"a": half}, "binaryData": {"b": bytes}});
    assert!(texts("", "ConfigMap", binary).is_empty());
}

// kubernetes pkg/apis/rbac/validation/validation.go: ValidatePolicyRule's texts, a namespaced
// rule with non-resource URLs, a ClusterRole's empty aggregation rule.
#[test]
fn rbac_roles_and_their_rules() {
    let role = json!({"rules": [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]},
        {"apiGroups": [""]},
        {"verbs": ["get"], "nonResourceURLs": ["/healthz"], "resources": ["pods"]},
    ]});
    assert_eq!(
        texts("rbac.authorization.k8s.io", "Role", role.clone()),
        [
            "rules[1].verbs: Required value: verbs must contain at least one value",
            "rules[1].resources: Required value: resource rules must supply at least one resource",
            "rules[2].nonResourceURLs: Invalid value: [\"/healthz\"]: namespaced rules cannot apply to non-resource URLs",
            "rules[2].nonResourceURLs: Invalid value: [\"/healthz\"]: rules cannot apply to both regular resources and non-resource URLs",
        ]
    );
    assert_eq!(
        texts("rbac.authorization.k8s.io", "ClusterRole", role),
        [
            "rules[1].verbs: Required value: verbs must contain at least one value",
            "rules[1].resources: Required value: resource rules must supply at least one resource",
            "rules[2].nonResourceURLs: Invalid value: [\"/healthz\"]: rules cannot apply to both regular resources and non-resource URLs",
        ]
    );
    let aggregated = json!({"aggregationRule": {"clusterRoleSelectors": []}});
    assert_eq!(
        texts("rbac.authorization.k8s.io", "ClusterRole", aggregated),
        [
            "aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil"
        ]
    );
    let urls = json!({"rules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]});
    assert!(texts("rbac.authorization.k8s.io", "ClusterRole", urls).is_empty());
}

// ValidateRoleBinding / ValidateClusterRoleBinding, ValidateRoleBindingSubject, and the
// update rule `cannot change roleRef` (ValidateRoleBindingUpdate).
#[test]
fn rbac_bindings_and_their_role_references() {
    let rb = |role_ref: serde_json::Value, subjects: serde_json::Value| json!({"roleRef": role_ref, "subjects": subjects});
    let good = rb(
        json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"}),
        json!([{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "jane"},
               {"kind": "ServiceAccount", "name": "default"}]),
    );
    assert!(texts("rbac.authorization.k8s.io", "RoleBinding", good.clone()).is_empty());
    assert_eq!(
        texts(
            "rbac.authorization.k8s.io",
            "ClusterRoleBinding",
            good.clone()
        ),
        [
            "roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"",
            "subjects[1].namespace: Required value",
        ]
    );
    let bad = rb(
        json!({"apiGroup": "x", "kind": "Thing", "name": "a/b"}),
        json!([{"kind": "Robot", "name": ""}, {"kind": "ServiceAccount", "name": "Bad_Name",
                "apiGroup": "v1"}]),
    );
    assert_eq!(
        texts("rbac.authorization.k8s.io", "RoleBinding", bad),
        [
            "roleRef.apiGroup: Unsupported value: \"x\": supported values: \"rbac.authorization.k8s.io\"",
            "roleRef.kind: Unsupported value: \"Thing\": supported values: \"Role\", \"ClusterRole\"",
            "roleRef.name: Invalid value: \"a/b\": may not contain '/'",
            "subjects[0].name: Required value",
            "subjects[0].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", \"User\", \"Group\"",
            "subjects[1].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            "subjects[1].apiGroup: Unsupported value: \"v1\": supported values: \"\"",
        ]
    );
    let mut changed = good.clone();
    changed["roleRef"]["name"] = json!("other");
    let errors: Vec<String> = validate(
        "rbac.authorization.k8s.io",
        "RoleBinding",
        &changed,
        Some(&good),
        Vec::new(),
    )
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(
        errors,
        [
            "roleRef: Invalid value: {\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\"other\"}: cannot change roleRef"
        ]
    );
    assert!(
        validate(
            "rbac.authorization.k8s.io",
            "RoleBinding",
            &good,
            Some(&good),
            Vec::new()
        )
        .is_empty()
    );
}

// kubernetes pkg/apis/autoscaling/validation: validateHorizontalPodAutoscalerSpec's replica
// bounds and ValidateCrossVersionObjectReference.
#[test]
fn horizontal_pod_autoscaler_bounds_and_target() {
    assert_eq!(
        texts(
            "autoscaling",
            "HorizontalPodAutoscaler",
            json!({"spec": {"minReplicas": 2}})
        ),
        [
            "spec.maxReplicas: Invalid value: 0: must be greater than 0",
            "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
            "spec.scaleTargetRef.kind: Required value",
            "spec.scaleTargetRef.name: Required value",
        ]
    );
    let good = json!({"spec": {"minReplicas": 1, "maxReplicas": 3,
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}});
    assert!(texts("autoscaling", "HorizontalPodAutoscaler", good).is_empty());
}
