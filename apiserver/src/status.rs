//! The `Status` object (meta/v1) that kube-apiserver answers with when a request fails, and
//! for some successful deletes.

use serde::Serialize;

/// A `Status` object as kube-apiserver renders it: `kind: Status`, `apiVersion: v1`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Status {
    /// Always `Status`.
    pub kind: &'static str,
    /// Always `v1`.
    #[serde(rename = "apiVersion")]
    pub api_version: &'static str,
    /// Always empty (list metadata).
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// `Success` or `Failure`.
    pub status: &'static str,
    /// A human-readable description, e.g. `configmaps "x" not found`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// A machine-readable reason, e.g. `NotFound`; empty for an unknown reason.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub reason: &'static str,
    /// What the status is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<StatusDetails>,
    /// The HTTP status code, repeated in the body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
}

/// The object a [`Status`] is about, and the causes of a failure.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StatusDetails {
    /// The object's name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The API group of the resource (empty for the core group).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// The resource (e.g. `configmaps`) or the kind (for `Invalid`), as upstream fills it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// The object's uid (for successful deletes).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// The individual causes, e.g. one per invalid field.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<StatusCause>,
    /// Seconds a client should wait before retrying (0: not given).
    #[serde(rename = "retryAfterSeconds", skip_serializing_if = "is_zero")]
    pub retry_after_seconds: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One cause of a failure, e.g. one invalid field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatusCause {
    /// The kind of cause, e.g. `FieldValueRequired`.
    #[serde(rename = "reason", skip_serializing_if = "str::is_empty")]
    pub reason: &'static str,
    /// What is wrong, e.g. `Required value: name or generateName is required`.
    pub message: String,
    /// The field path, e.g. `metadata.name`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub field: String,
}

impl Status {
    /// A `Failure` status.
    pub fn failure(
        code: u16,
        reason: &'static str,
        message: String,
        details: Option<StatusDetails>,
    ) -> Self {
        Status {
            kind: "Status",
            api_version: "v1",
            metadata: serde_json::Map::new(),
            status: "Failure",
            message,
            reason,
            details,
            code: Some(code),
        }
    }

    /// A `Success` status, as answered for a completed delete.
    pub fn success(details: StatusDetails) -> Self {
        Status {
            kind: "Status",
            api_version: "v1",
            metadata: serde_json::Map::new(),
            status: "Success",
            message: String::new(),
            reason: "",
            details: Some(details),
            code: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn failure_renders_like_kube_apiserver() {
        let status = Status::failure(
            404,
            "NotFound",
            "configmaps \"x\" not found".to_owned(),
            Some(StatusDetails {
                name: "x".to_owned(),
                kind: "configmaps".to_owned(),
                ..StatusDetails::default()
            }),
        );
        assert_eq!(
            serde_json::to_value(&status).unwrap(),
            json!({
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": "configmaps \"x\" not found",
                "reason": "NotFound",
                "details": {"name": "x", "kind": "configmaps"},
                "code": 404
            })
        );
    }

    #[test]
    fn success_has_no_code_or_reason() {
        let status = Status::success(StatusDetails {
            name: "x".to_owned(),
            kind: "configmaps".to_owned(),
            uid: "u".to_owned(),
            ..StatusDetails::default()
        });
        assert_eq!(
            serde_json::to_value(&status).unwrap(),
            json!({
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Success",
                "details": {"name": "x", "kind": "configmaps", "uid": "u"}
            })
        );
    }
}
