//! Hostile input to the `kcel` binary (issue 23): runaway expressions in both environments,
//! deep and huge JSON and YAML, billion laughs, invalid UTF-8, binary garbage, odd types,
//! names and options, broken CRDs and suites, hostile REPL sessions. Each run must end
//! with a value or a clear error — an exit status from 0 to 4 with something said, never a
//! panic, an abort or a signal — within [`WALL_LIMIT`] (ten times that in unoptimized
//! builds) and under an address-space limit of [`MEMORY_LIMIT_KIB`] set with the shell's
//! `ulimit -v` (an allocation beyond it aborts the process, which fails the case).
//!
//! The inputs are generated into `CARGO_TARGET_TMPDIR`; the run prints one line per case
//! and the pass/fail counts.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The wall-clock bound of one run in optimized builds.
const WALL_LIMIT: Duration = Duration::from_secs(10);

/// The address-space limit of one run, in KiB (2 GiB).
const MEMORY_LIMIT_KIB: u64 = 2 * 1024 * 1024;

/// One run of the binary.
struct Case {
    name: String,
    args: Vec<String>,
    stdin: Vec<u8>,
}

/// Cases known not to end cleanly on this tree, with the reason: they run, and are counted
/// as skipped while they fail (and reported when they pass, to be taken off this list).
const KNOWN: &[(&str, &str)] = &[];

/// The generated input files.
struct Files {
    dir: PathBuf,
}

impl Files {
    fn new() -> Files {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kcel-cli-hostile");
        std::fs::create_dir_all(&dir).expect("the temporary directory");
        Files { dir }
    }

    /// Writes `bytes` to the file `name` and returns its path.
    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> String {
        let path = self.dir.join(name);
        std::fs::write(&path, bytes).expect("the input file");
        path.display().to_string()
    }
}

/// Bytes from a fixed pseudo-random sequence (xorshift), the same on every run.
fn garbage(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect()
}

/// `[0, 1, ..., 9]` mapped `depth` times inside itself: 10^depth steps.
fn nested_maps(depth: usize) -> String {
    let mut e = "1".to_string();
    for i in 0..depth {
        e = format!("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(v{i}, {e})");
    }
    e
}

/// Nested quantifiers over ten elements: 10^depth steps.
fn nested_all(depth: usize) -> String {
    let mut e = "true".to_string();
    for i in 0..depth {
        e = format!("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].all(v{i}, {e})");
    }
    e
}

/// A string doubled `n` times through `cel.bind`.
fn doubled_binds(n: usize) -> String {
    let mut e = "s0".to_string();
    for i in (0..n).rev() {
        e = format!("cel.bind(s{}, s{i} + s{i}, {e})", i + 1);
    }
    format!(
        "cel.bind(s0, 'ab', {})",
        e.replacen("s0", &format!("s{n}"), 1)
    )
}

/// Billion laughs: nine levels of nine aliases.
fn billion_laughs() -> String {
    let mut out = String::from(
        "a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for level in 1..10 {
        let refs = vec![format!("*a{}", level - 1); 9].join(",");
        out.push_str(&format!("a{level}: &a{level} [{refs}]\n"));
    }
    out
}

