//! The HTTP server, driven over HTTPS by a Rust client: health, authentication, kubeconfig,
//! discovery, ConfigMap CRUD with upstream's Status texts, paging, and restarts.

mod support;

use serde_json::{Value, json};
use support::{Auth, Server};

const CMS: &str = "/api/v1/namespaces/default/configmaps";

fn cm(name: &str, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data})
}

fn rv(object: &Value) -> i64 {
    object["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// Asserts a `Failure` status with this code, reason and message.
fn assert_failure(reply: &support::Reply, code: u16, reason: &str, message: &str) {
    assert_eq!(reply.code, code, "{}", reply.text());
    assert_eq!(reply.content_type, "application/json");
    let status = reply.json();
    assert_eq!(status["kind"], "Status");
    assert_eq!(status["apiVersion"], "v1");
    assert_eq!(status["status"], "Failure");
    assert_eq!(status["reason"], reason);
    assert_eq!(status["code"], code);
    assert_eq!(status["message"], message);
}

#[tokio::test]
async fn health_and_version_need_no_token() {
    let server = Server::start(&[]);
    for path in ["/livez", "/readyz", "/healthz"] {
        let reply = server.request("GET", path, None, Auth::None).await;
        assert_eq!((reply.code, reply.text().as_str()), (200, "ok"), "{path}");
    }
    let version = server.request("GET", "/version", None, Auth::None).await;
    assert_eq!(version.code, 200);
    let version = version.json();
    assert_eq!(
        (version["major"].as_str(), version["minor"].as_str()),
        (Some("1"), Some("37"))
    );
    assert!(
        version["gitVersion"]
            .as_str()
            .unwrap()
            .starts_with("v1.37.")
    );
}

/// The public paths are open to anonymous users by the default `system:public-info-viewer`
/// ClusterRoleBinding, as upstream's: without it they are 403 with kube-apiserver's text.
#[tokio::test]
async fn anonymous_reads_follow_the_public_info_viewer_binding() {
    let server = Server::start(&["--storage", "memory"]);
    let binding =
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:public-info-viewer";
    let got = server.request("GET", binding, None, Auth::Admin).await;
    assert_eq!(got.code, 200, "{}", got.text());
    let subjects = &got.json()["subjects"];
    assert_eq!(subjects[1]["name"], "system:unauthenticated", "{subjects}");
    let deleted = server.request("DELETE", binding, None, Auth::Admin).await;
    assert_eq!(deleted.code, 200, "{}", deleted.text());
    let reply = server.request("GET", "/healthz", None, Auth::None).await;
    assert_failure(
        &reply,
        403,
        "Forbidden",
        "forbidden: User \"system:anonymous\" cannot get path \"/healthz\"",
    );
}

#[tokio::test]
async fn requests_without_a_valid_token_get_401() {
    let server = Server::start(&[]);
    let cases = [
        (CMS, Auth::None),
        (CMS, Auth::Token("wrong")),
        ("/api", Auth::None),
        ("/version", Auth::Token("wrong")),
        ("/nowhere", Auth::None),
    ];
    for (path, auth) in cases {
        let reply = server.request("GET", path, None, auth).await;
        assert_failure(&reply, 401, "Unauthorized", "Unauthorized");
        assert!(reply.json().get("details").is_none());
    }
    let with_token = server.send("GET", CMS, None).await;
    assert_eq!(with_token.code, 200);
}

#[tokio::test]
async fn the_kubeconfig_names_the_server_its_ca_and_the_admin_token() {
    let server = Server::start(&[]);
    let config = support::read_kubeconfig(&server.data_dir().join("kubeconfig"));
    assert_eq!(config["kind"], "Config");
    assert_eq!(config["current-context"], "kcel");
    assert_eq!(config["contexts"][0]["context"]["cluster"], "kcel");
    let token = std::fs::read_to_string(server.data_dir().join("admin-token")).unwrap();
    assert_eq!(token.trim(), server.token);
    assert!(server.url.starts_with("https://127.0.0.1:"));
    // The client trusted the server's certificate through the kubeconfig's CA alone.
    assert_eq!(server.send("GET", "/livez", None).await.code, 200);
}

#[tokio::test]
async fn legacy_discovery_lists_configmaps() {
    let server = Server::start(&[]);
    let api = server.send("GET", "/api", None).await.json();
    assert_eq!(api["kind"], "APIVersions");
    assert_eq!(api["versions"], json!(["v1"]));
    assert_eq!(
        api["serverAddressByClientCIDRs"][0]["serverAddress"],
        server.address.as_str()
    );
    let v1 = server.send("GET", "/api/v1", None).await.json();
    assert_eq!(v1["kind"], "APIResourceList");
    assert_eq!(v1["groupVersion"], "v1");
    let configmaps = v1["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "configmaps")
        .expect("configmaps is listed");
    assert_eq!(configmaps["kind"], "ConfigMap");
    assert_eq!(configmaps["singularName"], "configmap");
    assert_eq!(configmaps["namespaced"], true);
    assert_eq!(configmaps["shortNames"], json!(["cm"]));
    for verb in ["create", "delete", "get", "list", "update"] {
        assert!(
            configmaps["verbs"]
                .as_array()
                .unwrap()
                .contains(&json!(verb))
        );
    }
    let apis = server.send("GET", "/apis", None).await.json();
    assert_eq!(apis["kind"], "APIGroupList");
    let groups: Vec<&str> = apis["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        groups,
        [
            "apps",
            "events.k8s.io",
            "authentication.k8s.io",
            "authorization.k8s.io",
            "autoscaling",
            "batch",
            "rbac.authorization.k8s.io",
            "admissionregistration.k8s.io",
            "apiextensions.k8s.io",
            "coordination.k8s.io"
        ]
    );
}

#[tokio::test]
async fn configmap_create_get_list_update_delete() {
    let server = Server::start(&[]);
    // Create.
    let reply = server
        .send("POST", CMS, Some(&cm("demo", json!({"a": "1"}))))
        .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let created = reply.json();
    assert_eq!(created["kind"], "ConfigMap");
    assert_eq!(created["metadata"]["namespace"], "default");
    assert_eq!(created["data"], json!({"a": "1"}));
    let uid = created["metadata"]["uid"].as_str().unwrap().to_owned();
    assert_eq!(uid.len(), 36);
    let stamp = created["metadata"]["creationTimestamp"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(stamp.ends_with('Z') && stamp.len() == 20, "{stamp}");
    let rv1 = rv(&created);
    assert!(rv1 > 0);
    // Create again: AlreadyExists.
    let again = server.send("POST", CMS, Some(&cm("demo", json!({})))).await;
    assert_failure(
        &again,
        409,
        "AlreadyExists",
        r#"configmaps "demo" already exists"#,
    );
    assert_eq!(
        again.json()["details"],
        json!({"name": "demo", "kind": "configmaps"})
    );
    // Get.
    let got = server.send("GET", &format!("{CMS}/demo"), None).await;
    assert_eq!(got.code, 200);
    assert_eq!(got.json(), created);
    // List.
    server
        .send("POST", CMS, Some(&cm("other", json!({}))))
        .await;
    let list = server.send("GET", CMS, None).await.json();
    assert_eq!(list["kind"], "ConfigMapList");
    assert_eq!(list["apiVersion"], "v1");
    let items = list["items"].as_array().unwrap();
    assert_eq!(
        items
            .iter()
            .map(|i| i["metadata"]["name"].clone())
            .collect::<Vec<_>>(),
        [json!("demo"), json!("other")]
    );
    assert!(items[0].get("kind").is_none(), "list items carry no kind");
    assert_eq!(
        rv(&list),
        rv(&items[1]),
        "the list is served at the latest revision"
    );
    // Update with the current resourceVersion.
    let mut change = created.clone();
    change["data"] = json!({"a": "2"});
    let updated = server
        .send("PUT", &format!("{CMS}/demo"), Some(&change))
        .await;
    assert_eq!(updated.code, 200, "{}", updated.text());
    let updated = updated.json();
    assert_eq!(updated["data"], json!({"a": "2"}));
    assert!(rv(&updated) > rv1);
    assert_eq!(updated["metadata"]["uid"], uid.as_str());
    assert_eq!(updated["metadata"]["creationTimestamp"], stamp.as_str());
    // Update with a stale resourceVersion: Conflict.
    let stale = server
        .send("PUT", &format!("{CMS}/demo"), Some(&change))
        .await;
    assert_failure(
        &stale,
        409,
        "Conflict",
        "Operation cannot be fulfilled on configmaps \"demo\": the object has been modified; \
         please apply your changes to the latest version and try again",
    );
    // Update without a resourceVersion: unconditional; what it leaves out of the server-owned
    // fields is carried over (rest.BeforeUpdate).
    let blind = cm("demo", json!({"a": "3"}));
    let blind = server
        .send("PUT", &format!("{CMS}/demo"), Some(&blind))
        .await;
    assert_eq!(blind.code, 200, "{}", blind.text());
    assert_eq!(blind.json()["metadata"]["uid"], uid.as_str());
    assert_eq!(
        blind.json()["metadata"]["creationTimestamp"],
        stamp.as_str()
    );
    assert!(rv(&blind.json()) > rv(&updated));
    // ...but a patch cannot change them (ValidateObjectMetaAccessorUpdate).
    let forged = server
        .send_with(
            "PATCH",
            &format!("{CMS}/demo"),
            Some(br#"{"metadata":{"uid":"forged"}}"#.to_vec()),
            &[("content-type", "application/merge-patch+json")],
        )
        .await;
    assert_failure(
        &forged,
        422,
        "Invalid",
        "ConfigMap \"demo\" is invalid: metadata.uid: Invalid value: \"forged\": field is immutable",
    );
    assert_eq!(
        forged.json()["details"]["causes"],
        json!([{"reason": "FieldValueInvalid", "field": "metadata.uid",
                "message": "Invalid value: \"forged\": field is immutable"}])
    );
    // Delete.
    let deleted = server.send("DELETE", &format!("{CMS}/demo"), None).await;
    assert_eq!(deleted.code, 200, "{}", deleted.text());
    assert_eq!(
        deleted.json(),
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
               "details": {"name": "demo", "kind": "configmaps", "uid": uid}})
    );
    let gone = server.send("GET", &format!("{CMS}/demo"), None).await;
    assert_failure(&gone, 404, "NotFound", r#"configmaps "demo" not found"#);
    assert_eq!(
        gone.json()["details"],
        json!({"name": "demo", "kind": "configmaps"})
    );
    let again = server.send("DELETE", &format!("{CMS}/demo"), None).await;
    assert_failure(&again, 404, "NotFound", r#"configmaps "demo" not found"#);
    let missing = server
        .send("PUT", &format!("{CMS}/demo"), Some(&cm("demo", json!({}))))
        .await;
    assert_failure(&missing, 404, "NotFound", r#"configmaps "demo" not found"#);
}

#[tokio::test]
async fn namespaces_are_separate_and_listed_together() {
    let server = Server::start(&[]);
    for ns in ["a", "b"] {
        let namespace = json!({"metadata": {"name": ns}});
        let reply = server
            .send("POST", "/api/v1/namespaces", Some(&namespace))
            .await;
        assert_eq!(reply.code, 201, "{}", reply.text());
        let path = format!("/api/v1/namespaces/{ns}/configmaps");
        let reply = server
            .send("POST", &path, Some(&cm("same", json!({}))))
            .await;
        assert_eq!(reply.code, 201, "{}", reply.text());
    }
    let a = server
        .send("GET", "/api/v1/namespaces/a/configmaps", None)
        .await
        .json();
    assert_eq!(a["items"].as_array().unwrap().len(), 1);
    let all = server.send("GET", "/api/v1/configmaps", None).await.json();
    let namespaces: Vec<&str> = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["namespace"].as_str().unwrap())
        .collect();
    assert_eq!(namespaces, ["a", "b"]);
}

#[tokio::test]
async fn lists_page_with_limit_and_continue() {
    let server = Server::start(&["--storage", "memory"]);
    for name in ["c1", "c2", "c3", "c4", "c5"] {
        assert_eq!(
            server
                .send("POST", CMS, Some(&cm(name, json!({}))))
                .await
                .code,
            201
        );
    }
    let first = server
        .send("GET", &format!("{CMS}?limit=2"), None)
        .await
        .json();
    assert_eq!(first["metadata"]["remainingItemCount"], 3);
    let snapshot = rv(&first);
    // A write between pages is not seen by later pages.
    server.send("POST", CMS, Some(&cm("c0", json!({})))).await;
    let mut names: Vec<String> = Vec::new();
    let mut page = first;
    for _ in 0..5 {
        names.extend(
            page["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["metadata"]["name"].as_str().unwrap().to_owned()),
        );
        assert_eq!(rv(&page), snapshot);
        let Some(token) = page["metadata"]["continue"].as_str() else {
            break;
        };
        page = server
            .send("GET", &format!("{CMS}?limit=2&continue={token}"), None)
            .await
            .json();
    }
    assert_eq!(names, ["c1", "c2", "c3", "c4", "c5"]);
    let bad = server
        .send("GET", &format!("{CMS}?continue=%%%"), None)
        .await;
    assert_eq!(bad.code, 400);
    let bad = server.send("GET", &format!("{CMS}?limit=x"), None).await;
    assert_eq!(bad.code, 400);
}

#[tokio::test]
async fn bad_requests_get_upstreams_statuses() {
    let server = Server::start(&["--storage", "memory"]);
    server.send("POST", CMS, Some(&cm("demo", json!({})))).await;
    let renamed = server
        .send("PUT", &format!("{CMS}/demo"), Some(&cm("other", json!({}))))
        .await;
    assert_failure(
        &renamed,
        400,
        "BadRequest",
        "the name of the object (other) does not match the name on the URL (demo)",
    );
    let mut elsewhere = cm("x", json!({}));
    elsewhere["metadata"]["namespace"] = json!("kube-system");
    let reply = server.send("POST", CMS, Some(&elsewhere)).await;
    assert_failure(
        &reply,
        400,
        "BadRequest",
        "the namespace of the provided object does not match the namespace sent on the request",
    );
    let reply = server
        .send("POST", CMS, Some(&json!({"metadata": {}})))
        .await;
    assert_failure(
        &reply,
        422,
        "Invalid",
        r#"ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required"#,
    );
    let details = &reply.json()["details"];
    assert_eq!(details["kind"], "ConfigMap");
    assert_eq!(
        details["causes"],
        json!([{"reason": "FieldValueRequired", "message": "Required value: name or generateName is required", "field": "metadata.name"}])
    );
    let reply = server
        .send("POST", CMS, Some(&cm("Bad_Name", json!({}))))
        .await;
    assert_eq!(reply.code, 422);
    assert!(reply.json()["message"].as_str().unwrap().starts_with(
        "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"
    ));
    let reply = server
        .request("POST", CMS, Some(b"{not json".to_vec()), Auth::Admin)
        .await;
    assert_eq!(reply.code, 400);
    assert_eq!(reply.json()["reason"], "BadRequest");
    let wrong_kind = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}});
    assert_eq!(server.send("POST", CMS, Some(&wrong_kind)).await.code, 400);
    let huge = vec![b' '; 3 * 1024 * 1024 + 1];
    let reply = server.request("POST", CMS, Some(huge), Auth::Admin).await;
    assert_failure(
        &reply,
        413,
        "RequestEntityTooLarge",
        "Request entity too large: limit is 3145728",
    );
    let reply = server
        .send("GET", "/api/v1/namespaces/default/widgets", None)
        .await;
    assert_failure(
        &reply,
        404,
        "NotFound",
        "the server could not find the requested resource",
    );
    // A patch sent as plain JSON is not a patch type.
    let reply = server
        .send("PATCH", &format!("{CMS}/demo"), Some(&json!({})))
        .await;
    assert_failure(
        &reply,
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: \
         application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, \
         application/strategic-merge-patch+json",
    );
    let reply = server.send("PATCH", CMS, Some(&json!({}))).await;
    assert_failure(
        &reply,
        405,
        "MethodNotAllowed",
        r#"patch is not supported on resources of kind "configmaps""#,
    );
}

#[tokio::test]
async fn generate_name_makes_a_unique_name() {
    let server = Server::start(&["--storage", "memory"]);
    let body = json!({"metadata": {"generateName": "gen-"}});
    let a = server.send("POST", CMS, Some(&body)).await.json();
    let b = server.send("POST", CMS, Some(&body)).await.json();
    let (a, b) = (
        a["metadata"]["name"].as_str().unwrap().to_owned(),
        b["metadata"]["name"].as_str().unwrap().to_owned(),
    );
    assert!(a.starts_with("gen-") && a.len() == 9, "{a}");
    assert_ne!(a, b);
}

/// Issue 28: `generateName` is validated by the kind's name rule in prefix mode
/// (apimachinery `ValidateObjectMetaAccessor`: `nameFn(generateName, true)`), besides the
/// generated name: `NameIsDNSSubdomain` masks a trailing dash ("web-" is checked as "wea"),
/// rbac `ValidateRBACName` ignores the flag ("a/-" is checked as a name).
#[tokio::test]
async fn generate_name_is_validated_as_a_prefix() {
    let server = Server::start(&["--storage", "memory"]);
    let reply = server
        .send(
            "POST",
            CMS,
            Some(&json!({"metadata": {"generateName": "web-"}})),
        )
        .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let reply = server
        .send(
            "POST",
            CMS,
            Some(&json!({"metadata": {"generateName": "Web-"}})),
        )
        .await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric \
        characters, '-' or '.', and must start and end with an alphanumeric character (e.g. \
        'example.com', regex used for validation is \
        '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    let causes = reply.json()["details"]["causes"].clone();
    assert_eq!(
        causes[0],
        json!({"reason": "FieldValueInvalid", "field": "metadata.generateName",
               "message": format!("Invalid value: \"Web-\": {subdomain}")})
    );
    // The generated name ("Web-" and five random characters) is invalid too.
    assert_eq!(causes[1]["field"], "metadata.name");
    let name = causes[1]["message"].as_str().unwrap();
    assert!(
        name.starts_with("Invalid value: \"Web-") && name.ends_with(subdomain),
        "{name}"
    );
    let roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles";
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                      "metadata": {"generateName": "a/-"}});
    let reply = server.send("POST", roles, Some(&role)).await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    let causes = reply.json()["details"]["causes"].clone();
    assert_eq!(
        causes[0],
        json!({"reason": "FieldValueInvalid", "field": "metadata.generateName",
               "message": "Invalid value: \"a/-\": may not contain '/'"})
    );
}

#[tokio::test]
async fn a_restart_keeps_objects_resource_versions_certificates_and_token() {
    let server = Server::start(&[]);
    let mut before = Vec::new();
    for i in 0..5 {
        let reply = server
            .send(
                "POST",
                CMS,
                Some(&cm(&format!("keep-{i}"), json!({"i": i.to_string()}))),
            )
            .await;
        assert_eq!(reply.code, 201);
        before.push(reply.json());
    }
    let list_before = server.send("GET", CMS, None).await.json();
    let token = server.token.clone();
    let ca = std::fs::read(server.data_dir().join("pki/ca.crt")).unwrap();
    let dir = server.stop();
    let server = Server::start_in(dir, &[]);
    assert_eq!(server.token, token);
    assert_eq!(
        std::fs::read(server.data_dir().join("pki/ca.crt")).unwrap(),
        ca
    );
    for object in &before {
        let name = object["metadata"]["name"].as_str().unwrap();
        let got = server.send("GET", &format!("{CMS}/{name}"), None).await;
        assert_eq!(got.json(), *object);
    }
    assert_eq!(server.send("GET", CMS, None).await.json(), list_before);
    let next = server
        .send("POST", CMS, Some(&cm("after", json!({}))))
        .await
        .json();
    assert_eq!(rv(&next), rv(&list_before) + 1);
}

#[tokio::test]
async fn acknowledged_writes_survive_sigkill_of_the_server() {
    let server = Server::start(&[]);
    // Concurrent clients; every 201 is an acknowledged write.
    let server = std::sync::Arc::new(server);
    let tasks: Vec<_> = (0..4)
        .map(|client| {
            let server = server.clone();
            tokio::spawn(async move {
                let mut acknowledged = Vec::new();
                for i in 0..10 {
                    let name = format!("c{client}-{i}");
                    let reply = server.send("POST", CMS, Some(&cm(&name, json!({})))).await;
                    assert_eq!(reply.code, 201, "{}", reply.text());
                    acknowledged.push(reply.json());
                }
                acknowledged
            })
        })
        .collect();
    let mut acknowledged = Vec::new();
    for task in tasks {
        acknowledged.extend(task.await.unwrap());
    }
    let server = std::sync::Arc::into_inner(server).unwrap();
    let dir = server.kill();
    let server = Server::start_in(dir, &[]);
    for object in &acknowledged {
        let name = object["metadata"]["name"].as_str().unwrap();
        let got = server.send("GET", &format!("{CMS}/{name}"), None).await;
        assert_eq!(got.json(), *object);
    }
}

#[tokio::test]
async fn memory_storage_starts_empty_every_time() {
    let server = Server::start(&["--storage", "memory"]);
    server.send("POST", CMS, Some(&cm("x", json!({})))).await;
    let dir = server.stop();
    let server = Server::start_in(dir, &["--storage", "memory"]);
    let list = server.send("GET", CMS, None).await.json();
    assert_eq!(list["items"], json!([]));
}

#[tokio::test]
async fn a_second_server_on_the_same_data_directory_refuses_to_start() {
    let server = Server::start(&[]);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kcel-apiserver"))
        .arg("--data-dir")
        .arg(server.data_dir())
        .args(["--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is in use by another process"), "{stderr}");
    // The first server is unaffected.
    assert_eq!(server.send("GET", CMS, None).await.code, 200);
}

#[tokio::test]
async fn racing_updates_with_one_resource_version_have_one_winner() {
    let server = std::sync::Arc::new(Server::start(&[]));
    let created = server
        .send("POST", CMS, Some(&cm("race", json!({}))))
        .await
        .json();
    let tasks: Vec<_> = (0..6)
        .map(|i| {
            let (server, mut body) = (server.clone(), created.clone());
            body["data"] = json!({"writer": i.to_string()});
            tokio::spawn(async move {
                server
                    .send("PUT", &format!("{CMS}/race"), Some(&body))
                    .await
                    .code
            })
        })
        .collect();
    let mut codes = Vec::new();
    for task in tasks {
        codes.push(task.await.unwrap());
    }
    codes.sort();
    assert_eq!(codes, [200, 409, 409, 409, 409, 409]);
    let now = server
        .send("GET", &format!("{CMS}/race"), None)
        .await
        .json();
    assert_eq!(rv(&now), rv(&created) + 1);
}

#[tokio::test]
async fn discovery_is_aggregated_when_asked_for_first() {
    let server = Server::start(&["--storage", "memory"]);
    let v2 =
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    let core = server
        .send_with("GET", "/api", None, &[("accept", v2)])
        .await;
    assert_eq!(
        core.content_type,
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    );
    let core = core.json();
    assert_eq!(core["kind"], "APIGroupDiscoveryList");
    assert_eq!(core["apiVersion"], "apidiscovery.k8s.io/v2");
    let resources = &core["items"][0]["versions"][0]["resources"];
    let namespaces = resources
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["resource"] == "namespaces")
        .unwrap();
    assert_eq!(namespaces["scope"], "Cluster");
    assert_eq!(
        namespaces["responseKind"],
        json!({"group": "", "version": "v1", "kind": "Namespace"})
    );
    let groups = server
        .send_with("GET", "/apis", None, &[("accept", v2)])
        .await
        .json();
    assert_eq!(groups["items"][0]["metadata"]["name"], "apps");
    let first: Vec<(&str, &str)> = groups["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let version = &g["versions"][0];
            (
                version["version"].as_str().unwrap(),
                version["resources"][0]["resource"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        first,
        [
            ("v1", "daemonsets"),
            ("v1", "events"),
            ("v1", "selfsubjectreviews"),
            ("v1", "localsubjectaccessreviews"),
            ("v2", "horizontalpodautoscalers"),
            ("v1", "cronjobs"),
            ("v1", "clusterrolebindings"),
            ("v1", "validatingadmissionpolicies"),
            ("v1", "customresourcedefinitions"),
            ("v1", "leases"),
        ]
    );
    // A group of two versions lists both, the preferred first (autoscaling/v1 served by
    // conversion).
    let autoscaling = groups["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["metadata"]["name"] == "autoscaling")
        .unwrap();
    let versions: Vec<&str> = (autoscaling["versions"].as_array().unwrap().iter())
        .map(|v| v["version"].as_str().unwrap())
        .collect();
    assert_eq!(versions, ["v2", "v1"]);
    assert_eq!(
        autoscaling["versions"][1]["resources"][0]["responseKind"],
        json!({"group": "autoscaling", "version": "v1", "kind": "HorizontalPodAutoscaler"})
    );
    // Legacy documents otherwise.
    let apps = server.send("GET", "/apis/apps", None).await.json();
    assert_eq!(apps["preferredVersion"]["groupVersion"], "apps/v1");
    let v1 = server.send("GET", "/apis/apps/v1", None).await.json();
    let names: Vec<&str> = (v1["resources"].as_array().unwrap().iter())
        .filter_map(|r| r["name"].as_str())
        .collect();
    // The served apps/v1 resources, each followed by its subresources.
    assert_eq!(
        names,
        [
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/status",
            "deployments/scale",
            "replicasets",
            "replicasets/status",
            "replicasets/scale",
            "statefulsets",
            "statefulsets/status",
            "statefulsets/scale"
        ]
    );
}

#[tokio::test]
async fn review_bodies_are_decoded_as_creates_are() {
    let server = Server::start(&["--storage", "memory"]);
    const SARS: &str = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    let body = br#"{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
        "spec":{"user":"bob","userx":"x","resourceAttributes":{"verb":"get","resource":"pods"}}}"#;
    let send = |path: String, body: &'static [u8]| {
        let server = &server;
        async move {
            server
                .send_with(
                    "POST",
                    &path,
                    Some(body.to_vec()),
                    &[("content-type", "application/json")],
                )
                .await
        }
    };
    let warned = send(SARS.to_owned(), body).await;
    assert_eq!(warned.code, 201, "{}", warned.text());
    assert_eq!(
        warned.headers["warning"],
        r#"299 - "unknown field \"spec.userx\"""#
    );
    assert!(warned.json()["spec"].get("userx").is_none());
    let strict = send(format!("{SARS}?fieldValidation=Strict"), body).await;
    assert_failure(
        &strict,
        400,
        "BadRequest",
        "SubjectAccessReview in version \"v1\" cannot be handled as a SubjectAccessReview: \
         strict decoding error: unknown field \"spec.userx\"",
    );
    let wrong = br#"{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",
        "spec":{"token":5}}"#;
    let wrong = send(
        "/apis/authentication.k8s.io/v1/tokenreviews".to_owned(),
        wrong,
    )
    .await;
    assert_failure(
        &wrong,
        400,
        "BadRequest",
        "TokenReview in version \"v1\" cannot be handled as a TokenReview: json: cannot \
         unmarshal number into Go struct field TokenReviewSpec.spec.token of type string",
    );
}

#[tokio::test]
async fn openapi_v2_is_served_as_json_and_protobuf_with_etags() {
    let server = Server::start(&["--storage", "memory"]);
    let json = server.send("GET", "/openapi/v2", None).await;
    assert_eq!(json.code, 200);
    assert_eq!(json.headers["content-type"], "application/json");
    let doc = json.json();
    assert_eq!(doc["swagger"], "2.0");
    let review = &doc["definitions"]["io.k8s.api.authorization.v1.SubjectAccessReview"];
    assert_eq!(
        review["properties"]["spec"]["$ref"],
        "#/definitions/io.k8s.api.authorization.v1.SubjectAccessReviewSpec"
    );
    assert!(
        doc["definitions"]["io.k8s.api.core.v1.ConfigMap"]["x-kubernetes-group-version-kind"]
            .is_array()
    );
    // The served paths in v2 form: a PATCH with its query parameters and body.
    let patch = &doc["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
    let parameters = patch["parameters"].as_array().unwrap();
    assert_eq!(parameters[0]["in"], "body");
    assert!(
        parameters
            .iter()
            .any(|p| p["name"] == "fieldValidation" && p["type"] == "string"),
        "{patch}"
    );
    assert!(doc["paths"].get("/apis/apps/v1/deployments").is_some());
    // No upstream prose (a property named `description` stays).
    assert!(!json.text().contains("\"description\":\""));
    // kubectl's Accept (the older spelling with `@`); answered with kube-openapi's type.
    let accept = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
    let pb = server
        .send_with("GET", "/openapi/v2", None, &[("accept", accept)])
        .await;
    assert_eq!(pb.code, 200);
    assert_eq!(
        pb.headers["content-type"],
        "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
    );
    assert_eq!(pb.body.first(), Some(&0x0a), "field 1 (swagger) first");
    let etag = pb.headers["etag"].to_str().unwrap().to_owned();
    assert_ne!(etag, json.headers["etag"].to_str().unwrap());
    let again = server
        .send_with(
            "GET",
            "/openapi/v2",
            None,
            &[("accept", accept), ("if-none-match", &etag)],
        )
        .await;
    assert_eq!(again.code, 304);
}

#[tokio::test]
async fn openapi_v3_is_hashed_and_immutable() {
    let server = Server::start(&["--storage", "memory"]);
    let index = server.send("GET", "/openapi/v3", None).await.json();
    let url = index["paths"]["api/v1"]["serverRelativeURL"]
        .as_str()
        .unwrap()
        .to_owned();
    let hash = url.split("hash=").nth(1).unwrap().to_owned();
    assert_eq!(hash.len(), 128);
    let doc = server.send("GET", &url, None).await;
    assert_eq!(doc.code, 200);
    assert_eq!(doc.headers["etag"], format!("\"{hash}\"").as_str());
    assert_eq!(doc.headers["cache-control"], "public, immutable");
    let json = doc.json();
    assert_eq!(json["openapi"], "3.0.0");
    assert!(json["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"].is_object());
    assert!(!doc.text().contains("\"description\":"));
    let stale = server
        .send("GET", "/openapi/v3/api/v1?hash=ABC", None)
        .await;
    assert_eq!(stale.code, 301);
    assert_eq!(stale.headers["location"], url.as_str());
    // autoscaling/v1 is served (converted): its document too; a version not served is not.
    assert_eq!(
        server
            .send("GET", "/openapi/v3/apis/autoscaling/v1", None)
            .await
            .code,
        200
    );
    assert_eq!(
        server
            .send("GET", "/openapi/v3/apis/autoscaling/v2beta2", None)
            .await
            .code,
        404
    );
    // kube-apiserver's group: its versions, the preferred (v2) first.
    let group = server.send("GET", "/apis/autoscaling", None).await.json();
    assert_eq!(
        group["versions"],
        json!([{"groupVersion": "autoscaling/v2", "version": "v2"},
               {"groupVersion": "autoscaling/v1", "version": "v1"}])
    );
    assert_eq!(group["preferredVersion"]["version"], "v2");
}

/// A YAML body is read as sigs.k8s.io/yaml reads it (go-yaml v2's YAML 1.1 scalars): a plain
/// `y` is the boolean true, so the name is refused as kube-apiserver refuses it; quoted, it
/// is the name "y".
#[tokio::test]
async fn yaml_1_1_names_are_booleans() {
    let server = Server::start(&["--storage", "memory"]);
    let send = |name: &'static str| {
        let body = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n");
        server.send_with(
            "POST",
            CMS,
            Some(body.into_bytes()),
            &[("content-type", "application/yaml")],
        )
    };
    let refused = send("y").await;
    assert_eq!(refused.code, 400, "{}", refused.text());
    assert!(
        refused.text().contains(
            "cannot unmarshal bool into Go struct field ObjectMeta.metadata.name of type string"
        ),
        "{}",
        refused.text()
    );
    let created = send("'y'").await;
    assert_eq!(created.code, 201, "{}", created.text());
}

#[tokio::test]
async fn tables_yaml_bodies_and_metadata_only_lists() {
    let server = Server::start(&["--storage", "memory"]);
    // (`yml`, not `y`: go-yaml v2 reads a plain `y` as the boolean true, and kube-apiserver
    // then refuses `metadata.name: true`; see `yaml_1_1_names_are_booleans` below.)
    let yaml = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yml\ndata:\n  a: b\n".to_vec();
    let created = server
        .send_with(
            "POST",
            CMS,
            Some(yaml),
            &[("content-type", "application/yaml")],
        )
        .await;
    assert_eq!(created.code, 201, "{}", created.text());
    let table = server
        .send_with(
            "GET",
            CMS,
            None,
            &[(
                "accept",
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
            )],
        )
        .await
        .json();
    assert_eq!(table["kind"], "Table");
    assert_eq!(table["apiVersion"], "meta.k8s.io/v1");
    let columns: Vec<&str> = table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(columns, ["Name", "Data", "Age"]);
    assert_eq!(table["rows"][0]["cells"][0], "yml");
    assert_eq!(table["rows"][0]["cells"][1], 1);
    assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    let partial = server
        .send_with(
            "GET",
            CMS,
            None,
            &[(
                "accept",
                "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
            )],
        )
        .await
        .json();
    assert_eq!(partial["kind"], "PartialObjectMetadataList");
    assert_eq!(partial["items"][0]["metadata"]["name"], "yml");
    assert!(partial["items"][0].get("data").is_none());
    let refused = server
        .send_with(
            "GET",
            CMS,
            None,
            &[("accept", "application/vnd.kubernetes.protobuf")],
        )
        .await;
    assert_failure(
        &refused,
        406,
        "NotAcceptable",
        "only the following media types are accepted: application/json, application/yaml",
    );
    let proto = server
        .send_with(
            "POST",
            CMS,
            Some(b"k8s\0".to_vec()),
            &[("content-type", "application/vnd.kubernetes.protobuf")],
        )
        .await;
    assert_failure(
        &proto,
        400,
        "BadRequest",
        "the object provided is unrecognized (must be of type ConfigMap): \
         the protobuf envelope holds no object",
    );
    let text = server
        .send_with(
            "POST",
            CMS,
            Some(b"x".to_vec()),
            &[("content-type", "text/plain")],
        )
        .await;
    assert_failure(
        &text,
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: \
         application/json, application/yaml, application/vnd.kubernetes.protobuf",
    );
}

#[tokio::test]
async fn a_watch_streams_events_until_its_timeout() {
    let server = Server::start(&["--storage", "memory"]);
    server.send("POST", CMS, Some(&cm("w", json!({})))).await;
    let writer = async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let patch = br#"{"data":{"x":"y"}}"#.to_vec();
        let reply = server
            .send_with(
                "PATCH",
                &format!("{CMS}/w"),
                Some(patch),
                &[("content-type", "application/merge-patch+json")],
            )
            .await;
        assert_eq!(reply.code, 200, "{}", reply.text());
        server.send("DELETE", &format!("{CMS}/w"), None).await;
    };
    let path = format!(
        "{CMS}?watch=true&timeoutSeconds=2&allowWatchBookmarks=true&sendInitialEvents=true\
         &resourceVersionMatch=NotOlderThan&fieldSelector=metadata.name%3Dw"
    );
    let (reply, ()) = tokio::join!(server.send("GET", &path, None), writer);
    assert_eq!(reply.code, 200);
    let events: Vec<Value> = reply
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["ADDED", "BOOKMARK", "MODIFIED", "DELETED"]);
    assert_eq!(
        events[1]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
        "true"
    );
    assert_eq!(events[2]["object"]["data"]["x"], "y");
    let bad = server
        .send(
            "GET",
            &format!("{CMS}?watch=true&sendInitialEvents=true"),
            None,
        )
        .await;
    assert_eq!(bad.code, 422);
    assert_eq!(
        bad.json()["message"],
        "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: \
         sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"
    );
}

