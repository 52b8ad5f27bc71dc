//! The runtime cost of evaluations in which a call's argument fails (#26, item 12).
//!
//! cel-go evaluates every argument of a one- or two-argument call before it looks at
//! errors, and stops a call of three or more at the first failed argument
//! (`interpreter/interpretable.go`: `evalUnary.Eval`, `evalBinary.Eval`, `evalEq.Eval`,
//! `evalNe.Eval`, `evalVarArgs.Eval`); list literals stop at a failed element
//! (`evalList.Eval`), and a fold runs its step while the condition is not a bool other than
//! true (`folder.foldIterable`). Its cost tracker charges every call whose arguments were all
//! evaluated, failed ones included, with an error's size 1, and every attribute (selection,
//! presence test) whatever its operand gave (`interpreter/runtimecost.go`:
//! `costTrackerFactory.Observe`, `refValStack.dropArgs`, `CostTracker.costCall`,
//! `actualSize`). Each figure below is worked out by hand from those functions, as cel-go's
//! `interpreter/runtimecost_test.go` (`TestRuntimeCost`) counts: without the optimizer
//! unless the case says otherwise. Each case runs in fast and in reference mode
//! (`ProgramOptions::reference`), which must agree.

use std::collections::HashMap;

use kcel::{Env, Type, Value};

struct Case {
    expr: &'static str,
    /// The Kubernetes environment (1.37, new expressions) rather than the plain one.
    kubernetes: bool,
    optimize: bool,
    /// The actual cost of the failed evaluation.
    want: u64,
    /// How the figure is made up, call by call.
    sum: &'static str,
}

