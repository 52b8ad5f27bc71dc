//! ValidatingAdmissionPolicy evaluation: given policies, their bindings and an admission
//! request, the decision kube-apiserver would make, with its exact texts.
//!
//! ```
//! use kcel::admission::{AdmissionRequest, CompiledPolicy, Input, admit};
//! use kcel::admission::types::*;
//!
//! let policy: ValidatingAdmissionPolicy = serde_json::from_value(serde_json::json!({
//!     "metadata": {"name": "max-replicas"},
//!     "spec": {
//!         "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
//!             "operations": ["CREATE"], "resources": ["deployments"]}]},
//!         "validations": [{"expression": "object.spec.replicas <= 5"}]
//!     }
//! })).unwrap();
//! let binding: ValidatingAdmissionPolicyBinding = serde_json::from_value(serde_json::json!({
//!     "metadata": {"name": "max-replicas-binding"},
//!     "spec": {"policyName": "max-replicas", "validationActions": ["Deny"]}
//! })).unwrap();
//! let request: AdmissionRequest = serde_json::from_value(serde_json::json!({
//!     "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
//!     "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
//!     "name": "web", "namespace": "default", "operation": "CREATE",
//!     "object": {"metadata": {"name": "web"}, "spec": {"replicas": 7}}
//! })).unwrap();
//! let policy = CompiledPolicy::new(policy);
//! let decision = admit(&[&policy], &[binding], &Input::new(&request));
//! let status = decision.status.unwrap();
//! assert_eq!(status.code, 422);
//! assert_eq!(status.message, "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy \
//!     'max-replicas' with binding 'max-replicas-binding' denied request: \
//!     failed expression: object.spec.replicas <= 5");
//! ```

mod activation;
pub mod binding;
pub mod compile;
pub mod matching;
mod params;
#[cfg(test)]
mod tests;
pub mod types;
mod validate;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::stdlib::kubernetes::authz::Authorizer;

pub use crate::kubernetes::FieldError;
pub use binding::validate_binding;
pub use compile::CompiledPolicy;
pub use types::{AdmissionRequest, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding};
pub use validate::{
    BINDING_COST_BUDGET, ExpressionCost, MATCH_CONDITION_COST_BUDGET, MAX_MESSAGE_BYTES,
};

use activation::Bindings;
use types::ValidationAction;
use validate::{AnnotationOutcome, Outcome, error_denies, validate};

/// Everything besides the policies that a decision depends on.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    pub request: &'a AdmissionRequest,
    /// The request's Namespace object (`namespaceObject`, `namespaceSelector`).
    pub namespace: Option<&'a serde_json::Value>,
    /// The candidate params objects (of the policies' paramKind).
    pub params: &'a [serde_json::Value],
    /// Answers `authorizer` checks; without one, `authorizer` is unbound.
    pub authorizer: Option<Arc<dyn Authorizer>>,
}

impl<'a> Input<'a> {
    /// An input with just the request.
    pub fn new(request: &'a AdmissionRequest) -> Input<'a> {
        Input {
            request,
            namespace: None,
            params: &[],
            authorizer: None,
        }
    }
}

/// The API status of a denial.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// HTTP code: 422 Invalid, 403 Forbidden, 401 Unauthorized, 413 RequestEntityTooLarge.
    pub code: u16,
    pub reason: String,
    pub message: String,
}

/// The decision on a request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    /// The denial, if denied.
    pub status: Option<Status>,
    /// `Warning` header texts.
    pub warnings: Vec<String>,
    /// Audit annotations (`<policy>/<key>` and the validation-failure annotation).
    pub audit_annotations: BTreeMap<String, String>,
    /// The cost of each evaluated expression, as `(policy, binding, cost)`.
    pub costs: Vec<(String, String, ExpressionCost)>,
}

impl Decision {
    /// Whether the request is allowed.
    pub fn allowed(&self) -> bool {
        self.status.is_none()
    }
}

/// The HTTP code for a status reason.
pub fn reason_code(reason: &str) -> u16 {
    match reason {
        "Forbidden" => 403,
        "Unauthorized" => 401,
        "RequestEntityTooLarge" => 413,
        _ => 422,
    }
}

struct Denial {
    policy: String,
    binding: Option<String>,
    message: String,
    reason: String,
}

const VALIDATION_FAILURE: &str = "validation.policy.admission.k8s.io/validation_failure";
const MAX_ANNOTATION_VALUE: usize = 10 * 1024;

/// Decides a request against policies and bindings (bindings name their policy).
pub fn admit(
    policies: &[&CompiledPolicy],
    bindings: &[ValidatingAdmissionPolicyBinding],
    input: &Input<'_>,
) -> Decision {
    let mut decision = Decision::default();
    let mut denials = Vec::new();
    for policy in policies {
        dispatch(policy, bindings, input, &mut decision, &mut denials);
    }
    if let Some(d) = denials.into_iter().next() {
        let message = match &d.binding {
            Some(b) => format!(
                "ValidatingAdmissionPolicy '{}' with binding '{b}' denied request: {}",
                d.policy, d.message
            ),
            None => format!(
                "ValidatingAdmissionPolicy '{}' denied request: {}",
                d.policy, d.message
            ),
        };
        decision.status = Some(Status {
            code: reason_code(&d.reason),
            message: forbidden(input.request, &message),
            reason: d.reason,
        });
    }
    decision
}

