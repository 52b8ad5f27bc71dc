//! Operators, calls, `has()`, quantifiers and string chains read simple operands in place,
//! and int operator trees are evaluated without intermediate values, when the operands are
//! kcel values; operands that are JSON nodes read in place take the node-by-node path.
//! Both must give the same value, the same error at the same node and the same actual cost,
//! also when the cost limit stops evaluation part-way.

#[path = "support/outcome.rs"]
mod outcome;

use std::sync::Arc;

use kcel::{Activation, Bindings, JsonActivation, Key, Map, ProgramOptions, Type, Value};
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
    // startsWith, endsWith and contains with a constant argument, tested in place.
    "x.s.startsWith('ab') && x.s.endsWith('bc') && x.s.contains('b') && !x.s.contains('abcd')",
    "x.long.startsWith('web-') && x.long.endsWith('-prod') && x.long.contains('front-end') && x.long.contains('')",
    "x.u.startsWith('hé') && x.u.endsWith('é') && x.u.contains('éé') && x.long.contains('é')",
    "x.e10.startsWith('é') && x.e10.endsWith('éé') && x.e10.contains('éééééééééé') && x.long.contains('end-prod-eu-west')",
    "x.a.startsWith('a') || x.missing.endsWith('a')",
    "x.l2[0].name.contains('a') && x.m.k2.startsWith('v') && x.l2[1].m.k.contains('1')",
    "x.l2.all(e, e.name.startsWith('a') || e.name.contains('b'))",
    "[x.s.contains('bc'), x.u.endsWith('x'), 'abc'.startsWith('b')]",
    "timestamp(x.ts) - timestamp(x.ts2) < duration('24h') && timestamp(x.ts) > timestamp(0)",
    "timestamp(x.s)",
    // Comparisons of timestamps and durations worked out in place (conversions and
    // arithmetic; memoized conversions, filled by either path).
    "timestamp(x.ts) - timestamp(x.ts2) < duration('24h') && timestamp(x.ts2) > timestamp('2024-01-01T00:00:00Z')",
    "timestamp(x.ts2) < timestamp(x.ts) && timestamp(x.ts) - timestamp(x.ts2) > duration(x.hour)",
    "timestamp(x.ts) + duration(x.day) > timestamp(x.ts2) && duration(x.day) - duration(x.hour) >= duration('23h')",
    "timestamp(x.ts) - duration(x.hour) <= timestamp(x.ts2) + duration(x.hour) || duration(x.day) + duration(x.hour) == duration('25h')",
    "timestamp(x.a) < timestamp(x.ts) && timestamp(timestamp(x.ts)) == timestamp(x.ts) && timestamp(x.ts) != timestamp(x.a)",
    "timestamp(x.bad) < timestamp(x.ts)",
    "timestamp(x.ts) > timestamp(x.bad) || timestamp(x.bad) > timestamp(x.ts)",
    "timestamp(x.missing) > timestamp(x.ts) || timestamp(x.ts) > timestamp(x.missing)",
    "timestamp(x.ts) - duration(x.huge) < timestamp(x.ts2)",
    "timestamp('0001-01-01T00:00:00Z') - timestamp(x.ts) < duration(x.day)",
    "duration(x.huge) + duration(x.huge) > duration(x.day)",
    "duration(x.a) > duration(x.day)",
    // (Each path read once: no memo that a node-by-node evaluation would fill.)
    "duration(x.hour) + timestamp(x.ts2) > timestamp(x.ts) - duration(x.day)",
    "duration(duration(x.hour)) == duration('1h')",
    "timestamp(x.big) > timestamp(x.ts) || timestamp(x.a) + duration(x.hour) < timestamp(x.ts)",
    "x.d > duration(x.day) || timestamp(x.ts) == x.ts",
    "x.l.all(e, timestamp(x.ts) > timestamp(x.ts2) && e > 0) && timestamp(x.ts2) < timestamp(x.ts)",
    "x.l.exists(e, timestamp(x.bad) > timestamp(x.ts)) || timestamp(x.bad) > timestamp(x.ts)",
    "[timestamp(x.ts) - timestamp(x.ts2) < duration(x.day), timestamp(x.ts2) < timestamp(x.ts)]",
    "size(x.s) + size(x.l) + size(x.m) + size(x.a)",
    // Sizes in int operator trees.
    "size(x.s) <= 3 && size(x.l) > 2 && x.l.size() == 3 && x.m.size() < size(x.l2[1].m) + 2",
    "size(x.m) * 2 < size(x.t) + 10 && size(x.l2[0].name) == 1",
    "size(x.missing) < 1",
    "size(x.a) == 1",
    "size(x.u) == 3 && x.u.size() + 1 == 4",
    "size(x.l2[7].name) == 1",
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
    // A constant regex on subjects that are not strings: no such overload, charged as the call.
    "x.a.matches('^3') || x.s.matches('^a')",
    "x.s.matches('^a') && x.m.matches('^a')",
    "x.missing.matches('^a')",
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
        "s": "abc", "t": "abd", "u": "héé",
        "ts": "2024-05-01T10:00:00Z", "ts2": "2024-04-30T11:30:00.5+01:00",
        "e10": "éééééééééé", "long": "web-frontend-end-prod-eu-west-1-a-very-long-name", "bad": "May 1st", "day": "24h", "hour": "1h", "huge": "2562047h",
        "m": {"k": 4, "k2": "v"}, "n": 7, "l": [1, 2, 3], "f": false,
        "l2": [{"name": "a"}, {"name": "b", "m": {"k": 1}}],
    }})
}

