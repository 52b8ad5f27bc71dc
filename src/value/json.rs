//! JSON documents read in place: a [`Value::Json`] points into a shared
//! `serde_json::Value`, so binding a JSON object as a variable copies nothing. Selection,
//! presence tests, indexing and iteration read the document directly and convert only what
//! they return (scalars become values, objects and arrays stay JSON); anything else
//! converts the node first ([`Value::materialize`]).

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;

use serde_json::Value as Json;

use super::{Value, object_get, object_get_hinted};

/// A node inside a shared JSON document (the payload of [`Value::Json`]), or a list of
/// such nodes: opaque outside the engine. The interpreter converts it before a function, a
/// result or an error sees it; code holding a value that may be one converts it with
/// [`Value::materialize`].
#[derive(Clone)]
pub struct JsonNode(Repr);

#[derive(Clone)]
enum Repr {
    /// An object or an array of the document.
    Node {
        /// Keeps the document alive and unchanged: nothing mutates a JSON value behind an
        /// `Arc` that others share, and `node` points into it.
        root: Arc<Json>,
        node: NonNull<Json>,
    },
    /// A list whose elements are nodes of one document (what `filter` or `map` keeps of a
    /// JSON array's objects), converted only when the list is needed as a value.
    Nodes(Arc<Nodes>),
}

/// The elements of a [`Repr::Nodes`] list.
#[derive(Clone)]
struct Nodes {
    /// Keeps the document alive and unchanged, as [`Repr::Node`]'s `root`; every pointer
    /// of `nodes` points into it.
    root: Arc<Json>,
    nodes: Vec<NonNull<Json>>,
}

// The unsafe code of the crate: pointers into a shared, immutable JSON document (and
// [`InDocument`]'s uncounted reference to one).
// SAFETY: a `JsonNode` only reads through its pointers, which point into the document its
// `root` holds (the node's own, or its list's), which lives as long as `root` and is never
// mutated while `root` is shared (it holds no `&mut` and no interior mutability);
// `serde_json::Value` is `Send + Sync`.
#[allow(unsafe_code)]
unsafe impl Send for JsonNode {}
// SAFETY: as above.
#[allow(unsafe_code)]
unsafe impl Sync for JsonNode {}
// SAFETY: as above (the pointers of a list of nodes point into its `root`).
#[allow(unsafe_code)]
unsafe impl Send for Nodes {}
// SAFETY: as above.
#[allow(unsafe_code)]
unsafe impl Sync for Nodes {}

/// The JSON `node` points at, borrowed for as long as `_owner` is.
///
/// # Safety
///
/// `node` must point into the document `_owner` holds (as every pointer of a `JsonNode`
/// does into its `root`): the document lives as long as `_owner` and is not mutated while
/// shared.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn deref<'a>(_owner: &'a Arc<Json>, node: &NonNull<Json>) -> &'a Json {
    // SAFETY: see the function's contract.
    unsafe { node.as_ref() }
}

