//! The resource verbs of every served kind: get, list, watch, create, update, patch, delete and
//! deletecollection, under `/api/v1/...` and `/apis/<group>/<version>/...`.
//!
//! The write path follows kube-apiserver's generic registry: decode, check the URL against the
//! body, set server-owned metadata, validate, then one storage transaction whose revision
//! becomes the `resourceVersion` the client sees (nothing is written under `dryRun=All`).

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::continue_token;
use crate::duplicate_owners::{self, Stage};
use crate::error::{ApiError, FieldError};
use crate::negotiate::{self, BodyType, Output};
use crate::object::{self, Object};
use crate::openapi::schema_of;
use crate::patch;
use crate::patch_decode;
use crate::resource::{NAMESPACES, Resource};
use crate::state::AppState;
use crate::status::{Status, StatusDetails};
use crate::storage::{RangeRequest, ShardSelector, ShardedRange, StorageError, keys};
use crate::table;

use super::call::{Call, FieldValidation, current, read_body, selectors, storage};
use super::write::{
    DeleteOptions, WriteOptions, Written, delete_object, failed_precondition, has_generation,
    modify,
};

/// The characters of a `generateName` suffix, as upstream picks them.
const NAME_SUFFIX_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// Answers a request under `/api/v1/<rest>` or `/apis/<group>/<version>/<rest>`.
pub async fn dispatch(
    state: AppState,
    group: &str,
    version: &str,
    rest: &str,
    request: Request,
) -> Result<Response, ApiError> {
    let segments: Vec<&str> = rest.split('/').collect();
    let served = |plural: &str| crate::served::find(&state.crds, group, version, plural).is_some();
    let (plural, namespace, name, subresource) = match segments.as_slice() {
        [plural] => (*plural, None, None, None),
        ["namespaces", ns, plural] if served(plural) => (*plural, Some(*ns), None, None),
        ["namespaces", ns, plural, name] => (*plural, Some(*ns), Some(*name), None),
        ["namespaces", ns, plural, name, sub] => (*plural, Some(*ns), Some(*name), Some(*sub)),
        [plural, name] => (*plural, None, Some(*name), None),
        [plural, name, sub] => (*plural, None, Some(*name), Some(*sub)),
        _ => return Err(ApiError::no_such_path()),
    };
    let resource = crate::served::find(&state.crds, group, version, plural)
        .ok_or_else(ApiError::no_such_path)?;
    match subresource {
        None => {}
        Some("status") if resource.status => {}
        Some("scale") if resource.scale => {}
        Some("finalize") if resource.kind == "Namespace" && resource.group.is_empty() => {}
        Some(_) => return Err(ApiError::no_such_path()),
    }
    if resource.namespaced != namespace.is_some() && (name.is_some() || !resource.namespaced) {
        return Err(ApiError::no_such_path());
    }
    let (parts, body) = request.into_parts();
    let call = Call {
        namespace: namespace.map(str::to_owned),
        subresource: subresource.map(str::to_owned),
        put: parts.method == Method::PUT,
        ..Call::new(state, resource, &parts.uri, parts.headers)?
    };
    if let Some(warning) = crate::crd::deprecation(&call.state.crds, resource) {
        call.warn(warning);
    }
    let all_namespaces = resource.namespaced && namespace.is_none();
    let method = parts.method;
    if let (Some(name), Some("scale")) = (name, subresource) {
        return match method {
            Method::GET => super::scale_subresource::get(call, name).await,
            Method::PUT | Method::PATCH => super::scale_subresource::write(call, name, body).await,
            _ => Err(ApiError::method_not_supported(
                resource,
                &method.as_str().to_lowercase(),
            )),
        };
    }
    // `finalize` is written with PUT only (upstream's FinalizeREST is an Updater).
    if subresource == Some("finalize") && method != Method::PUT {
        let verb = if method == Method::PATCH {
            "patch"
        } else {
            "get"
        };
        return Err(ApiError::method_not_supported(resource, verb));
    }
    if subresource.is_some() && !matches!(method, Method::GET | Method::PUT | Method::PATCH) {
        return Err(ApiError::method_not_supported(
            resource,
            &method.as_str().to_lowercase(),
        ));
    }
    match (name, &method) {
        (None, &Method::GET) if call.param("watch") == "true" || call.param("watch") == "1" => {
            super::watch::watch(call).await
        }
        (None, &Method::GET) => list(call).await,
        (None, &Method::POST) if !all_namespaces => create(call, body).await,
        (None, &Method::DELETE)
            if !all_namespaces && resource.verbs.contains(&"deletecollection") =>
        {
            delete_collection(call, body).await
        }
        (Some(name), &Method::GET) => get(call, name).await,
        (Some(name), &Method::PUT) => update(call, name, body).await,
        (Some(name), &Method::PATCH) => patch(call, name, body).await,
        (Some(name), &Method::DELETE) => delete(call, name, body).await,
        _ => {
            let verb = match method {
                Method::PATCH => "patch",
                Method::PUT => "update",
                Method::POST => "create",
                Method::DELETE if name.is_none() => "deletecollection",
                Method::DELETE => "delete",
                _ => method.as_str(),
            };
            Err(ApiError::method_not_supported(
                resource,
                &verb.to_lowercase(),
            ))
        }
    }
}

