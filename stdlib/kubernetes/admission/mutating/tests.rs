use super::*;
use crate::kubernetes::admission::ExpressionError;
use crate::kubernetes::admission::evaluate::EvaluationError;
use crate::kubernetes::admission::policy_set::StaticObjects;
use serde_json::json;

fn policy(name: &str, spec: Json) -> Arc<CompiledMutatingPolicy> {
    let p = json!({"metadata": {"name": name}, "spec": spec});
    let compiled = CompiledMutatingPolicy::new(serde_json::from_value(p).unwrap());
    assert!(compiled.errors.is_empty(), "{:?}", compiled.errors);
    Arc::new(compiled)
}

fn binding(name: &str, policy: &str) -> MutatingAdmissionPolicyBinding {
    serde_json::from_value(json!({"metadata": {"name": name}, "spec": {"policyName": policy}}))
        .unwrap()
}

fn rules(resource: &str, group: &str) -> Json {
    json!({"resourceRules": [{"apiGroups": [group], "apiVersions": ["v1"],
        "operations": ["CREATE", "UPDATE"], "resources": [resource]}]})
}

fn config_map_request(object: Json) -> AdmissionRequest {
    serde_json::from_value(json!({
        "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
        "resource": {"group": "", "version": "v1", "resource": "configmaps"},
        "name": "c", "namespace": "default", "operation": "CREATE", "object": object}))
    .unwrap()
}

fn lookups(objects: &StaticObjects) -> Lookups<'_> {
    Lookups {
        namespaces: objects,
        params: objects,
        authorizer: None,
    }
}

fn default_namespace() -> StaticObjects {
    StaticObjects {
        namespaces: vec![json!({"metadata": {"name": "default"}})],
        params: Vec::new(),
    }
}

#[test]
fn apply_configuration_adds_a_label() {
    let p = policy(
        "label",
        json!({"matchConstraints": rules("configmaps", ""), "reinvocationPolicy": "Never",
            "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {
                "expression": "Object{metadata: Object.metadata{labels: {'team': object.metadata.name + '-x'}}}"}}]}),
    );
    let set = MutatingPolicySet::new([p], [binding("label-b", "label")]);
    let objects = default_namespace();
    let request = config_map_request(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "c", "labels": {"keep": "y"}}, "data": {"a": "b"}}));
    let mutated = set.mutate(&request, &lookups(&objects), &LibrarySchemas::builtin());
    assert_eq!(mutated.status, None);
    let object = mutated.object.unwrap();
    assert_eq!(
        object["metadata"]["labels"],
        json!({"keep": "y", "team": "c-x"})
    );
    assert_eq!(object["data"], json!({"a": "b"}));
}

#[test]
fn json_patch_with_params_and_escape_key() {
    let p = policy(
        "patch",
        json!({"matchConstraints": rules("configmaps", ""), "reinvocationPolicy": "Never",
            "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
            "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression":
                "[JSONPatch{op: 'add', path: '/data/' + jsonpatch.escapeKey('k8s.io/x'), value: params.data.v}]"}}]}),
    );
    let b: MutatingAdmissionPolicyBinding = serde_json::from_value(json!({
        "metadata": {"name": "patch-b"}, "spec": {"policyName": "patch",
            "paramRef": {"name": "p", "parameterNotFoundAction": "Deny"}}}))
    .unwrap();
    let set = MutatingPolicySet::new([p], [b]);
    let mut objects = default_namespace();
    objects
        .params
        .push(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "p", "namespace": "default"}, "data": {"v": "from-param"}}));
    let request = config_map_request(json!({"metadata": {"name": "c"}, "data": {}}));
    let mutated = set.mutate(&request, &lookups(&objects), &LibrarySchemas::builtin());
    assert_eq!(
        mutated.object.unwrap()["data"],
        json!({"k8s.io/x": "from-param"})
    );
    // Without the param: the binding's Deny fails the request (generic dispatcher's
    // configuration error, reason Forbidden).
    let mutated = set.mutate(
        &request,
        &lookups(&default_namespace()),
        &LibrarySchemas::builtin(),
    );
    let status = mutated.status.unwrap();
    assert_eq!(status.code, 403);
    assert_eq!(status.reason, "Forbidden");
    assert_eq!(
        status.message,
        "policy 'patch' with binding 'patch-b' denied request: failed to configure binding: \
         no params found for policy binding with `Deny` parameterNotFoundAction"
    );
}

