//! Optional values (cel-go's `OptionalTypes` library): `optional.of`, `optional.none`,
//! `hasValue`, `value`, `or`, `orValue`, optional field selection (`a.?b`) and indexing
//! (`a[?k]`), indexing through optionals, and (version 2) `first`, `last`,
//! `optional.unwrap` and `unwrapOpt`. The `optMap`/`optFlatMap` macros live in the parser's
//! macro table; `or` and `orValue` are evaluated lazily by the interpreter.

use std::sync::Arc;

use kcel::Value;
use kcel::library::overloads;
use kcel::library::standard::{index_list, index_map};
use kcel::library::syntax::op;
use kcel::library::{CallCost, CallShape, Implementation, Library, Specialization};
use kcel::{EvalError, EvalResult};

/// The newest version of the library.
pub const LATEST: u32 = 2;

/// The optional types library at `version` (0 to 2, as cel-go gates its functions).
pub fn optional(version: u32) -> Library {
    let mut lib = Library::new("optional", version);
    lib.add_macros(kcel::library::syntax::OPTIONAL);
    lib.enable_optional_syntax();
    overloads!(lib.function("optional.of", "Wraps a value in an optional.");
        global "optional_of" ("A") -> "optional_type(A)" => Implementation::Unary(of);
    )
    .examples(&["optional.of(1).value() == 1"]);
    overloads!(lib.function(
        "optional.ofNonZeroValue",
        "Wraps a value in an optional, or gives optional.none() for a zero value.",
    );
        global "optional_ofNonZeroValue" ("A") -> "optional_type(A)"
            => Implementation::Unary(of_non_zero_value);
    )
    .examples(&["!optional.ofNonZeroValue('').hasValue()"]);
    overloads!(lib.function("optional.none", "The empty optional.");
        global "optional_none" () -> "optional_type(A)" => Implementation::Nary(none);
    )
    .examples(&["!optional.none().hasValue()"]);
    overloads!(lib.function("value", "The value of an optional; an error when it has none.");
        member "optional_value" ("optional_type(A)") -> "A" => Implementation::Unary(value);
    )
    .examples(&["optional.of('a').value() == 'a'"]);
    overloads!(lib.function("hasValue", "Whether an optional has a value.");
        member "optional_hasValue" ("optional_type(A)") -> "bool"
            => Implementation::Unary(has_value);
    )
    .examples(&["optional.of(0).hasValue()"]);
    lib.function(
        "or",
        "The optional if it has a value, else the other optional (evaluated only then).",
    )
    .member(
        "optional_or_optional",
        &["optional_type(A)", "optional_type(A)"],
        "optional_type(A)",
        Implementation::Binary(or),
    )
    .specialization(Specialization::OptionalOr { or_value: false })
    .examples(&["optional.none().or(optional.of(2)).value() == 2"]);
    lib.function(
        "orValue",
        "The optional's value, else the given value (evaluated only then).",
    )
    .member(
        "optional_orValue_value",
        &["optional_type(A)", "A"],
        "A",
        Implementation::Binary(or_value),
    )
    .specialization(Specialization::OptionalOr { or_value: true })
    .examples(&["optional.none().orValue(3) == 3"]);
    overloads!(lib.function(
        op::OPT_SELECT,
        "Optional field selection `a.?f`: the field as an optional, none when absent.",
    );
        global "select_optional_field" ("dyn", "string") -> "optional_type(A)"
            => Implementation::Binary(select_optional_field),
            cost: CallCost::Custom(present_qualifier_cost);
    )
    .examples(&["{'a': 1}.?a.value() == 1", "!{'a': 1}.?b.hasValue()"]);
    overloads!(lib.function(
        op::OPT_INDEX,
        "Optional indexing `a[?k]`: the element as an optional, none when absent.",
    );
        global "list_optindex_optional_int" ("list(V)", "int") -> "optional_type(V)"
            => Implementation::Binary(optional_index),
            cost: CallCost::Custom(present_qualifier_cost),
            shape: CallShape::OptionalIndex;
        global "optional_list_optindex_optional_int" ("optional_type(list(V))", "int") -> "optional_type(V)"
            => Implementation::Binary(optional_index),
            cost: CallCost::Custom(present_qualifier_cost),
            shape: CallShape::OptionalIndex;
        global "map_optindex_optional_value" ("map(K, V)", "K") -> "optional_type(V)"
            => Implementation::Binary(optional_index),
            cost: CallCost::Custom(present_qualifier_cost),
            shape: CallShape::OptionalIndex;
        global "optional_map_optindex_optional_value" ("optional_type(map(K, V))", "K") -> "optional_type(V)"
            => Implementation::Binary(optional_index),
            cost: CallCost::Custom(present_qualifier_cost),
            shape: CallShape::OptionalIndex;
    )
    .examples(&["[1, 2][?1].value() == 2", "!{'a': 1}[?'b'].hasValue()"]);
    overloads!(lib.function(op::INDEX, "Indexing through an optional list or map.");
        global "optional_list_index_int" ("optional_type(list(V))", "int") -> "optional_type(V)"
            => Implementation::Binary(optional_index),
            cost: CallCost::Custom(present_qualifier_cost),
            shape: CallShape::OptionalIndex;
        global "optional_map_index_value" ("optional_type(map(K, V))", "K") -> "optional_type(V)"
            => Implementation::Binary(optional_index),
            cost: CallCost::Custom(present_qualifier_cost),
            shape: CallShape::OptionalIndex;
    )
    .examples(&["optional.of([1])[0].value() == 1"]);
    if version >= 2 {
        overloads!(lib.function("first", "The first element of a list, as an optional.");
            member "list_first" ("list(A)") -> "optional_type(A)" => Implementation::Unary(first);
        )
        .examples(&["[1, 2].first().value() == 1", "![].first().hasValue()"]);
        overloads!(lib.function("last", "The last element of a list, as an optional.");
            member "list_last" ("list(A)") -> "optional_type(A)" => Implementation::Unary(last);
        )
        .examples(&["[1, 2].last().value() == 2"]);
        overloads!(lib.function(
            "optional.unwrap",
            "The values of the optionals in a list that have one.",
        );
            global "optional_unwrap" ("list(optional_type(A))") -> "list(A)"
                => Implementation::Unary(unwrap);
        )
        .examples(&["optional.unwrap([optional.of(1), optional.none()]) == [1]"]);
        overloads!(lib.function(
            "unwrapOpt",
            "The values of the optionals in a list that have one.",
        );
            member "optional_unwrapOpt" ("list(optional_type(A))") -> "list(A)"
                => Implementation::Unary(unwrap);
        )
        .examples(&["[optional.none(), optional.of(2)].unwrapOpt() == [2]"]);
    }
    lib
}

