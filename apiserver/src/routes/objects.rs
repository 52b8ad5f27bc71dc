//! The resource verbs of every served kind: get, list, watch, create, update, patch, delete and
//! deletecollection, under `/api/v1/...` and `/apis/<group>/<version>/...`.
//!
//! The write path follows kube-apiserver's generic registry: decode, check the URL against the
//! body, set server-owned metadata, validate, then one storage transaction whose revision
//! becomes the `resourceVersion` the client sees (nothing is written under `dryRun=All`).

use std::collections::HashMap;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header::CONTENT_LENGTH};
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use serde_json::{Map, Value, json};

use crate::continue_token;
use crate::error::{ApiError, FieldError};
use crate::negotiate::{self, BodyType, Output};
use crate::object::{self, Object};
use crate::openapi::Schema;
use crate::patch;
use crate::resource::{NAMESPACES, Resource};
use crate::selectors::{FieldSelector, LabelSelector};
use crate::state::AppState;
use crate::status::{Status, StatusDetails};
use crate::storage::{KeyValue, RangeRequest, Storage, StorageError, keys};
use crate::table;
use kcel_stdlib::kubernetes::format::messages;

/// The largest request body accepted, as kube-apiserver's limit: 3 MiB.
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// How often a write without a resourceVersion precondition retries after losing a race.
const UNCONDITIONAL_RETRIES: usize = 5;

/// The characters of a `generateName` suffix, as upstream picks them.
const NAME_SUFFIX_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// Runs a storage call on the blocking pool.
pub(crate) async fn storage<T: Send + 'static>(
    state: &AppState,
    call: impl FnOnce(&dyn Storage) -> T + Send + 'static,
) -> Result<T, ApiError> {
    let store = state.store.clone();
    tokio::task::spawn_blocking(move || call(&*store))
        .await
        .map_err(ApiError::internal)
}

/// How much of an oversized body is read and dropped before answering 413, so that a client
/// still writing it reads the answer instead of a reset connection.
const MAX_DRAINED_BYTES: usize = 4 * MAX_BODY_BYTES;

/// The request body of a scale write, at most [`MAX_BODY_BYTES`].
pub(crate) async fn read_body_for_scale(
    headers: &HeaderMap,
    body: Body,
) -> Result<Bytes, ApiError> {
    read_body(headers, body).await
}

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

/// One request to a resource: what the URL names, its query and headers.
pub(crate) struct Call {
    pub state: AppState,
    pub resource: &'static Resource,
    /// The namespace in the URL (None for cluster-scoped resources and all-namespace lists).
    pub namespace: Option<String>,
    pub params: HashMap<String, String>,
    pub headers: HeaderMap,
    /// The warnings for the response (`Warning: 299 - "..."`, one per distinct text).
    pub warnings: std::sync::Mutex<Vec<String>>,
    /// The subresource in the URL (`status`, `scale`), if any.
    pub subresource: Option<String>,
    /// Whether the method is PUT.
    pub put: bool,
}

/// What the `fieldValidation` parameter asks for unknown fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldValidation {
    Ignore,
    Warn,
    Strict,
}

impl Call {
    /// Adds a warning for the response (once per distinct text).
    pub(crate) fn warn(&self, text: String) {
        let mut warnings = self.warnings.lock().unwrap_or_else(|e| e.into_inner());
        if !warnings.contains(&text) {
            warnings.push(text);
        }
    }

    /// The write hook of custom resources and CRDs ([`crate::crd::admit`]), its warnings
    /// added to the response's.
    pub(crate) fn admit(&self, object: &mut Object, old: Option<&Object>) -> Result<(), ApiError> {
        let mut warnings = Vec::new();
        crate::crd::admit(self.resource, object, old, &mut warnings)?;
        for w in warnings {
            self.warn(w);
        }
        Ok(())
    }

    /// Whether the query parameter `name` is `value`.
    pub(crate) fn param_is(&self, name: &str, value: &str) -> bool {
        self.param(name) == value
    }

    /// Whether this subresource write is a PUT (else a PATCH).
    pub(crate) fn subresource_method_is_put(&self) -> bool {
        self.put
    }

    /// The `fieldManager` query parameter as given.
    pub(crate) fn field_manager_param(&self) -> &str {
        self.param("fieldManager")
    }

    /// The part of the object a write to this URL may change.
    pub(crate) fn part(&self) -> Part {
        match self.subresource.as_deref() {
            Some("status") => Part::Status,
            _ => Part::Main,
        }
    }

