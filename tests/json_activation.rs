//! JSON read in place (`JsonActivation`, `Value::Json`) must be indistinguishable from the
//! same JSON converted to values up front: the same value, the same error text and the same
//! actual cost, for every workload expression and for expressions that reach every place
//! the interpreter reads JSON (selection, presence, index, `in`, iteration, literals,
//! accumulators, optionals, results).

use std::collections::HashMap;
use std::sync::Arc;

use kcel::{Bindings, Env, JsonActivation, ProgramOptions, Type, Value};
use serde_json::{Value as Json, json};

#[path = "support/shared_data.rs"]
mod shared_data;

type Outcome = (Result<String, String>, u64);

fn run(env: &Env, expr: &str, activation: &dyn kcel::Activation) -> Outcome {
    run_with(env, expr, activation, env.program_options())
}

fn run_with(
    env: &Env,
    expr: &str,
    activation: &dyn kcel::Activation,
    options: ProgramOptions,
) -> Outcome {
    let ast = env.compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let program = env.program_with(&ast, options).unwrap();
    let (result, details) = program.eval_with_details(activation);
    let shown = result
        .map(|v| {
            assert!(!matches!(v, Value::Json(_)), "{expr}: a JSON node escaped");
            format!("{v:?}")
        })
        .map_err(|e| e.into_message());
    (shown, details.actual_cost)
}

/// Evaluates `expr` both ways, and both ways in reference mode (every evaluation shortcut
/// off), and asserts the outcomes agree.
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
    let document = Arc::new(bindings.clone());
    let json = JsonActivation::new(document.clone());
    let lazy = run(&env, expr, &json);
    assert_eq!(lazy, eager, "{expr}");
    let reference = env.program_options().with_reference(true);
    assert_eq!(
        run_with(&env, expr, &converted, reference.clone()),
        eager,
        "{expr} in reference mode"
    );
    assert_eq!(
        run_with(&env, expr, &json, reference),
        eager,
        "{expr} over JSON in reference mode"
    );
    // Variables are read from the document without a reference count of their own: every
    // count taken during the evaluations was given back, and none given back twice.
    drop(json);
    assert_eq!(
        Arc::strong_count(&document),
        1,
        "{expr}: document references"
    );
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
        // Errors in `map`'s elements over a JSON array: the first one is the result, the
        // later elements still evaluated and charged.
        "obj.ports.map(p, p.missing)",
        "obj.ports.map(p, p.port == 80 ? 1 / 0 : p.port + 1)",
        "obj.ports.map(p, p.port == 80 ? p.port : 1 / 0)",
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
        // Lists of JSON nodes: what `filter` and `map` keep of a JSON array's objects,
        // read wherever a list is read.
        "obj.ports.filter(p, p.port > 0)",
        "obj.ports.filter(p, p.port > 100)",
        "obj.ports.filter(p, false)",
        "size(obj.ports.filter(p, p.port > 0))",
        "obj.ports.filter(p, p.port > 0).size()",
        "size(obj.ports.filter(p, p.port > 100)) + size(obj.ports.map(p, p))",
        "size(obj.ports.filter(p, p.port > 100)) * 2 == 2",
        "size(obj.ports.filter(p, false))",
        "size(obj.ports.filter(p, p.port / 0 > 1))",
        "size(obj.ports.map(p, p.name))",
        "size(obj.labels.filter(k, true))",
        "size(dyn(obj.ports.filter(p, true)))",
        "size([obj.ports.filter(p, true)][0])",
        "obj.ports.filter(p, p.port / 0 > 1)",
        "obj.ports.filter(p, true)[1].port",
        "obj.ports.filter(p, true)[2]",
        "obj.ports.filter(p, true)[-1]",
        "obj.ports.filter(p, true)[0] == obj.ports[0]",
        "dyn(obj.ports.filter(p, true))[0]",
        "obj.ports.filter(p, true).filter(p, p.port == 443)",
        "obj.ports.filter(p, true).filter(p, p.port == 443)[0].name",
        "obj.ports.filter(p, true).map(p, p.name)",
        "obj.ports.filter(p, true).map(p, p)[1].port",
        "obj.ports.filter(p, true).exists(p, p.name == 'https')",
        "obj.ports.filter(p, true).all(p, p.port > 0)",
        "obj.ports.filter(p, true).exists_one(p, p.port == 80)",
        "obj.ports.filter(p, true).all(i, p, i >= 0 && p.port > 0)",
        "obj.ports.filter(p, true).transformList(i, p, p.name)",
        "obj.ports.filter(p, true).transformList(i, p, p)",
        "obj.ports.map(p, p) == obj.ports",
        "obj.ports.filter(p, p.port == 80) == [{'name': 'http', 'port': dyn(80)}]",
        "obj.ports.filter(p, true) == obj.ports",
        "obj.ports.filter(p, true) == obj.ports.filter(p, true)",
        "obj.ports.filter(p, true) != obj.ports.filter(p, p.port > 100)",
        "{'name': 'http', 'port': dyn(80)} in obj.ports.filter(p, true)",
        "obj.ports.filter(p, true) + [1]",
        "[1] + obj.ports.filter(p, true)",
        "obj.ports.filter(p, true) + obj.ports.filter(p, true)",
        "[obj.ports.filter(p, true)]",
        "{'a': obj.ports.filter(p, true)}",
        "type(obj.ports.filter(p, true)) == list",
        "dyn(obj.ports.filter(p, true)).x",
        "dyn(obj.ports.filter(p, true)).?x",
        "has(dyn(obj.ports.filter(p, true)).x)",
        "optional.of(obj.ports.filter(p, true)).value()",
        "obj.ports.filter(p, true).sort()",
        "dyn(obj.ports.filter(p, true)) ? 1 : 2",
        "!dyn(obj.ports.filter(p, true))",
        "dyn(obj.ports.filter(p, true)).contains('x')",
        "nested.map(l, l).filter(l, size(l) > 1)",
        "nested.filter(l, true)[0][1]",
        "obj.ports.map(p, p.name == 'http' ? p : p.port)",
        "obj.ports.map(p, p.name == 'http' ? p.port : p)",
        "obj.ports.map(p, obj.ports.filter(q, q.port == p.port))",
        "obj.ports.map(p, obj.labels)",
        "obj.ports.filter(p, true).map(p, [p])",
        "[obj, obj.labels].map(m, m)",
        "[obj, obj.labels].filter(m, true)",
        "obj.ports.filter(p, true).exists(p, obj.ports.filter(q, q == p).size() == 1)",
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

