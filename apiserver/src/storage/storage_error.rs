//! The one error type of the storage layer.

use super::Revision;

/// Why a storage operation failed.
///
/// The precondition failures ([`AlreadyExists`](StorageError::AlreadyExists),
/// [`NotFound`](StorageError::NotFound), [`Conflict`](StorageError::Conflict)) and the
/// revision failures ([`Compacted`](StorageError::Compacted),
/// [`FutureRevision`](StorageError::FutureRevision)) are expected outcomes that the API layer
/// turns into `Status` objects (409, 404, 410, ...); the others are faults of the backend.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// A create found the key already present.
    #[error("key {key:?} already exists")]
    AlreadyExists {
        /// The key that was to be created.
        key: String,
    },
    /// An update or delete found no live value under the key.
    #[error("key {key:?} not found")]
    NotFound {
        /// The key that was to be written.
        key: String,
    },
    /// An update or delete expected the key at one revision and found it at another.
    #[error(
        "key {key:?} was modified at revision {actual}, not at the expected revision {expected}"
    )]
    Conflict {
        /// The key that was to be written.
        key: String,
        /// The modification revision the caller expected.
        expected: Revision,
        /// The key's modification revision in the store.
        actual: Revision,
        /// The key's live value, when the backend read it with the failed compare (etcd's
        /// transaction does, as kube-apiserver's `OptimisticPut` with `GetOnFailure`), so that
        /// a writer can retry from it without another read; `None` otherwise.
        current: Option<Box<super::KeyValue>>,
    },
    /// A read or watch asked for a revision older than the compaction point.
    #[error("required revision {requested} has been compacted (compacted up to {compacted})")]
    Compacted {
        /// The revision the caller asked for.
        requested: Revision,
        /// The store's compaction revision: the oldest revision still readable.
        compacted: Revision,
    },
    /// A read or compaction asked for a revision the store has not reached yet.
    #[error("required revision {requested} is a future revision (current revision {current})")]
    FutureRevision {
        /// The revision the caller asked for.
        requested: Revision,
        /// The store's current revision.
        current: Revision,
    },
    /// The storage file is open elsewhere (another server on the same data directory).
    #[error("storage file {0} is in use by another process")]
    InUse(String),
    /// The SQLite backend failed.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The etcd backend failed (unreachable, timed out, or refused the request).
    #[error("etcd: {0}")]
    Etcd(String),
    /// A file operation of a backend failed.
    #[error("storage i/o: {0}")]
    Io(#[from] std::io::Error),
    /// The stored data breaks an invariant of the schema (a bug or a damaged file).
    #[error("storage is corrupt: {0}")]
    Corrupt(String),
}
