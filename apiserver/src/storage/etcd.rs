//! The etcd v3 backend (`--storage etcd --etcd-servers URL[,URL]`, cargo feature `etcd`):
//! the [`Storage`] trait over a real etcd, as kube-apiserver uses it (k8s.io/apiserver
//! `pkg/storage/etcd3/store.go`), through the `etcd-client` crate.
//!
//! - Keys are kube-apiserver's (`/registry/<resource>/...`); a key's `mod_revision` is the
//!   resourceVersion, the store revision is etcd's header revision. (An empty etcd is at
//!   revision 1, not 0.)
//! - create is `Txn(If mod_revision(key) == 0, Put)` (upstream's `OptimisticPut`); update and
//!   delete are `Txn(If mod_revision(key) == N, Put|Delete(prev_kv), else Get)`, so optimistic
//!   concurrency holds across several API servers on one etcd.
//! - range is etcd's range; `range_keys` the same with `keys_only` (the watch cache takes the
//!   values it holds at those revisions from memory); `keys_modified_after` the same with
//!   `min_mod_revision` (the watch cache's proof that it is fresh, on an etcd that answers no
//!   progress requests); and `get_all_at` a read-only
//!   transaction of gets at one revision, [`MAX_TXN_OPS`] keys at a time.
//! - watch is etcd's watch with `prev_kv` and progress notifications, from a revision; a
//!   start below the compaction revision is refused by etcd (`compact_revision` in its
//!   response) and reported as [`StorageError::Compacted`].
//! - compaction is etcd's `Compact` (physical); the compaction revision is read back from etcd
//!   (the oldest revision it still serves), so it is right whichever server compacted.
//!
//! The trait is synchronous; the client is asynchronous. The client's connection tasks run on
//! this backend's own one-thread runtime; each call's future is polled on the calling thread
//! (a blocking-pool thread of the server), which parks between polls (`block_on`): one
//! thread hand-off less per call than spawning the future there and waiting on a channel, and
//! it works from blocking threads and from inside another runtime alike.

use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use etcd_client::{
    Client, CompactionOptions, Compare, CompareOp, ConnectOptions, DeleteOptions, EventType,
    GetOptions, PutOptions, Txn, TxnOp, TxnOpResponse, TxnResponse, WatchOptions,
};
use tokio::sync::mpsc;

use super::keys::prefix_end;
use super::{
    EventKind, KeyValue, MAX_TXN_OPS, ModifiedKeys, RangeRequest, RangeResponse, Revision, Storage,
    StorageError, Watch, WatchEvent,
};

/// How long one etcd request may take before it fails (the API server then answers 500).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest etcd response read: no limit to speak of, as etcd's Go client
/// (`defaultMaxCallRecvMsgSize`, `math.MaxInt32`), where the gRPC default of 4 MiB would
/// fail a list of 10,000 ConfigMaps.
const MAX_RESPONSE_BYTES: usize = i32::MAX as usize;

/// A [`Storage`] on an etcd cluster.
pub struct EtcdStorage {
    runtime: tokio::runtime::Runtime,
    client: Client,
    /// etcd's version as its status reports it (of the first endpoint that answers).
    version: String,
}

/// Whether an etcd of this version answers progress requests reliably: 3.4.31 and later
/// 3.4s, 3.5.13 and later 3.5s, and every later minor (k8s.io/apiserver
/// `pkg/storage/feature/feature_support_checker.go`: earlier ones could report a revision
/// before delivering the events up to it, etcd issue 15220).
pub fn answers_progress_requests(version: &str) -> bool {
    let mut parts = version
        .trim_start_matches('v')
        .split(['.', '-', '+'])
        .map(|p| p.parse::<u64>().unwrap_or(0));
    let (major, minor, patch) = (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    );
    match (major, minor) {
        (3, 4) => patch >= 31,
        (3, 5) => patch >= 13,
        (3, m) => m > 5,
        (m, _) => m > 3,
    }
}

impl std::fmt::Debug for EtcdStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdStorage").finish_non_exhaustive()
    }
}

fn etcd_error(e: etcd_client::Error) -> StorageError {
    StorageError::Etcd(e.to_string())
}

