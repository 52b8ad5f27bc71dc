//! A load generator for kcel-apiserver: concurrent clients over loopback HTTPS doing creates,
//! gets, lists and updates of ConfigMaps, then one list of everything; prints throughput and
//! p50/p99 latency per operation, and the server's resident memory if its pid is given.
//!
//! ```text
//! cargo run --release -p kcel-apiserver -- --data-dir /tmp/d --listen 127.0.0.1:6443 &
//! cargo run --release -p kcel-apiserver --example loadgen -- /tmp/d/kubeconfig 8 1250 [PID]
//! ```
//! Arguments: the kubeconfig the server wrote, the number of concurrent clients, the
//! ConfigMaps each client creates (clients × count objects in all), and optionally the
//! server's pid. Each client keeps one connection. Requests go to 127.0.0.1 only.

mod support;

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use support::{Target, report, rss_kib};

const PATH: &str = "/api/v1/namespaces/default/configmaps";

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: loadgen KUBECONFIG CLIENTS COUNT_PER_CLIENT [SERVER_PID]");
        std::process::exit(2);
    }
    let target = Arc::new(Target::from_kubeconfig(&args[1]));
    let clients: usize = args[2].parse().expect("CLIENTS is a number");
    let count: usize = args[3].parse().expect("COUNT_PER_CLIENT is a number");
    let pid = args.get(4).cloned();
    let before = pid.as_deref().and_then(rss_kib);
    for phase in ["create", "get", "list", "update"] {
        let start = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for client in 0..clients {
            let target = target.clone();
            tasks.spawn(async move {
                let mut sender = target.connect().await;
                let mut latencies = Vec::with_capacity(count);
                for i in 0..count {
                    let name = format!("load-{client}-{i}");
                    let t = Instant::now();
                    let (code, _) = match phase {
                        "create" => {
                            let body =
                                json!({"metadata": {"name": name}, "data": {"k": "v".repeat(64)}});
                            target.send(&mut sender, "POST", PATH, Some(body)).await
                        }
                        "get" => {
                            target
                                .send(&mut sender, "GET", &format!("{PATH}/{name}"), None)
                                .await
                        }
                        "list" => {
                            target
                                .send(&mut sender, "GET", &format!("{PATH}?limit=100"), None)
                                .await
                        }
                        _ => {
                            let body =
                                json!({"metadata": {"name": name}, "data": {"k": "w".repeat(64)}});
                            target
                                .send(&mut sender, "PUT", &format!("{PATH}/{name}"), Some(body))
                                .await
                        }
                    };
                    assert!(code < 300, "{phase} {name}: {code}");
                    latencies.push(t.elapsed());
                }
                latencies
            });
        }
        let mut all = Vec::new();
        while let Some(latencies) = tasks.join_next().await {
            all.extend(latencies.expect("a client task"));
        }
        report(phase, all, start.elapsed());
    }
    let mut sender = target.connect().await;
    let start = Instant::now();
    let (code, body) = target.send(&mut sender, "GET", PATH, None).await;
    assert_eq!(code, 200);
    let items = serde_json::from_slice::<Value>(&body).expect("a list")["items"]
        .as_array()
        .map_or(0, Vec::len);
    println!(
        "list all {items} objects: {:.1} ms, {} bytes",
        start.elapsed().as_secs_f64() * 1000.0,
        body.len()
    );
    if let (Some(before), Some(after)) = (before, pid.as_deref().and_then(rss_kib)) {
        println!(
            "server RSS {before} KiB before, {after} KiB after ({} objects)",
            clients * count
        );
    }
}
