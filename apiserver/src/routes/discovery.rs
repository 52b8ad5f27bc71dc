//! Discovery: aggregated (`apidiscovery.k8s.io/v2`, when the Accept header asks for it first)
//! and legacy (`/api`, `/api/v1`, `/apis`, `/apis/<group>`, `/apis/<group>/<version>`).

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header::CONTENT_TYPE};
use axum::response::Response;
use serde_json::{Value, json};

use crate::crd::Crds;
use crate::error::ApiError;
use crate::negotiate;
use crate::resource::{self, Resource};
use crate::state::AppState;

/// The content type of an aggregated discovery answer.
const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

fn aggregated_response(items: Vec<Value>) -> Response {
    let body = json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items,
    });
    let mut response = super::json_response(StatusCode::OK, &body);
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(AGGREGATED));
    response
}

/// The categories of a built-in resource: upstream's `all`, as far as the served kinds go.
fn categories(resource: &Resource) -> &'static [&'static str] {
    match resource.kind {
        "Pod"
        | "Service"
        | "DaemonSet"
        | "Deployment"
        | "ReplicaSet"
        | "StatefulSet"
        | "HorizontalPodAutoscaler"
        | "Job"
        | "CronJob" => &["all"],
        _ => &[],
    }
}

/// One group's `APIGroupDiscovery` (the core group has no name), its versions in
/// preference order.
fn group_discovery(crds: &Crds, group: &str, versions: &[&str]) -> Value {
    if resource::groups().iter().all(|(g, _)| *g != group)
        && let Some((_, versions)) = crate::crd::crd_discovery::groups(crds)
            .into_iter()
            .find(|(g, _)| g == group)
    {
        let versions: Vec<Value> = versions
            .iter()
            .map(|v| json!({"version": v, "resources": crate::crd::crd_discovery::aggregated(crds, group, v), "freshness": "Current"}))
            .collect();
        return json!({
            "metadata": {"creationTimestamp": null, "name": group},
            "versions": versions,
        });
    }
    let versions: Vec<Value> = versions
        .iter()
        .map(|version| {
            let resources: Vec<Value> = resource::discovered()
                .filter(|r| r.group == group && r.version == *version)
                .map(|r| crate::discovery_entries::aggregated(r, categories(r)))
                .collect();
            json!({"version": version, "resources": resources, "freshness": "Current"})
        })
        .collect();
    let mut metadata = json!({"creationTimestamp": null});
    if !group.is_empty() {
        metadata["name"] = json!(group);
    }
    json!({"metadata": metadata, "versions": versions})
}

/// `GET /api`: `APIVersions`, or the core group's aggregated discovery.
pub async fn api_versions(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if negotiate::wants_aggregated_discovery(&headers) {
        return aggregated_response(vec![group_discovery(&state.crds, "", &["v1"])]);
    }
    let body = json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": &*state.address}
        ],
    });
    super::json_response(StatusCode::OK, &body)
}

/// An `APIResourceList` of one group-version.
fn resource_list(crds: &Crds, group: &str, version: &str) -> Value {
    let mut resources: Vec<Value> = resource::discovered()
        .filter(|r| r.group == group && r.version == version)
        .flat_map(|r| crate::discovery_entries::legacy(r, categories(r)))
        .collect();
    resources.extend(crate::crd::crd_discovery::legacy(crds, group, version));
    let group_version = if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources,
    })
}

/// `GET /api/v1`.
pub async fn core_v1(State(state): State<AppState>) -> Response {
    super::json_response(StatusCode::OK, &resource_list(&state.crds, "", "v1"))
}

fn api_group(group: &str, versions: &[&str]) -> Value {
    let versions: Vec<String> = versions.iter().map(|v| (*v).to_owned()).collect();
    api_group_of(group, &versions)
}

/// An `APIGroup` with its versions, the first preferred.
fn api_group_of(group: &str, versions: &[String]) -> Value {
    let gvs: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{group}/{v}"), "version": v}))
        .collect();
    json!({
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": group,
        "preferredVersion": gvs.first().cloned().unwrap_or(Value::Null),
        "versions": gvs,
    })
}

/// `GET /apis`: `APIGroupList`, or the named groups' aggregated discovery.
pub async fn api_groups(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let crds = &*state.crds;
    if negotiate::wants_aggregated_discovery(&headers) {
        let mut items: Vec<Value> = resource::groups()
            .into_iter()
            .map(|(g, vs)| group_discovery(crds, g, &vs))
            .collect();
        for (g, _) in crate::crd::crd_discovery::groups(crds) {
            items.push(group_discovery(crds, &g, &[]));
        }
        return aggregated_response(items);
    }
    let custom = crate::crd::crd_discovery::groups(crds);
    let groups: Vec<Value> = resource::groups()
        .into_iter()
        .map(|(g, vs)| api_group(g, &vs))
        .chain(custom.iter().map(|(g, vs)| api_group_of(g, vs)))
        .map(|mut group| {
            if let Some(m) = group.as_object_mut() {
                m.remove("kind");
                m.remove("apiVersion");
            }
            group
        })
        .collect();
    let body = json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups});
    super::json_response(StatusCode::OK, &body)
}

/// `GET /apis/<group>`.
pub async fn api_group_handler(
    State(state): State<AppState>,
    Path(group): Path<String>,
) -> Result<Response, ApiError> {
    if let Some((g, vs)) = crate::crd::crd_discovery::groups(&state.crds)
        .into_iter()
        .find(|(g, _)| *g == group)
    {
        return Ok(super::json_response(StatusCode::OK, &api_group_of(&g, &vs)));
    }
    let (g, vs) = resource::groups()
        .into_iter()
        .find(|(g, _)| *g == group)
        .ok_or_else(ApiError::no_such_path)?;
    Ok(super::json_response(StatusCode::OK, &api_group(g, &vs)))
}

/// `GET /apis/<group>/<version>`.
pub async fn group_version(
    State(state): State<AppState>,
    Path((group, version)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let custom = crate::crd::crd_discovery::groups(&state.crds)
        .into_iter()
        .any(|(g, vs)| g == group && vs.contains(&version));
    if !custom && !resource::serves_group_version(&group, &version) {
        return Err(ApiError::no_such_path());
    }
    Ok(super::json_response(
        StatusCode::OK,
        &resource_list(&state.crds, &group, &version),
    ))
}
