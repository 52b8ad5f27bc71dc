//! Every overload of every Kubernetes library is total: called with values of any type
//! (as `dyn` allows), it returns a value or an error and never panics or hangs.

use std::sync::Arc;

use kcel::{Env, Value};
use kcel_stdlib::kubernetes::{self, AllowAll};

use super::support::*;

fn samples(env: &Env) -> Vec<Value> {
    let eval = |src: &str| {
        let ast = env.compile(src).unwrap();
        env.program(&ast).unwrap().eval(&activation()).unwrap()
    };
    let mut v = vec![
        Value::Null,
        Value::Bool(true),
        Value::Int(-1),
        Value::Int(i64::MAX),
        Value::Uint(7),
        Value::Double(f64::NAN),
        Value::from(""),
        Value::from("x"),
        Value::from("0e999999999"),
        Value::from("1.5Gi"),
        Value::from("::ffff:1.2.3.4/120"),
        Value::from("é".repeat(40)),
        Value::list(vec![]),
        Value::list(vec![Value::Int(1), Value::from("a")]),
        kubernetes::authorizer_value(Default::default(), Arc::new(AllowAll)),
    ];
    for src in [
        "ip('1.2.3.4')",
        "ip('::1')",
        "cidr('10.0.0.1/8')",
        "quantity('0e999999999')",
        "quantity('9999999999999999999999999999999999999G')",
        "semver('1.0.0-rc.1')",
        "url('https://[::1]:80/a?b=c')",
        "format.uuid()",
        "authorizer.path('/x')",
        "authorizer.group('g')",
        "authorizer.group('g').resource('r')",
        "authorizer.path('/x').check('get')",
        "optional.none()",
        "{'a': 1}",
    ] {
        v.push(eval(src));
    }
    v
}

#[test]
fn overloads_are_total() {
    let env = env();
    let values = samples(&env);
    let mut calls = 0u64;
    let mut seed = 12345u64;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for lib in kubernetes::libraries_for((1, 37))
        .into_iter()
        .chain([kubernetes::jsonpatch()])
    {
        for f in lib.functions() {
            for o in f.overloads() {
                let n = o.params().len();
                let combos: Vec<Vec<Value>> = match n {
                    0 => vec![vec![]],
                    1 => values.iter().map(|a| vec![a.clone()]).collect(),
                    2 => values
                        .iter()
                        .flat_map(|a| values.iter().map(move |b| vec![a.clone(), b.clone()]))
                        .collect(),
                    _ => (0..600)
                        .map(|_| (0..n).map(|_| values[next(values.len())].clone()).collect())
                        .collect(),
                };
                for args in combos {
                    let _ = o.implementation().call(&args);
                    let _ = o.call_cost().of_call(&args, None);
                    calls += 1;
                }
            }
        }
    }
    assert!(calls > 10_000, "{calls}");
}
