//! Starting `kcel-apiserver` for a test and talking HTTPS to it.
//!
//! [`Server::start`] runs the binary on a free 127.0.0.1 port with a fresh data directory and
//! reads the kubeconfig it writes; [`Server::request`] sends one request over a new TLS
//! connection that trusts the server's CA, with the admin token unless told otherwise.
//! [`Kubectl`] and [`Python`] drive the real clients against it.

#![allow(dead_code)]

mod kubectl;
pub mod mutating;
pub mod uid_precondition;
#[allow(unused_imports)]
pub use kubectl::{COMMAND_LIMIT, Kubectl};

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

/// A running server and what its kubeconfig says.
pub struct Server {
    child: Option<Child>,
    /// Keeps the data directory alive for restarts.
    pub dir: Arc<tempfile::TempDir>,
    /// `https://127.0.0.1:<port>`.
    pub url: String,
    /// `127.0.0.1:<port>`.
    pub address: String,
    /// The admin bearer token from the kubeconfig.
    pub token: String,
    tls: TlsConnector,
}

/// Which credentials a request presents.
#[derive(Clone, Copy)]
pub enum Auth<'a> {
    /// The admin token from the kubeconfig.
    Admin,
    /// No `Authorization` header.
    None,
    /// This bearer token.
    Token(&'a str),
}

/// A response: status code, headers and body.
pub struct Reply {
    pub code: u16,
    pub content_type: String,
    pub headers: hyper::HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Asserts that this is what kube-apiserver's panic recovery answers
    /// (`server/filters/wrap.go`, `WithPanicRecovery`: `http.Error` of its text, 500, in
    /// plain text).
    pub fn assert_panicked(&self) {
        assert_eq!(
            (self.code, self.content_type.as_str(), self.text().as_str()),
            (
                500,
                "text/plain; charset=utf-8",
                "This request caused apiserver to panic. Look in the logs for details.\n"
            )
        );
        assert_eq!(self.headers["x-content-type-options"], "nosniff");
    }
}

impl Server {
    /// Starts the server with a fresh data directory and extra flags.
    pub fn start(extra: &[&str]) -> Server {
        let dir = Arc::new(tempfile::tempdir().unwrap());
        Self::start_in(dir, extra)
    }

    /// Starts the server on an existing data directory.
    pub fn start_in(dir: Arc<tempfile::TempDir>, extra: &[&str]) -> Server {
        Self::start_with_env(dir, extra, &[])
    }