/// A response with a body already encoded and its content type.
fn encoded(code: StatusCode, bytes: Vec<u8>, content_type: &'static str) -> Response {
    let mut response = (code, bytes).into_response();
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static(content_type),
    );
    response
}

/// Encodes a JSON value as the output asks (JSON or YAML).
pub(crate) fn respond_value(code: StatusCode, value: &Value, output: Output) -> Response {
    match output {
        Output::Yaml => encoded(
            code,
            serde_norway::to_string(value)
                .unwrap_or_default()
                .into_bytes(),
            "application/yaml",
        ),
        _ => super::json_response(code, value),
    }
}

/// Answers one object in the representation the client accepts.
fn respond_object(call: &Call, code: StatusCode, object: &Object) -> Result<Response, ApiError> {
    let output = negotiate::output(&call.headers, false)?;
    let value = match output {
        Output::Table(version) => {
            let rv = object::meta_str(object, "resourceVersion");
            crate::served::table(
                &call.state.crds,
                call.resource,
                &[object],
                json!({"resourceVersion": rv}),
                version,
                true,
            )
        }
        Output::Metadata(version) => table::partial_metadata(object, version),
        Output::Json | Output::Yaml => Value::Object(object.clone()),
    };
    let mut response = respond_value(code, &value, output);
    let warnings = call.warnings.lock().unwrap_or_else(|e| e.into_inner());
    super::add_warnings(&mut response, &warnings);
    Ok(response)
}

/// `GET` of a collection.
async fn list(call: Call) -> Result<Response, ApiError> {
    let output = negotiate::output(&call.headers, true)?;
    let resource = call.resource;
    let (labels, fields) = selectors(&call)?;
    let shard = crate::shard::selector(&call.params, call.state.features)?;
    // Any filter makes upstream's predicate non-empty: pages are filled from the rest of the
    // range, and remainingItemCount is not known.
    let filtered = !call.param("labelSelector").is_empty()
        || !call.param("fieldSelector").is_empty()
        || shard.is_some();
    let prefix = call.prefix();
    let limit = match call.param("limit") {
        "" => None,
        text => match text.parse::<i64>() {
            Ok(n) if n > 0 => Some(n as usize),
            Ok(_) => None,
            Err(_) => {
                return Err(ApiError::bad_request(format!(
                    "invalid limit {text:?}: must be an integer"
                )));
            }
        },
    };
    crate::list_options::validate(&call.params, false)?;
    let read = crate::list_options::list_read(&call.params, limit.unwrap_or(0))?;
    // A list of any recent state comes whole from the watch cache (upstream ignores limit).
    let limit = limit.filter(|_| !read.any_recent);
    if let Some(rv) = read.not_older_than {
        not_older_than(&call.state, rv).await?;
    }
    // The shard first, then labels and fields, as upstream's SelectionPredicate: objects
    // outside the shard are left out by the storage, before a decode (by the hashes the watch
    // cache keeps, without copying them, else from their stored bytes).
    let page = read_page(
        &call.state,
        resource,
        &prefix,
        &read,
        limit,
        shard.clone(),
        |item| !filtered || (labels.matches(item) && fields.matches(item)),
    )
    .await?;
    let (items, revision, next, count) = match page {
        Ok(page) => page,
        Err(expired) => return Ok(expired),
    };
    let mut metadata = json!({"resourceVersion": revision.to_string()});
    if let Some(next) = next {
        metadata["continue"] = Value::from(continue_token::encode(revision, &next));
        // Storage counts objects a filter would drop: upstream then gives no count.
        if !filtered && let Some(limit) = limit {
            metadata["remainingItemCount"] = Value::from(count.saturating_sub(limit));
        }
    }
    let body = match output {
        Output::Table(version) => {
            let refs: Vec<&Object> = items.iter().collect();
            crate::served::table(&call.state.crds, resource, &refs, metadata, version, true)
        }
        Output::Metadata(version) => json!({
            "kind": "PartialObjectMetadataList",
            "apiVersion": format!("meta.k8s.io/{version}"),
            "metadata": metadata,
            "items": items.iter().map(|o| {
                let mut p = table::partial_metadata(o, version);
                if let Some(m) = p.as_object_mut() { m.remove("kind"); m.remove("apiVersion"); }
                p
            }).collect::<Vec<_>>(),
        }),
        Output::Json | Output::Yaml => {
            // Only typed lists carry shardInfo (upstream's Table and PartialObjectMetadataList
            // conversions copy resourceVersion, continue and remainingItemCount only).
            let mut metadata = metadata;
            if let Some(shard) = &shard {
                metadata["shardInfo"] = crate::shard::shard_info(shard);
            }
            let items: Vec<Value> = items
                .into_iter()
                .map(|mut item| {
                    // Items of a typed list carry no type of their own.
                    item.remove("apiVersion");
                    item.remove("kind");
                    Value::Object(item)
                })
                .collect();
            json!({
                "kind": resource.list_kind,
                "apiVersion": resource.api_version(),
                "metadata": metadata,
                "items": items,
            })
        }
    };
    Ok(respond_value(StatusCode::OK, &body, output))
}

