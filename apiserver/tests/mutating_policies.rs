//! MutatingAdmissionPolicy results made objects of their kind again, over HTTPS through the
//! real binary (kubernetes `staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/
//! mutating/`): a custom resource's apply configuration merged with its CRD's structural
//! schema (a keyed list merges by key), the mutated custom resource defaulted and validated
//! by its CRD, a mutated built-in object defaulted again (`dispatcher.go`, `dispatchOne`),
//! and a JSON patch whose result does not decode answered as upstream's internal error.

mod support;

use serde_json::{Value, json};
use support::Server;
use support::mutating::{self, deployment};

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const GATEWAYS: &str = "/apis/example.com/v1/namespaces/default/gateways";
const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";

fn crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gateways.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "gateways", "kind": "Gateway"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
                    "type": "object",
                    "properties": {
                        "owner": {"type": "string", "maxLength": 8},
                        "listeners": {
                            "type": "array",
                            "x-kubernetes-list-type": "map",
                            "x-kubernetes-list-map-keys": ["name"],
                            "items": {"type": "object", "required": ["name"], "properties": {
                                "name": {"type": "string"},
                                "port": {"type": "integer"},
                                "protocol": {"type": "string", "default": "HTTP"}}}}}}}}}}]
        }
    })
}

/// A policy over `resource` in `group` with one mutation on create, applied to objects whose
/// name starts with the policy's, and its binding.
async fn policy(server: &Server, name: &str, group: &str, resource: &str, mutation: Value) {
    let condition = format!("object.metadata.name.startsWith('{name}')");
    mutating::bind_policy(
        server,
        name,
        (group, resource),
        &["CREATE"],
        &condition,
        mutation,
    )
    .await;
}

fn gateway(name: &str) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Gateway",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"owner": "web", "listeners": [{"name": "http", "port": 80}]}})
}

#[tokio::test]
async fn mutated_objects_are_merged_defaulted_and_decoded_as_their_kind() {
    let server = Server::start(&["--storage", "memory"]);
    let reply = server.send("POST", CRDS, Some(&crd())).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    // The CRD's keyed list: an apply configuration naming a new listener adds it beside the
    // existing one (untyped, the list would be atomic and the mutation refused); the CRD
    // defaults the listener's protocol after the mutation.
    policy(
        &server,
        "tls",
        "example.com",
        "gateways",
        json!({"patchType": "ApplyConfiguration", "applyConfiguration": {"expression":
            "Object{spec: Object.spec{listeners: [Object.spec.listeners{name: 'https', port: 443}]}}"}}),
    )
    .await;
    // A mutation the CRD's schema refuses (owner longer than 8): the CRD validates the
    // mutated object, a 422.
    policy(
        &server,
        "owner",
        "example.com",
        "gateways",
        json!({"patchType": "ApplyConfiguration", "applyConfiguration": {"expression":
            "Object{spec: Object.spec{owner: 'platform-team'}}"}}),
    )
    .await;
    // A container added by a JSON patch is defaulted as the ones the client sent.
    policy(
        &server,
        "sidecar",
        "apps",
        "deployments",
        json!({"patchType": "JSONPatch", "jsonPatch": {"expression":
            "[JSONPatch{op: 'add', path: '/spec/template/spec/containers/-', \
              value: Object.spec.template.spec.containers{name: 'log', image: 'busybox'}}]"}}),
    )
    .await;
    // A JSON patch whose result is no Deployment.
    policy(
        &server,
        "broken",
        "apps",
        "deployments",
        json!({"patchType": "JSONPatch", "jsonPatch": {"expression":
            "[JSONPatch{op: 'replace', path: '/spec/replicas', value: 'three'}]"}}),
    )
    .await;

    let reply = server
        .send("POST", GATEWAYS, Some(&gateway("tls-gw")))
        .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    assert_eq!(
        reply.json()["spec"]["listeners"],
        json!([{"name": "http", "port": 80, "protocol": "HTTP"},
            {"name": "https", "port": 443, "protocol": "HTTP"}])
    );

    let reply = server
        .send("POST", GATEWAYS, Some(&gateway("owner-gw")))
        .await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    // The CRD has no rules: no "rules were not checked" error follows the schema's (as
    // upstream builds no CEL validator for a schema without x-kubernetes-validations).
    assert_eq!(
        reply.json()["message"],
        "Gateway.example.com \"owner-gw\" is invalid: spec.owner: Too long: may not be more \
         than 8 bytes"
    );

    let reply = server
        .send("POST", DEPLOYMENTS, Some(&deployment("sidecar-web")))
        .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let containers = reply.json()["spec"]["template"]["spec"]["containers"].clone();
    assert_eq!(containers[1]["name"], "log", "{containers}");
    assert_eq!(containers[1]["imagePullPolicy"], "Always", "{containers}");
    assert_eq!(
        containers[1]["terminationMessagePath"], "/dev/termination-log",
        "{containers}"
    );
    assert_eq!(
        containers[0]["imagePullPolicy"], "IfNotPresent",
        "{containers}"
    );

    let reply = server
        .send("POST", DEPLOYMENTS, Some(&deployment("broken-web")))
        .await;
    assert_eq!(reply.code, 500, "{}", reply.text());
    let status = reply.json();
    assert_eq!(status["reason"], "InternalError");
    assert_eq!(
        status["message"],
        "Internal error occurred: json: cannot unmarshal string into Go struct field \
         DeploymentSpec.spec.replicas of type int32"
    );
    assert_eq!(
        status["details"]["causes"][0]["message"],
        "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"
    );
    server.stop();
}

