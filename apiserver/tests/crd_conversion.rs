//! Webhook conversion of custom resources (issue 20): a CRD with versions v1 (storage) and
//! v2 whose `spec.conversion` names a loopback HTTPS webhook run by the test itself (its own
//! self-signed CA given as `caBundle`), converting `spec.cronSpec` (v1) ⇄ `spec.schedule`
//! (v2). Real kubectl 1.37 reads and writes both versions; the HTTP tests check lists and
//! watches of the non-storage version, the review the server sends, each failure with
//! upstream's text (apiextensions-apiserver `pkg/apiserver/conversion/webhook_converter.go`)
//! and the CRD write checks of the conversion stanza (`validateCustomResourceConversion`); the
//! Python client reads the non-storage version. Without kubectl or Python those tests skip
//! visibly (and fail under `CI=true`).

mod support;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::{Value, json};
use support::{Kubectl, Server};

/// What the test webhook answers.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// Converts as asked.
    Convert,
    /// Answers another uid.
    WrongUid,
    /// `result.status: Failure` with a message.
    FailWithMessage,
    /// `result.status: Failure` without one.
    FailBare,
    /// Two objects for one.
    TwoObjects,
    /// Renames the object.
    Rename,
    /// Converts, adding a label and bumping `generation` (only the label stays).
    Relabel,
    /// Converts to the wrong version.
    WrongVersion,
    /// Converts, adding a label whose key is not a qualified name and an annotation whose
    /// key is not one either.
    BadMetadata,
    /// HTTP 500 with a text body.
    ServerError,
}

