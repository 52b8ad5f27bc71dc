//! MutatingAdmissionPolicy in the server: the apply configurations of mutations merged by
//! the library's structured merge with the served kinds' schemas and each mutation's result
//! defaulted ([`ServerSchemas`]), and a failed mutation as the API error upstream returns.

use std::sync::Arc;

use kcel_stdlib::kubernetes::admission::Status;
use kcel_stdlib::kubernetes::admission::api::GroupVersionKind;
use kcel_stdlib::kubernetes::admission::mutating::ObjectSchemas;
use kcel_stdlib::kubernetes::merge::{self, ApplyError};
use serde_json::Value;

use crate::apply::apply_schema::{KindSchema, OpenApi};
use crate::crd::CustomResource;
use crate::error::ApiError;
use crate::resource::Resource;
use crate::status::{StatusCause, StatusDetails};

/// The written resource's schema: apply configurations merged with it as server-side apply
/// merges (a custom resource's structural schema from its CRD version: list types, map
/// keys, atomic maps; a built-in kind's OpenAPI schema; the autoscaling/v1 `Scale` of a
/// `/scale` write untyped, it has no lists; the served kind a policy matched through an
/// equivalent resource, when it matched so), and each mutation's result defaulted as
/// kube-apiserver's dispatcher defaults it (`dispatchOne`): a built-in kind's field
/// defaults ([`crate::defaults::fields`]), a custom resource's schema `default`s (its
/// CRD's defaulter, no pruning); a `Scale` has none.
pub struct ServerSchemas {
    /// The resource written.
    pub resource: &'static Resource,
    /// The resource's CRD, for a custom resource.
    pub custom: Option<Arc<CustomResource>>,
}

impl ServerSchemas {
    /// The served built-in resource of `kind` when a policy matched the request through an
    /// equivalent resource of another kind (the object is mutated as that kind); `None` for
    /// the request's own kind.
    fn equivalent(&self, kind: &GroupVersionKind) -> Option<&'static Resource> {
        let own = self.resource;
        if (own.group, own.version, own.kind) == (&*kind.group, &*kind.version, &*kind.kind) {
            return None;
        }
        crate::resource::SERVED
            .iter()
            .find(|r| (r.group, r.version, r.kind) == (&*kind.group, &*kind.version, &*kind.kind))
    }
}

impl ObjectSchemas for ServerSchemas {
    fn merge(
        &self,
        kind: &GroupVersionKind,
        object: &Value,
        patch: &Value,
    ) -> Result<Value, ApplyError> {
        let scale = kind.group == "autoscaling" && kind.kind == "Scale";
        let built_in = |r| crate::openapi::schema_of(r).map(|s| KindSchema::BuiltIn(OpenApi(s)));
        let node = match self.equivalent(kind) {
            _ if scale => None,
            Some(equivalent) => built_in(equivalent),
            None => match crate::crd::apply_schema(self.custom.as_deref(), self.resource) {
                Some(schema) => Some(KindSchema::CustomRoot(schema)),
                None => built_in(self.resource),
            },
        };
        merge::apply_configuration(object, patch, &node)
    }

    fn apply_defaults(&self, kind: &GroupVersionKind, object: &mut Value) {
        if kind.group == "autoscaling" && kind.kind == "Scale" {
            return;
        }
        if let Some(equivalent) = self.equivalent(kind) {
            if let Value::Object(object) = object {
                crate::defaults::fields(equivalent, object);
            }
        } else if let Some(schema) = self
            .custom
            .as_deref()
            .and_then(|crd| crd.validator.version(self.resource.version)?.ok())
        {
            schema.apply_defaults(object);
        } else if let Value::Object(object) = object {
            crate::defaults::fields(self.resource, object);
        }
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
    if status.code == 500 {
        // apierrors.NewInternalError: the error as the one cause, no name or kind.
        let cause = status.cause.unwrap_or_else(|| status.message.clone());
        return ApiError {
            code: 500,
            reason: "InternalError",
            message: status.message,
            details: Some(Box::new(StatusDetails {
                causes: vec![StatusCause {
                    reason: "",
                    message: cause,
                    field: String::new(),
                }],
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