impl JsonNode {
    /// The JSON this node points at; `None` for a list of nodes.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn json(&self) -> Option<&Json> {
        match &self.0 {
            // SAFETY: `node` points into `root`'s document (see `Repr::Node`).
            Repr::Node { root, node } => Some(unsafe { deref(root, node) }),
            Repr::Nodes(_) => None,
        }
    }

    /// The document this value points into.
    #[inline(always)]
    pub(crate) fn root(&self) -> &Arc<Json> {
        match &self.0 {
            Repr::Node { root, .. } => root,
            Repr::Nodes(list) => &list.root,
        }
    }

    /// A value for `json`, which must lie inside `root`'s document: scalars converted,
    /// objects and arrays as JSON nodes sharing the document.
    pub(crate) fn child_of(root: &Arc<Json>, json: &Json) -> Value {
        match json {
            Json::Object(_) | Json::Array(_) => Value::Json(JsonNode(Repr::Node {
                root: root.clone(),
                node: NonNull::from(json),
            })),
            scalar => Value::from(scalar),
        }
    }

    /// A value for `json`, which must lie inside this node's document (see
    /// [`JsonNode::child_of`]).
    pub(crate) fn child(&self, json: &Json) -> Value {
        JsonNode::child_of(self.root(), json)
    }

    /// The value of an object's field.
    pub(crate) fn field(&self, name: &str) -> Option<Value> {
        match self.json() {
            Some(Json::Object(o)) => object_get(o, name).map(|v| self.child(v)),
            _ => None,
        }
    }

    /// Points this node at `json`, a node of `root`'s document, when it is a node of that
    /// document (moving a comprehension variable along an array without a reference count
    /// update): false, and nothing changed, otherwise.
    #[inline]
    pub(crate) fn repoint(&mut self, root: &Arc<Json>, json: &Json) -> bool {
        match &mut self.0 {
            Repr::Node { root: own, node } if Arc::ptr_eq(own, root) => {
                *node = NonNull::from(json);
                true
            }
            _ => false,
        }
    }

    /// Whether this is an object.
    #[inline]
    pub(crate) fn is_object(&self) -> bool {
        matches!(self.json(), Some(Json::Object(_)))
    }

    /// Whether this is a list: an array, or a list of nodes.
    #[inline]
    pub(crate) fn is_list(&self) -> bool {
        !self.is_object()
    }

    /// The entries of an object, the elements of an array or list of nodes (what `size()`
    /// gives of the value it converts to).
    pub(crate) fn len(&self) -> usize {
        match &self.0 {
            Repr::Node { .. } => match self.json() {
                Some(Json::Object(o)) => o.len(),
                Some(Json::Array(a)) => a.len(),
                _ => 1,
            },
            Repr::Nodes(list) => list.nodes.len(),
        }
    }

    /// The elements of an array or a list of nodes (none for an object).
    pub(crate) fn elements(&self) -> Elements<'_> {
        match &self.0 {
            Repr::Node { .. } => match self.json() {
                Some(Json::Array(a)) => Elements(ElementsOf::Array(a.iter())),
                _ => Elements(ElementsOf::Array(<&[Json]>::default().iter())),
            },
            Repr::Nodes(list) => Elements(ElementsOf::Nodes(&list.root, list.nodes.iter())),
        }
    }

    /// An object's entries, keys converted (two-variable comprehensions).
    pub(crate) fn entries(&self) -> impl Iterator<Item = (Value, Value)> + '_ {
        let entries = match self.json() {
            Some(Json::Object(o)) => Some(o.iter()),
            _ => None,
        };
        entries
            .into_iter()
            .flatten()
            .map(|(k, v)| (Value::from(k.as_str()), self.child(v)))
    }

    /// [`JsonNode::materialize`], consuming the node: out of line, so that
    /// [`Value::materialize`], inlined wherever a value may be JSON, stays a test.
    #[inline(never)]
    fn into_value(self) -> Value {
        self.materialize()
    }

    /// The node converted to an ordinary value (a deep copy).
    pub(crate) fn materialize(&self) -> Value {
        match self.json() {
            Some(json) => Value::from(json),
            None => Value::list(self.to_values(self.len())),
        }
    }

    /// A list of nodes' elements converted, in a vector of `capacity` (at least its length).
    fn to_values(&self, capacity: usize) -> Vec<Value> {
        let mut values = Vec::with_capacity(capacity.max(self.len()));
        values.extend(self.elements().map(Value::from));
        values
    }

    /// A list of nodes holding `first`, a node (`None` for a list of nodes), in a vector of
    /// `capacity` (growing from there as a vector of values would: see [`JsonNode::push`]).
    pub(crate) fn list_of(first: &JsonNode, capacity: usize) -> Option<JsonNode> {
        let Repr::Node { root, node } = &first.0 else {
            return None;
        };
        let mut nodes = Vec::with_capacity(capacity);
        nodes.push(*node);
        Some(JsonNode(Repr::Nodes(Arc::new(Nodes {
            root: root.clone(),
            nodes,
        }))))
    }

    /// For a list of nodes: its length, its vector's capacity, and whether it is shared
    /// (appending copies it then); `None` for a node.
    pub(crate) fn list_shape(&self) -> Option<(usize, usize, bool)> {
        match &self.0 {
            Repr::Nodes(list) => Some((
                list.nodes.len(),
                list.nodes.capacity(),
                Arc::strong_count(list) > 1,
            )),
            Repr::Node { .. } => None,
        }
    }

    /// Whether [`JsonNode::push`] takes `node`: this is a list of nodes and `node` a node of
    /// the same document.
    #[inline]
    pub(crate) fn takes(&self, node: &JsonNode) -> bool {
        match (&self.0, &node.0) {
            (Repr::Nodes(list), Repr::Node { root, .. }) => Arc::ptr_eq(&list.root, root),
            _ => false,
        }
    }

    /// Appends `node` to this list of nodes when it [`takes`](JsonNode::takes) it (a shared
    /// list is copied first, as a shared list of values is: its vector's capacity is then
    /// its length); does nothing otherwise. The vector grows as a vector of values does
    /// (both grow by `Vec`'s rule, from a capacity of 4), so that the memory budget, which
    /// counts the capacity of an accumulator's vector, counts the same either way.
    pub(crate) fn push(&mut self, node: &JsonNode) {
        if let (Repr::Nodes(list), Repr::Node { root, node }) = (&mut self.0, &node.0) {
            if Arc::ptr_eq(&list.root, root) {
                Arc::make_mut(list).nodes.push(*node);
            }
        }
    }

    /// A list of nodes converted to a vector of values of `capacity` (at least its
    /// length); `None` for a node.
    pub(crate) fn into_values(self, capacity: usize) -> Option<Vec<Value>> {
        matches!(self.0, Repr::Nodes(_)).then(|| self.to_values(capacity))
    }
}

