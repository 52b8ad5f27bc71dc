//! Structured merge of Kubernetes objects, as sigs.k8s.io/structured-merge-diff models it:
//! what merging needs of a schema ([`apply_schema`]: list types and keys, atomic maps, over the
//! library's vendored OpenAPI schemas of the built-in kinds and over CRD structural
//! schemas), field paths and sets ([`fieldpath`]), and values with a schema ([`typed`]:
//! field sets, comparison, merge, removal). The API server's server-side apply and field
//! management build on it; [`apply_configuration`] is the merge of a
//! MutatingAdmissionPolicy's apply configuration (kube-apiserver's
//! `policy/mutating/patch/smd.go`, `ApplyStructuredMergeDiff`), shared by `kcel test` and
//! the server.
//!
//! ```
//! use kcel_stdlib::kubernetes::merge::{self, apply_schema::OpenApi};
//! use serde_json::json;
//!
//! // Containers are a list keyed by name: an apply configuration naming one container
//! // changes that one and keeps the others.
//! let node = OpenApi::of_kind("apps/v1", "Deployment");
//! let live = json!({"spec": {"template": {"spec": {"containers": [
//!     {"name": "web", "image": "nginx"}, {"name": "log", "image": "busybox"}]}}}});
//! let patch = json!({"spec": {"template": {"spec": {"containers": [
//!     {"name": "log", "image": "busybox:1.36"}]}}}});
//! let merged = merge::apply_configuration(&live, &patch, &node).unwrap();
//! assert_eq!(merged["spec"]["template"]["spec"]["containers"], json!([
//!     {"name": "web", "image": "nginx"}, {"name": "log", "image": "busybox:1.36"}]));
//!
//! // An atomic list (a container's args) may not be set: applying it would replace it.
//! let args = json!({"spec": {"template": {"spec": {"containers": [
//!     {"name": "web", "args": ["-v"]}]}}}});
//! assert_eq!(
//!     merge::apply_configuration(&live, &args, &node).unwrap_err().to_string(),
//!     "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: \
//!      .spec.template.spec.containers[0].args"
//! );
//! ```

pub mod apply_schema;
pub mod fieldpath;
pub mod typed;

use serde_json::Value;

use apply_schema::{ApplySchema, Node};

/// Why an apply configuration cannot be merged into an object, with upstream's texts
/// (which kube-apiserver prefixes with `error applying patch: `).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// The configuration is not a value of the schema: values of the wrong type
    /// (`.spec.replicas: expected numeric (int or float), got string`), fields the schema
    /// does not declare (`.spec.foo: field not declared in schema`), repeated or unnamed
    /// items of keyed lists (structured-merge-diff's validation when the patch is made
    /// typed).
    #[error("failed to convert patch object to typed object: {}", validation_errors(.0))]
    NotTyped(Vec<String>),
    /// The configuration sets atomic lists, maps or structs, which applying would replace
    /// whole (`validatePatch` / `findAtomics`).
    #[error(
        "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: {}",
        .0.join(", ")
    )]
    Atomic(Vec<String>),
}

/// structured-merge-diff's `ValidationErrors.Error()`: one error as is, several as
/// `errors:` and one indented line each.
fn validation_errors(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        _ => std::iter::once("errors:".to_owned())
            .chain(errors.iter().map(|e| format!("  {e}")))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Merges `patch` (an apply configuration: the fields to set) into `live` with the
/// schema `node` (`None`: untyped, maps merge by key and lists are atomic), as
/// MutatingAdmissionPolicy applies an `ApplyConfiguration` mutation: the patch is
/// checked against the schema, atomic lists, maps and structs in it are refused, then
/// it is merged as server-side apply merges (keyed lists by key, sets by value) without
/// recording field ownership.
pub fn apply_configuration<S: ApplySchema>(
    live: &Value,
    patch: &Value,
    node: &Node<S>,
) -> Result<Value, ApplyError> {
    let problems = typed::validation_errors(patch, node);
    if !problems.is_empty() {
        return Err(ApplyError::NotTyped(problems));
    }
    let atomics = typed::atomics(patch, node);
    if !atomics.is_empty() {
        return Err(ApplyError::Atomic(atomics));
    }
    Ok(typed::merge(live, patch, node))
}
