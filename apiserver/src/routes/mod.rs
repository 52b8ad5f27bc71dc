//! The HTTP routes: one router for every path the server answers.

mod discovery;
mod health;
mod objects;

use std::time::Instant;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header::CONTENT_TYPE};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;

use crate::error::ApiError;
use crate::resource;
use crate::server::AppState;

/// The router of the server, with authentication and request logging around every route.
pub fn router(state: AppState) -> Router {
    let objects_collection = get(objects::list)
        .post(objects::create)
        .fallback(method_not_supported);
    let objects_item = get(objects::get)
        .put(objects::update)
        .delete(objects::delete)
        .fallback(method_not_supported);
    Router::new()
        .route("/livez", get(health::ok))
        .route("/readyz", get(health::ready))
        .route("/healthz", get(health::ok))
        .route("/version", get(health::version))
        .route("/api", get(discovery::api_versions))
        .route("/api/v1", get(discovery::core_v1))
        .route("/apis", get(discovery::api_groups))
        .route(
            "/api/v1/{plural}",
            get(objects::list_all_namespaces).fallback(method_not_supported),
        )
        .route(
            "/api/v1/namespaces/{namespace}/{plural}",
            objects_collection,
        )
        .route(
            "/api/v1/namespaces/{namespace}/{plural}/{name}",
            objects_item,
        )
        .fallback(not_found)
        .layer(from_fn_with_state(state.clone(), crate::auth::authenticate))
        .layer(from_fn_with_state(state.clone(), log_request))
        .with_state(state)
}

/// A JSON response with kube-apiserver's content type.
pub(crate) fn json_response(code: StatusCode, body: &impl Serialize) -> Response {
    let bytes = serde_json::to_vec(body).expect("response bodies always serialize");
    let mut response = (code, bytes).into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

async fn not_found() -> ApiError {
    ApiError::no_such_path()
}

/// The answer to a method a served path does not support.
async fn method_not_supported(method: Method, request: Request) -> ApiError {
    // `/api/v1/<plural>` or `/api/v1/namespaces/<ns>/<plural>[/<name>]`.
    let segments: Vec<&str> = request.uri().path().split('/').collect();
    let plural = match segments.as_slice() {
        ["", "api", "v1", "namespaces", _, plural, ..] => plural,
        ["", "api", "v1", plural] => plural,
        _ => return ApiError::no_such_path(),
    };
    let Some(resource) = resource::core(plural) else {
        return ApiError::no_such_path();
    };
    let verb = match method {
        Method::PATCH => "patch",
        Method::PUT => "update",
        Method::POST => "create",
        Method::DELETE if segments.len() == 6 => "deletecollection",
        Method::DELETE => "delete",
        _ => method.as_str(),
    };
    ApiError::method_not_supported(resource, &verb.to_lowercase())
}

/// Middleware: one log line per request (method, path, status, latency) at `--v` 1 and up.
async fn log_request(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if state.verbosity == 0 {
        return next.run(request).await;
    }
    let method = request.method().clone();
    let uri = request.uri().clone();
    let start = Instant::now();
    let response = next.run(request).await;
    eprintln!(
        "{method} {uri} {} {:.3}ms",
        response.status().as_u16(),
        start.elapsed().as_secs_f64() * 1000.0
    );
    response
}
