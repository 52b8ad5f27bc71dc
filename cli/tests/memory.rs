//! Issue 28: a large object validates in bounded memory. `kcel validate` runs in a child
//! process on a generated custom resource of about 20 MB whose every item is defaulted and
//! which has a field to prune (the two steps that used to copy the whole document), and
//! the child's peak resident set size (`wait4`'s `ru_maxrss`) must stay below a bound
//! proportional to the input. The shape is that of `benches/memory/generate.py` (the
//! hand-run measurement in BENCHMARKS.md); `KCEL_MEMORY_ITEMS=N` changes the item count.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Items in the generated object (about 108 bytes of JSON each).
const ITEMS: usize = 185_000;

/// The bound on peak RSS, as a multiple of the input's size, plus a fixed allowance for
/// the process itself. The document tree (serde_json's maps) takes about 13 times its JSON
/// text here and the text is held while it is read (measured with the `kcel` binary's
/// mimalloc: 321.5 MB, 16.2 times the input, for the default size, of which the process
/// itself is about 40 MB; 366.5 MB with glibc's allocator; validation adds about 1% to
/// reading); each whole-document copy (the pruned copy and the defaulted copy validation
/// made before this test was written) adds another 13: one copy, or a working set of a
/// third of the tree, takes the peak past the bound.
const MAX_RATIO: u64 = 18;
const ALLOWANCE: u64 = 40 << 20;

/// The CRD, shared with the hand-run generator `benches/memory/generate.py`.
const CRD: &str = include_str!("../../benches/memory/widgets-crd.yaml");

/// A Widget of `items` items without `enabled` (defaulted in every item) and with one
/// unknown field (`spec.extra`, pruned).
fn object(items: usize) -> String {
    let mut out = String::with_capacity(items * 110 + 200);
    out.push_str(
        r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"big","namespace":"default"},"spec":{"extra":"pruned","items":["#,
    );
    for i in 0..items {
        if i > 0 {
            out.push(',');
        }
        let protocol = if i % 2 == 1 { "TCP" } else { "UDP" };
        let weight = (i % 1000) as f64 / 8.0 + 0.5;
        write!(
            out,
            r#"{{"name":"item-{i}","port":{},"protocol":"{protocol}","weight":{weight},"labels":{{"app":"a{}","tier":"backend"}}}}"#,
            1 + i % 65535,
            i % 100
        )
        .unwrap();
    }
    out.push_str("]}}\n");
    out
}

/// A directory of its own under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        let dir = std::env::temp_dir().join(format!("kcel-memory-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `command` to its end; answers its exit code and peak RSS in bytes.
#[cfg(target_os = "linux")]
// The child is reaped by wait4 below, which std's lint cannot see.
#[allow(clippy::zombie_processes)]
fn run_measured(command: &mut Command) -> (Option<i32>, u64) {
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kcel runs");
    // The warnings on stderr are few lines; read to the end, then reap the child with
    // wait4 (std's wait would not give its resource usage).
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("piped"), &mut stderr)
        .expect("stderr");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, not yet waited for; the pointers are to live locals.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(
        stderr.contains(r#"unknown field "spec.extra""#),
        "the pruning warning: {stderr}"
    );
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    // Linux reports ru_maxrss in kilobytes.
    (code, usage.ru_maxrss as u64 * 1024)
}

#[cfg(target_os = "linux")]
#[test]
fn a_large_object_validates_in_bounded_memory() {
    let items = std::env::var("KCEL_MEMORY_ITEMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(ITEMS);
    let dir = TempDir::new();
    let crd = dir.0.join("crd.yaml");
    let object_path = dir.0.join("object.json");
    std::fs::write(&crd, CRD).unwrap();
    let text = object(items);
    std::fs::write(&object_path, &text).unwrap();
    let size = text.len() as u64;
    drop(text);
    let started = std::time::Instant::now();
    let (code, peak) = run_measured(
        Command::new(env!("CARGO_BIN_EXE_kcel"))
            .current_dir(Path::new(&dir.0))
            .args(["validate", "--crd", "crd.yaml", "object.json"]),
    );
    let bound = MAX_RATIO * size + ALLOWANCE;
    println!(
        "kcel validate: {items} items, {:.1} MB of JSON: peak RSS {:.1} MB ({:.1}x the input; \
         bound {:.1} MB), {:.1} s",
        size as f64 / 1e6,
        peak as f64 / 1e6,
        peak as f64 / size as f64,
        bound as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    // The rule runs out of its per-call cost on a list this long: invalid, exit 1.
    assert_eq!(code, Some(1), "kcel validate's exit code");
    assert!(
        peak <= bound,
        "peak RSS {peak} bytes above the bound of {bound} bytes ({MAX_RATIO}x the input's \
         {size} bytes + {ALLOWANCE})"
    );
}

#[cfg(not(target_os = "linux"))]
#[test]
fn a_large_object_validates_in_bounded_memory() {
    println!("skipped: peak RSS is read with Linux's wait4 ru_maxrss (kilobytes)");
}
