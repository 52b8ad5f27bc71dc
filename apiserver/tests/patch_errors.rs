//! What each patch type answers for a body that does not decode or does not apply, as
//! kube-apiserver's patch handler answers (kubernetes
//! `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go`: `jsonPatcher.applyJSPatch`
//! for JSON and merge patches, `strategicPatchObject` for strategic merge patches), over
//! HTTPS against the binary and through real kubectl (`KCEL_KUBECTL`, skipped visibly
//! without it).

mod support;

use serde_json::{Value, json};
use support::{Kubectl, Reply, Server};

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
const JSON: &str = "application/json-patch+json";
const MERGE: &str = "application/merge-patch+json";
const STRATEGIC: &str = "application/strategic-merge-patch+json";

async fn send_patch(server: &Server, path: &str, kind: &str, body: &[u8]) -> Reply {
    server
        .send_with(
            "PATCH",
            path,
            Some(body.to_vec()),
            &[("content-type", kind)],
        )
        .await
}

async fn patch(server: &Server, path: &str, kind: &str, body: &[u8]) -> (u16, Value) {
    let reply = send_patch(server, path, kind, body).await;
    let json = reply.json();
    (reply.code, json)
}

/// The code, reason and message of a failed patch of ConfigMap `demo` (`query`: after `?`).
async fn refused(server: &Server, query: &str, kind: &str, body: &str) -> (u16, String, String) {
    let path = format!("{CONFIGMAPS}/demo?{query}");
    let (code, status) = patch(server, &path, kind, body.as_bytes()).await;
    assert_eq!(status["kind"], "Status", "{status}");
    (
        code,
        status["reason"].as_str().unwrap_or("").to_owned(),
        status["message"].as_str().unwrap_or("").to_owned(),
    )
}

fn answer(code: u16, reason: &str, message: &str) -> (u16, String, String) {
    (code, reason.to_owned(), message.to_owned())
}