/// The elements of a JSON array or of a list of nodes ([`JsonNode::elements`]).
pub(crate) struct Elements<'a>(ElementsOf<'a>);

enum ElementsOf<'a> {
    Array(std::slice::Iter<'a, Json>),
    /// A list of nodes' pointers, and the document they point into.
    Nodes(&'a Arc<Json>, std::slice::Iter<'a, NonNull<Json>>),
}

impl<'a> Iterator for Elements<'a> {
    type Item = &'a Json;

    #[inline]
    #[allow(unsafe_code)]
    fn next(&mut self) -> Option<&'a Json> {
        match &mut self.0 {
            ElementsOf::Array(items) => items.next(),
            // SAFETY: the pointers of a list of nodes point into its `root` (see `Nodes`).
            ElementsOf::Nodes(root, nodes) => nodes.next().map(|node| unsafe { deref(root, node) }),
        }
    }
}

/// A node of a JSON document that something else keeps alive for `'a` (a
/// [`crate::JsonActivation`]'s document, while a program reads its variables), held as a
/// [`Value`] that owns no reference count of the document: binding a variable read in place
/// and dropping it at the end of the evaluation then update no reference count (an atomic
/// operation each). Scalars are converted as ever (and dropped as ever).
pub(crate) struct InDocument<'a> {
    /// A scalar, or a [`Value::Json`] node whose `root` was not counted (never dropped).
    value: ManuallyDrop<Value>,
    /// The node whose document an uncounted `root` is: it outlives this value.
    document: PhantomData<&'a JsonNode>,
}

impl<'a> InDocument<'a> {
    /// The value of the field `name` of `document`'s object; `None` for a missing field
    /// and when `document` is not an object.
    #[allow(unsafe_code)]
    pub(crate) fn field(document: &'a JsonNode, name: &str) -> Option<InDocument<'a>> {
        let Repr::Node { root, .. } = &document.0 else {
            return None;
        };
        let Some(Json::Object(object)) = document.json() else {
            return None;
        };
        let json = object_get(object, name)?;
        // SAFETY: `json` lies in the document of `root`, which `document` keeps alive for
        // `'a`.
        Some(unsafe { InDocument::of(root, json) })
    }

    /// The value at the end of `fields` (field selections, each a name and the position
    /// hint of [`object_get_hinted`]) from this one, when each selection finds an object's
    /// field; `None` otherwise.
    #[allow(unsafe_code)]
    pub(crate) fn select<'n>(
        &self,
        fields: impl IntoIterator<Item = (&'n str, &'n AtomicU32)>,
    ) -> Option<InDocument<'a>> {
        let Value::Json(JsonNode(Repr::Node { root, node })) = &*self.value else {
            return None;
        };
        // SAFETY: `node` points into `root`'s document (see `Repr::Node`).
        let mut json = unsafe { deref(root, node) };
        for (name, hint) in fields {
            let Json::Object(object) = json else {
                return None;
            };
            json = object_get_hinted(object, name, hint)?;
        }
        // SAFETY: `json` lies in the document of `root`, which is this value's: kept alive
        // for `'a`.
        Some(unsafe { InDocument::of(root, json) })
    }

    /// `json` as a value: scalars converted, objects and arrays as nodes that hold an
    /// uncounted copy of `root`.
    ///
    /// # Safety
    ///
    /// `json` must lie in `root`'s document, and that document must stay alive (some
    /// counted `Arc` of it) for `'a`.
    #[allow(unsafe_code)]
    unsafe fn of(root: &Arc<Json>, json: &Json) -> InDocument<'a> {
        let value = match json {
            Json::Object(_) | Json::Array(_) => {
                // SAFETY: the copy made here is not counted and is never dropped (`value` is
                // `ManuallyDrop`, and `Drop` below leaves JSON nodes alone), so the count
                // stays that of the real owners, one of which keeps the allocation alive for
                // `'a`, as long as this value (or a reference to it) can be used. Clones of
                // it are counted as usual, so they may outlive `'a`. `json` lies in `root`'s
                // document, as `Repr::Node` requires.
                let uncounted = unsafe { Arc::from_raw(Arc::as_ptr(root)) };
                Value::Json(JsonNode(Repr::Node {
                    root: uncounted,
                    node: NonNull::from(json),
                }))
            }
            scalar => Value::from(scalar),
        };
        InDocument {
            value: ManuallyDrop::new(value),
            document: PhantomData,
        }
    }

    /// The value held.
    #[inline(always)]
    pub(crate) fn get(&self) -> &Value {
        &self.value
    }
}

