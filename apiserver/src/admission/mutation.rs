//! MutatingAdmissionPolicy in the server: the apply configurations of mutations merged with
//! the server's structured-merge-diff code and the served kinds' schemas
//! ([`ServerMerge`]), and a failed mutation as the API error upstream returns.

use kcel_stdlib::kubernetes::admission::Status;
use kcel_stdlib::kubernetes::admission::api::GroupVersionKind;
use kcel_stdlib::kubernetes::admission::mutating::ApplyMerge;
use serde_json::Value;

use crate::apply::schema::{KindSchema, OpenApi};
use crate::error::ApiError;
use crate::resource::Resource;
use crate::status::{StatusCause, StatusDetails};

/// Merges apply configurations as server-side apply merges (`apply::typed::merge`) with
/// the written resource's schema: the built-in kind's OpenAPI schema, untyped for custom
/// resources (maps merge by key, lists are atomic).
pub struct ServerMerge {
    /// The resource written.
    pub resource: &'static Resource,
}

impl ApplyMerge for ServerMerge {
    fn merge(&self, _: &GroupVersionKind, object: &Value, patch: &Value) -> Result<Value, String> {
        let node =
            crate::openapi::schema_of(self.resource).map(|s| KindSchema::BuiltIn(OpenApi(s)));
        let atomics = crate::apply::typed::atomics(patch, &node);
        if !atomics.is_empty() {
            return Err(format!(
                "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: {}",
                atomics.join(", ")
            ));
        }
        Ok(crate::apply::typed::merge(object, patch, &node))
    }
}

/// A failed mutation as the API error: `admission.NewForbidden` with the policy error's
/// message (no `... is forbidden:` prefix) and reason, the message as the one cause
/// (kubernetes `policy/generic/policy_dispatcher.go`, `Dispatch`).
pub fn denied(resource: &Resource, name: &str, namespace: &str, status: Status) -> ApiError {
    if status.code == 404 {
        return ApiError {
            code: 404,
            reason: "NotFound",
            message: status.message,
            details: Some(Box::new(StatusDetails {
                name: namespace.to_owned(),
                kind: "namespaces".to_owned(),
                ..StatusDetails::default()
            })),
        };
    }
    let reason = match status.reason.as_str() {
        "Invalid" => "Invalid",
        _ => "Forbidden",
    };
    ApiError {
        code: status.code,
        reason,
        message: status.message.clone(),
        details: Some(Box::new(StatusDetails {
            name: name.to_owned(),
            group: resource.group.to_owned(),
            kind: resource.plural.to_owned(),
            causes: vec![StatusCause {
                reason: "",
                message: status.message,
                field: String::new(),
            }],
            ..StatusDetails::default()
        })),
    }
}
