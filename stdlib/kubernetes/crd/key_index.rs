//! Items of a long list grouped by a key, in little memory: a hash and an index per item
//! (16 bytes), sorted by hash then index; only the items of a group of equal hashes
//! (repeated keys, or a rare collision) have their keys made again and compared exactly.
//! Used by the list-type invariants (repeated items of sets and map lists) and by the rules'
//! walk (an old map-list item by its key, for `oldSelf` and ratcheting), where holding every
//! item's key took about 150 bytes an item and a scan per item took quadratic time.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher, RandomState};

use serde_json::Value as J;

/// A key that hashes consistently with its equality.
pub(super) trait KeyHash: PartialEq {
    /// Feeds the key to `state`; equal keys feed equal data.
    fn key_hash<H: Hasher>(&self, state: &mut H);
}

impl KeyHash for String {
    fn key_hash<H: Hasher>(&self, state: &mut H) {
        self.hash(state);
    }
}

/// Key fields as values, compared with serde_json's equality (numbers by kind and value, so
/// `1` is not `1.0`, and `-0.0` is `0.0`).
impl KeyHash for Vec<Option<J>> {
    fn key_hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.len());
        for field in self {
            match field {
                None => state.write_u8(0xff),
                Some(v) => hash_json(v, state),
            }
        }
    }
}

/// Hashes `v` so that values equal under serde_json's `==` hash alike (numbers by their
/// value as a float, zero's sign ignored; distinct numbers of equal float value collide and
/// are told apart by the comparison).
fn hash_json<H: Hasher>(v: &J, state: &mut H) {
    match v {
        J::Null => state.write_u8(0),
        J::Bool(b) => {
            state.write_u8(1);
            b.hash(state);
        }
        J::Number(n) => {
            state.write_u8(2);
            let f = n.as_f64().unwrap_or_default();
            state.write_u64(if f == 0.0 { 0 } else { f.to_bits() });
        }
        J::String(s) => {
            state.write_u8(3);
            s.hash(state);
        }
        J::Array(items) => {
            state.write_u8(4);
            state.write_usize(items.len());
            for item in items {
                hash_json(item, state);
            }
        }
        J::Object(map) => {
            state.write_u8(5);
            state.write_usize(map.len());
            for (k, item) in map {
                k.hash(state);
                hash_json(item, state);
            }
        }
    }
}

fn hash_of<K: KeyHash>(hasher: &impl BuildHasher, key: &K) -> u64 {
    let mut state = hasher.build_hasher();
    key.key_hash(&mut state);
    state.finish()
}

/// `(hash of key(i), i)` for each item, sorted.
fn hashes<K: KeyHash>(
    n: usize,
    key: impl Fn(usize) -> K,
    hasher: &impl BuildHasher,
) -> Vec<(u64, usize)> {
    let mut by_hash: Vec<(u64, usize)> = (0..n).map(|i| (hash_of(hasher, &key(i)), i)).collect();
    by_hash.sort_unstable();
    by_hash
}

/// The index of the second appearance of each key that appears more than once among
/// `key(0)`..`key(n - 1)`, in index order.
pub(super) fn repeated(n: usize, key: impl Fn(usize) -> String) -> Vec<usize> {
    repeated_by(n, key, &RandomState::new())
}

/// [`repeated`] with the hashes of `hasher`.
fn repeated_by(n: usize, key: impl Fn(usize) -> String, hasher: &impl BuildHasher) -> Vec<usize> {
    let by_hash = hashes(n, &key, hasher);
    let mut out = Vec::new();
    for group in by_hash.chunk_by(|a, b| a.0 == b.0) {
        if group.len() < 2 {
            continue;
        }
        // The group's items in index order, with how often each key appeared so far.
        let mut seen: HashMap<String, usize> = HashMap::new();
        for &(_, i) in group {
            let times = seen.entry(key(i)).or_insert(0);
            *times += 1;
            if *times == 2 {
                out.push(i);
            }
        }
    }
    out.sort_unstable();
    out
}

