//! Validating a ValidatingAdmissionPolicyBinding as the API server does.

use crate::kubernetes::{ErrorType, FieldError, FieldPath};

use super::types::{ValidatingAdmissionPolicyBinding, ValidationAction};

fn error(path: &str, kind: ErrorType, value: &str, detail: &str) -> FieldError {
    FieldError::new(FieldPath::new(path), kind, value, detail)
}

/// The field errors of a binding: `policyName`, `paramRef` and `validationActions`.
pub fn validate_binding(binding: &ValidatingAdmissionPolicyBinding) -> Vec<FieldError> {
    let spec = &binding.spec;
    let mut errors = Vec::new();
    if spec.policy_name.is_empty() {
        errors.push(error("spec.policyName", ErrorType::Required, "", ""));
    }
    if let Some(param_ref) = &spec.param_ref {
        const EXCLUSIVE: &str = "name and selector are mutually exclusive";
        let both = !param_ref.name.is_empty() && param_ref.selector.is_some();
        if both {
            errors.push(error(
                "spec.paramRef.name",
                ErrorType::Forbidden,
                "",
                EXCLUSIVE,
            ));
            errors.push(error(
                "spec.paramRef.selector",
                ErrorType::Forbidden,
                "",
                EXCLUSIVE,
            ));
        }
        if param_ref.name.is_empty() && param_ref.selector.is_none() {
            let detail = "one of name or selector must be specified";
            errors.push(error("spec.paramRef", ErrorType::Required, "", detail));
        }
        if param_ref.parameter_not_found_action.is_none() {
            let path = "spec.paramRef.parameterNotFoundAction";
            errors.push(error(path, ErrorType::Required, "", ""));
        }
    }
    let actions = &spec.validation_actions;
    for (i, action) in actions.iter().enumerate() {
        if actions[..i].contains(action) {
            let path = FieldPath::new("spec.validationActions").index(i);
            let value = format!("{action:?}");
            errors.push(FieldError::new(path, ErrorType::Duplicate, &value, ""));
        }
    }
    if actions.contains(&ValidationAction::Deny) && actions.contains(&ValidationAction::Warn) {
        let listed: Vec<String> = actions.iter().map(|a| format!("\"{a:?}\"")).collect();
        let value = format!(
            "[]admissionregistration.ValidationAction{{{}}}",
            listed.join(", ")
        );
        errors.push(FieldError::with_rendered_value(
            FieldPath::new("spec.validationActions"),
            ErrorType::Invalid,
            value,
            "must not contain both Deny and Warn (repeating the same validation failure \
             information in the API response and headers serves no purpose)",
        ));
    }
    if actions.is_empty() {
        let detail = "at least one validation action is required";
        errors.push(error(
            "spec.validationActions",
            ErrorType::Required,
            "",
            detail,
        ));
    }
    errors
}
