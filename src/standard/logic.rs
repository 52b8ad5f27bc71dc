//! Logical operators, the conditional, and equality.
//!
//! `&&`, `||`, `?:` and `@not_strictly_false` are not strict in their arguments, so they are
//! declared with [`Implementation::Builtin`] and evaluated by the interpreter.

use crate::__overloads as overloads;
use crate::cost::CallCost;
use crate::error::EvalError;
use crate::registry::{CallShape, Implementation, Library, Specialization};
use crate::syntax::ast::op;
use crate::value::EvalResult;
use crate::value::Value;

/// Declares the logical operators and equality.
pub fn declare(lib: &mut Library) {
    overloads!(lib.function(
        op::CONDITIONAL,
        "The ternary operator: the second argument if the condition is true, else the third.",
    );
        global "conditional" ("bool", "A", "A") -> "A" => Implementation::Builtin,
            shape: CallShape::Conditional;
    )
    .examples(&[
        "('hello'.contains('lo') ? 'hi' : 'bye') == 'hi'",
        "(32 % 3 == 0 ? 'divisible' : 'not divisible') == 'not divisible'",
    ]);

    overloads!(lib.function(
        op::LOGICAL_AND,
        "Logical AND; errors and unknowns are absorbed when the other side decides the result.",
    );
        global "logical_and" ("bool", "bool") -> "bool" => Implementation::Builtin,
            shape: CallShape::ShortCircuit;
    )
    .examples(&["true && true", "!(true && false)", "!(1 / 0 == 1 && false)"]);

    overloads!(lib.function(
        op::LOGICAL_OR,
        "Logical OR; errors and unknowns are absorbed when the other side decides the result.",
    );
        global "logical_or" ("bool", "bool") -> "bool" => Implementation::Builtin,
            shape: CallShape::ShortCircuit;
    )
    .examples(&["true || false", "!(false || false)", "1 / 0 == 1 || true"]);

    overloads!(lib.function(
        op::NOT_STRICTLY_FALSE,
        "True unless the argument is the boolean false (errors count as true); used by macros.",
    );
        global "not_strictly_false" ("bool") -> "bool" => Implementation::Builtin;
    );

    overloads!(lib.function(op::LOGICAL_NOT, "Logically negates a boolean value.");
        global "logical_not" ("bool") -> "bool"
            => Implementation::Unary(logical_not), specialization: Specialization::LogicalNot;
    )
    .examples(&["!false", "!true == false"]);

    overloads!(lib.function(
        op::EQUALS,
        "Compares two values for equality (numbers compare across int, uint and double).",
    );
        global "equals" ("A", "A") -> "bool"
            => Implementation::Binary(equals), specialization: Specialization::Operator,
            cost: CallCost::TraverseMin;
    )
    .examples(&[
        "1 == 1",
        "!('hello' == 'world')",
        "bytes('hello') == b'hello'",
        "duration('1h') == duration('60m')",
        "dyn(3.0) == 3",
    ]);

    overloads!(lib.function(op::NOT_EQUALS, "Compares two values for inequality.");
        global "not_equals" ("A", "A") -> "bool"
            => Implementation::Binary(not_equals), specialization: Specialization::Operator,
            cost: CallCost::TraverseMin;
    )
    .examples(&["1 != 2", "!('a' != 'a')", "3.0 != 3.1"]);
}

/// `!b`.
pub fn logical_not(v: &Value) -> EvalResult {
    match v {
        Value::Bool(b) => Ok(Value::Bool(!b)),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `a == b` with CEL's heterogeneous equality. As in cel-go (`types.Equal`: `null` on
/// either side compares by identity, otherwise `lhs.Equal(rhs)`), an opaque left operand
/// decides through [`Opaque::equal_to`](crate::value::Opaque::equal_to), which may be
/// `no such overload` (Kubernetes' types compared with another type). `!=` is never an
/// error: cel-go's `_!=_` is `Equal(a, b) != true`.
pub fn equals(a: &Value, b: &Value) -> EvalResult {
    match (a, b) {
        (Value::Opaque(x), b) if !matches!(b, Value::Null) => x
            .equal_to(b)
            .map(Value::Bool)
            .ok_or_else(EvalError::no_such_overload),
        // A Kubernetes set or map list decides, and may fail (set items that are not scalars).
        (Value::List(x), Value::List(y)) if x.semantics.is_some() => x.equals(y).map(Value::Bool),
        _ => Ok(Value::Bool(a.cel_eq(b))),
    }
}

/// `a != b`.
pub fn not_equals(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Bool(!a.cel_eq(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_negates_bools_only() {
        assert_eq!(logical_not(&Value::Bool(true)), Ok(Value::Bool(false)));
        assert_eq!(
            logical_not(&Value::Int(1)),
            Err(EvalError::no_such_overload())
        );
    }

    #[test]
    fn equality_is_heterogeneous() {
        assert_eq!(
            equals(&Value::Int(1), &Value::Double(1.0)),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            equals(&Value::Int(1), &Value::from("1")),
            Ok(Value::Bool(false))
        );
        assert_eq!(
            not_equals(&Value::Double(f64::NAN), &Value::Double(f64::NAN)),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            not_equals(&Value::Uint(2), &Value::Int(2)),
            Ok(Value::Bool(false))
        );
    }
}
