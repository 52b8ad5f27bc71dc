//! The `finalize` subresource of namespaces, as kube-apiserver serves it
//! (kubernetes `pkg/registry/core/namespace/storage/storage.go` `FinalizeREST`, its
//! strategy in `pkg/registry/core/namespace/strategy.go`, and
//! `ValidateNamespaceFinalizeUpdate` in `pkg/apis/core/validation/validation.go`):
//! `spec.finalizers` changes through it only, the status never; names without a domain must be
//! standard finalizers; a Terminating namespace whose last finalizer goes is removed.

mod support;

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Server, real_client, run_bounded};

const NAMESPACES: &str = "/api/v1/namespaces";

async fn put(server: &Server, path: &str, body: &Value) -> support::Reply {
    server.send("PUT", path, Some(body)).await
}

#[tokio::test]
async fn spec_finalizers_change_through_finalize_only() {
    let server = Server::start(&[]);
    let created = server
        .send(
            "POST",
            NAMESPACES,
            Some(&json!({"metadata": {"name": "f"}})),
        )
        .await;
    assert_eq!(created.code, 201);
    let mut ns = created.json();
    assert_eq!(ns["spec"]["finalizers"], json!(["kubernetes"]));

    // An update of the namespace itself keeps spec.finalizers (namespaceStrategy).
    ns["spec"]["finalizers"] = json!([]);
    ns["metadata"]["labels"]["a"] = json!("b");
    let updated = put(&server, &format!("{NAMESPACES}/f"), &ns).await;
    assert_eq!(updated.code, 200, "{}", updated.text());
    let mut ns = updated.json();
    assert_eq!(ns["spec"]["finalizers"], json!(["kubernetes"]));
    assert_eq!(ns["metadata"]["labels"]["a"], "b");

    // finalize changes them, and keeps the status.
    ns["spec"]["finalizers"] = json!(["kubernetes", "example.com/hold"]);
    ns["status"]["phase"] = json!("Terminating");
    let finalized = put(&server, &format!("{NAMESPACES}/f/finalize"), &ns).await;
    assert_eq!(finalized.code, 200, "{}", finalized.text());
    let ns = finalized.json();
    assert_eq!(ns["kind"], "Namespace");
    assert_eq!(
        ns["spec"]["finalizers"],
        json!(["kubernetes", "example.com/hold"])
    );
    assert_eq!(ns["status"]["phase"], "Active");
    let entries = ns["metadata"]["managedFields"].to_string();
    assert!(entries.contains(r#""subresource":"finalize""#), "{entries}");

    // Names without a domain must be standard finalizers.
    let mut bad = ns.clone();
    bad["spec"]["finalizers"] = json!(["foo", "Bad/x"]);
    let reply = put(&server, &format!("{NAMESPACES}/f/finalize"), &bad).await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    let status = reply.json();
    assert_eq!(status["reason"], "Invalid");
    assert_eq!(
        status["message"],
        "Namespace \"f\" is invalid: [spec.finalizers[0]: Invalid value: \"foo\": name is \
         neither a standard finalizer name nor is it fully qualified, spec.finalizers[1]: \
         Invalid value: \"Bad/x\": prefix part a lowercase RFC 1123 subdomain must consist \
         of lower case alphanumeric characters, '-' or '.', and must start and end with an \
         alphanumeric character (e.g. 'example.com', regex used for validation is \
         '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]"
    );

    // finalize is written with PUT only.
    let get = server
        .send("GET", &format!("{NAMESPACES}/f/finalize"), None)
        .await;
    assert_eq!(get.code, 405, "{}", get.text());
    // Other resources have no finalize subresource.
    let other = server
        .send(
            "GET",
            "/api/v1/namespaces/default/configmaps/x/finalize",
            None,
        )
        .await;
    assert_eq!(other.code, 404);

    // Deleting: the namespace controller removes `kubernetes` once the namespace is empty;
    // the other finalizer holds it until finalize takes it away.
    let deleted = server
        .send("DELETE", &format!("{NAMESPACES}/f"), None)
        .await;
    assert_eq!(deleted.code, 200);
    let start = Instant::now();
    let held = loop {
        let ns = server
            .send("GET", &format!("{NAMESPACES}/f"), None)
            .await
            .json();
        if ns["spec"]["finalizers"] == json!(["example.com/hold"]) {
            break ns;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "{ns}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(held["status"]["phase"], "Terminating");
    let mut release = held.clone();
    release["spec"]["finalizers"] = json!([]);
    let reply = put(&server, &format!("{NAMESPACES}/f/finalize"), &release).await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    assert_eq!(
        server
            .send("GET", &format!("{NAMESPACES}/f"), None)
            .await
            .code,
        404
    );
}

#[test]
fn kubectl_replace_raw_finalize() {
    let Some(kubectl) = real_client("KCEL_KUBECTL", "kubectl", "kubectl_replace_raw_finalize")
    else {
        return;
    };
    let server = Server::start(&[]);
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let mut command = Command::new(&kubectl);
        command
            .args(args)
            .env("KUBECONFIG", server.data_dir().join("kubeconfig"))
            .env("HOME", home.path());
        run_bounded(command, None, Duration::from_secs(60))
    };
    let ran = run(&["create", "namespace", "g"]);
    assert_eq!(ran.code, 0, "{ran:?}");
    let ran = run(&["get", "namespace", "g", "-o", "json"]);
    let mut ns: Value = serde_json::from_str(&ran.stdout).unwrap();
    ns["spec"]["finalizers"] = json!(["kubernetes", "example.com/x"]);
    let file = home.path().join("ns.json");
    std::fs::write(&file, ns.to_string()).unwrap();
    let ran = run(&[
        "replace",
        "--raw",
        "/api/v1/namespaces/g/finalize",
        "-f",
        file.to_str().unwrap(),
    ]);
    assert_eq!(ran.code, 0, "{ran:?}");
    let answered: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        answered["spec"]["finalizers"],
        json!(["kubernetes", "example.com/x"])
    );
    let ran = run(&["get", "namespace", "g", "-o", "jsonpath={.spec.finalizers}"]);
    assert_eq!(ran.stdout, r#"["kubernetes","example.com/x"]"#);
}
