//! The write path in kube-apiserver's order, over HTTPS through the real binary: mutating
//! admission, then the strategy's `PrepareForCreate`/`PrepareForUpdate` and metadata, then
//! the kind's validation, then validating admission (k8s.io/apiserver
//! `pkg/endpoints/handlers/create.go` `createHandler`, `update.go` `UpdateResource`,
//! `patch.go` `patchResource`; `pkg/registry/generic/registry/store.go` `create` and
//! `Update` with `rest.BeforeCreate`/`rest.BeforeUpdate`). So, for create, update (PUT),
//! merge patch and server-side apply alike: a built-in object a MutatingAdmissionPolicy
//! makes invalid is refused with its kind's 422; an invalid object a mutation mends is
//! admitted; a status a mutation sets on create is reset by `PrepareForCreate`; a spec a
//! mutation changes on update bumps `metadata.generation`; and a Pod update is held to
//! `ValidatePodUpdate`.

mod support;

use serde_json::json;
use support::Server;
use support::mutating::{bind_policy as policy, deployment};

const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";
const PODS: &str = "/api/v1/namespaces/default/pods";

/// The 422 a Deployment whose template labels a mutation changed gets from its validation
/// (kubernetes `pkg/apis/apps/validation` `ValidateDeploymentSpec`: the selector must match
/// the template's labels).
fn assert_selector_mismatch(reply: &support::Reply, name: &str) {
    assert_eq!(reply.code, 422, "{}", reply.text());
    let status = reply.json();
    assert_eq!(status["reason"], "Invalid", "{status}");
    assert_eq!(
        status["message"],
        format!(
            "Deployment.apps \"{name}\" is invalid: spec.template.metadata.labels: Invalid \
             value: {{\"app\":\"other\"}}: `selector` does not match template `labels`"
        ),
        "{status}"
    );
}

#[tokio::test]
async fn a_mutation_that_makes_a_built_in_object_invalid_is_refused_on_every_write() {
    let server = Server::start(&["--storage", "memory"]);
    // Objects labelled `break` get template labels their selector does not match.
    policy(
        &server,
        "break-template",
        ("apps", "deployments"),
        &["CREATE", "UPDATE"],
        "has(object.metadata.labels) && 'break' in object.metadata.labels",
        json!({"patchType": "JSONPatch", "jsonPatch": {"expression":
            "[JSONPatch{op: 'replace', path: '/spec/template/metadata/labels/app', value: 'other'}]"}}),
    )
    .await;

    let mut broken = deployment("made-invalid");
    broken["metadata"]["labels"] = json!({"break": "yes"});
    let reply = server.send("POST", DEPLOYMENTS, Some(&broken)).await;
    assert_selector_mismatch(&reply, "made-invalid");
    let reply = server
        .send("GET", &format!("{DEPLOYMENTS}/made-invalid"), None)
        .await;
    assert_eq!(reply.code, 404, "nothing stored: {}", reply.text());

    // The same object, stored before it carries the label, then updated to carry it.
    let reply = server
        .send("POST", DEPLOYMENTS, Some(&deployment("web")))
        .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let path = format!("{DEPLOYMENTS}/web");
    let mut put = deployment("web");
    put["metadata"]["labels"] = json!({"break": "put"});
    let reply = server.send("PUT", &path, Some(&put)).await;
    assert_selector_mismatch(&reply, "web");

    let patch = serde_json::to_vec(&json!({"metadata": {"labels": {"break": "patch"}}})).unwrap();
    let reply = server
        .send_with(
            "PATCH",
            &path,
            Some(patch),
            &[("content-type", "application/merge-patch+json")],
        )
        .await;
    assert_selector_mismatch(&reply, "web");

    let mut applied = deployment("web");
    applied["metadata"]["labels"] = json!({"break": "apply"});
    let reply = server
        .send_with(
            "PATCH",
            &format!("{path}?fieldManager=order-test&force=true"),
            Some(serde_json::to_vec(&applied).unwrap()),
            &[("content-type", "application/apply-patch+yaml")],
        )
        .await;
    assert_selector_mismatch(&reply, "web");

    let stored = server.send("GET", &path, None).await.json();
    assert_eq!(stored["metadata"].get("labels"), None, "{stored}");
    assert_eq!(
        stored["spec"]["template"]["metadata"]["labels"],
        json!({"app": "web"})
    );
    server.stop();
}

