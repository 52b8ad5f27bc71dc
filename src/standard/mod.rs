//! The CEL standard library, with cel-go's overload ids, semantics and error messages.
//!
//! Each submodule declares one family of functions (`declare`) next to their
//! implementations:
//!
//! | module | functions |
//! | --- | --- |
//! | [`logic`] | `!_`, `_==_`, `_!=_`, and the non-strict `_&&_`, `_\|\|_`, `_?_:_`, `@not_strictly_false` |
//! | [`arithmetic`] | `_+_`, `_-_`, `_*_`, `_/_`, `_%_`, `-_` on numbers; `+` on strings, bytes, lists |
//! | [`comparison`] | `_<_`, `_<=_`, `_>_`, `_>=_` |
//! | [`collections`] | `@in`, `_[_]`, `size` |
//! | [`strings`] | `contains`, `startsWith`, `endsWith`, `matches` (with [`re2`]) |
//! | [`conversions`] | `int`, `uint`, `double`, `string`, `bytes`, `bool`, `timestamp`, `duration`, `dyn`, `type` |
//! | [`time`] | timestamp/duration `+`/`-`, `getFullYear` ... `getMilliseconds` |
//!
//! [`duration_text`] and [`timestamp_text`] hold Go's duration and RFC 3339 syntax;
//! [`time_zones`] the IANA zones' offsets.
//! Implementations are total over [`Value`]: arguments of the wrong runtime
//! type give `no such overload`, never a panic.

pub mod arithmetic;
pub mod collections;
pub mod comparison;
pub mod conversions;
pub mod duration_text;
pub mod logic;
pub mod re2;
pub mod strings;
pub mod time;
pub mod time_zones;
pub mod timestamp_text;

use crate::error::EvalError;
use crate::registry::Library;
use crate::value::Value;

/// Builds the standard library.
pub fn library() -> Library {
    let mut lib = Library::new("cel.stdlib", 0);
    logic::declare(&mut lib);
    arithmetic::declare(&mut lib);
    comparison::declare(&mut lib);
    collections::declare(&mut lib);
    strings::declare(&mut lib);
    conversions::declare(&mut lib);
    time::declare(&mut lib);
    lib
}

/// 2^63 as a double (exact): the exclusive bound of doubles convertible to int.
pub const TWO_POW_63: f64 = -(i64::MIN as f64);
/// 2^64 as a double (exact): the exclusive upper bound of doubles convertible to uint.
pub const TWO_POW_64: f64 = 2.0 * TWO_POW_63;

/// cel-go's error for unsigned arithmetic or conversion overflow.
pub fn uint_overflow() -> EvalError {
    EvalError::new("unsigned integer overflow")
}

/// cel-go's error for a timestamp outside 0001-01-01..9999-12-31.
pub fn timestamp_overflow() -> EvalError {
    EvalError::new("timestamp overflow")
}

/// cel-go's error for a failed conversion between two types (named as `type()` prints them).
pub fn conversion_error(from: &str, to: &str) -> EvalError {
    EvalError::new(format!("type conversion error from '{from}' to '{to}'"))
}