    /// Starts the server on an existing data directory with extra environment variables.
    pub fn start_with_env(
        dir: Arc<tempfile::TempDir>,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Server {
        Self::launch(dir, &[], extra, env)
    }

    /// Starts the server on an existing data directory through a wrapper command (e.g.
    /// `prlimit ...`), which gets the server's path and arguments after its own.
    pub fn start_via(dir: Arc<tempfile::TempDir>, wrapper: &[&str], extra: &[&str]) -> Server {
        Self::launch(dir, wrapper, extra, &[])
    }

    fn launch(
        dir: Arc<tempfile::TempDir>,
        wrapper: &[&str],
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Server {
        let binary = env!("CARGO_BIN_EXE_kcel-apiserver");
        let mut command = match wrapper {
            [program, args @ ..] => {
                let mut command = Command::new(program);
                command.args(args).arg(binary);
                command
            }
            [] => Command::new(binary),
        };
        let mut child = command
            .envs(env.iter().copied())
            .arg("--data-dir")
            .arg(dir.path())
            .args(["--listen", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        // The first line names the URL once the socket is bound and the kubeconfig written;
        // a server that does not get there in START_LIMIT fails the test.
        let stdout = child.stdout.take().unwrap();
        let (first_line, read) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = first_line.send(line);
        });
        let Ok(line) = read.recv_timeout(START_LIMIT) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server did not start in {START_LIMIT:?}");
        };
        let Some(url) = line.trim().strip_prefix("kcel-apiserver: serving on ") else {
            let _ = child.kill();
            panic!("the server did not start: {line:?}");
        };
        let mut server = Self::attach(dir);
        assert_eq!(server.url, url);
        server.child = Some(child);
        server
    }

    /// A server run by the test itself (in this process) on `dir`: reached at the URL its
    /// kubeconfig names with its CA and admin token; nothing to stop when dropped.
    pub fn attach(dir: Arc<tempfile::TempDir>) -> Server {
        let config = read_kubeconfig(&dir.path().join("kubeconfig"));
        let url = config["clusters"][0]["cluster"]["server"]
            .as_str()
            .unwrap()
            .to_owned();
        let cluster = &config["clusters"][0]["cluster"];
        assert_eq!(cluster["server"].as_str(), Some(url.as_str()));
        let ca = base64::engine::general_purpose::STANDARD
            .decode(cluster["certificate-authority-data"].as_str().unwrap())
            .unwrap();
        let token = config["users"][0]["user"]["token"]
            .as_str()
            .unwrap()
            .to_owned();
        Server {
            child: None,
            address: url.trim_start_matches("https://").to_owned(),
            url,
            token,
            tls: connector(&ca),
            dir,
        }
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        self.dir.path()
    }

    /// Sends SIGTERM and waits for a clean exit.
    pub fn stop(mut self) -> Arc<tempfile::TempDir> {
        let mut child = self.child.take().unwrap();
        // The shell's builtin `kill`: no dependency on a kill binary being installed.
        let status = Command::new("sh")
            .args(["-c", &format!("kill -TERM {}", child.id())])
            .status()
            .unwrap();
        assert!(status.success());
        let exit = child.wait().unwrap();
        assert!(exit.success(), "the server exited with {exit}");
        self.dir.clone()
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// Kills the server with SIGKILL and waits for it to die.
    pub fn kill(mut self) -> Arc<tempfile::TempDir> {
        let mut child = self.child.take().unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        self.dir.clone()
    }

    /// A new TLS connection to the server, for tests that write raw bytes.
    pub async fn connect(&self) -> tokio_rustls::client::TlsStream<TcpStream> {
        let tcp = TcpStream::connect(&self.address).await.unwrap();
        let name = ServerName::try_from("127.0.0.1").unwrap();
        self.tls.connect(name, tcp).await.unwrap()
    }

    /// Sends one request with the admin token.
    pub async fn send(&self, method: &str, path: &str, body: Option<&Value>) -> Reply {
        let bytes = body.map(|b| serde_json::to_vec(b).unwrap());
        self.request(method, path, bytes, Auth::Admin).await
    }

    /// Sends one request over a new connection.
    pub async fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<Vec<u8>>,
        auth: Auth<'_>,
    ) -> Reply {
        let content_type: &[(&str, &str)] = if body.is_some() {
            &[("content-type", "application/json")]
        } else {
            &[]
        };
        self.request_with(method, path, body, auth, content_type)
            .await
    }

    /// Sends a GET with the admin token and answers the status code and the body as it
    /// streams (for watches).
    pub async fn stream(&self, path: &str) -> (u16, hyper::body::Incoming) {
        let tcp = TcpStream::connect(&self.address).await.unwrap();
        let name = ServerName::try_from("127.0.0.1").unwrap();
        let tls = self.tls.connect(name, tcp).await.unwrap();
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
                .await
                .unwrap();
        tokio::spawn(connection);
        let request = hyper::Request::builder()
            .method("GET")
            .uri(path)
            .header("host", &self.address)
            .header("authorization", format!("Bearer {}", self.token))
            .body(Full::new(Bytes::new()))
            .unwrap();
        let response = sender.send_request(request).await.unwrap();
        (response.status().as_u16(), response.into_body())
    }

    /// Sends one request with the admin token and these headers (an `accept` given here
    /// replaces the default `application/json`).
    pub async fn send_with(
        &self,
        method: &str,
        path: &str,
        body: Option<Vec<u8>>,
        headers: &[(&str, &str)],
    ) -> Reply {
        self.request_with(method, path, body, Auth::Admin, headers)
            .await
    }

    /// Sends one request over a new connection with extra headers.
    pub async fn request_with(
        &self,
        method: &str,
        path: &str,
        body: Option<Vec<u8>>,
        auth: Auth<'_>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let answer = self.try_request(method, path, body, auth, headers);
        match tokio::time::timeout(REQUEST_LIMIT, answer).await {
            Ok(reply) => reply.unwrap(),
            Err(_) => panic!("no answer to {method} {path} within {REQUEST_LIMIT:?}"),
        }
    }

    /// Sends one request over a new connection with extra headers; a connection that fails
    /// (the server killed, say) is an error, not a panic.
    pub async fn try_request(
        &self,
        method: &str,
        path: &str,
        body: Option<Vec<u8>>,
        auth: Auth<'_>,
        headers: &[(&str, &str)],
    ) -> Result<Reply, String> {
        let e = |e: &dyn std::fmt::Display| e.to_string();
        let tcp = TcpStream::connect(&self.address).await.map_err(|x| e(&x))?;
        let name = ServerName::try_from("127.0.0.1").unwrap();
        let tls = self.tls.connect(name, tcp).await.map_err(|x| e(&x))?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
                .await
                .map_err(|x| e(&x))?;
        tokio::spawn(connection);
        let mut request = hyper::Request::builder()
            .method(method)
            .uri(path)
            .header("host", &self.address)
            .header(
                "accept",
                headers
                    .iter()
                    .find(|(k, _)| *k == "accept")
                    .map_or("application/json", |(_, v)| v),
            );
        for (name, value) in headers.iter().filter(|(k, _)| *k != "accept") {
            request = request.header(*name, *value);
        }
        match auth {
            Auth::Admin => {
                request = request.header("authorization", format!("Bearer {}", self.token))
            }
            Auth::Token(t) => request = request.header("authorization", format!("Bearer {t}")),
            Auth::None => {}
        }
        let request = request
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .unwrap();
        let response = sender.send_request(request).await.map_err(|x| e(&x))?;
        let code = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let headers = response.headers().clone();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|x| e(&x))?
            .to_bytes()
            .to_vec();
        Ok(Reply {
            code,
            content_type,
            headers,
            body,
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The kubeconfig file as JSON.
pub fn read_kubeconfig(path: &PathBuf) -> Value {
    serde_norway::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn connector(ca_pem: &[u8]) -> TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(ca_pem).unwrap())
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    TlsConnector::from(Arc::new(config))
}

/// A real client the tests drive: kubectl or the Python interpreter of the venv `.ci/run`
/// makes (`target/venv-ci`), or the one named by an environment variable.
///
/// `None` means the test is to be skipped; it prints why. Under `CI=true` a missing tool
/// fails the test instead, since CI installs it.
pub fn real_client(env: &str, venv_name: &str, test: &str) -> Option<PathBuf> {
    let path = match std::env::var_os(env) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../target/venv-ci/bin")
            .join(venv_name),
    };
    if path.is_file() {
        return Some(path);
    }
    let why = format!(
        "{test} ({venv_name} not found at {}; set {env} or run .ci/run, which installs it)",
        path.display()
    );
    if std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1") {
        panic!("missing under CI=true: {why}");
    }
    // Straight to stderr, not through `eprintln!`, so that the test harness does not capture
    // it: `cargo test` shows the line for tests that pass.
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "skipped: {why}");
    None
}

