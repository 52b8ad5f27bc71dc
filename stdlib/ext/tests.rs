//! Every example of every extension function evaluates to `true`, and implementations are
//! total over sample values.

use crate::env::Env;
use crate::error::EvalError;
use crate::registry::Implementation;
use crate::value::{Key, Map, TypeValue, Value};

#[test]
fn examples_evaluate_to_true() {
    let mut env = Env::new();
    for lib in super::all() {
        env.add_library(&lib);
    }
    let mut count = 0;
    for lib in super::all() {
        for f in &lib.functions {
            assert!(!f.doc.is_empty(), "{} has no doc", f.name);
            assert!(!f.examples.is_empty(), "{} has no examples", f.name);
            for ex in &f.examples {
                let ast = env
                    .compile(ex)
                    .unwrap_or_else(|e| panic!("{}: {ex}: {e}", f.name));
                let program = env
                    .program(&ast)
                    .unwrap_or_else(|e| panic!("{}: {ex}: {e}", f.name));
                let result = program.eval(&());
                assert!(
                    matches!(result, Ok(Value::Bool(true))),
                    "{}: {ex} gave {result:?}",
                    f.name
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
        Value::Timestamp(chrono::DateTime::UNIX_EPOCH),
        Value::Duration(chrono::TimeDelta::seconds(90)),
        Value::Type(TypeValue::Int),
        Value::Optional(None),
    ]
}

#[test]
fn implementations_are_total() {
    let values = samples();
    for lib in super::all() {
        for f in &lib.functions {
            for o in &f.overloads {
                if o.params.len() > 4 || matches!(o.implementation, Implementation::Builtin) {
                    continue;
                }
                let mut combos: Vec<Vec<Value>> = vec![Vec::new()];
                for _ in 0..o.params.len() {
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
                    let result = o.implementation.call(&args).expect("arity matches");
                    if !o.accepts(&args)
                        && !f
                            .overloads
                            .iter()
                            .any(|x| x.member == o.member && x.accepts(&args))
                    {
                        assert_eq!(
                            result,
                            Err(EvalError::no_such_overload()),
                            "{} accepted {args:?}",
                            o.id
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
        for f in &lib.functions {
            for o in &f.overloads {
                assert!(ids.insert(o.id.to_string()), "duplicate {}", o.id);
            }
        }
    }
}
