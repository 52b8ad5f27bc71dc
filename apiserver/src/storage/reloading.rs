//! State derived from the stored objects under a few key prefixes (the admission policies,
//! the RBAC objects), kept current: loaded at start, reloaded after every write under those
//! prefixes through this server before the write is acknowledged ([`track`]: a client that
//! saw its binding created is judged by it at once), and on every change another server
//! makes to the same store ([`watch`]).

use std::sync::Arc;

use futures_util::future::select_all;

use super::{Delegating, KeyValue, Revision, Storage, StorageError};

/// State rebuilt from the stored objects under [`Reload::prefixes`].
pub trait Reload: Send + Sync + 'static {
    /// What is reloaded, for the log line of a failed reload.
    const WHAT: &'static str;

    /// The key prefixes whose objects the state is built from.
    fn prefixes(&self) -> Vec<String>;

    /// Rebuilds the state from `store`.
    fn reload(&self, store: &dyn Storage) -> Result<(), StorageError>;
}

/// A store whose writes under the target's prefixes reload it before they are acknowledged.
struct Tracked<R> {
    inner: Arc<dyn Storage>,
    target: Arc<R>,
    prefixes: Vec<String>,
}

/// Wraps `inner`, loading `target` from it first.
pub fn track<R: Reload>(
    inner: Arc<dyn Storage>,
    target: Arc<R>,
) -> Result<Arc<dyn Storage>, StorageError> {
    target.reload(&*inner)?;
    let prefixes = target.prefixes();
    Ok(Arc::new(Tracked {
        inner,
        target,
        prefixes,
    }))
}

impl<R: Reload> Tracked<R> {
    fn after_write(&self, key: &str) {
        if self.prefixes.iter().any(|p| key.starts_with(p.as_str()))
            && let Err(e) = self.target.reload(&*self.inner)
        {
            eprintln!("kcel-apiserver: reloading {}: {e}", R::WHAT);
        }
    }
}

impl<R: Reload> Delegating for Tracked<R> {
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

/// Reloads `target` whenever an object under its prefixes changes in the store (writes of
/// other servers sharing it), until one of the store's watches ends.
pub async fn watch<R: Reload>(store: Arc<dyn Storage>, target: Arc<R>) {
    let Ok(mut watches) = target
        .prefixes()
        .iter()
        .map(|p| store.watch(p, None))
        .collect::<Result<Vec<_>, _>>()
    else {
        return;
    };
    if watches.is_empty() {
        return;
    }
    loop {
        let (event, _, _) = select_all(watches.iter_mut().map(|w| Box::pin(w.recv()))).await;
        if event.is_none() {
            return;
        }
        for w in &mut watches {
            w.drain();
        }
        let (store, target) = (store.clone(), target.clone());
        let reloaded = tokio::task::spawn_blocking(move || target.reload(&*store)).await;
        if let Ok(Err(e)) = reloaded {
            eprintln!("kcel-apiserver: reloading {}: {e}", R::WHAT);
        }
    }
}
