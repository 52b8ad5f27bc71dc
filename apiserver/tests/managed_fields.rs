//! `metadata.managedFields` of every write path (create, update, merge / JSON / strategic
//! patches, apply, the status and scale subresources) compared with golden files, and the
//! apply request's errors, over HTTPS against the binary.
//!
//! The golden files follow upstream's documented behaviour (the Server-Side Apply page of
//! the Kubernetes documentation: Apply entries list the applied leaves, Update entries what
//! a write changed, subresource writes carry `subresource`; structured-merge-diff's
//! `FieldsV1` with `.` for members that have members below them); `time` is masked. A
//! patch's result is defaulted before the field manager compares it (k8s.io/apiserver
//! `handlers/patch.go`: `applyPatch` runs the mechanism, whose strategic merge defaults the
//! patched object, then `fieldManager.UpdateNoErrors`), so the strategist owns the defaults
//! of the container it adds.

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

const CMS: &str = "/api/v1/namespaces/default/configmaps";

async fn apply(server: &Server, name: &str, query: &str, yaml: &str) -> support::Reply {
    server
        .send_with(
            "PATCH",
            &format!("{CMS}/{name}?{query}"),
            Some(yaml.as_bytes().to_vec()),
            &[("content-type", "application/apply-patch+yaml")],
        )
        .await
}

fn status(reply: &support::Reply) -> (u16, Value) {
    (reply.code, reply.json())
}

// Upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (applyPatcher),
// apimachinery's ValidatePatchOptions, managedfields/internal versioncheck.go,
// structuredmerge.go and conflict.go.
#[tokio::test]
async fn apply_requests_fail_as_upstreams() {
    let server = Server::start(&[]);
    let cm =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"1\"\n  z: \"2\"\n";
    // fieldManager is required.
    let (code, s) = status(&apply(&server, "a", "", cm).await);
    assert_eq!(code, 422);
    assert_eq!(
        s["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
    );
    // Dry run creates nothing.
    let reply = apply(&server, "a", "fieldManager=one&dryRun=All", cm).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    assert_eq!(
        server.send("GET", &format!("{CMS}/a"), None).await.code,
        404
    );
    let reply = apply(&server, "a", "fieldManager=one", cm).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let rv = reply.json()["metadata"]["resourceVersion"].clone();
    // The same configuration again changes nothing.
    let again = apply(&server, "a", "fieldManager=one", cm).await;
    assert_eq!(again.code, 200);
    assert_eq!(again.json()["metadata"]["resourceVersion"], rv);
    // Conflicts: 409 with causes, one per field.
    let other =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"3\"\n  z: \"4\"\n";
    let (code, s) = status(&apply(&server, "a", "fieldManager=two", other).await);
    assert_eq!(code, 409);
    assert_eq!(s["reason"], "Conflict");
    assert_eq!(
        s["message"],
        "Apply failed with 2 conflicts: conflicts with \"one\":\n- .data.x\n- .data.z"
    );
    assert_eq!(
        s["details"]["causes"],
        json!([
            {"reason": "FieldManagerConflict", "message": "conflict with \"one\"", "field": ".data.x"},
            {"reason": "FieldManagerConflict", "message": "conflict with \"one\"", "field": ".data.z"}
        ])
    );
    // A forced dry run persists nothing.
    let forced = apply(
        &server,
        "a",
        "fieldManager=two&force=true&dryRun=All",
        other,
    )
    .await;
    assert_eq!(forced.code, 200, "{}", forced.text());
    assert_eq!(forced.json()["data"]["x"], "3");
    let live = server.send("GET", &format!("{CMS}/a"), None).await.json();
    assert_eq!(live["data"]["x"], "1");
    // The configuration's type must be the URL's.
    let v2 = cm.replace("apiVersion: v1", "apiVersion: v2");
    let (code, s) = status(&apply(&server, "a", "fieldManager=one", &v2).await);
    assert_eq!((code, s["reason"].as_str()), (400, Some("BadRequest")));
    assert_eq!(s["message"], "invalid object type: /v2, Kind=ConfigMap");
    // No managedFields in a configuration.
    let with_fields =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  managedFields: []\n";
    let (code, s) = status(&apply(&server, "a", "fieldManager=one", with_fields).await);
    assert_eq!(
        (code, s["message"].as_str()),
        (400, Some("metadata.managedFields must be nil"))
    );
    // Fields the schema does not declare fail whatever fieldValidation says.
    let unknown = format!("{cm}spec:\n  z: 1\n");
    for validation in ["Ignore", "Warn", "Strict"] {
        let reply = apply(
            &server,
            "a",
            &format!("fieldManager=one&fieldValidation={validation}"),
            &unknown,
        )
        .await;
        let (code, s) = status(&reply);
        assert_eq!(code, 500, "{}", reply.text());
        assert!(s.get("reason").is_none(), "{s}");
        assert_eq!(
            s["message"],
            "failed to create typed patch object (/a; /v1, Kind=ConfigMap): .spec: field not declared in schema"
        );
    }
    // Values of the wrong type fail as structured-merge-diff's validation reports them when
    // the configuration is made typed (typed/validate.go, `validateScalar`; the same check
    // as MutatingAdmissionPolicy apply configurations get), before anything is stored.
    let base = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n";
    for (body, problem) in [
        (
            format!("{base}data:\n  count: 1\n"),
            ".data.count: expected string, got &value.valueUnstructured{Value:1}",
        ),
        (
            format!("{base}data: [x]\n"),
            ".data: expected map, got &{[x]}",
        ),
        (
            format!("{base}immutable: \"yes\"\n"),
            ".immutable: expected boolean, got &{yes}",
        ),
    ] {
        let reply = apply(&server, "a", "fieldManager=one", &body).await;
        let (code, s) = status(&reply);
        assert_eq!(code, 500, "{}", reply.text());
        assert_eq!(
            s["message"].as_str(),
            Some(
                format!("failed to create typed patch object (/a; /v1, Kind=ConfigMap): {problem}")
                    .as_str()
            )
        );
    }
    // fieldManager: at most 128 bytes, printable (upstream's ValidateFieldManager), for
    // every write's options.
    let long = "m".repeat(129);
    let (code, s) = status(&apply(&server, "a", &format!("fieldManager={long}"), cm).await);
    assert_eq!(code, 422);
    assert_eq!(
        s["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be more than 128 bytes"
    );
    let reply = server
        .send(
            "POST",
            &format!("{CMS}?fieldManager=a%09b"),
            Some(&json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "t"}})),
        )
        .await;
    let (code, s) = status(&reply);
    assert_eq!(code, 422, "{s}");
    assert_eq!(
        s["message"],
        "CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Invalid value: \"a\\tb\": invalid character U+0009 (at position 1)"
    );
    // force belongs to apply patches only.
    let reply = server
        .send_with(
            "PATCH",
            &format!("{CMS}/a?force=true"),
            Some(br#"{"data":{"x":"5"}}"#.to_vec()),
            &[("content-type", "application/merge-patch+json")],
        )
        .await;
    let (code, s) = status(&reply);
    assert_eq!(code, 422);
    assert_eq!(
        s["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch"
    );
}

async fn merge_patch(server: &Server, name: &str, query: &str, body: &str) -> support::Reply {
    server
        .send_with(
            "PATCH",
            &format!("{CMS}/{name}?{query}"),
            Some(body.as_bytes().to_vec()),
            &[("content-type", "application/merge-patch+json")],
        )
        .await
}

// Upstream: test/integration/apiserver/apply/apply_test.go TestApplyManagedFields — the
// exact object after an apply and two merge patches by one updater (grouped into one
// entry with the later time; `data` existed already, so no "." for it).
#[tokio::test]
async fn upstream_apply_managed_fields() {
    let server = Server::start(&[]);
    let cm = r#"{"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "test-cm", "namespace": "default", "labels": {"test-label": "test"}},
        "data": {"key": "value"}}"#;
    let reply = apply(&server, "test-cm", "fieldManager=apply_test", cm).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let reply = merge_patch(
        &server,
        "test-cm",
        "fieldManager=updater",
        r#"{"data":{"new-key": "value"}}"#,
    )
    .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let reply = merge_patch(
        &server,
        "test-cm",
        "fieldManager=updater",
        r#"{"data":{"key": "new value"}}"#,
    )
    .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    let object = server
        .send("GET", &format!("{CMS}/test-cm"), None)
        .await
        .json();
    let meta = &object["metadata"];
    let entries = &meta["managedFields"];
    let expected = json!({
        "kind": "ConfigMap", "apiVersion": "v1",
        "metadata": {
            "name": "test-cm", "namespace": "default", "uid": meta["uid"],
            "resourceVersion": meta["resourceVersion"],
            "creationTimestamp": meta["creationTimestamp"],
            "labels": {"test-label": "test"},
            "managedFields": [
                {"manager": "apply_test", "operation": "Apply", "apiVersion": "v1",
                 "time": entries[0]["time"], "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:metadata": {"f:labels": {"f:test-label": {}}}}},
                {"manager": "updater", "operation": "Update", "apiVersion": "v1",
                 "time": entries[1]["time"], "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:data": {"f:key": {}, "f:new-key": {}}}}
            ]
        },
        "data": {"key": "new value", "new-key": "value"}
    });
    assert_eq!(object, expected);
    assert_ne!(entries[0]["time"], entries[1]["time"]);
}

