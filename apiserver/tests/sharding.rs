//! Sharded list and watch (KEP-5866) over HTTPS: the `ShardedListAndWatch` gate, `shardInfo`,
//! the bad-selector answer, watch filtering and its metrics, kubectl's `get --raw`, and the
//! port of upstream's e2e test with the official Python client (`tests/sharding.py`).

mod support;

use std::process::Command;
use std::time::Duration;

use kcel_stdlib::kubernetes::sharding::ShardSelector;
use serde_json::{Value, json};
use support::{Server, real_client, run_bounded};

const GATE: &str = "--feature-gates=ShardedListAndWatch=true";
const CMS: &str = "/api/v1/namespaces/default/configmaps";
const FIRST_HALF: &str =
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";

fn query(selector: &str) -> String {
    let mut out = String::new();
    for b in selector.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

async fn create_configmaps(server: &Server, count: usize) -> Vec<Value> {
    let mut made = Vec::new();
    for i in 0..count {
        let r = server
            .send(
                "POST",
                CMS,
                Some(&json!({"metadata": {"name": format!("cm-{i:02}")}})),
            )
            .await;
        assert_eq!(r.code, 201, "{}", r.text());
        made.push(r.json());
    }
    made
}

fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn without_the_gate_the_selector_is_ignored() {
    let server = Server::start(&[]);
    create_configmaps(&server, 6).await;
    let bad = query("shardRange(object.metadata.uid, '0x0', '0x8')");
    let r = server
        .send("GET", &format!("{CMS}?shardSelector={bad}"), None)
        .await;
    assert_eq!(r.code, 200, "{}", r.text());
    let list = r.json();
    assert_eq!(names(&list).len(), 6);
    assert!(list["metadata"].get("shardInfo").is_none(), "{list}");
}

#[tokio::test]
async fn lists_filter_by_shard_and_echo_the_canonical_selector() {
    let server = Server::start(&[GATE]);
    let made = create_configmaps(&server, 16).await;
    let selector = ShardSelector::parse(FIRST_HALF).unwrap();
    let want: Vec<String> = made
        .iter()
        .filter(|o| selector.matches(o.as_object().unwrap()))
        .map(|o| o["metadata"]["name"].as_str().unwrap().to_owned())
        .collect();
    // Sent with other spacing: the echo is the canonical text.
    let spaced = "shardRange( object.metadata.uid,'0x0000000000000000' , '0x8000000000000000')";
    let r = server
        .send(
            "GET",
            &format!("{CMS}?shardSelector={}", query(spaced)),
            None,
        )
        .await;
    assert_eq!(r.code, 200, "{}", r.text());
    let list = r.json();
    assert_eq!(names(&list), want);
    assert_eq!(
        list["metadata"]["shardInfo"],
        json!({"selector": FIRST_HALF})
    );
    // Pages: the same set; no remainingItemCount (a filtered list does not know it).
    let mut paged = Vec::new();
    let mut cont = String::new();
    loop {
        let r = server
            .send(
                "GET",
                &format!(
                    "{CMS}?limit=3&shardSelector={}&continue={cont}",
                    query(FIRST_HALF)
                ),
                None,
            )
            .await;
        assert_eq!(r.code, 200, "{}", r.text());
        let page = r.json();
        assert!(
            page["metadata"].get("remainingItemCount").is_none(),
            "{page}"
        );
        assert_eq!(page["metadata"]["shardInfo"]["selector"], FIRST_HALF);
        paged.extend(names(&page));
        match page["metadata"]["continue"].as_str() {
            Some(c) => cont = c.to_owned(),
            None => break,
        }
    }
    assert_eq!(paged, want);
    // The complement has the rest.
    let other = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')";
    let rest = server
        .send(
            "GET",
            &format!("{CMS}?shardSelector={}", query(other)),
            None,
        )
        .await
        .json();
    assert_eq!(names(&rest).len() + want.len(), 16);
    // Tables carry no shardInfo (upstream copies resourceVersion, continue and
    // remainingItemCount only), but are filtered.
    let table = server
        .send_with(
            "GET",
            &format!("{CMS}?shardSelector={}", query(FIRST_HALF)),
            None,
            &[("accept", "application/json;as=Table;v=v1;g=meta.k8s.io")],
        )
        .await
        .json();
    assert_eq!(table["rows"].as_array().unwrap().len(), want.len());
    assert!(table["metadata"].get("shardInfo").is_none());
}

#[tokio::test]
async fn a_bad_selector_is_a_bad_request_with_upstreams_message() {
    let server = Server::start(&[GATE]);
    for (selector, message) in [
        (
            "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
            "invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got \"0x0\" (did you mean \"0x0000000000000000\"?)",
        ),
        (
            "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')",
            "invalid shard selector: unsupported field path \"object.metadata.name\"; supported: object.metadata.uid, object.metadata.namespace",
        ),
        (
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') && true",
            "invalid shard selector: unsupported function \"_&&_\"; only shardRange() and || are allowed",
        ),
    ] {
        for watch in ["", "&watch=true"] {
            let r = server
                .send(
                    "GET",
                    &format!("{CMS}?shardSelector={}{watch}", query(selector)),
                    None,
                )
                .await;
            assert_eq!(r.code, 400, "{}", r.text());
            let status = r.json();
            assert_eq!(status["reason"], "BadRequest");
            assert_eq!(status["message"], message);
        }
    }
}

fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(name))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

