//! Hostile expressions (issue 27): expressions far within their cost budget that build
//! much more than their cost says (`replace` of `replace`, `join` with a long separator,
//! `lists.range` of `lists.range`), or walk values whose parts are shared (a list holding
//! one list twice, doubled 20 to 30 times) in equality, `flatten`, `distinct` and
//! `format`. Each must end with a value or a clear evaluation error: never an abort, a
//! panic or a hang.
//!
//! Every case runs in a child process (this test binary, re-executed with
//! `KCEL_HOSTILE_CASE` set) under an address-space limit (`setrlimit(RLIMIT_AS)`: the
//! child's address space when it starts plus [`bounded_child::HEADROOM`]) and a wall-clock bound
//! ([`WALL_LIMIT`]; ten times that in unoptimized builds, whose interpreter is about ten
//! times slower), in two environments: Kubernetes' (1.37, new expressions, its cost limit
//! of 1,000,000 and the default memory limit) and the plain CEL environment with the
//! cel-go extensions and a cost limit of 10^8. The run prints one line per case and the
//! pass/fail counts. `cargo test --release --test hostile` checks the 2 s bound itself.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/bounded_child.rs"]
mod bounded_child;

use bounded_child::{Which, env, limit_address_space, peak_rss_mib};
use kcel::Type;

/// The wall-clock bound of one case (optimized builds).
const WALL_LIMIT: Duration = Duration::from_secs(2);

/// A 100-character string literal.
fn x100() -> String {
    format!("'{}'", "x".repeat(100))
}

/// `[1, 1]` doubled `n` times through a comprehension: `[E].map(a, [a, a])[0]`; built
/// at little cost, as both halves are one list.
fn doubled(n: usize) -> String {
    let mut e = "[1, 1]".to_string();
    for _ in 0..n {
        e = format!("[{e}].map(a, [a, a])[0]");
    }
    e
}

/// A map holding one map twice, doubled `n` times.
fn doubled_map(n: usize) -> String {
    let mut e = "{'k': 1}".to_string();
    for _ in 0..n {
        e = format!("[{e}].map(m, {{'a': m, 'b': m}})[0]");
    }
    e
}

