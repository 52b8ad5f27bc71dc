//! The `kcel-apiserver` binary: parses flags and runs the server until SIGTERM or Ctrl-C.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use kcel_apiserver::features::FeatureGates;
use kcel_apiserver::server::{Options, Server, StorageKind};
use kcel_apiserver::service_network::ServiceNetwork;

/// A small Kubernetes API server on embedded storage.
#[derive(Debug, Parser)]
#[command(name = "kcel-apiserver", version)]
struct Args {
    /// Directory for certificates, the admin token, the kubeconfig and the database.
    #[arg(long)]
    data_dir: PathBuf,
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:6443")]
    listen: SocketAddr,
    /// Storage backend.
    #[arg(long, value_enum, default_value_t = Backend::Sqlite)]
    storage: Backend,
    /// Log verbosity: 1 and up logs one line per request.
    #[arg(long = "v", default_value_t = 0)]
    verbosity: u8,
    /// More users: a CSV file of `token,user,uid,"group1,group2"` lines (kube-apiserver's).
    #[arg(long)]
    token_auth_file: Option<PathBuf>,
    /// What users outside system:masters may do: the YAML or JSON rule file of
    /// `kcel --authorizer @PATH`.
    #[arg(long)]
    authorization_rules: Option<PathBuf>,
    /// Seconds between compactions of the storage history (0: never).
    #[arg(long = "compaction-interval-seconds", default_value_t = 300)]
    compaction_interval_seconds: u64,
    /// The same as a Go duration, kube-apiserver's flag (e.g. 5m0s; 0 turns compaction off);
    /// overrides --compaction-interval-seconds.
    #[arg(long = "etcd-compaction-interval", value_parser = parse_go_duration)]
    etcd_compaction_interval: Option<std::time::Duration>,
    /// Feature gates as `Key=bool,...` (kube-apiserver's flag); known:
    /// ShardedListAndWatch (default false).
    #[arg(long = "feature-gates", default_value = "", value_parser = FeatureGates::parse)]
    feature_gates: FeatureGates,
    /// etcd client URLs for --storage etcd, comma-separated (e.g. http://127.0.0.1:2379).
    #[arg(long = "etcd-servers", value_delimiter = ',')]
    etcd_servers: Vec<String>,
    /// Where to append audit events (audit.k8s.io/v1 Event, Metadata level, one JSON
    /// object per line), as kube-apiserver's flag.
    #[arg(long = "audit-log-path")]
    audit_log_path: Option<PathBuf>,
    /// The range Service cluster IPs are allocated from (kube-apiserver's flag and default;
    /// one IPv4 CIDR).
    #[arg(long = "service-cluster-ip-range", default_value = "10.0.0.0/24")]
    service_cluster_ip_range: String,
    /// The range of Service node ports (kube-apiserver's flag and default).
    #[arg(long = "service-node-port-range", default_value = "30000-32767")]
    service_node_port_range: String,
    /// kcel's own (kube-apiserver has none): the memory budget of every CEL evaluation, in
    /// bytes — CRD validation rules and admission policies' expressions; one that would
    /// build or walk more fails as over its cost limit does. 0: no budget.
    #[arg(long = "cel-memory-limit-bytes", value_name = "BYTES", default_value_t = kcel::DEFAULT_MEMORY_LIMIT)]
    cel_memory_limit_bytes: u64,
    /// The watch cache's window per resource: how many recent events it keeps for watches
    /// that start in the past (kube-apiserver's flag; 0 turns the watch cache off).
    #[arg(long = "default-watch-cache-size", default_value_t = kcel_apiserver::storage::cache::RING_CAPACITY)]
    default_watch_cache_size: usize,
    /// Windows of single resources, comma-separated `resource[.group]#size` (kube-apiserver's
    /// flag; the group is omitted for the core group; 0 turns the cache off for it).
    #[arg(long = "watch-cache-sizes", value_delimiter = ',', value_parser = parse_cache_size)]
    watch_cache_sizes: Vec<(String, usize)>,
    /// Where a conversion webhook named by `service` in a CRD is reached, comma-separated
    /// `<namespace>/<name>=<host>:<port>` (kcel's own flag: this server has no cluster network;
    /// the webhook's certificate must still be valid for `<name>.<namespace>.svc`). A Service
    /// not listed fails conversion with `service "<name>" not found`.
    #[arg(long = "webhook-service-address", value_delimiter = ',', value_parser = parse_service_address)]
    webhook_service_address: Vec<((String, String), String)>,
}

/// One `<namespace>/<name>=<host>:<port>` of `--webhook-service-address`.
fn parse_service_address(text: &str) -> Result<((String, String), String), FlagError> {
    let invalid = || FlagError::ServiceAddress(text.to_owned());
    let (service, address) = text.split_once('=').ok_or_else(invalid)?;
    let (namespace, name) = service.split_once('/').ok_or_else(invalid)?;
    let port = address
        .rsplit_once(':')
        .map(|(_, p)| p)
        .ok_or_else(invalid)?;
    if namespace.is_empty() || name.is_empty() || port.parse::<u16>().is_err() {
        return Err(invalid());
    }
    Ok(((namespace.to_owned(), name.to_owned()), address.to_owned()))
}