/// Quotes a string as Go's `strconv.Quote` (and `%q`) does: `\a \b \f \n \r \t \v`, escaped
/// quote and backslash, other ASCII control characters as `\xXX`, other control characters
/// as `\uXXXX`.
///
/// Error messages quote their input with it, so within an evaluation the quoted text counts
/// against the memory budget (`kcel::library::budget`): quoting an input too large for what is
/// left gives `"..."` instead, and the evaluation ends with the memory limit's error.
pub fn go_quote(s: &str) -> String {
    use std::fmt::Write as _;
    if crate::budget::reserve(s.len() as u64 + 2).is_err() {
        return "\"...\"".to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\u{07}' => out.push_str("\\a"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0C}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{0B}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Formats a value as Go's `%v` does for cel-go values, for error messages
/// (`no such key: a`, `unsupported index value 1.5 in list`).
pub fn go_display(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => conversions::format_double(*d),
        Value::Bytes(b) => {
            let parts: Vec<String> = b.iter().map(|x| x.to_string()).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Null => "NULL_VALUE".to_string(),
        // In an error message, a list or map's text counts against the evaluation's memory
        // budget: one of shared parts can be far longer printed than held. Past the budget
        // the evaluation fails with the budget's error, so the text shown does not matter.
        list_or_map @ (Value::List(_) | Value::Map(_)) => {
            if crate::value::text_exceeds(list_or_map, crate::budget::bytes_left()) {
                let _ = crate::budget::reserve(u64::MAX);
                return "[...]".to_string();
            }
            let text = list_or_map.to_string();
            let _ = crate::budget::reserve(text.len() as u64);
            text
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{CallShape, Implementation};
    use std::collections::HashSet;

    #[test]
    fn builds_and_overload_ids_are_unique() {
        let lib = crate::standard::library();
        let mut ids = HashSet::new();
        for f in &lib.functions {
            assert!(!f.doc.is_empty(), "{} has no doc", f.name);
            for o in &f.overloads {
                // `in_list`/`in_map` etc. are declared once each; ids must be unique.
                assert!(
                    ids.insert(o.id.to_string()),
                    "duplicate overload id {}",
                    o.id
                );
            }
        }
        assert!(ids.len() > 150, "only {} overloads", ids.len());
        let mut reg = crate::registry::Registry::new();
        reg.add_library(&lib);
        assert!(reg.get("_+_").is_some());
    }

    /// One value of every kind, for calling implementations with every argument combination.
    fn samples() -> Vec<Value> {
        use crate::value::{Key, Map, TypeValue};
        let map: Map = [(Key::Int(1), Value::from("a"))].into_iter().collect();
        vec![
            Value::Null,
            Value::Bool(true),
            Value::Int(3),
            Value::Int(-1),
            Value::Uint(2),
            Value::Double(1.5),
            Value::Double(f64::NAN),
            Value::from("UTC"),
            Value::Bytes(b"ab".as_slice().into()),
            Value::from(vec![Value::Int(1), Value::from("x")]),
            Value::from(map),
            Value::Timestamp(crate::value::Timestamp::UNIX_EPOCH),
            Value::Duration(chrono::TimeDelta::seconds(90)),
            Value::Type(TypeValue::Int),
            Value::Optional(None),
        ]
    }

    #[test]
    fn implementations_are_total_and_match_their_declarations() {
        let lib = crate::standard::library();
        let values = samples();
        for f in &lib.functions {
            for o in &f.overloads {
                let arity = o.params.len();
                match (&o.implementation, arity) {
                    (Implementation::Unary(_), 1) | (Implementation::Binary(_), 2) => {}
                    (Implementation::Builtin, _) => continue,
                    (imp, n) => panic!("{}: {imp:?} implementation for {n} parameters", o.id),
                }
                let combos: Vec<Vec<Value>> = match arity {
                    1 => values.iter().map(|a| vec![a.clone()]).collect(),
                    _ => values
                        .iter()
                        .flat_map(|a| values.iter().map(move |b| vec![a.clone(), b.clone()]))
                        .collect(),
                };
                for args in combos {
                    let result = o.implementation.call(&args).expect("arity checked above");
                    let nso = result == Err(EvalError::no_such_overload());
                    if o.accepts(&args) {
                        assert!(!nso, "{} rejected {args:?}", o.id);
                    } else if o.shape == CallShape::Index
                        && matches!(o.params[0], crate::types::Type::List(_))
                        && matches!(args[0], Value::List(_))
                    {
                        // As in cel-go: uint and integral double indexes work, and other
                        // index types get "unsupported index type" rather than no overload.
                    } else if !f
                        .overloads
                        .iter()
                        .any(|other| other.member == o.member && other.accepts(&args))
                    {
                        assert!(nso, "{} accepted {args:?}: {result:?}", o.id);
                    }
                }
            }
        }
    }

    /// A standard function's cost is declared once, on its overloads: repricing them (one
    /// edit, here in a test environment) changes the runtime cost and the static estimate
    /// alike, in the fast mode (whose inline kernels and string tests must then step aside)
    /// and in reference mode.
    #[test]
    fn a_declared_cost_is_the_one_charged_and_estimated() {
        use crate::cost::{CallCost, CostEstimate, NoSizes};
        use crate::env::Env;
        use crate::syntax::ast::op;
        use crate::types::Type;
        use std::collections::HashMap;

        // 25 code points: a traversal costs 3.
        let vars: HashMap<String, Value> = [
            ("s".to_string(), Value::from("abcdefghijklmnopqrstuvwxy")),
            ("i".to_string(), Value::Int(3)),
        ]
        .into_iter()
        .collect();
        // The actual cost in both modes (which must agree) and the estimate.
        let costs = |lib: &Library, expr: &str| -> (u64, CostEstimate) {
            let mut env = Env::empty();
            env.add_library(lib);
            env.declare("s", Type::String).declare("i", Type::Int);
            let ast = env.compile(expr).expect("compiles");
            let estimate = env.estimate_cost(&ast, &NoSizes).expect("checked");
            let actual: Vec<u64> = [false, true]
                .into_iter()
                .map(|reference| {
                    let options = env.program_options().with_reference(reference);
                    let program = env.program_with(&ast, options).expect("plans");
                    let (result, details) = program.eval_with_details(&vars);
                    assert_eq!(result, Ok(Value::Bool(true)), "{expr}");
                    details.actual_cost
                })
                .collect();
            assert_eq!(actual[0], actual[1], "{expr}: fast and reference modes");
            (actual[0], estimate)
        };
        // (function, its new cost, expression, the cost of its variables, the standard
        // actual cost and estimate).
        let cases: [(&str, u64, &str, u64, u64, CostEstimate); 3] = [
            // A string and a constant: the inline string kernel, priced by the shorter.
            (
                op::EQUALS,
                7,
                "s == 'abcdefghijklmnopqrstuvwxy'",
                1,
                1 + 3,
                CostEstimate { min: 2, max: 4 },
            ),
            // Two ints: the inline int kernel.
            (op::EQUALS, 7, "i == 3", 1, 1 + 1, CostEstimate::fixed(2)),
            // A constant prefix: the string test prepared at plan time.
            (
                "startsWith",
                5,
                "s.startsWith('abc')",
                1,
                1 + 3,
                CostEstimate::fixed(1 + 1),
            ),
        ];
        for (function, cost, expr, reads, standard_actual, standard_estimate) in cases {
            assert_eq!(
                costs(&library(), expr),
                (standard_actual, standard_estimate),
                "{expr} with the standard declarations"
            );
            let mut repriced = library();
            for f in repriced.functions_mut() {
                if f.name() == function {
                    f.set_runtime_cost(CallCost::Fixed(cost));
                }
            }
            assert_eq!(
                costs(&repriced, expr),
                (cost + reads, CostEstimate::fixed(cost + reads)),
                "{expr} with {function} declared at {cost}"
            );
        }
    }

    #[test]
    fn go_display_matches_go_verbs() {
        assert_eq!(go_display(&Value::from("a")), "a");
        assert_eq!(go_display(&Value::Uint(3)), "3");
        assert_eq!(go_display(&Value::Double(1.5)), "1.5");
        assert_eq!(go_display(&Value::Bytes(vec![1u8, 2].into())), "[1 2]");
    }
}
