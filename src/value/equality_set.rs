//! Membership under CEL equality in time proportional to the values, not to their product:
//! for `distinct()` and the `sets` functions, which cel-go implements (and charges) as a
//! comparison of every pair.
//!
//! Values are grouped by a hash that agrees with [`Value::cel_eq`] (equal values hash
//! alike), so a lookup compares a value only with the members of its group. The hash reads
//! a bounded part of a value — numbers by their value as a double (so `1`, `1u` and `1.0`
//! meet; CEL compares int and double through that conversion), strings and bytes up to
//! [`TEXT_BYTES`] at each end, lists element by element in order for at most [`FUEL`]
//! values, maps by their size and (up to [`MAP_KEYS`] entries) their keys, other values by
//! kind — so hashing costs the same whatever a value's size, and values whose parts are
//! shared (a list doubled thirty times) hash in a few steps.
//!
//! Values whose equality is not element-wise cannot be hashed that way: a list with
//! Kubernetes' list-type semantics (`x-kubernetes-list-type: set` compares as a set when it
//! is the left operand). Such values go to a group that every lookup also compares with,
//! and a lookup of such a value compares with every member: the answer is always what
//! comparing with each member in turn gives. The comparisons a lookup makes count against
//! the evaluation's visit budget ([`crate::budget::visit`]).

use std::hash::{BuildHasher, Hash, Hasher};

use foldhash::fast::FixedState;
use hashbrown::HashMap;
use smallvec::SmallVec;

use super::{Key, Value};

/// How many values of a list (at any depth) the hash reads.
pub const FUEL: u32 = 32;

/// How many bytes of a string or bytes value the hash reads at each end.
pub const TEXT_BYTES: usize = 128;

/// Maps with at most this many entries hash their keys too.
pub const MAP_KEYS: usize = 8;

/// Sets of at most this many members are searched in turn, without hashing.
const SMALL: usize = 8;

/// Values kept for membership tests under CEL equality (see the module documentation).
#[derive(Default)]
pub struct EqualitySet<'a> {
    members: Vec<&'a Value>,
    /// The members by hash, once there are more than [`SMALL`].
    groups: HashMap<u64, SmallVec<[u32; 1]>, FixedState>,
    /// Members with no hash: compared with every lookup.
    unhashed: Vec<u32>,
}

impl<'a> EqualitySet<'a> {
    /// An empty set with room for `n` members.
    pub fn with_capacity(n: usize) -> EqualitySet<'a> {
        EqualitySet {
            members: Vec::with_capacity(n),
            groups: HashMap::default(),
            unhashed: Vec::new(),
        }
    }

    /// A set of the values of `items`.
    pub fn of(items: &'a [Value]) -> EqualitySet<'a> {
        let mut set = EqualitySet::with_capacity(items.len());
        for v in items {
            set.insert(v);
        }
        set
    }

    /// Adds `v` (also when an equal value is a member already).
    pub fn insert(&mut self, v: &'a Value) {
        self.members.push(v);
        if self.members.len() > SMALL {
            if self.members.len() == SMALL + 1 {
                self.groups.reserve(self.members.capacity());
                for i in 0..SMALL {
                    self.group(i as u32);
                }
            }
            self.group(self.members.len() as u32 - 1);
        }
    }

    fn group(&mut self, index: u32) {
        match equality_hash(self.members[index as usize]) {
            Some(h) => self.groups.entry(h).or_default().push(index),
            None => self.unhashed.push(index),
        }
    }

    /// Whether some member `m` has `m == v` (the member on the left, as when each member is
    /// compared in turn). Past the evaluation's visit budget the answer is `false` and the
    /// evaluation fails.
    pub fn contains(&self, v: &Value) -> bool {
        let hash = if self.members.len() > SMALL {
            equality_hash(v)
        } else {
            None
        };
        let Some(h) = hash else {
            return crate::budget::visit(self.members.len())
                && self.members.iter().any(|m| m.cel_eq(v));
        };
        let group = self.groups.get(&h).map_or(&[][..], |g| &g[..]);
        crate::budget::visit(group.len() + self.unhashed.len())
            && group
                .iter()
                .chain(&self.unhashed)
                .any(|&i| self.members[i as usize].cel_eq(v))
    }
}