#[test]
fn evaluation_errors_follow_the_failure_policy() {
    let spec = |failure: &str| {
        json!({"matchConstraints": rules("configmaps", ""), "reinvocationPolicy": "Never",
            "failurePolicy": failure,
            "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {
                "expression": "Object{data: {'x': object.data.missing}}"}}]})
    };
    let objects = default_namespace();
    let request = config_map_request(json!({"metadata": {"name": "c"}, "data": {}}));
    let set = MutatingPolicySet::new([policy("p", spec("Fail"))], [binding("b", "p")]);
    let status = set
        .mutate(&request, &lookups(&objects), &LibrarySchemas::builtin())
        .status
        .unwrap();
    assert_eq!((status.code, status.reason.as_str()), (403, "Invalid"));
    assert_eq!(
        status.message,
        "policy 'p' with binding 'b' denied request: expression 'Object{data: {'x': \
         object.data.missing}}' resulted in error: no such key: missing"
    );
    let set = MutatingPolicySet::new([policy("p", spec("Ignore"))], [binding("b", "p")]);
    let mutated = set.mutate(&request, &lookups(&objects), &LibrarySchemas::builtin());
    assert_eq!(mutated.status, None);
}

#[test]
fn match_conditions_and_reinvocation() {
    // `first` copies the label `second` sets: only its reinvocation sees it.
    let first = policy(
        "first",
        json!({"matchConstraints": rules("configmaps", ""), "reinvocationPolicy": "IfNeeded",
            "matchConditions": [{"name": "not-skipped", "expression": "!has(object.metadata.annotations)"}],
            "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {
                "expression": "has(object.metadata.labels) && 'b' in object.metadata.labels ? Object{data: {'seen': object.metadata.labels['b']}} : Object{data: {'seen': 'none'}}"}}]}),
    );
    let second = policy(
        "second",
        json!({"matchConstraints": rules("configmaps", ""), "reinvocationPolicy": "Never",
            "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {
                "expression": "Object{metadata: Object.metadata{labels: {'b': 'set'}}}"}}]}),
    );
    let set = MutatingPolicySet::new(
        [first, second],
        [binding("first-b", "first"), binding("second-b", "second")],
    );
    let objects = default_namespace();
    let request = config_map_request(json!({"metadata": {"name": "c"}}));
    let mutated = set.mutate(&request, &lookups(&objects), &LibrarySchemas::builtin());
    assert_eq!(
        mutated.invocations,
        ["first/first-b", "second/second-b", "first/first-b"]
    );
    assert_eq!(mutated.object.unwrap()["data"], json!({"seen": "set"}));
    // The match condition excludes the request.
    let request = config_map_request(json!({"metadata": {"name": "c", "annotations": {}}}));
    let mutated = set.mutate(&request, &lookups(&objects), &LibrarySchemas::builtin());
    assert_eq!(mutated.invocations, ["second/second-b"]);
}

#[test]
fn type_names_must_follow_the_field_path() {
    let p = policy(
        "p",
        json!({"matchConstraints": rules("configmaps", ""), "reinvocationPolicy": "Never",
            "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {
                "expression": "Object{metadata: Object.spec{labels: {'a': 'b'}}}"}}]}),
    );
    let set = MutatingPolicySet::new([p], [binding("b", "p")]);
    let objects = default_namespace();
    let request = config_map_request(json!({"metadata": {"name": "c"}}));
    let status = set
        .mutate(&request, &lookups(&objects), &LibrarySchemas::builtin())
        .status
        .unwrap();
    assert_eq!(
        status.message,
        "policy 'p' with binding 'b' denied request: type mismatch: unexpected type name \
         \"Object.spec\", expected \"Object.metadata\", which matches field name path from \
         root Object type"
    );
}

