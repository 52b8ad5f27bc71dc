//! Resource versions and chunked lists over HTTPS, as the API Concepts document describes them
//! and kube-apiserver's storage layer checks them (k8s.io/apiserver `pkg/storage`
//! `interfaces.go` `ValidateListOptions`, `continue.go`, `etcd3/store.go` `GetList`,
//! `etcd3/errors.go`): one snapshot for every page, `remainingItemCount`, the legacy
//! `resourceVersion` + `limit` snapshot, and upstream's 400 and 410 texts. Run against both
//! backends.

mod support;

use serde_json::{Value, json};
use support::Server;

const CMS: &str = "/api/v1/namespaces/default/configmaps";

#[cfg(feature = "etcd")]
#[path = "support/etcd.rs"]
mod etcd_process;

/// What keeps a backend alive beside the server (the etcd process for `etcd`).
#[cfg(feature = "etcd")]
type Keep = Option<etcd_process::Etcd>;
#[cfg(not(feature = "etcd"))]
type Keep = ();

/// A server on `backend` (`sqlite`, `memory`, or with the feature `etcd` a fresh etcd);
/// `None` when etcd is not installed (skipped visibly).
fn start(backend: &str, extra: &[&str]) -> Option<(Keep, Server)> {
    #[cfg(feature = "etcd")]
    if backend == "etcd" {
        let binary = etcd_process::binary("list semantics on etcd")?;
        let etcd = etcd_process::Etcd::start(&binary);
        let mut flags = vec!["--storage", "etcd", "--etcd-servers", etcd.url.as_str()];
        flags.extend_from_slice(extra);
        let server = Server::start(&flags);
        return Some((Some(etcd), server));
    }
    let mut flags = vec!["--storage", backend];
    flags.extend_from_slice(extra);
    #[cfg(feature = "etcd")]
    return Some((None, Server::start(&flags)));
    #[cfg(not(feature = "etcd"))]
    Some(((), Server::start(&flags)))
}

fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap().to_owned())
        .collect()
}

async fn create(server: &Server, name: &str) -> Value {
    let r = server
        .send("POST", CMS, Some(&json!({"metadata": {"name": name}})))
        .await;
    assert_eq!(r.code, 201, "{}", r.text());
    r.json()
}

async fn get_json(server: &Server, path: &str) -> Value {
    let r = server.send("GET", path, None).await;
    assert_eq!(r.code, 200, "{}", r.text());
    r.json()
}

fn assert_status(reply: &support::Reply, code: u16, reason: &str, message: &str) {
    assert_eq!(reply.code, code, "{}", reply.text());
    let status = reply.json();
    assert_eq!(status["kind"], "Status");
    assert_eq!(status["reason"], reason);
    assert_eq!(status["message"], message);
}

async fn pages_see_one_snapshot(backend: &str) {
    let Some((_etcd, server)) = start(backend, &[]) else {
        return;
    };
    for i in 0..10 {
        create(&server, &format!("c{i}")).await;
    }
    let first = get_json(&server, &format!("{CMS}?limit=3")).await;
    let snapshot = first["metadata"]["resourceVersion"].clone();
    assert_eq!(names(&first), ["c0", "c1", "c2"]);
    assert_eq!(first["metadata"]["remainingItemCount"], 7);
    let mut seen = names(&first);
    let mut token = first["metadata"]["continue"].as_str().unwrap().to_owned();
    let mut step = 0;
    loop {
        // Writes between the pages: a new object, a deleted one, a changed one.
        step += 1;
        create(&server, &format!("c{step}x")).await;
        let victim = format!("c{}", 3 + step);
        let r = server
            .send("DELETE", &format!("{CMS}/{victim}"), None)
            .await;
        assert!(r.code == 200 || r.code == 404, "{}", r.text());
        let page = get_json(&server, &format!("{CMS}?limit=3&continue={token}")).await;
        // Every page answers the first page's revision.
        assert_eq!(page["metadata"]["resourceVersion"], snapshot);
        let remaining = 10 - seen.len() - names(&page).len();
        match page["metadata"]["continue"].as_str() {
            Some(next) => {
                assert_eq!(page["metadata"]["remainingItemCount"], remaining, "{page}");
                seen.extend(names(&page));
                token = next.to_owned();
            }
            None => {
                assert!(page["metadata"].get("remainingItemCount").is_none());
                seen.extend(names(&page));
                break;
            }
        }
    }
    let want: Vec<String> = (0..10).map(|i| format!("c{i}")).collect();
    assert_eq!(seen, want, "the pages list the first page's snapshot");
    // A new list sees the writes.
    let now = get_json(&server, CMS).await;
    assert_ne!(now["metadata"]["resourceVersion"], snapshot);
    assert!(names(&now).contains(&"c1x".to_owned()));
}

