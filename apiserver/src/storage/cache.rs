//! The watch cache: one storage watch per resource, fanned out to every watcher of it, with
//! the resource's current objects and a bounded ring of recent events, in the manner of
//! kube-apiserver's cacher (k8s.io/apiserver `pkg/storage/cacher`).
//!
//! [`WatchCache`] wraps any [`Storage`] and is one itself ([`Delegating`]): writes and most
//! reads go straight through. A resource's cache (`/registry/<resource>/`) starts the first
//! time it is needed: one list of the resource, then one storage watch from just after it
//! (on an etcd without progress requests, the one watch of every resource, `feed`).
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
//! - a consistent list (no resourceVersion) is answered from the cache once it has reached
//!   the store's current revision: the embedded stores report every write, an etcd that
//!   answers progress requests is asked; on an older etcd every cache is fed by one storage
//!   watch of all resources, which sees every revision (`feed`), and when that does not get
//!   there one keys-only read of the keys modified since the cache's revision proves the
//!   cache fresh (`fresh_proof`).
//! - the reads it cannot answer go to the store; on etcd they ask for keys and revisions only
//!   and take the values the cache holds at those revisions from memory (`store_reads`).
//!
//! When the storage watch ends (etcd gone, say), every watcher of the resource (of every
//! resource, with the one feed) sees its stream end, and the next use starts a new cache. So
//! a thousand watchers of ConfigMaps cost one storage watch.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::keys::ROOT;
use super::shard_fields::ShardKeys;

mod feed;
mod fresh_proof;
mod store_reads;
use super::{
    Delegating, EventKind, KeyValue, RangeRequest, RangeResponse, Revision, ShardSelector,
    ShardedRange, Storage, StorageError, Watch, WatchEvent,
};

/// How many recent events each resource keeps for watchers that start in the past, unless
/// [`CacheSizes`] says otherwise (`--default-watch-cache-size`).
pub const RING_CAPACITY: usize = 1024;

/// The window of each resource's cache: how many recent events it keeps for watchers that
/// start in the past (kube-apiserver's `--default-watch-cache-size` and
/// `--watch-cache-sizes`). A size of 0 turns the cache off for a resource: its watches and
/// lists go to the storage, one storage watch per watcher, as upstream's "zero disables watch
/// caching for the resource".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheSizes {
    /// The window of every resource not in `per_resource`.
    pub default: usize,
    /// Windows by storage resource: the `<resource>` of `/registry/<resource>/` (the plural
    /// of a built-in kind).
    pub per_resource: HashMap<String, usize>,
}

impl Default for CacheSizes {
    fn default() -> Self {
        CacheSizes {
            default: RING_CAPACITY,
            per_resource: HashMap::new(),
        }
    }
}

impl CacheSizes {
    /// The window of the resource whose keys start with `root` (`/registry/<resource>/`).
    fn of_root(&self, root: &str) -> usize {
        root.strip_prefix(ROOT)
            .and_then(|r| r.strip_suffix('/'))
            .and_then(|r| self.per_resource.get(r))
            .copied()
            .unwrap_or(self.default)
    }
}

/// How many events may wait for one watcher (or the window, when larger); a watcher that lets
/// more pile up is closed (its stream ends, and the client watches again from its last
/// resourceVersion), as upstream's cacher closes unresponsive watchers, so that one slow
/// client cannot grow the server.
pub const WATCHER_QUEUE: usize = 4096;

/// How long a consistent read waits for the cache to reach the store's current revision
/// before it reads the storage instead (upstream's cacher waits up to 3 seconds, then falls
/// back to etcd: `delegator.go`, `GetList`).
const FRESHNESS_WAIT: Duration = Duration::from_secs(3);

/// How often a consistent read that waits for the cache asks the storage watch for progress
/// again (upstream's `progressRequester` ticks every 100 ms).
const PROGRESS_REQUEST_EVERY: Duration = Duration::from_millis(100);

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

/// One live object in a resource's cache, with the hashes of its shard fields, computed once
/// when it entered the cache (upstream's `storeElement` keeps an object's label and field sets
/// the same way), so that a sharded list compares numbers instead of reading JSON.
struct Entry {
    kv: KeyValue,
    shard: ShardKeys,
}

