//! Legacy discovery: `/api`, `/api/v1`, `/apis`.
//!
//! Aggregated discovery (v2) is not served yet: clients that ask for it first (kubectl) get
//! the legacy documents as `application/json` and read them as such.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use crate::resource::SERVED;
use crate::server::AppState;

/// `APIVersions` of the core group.
pub async fn api_versions(State(state): State<AppState>) -> Response {
    let body = json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": &*state.address}
        ],
    });
    super::json_response(StatusCode::OK, &body)
}

/// `APIResourceList` of core/v1: the served resources.
pub async fn core_v1() -> Response {
    let resources: Vec<Value> = SERVED
        .iter()
        .filter(|r| r.group.is_empty() && r.version == "v1")
        .map(|r| {
            json!({
                "name": r.plural,
                "singularName": r.singular,
                "namespaced": r.namespaced,
                "kind": r.kind,
                "verbs": r.verbs,
                "shortNames": r.short_names,
            })
        })
        .collect();
    let body = json!({
        "kind": "APIResourceList",
        "groupVersion": "v1",
        "resources": resources,
    });
    super::json_response(StatusCode::OK, &body)
}

/// `APIGroupList`: no named groups are served yet.
pub async fn api_groups() -> Response {
    let body = json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": []});
    super::json_response(StatusCode::OK, &body)
}