fn is_compacted(e: &etcd_client::Error) -> bool {
    matches!(e, etcd_client::Error::GRpcStatus(s) if s.message().contains("required revision has been compacted"))
}

fn is_future(e: &etcd_client::Error) -> bool {
    matches!(e, etcd_client::Error::GRpcStatus(s) if s.message().contains("required revision is a future revision"))
}

fn key_value(kv: &etcd_client::KeyValue) -> Result<KeyValue, StorageError> {
    Ok(KeyValue {
        key: String::from_utf8(kv.key().to_vec())
            .map_err(|_| StorageError::Corrupt("a key is not UTF-8".to_owned()))?,
        value: kv.value().to_vec(),
        create_revision: kv.create_revision(),
        mod_revision: kv.mod_revision(),
    })
}

fn header_revision(header: Option<&etcd_client::ResponseHeader>) -> Result<Revision, StorageError> {
    header
        .map(|h| h.revision())
        .ok_or_else(|| StorageError::Etcd("etcd answered without a header".to_owned()))
}

impl EtcdStorage {
    /// A KV client that reads responses of any size.
    fn kv(&self) -> etcd_client::KvClient {
        self.client
            .kv_client()
            .max_decoding_message_size(MAX_RESPONSE_BYTES)
    }

    /// Connects to the etcd servers (`http://127.0.0.1:2379` and the like).
    pub fn connect(endpoints: &[String]) -> Result<EtcdStorage, StorageError> {
        // One worker: it drives the HTTP/2 connection and the watch streams; the calls
        // themselves are polled on the callers' threads.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("etcd-client")
            .enable_all()
            .build()?;
        let endpoints = endpoints.to_vec();
        let options = ConnectOptions::new()
            .with_connect_timeout(Duration::from_secs(5))
            .with_timeout(REQUEST_TIMEOUT);
        // Fail at start, not at the first request, when etcd is not there.
        let (client, version) = run_on(&runtime, async move {
            let mut client = Client::connect(endpoints, Some(options)).await?;
            let status = client.status().await?;
            Ok::<_, etcd_client::Error>((client, status.version().to_owned()))
        })
        .map_err(etcd_error)?;
        Ok(EtcdStorage {
            runtime,
            client,
            version,
        })
    }

    /// etcd's version, as its status reports it (e.g. `3.4.23`).
    pub fn version(&self) -> &str {
        &self.version
    }

    fn run<T>(&self, future: impl Future<Output = T>) -> T {
        run_on(&self.runtime, future)
    }

