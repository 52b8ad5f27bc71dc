//! The configuration errors of matching a request with a policy or binding and collecting
//! its params, in the API server's words (they deny the request unless the failure policy
//! is `Ignore`).

use super::api::GroupVersionResource;
use crate::kubernetes::crd::field_error::go_quote;

/// Why a policy or binding cannot be applied to a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigurationError {
    /// An equivalent resource whose kind is unknown.
    #[error("unable to convert to {}/{}, Resource={}: unknown kind", .0.group, .0.version, .0.resource)]
    UnknownKind(GroupVersionResource),
    /// The request's namespace does not exist (Kubernetes' NotFound text).
    #[error("namespaces {} not found", go_quote(.0))]
    NamespaceNotFound(String),
    /// Namespaced params for a cluster-scoped request without `paramRef.namespace`.
    #[error(
        "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
    )]
    NamespacedParamsForClusterScope,
    /// `paramRef.namespace` for cluster-scoped params.
    #[error("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")]
    NamespaceForClusterScopedParams,
    /// Both `paramRef.name` and `paramRef.selector`.
    #[error("paramRef.name and paramRef.selector are mutually exclusive")]
    NameAndSelector,
    /// Neither `paramRef.name` nor `paramRef.selector`.
    #[error("one of name or selector must be provided")]
    NoNameOrSelector,
    /// No params found and `parameterNotFoundAction: Deny`.
    #[error("no params found for policy binding with `Deny` parameterNotFoundAction")]
    NoParams,
    /// The objects could not be converted to the matched kind.
    #[error("failed to convert object version: {0}")]
    Conversion(ConversionError),
}

/// Why an object could not be converted to another version of its kind (an embedder's
/// converter, [`EquivalentResources::convert`](super::EquivalentResources::convert)): the
/// converter's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ConversionError {
    /// The converter's message, as the API server's converter words it.
    pub message: String,
}
