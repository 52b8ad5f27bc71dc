//! The reviews of `authorization.k8s.io/v1` and `authentication.k8s.io/v1`:
//! SelfSubjectAccessReview (what `kubectl auth can-i` asks), SubjectAccessReview,
//! LocalSubjectAccessReview, SelfSubjectRulesReview, SelfSubjectReview and TokenReview.
//!
//! The access reviews ask the server's authorizer, as kube-apiserver does
//! ([`crate::access_review`]); creating one is itself authorized like any request
//! (`create` on the resource).

use axum::Extension;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Map, Value, json};

use crate::access_request::User;
use crate::access_review::{self, ReviewKind};
use crate::error::ApiError;
use crate::negotiate::{self, BodyType};
use crate::state::AppState;

/// The review in a request body (JSON, YAML or protobuf), as a JSON object: `kind` of the
/// API package `package` (`authorization`, `authentication`).
fn decode_body(
    package: &str,
    kind: &str,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<Map<String, Value>, ApiError> {
    let unrecognized = |e: &dyn std::fmt::Display| {
        ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {kind}){e}"
        ))
    };
    let body_type = negotiate::body_type(headers)?;
    let review = match body_type {
        BodyType::Json | BodyType::Yaml => negotiate::parse_value(body, body_type)
            .map_err(|e| unrecognized(&format_args!(": {e}")))?,
        BodyType::Protobuf => Value::Object(crate::protobuf::decode_as(
            body,
            &format!("io.k8s.api.{package}.v1.{kind}"),
            kind,
        )?),
        _ => return Err(negotiate::unsupported_media_type("")),
    };
    match review {
        Value::Object(map) => Ok(map),
        _ => Err(unrecognized(&"")),
    }
}

/// An access review in a request body.
fn decode_review(
    kind: ReviewKind,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<Map<String, Value>, ApiError> {
    decode_body("authorization", kind.kind(), headers, body)
}

/// Validates `review`, asks the authorizer whether `user` may do what its spec says, and
/// answers 201 with the review and its status (the registries' `Create`).
fn answer_review(
    state: &AppState,
    kind: ReviewKind,
    mut review: Map<String, Value>,
    user: &User,
) -> Result<Response, ApiError> {
    let errors = access_review::validate(kind, &review);
    if !errors.is_empty() {
        return Err(access_review::invalid_review(kind, errors));
    }
    let spec = review.get("spec").cloned().unwrap_or(Value::Null);
    let decision = state
        .authz
        .decision(user, &access_review::attributes(&spec));
    access_review::answer(kind, &mut review, &decision);
    Ok(super::json_response(StatusCode::CREATED, &review))
}

/// `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews`: may the requester do what
/// the spec says?
pub async fn self_subject_access_review(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let review = decode_review(ReviewKind::SelfSubject, &headers, &body)?;
    answer_review(&state, ReviewKind::SelfSubject, review, &user)
}

/// `POST /apis/authorization.k8s.io/v1/subjectaccessreviews`: may the user the spec names
/// (user, groups, uid, extra) do what it says?
pub async fn subject_access_review(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let review = decode_review(ReviewKind::Subject, &headers, &body)?;
    let subject = access_review::subject(review.get("spec").unwrap_or(&Value::Null));
    answer_review(&state, ReviewKind::Subject, review, &subject)
}

/// `POST /apis/authorization.k8s.io/v1/namespaces/<namespace>/localsubjectaccessreviews`:
/// the same within the namespace (`metadata.namespace` defaults to the URL's and must match
/// it, as upstream's create handler requires).
pub async fn local_subject_access_review(
    State(state): State<AppState>,
    Path(namespace): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let mut review = decode_review(ReviewKind::LocalSubject, &headers, &body)?;
    let meta = review
        .entry("metadata")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| ApiError::bad_request("metadata must be an object"))?;
    match meta.get("namespace").and_then(Value::as_str) {
        Some(given) if !given.is_empty() && given != namespace => {
            return Err(ApiError::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            ));
        }
        _ => {
            meta.insert("namespace".to_owned(), json!(namespace));
        }
    }
    let subject = access_review::subject(review.get("spec").unwrap_or(&Value::Null));
    answer_review(&state, ReviewKind::LocalSubject, review, &subject)
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
    let review = decode_body("authorization", "SelfSubjectRulesReview", &headers, &body)?;
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

/// `POST /apis/authentication.k8s.io/v1/tokenreviews`: whom a bearer token authenticates,
/// as kube-apiserver's TokenReview registry answers (`pkg/registry/authentication/
/// tokenreview`): 400 `token is required for TokenReview in authentication` without a token;
/// otherwise 201 with the review and its status — `authenticated`, the user (name, uid,
/// groups, extra) and the audiences asked for (the server's tokens are not bound to
/// audiences, so upstream's audience-agnostic wrapper gives back those requested; this
/// server has no `--api-audiences` of its own) — or, for a token no user has, a status with
/// an empty `user` (the token authenticators answer "not mine" without an error).
pub async fn token_review(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let mut review = decode_body("authentication", "TokenReview", &headers, &body)?;
    let spec = review.get("spec");
    let token = spec
        .and_then(|s| s.get("token"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if token.is_empty() {
        return Err(ApiError::bad_request(
            "token is required for TokenReview in authentication",
        ));
    }
    let audiences = crate::object::string_list(spec.and_then(|s| s.get("audiences")));
    let status = match crate::auth::user_of(&state, token) {
        Some(user) => {
            let mut status = json!({"authenticated": true, "user": user.user_info()});
            if !audiences.is_empty() {
                status["audiences"] = json!(audiences);
            }
            status
        }
        None => json!({"user": {}}),
    };
    review.insert("apiVersion".to_owned(), json!("authentication.k8s.io/v1"));
    review.insert("kind".to_owned(), json!("TokenReview"));
    if let Some(meta) = review
        .entry("metadata")
        .or_insert_with(|| json!({}))
        .as_object_mut()
    {
        meta.insert("creationTimestamp".to_owned(), Value::Null);
    }
    review.insert("status".to_owned(), status);
    Ok(super::json_response(StatusCode::CREATED, &review))
}