    /// The oldest revision etcd still serves: found by bisection over reads at a revision
    /// (etcd does not report its compaction revision otherwise).
    fn oldest_readable(&self, current: Revision) -> Result<Revision, StorageError> {
        let readable = |rev: Revision| -> Result<bool, StorageError> {
            let mut kv = self.kv();
            match self.run(async move {
                kv.get(
                    "\0",
                    Some(GetOptions::new().with_revision(rev).with_count_only()),
                )
                .await
            }) {
                Ok(_) => Ok(true),
                Err(e) if is_compacted(&e) => Ok(false),
                Err(e) => Err(etcd_error(e)),
            }
        };
        if readable(1)? {
            return Ok(0);
        }
        let (mut lo, mut hi) = (1, current.max(1));
        // Invariant: lo is not readable, hi is.
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if readable(mid)? {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Ok(hi)
    }

    fn compacted_error(&self, requested: Revision) -> StorageError {
        let compacted = self
            .current_revision()
            .and_then(|current| self.oldest_readable(current))
            .unwrap_or(requested + 1);
        StorageError::Compacted {
            requested,
            compacted,
        }
    }

    fn read_error(&self, e: etcd_client::Error, requested: Revision) -> StorageError {
        if is_compacted(&e) {
            self.compacted_error(requested)
        } else if is_future(&e) {
            StorageError::FutureRevision {
                requested,
                current: self.current_revision().unwrap_or(0),
            }
        } else {
            etcd_error(e)
        }
    }

    /// Runs `op` on `key` in one transaction if the key's mod revision is still `expected`;
    /// otherwise the failed precondition (with what the key holds now). The response and
    /// the revision it was written at.
    fn guarded(
        &self,
        key: &str,
        expected: Revision,
        op: TxnOp,
    ) -> Result<(TxnResponse, Revision), StorageError> {
        let txn = Txn::new()
            .when([Compare::mod_revision(key, CompareOp::Equal, expected)])
            .and_then([op])
            .or_else([TxnOp::get(key, None)]);
        let mut kv = self.kv();
        let response = self
            .run(async move { kv.txn(txn).await })
            .map_err(etcd_error)?;
        if !response.succeeded() {
            return Err(Self::failed_precondition(
                key,
                expected,
                response.op_responses(),
            ));
        }
        let rev = header_revision(response.header())?;
        Ok((response, rev))
    }

    /// A range (see [`Storage::range`]) with `options` (values or keys only) added.
    fn read_range(
        &self,
        request: &RangeRequest,
        mut options: GetOptions,
    ) -> Result<RangeResponse, StorageError> {
        // The empty prefix reads every key: etcd's "\0" range end means "to the end".
        let end = prefix_end(request.prefix.as_bytes()).unwrap_or_else(|| vec![0]);
        options = options.with_range(end);
        if let Some(limit) = request.limit.filter(|l| *l > 0) {
            options = options.with_limit(i64::try_from(limit).unwrap_or(i64::MAX));
        }
        if let Some(rev) = request.revision {
            options = options.with_revision(rev);
        }
        // etcd has no empty key: the smallest one is "\0".
        let start = match request.start_key() {
            "" => vec![0],
            key => key.as_bytes().to_vec(),
        };
        let mut kv = self.kv();
        let response = self
            .run(async move { kv.get(start, Some(options)).await })
            .map_err(|e| self.read_error(e, request.revision.unwrap_or(0)))?;
        let revision = request
            .revision
            .map_or_else(|| header_revision(response.header()), Ok)?;
        let kvs = response
            .kvs()
            .iter()
            .map(key_value)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RangeResponse {
            more: response.more(),
            count: usize::try_from(response.count()).unwrap_or(0),
            kvs,
            revision,
        })
    }

    /// What a failed compare found: the key's live value now.
    fn failed_precondition(
        key: &str,
        expected: Revision,
        responses: Vec<TxnOpResponse>,
    ) -> StorageError {
        let found = responses.into_iter().find_map(|r| match r {
            TxnOpResponse::Get(g) => g.kvs().first().map(|kv| (kv.mod_revision(), key_value(kv))),
            _ => None,
        });
        match found {
            None => StorageError::NotFound {
                key: key.to_owned(),
            },
            Some((actual, current)) => StorageError::Conflict {
                key: key.to_owned(),
                expected,
                actual,
                current: current.ok().map(Box::new),
            },
        }
    }
}

/// Forwards one watch response's events; false when the watch is over (canceled, compacted,
/// undecodable, or no reader left). With `progress`, a response without events (etcd's
/// progress notification, which etcd sends only to a watcher that has caught up:
/// `mvcc/watchable_store.go`) becomes an [`EventKind::Progress`] at its header revision, and
/// the events of a response are followed by one at their last revision: etcd sends every
/// event of a revision in one response (its batches end at a revision's end,
/// `mvcc/watcher_group.go`), so the watcher knows that revision complete.
fn forward(
    response: &etcd_client::WatchResponse,
    tx: &mpsc::UnboundedSender<WatchEvent>,
    progress: bool,
) -> bool {
    if response.canceled() || response.compact_revision() > 0 {
        return false;
    }
    if progress
        && response.events().is_empty()
        && !response.created()
        && let Some(header) = response.header()
    {
        return tx.send(WatchEvent::progress(header.revision())).is_ok();
    }
    let mut last = None;
    for event in response.events() {
        let Some(kv) = event.kv() else { continue };
        let Ok(mut kv) = key_value(kv) else {
            return false;
        };
        let prev = event.prev_kv().and_then(|p| key_value(p).ok());
        let kind = match event.event_type() {
            EventType::Put => EventKind::Put,
            EventType::Delete => {
                if let Some(p) = &prev {
                    kv.create_revision = p.create_revision;
                }
                EventKind::Delete
            }
        };
        last = Some(kv.mod_revision);
        if tx.send(WatchEvent { kind, kv, prev }).is_err() {
            return false;
        }
    }
    match last {
        Some(revision) if progress => tx.send(WatchEvent::progress(revision)).is_ok(),
        _ => true,
    }
}