#[tokio::test]
async fn each_patch_type_words_an_undecodable_body_as_upstream() {
    let server = Server::start(&[]);
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "demo"}, "data": {"a": "1"}});
    assert_eq!(server.send("POST", CONFIGMAPS, Some(&cm)).await.code, 201);
    let bad = |m: &str| answer(400, "BadRequest", m);
    let struct_type = "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; \
                       Kind string \"json:\\\"kind,omitempty\\\"\" }";
    // (query, content type, body, answer)
    let cases = [
        // JSON patch under Warn (no fieldValidation): sigs.k8s.io/json's UnmarshalStrict
        // into []handlers.jsonPatchOp, `error decoding patch: %v`.
        (
            "",
            JSON,
            r#"{"op":"add","path":"/data/b","value":"2"}"#.to_owned(),
            bad(
                "error decoding patch: json: cannot unmarshal object into Go value of type \
                 []handlers.jsonPatchOp",
            ),
        ),
        (
            "",
            JSON,
            "[{".to_owned(),
            bad("error decoding patch: unexpected end of JSON input"),
        ),
        (
            "fieldValidation=Strict",
            JSON,
            r#"[{"op":"add","path":["data"]}]"#.to_owned(),
            bad(
                "error decoding patch: json: cannot unmarshal array into Go struct field \
                 jsonPatchOp.path of type string",
            ),
        ),
        // Under Ignore only jsonpatch.DecodePatch decodes it: its text alone.
        (
            "fieldValidation=Ignore",
            JSON,
            r#"{"op":"add"}"#.to_owned(),
            bad("json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
        ),
        (
            "fieldValidation=Ignore",
            JSON,
            "[true]".to_owned(),
            bad("json: cannot unmarshal bool into Go value of type jsonpatch.Operation"),
        ),
        (
            "fieldValidation=Ignore",
            JSON,
            "[x]".to_owned(),
            bad("invalid character 'x' looking for beginning of value"),
        ),
        // maxJSONPatchOperations.
        (
            "",
            JSON,
            format!(
                "[{}]",
                vec![r#"{"op":"test","path":"/data/a","value":"1"}"#; 10_001].join(",")
            ),
            answer(
                413,
                "RequestEntityTooLarge",
                "Request entity too large: The allowed maximum operations in a JSON patch is \
                 10000, got 10001",
            ),
        ),
        // An operation that does not apply: NewGenericServerResponse(422, ...), whose
        // message is generic.
        (
            "",
            JSON,
            r#"[{"op":"remove","path":"/data/nope"}]"#.to_owned(),
            answer(
                422,
                "Invalid",
                "the server rejected our request due to an error in our request",
            ),
        ),
        (
            "",
            JSON,
            r#"[{"op":"add","value":"x"}]"#.to_owned(),
            answer(
                422,
                "Invalid",
                "the server rejected our request due to an error in our request",
            ),
        ),
        // Merge patch: UnmarshalStrict into map[string]interface{} under Warn/Strict, then
        // evanphx/json-patch's MergePatch (`Invalid JSON Patch`).
        (
            "",
            MERGE,
            "[1]".to_owned(),
            bad(
                "error decoding patch: json: cannot unmarshal array into Go value of type \
                 map[string]interface {}",
            ),
        ),
        (
            "",
            MERGE,
            "{".to_owned(),
            bad("error decoding patch: unexpected end of JSON input"),
        ),
        ("", MERGE, "null".to_owned(), bad("Invalid JSON Patch")),
        (
            "fieldValidation=Ignore",
            MERGE,
            "{\"data\":".to_owned(),
            bad("Invalid JSON Patch"),
        ),
        (
            "fieldValidation=Ignore",
            MERGE,
            "\"x\"".to_owned(),
            bad("Invalid JSON Patch"),
        ),
        // An array becomes the document, which the codec cannot read for its kind.
        (
            "fieldValidation=Ignore",
            MERGE,
            r#"[{"a":null,"b":"<"},null]"#.to_owned(),
            answer(
                422,
                "Invalid",
                &format!(
                    " \"\" is invalid: patch: Invalid value: \"[{{\\\"b\\\":\\\"\\\\u003c\\\"}}]\": \
                     couldn't get version/kind; json parse error: json: cannot unmarshal \
                     array into Go value of type {struct_type}"
                ),
            ),
        ),
        // Strategic merge patch: the decoder's text alone, whatever the validation.
        (
            "",
            STRATEGIC,
            "[1]".to_owned(),
            bad("json: cannot unmarshal array into Go value of type map[string]interface {}"),
        ),
        (
            "fieldValidation=Ignore",
            STRATEGIC,
            "{\"data\" 1}".to_owned(),
            bad("invalid character '1' after object key"),
        ),
    ];
    for (query, kind, body, expected) in cases {
        let head: String = body.chars().take(60).collect();
        assert_eq!(
            refused(&server, query, kind, &body).await,
            expected,
            "{kind} {query} {head}"
        );
    }
    // Nothing above changed the object.
    let reply = server
        .send("GET", &format!("{CONFIGMAPS}/demo"), None)
        .await;
    assert_eq!(reply.json()["data"], json!({"a": "1"}));
    let rv = reply.json()["metadata"]["resourceVersion"].clone();

    // Bodies decoded after the object is read: a missing object is 404 first.
    for kind in [JSON, MERGE, STRATEGIC] {
        let (code, status) = patch(&server, &format!("{CONFIGMAPS}/nope"), kind, b"[x").await;
        assert_eq!(
            (code, &status["reason"]),
            (404, &json!("NotFound")),
            "{kind}"
        );
    }
    // `null` is an empty JSON patch and an empty strategic merge patch.
    for kind in [JSON, STRATEGIC] {
        let (code, object) = patch(&server, &format!("{CONFIGMAPS}/demo"), kind, b"null").await;
        assert_eq!(code, 200, "{kind}: {object}");
        assert_eq!(object["metadata"]["resourceVersion"], rv, "unchanged");
    }
    // evanphx/json-patch reads a missing map key as absent: `replace` sets it.
    let (code, object) = patch(
        &server,
        &format!("{CONFIGMAPS}/demo"),
        JSON,
        br#"[{"op":"replace","path":"/data/b","value":"2"},{"op":"test","path":"/data/b","value":"2"}]"#,
    )
    .await;
    assert_eq!(code, 200, "{object}");
    assert_eq!(object["data"], json!({"a": "1", "b": "2"}));

    // Directives applied as apimachinery's `strategicpatch` applies them, its errors answered
    // as `interpretStrategicMergePatchError` passes them on.
    let directive_cases = [
        (
            r#"{"data":{"$retainKeys":["a"],"b":"2"}}"#,
            bad("invalid patch format of retainKeys"),
        ),
        (
            r#"{"metadata":{"$deleteFromPrimitiveListfinalizers":["a"]}}"#,
            bad("invalid patch format of primitive list"),
        ),
        (
            r#"{"metadata":{"$setElementOrder":[]}}"#,
            bad("invalid patch format of setElementOrder list"),
        ),
        (
            r#"{"metadata":{"$patch":"merge"}}"#,
            answer(
                500,
                "",
                "unknown patch type: merge in map: map[$patch:merge]",
            ),
        ),
        (
            r#"{"metadata":{"finalizers":[{"$patch":"merge"}]}}"#,
            answer(
                500,
                "",
                "list element types are not identical: [[example.com/x] [map[$patch:merge]]]",
            ),
        ),
    ];
    let (code, object) = patch(
        &server,
        &format!("{CONFIGMAPS}/demo"),
        STRATEGIC,
        br#"{"metadata":{"finalizers":["example.com/x"]}}"#,
    )
    .await;
    assert_eq!(code, 200, "{object}");
    for (body, expected) in directive_cases {
        assert_eq!(
            refused(&server, "", STRATEGIC, body).await,
            expected,
            "{body}"
        );
    }
    // `$patch: delete` empties a map; `$retainKeys` keeps the keys it lists.
    let (code, object) = patch(
        &server,
        &format!("{CONFIGMAPS}/demo"),
        STRATEGIC,
        br#"{"data":{"$retainKeys":["b","c"],"c":"3"},"metadata":{"labels":{"$patch":"delete"}}}"#,
    )
    .await;
    assert_eq!(code, 200, "{object}");
    assert_eq!(object["data"], json!({"b": "2", "c": "3"}));

    // A strategic merge patch past encoding/json's 10,000 levels: the decoder's text alone.
    let deep = format!(
        "{{\"data\":{}1{}}}",
        "{\"a\":".repeat(10_000),
        "}".repeat(10_000)
    );
    assert_eq!(
        refused(&server, "", STRATEGIC, &deep).await,
        bad("invalid character '{' exceeded max depth")
    );
}

/// A JSON patch `test` compares as evanphx/json-patch v4's `lazyNode.equal`: scalars by
/// their text, the stored object's as kube-apiserver's JSON serializer encodes it
/// (encoding/json escapes `<`, `>` and `&`), the patch's as the body writes it, and a value
/// an earlier operation put as that operation wrote it (its raw bytes, `Operation.value`);
/// a body's `"value": null` matches a missing value, and so does no `value` (v4.13.0); no
/// `value` against the whole object makes the library panic (500 in plain text).
#[tokio::test]
async fn json_patch_test_compares_texts_as_upstream() {
    let server = Server::start(&[]);
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "texts"}, "data": {"q": "a<b&c", "e": "é"}});
    assert_eq!(server.send("POST", CONFIGMAPS, Some(&cm)).await.code, 201);
    let path = format!("{CONFIGMAPS}/texts");
    let test = |at: &str, value: &str| {
        format!(
            r#"[{{"op":"test","path":"{at}"{value}}},{{"op":"add","path":"/data/ok","value":"1"}}]"#
        )
    };
    let cases = [
        (test("/data/q", r#","value":"a\u003cb\u0026c""#), 200),
        (test("/data/q", r#","value":"a<b&c""#), 422),
        (test("/data/e", r#","value":"é""#), 200),
        (test("/data/e", r#","value":"\u00e9""#), 422),
        (test("/metadata/labels", r#","value":null"#), 200),
        (test("/data/q", r#","value":null"#), 422),
        (test("/metadata/labels", ""), 200),
        (test("/data/q", ""), 422),
        (test("", ""), 500),
        (
            r#"[{"op":"add","path":"/data/p","value":"a<b"},{"op":"test","path":"/data/p","value":"a<b"}]"#.to_owned(),
            200,
        ),
        (
            r#"[{"op":"add","path":"/data/p","value":"a<b"},{"op":"test","path":"/data/p","value":"a\u003cb"}]"#.to_owned(),
            422,
        ),
    ];
    for (body, expected) in cases {
        let reply = send_patch(&server, &path, JSON, body.as_bytes()).await;
        assert_eq!(reply.code, expected, "{body}: {}", reply.text());
        if expected == 500 {
            reply.assert_panicked();
        }
    }
}

/// A JSON patch `replace` of the whole object (path `""`), as evanphx/json-patch v4.13.0's
/// `Patch.replace` does it: an object value becomes the object; a list value too, which
/// the patch handler then cannot decode as an object (422 naming `patch`, as for a merge
/// patch that is a list: `jsonPatcher.applyPatchToCurrentObject`); a scalar or a body's
/// `null` fails (the patch handler's 422 for an operation that does not apply); no `value`
/// makes the library panic (500 in plain text).
#[tokio::test]
async fn json_patch_replaces_the_whole_object_as_upstream() {
    let server = Server::start(&[]);
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "whole"}, "data": {"a": "1"}});
    assert_eq!(server.send("POST", CONFIGMAPS, Some(&cm)).await.code, 201);
    let path = format!("{CONFIGMAPS}/whole");
    let replace = |value: &str| format!(r#"[{{"op":"replace","path":""{value}}}]"#);
    let mut stored = server.send("GET", &path, None).await.json();
    stored["data"] = json!({"b": "2"});
    let body = replace(&format!(r#","value":{stored}"#));
    let (code, object) = patch(&server, &path, JSON, body.as_bytes()).await;
    assert_eq!(
        (code, &object["data"]),
        (200, &json!({"b": "2"})),
        "{object}"
    );
    for scalar in [r#","value":"x""#, r#","value":7"#, r#","value":null"#] {
        let (code, status) = patch(&server, &path, JSON, replace(scalar).as_bytes()).await;
        assert_eq!(
            (code, status["reason"].as_str()),
            (422, Some("Invalid")),
            "{scalar}: {status}"
        );
    }
    // A list: the same answer as a merge patch that is that list (which, unless the
    // validation is Ignore, fails to decode first).
    let (code, list) = patch(
        &server,
        &path,
        JSON,
        replace(r#","value":[{"b":1}]"#).as_bytes(),
    )
    .await;
    let (merge_code, merge) = patch(
        &server,
        &format!("{path}?fieldValidation=Ignore"),
        MERGE,
        br#"[{"b":1}]"#,
    )
    .await;
    assert_eq!((code, &list), (422, &merge), "{list}");
    assert_eq!(merge_code, 422);
    send_patch(&server, &path, JSON, replace("").as_bytes())
        .await
        .assert_panicked();
    let (_, object) = patch(&server, &path, JSON, b"[]").await;
    assert_eq!(object["data"], json!({"b": "2"}));
}

/// kubectl prints the server's answers: `Error from server (BadRequest): <message>` for the
/// decoding errors of each patch type (kubectl sends `fieldValidation=Strict`).
#[test]
fn kubectl_patch_prints_each_patch_types_error() {
    let Some(k) = Kubectl::start("kubectl_patch_prints_each_patch_types_error") else {
        return;
    };
    k.ok(&["create", "configmap", "demo", "--from-literal=a=1"]);
    let cases = [
        (
            "json",
            r#"{"op":"add","path":"/data/b","value":"2"}"#,
            "Error from server (BadRequest): error decoding patch: json: cannot unmarshal \
             object into Go value of type []handlers.jsonPatchOp\n",
        ),
        (
            "json",
            r#"[{"op":"add","path":"/data/b","value":"2","from":7}]"#,
            "Error from server (BadRequest): error decoding patch: json: cannot unmarshal \
             number into Go struct field jsonPatchOp.from of type string\n",
        ),
        (
            "json",
            r#"[{"op":"move","from":"/data/nope","path":"/data/b"}]"#,
            "The request is invalid: the server rejected our request due to an error in our \
             request\n",
        ),
        (
            "merge",
            "[1]",
            "Error from server (BadRequest): error decoding patch: json: cannot unmarshal \
             array into Go value of type map[string]interface {}\n",
        ),
        (
            "strategic",
            "[1]",
            "Error from server (BadRequest): json: cannot unmarshal array into Go value of \
             type map[string]interface {}\n",
        ),
        // Directives that do not apply: apimachinery's `strategicpatch` texts, answered as
        // `interpretStrategicMergePatchError` passes them on (400 for malformed directives,
        // otherwise not a Status: 500 without reason).
        (
            "strategic",
            r#"{"data":{"$retainKeys":"a"}}"#,
            "Error from server (BadRequest): invalid patch format of retainKeys\n",
        ),
        (
            "strategic",
            r#"{"metadata":{"$patch":"merge","labels":{"a":"b"}}}"#,
            "Error from server: unknown patch type: merge in map: map[$patch:merge \
             labels:map[a:b]]\n",
        ),
    ];
    for (kind, body, expected) in cases {
        let ran = k.run(&["patch", "cm", "demo", &format!("--type={kind}"), "-p", body]);
        assert_eq!(
            (ran.code, ran.stderr.as_str()),
            (1, expected),
            "{kind} {body}: {ran:?}"
        );
    }
    assert_eq!(
        k.json(&["get", "cm", "demo"])["data"],
        json!({"a": "1"}),
        "unchanged"
    );
}
