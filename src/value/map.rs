//! CEL maps: insertion-ordered entries, each with its key's hash, so that a lookup compares
//! one machine word per entry before it compares a key. Small maps (most Kubernetes
//! objects) are scanned; larger ones get a hash index.

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

use foldhash::fast::RandomState;
use hashbrown::HashTable;

use super::Value;

/// A map key: CEL allows bool, int, uint and string keys.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    /// A `bool` key.
    Bool(bool),
    /// An `int` key.
    Int(i64),
    /// A `uint` key.
    Uint(u64),
    /// A `string` key.
    String(Arc<str>),
}

impl Key {
    /// The key for a value, if the value's type may be a map key.
    pub fn from_value(v: &Value) -> Option<Key> {
        Some(match v {
            Value::Bool(b) => Key::Bool(*b),
            Value::Int(i) => Key::Int(*i),
            Value::Uint(u) => Key::Uint(*u),
            Value::String(s) => Key::String(s.clone()),
            _ => return None,
        })
    }

    /// This key as a value.
    pub fn to_value(&self) -> Value {
        match self {
            Key::Bool(b) => Value::Bool(*b),
            Key::Int(i) => Value::Int(*i),
            Key::Uint(u) => Value::Uint(*u),
            Key::String(s) => Value::String(s.clone()),
        }
    }

    fn as_ref(&self) -> KeyRef<'_> {
        match self {
            Key::Bool(b) => KeyRef::Bool(*b),
            Key::Int(i) => KeyRef::Int(*i),
            Key::Uint(u) => KeyRef::Uint(*u),
            Key::String(s) => KeyRef::Str(s),
        }
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_ref().hash(state);
    }
}

impl From<&str> for Key {
    fn from(s: &str) -> Key {
        Key::String(s.into())
    }
}

/// A key by reference: what lookups hash and compare, without building a [`Key`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum KeyRef<'a> {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Str(&'a str),
}

/// The hash of a key, as [`Map`] stores it. The seed is random per process (large maps are
/// indexed by it) and fixed for the process's lifetime, so a planner can hash a field name
/// once and look it up in every map ([`Map::get_str_hinted`]).
fn hash_key(key: KeyRef<'_>) -> u64 {
    static STATE: OnceLock<RandomState> = OnceLock::new();
    STATE.get_or_init(RandomState::default).hash_one(key)
}

/// The hash [`Map::get_str_hinted`] expects for a string key.
pub(crate) fn string_key_hash(key: &str) -> u64 {
    hash_key(KeyRef::Str(key))
}

/// String equality for the short strings field names are, without a call to `memcmp`: two
/// (possibly overlapping) word compares up to 16 bytes, bytewise below 4.
#[inline(always)]
pub(crate) fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], i: usize| u64::from_ne_bytes(s[i..i + 8].try_into().unwrap_or([0; 8]));
    let half = |s: &[u8], i: usize| u32::from_ne_bytes(s[i..i + 4].try_into().unwrap_or([0; 4]));
    match n {
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        _ => a == b,
    }
}

/// Maps with at most this many entries are searched linearly.
const LINEAR_LOOKUP_MAX: usize = 16;

#[derive(Clone, Debug)]
struct Entry {
    hash: u64,
    key: Key,
    value: Value,
}

/// A CEL map: insertion-ordered, keyed by [`Key`], with numeric key equivalence on lookup
/// (`{1: 'a'}[1u]` and `{1: 'a'}[1.0]` both find the entry).
#[derive(Clone, Default)]
pub struct Map {
    entries: Vec<Entry>,
    /// Positions in `entries` by hash, once the map is larger than [`LINEAR_LOOKUP_MAX`].
    index: Option<HashTable<usize>>,
}

impl std::fmt::Debug for Map {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Map {
    /// An empty map.
    pub fn new() -> Map {
        Map::default()
    }

