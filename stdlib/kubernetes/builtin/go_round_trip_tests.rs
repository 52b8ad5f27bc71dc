//! One test per rule of the round trip, each naming the Go type and field (k8s.io/api,
//! k8s.io/apimachinery, k8s.io/apiextensions-apiserver at the commits `go_fields.json`
//! records) whose tag or kind decides it.

use serde_json::{Value as Json, json};

use super::*;

fn round_trip(schema: &str, mut object: Json) -> Json {
    assert!(
        go_round_trip(schema, &mut object),
        "{schema} not in the table"
    );
    object
}

const CONFIG_MAP: &str = "io.k8s.api.core.v1.ConfigMap";
const ROLE: &str = "io.k8s.api.rbac.v1.Role";

#[test]
fn omitempty_empty_map_and_slice_are_dropped() {
    // core/v1 ConfigMap: `Data map[string]string` and `BinaryData map[string][]byte`, both
    // `omitempty`; metav1 ObjectMeta: `Finalizers []string`, `Labels map[string]string`,
    // `Annotations`, `OwnerReferences`, all `omitempty`.
    let object = round_trip(
        CONFIG_MAP,
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "c", "finalizers": [], "labels": {}, "annotations": {},
                            "ownerReferences": []},
               "data": {}, "binaryData": {}}),
    );
    assert_eq!(
        object,
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    );
}

#[test]
fn omitempty_zero_scalars_are_dropped() {
    // metav1 ObjectMeta: `GenerateName string`, `Namespace string`, `Generation int64`, all
    // `omitempty`; TypeMeta (embedded, its fields promoted): `Kind string` `omitempty`.
    let object = round_trip(
        CONFIG_MAP,
        json!({"kind": "", "metadata": {"name": "c", "generateName": "", "namespace": "",
                                        "generation": 0}}),
    );
    assert_eq!(object, json!({"metadata": {"name": "c"}}));
    // apps/v1 DeploymentSpec: `Paused bool` and `MinReadySeconds int32`, `omitempty`.
    let mut spec = json!({"paused": false, "minReadySeconds": 0, "template": {}});
    go_round_trip("io.k8s.api.apps.v1.DeploymentSpec", &mut spec);
    assert!(spec.get("paused").is_none() && spec.get("minReadySeconds").is_none());
}

#[test]
fn pointers_to_zero_values_are_kept() {
    // apps/v1 DeploymentSpec: `Replicas *int32` `omitempty` (a non-nil pointer is not
    // empty); core/v1 ConfigMap: `Immutable *bool` `omitempty`.
    let mut spec = json!({"replicas": 0, "template": {}});
    go_round_trip("io.k8s.api.apps.v1.DeploymentSpec", &mut spec);
    assert_eq!(spec["replicas"], json!(0));
    let object = round_trip(CONFIG_MAP, json!({"metadata": {}, "immutable": false}));
    assert_eq!(object["immutable"], json!(false));
    // A nil pointer (`null`) with `omitempty` is dropped: DeploymentSpec
    // `RevisionHistoryLimit *int32`.
    let mut spec = json!({"revisionHistoryLimit": null, "template": {}});
    go_round_trip("io.k8s.api.apps.v1.DeploymentSpec", &mut spec);
    assert!(spec.get("revisionHistoryLimit").is_none());
}

#[test]
fn a_struct_is_never_dropped_by_omitempty() {
    // core/v1 Service: `Spec ServiceSpec` and `Status ServiceStatus`, `omitempty` on
    // structs; ServiceStatus: `LoadBalancer LoadBalancerStatus` `omitempty`. So a Service
    // without status answers `"status": {"loadBalancer": {}}`.
    let object = round_trip(
        "io.k8s.api.core.v1.Service",
        json!({"metadata": {"name": "s"}}),
    );
    assert_eq!(
        object,
        json!({"metadata": {"name": "s"}, "spec": {}, "status": {"loadBalancer": {}}})
    );
    // A struct given empty keeps its fields' rules: ObjectMeta `metadata: {}` stays.
    let object = round_trip(CONFIG_MAP, json!({"metadata": {}}));
    assert_eq!(object, json!({"metadata": {}}));
}

