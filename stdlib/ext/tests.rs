//! Every example of every extension function evaluates to `true`, and implementations are
//! total over sample values.

use kcel::Env;
use kcel::EvalError;
use kcel::library::Implementation;
use kcel::{Key, Map, TypeValue, Value};

#[test]
fn examples_evaluate_to_true() {
    let mut env = Env::new();
    env.add_library(&crate::optional::optional(crate::optional::LATEST));
    for lib in super::all() {
        env.add_library(&lib);
    }
    let mut count = 0;
    for lib in super::all() {
        for f in lib.functions() {
            assert!(!f.doc().is_empty(), "{} has no doc", f.name());
            assert!(!f.examples().is_empty(), "{} has no examples", f.name());
            for ex in f.examples() {
                let ast = env
                    .compile(ex)
                    .unwrap_or_else(|e| panic!("{}: {ex}: {e}", f.name()));
                let program = env
                    .program(&ast)
                    .unwrap_or_else(|e| panic!("{}: {ex}: {e}", f.name()));
                let result = program.eval(&());
                assert!(
                    matches!(result, Ok(Value::Bool(true))),
                    "{}: {ex} gave {result:?}",
                    f.name()
                );
                count += 1;
            }
        }
    }
    assert!(count > 100, "only {count} examples");
}

fn samples() -> Vec<Value> {
    let map: Map = [(Key::Int(1), Value::from("a"))].into_iter().collect();
    vec![
        Value::Null,
        Value::Bool(true),
        Value::Int(3),
        Value::Int(-1),
        Value::Uint(2),
        Value::Double(1.5),
        Value::Double(f64::NAN),
        Value::from("a%sb"),
        Value::Bytes(b"ab".as_slice().into()),
        Value::from(vec![Value::Int(1), Value::from("x")]),
        Value::from(vec![Value::from("x")]),
        Value::from(map),
        Value::Timestamp(kcel::Timestamp::UNIX_EPOCH),
        Value::Duration(chrono::TimeDelta::seconds(90)),
        Value::Type(TypeValue::Int),
        Value::Optional(None),
    ]
}