/// One page of a list: the items, the revision it was read at, the next start key (relative
/// to the prefix) when more remain, and the storage count of the last read's range.
type Page = (Vec<Object>, crate::storage::Revision, Option<String>, usize);

/// The most keys one storage read of a filtered list asks for (upstream's `maxLimit`).
const MAX_CHUNK: usize = 10_000;

/// Reads one page as kube-apiserver's etcd3 `GetList` does: storage reads of `limit` keys
/// (doubling up to [`MAX_CHUNK`] while a filter leaves the page short), all at the revision
/// of the first read, until the page is full or the range ends. The continue key follows the
/// last key *examined*, matching or not.
///
/// `Ok(Err(response))` is upstream's 410 for a compacted snapshot: a list from a continue
/// token gets `inconsistentContinue` with a token to go on at the latest revision.
async fn read_page(
    state: &AppState,
    resource: &'static Resource,
    prefix: &str,
    read: &crate::list_options::ListRead,
    limit: Option<usize>,
    shard: Option<ShardSelector>,
    keep: impl Fn(&Object) -> bool,
) -> Result<Result<Page, Response>, ApiError> {
    let mut revision = read.revision;
    let mut from = read
        .continue_from
        .as_ref()
        .map(|start| format!("{prefix}{start}"));
    let mut chunk = limit;
    let mut items = Vec::new();
    let versions = crate::crd::Versions::of(&state.crds, resource);
    loop {
        let mut request = RangeRequest::prefix(prefix);
        request.from_key = from.clone();
        request.limit = chunk;
        request.revision = revision;
        request.any_recent = read.any_recent;
        // The storage tells the shard's objects from the others (the watch cache by the
        // hashes it keeps), and passes on only those and the last key it examined.
        let selector = shard.clone();
        let response = match storage(state, move |s| match &selector {
            Some(selector) => s.range_in_shard(&request, selector),
            None => s.range(&request).map(ShardedRange::whole),
        })
        .await?
        {
            Ok(response) => response,
            Err(StorageError::Compacted { .. }) => {
                return Ok(Err(expired_list(read.continue_from.as_deref())));
            }
            Err(other) => return Err(ApiError::from_storage(other, resource, "")),
        };
        let mut more = response.more;
        // The last key examined: the range's last, unless the page fills before it (then the
        // object that filled it: the keys after it, in the shard or not, are the next page's).
        let mut last_key = response.last_key.as_deref();
        for kv in &response.kvs {
            let item = versions.read(kv).await?;
            if keep(&item) {
                items.push(item);
            }
            if limit.is_some_and(|l| items.len() >= l) {
                if response.last_key.as_deref() != Some(kv.key.as_str()) {
                    more = true;
                }
                last_key = Some(&kv.key);
                break;
            }
        }
        let at = *revision.get_or_insert(response.revision);
        let next = last_key.map(|k| format!("{}\u{0}", &k[prefix.len()..]));
        let full = limit.is_some_and(|l| items.len() >= l);
        if !more || limit.is_none() || full {
            return Ok(Ok((items, at, next.filter(|_| more), response.count)));
        }
        chunk = chunk.map(|c| (c * 2).min(MAX_CHUNK));
        from = next.map(|n| format!("{prefix}{n}"));
    }
}

/// Upstream's 410 for a list whose snapshot was compacted (k8s.io/apiserver
/// `pkg/storage/etcd3/errors.go`).
fn expired_list(continue_from: Option<&str>) -> Response {
    let mut status;
    match continue_from {
        Some(start) => {
            status = ApiError::expired(
                "The provided continue parameter is too old to display a consistent list result. \
                 You can start a new list without the continue parameter, or use the continue \
                 token in this response to retrieve the remainder of the results. Continuing \
                 with the provided token results in an inconsistent list - objects that were \
                 created, modified, or deleted between the time the first chunk was returned \
                 and now may show up in the list.",
            )
            .to_status();
            // rv -1: continue at the latest revision.
            status.metadata.insert(
                "continue".to_owned(),
                Value::from(continue_token::encode(-1, start)),
            );
        }
        None => {
            status = ApiError::expired("The resourceVersion for the provided list is too old.")
                .to_status();
        }
    }
    super::json_response(StatusCode::GONE, &status)
}

/// Checks that the store has reached `rv` (upstream waits a few seconds for it first; this
/// server answers at once).
async fn not_older_than(state: &AppState, rv: i64) -> Result<(), ApiError> {
    let current = storage(state, |s| s.current_revision())
        .await?
        .map_err(ApiError::internal)?;
    if rv > current {
        return Err(ApiError::too_large_resource_version(rv, current));
    }
    Ok(())
}

