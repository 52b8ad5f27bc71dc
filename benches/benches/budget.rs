//! What the budgets cost (issue 27: "the workload figures do not move by more than 5% with
//! the budget on"): per workload case, kcel's time with the default program options of the
//! benches (Kubernetes' cost limit of 1,000,000 and the default 64 MiB memory budget)
//! against the same program with the memory budget off, and with both the memory budget
//! and the cost limit off.
//!
//! Measured interleaved, as `interleaved.rs` measures kcel against the `cel` crate: each
//! case runs in rounds, each round timing a batch of every configuration back to back (the
//! order rotating), and the ratios are taken per round, so that the machine's drift cancels
//! out. Reported per case: the median time with both budgets on, and the medians of the
//! per-round ratios of that time to the time without them (1.05: the budgets add 5%;
//! below 1.00: noise); then the geometric means of the ratios.
//!
//! Run with `cargo bench -p kcel-benches --bench budget` (about a minute). `--rounds N`
//! and `--batch-ms M` as in `interleaved.rs` (defaults 31 and 20 ms); `--evaluate CASE
//! CONFIG N` is a driver for instruction counts (see `evaluate_only`).

use std::hint::black_box;

use kcel::ProgramOptions;
use kcel_benches::{
    COST_LIMIT, calibrate, check_kcel_answer, kcel_bind, kcel_env, kcel_program_with,
    load_workload, median, show, time_batch,
};

fn settings() -> (usize, std::time::Duration) {
    let (mut rounds, mut batch_ms) = (31usize, 20u64);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || -> u64 {
            match args.next().map(|v| v.parse::<u64>()) {
                Some(Ok(n)) if n > 0 => n,
                _ => {
                    eprintln!("budget: {arg} needs a positive whole number");
                    std::process::exit(2)
                }
            }
        };
        match arg.as_str() {
            "--rounds" => rounds = value() as usize,
            "--batch-ms" => batch_ms = value(),
            "--evaluate" => break,
            // `cargo bench` passes `--bench`; other flags are not ours.
            _ => {}
        }
    }
    (rounds, std::time::Duration::from_millis(batch_ms))
}

/// `--evaluate CASE CONFIG N`: evaluates one case `N` times with one configuration (0: both
/// on, 1: memory budget off, 2: both off) and exits — a driver for instruction counts
/// (`valgrind --tool=callgrind`, run with N and N + 1,000; the difference over 1,000).
fn evaluate_only(configurations: &[(&str, Option<u64>, Option<u64>)]) -> bool {
    let args: Vec<String> = std::env::args().collect();
    let Some(at) = args.iter().position(|a| a == "--evaluate") else {
        return false;
    };
    let (name, config, n) = match &args[at + 1..] {
        [name, config, n, ..] => (name, config.parse::<usize>(), n.parse::<u64>()),
        _ => (&args[0], Ok(usize::MAX), Ok(0)),
    };
    let (Ok(config), Ok(n)) = (config, n) else {
        eprintln!("budget: --evaluate CASE CONFIG N");
        std::process::exit(2)
    };
    let case = load_workload()
        .into_iter()
        .find(|c| &c.name == name)
        .unwrap_or_else(|| panic!("no case {name}"));
    let (how, cost_limit, memory_limit) = configurations[config];
    let env = kcel_env(&case);
    let vars = kcel_bind(&case.bindings);
    let options = ProgramOptions::default()
        .with_cost_limit(cost_limit)
        .with_memory_limit(memory_limit);
    let program = kcel_program_with(&env, &case.expr, options);
    check_kcel_answer(&case, &program, how, program.eval(&vars));
    for _ in 0..n {
        black_box(program.eval(black_box(&vars))).ok();
    }
    true
}

fn main() {
    let (rounds, batch) = settings();
    let configurations = [
        (
            "both on",
            Some(COST_LIMIT),
            Some(kcel::DEFAULT_MEMORY_LIMIT),
        ),
        ("memory budget off", Some(COST_LIMIT), None),
        ("both off", None, None),
    ];
    if evaluate_only(&configurations) {
        return;
    }
    println!(
        "| case | both on | on / memory budget off | on / both off | (medians of {rounds} rounds) |"
    );
    println!("|---|---:|---:|---:|---|");
    let (mut memory_ratios, mut both_ratios) = (Vec::new(), Vec::new());
    for case in load_workload() {
        let env = kcel_env(&case);
        let vars = kcel_bind(&case.bindings);
        let programs: Vec<_> = configurations
            .iter()
            .map(|&(how, cost_limit, memory_limit)| {
                let options = ProgramOptions::default()
                    .with_cost_limit(cost_limit)
                    .with_memory_limit(memory_limit);
                let program = kcel_program_with(&env, &case.expr, options);
                check_kcel_answer(&case, &program, how, program.eval(&vars));
                program
            })
            .collect();
        let mut calls: Vec<Box<dyn FnMut()>> = programs
            .iter()
            .map(|p| {
                let vars = &vars;
                Box::new(move || {
                    black_box(p.eval(black_box(vars))).ok();
                }) as Box<dyn FnMut()>
            })
            .collect();
        // One batch size for all (the programs take about the same time), the largest of
        // several calibrations: one made in a slow spell would give batches too small to
        // time (a few calls, cold caches).
        let n = (0..3)
            .flat_map(|_| {
                calls
                    .iter_mut()
                    .map(|f| calibrate(batch, f))
                    .collect::<Vec<_>>()
            })
            .max()
            .unwrap_or(1);
        let sizes = [n; 3];
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); calls.len()];
        let (mut memory_off, mut both_off) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            let mut t = [0f64; 3];
            for k in 0..calls.len() {
                let which = (round + k) % calls.len();
                t[which] = time_batch(sizes[which], &mut calls[which]);
            }
            for (which, secs) in t.iter().enumerate() {
                times[which].push(*secs);
            }
            memory_off.push(t[0] / t[1]);
            both_off.push(t[0] / t[2]);
        }
        let on = median(&mut times[0]);
        let (m, b) = (median(&mut memory_off), median(&mut both_off));
        println!("| {} | {} | {m:.3} | {b:.3} | |", case.name, show(on));
        memory_ratios.push(m);
        both_ratios.push(b);
    }
    let geomean = |r: &[f64]| (r.iter().map(|x| x.ln()).sum::<f64>() / r.len() as f64).exp();
    println!(
        "\nGeometric means over {} cases: on / memory budget off {:.3}, on / both off {:.3}",
        memory_ratios.len(),
        geomean(&memory_ratios),
        geomean(&both_ratios)
    );
}
