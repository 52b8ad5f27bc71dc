//! Native tests of the API (the same requests run in a wasm engine in tests/wasm.rs).

use serde_json::{Value as Json, json};

fn call(f: fn(&str) -> String, request: Json) -> Json {
    serde_json::from_str(&f(&request.to_string())).expect("answers are JSON")
}

#[test]
fn evaluates_with_value_type_and_costs() {
    let answer = call(
        super::evaluate,
        json!({"expression": "[1, 2, 3].map(x, x * 2)"}),
    );
    // The CLI: {"value":[2,4,6],"type":"list(int)","cost":{"actual":43}}
    assert_eq!(answer["value"], json!([2, 4, 6]));
    assert_eq!(answer["type"], "list(int)");
    assert_eq!(answer["cost"]["actual"], 43);
    // cel-go's estimate of the unoptimised expression.
    assert!(answer["cost"]["min"].as_u64().unwrap() <= answer["cost"]["max"].as_u64().unwrap());
}

#[test]
fn variables_as_yaml_or_json_fitted_to_declarations() {
    let answer = call(
        super::evaluate,
        json!({
            "expression": "self.spec.replicas <= 5 && self.metadata.name.startsWith('web') && t < timestamp('2025-01-01T00:00:00Z')",
            "variables": "self:\n  metadata: {name: web-1}\n  spec: {replicas: 3}\nt: 2024-01-01T00:00:00Z\n",
            "declarations": {"t": "timestamp"},
        }),
    );
    assert_eq!(
        answer,
        json!({"value": true, "type": "bool", "cost": answer["cost"]})
    );
    let answer = call(
        super::evaluate,
        json!({"expression": "x + 1.5", "variables": "{\"x\": 2}", "declarations": {"x": "double"}}),
    );
    assert_eq!(answer["value"], json!(3.5));
    // YAML keys keep their kind, as the CLI reads them.
    let answer = call(
        super::evaluate,
        json!({"expression": "m[1]", "variables": "m: {1: one}"}),
    );
    assert_eq!(answer["value"], "one");
    assert_eq!(answer["type"], "string");
}

#[test]
fn failures_carry_phase_line_and_column() {
    let answer = call(super::evaluate, json!({"expression": "1 +\n  )"}));
    assert_eq!(answer["error"]["phase"], "parse");
    assert_eq!(answer["error"]["line"], 2);
    assert_eq!(answer["error"]["column"], 3);
    let answer = call(super::evaluate, json!({"expression": "1 + 'a'"}));
    assert_eq!(answer["error"]["phase"], "check");
    assert_eq!(
        answer["error"]["message"],
        "found no matching overload for '_+_' applied to '(int, string)'"
    );
    assert_eq!(answer["error"]["column"], 3);
    let answer = call(
        super::evaluate,
        json!({"expression": "1 / 0", "env": "cel"}),
    );
    assert_eq!(
        answer,
        json!({"error": {"phase": "eval", "message": "division by zero", "line": 1, "column": 3}})
    );
    let answer = call(
        super::evaluate,
        json!({"expression": "x.all(s, s.startsWith('a'))", "variables": {"x": ["a", "ab"]}, "costLimit": 3}),
    );
    assert_eq!(answer["error"]["phase"], "eval");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cost limit"),
        "{answer}"
    );
}

#[test]
fn unreadable_requests_are_input_failures() {
    for (request, message) in [
        (json!({}), "invalid request: missing field `expression`"),
        (
            json!({"expression": "1", "version": "1.20"}),
            "Kubernetes version '1.20': expected 1.27 to 1.37",
        ),
        (
            json!({"expression": "1", "mode": "old"}),
            "mode 'old': expected new or stored",
        ),
        (
            json!({"expression": "1", "libraries": ["nope"]}),
            // The module without `full` has no catalog (the playground's worker sends such
            // requests to the full one).
            if cfg!(feature = "full") {
                "unknown library 'nope'"
            } else {
                NO_CATALOG
            },
        ),
        (
            json!({"expression": "1", "variables": "[1"}),
            "variables: invalid JSON: unexpected end of JSON input",
        ),
        (
            json!({"expression": "x", "variables": "x: a", "declarations": {"x": "int"}}),
            "variable 'x': a value of type string does not fit the declared type int",
        ),
    ] {
        let answer = call(super::evaluate, request);
        assert_eq!(answer["error"]["phase"], "input", "{answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with(message),
            "{answer}"
        );
    }
}