/// `GET` of one object.
async fn get(call: Call, name: &str) -> Result<Response, ApiError> {
    if let Some(rv) = crate::list_options::resource_version(&call.params)? {
        not_older_than(&call.state, rv).await?;
    }
    let kv = current(&call.state, call.resource, &call.key(name), name).await?;
    let object = crate::crd::Versions::of(&call.state.crds, call.resource)
        .read(&kv)
        .await?;
    respond_object(&call, StatusCode::OK, &object)
}

/// Decodes a create or update body (JSON or YAML) into an object of the call's resource.
fn decode_body(call: &Call, body: &[u8]) -> Result<Object, ApiError> {
    let kind = negotiate::body_type(&call.headers)?;
    match kind {
        BodyType::Json | BodyType::Yaml => {}
        BodyType::Protobuf => {
            let object = crate::protobuf::decode(body, call.resource)?;
            return object::check(Value::Object(object), call.resource);
        }
        _ => {
            let ct = call
                .headers
                .get(axum::http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            return Err(negotiate::unsupported_media_type(ct));
        }
    }
    let value = negotiate::parse_value(body, kind).map_err(|e| {
        ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {}): {e}",
            call.resource.kind
        ))
    })?;
    object::check(value, call.resource)
}

/// Checks the body's namespace against the URL's, and fills it in when absent.
fn set_namespace(call: &Call, object: &mut Object) -> Result<(), ApiError> {
    let Some(namespace) = &call.namespace else {
        object::metadata_mut(object).remove("namespace");
        return Ok(());
    };
    let given = object::meta_str(object, "namespace");
    if !given.is_empty() && given != namespace {
        return Err(ApiError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        ));
    }
    object::metadata_mut(object).insert("namespace".to_owned(), Value::from(namespace.as_str()));
    Ok(())
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

/// Checks that the namespace of a create exists and is not being deleted.
async fn check_namespace(call: &Call, name: &str) -> Result<(), ApiError> {
    let Some(namespace) = &call.namespace else {
        return Ok(());
    };
    // From the watch cache when it holds the namespace, as upstream's NamespaceLifecycle
    // admission reads its informer (a live lookup only for one it has not seen).
    // A running cache answers here, without a hand-off to the blocking pool.
    let key = keys::cluster(NAMESPACES.plural, namespace);
    let kv = match call.state.store.get_held(&key) {
        Some(kv) => kv,
        None => storage(&call.state, move |s| s.get_recent(&key))
            .await?
            .map_err(|e| ApiError::from_storage(e, &NAMESPACES, namespace))?
            .ok_or_else(|| ApiError::not_found(&NAMESPACES, namespace))?,
    };
    if object::stored_is_deleting(&kv)? {
        let mut error = ApiError::forbidden(
            call.resource,
            name,
            &format!(
                "unable to create new content in namespace {namespace} because it is being terminated"
            ),
        );
        if let Some(details) = error.details.as_mut() {
            details.causes.push(crate::status::StatusCause {
                reason: "NamespaceTerminating",
                message: format!("namespace {namespace} is being terminated"),
                field: "metadata.namespace".to_owned(),
            });
        }
        return Err(error);
    }
    Ok(())
}

/// What the registry does to a new object after mutating admission, before it validates it
/// (k8s.io/apiserver `registry/generic/registry/store.go`, `create`:
/// `rest.FillObjectMetaSystemFields` and the name generated from `generateName`, then
/// `rest.BeforeCreate`, which calls the strategy's `PrepareForCreate`): `uid`,
/// `creationTimestamp`, the name, and [`prepare_for_create`]. Answers the name.
fn fill_for_create(resource: &Resource, object: &mut Object) -> Result<String, ApiError> {
    let mut name = object::meta_str(object, "name").to_owned();
    let generate = object::meta_str(object, "generateName");
    if name.is_empty() && !generate.is_empty() {
        name = generate_name(generate)?;
    }
    let uid = crate::random::uuid_v4().map_err(ApiError::internal)?;
    let meta = object::metadata_mut(object);
    meta.insert("name".to_owned(), Value::from(name.as_str()));
    meta.insert("uid".to_owned(), Value::from(uid));
    meta.insert(
        "creationTimestamp".to_owned(),
        Value::from(object::now_timestamp()),
    );
    prepare_for_create(resource, object);
    Ok(name)
}

