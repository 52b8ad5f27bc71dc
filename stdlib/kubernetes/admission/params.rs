//! Finding the params objects a binding refers to (Kubernetes' `CollectParams`).

use super::Input;
use super::api::{
    ParamKind, ParameterNotFoundAction, PolicySpec, ValidatingAdmissionPolicyBinding,
};
use super::configuration_errors::ConfigurationError;
use super::matching::{labels_of, selector_matches};

fn meta<'a>(object: &'a serde_json::Value, field: &str) -> &'a str {
    object
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(|v| v.as_str())
        .unwrap_or("")
}

/// Whether a candidate object is of `kind` (objects without `apiVersion` and `kind` are
/// taken to be).
fn of_kind(object: &serde_json::Value, kind: &ParamKind) -> bool {
    let field = |f: &str| object.get(f).and_then(|v| v.as_str()).unwrap_or("");
    let (api_version, k) = (field("apiVersion"), field("kind"));
    (api_version.is_empty() || api_version == kind.api_version) && (k.is_empty() || k == kind.kind)
}

/// Built-in namespaced kinds commonly used as params.
const NAMESPACED: [(&str, &str); 4] = [
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("v1", "ServiceAccount"),
    ("v1", "LimitRange"),
];

/// Whether the params resource is namespaced: `Some(true)` when the candidates of the kind
/// carry a namespace (or it is a well-known namespaced built-in kind), `Some(false)` when
/// they do not, `None` when nothing tells (no candidate objects).
fn namespaced(kind: &ParamKind, candidates: &[&serde_json::Value]) -> Option<bool> {
    if NAMESPACED.contains(&(kind.api_version.as_str(), kind.kind.as_str())) {
        return Some(true);
    }
    let first = candidates.first()?;
    Some(!meta(first, "namespace").is_empty())
}

/// The params objects to evaluate with: `[None]` when the policy takes no params or the
/// binding gives no `paramRef`, empty when none is found and the binding allows that,
/// `Err` (a configuration error, with Kubernetes' text) otherwise.
pub fn collect<'a>(
    spec: &PolicySpec,
    binding: &ValidatingAdmissionPolicyBinding,
    input: &Input<'a>,
) -> Result<Vec<Option<&'a serde_json::Value>>, ConfigurationError> {
    let (Some(kind), Some(param_ref)) = (&spec.param_kind, &binding.spec.param_ref) else {
        return Ok(vec![None]);
    };
    let candidates: Vec<&serde_json::Value> =
        input.params.iter().filter(|p| of_kind(p, kind)).collect();
    let scope = namespaced(kind, &candidates);
    let namespace = if param_ref.namespace.is_empty() {
        input.request.namespace.as_str()
    } else {
        param_ref.namespace.as_str()
    };
    match scope {
        Some(true) if namespace.is_empty() => {
            return Err(ConfigurationError::NamespacedParamsForClusterScope);
        }
        Some(false) if !param_ref.namespace.is_empty() => {
            return Err(ConfigurationError::NamespaceForClusterScopedParams);
        }
        _ => {}
    }
    // Cluster-scoped params have no namespace; namespaced ones must be in `namespace`.
    let in_scope = |p: &&&serde_json::Value| {
        let ns = meta(p, "namespace");
        ns.is_empty() || ns == namespace
    };
    let found: Vec<_> = if !param_ref.name.is_empty() {
        if param_ref.selector.is_some() {
            return Err(ConfigurationError::NameAndSelector);
        }
        candidates
            .iter()
            .filter(in_scope)
            .filter(|p| meta(p, "name") == param_ref.name)
            .take(1)
            .map(|p| Some(*p))
            .collect()
    } else if let Some(selector) = &param_ref.selector {
        candidates
            .iter()
            .filter(in_scope)
            .filter(|p| selector_matches(selector, &labels_of(Some(p))))
            .map(|p| Some(*p))
            .collect()
    } else {
        return Err(ConfigurationError::NoNameOrSelector);
    };
    if found.is_empty()
        && param_ref.parameter_not_found_action == Some(ParameterNotFoundAction::Deny)
    {
        return Err(ConfigurationError::NoParams);
    }
    Ok(found)
}
