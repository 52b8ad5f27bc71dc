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

/// The CRD of the deep objects below: `spec.a` keeps any value and must not change (a rule
/// comparing it whole with its old value); `spec` has a defaulted field and a rule.
const DEEP_CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: deeps.example.com}
spec:
  group: example.com
  names: {kind: Deep, plural: deeps}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.limit < 3
            properties:
              mode: {type: string, default: deep}
              limit: {type: integer, maximum: 5}
              a:
                type: object
                x-kubernetes-preserve-unknown-fields: true
                x-kubernetes-validations:
                - {rule: self == oldSelf, message: a is immutable}
"#;

/// Issue 28: `kcel validate` reads custom resources nested 10,000 levels deep — the most
/// Kubernetes reads — in JSON and YAML, and validates them against their CRD (pruned,
/// defaulted, checked against the schema, a rule comparing the deep field whole with its
/// old value finding the innermost change); 10,001 levels get encoding/json's error.
#[test]
fn validate_reads_objects_nested_10000_levels() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    std::fs::write(dir.join("crd.yaml"), DEEP_CRD).expect("written");
    // The root and `spec` are two levels; `spec.a`, a chain of objects, holds the others.
    let json = |name: &str, levels: usize, leaf: u32| {
        let chain = levels - 3;
        format!(
            r#"{{"apiVersion":"example.com/v1","kind":"Deep","metadata":{{"name":"{name}"}},"extra":1,"spec":{{"limit":1,"a":{}{{"leaf":{leaf}}}{}}}}}"#,
            "{\"a\":".repeat(chain),
            "}".repeat(chain)
        )
    };
    std::fs::write(dir.join("deep.json"), json("deep", 10_000, 1)).expect("written");
    std::fs::write(dir.join("old.json"), json("deep", 10_000, 2)).expect("written");
    std::fs::write(dir.join("too-deep.json"), json("too-deep", 10_001, 1)).expect("written");
    // In YAML, `spec.a` a chain of compact block sequences under a key (`a: - - - leaf`).
    let yaml = format!(
        "apiVersion: example.com/v1\nkind: Deep\nmetadata:\n  name: deep-yaml\nspec:\n  limit: 4\n  a:\n    a:\n      {}leaf\n",
        "- ".repeat(10_000 - 3)
    );
    std::fs::write(dir.join("deep.yaml"), yaml).expect("written");

    let started = std::time::Instant::now();
    let output = kcel()
        .current_dir(&dir)
        .args([
            "validate",
            "--crd",
            "crd.yaml",
            "--old",
            "old.json",
            "deep.json",
            "deep.yaml",
        ])
        .output()
        .expect("kcel runs");
    println!("10,000 levels validated in {:?}", started.elapsed());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "deep.json: The Deep \"deep\" is invalid: spec.a: Invalid value: a is immutable\n\
         deep.yaml: The Deep \"deep-yaml\" is invalid: spec: Invalid value: failed rule: self.limit < 3\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "Warning: deep.json: unknown field \"extra\"\n"
    );
    assert_eq!(output.status.code(), Some(1), "invalid objects");

    let output = kcel()
        .current_dir(&dir)
        .args(["validate", "--crd", "crd.yaml", "too-deep.json"])
        .output()
        .expect("kcel runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("invalid character '{' exceeded max depth"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
