//! get, list, create, update and delete of namespaced objects (ConfigMaps so far).
//!
//! The write path follows kube-apiserver's generic registry: decode, check the URL against the
//! body, set server-owned metadata, validate, then one storage transaction whose revision
//! becomes the `resourceVersion` the client sees.

use std::collections::HashMap;

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header::CONTENT_LENGTH};
use axum::response::Response;
use http_body_util::BodyExt;
use serde_json::{Value, json};

use crate::continue_token;
use crate::error::{ApiError, FieldError};
use crate::object::{self, Object};
use crate::resource::{self, Resource};
use crate::server::AppState;
use crate::status::{Status, StatusDetails};
use crate::storage::{KeyValue, RangeRequest, Storage, StorageError, keys};
use crate::validation;

/// The largest request body accepted, as kube-apiserver's limit: 3 MiB.
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// How often an update or delete without a resourceVersion retries after losing a race.
const UNCONDITIONAL_RETRIES: usize = 5;

/// The characters of a `generateName` suffix, as upstream picks them.
const NAME_SUFFIX_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// Runs a storage call on the blocking pool.
async fn storage<T: Send + 'static>(
    state: &AppState,
    call: impl FnOnce(&dyn Storage) -> T + Send + 'static,
) -> Result<T, ApiError> {
    let store = state.store.clone();
    tokio::task::spawn_blocking(move || call(&*store))
        .await
        .map_err(ApiError::internal)
}

/// The served namespaced resource named by a path segment.
fn namespaced(plural: &str) -> Result<&'static Resource, ApiError> {
    resource::core(plural)
        .filter(|r| r.namespaced)
        .ok_or_else(ApiError::no_such_path)
}

/// How much of an oversized body is read and dropped before answering 413, so that a client
/// still writing it reads the answer instead of a reset connection.
const MAX_DRAINED_BYTES: usize = 4 * MAX_BODY_BYTES;

/// The request body, at most [`MAX_BODY_BYTES`].
async fn read_body(headers: &HeaderMap, mut body: Body) -> Result<Bytes, ApiError> {
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let mut too_large = declared.is_some_and(|n| n > MAX_BODY_BYTES as u64);
    let mut data = Vec::new();
    let mut total = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| ApiError::bad_request(format!("reading the body: {e}")))?;
        let Ok(chunk) = frame.into_data() else {
            continue; // trailers
        };
        total += chunk.len();
        too_large |= total > MAX_BODY_BYTES;
        if !too_large {
            data.extend_from_slice(&chunk);
        }
        if total > MAX_DRAINED_BYTES {
            break;
        }
    }
    if too_large {
        return Err(ApiError::too_large(&format!("limit is {MAX_BODY_BYTES}")));
    }
    Ok(Bytes::from(data))
}

/// `GET /api/v1/namespaces/{namespace}/{plural}`.
pub async fn list(
    State(state): State<AppState>,
    Path((namespace, plural)): Path<(String, String)>,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let resource = namespaced(&plural)?;
    list_objects(&state, resource, Some(namespace), &params).await
}

/// `GET /api/v1/{plural}`: a list across all namespaces.
pub async fn list_all_namespaces(
    State(state): State<AppState>,
    Path(plural): Path<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let resource = namespaced(&plural)?;
    list_objects(&state, resource, None, &params).await
}

async fn list_objects(
    state: &AppState,
    resource: &'static Resource,
    namespace: Option<String>,
    params: &HashMap<String, String>,
) -> Result<Response, ApiError> {
    let prefix = keys::prefix(resource.plural, namespace.as_deref());
    let limit = match params.get("limit").map(String::as_str) {
        None | Some("") => None,
        Some(text) => match text.parse::<i64>() {
            Ok(n) if n > 0 => Some(n as usize),
            Ok(_) => None,
            Err(_) => {
                return Err(ApiError::bad_request(format!(
                    "invalid limit {text:?}: must be an integer"
                )));
            }
        },
    };
    let mut request = RangeRequest::prefix(&prefix);
    request.limit = limit;
    let continuing = match params.get("continue").map(String::as_str) {
        None | Some("") => false,
        Some(token) => {
            let (revision, start) = continue_token::decode(token).map_err(ApiError::bad_request)?;
            request.from_key = Some(format!("{prefix}{start}"));
            request.revision = Some(revision);
            true
        }
    };
    let response = storage(state, move |s| s.range(&request))
        .await?
        .map_err(|e| match e {
            StorageError::Compacted { .. } if continuing => ApiError::expired(
                "The provided continue parameter is too old to display a consistent list result. \
                 You can start a new list without the continue parameter.",
            ),
            other => ApiError::from_storage(other, resource, ""),
        })?;
    let mut items = Vec::with_capacity(response.kvs.len());
    for kv in &response.kvs {
        let mut item = object::from_storage(kv, resource)?;
        // Items of a typed list carry no type of their own.
        item.remove("apiVersion");
        item.remove("kind");
        items.push(Value::Object(item));
    }
    let mut metadata = json!({"resourceVersion": response.revision.to_string()});
    if response.more
        && let Some(last) = response.kvs.last()
    {
        let next = format!("{}\u{0}", &last.key[prefix.len()..]);
        metadata["continue"] = Value::from(continue_token::encode(response.revision, &next));
        metadata["remainingItemCount"] = Value::from(response.count - response.kvs.len());
    }
    let body = json!({
        "kind": resource.list_kind,
        "apiVersion": resource.api_version(),
        "metadata": metadata,
        "items": items,
    });
    Ok(super::json_response(StatusCode::OK, &body))
}

