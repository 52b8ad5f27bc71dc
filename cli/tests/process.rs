//! Behaviour of the `kcel` process that transcripts cannot show: completion scripts that
//! the shells accept, the exit status after the reader of stdout goes away, and REPL input
//! that is not UTF-8.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn kcel() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kcel"));
    command.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden"));
    command
}

/// Every shell gets a completion script naming the subcommands; bash (when installed)
/// parses the bash one without error.
#[test]
fn completion_scripts_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = kcel()
            .args(["completion", shell])
            .output()
            .expect("kcel runs");
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = String::from_utf8(output.stdout).expect("UTF-8");
        for word in ["eval", "check", "validate", "functions", "--declare"] {
            assert!(script.contains(word), "{shell} script lacks {word}");
        }
        if shell == "bash" {
            match Command::new("bash")
                .args(["-n", "-c", &script])
                .stderr(Stdio::piped())
                .output()
            {
                Ok(out) => assert!(
                    out.status.success(),
                    "bash -n: {}",
                    String::from_utf8_lossy(&out.stderr)
                ),
                Err(_) => println!("skipped: bash -n (bash is not installed)"),
            }
        }
    }
    let output = kcel()
        .args(["completion", "tcsh"])
        .output()
        .expect("kcel runs");
    assert_eq!(output.status.code(), Some(2));
}

/// `kcel test ... | head -1` (under `set -o pipefail`): when the reader closes stdout after
/// the first line, kcel neither panics nor exits 0; it still says that a case failed.
#[test]
fn a_closed_stdout_keeps_the_exit_status() {
    let mut child = kcel()
        .args([
            "test",
            "data/bad-suites/failing.yaml",
            "data/suites/widgets.yaml",
            "data/suites/replica-limit.yaml",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kcel runs");
    // Close the reading end before kcel (still reading its suites) writes anything: every
    // write meets a closed pipe, as after `head -1` has its line.
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("kcel ends");
    assert_eq!(
        output.status.code(),
        Some(1),
        "a failed case is exit status 1"
    );
    assert!(
        !String::from_utf8_lossy(&output.stderr).contains("panicked"),
        "no panic: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A REPL line that is not UTF-8 is reported with its number and skipped; the session goes
/// on with the next line.
#[test]
fn repl_skips_lines_that_are_not_utf8() {
    let mut child = kcel()
        .args(["repl", "--env", "cel"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kcel runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(b"1 + 1\n\"\xff\xfe\"\n2 + 2\n")
        .expect("input written");
    let output = child.wait_with_output().expect("kcel ends");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "2 : int\n4 : int\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: line 2 is not valid UTF-8; skipped\n"
    );
}
