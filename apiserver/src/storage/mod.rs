//! Storage: the subset of etcd that kube-apiserver uses, behind one trait.
//!
//! Every write gets the next store-wide [`Revision`]; a key's `mod_revision` is the revision of
//! its last write, and that number is what the API layer shows as `resourceVersion`. Nothing
//! above this trait invents revisions. The operations mirror the etcd transactions
//! kube-apiserver issues (`Txn(If mod_revision == N, Put)` and friends), so that an etcd backend
//! can implement the same trait later:
//!
//! | operation | etcd shape |
//! | --- | --- |
//! | [`Storage::range`] | `Range(prefix, limit, from key, at revision)` |
//! | [`Storage::range_keys`] | the same with `keys_only` |
//! | [`Storage::keys_modified_after`] | `Range(prefix, keys_only, min_mod_revision)` |
//! | [`Storage::get_all_at`] | `Txn(Range(key, at revision), ...)` |
//! | [`Storage::create`] | `Txn(If mod_revision == 0, Put)` |
//! | [`Storage::update`] | `Txn(If mod_revision == N, Put)` |
//! | [`Storage::delete`] | `Txn(If mod_revision == N, Delete)` |
//! | [`Storage::watch`] | `Watch(prefix, start_revision, prev_kv)` |
//! | [`Storage::watch_with_progress`] | the same with `progress_notify` |
//! | [`Storage::compact`] | `Compact(revision)` |
//!
//! Backends: [`sqlite::SqliteStorage`] (the embedded default), [`memory::MemoryStorage`]
//! (for unit tests) and, with the cargo feature `etcd`, `etcd::EtcdStorage` (etcd v3 through
//! the `etcd-client` crate, for several servers on one store). All pass one conformance suite
//! (`tests/storage_conformance.rs`). Wrappers ([`cache::WatchCache`], the CRD tracker)
//! implement [`Delegating`], which passes every call they do not override to the inner store.
//!
//! The trait is synchronous: SQLite is a blocking library, and its calls are short. The HTTP
//! layer calls it through `tokio::task::spawn_blocking`; the etcd backend polls its
//! asynchronous client's calls on that blocking thread, while the client's connection runs on
//! a one-thread runtime of its own. A read that only a running watch cache answers,
//! [`Storage::get_held`], needs no blocking thread.

pub mod cache;
mod delegate;
#[cfg(feature = "etcd")]
pub mod etcd;
pub mod keys;
pub mod memory;
pub mod reloading;
pub mod shard_fields;
pub mod sqlite;
mod storage_error;
mod watch_hub;

pub use delegate::Delegating;
pub use kcel_stdlib::kubernetes::sharding::ShardSelector;
pub use storage_error::StorageError;
pub use watch_hub::{EventKind, ProgressRequester, Watch, WatchEvent};

/// The most operations etcd accepts in one transaction by default (`--max-txn-ops`, 128).
pub const MAX_TXN_OPS: usize = 128;

/// A store-wide revision: the count of writes the store has committed. The first write gets
/// revision 1; an empty store is at revision 0.
pub type Revision = i64;

/// A key with its value and revisions, as etcd returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    /// The key, e.g. `/registry/configmaps/default/demo`.
    pub key: String,
    /// The stored bytes (JSON objects for the API layer).
    pub value: Vec<u8>,
    /// The revision at which the key was created (since its last deletion).
    pub create_revision: Revision,
    /// The revision of the key's last write.
    pub mod_revision: Revision,
}

/// What to read with [`Storage::range`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RangeRequest {
    /// Read the keys that start with this prefix (the empty prefix reads every key).
    pub prefix: String,
    /// Start at this key instead of the prefix's first key (a continue token's position).
    /// Keys before it are skipped; it is included if present.
    pub from_key: Option<String>,
    /// Return at most this many keys; `None` or `Some(0)` returns all.
    pub limit: Option<usize>,
    /// Read the state as of this revision instead of the current one.
    pub revision: Option<Revision>,
    /// Any recent state will do (a list with `resourceVersion=0`): a watch cache may answer
    /// from memory, at the revision it has reached, without `limit` (as kube-apiserver's
    /// cacher serves such lists). Backends ignore it.
    pub any_recent: bool,
}

impl RangeRequest {
    /// A request for every live key under `prefix` at the current revision.
    pub fn prefix(prefix: impl Into<String>) -> Self {
        RangeRequest {
            prefix: prefix.into(),
            ..RangeRequest::default()
        }
    }