#[test]
fn environments_by_version_mode_and_library() {
    // ext.Strings version 2 (`format`) is in Kubernetes' environment since 1.29.
    let expr = "'%d'.format([1])";
    let at = |version: &str, mode: &str| {
        call(
            super::evaluate,
            json!({"expression": expr, "version": version, "mode": mode}),
        )
    };
    assert_eq!(at("1.29", "new")["value"], "1");
    assert_eq!(at("1.28", "new")["error"]["phase"], "check");
    assert_eq!(at("1.28", "stored")["value"], "1");
    // Plain CEL has no optional values unless the library is added.
    let optional = |libraries: Json| {
        call(
            super::evaluate,
            json!({"expression": "optional.of(1).orValue(0)", "env": "cel", "libraries": libraries}),
        )
    };
    assert_eq!(optional(json!([]))["error"]["phase"], "check");
    if cfg!(feature = "full") {
        assert_eq!(optional(json!(["optional"]))["value"], 1);
    } else {
        let answer = optional(json!(["optional"]));
        assert_eq!(answer["error"]["phase"], "input", "{answer}");
        assert_eq!(answer["error"]["message"], NO_CATALOG, "{answer}");
    }
}

/// What the module without `full` answers to a request naming extra libraries.
const NO_CATALOG: &str = "extra libraries are in the full module (kcel_full), not in this one";

#[test]
fn check_gives_type_and_estimate() {
    let answer = call(
        super::check,
        json!({"expression": "xs.map(x, x * 2)", "declarations": {"xs": "list(int)"}, "env": "cel"}),
    );
    // The CLI: {"type":"list(int)","cost":{"min":12,"max":18446744073709551615}}
    assert_eq!(
        answer,
        json!({"type": "list(int)", "cost": {"min": 12, "max": 18446744073709551615u64}})
    );
    // Variables not declared are `dyn`; their values are not read. (Not `y`: YAML is read
    // as Kubernetes reads it, and go-yaml v2 reads a plain `y` key as the boolean true.)
    let answer = call(
        super::check,
        json!({"expression": "z", "variables": "z: 2"}),
    );
    assert_eq!(answer["type"], "dyn");
}

#[test]
fn functions_for_completion() {
    let answer = call(super::functions, json!({"version": "1.37"}));
    let functions = answer.as_array().unwrap();
    let quantity = functions
        .iter()
        .find(|f| f["name"] == "quantity")
        .expect("Kubernetes' quantity library");
    assert_eq!(
        quantity["overloads"][0]["signature"],
        "quantity(string) -> kubernetes.Quantity"
    );
    let starts = functions
        .iter()
        .find(|f| f["name"] == "startsWith")
        .unwrap();
    assert_eq!(
        starts["overloads"][0]["signature"],
        "string.startsWith(string) -> bool"
    );
    assert!(!starts["doc"].as_str().unwrap().is_empty());
    let cel = call(super::functions, json!({"env": "cel"}));
    assert!(
        !cel.as_array()
            .unwrap()
            .iter()
            .any(|f| f["name"] == "quantity")
    );
}

/// The playground gallery's CRD (one copy: the page's examples import the module whose
/// template literal holds it).
#[cfg(feature = "full")]
static CRD: std::sync::LazyLock<&str> = std::sync::LazyLock::new(|| {
    include_str!("../www/src/widget-crd.js")
        .split('`')
        .nth(1)
        .expect("widget-crd.js holds the CRD between backquotes")
});

