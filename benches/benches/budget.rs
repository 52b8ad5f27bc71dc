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
//! and `--batch-ms M` as in `interleaved.rs` (defaults 31 and 20 ms).

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
            // `cargo bench` passes `--bench`; other flags are not ours.
            _ => {}
        }
    }
    (rounds, std::time::Duration::from_millis(batch_ms))
}

fn main() {
    let (rounds, batch) = settings();
    let configurations = [
        (
            "both on",
            Some(COST_LIMIT),
            Some(kcel::budget::DEFAULT_MEMORY_LIMIT),
        ),
        ("memory budget off", Some(COST_LIMIT), None),
        ("both off", None, None),
    ];
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
                let options = ProgramOptions {
                    cost_limit,
                    memory_limit,
                    ..ProgramOptions::default()
                };
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
        let sizes: Vec<u64> = calls.iter_mut().map(|f| calibrate(batch, f)).collect();
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
