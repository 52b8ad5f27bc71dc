//! Create throughput of custom resources whose CRD has 20 `x-kubernetes-validations` rules of
//! mixed kinds, side by side with the same objects in a CRD with the same schema and no
//! rules: the rules' share of request time. Also the cost of compiling the rules (paid once,
//! by the CRD write) against the first and later creates (the compile-once cache: no create
//! compiles anything).
//!
//! ```text
//! cargo run --release -p kcel-apiserver -- --data-dir /tmp/d --listen 127.0.0.1:6443 &
//! cargo run --release -p kcel-apiserver --example crd_load -- /tmp/d/kubeconfig 4 500 $PID 5
//! ```
//! Arguments: the kubeconfig the server wrote, the concurrent clients, the objects each
//! client creates per CRD and round; optionally the server's pid (then the server's CPU
//! time per create is read from `/proc`, the measure that load on the machine disturbs
//! least) and the rounds, which alternate the two CRDs. Requests go to 127.0.0.1 only.

mod support;

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use support::{Target, report};

/// The 20 rules: comparisons, string and list functions, macros over bounded lists and maps,
/// regexes, the Kubernetes quantity, URL and IP libraries, optionals, a messageExpression,
/// a transition rule (not run on create) and an int-or-string check.
fn rules() -> Vec<Value> {
    [
        "self.minReplicas <= self.maxReplicas",
        "self.maxReplicas <= 100",
        "self.name.startsWith('app-')",
        "self.name.size() <= 40",
        "self.name.matches('^[a-z0-9-]+$')",
        "self.image.contains(':')",
        "!self.image.endsWith(':latest')",
        "self.ports.all(p, p.port > 0 && p.port < 65536)",
        "self.ports.exists(p, p.name == 'http')",
        "self.ports.map(p, p.port).all(x, x != 22)",
        "self.labels.all(k, k.size() <= 63)",
        "!has(self.labels.forbidden)",
        "isQuantity(self.memory) && quantity(self.memory).compareTo(quantity('4Gi')) <= 0",
        "isURL(self.homepage) && url(self.homepage).getScheme() == 'https'",
        "isIP(self.address) && ip(self.address).family() == 4",
        "self.tags.size() == self.tags.map(t, t.lowerAscii()).size()",
        "type(self.surge) == int ? self.surge >= 0 : self.surge.endsWith('%')",
        "self.?owner.orValue('team') != ''",
        "self.weights.all(w, w >= 0.0 && w <= 1.0)",
        "self.name == oldSelf.name",
    ]
    .iter()
    .enumerate()
    .map(|(i, r)| {
        if i == 3 {
            json!({"rule": r, "messageExpression": "'name ' + self.name + ' is too long'"})
        } else {
            json!({"rule": r})
        }
    })
    .collect()
}

fn crd(plural: &str, kind: &str, with_rules: bool) -> Value {
    let mut spec = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 64},
            "image": {"type": "string", "maxLength": 128},
            "minReplicas": {"type": "integer"},
            "maxReplicas": {"type": "integer"},
            "ports": {"type": "array", "maxItems": 16, "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name", "port"], "properties": {
                    "name": {"type": "string", "maxLength": 16}, "port": {"type": "integer"}}}},
            "labels": {"type": "object", "maxProperties": 16,
                "additionalProperties": {"type": "string", "maxLength": 63}},
            "memory": {"type": "string", "maxLength": 16},
            "homepage": {"type": "string", "maxLength": 128},
            "address": {"type": "string", "maxLength": 45},
            "tags": {"type": "array", "maxItems": 8, "x-kubernetes-list-type": "set",
                "items": {"type": "string", "maxLength": 16}},
            "surge": {"x-kubernetes-int-or-string": true},
            "owner": {"type": "string", "maxLength": 32},
            "weights": {"type": "array", "maxItems": 8, "items": {"type": "number"}},
        }
    });
    if with_rules {
        spec["x-kubernetes-validations"] = Value::Array(rules());
    }
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.bench.example.com")},
        "spec": {
            "group": "bench.example.com",
            "scope": "Namespaced",
            "names": {"plural": plural, "kind": kind},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object",
                    "properties": {"spec": spec}}}}]
        }
    })
}

fn object(kind: &str, name: &str) -> Value {
    json!({
        "apiVersion": "bench.example.com/v1",
        "kind": kind,
        "metadata": {"name": name},
        "spec": {
            "name": format!("app-{name}"),
            "image": "registry.example.com/app:1.2.3",
            "minReplicas": 1,
            "maxReplicas": 5,
            "ports": [{"name": "http", "port": 8080}, {"name": "metrics", "port": 9090}],
            "labels": {"team": "blue", "tier": "web"},
            "memory": "512Mi",
            "homepage": "https://example.com/app",
            "address": "10.1.2.3",
            "tags": ["a", "b", "c"],
            "surge": "25%",
            "owner": "blue",
            "weights": [0.25, 0.75],
        }
    })
}