#[test]
fn policy_validation() {
    let p = json!({"metadata": {"name": "p"}, "spec": {
    "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
        "operations": ["DELETE"], "resources": ["configmaps"]}]},
    "mutations": [
        {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "1"}},
        {"patchType": "JSONPatch", "jsonPatch": {"expression": "[JSONPatch{op: 'add', bad: 1}]"}},
        {"patchType": "Merge"},
        {"patchType": "JSONPatch"}
    ]}});
    let compiled = CompiledMutatingPolicy::new(serde_json::from_value(p).unwrap());
    let texts: Vec<String> = compiled.errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        texts[0],
        "spec.matchConstraints.resourceRules.operations: Unsupported value: \"DELETE\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"UPDATE\""
    );
    assert_eq!(
        texts[1],
        "spec.mutations[0].applyConfiguration.expression: Invalid value: \"1\": must evaluate to Object but got int"
    );
    assert!(texts[2].starts_with("spec.mutations[1].jsonPatch.expression: Invalid value: \"[JSONPatch{op: 'add', bad: 1}]\": compilation failed: ERROR: <input>:1:"), "{}", texts[2]);
    assert_eq!(
        texts[3],
        "spec.mutations[2].patchType: Unsupported value: \"Merge\": supported values: \"ApplyConfiguration\", \"JSONPatch\""
    );
    assert_eq!(
        texts[4],
        "spec.mutations[3].jsonPatch: Required value: must be specified when patchType is JSONPatch"
    );
    assert_eq!(texts[5], "spec.reinvocationPolicy: Required value");
    assert_eq!(texts.len(), 6, "{texts:?}");
}

// `--cel-memory-limit-bytes` reaches the mutations too: the expression that builds 10,000
// bytes fits the default budget and fails under 4,096 bytes with the library's error.
#[test]
fn mutations_evaluate_under_the_memory_limit_given() {
    let spec = json!({"matchConstraints": rules("configmaps", ""), "reinvocationPolicy": "Never",
        "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression":
            "Object{metadata: Object.metadata{labels: {'size': string(object.data.v\
             .replace('a', 'aaaaaaaaaa').replace('a', 'aaaaaaaaaa').size())}}}"}}]});
    let policy_json = json!({"metadata": {"name": "grow"}, "spec": spec});
    let objects = default_namespace();
    let request = config_map_request(json!({"metadata": {"name": "c"},
        "data": {"v": "a".repeat(100)}}));
    let run = |limit: Option<u64>| {
        let compiled = CompiledMutatingPolicy::with_memory_limit(
            serde_json::from_value(policy_json.clone()).unwrap(),
            limit,
        );
        let set = MutatingPolicySet::new([Arc::new(compiled)], [binding("grow-b", "grow")]);
        set.mutate(&request, &lookups(&objects), &LibrarySchemas::builtin())
    };
    let fits = run(Some(kcel::DEFAULT_MEMORY_LIMIT));
    assert_eq!(fits.object.unwrap()["metadata"]["labels"]["size"], "10000");
    let refused = run(Some(4096)).status.unwrap();
    assert!(
        refused
            .message
            .starts_with("policy 'grow' with binding 'grow-b' denied request: ")
            && refused.message.contains("memory limit exceeded"),
        "{}",
        refused.message
    );
    assert_eq!(
        run(None).object.unwrap()["metadata"]["labels"]["size"],
        "10000"
    );
}