const CASES: &[Case] = &[
    Case {
        expr: "[1,2,3].exists(e, e/0 == 17)",
        kubernetes: false,
        optimize: false,
        want: 32,
        sum: "list 10; per element: @not_strictly_false(!@result) 3 (`!` charged on the \
              error accumulator too), @result 1, e 1, `/` 1 (failed), `==` 1 (its lhs \
              failed) = 7, × 3; @result 1",
    },
    Case {
        expr: "[1,2,3].exists(e, e/0 == 17)",
        kubernetes: false,
        optimize: true,
        want: 22,
        sum: "the issue's figure: as above, the constant list folded (0)",
    },
    Case {
        expr: "[1,2].all(e, e/0 == 1)",
        kubernetes: false,
        optimize: false,
        want: 23,
        sum: "list 10; per element: @not_strictly_false(@result) 2, @result 1, e 1, `/` 1, \
              `==` 1 = 6, × 2; @result 1",
    },
    Case {
        expr: "x/0 == 1",
        kubernetes: false,
        optimize: false,
        want: 3,
        sum: "x 1, `/` 1, `==` 1 (evalEq evaluates both operands, then is charged)",
    },
    Case {
        expr: "1 == x/0",
        kubernetes: false,
        optimize: false,
        want: 3,
        sum: "x 1, `/` 1, `==` 1",
    },
    Case {
        expr: "x/0 + (x + x) > 1",
        kubernetes: false,
        optimize: false,
        want: 7,
        sum: "x 1, `/` 1; the right operand evaluated after the left failed: x 1, x 1, `+` \
              1; the outer `+` 1 and `>` 1",
    },
    Case {
        expr: "!(x/0 == 1)",
        kubernetes: false,
        optimize: false,
        want: 4,
        sum: "x 1, `/` 1, `==` 1, `!` 1 (evalUnary, charged with its failed argument)",
    },
    Case {
        expr: "dyn(x/0).f == 1",
        kubernetes: false,
        optimize: false,
        want: 5,
        sum: "x 1, `/` 1, dyn 1, the selection 1 (an attribute: charged whatever its \
              operand gave), `==` 1",
    },
    Case {
        expr: "dyn(x/0).f.g == 1",
        kubernetes: false,
        optimize: false,
        want: 5,
        sum: "x 1, `/` 1, dyn 1, the attribute dyn(x/0).f.g 1 (its qualifiers not \
              evaluated once its operand failed), `==` 1",
    },
    Case {
        expr: "has(dyn(x/0).f.g)",
        kubernetes: false,
        optimize: false,
        want: 4,
        sum: "x 1, `/` 1, dyn 1, the presence test on the attribute 1",
    },
    Case {
        expr: "has(dyn({'a': 1}).missing.k)",
        kubernetes: false,
        optimize: false,
        want: 33,
        sum: "map 30, dyn 1, the qualifier `missing` 1 (no such key), the presence test's \
              qualifier `k` not applied, the presence test 1 (evalTestOnly, observed \
              whatever it gave)",
    },
    Case {
        expr: "dyn({'a': 1}).missing.k.l == 1",
        kubernetes: false,
        optimize: false,
        want: 34,
        sum: "map 30, dyn 1, the relative attribute 1 (planner.go relativeAttr), `missing` 1 \
              (no such key), `k` and `l` not applied, `==` 1",
    },
    Case {
        expr: "has(dyn(x/0).f)",
        kubernetes: false,
        optimize: false,
        want: 4,
        sum: "x 1, `/` 1, dyn 1, the presence test 1",
    },
    Case {
        expr: "size(string(x/0)) == 1",
        kubernetes: false,
        optimize: false,
        want: 5,
        sum: "x 1, `/` 1, string 1, size 1, `==` 1",
    },
    Case {
        expr: "int(string(x/0)) == 1",
        kubernetes: false,
        optimize: false,
        want: 5,
        sum: "x 1, `/` 1, string 1, int 1, `==` 1",
    },
    Case {
        expr: "'abcdefghijkl'.startsWith(string(x/0))",
        kubernetes: false,
        optimize: false,
        want: 5,
        sum: "x 1, `/` 1, string 1, startsWith ⌈size('abcdefghijkl') × 0.1⌉ = 2",
    },
    Case {
        expr: "string(x/0).matches('a+b+c+d+e+')",
        kubernetes: false,
        optimize: false,
        want: 6,
        sum: "x 1, `/` 1, string 1, matches ⌈(1 + 1) × 0.1⌉ × ⌈10 × 0.25⌉ = 3 (an \
              error's size is 1)",
    },
    Case {
        expr: "string(x/0).matches('a+b+c+d+e+')",
        kubernetes: false,
        optimize: true,
        want: 6,
        sum: "as above, the constant pattern compiled once",
    },
    Case {
        expr: "'a' + string(x/0) + 'b' + 'c'",
        kubernetes: false,
        optimize: false,
        want: 6,
        sum: "x 1, `/` 1, string 1; each of the three `+` 1 (its operand failed, the \
              following ones still evaluated)",
    },
    Case {
        expr: "string(x/0) + 'a' + string(x) + 'c'",
        kubernetes: false,
        optimize: false,
        want: 8,
        sum: "x 1, `/` 1, string 1, `+` 1; x 1, string 1, `+` 1; `+` 1",
    },
    Case {
        expr: "x/0 in [1, 2]",
        kubernetes: false,
        optimize: false,
        want: 14,
        sum: "x 1, `/` 1, list 10, `in` size([1, 2]) = 2",
    },
    Case {
        expr: "[1, 2][x/0] == 1",
        kubernetes: false,
        optimize: false,
        want: 15,
        sum: "list 10, the relative attribute 1 (planner.go relativeAttr), x 1, `/` 1, the \
              index 1, `==` 1",
    },
    Case {
        expr: "dyn(x/0)[0] == 1",
        kubernetes: false,
        optimize: false,
        want: 5,
        sum: "x 1, `/` 1, dyn 1, the index 1, `==` 1",
    },
    // #26: an index's key is not evaluated when its operand failed (cel-go plans `a[i]` as
    // an attribute with `i` as a qualifier; `interpreter/attributes.go`
    // `relativeAttribute.Resolve` returns the operand's error before `applyQualifiers`, which
    // stops at the first failed qualifier), so the costly key below is never charged.
    Case {
        expr: "{'a': [1]}['b'][[1, 2, 3].map(v, v * x).size()] == 1",
        kubernetes: false,
        optimize: false,
        want: 43,
        sum: "map 30 + list 10; the qualifier 'b' 1 (failed), the attribute 1 (observed with \
              its error); the key not evaluated; `==` 1",
    },
    Case {
        expr: "{'a': [1]}['b'][[1, 2, 3].map(v, v * x).size()] == 1",
        kubernetes: false,
        optimize: true,
        want: 3,
        sum: "as above, the constant map folded (0)",
    },
    Case {
        expr: "{'a': [1]}['b'][?[1, 2, 3].map(v, v * x).size()] == optional.none()",
        kubernetes: true,
        optimize: false,
        want: 44,
        sum: "as above with an optional index: the key not evaluated; optional.none() 1, \
              `==` 1",
    },
    Case {
        expr: "m['b'][[1, 2, 3].map(v, v * x).size()] == 1",
        kubernetes: false,
        optimize: false,
        want: 3,
        sum: "m's attribute 1 (observed with its error), its qualifier 'b' 1 (failed); the \
              key not evaluated; `==` 1",
    },
    Case {
        expr: "dyn(x/0)[[1, 2, 3].map(v, v * x).size()] == 1",
        kubernetes: false,
        optimize: false,
        want: 5,
        sum: "x 1, `/` 1, dyn 1, the attribute 1; the key not evaluated; `==` 1",
    },
    Case {
        expr: "[1,2,3].map(v, v/0)",
        kubernetes: false,
        optimize: false,
        want: 63,
        sum: "list 10, the accumulator's [] 10; per element: @result 1, list 10, v 1, `/` 1, \
              `+` 1 = 14 (also once @result holds the error), × 3; @result 1",
    },
    Case {
        expr: "[1,2,3].map(v, v/0).size() == 0",
        kubernetes: false,
        optimize: false,
        want: 65,
        sum: "as above 63, size 1, `==` 1",
    },
    Case {
        expr: "[1,2,3].map(v, v/0).size() == 0",
        kubernetes: false,
        optimize: true,
        want: 45,
        sum: "as above, with the constant range and the accumulator's [] folded (0 each)",
    },
    Case {
        expr: "[1,2].transformMap(i, v, v/0)",
        kubernetes: true,
        optimize: false,
        want: 47,
        sum: "list 10, {} 30; first element: @result 1, i 1, v 1, `/` 1, @mapInsert 1 (its \
              last argument failed: every argument evaluated) = 5; second: @result 1 (an \
              error: evalVarArgs stops there, the call is not charged); @result 1",
    },
    Case {
        expr: "'abc'.replace(string(x/0), 'b') == 'x'",
        kubernetes: true,
        optimize: false,
        want: 4,
        sum: "x 1, `/` 1, string 1; replace has three arguments (evalVarArgs): its third is \
              not evaluated and the call not charged; `==` 1",
    },
    Case {
        expr: "'abc'.replace('b', string(x/0))",
        kubernetes: true,
        optimize: false,
        want: 4,
        sum: "x 1, `/` 1, string 1; replace's last argument failed: charged \
              ⌈size('abc') × 2 × 0.1⌉ = 1",
    },
];

