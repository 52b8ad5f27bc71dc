//! A runaway expression under Kubernetes' per-call cost limit: three nested comprehensions
//! over a 1,000-element list would take 10^9 iterations; with a limit of 1,000,000 the
//! evaluation must stop with the cost error after about 1,000,000 units of work.
//!
//! The group compares, in the same run, the runaway expression against a terminating
//! expression whose actual cost is just under the limit: if the runaway stops as soon as the
//! limit is passed, both take about the same time.
//!
//! Run with `cargo bench -p kcel-benches --bench runaway`.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use kcel::library::LIMIT_EXCEEDED;
use kcel::{Env, Program, ProgramOptions, Type, Value};

const LIMIT: u64 = 1_000_000;

fn program(env: &Env, expr: &str) -> Program {
    let ast = env.compile(expr).expect("compiles");
    let options = ProgramOptions::default()
        .with_cost_limit(Some(LIMIT))
        .with_presence_test_cost(false);
    env.program_with(&ast, options).expect("plans")
}

fn bench(c: &mut Criterion) {
    let mut env = Env::new();
    env.declare("l", Type::list(Type::Int));
    let list = |n: i64| Value::list((0..n).map(Value::Int).collect::<Vec<_>>());
    let big: HashMap<String, Value> = HashMap::from([("l".into(), list(1000))]);
    // 368 x 368 iterations of a 7-unit inner step: just under 1,000,000.
    let small: HashMap<String, Value> = HashMap::from([("l".into(), list(368))]);

    let runaway = program(&env, "l.all(a, l.all(b, l.all(c, a + b + c >= 0)))");
    let bounded = program(&env, "l.all(a, l.all(b, a + b >= 0))");

    let (result, details) = runaway.eval_with_details(&big);
    assert_eq!(
        result.map_err(|e| e.into_message()).unwrap_err(),
        LIMIT_EXCEEDED
    );
    assert!(details.actual_cost > LIMIT && details.actual_cost < LIMIT + 100);
    let (result, details) = bounded.eval_with_details(&small);
    assert_eq!(result.ok(), Some(Value::Bool(true)));
    assert!(details.actual_cost <= LIMIT && details.actual_cost > LIMIT * 9 / 10);
    println!(
        "runaway stops at cost {}; bounded expression costs {}",
        runaway.eval_with_details(&big).1.actual_cost,
        details.actual_cost
    );

    let mut group = c.benchmark_group("cost_limit");
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("runaway_10e9_iterations_stopped", |b| {
        b.iter(|| black_box(runaway.eval(black_box(&big))))
    });
    group.bench_function("bounded_just_under_limit", |b| {
        b.iter(|| black_box(bounded.eval(black_box(&small))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
