//! ValidatingAdmissionPolicy suites: each `tests/admission/*.yaml` holds a policy, its
//! bindings, params and namespace, and requests with the exact expected decision.

use std::collections::BTreeMap;
use std::sync::Arc;

use kcel::admission::types::{ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding};
use kcel::admission::{AdmissionRequest, CompiledPolicy, Input, admit, validate_binding};
use kcel::stdlib::kubernetes::authz::{AllowAll, Authorizer, DenyAll};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Suite {
    policies: Vec<ValidatingAdmissionPolicy>,
    #[serde(default)]
    bindings: Vec<ValidatingAdmissionPolicyBinding>,
    #[serde(default)]
    params: Vec<serde_json::Value>,
    #[serde(default)]
    namespace: Option<serde_json::Value>,
    /// `allow` or `deny`.
    #[serde(default)]
    authorizer: Option<String>,
    /// Expected policy field errors (`compile_errors`), in order.
    #[serde(default)]
    field_errors: Vec<String>,
    /// Expected binding field errors (`validate_binding`), in order.
    #[serde(default)]
    binding_errors: Vec<String>,
    #[serde(default)]
    cases: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Case {
    name: String,
    request: AdmissionRequest,
    /// Overrides the suite's namespace object.
    #[serde(default)]
    namespace: Option<serde_json::Value>,
    /// The expected denial message; absent means allowed.
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    code: Option<u16>,
    #[serde(default)]
    warnings: Vec<String>,
    #[serde(default)]
    annotations: BTreeMap<String, String>,
}

fn run_suite(path: &std::path::Path) -> Vec<String> {
    let mut failures = Vec::new();
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let suite: Suite = match serde_norway::from_str(&text) {
        Ok(s) => s,
        Err(e) => return vec![format!("{}: bad suite: {e}", path.display())],
    };
    let compiled: Vec<_> = suite
        .policies
        .into_iter()
        .map(CompiledPolicy::new)
        .collect();
    let errors: Vec<String> = compiled
        .iter()
        .flat_map(|p| p.errors.iter().map(|e| e.to_string()))
        .collect();
    if errors != suite.field_errors {
        failures.push(format!(
            "{}: field errors\n  got:  {errors:?}\n  want: {:?}",
            path.display(),
            suite.field_errors
        ));
    }
    let binding_errors: Vec<String> = suite
        .bindings
        .iter()
        .flat_map(validate_binding)
        .map(|e| e.to_string())
        .collect();
    if binding_errors != suite.binding_errors {
        failures.push(format!(
            "{}: binding errors\n  got:  {binding_errors:?}\n  want: {:?}",
            path.display(),
            suite.binding_errors
        ));
    }
    let policies: Vec<_> = compiled.iter().collect();
    let authorizer: Option<Arc<dyn Authorizer>> = match suite.authorizer.as_deref() {
        Some("allow") => Some(Arc::new(AllowAll)),
        Some("deny") => Some(Arc::new(DenyAll)),
        _ => None,
    };
    for case in &suite.cases {
        let input = Input {
            request: &case.request,
            namespace: case.namespace.as_ref().or(suite.namespace.as_ref()),
            params: &suite.params,
            authorizer: authorizer.clone(),
        };
        let decision = admit(&policies, &suite.bindings, &input);
        let got_message = decision.status.as_ref().map(|s| s.message.clone());
        let got_code = decision.status.as_ref().map(|s| s.code);
        let mut problems = Vec::new();
        if got_message != case.message {
            problems.push(format!(
                "message\n    got:  {got_message:?}\n    want: {:?}",
                case.message
            ));
        }
        if case.code.is_some() && got_code != case.code {
            problems.push(format!("code: got {got_code:?}, want {:?}", case.code));
        }
        if decision.warnings != case.warnings {
            problems.push(format!(
                "warnings\n    got:  {:?}\n    want: {:?}",
                decision.warnings, case.warnings
            ));
        }
        if decision.audit_annotations != case.annotations {
            problems.push(format!(
                "annotations\n    got:  {:?}\n    want: {:?}",
                decision.audit_annotations, case.annotations
            ));
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{} / {}: {}",
                path.display(),
                case.name,
                problems.join("\n  ")
            ));
        }
    }
    failures
}

#[test]
fn suites() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/admission");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/admission exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    let failures: Vec<String> = paths.iter().flat_map(|p| run_suite(p)).collect();
    println!("{} suites, {} failures", paths.len(), failures.len());
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(paths.len() >= 15, "expected at least 15 suites");
}
