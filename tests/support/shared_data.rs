//! Reference data kept outside the repository, in `../shared` next to its root (the
//! cel-spec conformance suite, the benchmark workload). CI provides it; a fresh clone does
//! not have it. The tests that read it find it here, or skip visibly: one line on stderr
//! saying what was skipped and why. Under CI (`CI=true`) a missing file is a failure, so
//! those tests cannot silently stop running there.

use std::io::Write as _;
use std::path::PathBuf;

/// `../shared/{relative}` (relative to the repository root) when it exists. When it does
/// not, prints `skipped: {what}: ../shared/{relative} not found (...)` and returns `None`,
/// or, under CI, panics with the reason.
///
/// The line is written to stderr directly, not through `eprintln!`, so the test harness
/// does not capture it: `cargo test` shows it for tests that pass.
pub fn shared_data(relative: &str, what: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(relative);
    if path.exists() {
        return Some(path);
    }
    if in_ci() {
        panic!(
            "{what}: ../shared/{relative} not found ({}); CI must provide the reference \
             data, so a missing file fails the run instead of skipping",
            path.display()
        );
    }
    let _ = writeln!(
        std::io::stderr().lock(),
        "skipped: {what}: ../shared/{relative} not found (reference data; CI provides it)"
    );
    None
}

/// Whether the environment says this is CI (`CI=true`, as GitHub Actions and most CI
/// services set it; `1` is accepted too).
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}