#[test]
fn a_nil_slice_without_omitempty_is_null() {
    // rbac/v1 Role: `Rules []PolicyRule` without `omitempty`.
    let object = round_trip(ROLE, json!({"metadata": {"name": "r"}}));
    assert_eq!(object, json!({"metadata": {"name": "r"}, "rules": null}));
    // An empty slice is not nil: `"rules": []` stays.
    let object = round_trip(ROLE, json!({"metadata": {"name": "r"}, "rules": []}));
    assert_eq!(object["rules"], json!([]));
    // rbac/v1 PolicyRule: `Verbs []string` without `omitempty`, the other lists with it.
    let object = round_trip(
        ROLE,
        json!({"metadata": {}, "rules": [{"apiGroups": [], "resources": ["pods"]}]}),
    );
    assert_eq!(
        object["rules"],
        json!([{"resources": ["pods"], "verbs": null}])
    );
}

#[test]
fn a_missing_string_or_number_without_omitempty_is_its_zero() {
    // rbac/v1 RoleRef: `APIGroup`, `Kind`, `Name string` without `omitempty`; Subject:
    // `Kind`, `Name` without, `APIGroup`, `Namespace` with.
    let object = round_trip(
        "io.k8s.api.rbac.v1.RoleBinding",
        json!({"metadata": {}, "roleRef": {"kind": "Role"}, "subjects": [{"apiGroup": ""}]}),
    );
    assert_eq!(
        object["roleRef"],
        json!({"apiGroup": "", "kind": "Role", "name": ""})
    );
    assert_eq!(object["subjects"], json!([{"kind": "", "name": ""}]));
    // core/v1 ContainerPort: `ContainerPort int32` without `omitempty`.
    let mut port = json!({"name": "http"});
    go_round_trip("io.k8s.api.core.v1.ContainerPort", &mut port);
    assert_eq!(port["containerPort"], json!(0));
}

#[test]
fn nested_zero_structs_are_encoded_field_by_field() {
    // apps/v1 DeploymentSpec: `Selector *metav1.LabelSelector` (nil: `null`, no
    // `omitempty`), `Template PodTemplateSpec` (a struct), `Strategy DeploymentStrategy`
    // (a struct, `omitempty`); PodTemplateSpec: `ObjectMeta`, `Spec PodSpec` (structs);
    // PodSpec: `Containers []Container` without `omitempty`.
    let mut spec = json!({});
    go_round_trip("io.k8s.api.apps.v1.DeploymentSpec", &mut spec);
    assert_eq!(
        spec,
        json!({"selector": null, "strategy": {},
               "template": {"metadata": {}, "spec": {"containers": null}}})
    );
}

#[test]
fn custom_marshallers_encode_their_own_zero() {
    // metav1 Condition: `LastTransitionTime Time` without `omitempty`: Time's MarshalJSON
    // writes `null` for the zero time.
    let mut condition = json!({"type": "Ready", "status": "True"});
    go_round_trip(
        "io.k8s.apimachinery.pkg.apis.meta.v1.Condition",
        &mut condition,
    );
    assert_eq!(condition["lastTransitionTime"], Json::Null);
    assert_eq!(condition["reason"], json!(""));
    assert_eq!(condition["message"], json!(""));
    // core/v1 TCPSocketAction: `Port intstr.IntOrString` without `omitempty`: its zero is
    // the integer 0.
    let mut action = json!({});
    go_round_trip("io.k8s.api.core.v1.TCPSocketAction", &mut action);
    assert_eq!(action, json!({"port": 0}));
    // apps/v1 ControllerRevision: `Data runtime.RawExtension` without `omitempty`: `null`.
    let object = round_trip(
        "io.k8s.api.apps.v1.ControllerRevision",
        json!({"metadata": {}, "revision": 1}),
    );
    assert_eq!(object["data"], Json::Null);
    // resource/v1 Counter: `Value resource.Quantity` without `omitempty`: `"0"`.
    let mut counter = json!({});
    go_round_trip("io.k8s.api.resource.v1.Counter", &mut counter);
    assert_eq!(counter, json!({"value": "0"}));
}