#[tokio::test]
async fn metrics_count_requests_and_objects() {
    let server = Server::start(&["--storage", "memory"]);
    server.send("POST", CMS, Some(&cm("m", json!({})))).await;
    server.send("GET", &format!("{CMS}/m"), None).await;
    server.send("GET", &format!("{CMS}/nope"), None).await;
    let reply = server.send("GET", "/metrics", None).await;
    assert_eq!(reply.code, 200);
    assert_eq!(
        reply.content_type,
        "text/plain; version=0.0.4; charset=utf-8"
    );
    let text = reply.text();
    for line in [
        r#"apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="POST",version="v1"} 1"#,
        r#"apiserver_request_total{code="404",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="GET",version="v1"} 1"#,
        r#"apiserver_storage_objects{resource="configmaps"} 1"#,
        r#"apiserver_storage_objects{resource="namespaces"} 4"#,
    ] {
        assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
    }
    assert!(text.contains("apiserver_request_duration_seconds_bucket{"));
    let anonymous = server.request("GET", "/metrics", None, Auth::None).await;
    assert_eq!(anonymous.code, 401);
}

#[tokio::test]
async fn field_validation_reports_unknown_and_duplicate_fields() {
    let server = Server::start(&["--storage", "memory"]);
    let body = br#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d","name":"d"},
        "dta":{"x":"1"},"data":{"a":"1","a":"2"}}"#;
    let strict = server
        .send_with(
            "POST",
            &format!("{CMS}?fieldValidation=Strict"),
            Some(body.to_vec()),
            &[("content-type", "application/json")],
        )
        .await;
    assert_failure(
        &strict,
        400,
        "BadRequest",
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: \
         duplicate field \"metadata.name\", unknown field \"dta\", duplicate field \"data.a\"",
    );
    let warned = server
        .send_with(
            "POST",
            CMS,
            Some(body.to_vec()),
            &[("content-type", "application/json")],
        )
        .await;
    assert_eq!(warned.code, 201, "{}", warned.text());
    let warnings: Vec<&str> = warned
        .headers
        .get_all("warning")
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        [
            r#"299 - "duplicate field \"metadata.name\"""#,
            r#"299 - "unknown field \"dta\"""#,
            r#"299 - "duplicate field \"data.a\"""#
        ]
    );
    let created = warned.json();
    assert!(created.get("dta").is_none());
    assert_eq!(created["data"], json!({"a": "2"}));
}