// Upstream: apply_test.go TestApplyRemovesEmptyManagedFields, TestApplyRemoveContainerPort,
// TestClearManagedFieldsWithMergePatch / WithStrategicMergePatch.
#[tokio::test]
async fn upstream_apply_empty_fields_ports_and_clearing() {
    let server = Server::start(&[]);
    let bare = r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bare", "namespace": "default"}}"#;
    for code in [201, 200] {
        let reply = apply(&server, "bare", "fieldManager=apply_test", bare).await;
        assert_eq!(reply.code, code, "{}", reply.text());
    }
    let object = server
        .send("GET", &format!("{CMS}/bare"), None)
        .await
        .json();
    assert!(
        object["metadata"].get("managedFields").is_none(),
        "{object}"
    );

    let deployment = |ports: bool| {
        let mut d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "deployment", "labels": {"app": "nginx"}},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "nginx"}},
                "template": {"metadata": {"labels": {"app": "nginx"}},
                    "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]}}}});
        if ports {
            d["spec"]["template"]["spec"]["containers"][0]["ports"] =
                json!([{"containerPort": 80, "protocol": "TCP"}]);
        }
        d.to_string()
    };
    for (ports, code) in [(true, 201), (false, 200)] {
        let reply = server
            .send_with(
                "PATCH",
                &format!("{DEPLOYMENTS}/deployment?fieldManager=apply_test"),
                Some(deployment(ports).into_bytes()),
                &[("content-type", "application/apply-patch+yaml")],
            )
            .await;
        assert_eq!(reply.code, code, "{}", reply.text());
    }
    let d = server
        .send("GET", &format!("{DEPLOYMENTS}/deployment"), None)
        .await
        .json();
    assert!(
        d["spec"]["template"]["spec"]["containers"][0]
            .get("ports")
            .is_none(),
        "{d}"
    );

    for kind in [
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
    ] {
        let cm = r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "clear",
            "namespace": "default", "labels": {"test-label": "test"}}, "data": {"key": "value"}}"#;
        let reply = apply(&server, "clear", "fieldManager=apply_test", cm).await;
        assert_eq!(reply.code / 100, 2, "{}", reply.text());
        let reply = server
            .send_with(
                "PATCH",
                &format!("{CMS}/clear"),
                Some(br#"{"metadata":{"managedFields": [{}]}}"#.to_vec()),
                &[("content-type", kind)],
            )
            .await;
        assert_eq!(reply.code, 200, "{}", reply.text());
        let object = server
            .send("GET", &format!("{CMS}/clear"), None)
            .await
            .json();
        assert!(
            object["metadata"].get("managedFields").is_none(),
            "{kind}: {object}"
        );
    }
}

