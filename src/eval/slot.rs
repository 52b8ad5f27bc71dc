//! The content of a frame slot ([`SlotContent`]): a value or error, or a value read in place
//! (from the activation, a JSON document, a list being iterated), and the shared path
//! prefixes stored in slots. Used by the interpreter and by the in-place operand readers.

use std::sync::Arc;

use crate::error::EvalError;
use crate::eval::node::PathCache;
use crate::value::EvalResult;
use crate::value::{InDocument, JsonNode, List, Value};

/// What a frame slot holds.
#[derive(Debug)]
pub(crate) enum SlotContent<'a> {
    /// A value, or the error reading it raises.
    Result(EvalResult),
    /// An input variable's value, read in place from the activation (no reference count
    /// update per evaluation).
    Borrowed(&'a Value),
    /// An input variable read in place from a JSON activation's document (see
    /// [`InDocument`]: no reference count update per evaluation).
    InDocument(InDocument<'a>),
    /// An element of a list being iterated over, read in place: moving a comprehension
    /// variable along a list updates the index, without cloning each element (a reference
    /// count update, an atomic operation, for a map or a string) and dropping it again.
    Element(Arc<List>, usize),
}

impl SlotContent<'_> {
    /// The value or error held.
    #[inline(always)]
    pub fn get(&self) -> Result<&Value, &EvalError> {
        match self {
            SlotContent::Result(r) => r.as_ref(),
            SlotContent::Borrowed(v) => Ok(v),
            SlotContent::InDocument(v) => Ok(v.get()),
            SlotContent::Element(list, i) => Ok(&list.items[*i]),
        }
    }

    /// A copy of the value or error held.
    #[inline]
    pub fn to_result(&self) -> EvalResult {
        self.get().cloned().map_err(Clone::clone)
    }

    /// The value or error held, taking it out.
    pub(crate) fn into_result(self) -> EvalResult {
        match self {
            SlotContent::Result(r) => r,
            element => element.to_result(),
        }
    }

    /// Makes this slot the value of `json`, a node of `root`'s document: an object or
    /// array a slot already pointing into that document is moved to (no reference count
    /// update per iteration over an array).
    #[inline]
    pub(crate) fn set_json(&mut self, root: &Arc<serde_json::Value>, json: &serde_json::Value) {
        if json.is_object() || json.is_array() {
            if let SlotContent::Result(Ok(Value::Json(node))) = self {
                if node.repoint(root, json) {
                    return;
                }
            }
        }
        *self = SlotContent::Result(Ok(JsonNode::child_of(root, json)));
    }

    /// Makes this slot element `index` of `list`.
    #[inline]
    pub(crate) fn set_element(&mut self, list: &Arc<List>, index: usize) {
        match self {
            SlotContent::Element(l, i) if Arc::ptr_eq(l, list) => *i = index,
            other => *other = SlotContent::Element(list.clone(), index),
        }
    }
}

/// The content of a slot before it is written (every slot is written before it is read;
/// this is cheap to create, unlike an error).
pub(crate) fn unset<'a>() -> SlotContent<'a> {
    SlotContent::Result(Ok(Value::Null))
}

/// The value stored at a path's shared prefix (see [`crate::eval::shared_paths`]) and the
/// prefix's length, when `cache` names a slot of this frame holding one (not `null`: a
/// prefix that failed, or one of the other set of prefixes).
#[inline(always)]
pub(crate) fn cached_prefix<'s>(
    cache: Option<PathCache>,
    slots: &'s [SlotContent<'_>],
) -> Option<(&'s Value, usize)> {
    let PathCache { slot, len } = cache?;
    match slots.get(slot as usize)?.get() {
        Ok(Value::Null) | Err(_) => None,
        Ok(base) => Some((base, len as usize)),
    }
}
