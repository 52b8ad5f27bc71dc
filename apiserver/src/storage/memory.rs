//! The in-memory backend, for unit tests: the same history model as SQLite, kept in maps.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::{Mutex, MutexGuard};

use super::watch_hub::WatchHub;
use super::{
    EventKind, KeyValue, RangeRequest, RangeResponse, Revision, Storage, StorageError, Watch,
    WatchEvent, check_compact_revision, check_read_revision,
};

/// One write: the value a key got at one revision, or its deletion.
#[derive(Debug, Clone)]
struct Row {
    key: String,
    /// `None` for a deletion (a tombstone).
    value: Option<Vec<u8>>,
    create_revision: Revision,
}

#[derive(Debug, Default)]
struct Inner {
    /// Every retained write by revision.
    rows: BTreeMap<Revision, Row>,
    /// The retained revisions of each key, oldest first.
    history: BTreeMap<String, Vec<Revision>>,
    revision: Revision,
    compacted: Revision,
    hub: WatchHub,
}

impl Inner {
    /// The revision of the key's last write at or before `at`, if retained.
    fn latest_at(&self, key: &str, at: Revision) -> Option<Revision> {
        let revs = self.history.get(key)?;
        let n = revs.partition_point(|r| *r <= at);
        (n > 0).then(|| revs[n - 1])
    }

    /// The live key-value at `at`.
    fn live_at(&self, key: &str, at: Revision) -> Option<KeyValue> {
        let rev = self.latest_at(key, at)?;
        let row = &self.rows[&rev];
        row.value.as_ref().map(|value| KeyValue {
            key: key.to_owned(),
            value: value.clone(),
            create_revision: row.create_revision,
            mod_revision: rev,
        })
    }

    /// The live key-value now, checked against the caller's expected revision.
    fn expect(&self, key: &str, expected: Revision) -> Result<KeyValue, StorageError> {
        let current = self
            .live_at(key, self.revision)
            .ok_or_else(|| StorageError::NotFound {
                key: key.to_owned(),
            })?;
        if current.mod_revision != expected {
            return Err(StorageError::Conflict {
                key: key.to_owned(),
                expected,
                actual: current.mod_revision,
                current: None,
            });
        }
        Ok(current)
    }

    /// Appends a write, notifies the watchers, and returns its revision.
    fn append(&mut self, row: Row, prev: Option<KeyValue>) -> Revision {
        self.revision += 1;
        let rev = self.revision;
        self.history.entry(row.key.clone()).or_default().push(rev);
        let event = self.event(&row, rev, prev);
        self.rows.insert(rev, row);
        self.hub.notify(&event);
        rev
    }

    fn event(&self, row: &Row, rev: Revision, prev: Option<KeyValue>) -> WatchEvent {
        let kind = match row.value {
            Some(_) => EventKind::Put,
            None => EventKind::Delete,
        };
        WatchEvent {
            kind,
            kv: KeyValue {
                key: row.key.clone(),
                value: row.value.clone().unwrap_or_default(),
                create_revision: row.create_revision,
                mod_revision: rev,
            },
            prev,
        }
    }
}

/// A [`Storage`] held in memory; its data is gone when it is dropped.
#[derive(Debug, Default)]
pub struct MemoryStorage {
    inner: Mutex<Inner>,
}

impl MemoryStorage {
    /// An empty store at revision 0.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves the maps consistent (every write is completed
        // before the lock is released or not started), so a poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl MemoryStorage {
    /// [`Storage::watch`]; with `progress`, writes elsewhere arrive as progress events.
    fn watch_prefix(
        &self,
        prefix: &str,
        from: Option<Revision>,
        progress: bool,
    ) -> Result<Watch, StorageError> {
        let mut inner = self.lock();
        if let Some(from) = from
            && from < inner.compacted
        {
            return Err(StorageError::Compacted {
                requested: from,
                compacted: inner.compacted,
            });
        }
        let replay: Vec<WatchEvent> = match from {
            Some(from) => inner
                .rows
                .range(from.max(1)..)
                .filter(|(_, row)| row.key.starts_with(prefix))
                .map(|(rev, row)| {
                    let prev = inner.live_at(&row.key, rev - 1);
                    inner.event(row, *rev, prev)
                })
                .collect(),
            None => Vec::new(),
        };
        let (tx, watch) = inner.hub.register(prefix, progress);
        for event in replay {
            // The receiver is in our hands, so the send cannot fail.
            let _ = tx.send(event);
        }
        Ok(watch)
    }
}

