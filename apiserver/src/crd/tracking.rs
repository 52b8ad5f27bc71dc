//! Keeps the served custom resources in step with the stored CRDs: a [`Storage`] wrapper
//! that, after every successful write under the CRDs' prefix, updates the registry before the
//! write is acknowledged (so a client that saw its CRD established can use it at once), and
//! runs the cleanup of a deleted CRD (its objects deleted, then its finalizer removed), as
//! apiextensions-apiserver's finalizer controller does.
//!
//! CRDs written by another server sharing the store (several servers on one etcd) are learnt
//! from a watch of the CRDs' prefix (through the watch cache), as upstream's CRD informer
//! learns them: a CRD created, changed or deleted there is served, changed or dropped here
//! without a restart. Every registry update names the storage revision of the state it
//! serves, so a change learnt late from the watch never undoes a newer one written here. The
//! server that deleted a CRD runs its cleanup; the others only stop serving it.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::definition::{self, CLEANUP_FINALIZER};
use super::registry::Crds;
use crate::storage::{
    Delegating, EventKind, KeyValue, RangeRequest, Revision, Storage, StorageError, keys,
};

/// The storage prefix of CustomResourceDefinitions.
pub fn crd_prefix() -> String {
    keys::prefix("apiextensions.k8s.io/customresourcedefinitions", None)
}

/// The storage prefix of a custom resource's objects (every version shares it), as
/// kube-apiserver lays them out: `/registry/<group>/<plural>/`.
pub fn objects_prefix(group: &str, plural: &str) -> String {
    keys::prefix(&format!("{group}/{plural}"), None)
}

/// How long the follower waits before watching again after its watch ended.
const REWATCH_DELAY: Duration = Duration::from_millis(500);

/// A store whose CRD writes update the server's registry of served custom resources.
pub struct Tracked {
    inner: Arc<dyn Storage>,
    crds: Arc<Crds>,
}

/// Wraps `inner`, serving the CRDs already stored (in `crds`), resuming the cleanup of the
/// ones being deleted, and (inside a tokio runtime) following the CRDs other servers write.
pub fn track(inner: Arc<dyn Storage>, crds: Arc<Crds>) -> Result<Arc<dyn Storage>, StorageError> {
    let range = inner.range(&RangeRequest::prefix(crd_prefix()))?;
    for kv in &range.kvs {
        refresh(&inner, &crds, kv, Some(&kv.value), kv.mod_revision);
    }
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(follow(inner.clone(), crds.clone(), range.revision));
    }
    Ok(Arc::new(Tracked { inner, crds }))
}

/// Follows the CRDs' prefix from `revision` on: each change another server made is served
/// here. When the watch ends (compacted away, the store gone for a while) the CRDs are read
/// again and watched from there. Ends when the registry is dropped (the server stopped).
async fn follow(store: Arc<dyn Storage>, crds: Arc<Crds>, mut revision: Revision) {
    let crds = Arc::downgrade(&crds);
    loop {
        let from = revision + 1;
        let watching = store.clone();
        let watch =
            tokio::task::spawn_blocking(move || watching.watch(&crd_prefix(), Some(from))).await;
        if let Ok(Ok(mut events)) = watch {
            while let Some(event) = events.recv().await {
                let Some(crds) = crds.upgrade() else {
                    return;
                };
                revision = revision.max(event.revision());
                match event.kind {
                    EventKind::Put => learn(
                        &crds,
                        &event.kv.key,
                        Some(&event.kv.value),
                        event.revision(),
                    ),
                    EventKind::Delete => learn(&crds, &event.kv.key, None, event.revision()),
                    EventKind::Progress => {}
                }
            }
        }
        tokio::time::sleep(REWATCH_DELAY).await;
        let Some(registry) = crds.upgrade() else {
            return;
        };
        // Read the CRDs again: the watch may have missed changes.
        let reading = store.clone();
        let range =
            tokio::task::spawn_blocking(move || reading.range(&RangeRequest::prefix(crd_prefix())))
                .await;
        if let Ok(Ok(range)) = range {
            let live: Vec<&str> = range.kvs.iter().map(|kv| name_of(&kv.key)).collect();
            for crd in registry.all() {
                if !live.contains(&crd.name.as_str()) {
                    registry.set_at(&crd.name, range.revision, None);
                }
            }
            for kv in &range.kvs {
                learn(&registry, &kv.key, Some(&kv.value), kv.mod_revision);
            }
            revision = range.revision;
        }
    }
}

/// Serves the state of the CRD under `key` at `revision` learnt from the store (deleted
/// when `value` is `None`), unless a newer one is served.
fn learn(crds: &Crds, key: &str, value: Option<&[u8]>, revision: Revision) {
    let name = name_of(key);
    if crds.revision_of(name) >= revision {
        return;
    }
    let crd: Option<Value> = value
        .and_then(|v| crate::object::parse_stored(v).ok())
        .map(Value::Object);
    serve_at(crds, name, crd.as_ref(), revision);
}

