//! One conformance suite for every storage backend.
//!
//! Each check is a generic function over a [`Backend`]; the `conformance!` macro at the end
//! instantiates every check as a test for each backend.

use std::sync::{Arc, Barrier};
use std::thread;

use kcel_apiserver::storage::memory::MemoryStorage;
use kcel_apiserver::storage::sqlite::SqliteStorage;
use kcel_apiserver::storage::{
    EventKind, KeyValue, RangeRequest, Revision, Storage, StorageError, WatchEvent, keys,
};

/// A backend under test: a fresh store, and the same store opened again.
trait Backend {
    /// Whether the backend can run here (else the check is skipped, visibly).
    fn available() -> bool {
        true
    }
    fn new() -> Self;
    fn store(&self) -> Arc<dyn Storage>;
    /// Closes the store and opens it again from its persistent form (a no-op in memory).
    fn reopen(&mut self);
}

struct Memory(Arc<MemoryStorage>);

impl Backend for Memory {
    fn new() -> Self {
        Memory(Arc::new(MemoryStorage::new()))
    }
    fn store(&self) -> Arc<dyn Storage> {
        self.0.clone()
    }
    fn reopen(&mut self) {}
}

/// The watch cache in front of the in-memory store.
struct Cached(Arc<kcel_apiserver::storage::cache::WatchCache>);

impl Backend for Cached {
    fn new() -> Self {
        Cached(Arc::new(kcel_apiserver::storage::cache::WatchCache::new(
            Arc::new(MemoryStorage::new()),
        )))
    }
    fn store(&self) -> Arc<dyn Storage> {
        self.0.clone()
    }
    fn reopen(&mut self) {}
}

struct Sqlite {
    dir: tempfile::TempDir,
    store: Option<Arc<SqliteStorage>>,
}

impl Sqlite {
    fn open(dir: &tempfile::TempDir) -> Arc<SqliteStorage> {
        Arc::new(SqliteStorage::open(dir.path().join("state.db")).unwrap())
    }
}

impl Backend for Sqlite {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Some(Self::open(&dir));
        Sqlite { dir, store }
    }
    fn store(&self) -> Arc<dyn Storage> {
        self.store.clone().unwrap()
    }
    fn reopen(&mut self) {
        let old = self.store.take().unwrap();
        assert_eq!(
            Arc::strong_count(&old),
            1,
            "the test still holds the old store"
        );
        drop(old);
        self.store = Some(Self::open(&self.dir));
    }
}

/// etcd (cargo feature `etcd`): a real etcd per test, reached through the etcd backend.
///
/// An empty etcd is at revision 1, where the suite's stores start at 0, so the checks see the
/// backend through [`Shifted`], which subtracts one from every revision going out and adds one
/// to every revision coming in; everything else is etcd's own behaviour.
#[cfg(feature = "etcd")]
#[path = "support/etcd.rs"]
mod etcd_process;

#[cfg(feature = "etcd")]
struct Etcd {
    process: etcd_process::Etcd,
    store: Option<Arc<dyn Storage>>,
}

#[cfg(feature = "etcd")]
impl Etcd {
    fn connect(url: &str) -> Arc<dyn Storage> {
        use kcel_apiserver::storage::etcd::EtcdStorage;
        let start = std::time::Instant::now();
        loop {
            match EtcdStorage::connect(&[url.to_owned()]) {
                Ok(store) => return Arc::new(Shifted(store)),
                Err(e) if start.elapsed() < std::time::Duration::from_secs(20) => {
                    let _ = e;
                    thread::sleep(std::time::Duration::from_millis(100));
                }
                Err(e) => panic!("connecting to etcd: {e}"),
            }
        }
    }
}

#[cfg(feature = "etcd")]
impl Backend for Etcd {
    fn available() -> bool {
        etcd_process::binary("the etcd conformance checks").is_some()
    }
    fn new() -> Self {
        let binary = etcd_process::binary("etcd").unwrap();
        let process = etcd_process::Etcd::start(&binary);
        let store = Some(Self::connect(&process.url));
        Etcd { process, store }
    }
    fn store(&self) -> Arc<dyn Storage> {
        self.store.clone().unwrap()
    }
    fn reopen(&mut self) {
        let old = self.store.take().unwrap();
        assert_eq!(
            Arc::strong_count(&old),
            1,
            "the test still holds the old store"
        );
        drop(old);
        self.store = Some(Self::connect(&self.process.url));
    }
}

/// A store seen with every revision one lower (see [`Etcd`]).
#[cfg(feature = "etcd")]
struct Shifted<S>(S);

#[cfg(feature = "etcd")]
fn down(kv: KeyValue) -> KeyValue {
    KeyValue {
        create_revision: kv.create_revision - 1,
        mod_revision: kv.mod_revision - 1,
        ..kv
    }
}

#[cfg(feature = "etcd")]
fn down_error(e: StorageError) -> StorageError {
    match e {
        StorageError::Compacted {
            requested,
            compacted,
        } => StorageError::Compacted {
            requested: requested - 1,
            compacted: (compacted - 1).max(0),
        },
        StorageError::FutureRevision { requested, current } => StorageError::FutureRevision {
            requested: requested - 1,
            current: current - 1,
        },
        StorageError::Conflict {
            key,
            expected,
            actual,
            current,
        } => StorageError::Conflict {
            key,
            expected: expected - 1,
            actual: actual - 1,
            current: current.map(|kv| Box::new(down(*kv))),
        },
        other => other,
    }
}

