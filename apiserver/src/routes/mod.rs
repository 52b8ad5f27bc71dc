//! The HTTP routes: one router for every path the server answers.

mod access;
pub(crate) mod call;
mod discovery;
pub(crate) mod garbage_collector;
mod health;
pub(crate) mod namespaces;
pub(crate) mod objects;
mod openapi;
mod scale;
mod watch;
pub(crate) mod write;

use std::time::Instant;

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, header::CONTENT_TYPE};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};

use crate::error::ApiError;
use crate::state::AppState;

pub(crate) use crate::respond::{add_warnings, json_response};
pub use garbage_collector::start as start_garbage_collector;
pub use namespaces::{ensure_system_namespaces, start_finalizing, terminating};

/// The router of the server, with authentication and request logging around every route.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/livez", get(health::ok))
        .route("/readyz", get(health::ready))
        .route("/healthz", get(health::ok))
        .route("/version", get(health::version))
        .route("/metrics", get(metrics))
        .route("/api", get(discovery::api_versions))
        .route("/api/v1", get(discovery::core_v1))
        .route("/apis", get(discovery::api_groups))
        .route("/apis/{group}", get(discovery::api_group_handler))
        .route("/apis/{group}/{version}", get(discovery::group_version))
        .route("/openapi/v3", get(openapi::index))
        .route("/openapi/v3/{*key}", get(openapi::document))
        .route(
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            axum::routing::post(access::self_subject_access_review),
        )
        .route(
            "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
            axum::routing::post(access::self_subject_rules_review),
        )
        .route(
            "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            axum::routing::post(access::self_subject_review),
        )
        .route("/api/v1/{*rest}", any(core_api))
        .route("/apis/{group}/{version}/{*rest}", any(group_api))
        .fallback(not_found)
        .layer(axum::middleware::from_fn(gzip))
        .layer(from_fn_with_state(state.clone(), crate::auth::authenticate))
        .layer(from_fn_with_state(state.clone(), log_request))
        .with_state(state)
}

async fn core_api(
    State(state): State<AppState>,
    Path(rest): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    objects::dispatch(state, "", "v1", &rest, request).await
}

async fn group_api(
    State(state): State<AppState>,
    Path((group, version, rest)): Path<(String, String, String)>,
    request: Request,
) -> Result<Response, ApiError> {
    objects::dispatch(state, &group, &version, &rest, request).await
}

async fn not_found() -> ApiError {
    ApiError::no_such_path()
}

/// Responses larger than this are compressed for clients that accept gzip (kube-apiserver's
/// `defaultGzipThresholdBytes`).
const GZIP_THRESHOLD: u64 = 128 * 1024;

/// Middleware: gzip for complete (not streamed) responses over [`GZIP_THRESHOLD`] when the
/// request's `Accept-Encoding` allows it, as kube-apiserver does.
async fn gzip(request: Request, next: Next) -> Response {
    use axum::http::header::{ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_LENGTH, VARY};
    use http_body_util::BodyExt;
    use std::io::Write;
    let accepts = request
        .headers()
        .get(ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|e| e.split(';').next().unwrap_or("").trim() == "gzip")
        });
    let response = next.run(request).await;
    let size = http_body::Body::size_hint(response.body()).exact();
    if !accepts
        || size.is_none_or(|n| n <= GZIP_THRESHOLD)
        || response.headers().contains_key(CONTENT_ENCODING)
    {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(collected) = body.collect().await else {
        return ApiError::internal("reading a response body").into_response();
    };
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let compressed = encoder
        .write_all(&collected.to_bytes())
        .and_then(|()| encoder.finish());
    let Ok(compressed) = compressed else {
        return ApiError::internal("compressing a response body").into_response();
    };
    parts.headers.remove(CONTENT_LENGTH);
    parts
        .headers
        .insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    parts
        .headers
        .append(VARY, HeaderValue::from_static("Accept-Encoding"));
    Response::from_parts(parts, axum::body::Body::from(compressed))
}

/// `GET /metrics`: the Prometheus text format.
async fn metrics(State(state): State<AppState>) -> Result<Response, ApiError> {
    let store = state.store.clone();
    let metrics = state.metrics.clone();
    let crds = state.crds.clone();
    let text = tokio::task::spawn_blocking(move || metrics.render(&crds, &*store))
        .await
        .map_err(ApiError::internal)?;
    let mut response = text.into_response();
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    Ok(response)
}

