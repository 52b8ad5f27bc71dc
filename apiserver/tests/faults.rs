//! Faults beyond SIGKILL (which `storage_sigkill.rs` covers): a disk that fills up under the
//! database, a database file that is not one, and request streams that break off or are not
//! HTTP at all. Each gets a clear error or a clean close, the server stays up, and no write it
//! acknowledged is lost.

mod support;

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use support::Server;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CMS: &str = "/api/v1/namespaces/default/configmaps";

fn configmap(name: &str, bytes: usize) -> Value {
    json!({"metadata": {"name": name}, "data": {"blob": "x".repeat(bytes)}})
}

/// The largest file the server may write in the full-disk test: room for its certificates
/// and a few writes, then `EFBIG` (a full disk as SQLite sees it).
const FILE_SIZE_LIMIT: u64 = 1_500_000;

#[tokio::test]
async fn a_full_disk_fails_writes_clearly_and_loses_no_acknowledged_one() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr().lock(),
            "skipped: a_full_disk_fails_writes_clearly_and_loses_no_acknowledged_one \
             (prlimit, from util-linux, not found)"
        );
        return;
    }
    let dir = Arc::new(tempfile::tempdir().unwrap());
    // SIGXFSZ ignored (the disposition survives exec), so a write past the limit fails with
    // EFBIG instead of killing the process.
    let limit = format!("--fsize={FILE_SIZE_LIMIT}");
    let wrapper = [
        "sh",
        "-c",
        "trap '' XFSZ; exec prlimit \"$0\" \"$@\"",
        limit.as_str(),
    ];
    let server = Server::start_via(dir.clone(), &wrapper, &[]);
    let mut acknowledged: Vec<(String, String)> = Vec::new();
    let mut refused = Vec::new();
    for i in 0..40 {
        let name = format!("blob-{i}");
        let reply = server
            .send("POST", CMS, Some(&configmap(&name, 100_000)))
            .await;
        match reply.code {
            201 => {
                let rv = reply.json()["metadata"]["resourceVersion"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                acknowledged.push((name, rv));
            }
            500 => {
                let status = reply.json();
                assert_eq!(status["kind"], "Status");
                assert_eq!(status["reason"], "InternalError");
                let message = status["message"].as_str().unwrap();
                assert!(
                    message.starts_with("Internal error occurred: ")
                        && (message.contains("full") || message.contains("I/O")),
                    "{message}"
                );
                refused.push(name);
            }
            code => panic!("unexpected {code}: {}", reply.text()),
        }
    }
    assert!(!acknowledged.is_empty(), "no write fitted");
    assert!(!refused.is_empty(), "the limit never bit");
    // The server is still up and answers reads.
    let health = server.send("GET", "/readyz", None).await;
    assert_eq!(health.code, 200);
    let dir = server.kill();
    // With room again, every acknowledged write is there with its resourceVersion, no refused
    // one is, and writes work.
    let server = Server::start_in(dir, &[]);
    for (name, rv) in &acknowledged {
        let reply = server.send("GET", &format!("{CMS}/{name}"), None).await;
        assert_eq!(reply.code, 200, "{name}: {}", reply.text());
        assert_eq!(reply.json()["metadata"]["resourceVersion"], *rv);
    }
    for name in &refused {
        let reply = server.send("GET", &format!("{CMS}/{name}"), None).await;
        assert_eq!(reply.code, 404, "{name} was refused but is stored");
    }
    let reply = server
        .send("POST", CMS, Some(&configmap("after", 10)))
        .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
}

#[test]
fn a_database_file_that_is_not_one_stops_the_start_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("state.db"), vec![0x5a; 64 * 1024]).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kcel-apiserver"))
        .arg("--data-dir")
        .arg(dir.path())
        .args(["--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("storage") && stderr.contains("not a database"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Writes `bytes` on a new TLS connection, then reads what comes back until the server closes
/// or a second passes.
async fn exchange(server: &Server, bytes: &[u8], close_write: bool) -> String {
    let mut tls = server.connect().await;
    tls.write_all(bytes).await.unwrap();
    if close_write {
        let _ = tls.shutdown().await;
    }
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(2), tls.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn broken_request_streams_get_an_error_or_a_clean_close() {
    let server = Server::start(&["--storage", "memory"]);
    let auth = format!("Authorization: Bearer {}\r\n", server.token);
    let host = format!("Host: {}\r\n", server.address);
    // A body shorter than its Content-Length, then the client stops writing: nothing is
    // stored, nothing answered as success.
    let cut = format!(
        "POST {CMS} HTTP/1.1\r\n{host}{auth}Content-Type: application/json\r\n\
         Content-Length: 400\r\n\r\n{{\"metadata\":{{\"name\":\"cut\"}},\"data\":"
    );
    let answer = exchange(&server, cut.as_bytes(), true).await;
    assert!(!answer.contains("201"), "{answer}");
    // Chunked encoding with a chunk size that is not hex.
    let chunked = format!(
        "POST {CMS} HTTP/1.1\r\n{host}{auth}Content-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\n\r\nzz\r\n{{}}\r\n0\r\n\r\n"
    );
    let answer = exchange(&server, chunked.as_bytes(), false).await;
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 400"),
        "{answer}"
    );
    // Not HTTP at all, inside TLS.
    let answer = exchange(&server, b"\x00\x01\x02 hello\r\n\r\n", false).await;
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 400"),
        "{answer}"
    );
    // Plain HTTP to the TLS port, and bytes that are no TLS handshake.
    for bytes in [
        format!("GET /version HTTP/1.1\r\n{host}\r\n").into_bytes(),
        vec![0x16, 0x03, 0x01, 0xff, 0xff, 0x00, 0x00],
    ] {
        let mut tcp = tokio::net::TcpStream::connect(&server.address)
            .await
            .unwrap();
        tcp.write_all(&bytes).await.unwrap();
        let mut answer = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut answer)).await;
        assert!(read.is_ok(), "the server kept a broken connection open");
    }
    // A client that sends headers and then nothing, holding the connection: the server still
    // serves everyone else.
    let mut idle = server.connect().await;
    idle.write_all(format!("POST {CMS} HTTP/1.1\r\n{host}").as_bytes())
        .await
        .unwrap();
    let reply = server
        .send("POST", CMS, Some(&configmap("after", 10)))
        .await;
    assert_eq!(reply.code, 201, "{}", reply.text());
    let list = server.send("GET", CMS, None).await.json();
    let names: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["metadata"]["name"].as_str())
        .collect();
    assert_eq!(names, ["after"]);
    drop(idle);
}