    /// The same request, starting at `key`.
    pub fn from_key(mut self, key: impl Into<String>) -> Self {
        self.from_key = Some(key.into());
        self
    }

    /// The same request, returning at most `limit` keys.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// The same request, read at `revision`.
    pub fn at_revision(mut self, revision: Revision) -> Self {
        self.revision = Some(revision);
        self
    }

    /// The first key to read: the later of the prefix and `from_key`.
    pub fn start_key(&self) -> &str {
        match &self.from_key {
            Some(from) if from.as_str() > self.prefix.as_str() => from,
            _ => &self.prefix,
        }
    }
}

/// What [`Storage::range`] read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeResponse {
    /// The live keys in key order, at most `limit` of them.
    pub kvs: Vec<KeyValue>,
    /// The revision the read was served at (the requested one, or the current one). A list's
    /// `resourceVersion` and a continue token's snapshot are this number.
    pub revision: Revision,
    /// Whether keys beyond the limit remain.
    pub more: bool,
    /// How many live keys the range holds from its start key on, beyond the limit too.
    pub count: usize,
}

/// What [`Storage::keys_modified_after`] read under a prefix, in one read at the store's
/// current revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModifiedKeys {
    /// The revision the read was served at (the store's current one).
    pub revision: Revision,
    /// How many live keys the prefix holds at `revision`, modified recently or not.
    pub count: usize,
    /// The live keys whose `mod_revision` is after the given revision, in key order, with
    /// their revisions and empty values.
    pub kvs: Vec<KeyValue>,
}

/// What [`Storage::range_in_shard`] read: of the keys [`Storage::range`] would have returned,
/// the objects in the shard (in key order) and the last key examined, so that a page's continue
/// key can follow it whether that object was in the shard or not. The objects outside are
/// neither copied nor listed: a sharded list examines four times what it answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardedRange {
    /// The objects in the shard, in key order.
    pub kvs: Vec<KeyValue>,
    /// The last key examined (in the shard or not); `None` when the range was empty.
    pub last_key: Option<String>,
    /// How many keys were examined, at most `limit`.
    pub examined: usize,
    /// As [`RangeResponse::revision`].
    pub revision: Revision,
    /// As [`RangeResponse::more`].
    pub more: bool,
    /// As [`RangeResponse::count`].
    pub count: usize,
}

impl ShardedRange {
    /// Keeps the objects of a range that `in_shard` keeps (moved, not copied).
    pub fn split(response: RangeResponse, mut in_shard: impl FnMut(&KeyValue) -> bool) -> Self {
        let examined = response.kvs.len();
        let mut kvs = response.kvs;
        let last_key = kvs.last().map(|kv| kv.key.clone());
        kvs.retain(|kv| in_shard(kv));
        ShardedRange {
            kvs,
            last_key,
            examined,
            revision: response.revision,
            more: response.more,
            count: response.count,
        }
    }

    /// A whole range (no selector): every object is kept.
    pub fn whole(response: RangeResponse) -> Self {
        ShardedRange::split(response, |_| true)
    }

    /// The range a whole read (every object kept) answers as [`Storage::range`] does.
    pub fn into_range(self) -> RangeResponse {
        RangeResponse {
            kvs: self.kvs,
            revision: self.revision,
            more: self.more,
            count: self.count,
        }
    }
}

/// The storage of the API server: etcd's key-value subset used by kube-apiserver.
///
/// Implementations are shared between request handlers (`Arc<dyn Storage>`), serialize their
/// writes, and deliver watch events in revision order.
pub trait Storage: Send + Sync {
    /// The revision of the last committed write (0 for an empty store).
    fn current_revision(&self) -> Result<Revision, StorageError>;

    /// The oldest revision that reads and watches may still ask for (0 before any compaction).
    fn compacted_revision(&self) -> Result<Revision, StorageError>;

    /// The live value of one key, at `revision` or the current revision, with the revision the
    /// read was served at.
    fn get(
        &self,
        key: &str,
        revision: Option<Revision>,
    ) -> Result<(Option<KeyValue>, Revision), StorageError>;

    /// The live value of one key in any recent state (a read with `resourceVersion=0`, or
    /// an admission check that upstream answers from an informer): the watch cache answers
    /// from memory when it holds the key's resource and the key, the store otherwise.
    fn get_recent(&self, key: &str) -> Result<Option<KeyValue>, StorageError> {
        self.get(key, None).map(|(kv, _)| kv)
    }