#[test]
fn implementations_are_total() {
    let values = samples();
    for lib in super::all() {
        for f in lib.functions() {
            for o in f.overloads() {
                if o.params().len() > 4 || matches!(o.implementation(), Implementation::Builtin) {
                    continue;
                }
                let mut combos: Vec<Vec<Value>> = vec![Vec::new()];
                for _ in 0..o.params().len() {
                    combos = combos
                        .into_iter()
                        .flat_map(|c| {
                            values.iter().map(move |v| {
                                let mut c = c.clone();
                                c.push(v.clone());
                                c
                            })
                        })
                        .collect();
                }
                for args in combos {
                    let result = o.implementation().call(&args).expect("arity matches");
                    if !o.accepts(&args)
                        && !f
                            .overloads()
                            .iter()
                            .any(|x| x.is_member() == o.is_member() && x.accepts(&args))
                    {
                        assert_eq!(
                            result,
                            Err(EvalError::no_such_overload()),
                            "{} accepted {args:?}",
                            o.id()
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn overload_ids_are_unique_per_library() {
    for lib in super::all() {
        let mut ids = std::collections::HashSet::new();
        for f in lib.functions() {
            for o in f.overloads() {
                assert!(ids.insert(o.id().to_string()), "duplicate {}", o.id());
            }
        }
    }
}

/// Size hints by variable name, `[0, n]`, as cel-go's test estimator gives them.
struct Hints(&'static [(&'static str, u64)]);

impl kcel::library::SizeEstimator for Hints {
    fn estimate_size(
        &self,
        node: &kcel::library::AstNode<'_>,
    ) -> Option<kcel::library::SizeEstimate> {
        let [name] = node.path else { return None };
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, max)| kcel::library::SizeEstimate { min: 0, max: *max })
    }
}

/// Estimated and actual costs, unoptimized (list literals cost 10), as cel-go counts them.
#[test]
fn costs_match_cel_go() {
    use kcel::ProgramOptions;
    use kcel::Type;
    const MAX: u64 = u64::MAX;
    type Vars = &'static [(&'static str, &'static str, u64)];
    let cases: &[(&str, Vars, (u64, u64), u64)] = &[
        ("sets.contains([], [])", &[], (21, 21), 21),
        ("sets.contains([1], [1])", &[], (22, 22), 22),
        ("sets.contains([1, 2, 3, 4], [2, 3])", &[], (29, 29), 29),
        ("sets.equivalent([1, 2], [2, 1, 1])", &[], (33, 33), 33),
        ("!sets.intersects([1, 2], [3])", &[], (24, 24), 24),
        (
            "sets.contains(x, [1, 2, 3])",
            &[("x", "list(int)", 10)],
            (12, 42),
            0,
        ),
        ("lists.range(4) == [0, 1, 2, 3]", &[], (26, 26), 26),
        ("lists.range(4 / 2) == [0, 1]", &[], (MAX, MAX), 25),
        ("[[1, 2], 3].flatten(2) == [1, 2, 3]", &[], (46, 46), 46),
        ("[[1], 2, 3].flatten() == [1, 2, 3]", &[], (45, 45), 45),
        ("[1, 2, 3].distinct() == [1, 2, 3]", &[], (50, 50), 50),
        ("[1, 2, 3].slice(1, 3) == [2, 3]", &[], (34, 34), 34),
        ("[3, 2, 1].reverse() == [1, 2, 3]", &[], (35, 35), 35),
        ("[3, 2, 1].sort() == [1, 2, 3]", &[], (50, 50), 50),
        ("['b', 'a'].sort() == ['a', 'b']", &[], (41, 41), 40),
        ("[2, 1].sortBy(e, -e) == [2, 1]", &[], (91, 91), 91),
        (
            "'%s and %s'.format(['a', 'b']) == 'a and b'",
            &[],
            (12, 12),
            12,
        ),
        ("x.format([1]) != ''", &[("x", "string", 50)], (11, 16), 0),
        (
            "size(strings.quote(x)) > 0",
            &[("x", "string", 20)],
            (3, 5),
            0,
        ),
        (
            "x.reverse() == [1, 2, 3]",
            &[("x", "list(int)", 5)],
            (23, 28),
            0,
        ),
        (
            "x.distinct() == ['hello']",
            &[("x", "list(string)", 3)],
            (23, 41),
            0,
        ),
    ];
    for (expr, vars, (min, max), actual) in cases {
        let mut env = Env::new();
        for lib in super::all() {
            env.add_library(&lib);
        }
        let mut hints = Vec::new();
        for (name, ty, size) in *vars {
            env.declare(*name, Type::parse(ty).expect("test type"));
            hints.push((*name, *size));
        }
        let hints: &'static [(&str, u64)] = Box::leak(hints.into_boxed_slice());
        let ast = env.compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
        let est = env.estimate_cost(&ast, &Hints(hints)).expect("checked");
        assert_eq!((est.min, est.max), (*min, *max), "estimate of {expr}");
        if vars.is_empty() {
            let options = ProgramOptions::default().with_optimize(false);
            let program = env.program_with(&ast, options).expect("plans");
            let (result, details) = program.eval_with_details(&());
            assert!(
                matches!(result, Ok(Value::Bool(true))),
                "{expr}: {result:?}"
            );
            assert_eq!(details.actual_cost, *actual, "actual cost of {expr}");
        }
    }
}

mod fuzz {
    use proptest::prelude::*;

    use super::super::{encoders, format, lists, strings};
    use kcel::Value;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

        /// Formatting never panics, whatever the format string and arguments.
        #[test]
        fn format_is_total(fmt in "[%.0-9a-zA-Zé ]{0,12}", n in any::<i64>(), d in any::<f64>()) {
            let args = [Value::Int(n), Value::Double(d), Value::from("s"), Value::Uint(7)];
            for f in [format::Formatter::V1, format::Formatter::V2] {
                let _ = format::format(&fmt, &args, f);
            }
        }

        /// String functions never panic on arbitrary text and indices.
        #[test]
        fn string_functions_are_total(s in "\\PC{0,8}", sub in "\\PC{0,3}", i in -3i64..12, j in -3i64..12) {
            let (s, sub) = (Value::from(s.as_str()), Value::from(sub.as_str()));
            let _ = strings::char_at(&s, &Value::Int(i));
            let _ = strings::index_of_offset(&[s.clone(), sub.clone(), Value::Int(i)]);
            let _ = strings::last_index_of_offset(&[s.clone(), sub.clone(), Value::Int(i)]);
            let _ = strings::last_index_of(&s, &sub);
            let _ = strings::substring(&[s.clone(), Value::Int(i), Value::Int(j)]);
            let _ = strings::split(&[s.clone(), sub.clone(), Value::Int(i)]);
            let _ = strings::replace(&[s.clone(), sub.clone(), s.clone(), Value::Int(i)]);
            let _ = lists::slice(&[Value::list(vec![s; 4]), Value::Int(i), Value::Int(j)]);
        }

        /// base64 decoding never panics, and decodes what encoding produces.
        #[test]
        fn base64_round_trips(bytes in proptest::collection::vec(any::<u8>(), 0..40), junk in "[A-Za-z0-9+/=\\n*]{0,12}") {
            let encoded = encoders::encode(&Value::Bytes(bytes.clone().into())).expect("bytes");
            prop_assert_eq!(encoders::decode(&encoded), Ok(Value::Bytes(bytes.into())));
            let _ = encoders::decode(&Value::from(junk.as_str()));
        }
    }
}
