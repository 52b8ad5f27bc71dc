//! JSON read in place (`JsonActivation`, `Value::Json`) must be indistinguishable from the
//! same JSON converted to values up front: the same value, the same error text and the same
//! actual cost, for every workload expression and for expressions that reach every place
//! the interpreter reads JSON (selection, presence, index, `in`, iteration, literals,
//! accumulators, optionals, results).

use std::collections::HashMap;
use std::sync::Arc;

use kcel::{Env, JsonActivation, Type, Value};
use serde_json::{Value as Json, json};

#[path = "support/shared_data.rs"]
mod shared_data;

type Outcome = (Result<String, String>, u64);

fn run(env: &Env, expr: &str, activation: &dyn kcel::Activation) -> Outcome {
    let program = env
        .program(&env.compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}")))
        .unwrap();
    let (result, details) = program.eval_with_details(activation);
    let shown = result
        .map(|v| {
            assert!(!matches!(v, Value::Json(_)), "{expr}: a JSON node escaped");
            format!("{v:?}")
        })
        .map_err(|e| e.into_message());
    (shown, details.actual_cost)
}

/// Evaluates `expr` both ways and asserts the outcomes agree.
fn agree(bindings: &Json, expr: &str) -> Outcome {
    let mut env = kcel_stdlib::kubernetes::presets::kubernetes(
        (1, 37),
        kcel_stdlib::kubernetes::presets::Mode::NewExpressions,
    );
    let mut converted = HashMap::new();
    for (name, value) in bindings.as_object().unwrap() {
        env.declare(name, Type::Dyn);
        converted.insert(name.clone(), Value::from(value));
    }
    let eager = run(&env, expr, &converted);
    let lazy = run(&env, expr, &JsonActivation::new(Arc::new(bindings.clone())));
    assert_eq!(lazy, eager, "{expr}");
    eager
}

#[test]
fn workload_expressions_agree() {
    let Some(path) = shared_data::shared_data(
        "bench/workload.json",
        "json_activation::workload_expressions_agree",
    ) else {
        return;
    };
    let text = std::fs::read_to_string(&path).expect("the shared workload is readable");
    let cases: Vec<Json> = serde_json::from_str(&text).unwrap();
    for case in &cases {
        let expr = case["expr"].as_str().unwrap();
        let (value, _) = agree(&case["bindings"], expr);
        assert!(value.is_ok(), "{expr}: {value:?}");
    }
}

