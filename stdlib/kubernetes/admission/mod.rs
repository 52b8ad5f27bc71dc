//! ValidatingAdmissionPolicy evaluation: given policies, their bindings and an admission
//! request, the decision kube-apiserver would make, with its exact texts.
//!
//! ```
//! use kcel_stdlib::kubernetes::admission::{AdmissionRequest, CompiledPolicy, Input, admit};
//! use kcel_stdlib::kubernetes::admission::api::*;
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
//! // The request's Namespace (without it, a namespaced request fails: namespace not found).
//! let namespace = serde_json::json!({"metadata": {"name": "default"}});
//! let input = Input { namespace: Some(&namespace), ..Input::new(&request) };
//! let policy = CompiledPolicy::new(policy);
//! let decision = admit(&[&policy], &[binding], &input);
//! let status = decision.status.unwrap();
//! assert_eq!(status.code, 422);
//! assert_eq!(status.message, "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy \
//!     'max-replicas' with binding 'max-replicas-binding' denied request: \
//!     failed expression: object.spec.replicas <= 5");
//! ```

mod activation;
pub mod api;
pub(crate) mod binding;
pub(crate) mod compile;
mod configuration_errors;
pub mod custom_resources;
mod evaluate;
pub(crate) mod expression_errors;
pub mod json_patch;
pub(crate) mod matching;
pub mod mutating;
pub mod mutation_errors;
mod params;
pub(crate) mod patch_types;
pub mod policy_set;
#[cfg(test)]
mod tests;
pub(crate) mod typecheck;
mod write_validation;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::kubernetes::authz::Authorizer;

pub use crate::kubernetes::crd::FieldError;
pub use api::{
    AdmissionRequest, AuditAnnotation, BindingSpec, FailurePolicy, GroupVersionKind,
    GroupVersionResource, LabelSelector, LabelSelectorRequirement, MatchCondition, MatchPolicy,
    MatchResources, MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding,
    NamedRuleWithOperations, ObjectMeta, ParamKind, ParamRef, ParameterNotFoundAction, PolicySpec,
    UserInfo, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, Validation,
    ValidationAction, Variable,
};
pub use binding::validate_binding;
pub use compile::CompiledPolicy;
pub use evaluate::{
    BINDING_COST_BUDGET, EvaluationError, ExpressionCost, MATCH_CONDITION_COST_BUDGET,
    MAX_MESSAGE_BYTES,
};
pub use expression_errors::ExpressionError;

use crate::kubernetes::crd::field_error::go_quote;
use activation::{Converted, PolicyActivation, Subject};
use configuration_errors::ConfigurationError;
pub use configuration_errors::ConversionError;
use evaluate::{AnnotationOutcome, Outcome, error_denies, evaluate};
pub use matching::{EquivalentResources, Matched, ResourceTable, selector_matches};
pub use policy_set::{Lookups, NamespaceLookup, ParamLookup, PolicySet, StaticObjects};
pub use typecheck::{ExpressionWarning, SchemaResolver, type_check};

/// Everything besides the policies that a decision depends on.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    /// The request.
    pub request: &'a AdmissionRequest,
    /// The request's Namespace object (`namespaceObject`, `namespaceSelector`). `None` for
    /// a namespaced request means the namespace does not exist: as in the API server, a
    /// `namespaceSelector` that needs its labels is a configuration error and a matched
    /// binding fails the request (`namespaces "<name>" not found`, 404).
    pub namespace: Option<&'a serde_json::Value>,
    /// The candidate params objects (of the policies' paramKind).
    pub params: &'a [serde_json::Value],
    /// Answers `authorizer` checks; without one, `authorizer` is unbound.
    pub authorizer: Option<Arc<dyn Authorizer>>,
}

impl<'a> Input<'a> {
    /// An input with just the request (no namespace object, params or authorizer).
    pub fn new(request: &'a AdmissionRequest) -> Input<'a> {
        Input {
            request,
            namespace: None,
            params: &[],
            authorizer: None,
        }
    }

    /// The Namespace object the policies' expressions see as `namespaceObject`, as the
    /// dispatchers fetch it (`policy/validating` and `policy/mutating` `dispatcher.go`):
    /// none for a cluster-scoped request and for a Namespace itself; for a namespaced
    /// request whose namespace does not exist, the API server's own NotFound error
    /// (`namespaces "<name>" not found`, 404), whatever the failure policy.
    pub(crate) fn namespace_object(&self) -> Result<Option<&'a serde_json::Value>, Status> {
        let request = self.request;
        let kind = &request.kind;
        let namespace_itself =
            kind.kind == "Namespace" && kind.group.is_empty() && kind.version == "v1";
        if request.namespace.is_empty() || namespace_itself {
            return Ok(None);
        }
        match self.namespace {
            Some(namespace) => Ok(Some(namespace)),
            None => Err(Status {
                code: 404,
                reason: "NotFound".into(),
                message: ConfigurationError::NamespaceNotFound(request.namespace.clone())
                    .to_string(),
                cause: None,
            }),
        }
    }
}

