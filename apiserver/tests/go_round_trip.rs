//! Built-in objects through HTTP come back as kube-apiserver's typed round trip leaves them
//! (decoded into the Go types, encoded again with encoding/json): `omitempty` fields holding
//! Go's zero value are gone (core/v1 `ConfigMap.Data`, metav1 `ObjectMeta.Finalizers` and
//! `Labels`), fields without `omitempty` are written with theirs (rbac/v1 `Role.Rules`:
//! `null`; core/v1 `ServiceStatus.LoadBalancer`, a struct: `{}`), on create, update, patch
//! and server-side apply, in what get, list and watch serve, and in what the field manager
//! records (a field the round trip drops is not managed). Values of the types with their own
//! encoding come back as their `UnmarshalJSON` then `MarshalJSON` leave them: quantities in
//! canonical form, times in UTC, `[]byte` as standard base64.

mod support;

use serde_json::{Value, json};
use support::Server;

const CMS: &str = "/api/v1/namespaces/default/configmaps";
const ROLES: &str = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles";

/// The field set of the managedFields entry of `manager`.
fn managed(object: &Value, manager: &str) -> Value {
    object["metadata"]["managedFields"]
        .as_array()
        .and_then(|entries| entries.iter().find(|e| e["manager"] == manager))
        .map(|e| e["fieldsV1"].clone())
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn empty_omitempty_fields_are_dropped_on_every_write() {
    let server = Server::start(&[]);
    let created = server
        .send(
            "POST",
            &format!("{CMS}?fieldManager=creator"),
            Some(&json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "c", "finalizers": [], "labels": {}, "annotations": {}},
                "data": {}, "binaryData": {}, "immutable": false})),
        )
        .await;
    assert_eq!(created.code, 201, "{}", created.text());
    let created = created.json();
    let meta = created["metadata"].as_object().unwrap();
    for gone in ["finalizers", "labels", "annotations"] {
        assert!(!meta.contains_key(gone), "{gone}: {created}");
    }
    assert!(created.get("data").is_none() && created.get("binaryData").is_none());
    // `Immutable *bool`: a pointer to false is not empty.
    assert_eq!(created["immutable"], false);
    // The creator manages what is stored, not the dropped fields.
    assert_eq!(
        managed(&created, "creator"),
        json!({"f:immutable": {}}),
        "{created}"
    );
    // Get and list serve the stored object.
    let got = server.send("GET", &format!("{CMS}/c"), None).await.json();
    assert_eq!(got, created);
    // (List items carry no apiVersion and kind, as upstream's typed lists.)
    let list = server.send("GET", CMS, None).await.json();
    let mut item = created.clone();
    item.as_object_mut()
        .unwrap()
        .retain(|k, _| k != "apiVersion" && k != "kind");
    assert_eq!(list["items"][0], item);

    // A merge patch adding empty maps, and an update with an empty list, leave nothing.
    let patched = server
        .send_with(
            "PATCH",
            &format!("{CMS}/c"),
            Some(br#"{"data": {}, "metadata": {"labels": {}}}"#.to_vec()),
            &[("content-type", "application/merge-patch+json")],
        )
        .await;
    assert_eq!(patched.code, 200, "{}", patched.text());
    let patched = patched.json();
    assert!(patched.get("data").is_none(), "{patched}");
    assert!(patched["metadata"].get("labels").is_none(), "{patched}");
    // Nothing changed: no new resourceVersion.
    assert_eq!(
        patched["metadata"]["resourceVersion"],
        created["metadata"]["resourceVersion"]
    );
    let mut body = patched.clone();
    body["metadata"]["finalizers"] = json!([]);
    body["data"] = json!({"a": "1"});
    let updated = server.send("PUT", &format!("{CMS}/c"), Some(&body)).await;
    assert_eq!(updated.code, 200, "{}", updated.text());
    let updated = updated.json();
    assert!(updated["metadata"].get("finalizers").is_none(), "{updated}");
    assert_eq!(updated["data"], json!({"a": "1"}));

    // Server-side apply: the result is encoded the same way.
    let applied = server
        .send_with(
            "PATCH",
            "/api/v1/namespaces/default/configmaps/d?fieldManager=applier",
            Some(
                br#"{"apiVersion": "v1", "kind": "ConfigMap",
                     "metadata": {"name": "d", "finalizers": []}, "data": {}}"#
                    .to_vec(),
            ),
            &[("content-type", "application/apply-patch+yaml")],
        )
        .await;
    assert_eq!(applied.code, 201, "{}", applied.text());
    let applied = applied.json();
    assert!(applied.get("data").is_none(), "{applied}");
    assert!(applied["metadata"].get("finalizers").is_none(), "{applied}");
}

