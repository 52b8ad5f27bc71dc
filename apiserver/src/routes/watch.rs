//! `?watch=true`: a chunked stream of JSON watch events (`{"type":..,"object":..}` per line).
//!
//! Without a resourceVersion (or with `0`) the stream starts with an `ADDED` event for every
//! object that exists; with `resourceVersion=N` it starts after N. `sendInitialEvents=true`
//! sends the current state first and, with `allowWatchBookmarks=true`, ends it with a
//! `BOOKMARK` annotated `k8s.io/initial-events-end: "true"` (what `kubectl wait` waits for).
//! Label and field selectors filter events, turning an object that starts or stops matching
//! into `ADDED` / `DELETED` as kube-apiserver's watch cache does (an object leaving the
//! selection is `DELETED` with its previous content at the event's resourceVersion). With
//! `ShardedListAndWatch` on, a `shardSelector` drops objects outside the shard (counted in
//! `apiserver_watch_filtered_events_total`); bookmarks are never filtered. The stream ends after
//! `timeoutSeconds` or when the client goes away. A bookmark carries the latest revision the
//! watch knows the store reached: its last event, or a later progress notification of etcd
//! passed on by the watch cache.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header::CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::call::{Call, selectors, storage};
use crate::error::ApiError;
use crate::negotiate::{self, Output};
use crate::object::{self, Object};
use crate::resource::Resource;
use crate::storage::{EventKind, RangeRequest, StorageError};
use crate::table;

/// The longest a watch stays open without `timeoutSeconds` (kube-apiserver's default
/// `--min-request-timeout`).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1800);

/// How often a watch that allows bookmarks gets one (upstream's cacher: about a minute).
const BOOKMARK_INTERVAL: Duration = Duration::from_secs(60);

/// The bookmark interval: [`BOOKMARK_INTERVAL`], or whole seconds from the environment
/// variable `KCEL_APISERVER_BOOKMARK_INTERVAL` (for tests; not a kube-apiserver setting).
fn bookmark_interval() -> Duration {
    std::env::var("KCEL_APISERVER_BOOKMARK_INTERVAL")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&s| s > 0)
        .map_or(BOOKMARK_INTERVAL, Duration::from_secs)
}

/// Encodes events for one watch: JSON objects or one-row Tables.
struct Encoder {
    crds: std::sync::Arc<crate::crd::Crds>,
    resource: &'static Resource,
    output: Output,
    first: bool,
}

impl Encoder {
    fn event(&mut self, kind: &str, object: &Object) -> Bytes {
        let object = match self.output {
            Output::Table(version) if kind != "BOOKMARK" => {
                let rv = object::meta_str(object, "resourceVersion");
                let t = crate::served::table(
                    &self.crds,
                    self.resource,
                    &[object],
                    json!({"resourceVersion": rv}),
                    version,
                    self.first,
                );
                self.first = false;
                t
            }
            Output::Metadata(version) if kind != "BOOKMARK" => {
                table::partial_metadata(object, version)
            }
            _ => Value::Object(object.clone()),
        };
        let mut line = serde_json::to_vec(&json!({"type": kind, "object": object}))
            .expect("events always serialize");
        line.push(b'\n');
        Bytes::from(line)
    }

