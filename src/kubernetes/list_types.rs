//! `x-kubernetes-list-type: set` and `map` semantics for `==` and `+` (the left operand
//! decides), registered with [`crate::value::list_kinds`].

use std::collections::{HashMap, HashSet};

use crate::value::Value;
use crate::value::list_kinds::ListSemantics;

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

/// `x-kubernetes-list-type: set`.
#[derive(Debug)]
pub struct SetList;

impl ListSemantics for SetList {
    fn equals(&self, left: &[Value], right: &[Value]) -> bool {
        if left.len() != right.len() {
            return false;
        }
        let Some(members) = left.iter().map(raw_key).collect::<Option<HashSet<_>>>() else {
            // Kubernetes: "listSet operations are only supported on lists of scalar values".
            return false;
        };
        right
            .iter()
            .all(|v| raw_key(v).is_some_and(|k| members.contains(&k)))
    }

    fn concat(&self, left: &[Value], right: &[Value]) -> Vec<Value> {
        let mut members: HashSet<RawKey> = left.iter().filter_map(raw_key).collect();
        let mut out = left.to_vec();
        for v in right {
            match raw_key(v) {
                Some(k) if members.contains(&k) => {}
                Some(k) => {
                    members.insert(k);
                    out.push(v.clone());
                }
                None => out.push(v.clone()),
            }
        }
        out
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
                _ => None,
            })
            .collect()
    }
}

impl ListSemantics for MapList {
    fn equals(&self, left: &[Value], right: &[Value]) -> bool {
        if left.len() != right.len() {
            return false;
        }
        let by_key: HashMap<_, &Value> = left.iter().map(|v| (self.key_of(v), v)).collect();
        right.iter().all(|v| {
            by_key
                .get(&self.key_of(v))
                .is_some_and(|mine| mine.cel_eq(v))
        })
    }

    fn concat(&self, left: &[Value], right: &[Value]) -> Vec<Value> {
        let mut out = left.to_vec();
        let mut index: HashMap<_, usize> = left
            .iter()
            .enumerate()
            .map(|(i, v)| (self.key_of(v), i))
            .collect();
        for v in right {
            let k = self.key_of(v);
            match index.get(&k) {
                Some(&i) => out[i] = v.clone(),
                None => {
                    index.insert(k, out.len());
                    out.push(v.clone());
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Key, Map};

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
        assert!(SetList.equals(&l, &[s("c"), s("b"), s("a")]));
        assert!(!SetList.equals(&l, &[s("c"), s("b")]));
        assert!(!SetList.equals(&[Value::Int(1)], &[Value::Double(1.0)]));
        assert_eq!(
            SetList.concat(&l, &[s("d"), s("a"), s("d")]),
            vec![s("a"), s("b"), s("c"), s("d")]
        );
    }

    #[test]
    fn map_lists_match_by_key_and_replace_in_place() {
        let ml = MapList {
            keys: vec!["name".into()],
        };
        let l = [item("a", 1), item("b", 2)];
        assert!(ml.equals(&l, &[item("b", 2), item("a", 1)]));
        assert!(!ml.equals(&l, &[item("b", 2), item("a", 3)]));
        assert_eq!(
            ml.concat(&l, &[item("c", 3), item("a", 9)]),
            vec![item("a", 9), item("b", 2), item("c", 3)]
        );
    }

    #[test]
    fn semantics_apply_to_the_left_operand_inside_a_scope_only() {
        use crate::value::list_kinds::ListKinds;
        use std::sync::Arc;
        let kinds = Arc::new(ListKinds::default());
        let set = Arc::new(vec![s("a"), s("b")]);
        kinds.register(&set, Arc::new(SetList));
        let set = Value::List(set);
        let plain = Value::list(vec![s("b"), s("a")]);
        kinds.scope(|| {
            assert!(set.cel_eq(&plain));
            assert!(!plain.cel_eq(&set));
            let union = crate::value::list_kinds::concat(
                match &set {
                    Value::List(l) => l,
                    _ => unreachable!(),
                },
                &[s("c"), s("a")],
            );
            assert_eq!(union, Some(Value::list(vec![s("a"), s("b"), s("c")])));
        });
        assert!(!set.cel_eq(&plain));
    }
}
