//! Consistent reads from the cache on a store that neither reports every write nor answers
//! progress requests (etcd before 3.4.31 / 3.5.13, such as Debian's 3.4.23), when the feed
//! (`feed`) has not reached the store's revision: one read proves the cache fresh for the
//! listed prefix.
//!
//! The cache notes the revision C it has reached and asks the store for the keys under the
//! prefix modified after C, with the count of all its keys, in one read at the store's current
//! revision R ([`Storage::keys_modified_after`](super::Storage::keys_modified_after): etcd's
//! keys-only Range with `min_mod_revision = C + 1`, counted before that filter). The cache's
//! objects under the prefix are the store's state there at R when:
//! - the cache has applied no change after R (its objects are the state at a revision
//!   between C and R, since it had reached C);
//! - it holds every returned key at the same revisions, and no other object with a
//!   `mod_revision` after C;
//! - it holds as many objects under the prefix as the store counts.
//!
//! Then the keys modified after C agree, the others the store still holds unmodified since
//! C, which the cache held at C and still holds (it has seen no change after R), and the
//! equal counts leave none the store deleted since. The read is answered from memory as of
//! R, which is not older than any write acknowledged before the read began. When a returned
//! key is one the cache has not applied yet (its watch event is on the way, as after a write
//! just acknowledged), the cache waits up to [`PROOF_WAIT`] for it and checks again against
//! the same answer; otherwise the store answers.
//!
//! The store still reads every key of the prefix to filter them (etcd's mvcc range), but
//! sends only the few modified ones: the proof is used only when the list would examine the
//! whole prefix anyway (no `limit`, or one at least as large as the prefix).

use std::time::{Duration, Instant};

use super::super::{ModifiedKeys, RangeRequest, Revision, StorageError};
use super::{ResourceCache, WatchCache, lock, wait_until};

/// How long a consistent read waits for the cache to apply the changes a proof returned
/// before the store answers instead (a watch event follows its write within milliseconds).
pub(super) const PROOF_WAIT: Duration = Duration::from_millis(100);

/// What the cache's objects under a prefix are, against a store's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// The store's state at the answer's revision.
    Fresh,
    /// Not yet: the cache lacks changes up to the answer's revision.
    Behind,
    /// Never: the cache has applied a change after the answer's revision.
    Passed,
}

impl ResourceCache {
    /// How many objects the cache holds under `prefix`.
    fn count_under(&self, prefix: &str) -> usize {
        self.walk(&RangeRequest::prefix(prefix), Some(0), |_| {}).0
    }

    /// Whether the objects under `prefix` are the store's state at `found.revision`, given
    /// that the cache had reached `since` when the store was asked for the keys modified
    /// after it (see the module documentation).
    fn verdict(&self, prefix: &str, since: Revision, found: &ModifiedKeys) -> Verdict {
        if self.last_change > found.revision {
            return Verdict::Passed;
        }
        let held = found.kvs.iter().all(|kv| {
            self.objects.get(&kv.key).is_some_and(|entry| {
                entry.kv.mod_revision == kv.mod_revision
                    && entry.kv.create_revision == kv.create_revision
            })
        });
        if !held {
            return Verdict::Behind;
        }
        let mut newer = 0;
        let (count, _) = self.walk(&RangeRequest::prefix(prefix), None, |entry| {
            if entry.kv.mod_revision > since {
                newer += 1;
            }
        });
        if count == found.count && newer == found.kvs.len() {
            Verdict::Fresh
        } else {
            Verdict::Behind
        }
    }
}

impl WatchCache {
    /// A consistent read answered from the running cache of `root` once one store read
    /// proves its objects under the request's prefix current (see the module documentation);
    /// `None` when the cache is not running, the list would examine fewer keys than the
    /// proof reads, or the proof fails: the store answers.
    pub(super) fn read_proven<T>(
        &self,
        root: &str,
        request: &RangeRequest,
        limit: Option<usize>,
        from_cache: &impl Fn(&ResourceCache, Option<usize>, Revision) -> T,
    ) -> Result<Option<T>, StorageError> {
        let prefix = request.prefix.as_str();
        let (since, generation) = {
            let inner = lock(&self.shared);
            // Only a running cache (a read does not start one).
            let Some(cache) = inner.resources.get(root) else {
                return Ok(None);
            };
            if limit.is_some_and(|l| l < cache.count_under(prefix)) {
                return Ok(None);
            }
            (cache.revision, cache.generation)
        };
        let found = self.store.keys_modified_after(prefix, since)?;
        if found.revision < since {
            return Ok(None);
        }
        let deadline = Instant::now() + PROOF_WAIT;
        let mut inner = lock(&self.shared);
        let mut checked_at = None;
        loop {
            let Some(cache) = inner
                .resources
                .get(root)
                .filter(|c| c.generation == generation)
            else {
                return Ok(None);
            };
            // Checked again only once the cache moved.
            if checked_at != Some(cache.revision) {
                checked_at = Some(cache.revision);
                match cache.verdict(prefix, since, &found) {
                    Verdict::Fresh => {
                        // The cache's revision stays: a key created and deleted again
                        // between it and R is invisible to the proof, and its two events
                        // are still to come (so reads at R go on reading the store).
                        let response = from_cache(cache, limit, found.revision);
                        inner.consistent_from_cache += 1;
                        return Ok(Some(response));
                    }
                    Verdict::Passed => return Ok(None),
                    Verdict::Behind => {}
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            inner = wait_until(&self.shared, inner, deadline);
        }
    }
}