/// The API status of a denial.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// HTTP code: 422 Invalid, 403 Forbidden, 401 Unauthorized, 413 RequestEntityTooLarge.
    pub code: u16,
    /// The Status reason (`Invalid`, `Forbidden`, ...).
    pub reason: String,
    /// The Status message users see.
    pub message: String,
    /// The error the message reports, without the message's prefix, where the API server
    /// gives it as the status' one cause: a policy's denial after `<resource> "<name>" is
    /// forbidden: ` (admission's `NewForbidden`), an InternalError's error after `Internal
    /// error occurred: ` (apimachinery's `NewInternalError`).
    pub cause: Option<String>,
}

impl Status {
    /// apimachinery's `errors.NewInternalError(cause)`: 500 InternalError,
    /// `Internal error occurred: <cause>`.
    pub fn internal_error(cause: String) -> Status {
        Status {
            code: 500,
            reason: "InternalError".into(),
            message: format!("Internal error occurred: {cause}"),
            cause: Some(cause),
        }
    }

    /// A request whose handling panicked, as kube-apiserver's panic recovery answers it
    /// (`server/filters/wrap.go`, `WithPanicRecovery`): 500 with [`PANIC_TEXT`], which is
    /// plain text there, no `Status` (so no reason).
    pub fn panicked() -> Status {
        Status {
            code: 500,
            reason: String::new(),
            message: PANIC_TEXT.to_owned(),
            cause: None,
        }
    }
}

/// The text of kube-apiserver's panic recovery (`server/filters/wrap.go`,
/// `WithPanicRecovery`), its whole answer to a request whose handling panicked.
pub const PANIC_TEXT: &str =
    "This request caused apiserver to panic. Look in the logs for details.";

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
/// At most this many validation failures go into the validation-failure annotation.
const MAX_VALIDATION_FAILURES: usize = 50;

/// Decides a request against policies and bindings (bindings name their policy), with the
/// built-in table of equivalent resources ([`ResourceTable::builtin`]).
pub fn admit(
    policies: &[&CompiledPolicy],
    bindings: &[ValidatingAdmissionPolicyBinding],
    input: &Input<'_>,
) -> Decision {
    admit_with_resources(policies, bindings, input, &ResourceTable::builtin())
}

/// Decides a request, with the embedder's knowledge of equivalent resources (for
/// `matchPolicy: Equivalent`: which resources serve the same objects, their kinds and how
/// objects convert).
pub fn admit_with_resources(
    policies: &[&CompiledPolicy],
    bindings: &[ValidatingAdmissionPolicyBinding],
    input: &Input<'_>,
    resources: &dyn EquivalentResources,
) -> Decision {
    if is_admission_policy_resource(&input.request.resource) {
        return Decision::default();
    }
    let policies = policies.iter().map(|p| {
        let own = bindings.iter().filter(|b| b.spec.policy_name == p.name());
        (*p, own.collect())
    });
    dispatch(policies, input, resources)
}

/// Decides a request against policies, each with its bindings, in order: the one code path
/// of [`admit`] and [`PolicySet::admit`].
fn dispatch<'p>(
    policies: impl Iterator<
        Item = (
            &'p CompiledPolicy,
            Vec<&'p ValidatingAdmissionPolicyBinding>,
        ),
    >,
    input: &Input<'_>,
    resources: &dyn EquivalentResources,
) -> Decision {
    let mut decision = Decision::default();
    let mut dispatch = Dispatch {
        input,
        resources,
        decision: &mut decision,
        denials: Vec::new(),
        failures: Vec::new(),
        aborted: None,
        converted: Converted::default(),
    };
    for (policy, bindings) in policies {
        dispatch.policy(policy, &bindings);
        if let Some(status) = dispatch.aborted.take() {
            // The request fails with this error: no denial, no validation-failure
            // annotation (warnings and earlier policies' annotations stay).
            decision.status = Some(status);
            return decision;
        }
    }
    let (denials, failures) = (dispatch.denials, dispatch.failures);
    if !failures.is_empty() {
        let failures = &failures[..failures.len().min(MAX_VALIDATION_FAILURES)];
        decision
            .audit_annotations
            .insert(VALIDATION_FAILURE.to_string(), go_json(&failures));
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
        let (message, cause) = forbidden(input.request, message);
        decision.status = Some(Status {
            code: reason_code(&d.reason),
            message,
            reason: d.reason,
            cause,
        });
    }
    decision
}

