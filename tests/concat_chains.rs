//! Chains of `+` with three or more operands are evaluated as one concatenation when the
//! operands are strings (one buffer instead of an intermediate string per `+`). The values,
//! errors and actual costs must be those of the pairwise calls: each `add_string` step costs
//! ⌈(size(left) + size(right)) × 0.1⌉ with sizes in code points (cel-go's default string
//! concatenation cost, `../shared/k8s-cel/SPEC.md` §4.2), worked out by hand below.

use std::collections::HashMap;

use kcel::{Env, ProgramOptions, Type, Value};

fn run(expr: &str, vars: &[(&str, Value)], limit: Option<u64>) -> (Result<Value, String>, u64) {
    let mut env = Env::new();
    let mut activation = HashMap::new();
    for (name, value) in vars {
        env.declare(*name, Type::Dyn);
        activation.insert(name.to_string(), value.clone());
    }
    let ast = env.compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let options = ProgramOptions::default()
        .with_optimize(false)
        .with_cost_limit(limit);
    let program = env.program_with(&ast, options).unwrap();
    let (result, details) = program.eval_with_details(&activation);
    (result.map_err(|e| e.into_message()), details.actual_cost)
}

#[test]
fn string_chains_cost_as_pairwise_additions() {
    // 'a'+'b': ⌈2×0.1⌉ = 1; +'c': ⌈3×0.1⌉ = 1.
    assert_eq!(
        run("'a' + 'b' + 'c'", &[], None),
        (Ok(Value::from("abc")), 2)
    );
    // x (1) + ⌈(10+2)×0.1⌉ = 2 + ⌈(12+3)×0.1⌉ = 2.
    let x = [("x", Value::from("a".repeat(10)))];
    let want = format!("{}bbccc", "a".repeat(10));
    assert_eq!(
        run("x + 'bb' + 'ccc'", &x, None),
        (Ok(Value::from(want)), 5)
    );
    // Code points, not bytes: 9 + 1 → ⌈1.0⌉ = 1; 10 + 1 → ⌈1.1⌉ = 2; plus x (1).
    let wide = [("x", Value::from("é".repeat(9)))];
    let want = "é".repeat(11);
    assert_eq!(
        run("x + 'é' + 'é'", &wide, None),
        (Ok(Value::from(want)), 4)
    );
    // Four operands: y twice (1 each); ⌈3×0.1⌉ = 1, ⌈4×0.1⌉ = 1, ⌈6×0.1⌉ = 1.
    let y = [("y", Value::from("yy"))];
    assert_eq!(
        run("'a' + y + 'b' + y", &y, None),
        (Ok(Value::from("ayybyy")), 2 + 3)
    );
}

#[test]
fn other_values_are_added_by_the_overloads() {
    let x = [("x", Value::Int(1))];
    assert_eq!(run("x + 2 + 3", &x, None).0, Ok(Value::Int(6)));
    let l = [("l", Value::list(vec![Value::Int(1)]))];
    assert_eq!(
        run("l + [2] + [3]", &l, None).0,
        Ok(Value::list(vec![
            Value::Int(1),
            Value::Int(2),
            Value::Int(3)
        ]))
    );
    // A string chain that meets a list: the pairwise `_+_` decides (no overload).
    let s = [("s", Value::from("a")), ("l", Value::list(vec![]))];
    assert_eq!(
        run("s + 'b' + l", &s, None).0,
        Err("no such overload".to_string())
    );
    // The first failing `+` stops the chain; later operands are not evaluated.
    let mixed = [("x", Value::Int(1))];
    assert_eq!(
        run("'a' + x + 'c' + (1 / 0 == 0 ? 'd' : 'e')", &mixed, None).0,
        Err("no such overload".to_string())
    );
    assert_eq!(
        run("'a' + 'b' + (1 / 0 == 0 ? 'd' : 'e')", &[], None).0,
        Err("division by zero".to_string())
    );
}

#[test]
fn the_cost_limit_stops_a_long_chain() {
    let x = [("x", Value::from("a".repeat(1000)))];
    // Steps cost 200, 300, 400: the limit of 500 is passed at the second step.
    let (result, cost) = run("x + x + x + x", &x, Some(500));
    assert_eq!(
        result,
        Err("operation cancelled: actual cost limit exceeded".to_string())
    );
    assert!(cost > 500, "{cost}");
}
