//! The watch cache: one storage watch per resource, fanned out to every watcher of it, with
//! the resource's current objects and a bounded ring of recent events, in the manner of
//! kube-apiserver's cacher (k8s.io/apiserver `pkg/storage/cacher`).
//!
//! [`WatchCache`] wraps any [`Storage`] and is one itself ([`Delegating`]): writes and most
//! reads go straight through. A resource's cache (`/registry/<resource>/`) starts the first
//! time it is needed: one list of the resource, then one storage watch from just after it.
//! From then on:
//! - [`Storage::watch`] on the resource's keys is served from the cache. A watcher asking for
//!   a revision the ring still covers gets the ring's events from there, then live ones, in
//!   order and without a gap (both under the cache's lock, which the feeder also takes to
//!   append and fan out). A start older than the ring but after the cache's own start is
//!   refused as upstream's cacher refuses it: [`StorageError::Compacted`] with the ring's
//!   oldest revision less one, which the HTTP layer answers with an `ERROR` event, 410
//!   Expired, `too old resource version: N (M)` (`watch_cache.go`, `getAllEventsSinceLocked`).
//!   A start before the cache existed goes to the storage (history replay, or `Compacted`):
//!   the cache starts lazily, where upstream's starts with the server.
//! - a list that takes any recent state ([`RangeRequest::any_recent`], `resourceVersion=0`)
//!   is answered from the cache's objects at the revision the cache has reached, without a
//!   limit, as upstream's cacher serves such lists (`cacher.go`, `shouldDelegateList` and
//!   `GetList`).
//! - progress notifications of the storage watch (etcd's) advance the cache's revision
//!   without an event and are passed to every watcher, which turns them into bookmarks
//!   (upstream's `dispatchEvents` keeps `lastProcessedResourceVersion` from them).
//!
//! When the storage watch ends (etcd gone, say), every watcher of the resource sees its stream
//! end, and the next use starts a new cache. So a thousand watchers of ConfigMaps cost one
//! storage watch.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::keys::ROOT;
use super::{
    Delegating, EventKind, KeyValue, RangeRequest, RangeResponse, Revision, Storage, StorageError,
    Watch, WatchEvent,
};

/// How many recent events each resource keeps for watchers that start in the past.
pub const RING_CAPACITY: usize = 1024;

/// How many events may wait for one watcher; a watcher that lets more pile up is closed (its
/// stream ends, and the client watches again from its last resourceVersion), as upstream's
/// cacher closes unresponsive watchers, so that one slow client cannot grow the server.
pub const WATCHER_QUEUE: usize = 4096;

/// How long a consistent read waits for the cache to reach the store's current revision
/// before it reads the storage instead (upstream's cacher waits up to 3 seconds, then falls
/// back to etcd: `delegator.go`, `GetList`).
const FRESHNESS_WAIT: Duration = Duration::from_secs(3);

/// Progress is passed to a resource's watchers at most this often (they only need it for
/// bookmarks, which come once a minute), however often the store reports it.
const PROGRESS_FANOUT: Duration = Duration::from_secs(1);

/// One watcher of a resource: the keys it wants, the first revision it wants, its channel.
struct Subscriber {
    prefix: String,
    from: Revision,
    tx: mpsc::Sender<WatchEvent>,
}

impl Subscriber {
    /// Sends `event` if wanted; false once the watcher is gone or too far behind (then it is
    /// dropped, which ends its stream). Progress goes to every watcher.
    fn offer(&self, event: &WatchEvent) -> bool {
        let wanted = event.kind == EventKind::Progress
            || (event.revision() >= self.from && event.kv.key.starts_with(self.prefix.as_str()));
        if !wanted {
            return !self.tx.is_closed();
        }
        self.tx.try_send(event.clone()).is_ok()
    }
}

