//! The HTTPS client of conversion webhooks: one `POST` of a JSON body to the webhook's URL
//! with `?timeout=30s`, the serving certificate verified against the CRD's `caBundle` (and
//! the URL's host), as upstream's webhook REST client does (k8s.io/apiserver
//! `pkg/util/webhook`). Failures read as Go's `net/http` client reports them:
//! `Post "<url>?timeout=30s": <cause>`.
//!
//! A `service` reference has no cluster network to resolve it here: the server maps
//! `<namespace>/<name>` to an address with `--webhook-service-address` (the TLS name stays
//! `<name>.<namespace>.svc`, as the certificate upstream's client verifies); a Service without
//! a mapping fails as upstream's resolver does for a missing Service
//! (`service "<name>" not found`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::net::TcpStream;

use super::conversion_spec::Target;

/// How long one webhook call may take (upstream's `?timeout=30s`, its request timeout).
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// The largest webhook response read (its converted objects): past it the call fails.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

/// Where `service` references go: `(namespace, name)` → `host:port`.
pub type ServiceAddresses = HashMap<(String, String), String>;

/// Why a webhook call failed: the cause after `Post "<url>": `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Post {}: {cause}", kcel::library::standard::go_quote(url))]
pub struct CallError {
    /// The URL posted to (with `?timeout=30s`).
    pub url: String,
    /// Go's text of the failure (`dial tcp 127.0.0.1:1: connect: connection refused`).
    pub cause: String,
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

fn endpoint(target: &Target, services: &ServiceAddresses) -> Result<Endpoint, String> {
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
                .ok_or_else(|| {
                    format!(
                        "service {} not found",
                        kcel::library::standard::go_quote(name)
                    )
                })?;
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

/// The TLS client trusting exactly the certificates of `ca_bundle`.
fn tls_config(ca_bundle: &[u8]) -> Result<Arc<rustls::ClientConfig>, String> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_bundle).flatten() {
        let _ = roots.add(cert);
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// Go's text for a TLS failure (crypto/tls and crypto/x509 wording).
fn tls_cause(error: &std::io::Error, server_name: &str) -> String {
    let Some(tls) = error
        .get_ref()
        .and_then(|e| e.downcast_ref::<rustls::Error>())
    else {
        return error.to_string();
    };
    use rustls::CertificateError as C;
    match tls {
        // A CA of the same name that did not sign it: Go's unknown authority too (without
        // its "possibly because of ..." hint).
        rustls::Error::InvalidCertificate(C::UnknownIssuer | C::BadSignature) => {
            "tls: failed to verify certificate: x509: certificate signed by unknown authority"
                .to_owned()
        }
        rustls::Error::InvalidCertificate(C::NotValidForName)
        | rustls::Error::InvalidCertificate(C::NotValidForNameContext { .. }) => format!(
            "tls: failed to verify certificate: x509: certificate is not valid for {server_name}"
        ),
        rustls::Error::InvalidCertificate(C::Expired)
        | rustls::Error::InvalidCertificate(C::ExpiredContext { .. }) => {
            "tls: failed to verify certificate: x509: certificate has expired or is not yet valid"
                .to_owned()
        }
        other => format!("tls: {other}"),
    }
}

/// Go's text for a failed dial (`dial tcp <address>: connect: connection refused`).
fn dial_cause(address: &str, error: &std::io::Error) -> String {
    let what = match error.kind() {
        std::io::ErrorKind::ConnectionRefused => "connect: connection refused".to_owned(),
        _ => error.to_string(),
    };
    format!("dial tcp {address}: {what}")
}

/// Posts `body` to the webhook at `target`, trusting `ca_bundle`; the answer is whatever
/// HTTP status the webhook gave.
pub async fn post(
    target: &Target,
    ca_bundle: &[u8],
    services: &ServiceAddresses,
    body: Vec<u8>,
) -> Result<Answer, CallError> {
    let url = format!("{}?timeout=30s", target.url());
    let fail = |cause: String| CallError {
        url: url.clone(),
        cause,
    };
    let endpoint = endpoint(target, services).map_err(&fail)?;
    let call = async {
        let tcp = TcpStream::connect(&endpoint.address)
            .await
            .map_err(|e| dial_cause(&endpoint.address, &e))?;
        let name =
            ServerName::try_from(endpoint.server_name.clone()).map_err(|e| format!("tls: {e}"))?;
        let connector = tokio_rustls::TlsConnector::from(tls_config(ca_bundle)?);
        let tls = connector
            .connect(name, tcp)
            .await
            .map_err(|e| tls_cause(&e, &endpoint.server_name))?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
                .await
                .map_err(|e| e.to_string())?;
        tokio::spawn(connection);
        let request = hyper::Request::builder()
            .method("POST")
            .uri(&endpoint.path)
            .header("host", &endpoint.host)
            .header("content-type", "application/json")
            .header("accept", "application/json, */*")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| e.to_string())?;
        let response = sender.send_request(request).await.map_err(|e| {
            if e.is_incomplete_message() {
                "EOF".to_owned()
            } else {
                e.to_string()
            }
        })?;
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
            .map_err(|e| e.to_string())?
            .to_bytes()
            .to_vec();
        Ok::<_, String>(Answer {
            status,
            content_type,
            body,
        })
    };
    match tokio::time::timeout(TIMEOUT, call).await {
        Ok(result) => result.map_err(fail),
        Err(_) => Err(fail(
            "context deadline exceeded (Client.Timeout exceeded while awaiting headers)".to_owned(),
        )),
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
            endpoint(&service("gone"), &services).err().unwrap(),
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
        let e = post(&target, b"", &ServiceAddresses::new(), b"{}".to_vec())
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "Post \"https://127.0.0.1:{port}/c?timeout=30s\": dial tcp 127.0.0.1:{port}: connect: connection refused"
            )
        );
    }
}