/// Runs `future` to completion on the calling thread, inside `runtime`'s context (its timers
/// and the tasks it spawns belong to that runtime, whose worker drives the connection).
///
/// The future runs outside tokio's cooperative budget: called from a task of the server's
/// runtime (at start, the system namespaces are made from one) whose budget is spent, a tokio
/// channel would answer "pending" and leave its wake-up to that task's scheduler, which never
/// gets control back while this thread parks, so the call would wait forever.
fn run_on<T>(runtime: &tokio::runtime::Runtime, future: impl Future<Output = T>) -> T {
    let _context = runtime.enter();
    block_on(tokio::task::unconstrained(future))
}

/// Wakes a parked thread.
struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Polls `future` on this thread until it is ready, parking the thread while it is pending
/// (a spurious unpark only costs one more poll).
fn block_on<T>(future: impl Future<Output = T>) -> T {
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut context) {
            return value;
        }
        std::thread::park();
    }
}

impl EtcdStorage {
    /// [`Storage::watch`], with progress notifications passed on when `progress` is set.
    fn watch_prefix(
        &self,
        prefix: &str,
        from: Option<Revision>,
        progress: bool,
    ) -> Result<Watch, StorageError> {
        let mut options = WatchOptions::new()
            .with_prev_key()
            .with_progress_notify()
            .with_range(prefix_end(prefix.as_bytes()).unwrap_or_else(|| vec![0]));
        if let Some(from) = from {
            options = options.with_start_revision(from.max(1));
        }
        // etcd refuses a compacted start only after creating the watch, asynchronously; ask
        // first, so that the caller gets the error (a compaction racing this check ends the
        // stream instead, which the watcher sees as its end).
        if let Some(from) = from {
            let current = self.current_revision()?;
            if from <= current {
                let compacted = self.oldest_readable(current)?;
                if from < compacted {
                    return Err(StorageError::Compacted {
                        requested: from,
                        compacted,
                    });
                }
            }
        }
        let mut client = self
            .client
            .watch_client()
            .max_decoding_message_size(MAX_RESPONSE_BYTES);
        let key = match prefix {
            "" => vec![0],
            p => p.as_bytes().to_vec(),
        };
        let (first, stream) = self
            .run(async move {
                let mut stream = client.watch(key, Some(options)).await?;
                let first = stream.message().await?;
                Ok::<_, etcd_client::Error>((first, stream))
            })
            .map_err(etcd_error)?;
        let mut pending = Vec::new();
        match first {
            Some(response) if response.compact_revision() > 0 => {
                return Err(StorageError::Compacted {
                    requested: from.unwrap_or(0),
                    compacted: response.compact_revision(),
                });
            }
            Some(response) if response.canceled() => {
                return Err(StorageError::Etcd(format!(
                    "etcd canceled the watch: {}",
                    response.cancel_reason()
                )));
            }
            Some(response) => pending.push(response),
            None => return Err(StorageError::Etcd("etcd closed the watch".to_owned())),
        }
        let (tx, rx) = mpsc::unbounded_channel();
        // The history from `from` on and every later change follow from a task, in order
        // (etcd replays history asynchronously, unlike the embedded backends).
        for response in &pending {
            if !forward(response, &tx, progress) {
                return Ok(Watch::from_receiver(rx));
            }
        }
        // Progress requests (etcd's RequestProgress) go on the same watch stream, from the
        // same task.
        let (ask, mut asked) = mpsc::unbounded_channel::<()>();
        self.runtime.spawn(async move {
            let (mut requests, mut responses) = stream.split();
            loop {
                let response = tokio::select! {
                    response = responses.message() => response,
                    Some(()) = asked.recv() => {
                        if requests.request_progress().await.is_err() {
                            return;
                        }
                        continue;
                    }
                };
                let response = match response {
                    Ok(Some(r)) => r,
                    // The stream ended or failed: the watcher sees its end, never a gap.
                    _ => return,
                };
                if !forward(&response, &tx, progress) || tx.is_closed() {
                    return;
                }
            }
        });
        let watch = Watch::from_receiver(rx);
        Ok(if progress && self.progress_requests() {
            watch.with_progress_requests(std::sync::Arc::new(move || ask.send(()).is_ok()))
        } else {
            watch
        })
    }
}