/// The cache of one resource.
struct ResourceCache {
    /// The first revision the cache has covered since it started (its list's revision + 1).
    started: Revision,
    /// Every event from `covered_from` on is in `ring` (or still to come).
    covered_from: Revision,
    /// The revision the cache has reached: its list, its last event or progress notification.
    revision: Revision,
    /// The resource's live keys as of `revision`.
    objects: BTreeMap<String, KeyValue>,
    ring: VecDeque<WatchEvent>,
    subscribers: Vec<Subscriber>,
    /// When progress was last passed to the watchers.
    progress_sent: Option<Instant>,
    /// Bumped for each new storage watch, so that an ended feeder only removes its own cache.
    generation: u64,
}

impl ResourceCache {
    /// Applies one event of the storage watch and fans it out.
    fn apply(&mut self, event: WatchEvent) {
        self.revision = self.revision.max(event.revision());
        match event.kind {
            EventKind::Progress => {
                if self
                    .progress_sent
                    .is_none_or(|at| at.elapsed() >= PROGRESS_FANOUT)
                {
                    self.progress_sent = Some(Instant::now());
                    self.subscribers.retain(|s| s.offer(&event));
                }
                return;
            }
            EventKind::Put => {
                self.objects.insert(event.kv.key.clone(), event.kv.clone());
            }
            EventKind::Delete => {
                self.objects.remove(&event.kv.key);
            }
        }
        self.subscribers.retain(|s| s.offer(&event));
        self.ring.push_back(event);
        if self.ring.len() > RING_CAPACITY {
            self.ring.pop_front();
            // Upstream's window starts at the oldest event it still holds.
            self.covered_from = self
                .ring
                .front()
                .map_or(self.revision, WatchEvent::revision);
        }
    }

    /// The live keys under `request`'s prefix from its start key whose values `keep` accepts
    /// (the others are not copied), of the first `limit` keys (`None`: all), with the count
    /// of all of them, at the cache's revision.
    fn read(
        &self,
        request: &RangeRequest,
        limit: Option<usize>,
        keep: &(dyn Fn(&[u8]) -> bool + Sync),
    ) -> RangeResponse {
        let mut kvs = Vec::new();
        let mut count = 0;
        for (key, kv) in self.objects.range(request.start_key().to_owned()..) {
            if !key.starts_with(request.prefix.as_str()) {
                break;
            }
            count += 1;
            // The limit counts the keys examined, kept or not (as the storage's range does).
            if limit.is_none_or(|l| count <= l) && keep(&kv.value) {
                kvs.push(kv.clone());
            }
        }
        RangeResponse {
            more: limit.is_some_and(|l| count > l),
            count,
            kvs,
            revision: self.revision,
        }
    }
}

#[derive(Default)]
struct Inner {
    resources: HashMap<String, ResourceCache>,
    next_generation: u64,
    storage_watches: u64,
}

/// The caches under one lock, and the signal that one of them moved.
#[derive(Default)]
struct Shared {
    inner: Mutex<Inner>,
    changed: Condvar,
}

/// A [`Storage`] whose watches (and `resourceVersion=0` lists) are served from one storage
/// watch per resource.
pub struct WatchCache {
    store: Arc<dyn Storage>,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for WatchCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchCache").finish_non_exhaustive()
    }
}

/// The resource root of a watched prefix: `/registry/<resource>/` for any prefix under it.
fn resource_root(prefix: &str) -> Option<String> {
    let rest = prefix.strip_prefix(ROOT)?;
    let resource = &rest[..rest.find('/')?];
    (!resource.is_empty()).then(|| format!("{ROOT}{resource}/"))
}

fn lock(shared: &Shared) -> MutexGuard<'_, Inner> {
    // The maps stay consistent under a panic (each update is one push or removal).
    shared.inner.lock().unwrap_or_else(|e| e.into_inner())
}

impl WatchCache {
    /// Wraps `store`.
    pub fn new(store: Arc<dyn Storage>) -> Self {
        WatchCache {
            store,
            shared: Arc::default(),
        }
    }

