//! What every request handler shares: the store, credentials, metrics, the authorizer and
//! the feature gates. Below the routes, the authentication middleware and the server that
//! builds it.

use std::sync::Arc;

use crate::storage::Storage;

/// What every request handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The object store.
    pub store: Arc<dyn Storage>,
    /// The admin bearer token.
    pub token: Arc<str>,
    /// `host:port` clients reach the server at (for discovery).
    pub address: Arc<str>,
    /// Log verbosity (the server's `--v` option).
    pub verbosity: u8,
    /// Request and storage metrics (`/metrics`).
    pub metrics: Arc<crate::metrics::Metrics>,
    /// The users of the token file, by token.
    pub users: Arc<std::collections::HashMap<String, crate::access_request::User>>,
    /// The authorizer.
    pub authz: Arc<crate::authz::Authz>,
    /// Impersonation's memory of the modes that succeeded.
    pub impersonation: Arc<crate::impersonation::Impersonation>,
    /// The feature gates in effect.
    pub features: crate::features::FeatureGates,
    /// The admission policies in effect, and the audit log.
    pub admission: Arc<crate::admission::policies::Admission>,
    /// The custom resources this server serves (its established CRDs).
    pub crds: Arc<crate::crd::Crds>,
    /// The ranges Services get cluster IPs and node ports from.
    pub services: Arc<crate::service_network::ServiceNetwork>,
}
