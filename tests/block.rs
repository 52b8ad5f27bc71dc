//! `cel.@block` (cel-go's bindings library, version 1), reached as cel-go's conformance
//! runner reaches it: through the test-only macros `cel.block` and `cel.index`.

#[path = "support/block_macros.rs"]
mod block_macros;

use std::collections::HashMap;

use block_macros::{BLOCK_TEST_INDICES, block_test_library};
use kcel::ProgramOptions;
use kcel::{Env, Type, Value};
use kcel_stdlib::comprehensions::{BINDINGS_VERSION, bindings};

/// cel-go's runner's environment: bindings at the newest version, the test macros and
/// `@index0`..`@index29` declared `dyn`.
fn env() -> Env {
    let mut env = bare_env();
    for i in 0..BLOCK_TEST_INDICES {
        env.declare(format!("@index{i}"), Type::Dyn);
    }
    env
}

/// Without the `@indexN` declarations.
fn bare_env() -> Env {
    let mut env = Env::new();
    env.add_library(&bindings(BINDINGS_VERSION));
    env.add_library(&block_test_library());
    env.declare("x", Type::Int);
    env
}

fn eval_with(env: &Env, expr: &str, options: ProgramOptions) -> (Result<Value, String>, u64) {
    let ast = env.compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let program = env.program_with(&ast, options).expect("program");
    let vars = HashMap::from([("x".to_string(), Value::Int(3))]);
    let (result, details) = program.eval_with_details(&vars);
    (result.map_err(|e| e.into_message()), details.actual_cost)
}

fn eval(expr: &str) -> (Result<Value, String>, u64) {
    eval_with(&env(), expr, ProgramOptions::default())
}

#[test]
fn slots_are_lazy_and_may_refer_forward() {
    // An expression never read is never evaluated: its error does not surface.
    assert_eq!(
        eval("cel.block([1 / 0, 2], cel.index(1))").0,
        Ok(Value::Int(2))
    );
    // Later expressions may use earlier ones, and earlier ones later ones (cel-go evaluates
    // on first read).
    assert_eq!(
        eval("cel.block([cel.index(1) + 1, x * 2], cel.index(0))").0,
        Ok(Value::Int(7))
    );
    // A read error is the expression's error, every time it is read.
    let (r, _) = eval("cel.block([1 / 0], cel.index(0) + cel.index(0))");
    assert_eq!(r, Err("division by zero".into()));
    // ... and absorbed like any other error.
    assert_eq!(
        eval("cel.block([1 / 0], true || cel.index(0) == 1)").0,
        Ok(Value::Bool(true))
    );
}

#[test]
fn a_slot_that_refers_to_itself_is_no_such_attribute() {
    for expr in [
        "cel.block([cel.index(0)], cel.index(0))",
        "cel.block([cel.index(1), cel.index(0) + 1], cel.index(1))",
    ] {
        let (r, _) = eval(expr);
        let e = r.expect_err(expr);
        assert!(e.starts_with("no such attribute(s): @index"), "{expr}: {e}");
    }
}

#[test]
fn an_index_past_the_block_is_an_error_not_a_panic() {
    // Declared (as cel-go's runner declares @index0..@index29) but not in the block: the
    // activation lacks it.
    let (r, _) = eval("cel.block([1], cel.index(5))");
    assert_eq!(r, Err("no such attribute(s): @index5".into()));
    // Not declared: a compile error.
    let e = bare_env()
        .compile("cel.block([1], cel.index(5))")
        .expect_err("undeclared");
    assert!(
        e.to_string().contains("undeclared reference to '@index5'"),
        "{e}"
    );
    // Not checked: an evaluation error.
    let unchecked = bare_env();
    let ast = unchecked
        .parse("cel.block([1], cel.index(5))")
        .expect("parse");
    let program = unchecked.program(&ast).expect("program");
    let r = program.eval(&HashMap::<String, Value>::new());
    assert!(
        r.expect_err("unbound").to_string().contains("@index5"),
        "unchecked read of @index5"
    );
    // The test macros' own argument checks.
    for (expr, want) in [
        (
            "cel.block(1, 2)",
            "cel.block requires the first arg to be a list literal",
        ),
        (
            "cel.index(-1)",
            "cel.index requires a single non-negative int constant arg",
        ),
        (
            "[1].map(cel.iterVar(0, x), 1)",
            "cel.iterVar requires two non-negative int constant args",
        ),
    ] {
        let e = env().compile(expr).expect_err(expr).to_string();
        assert!(e.contains(want), "{expr}: {e}");
    }
}