/// A loopback HTTPS conversion webhook with its own CA.
struct Webhook {
    address: SocketAddr,
    ca_pem: String,
    mode: Arc<Mutex<Mode>>,
    /// Every review received, with the request target (`/convert?timeout=30s`).
    seen: Arc<Mutex<Vec<(String, Value)>>>,
    /// The `User-Agent` of each review received.
    agents: Arc<Mutex<Vec<String>>>,
    /// How many TCP connections were accepted.
    connections: Arc<std::sync::atomic::AtomicUsize>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for Webhook {
    fn drop(&mut self) {
        // Tests drop it inside their own runtime, where a blocking shutdown is not allowed.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

fn convert_object(object: &Value, desired: &str) -> Value {
    let mut out = object.clone();
    out["apiVersion"] = json!(desired);
    if let Some(spec) = out.get_mut("spec").and_then(Value::as_object_mut) {
        if desired.ends_with("/v2") {
            if let Some(v) = spec.remove("cronSpec") {
                spec.insert("schedule".into(), v);
            }
        } else if let Some(v) = spec.remove("schedule") {
            spec.insert("cronSpec".into(), v);
        }
    }
    out
}

fn answer(mode: Mode, review: &Value) -> (u16, Value) {
    let request = &review["request"];
    let desired = request["desiredAPIVersion"].as_str().unwrap_or("");
    let mut objects: Vec<Value> = request["objects"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| convert_object(o, desired))
        .collect();
    let mut uid = request["uid"].clone();
    let mut result = json!({"status": "Success"});
    match mode {
        Mode::Convert => {}
        Mode::WrongUid => uid = json!("not-the-uid"),
        Mode::FailWithMessage => {
            result = json!({"status": "Failure", "message": "refusing to convert"})
        }
        Mode::FailBare => result = json!({"status": "Failure"}),
        Mode::TwoObjects => objects.push(objects[0].clone()),
        Mode::Rename => objects[0]["metadata"]["name"] = json!("other"),
        Mode::Relabel => {
            objects[0]["metadata"]["labels"] = json!({"converted": "yes"});
            objects[0]["metadata"]["generation"] = json!(99);
        }
        Mode::WrongVersion => objects[0]["apiVersion"] = json!("conv.example.com/v9"),
        Mode::BadMetadata => {
            objects[0]["metadata"]["labels"] = json!({"bad key": "x", "ok": "-bad-value"});
            objects[0]["metadata"]["annotations"] = json!({"a/b/c": "v"});
        }
        Mode::ServerError => return (500, json!("boom")),
    }
    (
        200,
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
               "response": {"uid": uid, "result": result, "convertedObjects": objects}}),
    )
}

/// A number for each CA made, so that no two test CAs share a name.
fn next_ca() -> usize {
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Webhook {
    fn start() -> Webhook {
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params.distinguished_name.push(
            rcgen::DnType::CommonName,
            format!("test-webhook-ca-{}", next_ca()),
        );
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let leaf_params = rcgen::CertificateParams::new(vec![
            "127.0.0.1".to_owned(),
            "conv.webhooks.svc".to_owned(),
        ])
        .unwrap();
        let leaf_key = rcgen::KeyPair::generate().unwrap();
        let issuer = rcgen::Issuer::new(ca_params, &ca_key);
        let leaf = leaf_params.signed_by(&leaf_key, &issuer).unwrap();
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from_pem_slice(leaf.pem().as_bytes()).unwrap()],
            PrivateKeyDer::from_pem_slice(leaf_key.serialize_pem().as_bytes()).unwrap(),
        )
        .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let listener = {
            let _inside = runtime.enter();
            tokio::net::TcpListener::from_std(listener).unwrap()
        };
        let address = listener.local_addr().unwrap();
        let mode = Arc::new(Mutex::new(Mode::Convert));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let agents = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (m, s, a, c) = (
            mode.clone(),
            seen.clone(),
            agents.clone(),
            connections.clone(),
        );
        runtime.spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    return;
                };
                c.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let (acceptor, m, s, a) = (acceptor.clone(), m.clone(), s.clone(), a.clone());
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let service = hyper::service::service_fn(
                        move |request: hyper::Request<hyper::body::Incoming>| {
                            let (m, s, a) = (m.clone(), s.clone(), a.clone());
                            async move {
                                let target = request.uri().to_string();
                                let agent = request
                                    .headers()
                                    .get("user-agent")
                                    .and_then(|v| v.to_str().ok())
                                    .unwrap_or("")
                                    .to_owned();
                                a.lock().unwrap().push(agent);
                                let body = request.into_body().collect().await?.to_bytes();
                                let review: Value =
                                    serde_json::from_slice(&body).unwrap_or(Value::Null);
                                s.lock().unwrap().push((target, review.clone()));
                                let mode = *m.lock().unwrap();
                                let (code, body) = answer(mode, &review);
                                let (bytes, content_type) = match body {
                                    Value::String(text) => (text.into_bytes(), "text/plain"),
                                    other => {
                                        (serde_json::to_vec(&other).unwrap(), "application/json")
                                    }
                                };
                                Ok::<_, hyper::Error>(
                                    hyper::Response::builder()
                                        .status(code)
                                        .header("content-type", content_type)
                                        .body(Full::new(Bytes::from(bytes)))
                                        .unwrap(),
                                )
                            }
                        },
                    );
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                        .await;
                });
            }
        });
        Webhook {
            address,
            ca_pem: ca_cert.pem(),
            mode,
            seen,
            agents,
            connections,
            runtime: Some(runtime),
        }
    }

    fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
    }

    fn ca_bundle(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.ca_pem)
    }

    fn url(&self) -> String {
        format!("https://{}/convert", self.address)
    }

    fn seen(&self) -> Vec<(String, Value)> {
        self.seen.lock().unwrap().clone()
    }

    fn connections(&self) -> usize {
        self.connections.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// The Widget CRD converting through `client_config`.
fn crd(client_config: Value) -> Value {
    let schema = |field: &str| {
        json!({"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                field: {"type": "string"}, "replicas": {"type": "integer"}}}}}})
    };
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.conv.example.com"},
        "spec": {
            "group": "conv.example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [
                {"name": "v1", "served": true, "storage": true, "schema": schema("cronSpec")},
                {"name": "v2", "served": true, "storage": false, "schema": schema("schedule")}
            ],
            "conversion": {"strategy": "Webhook", "webhook": {
                "clientConfig": client_config, "conversionReviewVersions": ["v1"]}}
        }
    })
}

fn url_config(hook: &Webhook) -> Value {
    json!({"url": hook.url(), "caBundle": hook.ca_bundle()})
}