    /// The field manager of a write: `fieldManager`, else from the User-Agent.
    pub(crate) fn manager(&self) -> String {
        let agent = self
            .headers
            .get(axum::http::header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        crate::apply::manager_name(self.param("fieldManager"), agent)
    }

    /// Upstream's ValidateFieldManager for the write's options (`CreateOptions`,
    /// `UpdateOptions`, `PatchOptions`), with the options' other errors: at most 128 bytes,
    /// printable characters only.
    pub(crate) fn check_field_manager(
        &self,
        options: &str,
        mut errors: Vec<FieldError>,
    ) -> Result<(), ApiError> {
        let manager = self.param("fieldManager");
        if manager.len() > 128 {
            errors.push(FieldError::too_long("fieldManager", 128));
        }
        for (i, c) in manager.char_indices() {
            if c.is_control() || (c.is_whitespace() && c != ' ') {
                errors.push(FieldError::invalid_string(
                    "fieldManager",
                    manager,
                    &format!("invalid character U+{:04X} (at position {i})", c as u32),
                ));
            }
        }
        if errors.is_empty() {
            return Ok(());
        }
        Err(ApiError::invalid_of(
            &format!("{options}.meta.k8s.io"),
            "meta.k8s.io",
            options,
            "",
            errors,
        ))
    }

    /// Upstream's strict decoding of an apply body, after the apply itself: keys repeated in
    /// one map are a 400 under Strict, a warning each under Warn.
    fn check_apply_body(&self, body: &[u8]) -> Result<(), ApiError> {
        let validation = self.field_validation()?;
        if validation == FieldValidation::Ignore {
            return Ok(());
        }
        let found = crate::apply::strict::repeated_keys(body);
        if found.is_empty() {
            return Ok(());
        }
        if validation == FieldValidation::Strict {
            return Err(ApiError::bad_request(crate::apply::strict::strict_error(
                &found,
            )));
        }
        for text in found {
            self.warn(text);
        }
        Ok(())
    }

    /// `fieldValidation`: absent means Warn, as upstream.
    fn field_validation(&self) -> Result<FieldValidation, ApiError> {
        match self.param("fieldValidation") {
            "" | "Warn" => Ok(FieldValidation::Warn),
            "Ignore" => Ok(FieldValidation::Ignore),
            "Strict" => Ok(FieldValidation::Strict),
            other => Err(ApiError::bad_request(format!(
                "fieldValidation must be one of Ignore, Warn or Strict, got {other:?}"
            ))),
        }
    }

    /// Drops the unknown fields of a body (or a patched object), as upstream's typed decoding
    /// does, and reports them as `fieldValidation` asks: warnings (Warn), an error (Strict:
    /// `strict` makes it), or not at all (Ignore).
    fn prune_unknown_fields(
        &self,
        object: &mut Object,
        raw_json: Option<&[u8]>,
        strict: impl FnOnce(&Object, String) -> ApiError,
    ) -> Result<(), ApiError> {
        let validation = self.field_validation()?;
        if let Some(crd) = crate::crd::custom(self.resource) {
            let original = (validation == FieldValidation::Strict).then(|| object.clone());
            let unknown = crate::crd::custom::prune_unknown(&crd, self.resource, object)?;
            let texts = unknown
                .iter()
                .map(|f| format!("unknown field \"{f}\""))
                .collect();
            return self.report_unknown(validation, texts, &original.unwrap_or_default(), strict);
        }
        let Some(schema) = Schema::of(self.resource) else {
            return Ok(());
        };
        let mut value = Value::Object(std::mem::take(object));
        let original = (validation == FieldValidation::Strict).then(|| value.clone());
        let unknown = schema.prune_unknown(&mut value);
        let original = match original {
            Some(Value::Object(o)) => o,
            _ => Object::new(),
        };
        if let Value::Object(pruned) = value {
            *object = pruned;
        }
        if validation == FieldValidation::Ignore {
            return Ok(());
        }
        // A JSON body is walked as sent, for duplicates and the document's order.
        let texts: Vec<String> = match raw_json.map(|raw| schema.strict_errors(raw)) {
            Some(Ok(texts)) => texts,
            _ => unknown
                .iter()
                .map(|f| format!("unknown field \"{f}\""))
                .collect(),
        };
        self.report_unknown(validation, texts, &original, strict)
    }

    /// Reports unknown (or duplicate) fields as `fieldValidation` asks: warnings (Warn), an
    /// error made by `strict` (Strict), or not at all (Ignore).
    fn report_unknown(
        &self,
        validation: FieldValidation,
        texts: Vec<String>,
        original: &Object,
        strict: impl FnOnce(&Object, String) -> ApiError,
    ) -> Result<(), ApiError> {
        match validation {
            _ if texts.is_empty() => Ok(()),
            FieldValidation::Ignore => Ok(()),
            FieldValidation::Strict => Err(strict(
                original,
                format!("strict decoding error: {}", texts.join(", ")),
            )),
            FieldValidation::Warn => {
                for text in texts {
                    self.warn(text);
                }
                Ok(())
            }
        }
    }

    /// A create or update body whose values do not fit the schema's types: upstream's decoder
    /// error, a 400.
    fn check_types(&self, object: &Object) -> Result<(), ApiError> {
        let r = self.resource;
        let Some(schema) = Schema::of(r) else {
            return Ok(());
        };
        match schema.type_error(&Value::Object(object.clone()), r.kind) {
            None => Ok(()),
            Some(e) => Err(ApiError::bad_request(format!(
                "{} in version \"{}\" cannot be handled as a {}: {e}",
                r.kind, r.version, r.kind
            ))),
        }
    }

    /// A patched object whose values do not fit the schema's types: upstream's 422 naming
    /// the patched object.
    fn check_patched_types(&self, object: &Object) -> Result<(), ApiError> {
        let Some(schema) = Schema::of(self.resource) else {
            return Ok(());
        };
        let value = Value::Object(object.clone());
        match schema.type_error(&value, self.resource.kind) {
            None => Ok(()),
            Some(e) => Err(ApiError::invalid_patch_fields(&value.to_string(), &e)),
        }
    }

    /// [`Call::prune_unknown_fields`] for a create or update body (Strict: upstream's decoder
    /// error, a 400).
    fn check_unknown_fields(&self, object: &mut Object, body: &[u8]) -> Result<(), ApiError> {
        let r = self.resource;
        let json = negotiate::body_type(&self.headers)? == BodyType::Json;
        self.prune_unknown_fields(object, json.then_some(body), |_, detail| {
            ApiError::bad_request(format!(
                "{} in version \"{}\" cannot be handled as a {}: {detail}",
                r.kind, r.version, r.kind
            ))
        })
    }

    /// [`Call::prune_unknown_fields`] for a patched object (Strict: upstream's 422 naming the
    /// patched object).
    fn check_patched_fields(&self, object: &mut Object) -> Result<(), ApiError> {
        self.prune_unknown_fields(object, None, |original, detail| {
            ApiError::invalid_patch_fields(&Value::Object(original.clone()).to_string(), &detail)
        })
    }

    fn param(&self, name: &str) -> &str {
        self.params.get(name).map(String::as_str).unwrap_or("")
    }

    fn dry_run(&self) -> Result<bool, ApiError> {
        match self.param("dryRun") {
            "" => Ok(false),
            "All" => Ok(true),
            other => Err(ApiError::bad_request(format!(
                "Invalid dry run value: {other:?}; the only valid value is \"All\""
            ))),
        }
    }

    pub(crate) fn key(&self, name: &str) -> String {
        match &self.namespace {
            Some(ns) if self.resource.namespaced => {
                keys::namespaced(&crate::served::storage_resource(self.resource), ns, name)
            }
            _ => keys::cluster(&crate::served::storage_resource(self.resource), name),
        }
    }

    pub(crate) fn prefix(&self) -> String {
        keys::prefix(
            &crate::served::storage_resource(self.resource),
            self.namespace.as_deref(),
        )
    }
}

/// Answers a request under `/api/v1/<rest>` or `/apis/<group>/<version>/<rest>`.
pub async fn dispatch(
    state: AppState,
    group: &str,
    version: &str,
    rest: &str,
    request: Request,
) -> Result<Response, ApiError> {
    let segments: Vec<&str> = rest.split('/').collect();
    let served = |plural: &str| crate::served::find(group, version, plural).is_some();
    let (plural, namespace, name, subresource) = match segments.as_slice() {
        [plural] => (*plural, None, None, None),
        ["namespaces", ns, plural] if served(plural) => (*plural, Some(*ns), None, None),
        ["namespaces", ns, plural, name] => (*plural, Some(*ns), Some(*name), None),
        ["namespaces", ns, plural, name, sub] => (*plural, Some(*ns), Some(*name), Some(*sub)),
        [plural, name] => (*plural, None, Some(*name), None),
        [plural, name, sub] => (*plural, None, Some(*name), Some(*sub)),
        _ => return Err(ApiError::no_such_path()),
    };
    let resource =
        crate::served::find(group, version, plural).ok_or_else(ApiError::no_such_path)?;
    match subresource {
        None => {}
        Some("status") if resource.status => {}
        Some("scale") if resource.scale => {}
        Some(_) => return Err(ApiError::no_such_path()),
    }
    if resource.namespaced != namespace.is_some() && (name.is_some() || !resource.namespaced) {
        return Err(ApiError::no_such_path());
    }
    let (parts, body) = request.into_parts();
    let params = axum::extract::Query::<HashMap<String, String>>::try_from_uri(&parts.uri)
        .map(|q| q.0)
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    let call = Call {
        state,
        resource,
        namespace: namespace.map(str::to_owned),
        params,
        headers: parts.headers,
        warnings: std::sync::Mutex::new(Vec::new()),
        subresource: subresource.map(str::to_owned),
        put: parts.method == Method::PUT,
    };
    if let Some(warning) = crate::crd::deprecation(resource) {
        call.warn(warning);
    }
    let all_namespaces = resource.namespaced && namespace.is_none();
    let method = parts.method;
    if let (Some(name), Some("scale")) = (name, subresource) {
        return match method {
            Method::GET => super::scale::get(call, name).await,
            Method::PUT | Method::PATCH => super::scale::write(call, name, body).await,
            _ => Err(ApiError::method_not_supported(
                resource,
                &method.as_str().to_lowercase(),
            )),
        };
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

/// The selectors of a list or watch.
pub(crate) fn selectors(call: &Call) -> Result<(LabelSelector, FieldSelector), ApiError> {
    let labels =
        LabelSelector::parse(call.param("labelSelector")).map_err(ApiError::bad_request)?;
    let fields = FieldSelector::parse(call.param("fieldSelector"), call.resource.kind)
        .map_err(ApiError::bad_request)?;
    Ok((labels, fields))
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
    if let Some(rv) = read.not_older_than {
        not_older_than(&call.state, rv).await?;
    }
    // Objects outside the shard are left out from their stored bytes, before a full decode.
    let in_shard = |bytes: &[u8]| {
        shard
            .as_ref()
            .is_none_or(|s| crate::shard::matches_stored(s, bytes))
    };
    let page = read_page(
        &call.state,
        resource,
        &prefix,
        &read,
        limit,
        in_shard,
        |item| {
            // The shard first, then labels and fields, as upstream's SelectionPredicate.
            !filtered
                || (shard.as_ref().is_none_or(|s| s.matches(item))
                    && labels.matches(item)
                    && fields.matches(item))
        },
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
            crate::served::table(resource, &refs, metadata, version, true)
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
    keep_stored: impl Fn(&[u8]) -> bool,
    keep: impl Fn(&Object) -> bool,
) -> Result<Result<Page, Response>, ApiError> {
    let mut revision = read.revision;
    let mut from = read
        .continue_from
        .as_ref()
        .map(|start| format!("{prefix}{start}"));
    let mut chunk = limit;
    let mut items = Vec::new();
    loop {
        let mut request = RangeRequest::prefix(prefix);
        request.from_key = from.clone();
        request.limit = chunk;
        request.revision = revision;
        let response = match storage(state, move |s| s.range(&request)).await? {
            Ok(response) => response,
            Err(StorageError::Compacted { .. }) => {
                return Ok(Err(expired_list(read.continue_from.as_deref())));
            }
            Err(other) => return Err(ApiError::from_storage(other, resource, "")),
        };
        let mut more = response.more;
        let mut last_key = None;
        for kv in &response.kvs {
            if limit.is_some_and(|l| items.len() >= l) {
                more = true;
                break;
            }
            last_key = Some(kv.key.as_str());
            if !keep_stored(&kv.value) {
                continue;
            }
            let item = object::from_storage(kv, resource)?;
            if keep(&item) {
                items.push(item);
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

/// The live object under `key`, or NotFound.
pub(crate) async fn current(
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
    let object = object::from_storage(&kv, call.resource)?;
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

/// Validates an object's name as upstream does: a DNS-1123 label for namespaces, a DNS-1035
/// label for services, a DNS-1123 subdomain for the other served kinds.
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
    let problems = match resource.kind {
        "Namespace" => messages("dns1123Label", name),
        "Service" => messages("dns1035Label", name),
        _ => messages("dns1123Subdomain", name),
    };
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

/// Checks that the namespace of a create exists and is not being deleted.
async fn check_namespace(call: &Call, name: &str) -> Result<(), ApiError> {
    let Some(namespace) = &call.namespace else {
        return Ok(());
    };
    let key = keys::cluster(NAMESPACES.plural, namespace);
    let kv = current(&call.state, &NAMESPACES, &key, namespace).await?;
    let ns = object::from_storage(&kv, &NAMESPACES)?;
    if !object::meta_str(&ns, "deletionTimestamp").is_empty() {
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

/// Defaults a kind's fields at create, as upstream's defaulting does for the ones clients
/// print (types, phases, namespace finalizers).
/// What upstream's create strategies set after the field manager has run (so no manager
/// owns it): a namespace's `kubernetes` finalizer and phase.
fn prepare_for_create(resource: &Resource, object: &mut Object) {
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

fn default_on_create(resource: &Resource, object: &mut Object) {
    match resource.kind {
        "Namespace" => {
            // Upstream labels every namespace with its name.
            let name = object::meta_str(object, "name").to_owned();
            let meta = object::metadata_mut(object);
            let labels = meta
                .entry("labels")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(labels) = labels.as_object_mut() {
                labels.insert("kubernetes.io/metadata.name".to_owned(), Value::from(name));
            }
        }
        "Secret" => {
            object.entry("type").or_insert_with(|| json!("Opaque"));
        }
        "Service" => {
            if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
                spec.entry("type").or_insert_with(|| json!("ClusterIP"));
                spec.entry("sessionAffinity")
                    .or_insert_with(|| json!("None"));
                if let Some(ports) = spec.get_mut("ports").and_then(Value::as_array_mut) {
                    for port in ports.iter_mut().filter_map(Value::as_object_mut) {
                        port.entry("protocol").or_insert_with(|| json!("TCP"));
                        if let Some(p) = port.get("port").cloned() {
                            port.entry("targetPort").or_insert(p);
                        }
                    }
                }
            }
        }
        "Deployment" => {
            default_deployment(object);
            object.insert("status".to_owned(), json!({}));
        }
        _ => {}
    }
    if resource.kind == "Service" {
        object.insert("status".to_owned(), json!({"loadBalancer": {}}));
    }
}

/// Sets `field` of `map` to `value` if it is absent (nothing if `map` is not an object).
fn default_field(map: &mut Value, field: &str, value: Value) {
    if let Some(m) = map.as_object_mut() {
        m.entry(field).or_insert(value);
    }
}

/// The object under `field` of `map`, made empty if absent; `None` if either is no object.
fn child_object<'a>(map: &'a mut Value, field: &str) -> Option<&'a mut Value> {
    let child = map
        .as_object_mut()?
        .entry(field)
        .or_insert_with(|| Value::Object(Map::new()));
    child.is_object().then_some(child)
}

/// Upstream's defaults for an apps/v1 Deployment and its pod template (the ones `kubectl
/// describe` and `rollout` read).
fn default_deployment(object: &mut Object) {
    let spec = object
        .entry("spec")
        .or_insert_with(|| Value::Object(Map::new()));
    if !spec.is_object() {
        return; // not a Deployment's shape: validation is not this function's job
    }
    default_field(spec, "replicas", json!(1));
    default_field(spec, "revisionHistoryLimit", json!(10));
    default_field(spec, "progressDeadlineSeconds", json!(600));
    if let Some(strategy) = child_object(spec, "strategy") {
        default_field(strategy, "type", json!("RollingUpdate"));
        if strategy["type"] == "RollingUpdate"
            && let Some(rolling) = child_object(strategy, "rollingUpdate")
        {
            default_field(rolling, "maxUnavailable", json!("25%"));
            default_field(rolling, "maxSurge", json!("25%"));
        }
    }
    let Some(pod) = child_object(spec, "template").and_then(|t| {
        if t.get("spec").is_some_and(Value::is_object) {
            t.get_mut("spec")
        } else {
            None
        }
    }) else {
        return;
    };
    default_field(pod, "restartPolicy", json!("Always"));
    default_field(pod, "terminationGracePeriodSeconds", json!(30));
    default_field(pod, "dnsPolicy", json!("ClusterFirst"));
    default_field(pod, "securityContext", json!({}));
    default_field(pod, "schedulerName", json!("default-scheduler"));
    if let Some(containers) = pod.get_mut("containers").and_then(Value::as_array_mut) {
        for container in containers.iter_mut().filter(|c| c.is_object()) {
            let image = container["image"].as_str().unwrap_or("").to_owned();
            let tag = image
                .rsplit('/')
                .next()
                .and_then(|last| last.split_once(':'))
                .map(|(_, t)| t);
            let digest = image.contains('@');
            let policy = if !digest && tag.is_none_or(|t| t == "latest") {
                "Always"
            } else {
                "IfNotPresent"
            };
            default_field(container, "imagePullPolicy", json!(policy));
            default_field(
                container,
                "terminationMessagePath",
                json!("/dev/termination-log"),
            );
            default_field(container, "terminationMessagePolicy", json!("File"));
            if let Some(ports) = container.get_mut("ports").and_then(Value::as_array_mut) {
                for port in ports.iter_mut().filter(|p| p.is_object()) {
                    default_field(port, "protocol", json!("TCP"));
                }
            }
        }
    }
}

/// Whether the kind counts `metadata.generation` (bumped when anything but metadata and
/// status changes).
fn has_generation(resource: &Resource) -> bool {
    matches!(resource.kind, "Deployment" | "Service")
        || crate::crd::storage_resource(resource).is_some()
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
    let mut name = object::meta_str(&object, "name").to_owned();
    let generate = object::meta_str(&object, "generateName").to_owned();
    if name.is_empty() && !generate.is_empty() {
        name = generate_name(&generate)?;
    }
    validate_name(resource, &name)?;
    check_namespace(&call, &name).await?;
    let uid = crate::random::uuid_v4().map_err(ApiError::internal)?;
    object::set_type(&mut object, resource);
    object::metadata_mut(&mut object).insert("name".to_owned(), Value::from(name.as_str()));
    default_on_create(resource, &mut object);
    let generation = has_generation(resource);
    let meta = object::metadata_mut(&mut object);
    for field in [
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "resourceVersion",
    ] {
        meta.remove(field);
    }
    meta.insert("name".to_owned(), Value::from(name.as_str()));
    meta.insert("uid".to_owned(), Value::from(uid));
    meta.insert(
        "creationTimestamp".to_owned(),
        Value::from(object::now_timestamp()),
    );
    if generation {
        meta.insert("generation".to_owned(), Value::from(1));
    }
    call.admit(&mut object, None)?;
    let (manager, now) = (call.manager(), object::now_timestamp());
    let custom = crate::crd::custom(resource);
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
    prepare_for_create(resource, &mut object);
    if dry_run {
        return respond_object(&call, StatusCode::CREATED, &object);
    }
    let key = call.key(&name);
    let bytes = object::encode_for_storage(&object);
    let kv = storage(&call.state, move |s| s.create(&key, &bytes))
        .await?
        .map_err(|e| ApiError::from_storage(e, resource, &name))?;
    let created = object::from_storage(&kv, resource)?;
    respond_object(&call, StatusCode::CREATED, &created)
}

/// Which part of an object a write may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// The main resource: for kinds with a status subresource, the status stays as it was.
    Main,
    /// The status subresource: only the status changes.
    Status,
    /// Everything (the server's own controllers).
    All,
}

impl Part {
    /// The new state with what this part may not change taken from `old`.
    fn keep(self, resource: &Resource, old: &Object, mut new: Object) -> Object {
        match self {
            Part::Main if resource.status => {
                match old.get("status") {
                    Some(status) => new.insert("status".to_owned(), status.clone()),
                    None => new.remove("status"),
                };
                new
            }
            Part::Status => {
                let mut kept = old.clone();
                match new.remove("status") {
                    Some(status) => kept.insert("status".to_owned(), status),
                    None => kept.remove("status"),
                };
                // The managedFields of the write (apply computes them itself) go along.
                match new.get("metadata").and_then(|m| m.get("managedFields")) {
                    Some(fields) => {
                        let fields = fields.clone();
                        object::metadata_mut(&mut kept).insert("managedFields".to_owned(), fields)
                    }
                    None => object::metadata_mut(&mut kept).remove("managedFields"),
                };
                // The resourceVersion given, if any, still guards the write.
                let rv = object::meta_str(&new, "resourceVersion").to_owned();
                object::metadata_mut(&mut kept)
                    .insert("resourceVersion".to_owned(), Value::from(rv));
                kept
            }
            _ => new,
        }
    }
}

/// How [`modify`] writes: dry run or not, for which manager, which part of the object.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WriteOptions<'a> {
    /// Under `dryRun=All` nothing is stored.
    pub dry_run: bool,
    /// The field manager.
    pub manager: &'a str,
    /// The part of the object the write may change.
    pub part: Part,
    /// Whether the write is an Update for managedFields (not for server-side apply, which
    /// keeps them itself).
    pub update_managed_fields: bool,
    /// The subresource written, recorded in the writer's managedFields entry.
    pub subresource: Option<&'a str>,
    /// Where the write hook's warnings go ([`crate::crd::admit`]); `None` drops them.
    pub warnings: Option<&'a std::sync::Mutex<Vec<String>>>,
}

/// What a write did to the object.
pub(crate) enum Written {
    /// The object as stored (or as it would be, under dry run).
    Stored(Object),
    /// The last finalizer of an object being deleted went away, so it was deleted.
    Deleted(Object),
}

/// Carries the server-owned metadata of `old` into `new` and bumps `generation` when more
/// than metadata and status changed.
fn keep_server_fields(resource: &Resource, new: &mut Object, old: &Object) {
    let changed_spec = {
        let strip = |o: &Object| {
            let mut o = o.clone();
            o.remove("metadata");
            o.remove("status");
            o
        };
        strip(new) != strip(old)
    };
    let meta = object::metadata_mut(new);
    let old_meta = old.get("metadata").and_then(Value::as_object);
    for field in [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
    ] {
        match old_meta.and_then(|m| m.get(field)) {
            Some(v) => meta.insert(field.to_owned(), v.clone()),
            None => meta.remove(field),
        };
    }
    if has_generation(resource) && changed_spec {
        let g = meta.get("generation").and_then(Value::as_i64).unwrap_or(0);
        meta.insert("generation".to_owned(), Value::from(g + 1));
    }
}

fn non_empty_list(value: Option<&Value>) -> bool {
    value
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty())
}

/// Whether finalizers hold the object back from deletion: `metadata.finalizers`, and for a
/// namespace also `spec.finalizers`.
fn held(resource: &Resource, object: &Object) -> bool {
    non_empty_list(object.get("metadata").and_then(|m| m.get("finalizers")))
        || (resource.kind == "Namespace"
            && non_empty_list(object.get("spec").and_then(|s| s.get("finalizers"))))
}

/// Reads the object, lets `change` make its new state, and writes it if the object is still
/// at the revision read (retrying a lost race when the new state names no resourceVersion of
/// its own). A resourceVersion in the new state that is not the current one is a Conflict.
pub(crate) async fn modify(
    state: &AppState,
    resource: &'static Resource,
    key: &str,
    name: &str,
    options: WriteOptions<'_>,
    change: impl Fn(Object) -> Result<Object, ApiError>,
) -> Result<Written, ApiError> {
    let WriteOptions {
        dry_run,
        manager,
        part,
        update_managed_fields,
        subresource,
        warnings,
    } = options;
    for _ in 0..UNCONDITIONAL_RETRIES {
        let old_kv = current(state, resource, key, name).await?;
        let old = object::from_storage(&old_kv, resource)?;
        let mut new = part.keep(resource, &old, change(old.clone())?);
        let given = object::meta_str(&new, "resourceVersion").to_owned();
        let conditional = !given.is_empty() && given != object::meta_str(&old, "resourceVersion");
        if conditional {
            let valid = given.parse::<i64>().is_ok();
            if !valid {
                return Err(ApiError::bad_request(format!(
                    "metadata.resourceVersion: Invalid value: {given:?}: must be a valid resourceVersion"
                )));
            }
            return Err(ApiError::conflict(resource, name));
        }
        object::set_type(&mut new, resource);
        if object::meta_str(&new, "name") != name {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({}) does not match the name on the URL ({name})",
                object::meta_str(&new, "name")
            )));
        }
        let mut hook_warnings = Vec::new();
        crate::crd::admit(resource, &mut new, Some(&old), &mut hook_warnings)?;
        if let Some(sink) = warnings {
            let mut sink = sink.lock().unwrap_or_else(|e| e.into_inner());
            for w in hook_warnings {
                if !sink.contains(&w) {
                    sink.push(w);
                }
            }
        }
        keep_server_fields(resource, &mut new, &old);
        if update_managed_fields {
            let now = object::now_timestamp();
            let custom = crate::crd::custom(resource);
            crate::apply::update(
                resource,
                Some(&old),
                &mut new,
                crate::apply::Writer {
                    manager,
                    subresource,
                    now: &now,
                    schema: crate::crd::apply_schema(custom.as_deref(), resource),
                },
            );
        }
        let finish_delete =
            !object::meta_str(&new, "deletionTimestamp").is_empty() && !held(resource, &new);
        if dry_run {
            return Ok(Written::Stored(new));
        }
        let (k, revision) = (key.to_owned(), old_kv.mod_revision);
        if finish_delete {
            match storage(state, move |s| s.delete(&k, revision)).await? {
                Ok(_) => return Ok(Written::Deleted(new)),
                Err(StorageError::Conflict { .. }) if given.is_empty() => continue,
                Err(e) => return Err(ApiError::from_storage(e, resource, name)),
            }
        }
        let bytes = object::encode_for_storage(&new);
        // A write that changes nothing is not written (no new resourceVersion), as upstream.
        if bytes == object::encode_for_storage(&old) {
            return Ok(Written::Stored(old));
        }
        match storage(state, move |s| s.update(&k, &bytes, revision)).await? {
            Ok(kv) => return Ok(Written::Stored(object::from_storage(&kv, resource)?)),
            Err(StorageError::Conflict { .. }) if given.is_empty() => continue,
            Err(e) => return Err(ApiError::from_storage(e, resource, name)),
        }
    }
    Err(ApiError::conflict(resource, name))
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
    let key = call.key(name);
    let manager = call.manager();
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
        |_| Ok(object.clone()),
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
    if kind == BodyType::StrategicMergePatch && crate::crd::custom(resource).is_some() {
        // Custom resources have no strategic merge patch, as upstream.
        return Err(ApiError::unsupported_media_type(
            "the body of the request was in an unknown format - accepted media types include: \
             application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
                .to_owned(),
        ));
    }
    let body = read_body(&call.headers, body).await?;
    let patch_value: Value = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
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
            match kind {
                BodyType::JsonPatch => {
                    patch::json_patch(&mut target, &patch_value).map_err(|e| match e {
                        patch::JsonPatchError::Decode(e) => ApiError::bad_request(e),
                        patch::JsonPatchError::Apply(_) => ApiError::patch_not_applied(),
                    })?
                }
                BodyType::MergePatch => {
                    if !patch_value.is_object() {
                        return Err(ApiError::bad_request(
                            "error decoding patch: a merge patch must be a JSON object",
                        ));
                    }
                    patch::merge_patch(&mut target, &patch_value)
                }
                _ => patch::strategic_merge(&mut target, &patch_value, Schema::of(resource))
                    .map_err(ApiError::bad_request)?,
            }
            let mut patched = object::check(target, resource)?;
            call.check_patched_types(&patched)?;
            call.check_patched_fields(&mut patched)?;
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
    call.check_types(&applied)?;
    // The namespace is checked here but the configuration goes on as sent (upstream's
    // typed-conversion errors name the object as sent).
    set_namespace(&call, &mut applied.clone())?;
    let key = call.key(name);
    let now = object::now_timestamp();
    let subresource = call.subresource.clone();
    let custom = crate::crd::custom(resource);
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
        // Apply creates: the create pipeline with the applier owning every field.
        validate_name(resource, name)?;
        check_namespace(&call, name).await?;
        let mut object = crate::apply::apply(resource, None, &applied, writer, force)
            .map_err(ApiError::from_apply)?;
        call.check_apply_body(&body)?;
        set_namespace(&call, &mut object)?;
        object::set_type(&mut object, resource);
        default_on_create(resource, &mut object);
        prepare_for_create(resource, &mut object);
        let uid = crate::random::uuid_v4().map_err(ApiError::internal)?;
        let generation = has_generation(resource);
        let meta = object::metadata_mut(&mut object);
        meta.insert("uid".to_owned(), Value::from(uid));
        meta.insert("creationTimestamp".to_owned(), Value::from(now.clone()));
        if generation {
            meta.insert("generation".to_owned(), Value::from(1));
        }
        call.admit(&mut object, None)?;
        if dry_run {
            return respond_object(&call, StatusCode::CREATED, &object);
        }
        let bytes = object::encode_for_storage(&object);
        let name = name.to_owned();
        let kv = storage(&call.state, move |s| s.create(&key, &bytes))
            .await?
            .map_err(|e| ApiError::from_storage(e, resource, &name))?;
        let created = object::from_storage(&kv, resource)?;
        return respond_object(&call, StatusCode::CREATED, &created);
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

/// `DeleteOptions` as far as this server acts on them.
#[derive(Default)]
pub(crate) struct DeleteOptions {
    uid: Option<String>,
    resource_version: Option<String>,
    /// `dryRun: ["All"]` in the body (kubectl sends it there rather than in the query).
    dry_run: bool,
}

fn delete_options(body: &[u8]) -> Result<DeleteOptions, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(DeleteOptions::default());
    }
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("error decoding DeleteOptions: {e}")))?;
    let pre = &value["preconditions"];
    // Upstream's ValidateDeleteOptions. Without a garbage collector, every policy deletes at
    // once (as the collector would, for an object without dependents).
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
    })
}

