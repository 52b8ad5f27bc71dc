//! Unit tests of evaluation details the YAML suites do not show: lazy variables, costs.

use serde_json::json;

use super::api::{ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding};
use super::{AdmissionRequest, CompiledPolicy, Input, admit};

/// An input whose request's namespace (`default`) exists.
fn input(r: &AdmissionRequest) -> Input<'_> {
    static NAMESPACE: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(
        || serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}),
    );
    Input {
        namespace: Some(&NAMESPACE),
        ..Input::new(r)
    }
}

fn policy(spec: serde_json::Value) -> CompiledPolicy {
    let mut spec = spec;
    spec["matchConstraints"] = json!({"resourceRules": [{"apiGroups": [""],
        "apiVersions": ["v1"], "operations": ["*"], "resources": ["configmaps"]}]});
    let policy: ValidatingAdmissionPolicy =
        serde_json::from_value(json!({"metadata": {"name": "p"}, "spec": spec})).unwrap();
    CompiledPolicy::new(policy)
}

fn binding() -> ValidatingAdmissionPolicyBinding {
    serde_json::from_value(json!({"metadata": {"name": "b"},
        "spec": {"policyName": "p", "validationActions": ["Deny"]}}))
    .unwrap()
}

fn request(object: serde_json::Value) -> AdmissionRequest {
    serde_json::from_value(json!({
        "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
        "resource": {"group": "", "version": "v1", "resource": "configmaps"},
        "name": "cm", "namespace": "default", "operation": "CREATE", "object": object,
    }))
    .unwrap()
}

#[test]
fn variables_are_evaluated_once_and_charged_to_the_first_reader() {
    let p = policy(json!({
        "variables": [{"name": "doubled", "expression": "object.items.map(x, x * 2)"}],
        "validations": [
            {"expression": "variables.doubled.size() > 0 && variables.doubled[0] == 2"},
            {"expression": "variables.doubled.size() > 0"},
        ],
    }));
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let r = request(json!({"items": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}));
    let decision = admit(&[&p], &[binding()], &input(&r));
    assert!(decision.allowed());
    let costs: Vec<u64> = decision.costs.iter().map(|(_, _, c)| c.cost).collect();
    assert_eq!(costs.len(), 2);
    // The second validation reads the cached value: only its own few steps.
    assert!(costs[0] > costs[1] + 20, "{costs:?}");
    assert!(costs[1] < 10, "{costs:?}");
}

#[test]
fn errors_of_unread_variables_do_not_surface() {
    let p = policy(json!({
        "variables": [{"name": "broken", "expression": "object.missing"}],
        "validations": [{"expression": "true || variables.broken == 1"}],
    }));
    let r = request(json!({}));
    assert!(admit(&[&p], &[binding()], &input(&r)).allowed());
}

#[test]
fn later_variables_may_use_earlier_ones_only() {
    let p = policy(json!({
        "variables": [
            {"name": "a", "expression": "variables.b"},
            {"name": "b", "expression": "1"},
        ],
        "validations": [{"expression": "variables.b == 1"}],
    }));
    assert_eq!(p.errors.len(), 1);
    assert_eq!(p.errors[0].path.to_string(), "spec.variables[0].expression");
}

#[test]
fn no_binding_no_decision() {
    let p = policy(json!({"validations": [{"expression": "false"}]}));
    let r = request(json!({}));
    assert!(admit(&[&p], &[], &input(&r)).allowed());
}

#[test]
fn garbage_never_panics() {
    for expr in ["", "(", "object..x", "[1, 'a']", "variables.", "params.x"] {
        let p = policy(json!({
            "variables": [{"name": "", "expression": expr}],
            "validations": [{"expression": expr, "messageExpression": expr}],
            "auditAnnotations": [{"key": "k", "valueExpression": expr}],
            "matchConditions": [{"name": "m", "expression": expr}],
        }));
        let r = request(json!(null));
        let decision = admit(&[&p], &[binding()], &input(&r));
        assert!(!decision.allowed(), "{expr}");
    }
}

