//! `kcel test SUITE.yaml...`: runs suites of cases against ValidatingAdmissionPolicies and
//! CRD rules (`kcel_stdlib::kubernetes::suite`), printing a line per case and a summary, optionally JUnit XML.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kcel_stdlib::kubernetes::suite::{CaseResult, Outcome, Suite};

use serde::Serialize;

use crate::args::Format;
use crate::input::InputError;
use crate::output::{Status, machine, usage};
use crate::usage_error::UsageError;

/// A suite file and its results.
struct FileResults {
    name: String,
    results: Vec<CaseResult>,
}

/// The suite files named on the command line: files as given, directories as their
/// `*.yaml`, `*.yml` and `*.json` files in name order.
fn suite_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, UsageError> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let entries = std::fs::read_dir(path).map_err(|error| InputError::Read {
                path: path.display().to_string(),
                error,
            })?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_file()
                        && p.extension()
                            .is_some_and(|x| x == "yaml" || x == "yml" || x == "json")
                })
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(UsageError::NoSuiteFiles(path.display().to_string()));
            }
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// Reads and checks one suite file (strictly: unknown fields are errors).
fn read_suite(path: &Path) -> Result<Suite, UsageError> {
    let text = std::fs::read_to_string(path).map_err(|error| InputError::Read {
        path: path.display().to_string(),
        error,
    })?;
    Suite::from_yaml(&text).map_err(|error| UsageError::Suite {
        path: path.display().to_string(),
        error,
    })
}

/// Runs the command: every file is read and checked before any case runs (exit 2 on a bad
/// file); exit 1 when a case fails.
pub fn run(paths: &[PathBuf], junit: Option<&Path>, format: Format) -> Status {
    if junit == Some(Path::new("-")) && matches!(format, Format::Json | Format::Yaml) {
        return usage(
            "--junit - writes to stdout, which -o json/yaml already uses; give --junit a file",
        );
    }
    let files = match suite_files(paths) {
        Ok(f) => f,
        Err(e) => return usage(&e),
    };
    let mut suites = Vec::with_capacity(files.len());
    for path in &files {
        match read_suite(path) {
            Ok(suite) => suites.push((path.display().to_string(), suite)),
            Err(e) => return usage(&e),
        }
    }
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut reports = Vec::with_capacity(suites.len());
    for (name, suite) in &suites {
        let results = suite.run();
        for r in &results {
            match &r.outcome {
                Outcome::Passed => passed += 1,
                Outcome::Failed(_) => failed += 1,
                Outcome::Skipped(_) => skipped += 1,
            }
            if format.is_text() {
                print_case(name, r);
            }
        }
        reports.push(FileResults {
            name: name.clone(),
            results,
        });
    }
    match format {
        _ if format.is_text() => {
            if skipped > 0 {
                outln!("{passed} passed, {failed} failed, {skipped} skipped");
            } else {
                outln!("{passed} passed, {failed} failed");
            }
        }
        _ => out!(
            "{}",
            machine(
                format,
                &TestReport {
                    passed,
                    failed,
                    skipped,
                    files: reports.iter().map(FileReport::from).collect(),
                }
            )
        ),
    }
    if let Some(path) = junit {
        let xml = junit_xml(&reports);
        if path == Path::new("-") {
            out!("{xml}");
        } else if let Err(e) = std::fs::write(path, xml) {
            return usage(format!("cannot write '{}': {e}", path.display()));
        }
    }
    if failed > 0 {
        Status::False
    } else {
        Status::Ok
    }
}

/// One case's lines of the text report.
fn print_case(file: &str, r: &CaseResult) {
    match &r.outcome {
        Outcome::Passed => outln!("PASS {file}: {}", r.name),
        Outcome::Failed(mismatches) => {
            outln!("FAIL {file}: {}", r.name);
            for m in mismatches {
                outln!(
                    "  {}\n    expected: {}\n    actual:   {}",
                    m.what,
                    m.expected,
                    m.actual
                );
            }
        }
        Outcome::Skipped(reason) => outln!("SKIP {file}: {} ({reason})", r.name),
    }
}

/// The `-o json` / `-o yaml` shape of `kcel test`.
#[derive(Serialize)]
struct TestReport<'a> {
    passed: usize,
    failed: usize,
    skipped: usize,
    files: Vec<FileReport<'a>>,
}

#[derive(Serialize)]
struct FileReport<'a> {
    file: &'a str,
    cases: Vec<CaseReport<'a>>,
}

