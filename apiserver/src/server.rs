//! Starting the server: data directory, certificates, token, storage, kubeconfig, and the
//! TLS accept loop.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

pub use crate::state::AppState;
use crate::storage::memory::MemoryStorage;
use crate::storage::sqlite::SqliteStorage;
use crate::storage::{Storage, StorageError};
use crate::{auth, kubeconfig, pki, routes};

/// How long a stopping server waits for open connections to finish their requests.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Which storage backend holds the objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageKind {
    /// `DATA_DIR/state.db`, kept across restarts (the default).
    Sqlite,
    /// In memory, gone at exit (for tests and experiments).
    Memory,
    /// etcd v3 at [`Options::etcd_servers`] (builds with the cargo feature `etcd`).
    Etcd,
}

/// How to run the server.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where certificates, the token, the kubeconfig and the database live.
    pub data_dir: PathBuf,
    /// The address to listen on; port 0 picks a free port.
    pub listen: SocketAddr,
    /// The storage backend.
    pub storage: StorageKind,
    /// Log verbosity: 0 logs start and stop only, 1 and up one line per request.
    pub verbosity: u8,
    /// `--token-auth-file`: more users, by bearer token.
    pub token_auth_file: Option<PathBuf>,
    /// `--authorization-rules`: what users outside `system:masters` may do.
    pub authorization_rules: Option<PathBuf>,
    /// How often storage history is compacted (kube-apiserver's
    /// `--etcd-compaction-interval`, 5 minutes by default); zero turns it off.
    pub compaction_interval: Duration,
    /// `--feature-gates`.
    pub feature_gates: crate::features::FeatureGates,
    /// `--etcd-servers`: the etcd client URLs for [`StorageKind::Etcd`].
    pub etcd_servers: Vec<String>,
    /// `--audit-log-path`: where audit events go (JSON lines), if anywhere.
    pub audit_log_path: Option<PathBuf>,
    /// `--cel-memory-limit-bytes` (kcel's own flag): the memory budget of every CEL
    /// evaluation the server does (CRD validation rules and their messageExpressions,
    /// admission policies' expressions); `None`: no budget. [`Options::DEFAULT_CEL_MEMORY_LIMIT`]
    /// unless told otherwise.
    pub cel_memory_limit: Option<u64>,
    /// `--default-watch-cache-size`: the watch cache's window of recent events per resource
    /// (0 turns the cache off).
    pub default_watch_cache_size: usize,
    /// `--watch-cache-sizes`: windows of single resources, as `(resource[.group], size)`.
    pub watch_cache_sizes: Vec<(String, usize)>,
    /// `--webhook-service-address` (kcel's own flag; no cluster network to resolve Services):
    /// where the conversion webhooks that CRDs name by `service` are reached, as
    /// `(namespace, name)` → `host:port`.
    pub webhook_service_addresses: crate::crd::webhook_client::ServiceAddresses,
    /// `--service-cluster-ip-range` and `--service-node-port-range`: where Services get
    /// their cluster IPs and node ports.
    pub service_network: Arc<crate::service_network::ServiceNetwork>,
}

impl Options {
    /// The CEL memory budget a server has by default: the library's
    /// [`kcel::DEFAULT_MEMORY_LIMIT`] (64 MiB).
    pub const DEFAULT_CEL_MEMORY_LIMIT: Option<u64> = Some(kcel::DEFAULT_MEMORY_LIMIT);
}

