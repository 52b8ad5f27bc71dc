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
    // A value a marshaller holds is kept as given.
    let mut counter = json!({"value": "1000m"});
    go_round_trip("io.k8s.api.resource.v1.Counter", &mut counter);
    assert_eq!(counter, json!({"value": "1000m"}));
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