/// The first of a list's items with a given key.
pub(super) struct FirstByKey<'a, K, S = RandomState> {
    items: &'a [J],
    key: Box<dyn Fn(&J) -> K + 'a>,
    hasher: S,
    by_hash: Vec<(u64, usize)>,
}

impl<'a, K: KeyHash> FirstByKey<'a, K> {
    /// Indexes `items` by `key`.
    pub(super) fn new(items: &'a [J], key: impl Fn(&J) -> K + 'a) -> Self {
        FirstByKey::with_hasher(items, key, RandomState::new())
    }
}

impl<'a, K: KeyHash, S: BuildHasher> FirstByKey<'a, K, S> {
    fn with_hasher(items: &'a [J], key: impl Fn(&J) -> K + 'a, hasher: S) -> Self {
        let by_hash = hashes(items.len(), |i| key(&items[i]), &hasher);
        FirstByKey {
            items,
            key: Box::new(key),
            hasher,
            by_hash,
        }
    }

    /// The index of the first item whose key is `item`'s.
    pub(super) fn first(&self, item: &J) -> Option<usize> {
        let key = (self.key)(item);
        let hash = hash_of(&self.hasher, &key);
        let start = self.by_hash.partition_point(|&(h, _)| h < hash);
        (self.by_hash[start..].iter())
            .take_while(|&&(h, _)| h == hash)
            .map(|&(_, i)| i)
            .find(|&i| (self.key)(&self.items[i]) == key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every key hashes alike: every item is in one group, compared exactly.
    #[derive(Clone)]
    struct Colliding;

    impl BuildHasher for Colliding {
        type Hasher = Colliding;
        fn build_hasher(&self) -> Colliding {
            Colliding
        }
    }

    impl Hasher for Colliding {
        fn finish(&self) -> u64 {
            7
        }
        fn write(&mut self, _: &[u8]) {}
    }

    #[test]
    fn repeated_keys_are_found_by_their_text_whatever_the_hashes() {
        let keys = ["a", "b", "a", "c", "b", "a", "d", "c"];
        let key = |i: usize| keys[i].to_string();
        assert_eq!(repeated(keys.len(), key), [2, 4, 7]);
        assert_eq!(repeated_by(keys.len(), key, &Colliding), [2, 4, 7]);
        assert!(repeated_by(3, |i| ["x", "y", "z"][i].into(), &Colliding).is_empty());
        assert!(repeated(0, key).is_empty());
    }

    #[test]
    fn the_first_item_of_a_key_is_found_by_equality_whatever_the_hashes() {
        let items = [
            json!({"k": 1, "v": 0}),
            json!({"k": 1.0, "v": 1}),
            json!({"k": 1, "v": 2}),
            json!({"v": 3}),
            json!({"k": -0.0, "v": 4}),
            json!({"k": {"a": [1, "x"]}, "v": 5}),
        ];
        let key = |x: &J| vec![x.get("k").cloned()];
        let found = |index: &dyn Fn(&J) -> Option<usize>| {
            [
                json!({"k": 1}),
                json!({"k": 1.0}),
                json!({}),
                json!({"k": 0.0}),
                json!({"k": {"a": [1, "x"]}}),
                json!({"k": 2}),
            ]
            .iter()
            .map(index)
            .collect::<Vec<_>>()
        };
        let expected = [Some(0), Some(1), Some(3), Some(4), Some(5), None];
        let index = FirstByKey::new(&items, key);
        assert_eq!(found(&|x| index.first(x)), expected);
        let colliding = FirstByKey::with_hasher(&items, key, Colliding);
        assert_eq!(found(&|x| colliding.first(x)), expected);
        let texts = FirstByKey::new(&items, |x: &J| x["v"].to_string());
        assert_eq!(texts.first(&json!({"v": 2})), Some(2));
    }
}
