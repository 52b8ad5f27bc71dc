//! The API inside a real wasm engine, through wasm-bindgen-test-runner: Node by default,
//! headless Chromium with WASM_BINDGEN_USE_BROWSER=1 (or in a Web Worker with
//! WASM_BINDGEN_USE_DEDICATED_WORKER=1). No `wasm_bindgen_test_configure!`, so that one
//! file serves every engine. Run from wasm/: `cargo test --target wasm32-unknown-unknown`.
#![cfg(target_arch = "wasm32")]

use serde_json::{Value as Json, json};
use wasm_bindgen_test::wasm_bindgen_test;

fn call(f: fn(&str) -> String, request: Json) -> Json {
    serde_json::from_str(&f(&request.to_string())).expect("answers are JSON")
}

#[wasm_bindgen_test]
fn evaluates_in_kubernetes_environment() {
    let answer = call(
        kcel_wasm::evaluate,
        json!({
            "expression": "quantity(self.spec.memory).isLessThan(quantity('2Gi'))",
            "variables": "self:\n  spec: {memory: 1Gi}\n",
            "version": "1.37",
        }),
    );
    assert_eq!(answer["value"], true);
    assert_eq!(answer["type"], "bool");
    assert!(answer["cost"]["actual"].as_u64().unwrap() > 0);
}

#[wasm_bindgen_test]
fn time_zones_wait_for_their_table() {
    // The module carries no time-zone data (the playground loads tzdata.bin on first use;
    // tests/time_zones.rs loads it natively): a zone is an error that asks for it, a fixed
    // offset and UTC need nothing.
    let request = |zone: &str| {
        json!({
            "expression": format!("t.getHours('{zone}')"),
            "variables": {"t": "2024-01-01T10:00:00Z"},
            "declarations": {"t": "timestamp"},
            "env": "cel",
        })
    };
    assert_eq!(call(kcel_wasm::evaluate, request("+05:30"))["value"], 15);
    assert_eq!(call(kcel_wasm::evaluate, request("UTC"))["value"], 10);
    assert!(!kcel_wasm::time_zones_wanted());
    let answer = call(kcel_wasm::evaluate, request("Europe/Paris"));
    assert_eq!(answer["error"]["message"], "time zone data not loaded");
    assert!(kcel_wasm::time_zones_wanted());
}

#[wasm_bindgen_test]
fn regexes_compile() {
    let answer = call(
        kcel_wasm::evaluate,
        json!({"expression": "'web-1'.matches('^web-[0-9]+$')"}),
    );
    assert_eq!(answer["value"], true);
}

#[wasm_bindgen_test]
fn parse_errors_have_positions() {
    let answer = call(kcel_wasm::evaluate, json!({"expression": "1 +\n  )"}));
    assert_eq!(answer["error"]["phase"], "parse");
    assert_eq!(answer["error"]["line"], 2);
    assert_eq!(answer["error"]["column"], 3);
}

#[wasm_bindgen_test]
fn check_functions_and_crd() {
    let answer = call(kcel_wasm::check, json!({"expression": "'a'.size()"}));
    assert_eq!(answer["type"], "int");
    // The semver library is in Kubernetes' environment for new expressions since 1.33.
    let has_semver = |version: &str| {
        let functions = call(kcel_wasm::functions, json!({"version": version}));
        functions
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["name"] == "isSemver")
    };
    assert!(has_semver("1.33"));
    assert!(!has_semver("1.32"));
    // The module built with `full` (the default).
    #[cfg(feature = "full")]
    {
        let crd = r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
          "metadata": {"name": "things.example.com"},
          "spec": {"group": "example.com", "names": {"kind": "Thing", "plural": "things"},
            "scope": "Namespaced", "versions": [{"name": "v1", "served": true, "storage": true,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object",
              "x-kubernetes-validations": [{"rule": "self.size <= 3"}],
              "properties": {"size": {"type": "integer"}}}}}}}]}}"#;
        let answer = call(
            kcel_wasm::validate_crd,
            json!({"crd": crd, "object": "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec: {size: 4}\n"}),
        );
        assert_eq!(answer["valid"], false);
        assert_eq!(
            answer["objects"][0]["errors"][0]["message"],
            "Invalid value: failed rule: self.size <= 3"
        );
    }
}

#[cfg(feature = "full")]
#[wasm_bindgen_test]
fn admission_denies() {
    let policy = "metadata: {name: no-latest}\nspec:\n  matchConstraints:\n    resourceRules:\n    - {apiGroups: ['*'], apiVersions: ['*'], operations: [CREATE], resources: [pods]}\n  validations:\n  - expression: \"object.spec.containers.all(c, !c.image.endsWith(':latest'))\"\n";
    let binding =
        "metadata: {name: no-latest}\nspec: {policyName: no-latest, validationActions: [Deny]}\n";
    let request = "kind: {group: '', version: v1, kind: Pod}\nresource: {group: '', version: v1, resource: pods}\nname: p\nnamespace: default\noperation: CREATE\nobject:\n  metadata: {name: p, namespace: default}\n  spec:\n    containers: [{name: c, image: 'nginx:latest'}]\n";
    let answer = call(
        kcel_wasm::admit,
        json!({"policies": policy, "bindings": binding, "request": request}),
    );
    assert_eq!(answer["allowed"], false, "{answer}");
    assert_eq!(
        answer["status"]["message"],
        "pods \"p\" is forbidden: ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest' denied request: failed expression: object.spec.containers.all(c, !c.image.endsWith(':latest'))"
    );
}

#[cfg(feature = "full")]
#[wasm_bindgen_test]
fn explains_which_element_failed() {
    let answer = call(
        kcel_wasm::explain,
        json!({"expression": "self.all(x, x > 0)", "variables": "self: [3, -1]"}),
    );
    assert_eq!(answer["value"], false);
    let failed = answer["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["text"] == "x > 0" && s["value"] == "false")
        .count();
    assert_eq!(failed, 1, "{answer}");
}
