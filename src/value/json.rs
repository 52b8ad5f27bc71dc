//! JSON documents read in place: a [`Value::Json`] points into a shared
//! `serde_json::Value`, so binding a JSON object as a variable copies nothing. Selection,
//! presence tests, indexing and iteration read the document directly and convert only what
//! they return (scalars become values, objects and arrays stay JSON); anything else
//! converts the node first ([`Value::materialize`]).

use std::ptr::NonNull;
use std::sync::Arc;

use serde_json::Value as Json;

use super::Value;

/// A node inside a shared JSON document (the payload of [`Value::Json`]): opaque outside
/// the engine. The interpreter converts it before a function, a result or an error sees it;
/// code holding a value that may be one converts it with [`Value::materialize`].
#[derive(Clone)]
pub struct JsonNode {
    /// Keeps the document alive and unchanged: nothing mutates a JSON value behind an
    /// `Arc` that others share, and `node` points into it.
    root: Arc<Json>,
    node: NonNull<Json>,
}

// The one unsafe code of the crate: pointers into a shared, immutable JSON document.
// SAFETY: a `JsonNode` only reads `*node`, which lives as long as `root` and is never
// mutated while `root` is shared (it holds no `&mut` and no interior mutability);
// `serde_json::Value` is `Send + Sync`.
#[allow(unsafe_code)]
unsafe impl Send for JsonNode {}
// SAFETY: as above.
#[allow(unsafe_code)]
unsafe impl Sync for JsonNode {}

impl JsonNode {
    /// The JSON this node points at.
    #[allow(unsafe_code)]
    pub(crate) fn get(&self) -> &Json {
        // SAFETY: `node` points into `*root` (see the field docs), which outlives `self`.
        unsafe { self.node.as_ref() }
    }

    /// A value for `json`, which must lie inside this node's document: scalars converted,
    /// objects and arrays as JSON nodes sharing the document.
    pub(crate) fn child(&self, json: &Json) -> Value {
        match json {
            Json::Object(_) | Json::Array(_) => Value::Json(JsonNode {
                root: self.root.clone(),
                node: NonNull::from(json),
            }),
            scalar => Value::from(scalar),
        }
    }

    /// The value of an object's field.
    pub(crate) fn field(&self, name: &str) -> Option<Value> {
        match self.get() {
            Json::Object(o) => object_get(o, name).map(|v| self.child(v)),
            _ => None,
        }
    }

    /// Whether `other` points into the same document.
    #[inline]
    pub(crate) fn same_document(&self, other: &JsonNode) -> bool {
        Arc::ptr_eq(&self.root, &other.root)
    }

    /// Points this node at `json`, which must lie inside its document (moving a
    /// comprehension variable along an array without a reference count update).
    #[inline]
    pub(crate) fn point_at(&mut self, json: &Json) {
        self.node = NonNull::from(json);
    }

    /// Whether this is an object.
    pub(crate) fn is_object(&self) -> bool {
        self.get().is_object()
    }

    /// An object's entries, keys converted (two-variable comprehensions).
    pub(crate) fn entries(&self) -> impl Iterator<Item = (Value, Value)> + '_ {
        let entries = match self.get() {
            Json::Object(o) => Some(o.iter()),
            _ => None,
        };
        entries
            .into_iter()
            .flatten()
            .map(|(k, v)| (Value::from(k.as_str()), self.child(v)))
    }

    /// The node converted to an ordinary value (a deep copy).
    pub(crate) fn materialize(&self) -> Value {
        Value::from(self.get())
    }
}

/// How many entries an object may have for [`object_get`] to scan it rather than search it.
const SCANNED_OBJECT: usize = 16;

/// An object's entry for `key`. `serde_json`'s objects are B-trees, whose search compares
/// the key with a call of `memcmp` per entry it passes; the few fields of most objects are
/// found sooner by a scan in order that compares lengths first.
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

impl std::fmt::Debug for JsonNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Json({})", self.get())
    }
}

impl Value {
    /// A value reading a shared JSON document in place: objects and arrays are not
    /// converted until an operation needs them whole; scalars convert at once. Bind it as a
    /// variable (or use [`crate::JsonActivation`]); the interpreter converts it before any
    /// function sees it, so do not nest it inside lists or maps you build yourself.
    pub fn from_shared_json(json: Arc<Json>) -> Value {
        let node = NonNull::from(&*json);
        JsonNode { root: json, node }.child_of_root()
    }

    /// This value with any JSON node converted (a no-op for other values).
    #[inline]
    pub fn materialize(self) -> Value {
        match self {
            Value::Json(j) => j.materialize(),
            other => other,
        }
    }
}

impl JsonNode {
    fn child_of_root(self) -> Value {
        match self.get() {
            Json::Object(_) | Json::Array(_) => Value::Json(self),
            scalar => Value::from(scalar),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_in_place_and_converts_scalars() {
        let doc = Arc::new(serde_json::json!({"a": {"b": [1, "x", {"c": true}]}, "n": 2.5}));
        let v = Value::from_shared_json(doc.clone());
        let Value::Json(root) = &v else {
            panic!("objects stay JSON")
        };
        assert!(matches!(root.field("n"), Some(Value::Double(d)) if d == 2.5));
        let Some(Value::Json(a)) = root.field("a") else {
            panic!("nested object")
        };
        let Some(Value::Json(b)) = a.field("b") else {
            panic!("array")
        };
        assert!(v.clone().materialize().cel_eq(&Value::from(&*doc)));
        drop(doc);
        // The node keeps the document alive.
        let Value::List(b) = Value::Json(b).materialize() else {
            panic!("a list")
        };
        assert_eq!(b.len(), 3);
        assert!(matches!(b.first(), Some(Value::Int(1))));
    }
}
