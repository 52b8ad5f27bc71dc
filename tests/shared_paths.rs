//! Paths that share a prefix (`x.s.a`, `x.s.b`) reuse the value at the prefix within an
//! evaluation. The results, errors (with their positions) and costs must be those of paths
//! walked separately: each expression is compared with one whose paths start from a second
//! variable bound to the same value (same text length, so the same positions), where
//! nothing is shared.

#[path = "support/outcome.rs"]
mod outcome;

use kcel::{Bindings, Type, Value};
use outcome::outcome;

/// Each pair: an expression whose paths share a prefix (`x.s.t`, at least three times) and
/// the same expression with some paths rooted at `y`, which leaves nothing worth sharing.
const SHARED_AND_SEPARATE: &[(&str, &str)] = &[
    (
        "x.s.t.a <= x.s.t.b && x.s.t.a >= x.s.t.c",
        "x.s.t.a <= y.s.t.b && y.s.t.a >= x.s.t.c",
    ),
    ("x.s.t.a + x.s.t.a * x.s.t.b", "x.s.t.a + y.s.t.a * y.s.t.b"),
    (
        "has(x.s.t.a) && has(x.s.t.u.v) && x.s.t.u.v == 'v'",
        "has(x.s.t.a) && has(y.s.t.u.v) && x.s.t.u.v == 'v'",
    ),
    (
        "x.s.t.u.startsWith('v') || x.s.t.u.endsWith('w') || size(x.s.t.u) > 2",
        "x.s.t.u.startsWith('v') || y.s.t.u.endsWith('w') || size(x.s.t.u) > 2",
    ),
    (
        "x.s.t.l.all(i, i > x.s.t.a) && x.s.t.l.exists(i, i == x.s.t.b)",
        "x.s.t.l.all(i, i > y.s.t.a) && y.s.t.l.exists(i, i == x.s.t.b)",
    ),
    (
        "x.s.t == null ? 'n' : x.s.t.u + x.s.t.u",
        "x.s.t == null ? 'n' : y.s.t.u + x.s.t.u",
    ),
    (
        "x.?s.t.a.orValue(0) + x.s.t.a + x.s.t.b + x.s.t.c",
        "x.?s.t.a.orValue(0) + y.s.t.a + x.s.t.b + y.s.t.c",
    ),
];

fn data() -> Vec<serde_json::Value> {
    use serde_json::json;
    vec![
        json!({"s": {"t": {"a": 3, "b": 5, "c": 1, "u": "vw", "l": [4, 5]}}}),
        json!({"s": {"t": {"a": 3, "b": 2, "c": 4, "u": {"v": "v"}, "l": []}}}),
        json!({"s": {"t": {"a": "3", "b": 5, "c": 1}}}),
        json!({"s": {"t": {"b": 5}}}),
        json!({"s": {"t": null}}),
        json!({"s": {"t": 7}}),
        json!({"s": null}),
        json!({"s": {}}),
        json!({}),
    ]
}

#[test]
fn shared_prefixes_evaluate_as_separate_paths() {
    let mut env = kcel_stdlib::kubernetes::presets::kubernetes(
        (1, 37),
        kcel_stdlib::kubernetes::presets::Mode::NewExpressions,
    );
    env.declare("x", Type::Dyn).declare("y", Type::Dyn);
    let options = kcel::ProgramOptions::default().with_cost_limit(Some(1_000_000));
    let mut compared = 0;
    for (shared, separate) in SHARED_AND_SEPARATE {
        assert_eq!(shared.len(), separate.len());
        let compile = |e: &str| {
            env.compile(e)
                .and_then(|ast| env.program_with(&ast, options.clone()))
                .unwrap_or_else(|i| panic!("{e}: {i}"))
        };
        let (p1, p2) = (compile(shared), compile(separate));
        for d in data() {
            let v = Value::from(&d);
            let vars = Bindings::new().with("x", v.clone()).with("y", v);
            // Twice through one program: the second evaluation must not see the first's
            // stored prefixes.
            for _ in 0..2 {
                assert_eq!(outcome(&p1, &vars), outcome(&p2, &vars), "{shared} on {d}");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, SHARED_AND_SEPARATE.len() * data().len() * 2);
}