/// `x` as a map of kcel values whose entries are JSON read in place: no variable is bound to
/// JSON itself, so the in-place evaluations read values only, and the JSON entries they
/// meet are left to evaluation.
fn json_entries(x: &serde_json::Value) -> Value {
    let entries = x.as_object().unwrap().iter().map(|(k, v)| {
        let entry = JsonActivation::new(Arc::new(json!({ "v": v })));
        (Key::String(k.as_str().into()), entry.resolve("v").unwrap())
    });
    Value::from(entries.collect::<Map>())
}

#[test]
fn operands_read_in_place_evaluate_as_node_by_node() {
    let mut env = kcel_stdlib::kubernetes::presets::kubernetes(
        (1, 37),
        kcel_stdlib::kubernetes::presets::Mode::NewExpressions,
    );
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
            let options = ProgramOptions::default().with_cost_limit(Some(limit));
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

/// Every expression above, in the Kubernetes environment and the plain one, against the
/// same program in reference mode (`ProgramOptions::reference`: no shortcut, every call
/// through its overloads, JSON converted to values first): the same value, the same error
/// at the same node and the same actual cost, over kcel values and over JSON, without a
/// cost limit and at every limit below the cost. Where a limit stops the evaluation, both
/// must stop with the limit's error; the cost at which they stop may differ, as a shortcut
/// charges a read in place (`x.a.b`: 3) at once where the node-by-node evaluation checks
/// the limit after each step.
#[test]
fn shortcuts_evaluate_as_reference_mode() {
    let mut kubernetes = kcel_stdlib::kubernetes::presets::kubernetes(
        (1, 37),
        kcel_stdlib::kubernetes::presets::Mode::NewExpressions,
    );
    kubernetes.declare("x", Type::Dyn);
    let mut plain = kcel::Env::new();
    plain.declare("x", Type::Dyn);
    let doc = Arc::new(data());
    let values = Bindings::new().with("x", Value::from(&doc["x"]));
    let json = JsonActivation::new(doc.clone());
    let entries = Bindings::new().with("x", json_entries(&doc["x"]));
    let stopped = |o: &(String, u64)| o.0.starts_with("operation cancelled: actual cost limit");
    let mut compared = 0;
    for env in [&kubernetes, &plain] {
        for expr in EXPRESSIONS {
            let ast = env.compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
            let program = |limit: Option<u64>, reference: bool| {
                let options = env
                    .program_options()
                    .with_cost_limit(limit)
                    .with_reference(reference);
                env.program_with(&ast, options).unwrap()
            };
            let (_, cost) = outcome(&program(None, true), &values);
            for limit in (0..=cost).map(Some).chain([None]) {
                let expected = outcome(&program(limit, true), &values);
                let fast = program(limit, false);
                for (input, activation) in [
                    ("values", &values as &dyn kcel::Activation),
                    ("JSON", &json),
                    ("JSON entries", &entries),
                ] {
                    let got = outcome(&fast, activation);
                    if stopped(&expected) {
                        assert!(
                            stopped(&got),
                            "{expr} over {input}, limit {limit:?}: {got:?}"
                        );
                    } else {
                        assert_eq!(got, expected, "{expr} over {input}, limit {limit:?}");
                    }
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 2 * EXPRESSIONS.len());
}