#[tokio::test]
async fn sqlite_pages_see_one_snapshot() {
    pages_see_one_snapshot("sqlite").await;
}

#[tokio::test]
async fn memory_pages_see_one_snapshot() {
    pages_see_one_snapshot("memory").await;
}

#[cfg(feature = "etcd")]
#[tokio::test]
async fn etcd_pages_see_one_snapshot() {
    pages_see_one_snapshot("etcd").await;
}

async fn resource_versions_and_their_errors(backend: &str) {
    let Some((_etcd, server)) = start(backend, &["--compaction-interval-seconds", "0"]) else {
        return;
    };
    let a = create(&server, "a").await;
    let rv_a = a["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    create(&server, "b").await;
    // Legacy: resourceVersion with a limit reads that snapshot (upstream's GetList).
    let old = get_json(&server, &format!("{CMS}?resourceVersion={rv_a}&limit=10")).await;
    assert_eq!(names(&old), ["a"]);
    assert_eq!(old["metadata"]["resourceVersion"], rv_a.as_str());
    // Exact reads it too; NotOlderThan (and no match without a limit) reads the newest.
    let exact = get_json(
        &server,
        &format!("{CMS}?resourceVersion={rv_a}&resourceVersionMatch=Exact"),
    )
    .await;
    assert_eq!(names(&exact), ["a"]);
    for query in [
        format!("resourceVersion={rv_a}"),
        format!("resourceVersion={rv_a}&resourceVersionMatch=NotOlderThan&limit=10"),
        "resourceVersion=0&limit=10".to_owned(),
    ] {
        let now = get_json(&server, &format!("{CMS}?{query}")).await;
        assert_eq!(names(&now), ["a", "b"], "{query}");
    }
    let first = get_json(&server, &format!("{CMS}?limit=1")).await;
    let token = first["metadata"]["continue"].as_str().unwrap().to_owned();
    let r = server
        .send(
            "GET",
            &format!("{CMS}?limit=1&continue={token}&resourceVersion={rv_a}"),
            None,
        )
        .await;
    assert_status(
        &r,
        400,
        "BadRequest",
        "specifying resource version is not allowed when using continue",
    );
    let r = server
        .send("GET", &format!("{CMS}?limit=1&continue=x!"), None)
        .await;
    assert_status(
        &r,
        400,
        "BadRequest",
        "invalid continue token: continue key is not valid: illegal base64 data at input byte 1",
    );
    let r = server
        .send("GET", &format!("{CMS}?resourceVersion=abc"), None)
        .await;
    assert_status(
        &r,
        400,
        "BadRequest",
        "invalid resource version: resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax",
    );
    let r = server
        .send(
            "GET",
            &format!("{CMS}?resourceVersionMatch=Exact&resourceVersion=0"),
            None,
        )
        .await;
    assert_status(
        &r,
        422,
        "Invalid",
        "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
    );
    let r = server
        .send(
            "GET",
            &format!("{CMS}?resourceVersionMatch=Exact&continue={token}"),
            None,
        )
        .await;
    assert_eq!(r.code, 422, "{}", r.text());
    let far = "99999";
    let r = server
        .send("GET", &format!("{CMS}?resourceVersion={far}"), None)
        .await;
    assert_eq!(r.code, 504, "{}", r.text());
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("Timeout: Too large resource version: 99999, current: "),
        "{}",
        r.text()
    );
}

