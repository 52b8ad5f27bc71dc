//! Keeps the served custom resources in step with the stored CRDs: a [`Storage`] wrapper
//! that, after every successful write under the CRDs' prefix, updates the registry before the
//! write is acknowledged (so a client that saw its CRD established can use it at once), and
//! runs the cleanup of a deleted CRD (its objects deleted, then its finalizer removed), as
//! apiextensions-apiserver's finalizer controller does.

use std::sync::Arc;

use serde_json::Value;

use super::definition::{self, CLEANUP_FINALIZER};
use super::registry::Crds;
use crate::storage::{Delegating, KeyValue, RangeRequest, Revision, Storage, StorageError, keys};

/// The storage prefix of CustomResourceDefinitions.
pub fn crd_prefix() -> String {
    keys::prefix("apiextensions.k8s.io/customresourcedefinitions", None)
}

/// The storage prefix of a custom resource's objects (every version shares it), as
/// kube-apiserver lays them out: `/registry/<group>/<plural>/`.
pub fn objects_prefix(group: &str, plural: &str) -> String {
    keys::prefix(&format!("{group}/{plural}"), None)
}

/// A store whose CRD writes update the server's registry of served custom resources.
pub struct Tracked {
    inner: Arc<dyn Storage>,
    crds: Arc<Crds>,
}

/// Wraps `inner`, serving the CRDs already stored (in `crds`) and resuming the cleanup of
/// the ones being deleted.
pub fn track(inner: Arc<dyn Storage>, crds: Arc<Crds>) -> Result<Arc<dyn Storage>, StorageError> {
    let range = inner.range(&RangeRequest::prefix(crd_prefix()))?;
    for kv in &range.kvs {
        refresh(&inner, &crds, &kv.key, Some(&kv.value));
    }
    Ok(Arc::new(Tracked { inner, crds }))
}

fn name_of(key: &str) -> &str {
    key.rsplit('/').next().unwrap_or("")
}

/// Updates the registry for the CRD under `key` (deleted when `value` is `None`), and starts
/// its cleanup when it is being deleted.
fn refresh(store: &Arc<dyn Storage>, crds: &Arc<Crds>, key: &str, value: Option<&[u8]>) {
    let name = name_of(key);
    let crd: Option<Value> = value.and_then(|v| serde_json::from_slice(v).ok());
    let previous = crds.by_name(name);
    let entry = crd
        .as_ref()
        .and_then(|c| definition::served(c, previous.as_deref()));
    crds.set(name, entry);
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
        let (Some(kv), _) = store.get(key, None)? else {
            crds.set(name_of(key), None);
            return Ok(());
        };
        let mut crd: Value = serde_json::from_slice(&kv.value).unwrap_or(Value::Null);
        let Some(finalizers) = crd
            .pointer_mut("/metadata/finalizers")
            .and_then(Value::as_array_mut)
        else {
            return Ok(());
        };
        finalizers.retain(|f| f != CLEANUP_FINALIZER);
        let result = if finalizers.is_empty() {
            store.delete(key, kv.mod_revision).map(|_| None)
        } else {
            let bytes = serde_json::to_vec(&crd).unwrap_or_default();
            store.update(key, &bytes, kv.mod_revision).map(Some)
        };
        match result {
            Ok(None) => {
                crds.set(name_of(key), None);
                return Ok(());
            }
            Ok(Some(kv)) => {
                refresh_quietly(crds, &kv);
                return Ok(());
            }
            Err(StorageError::Conflict { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Updates the registry for a CRD write of the cleanup itself (no new cleanup).
fn refresh_quietly(crds: &Crds, kv: &KeyValue) {
    let name = name_of(&kv.key);
    let crd: Option<Value> = serde_json::from_slice(&kv.value).ok();
    let previous = crds.by_name(name);
    let entry = crd
        .as_ref()
        .and_then(|c| definition::served(c, previous.as_deref()));
    crds.set(name, entry);
}

impl Tracked {
    fn after_write(&self, key: &str, value: Option<&[u8]>) {
        if key.starts_with(&crd_prefix()) {
            refresh(&self.inner, &self.crds, key, value);
        }
    }
}

impl Delegating for Tracked {
    fn inner(&self) -> &dyn Storage {
        &*self.inner
    }

    fn create(&self, key: &str, value: &[u8]) -> Result<KeyValue, StorageError> {
        let kv = self.inner.create(key, value)?;
        self.after_write(key, Some(value));
        Ok(kv)
    }

    fn update(
        &self,
        key: &str,
        value: &[u8],
        expected: Revision,
    ) -> Result<KeyValue, StorageError> {
        let kv = self.inner.update(key, value, expected)?;
        self.after_write(key, Some(value));
        Ok(kv)
    }

    fn delete(&self, key: &str, expected: Revision) -> Result<(KeyValue, Revision), StorageError> {
        let deleted = self.inner.delete(key, expected)?;
        self.after_write(key, None);
        Ok(deleted)
    }
}
