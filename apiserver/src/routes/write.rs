//! Writing one object as kube-apiserver's generic registry does: an optimistic-concurrency
//! update loop through the write hook and managedFields (`modify`), and deletion with
//! preconditions and finalizers (`delete_object`).

use crate::error::ApiError;
use crate::object::{self, Object};
use crate::resource::Resource;
use crate::state::AppState;
use crate::storage::StorageError;
use serde_json::{Value, json};

use super::call::{Part, current, storage};

/// How often a write without a resourceVersion precondition retries after losing a race.
const UNCONDITIONAL_RETRIES: usize = 5;

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

/// Carries the server-owned metadata of `old` into `new` as upstream's `rest.BeforeUpdate`
/// does (the library's `prepare_update`) and bumps `generation` when more than metadata and
/// status changed.
pub(crate) fn keep_server_fields(resource: &Resource, new: &mut Object, old: &Object) {
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
    // rest.BeforeUpdate's carry-over; what it does not carry over was validated unchanged
    // (`crate::kind_rules::check`, the CRD's validation).
    kcel_stdlib::kubernetes::object_meta_update::prepare_update(meta, old_meta);
    if has_generation(resource) && changed_spec {
        let g = meta.get("generation").and_then(Value::as_i64).unwrap_or(0);
        meta.insert("generation".to_owned(), Value::from(g + 1));
    }
}

pub(crate) fn non_empty_list(value: Option<&Value>) -> bool {
    value
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty())
}

/// Whether finalizers hold the object back from deletion: `metadata.finalizers`, and for a
/// namespace also `spec.finalizers`.
pub(crate) fn held(resource: &Resource, object: &Object) -> bool {
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
    let versions = crate::crd::Versions::of(&state.crds, resource);
    for _ in 0..UNCONDITIONAL_RETRIES {
        let old_kv = current(state, resource, key, name).await?;
        let old = versions.read(&old_kv).await?;
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
        crate::ownership::check(resource, &new, name)?;
        let mut hook_warnings = Vec::new();
        crate::crd::admit(
            &state.crds,
            resource,
            &mut new,
            Some(&old),
            &mut hook_warnings,
        )?;
        if subresource.is_none() {
            crate::kind_rules::check(resource, &new, Some(&old))?;
        }
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
            let custom = state.crds.custom(resource);
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
        crate::admission::admit(
            state,
            crate::admission::Write {
                resource,
                subresource,
                operation: crate::admission::Operation::Update,
                name,
                object: Some(&mut new),
                old: Some(&old),
                dry_run,
            },
        )
        .await?;
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
        // A write that changes nothing is not written (no new resourceVersion), as upstream.
        if object::encode_for_storage(&new) == object::encode_for_storage(&old) {
            return Ok(Written::Stored(old));
        }
        let bytes = object::encode_for_storage(&versions.for_storage(new).await?);
        match storage(state, move |s| s.update(&k, &bytes, revision)).await? {
            Ok(kv) => return Ok(Written::Stored(versions.read(&kv).await?)),
            Err(StorageError::Conflict { .. }) if given.is_empty() => continue,
            Err(e) => return Err(ApiError::from_storage(e, resource, name)),
        }
    }
    Err(ApiError::conflict(resource, name))
}

/// `DeleteOptions` as far as this server acts on them.
#[derive(Default)]
pub(crate) struct DeleteOptions {
    pub(crate) uid: Option<String>,
    pub(crate) resource_version: Option<String>,
    /// `dryRun: ["All"]` in the body (kubectl sends it there rather than in the query).
    pub(crate) dry_run: bool,
    /// `propagationPolicy` and `orphanDependents`.
    pub(crate) policy: crate::propagation::DeletePolicy,
}

/// Upstream's Conflict for a failed delete precondition, which carries the storage layer's
/// error text (`StorageError: invalid object, Code: 4, Key: ...`).
pub(crate) fn failed_precondition(
    resource: &Resource,
    key: &str,
    name: &str,
    detail: &str,
) -> ApiError {
    ApiError::conflict_because(
        resource,
        name,
        &format!(
            "StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, \
             AdditionalErrorMsg: Precondition failed: {detail}"
        ),
    )
}

