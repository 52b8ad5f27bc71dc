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
    let Some(python) =
        support::Python::find("the_python_client_streams_a_list_with_its_end_bookmark")
    else {
        return;
    };
    let server = Server::start(&[]);
    let ran = python.run(
        &server,
        "watch_list.py",
        &[],
        std::time::Duration::from_secs(60),
    );
    assert_eq!(ran.code, 0, "{ran:?}");
    assert_eq!(ran.stdout, "ok watch list\n", "{ran:?}");
}

/// `resourceVersion=0` lists are served from the watch cache, whole, at the revision the cache
/// has reached (k8s.io/apiserver `pkg/storage/cacher/cacher.go`, `shouldDelegateList`: "Serve
/// paginated requests about revision "0" from watch cache"; `GetList` sets no continue).
async fn any_recent_lists_come_from_the_watch_cache(backend: &str) {
    let Some((_keep, server)) = start(backend, &[]) else {
        return;
    };
    for name in ["a", "b"] {
        create(&server, name).await;
    }
    let c = create(&server, "c").await;
    let cached = get_json(&server, &format!("{CMS}?resourceVersion=0&limit=1")).await;
    assert_eq!(names(&cached), ["a", "b", "c"]);
    assert!(cached["metadata"].get("continue").is_none(), "{cached}");
    assert_eq!(
        cached["metadata"]["resourceVersion"],
        c["metadata"]["resourceVersion"]
    );
    // From storage, the same limit pages.
    let paged = get_json(&server, &format!("{CMS}?limit=1")).await;
    assert_eq!(names(&paged), ["a"]);
    assert!(paged["metadata"]["continue"].is_string());
    // A later write reaches the cache through its one storage watch.
    let d = create(&server, "d").await;
    let rv_d: i64 = d["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let start = std::time::Instant::now();
    loop {
        let list = get_json(&server, &format!("{CMS}?resourceVersion=0")).await;
        let rv: i64 = list["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        if names(&list) == ["a", "b", "c", "d"] && rv >= rv_d {
            break;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "the cache did not catch up: {list}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn sqlite_any_recent_lists_come_from_the_watch_cache() {
    any_recent_lists_come_from_the_watch_cache("sqlite").await;
}

#[tokio::test]
async fn memory_any_recent_lists_come_from_the_watch_cache() {
    any_recent_lists_come_from_the_watch_cache("memory").await;
}

#[cfg(feature = "etcd")]
#[tokio::test]
async fn etcd_any_recent_lists_come_from_the_watch_cache() {
    any_recent_lists_come_from_the_watch_cache("etcd").await;
}

/// A watch from a resourceVersion the cache's window has passed gets one ERROR event, 410
/// Expired, `too old resource version: <rv> (<oldest in the window - 1>)`
/// (k8s.io/apiserver `pkg/storage/cacher/watch_cache.go`, `getAllEventsSinceLocked`); one
/// from inside the window gets every later event.
async fn a_watch_behind_the_cache_window_is_gone(backend: &str) {
    use kcel_apiserver::storage::cache::RING_CAPACITY;
    let Some((_keep, server)) = start(backend, &["--compaction-interval-seconds", "0"]) else {
        return;
    };
    const WRITERS: usize = 4;
    for w in 0..WRITERS {
        create(&server, &format!("w{w}")).await;
    }
    // Starts the resource's cache.
    get_json(&server, &format!("{CMS}?resourceVersion=0")).await;
    let server = std::sync::Arc::new(server);
    let per_writer = RING_CAPACITY / WRITERS + 2;
    let tasks: Vec<_> = (0..WRITERS)
        .map(|w| {
            let server = server.clone();
            tokio::spawn(async move {
                let mut rvs = Vec::new();
                for i in 0..per_writer {
                    let r = server
                        .send_with(
                            "PATCH",
                            &format!("{CMS}/w{w}"),
                            Some(format!(r#"{{"data":{{"i":"{i}"}}}}"#).into_bytes()),
                            &[("content-type", "application/merge-patch+json")],
                        )
                        .await;
                    assert_eq!(r.code, 200, "{}", r.text());
                    let rv: i64 = r.json()["metadata"]["resourceVersion"]
                        .as_str()
                        .unwrap()
                        .parse()
                        .unwrap();
                    rvs.push(rv);
                }
                rvs
            })
        })
        .collect();
    let mut rvs = Vec::new();
    for task in tasks {
        rvs.extend(task.await.unwrap());
    }
    rvs.sort_unstable();
    // The window holds the last RING_CAPACITY events.
    let oldest = rvs[rvs.len() - RING_CAPACITY];
    let (code, mut watch) = server
        .stream(&format!(
            "{CMS}?watch=true&resourceVersion={}&timeoutSeconds=10",
            rvs[0]
        ))
        .await;
    assert_eq!(code, 200);
    let events = support::read_events(&mut watch, 1).await;
    assert_eq!(events[0]["type"], "ERROR");
    let status = &events[0]["object"];
    assert_eq!(status["code"], 410);
    assert_eq!(status["reason"], "Expired");
    assert_eq!(
        status["message"],
        format!("too old resource version: {} ({})", rvs[0], oldest - 1)
    );
    // From inside the window: every later event, in order.
    let inside = rvs[rvs.len() - RING_CAPACITY + 10];
    let (code, mut watch) = server
        .stream(&format!(
            "{CMS}?watch=true&resourceVersion={inside}&timeoutSeconds=10"
        ))
        .await;
    assert_eq!(code, 200);
    let later: Vec<i64> = rvs.iter().copied().filter(|&rv| rv > inside).collect();
    let events = support::read_events(&mut watch, later.len()).await;
    let seen: Vec<i64> = events
        .iter()
        .map(|e| {
            assert_eq!(e["type"], "MODIFIED");
            e["object"]["metadata"]["resourceVersion"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(seen, later);
}

#[tokio::test]
async fn sqlite_a_watch_behind_the_cache_window_is_gone() {
    a_watch_behind_the_cache_window_is_gone("sqlite").await;
}

#[tokio::test]
async fn memory_a_watch_behind_the_cache_window_is_gone() {
    a_watch_behind_the_cache_window_is_gone("memory").await;
}

#[cfg(feature = "etcd")]
#[tokio::test]
async fn etcd_a_watch_behind_the_cache_window_is_gone() {
    a_watch_behind_the_cache_window_is_gone("etcd").await;
}

/// SIGKILL of the server while clients write loses no acknowledged write: every 201 is read
/// back unchanged from a new server on the same store (the SQLite file, or the same etcd).
async fn sigkill_during_writes_loses_no_acknowledged_write(backend: &str) {
    let Some((keep, server)) = start(backend, &[]) else {
        return;
    };
    let server = std::sync::Arc::new(server);
    let acknowledged = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Value>::new()));
    let writers: Vec<_> = (0..4)
        .map(|client| {
            let (server, acknowledged) = (server.clone(), acknowledged.clone());
            tokio::spawn(async move {
                // Bounded: the server is killed long before.
                for i in 0..5_000 {
                    let body = json!({"metadata": {"name": format!("k{client}-{i}")}, "data": {"i": i.to_string()}});
                    let sent = server
                        .try_request(
                            "POST",
                            CMS,
                            Some(serde_json::to_vec(&body).unwrap()),
                            support::Auth::Admin,
                            &[("content-type", "application/json")],
                        )
                        .await;
                    match sent {
                        Ok(r) if r.code == 201 => acknowledged.lock().unwrap().push(r.json()),
                        _ => return,
                    }
                }
            })
        })
        .collect();
    let start = std::time::Instant::now();
    while acknowledged.lock().unwrap().len() < 60 {
        assert!(start.elapsed() < std::time::Duration::from_secs(60));
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    // SIGKILL with writes in flight (the shell's builtin kill).
    let status = std::process::Command::new("sh")
        .args(["-c", &format!("kill -KILL {}", server.pid())])
        .status()
        .unwrap();
    assert!(status.success());
    for writer in writers {
        writer.await.unwrap();
    }
    let acknowledged = std::mem::take(&mut *acknowledged.lock().unwrap());
    let dir = server.dir.clone();
    drop(server);
    let again = match backend {
        #[cfg(feature = "etcd")]
        "etcd" => {
            let etcd = keep.as_ref().expect("etcd runs beside the server");
            Server::start(&["--storage", "etcd", "--etcd-servers", etcd.url.as_str()])
        }
        _ => Server::start_in(dir, &["--storage", backend]),
    };
    let _ = &keep;
    for object in &acknowledged {
        let name = object["metadata"]["name"].as_str().unwrap();
        let got = again.send("GET", &format!("{CMS}/{name}"), None).await;
        assert_eq!(got.code, 200, "{name}: {}", got.text());
        assert_eq!(got.json(), *object);
    }
    eprintln!(
        "{backend}: {} acknowledged writes before SIGKILL, all read back",
        acknowledged.len()
    );
}

#[tokio::test]
async fn sqlite_sigkill_during_writes_loses_no_acknowledged_write() {
    sigkill_during_writes_loses_no_acknowledged_write("sqlite").await;
}

#[cfg(feature = "etcd")]
#[tokio::test]
async fn etcd_sigkill_during_writes_loses_no_acknowledged_write() {
    sigkill_during_writes_loses_no_acknowledged_write("etcd").await;
}
