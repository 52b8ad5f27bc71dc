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
//! `KCEL_LOADGEN_PHASES=create,update` (say) leaves the other phases out, and the timed lists
//! unless it names `lists`. With the server's pid, each phase reports the server's CPU time
//! per request (utime + stime of `/proc/PID/stat`), and with `KCEL_LOADGEN_STORE_PID` (etcd's
//! pid) the store's too.

mod support;

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use support::{CpuPer, Target, cpu_ms, median, report, rss_kib};

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
    let store_pid = std::env::var("KCEL_LOADGEN_STORE_PID").ok();
    let before = pid.as_deref().and_then(rss_kib);
    // KCEL_LOADGEN_PHASES (comma-separated) runs only some phases; creates always run.
    let phases = std::env::var("KCEL_LOADGEN_PHASES").unwrap_or_default();
    for phase in ["create", "get", "list", "update"] {
        if phase != "create" && !phases.is_empty() && !phases.split(',').any(|p| p == phase) {
            continue;
        }
        let start = Instant::now();
        let server_cpu = CpuPer::start(pid.as_deref());
        let store_cpu = CpuPer::start(store_pid.as_deref());
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
        let requests = all.len();
        report(phase, all, start.elapsed());
        server_cpu.report("server", phase, requests);
        store_cpu.report("store", phase, requests);
    }
    if !phases.is_empty() && !phases.split(',').any(|p| p == "lists") {
        return;
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
    // list of the same output size.
    let lists = Lists {
        target: target.clone(),
        pid: pid.clone(),
    };
    let (full, n, _) = lists.batch(&[PATH.to_owned()], 5).await;
    println!("list full ({n} items): median {:.1} ms", median(full));
    let (paged, walked, _) = lists.paged(PATH, 500, "", 5).await;
    println!(
        "list paged by 500 ({walked} items): median {:.1} ms for all pages",
        median(paged)
    );
    let shard =
        "shardRange(object.metadata.uid,%20%270x0000000000000000%27,%20%270x4000000000000000%27)";
    let sharded_path = format!("{PATH}?shardSelector={shard}");
    let (_, in_shard, _) = lists.batch(std::slice::from_ref(&sharded_path), 1).await;
    if in_shard < n {
        // Alternating batches of 7 of each, five rounds (KCEL_LOADGEN_SHARD_ROUNDS): wall time per list (median) and the
        // server's CPU time per list in each batch, whose ratio the machine's load moves
        // least. The paged walks read 500 keys a page, the sharded one keeps a quarter.
        let same_path = format!("{PATH}?limit={in_shard}");
        let (mut wall_s, mut wall_u, mut cpu_s, mut cpu_u, mut ratios) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..shard_rounds() {
            let (w, _, c) = lists.batch(std::slice::from_ref(&sharded_path), 7).await;
            wall_s.extend(w);
            let (w2, _, c2) = lists.batch(std::slice::from_ref(&same_path), 7).await;
            wall_u.extend(w2);
            if let (Some(c), Some(c2)) = (c, c2) {
                cpu_s.push(c / 7.0);
                cpu_u.push(c2 / 7.0);
                ratios.push(c / c2);
            }
        }
        let (wall_s, wall_u) = (median(wall_s), median(wall_u));
        println!(
            "list 1-of-4 uid shard ({in_shard} items): median {wall_s:.1} ms; unfiltered list \
             of the same size (limit={in_shard}): median {wall_u:.1} ms; wall overhead {:+.1}%",
            (wall_s / wall_u - 1.0) * 100.0
        );
        if !ratios.is_empty() {
            println!(
                "  server CPU per list: shard {:.1} ms, unfiltered {:.1} ms; per-round CPU \
                 overhead median {:+.1}% (rounds: {})",
                median(cpu_s),
                median(cpu_u),
                (median(ratios.clone()) - 1.0) * 100.0,
                ratios
                    .iter()
                    .map(|r| format!("{:+.0}%", (r - 1.0) * 100.0))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
        let (paged_shard, kept, _) = lists
            .paged(PATH, 500, &format!("&shardSelector={shard}"), 5)
            .await;
        println!(
            "list 1-of-4 uid shard paged by 500 ({kept} items, all {walked} keys examined): \
             median {:.1} ms for all pages",
            median(paged_shard)
        );
        let (labels, _, _) = lists
            .batch(&[format!("{PATH}?labelSelector=absent%3Dx")], 5)
            .await;
        println!(
            "list with a label selector matching nothing (all decoded, none answered): median \
             {:.1} ms",
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

/// Timed lists on one connection.
struct Lists {
    target: Arc<Target>,
    pid: Option<String>,
}

impl Lists {
    /// `times` lists of each path in turn: the wall time of each (ms), the item count of the
    /// last, and the server's CPU time over the whole batch (ms) when its pid is known.
    async fn batch(&self, paths: &[String], times: usize) -> (Vec<f64>, usize, Option<f64>) {
        let mut sender = self.target.connect().await;
        let cpu_before = self.pid.as_deref().and_then(cpu_ms);
        let mut walls = Vec::new();
        let mut items = 0;
        for _ in 0..times {
            for path in paths {
                let start = Instant::now();
                let (code, body) = self.target.send(&mut sender, "GET", path, None).await;
                assert_eq!(code, 200, "{path}");
                walls.push(start.elapsed().as_secs_f64() * 1000.0);
                items = serde_json::from_slice::<Value>(&body).expect("a list")["items"]
                    .as_array()
                    .map_or(0, Vec::len);
            }
        }
        let cpu = cpu_before.zip(self.pid.as_deref().and_then(cpu_ms));
        (walls, items, cpu.map(|(a, b)| b - a))
    }

    /// `times` walks of every page of `path` (`limit` per page, `extra` query appended): the
    /// wall time of each walk (ms), the items of the last, and the server's CPU time.
    async fn paged(
        &self,
        path: &str,
        limit: usize,
        extra: &str,
        times: usize,
    ) -> (Vec<f64>, usize, Option<f64>) {
        let mut sender = self.target.connect().await;
        let cpu_before = self.pid.as_deref().and_then(cpu_ms);
        let mut walls = Vec::new();
        let mut count = 0;
        for _ in 0..times {
            let start = Instant::now();
            let mut cont = String::new();
            count = 0;
            loop {
                let page_path = format!("{path}?limit={limit}&continue={cont}{extra}");
                let (code, body) = self.target.send(&mut sender, "GET", &page_path, None).await;
                assert_eq!(code, 200, "{page_path}");
                let page: Value = serde_json::from_slice(&body).expect("a page");
                count += page["items"].as_array().map_or(0, Vec::len);
                match page["metadata"]["continue"].as_str() {
                    Some(c) => cont = c.to_owned(),
                    None => break,
                }
            }
            walls.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        let cpu = cpu_before.zip(self.pid.as_deref().and_then(cpu_ms));
        (walls, count, cpu.map(|(a, b)| b - a))
    }
}

/// How many rounds of alternating sharded and unfiltered batches to run:
/// `KCEL_LOADGEN_SHARD_ROUNDS` (at least 1), 5 by default.
fn shard_rounds() -> usize {
    std::env::var("KCEL_LOADGEN_SHARD_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5)
        .max(1)
}