#[test]
fn variables_on_branches_not_taken_are_never_evaluated() {
    let p = policy(json!({
        "variables": [{"name": "doubled", "expression": "object.items.map(x, x * 2)"}],
        "validations": [
            {"expression": "object.items.size() > 100 ? variables.doubled.size() > 0 : true"},
        ],
    }));
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let r = request(json!({"items": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}));
    let decision = admit(&[&p], &[binding()], &input(&r));
    assert!(decision.allowed());
    let costs: Vec<u64> = decision.costs.iter().map(|(_, _, c)| c.cost).collect();
    // `object.items.size() > 100` and the constant branch only: the variable is not charged.
    assert_eq!(costs, vec![4]);
}

#[test]
fn reading_a_variable_costs_an_identifier_and_a_field_selection() {
    // cel-go charges `variables` (1) and the `.n` qualifier (1); `n` itself costs 1.
    let p = policy(json!({
        "variables": [{"name": "n", "expression": "object.n"}],
        "validations": [{"expression": "variables.n == variables.n"}],
    }));
    let r = request(json!({"n": 1}));
    let decision = admit(&[&p], &[binding()], &input(&r));
    assert!(decision.allowed());
    let costs: Vec<u64> = decision.costs.iter().map(|(_, _, c)| c.cost).collect();
    assert_eq!(costs, vec![2 + 2 + 1 + 2]);
}

#[test]
fn each_phase_computes_variables_afresh() {
    let p = policy(json!({
        "variables": [{"name": "n", "expression": "object.n"}],
        "validations": [{"expression": "variables.n == 2", "messageExpression": "string(variables.n)"}],
    }));
    let r = request(json!({"n": 1}));
    let decision = admit(&[&p], &[binding()], &input(&r));
    let costs: Vec<u64> = decision.costs.iter().map(|(_, _, c)| c.cost).collect();
    // validation: 2 (variables.n) + 2 (object.n) + 1 (==); message: 2 + 2 + 1 (string()).
    assert_eq!(costs, vec![5, 5]);
    assert!(
        decision
            .status
            .unwrap()
            .message
            .ends_with("denied request: 1")
    );
}

/// An embedder's table of equivalent resources (a custom resource's versions), and an
/// equivalent whose kind is unknown: the policy's configuration error.
#[test]
fn embedder_equivalent_resources() {
    use super::api::{GroupVersionKind, GroupVersionResource};
    use super::matching::{EquivalentResources, ResourceTable};

    let gvr = |v: &str| GroupVersionResource {
        group: "example.com".into(),
        version: v.into(),
        resource: "widgets".into(),
    };
    let gvk = |v: &str| GroupVersionKind {
        group: "example.com".into(),
        version: v.into(),
        kind: "Widget".into(),
    };
    let mut table = ResourceTable::new();
    table.add_group([(gvr("v1"), "", gvk("v1")), (gvr("v2"), "", gvk("v2"))]);
    let policy: ValidatingAdmissionPolicy = serde_json::from_value(json!({
        "metadata": {"name": "p"},
        "spec": {
            "matchConstraints": {"resourceRules": [{"apiGroups": ["example.com"],
                "apiVersions": ["v2"], "operations": ["*"], "resources": ["widgets"]}]},
            "validations": [{"expression": "object.apiVersion == 'example.com/v2'"}],
        }
    }))
    .unwrap();
    let p = CompiledPolicy::new(policy);
    let r: AdmissionRequest = serde_json::from_value(json!({
        "kind": gvk("v1"), "resource": gvr("v1"), "name": "w", "operation": "CREATE",
        "object": {"apiVersion": "example.com/v1", "kind": "Widget"},
    }))
    .unwrap();
    let decision = super::admit_with_resources(&[&p], &[binding()], &input(&r), &table);
    assert!(decision.allowed(), "{decision:?}");
    // Without the table the request does not match at all.
    assert!(admit(&[&p], &[binding()], &input(&r)).allowed());

    struct NoKinds(ResourceTable);
    impl EquivalentResources for NoKinds {
        fn equivalents(&self, r: &GroupVersionResource, s: &str) -> Vec<GroupVersionResource> {
            self.0.equivalents(r, s)
        }
        fn kind_for(&self, _: &GroupVersionResource, _: &str) -> Option<GroupVersionKind> {
            None
        }
    }
    let decision = super::admit_with_resources(&[&p], &[binding()], &input(&r), &NoKinds(table));
    assert_eq!(
        decision.status.unwrap().message,
        "widgets.example.com \"w\" is forbidden: ValidatingAdmissionPolicy 'p' denied request: \
         failed to configure policy: unable to convert to example.com/v2, Resource=widgets: \
         unknown kind"
    );
}