    /// How many storage watches the cache has started (for tests and metrics).
    pub fn storage_watches(&self) -> u64 {
        lock(&self.shared).storage_watches
    }

    /// The cache of `root`, started (a list, then a storage watch and its feeder thread) if
    /// it is not running.
    fn resource<'a>(
        &self,
        inner: &'a mut Inner,
        root: &str,
    ) -> Result<&'a mut ResourceCache, StorageError> {
        if !inner.resources.contains_key(root) {
            self.start_resource(inner, root)?;
        }
        Ok(inner
            .resources
            .get_mut(root)
            .expect("the resource's cache was just started"))
    }

    fn start_resource(&self, inner: &mut Inner, root: &str) -> Result<(), StorageError> {
        let listed = self.store.range(&RangeRequest::prefix(root))?;
        let at = listed.revision;
        let mut watch = self.store.watch_with_progress(root, Some(at + 1))?;
        inner.next_generation += 1;
        inner.storage_watches += 1;
        let generation = inner.next_generation;
        inner.resources.insert(
            root.to_owned(),
            ResourceCache {
                started: at + 1,
                covered_from: at + 1,
                revision: at,
                objects: listed
                    .kvs
                    .into_iter()
                    .map(|kv| (kv.key.clone(), kv))
                    .collect(),
                ring: VecDeque::with_capacity(64),
                subscribers: Vec::new(),
                progress_sent: None,
                generation,
            },
        );
        let shared = self.shared.clone();
        let root = root.to_owned();
        std::thread::Builder::new()
            .name("watch-cache".to_owned())
            .spawn(move || {
                while let Some(event) = watch.blocking_recv() {
                    let mut inner = lock(&shared);
                    match inner.resources.get_mut(&root) {
                        Some(cache) if cache.generation == generation => cache.apply(event),
                        _ => return,
                    }
                    drop(inner);
                    shared.changed.notify_all();
                }
                // The storage watch ended: its watchers' streams end with it (dropping the
                // senders), and the next use starts afresh.
                let mut inner = lock(&shared);
                if inner
                    .resources
                    .get(&root)
                    .is_some_and(|c| c.generation == generation)
                {
                    inner.resources.remove(&root);
                }
            })?;
        Ok(())
    }
}

impl Delegating for WatchCache {
    fn inner(&self) -> &dyn Storage {
        &*self.store
    }

    fn range(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
        Delegating::range_filtered(self, request, &|_| true)
    }

    fn range_filtered(
        &self,
        request: &RangeRequest,
        keep: &(dyn Fn(&[u8]) -> bool + Sync),
    ) -> Result<RangeResponse, StorageError> {
        let root = resource_root(&request.prefix);
        let (Some(root), None) = (root, request.revision) else {
            return self.store.range_filtered(request, keep);
        };
        if request.any_recent {
            // Any recent state: what the cache holds, whole.
            let mut inner = lock(&self.shared);
            return Ok(self.resource(&mut inner, &root)?.read(request, None, keep));
        }
        if !self.store.exact_progress() {
            return self.store.range_filtered(request, keep);
        }
        // A consistent read: the cache once it has reached the store's current revision.
        let target = self.store.current_revision()?;
        let mut inner = lock(&self.shared);
        self.resource(&mut inner, &root)?;
        let behind = |inner: &mut Inner| {
            inner
                .resources
                .get(&root)
                .is_none_or(|c| c.revision < target)
        };
        let (inner, _) = self
            .shared
            .changed
            .wait_timeout_while(inner, FRESHNESS_WAIT, behind)
            .unwrap_or_else(|e| e.into_inner());
        match inner.resources.get(&root) {
            Some(cache) if cache.revision >= target => {
                Ok(cache.read(request, request.limit.filter(|&l| l > 0), keep))
            }
            _ => {
                drop(inner);
                self.store.range_filtered(request, keep)
            }
        }
    }