fn cases(files: &Files) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut add = |name: &str, args: &[&str], stdin: &[u8]| {
        cases.push(Case {
            name: name.to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
            stdin: stdin.to_vec(),
        })
    };

    // 1. Runaway and oversized expressions, in both environments.
    let x100 = format!("'{}'", "x".repeat(100));
    let runaways: Vec<(&str, String)> = vec![
        ("maps nested 8 deep", nested_maps(8)),
        ("maps nested 12 deep", nested_maps(12)),
        ("all nested 9 deep", nested_all(9)),
        ("30 string doublings in cel.bind", doubled_binds(30)),
        ("60 string doublings in cel.bind", doubled_binds(60)),
        (
            "replace chain",
            format!("{x100}.replace('x', {x100}).replace('x', {x100}).replace('x', {x100}).size()"),
        ),
        (
            "join with a long separator",
            format!(
                "[{x100}, {x100}].map(a, [a, a, a, a, a, a, a, a, a, a]).map(l, l.join({x100}.replace('x', {x100}))).size()"
            ),
        ),
        (
            "lists.range of a billion",
            "lists.range(1000000000).size()".to_string(),
        ),
        (
            "nested lists.range",
            "lists.range(100000).map(i, lists.range(100000)).size()".to_string(),
        ),
        (
            "repeat a billion",
            "'x'.repeat(1000000000).size()".to_string(),
        ),
        (
            "format a huge width",
            "'%01000000000d'.format([1])".to_string(),
        ),
        (
            "list doubling",
            "[1].map(a, [a, a]).map(a, a + a).map(a, a + a + a + a).size()".to_string(),
        ),
        ("int overflow", "9223372036854775807 + 1".to_string()),
        (
            "int minimum negated",
            "-(-9223372036854775807 - 1)".to_string(),
        ),
        ("division by zero", "1 / 0".to_string()),
        (
            "timestamp overflow",
            "timestamp('9999-12-31T23:59:59Z') + duration('87600h')".to_string(),
        ),
        (
            "duration overflow",
            "duration('9223372036s') * 10".to_string(),
        ),
        ("invalid regex", "'a'.matches('(')".to_string()),
        (
            "huge regex repetition",
            "'a'.matches('a{1000}{1000}{1000}')".to_string(),
        ),
        (
            "string of invalid UTF-8 bytes",
            "string(b'\\xff\\xfe')".to_string(),
        ),
        (
            "parentheses 100000 deep",
            format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000)),
        ),
        (
            "lists 10000 deep",
            format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000)),
        ),
        (
            "unary minus 100000 times",
            format!("{}1", "-".repeat(100_000)),
        ),
        (
            "negation 100000 times",
            format!("{}true", "!".repeat(100_000)),
        ),
        ("a 200000-term sum", vec!["1"; 200_000].join(" + ")),
        (
            "a 1 MB string literal",
            format!("size('{}')", "y".repeat(1 << 20)),
        ),
        ("unterminated string", "'abc".to_string()),
        ("a bare NUL", "1 \u{0} 2".to_string()),
        ("bidi controls", "'\u{202e}abc' == 'cba'".to_string()),
        (
            "a map with 100000 keys",
            format!(
                "size({{{}}})",
                (0..100_000)
                    .map(|i| format!("{i}: {i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
    ];
    for (name, expr) in &runaways {
        let path = files.write(&format!("expr-{}.cel", name.replace(' ', "-")), expr);
        add(&format!("{name} (kubernetes)"), &["eval", "-f", &path], b"");
        add(
            &format!("{name} (cel)"),
            &[
                "eval", "-f", &path, "--env", "cel", "--lib", "strings", "--lib", "lists", "--lib",
                "bindings",
            ],
            b"",
        );
    }
    let long_path = files.write("expr-long-check.cel", nested_maps(12));
    add(
        "check of maps nested 12 deep",
        &["check", "-f", &long_path],
        b"",
    );
    add(
        "a runaway without a cost limit, bounded by memory",
        &[
            "eval",
            "--env",
            "cel",
            "--cost-limit",
            "0",
            "--lib",
            "bindings",
            &doubled_binds(40),
        ],
        b"",
    );
    add(
        "a tiny memory limit",
        &["eval", "[1, 2, 3].map(x, string(x))", "--memory-limit", "1"],
        b"",
    );
    add(
        "a huge cost limit",
        &["eval", "1 + 1", "--cost-limit", "18446744073709551615"],
        b"",
    );
    add(
        "an expression of invalid UTF-8 from a file",
        &[
            "eval",
            "-f",
            &files.write("invalid-utf8.cel", b"'\xff\xfe' + 1"),
        ],
        b"",
    );
    add(
        "an expression of garbage from stdin",
        &["eval", "-f", "-"],
        &garbage(4096, 7),
    );
    add(
        "an expression of 10 MB",
        &[
            "eval",
            "-f",
            &files.write("10mb.cel", "1 + ".repeat(2_500_000) + "1"),
        ],
        b"",
    );

    // 2. Hostile input values.
    let deep_json = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_objects = format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    let deep_block: String = (0..3000)
        .map(|i| format!("{}a:\n", " ".repeat(i)))
        .collect::<String>()
        + &" ".repeat(3000)
        + "1\n";
    let deep_flow_yaml = format!("{}{}", "{a: ".repeat(50_000), "}".repeat(50_000));
    let huge_list = format!(
        "[{}]",
        vec!["{\"name\": \"item\", \"value\": 12345}"; 400_000].join(",")
    );
    let long_string = format!("\"{}\"", "z".repeat(20 << 20));
    let values: Vec<(&str, Vec<u8>)> = vec![
        ("deep JSON arrays", deep_json.into_bytes()),
        ("deep JSON objects", deep_objects.into_bytes()),
        ("deep YAML block mappings", deep_block.into_bytes()),
        ("deep YAML flow mappings", deep_flow_yaml.into_bytes()),
        ("billion laughs", billion_laughs().into_bytes()),
        ("a 14 MB JSON list", huge_list.into_bytes()),
        ("a 20 MB string", long_string.into_bytes()),
        ("invalid UTF-8", b"{\"a\": \"\xff\xfe\"}".to_vec()),
        (
            "UTF-16 with a byte order mark",
            b"\xff\xfe{\x00}\x00".to_vec(),
        ),
        ("binary garbage", garbage(65536, 42)),
        ("NUL bytes", vec![0u8; 1024]),
        ("whitespace only", b"   \n\t\n".to_vec()),
        ("comments only", b"# nothing\n# here\n".to_vec()),
        ("several YAML documents", b"a: 1\n---\nb: 2\n".to_vec()),
        ("duplicate JSON keys", b"{\"a\": 1, \"a\": 2}".to_vec()),
        ("duplicate YAML keys", b"a: 1\na: 2\n".to_vec()),
        (
            "numbers beyond 64 bits",
            b"[123456789012345678901234567890, 1e400, -1e400]".to_vec(),
        ),
        ("YAML special floats", b"[.nan, .inf, -.inf]".to_vec()),
        ("YAML tags", b"a: !!binary aGk=\nb: !custom x\n".to_vec()),
        (
            "YAML non-string keys",
            b"{1: a, [1, 2]: b, null: c, {x: 1}: d}".to_vec(),
        ),
        (
            "YAML merge keys",
            b"base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n".to_vec(),
        ),
        ("an unterminated JSON string", b"{\"a\": \"abc".to_vec()),
        ("lone surrogate escapes", b"\"\\ud800\\udbff\"".to_vec()),
        ("a Latin-1 file", b"name: caf\xe9\n".to_vec()),
    ];
    for (name, bytes) in &values {
        let path = files.write(&format!("value-{}.txt", name.replace(' ', "-")), bytes);
        add(
            &format!("--var of {name}"),
            &["eval", "size(string(x))", "--var", &format!("x=@{path}")],
            b"",
        );
        add(
            &format!("--var @- of {name}"),
            &["eval", "x", "--var", "x=@-", "-o", "json"],
            bytes,
        );
        add(
            &format!("validate of {name}"),
            &[
                "validate",
                "--crd",
                "../../../examples/tour/widgets-crd.yaml",
                &path,
            ],
            b"",
        );
    }
    add(
        "a directory as a value",
        &["eval", "x", "--var", "x=@/"],
        b"",
    );
    add(
        "/dev/null as a value",
        &["eval", "x", "--var", "x=@/dev/null"],
        b"",
    );
    add(
        "a missing file",
        &["eval", "x", "--var", "x=@/nonexistent/file"],
        b"",
    );
    add(
        "stdin twice",
        &["eval", "x + y", "--var", "x=@-", "--var", "y=@-"],
        b"1",
    );
    add(
        "a typed value that does not fit",
        &[
            "eval",
            "x",
            "--declare",
            "x=map(int, list(timestamp))",
            "--var",
            "x={\"a\": [1]}",
        ],
        b"",
    );
    add(
        "a type nested 1000 deep",
        &[
            "eval",
            "1",
            "--declare",
            &format!("x={}int{}", "list(".repeat(1000), ")".repeat(1000)),
        ],
        b"",
    );
    add(
        "a type of non-ASCII letters",
        &["eval", "1", "--declare", "x=éé(ü)"],
        b"",
    );
    add(
        "a variable name of a keyword",
        &["eval", "1", "--var", "in=1"],
        b"",
    );
    add(
        "a variable name with spaces",
        &["eval", "1", "--var", " a b =1"],
        b"",
    );
    add(
        "a Kubernetes version from the future",
        &["eval", "1", "--k8s-version", "1.99"],
        b"",
    );
    add(
        "an unknown library version",
        &["eval", "1", "--lib", "strings@99"],
        b"",
    );

    // 3. CRDs, schemas and suites that are broken or hostile.
    let crd_garbage = files.write("crd-garbage.yaml", garbage(8192, 3));
    add(
        "validate against a garbage CRD",
        &[
            "validate",
            "--crd",
            &crd_garbage,
            "../../../examples/tour/widget.yaml",
        ],
        b"",
    );
    let laughs = files.write("crd-laughs.yaml", billion_laughs());
    add(
        "validate against a billion-laughs CRD",
        &[
            "validate",
            "--crd",
            &laughs,
            "../../../examples/tour/widget.yaml",
        ],
        b"",
    );
    let runaway_crd = files.write(
        "crd-runaway.yaml",
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: widgets.example.com}}\nspec:\n  group: example.com\n  names: {{kind: Widget, plural: widgets}}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-validations:\n        - rule: \"{}\"\n",
            nested_all(9)
        ),
    );
    let widget = files.write(
        "widget.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
    );
    add(
        "validate with a runaway rule",
        &["validate", "--crd", &runaway_crd, &widget],
        b"",
    );
    let deep_schema = files.write(
        "schema-deep.yaml",
        format!(
            "{}type: string\n",
            (0..2000)
                .map(|i| format!(
                    "{}type: object\n{}properties:\n{}  a:\n",
                    "  ".repeat(2 * i),
                    "  ".repeat(2 * i),
                    "  ".repeat(2 * i)
                ))
                .collect::<String>()
        ),
    );
    add(
        "a schema nested 2000 deep",
        &["check", "self", "--schema", &deep_schema],
        b"",
    );
    add(
        "a schema of garbage",
        &["check", "self", "--schema", &crd_garbage],
        b"",
    );
    let suite_garbage = files.write("suite-garbage.yaml", garbage(4096, 11));
    add("a suite of garbage", &["test", &suite_garbage], b"");
    let suite_laughs = files.write("suite-laughs.yaml", billion_laughs());
    add("a billion-laughs suite", &["test", &suite_laughs], b"");
    let suite_typo = files.write(
        "suite-typo.yaml",
        "policies: []\ncases:\n- name: a\n  requestz: {}\n",
    );
    add("a suite with an unknown field", &["test", &suite_typo], b"");
    add(
        "an authorizer file of garbage",
        &["eval", "1", "--authorizer", &format!("@{crd_garbage}")],
        b"",
    );

    // 4. Hostile REPL sessions.
    add(
        "a REPL line of 1 MB",
        &["repl", "--env", "cel"],
        format!("size('{}')\n", "q".repeat(1 << 20)).as_bytes(),
    );
    add(
        "a REPL bracket never closed",
        &["repl"],
        format!("{}\n", "[".repeat(100_000)).as_bytes(),
    );
    add("REPL garbage", &["repl"], &garbage(16384, 5));
    add(
        "a REPL runaway",
        &["repl", "--env", "cel"],
        format!("{}\n%let x = 1\nx\n", nested_maps(9)).as_bytes(),
    );
    add(
        "REPL commands with bad arguments",
        &["repl"],
        b"%let\n%let = 1\n%declare\n%declare x : list(\n%delete nope\n%nope\n%env\n%quit extra\n",
    );

    // 5. Other commands and options.
    add(
        "functions of a name of garbage",
        &["functions", "\u{202e}\u{7}x"],
        b"",
    );
    add(
        "test of a directory without suites",
        &["test", "/proc/self/fd"],
        b"",
    );
    add(
        "check with an expression of garbage",
        &[
            "check",
            &String::from_utf8_lossy(&garbage(512, 9)).replace('\0', ""),
        ],
        b"",
    );
    cases
}

