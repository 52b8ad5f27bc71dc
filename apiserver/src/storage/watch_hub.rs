//! Watch streams: the handle a watcher reads and the registry a backend notifies.
//!
//! # Why an unbounded tokio channel
//!
//! A backend sends every event while it still holds its write lock, so that the events of one
//! watch come in revision order and none is missed between the replay of history and the
//! registration of the watcher. Sending must therefore never block or fail on a slow reader,
//! which an unbounded channel guarantees. The tokio channel serves both kinds of reader: the
//! HTTP layer awaits [`Watch::recv`] inside the runtime, while tests and other synchronous code
//! use [`Watch::try_recv`] or [`Watch::blocking_recv`] outside it. Memory is bounded by the
//! reader draining promptly: the intended reader is one watch cache per resource, which fans the
//! events out to clients and drops the slow ones, as kube-apiserver's cacher does.

use tokio::sync::mpsc;

use super::{KeyValue, Revision};

/// What happened to a key at one revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// The key was created or updated; [`WatchEvent::kv`] holds the new value.
    Put,
    /// The key was deleted; [`WatchEvent::kv`] holds the key, the deletion revision as its
    /// `mod_revision` and an empty value.
    Delete,
    /// No key changed: the store has reached the revision in [`WatchEvent::kv`]'s
    /// `mod_revision` (its key and value are empty), and every change under the watched
    /// prefix up to it has been delivered. Only from [`super::Storage::watch_with_progress`].
    Progress,
}

/// One change to one key, as delivered by a watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchEvent {
    /// Put or delete.
    pub kind: EventKind,
    /// The key after the change (see [`EventKind`] for deletes).
    pub kv: KeyValue,
    /// The key's value just before the change, if it existed (and was not compacted away).
    pub prev: Option<KeyValue>,
}

impl WatchEvent {
    /// The revision at which the change happened (for a progress event, the one reached).
    pub fn revision(&self) -> Revision {
        self.kv.mod_revision
    }

    /// A progress event: the store has reached `revision`.
    pub fn progress(revision: Revision) -> WatchEvent {
        WatchEvent {
            kind: EventKind::Progress,
            kv: KeyValue {
                key: String::new(),
                value: Vec::new(),
                create_revision: 0,
                mod_revision: revision,
            },
            prev: None,
        }
    }
}

/// Asks the backend of a watch for a progress event ([`EventKind::Progress`]) at the store's
/// current revision, sent once every change before it has been delivered (etcd's
/// `RequestProgress` on the watch stream). Returns false once the watch is over.
pub type ProgressRequester = std::sync::Arc<dyn Fn() -> bool + Send + Sync>;

/// A stream of [`WatchEvent`]s for the keys under one prefix, in revision order.
///
/// Dropping the handle ends the watch; the backend forgets it at its next write.
pub struct Watch {
    rx: Receiver,
    progress: Option<ProgressRequester>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("rx", &self.rx)
            .field("progress_requests", &self.progress.is_some())
            .finish()
    }
}

/// The channel a watch reads: unbounded from a backend (which must never block), bounded
/// from the watch cache (which closes a watcher whose queue is full).
#[derive(Debug)]
enum Receiver {
    Unbounded(mpsc::UnboundedReceiver<WatchEvent>),
    Bounded(mpsc::Receiver<WatchEvent>),
}

impl Watch {
    /// A watch fed by `rx` (for backends and adapters that forward another stream; events
    /// must come in revision order).
    pub fn from_receiver(rx: mpsc::UnboundedReceiver<WatchEvent>) -> Watch {
        Watch {
            rx: Receiver::Unbounded(rx),
            progress: None,
        }
    }

    /// A watch fed by a bounded channel (the watch cache's fan-out).
    pub fn from_bounded(rx: mpsc::Receiver<WatchEvent>) -> Watch {
        Watch {
            rx: Receiver::Bounded(rx),
            progress: None,
        }
    }

    /// The same watch, whose backend answers progress requests through `requester` (see
    /// [`super::Storage::progress_requests`]).
    pub fn with_progress_requests(mut self, requester: ProgressRequester) -> Watch {
        self.progress = Some(requester);
        self
    }

    /// How to ask this watch's backend for progress, if it can be asked.
    pub fn progress_requester(&self) -> Option<ProgressRequester> {
        self.progress.clone()
    }

    /// The next event, waiting for it; `None` once the backend is gone.
    pub async fn recv(&mut self) -> Option<WatchEvent> {
        match &mut self.rx {
            Receiver::Unbounded(rx) => rx.recv().await,
            Receiver::Bounded(rx) => rx.recv().await,
        }
    }

    /// The next event, blocking the thread; `None` once the backend is gone.
    ///
    /// Panics if called from inside an asynchronous runtime (use [`Watch::recv`] there).
    pub fn blocking_recv(&mut self) -> Option<WatchEvent> {
        match &mut self.rx {
            Receiver::Unbounded(rx) => rx.blocking_recv(),
            Receiver::Bounded(rx) => rx.blocking_recv(),
        }
    }

    /// The next event if one is already queued.
    pub fn try_recv(&mut self) -> Option<WatchEvent> {
        match &mut self.rx {
            Receiver::Unbounded(rx) => rx.try_recv().ok(),
            Receiver::Bounded(rx) => rx.try_recv().ok(),
        }
    }

    /// Every event queued now, in order.
    pub fn drain(&mut self) -> Vec<WatchEvent> {
        std::iter::from_fn(|| self.try_recv()).collect()
    }
}

/// The watchers of one backend: a prefix and a sender each.
///
/// Backends keep it under the same lock as their data and call [`WatchHub::notify`] for every
/// committed change, in revision order.
#[derive(Debug, Default)]
pub(crate) struct WatchHub {
    watchers: Vec<HubWatcher>,
}

#[derive(Debug)]
struct HubWatcher {
    prefix: String,
    tx: mpsc::UnboundedSender<WatchEvent>,
    /// Whether a write outside the prefix is reported as [`EventKind::Progress`].
    progress: bool,
}

impl WatchHub {
    /// A new watcher on `prefix`: its sender (for replaying history first) and its handle.
    /// With `progress`, every write outside the prefix reaches it as a progress event.
    pub(crate) fn register(
        &mut self,
        prefix: &str,
        progress: bool,
    ) -> (mpsc::UnboundedSender<WatchEvent>, Watch) {
        let (tx, rx) = mpsc::unbounded_channel();
        self.watchers.push(HubWatcher {
            prefix: prefix.to_owned(),
            tx: tx.clone(),
            progress,
        });
        (tx, Watch::from_receiver(rx))
    }

    /// Delivers `event` to every watcher whose prefix covers its key (and its revision as
    /// progress to the others that asked), forgetting closed ones.
    pub(crate) fn notify(&mut self, event: &WatchEvent) {
        self.watchers.retain(|w| {
            if event.kv.key.starts_with(w.prefix.as_str()) {
                w.tx.send(event.clone()).is_ok()
            } else if w.progress {
                w.tx.send(WatchEvent::progress(event.revision())).is_ok()
            } else {
                !w.tx.is_closed()
            }
        });
    }

    /// How many watchers are registered (closed ones may linger until the next write).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.watchers.len()
    }
}