#[tokio::test]
async fn sqlite_resource_versions_and_their_errors() {
    resource_versions_and_their_errors("sqlite").await;
}

#[tokio::test]
async fn memory_resource_versions_and_their_errors() {
    resource_versions_and_their_errors("memory").await;
}

#[cfg(feature = "etcd")]
#[tokio::test]
async fn etcd_resource_versions_and_their_errors() {
    resource_versions_and_their_errors("etcd").await;
}

async fn compacted_snapshots_are_gone(backend: &str) {
    let Some((_etcd, server)) = start(backend, &["--etcd-compaction-interval=1s"]) else {
        return;
    };
    let a = create(&server, "a").await;
    let rv_a = a["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    create(&server, "b").await;
    let r = server.send("DELETE", &format!("{CMS}/a"), None).await;
    assert_eq!(r.code, 200);
    // Two ticks of the timer: the first notes the revision, the second compacts to it.
    let start = std::time::Instant::now();
    let gone = loop {
        let r = server
            .send(
                "GET",
                &format!("{CMS}?resourceVersion={rv_a}&resourceVersionMatch=Exact"),
                None,
            )
            .await;
        if r.code != 200 || start.elapsed().as_secs() > 15 {
            break r;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    assert_status(
        &gone,
        410,
        "Expired",
        "The resourceVersion for the provided list is too old.",
    );
    // The legacy snapshot read is the same read.
    let r = server
        .send(
            "GET",
            &format!("{CMS}?resourceVersion={rv_a}&limit=5"),
            None,
        )
        .await;
    assert_eq!(r.code, 410, "{}", r.text());
}

#[tokio::test]
async fn sqlite_compacted_snapshots_are_gone() {
    compacted_snapshots_are_gone("sqlite").await;
}

#[tokio::test]
async fn memory_compacted_snapshots_are_gone() {
    compacted_snapshots_are_gone("memory").await;
}

#[cfg(feature = "etcd")]
#[tokio::test]
async fn etcd_compacted_snapshots_are_gone() {
    compacted_snapshots_are_gone("etcd").await;
}

/// A filtered list reads storage in chunks and continues after the last key it examined,
/// so pages may come back short (or empty) with a continue token, as upstream's.
#[tokio::test]
async fn filtered_pages_continue_after_the_last_examined_key() {
    let server = Server::start(&["--storage", "memory"]);
    for i in 0..12 {
        let labels = if i % 4 == 0 {
            json!({"pick": "yes"})
        } else {
            json!({})
        };
        let r = server
            .send(
                "POST",
                CMS,
                Some(&json!({"metadata": {"name": format!("f{i:02}"), "labels": labels}})),
            )
            .await;
        assert_eq!(r.code, 201);
    }
    let mut seen = Vec::new();
    let mut cont = String::new();
    for _ in 0..20 {
        let page = get_json(
            &server,
            &format!("{CMS}?labelSelector=pick%3Dyes&limit=2&continue={cont}"),
        )
        .await;
        assert!(page["metadata"].get("remainingItemCount").is_none());
        seen.extend(names(&page));
        match page["metadata"]["continue"].as_str() {
            Some(c) => cont = c.to_owned(),
            None => break,
        }
    }
    assert_eq!(seen, ["f00", "f04", "f08"]);
}

/// Streaming lists with the official Python client (`tests/watch_list.py`).
#[test]
fn the_python_client_streams_a_list_with_its_end_bookmark() {
    let Some(python) = support::real_client(
        "KCEL_PYTHON",
        "python",
        "the_python_client_streams_a_list_with_its_end_bookmark",
    ) else {
        return;
    };
    let server = Server::start(&[]);
    let mut command = std::process::Command::new(python);
    command
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/watch_list.py"))
        .arg(server.data_dir().join("kubeconfig"));
    let ran = support::run_bounded(command, None, std::time::Duration::from_secs(60));
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(ran.stdout, "ok watch list\n", "{ran:?}");
}
