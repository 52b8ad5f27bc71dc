//! A base for storage wrappers: a [`Delegating`] type names the store it wraps and is a
//! [`Storage`] that passes every call through, except the ones it overrides. The watch
//! cache, the CRD tracker and the admission policies' tracker are built on it, each
//! overriding only what it adds (so no read a wrapper does not change falls to a trait
//! default that would copy a whole range out of the cache or ask etcd).

use super::{
    KeyValue, ModifiedKeys, RangeRequest, RangeResponse, Revision, ShardSelector, ShardedRange,
    Storage, StorageError, Watch,
};

/// A store that wraps another: every [`Storage`] method defaults to the inner store's, and a
/// wrapper overrides the ones it changes. Every `Delegating` type is a [`Storage`].
pub trait Delegating: Send + Sync {
    /// The wrapped store.
    fn inner(&self) -> &dyn Storage;

    /// See [`Storage::current_revision`].
    fn current_revision(&self) -> Result<Revision, StorageError> {
        self.inner().current_revision()
    }

    /// See [`Storage::compacted_revision`].
    fn compacted_revision(&self) -> Result<Revision, StorageError> {
        self.inner().compacted_revision()
    }

    /// See [`Storage::get`].
    fn get(
        &self,
        key: &str,
        revision: Option<Revision>,
    ) -> Result<(Option<KeyValue>, Revision), StorageError> {
        self.inner().get(key, revision)
    }

    /// See [`Storage::get_recent`].
    fn get_recent(&self, key: &str) -> Result<Option<KeyValue>, StorageError> {
        self.inner().get_recent(key)
    }

    /// See [`Storage::get_cached`].
    fn get_cached(&self, key: &str) -> Result<Option<KeyValue>, StorageError> {
        self.inner().get_cached(key)
    }

    /// See [`Storage::get_held`].
    fn get_held(&self, key: &str) -> Option<KeyValue> {
        self.inner().get_held(key)
    }

    /// See [`Storage::range`].
    fn range(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
        self.inner().range(request)
    }

    /// See [`Storage::range_keys`].
    fn range_keys(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
        self.inner().range_keys(request)
    }

    /// See [`Storage::keys_modified_after`].
    fn keys_modified_after(
        &self,
        prefix: &str,
        after: Revision,
    ) -> Result<ModifiedKeys, StorageError> {
        self.inner().keys_modified_after(prefix, after)
    }

    /// See [`Storage::get_all_at`].
    fn get_all_at(
        &self,
        keys: &[String],
        revision: Revision,
    ) -> Result<Vec<KeyValue>, StorageError> {
        self.inner().get_all_at(keys, revision)
    }

    /// See [`Storage::range_in_shard`].
    fn range_in_shard(
        &self,
        request: &RangeRequest,
        shard: &ShardSelector,
    ) -> Result<ShardedRange, StorageError> {
        self.inner().range_in_shard(request, shard)
    }

    /// See [`Storage::create`].
    fn create(&self, key: &str, value: &[u8]) -> Result<KeyValue, StorageError> {
        self.inner().create(key, value)
    }

    /// See [`Storage::update`].
    fn update(
        &self,
        key: &str,
        value: &[u8],
        expected: Revision,
    ) -> Result<KeyValue, StorageError> {
        self.inner().update(key, value, expected)
    }

    /// See [`Storage::delete`].
    fn delete(&self, key: &str, expected: Revision) -> Result<(KeyValue, Revision), StorageError> {
        self.inner().delete(key, expected)
    }

    /// See [`Storage::watch`].
    fn watch(&self, prefix: &str, from: Option<Revision>) -> Result<Watch, StorageError> {
        self.inner().watch(prefix, from)
    }

    /// See [`Storage::watch_with_progress`].
    fn watch_with_progress(
        &self,
        prefix: &str,
        from: Option<Revision>,
    ) -> Result<Watch, StorageError> {
        self.inner().watch_with_progress(prefix, from)
    }

    /// See [`Storage::exact_progress`].
    fn exact_progress(&self) -> bool {
        self.inner().exact_progress()
    }

    /// See [`Storage::progress_requests`].
    fn progress_requests(&self) -> bool {
        self.inner().progress_requests()
    }

    /// See [`Storage::compact`].
    fn compact(&self, revision: Revision) -> Result<(), StorageError> {
        self.inner().compact(revision)
    }
}

impl<T: Delegating> Storage for T {
    fn current_revision(&self) -> Result<Revision, StorageError> {
        Delegating::current_revision(self)
    }

    fn compacted_revision(&self) -> Result<Revision, StorageError> {
        Delegating::compacted_revision(self)
    }

    fn get(
        &self,
        key: &str,
        revision: Option<Revision>,
    ) -> Result<(Option<KeyValue>, Revision), StorageError> {
        Delegating::get(self, key, revision)
    }

    fn get_recent(&self, key: &str) -> Result<Option<KeyValue>, StorageError> {
        Delegating::get_recent(self, key)
    }

    fn get_cached(&self, key: &str) -> Result<Option<KeyValue>, StorageError> {
        Delegating::get_cached(self, key)
    }

    fn get_held(&self, key: &str) -> Option<KeyValue> {
        Delegating::get_held(self, key)
    }

    fn range(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
        Delegating::range(self, request)
    }

    fn range_keys(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
        Delegating::range_keys(self, request)
    }

    fn keys_modified_after(
        &self,
        prefix: &str,
        after: Revision,
    ) -> Result<ModifiedKeys, StorageError> {
        Delegating::keys_modified_after(self, prefix, after)
    }

    fn get_all_at(
        &self,
        keys: &[String],
        revision: Revision,
    ) -> Result<Vec<KeyValue>, StorageError> {
        Delegating::get_all_at(self, keys, revision)
    }

    fn range_in_shard(
        &self,
        request: &RangeRequest,
        shard: &ShardSelector,
    ) -> Result<ShardedRange, StorageError> {
        Delegating::range_in_shard(self, request, shard)
    }

    fn create(&self, key: &str, value: &[u8]) -> Result<KeyValue, StorageError> {
        Delegating::create(self, key, value)
    }

    fn update(
        &self,
        key: &str,
        value: &[u8],
        expected: Revision,
    ) -> Result<KeyValue, StorageError> {
        Delegating::update(self, key, value, expected)
    }

    fn delete(&self, key: &str, expected: Revision) -> Result<(KeyValue, Revision), StorageError> {
        Delegating::delete(self, key, expected)
    }

    fn watch(&self, prefix: &str, from: Option<Revision>) -> Result<Watch, StorageError> {
        Delegating::watch(self, prefix, from)
    }

    fn watch_with_progress(
        &self,
        prefix: &str,
        from: Option<Revision>,
    ) -> Result<Watch, StorageError> {
        Delegating::watch_with_progress(self, prefix, from)
    }

    fn exact_progress(&self) -> bool {
        Delegating::exact_progress(self)
    }

    fn progress_requests(&self) -> bool {
        Delegating::progress_requests(self)
    }

    fn compact(&self, revision: Revision) -> Result<(), StorageError> {
        Delegating::compact(self, revision)
    }
}