/// Type checking against the matched kinds' schemas: Kubernetes' expression warnings.
#[test]
fn type_checking_warnings() {
    use super::api::{GroupVersionKind, GroupVersionResource};
    use super::{SchemaResolver, type_check};
    use crate::kubernetes::crd::Schema;

    struct Resolver;
    impl SchemaResolver for Resolver {
        fn kinds_for(&self, r: &GroupVersionResource) -> Vec<GroupVersionKind> {
            match (r.group.as_str(), r.resource.as_str()) {
                ("apps", "deployments") => vec![GroupVersionKind {
                    group: "apps".into(),
                    version: r.version.clone(),
                    kind: "Deployment".into(),
                }],
                _ => Vec::new(),
            }
        }
        fn schema(&self, k: &GroupVersionKind) -> Option<Schema> {
            (k.kind == "Deployment").then(|| {
                serde_json::from_value(json!({"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "replicas": {"type": "integer"},
                        "paused": {"type": "boolean"}}}}}))
                .unwrap()
            })
        }
    }
    let policy: ValidatingAdmissionPolicy = serde_json::from_value(json!({
        "metadata": {"name": "p"},
        "spec": {
            "matchConstraints": {"resourceRules": [
                {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"],
                 "resources": ["deployments", "deployments/scale"]},
                {"apiGroups": ["*"], "apiVersions": ["v1"], "operations": ["CREATE"],
                 "resources": ["pods"]}]},
            "variables": [{"name": "replicas", "expression": "object.spec.replicas"}],
            "validations": [
                {"expression": "variables.replicas < 5 && object.spec.paused == false"},
                {"expression": "object.spec.replica < 5",
                 "messageExpression": "'replicas: ' + object.spec.replicas"},
            ],
        }
    }))
    .unwrap();
    let warnings = type_check(&policy, &Resolver);
    let fields: Vec<&str> = warnings.iter().map(|w| w.field_ref.as_str()).collect();
    assert_eq!(
        fields,
        [
            "spec.validations[1].expression",
            "spec.validations[1].messageExpression"
        ]
    );
    assert_eq!(
        warnings[0].warning,
        "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'\n \
         | object.spec.replica < 5\n | ...........^\n"
    );
    assert!(
        warnings[1]
            .warning
            .starts_with("apps/v1, Kind=Deployment: ERROR: <input>:1:14: found no matching overload for '_+_' applied to '(string, int)'"),
        "{}",
        warnings[1].warning
    );
}

/// Every audited failure goes into the validation-failure annotation; identical warnings
/// are recorded once (the API server's warning recorder).
#[test]
fn audited_failures_and_repeated_warnings() {
    let p = policy(json!({
        "validations": [
            {"expression": "false", "message": "first"},
            {"expression": "false", "message": "second"},
        ],
    }));
    let b: ValidatingAdmissionPolicyBinding = serde_json::from_value(json!({
        "metadata": {"name": "b"},
        "spec": {"policyName": "p", "validationActions": ["Warn", "Audit"]}}))
    .unwrap();
    let r = request(json!({}));
    let decision = admit(&[&p], &[b.clone(), b], &input(&r));
    assert!(decision.allowed());
    assert_eq!(
        decision.warnings,
        [
            "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': first",
            "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': second",
        ]
    );
    let failure = |m: &str, i: usize| {
        format!(
            r#"{{"message":"{m}","policy":"p","binding":"b","expressionIndex":{i},"validationActions":["Warn","Audit"]}}"#
        )
    };
    let expected = format!(
        "[{},{},{},{}]",
        failure("first", 0),
        failure("second", 1),
        failure("first", 0),
        failure("second", 1)
    );
    assert_eq!(
        decision.audit_annotations["validation.policy.admission.k8s.io/validation_failure"],
        expected
    );
}

