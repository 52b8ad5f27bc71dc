//! The side under test: kcel of this tree, through the helpers the `interleaved` bench uses
//! (`kcel_benches`), so both measure the same thing: every binding declared `dyn`, the
//! program built with Kubernetes' per-expression cost limit, the variables converted once
//! (pre-bound), the answer checked against `expect` before anything is timed.

use std::hint::black_box;

use kcel_benches::{Case, check_kcel_answer, kcel_bind, kcel_env, kcel_program};

/// This tree's pre-bound evaluation of `case`, its answer checked (panics on a wrong answer
/// or an error), as a closure to time.
pub fn evaluator(case: &Case) -> Box<dyn FnMut()> {
    let program = kcel_program(&kcel_env(case), &case.expr);
    let vars = kcel_bind(&case.bindings);
    check_kcel_answer(case, &program, "pre-bound", program.eval(&vars));
    Box::new(move || {
        black_box(program.eval(black_box(&vars))).ok();
    })
}

/// This tree's compile of `case` (parse, check and plan with the cost limit) as a closure
/// to time; the environment is built once, outside.
pub fn compiler(case: &Case) -> Box<dyn FnMut()> {
    let env = kcel_env(case);
    let expr = case.expr.clone();
    Box::new(move || {
        black_box(kcel_program(&env, black_box(&expr)));
    })
}