    fn watch(&self, prefix: &str, from: Option<Revision>) -> Result<Watch, StorageError> {
        let (Some(root), Some(from)) = (resource_root(prefix), from) else {
            return self.store.watch(prefix, from);
        };
        let mut inner = lock(&self.shared);
        let cache = self.resource(&mut inner, &root)?;
        if from < cache.started {
            // From before the cache existed: the storage replays (or refuses) it.
            drop(inner);
            return self.store.watch(prefix, Some(from));
        }
        if from < cache.covered_from {
            // The ring has moved past it: upstream's "too old resource version: N (oldest-1)".
            return Err(StorageError::Compacted {
                requested: from,
                compacted: cache.covered_from - 1,
            });
        }
        let (tx, rx) = mpsc::channel(WATCHER_QUEUE);
        let subscriber = Subscriber {
            prefix: prefix.to_owned(),
            from,
            tx,
        };
        // The ring holds at most RING_CAPACITY < WATCHER_QUEUE events: the replay fits.
        for event in &cache.ring {
            subscriber.offer(event);
        }
        cache.subscribers.push(subscriber);
        Ok(Watch::from_bounded(rx))
    }
}

#[cfg(test)]
mod tests {
    // Not `super::*`: with `Delegating` in scope, a wrapper's methods would be ambiguous.
    use super::{
        RING_CAPACITY, RangeRequest, RangeResponse, Revision, Storage, StorageError, WATCHER_QUEUE,
        Watch, WatchCache, WatchEvent, resource_root,
    };
    use crate::storage::memory::MemoryStorage;
    use crate::storage::{EventKind, keys};
    use std::sync::{Arc, Mutex};
    use tokio::sync::mpsc;

    fn wait(watch: &mut Watch, count: usize) -> Vec<WatchEvent> {
        let start = std::time::Instant::now();
        let mut events = watch.drain();
        while events.len() < count && start.elapsed() < std::time::Duration::from_secs(5) {
            std::thread::sleep(std::time::Duration::from_millis(5));
            events.extend(watch.drain());
        }
        events
    }

    #[test]
    fn roots_of_prefixes() {
        assert_eq!(
            resource_root("/registry/configmaps/default/").as_deref(),
            Some("/registry/configmaps/")
        );
        assert_eq!(
            resource_root("/registry/namespaces/").as_deref(),
            Some("/registry/namespaces/")
        );
        assert_eq!(resource_root("/registry/"), None);
        assert_eq!(resource_root("/other/x/"), None);
    }

    #[test]
    fn a_thousand_watchers_cost_one_storage_watch() {
        let cache = WatchCache::new(Arc::new(MemoryStorage::new()));
        let ns = |n: &str| keys::prefix("configmaps", Some(n));
        let mut watches: Vec<Watch> = (0..1000)
            .map(|i| {
                let prefix = if i % 2 == 0 { ns("a") } else { ns("b") };
                cache.watch(&prefix, Some(1)).unwrap()
            })
            .collect();
        cache
            .create(&keys::namespaced("configmaps", "a", "x"), b"1")
            .unwrap();
        cache
            .create(&keys::namespaced("configmaps", "b", "y"), b"1")
            .unwrap();
        assert_eq!(cache.storage_watches(), 1);
        for (i, w) in watches.iter_mut().enumerate() {
            let events = wait(w, 1);
            assert_eq!(events.len(), 1, "watcher {i}");
            let want = if i % 2 == 0 { "x" } else { "y" };
            assert!(events[0].kv.key.ends_with(want));
        }
        // Another resource is another storage watch.
        let _secrets = cache
            .watch(&keys::prefix("secrets", None), Some(1))
            .unwrap();
        assert_eq!(cache.storage_watches(), 2);
    }