impl Storage for EtcdStorage {
    fn current_revision(&self) -> Result<Revision, StorageError> {
        let mut kv = self.kv();
        let response = self
            .run(async move {
                kv.get("\0", Some(GetOptions::new().with_count_only()))
                    .await
            })
            .map_err(etcd_error)?;
        header_revision(response.header())
    }

    fn compacted_revision(&self) -> Result<Revision, StorageError> {
        let current = self.current_revision()?;
        self.oldest_readable(current)
    }

    fn get(
        &self,
        key: &str,
        revision: Option<Revision>,
    ) -> Result<(Option<KeyValue>, Revision), StorageError> {
        let mut kv = self.kv();
        let owned = key.to_owned();
        let options = revision.map(|r| GetOptions::new().with_revision(r));
        let response = self
            .run(async move { kv.get(owned, options).await })
            .map_err(|e| self.read_error(e, revision.unwrap_or(0)))?;
        let at = revision.map_or_else(|| header_revision(response.header()), Ok)?;
        let value = response.kvs().first().map(key_value).transpose()?;
        Ok((value, at))
    }

    fn range(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
        self.read_range(request, GetOptions::new())
    }

    fn range_keys(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
        self.read_range(request, GetOptions::new().with_keys_only())
    }

    fn keys_modified_after(
        &self,
        prefix: &str,
        after: Revision,
    ) -> Result<ModifiedKeys, StorageError> {
        // etcd counts the range before it drops the keys below `min_mod_revision`; it reads
        // every key's entry to filter them, but sends only the few that pass.
        let response = self.read_range(
            &RangeRequest::prefix(prefix),
            GetOptions::new()
                .with_keys_only()
                .with_min_mod_revision(after + 1),
        )?;
        Ok(ModifiedKeys {
            revision: response.revision,
            count: response.count,
            kvs: response.kvs,
        })
    }

    fn get_all_at(
        &self,
        keys: &[String],
        revision: Revision,
    ) -> Result<Vec<KeyValue>, StorageError> {
        let mut found = Vec::with_capacity(keys.len());
        for batch in keys.chunks(MAX_TXN_OPS) {
            let gets = batch.iter().map(|key| {
                TxnOp::get(
                    key.as_str(),
                    Some(GetOptions::new().with_revision(revision)),
                )
            });
            let txn = Txn::new().and_then(gets.collect::<Vec<_>>());
            let mut kv = self.kv();
            let response = self
                .run(async move { kv.txn(txn).await })
                .map_err(|e| self.read_error(e, revision))?;
            for op in response.op_responses() {
                if let TxnOpResponse::Get(get) = op {
                    for kv in get.kvs() {
                        found.push(key_value(kv)?);
                    }
                }
            }
        }
        Ok(found)
    }

    fn create(&self, key: &str, value: &[u8]) -> Result<KeyValue, StorageError> {
        // kube-apiserver's shape (k8s.io/apiserver `pkg/storage/etcd3/store.go`, `Create`:
        // `OptimisticPut(key, data, 0)`, a `ModRevision(key) == 0` compare).
        let txn = Txn::new()
            .when([Compare::mod_revision(key, CompareOp::Equal, 0)])
            .and_then([TxnOp::put(key, value, None)]);
        let mut kv = self.kv();
        let response = self
            .run(async move { kv.txn(txn).await })
            .map_err(etcd_error)?;
        if !response.succeeded() {
            return Err(StorageError::AlreadyExists {
                key: key.to_owned(),
            });
        }
        let rev = header_revision(response.header())?;
        Ok(KeyValue {
            key: key.to_owned(),
            value: value.to_vec(),
            create_revision: rev,
            mod_revision: rev,
        })
    }

