//! A/B bench in one binary: kcel of this tree ("main"), kcel of a reference tree ("ref",
//! e141d86 by default, linked as `kcel_ref`) and the `cel` crate, per workload case, in one
//! executable — so that no engine's time moves because it was linked into another binary
//! (BENCHMARKS.md, "Noise" and issue 25's acceptance comparison).
//!
//! Built and run by `benches/ab.sh` (which checks out the reference tree and generates the
//! package under `target/ab/`); not a member of the workspace, so CI and `cargo test` never
//! build it.
//!
//! Per case, in rounds, one batch of each engine is timed back to back, the order rotating
//! through all six permutations, and the ratios cel/main, cel/ref and ref/main are taken per
//! round, so that the machine's drift cancels out. Two tables per run:
//!
//! - evaluation: pre-bound activation, cost tracking on at Kubernetes' limit, each engine's
//!   answer checked first (as the `interleaved` bench);
//! - compile: parse + check + plan per call for both kcel trees (the environment built once),
//!   the `cel` crate's compile beside them.
//!
//! `ref/main` above 1 means main is faster; main's ratio against `cel` is lower than ref's by
//! `1 - ref/main`. Flags: `--runs N` (3), `--rounds N` (42), `--batch-ms M` (20),
//! `--clock wall|cpu` (wall), `--json FILE` (every run's figures and the medians over runs);
//! `--evaluate main|ref|cel CASE N` evaluates one case `N` times one way and exits (a driver
//! for instruction counts under `valgrind --tool=callgrind`: run with N and N + 1,000, the
//! difference over 1,000; both trees in one binary, as timed).
//!
//! `--clock cpu` times each batch by the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`)
//! instead of the wall clock, so that time spent descheduled while other processes run does
//! not count — on a machine shared with builds, most batches of a few milliseconds are
//! preempted at least once, which the wall clock charges to whichever engine was running.

mod current;
mod reference;

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use kcel_benches::{Case, Clock, calibrate, cel_prepare, load_workload, median, show};
use serde_json::json;

/// Settings from the command line.
struct Settings {
    runs: usize,
    rounds: usize,
    batch: Duration,
    clock: Clock,
    json: Option<String>,
    /// `--evaluate`: one side's evaluation of one case, a number of times.
    evaluate: Option<(Side, String, u64)>,
}

/// One of the three engines, for `--evaluate`.
#[derive(Clone, Copy)]
enum Side {
    Main,
    Reference,
    Cel,
}

fn settings() -> Settings {
    let mut s = Settings {
        runs: 3,
        rounds: 42,
        batch: Duration::from_millis(20),
        clock: Clock::Wall,
        json: None,
        evaluate: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = || -> u64 {
            match args.next().map(|v| v.parse::<u64>()) {
                Some(Ok(n)) if n > 0 => n,
                _ => usage(&format!("{arg} needs a positive whole number")),
            }
        };
        match arg.as_str() {
            "--runs" => s.runs = number() as usize,
            "--rounds" => s.rounds = number() as usize,
            "--batch-ms" => s.batch = Duration::from_millis(number()),
            "--evaluate" => {
                let side = match args.next().as_deref() {
                    Some("main") => Side::Main,
                    Some("ref") => Side::Reference,
                    Some("cel") => Side::Cel,
                    _ => usage("--evaluate needs main, ref or cel"),
                };
                let Some(case) = args.next() else {
                    usage("--evaluate SIDE CASE N")
                };
                let n = match args.next().map(|v| v.parse::<u64>()) {
                    Some(Ok(n)) if n > 0 => n,
                    _ => usage("--evaluate SIDE CASE N needs a positive whole number"),
                };
                s.evaluate = Some((side, case, n));
            }
            "--json" => match args.next() {
                Some(path) if !path.starts_with("--") => s.json = Some(path),
                _ => usage("--json needs a file name"),
            },
            "--clock" => match args.next().as_deref().and_then(Clock::parse) {
                Some(clock) => s.clock = clock,
                None => usage("--clock needs wall or cpu"),
            },
            _ => usage(&format!("unknown argument {arg}")),
        }
    }
    s
}

/// Reports a bad command line and exits.
fn usage(problem: &str) -> ! {
    eprintln!(
        "kcel-ab: {problem} (usage: --runs N --rounds N --batch-ms M --clock wall|cpu --json FILE | --evaluate main|ref|cel CASE N)"
    );
    std::process::exit(2)
}

/// The six orders in which the three engines (0 main, 1 ref, 2 cel) are timed in a round.
const ORDERS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [1, 2, 0],
    [2, 0, 1],
    [0, 2, 1],
    [2, 1, 0],
    [1, 0, 2],
];

/// Median, lowest and highest of a series.
#[derive(Clone, Copy)]
struct Spread {
    median: f64,
    lowest: f64,
    highest: f64,
}

impl Spread {
    fn of(values: &[f64]) -> Spread {
        let mut v = values.to_vec();
        Spread {
            median: median(&mut v),
            lowest: v.first().copied().unwrap_or(f64::NAN),
            highest: v.last().copied().unwrap_or(f64::NAN),
        }
    }

