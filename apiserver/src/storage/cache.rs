//! The watch cache: one storage watch per resource, fanned out to every watcher of it, with a
//! bounded ring of recent events for watchers that start a little in the past, in the manner
//! of kube-apiserver's cacher (k8s.io/apiserver `pkg/storage/cacher`).
//!
//! [`WatchCache`] wraps any [`Storage`] and is one itself: reads and writes go straight
//! through; [`Storage::watch`] on a resource's keys (`/registry/<resource>/...`) is served
//! from the resource's cache, which starts one storage watch of the whole resource the first
//! time it is needed. A watcher asking for a revision the ring still covers gets the ring's
//! events from there, then live ones, in order and without a gap (both happen under the
//! cache's lock, which the feeder also takes to append and fan out). Older starts go to the
//! storage itself (history replay, or `Compacted`). When the storage watch ends (etcd gone,
//! say), every watcher of the resource sees its stream end, and the next watch starts a new
//! storage watch. So a thousand watchers of ConfigMaps cost one storage watch.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::mpsc;

use super::keys::ROOT;
use super::{
    KeyValue, RangeRequest, RangeResponse, Revision, Storage, StorageError, Watch, WatchEvent,
};

/// How many recent events each resource keeps for watchers that start in the past.
pub const RING_CAPACITY: usize = 1024;

/// How many events may wait for one watcher; a watcher that lets more pile up is closed (its
/// stream ends, and the client watches again from its last resourceVersion), as upstream's
/// cacher closes unresponsive watchers, so that one slow client cannot grow the server.
pub const WATCHER_QUEUE: usize = 4096;

/// One watcher of a resource: the keys it wants, the first revision it wants, its channel.
struct Subscriber {
    prefix: String,
    from: Revision,
    tx: mpsc::Sender<WatchEvent>,
}

impl Subscriber {
    /// Sends `event` if wanted; false once the watcher is gone or too far behind (then it is
    /// dropped, which ends its stream).
    fn offer(&self, event: &WatchEvent) -> bool {
        if event.revision() < self.from || !event.kv.key.starts_with(self.prefix.as_str()) {
            return !self.tx.is_closed();
        }
        self.tx.try_send(event.clone()).is_ok()
    }
}

/// The cache of one resource.
struct ResourceCache {
    /// Every event from `covered_from` on is in `ring` (or still to come).
    covered_from: Revision,
    ring: VecDeque<WatchEvent>,
    subscribers: Vec<Subscriber>,
    /// Bumped for each new storage watch, so that an ended feeder only removes its own cache.
    generation: u64,
}

#[derive(Default)]
struct Inner {
    resources: HashMap<String, ResourceCache>,
    next_generation: u64,
    storage_watches: u64,
}

/// A [`Storage`] whose watches are served from one storage watch per resource.
pub struct WatchCache {
    store: Arc<dyn Storage>,
    inner: Arc<Mutex<Inner>>,
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

fn lock(inner: &Mutex<Inner>) -> MutexGuard<'_, Inner> {
    // The maps stay consistent under a panic (each update is one push or removal).
    inner.lock().unwrap_or_else(|e| e.into_inner())
}

impl WatchCache {
    /// Wraps `store`.
    pub fn new(store: Arc<dyn Storage>) -> Self {
        WatchCache {
            store,
            inner: Arc::default(),
        }
    }

    /// How many storage watches the cache has started (for tests and metrics).
    pub fn storage_watches(&self) -> u64 {
        lock(&self.inner).storage_watches
    }

    /// Starts the storage watch of `root`, its feeder thread, and the resource's cache.
    fn start_resource(&self, inner: &mut Inner, root: &str) -> Result<(), StorageError> {
        let current = self.store.current_revision()?;
        let mut watch = self.store.watch(root, Some(current + 1))?;
        inner.next_generation += 1;
        inner.storage_watches += 1;
        let generation = inner.next_generation;
        inner.resources.insert(
            root.to_owned(),
            ResourceCache {
                covered_from: current + 1,
                ring: VecDeque::with_capacity(64),
                subscribers: Vec::new(),
                generation,
            },
        );
        let shared = self.inner.clone();
        let root = root.to_owned();
        std::thread::Builder::new()
            .name("watch-cache".to_owned())
            .spawn(move || {
                while let Some(event) = watch.blocking_recv() {
                    let mut inner = lock(&shared);
                    let Some(cache) = inner.resources.get_mut(&root) else {
                        return;
                    };
                    if cache.generation != generation {
                        return;
                    }
                    cache.subscribers.retain(|s| s.offer(&event));
                    if cache.ring.len() == RING_CAPACITY
                        && let Some(oldest) = cache.ring.pop_front()
                    {
                        cache.covered_from = oldest.revision() + 1;
                    }
                    cache.ring.push_back(event);
                }
                // The storage watch ended: its watchers' streams end with it (dropping the
                // senders), and the next watch starts afresh.
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

impl Storage for WatchCache {
    fn current_revision(&self) -> Result<Revision, StorageError> {
        self.store.current_revision()
    }

    fn compacted_revision(&self) -> Result<Revision, StorageError> {
        self.store.compacted_revision()
    }

    fn get(
        &self,
        key: &str,
        revision: Option<Revision>,
    ) -> Result<(Option<KeyValue>, Revision), StorageError> {
        self.store.get(key, revision)
    }

    fn range(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
        self.store.range(request)
    }

    fn create(&self, key: &str, value: &[u8]) -> Result<KeyValue, StorageError> {
        self.store.create(key, value)
    }

    fn update(
        &self,
        key: &str,
        value: &[u8],
        expected: Revision,
    ) -> Result<KeyValue, StorageError> {
        self.store.update(key, value, expected)
    }

    fn delete(&self, key: &str, expected: Revision) -> Result<(KeyValue, Revision), StorageError> {
        self.store.delete(key, expected)
    }

    fn watch(&self, prefix: &str, from: Option<Revision>) -> Result<Watch, StorageError> {
        let (Some(root), Some(from)) = (resource_root(prefix), from) else {
            return self.store.watch(prefix, from);
        };
        let mut inner = lock(&self.inner);
        if !inner.resources.contains_key(&root) {
            self.start_resource(&mut inner, &root)?;
        }
        let cache = inner
            .resources
            .get_mut(&root)
            .expect("the resource's cache was just started");
        if from < cache.covered_from {
            // Older than the ring: the storage replays (or refuses) it.
            drop(inner);
            return self.store.watch(prefix, Some(from));
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

    fn compact(&self, revision: Revision) -> Result<(), StorageError> {
        self.store.compact(revision)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::memory::MemoryStorage;
    use crate::storage::{EventKind, keys};

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
}