/// Deletes one object: at once if it has no finalizers, else by setting `deletionTimestamp`.
/// The flag is true when a namespace has just gone Terminating: the caller starts its
/// finalization (the namespaces module).
pub(crate) async fn delete_object(
    state: &AppState,
    resource: &'static Resource,
    key: &str,
    name: &str,
    options: &DeleteOptions,
    dry_run: bool,
) -> Result<(Written, bool), ApiError> {
    let versions = crate::crd::Versions::of(&state.crds, resource);
    for _ in 0..UNCONDITIONAL_RETRIES {
        let old_kv = current(state, resource, key, name).await?;
        let old = versions.read(&old_kv).await?;
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
        crate::admission::admit(
            state,
            crate::admission::Write {
                resource,
                subresource: None,
                operation: crate::admission::Operation::Delete,
                name,
                object: None,
                old: Some(&old),
                dry_run,
            },
        )
        .await?;
        // The garbage collector's finalizers as the policy asks (upstream's
        // deletionFinalizersForGarbageCollection), then markAsDeleting if any finalizer holds.
        let finalizers = crate::propagation::finalizers(&old);
        let changed = crate::propagation::deletion_finalizers(&finalizers, options.policy);
        let mut new = old.clone();
        if let Some(changed) = &changed {
            let meta = object::metadata_mut(&mut new);
            match changed.is_empty() {
                true => meta.remove("finalizers"),
                false => meta.insert("finalizers".to_owned(), json!(changed)),
            };
        }
        let deleting = !object::meta_str(&old, "deletionTimestamp").is_empty();
        if held(resource, &new) {
            if deleting && changed.is_none() {
                return Ok((Written::Stored(old), false));
            }
            let meta = object::metadata_mut(&mut new);
            if !deleting {
                meta.insert(
                    "deletionTimestamp".to_owned(),
                    Value::from(object::now_timestamp()),
                );
                if let Some(g) = meta.get("generation").and_then(Value::as_i64)
                    && g > 0
                {
                    meta.insert("generation".to_owned(), Value::from(g + 1));
                }
            }
            meta.insert("deletionGracePeriodSeconds".to_owned(), Value::from(0));
            if resource.kind == "Namespace" {
                new.insert("status".to_owned(), json!({"phase": "Terminating"}));
            }
            if dry_run {
                return Ok((Written::Stored(new), false));
            }
            let bytes = object::encode_for_storage(&versions.for_storage(new).await?);
            let (k, revision) = (key.to_owned(), old_kv.mod_revision);
            match storage(state, move |s| s.update(&k, &bytes, revision)).await? {
                Ok(kv) => {
                    let terminating = resource.kind == "Namespace" && !deleting;
                    return Ok((Written::Stored(versions.read(&kv).await?), terminating));
                }
                Err(StorageError::Conflict { .. }) => continue,
                Err(e) => return Err(ApiError::from_storage(e, resource, name)),
            }
        }
        if dry_run {
            return Ok((Written::Deleted(old), false));
        }
        let (k, revision) = (key.to_owned(), old_kv.mod_revision);
        match storage(state, move |s| s.delete(&k, revision)).await? {
            Ok(_) => return Ok((Written::Deleted(old), false)),
            Err(StorageError::Conflict { .. }) => continue,
            Err(e) => return Err(ApiError::from_storage(e, resource, name)),
        }
    }
    Err(ApiError::conflict(resource, name))
}

/// Whether the kind counts `metadata.generation` (bumped when anything but metadata and
/// status changes).
pub(crate) fn has_generation(resource: &Resource) -> bool {
    matches!(
        resource.kind,
        "Deployment"
            | "Service"
            | "ValidatingAdmissionPolicy"
            | "ValidatingAdmissionPolicyBinding"
            | "MutatingAdmissionPolicy"
            | "MutatingAdmissionPolicyBinding"
    ) || crate::crd::storage_resource(resource).is_some()
}