    /// An empty map with room for `n` entries.
    pub fn with_capacity(n: usize) -> Map {
        Map {
            entries: Vec::with_capacity(n),
            index: None,
        }
    }

    /// Inserts an entry, returning false (and leaving the map unchanged) when an equal key
    /// (numerically equal, across int and uint) is already present.
    pub fn insert_new(&mut self, key: Key, value: Value) -> bool {
        if self.get_key(&key).is_some() {
            return false;
        }
        let hash = hash_key(key.as_ref());
        self.push(Entry { hash, key, value });
        true
    }

    /// Inserts or replaces an entry (a replaced entry keeps its position).
    pub fn insert(&mut self, key: Key, value: Value) {
        let hash = hash_key(key.as_ref());
        match self.position(hash, key.as_ref()) {
            Some(i) => self.entries[i].value = value,
            None => self.push(Entry { hash, key, value }),
        }
    }

    fn push(&mut self, entry: Entry) {
        let hash = entry.hash;
        self.entries.push(entry);
        let len = self.entries.len();
        if let Some(index) = &mut self.index {
            let entries = &self.entries;
            index.insert_unique(hash, len - 1, |&i| entries[i].hash);
        } else if len > LINEAR_LOOKUP_MAX {
            let mut index = HashTable::with_capacity(len);
            for (i, e) in self.entries.iter().enumerate() {
                let entries = &self.entries;
                index.insert_unique(e.hash, i, |&j| entries[j].hash);
            }
            self.index = Some(index);
        }
    }

    /// The position of the entry with exactly this key.
    fn position(&self, hash: u64, key: KeyRef<'_>) -> Option<usize> {
        match &self.index {
            None => self
                .entries
                .iter()
                .position(|e| e.hash == hash && e.key.as_ref() == key),
            Some(index) => index
                .find(hash, |&i| {
                    let e = &self.entries[i];
                    e.hash == hash && e.key.as_ref() == key
                })
                .copied(),
        }
    }

    fn lookup(&self, key: KeyRef<'_>) -> Option<&Value> {
        self.position(hash_key(key), key)
            .map(|i| &self.entries[i].value)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Looks a key up, treating int and uint keys of equal value as the same key.
    pub fn get_key(&self, key: &Key) -> Option<&Value> {
        if let Some(v) = self.lookup(key.as_ref()) {
            return Some(v);
        }
        match key {
            Key::Int(i) if *i >= 0 => self.lookup(KeyRef::Uint(*i as u64)),
            Key::Uint(u) if *u <= i64::MAX as u64 => self.lookup(KeyRef::Int(*u as i64)),
            _ => None,
        }
    }

    /// Looks a string key up without allocating.
    pub fn get_str(&self, key: &str) -> Option<&Value> {
        self.lookup(KeyRef::Str(key))
    }

    /// Looks a string key up by its precomputed [`string_key_hash`], trying first the
    /// position `hint` remembers from an earlier lookup of the same key (maps of the same
    /// shape keep their keys in the same places), and updating it.
    #[inline(always)]
    pub(crate) fn get_str_hinted(&self, key: &str, hash: u64, hint: &AtomicU32) -> Option<&Value> {
        let guess = hint.load(Relaxed) as usize;
        if let Some(e) = self.entries.get(guess) {
            if e.hash == hash && matches!(&e.key, Key::String(s) if str_eq(s, key)) {
                return Some(&e.value);
            }
        }
        let i = self.position(hash, KeyRef::Str(key))?;
        hint.store(i as u32, Relaxed);
        Some(&self.entries[i].value)
    }

    /// Looks a value up as a key: strings, bools, ints, uints, and doubles that hold an
    /// integer value. `Ok(None)` when absent; `Err(())` when the value cannot be a key.
    #[allow(clippy::result_unit_err)]
    pub fn get(&self, key: &Value) -> Result<Option<&Value>, ()> {
        match key {
            Value::String(s) => Ok(self.get_str(s)),
            Value::Double(d) => {
                let d = *d;
                if d.fract() != 0.0 || !d.is_finite() {
                    return Ok(None);
                }
                if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&d) {
                    Ok(self.get_key(&Key::Int(d as i64)))
                } else if (0.0..1.844_674_407_370_955_2e19).contains(&d) {
                    Ok(self.get_key(&Key::Uint(d as u64)))
                } else {
                    Ok(None)
                }
            }
            other => match Key::from_value(other) {
                Some(k) => Ok(self.get_key(&k)),
                None => Err(()),
            },
        }
    }

