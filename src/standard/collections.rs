//! `in`, indexing and `size()` for lists, maps, strings and bytes.

use std::sync::Arc;

use super::{TWO_POW_63, go_display};
use crate::__overloads as overloads;
use crate::cost::CallCost;
use crate::error::EvalError;
use crate::registry::{CallShape, Implementation, Library, Specialization};
use crate::syntax::ast::op;
use crate::value::EvalResult;
use crate::value::{Key, Value};

/// Declares `@in`, `_[_]` and `size`.
pub fn declare(lib: &mut Library) {
    overloads!(lib.function(
        op::IN,
        "Tests whether a value is an element of a list, or a key of a map.",
    );
        global "in_list" ("A", "list(A)") -> "bool"
            => Implementation::Binary(in_list),
            specialization: Specialization::ConstantListMembership, cost: CallCost::SizeOfSecond;
        global "in_map" ("A", "map(A, B)") -> "bool"
            => Implementation::Binary(in_map), specialization: Specialization::Operator;
    )
    .examples(&[
        "2 in [1, 2, 3]",
        "!('a' in ['b', 'c'])",
        "dyn(2u) in [1, 2]",
        "'key1' in {'key1': 'value1', 'key2': 'value2'}",
        "!(3 in {1: 'one', 2: 'two'})",
        "dyn(1.0) in {1: 'one'}",
    ]);

    overloads!(lib.function(
        op::INDEX,
        "Selects a list element by position, or a map value by key.",
    );
        global "index_list" ("list(A)", "int") -> "A"
            => Implementation::Binary(index_list), specialization: Specialization::Operator,
            shape: CallShape::Index;
        global "index_map" ("map(A, B)", "A") -> "B"
            => Implementation::Binary(index_map), specialization: Specialization::Operator,
            shape: CallShape::Index;
    )
    .examples(&[
        "[1, 2, 3][1] == 2",
        "{'key': 'value'}['key'] == 'value'",
        "{1: 'one'}[dyn(1u)] == 'one'",
    ]);

    overloads!(lib.function(
        "size",
        "The number of elements of a list or map, of code points in a string, or of bytes.",
    );
        global "size_string" ("string") -> "int"
            => Implementation::Unary(size), specialization: Specialization::Size;
        member "string_size" ("string") -> "int"
            => Implementation::Unary(size), specialization: Specialization::Size;
        global "size_bytes" ("bytes") -> "int"
            => Implementation::Unary(size), specialization: Specialization::Size;
        member "bytes_size" ("bytes") -> "int"
            => Implementation::Unary(size), specialization: Specialization::Size;
        global "size_list" ("list(A)") -> "int"
            => Implementation::Unary(size), specialization: Specialization::Size;
        member "list_size" ("list(A)") -> "int"
            => Implementation::Unary(size), specialization: Specialization::Size;
        global "size_map" ("map(A, B)") -> "int"
            => Implementation::Unary(size), specialization: Specialization::Size;
        member "map_size" ("map(A, B)") -> "int"
            => Implementation::Unary(size), specialization: Specialization::Size;
    )
    .examples(&[
        "size('hello') == 5",
        "'héllo'.size() == 5",
        "size(b'123') == 3",
        "b'123'.size() == 3",
        "size([1, 2, 3]) == 3",
        "[1, 2, 3].size() == 3",
        "size({'a': 1, 'b': 2}) == 2",
        "{'a': 1, 'b': 2}.size() == 2",
    ]);
}