#[tokio::test]
async fn fields_without_omitempty_are_written_with_their_zero() {
    let server = Server::start(&[]);
    let (code, mut watch) = server.stream(&format!("{ROLES}?watch=true")).await;
    assert_eq!(code, 200);
    // rbac/v1 `Role.Rules []PolicyRule`, no `omitempty`: a Role without rules has
    // `"rules": null`.
    let created = server
        .send(
            "POST",
            ROLES,
            Some(
                &json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                         "metadata": {"name": "empty"}}),
            ),
        )
        .await;
    assert_eq!(created.code, 201, "{}", created.text());
    let created = created.json();
    assert_eq!(created.get("rules"), Some(&Value::Null), "{created}");
    let got = server
        .send("GET", &format!("{ROLES}/empty"), None)
        .await
        .json();
    assert_eq!(got.get("rules"), Some(&Value::Null), "{got}");
    let events = support::read_events(&mut watch, 1).await;
    assert_eq!(events[0]["type"], "ADDED");
    assert_eq!(events[0]["object"].get("rules"), Some(&Value::Null));
    // PolicyRule: `Verbs []string` without `omitempty`, the other lists with it.
    let created = server
        .send(
            "POST",
            ROLES,
            Some(
                &json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                         "metadata": {"name": "r"},
                         "rules": [{"verbs": ["get"], "apiGroups": [""],
                                    "resources": ["pods"], "resourceNames": []}]}),
            ),
        )
        .await;
    assert_eq!(created.code, 201, "{}", created.text());
    assert_eq!(
        created.json()["rules"],
        json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}])
    );

    // core/v1 Service: `Status ServiceStatus` (a struct), whose `LoadBalancer
    // LoadBalancerStatus` is a struct too, so never dropped.
    let service = server
        .send(
            "POST",
            "/api/v1/namespaces/default/services",
            Some(
                &json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
                         "spec": {"ports": [{"port": 80}]}}),
            ),
        )
        .await;
    assert_eq!(service.code, 201, "{}", service.text());
    assert_eq!(service.json()["status"], json!({"loadBalancer": {}}));
}

