//! The one error type of request handling, rendered to a `Status` in one place.
//!
//! Handlers return `Result<_, ApiError>`; [`ApiError`]'s `IntoResponse` writes the HTTP code
//! and the `Status` body. No handler writes a `Status` by hand. The constructors take
//! upstream's wording (kubernetes/apimachinery `pkg/api/errors`).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::resource::Resource;
use crate::status::{Status, StatusCause, StatusDetails};
use crate::storage::StorageError;
use kcel_stdlib::kubernetes::admission::PANIC_TEXT;

/// The optimistic-lock text upstream appends to a `Conflict` on a stale resourceVersion.
pub const OPTIMISTIC_LOCK_MESSAGE: &str =
    "the object has been modified; please apply your changes to the latest version and try again";

/// A failed request: everything its `Status` needs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{reason} ({code}): {message}")]
pub struct ApiError {
    /// The HTTP status code.
    pub code: u16,
    /// The `Status` reason, e.g. `NotFound` (empty for an unknown reason).
    pub reason: &'static str,
    /// The `Status` message.
    pub message: String,
    /// The `Status` details, if upstream gives any for this reason (boxed: errors travel
    /// in `Result`s and should stay small).
    pub details: Option<Box<StatusDetails>>,
}

fn resource_details(resource: &Resource, name: &str) -> Option<Box<StatusDetails>> {
    Some(Box::new(StatusDetails {
        name: name.to_owned(),
        group: resource.group.to_owned(),
        kind: resource.plural.to_owned(),
        ..StatusDetails::default()
    }))
}

impl From<crate::patch_decode::PatchDecodeError> for ApiError {
    /// The patch handler's answers for a body that does not decode: 400 with the decoder's
    /// text, 413 for too many operations, 422 for a merge patch that is no object.
    fn from(error: crate::patch_decode::PatchDecodeError) -> Self {
        use crate::patch_decode::PatchDecodeError as E;
        match &error {
            E::TooManyOperations(_) => ApiError::too_large(&error.to_string()),
            E::NotAnObject { patched, detail } => ApiError::invalid_patch_fields(patched, detail),
            E::Typed(_) | E::Plain(_) | E::BadMergePatch => ApiError::bad_request(error),
        }
    }
}

impl ApiError {
    /// 404 NotFound: `configmaps "x" not found`.
    pub fn not_found(resource: &Resource, name: &str) -> Self {
        ApiError {
            code: 404,
            reason: "NotFound",
            message: format!("{} \"{name}\" not found", resource.group_resource()),
            details: resource_details(resource, name),
        }
    }

    /// 404 NotFound for a path that names no served resource.
    pub fn no_such_path() -> Self {
        ApiError {
            code: 404,
            reason: "NotFound",
            message: "the server could not find the requested resource".to_owned(),
            details: Some(Box::default()),
        }
    }

    /// 409 AlreadyExists: `configmaps "x" already exists`.
    pub fn already_exists(resource: &Resource, name: &str) -> Self {
        ApiError {
            code: 409,
            reason: "AlreadyExists",
            message: format!("{} \"{name}\" already exists", resource.group_resource()),
            details: resource_details(resource, name),
        }
    }

    /// 409 Conflict on a stale resourceVersion:
    /// `Operation cannot be fulfilled on configmaps "x": the object has been modified; ...`.
    pub fn conflict(resource: &Resource, name: &str) -> Self {
        ApiError {
            code: 409,
            reason: "Conflict",
            message: format!(
                "Operation cannot be fulfilled on {} \"{name}\": {OPTIMISTIC_LOCK_MESSAGE}",
                resource.group_resource()
            ),
            details: resource_details(resource, name),
        }
    }

    /// 400 BadRequest with a message.
    pub fn bad_request(message: impl std::fmt::Display) -> Self {
        ApiError {
            code: 400,
            reason: "BadRequest",
            message: message.to_string(),
            details: None,
        }
    }

    /// 415 UnsupportedMediaType.
    pub fn unsupported_media_type(message: String) -> Self {
        ApiError {
            code: 415,
            reason: "UnsupportedMediaType",
            message,
            details: None,
        }
    }

    /// 406 NotAcceptable.
    pub fn not_acceptable(message: String) -> Self {
        ApiError {
            code: 406,
            reason: "NotAcceptable",
            message,
            details: None,
        }
    }