#[test]
fn quantities_are_written_in_canonical_form() {
    // core/v1 ResourceRequirements: `Limits`, `Requests ResourceList` (map[ResourceName]
    // resource.Quantity); Quantity.UnmarshalJSON (ParseQuantity of the trimmed text, a bare
    // number read as its text) then MarshalJSON (String()). The expectations: quantity.go's
    // doc comment ("1.5 will be serialized as 1500m", "1.5Gi will be serialized as
    // 1536Mi"), quantity_test.go TestQuantityParseEmit (1024Mi is 1Gi, 1000M is 1G, 1Ki
    // kept), TestJSONWhitespace (" 1" and the number 1 are 1), and ParseQuantity keeping
    // canonical-looking texts as written (`+1k`, `100m`).
    let mut resources = json!({
        "limits": {"cpu": "1000m", "memory": "1.5Gi", "a": 2, "b": 0.5, "c": " 1",
                   "d": "1024Mi", "e": "1000M", "f": "1Ki", "g": "+1k", "h": "100m"},
        "requests": {"cpu": 1.5, "memory": null}});
    go_round_trip("io.k8s.api.core.v1.ResourceRequirements", &mut resources);
    assert_eq!(
        resources,
        json!({
            "limits": {"cpu": "1", "memory": "1536Mi", "a": "2", "b": "500m", "c": "1",
                       "d": "1Gi", "e": "1G", "f": "1Ki", "g": "+1k", "h": "100m"},
            // A `null` map value decodes to the zero Quantity, written "0".
            "requests": {"cpu": "1500m", "memory": "0"}})
    );
    // resource/v1 Counter: `Value resource.Quantity`, not a pointer.
    let mut counter = json!({"value": "1000m"});
    go_round_trip("io.k8s.api.resource.v1.Counter", &mut counter);
    assert_eq!(counter, json!({"value": "1"}));
}

#[test]
fn times_are_written_in_utc() {
    // metav1 Condition: `LastTransitionTime Time`; Time.UnmarshalJSON is
    // time.Parse(time.RFC3339) (a fraction accepted, any offset), MarshalJSON
    // t.UTC().Format(time.RFC3339) (whole seconds), `null` for the zero time (the instant:
    // 01:00 at +01:00 on January 1 of year 1 is it).
    for (given, written) in [
        (
            json!("2024-01-01T02:00:00.5+02:00"),
            json!("2024-01-01T00:00:00Z"),
        ),
        (
            json!("2010-02-04T21:00:57-08:00"),
            json!("2010-02-05T05:00:57Z"),
        ),
        (json!("2024-02-29T1:00:00Z"), json!("2024-02-29T01:00:00Z")),
        (json!("0001-01-01T01:00:00+01:00"), Json::Null),
    ] {
        let mut condition = json!({"type": "Ready", "status": "True", "reason": "R",
                                   "message": "", "lastTransitionTime": given});
        go_round_trip(
            "io.k8s.apimachinery.pkg.apis.meta.v1.Condition",
            &mut condition,
        );
        assert_eq!(condition["lastTransitionTime"], written, "{given}");
    }
    // ObjectMeta: `CreationTimestamp Time` `omitzero` (Time.IsZero asks the instant);
    // `DeletionTimestamp *Time` `omitempty`: a non-nil pointer to the zero time is kept,
    // and its MarshalJSON writes `null`.
    let object = round_trip(
        CONFIG_MAP,
        json!({"metadata": {"creationTimestamp": "0001-01-01T01:00:00+01:00",
                            "deletionTimestamp": "0001-01-01T00:00:00Z"}}),
    );
    assert_eq!(object, json!({"metadata": {"deletionTimestamp": null}}));
    let object = round_trip(
        CONFIG_MAP,
        json!({"metadata": {"creationTimestamp": "2026-01-02T05:04:05.9+02:00"}}),
    );
    assert_eq!(
        object["metadata"]["creationTimestamp"],
        json!("2026-01-02T03:04:05Z")
    );
}