#[tokio::test]
async fn large_responses_are_gzipped_when_asked() {
    use std::io::Read;
    let server = Server::start(&["--storage", "memory"]);
    let path = "/openapi/v3/api/v1";
    let plain = server.send("GET", path, None).await;
    assert!(plain.headers.get("content-encoding").is_none());
    assert!(plain.body.len() > 128 * 1024);
    let zipped = server
        .send_with("GET", path, None, &[("accept-encoding", "gzip")])
        .await;
    assert_eq!(zipped.headers["content-encoding"], "gzip");
    assert!(zipped.body.len() < plain.body.len() / 4);
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(&zipped.body[..])
        .read_to_end(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, plain.body);
    // Small answers stay as they are.
    let small = server
        .send_with("GET", "/api", None, &[("accept-encoding", "gzip")])
        .await;
    assert!(small.headers.get("content-encoding").is_none());
}

#[tokio::test]
async fn lists_read_at_the_resource_version_asked_for() {
    let server = Server::start(&["--storage", "memory"]);
    let first = server
        .send("POST", CMS, Some(&cm("r1", json!({}))))
        .await
        .json();
    server.send("POST", CMS, Some(&cm("r2", json!({})))).await;
    let at = rv(&first);
    let exact = server
        .send(
            "GET",
            &format!("{CMS}?resourceVersion={at}&resourceVersionMatch=Exact"),
            None,
        )
        .await
        .json();
    assert_eq!(exact["items"].as_array().unwrap().len(), 1);
    assert_eq!(rv(&exact), at);
    let newer = server
        .send("GET", &format!("{CMS}?resourceVersion={at}"), None)
        .await
        .json();
    assert_eq!(newer["items"].as_array().unwrap().len(), 2);
    let future = server
        .send("GET", &format!("{CMS}?resourceVersion=999"), None)
        .await;
    assert_eq!(future.code, 504);
    assert_eq!(future.json()["reason"], "Timeout");
    let future_get = server
        .send("GET", &format!("{CMS}/r1?resourceVersion=999"), None)
        .await;
    assert_eq!(future_get.code, 504);
    let bad = server
        .send("GET", &format!("{CMS}?resourceVersionMatch=Exact"), None)
        .await;
    assert_failure(
        &bad,
        422,
        "Invalid",
        "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: \
         resourceVersionMatch is forbidden unless resourceVersion is provided",
    );
    assert_eq!(
        bad.json()["details"]["causes"][0]["reason"],
        "FieldValueForbidden"
    );
}