impl Drop for InDocument<'_> {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        if !matches!(*self.value, Value::Json(_)) {
            // SAFETY: a scalar owns what it holds; it is dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.value) }
        }
    }
}

impl std::fmt::Debug for InDocument<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.value.fmt(f)
    }
}

impl std::fmt::Debug for JsonNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.json() {
            Some(json) => write!(f, "Json({json})"),
            None => {
                f.write_str("Json(")?;
                f.debug_list().entries(self.elements()).finish()?;
                f.write_str(")")
            }
        }
    }
}

impl Value {
    /// A value reading a shared JSON document in place: objects and arrays are not
    /// converted until an operation needs them whole; scalars convert at once. Bind it as a
    /// variable (or use [`crate::JsonActivation`]); the interpreter converts it before any
    /// function sees it, so do not nest it inside lists or maps you build yourself.
    pub fn from_shared_json(json: Arc<Json>) -> Value {
        match &*json {
            Json::Object(_) | Json::Array(_) => {
                let node = NonNull::from(&*json);
                Value::Json(JsonNode(Repr::Node { root: json, node }))
            }
            scalar => Value::from(scalar),
        }
    }

    /// This value with any JSON node converted (a no-op for other values).
    #[inline]
    pub fn materialize(self) -> Value {
        match self {
            Value::Json(j) => j.into_value(),
            other => other,
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

    #[test]
    fn lists_of_nodes_keep_their_document_and_grow_as_lists_of_values() {
        let doc = Arc::new(serde_json::json!([{"a": 1}, {"a": [2]}]));
        let Value::Json(array) = Value::from_shared_json(doc.clone()) else {
            panic!("arrays stay JSON")
        };
        let mut elements = array.elements();
        let (Some(Value::Json(first)), Some(Value::Json(second))) = (
            elements.next().map(|e| array.child(e)),
            elements.next().map(|e| array.child(e)),
        ) else {
            panic!("objects stay JSON")
        };
        assert!(JsonNode::list_of(&array, 0).is_some());
        let mut nodes = JsonNode::list_of(&first, 0).unwrap();
        assert!(JsonNode::list_of(&nodes, 0).is_none(), "a list is no node");
        // The memory budget counts an accumulator's vector by its capacity: a list of
        // nodes must grow as the list of values in its place would.
        // Grown as the interpreter's accumulator is (by one element at a time).
        let mut values = Vec::with_capacity(0);
        values.extend([Value::Null]);
        for i in 0..100 {
            assert_eq!(nodes.list_shape(), Some((i + 1, values.capacity(), false)));
            assert!(nodes.takes(&second));
            nodes.push(&second);
            values.push(Value::Null);
        }
        // A node of another document is not taken; a list is no node.
        let Value::Json(other) = Value::from_shared_json(Arc::new(serde_json::json!({}))) else {
            panic!("objects stay JSON")
        };
        assert!(!nodes.takes(&other) && !nodes.takes(&nodes.clone()));
        // A shared list is copied when pushed to.
        let shared = nodes.clone();
        assert_eq!(nodes.list_shape().map(|(.., shared)| shared), Some(true));
        nodes.push(&first);
        assert_eq!((shared.len(), nodes.len()), (101, 102));
        assert!(!nodes.is_object() && nodes.is_list() && nodes.json().is_none());
        // The list keeps the document alive.
        drop((doc, array, first, second, other, shared));
        let Value::List(list) = Value::Json(nodes).materialize() else {
            panic!("a list")
        };
        assert_eq!(list.len(), 102);
        assert_eq!(list[0].to_string(), r#"{"a": 1}"#);
        assert_eq!(list[1].to_string(), r#"{"a": [2]}"#);
        assert_eq!(list[101].to_string(), r#"{"a": 1}"#);
    }
}
