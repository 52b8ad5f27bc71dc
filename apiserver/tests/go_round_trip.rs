//! Built-in objects through HTTP come back as kube-apiserver's typed round trip leaves them
//! (decoded into the Go types, encoded again with encoding/json): `omitempty` fields holding
//! Go's zero value are gone (core/v1 `ConfigMap.Data`, metav1 `ObjectMeta.Finalizers` and
//! `Labels`), fields without `omitempty` are written with theirs (rbac/v1 `Role.Rules`:
//! `null`; core/v1 `ServiceStatus.LoadBalancer`, a struct: `{}`), on create, update, patch
//! and server-side apply, in what get, list and watch serve, and in what the field manager
//! records (a field the round trip drops is not managed).

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
