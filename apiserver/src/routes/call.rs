//! One request to a resource (`Call`: what the URL names, its query, headers and the
//! response's warnings), reading its body within kube-apiserver's limits, and storage calls
//! off the async threads.

use crate::error::{ApiError, FieldError};
use crate::negotiate::{self, BodyType};
use crate::object::{self, Object};
use crate::openapi::schema_of;
use crate::resource::Resource;
use crate::selectors::{FieldSelector, LabelSelector};
use crate::state::AppState;
use crate::storage::{KeyValue, Storage, keys};
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, header::CONTENT_LENGTH};
use http_body_util::BodyExt;
use kcel_stdlib::kubernetes::crd::selectable_field_label;
use serde_json::Value;
use std::collections::HashMap;

/// The largest request body accepted, as kube-apiserver's limit: 3 MiB.
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

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
pub(crate) const MAX_DRAINED_BYTES: usize = 4 * MAX_BODY_BYTES;

/// The request body of a scale write, at most [`MAX_BODY_BYTES`].
pub(crate) async fn read_body_for_scale(
    headers: &HeaderMap,
    body: Body,
) -> Result<Bytes, ApiError> {
    read_body(headers, body).await
}

/// The request body, at most [`MAX_BODY_BYTES`].
pub(crate) async fn read_body(headers: &HeaderMap, mut body: Body) -> Result<Bytes, ApiError> {
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
pub(crate) enum FieldValidation {
    Ignore,
    Warn,
    Strict,
}

impl Call {
    /// A call on `resource` with the URL's query parameters, no namespace, no subresource.
    pub(crate) fn new(
        state: AppState,
        resource: &'static Resource,
        uri: &axum::http::Uri,
        headers: HeaderMap,
    ) -> Result<Call, ApiError> {
        let params = axum::extract::Query::<HashMap<String, String>>::try_from_uri(uri)
            .map(|q| q.0)
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        Ok(Call {
            state,
            resource,
            namespace: None,
            params,
            headers,
            warnings: std::sync::Mutex::new(Vec::new()),
            subresource: None,
            put: false,
        })
    }

    /// Adds a warning for the response (once per distinct text).
    pub(crate) fn warn(&self, text: String) {
        let mut warnings = self.warnings.lock().unwrap_or_else(|e| e.into_inner());
        if !warnings.contains(&text) {
            warnings.push(text);
        }
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
            Some("finalize") => Part::Finalize,
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
    pub(crate) fn check_apply_body(&self, body: &[u8]) -> Result<(), ApiError> {
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
        for key in found {
            self.warn(key.to_string());
        }
        Ok(())
    }

    /// `fieldValidation`: absent means Warn, as upstream.
    pub(crate) fn field_validation(&self) -> Result<FieldValidation, ApiError> {
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
    /// `strict` makes it), or not at all (Ignore). `body` is what was sent: a create or
    /// update body, or a patch, whose own strict errors (its keys given twice) come first.
    pub(crate) fn prune_unknown_fields(
        &self,
        object: &mut Object,
        body: Option<(&[u8], BodyType)>,
        strict: impl FnOnce(&Object, String) -> ApiError,
    ) -> Result<(), ApiError> {
        let validation = self.field_validation()?;
        let custom = self.state.crds.custom(self.resource);
        // A built-in kind's JSON body is walked typed below; any other body's repeated keys
        // are reported as the untyped decoders report them.
        let raw_json = match body {
            Some((raw, BodyType::Json)) if custom.is_none() => Some(raw),
            _ => None,
        };
        let mut texts: Vec<Strict> = match (validation, body) {
            (FieldValidation::Ignore, _) | (_, None) => Vec::new(),
            (_, Some(_)) if raw_json.is_some() => Vec::new(),
            (_, Some((raw, BodyType::JsonPatch))) => json_patch_strict_errors(raw)
                .into_iter()
                .map(Strict::Text)
                .collect(),
            (_, Some((raw, kind))) => {
                kcel_stdlib::documents::body_duplicate_errors(raw, matches!(kind, BodyType::Yaml))
                    .into_iter()
                    .map(Strict::Keys)
                    .collect()
            }
        };
        if let Some(crd) = custom {
            let original = (validation == FieldValidation::Strict).then(|| object.clone());
            let unknown = crate::crd::custom::prune_unknown(&crd, self.resource, object)?;
            texts.extend(
                unknown
                    .iter()
                    .map(|f| Strict::Text(format!("unknown field \"{f}\""))),
            );
            return self.report_unknown(validation, texts, &original.unwrap_or_default(), strict);
        }
        let Some(schema) = schema_of(self.resource) else {
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
        match raw_json.map(|raw| schema.strict_errors(raw)) {
            Some(Ok(found)) => texts = found.into_iter().map(Strict::Text).collect(),
            _ => texts.extend(
                unknown
                    .iter()
                    .map(|f| Strict::Text(format!("unknown field \"{f}\""))),
            ),
        }
        self.report_unknown(validation, texts, &original, strict)
    }

    /// Reports unknown (or duplicate) fields as `fieldValidation` asks: warnings (Warn), an
    /// error made by `strict` (Strict), or not at all (Ignore).
    pub(crate) fn report_unknown(
        &self,
        validation: FieldValidation,
        texts: Vec<Strict>,
        original: &Object,
        strict: impl FnOnce(&Object, String) -> ApiError,
    ) -> Result<(), ApiError> {
        match validation {
            _ if texts.is_empty() => Ok(()),
            FieldValidation::Ignore => Ok(()),
            FieldValidation::Strict => {
                let texts: Vec<String> = texts.iter().map(ToString::to_string).collect();
                Err(strict(
                    original,
                    format!("strict decoding error: {}", texts.join(", ")),
                ))
            }
            FieldValidation::Warn => {
                for text in texts {
                    for warning in text.warnings() {
                        self.warn(warning);
                    }
                }
                Ok(())
            }
        }
    }

    /// A create or update body whose values do not fit the schema's types: upstream's decoder
    /// error, a 400.
    pub(crate) fn check_types(&self, object: &Object) -> Result<(), ApiError> {
        let r = self.resource;
        let Some(schema) = schema_of(r) else {
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
    pub(crate) fn check_patched_types(&self, object: &Object) -> Result<(), ApiError> {
        let Some(schema) = schema_of(self.resource) else {
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
    pub(crate) fn check_unknown_fields(
        &self,
        object: &mut Object,
        body: &[u8],
    ) -> Result<(), ApiError> {
        let r = self.resource;
        let kind = negotiate::body_type(&self.headers)?;
        self.prune_unknown_fields(object, Some((body, kind)), |_, detail| {
            ApiError::bad_request(format!(
                "{} in version \"{}\" cannot be handled as a {}: {detail}",
                r.kind, r.version, r.kind
            ))
        })
    }

    /// [`Call::prune_unknown_fields`] for an object patched with `patch` (a JSON, merge or
    /// strategic merge patch; Strict: upstream's 422 naming the patched object).
    pub(crate) fn check_patched_fields(
        &self,
        object: &mut Object,
        patch: (&[u8], BodyType),
    ) -> Result<(), ApiError> {
        self.prune_unknown_fields(object, Some(patch), |original, detail| {
            ApiError::invalid_patch_fields(&Value::Object(original.clone()).to_string(), &detail)
        })
    }

    pub(crate) fn param(&self, name: &str) -> &str {
        self.params.get(name).map(String::as_str).unwrap_or("")
    }

    pub(crate) fn dry_run(&self) -> Result<bool, ApiError> {
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

/// The selectors of a list or watch.
pub(crate) fn selectors(call: &Call) -> Result<(LabelSelector, FieldSelector), ApiError> {
    let labels =
        LabelSelector::parse(call.param("labelSelector")).map_err(ApiError::bad_request)?;
    let text = call.param("fieldSelector");
    let fields = match call.state.crds.custom(call.resource) {
        // A custom resource: its name, its namespace when namespaced, and the version's
        // selectable fields (upstream's field label conversion for custom resources).
        Some(crd) => {
            let selectable = crd
                .version_of(call.resource)
                .map(|v| v.selectable_fields.as_slice())
                .unwrap_or_default();
            let namespaced = call.resource.namespaced;
            FieldSelector::parse_with(text, &|field| {
                field == "metadata.name"
                    || (namespaced && field == "metadata.namespace")
                    || selectable
                        .iter()
                        .any(|p| selectable_field_label(p) == field)
            })
        }
        None => FieldSelector::parse(text, call.resource.group, call.resource.kind),
    }
    .map_err(ApiError::bad_request)?;
    Ok((labels, fields))
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

/// Which part of an object a write may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// The main resource: for kinds with a status subresource, the status stays as it was.
    Main,
    /// The status subresource: only the status changes.
    Status,
    /// A namespace's `finalize` subresource: everything but the status
    /// (`namespaceFinalizeStrategy.PrepareForUpdate`).
    Finalize,
    /// Everything (the server's own controllers).
    All,
}

impl Part {
    /// The new state with what this part may not change taken from `old`.
    pub(crate) fn keep(self, resource: &Resource, old: &Object, mut new: Object) -> Object {
        if self == Part::Main {
            crate::persistent_volumes::prepare_for_update(resource, &mut new, old);
        }
        match self {
            Part::Main | Part::Finalize if resource.status => {
                match old.get("status") {
                    Some(status) => new.insert("status".to_owned(), status.clone()),
                    None => new.remove("status"),
                };
                // A namespace's spec.finalizers change through `finalize` only
                // (`namespaceStrategy.PrepareForUpdate`).
                if self == Part::Main && resource.kind == "Namespace" && resource.group.is_empty() {
                    let kept = old.get("spec").and_then(|s| s.get("finalizers")).cloned();
                    match (kept, new.get_mut("spec").and_then(Value::as_object_mut)) {
                        (Some(f), Some(spec)) => {
                            spec.insert("finalizers".to_owned(), f);
                        }
                        (Some(f), None) => {
                            new.insert("spec".to_owned(), serde_json::json!({"finalizers": f}));
                        }
                        (None, Some(spec)) => {
                            spec.remove("finalizers");
                        }
                        (None, None) => {}
                    }
                }
                new
            }
            Part::Status => {
                let mut kept = old.clone();
                match new.remove("status") {
                    Some(status) => kept.insert("status".to_owned(), status),
                    None => kept.remove("status"),
                };
                crate::workloads::prepare_for_status_update(resource, &mut kept, old);
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

/// One error of strict decoding (`fieldValidation`): Strict joins their texts into one
/// error, Warn makes warnings of them as upstream's handlers split them
/// (apiserver `pkg/endpoints/handlers/rest.go` `addStrictDecodingWarnings` and
/// `parseYAMLWarnings`).
#[derive(Debug, thiserror::Error)]
pub(crate) enum Strict {
    /// An error of its own (`unknown field "x"`, typed decoding's `duplicate field "a"`):
    /// one warning.
    #[error("{0}")]
    Text(String),
    /// The body's repeated keys as its untyped decoder reports them (a YAML body's as
    /// go-yaml's one error, a warning per key).
    #[error(transparent)]
    Keys(kcel_stdlib::documents::StrictError),
}

impl Strict {
    /// The warnings it gives.
    fn warnings(self) -> Vec<String> {
        match self {
            Strict::Text(text) => vec![text],
            Strict::Keys(keys) => keys.warnings(),
        }
    }
}

/// What strict decoding reports of a JSON patch's operations (apiserver
/// `pkg/endpoints/handlers/patch.go`: the patch decoded by sigs.k8s.io/json's
/// `UnmarshalStrict` into `[]jsonPatchOp{Op, Path, From, Value}`, each error prefixed
/// `json patch `): `json patch unknown field "[0].foo"`, `json patch duplicate field
/// "[1].path"`. Keys repeated inside an operation's `value` are not reported here.
fn json_patch_strict_errors(patch: &[u8]) -> Vec<String> {
    static OPS: std::sync::OnceLock<serde_json::Map<String, Value>> = std::sync::OnceLock::new();
    let schemas = OPS.get_or_init(|| {
        let op = serde_json::json!({
            "type": "array",
            "items": {"type": "object", "properties": {
                "op": {"type": "string"},
                "path": {"type": "string"},
                "from": {"type": "string"},
                "value": {"x-kubernetes-preserve-unknown-fields": true}
            }}
        });
        serde_json::Map::from_iter([("op".to_owned(), op)])
    });
    let Some(schema) = kcel_stdlib::kubernetes::builtin::OpenApiSchema::named(schemas, "op") else {
        return Vec::new();
    };
    schema
        .strict_errors(patch)
        .unwrap_or_default()
        .into_iter()
        .map(|e| format!("json patch {e}"))
        .collect()
}
