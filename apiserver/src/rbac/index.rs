//! The RBAC objects of the server's storage, kept current: read whole at start, again after
//! every write of a Role, RoleBinding, ClusterRole or ClusterRoleBinding through this server
//! before the write is acknowledged (so a request right after `kubectl create rolebinding` is
//! judged by the binding), and on every change another server makes to the same store (both
//! by [`crate::storage::reloading`]). Readers take an `Arc` of the whole set and never wait.

use std::sync::{Arc, Mutex, RwLock};

use serde::de::DeserializeOwned;

use super::objects::{Binding, Role};
use super::resolver::RbacObjects;
use crate::resource::{CLUSTERROLEBINDINGS, CLUSTERROLES, ROLEBINDINGS, ROLES};
use crate::storage::reloading::Reload;
use crate::storage::{RangeRequest, Storage, StorageError, keys};

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

impl Reload for Rbac {
    const WHAT: &'static str = "RBAC objects";

    fn prefixes(&self) -> Vec<String> {
        prefixes().to_vec()
    }

    fn reload(&self, store: &dyn Storage) -> Result<(), StorageError> {
        Rbac::reload(self, store)
    }
}