#[test]
fn micro_times_are_written_in_utc_with_six_digits() {
    // events/v1 Event: `EventTime metav1.MicroTime` (no `omitempty`); coordination/v1
    // LeaseSpec: `RenewTime *metav1.MicroTime`. MicroTime.UnmarshalJSON is
    // time.Parse(RFC3339Micro) (exactly six digits of fraction), MarshalJSON
    // t.UTC().Format(RFC3339Micro).
    let object = round_trip(
        "io.k8s.api.events.v1.Event",
        json!({"metadata": {}, "eventTime": "2024-06-01T12:00:00.123456+05:30"}),
    );
    assert_eq!(object["eventTime"], json!("2024-06-01T06:30:00.123456Z"));
    let mut spec = json!({"renewTime": "2017-01-01T00:00:00,123456-08:00"});
    go_round_trip("io.k8s.api.coordination.v1.LeaseSpec", &mut spec);
    assert_eq!(spec["renewTime"], json!("2017-01-01T08:00:00.123456Z"));
}

#[test]
fn durations_are_written_as_go_prints_them() {
    // metav1 Duration.UnmarshalJSON is time.ParseDuration, MarshalJSON
    // Duration.String() (Go time_test.go durationTests). No served 1.37 type has such a
    // field, so the encoding is asked directly.
    for (given, written) in [
        ("90s", "1m30s"),
        ("1.5h", "1h30m0s"),
        ("0.5s", "500ms"),
        ("1000ms", "1s"),
        ("-1m30s", "-1m30s"),
    ] {
        assert_eq!(
            Custom::Duration.reencode(&json!(given)),
            Some(json!(written)),
            "{given}"
        );
    }
    assert_eq!(Custom::Duration.reencode(&json!("1d")), None);
}

#[test]
fn bytes_are_written_as_standard_base64() {
    // core/v1 Secret: `Data map[string][]byte`; encoding/json decodes a []byte with
    // base64.StdEncoding (line breaks skipped, non-zero trailing bits accepted: "YR==" is
    // "a") and encodes it with the same encoding.
    let object = round_trip(
        "io.k8s.api.core.v1.Secret",
        json!({"metadata": {}, "data": {"a": "aGVs\nbG8=", "b": "YR==", "c": "aGVsbG8=\r\n",
                                        "d": "YQ=\n="}}),
    );
    assert_eq!(
        object["data"],
        json!({"a": "aGVsbG8=", "b": "YQ==", "c": "aGVsbG8=", "d": "YQ=="})
    );
    // admissionregistration/v1 WebhookClientConfig: `CABundle []byte` `omitempty`: a line
    // break alone decodes to no bytes, which `omitempty` leaves out.
    let mut config = json!({"caBundle": "\n"});
    go_round_trip(
        "io.k8s.api.admissionregistration.v1.WebhookClientConfig",
        &mut config,
    );
    assert_eq!(config, json!({}));
}

#[test]
fn floats_are_written_as_go_prints_them() {
    // apiextensions v1 JSONSchemaProps: `Minimum`, `Maximum`, `MultipleOf *float64`;
    // encoding/json's float64 encoder writes 1.0 as 1 and the float64 nearest
    // 9007199254740993 as 9007199254740992.
    let mut schema = json!({"type": "number", "minimum": 1.0,
                            "maximum": 9_007_199_254_740_993_u64, "multipleOf": 1.5});
    go_round_trip(
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps",
        &mut schema,
    );
    assert_eq!(schema["minimum"].to_string(), "1");
    assert_eq!(schema["maximum"].to_string(), "9007199254740992");
    assert_eq!(schema["multipleOf"].to_string(), "1.5");
}

