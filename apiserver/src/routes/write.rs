//! Writing one object as kube-apiserver's generic registry does: an optimistic-concurrency
//! update loop through the write hook and managedFields (`modify`), and deletion with
//! preconditions and finalizers (`delete_object`).

use crate::error::ApiError;
use crate::object::{self, Object};
use crate::resource::Resource;
use crate::state::AppState;
use crate::storage::{KeyValue, StorageError};
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
    /// Where the kind's validation's warnings go ([`super::admit::validate`]); `None` drops
    /// them.
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
    // Compared field by field in key order (the maps are sorted), without copying either.
    let changed_spec = !beyond_metadata_and_status(new).eq(beyond_metadata_and_status(old));
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

/// An object's fields other than `metadata` and `status`, in key order.
fn beyond_metadata_and_status(o: &Object) -> impl Iterator<Item = (&String, &Value)> {
    o.iter()
        .filter(|(k, _)| k.as_str() != "metadata" && k.as_str() != "status")
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

/// The stored object a write starts from, and whether it was read from the store (else it
/// is the watch cache's copy, which may lag behind).
struct Base {
    kv: KeyValue,
    current: bool,
}

impl Base {
    /// The watch cache's copy of the object if it has one (as kube-apiserver's cacher passes
    /// its copy to `GuaranteedUpdate` and `Delete`), else the store's. A dry run reads the
    /// store, as upstream's `DryRunnableStorage` does: it writes nothing that could catch a
    /// stale copy.
    async fn start(
        state: &AppState,
        resource: &'static Resource,
        key: &str,
        name: &str,
        dry_run: bool,
    ) -> Result<Base, ApiError> {
        if !dry_run {
            let k = key.to_owned();
            let cached = storage(state, move |s| s.get_cached(&k))
                .await?
                .map_err(|e| ApiError::from_storage(e, resource, name))?;
            if let Some(kv) = cached {
                return Ok(Base { kv, current: false });
            }
        }
        let kv = current(state, resource, key, name).await?;
        Ok(Base { kv, current: true })
    }

    /// Goes on from the store's object as a refused write returned it (etcd's transaction
    /// reads it with the failed compare, as upstream's `GetOnFailure`): no read needed.
    fn take(&mut self, kv: KeyValue) {
        self.kv = kv;
        self.current = true;
    }

    /// Reads the object from the store; true when it changed since the copy held.
    async fn refresh(
        &mut self,
        state: &AppState,
        resource: &'static Resource,
        key: &str,
        name: &str,
    ) -> Result<bool, ApiError> {
        let before = self.kv.mod_revision;
        self.kv = current(state, resource, key, name).await?;
        self.current = true;
        Ok(self.kv.mod_revision != before)
    }
}

/// How one attempt of a write ended.
enum Attempt<T> {
    /// The write is committed (or failed in the store for a reason no retry mends): its
    /// outcome.
    Done(Result<T, ApiError>),
    /// There was nothing to write: the answer, right if the object read was current.
    Unchanged(T),
    /// The store refused the write's revision guard ([`StorageError::Conflict`] or
    /// [`StorageError::NotFound`]); `retry` says whether a write from the current object may
    /// follow (not when the client named the resourceVersion it expected).
    Lost { error: StorageError, retry: bool },
}

/// The outcome of a conditional write that the store refused with `error`.
fn refused<T>(error: StorageError, retry: bool, resource: &Resource, name: &str) -> Attempt<T> {
    match error {
        StorageError::Conflict { .. } => Attempt::Lost { error, retry },
        StorageError::NotFound { .. } => Attempt::Lost {
            error,
            retry: false,
        },
        other => Attempt::Done(Err(ApiError::from_storage(other, resource, name))),
    }
}

impl Base {
    /// What to do after an attempt from this object (kube-apiserver's `GuaranteedUpdate`
    /// loop, k8s.io/apiserver `pkg/storage/etcd3/store.go`): `Some(answer)` to finish, `None`
    /// to try again from the object as read anew. When the object was the watch cache's copy
    /// and the attempt failed (an error, a refused write, or nothing to write), the object is
    /// read from the store: the attempt's answer stands if the copy was current after all,
    /// else the attempt is made again from the store's object, so a stale copy costs one
    /// read (none when the store returned its object with a refused write) and changes no
    /// answer. A write from the store's object that loses a race is tried
    /// again while the attempt allows, [`UNCONDITIONAL_RETRIES`] attempts in all.
    async fn settle<T>(
        &mut self,
        state: &AppState,
        resource: &'static Resource,
        key: &str,
        name: &str,
        outcome: Result<Attempt<T>, ApiError>,
        lost: &mut usize,
    ) -> Option<Result<T, ApiError>> {
        if !self.current && !matches!(outcome, Ok(Attempt::Done(_))) {
            if let Ok(Attempt::Lost {
                error:
                    StorageError::Conflict {
                        current: Some(kv), ..
                    },
                ..
            }) = outcome
            {
                self.take(*kv);
                return None;
            }
            let stale = match self.refresh(state, resource, key, name).await {
                Ok(stale) => stale,
                Err(e) => return Some(Err(e)),
            };
            return match outcome {
                Ok(Attempt::Unchanged(answer)) if !stale => Some(Ok(answer)),
                Err(error) if !stale => Some(Err(error)),
                _ => None,
            };
        }
        match outcome {
            Err(error) => Some(Err(error)),
            Ok(Attempt::Done(result)) => Some(result),
            Ok(Attempt::Unchanged(answer)) => Some(Ok(answer)),
            Ok(Attempt::Lost { error, retry }) => {
                *lost += 1;
                if !retry {
                    return Some(Err(ApiError::from_storage(error, resource, name)));
                }
                if *lost == UNCONDITIONAL_RETRIES {
                    return Some(Err(ApiError::conflict(resource, name)));
                }
                if let StorageError::Conflict {
                    current: Some(kv), ..
                } = error
                {
                    self.take(*kv);
                    return None;
                }
                self.refresh(state, resource, key, name)
                    .await
                    .err()
                    .map(Err)
            }
        }
    }
}

/// Reads the object, lets `change` make its new state, and writes it if the object is still
/// at the revision read (retrying a lost race when the new state names no resourceVersion of
/// its own). A resourceVersion in the new state that is not the current one is a Conflict.
/// The object is read as [`Base`] says: from the watch cache when it can.
pub(crate) async fn modify(
    state: &AppState,
    resource: &'static Resource,
    key: &str,
    name: &str,
    options: WriteOptions<'_>,
    change: impl Fn(Object) -> Result<Object, ApiError>,
) -> Result<Written, ApiError> {
    let versions = crate::crd::Versions::of(&state.crds, resource);
    let mut base = Base::start(state, resource, key, name, options.dry_run).await?;
    let mut lost = 0;
    loop {
        let outcome = modify_once(
            state, resource, key, name, &options, &versions, &change, &base.kv,
        )
        .await;
        let settled = base.settle(state, resource, key, name, outcome, &mut lost);
        if let Some(answer) = settled.await {
            return answer;
        }
    }
}

/// One attempt of [`modify`] from the object `old_kv`.
#[allow(clippy::too_many_arguments)]
async fn modify_once(
    state: &AppState,
    resource: &'static Resource,
    key: &str,
    name: &str,
    options: &WriteOptions<'_>,
    versions: &crate::crd::Versions,
    change: &impl Fn(Object) -> Result<Object, ApiError>,
    old_kv: &KeyValue,
) -> Result<Attempt<Written>, ApiError> {
    let WriteOptions {
        dry_run,
        manager,
        part,
        update_managed_fields,
        subresource,
        warnings,
    } = *options;
    let old = versions.read(old_kv).await?;
    let mut changed = change(old.clone())?;
    // Every write's object is decoded through the defaulting codec upstream: a PUT's body
    // (k8s.io/apiserver `handlers/update.go`, `UpdateResource` decodes with
    // `scope.Serializer` through the defaulter), a JSON or merge patch's result
    // (`handlers/patch.go`, `applyJSPatch`: `runtime.DecodeInto` the patched JSON), a
    // strategic merge patch's (`applyPatchToObject`: `defaulter.Default`) and an apply's
    // (`fieldmanager` `structuredMergeManager.Apply`: `objectDefaulter.Default` of the
    // result), before the strategy keeps the other part of the object.
    crate::defaults::fields(resource, &mut changed);
    let mut new = part.keep(resource, &old, changed);
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
    // The custom resource decoded by its CRD (pruned, defaulted), as upstream's request scope
    // decodes the body and its storage decodes the stored object.
    crate::crd::decode(&state.crds, resource, &mut new, Some(&old))?;
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
    // Mutating admission, then the registry's `rest.BeforeUpdate` (the strategy's
    // `PrepareForUpdate` again for what a mutation changed, the carried-over metadata and
    // generation), the kind's validation and validating admission (`super::admit`).
    let mut hook_warnings = Vec::new();
    super::admit::admit(
        super::admit::Admitted {
            state,
            resource,
            subresource,
            operation: crate::admission::Operation::Update,
            old: Some(&old),
            dry_run,
        },
        name,
        &mut new,
        |new, mutated| {
            if mutated {
                *new = part.keep(resource, &old, std::mem::take(new));
            }
            keep_server_fields(resource, new, &old);
            Ok(name.to_owned())
        },
        &mut hook_warnings,
    )
    .await?;
    if let Some(sink) = warnings {
        let mut sink = sink.lock().unwrap_or_else(|e| e.into_inner());
        for w in hook_warnings {
            if !sink.contains(&w) {
                sink.push(w);
            }
        }
    }
    let finish_delete =
        !object::meta_str(&new, "deletionTimestamp").is_empty() && !held(resource, &new);
    // A Service's cluster IPs and node ports (what the update leaves out kept, what a type
    // change needs allocated), under the lock held until it is stored.
    let _allocation = match finish_delete {
        true => None,
        false => {
            super::service_addresses::before_write(
                state,
                resource,
                subresource,
                key,
                &mut new,
                Some(&old),
                dry_run,
            )
            .await?
        }
    };
    if dry_run {
        return Ok(Attempt::Done(Ok(Written::Stored(new))));
    }
    let (k, revision) = (key.to_owned(), old_kv.mod_revision);
    if finish_delete {
        return Ok(
            match storage(state, move |s| s.delete(&k, revision)).await? {
                Ok(_) => Attempt::Done(Ok(Written::Deleted(new))),
                Err(e) => refused(e, given.is_empty(), resource, name),
            },
        );
    }
    // A write that changes nothing is not written (no new resourceVersion), as upstream.
    if object::encode_for_storage(&new) == object::encode_for_storage(&old) {
        return Ok(Attempt::Unchanged(Written::Stored(old)));
    }
    let bytes = object::encode_for_storage(&versions.for_storage(new).await?);
    Ok(
        match storage(state, move |s| s.update(&k, &bytes, revision)).await? {
            Ok(kv) => Attempt::Done(versions.read(&kv).await.map(Written::Stored)),
            Err(e) => refused(e, given.is_empty(), resource, name),
        },
    )
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

/// Upstream's Conflict for a failed precondition of a delete or an update (`DeleteOptions`
/// preconditions, the uid of a PUT's body), which carries the storage layer's error text
/// (`StorageError: invalid object, Code: 4, Key: ...`).
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
/// finalization (the namespaces module). The object is read as [`Base`] says
/// (upstream's cacher hands its copy to `Delete` likewise).
pub(crate) async fn delete_object(
    state: &AppState,
    resource: &'static Resource,
    key: &str,
    name: &str,
    options: &DeleteOptions,
    dry_run: bool,
) -> Result<(Written, bool), ApiError> {
    let versions = crate::crd::Versions::of(&state.crds, resource);
    let mut base = Base::start(state, resource, key, name, dry_run).await?;
    let mut lost = 0;
    loop {
        let outcome = delete_once(
            state, resource, key, name, options, dry_run, &versions, &base.kv,
        )
        .await;
        let settled = base.settle(state, resource, key, name, outcome, &mut lost);
        if let Some(answer) = settled.await {
            return answer;
        }
    }
}

/// One attempt of [`delete_object`] from the object `old_kv`.
#[allow(clippy::too_many_arguments)]
async fn delete_once(
    state: &AppState,
    resource: &'static Resource,
    key: &str,
    name: &str,
    options: &DeleteOptions,
    dry_run: bool,
    versions: &crate::crd::Versions,
    old_kv: &KeyValue,
) -> Result<Attempt<(Written, bool)>, ApiError> {
    let old = versions.read(old_kv).await?;
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
    crate::admission::validate(
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
    let (k, revision) = (key.to_owned(), old_kv.mod_revision);
    if held(resource, &new) {
        if deleting && changed.is_none() {
            return Ok(Attempt::Unchanged((Written::Stored(old), false)));
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
            return Ok(Attempt::Done(Ok((Written::Stored(new), false))));
        }
        let bytes = object::encode_for_storage(&versions.for_storage(new).await?);
        return Ok(
            match storage(state, move |s| s.update(&k, &bytes, revision)).await? {
                Ok(kv) => {
                    let terminating = resource.kind == "Namespace" && !deleting;
                    Attempt::Done(
                        versions
                            .read(&kv)
                            .await
                            .map(|o| (Written::Stored(o), terminating)),
                    )
                }
                Err(e) => refused(e, true, resource, name),
            },
        );
    }
    if dry_run {
        return Ok(Attempt::Done(Ok((Written::Deleted(old), false))));
    }
    Ok(
        match storage(state, move |s| s.delete(&k, revision)).await? {
            Ok(_) => Attempt::Done(Ok((Written::Deleted(old), false))),
            Err(e) => refused(e, true, resource, name),
        },
    )
}

/// Whether the kind counts `metadata.generation` (bumped when anything but metadata and
/// status changes).
pub(crate) fn has_generation(resource: &Resource) -> bool {
    matches!(
        resource.kind,
        "Pod"
            | "Deployment"
            | "ReplicaSet"
            | "StatefulSet"
            | "DaemonSet"
            | "Job"
            | "CronJob"
            | "HorizontalPodAutoscaler"
            | "Service"
            | "ValidatingAdmissionPolicy"
            | "ValidatingAdmissionPolicyBinding"
            | "MutatingAdmissionPolicy"
            | "MutatingAdmissionPolicyBinding"
    ) || crate::crd::storage_resource(resource).is_some()
}
