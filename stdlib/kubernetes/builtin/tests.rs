//! The decoder texts follow Go's encoding/json (`UnmarshalTypeError.Error`: "json: cannot
//! unmarshal " + Value + " into Go struct field " + Struct + "." + Field + " of type " +
//! Type; `literalStore` saving "number <text>" for fractions and out-of-range integers) as
//! sigs.k8s.io/json (kube-apiserver's decoder) keeps them, and apimachinery's
//! `intstr.IntOrString.UnmarshalJSON` (an int32 read by a fresh `json.Unmarshal`).

use super::*;
use serde_json::json;

fn deployment() -> BuiltinKind {
    kind("apps/v1", "Deployment").unwrap()
}

#[test]
fn the_catalogue_has_the_common_kinds_with_their_scope() {
    for (api_version, name, namespaced) in [
        ("v1", "ConfigMap", true),
        ("v1", "Namespace", false),
        ("v1", "Pod", true),
        ("apps/v1", "Deployment", true),
        ("batch/v1", "CronJob", true),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", false),
        ("networking.k8s.io/v1", "Ingress", true),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition", false),
        (
            "admissionregistration.k8s.io/v1",
            "ValidatingAdmissionPolicy",
            false,
        ),
    ] {
        let k = kind(api_version, name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(k.namespaced(), namespaced, "{name}");
        assert!(k.schema().resolved_node().get("properties").is_some());
    }
    assert!(kind("apps/v1beta1", "Deployment").is_none());
    assert!(kind("v1", "DeploymentList").is_none());
    assert!(kinds().count() > 90);
}

#[test]
fn type_errors_read_like_upstreams_decoder() {
    let cm = kind("v1", "ConfigMap").unwrap().schema();
    let svc = kind("v1", "Service").unwrap().schema();
    for (schema, kind, value, text) in [
        (
            cm,
            "ConfigMap",
            json!({"data": {"a": 1}}),
            "json: cannot unmarshal number into Go struct field ConfigMap.data of type string",
        ),
        (
            cm,
            "ConfigMap",
            json!({"data": "x"}),
            "json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string",
        ),
        (
            cm,
            "ConfigMap",
            json!({"binaryData": {"a": 1}}),
            "json: cannot unmarshal number into Go struct field ConfigMap.binaryData of type []uint8",
        ),
        (
            svc,
            "Service",
            json!({"spec": {"ports": [{"port": "80"}]}}),
            "json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32",
        ),
        (
            svc,
            "Service",
            json!({"spec": {"ports": [{"port": 8.5}]}}),
            "json: cannot unmarshal number 8.5 into Go struct field ServicePort.spec.ports.port of type int32",
        ),
        (
            svc,
            "Service",
            json!({"spec": {"ports": [{"port": 3000000000u64}]}}),
            "json: cannot unmarshal number 3000000000 into Go struct field ServicePort.spec.ports.port of type int32",
        ),
        (
            svc,
            "Service",
            json!({"metadata": {"labels": {"a": true}}}),
            "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string",
        ),
        (
            svc,
            "Service",
            json!({"spec": {"ports": {"port": 80}}}),
            "json: cannot unmarshal object into Go struct field ServiceSpec.spec.ports of type []v1.ServicePort",
        ),
        (
            svc,
            "Service",
            json!({"spec": {"ports": [{"port": 80, "targetPort": true}]}}),
            "json: cannot unmarshal bool into Go value of type int32",
        ),
        (
            svc,
            "Service",
            json!({"spec": {"ports": [{"port": 80, "targetPort": 1.5}]}}),
            "json: cannot unmarshal number 1.5 into Go value of type int32",
        ),
    ] {
        assert_eq!(
            schema.type_error(&value, kind).as_deref(),
            Some(text),
            "{value}"
        );
    }
    // A string into a `[]byte` is read with base64.StdEncoding, whose CorruptInputError
    // is the decoder's (Go 1.19 `json.Unmarshal([]byte(`"aGVsbG8"`), &b)`: "illegal base64
    // data at input byte 4"); resource.Quantity's UnmarshalJSON reads the bytes between the
    // quotes, so an escaped line break is no white space to trim but a backslash
    // (ParseQuantity's ErrFormatWrong).
    let secret = kind("v1", "Secret").unwrap().schema();
    let pod = kind("v1", "Pod").unwrap().schema();
    let limits = |cpu: &str| json!({"spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu": cpu}}}]}});
    for (schema, kind, value, text) in [
        (
            secret,
            "Secret",
            json!({"data": {"a": "aGVsbG8"}}),
            "illegal base64 data at input byte 4",
        ),
        (
            pod,
            "Pod",
            limits("1\n"),
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
    ] {
        assert_eq!(
            schema.type_error(&value, kind).as_deref(),
            Some(text),
            "{value}"
        );
    }
    assert_eq!(pod.type_error(&limits(" 1 "), "Pod"), None);
    assert_eq!(
        secret.type_error(&json!({"data": {"a": "aGVs\nbG8="}}), "Secret"),
        None
    );
    let fine = json!({"metadata": {"name": "x", "creationTimestamp": null},
        "spec": {"ports": [{"port": 80, "targetPort": "http"}, {"port": 81, "targetPort": 8081}]}});
    assert_eq!(svc.type_error(&fine, "Service"), None);
}