    #[test]
    fn watchers_starting_in_the_past_get_the_ring_then_live_events() {
        let store: Arc<dyn Storage> = Arc::new(MemoryStorage::new());
        let cache = WatchCache::new(store.clone());
        let prefix = keys::prefix("configmaps", None);
        let key = |n: &str| keys::namespaced("configmaps", "d", n);
        // Starts the resource's cache at revision 1.
        let mut first = cache.watch(&prefix, Some(1)).unwrap();
        let a = cache.create(&key("a"), b"1").unwrap(); // 1
        cache.update(&key("a"), b"2", a.mod_revision).unwrap(); // 2
        cache.create(&key("b"), b"1").unwrap(); // 3
        assert_eq!(wait(&mut first, 3).len(), 3);
        // From revision 2: from the ring, then live.
        let mut late = cache.watch(&prefix, Some(2)).unwrap();
        cache.delete(&key("b"), 3).unwrap(); // 4
        let events = wait(&mut late, 3);
        let revs: Vec<Revision> = events.iter().map(WatchEvent::revision).collect();
        assert_eq!(revs, [2, 3, 4]);
        assert_eq!(events[2].kind, EventKind::Delete);
        assert_eq!(cache.storage_watches(), 1);
    }

    #[test]
    fn a_watcher_that_falls_too_far_behind_is_closed() {
        let cache = WatchCache::new(Arc::new(MemoryStorage::new()));
        let prefix = keys::prefix("configmaps", None);
        let mut slow = cache.watch(&prefix, Some(1)).unwrap();
        let mut fast = cache.watch(&prefix, Some(1)).unwrap();
        let key = keys::namespaced("configmaps", "d", "k");
        let mut rev = cache.create(&key, b"0").unwrap().mod_revision;
        let mut fast_seen = wait(&mut fast, 1).len();
        for i in 0..WATCHER_QUEUE + 10 {
            rev = cache
                .update(&key, i.to_string().as_bytes(), rev)
                .unwrap()
                .mod_revision;
            if i % 512 == 0 {
                fast_seen += fast.drain().len();
            }
        }
        fast_seen += wait(&mut fast, WATCHER_QUEUE + 11 - fast_seen).len();
        assert_eq!(fast_seen, WATCHER_QUEUE + 11);
        // The slow one got a full queue, then its stream ended: no silent gap.
        let slow_events = slow.drain();
        assert_eq!(slow_events.len(), WATCHER_QUEUE);
        assert!(slow.blocking_recv().is_none());
    }

    #[test]
    fn starts_older_than_the_ring_go_to_the_storage() {
        let store: Arc<dyn Storage> = Arc::new(MemoryStorage::new());
        let key = |n: &str| keys::namespaced("configmaps", "d", n);
        store.create(&key("a"), b"1").unwrap(); // 1
        store.create(&key("b"), b"1").unwrap(); // 2
        let cache = WatchCache::new(store.clone());
        let prefix = keys::prefix("configmaps", None);
        // The cache starts at 3; a watch from 1 is the storage's replay.
        let mut old = cache.watch(&prefix, Some(1)).unwrap();
        let revs: Vec<Revision> = wait(&mut old, 2).iter().map(WatchEvent::revision).collect();
        assert_eq!(revs, [1, 2]);
        store.compact(2).unwrap();
        assert!(matches!(
            cache.watch(&prefix, Some(1)),
            Err(StorageError::Compacted { .. })
        ));
    }

    /// A memory store that counts ranges and lets the test feed the storage watch's
    /// progress.
    struct Probe {
        store: MemoryStorage,
        ranges: Mutex<usize>,
        progress: Mutex<Option<mpsc::UnboundedSender<WatchEvent>>>,
        exact: bool,
    }

    impl super::Delegating for Probe {
        fn inner(&self) -> &dyn Storage {
            &self.store
        }

        fn range(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
            *self.ranges.lock().unwrap() += 1;
            self.store.range(request)
        }

        fn range_filtered(
            &self,
            request: &RangeRequest,
            keep: &(dyn Fn(&[u8]) -> bool + Sync),
        ) -> Result<RangeResponse, StorageError> {
            *self.ranges.lock().unwrap() += 1;
            self.store.range_filtered(request, keep)
        }

