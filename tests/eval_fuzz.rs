//! Property tests: random well-formed expressions and random text must compile and evaluate
//! (or fail) without panicking or overflowing the stack; and random expressions must
//! evaluate alike over kcel values (read in place where the evaluator can) and over the same
//! JSON read node by node, and alike in reference mode (`ProgramOptions::reference`: no
//! evaluation shortcut, every call through its overloads).

#[path = "support/outcome.rs"]
mod outcome;

use std::collections::HashMap;

use kcel::{Env, Type, Value};
use outcome::outcome;
use proptest::prelude::*;

fn leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        any::<u64>().prop_map(|u| format!("{u}u")),
        any::<f64>()
            .prop_filter("finite", |d| d.is_finite())
            .prop_map(|d| format!("{d:?}")),
        Just("-9223372036854775808".to_string()),
        Just("0".to_string()),
        Just("0.0".to_string()),
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        "[a-z ]{0,6}".prop_map(|s| format!("'{s}'")),
        "[a-z]{0,4}".prop_map(|s| format!("b'{s}'")),
        Just("x".to_string()),
        Just("x.a".to_string()),
        Just("x.items".to_string()),
        Just("x.items[4].k".to_string()),
        Just("x.m['k']".to_string()),
        Just("x.m.n".to_string()),
        // Lists of JSON nodes (what `filter` and `map` keep of a JSON array's objects).
        Just("x.objs".to_string()),
        Just("x.objs.filter(o, o.k != 2)".to_string()),
        Just("x.objs.map(o, o)".to_string()),
        Just("int".to_string()),
        Just("duration('1h')".to_string()),
        Just("timestamp('2024-01-01T00:00:00Z')".to_string()),
    ]
}

fn expr() -> impl Strategy<Value = String> {
    leaf().prop_recursive(5, 48, 4, |inner| {
        let binop = prop_oneof![
            Just("+"),
            Just("-"),
            Just("*"),
            Just("/"),
            Just("%"),
            Just("=="),
            Just("!="),
            Just("<"),
            Just("<="),
            Just(">"),
            Just(">="),
            Just("&&"),
            Just("||"),
            Just("in"),
        ];
        let method = prop_oneof![
            Just("size"),
            Just("contains"),
            Just("startsWith"),
            Just("endsWith"),
            Just("matches"),
            Just("getHours"),
        ];
        let conv = prop_oneof![
            Just("int"),
            Just("uint"),
            Just("double"),
            Just("string"),
            Just("bytes"),
            Just("bool"),
            Just("type"),
            Just("dyn"),
            Just("size"),
            Just("timestamp"),
            Just("duration"),
        ];
        let mac = prop_oneof![
            Just("all"),
            Just("exists"),
            Just("exists_one"),
            Just("map"),
            Just("filter"),
        ];
        prop_oneof![
            (inner.clone(), binop, inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            inner.clone().prop_map(|a| format!("-{a}")),
            inner.clone().prop_map(|a| format!("!{a}")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, t, f)| format!("({c} ? {t} : {f})")),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec((inner.clone(), inner.clone()), 0..3).prop_map(|v| {
                let entries: Vec<_> = v.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                format!("{{{}}}", entries.join(", "))
            }),
            (inner.clone(), inner.clone()).prop_map(|(a, i)| format!("{a}[{i}]")),
            (
                inner.clone(),
                method,
                prop::collection::vec(inner.clone(), 0..2)
            )
                .prop_map(|(r, m, a)| format!("{r}.{m}({})", a.join(", "))),
            (conv, inner.clone()).prop_map(|(c, a)| format!("{c}({a})")),
            (inner.clone(), mac, inner.clone()).prop_map(|(r, m, b)| format!("{r}.{m}(v, {b})")),
            inner.clone().prop_map(|a| format!("has({a}.f)")),
        ]
    })
}

fn document() -> serde_json::Value {
    serde_json::json!({"x": {
        "a": 1, "b": "two", "items": [1, 2.5, "three", null, {"k": [true]}],
        "m": {"k": 7, "n": "seven"},
        "objs": [{"k": 1, "n": "a"}, {"k": 2}, {"k": [3]}]
    }})
}

fn bindings() -> HashMap<String, Value> {
    HashMap::from([("x".to_string(), Value::from(&document()["x"]))])
}

fn env() -> Env {
    let mut env = Env::new();
    env.declare("x", Type::Dyn);
    env
}

/// Runs the source through both pipelines: checked and parse-only.
fn run(src: &str) {
    let env = env();
    for ast in [env.compile(src), env.parse(src)].into_iter().flatten() {
        if let Ok(program) = env.program(&ast) {
            let _ = program.eval(&bindings());
        }
    }
}

