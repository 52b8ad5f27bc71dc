//! `--cel-memory-limit-bytes` (kcel's own flag, issue 27): the memory budget of every CEL
//! evaluation the server does. A CRD rule, a validating admission policy's expression and a
//! mutating admission policy's mutation that build a 10,000-character string fit the default
//! 64 MiB budget and fail, with the library's clear error, under a 4,096-byte one — over
//! HTTPS, through the real binary.

mod support;

use serde_json::{Value, json};
use support::Server;

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const POLICIES: &str = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const BINDINGS: &str = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
const MUTATING: &str = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies";
const MUTATING_BINDINGS: &str =
    "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings";
/// The library's error for an evaluation over its memory budget.
const MEMORY_EXCEEDED: &str = "operation cancelled: memory limit exceeded";

/// 100 characters, grown a hundredfold by two replaces: 10,000 bytes built.
fn hundred() -> String {
    "a".repeat(100)
}

fn crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "notes.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "notes", "kind": "Note"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
                    "type": "object",
                    "properties": {"text": {"type": "string", "maxLength": 100}},
                    "x-kubernetes-validations": [{"rule":
                        "self.text.replace('a', 'aaaaaaaaaa').replace('a', 'aaaaaaaaaa').size() > 0"}]}}}}}]
        }
    })
}

fn note(name: &str) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Note", "metadata": {"name": name},
           "spec": {"text": hundred()}})
}

fn config_map(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
           "data": {"v": hundred()}})
}

/// A Secret whose annotation `v` the mutating policy grows.
fn secret(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Secret",
           "metadata": {"name": name, "annotations": {"v": hundred()}}})
}

/// A CRD with the rule, a validating policy with the same expression over ConfigMaps, a
/// mutating policy labelling Secrets with the size of the same string, and their bindings.
async fn set_up(server: &Server) {
    let reply = server.send("POST", CRDS, Some(&crd())).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let policy = json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "grow"},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                "operations": ["CREATE"], "resources": ["configmaps"]}]},
            "validations": [{"expression":
                "object.data.v.replace('a', 'aaaaaaaaaa').replace('a', 'aaaaaaaaaa').size() > 0"}]
        }
    });
    let reply = server.send("POST", POLICIES, Some(&policy)).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let binding = json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "grow-binding"},
        "spec": {"policyName": "grow", "validationActions": ["Deny"]}
    });
    let reply = server.send("POST", BINDINGS, Some(&binding)).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let policy = json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": "grow-label"},
        "spec": {
            "failurePolicy": "Fail",
            "reinvocationPolicy": "Never",
            "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                "operations": ["CREATE"], "resources": ["secrets"]}]},
            "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {
                "expression": "Object{metadata: Object.metadata{labels: {'size': string(\
                    object.metadata.annotations.v.replace('a', 'aaaaaaaaaa')\
                    .replace('a', 'aaaaaaaaaa').size())}}}"}}]
        }
    });
    let reply = server.send("POST", MUTATING, Some(&policy)).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let binding = json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": "grow-label-binding"},
        "spec": {"policyName": "grow-label"}
    });
    let reply = server.send("POST", MUTATING_BINDINGS, Some(&binding)).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
}

const SECRETS: &str = "/api/v1/namespaces/default/secrets";

const NOTES: &str = "/apis/example.com/v1/namespaces/default/notes";
const CONFIG_MAPS: &str = "/api/v1/namespaces/default/configmaps";

#[tokio::test]
async fn the_default_budget_holds_what_a_small_one_refuses() {
    let server = Server::start(&["--storage", "memory"]);
    set_up(&server).await;
    let reply = server.send("POST", NOTES, Some(&note("fits"))).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let reply = server
        .send("POST", CONFIG_MAPS, Some(&config_map("fits")))
        .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let reply = server.send("POST", SECRETS, Some(&secret("fits"))).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    assert_eq!(reply.json()["metadata"]["labels"]["size"], "10000");
    // The mutation is counted as kube-apiserver's MutatingAdmissionPolicy metrics count it.
    let metrics = server.send("GET", "/metrics", None).await.text();
    assert!(
        metrics.contains(
            "apiserver_mutating_admission_policy_check_total{error_type=\"no_error\",\
             policy=\"grow-label\",policy_binding=\"grow-label-binding\"} 1"
        ),
        "{metrics}"
    );
    assert!(
        metrics.contains(
            "apiserver_mutating_admission_policy_check_duration_seconds_bucket{error_type=\"no_error\",\
             policy=\"grow-label\",policy_binding=\"grow-label-binding\",le=\"1\"} 1"
        ),
        "{metrics}"
    );
    server.stop();

    let server = Server::start(&["--storage", "memory", "--cel-memory-limit-bytes", "4096"]);
    set_up(&server).await;
    let reply = server.send("POST", NOTES, Some(&note("refused"))).await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    let message = reply.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.starts_with("Note.example.com \"refused\" is invalid: spec: ")
            && message.contains(MEMORY_EXCEEDED),
        "{message}"
    );
    let reply = server
        .send("POST", CONFIG_MAPS, Some(&config_map("refused")))
        .await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    let message = reply.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.contains(
            "ValidatingAdmissionPolicy 'grow' with binding 'grow-binding' denied request"
        ) && message.contains(MEMORY_EXCEEDED),
        "{message}"
    );
    // The mutating policy's budget is the server's too (it once kept the default).
    let reply = server.send("POST", SECRETS, Some(&secret("refused"))).await;
    assert_eq!(reply.code, 403, "{}", reply.text());
    let message = reply.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message
            .starts_with("policy 'grow-label' with binding 'grow-label-binding' denied request: ")
            && message.contains(MEMORY_EXCEEDED),
        "{message}"
    );
    let metrics = server.send("GET", "/metrics", None).await.text();
    assert!(
        metrics.contains(
            "apiserver_mutating_admission_policy_check_total{error_type=\"invalid_error\",\
             policy=\"grow-label\",policy_binding=\"grow-label-binding\"} 1"
        ),
        "{metrics}"
    );
    // 0: no budget at all.
    server.stop();
    let server = Server::start(&["--storage", "memory", "--cel-memory-limit-bytes", "0"]);
    set_up(&server).await;
    let reply = server.send("POST", NOTES, Some(&note("unbounded"))).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
}