/// `GET /api/v1/namespaces/{namespace}/{plural}/{name}`.
pub async fn get(
    State(state): State<AppState>,
    Path((namespace, plural, name)): Path<(String, String, String)>,
) -> Result<Response, ApiError> {
    let resource = namespaced(&plural)?;
    let key = keys::namespaced(resource.plural, &namespace, &name);
    let (kv, _) = storage(&state, move |s| s.get(&key, None))
        .await?
        .map_err(|e| ApiError::from_storage(e, resource, &name))?;
    let kv = kv.ok_or_else(|| ApiError::not_found(resource, &name))?;
    let object = object::from_storage(&kv, resource)?;
    Ok(super::json_response(StatusCode::OK, &object))
}

/// Checks the body's namespace against the URL's, and fills it in when absent.
fn set_namespace(object: &mut Object, namespace: &str) -> Result<(), ApiError> {
    let given = object::meta_str(object, "namespace");
    if !given.is_empty() && given != namespace {
        return Err(ApiError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        ));
    }
    object::metadata_mut(object).insert("namespace".to_owned(), Value::from(namespace));
    Ok(())
}

/// Validates an object's name as upstream does for ConfigMaps (a DNS-1123 subdomain).
fn validate_name(resource: &Resource, name: &str) -> Result<(), ApiError> {
    if name.is_empty() {
        return Err(ApiError::invalid(
            resource,
            name,
            vec![FieldError::required(
                "metadata.name",
                "name or generateName is required",
            )],
        ));
    }
    let problems = validation::dns1123_subdomain(name);
    if problems.is_empty() {
        return Ok(());
    }
    let causes = problems
        .iter()
        .map(|p| FieldError::invalid_string("metadata.name", name, p))
        .collect();
    Err(ApiError::invalid(resource, name, causes))
}

/// `generateName` plus five random characters.
fn generate_name(prefix: &str) -> Result<String, ApiError> {
    let random = crate::random::bytes::<5>().map_err(ApiError::internal)?;
    let suffix: String = random
        .iter()
        .map(|b| NAME_SUFFIX_ALPHABET[*b as usize % NAME_SUFFIX_ALPHABET.len()] as char)
        .collect();
    Ok(format!("{prefix}{suffix}"))
}

/// `POST /api/v1/namespaces/{namespace}/{plural}`.
pub async fn create(
    State(state): State<AppState>,
    Path((namespace, plural)): Path<(String, String)>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let resource = namespaced(&plural)?;
    let body = read_body(&headers, body).await?;
    let mut object = object::decode(&body, resource)?;
    set_namespace(&mut object, &namespace)?;
    let mut name = object::meta_str(&object, "name").to_owned();
    let generate = object::meta_str(&object, "generateName").to_owned();
    if name.is_empty() && !generate.is_empty() {
        name = generate_name(&generate)?;
    }
    validate_name(resource, &name)?;
    let uid = crate::random::uuid_v4().map_err(ApiError::internal)?;
    object::set_type(&mut object, resource);
    let meta = object::metadata_mut(&mut object);
    meta.insert("name".to_owned(), Value::from(name.as_str()));
    meta.insert("uid".to_owned(), Value::from(uid));
    meta.insert(
        "creationTimestamp".to_owned(),
        Value::from(object::now_timestamp()),
    );
    let key = keys::namespaced(resource.plural, &namespace, &name);
    let bytes = object::encode_for_storage(&object);
    let kv = storage(&state, move |s| s.create(&key, &bytes))
        .await?
        .map_err(|e| ApiError::from_storage(e, resource, &name))?;
    let created = object::from_storage(&kv, resource)?;
    Ok(super::json_response(StatusCode::CREATED, &created))
}

