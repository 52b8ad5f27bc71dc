//! `--cel-memory-limit-bytes` (kcel's own flag, issue 27): the memory budget of every CEL
//! evaluation the server does. A CRD rule and an admission policy's expression that build a
//! 10,000-character string fit the default 64 MiB budget and fail, with the library's clear
//! error, under a 4,096-byte one — over HTTPS, through the real binary.

mod support;

use serde_json::{Value, json};
use support::Server;

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const POLICIES: &str = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const BINDINGS: &str = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
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

/// A CRD with the rule, a policy with the same expression over ConfigMaps, and its binding.
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
}

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
    // 0: no budget at all.
    server.stop();
    let server = Server::start(&["--storage", "memory", "--cel-memory-limit-bytes", "0"]);
    set_up(&server).await;
    let reply = server.send("POST", NOTES, Some(&note("unbounded"))).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
}
