//! Custom resources over HTTPS: a CRD and its objects survive a restart (served again at
//! start, resourceVersions kept), dry runs store nothing, watches see custom resources, a
//! namespace's deletion deletes its custom resources, and creates are refused while the
//! CRD is being deleted.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::Server;

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

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
                    "properties": {"text": {"type": "string", "maxLength": 20}},
                    "x-kubernetes-validations": [{"rule": "self.text != 'forbidden'"}]}}}}}]
        }
    })
}

fn note(name: &str, text: &str) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Note", "metadata": {"name": name},
           "spec": {"text": text}})
}

#[tokio::test]
async fn custom_resources_persist_and_follow_their_crd() {
    let server = Server::start(&[]);
    assert_eq!(server.send("POST", CRDS, Some(&crd())).await.code, 201);
    let notes = "/apis/example.com/v1/namespaces/default/notes";
    let created = server.send("POST", notes, Some(&note("a", "hello"))).await;
    assert_eq!(created.code, 201);
    let rv = created.json()["metadata"]["resourceVersion"].clone();
    // Dry run: validated, not stored.
    let dry = server
        .send(
            "POST",
            &format!("{notes}?dryRun=All"),
            Some(&note("b", "hi")),
        )
        .await;
    assert_eq!(dry.code, 201);
    assert_eq!(
        server.send("GET", &format!("{notes}/b"), None).await.code,
        404
    );
    let dry_bad = server
        .send(
            "POST",
            &format!("{notes}?dryRun=All"),
            Some(&note("b", "forbidden")),
        )
        .await;
    assert_eq!(dry_bad.code, 422);

    // A restart serves the CRD again at once, with the objects as they were.
    let dir = server.stop();
    let server = Server::start_in(dir, &[]);
    let got = server.send("GET", &format!("{notes}/a"), None).await;
    assert_eq!(got.code, 200, "{}", got.text());
    assert_eq!(got.json()["metadata"]["resourceVersion"], rv);
    assert_eq!(
        server
            .send("POST", notes, Some(&note("c", "forbidden")))
            .await
            .json()["message"],
        "Note.example.com \"c\" is invalid: spec: Invalid value: failed rule: self.text != 'forbidden'"
    );

    // A watch sees a custom resource's changes.
    let (code, mut body) = server
        .stream(&format!(
            "{notes}?watch=true&resourceVersion={}",
            rv.as_str().unwrap()
        ))
        .await;
    assert_eq!(code, 200);
    let update = server
        .send("PUT", &format!("{notes}/a"), Some(&note("a", "changed")))
        .await;
    assert_eq!(update.code, 200, "{}", update.text());
    use http_body_util::BodyExt;
    let frame = tokio::time::timeout(Duration::from_secs(10), body.frame())
        .await
        .expect("a watch event")
        .unwrap()
        .unwrap();
    let event: Value = serde_json::from_slice(&frame.into_data().unwrap()).unwrap();
    assert_eq!(event["type"], "MODIFIED");
    assert_eq!(event["object"]["spec"]["text"], "changed");
    drop(body);

    // A namespace's deletion deletes the custom resources in it.
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "scratch"}});
    assert_eq!(
        server
            .send("POST", "/api/v1/namespaces", Some(&ns))
            .await
            .code,
        201
    );
    let scratch = "/apis/example.com/v1/namespaces/scratch/notes";
    assert_eq!(
        server
            .send("POST", scratch, Some(&note("n", "x")))
            .await
            .code,
        201
    );
    server
        .send("DELETE", "/api/v1/namespaces/scratch", None)
        .await;
    let mut gone = false;
    for _ in 0..100 {
        if server
            .send("GET", "/api/v1/namespaces/scratch", None)
            .await
            .code
            == 404
        {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(gone, "the namespace was not finalized");
    assert_eq!(
        server.send("GET", &format!("{scratch}/n"), None).await.code,
        404
    );

    // Deleting the CRD: its objects go, then the CRD and its paths.
    let path = format!("{CRDS}/notes.example.com");
    let deleting = server.send("DELETE", &path, None).await;
    assert_eq!(deleting.code, 200);
    let mut gone = false;
    for _ in 0..100 {
        if server.send("GET", &path, None).await.code == 404 {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(gone, "the CRD was not deleted");
    assert_eq!(server.send("GET", notes, None).await.code, 404);
    assert_eq!(
        server.send("GET", "/apis/example.com/v1", None).await.code,
        404
    );
}

/// Runs a server in this process (its own thread and runtime) on a fresh data directory
/// with memory storage; the sender stops it.
fn in_process() -> (
    Server,
    tokio::sync::oneshot::Sender<()>,
    std::thread::JoinHandle<()>,
) {
    use kcel_apiserver::server::{Options, Server as ApiServer, StorageKind};
    let dir = std::sync::Arc::new(tempfile::tempdir().unwrap());
    let options = Options {
        data_dir: dir.path().to_owned(),
        listen: "127.0.0.1:0".parse().unwrap(),
        storage: StorageKind::Memory,
        verbosity: 0,
        token_auth_file: None,
        authorization_rules: None,
        compaction_interval: Duration::ZERO,
        feature_gates: Default::default(),
        etcd_servers: Vec::new(),
        audit_log_path: None,
        cel_memory_limit: Options::DEFAULT_CEL_MEMORY_LIMIT,
        default_watch_cache_size: kcel_apiserver::storage::cache::RING_CAPACITY,
        watch_cache_sizes: Vec::new(),
        webhook_service_addresses: Default::default(),
        service_network: Default::default(),
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (bound, ready) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let server = ApiServer::bind(&options).await.unwrap();
            bound.send(()).unwrap();
            server
                .serve(async move {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
        });
    });
    ready.recv().unwrap();
    (Server::attach(dir), stop, thread)
}

// Each server owns its CRD registry: a CRD created in one server of a process is not
// served by another, and the same CRD name can mean different things in each.
#[tokio::test]
async fn two_servers_in_one_process_serve_their_own_crds() {
    let (a, stop_a, thread_a) = in_process();
    let (b, stop_b, thread_b) = in_process();
    let notes = "/apis/example.com/v1/namespaces/default/notes";
    let created = a.send("POST", CRDS, Some(&crd())).await;
    assert_eq!(created.code, 201, "{}", created.text());
    assert_eq!(a.send("GET", notes, None).await.code, 200);
    assert_eq!(b.send("GET", notes, None).await.code, 404);
    let groups = |reply: support::Reply| -> Vec<String> {
        reply.json()["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(groups(a.send("GET", "/apis", None).await).contains(&"example.com".to_owned()));
    assert!(!groups(b.send("GET", "/apis", None).await).contains(&"example.com".to_owned()));
    // The same CRD name, cluster-scoped in the second server.
    let mut cluster = crd();
    cluster["spec"]["scope"] = json!("Cluster");
    let created = b.send("POST", CRDS, Some(&cluster)).await;
    assert_eq!(created.code, 201, "{}", created.text());
    assert_eq!(
        b.send("GET", "/apis/example.com/v1/notes", None).await.code,
        200
    );
    assert_eq!(b.send("GET", notes, None).await.code, 404);
    let posted = a.send("POST", notes, Some(&note("n1", "hello"))).await;
    assert_eq!(posted.code, 201, "{}", posted.text());
    assert_eq!(
        a.send("GET", "/apis/example.com/v1/notes", None)
            .await
            .json()["items"][0]["metadata"]["name"],
        "n1"
    );
    // Deleting the CRD in the first server leaves the second one's.
    let deleted = a
        .send("DELETE", &format!("{CRDS}/notes.example.com"), None)
        .await;
    assert_eq!(deleted.code, 200, "{}", deleted.text());
    let start = std::time::Instant::now();
    while a.send("GET", notes, None).await.code != 404 {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the CRD was not deleted"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        b.send("GET", "/apis/example.com/v1/notes", None).await.code,
        200
    );
    stop_a.send(()).unwrap();
    stop_b.send(()).unwrap();
    thread_a.join().unwrap();
    thread_b.join().unwrap();
}

/// A PUT naming another uid than the stored object's is upstream's 409 (on the default
/// SQLite store; `etcd_servers.rs` runs the same check on etcd).
#[tokio::test]
async fn a_put_naming_another_uid_is_a_conflict() {
    support::uid_precondition::put_naming_another_uid_is_a_conflict(&Server::start(&[])).await;
}