#[cfg(feature = "etcd")]
impl<S: Storage> Storage for Shifted<S> {
    fn current_revision(&self) -> Result<Revision, StorageError> {
        Ok(self.0.current_revision()? - 1)
    }
    fn compacted_revision(&self) -> Result<Revision, StorageError> {
        Ok((self.0.compacted_revision()? - 1).max(0))
    }
    fn get(
        &self,
        key: &str,
        revision: Option<Revision>,
    ) -> Result<(Option<KeyValue>, Revision), StorageError> {
        let (kv, at) = self
            .0
            .get(key, revision.map(|r| r + 1))
            .map_err(down_error)?;
        Ok((kv.map(down), at - 1))
    }
    fn range(
        &self,
        request: &RangeRequest,
    ) -> Result<kcel_apiserver::storage::RangeResponse, StorageError> {
        let mut shifted = request.clone();
        shifted.revision = request.revision.map(|r| r + 1);
        let r = self.0.range(&shifted).map_err(down_error)?;
        Ok(kcel_apiserver::storage::RangeResponse {
            kvs: r.kvs.into_iter().map(down).collect(),
            revision: r.revision - 1,
            ..r
        })
    }
    fn create(&self, key: &str, value: &[u8]) -> Result<KeyValue, StorageError> {
        self.0.create(key, value).map(down).map_err(down_error)
    }
    fn update(
        &self,
        key: &str,
        value: &[u8],
        expected: Revision,
    ) -> Result<KeyValue, StorageError> {
        self.0
            .update(key, value, expected + 1)
            .map(down)
            .map_err(down_error)
    }
    fn delete(&self, key: &str, expected: Revision) -> Result<(KeyValue, Revision), StorageError> {
        let (kv, rev) = self.0.delete(key, expected + 1).map_err(down_error)?;
        Ok((down(kv), rev - 1))
    }
    fn watch(
        &self,
        prefix: &str,
        from: Option<Revision>,
    ) -> Result<kcel_apiserver::storage::Watch, StorageError> {
        let mut inner = self
            .0
            .watch(prefix, from.map(|r| r + 1))
            .map_err(down_error)?;
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let shift = |event: WatchEvent| WatchEvent {
            kind: event.kind,
            kv: down(event.kv),
            prev: event.prev.map(down),
        };
        // What the backend queued already (the replayed history) is queued here too.
        for event in inner.drain() {
            let _ = tx.send(shift(event));
        }
        thread::spawn(move || {
            while let Some(event) = inner.blocking_recv() {
                let event = WatchEvent {
                    kind: event.kind,
                    kv: down(event.kv),
                    prev: event.prev.map(down),
                };
                if tx.send(event).is_err() {
                    return;
                }
            }
        });
        Ok(kcel_apiserver::storage::Watch::from_receiver(rx))
    }
    fn compact(&self, revision: Revision) -> Result<(), StorageError> {
        self.0.compact(revision + 1).map_err(down_error)
    }
}

/// The events of `watch`, waiting (at most 10 s) until `count` arrived, then for anything
/// extra (a backend may replay history asynchronously, as etcd does).
fn wait_events(watch: &mut kcel_apiserver::storage::Watch, count: usize) -> Vec<WatchEvent> {
    let start = std::time::Instant::now();
    let mut events = watch.drain();
    while events.len() < count && start.elapsed() < std::time::Duration::from_secs(10) {
        thread::sleep(std::time::Duration::from_millis(10));
        events.extend(watch.drain());
    }
    thread::sleep(std::time::Duration::from_millis(100));
    events.extend(watch.drain());
    events
}

fn cm(name: &str) -> String {
    keys::namespaced("configmaps", "default", name)
}

fn value(kv: &Option<KeyValue>) -> Option<&[u8]> {
    kv.as_ref().map(|kv| kv.value.as_slice())
}

fn names(kvs: &[KeyValue]) -> Vec<&str> {
    kvs.iter()
        .map(|kv| kv.key.rsplit('/').next().unwrap())
        .collect()
}

/// (kind, key, revision, value, prev value) of each event, for compact comparisons.
type Summary = (EventKind, String, Revision, Vec<u8>, Option<Vec<u8>>);

fn summarize(events: &[WatchEvent]) -> Vec<Summary> {
    events
        .iter()
        .map(|e| {
            (
                e.kind.clone(),
                e.kv.key.clone(),
                e.revision(),
                e.kv.value.clone(),
                e.prev.as_ref().map(|p| p.value.clone()),
            )
        })
        .collect()
}

fn empty_store_is_at_revision_zero<B: Backend>() {
    let b = B::new();
    let s = b.store();
    assert_eq!(s.current_revision().unwrap(), 0);
    assert_eq!(s.compacted_revision().unwrap(), 0);
    let r = s.range(&RangeRequest::prefix(keys::ROOT)).unwrap();
    assert!(r.kvs.is_empty());
    assert_eq!((r.revision, r.more, r.count), (0, false, 0));
    assert_eq!(s.get(&cm("a"), None).unwrap(), (None, 0));
}

fn create_assigns_the_next_revision<B: Backend>() {
    let b = B::new();
    let s = b.store();
    let a = s.create(&cm("a"), b"1").unwrap();
    assert_eq!((a.create_revision, a.mod_revision), (1, 1));
    let c = s.create(&cm("c"), b"3").unwrap();
    assert_eq!((c.create_revision, c.mod_revision), (2, 2));
    assert_eq!(s.current_revision().unwrap(), 2);
    let (got, at) = s.get(&cm("a"), None).unwrap();
    assert_eq!((got, at), (Some(a), 2));
    match s.create(&cm("a"), b"again") {
        Err(StorageError::AlreadyExists { key }) => assert_eq!(key, cm("a")),
        other => panic!("expected AlreadyExists, got {other:?}"),
    }
    assert_eq!(
        s.current_revision().unwrap(),
        2,
        "a failed create writes nothing"
    );
}