/// A list of JSON nodes holds nodes of one document: a node of another document (two
/// variables bound to different documents) joining one converts the list, with the outcome
/// of the values bound up front, in both modes.
#[test]
fn nodes_of_two_documents_agree() {
    let a = json!({"items": [{"k": 1}, {"k": 2}], "o": {"x": 1}});
    let b = json!({"items": [{"k": 3}], "o": {"x": 2}});
    let mut env = Env::new();
    env.declare("a", Type::Dyn);
    env.declare("b", Type::Dyn);
    let json = Bindings::new()
        .with("a", Value::from_shared_json(Arc::new(a.clone())))
        .with("b", Value::from_shared_json(Arc::new(b.clone())));
    let values = Bindings::new()
        .with("a", Value::from(&a))
        .with("b", Value::from(&b));
    for expr in [
        "a.items.map(i, i.k == 1 ? i : b.o)",
        "a.items.map(i, i.k == 1 ? b.o : i)",
        "a.items.map(i, b.o)",
        "a.items.filter(i, true) + b.items.filter(i, true)",
        "size(a.items.map(i, i.k == 2 ? b.o : i))",
        "a.items.map(i, b.items.filter(j, true))",
        "b.items.filter(j, true).map(j, a.items.filter(i, i.k < j.k))",
    ] {
        let expected = run(&env, expr, &values);
        assert_eq!(run(&env, expr, &json), expected, "{expr}");
        let reference = env.program_options().with_reference(true);
        assert_eq!(
            run_with(&env, expr, &json, reference),
            expected,
            "{expr} in reference mode"
        );
    }
}

/// The memory budget counts a list of JSON nodes as the list of values in its place (a
/// list element per node, counted as its vector grows): at every limit, `filter` over JSON
/// read in place stops or finishes as over values bound up front, also where a list of
/// nodes is converted (a scalar joins it). (`map` over a list of values takes a loop of its
/// own, which counts its vector otherwise.)
#[test]
fn lists_of_nodes_count_against_the_memory_budget_as_lists() {
    let items: Vec<Json> = (0..40)
        .map(|i| {
            if i % 7 == 6 {
                json!(i)
            } else {
                json!({"k": i})
            }
        })
        .collect();
    let doc = json!({ "items": items });
    let mut env = Env::new();
    env.declare("items", Type::Dyn);
    let mut values = HashMap::new();
    values.insert("items".to_string(), Value::from(&doc["items"]));
    let json = JsonActivation::new(Arc::new(doc));
    for expr in [
        "size(items.filter(i, type(i) != map || i.k % 3 != 0))",
        "items.filter(i, type(i) == map)",
        "items.filter(i, true)",
        "items.filter(i, type(i) == map).filter(i, true) + [1]",
        "size(items.filter(i, type(i) == map && i.k < 20))",
    ] {
        for limit in (0..=2400).step_by(8) {
            let options = env.program_options().with_memory_limit(Some(limit));
            assert_eq!(
                run_with(&env, expr, &json, options.clone()),
                run_with(&env, expr, &values, options),
                "{expr} with memory limit {limit}"
            );
        }
    }
}
