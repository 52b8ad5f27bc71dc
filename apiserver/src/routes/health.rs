//! Health and version: `/livez`, `/readyz`, `/healthz`, `/version`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::error::ApiError;
use crate::state::AppState;

/// `ok`, as kube-apiserver answers a passing health check.
pub async fn ok() -> &'static str {
    "ok"
}

/// `ok` once storage answers.
pub async fn ready(State(state): State<AppState>) -> Response {
    let store = state.store.clone();
    match tokio::task::spawn_blocking(move || store.current_revision()).await {
        Ok(Ok(_)) => "ok".into_response(),
        Ok(Err(e)) => ApiError::internal(e).into_response(),
        Err(e) => ApiError::internal(e).into_response(),
    }
}

/// The Kubernetes version this server speaks, and its own build.
pub async fn version() -> Response {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    let body = json!({
        "major": "1",
        "minor": "37",
        "gitVersion": concat!("v1.37.0+kcel-", env!("CARGO_PKG_VERSION")),
        "gitCommit": "",
        "gitTreeState": "",
        "buildDate": "",
        "goVersion": "",
        "compiler": "rustc",
        "platform": format!("{}/{arch}", std::env::consts::OS),
    });
    super::json_response(StatusCode::OK, &body)
}