/// The resourceVersion a write was made against, if the client gave one.
fn precondition(object: &Object) -> Result<Option<i64>, ApiError> {
    match object::meta_str(object, "resourceVersion") {
        "" => Ok(None),
        text => text.parse::<i64>().map(Some).map_err(|_| {
            ApiError::bad_request(format!(
                "metadata.resourceVersion: Invalid value: {text:?}: must be a valid resourceVersion"
            ))
        }),
    }
}

/// The live object under `key`, or NotFound.
async fn current(
    state: &AppState,
    resource: &'static Resource,
    key: &str,
    name: &str,
) -> Result<KeyValue, ApiError> {
    let key = key.to_owned();
    let (kv, _) = storage(state, move |s| s.get(&key, None))
        .await?
        .map_err(|e| ApiError::from_storage(e, resource, name))?;
    kv.ok_or_else(|| ApiError::not_found(resource, name))
}

/// `PUT /api/v1/namespaces/{namespace}/{plural}/{name}`.
pub async fn update(
    State(state): State<AppState>,
    Path((namespace, plural, name)): Path<(String, String, String)>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let resource = namespaced(&plural)?;
    let body = read_body(&headers, body).await?;
    let mut object = object::decode(&body, resource)?;
    let given = object::meta_str(&object, "name");
    if given != name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({given}) does not match the name on the URL ({name})"
        )));
    }
    set_namespace(&mut object, &namespace)?;
    let expected = precondition(&object)?;
    object::set_type(&mut object, resource);
    let key = keys::namespaced(resource.plural, &namespace, &name);
    for _ in 0..UNCONDITIONAL_RETRIES {
        let old = current(&state, resource, &key, &name).await?;
        if expected.is_some_and(|rv| rv != old.mod_revision) {
            return Err(ApiError::conflict(resource, &name));
        }
        // uid and creationTimestamp belong to the server and stay as they were.
        let old_object = object::from_storage(&old, resource)?;
        let meta = object::metadata_mut(&mut object);
        for field in ["uid", "creationTimestamp"] {
            match object::meta_str(&old_object, field) {
                "" => meta.remove(field),
                value => meta.insert(field.to_owned(), Value::from(value)),
            };
        }
        let bytes = object::encode_for_storage(&object);
        let (k, revision) = (key.clone(), old.mod_revision);
        match storage(&state, move |s| s.update(&k, &bytes, revision)).await? {
            Ok(kv) => {
                let updated = object::from_storage(&kv, resource)?;
                return Ok(super::json_response(StatusCode::OK, &updated));
            }
            // Lost a race without a precondition of our own: read again and retry.
            Err(StorageError::Conflict { .. }) if expected.is_none() => continue,
            Err(e) => return Err(ApiError::from_storage(e, resource, &name)),
        }
    }
    Err(ApiError::conflict(resource, &name))
}

/// `DELETE /api/v1/namespaces/{namespace}/{plural}/{name}`: answers a `Success` status.
pub async fn delete(
    State(state): State<AppState>,
    Path((namespace, plural, name)): Path<(String, String, String)>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let resource = namespaced(&plural)?;
    // DeleteOptions (propagationPolicy, preconditions, ...) are read but not acted on yet.
    read_body(&headers, body).await?;
    let key = keys::namespaced(resource.plural, &namespace, &name);
    for _ in 0..UNCONDITIONAL_RETRIES {
        let old = current(&state, resource, &key, &name).await?;
        let (k, revision) = (key.clone(), old.mod_revision);
        match storage(&state, move |s| s.delete(&k, revision)).await? {
            Ok((deleted, _)) => {
                let object = object::from_storage(&deleted, resource)?;
                let status = Status::success(StatusDetails {
                    name: name.clone(),
                    group: resource.group.to_owned(),
                    kind: resource.plural.to_owned(),
                    uid: object::meta_str(&object, "uid").to_owned(),
                    ..StatusDetails::default()
                });
                return Ok(super::json_response(StatusCode::OK, &status));
            }
            Err(StorageError::Conflict { .. }) => continue,
            Err(e) => return Err(ApiError::from_storage(e, resource, &name)),
        }
    }
    Err(ApiError::conflict(resource, &name))
}
