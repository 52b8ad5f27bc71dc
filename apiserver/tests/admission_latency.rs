//! Request latency with 0, 10 and 100 bound ValidatingAdmissionPolicies (issue 21's
//! benchmark), run by hand (bounded: 200 creates per configuration, each over a new HTTPS
//! connection as the test client makes them):
//!
//! ```text
//! cargo test -p kcel-apiserver --test admission_latency -- --ignored --nocapture
//! ```
//!
//! Every policy matches ConfigMap creates and evaluates one expression, so with 100 bound
//! policies each create evaluates 100 programs. Prints p50 and p99 per configuration; the
//! figures go to BENCHMARKS.md with the build and the machine's load.

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::Server;

const REQUESTS: usize = 200;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

#[tokio::test]
#[ignore = "a benchmark, run by hand"]
async fn create_latency_with_0_10_and_100_bound_policies() {
    let server = Server::start(&["--storage", "memory"]);
    let mut bound = 0;
    for target in [0usize, 10, 100] {
        while bound < target {
            let name = format!("p{bound}");
            let policy = json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicy",
                "metadata": {"name": name},
                "spec": {
                    "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                        "operations": ["CREATE"], "resources": ["configmaps"]}]},
                    "validations": [{"expression": format!("!has(object.data) || object.data.size() < {}", 100 + bound)}]
                }
            });
            let reply = server
                .send(
                    "POST",
                    "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
                    Some(&policy),
                )
                .await;
            assert_eq!(reply.code, 201, "{}", reply.text());
            let binding = json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicyBinding",
                "metadata": {"name": format!("{name}-b")},
                "spec": {"policyName": name, "validationActions": ["Deny"]}
            });
            let reply = server
                .send(
                    "POST",
                    "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
                    Some(&binding),
                )
                .await;
            assert_eq!(reply.code, 201, "{}", reply.text());
            bound += 1;
        }
        let mut times = Vec::with_capacity(REQUESTS);
        for i in 0..REQUESTS {
            let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": format!("cm-{target}-{i}")}, "data": {"a": "b"}});
            let start = Instant::now();
            let reply = server
                .send("POST", "/api/v1/namespaces/default/configmaps", Some(&cm))
                .await;
            times.push(start.elapsed());
            assert_eq!(reply.code, 201, "{}", reply.text());
        }
        times.sort();
        println!(
            "{target:>3} bound policies: p50 {:.2} ms, p99 {:.2} ms ({REQUESTS} creates)",
            percentile(&times, 0.50).as_secs_f64() * 1000.0,
            percentile(&times, 0.99).as_secs_f64() * 1000.0,
        );
    }
    // Every policy refuses 250 keys: the request is denied (by the first, as upstream reports).
    let big: serde_json::Map<String, serde_json::Value> =
        (0..250).map(|i| (format!("k{i}"), json!("v"))).collect();
    let cm =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"}, "data": big});
    let reply = server
        .send("POST", "/api/v1/namespaces/default/configmaps", Some(&cm))
        .await;
    assert_eq!(reply.code, 422, "{}", reply.text());
}
