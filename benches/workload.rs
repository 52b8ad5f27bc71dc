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
//! Run with `cargo bench --bench workload`; `python3 benches/report.py` turns the results
//! into the table of BENCHMARKS.md.

use std::collections::HashMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use kcel::{Bindings, Env, JsonActivation, Program, Type, Value};
use serde_json::Value as Json;

/// Kubernetes' per-expression runtime cost limit (`PerCallLimit`).
const COST_LIMIT: u64 = 1_000_000;

struct Case {
    name: String,
    expr: String,
    bindings: serde_json::Map<String, Json>,
    expect: Json,
}

fn load_workload() -> Vec<Case> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/workload.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read the workload {}: {e}", path.display()));
    let cases: Vec<Json> = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("invalid workload {}: {e}", path.display()));
    cases
        .into_iter()
        .map(|c| {
            let field = |k: &str| c.get(k).unwrap_or_else(|| panic!("case without '{k}'"));
            Case {
                name: field("name")
                    .as_str()
                    .expect("name is a string")
                    .to_string(),
                expr: field("expr")
                    .as_str()
                    .expect("expr is a string")
                    .to_string(),
                bindings: field("bindings")
                    .as_object()
                    .expect("bindings is an object")
                    .clone(),
                expect: field("expect").clone(),
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// kcel

fn kcel_env(case: &Case) -> Env {
    let mut env = Env::new();
    for name in case.bindings.keys() {
        env.declare(name.as_str(), Type::Dyn);
    }
    env
}

fn kcel_program(env: &Env, expr: &str) -> Program {
    let options = kcel::env::ProgramOptions {
        cost_limit: Some(COST_LIMIT),
        ..Default::default()
    };
    env.compile(expr)
        .and_then(|ast| env.program_with(&ast, options))
        .unwrap_or_else(|issues| panic!("kcel cannot compile {expr}:\n{issues}"))
}

fn kcel_bind(bindings: &serde_json::Map<String, Json>) -> Bindings {
    let mut vars = Bindings::new();
    for (k, v) in bindings {
        vars.bind(k, Value::from(v));
    }
    vars
}

/// A kcel value as JSON, for comparison with `expect` (only the kinds the workload uses).
fn kcel_to_json(v: &Value) -> Option<Json> {
    Some(match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::Uint(u) => Json::from(*u),
        Value::Double(d) => Json::from(*d),
        Value::String(s) => Json::String(s.to_string()),
        Value::List(l) => Json::Array(l.iter().map(kcel_to_json).collect::<Option<_>>()?),
        Value::Map(m) => Json::Object(
            m.iter()
                .map(|(k, v)| match k.to_value() {
                    Value::String(s) => Some((s.to_string(), kcel_to_json(v)?)),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------
// the cel crate

/// JSON as a `cel` value: integral numbers as `int` (as Kubernetes and kcel do), other
/// numbers as `double`, objects as maps with string keys.
fn json_to_cel(j: &Json) -> cel::Value {
    match j {
        Json::Null => cel::Value::Null,
        Json::Bool(b) => cel::Value::Bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => cel::Value::Int(i),
            (None, Some(u)) => cel::Value::UInt(u),
            _ => cel::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => cel::Value::String(Arc::new(s.clone())),
        Json::Array(a) => cel::Value::List(Arc::new(a.iter().map(json_to_cel).collect())),
        Json::Object(o) => {
            let map: HashMap<String, cel::Value> =
                o.iter().map(|(k, v)| (k.clone(), json_to_cel(v))).collect();
            cel::Value::from(map)
        }
    }
}

fn cel_to_json(v: &cel::Value) -> Option<Json> {
    Some(match v {
        cel::Value::Null => Json::Null,
        cel::Value::Bool(b) => Json::Bool(*b),
        cel::Value::Int(i) => Json::from(*i),
        cel::Value::UInt(u) => Json::from(*u),
        cel::Value::Float(d) => Json::from(*d),
        cel::Value::String(s) => Json::String(s.to_string()),
        cel::Value::List(l) => Json::Array(l.iter().map(cel_to_json).collect::<Option<_>>()?),
        cel::Value::Map(m) => Json::Object(
            m.map
                .iter()
                .map(|(k, v)| match k {
                    cel::objects::Key::String(s) => Some((s.to_string(), cel_to_json(v)?)),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

/// The `cel` crate's program and context for a case, or why it cannot run it.
fn cel_prepare(
    env: &Arc<cel::Env>,
    case: &Case,
) -> Result<(cel::Program, cel::Context<'static, 'static>), String> {
    let program = env
        .compile(&case.expr)
        .map_err(|e| format!("does not compile: {e}"))?;
    let mut context = cel::Context::with_env(Arc::clone(env));
    for (name, value) in &case.bindings {
        context.add_variable_from_value(name.as_str(), json_to_cel(value));
    }
    let result = program
        .execute(&context)
        .map_err(|e| format!("evaluation error: {e}"))?;
    match cel_to_json(&result) {
        Some(j) if j == case.expect => Ok((program, context)),
        _ => Err(format!("wrong result {result:?}, expected {}", case.expect)),
    }
}

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
            let got = result.unwrap_or_else(|e| {
                panic!(
                    "{}: kcel ({how}) fails: {}",
                    case.name,
                    program.render_error(&e)
                )
            });
            assert_eq!(
                kcel_to_json(&got).as_ref(),
                Some(&case.expect),
                "{}: kcel ({how}) answers {got}",
                case.name
            );
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
