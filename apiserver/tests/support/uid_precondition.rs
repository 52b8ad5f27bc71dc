//! A PUT whose body names another uid than the stored object's, checked on any server (any
//! storage backend): upstream's failed storage precondition (k8s.io/apiserver
//! `rest.DefaultUpdatedObjectInfo.Preconditions`, `storage.Preconditions.Check`,
//! `storeerr.InterpretUpdateError`), 409 Conflict with the storage error's text, the same
//! for a built-in kind and a custom resource; nothing written. A patch forging the uid stays
//! a 422 (a patch has no preconditions: its `UpdatedObjectInfo` has no object).

use serde_json::json;

use super::Server;

/// Creates a CRD, a custom resource and a ConfigMap on `server` and checks PUTs of each
/// naming another uid.
pub async fn put_naming_another_uid_is_a_conflict(server: &Server) {
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "receipts.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "receipts", "kind": "Receipt"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                     "schema": {"openAPIV3Schema": {"type": "object",
                         "x-kubernetes-preserve-unknown-fields": true}}}]}
    });
    let made = server.send("POST", crds, Some(&crd)).await;
    assert_eq!(made.code, 201, "{}", made.text());
    let receipts = "/apis/example.com/v1/namespaces/default/receipts";
    let cms = "/api/v1/namespaces/default/configmaps";
    let forged_uid = "6a1d1e4b-0000-4000-8000-00000000000f";
    for (list, object, key, group_resource, details) in [
        (
            receipts,
            json!({"apiVersion": "example.com/v1", "kind": "Receipt",
                   "metadata": {"name": "r"}, "total": 3}),
            "/registry/example.com/receipts/default/r",
            "receipts.example.com",
            json!({"name": "r", "group": "example.com", "kind": "receipts"}),
        ),
        (
            cms,
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}),
            "/registry/configmaps/default/c",
            "configmaps",
            json!({"name": "c", "kind": "configmaps"}),
        ),
    ] {
        let created = server.send("POST", list, Some(&object)).await;
        assert_eq!(created.code, 201, "{}", created.text());
        let created = created.json();
        let name = created["metadata"]["name"].as_str().unwrap();
        let uid = created["metadata"]["uid"].as_str().unwrap();
        let path = format!("{list}/{name}");
        let mut forged = created.clone();
        forged["metadata"]["uid"] = json!(forged_uid);
        let reply = server.send("PUT", &path, Some(&forged)).await;
        assert_eq!(
            reply.json(),
            json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                   "message": format!("Operation cannot be fulfilled on {group_resource} \
                       \"{name}\": StorageError: invalid object, Code: 4, Key: {key}, \
                       ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in \
                       precondition: {forged_uid}, UID in object meta: {uid}"),
                   "reason": "Conflict", "details": details, "code": 409})
        );
        assert_eq!(reply.code, 409);
        // Nothing was written.
        let got = server.send("GET", &path, None).await.json();
        assert_eq!(got, created);
        // The stored uid updates.
        let again = server.send("PUT", &path, Some(&created)).await;
        assert_eq!(again.code, 200, "{}", again.text());
        let patch = server
            .send_with(
                "PATCH",
                &path,
                Some(format!(r#"{{"metadata":{{"uid":"{forged_uid}"}}}}"#).into_bytes()),
                &[("content-type", "application/merge-patch+json")],
            )
            .await;
        assert_eq!(patch.code, 422, "{}", patch.text());
    }
}
