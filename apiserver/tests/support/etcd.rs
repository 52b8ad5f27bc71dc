//! A real etcd for a test: `etcd` (Debian `etcd-server`) started on free loopback ports with
//! a fresh data directory, killed when dropped. Without the binary the caller skips visibly,
//! and fails under `CI=true` (CI installs it).

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running etcd.
pub struct Etcd {
    child: Child,
    _dir: tempfile::TempDir,
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    command: Command,
    client_port: u16,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The etcd binary: `KCEL_ETCD`, else `etcd` on the PATH.
pub fn binary(test: &str) -> Option<PathBuf> {
    let path = match std::env::var_os("KCEL_ETCD") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => std::env::var_os("PATH")
            .map(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join("etcd"))
                    .find(|p| p.is_file())
                    .unwrap_or_default()
            })
            .unwrap_or_default(),
    };
    if path.is_file() {
        return Some(path);
    }
    let why = format!(
        "{test} (no etcd binary: install Debian's etcd-server or set KCEL_ETCD; .ci/run installs it)"
    );
    if std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1") {
        panic!("missing under CI=true: {why}");
    }
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "skipped: {why}");
    None
}

/// An etcd that answers progress requests (3.4.31+ / 3.5.13+, which kube-apiserver needs to
/// serve consistent lists from its watch cache): `KCEL_ETCD_PROGRESS`. Debian 12 ships 3.4.23,
/// so `.ci/run` unpacks Debian 13's `etcd-server` (3.5) into a directory of its own and
/// points the variable there. Unset: skipped visibly; set to a missing file: a failure.
pub fn binary_with_progress_requests(test: &str) -> Option<PathBuf> {
    match std::env::var_os("KCEL_ETCD_PROGRESS") {
        Some(p) if !p.is_empty() => {
            let path = PathBuf::from(p);
            assert!(
                path.is_file(),
                "KCEL_ETCD_PROGRESS={} is not a file",
                path.display()
            );
            Some(path)
        }
        _ => {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr().lock(),
                "skipped: {test} (needs an etcd that answers progress requests, 3.4.31+ or \
                 3.5.13+, in KCEL_ETCD_PROGRESS; Debian 12's is 3.4.23; .ci/run sets it)"
            );
            None
        }
    }
}

impl Etcd {
    /// Starts etcd and waits (at most 20 s) until it answers.
    pub fn start(binary: &PathBuf) -> Etcd {
        let dir = tempfile::tempdir().unwrap();
        let (client, peer) = (free_port(), free_port());
        let url = format!("http://127.0.0.1:{client}");
        let peer_url = format!("http://127.0.0.1:{peer}");
        let mut command = Command::new(binary);
        command
            .arg("--name")
            .arg("test")
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .args(["--listen-client-urls", &url])
            .args(["--advertise-client-urls", &url])
            .args(["--listen-peer-urls", &peer_url])
            .args(["--initial-advertise-peer-urls", &peer_url])
            .args(["--initial-cluster", &format!("test={peer_url}")])
            // Progress notifications every second (default 10 minutes), so that watch caches
            // learn of revisions their resource did not see (bookmarks).
            .args(["--experimental-watch-progress-notify-interval", "1s"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = command.spawn().expect("starting etcd");
        let etcd = Etcd {
            child,
            _dir: dir,
            url,
            command,
            client_port: client,
        };
        etcd.wait_until_listening();
        etcd
    }

    fn wait_until_listening(&self) {
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.client_port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "etcd did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills etcd (SIGKILL); its data stays for [`Etcd::restart`].
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts etcd again on the same ports and data.
    pub fn restart(&mut self) {
        self.child = self.command.spawn().expect("restarting etcd");
        self.wait_until_listening();
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