    /// 403 Forbidden: `<resource> "<name>" is forbidden: <reason>`.
    pub fn forbidden(resource: &Resource, name: &str, reason: &str) -> Self {
        let subject = if name.is_empty() {
            resource.group_resource()
        } else {
            format!("{} \"{name}\"", resource.group_resource())
        };
        ApiError {
            code: 403,
            reason: "Forbidden",
            message: format!("{subject} is forbidden: {reason}"),
            details: resource_details(resource, name),
        }
    }

    /// 409 Conflict with a reason of upstream's (e.g. a failed precondition):
    /// `Operation cannot be fulfilled on configmaps "x": <reason>`.
    pub fn conflict_because(resource: &Resource, name: &str, reason: &str) -> Self {
        ApiError {
            code: 409,
            reason: "Conflict",
            message: format!(
                "Operation cannot be fulfilled on {} \"{name}\": {reason}",
                resource.group_resource()
            ),
            details: resource_details(resource, name),
        }
    }

    /// 422 for a JSON patch that does not apply (a failed `test`, a missing path): upstream
    /// answers its generic text for the code, without the patch library's reason.
    pub fn patch_not_applied() -> Self {
        ApiError {
            code: 422,
            reason: "Invalid",
            message: "the server rejected our request due to an error in our request".to_owned(),
            details: Some(Box::default()),
        }
    }

    /// 500 for a request whose handling panicked upstream (evanphx/json-patch
    /// dereferencing a nil pointer, in a patch request's JSON patch or a mutating
    /// policy's): answered as kube-apiserver's panic recovery answers, in plain text
    /// (`panic_response`).
    pub fn panicked() -> Self {
        ApiError {
            code: 500,
            reason: "InternalError",
            message: PANIC_TEXT.to_owned(),
            details: None,
        }
    }

    /// Whether this is [`ApiError::panicked`].
    fn is_panic(&self) -> bool {
        self.code == 500 && self.details.is_none() && self.message == PANIC_TEXT
    }

    /// 422 for list or watch options that contradict each other:
    /// `ListOptions.meta.k8s.io "" is invalid: <field>: Forbidden: <detail>`.
    pub fn invalid_list_options(causes: Vec<FieldError>) -> Self {
        Self::invalid_of(
            "ListOptions.meta.k8s.io",
            "meta.k8s.io",
            "ListOptions",
            "",
            causes,
        )
    }

    /// 422 for a patched object with unknown fields under `fieldValidation=Strict`:
    /// ` "" is invalid: patch: Invalid value: "<patched object>": <detail>` (upstream names
    /// no kind here).
    pub fn invalid_patch_fields(patched: &str, detail: &str) -> Self {
        let cause = FieldError::invalid_string("patch", patched, detail);
        ApiError {
            code: 422,
            reason: "Invalid",
            message: format!(" \"\" is invalid: {cause}"),
            details: Some(Box::new(StatusDetails {
                causes: vec![StatusCause {
                    reason: cause.kind.reason(),
                    message: cause.body(),
                    field: cause.field,
                }],
                ..StatusDetails::default()
            })),
        }
    }

    /// 409 Conflict for a server-side apply that would change fields other managers own.
    pub fn apply_conflict(conflicts: &[crate::apply::ConflictText]) -> Self {
        ApiError {
            code: 409,
            reason: "Conflict",
            message: crate::apply::conflict_message(conflicts),
            details: Some(Box::new(StatusDetails {
                causes: conflicts
                    .iter()
                    .map(|c| StatusCause {
                        reason: "FieldManagerConflict",
                        message: format!("conflict with {}", c.manager),
                        field: c.field.clone(),
                    })
                    .collect(),
                ..StatusDetails::default()
            })),
        }
    }

    /// The error of a failed server-side apply.
    pub fn from_apply(error: crate::apply::ApplyError) -> Self {
        match error {
            crate::apply::ApplyError::Conflicts(c) => ApiError::apply_conflict(&c),
            crate::apply::ApplyError::BadRequest(m) => ApiError::bad_request(m),
            crate::apply::ApplyError::Unknown(m) => ApiError {
                code: 500,
                reason: "",
                message: m,
                details: None,
            },
        }
    }

    /// 401 Unauthorized, as the authentication filter answers.
    pub fn unauthorized() -> Self {
        ApiError {
            code: 401,
            reason: "Unauthorized",
            message: "Unauthorized".to_owned(),
            details: None,
        }
    }