#[cfg(feature = "full")]
#[test]
fn validates_crd_objects_with_old_objects() {
    let object = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec: {replicas: 7, minReplicas: 1, maxReplicas: 5, owner: bob}\n";
    let mut answer = call(super::validate_crd, json!({"crd": *CRD, "object": object}));
    // Beyond the CLI's shape: the costs of each rule, estimated and actual (counted as
    // tests/crd/18_cost_total.yaml hand-counts `self.min <= self.max`: 5 a comparison; the
    // `&&` may stop after the first).
    let rules = answer.as_object_mut().unwrap().remove("rules").unwrap();
    assert_eq!(
        rules[1],
        json!({"version": "v1", "rule": "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",
               "path": "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
               "estimate": {"min": 5, "max": 10}, "cardinality": 1, "charged": 10, "limit": 1_000_000})
    );
    assert_eq!(rules[0]["rule"], "self == oldSelf");
    let unmatched = answer.as_object_mut().unwrap().remove("unmatchedOld");
    assert_eq!(unmatched, Some(json!([])));
    let first = answer["objects"][0].as_object_mut().unwrap();
    assert_eq!(first.remove("version").unwrap(), "v1");
    assert_eq!(
        first.remove("costs").unwrap(),
        json!([{"path": "spec", "rule": "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas", "cost": 10}])
    );
    assert_eq!(
        first.remove("budget").unwrap(),
        // The rule's 10 and its messageExpression's, as kube-apiserver charges both.
        json!({"limit": 10_000_000, "remaining": 9_999_980})
    );
    // The messageExpression's text at the rule's fieldPath, as kube-apiserver words it.
    assert_eq!(
        answer,
        json!({"valid": false, "objects": [{
            "kind": "Widget", "namespace": "default", "name": "w", "valid": false,
            "errors": [{"field": "spec.replicas", "reason": "FieldValueInvalid",
                        "message": "Invalid value: replicas of bob must be between minReplicas and maxReplicas"}],
            "warnings": [],
        }]})
    );
    let old = object.replace("owner: bob", "owner: ada");
    let fixed = object.replace("replicas: 7", "replicas: 3");
    let answer = call(
        super::validate_crd,
        json!({"crd": *CRD, "object": fixed, "old": old}),
    );
    assert_eq!(
        answer["objects"][0]["errors"],
        json!([{"field": "spec.owner", "reason": "FieldValueInvalid",
                "message": "Invalid value: \"bob\": owner is immutable"}])
    );
    let answer = call(
        super::validate_crd,
        json!({"crd": *CRD, "object": fixed.replace("owner: bob", "owner: ada"), "old": old}),
    );
    assert_eq!(answer["valid"], true);
    // An old object no object pairs with is named; an object of a built-in kind is validated
    // as `kcel validate` validates it (no rule costs).
    let stray = old.replace("name: w,", "name: gone,");
    let config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Web}\n";
    let answer = call(
        super::validate_crd,
        json!({"crd": *CRD, "object": format!("{fixed}---\n{config_map}"), "old": stray}),
    );
    assert_eq!(
        answer["unmatchedOld"],
        json!([{"kind": "Widget", "namespace": "default", "name": "gone"}])
    );
    let config_map = answer["objects"][1].as_object().unwrap();
    assert_eq!(config_map["kind"], "ConfigMap");
    assert_eq!(config_map["errors"][0]["field"], "metadata.name");
    assert!(!config_map.contains_key("costs") && !config_map.contains_key("file"));
    assert_eq!(answer["objects"][0]["valid"], true, "{answer}");
}

#[cfg(feature = "full")]
#[test]
fn crd_failures() {
    let answer = call(
        super::validate_crd,
        json!({"crd": *CRD, "object": "apiVersion: example.com/v2\nkind: Widget\nmetadata: {name: w}\n"}),
    );
    assert_eq!(answer["error"]["phase"], "input");
    let broken = CRD.replace("self.replicas <= self.maxReplicas", "self.replicas <=");
    let answer = call(
        super::validate_crd,
        json!({"crd": broken, "object": "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"}),
    );
    assert_eq!(answer["error"]["phase"], "schema", "{answer}");
    assert_eq!(
        answer["error"]["errors"][0]["field"],
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
    );
}

#[cfg(feature = "full")]
const POLICY: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  paramKind: {apiVersion: rules.example.com/v1, kind: ReplicaLimit}
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: object.spec.replicas <= params.maxReplicas
    messageExpression: "'replicas must be no greater than ' + string(params.maxReplicas)"
    reason: Invalid
"#;

#[cfg(feature = "full")]
const BINDINGS: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-test}
spec:
  policyName: replica-limit
  validationActions: [Deny]
  paramRef: {name: limit, namespace: default, parameterNotFoundAction: Deny}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-warn}
spec:
  policyName: replica-limit
  validationActions: [Warn]
  paramRef: {name: limit, namespace: default, parameterNotFoundAction: Deny}
"#;

