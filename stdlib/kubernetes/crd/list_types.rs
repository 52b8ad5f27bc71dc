//! `x-kubernetes-list-type: set` and `map` semantics for `==` and `+` (the left operand
//! decides), carried by the list values themselves ([`kcel::List::semantics`]), as
//! Kubernetes' `unstructuredSetList` and `unstructuredMapList` (apiserver
//! `pkg/cel/common/valuesunstructured.go`, `valuesreflect.go`).

use std::collections::{HashMap, HashSet};

use kcel::EvalError;
use kcel::{ListSemantics, Value};

/// A scalar as a hashable key: values of different types never match (int `1` and double
/// `1.0` are different set members).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum RawKey {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(u64),
    String(String),
    Bytes(Vec<u8>),
    Timestamp(i64, u32),
    Duration(i64, i32),
}

fn raw_key(v: &Value) -> Option<RawKey> {
    Some(match v {
        Value::Null => RawKey::Null,
        Value::Bool(b) => RawKey::Bool(*b),
        Value::Int(i) => RawKey::Int(*i),
        Value::Uint(u) => RawKey::Uint(*u),
        Value::Double(d) => RawKey::Double(if *d == 0.0 { 0 } else { d.to_bits() }),
        Value::String(s) => RawKey::String(s.to_string()),
        Value::Bytes(b) => RawKey::Bytes(b.to_vec()),
        Value::Timestamp(t) => RawKey::Timestamp(t.timestamp(), t.timestamp_subsec_nanos()),
        Value::Duration(d) => RawKey::Duration(d.num_seconds(), d.subsec_nanos()),
        _ => return None,
    })
}

/// Kubernetes' error for set operations on lists of lists or maps.
pub const NON_SCALAR_SET: &str = "listSet operations are only supported on lists of scalar values";

/// A set member's key (Kubernetes' `setElementKey`): lists and maps are an error; other
/// values that are not scalars (optionals, library types) have no key and match nothing.
fn set_key(v: &Value) -> Result<Option<RawKey>, EvalError> {
    match v {
        Value::List(_) | Value::Map(_) | Value::Json(_) => Err(EvalError::new(NON_SCALAR_SET)),
        // A map read lazily (a Kubernetes object).
        Value::Opaque(o) if o.to_value().is_some() => Err(EvalError::new(NON_SCALAR_SET)),
        other => Ok(raw_key(other)),
    }
}

/// Kubernetes' error for an index outside an unstructured list (apiserver
/// `pkg/cel/common/values.go`, `unstructuredList.Get`).
fn out_of_bounds(index: i64) -> EvalError {
    EvalError::new(format!("index out of bounds: {index}"))
}

/// `x-kubernetes-list-type: atomic` (or unset): element-wise equality and plain
/// concatenation as any CEL list, only an index outside the list is Kubernetes' error.
#[derive(Debug)]
pub struct AtomicList;

impl ListSemantics for AtomicList {
    fn equals(&self, left: &[Value], right: &[Value]) -> Result<bool, EvalError> {
        Ok(left.len() == right.len()
            && kcel::library::budget::visit(right.len())
            && left.iter().zip(right).all(|(x, y)| x.cel_eq(y)))
    }

    fn concat(&self, left: &[Value], right: &[Value]) -> Result<Vec<Value>, EvalError> {
        Ok(left.iter().chain(right).cloned().collect())
    }

    fn index_out_of_range(&self, index: i64, _: usize) -> EvalError {
        out_of_bounds(index)
    }
}

/// `x-kubernetes-list-type: set`.
#[derive(Debug)]
pub struct SetList;

impl ListSemantics for SetList {
    /// The sizes first, then the left operand's members (an error when one is not a
    /// scalar), then each right item in order (an error when it is not a scalar, `false` at
    /// the first that is not a member); equal when every member was seen.
    fn equals(&self, left: &[Value], right: &[Value]) -> Result<bool, EvalError> {
        if left.len() != right.len() {
            return Ok(false);
        }
        let mut members = HashSet::with_capacity(left.len());
        for v in left {
            if let Some(k) = set_key(v)? {
                members.insert(k);
            }
        }
        let mut seen = HashSet::with_capacity(members.len());
        for v in right {
            match set_key(v)? {
                Some(k) if members.contains(&k) => {
                    seen.insert(k);
                }
                _ => return Ok(false),
            }
        }
        Ok(seen.len() == members.len())
    }

    /// A union: the left items in place, then the right items not yet present, in order.
    fn concat(&self, left: &[Value], right: &[Value]) -> Result<Vec<Value>, EvalError> {
        let mut members = HashSet::with_capacity(left.len() + right.len());
        for v in left {
            if let Some(k) = set_key(v)? {
                members.insert(k);
            }
        }
        let mut out = left.to_vec();
        for v in right {
            let new = match set_key(v)? {
                Some(k) => members.insert(k),
                None => true,
            };
            if new {
                out.push(v.clone());
            }
        }
        Ok(out)
    }

    fn index_out_of_range(&self, index: i64, _: usize) -> EvalError {
        out_of_bounds(index)
    }
}

/// `x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys` (escaped field names; a
/// missing key field is a null key, defaults play no part here).
#[derive(Debug)]
pub struct MapList {
    pub keys: Vec<String>,
}

impl MapList {
    fn key_of(&self, v: &Value) -> Vec<Option<RawKey>> {
        self.keys
            .iter()
            .map(|k| match v {
                Value::Map(m) => m.get_str(k).and_then(raw_key),
                // A lazily read object: its key field, converted.
                Value::Opaque(o) => o.field(k).and_then(Result::ok).as_ref().and_then(raw_key),
                _ => None,
            })
            .collect()
    }
}