        fn watch_with_progress(
            &self,
            prefix: &str,
            from: Option<Revision>,
        ) -> Result<Watch, StorageError> {
            // The store's events (and progress), then what the test sends.
            let mut events = self.store.watch_with_progress(prefix, from)?;
            let (tx, rx) = mpsc::unbounded_channel();
            *self.progress.lock().unwrap() = Some(tx.clone());
            std::thread::spawn(move || {
                while let Some(event) = events.blocking_recv() {
                    if tx.send(event).is_err() {
                        return;
                    }
                }
            });
            Ok(Watch::from_receiver(rx))
        }

        fn exact_progress(&self) -> bool {
            self.exact
        }
    }

    fn probe(exact: bool) -> Arc<Probe> {
        Arc::new(Probe {
            store: MemoryStorage::new(),
            ranges: Mutex::new(0),
            progress: Mutex::new(None),
            exact,
        })
    }

    #[test]
    fn any_recent_ranges_are_answered_from_the_cache() {
        let probe = probe(false);
        let cache = WatchCache::new(probe.clone());
        let key = |n: &str| keys::namespaced("configmaps", "d", n);
        for name in ["a", "b", "c"] {
            cache.create(&key(name), b"1").unwrap();
        }
        let mut any = RangeRequest::prefix(keys::prefix("configmaps", Some("d"))).limit(1);
        any.any_recent = true;
        let first = cache.range(&any).unwrap();
        // One list started the cache; the limit is not applied (upstream's cacher).
        assert_eq!(*probe.ranges.lock().unwrap(), 1);
        assert_eq!(first.kvs.len(), 3);
        assert_eq!((first.revision, first.more, first.count), (3, false, 3));
        cache.delete(&key("b"), 2).unwrap(); // 4
        let start = std::time::Instant::now();
        let second = loop {
            let r = cache.range(&any).unwrap();
            if r.revision == 4 || start.elapsed() > std::time::Duration::from_secs(5) {
                break r;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        let keys: Vec<&str> = second.kvs.iter().map(|kv| kv.key.as_str()).collect();
        assert_eq!(keys, [key("a"), key("c")]);
        assert_eq!(
            *probe.ranges.lock().unwrap(),
            1,
            "no storage read after the first"
        );
        // From a key on, and another namespace's prefix (empty), from memory too.
        let from_b = cache.range(&any.clone().from_key(key("b"))).unwrap();
        assert_eq!(from_b.kvs.len(), 1);
        let mut other = RangeRequest::prefix(keys::prefix("configmaps", Some("e")));
        other.any_recent = true;
        assert!(cache.range(&other).unwrap().kvs.is_empty());
        assert_eq!(*probe.ranges.lock().unwrap(), 1);
        // Without any_recent, the storage answers.
        cache
            .range(&RangeRequest::prefix(keys::prefix("configmaps", None)))
            .unwrap();
        assert_eq!(*probe.ranges.lock().unwrap(), 2);
    }

    #[test]
    fn a_start_the_window_passed_is_refused_as_upstream() {
        let store: Arc<dyn Storage> = Arc::new(MemoryStorage::new());
        let key = keys::namespaced("configmaps", "d", "k");
        let mut rev = store.create(&key, b"0").unwrap().mod_revision; // 1
        let cache = WatchCache::new(store.clone());
        let prefix = keys::prefix("configmaps", None);
        // The cache starts after revision 1.
        let mut live = cache.watch(&prefix, Some(2)).unwrap();
        for i in 0..RING_CAPACITY + 5 {
            rev = cache
                .update(&key, i.to_string().as_bytes(), rev)
                .unwrap()
                .mod_revision;
        }
        assert_eq!(wait(&mut live, RING_CAPACITY + 5).len(), RING_CAPACITY + 5);
        // Revisions 2..=rev; the ring keeps the last RING_CAPACITY: oldest = rev - 1023.
        let oldest = rev - RING_CAPACITY as Revision + 1;
        match cache.watch(&prefix, Some(3)) {
            Err(StorageError::Compacted {
                requested,
                compacted,
            }) => assert_eq!((requested, compacted), (3, oldest - 1)),
            other => panic!("{other:?}"),
        }
        // The window's oldest event on is served; a start before the cache from storage.
        let mut inside = cache.watch(&prefix, Some(oldest)).unwrap();
        assert_eq!(wait(&mut inside, RING_CAPACITY).len(), RING_CAPACITY);
        let mut before = cache.watch(&prefix, Some(1)).unwrap();
        assert_eq!(wait(&mut before, 1)[0].revision(), 1);
        assert_eq!(cache.storage_watches(), 1);
    }

    #[test]
    fn progress_advances_the_cache_and_reaches_every_watcher() {
        let probe = probe(false);
        let cache = WatchCache::new(probe.clone());
        let key = keys::namespaced("configmaps", "d", "a");
        cache.create(&key, b"1").unwrap(); // 1
        let mut a = cache
            .watch(&keys::prefix("configmaps", Some("d")), Some(2))
            .unwrap();
        let mut b = cache
            .watch(&keys::prefix("configmaps", Some("other")), Some(2))
            .unwrap();
        // Other resources moved the store to 7.
        let tx = probe.progress.lock().unwrap().clone().unwrap();
        tx.send(WatchEvent::progress(7)).unwrap();
        for w in [&mut a, &mut b] {
            let events = wait(w, 1);
            assert_eq!(events.len(), 1);
            assert_eq!(
                (events[0].kind.clone(), events[0].revision()),
                (EventKind::Progress, 7)
            );
        }
        let mut any = RangeRequest::prefix(keys::prefix("configmaps", None));
        any.any_recent = true;
        let listed = cache.range(&any).unwrap();
        assert_eq!((listed.revision, listed.kvs.len()), (7, 1));
    }

    #[test]
    fn consistent_reads_wait_for_the_stores_revision_then_come_from_the_cache() {
        let probe = probe(true);
        let cache = WatchCache::new(probe.clone());
        let key = |n: &str| keys::namespaced("configmaps", "d", n);
        for name in ["a", "b", "c"] {
            cache.create(&key(name), b"1").unwrap(); // 1..=3
        }
        let prefix = keys::prefix("configmaps", None);
        let page = cache
            .range(&RangeRequest::prefix(prefix.clone()).limit(2))
            .unwrap();
        // The cache's list was the one storage read; the page has the storage's shape.
        assert_eq!(*probe.ranges.lock().unwrap(), 1);
        let keys_of =
            |r: &RangeResponse| -> Vec<String> { r.kvs.iter().map(|kv| kv.key.clone()).collect() };
        assert_eq!(keys_of(&page), [key("a"), key("b")]);
        assert_eq!((page.revision, page.more, page.count), (3, true, 3));
        let stored = probe
            .store
            .range(&RangeRequest::prefix(prefix.clone()).limit(2))
            .unwrap();
        assert_eq!(page, stored);
        // Writes elsewhere and here: every read sees them at once (it waits for the cache).
        for i in 0..50 {
            cache
                .create(&keys::namespaced("secrets", "d", &i.to_string()), b"s")
                .unwrap();
            let r = cache.range(&RangeRequest::prefix(prefix.clone())).unwrap();
            assert_eq!(r.revision, cache.current_revision().unwrap());
            assert_eq!(r.kvs.len(), 3);
        }
        let d = cache.create(&key("d"), b"1").unwrap();
        let r = cache.range(&RangeRequest::prefix(prefix.clone())).unwrap();
        assert_eq!((r.revision, r.kvs.len()), (d.mod_revision, 4));
        assert_eq!(*probe.ranges.lock().unwrap(), 1);
        // Reads at a revision go to the storage.
        cache
            .range(&RangeRequest::prefix(prefix).at_revision(2))
            .unwrap();
        assert_eq!(*probe.ranges.lock().unwrap(), 2);
    }
}