impl Storage for MemoryStorage {
    fn current_revision(&self) -> Result<Revision, StorageError> {
        Ok(self.lock().revision)
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
        let at = revision.unwrap_or(inner.revision);
        check_read_revision(at, inner.compacted, inner.revision)?;
        Ok((inner.live_at(key, at), at))
    }

    fn range(&self, request: &RangeRequest) -> Result<RangeResponse, StorageError> {
        let inner = self.lock();
        let at = request.revision.unwrap_or(inner.revision);
        check_read_revision(at, inner.compacted, inner.revision)?;
        let limit = request.limit.filter(|l| *l > 0).unwrap_or(usize::MAX);
        let mut kvs = Vec::new();
        let mut count = 0;
        let keys = inner
            .history
            .range::<str, _>((Bound::Included(request.start_key()), Bound::Unbounded))
            .map(|(k, _)| k)
            .take_while(|k| k.starts_with(request.prefix.as_str()));
        for key in keys {
            if let Some(kv) = inner.live_at(key, at) {
                count += 1;
                if kvs.len() < limit {
                    kvs.push(kv);
                }
            }
        }
        Ok(RangeResponse {
            more: count > kvs.len(),
            kvs,
            revision: at,
            count,
        })
    }

    fn create(&self, key: &str, value: &[u8]) -> Result<KeyValue, StorageError> {
        let mut inner = self.lock();
        if inner.live_at(key, inner.revision).is_some() {
            return Err(StorageError::AlreadyExists {
                key: key.to_owned(),
            });
        }
        let create_revision = inner.revision + 1;
        let row = Row {
            key: key.to_owned(),
            value: Some(value.to_vec()),
            create_revision,
        };
        let rev = inner.append(row, None);
        Ok(KeyValue {
            key: key.to_owned(),
            value: value.to_vec(),
            create_revision,
            mod_revision: rev,
        })
    }

    fn update(
        &self,
        key: &str,
        value: &[u8],
        expected: Revision,
    ) -> Result<KeyValue, StorageError> {
        let mut inner = self.lock();
        let prev = inner.expect(key, expected)?;
        let create_revision = prev.create_revision;
        let row = Row {
            key: key.to_owned(),
            value: Some(value.to_vec()),
            create_revision,
        };
        let rev = inner.append(row, Some(prev));
        Ok(KeyValue {
            key: key.to_owned(),
            value: value.to_vec(),
            create_revision,
            mod_revision: rev,
        })
    }

    fn delete(&self, key: &str, expected: Revision) -> Result<(KeyValue, Revision), StorageError> {
        let mut inner = self.lock();
        let prev = inner.expect(key, expected)?;
        let row = Row {
            key: key.to_owned(),
            value: None,
            create_revision: prev.create_revision,
        };
        let rev = inner.append(row, Some(prev.clone()));
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
        check_compact_revision(revision, inner.compacted, inner.revision)?;
        let Inner { rows, history, .. } = &mut *inner;
        history.retain(|_, revs| {
            // Keep the last write before `revision` (the state at `revision` and the previous
            // value of the next write), unless it is a deletion; drop everything older.
            let older = revs.partition_point(|r| *r < revision);
            let mut drop_to = older.saturating_sub(1);
            if older > 0 && rows[&revs[older - 1]].value.is_none() {
                drop_to = older;
            }
            for rev in revs.drain(..drop_to) {
                rows.remove(&rev);
            }
            !revs.is_empty()
        });
        inner.compacted = revision;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_watchers_are_forgotten_at_the_next_write() {
        let store = MemoryStorage::new();
        let watch = store.watch("/a/", None).unwrap();
        let _other = store.watch("/b/", None).unwrap();
        drop(watch);
        store.create("/a/x", b"1").unwrap();
        assert_eq!(store.lock().hub.len(), 1);
    }
}