/// The number of watches the server has answered, from its metrics.
async fn watches_answered(server: &Server) -> u64 {
    let text = server.send("GET", "/metrics", None).await.text();
    text.lines()
        .filter(|l| l.starts_with("apiserver_request_total{") && l.contains("verb=\"WATCH\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

#[tokio::test]
async fn a_thousand_watchers_and_one_that_disconnects() {
    use http_body_util::BodyExt;
    const WATCHERS: usize = 1000;
    let server = std::sync::Arc::new(Server::start(&["--storage", "memory"]));
    server.send("POST", CMS, Some(&cm("w", json!({})))).await;
    // One client disconnects after the first event.
    let (code, mut body) = server.stream(&format!("{CMS}?watch=true")).await;
    assert_eq!(code, 200);
    let first = body.frame().await.unwrap().unwrap().into_data().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("\"ADDED\""));
    drop(body);
    // The watches stay open until their client is done (the timeout only bounds the test):
    // opening 1,000 may take longer than a short timeout on a loaded machine.
    let path = format!("{CMS}?watch=true&timeoutSeconds=600&fieldSelector=metadata.name%3Dw");
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(180);
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..WATCHERS {
        let (server, path) = (server.clone(), path.clone());
        tasks.spawn(async move {
            let (code, mut body) = server.stream(&path).await;
            assert_eq!(code, 200);
            let mut lines = Vec::new();
            let mut buffer = Vec::new();
            // The events up to the MODIFIED one, then whatever arrives within a second
            // after it (nothing may).
            let mut until = deadline;
            loop {
                let frame = tokio::time::timeout_at(until, body.frame()).await;
                let Ok(Some(frame)) = frame else { break };
                if let Ok(data) = frame.unwrap().into_data() {
                    buffer.extend_from_slice(&data);
                }
                while let Some(end) = buffer.iter().position(|b| *b == b'\n') {
                    let line: Vec<u8> = buffer.drain(..=end).collect();
                    let event: Value = serde_json::from_slice(&line).unwrap();
                    let kind = event["type"].as_str().unwrap().to_owned();
                    if kind == "MODIFIED" {
                        until = tokio::time::Instant::now() + std::time::Duration::from_secs(1);
                    }
                    lines.push(kind);
                }
            }
            lines
        });
    }
    // Every watch is open once the server has answered it (bounded wait).
    let start = std::time::Instant::now();
    while watches_answered(&server).await < (WATCHERS + 1) as u64 {
        assert!(start.elapsed().as_secs() < 120, "watches not all open");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let patch = br#"{"data":{"seen":"yes"}}"#.to_vec();
    let reply = server
        .send_with(
            "PATCH",
            &format!("{CMS}/w"),
            Some(patch),
            &[("content-type", "application/merge-patch+json")],
        )
        .await;
    assert_eq!(reply.code, 200);
    let mut complete = 0;
    while let Some(kinds) = tasks.join_next().await {
        assert_eq!(kinds.unwrap(), ["ADDED", "MODIFIED"]);
        complete += 1;
    }
    assert_eq!(complete, WATCHERS);
    assert_eq!(
        server.send("GET", &format!("{CMS}/w"), None).await.code,
        200
    );
}

#[tokio::test]
async fn delete_options_are_validated_as_upstream() {
    let server = Server::start(&["--storage", "memory"]);
    server.send("POST", CMS, Some(&cm("d", json!({})))).await;
    let bad = server
        .send(
            "DELETE",
            &format!("{CMS}/d"),
            Some(&json!({"propagationPolicy": "Sideways"})),
        )
        .await;
    assert_failure(
        &bad,
        422,
        "Invalid",
        "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \
         \"Sideways\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
    );
    let stale = server
        .send(
            "DELETE",
            &format!("{CMS}/d"),
            Some(&json!({"preconditions": {"resourceVersion": "1"}})),
        )
        .await;
    assert_eq!(stale.code, 409, "{}", stale.text());
    assert!(stale.json()["message"].as_str().unwrap().starts_with(
        "Operation cannot be fulfilled on configmaps \"d\": StorageError: invalid object, \
                 Code: 4, Key: /registry/configmaps/default/d, ResourceVersion: 0, \
                 AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: 1, \
                 ResourceVersion in object meta: "
    ));
    let gone = server
        .send(
            "DELETE",
            &format!("{CMS}/d"),
            Some(&json!({"propagationPolicy": "Foreground"})),
        )
        .await;
    // Foreground leaves the object with `foregroundDeletion` (store.go's
    // deletionFinalizersForGarbageCollection); the collector then removes it.
    assert_eq!(gone.code, 200);
    assert_eq!(
        gone.json()["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
    let start = std::time::Instant::now();
    while server.send("GET", &format!("{CMS}/d"), None).await.code != 404 {
        assert!(start.elapsed() < std::time::Duration::from_secs(20));
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn history_is_compacted_on_a_timer_and_old_tokens_expire() {
    let server = Server::start(&["--storage", "memory", "--compaction-interval-seconds", "1"]);
    for name in ["k1", "k2", "k3"] {
        server.send("POST", CMS, Some(&cm(name, json!({})))).await;
    }
    let first = server
        .send("GET", &format!("{CMS}?limit=1"), None)
        .await
        .json();
    let token = first["metadata"]["continue"].as_str().unwrap().to_owned();
    server.send("POST", CMS, Some(&cm("k4", json!({})))).await;
    // Two ticks: the first notes the revision, the second compacts up to it (bounded wait).
    let start = std::time::Instant::now();
    let expired = loop {
        let reply = server
            .send("GET", &format!("{CMS}?limit=1&continue={token}"), None)
            .await;
        if reply.code != 200 || start.elapsed().as_secs() > 15 {
            break reply;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    // Upstream's text (k8s.io/apiserver pkg/storage/etcd3/errors.go inconsistentContinue),
    // with a token that continues at the latest revision.
    assert_failure(
        &expired,
        410,
        "Expired",
        "The provided continue parameter is too old to display a consistent list result. \
         You can start a new list without the continue parameter, or use the continue token \
         in this response to retrieve the remainder of the results. Continuing with the \
         provided token results in an inconsistent list - objects that were created, \
         modified, or deleted between the time the first chunk was returned and now may show \
         up in the list.",
    );
    let latest = expired.json()["metadata"]["continue"]
        .as_str()
        .unwrap()
        .to_owned();
    let rest = server
        .send("GET", &format!("{CMS}?continue={latest}"), None)
        .await
        .json();
    let names: Vec<&str> = rest["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["k2", "k3", "k4"]);
    // The current state is whole.
    let all = server.send("GET", CMS, None).await.json();
    assert_eq!(all["items"].as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn odd_bodies_get_statuses_and_nothing_falls_over() {
    let server = Server::start(&["--storage", "memory"]);
    let deployments = "/apis/apps/v1/namespaces/default/deployments";
    let bodies: [(&str, &str, &[u8], &str); 10] = [
        (
            "POST",
            deployments,
            br#"{"metadata":{"name":"d"},"spec":"x"}"#,
            "application/json",
        ),
        (
            "POST",
            deployments,
            br#"{"metadata":{"name":"d"},"spec":{"template":5}}"#,
            "application/json",
        ),
        (
            "POST",
            deployments,
            br#"{"metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":"a"}}}}"#,
            "application/json",
        ),
        ("POST", deployments, br#"[1,2,3]"#, "application/json"),
        (
            "POST",
            deployments,
            b"metadata: [unclosed",
            "application/yaml",
        ),
        (
            "POST",
            deployments,
            b"k8s\0\x0a\x05\x0a\x03v1",
            "application/vnd.kubernetes.protobuf",
        ),
        ("POST", CMS, br#"{"metadata":"x"}"#, "application/json"),
        (
            "POST",
            CMS,
            br#"{"metadata":{"name":"q","labels":[1]}}"#,
            "application/json",
        ),
        (
            "PATCH",
            &format!("{CMS}/nope"),
            br#"{"data":1}"#,
            "application/merge-patch+json",
        ),
        (
            "PATCH",
            &format!("{CMS}/nope"),
            br#"{"data":1}"#,
            "application/unknown-patch",
        ),
    ];
    for (method, path, body, content_type) in bodies {
        let reply = server
            .send_with(
                method,
                path,
                Some(body.to_vec()),
                &[("content-type", content_type)],
            )
            .await;
        assert!(
            (400..500).contains(&reply.code),
            "{method} {path} {}: {} {}",
            String::from_utf8_lossy(body),
            reply.code,
            reply.text()
        );
        assert_eq!(reply.json()["kind"], "Status");
    }
    // A patch that would make a live object odd.
    server
        .send("POST", CMS, Some(&cm("live", json!({"a": "1"}))))
        .await;
    let reply = server
        .send_with(
            "PATCH",
            &format!("{CMS}/live"),
            Some(br#"{"metadata":{"finalizers":"x"}}"#.to_vec()),
            &[("content-type", "application/merge-patch+json")],
        )
        .await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    let ready = server.request("GET", "/readyz", None, Auth::None).await;
    assert_eq!(ready.code, 200);
}

/// Updates are defaulted as creates are: kube-apiserver decodes every write's object through
/// the defaulting codec (a PUT's body in `handlers/update.go`, a patch's result in
/// `handlers/patch.go`: `applyJSPatch` decodes the patched JSON, `applyPatchToObject`
/// defaults the strategic merge result), so a field a write leaves out that has a default
/// comes back with it (`SetDefaults_Service`: sessionAffinity, a port's protocol and
/// targetPort; `SetDefaults_Secret`: type).
#[tokio::test]
async fn updates_and_patches_are_defaulted_as_creates() {
    let server = Server::start(&["--storage", "memory"]);
    const SERVICES: &str = "/api/v1/namespaces/default/services";
    let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
        "spec": {"ports": [{"name": "http", "port": 80}]}});
    let reply = server.send("POST", SERVICES, Some(&service)).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let created = reply.json();
    assert_eq!(created["spec"]["sessionAffinity"], "None");
    // A PUT without sessionAffinity, with a port without protocol or targetPort.
    let mut put = created.clone();
    put["spec"]
        .as_object_mut()
        .unwrap()
        .remove("sessionAffinity");
    put["spec"]["ports"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "https", "port": 443}));
    let reply = server
        .send("PUT", &format!("{SERVICES}/web"), Some(&put))
        .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    let updated = reply.json();
    assert_eq!(updated["spec"]["sessionAffinity"], "None");
    assert_eq!(
        updated["spec"]["ports"][1],
        json!({"name": "https", "port": 443, "protocol": "TCP", "targetPort": 443})
    );
    // Stored so: a read gives the same.
    let got = server.send("GET", &format!("{SERVICES}/web"), None).await;
    assert_eq!(got.json()["spec"], updated["spec"]);
    // A merge patch that removes a defaulted field and adds a port.
    let patch = json!({"spec": {"sessionAffinity": null, "ports": [
        {"name": "http", "port": 80}, {"name": "metrics", "port": 9090}]}});
    let reply = server
        .send_with(
            "PATCH",
            &format!("{SERVICES}/web"),
            Some(serde_json::to_vec(&patch).unwrap()),
            &[("content-type", "application/merge-patch+json")],
        )
        .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    let patched = reply.json();
    assert_eq!(patched["spec"]["sessionAffinity"], "None");
    assert_eq!(
        patched["spec"]["ports"],
        json!([{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 80},
               {"name": "metrics", "port": 9090, "protocol": "TCP", "targetPort": 9090}])
    );
    // A Secret put without its type keeps the defaulted one (`type` is immutable: without
    // the default the update would change it).
    const SECRETS: &str = "/api/v1/namespaces/default/secrets";
    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
        "stringData": {"a": "b"}});
    let reply = server.send("POST", SECRETS, Some(&secret)).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let mut put = reply.json();
    put.as_object_mut().unwrap().remove("type");
    let reply = server
        .send("PUT", &format!("{SECRETS}/s"), Some(&put))
        .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    assert_eq!(reply.json()["type"], "Opaque");
}

/// Identical owner references are merged before validation, with upstream's warning
/// (k8s.io/apiserver `handlers/rest.go` `dedupOwnerReferencesAndAddWarning`: a create's or
/// update's body before mutating admission, a patch after it); references that differ stay.
#[tokio::test]
async fn duplicate_owner_references_are_merged_with_a_warning() {
    let server = Server::start(&[]);
    // Owners that exist, so that the garbage collector leaves the dependent alone.
    let mut uids = Vec::new();
    for name in ["o1", "o2"] {
        let made = server
            .send("POST", CMS, Some(&json!({"metadata": {"name": name}})))
            .await;
        assert_eq!(made.code, 201, "{}", made.text());
        uids.push(made.json()["metadata"]["uid"].as_str().unwrap().to_owned());
    }
    let (u1, u2) = (uids[0].as_str(), uids[1].as_str());
    let owner = json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "o1", "uid": u1});
    let other = json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "o2", "uid": u2,
                       "controller": true});
    let warnings = |reply: &support::Reply| -> Vec<String> {
        reply
            .headers
            .get_all("warning")
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .collect()
    };
    let text = |stage: &str, uids: &str| {
        format!(
            "299 - \".metadata.ownerReferences contains duplicate entries{stage}; API server \
             dedups owner references in 1.20+, and may reject such requests as early as 1.24; \
             please fix your requests; duplicate UID(s) observed: {uids}\""
        )
    };
    let body = json!({"metadata": {"name": "d", "ownerReferences": [owner, other, owner, owner]}});
    let created = server.send("POST", CMS, Some(&body)).await;
    assert_eq!(created.code, 201, "{}", created.text());
    assert_eq!(warnings(&created), [text("", &format!("{u1}, {u1}"))]);
    let created = created.json();
    assert_eq!(
        created["metadata"]["ownerReferences"],
        json!([owner, other])
    );

    let mut put = created.clone();
    put["metadata"]["ownerReferences"] = json!([other, other]);
    let updated = server.send("PUT", &format!("{CMS}/d"), Some(&put)).await;
    assert_eq!(updated.code, 200, "{}", updated.text());
    assert_eq!(warnings(&updated), [text("", u2)]);
    assert_eq!(
        updated.json()["metadata"]["ownerReferences"],
        json!([other])
    );

    let patch = json!({"metadata": {"ownerReferences": [owner, owner]}}).to_string();
    let patched = server
        .send_with(
            "PATCH",
            &format!("{CMS}/d"),
            Some(patch.into_bytes()),
            &[("content-type", "application/merge-patch+json")],
        )
        .await;
    assert_eq!(patched.code, 200, "{}", patched.text());
    assert_eq!(
        warnings(&patched),
        [text(" after mutating admission happens", u1)]
    );
    assert_eq!(
        patched.json()["metadata"]["ownerReferences"],
        json!([owner])
    );
}