fn update_is_compare_and_swap_on_the_mod_revision<B: Backend>() {
    let b = B::new();
    let s = b.store();
    let a = s.create(&cm("a"), b"1").unwrap();
    s.create(&cm("b"), b"x").unwrap();
    let a2 = s.update(&cm("a"), b"2", a.mod_revision).unwrap();
    assert_eq!((a2.create_revision, a2.mod_revision), (1, 3));
    assert_eq!(value(&s.get(&cm("a"), None).unwrap().0), Some(&b"2"[..]));
    match s.update(&cm("a"), b"stale", a.mod_revision) {
        Err(StorageError::Conflict {
            key,
            expected,
            actual,
            current,
        }) => {
            assert_eq!((key, expected, actual), (cm("a"), 1, 3));
            // A backend that reads the value with the failed compare returns it as stored.
            if let Some(current) = current {
                assert_eq!(*current, a2);
            }
        }
        other => panic!("expected Conflict, got {other:?}"),
    }
    match s.update(&cm("missing"), b"v", 1) {
        Err(StorageError::NotFound { key }) => assert_eq!(key, cm("missing")),
        other => panic!("expected NotFound, got {other:?}"),
    }
    assert_eq!(
        s.current_revision().unwrap(),
        3,
        "failed updates write nothing"
    );
    assert_eq!(value(&s.get(&cm("a"), None).unwrap().0), Some(&b"2"[..]));
}

fn delete_is_compare_and_swap_and_leaves_history<B: Backend>() {
    let b = B::new();
    let s = b.store();
    let a = s.create(&cm("a"), b"1").unwrap();
    let a2 = s.update(&cm("a"), b"2", a.mod_revision).unwrap();
    assert!(matches!(
        s.delete(&cm("a"), a.mod_revision),
        Err(StorageError::Conflict { actual: 2, .. })
    ));
    let (deleted, rev) = s.delete(&cm("a"), a2.mod_revision).unwrap();
    assert_eq!((deleted, rev), (a2, 3));
    assert_eq!(s.get(&cm("a"), None).unwrap(), (None, 3));
    assert!(matches!(
        s.delete(&cm("a"), 3),
        Err(StorageError::NotFound { .. })
    ));
    assert!(matches!(
        s.update(&cm("a"), b"x", 3),
        Err(StorageError::NotFound { .. })
    ));
    // Re-creating starts a new life of the key.
    let again = s.create(&cm("a"), b"new").unwrap();
    assert_eq!((again.create_revision, again.mod_revision), (4, 4));
    // The old lives stay readable at their revisions.
    assert_eq!(value(&s.get(&cm("a"), Some(1)).unwrap().0), Some(&b"1"[..]));
    assert_eq!(value(&s.get(&cm("a"), Some(2)).unwrap().0), Some(&b"2"[..]));
    assert_eq!(s.get(&cm("a"), Some(3)).unwrap(), (None, 3));
}

fn range_reads_one_prefix_in_key_order<B: Backend>() {
    let b = B::new();
    let s = b.store();
    for name in ["c", "a", "b"] {
        s.create(&cm(name), name.as_bytes()).unwrap();
    }
    // Neighbours that share a textual prefix but not the `/`-terminated one.
    s.create("/registry/configmaps/default2/x", b"").unwrap();
    s.create("/registry/configmaps/defaul/x", b"").unwrap();
    s.create(&keys::namespaced("secrets", "default", "a"), b"")
        .unwrap();
    let (gone, _) = s
        .delete(
            &cm("b"),
            s.get(&cm("b"), None).unwrap().0.unwrap().mod_revision,
        )
        .map(|(kv, rev)| (kv.key, rev))
        .unwrap();
    assert_eq!(gone, cm("b"));
    let r = s
        .range(&RangeRequest::prefix(keys::prefix(
            "configmaps",
            Some("default"),
        )))
        .unwrap();
    assert_eq!(names(&r.kvs), ["a", "c"]);
    assert_eq!((r.revision, r.more, r.count), (7, false, 2));
    let all = s
        .range(&RangeRequest::prefix(keys::prefix("configmaps", None)))
        .unwrap();
    assert_eq!(
        all.kvs.iter().map(|kv| kv.key.as_str()).collect::<Vec<_>>(),
        [
            "/registry/configmaps/defaul/x",
            "/registry/configmaps/default/a",
            "/registry/configmaps/default/c",
            "/registry/configmaps/default2/x",
        ]
    );
    let everything = s.range(&RangeRequest::prefix("")).unwrap();
    assert_eq!(everything.count, 5);
}

