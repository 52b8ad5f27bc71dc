//! The ratio of the `cel` crate's time to kcel's per workload case, measured interleaved:
//! on a shared machine whose speed drifts from second to second, criterion times kcel and
//! the `cel` crate seconds apart, so a slow spell can land on either. Here each case runs
//! in rounds, each round timing a batch of kcel evaluations and a batch of `cel` ones back
//! to back (alternating which goes first), and the ratio is taken per round: drift common
//! to both batches cancels out. Reported per case: the medians of both per-call times and
//! of the per-round ratios, with the lowest and highest ratio; then the geometric mean of
//! the median ratios (without `trivial_true`, as in BENCHMARKS.md).
//!
//! The programs and bindings are those of the `workload` bench (pre-bound kcel
//! activation, cost tracking on at Kubernetes' limit); answers are checked first.
//!
//! Run with `cargo bench -p kcel-benches --bench interleaved` (about a minute). `--rounds N` and
//! `--batch-ms M` change the number of rounds (default 41) and the time of a batch
//! (default 25 ms); `--json FILE` also writes the figures as JSON.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use kcel_benches::{
    calibrate, cel_prepare, check_kcel_answer, kcel_bind, kcel_env, kcel_program, load_workload,
    median, show, time_batch,
};

/// Settings from the command line.
struct Settings {
    rounds: usize,
    batch: Duration,
    json: Option<String>,
}

fn settings() -> Settings {
    let mut s = Settings {
        rounds: 41,
        batch: Duration::from_millis(25),
        json: None,
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
            "--rounds" => s.rounds = number() as usize,
            "--batch-ms" => s.batch = Duration::from_millis(number()),
            "--json" => match args.next() {
                Some(path) if !path.starts_with("--") => s.json = Some(path),
                _ => usage("--json needs a file name"),
            },
            // `cargo bench` passes `--bench`; other flags are not ours.
            _ => {}
        }
    }
    s
}

/// Reports a bad command line and exits.
fn usage(problem: &str) -> ! {
    eprintln!("interleaved: {problem} (usage: --rounds N --batch-ms M --json FILE)");
    std::process::exit(2)
}

fn main() {
    let s = settings();
    let cel_env = Arc::new(cel::Env::stdlib());
    let mut rows = Vec::new();
    println!(
        "| case | kcel | cel 0.15 | cel / kcel (median of {} rounds) | lowest | highest |",
        s.rounds
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for case in load_workload() {
        let env = kcel_env(&case);
        let program = kcel_program(&env, &case.expr);
        let vars = kcel_bind(&case.bindings);
        check_kcel_answer(&case, &program, "pre-bound", program.eval(&vars));
        let (cel_program, cel_context) = match cel_prepare(&cel_env, &case) {
            Ok(prepared) => prepared,
            Err(why) => {
                println!(
                    "| {} | the cel crate is not measured: {why} |||||",
                    case.name
                );
                continue;
            }
        };
        let mut kcel = || {
            black_box(program.eval(black_box(&vars))).ok();
        };
        let mut cel = || {
            black_box(cel_program.execute(black_box(&cel_context))).ok();
        };
        let (nk, nc) = (calibrate(s.batch, &mut kcel), calibrate(s.batch, &mut cel));
        let (mut tk, mut tc, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..s.rounds {
            let (k, c) = if round % 2 == 0 {
                let k = time_batch(nk, &mut kcel);
                (k, time_batch(nc, &mut cel))
            } else {
                let c = time_batch(nc, &mut cel);
                (time_batch(nk, &mut kcel), c)
            };
            tk.push(k);
            tc.push(c);
            ratios.push(c / k);
        }
        let (lowest, highest) = ratios
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
        let (k, c, r) = (median(&mut tk), median(&mut tc), median(&mut ratios));
        println!(
            "| {} | {} | {} | {r:.1}× | {lowest:.1}× | {highest:.1}× |",
            case.name,
            show(k),
            show(c)
        );
        rows.push((case.name, k, c, r, lowest, highest));
    }
    let counted: Vec<f64> = rows
        .iter()
        .filter(|row| row.0 != "trivial_true")
        .map(|row| row.3)
        .collect();
    let geomean = (counted.iter().map(|r| r.ln()).sum::<f64>() / counted.len() as f64).exp();
    println!(
        "\nGeometric mean of the median ratios over {} cases (without trivial_true): {geomean:.1}×",
        counted.len()
    );
    if let Some(path) = s.json {
        let cases: Vec<serde_json::Value> = rows
            .iter()
            .map(|(name, k, c, r, lo, hi)| {
                serde_json::json!({
                    "case": name, "kcel_seconds": k, "cel_seconds": c,
                    "ratio": r, "lowest": lo, "highest": hi,
                })
            })
            .collect();
        let doc = serde_json::json!({ "rounds": s.rounds, "cases": cases, "geomean": geomean });
        std::fs::write(&path, serde_json::to_string_pretty(&doc).expect("JSON"))
            .unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
    }
}
