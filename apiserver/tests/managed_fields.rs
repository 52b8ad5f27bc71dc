//! `metadata.managedFields` of every write path (create, update, merge / JSON / strategic
//! patches, apply, the status and scale subresources) compared with golden files, and the
//! apply request's errors, over HTTPS against the binary.
//!
//! The golden files follow upstream's documented behaviour (the Server-Side Apply page of
//! the Kubernetes documentation: Apply entries list the applied leaves, Update entries what
//! a write changed, subresource writes carry `subresource`; structured-merge-diff's
//! `FieldsV1` with `.` for members that have members below them); `time` is masked.

mod support;

use serde_json::{Value, json};
use support::Server;

const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";

fn masked(object: &Value) -> Value {
    let mut entries = object["metadata"]["managedFields"].clone();
    for e in entries.as_array_mut().into_iter().flatten() {
        assert!(
            e["time"].as_str().is_some_and(|t| t.ends_with('Z')),
            "time: {e}"
        );
        e["time"] = json!("TIME");
    }
    // Upstream orders by operation, time (seconds), manager: with times masked, by
    // operation and manager.
    let key = |e: &Value| format!("{} {} {}", e["operation"], e["manager"], e["subresource"]);
    entries.as_array_mut().unwrap().sort_by_key(key);
    entries
}

fn golden(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

async fn patch(server: &Server, path: &str, kind: &str, body: &str) -> Value {
    let reply = server
        .send_with(
            "PATCH",
            path,
            Some(body.as_bytes().to_vec()),
            &[("content-type", kind)],
        )
        .await;
    assert_eq!(reply.code / 100, 2, "{path}: {}", reply.text());
    reply.json()
}

#[tokio::test]
async fn managed_fields_of_every_write_path() {
    let server = Server::start(&[]);
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "d", "labels": {"app": "d"}},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "d"}},
            "template": {"metadata": {"labels": {"app": "d"}},
                "spec": {"containers": [{"name": "main", "image": "nginx:1",
                    "ports": [{"containerPort": 80}]}]}}}});
    let reply = server
        .send(
            "POST",
            &format!("{DEPLOYMENTS}?fieldManager=creator"),
            Some(&d),
        )
        .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let mut live = reply.json();
    // PUT: replicas and a label.
    live["spec"]["replicas"] = json!(2);
    live["metadata"]["labels"]["team"] = json!("a");
    let reply = server
        .send(
            "PUT",
            &format!("{DEPLOYMENTS}/d?fieldManager=putter"),
            Some(&live),
        )
        .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    let one = format!("{DEPLOYMENTS}/d");
    patch(
        &server,
        &format!("{one}?fieldManager=merger"),
        "application/merge-patch+json",
        r#"{"metadata":{"annotations":{"a":"1"}}}"#,
    )
    .await;
    patch(
        &server,
        &format!("{one}?fieldManager=jsoner"),
        "application/json-patch+json",
        r#"[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:2"}]"#,
    )
    .await;
    patch(
        &server,
        &format!("{one}?fieldManager=strategist"),
        "application/strategic-merge-patch+json",
        r#"{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}"#,
    )
    .await;
    patch(&server, &format!("{one}?fieldManager=applier"), "application/apply-patch+yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  labels:\n    applied: \"yes\"\n").await;
    patch(
        &server,
        &format!("{one}/status?fieldManager=statuser"),
        "application/merge-patch+json",
        r#"{"status":{"replicas":3}}"#,
    )
    .await;
    patch(
        &server,
        &format!("{one}/scale?fieldManager=scaler"),
        "application/merge-patch+json",
        r#"{"spec":{"replicas":5}}"#,
    )
    .await;
    let last = patch(&server, &format!("{one}/status?fieldManager=status-applier"), "application/apply-patch+yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nstatus:\n  observedGeneration: 1\n").await;
    let got = masked(&last);
    if std::env::var_os("KCEL_PRINT_GOLDEN").is_some() {
        println!("{}", serde_json::to_string_pretty(&got).unwrap());
    }
    assert_eq!(got, golden("managed_fields_deployment.json"));
}