/// Creates `count` objects of `kind` at `path` from each of `clients` connections: the
/// latencies and the wall time.
async fn creates(
    target: &Arc<Target>,
    path: &str,
    kind: &'static str,
    clients: usize,
    count: usize,
    round: usize,
) -> (Vec<std::time::Duration>, std::time::Duration) {
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for client in 0..clients {
        let target = target.clone();
        let path = path.to_owned();
        tasks.spawn(async move {
            let mut sender = target.connect().await;
            let mut latencies = Vec::with_capacity(count);
            for i in 0..count {
                let t = Instant::now();
                let (code, body) = target
                    .send(
                        &mut sender,
                        "POST",
                        &path,
                        Some(object(kind, &format!("o-{round}-{client}-{i}"))),
                    )
                    .await;
                assert_eq!(code, 201, "{}", String::from_utf8_lossy(&body));
                latencies.push(t.elapsed());
            }
            latencies
        });
    }
    let mut all = Vec::new();
    while let Some(latencies) = tasks.join_next().await {
        all.extend(latencies.expect("a client task"));
    }
    (all, start.elapsed())
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: crd_load KUBECONFIG CLIENTS COUNT_PER_CLIENT [SERVER_PID [ROUNDS]]");
        std::process::exit(2);
    }
    let target = Arc::new(Target::from_kubeconfig(&args[1]));
    let clients: usize = args[2].parse().expect("CLIENTS is a number");
    let count: usize = args[3].parse().expect("COUNT_PER_CLIENT is a number");
    // With the server's pid: its CPU time per create, in rounds alternating the two CRDs.
    let pid = args.get(4).cloned();
    let rounds: usize = args
        .get(5)
        .map_or(1, |r| r.parse().expect("ROUNDS is a number"));
    let mut sender = target.connect().await;
    let kinds = [("plains", "Plain", false), ("ruled", "Ruled", true)];
    for (plural, kind, with_rules) in kinds {
        let t = Instant::now();
        let (code, body) = target
            .send(
                &mut sender,
                "POST",
                "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                Some(crd(plural, kind, with_rules)),
            )
            .await;
        assert_eq!(code, 201, "{}", String::from_utf8_lossy(&body));
        println!(
            "{kind:<6} CRD create (checks and compiles its rules): {:.2} ms",
            t.elapsed().as_secs_f64() * 1000.0
        );
        let path = format!("/apis/bench.example.com/v1/namespaces/default/{plural}");
        let t = Instant::now();
        let (code, body) = target
            .send(&mut sender, "POST", &path, Some(object(kind, "first")))
            .await;
        assert_eq!(code, 201, "{}", String::from_utf8_lossy(&body));
        println!(
            "{kind:<6} first create after it: {:.2} ms",
            t.elapsed().as_secs_f64() * 1000.0
        );
    }
    // Per CRD: the mean latency and the server's CPU milliseconds per create, per round.
    let mut means = [Vec::new(), Vec::new()];
    let mut cpu = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        for (k, (plural, kind, _)) in kinds.into_iter().enumerate() {
            let path = format!("/apis/bench.example.com/v1/namespaces/default/{plural}");
            let before = pid.as_deref().and_then(support::cpu_ms);
            let (all, elapsed) = creates(&target, &path, kind, clients, count, round).await;
            let after = pid.as_deref().and_then(support::cpu_ms);
            let n = all.len();
            means[k].push(all.iter().map(|d| d.as_secs_f64()).sum::<f64>() / n as f64);
            report(kind, all, elapsed);
            if let (Some(b), Some(a)) = (before, after) {
                let each = (a - b) / n as f64;
                println!(
                    "{kind:<8} server CPU {:.0} ms, {:.3} ms per create",
                    a - b,
                    each
                );
                cpu[k].push(each);
            }
        }
    }
    // Each round's share from its own pair of runs (the machine's load drifts between
    // rounds), then the median over rounds.
    let share = |pairs: &[Vec<f64>; 2]| {
        let shares: Vec<f64> = pairs[0]
            .iter()
            .zip(&pairs[1])
            .map(|(plain, ruled)| (1.0 - plain / ruled) * 100.0)
            .collect();
        (support::median(shares.clone()), shares)
    };
    let (median, shares) = share(&means);
    println!(
        "rules' share of a create's time over HTTP: median {median:.1}% over {rounds} rounds {shares:.1?}"
    );
    if !cpu[0].is_empty() {
        let (median, shares) = share(&cpu);
        println!(
            "rules' share of the server's CPU per create: median {median:.1}% over {rounds} rounds {shares:.1?} (CPU ms per create with rules {:.3?}, without {:.3?})",
            cpu[1], cpu[0]
        );
    }
    in_process(support::median(means[1].clone()));
}

/// The same validation in this process, without HTTP or storage: compiling each CRD's
/// rules once, then validating objects with the compiled validator (what the server does per
/// create), so the rules' cost is seen apart from the machine's noise.
fn in_process(request_seconds: f64) {
    use kcel_stdlib::kubernetes::crd::CrdValidator;
    const N: usize = 2000;
    let mut per_object = Vec::new();
    for (plural, kind, with_rules) in [("plains", "Plain", false), ("ruled", "Ruled", true)] {
        let crd = crd(plural, kind, with_rules);
        let t = Instant::now();
        let validator = CrdValidator::new(&crd).expect("a CRD");
        assert!(validator.schema_errors().is_empty());
        let compile = t.elapsed();
        let objects: Vec<Value> = (0..N).map(|i| object(kind, &format!("o-{i}"))).collect();
        let t = Instant::now();
        for o in &objects {
            let (decoded, _) = validator.decode(o).expect("served");
            let outcome = validator.validate(&decoded, None).expect("served");
            assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
        }
        let each = t.elapsed().as_secs_f64() / N as f64;
        println!(
            "{kind:<6} in process: compile {:.2} ms once; decode + validate {:.1} µs per object",
            compile.as_secs_f64() * 1000.0,
            each * 1e6
        );
        per_object.push(each);
    }
    let rules = per_object[1] - per_object[0];
    println!(
        "the 20 rules cost {:.1} µs per object: {:.1}% of the mean create with rules above",
        rules * 1e6,
        rules / request_seconds * 100.0
    );
}
