//! The HTTPS clients of conversion webhooks: `POST`s of a JSON body to the webhook's URL
//! with `?timeout=30s`, the serving certificate verified against the CRD's `caBundle` (and
//! the URL's host), as upstream's webhook REST client does (k8s.io/apiserver
//! `pkg/util/webhook`). Failures read as Go's `net/http` client reports them:
//! `Post "<url>?timeout=30s": <cause>`.
//!
//! Clients are kept per configuration ([`Clients`], upstream's `ClientManager`, whose cache
//! is keyed by the client config): one [`WebhookClient`] per URL or Service and `caBundle`,
//! whose HTTP/1.1 connections stay open between calls (Go's transport as client-go sets it
//! up: at most 25 idle connections, closed after 90 s idle, TLS handshakes bounded by 10 s).
//! A CRD whose conversion config changes gets another client; the old one is dropped with its
//! connections once no call uses it.
//!
//! A `service` reference has no cluster network to resolve it here: the server maps
//! `<namespace>/<name>` to an address with `--webhook-service-address` (the TLS name stays
//! `<name>.<namespace>.svc`, as the certificate upstream's client verifies); a Service without
//! a mapping fails as upstream's resolver does for a missing Service
//! (`service "<name>" not found`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::net::TcpStream;

use kcel::library::standard::go_quote;

use super::conversion_spec::{Target, Webhook};

/// How long one webhook call may take (upstream's `?timeout=30s`, its request timeout).
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// How long a TLS handshake may take (Go's `Transport.TLSHandshakeTimeout` as client-go
/// sets it).
pub const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long an idle connection is kept (Go's `Transport.IdleConnTimeout`).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// The most idle connections kept per client (client-go's `MaxIdleConnsPerHost`).
pub const MAX_IDLE: usize = 25;

/// The most clients kept (upstream's `ClientManager` cache size); past it the least
/// recently used is dropped.
pub const MAX_CLIENTS: usize = 200;

/// How long a connection may take to be ready for another call once an answer is read
/// (past it the connection is dropped, not kept).
const READY_WAIT: Duration = Duration::from_secs(1);

/// The `User-Agent` of webhook calls (upstream's webhook client config).
pub const USER_AGENT: &str = "kube-apiserver-admission";

/// The largest webhook response read (its converted objects): past it the call fails.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

/// Where `service` references go: `(namespace, name)` → `host:port`.
pub type ServiceAddresses = HashMap<(String, String), String>;

/// Why a webhook call failed, in the words of Go's `net/http` client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Cause {
    /// A `service` reference without an address (upstream's resolver's text).
    #[error("service {} not found", go_quote(.0))]
    ServiceNotFound(String),
    /// The TCP connection failed (`dial tcp <address>: connect: connection refused`).
    #[error("dial tcp {address}: {reason}")]
    Dial {
        /// `host:port` dialed.
        address: String,
        /// `connect: connection refused`, ...
        reason: String,
    },
    /// The TLS handshake failed (`tls: failed to verify certificate: x509: ...`).
    #[error("{0}")]
    Tls(String),
    /// The TLS handshake took longer than [`TLS_HANDSHAKE_TIMEOUT`].
    #[error("net/http: TLS handshake timeout")]
    TlsHandshakeTimeout,
    /// The call took longer than [`TIMEOUT`] (the request context's deadline).
    #[error("context deadline exceeded")]
    Timeout,
    /// The webhook closed the connection before answering.
    #[error("EOF")]
    Eof,
    /// Another transport failure, as the HTTP library words it.
    #[error("{0}")]
    Transport(String),
}

/// Why a webhook call failed: the cause after `Post "<url>": `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Post {}: {cause}", go_quote(url))]
pub struct CallError {
    /// The URL posted to (with `?timeout=30s`).
    pub url: String,
    /// What went wrong.
    pub cause: Cause,
}