    /// Iterates over the entries in insertion order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Key, &Value)> {
        self.entries.iter().map(|e| (&e.key, &e.value))
    }

    /// Iterates over the keys in insertion order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &Key> {
        self.entries.iter().map(|e| &e.key)
    }
}

impl FromIterator<(Key, Value)> for Map {
    fn from_iter<T: IntoIterator<Item = (Key, Value)>>(iter: T) -> Map {
        let iter = iter.into_iter();
        let mut map = Map::with_capacity(iter.size_hint().0);
        for (k, v) in iter {
            map.insert(k, v);
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_maps_are_indexed_and_keep_order() {
        let mut m = Map::new();
        for i in 0..100 {
            assert!(m.insert_new(Key::String(format!("k{i}").into()), Value::Int(i)));
        }
        assert!(!m.insert_new(Key::from("k7"), Value::Null));
        m.insert(Key::from("k3"), Value::Int(-3));
        assert_eq!(m.len(), 100);
        for i in 0..100 {
            let key = format!("k{i}");
            let want = if i == 3 { -3 } else { i };
            assert!(matches!(m.get_str(&key), Some(Value::Int(v)) if *v == want));
            let hint = AtomicU32::new(0);
            assert!(
                m.get_str_hinted(&key, string_key_hash(&key), &hint)
                    .is_some()
            );
            assert_eq!(hint.load(Relaxed) as usize, i as usize);
        }
        assert!(m.get_str("k100").is_none());
        let first: Vec<Key> = m.keys().take(3).cloned().collect();
        assert_eq!(first, [Key::from("k0"), Key::from("k1"), Key::from("k2")]);
    }

    #[test]
    fn short_string_equality() {
        let words = [
            "", "a", "ab", "abc", "abcd", "abce", "abcdefg", "abcdefh", "spec", "kind",
        ];
        let long = [
            "abcdefgh",
            "abcdefgi",
            "bbcdefgh",
            "0123456789abcdef",
            "0123456789abcdeF",
        ];
        let longer = [
            "0123456789abcdefg",
            "0123456789abcdefh",
            "x123456789abcdefg",
            "0123456789xbcdefg",
            "0123456789abcdefghijklmnopqrstuv",
            "0123456789abcdefghijklmnopqrstuV",
            "0123456789abcdefghijkLmnopqrstuv",
            "0123456789abcdefghijklmnopqrstuvw",
            "0123456789abcdefghijklmnopqrstuvW",
        ];
        // Every one-byte change of a 24-byte string, at every position.
        let base = "creationTimestampXYZ0123";
        let changed: Vec<String> = (0..base.len())
            .map(|i| {
                let mut b = base.as_bytes().to_vec();
                b[i] = b'#';
                String::from_utf8(b).unwrap()
            })
            .collect();
        for c in &changed {
            assert!(!str_eq(c, base) && !str_eq(base, c), "{c}");
        }
        for a in words.iter().chain(&long).chain(&longer) {
            for b in words.iter().chain(&long).chain(&longer) {
                assert_eq!(str_eq(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn int_and_uint_keys_are_equivalent() {
        let m: Map = [(Key::Uint(5), Value::Bool(true))].into_iter().collect();
        assert!(m.get_key(&Key::Int(5)).is_some());
        assert!(m.get_key(&Key::Int(-5)).is_none());
    }
}