/// `x in list`: whether some element equals `x` (heterogeneous equality).
pub fn in_list(x: &Value, list: &Value) -> EvalResult {
    match list {
        Value::List(items) => Ok(Value::Bool(items.iter().any(|v| v.cel_eq(x)))),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `k in map`: whether the map has the key (numeric keys match across int, uint and double).
pub fn in_map(k: &Value, map: &Value) -> EvalResult {
    match map {
        Value::Map(m) => Ok(Value::Bool(matches!(m.get(k), Ok(Some(_))))),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `list[i]` for an int, uint or integral double index.
pub fn index_list(list: &Value, index: &Value) -> EvalResult {
    let Value::List(items) = list else {
        return Err(EvalError::no_such_overload());
    };
    let i = list_index(index)?;
    usize::try_from(i)
        .ok()
        .and_then(|i| items.get(i))
        .cloned()
        .ok_or_else(|| items.index_error(i))
}

/// Converts a list index as cel-go does: ints as they are, uints and doubles only when the
/// value is an int without loss.
fn list_index(index: &Value) -> Result<i64, EvalError> {
    match index {
        Value::Int(i) => Ok(*i),
        Value::Uint(u) => i64::try_from(*u).map_err(|_| unsupported_index(index)),
        Value::Double(d) => {
            let d = *d;
            // Exclusive bounds as in cel-go's doubleToInt64Lossless.
            if d > -TWO_POW_63 && d < TWO_POW_63 && d.fract() == 0.0 {
                Ok(d as i64)
            } else {
                Err(unsupported_index(index))
            }
        }
        other => Err(EvalError::new(format!(
            "unsupported index type '{}' in list",
            other.type_name()
        ))),
    }
}

fn unsupported_index(index: &Value) -> EvalError {
    EvalError::new(format!(
        "unsupported index value {} in list",
        go_display(index)
    ))
}

/// `map[key]`; a missing key (or a key of a type no map can hold) is `no such key: <key>`.
pub fn index_map(map: &Value, key: &Value) -> EvalResult {
    match map {
        Value::Map(m) => match m.get(key) {
            Ok(Some(v)) => Ok(v.clone()),
            _ => Err(EvalError::no_such_key(go_display(key))),
        },
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `size(x)` / `x.size()`: code points of a string, bytes, list elements or map entries.
pub fn size(v: &Value) -> EvalResult {
    let n = match v {
        Value::String(s) => crate::cost::code_points(s) as usize,
        Value::Bytes(b) => b.len(),
        Value::List(l) => l.len(),
        Value::Map(m) => m.len(),
        _ => return Err(EvalError::no_such_overload()),
    };
    // Lengths of in-memory values always fit in i64.
    Ok(Value::Int(n as i64))
}

/// Inserts `k: v` into `map` (copying it unless it is uniquely owned).
pub fn map_insert(map: Value, k: &Value, v: Value) -> EvalResult {
    let Value::Map(mut m) = map else {
        return Err(EvalError::no_such_overload());
    };
    let key = Key::from_value(k).ok_or_else(|| EvalError::new("unsupported key type"))?;
    // An entry (key and value); a shared map is copied whole first.
    let copied = if Arc::strong_count(&m) > 1 {
        m.len()
    } else {
        0
    };
    crate::budget::reserve_values(2 * (copied + 1))?;
    if !Arc::make_mut(&mut m).insert_new(key, v) {
        // cel-go's `mutableMap.Insert` (`common/types/map.go`) formats the key with Go's
        // `%v`: numbers without a `u` suffix, strings without quotes.
        let text = match k {
            Value::Uint(u) => u.to_string(),
            Value::String(s) => s.to_string(),
            _ => k.to_string(),
        };
        return Err(EvalError::new(format!(
            "insert failed: key {text} already exists"
        )));
    }
    Ok(Value::Map(m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Key, Map};

    fn list() -> Value {
        Value::from(vec![Value::Int(7), Value::Int(8), Value::Int(9)])
    }

    fn map() -> Value {
        let m: Map = [
            (Key::Int(0), Value::Int(1)),
            (Key::Uint(2), Value::Int(2)),
            (Key::from("k"), Value::from("v")),
        ]
        .into_iter()
        .collect();
        Value::from(m)
    }

    #[test]
    fn membership() {
        assert_eq!(in_list(&Value::Uint(8), &list()), Ok(Value::Bool(true)));
        assert_eq!(in_list(&Value::Double(9.0), &list()), Ok(Value::Bool(true)));
        assert_eq!(in_list(&Value::from("7"), &list()), Ok(Value::Bool(false)));
        assert_eq!(in_map(&Value::Int(2), &map()), Ok(Value::Bool(true)));
        assert_eq!(in_map(&Value::Double(0.0), &map()), Ok(Value::Bool(true)));
        assert_eq!(in_map(&Value::Double(0.5), &map()), Ok(Value::Bool(false)));
        assert_eq!(in_map(&Value::Null, &map()), Ok(Value::Bool(false)));
        assert_eq!(
            in_list(&Value::Int(1), &map()),
            Err(EvalError::no_such_overload())
        );
    }

    #[test]
    fn list_indexing() {
        assert_eq!(index_list(&list(), &Value::Int(0)), Ok(Value::Int(7)));
        assert_eq!(index_list(&list(), &Value::Uint(2)), Ok(Value::Int(9)));
        assert_eq!(index_list(&list(), &Value::Double(1.0)), Ok(Value::Int(8)));
        assert_eq!(
            index_list(&list(), &Value::Int(3)),
            Err(EvalError::new("index '3' out of range in list size '3'"))
        );
        assert_eq!(
            index_list(&list(), &Value::Int(-1)),
            Err(EvalError::new("index '-1' out of range in list size '3'"))
        );
        assert_eq!(
            index_list(&list(), &Value::Double(0.1)),
            Err(EvalError::new("unsupported index value 0.1 in list"))
        );
        assert_eq!(
            index_list(&list(), &Value::Uint(u64::MAX)),
            Err(EvalError::new(
                "unsupported index value 18446744073709551615 in list"
            ))
        );
        assert_eq!(
            index_list(&list(), &Value::from("0")),
            Err(EvalError::new("unsupported index type 'string' in list"))
        );
        assert_eq!(
            index_list(&map(), &Value::Int(0)),
            Err(EvalError::no_such_overload())
        );
    }

    #[test]
    fn map_indexing() {
        assert_eq!(index_map(&map(), &Value::Uint(0)), Ok(Value::Int(1)));
        assert_eq!(index_map(&map(), &Value::Double(2.0)), Ok(Value::Int(2)));
        assert_eq!(index_map(&map(), &Value::from("k")), Ok(Value::from("v")));
        assert_eq!(
            index_map(&map(), &Value::Int(1)),
            Err(EvalError::no_such_key("1"))
        );
        assert_eq!(
            index_map(&map(), &Value::from("name")),
            Err(EvalError::no_such_key("name"))
        );
        assert_eq!(
            index_map(&map(), &Value::Double(3.1)),
            Err(EvalError::no_such_key("3.1"))
        );
        assert_eq!(
            index_map(&map(), &Value::Bytes(b"".as_slice().into())),
            Err(EvalError::no_such_key("[]"))
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(size(&Value::from("πέντε")), Ok(Value::Int(5)));
        assert_eq!(
            size(&Value::Bytes(b"abc".as_slice().into())),
            Ok(Value::Int(3))
        );
        assert_eq!(size(&list()), Ok(Value::Int(3)));
        assert_eq!(size(&map()), Ok(Value::Int(3)));
        assert_eq!(size(&Value::Int(3)), Err(EvalError::no_such_overload()));
    }
}