/// The resources of CEL admission itself, which policies never judge (the policy plugin's
/// `admissionResources`, skipped by `Plugin.Dispatch` whatever their version or
/// subresource, so that a policy cannot lock itself or its bindings in place).
const ADMISSION_POLICY_RESOURCES: [&str; 4] = [
    "validatingadmissionpolicies",
    "validatingadmissionpolicybindings",
    "mutatingadmissionpolicies",
    "mutatingadmissionpolicybindings",
];

/// Whether a request is for one of [`ADMISSION_POLICY_RESOURCES`].
fn is_admission_policy_resource(resource: &api::GroupVersionResource) -> bool {
    resource.group == "admissionregistration.k8s.io"
        && ADMISSION_POLICY_RESOURCES.contains(&resource.resource.as_str())
}

/// Kubernetes' `NewForbidden`: `<resource>.<group> "<name>" is forbidden: <message>`, the
/// name from the request, else the object's name or generateName, else `Unknown`; and the
/// status' cause, `message` (none without a resource: `forbidden: <message>`).
fn forbidden(request: &AdmissionRequest, message: String) -> (String, Option<String>) {
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
        field("name")
            .or_else(|| field("generateName"))
            .unwrap_or_else(|| "Unknown".into())
    };
    if resource.is_empty() {
        (format!("forbidden: {message}"), None)
    } else {
        let text = format!("{resource} {} is forbidden: {message}", go_quote(&name));
        (text, Some(message))
    }
}

/// The dispatcher's state over one request.
struct Dispatch<'a, 'i> {
    input: &'a Input<'i>,
    resources: &'a dyn EquivalentResources,
    decision: &'a mut Decision,
    denials: Vec<Denial>,
    failures: Vec<ValidationFailure>,
    /// The request's objects as CEL values, converted once.
    converted: Converted,
    /// An error that fails the whole request (the namespace of a namespaced request was
    /// not found): the dispatcher returns it as is.
    aborted: Option<Status>,
}

impl Dispatch<'_, '_> {
    /// A configuration error: denies under failurePolicy Fail, else nothing.
    fn config_error(
        &mut self,
        policy: &CompiledPolicy,
        binding: Option<&str>,
        error: &ConfigurationError,
    ) {
        let message = match (&policy.policy.spec.failure_policy, binding) {
            (Some(FailurePolicy::Ignore), _) => return,
            (Some(FailurePolicy::Other(other)), _) => {
                format!("unrecognized failure policy: '{other}'")
            }
            (_, Some(_)) => format!("failed to configure binding: {error}"),
            (_, None) => format!("failed to configure policy: {error}"),
        };
        self.denials.push(Denial {
            policy: policy.name().to_string(),
            binding: binding.map(str::to_string),
            message,
            reason: "Invalid".into(),
        });
    }