fn some(v: Value) -> Value {
    Value::Optional(Some(Arc::new(v)))
}

fn of(v: &Value) -> EvalResult {
    Ok(some(v.clone()))
}

fn none(_: &[Value]) -> EvalResult {
    Ok(Value::Optional(None))
}

/// `0001-01-01T00:00:00Z` in Unix seconds: Go's zero `time.Time`.
const GO_ZERO_TIME_UNIX: i64 = -62_135_596_800;

/// cel-go's `traits.Zeroer` (`IsZeroValue` of each type in `common/types/`), which
/// `optional.ofNonZeroValue` asks (`cel/library.go`); a type without it is never zero.
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Uint(u) => *u == 0,
        Value::Double(d) => *d == 0.0,
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        // The interpreter converts JSON read in place before a function sees it.
        Value::Json(_) => is_zero(&v.clone().materialize()),
        // A map read lazily (a Kubernetes object) is zero when it has no entries.
        Value::Opaque(o) if o.to_value().is_some() => o.size() == Some(0),
        Value::Duration(d) => d.is_zero(),
        // Go's zero `time.Time` (`Timestamp.IsZeroValue` is `t.IsZero()`): the first instant of
        // year 1 UTC, not the Unix epoch.
        Value::Timestamp(t) => {
            t.timestamp() == GO_ZERO_TIME_UNIX && t.timestamp_subsec_nanos() == 0
        }
        // cel-go's optionals, types and the Kubernetes library types implement no `Zeroer`.
        Value::Optional(_) | Value::Type(_) | Value::Opaque(_) => false,
    }
}

fn of_non_zero_value(v: &Value) -> EvalResult {
    Ok(if is_zero(v) {
        Value::Optional(None)
    } else {
        some(v.clone())
    })
}

