//! Validating policies and bindings as the API server does when they are written
//! (Kubernetes' `admissionregistration` validation): field errors in the API server's order
//! and with its texts. The objects are taken as stored, defaults applied as they were read
//! (`api.rs`): an absent `failurePolicy`, `matchPolicy`, `namespaceSelector` or
//! `objectSelector` is not an error.

use serde_json::Value as Json;

use crate::kubernetes::crd::field_error::{go_json_quote, go_json_value, go_quote};
use crate::kubernetes::crd::{ErrorType, FieldError, FieldPath};
use crate::kubernetes::named_formats::messages as check;
use crate::kubernetes::object_meta::{Meta, Scope};

use super::api::{
    FailurePolicy, LabelSelector, MatchPolicy, MatchResources, NamedRuleWithOperations, ObjectMeta,
    ParamKind, ParamRef, ParameterNotFoundAction, ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding, ValidationAction,
};
use super::expression_errors::ExpressionError;

/// At most this many match conditions (`validateMatchConditions`).
const MAX_MATCH_CONDITIONS: usize = 64;

/// The compile errors of a policy's expressions (the detail of each field error), as the
/// API server compiles them when the policy is written.
pub struct CompileErrors {
    /// An update leaving paramKind and the match conditions unchanged: they are not
    /// validated.
    pub ignore_match_conditions: bool,
    pub conditions: Vec<Option<ExpressionError>>,
    pub variables: Vec<Option<ExpressionError>>,
    pub validations: Vec<Option<ExpressionError>>,
    pub messages: Vec<Option<ExpressionError>>,
    pub audit_annotations: Vec<Option<ExpressionError>>,
}

/// A string slice as a field error's bad value: `json.Marshal` (Kubernetes 1.34 and later
/// render composite bad values as JSON; before, Go's `%#v`).
fn json_strings<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<Json> = items.iter().map(|s| Json::from(s.as_ref())).collect();
    go_json_value(&Json::Array(items))
}

/// `field.NotSupported`'s detail (`strconv.Quote` of each value).
fn supported(values: &[&str]) -> String {
    let values: Vec<String> = values.iter().map(|v| go_quote(v)).collect();
    format!("supported values: {}", values.join(", "))
}

/// The error list being built.
#[derive(Default)]
struct Errors(Vec<FieldError>);

impl Errors {
    fn required(&mut self, path: &FieldPath, detail: &str) {
        self.0.push(FieldError::new(
            path.clone(),
            ErrorType::Required,
            "",
            detail,
        ));
    }

    fn forbidden(&mut self, path: &FieldPath, detail: &str) {
        self.0.push(FieldError::new(
            path.clone(),
            ErrorType::Forbidden,
            "",
            detail,
        ));
    }

    fn invalid(&mut self, path: &FieldPath, value: &str, detail: &str) {
        self.0.push(FieldError::new(
            path.clone(),
            ErrorType::Invalid,
            value,
            detail,
        ));
    }

    fn invalid_rendered(&mut self, path: &FieldPath, value: String, detail: &str) {
        self.0.push(FieldError::with_rendered_value(
            path.clone(),
            ErrorType::Invalid,
            value,
            detail,
        ));
    }

    fn duplicate(&mut self, path: &FieldPath, value: &str) {
        self.0.push(FieldError::new(
            path.clone(),
            ErrorType::Duplicate,
            value,
            "",
        ));
    }

    /// `field.NotSupported` of a value of a named string type (`OperationType`,
    /// `FailurePolicyType`, ...): not a Go `string`, so the bad value is rendered by
    /// `json.Marshal`.
    fn not_supported(&mut self, path: &FieldPath, value: &str, values: &[&str]) {
        self.0.push(FieldError::with_rendered_value(
            path.clone(),
            ErrorType::NotSupported,
            go_json_quote(value),
            supported(values),
        ));
    }

    /// `field.Duplicate` of a value of a named string type (rendered by `json.Marshal`).
    fn duplicate_named(&mut self, path: &FieldPath, value: &str) {
        self.0.push(FieldError::with_rendered_value(
            path.clone(),
            ErrorType::Duplicate,
            go_json_quote(value),
            "",
        ));
    }