/// The strategies' `PrepareForCreate`, after the field manager and mutating admission (so
/// no manager owns what it sets, and a mutation cannot set it): the empty status of a
/// Deployment or a Service and the field defaults again ([`crate::defaults::on_create`]:
/// idempotent), `generation` 1 for the kinds that count it, a namespace's `kubernetes`
/// finalizer and phase, the workloads' statuses and a Job's selector
/// ([`crate::workloads::prepare_for_create`]), the volumes' and claims' `Pending` statuses
/// ([`crate::persistent_volumes::prepare_for_create`]). A custom resource's status goes in its
/// validation ([`crate::crd::custom::validate`]).
fn prepare_for_create(resource: &Resource, object: &mut Object) {
    crate::defaults::on_create(resource, object);
    if has_generation(resource) {
        object::metadata_mut(object).insert("generation".to_owned(), Value::from(1));
    }
    crate::workloads::prepare_for_create(resource, object);
    crate::persistent_volumes::prepare_for_create(resource, object);
    if resource.kind == "Namespace" {
        let spec = object
            .entry("spec")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(spec) = spec.as_object_mut() {
            spec.entry("finalizers")
                .or_insert_with(|| json!(["kubernetes"]));
        }
        object.insert("status".to_owned(), json!({"phase": "Active"}));
    }
}

/// `POST` to a collection.
async fn create(call: Call, body: Body) -> Result<Response, ApiError> {
    let resource = call.resource;
    let dry_run = call.dry_run()?;
    call.check_field_manager("CreateOptions", Vec::new())?;
    let body = read_body(&call.headers, body).await?;
    let mut object = decode_body(&call, &body)?;
    call.check_types(&object)?;
    call.check_unknown_fields(&mut object, &body)?;
    set_namespace(&call, &mut object)?;
    if let Some(warning) = duplicate_owners::dedup(&mut object, Stage::BeforeMutatingAdmission) {
        call.warn(warning);
    }
    // The name as the request gives it: empty for a create by `generateName`, whose name
    // the registry generates after mutating admission (`store.go`, `create`).
    let requested = object::meta_str(&object, "name").to_owned();
    let named = match requested.as_str() {
        "" => object::meta_str(&object, "generateName").to_owned(),
        _ => requested.clone(),
    };
    // NamespaceLifecycle, the first admission plugin; its denial names the object by its
    // name, else its generateName (`admission.NewForbidden`, `extractResourceName`).
    check_namespace(&call, &named).await?;
    object::set_type(&mut object, resource);
    crate::defaults::fields(resource, &mut object);
    // rest.WipeObjectMetaSystemFields (createHandler), and no resourceVersion on create.
    let meta = object::metadata_mut(&mut object);
    for field in [
        "creationTimestamp",
        "uid",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "resourceVersion",
    ] {
        meta.remove(field);
    }
    crate::crd::decode(&call.state.crds, resource, &mut object, None)?;
    let (manager, now) = (call.manager(), object::now_timestamp());
    let custom = call.state.crds.custom(resource);
    crate::apply::update(
        resource,
        None,
        &mut object,
        crate::apply::Writer {
            manager: &manager,
            subresource: None,
            now: &now,
            schema: crate::crd::apply_schema(custom.as_deref(), resource),
        },
    );
    admit_and_store(&call, object, &requested, dry_run).await
}

/// The end of a create, shared by `POST` and an apply that creates: admission (mutating, the
/// kind's validation, validating; `requested` is the name as the request gives it, empty
/// for a create by `generateName`), a Service's cluster IPs and node ports (under a lock held
/// until it is stored), then the object stored and answered with 201 (a dry run stores
/// nothing).
async fn admit_and_store(
    call: &Call,
    mut object: Object,
    requested: &str,
    dry_run: bool,
) -> Result<Response, ApiError> {
    let resource = call.resource;
    let mut warnings = Vec::new();
    super::admit::admit(
        super::admit::Admitted {
            state: &call.state,
            resource,
            subresource: None,
            operation: crate::admission::Operation::Create,
            old: None,
            dry_run,
        },
        requested,
        &mut object,
        |object, _| fill_for_create(resource, object),
        &mut warnings,
    )
    .await?;
    for w in warnings {
        call.warn(w);
    }
    let name = object::meta_str(&object, "name").to_owned();
    let key = call.key(&name);
    let _allocation = super::service_addresses::before_write(
        &call.state,
        resource,
        None,
        &key,
        &mut object,
        None,
        dry_run,
    )
    .await?;
    if dry_run {
        return respond_object(call, StatusCode::CREATED, &object);
    }
    let custom = call.state.crds.custom(resource);
    let versions = crate::crd::Versions::of(&call.state.crds, resource);
    let mut stored = versions.for_storage(object).await?;
    let bytes = object::encode_for_storage(&stored);
    let kv = storage(&call.state, move |s| s.create(&key, &bytes))
        .await?
        .map_err(|e| ApiError::from_storage(e, resource, &name))?;
    let created = if custom.is_none() {
        // A built-in kind is stored as served: the answer is the object written, with the
        // revision the store gave it (what decoding the stored bytes would give, without the
        // decode).
        object::set_type(&mut stored, resource);
        object::metadata_mut(&mut stored).insert(
            "resourceVersion".to_owned(),
            Value::from(kv.mod_revision.to_string()),
        );
        stored
    } else {
        versions.read(&kv).await?
    };
    respond_object(call, StatusCode::CREATED, &created)
}