/// apimachinery `IsQualifiedName`'s message for a bad name part.
const QUALIFIED: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/// apimachinery `IsValidLabelValue`'s message for a bad value.
const LABEL_VALUE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const V1: &str = "/apis/conv.example.com/v1/namespaces/default/widgets";
const V2: &str = "/apis/conv.example.com/v2/namespaces/default/widgets";

fn widget_v2(name: &str, schedule: &str) -> Value {
    json!({"apiVersion": "conv.example.com/v2", "kind": "Widget",
           "metadata": {"name": name}, "spec": {"schedule": schedule, "replicas": 1}})
}

async fn create_crd(server: &Server, crd: &Value) {
    let r = server
        .send(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            Some(crd),
        )
        .await;
    assert_eq!(r.code, 201, "{}", r.text());
}

/// Lists, gets, watches and writes of v2 go through the webhook; the stored object is v1.
#[tokio::test]
async fn the_non_storage_version_is_read_and_written_through_the_webhook() {
    let hook = Webhook::start();
    let server = Server::start(&[]);
    create_crd(&server, &crd(url_config(&hook))).await;
    let r = server.send("POST", V2, Some(&widget_v2("w1", "*/5"))).await;
    assert_eq!(r.code, 201, "{}", r.text());
    let created = r.json();
    assert_eq!(created["apiVersion"], "conv.example.com/v2");
    assert_eq!(created["spec"], json!({"schedule": "*/5", "replicas": 1}));
    // Stored in v1: read through v1 without a webhook call, cronSpec holds the value.
    let calls = hook.seen().len();
    let v1 = server.send("GET", &format!("{V1}/w1"), None).await.json();
    assert_eq!(v1["spec"], json!({"cronSpec": "*/5", "replicas": 1}));
    assert_eq!(
        hook.seen().len(),
        calls,
        "a read of the storage version calls no webhook"
    );
    // The create sent v2 → v1, then read the stored v1 back → v2.
    let seen = hook.seen();
    let (target, review) = &seen[0];
    assert_eq!(target, "/convert?timeout=30s");
    assert_eq!(review["apiVersion"], "apiextensions.k8s.io/v1");
    assert_eq!(review["kind"], "ConversionReview");
    assert_eq!(
        review["request"]["desiredAPIVersion"],
        "conv.example.com/v1"
    );
    assert_eq!(review["request"]["uid"].as_str().unwrap().len(), 36);
    assert_eq!(review["request"]["objects"][0]["spec"]["schedule"], "*/5");
    assert_eq!(
        seen[1].1["request"]["desiredAPIVersion"],
        "conv.example.com/v2"
    );

    // A list and a watch of v2 convert each object.
    server
        .send(
            "POST",
            V1,
            Some(
                &json!({"apiVersion": "conv.example.com/v1", "kind": "Widget",
        "metadata": {"name": "w2"}, "spec": {"cronSpec": "@daily"}}),
            ),
        )
        .await;
    let before = hook.seen().len();
    let list = server.send("GET", V2, None).await.json();
    // As kube-apiserver: its storage decodes each listed object into the version asked for
    // (k8s.io/apiserver `pkg/storage/etcd3/store.go` getNewItemFunc gives each item the
    // list's apiVersion, and the versioning codec converts to it), so each object is its
    // own review; the list's own conversion then finds nothing left to send.
    let reviews: Vec<usize> = hook.seen()[before..]
        .iter()
        .map(|(_, r)| r["request"]["objects"].as_array().unwrap().len())
        .collect();
    assert_eq!(reviews, [1, 1]);
    let schedules: Vec<&Value> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["spec"]["schedule"])
        .collect();
    assert_eq!(schedules, [&json!("*/5"), &json!("@daily")]);
    assert_eq!(list["apiVersion"], "conv.example.com/v2");
    let (code, mut body) = server
        .stream(&format!("{V2}?watch=true&timeoutSeconds=5"))
        .await;
    assert_eq!(code, 200);
    let events = support::read_events(&mut body, 2).await;
    assert_eq!(events[1]["object"]["spec"]["schedule"], "@daily");
    assert_eq!(events[1]["object"]["apiVersion"], "conv.example.com/v2");

    // An update through v2 (merge patch) stores v1.
    let r = server
        .send_with(
            "PATCH",
            &format!("{V2}/w1"),
            Some(br#"{"spec":{"schedule":"*/7"}}"#.to_vec()),
            &[("content-type", "application/merge-patch+json")],
        )
        .await;
    assert_eq!(r.code, 200, "{}", r.text());
    assert_eq!(r.json()["spec"]["schedule"], "*/7");
    let v1 = server.send("GET", &format!("{V1}/w1"), None).await.json();
    assert_eq!(v1["spec"]["cronSpec"], "*/7");

    // Only labels and annotations may change in metadata: the rest is restored.
    hook.set(Mode::Relabel);
    let got = server.send("GET", &format!("{V2}/w1"), None).await.json();
    assert_eq!(got["metadata"]["labels"], json!({"converted": "yes"}));
    assert_eq!(got["metadata"]["generation"], v1["metadata"]["generation"]);
    assert_eq!(
        got["metadata"]["resourceVersion"],
        v1["metadata"]["resourceVersion"]
    );
}