/// A hash of `v` that equal values share (`a.cel_eq(b)` implies the same hash), reading at
/// most `FUEL` (32) values; `None` for a value whose equality is not element-wise (it holds
/// a list with list-type semantics among the values read).
pub fn equality_hash(v: &Value) -> Option<u64> {
    let mut hasher = FixedState::default().build_hasher();
    let mut fuel = FUEL;
    feed(v, &mut hasher, &mut fuel)?;
    Some(hasher.finish())
}

fn feed(v: &Value, h: &mut impl Hasher, fuel: &mut u32) -> Option<()> {
    if *fuel == 0 {
        return Some(());
    }
    *fuel -= 1;
    match v {
        Value::Null => h.write_u8(0),
        Value::Bool(b) => {
            h.write_u8(1);
            b.hash(h);
        }
        Value::Int(i) => number(*i as f64, h),
        Value::Uint(u) => number(*u as f64, h),
        Value::Double(d) => number(*d, h),
        Value::String(s) => text(3, s.as_bytes(), h),
        Value::Bytes(b) => text(4, b, h),
        Value::List(list) => {
            if list.semantics.is_some() {
                return None;
            }
            h.write_u8(5);
            h.write_usize(list.len());
            for x in list.iter() {
                if *fuel == 0 {
                    break;
                }
                feed(x, h, fuel)?;
            }
        }
        Value::Map(m) => {
            h.write_u8(6);
            h.write_usize(m.len());
            if m.len() <= MAP_KEYS {
                // Order-independent: equal maps may hold their keys in another order.
                let keys = m
                    .keys()
                    .map(key_hash)
                    .fold(0u64, |sum, k| sum.wrapping_add(k));
                h.write_u64(keys);
            }
        }
        Value::Timestamp(t) => {
            h.write_u8(7);
            // The instant: offsets play no part in equality.
            (**t).hash(h);
        }
        Value::Duration(d) => {
            h.write_u8(8);
            d.hash(h);
        }
        Value::Type(t) => {
            h.write_u8(9);
            t.name().hash(h);
        }
        Value::Optional(None) => h.write_u8(10),
        Value::Optional(Some(x)) => {
            h.write_u8(11);
            feed(x, h, fuel)?;
        }
        // Opaque values compare by their own rules: one group for all.
        Value::Opaque(_) => h.write_u8(12),
        // Compared as the value it reads as, and hashed so, at the same cost in fuel.
        Value::Json(node) => {
            *fuel += 1;
            return feed(&node.materialize(), h, fuel);
        }
    }
    Some(())
}

/// Numbers by their value as a double, `-0.0` as `0.0`: int and uint compare with double
/// through that conversion, and with each other exactly (so equal ones convert alike).
fn number(d: f64, h: &mut impl Hasher) {
    h.write_u8(2);
    h.write_u64(if d == 0.0 { 0 } else { d.to_bits() });
}

fn text(kind: u8, bytes: &[u8], h: &mut impl Hasher) {
    h.write_u8(kind);
    h.write_usize(bytes.len());
    if bytes.len() <= 2 * TEXT_BYTES {
        h.write(bytes);
    } else {
        h.write(&bytes[..TEXT_BYTES]);
        h.write(&bytes[bytes.len() - TEXT_BYTES..]);
    }
}