// Policies run by name and each policy's bindings by name, whatever order they are given
// in; the IfNeeded ones run again after a later change (upstream's order is a Go map's).
#[test]
fn invocations_follow_policy_then_binding_names() {
    let append = |letter: &str, reinvocation: &str| {
        policy(
            &format!("{letter}-append"),
            json!({"matchConstraints": rules("configmaps", ""),
                "reinvocationPolicy": reinvocation,
                "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {
                    "expression": format!("Object{{metadata: Object.metadata{{annotations: \
                        {{'trail': object.metadata.?annotations['trail'].orValue('') + '{letter}'}}}}}}")}}]}),
        )
    };
    let set = MutatingPolicySet::new(
        [append("b", "Never"), append("a", "IfNeeded")],
        [
            binding("b-1", "b-append"),
            binding("a-2", "a-append"),
            binding("a-1", "a-append"),
        ],
    );
    let names: Vec<&str> = set.policies().map(|p| p.name()).collect();
    assert_eq!(names, ["a-append", "b-append"]);
    let objects = default_namespace();
    let request = config_map_request(json!({"metadata": {"name": "c"}}));
    let mutated = set.mutate(&request, &lookups(&objects), &LibrarySchemas::builtin());
    assert_eq!(
        mutated.invocations,
        [
            "a-append/a-1",
            "a-append/a-2",
            "b-append/b-1",
            "a-append/a-1",
            "a-append/a-2"
        ]
    );
    assert_eq!(
        mutated.object.unwrap()["metadata"]["annotations"]["trail"],
        "aabaa"
    );
    // One check per mutation evaluated, labelled as upstream's metrics.
    let labels: Vec<(&str, &str, &str)> = mutated
        .checks
        .iter()
        .map(|c| (c.policy.as_str(), c.binding.as_str(), c.error_type.as_str()))
        .collect();
    assert_eq!(labels.len(), 5);
    assert!(labels.iter().all(|l| l.2 == "no_error"), "{labels:?}");
    assert_eq!(labels[2], ("b-append", "b-1", "no_error"));
}

// The metrics' error types (upstream `policy/mutating/errors.go`, `ErrorType`).
#[test]
fn failed_mutations_are_checked_with_their_error_type() {
    let p = policy(
        "broken",
        json!({"matchConstraints": rules("configmaps", ""), "reinvocationPolicy": "Never",
            "failurePolicy": "Ignore",
            "mutations": [
                {"patchType": "ApplyConfiguration", "applyConfiguration": {
                    "expression": "Object{metadata: Object.metadata{labels: {'x': string(1 / 0)}}}"}},
                {"patchType": "ApplyConfiguration", "applyConfiguration": {
                    "expression": "Object{metadata: Object.metadata{labels: {'y': 'z'}}}"}}]}),
    );
    let set = MutatingPolicySet::new([p], [binding("broken-b", "broken")]);
    let objects = default_namespace();
    let request = config_map_request(json!({"metadata": {"name": "c"}}));
    let mutated = set.mutate(&request, &lookups(&objects), &LibrarySchemas::builtin());
    assert_eq!(mutated.status, None);
    let types: Vec<&str> = mutated
        .checks
        .iter()
        .map(|c| c.error_type.as_str())
        .collect();
    assert_eq!(types, ["invalid_error", "no_error"]);
    // Upstream classifies by the text: `compilation...` (an expression without a program
    // reported at evaluation), the budget's text, anything else.
    let output_type = ExpressionError::OutputType {
        expected: "bool",
        found: "int".into(),
    };
    assert_eq!(
        MutationErrorType::of(&MutationError::Evaluation(EvaluationError::Compile(
            output_type.clone()
        ))),
        MutationErrorType::CompileError
    );
    assert_eq!(
        MutationErrorType::of(&MutationError::Compile(output_type)),
        MutationErrorType::InvalidError
    );
    assert_eq!(
        MutationErrorType::of(&MutationError::Evaluation(EvaluationError::OutOfBudget)),
        MutationErrorType::OutOfBudget
    );
}

/// A create of a custom resource (decoded as an unstructured object: no type to refuse a
/// value).
fn widget_request(object: Json) -> AdmissionRequest {
    serde_json::from_value(json!({
        "kind": {"group": "example.com", "version": "v1", "kind": "Widget"},
        "resource": {"group": "example.com", "version": "v1", "resource": "widgets"},
        "name": "w", "namespace": "default", "operation": "CREATE", "object": object}))
    .unwrap()
}