/// One client per webhook configuration keeps its connection between calls (upstream's
/// `ClientManager` cache and Go's keep-alive transport); a changed `caBundle` makes another
/// client, which connects anew.
#[tokio::test]
async fn webhook_connections_are_kept_between_calls() {
    let hook = Webhook::start();
    let server = Server::start(&[]);
    create_crd(&server, &crd(url_config(&hook))).await;
    let r = server.send("POST", V2, Some(&widget_v2("w1", "*/5"))).await;
    assert_eq!(r.code, 201, "{}", r.text());
    for _ in 0..5 {
        let r = server.send("GET", &format!("{V2}/w1"), None).await;
        assert_eq!(r.code, 200, "{}", r.text());
    }
    assert_eq!(
        hook.seen().len(),
        7,
        "a create (two reviews) and five reads"
    );
    assert_eq!(hook.connections(), 1, "one connection for every call");
    assert!(
        hook.agents
            .lock()
            .unwrap()
            .iter()
            .all(|a| a == "kube-apiserver-admission"),
        "{:?}",
        hook.agents.lock().unwrap()
    );
    // The same CA with a trailing newline: another caBundle, another client.
    let path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.conv.example.com";
    let mut changed = server.send("GET", path, None).await.json();
    changed["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"] =
        json!(base64::engine::general_purpose::STANDARD.encode(format!("{}\n", hook.ca_pem)));
    let r = server.send("PUT", path, Some(&changed)).await;
    assert_eq!(r.code, 200, "{}", r.text());
    // The registry follows the store: wait for the new config to be served.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let r = server.send("GET", &format!("{V2}/w1"), None).await;
        assert_eq!(r.code, 200, "{}", r.text());
        if hook.connections() == 2 || std::time::Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(hook.connections(), 2);
    for _ in 0..3 {
        server.send("GET", &format!("{V2}/w1"), None).await;
    }
    assert_eq!(
        hook.connections(),
        2,
        "the new client keeps its connection too"
    );
}

