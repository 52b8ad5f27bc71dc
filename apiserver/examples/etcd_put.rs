//! Raw etcd write rate, the yardstick for the server's writes on etcd: N clients, each with
//! its own etcd-client connection, put COUNT keys of the size of a stored ConfigMap (about
//! 300 bytes) one after another; prints puts per second and p50/p99. Loopback only; bounded
//! by the counts.
//!
//! ```text
//! cargo run --release -p kcel-apiserver --features etcd --example etcd_put -- http://127.0.0.1:2379 8 1250 [ETCD_PID]
//! ```
//! With etcd's pid, also etcd's CPU time per put (utime + stime of `/proc/PID/stat`).
//!
//! `KCEL_ETCD_PUT_SHAPE=create` writes each key as kube-apiserver's create does instead of a
//! plain put (k8s.io/apiserver `pkg/storage/etcd3/store.go`, `Create`: one transaction,
//! `If ModRevision(key) == 0 Then Put`), and `create-watched` does the same while one more
//! connection watches the keys' prefix with `prev_kv` (as the watch cache does) and reads
//! every event: etcd's own cost per create of that shape, without an API server.

mod support;

use std::time::Instant;

use etcd_client::{Compare, CompareOp, Txn, TxnOp, WatchOptions};

/// How each key is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Put,
    Create,
    CreateWatched,
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: etcd_put ETCD_URL CLIENTS COUNT_PER_CLIENT [ETCD_PID]");
        std::process::exit(2);
    }
    let url = args[1].clone();
    assert!(
        url.starts_with("http://127.") || url.starts_with("http://localhost"),
        "loopback only: {url}"
    );
    let clients: usize = args[2].parse().expect("CLIENTS is a number");
    let count: usize = args[3].parse().expect("COUNT_PER_CLIENT is a number");
    let shape = match std::env::var("KCEL_ETCD_PUT_SHAPE").as_deref() {
        Err(_) | Ok("" | "put") => Shape::Put,
        Ok("create") => Shape::Create,
        Ok("create-watched") => Shape::CreateWatched,
        Ok(other) => {
            eprintln!("KCEL_ETCD_PUT_SHAPE: put, create or create-watched, not {other:?}");
            std::process::exit(2);
        }
    };
    let value = format!(
        r#"{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"x","namespace":"default","uid":"00000000-0000-0000-0000-000000000000","resourceVersion":"","creationTimestamp":"2026-01-01T00:00:00Z"}},"data":{{"k":"{}"}}}}"#,
        "v".repeat(64)
    );
    let run = std::process::id();
    let prefix = format!("/bench/{run}/");
    let total = clients * count;
    // The watcher reads every event of the run before the figures are taken.
    let watcher = if shape == Shape::CreateWatched {
        let mut etcd = etcd_client::Client::connect([url.clone()], None)
            .await
            .expect("connecting to etcd");
        let options = WatchOptions::new().with_prefix().with_prev_key();
        let mut stream = etcd
            .watch(prefix.clone(), Some(options))
            .await
            .expect("a watch");
        Some(tokio::spawn(async move {
            let mut seen = 0;
            while seen < total {
                match stream.message().await.expect("a watch response") {
                    Some(response) => seen += response.events().len(),
                    None => break,
                }
            }
            seen
        }))
    } else {
        None
    };
    let etcd_cpu = support::CpuPer::start(args.get(4).map(String::as_str));
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for client in 0..clients {
        let (url, value, prefix) = (url.clone(), value.clone(), prefix.clone());
        tasks.spawn(async move {
            let mut etcd = etcd_client::Client::connect([url], None)
                .await
                .expect("connecting to etcd");
            let mut latencies = Vec::with_capacity(count);
            for i in 0..count {
                let key = format!("{prefix}{client}/{i}");
                let t = Instant::now();
                if shape == Shape::Put {
                    etcd.put(key, value.as_bytes(), None).await.expect("a put");
                } else {
                    let txn = Txn::new()
                        .when([Compare::mod_revision(key.as_str(), CompareOp::Equal, 0)])
                        .and_then([TxnOp::put(key.as_str(), value.as_bytes(), None)]);
                    let response = etcd.txn(txn).await.expect("a transaction");
                    assert!(response.succeeded(), "{key} existed");
                }
                latencies.push(t.elapsed());
            }
            latencies
        });
    }
    let mut all = Vec::new();
    while let Some(latencies) = tasks.join_next().await {
        all.extend(latencies.expect("a client task"));
    }
    let puts = all.len();
    let elapsed = start.elapsed();
    if let Some(watcher) = watcher {
        let seen = tokio::time::timeout(std::time::Duration::from_secs(60), watcher)
            .await
            .expect("the watcher read every event within a minute")
            .expect("the watcher task");
        assert_eq!(seen, puts, "watch events");
    }
    support::report("put", all, elapsed);
    etcd_cpu.report("etcd", "put", puts);
}
