//! `fieldValidation` (Strict, Warn — the default — and Ignore) on every way an object is
//! written, with upstream's bodies and texts: kubernetes/kubernetes
//! test/integration/apiserver/field_validation_test.go (invalidBodyJSON, invalidBodyYAML,
//! the merge and JSON patch bodies of testFieldValidationPatchTyped, crdInvalidBody and
//! crdInvalidBodyYAML of testFieldValidationPostCRD): unknown and duplicate fields of JSON
//! and YAML bodies of built-in kinds and custom resources, of merge and JSON patches.

mod support;

use serde_json::{Value, json};
use support::{Reply, Server};

const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";

/// upstream invalidBodyJSON, named `name`.
fn invalid_body_json(name: &str) -> String {
    format!(
        r#"
	{{
		"apiVersion": "apps/v1",
		"kind": "Deployment",
		"metadata": {{
			"name": "dupename",
			"name": "{name}",
			"labels": {{"app": "nginx"}},
			"unknownMeta": "metaVal"
		}},
		"spec": {{
			"unknown1": "val1",
			"unknownDupe": "valDupe",
			"unknownDupe": "valDupe2",
			"paused": true,
			"paused": false,
			"selector": {{
				"matchLabels": {{
					"app": "nginx"
				}}
			}},
			"template": {{
				"metadata": {{
					"labels": {{
						"app": "nginx"
					}}
				}},
				"spec": {{
					"containers": [{{
						"name":  "nginx",
						"image": "nginx:latest",
						"unknownNested": "val1",
						"imagePullPolicy": "Always",
						"imagePullPolicy": "Never"
					}}]
				}}
			}}
		}}
	}}
		"#
    )
}

/// upstream invalidBodyYAML, named `name`.
fn invalid_body_yaml(name: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: dupename
  name: {name}
  unknownMeta: metaVal
  labels:
    app: nginx
spec:
  unknown1: val1
  unknownDupe: valDupe
  unknownDupe: valDupe2
  paused: true
  paused: false
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:latest
        unknownNested: val1
        imagePullPolicy: Always
        imagePullPolicy: Never"
    )
}

fn warnings(reply: &Reply) -> Vec<String> {
    reply
        .headers
        .get_all("warning")
        .iter()
        .map(|v| {
            let text = v.to_str().unwrap();
            // `299 - "<text>"`, the text quoted as Go's strconv.Quote quotes it.
            let quoted = text.strip_prefix("299 - ").unwrap();
            serde_json::from_str::<String>(quoted).unwrap()
        })
        .collect()
}

async fn post(server: &Server, path: &str, query: &str, body: &str, yaml: bool) -> Reply {
    let content_type = if yaml {
        "application/yaml"
    } else {
        "application/json"
    };
    server
        .send_with(
            "POST",
            &format!("{path}{query}"),
            Some(body.as_bytes().to_vec()),
            &[("content-type", content_type)],
        )
        .await
}