/// Each failure of the webhook answers 500 with upstream's text, on reads and writes.
#[tokio::test]
async fn webhook_failures_answer_500_with_upstreams_texts() {
    let hook = Webhook::start();
    let server = Server::start(&[]);
    create_crd(&server, &crd(url_config(&hook))).await;
    let r = server.send("POST", V2, Some(&widget_v2("w1", "*/5"))).await;
    assert_eq!(r.code, 201, "{}", r.text());
    let get = |mode: Mode| {
        hook.set(mode);
        let server = &server;
        async move {
            let r = server.send("GET", &format!("{V2}/w1"), None).await;
            assert_eq!(r.code, 500, "{mode:?}: {}", r.text());
            let status = r.json();
            assert_eq!(status["reason"], Value::Null, "{status}");
            assert_eq!(status["code"], 500);
            status["message"].as_str().unwrap().to_owned()
        }
    };
    let prefix = "conversion webhook for conv.example.com/v1, Kind=Widget";
    let message = get(Mode::WrongUid).await;
    let uid = hook.seen().last().unwrap().1["request"]["uid"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        message,
        format!("{prefix} failed: expected response.uid=\"{uid}\", got \"not-the-uid\"")
    );
    assert_eq!(
        get(Mode::FailWithMessage).await,
        format!("{prefix} failed: refusing to convert")
    );
    assert_eq!(
        get(Mode::FailBare).await,
        format!("{prefix} failed: response.result.status was 'Failure', not 'Success'")
    );
    assert_eq!(
        get(Mode::TwoObjects).await,
        format!("{prefix} returned 2 objects, expected 1")
    );
    assert_eq!(
        get(Mode::Rename).await,
        format!("{prefix} returned invalid object: must have the same name: w1 != other")
    );
    assert_eq!(
        get(Mode::WrongVersion).await,
        format!(
            "{prefix} returned invalid object at index 0: invalid groupVersion (expected conv.example.com/v2, received conv.example.com/v9)"
        )
    );
    // Changed labels and annotations are validated (restoreObjectMeta: metav1validation
    // ValidateLabels at metadata.labels, ValidateAnnotations at metadata.annotation).
    assert_eq!(
        get(Mode::BadMetadata).await,
        format!(
            "{prefix} returned invalid metadata: [metadata.labels: Invalid value: \"bad key\": {QUALIFIED}, metadata.labels: Invalid value: \"-bad-value\": {LABEL_VALUE}]"
        )
    );
    assert_eq!(
        get(Mode::ServerError).await,
        format!(
            "{prefix} failed: an error on the server (\"boom\") has prevented the request from succeeding"
        )
    );
    // Lists fail the same way; a write through v2 fails converting to the storage version.
    let r = server.send("GET", V2, None).await;
    assert_eq!(r.code, 500);
    hook.set(Mode::FailWithMessage);
    let r = server
        .send("POST", V2, Some(&widget_v2("w2", "@daily")))
        .await;
    assert_eq!(r.code, 500);
    assert_eq!(
        r.json()["message"],
        "conversion webhook for conv.example.com/v2, Kind=Widget failed: refusing to convert"
    );
    assert_eq!(
        server.send("GET", &format!("{V1}/w2"), None).await.code,
        404,
        "nothing stored"
    );
    // A watch of v2 ends with an ERROR event carrying the failure.
    let (code, mut body) = server
        .stream(&format!("{V2}?watch=true&timeoutSeconds=5"))
        .await;
    assert_eq!(code, 200);
    let events = support::read_events(&mut body, 1).await;
    assert_eq!(events[0]["type"], "ERROR");
    assert_eq!(
        events[0]["object"]["message"],
        format!("{prefix} failed: refusing to convert")
    );
}

