//! Hostile CustomResourceDefinitions and custom resources over HTTPS: schemas 40 and 64
//! levels deep, a rule of 100 KB, 10,000 rules, non-structural schemas, custom resources near and
//! over the 3 MiB body limit, custom resources nested 10,000 and 10,001 levels deep. Each gets a clear answer (a Status with upstream's reason, or
//! the object) within a bound, and the server keeps serving.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::Server;

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/// A CRD `things.example.com` with this `openAPIV3Schema`.
fn crd(schema: Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "things", "kind": "Thing"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": schema}}]
        }
    })
}

/// Sends, asserting the answer comes within `limit`.
async fn timed(
    server: &Server,
    method: &str,
    path: &str,
    body: &Value,
    limit: Duration,
) -> support::Reply {
    let start = Instant::now();
    let reply = server.send(method, path, Some(body)).await;
    let took = start.elapsed();
    println!("{method} {path}: {} in {took:?}", reply.code);
    assert!(took < limit, "{method} {path} took {took:?}");
    reply
}

async fn delete_crd(server: &Server) {
    let path = format!("{CRDS}/things.example.com");
    server.send("DELETE", &path, None).await;
    for _ in 0..200 {
        if server.send("GET", &path, None).await.code == 404 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the CRD was not deleted");
}

fn nested_schema(depth: usize) -> Value {
    let mut schema = json!({"type": "string", "maxLength": 8,
        "x-kubernetes-validations": [{"rule": "self != 'bad'"}]});
    for _ in 0..depth {
        schema = json!({"type": "object", "properties": {"a": schema}});
    }
    schema
}

fn nested_value(depth: usize, leaf: &str) -> Value {
    let mut v = json!(leaf);
    for _ in 0..depth {
        v = json!({"a": v});
    }
    v
}

#[tokio::test]
async fn hostile_crds_and_objects_get_clear_answers() {
    let server = Server::start(&[]);
    let limit = Duration::from_secs(60);
    let things = "/apis/example.com/v1/namespaces/default/things";

    // 64 schema levels are 128 JSON levels, past serde_json's recursion limit: accepted, as
    // kube-apiserver's reader accepts up to 10,000 levels.
    let deepest = crd(json!({"type": "object", "properties": {"spec": nested_schema(63)}}));
    let reply = timed(&server, "POST", CRDS, &deepest, limit).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let reply = timed(
        &server,
        "GET",
        &format!("{CRDS}/things.example.com"),
        &Value::Null,
        limit,
    )
    .await;
    assert_eq!(reply.code, 200, "{}", reply.text());
    delete_crd(&server).await;
    // 4,990 schema levels (9,983 JSON levels, under the reader's 10,000): refused as too
    // deep, as the release build refuses it (the typed decoding of the schema stops at 1,000
    // JSON levels, so an unoptimised build does not overflow its stack either).
    let head = |reply: &support::Reply| reply.text().chars().take(300).collect::<String>();
    let levels = 4_990;
    let body = format!(
        "{{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\
         \"metadata\":{{\"name\":\"things.example.com\"}},\"spec\":{{\"group\":\"example.com\",\
         \"scope\":\"Namespaced\",\"names\":{{\"plural\":\"things\",\"kind\":\"Thing\"}},\
         \"versions\":[{{\"name\":\"v1\",\"served\":true,\"storage\":true,\"schema\":{{\
         \"openAPIV3Schema\":{}{{\"type\":\"string\"}}{}}}}}]}}}}",
        "{\"type\":\"object\",\"properties\":{\"a\":".repeat(levels),
        "}}".repeat(levels)
    );
    let start = Instant::now();
    let reply = server
        .request("POST", CRDS, Some(body.into_bytes()), support::Auth::Admin)
        .await;
    assert!(start.elapsed() < limit);
    assert_eq!(reply.code, 422, "{}", head(&reply));
    assert!(
        reply.text().contains(
            "spec.versions[0].schema.openAPIV3Schema: Invalid value: \\\"object\\\": \
             schema nested deeper than 200 levels"
        ),
        "{}",
        head(&reply)
    );
    // 40 levels: accepted, and objects validated down to the leaf's rule.
    let deep = crd(json!({"type": "object", "properties": {"spec": nested_schema(39)}}));
    let reply = timed(&server, "POST", CRDS, &deep, limit).await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let object = |leaf: &str| {
        json!({"apiVersion": "example.com/v1", "kind": "Thing",
        "metadata": {"name": "deep"}, "spec": nested_value(39, leaf)})
    };
    let reply = timed(&server, "POST", things, &object("bad"), limit).await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    let message = reply.json()["message"].as_str().unwrap().to_owned();
    assert!(
        message.starts_with("Thing.example.com \"deep\" is invalid: spec.a.a.a."),
        "{message}"
    );
    assert!(
        message.ends_with(": Invalid value: \"bad\": failed rule: self != 'bad'"),
        "{message}"
    );
    assert_eq!(
        timed(&server, "POST", things, &object("good"), limit)
            .await
            .code,
        201
    );
    delete_crd(&server).await;

    // A rule of 100 KB: refused with a clear 422 (or compiled), never a hang.
    let long_rule = format!("self.x == '{}'", "a".repeat(100 * 1024));
    let big = crd(
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"x": {"type": "string", "maxLength": 10}},
        "x-kubernetes-validations": [{"rule": long_rule}]}}}),
    );
    let reply = timed(&server, "POST", CRDS, &big, limit).await;
    assert!(matches!(reply.code, 201 | 422), "{}", reply.text());
    if reply.code == 201 {
        delete_crd(&server).await;
    } else {
        assert_eq!(reply.json()["reason"], "Invalid");
    }

    // 10,000 rules.
    let rules: Vec<Value> = (0..10_000)
        .map(|i| json!({"rule": format!("self.x != {i}")}))
        .collect();
    let many = crd(
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"x": {"type": "integer"}}, "x-kubernetes-validations": rules}}}),
    );
    let reply = timed(&server, "POST", CRDS, &many, limit).await;
    assert!(matches!(reply.code, 201 | 422), "{}", reply.text());
    if reply.code == 201 {
        let object = json!({"apiVersion": "example.com/v1", "kind": "Thing",
            "metadata": {"name": "many"}, "spec": {"x": 5}});
        let reply = timed(&server, "POST", things, &object, limit).await;
        assert_eq!(reply.code, 422, "{}", reply.text());
        assert_eq!(
            reply.json()["message"],
            "Thing.example.com \"many\" is invalid: spec: Invalid value: failed rule: self.x != 5"
        );
        delete_crd(&server).await;
    }

    // Non-structural schemas: upstream's structural errors.
    let loose = crd(json!({"type": "object", "properties": {"spec": {
        "properties": {"x": {"type": "string"}}}}}));
    let reply = timed(&server, "POST", CRDS, &loose, limit).await;
    assert_eq!(reply.code, 422, "{}", reply.text());
    assert_eq!(
        reply.json()["message"],
        "CustomResourceDefinition.apiextensions.k8s.io \"things.example.com\" is invalid: \
         spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"
    );

    // A custom resource near 3 MiB is validated in bounded time; one over it is 413.
    let open = crd(
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"items": {"type": "array", "maxItems": 100000,
            "items": {"type": "string", "maxLength": 64},
            "x-kubernetes-validations": [{"rule": "self.all(i, i.size() < 64)"}]}}}}}),
    );
    assert_eq!(timed(&server, "POST", CRDS, &open, limit).await.code, 201);
    let items: Vec<String> = (0..60_000).map(|i| format!("item-{i:040}")).collect();
    let object = json!({"apiVersion": "example.com/v1", "kind": "Thing",
        "metadata": {"name": "large"}, "spec": {"items": items}});
    assert!(object.to_string().len() > 2 * 1024 * 1024);
    assert_eq!(
        timed(&server, "POST", things, &object, limit).await.code,
        201
    );
    let items: Vec<String> = (0..80_000).map(|i| format!("item-{i:040}")).collect();
    let object = json!({"apiVersion": "example.com/v1", "kind": "Thing",
        "metadata": {"name": "huge"}, "spec": {"items": items}});
    let reply = timed(&server, "POST", things, &object, limit).await;
    assert_eq!(reply.code, 413, "{}", reply.text());
    assert_eq!(reply.json()["reason"], "RequestEntityTooLarge");

    // Still serving.
    assert_eq!(server.send("GET", "/readyz", None).await.code, 200);
}

