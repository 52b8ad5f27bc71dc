//! Evaluation traces: why an expression gave its value. A traced program records, for
//! every node of the expression it evaluates (constants aside), the node's id, how deeply
//! it was nested in other traced nodes, its result and the cost its evaluation charged —
//! once per evaluation, so a comprehension's body appears once per iteration, with the
//! iteration variable's value among its steps.
//!
//! A traced program is planned in [reference mode](crate::ProgramOptions::reference):
//! every node evaluated into a value, through the one generic path, so every
//! sub-expression has a value to show. Its results, errors and costs are those of the same
//! program without the trace (tests below check that).
//!
//! ```
//! use kcel::{Env, Bindings, Value, ProgramOptions};
//! let mut env = Env::new();
//! env.declare("xs", kcel::Type::List(std::sync::Arc::new(kcel::Type::Int)));
//! let ast = env.compile("xs.all(x, x > 0)").unwrap();
//! let program = env.traced_program(&ast, ProgramOptions::default()).unwrap();
//! let vars = Bindings::new().with("xs", vec![Value::Int(3), Value::Int(-1)]);
//! let (result, _, trace) = program.eval_traced(&vars, 10_000);
//! assert_eq!(result.unwrap(), Value::Bool(false));
//! // The step of `x > 0` that was false, and the element it saw.
//! let text = |id| {
//!     let span = program.span(id).unwrap();
//!     &program.source()[span.start as usize..span.end as usize]
//! };
//! // (a call's span is its anchor: the operator, or the function name)
//! let failed = trace.steps.iter().position(|s| text(s.id) == ">" && s.result == Ok(Value::Bool(false)));
//! assert_eq!(text(trace.steps[failed.unwrap() + 1].id), "x");
//! assert_eq!(trace.steps[failed.unwrap() + 1].result, Ok(Value::Int(-1)));
//! ```

use crate::eval::trace_log::TraceLog;
pub use crate::eval::trace_log::TraceStep;
use crate::{Activation, Ast, Env, EvalDetails, EvalError, Issues, Program, ProgramOptions, Value};

/// The steps of one traced evaluation, in the order evaluation began them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// The recorded steps.
    pub steps: Vec<TraceStep>,
    /// Steps not recorded because the trace reached its step limit.
    pub dropped: u64,
}

impl Env {
    /// Plans a program that records an evaluation trace ([`Program::eval_traced`]): in
    /// reference mode, whatever `options.reference` says.
    pub fn traced_program(&self, ast: &Ast, options: ProgramOptions) -> Result<Program, Issues> {
        let options = options.with_reference(true);
        self.plan_traced(ast, options, true, true)
    }
}

impl Program {
    /// Evaluates the program and returns its result, cost and trace, recording at most
    /// `max_steps` steps (a program not made by [`Env::traced_program`] records none).
    pub fn eval_traced(
        &self,
        activation: &dyn Activation,
        max_steps: usize,
    ) -> (Result<Value, EvalError>, EvalDetails, Trace) {
        let log = Box::new(TraceLog {
            max_steps,
            ..TraceLog::default()
        });
        let (result, details, log) = self.run(activation, Some(log));
        let trace = log.map_or_else(Trace::default, |log| Trace {
            steps: log.steps,
            dropped: log.dropped,
        });
        (result, details, trace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bindings, Type};

    fn env() -> Env {
        let mut env = Env::new();
        env.declare("xs", Type::List(std::sync::Arc::new(Type::Int)));
        env.declare(
            "m",
            Type::Map(
                std::sync::Arc::new(Type::String),
                std::sync::Arc::new(Type::Dyn),
            ),
        );
        env
    }

    fn vars() -> Bindings {
        let mut vars = Bindings::new();
        vars.bind("xs", vec![Value::Int(3), Value::Int(-1), Value::Int(4)]);
        let m: Value = serde_json::from_str::<serde_json::Value>(
            r#"{"a": {"b": [1, 2]}, "s": "hello", "n": null}"#,
        )
        .map(|j| Value::from(&j))
        .unwrap();
        vars.bind("m", m);
        vars
    }

    /// Tracing changes nothing the expression computes: result, error and cost are those
    /// of the reference and the optimized programs.
    #[test]
    fn traced_programs_agree_with_untraced_ones() {
        let env = env();
        let vars = vars();
        for expr in [
            "xs.all(x, x > 0)",
            "xs.exists(x, x > 3)",
            "xs.map(x, x * 2).filter(y, y > 0)",
            "xs.exists_one(x, x == 4) ? m.s : 'no'",
            "size(m.a.b) + xs[0] > 2 && has(m.a.b) || m.n == null",
            "m.s.startsWith('he') && m.s.matches('l+o$')",
            "xs[5] > 0 || true",
            "1 / 0 == 1 || xs.all(x, x / 0 > 1)",
            "xs.size() * 2 + xs.size()",
            "m.missing.x",
            "[1, 2, 3].map(i, [i, i * 2]).size() == 3 && {'k': xs}.k[1] == -1",
            "m.exists(k, k == 's') && m.all(k, k.size() == 1)",
        ] {
            let ast = match env.compile(expr) {
                Ok(ast) => ast,
                Err(e) => panic!("{expr}: {e}"),
            };
            let optimized = env.program(&ast).unwrap().eval_with_details(&vars);
            let traced = env.traced_program(&ast, env.program_options()).unwrap();
            let (result, details, trace) = traced.eval_traced(&vars, 10_000);
            assert_eq!((result, details), optimized, "{expr}");
            assert!(!trace.steps.is_empty(), "{expr}");
            assert_eq!(trace.steps[0].depth, 0, "{expr}");
            assert_eq!(trace.steps[0].cost, details.actual_cost, "{expr}");
        }
    }

    #[test]
    fn steps_nest_and_show_the_failing_element() {
        let env = env();
        let ast = env.compile("xs.all(x, x > 0)").unwrap();
        let program = env.traced_program(&ast, ProgramOptions::default()).unwrap();
        let (result, _, trace) = program.eval_traced(&vars(), 10_000);
        assert_eq!(result, Ok(Value::Bool(false)));
        let text = |s: &TraceStep| {
            let span = program.span(s.id).unwrap();
            &program.source()[span.start as usize..span.end as usize]
        };
        let predicate: Vec<_> = trace
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| text(s) == ">")
            .collect();
        // 3 > 0, then -1 > 0 ends the loop.
        assert_eq!(
            predicate
                .iter()
                .map(|(_, s)| s.result.clone())
                .collect::<Vec<_>>(),
            [Ok(Value::Bool(true)), Ok(Value::Bool(false))]
        );
        let (at, step) = predicate[1];
        let element = &trace.steps[at + 1];
        assert_eq!(text(element), "x");
        assert_eq!(element.depth, step.depth + 1);
        assert_eq!(element.result, Ok(Value::Int(-1)));
    }

    #[test]
    fn the_step_limit_bounds_the_trace() {
        let env = env();
        let ast = env.compile("xs.map(x, x + 1).size()").unwrap();
        let program = env.traced_program(&ast, ProgramOptions::default()).unwrap();
        let (result, _, trace) = program.eval_traced(&vars(), 4);
        assert_eq!(result, Ok(Value::Int(3)));
        assert_eq!(trace.steps.len(), 4);
        assert!(trace.dropped > 0);
        // An untraced program records nothing.
        let plain = env.program(&ast).unwrap();
        assert_eq!(plain.eval_traced(&vars(), 10).2, Trace::default());
    }
}
