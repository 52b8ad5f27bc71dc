//! The reads a resource's cache cannot answer from its own state, sent to the store: a
//! consistent list on an etcd that answers no progress requests (3.4 before 3.4.31, 3.5
//! before 3.5.13) that no freshness proof covers (`fresh_proof`: a first page smaller than
//! the prefix, a cache behind the store), a page at a revision after the resource changed,
//! a cache that did not reach the store's revision in time.
//!
//! On a remote store (etcd: `exact_progress` is false) such a read asks for the range's keys
//! and revisions only ([`Storage::range_keys`], etcd's `keys_only`) and takes the value of
//! every key the cache holds at the same `create_revision` and `mod_revision` from memory (a
//! key's value at one revision never changes, so the result is the store's at the read's
//! revision exactly), with its shard hashes: a sharded list then moves the keys of the
//! objects it leaves out, not their values. The values the cache lacks (written since it last
//! heard, or replaced since the requested revision) are read at the same revision
//! ([`Storage::get_all_at`]), up to [`FETCH_AT_MOST`] of them; with more, the whole range is
//! read again at that revision. A read without a revision whose second read finds that
//! revision compacted in between is read again whole, once, at the current revision (a list
//! without a resourceVersion never answers 410).
//!
//! An embedded store reads values as cheaply as keys: there the range is read whole, and the
//! objects the cache holds at the same revisions are told apart by their kept hashes.

use super::super::shard_fields::matches_stored;
use super::super::{
    KeyValue, MAX_TXN_OPS, RangeRequest, Revision, ShardSelector, ShardedRange, StorageError,
};
use super::{Entry, ResourceCache, WatchCache, lock};

/// The most values a read takes from the store by key after a keys-only range (one etcd
/// transaction); with more missing from the cache, the range is read whole again.
pub(super) const FETCH_AT_MOST: usize = MAX_TXN_OPS;

/// One key of a keys-only range: its value from the cache, or still to be read.
enum Slot {
    Held(KeyValue),
    Missing,
}

impl ResourceCache {
    /// The cache's entry for `key` if it holds the key's value at these revisions.
    fn entry_at(&self, key: &KeyValue) -> Option<&Entry> {
        self.objects.get(&key.key).filter(|entry| {
            entry.kv.mod_revision == key.mod_revision
                && entry.kv.create_revision == key.create_revision
        })
    }
}

impl WatchCache {
    /// A range of the store, kept to `selector`'s shard when one is given (see the module
    /// documentation).
    pub(super) fn store_range(
        &self,
        request: &RangeRequest,
        selector: Option<&ShardSelector>,
    ) -> Result<ShardedRange, StorageError> {
        // Only a running cache helps (a read does not start one: a watch from a revision it
        // would then cover is the store's, 410 after a compaction).
        if !self.store.exact_progress()
            && let Some(root) = self.cached_root(&request.prefix)
            && lock(&self.shared).resources.contains_key(&root)
        {
            let through_keys = self.range_through_keys(&root, request, selector);
            match through_keys {
                Ok(Some(found)) => return Ok(found),
                Ok(None) => {}
                // Compacted between the two reads of a consistent read: read it whole, now.
                Err(StorageError::Compacted { .. }) if request.revision.is_none() => {}
                Err(other) => return Err(other),
            }
        }
        self.range_with_values(request, selector)
    }

    /// The range read whole, values and all; the objects the cache holds at the same
    /// revisions are told apart by the hashes kept with them, the others by their stored
    /// JSON's shard field.
    fn range_with_values(
        &self,
        request: &RangeRequest,
        selector: Option<&ShardSelector>,
    ) -> Result<ShardedRange, StorageError> {
        let response = self.store.range(request)?;
        let Some(selector) = selector else {
            return Ok(ShardedRange::whole(response));
        };
        let root = self.cached_root(&request.prefix);
        let inner = lock(&self.shared);
        let cache = root.and_then(|root| inner.resources.get(&root));
        Ok(ShardedRange::split(response, |kv| {
            match cache.and_then(|c| c.entry_at(kv)) {
                Some(entry) => entry.shard.matches(selector),
                None => matches_stored(selector, &kv.value),
            }
        }))
    }

    /// The keys of the range from the store, their values from the running cache of `root`
    /// and, for the few it lacks, from the store at the same revision.
    /// `None` when the cache stopped, lacks more than [`FETCH_AT_MOST`] values or the store's answers
    /// disagree: the caller reads the range whole.
    fn range_through_keys(
        &self,
        root: &str,
        request: &RangeRequest,
        selector: Option<&ShardSelector>,
    ) -> Result<Option<ShardedRange>, StorageError> {
        let keys = self.store.range_keys(request)?;
        let at: Revision = keys.revision;
        let examined = keys.kvs.len();
        let last_key = keys.kvs.last().map(|kv| kv.key.clone());
        let mut slots = Vec::new();
        let mut missing = Vec::new();
        let inner = lock(&self.shared);
        let Some(cache) = inner.resources.get(root) else {
            // Its storage watch ended meanwhile.
            return Ok(None);
        };
        for key in keys.kvs {
            match cache.entry_at(&key) {
                Some(entry) => {
                    if selector.is_none_or(|s| entry.shard.matches(s)) {
                        slots.push(Slot::Held(entry.kv.clone()));
                    }
                }
                None if missing.len() < FETCH_AT_MOST => {
                    slots.push(Slot::Missing);
                    missing.push(key.key);
                }
                None => {
                    drop(inner);
                    return self.whole_at(request, at, selector).map(Some);
                }
            }
        }
        drop(inner);
        let mut fetched = if missing.is_empty() {
            Vec::new()
        } else {
            self.store.get_all_at(&missing, at)?
        }
        .into_iter();
        let mut wanted = missing.iter();
        let mut kvs = Vec::with_capacity(slots.len());
        for slot in slots {
            match slot {
                Slot::Held(kv) => kvs.push(kv),
                Slot::Missing => {
                    // Live at `at` by the keys-only read, so the read at `at` has it.
                    let (Some(kv), Some(key)) = (fetched.next(), wanted.next()) else {
                        return Ok(None);
                    };
                    if kv.key != *key {
                        return Ok(None);
                    }
                    if selector.is_none_or(|s| matches_stored(s, &kv.value)) {
                        kvs.push(kv);
                    }
                }
            }
        }
        Ok(Some(ShardedRange {
            kvs,
            last_key,
            examined,
            revision: at,
            more: keys.more,
            count: keys.count,
        }))
    }

    /// The range read whole at `at` (the revision of its keys-only read).
    fn whole_at(
        &self,
        request: &RangeRequest,
        at: Revision,
        selector: Option<&ShardSelector>,
    ) -> Result<ShardedRange, StorageError> {
        self.range_with_values(&request.clone().at_revision(at), selector)
    }
}