    /// 405 MethodNotAllowed: `<verb> is not supported on resources of kind "configmaps"`.
    pub fn method_not_supported(resource: &Resource, verb: &str) -> Self {
        ApiError {
            code: 405,
            reason: "MethodNotAllowed",
            message: format!(
                "{verb} is not supported on resources of kind \"{}\"",
                resource.group_resource()
            ),
            details: Some(Box::new(StatusDetails {
                group: resource.group.to_owned(),
                kind: resource.plural.to_owned(),
                ..StatusDetails::default()
            })),
        }
    }

    /// 410 Expired: a resourceVersion or continue token older than the compaction point.
    pub fn expired(message: impl Into<String>) -> Self {
        ApiError {
            code: 410,
            reason: "Expired",
            message: message.into(),
            details: None,
        }
    }

    /// 504 Timeout for a resourceVersion the store has not reached:
    /// `Timeout: Too large resource version: <rv>, current: <current>`. Upstream waits a few
    /// seconds for the revision first; this server answers at once.
    pub fn too_large_resource_version(requested: i64, current: i64) -> Self {
        ApiError {
            code: 504,
            reason: "Timeout",
            message: format!(
                "Timeout: Too large resource version: {requested}, current: {current}"
            ),
            details: Some(Box::new(StatusDetails {
                causes: vec![StatusCause {
                    reason: "ResourceVersionTooLarge",
                    message: "Too large resource version".to_owned(),
                    field: String::new(),
                }],
                retry_after_seconds: 1,
                ..StatusDetails::default()
            })),
        }
    }

    /// 413 RequestEntityTooLarge: `Request entity too large: <message>`.
    pub fn too_large(message: &str) -> Self {
        ApiError {
            code: 413,
            reason: "RequestEntityTooLarge",
            message: format!("Request entity too large: {message}"),
            details: None,
        }
    }

    /// 422 Invalid: `ConfigMap "x" is invalid: <cause>` (or `[<cause>, <cause>]`).
    pub fn invalid(resource: &Resource, name: &str, causes: Vec<FieldError>) -> Self {
        Self::invalid_of(
            &resource.group_kind(),
            resource.group,
            resource.kind,
            name,
            causes,
        )
    }

    /// 422 Invalid for an object of a group and kind given as text (e.g. `ListOptions` of
    /// `meta.k8s.io`): `<Kind>.<group> "<name>" is invalid: <causes>`.
    pub fn invalid_of(
        group_kind: &str,
        group: &str,
        kind: &str,
        name: &str,
        causes: Vec<FieldError>,
    ) -> Self {
        let texts: Vec<String> = causes.iter().map(FieldError::to_string).collect();
        let mut unique: Vec<&String> = Vec::new();
        for t in &texts {
            if !unique.contains(&t) {
                unique.push(t);
            }
        }
        let joined = match unique.as_slice() {
            [] => String::new(),
            [one] => format!(": {one}"),
            many => format!(
                ": [{}]",
                many.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        ApiError {
            code: 422,
            reason: "Invalid",
            message: format!("{group_kind} \"{name}\" is invalid{joined}"),
            details: Some(Box::new(StatusDetails {
                name: name.to_owned(),
                group: group.to_owned(),
                kind: kind.to_owned(),
                causes: causes
                    .into_iter()
                    .map(|c| StatusCause {
                        reason: c.kind.reason(),
                        message: c.body(),
                        field: c.field,
                    })
                    .collect(),
                ..StatusDetails::default()
            })),
        }
    }

    /// 500 InternalError: `Internal error occurred: <error>`.
    pub fn internal(error: impl std::fmt::Display) -> Self {
        let text = error.to_string();
        ApiError {
            code: 500,
            reason: "InternalError",
            message: format!("Internal error occurred: {text}"),
            details: Some(Box::new(StatusDetails {
                causes: vec![StatusCause {
                    reason: "",
                    message: text,
                    field: String::new(),
                }],
                ..StatusDetails::default()
            })),
        }
    }

    /// 500 with no reason and the error's text: an error that is not a Status, as
    /// kube-apiserver answers one (`ErrorToAPIStatus`'s fallback).
    pub fn unknown(message: String) -> Self {
        ApiError {
            code: 500,
            reason: "",
            message,
            details: None,
        }
    }

    /// The API error for a storage failure on one object of `resource`.
    pub fn from_storage(error: StorageError, resource: &Resource, name: &str) -> Self {
        match error {
            StorageError::AlreadyExists { .. } => Self::already_exists(resource, name),
            StorageError::NotFound { .. } => Self::not_found(resource, name),
            StorageError::Conflict { .. } => Self::conflict(resource, name),
            StorageError::Compacted {
                requested,
                compacted,
            } => Self::expired(format!(
                "too old resource version: {requested} ({compacted})"
            )),
            StorageError::FutureRevision { requested, current } => {
                Self::too_large_resource_version(requested, current)
            }
            other => Self::internal(other),
        }
    }

    /// The `Status` body of this error.
    pub fn to_status(&self) -> Status {
        Status::failure(
            self.code,
            self.reason,
            self.message.clone(),
            self.details.as_deref().cloned(),
        )
    }
}

/// The answer to a request whose handler panicked. Upstream the panic leaves the request's
/// goroutine (`endpoints/handlers/rest.go`, `finishRequest`, re-panics a panic of the
/// goroutine it runs the request's work in; `server/filters/timeout.go`, `timeoutHandler`,
/// likewise, before anything was written) and reaches `WithPanicRecovery`, which answers
/// with `http.Error`: 500, `Content-Type: text/plain; charset=utf-8`,
/// `X-Content-Type-Options: nosniff`, the text and a newline. The audit log records a 500
/// InternalError (`error`: the same text).
fn panic_response(error: &ApiError) -> Response {
    use axum::http::header::{CONTENT_TYPE, HeaderValue, X_CONTENT_TYPE_OPTIONS};
    let mut response =
        (StatusCode::INTERNAL_SERVER_ERROR, format!("{PANIC_TEXT}\n")).into_response();
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response.extensions_mut().insert(error.to_status());
    response
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.is_panic() {
            return panic_response(&self);
        }
        let code = StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let status = self.to_status();
        let mut response = crate::respond::json_response(code, &status);
        // For the audit log's `responseStatus`.
        response.extensions_mut().insert(status);
        response
    }
}

/// The kind of a field error, as upstream's `field.ErrorType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldErrorKind {
    /// `Required value`.
    Required,
    /// `Invalid value: <value>`.
    Invalid,
    /// `Forbidden`.
    Forbidden,
    /// `Unsupported value: <value>: supported values: ...` (the detail lists them).
    NotSupported,
    /// `Too long: <detail>`.
    TooLong,
}