#[test]
fn int_or_string_is_written_as_read() {
    // core/v1 ServicePort: `TargetPort intstr.IntOrString`; its MarshalJSON writes the
    // string or the int32 its UnmarshalJSON read.
    for port in [json!("http"), json!(8080), json!("08")] {
        let mut service_port = json!({"port": 80, "targetPort": port});
        go_round_trip("io.k8s.api.core.v1.ServicePort", &mut service_port);
        assert_eq!(service_port["targetPort"], port);
    }
}

#[test]
fn values_the_decoders_refuse_are_left_as_given() {
    // Typed decoding refuses these before the round trip; should one get here, it is kept.
    let mut resources = json!({"limits": {"cpu": "lots", "memory": true}});
    go_round_trip("io.k8s.api.core.v1.ResourceRequirements", &mut resources);
    assert_eq!(
        resources,
        json!({"limits": {"cpu": "lots", "memory": true}})
    );
    let mut condition = json!({"type": "T", "status": "True", "reason": "R", "message": "",
                               "lastTransitionTime": "yesterday"});
    go_round_trip(
        "io.k8s.apimachinery.pkg.apis.meta.v1.Condition",
        &mut condition,
    );
    assert_eq!(condition["lastTransitionTime"], json!("yesterday"));
    let object = round_trip(
        "io.k8s.api.core.v1.Secret",
        json!({"metadata": {}, "data": {"a": "not base64!", "b": 1}}),
    );
    assert_eq!(object["data"], json!({"a": "not base64!", "b": 1}));
}

#[test]
fn omitzero_drops_a_zero_creation_timestamp() {
    // metav1 ObjectMeta (since 1.34): `CreationTimestamp Time` tagged `omitempty,omitzero`; a
    // struct, so `omitempty` alone would keep it (as `null`), `omitzero` asks Time.IsZero.
    for zero in [Json::Null, json!("0001-01-01T00:00:00Z")] {
        let object = round_trip(
            CONFIG_MAP,
            json!({"metadata": {"name": "c", "creationTimestamp": zero}}),
        );
        assert_eq!(object, json!({"metadata": {"name": "c"}}));
    }
    let object = round_trip(
        CONFIG_MAP,
        json!({"metadata": {"creationTimestamp": "2026-01-02T03:04:05Z"}}),
    );
    assert_eq!(
        object["metadata"]["creationTimestamp"],
        json!("2026-01-02T03:04:05Z")
    );
    // `DeletionTimestamp *Time` `omitempty`: a nil pointer is dropped.
    let object = round_trip(CONFIG_MAP, json!({"metadata": {"deletionTimestamp": null}}));
    assert_eq!(object, json!({"metadata": {}}));
}

#[test]
fn null_elements_decode_to_the_element_zero() {
    // A `null` in `[]PolicyRule` decodes to a zero PolicyRule; a `null` value of
    // `map[string]string` (ConfigMap data) to "".
    let object = round_trip(ROLE, json!({"metadata": {}, "rules": [null]}));
    assert_eq!(object["rules"], json!([{"verbs": null}]));
    let object = round_trip(CONFIG_MAP, json!({"metadata": {}, "data": {"a": null}}));
    assert_eq!(object["data"], json!({"a": ""}));
}

#[test]
fn lists_and_maps_of_structs_are_walked() {
    // core/v1 PodSpec `Containers []Container`; Container `Resources ResourceRequirements`
    // (a struct, `omitempty`: `{}`), `Env []EnvVar` `omitempty` (dropped when empty).
    let mut spec = json!({"containers": [{"name": "a", "image": "nginx", "env": []}]});
    go_round_trip("io.k8s.api.core.v1.PodSpec", &mut spec);
    assert_eq!(
        spec["containers"],
        json!([{"name": "a", "image": "nginx", "resources": {}}])
    );
}

