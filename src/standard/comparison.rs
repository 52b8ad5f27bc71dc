//! Ordering operators `<`, `<=`, `>`, `>=`.
//!
//! Ordering is defined within bool, string, bytes, timestamp and duration, and across int,
//! uint and double (cel-go declares each numeric pair as its own overload, e.g.
//! `less_int64_uint64`). Comparing NaN is an error, as in cel-go.

use std::cmp::Ordering;

use crate::cost::CallCost;
use crate::error::EvalError;
use crate::registry::{Implementation, Library, Specialization};
use crate::syntax::ast::op;
use crate::value::EvalResult;
use crate::value::Value;

/// The runtime cost of ordering the operands of a pair: strings and bytes are compared
/// over the shorter operand, everything else at 1.
fn ordering_cost(suffix: &str) -> CallCost {
    match suffix {
        "string" | "bytes" => CallCost::TraverseMin,
        _ => CallCost::Fixed(1),
    }
}

/// The operand type pairs with an ordering overload: (overload id suffix, lhs, rhs).
const PAIRS: &[(&str, &str, &str)] = &[
    ("bool", "bool", "bool"),
    ("int64", "int", "int"),
    ("int64_double", "int", "double"),
    ("int64_uint64", "int", "uint"),
    ("uint64", "uint", "uint"),
    ("uint64_double", "uint", "double"),
    ("uint64_int64", "uint", "int"),
    ("double", "double", "double"),
    ("double_int64", "double", "int"),
    ("double_uint64", "double", "uint"),
    ("string", "string", "string"),
    ("bytes", "bytes", "bytes"),
    (
        "timestamp",
        "google.protobuf.Timestamp",
        "google.protobuf.Timestamp",
    ),
    (
        "duration",
        "google.protobuf.Duration",
        "google.protobuf.Duration",
    ),
];

/// Declares the four ordering operators.
pub fn declare(lib: &mut Library) {
    type Cmp = fn(&Value, &Value) -> EvalResult;
    let ops: [(&str, &str, &str, Cmp, &[&str]); 4] = [
        (
            op::LESS,
            "less",
            "True if the first value is less than the second.",
            less,
            &[
                "-2 < 3",
                "!(1 < 0)",
                "1 < 1.1",
                "1 < 2u",
                "1u < 23",
                "!(1u < -1)",
                "2.1 < 3",
                "-1.0 < 1u",
                "false < true",
                "'a' < 'b'",
                "!('cat' < 'cab')",
                "b'hello' < b'world'",
                "timestamp('2001-01-01T02:03:04Z') < timestamp('2002-02-02T02:03:04Z')",
                "duration('1ms') < duration('1s')",
            ],
        ),
        (
            op::LESS_EQUALS,
            "less_equals",
            "True if the first value is less than or equal to the second.",
            less_equals,
            &[
                "-2 <= 3",
                "1 <= 1.0",
                "-1 <= 0u",
                "1u <= 1.0",
                "'a' <= 'a'",
                "duration('1ms') <= duration('1s')",
            ],
        ),
        (
            op::GREATER,
            "greater",
            "True if the first value is greater than the second.",
            greater,
            &[
                "3 > -2",
                "2 > 1.1",
                "0u > -1",
                "!(3.0 > 3)",
                "'b' > 'a'",
                "duration('1ms') > duration('1us')",
            ],
        ),
        (
            op::GREATER_EQUALS,
            "greater_equals",
            "True if the first value is greater than or equal to the second.",
            greater_equals,
            &[
                "3 >= -2",
                "1 >= 1.0",
                "1u >= 1",
                "true >= false",
                "timestamp('2001-01-01T02:03:04Z') >= timestamp('2001-01-01T02:03:04Z')",
                "duration('60s') >= duration('1m')",
            ],
        ),
    ];
    for (name, prefix, doc, imp, examples) in ops {
        let mut f = lib.function(name, doc);
        for (suffix, lhs, rhs) in PAIRS {
            f = f
                .global(
                    &format!("{prefix}_{suffix}"),
                    &[lhs, rhs],
                    "bool",
                    Implementation::Binary(imp),
                )
                .specialization(Specialization::Operator)
                .cost(ordering_cost(suffix));
        }
        f.examples(examples);
    }
}

/// Orders two values, or fails with cel-go's error.
fn order(a: &Value, b: &Value) -> Result<Ordering, EvalError> {
    match a.cel_cmp(b) {
        Some(Some(o)) => Ok(o),
        Some(None) => Err(EvalError::new("NaN values cannot be ordered")),
        None => Err(EvalError::no_such_overload()),
    }
}

/// `a < b`.
pub fn less(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Bool(order(a, b)? == Ordering::Less))
}

/// `a <= b`.
pub fn less_equals(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Bool(order(a, b)? != Ordering::Greater))
}

/// `a > b`.
pub fn greater(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Bool(order(a, b)? == Ordering::Greater))
}

/// `a >= b`.
pub fn greater_equals(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Bool(order(a, b)? != Ordering::Less))
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: EvalResult = Ok(Value::Bool(true));
    const F: EvalResult = Ok(Value::Bool(false));

    #[test]
    fn orders_within_and_across_numeric_types() {
        assert_eq!(less(&Value::Int(-2), &Value::Int(3)), T);
        assert_eq!(less(&Value::Int(-1), &Value::Uint(0)), T);
        assert_eq!(less(&Value::Uint(1), &Value::Int(-1)), F);
        assert_eq!(less(&Value::Uint(u64::MAX), &Value::Int(i64::MAX)), F);
        assert_eq!(less_equals(&Value::Int(1), &Value::Double(1.0)), T);
        assert_eq!(greater(&Value::Double(3.0), &Value::Int(3)), F);
        assert_eq!(greater_equals(&Value::Double(3.1), &Value::Uint(3)), T);
        assert_eq!(greater(&Value::Bool(true), &Value::Bool(false)), T);
        assert_eq!(less(&Value::from("cat"), &Value::from("cab")), F);
        assert_eq!(
            less(
                &Value::Bytes(b"a".as_slice().into()),
                &Value::Bytes(b"b".as_slice().into())
            ),
            T
        );
    }

    #[test]
    fn unrelated_types_and_nan_are_errors() {
        assert_eq!(
            less(&Value::Int(1), &Value::from("1")),
            Err(EvalError::no_such_overload())
        );
        assert_eq!(
            greater(&Value::Null, &Value::Null),
            Err(EvalError::no_such_overload())
        );
        assert_eq!(
            less(&Value::Double(f64::NAN), &Value::Int(1)),
            Err(EvalError::new("NaN values cannot be ordered"))
        );
        assert_eq!(
            greater_equals(&Value::Uint(1), &Value::Double(f64::NAN)),
            Err(EvalError::new("NaN values cannot be ordered"))
        );
    }
}
