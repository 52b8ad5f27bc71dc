//! MutatingAdmissionPolicies and the objects they mutate, for the tests of mutating
//! admission through the server.

use serde_json::{Value, json};

use super::Server;

/// The mutating policies' collection.
pub const MUTATING: &str = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies";
/// The mutating policy bindings' collection.
pub const MUTATING_BINDINGS: &str =
    "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings";

/// A mutating policy over `resource` in `group` for `operations`, applied when `condition`
/// holds, with one mutation; and its binding.
pub async fn bind_policy(
    server: &Server,
    name: &str,
    (group, resource): (&str, &str),
    operations: &[&str],
    condition: &str,
    mutation: Value,
) {
    let policy = json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": {
            "failurePolicy": "Fail",
            "reinvocationPolicy": "Never",
            "matchConstraints": {"resourceRules": [{"apiGroups": [group], "apiVersions": ["v1"],
                "operations": operations, "resources": [resource]}]},
            "matchConditions": [{"name": "asked", "expression": condition}],
            "mutations": [mutation]
        }
    });
    let reply = server.send("POST", MUTATING, Some(&policy)).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let binding = json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": format!("{name}-binding")},
        "spec": {"policyName": name}
    });
    let reply = server.send("POST", MUTATING_BINDINGS, Some(&binding)).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
}

/// A valid one-replica Deployment in `default` whose selector matches its template.
pub fn deployment(name: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}})
}
