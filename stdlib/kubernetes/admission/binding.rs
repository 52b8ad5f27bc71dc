//! Validating a ValidatingAdmissionPolicyBinding as the API server does.

use crate::kubernetes::crd::FieldError;

use super::api::ValidatingAdmissionPolicyBinding;
use super::write_validation;

/// The field errors of a binding, in the API server's order: metadata, `policyName`,
/// `paramRef`, `matchResources` and `validationActions`.
pub fn validate_binding(binding: &ValidatingAdmissionPolicyBinding) -> Vec<FieldError> {
    write_validation::binding_errors(binding)
}
