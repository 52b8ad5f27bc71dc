//! Finding a field of a JSON object read in place ([`object_get`], [`object_get_hinted`]).
//!
//! `serde_json`'s objects are B-trees of `String` keys, sorted. Their own search compares
//! the key with each key it passes through `str`'s order, a call of `memcmp` per key; a
//! scan in order that tests lengths first avoids most calls, but each step of the B-tree's
//! iterator costs some twenty instructions, and a field late in the order (`spec` after
//! `apiVersion`, `kind` and `metadata`; `template` last of a Deployment's nine `spec`
//! fields) is found after all the steps before it. Objects of one kind hold the same
//! fields, so a planned selection remembers where it last found its field (a position in
//! key order, as a map's lookup remembers one in insertion order) and steps there from the
//! nearer end of the object, comparing that one key; where the guess misses, the object is
//! scanned and the hint updated. A field first in its object is compared first. Stepping
//! costs about what scanning does, so the gain is in fields of an object's far half
//! (measured in BENCHMARKS.md, "JSON in place after session 20").

use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;

use serde_json::Value as Json;

use super::str_eq;

/// How many entries an object may have to be scanned (or stepped through to a hinted
/// position) rather than searched.
const SCANNED_OBJECT: usize = 16;

/// An object's entry for `key`: a scan in key order that compares lengths first for the
/// few fields of most objects, the B-tree's search for larger ones.
#[inline]
pub(crate) fn object_get<'j>(
    object: &'j serde_json::Map<String, Json>,
    key: &str,
) -> Option<&'j Json> {
    if object.len() <= SCANNED_OBJECT {
        object
            .iter()
            .find(|(k, _)| k.len() == key.len() && k.as_bytes() == key.as_bytes())
            .map(|(_, v)| v)
    } else {
        object.get(key)
    }
}

/// [`object_get`] that first tries the position in key order `hint` holds (where this
/// selection last found its field), stepping to it from the nearer end of the object, and
/// stores the position where a scan finds the field (see the module docs). Any hint gives
/// the same answer; a right one costs the steps to it and one comparison. A field first in
/// its object (or not looked up yet) is compared before anything else.
#[inline(always)]
pub(crate) fn object_get_hinted<'j>(
    object: &'j serde_json::Map<String, Json>,
    key: &str,
    hint: &AtomicU32,
) -> Option<&'j Json> {
    if hint.load(Relaxed) == 0 {
        if let Some((k, v)) = object.iter().next() {
            if str_eq(k, key) {
                return Some(v);
            }
        }
    }
    object_get_positioned(object, key, hint)
}

/// [`object_get_hinted`] past its try of the first entry (inline: a call here cost more
/// than it saved in code size; BENCHMARKS.md, "JSON in place after session 20").
#[inline(always)]
fn object_get_positioned<'j>(
    object: &'j serde_json::Map<String, Json>,
    key: &str,
    hint: &AtomicU32,
) -> Option<&'j Json> {
    let len = object.len();
    if len > SCANNED_OBJECT {
        return object.get(key);
    }
    let guess = hint.load(Relaxed) as usize;
    if guess < len {
        let entry = if 2 * guess < len {
            object.iter().nth(guess)
        } else {
            object.iter().nth_back(len - 1 - guess)
        };
        if let Some((k, v)) = entry {
            if str_eq(k, key) {
                return Some(v);
            }
        }
    }
    let found = object
        .iter()
        .enumerate()
        .find(|(_, (k, _))| k.len() == key.len() && k.as_bytes() == key.as_bytes());
    let (position, value) = match found {
        Some((i, (_, v))) => (i as u32, Some(v)),
        None => (NO_POSITION, None),
    };
    if position != guess as u32 {
        hint.store(position, Relaxed);
    }
    value
}

/// What a hint holds when the field was not found last time (a scan finds that anyway).
const NO_POSITION: u32 = u32::MAX;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key of objects of every size up to several B-tree nodes is found, and keys
    /// not in them are not, whatever the hint holds; a hint once used holds the key's
    /// position.
    #[test]
    fn finds_what_the_object_holds_whatever_the_hint() {
        for n in [0usize, 1, 2, 5, 11, 12, 16, 17, 40, 200] {
            let object: serde_json::Map<String, Json> = (0..n)
                .map(|i| (format!("k{}", i * 2), Json::from(i)))
                .collect();
            let hints = [
                0,
                1,
                n / 2,
                n.saturating_sub(1),
                n,
                n + 5,
                NO_POSITION as usize,
            ];
            for i in 0..n {
                let (key, missing) = (format!("k{}", i * 2), format!("k{}", i * 2 + 1));
                assert_eq!(object_get(&object, &key), Some(&Json::from(i)));
                assert_eq!(object_get(&object, &missing), None);
                for h in hints {
                    let hint = AtomicU32::new(h as u32);
                    for _ in 0..2 {
                        assert_eq!(
                            object_get_hinted(&object, &key, &hint),
                            Some(&Json::from(i))
                        );
                    }
                    if n <= SCANNED_OBJECT {
                        // Sorted keys: "k10" comes before "k2".
                        let position = object.keys().position(|k| *k == key).unwrap();
                        assert_eq!(hint.load(Relaxed) as usize, position, "{key} in {n}");
                    }
                    for _ in 0..2 {
                        assert_eq!(object_get_hinted(&object, &missing, &hint), None);
                    }
                }
            }
            for missing in ["", "k", "a", "z", "k0x"] {
                assert_eq!(object_get(&object, missing), None, "{missing}");
                let hint = AtomicU32::new(0);
                assert_eq!(
                    object_get_hinted(&object, missing, &hint),
                    None,
                    "{missing}"
                );
            }
        }
    }
}
