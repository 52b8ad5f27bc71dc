//! kcel and the `cel` crate side by side over the shared workload
//! (`../shared/bench/workload.json`, read at run time).
//!
//! Per case, one criterion group named after the case with three functions:
//!
//! - `kcel`: a precompiled program evaluated against a pre-bound activation (the variables
//!   converted to kcel values once, outside the timed loop);
//! - `kcel_from_json`: the same program evaluated with the `serde_json` bindings document
//!   bound per evaluation (a `JsonActivation` made inside the timed loop from the shared
//!   document): the JSON is read in place, never copied;
//! - `cel`: the `cel` crate, compiled once, its context built with the variables once,
//!   executed repeatedly.
//!
//! Plus a group `compile` with `kcel/<case>` (parse + check + plan) and `cel/<case>`
//! (the crate's compile). Every figure of kcel has cost tracking on, with Kubernetes'
//! per-expression limit.
//!
//! Before anything is timed, each engine's answer is checked against the case's `expect`:
//! a wrong kcel answer aborts the bench; a case the `cel` crate cannot evaluate (or answers
//! wrongly) is reported and its `cel` figure skipped.
//!
//! Run with `cargo bench -p kcel-benches --bench workload`; `python3 benches/report.py` turns the results
//! into the table of BENCHMARKS.md.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use kcel::JsonActivation;
use kcel_benches::{
    cel_prepare, check_kcel_answer, kcel_bind, kcel_env, kcel_program, load_workload,
};
use serde_json::Value as Json;

// ---------------------------------------------------------------------------------------
// benches

fn workload(c: &mut Criterion) {
    let cases = load_workload();
    let cel_env = Arc::new(cel::Env::stdlib());

    for case in &cases {
        let env = kcel_env(case);
        let program = kcel_program(&env, &case.expr);
        let vars = kcel_bind(&case.bindings);
        let document = Arc::new(Json::Object(case.bindings.clone()));

        // Both kcel paths must give the expected answer before anything is timed.
        for (how, result) in [
            ("pre-bound", program.eval(&vars)),
            (
                "from JSON",
                program.eval(&JsonActivation::new(document.clone())),
            ),
        ] {
            check_kcel_answer(case, &program, how, result);
        }

        let cel = cel_prepare(&cel_env, case);
        if let Err(why) = &cel {
            println!("{}: the cel crate is not measured: {why}", case.name);
        }

        let mut group = c.benchmark_group(&case.name);
        group.bench_function("kcel", |b| b.iter(|| program.eval(black_box(&vars))));
        group.bench_function("kcel_from_json", |b| {
            b.iter(|| program.eval(&JsonActivation::new(black_box(&document).clone())))
        });
        if let Ok((cel_program, cel_context)) = &cel {
            group.bench_function("cel", |b| {
                b.iter(|| cel_program.execute(black_box(cel_context)))
            });
        }
        group.finish();
    }

    let mut group = c.benchmark_group("compile");
    for case in &cases {
        let env = kcel_env(case);
        group.bench_with_input(BenchmarkId::new("kcel", &case.name), &case.expr, |b, e| {
            b.iter(|| kcel_program(&env, black_box(e)))
        });
        if cel_env.compile(&case.expr).is_ok() {
            group.bench_with_input(BenchmarkId::new("cel", &case.name), &case.expr, |b, e| {
                b.iter(|| cel_env.compile(black_box(e)))
            });
        }
    }
    group.finish();
}

/// Short measurements so the whole bench runs in a few minutes on 2 cores; command-line
/// flags (`--warm-up-time`, `--measurement-time`, `--sample-size`) still override these.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .nresamples(20_000)
        .configure_from_args()
}

criterion_group! {
    name = benches;
    config = config();
    targets = workload
}
criterion_main!(benches);
