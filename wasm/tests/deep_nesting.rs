//! Issue 28 in the browser module: how deep a document may be nested. Past Kubernetes'
//! 10,000 levels a text gets Kubernetes' own error, as natively; past the module's
//! [`MAX_DEPTH`] (1,000: the wasm engine's call stack, not the module, bounds the recursive
//! walks, see ARCHITECTURE.md "Deep documents") the module's clear error, never a stack
//! overflow; and at [`MAX_DEPTH`] every request reads, validates and evaluates the document
//! — checked in the optimised build the playground loads (`--profile wasm-release`,
//! wasm/test.sh runs it in Chromium's Web Worker), as unoptimised frames do not fit.
#![cfg(target_arch = "wasm32")]

use kcel_stdlib::documents::{KUBERNETES_MAX_DEPTH, MAX_DEPTH, with_deep_stack};
use serde_json::{Value as Json, json};
use wasm_bindgen_test::wasm_bindgen_test;

fn call(f: fn(&str) -> String, request: Json) -> Json {
    serde_json::from_str(&f(&request.to_string())).expect("answers are JSON")
}

/// The module's error past [`MAX_DEPTH`].
fn too_deep() -> String {
    format!(
        "nesting deeper than {MAX_DEPTH} levels is not supported (Kubernetes reads up to {KUBERNETES_MAX_DEPTH})"
    )
}

/// Variables `{"x": [[...[1]...]]}` whose value `x` is `levels` levels deep (the variables'
/// map is one more).
fn json_variables(levels: usize) -> String {
    format!(
        "{{\"x\":{}1{}}}",
        "[".repeat(levels - 1),
        "]".repeat(levels - 1)
    )
}

/// The same in YAML's compact block sequences (each `- ` one level).
fn yaml_variables(levels: usize) -> String {
    format!("x:\n  {}1\n", "- ".repeat(levels - 1))
}

/// `size(x)` of variables as JSON or YAML text.
fn size_of_x(variables: String) -> Json {
    call(
        kcel_wasm::evaluate,
        json!({"expression": "size(x)", "variables": variables}),
    )
}

/// The JSON text of a custom resource `levels` levels deep (the root and `spec` are two):
/// `spec.a` a chain of objects, the innermost `{"leaf": leaf}` (as the native
/// `crd::deep_nesting_tests`).
#[cfg(feature = "full")]
fn deep_object(levels: usize, limit: i64, leaf: i64) -> String {
    let chain = levels - 3;
    format!(
        r#"{{"apiVersion":"example.com/v1","kind":"Deep","metadata":{{"name":"d"}},"extra":1,"spec":{{"limit":{limit},"a":{}{{"leaf":{leaf}}}{}}}}}"#,
        "{\"a\":".repeat(chain),
        "}".repeat(chain)
    )
}

/// A CRD whose `spec.a` keeps any value (a shallow schema over deep data), with a default,
/// a maximum and two rules: one compares the deep field whole with its old value.
#[cfg(feature = "full")]
const CRD: &str = r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "deeps.example.com"},
  "spec": {"group": "example.com", "names": {"kind": "Deep", "plural": "deeps"},
    "scope": "Cluster", "versions": [{"name": "v1", "served": true, "storage": true,
    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object",
      "x-kubernetes-validations": [{"rule": "self.limit < 3"}],
      "properties": {"mode": {"type": "string", "default": "deep"},
        "limit": {"type": "integer", "maximum": 5},
        "a": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
          "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "a is immutable"}]}}}}}}}]}}"#;

#[cfg(feature = "full")]
fn validate(object: String, old: Option<String>) -> Json {
    call(
        kcel_wasm::validate_crd,
        json!({"crd": CRD, "object": object, "old": old}),
    )
}

#[wasm_bindgen_test]
fn past_kubernetes_limit_is_kubernetes_error() {
    let answer = size_of_x(json_variables(KUBERNETES_MAX_DEPTH + 1));
    assert_eq!(
        answer["error"]["message"],
        "variables: invalid JSON: invalid character '[' exceeded max depth",
    );
    let answer = size_of_x(yaml_variables(KUBERNETES_MAX_DEPTH + 1));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.ends_with("exceeded max depth of 10000"), "{answer}");
    #[cfg(feature = "full")]
    {
        let answer = validate(deep_object(KUBERNETES_MAX_DEPTH + 1, 1, 1), None);
        assert_eq!(
            answer["error"]["message"],
            "'object': invalid JSON: invalid character '{' exceeded max depth",
        );
    }
}

#[wasm_bindgen_test]
fn past_module_limit_is_clear_error() {
    for variables in [json_variables(MAX_DEPTH + 1), yaml_variables(MAX_DEPTH + 1)] {
        let answer = size_of_x(variables);
        assert_eq!(answer["error"]["phase"], "input", "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.ends_with(&too_deep()), "{answer}");
    }
    #[cfg(feature = "full")]
    {
        let answer = validate(deep_object(MAX_DEPTH + 1, 1, 1), None);
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.ends_with(&too_deep()), "{answer}");
    }
}

/// At the module's limit, in the optimised build: evaluated from JSON and YAML; validated
/// against the CRD (the unknown field pruned, the default applied, the rules run; on update
/// the rule comparing the deep field finds the innermost change); admitted (a policy's
/// expressions see the object whole).
#[cfg(not(debug_assertions))]
#[wasm_bindgen_test]
fn documents_at_module_limit_are_read() {
    assert_eq!(size_of_x(json_variables(MAX_DEPTH))["value"], 1);
    assert_eq!(size_of_x(yaml_variables(MAX_DEPTH))["value"], 1);
    #[cfg(feature = "full")]
    {
        let created = validate(deep_object(MAX_DEPTH, 4, 1), None);
        let object = &created["objects"][0];
        assert_eq!(
            object["errors"][0]["message"], "Invalid value: failed rule: self.limit < 3",
            "{created}"
        );
        assert_eq!(object["warnings"], json!(["unknown field \"extra\""]));
        let updated = validate(
            deep_object(MAX_DEPTH, 1, 2),
            Some(deep_object(MAX_DEPTH, 1, 1)),
        );
        let errors = &updated["objects"][0]["errors"];
        assert_eq!(
            errors,
            &json!([{"field": "spec.a", "reason": "FieldValueInvalid",
            "message": "Invalid value: a is immutable"}])
        );
        let policy = "metadata: {name: p}\nspec:\n  matchConstraints:\n    resourceRules:\n    - {apiGroups: ['*'], apiVersions: ['*'], operations: [CREATE], resources: ['*']}\n  validations:\n  - expression: \"object.spec.limit < 3\"\n";
        let binding = "metadata: {name: p}\nspec: {policyName: p, validationActions: [Deny]}\n";
        let request = "kind: {group: example.com, version: v1, kind: Deep}\nresource: {group: example.com, version: v1, resource: deeps}\nname: d\noperation: CREATE\n";
        let admit = |limit| {
            let request = json!({"policies": policy, "bindings": binding, "request": request,
                "object": deep_object(MAX_DEPTH, limit, 1)});
            call(kcel_wasm::admit, request)["allowed"].clone()
        };
        assert_eq!(admit(1), true);
        assert_eq!(admit(4), false);
    }
}

/// `with_deep_stack` runs its work in place in the browser module: no segment of
/// `DEEP_STACK` bytes (64 MiB) taken from linear memory, which never shrinks.
#[wasm_bindgen_test]
fn deep_stack_takes_no_memory() {
    let pages = || core::arch::wasm32::memory_size(0);
    let before = pages();
    assert_eq!(with_deep_stack(pages), before);
    assert_eq!(pages(), before);
}