/// A flag value that does not parse (clap prints it after `invalid value ... for ...:`).
#[derive(Debug, thiserror::Error)]
enum FlagError {
    /// `--watch-cache-sizes` not `resource#size` (upstream's texts).
    #[error("invalid value of watch cache size: {0}")]
    CacheSizeForm(String),
    /// A size that is not an integer.
    #[error("invalid size of watch cache size: {0}")]
    CacheSizeNumber(String),
    /// A negative size.
    #[error("watch cache size cannot be negative: {0}")]
    CacheSizeNegative(String),
    /// Not a Go duration.
    #[error(transparent)]
    Duration(#[from] kcel::library::standard::duration_text::DurationSyntaxError),
    /// A negative duration.
    #[error("negative duration {0}")]
    NegativeDuration(String),
    /// `--webhook-service-address` not `<namespace>/<name>=<host>:<port>`.
    #[error("invalid service address {0:?}: want <namespace>/<name>=<host>:<port>")]
    ServiceAddress(String),
}

/// One `resource[.group]#size` of `--watch-cache-sizes`, with upstream's messages
/// (k8s.io/apiserver `pkg/server/options`, `ParseWatchCacheSizes`).
fn parse_cache_size(text: &str) -> Result<(String, usize), FlagError> {
    let tokens: Vec<&str> = text.split('#').collect();
    let [resource, size] = tokens[..] else {
        return Err(FlagError::CacheSizeForm(text.to_owned()));
    };
    let size: i64 = size
        .parse()
        .map_err(|_| FlagError::CacheSizeNumber(text.to_owned()))?;
    let size = usize::try_from(size).map_err(|_| FlagError::CacheSizeNegative(text.to_owned()))?;
    Ok((resource.to_owned(), size))
}

/// A Go duration (`5m0s`, `90s`, `0`), not negative.
fn parse_go_duration(text: &str) -> Result<std::time::Duration, FlagError> {
    let nanos = kcel::library::standard::duration_text::parse(text)?;
    u64::try_from(nanos)
        .map(std::time::Duration::from_nanos)
        .map_err(|_| FlagError::NegativeDuration(text.to_owned()))
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Backend {
    /// SQLite file in the data directory (kept across restarts).
    Sqlite,
    /// In memory (lost at exit).
    Memory,
    /// etcd v3 at --etcd-servers (needs a build with the cargo feature `etcd`).
    Etcd,
}

async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("installing the SIGTERM handler");
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    // Objects nest up to 10,000 levels, as kube-apiserver reads them; decoding, validating,
    // encoding and dropping them recurses, so every thread of the runtime (workers and the
    // blocking pool) gets a stack that holds that depth (only the pages used are mapped),
    // and the server itself runs on a worker, not on the main thread.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(kcel_stdlib::documents::DEEP_STACK)
        .build();
    match runtime {
        Ok(runtime) => {
            runtime.block_on(async { tokio::spawn(serve(args)).await.unwrap_or(ExitCode::FAILURE) })
        }
        Err(e) => {
            eprintln!("kcel-apiserver: starting the runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the server the flags describe until SIGTERM or Ctrl-C.
async fn serve(args: Args) -> ExitCode {
    let service_network = match ServiceNetwork::new(
        &args.service_cluster_ip_range,
        &args.service_node_port_range,
    ) {
        Ok(network) => std::sync::Arc::new(network),
        Err(e) => {
            eprintln!("kcel-apiserver: {e}");
            return ExitCode::FAILURE;
        }
    };
    let options = Options {
        data_dir: args.data_dir,
        listen: args.listen,
        storage: match args.storage {
            Backend::Sqlite => StorageKind::Sqlite,
            Backend::Memory => StorageKind::Memory,
            Backend::Etcd => StorageKind::Etcd,
        },
        verbosity: args.verbosity,
        token_auth_file: args.token_auth_file,
        authorization_rules: args.authorization_rules,
        compaction_interval: args.etcd_compaction_interval.unwrap_or(
            std::time::Duration::from_secs(args.compaction_interval_seconds),
        ),
        feature_gates: args.feature_gates,
        etcd_servers: args.etcd_servers,
        audit_log_path: args.audit_log_path,
        cel_memory_limit: match args.cel_memory_limit_bytes {
            0 => None,
            bytes => Some(bytes),
        },
        default_watch_cache_size: args.default_watch_cache_size,
        watch_cache_sizes: args.watch_cache_sizes,
        webhook_service_addresses: args.webhook_service_address.into_iter().collect(),
        service_network,
    };
    let server = match Server::bind(&options).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("kcel-apiserver: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Announce on stdout (the URL line first: scripts and tests wait for it); a closed
    // stdout must not stop the server.
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "kcel-apiserver: serving on {}", server.url);
        let _ = writeln!(
            out,
            "kcel-apiserver: kubeconfig at {}",
            options.data_dir.join("kubeconfig").display()
        );
        let _ = out.flush();
    }
    match server.serve(shutdown_signal()).await {
        Ok(()) => {
            eprintln!("kcel-apiserver: stopped");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("kcel-apiserver: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_addresses_parse_or_say_what_is_wanted() {
        assert_eq!(
            parse_service_address("ns/hook=127.0.0.1:8443").unwrap(),
            (
                ("ns".to_owned(), "hook".to_owned()),
                "127.0.0.1:8443".to_owned()
            )
        );
        assert_eq!(
            parse_service_address("ns/hook=[::1]:443").unwrap().1,
            "[::1]:443"
        );
        for bad in [
            "ns/hook",
            "hook=127.0.0.1:1",
            "/hook=h:1",
            "ns/=h:1",
            "ns/hook=h",
            "ns/hook=h:99999",
        ] {
            let error = parse_service_address(bad).unwrap_err();
            assert!(
                matches!(error, FlagError::ServiceAddress(ref t) if t == bad),
                "{bad}"
            );
            assert_eq!(
                error.to_string(),
                format!("invalid service address {bad:?}: want <namespace>/<name>=<host>:<port>")
            );
        }
    }
}