/// A webhook's answer: the HTTP status and the body.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status code.
    pub status: u16,
    /// The `Content-Type` header (empty when absent).
    pub content_type: String,
    /// The body, at most [`MAX_RESPONSE_BYTES`].
    pub body: Vec<u8>,
}

#[derive(Debug)]
struct Endpoint {
    /// `host:port` to dial.
    address: String,
    /// The name the certificate must hold.
    server_name: String,
    /// The request target (`/convert?timeout=30s`).
    path: String,
    /// The `Host` header.
    host: String,
}

fn endpoint(target: &Target, services: &ServiceAddresses) -> Result<Endpoint, Cause> {
    match target {
        Target::Url(url) => {
            let rest = url.strip_prefix("https://").unwrap_or(url);
            let (authority, path) = match rest.find('/') {
                Some(i) => (&rest[..i], &rest[i..]),
                None => (rest, ""),
            };
            let (host, port) = split_host_port(authority);
            let path = if path.is_empty() { "/" } else { path };
            Ok(Endpoint {
                address: format!("{}:{port}", bracket(host)),
                server_name: host.to_owned(),
                path: format!("{path}?timeout=30s"),
                host: authority.to_owned(),
            })
        }
        Target::Service {
            namespace,
            name,
            port,
            path,
        } => {
            let address = services
                .get(&(namespace.clone(), name.clone()))
                .ok_or_else(|| Cause::ServiceNotFound(name.clone()))?;
            let path = if path.is_empty() { "/" } else { path };
            Ok(Endpoint {
                address: address.clone(),
                server_name: format!("{name}.{namespace}.svc"),
                path: format!("{path}?timeout=30s"),
                host: format!("{name}.{namespace}.svc:{port}"),
            })
        }
    }
}

fn bracket(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_owned()
    }
}

/// `host` and `port` of an authority (`[::1]:8443`, `h:443`, `h` → 443).
fn split_host_port(authority: &str) -> (&str, u16) {
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, tail) = rest.split_once(']').unwrap_or((rest, ""));
        let port = tail.strip_prefix(':').and_then(|p| p.parse().ok());
        return (host, port.unwrap_or(443));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => (host, port.parse().unwrap_or(443)),
        None => (authority, 443),
    }
}