#[cfg(feature = "full")]
#[test]
fn admits_and_denies_with_upstream_texts() {
    let request = "kind: {group: apps, version: v1, kind: Deployment}\nresource: {group: apps, version: v1, resource: deployments}\nname: web\nnamespace: default\noperation: CREATE\n";
    let params = "apiVersion: rules.example.com/v1\nkind: ReplicaLimit\nmetadata: {name: limit, namespace: default}\nmaxReplicas: 3\n";
    let ask = |replicas: u32| {
        call(
            super::admit,
            json!({
                "policies": POLICY, "bindings": BINDINGS, "request": request, "params": params,
                "object": format!("metadata: {{name: web, namespace: default}}\nspec: {{replicas: {replicas}}}"),
            }),
        )
    };
    let allowed = ask(3);
    assert_eq!(allowed["allowed"], true, "{allowed}");
    assert_eq!(allowed["status"], Json::Null);
    assert_eq!(allowed["policyErrors"], json!([]));
    let denied = ask(4);
    assert_eq!(
        denied["status"],
        json!({"code": 422, "reason": "Invalid", "message": "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-test' denied request: replicas must be no greater than 3"})
    );
    assert_eq!(
        denied["warnings"],
        json!([
            "Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-warn': replicas must be no greater than 3"
        ])
    );
    assert!(!denied["costs"].as_array().unwrap().is_empty());
    // An unreadable request is an input failure.
    let answer = call(
        super::admit,
        json!({"policies": POLICY, "bindings": BINDINGS, "request": "kind: 1"}),
    );
    assert_eq!(answer["error"]["phase"], "input", "{answer}");
}

#[cfg(feature = "full")]
#[test]
fn crd_rules_and_policies_compile_in_the_chosen_version() {
    // ext.Strings version 2 (`format`) is in Kubernetes' environment since 1.29.
    let crd = CRD.replace(
        "rule: self == oldSelf",
        "rule: \"self == '%s'.format([oldSelf])\"",
    );
    let object = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec: {replicas: 3, minReplicas: 1, maxReplicas: 5, owner: ada}\n";
    let at = |version: &str, mode: &str| {
        call(
            super::validate_crd,
            json!({"crd": crd, "object": object, "old": object, "version": version, "mode": mode}),
        )
    };
    assert_eq!(at("1.29", "new")["valid"], true, "{}", at("1.29", "new"));
    let old = at("1.28", "new");
    assert_eq!(old["error"]["phase"], "schema", "{old}");
    assert!(
        old["error"]["message"]
            .as_str()
            .unwrap()
            .contains("undeclared reference to 'format'"),
        "{old}"
    );
    // Stored rules get every library, whatever the version.
    assert_eq!(at("1.28", "stored")["valid"], true);
    assert_eq!(at("1.26", "stored")["error"]["phase"], "input");

    let policy = POLICY.replace(
        "messageExpression: \"'replicas must be no greater than ' + string(params.maxReplicas)\"",
        "messageExpression: \"'replicas must be no greater than %d'.format([params.maxReplicas])\"",
    );
    let request = "kind: {group: apps, version: v1, kind: Deployment}\nresource: {group: apps, version: v1, resource: deployments}\nname: web\nnamespace: default\noperation: CREATE\n";
    let params = "apiVersion: rules.example.com/v1\nkind: ReplicaLimit\nmetadata: {name: limit, namespace: default}\nmaxReplicas: 3\n";
    let admit = |version: &str| {
        call(
            super::admit,
            json!({
                "policies": policy, "bindings": BINDINGS, "request": request, "params": params,
                "object": "metadata: {name: web, namespace: default}\nspec: {replicas: 4}",
                "version": version,
            }),
        )
    };
    let new = admit("1.29");
    assert_eq!(new["policyErrors"], json!([]), "{new}");
    assert!(
        new["status"]["message"]
            .as_str()
            .unwrap()
            .ends_with("replicas must be no greater than 3"),
        "{new}"
    );
    // A 1.28 API server rejects the policy (the expression runs in its stored environment).
    let old = admit("1.28");
    assert!(
        old["policyErrors"][0]
            .as_str()
            .unwrap()
            .contains("undeclared reference to 'format'"),
        "{old}"
    );
}

/// Issue 27: a result far larger as text than in memory (shared parts) is refused with a
/// clear error before it is rendered; a long string too.
#[test]
fn results_too_large_to_show_are_errors() {
    let mut doubled = "[1, 1]".to_string();
    for _ in 0..40 {
        doubled = format!("[{doubled}].map(a, [a, a])[0]");
    }
    let too_large = json!({"error": {
        "phase": "eval",
        "message": format!("the result is too large to show (over {} bytes as text)", super::MAX_RESULT_TEXT),
    }});
    for expression in [
        doubled.as_str(),
        "lists.range(20).map(i, 'x').join().replace('x', lists.range(60000).map(i, 'x').join())",
    ] {
        let answer = call(super::evaluate, json!({"expression": expression}));
        assert_eq!(answer, too_large, "{expression}");
    }
    // Just under the limit: shown.
    let answer = call(
        super::evaluate,
        json!({"expression": "lists.range(1000).map(i, 'x').join().replace('x', lists.range(1000).map(i, 'x').join())"}),
    );
    assert_eq!(answer["value"].as_str().map(str::len), Some(1_000_000));
}
