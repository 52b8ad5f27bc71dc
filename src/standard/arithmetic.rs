//! Arithmetic operators on numbers, and `+` on strings, bytes and lists.
//!
//! int and uint arithmetic is checked (`integer overflow`, `unsigned integer overflow`,
//! `division by zero`, `modulus by zero`); double arithmetic is IEEE 754. The timestamp and
//! duration overloads of `+` and `-` live in [`super::time`].

use std::sync::Arc;

use super::uint_overflow;
use crate::__overloads as overloads;
use crate::cost::CallCost;
use crate::error::EvalError;
use crate::registry::{CallShape, Implementation, Library, Specialization};
use crate::syntax::ast::op;
use crate::value::EvalResult;
use crate::value::{List, Value};

/// Declares `+`, `-`, `*`, `/`, `%` and unary `-`.
pub fn declare(lib: &mut Library) {
    overloads!(lib.function(
        op::ADD,
        "Adds two numbers, concatenates two strings, bytes or lists, or adds a duration.",
    );
        global "add_int64" ("int", "int") -> "int"
            => Implementation::Binary(add_int64), specialization: Specialization::Operator;
        global "add_uint64" ("uint", "uint") -> "uint" => Implementation::Binary(add_uint64);
        global "add_double" ("double", "double") -> "double" => Implementation::Binary(add_double);
        global "add_string" ("string", "string") -> "string"
            => Implementation::Binary(add_string), specialization: Specialization::AppendStrings,
            cost: CallCost::TraverseSum, shape: CallShape::Concatenation;
        global "add_bytes" ("bytes", "bytes") -> "bytes" => Implementation::Binary(add_bytes),
            cost: CallCost::TraverseSum, shape: CallShape::Concatenation;
        global "add_list" ("list(A)", "list(A)") -> "list(A)" => Implementation::Binary(add_list),
            shape: CallShape::Concatenation;
    )
    .examples(&[
        "1 + 2 == 3",
        "22u + 33u == 55u",
        "1.5 + 1.25 == 2.75",
        "'Hello, ' + 'world!' == 'Hello, world!'",
        "b'hi' + bytes('ya') == b'hiya'",
        "[1] + [2, 3] == [1, 2, 3]",
    ]);

    overloads!(lib.function(
        op::SUBTRACT,
        "Subtracts two numbers, or two time values (timestamps and durations).",
    );
        global "subtract_int64" ("int", "int") -> "int"
            => Implementation::Binary(subtract_int64), specialization: Specialization::Operator;
        global "subtract_uint64" ("uint", "uint") -> "uint"
            => Implementation::Binary(subtract_uint64);
        global "subtract_double" ("double", "double") -> "double"
            => Implementation::Binary(subtract_double);
    )
    .examples(&["5 - 3 == 2", "42u - 3u == 39u", "10.5 - 2.0 == 8.5"]);

    overloads!(lib.function(op::MULTIPLY, "Multiplies two numbers.");
        global "multiply_int64" ("int", "int") -> "int"
            => Implementation::Binary(multiply_int64), specialization: Specialization::Operator;
        global "multiply_uint64" ("uint", "uint") -> "uint"
            => Implementation::Binary(multiply_uint64);
        global "multiply_double" ("double", "double") -> "double"
            => Implementation::Binary(multiply_double);
    )
    .examples(&["-2 * 6 == -12", "13u * 3u == 39u", "3.5 * 40.0 == 140.0"]);

    overloads!(lib.function(
        op::DIVIDE,
        "Divides two numbers; integer division truncates toward zero.",
    );
        global "divide_int64" ("int", "int") -> "int"
            => Implementation::Binary(divide_int64), specialization: Specialization::Operator;
        global "divide_uint64" ("uint", "uint") -> "uint" => Implementation::Binary(divide_uint64);
        global "divide_double" ("double", "double") -> "double"
            => Implementation::Binary(divide_double);
    )
    .examples(&[
        "10 / 2 == 5",
        "-7 / 2 == -3",
        "42u / 2u == 21u",
        "7.0 / 2.0 == 3.5",
    ]);

    overloads!(lib.function(
        op::MODULO,
        "The remainder of integer division; the sign follows the dividend.",
    );
        global "modulo_int64" ("int", "int") -> "int"
            => Implementation::Binary(modulo_int64), specialization: Specialization::Operator;
        global "modulo_uint64" ("uint", "uint") -> "uint" => Implementation::Binary(modulo_uint64);
    )
    .examples(&["3 % 2 == 1", "-7 % 3 == -1", "6u % 3u == 0u"]);

    overloads!(lib.function(op::NEGATE, "Negates a number.");
        global "negate_int64" ("int") -> "int" => Implementation::Unary(negate_int64);
        global "negate_double" ("double") -> "double" => Implementation::Unary(negate_double);
    )
    .examples(&["-(5) == -5", "-(3.5) == -3.5"]);
}