#[tokio::test]
async fn watches_drop_out_of_shard_events_and_count_them() {
    let server = Server::start(&[GATE]);
    let made = create_configmaps(&server, 8).await;
    let selector = ShardSelector::parse(FIRST_HALF).unwrap();
    let inside: Vec<&Value> = made
        .iter()
        .filter(|o| selector.matches(o.as_object().unwrap()))
        .collect();
    let outside = made.len() - inside.len();
    // A streaming list: the initial events are filtered, the bookmark is not.
    let (code, mut body) = server
        .stream(&format!(
            "{CMS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan\
             &allowWatchBookmarks=true&timeoutSeconds=20&shardSelector={}",
            query(FIRST_HALF)
        ))
        .await;
    assert_eq!(code, 200);
    let initial = support::read_events(&mut body, inside.len() + 1).await;
    let added: Vec<&str> = initial[..inside.len()]
        .iter()
        .map(|e| {
            assert_eq!(e["type"], "ADDED");
            e["object"]["metadata"]["name"].as_str().unwrap()
        })
        .collect();
    let want: Vec<&str> = inside
        .iter()
        .map(|o| o["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(added, want);
    assert_eq!(initial[inside.len()]["type"], "BOOKMARK");
    assert_eq!(
        initial[inside.len()]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
        "true"
    );
    let metrics = server.send("GET", "/metrics", None).await.text();
    assert_eq!(
        metric(
            &metrics,
            "apiserver_watch_shards_total{group=\"\",resource=\"configmaps\"}"
        ),
        Some(1.0),
        "{metrics}"
    );
    assert_eq!(
        metric(
            &metrics,
            "apiserver_watch_filtered_events_total{group=\"\",resource=\"configmaps\"}"
        ),
        Some(outside as f64)
    );
    // Changes to every object: only the in-shard ones arrive, in order.
    for o in &made {
        let name = o["metadata"]["name"].as_str().unwrap();
        let r = server
            .send_with(
                "PATCH",
                &format!("{CMS}/{name}"),
                Some(br#"{"data":{"x":"1"}}"#.to_vec()),
                &[("content-type", "application/merge-patch+json")],
            )
            .await;
        assert_eq!(r.code, 200, "{}", r.text());
    }
    let modified = support::read_events(&mut body, inside.len()).await;
    let got: Vec<(&str, &str)> = modified
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap(),
                e["object"]["metadata"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    let want_modified: Vec<(&str, &str)> = want.iter().map(|n| ("MODIFIED", *n)).collect();
    assert_eq!(got, want_modified);
    drop(body);
    // The gauge goes back down once the watch is gone.
    let mut gauge = None;
    for _ in 0..50 {
        let metrics = server.send("GET", "/metrics", None).await.text();
        gauge = metric(
            &metrics,
            "apiserver_watch_shards_total{group=\"\",resource=\"configmaps\"}",
        );
        if gauge == Some(0.0) {
            break;
        }
        // The server notices the closed connection at its next write to it.
        server
            .send_with(
                "PATCH",
                &format!("{CMS}/cm-00"),
                Some(br#"{"data":{"y":"2"}}"#.to_vec()),
                &[("content-type", "application/merge-patch+json")],
            )
            .await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(gauge, Some(0.0));
}

/// kubectl 1.37 has no flag for shard selectors; `get --raw` sends one.
#[test]
fn kubectl_get_raw_with_a_shard_selector() {
    let Some(kubectl) = real_client(
        "KCEL_KUBECTL",
        "kubectl",
        "kubectl_get_raw_with_a_shard_selector",
    ) else {
        return;
    };
    let server = Server::start(&[GATE]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(create_configmaps(&server, 4));
    let run = |args: &[&str]| {
        let mut command = Command::new(&kubectl);
        command
            .env("KUBECONFIG", server.data_dir().join("kubeconfig"))
            .args(args);
        run_bounded(command, None, Duration::from_secs(60))
    };
    let all = format!(
        "{CMS}?shardSelector={}",
        query("shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')")
    );
    let ran = run(&["get", "--raw", &all]);
    assert_eq!(ran.code, 0, "{ran:?}");
    let list: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(names(&list).len(), 4);
    assert_eq!(
        list["metadata"]["shardInfo"]["selector"],
        "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')"
    );
    let bad = format!(
        "{CMS}?shardSelector={}",
        query("shardRange(object.metadata.uid, 0, 8)")
    );
    let ran = run(&["get", "--raw", &bad]);
    assert_ne!(ran.code, 0);
    assert!(
        ran.stderr.contains(
            "Error from server (BadRequest): invalid shard selector: hexStart must be a string literal, got int64"
        ),
        "{ran:?}"
    );
}

#[test]
fn the_python_client_partitions_lists_and_watches_by_shard() {
    let Some(python) =
        support::Python::find("the_python_client_partitions_lists_and_watches_by_shard")
    else {
        return;
    };
    let server = Server::start(&[GATE]);
    let ran = python.run(
        &server,
        "sharding.py",
        &[],
        std::time::Duration::from_secs(180),
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(
        ran.stdout,
        "ok uid shards partition the list\nok complementary watches partition events\n\
         ok bad selector\n",
        "{ran:?}"
    );
}