#[test]
fn unknown_fields_are_named_by_path() {
    let mut value = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "bogus": 1,
        "metadata": {"name": "x", "labels": {"a": "b"}, "nope": true},
        "spec": {"template": {"spec": {"containers": [{"name": "a", "imag": "x"}]}}}
    });
    let expected = [
        "bogus",
        "metadata.nope",
        "spec.template.spec.containers[0].imag",
    ];
    assert_eq!(deployment().schema().unknown_fields(&value), expected);
    assert_eq!(deployment().schema().prune_unknown(&mut value), expected);
    assert!(value.get("bogus").is_none());
    assert_eq!(
        value["metadata"],
        json!({"name": "x", "labels": {"a": "b"}})
    );
}

#[test]
fn preserved_unknown_fields_stay() {
    // apiextensions.k8s.io's JSONSchemaProps: `default` and `example` are raw JSON.
    let crd = kind("apiextensions.k8s.io/v1", "CustomResourceDefinition").unwrap();
    let object = json!({"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
        "type": "object", "default": {"anything": 1}, "bogus": true}}}]}});
    assert_eq!(
        crd.schema().unknown_fields(&object),
        ["spec.versions[0].schema.openAPIV3Schema.bogus"]
    );
}

#[test]
fn strict_errors_in_document_order() {
    let body = br#"{"metadata": {"name": "a", "name": "b", "unknownMeta": 1},
        "spec": {"unknown1": 1, "unknownDupe": 1, "unknownDupe": 2, "paused": true,
                 "paused": false, "template": {"spec": {"containers": [
                    {"name": "c", "unknownNested": 1, "imagePullPolicy": "A",
                     "imagePullPolicy": "B"}]}}},
        "apiVersion": "apps/v1", "kind": "Deployment"}"#;
    assert_eq!(
        deployment()
            .schema()
            .strict_errors(body)
            .unwrap()
            .join(", "),
        "duplicate field \"metadata.name\", unknown field \"metadata.unknownMeta\", \
         unknown field \"spec.unknown1\", unknown field \"spec.unknownDupe\", \
         duplicate field \"spec.paused\", \
         unknown field \"spec.template.spec.containers[0].unknownNested\", \
         duplicate field \"spec.template.spec.containers[0].imagePullPolicy\""
    );
}

#[test]
fn containers_merge_by_name() {
    let containers = deployment()
        .schema()
        .field("spec")
        .and_then(|s| s.field("template"))
        .and_then(|s| s.field("spec"))
        .and_then(|s| s.field("containers"))
        .unwrap();
    assert!(containers.patch_strategy_has("merge"));
    assert_eq!(containers.merge_key(), Some("name"));
    let env = containers.items().unwrap().field("env").unwrap();
    assert_eq!(env.merge_key(), Some("name"));
}

#[test]
fn validate_decodes_then_checks_metadata_by_scope() {
    let ns = kind("v1", "Namespace").unwrap();
    let outcome = ns.validate(&json!({"apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": "Bad_Name", "namespace": "x"}}));
    assert_eq!(outcome.decode_error, None);
    let texts: Vec<String> = outcome.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        texts,
        [
            "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must \
             consist of lower case alphanumeric characters or '-', and must start and end \
             with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for \
             validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
            "metadata.namespace: Forbidden: not allowed on this type",
        ]
    );
    let svc = kind("v1", "Service").unwrap();
    let outcome = svc.validate(&json!({"metadata": {"name": "1web"}}));
    assert_eq!(
        outcome.errors[0].to_string(),
        "metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case \
         alphanumeric characters or '-', start with an alphabetic character, and end with an \
         alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is \
         '[a-z]([-a-z0-9]*[a-z0-9])?')"
    );
    let role = kind("rbac.authorization.k8s.io/v1", "ClusterRole").unwrap();
    assert!(
        role.validate(&json!({"metadata": {"name": "system:Bad_Name"}}))
            .errors
            .is_empty()
    );
    assert_eq!(
        role.validate(&json!({"metadata": {"name": "a/b%"}})).errors[0].to_string(),
        "metadata.name: Invalid value: \"a/b%\": may not contain '/'"
    );
    let bad = deployment().validate(&json!({"metadata": {"name": 1}, "spec": {"x": 1}}));
    assert_eq!(
        bad.decode_error.as_deref(),
        Some(
            "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot \
             unmarshal number into Go struct field ObjectMeta.metadata.name of type string"
        )
    );
    assert!(bad.unknown_fields.is_empty() && bad.errors.is_empty());
}

#[test]
fn deep_values_are_walked_within_bounds() {
    let mut v = json!(1);
    for _ in 0..900 {
        v = json!({ "a": v });
    }
    let object = json!({"metadata": {"annotations": {"x": "y"}}, "data": {"k": "v"}, "deep": v});
    let cm = kind("v1", "ConfigMap").unwrap();
    assert_eq!(
        cm.validate(&object).unknown_fields,
        ["unknown field \"deep\""]
    );
}