fn range_pages_with_limit_and_from_key_on_one_snapshot<B: Backend>() {
    let b = B::new();
    let s = b.store();
    for name in ["a", "b", "c", "d", "e"] {
        s.create(&cm(name), name.as_bytes()).unwrap();
    }
    let prefix = keys::prefix("configmaps", Some("default"));
    let first = s.range(&RangeRequest::prefix(&prefix).limit(2)).unwrap();
    assert_eq!(names(&first.kvs), ["a", "b"]);
    assert_eq!((first.revision, first.more, first.count), (5, true, 5));
    // Writes between pages do not show: later pages read the first page's revision.
    s.create(&cm("bb"), b"").unwrap();
    let d = s.get(&cm("d"), None).unwrap().0.unwrap();
    s.delete(&cm("d"), d.mod_revision).unwrap();
    let mut seen = names(&first.kvs)
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
    let mut next = format!("{}\0", first.kvs.last().unwrap().key);
    loop {
        let page = s
            .range(
                &RangeRequest::prefix(&prefix)
                    .from_key(&next)
                    .limit(2)
                    .at_revision(first.revision),
            )
            .unwrap();
        assert_eq!(page.revision, first.revision);
        assert_eq!(page.count, 5 - seen.len());
        seen.extend(names(&page.kvs).into_iter().map(str::to_owned));
        if !page.more {
            break;
        }
        next = format!("{}\0", page.kvs.last().unwrap().key);
    }
    assert_eq!(seen, ["a", "b", "c", "d", "e"]);
    // The current state has the later writes.
    let now = s.range(&RangeRequest::prefix(&prefix)).unwrap();
    assert_eq!(names(&now.kvs), ["a", "b", "bb", "c", "e"]);
    // A from-key before the prefix starts at the prefix; limit 0 means no limit.
    let r = s
        .range(&RangeRequest::prefix(&prefix).from_key("/").limit(0))
        .unwrap();
    assert_eq!(r.kvs.len(), 5);
}

fn reads_at_past_revisions_see_past_states<B: Backend>() {
    let b = B::new();
    let s = b.store();
    let a = s.create(&cm("a"), b"a1").unwrap(); // 1
    s.create(&cm("b"), b"b1").unwrap(); // 2
    s.update(&cm("a"), b"a2", a.mod_revision).unwrap(); // 3
    s.delete(&cm("b"), 2).unwrap(); // 4
    s.create(&cm("c"), b"c1").unwrap(); // 5
    let prefix = keys::prefix("configmaps", Some("default"));
    let at = |rev| {
        let r = s
            .range(&RangeRequest::prefix(&prefix).at_revision(rev))
            .unwrap();
        assert_eq!(r.revision, rev);
        r.kvs
            .iter()
            .map(|kv| {
                (
                    kv.key.rsplit('/').next().unwrap().to_owned(),
                    kv.value.clone(),
                    kv.mod_revision,
                )
            })
            .collect::<Vec<_>>()
    };
    let v = |name: &str, val: &str, rev| (name.to_owned(), val.as_bytes().to_vec(), rev);
    assert_eq!(at(0), []);
    assert_eq!(at(1), [v("a", "a1", 1)]);
    assert_eq!(at(2), [v("a", "a1", 1), v("b", "b1", 2)]);
    assert_eq!(at(3), [v("a", "a2", 3), v("b", "b1", 2)]);
    assert_eq!(at(4), [v("a", "a2", 3)]);
    assert_eq!(at(5), [v("a", "a2", 3), v("c", "c1", 5)]);
    match s.range(&RangeRequest::prefix(&prefix).at_revision(6)) {
        Err(StorageError::FutureRevision { requested, current }) => {
            assert_eq!((requested, current), (6, 5))
        }
        other => panic!("expected FutureRevision, got {other:?}"),
    }
    assert!(matches!(
        s.get(&cm("a"), Some(9)),
        Err(StorageError::FutureRevision { .. })
    ));
}