/// Evaluates `src` over kcel values and over JSON read in place, without a cost limit and
/// with one that stops it half-way, and asserts the outcomes agree.
fn values_and_json_agree(src: &str) {
    let env = env();
    let Ok(ast) = env.compile(src) else { return };
    let values = bindings();
    let json = kcel::JsonActivation::new(std::sync::Arc::new(document()));
    let Ok(unlimited) = env.program(&ast) else {
        return;
    };
    let (shown, cost) = outcome(&unlimited, &values);
    assert_eq!(outcome(&unlimited, &json), (shown, cost), "{src}");
    let options = kcel::ProgramOptions::default().with_cost_limit(Some(cost / 2));
    let limited = env.program_with(&ast, options).unwrap();
    assert_eq!(
        outcome(&limited, &values),
        outcome(&limited, &json),
        "{src} with cost limit {}",
        cost / 2
    );
}

/// Evaluates `src` as planned and in reference mode, parse-only and checked, over kcel values
/// and over JSON, and asserts the same value, error (with its position) and cost; with a cost
/// limit that stops it half-way, both stop with the limit's error (where the shortcuts check
/// the limit differs, see `tests/in_place_operands.rs`).
fn reference_mode_agrees(src: &str) {
    let env = env();
    let values = bindings();
    let json = kcel::JsonActivation::new(std::sync::Arc::new(document()));
    for ast in [env.compile(src), env.parse(src)].into_iter().flatten() {
        let program = |limit: Option<u64>, reference: bool| {
            let options = kcel::ProgramOptions::default()
                .with_cost_limit(limit)
                .with_reference(reference);
            env.program_with(&ast, options)
        };
        let (Ok(fast), Ok(reference)) = (program(None, false), program(None, true)) else {
            assert!(
                program(None, false).is_err() && program(None, true).is_err(),
                "{src}"
            );
            continue;
        };
        let expected = outcome(&reference, &values);
        assert_eq!(outcome(&fast, &values), expected, "{src}");
        assert_eq!(outcome(&fast, &json), expected, "{src} over JSON");
        assert_eq!(outcome(&reference, &json), expected, "{src} over JSON");
        let limit = Some(expected.1 / 2);
        if let (Ok(fast), Ok(reference)) = (program(limit, false), program(limit, true)) {
            let stopped =
                |o: &(String, u64)| o.0.starts_with("operation cancelled: actual cost limit");
            let expected = outcome(&reference, &values);
            let got = outcome(&fast, &values);
            if stopped(&expected) {
                assert!(stopped(&got), "{src} with cost limit {limit:?}: {got:?}");
            } else {
                assert_eq!(got, expected, "{src} with cost limit {limit:?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn random_expressions_evaluate_alike_in_reference_mode(src in expr()) {
        reference_mode_agrees(&src);
    }

    #[test]
    fn random_expressions_evaluate_alike_over_values_and_json(src in expr()) {
        values_and_json_agree(&src);
    }

    #[test]
    fn random_expressions_never_panic(src in expr()) {
        run(&src);
    }

    #[test]
    fn random_text_never_panics(src in "\\PC{0,64}") {
        run(&src);
    }

    #[test]
    fn random_token_soup_never_panics(tokens in prop::collection::vec(prop_oneof![
        Just("("), Just(")"), Just("["), Just("]"), Just("{"), Just("}"), Just("."), Just(".?"),
        Just(","), Just(":"), Just("?"), Just("!"), Just("-"), Just("+"), Just("&&"), Just("||"),
        Just("x"), Just("1"), Just("'s'"), Just("in"), Just("has"), Just("all"), Just("map"),
    ], 0..24)) {
        let src = tokens.join(" ");
        run(&src);
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let env = env();
    for (open, close) in [("(", ")"), ("[", "]"), ("{1: ", "}")] {
        let src = format!("{}1{}", open.repeat(100_000), close.repeat(100_000));
        assert!(env.parse(&src).is_err());
    }
    let chain = format!("x{}", ".a".repeat(100_000));
    assert!(env.parse(&chain).is_err());
    let sum = vec!["1"; 100_000].join(" + ");
    assert!(env.parse(&sum).is_err());
    let negs = format!("{}1", "-".repeat(100_001));
    run(&negs);
}

/// Found by the fuzzer: a call whose other argument failed is charged by the sizes of its
/// arguments (cel-go's runtimecost.go), and an argument read in place from JSON has the
/// size of the value it reads as.
#[test]
fn failed_calls_size_json_arguments_as_values() {
    for src in [
        "size(1).matches(x.items)",
        "int('a').matches(x.items) * !0",
        "size(1).matches(x.m) * 1",
        "size(1).matches(x.b)",
    ] {
        reference_mode_agrees(src);
    }
}