fn value(o: &Value) -> EvalResult {
    match o {
        Value::Optional(Some(v)) => Ok((**v).clone()),
        Value::Optional(None) => Err(EvalError::new("optional.none() dereference")),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn has_value(o: &Value) -> EvalResult {
    match o {
        Value::Optional(v) => Ok(Value::Bool(v.is_some())),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `or` with both sides evaluated (the interpreter short-circuits it when it can).
fn or(a: &Value, b: &Value) -> EvalResult {
    match (a, b) {
        (Value::Optional(Some(_)), _) => Ok(a.clone()),
        (Value::Optional(None), Value::Optional(_)) => Ok(b.clone()),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `orValue` with both sides evaluated (the interpreter short-circuits it when it can).
fn or_value(a: &Value, b: &Value) -> EvalResult {
    match a {
        Value::Optional(Some(v)) => Ok((**v).clone()),
        Value::Optional(None) => Ok(b.clone()),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// What an optional qualifier costs (`a.?f`, `a[?k]`, and an index through an optional):
/// cel-go applies it with `QualifyIfPresent` and charges it only when the field or element
/// is there (`interpreter/interpretable.go`, `evalWatchConstQual.QualifyIfPresent` and
/// `evalWatchAttrQual.QualifyIfPresent` observe only a present value; `attributes.go`
/// `applyQualifiers` does not apply qualifiers to `optional.none()`): 1 for a value, 0 for
/// none or an error.
fn present_qualifier_cost(_: &[Value], result: Option<&Value>) -> u64 {
    u64::from(matches!(result, Some(Value::Optional(Some(_)))))
}

/// `a.?f`.
fn select_optional_field(target: &Value, field: &Value) -> EvalResult {
    let Value::String(f) = field else {
        return Err(EvalError::no_such_overload());
    };
    match target {
        Value::Optional(None) => Ok(Value::Optional(None)),
        Value::Optional(Some(inner)) => select_optional_field(inner, field),
        Value::Map(m) => Ok(match m.get_str(f) {
            Some(v) => some(v.clone()),
            None => Value::Optional(None),
        }),
        // A list takes only numeric indexes: a field name is an unsupported index.
        Value::List(_) => index_list(target, field),
        // A value with fields computed on demand (a Kubernetes object read lazily, a typed
        // object): its field, converted as it is read; none when absent.
        Value::Opaque(o) => match o.field(f) {
            Some(v) => v.map(some),
            None => Ok(Value::Optional(None)),
        },
        // Any other present value has no fields: cel-go's `refQualify`
        // (`interpreter/attributes.go`) answers a presence-tested qualifier on a value that
        // is neither a map, a list nor an indexer with "not present", so `x.?f` is
        // `optional.none()` rather than an error.
        _ => Ok(Value::Optional(None)),
    }
}

/// `a[?k]` and `optional[k]`: absent elements give `optional.none()`.
fn optional_index(target: &Value, key: &Value) -> EvalResult {
    match target {
        Value::Optional(None) => Ok(Value::Optional(None)),
        Value::Optional(Some(inner)) => optional_index(inner, key),
        Value::List(l) => {
            let in_range = match key {
                Value::Int(i) => usize::try_from(*i).is_ok_and(|i| i < l.len()),
                Value::Uint(u) => usize::try_from(*u).is_ok_and(|u| u < l.len()),
                Value::Double(d) => d.fract() == 0.0 && *d >= 0.0 && (*d as usize) < l.len(),
                _ => return index_list(target, key),
            };
            if in_range {
                index_list(target, key).map(some)
            } else {
                Ok(Value::Optional(None))
            }
        }
        Value::Map(m) => match m.get(key) {
            Ok(Some(v)) => Ok(some(v.clone())),
            Ok(None) => Ok(Value::Optional(None)),
            Err(()) => index_map(target, key),
        },
        _ => Err(EvalError::no_such_overload()),
    }
}

fn first(l: &Value) -> EvalResult {
    match l {
        Value::List(items) => Ok(Value::Optional(items.first().cloned().map(Arc::new))),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn last(l: &Value) -> EvalResult {
    match l {
        Value::List(items) => Ok(Value::Optional(items.last().cloned().map(Arc::new))),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn unwrap(l: &Value) -> EvalResult {
    let Value::List(items) = l else {
        return Err(EvalError::no_such_overload());
    };
    let mut out = Vec::with_capacity(items.len());
    for v in items.iter() {
        match v {
            Value::Optional(Some(inner)) => out.push((**inner).clone()),
            Value::Optional(None) => {}
            other => return Err(EvalError::new(format!("value {other} is not optional"))),
        }
    }
    Ok(Value::list(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_values_give_none() {
        for v in [
            Value::Int(0),
            Value::from(""),
            Value::Null,
            Value::Bool(false),
        ] {
            assert_eq!(of_non_zero_value(&v), Ok(Value::Optional(None)));
        }
        assert_eq!(of_non_zero_value(&Value::Int(1)), Ok(some(Value::Int(1))));
    }

    #[test]
    fn none_dereference_is_an_error() {
        assert_eq!(
            value(&Value::Optional(None)),
            Err(EvalError::new("optional.none() dereference"))
        );
    }

    #[test]
    fn optional_index_is_none_out_of_range() {
        let l = Value::list(vec![Value::Int(1)]);
        assert_eq!(
            optional_index(&l, &Value::Int(3)),
            Ok(Value::Optional(None))
        );
        assert_eq!(optional_index(&l, &Value::Int(0)), Ok(some(Value::Int(1))));
        assert_eq!(
            optional_index(&l, &Value::Int(-1)),
            Ok(Value::Optional(None))
        );
    }
}
