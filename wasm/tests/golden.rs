//! The same answers as the CLI: every `kcel eval|check ... -o json` case of the CLI's golden
//! transcripts (`cli/tests/golden/*.txt`) that the API can express is run through
//! `evaluate`/`check` and compared with the recorded stdout — value, type and actual cost
//! for `eval`, type and estimate for `check`, the whole `{"error": ...}` for failures.
//! Cases with options the API has no counterpart for yet (`--schema`, `--authorizer`,
//! `--no-optimize`, `-e`, stdin) or usage errors (text on stderr) are counted as skipped.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;

use serde_json::{Map, Value as Json, json};

/// Splits a shell command line: '…', "…" (with \" and \\), $'…' (with \n, \t, \\, \').
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' if in_word => {
                out.push(std::mem::take(&mut word));
                in_word = false;
            }
            ' ' => {}
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '$' if chars.peek() == Some(&'\'') => {
                chars.next();
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '\'' => break,
                        '\\' => match chars.next() {
                            Some('n') => word.push('\n'),
                            Some('t') => word.push('\t'),
                            Some(other) => word.push(other),
                            None => {}
                        },
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\' | '$')) => {
                            word.push(chars.next().unwrap());
                        }
                        c => word.push(c),
                    }
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        out.push(word);
    }
    out
}

struct Case {
    file: String,
    command: String,
    stdout: String,
    has_stdin: bool,
    status: i32,
}

fn cases(dir: &Path) -> Vec<Case> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut current: Option<Case> = None;
        let mut section = "";
        for line in text.lines() {
            if let Some(command) = line.strip_prefix("$ ") {
                out.extend(current.take());
                current = Some(Case {
                    file: path.file_name().unwrap().to_string_lossy().into(),
                    command: command.to_string(),
                    stdout: String::new(),
                    has_stdin: false,
                    status: -1,
                });
                section = "";
            } else if let Some(case) = current.as_mut() {
                if let Some(status) = line.strip_prefix("--- status ") {
                    case.status = status.trim().parse().unwrap_or(-1);
                    section = "";
                } else if let Some(name) = line.strip_prefix("--- ") {
                    section = if name == "stdout" { "stdout" } else { "other" };
                    case.has_stdin |= name == "stdin";
                } else if section == "stdout" {
                    case.stdout.push_str(line);
                    case.stdout.push('\n');
                }
            }
        }
        out.extend(current);
    }
    out
}

/// The API request for a command line, or why it cannot be expressed.
fn request(args: &[String], data: &Path) -> Result<(String, Json), String> {
    let (command, rest) = match args {
        [kcel, command, rest @ ..] if kcel == "kcel" => (command.clone(), rest),
        _ => return Err("not kcel".into()),
    };
    if command != "eval" && command != "check" {
        return Err(format!("kcel {command}"));
    }
    let mut req = Map::new();
    let mut values = Map::new();
    let mut declarations = Map::new();
    let mut libraries = Vec::new();
    let mut json_output = false;
    let mut iter = rest.iter();
    while let Some(arg) = iter.next() {
        let mut value = || iter.next().cloned().ok_or("missing value");
        match arg.as_str() {
            "-o" => json_output = value()? == "json",
            "--var" => {
                let spec = value()?;
                let (name, text) = spec.split_once('=').ok_or("bad --var")?;
                let text = match text.strip_prefix('@') {
                    Some("-") => return Err("stdin".into()),
                    Some(path) => std::fs::read_to_string(data.join(path))
                        .map_err(|_| "unreadable file (usage error)")?,
                    None => text.to_string(),
                };
                values.insert(name.into(), text.into());
            }
            "--declare" => {
                let spec = value()?;
                let (name, ty) = spec.split_once('=').ok_or("bad --declare")?;
                declarations.insert(name.into(), ty.into());
            }
            "--env" => {
                req.insert("env".into(), value()?.into());
            }
            "--k8s-version" => {
                req.insert("version".into(), value()?.into());
            }
            "--mode" => {
                req.insert("mode".into(), value()?.into());
            }
            "--container" => {
                req.insert("container".into(), value()?.into());
            }
            "--lib" => libraries.push(Json::from(value()?)),
            "--cost-limit" => {
                let limit: u64 = value()?.parse().map_err(|_| "bad limit")?;
                req.insert("costLimit".into(), limit.into());
            }
            option if option.starts_with('-') => return Err(format!("option {option}")),
            expression => {
                req.insert("expression".into(), expression.into());
            }
        }
    }
    if !json_output {
        return Err("text output".into());
    }
    req.insert("values".into(), values.into());
    req.insert("declarations".into(), declarations.into());
    req.insert("libraries".into(), libraries.into());
    Ok((command, Json::Object(req)))
}

#[test]
fn cli_golden_json_cases_give_the_same_answers() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/golden");
    let (mut compared, mut skipped, mut failures) = (0, Vec::new(), Vec::new());
    for case in cases(&golden) {
        let args = words(&case.command);
        let request = match request(&args, &golden) {
            Ok(r) if !case.has_stdin && case.status != 2 => r,
            Ok(_) => {
                skipped.push(format!(
                    "{}: {} (stdin or usage error)",
                    case.file, case.command
                ));
                continue;
            }
            Err(why) => {
                if args.iter().any(|a| a == "json") && why != "text output" {
                    skipped.push(format!("{}: {} ({why})", case.file, case.command));
                }
                continue;
            }
        };
        let (command, request) = request;
        let text = request.to_string();
        let answer: Json = serde_json::from_str(&if command == "eval" {
            kcel_wasm::evaluate(&text)
        } else {
            kcel_wasm::check(&text)
        })
        .unwrap();
        let cli: Json = serde_json::from_str(case.stdout.trim()).unwrap();
        let ours = if answer.get("error").is_some() {
            answer.clone()
        } else if command == "eval" {
            json!({"value": answer["value"], "type": answer["type"],
                   "cost": {"actual": answer["cost"]["actual"]}})
        } else {
            answer.clone()
        };
        compared += 1;
        if ours != cli {
            failures.push(format!(
                "{}: $ {}\n  cli:  {cli}\n  wasm: {ours}",
                case.file, case.command
            ));
        }
    }
    println!(
        "golden: {compared} compared, {} failed, {} skipped",
        failures.len(),
        skipped.len()
    );
    for s in &skipped {
        println!("  skipped {s}");
    }
    assert!(compared >= 25, "only {compared} cases compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