impl ListSemantics for MapList {
    /// The sizes first, then each right item in order: `false` at the first whose key the
    /// left operand lacks or whose item differs; equal when every left key was seen.
    fn equals(&self, left: &[Value], right: &[Value]) -> Result<bool, EvalError> {
        if left.len() != right.len() {
            return Ok(false);
        }
        let by_key: HashMap<_, &Value> = left.iter().map(|v| (self.key_of(v), v)).collect();
        let mut seen = HashSet::with_capacity(by_key.len());
        for v in right {
            let k = self.key_of(v);
            match by_key.get(&k) {
                Some(mine) if mine.cel_eq(v) => {
                    seen.insert(k);
                }
                _ => return Ok(false),
            }
        }
        Ok(seen.len() == by_key.len())
    }

    /// A merge: right items replace the left items with their key in place; the others
    /// are appended in order (Kubernetes' `addToMapList` indexes the left items only).
    fn concat(&self, left: &[Value], right: &[Value]) -> Result<Vec<Value>, EvalError> {
        let mut out = left.to_vec();
        let index: HashMap<_, usize> = left
            .iter()
            .enumerate()
            .map(|(i, v)| (self.key_of(v), i))
            .collect();
        for v in right {
            match index.get(&self.key_of(v)) {
                Some(&i) => out[i] = v.clone(),
                None => out.push(v.clone()),
            }
        }
        Ok(out)
    }

    fn index_out_of_range(&self, index: i64, _: usize) -> EvalError {
        out_of_bounds(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcel::{Key, Map};

    fn s(x: &str) -> Value {
        Value::string(x)
    }

    fn item(name: &str, v: i64) -> Value {
        let m: Map = [
            (Key::from("name"), s(name)),
            (Key::from("v"), Value::Int(v)),
        ]
        .into_iter()
        .collect();
        Value::Map(std::sync::Arc::new(m))
    }

    #[test]
    fn sets_ignore_order_and_merge_as_union() {
        let l = [s("a"), s("b"), s("c")];
        assert_eq!(SetList.equals(&l, &[s("c"), s("b"), s("a")]), Ok(true));
        assert_eq!(SetList.equals(&l, &[s("c"), s("b")]), Ok(false));
        assert_eq!(SetList.equals(&l, &[s("c"), s("b"), s("b")]), Ok(false));
        assert_eq!(
            SetList.equals(&[s("a"), s("a")], &[s("a"), s("a")]),
            Ok(true)
        );
        assert_eq!(
            SetList.equals(&[Value::Int(1)], &[Value::Double(1.0)]),
            Ok(false)
        );
        assert_eq!(
            SetList.concat(&l, &[s("d"), s("a"), s("d")]),
            Ok(vec![s("a"), s("b"), s("c"), s("d")])
        );
    }

    #[test]
    fn sets_of_lists_or_maps_are_errors() {
        let objs = [item("a", 1)];
        let err = Err(EvalError::new(NON_SCALAR_SET));
        assert_eq!(SetList.equals(&objs, &objs), err);
        assert_eq!(
            SetList.concat(&[s("a")], &objs),
            Err(EvalError::new(NON_SCALAR_SET))
        );
        // The sizes are compared first; a right item that is no member stops the scan.
        assert_eq!(SetList.equals(&objs, &[]), Ok(false));
        assert_eq!(
            SetList.equals(&[s("a"), s("b")], &[s("c"), item("a", 1)]),
            Ok(false)
        );
        assert_eq!(
            SetList.equals(&[s("a"), s("b")], &[s("a"), item("a", 1)]),
            err
        );
    }

    #[test]
    fn map_lists_match_by_key_and_replace_in_place() {
        let ml = MapList {
            keys: vec!["name".into()],
        };
        let l = [item("a", 1), item("b", 2)];
        assert_eq!(ml.equals(&l, &[item("b", 2), item("a", 1)]), Ok(true));
        assert_eq!(ml.equals(&l, &[item("b", 2), item("a", 3)]), Ok(false));
        assert_eq!(ml.equals(&l, &[item("b", 2), item("b", 2)]), Ok(false));
        assert_eq!(
            ml.concat(&l, &[item("c", 3), item("a", 9), item("c", 4)]),
            Ok(vec![item("a", 9), item("b", 2), item("c", 3), item("c", 4)])
        );
    }

    #[test]
    fn semantics_travel_with_the_left_operand() {
        use kcel::List;
        use kcel::library::standard::{add_list, equals};
        use std::sync::Arc;
        let set = Value::List(Arc::new(List::with_semantics(
            vec![s("a"), s("b")],
            Arc::new(SetList),
        )));
        let plain = Value::list(vec![s("b"), s("a")]);
        assert_eq!(equals(&set, &plain), Ok(Value::Bool(true)));
        assert_eq!(equals(&plain, &set), Ok(Value::Bool(false)));
        let union = add_list(&set, &Value::list(vec![s("c"), s("a")])).unwrap();
        assert_eq!(union, Value::list(vec![s("a"), s("b"), s("c")]));
        assert_eq!(
            equals(&union, &Value::list(vec![s("c"), s("b"), s("a")])),
            Ok(Value::Bool(true))
        );
        let objs = Value::List(Arc::new(List::with_semantics(
            vec![item("a", 1)],
            Arc::new(SetList),
        )));
        assert_eq!(
            equals(&objs, &objs),
            Err(kcel::EvalError::new(NON_SCALAR_SET))
        );
        assert!(!objs.cel_eq(&objs));
    }
}
