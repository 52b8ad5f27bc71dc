//! The `/scale` subresource of Deployments: an autoscaling/v1 `Scale` read from and written
//! to the Deployment's `spec.replicas` (what `kubectl scale` patches).

use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use super::call::{Call, Part, current, read_body_for_scale};
use super::write::{WriteOptions, Written, modify};
use crate::error::ApiError;
use crate::negotiate::{self, BodyType};
use crate::object::{self, Object};
use crate::patch;
use crate::scale::{custom_paths, scale_of};

/// `GET .../deployments/<name>/scale`.
pub async fn get(call: Call, name: &str) -> Result<Response, ApiError> {
    let kv = current(&call.state, call.resource, &call.key(name), name).await?;
    let deployment = crate::crd::Versions::of(&call.state.crds, call.resource)
        .read(&kv)
        .await?;
    Ok(super::json_response(
        StatusCode::OK,
        &scale_of(&call.state.crds, call.resource, &deployment),
    ))
}

/// `PUT` or `PATCH .../deployments/<name>/scale`: sets the Deployment's replicas.
pub async fn write(call: Call, name: &str, body: Body) -> Result<Response, ApiError> {
    let resource = call.resource;
    let kind = negotiate::body_type(&call.headers)?;
    let body = read_body_for_scale(&call.headers, body).await?;
    let given: Value = negotiate::parse_value(&body, kind).map_err(|e| {
        ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type Scale): {e}"
        ))
    })?;
    if kind == BodyType::ApplyPatch && !call.subresource_method_is_put() {
        return apply(call, name, given).await;
    }
    let is_put = call.subresource_method_is_put();
    let manager = call.manager();
    modify_parent(&call, name, &manager, true, |old| {
        let mut scale = scale_of(&call.state.crds, resource, &old);
        if is_put {
            scale = given.clone();
        } else {
            match kind {
                BodyType::JsonPatch => patch::json_patch(&mut scale, &given, &body)
                    .map_err(patch::JsonPatchError::status)?,
                BodyType::MergePatch | BodyType::StrategicMergePatch => {
                    patch::merge_patch(&mut scale, &given)
                }
                _ => return Err(negotiate::unsupported_media_type("")),
            }
        }
        let replicas = scale
            .get("spec")
            .and_then(|s| s.get("replicas"))
            .and_then(Value::as_i64)
            .unwrap_or(0);
        if replicas < 0 {
            return Err(negative_replicas(name, replicas));
        }
        let mut new = old.clone();
        if let Some(paths) = custom_paths(&call.state.crds, resource) {
            use crate::crd::json_path;
            let mut root = Value::Object(new);
            if let Some(steps) = json_path::parse(&paths.spec_replicas) {
                json_path::set(&mut root, &steps, json!(replicas));
            }
            new = match root {
                Value::Object(o) => o,
                _ => Object::new(),
            };
        } else if let Some(spec) = new.get_mut("spec").and_then(Value::as_object_mut) {
            spec.insert("replicas".to_owned(), json!(replicas));
        }
        let rv = scale
            .get("metadata")
            .and_then(|m| m.get("resourceVersion"))
            .and_then(Value::as_str)
            .unwrap_or("");
        object::metadata_mut(&mut new).insert("resourceVersion".to_owned(), json!(rv));
        Ok(new)
    })
    .await
}

/// Writes the object whose scale is written by `change` (the write is recorded as the scale
/// subresource's, an Update in managedFields when `update_managed_fields`); answers the
/// written object's `Scale`.
async fn modify_parent(
    call: &Call,
    name: &str,
    manager: &str,
    update_managed_fields: bool,
    change: impl Fn(Object) -> Result<Object, ApiError>,
) -> Result<Response, ApiError> {
    let written = modify(
        &call.state,
        call.resource,
        &call.key(name),
        name,
        WriteOptions {
            dry_run: call.param_is("dryRun", "All"),
            manager,
            part: Part::All,
            update_managed_fields,
            subresource: Some("scale"),
            warnings: Some(&call.warnings),
        },
        change,
    )
    .await?;
    let (Written::Stored(d) | Written::Deleted(d)) = written;
    Ok(super::json_response(
        StatusCode::OK,
        &scale_of(&call.state.crds, call.resource, &d),
    ))
}

/// `PATCH .../deployments/<name>/scale` with `application/apply-patch+yaml`: a server-side
/// apply of a `Scale`, owned as the Deployment's `spec.replicas` by an entry with
/// `subresource: scale` (upstream's scale handler maps the Scale's fields to the parent's).
async fn apply(call: Call, name: &str, given: Value) -> Result<Response, ApiError> {
    let resource = call.resource;
    let manager = call.field_manager_param().to_owned();
    let mut errors = Vec::new();
    if manager.is_empty() {
        errors.push(crate::error::FieldError::required(
            "fieldManager",
            "is required for apply patch",
        ));
    }
    call.check_field_manager("PatchOptions", errors)?;
    let force = call.param_is("force", "true");
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let (api_version, kind) = (text(&given, "apiVersion"), text(&given, "kind"));
    if (api_version.as_str(), kind.as_str()) != ("autoscaling/v1", "Scale") {
        let (group, version) = api_version.split_once('/').unwrap_or(("", &api_version));
        return Err(ApiError::bad_request(format!(
            "invalid object type: {group}/{version}, Kind={kind}"
        )));
    }
    // The Scale's configuration as the Deployment's.
    let mut config = json!({"apiVersion": resource.api_version(), "kind": resource.kind,
        "metadata": {"name": name}});
    if let Some(replicas) = given.get("spec").and_then(|s| s.get("replicas")) {
        if let Some(negative) = replicas.as_i64().filter(|r| *r < 0) {
            return Err(negative_replicas(name, negative));
        }
        config["spec"] = json!({"replicas": replicas});
    }
    let Value::Object(config) = config else {
        unreachable!("built as an object")
    };
    let now = object::now_timestamp();
    let custom = call.state.crds.custom(resource);
    let writer = crate::apply::Writer {
        manager: &manager,
        subresource: Some("scale"),
        now: &now,
        schema: crate::crd::apply_schema(custom.as_deref(), resource),
    };
    modify_parent(&call, name, &manager, false, |live| {
        let mut merged = crate::apply::apply(resource, Some(&live), &config, writer, force)
            .map_err(ApiError::from_apply)?;
        let rv = object::meta_str(&live, "resourceVersion").to_owned();
        object::metadata_mut(&mut merged).insert("resourceVersion".to_owned(), json!(rv));
        Ok(merged)
    })
    .await
}

/// A Scale's 422 for `spec.replicas` below zero (`ValidateScale`).
fn negative_replicas(name: &str, replicas: i64) -> ApiError {
    ApiError::invalid_of(
        "Scale.autoscaling",
        "autoscaling",
        "Scale",
        name,
        vec![crate::error::FieldError::invalid_number(
            "spec.replicas",
            replicas,
            "must be greater than or equal to 0",
        )],
    )
}