fn racing_writers_on_one_key_exactly_one_wins<B: Backend>() {
    const WRITERS: usize = 8;
    const ROUNDS: usize = 10;
    let b = B::new();
    let s = b.store();
    let key = cm("contended");
    // Racing creates.
    let barrier = Arc::new(Barrier::new(WRITERS));
    let created = (0..WRITERS)
        .map(|i| {
            let (s, key, barrier) = (s.clone(), key.clone(), barrier.clone());
            thread::spawn(move || {
                barrier.wait();
                s.create(&key, format!("{i}").as_bytes())
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect::<Vec<_>>();
    assert_eq!(created.iter().filter(|r| r.is_ok()).count(), 1);
    assert!(
        created
            .iter()
            .all(|r| r.is_ok() || matches!(r, Err(StorageError::AlreadyExists { .. })))
    );
    // Racing compare-and-swaps, all from the same read.
    for round in 0..ROUNDS {
        let seen = s.get(&key, None).unwrap().0.unwrap().mod_revision;
        let results = (0..WRITERS)
            .map(|i| {
                let (s, key, barrier) = (s.clone(), key.clone(), barrier.clone());
                thread::spawn(move || {
                    barrier.wait();
                    s.update(&key, format!("{round}/{i}").as_bytes(), seen)
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect::<Vec<_>>();
        let winners = results
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .collect::<Vec<_>>();
        assert_eq!(winners.len(), 1, "round {round}: {results:?}");
        let loser_actuals = results
            .iter()
            .filter_map(|r| match r {
                Err(StorageError::Conflict { actual, .. }) => Some(*actual),
                Ok(_) => None,
                Err(e) => panic!("unexpected error {e}"),
            })
            .collect::<Vec<_>>();
        assert_eq!(loser_actuals, vec![winners[0].mod_revision; WRITERS - 1]);
        assert_eq!(s.get(&key, None).unwrap().0.as_ref(), Some(winners[0]));
    }
    assert_eq!(s.current_revision().unwrap(), 1 + ROUNDS as Revision);
}

fn concurrent_writers_on_distinct_keys_get_distinct_revisions<B: Backend>() {
    const WRITERS: usize = 4;
    const EACH: usize = 25;
    let b = B::new();
    let s = b.store();
    let mut watch = s.watch(keys::ROOT, None).unwrap();
    let handles = (0..WRITERS)
        .map(|w| {
            let s = s.clone();
            thread::spawn(move || {
                (0..EACH)
                    .map(|i| {
                        s.create(&cm(&format!("w{w}-{i}")), b"v")
                            .unwrap()
                            .mod_revision
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect::<Vec<_>>();
    let mut revs = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect::<Vec<_>>();
    revs.sort();
    let total = (WRITERS * EACH) as Revision;
    assert_eq!(revs, (1..=total).collect::<Vec<_>>());
    let events = wait_events(&mut watch, total as usize);
    assert_eq!(
        events.iter().map(WatchEvent::revision).collect::<Vec<_>>(),
        (1..=total).collect::<Vec<_>>(),
        "the watch sees every write once, in revision order"
    );
}

fn watch_replays_history_then_follows_in_order<B: Backend>() {
    let b = B::new();
    let s = b.store();
    let a = s.create(&cm("a"), b"a1").unwrap(); // 1
    s.create(&keys::namespaced("secrets", "default", "s"), b"s")
        .unwrap(); // 2
    s.update(&cm("a"), b"a2", a.mod_revision).unwrap(); // 3
    s.create(&cm("b"), b"b1").unwrap(); // 4
    s.delete(&cm("a"), 3).unwrap(); // 5
    s.create(&cm("a"), b"a3").unwrap(); // 6
    let prefix = keys::prefix("configmaps", None);
    let mut from_start = s.watch(&prefix, Some(1)).unwrap();
    let mut from_three = s.watch(&prefix, Some(3)).unwrap();
    let mut from_now = s.watch(&prefix, None).unwrap();
    let mut secrets = s.watch(&keys::prefix("secrets", None), Some(0)).unwrap();
    let e = |kind, name: &str, rev, val: &str, prev: Option<&str>| -> Summary {
        (
            kind,
            cm(name),
            rev,
            val.as_bytes().to_vec(),
            prev.map(|p| p.as_bytes().to_vec()),
        )
    };
    use EventKind::{Delete, Put};
    let history = vec![
        e(Put, "a", 1, "a1", None),
        e(Put, "a", 3, "a2", Some("a1")),
        e(Put, "b", 4, "b1", None),
        e(Delete, "a", 5, "", Some("a2")),
        e(Put, "a", 6, "a3", None),
    ];
    assert_eq!(summarize(&wait_events(&mut from_start, 5)), history);
    assert_eq!(summarize(&wait_events(&mut from_three, 4)), history[1..]);
    assert!(from_now.drain().is_empty());
    let s_events = wait_events(&mut secrets, 1);
    assert_eq!(s_events.len(), 1);
    assert_eq!(
        s_events[0].kv.key,
        keys::namespaced("secrets", "default", "s")
    );
    // Later writes reach every watcher once, after the replayed history.
    s.update(&cm("b"), b"b2", 4).unwrap(); // 7
    s.create(&keys::namespaced("secrets", "default", "t"), b"t")
        .unwrap(); // 8
    let b2 = e(Put, "b", 7, "b2", Some("b1"));
    assert_eq!(
        summarize(&wait_events(&mut from_start, 1)),
        std::slice::from_ref(&b2)
    );
    assert_eq!(
        summarize(&wait_events(&mut from_three, 1)),
        std::slice::from_ref(&b2)
    );
    assert_eq!(summarize(&wait_events(&mut from_now, 1)), [b2]);
    assert_eq!(wait_events(&mut secrets, 1).len(), 1);
    // Deletes carry the key, the deletion revision, and the deleted value as prev.
    s.delete(&cm("b"), 7).unwrap(); // 9
    let events = wait_events(&mut from_now, 1);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].kv.create_revision, 4);
    assert_eq!(events[0].prev.as_ref().unwrap().mod_revision, 7);
    // A watch from a future revision is a watch from now.
    let mut future = s.watch(&prefix, Some(100)).unwrap();
    assert!(future.drain().is_empty());
}

fn watch_survives_dropped_watchers<B: Backend>() {
    let b = B::new();
    let s = b.store();
    let dropped = s.watch(keys::ROOT, None).unwrap();
    let mut kept = s.watch(keys::ROOT, None).unwrap();
    drop(dropped);
    s.create(&cm("a"), b"").unwrap();
    s.create(&cm("b"), b"").unwrap();
    assert_eq!(wait_events(&mut kept, 2).len(), 2);
}

fn compaction_forgets_history_below_its_revision<B: Backend>() {
    let b = B::new();
    let s = b.store();
    let a = s.create(&cm("a"), b"a1").unwrap(); // 1
    s.create(&cm("b"), b"b1").unwrap(); // 2
    s.update(&cm("a"), b"a2", a.mod_revision).unwrap(); // 3
    s.delete(&cm("b"), 2).unwrap(); // 4
    s.create(&cm("c"), b"c1").unwrap(); // 5
    s.update(&cm("a"), b"a3", 3).unwrap(); // 6
    s.create(&cm("b"), b"b2").unwrap(); // 7
    let prefix = keys::prefix("configmaps", None);
    let before = |rev| {
        s.range(&RangeRequest::prefix(&prefix).at_revision(rev))
            .unwrap()
            .kvs
    };
    let states = (5..=7).map(before).collect::<Vec<_>>();
    s.compact(5).unwrap();
    assert_eq!(s.compacted_revision().unwrap(), 5);
    assert_eq!(
        s.current_revision().unwrap(),
        7,
        "compaction is not a write"
    );
    for rev in [0, 1, 4] {
        match s.range(&RangeRequest::prefix(&prefix).at_revision(rev)) {
            Err(StorageError::Compacted {
                requested,
                compacted,
            }) => assert_eq!((requested, compacted), (rev, 5)),
            other => panic!("expected Compacted at {rev}, got {other:?}"),
        }
        assert!(matches!(
            s.get(&cm("a"), Some(rev)),
            Err(StorageError::Compacted { .. })
        ));
        assert!(matches!(
            s.watch(&prefix, Some(rev)),
            Err(StorageError::Compacted { .. })
        ));
    }
    // Every state from the compaction revision on is intact.
    for (rev, state) in (5..=7).zip(&states) {
        let r = s
            .range(&RangeRequest::prefix(&prefix).at_revision(rev))
            .unwrap();
        assert_eq!(&r.kvs, state, "state at {rev}");
    }
    // A watch from the compaction revision replays it, with the previous values it needs.
    let mut w = s.watch(&prefix, Some(5)).unwrap();
    let events = summarize(&wait_events(&mut w, 3));
    assert_eq!(
        events,
        [
            (EventKind::Put, cm("c"), 5, b"c1".to_vec(), None),
            (
                EventKind::Put,
                cm("a"),
                6,
                b"a3".to_vec(),
                Some(b"a2".to_vec())
            ),
            (EventKind::Put, cm("b"), 7, b"b2".to_vec(), None),
        ]
    );
    // Compacting again at or below the point fails; beyond the current revision too.
    assert!(matches!(s.compact(5), Err(StorageError::Compacted { .. })));
    assert!(matches!(s.compact(3), Err(StorageError::Compacted { .. })));
    assert!(matches!(
        s.compact(8),
        Err(StorageError::FutureRevision { .. })
    ));
    // Writes go on from the same revision; compacting at the head keeps the head.
    let b2 = s.get(&cm("b"), None).unwrap().0.unwrap();
    s.update(&cm("b"), b"b3", b2.mod_revision).unwrap(); // 8
    s.compact(8).unwrap();
    let now = s.range(&RangeRequest::prefix(&prefix)).unwrap();
    assert_eq!(now.revision, 8);
    assert_eq!(
        now.kvs
            .iter()
            .map(|kv| kv.value.clone())
            .collect::<Vec<_>>(),
        [b"a3".to_vec(), b"b3".to_vec(), b"c1".to_vec()]
    );
    assert_eq!(s.create(&cm("d"), b"").unwrap().mod_revision, 9);
}

fn reopening_keeps_data_revisions_and_compaction<B: Backend>() {
    let mut b = B::new();
    let prefix = keys::prefix("configmaps", None);
    let (state, history) = {
        let s = b.store();
        for i in 0..20 {
            s.create(&cm(&format!("k{i:02}")), format!("v{i}").as_bytes())
                .unwrap();
        }
        for i in 0..10 {
            let key = cm(&format!("k{i:02}"));
            let kv = s.get(&key, None).unwrap().0.unwrap();
            if i % 2 == 0 {
                s.update(&key, b"updated", kv.mod_revision).unwrap();
            } else {
                s.delete(&key, kv.mod_revision).unwrap();
            }
        }
        s.compact(15).unwrap();
        let state = s.range(&RangeRequest::prefix(&prefix)).unwrap();
        let history = summarize(&wait_events(&mut s.watch(&prefix, Some(15)).unwrap(), 16));
        (state, history)
    };
    b.reopen();
    let s = b.store();
    assert_eq!(s.current_revision().unwrap(), 30);
    assert_eq!(s.compacted_revision().unwrap(), 15);
    assert_eq!(s.range(&RangeRequest::prefix(&prefix)).unwrap(), state);
    assert_eq!(
        summarize(&wait_events(&mut s.watch(&prefix, Some(15)).unwrap(), 16)),
        history
    );
    assert!(matches!(
        s.get(&cm("k00"), Some(14)),
        Err(StorageError::Compacted { .. })
    ));
    assert_eq!(s.create(&cm("new"), b"").unwrap().mod_revision, 31);
}

/// A deterministic mix of creates, updates and deletes over a few keys (and keys of another
/// prefix), then every revision read back, whole and in pages of every size, against a model
/// of the history: current and past reads, counts and `more` agree.
/// A list bigger than gRPC's default 4 MiB message (10,000 ConfigMaps are 4.2 MB) is read
/// whole: etcd's Go client, which kube-apiserver uses, has no receive limit to speak of.
fn ranges_larger_than_four_mib_are_read_whole<B: Backend>() {
    let backend = B::new();
    let store = backend.store();
    let value = vec![b'v'; 100 * 1024];
    for i in 0..48 {
        store.create(&cm(&format!("big-{i:02}")), &value).unwrap();
    }
    let all = store.range(&RangeRequest::prefix(cm(""))).unwrap();
    assert_eq!(all.kvs.len(), 48);
    assert!(all.kvs.iter().all(|kv| kv.value == value));
}

fn ranges_at_every_revision_match_a_model<B: Backend>() {
    use std::collections::BTreeMap;
    let b = B::new();
    let s = b.store();
    let prefix = keys::prefix("configmaps", Some("default"));
    // states[r] = the live keys under `prefix` at revision r, with their mod revisions.
    let mut states: Vec<BTreeMap<String, Revision>> = vec![BTreeMap::new()];
    let mut live: BTreeMap<String, Revision> = BTreeMap::new();
    let mut seed: u64 = 7;
    for step in 0..120 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let pick = (seed >> 33) as usize;
        let name = format!("k{}", pick % 9);
        let (key, ours) = if pick % 11 == 0 {
            (keys::namespaced("configmaps", "other", &name), false)
        } else {
            (cm(&name), true)
        };
        let current = s.get(&key, None).unwrap().0;
        let rev = match (current, pick % 3) {
            (None, _) => {
                s.create(&key, format!("v{step}").as_bytes())
                    .unwrap()
                    .mod_revision
            }
            (Some(kv), 0) => s.delete(&key, kv.mod_revision).unwrap().1,
            (Some(kv), _) => {
                s.update(&key, format!("v{step}").as_bytes(), kv.mod_revision)
                    .unwrap()
                    .mod_revision
            }
        };
        if ours {
            if s.get(&key, None).unwrap().0.is_some() {
                live.insert(key.clone(), rev);
            } else {
                live.remove(&key);
            }
        }
        assert_eq!(rev as usize, states.len());
        states.push(live.clone());
    }
    let current = s.current_revision().unwrap();
    for (rev, state) in states.iter().enumerate() {
        let rev = rev as Revision;
        let want: Vec<(String, Revision)> = state.iter().map(|(k, r)| (k.clone(), *r)).collect();
        for at in [Some(rev), (rev == current).then_some(current)]
            .into_iter()
            .flatten()
        {
            let whole = s
                .range(&RangeRequest::prefix(&prefix).at_revision(at))
                .unwrap();
            let got: Vec<(String, Revision)> = whole
                .kvs
                .iter()
                .map(|kv| (kv.key.clone(), kv.mod_revision))
                .collect();
            assert_eq!(got, want, "revision {at}");
            assert_eq!(
                (whole.count, whole.more, whole.revision),
                (want.len(), false, at)
            );
            for limit in 1..=4 {
                let mut paged = Vec::new();
                let mut from: Option<String> = None;
                loop {
                    let mut request = RangeRequest::prefix(&prefix).limit(limit).at_revision(at);
                    request.from_key = from.clone();
                    let page = s.range(&request).unwrap();
                    let remaining = want.len() - paged.len();
                    assert_eq!(page.count, remaining, "count at {at}, limit {limit}");
                    assert_eq!(page.more, remaining > limit, "more at {at}, limit {limit}");
                    paged.extend(page.kvs.iter().map(|kv| (kv.key.clone(), kv.mod_revision)));
                    if !page.more {
                        break;
                    }
                    from = Some(format!("{}\u{0}", page.kvs.last().unwrap().key));
                }
                assert_eq!(paged, want, "paged at {at}, limit {limit}");
            }
        }
        // Unpinned reads are the current state.
        if rev == current {
            let now = s.range(&RangeRequest::prefix(&prefix)).unwrap();
            assert_eq!(now.revision, current);
            assert_eq!(now.kvs.len(), want.len());
        }
    }
}

/// Instantiates every check above as a test for one backend.
macro_rules! conformance {
    ($module:ident, $backend:ty) => {
        mod $module {
            conformance!(@tests $backend;
                empty_store_is_at_revision_zero,
                create_assigns_the_next_revision,
                update_is_compare_and_swap_on_the_mod_revision,
                delete_is_compare_and_swap_and_leaves_history,
                range_reads_one_prefix_in_key_order,
                range_pages_with_limit_and_from_key_on_one_snapshot,
                reads_at_past_revisions_see_past_states,
                racing_writers_on_one_key_exactly_one_wins,
                concurrent_writers_on_distinct_keys_get_distinct_revisions,
                watch_replays_history_then_follows_in_order,
                watch_survives_dropped_watchers,
                compaction_forgets_history_below_its_revision,
                reopening_keeps_data_revisions_and_compaction,
                ranges_at_every_revision_match_a_model,
                ranges_larger_than_four_mib_are_read_whole,
            );
        }
    };
    (@tests $backend:ty; $($check:ident),* $(,)?) => {
        $(
            #[test]
            fn $check() {
                if <$backend as super::Backend>::available() {
                    super::$check::<$backend>();
                }
            }
        )*
    };
}

conformance!(memory, super::Memory);
conformance!(sqlite, super::Sqlite);
conformance!(cached_memory, super::Cached);
#[cfg(feature = "etcd")]
conformance!(etcd, super::Etcd);

/// Consistent lists through a running watch cache on the etcd at hand come from the cache,
/// and are etcd's current state. On an etcd that answers progress requests (3.4.31+ /
/// 3.5.13+, as kube-apiserver's consistent-reads-from-cache requires) the cache asks for
/// progress; on older ones, such as Debian's etcd 3.4.23, one keys-only read of the keys
/// modified since the cache's revision proves it fresh. Says which way it went.
#[cfg(feature = "etcd")]
#[test]
fn consistent_lists_on_etcd_come_from_the_cache() {
    let Some(binary) = etcd_process::binary("consistent lists on etcd") else {
        return;
    };
    consistent_lists_through_the_cache(&binary);
}

/// The same on an etcd that answers progress requests (`KCEL_ETCD_PROGRESS`, Debian 13's 3.5
/// in CI).
#[cfg(feature = "etcd")]
#[test]
fn consistent_lists_come_from_the_cache_on_an_etcd_that_answers_progress_requests() {
    let Some(binary) = etcd_process::binary_with_progress_requests(
        "consistent lists from the cache on etcd 3.4.31+/3.5.13+",
    ) else {
        return;
    };
    let version = consistent_lists_through_the_cache(&binary);
    assert!(
        kcel_apiserver::storage::etcd::answers_progress_requests(&version),
        "etcd {version} in KCEL_ETCD_PROGRESS does not answer progress requests"
    );
}

/// Six rounds of writes under the listed prefix (creates, then an update and a delete as
/// well), a write elsewhere and, at once, consistent lists through the running cache (the
/// resource, a namespace, a shard), each checked against etcd at its current revision;
/// every list must come from the cache. Returns etcd's version.
#[cfg(feature = "etcd")]
fn consistent_lists_through_the_cache(binary: &std::path::Path) -> String {
    use kcel_apiserver::storage::ShardSelector;
    use kcel_apiserver::storage::cache::WatchCache;
    use kcel_apiserver::storage::etcd::{EtcdStorage, answers_progress_requests};
    let process = etcd_process::Etcd::start(&binary.to_path_buf());
    let etcd = Arc::new(EtcdStorage::connect(std::slice::from_ref(&process.url)).unwrap());
    let version = etcd.version().to_owned();
    let cache = WatchCache::new(etcd.clone());
    let prefix = "/registry/configmaps/";
    let namespace = "/registry/configmaps/d/";
    let selector = ShardSelector::parse(
        "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
    )
    .unwrap();
    // A watch starts the resource's cache (a read does not).
    let _watch = cache
        .watch(prefix, Some(etcd.current_revision().unwrap() + 1))
        .unwrap();
    let object = |name: &str, uid: u64| {
        format!(r#"{{"metadata":{{"name":"{name}","uid":"{uid:016x}"}}}}"#).into_bytes()
    };
    let mut reads = 0;
    for round in 0..6u64 {
        let uid = round.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        cache
            .create(&format!("{namespace}cm-{round}"), &object("c", uid))
            .unwrap();
        cache
            .create(
                &format!("/registry/configmaps/e/cm-{round}"),
                &object("e", !uid),
            )
            .unwrap();
        if round >= 2 {
            // An update of the previous round's object, a delete of the one before.
            let changed = format!("{namespace}cm-{}", round - 1);
            let old = etcd.get(&changed, None).unwrap().0.unwrap();
            cache
                .update(&changed, &object("u", !uid), old.mod_revision)
                .unwrap();
            let gone = format!("{namespace}cm-{}", round - 2);
            let old = etcd.get(&gone, None).unwrap().0.unwrap();
            cache.delete(&gone, old.mod_revision).unwrap();
        }
        // A write elsewhere: the cache's watch does not hear of it.
        cache
            .create(&format!("/registry/secrets/d/s-{round}"), b"{}")
            .unwrap();
        let now = etcd.current_revision().unwrap();
        for listed_prefix in [prefix, namespace] {
            let listed = cache.range(&RangeRequest::prefix(listed_prefix)).unwrap();
            let stored = etcd.range(&RangeRequest::prefix(listed_prefix)).unwrap();
            assert_eq!(listed.kvs, stored.kvs, "round {round}, {listed_prefix}");
            assert_eq!(listed.revision, now, "round {round}");
            reads += 1;
        }
        let sharded = cache
            .range_in_shard(&RangeRequest::prefix(prefix), &selector)
            .unwrap();
        let stored = etcd
            .range_in_shard(&RangeRequest::prefix(prefix), &selector)
            .unwrap();
        assert_eq!(sharded.kvs, stored.kvs, "round {round}, shard");
        assert_eq!(sharded.revision, now);
        reads += 1;
    }
    let how = if answers_progress_requests(&version) {
        "asking etcd's watch for progress"
    } else {
        "proving the cache fresh with one keys-only read"
    };
    eprintln!("etcd {version}: consistent lists were served from the watch cache, {how}");
    assert_eq!(cache.consistent_reads(), (reads, 0), "etcd {version}");
    version
}

/// etcd counts a range before it drops the keys below `min_mod_revision`
/// (`Storage::keys_modified_after`, the watch cache's proof of freshness): the count is
/// every live key under the prefix, the keys only those modified since.
#[cfg(feature = "etcd")]
#[test]
fn etcd_counts_a_range_before_its_min_mod_revision_filter() {
    use kcel_apiserver::storage::etcd::EtcdStorage;
    let Some(binary) = etcd_process::binary("etcd's count under min_mod_revision") else {
        return;
    };
    let process = etcd_process::Etcd::start(&binary);
    let etcd = EtcdStorage::connect(std::slice::from_ref(&process.url)).unwrap();
    let key = |name: &str| keys::namespaced("configmaps", "d", name);
    for name in ["a", "b", "c"] {
        etcd.create(&key(name), b"{}").unwrap();
    }
    let since = etcd.current_revision().unwrap();
    let b = etcd.get(&key("b"), None).unwrap().0.unwrap();
    let b = etcd
        .update(&key("b"), b"{\"v\":1}", b.mod_revision)
        .unwrap();
    let d = etcd.create(&key("d"), b"{}").unwrap();
    let a = etcd.get(&key("a"), None).unwrap().0.unwrap();
    etcd.delete(&key("a"), a.mod_revision).unwrap();
    etcd.create(&keys::namespaced("secrets", "d", "s"), b"{}")
        .unwrap();
    let prefix = keys::prefix("configmaps", None);
    let found = etcd.keys_modified_after(&prefix, since).unwrap();
    assert_eq!(found.revision, etcd.current_revision().unwrap());
    assert_eq!(found.count, 3, "b, c and d live; etcd {}", etcd.version());
    let modified: Vec<(&str, Revision, Revision, usize)> = found
        .kvs
        .iter()
        .map(|kv| {
            (
                kv.key.as_str(),
                kv.create_revision,
                kv.mod_revision,
                kv.value.len(),
            )
        })
        .collect();
    assert_eq!(
        modified,
        [
            (key("b").as_str(), b.create_revision, b.mod_revision, 0),
            (key("d").as_str(), d.create_revision, d.mod_revision, 0),
        ]
    );
    // Nothing modified since the current revision: no keys, the same count.
    let none = etcd.keys_modified_after(&prefix, found.revision).unwrap();
    assert_eq!((none.count, none.kvs.len()), (3, 0));
    // An empty prefix counts nothing.
    let empty = etcd
        .keys_modified_after(&keys::prefix("pods", None), 0)
        .unwrap();
    assert_eq!((empty.count, empty.kvs.len()), (0, 0));
}
