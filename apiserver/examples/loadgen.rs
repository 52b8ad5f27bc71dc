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
    // Reads of the whole collection: full, paged by 500, and (when the server runs with
    // --feature-gates=ShardedListAndWatch=true) one uid shard of four beside an unfiltered
    // list of the same output size. Medians of 5.
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let timed = |path: String| {
        let target = target.clone();
        async move {
            let mut sender = target.connect().await;
            let mut times = Vec::new();
            let mut items = 0;
            for _ in 0..5 {
                let start = Instant::now();
                let (code, body) = target.send(&mut sender, "GET", &path, None).await;
                assert_eq!(code, 200, "{path}");
                times.push(start.elapsed().as_secs_f64() * 1000.0);
                items = serde_json::from_slice::<Value>(&body).expect("a list")["items"]
                    .as_array()
                    .map_or(0, Vec::len);
            }
            (times, items)
        }
    };
    let (full, n) = timed(PATH.to_owned()).await;
    println!("list full ({n} items): median {:.1} ms", median(full));
    let mut pages = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let mut cont = String::new();
        let mut count = 0;
        loop {
            let (code, body) = target
                .send(
                    &mut sender,
                    "GET",
                    &format!("{PATH}?limit=500&continue={cont}"),
                    None,
                )
                .await;
            assert_eq!(code, 200);
            let page: Value = serde_json::from_slice(&body).expect("a page");
            count += page["items"].as_array().map_or(0, Vec::len);
            match page["metadata"]["continue"].as_str() {
                Some(c) => cont = c.to_owned(),
                None => break,
            }
        }
        pages.push((start.elapsed().as_secs_f64() * 1000.0, count));
    }
    let walked = pages[0].1;
    println!(
        "list paged by 500 ({walked} items): median {:.1} ms for all pages",
        median(pages.iter().map(|p| p.0).collect())
    );
    let shard =
        "shardRange(object.metadata.uid,%20%270x0000000000000000%27,%20%270x4000000000000000%27)";
    let (sharded, in_shard) = timed(format!("{PATH}?shardSelector={shard}")).await;
    if in_shard < n {
        let (same, _) = timed(format!("{PATH}?limit={in_shard}")).await;
        let (labels, _) = timed(format!("{PATH}?labelSelector=absent%3Dx")).await;
        println!(
            "list 1-of-4 uid shard ({in_shard} items): median {:.1} ms; unfiltered list of the \
             same size (limit={in_shard}): {:.1} ms; a label selector matching nothing: {:.1} ms",
            median(sharded),
            median(same),
            median(labels)
        );
    } else {
        println!(
            "(sharded lists not measured: start the server with --feature-gates=ShardedListAndWatch=true)"
        );
    }
    if let (Some(before), Some(after)) = (before, pid.as_deref().and_then(rss_kib)) {
        println!(
            "server RSS {before} KiB before, {after} KiB after ({} objects)",
            clients * count
        );
    }
}
