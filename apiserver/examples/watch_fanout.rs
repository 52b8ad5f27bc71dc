//! Watch fan-out latency: N watchers of ConfigMaps on one running server (each on its own
//! HTTPS connection), then M ConfigMap creates one after another; prints p50/p99 of the time
//! from the start of each create to its ADDED event at each watcher (N × M samples).
//!
//! ```text
//! cargo run --release -p kcel-apiserver -- --data-dir /tmp/d --listen 127.0.0.1:6443 &
//! cargo run --release -p kcel-apiserver --example watch_fanout -- /tmp/d/kubeconfig 1000 100 [PAUSE_MS]
//! ```
//! Arguments: the kubeconfig the server wrote, the number of watchers, the number of writes,
//! and the pause after each write (default 20 ms; long enough, each write's fan-out is
//! measured on its own).
//! Requests go to 127.0.0.1 only; the run is bounded (each watcher stops after M events or
//! 120 seconds).

mod support;

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use serde_json::{Value, json};
use support::Target;

const PATH: &str = "/api/v1/namespaces/fanout/configmaps";

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: watch_fanout KUBECONFIG WATCHERS WRITES [PAUSE_MS]");
        std::process::exit(2);
    }
    let target = Arc::new(Target::from_kubeconfig(&args[1]));
    let watchers: usize = args[2].parse().expect("WATCHERS is a number");
    let writes: usize = args[3].parse().expect("WRITES is a number");
    let pause = Duration::from_millis(args.get(4).map_or(20, |p| p.parse().expect("PAUSE_MS")));
    let mut sender = target.connect().await;
    let (code, _) = target
        .send(
            &mut sender,
            "POST",
            "/api/v1/namespaces",
            Some(json!({"metadata": {"name": "fanout"}})),
        )
        .await;
    assert!(code == 201 || code == 409, "namespace: {code}");
    let (code, body) = target.send(&mut sender, "GET", PATH, None).await;
    assert_eq!(code, 200);
    let list: Value = serde_json::from_slice(&body).expect("a list");
    let rv = list["metadata"]["resourceVersion"]
        .as_str()
        .expect("a resourceVersion")
        .to_owned();
    let run = std::process::id();
    let sent: Arc<Vec<OnceLock<Instant>>> =
        Arc::new((0..writes).map(|_| OnceLock::new()).collect());
    let mut tasks = tokio::task::JoinSet::new();
    let started = Instant::now();
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel::<()>(watchers);
    for _ in 0..watchers {
        let (target, sent, ready) = (target.clone(), sent.clone(), ready_tx.clone());
        let path = format!("{PATH}?watch=true&resourceVersion={rv}&timeoutSeconds=120");
        tasks.spawn(async move {
            let mut sender = target.connect().await;
            let (code, mut body) = target.stream(&mut sender, &path).await;
            assert_eq!(code, 200);
            let _ = ready.send(()).await;
            let mut latencies = Vec::with_capacity(writes);
            let mut buffer = Vec::new();
            let deadline = Instant::now() + Duration::from_secs(120);
            while latencies.len() < writes && Instant::now() < deadline {
                let Ok(Some(Ok(frame))) =
                    tokio::time::timeout(Duration::from_secs(30), body.frame()).await
                else {
                    break;
                };
                let now = Instant::now();
                if let Ok(data) = frame.into_data() {
                    buffer.extend_from_slice(&data);
                }
                while let Some(end) = buffer.iter().position(|b| *b == b'\n') {
                    let line: Vec<u8> = buffer.drain(..=end).collect();
                    let event: Value = serde_json::from_slice(&line).expect("an event");
                    let name = event["object"]["metadata"]["name"].as_str().unwrap_or("");
                    let index = name
                        .rsplit('-')
                        .next()
                        .and_then(|i| i.parse::<usize>().ok());
                    if let Some(at) = index.and_then(|i| sent.get(i)).and_then(OnceLock::get) {
                        latencies.push(now - *at);
                    }
                }
            }
            latencies
        });
    }
    drop(ready_tx);
    for _ in 0..watchers {
        ready_rx.recv().await.expect("every watcher started");
    }
    println!(
        "{watchers} watchers open in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let writing = Instant::now();
    for i in 0..writes {
        let name = format!("f{run}-{i}");
        sent[i].set(Instant::now()).expect("set once");
        let (code, _) = target
            .send(
                &mut sender,
                "POST",
                PATH,
                Some(json!({"metadata": {"name": name}, "data": {"k": "v".repeat(64)}})),
            )
            .await;
        assert_eq!(code, 201, "create {name}");
        // Paced, so that each write's fan-out is measured on its own.
        tokio::time::sleep(pause).await;
    }
    let mut all = Vec::new();
    let mut short = 0;
    while let Some(latencies) = tasks.join_next().await {
        let latencies = latencies.expect("a watcher task");
        if latencies.len() < writes {
            short += 1;
        }
        all.extend(latencies);
    }
    println!(
        "{writes} writes in {:.1} s; {} events delivered ({} expected), {short} watchers short",
        writing.elapsed().as_secs_f64(),
        all.len(),
        watchers * writes
    );
    support::report("fan-out", all, writing.elapsed());
}
