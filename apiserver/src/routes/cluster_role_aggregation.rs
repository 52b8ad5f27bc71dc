//! The clusterrole-aggregation controller, run in-process as kube-controller-manager runs it
//! beside kube-apiserver (kubernetes `pkg/controller/clusterroleaggregation`): every
//! ClusterRole with an `aggregationRule` gets the rules of the ClusterRoles its selectors
//! pick written into its `rules` ([`crate::rbac::aggregation`]), so `kubectl get clusterrole
//! admin -o yaml` shows them.
//!
//! A pass reads every ClusterRole and writes those whose rules are out of date, through the
//! same path as API requests (admission included), as field manager
//! `clusterrole-aggregation-controller` (upstream writes by server-side apply; here the
//! managedFields entry is an Update). A pass runs at start until nothing is left to write,
//! then after every change of a ClusterRole (a storage watch of the ClusterRoles), and
//! again soon when a write failed. Nested aggregation (`edit` takes `view`, `admin` takes
//! `edit`) settles in one pass per level, each write triggering the next.

use super::call::{Part, storage};
use super::controller::{self, Controller};
use super::write::{WriteOptions, modify};
use crate::error::ApiError;
use crate::rbac::aggregation::out_of_date;
use crate::rbac::objects::Role;
use crate::resource::CLUSTERROLES;
use crate::state::AppState;
use crate::storage::{EventKind, RangeRequest, WatchEvent, keys};

/// The field manager of the controller's writes (upstream's).
const MANAGER: &str = "clusterrole-aggregation-controller";

/// At most this many passes at start (each level of nesting takes one).
const START_PASSES: usize = 8;

/// Brings every aggregated ClusterRole up to date before the server serves (a failed pass
/// is logged; the watch started by [`start`] retries).
pub async fn settle(state: &AppState) {
    for _ in 0..START_PASSES {
        match pass(state).await {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) => {
                eprintln!("kcel-apiserver: clusterrole aggregation: {}", e.message);
                return;
            }
        }
    }
}

/// Starts the controller in the background.
pub fn start(state: AppState) {
    let prefix = keys::prefix(CLUSTERROLES.plural, None);
    tokio::spawn(controller::run(state, prefix, Aggregation));
}

/// The controller: it keeps nothing between passes.
struct Aggregation;

impl Controller for Aggregation {
    const NAME: &'static str = "clusterrole aggregation";

    /// Its own writes trigger the next pass, so none is left to repeat.
    async fn pass(&mut self, state: &AppState) -> Result<bool, ApiError> {
        pass(state).await.map(|_| false)
    }

    fn concerns(&self, event: &WatchEvent) -> bool {
        event.kind != EventKind::Progress
    }
}

/// One pass: the number of ClusterRoles written.
async fn pass(state: &AppState) -> Result<usize, ApiError> {
    let request = RangeRequest::prefix(keys::prefix(CLUSTERROLES.plural, None));
    let range = storage(state, move |s| s.range(&request))
        .await?
        .map_err(|e| ApiError::from_storage(e, &CLUSTERROLES, ""))?;
    let roles: Vec<Role> = range
        .kvs
        .iter()
        .filter_map(|kv| serde_json::from_slice(&kv.value).ok())
        .collect();
    let stale = out_of_date(&roles);
    let mut written = 0;
    for (name, rules) in stale {
        let rules = serde_json::to_value(&rules).map_err(ApiError::internal)?;
        let key = keys::cluster(CLUSTERROLES.plural, &name);
        let options = WriteOptions {
            dry_run: false,
            manager: MANAGER,
            part: Part::All,
            update_managed_fields: true,
            subresource: None,
            warnings: None,
        };
        let result = modify(state, &CLUSTERROLES, &key, &name, options, |mut role| {
            role.insert("rules".to_owned(), rules.clone());
            Ok(role)
        })
        .await;
        match result {
            Ok(_) => written += 1,
            // Deleted since the read: nothing to aggregate.
            Err(e) if e.code == 404 => {}
            Err(e) => return Err(e),
        }
    }
    Ok(written)
}