fn env(kubernetes: bool) -> Env {
    let mut env = if kubernetes {
        kcel_stdlib::kubernetes::presets::kubernetes(
            (1, 37),
            kcel_stdlib::kubernetes::presets::Mode::NewExpressions,
        )
    } else {
        Env::new()
    };
    env.declare("x", Type::Int);
    env.declare("m", Type::map(Type::String, Type::list(Type::Int)));
    env
}

#[test]
fn calls_with_failed_arguments_cost_as_in_cel_go() {
    let m = Value::from(serde_json::json!({"a": [1]}));
    let vars: HashMap<String, Value> =
        [("x".to_string(), Value::Int(1)), ("m".to_string(), m)].into();
    let mut failures = Vec::new();
    for case in CASES {
        let env = env(case.kubernetes);
        let ast = env
            .compile(case.expr)
            .unwrap_or_else(|e| panic!("{}: {e}", case.expr));
        for reference in [false, true] {
            let options = env
                .program_options()
                .with_optimize(case.optimize)
                .with_reference(reference)
                .with_cost_limit(None);
            let program = env.program_with(&ast, options).expect("plans");
            let (result, details) = program.eval_with_details(&vars);
            // Division by zero, or a missing key where the case reads one.
            let failed = result.as_ref().is_err_and(|e| {
                let m = e.message();
                m == "division by zero" || m.starts_with("no such key")
            });
            if !failed || details.actual_cost != case.want {
                failures.push(format!(
                    "{}{}{}: want an error at cost {} ({}), got {:?} at cost {}",
                    case.expr,
                    if case.optimize { " (optimized)" } else { "" },
                    if reference { " in reference mode" } else { "" },
                    case.want,
                    case.sum,
                    result.map_err(|e| e.message()),
                    details.actual_cost,
                ));
            }
        }
    }
    println!("{} cases, {} failures", CASES.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
