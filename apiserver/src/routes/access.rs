//! `SelfSubjectAccessReview` (authorization.k8s.io/v1), what `kubectl auth can-i` asks.
//!
//! The review asks the server's authorizer about the requesting user, as kube-apiserver does.

use axum::Extension;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use kcel_stdlib::kubernetes::authz::DecisionKind;
use serde_json::{Value, json};

use crate::access_request::{Attributes, User};
use crate::error::ApiError;
use crate::negotiate::{self, BodyType};
use crate::state::AppState;

/// `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews`.
pub async fn self_subject_access_review(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
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
    let attrs = match (
        spec.get("resourceAttributes"),
        spec.get("nonResourceAttributes"),
    ) {
        (Some(r), _) => {
            let text = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            Attributes {
                verb: text("verb"),
                resource_request: true,
                group: text("group"),
                version: text("version"),
                resource: text("resource"),
                subresource: text("subresource"),
                namespace: text("namespace"),
                name: text("name"),
                ..Attributes::default()
            }
        }
        (None, Some(n)) => {
            let text = |k: &str| n.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            Attributes {
                verb: text("verb"),
                path: text("path"),
                ..Attributes::default()
            }
        }
        (None, None) => unreachable!("checked above"),
    };
    let decision = state.authz.decision(&user, &attrs);
    let mut status = json!({"allowed": decision.kind == DecisionKind::Allow});
    if decision.kind == DecisionKind::Deny {
        status["denied"] = json!(true);
    }
    if !decision.reason.is_empty() {
        status["reason"] = json!(decision.reason);
    }
    map.insert("status".to_owned(), status);
    Ok(super::json_response(StatusCode::CREATED, &review))
}

/// `POST /apis/authentication.k8s.io/v1/selfsubjectreviews`: who the requester is, what
/// `kubectl auth whoami` prints (the impersonated user, when the request impersonates). The
/// body (an empty review) is not read.
pub async fn self_subject_review(Extension(user): Extension<User>) -> Response {
    let user_info = user.user_info();
    let review = json!({
        "kind": "SelfSubjectReview",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"creationTimestamp": null},
        "status": {"userInfo": user_info},
    });
    super::json_response(StatusCode::CREATED, &review)
}

/// `POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews`: what the requester may do in
/// a namespace, what `kubectl auth can-i --list` prints.
pub async fn self_subject_rules_review(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let kind = negotiate::body_type(&headers)?;
    let review = match kind {
        BodyType::Json | BodyType::Yaml => negotiate::parse_value(&body, kind).map_err(|e| {
            ApiError::bad_request(format!(
                "the object provided is unrecognized (must be of type SelfSubjectRulesReview): {e}"
            ))
        })?,
        BodyType::Protobuf => Value::Object(crate::protobuf::decode_as(
            &body,
            "io.k8s.api.authorization.v1.SelfSubjectRulesReview",
            "SelfSubjectRulesReview",
        )?),
        _ => return Err(negotiate::unsupported_media_type("")),
    };
    let namespace = review
        .get("spec")
        .and_then(|s| s.get("namespace"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let rules = state.authz.rules_for(&user, namespace);
    let mut review = json!({
        "kind": "SelfSubjectRulesReview",
        "apiVersion": "authorization.k8s.io/v1",
        "metadata": {"creationTimestamp": null},
        "spec": {"namespace": namespace},
        "status": {
            "resourceRules": rules.resource_rules,
            "nonResourceRules": rules.non_resource_rules,
            "incomplete": false,
        },
    });
    if !rules.evaluation_error.is_empty() {
        review["status"]["evaluationError"] = json!(rules.evaluation_error);
    }
    Ok(super::json_response(StatusCode::CREATED, &review))
}