/// How long a test waits for the answer to one request before it fails (a server that
/// stops answering fails the test instead of holding it forever).
const REQUEST_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

/// How long a server may take to start (bind its socket and write its kubeconfig).
const START_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

/// The Python client's interpreter ([`real_client`] `KCEL_PYTHON`), to run the scripts
/// under `tests/` against a server.
pub struct Python(PathBuf);

impl Python {
    /// The interpreter, or `None` (a printed skip) for `test` without it.
    pub fn find(test: &str) -> Option<Python> {
        real_client("KCEL_PYTHON", "python", test).map(Python)
    }

    /// Runs `tests/<script>` with the server's kubeconfig and then `args`, within `limit`.
    pub fn run(
        &self,
        server: &Server,
        script: &str,
        args: &[&str],
        limit: std::time::Duration,
    ) -> Ran {
        let mut command = Command::new(&self.0);
        command
            .arg(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests")
                    .join(script),
            )
            .arg(server.data_dir().join("kubeconfig"))
            .args(args);
        run_bounded(command, None, limit)
    }
}

/// What a client process did.
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl std::fmt::Debug for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Runs a command to its end, killing it after `limit`.
pub fn run_bounded(mut command: Command, stdin: Option<&str>, limit: std::time::Duration) -> Ran {
    use std::io::{Read, Write};
    command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("starting the client");
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(input.as_bytes()).unwrap();
    }
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = std::time::Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code().unwrap_or(-1);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break -9;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Ran {
        code,
        stdout: out_reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    }
}

/// Reads watch events until `count` arrived (or the stream ends).
pub async fn read_events(body: &mut hyper::body::Incoming, count: usize) -> Vec<Value> {
    let mut buffer = Vec::new();
    let mut events = Vec::new();
    while events.len() < count {
        let frame = tokio::time::timeout(std::time::Duration::from_secs(10), body.frame())
            .await
            .expect("an event within 10 s");
        let Some(Ok(frame)) = frame else { break };
        if let Ok(data) = frame.into_data() {
            buffer.extend_from_slice(&data);
        }
        while let Some(end) = buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=end).collect();
            events.push(serde_json::from_slice(&line).unwrap());
        }
    }
    events
}