fn respond_written(call: &Call, written: Written) -> Result<Response, ApiError> {
    match written {
        Written::Stored(o) | Written::Deleted(o) => respond_object(call, StatusCode::OK, &o),
    }
}

/// `PUT` of one object.
async fn update(call: Call, name: &str, body: Body) -> Result<Response, ApiError> {
    let dry_run = call.dry_run()?;
    call.check_field_manager("UpdateOptions", Vec::new())?;
    let body = read_body(&call.headers, body).await?;
    let mut object = decode_body(&call, &body)?;
    call.check_types(&object)?;
    call.check_unknown_fields(&mut object, &body)?;
    let given = object::meta_str(&object, "name");
    if given != name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({given}) does not match the name on the URL ({name})"
        )));
    }
    set_namespace(&call, &mut object)?;
    if let Some(warning) = duplicate_owners::dedup(&mut object, Stage::BeforeMutatingAdmission) {
        call.warn(warning);
    }
    if call.subresource.as_deref() == Some("finalize") {
        super::namespaces::check_finalize(&object, name)?;
    }
    let key = call.key(name);
    let manager = call.manager();
    // A uid in the body is a precondition (k8s.io/apiserver rest.DefaultUpdatedObjectInfo
    // `Preconditions`), which the storage layer checks against the stored object before
    // anything else (etcd3 `GuaranteedUpdate`, storage `Preconditions.Check`); its failure
    // is an invalid-object storage error, a 409 Conflict (`InterpretUpdateError`).
    let uid = object::meta_str(&object, "uid").to_owned();
    let written = modify(
        &call.state,
        call.resource,
        &key,
        name,
        WriteOptions {
            dry_run,
            manager: &manager,
            part: call.part(),
            update_managed_fields: true,
            subresource: call.subresource.as_deref(),
            warnings: Some(&call.warnings),
        },
        |old| {
            let stored = object::meta_str(&old, "uid");
            if !uid.is_empty() && uid != stored {
                return Err(failed_precondition(
                    call.resource,
                    &key,
                    name,
                    &format!("UID in precondition: {uid}, UID in object meta: {stored}"),
                ));
            }
            Ok(object.clone())
        },
    )
    .await?;
    respond_written(&call, written)
}

/// `PATCH` of one object: JSON patch, merge patch or strategic merge patch.
async fn patch(call: Call, name: &str, body: Body) -> Result<Response, ApiError> {
    let resource = call.resource;
    let dry_run = call.dry_run()?;
    let kind = negotiate::body_type(&call.headers)?;
    if kind == BodyType::ApplyPatch && call.headers.get(axum::http::header::CONTENT_TYPE).is_some()
    {
        return apply(call, name, body).await;
    }
    // Upstream's ValidatePatchOptions.
    let mut errors = Vec::new();
    if call.params.contains_key("force") {
        errors.push(FieldError::forbidden(
            "force",
            "may not be specified for non-apply patch",
        ));
    }
    call.check_field_manager("PatchOptions", errors)?;
    if !matches!(
        kind,
        BodyType::JsonPatch | BodyType::MergePatch | BodyType::StrategicMergePatch
    ) || call.headers.get(axum::http::header::CONTENT_TYPE).is_none()
    {
        return Err(ApiError::unsupported_media_type(
            "the body of the request was in an unknown format - accepted media types include: \
             application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, \
             application/strategic-merge-patch+json"
                .to_owned(),
        ));
    }
    if kind == BodyType::StrategicMergePatch && call.state.crds.custom(resource).is_some() {
        // Custom resources have no strategic merge patch, as upstream.
        return Err(ApiError::unsupported_media_type(
            "the body of the request was in an unknown format - accepted media types include: \
             application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
                .to_owned(),
        ));
    }
    let body = read_body(&call.headers, body).await?;
    // Read as bodies are read (encoding/json's rules and its 10,000 levels), not by
    // serde_json, which stops at 128; decoded as each patch type's Go type once the object
    // is found (upstream decodes in `applyPatch`, so a missing object answers 404 first).
    let parsed = negotiate::parse_value(&body, kind).map_err(|e| match e {
        negotiate::BodyError::Unreadable(e) => e,
    });
    let typed = call.field_validation()? != FieldValidation::Ignore;
    let key = call.key(name);
    let manager = call.manager();
    let written = modify(
        &call.state,
        resource,
        &key,
        name,
        WriteOptions {
            dry_run,
            manager: &manager,
            part: call.part(),
            update_managed_fields: true,
            subresource: call.subresource.as_deref(),
            warnings: Some(&call.warnings),
        },
        |old| {
            let mut target = Value::Object(old);
            let parsed = parsed.as_ref();
            match kind {
                BodyType::JsonPatch => {
                    let operations = patch_decode::json_patch_operations(parsed, &body, typed)?;
                    patch::apply_json_patch(&mut target, &operations)
                        .map_err(patch::JsonPatchError::status)?
                }
                BodyType::MergePatch => {
                    let object = patch_decode::merge_patch_object(parsed, typed)?;
                    patch::merge_patch(&mut target, object)
                }
                _ => {
                    if let Some(map) = patch_decode::strategic_patch_map(parsed)? {
                        patch::strategic_merge(&mut target, map, schema_of(resource))
                            .map_err(|e| e.status())?
                    }
                }
            }
            let mut patched = object::check(target, resource)?;
            call.check_patched_types(&patched)?;
            call.check_patched_fields(&mut patched, (&body[..], kind))?;
            // Upstream merges a patch's duplicate owner references after mutating admission
            // only, with that stage's warning.
            if let Some(warning) =
                duplicate_owners::dedup(&mut patched, Stage::AfterMutatingAdmission)
            {
                call.warn(warning);
            }
            Ok(patched)
        },
    )
    .await?;
    respond_written(&call, written)
}