/// A cluster-scoped request has no namespace object, whatever the input carries; match
/// conditions never see one.
#[test]
fn namespace_object_only_for_namespaced_requests() {
    let p = policy(json!({
        "matchConditions": [{"name": "no-namespace", "expression": "namespaceObject == null"}],
        "validations": [{"expression": "namespaceObject == null", "message": "has a namespace"}],
    }));
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let namespace = json!({"metadata": {"name": "default"}});
    let mut r = request(json!({}));
    let input = Input {
        namespace: Some(&namespace),
        ..Input::new(&r)
    };
    let decision = admit(&[&p], &[binding()], &input);
    assert!(
        decision
            .status
            .unwrap()
            .message
            .ends_with("has a namespace")
    );
    r.namespace = String::new();
    let input = Input {
        namespace: Some(&namespace),
        ..Input::new(&r)
    };
    assert!(admit(&[&p], &[binding()], &input).allowed());
}

/// Updates: expressions the old policy had are checked in the stored environment (so a
/// 1.37 function may stay), new ones in the environment for new expressions; unchanged
/// match conditions are not validated again.
#[test]
fn updates_check_only_new_expressions_strictly() {
    let spec = |validation: &str, condition: &str| {
        let mut spec = json!({
            "matchConditions": [{"name": "bad name!", "expression": condition}],
            "validations": [{"expression": validation}],
        });
        spec["matchConstraints"] = json!({"resourceRules": [{"apiGroups": [""],
            "apiVersions": ["v1"], "operations": ["*"], "resources": ["configmaps"]}]});
        serde_json::from_value::<ValidatingAdmissionPolicy>(
            json!({"metadata": {"name": "p"}, "spec": spec}),
        )
        .unwrap()
    };
    let old = spec("[1].includes(1)", "true");
    let fields = |p: &CompiledPolicy| -> Vec<String> {
        p.errors.iter().map(|e| e.path.to_string()).collect()
    };
    // Created: `includes` (1.37) may not be written yet; the condition's name is invalid.
    let created = CompiledPolicy::new(old.clone());
    assert_eq!(
        fields(&created),
        [
            "spec.matchConditions[0].name",
            "spec.validations[0].expression"
        ]
    );
    // Updated with the same expressions: nothing to report.
    let same = CompiledPolicy::updated(old.clone(), &old);
    assert!(same.errors.is_empty(), "{:?}", same.errors);
    // A new expression with `includes` is checked as new; a changed condition again.
    let changed = CompiledPolicy::updated(spec("[2].includes(2)", "1 == 1"), &old);
    assert_eq!(
        fields(&changed),
        [
            "spec.matchConditions[0].name",
            "spec.validations[0].expression"
        ]
    );
}

/// Without a namespace object, a namespaced request's namespace does not exist: the API
/// server fails the request with the NotFound error once a binding matches.
#[test]
fn missing_namespace_fails_the_request() {
    let p = policy(json!({"validations": [{"expression": "true"}]}));
    let r = request(json!({"metadata": {"name": "cm"}}));
    let status = admit(&[&p], &[binding()], &Input::new(&r)).status.unwrap();
    assert_eq!(status.code, 404);
    assert_eq!(status.reason, "NotFound");
    assert_eq!(status.message, "namespaces \"default\" not found");
}

/// Annotations of more than 256 KiB in all (keys and values) are `field.TooLong`.
#[test]
fn annotations_over_the_size_limit() {
    let big = "x".repeat(256 * 1024);
    let policy: ValidatingAdmissionPolicy = serde_json::from_value(json!({
        "metadata": {"name": "p", "annotations": {"a": big}},
        "spec": {"validations": [{"expression": "true"}],
            "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                "operations": ["*"], "resources": ["configmaps"]}]}},
    }))
    .unwrap();
    let errors: Vec<String> = CompiledPolicy::new(policy)
        .errors
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        errors,
        ["metadata.annotations: Too long: may not be more than 262144 bytes"]
    );
}