/// Kubernetes' `<resource> "<name>" is forbidden: <message>`.
fn forbidden(request: &AdmissionRequest, message: &str) -> String {
    let r = &request.resource;
    let resource = if r.group.is_empty() {
        r.resource.clone()
    } else {
        format!("{}.{}", r.resource, r.group)
    };
    let name = if !request.name.is_empty() {
        request.name.clone()
    } else {
        let meta = request.object.as_ref().and_then(|o| o.get("metadata"));
        let field = |f: &str| {
            meta.and_then(|m| m.get(f))
                .and_then(|v| v.as_str())
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        match request.object {
            None => "Unknown".to_string(),
            Some(_) => field("name")
                .or_else(|| field("generateName"))
                .unwrap_or_else(|| "Unknown".into()),
        }
    };
    if resource.is_empty() {
        format!("forbidden: {message}")
    } else {
        format!("{resource} \"{name}\" is forbidden: {message}")
    }
}

fn dispatch(
    policy: &CompiledPolicy,
    bindings: &[ValidatingAdmissionPolicyBinding],
    input: &Input<'_>,
    decision: &mut Decision,
    denials: &mut Vec<Denial>,
) {
    let spec = &policy.policy.spec;
    let fails = error_denies(spec.failure_policy);
    let request = input.request;
    let Some(constraints) = &spec.match_constraints else {
        return;
    };
    if !matching::matches(constraints, request, input.namespace, true) {
        return;
    }
    let mut annotations: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for binding in bindings
        .iter()
        .filter(|b| b.spec.policy_name == policy.name())
    {
        let binding_name = &binding.metadata.name;
        let config_error = |denials: &mut Vec<Denial>, e: String| {
            if fails {
                denials.push(Denial {
                    policy: policy.name().to_string(),
                    binding: Some(binding_name.clone()),
                    message: format!("failed to configure binding: {e}"),
                    reason: "Invalid".into(),
                });
            }
        };
        if let Some(resources) = &binding.spec.match_resources
            && !matching::matches(resources, request, input.namespace, false)
        {
            continue;
        }
        let params = match params::collect(spec, binding, input) {
            Ok(p) => p,
            Err(e) => {
                config_error(denials, e);
                continue;
            }
        };
        let namespace = if request.kind.kind == "Namespace"
            && request.kind.group.is_empty()
            && request.kind.version == "v1"
        {
            None
        } else {
            input.namespace
        };
        for param in params {
            let vars = Bindings::new(request, namespace, param, input.authorizer.as_ref());
            let result = validate(policy, Arc::new(vars));
            for cost in result.costs {
                decision
                    .costs
                    .push((policy.name().to_string(), binding_name.clone(), cost));
            }
            for (index, outcome) in result.outcomes {
                let (message, reason) = match outcome {
                    Outcome::Admit => continue,
                    Outcome::Error(_) if !fails => continue,
                    Outcome::Error(e) => (e, "Invalid".to_string()),
                    Outcome::Deny { message, reason } => (message, reason),
                };
                apply_actions(policy, binding, index, message, reason, decision, denials);
            }
            for annotation in result.annotations {
                match annotation {
                    AnnotationOutcome::Publish(key, mut value) => {
                        if value.len() > MAX_ANNOTATION_VALUE {
                            let mut cut = MAX_ANNOTATION_VALUE;
                            while !value.is_char_boundary(cut) {
                                cut -= 1;
                            }
                            value.truncate(cut);
                        }
                        let values = annotations.entry(key).or_default();
                        if !values.contains(&value) {
                            values.push(value);
                        }
                    }
                    AnnotationOutcome::Error(_) if !fails => {}
                    AnnotationOutcome::Error(e) => denials.push(Denial {
                        policy: policy.name().to_string(),
                        binding: Some(binding_name.clone()),
                        message: e,
                        reason: "Invalid".into(),
                    }),
                }
            }
        }
    }
    for (key, values) in annotations {
        decision
            .audit_annotations
            .insert(format!("{}/{key}", policy.name()), values.join(", "));
    }
}

fn apply_actions(
    policy: &CompiledPolicy,
    binding: &ValidatingAdmissionPolicyBinding,
    index: usize,
    message: String,
    reason: String,
    decision: &mut Decision,
    denials: &mut Vec<Denial>,
) {
    let binding_name = &binding.metadata.name;
    for action in &binding.spec.validation_actions {
        match action {
            ValidationAction::Deny => denials.push(Denial {
                policy: policy.name().to_string(),
                binding: Some(binding_name.clone()),
                message: message.clone(),
                reason: reason.clone(),
            }),
            ValidationAction::Warn => decision.warnings.push(format!(
                "Validation failed for ValidatingAdmissionPolicy '{}' with binding '{binding_name}': {message}",
                policy.name()
            )),
            ValidationAction::Audit => {
                let value = [ValidationFailure {
                    message: &message,
                    policy: &binding.spec.policy_name,
                    binding: binding_name,
                    expression_index: index,
                    validation_actions: &binding.spec.validation_actions,
                }];
                decision
                    .audit_annotations
                    .entry(VALIDATION_FAILURE.to_string())
                    .or_insert_with(|| go_json(&value));
            }
        }
    }
}

/// The value of the validation-failure audit annotation (fields in Go's order).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ValidationFailure<'a> {
    message: &'a str,
    policy: &'a str,
    binding: &'a str,
    expression_index: usize,
    validation_actions: &'a [ValidationAction],
}

/// JSON as Go's encoder writes it (HTML characters escaped).
fn go_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}
