//! Garbage collection by `propagationPolicy`, observed as a client sees it on
//! kube-apiserver with kube-controller-manager's garbage collector:
//! - the delete request's effect on the owner follows k8s.io/apiserver
//!   `pkg/registry/generic/registry/store.go` (`deletionFinalizersForGarbageCollection`,
//!   `markAsDeleting`): Foreground leaves `foregroundDeletion`, Orphan leaves `orphan`, both
//!   with `deletionTimestamp` and `deletionGracePeriodSeconds: 0`, and a 200 with the object;
//! - what happens next follows kubernetes `pkg/controller/garbagecollector/garbagecollector.go`
//!   (`attemptToDeleteItem`, `attemptToOrphan`, `processDeletingDependentsItem`) and the
//!   documented behaviour (kubernetes.io "Garbage Collection", "Use Cascading Deletion").
//!
//! The kubectl tests run real kubectl 1.37 (`kubectl delete --cascade=...`); without it they
//! skip visibly (and fail under `CI=true`).

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Kubectl, Server};

/// How long the collector may take to act on a change.
const SETTLE: Duration = Duration::from_secs(20);

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";

/// Polls `check` until it holds or [`SETTLE`] passes.
async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !check().await {
        assert!(start.elapsed() < SETTLE, "not within {SETTLE:?}: {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn deployment(name: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    })
}

fn owner_reference(owner: &Value, block: bool) -> Value {
    json!({
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "blockOwnerDeletion": block,
    })
}

async fn create(server: &Server, path: &str, body: Value) -> Value {
    let reply = server.send("POST", path, Some(&body)).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    reply.json()
}

async fn dependent(server: &Server, name: &str, refs: Vec<Value>, finalizers: &[&str]) -> Value {
    let mut metadata = json!({"name": name, "ownerReferences": refs});
    if !finalizers.is_empty() {
        metadata["finalizers"] = json!(finalizers);
    }
    create(server, CONFIGMAPS, json!({"metadata": metadata})).await
}

async fn code_of(server: &Server, path: &str) -> u16 {
    server.send("GET", path, None).await.code
}

#[tokio::test]
async fn background_deletes_the_owner_then_its_dependents() {
    let server = Server::start(&[]);
    let owner = create(&server, DEPLOYMENTS, deployment("bg")).await;
    dependent(&server, "bg-a", vec![owner_reference(&owner, false)], &[]).await;
    dependent(&server, "bg-b", vec![owner_reference(&owner, true)], &[]).await;
    let reply = server
        .send(
            "DELETE",
            &format!("{DEPLOYMENTS}/bg"),
            Some(&json!({"propagationPolicy": "Background"})),
        )
        .await;
    // Deleted at once: a Success status, as for an object without finalizers.
    assert_eq!(reply.code, 200, "{}", reply.text());
    assert_eq!(reply.json()["kind"], "Status");
    assert_eq!(code_of(&server, &format!("{DEPLOYMENTS}/bg")).await, 404);
    for name in ["bg-a", "bg-b"] {
        let path = format!("{CONFIGMAPS}/{name}");
        eventually(&format!("{name} collected"), || async {
            code_of(&server, &path).await == 404
        })
        .await;
    }
}

#[tokio::test]
async fn foreground_waits_for_blocking_dependents() {
    let server = Server::start(&[]);
    let owner = create(&server, DEPLOYMENTS, deployment("fg")).await;
    let generation = owner["metadata"]["generation"].as_i64().unwrap();
    // One blocking dependent held by a finalizer of its own, one that does not block.
    dependent(
        &server,
        "fg-held",
        vec![owner_reference(&owner, true)],
        &["example.com/hold"],
    )
    .await;
    dependent(
        &server,
        "fg-free",
        vec![owner_reference(&owner, false)],
        &[],
    )
    .await;
    let reply = server
        .send(
            "DELETE",
            &format!("{DEPLOYMENTS}/fg"),
            Some(&json!({"propagationPolicy": "Foreground"})),
        )
        .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    let answered = reply.json();
    assert_eq!(answered["kind"], "Deployment");
    assert_eq!(
        answered["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
    assert!(answered["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(answered["metadata"]["deletionGracePeriodSeconds"], 0);
    // markAsDeleting bumps a generation that is set.
    assert_eq!(answered["metadata"]["generation"], generation + 1);
    // Every dependent is deleted; the free one is gone, the held one waits for its finalizer.
    let free = format!("{CONFIGMAPS}/fg-free");
    eventually("fg-free collected", || async {
        code_of(&server, &free).await == 404
    })
    .await;
    let held = format!("{CONFIGMAPS}/fg-held");
    eventually("fg-held being deleted", || async {
        server.send("GET", &held, None).await.json()["metadata"]["deletionTimestamp"].is_string()
    })
    .await;
    // The owner waits for the blocking dependent.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let waiting = server.send("GET", &format!("{DEPLOYMENTS}/fg"), None).await;
    assert_eq!(waiting.code, 200);
    assert_eq!(
        waiting.json()["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
    // Releasing the dependent lets both go.
    let patch = server
        .send_with(
            "PATCH",
            &held,
            Some(br#"{"metadata":{"finalizers":null}}"#.to_vec()),
            &[("content-type", "application/merge-patch+json")],
        )
        .await;
    assert_eq!(patch.code, 200, "{}", patch.text());
    eventually("fg-held gone", || async {
        code_of(&server, &held).await == 404
    })
    .await;
    let owner_path = format!("{DEPLOYMENTS}/fg");
    eventually("the owner gone", || async {
        code_of(&server, &owner_path).await == 404
    })
    .await;
}

#[tokio::test]
async fn orphan_removes_the_references_then_the_owner() {
    let server = Server::start(&[]);
    let owner = create(&server, DEPLOYMENTS, deployment("or")).await;
    let other = create(&server, DEPLOYMENTS, deployment("or-other")).await;
    dependent(&server, "or-a", vec![owner_reference(&owner, true)], &[]).await;
    dependent(
        &server,
        "or-b",
        vec![
            owner_reference(&owner, false),
            owner_reference(&other, false),
        ],
        &[],
    )
    .await;
    let reply = server
        .send(
            "DELETE",
            &format!("{DEPLOYMENTS}/or"),
            Some(&json!({"propagationPolicy": "Orphan"})),
        )
        .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    assert_eq!(reply.json()["metadata"]["finalizers"], json!(["orphan"]));
    let owner_path = format!("{DEPLOYMENTS}/or");
    eventually("the owner gone", || async {
        code_of(&server, &owner_path).await == 404
    })
    .await;
    // The dependents stay, without references to the deleted owner.
    let a = server
        .send("GET", &format!("{CONFIGMAPS}/or-a"), None)
        .await;
    assert_eq!(a.code, 200);
    assert!(
        a.json()["metadata"]["ownerReferences"].is_null(),
        "{}",
        a.text()
    );
    let b = server
        .send("GET", &format!("{CONFIGMAPS}/or-b"), None)
        .await
        .json();
    assert_eq!(
        b["metadata"]["ownerReferences"],
        json!([owner_reference(&other, false)])
    );
    // The removed reference leaves the creator's managed fields too (the collector owns
    // nothing afterwards, so it gets no entry of its own).
    let managed = b["metadata"]["managedFields"].to_string();
    let gone = owner["metadata"]["uid"].as_str().unwrap();
    assert!(!managed.contains(gone), "{managed}");
    assert!(managed.contains(other["metadata"]["uid"].as_str().unwrap()));
}

#[tokio::test]
async fn dependents_of_missing_owners_are_collected_and_solid_owners_keep_them() {
    let server = Server::start(&[]);
    let owner = create(&server, DEPLOYMENTS, deployment("solid")).await;
    let mut ghost = owner.clone();
    ghost["metadata"]["uid"] = json!("00000000-0000-0000-0000-000000000000");
    // The uid does not match the live object's: the owner is absent (upstream compares uids).
    dependent(
        &server,
        "ghostly",
        vec![owner_reference(&ghost, false)],
        &[],
    )
    .await;
    // One solid owner keeps the object; the dangling reference is dropped.
    dependent(
        &server,
        "kept",
        vec![
            owner_reference(&ghost, false),
            owner_reference(&owner, false),
        ],
        &[],
    )
    .await;
    // An owner of a kind the server does not serve cannot be resolved: left alone.
    dependent(
        &server,
        "unresolved",
        vec![json!({"apiVersion": "v1", "kind": "ReplicationController", "name": "p", "uid": "u"})],
        &[],
    )
    .await;
    let ghostly = format!("{CONFIGMAPS}/ghostly");
    eventually("ghostly collected", || async {
        code_of(&server, &ghostly).await == 404
    })
    .await;
    let kept = format!("{CONFIGMAPS}/kept");
    eventually("the dangling reference dropped", || async {
        server.send("GET", &kept, None).await.json()["metadata"]["ownerReferences"]
            == json!([owner_reference(&owner, false)])
    })
    .await;
    let unresolved = server
        .send("GET", &format!("{CONFIGMAPS}/unresolved"), None)
        .await;
    assert_eq!(unresolved.code, 200);
}

#[tokio::test]
async fn a_restarted_server_finishes_a_foreground_deletion() {
    let server = Server::start(&[]);
    let owner = create(&server, DEPLOYMENTS, deployment("rs")).await;
    dependent(
        &server,
        "rs-held",
        vec![owner_reference(&owner, true)],
        &["example.com/hold"],
    )
    .await;
    let reply = server
        .send(
            "DELETE",
            &format!("{DEPLOYMENTS}/rs"),
            Some(&json!({"propagationPolicy": "Foreground"})),
        )
        .await;
    assert_eq!(reply.code, 200);
    let held = format!("{CONFIGMAPS}/rs-held");
    eventually("rs-held being deleted", || async {
        server.send("GET", &held, None).await.json()["metadata"]["deletionTimestamp"].is_string()
    })
    .await;
    let dir = server.kill();
    let server = Server::start_in(dir, &[]);
    let patch = server
        .send_with(
            "PATCH",
            &held,
            Some(br#"{"metadata":{"finalizers":null}}"#.to_vec()),
            &[("content-type", "application/merge-patch+json")],
        )
        .await;
    assert_eq!(patch.code, 200, "{}", patch.text());
    let owner_path = format!("{DEPLOYMENTS}/rs");
    eventually("the owner gone after the restart", || async {
        code_of(&server, &owner_path).await == 404
    })
    .await;
}

impl Kubectl {
    /// A Deployment `name` and ConfigMaps `<name>-0..count` it owns (blocking).
    fn owner_with_dependents(&self, name: &str, count: usize, finalizer: Option<&str>) {
        self.ok(&["create", "deployment", name, "--image=nginx"]);
        let uid = self.ok(&["get", "deployment", name, "-o", "jsonpath={.metadata.uid}"]);
        for i in 0..count {
            let finalizers = finalizer.map_or(String::new(), |f| format!("\n  finalizers: [{f}]"));
            let manifest = format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}-{i}{finalizers}\n  \
                 ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    \
                 name: {name}\n    uid: {uid}\n    blockOwnerDeletion: true\n    controller: true\n"
            );
            self.ok_stdin(&["create", "-f", "-"], &manifest);
        }
    }

    fn configmaps(&self) -> String {
        self.ok(&["get", "configmaps", "-o", "name"])
    }
}

#[test]
fn kubectl_delete_cascade_foreground_background_orphan() {
    let Some(k) = Kubectl::start("kubectl_delete_cascade_foreground_background_orphan") else {
        return;
    };
    // Foreground: kubectl waits for the owner, which waits for its dependents.
    k.owner_with_dependents("fore", 2, None);
    let out = k.ok(&["delete", "deployment", "fore", "--cascade=foreground"]);
    assert_eq!(
        out,
        "deployment.apps \"fore\" deleted from default namespace\n"
    );
    assert!(!k.configmaps().contains("fore-"), "{}", k.configmaps());

    // Foreground with a held dependent: the owner stays with foregroundDeletion until the
    // dependent's own finalizer goes; `kubectl wait --for=delete` then returns.
    k.owner_with_dependents("held", 1, Some("example.com/hold"));
    let out = k.ok(&[
        "delete",
        "deployment",
        "held",
        "--cascade=foreground",
        "--wait=false",
    ]);
    assert_eq!(
        out,
        "deployment.apps \"held\" deleted from default namespace\n"
    );
    let finalizers = k.ok(&[
        "get",
        "deployment",
        "held",
        "-o",
        "jsonpath={.metadata.finalizers}",
    ]);
    assert_eq!(finalizers, r#"["foregroundDeletion"]"#);
    let ran = k.run(&["wait", "--for=delete", "deployment/held", "--timeout=2s"]);
    assert_ne!(
        ran.code, 0,
        "the owner waits for its blocking dependent: {ran:?}"
    );
    k.ok(&[
        "patch",
        "configmap",
        "held-0",
        "--type=json",
        "-p",
        r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
    ]);
    // kubectl prints "condition met" if it saw the object go, nothing if it was gone already.
    let out = k.ok(&["wait", "--for=delete", "deployment/held", "--timeout=20s"]);
    assert!(
        out.is_empty() || out == "deployment.apps/held condition met\n",
        "{out}"
    );
    let ran = k.run(&["get", "deployment", "held"]);
    assert_eq!(
        ran.stderr,
        "Error from server (NotFound): deployments.apps \"held\" not found\n"
    );

    // Orphan: the owner goes, the dependents stay without the reference.
    k.owner_with_dependents("orph", 2, None);
    let out = k.ok(&["delete", "deployment", "orph", "--cascade=orphan"]);
    assert_eq!(
        out,
        "deployment.apps \"orph\" deleted from default namespace\n"
    );
    let refs = k.ok(&[
        "get",
        "configmap",
        "orph-0",
        "orph-1",
        "-o",
        "jsonpath={.items[*].metadata.ownerReferences}",
    ]);
    assert_eq!(refs, "");

    // Background (kubectl's default): the owner at once, the dependents soon after.
    k.owner_with_dependents("back", 2, None);
    let out = k.ok(&["delete", "deployment", "back"]);
    assert_eq!(
        out,
        "deployment.apps \"back\" deleted from default namespace\n"
    );
    let start = Instant::now();
    while k.configmaps().contains("back-") {
        assert!(start.elapsed() < SETTLE, "{}", k.configmaps());
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(k.configmaps().contains("orph-0"));
}

#[tokio::test]
async fn owner_references_and_collection_finalizers_are_validated() {
    let server = Server::start(&["--storage", "memory"]);
    let two_controllers = json!({"metadata": {"name": "two", "ownerReferences": [
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "a", "uid": "1", "controller": true},
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "b", "uid": "2", "controller": true},
    ]}});
    let reply = server
        .send("POST", CONFIGMAPS, Some(&two_controllers))
        .await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    assert_eq!(
        reply.json()["message"],
        "ConfigMap \"two\" is invalid: metadata.ownerReferences: Invalid value: \
         [{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"a\",\"uid\":\"1\",\
         \"controller\":true},{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"b\",\
         \"uid\":\"2\",\"controller\":true}]: Only one reference can have Controller set to true. \
         Found \"true\" in references for Deployment/a and Deployment/b"
    );
    let created = create(&server, CONFIGMAPS, json!({"metadata": {"name": "f"}})).await;
    let mut both = created.clone();
    both["metadata"]["finalizers"] = json!(["orphan", "foregroundDeletion"]);
    let reply = server
        .send("PUT", &format!("{CONFIGMAPS}/f"), Some(&both))
        .await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    assert_eq!(
        reply.json()["message"],
        "ConfigMap \"f\" is invalid: metadata.finalizers: Invalid value: \
         [\"orphan\",\"foregroundDeletion\"]: finalizer orphan and foregroundDeletion cannot be \
         both set"
    );
}

#[test]
fn the_python_client_deletes_with_each_policy() {
    let Some(python) = support::Python::find("the_python_client_deletes_with_each_policy") else {
        return;
    };
    let server = Server::start(&[]);
    let ran = python.run(
        &server,
        "garbage_collection.py",
        &[],
        std::time::Duration::from_secs(120),
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(
        ran.stdout, "ok foreground\nok background\nok orphan\n",
        "{ran:?}"
    );
}