/// The TLS client trusting exactly the certificates of `ca_bundle`, speaking HTTP/1.1.
fn tls_config(ca_bundle: &[u8]) -> Result<Arc<rustls::ClientConfig>, Cause> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_bundle).flatten() {
        let _ = roots.add(cert);
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Cause::Tls(format!("tls: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Go's text for a TLS failure (crypto/tls and crypto/x509 wording).
fn tls_cause(error: &std::io::Error, server_name: &str) -> Cause {
    let Some(tls) = error
        .get_ref()
        .and_then(|e| e.downcast_ref::<rustls::Error>())
    else {
        return match error.kind() {
            std::io::ErrorKind::UnexpectedEof => Cause::Eof,
            _ => Cause::Transport(error.to_string()),
        };
    };
    use rustls::CertificateError as C;
    Cause::Tls(match tls {
        // A CA of the same name that did not sign it: Go's unknown authority too (without
        // its "possibly because of ..." hint).
        rustls::Error::InvalidCertificate(C::UnknownIssuer | C::BadSignature) => {
            "tls: failed to verify certificate: x509: certificate signed by unknown authority"
                .to_owned()
        }
        rustls::Error::InvalidCertificate(C::NotValidForNameContext { presented, .. }) => {
            format!(
                "tls: failed to verify certificate: {}",
                hostname_error(server_name, presented)
            )
        }
        rustls::Error::InvalidCertificate(C::NotValidForName) => format!(
            "tls: failed to verify certificate: x509: certificate is not valid for any names, but wanted to match {server_name}"
        ),
        rustls::Error::InvalidCertificate(C::Expired)
        | rustls::Error::InvalidCertificate(C::ExpiredContext { .. }) => {
            "tls: failed to verify certificate: x509: certificate has expired or is not yet valid"
                .to_owned()
        }
        other => format!("tls: {other}"),
    })
}

/// crypto/x509's `HostnameError` text for a certificate whose names do not hold `host`,
/// from the subject alternative names rustls reports (`DnsName("a")`, `IpAddress(1.2.3.4)`):
/// the IP names when `host` is an address, else the DNS names.
fn hostname_error(host: &str, presented: &[String]) -> String {
    let inner = |p: &str, prefix: &str| {
        p.strip_prefix(prefix)
            .and_then(|r| r.strip_suffix(')'))
            .map(|r| r.trim_matches('"').to_owned())
    };
    let valid: Vec<String> = if host.parse::<std::net::IpAddr>().is_ok() {
        let ips: Vec<String> = presented
            .iter()
            .filter_map(|p| inner(p, "IpAddress("))
            .map(|ip| {
                ip.parse::<std::net::IpAddr>()
                    .map_or(ip, |parsed| parsed.to_string())
            })
            .collect();
        if ips.is_empty() {
            return format!(
                "x509: cannot validate certificate for {host} because it doesn't contain any IP SANs"
            );
        }
        ips
    } else {
        presented
            .iter()
            .filter_map(|p| inner(p, "DnsName("))
            .collect()
    };
    if valid.is_empty() {
        return format!("x509: certificate is not valid for any names, but wanted to match {host}");
    }
    format!(
        "x509: certificate is valid for {}, not {host}",
        valid.join(", ")
    )
}

/// Go's text for a failed dial (`dial tcp <address>: connect: connection refused`).
fn dial_cause(address: &str, error: &std::io::Error) -> Cause {
    use std::io::ErrorKind as K;
    let reason = match error.kind() {
        K::ConnectionRefused => "connect: connection refused".to_owned(),
        K::TimedOut => "i/o timeout".to_owned(),
        K::HostUnreachable => "connect: no route to host".to_owned(),
        K::NetworkUnreachable => "connect: network is unreachable".to_owned(),
        _ => error.to_string(),
    };
    Cause::Dial {
        address: address.to_owned(),
        reason,
    }
}

/// Go's text for a failure on an established connection.
fn http_cause(error: &hyper::Error) -> Cause {
    if error.is_incomplete_message() {
        Cause::Eof
    } else {
        Cause::Transport(error.to_string())
    }
}

/// One connection, idle since an instant.
struct Idle {
    sender: SendRequest<Full<Bytes>>,
    since: Instant,
}

/// The idle connections of a client, the most recently used last, and whether a task is
/// on its way to close those idle past [`IDLE_TIMEOUT`].
struct IdlePool {
    connections: Vec<Idle>,
    reaping: bool,
    /// How long a connection stays idle ([`IDLE_TIMEOUT`]; shorter in tests).
    timeout: Duration,
}

impl IdlePool {
    /// Drops the connections closed by the webhook or idle too long.
    fn prune(&mut self) {
        self.connections
            .retain(|c| !c.sender.is_closed() && c.since.elapsed() < self.timeout);
    }
}

/// Closes `pool`'s connections as they pass [`IDLE_TIMEOUT`] (Go's transport closes idle
/// connections on a timer too), until none is left or the client is gone.
async fn reap(pool: std::sync::Weak<Mutex<IdlePool>>) {
    loop {
        let wait = {
            let Some(pool) = pool.upgrade() else {
                return;
            };
            let mut pool = pool.lock().unwrap_or_else(|e| e.into_inner());
            pool.prune();
            match pool.connections.first() {
                Some(oldest) => pool.timeout.saturating_sub(oldest.since.elapsed()),
                None => {
                    pool.reaping = false;
                    return;
                }
            }
        };
        tokio::time::sleep(wait + Duration::from_millis(10)).await;
    }
}

/// The client of one webhook configuration: its endpoint, its TLS trust and its idle
/// connections.
pub struct WebhookClient {
    /// The URL posted to (with `?timeout=30s`), for error texts.
    url: String,
    /// Where to connect, or why there is nowhere (an unmapped Service).
    endpoint: Result<Endpoint, Cause>,
    /// The TLS client, or why there is none.
    tls: Result<Arc<rustls::ClientConfig>, Cause>,
    /// Connections between calls.
    idle: Arc<Mutex<IdlePool>>,
    /// How long a call may take ([`TIMEOUT`]; shorter in tests).
    timeout: Duration,
}

impl std::fmt::Debug for WebhookClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookClient")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl WebhookClient {
    /// The client of the webhook at `target`, trusting `ca_bundle`, with `services` to
    /// resolve a `service` reference.
    pub fn new(target: &Target, ca_bundle: &[u8], services: &ServiceAddresses) -> WebhookClient {
        WebhookClient {
            url: format!("{}?timeout=30s", target.url()),
            endpoint: endpoint(target, services),
            tls: tls_config(ca_bundle),
            idle: Arc::new(Mutex::new(IdlePool {
                connections: Vec::new(),
                reaping: false,
                timeout: IDLE_TIMEOUT,
            })),
            timeout: TIMEOUT,
        }
    }

    /// This client with another call timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> WebhookClient {
        self.timeout = timeout;
        self
    }

    /// This client with another idle connection timeout.
    pub fn with_idle_timeout(self, timeout: Duration) -> WebhookClient {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).timeout = timeout;
        self
    }

    /// How many connections wait for the next call.
    pub fn idle_connections(&self) -> usize {
        let mut pool = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        pool.prune();
        pool.connections.len()
    }

    /// Posts `body`; the answer is whatever HTTP status the webhook gave. A kept connection
    /// is used when one is open; one that turns out closed before the request went out is
    /// replaced by a new connection (Go retries such a request too).
    pub async fn post(&self, body: Vec<u8>) -> Result<Answer, CallError> {
        let fail = |cause: Cause| CallError {
            url: self.url.clone(),
            cause,
        };
        let endpoint = self.endpoint.as_ref().map_err(|c| fail(c.clone()))?;
        let body = Bytes::from(body);
        match tokio::time::timeout(self.timeout, self.call(endpoint, body)).await {
            Ok(result) => result.map_err(fail),
            Err(_) => Err(fail(Cause::Timeout)),
        }
    }

    async fn call(&self, endpoint: &Endpoint, body: Bytes) -> Result<Answer, Cause> {
        let request = || {
            hyper::Request::builder()
                .method("POST")
                .uri(&endpoint.path)
                .header("host", &endpoint.host)
                .header("content-type", "application/json")
                .header("accept", "application/json, */*")
                .header("user-agent", USER_AGENT)
                .body(Full::new(body.clone()))
                .map_err(|e| Cause::Transport(e.to_string()))
        };
        let mut response = None;
        let mut sender = None;
        while let Some(mut kept) = self.take_idle() {
            match kept.try_send_request(request()?).await {
                Ok(r) => {
                    response = Some(r);
                    sender = Some(kept);
                    break;
                }
                // Not sent: the connection closed while idle; try the next.
                Err(e) if e.message().is_some() => continue,
                Err(e) => return Err(http_cause(e.error())),
            }
        }
        let (response, mut sender) = match (response, sender) {
            (Some(r), Some(s)) => (r, s),
            _ => {
                let mut fresh = self.connect(endpoint).await?;
                let r = fresh
                    .send_request(request()?)
                    .await
                    .map_err(|e| http_cause(&e))?;
                (r, fresh)
            }
        };
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let body = Limited::new(response.into_body(), MAX_RESPONSE_BYTES)
            .collect()
            .await
            .map_err(|e| Cause::Transport(e.to_string()))?
            .to_bytes()
            .to_vec();
        // The whole answer is read: the connection can carry the next call (the dispatcher
        // readies itself once the response is done; one that will not stays closed).
        if let Ok(Ok(())) = tokio::time::timeout(READY_WAIT, sender.ready()).await {
            self.keep(sender);
        }
        Ok(Answer {
            status,
            content_type,
            body,
        })
    }

    /// A new connection: TCP, then TLS (within [`TLS_HANDSHAKE_TIMEOUT`]), then HTTP/1.1.
    async fn connect(&self, endpoint: &Endpoint) -> Result<SendRequest<Full<Bytes>>, Cause> {
        let tls_config = self.tls.as_ref().map_err(Clone::clone)?;
        let tcp = TcpStream::connect(&endpoint.address)
            .await
            .map_err(|e| dial_cause(&endpoint.address, &e))?;
        let _ = tcp.set_nodelay(true);
        let name = ServerName::try_from(endpoint.server_name.clone())
            .map_err(|e| Cause::Tls(format!("tls: {e}")))?;
        let connector = tokio_rustls::TlsConnector::from(tls_config.clone());
        let tls = tokio::time::timeout(TLS_HANDSHAKE_TIMEOUT, connector.connect(name, tcp))
            .await
            .map_err(|_| Cause::TlsHandshakeTimeout)?
            .map_err(|e| tls_cause(&e, &endpoint.server_name))?;
        let (sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
                .await
                .map_err(|e| http_cause(&e))?;
        tokio::spawn(connection);
        Ok(sender)
    }

    /// The most recently used idle connection that is still open and not too old.
    fn take_idle(&self) -> Option<SendRequest<Full<Bytes>>> {
        let mut pool = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        pool.prune();
        pool.connections.pop().map(|c| c.sender)
    }

    fn keep(&self, sender: SendRequest<Full<Bytes>>) {
        let mut pool = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if pool.connections.len() >= MAX_IDLE {
            pool.connections.remove(0);
        }
        pool.connections.push(Idle {
            sender,
            since: Instant::now(),
        });
        if !pool.reaping {
            pool.reaping = true;
            tokio::spawn(reap(Arc::downgrade(&self.idle)));
        }
    }
}

/// The clients of conversion webhooks, one per configuration (target and `caBundle`), at
/// most [`MAX_CLIENTS`], with the addresses of `service` references.
#[derive(Default)]
pub struct Clients {
    services: ServiceAddresses,
    cache: Mutex<ClientCache>,
}

#[derive(Default)]
struct ClientCache {
    clients: HashMap<(Target, Vec<u8>), (u64, Arc<WebhookClient>)>,
    uses: u64,
}

impl Clients {
    /// No clients yet; `service` references resolve through `services`.
    pub fn new(services: ServiceAddresses) -> Clients {
        Clients {
            services,
            cache: Mutex::default(),
        }
    }

    /// The client of `webhook`'s configuration: the one made before for the same target and
    /// `caBundle`, or a new one.
    pub fn client(&self, webhook: &Webhook) -> Arc<WebhookClient> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.uses += 1;
        let now = cache.uses;
        let key = (webhook.target.clone(), webhook.ca_bundle.clone());
        if let Some((used, client)) = cache.clients.get_mut(&key) {
            *used = now;
            return client.clone();
        }
        if cache.clients.len() >= MAX_CLIENTS
            && let Some(oldest) = cache
                .clients
                .iter()
                .min_by_key(|(_, (used, _))| *used)
                .map(|(k, _)| k.clone())
        {
            cache.clients.remove(&oldest);
        }
        let client = Arc::new(WebhookClient::new(
            &webhook.target,
            &webhook.ca_bundle,
            &self.services,
        ));
        cache.clients.insert(key, (now, client.clone()));
        client
    }

    /// How many clients are kept.
    pub fn len(&self) -> usize {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clients
            .len()
    }

    /// Whether no client is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_follow_the_url_or_the_service_map() {
        let services: ServiceAddresses = [(
            ("ns".to_owned(), "conv".to_owned()),
            "127.0.0.1:9443".to_owned(),
        )]
        .into();
        let e = endpoint(
            &Target::Url("https://127.0.0.1:8443/convert".into()),
            &services,
        )
        .unwrap();
        assert_eq!(
            (e.address.as_str(), e.server_name.as_str(), e.path.as_str()),
            ("127.0.0.1:8443", "127.0.0.1", "/convert?timeout=30s")
        );
        let e = endpoint(&Target::Url("https://[::1]".into()), &services).unwrap();
        assert_eq!(
            (e.address.as_str(), e.path.as_str()),
            ("[::1]:443", "/?timeout=30s")
        );
        let service = |name: &str| Target::Service {
            namespace: "ns".into(),
            name: name.into(),
            port: 443,
            path: "/c".into(),
        };
        let e = endpoint(&service("conv"), &services).unwrap();
        assert_eq!(
            (e.address.as_str(), e.server_name.as_str()),
            ("127.0.0.1:9443", "conv.ns.svc")
        );
        assert_eq!(
            endpoint(&service("gone"), &services)
                .unwrap_err()
                .to_string(),
            "service \"gone\" not found"
        );
    }

    #[tokio::test]
    async fn a_refused_connection_reads_as_gos_dial_error() {
        // Bind then drop a listener: its port refuses connections.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let target = Target::Url(format!("https://127.0.0.1:{port}/c"));
        let client = WebhookClient::new(&target, b"", &ServiceAddresses::new());
        let e = client.post(b"{}".to_vec()).await.unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "Post \"https://127.0.0.1:{port}/c?timeout=30s\": dial tcp 127.0.0.1:{port}: connect: connection refused"
            )
        );
    }

    /// A listener that accepts connections and never answers: the TLS handshake times out
    /// (Go's `net/http: TLS handshake timeout`), or, with a shorter call timeout, the call
    /// (the request context's `context deadline exceeded`).
    #[tokio::test]
    async fn silent_servers_time_out_as_gos_client() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let held = tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((tcp, _)) = listener.accept().await {
                open.push(tcp);
            }
        });
        let target = Target::Url(format!("https://127.0.0.1:{port}/c"));
        let url = format!("https://127.0.0.1:{port}/c?timeout=30s");
        let client = WebhookClient::new(&target, b"", &ServiceAddresses::new())
            .with_timeout(Duration::from_millis(300));
        let e = client.post(b"{}".to_vec()).await.unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("Post \"{url}\": context deadline exceeded")
        );
        let client = WebhookClient::new(&target, b"", &ServiceAddresses::new());
        let started = Instant::now();
        let e = client.post(b"{}".to_vec()).await.unwrap_err();
        assert_eq!(e.cause, Cause::TlsHandshakeTimeout);
        assert_eq!(
            e.to_string(),
            format!("Post \"{url}\": net/http: TLS handshake timeout")
        );
        assert!(started.elapsed() >= TLS_HANDSHAKE_TIMEOUT);
        held.abort();
    }

    // crypto/x509 HostnameError.Error.
    #[test]
    fn name_mismatches_read_as_gos_hostname_error() {
        let presented = [
            "DnsName(\"conv.webhooks.svc\")".to_owned(),
            "IpAddress(127.0.0.1)".to_owned(),
            "DnsName(\"b.example\")".to_owned(),
        ];
        assert_eq!(
            hostname_error("other.webhooks.svc", &presented),
            "x509: certificate is valid for conv.webhooks.svc, b.example, not other.webhooks.svc"
        );
        assert_eq!(
            hostname_error("10.0.0.1", &presented),
            "x509: certificate is valid for 127.0.0.1, not 10.0.0.1"
        );
        assert_eq!(
            hostname_error("10.0.0.1", &presented[..1]),
            "x509: cannot validate certificate for 10.0.0.1 because it doesn't contain any IP SANs"
        );
        assert_eq!(
            hostname_error("h.example", &presented[1..2]),
            "x509: certificate is not valid for any names, but wanted to match h.example"
        );
    }

    /// A loopback HTTPS server answering `{}` to every request, with its CA's PEM and a
    /// count of the connections it has open.
    async fn echo_server() -> (u16, String, Arc<std::sync::atomic::AtomicIsize>) {
        use std::sync::atomic::{AtomicIsize, Ordering};
        let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let ca_cert = ca.self_signed(&ca_key).unwrap();
        let leaf_key = rcgen::KeyPair::generate().unwrap();
        let leaf = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned()])
            .unwrap()
            .signed_by(&leaf_key, &rcgen::Issuer::new(ca, &ca_key))
            .unwrap();
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from_pem_slice(leaf.pem().as_bytes()).unwrap()],
            rustls::pki_types::PrivateKeyDer::from_pem_slice(leaf_key.serialize_pem().as_bytes())
                .unwrap(),
        )
        .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let open = Arc::new(AtomicIsize::new(0));
        let counted = open.clone();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, open) = (acceptor.clone(), counted.clone());
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    open.fetch_add(1, Ordering::SeqCst);
                    let service = hyper::service::service_fn(|_| async {
                        Ok::<_, hyper::Error>(hyper::Response::new(Full::new(Bytes::from("{}"))))
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                        .await;
                    open.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        (port, ca_cert.pem(), open)
    }

    /// Calls share one kept connection, which is closed once idle past the idle timeout.
    #[tokio::test]
    async fn connections_are_kept_then_closed_when_idle() {
        use std::sync::atomic::Ordering;
        let (port, ca, open) = echo_server().await;
        let target = Target::Url(format!("https://127.0.0.1:{port}/c"));
        let client = WebhookClient::new(&target, ca.as_bytes(), &ServiceAddresses::new())
            .with_idle_timeout(Duration::from_millis(300));
        for _ in 0..3 {
            let answer = client.post(b"{}".to_vec()).await.unwrap();
            assert_eq!((answer.status, answer.body.as_slice()), (200, &b"{}"[..]));
        }
        assert_eq!(client.idle_connections(), 1);
        assert_eq!(
            open.load(Ordering::SeqCst),
            1,
            "one connection for three calls"
        );
        let deadline = Instant::now() + Duration::from_secs(5);
        while open.load(Ordering::SeqCst) != 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(
            open.load(Ordering::SeqCst),
            0,
            "the idle connection was closed"
        );
        assert_eq!(client.idle_connections(), 0);
        // The next call connects anew.
        client.post(b"{}".to_vec()).await.unwrap();
        assert_eq!(open.load(Ordering::SeqCst), 1);
    }

    /// One client per target and caBundle: the same configuration gets the same client,
    /// another caBundle another one; past the cache size the least recently used goes.
    #[test]
    fn clients_are_kept_per_configuration() {
        let clients = Clients::new(ServiceAddresses::new());
        let webhook = |url: &str, ca: &[u8]| Webhook {
            target: Target::Url(url.to_owned()),
            ca_bundle: ca.to_vec(),
            review_versions: vec!["v1".to_owned()],
        };
        let a = clients.client(&webhook("https://a", b"x"));
        assert!(Arc::ptr_eq(
            &a,
            &clients.client(&webhook("https://a", b"x"))
        ));
        let mut other_versions = webhook("https://a", b"x");
        other_versions.review_versions = vec!["v1beta1".to_owned()];
        assert!(Arc::ptr_eq(&a, &clients.client(&other_versions)));
        assert!(!Arc::ptr_eq(
            &a,
            &clients.client(&webhook("https://a", b"y"))
        ));
        assert!(!Arc::ptr_eq(
            &a,
            &clients.client(&webhook("https://b", b"x"))
        ));
        assert_eq!(clients.len(), 3);
        for i in 0..MAX_CLIENTS {
            // Keep `a` in use while the others fill the cache.
            clients.client(&webhook("https://a", b"x"));
            clients.client(&webhook(&format!("https://h{i}"), b"x"));
        }
        assert_eq!(clients.len(), MAX_CLIENTS);
        assert!(Arc::ptr_eq(
            &a,
            &clients.client(&webhook("https://a", b"x"))
        ));
    }
}
