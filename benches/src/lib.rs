//! What the workload benches (`benches/benches/`) share: the workload file, kcel's and the
//! `cel` crate's programs and bindings for a case, the check of their answers against
//! `expect`, and the timing of batches for the interleaved benches.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kcel::{Bindings, Env, EvalError, Program, Type, Value};
use serde_json::Value as Json;

/// Kubernetes' per-expression runtime cost limit (`PerCallLimit`).
pub const COST_LIMIT: u64 = 1_000_000;

/// One case of the workload.
pub struct Case {
    pub name: String,
    pub expr: String,
    pub bindings: serde_json::Map<String, Json>,
    pub expect: Json,
}

pub fn load_workload() -> Vec<Case> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/bench/workload.json");
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

pub fn kcel_env(case: &Case) -> Env {
    let mut env = Env::new();
    for name in case.bindings.keys() {
        env.declare(name.as_str(), Type::Dyn);
    }
    env
}

pub fn kcel_program(env: &Env, expr: &str) -> Program {
    let options = kcel::ProgramOptions::default().with_cost_limit(Some(COST_LIMIT));
    kcel_program_with(env, expr, options)
}

/// [`kcel_program`] with other program options.
pub fn kcel_program_with(env: &Env, expr: &str, options: kcel::ProgramOptions) -> Program {
    env.compile(expr)
        .and_then(|ast| env.program_with(&ast, options))
        .unwrap_or_else(|issues| panic!("kcel cannot compile {expr}:\n{issues}"))
}

pub fn kcel_bind(bindings: &serde_json::Map<String, Json>) -> Bindings {
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

/// Panics unless `result`, kcel's evaluation of `case` (`how`: the way it was bound), is
/// the case's expected answer.
pub fn check_kcel_answer(
    case: &Case,
    program: &Program,
    how: &str,
    result: Result<Value, EvalError>,
) {
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

// ---------------------------------------------------------------------------------------
// the cel crate

/// JSON as a `cel` value: integral numbers as `int` (as Kubernetes and kcel do), other
/// numbers as `double`, objects as maps with string keys.
pub fn json_to_cel(j: &Json) -> cel::Value {
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

pub fn cel_to_json(v: &cel::Value) -> Option<Json> {
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
pub fn cel_prepare(
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

/// The number of calls of `f` that take about `target`.
pub fn calibrate(target: Duration, f: &mut dyn FnMut()) -> u64 {
    let mut n = 1u64;
    loop {
        let start = Instant::now();
        for _ in 0..n {
            f();
        }
        let took = start.elapsed();
        if took >= target / 4 || n >= 1 << 30 {
            let per_call = took.as_secs_f64() / n as f64;
            return ((target.as_secs_f64() / per_call) as u64).max(1);
        }
        n *= 2;
    }
}

/// Seconds per call over a batch of `n` calls.
pub fn time_batch(n: u64, f: &mut dyn FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        f();
    }
    start.elapsed().as_secs_f64() / n as f64
}

/// What a batch is timed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// Elapsed time (`Instant`).
    Wall,
    /// The timing thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`): time spent descheduled
    /// while other processes run is not counted. On a machine shared with builds most
    /// batches of a few milliseconds are preempted at least once, and the wall clock charges
    /// that to whichever engine was running.
    Cpu,
}

impl Clock {
    /// The clock named `wall` or `cpu` (`cpu` only where the thread's CPU clock exists).
    pub fn parse(name: &str) -> Option<Clock> {
        match name {
            "wall" => Some(Clock::Wall),
            "cpu" if cfg!(unix) => Some(Clock::Cpu),
            _ => None,
        }
    }

    /// The clock's name, as [`Clock::parse`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            Clock::Wall => "wall",
            Clock::Cpu => "cpu",
        }
    }

    /// Seconds per call over a batch of `n` calls of `f`, by this clock.
    pub fn time_batch(self, n: u64, f: &mut dyn FnMut()) -> f64 {
        match self {
            Clock::Wall => time_batch(n, f),
            Clock::Cpu => {
                let start = thread_cpu_seconds();
                for _ in 0..n {
                    f();
                }
                (thread_cpu_seconds() - start) / n as f64
            }
        }
    }
}

/// The calling thread's CPU time in seconds.
#[cfg(unix)]
fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and the clock id a constant of the platform.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Not reached: [`Clock::parse`] gives no CPU clock where the platform has none.
#[cfg(not(unix))]
fn thread_cpu_seconds() -> f64 {
    unreachable!("no thread CPU clock on this platform")
}

/// The median (sorts `values`).
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// Seconds shown in ns, µs or ms.
pub fn show(secs: f64) -> String {
    let ns = secs * 1e9;
    if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.3} µs", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}