    fn update(
        &self,
        key: &str,
        value: &[u8],
        expected: Revision,
    ) -> Result<KeyValue, StorageError> {
        let put = TxnOp::put(key, value, Some(PutOptions::new().with_prev_key()));
        let (response, rev) = self.guarded(key, expected, put)?;
        let create_revision = response
            .op_responses()
            .into_iter()
            .find_map(|r| match r {
                TxnOpResponse::Put(p) => p.prev_key().map(|kv| kv.create_revision()),
                _ => None,
            })
            .unwrap_or(rev);
        Ok(KeyValue {
            key: key.to_owned(),
            value: value.to_vec(),
            create_revision,
            mod_revision: rev,
        })
    }

    fn delete(&self, key: &str, expected: Revision) -> Result<(KeyValue, Revision), StorageError> {
        let delete = TxnOp::delete(key, Some(DeleteOptions::new().with_prev_key()));
        let (response, rev) = self.guarded(key, expected, delete)?;
        let prev = response
            .op_responses()
            .into_iter()
            .find_map(|r| match r {
                TxnOpResponse::Delete(d) => d.prev_kvs().first().map(key_value),
                _ => None,
            })
            .transpose()?
            .ok_or_else(|| StorageError::NotFound {
                key: key.to_owned(),
            })?;
        Ok((prev, rev))
    }

    fn watch(&self, prefix: &str, from: Option<Revision>) -> Result<Watch, StorageError> {
        self.watch_prefix(prefix, from, false)
    }

    fn watch_with_progress(
        &self,
        prefix: &str,
        from: Option<Revision>,
    ) -> Result<Watch, StorageError> {
        self.watch_prefix(prefix, from, true)
    }

    fn progress_requests(&self) -> bool {
        answers_progress_requests(&self.version)
    }

    fn compact(&self, revision: Revision) -> Result<(), StorageError> {
        let current = self.current_revision()?;
        let compacted = self.oldest_readable(current)?;
        super::check_compact_revision(revision, compacted, current)?;
        let mut kv = self.kv();
        self.run(async move {
            kv.compact(revision, Some(CompactionOptions::new().with_physical()))
                .await
        })
        .map_err(|e| {
            if is_compacted(&e) {
                StorageError::Compacted {
                    requested: revision,
                    compacted: revision,
                }
            } else {
                etcd_error(e)
            }
        })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{answers_progress_requests, run_on};

    /// A call from a task whose cooperative budget is spent still completes (it used to park
    /// forever: the channel deferred its wake-up to the task's scheduler).
    #[test]
    fn a_call_from_a_task_with_its_budget_spent_completes() {
        let client = Arc::new(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap(),
        );
        let server = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let caller_client = Arc::clone(&client);
        server.spawn(async move {
            // Spend the budget as a busy task does (each ready tokio resource costs one unit).
            while tokio::task::coop::has_budget_remaining() {
                tokio::task::consume_budget().await;
            }
            // The answer comes from the other runtime's worker, later.
            let (answer_tx, answer_rx) = tokio::sync::oneshot::channel();
            caller_client.spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                answer_tx.send(7).unwrap();
            });
            let answer = run_on(&caller_client, answer_rx);
            done_tx.send(answer.unwrap()).unwrap();
        });
        let answer = done_rx.recv_timeout(std::time::Duration::from_secs(20));
        // Without waiting for a worker that may be parked for good.
        server.shutdown_background();
        assert_eq!(answer, Ok(7));
    }

    #[test]
    fn versions_that_answer_progress_requests() {
        for (version, yes) in [
            ("3.4.23", false),
            ("3.4.30", false),
            ("3.4.31", true),
            ("3.5.12", false),
            ("3.5.13", true),
            ("3.5.21", true),
            ("3.6.0", true),
            ("3.6.0-rc.1", true),
            ("3.3.27", false),
            ("4.0.0", true),
            ("", false),
        ] {
            assert_eq!(answers_progress_requests(version), yes, "{version}");
        }
    }
}