impl FieldErrorKind {
    fn reason(self) -> &'static str {
        match self {
            FieldErrorKind::Required => "FieldValueRequired",
            FieldErrorKind::Invalid => "FieldValueInvalid",
            FieldErrorKind::Forbidden => "FieldValueForbidden",
            FieldErrorKind::NotSupported => "FieldValueNotSupported",
            FieldErrorKind::TooLong => "FieldValueTooLong",
        }
    }
}

/// One invalid field, rendered as upstream's `field.Error`: `<field>: <body>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// What is wrong.
    pub kind: FieldErrorKind,
    /// The field path, e.g. `metadata.name`.
    pub field: String,
    /// The offending value, JSON-rendered (strings quoted), for `Invalid`.
    pub value: Option<String>,
    /// The explanation.
    pub detail: String,
}

impl FieldError {
    /// A `Forbidden` error.
    pub fn forbidden(field: &str, detail: &str) -> Self {
        FieldError {
            kind: FieldErrorKind::Forbidden,
            field: field.to_owned(),
            value: None,
            detail: detail.to_owned(),
        }
    }

    /// An `Unsupported value` error for a string value, with the supported ones.
    pub fn not_supported(field: &str, value: &str, supported: &[&str]) -> Self {
        let list: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
        FieldError {
            kind: FieldErrorKind::NotSupported,
            field: field.to_owned(),
            value: Some(serde_json::Value::from(value).to_string()),
            detail: format!("supported values: {}", list.join(", ")),
        }
    }

    /// A `Required value` error.
    pub fn required(field: &str, detail: &str) -> Self {
        FieldError {
            kind: FieldErrorKind::Required,
            field: field.to_owned(),
            value: None,
            detail: detail.to_owned(),
        }
    }

    /// An `Invalid value` error for a string value.
    pub fn invalid_string(field: &str, value: &str, detail: &str) -> Self {
        FieldError {
            kind: FieldErrorKind::Invalid,
            field: field.to_owned(),
            value: Some(serde_json::Value::from(value).to_string()),
            detail: detail.to_owned(),
        }
    }

    /// An `Invalid value` error whose value is already rendered (e.g. a list as JSON).
    pub fn invalid_rendered(field: &str, value: String, detail: &str) -> Self {
        FieldError {
            kind: FieldErrorKind::Invalid,
            field: field.to_owned(),
            value: Some(value),
            detail: detail.to_owned(),
        }
    }

