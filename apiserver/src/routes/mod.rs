//! The HTTP routes: one router for every path the server answers.

mod access;
pub(crate) mod admit;
pub(crate) mod call;
pub(crate) mod cluster_role_aggregation;
mod controller;
mod discovery;
pub(crate) mod garbage_collector;
mod health;
pub(crate) mod namespaces;
pub(crate) mod objects;
mod openapi_endpoints;
mod scale_subresource;
mod service_addresses;
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
        .route("/openapi/v2", get(openapi_endpoints::v2))
        .route("/openapi/v3", get(openapi_endpoints::index))
        .route("/openapi/v3/{*key}", get(openapi_endpoints::document))
        .route(
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            axum::routing::post(access::self_subject_access_review),
        )
        .route(
            "/apis/authorization.k8s.io/v1/subjectaccessreviews",
            axum::routing::post(access::subject_access_review),
        )
        .route(
            "/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews",
            axum::routing::post(access::local_subject_access_review),
        )
        .route(
            "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
            axum::routing::post(access::self_subject_rules_review),
        )
        .route(
            "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            axum::routing::post(access::self_subject_review),
        )
        .route(
            "/apis/authentication.k8s.io/v1/tokenreviews",
            axum::routing::post(access::token_review),
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
    use crate::storage::memory::MemoryStorage;
    use crate::storage::{Storage, StorageError};
    use std::collections::HashMap;

    const TOKEN: &str = "test-token";

    fn app() -> Router {
        let store = Arc::new(MemoryStorage::new());
        ensure_system_namespaces(&*store).unwrap();
        app_over(store)
    }

    /// The router over `store` (its system namespaces already made).
    fn app_over(store: Arc<dyn crate::storage::Storage>) -> Router {
        router(AppState {
            store,
            token: TOKEN.into(),
            address: "127.0.0.1:6443".into(),
            verbosity: 0,
            metrics: Arc::default(),
            users: Arc::default(),
            authz: Arc::default(),
            impersonation: Arc::default(),
            features: Default::default(),
            admission: Default::default(),
            crds: Default::default(),
            services: Default::default(),
        })
    }

    async fn call(app: &Router, method: &str, uri: &str, body: Option<Value>) -> (u16, Value) {
        match body {
            Some(body) => send(app, method, uri, "application/json", body).await,
            None => request(app, method, uri, None).await,
        }
    }

    /// `body` sent as `content_type`.
    async fn send(
        app: &Router,
        method: &str,
        uri: &str,
        content_type: &str,
        body: Value,
    ) -> (u16, Value) {
        request(app, method, uri, Some((content_type, body))).await
    }

    async fn request(
        app: &Router,
        method: &str,
        uri: &str,
        body: Option<(&str, Value)>,
    ) -> (u16, Value) {
        let mut request = Request::builder()
            .method(method)
            .uri(uri)
            .header("authorization", format!("Bearer {TOKEN}"));
        let body = match body {
            Some((content_type, body)) => {
                request = request.header("content-type", content_type);
                Body::from(body.to_string())
            }
            None => Body::empty(),
        };
        let response = app
            .clone()
            .oneshot(request.body(body).unwrap())
            .await
            .unwrap();
        let code = response.status().as_u16();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (code, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    #[tokio::test]
    async fn a_watch_from_a_compacted_revision_gets_one_error_event() {
        let store = Arc::new(MemoryStorage::new());
        ensure_system_namespaces(&*store).unwrap();
        let app = app_over(store.clone());
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
            "/api/v1/namespaces/default/replicationcontrollers",
            "/api/v1/namespaces/default/replicationcontrollers/x",
            "/api/v1/nodes",
            "/api/v2",
            "/apis/autoscaling/v2beta2",
            "/apis/events.k8s.io/v1beta1",
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
        let path = "/api/v1/namespaces/default/replicationcontrollers/x";
        let (code, _) = call(&app, "PATCH", path, None).await;
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

    /// A store behind a watch cache that lags: `get_cached` answers the copies frozen by
    /// `freeze` (else the store's current value, as a cache that has caught up), and the
    /// reads and conditional writes of ConfigMaps that reach the store are counted (etcd round
    /// trips on the etcd backend).
    #[derive(Default)]
    struct LaggingCache {
        store: MemoryStorage,
        frozen: std::sync::Mutex<HashMap<String, crate::storage::KeyValue>>,
        reads: std::sync::atomic::AtomicUsize,
        writes: std::sync::atomic::AtomicUsize,
        /// Whether a refused write returns the key's value, as etcd's transaction does.
        returns_current: std::sync::atomic::AtomicBool,
    }

    const CM_KEYS: &str = "/registry/configmaps/";

    impl LaggingCache {
        fn freeze(&self, key: &str) {
            let kv = self.store.get(key, None).unwrap().0.unwrap();
            self.frozen.lock().unwrap().insert(key.to_owned(), kv);
        }

        fn thaw(&self) {
            self.frozen.lock().unwrap().clear();
        }

        /// The (reads, writes) counted since the last call.
        fn take_counts(&self) -> (usize, usize) {
            use std::sync::atomic::Ordering::SeqCst;
            (self.reads.swap(0, SeqCst), self.writes.swap(0, SeqCst))
        }

        fn count(&self, key: &str, counter: &std::sync::atomic::AtomicUsize) {
            if key.starts_with(CM_KEYS) {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        }
    }

    impl crate::storage::Delegating for LaggingCache {
        fn inner(&self) -> &dyn Storage {
            &self.store
        }

        fn get(
            &self,
            key: &str,
            revision: Option<crate::storage::Revision>,
        ) -> Result<(Option<crate::storage::KeyValue>, crate::storage::Revision), StorageError>
        {
            self.count(key, &self.reads);
            self.store.get(key, revision)
        }

        fn get_cached(&self, key: &str) -> Result<Option<crate::storage::KeyValue>, StorageError> {
            if let Some(kv) = self.frozen.lock().unwrap().get(key) {
                return Ok(Some(kv.clone()));
            }
            Ok(self.store.get(key, None)?.0)
        }

        fn update(
            &self,
            key: &str,
            value: &[u8],
            expected: crate::storage::Revision,
        ) -> Result<crate::storage::KeyValue, StorageError> {
            self.count(key, &self.writes);
            match self.store.update(key, value, expected) {
                Err(StorageError::Conflict {
                    key,
                    expected,
                    actual,
                    current: None,
                }) if self
                    .returns_current
                    .load(std::sync::atomic::Ordering::SeqCst) =>
                {
                    let current = self.store.get(&key, None)?.0.map(Box::new);
                    Err(StorageError::Conflict {
                        key,
                        expected,
                        actual,
                        current,
                    })
                }
                other => other,
            }
        }

        fn delete(
            &self,
            key: &str,
            expected: crate::storage::Revision,
        ) -> Result<(crate::storage::KeyValue, crate::storage::Revision), StorageError> {
            self.count(key, &self.writes);
            self.store.delete(key, expected)
        }
    }

    /// Writes start from the watch cache's copy (upstream's cacher passes it to
    /// `GuaranteedUpdate`, k8s.io/apiserver `pkg/storage/cacher/cacher.go`), and a stale copy
    /// changes no answer (`pkg/storage/etcd3/store.go`, `origStateIsCurrent`): no 409 for a
    /// client that names the current resourceVersion, 409 with upstream's text for one that
    /// names an old one, no lost update, no skipped write; an up-to-date copy saves the read.
    #[tokio::test]
    async fn writes_from_a_stale_cached_copy_keep_their_answers() {
        let store = Arc::new(LaggingCache::default());
        ensure_system_namespaces(&*store).unwrap();
        let app = app_over(store.clone());
        let path = "/api/v1/namespaces/default/configmaps/x";
        let key = "/registry/configmaps/default/x";
        let json = "application/json";
        let merge = "application/merge-patch+json";
        let cm = |rv: &str, a: &str| json!({"metadata": {"name": "x", "resourceVersion": rv}, "data": {"a": a}});
        let rv_of = |o: &Value| {
            o["metadata"]["resourceVersion"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        let stored = |store: &LaggingCache| -> Value {
            let kv = store.store.get(key, None).unwrap().0.unwrap();
            serde_json::from_slice::<Value>(&kv.value).unwrap()["data"].clone()
        };
        let (code, created) = send(
            &app,
            "POST",
            "/api/v1/namespaces/default/configmaps",
            json,
            json!({"metadata": {"name": "x"}, "data": {"a": "1"}}),
        )
        .await;
        assert_eq!(code, 201, "{created}");
        let conflict = "Operation cannot be fulfilled on configmaps \"x\": the object has been \
                        modified; please apply your changes to the latest version and try again";

        // A cache that has caught up: an update is one conditional write, no read.
        store.take_counts();
        let (code, put) = send(&app, "PUT", path, json, cm(&rv_of(&created), "2")).await;
        assert_eq!(code, 200, "{put}");
        assert_eq!(store.take_counts(), (0, 1));

        // The cache keeps this copy while another server writes a=3.
        store.freeze(key);
        let (code, other) = send(&app, "PUT", path, json, cm(&rv_of(&put), "3")).await;
        assert_eq!(code, 200, "{other}");
        store.take_counts();

        // The client names the current resourceVersion: no 409 from the stale copy.
        let (code, fresh) = send(&app, "PUT", path, json, cm(&rv_of(&other), "4")).await;
        assert_eq!(code, 200, "{fresh}");
        assert_eq!(fresh["data"], json!({"a": "4"}));
        assert_eq!(store.take_counts(), (1, 1));

        // The client names the stale copy's resourceVersion: 409, nothing written.
        let (code, status) = send(&app, "PUT", path, json, cm(&rv_of(&put), "5")).await;
        assert_eq!(code, 409, "{status}");
        assert_eq!(status["reason"], "Conflict");
        assert_eq!(status["message"], conflict);
        assert_eq!(stored(&store), json!({"a": "4"}));
        // An older one likewise.
        let (code, status) = send(&app, "PUT", path, json, cm("1", "5")).await;
        assert_eq!((code, status["reason"].as_str()), (409, Some("Conflict")));
        store.take_counts();

        // A patch without a resourceVersion applies to the stored object, not the copy:
        // a=4 (written after the copy) survives.
        let (code, patched) = send(&app, "PATCH", path, merge, json!({"data": {"b": "1"}})).await;
        assert_eq!(code, 200, "{patched}");
        assert_eq!(patched["data"], json!({"a": "4", "b": "1"}));
        assert_eq!(stored(&store), json!({"a": "4", "b": "1"}));
        // The write from the copy was refused, then one read and the write.
        assert_eq!(store.take_counts(), (1, 2));

        // A store that returns the current value with a refused write (etcd) saves the read.
        store
            .returns_current
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let (code, patched) = send(&app, "PATCH", path, merge, json!({"data": {"c": "1"}})).await;
        assert_eq!(code, 200, "{patched}");
        assert_eq!(patched["data"], json!({"a": "4", "b": "1", "c": "1"}));
        assert_eq!(store.take_counts(), (0, 2));
        let (code, patched) = send(&app, "PATCH", path, merge, json!({"data": {"c": null}})).await;
        assert_eq!(code, 200, "{patched}");
        store
            .returns_current
            .store(false, std::sync::atomic::Ordering::SeqCst);

        // A patch that changes nothing in the stale copy (a=2 there) changes the object.
        let (code, patched) = send(&app, "PATCH", path, merge, json!({"data": {"a": "2"}})).await;
        assert_eq!(code, 200, "{patched}");
        assert_eq!(stored(&store), json!({"a": "2", "b": "1"}));
        assert_eq!(patched["data"], json!({"a": "2", "b": "1"}));
        // And one that changes nothing in the current object writes nothing.
        let before = rv_of(&patched);
        let (code, same) = send(&app, "PATCH", path, merge, json!({"data": {"b": "1"}})).await;
        assert_eq!((code, rv_of(&same)), (200, before.clone()));

        // A delete whose precondition names the stale copy's resourceVersion fails as
        // upstream's; one naming the current resourceVersion deletes.
        let precondition = |rv: &str| json!({"preconditions": {"resourceVersion": rv}});
        let stale_rv = rv_of(&put);
        let (code, status) = send(&app, "DELETE", path, json, precondition(&stale_rv)).await;
        assert_eq!(code, 409, "{status}");
        assert_eq!(
            status["message"],
            format!(
                "Operation cannot be fulfilled on configmaps \"x\": StorageError: invalid \
                 object, Code: 4, Key: {key}, ResourceVersion: 0, AdditionalErrorMsg: \
                 Precondition failed: ResourceVersion in precondition: {stale_rv}, \
                 ResourceVersion in object meta: {before}"
            )
        );
        let (code, deleted) = send(&app, "DELETE", path, json, precondition(&before)).await;
        assert_eq!(code, 200, "{deleted}");
        assert!(store.store.get(key, None).unwrap().0.is_none());

        // The copy of a deleted object: 404, as from the store.
        let (code, status) = send(&app, "PUT", path, json, cm("", "6")).await;
        assert_eq!((code, status["reason"].as_str()), (404, Some("NotFound")));
        store.thaw();
        let (code, _) = send(&app, "PUT", path, json, cm("", "6")).await;
        assert_eq!(code, 404);
    }

    /// A PUT whose body names a uid makes it a precondition (k8s.io/apiserver
    /// `rest.DefaultUpdatedObjectInfo.Preconditions`), checked against the stored object
    /// before anything else (`pkg/storage/etcd3/store.go` `GuaranteedUpdate`,
    /// `storage.Preconditions.Check`) and answered as `storeerr.InterpretUpdateError` answers
    /// an invalid-object storage error: 409 Conflict. Checked against a stale cached copy it
    /// is checked again against the store's object, as upstream does.
    #[tokio::test]
    async fn a_put_naming_another_uid_fails_its_precondition() {
        let store = Arc::new(LaggingCache::default());
        ensure_system_namespaces(&*store).unwrap();
        let app = app_over(store.clone());
        let (list, path) = (
            "/api/v1/namespaces/default/configmaps",
            "/api/v1/namespaces/default/configmaps/x",
        );
        let key = "/registry/configmaps/default/x";
        let json = "application/json";
        let body =
            |uid: &str, a: &str| json!({"metadata": {"name": "x", "uid": uid}, "data": {"a": a}});
        let create = json!({"metadata": {"name": "x"}, "data": {"a": "1"}});
        let (code, created) = send(&app, "POST", list, json, create.clone()).await;
        assert_eq!(code, 201, "{created}");
        let uid = created["metadata"]["uid"].as_str().unwrap().to_owned();
        let failed = |given: &str, stored: &str| {
            json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                   "message": format!("Operation cannot be fulfilled on configmaps \"x\": \
                       StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, \
                       AdditionalErrorMsg: Precondition failed: UID in precondition: {given}, \
                       UID in object meta: {stored}"),
                   "reason": "Conflict", "details": {"name": "x", "kind": "configmaps"},
                   "code": 409})
        };
        let (code, status) = send(&app, "PUT", path, json, body("another", "2")).await;
        assert_eq!((code, status), (409, failed("another", &uid)));
        // Checked before the resourceVersion and the validation: still the precondition.
        let mut stale = body("another", "2");
        stale["metadata"]["resourceVersion"] = json!("1");
        stale["metadata"]["labels"] = json!({"a": "-"});
        let (code, status) = send(&app, "PUT", path, json, stale).await;
        assert_eq!((code, status), (409, failed("another", &uid)));
        // The stored uid updates.
        let (code, put) = send(&app, "PUT", path, json, body(&uid, "3")).await;
        assert_eq!((code, &put["data"]), (200, &json!({"a": "3"})), "{put}");

        // The object is deleted and created again while the cache keeps the old copy.
        store.freeze(key);
        let (code, _) = send(&app, "DELETE", path, json, json!({})).await;
        assert_eq!(code, 200);
        let (code, again) = send(&app, "POST", list, json, create).await;
        assert_eq!(code, 201, "{again}");
        let new_uid = again["metadata"]["uid"].as_str().unwrap().to_owned();
        // The old uid passes against the copy, then fails against the store's object.
        let (code, status) = send(&app, "PUT", path, json, body(&uid, "5")).await;
        assert_eq!((code, status), (409, failed(&uid, &new_uid)));
        // The new one fails against the copy, then passes against the store's object.
        let (code, put) = send(&app, "PUT", path, json, body(&new_uid, "4")).await;
        assert_eq!((code, &put["data"]), (200, &json!({"a": "4"})), "{put}");
        store.thaw();
    }
}