/// The watch cache's windows from the flags: each `resource[.group]` of `--watch-cache-sizes`
/// names a built-in resource (upstream: the setting "is only meaningful for resources built
/// into the apiserver"); an unknown one is an error at start rather than ignored.
fn cache_sizes(options: &Options) -> Result<crate::storage::cache::CacheSizes, ServerError> {
    let mut sizes = crate::storage::cache::CacheSizes {
        default: options.default_watch_cache_size,
        ..Default::default()
    };
    for (name, size) in &options.watch_cache_sizes {
        let (plural, group) = name.split_once('.').unwrap_or((name.as_str(), ""));
        let resource = crate::resource::SERVED
            .iter()
            .find(|r| r.plural == plural && r.group == group)
            .ok_or_else(|| {
                ServerError::Config(format!(
                    "--watch-cache-sizes: {name:?} is not a built-in resource (resource[.group], the group omitted for the core group)"
                ))
            })?;
        sizes.per_resource.insert(resource.plural.to_owned(), *size);
    }
    Ok(sizes)
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// A file or socket operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// What failed.
        source: std::io::Error,
    },
    /// The certificates could not be made or loaded.
    #[error(transparent)]
    Pki(#[from] pki::PkiError),
    /// The TLS configuration was rejected.
    #[error("tls: {0}")]
    Tls(#[from] rustls::Error),
    /// The storage could not be opened.
    #[error("storage: {0}")]
    Storage(#[from] StorageError),
    /// The token file or the authorization rules could not be read.
    #[error("{0}")]
    Config(String),
}

fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> ServerError {
    let context = context.into();
    move |source| ServerError::Io { context, source }
}

/// A server that is listening: its address and URL, ready to [`Server::serve`].
pub struct Server {
    listener: TcpListener,
    tls: TlsAcceptor,
    state: AppState,
    compaction_interval: Duration,
    /// The `https://host:port` URL written to the kubeconfig.
    pub url: String,
}

/// Compacts the store as kube-apiserver compacts etcd: at every tick, up to the revision seen
/// at the tick before, so that one interval of history stays readable (older
/// resourceVersions and continue tokens then get 410 Expired).
async fn compact_periodically(store: Arc<dyn Storage>, interval: Duration) {
    let mut ticker = tokio::time::interval(interval);
    ticker.tick().await;
    let mut previous: Option<crate::storage::Revision> = None;
    loop {
        ticker.tick().await;
        let store = store.clone();
        let result = tokio::task::spawn_blocking(move || {
            let current = store.current_revision()?;
            if let Some(target) = previous
                && target > store.compacted_revision()?
            {
                store.compact(target)?;
            }
            Ok::<_, StorageError>(current)
        })
        .await;
        match result {
            Ok(Ok(current)) => previous = Some(current),
            Ok(Err(e)) => eprintln!("kcel-apiserver: compaction: {e}"),
            Err(e) => eprintln!("kcel-apiserver: compaction: {e}"),
        }
    }
}

#[cfg(feature = "etcd")]
fn etcd_store(servers: &[String]) -> Result<Arc<dyn Storage>, ServerError> {
    if servers.is_empty() {
        return Err(ServerError::Config(
            "--storage etcd needs --etcd-servers".to_owned(),
        ));
    }
    Ok(Arc::new(crate::storage::etcd::EtcdStorage::connect(
        servers,
    )?))
}

#[cfg(not(feature = "etcd"))]
fn etcd_store(_: &[String]) -> Result<Arc<dyn Storage>, ServerError> {
    Err(ServerError::Config(
        "this kcel-apiserver was built without the etcd backend (cargo feature `etcd`)".to_owned(),
    ))
}

impl Server {
    /// Prepares the data directory (certificates, token, storage), binds the listen address
    /// and writes `DATA_DIR/kubeconfig` with the bound address.
    pub async fn bind(options: &Options) -> Result<Server, ServerError> {
        let dir = &options.data_dir;
        std::fs::create_dir_all(dir).map_err(io(format!("creating {}", dir.display())))?;
        let pki = pki::load_or_create(dir, options.listen.ip())?;
        let token = auth::load_or_create_token(dir).map_err(io("reading the admin token"))?;
        let users = match &options.token_auth_file {
            Some(path) => crate::authz::read_token_file(path)
                .map_err(|e| ServerError::Config(format!("--token-auth-file {e}")))?,
            None => Default::default(),
        };
        let rules = match &options.authorization_rules {
            Some(path) => Some(
                crate::authz::read_rules(path)
                    .map_err(|e| ServerError::Config(format!("--authorization-rules {e}")))?,
            ),
            None => None,
        };
        let store: Arc<dyn Storage> = match options.storage {
            StorageKind::Sqlite => Arc::new(SqliteStorage::open(dir.join("state.db"))?),
            StorageKind::Memory => Arc::new(MemoryStorage::new()),
            StorageKind::Etcd => etcd_store(&options.etcd_servers)?,
        };
        // Watches go through one storage watch per resource, or one for all on an etcd
        // without progress requests (storage/cache.rs).
        let store: Arc<dyn Storage> = Arc::new(crate::storage::cache::WatchCache::with_sizes(
            store,
            cache_sizes(options)?,
        ));
        let crds = Arc::new(crate::crd::Crds::default());
        crds.set_services(options.webhook_service_addresses.clone());
        // The budget of CRD rules is process-wide, like the cache of compiled validators.
        crate::crd::registry::set_memory_limit(options.cel_memory_limit);
        let store = crate::crd::track(store, crds.clone())?;
        let audit = match &options.audit_log_path {
            Some(path) => Some(
                crate::admission::audit::AuditLog::open(path)
                    .map_err(io(format!("opening {}", path.display())))?,
            ),
            None => None,
        };
        let admission = Arc::new(crate::admission::Admission::new(
            audit,
            options.cel_memory_limit,
        ));
        let store = crate::storage::reloading::track(store, admission.clone())?;
        let rbac = Arc::new(crate::rbac::Rbac::default());
        let store = crate::storage::reloading::track(store, rbac.clone())?;
        routes::ensure_system_namespaces(&*store)?;
        crate::rbac::bootstrap::ensure_bootstrap_policy(&*store)?;
        let listener = TcpListener::bind(options.listen)
            .await
            .map_err(io(format!("listening on {}", options.listen)))?;
        let bound = listener
            .local_addr()
            .map_err(io("reading the bound address"))?;
        let host = if bound.ip().is_unspecified() {
            IpAddr::V4(Ipv4Addr::LOCALHOST)
        } else {
            bound.ip()
        };
        crate::service_network::ensure_kubernetes_service(
            &*store,
            &options.service_network,
            bound.port(),
        )?;
        let address = SocketAddr::new(host, bound.port()).to_string();
        let url = format!("https://{address}");
        kubeconfig::write(dir, &url, &pki.ca_pem, &token).map_err(io("writing the kubeconfig"))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_single_cert(pki.chain, pki.key)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Server {
            compaction_interval: options.compaction_interval,
            listener,
            tls: TlsAcceptor::from(Arc::new(config)),
            state: AppState {
                store,
                token: token.into(),
                address: address.into(),
                verbosity: options.verbosity,
                metrics: Arc::default(),
                users: Arc::new(users),
                authz: Arc::new(crate::authz::Authz::with_rbac(rules, rbac)),
                impersonation: Arc::default(),
                features: options.feature_gates,
                admission,
                crds,
                services: options.service_network.clone(),
            },
            url,
        })
    }

    /// Serves until `shutdown` completes, then stops accepting connections and lets the open
    /// ones finish their requests (for at most [`SHUTDOWN_GRACE`]).
    ///
    /// Every write is committed to storage before its response is sent, so stopping, even
    /// abruptly, loses no acknowledged write.
    pub async fn serve(self, shutdown: impl Future<Output = ()>) -> Result<(), ServerError> {
        let app = routes::router(self.state.clone());
        let store = self.state.store.clone();
        let resume = tokio::task::spawn_blocking(move || routes::terminating(&*store))
            .await
            .map_err(|e| ServerError::Io {
                context: "reading namespaces".to_owned(),
                source: std::io::Error::other(e),
            })??;
        for name in resume {
            routes::start_finalizing(self.state.clone(), name);
        }
        routes::cluster_role_aggregation::settle(&self.state).await;
        routes::cluster_role_aggregation::start(self.state.clone());
        tokio::spawn(crate::storage::reloading::watch(
            self.state.store.clone(),
            self.state.admission.clone(),
        ));
        tokio::spawn(crate::storage::reloading::watch(
            self.state.store.clone(),
            self.state.authz.rbac().clone(),
        ));
        routes::start_garbage_collector(self.state.clone());
        if !self.compaction_interval.is_zero() {
            tokio::spawn(compact_periodically(
                self.state.store.clone(),
                self.compaction_interval,
            ));
        }
        let verbosity = self.state.verbosity;
        let graceful = GracefulShutdown::new();
        tokio::pin!(shutdown);
        loop {
            let (tcp, peer) = tokio::select! {
                () = &mut shutdown => break,
                accepted = self.listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        // Running out of descriptors and the like: keep serving the others.
                        eprintln!("kcel-apiserver: accept: {e}");
                        continue;
                    }
                },
            };
            let tls = self.tls.clone();
            // Each request carries the client's address (the audit log's `sourceIPs`).
            let inner = TowerToHyperService::new(app.clone());
            let service = hyper::service::service_fn(move |mut request| {
                request
                    .extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                hyper::service::Service::call(&inner, request)
            });
            let watcher = graceful.watcher();
            tokio::spawn(async move {
                let stream = match tls.accept(tcp).await {
                    Ok(stream) => stream,
                    Err(e) => {
                        if verbosity > 0 {
                            eprintln!("kcel-apiserver: TLS handshake from {peer}: {e}");
                        }
                        return;
                    }
                };
                let connection = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service);
                if let Err(e) = watcher.watch(connection).await
                    && verbosity > 0
                {
                    eprintln!("kcel-apiserver: connection from {peer}: {e}");
                }
            });
        }
        drop(self.listener);
        tokio::select! {
            () = graceful.shutdown() => {}
            () = tokio::time::sleep(SHUTDOWN_GRACE) => {
                eprintln!("kcel-apiserver: connections still open after {SHUTDOWN_GRACE:?}; closing them");
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Options, StorageKind, cache_sizes};

    fn options(sizes: &[(&str, usize)]) -> Options {
        Options {
            data_dir: "/nonexistent".into(),
            listen: "127.0.0.1:0".parse().unwrap(),
            storage: StorageKind::Memory,
            verbosity: 0,
            token_auth_file: None,
            authorization_rules: None,
            compaction_interval: std::time::Duration::ZERO,
            feature_gates: Default::default(),
            etcd_servers: Vec::new(),
            audit_log_path: None,
            cel_memory_limit: Options::DEFAULT_CEL_MEMORY_LIMIT,
            default_watch_cache_size: 7,
            watch_cache_sizes: sizes.iter().map(|(r, n)| (r.to_string(), *n)).collect(),
            webhook_service_addresses: Default::default(),
            service_network: Default::default(),
        }
    }

    #[test]
    fn watch_cache_sizes_name_built_in_resources() {
        let sizes = cache_sizes(&options(&[("configmaps", 0), ("deployments.apps", 50)])).unwrap();
        assert_eq!(sizes.default, 7);
        assert_eq!(
            sizes.per_resource,
            [("configmaps".to_owned(), 0), ("deployments".to_owned(), 50)].into()
        );
        for unknown in ["deployments", "configmaps.apps", "widgets.example.com"] {
            let e = cache_sizes(&options(&[(unknown, 1)]))
                .unwrap_err()
                .to_string();
            assert!(e.contains("is not a built-in resource"), "{unknown}: {e}");
        }
    }
}