#[tokio::test]
async fn an_invalid_object_a_mutation_mends_is_admitted() {
    let server = Server::start(&["--storage", "memory"]);
    // A container name that is no DNS label, renamed by the policy.
    policy(
        &server,
        "rename-container",
        ("", "pods"),
        &["CREATE"],
        "object.spec.containers.exists(c, c.name == 'Web_Server')",
        json!({"patchType": "JSONPatch", "jsonPatch": {"expression":
            "[JSONPatch{op: 'replace', path: '/spec/containers/0/name', value: 'web'}]"}}),
    )
    .await;
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "mended", "namespace": "default"},
        "spec": {"containers": [{"name": "Web_Server", "image": "nginx"}]}});
    let reply = server.send("POST", PODS, Some(&pod)).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    assert_eq!(reply.json()["spec"]["containers"][0]["name"], "web");

    // Without the mutation the same name is the Pod's 422.
    let mut unmended = pod.clone();
    unmended["metadata"]["name"] = json!("unmended");
    unmended["spec"]["containers"][0]["name"] = json!("Web-Server");
    let reply = server.send("POST", PODS, Some(&unmended)).await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    server.stop();
}

#[tokio::test]
async fn the_strategy_prepares_the_mutated_object() {
    let server = Server::start(&["--storage", "memory"]);
    // A status set by a mutation on create is reset by the Deployment strategy's
    // PrepareForCreate, which runs after admission.
    policy(
        &server,
        "status-setter",
        ("apps", "deployments"),
        &["CREATE"],
        "object.metadata.name == 'with-status'",
        json!({"patchType": "ApplyConfiguration", "applyConfiguration": {"expression":
            "Object{status: Object.status{replicas: 5, readyReplicas: 5}}"}}),
    )
    .await;
    // A spec changed by a mutation on update is a spec change: rest.BeforeUpdate and the
    // strategy's PrepareForUpdate bump the generation after admission.
    policy(
        &server,
        "scale-on-update",
        ("apps", "deployments"),
        &["UPDATE"],
        "has(object.metadata.labels) && 'scale' in object.metadata.labels",
        json!({"patchType": "ApplyConfiguration", "applyConfiguration": {"expression":
            "Object{spec: Object.spec{replicas: 3}}"}}),
    )
    .await;
    let reply = server
        .send("POST", DEPLOYMENTS, Some(&deployment("with-status")))
        .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    assert_eq!(reply.json()["status"], json!({}), "{}", reply.text());

    let reply = server
        .send("POST", DEPLOYMENTS, Some(&deployment("scaled")))
        .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    assert_eq!(reply.json()["metadata"]["generation"], 1);
    let patch = serde_json::to_vec(&json!({"metadata": {"labels": {"scale": "yes"}}})).unwrap();
    let reply = server
        .send_with(
            "PATCH",
            &format!("{DEPLOYMENTS}/scaled"),
            Some(patch),
            &[("content-type", "application/merge-patch+json")],
        )
        .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    let patched = reply.json();
    assert_eq!(patched["spec"]["replicas"], 3, "{patched}");
    assert_eq!(patched["metadata"]["generation"], 2, "{patched}");
    server.stop();
}

#[tokio::test]
async fn pod_updates_are_held_to_validate_pod_update() {
    let server = Server::start(&["--storage", "memory"]);
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"restartPolicy": "Always",
            "containers": [{"name": "web", "image": "nginx:1.26"}]}});
    let reply = server.send("POST", PODS, Some(&pod)).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let path = format!("{PODS}/p");

    // The image may change.
    let image = serde_json::to_vec(&json!({"spec": {"containers": [{"name": "web",
        "image": "nginx:1.27"}]}}))
    .unwrap();
    let reply = server
        .send_with(
            "PATCH",
            &path,
            Some(image),
            &[("content-type", "application/strategic-merge-patch+json")],
        )
        .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    assert_eq!(reply.json()["spec"]["containers"][0]["image"], "nginx:1.27");

    // The restart policy may not.
    let policy = serde_json::to_vec(&json!({"spec": {"restartPolicy": "Never"}})).unwrap();
    let reply = server
        .send_with(
            "PATCH",
            &path,
            Some(policy),
            &[("content-type", "application/merge-patch+json")],
        )
        .await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    let status = reply.json();
    assert_eq!(status["reason"], "Invalid", "{status}");
    assert_eq!(
        status["message"],
        "Pod \"p\" is invalid: spec: Forbidden: pod updates may not change fields other than \
         `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,\
         `spec.tolerations` (only additions to existing tolerations),\
         `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously \
         negative)\n- restartPolicy: \"Always\"\n+ restartPolicy: \"Never\"\n",
        "{status}"
    );
    assert_eq!(status["details"]["causes"][0]["field"], "spec", "{status}");

    // A container added ends the validation.
    let mut added = server.send("GET", &path, None).await.json();
    added["spec"]["containers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "log", "image": "busybox"}));
    let reply = server.send("PUT", &path, Some(&added)).await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    assert_eq!(
        reply.json()["message"],
        "Pod \"p\" is invalid: spec.containers: Forbidden: pod updates may not add or remove \
         containers"
    );
    server.stop();
}