/// `PATCH` with `application/apply-patch+yaml`: server-side apply.
async fn apply(call: Call, name: &str, body: Body) -> Result<Response, ApiError> {
    let resource = call.resource;
    let dry_run = call.dry_run()?;
    let manager = call.param("fieldManager").to_owned();
    // Upstream's ValidatePatchOptions.
    let mut errors = Vec::new();
    if manager.is_empty() {
        errors.push(FieldError::required(
            "fieldManager",
            "is required for apply patch",
        ));
    }
    call.check_field_manager("PatchOptions", errors)?;
    let force = call.param("force") == "true";
    let body = read_body(&call.headers, body).await?;
    let value = negotiate::parse_value(&body, BodyType::ApplyPatch)
        .map_err(|e| ApiError::bad_request(format!("error decoding YAML: {e}")))?;
    // apiVersion and kind are checked by the field manager, with its texts.
    let Value::Object(mut applied) = value else {
        return Err(ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {}): not a JSON object",
            resource.kind
        )));
    };
    for field in ["apiVersion", "kind"] {
        if applied
            .get(field)
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            return Err(ApiError::bad_request(format!("{field} must be set")));
        }
    }
    if object::meta_str(&applied, "name").is_empty() {
        object::metadata_mut(&mut applied).insert("name".to_owned(), Value::from(name));
    }
    if object::meta_str(&applied, "name") != name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({}) does not match the name on the URL ({name})",
            object::meta_str(&applied, "name")
        )));
    }
    // Values of the wrong type are checked by the apply itself first (structured-merge-diff's
    // validation: `failed to create typed patch object`, upstream's patch handler applies
    // the configuration before decoding the result), then by the decoding of the Go types
    // (`check_types`, for what that validation lets through).
    // The namespace is checked here but the configuration goes on as sent (upstream's
    // typed-conversion errors name the object as sent).
    set_namespace(&call, &mut applied.clone())?;
    let key = call.key(name);
    let now = object::now_timestamp();
    let subresource = call.subresource.clone();
    let custom = call.state.crds.custom(resource);
    let writer = crate::apply::Writer {
        manager: &manager,
        subresource: subresource.as_deref(),
        now: &now,
        schema: crate::crd::apply_schema(custom.as_deref(), resource),
    };
    let exists = {
        let k = key.clone();
        storage(&call.state, move |s| s.get(&k, None))
            .await?
            .map_err(|e| ApiError::from_storage(e, resource, name))?
            .0
            .is_some()
    };
    if !exists {
        if subresource.is_some() {
            return Err(ApiError::not_found(resource, name));
        }
        // Apply creates: the create pipeline with the applier owning every field (upstream's
        // apply patcher creates through the registry's `Update`, which prepares and
        // validates a new object as `create` does, after mutating admission).
        check_namespace(&call, name).await?;
        let mut object = crate::apply::apply(resource, None, &applied, writer, force)
            .map_err(ApiError::from_apply)?;
        call.check_types(&applied)?;
        call.check_apply_body(&body)?;
        set_namespace(&call, &mut object)?;
        object::set_type(&mut object, resource);
        crate::defaults::fields(resource, &mut object);
        crate::crd::decode(&call.state.crds, resource, &mut object, None)?;
        return admit_and_store(&call, object, name, dry_run).await;
    }
    let written = modify(
        &call.state,
        resource,
        &key,
        name,
        WriteOptions {
            dry_run,
            manager: &manager,
            part: call.part(),
            update_managed_fields: false,
            subresource: subresource.as_deref(),
            warnings: Some(&call.warnings),
        },
        |live| {
            let mut merged = crate::apply::apply(resource, Some(&live), &applied, writer, force)
                .map_err(ApiError::from_apply)?;
            call.check_types(&applied)?;
            call.check_apply_body(&body)?;
            // The applied configuration names no resourceVersion of its own unless given.
            let rv = object::meta_str(&applied, "resourceVersion").to_owned();
            let rv = if rv.is_empty() {
                object::meta_str(&live, "resourceVersion").to_owned()
            } else {
                rv
            };
            object::metadata_mut(&mut merged).insert("resourceVersion".to_owned(), Value::from(rv));
            Ok(merged)
        },
    )
    .await?;
    respond_written(&call, written)
}