/// The cases: (environments, expression). `None` for environments: both.
fn cases() -> Vec<(Option<Which>, String)> {
    let x = x100();
    let s10k = format!("{x}.replace('x', {x})");
    let e = doubled;
    let m = doubled_map;
    let mut out: Vec<(Option<Which>, String)> = Vec::new();
    let mut both = |s: String| out.push((None, s));
    // 1. Output much larger than its cost.
    both(format!(
        "{x}.replace('x', {x}).replace('x', {x}).replace('x', {x}).replace('x', {x}).size()"
    ));
    both(format!(
        "{x}.replace('x', {x}).replace('x', {x}).replace('x', {x}).size()"
    ));
    both(format!(
        "{x}.replace('', {x}).replace('', {x}).replace('', {x}).size()"
    ));
    both(format!(
        "{x}.replace('x', {s10k}).replace('x', {s10k}).size()"
    ));
    both(format!(
        "{x}.replace('x', {x}, 50).replace('x', {x}, -1).replace('x', {x}, 1000).size()"
    ));
    both(format!("lists.range(3000).map(i, '').join({s10k}).size()"));
    both(format!("lists.range(10000).map(i, '').join({s10k}).size()"));
    both(format!("lists.range(3000).map(i, {s10k}).join().size()"));
    both(format!(
        "lists.range(3000).map(i, {s10k}).join({s10k}).size()"
    ));
    both(format!("'%s'.format([{s10k}.replace('x', {x})]).size()"));
    both(format!(
        "'%s%s%s'.format([{s10k}, {s10k}, {s10k}]).replace('x', {x}).size()"
    ));
    both(format!(
        "'%s'.format([lists.range(3000).map(i, {s10k})]).size()"
    ));
    both(format!("strings.quote({s10k}.replace('x', {x})).size()"));
    both(format!("{s10k}.replace('x', {x}).split('').size()"));
    both(format!(
        "({s10k}.replace('x', {x}) + {s10k}.replace('x', {x}) + {s10k}.replace('x', {x})).size()"
    ));
    both(format!(
        "[{s10k}].map(a, a + a + a + a + a + a + a + a)[0].size()"
    ));
    both(format!("lists.range(1000).map(i, {s10k} + {s10k}).size()"));
    both("lists.range(1000).map(i, lists.range(1000)).size()".into());
    both("lists.range(3000).map(i, lists.range(3000)).size()".into());
    both("lists.range(100000).map(x, lists.range(1000)).size()".into());
    both("lists.range(100000).map(x, [x, x, x, x]).size()".into());
    both("lists.range(100000).map(x, {'a': x, 'b': x}).size()".into());
    both("lists.range(67108864).size()".into());
    both("lists.range(30000000).map(x, x).size()".into());
    both("lists.range(1000000).filter(x, true).size()".into());
    both("lists.range(1000).map(i, lists.range(10000)).flatten().size()".into());
    both(format!("lists.range(100000).map(i, {x}).join().size()"));
    both("lists.range(100000).distinct().size()".into());
    both("sets.contains(lists.range(100000), lists.range(100000))".into());
    both("sets.intersects(lists.range(100000), lists.range(100000).map(x, -1 - x))".into());
    both("lists.range(1000000).sort().size()".into());
    both("lists.range(100000).map(x, lists.range(100)).distinct().size()".into());
    // Work bounded by the cost limit alone (nothing large is built): time per cost unit.
    both("[lists.range(10000)].all(l, l.all(i, l.all(j, j >= 0)))".into());
    // Copies at a fixed or small cost, kept in a list (the text built once).
    for copy in [
        "bytes(s)",
        "string(bytes(s))",
        "s.lowerAscii()",
        "s.substring(1)",
        "(s + ' ').trim()",
    ] {
        both(format!(
            "[{s10k}].map(s, lists.range(80000).map(i, {copy}))[0].size()"
        ));
    }
    // Temporaries: the budget counts what is built, cumulatively, not what is alive.
    both("lists.range(3000).all(i, lists.range(3000).exists(j, j == i))".into());
    // 2. Shared structure walked exponentially.
    both(format!("[{}].flatten(64).size()", e(26)));
    both(format!("'%s'.format([{}]).size()", e(27)));
    both(format!("{} == {}", e(29), e(29)));
    both(format!("[{}, {}].distinct().size()", e(29), e(29)));
    both(format!("{} == {}", e(20), e(20)));
    both(format!("{} == {}", e(24), e(24)));
    both(format!("{} != {}", e(28), e(28)));
    both(format!("{} in [{}]", e(27), e(27)));
    both(format!("[{}] == [{}]", e(27), e(27)));
    both(format!("{{'a': {}}} == {{'a': {}}}", e(27), e(27)));
    both(format!("sets.contains([{}], [{}])", e(26), e(26)));
    both(format!("sets.equivalent([{}], [{}])", e(26), e(26)));
    both(format!("[{}].exists(x, x == {})", e(26), e(26)));
    both(format!("lists.range(1000).all(i, {} == {})", e(20), e(20)));
    both(format!("{}.flatten().size()", e(27)));
    both(format!("[{}].flatten(30).size()", e(28)));
    both(format!("{}.size()", e(30)));
    both(format!("lists.range(1000).map(i, {}).size()", e(25)));
    both(format!(
        "lists.range(1000).map(i, {}).distinct().size()",
        e(22)
    ));
    both(format!("({} + {}).size()", e(27), e(27)));
    both(format!("{} == {}", m(25), m(25)));
    both(format!("'%s'.format([{}]).size()", m(22)));
    both(format!("[{}, {}].distinct().size()", m(26), m(26)));
    both(format!("optional.of({}) == optional.of({})", e(27), e(27)));
    both(format!("'%s'.format([[{}, {}]]).size()", e(24), e(24)));
    both(format!("{}.map(x, x == {}[0]).size()", e(25), e(25)));
    // Error messages that show a value.
    both(format!("[dyn({})].join()", e(27)));
    both(format!("dyn({{'a': 1}})[{}]", e(27)));
    both(format!("[dyn({})].join()", e(3)));
    // Plain environment only: the encoders and regex extensions.
    let mut plain = |s: String| out.push((Some(Which::Plain), s));
    plain(format!(
        "regex.replace({s10k}, 'x', {x}.replace('x', {x})).size()"
    ));
    plain(format!("regex.replace({s10k}, '', {s10k}).size()"));
    plain(format!(
        "regex.replace({s10k}, 'x', '\\\\0\\\\0\\\\0\\\\0').replace('x', {x}).size()"
    ));
    plain(format!(
        "base64.encode(bytes({s10k}.replace('x', {x}))).size()"
    ));
    plain(format!(
        "base64.decode(base64.encode(bytes({s10k}.replace('x', {x})))).size()"
    ));
    plain(format!("(bytes({s10k}) + bytes({s10k})).size()"));
    out
}