    fn json(self) -> serde_json::Value {
        json!({ "median": self.median, "lowest": self.lowest, "highest": self.highest })
    }
}

/// One case's figures in one run: the median time per call of each engine and the spread
/// of the per-round ratios (`None` where `cel` was not measured).
struct Row {
    case: String,
    main: f64,
    reference: f64,
    cel: Option<f64>,
    cel_over_main: Option<Spread>,
    cel_over_ref: Option<Spread>,
    ref_over_main: Spread,
}

impl Row {
    fn json(&self) -> serde_json::Value {
        json!({
            "case": self.case, "main_seconds": self.main, "ref_seconds": self.reference,
            "cel_seconds": self.cel,
            "cel_over_main": self.cel_over_main.map(Spread::json),
            "cel_over_ref": self.cel_over_ref.map(Spread::json),
            "ref_over_main": self.ref_over_main.json(),
        })
    }
}

/// Times the engines' closures in `rounds` rounds of one batch each, rotating the order,
/// and returns the case's row (`cel` may be absent).
fn measure(
    case: &Case,
    mut main: Box<dyn FnMut()>,
    mut reference: Box<dyn FnMut()>,
    mut cel: Option<Box<dyn FnMut()>>,
    s: &Settings,
) -> Row {
    let n = [
        calibrate(s.batch, &mut *main),
        calibrate(s.batch, &mut *reference),
        cel.as_mut().map_or(0, |f| calibrate(s.batch, &mut **f)),
    ];
    let mut times: [Vec<f64>; 3] = Default::default();
    for round in 0..s.rounds {
        for engine in ORDERS[round % ORDERS.len()] {
            let t = match engine {
                0 => s.clock.time_batch(n[0], &mut *main),
                1 => s.clock.time_batch(n[1], &mut *reference),
                _ => match cel.as_mut() {
                    Some(f) => s.clock.time_batch(n[2], &mut **f),
                    None => continue,
                },
            };
            times[engine].push(t);
        }
    }
    let per_round = |a: usize, b: usize| -> Vec<f64> {
        times[a].iter().zip(&times[b]).map(|(x, y)| x / y).collect()
    };
    let has_cel = !times[2].is_empty();
    Row {
        case: case.name.clone(),
        main: median(&mut times[0].clone()),
        reference: median(&mut times[1].clone()),
        cel: has_cel.then(|| median(&mut times[2].clone())),
        cel_over_main: has_cel.then(|| Spread::of(&per_round(2, 0))),
        cel_over_ref: has_cel.then(|| Spread::of(&per_round(2, 1))),
        ref_over_main: Spread::of(&per_round(1, 0)),
    }
}

/// A ratio's spread as `median× (lowest–highest)`, or a dash.
fn ratio(spread: Option<Spread>, digits: usize) -> String {
    match spread {
        Some(r) => format!(
            "{:.d$}× ({:.d$}–{:.d$})",
            r.median,
            r.lowest,
            r.highest,
            d = digits
        ),
        None => "—".to_string(),
    }
}

fn print_run(title: &str, rows: &[Row]) {
    println!("\n{title}\n");
    println!("| case | main | ref | cel | cel/main | cel/ref | ref/main |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.case,
            show(r.main),
            show(r.reference),
            r.cel.map_or("—".to_string(), show),
            ratio(r.cel_over_main, 1),
            ratio(r.cel_over_ref, 1),
            ratio(Some(r.ref_over_main), 3),
        );
    }
    let mut main: Vec<f64> = rows.iter().map(|r| r.main).collect();
    let mut reference: Vec<f64> = rows.iter().map(|r| r.reference).collect();
    let mut ref_over_main: Vec<f64> = rows.iter().map(|r| r.ref_over_main.median).collect();
    println!(
        "\nMedian over cases: main {}, ref {}; median of ref/main {:.3}",
        show(median(&mut main)),
        show(median(&mut reference)),
        median(&mut ref_over_main)
    );
}