#[test]
fn schema_wrappers_encode_the_schemas_they_hold() {
    // apiextensions v1 JSONSchemaProps: `Properties map[string]JSONSchemaProps`,
    // `Required []string` and `Nullable bool` `omitempty`; `Items *JSONSchemaPropsOrArray`,
    // whose MarshalJSON encodes the JSONSchemaProps it holds.
    let mut schema = json!({"type": "object", "required": [], "nullable": false,
        "properties": {"a": {"type": "array", "items": {"type": "string", "enum": []}}}});
    go_round_trip(
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps",
        &mut schema,
    );
    assert_eq!(
        schema,
        json!({"type": "object",
               "properties": {"a": {"type": "array", "items": {"type": "string"}}}})
    );
}

#[test]
fn unknown_fields_and_structs_are_left_alone() {
    // Fields the Go types lack are the decoder's business (dropped as unknown there).
    let object = round_trip(CONFIG_MAP, json!({"metadata": {"x": []}, "extra": {}}));
    assert_eq!(object, json!({"metadata": {"x": []}, "extra": {}}));
    // A schema the table does not have.
    let mut other = json!({"a": []});
    assert!(!go_round_trip("io.k8s.nope.v1.Thing", &mut other));
    assert_eq!(other, json!({"a": []}));
    // Values of the wrong JSON type are left as given (typed decoding refuses them first).
    let object = round_trip(CONFIG_MAP, json!({"metadata": [], "data": "x"}));
    assert_eq!(object, json!({"metadata": [], "data": "x"}));
}

#[test]
fn the_round_trip_is_idempotent_on_every_kind() {
    // Every creatable kind's zero object: encoding it again changes nothing.
    for kind in super::super::kinds() {
        let mut object = json!({});
        go_round_trip(&kind.entry.schema, &mut object);
        let once = object.clone();
        go_round_trip(&kind.entry.schema, &mut object);
        assert_eq!(object, once, "{kind:?}");
    }
}

#[test]
fn the_table_reads_and_covers_the_served_structs() {
    let table = parse_table(GO_FIELDS).expect("go_fields.json reads");
    assert!(table.len() > 700, "{}", table.len());
    // Every kind in the catalogue but kube-aggregator's APIService has an entry.
    for kind in super::super::kinds() {
        let schema = &kind.entry.schema;
        assert!(
            table.contains_key(schema) || schema.starts_with("io.k8s.kube-aggregator."),
            "{schema}"
        );
    }
    // Malformed entries are refused, not a panic.
    for bad in ["", "x", "x=", "x?q", "x=!Nope", "x=[", "x=sz"] {
        assert!(parse_field(bad).is_none(), "{bad}");
    }
    assert!(parse_table("{\"types\": {\"a\": \"x=\"}}").is_none());
    assert!(parse_table("[]").is_none());
}

#[test]
fn the_vendored_table_is_the_generators_output() {
    use std::io::Write as _;
    let sources = std::env::var_os("KCEL_K8S_GO_SOURCES").unwrap_or_default();
    let skip = |why: &str| {
        let _ = writeln!(
            std::io::stderr().lock(),
            "skipped: go_fields.json against go_fields.py: {why} (set KCEL_K8S_GO_SOURCES to a \
             folder with git clones `api`, `apimachinery`, `apiextensions-apiserver`)"
        );
    };
    if sources.is_empty() {
        return skip("no Go sources");
    }
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kubernetes/builtin");
    let out = std::env::temp_dir().join(format!("kcel-go-fields-{}.json", std::process::id()));
    let run = std::process::Command::new("python3")
        .arg(here.join("go_fields.py"))
        .arg(&sources)
        .arg(&out)
        .output();
    let run = match run {
        Ok(run) => run,
        Err(e) => return skip(&format!("python3 not runnable ({e})")),
    };
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let Ok(generated) = std::fs::read(&out) else {
        return skip(&String::from_utf8_lossy(&run.stderr));
    };
    let _ = std::fs::remove_file(&out);
    let vendored = std::fs::read(here.join("go_fields.json")).unwrap();
    assert!(
        generated == vendored,
        "stdlib/kubernetes/builtin/go_fields.json differs from go_fields.py's output: rerun it"
    );
}
