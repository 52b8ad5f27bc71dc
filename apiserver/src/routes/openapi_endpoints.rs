//! `/openapi/v3` and `/openapi/v3/<key>`, as kube-openapi serves them: the index names each
//! document with its hash; a document asked for with its current hash is immutable, one asked
//! for with a stale hash is redirected to the current URL. `/openapi/v2`: the swagger-2.0
//! document ([`crate::openapi_v2`]), protobuf or JSON.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::openapi;
use crate::state::AppState;

/// `GET /openapi/v3`.
pub async fn index(State(state): State<AppState>) -> Response {
    let mut index = openapi::index();
    if let Some(paths) = index["paths"].as_object_mut() {
        for doc in crate::crd::crd_openapi::documents(&state.crds) {
            let url = format!("/openapi/v3/{}?hash={}", doc.key, doc.hash);
            paths.insert(doc.key, serde_json::json!({"serverRelativeURL": url}));
        }
    }
    super::json_response(StatusCode::OK, &index)
}

/// `GET /openapi/v3/<key>`.
pub async fn document(
    State(state): State<AppState>,
    Path(key): Path<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let doc = match openapi::document(&key) {
        Some(d) => crate::crd::crd_openapi::Document {
            key: d.key.to_owned(),
            bytes: d.bytes.to_vec(),
            hash: d.hash.clone(),
        },
        None => crate::crd::crd_openapi::document(&state.crds, &key)
            .ok_or_else(ApiError::no_such_path)?,
    };
    let url = format!("/openapi/v3/{}?hash={}", doc.key, doc.hash);
    match params.get("hash") {
        Some(hash) if *hash != doc.hash => {
            let mut response = StatusCode::MOVED_PERMANENTLY.into_response();
            if let Ok(v) = HeaderValue::from_str(&url) {
                response.headers_mut().insert(header::LOCATION, v);
            }
            Ok(response)
        }
        hash => {
            let mut response = (StatusCode::OK, doc.bytes).into_response();
            let headers = response.headers_mut();
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            if let Ok(v) = HeaderValue::from_str(&format!("\"{}\"", doc.hash)) {
                headers.insert(header::ETAG, v);
            }
            if hash.is_some() {
                headers.insert(
                    header::CACHE_CONTROL,
                    HeaderValue::from_static("public, immutable"),
                );
                headers.insert(header::VARY, HeaderValue::from_static("Accept"));
                let expires = (chrono::Utc::now() + chrono::Duration::days(365))
                    .format("%a, %d %b %Y %H:%M:%S GMT")
                    .to_string();
                if let Ok(v) = HeaderValue::from_str(&expires) {
                    headers.insert(header::EXPIRES, v);
                }
            } else {
                headers.insert(
                    header::CACHE_CONTROL,
                    HeaderValue::from_static("no-cache, private"),
                );
            }
            Ok(response)
        }
    }
}

/// `GET /openapi/v2`: protobuf when the client asks for it (kubectl does), else JSON; an
/// `If-None-Match` of the current ETag answers 304, as kube-openapi's handler does.
pub async fn v2(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let served = crate::openapi_v2::served(&state.crds);
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let (body, content_type, hash) =
        if accept.contains("application/com.github.proto-openapi.spec.v2") {
            (
                served.protobuf.clone(),
                crate::openapi_v2::PROTOBUF,
                &served.protobuf_hash,
            )
        } else {
            (served.json.clone(), "application/json", &served.json_hash)
        };
    let etag = format!("\"{hash}\"");
    let unchanged = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == etag);
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        (StatusCode::OK, body).into_response()
    };
    let out = response.headers_mut();
    if !unchanged {
        out.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    }
    if let Ok(v) = HeaderValue::from_str(&etag) {
        out.insert(header::ETAG, v);
    }
    out.insert(header::VARY, HeaderValue::from_static("Accept"));
    response
}
