//! Every command of the README's tour runs as written from the repository root, with the
//! `kcel` just built first on `PATH`: each exits 0, or with the status its line's
//! `# exit status N` comment names. (Outputs are checked by the golden transcripts.) The
//! other `sh` blocks' `kcel` commands run too, and a `$ kcel ...` line followed by output
//! (the first screen's example) must print that output.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The commands of the first `sh` block after "A short tour", continuation lines joined,
/// comment lines skipped, with the exit status each expects.
fn tour_commands(readme: &str) -> Vec<(String, i32)> {
    let start = readme.find("A short tour").expect("the README has a tour");
    let block = &readme[start..];
    let block = &block[block.find("```sh\n").expect("a sh block") + 6..];
    let block = &block[..block.find("```").expect("the block ends")];
    commands_of(block)
}

/// Every `sh` block of the README.
fn sh_blocks(readme: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = readme;
    while let Some(start) = rest.find("```sh\n") {
        let block = &rest[start + 6..];
        let end = block.find("```").expect("the block ends");
        blocks.push(&block[..end]);
        rest = &block[end + 3..];
    }
    blocks
}

/// The lines of a block as commands: continuation lines joined, comment and empty lines
/// skipped, each with the exit status its `# exit status N` comment names (else 0).
fn commands_of(block: &str) -> Vec<(String, i32)> {
    let mut commands = Vec::new();
    let mut pending = String::new();
    for line in block.lines() {
        let line = line.trim_end();
        if pending.is_empty() && (line.is_empty() || line.starts_with('#')) {
            continue;
        }
        if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head);
            continue;
        }
        pending.push_str(line);
        let status = pending
            .rsplit_once("# exit status ")
            .and_then(|(_, n)| n.trim().parse().ok())
            .unwrap_or(0);
        commands.push((std::mem::take(&mut pending), status));
    }
    commands
}

/// Runs `command` with `sh` from the repository root, the built `kcel` first on `PATH`.
fn run(command: &str) -> std::process::Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let kcel = PathBuf::from(env!("CARGO_BIN_EXE_kcel"));
    let bin_dir = kcel.parent().expect("the binary's directory");
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(&root)
        .env("PATH", &path)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs")
}

/// The `kcel` commands of the blocks other than the tour (not those that build, install or
/// need a server), and the `$ kcel ...` examples with their output.
#[test]
fn the_readmes_other_kcel_commands_run_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let tour = tour_commands(&readme);
    let (mut passed, mut failed) = (0, 0);
    for block in sh_blocks(&readme) {
        if let Some(example) = block.strip_prefix("$ ") {
            let (command, expected) = example.split_once('\n').expect("output follows");
            let output = run(command);
            let stdout = String::from_utf8_lossy(&output.stdout);
            if output.status.success() && stdout == expected {
                passed += 1;
            } else {
                failed += 1;
                eprintln!("FAIL $ {command}\n  expected: {expected:?}\n  actual: {stdout:?}");
            }
            continue;
        }
        for (command, expected) in commands_of(block) {
            if !command.starts_with("kcel ") || tour.iter().any(|(c, _)| *c == command) {
                continue;
            }
            let status = run(&command).status.code().unwrap_or(-1);
            if status == expected {
                passed += 1;
            } else {
                failed += 1;
                eprintln!("FAIL {command}\n  exit status {status}, expected {expected}");
            }
        }
    }
    println!("readme examples outside the tour: {passed} passed, {failed} failed");
    assert!(
        passed >= 2,
        "the first screen's example and the validate block ran"
    );
    assert_eq!(failed, 0, "README commands failed");
}

#[test]
fn the_readme_tour_runs_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let kcel = PathBuf::from(env!("CARGO_BIN_EXE_kcel"));
    let bin_dir = kcel.parent().expect("the binary's directory");
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    let commands = tour_commands(&readme);
    assert!(commands.len() >= 15, "the tour has its commands");
    let (mut passed, mut failed) = (0, 0);
    for (command, expected) in &commands {
        let output = Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(&root)
            .env("PATH", &path)
            .stdin(Stdio::null())
            .output()
            .expect("sh runs");
        let status = output.status.code().unwrap_or(-1);
        if status == *expected {
            passed += 1;
        } else {
            failed += 1;
            eprintln!(
                "FAIL {command}\n  exit status {status}, expected {expected}\n  stderr: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
    }
    println!("readme tour: {passed} passed, {failed} failed");
    assert_eq!(failed, 0, "README commands failed");
}