impl Entry {
    fn new(kv: KeyValue) -> Entry {
        let shard = ShardKeys::of_stored(&kv.value);
        Entry { kv, shard }
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
    /// The revision of the last change the cache applied (its list's at first): `objects`
    /// are the resource's state at every revision from here to `revision`.
    last_change: Revision,
    /// The resource's live keys as of `revision`.
    objects: BTreeMap<String, Entry>,
    ring: VecDeque<WatchEvent>,
    /// How many events `ring` keeps (more than zero: a zero size has no cache).
    window: usize,
    subscribers: Vec<Subscriber>,
    /// When progress was last passed to the watchers.
    progress_sent: Option<Instant>,
    /// Bumped for each new storage watch, so that an ended feeder only removes its own cache.
    generation: u64,
    /// How to ask the storage watch for progress, when the store answers such requests.
    progress: Option<super::ProgressRequester>,
}

impl ResourceCache {
    /// A cache holding `listed` (a list of its resource), fed from just after its revision.
    fn listed(
        listed: RangeResponse,
        window: usize,
        generation: u64,
        progress: Option<super::ProgressRequester>,
    ) -> ResourceCache {
        let at = listed.revision;
        ResourceCache {
            started: at + 1,
            covered_from: at + 1,
            revision: at,
            last_change: at,
            objects: listed
                .kvs
                .into_iter()
                .map(|kv| (kv.key.clone(), Entry::new(kv)))
                .collect(),
            ring: VecDeque::with_capacity(64),
            window: window.max(1),
            subscribers: Vec::new(),
            progress_sent: None,
            generation,
            progress,
        }
    }

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
                self.last_change = event.revision();
                self.objects
                    .insert(event.kv.key.clone(), Entry::new(event.kv.clone()));
            }
            EventKind::Delete => {
                self.last_change = event.revision();
                self.objects.remove(&event.kv.key);
            }
        }
        self.subscribers.retain(|s| s.offer(&event));
        self.ring.push_back(event);
        if self.ring.len() > self.window {
            self.ring.pop_front();
            // Upstream's window starts at the oldest event it still holds.
            self.covered_from = self
                .ring
                .front()
                .map_or(self.revision, WatchEvent::revision);
        }
    }

    /// Whether `objects` are the resource's state at `revision`: the cache has reached it and
    /// nothing changed since.
    fn holds(&self, revision: Revision) -> bool {
        self.last_change <= revision && revision <= self.revision
    }

    /// Visits the first `limit` (`None`: all) live entries under `request`'s prefix from its
    /// start key; returns how many there are in all, beyond the limit too, and whether some
    /// are beyond it.
    fn walk<'a>(
        &'a self,
        request: &RangeRequest,
        limit: Option<usize>,
        mut visit: impl FnMut(&'a Entry),
    ) -> (usize, bool) {
        let mut count = 0;
        for (key, entry) in self.objects.range(request.start_key().to_owned()..) {
            if !key.starts_with(request.prefix.as_str()) {
                break;
            }
            count += 1;
            if limit.is_none_or(|l| count <= l) {
                visit(entry);
            }
        }
        (count, limit.is_some_and(|l| count > l))
    }

    /// A range of the first `limit` keys (`None`: all), answered as of `revision` (the
    /// cache's, or one at which its objects are proven to be the store's state).
    fn read(
        &self,
        request: &RangeRequest,
        limit: Option<usize>,
        revision: Revision,
    ) -> RangeResponse {
        let mut kvs = Vec::new();
        let (count, more) = self.walk(request, limit, |entry| kvs.push(entry.kv.clone()));
        RangeResponse {
            kvs,
            revision,
            more,
            count,
        }
    }

    /// [`ResourceCache::read`] in `selector`'s shard: the kept hashes decide, and the
    /// objects outside are neither copied nor listed (only the last key examined is kept).
    /// The limit counts the keys examined, kept or not (as the storage's range does).
    fn read_in_shard(
        &self,
        request: &RangeRequest,
        limit: Option<usize>,
        revision: Revision,
        selector: &ShardSelector,
    ) -> ShardedRange {
        let mut kvs = Vec::new();
        let mut last = None;
        let mut examined = 0;
        let (count, more) = self.walk(request, limit, |entry| {
            examined += 1;
            if entry.shard.matches(selector) {
                kvs.push(entry.kv.clone());
            }
            last = Some(entry);
        });
        ShardedRange {
            kvs,
            last_key: last.map(|entry| entry.kv.key.clone()),
            examined,
            revision,
            more,
            count,
        }
    }
}

#[derive(Default)]
struct Inner {
    resources: HashMap<String, ResourceCache>,
    /// The one storage watch that feeds every cache, on a store that answers no progress
    /// requests (`feed`).
    feed: Option<feed::Feed>,
    next_generation: u64,
    storage_watches: u64,
    /// Consistent reads answered from a cache, and sent to the store.
    consistent_from_cache: u64,
    consistent_from_store: u64,
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
    sizes: CacheSizes,
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

/// Waits (releasing the lock) until a cache moved or `deadline` passed.
fn wait_until<'a>(
    shared: &'a Shared,
    inner: MutexGuard<'a, Inner>,
    deadline: Instant,
) -> MutexGuard<'a, Inner> {
    let left = deadline.saturating_duration_since(Instant::now());
    shared
        .changed
        .wait_timeout(inner, left)
        .unwrap_or_else(|e| e.into_inner())
        .0
}

impl WatchCache {
    /// Wraps `store`, with the default window ([`RING_CAPACITY`] events per resource).
    pub fn new(store: Arc<dyn Storage>) -> Self {
        Self::with_sizes(store, CacheSizes::default())
    }

    /// Wraps `store`, with the windows `sizes` gives.
    pub fn with_sizes(store: Arc<dyn Storage>, sizes: CacheSizes) -> Self {
        WatchCache {
            store,
            shared: Arc::default(),
            sizes,
        }
    }

    /// The root of `prefix`'s resource if that resource is cached (its window is not 0).
    fn cached_root(&self, prefix: &str) -> Option<String> {
        resource_root(prefix).filter(|root| self.sizes.of_root(root) > 0)
    }

    /// How many storage watches the cache has started (for tests and metrics).
    pub fn storage_watches(&self) -> u64 {
        lock(&self.shared).storage_watches
    }

