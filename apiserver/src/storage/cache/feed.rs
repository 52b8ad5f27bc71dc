//! One storage watch for every resource's cache, on a store that neither reports every write
//! nor answers progress requests (etcd before 3.4.31 / 3.5.13, such as Debian's 3.4.23).
//!
//! A cache fed by its own resource's watch hears nothing of the writes to other resources,
//! so on such a store it cannot tell whether it has reached the store's current revision
//! without reading the resource (`fresh_proof`, which makes etcd read every key of the
//! prefix). Here every cache is fed by one watch of all of `/registry/`, which sees every
//! revision a Kubernetes store makes, and ends each revision with a progress event (the etcd
//! backend sends one after each response's events, which hold whole revisions). So:
//! - the feed's progress is every cache's: once the feed has passed revision R, each cache's
//!   objects are its resource's state at R (a cache starts from a list at or after the
//!   feed's revision, taken under the caches' lock, and skips the feed's events up to its
//!   list's revision);
//! - a consistent read asks the store for its current revision only (one count-only read of
//!   one key) and waits for the feed to get there, as a read on a store with progress
//!   requests waits for the answer. A store whose revisions are not all under `/registry/`
//!   (another program's keys in the same etcd) leaves the feed short of the current
//!   revision: after [`FEED_WAIT`] the read falls back to the proof, and for
//!   [`FEED_SKIPPED_AFTER_A_MISS`] later reads try the proof at once unless the feed is
//!   already there.
//!
//! When the feed ends (etcd gone, say), every cache ends with it, and the next use starts a
//! new feed.

use std::time::{Duration, Instant};

use super::super::keys::ROOT;
use super::super::{EventKind, RangeRequest, Revision, StorageError, Watch, WatchEvent};
use super::{Inner, ResourceCache, Shared, WatchCache, lock, resource_root, wait_until};

/// How long a consistent read waits for the feed to reach the store's current revision (a
/// watch event follows its write within milliseconds) before the freshness proof is tried.
pub(super) const FEED_WAIT: Duration = Duration::from_millis(100);

/// After a read that waited [`FEED_WAIT`] in vain, how long later reads do not wait.
const FEED_SKIPPED_AFTER_A_MISS: Duration = Duration::from_secs(10);

/// The running feed.
pub(super) struct Feed {
    /// Shared by the feed and every cache it feeds.
    generation: u64,
    /// When a read last waited for the feed in vain.
    missed: Option<Instant>,
}

impl WatchCache {
    /// Whether the caches are fed by one watch of every resource (see the module
    /// documentation).
    pub(super) fn fed(&self) -> bool {
        !self.store.exact_progress() && !self.store.progress_requests()
    }

    /// Starts the cache of `root` from a list of it, and the feed if it is not running.
    pub(super) fn start_fed(&self, inner: &mut Inner, root: &str) -> Result<(), StorageError> {
        // Under the caches' lock: the feed applies nothing meanwhile, so every event it
        // delivers from here on is after what it had delivered, which the list (at the
        // store's current revision) has passed.
        let listed = self.store.range(&RangeRequest::prefix(root))?;
        let at = listed.revision;
        let generation = match &inner.feed {
            Some(feed) => feed.generation,
            None => {
                let watch = self.store.watch_with_progress(ROOT, Some(at + 1))?;
                inner.next_generation += 1;
                inner.storage_watches += 1;
                let generation = inner.next_generation;
                inner.feed = Some(Feed {
                    generation,
                    missed: None,
                });
                let shared = self.shared.clone();
                std::thread::Builder::new()
                    .name("watch-cache-feed".to_owned())
                    .spawn(move || run(&shared, watch, generation))?;
                generation
            }
        };
        let window = self.sizes.of_root(root);
        inner.resources.insert(
            root.to_owned(),
            ResourceCache::listed(listed, window, generation, None),
        );
        Ok(())
    }

    /// A consistent read answered from the running cache of `root` once the feed has reached
    /// the store's current revision; `None` when the cache is not running or the feed does not
    /// get there in time.
    pub(super) fn read_fed<T>(
        &self,
        root: &str,
        limit: Option<usize>,
        from_cache: &impl Fn(&ResourceCache, Option<usize>, Revision) -> T,
    ) -> Result<Option<T>, StorageError> {
        // Only a running cache (a read does not start one).
        if !lock(&self.shared).resources.contains_key(root) {
            return Ok(None);
        }
        let target = self.store.current_revision()?;
        let mut inner = lock(&self.shared);
        let waits = inner.feed.as_ref().is_some_and(|f| {
            f.missed
                .is_none_or(|at| at.elapsed() >= FEED_SKIPPED_AFTER_A_MISS)
        });
        let deadline = Instant::now() + if waits { FEED_WAIT } else { Duration::ZERO };
        loop {
            let Some(cache) = inner.resources.get(root) else {
                return Ok(None);
            };
            if cache.revision >= target {
                let response = from_cache(cache, limit, cache.revision);
                inner.consistent_from_cache += 1;
                return Ok(Some(response));
            }
            let now = Instant::now();
            if now >= deadline {
                if waits && let Some(feed) = inner.feed.as_mut() {
                    feed.missed = Some(now);
                }
                return Ok(None);
            }
            inner = wait_until(&self.shared, inner, deadline);
        }
    }
}

/// The feed's thread: applies each event to its resource's cache and each progress event
/// (a revision complete) to every cache, until the watch or the feed ends.
fn run(shared: &Shared, mut watch: Watch, generation: u64) {
    while let Some(event) = watch.blocking_recv() {
        let mut inner = lock(shared);
        if inner
            .feed
            .as_ref()
            .is_none_or(|f| f.generation != generation)
        {
            return;
        }
        apply(&mut inner, event);
        drop(inner);
        shared.changed.notify_all();
    }
    // The watch ended: every cache ends with it (their watchers' streams end as their
    // senders drop), and the next use starts a new feed.
    let mut inner = lock(shared);
    if inner
        .feed
        .as_ref()
        .is_some_and(|f| f.generation == generation)
    {
        inner.feed = None;
        inner.resources.retain(|_, c| c.generation != generation);
    }
}

/// One event of the feed, applied to the caches.
fn apply(inner: &mut Inner, event: WatchEvent) {
    let revision = event.revision();
    if event.kind == EventKind::Progress {
        for cache in inner.resources.values_mut() {
            if cache.revision < revision {
                cache.apply(event.clone());
            }
        }
        return;
    }
    let Some(root) = resource_root(&event.kv.key) else {
        return;
    };
    // A cache that started after this revision has it in its list.
    if let Some(cache) = inner.resources.get_mut(&root)
        && cache.revision < revision
    {
        cache.apply(event);
    }
}