/// Per case, the median over runs of each run's median figure, with the runs' values.
fn print_summary(title: &str, runs: &[Vec<Row>]) -> serde_json::Value {
    println!(
        "\n{title}: medians over {} runs (the runs' values)\n",
        runs.len()
    );
    println!("| case | main | ref | cel/main | cel/ref | ref/main | main's ratio change |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let over_runs = |f: &dyn Fn(&Row) -> Option<f64>, i: usize| -> Option<(f64, Vec<f64>)> {
        let values: Option<Vec<f64>> = runs.iter().map(|rows| f(&rows[i])).collect();
        values.map(|v| (median(&mut v.clone()), v))
    };
    let cell = |x: Option<(f64, Vec<f64>)>, digits: usize| match x {
        Some((m, v)) => format!(
            "{m:.digits$}× ({})",
            v.iter()
                .map(|x| format!("{x:.digits$}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "—".to_string(),
    };
    let mut cases = Vec::new();
    let (mut main_medians, mut ref_medians, mut ref_over_main_medians) =
        (Vec::new(), Vec::new(), Vec::new());
    for (i, row) in runs[0].iter().enumerate() {
        let main = over_runs(&|r| Some(r.main), i).map(|x| x.0);
        let reference = over_runs(&|r| Some(r.reference), i).map(|x| x.0);
        let cel_main = over_runs(&|r| r.cel_over_main.map(|s| s.median), i);
        let cel_ref = over_runs(&|r| r.cel_over_ref.map(|s| s.median), i);
        let ref_main = over_runs(&|r| Some(r.ref_over_main.median), i);
        let rm = ref_main.as_ref().map(|x| x.0).unwrap_or(f64::NAN);
        println!(
            "| {} | {} | {} | {} | {} | {} | {:+.1}% |",
            row.case,
            main.map_or("—".to_string(), show),
            reference.map_or("—".to_string(), show),
            cell(cel_main.clone(), 1),
            cell(cel_ref.clone(), 1),
            cell(ref_main.clone(), 3),
            (rm - 1.0) * 100.0,
        );
        main_medians.extend(main);
        ref_medians.extend(reference);
        ref_over_main_medians.push(rm);
        cases.push(json!({
            "case": row.case, "main_seconds": main, "ref_seconds": reference,
            "cel_over_main": cel_main.map(|x| x.0), "cel_over_ref": cel_ref.map(|x| x.0),
            "ref_over_main": rm,
        }));
    }
    let (m, r, rm) = (
        median(&mut main_medians),
        median(&mut ref_medians),
        median(&mut ref_over_main_medians),
    );
    println!(
        "\nMedian over cases: main {}, ref {} (main {:+.1}%); median of ref/main {rm:.3}",
        show(m),
        show(r),
        (m / r - 1.0) * 100.0
    );
    json!({ "cases": cases, "main_median_seconds": m, "ref_median_seconds": r,
            "ref_over_main_median": rm })
}

fn main() {
    let s = settings();
    let cases = load_workload();
    let cel_env = Arc::new(cel::Env::stdlib());
    if let Some((side, name, n)) = &s.evaluate {
        let case = cases
            .iter()
            .find(|c| &c.name == name)
            .unwrap_or_else(|| usage(&format!("no case {name}")));
        let mut f: Box<dyn FnMut()> = match side {
            Side::Main => current::evaluator(case),
            Side::Reference => reference::evaluator(case),
            Side::Cel => match cel_prepare(&cel_env, case) {
                Ok((program, context)) => Box::new(move || {
                    black_box(program.execute(black_box(&context))).ok();
                }),
                Err(why) => usage(&format!("the cel crate cannot run {name}: {why}")),
            },
        };
        for _ in 0..*n {
            f();
        }
        return;
    }
    let (mut eval_runs, mut compile_runs) = (Vec::new(), Vec::new());
    for run in 1..=s.runs {
        let mut rows = Vec::new();
        for case in &cases {
            let cel: Option<Box<dyn FnMut()>> = match cel_prepare(&cel_env, case) {
                Ok((program, context)) => Some(Box::new(move || {
                    black_box(program.execute(black_box(&context))).ok();
                })),
                Err(why) => {
                    eprintln!("{}: the cel crate is not measured: {why}", case.name);
                    None
                }
            };
            let main = current::evaluator(case);
            let reference = reference::evaluator(case);
            rows.push(measure(case, main, reference, cel, &s));
        }
        print_run(&format!("Evaluation, run {run} of {}", s.runs), &rows);
        eval_runs.push(rows);

        let mut rows = Vec::new();
        for case in &cases {
            let cel: Option<Box<dyn FnMut()>> = cel_env.compile(&case.expr).is_ok().then(|| {
                let (env, expr) = (Arc::clone(&cel_env), case.expr.clone());
                Box::new(move || {
                    black_box(env.compile(black_box(&expr))).ok();
                }) as Box<dyn FnMut()>
            });
            let main = current::compiler(case);
            let reference = reference::compiler(case);
            rows.push(measure(case, main, reference, cel, &s));
        }
        print_run(&format!("Compile, run {run} of {}", s.runs), &rows);
        compile_runs.push(rows);
    }
    let evaluation = print_summary("Evaluation", &eval_runs);
    let compile = print_summary("Compile", &compile_runs);
    if let Some(path) = s.json {
        let runs = |runs: &[Vec<Row>]| -> Vec<Vec<serde_json::Value>> {
            runs.iter()
                .map(|rows| rows.iter().map(Row::json).collect())
                .collect()
        };
        let doc = json!({
            "rounds": s.rounds, "batch_ms": s.batch.as_millis() as u64,
            "clock": s.clock.name(),
            "evaluation": { "runs": runs(&eval_runs), "summary": evaluation },
            "compile": { "runs": runs(&compile_runs), "summary": compile },
        });
        std::fs::write(&path, serde_json::to_string_pretty(&doc).expect("JSON"))
            .unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
    }
}