#[test]
fn every_json_read_agrees() {
    let doc = json!({
        "obj": {
            "name": "web",
            "labels": {"app": "web", "tier": "front"},
            "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
            "empty": {},
            "none": null,
            "n": 3,
            "big": 18446744073709551615u64,
            "ratio": 0.5,
            "ts": "2024-05-06T07:08:09Z",
            "dur": "90s",
            "flag": true
        },
        "strs": ["a", "b"],
        "list": [1, 2, 3],
        "nested": [[1, 2], [3]],
        "s": "text"
    });
    let expressions = [
        "obj",
        "obj.labels",
        "obj.ports",
        "obj.ports[1]",
        "obj.ports[1].port",
        "obj.ports[2]",
        "obj.ports[-1]",
        "obj.ports[1u]",
        "obj.ports[0.0]",
        "obj.labels['app']",
        "obj.labels['missing']",
        "obj.labels[1]",
        "obj.missing",
        "obj.name.missing",
        "obj.none",
        "obj.big",
        "obj.ratio * 2.0",
        "has(obj.labels)",
        "has(obj.missing)",
        "has(obj.labels.app)",
        "has(obj.name.x)",
        "'app' in obj.labels",
        "'x' in obj.labels",
        "80 in obj.ports",
        "2 in list",
        "obj.labels == {'app': 'web', 'tier': 'front'}",
        "obj.ports == obj.ports",
        "list == [1, 2, 3]",
        "[1, 2, 3] == list",
        "obj.empty == {}",
        "size(obj.labels) + size(obj.ports) + size(list) + size(obj.empty)",
        "obj.labels.size()",
        "type(obj) == map && type(list) == list",
        "type(obj.ports) == list",
        "obj.ports.map(p, p.port)",
        "obj.ports.filter(p, p.port > 100)",
        "obj.ports.exists(p, p.name == 'https')",
        "obj.ports.all(p, p.port > 0)",
        "obj.ports.exists_one(p, p.port == 80)",
        "obj.labels.all(k, k.size() > 2)",
        "obj.labels.exists(k, obj.labels[k] == 'front')",
        "obj.labels.map(k, k + '=' + obj.labels[k])",
        "obj.ports.all(i, p, i >= 0 && p.port > 0)",
        "obj.labels.exists(k, v, v == 'web')",
        "obj.ports.transformList(i, p, p)",
        "obj.labels.transformMap(k, v, v + '!')",
        "obj.ports.map(p, p)",
        "nested.map(l, l)",
        "[obj.labels, list]",
        "{'a': obj.ports, 'b': obj.empty}",
        "[obj][0].name",
        "obj.?labels",
        "obj.?missing",
        "obj.?labels.?app",
        "obj.?labels.orValue({})",
        "optional.of(obj.ports).value()",
        "[?obj.?labels]",
        "{?'x': obj.?empty}",
        "obj.?ports[1]",
        "s.exists(c, true)",
        "obj.name.exists(c, true)",
        "obj.n == 3 ? obj.labels : obj.ports",
        "obj.labels || true",
        "obj.ports && false",
        "!obj.labels",
        "obj.labels + obj.labels",
        "list + [4]",
        "obj.ports.size() > 1 && obj.ports[0].name.startsWith('h')",
        "dyn(obj.labels).app",
        "obj.ports.sort()",
        // Operands read in place: JSON scalars compared, tested and computed with as the
        // values they convert to, and everything else left to the evaluation.
        "obj.n < 4 && obj.n >= 3 && obj.n != 2 && obj.n == 3 && obj.n > 2 && obj.n <= 3",
        "obj.big == 18446744073709551615u",
        "obj.big > 1",
        "obj.ratio < 1.0",
        "obj.ratio == 0.5",
        "obj.n == 3.0",
        "obj.none == null",
        "obj.flag == true && obj.flag != false",
        "obj.name == 'web' && obj.name != 'x' && obj.name < 'z' && obj.labels.app >= 'web'",
        "obj.name == obj.labels.app",
        "obj.labels['app'] == 'web'",
        "obj.name.startsWith('w') && obj.name.endsWith('b') && obj.name.contains('e')",
        "obj.name.matches('^w.b$')",
        "obj.n.startsWith('w')",
        "obj.name in ['web', 'api'] && !(obj.labels.tier in ['back'])",
        "obj.n in ['web', 'api']",
        "obj.n * 2 + size(obj.name) - size(obj.labels) == 7",
        "obj.n / 0",
        "obj.n % 0",
        "obj.ports[1].port - obj.ports[0].port",
        "obj.labels[obj.name]",
        "obj.labels[s]",
        "obj.ports[obj.n - 2]",
        "obj.ports[obj.n]",
        "obj.name + '-' + obj.labels.app + obj.labels.tier",
        "'x' + obj.name + '-' + obj.ports[0].name",
        "obj.labels.app + obj.n",
        "obj.n + obj.name + 'x'",
        "obj.name + obj.n + 'x'",
        "timestamp(obj.ts) < timestamp('2025-01-01T00:00:00Z')",
        "duration(obj.dur) > duration('1m')",
        "timestamp(obj.n) < timestamp(obj.ts)",
        "timestamp(obj.name) < timestamp(obj.ts)",
        "strs.exists(x, x == 'b')",
        "obj.ports.all(a, obj.ports.all(b, a.name == b.name || a.port != b.port))",
        "obj.ports.exists(p, p.port == obj.ports[1].port)",
        "nested.all(l, l.all(x, x > 0))",
        "has(obj.ports.x)",
        "has(obj.n.x)",
        "obj.ports.x",
        "obj.n.x",
        "obj.labels.app.x",
        "'app' in obj.ports",
        "'http' in obj.ports.map(p, p.name)",
        "obj.ports.map(p, p.name + ':' + string(p.port))",
    ];
    for expr in expressions {
        let _ = agree(&doc, expr);
    }
}

#[test]
fn a_json_activation_of_a_non_object_binds_nothing() {
    let env = {
        let mut env = Env::new();
        env.declare("x", Type::Dyn);
        env
    };
    let program = env.program(&env.compile("x").unwrap()).unwrap();
    let err = program
        .eval(&JsonActivation::new(Arc::new(json!([1, 2]))))
        .unwrap_err();
    assert_eq!(err.to_string(), "no such attribute(s): x");
}
