//! The shard fields of stored objects (sharded list and watch; the
//! request side is the API layer's `shard` module): read out of
//! the stored JSON without building the object, tested against a parsed
//! [`ShardSelector`] by number.

use kcel_stdlib::kubernetes::sharding::{ShardField, ShardSelector, fnv1a64};

/// The metadata fields a shard selector reads, borrowed from stored JSON.
#[derive(serde::Deserialize)]
struct StoredMeta<'a> {
    #[serde(borrow, default)]
    uid: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    namespace: Option<std::borrow::Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct StoredHead<'a> {
    #[serde(borrow, default)]
    metadata: Option<StoredMeta<'a>>,
}

/// The hashes a shard selector tests of one stored object: FNV-1a 64 of its `metadata.uid`
/// and of its `metadata.namespace` (of `""` when absent), or nothing for bytes that do not
/// parse (which count as in every shard, so that the full decode reports them).
///
/// The watch cache computes them once, when an object enters it, and keeps them beside the
/// object (as upstream's cacher keeps each object's label and field sets, `storeElement`): a
/// sharded list from the cache then compares numbers per object
/// ([`ShardSelector::matches_hash`]) instead of reading every object's JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardKeys(Option<(u64, u64)>);

impl ShardKeys {
    /// Reads the fields out of stored JSON bytes, without building the object (the other
    /// fields are skipped, not kept).
    pub fn of_stored(bytes: &[u8]) -> ShardKeys {
        let Ok(head) = serde_json::from_slice::<StoredHead<'_>>(bytes) else {
            return ShardKeys(None);
        };
        let (uid, namespace) = head.metadata.map_or((None, None), |m| (m.uid, m.namespace));
        ShardKeys(Some((
            fnv1a64(uid.as_deref().unwrap_or("")),
            fnv1a64(namespace.as_deref().unwrap_or("")),
        )))
    }

    /// Whether the object is in `selector`'s shard.
    pub fn matches(self, selector: &ShardSelector) -> bool {
        let Some((uid, namespace)) = self.0 else {
            return true;
        };
        selector.matches_hash(match selector.field() {
            ShardField::Uid => uid,
            ShardField::Namespace => namespace,
        })
    }
}

/// Whether a stored object (its JSON bytes) is in the shard, read without building the object
/// (the other fields are skipped, not kept). Bytes that do not parse count as in the shard, so
/// that the full decode reports them.
pub fn matches_stored(selector: &ShardSelector, bytes: &[u8]) -> bool {
    let Ok(head) = serde_json::from_slice::<StoredHead<'_>>(bytes) else {
        return true;
    };
    let meta = head.metadata;
    let value = match selector.field() {
        ShardField::Uid => meta.and_then(|m| m.uid),
        ShardField::Namespace => meta.and_then(|m| m.namespace),
    };
    selector.matches_value(value.as_deref().unwrap_or(""))
}