fn ints(a: &Value, b: &Value) -> Result<(i64, i64), EvalError> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Ok((*x, *y)),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn uints(a: &Value, b: &Value) -> Result<(u64, u64), EvalError> {
    match (a, b) {
        (Value::Uint(x), Value::Uint(y)) => Ok((*x, *y)),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn doubles(a: &Value, b: &Value) -> Result<(f64, f64), EvalError> {
    match (a, b) {
        (Value::Double(x), Value::Double(y)) => Ok((*x, *y)),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `int + int`, erroring on overflow.
pub fn add_int64(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = ints(a, b)?;
    x.checked_add(y)
        .map(Value::Int)
        .ok_or_else(EvalError::overflow)
}

/// `uint + uint`, erroring on overflow.
pub fn add_uint64(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = uints(a, b)?;
    x.checked_add(y).map(Value::Uint).ok_or_else(uint_overflow)
}

/// `double + double`.
pub fn add_double(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = doubles(a, b)?;
    Ok(Value::Double(x + y))
}

/// String concatenation.
pub fn add_string(a: &Value, b: &Value) -> EvalResult {
    match (a, b) {
        (Value::String(x), Value::String(y)) => {
            if y.is_empty() {
                return Ok(a.clone());
            }
            if x.is_empty() {
                return Ok(b.clone());
            }
            crate::budget::reserve((x.len() + y.len()) as u64)?;
            let mut s = String::with_capacity(x.len() + y.len());
            s.push_str(x);
            s.push_str(y);
            Ok(Value::from(s))
        }
        _ => Err(EvalError::no_such_overload()),
    }
}

/// Bytes concatenation.
pub fn add_bytes(a: &Value, b: &Value) -> EvalResult {
    match (a, b) {
        (Value::Bytes(x), Value::Bytes(y)) => {
            crate::budget::reserve((x.len() + y.len()) as u64)?;
            let mut v = Vec::with_capacity(x.len() + y.len());
            v.extend_from_slice(x);
            v.extend_from_slice(y);
            Ok(Value::Bytes(v.into()))
        }
        _ => Err(EvalError::no_such_overload()),
    }
}

/// List concatenation (elements are shared, not deep-copied).
pub fn add_list(a: &Value, b: &Value) -> EvalResult {
    match (a, b) {
        (Value::List(x), Value::List(y)) => {
            // A Kubernetes set or map list merges, and the result keeps its semantics.
            if let Some(semantics) = &x.semantics {
                crate::budget::reserve_values(x.len() + y.len())?;
                let merged = semantics.concat(x, y)?;
                return Ok(Value::List(Arc::new(List::with_semantics(
                    merged,
                    semantics.clone(),
                ))));
            }
            if y.is_empty() {
                return Ok(a.clone());
            }
            if x.is_empty() {
                return Ok(b.clone());
            }
            crate::budget::reserve_values(x.len() + y.len())?;
            let items: Vec<Value> = x.iter().chain(y.iter()).cloned().collect();
            Ok(Value::list(items))
        }
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `int - int`, erroring on overflow.
pub fn subtract_int64(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = ints(a, b)?;
    x.checked_sub(y)
        .map(Value::Int)
        .ok_or_else(EvalError::overflow)
}

/// `uint - uint`, erroring when the result would be negative.
pub fn subtract_uint64(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = uints(a, b)?;
    x.checked_sub(y).map(Value::Uint).ok_or_else(uint_overflow)
}

/// `double - double`.
pub fn subtract_double(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = doubles(a, b)?;
    Ok(Value::Double(x - y))
}

/// `int * int`, erroring on overflow.
pub fn multiply_int64(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = ints(a, b)?;
    x.checked_mul(y)
        .map(Value::Int)
        .ok_or_else(EvalError::overflow)
}

/// `uint * uint`, erroring on overflow.
pub fn multiply_uint64(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = uints(a, b)?;
    x.checked_mul(y).map(Value::Uint).ok_or_else(uint_overflow)
}

/// `double * double`.
pub fn multiply_double(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = doubles(a, b)?;
    Ok(Value::Double(x * y))
}

/// `int / int`, truncating; errors on a zero divisor and on `MIN / -1`.
pub fn divide_int64(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = ints(a, b)?;
    if y == 0 {
        return Err(EvalError::division_by_zero());
    }
    x.checked_div(y)
        .map(Value::Int)
        .ok_or_else(EvalError::overflow)
}

/// `uint / uint`; errors on a zero divisor.
pub fn divide_uint64(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = uints(a, b)?;
    x.checked_div(y)
        .map(Value::Uint)
        .ok_or_else(EvalError::division_by_zero)
}

/// `double / double` (IEEE: dividing by zero gives an infinity or NaN).
pub fn divide_double(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = doubles(a, b)?;
    Ok(Value::Double(x / y))
}

/// `int % int`; errors on a zero divisor and on `MIN % -1`.
pub fn modulo_int64(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = ints(a, b)?;
    if y == 0 {
        return Err(EvalError::modulus_by_zero());
    }
    x.checked_rem(y)
        .map(Value::Int)
        .ok_or_else(EvalError::overflow)
}

/// `uint % uint`; errors on a zero divisor.
pub fn modulo_uint64(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = uints(a, b)?;
    x.checked_rem(y)
        .map(Value::Uint)
        .ok_or_else(EvalError::modulus_by_zero)
}

/// `-int`, erroring for the minimum int.
pub fn negate_int64(a: &Value) -> EvalResult {
    match a {
        Value::Int(x) => x
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(EvalError::overflow),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `-double`.
pub fn negate_double(a: &Value) -> EvalResult {
    match a {
        Value::Double(x) => Ok(Value::Double(-x)),
        _ => Err(EvalError::no_such_overload()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(msg: &str) -> EvalResult {
        Err(EvalError::new(msg))
    }

    #[test]
    fn int_arithmetic_is_checked() {
        let i = Value::Int;
        assert_eq!(add_int64(&i(1), &i(2)), Ok(i(3)));
        assert_eq!(add_int64(&i(i64::MAX), &i(1)), Err(EvalError::overflow()));
        assert_eq!(add_int64(&i(i64::MIN), &i(-1)), Err(EvalError::overflow()));
        assert_eq!(
            subtract_int64(&i(i64::MIN), &i(1)),
            Err(EvalError::overflow())
        );
        assert_eq!(
            subtract_int64(&i(1), &i(-i64::MAX)),
            Err(EvalError::overflow())
        );
        assert_eq!(multiply_int64(&i(-2), &i(6)), Ok(i(-12)));
        assert_eq!(
            multiply_int64(&i(5_000_000_000), &i(5_000_000_000)),
            Err(EvalError::overflow())
        );
        assert_eq!(
            multiply_int64(&i(i64::MIN), &i(-1)),
            Err(EvalError::overflow())
        );
        assert_eq!(divide_int64(&i(-7), &i(2)), Ok(i(-3)));
        assert_eq!(
            divide_int64(&i(15), &i(0)),
            Err(EvalError::division_by_zero())
        );
        assert_eq!(
            divide_int64(&i(i64::MIN), &i(-1)),
            Err(EvalError::overflow())
        );
        assert_eq!(modulo_int64(&i(-7), &i(3)), Ok(i(-1)));
        assert_eq!(
            modulo_int64(&i(34), &i(0)),
            Err(EvalError::modulus_by_zero())
        );
        assert_eq!(
            modulo_int64(&i(i64::MIN), &i(-1)),
            Err(EvalError::overflow())
        );
        assert_eq!(negate_int64(&i(5)), Ok(i(-5)));
        assert_eq!(negate_int64(&i(i64::MIN)), Err(EvalError::overflow()));
    }

    #[test]
    fn uint_arithmetic_is_checked() {
        let u = Value::Uint;
        assert_eq!(add_uint64(&u(22), &u(33)), Ok(u(55)));
        assert_eq!(
            add_uint64(&u(u64::MAX), &u(1)),
            err("unsigned integer overflow")
        );
        assert_eq!(
            subtract_uint64(&u(0), &u(1)),
            err("unsigned integer overflow")
        );
        assert_eq!(
            multiply_uint64(&u(5_000_000_000), &u(5_000_000_000)),
            err("unsigned integer overflow")
        );
        assert_eq!(
            divide_uint64(&u(1), &u(0)),
            Err(EvalError::division_by_zero())
        );
        assert_eq!(
            modulo_uint64(&u(1), &u(0)),
            Err(EvalError::modulus_by_zero())
        );
        assert_eq!(modulo_uint64(&u(7), &u(4)), Ok(u(3)));
    }

    #[test]
    fn double_arithmetic_is_ieee() {
        let d = Value::Double;
        assert_eq!(add_double(&d(1.5), &d(1.25)), Ok(d(2.75)));
        assert_eq!(divide_double(&d(1.0), &d(0.0)), Ok(d(f64::INFINITY)));
        assert_eq!(divide_double(&d(-1.0), &d(0.0)), Ok(d(f64::NEG_INFINITY)));
        assert!(matches!(
            divide_double(&d(0.0), &d(0.0)),
            Ok(Value::Double(x)) if x.is_nan()
        ));
        assert_eq!(negate_double(&d(0.5)), Ok(d(-0.5)));
        assert_eq!(multiply_double(&d(3.5), &d(40.0)), Ok(d(140.0)));
        assert_eq!(subtract_double(&d(10.5), &d(2.0)), Ok(d(8.5)));
    }

    #[test]
    fn concatenation() {
        assert_eq!(
            add_string(&Value::from("ab"), &Value::from("cd")),
            Ok(Value::from("abcd"))
        );
        assert_eq!(
            add_bytes(
                &Value::Bytes(b"a".as_slice().into()),
                &Value::Bytes(b"b".as_slice().into())
            ),
            Ok(Value::Bytes(b"ab".as_slice().into()))
        );
        let l = |v: Vec<Value>| Value::from(v);
        assert_eq!(
            add_list(
                &l(vec![Value::Int(1)]),
                &l(vec![Value::Int(2), Value::from("x")])
            ),
            Ok(l(vec![Value::Int(1), Value::Int(2), Value::from("x")]))
        );
        assert_eq!(add_list(&l(vec![]), &l(vec![])), Ok(l(vec![])));
    }

    #[test]
    fn wrong_types_are_no_such_overload() {
        let nso = Err(EvalError::no_such_overload());
        assert_eq!(add_int64(&Value::Int(1), &Value::Uint(1)), nso);
        assert_eq!(add_double(&Value::Int(1), &Value::Double(1.0)), nso);
        assert_eq!(add_string(&Value::from("a"), &Value::Int(1)), nso);
        assert_eq!(negate_int64(&Value::Uint(1)), nso);
        assert_eq!(negate_double(&Value::Bool(false)), nso);
        assert_eq!(divide_uint64(&Value::Int(1), &Value::Int(1)), nso);
    }
}
