//! The SQLite backend: the embedded default, in the k3s/kine design.
//!
//! One append-only table holds one row per revision, and the row id *is* the revision:
//!
//! | column | meaning |
//! | --- | --- |
//! | `id` | the revision of the write (`INTEGER PRIMARY KEY AUTOINCREMENT`, never reused) |
//! | `name` | the key, as a blob so that ranges compare bytes |
//! | `deleted` | 1 for a deletion (a tombstone row), else 0 |
//! | `create_revision` | the revision at which the key was created |
//! | `prev_revision` | the id of the key's previous row, 0 for none |
//! | `value` | the stored bytes (empty for a tombstone) |
//!
//! The latest row of a key at or before a revision is its state there. A second table, `live`,
//! holds each live key's current row id (written in the same transaction as the row), so
//! that reads at the current revision, the common case, page and count through one small
//! index instead of walking history; reads at past revisions (continue tokens after writes,
//! `resourceVersionMatch=Exact`) take the latest row per key from `kv`. Compaction deletes the
//! rows a later row supersedes below the compaction revision (and tombstones below it), and
//! records the revision in the `meta` table so that reads below it fail after a restart too.
//!
//! The file is in WAL mode with `synchronous=FULL`: a write returns only after its transaction
//! is committed and the WAL synced, so an acknowledged write survives a SIGKILL or power loss.
//! The connection holds an exclusive lock on the file for its lifetime (one server per data
//! directory), and serves all calls behind a mutex; watch events are sent under the same lock,
//! right after the commit, so they come in revision order and no polling is needed.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use super::keys::prefix_end;
use super::watch_hub::WatchHub;
use super::{
    EventKind, KeyValue, RangeRequest, RangeResponse, Revision, Storage, StorageError, Watch,
    WatchEvent, check_compact_revision, check_read_revision,
};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS kv (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name BLOB NOT NULL,
    deleted INTEGER NOT NULL,
    create_revision INTEGER NOT NULL,
    prev_revision INTEGER NOT NULL,
    value BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS kv_name_id_deleted ON kv (name, id, deleted);
DROP INDEX IF EXISTS kv_name_id;
CREATE UNIQUE INDEX IF NOT EXISTS kv_name_prev_revision ON kv (name, prev_revision);
CREATE TABLE IF NOT EXISTS live (
    name BLOB PRIMARY KEY,
    id INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
";

/// The condition that makes a row the live state of its key at a revision: the key's latest
/// row at or before it, and no tombstone. Parameters: start key, end key (NULL for no end),
/// revision.
///
/// Written as a filter over the `(name, id, deleted)` index walked in key order, rather than
/// a `GROUP BY` over the whole range, so that a page stops after `LIMIT` rows (one index
/// probe per row for the correlated `MAX`), and the count is an index-only scan.
const LIVE_IN_RANGE: &str = "
    name >= ?1 AND (?2 IS NULL OR name < ?2) AND id <= ?3 AND deleted = 0
    AND id = (SELECT MAX(newer.id) FROM kv AS newer WHERE newer.name = kv.name AND newer.id <= ?3)
";

/// One row of the table.
struct Row {
    id: Revision,
    name: Vec<u8>,
    deleted: bool,
    create_revision: Revision,
    prev_revision: Revision,
    value: Vec<u8>,
}

impl Row {
    const COLUMNS: &str = "id, name, deleted, create_revision, prev_revision, value";

    fn read(row: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
        Ok(Row {
            id: row.get(0)?,
            name: row.get(1)?,
            deleted: row.get(2)?,
            create_revision: row.get(3)?,
            prev_revision: row.get(4)?,
            value: row.get(5)?,
        })
    }

    fn key_value(self) -> Result<KeyValue, StorageError> {
        Ok(KeyValue {
            key: key_string(self.name)?,
            value: self.value,
            create_revision: self.create_revision,
            mod_revision: self.id,
        })
    }
}

fn key_string(name: Vec<u8>) -> Result<String, StorageError> {
    String::from_utf8(name).map_err(|_| StorageError::Corrupt("a key is not UTF-8".to_owned()))
}

struct Inner {
    conn: Connection,
    compacted: Revision,
    hub: WatchHub,
}

/// A [`Storage`] in one SQLite file.
pub struct SqliteStorage {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for SqliteStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStorage").finish_non_exhaustive()
    }
}

impl SqliteStorage {
    /// Opens the store in the file at `path`, creating the file and its schema if needed.
    ///
    /// Fails with [`StorageError::InUse`] while another connection (in this process or
    /// another) has the file open.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StorageError> {
        let path = path.as_ref();
        let conn = Connection::open(path)?;
        // One process owns the file: watches are fed in-process, so a second writer would go
        // unseen. The exclusive lock is taken by the first write below and held until close.
        conn.pragma_update(None, "locking_mode", "EXCLUSIVE")?;
        conn.busy_timeout(std::time::Duration::ZERO)?;
        match conn.execute_batch("BEGIN IMMEDIATE; COMMIT;") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy =>
            {
                return Err(StorageError::InUse(path.display().to_string()));
            }
            other => other?,
        }
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.execute_batch(SCHEMA)?;
        fill_live_table(&conn)?;
        let compacted = conn
            .query_row("SELECT value FROM meta WHERE key = 'compacted'", [], |r| {
                r.get(0)
            })
            .optional()?
            .unwrap_or(0);
        Ok(SqliteStorage {
            inner: Mutex::new(Inner {
                conn,
                compacted,
                hub: WatchHub::default(),
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Every write is one SQLite transaction, so a panic under the lock cannot leave the
        // data half-written; the lock stays usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Fills the `live` table once for a file written before it existed (marked in `meta`).
fn fill_live_table(conn: &Connection) -> Result<(), StorageError> {
    conn.execute_batch(
        "BEGIN IMMEDIATE;
         INSERT OR IGNORE INTO live (name, id)
             SELECT name, id FROM kv
             WHERE deleted = 0
               AND id = (SELECT MAX(newer.id) FROM kv AS newer WHERE newer.name = kv.name)
               AND NOT EXISTS (SELECT 1 FROM meta WHERE key = 'live');
         INSERT OR IGNORE INTO meta (key, value) VALUES ('live', 1);
         COMMIT;",
    )?;
    Ok(())
}

/// The live rows of a range now, from the `live` table. Parameters: start key, end key (NULL
/// for no end), limit.
const LIVE_NOW_PAGE: &str = "
SELECT kv.id, kv.name, kv.create_revision, kv.value
FROM live JOIN kv ON kv.id = live.id
WHERE live.name >= ?1 AND (?2 IS NULL OR live.name < ?2)
ORDER BY live.name LIMIT ?3
";

/// How many keys of a range live now.
const LIVE_NOW_COUNT: &str =
    "SELECT COUNT(*) FROM live WHERE name >= ?1 AND (?2 IS NULL OR name < ?2)";

fn current_revision(conn: &Connection) -> Result<Revision, StorageError> {
    let seq = conn
        .query_row(
            "SELECT seq FROM sqlite_sequence WHERE name = 'kv'",
            [],
            |r| r.get(0),
        )
        .optional()?;
    Ok(seq.unwrap_or(0))
}

/// The key's latest row at or before `at`.
fn latest_row(conn: &Connection, key: &str, at: Revision) -> Result<Option<Row>, StorageError> {
    let sql = format!(
        "SELECT {} FROM kv WHERE name = ?1 AND id <= ?2 ORDER BY id DESC LIMIT 1",
        Row::COLUMNS
    );
    Ok(conn
        .query_row(&sql, params![key.as_bytes(), at], Row::read)
        .optional()?)
}

/// The live value of a row's predecessor, for a watch event's `prev`.
fn prev_value(
    conn: &Connection,
    prev_revision: Revision,
) -> Result<Option<KeyValue>, StorageError> {
    if prev_revision == 0 {
        return Ok(None);
    }
    let sql = format!(
        "SELECT {} FROM kv WHERE id = ?1 AND deleted = 0",
        Row::COLUMNS
    );
    conn.query_row(&sql, [prev_revision], Row::read)
        .optional()?
        .map(Row::key_value)
        .transpose()
}

/// The live key-value now, checked against the caller's expected revision.
fn expect(tx: &Transaction<'_>, key: &str, expected: Revision) -> Result<KeyValue, StorageError> {
    let current = latest_row(tx, key, Revision::MAX)?
        .filter(|row| !row.deleted)
        .ok_or_else(|| StorageError::NotFound {
            key: key.to_owned(),
        })?;
    if current.id != expected {
        return Err(StorageError::Conflict {
            key: key.to_owned(),
            expected,
            actual: current.id,
            current: None,
        });
    }
    current.key_value()
}

/// Inserts the next row; returns its revision.
fn insert(
    tx: &Transaction<'_>,
    key: &str,
    deleted: bool,
    create_revision: Option<Revision>,
    prev_revision: Revision,
    value: &[u8],
) -> Result<Revision, StorageError> {
    let rev = current_revision(tx)? + 1;
    tx.execute(
        "INSERT INTO kv (id, name, deleted, create_revision, prev_revision, value)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            rev,
            key.as_bytes(),
            deleted,
            create_revision.unwrap_or(rev),
            prev_revision,
            value
        ],
    )?;
    Ok(rev)
}

impl Inner {
    fn begin(&mut self) -> Result<Transaction<'_>, StorageError> {
        Ok(self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?)
    }
}

impl SqliteStorage {
    /// [`Storage::watch`]; with `progress`, writes elsewhere arrive as progress events.
    fn watch_prefix(
        &self,
        prefix: &str,
        from: Option<Revision>,
        progress: bool,
    ) -> Result<Watch, StorageError> {
        let mut inner = self.lock();
        let mut replay = Vec::new();
        if let Some(from) = from {
            if from < inner.compacted {
                return Err(StorageError::Compacted {
                    requested: from,
                    compacted: inner.compacted,
                });
            }
            let sql = format!(
                "SELECT {} FROM kv WHERE id >= ?1 AND name >= ?2 AND (?3 IS NULL OR name < ?3)
                 ORDER BY id",
                Row::COLUMNS
            );
            let end = prefix_end(prefix.as_bytes());
            let mut stmt = inner.conn.prepare_cached(&sql)?;
            let rows = stmt
                .query_map(params![from, prefix.as_bytes(), end], Row::read)?
                .collect::<Result<Vec<_>, _>>()?;
            drop(stmt);
            for row in rows {
                let prev = prev_value(&inner.conn, row.prev_revision)?;
                let kind = if row.deleted {
                    EventKind::Delete
                } else {
                    EventKind::Put
                };
                replay.push(WatchEvent {
                    kind,
                    kv: row.key_value()?,
                    prev,
                });
            }
        }
        let (tx, watch) = inner.hub.register(prefix, progress);
        for event in replay {
            // The receiver is in our hands, so the send cannot fail.
            let _ = tx.send(event);
        }
        Ok(watch)
    }
}

impl Storage for SqliteStorage {
    fn current_revision(&self) -> Result<Revision, StorageError> {
        current_revision(&self.lock().conn)
    }

    fn compacted_revision(&self) -> Result<Revision, StorageError> {
        Ok(self.lock().compacted)
    }

    fn get(
        &self,
        key: &str,
        revision: Option<Revision>,
    ) -> Result<(Option<KeyValue>, Revision), StorageError> {
        let inner = self.lock();
        let current = current_revision(&inner.conn)?;
        let at = revision.unwrap_or(current);
        check_read_revision(at, inner.compacted, current)?;
        let kv = latest_row(&inner.conn, key, at)?
            .filter(|row| !row.deleted)
            .map(Row::key_value)
            .transpose()?;
        Ok((kv, at))
    }

    fn range(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
        let inner = self.lock();
        let current = current_revision(&inner.conn)?;
        let at = request.revision.unwrap_or(current);
        check_read_revision(at, inner.compacted, current)?;
        let start = request.start_key().as_bytes();
        let end = prefix_end(request.prefix.as_bytes());
        let limit = request
            .limit
            .filter(|l| *l > 0)
            .map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        let now = at == current;
        let sql = if now {
            LIVE_NOW_PAGE.to_owned()
        } else {
            format!(
                "SELECT id, name, create_revision, value FROM kv INDEXED BY kv_name_id_deleted
                 WHERE {LIVE_IN_RANGE} ORDER BY name LIMIT ?4"
            )
        };
        let mut stmt = inner.conn.prepare_cached(&sql)?;
        let read =
            |r: &rusqlite::Row<'_>| Ok((r.get::<_, Revision>(0)?, r.get(1)?, r.get(2)?, r.get(3)?));
        let rows = if now {
            stmt.query_map(params![start, end, limit], read)?
                .collect::<Result<Vec<(Revision, Vec<u8>, Revision, Vec<u8>)>, _>>()?
        } else {
            stmt.query_map(params![start, end, at, limit], read)?
                .collect::<Result<Vec<_>, _>>()?
        };
        let kvs = rows
            .into_iter()
            .map(|row| {
                let (id, name, create_revision, value) = row;
                Ok(KeyValue {
                    key: key_string(name)?,
                    value,
                    create_revision,
                    mod_revision: id,
                })
            })
            .collect::<Result<Vec<_>, StorageError>>()?;
        let count: i64 = if limit < 0 {
            kvs.len() as i64
        } else if now {
            inner
                .conn
                .prepare_cached(LIVE_NOW_COUNT)?
                .query_row(params![start, end], |r| r.get(0))?
        } else {
            let sql = format!(
                "SELECT COUNT(*) FROM kv INDEXED BY kv_name_id_deleted WHERE {LIVE_IN_RANGE}"
            );
            inner
                .conn
                .prepare_cached(&sql)?
                .query_row(params![start, end, at], |r| r.get(0))?
        };
        let count = usize::try_from(count).unwrap_or(0);
        Ok(RangeResponse {
            more: count > kvs.len(),
            kvs,
            revision: at,
            count,
        })
    }

    fn create(&self, key: &str, value: &[u8]) -> Result<KeyValue, StorageError> {
        let mut inner = self.lock();
        let tx = inner.begin()?;
        let latest = latest_row(&tx, key, Revision::MAX)?;
        if latest.as_ref().is_some_and(|row| !row.deleted) {
            return Err(StorageError::AlreadyExists {
                key: key.to_owned(),
            });
        }
        let prev_revision = latest.map_or(0, |row| row.id);
        let rev = insert(&tx, key, false, None, prev_revision, value)?;
        tx.execute(
            "INSERT INTO live (name, id) VALUES (?1, ?2)",
            params![key.as_bytes(), rev],
        )?;
        tx.commit()?;
        let kv = KeyValue {
            key: key.to_owned(),
            value: value.to_vec(),
            create_revision: rev,
            mod_revision: rev,
        };
        inner.hub.notify(&WatchEvent {
            kind: EventKind::Put,
            kv: kv.clone(),
            prev: None,
        });
        Ok(kv)
    }

    fn update(
        &self,
        key: &str,
        value: &[u8],
        expected: Revision,
    ) -> Result<KeyValue, StorageError> {
        let mut inner = self.lock();
        let tx = inner.begin()?;
        let prev = expect(&tx, key, expected)?;
        let create_revision = prev.create_revision;
        let rev = insert(
            &tx,
            key,
            false,
            Some(create_revision),
            prev.mod_revision,
            value,
        )?;
        tx.execute(
            "UPDATE live SET id = ?2 WHERE name = ?1",
            params![key.as_bytes(), rev],
        )?;
        tx.commit()?;
        let kv = KeyValue {
            key: key.to_owned(),
            value: value.to_vec(),
            create_revision,
            mod_revision: rev,
        };
        inner.hub.notify(&WatchEvent {
            kind: EventKind::Put,
            kv: kv.clone(),
            prev: Some(prev),
        });
        Ok(kv)
    }

    fn delete(&self, key: &str, expected: Revision) -> Result<(KeyValue, Revision), StorageError> {
        let mut inner = self.lock();
        let tx = inner.begin()?;
        let prev = expect(&tx, key, expected)?;
        let rev = insert(
            &tx,
            key,
            true,
            Some(prev.create_revision),
            prev.mod_revision,
            &[],
        )?;
        tx.execute("DELETE FROM live WHERE name = ?1", [key.as_bytes()])?;
        tx.commit()?;
        inner.hub.notify(&WatchEvent {
            kind: EventKind::Delete,
            kv: KeyValue {
                key: key.to_owned(),
                value: Vec::new(),
                create_revision: prev.create_revision,
                mod_revision: rev,
            },
            prev: Some(prev.clone()),
        });
        Ok((prev, rev))
    }

    fn watch(&self, prefix: &str, from: Option<Revision>) -> Result<Watch, StorageError> {
        self.watch_prefix(prefix, from, false)
    }

    /// Every write is reported to every progress watcher under the write lock, in revision
    /// order: exact progress.
    fn watch_with_progress(
        &self,
        prefix: &str,
        from: Option<Revision>,
    ) -> Result<Watch, StorageError> {
        self.watch_prefix(prefix, from, true)
    }

    fn exact_progress(&self) -> bool {
        true
    }

    fn compact(&self, revision: Revision) -> Result<(), StorageError> {
        let mut inner = self.lock();
        let current = current_revision(&inner.conn)?;
        check_compact_revision(revision, inner.compacted, current)?;
        let tx = inner.begin()?;
        // Below `revision`, keep only each key's last row, and that only if it is a value:
        // it is the key's state at `revision` and the `prev` of the key's next write.
        tx.execute(
            "DELETE FROM kv WHERE id < ?1 AND (
                deleted = 1
                OR id < (SELECT MAX(newer.id) FROM kv AS newer
                         WHERE newer.name = kv.name AND newer.id < ?1)
            )",
            [revision],
        )?;
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('compacted', ?1)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [revision],
        )?;
        tx.commit()?;
        inner.compacted = revision;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(store: &SqliteStorage) -> Vec<(Revision, bool)> {
        let inner = store.lock();
        let mut stmt = inner
            .conn
            .prepare("SELECT id, deleted FROM kv ORDER BY id")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn compaction_removes_superseded_rows_and_tombstones() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStorage::open(dir.path().join("db")).unwrap();
        let a = store.create("/k/a", b"1").unwrap(); // 1
        store.update("/k/a", b"2", a.mod_revision).unwrap(); // 2
        store.create("/k/b", b"1").unwrap(); // 3
        store.delete("/k/b", 3).unwrap(); // 4
        store.update("/k/a", b"3", 2).unwrap(); // 5
        store.compact(5).unwrap();
        // Row 1 is superseded by 2 below 5; 3 and 4 are a deleted key's life.
        assert_eq!(rows(&store), [(2, false), (5, false)]);
    }

    #[test]
    fn the_live_table_is_filled_once_for_older_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let store = SqliteStorage::open(&path).unwrap();
        let a = store.create("/k/a", b"1").unwrap();
        store.update("/k/a", b"2", a.mod_revision).unwrap();
        store.create("/k/b", b"1").unwrap();
        store.delete("/k/b", 3).unwrap();
        store.create("/k/c", b"1").unwrap();
        let before = store.range(&RangeRequest::prefix("/k/")).unwrap();
        // A file from before the table: no rows in it, no marker.
        store
            .lock()
            .conn
            .execute_batch("DELETE FROM live; DELETE FROM meta WHERE key = 'live';")
            .unwrap();
        drop(store);
        let store = SqliteStorage::open(&path).unwrap();
        let after = store.range(&RangeRequest::prefix("/k/")).unwrap();
        assert_eq!(after, before);
        assert_eq!(names_of(&after), ["/k/a", "/k/c"]);
        let paged = store.range(&RangeRequest::prefix("/k/").limit(1)).unwrap();
        assert_eq!((paged.count, paged.more), (2, true));
    }

    fn names_of(r: &RangeResponse) -> Vec<&str> {
        r.kvs.iter().map(|kv| kv.key.as_str()).collect()
    }

    #[test]
    fn one_store_at_a_time_owns_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let first = SqliteStorage::open(&path).unwrap();
        first.create("/k/a", b"1").unwrap();
        match SqliteStorage::open(&path) {
            Err(StorageError::InUse(p)) => assert_eq!(p, path.display().to_string()),
            other => panic!("expected InUse, got {other:?}"),
        }
        drop(first);
        let again = SqliteStorage::open(&path).unwrap();
        assert_eq!(again.current_revision().unwrap(), 1);
    }

    #[test]
    fn the_file_is_in_wal_mode_with_full_sync() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStorage::open(dir.path().join("db")).unwrap();
        let inner = store.lock();
        let mode: String = inner
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        let sync: i64 = inner
            .conn
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap();
        assert_eq!((mode.as_str(), sync), ("wal", 2));
    }
}