#[test]
fn nested_blocks_and_comprehension_variables() {
    // The innermost block with an expression N has @indexN; others fall through to the
    // enclosing block.
    assert_eq!(
        eval("cel.block([1, 2], cel.block([10], cel.index(0) + cel.index(1)))").0,
        Ok(Value::Int(12))
    );
    // A comprehension variable inside the block shadows the block's slot.
    assert_eq!(
        eval("cel.block([5], [1].map(cel.index(0), cel.index(0) + 1))").0,
        Ok(Value::list(vec![Value::Int(2)]))
    );
    // A block inside a comprehension starts afresh at every iteration.
    assert_eq!(
        eval("[1, 2, 3].map(y, cel.block([y * 10], cel.index(0) + cel.index(0)))").0,
        Ok(Value::list(vec![
            Value::Int(20),
            Value::Int(40),
            Value::Int(60)
        ]))
    );
    // cel.iterVar and cel.accuVar name comprehension variables.
    assert_eq!(
        eval("[1, 2].exists(cel.iterVar(0, 0), cel.iterVar(0, 0) == 2)").0,
        Ok(Value::Bool(true))
    );
    // The block's result type is the body's.
    let ast = env()
        .compile("cel.block([x], cel.index(0) == 1)")
        .expect("compile");
    assert_eq!(ast.output_type(), Some(&Type::Bool));
}

#[test]
fn costs_follow_cel_go() {
    // cel-go's slot activation hides its cost tracker from everything evaluated under a
    // block that no comprehension encloses: nothing there is metered, not even against
    // the limit.
    assert_eq!(
        eval("cel.block([x + 1], cel.index(0) * 2)"),
        (Ok(Value::Int(8)), 0)
    );
    let limited = ProgramOptions::default().with_cost_limit(Some(1));
    let (r, cost) = eval_with(
        &env(),
        "cel.block([[1, 2, 3].map(i, i * x)], cel.index(0).size())",
        limited,
    );
    assert_eq!((r, cost), (Ok(Value::Int(3)), 0));
    // Under a comprehension every step is metered as usual: an expression once when first
    // read (x: 1, +: 1) and each read as a variable (1).
    let (_, base) = eval("[1].all(y, true)");
    let (r, cost) =
        eval("[1].all(y, cel.block([x + y], cel.index(0) + cel.index(0) + cel.index(0) == 12))");
    assert_eq!(r, Ok(Value::Bool(true)));
    // expression 2, reads 3, `+` 2, `==` 1, `y` 1
    assert_eq!(cost, base + 2 + 3 + 2 + 1 + 1);
}

#[test]
fn an_empty_block_is_its_body() {
    assert_eq!(eval("cel.block([], x + 1)").0, Ok(Value::Int(4)));
    // cel-go's optimizer replaces an empty constant block by its body, which is then
    // metered; unoptimized, the body runs under the (empty) block's activation.
    let (_, optimized) = eval("cel.block([], x + 1)");
    let plain = ProgramOptions::default().with_optimize(false);
    let (_, unoptimized) = eval_with(&env(), "cel.block([], x + 1)", plain);
    assert_eq!((optimized, unoptimized), (2, 0));
}

#[test]
fn bindings_version_0_has_no_block() {
    let mut env = Env::new();
    env.add_library(&bindings(0));
    env.add_library(&block_test_library());
    let e = env.compile("cel.block([1], 2)").expect_err("no cel.@block");
    assert!(e.to_string().contains("cel.@block"), "{e}");
}

#[test]
fn the_estimate_prices_a_block_as_a_call() {
    // cel-go's estimator knows nothing of blocks: the list literal (10), its expressions,
    // the call (1) and the body, where each @indexN is a variable (1).
    let env = env();
    let ast = env
        .compile("cel.block([x + 1], cel.index(0) * 2)")
        .expect("compile");
    let estimate = env
        .estimate_cost(&ast, &kcel::library::NoSizes)
        .expect("estimate");
    // [x + 1]: 10 + 1 + 1; call: 1; @index0 * 2: 1 + 1.
    assert_eq!((estimate.min, estimate.max), (15, 15));
}

#[test]
fn a_long_chain_of_reads_is_an_error_not_a_stack_overflow() {
    // Each expression reads the one before: the 50th's evaluation nests 49 others (each
    // of depth 2), and the reading expression nests 240 levels deep.
    let chain = |n: usize| {
        let mut items = vec!["1".to_string()];
        for i in 1..n {
            items.push(format!("cel.index({}) + 1", i - 1));
        }
        let mut body = format!("cel.index({})", n - 1);
        for _ in 0..120 {
            body = format!("[{body}][0]");
        }
        format!("cel.block([{}], {body})", items.join(", "))
    };
    let mut env = bare_env();
    for i in 0..1000 {
        env.declare(format!("@index{i}"), Type::Dyn);
    }
    assert_eq!(
        eval_with(&env, &chain(50), ProgramOptions::default()).0,
        Ok(Value::Int(50))
    );
    let (r, _) = eval_with(&env, &chain(1000), ProgramOptions::default());
    let e = r.expect_err("too deep");
    assert!(
        e.starts_with("cel.@block expressions nested too deeply"),
        "{e}"
    );
}