    fn bookmark(&mut self, revision: i64, initial_end: bool) -> Bytes {
        let mut metadata =
            json!({"resourceVersion": revision.to_string(), "creationTimestamp": null});
        if initial_end {
            metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        let object: Object = serde_json::from_value(json!({
            "kind": self.resource.kind,
            "apiVersion": self.resource.api_version(),
            "metadata": metadata,
        }))
        .expect("a bookmark is an object");
        self.event("BOOKMARK", &object)
    }
}

/// `GET <collection>?watch=true`.
pub async fn watch(call: Call) -> Result<Response, ApiError> {
    let resource = call.resource;
    let output = negotiate::output(&call.headers, false)?;
    let (labels, fields) = selectors(&call)?;
    let shard = crate::shard::selector(&call.params, call.state.features)?;
    let param = |name: &str| call.params.get(name).map(String::as_str).unwrap_or("");
    let timeout = match param("timeoutSeconds") {
        "" => DEFAULT_TIMEOUT,
        text => Duration::from_secs(text.parse::<u64>().map_err(|_| {
            ApiError::bad_request(format!(
                "invalid timeoutSeconds {text:?}: must be an integer"
            ))
        })?),
    };
    let bookmarks = param("allowWatchBookmarks") == "true";
    let send_initial = match param("sendInitialEvents") {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    };
    crate::list_options::validate(&call.params, true)?;
    let rv = match param("resourceVersion") {
        "" | "0" => None,
        text => Some(text.parse::<i64>().map_err(|_| {
            ApiError::bad_request(format!(
                "invalid resource version {text:?}: must be an integer"
            ))
        })?),
    };
    let initial = send_initial.unwrap_or(rv.is_none());
    let prefix = call.prefix();
    let metrics = call.state.metrics.clone();
    // Upstream's cacher filter: the shard first (an object outside it counts as a filtered
    // event), then labels and fields. Bookmarks are never filtered.
    let passes = move |o: &Object| {
        if let Some(shard) = &shard
            && !shard.matches(o)
        {
            metrics.shard_filtered_event(resource);
            return false;
        }
        labels.matches(o) && fields.matches(o)
    };
    // Custom resources read in the version asked for (an object that cannot be read, say a
    // conversion webhook failing, ends the watch with an ERROR event, as upstream's watcher
    // sends its decode errors).
    let versions = crate::crd::Versions::of(&call.state.crds, resource);
    // The current state (for the initial events), then every change after it.
    let mut unreadable = None;
    let (items, from) = if initial {
        let mut request = RangeRequest::prefix(&prefix);
        // resourceVersion=0: any recent state, from the watch cache (upstream's cacher).
        request.any_recent = param("resourceVersion") == "0";
        let range = storage(&call.state, move |s| s.range(&request))
            .await?
            .map_err(|e| ApiError::from_storage(e, resource, ""))?;
        let mut items = Vec::new();
        for kv in &range.kvs {
            match versions.read(kv).await {
                Ok(o) if passes(&o) => items.push(o),
                Ok(_) => {}
                Err(e) => {
                    unreadable = Some(e);
                    break;
                }
            }
        }
        (items, range.revision.max(rv.unwrap_or(0)))
    } else {
        (Vec::new(), rv.unwrap_or(0))
    };
    let watch_prefix = prefix.clone();
    let mut events =
        match storage(&call.state, move |s| s.watch(&watch_prefix, Some(from + 1))).await? {
            Ok(events) => events,
            // Upstream answers a watch from a compacted revision with one ERROR event.
            Err(StorageError::Compacted {
                requested,
                compacted,
            }) => {
                let status = ApiError::expired(format!(
                    "too old resource version: {} ({compacted})",
                    requested - 1
                ))
                .to_status();
                let mut line = serde_json::to_vec(&json!({"type": "ERROR", "object": status}))
                    .expect("a status always serializes");
                line.push(b'\n');
                return Ok(stream_response(Body::from(line)));
            }
            Err(other) => return Err(ApiError::from_storage(other, resource, "")),
        };
    let (tx, rx) = mpsc::channel::<Bytes>(64);
    let mut encoder = Encoder {
        crds: call.state.crds.clone(),
        resource,
        output,
        first: true,
    };
    let sharded = ShardedWatch::start(&call, resource);
    tokio::spawn(async move {
        let _sharded = sharded;
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let mut last = from;
        for item in &items {
            if tx.send(encoder.event("ADDED", item)).await.is_err() {
                return;
            }
        }
        if let Some(e) = unreadable {
            let _ = tx.send(error_event(&e)).await;
            return;
        }
        if send_initial == Some(true) && bookmarks {
            let _ = tx.send(encoder.bookmark(from, true)).await;
        }
        let mut ticker = tokio::time::interval(bookmark_interval());
        ticker.tick().await;
        loop {
            tokio::select! {
                () = &mut deadline => break,
                () = tx.closed() => break,
                _ = ticker.tick(), if bookmarks => {
                    if tx.send(encoder.bookmark(last, false)).await.is_err() {
                        break;
                    }
                }
                event = events.recv() => {
                    let Some(event) = event else { break };
                    last = last.max(event.revision());
                    if event.kind == EventKind::Progress {
                        // The store reached `last` with nothing here: the next bookmark says so.
                        continue;
                    }
                    let old = match &event.prev {
                        Some(prev) => match versions.read(prev).await {
                            Ok(o) => Some(o),
                            Err(e) => {
                                let _ = tx.send(error_event(&e)).await;
                                break;
                            }
                        },
                        None => None,
                    };
                    let old_matches = old.as_ref().is_some_and(&passes);
                    let line = match event.kind {
                        EventKind::Put => {
                            let new = match versions.read(&event.kv).await {
                                Ok(o) => o,
                                Err(e) => {
                                    let _ = tx.send(error_event(&e)).await;
                                    break;
                                }
                            };
                            let new_matches = passes(&new);
                            match (old_matches, new_matches) {
                                (true, true) => encoder.event("MODIFIED", &new),
                                (false, true) => encoder.event("ADDED", &new),
                                (true, false) => {
                                    // Upstream: the previous object, at the event's revision.
                                    let Some(mut gone) = old else { continue };
                                    object::metadata_mut(&mut gone).insert(
                                        "resourceVersion".to_owned(),
                                        Value::from(event.revision().to_string()),
                                    );
                                    encoder.event("DELETED", &gone)
                                }
                                (false, false) => continue,
                            }
                        }
                        EventKind::Progress => continue,
                        EventKind::Delete => {
                            let Some(mut gone) = old else { continue };
                            if !old_matches {
                                continue;
                            }
                            object::metadata_mut(&mut gone).insert(
                                "resourceVersion".to_owned(),
                                Value::from(event.revision().to_string()),
                            );
                            encoder.event("DELETED", &gone)
                        }
                    };
                    if tx.send(line).await.is_err() {
                        break;
                    }
                }
            }
        }
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<_, Infallible>(b), rx))
    });
    Ok(stream_response(Body::from_stream(stream)))
}

/// An `ERROR` event carrying the failure's `Status`.
fn error_event(error: &ApiError) -> Bytes {
    let mut line = serde_json::to_vec(&json!({"type": "ERROR", "object": error.to_status()}))
        .expect("a status always serializes");
    line.push(b'\n');
    Bytes::from(line)
}

/// Counts an open sharded watch in `apiserver_watch_shards_total` while it lives.
struct ShardedWatch {
    metrics: std::sync::Arc<crate::metrics::Metrics>,
    resource: &'static Resource,
}

impl ShardedWatch {
    fn start(call: &Call, resource: &'static Resource) -> Option<ShardedWatch> {
        let sharded = call.state.features.sharded_list_and_watch
            && call
                .params
                .get(crate::shard::PARAM)
                .is_some_and(|s| !s.is_empty());
        sharded.then(|| {
            call.state.metrics.sharded_watch(resource, 1);
            ShardedWatch {
                metrics: call.state.metrics.clone(),
                resource,
            }
        })
    }
}

impl Drop for ShardedWatch {
    fn drop(&mut self) {
        self.metrics.sharded_watch(self.resource, -1);
    }
}

fn stream_response(body: Body) -> Response {
    let mut response = (StatusCode::OK, body).into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
