//! Raw etcd write rate, the yardstick for the server's writes on etcd: N clients, each with
//! its own etcd-client connection, put COUNT keys of the size of a stored ConfigMap (about
//! 300 bytes) one after another; prints puts per second and p50/p99. Loopback only; bounded
//! by the counts.
//!
//! ```text
//! cargo run --release -p kcel-apiserver --features etcd --example etcd_put -- http://127.0.0.1:2379 8 1250 [ETCD_PID]
//! ```
//! With etcd's pid, also etcd's CPU time per put (utime + stime of `/proc/PID/stat`).

mod support;

use std::time::Instant;

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
    let value = format!(
        r#"{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"x","namespace":"default","uid":"00000000-0000-0000-0000-000000000000","resourceVersion":"","creationTimestamp":"2026-01-01T00:00:00Z"}},"data":{{"k":"{}"}}}}"#,
        "v".repeat(64)
    );
    let run = std::process::id();
    let etcd_cpu = support::CpuPer::start(args.get(4).map(String::as_str));
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for client in 0..clients {
        let (url, value) = (url.clone(), value.clone());
        tasks.spawn(async move {
            let mut etcd = etcd_client::Client::connect([url], None)
                .await
                .expect("connecting to etcd");
            let mut latencies = Vec::with_capacity(count);
            for i in 0..count {
                let t = Instant::now();
                etcd.put(format!("/bench/{run}/{client}/{i}"), value.as_bytes(), None)
                    .await
                    .expect("a put");
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
    support::report("put", all, start.elapsed());
    etcd_cpu.report("etcd", "put", puts);
}