fn message(reply: &Reply) -> String {
    reply.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

const JSON_WARNINGS: [&str; 7] = [
    r#"duplicate field "metadata.name""#,
    r#"unknown field "metadata.unknownMeta""#,
    r#"unknown field "spec.unknown1""#,
    r#"unknown field "spec.unknownDupe""#,
    r#"duplicate field "spec.paused""#,
    r#"unknown field "spec.template.spec.containers[0].unknownNested""#,
    r#"duplicate field "spec.template.spec.containers[0].imagePullPolicy""#,
];

const YAML_WARNINGS: [&str; 8] = [
    r#"line 5: key "name" already set in map"#,
    r#"line 12: key "unknownDupe" already set in map"#,
    r#"line 14: key "paused" already set in map"#,
    r#"line 28: key "imagePullPolicy" already set in map"#,
    r#"unknown field "metadata.unknownMeta""#,
    r#"unknown field "spec.template.spec.containers[0].unknownNested""#,
    r#"unknown field "spec.unknown1""#,
    r#"unknown field "spec.unknownDupe""#,
];

/// testFieldValidationPost: JSON and YAML bodies under each directive.
#[tokio::test]
async fn creates_of_built_in_kinds() {
    let server = Server::start(&["--storage", "memory"]);
    let strict = post(
        &server,
        DEPLOYMENTS,
        "?fieldValidation=Strict",
        &invalid_body_json("s"),
        false,
    )
    .await;
    assert_eq!(strict.code, 400, "{}", strict.text());
    assert_eq!(
        message(&strict),
        format!(
            "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: {}",
            JSON_WARNINGS.join(", ")
        )
    );
    for query in ["?fieldValidation=Warn", ""] {
        let name = format!("w{}", query.len());
        let warned = post(
            &server,
            DEPLOYMENTS,
            query,
            &invalid_body_json(&name),
            false,
        )
        .await;
        assert_eq!(warned.code, 201, "{}", warned.text());
        assert_eq!(warnings(&warned), JSON_WARNINGS);
    }
    let ignored = post(
        &server,
        DEPLOYMENTS,
        "?fieldValidation=Ignore",
        &invalid_body_json("i"),
        false,
    )
    .await;
    assert_eq!(ignored.code, 201);
    assert!(warnings(&ignored).is_empty());

    let strict = post(
        &server,
        DEPLOYMENTS,
        "?fieldValidation=Strict",
        &invalid_body_yaml("ys"),
        true,
    )
    .await;
    assert_eq!(strict.code, 400, "{}", strict.text());
    assert_eq!(
        message(&strict),
        "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: \
         yaml: unmarshal errors:\n  line 5: key \"name\" already set in map\n  line 12: key \
         \"unknownDupe\" already set in map\n  line 14: key \"paused\" already set in map\n  \
         line 28: key \"imagePullPolicy\" already set in map, unknown field \
         \"metadata.unknownMeta\", unknown field \
         \"spec.template.spec.containers[0].unknownNested\", unknown field \"spec.unknown1\", \
         unknown field \"spec.unknownDupe\""
    );
    for (query, name) in [("?fieldValidation=Warn", "yw"), ("", "yd")] {
        let warned = post(&server, DEPLOYMENTS, query, &invalid_body_yaml(name), true).await;
        assert_eq!(warned.code, 201, "{}", warned.text());
        assert_eq!(warnings(&warned), YAML_WARNINGS);
    }
    let ignored = post(
        &server,
        DEPLOYMENTS,
        "?fieldValidation=Ignore",
        &invalid_body_yaml("yi"),
        true,
    )
    .await;
    assert_eq!(ignored.code, 201);
    assert!(warnings(&ignored).is_empty());
}

/// testFieldValidationPatchTyped: the merge patch's own duplicates (decoded untyped: the
/// unknown `spec.unknownDupe` too), then the patched object's unknown fields; a JSON patch's
/// operations decoded typed (`json patch unknown field "[0].foo"`).
#[tokio::test]
async fn patches_of_built_in_kinds() {
    let server = Server::start(&["--storage", "memory"]);
    let valid = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "p", "labels": {"app": "nginx"}},
        "spec": {"selector": {"matchLabels": {"app": "nginx"}},
            "template": {"metadata": {"labels": {"app": "nginx"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:latest",
                    "imagePullPolicy": "Always"}]}},
            "replicas": 2}});
    assert_eq!(
        server.send("POST", DEPLOYMENTS, Some(&valid)).await.code,
        201
    );
    let merge_patch = r#"
{
	"spec": {
		"unknown1": "val1",
		"unknownDupe": "valDupe",
		"unknownDupe": "valDupe2",
		"paused": true,
		"paused": false,
		"template": {
			"spec": {
				"containers": [{
					"name": "nginx",
					"image": "nginx:latest",
					"unknownNested": "val1",
					"imagePullPolicy": "Always",
					"imagePullPolicy": "Never"
				}]
			}
		}
	}
}
	"#;
    let expected = [
        r#"duplicate field "spec.unknownDupe""#,
        r#"duplicate field "spec.paused""#,
        r#"duplicate field "spec.template.spec.containers[0].imagePullPolicy""#,
        r#"unknown field "spec.template.spec.containers[0].unknownNested""#,
        r#"unknown field "spec.unknown1""#,
        r#"unknown field "spec.unknownDupe""#,
    ];
    let patch = |query: &'static str, kind: &'static str, body: &'static str| {
        let server = &server;
        async move {
            server
                .send_with(
                    "PATCH",
                    &format!("{DEPLOYMENTS}/p{query}"),
                    Some(body.as_bytes().to_vec()),
                    &[("content-type", kind)],
                )
                .await
        }
    };
    let strict = patch(
        "?fieldValidation=Strict",
        "application/merge-patch+json",
        merge_patch,
    )
    .await;
    assert_eq!(strict.code, 422, "{}", strict.text());
    assert!(
        message(&strict).ends_with(&format!("strict decoding error: {}", expected.join(", "))),
        "{}",
        message(&strict)
    );
    let warned = patch("", "application/merge-patch+json", merge_patch).await;
    assert_eq!(warned.code, 200, "{}", warned.text());
    assert_eq!(warnings(&warned), expected);
    let ignored = patch(
        "?fieldValidation=Ignore",
        "application/merge-patch+json",
        merge_patch,
    )
    .await;
    assert_eq!(ignored.code, 200);
    assert!(warnings(&ignored).is_empty());
    // The same body as a strategic merge patch (testFieldValidationSMP).
    let warned = patch("", "application/strategic-merge-patch+json", merge_patch).await;
    assert_eq!(warned.code, 200, "{}", warned.text());
    assert_eq!(warnings(&warned), expected);

    let json_patch = r#"
			[
				{"op": "add", "path": "/spec/unknown1", "value": "val1", "foo":"bar"},
				{"op": "add", "path": "/spec/unknown2", "path": "/spec/unknown3", "value": "val1"},
				{"op": "add", "path": "/spec/unknownDupe", "value": "valDupe"},
				{"op": "add", "path": "/spec/unknownDupe", "value": "valDupe2"},
				{"op": "add", "path": "/spec/paused", "value": true},
				{"op": "add", "path": "/spec/paused", "value": false},
				{"op": "add", "path": "/spec/template/spec/containers/0/unknownNested", "value": "val1"},
				{"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Always"},
				{"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Never"}
			]
			"#;
    let warned = patch("", "application/json-patch+json", json_patch).await;
    assert_eq!(warned.code, 200, "{}", warned.text());
    assert_eq!(
        warnings(&warned),
        [
            r#"json patch unknown field "[0].foo""#,
            r#"json patch duplicate field "[1].path""#,
            r#"unknown field "spec.template.spec.containers[0].unknownNested""#,
            r#"unknown field "spec.unknown1""#,
            r#"unknown field "spec.unknown3""#,
            r#"unknown field "spec.unknownDupe""#,
        ]
    );
}