/// Serves `crd` (nothing when `None`) under `name` as of `revision`.
fn serve_at(crds: &Crds, name: &str, crd: Option<&Value>, revision: Revision) {
    let previous = crds.by_name(name);
    let entry = crd.and_then(|c| definition::served(c, previous.as_deref()));
    crds.set_at(name, revision, entry);
}

fn name_of(key: &str) -> &str {
    key.rsplit('/').next().unwrap_or("")
}

/// Updates the registry for the CRD under `kv.key` at `revision` (deleted when `value` is
/// `None`), and starts its cleanup when it is being deleted.
fn refresh(
    store: &Arc<dyn Storage>,
    crds: &Arc<Crds>,
    kv: &KeyValue,
    value: Option<&[u8]>,
    revision: Revision,
) {
    let key = &kv.key;
    let name = name_of(key);
    let crd: Option<Value> = value
        .and_then(|v| crate::object::parse_stored(v).ok())
        .map(Value::Object);
    serve_at(crds, name, crd.as_ref(), revision);
    if let Some(crd) = crd
        && crd
            .pointer("/metadata/deletionTimestamp")
            .is_some_and(|t| !t.is_null())
    {
        let (store, crds) = (store.clone(), crds.clone());
        let key = key.to_owned();
        std::thread::spawn(move || {
            if let Err(e) = clean_up(&store, &crds, &key, &crd) {
                eprintln!("kcel-apiserver: cleaning up {key}: {e}");
            }
        });
    }
}

/// Deletes every object of a deleted CRD, then its cleanup finalizer (and with it the CRD
/// when no other finalizer holds it).
fn clean_up(
    store: &Arc<dyn Storage>,
    crds: &Crds,
    key: &str,
    crd: &Value,
) -> Result<(), StorageError> {
    let group = crd
        .pointer("/spec/group")
        .and_then(Value::as_str)
        .unwrap_or("");
    let plural = crd
        .pointer("/spec/names/plural")
        .and_then(Value::as_str)
        .unwrap_or("");
    if !group.is_empty() && !plural.is_empty() {
        let range = store.range(&RangeRequest::prefix(objects_prefix(group, plural)))?;
        for kv in range.kvs {
            match store.delete(&kv.key, kv.mod_revision) {
                Ok(_) | Err(StorageError::NotFound { .. }) | Err(StorageError::Conflict { .. }) => {
                }
                Err(e) => return Err(e),
            }
        }
    }
    for _ in 0..10 {
        let (kv, at) = store.get(key, None)?;
        let Some(kv) = kv else {
            crds.set_at(name_of(key), at, None);
            return Ok(());
        };
        let mut crd: Value =
            crate::object::parse_stored(&kv.value).map_or(Value::Null, Value::Object);
        let Some(finalizers) = crd
            .pointer_mut("/metadata/finalizers")
            .and_then(Value::as_array_mut)
        else {
            return Ok(());
        };
        finalizers.retain(|f| f != CLEANUP_FINALIZER);
        let result = if finalizers.is_empty() {
            store.delete(key, kv.mod_revision).map(|(_, at)| Err(at))
        } else {
            let bytes = serde_json::to_vec(&crd).unwrap_or_default();
            store.update(key, &bytes, kv.mod_revision).map(Ok)
        };
        match result {
            Ok(Err(deleted_at)) => {
                crds.set_at(name_of(key), deleted_at, None);
                return Ok(());
            }
            Ok(Ok(kv)) => {
                learn(crds, &kv.key, Some(&kv.value), kv.mod_revision);
                return Ok(());
            }
            Err(StorageError::Conflict { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

impl Tracked {
    fn after_write(&self, kv: &KeyValue, value: Option<&[u8]>, revision: Revision) {
        if kv.key.starts_with(&crd_prefix()) {
            refresh(&self.inner, &self.crds, kv, value, revision);
        }
    }
}

impl Delegating for Tracked {
    fn inner(&self) -> &dyn Storage {
        &*self.inner
    }

    fn create(&self, key: &str, value: &[u8]) -> Result<KeyValue, StorageError> {
        let kv = self.inner.create(key, value)?;
        self.after_write(&kv, Some(value), kv.mod_revision);
        Ok(kv)
    }

    fn update(
        &self,
        key: &str,
        value: &[u8],
        expected: Revision,
    ) -> Result<KeyValue, StorageError> {
        let kv = self.inner.update(key, value, expected)?;
        self.after_write(&kv, Some(value), kv.mod_revision);
        Ok(kv)
    }

    fn delete(&self, key: &str, expected: Revision) -> Result<(KeyValue, Revision), StorageError> {
        let deleted = self.inner.delete(key, expected)?;
        self.after_write(&deleted.0, None, deleted.1);
        Ok(deleted)
    }
}