// Upstream: test/integration/apiserver/fieldvalidation_test.go
// testFieldValidationApplyCreate — repeated keys in an apply body: Strict fails with the
// YAML decoder's text, Warn answers one warning per key, Ignore says nothing.
#[tokio::test]
async fn apply_bodies_with_repeated_keys() {
    let server = Server::start(&[]);
    let body = "{\n \"apiVersion\": \"v1\",\n \"kind\": \"ConfigMap\",\n \"metadata\": {\"name\": \"dup\"},\n \"data\": {\"a\": \"1\",\n  \"a\": \"2\"}\n}";
    let reply = apply(
        &server,
        "dup",
        "fieldManager=m&fieldValidation=Strict",
        body,
    )
    .await;
    let (code, s) = status(&reply);
    assert_eq!((code, s["reason"].as_str()), (400, Some("BadRequest")));
    assert_eq!(
        s["message"],
        "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 6: key \"a\" already set in map"
    );
    assert_eq!(
        server.send("GET", &format!("{CMS}/dup"), None).await.code,
        404
    );
    let warnings = |reply: &support::Reply| -> Vec<String> {
        reply
            .headers
            .get_all("warning")
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .collect()
    };
    let reply = apply(&server, "dup", "fieldManager=m&fieldValidation=Warn", body).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    assert_eq!(reply.json()["data"]["a"], "2");
    assert_eq!(
        warnings(&reply),
        ["299 - \"line 6: key \\\"a\\\" already set in map\""]
    );
    let reply = apply(
        &server,
        "dup",
        "fieldManager=m&fieldValidation=Ignore",
        body,
    )
    .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    assert!(warnings(&reply).is_empty());
}

// Upstream: apply to the scale subresource (kubectl apply --server-side
// --subresource=scale); the entry carries `subresource: scale` and owns the Deployment's
// spec.replicas.
#[tokio::test]
async fn apply_to_the_scale_subresource() {
    let server = Server::start(&[]);
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "d"}},
            "template": {"metadata": {"labels": {"app": "d"}},
                "spec": {"containers": [{"name": "main", "image": "nginx"}]}}}});
    let reply = server
        .send(
            "POST",
            &format!("{DEPLOYMENTS}?fieldManager=creator"),
            Some(&d),
        )
        .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let scale =
        "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: d\nspec:\n  replicas: 4\n";
    let scale_path = |query: &str| format!("{DEPLOYMENTS}/d/scale?{query}");
    let scale_type = [("content-type", "application/apply-patch+yaml")];
    let body = || Some(scale.as_bytes().to_vec());
    let reply = server
        .send_with(
            "PATCH",
            &scale_path("fieldManager=scaler"),
            body(),
            &scale_type,
        )
        .await;
    let (code, s) = status(&reply);
    assert_eq!(code, 409);
    assert_eq!(
        s["message"],
        "Apply failed with 1 conflict: conflict with \"creator\" using apps/v1: .spec.replicas"
    );
    let reply = server
        .send_with(
            "PATCH",
            &scale_path("fieldManager=scaler&force=true"),
            body(),
            &scale_type,
        )
        .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    let answer = reply.json();
    assert_eq!(
        (answer["kind"].as_str(), answer["spec"]["replicas"].as_i64()),
        (Some("Scale"), Some(4))
    );
    let d = server
        .send("GET", &format!("{DEPLOYMENTS}/d"), None)
        .await
        .json();
    assert_eq!(d["spec"]["replicas"], 4);
    let entry = d["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == "scaler")
        .cloned()
        .unwrap();
    assert_eq!(entry["operation"], "Apply");
    assert_eq!(entry["subresource"], "scale");
    assert_eq!(entry["fieldsV1"], json!({"f:spec": {"f:replicas": {}}}));
    let (code, s) = status(
        &server
            .send_with(
                "PATCH",
                &format!("{DEPLOYMENTS}/d/scale?fieldManager=scaler"),
                Some(b"apiVersion: v1\nkind: Scale\n".to_vec()),
                &[("content-type", "application/apply-patch+yaml")],
            )
            .await,
    );
    assert_eq!(
        (code, s["message"].as_str()),
        (400, Some("invalid object type: /v1, Kind=Scale"))
    );
    // Below zero, by apply and by merge patch: ValidateScale's 422.
    let negative = "Scale.autoscaling \"d\" is invalid: spec.replicas: Invalid value: -1: \
                    must be greater than or equal to 0";
    for (body, content_type, query) in [
        (
            scale.replace("replicas: 4", "replicas: -1"),
            "application/apply-patch+yaml",
            "fieldManager=scaler&force=true",
        ),
        (
            r#"{"spec": {"replicas": -1}}"#.to_owned(),
            "application/merge-patch+json",
            "",
        ),
    ] {
        let reply = server
            .send_with(
                "PATCH",
                &scale_path(query),
                Some(body.into_bytes()),
                &[("content-type", content_type)],
            )
            .await;
        let (code, s) = status(&reply);
        assert_eq!((code, s["message"].as_str()), (422, Some(negative)));
    }
}