// What `add` and `replace` put is the value as kube-apiserver's JSON patcher marshals it
// (`policy/mutating/patch/json_patch.go`, `evaluatePatchExpression`: `ConvertToNative` to
// a `structpb.Value`, then `json.Marshal`), decoded again after the patch: a double as
// protojson writes it (`1.0` is `1`), an int or uint beyond ±(2^53 − 1) a decimal string
// (cel-go `common/types/int.go`, `uint.go`: `isJSONSafe`), but inside an `Object` literal
// (`structpb.NewStruct` of Go values) every integer a float64 (2^60 written as the
// shortest float64 text, `1152921504606847000`, as protojson's `appendFloat` writes it).
#[test]
fn json_patch_values_are_put_as_upstream_marshals_them() {
    let expression = "[JSONPatch{op: 'add', path: '/spec/d', value: 1.0}, \
        JSONPatch{op: 'add', path: '/spec/big', value: 1152921504606846976}, \
        JSONPatch{op: 'add', path: '/spec/u', value: 18446744073709551615u}, \
        JSONPatch{op: 'add', path: '/spec/o', value: Object.spec.o{n: 1152921504606846976}}, \
        JSONPatch{op: 'replace', path: '/spec/h', value: 0.5}, \
        JSONPatch{op: 'test', path: '/spec/d', value: 1.0}]";
    let p = policy(
        "values",
        json!({"matchConstraints": rules("widgets", "example.com"),
            "reinvocationPolicy": "Never",
            "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": expression}}]}),
    );
    let set = MutatingPolicySet::new([p], [binding("values-b", "values")]);
    let objects = default_namespace();
    let request = widget_request(json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w"}, "spec": {"h": 1}}));
    let mutated = set.mutate(&request, &lookups(&objects), &LibrarySchemas::builtin());
    assert_eq!(mutated.status, None);
    assert_eq!(
        mutated.object.unwrap()["spec"],
        json!({"d": 1, "big": "1152921504606846976", "u": "18446744073709551615",
            "o": {"n": 1152921504606847000_u64}, "h": 0.5})
    );
}

// A `test` of the whole object without `value` makes evanphx/json-patch v4.13.0 compare with
// a nil node (`Patch.test`: `self.equal(op.value())`); nothing in the mutating dispatcher recovers it
// (`policy/mutating/dispatcher.go`, `dispatchOne`), so the request fails as a panicking
// request does, whatever the failure policy, and the mutation is not counted.
#[test]
fn a_json_patch_panic_fails_the_request_whatever_the_failure_policy() {
    for failure in ["Fail", "Ignore"] {
        let p = policy(
            "p",
            json!({"matchConstraints": rules("configmaps", ""), "reinvocationPolicy": "Never",
                "failurePolicy": failure,
                "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression":
                    "[JSONPatch{op: 'test', path: ''}]"}}]}),
        );
        let set = MutatingPolicySet::new([p], [binding("b", "p")]);
        let objects = default_namespace();
        let request = config_map_request(json!({"metadata": {"name": "c"}, "data": {}}));
        let mutated = set.mutate(&request, &lookups(&objects), &LibrarySchemas::builtin());
        assert!(mutated.panicked, "{failure}");
        assert_eq!((mutated.status, mutated.object), (None, None), "{failure}");
        assert!(mutated.checks.is_empty(), "{failure}");
    }
}

// A `replace` of the whole object with a list (evanphx/json-patch v4.13.0 `Patch.replace`
// of the empty path) leaves a document the JSON patcher's decoder cannot read for apiVersion
// and kind (`policy/mutating/patch/json_patch.go`: `jsonSerializer.Decode`, whose error is
// `apierrors.NewInternalError`): 500, whatever the failure policy.
#[test]
fn a_json_patch_that_leaves_a_list_is_an_internal_error() {
    let p = policy(
        "p",
        json!({"matchConstraints": rules("configmaps", ""), "reinvocationPolicy": "Never",
            "failurePolicy": "Ignore",
            "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression":
                "[JSONPatch{op: 'replace', path: '', value: [1]}]"}}]}),
    );
    let set = MutatingPolicySet::new([p], [binding("b", "p")]);
    let objects = default_namespace();
    let request = config_map_request(json!({"metadata": {"name": "c"}, "data": {}}));
    let mutated = set.mutate(&request, &lookups(&objects), &LibrarySchemas::builtin());
    let status = mutated.status.unwrap();
    assert_eq!(
        (status.code, status.reason.as_str()),
        (500, "InternalError")
    );
    assert_eq!(
        status.message,
        "Internal error occurred: couldn't get version/kind; json parse error: json: cannot \
         unmarshal array into Go value of type struct { APIVersion string \
         \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }"
    );
}