/// The caBundle is the only trust; a webhook that is gone fails as Go's dialer says.
#[tokio::test]
async fn unknown_authorities_and_closed_ports_fail_as_gos_client() {
    let hook = Webhook::start();
    let other = Webhook::start();
    let server = Server::start(&[]);
    // Trusting another CA than the one that signed the webhook's certificate.
    create_crd(
        &server,
        &crd(json!({"url": hook.url(), "caBundle": other.ca_bundle()})),
    )
    .await;
    let r = server.send("POST", V2, Some(&widget_v2("w1", "*/5"))).await;
    assert_eq!(r.code, 500);
    assert_eq!(
        r.json()["message"],
        format!(
            "conversion webhook for conv.example.com/v2, Kind=Widget failed: Post \"{}?timeout=30s\": tls: failed to verify certificate: x509: certificate signed by unknown authority",
            hook.url()
        )
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut gone = crd(
        json!({"url": format!("https://127.0.0.1:{port}/convert"), "caBundle": hook.ca_bundle()}),
    );
    gone["metadata"]["name"] = json!("gadgets.conv.example.com");
    gone["spec"]["names"] = json!({"plural": "gadgets", "kind": "Gadget"});
    create_crd(&server, &gone).await;
    let r = server
        .send("POST", "/apis/conv.example.com/v2/namespaces/default/gadgets",
            Some(&json!({"apiVersion": "conv.example.com/v2", "kind": "Gadget", "metadata": {"name": "g"}})))
        .await;
    assert_eq!(r.code, 500);
    assert_eq!(
        r.json()["message"],
        format!(
            "conversion webhook for conv.example.com/v2, Kind=Gadget failed: Post \"https://127.0.0.1:{port}/convert?timeout=30s\": dial tcp 127.0.0.1:{port}: connect: connection refused"
        )
    );
}

/// A `service` reference goes where `--webhook-service-address` maps it, verified as
/// `<name>.<namespace>.svc`; an unmapped Service is not found.
#[tokio::test]
async fn services_resolve_through_the_address_flag() {
    let hook = Webhook::start();
    let mapping = format!(
        "webhooks/conv={},webhooks/other={}",
        hook.address, hook.address
    );
    let server = Server::start(&["--webhook-service-address", &mapping]);
    let service = json!({"service": {"namespace": "webhooks", "name": "conv", "path": "/convert"},
                         "caBundle": hook.ca_bundle()});
    create_crd(&server, &crd(service)).await;
    let stored = server
        .send(
            "GET",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.conv.example.com",
            None,
        )
        .await
        .json();
    assert_eq!(
        stored["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["port"],
        443
    );
    let r = server.send("POST", V2, Some(&widget_v2("w1", "*/5"))).await;
    assert_eq!(r.code, 201, "{}", r.text());
    assert_eq!(hook.seen()[0].0, "/convert?timeout=30s");

    // A Service whose name the certificate does not hold: crypto/x509's HostnameError.
    let mut misnamed = crd(
        json!({"service": {"namespace": "webhooks", "name": "other", "path": "/convert"},
                                  "caBundle": hook.ca_bundle()}),
    );
    misnamed["metadata"]["name"] = json!("gizmos.conv.example.com");
    misnamed["spec"]["names"] = json!({"plural": "gizmos", "kind": "Gizmo"});
    create_crd(&server, &misnamed).await;
    let r = server
        .send("POST", "/apis/conv.example.com/v2/namespaces/default/gizmos",
            Some(&json!({"apiVersion": "conv.example.com/v2", "kind": "Gizmo", "metadata": {"name": "g"}})))
        .await;
    assert_eq!(r.code, 500);
    assert_eq!(
        r.json()["message"],
        "conversion webhook for conv.example.com/v2, Kind=Gizmo failed: Post \"https://other.webhooks.svc:443/convert?timeout=30s\": tls: failed to verify certificate: x509: certificate is valid for conv.webhooks.svc, not other.webhooks.svc"
    );

    let mut unmapped = crd(
        json!({"service": {"namespace": "webhooks", "name": "missing"},
                                  "caBundle": hook.ca_bundle()}),
    );
    unmapped["metadata"]["name"] = json!("gadgets.conv.example.com");
    unmapped["spec"]["names"] = json!({"plural": "gadgets", "kind": "Gadget"});
    create_crd(&server, &unmapped).await;
    let r = server
        .send("POST", "/apis/conv.example.com/v2/namespaces/default/gadgets",
            Some(&json!({"apiVersion": "conv.example.com/v2", "kind": "Gadget", "metadata": {"name": "g"}})))
        .await;
    assert_eq!(r.code, 500);
    assert_eq!(
        r.json()["message"],
        "conversion webhook for conv.example.com/v2, Kind=Gadget failed: Post \"https://missing.webhooks.svc:443?timeout=30s\": service \"missing\" not found"
    );
}

/// The conversion stanza is checked at CRD write time with upstream's texts.
#[tokio::test]
async fn crd_writes_check_the_conversion_stanza() {
    let server = Server::start(&[]);
    let mut bad = crd(json!({"url": "http://h/convert?x=1"}));
    bad["spec"]["conversion"]["webhook"]["conversionReviewVersions"] = json!(["v3"]);
    let r = server
        .send(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            Some(&bad),
        )
        .await;
    assert_eq!(r.code, 422, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "CustomResourceDefinition.apiextensions.k8s.io \"widgets.conv.example.com\" is invalid: [\
spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path], \
spec.conversion.webhookClientConfig.url: Invalid value: \"x=1\": query parameters are not permitted in the URL, \
spec.conversion.conversionReviewVersions: Invalid value: []string{\"v3\"}: must include at least one of v1, v1beta1]"
    );
    let causes = &r.json()["details"]["causes"];
    assert_eq!(
        causes[2]["field"],
        "spec.conversion.conversionReviewVersions"
    );
    assert_eq!(causes[2]["reason"], "FieldValueInvalid");
}

/// kubectl applies and gets both versions; a failing webhook prints upstream's text.
#[test]
fn kubectl_reads_and_writes_both_versions() {
    let Some(kubectl) = Kubectl::start("kubectl_reads_and_writes_both_versions") else {
        return;
    };
    let hook = Webhook::start();
    let crd = serde_json::to_string(&crd(url_config(&hook))).unwrap();
    assert_eq!(
        kubectl.applied(&crd),
        "customresourcedefinition.apiextensions.k8s.io/widgets.conv.example.com created\n"
    );
    kubectl.ok(&[
        "wait",
        "--for",
        "condition=established",
        "--timeout=30s",
        "crd/widgets.conv.example.com",
    ]);
    let v2 = "apiVersion: conv.example.com/v2\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  schedule: '*/5'\n  replicas: 1\n";
    assert_eq!(kubectl.applied(v2), "widget.conv.example.com/w1 created\n");
    let got = kubectl.json(&["get", "widgets.v1.conv.example.com", "w1"]);
    assert_eq!(got["spec"], json!({"cronSpec": "*/5", "replicas": 1}));
    let got = kubectl.json(&["get", "widgets.v2.conv.example.com", "w1"]);
    assert_eq!(got["spec"], json!({"schedule": "*/5", "replicas": 1}));
    // Server-side apply through v2 changes the stored v1 object.
    let changed = v2.replace("'*/5'", "'*/9'");
    assert_eq!(
        kubectl.ok_stdin(&["apply", "--server-side", "-f", "-"], &changed),
        "widget.conv.example.com/w1 serverside-applied\n"
    );
    let got = kubectl.json(&["get", "widgets.v1.conv.example.com", "w1"]);
    assert_eq!(got["spec"]["cronSpec"], "*/9");
    // Client-side apply through v1 is read back through v2.
    let v1 = "apiVersion: conv.example.com/v1\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  cronSpec: '@daily'\n";
    assert_eq!(kubectl.applied(v1), "widget.conv.example.com/w2 created\n");
    let list = kubectl.json(&["get", "widgets.v2.conv.example.com"]);
    assert_eq!(list["items"][1]["spec"]["schedule"], "@daily");
    hook.set(Mode::FailWithMessage);
    assert_eq!(
        kubectl.fails(&["get", "widgets.v2.conv.example.com", "w1"]),
        "Error from server: conversion webhook for conv.example.com/v1, Kind=Widget failed: refusing to convert\n"
    );
    hook.set(Mode::BadMetadata);
    assert_eq!(
        kubectl.fails(&["get", "widgets.v2.conv.example.com", "w1"]),
        format!(
            "Error from server: conversion webhook for conv.example.com/v1, Kind=Widget returned invalid metadata: [metadata.labels: Invalid value: \"bad key\": {QUALIFIED}, metadata.labels: Invalid value: \"-bad-value\": {LABEL_VALUE}]\n"
        )
    );
}

/// The Python client reads the non-storage version; a failing webhook is its 500.
#[tokio::test]
async fn the_python_client_reads_the_non_storage_version() {
    let Some(python) = support::Python::find("the_python_client_reads_the_non_storage_version")
    else {
        return;
    };
    let hook = Webhook::start();
    let server = Server::start(&[]);
    create_crd(&server, &crd(url_config(&hook))).await;
    let r = server
        .send(
            "POST",
            V1,
            Some(
                &json!({"apiVersion": "conv.example.com/v1", "kind": "Widget",
        "metadata": {"name": "w1"}, "spec": {"cronSpec": "*/5", "replicas": 2}}),
            ),
        )
        .await;
    assert_eq!(r.code, 201, "{}", r.text());
    let ran = python.run(
        &server,
        "crd_conversion.py",
        &[],
        std::time::Duration::from_secs(60),
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(ran.stdout, "ok get\nok list\n", "{ran:?}");
    hook.set(Mode::FailWithMessage);
    let ran = python.run(
        &server,
        "crd_conversion.py",
        &["fail"],
        std::time::Duration::from_secs(60),
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(ran.stdout, "ok failed\n", "{ran:?}");
}