#[tokio::test]
async fn quantities_come_back_in_canonical_form() {
    let server = Server::start(&[]);
    // resource.Quantity: ParseQuantity then String() (quantity.go: "1.5Gi will be
    // serialized as 1536Mi", "1.5 will be serialized as 1500m"); a bare number is read as
    // its text; canonical-looking texts are kept as written.
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "a", "image": "nginx", "resources": {
            "limits": {"cpu": "1000m", "memory": "1.5Gi"},
            "requests": {"cpu": 0.5, "memory": "100Mi"}}}]}});
    let created = server
        .send("POST", "/api/v1/namespaces/default/pods", Some(&pod))
        .await;
    assert_eq!(created.code, 201, "{}", created.text());
    let resources = |object: &Value| object["spec"]["containers"][0]["resources"].clone();
    let want = json!({"limits": {"cpu": "1", "memory": "1536Mi"},
                      "requests": {"cpu": "500m", "memory": "100Mi"}});
    assert_eq!(resources(&created.json()), want);
    let got = server
        .send("GET", "/api/v1/namespaces/default/pods/p", None)
        .await;
    assert_eq!(resources(&got.json()), want);

    // A Deployment's pod template, through create and a merge patch.
    let deployments = "/apis/apps/v1/namespaces/default/deployments";
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"app": "d"}},
                 "template": {"metadata": {"labels": {"app": "d"}},
                              "spec": {"containers": [{"name": "a", "image": "nginx",
                                  "resources": {"limits": {"cpu": 2, "memory": "1024Mi"}}}]}}}});
    let created = server.send("POST", deployments, Some(&deployment)).await;
    assert_eq!(created.code, 201, "{}", created.text());
    let limits = |object: &Value| {
        object["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"].clone()
    };
    assert_eq!(
        limits(&created.json()),
        json!({"cpu": "2", "memory": "1Gi"})
    );
    // A strategic merge patch setting the container's cpu limit: what the object answers.
    let patch_cpu = async |cpu: &str| {
        let patch = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "a", "resources": {"limits": {"cpu": cpu}}}]}}}});
        let patched = server
            .send_with(
                "PATCH",
                &format!("{deployments}/d"),
                Some(patch.to_string().into_bytes()),
                &[("content-type", "application/strategic-merge-patch+json")],
            )
            .await;
        assert_eq!(patched.code, 200, "{}", patched.text());
        limits(&patched.json())
    };
    assert_eq!(
        patch_cpu("2500m").await,
        json!({"cpu": "2500m", "memory": "1Gi"})
    );
    assert_eq!(
        patch_cpu("3000m").await,
        json!({"cpu": "3", "memory": "1Gi"})
    );
}

#[tokio::test]
async fn times_come_back_in_utc() {
    let server = Server::start(&[]);
    // core/v1 Event: `LastTimestamp metav1.Time` (RFC 3339 in UTC at whole seconds),
    // `EventTime metav1.MicroTime` (six digits of fraction, UTC).
    let event = json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "e", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "R", "message": "m", "type": "Normal",
        "firstTimestamp": "2024-01-01T01:30:00-01:00",
        "lastTimestamp": "2024-01-01T02:00:00.5+02:00"});
    let created = server
        .send("POST", "/api/v1/namespaces/default/events", Some(&event))
        .await;
    assert_eq!(created.code, 201, "{}", created.text());
    let created = created.json();
    assert_eq!(created["firstTimestamp"], "2024-01-01T02:30:00Z");
    assert_eq!(created["lastTimestamp"], "2024-01-01T00:00:00Z");

    let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "f", "namespace": "default"},
        "eventTime": "2024-06-01T12:00:00.123456+05:30",
        "reportingController": "example.com/c", "reportingInstance": "i",
        "action": "A", "reason": "R", "type": "Normal",
        "regarding": {"kind": "Pod", "name": "p", "namespace": "default"}});
    let created = server
        .send(
            "POST",
            "/apis/events.k8s.io/v1/namespaces/default/events",
            Some(&event),
        )
        .await;
    assert_eq!(created.code, 201, "{}", created.text());
    assert_eq!(created.json()["eventTime"], "2024-06-01T06:30:00.123456Z");
}

#[tokio::test]
async fn bytes_come_back_as_standard_base64() {
    let server = Server::start(&[]);
    let secrets = "/api/v1/namespaces/default/secrets";
    // `Data map[string][]byte`: base64.StdEncoding skips line breaks and accepts non-zero
    // trailing bits ("YR==" is "a", written "YQ==").
    let created = server
        .send(
            "POST",
            secrets,
            Some(
                &json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
                         "data": {"a": "aGVs\nbG8=", "b": "YR=="}}),
            ),
        )
        .await;
    assert_eq!(created.code, 201, "{}", created.text());
    assert_eq!(
        created.json()["data"],
        json!({"a": "aGVsbG8=", "b": "YQ=="})
    );
    // Text the decoder refuses: its CorruptInputError, as kube-apiserver answers it.
    let refused = server
        .send(
            "POST",
            secrets,
            Some(
                &json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "t"},
                         "data": {"a": "aGVsbG8"}}),
            ),
        )
        .await;
    assert_eq!(refused.code, 400, "{}", refused.text());
    assert_eq!(
        refused.json()["message"],
        "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte 4"
    );
}