fn crd() -> Value {
    // upstream crdSchemaBase (without its printf hole).
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "noxus.mygroup.example.com"},
        "spec": {
            "group": "mygroup.example.com",
            "scope": "Namespaced",
            "names": {"plural": "noxus", "kind": "Noxu"},
            "versions": [{"name": "v1beta1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
                    "type": "object",
                    "properties": {
                        "cronSpec": {"type": "string"},
                        "knownField1": {"type": "string"},
                        "embeddedObj": {"x-kubernetes-embedded-resource": true, "type": "object",
                            "properties": {"apiversion": {"type": "string"},
                                "kind": {"type": "string"}, "metadata": {"type": "object"}}},
                        "ports": {"type": "array",
                            "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
                            "x-kubernetes-list-type": "map",
                            "items": {"type": "object",
                                "required": ["containerPort", "protocol"],
                                "properties": {
                                    "containerPort": {"format": "int32", "type": "integer"},
                                    "hostIP": {"type": "string"},
                                    "hostPort": {"format": "int32", "type": "integer"},
                                    "name": {"type": "string"},
                                    "protocol": {"type": "string"}}}}}}}}}}]
        }
    })
}

/// testFieldValidationPostCRD: a custom resource is decoded untyped, so every repeated key
/// is reported (in document order), then the fields `metadata` decodes strictly without
/// (`metadata.unknownMeta`), pruning's unknown fields (sorted), and last the unknown fields
/// of the embedded object's `metadata` (upstream's crdInvalidBody and the expectations of its
/// schemaless twin, testFieldValidationPutCRDSchemaless; the body has no `resourceVersion`
/// here, so the YAML line numbers are one less: upstream's 6/12/14/20 are 6/11/13/19).
#[tokio::test]
async fn creates_of_custom_resources() {
    let server = Server::start(&["--storage", "memory"]);
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let created = server.send("POST", crds, Some(&crd())).await;
    assert_eq!(created.code, 201, "{}", created.text());
    let noxus = "/apis/mygroup.example.com/v1beta1/namespaces/default/noxus";
    let body = |name: &str| {
        format!(
            r#"
{{
	"apiVersion": "mygroup.example.com/v1beta1",
	"kind": "Noxu",
	"metadata": {{
		"name": "dupename",
		"name": "{name}",
		"unknownMeta": "metaVal"
	}},
	"spec": {{
		"unknown1": "val1",
		"unknownDupe": "valDupe",
		"unknownDupe": "valDupe2",
		"knownField1": "val1",
		"knownField1": "val2",
			"ports": [{{
				"name": "portName",
				"containerPort": 8080,
				"protocol": "TCP",
				"hostPort": 8081,
				"hostPort": 8082,
				"unknownNested": "val"
			}}],
		"embeddedObj": {{
			"apiVersion": "v1",
			"kind": "ConfigMap",
			"metadata": {{
				"name": "my-cm",
				"namespace": "my-ns",
				"unknownEmbeddedMeta": "foo"
			}}
		}}
	}}
}}"#
        )
    };
    let expected = [
        r#"duplicate field "metadata.name""#,
        r#"duplicate field "spec.unknownDupe""#,
        r#"duplicate field "spec.knownField1""#,
        r#"duplicate field "spec.ports[0].hostPort""#,
        r#"unknown field "metadata.unknownMeta""#,
        r#"unknown field "spec.ports[0].unknownNested""#,
        r#"unknown field "spec.unknown1""#,
        r#"unknown field "spec.unknownDupe""#,
        r#"unknown field "spec.embeddedObj.metadata.unknownEmbeddedMeta""#,
    ];
    let strict = post(&server, noxus, "?fieldValidation=Strict", &body("s"), false).await;
    assert_eq!(strict.code, 400, "{}", strict.text());
    assert!(
        message(&strict).ends_with(&format!("strict decoding error: {}", expected.join(", "))),
        "{}",
        message(&strict)
    );
    let warned = post(&server, noxus, "", &body("w"), false).await;
    assert_eq!(warned.code, 201, "{}", warned.text());
    assert_eq!(warnings(&warned), expected);

    let yaml = "
apiVersion: \"mygroup.example.com/v1beta1\"
kind: \"Noxu\"
metadata:
  name: dupename
  name: \"y\"
  unknownMeta: metaVal
spec:
  unknown1: val1
  unknownDupe: valDupe
  unknownDupe: valDupe2
  knownField1: val1
  knownField1: val2
  ports:
  - name: portName
    containerPort: 8080
    protocol: TCP
    hostPort: 8081
    hostPort: 8082
    unknownNested: val
  embeddedObj:
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: my-cm
      namespace: my-ns
      unknownEmbeddedMeta: foo";
    let warned = post(&server, noxus, "", yaml, true).await;
    assert_eq!(warned.code, 201, "{}", warned.text());
    assert_eq!(
        warnings(&warned),
        [
            r#"line 6: key "name" already set in map"#,
            r#"line 11: key "unknownDupe" already set in map"#,
            r#"line 13: key "knownField1" already set in map"#,
            r#"line 19: key "hostPort" already set in map"#,
            r#"unknown field "metadata.unknownMeta""#,
            r#"unknown field "spec.ports[0].unknownNested""#,
            r#"unknown field "spec.unknown1""#,
            r#"unknown field "spec.unknownDupe""#,
            r#"unknown field "spec.embeddedObj.metadata.unknownEmbeddedMeta""#,
        ]
    );
}