    /// A `Too long` error: `may not be more than <max> bytes`, as upstream's `field.TooLong`.
    pub fn too_long(field: &str, max: usize) -> Self {
        FieldError {
            kind: FieldErrorKind::TooLong,
            field: field.to_owned(),
            value: None,
            detail: format!("may not be more than {max} bytes"),
        }
    }

    /// An `Invalid value` error for a number.
    pub fn invalid_number(field: &str, value: i64, detail: &str) -> Self {
        FieldError {
            kind: FieldErrorKind::Invalid,
            field: field.to_owned(),
            value: Some(value.to_string()),
            detail: detail.to_owned(),
        }
    }

    /// The text after the field path: `Required value: <detail>`,
    /// `Invalid value: <value>: <detail>`.
    pub fn body(&self) -> String {
        match self.kind {
            FieldErrorKind::Required => format!("Required value: {}", self.detail),
            FieldErrorKind::Invalid => match &self.value {
                Some(v) => format!("Invalid value: {v}: {}", self.detail),
                None => format!("Invalid value: {}", self.detail),
            },
            FieldErrorKind::Forbidden => format!("Forbidden: {}", self.detail),
            FieldErrorKind::NotSupported => format!(
                "Unsupported value: {}: {}",
                self.value.as_deref().unwrap_or("null"),
                self.detail
            ),
            FieldErrorKind::TooLong => format!("Too long: {}", self.detail),
        }
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::CONFIGMAPS;

    #[test]
    fn messages_are_upstreams() {
        assert_eq!(
            ApiError::not_found(&CONFIGMAPS, "x").message,
            "configmaps \"x\" not found"
        );
        assert_eq!(
            ApiError::already_exists(&CONFIGMAPS, "x").message,
            "configmaps \"x\" already exists"
        );
        assert_eq!(
            ApiError::conflict(&CONFIGMAPS, "x").message,
            "Operation cannot be fulfilled on configmaps \"x\": the object has been modified; \
             please apply your changes to the latest version and try again"
        );
    }

    #[test]
    fn invalid_lists_causes_once_each() {
        let one = ApiError::invalid(
            &CONFIGMAPS,
            "",
            vec![FieldError::required(
                "metadata.name",
                "name or generateName is required",
            )],
        );
        assert_eq!(one.code, 422);
        assert_eq!(
            one.message,
            "ConfigMap \"\" is invalid: metadata.name: Required value: name or generateName is required"
        );
        let causes = &one.details.as_ref().unwrap().causes;
        assert_eq!(causes[0].reason, "FieldValueRequired");
        assert_eq!(
            causes[0].message,
            "Required value: name or generateName is required"
        );
        let bad = FieldError::invalid_string("metadata.name", "A", "bad");
        let two = ApiError::invalid(
            &CONFIGMAPS,
            "A",
            vec![bad.clone(), bad.clone(), FieldError::required("x", "y")],
        );
        assert_eq!(
            two.message,
            "ConfigMap \"A\" is invalid: [metadata.name: Invalid value: \"A\": bad, x: Required value: y]"
        );
        assert_eq!(two.details.unwrap().causes.len(), 3);
    }

    #[test]
    fn storage_errors_map_to_statuses() {
        let conflict = StorageError::Conflict {
            key: "k".to_owned(),
            expected: 1,
            actual: 2,
            current: None,
        };
        assert_eq!(
            ApiError::from_storage(conflict, &CONFIGMAPS, "x").reason,
            "Conflict"
        );
        let compacted = StorageError::Compacted {
            requested: 3,
            compacted: 9,
        };
        let e = ApiError::from_storage(compacted, &CONFIGMAPS, "x");
        assert_eq!((e.code, e.reason), (410, "Expired"));
        assert_eq!(e.message, "too old resource version: 3 (9)");
        let future = StorageError::FutureRevision {
            requested: 12,
            current: 10,
        };
        let e = ApiError::from_storage(future, &CONFIGMAPS, "x");
        assert_eq!((e.code, e.reason), (504, "Timeout"));
        assert_eq!(
            e.message,
            "Timeout: Too large resource version: 12, current: 10"
        );
        let status = serde_json::to_value(e.to_status()).unwrap();
        assert_eq!(status["details"]["retryAfterSeconds"], 1);
        assert_eq!(
            status["details"]["causes"][0]["reason"],
            "ResourceVersionTooLarge"
        );
    }
}