/// A policy over autoscaling/v1 HorizontalPodAutoscalers (matchPolicy `Equivalent`, the
/// default) mutates a request made at autoscaling/v2 as the v1 object it is there: the v2
/// object converted to v1, the v1 field set, the result converted back to v2 (upstream's
/// `VersionedAttributes`, converted back once dirty).
#[tokio::test]
async fn a_request_matched_through_an_equivalent_resource_is_mutated_as_that_kind() {
    let server = Server::start(&["--storage", "memory"]);
    mutating::bind_policy(
        &server,
        "cpu-target",
        ("autoscaling", "horizontalpodautoscalers"),
        &["CREATE"],
        "object.metadata.name != 'kept'",
        json!({"patchType": "ApplyConfiguration", "applyConfiguration": {"expression":
            "Object{spec: Object.spec{targetCPUUtilizationPercentage: 50}}"}}),
    )
    .await;
    let hpa = |name: &str| {
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 1, "maxReplicas": 5,
                "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 80}}}]}})
    };
    const HPAS: &str = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
    let target =
        |reply: &support::Reply| reply.json()["spec"]["metrics"][0]["resource"]["target"].clone();
    let reply = server.send("POST", HPAS, Some(&hpa("web"))).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    assert_eq!(
        target(&reply),
        json!({"type": "Utilization", "averageUtilization": 50}),
        "{}",
        reply.text()
    );
    assert_eq!(reply.json()["apiVersion"], "autoscaling/v2");
    // Not matched by the condition: as sent.
    let reply = server.send("POST", HPAS, Some(&hpa("kept"))).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    assert_eq!(
        target(&reply),
        json!({"type": "Utilization", "averageUtilization": 80})
    );
    server.stop();
}

/// A JSON patch on which evanphx/json-patch v4.13.0 panics (a `test` of the whole object
/// without `value` compares with a nil node in `Patch.test`): nothing in the mutating dispatcher
/// recovers it (`policy/mutating/dispatcher.go`), so, whatever the failure policy, the
/// request is answered as kube-apiserver's panic recovery answers (`server/filters/wrap.go`,
/// `WithPanicRecovery`: `http.Error`, 500 in plain text), and nothing is created.
#[tokio::test]
async fn a_json_patch_panic_fails_the_request_in_plain_text() {
    let server = Server::start(&["--storage", "memory"]);
    mutating::bind_policy(
        &server,
        "probe",
        ("", "configmaps"),
        &["CREATE"],
        "object.metadata.name.startsWith('probe')",
        json!({"patchType": "JSONPatch", "jsonPatch": {"expression":
            "[JSONPatch{op: 'test', path: ''}]"}}),
    )
    .await;
    const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "probe-1", "namespace": "default"}, "data": {}});
    server
        .send("POST", CONFIGMAPS, Some(&cm))
        .await
        .assert_panicked();
    let reply = server
        .send("GET", &format!("{CONFIGMAPS}/probe-1"), None)
        .await;
    assert_eq!(reply.code, 404, "{}", reply.text());
}