/// kubernetes `pkg/apis/admissionregistration/v1/defaults.go` (the same in v1beta1 and
/// v1alpha1): `SetDefaults_ValidatingAdmissionPolicySpec` (failurePolicy Fail),
/// `SetDefaults_MatchResources` (matchPolicy Equivalent, empty namespace and object
/// selectors), `SetDefaults_Rule` (scope `*`), applied as the objects are read.
#[test]
fn policies_and_bindings_are_defaulted_as_read() {
    use super::api::{FailurePolicy, LabelSelector, MatchPolicy, ParameterNotFoundAction};
    let policy: ValidatingAdmissionPolicy = serde_json::from_value(json!({
        "metadata": {"name": "p"},
        "spec": {"matchConstraints": {
            "resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                "operations": ["*"], "resources": ["configmaps"]}],
            "excludeResourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                "operations": ["*"], "resources": ["secrets"], "scope": "Namespaced"}]}}
    }))
    .unwrap();
    assert_eq!(policy.spec.failure_policy, Some(FailurePolicy::Fail));
    let constraints = policy.spec.match_constraints.as_ref().unwrap();
    assert_eq!(constraints.match_policy, Some(MatchPolicy::Equivalent));
    assert_eq!(
        constraints.namespace_selector,
        Some(LabelSelector::default())
    );
    assert_eq!(constraints.object_selector, Some(LabelSelector::default()));
    assert_eq!(constraints.resource_rules[0].scope.as_deref(), Some("*"));
    assert_eq!(
        constraints.exclude_resource_rules[0].scope.as_deref(),
        Some("Namespaced")
    );
    // Set values stay.
    let ignore: ValidatingAdmissionPolicy =
        serde_json::from_value(json!({"spec": {"failurePolicy": "Ignore"}})).unwrap();
    assert_eq!(ignore.spec.failure_policy, Some(FailurePolicy::Ignore));
    assert_eq!(ignore.spec.match_constraints, None);

    // A binding's matchResources as a policy's; parameterNotFoundAction defaults to Deny
    // in v1alpha1 only (v1alpha1 `SetDefaults_ParamRef`; v1 and v1beta1 have no such
    // default and validation requires the field).
    let binding = |api_version: &str| -> ValidatingAdmissionPolicyBinding {
        serde_json::from_value(json!({
            "apiVersion": api_version,
            "metadata": {"name": "b"},
            "spec": {"policyName": "p", "validationActions": ["Deny"],
                "paramRef": {"name": "params"},
                "matchResources": {"objectSelector": {"matchLabels": {"a": "b"}}}}
        }))
        .unwrap()
    };
    let alpha = binding("admissionregistration.k8s.io/v1alpha1");
    let param_ref = alpha.spec.param_ref.as_ref().unwrap();
    assert_eq!(
        param_ref.parameter_not_found_action,
        Some(ParameterNotFoundAction::Deny)
    );
    let resources = alpha.spec.match_resources.as_ref().unwrap();
    assert_eq!(resources.match_policy, Some(MatchPolicy::Equivalent));
    assert_eq!(resources.namespace_selector, Some(LabelSelector::default()));
    assert_eq!(
        resources
            .object_selector
            .as_ref()
            .unwrap()
            .match_labels
            .len(),
        1
    );
    for version in [
        "admissionregistration.k8s.io/v1",
        "admissionregistration.k8s.io/v1beta1",
        "",
    ] {
        let b = binding(version);
        assert_eq!(
            b.spec
                .param_ref
                .as_ref()
                .unwrap()
                .parameter_not_found_action,
            None
        );
        let errors: Vec<String> = super::validate_binding(&b)
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(
            errors,
            ["spec.paramRef.parameterNotFoundAction: Required value"],
            "{version}"
        );
    }
    assert!(super::validate_binding(&alpha).is_empty());
}