    /// An expression's compile error (`Invalid`, the expression as the bad value).
    fn expression(&mut self, path: &FieldPath, source: &str, error: Option<&ExpressionError>) {
        if let Some(error) = error {
            self.invalid(path, source, &error.to_string());
        }
    }
}

/// `ValidateObjectMeta` for a cluster-scoped object named as a DNS subdomain (policies and
/// bindings).
fn validate_meta(meta: &ObjectMeta, errors: &mut Errors) {
    let pairs = |m: &std::collections::BTreeMap<String, String>| -> Vec<(String, String)> {
        m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    };
    let found = Meta {
        name: &meta.name,
        generate_name: &meta.generate_name,
        namespace: &meta.namespace,
        labels: &pairs(&meta.labels),
        annotations: &pairs(&meta.annotations),
        ..Meta::default()
    }
    .errors(Scope::Cluster);
    errors.0.extend(found);
}

/// `ValidateLabelSelector` (strict: label values must be valid).
fn validate_selector(selector: &LabelSelector, path: &FieldPath, errors: &mut Errors) {
    let labels = path.child("matchLabels");
    for (key, value) in &selector.match_labels {
        for message in check("qualifiedName", key) {
            errors.invalid(&labels, key, &message);
        }
        for message in check("labelValue", value) {
            errors.invalid(&labels, value, &message);
        }
    }
    for (i, requirement) in selector.match_expressions.iter().enumerate() {
        let path = path.child("matchExpressions").index(i);
        match requirement.operator.as_str() {
            "In" | "NotIn" if requirement.values.is_empty() => errors.required(
                &path.child("values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            ),
            "Exists" | "DoesNotExist" if !requirement.values.is_empty() => errors.forbidden(
                &path.child("values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => errors.invalid(
                &path.child("operator"),
                other,
                "not a valid selector operator",
            ),
        }
        for message in check("qualifiedName", &requirement.key) {
            errors.invalid(&path.child("key"), &requirement.key, &message);
        }
        for (j, value) in requirement.values.iter().enumerate() {
            for message in check("labelValue", value) {
                errors.invalid(&path.child("values").index(j), value, &message);
            }
        }
    }
}

/// `validateResources` (subresources allowed).
fn validate_resources(resources: &[String], path: &FieldPath, errors: &mut Errors) {
    if resources.is_empty() {
        errors.required(path, "");
    }
    let mut wildcard_subresources: Vec<&str> = Vec::new();
    let mut wildcard_resources: Vec<&str> = Vec::new();
    let (mut double_wildcard, mut single_wildcard) = (false, false);
    let mut without_subresource = false;
    for (i, entry) in resources.iter().enumerate() {
        if entry.is_empty() {
            errors.required(&path.index(i), "");
            continue;
        }
        double_wildcard |= entry == "*/*";
        single_wildcard |= entry == "*";
        let Some((res, sub)) = entry.split_once('/') else {
            without_subresource = entry != "*";
            continue;
        };
        if wildcard_subresources.contains(&res) {
            let detail = format!("if '{res}/*' is present, must not specify {entry}");
            errors.invalid(&path.index(i), entry, &detail);
        }
        if wildcard_resources.contains(&sub) {
            let detail = format!("if '*/{sub}' is present, must not specify {entry}");
            errors.invalid(&path.index(i), entry, &detail);
        }
        if sub == "*" {
            wildcard_subresources.push(res);
        }
        if res == "*" {
            wildcard_resources.push(sub);
        }
    }
    if resources.len() > 1 && double_wildcard {
        errors.invalid_rendered(
            path,
            json_strings(resources),
            "if '*/*' is present, must not specify other resources",
        );
    }
    if single_wildcard && without_subresource {
        errors.invalid_rendered(
            path,
            json_strings(resources),
            "if '*' is present, must not specify other resources without subresources",
        );
    }
}

/// `validateNamedRuleWithOperations`.
fn validate_rule(rule: &NamedRuleWithOperations, path: &FieldPath, errors: &mut Errors) {
    let names = path.child("resourceNames");
    for (i, name) in rule.resource_names.iter().enumerate() {
        for message in crate::kubernetes::object_meta::path_segment_name(name) {
            errors.invalid(&names.index(i), name, &message);
        }
        if rule.resource_names[..i].contains(name) {
            errors.duplicate(&names.index(i), name);
        }
    }
    let operations = path.child("operations");
    if rule.operations.is_empty() {
        errors.required(&operations, "");
    }
    let has_wildcard = |list: &[String]| list.iter().any(|x| x == "*");
    if rule.operations.len() > 1 && has_wildcard(&rule.operations) {
        errors.invalid_rendered(
            &operations,
            json_strings(&rule.operations),
            "if '*' is present, must not specify other operations",
        );
    }
    const OPERATIONS: [&str; 5] = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
    for (i, operation) in rule.operations.iter().enumerate() {
        if !OPERATIONS.contains(&operation.as_str()) {
            errors.not_supported(&operations.index(i), operation, &OPERATIONS);
        }
    }
    let groups = path.child("apiGroups");
    if rule.api_groups.is_empty() {
        errors.required(&groups, "");
    }
    if rule.api_groups.len() > 1 && has_wildcard(&rule.api_groups) {
        errors.invalid_rendered(
            &groups,
            json_strings(&rule.api_groups),
            "if '*' is present, must not specify other API groups",
        );
    }
    let versions = path.child("apiVersions");
    if rule.api_versions.is_empty() {
        errors.required(&versions, "");
    }
    if rule.api_versions.len() > 1 && has_wildcard(&rule.api_versions) {
        errors.invalid_rendered(
            &versions,
            json_strings(&rule.api_versions),
            "if '*' is present, must not specify other API versions",
        );
    }
    for (i, version) in rule.api_versions.iter().enumerate() {
        if version.is_empty() {
            errors.required(&versions.index(i), "");
        }
    }
    validate_resources(&rule.resources, &path.child("resources"), errors);
    const SCOPES: [&str; 3] = ["*", "Cluster", "Namespaced"];
    if let Some(scope) = &rule.scope
        && !SCOPES.contains(&scope.as_str())
    {
        errors.not_supported(&path.child("scope"), scope, &SCOPES);
    }
}

/// `validateMatchResources` (defaults applied: matchPolicy and the selectors are set).
fn validate_match_resources(resources: &MatchResources, path: &FieldPath, errors: &mut Errors) {
    if let Some(MatchPolicy::Other(policy)) = &resources.match_policy {
        errors.not_supported(&path.child("matchPolicy"), policy, &["Equivalent", "Exact"]);
    }
    if let Some(selector) = &resources.namespace_selector {
        validate_selector(selector, &path.child("namespaceSelector"), errors);
    }
    if let Some(selector) = &resources.object_selector {
        validate_selector(selector, &path.child("objectSelector"), errors);
    }
    for (i, rule) in resources.resource_rules.iter().enumerate() {
        validate_rule(rule, &path.child("resourceRules").index(i), errors);
    }
    for (i, rule) in resources.exclude_resource_rules.iter().enumerate() {
        validate_rule(rule, &path.child("excludeResourceRules").index(i), errors);
    }
}

/// `validateParamKind`.
fn validate_param_kind(kind: &ParamKind, path: &FieldPath, errors: &mut Errors) {
    let api_version = path.child("apiVersion");
    let value = &kind.api_version;
    if value.is_empty() {
        errors.required(&api_version, "");
    } else if value.matches('/').count() > 1 {
        let detail = format!("unexpected GroupVersion string: {value}");
        errors.invalid(&api_version, value, &detail);
    } else {
        let (group, version) = match value.split_once('/') {
            _ if value == "/" => ("", ""),
            Some((g, v)) => (g, v),
            None => ("", value.as_str()),
        };
        if !group.is_empty() {
            let messages = check("dns1123Subdomain", group);
            if !messages.is_empty() {
                errors.invalid(&api_version, group, &messages.join(","));
            }
        }
        if version.is_empty() {
            errors.invalid(&api_version, value, "version must be specified");
        } else {
            let messages = check("dns1035Label", version);
            if !messages.is_empty() {
                errors.invalid(&api_version, version, &messages.join(","));
            }
        }
    }
    let kind_path = path.child("kind");
    if kind.kind.is_empty() {
        errors.required(&kind_path, "");
    } else {
        let messages = check("dns1035Label", &kind.kind.to_lowercase());
        if !messages.is_empty() {
            let detail = format!(
                "may have mixed case, but should otherwise match: {}",
                messages.join(",")
            );
            errors.invalid(&kind_path, &kind.kind, &detail);
        }
    }
}

/// Kubernetes' `isCELIdentifier`: an identifier that is not a reserved word.
fn is_cel_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && !crate::kubernetes::crd::escaping::is_reserved(name)
}

/// At most this many audit annotations.
const MAX_AUDIT_ANNOTATIONS: usize = 20;
/// The longest audit annotation valueExpression, in bytes.
const MAX_VALUE_EXPRESSION_BYTES: usize = 5 * 1024;

/// The field errors of a policy, in the API server's order (`validateValidatingAdmissionPolicy`).
pub fn policy_errors(
    policy: &ValidatingAdmissionPolicy,
    compiled: &CompileErrors,
) -> Vec<FieldError> {
    let mut errors = Errors::default();
    shared_errors(policy, compiled, None, &mut errors);
    let spec = &policy.spec;
    let path = FieldPath::new("spec");
    validating_errors(policy, spec, &path, compiled, &mut errors);
    errors.0
}

/// The operations a MutatingAdmissionPolicy (and its binding) may match: no DELETE.
const MUTATING_OPERATIONS: [&str; 4] = ["*", "CONNECT", "CREATE", "UPDATE"];

/// `validateOperations` of a mutating policy's or binding's rules.
fn validate_mutating_operations(
    rules: &[NamedRuleWithOperations],
    path: &FieldPath,
    errors: &mut Errors,
) {
    for rule in rules {
        for operation in &rule.operations {
            if !MUTATING_OPERATIONS.contains(&operation.as_str()) {
                errors.not_supported(path, operation, &MUTATING_OPERATIONS);
            }
        }
    }
}

/// The field errors of a MutatingAdmissionPolicy, in the API server's order
/// (`validateMutatingAdmissionPolicySpec`): the parts shared with validating policies
/// (checked on `shared`, the policy's [`super::api::MutatingAdmissionPolicy::as_validating`]),
/// then `mutations` (`mutation_errors`: each mutation's expression's compile error, by
/// index) and `reinvocationPolicy`.
pub fn mutating_policy_errors(
    policy: &super::api::MutatingAdmissionPolicy,
    shared: &ValidatingAdmissionPolicy,
    compiled: &CompileErrors,
    mutation_errors: &[Option<ExpressionError>],
) -> Vec<FieldError> {
    let mut errors = Errors::default();
    shared_errors(
        shared,
        compiled,
        Some(&MUTATING_OPERATIONS[..]),
        &mut errors,
    );
    let spec = &policy.spec;
    let path = FieldPath::new("spec");
    if spec.mutations.is_empty() {
        let detail = "mutations must contain at least one item";
        errors.required(&path.child("mutations"), detail);
    }
    for (i, mutation) in spec.mutations.iter().enumerate() {
        let path = path.child("mutations").index(i);
        let error = mutation_errors.get(i).and_then(Option::as_ref);
        let mut expression = |patch: &Option<super::api::PatchExpression>, name: &str| {
            let Some(patch) = patch else {
                let detail = format!(
                    "must be specified when patchType is {}",
                    mutation.patch_type
                );
                errors.required(&path.child(name), &detail);
                return;
            };
            let expression_path = path.child(name).child("expression");
            let source = patch.expression.trim();
            if source.is_empty() {
                errors.required(&expression_path, "");
            } else {
                errors.expression(&expression_path, source, error);
            }
        };
        match mutation.patch_type.as_str() {
            "" => {
                errors.required(&path.child("patchType"), "");
                continue;
            }
            "JSONPatch" => {
                expression(&mutation.json_patch, "jsonPatch");
                if mutation.apply_configuration.is_some() {
                    let detail = "must not be specified when patchType is JSONPatch";
                    errors.invalid_rendered(
                        &path.child("applyConfiguration"),
                        "{applyConfiguration}".into(),
                        detail,
                    );
                }
            }
            "ApplyConfiguration" => {
                expression(&mutation.apply_configuration, "applyConfiguration");
                if mutation.json_patch.is_some() {
                    let detail = "must not be specified when patchType is ApplyConfiguration";
                    errors.invalid_rendered(&path.child("jsonPatch"), "{jsonPatch}".into(), detail);
                }
            }
            other => errors.not_supported(
                &path.child("patchType"),
                other,
                &["ApplyConfiguration", "JSONPatch"],
            ),
        }
    }
    match spec.reinvocation_policy.as_str() {
        "" => errors.required(&path.child("reinvocationPolicy"), ""),
        "Never" | "IfNeeded" => {}
        other => errors.not_supported(
            &path.child("reinvocationPolicy"),
            other,
            &["IfNeeded", "Never"],
        ),
    }
    errors.0
}

/// What every binding is checked for first, in the API server's order: its metadata, the
/// `policyName` (required, a DNS-1123 subdomain) and the `paramRef`.
fn validate_binding_head(
    metadata: &ObjectMeta,
    policy_name: &str,
    param_ref: Option<&ParamRef>,
    path: &FieldPath,
    errors: &mut Errors,
) {
    validate_meta(metadata, errors);
    if policy_name.is_empty() {
        errors.required(&path.child("policyName"), "");
    } else {
        for message in check("dns1123Subdomain", policy_name) {
            errors.invalid(&path.child("policyName"), policy_name, &message);
        }
    }
    if let Some(param_ref) = param_ref {
        validate_param_ref(param_ref, &path.child("paramRef"), errors);
    }
}

/// The field errors of a MutatingAdmissionPolicyBinding, in the API server's order.
pub fn mutating_binding_errors(
    binding: &super::api::MutatingAdmissionPolicyBinding,
) -> Vec<FieldError> {
    let mut errors = Errors::default();
    let spec = &binding.spec;
    let path = FieldPath::new("spec");
    validate_binding_head(
        &binding.metadata,
        &spec.policy_name,
        spec.param_ref.as_ref(),
        &path,
        &mut errors,
    );
    if let Some(resources) = &spec.match_resources {
        let resources_path = path.child("matchResources");
        validate_match_resources(resources, &resources_path, &mut errors);
        let operations = resources_path.child("resourceRules").child("operations");
        validate_mutating_operations(&resources.resource_rules, &operations, &mut errors);
    }
    errors.0
}

/// The checks of the parts validating and mutating policies share: metadata,
/// failurePolicy, paramKind, matchConstraints (with `operations`, the operations the
/// policy may match when not all may be), matchConditions and variables.
fn shared_errors(
    policy: &ValidatingAdmissionPolicy,
    compiled: &CompileErrors,
    operations: Option<&[&str]>,
    errors: &mut Errors,
) {
    let errors_out = errors;
    let mut errors = std::mem::take(errors_out);
    validate_meta(&policy.metadata, &mut errors);
    let spec = &policy.spec;
    let path = FieldPath::new("spec");
    if let Some(FailurePolicy::Other(value)) = &spec.failure_policy {
        errors.not_supported(&path.child("failurePolicy"), value, &["Fail", "Ignore"]);
    }
    if let Some(kind) = &spec.param_kind {
        validate_param_kind(kind, &path.child("paramKind"), &mut errors);
    }
    match &spec.match_constraints {
        None => errors.required(&path.child("matchConstraints"), ""),
        Some(constraints) => {
            let constraints_path = path.child("matchConstraints");
            validate_match_resources(constraints, &constraints_path, &mut errors);
            // At least one rule, for type information.
            if constraints.resource_rules.is_empty() {
                errors.required(&constraints_path.child("resourceRules"), "");
            }
            if operations.is_some() {
                let path = constraints_path.child("resourceRules").child("operations");
                validate_mutating_operations(&constraints.resource_rules, &path, &mut errors);
            }
        }
    }
    let conditions = if compiled.ignore_match_conditions {
        &[][..]
    } else {
        &spec.match_conditions[..]
    };
    if conditions.len() > MAX_MATCH_CONDITIONS {
        errors.0.push(FieldError::too_many(
            path.child("matchConditions"),
            conditions.len(),
            MAX_MATCH_CONDITIONS,
        ));
    }
    for (i, condition) in conditions.iter().enumerate() {
        let path = path.child("matchConditions").index(i);
        let expression = condition.expression.trim();
        if expression.is_empty() {
            errors.required(&path.child("expression"), "");
        } else {
            let error = compiled.conditions.get(i).and_then(Option::as_ref);
            errors.expression(&path.child("expression"), expression, error);
        }
        if condition.name.is_empty() {
            errors.required(&path.child("name"), "");
        } else {
            for message in check("qualifiedName", &condition.name) {
                errors.invalid(&path.child("name"), &condition.name, &message);
            }
            let earlier = &spec.match_conditions[..i];
            if earlier.iter().any(|c| c.name == condition.name) {
                errors.duplicate(&path.child("name"), &condition.name);
            }
        }
    }
    for (i, variable) in spec.variables.iter().enumerate() {
        let path = path.child("variables").index(i);
        if variable.name.trim().is_empty() {
            errors.required(&path.child("name"), "name is not specified");
        } else if !is_cel_identifier(&variable.name) {
            let detail = "name is not a valid CEL identifier";
            errors.invalid(&path.child("name"), &variable.name, detail);
        }
        if variable.expression.trim().is_empty() {
            errors.required(&path.child("expression"), "expression is not specified");
        } else {
            let error = compiled.variables.get(i).and_then(Option::as_ref);
            errors.expression(&path.child("expression"), &variable.expression, error);
        }
    }
    *errors_out = errors;
}

/// The checks of a validating policy's own parts: validations and audit annotations.
fn validating_errors(
    policy: &ValidatingAdmissionPolicy,
    spec: &super::api::PolicySpec,
    path: &FieldPath,
    compiled: &CompileErrors,
    errors: &mut Errors,
) {
    if spec.validations.is_empty() && spec.audit_annotations.is_empty() {
        let detail = "validations or auditAnnotations must contain at least one item";
        errors.required(&path.child("validations"), detail);
        errors.required(&path.child("auditAnnotations"), detail);
        return;
    }
    for (i, validation) in spec.validations.iter().enumerate() {
        let path = path.child("validations").index(i);
        if validation.expression.trim().is_empty() {
            errors.required(&path.child("expression"), "expression is not specified");
        } else {
            let error = compiled.validations.get(i).and_then(Option::as_ref);
            errors.expression(&path.child("expression"), &validation.expression, error);
        }
        let message_expression = &validation.message_expression;
        let message_path = path.child("messageExpression");
        if !message_expression.is_empty() && message_expression.trim().is_empty() {
            errors.invalid(
                &message_path,
                message_expression,
                "must be non-empty if specified",
            );
        } else if !message_expression.is_empty() {
            let error = compiled.messages.get(i).and_then(Option::as_ref);
            errors.expression(&message_path, message_expression, error);
        }
        let message = &validation.message;
        if !message.is_empty() && message.trim().is_empty() {
            let detail = "message must be non-empty if specified";
            errors.invalid(&path.child("message"), message, detail);
        } else if message.trim().contains(['\n', '\r']) {
            let detail = "message must not contain line breaks";
            errors.invalid(&path.child("message"), message, detail);
        }
        const REASONS: [&str; 3] = ["Forbidden", "Invalid", "RequestEntityTooLarge"];
        if let Some(reason) = &validation.reason
            && !REASONS.contains(&reason.as_str())
        {
            errors.not_supported(&path.child("reason"), reason, &REASONS);
        }
    }
    let annotations = &spec.audit_annotations;
    if annotations.len() > MAX_AUDIT_ANNOTATIONS {
        // The internal type has no JSON tags: Go's field names are the keys.
        let items: Vec<Json> = annotations
            .iter()
            .map(|a| serde_json::json!({"Key": a.key, "ValueExpression": a.value_expression}))
            .collect();
        errors.invalid_rendered(
            &path.child("auditAnnotations"),
            go_json_value(&Json::Array(items)),
            &format!("must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations"),
        );
    }
    for (i, annotation) in annotations.iter().enumerate() {
        let path = path.child("auditAnnotations").index(i);
        let name = &policy.metadata.name;
        if name.is_empty() {
            let detail = "requires metadata.name be non-empty";
            errors.invalid(&path.child("key"), &annotation.key, detail);
        } else {
            let qualified = format!("{name}/{}", annotation.key);
            for message in check("qualifiedName", &qualified) {
                errors.invalid(&path.child("key"), &qualified, &message);
            }
        }
        let value_path = path.child("valueExpression");
        let expression = annotation.value_expression.trim();
        if expression.is_empty() {
            errors.required(&value_path, "valueExpression is not specified");
        } else if expression.len() > MAX_VALUE_EXPRESSION_BYTES {
            let detail = format!("must not exceed {MAX_VALUE_EXPRESSION_BYTES} bytes in length");
            errors.required(&value_path, &detail);
        } else {
            let error = compiled.audit_annotations.get(i).and_then(Option::as_ref);
            errors.expression(&value_path, &annotation.value_expression, error);
        }
        if annotations[..i].iter().any(|a| a.key == annotation.key) {
            errors.duplicate(&path.child("key"), &annotation.key);
        }
    }
}

/// `validateParamRef`.
fn validate_param_ref(param_ref: &ParamRef, path: &FieldPath, errors: &mut Errors) {
    const EXCLUSIVE: &str = "name and selector are mutually exclusive";
    if !param_ref.name.is_empty() {
        for message in crate::kubernetes::object_meta::path_segment_name(&param_ref.name) {
            errors.invalid(&path.child("name"), &param_ref.name, &message);
        }
        if param_ref.selector.is_some() {
            errors.forbidden(&path.child("name"), EXCLUSIVE);
        }
    }
    if let Some(selector) = &param_ref.selector {
        validate_selector(selector, &path.child("selector"), errors);
        if !param_ref.name.is_empty() {
            errors.forbidden(&path.child("selector"), EXCLUSIVE);
        }
    }
    if param_ref.name.is_empty() && param_ref.selector.is_none() {
        errors.required(path, "one of name or selector must be specified");
    }
    match &param_ref.parameter_not_found_action {
        None => errors.required(&path.child("parameterNotFoundAction"), ""),
        Some(ParameterNotFoundAction::Other(action)) if action.is_empty() => {
            errors.required(&path.child("parameterNotFoundAction"), "")
        }
        Some(ParameterNotFoundAction::Other(action)) => errors.not_supported(
            &path.child("parameterNotFoundAction"),
            action,
            &["Deny", "Allow"],
        ),
        Some(_) => {}
    }
}

/// The field errors of a binding, in the API server's order
/// (`validateValidatingAdmissionPolicyBinding`).
pub fn binding_errors(binding: &ValidatingAdmissionPolicyBinding) -> Vec<FieldError> {
    let mut errors = Errors::default();
    let spec = &binding.spec;
    let path = FieldPath::new("spec");
    validate_binding_head(
        &binding.metadata,
        &spec.policy_name,
        spec.param_ref.as_ref(),
        &path,
        &mut errors,
    );
    if let Some(resources) = &spec.match_resources {
        // Kubernetes spells this path `matchResouces`.
        validate_match_resources(resources, &path.child("matchResouces"), &mut errors);
    }
    let actions = &spec.validation_actions;
    let actions_path = path.child("validationActions");
    for (i, action) in actions.iter().enumerate() {
        if let ValidationAction::Other(other) = action {
            errors.not_supported(&actions_path.index(i), other, &["Audit", "Deny", "Warn"]);
        }
        if actions[..i].contains(action) {
            errors.duplicate_named(&actions_path.index(i), action.as_str());
        }
    }
    if actions.contains(&ValidationAction::Deny) && actions.contains(&ValidationAction::Warn) {
        let listed: Vec<&str> = actions.iter().map(ValidationAction::as_str).collect();
        errors.invalid_rendered(
            &actions_path,
            json_strings(&listed),
            "must not contain both Deny and Warn (repeating the same validation failure \
             information in the API response and headers serves no purpose)",
        );
    }
    if actions.is_empty() {
        errors.required(&actions_path, "at least one validation action is required");
    }
    errors.0
}
