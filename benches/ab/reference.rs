//! The reference side: kcel as of the tree `ab.sh` checks out (e141d86 by default), linked
//! under the crate name `kcel_ref` and driven through that tree's API. It mirrors what
//! `kcel_benches` does for this tree (`kcel_env`, `kcel_program`, `kcel_bind`,
//! `check_kcel_answer`): every binding declared `dyn`, the program built with Kubernetes'
//! per-expression cost limit, the variables converted once (pre-bound), the answer checked
//! against `expect` before anything is timed. At e141d86 `ProgramOptions` is a struct with
//! public fields (no `with_cost_limit` yet); the rest of the calls are the same.

use std::hint::black_box;

use kcel_benches::{COST_LIMIT, Case};
use kcel_ref::{Bindings, Env, Program, ProgramOptions, Type, Value};
use serde_json::Value as Json;

/// The reference tree's environment for `case`: each binding declared `dyn`.
fn env(case: &Case) -> Env {
    let mut env = Env::new();
    for name in case.bindings.keys() {
        env.declare(name.as_str(), Type::Dyn);
    }
    env
}

/// `expr` compiled and planned with Kubernetes' cost limit, as the benches of that tree did.
fn program(env: &Env, expr: &str) -> Program {
    let options = ProgramOptions {
        cost_limit: Some(COST_LIMIT),
        ..Default::default()
    };
    env.compile(expr)
        .and_then(|ast| env.program_with(&ast, options))
        .unwrap_or_else(|issues| panic!("kcel (reference) cannot compile {expr}:\n{issues}"))
}

/// A value of the reference tree as JSON (only the kinds the workload uses).
fn to_json(v: &Value) -> Option<Json> {
    Some(match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::Uint(u) => Json::from(*u),
        Value::Double(d) => Json::from(*d),
        Value::String(s) => Json::String(s.to_string()),
        Value::List(l) => Json::Array(l.iter().map(to_json).collect::<Option<_>>()?),
        Value::Map(m) => Json::Object(
            m.iter()
                .map(|(k, v)| match k.to_value() {
                    Value::String(s) => Some((s.to_string(), to_json(v)?)),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

/// The reference tree's pre-bound evaluation of `case`, its answer checked (panics on a
/// wrong answer or an error), as a closure to time.
pub fn evaluator(case: &Case) -> Box<dyn FnMut()> {
    let program = program(&env(case), &case.expr);
    let mut vars = Bindings::new();
    for (k, v) in &case.bindings {
        vars.bind(k, Value::from(v));
    }
    let got = program.eval(&vars).unwrap_or_else(|e| {
        panic!(
            "{}: kcel (reference) fails: {}",
            case.name,
            program.render_error(&e)
        )
    });
    assert_eq!(
        to_json(&got).as_ref(),
        Some(&case.expect),
        "{}: kcel (reference) answers {got}",
        case.name
    );
    Box::new(move || {
        black_box(program.eval(black_box(&vars))).ok();
    })
}

/// The reference tree's compile of `case` (parse, check and plan with the cost limit) as a
/// closure to time; the environment is built once, outside.
pub fn compiler(case: &Case) -> Box<dyn FnMut()> {
    let env = env(case);
    let expr = case.expr.clone();
    Box::new(move || {
        black_box(program(&env, black_box(&expr)));
    })
}
