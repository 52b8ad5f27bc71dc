//! What reading a JSON document in place costs against pre-bound values (issue 20: "bring
//! it within 2× of pre-bound, measured side by side"): per workload case, kcel's program
//! evaluated with the variables pre-bound (`kcel::Bindings`, converted once, outside the
//! timed loop) and with the workload's bindings as a shared `serde_json` document bound per
//! evaluation (`JsonActivation::new(doc.clone())` inside the timed loop, as the API server
//! binds a decoded request), both with Kubernetes' cost limit.
//!
//! Measured interleaved, as `interleaved.rs` measures kcel against the `cel` crate: each
//! case runs in rounds, each round timing a batch of both back to back (alternating which
//! goes first), and the ratio from JSON / pre-bound is taken per round, so that the
//! machine's drift cancels out. Reported per case: both medians and the median, lowest and
//! highest per-round ratio; then the geometric mean of the median ratios.
//!
//! Run with `cargo bench -p kcel-benches --bench json` (about a minute). `--rounds N` and
//! `--batch-ms M` as in `interleaved.rs` (defaults 21 and 20 ms); `--clock cpu` times the
//! batches by the thread's CPU time instead of the wall clock (for a machine shared with
//! other work: see `kcel_benches::Clock`); `--json FILE` also writes the figures as JSON; `--evaluate CASE bound|json N` evaluates one case `N` times one way
//! and exits (a driver for instruction counts: `valgrind --tool=callgrind`, run with N and
//! N + 1,000, the difference over 1,000).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use kcel::JsonActivation;
use kcel_benches::{
    Clock, calibrate, check_kcel_answer, kcel_bind, kcel_env, kcel_program, load_workload, median,
    show,
};
use serde_json::Value as Json;

struct Settings {
    rounds: usize,
    batch: Duration,
    clock: Clock,
    json: Option<String>,
    evaluate: Option<(String, bool, u64)>,
}

fn settings() -> Settings {
    let mut s = Settings {
        rounds: 21,
        batch: Duration::from_millis(20),
        clock: Clock::Wall,
        json: None,
        evaluate: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let number = |what: &str, next: Option<String>| -> u64 {
            match next.map(|v| v.parse::<u64>()) {
                Some(Ok(n)) if n > 0 => n,
                _ => usage(&format!("{what} needs a positive whole number")),
            }
        };
        match arg.as_str() {
            "--rounds" => s.rounds = number("--rounds", args.next()) as usize,
            "--batch-ms" => s.batch = Duration::from_millis(number("--batch-ms", args.next())),
            "--clock" => match args.next().as_deref().and_then(Clock::parse) {
                Some(clock) => s.clock = clock,
                None => usage("--clock needs wall or cpu"),
            },
            "--json" => match args.next() {
                Some(path) if !path.starts_with("--") => s.json = Some(path),
                _ => usage("--json needs a file name"),
            },
            "--evaluate" => {
                let (Some(case), Some(how)) = (args.next(), args.next()) else {
                    usage("--evaluate CASE bound|json N")
                };
                let from_json = match how.as_str() {
                    "json" => true,
                    "bound" => false,
                    _ => usage("--evaluate CASE bound|json N"),
                };
                s.evaluate = Some((case, from_json, number("--evaluate", args.next())));
            }
            // `cargo bench` passes `--bench`; other flags are not ours.
            _ => {}
        }
    }
    s
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "json: {problem} (usage: --rounds N --batch-ms M --clock wall|cpu --json FILE | --evaluate CASE bound|json N)"
    );
    std::process::exit(2)
}

fn main() {
    let s = settings();
    let cases = load_workload();
    if let Some((name, from_json, n)) = &s.evaluate {
        let case = cases
            .iter()
            .find(|c| &c.name == name)
            .unwrap_or_else(|| usage(&format!("no case {name}")));
        let env = kcel_env(case);
        let program = kcel_program(&env, &case.expr);
        if *from_json {
            let document = Arc::new(Json::Object(case.bindings.clone()));
            let vars = JsonActivation::new(document.clone());
            check_kcel_answer(case, &program, "from JSON", program.eval(&vars));
            for _ in 0..*n {
                black_box(program.eval(&JsonActivation::new(black_box(&document).clone()))).ok();
            }
        } else {
            let vars = kcel_bind(&case.bindings);
            check_kcel_answer(case, &program, "pre-bound", program.eval(&vars));
            for _ in 0..*n {
                black_box(program.eval(black_box(&vars))).ok();
            }
        }
        return;
    }
    println!(
        "| case | pre-bound | from JSON | JSON / pre-bound (median of {} rounds) | lowest | highest |",
        s.rounds
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let mut rows = Vec::new();
    for case in &cases {
        let env = kcel_env(case);
        let program = kcel_program(&env, &case.expr);
        let vars = kcel_bind(&case.bindings);
        let document = Arc::new(Json::Object(case.bindings.clone()));
        check_kcel_answer(case, &program, "pre-bound", program.eval(&vars));
        check_kcel_answer(
            case,
            &program,
            "from JSON",
            program.eval(&JsonActivation::new(document.clone())),
        );
        let mut bound = || {
            black_box(program.eval(black_box(&vars))).ok();
        };
        let mut from_json = || {
            black_box(program.eval(&JsonActivation::new(black_box(&document).clone()))).ok();
        };
        let (nb, nj) = (
            calibrate(s.batch, &mut bound),
            calibrate(s.batch, &mut from_json),
        );
        let (mut tb, mut tj, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..s.rounds {
            let (b, j) = if round % 2 == 0 {
                let b = s.clock.time_batch(nb, &mut bound);
                (b, s.clock.time_batch(nj, &mut from_json))
            } else {
                let j = s.clock.time_batch(nj, &mut from_json);
                (s.clock.time_batch(nb, &mut bound), j)
            };
            tb.push(b);
            tj.push(j);
            ratios.push(j / b);
        }
        let (lowest, highest) = ratios
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
        let (b, j, r) = (median(&mut tb), median(&mut tj), median(&mut ratios));
        println!(
            "| {} | {} | {} | {r:.2}× | {lowest:.2}× | {highest:.2}× |",
            case.name,
            show(b),
            show(j)
        );
        rows.push((case.name.clone(), b, j, r, lowest, highest));
    }
    let geomean = (rows.iter().map(|row| row.3.ln()).sum::<f64>() / rows.len() as f64).exp();
    println!(
        "\nGeometric mean of the median ratios over {} cases: {geomean:.2}×",
        rows.len()
    );
    if let Some(path) = s.json {
        let cases: Vec<Json> = rows
            .iter()
            .map(|(name, b, j, r, lo, hi)| {
                serde_json::json!({
                    "case": name, "bound_seconds": b, "json_seconds": j,
                    "ratio": r, "lowest": lo, "highest": hi,
                })
            })
            .collect();
        let doc = serde_json::json!({
            "rounds": s.rounds, "clock": s.clock.name(), "cases": cases, "geomean": geomean,
        });
        std::fs::write(&path, serde_json::to_string_pretty(&doc).expect("JSON"))
            .unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
    }
}