/// A `Thing` whose document nests `levels` levels (the root and `spec` two of them): `spec.a`
/// holds the rest, a chain of objects ending in `{"leaf": leaf}`, as JSON text (the test's
/// own thread does not hold such a value). `resource_version`: for an update.
fn deep_thing(name: &str, limit: i64, leaf: i64, levels: usize, resource_version: &str) -> Vec<u8> {
    let chain = levels - 3;
    format!(
        r#"{{"apiVersion":"example.com/v1","kind":"Thing","metadata":{{"name":"{name}"{resource_version}}},"spec":{{"limit":{limit},"a":{}{{"leaf":{leaf}}}{}}}}}"#,
        "{\"a\":".repeat(chain),
        "}".repeat(chain)
    )
    .into_bytes()
}

/// Issue 28: a custom resource nested 10,000 levels deep — as deep as kube-apiserver reads —
/// is created (defaulted, validated, its rules run) and read back; updated, a rule comparing
/// the deep field whole with its old value finds the innermost change; 10,001 levels get
/// encoding/json's error.
#[tokio::test]
async fn objects_nested_10000_levels_are_created_and_read() {
    let server = Server::start(&[]);
    let limit = Duration::from_secs(60);
    let things = "/apis/example.com/v1/namespaces/default/things";
    let schema = json!({"type": "object", "properties": {"spec": {
        "type": "object",
        "properties": {"mode": {"type": "string", "default": "deep"}, "limit": {"type": "integer"},
            "a": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                  "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "a is immutable"}]}},
        "x-kubernetes-validations": [{"rule": "self.limit < 3"}]}}});
    assert_eq!(
        timed(&server, "POST", CRDS, &crd(schema), limit).await.code,
        201
    );
    let write = |method: &'static str, path: String, body: Vec<u8>| {
        let server = &server;
        async move {
            let start = Instant::now();
            let reply = server
                .send_with(
                    method,
                    &path,
                    Some(body),
                    &[("content-type", "application/json")],
                )
                .await;
            assert!(start.elapsed() < limit, "took {:?}", start.elapsed());
            reply
        }
    };
    let head = |reply: &support::Reply| reply.text().chars().take(300).collect::<String>();
    let chain = |text: &str| text.matches("{\"a\":").count();

    let reply = write(
        "POST",
        things.to_owned(),
        deep_thing("deep", 1, 1, 10_000, ""),
    )
    .await;
    assert_eq!(reply.code, 201, "{}", head(&reply));
    let created = reply.text();
    assert_eq!(chain(&created), 10_000 - 2, "spec and the chain in it");
    assert!(created.contains(r#""mode":"deep""#), "defaulted");
    let reply = server.send("GET", &format!("{things}/deep"), None).await;
    assert_eq!(reply.code, 200, "{}", head(&reply));
    assert_eq!(chain(&reply.text()), 10_000 - 2);
    let rv = created
        .split(r#""resourceVersion":""#)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a resourceVersion")
        .to_owned();

    let update = format!(r#","resourceVersion":"{rv}""#);
    let reply = write(
        "PUT",
        format!("{things}/deep"),
        deep_thing("deep", 1, 2, 10_000, &update),
    )
    .await;
    assert_eq!(reply.code, 422, "{}", head(&reply));
    assert_eq!(
        reply.json()["message"],
        "Thing.example.com \"deep\" is invalid: spec.a: Invalid value: a is immutable"
    );

    let reply = write(
        "POST",
        things.to_owned(),
        deep_thing("high", 4, 1, 10_000, ""),
    )
    .await;
    assert_eq!(reply.code, 422, "{}", head(&reply));
    assert_eq!(
        reply.json()["message"],
        "Thing.example.com \"high\" is invalid: spec: Invalid value: failed rule: self.limit < 3"
    );

    let reply = write(
        "POST",
        things.to_owned(),
        deep_thing("too-deep", 1, 1, 10_001, ""),
    )
    .await;
    assert_eq!(reply.code, 400, "{}", head(&reply));
    let message = reply.json()["message"].as_str().unwrap().to_owned();
    assert!(
        message.ends_with("invalid character '{' exceeded max depth"),
        "{message}"
    );
    assert_eq!(server.send("GET", "/readyz", None).await.code, 200);
}

/// A patch body (or an apply body without `metadata`'s name, given `head`) whose document
/// nests `levels` levels: `{<head>"spec":{"a":{"a":...{"leaf":leaf}}}}`, as `deep_thing`.
fn deep_spec(head: &str, leaf: i64, levels: usize) -> Vec<u8> {
    let chain = levels - 3;
    format!(
        r#"{{{head}"spec":{{"a":{}{{"leaf":{leaf}}}{}}}}}"#,
        "{\"a\":".repeat(chain),
        "}".repeat(chain)
    )
    .into_bytes()
}

/// Issue 28: patch bodies are read as kube-apiserver reads them (encoding/json's 10,000
/// levels), not at serde_json's 128: a merge patch and a JSON patch of a custom resource
/// 1,500 levels deep reach its innermost field, server-side apply of such an object creates
/// and updates it, a merge patch deepens it to 10,000 levels, and a patch of 10,001 levels
/// gets encoding/json's error behind the patch handler's words (upstream's `error decoding
/// patch: %v` of the strict decoding).
#[tokio::test]
async fn patches_of_objects_nested_1500_levels_reach_the_leaf() {
    let server = Server::start(&[]);
    let limit = Duration::from_secs(60);
    let things = "/apis/example.com/v1/namespaces/default/things";
    let schema = json!({"type": "object", "properties": {"spec": {
        "type": "object",
        "properties": {"limit": {"type": "integer"},
            "a": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}});
    assert_eq!(
        timed(&server, "POST", CRDS, &crd(schema), limit).await.code,
        201
    );
    let send = |method: &'static str, path: String, body: Vec<u8>, ct: &'static str| {
        let server = &server;
        async move {
            let start = Instant::now();
            let reply = server
                .send_with(method, &path, Some(body), &[("content-type", ct)])
                .await;
            assert!(start.elapsed() < limit, "took {:?}", start.elapsed());
            reply
        }
    };
    let head = |reply: &support::Reply| reply.text().chars().take(300).collect::<String>();
    let chain = |text: &str| text.matches("{\"a\":").count();
    let json = "application/json";
    let merge = "application/merge-patch+json";

    let reply = send(
        "POST",
        things.to_owned(),
        deep_thing("deep", 1, 1, 1_500, ""),
        json,
    )
    .await;
    assert_eq!(reply.code, 201, "{}", head(&reply));

    // A merge patch as deep as the object: the leaf changes, the rest stays.
    let reply = send(
        "PATCH",
        format!("{things}/deep"),
        deep_spec("", 2, 1_500),
        merge,
    )
    .await;
    assert_eq!(reply.code, 200, "{}", head(&reply));
    let patched = reply.text();
    assert_eq!(chain(&patched), 1_500 - 2, "spec and the chain in it");
    assert!(patched.contains(r#"{"leaf":2}"#), "{}", head(&reply));
    assert!(patched.contains(r#""limit":1"#), "the rest kept");

    // A JSON patch whose value is the deep chain.
    let value = String::from_utf8(deep_spec("", 3, 1_500)).unwrap();
    let value = &value[r#"{"spec":{"a":"#.len()..value.len() - 2];
    let body = format!(r#"[{{"op":"replace","path":"/spec/a","value":{value}}}]"#);
    let reply = send(
        "PATCH",
        format!("{things}/deep"),
        body.into_bytes(),
        "application/json-patch+json",
    )
    .await;
    assert_eq!(reply.code, 200, "{}", head(&reply));
    assert_eq!(chain(&reply.text()), 1_500 - 2);
    assert!(reply.text().contains(r#"{"leaf":3}"#), "{}", head(&reply));

    // Server-side apply of a deep object: created, then updated at the leaf.
    let apply_head =
        r#""apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"applied"},"#;
    let apply = |leaf| {
        send(
            "PATCH",
            format!("{things}/applied?fieldManager=deep"),
            deep_spec(apply_head, leaf, 1_500),
            "application/apply-patch+yaml",
        )
    };
    let reply = apply(1).await;
    assert_eq!(reply.code, 201, "{}", head(&reply));
    assert_eq!(chain(&reply.text()), 1_500 - 2);
    let reply = apply(4).await;
    assert_eq!(reply.code, 200, "{}", head(&reply));
    assert!(reply.text().contains(r#"{"leaf":4}"#), "{}", head(&reply));

    // As deep as encoding/json reads: the object grows to 10,000 levels (the merge walks it
    // on the server's deep stack).
    let reply = send(
        "PATCH",
        format!("{things}/deep"),
        deep_spec("", 6, 10_000),
        merge,
    )
    .await;
    assert_eq!(reply.code, 200, "{}", head(&reply));
    assert_eq!(chain(&reply.text()), 10_000 - 2);
    assert!(reply.text().contains(r#"{"leaf":6}"#), "{}", head(&reply));

    // Past encoding/json's 10,000 levels.
    let reply = send(
        "PATCH",
        format!("{things}/deep"),
        deep_spec("", 5, 10_001),
        merge,
    )
    .await;
    assert_eq!(reply.code, 400, "{}", head(&reply));
    assert_eq!(
        reply.json()["message"],
        "error decoding patch: invalid character '{' exceeded max depth"
    );
    let reply = server.send("GET", &format!("{things}/deep"), None).await;
    assert!(reply.text().contains(r#"{"leaf":6}"#), "unchanged");
    assert_eq!(server.send("GET", "/readyz", None).await.code, 200);
}

/// An apply body for `Thing` `name` whose `spec.a` is a chain of `a_fields` maps (each under
/// field `a`), the innermost `{leaf: value}`: the document nests `a_fields + 2` levels.
fn deep_apply(name: &str, a_fields: usize, leaf: &str, value: i64) -> Vec<u8> {
    format!(
        r#"{{"apiVersion":"example.com/v1","kind":"Thing","metadata":{{"name":"{name}"}},"spec":{{"a":{}{{"{leaf}":{value}}}{}}}}}"#,
        "{\"a\":".repeat(a_fields - 1),
        "}".repeat(a_fields - 1)
    )
    .into_bytes()
}

/// The number of `f:a` steps from `fieldsV1`'s `f:spec` down its chain, and the keys of the
/// map where the chain ends (walked without recursion).
fn fields_chain(fields: &Value) -> (usize, Vec<String>) {
    let mut node = &fields["f:spec"];
    let mut steps = 0;
    while let Some(next) = node.get("f:a") {
        node = next;
        steps += 1;
    }
    let keys = node
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    (steps, keys)
}

/// Issue 28: server-side apply owns fields at any depth the server reads, as
/// structured-merge-diff does (`typed/tofieldset.go` has no depth limit): two managers that
/// apply different leaves 300 and 1,500 levels deep in one custom resource both succeed
/// (the chain they share is no conflict), the object holds both leaves and each manager's
/// `fieldsV1` names its own leaf at its depth; manager `a` then changing `b`'s leaf gets
/// upstream's conflict (`internal.NewConflictError`) naming the deep path.
#[tokio::test]
async fn appliers_of_fields_1500_levels_deep_own_their_own_leaves() {
    let server = Server::start(&[]);
    let limit = Duration::from_secs(60);
    let thing = "/apis/example.com/v1/namespaces/default/things/shared";
    let schema = json!({"type": "object", "properties": {"spec": {
        "type": "object",
        "properties": {"a": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}});
    assert_eq!(
        timed(&server, "POST", CRDS, &crd(schema), limit).await.code,
        201
    );
    let apply = |manager: &'static str, body: Vec<u8>| {
        let server = &server;
        async move {
            let start = Instant::now();
            let reply = server
                .send_with(
                    "PATCH",
                    &format!("{thing}?fieldManager={manager}"),
                    Some(body),
                    &[("content-type", "application/apply-patch+yaml")],
                )
                .await;
            println!(
                "apply by {manager}: {} in {:?}",
                reply.code,
                start.elapsed()
            );
            assert!(start.elapsed() < limit, "took {:?}", start.elapsed());
            reply
        }
    };
    let head = |reply: &support::Reply| reply.text().chars().take(300).collect::<String>();

    let reply = apply("a", deep_apply("shared", 298, "x", 1)).await;
    assert_eq!(reply.code, 201, "{}", head(&reply));
    let reply = apply("b", deep_apply("shared", 1_498, "y", 2)).await;
    assert_eq!(reply.code, 200, "{}", head(&reply));

    let reply = server.send("GET", thing, None).await;
    assert_eq!(reply.code, 200, "{}", head(&reply));
    let text = reply.text();
    kcel_stdlib::documents::with_deep_stack(|| {
        let (object, _) = kcel_stdlib::documents::read_body(text.as_bytes(), false).unwrap();
        // The object: `x` where `a` put it, `y` where `b` did, under one chain.
        let mut node = &object["spec"];
        let mut depth = 0;
        let mut leaves = Vec::new();
        while let Some(next) = node.get("a") {
            node = next;
            depth += 1;
            if let Some(x) = node.get("x") {
                leaves.push(("x", depth, x.clone()));
            }
        }
        leaves.push(("y", depth, node["y"].clone()));
        assert_eq!(leaves, [("x", 298, json!(1)), ("y", 1_498, json!(2))]);
        let entries = object["metadata"]["managedFields"].as_array().unwrap();
        let owned: Vec<(&str, (usize, Vec<String>))> = entries
            .iter()
            .map(|e| (e["manager"].as_str().unwrap(), fields_chain(&e["fieldsV1"])))
            .collect();
        assert_eq!(
            owned,
            [
                ("a", (298, vec![".".to_owned(), "f:x".to_owned()])),
                ("b", (1_498, vec![".".to_owned(), "f:y".to_owned()])),
            ]
        );
        drop(object);
    });

    // `a` sets `b`'s leaf: a conflict on its path, 1,500 elements long.
    let reply = apply("a", deep_apply("shared", 1_498, "y", 3)).await;
    assert_eq!(reply.code, 409, "{}", head(&reply));
    assert_eq!(
        reply.json()["message"],
        format!(
            "Apply failed with 1 conflict: conflict with \"b\": .spec{}.y",
            ".a".repeat(1_498)
        )
    );
    assert_eq!(server.send("GET", "/readyz", None).await.code, 200);
}