/// In the child: evaluates one case and prints `value <type>` or `error <message>`
/// (`unbudgeted`: with no memory limit).
fn child(which: Which, expr: &str, unbudgeted: bool) {
    limit_address_space();
    let (mut env, mut options) = env(which);
    if unbudgeted {
        options = options.with_memory_limit(None);
        env.set_program_options(options.clone());
    }
    env.declare("unused", Type::Dyn);
    let ast = match env.compile(expr) {
        Ok(ast) => ast,
        Err(issues) => {
            println!("compile-error {}", issues.diagnostics[0].message());
            return;
        }
    };
    let program = match which {
        Which::Kubernetes => env.program(&ast),
        Which::Plain => env.program_with(&ast, options),
    }
    .expect("plans");
    let started = Instant::now();
    let (result, details) = program.eval_with_details(&());
    let took = started.elapsed();
    let peak = peak_rss_mib();
    match result {
        Ok(v) => println!(
            "value {} (cost {}, {took:.2?}, peak RSS {peak} MiB)",
            v.type_name(),
            details.actual_cost
        ),
        Err(e) => println!(
            "error {} (cost {}, {took:.2?}, peak RSS {peak} MiB)",
            e, details.actual_cost
        ),
    }
}

/// The control: the issue's first reproducer without a memory budget must not end well
/// under the address-space limit, or the limit proves nothing.
fn control() {
    let exe = std::env::current_exe().expect("test binary");
    let output = Command::new(exe)
        .env("KCEL_HOSTILE_CASE", "p:0")
        .env("KCEL_HOSTILE_UNBUDGETED", "1")
        .output()
        .expect("runs the control");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !output.status.success() || !stdout.starts_with("value"),
        "without a memory budget the first case should fail under the address-space limit, \
         but it ended with {stdout}"
    );
    println!(
        "control: without a memory budget, case 0 ends with {} under the address-space limit",
        if output.status.success() {
            stdout.trim().to_string()
        } else {
            output.status.to_string()
        }
    );
}

fn main() {
    let all = cases();
    if let Ok(spec) = std::env::var("KCEL_HOSTILE_CASE") {
        let (which, index) = spec.split_once(':').expect("WHICH:INDEX");
        let which = Which::from_tag(which);
        let expr = &all[index.parse::<usize>().expect("index")].1;
        child(
            which,
            expr,
            std::env::var_os("KCEL_HOSTILE_UNBUDGETED").is_some(),
        );
        return;
    }
    control();
    let wall = if cfg!(debug_assertions) {
        WALL_LIMIT * 10
    } else {
        WALL_LIMIT
    };
    let exe = std::env::current_exe().expect("test binary");
    // `KCEL_HOSTILE_ONLY=TEXT`: only the expressions containing TEXT.
    let only_text = std::env::var("KCEL_HOSTILE_ONLY").ok();
    let (mut passed, mut failed) = (0, 0);
    let mut out = std::io::stdout().lock();
    for (i, (only, expr)) in all.iter().enumerate() {
        for which in Which::ALL {
            if only.is_some_and(|o| o != which)
                || only_text
                    .as_ref()
                    .is_some_and(|t| !expr.contains(t.as_str()))
            {
                continue;
            }
            let tag = which.tag();
            let started = Instant::now();
            let mut process = Command::new(&exe)
                .env("KCEL_HOSTILE_CASE", format!("{tag}:{i}"))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawns the child");
            let status = loop {
                if let Some(status) = process.try_wait().expect("waits") {
                    break Some(status);
                }
                if started.elapsed() > wall {
                    let _ = process.kill();
                    let _ = process.wait();
                    break None;
                }
                std::thread::sleep(Duration::from_millis(5));
            };
            let took = started.elapsed();
            let output = process.wait_with_output().expect("reads the child");
            let stdout = String::from_utf8_lossy(&output.stdout).trim().to_string();
            let stderr = String::from_utf8_lossy(&output.stderr);
            let verdict = match status {
                None => Err(format!("no answer within {wall:?}")),
                Some(s) if !s.success() => Err(format!(
                    "{s}: {}",
                    stderr.lines().last().unwrap_or("").trim()
                )),
                Some(_) if stdout.starts_with("value ") || stdout.starts_with("error ") => {
                    Ok(stdout.clone())
                }
                Some(_) => Err(format!("unexpected answer: {stdout}")),
            };
            let shown: String = expr.chars().take(90).collect();
            match verdict {
                Ok(answer) => {
                    passed += 1;
                    let _ = writeln!(out, "ok   [{tag}] {shown}\n       {answer}");
                }
                Err(why) => {
                    failed += 1;
                    let _ = writeln!(out, "FAIL [{tag}] {shown}\n       {why} (after {took:.2?})");
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "hostile expressions: {passed} passed, {failed} failed ({} expressions)",
        all.len()
    );
    drop(out);
    if failed > 0 {
        std::process::exit(1);
    }
}
