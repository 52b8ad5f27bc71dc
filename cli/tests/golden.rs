//! Golden transcripts of the `kcel` binary: every `tests/golden/*.txt` holds cases of the form
//!
//! ```text
//! # optional comment lines
//! $ NAME=VALUE kcel ARGS...      (shell-style quoting; leading NAME=VALUE set variables)
//! --- stdin                       (optional)
//! --- stdout                      (omitted when empty)
//! --- stderr                      (omitted when empty)
//! --- status N                    (ends the case)
//! ```
//!
//! Commands run in `tests/golden/` with `NO_COLOR` and `CLICOLOR_FORCE` unset unless the case
//! sets them. `KCEL_BLESS=1 cargo test -p kcel-cli --test golden` rewrites the expectations.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One transcript case.
#[derive(Debug, Default, Clone, PartialEq)]
struct Case {
    /// Comment and blank lines before the command, kept as they are.
    preamble: String,
    command: String,
    stdin: Option<String>,
    stdout: String,
    stderr: String,
    status: i32,
}

#[derive(PartialEq)]
enum Section {
    None,
    Stdin,
    Stdout,
    Stderr,
}

fn parse(text: &str, file: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut case = Case::default();
    let mut section = Section::None;
    let mut started = false;
    for line in text.lines() {
        if !started {
            if let Some(command) = line.strip_prefix("$ ") {
                case.command = command.to_string();
                started = true;
            } else {
                case.preamble.push_str(line);
                case.preamble.push('\n');
            }
            continue;
        }
        if let Some(status) = line.strip_prefix("--- status ") {
            case.status = status
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("{}: bad status line '{line}'", file.display()));
            cases.push(std::mem::take(&mut case));
            section = Section::None;
            started = false;
            continue;
        }
        let next = match line {
            "--- stdin" => Some(Section::Stdin),
            "--- stdout" => Some(Section::Stdout),
            "--- stderr" => Some(Section::Stderr),
            _ => None,
        };
        if let Some(next) = next {
            if next == Section::Stdin {
                case.stdin = Some(String::new());
            }
            section = next;
            continue;
        }
        let target = match section {
            Section::Stdin => case.stdin.get_or_insert_with(String::new),
            Section::Stdout => &mut case.stdout,
            Section::Stderr => &mut case.stderr,
            Section::None => panic!(
                "{}: text outside a section after '$ {}'",
                file.display(),
                case.command
            ),
        };
        target.push_str(line);
        target.push('\n');
    }
    assert!(
        !started,
        "{}: case '$ {}' has no '--- status' line",
        file.display(),
        case.command
    );
    cases
}

fn write(cases: &[Case]) -> String {
    let mut out = String::new();
    for case in cases {
        out.push_str(&case.preamble);
        out.push_str(&format!("$ {}\n", case.command));
        if let Some(stdin) = &case.stdin {
            out.push_str("--- stdin\n");
            out.push_str(stdin);
        }
        for (name, text) in [("stdout", &case.stdout), ("stderr", &case.stderr)] {
            if !text.is_empty() {
                out.push_str(&format!("--- {name}\n{text}"));
                if !text.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
        out.push_str(&format!("--- status {}\n", case.status));
    }
    out
}

/// Splits a command line like a POSIX shell: single quotes are literal, double quotes allow
/// `\"`, `\\` and `\$`, `$'...'` decodes `\n`, `\t`, `\'` and `\\`, a backslash outside
/// quotes escapes the next character.
fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '$' if chars.clone().next() == Some('\'') => {
                in_word = true;
                chars.next();
                while let Some(c) = chars.next() {
                    match c {
                        '\'' => break,
                        '\\' => match chars.next() {
                            Some('n') => word.push('\n'),
                            Some('t') => word.push('\t'),
                            Some(e) => word.push(e),
                            None => word.push('\\'),
                        },
                        c => word.push(c),
                    }
                }
            }
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some(e @ ('"' | '\\' | '$')) => word.push(e),
                            Some(e) => {
                                word.push('\\');
                                word.push(e);
                            }
                            None => word.push('\\'),
                        },
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(e) = chars.next() {
                    word.push(e);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Runs a case's command and returns the case with the actual results.
fn run(case: &Case, dir: &Path) -> Case {
    let words = split_words(&case.command);
    let program_at = words
        .iter()
        .position(|w| w == "kcel")
        .unwrap_or_else(|| panic!("command '{}' does not run kcel", case.command));
    let mut command = Command::new(env!("CARGO_BIN_EXE_kcel"));
    command
        .args(&words[program_at + 1..])
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for assignment in &words[..program_at] {
        let (name, value) = assignment
            .split_once('=')
            .unwrap_or_else(|| panic!("expected NAME=VALUE before kcel, got '{assignment}'"));
        command.env(name, value);
    }
    let mut child = command.spawn().expect("the kcel binary runs");
    let stdin = case.stdin.clone().unwrap_or_default();
    let mut pipe = child.stdin.take().expect("stdin is piped");
    // The child may exit without reading its input: a broken pipe is not a failure.
    let _ = pipe.write_all(stdin.as_bytes());
    drop(pipe);
    let output = child.wait_with_output().expect("kcel finishes");
    Case {
        preamble: case.preamble.clone(),
        command: case.command.clone(),
        stdin: case.stdin.clone(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        status: output.status.code().unwrap_or(-1),
    }
}

#[test]
fn golden_transcripts() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let bless = std::env::var_os("KCEL_BLESS").is_some_and(|v| !v.is_empty() && v != "0");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/golden exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let (mut passed, mut failed) = (0, 0);
    for file in &files {
        let text = std::fs::read_to_string(file).expect("transcript is readable");
        let cases = parse(&text, file);
        let actual: Vec<Case> = cases.iter().map(|c| run(c, &dir)).collect();
        for (want, got) in cases.iter().zip(&actual) {
            if want == got {
                passed += 1;
            } else {
                failed += 1;
                eprintln!(
                    "FAIL {}: $ {}\n--- expected\n{}--- actual\n{}",
                    file.display(),
                    want.command,
                    write(std::slice::from_ref(want)),
                    write(std::slice::from_ref(got)),
                );
            }
        }
        if bless {
            std::fs::write(file, write(&actual)).expect("transcript is writable");
        }
    }
    println!("golden: {passed} passed, {failed} failed");
    assert!(
        bless || failed == 0,
        "{failed} golden case(s) failed; rerun with KCEL_BLESS=1 to accept the new output"
    );
    assert!(
        passed + failed > 0,
        "no golden cases found in {}",
        dir.display()
    );
}

#[test]
fn words_split_like_a_shell() {
    assert_eq!(
        split_words(r#"NO_COLOR=1 kcel eval 'a + "b"' --var "x={\"k\": 1}" a\ b $'1\n\'2'"#),
        vec![
            "NO_COLOR=1",
            "kcel",
            "eval",
            "a + \"b\"",
            "--var",
            "x={\"k\": 1}",
            "a b",
            "1\n'2"
        ]
    );
}
