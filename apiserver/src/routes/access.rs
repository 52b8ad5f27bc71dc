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
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::call::Call;

use crate::access_request::User;
use crate::access_review::{self, ReviewKind};
use crate::error::ApiError;
use crate::negotiate::{self, BodyType};
use crate::state::AppState;

/// A review's request: its body decoded as kube-apiserver's create handler decodes any kind
/// (JSON, YAML or protobuf; a value of the wrong type upstream's 400; unknown fields dropped
/// and reported as `fieldValidation` asks — `Warning` headers, or Strict's 400 `strict
/// decoding error: unknown field "spec.x"`), and the call whose warnings the answer carries.
struct Request {
    body: Map<String, Value>,
    call: Call,
}

impl Request {
    fn decode(
        state: &AppState,
        kind: &str,
        uri: &Uri,
        headers: HeaderMap,
        body: &Bytes,
    ) -> Result<Request, ApiError> {
        let resource = crate::resource::REVIEWS
            .iter()
            .find(|r| r.kind == kind)
            .expect("a served review");
        let call = Call::new(state.clone(), resource, uri, headers)?;
        let unrecognized = |e: &dyn std::fmt::Display| {
            ApiError::bad_request(format!(
                "the object provided is unrecognized (must be of type {kind}){e}"
            ))
        };
        let body_type = negotiate::body_type(&call.headers)?;
        let decoded = match body_type {
            BodyType::Json | BodyType::Yaml => negotiate::parse_value(body, body_type)
                .map_err(|e| unrecognized(&format_args!(": {e}")))?,
            BodyType::Protobuf => Value::Object(crate::protobuf::decode(body, resource)?),
            _ => return Err(negotiate::unsupported_media_type("")),
        };
        let Value::Object(mut review) = decoded else {
            return Err(unrecognized(&""));
        };
        call.check_types(&review)?;
        call.check_unknown_fields(&mut review, body)?;
        Ok(Request { body: review, call })
    }
}

/// 201 with `review`, and the warnings `call` gathered.
fn created(call: &Call, review: &impl serde::Serialize) -> Response {
    let mut response = super::json_response(StatusCode::CREATED, review);
    let warnings = call.warnings.lock().unwrap_or_else(|e| e.into_inner());
    crate::respond::add_warnings(&mut response, &warnings);
    response
}

/// Validates `review`, asks the authorizer whether `user` may do what its spec says, and
/// answers 201 with the review and its status (the registries' `Create`).
fn answer_review(kind: ReviewKind, request: Request, user: &User) -> Result<Response, ApiError> {
    let Request {
        body: mut review,
        call,
    } = request;
    let errors = access_review::validate(kind, &review);
    if !errors.is_empty() {
        return Err(access_review::invalid_review(kind, errors));
    }
    let spec = review.get("spec").cloned().unwrap_or(Value::Null);
    let decision = call
        .state
        .authz
        .decision(user, &access_review::attributes(&spec));
    access_review::answer(kind, &mut review, &decision);
    Ok(created(&call, &review))
}

/// `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews`: may the requester do what
/// the spec says?
pub async fn self_subject_access_review(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let kind = ReviewKind::SelfSubject;
    let request = Request::decode(&state, kind.kind(), &uri, headers, &body)?;
    answer_review(kind, request, &user)
}

/// `POST /apis/authorization.k8s.io/v1/subjectaccessreviews`: may the user the spec names
/// (user, groups, uid, extra) do what it says?
pub async fn subject_access_review(
    State(state): State<AppState>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let kind = ReviewKind::Subject;
    let request = Request::decode(&state, kind.kind(), &uri, headers, &body)?;
    let subject = access_review::subject(request.body.get("spec").unwrap_or(&Value::Null));
    answer_review(kind, request, &subject)
}

/// `POST /apis/authorization.k8s.io/v1/namespaces/<namespace>/localsubjectaccessreviews`:
/// the same within the namespace (`metadata.namespace` defaults to the URL's and must match
/// it, as upstream's create handler requires).
pub async fn local_subject_access_review(
    State(state): State<AppState>,
    Path(namespace): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let kind = ReviewKind::LocalSubject;
    let mut request = Request::decode(&state, kind.kind(), &uri, headers, &body)?;
    let meta = request
        .body
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
    let subject = access_review::subject(request.body.get("spec").unwrap_or(&Value::Null));
    answer_review(kind, request, &subject)
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
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let request = Request::decode(&state, "SelfSubjectRulesReview", &uri, headers, &body)?;
    let namespace = request
        .body
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
    Ok(created(&request.call, &review))
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
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let Request {
        body: mut review,
        call,
    } = Request::decode(&state, "TokenReview", &uri, headers, &body)?;
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
    Ok(created(&call, &review))
}