#[derive(Serialize)]
struct CaseReport<'a> {
    name: &'a str,
    /// `passed`, `failed` or `skipped`.
    outcome: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    mismatches: Vec<MismatchReport<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

/// One unmet expectation; `expected` and `actual` are JSON texts.
#[derive(Serialize)]
struct MismatchReport<'a> {
    what: &'a str,
    expected: &'a str,
    actual: &'a str,
}

impl<'a> From<&'a FileResults> for FileReport<'a> {
    fn from(f: &'a FileResults) -> FileReport<'a> {
        FileReport {
            file: &f.name,
            cases: f
                .results
                .iter()
                .map(|r| {
                    let (outcome, mismatches, reason) = match &r.outcome {
                        Outcome::Passed => ("passed", vec![], None),
                        Outcome::Failed(ms) => (
                            "failed",
                            ms.iter()
                                .map(|m| MismatchReport {
                                    what: &m.what,
                                    expected: &m.expected,
                                    actual: &m.actual,
                                })
                                .collect(),
                            None,
                        ),
                        Outcome::Skipped(reason) => ("skipped", vec![], Some(reason.as_str())),
                    };
                    CaseReport {
                        name: &r.name,
                        outcome,
                        mismatches,
                        reason,
                    }
                })
                .collect(),
        }
    }
}

/// Escapes text for XML attribute values (line breaks as character references).
fn xml_escape(text: &str) -> String {
    escape(text, true)
}

/// Escapes text for XML character data (line breaks kept).
fn xml_text(text: &str) -> String {
    escape(text, false)
}

fn escape(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\'' if attribute => out.push_str("&apos;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\r' => out.push_str("&#13;"),
            '\n' | '\t' => out.push(c),
            // Characters XML 1.0 cannot hold at all.
            c if (c as u32) < 0x20 => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// JUnit XML: a `testsuite` per file, a `testcase` per case, `failure` elements whose
/// message is the first mismatch and whose text lists them all, `skipped` with the reason.
fn junit_xml(files: &[FileResults]) -> String {
    let count = |f: &FileResults, p: fn(&Outcome) -> bool| {
        f.results.iter().filter(|r| p(&r.outcome)).count()
    };
    let is_failed = |o: &Outcome| matches!(o, Outcome::Failed(_));
    let is_skipped = |o: &Outcome| matches!(o, Outcome::Skipped(_));
    let total: usize = files.iter().map(|f| f.results.len()).sum();
    let failures: usize = files.iter().map(|f| count(f, is_failed)).sum();
    let skipped: usize = files.iter().map(|f| count(f, is_skipped)).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"kcel\" tests=\"{total}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">"
    );
    for f in files {
        let name = xml_escape(&f.name);
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{name}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">",
            f.results.len(),
            count(f, is_failed),
            count(f, is_skipped)
        );
        for r in &f.results {
            let case = xml_escape(&r.name);
            match &r.outcome {
                Outcome::Passed => {
                    let _ = writeln!(xml, "    <testcase name=\"{case}\" classname=\"{name}\"/>");
                }
                Outcome::Failed(mismatches) => {
                    let _ = writeln!(xml, "    <testcase name=\"{case}\" classname=\"{name}\">");
                    let message = mismatches
                        .first()
                        .map(|m| m.to_string())
                        .unwrap_or_default();
                    let body: Vec<String> = mismatches
                        .iter()
                        .map(|m| {
                            format!(
                                "{}\n  expected: {}\n  actual:   {}",
                                m.what, m.expected, m.actual
                            )
                        })
                        .collect();
                    let _ = writeln!(
                        xml,
                        "      <failure message=\"{}\" type=\"mismatch\">{}</failure>",
                        xml_escape(&message),
                        xml_text(&body.join("\n"))
                    );
                    xml.push_str("    </testcase>\n");
                }
                Outcome::Skipped(reason) => {
                    let _ = writeln!(
                        xml,
                        "    <testcase name=\"{case}\" classname=\"{name}\">\n      <skipped message=\"{}\"/>\n    </testcase>",
                        xml_escape(reason)
                    );
                }
            }
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_text_is_escaped() {
        assert_eq!(
            xml_escape("a<b & \"c\" 'd'\n\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&#10;\u{FFFD}"
        );
        assert_eq!(xml_text("a\n<'b'>"), "a\n&lt;'b'&gt;");
    }
}
