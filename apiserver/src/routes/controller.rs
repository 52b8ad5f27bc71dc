//! The loop shared by the controllers the server runs in-process, as kube-controller-manager
//! runs them beside kube-apiserver (the garbage collector, the clusterrole-aggregation
//! controller): a pass after each (re)start of a storage watch — which catches what happened
//! before it — then after every change that concerns the controller, and again soon while a
//! pass leaves work or fails.

use std::future::Future;
use std::time::Duration;

use super::call::storage;
use crate::error::ApiError;
use crate::state::AppState;
use crate::storage::WatchEvent;

/// How soon a pass that left work (or failed) is repeated when no change triggers one before.
const RETRY_INTERVAL: Duration = Duration::from_millis(500);

/// A controller: its passes and the changes that call for one.
pub(super) trait Controller: Send {
    /// The controller's name in log lines.
    const NAME: &'static str;

    /// One pass over the stored objects: whether work is left (repeat soon).
    fn pass(&mut self, state: &AppState) -> impl Future<Output = Result<bool, ApiError>> + Send;

    /// Whether a change may give the controller work.
    fn concerns(&self, event: &WatchEvent) -> bool;
}

/// Runs `controller` on the keys under `prefix` until the server's storage goes away.
pub(super) async fn run<C: Controller>(state: AppState, prefix: String, mut controller: C) {
    loop {
        let watched = prefix.clone();
        let mut watch = match storage(&state, move |s| s.watch(&watched, None)).await {
            Ok(Ok(w)) => w,
            Ok(Err(e)) => {
                eprintln!("kcel-apiserver: {}: watching: {e}", C::NAME);
                tokio::time::sleep(RETRY_INTERVAL * 4).await;
                continue;
            }
            Err(_) => return,
        };
        let mut due = true;
        loop {
            if due {
                due = controller.pass(&state).await.unwrap_or_else(|e| {
                    eprintln!("kcel-apiserver: {}: {}", C::NAME, e.message);
                    true
                });
            }
            let event = if due {
                match tokio::time::timeout(RETRY_INTERVAL, watch.recv()).await {
                    Ok(event) => event.map(Some),
                    Err(_) => Some(None),
                }
            } else {
                watch.recv().await.map(Some)
            };
            let Some(event) = event else {
                break; // the storage watch ended: start another
            };
            due |= event.is_some_and(|e| controller.concerns(&e));
            for e in watch.drain() {
                due |= controller.concerns(&e);
            }
        }
    }
}