/// An owner reference of a ConfigMap's apply configuration.
fn owner(uid: &str, name: &str) -> String {
    format!("  - {{apiVersion: v1, kind: ConfigMap, name: {name}, uid: {uid}}}\n")
}

/// A ConfigMap `o` whose apply configuration holds `references` (each an `owner` line).
fn owned(references: &[String]) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o\n  ownerReferences:\n{}",
        references.concat()
    )
}

// Issue 28, server-side apply and owner references. `metadata.ownerReferences` is a list
// map keyed by `uid` (ObjectMeta's `+listType=map`, `+listMapKey=uid`; the OpenAPI
// documents' `x-kubernetes-list-map-keys: [uid]`). Upstream: an apply request's body is made
// typed without tolerating duplicates (k8s.io/apimachinery managedfields/internal
// structuredmerge.go `Apply`: `ObjectToTyped(patchObj)`, where only the live object gets
// `typed.AllowDuplicates`), so two entries of one uid — identical or not — fail with
// structured-merge-diff's `duplicate entries for key` before anything is stored (a 500
// without a reason, as the other typed-patch errors); the handler's owner-reference
// deduplication (handlers/rest.go `dedupOwnerReferencesAndAddWarning`, run on the patched
// object after mutating admission) never sees them. Two managers that each apply one
// reference each own theirs (`k:{"uid":...}`, atomic), and a manager that applies without its
// reference removes only that one.
#[tokio::test]
async fn apply_owner_references_as_a_map_keyed_by_uid() {
    let server = Server::start(&[]);
    let duplicate = "failed to create typed patch object (/o; /v1, Kind=ConfigMap): \
        .metadata.ownerReferences: duplicate entries for key [uid=\"u1\"]";
    for references in [
        [owner("u1", "a"), owner("u1", "a")],
        [owner("u1", "a"), owner("u1", "b")],
    ] {
        let reply = apply(&server, "o", "fieldManager=one", &owned(&references)).await;
        let (code, s) = status(&reply);
        assert_eq!(code, 500, "{}", reply.text());
        assert!(s.get("reason").is_none(), "{s}");
        assert_eq!(s["message"], duplicate);
        assert_eq!(
            server.send("GET", &format!("{CMS}/o"), None).await.code,
            404
        );
    }
    // Owners that exist (the garbage collector removes a dependent whose owners do not).
    let mut uids = Vec::new();
    for name in ["a", "b"] {
        let body = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n");
        let reply = apply(&server, name, "fieldManager=one", &body).await;
        assert_eq!(reply.code, 201, "{}", reply.text());
        uids.push(reply.json()["metadata"]["uid"].as_str().unwrap().to_owned());
    }
    let (u1, u2) = (uids[0].as_str(), uids[1].as_str());
    let reply = apply(&server, "o", "fieldManager=one", &owned(&[owner(u1, "a")])).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let reply = apply(&server, "o", "fieldManager=two", &owned(&[owner(u2, "b")])).await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    let object = reply.json();
    let listed: Vec<&str> = object["metadata"]["ownerReferences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uid"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [u1, u2]);
    let owned_by = |manager: &str| {
        masked(&object)
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["manager"] == manager)
            .map(|e| e["fieldsV1"]["f:metadata"]["f:ownerReferences"].clone())
            .unwrap()
    };
    // An OwnerReference is an atomic struct (`+structType=atomic`, the OpenAPI documents'
    // `x-kubernetes-map-type: atomic`): its manager owns the item, not its fields.
    let entry = |uid: &str| json!({ (format!("k:{{\"uid\":\"{uid}\"}}")): {} });
    assert_eq!(owned_by("one"), entry(u1));
    assert_eq!(owned_by("two"), entry(u2));
    // The second manager takes its reference back: the first one's stays.
    let none = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o\n";
    let reply = apply(&server, "o", "fieldManager=two", none).await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    assert_eq!(
        reply.json()["metadata"]["ownerReferences"],
        json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": u1}])
    );
}
