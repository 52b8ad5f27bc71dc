//! Operators, calls, `has()`, quantifiers and string chains read simple operands in place,
//! and int operator trees are evaluated without intermediate values, when the operands are
//! kcel values; operands that are JSON nodes read in place take the node-by-node path.
//! Both must give the same value, the same error at the same node and the same actual cost,
//! also when the cost limit stops evaluation part-way.

#[path = "support/outcome.rs"]
mod outcome;

use std::sync::Arc;

use kcel::{Bindings, Env, JsonActivation, ProgramOptions, Type, Value};
use outcome::outcome;
use serde_json::json;

const EXPRESSIONS: &[&str] = &[
    // Int operator trees.
    "x.a * 2 + x.b / 4 - x.c % 7",
    "(x.a * 2 + x.b / 4 - x.c % 7) * 3 < 1000 && x.a - x.b == 0",
    "x.a - x.b == -2",
    "x.a / x.z + 1",
    "1 + x.a % x.z",
    "x.big * x.a - 1",
    "x.big + 1 > 0",
    "x.a + x.d * 2",
    "x.a + x.s + 1",
    "x.missing + 1 < 2",
    "x.m['k'] * 2 + 1",
    "x.m['absent'] * 2 + 1",
    "x.l[1] * 2 + x.l[0]",
    "x.l[5] + 1 - 1",
    "x.l[-1] + 1 - 1",
    "x.n['k'] + 1 - 1",
    // Single operators and calls on operands read in place.
    "x.s == 'abc' && x.s != x.t && x.s < x.t",
    "x.m['k2'] == 'v' && 'k' in x.m && !('q' in x.m)",
    "x.s.startsWith('ab') && x.s.contains(x.t) == false && x.s.endsWith(x.m.k2)",
    "x.l[1] == 2 && x.l[3] == 4",
    "x.b >= x.a && x.a <= x.missing",
    "x.s.startsWith(x.a)",
    "timestamp(x.ts) - timestamp(x.ts2) < duration('24h') && timestamp(x.ts) > timestamp(0)",
    "timestamp(x.s)",
    "size(x.s) + size(x.l) + size(x.m) + size(x.a)",
    "int(x.d) + int(x.s)",
    "!x.f",
    "!x.m.k",
    "-x.a + -x.d",
    // Access chains: selections and constant indexes below an index.
    "x.l2[0].name == 'a' && x.l2[1].name in ['a', 'b'] && x.l2[1].m['k'] + 1 == 2",
    "x.l2[5].name == 'a'",
    "x.l2[0].missing == 1",
    "x.l2[1].m['q'] == 1",
    "x.l[0].name == 1",
    "x.l2[0].name in ['a'] || x.m.k in [4] || x.m.k2 in ['v', 'w']",
    "x.l2[-1].name in ['a']",
    "x.l2[0].name.matches('^a') && x.l2[1].name.matches('^a')",
    "size(x.l2[1].m) + size(x.l2[0].name)",
    "has(x.l2[1].m.k) && !has(x.l2[0].m)",
    // Presence tests.
    "has(x.m.k) && !has(x.m.q)",
    "has(x.n.k)",
    "has(x.missing.k)",
    // Quantifiers and folds over lists.
    "x.l.exists(e, e == 2) && x.l.all(e, e > 0)",
    "x.l.exists(e, e / 0 == 1 || e == 3)",
    "x.l.exists(e, e / 0 == 1 || e == 9)",
    "x.l.all(e, e != 1 && e / 0 == 1)",
    "x.l.all(e, e == 1 || e / 0 == 1)",
    "x.l.exists(e, e == 'a')",
    "x.l.map(e, e * 2 + x.a)",
    "x.l.filter(e, e > 1)",
    "size(x.l.map(e, x.s + '/' + x.t)) == 3",
    // String chains.
    "x.s + '/' + x.t + x.m.k2",
    "x.a + '/' + x.s",
    "x.missing + '/' + x.s",
];

fn data() -> serde_json::Value {
    json!({"x": {
        "a": 3, "b": 5, "c": 1, "z": 0, "big": i64::MAX, "d": 1.5,
        "s": "abc", "t": "abd",
        "ts": "2024-05-01T10:00:00Z", "ts2": "2024-04-30T11:30:00.5+01:00",
        "m": {"k": 4, "k2": "v"}, "n": 7, "l": [1, 2, 3], "f": false,
        "l2": [{"name": "a"}, {"name": "b", "m": {"k": 1}}],
    }})
}

#[test]
fn operands_read_in_place_evaluate_as_node_by_node() {
    let mut env = Env::kubernetes((1, 37), kcel::presets::Mode::NewExpressions);
    env.declare("x", Type::Dyn);
    let doc = Arc::new(data());
    let values = Bindings::new().with("x", Value::from(&doc["x"]));
    let json = JsonActivation::new(doc.clone());
    let mut compared = 0;
    for expr in EXPRESSIONS {
        let ast = env.compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
        let unlimited = env.program(&ast).unwrap();
        let (shown, cost) = outcome(&unlimited, &values);
        assert_eq!(outcome(&unlimited, &json), (shown, cost), "{expr}");
        // Limits that stop evaluation at every point it charges.
        for limit in 0..=cost {
            let options = ProgramOptions {
                cost_limit: Some(limit),
                ..Default::default()
            };
            let limited = env.program_with(&ast, options).unwrap();
            assert_eq!(
                outcome(&limited, &values),
                outcome(&limited, &json),
                "{expr} with cost limit {limit}"
            );
            compared += 1;
        }
    }
    assert!(compared > EXPRESSIONS.len());
}