    fn policy(&mut self, policy: &CompiledPolicy, bindings: &[&ValidatingAdmissionPolicyBinding]) {
        let spec = &policy.policy.spec;
        let fails = error_denies(spec.failure_policy.as_ref());
        let input = self.input;
        let request = input.request;
        let Some(constraints) = &spec.match_constraints else {
            return;
        };
        let matched = match matching::matches(constraints, request, input.namespace, self.resources)
        {
            Ok(Some(m)) => m,
            Ok(None) => return,
            Err(e) => return self.config_error(policy, None, &e),
        };
        // The objects as the matched kind.
        let converted = if matched.kind != request.kind {
            let convert = |o: &Option<serde_json::Value>| {
                o.as_ref()
                    .map(|o| self.resources.convert(o, &matched.kind))
                    .transpose()
            };
            Some(convert(&request.object).and_then(|o| Ok((o, convert(&request.old_object)?))))
        } else {
            None
        };
        let mut annotations: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for &binding in bindings {
            let binding_name = binding.metadata.name.as_str();
            if let Some(resources) = &binding.spec.match_resources {
                match matching::matches(resources, request, input.namespace, self.resources) {
                    Ok(Some(_)) => {}
                    Ok(None) => continue,
                    Err(e) => {
                        self.config_error(policy, Some(binding_name), &e);
                        continue;
                    }
                }
            }
            let params = match params::collect(spec, binding, input) {
                Ok(p) => p,
                Err(e) => {
                    self.config_error(policy, Some(binding_name), &e);
                    continue;
                }
            };
            let (object, old_object) = match &converted {
                None => (request.object.as_ref(), request.old_object.as_ref()),
                Some(Ok((o, old))) => (o.as_ref(), old.as_ref()),
                Some(Err(e)) if !params.is_empty() => {
                    let e = ConfigurationError::Conversion(e.clone());
                    self.config_error(policy, Some(binding_name), &e);
                    continue;
                }
                // Nothing is evaluated without params; the namespace is still fetched.
                Some(Err(_)) => (None, None),
            };
            let namespace = match input.namespace_object() {
                Ok(namespace) => namespace,
                Err(status) => {
                    self.aborted = Some(status);
                    return;
                }
            };
            for param in params {
                let subject = Subject {
                    request,
                    matched: &matched,
                    object,
                    old_object,
                    namespace,
                    params: param,
                    authorizer: input.authorizer.as_ref(),
                    converted: &self.converted,
                };
                let result = evaluate(policy, Arc::new(PolicyActivation::new(&subject)));
                for cost in result.costs {
                    let names = (policy.name().to_string(), binding_name.to_string());
                    self.decision.costs.push((names.0, names.1, cost));
                }
                for (index, outcome) in result.outcomes {
                    let (message, reason) = match outcome {
                        Outcome::Admit => continue,
                        Outcome::Error(_) if !fails => continue,
                        Outcome::Error(e) => (e.to_string(), "Invalid".to_string()),
                        Outcome::Deny { message, reason } => (message, reason),
                    };
                    self.apply_actions(policy, binding, index, message, reason);
                }
                for annotation in result.annotations {
                    let message = match annotation {
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
                            continue;
                        }
                        AnnotationOutcome::Error(_) if !fails => continue,
                        AnnotationOutcome::Error(e) => e.to_string(),
                        AnnotationOutcome::BadType(message) => message,
                    };
                    self.denials.push(Denial {
                        policy: policy.name().to_string(),
                        binding: Some(binding_name.to_string()),
                        message,
                        reason: "Invalid".into(),
                    })
                }
            }
        }
        for (key, values) in annotations {
            self.decision
                .audit_annotations
                .insert(format!("{}/{key}", policy.name()), values.join(", "));
        }
    }

    fn apply_actions(
        &mut self,
        policy: &CompiledPolicy,
        binding: &ValidatingAdmissionPolicyBinding,
        index: usize,
        message: String,
        reason: String,
    ) {
        let binding_name = &binding.metadata.name;
        for action in &binding.spec.validation_actions {
            match action {
                ValidationAction::Deny => self.denials.push(Denial {
                    policy: policy.name().to_string(),
                    binding: Some(binding_name.clone()),
                    message: message.clone(),
                    reason: reason.clone(),
                }),
                ValidationAction::Warn => {
                    let warning = format!(
                        "Validation failed for ValidatingAdmissionPolicy '{}' with binding '{binding_name}': {message}",
                        policy.name()
                    );
                    // The API server's warning recorder keeps one of identical warnings.
                    if !self.decision.warnings.contains(&warning) {
                        self.decision.warnings.push(warning);
                    }
                }
                ValidationAction::Audit => self.failures.push(ValidationFailure {
                    message: message.clone(),
                    policy: binding.spec.policy_name.clone(),
                    binding: binding_name.clone(),
                    expression_index: index,
                    validation_actions: binding.spec.validation_actions.clone(),
                }),
                // Rejected when the binding is written; the dispatcher ignores it.
                ValidationAction::Other(_) => {}
            }
        }
    }
}

/// The value of the validation-failure audit annotation (fields in Go's order).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ValidationFailure {
    message: String,
    policy: String,
    binding: String,
    expression_index: usize,
    validation_actions: Vec<ValidationAction>,
}

/// JSON as Go's encoder writes it (HTML characters escaped).
fn go_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}