/// Runs one case under the limits; `None` when it ended cleanly, or what went wrong.
fn run(case: &Case, wall_limit: Duration) -> Option<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_LIMIT_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_kcel"))
        .args(&case.args)
        .current_dir(&dir)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env("HOME", env!("CARGO_TARGET_TMPDIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let stdin = case.stdin.clone();
    let mut pipe = child.stdin.take().expect("piped");
    // The child may stop reading early (a broken pipe is not a failure).
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&stdin);
    });
    let started = Instant::now();
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let (out, err) = (read(Box::new(stdout)), read(Box::new(stderr)));
    let status = loop {
        match child.try_wait().expect("wait") {
            Some(status) => break status,
            None if started.elapsed() > wall_limit => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = writer.join();
                return Some(format!("still running after {wall_limit:?}"));
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    let _ = writer.join();
    let (out, err) = (
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    );
    let stderr = String::from_utf8_lossy(&err);
    let Some(code) = status.code() else {
        return Some(format!(
            "ended by a signal ({status}); stderr: {}",
            tail(&stderr)
        ));
    };
    if code > 4 {
        return Some(format!("exit status {code}; stderr: {}", tail(&stderr)));
    }
    for sign in [
        "panicked",
        "memory allocation of",
        "stack overflow",
        "RUST_BACKTRACE",
    ] {
        if stderr.contains(sign) {
            return Some(format!("'{sign}' on stderr: {}", tail(&stderr)));
        }
    }
    if code != 0 && stderr.trim().is_empty() && out.is_empty() {
        return Some(format!("exit status {code} without a word"));
    }
    None
}

/// The end of a long text.
fn tail(text: &str) -> String {
    let text = text.trim();
    let start = text.len().saturating_sub(400);
    let start = (start..=text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    text[start..].to_string()
}

#[test]
fn hostile_inputs_end_cleanly() {
    if Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576")
        .status()
        .map(|s| !s.success())
        .unwrap_or(true)
    {
        println!("skipped: hostile CLI inputs (no POSIX sh with ulimit -v)");
        return;
    }
    let wall_limit = if cfg!(debug_assertions) {
        WALL_LIMIT * 10
    } else {
        WALL_LIMIT
    };
    let files = Files::new();
    let cases = cases(&files);
    assert!(
        cases.len() >= 100,
        "at least 100 hostile inputs, not {}",
        cases.len()
    );
    // Two at a time: the runs are independent, the machine has few cores.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<(usize, Option<String>, Duration)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(case) = cases.get(i) else { break };
                        let started = Instant::now();
                        // Known hangs get the optimized builds' bound, not ten times it.
                        let known = KNOWN.iter().any(|(name, _)| *name == case.name);
                        let limit = if known { WALL_LIMIT } else { wall_limit };
                        let problem = run(case, limit);
                        done.push((i, problem, started.elapsed()));
                    }
                    done
                })
            })
            .collect();
        let mut all: Vec<_> = workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker"))
            .collect();
        all.sort_by_key(|(i, _, _)| *i);
        all
    });
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for (i, problem, took) in &results {
        let case = &cases[*i];
        let known = KNOWN.iter().find(|(name, _)| *name == case.name);
        match (problem, known) {
            (None, None) => {
                passed += 1;
                println!("PASS {} ({:.2} s)", case.name, took.as_secs_f64());
            }
            (None, Some(_)) => {
                passed += 1;
                println!(
                    "PASS {} ({:.2} s; now passes: take it off KNOWN)",
                    case.name,
                    took.as_secs_f64()
                );
            }
            (Some(problem), Some((_, reason))) => {
                skipped += 1;
                println!("skipped: {} ({problem}): known, {reason}", case.name);
            }
            (Some(problem), None) => {
                failed += 1;
                println!("FAIL {}: {problem}", case.name);
            }
        }
    }
    println!("hostile CLI inputs: {passed} passed, {failed} failed, {skipped} skipped");
    assert_eq!(failed, 0, "hostile inputs that did not end cleanly");
}