fn delete_options(body: &[u8]) -> Result<DeleteOptions, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(DeleteOptions::default());
    }
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("error decoding DeleteOptions: {e}")))?;
    let pre = &value["preconditions"];
    // Upstream's ValidateDeleteOptions; the policy then picks the garbage collector's
    // finalizers (crate::propagation).
    let mut errors = Vec::new();
    match &value["propagationPolicy"] {
        Value::Null => {}
        Value::String(p) if matches!(p.as_str(), "Foreground" | "Background" | "Orphan") => {
            if value["orphanDependents"].is_boolean() {
                errors.push(FieldError::invalid_string(
                    "propagationPolicy",
                    p,
                    "orphanDependents and deletionPropagation cannot be both set",
                ));
            }
        }
        other => errors.push(FieldError::not_supported(
            "propagationPolicy",
            other.as_str().unwrap_or(""),
            &["Foreground", "Background", "Orphan", "nil"],
        )),
    }
    if !errors.is_empty() {
        return Err(ApiError::invalid_of(
            "DeleteOptions.meta.k8s.io",
            "meta.k8s.io",
            "DeleteOptions",
            "",
            errors,
        ));
    }
    let dry_run = match &value["dryRun"] {
        Value::Null => false,
        Value::Array(a) if a.is_empty() => false,
        Value::Array(a) if a.len() == 1 && a[0] == "All" => true,
        other => {
            return Err(ApiError::bad_request(format!(
                "Invalid dry run value: {other}; the only valid value is \"All\""
            )));
        }
    };
    Ok(DeleteOptions {
        uid: pre["uid"].as_str().map(str::to_owned),
        resource_version: pre["resourceVersion"].as_str().map(str::to_owned),
        dry_run,
        policy: crate::propagation::DeletePolicy {
            orphan_dependents: value["orphanDependents"].as_bool(),
            propagation: value["propagationPolicy"]
                .as_str()
                .and_then(crate::propagation::Propagation::parse),
        },
    })
}

/// `DELETE` of one object: the object while finalizers hold it, else a `Success` status.
async fn delete(call: Call, name: &str, body: Body) -> Result<Response, ApiError> {
    let resource = call.resource;
    let dry_run = call.dry_run()?;
    let body = read_body(&call.headers, body).await?;
    let options = delete_options(&body)?;
    let dry_run = dry_run || options.dry_run;
    let key = call.key(name);
    let (written, terminating) =
        delete_object(&call.state, resource, &key, name, &options, dry_run).await?;
    if terminating {
        super::namespaces::start_finalizing(call.state.clone(), name.to_owned());
    }
    match written {
        Written::Stored(object) => respond_object(&call, StatusCode::OK, &object),
        Written::Deleted(object) => {
            let status = Status::success(StatusDetails {
                name: name.to_owned(),
                group: resource.group.to_owned(),
                kind: resource.plural.to_owned(),
                uid: object::meta_str(&object, "uid").to_owned(),
                ..StatusDetails::default()
            });
            Ok(super::json_response(StatusCode::OK, &status))
        }
    }
}

/// `DELETE` of a collection: deletes every object the selectors match, answering the list of
/// what was deleted (or is now being deleted).
async fn delete_collection(call: Call, body: Body) -> Result<Response, ApiError> {
    let resource = call.resource;
    let dry_run = call.dry_run()?;
    let body = read_body(&call.headers, body).await?;
    let options = delete_options(&body)?;
    let dry_run = dry_run || options.dry_run;
    let (labels, fields) = selectors(&call)?;
    let request = RangeRequest::prefix(call.prefix());
    let response = storage(&call.state, move |s| s.range(&request))
        .await?
        .map_err(|e| ApiError::from_storage(e, resource, ""))?;
    let mut items = Vec::new();
    let versions = crate::crd::Versions::of(&call.state.crds, resource);
    for kv in &response.kvs {
        let item = versions.read(kv).await?;
        if !(labels.matches(&item) && fields.matches(&item)) {
            continue;
        }
        let name = object::meta_str(&item, "name").to_owned();
        match delete_object(&call.state, resource, &kv.key, &name, &options, dry_run).await {
            Ok((Written::Stored(mut o) | Written::Deleted(mut o), terminating)) => {
                if terminating {
                    super::namespaces::start_finalizing(call.state.clone(), name.clone());
                }
                o.remove("apiVersion");
                o.remove("kind");
                items.push(Value::Object(o));
            }
            Err(e) if e.code == 404 => {}
            Err(e) => return Err(e),
        }
    }
    let body = json!({
        "kind": resource.list_kind,
        "apiVersion": resource.api_version(),
        "metadata": {"resourceVersion": response.revision.to_string()},
        "items": items,
    });
    Ok(super::json_response(StatusCode::OK, &body))
}