fn key_hash(k: &Key) -> u64 {
    let mut h = FixedState::default().build_hasher();
    match k {
        Key::Bool(b) => {
            h.write_u8(1);
            b.hash(&mut h);
        }
        Key::Int(i) => number(*i as f64, &mut h),
        Key::Uint(u) => number(*u as f64, &mut h),
        Key::String(s) => text(3, s.as_bytes(), &mut h),
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{List, ListSemantics};
    use std::sync::Arc;

    fn list(items: Vec<Value>) -> Value {
        Value::list(items)
    }

    #[test]
    fn equal_values_hash_alike() {
        let pairs = [
            (Value::Int(1), Value::Uint(1)),
            (Value::Int(1), Value::Double(1.0)),
            (Value::Double(-0.0), Value::Int(0)),
            (Value::Int(i64::MAX), Value::Double(9.223372036854776e18)),
            (Value::Uint(u64::MAX), Value::Double(1.8446744073709552e19)),
            (
                list(vec![Value::Int(1), Value::from("a")]),
                list(vec![Value::Double(1.0), Value::from("a")]),
            ),
            (
                Value::from(&serde_json::json!({"a": 1, "b": [2]})),
                Value::from(&serde_json::json!({"b": [2], "a": 1})),
            ),
            (
                Value::from("x".repeat(1000).as_str()),
                Value::from("x".repeat(1000).as_str()),
            ),
        ];
        for (a, b) in pairs {
            assert!(a.cel_eq(&b), "{a} == {b}");
            assert_eq!(equality_hash(&a), equality_hash(&b), "{a} and {b}");
        }
    }

    #[derive(Debug)]
    struct AnyOrder;
    impl ListSemantics for AnyOrder {
        fn equals(&self, left: &[Value], right: &[Value]) -> Result<bool, crate::EvalError> {
            Ok(left.len() == right.len() && right.iter().all(|r| left.contains(r)))
        }
        fn concat(&self, _: &[Value], _: &[Value]) -> Result<Vec<Value>, crate::EvalError> {
            unreachable!()
        }
    }

    #[test]
    fn lookups_agree_with_pairwise_comparison() {
        let set_list = Value::List(Arc::new(List::with_semantics(
            vec![Value::Int(2), Value::Int(1)],
            Arc::new(AnyOrder),
        )));
        let members = vec![
            Value::Int(1),
            Value::from("a"),
            set_list.clone(),
            list(vec![Value::Int(3)]),
            Value::Double(f64::NAN),
        ];
        // Past the size searched in turn.
        let members: Vec<Value> = members
            .into_iter()
            .chain((10..30).map(Value::Int))
            .collect();
        let probes = vec![
            Value::Double(1.0),
            Value::Uint(1),
            Value::from("b"),
            list(vec![Value::Int(1), Value::Int(2)]),
            list(vec![Value::Uint(3)]),
            set_list,
            Value::Double(f64::NAN),
            Value::Null,
            Value::Uint(29),
            Value::Double(30.0),
        ];
        let set = EqualitySet::of(&members);
        for p in &probes {
            assert_eq!(set.contains(p), members.iter().any(|m| m.cel_eq(p)), "{p}");
        }
    }

    fn arbitrary() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            (-3i64..3).prop_map(Value::Int),
            (0u64..3).prop_map(Value::Uint),
            prop_oneof![
                Just(0.0),
                Just(-0.0),
                Just(1.0),
                Just(2.5),
                Just(f64::NAN),
                Just(9.223372036854776e18)
            ]
            .prop_map(Value::Double),
            Just(Value::Int(i64::MAX)),
            Just(Value::Null),
            "[ab]{0,2}".prop_map(|s| Value::from(s.as_str())),
        ];
        leaf.prop_recursive(3, 24, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::list),
                prop::collection::vec(("[ab]", inner), 0..3).prop_map(|entries| {
                    let json: serde_json::Map<String, serde_json::Value> = entries
                        .into_iter()
                        .map(|(k, v)| (k, serde_json::Value::from(v.to_string())))
                        .collect();
                    Value::from(&serde_json::Value::Object(json))
                }),
            ]
        })
    }

    proptest::proptest! {
        /// Membership through the groups is what comparing with every member gives.
        #[test]
        fn membership_matches_pairwise_comparison(
            members in proptest::collection::vec(arbitrary(), 0..24),
            probes in proptest::collection::vec(arbitrary(), 0..8),
        ) {
            let set = EqualitySet::of(&members);
            for p in probes.iter().chain(&members) {
                proptest::prop_assert_eq!(set.contains(p), members.iter().any(|m| m.cel_eq(p)));
                for m in &members {
                    if m.cel_eq(p) {
                        proptest::prop_assert_eq!(equality_hash(m), equality_hash(p));
                    }
                }
            }
        }
    }

    #[test]
    fn shared_values_hash_in_few_steps() {
        let mut v = list(vec![Value::Int(1), Value::Int(1)]);
        for _ in 0..60 {
            v = list(vec![v.clone(), v]);
        }
        assert!(equality_hash(&v).is_some());
    }
}
