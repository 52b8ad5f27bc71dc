//! `kcel test --junit PATH` writes the same XML to a file as `--junit -` prints after the
//! report (the golden transcripts cover `-` and the error paths).

use std::path::PathBuf;
use std::process::Command;

#[test]
fn junit_file_matches_stdout_form() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let out = std::env::temp_dir().join(format!("kcel-junit-{}.xml", std::process::id()));
    let suites = ["data/bad-suites/failing.yaml", "data/suites/widgets.yaml"];
    let to_file = Command::new(env!("CARGO_BIN_EXE_kcel"))
        .current_dir(&dir)
        .arg("test")
        .args(suites)
        .arg("--junit")
        .arg(&out)
        .output()
        .expect("kcel runs");
    let to_stdout = Command::new(env!("CARGO_BIN_EXE_kcel"))
        .current_dir(&dir)
        .arg("test")
        .args(suites)
        .args(["--junit", "-"])
        .output()
        .expect("kcel runs");
    assert_eq!(to_file.status.code(), Some(1));
    assert_eq!(to_stdout.status.code(), Some(1));
    let xml = std::fs::read_to_string(&out).expect("the JUnit file is written");
    let _ = std::fs::remove_file(&out);
    let report = String::from_utf8_lossy(&to_file.stdout);
    assert_eq!(
        format!("{report}{xml}"),
        String::from_utf8_lossy(&to_stdout.stdout)
    );
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
    assert_eq!(xml.matches("<testsuite ").count(), 2);
    assert_eq!(xml.matches("<testcase ").count(), 8);
    assert_eq!(xml.matches("<failure ").count(), 2);
    assert_eq!(xml.matches("<skipped ").count(), 1);
}
