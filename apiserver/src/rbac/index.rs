//! The RBAC objects of the server's storage, kept current: read whole at start, again after
//! every write of a Role, RoleBinding, ClusterRole or ClusterRoleBinding through this server
//! before the write is acknowledged ([`track`], so a request right after `kubectl create
//! rolebinding` is judged by the binding), and on every change another server makes to the
//! same store ([`watch`]). Readers take an `Arc` of the whole set and never wait.

use std::sync::{Arc, Mutex, RwLock};

use serde::de::DeserializeOwned;

use super::resolver::{Binding, RbacObjects, Role};
use crate::resource::{CLUSTERROLEBINDINGS, CLUSTERROLES, ROLEBINDINGS, ROLES};
use crate::storage::{Delegating, KeyValue, RangeRequest, Revision, Storage, StorageError, keys};

/// The storage prefixes of the four RBAC resources.
fn prefixes() -> [String; 4] {
    [ROLES, ROLEBINDINGS, CLUSTERROLES, CLUSTERROLEBINDINGS].map(|r| keys::prefix(r.plural, None))
}

/// The RBAC objects in effect.
#[derive(Debug, Default)]
pub struct Rbac {
    objects: RwLock<Arc<RbacObjects>>,
    /// Serializes reloads (a reload reads four prefixes, then swaps).
    reload: Mutex<()>,
}

impl Rbac {
    /// The objects in effect.
    pub fn current(&self) -> Arc<RbacObjects> {
        self.objects
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Reads every RBAC object of `store` and puts them in effect.
    pub fn reload(&self, store: &dyn Storage) -> Result<(), StorageError> {
        let _one = self.reload.lock().unwrap_or_else(|e| e.into_inner());
        let [roles, role_bindings, cluster_roles, cluster_role_bindings] = prefixes();
        let objects = RbacObjects::new(
            decoded::<Role>(store, &roles)?,
            decoded::<Binding>(store, &role_bindings)?,
            decoded::<Role>(store, &cluster_roles)?,
            decoded::<Binding>(store, &cluster_role_bindings)?,
        );
        *self.objects.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(objects);
        Ok(())
    }
}

/// The objects stored under `prefix` that decode as `T` (the server stores only objects it
/// validated; anything else is skipped).
fn decoded<T: DeserializeOwned>(store: &dyn Storage, prefix: &str) -> Result<Vec<T>, StorageError> {
    let stored = store.range(&RangeRequest::prefix(prefix))?;
    Ok(stored
        .kvs
        .iter()
        .filter_map(|kv| serde_json::from_slice(&kv.value).ok())
        .collect())
}

/// A store whose writes of RBAC objects reload [`Rbac`] before they are acknowledged.
pub struct Tracked {
    inner: Arc<dyn Storage>,
    rbac: Arc<Rbac>,
}

/// Wraps `inner`, loading its RBAC objects first.
pub fn track(inner: Arc<dyn Storage>, rbac: Arc<Rbac>) -> Result<Arc<dyn Storage>, StorageError> {
    rbac.reload(&*inner)?;
    Ok(Arc::new(Tracked { inner, rbac }))
}

impl Tracked {
    fn after_write(&self, key: &str) {
        if prefixes().iter().any(|p| key.starts_with(p.as_str()))
            && let Err(e) = self.rbac.reload(&*self.inner)
        {
            eprintln!("kcel-apiserver: reloading RBAC objects: {e}");
        }
    }
}

impl Delegating for Tracked {
    fn inner(&self) -> &dyn Storage {
        &*self.inner
    }

    fn create(&self, key: &str, value: &[u8]) -> Result<KeyValue, StorageError> {
        let kv = self.inner.create(key, value)?;
        self.after_write(key);
        Ok(kv)
    }

    fn update(
        &self,
        key: &str,
        value: &[u8],
        expected: Revision,
    ) -> Result<KeyValue, StorageError> {
        let kv = self.inner.update(key, value, expected)?;
        self.after_write(key);
        Ok(kv)
    }

    fn delete(&self, key: &str, expected: Revision) -> Result<(KeyValue, Revision), StorageError> {
        let deleted = self.inner.delete(key, expected)?;
        self.after_write(key);
        Ok(deleted)
    }
}

/// Reloads whenever an RBAC object changes in the store (writes of other servers sharing
/// it), until the store's watch ends.
pub async fn watch(store: Arc<dyn Storage>, rbac: Arc<Rbac>) {
    let [a, b, c, d] = prefixes();
    let (Ok(mut roles), Ok(mut role_bindings), Ok(mut cluster_roles), Ok(mut cluster_bindings)) = (
        store.watch(&a, None),
        store.watch(&b, None),
        store.watch(&c, None),
        store.watch(&d, None),
    ) else {
        return;
    };
    loop {
        let event = tokio::select! {
            e = roles.recv() => e,
            e = role_bindings.recv() => e,
            e = cluster_roles.recv() => e,
            e = cluster_bindings.recv() => e,
        };
        if event.is_none() {
            return;
        }
        roles.drain();
        role_bindings.drain();
        cluster_roles.drain();
        cluster_bindings.drain();
        let (store, rbac) = (store.clone(), rbac.clone());
        let reloaded = tokio::task::spawn_blocking(move || rbac.reload(&*store)).await;
        if let Ok(Err(e)) = reloaded {
            eprintln!("kcel-apiserver: reloading RBAC objects: {e}");
        }
    }
}