    /// How many consistent reads (lists without a resourceVersion, of a cached resource) were
    /// answered from the cache and how many from the store (for tests and metrics).
    pub fn consistent_reads(&self) -> (u64, u64) {
        let inner = lock(&self.shared);
        (inner.consistent_from_cache, inner.consistent_from_store)
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
        if self.fed() {
            return self.start_fed(inner, root);
        }
        let listed = self.store.range(&RangeRequest::prefix(root))?;
        let at = listed.revision;
        let mut watch = self.store.watch_with_progress(root, Some(at + 1))?;
        let progress = watch.progress_requester();
        inner.next_generation += 1;
        inner.storage_watches += 1;
        let generation = inner.next_generation;
        let window = self.sizes.of_root(root);
        inner.resources.insert(
            root.to_owned(),
            ResourceCache::listed(listed, window, generation, progress),
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

    /// A range, from the cache when it can answer (see the module documentation), else from
    /// the store: `from_cache` reads a resource's cache (with the request's limit, or `None`
    /// for all, answered as of the revision given), `from_store` the store.
    fn cached_range<T>(
        &self,
        request: &RangeRequest,
        from_cache: impl Fn(&ResourceCache, Option<usize>, Revision) -> T,
        from_store: impl FnOnce() -> Result<T, StorageError>,
    ) -> Result<T, StorageError> {
        let Some(root) = self.cached_root(&request.prefix) else {
            return from_store();
        };
        let limit = request.limit.filter(|&l| l > 0);
        if let Some(at) = request.revision {
            // A read at a revision (the later pages of a list): from the cache when its
            // objects are that state, which they are while nothing changed since.
            return match self.read_at(&root, at, |cache| from_cache(cache, limit, at))? {
                Some(found) => Ok(found),
                None => from_store(),
            };
        }
        if request.any_recent {
            // Any recent state: what the cache holds, whole.
            let mut inner = lock(&self.shared);
            let cache = self.resource(&mut inner, &root)?;
            return Ok(from_cache(cache, None, cache.revision));
        }
        let exact = self.store.exact_progress();
        if self.fed() {
            // etcd before 3.4.31 / 3.5.13: the cache answers once the feed has reached the
            // store's revision, or one read proves it fresh.
            if let Some(found) = self.read_fed(&root, limit, &from_cache)? {
                return Ok(found);
            }
            if let Some(found) = self.read_proven(&root, request, limit, &from_cache)? {
                return Ok(found);
            }
            lock(&self.shared).consistent_from_store += 1;
            return from_store();
        }
        // A consistent read: the cache once it has reached the store's current revision
        // (upstream's cacher: `waitUntilFreshAndBlock` after reading etcd's revision). With an
        // exact store the cache gets there by itself; with etcd it asks the storage watch for
        // progress, and again every PROGRESS_REQUEST_EVERY while it waits (upstream's
        // `progressRequester`).
        let target = self.store.current_revision()?;
        let mut inner = lock(&self.shared);
        self.resource(&mut inner, &root)?;
        let deadline = Instant::now() + FRESHNESS_WAIT;
        while let Some(cache) = inner.resources.get(&root) {
            if cache.revision >= target {
                let response = from_cache(cache, limit, cache.revision);
                inner.consistent_from_cache += 1;
                return Ok(response);
            }
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            if !exact && let Some(request_progress) = cache.progress.clone() {
                // Not under the lock: the request goes to another runtime.
                drop(inner);
                request_progress();
                inner = lock(&self.shared);
            }
            let slice = (deadline - now).min(PROGRESS_REQUEST_EVERY);
            inner = self
                .shared
                .changed
                .wait_timeout_while(inner, slice, |inner| {
                    inner
                        .resources
                        .get(&root)
                        .is_some_and(|c| c.revision < target)
                })
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        inner.consistent_from_store += 1;
        drop(inner);
        from_store()
    }

    /// A read at revision `at` from the running cache of `root`, if its objects are the
    /// resource's state at `at` ([`ResourceCache::holds`]); `None` otherwise (the store
    /// answers). A compacted revision is refused as the store refuses it (a one-key read at
    /// `at` asks it), so an old continue token still gets its 410.
    fn read_at<T>(
        &self,
        root: &str,
        at: Revision,
        read: impl Fn(&ResourceCache) -> T,
    ) -> Result<Option<T>, StorageError> {
        let holds = |inner: &Inner| inner.resources.get(root).is_some_and(|c| c.holds(at));
        if !holds(&lock(&self.shared)) {
            return Ok(None);
        }
        self.store.get(root, Some(at))?;
        let inner = lock(&self.shared);
        // A change may have come in meanwhile.
        Ok(inner.resources.get(root).filter(|c| c.holds(at)).map(read))
    }
}

impl Delegating for WatchCache {
    fn inner(&self) -> &dyn Storage {
        &*self.store
    }

    fn get_recent(&self, key: &str) -> Result<Option<KeyValue>, StorageError> {
        match Delegating::get_cached(self, key)? {
            Some(kv) => Ok(Some(kv)),
            // Not cached, or not there yet (just created elsewhere): the store's answer, as
            // upstream's admission looks up what its informer has not seen.
            None => self.store.get(key, None).map(|(kv, _)| kv),
        }
    }

    fn get_cached(&self, key: &str) -> Result<Option<KeyValue>, StorageError> {
        // An embedded store answers at once and exactly; a remote one (etcd) costs a round
        // trip that the cache saves.
        if self.store.exact_progress() {
            return Ok(None);
        }
        let Some(root) = self.cached_root(key) else {
            return Ok(None);
        };
        let mut inner = lock(&self.shared);
        Ok(self
            .resource(&mut inner, &root)?
            .objects
            .get(key)
            .map(|entry| entry.kv.clone()))
    }

    fn get_held(&self, key: &str) -> Option<KeyValue> {
        if self.store.exact_progress() {
            return None;
        }
        let root = self.cached_root(key)?;
        let inner = lock(&self.shared);
        inner
            .resources
            .get(&root)?
            .objects
            .get(key)
            .map(|entry| entry.kv.clone())
    }

    fn range(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
        self.cached_range(
            request,
            |cache, limit, at| cache.read(request, limit, at),
            || {
                self.store_range(request, None)
                    .map(ShardedRange::into_range)
            },
        )
    }

    fn range_in_shard(
        &self,
        request: &RangeRequest,
        selector: &ShardSelector,
    ) -> Result<ShardedRange, StorageError> {
        self.cached_range(
            request,
            |cache, limit, at| cache.read_in_shard(request, limit, at, selector),
            || self.store_range(request, Some(selector)),
        )
    }

    fn watch(&self, prefix: &str, from: Option<Revision>) -> Result<Watch, StorageError> {
        let (Some(root), Some(from)) = (self.cached_root(prefix), from) else {
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
        let (tx, rx) = mpsc::channel(WATCHER_QUEUE.max(cache.window));
        let subscriber = Subscriber {
            prefix: prefix.to_owned(),
            from,
            tx,
        };
        // The queue holds the whole ring: the replay fits.
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
        CacheSizes, RING_CAPACITY, RangeRequest, RangeResponse, Revision, Storage, StorageError,
        WATCHER_QUEUE, Watch, WatchCache, WatchEvent, resource_root,
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
    #[derive(Default)]
    struct Probe {
        store: Arc<MemoryStorage>,
        /// Ranges with values, keys-only ranges, and values read by key.
        ranges: Mutex<usize>,
        key_ranges: Mutex<usize>,
        fetched: Mutex<usize>,
        progress: Mutex<Option<mpsc::UnboundedSender<WatchEvent>>>,
        exact: bool,
        /// Like etcd 3.4.31+: no progress for other prefixes' writes, but answers requests;
        /// how many requests came.
        requests: Option<Arc<Mutex<usize>>>,
        /// The storage watch passes on none of the store's events (a cache that lags).
        frozen: bool,
        /// Before the next read by key: a write elsewhere, then a compaction up to it.
        compact_before_fetch: Mutex<bool>,
        /// The storage watch passes on no progress, only events, each followed by its
        /// revision complete (etcd 3.4 between its periodic notifications).
        silent: bool,
        /// Reads of the keys modified after a revision (freshness proofs).
        proofs: Mutex<usize>,
    }

    impl super::Delegating for Probe {
        fn inner(&self) -> &dyn Storage {
            &*self.store
        }

        fn range(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
            *self.ranges.lock().unwrap() += 1;
            self.store.range(request)
        }

        fn range_keys(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
            *self.key_ranges.lock().unwrap() += 1;
            self.store.range_keys(request)
        }

        fn keys_modified_after(
            &self,
            prefix: &str,
            after: Revision,
        ) -> Result<crate::storage::ModifiedKeys, StorageError> {
            *self.proofs.lock().unwrap() += 1;
            self.store.keys_modified_after(prefix, after)
        }

        fn get_all_at(
            &self,
            keys: &[String],
            revision: Revision,
        ) -> Result<Vec<crate::storage::KeyValue>, StorageError> {
            if std::mem::take(&mut *self.compact_before_fetch.lock().unwrap()) {
                let other = keys::namespaced("secrets", "d", "compaction");
                let kv = self.store.create(&other, b"{}").unwrap();
                self.store.compact(kv.mod_revision).unwrap();
            }
            *self.fetched.lock().unwrap() += keys.len();
            self.store.get_all_at(keys, revision)
        }

        fn range_in_shard(
            &self,
            request: &RangeRequest,
            selector: &super::ShardSelector,
        ) -> Result<super::ShardedRange, StorageError> {
            *self.ranges.lock().unwrap() += 1;
            self.store.range_in_shard(request, selector)
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
            if self.frozen {
                return Ok(Watch::from_receiver(rx));
            }
            let Some(count) = self.requests.clone() else {
                let silent = self.silent;
                std::thread::spawn(move || {
                    while let Some(event) = events.blocking_recv() {
                        if silent && event.kind == EventKind::Progress {
                            continue;
                        }
                        // etcd follows each response's events with their revision complete.
                        let complete = silent.then(|| WatchEvent::progress(event.revision()));
                        if tx.send(event).is_err() || complete.is_some_and(|p| tx.send(p).is_err())
                        {
                            return;
                        }
                    }
                });
                return Ok(Watch::from_receiver(rx));
            };
            // etcd-like: the store's own progress is dropped; a request is answered by the
            // feeder, after every event up to the store's revision (all queued by then: the
            // memory store sends them under its write lock), as etcd 3.4.31+ answers.
            let (ask, asked) = std::sync::mpsc::channel::<()>();
            let store = self.store.clone();
            std::thread::spawn(move || {
                loop {
                    let mut idle = true;
                    let answer = asked.try_recv().is_ok();
                    let now = answer.then(|| store.current_revision().unwrap());
                    for event in events.drain() {
                        idle = false;
                        if event.kind != EventKind::Progress && tx.send(event).is_err() {
                            return;
                        }
                    }
                    if let Some(now) = now {
                        idle = false;
                        if tx.send(WatchEvent::progress(now)).is_err() {
                            return;
                        }
                    }
                    if tx.is_closed() {
                        return;
                    }
                    if idle {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                }
            });
            Ok(
                Watch::from_receiver(rx).with_progress_requests(Arc::new(move || {
                    *count.lock().unwrap() += 1;
                    ask.send(()).is_ok()
                })),
            )
        }

        fn exact_progress(&self) -> bool {
            self.exact
        }

        fn progress_requests(&self) -> bool {
            self.requests.is_some()
        }
    }

    fn probe(exact: bool) -> Arc<Probe> {
        Arc::new(Probe {
            exact,
            ..Probe::default()
        })
    }

    /// A store like etcd 3.4.31+: the storage watch reports no progress by itself, but
    /// answers progress requests.
    fn etcd_like() -> Arc<Probe> {
        Arc::new(Probe {
            requests: Some(Arc::new(Mutex::new(0))),
            ..Probe::default()
        })
    }

    #[test]
    fn consistent_reads_ask_an_etcd_like_store_for_progress() {
        let etcd = etcd_like();
        let cache = WatchCache::new(etcd.clone());
        let key = |n: &str| keys::namespaced("configmaps", "d", n);
        for name in ["a", "b"] {
            cache.create(&key(name), b"1").unwrap(); // 1, 2
        }
        let prefix = keys::prefix("configmaps", None);
        let first = cache.range(&RangeRequest::prefix(prefix.clone())).unwrap();
        assert_eq!((first.revision, first.kvs.len()), (2, 2));
        // Writes to another resource: the cache's watch hears nothing of them, so a
        // consistent read must ask for progress, and then answers from memory.
        for i in 0..5 {
            cache
                .create(&keys::namespaced("secrets", "d", &i.to_string()), b"s")
                .unwrap(); // 3..=7
        }
        let second = cache.range(&RangeRequest::prefix(prefix.clone())).unwrap();
        assert_eq!((second.revision, second.kvs.len()), (7, 2));
        assert!(*etcd.requests.as_ref().unwrap().lock().unwrap() >= 1);
        // A write here is seen as an event (the request may or may not be needed).
        let c = cache.create(&key("c"), b"1").unwrap();
        let third = cache.range(&RangeRequest::prefix(prefix)).unwrap();
        assert_eq!((third.revision, third.kvs.len()), (c.mod_revision, 3));
        assert_eq!(*etcd.ranges.lock().unwrap(), 1, "only the cache's own list");
        assert_eq!(cache.consistent_reads(), (3, 0));
        // A store that neither reports every write nor answers requests: the store reads.
        let plain = probe(false);
        let cache = WatchCache::new(plain.clone());
        cache.create(&key("a"), b"1").unwrap();
        let prefix = keys::prefix("configmaps", None);
        cache.range(&RangeRequest::prefix(prefix.clone())).unwrap();
        cache.range(&RangeRequest::prefix(prefix)).unwrap();
        assert_eq!(cache.consistent_reads(), (0, 2));
        // No cache runs for them (a read does not start one): whole reads.
        assert_eq!(*plain.ranges.lock().unwrap(), 2);
    }

    #[test]
    fn windows_per_resource_and_zero_turns_the_cache_off() {
        let store: Arc<dyn Storage> = Arc::new(MemoryStorage::new());
        let sizes = CacheSizes {
            default: 3,
            per_resource: [("secrets".to_owned(), 0), ("pods".to_owned(), 5)].into(),
        };
        let cache = WatchCache::with_sizes(store.clone(), sizes);
        let cm = keys::prefix("configmaps", None);
        let pods = keys::prefix("pods", None);
        let mut cm_watch = cache.watch(&cm, Some(1)).unwrap();
        let mut pod_watch = cache.watch(&pods, Some(1)).unwrap();
        let cm_key = keys::namespaced("configmaps", "d", "k");
        let pod_key = keys::namespaced("pods", "d", "p");
        let mut cm_rev = cache.create(&cm_key, b"0").unwrap().mod_revision;
        let mut pod_rev = cache.create(&pod_key, b"0").unwrap().mod_revision;
        for i in 0..6 {
            let v = i.to_string();
            cm_rev = cache
                .update(&cm_key, v.as_bytes(), cm_rev)
                .unwrap()
                .mod_revision;
            pod_rev = cache
                .update(&pod_key, v.as_bytes(), pod_rev)
                .unwrap()
                .mod_revision;
        }
        // Each watcher also hears of the other resource's writes as progress.
        let changes = |w: &mut Watch| {
            let mut n = 0;
            let start = std::time::Instant::now();
            while n < 7 && start.elapsed() < std::time::Duration::from_secs(5) {
                n += wait(w, 1)
                    .iter()
                    .filter(|e| e.kind != EventKind::Progress)
                    .count();
            }
            n
        };
        assert_eq!(changes(&mut cm_watch), 7);
        assert_eq!(changes(&mut pod_watch), 7);
        // ConfigMaps keep the default 3 events, pods 5: a start just before is refused.
        let too_old = |prefix: &str, from: Revision| {
            matches!(
                cache.watch(prefix, Some(from)),
                Err(StorageError::Compacted { .. })
            )
        };
        assert!(!too_old(&cm, cm_rev - 4));
        assert!(too_old(&cm, cm_rev - 6));
        assert!(!too_old(&pods, pod_rev - 8));
        assert!(too_old(&pods, pod_rev - 10));
        let mut last_three = cache.watch(&cm, Some(cm_rev - 4)).unwrap();
        let revs: Vec<Revision> = wait(&mut last_three, 3)
            .iter()
            .map(WatchEvent::revision)
            .collect();
        assert_eq!(revs, [cm_rev - 4, cm_rev - 2, cm_rev]);
        assert_eq!(cache.storage_watches(), 2);
        // Secrets are not cached: each watch is the store's own, from any revision.
        let secrets = keys::prefix("secrets", None);
        let s = cache
            .create(&keys::namespaced("secrets", "d", "s"), b"0")
            .unwrap();
        let mut from_start = cache.watch(&secrets, Some(1)).unwrap();
        assert_eq!(wait(&mut from_start, 1)[0].revision(), s.mod_revision);
        let mut any = RangeRequest::prefix(secrets);
        any.any_recent = true;
        assert_eq!(cache.range(&any).unwrap().kvs.len(), 1);
        assert_eq!(cache.storage_watches(), 2);
    }

    #[test]
    fn sharded_ranges_from_the_cache_match_the_stores() {
        let store: Arc<dyn Storage> = Arc::new(MemoryStorage::new());
        let cache = WatchCache::new(store.clone());
        // Spread-out uids (an LCG's outputs: FNV-1a of near-identical texts clusters) and
        // namespaces on both sides of the namespace ranges.
        let namespaces = ["default", "kube-system", "alpha", "beta", "gamma"];
        let mut x: u64 = 12345;
        for i in 0..64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let ns = namespaces[i % namespaces.len()];
            let object = serde_json::json!({
                "metadata": {"name": format!("n{i}"), "namespace": ns, "uid": format!("{x:016x}")}
            });
            cache
                .create(
                    &keys::namespaced("configmaps", ns, &format!("n{i}")),
                    &serde_json::to_vec(&object).unwrap(),
                )
                .unwrap();
        }
        cache
            .create(&keys::namespaced("configmaps", "x", "bad"), b"not json")
            .unwrap();
        let prefix = keys::prefix("configmaps", None);
        for text in [
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')",
            "shardRange(object.metadata.uid, '0x4000000000000000', '0x10000000000000000')",
            "shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000') || \
             shardRange(object.metadata.namespace, '0xc000000000000000', '0xd000000000000000')",
        ] {
            let selector = super::ShardSelector::parse(text).unwrap();
            let mut any = RangeRequest::prefix(prefix.clone());
            any.any_recent = true;
            let cached = cache.range_in_shard(&any, &selector).unwrap();
            let stored = store
                .range_in_shard(&RangeRequest::prefix(prefix.clone()), &selector)
                .unwrap();
            assert_eq!(cached, stored, "{text}");
            assert!(cached.kvs.iter().any(|kv| kv.value == b"not json"));
            // Some in, some out (15 / 49 / 26 of 64 with these uids and namespaces).
            let kept = cached.kvs.len();
            assert!((2..64).contains(&kept), "{text}: {kept}");
            assert_eq!(cached.examined, 65);
        }
    }

    #[test]
    fn paged_sharded_reads_at_a_revision_come_from_the_cache_while_nothing_changed() {
        let probe = probe(true);
        let cache = WatchCache::new(probe.clone());
        let mut x: u64 = 777;
        for i in 0..40 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let object = serde_json::json!({"metadata": {"name": format!("n{i:02}"), "uid": format!("{x:016x}")}});
            cache
                .create(
                    &keys::namespaced("configmaps", "d", &format!("n{i:02}")),
                    &serde_json::to_vec(&object).unwrap(),
                )
                .unwrap();
        }
        let prefix = keys::prefix("configmaps", None);
        let selector = super::ShardSelector::parse(
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')",
        )
        .unwrap();
        // Pages of 4 keys examined, as a list with limit and continue reads them: the first
        // consistent, the others at its revision.
        let pages = |cache: &WatchCache, store: &dyn Storage| {
            let mut request = RangeRequest::prefix(prefix.clone()).limit(4);
            let (mut cached, mut stored) = (Vec::new(), Vec::new());
            loop {
                let page = cache.range_in_shard(&request, &selector).unwrap();
                let expected = store
                    .range_in_shard(&request.clone().at_revision(page.revision), &selector)
                    .unwrap();
                assert_eq!(page, expected);
                cached.extend(page.kvs.iter().cloned());
                stored.extend(expected.kvs.iter().cloned());
                if !page.more {
                    return (cached, stored, page.revision);
                }
                let last = page.last_key.as_deref().unwrap();
                request = request
                    .from_key(format!("{last}\u{0}"))
                    .at_revision(page.revision);
            }
        };
        let (cached, stored, at) = pages(&cache, &*probe.store);
        assert_eq!(cached, stored);
        assert!((2..40).contains(&cached.len()), "{}", cached.len());
        // The cache's own list was the only storage range: ten pages from memory.
        assert_eq!(*probe.ranges.lock().unwrap(), 1);
        // A change after the snapshot: reads at the old revision go to the store.
        let key = keys::namespaced("configmaps", "d", "n00");
        let old = probe.store.get(&key, None).unwrap().0.unwrap();
        cache.delete(&key, old.mod_revision).unwrap();
        let wait_for = |rev: Revision| {
            let start = std::time::Instant::now();
            while cache
                .range(&RangeRequest::prefix(prefix.clone()))
                .unwrap()
                .revision
                < rev
                && start.elapsed() < std::time::Duration::from_secs(5)
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        };
        wait_for(at + 1);
        let before = *probe.ranges.lock().unwrap();
        let page = cache
            .range_in_shard(
                &RangeRequest::prefix(prefix.clone()).at_revision(at),
                &selector,
            )
            .unwrap();
        assert_eq!(page.kvs, cached);
        assert_eq!(*probe.ranges.lock().unwrap(), before + 1);
        // A compacted revision is refused even while the cache still holds that state.
        let (again, _, now) = pages(&cache, &*probe.store);
        assert_eq!(
            again.len() + usize::from(cached[0].key == key),
            cached.len()
        );
        probe.store.compact(now).unwrap();
        cache
            .create(&keys::namespaced("secrets", "d", "s"), b"{}")
            .unwrap();
        wait_for(now + 1);
        let page = cache
            .range_in_shard(
                &RangeRequest::prefix(prefix.clone()).at_revision(now),
                &selector,
            )
            .unwrap();
        assert_eq!(
            page.kvs.len(),
            again.len(),
            "the compaction point itself is readable"
        );
        cache
            .create(&keys::namespaced("secrets", "d", "t"), b"{}")
            .unwrap();
        probe.store.compact(now + 1).unwrap();
        assert!(matches!(
            cache.range_in_shard(&RangeRequest::prefix(prefix).at_revision(now), &selector),
            Err(StorageError::Compacted { .. })
        ));
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
        // Without any_recent, a consistent read: the feed has reached the store's revision,
        // and the cache answers (no range read, no proof).
        cache
            .range(&RangeRequest::prefix(keys::prefix("configmaps", None)))
            .unwrap();
        assert_eq!(*probe.proofs.lock().unwrap(), 0);
        assert_eq!(*probe.key_ranges.lock().unwrap(), 0);
        assert_eq!(*probe.ranges.lock().unwrap(), 1);
        assert_eq!(cache.consistent_reads(), (1, 0));
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
    fn held_copies_come_only_from_a_running_cache_of_a_remote_store() {
        let key = keys::namespaced("configmaps", "d", "a");
        // A remote store (etcd-like): nothing is held before a read starts the cache, and
        // asking does not start it.
        let remote = probe(false);
        let cache = WatchCache::new(remote.clone());
        let created = cache.create(&key, b"1").unwrap();
        assert_eq!(cache.get_held(&key), None);
        assert_eq!(cache.storage_watches(), 0);
        assert_eq!(cache.get_recent(&key).unwrap(), Some(created.clone()));
        assert_eq!(cache.storage_watches(), 1);
        assert_eq!(cache.get_held(&key), Some(created.clone()));
        assert_eq!(
            cache.get_held(&keys::namespaced("configmaps", "d", "b")),
            None
        );
        // A later write reaches the held copy through the storage watch.
        let updated = cache.update(&key, b"2", created.mod_revision).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while cache.get_held(&key).as_ref() != Some(&updated) {
            assert!(
                std::time::Instant::now() < deadline,
                "the update never reached the cache"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        // An embedded store answers exactly: nothing is held, the caller reads the store.
        let embedded = WatchCache::new(probe(true));
        embedded.create(&key, b"1").unwrap();
        assert!(embedded.get_recent(&key).unwrap().is_some());
        assert_eq!(embedded.get_held(&key), None);
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

    /// A ConfigMap with a spread-out uid (an LCG's output: FNV-1a of near-identical texts
    /// clusters), as stored JSON.
    fn spread(i: usize) -> (String, Vec<u8>) {
        let mut x: u64 = 4242 + i as u64;
        for _ in 0..3 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
        }
        let name = format!("n{i:03}");
        let object = serde_json::json!({"metadata": {"name": name, "uid": format!("{x:016x}")}});
        (
            keys::namespaced("configmaps", "d", &name),
            serde_json::to_vec(&object).unwrap(),
        )
    }

    #[test]
    fn store_reads_take_the_values_the_cache_holds_at_the_same_revisions() {
        // etcd 3.4.23: consistent lists read the store. The storage watch passes nothing on
        // after the cache's list, so every later write is missing from the cache.
        let probe = Arc::new(Probe {
            frozen: true,
            ..Probe::default()
        });
        let cache = WatchCache::new(probe.clone());
        let store = probe.store.clone();
        for i in 0..40 {
            let (key, value) = spread(i);
            store.create(&key, &value).unwrap();
        }
        let prefix = keys::prefix("configmaps", None);
        let selector = super::ShardSelector::parse(
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')",
        )
        .unwrap();
        let counts = || {
            (
                *probe.ranges.lock().unwrap(),
                *probe.key_ranges.lock().unwrap(),
                *probe.fetched.lock().unwrap(),
            )
        };
        // A read (whole and sharded) through the cache is the store's at the same revision;
        // paged by `limit` as a list pages, every page at the first page's revision.
        let same_as_store = |request: RangeRequest, limit: Option<usize>| -> Revision {
            let mut request = match limit {
                Some(l) => request.limit(l),
                None => request,
            };
            let mut first = None;
            loop {
                let whole = cache.range(&request).unwrap();
                let at = whole.revision;
                let stored = store.range(&request.clone().at_revision(at)).unwrap();
                assert_eq!(whole, stored);
                let sharded = cache.range_in_shard(&request, &selector).unwrap();
                let stored = store
                    .range_in_shard(&request.clone().at_revision(at), &selector)
                    .unwrap();
                assert_eq!(sharded, stored);
                first.get_or_insert(at);
                if !whole.more {
                    return first.unwrap();
                }
                let last = &whole.kvs.last().unwrap().key;
                request = request.from_key(format!("{last}\u{0}")).at_revision(at);
            }
        };
        // A read does not start the cache: a watch does (its one list).
        let _watch = cache.watch(&prefix, Some(store.current_revision().unwrap() + 1));
        let listed = same_as_store(RangeRequest::prefix(prefix.clone()), None);
        // Nothing changed since the cache's list: the feed is at the store's revision, the
        // cache answers.
        assert_eq!(counts(), (1, 0, 0));
        assert_eq!(*probe.proofs.lock().unwrap(), 0);
        assert_eq!(cache.consistent_reads(), (2, 0));
        same_as_store(RangeRequest::prefix(prefix.clone()), Some(7));
        assert_eq!(counts().0, 1);
        assert_eq!(counts().2, 0, "no value read by key");
        // Changes the cache does not hear of: 3 updates, 2 creates, 1 delete.
        let mut revisions = Vec::new();
        for i in [3, 17, 29] {
            let (key, _) = spread(i);
            let old = store.get(&key, None).unwrap().0.unwrap();
            let (_, value) = spread(100 + i);
            let kv = store.update(&key, &value, old.mod_revision).unwrap();
            revisions.push(kv.mod_revision);
        }
        for i in [40, 41] {
            let (key, value) = spread(i);
            store.create(&key, &value).unwrap();
        }
        let (gone, _) = spread(5);
        let old = store.get(&gone, None).unwrap().0.unwrap();
        store.delete(&gone, old.mod_revision).unwrap();
        let before = counts();
        let now = same_as_store(RangeRequest::prefix(prefix.clone()), None);
        assert!(now > listed);
        // Two reads (whole and sharded), each reading the 5 values it lacks by key: the
        // cache never hears of the changes, so neither the feed nor a proof gets it there
        // (the first pages of 7 above came from the cache, as the whole reads did).
        assert_eq!(counts(), (before.0, before.1 + 2, before.2 + 10));
        assert_eq!(cache.consistent_reads(), (4, 2));
        // At the first update's revision only that value is new to the cache.
        let before = counts();
        same_as_store(
            RangeRequest::prefix(prefix.clone()).at_revision(revisions[0]),
            None,
        );
        assert_eq!(counts(), (before.0, before.1 + 2, before.2 + 2));
        // A compaction between the keys and the values: a consistent read is read again
        // whole at the current revision (never a 410), a read at a revision gets its 410.
        *probe.compact_before_fetch.lock().unwrap() = true;
        let before = counts();
        let whole = cache.range(&RangeRequest::prefix(prefix.clone())).unwrap();
        assert_eq!(whole.revision, store.current_revision().unwrap());
        assert_eq!(
            whole,
            store.range(&RangeRequest::prefix(prefix.clone())).unwrap()
        );
        assert_eq!(counts().0, before.0 + 1);
        assert!(matches!(
            cache.range(&RangeRequest::prefix(prefix.clone()).at_revision(revisions[0])),
            Err(StorageError::Compacted { .. })
        ));
        // More values missing than one read by key takes: the range is read again whole, at
        // the keys' revision.
        for i in 200..200 + super::store_reads::FETCH_AT_MOST {
            let (key, value) = spread(i);
            store.create(&key, &value).unwrap();
        }
        let before = counts();
        same_as_store(RangeRequest::prefix(prefix.clone()), None);
        assert_eq!(counts(), (before.0 + 2, before.1 + 2, before.2));
        // Pages of 50 lack fewer: by key.
        let before = counts();
        same_as_store(RangeRequest::prefix(prefix), Some(50));
        assert_eq!(counts().0, before.0);
        assert!(counts().2 > before.2);
    }

    #[test]
    fn consistent_reads_on_a_store_without_progress_come_from_the_feed() {
        // etcd 3.4.23: no progress requests, and the storage watch reports no progress
        // between its periodic notifications. One watch of every resource feeds the caches:
        // once it has reached the store's current revision, the cache answers; when it does
        // not (a revision outside `/registry/`), one read of the keys modified since the
        // cache's revision proves the cache fresh.
        let probe = Arc::new(Probe {
            silent: true,
            ..Probe::default()
        });
        let store = probe.store.clone();
        let cache = WatchCache::new(probe.clone());
        for i in 0..20 {
            let (key, value) = spread(i);
            cache.create(&key, &value).unwrap();
        }
        let prefix = keys::prefix("configmaps", None);
        let selector = super::ShardSelector::parse(
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
        )
        .unwrap();
        // Not running yet: a read does not start the cache, the store answers.
        cache.range(&RangeRequest::prefix(prefix.clone())).unwrap();
        assert_eq!(cache.consistent_reads(), (0, 1));
        assert_eq!(*probe.proofs.lock().unwrap(), 0);
        let _watch = cache.watch(&prefix, Some(store.current_revision().unwrap() + 1));
        // Each list is the store's at its current revision, whole, in a namespace and in a
        // shard, right after the write before it was acknowledged.
        let agrees = |step: &str| {
            let now = store.current_revision().unwrap();
            let whole = cache.range(&RangeRequest::prefix(prefix.clone())).unwrap();
            assert_eq!(
                whole,
                store.range(&RangeRequest::prefix(prefix.clone())).unwrap()
            );
            assert_eq!(whole.revision, now, "{step}");
            let namespace = keys::prefix("configmaps", Some("d"));
            let in_namespace = cache
                .range(&RangeRequest::prefix(namespace.clone()))
                .unwrap();
            assert_eq!(
                in_namespace,
                store.range(&RangeRequest::prefix(namespace)).unwrap()
            );
            let sharded = cache
                .range_in_shard(&RangeRequest::prefix(prefix.clone()), &selector)
                .unwrap();
            let stored = store
                .range_in_shard(&RangeRequest::prefix(prefix.clone()), &selector)
                .unwrap();
            assert_eq!(sharded, stored, "{step}");
            assert!(sharded.kvs.len() < whole.kvs.len());
            whole
        };
        agrees("nothing changed");
        // Writes elsewhere: the cache hears nothing of them, and is still fresh.
        for i in 0..3 {
            cache
                .create(&keys::namespaced("secrets", "d", &i.to_string()), b"s")
                .unwrap();
        }
        agrees("writes elsewhere");
        let (key, value) = spread(20);
        cache.create(&key, &value).unwrap();
        assert!(agrees("a create").kvs.iter().any(|kv| kv.key == key));
        let (gone, _) = spread(3);
        let old = store.get(&gone, None).unwrap().0.unwrap();
        cache.delete(&gone, old.mod_revision).unwrap();
        assert!(!agrees("a delete").kvs.iter().any(|kv| kv.key == gone));
        let (changed, _) = spread(7);
        let old = store.get(&changed, None).unwrap().0.unwrap();
        let updated = cache.update(&changed, b"{}", old.mod_revision).unwrap();
        assert!(agrees("an update").kvs.contains(&updated));
        // A delete and a create of another key in between keep the count.
        let (other, value) = spread(21);
        let old = store.get(&spread(4).0, None).unwrap().0.unwrap();
        cache.delete(&spread(4).0, old.mod_revision).unwrap();
        cache.create(&other, &value).unwrap();
        let listed = agrees("a delete and a create");
        // A watch from the list's revision misses nothing: the next change comes, and
        // nothing at or before that revision.
        let mut watch = cache.watch(&prefix, Some(listed.revision + 1)).unwrap();
        let (next, value) = spread(22);
        let created = cache.create(&next, &value).unwrap();
        let events = wait(&mut watch, 1);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].kv, created);
        assert!(events[0].revision() > listed.revision);
        // Every one of those lists came from the cache, without a proof, and no range was
        // read but the cache's own list.
        assert_eq!(cache.consistent_reads(), (3 * 6, 1));
        assert_eq!(*probe.proofs.lock().unwrap(), 0);
        assert_eq!(*probe.key_ranges.lock().unwrap(), 0);
        assert_eq!(*probe.ranges.lock().unwrap(), 2);
        // A first page smaller than the resource too.
        let page = cache
            .range(&RangeRequest::prefix(prefix.clone()).limit(5))
            .unwrap();
        assert!(page.more);
        assert_eq!(page.kvs.len(), 5);
        assert_eq!(cache.consistent_reads(), (1 + 3 * 6, 1));
        // Another program's key in the same store: the feed never sees its revision. The
        // read waits for the feed in vain, then one proof answers from the cache.
        store.create("/elsewhere/k", b"x").unwrap();
        let waited = std::time::Instant::now();
        agrees("a write outside the registry");
        assert!(waited.elapsed() >= super::feed::FEED_WAIT);
        assert_eq!(*probe.proofs.lock().unwrap(), 3);
        // The next reads go to the proof at once; a change of the resource brings the feed
        // to the store's revision again, and the cache answers without one.
        agrees("after the miss");
        assert_eq!(*probe.proofs.lock().unwrap(), 6);
        let (key, value) = spread(23);
        cache.create(&key, &value).unwrap();
        let heard = std::time::Instant::now();
        while super::Delegating::get_held(&cache, &key).is_none() {
            assert!(heard.elapsed() < std::time::Duration::from_secs(5));
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        agrees("a create after the miss");
        assert_eq!(*probe.proofs.lock().unwrap(), 6);
        assert_eq!(cache.consistent_reads(), (1 + 3 * 9, 1));
    }
}