/// Upstream's Conflict for a failed delete precondition, which carries the storage layer's
/// error text (`StorageError: invalid object, Code: 4, Key: ...`).
fn failed_precondition(resource: &Resource, key: &str, name: &str, detail: &str) -> ApiError {
    ApiError::conflict_because(
        resource,
        name,
        &format!(
            "StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, \
             AdditionalErrorMsg: Precondition failed: {detail}"
        ),
    )
}

/// Deletes one object: at once if it has no finalizers, else by setting `deletionTimestamp`
/// (namespaces go Terminating and are finalized by [`super::namespaces`]).
pub(crate) async fn delete_object(
    state: &AppState,
    resource: &'static Resource,
    key: &str,
    name: &str,
    options: &DeleteOptions,
    dry_run: bool,
) -> Result<Written, ApiError> {
    for _ in 0..UNCONDITIONAL_RETRIES {
        let old_kv = current(state, resource, key, name).await?;
        let old = object::from_storage(&old_kv, resource)?;
        if let Some(uid) = &options.uid
            && uid != object::meta_str(&old, "uid")
        {
            return Err(failed_precondition(
                resource,
                key,
                name,
                &format!(
                    "UID in precondition: {uid}, UID in object meta: {}",
                    object::meta_str(&old, "uid")
                ),
            ));
        }
        if let Some(rv) = &options.resource_version
            && rv != object::meta_str(&old, "resourceVersion")
        {
            return Err(failed_precondition(
                resource,
                key,
                name,
                &format!(
                    "ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {}",
                    object::meta_str(&old, "resourceVersion")
                ),
            ));
        }
        if held(resource, &old) {
            if !object::meta_str(&old, "deletionTimestamp").is_empty() {
                return Ok(Written::Stored(old));
            }
            let mut new = old.clone();
            let meta = object::metadata_mut(&mut new);
            meta.insert(
                "deletionTimestamp".to_owned(),
                Value::from(object::now_timestamp()),
            );
            meta.insert("deletionGracePeriodSeconds".to_owned(), Value::from(0));
            if resource.kind == "Namespace" {
                new.insert("status".to_owned(), json!({"phase": "Terminating"}));
            }
            if dry_run {
                return Ok(Written::Stored(new));
            }
            let bytes = object::encode_for_storage(&new);
            let (k, revision) = (key.to_owned(), old_kv.mod_revision);
            match storage(state, move |s| s.update(&k, &bytes, revision)).await? {
                Ok(kv) => {
                    if resource.kind == "Namespace" {
                        super::namespaces::start_finalizing(state.clone(), name.to_owned());
                    }
                    return Ok(Written::Stored(object::from_storage(&kv, resource)?));
                }
                Err(StorageError::Conflict { .. }) => continue,
                Err(e) => return Err(ApiError::from_storage(e, resource, name)),
            }
        }
        if dry_run {
            return Ok(Written::Deleted(old));
        }
        let (k, revision) = (key.to_owned(), old_kv.mod_revision);
        match storage(state, move |s| s.delete(&k, revision)).await? {
            Ok(_) => return Ok(Written::Deleted(old)),
            Err(StorageError::Conflict { .. }) => continue,
            Err(e) => return Err(ApiError::from_storage(e, resource, name)),
        }
    }
    Err(ApiError::conflict(resource, name))
}

/// `DELETE` of one object: the object while finalizers hold it, else a `Success` status.
async fn delete(call: Call, name: &str, body: Body) -> Result<Response, ApiError> {
    let resource = call.resource;
    let dry_run = call.dry_run()?;
    let body = read_body(&call.headers, body).await?;
    let options = delete_options(&body)?;
    let dry_run = dry_run || options.dry_run;
    let key = call.key(name);
    match delete_object(&call.state, resource, &key, name, &options, dry_run).await? {
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
    for kv in &response.kvs {
        let item = object::from_storage(kv, resource)?;
        if !(labels.matches(&item) && fields.matches(&item)) {
            continue;
        }
        let name = object::meta_str(&item, "name").to_owned();
        match delete_object(&call.state, resource, &kv.key, &name, &options, dry_run).await {
            Ok(Written::Stored(mut o) | Written::Deleted(mut o)) => {
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
