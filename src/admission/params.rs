//! Finding the params objects a binding refers to (Kubernetes' `CollectParams`).

use super::Input;
use super::matching::{labels_of, selector_matches};
use super::types::{ParameterNotFoundAction, PolicySpec, ValidatingAdmissionPolicyBinding};

fn meta<'a>(object: &'a serde_json::Value, field: &str) -> &'a str {
    object
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(|v| v.as_str())
        .unwrap_or("")
}

/// The params objects to evaluate with: `[None]` when the policy takes no params or the
/// binding gives no `paramRef`, empty when none is found and the binding allows that,
/// `Err` (a configuration error) otherwise.
pub fn collect<'a>(
    spec: &PolicySpec,
    binding: &ValidatingAdmissionPolicyBinding,
    input: &Input<'a>,
) -> Result<Vec<Option<&'a serde_json::Value>>, String> {
    let (Some(_), Some(param_ref)) = (&spec.param_kind, &binding.spec.param_ref) else {
        return Ok(vec![None]);
    };
    let namespace = if param_ref.namespace.is_empty() {
        input.request.namespace.as_str()
    } else {
        param_ref.namespace.as_str()
    };
    // Cluster-scoped params have no namespace; namespaced ones must be in `namespace`.
    let in_scope = |p: &&serde_json::Value| {
        let ns = meta(p, "namespace");
        ns.is_empty() || ns == namespace
    };
    let found: Vec<_> = if !param_ref.name.is_empty() {
        if param_ref.selector.is_some() {
            return Err("both name and selector specified".into());
        }
        input
            .params
            .iter()
            .filter(in_scope)
            .filter(|p| meta(p, "name") == param_ref.name)
            .take(1)
            .map(Some)
            .collect()
    } else if let Some(selector) = &param_ref.selector {
        input
            .params
            .iter()
            .filter(in_scope)
            .filter(|p| selector_matches(selector, &labels_of(Some(p))))
            .map(Some)
            .collect()
    } else {
        return Err("one of name or selector must be specified".into());
    };
    if found.is_empty()
        && param_ref.parameter_not_found_action == Some(ParameterNotFoundAction::Deny)
    {
        return Err(
            "no params found for policy binding with `Deny` parameterNotFoundAction".into(),
        );
    }
    Ok(found)
}
