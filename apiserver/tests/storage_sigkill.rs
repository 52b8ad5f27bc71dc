//! An acknowledged write to SQLite survives SIGKILL of the writing process.
//!
//! The test binary runs itself again as the writer: `writer_child` does nothing unless the
//! environment names a database, in which case it writes in a bounded loop and prints one
//! `ack` line after each write returns. The parent kills it with SIGKILL after a few hundred
//! acknowledgements, reopens the file and checks every acknowledged write.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

use kcel_apiserver::storage::sqlite::SqliteStorage;
use kcel_apiserver::storage::{Revision, Storage, keys};

const DB_ENV: &str = "KCEL_APISERVER_SIGKILL_DB";
const MAX_WRITES: usize = 200_000;
const KILL_AFTER: usize = 300;

fn key(i: usize) -> String {
    keys::namespaced("configmaps", "default", &format!("cm-{i}"))
}

/// The child's side: writes until killed (or until the bound, which the parent treats as a
/// failure to kill it mid-run).
#[test]
fn writer_child() {
    let Ok(path) = std::env::var(DB_ENV) else {
        return;
    };
    let store = SqliteStorage::open(path).unwrap();
    let mut out = std::io::stdout().lock();
    for i in 0..MAX_WRITES / 2 {
        let created = store
            .create(&key(i), format!("{i}/created").as_bytes())
            .unwrap();
        writeln!(out, "ack {i} {} created", created.mod_revision).unwrap();
        out.flush().unwrap();
        let updated = store
            .update(
                &key(i),
                format!("{i}/updated").as_bytes(),
                created.mod_revision,
            )
            .unwrap();
        writeln!(out, "ack {i} {} updated", updated.mod_revision).unwrap();
        out.flush().unwrap();
    }
}

#[test]
fn acknowledged_writes_survive_sigkill() {
    if std::env::var(DB_ENV).is_ok() {
        return; // we are the child: only `writer_child` runs there
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("state.db");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "writer_child", "--nocapture", "--test-threads=1"])
        .env(DB_ENV, &db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // (key index, revision, value) of every acknowledged write.
    let mut acks: Vec<(usize, Revision, String)> = Vec::new();
    let parse = |line: String, acks: &mut Vec<_>| {
        let Some(rest) = line.strip_prefix("ack ") else {
            return;
        };
        let mut parts = rest.split(' ');
        let i: usize = parts.next().unwrap().parse().unwrap();
        let rev: Revision = parts.next().unwrap().parse().unwrap();
        let what = parts.next().unwrap();
        acks.push((i, rev, format!("{i}/{what}")));
    };
    while acks.len() < KILL_AFTER {
        let line = lines.next().expect("the writer stopped early").unwrap();
        parse(line, &mut acks);
    }
    child.kill().unwrap(); // SIGKILL on Unix
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(9), "the writer must die by SIGKILL");
    // Acknowledgements still in the pipe count too.
    for line in lines {
        parse(line.unwrap(), &mut acks);
    }
    let store = SqliteStorage::open(&db).unwrap();
    let current = store.current_revision().unwrap();
    let last_ack = acks.last().unwrap().1;
    assert!(
        current >= last_ack,
        "current {current} < acknowledged {last_ack}"
    );
    // At most one unacknowledged write may have committed before the kill.
    assert!(current <= last_ack + 1);
    for (i, rev, value) in &acks {
        let (kv, _) = store.get(&key(*i), Some(*rev)).unwrap();
        let kv = kv.unwrap_or_else(|| panic!("acknowledged write {rev} lost"));
        assert_eq!(
            (kv.mod_revision, kv.value.as_slice()),
            (*rev, value.as_bytes())
        );
    }
    let latest: HashMap<usize, Revision> = acks.iter().map(|(i, rev, _)| (*i, *rev)).collect();
    for (i, rev) in latest {
        let kv = store.get(&key(i), None).unwrap().0.unwrap();
        assert!(kv.mod_revision >= rev);
    }
}