    /// The watch cache's copy of one key, which may lag behind the store: `None` when no
    /// cache holds the key's resource and the key, or when the store answers as fast and
    /// exactly (the embedded backends), so the caller reads the store. A write starts from
    /// it as kube-apiserver's cacher hands its copy to `GuaranteedUpdate`
    /// (`cachedExistingObject`): the write's revision guard catches a stale copy, and the
    /// writer then reads the store and tries again.
    fn get_cached(&self, key: &str) -> Result<Option<KeyValue>, StorageError> {
        let _ = key;
        Ok(None)
    }

    /// The running watch cache's copy of one key, read without I/O and without starting a
    /// cache, so an async thread may ask it: `None` when no running cache holds the key (or
    /// the store answers as fast and exactly, as [`Storage::get_cached`]), and the caller then
    /// asks [`Storage::get_recent`] from a blocking thread. The same copy, lag included, that
    /// [`Storage::get_recent`] answers when the cache holds the key.
    fn get_held(&self, key: &str) -> Option<KeyValue> {
        let _ = key;
        None
    }

    /// The live keys under a prefix, in key order (see [`RangeRequest`]).
    ///
    /// Fails with [`StorageError::Compacted`] below the compaction revision and
    /// [`StorageError::FutureRevision`] beyond the current one.
    fn range(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError>;

    /// [`Storage::range`] without the values: the same keys with their revisions and empty
    /// values (etcd's `keys_only`), and the same `revision`, `more` and `count`. A watch cache
    /// that holds the values at those revisions takes them from memory (a key's value at one
    /// `mod_revision` never changes) and asks [`Storage::get_all_at`] for the rest. The default
    /// reads the range and drops the values: only a remote store saves anything.
    fn range_keys(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
        let mut response = self.range(request)?;
        for kv in &mut response.kvs {
            kv.value = Vec::new();
        }
        Ok(response)
    }

    /// The live keys under `prefix` created or modified after revision `after` (keys and
    /// revisions, empty values) and how many live keys the prefix holds in all, read at the
    /// store's current revision in one read: etcd's `keys_only` Range with
    /// `min_mod_revision = after + 1`, whose `count` etcd takes before that filter
    /// (`etcdserver/apply.go`, `Range`: the mvcc range counts, then `pruneKVs`). A watch
    /// cache whose objects under the prefix number `count` and hold every returned key at
    /// its revision then holds the prefix's state at that revision exactly (a delete since
    /// would lower the count, a create or update would be returned): a consistent read
    /// without progress requests. The default reads the keys and filters them.
    fn keys_modified_after(
        &self,
        prefix: &str,
        after: Revision,
    ) -> Result<ModifiedKeys, StorageError> {
        let mut response = self.range_keys(&RangeRequest::prefix(prefix))?;
        response.kvs.retain(|kv| kv.mod_revision > after);
        Ok(ModifiedKeys {
            revision: response.revision,
            count: response.count,
            kvs: response.kvs,
        })
    }

    /// The live values of `keys` at `revision`, in the order of `keys` (a key without a live
    /// value then is left out), in as few round trips as the backend can (etcd: one
    /// transaction of gets per [`MAX_TXN_OPS`] keys). Fails like a read at `revision`. The
    /// default gets each key.
    fn get_all_at(
        &self,
        keys: &[String],
        revision: Revision,
    ) -> Result<Vec<KeyValue>, StorageError> {
        let mut found = Vec::with_capacity(keys.len());
        for key in keys {
            found.extend(self.get(key, Some(revision))?.0);
        }
        Ok(found)
    }

    /// [`Storage::range`] keeping the objects in `selector`'s shard: those, in order, and the
    /// last key the range examined (`count` and `more` describe the whole range, and a page's
    /// continue key follows the last key examined, as upstream's `GetList`). A store reads each value's shard field out of its
    /// JSON without building the object ([`shard_fields::matches_stored`]); the watch cache tests
    /// the hashes it computed when the object entered it ([`shard_fields::ShardKeys`]) and neither
    /// copies nor lists the others (a sharded list examines four times what it answers).
    fn range_in_shard(
        &self,
        request: &RangeRequest,
        selector: &ShardSelector,
    ) -> Result<ShardedRange, StorageError> {
        let response = self.range(request)?;
        Ok(ShardedRange::split(response, |kv| {
            shard_fields::matches_stored(selector, &kv.value)
        }))
    }

    /// Stores `value` under `key` if the key has no live value; returns the new key-value.
    ///
    /// Fails with [`StorageError::AlreadyExists`] otherwise.
    fn create(&self, key: &str, value: &[u8]) -> Result<KeyValue, StorageError>;

    /// Replaces the value under `key` if its `mod_revision` is `expected`; returns the new
    /// key-value.
    ///
    /// Fails with [`StorageError::NotFound`] when the key has no live value and with
    /// [`StorageError::Conflict`] when it was modified at another revision.
    fn update(&self, key: &str, value: &[u8], expected: Revision)
    -> Result<KeyValue, StorageError>;

    /// Deletes `key` if its `mod_revision` is `expected`; returns the deleted key-value and the
    /// revision of the deletion.
    ///
    /// Fails like [`Storage::update`].
    fn delete(&self, key: &str, expected: Revision) -> Result<(KeyValue, Revision), StorageError>;

    /// Watches the keys under `prefix`: first every change from revision `from` on (if given;
    /// history is replayed), then every later change, each exactly once and in revision order.
    /// Without `from`, only changes after the current revision are delivered.
    ///
    /// Fails with [`StorageError::Compacted`] when `from` is below the compaction revision.
    fn watch(&self, prefix: &str, from: Option<Revision>) -> Result<Watch, StorageError>;

    /// Like [`Storage::watch`], and the stream also carries [`EventKind::Progress`] events
    /// when the backend learns that the store reached a revision without a change under
    /// `prefix` (etcd's progress notifications), or that a revision whose events it sent is
    /// complete (etcd: after each response's events). Backends without them watch as
    /// [`Storage::watch`] does.
    fn watch_with_progress(
        &self,
        prefix: &str,
        from: Option<Revision>,
    ) -> Result<Watch, StorageError> {
        self.watch(prefix, from)
    }

    /// Whether [`Storage::watch_with_progress`] reports every write outside the watched prefix
    /// as progress, in revision order with the events (the embedded backends, under their
    /// write lock): a watcher that has seen revision R then knows the store's state under
    /// its prefix at R exactly, so a watch cache can serve consistent reads. etcd's periodic
    /// notifications are not enough for that (and kube-apiserver asks etcd for progress only
    /// from 3.4.31 / 3.5.13 on: k8s.io/apiserver `pkg/storage/feature`).
    fn exact_progress(&self) -> bool {
        false
    }

    /// Whether the watches of [`Storage::watch_with_progress`] answer progress requests
    /// ([`Watch::progress_requester`]) with a progress event at the store's revision once
    /// every earlier change under the prefix has been delivered: a watch cache that asks, and
    /// waits until it has reached the store's current revision, then knows the store's state
    /// under its prefix and can serve consistent reads (kube-apiserver's
    /// consistent-reads-from-cache). etcd does so from 3.4.31 / 3.5.13 on; kube-apiserver
    /// relies on it only there (k8s.io/apiserver `pkg/storage/feature`), and so does the etcd
    /// backend.
    fn progress_requests(&self) -> bool {
        false
    }

    /// Forgets the history before `revision`: reads and watches at older revisions fail with
    /// [`StorageError::Compacted`] afterwards, while every state from `revision` on stays
    /// readable. Values superseded before `revision` are removed.
    ///
    /// Fails with [`StorageError::Compacted`] if the store is already compacted at or beyond
    /// `revision`, and with [`StorageError::FutureRevision`] beyond the current revision.
    fn compact(&self, revision: Revision) -> Result<(), StorageError>;
}

/// Checks a read revision against the compaction point and the current revision.
pub(crate) fn check_read_revision(
    requested: Revision,
    compacted: Revision,
    current: Revision,
) -> Result<(), StorageError> {
    if requested < compacted {
        return Err(StorageError::Compacted {
            requested,
            compacted,
        });
    }
    if requested > current {
        return Err(StorageError::FutureRevision { requested, current });
    }
    Ok(())
}

/// Checks a compaction revision against the compaction point and the current revision.
pub(crate) fn check_compact_revision(
    requested: Revision,
    compacted: Revision,
    current: Revision,
) -> Result<(), StorageError> {
    if requested <= compacted {
        return Err(StorageError::Compacted {
            requested,
            compacted,
        });
    }
    if requested > current {
        return Err(StorageError::FutureRevision { requested, current });
    }
    Ok(())
}
