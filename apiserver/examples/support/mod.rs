//! What the load generators share: a client of one server (from its kubeconfig, loopback
//! only) over HTTPS connections, latency reports, and a process's resident memory.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

pub type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

pub struct Target {
    address: String,
    token: String,
    tls: TlsConnector,
}

impl Target {
    pub fn from_kubeconfig(path: &str) -> Target {
        let text = std::fs::read_to_string(path).expect("reading the kubeconfig");
        let config: Value = serde_norway::from_str(&text).expect("a YAML kubeconfig");
        let cluster = &config["clusters"][0]["cluster"];
        let server = cluster["server"].as_str().expect("a server URL");
        let address = server.trim_start_matches("https://").to_owned();
        assert!(
            address.starts_with("127.") || address.starts_with("localhost"),
            "loopback only: {address}"
        );
        let ca = base64::engine::general_purpose::STANDARD
            .decode(
                cluster["certificate-authority-data"]
                    .as_str()
                    .expect("CA data"),
            )
            .expect("base64 CA data");
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(CertificateDer::from_pem_slice(&ca).expect("a PEM CA"))
            .expect("a CA certificate");
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        Target {
            address,
            token: config["users"][0]["user"]["token"]
                .as_str()
                .expect("a token")
                .to_owned(),
            tls: TlsConnector::from(Arc::new(tls)),
        }
    }

    pub async fn connect(&self) -> Sender {
        let tcp = TcpStream::connect(&self.address).await.expect("connecting");
        let name = ServerName::try_from("127.0.0.1").expect("a server name");
        let tls = self.tls.connect(name, tcp).await.expect("TLS");
        let (sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
                .await
                .expect("HTTP handshake");
        tokio::spawn(connection);
        sender
    }

    pub async fn send(
        &self,
        sender: &mut Sender,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Bytes) {
        let mut request = hyper::Request::builder()
            .method(method)
            .uri(path)
            .header("host", &self.address)
            .header("accept", "application/json")
            .header("authorization", format!("Bearer {}", self.token));
        if body.is_some() {
            request = request.header("content-type", "application/json");
        }
        let bytes = body.map(|b| b.to_string()).unwrap_or_default();
        let request = request
            .body(Full::new(Bytes::from(bytes)))
            .expect("a request");
        sender.ready().await.expect("the connection is ready");
        let response = sender.send_request(request).await.expect("a response");
        let code = response.status().as_u16();
        let body = response
            .into_body()
            .collect()
            .await
            .expect("a body")
            .to_bytes();
        (code, body)
    }
}

impl Target {
    /// Sends a GET on `sender` and answers the status and the body as it streams (a watch).
    pub async fn stream(&self, sender: &mut Sender, path: &str) -> (u16, hyper::body::Incoming) {
        let request = hyper::Request::builder()
            .method("GET")
            .uri(path)
            .header("host", &self.address)
            .header("accept", "application/json")
            .header("authorization", format!("Bearer {}", self.token))
            .body(Full::new(Bytes::new()))
            .expect("a request");
        sender.ready().await.expect("the connection is ready");
        let response = sender.send_request(request).await.expect("a response");
        (response.status().as_u16(), response.into_body())
    }
}

pub fn report(name: &str, mut latencies: Vec<Duration>, elapsed: Duration) {
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    println!(
        "{name:<8} {:>7} requests  {:>9.0} req/s  p50 {:>8.2} ms  p99 {:>8.2} ms",
        latencies.len(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        at(0.50).as_secs_f64() * 1000.0,
        at(0.99).as_secs_f64() * 1000.0,
    );
}

pub fn rss_kib(pid: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The CPU time (user + system, all threads, exited ones too) a process has used, in
/// milliseconds (10 ms steps: the kernel counts clock ticks).
pub fn cpu_ms(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // USER_HZ is 100 on Linux (the unit of these fields).
    Some(ticks * 10.0)
}

/// CPU time per request of a process over a phase: reads the process's CPU time when made
/// and reports how much it used per request since (in µs) when asked.
pub struct CpuPer {
    pid: Option<String>,
    before: Option<f64>,
}

impl CpuPer {
    /// Starts counting for `pid` (nothing is counted without one).
    pub fn start(pid: Option<&str>) -> CpuPer {
        CpuPer {
            pid: pid.map(str::to_owned),
            before: pid.and_then(cpu_ms),
        }
    }

    /// Prints the CPU time used per request since the start, as `  {who} CPU per {name}: N µs`.
    pub fn report(&self, who: &str, name: &str, requests: usize) {
        let after = self.pid.as_deref().and_then(cpu_ms);
        if let (Some(before), Some(after)) = (self.before, after) {
            println!(
                "  {who} CPU per {name}: {:.0} µs",
                (after - before) * 1000.0 / requests.max(1) as f64
            );
        }
    }
}

/// The median of `values` (the upper one of an even count).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