/// Middleware: request metrics, and one log line per request (method, path, status, latency)
/// at `--v` 1 and up.
async fn log_request(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let uri = request.uri().clone();
    let start = Instant::now();
    let response = next.run(request).await;
    let seconds = start.elapsed().as_secs_f64();
    let info = crate::metrics::request_info(
        &state.crds,
        method.as_str(),
        uri.path(),
        uri.query().unwrap_or(""),
    );
    state
        .metrics
        .observe(&state.crds, &info, response.status().as_u16(), seconds);
    if state.verbosity > 0 {
        eprintln!(
            "{method} {uri} {} {:.3}ms",
            response.status().as_u16(),
            seconds * 1000.0
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use axum::body::Body;
    use axum::http::Request;
    use http_body_util::BodyExt;
    use serde_json::{Value, json};
    use tower::ServiceExt;

    use super::*;
    use crate::storage::Storage;
    use crate::storage::memory::MemoryStorage;

    const TOKEN: &str = "test-token";

    fn app() -> Router {
        let store = Arc::new(MemoryStorage::new());
        ensure_system_namespaces(&*store).unwrap();
        router(AppState {
            store,
            token: TOKEN.into(),
            address: "127.0.0.1:6443".into(),
            verbosity: 0,
            metrics: Arc::default(),
            users: Arc::default(),
            authz: Arc::default(),
            features: Default::default(),
            admission: Default::default(),
            crds: Default::default(),
        })
    }

    async fn call(app: &Router, method: &str, uri: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = Request::builder()
            .method(method)
            .uri(uri)
            .header("authorization", format!("Bearer {TOKEN}"));
        if body.is_some() {
            request = request.header("content-type", "application/json");
        }
        let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
        let response = app
            .clone()
            .oneshot(request.body(body).unwrap())
            .await
            .unwrap();
        let code = response.status().as_u16();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        (code, value)
    }

    #[tokio::test]
    async fn a_watch_from_a_compacted_revision_gets_one_error_event() {
        let store = Arc::new(MemoryStorage::new());
        ensure_system_namespaces(&*store).unwrap();
        let app = router(AppState {
            store: store.clone(),
            token: TOKEN.into(),
            address: "127.0.0.1:6443".into(),
            verbosity: 0,
            metrics: Arc::default(),
            users: Arc::default(),
            authz: Arc::default(),
            features: Default::default(),
            admission: Default::default(),
            crds: Default::default(),
        });
        let path = "/api/v1/namespaces/default/configmaps";
        for name in ["a", "b"] {
            let (code, _) = call(
                &app,
                "POST",
                path,
                Some(json!({"metadata": {"name": name}})),
            )
            .await;
            assert_eq!(code, 201);
        }
        let current = store.current_revision().unwrap();
        store.compact(current).unwrap();
        let request = Request::builder()
            .uri(format!("{path}?watch=true&resourceVersion=1"))
            .header("authorization", format!("Bearer {TOKEN}"))
            .body(Body::empty())
            .unwrap();
        let response = app.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let event: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(event["type"], "ERROR");
        assert_eq!(event["object"]["code"], 410);
        assert_eq!(event["object"]["reason"], "Expired");
        assert_eq!(
            event["object"]["message"],
            format!("too old resource version: 1 ({current})")
        );
    }

    #[tokio::test]
    async fn unsupported_methods_name_the_verb() {
        let app = app();
        let cases = [
            ("PATCH", "/api/v1/namespaces/default/configmaps", "patch"),
            ("DELETE", "/api/v1/configmaps", "deletecollection"),
            ("PUT", "/api/v1/namespaces/default/configmaps", "update"),
            ("POST", "/api/v1/configmaps", "create"),
        ];
        let (code, status) = call(&app, "PUT", "/api/v1/namespaces", Some(json!({}))).await;
        assert_eq!(code, 405);
        assert_eq!(
            status["message"],
            "update is not supported on resources of kind \"namespaces\""
        );
        for (method, uri, verb) in cases {
            let (code, status) = call(&app, method, uri, Some(json!({}))).await;
            assert_eq!(code, 405, "{method} {uri}");
            assert_eq!(
                status["message"],
                format!("{verb} is not supported on resources of kind \"configmaps\""),
                "{method} {uri}"
            );
        }
    }

    #[tokio::test]
    async fn unknown_resources_and_paths_are_not_found() {
        let app = app();
        for uri in [
            "/api/v1/namespaces/default/pods",
            "/api/v1/namespaces/default/pods/x",
            "/api/v1/pods",
            "/api/v2",
            "/apis/batch/v1",
            "/apis/apps/v1/namespaces/default/pods",
            "/api/v1/namespaces/default/configmaps/x/status",
            "/api/v1/namespaces/default/namespaces",
        ] {
            let (code, status) = call(&app, "GET", uri, None).await;
            assert_eq!(code, 404, "{uri}");
            assert_eq!(status["reason"], "NotFound", "{uri}");
            assert_eq!(
                status["message"], "the server could not find the requested resource",
                "{uri}"
            );
        }
        let (code, _) = call(&app, "PATCH", "/api/v1/namespaces/default/pods/x", None).await;
        assert_eq!(code, 404);
    }

    #[tokio::test]
    async fn one_object_round_trips_through_the_routes() {
        let app = app();
        let path = "/api/v1/namespaces/default/configmaps";
        let body = json!({"metadata": {"name": "a"}, "data": {"k": "v"}});
        let (code, created) = call(&app, "POST", path, Some(body)).await;
        assert_eq!(code, 201);
        let rv = created["metadata"]["resourceVersion"].clone();
        let (code, got) = call(&app, "GET", &format!("{path}/a"), None).await;
        assert_eq!((code, &got), (200, &created));
        let (code, list) = call(&app, "GET", "/api/v1/configmaps", None).await;
        assert_eq!(code, 200);
        assert_eq!(list["metadata"]["resourceVersion"], rv);
        assert_eq!(list["items"][0]["metadata"]["namespace"], "default");
        let (code, status) = call(
            &app,
            "POST",
            "/api/v1/namespaces/nope/configmaps",
            Some(json!({"metadata": {"name": "a"}})),
        )
        .await;
        assert_eq!(code, 404);
        assert_eq!(status["message"], "namespaces \"nope\" not found");
    }
}
