//! `SelfSubjectAccessReview` (authorization.k8s.io/v1), what `kubectl auth can-i` asks.
//!
//! Every authenticated request is the admin for now (the one token, in `system:masters`), and
//! `system:masters` may do everything, so every review is allowed. Authorization rules and
//! other users come with step (d) of issue 18.

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::negotiate::{self, BodyType};

/// `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews`.
pub async fn self_subject_access_review(
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let kind = negotiate::body_type(&headers)?;
    let mut review = match kind {
        BodyType::Json | BodyType::Yaml => negotiate::parse_value(&body, kind).map_err(|e| {
            ApiError::bad_request(format!(
                "the object provided is unrecognized (must be of type SelfSubjectAccessReview): {e}"
            ))
        })?,
        BodyType::Protobuf => Value::Object(crate::protobuf::decode_as(
            &body,
            "io.k8s.api.authorization.v1.SelfSubjectAccessReview",
            "SelfSubjectAccessReview",
        )?),
        _ => return Err(negotiate::unsupported_media_type("")),
    };
    let Value::Object(map) = &mut review else {
        return Err(ApiError::bad_request(
            "the object provided is unrecognized (must be of type SelfSubjectAccessReview)",
        ));
    };
    let spec = map.get("spec").cloned().unwrap_or(Value::Null);
    if spec.get("resourceAttributes").is_none() && spec.get("nonResourceAttributes").is_none() {
        return Err(ApiError::invalid_review());
    }
    map.insert("apiVersion".to_owned(), json!("authorization.k8s.io/v1"));
    map.insert("kind".to_owned(), json!("SelfSubjectAccessReview"));
    map.entry("metadata")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .map(|m| m.insert("creationTimestamp".to_owned(), Value::Null));
    map.insert("status".to_owned(), json!({"allowed": true}));
    Ok(super::json_response(StatusCode::CREATED, &review))
}
