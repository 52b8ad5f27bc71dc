//! Operands read in place: what the interpreter's in-place evaluations see of a constant, a
//! variable or an access chain over one (`self.spec.replicas`, `labels['app']`,
//! `items[0]`) — a value held by the frame or the program, or a node of a JSON document a
//! variable reads in place ([`crate::JsonActivation`]), scalars included, so that comparing
//! a field of a decoded request copies nothing.
//!
//! An access chain is planned once ([`plan_operands`]): the planner's chain of selections
//! and inline indexes becomes a [`Node::Access`] whose [`Operand`] holds the chain's base,
//! its steps and its reading cost, so that reading it is a loop over the steps rather than
//! a match of the chain's nodes on every evaluation.

use serde_json::Value as Json;

use crate::cost;
use crate::eval::node::{AccessNode, Field, Node, Operand, PathCache, PathNode, Step};
use crate::eval::slot::{SlotContent, cached_prefix};
use crate::syntax::ast::ExprId;
use crate::value::{JsonNode, Value, object_get};

/// Plans every access chain of the tree below `node`, `node` included, once: each
/// becomes a [`Node::Access`] holding its [`Operand`] and the chain, whose own inner chains
/// are planned likewise (they are evaluated where the whole chain does not read in place).
/// The last pass of planning (after [`crate::eval::shared_paths`], whose prefix caches the
/// operands' paths keep); not in reference mode, whose chains are evaluated node by node.
pub(crate) fn plan_operands(node: &mut Node) {
    let Some(operand) = plan_operand(node) else {
        node.for_each_child_mut(&mut plan_operands);
        return;
    };
    let chain = std::mem::replace(node, Node::Const(Value::Null));
    let mut access = AccessNode {
        operand,
        node: chain,
    };
    access.node.for_each_child_mut(&mut plan_operands);
    *node = Node::Access(Box::new(access));
}

/// `node` as an [`Operand`] when it is an access chain (see [`access_operand`]) of one or
/// more steps over a base read in place by itself; `None` otherwise.
fn plan_operand(node: &Node) -> Option<Operand> {
    let mut steps = Vec::new();
    let mut current = node;
    while let Some(operand) = access_operand(current) {
        steps.push(step(current)?);
        current = operand;
    }
    if steps.is_empty() {
        return None;
    }
    let static_cost = simple_read_cost(current)? + steps.len() as u64;
    steps.reverse();
    Some(Operand {
        base: copy_base(current)?,
        steps: steps.into(),
        static_cost,
    })
}

/// The step an access (see [`access_operand`]) takes from its operand.
fn step(access: &Node) -> Option<Step> {
    match access {
        Node::Select { field, .. } => Some(Step::Field(field.copy())),
        Node::Binary(b) => match (&b.key, &b.rhs) {
            (Some(key), _) => Some(Step::Field(key.copy())),
            (None, Node::Const(Value::Int(i))) => Some(Step::Index(*i)),
            _ => None,
        },
        _ => None,
    }
}

/// A copy of an operand's base (a node [`simple_read_cost`] prices).
fn copy_base(base: &Node) -> Option<Node> {
    Some(match base {
        Node::Const(v) => Node::Const(v.clone()),
        Node::Load(slot) => Node::Load(*slot),
        Node::LoadUncharged(slot) => Node::LoadUncharged(*slot),
        Node::Relative(inner) => Node::Relative(Box::new(copy_base(inner)?)),
        Node::Path(p) => Node::Path(Box::new(PathNode {
            slot: p.slot,
            charged: p.charged,
            fields: p.fields.iter().map(|(id, f)| (*id, f.copy())).collect(),
            cache: p.cache,
            json_cache: p.json_cache,
        })),
        _ => return None,
    })
}

/// The operand of an access the in-place evaluations read through: a field selection, or
/// a map index by a constant string or a list index by a constant int evaluated inline
/// (charged 1 each, as the selection or the index call). `None` for other nodes.
fn access_operand(node: &Node) -> Option<&Node> {
    match node {
        Node::Select { operand, .. } => Some(operand),
        Node::Binary(b)
            if (b.key.is_some() && b.inline.indexes_map())
                || (b.inline.indexes_list() && matches!(b.rhs, Node::Const(Value::Int(_)))) =>
        {
            Some(&b.lhs)
        }
        _ => None,
    }
}

/// What reading an operand in place charges (what evaluating it node by node charges
/// when it succeeds): a constant, a variable, a path, a constant under [`Node::Relative`]
/// or an access chain over one (planned or not yet planned); `None` for other nodes.
pub(crate) fn read_cost(node: &Node) -> Option<u64> {
    match node {
        Node::Access(a) => Some(a.operand.static_cost),
        other => match access_operand(other) {
            Some(operand) => read_cost(operand).map(|c| c + 1),
            None => simple_read_cost(other),
        },
    }
}

/// What reading a base (a constant, a variable, a path, a constant under
/// [`Node::Relative`]) charges; `None` for other nodes.
#[inline(always)]
pub(crate) fn simple_read_cost(node: &Node) -> Option<u64> {
    match node {
        Node::Const(_) | Node::LoadUncharged(_) => Some(0),
        Node::Load(_) => Some(cost::SELECT_AND_IDENT),
        // A constant under a chain of accesses: the relative attribute's 1.
        Node::Relative(inner) if matches!(**inner, Node::Const(_)) => Some(cost::SELECT_AND_IDENT),
        Node::Path(p) => Some(u64::from(p.charged) + p.fields.len() as u64),
        _ => None,
    }
}

/// How the in-place evaluations read their operands, chosen once per evaluation: [`Values`]
/// where no variable is bound to JSON read in place (the usual pre-bound activations), so
/// that those kernels never test for JSON, and [`Reads`] where one is (the frame's `json`
/// flag, set when the variables are bound). Under [`Values`] a JSON node is a value of its own
/// kind, which no in-place kernel takes: evaluation then handles it, as it handles any
/// operand not read in place.
pub(crate) trait Reader {
    /// What an operand reads as.
    type Out<'s>: Copy;
    /// A value read in place.
    fn of<'s>(v: &'s Value) -> Self::Out<'s>;
    /// The operand as a [`Read`], for kernels written once over both.
    fn read<'s>(out: Self::Out<'s>) -> Read<'s>;
    /// A map's (object's) entry for `field`.
    fn field<'s>(base: Self::Out<'s>, field: &Field) -> Option<Self::Out<'s>>;
    /// A list's (array's) element `i`.
    fn element<'s>(base: Self::Out<'s>, i: i64) -> Option<Self::Out<'s>>;
    /// The value at the end of `fields` from `start` when each selection finds an entry.
    fn walk<'s>(start: &'s Value, fields: &[(ExprId, Field)]) -> Option<Self::Out<'s>>;
    /// The value stored at `path`'s shared prefix in this kind of frame, and the prefix's
    /// length (see [`crate::eval::shared_paths`]).
    fn prefix<'s>(path: &PathNode, slots: &'s [SlotContent<'_>]) -> Option<(&'s Value, usize)>;
    /// The value `step` reaches from `base`.
    #[inline(always)]
    fn step<'s>(base: Self::Out<'s>, step: &Step) -> Option<Self::Out<'s>> {
        match step {
            Step::Field(field) => Self::field(base, field),
            Step::Index(i) => Self::element(base, *i),
        }
    }
}

/// Operands read as values only (see [`Reader`]).
pub(crate) struct Values;

/// Operands read as values or as nodes of a JSON document (see [`Reader`]).
pub(crate) struct Reads;

impl Reader for Values {
    type Out<'s> = &'s Value;

    #[inline(always)]
    fn of(v: &Value) -> &Value {
        v
    }

    #[inline(always)]
    fn read<'s>(out: Self::Out<'s>) -> Read<'s> {
        Read::Value(out)
    }

    #[inline(always)]
    fn field<'s>(base: Self::Out<'s>, field: &Field) -> Option<Self::Out<'s>> {
        match base {
            Value::Map(m) => field.find(m),
            _ => None,
        }
    }

    #[inline(always)]
    fn element<'s>(base: Self::Out<'s>, i: i64) -> Option<Self::Out<'s>> {
        match base {
            Value::List(items) => items.get(usize::try_from(i).ok()?),
            _ => None,
        }
    }

    #[inline(always)]
    fn walk<'s>(start: &'s Value, fields: &[(ExprId, Field)]) -> Option<&'s Value> {
        walk_maps(start, fields)
    }

    #[inline(always)]
    fn prefix<'s>(path: &PathNode, slots: &'s [SlotContent<'_>]) -> Option<(&'s Value, usize)> {
        let PathCache { slot, len } = path.cache?;
        match slots[slot as usize].get() {
            Ok(Value::Null) | Err(_) => None,
            Ok(base) => Some((base, len as usize)),
        }
    }
}

impl Reader for Reads {
    type Out<'s> = Read<'s>;

    #[inline(always)]
    fn of<'s>(v: &'s Value) -> Read<'s> {
        Read::of(v)
    }

    #[inline(always)]
    fn read<'s>(out: Self::Out<'s>) -> Read<'s> {
        out
    }

    #[inline(always)]
    fn field<'s>(base: Self::Out<'s>, field: &Field) -> Option<Self::Out<'s>> {
        base.field(field)
    }

    #[inline(always)]
    fn element<'s>(base: Self::Out<'s>, i: i64) -> Option<Self::Out<'s>> {
        base.element(i)
    }

    #[inline(always)]
    fn prefix<'s>(path: &PathNode, slots: &'s [SlotContent<'_>]) -> Option<(&'s Value, usize)> {
        // A JSON activation's frame has the JSON prefixes; in a frame of values in which a
        // variable is JSON (bound otherwise) their slots lie beyond the frame's, and paths
        // are walked from their variables.
        cached_prefix(path.json_cache, slots)
    }

    #[inline(always)]
    fn walk<'s>(start: &'s Value, fields: &[(ExprId, Field)]) -> Option<Read<'s>> {
        // Values first: the walk through maps stays as short as it is under [`Values`].
        match walk_maps(start, fields) {
            Some(v) => Some(Read::of(v)),
            None => {
                walk_json_reads(start, fields).map(|(document, json)| Read::Json(document, json))
            }
        }
    }
}

/// The value at the end of `fields` from `start` when each selection finds a map entry;
/// `None` for anything else (a missing field, another kind of value), which evaluation
/// handles.
#[inline(always)]
pub(crate) fn walk_maps<'s>(start: &'s Value, fields: &[(ExprId, Field)]) -> Option<&'s Value> {
    let mut current = start;
    for (_, field) in fields {
        let Value::Map(m) = current else { return None };
        current = field.find(m)?;
    }
    Some(current)
}

/// [`Reads::walk`] where the walk through maps stopped: through JSON objects too. What it
/// gives is a JSON node (a walk that ends on a value is one [`walk_maps`] takes), as a pair
/// that is returned in registers rather than an `Option<Read>` returned through memory.
#[inline(never)]
fn walk_json_reads<'s>(
    start: &'s Value,
    fields: &[(ExprId, Field)],
) -> Option<(&'s JsonNode, &'s Json)> {
    let mut current = Read::of(start);
    for (_, field) in fields {
        current = current.field(field)?;
    }
    match current {
        Read::Json(document, json) => Some((document, json)),
        // Not reached (see above); evaluation reads it otherwise.
        Read::Value(_) => None,
    }
}

/// An operand read in place (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Read<'s> {
    /// A value; never a JSON node (see [`Read::of`]). A list of JSON nodes (what `filter`
    /// keeps of a JSON array) is one, of a kind no in-place kernel takes: evaluation
    /// handles it, as it handles a JSON node under [`Values`].
    Value(&'s Value),
    /// A node of the JSON document `document` points into (any node of it: scalars are
    /// read as they are, objects and arrays in place).
    Json(&'s JsonNode, &'s Json),
}

impl<'s> Read<'s> {
    /// `v` read in place: a JSON node as the JSON it points at.
    #[inline(always)]
    pub fn of(v: &'s Value) -> Read<'s> {
        match v {
            Value::Json(j) => match j.json() {
                Some(json) => Read::Json(j, json),
                // A list of nodes: a value of a kind no in-place kernel takes.
                None => Read::Value(v),
            },
            v => Read::Value(v),
        }
    }

    /// The value, when this is not JSON.
    #[inline(always)]
    pub fn value(self) -> Option<&'s Value> {
        match self {
            Read::Value(v) => Some(v),
            Read::Json(..) => None,
        }
    }

    /// The value as the interpreter would have evaluated it: JSON scalars converted,
    /// objects and arrays as JSON nodes of the same document.
    pub fn to_value(self) -> Value {
        match self {
            Read::Value(v) => v.clone(),
            Read::Json(document, json) => document.child(json),
        }
    }

    /// The text of a string.
    #[inline(always)]
    pub fn as_str(self) -> Option<&'s str> {
        match self {
            Read::Value(Value::String(s)) => Some(s),
            Read::Json(_, Json::String(s)) => Some(s),
            _ => None,
        }
    }

    /// An int (a JSON number that converts to an `int`: integral and within `i64`).
    #[inline(always)]
    pub fn as_int(self) -> Option<i64> {
        match self {
            Read::Value(Value::Int(i)) => Some(*i),
            Read::Json(_, Json::Number(n)) => n.as_i64(),
            _ => None,
        }
    }

    /// A bool.
    #[inline(always)]
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Read::Value(Value::Bool(b)) => Some(*b),
            Read::Json(_, Json::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// A map's (object's) entry for `field`; `None` for a missing one and for other values.
    #[inline(always)]
    pub fn field(self, field: &Field) -> Option<Read<'s>> {
        match self {
            Read::Value(Value::Map(m)) => field.find(m).map(Read::of),
            Read::Json(document, Json::Object(o)) => {
                field.find_json(o).map(|j| Read::Json(document, j))
            }
            _ => None,
        }
    }

    /// Whether a map (object) has `field`; `None` for other values.
    #[inline(always)]
    pub fn has_field(self, field: &Field) -> Option<bool> {
        match self {
            Read::Value(Value::Map(m)) => Some(field.find(m).is_some()),
            Read::Json(_, Json::Object(o)) => Some(field.find_json(o).is_some()),
            _ => None,
        }
    }

    /// Whether a map (object) has the string `key`; `None` for other values.
    #[inline(always)]
    pub fn has_key(self, key: &str) -> Option<bool> {
        match self {
            Read::Value(Value::Map(m)) => Some(m.get_str(key).is_some()),
            Read::Json(_, Json::Object(o)) => Some(object_get(o, key).is_some()),
            _ => None,
        }
    }

    /// Whether this is a map (an object).
    #[inline(always)]
    pub fn is_map(self) -> bool {
        matches!(
            self,
            Read::Value(Value::Map(_)) | Read::Json(_, Json::Object(_))
        )
    }

    /// Whether this is a list (an array).
    #[inline(always)]
    pub fn is_list(self) -> bool {
        matches!(
            self,
            Read::Value(Value::List(_)) | Read::Json(_, Json::Array(_))
        )
    }

    /// A map's (object's) entry for the string `key`; `None` for a missing one and for
    /// other values.
    #[inline(always)]
    pub fn key(self, key: &str) -> Option<Read<'s>> {
        match self {
            Read::Value(Value::Map(m)) => m.get_str(key).map(Read::of),
            Read::Json(document, Json::Object(o)) => {
                object_get(o, key).map(|j| Read::Json(document, j))
            }
            _ => None,
        }
    }

    /// A list's (array's) element `i`; `None` out of range and for other values.
    #[inline(always)]
    pub fn element(self, i: i64) -> Option<Read<'s>> {
        let i = usize::try_from(i).ok()?;
        match self {
            Read::Value(Value::List(items)) => items.get(i).map(Read::of),
            Read::Json(document, Json::Array(a)) => a.get(i).map(|j| Read::Json(document, j)),
            _ => None,
        }
    }

    /// The length of a list (array) or map (object); `None` for other values.
    #[inline(always)]
    pub fn len(self) -> Option<usize> {
        match self {
            Read::Value(Value::List(items)) => Some(items.len()),
            Read::Value(Value::Map(m)) => Some(m.len()),
            Read::Json(_, Json::Array(a)) => Some(a.len()),
            Read::Json(_, Json::Object(o)) => Some(o.len()),
            _ => None,
        }
    }

    /// What `size()` gives: a string's code points, the bytes of bytes, the length of a list
    /// or map; `None` for other values.
    #[inline(always)]
    pub fn size(self) -> Option<u64> {
        match self {
            Read::Value(Value::Bytes(b)) => Some(b.len() as u64),
            _ => match self.as_str() {
                Some(s) => Some(crate::cost::code_points(s)),
                None => self.len().map(|n| n as u64),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// Reading JSON in place gives what converting it first gives.
    #[test]
    fn json_reads_as_its_converted_value() {
        let doc = Arc::new(serde_json::json!({
            "n": 3, "big": u64::MAX, "d": 2.5, "s": "héllo", "b": true, "z": null,
            "o": {"k": "v"}, "a": [1, "x", {"c": 2}]
        }));
        let root = Value::from_shared_json(doc.clone());
        let converted = Value::from(&*doc);
        let (json, plain) = (Read::of(&root), Read::of(&converted));
        for name in ["n", "big", "d", "s", "b", "z", "o", "a", "missing"] {
            let field = Field::new(name.into());
            let (j, p) = (json.field(&field), plain.field(&field));
            assert_eq!(j.is_some(), p.is_some(), "{name}");
            assert_eq!(json.has_field(&field), plain.has_field(&field));
            let (Some(j), Some(p)) = (j, p) else { continue };
            assert!(
                j.to_value().materialize().cel_eq(p.value().unwrap()),
                "{name}"
            );
            assert_eq!(j.as_str(), p.as_str(), "{name}");
            assert_eq!(j.as_int(), p.as_int(), "{name}");
            assert_eq!(j.as_bool(), p.as_bool(), "{name}");
            assert_eq!(j.size(), p.size(), "{name}");
            assert_eq!(j.len(), p.len(), "{name}");
            for i in [-1, 0, 1, 2, 3] {
                let (je, pe) = (j.element(i), p.element(i));
                assert_eq!(je.is_some(), pe.is_some(), "{name}[{i}]");
                if let (Some(je), Some(pe)) = (je, pe) {
                    assert!(je.to_value().materialize().cel_eq(pe.value().unwrap()));
                }
            }
            assert_eq!(j.key("k").is_some(), p.key("k").is_some(), "{name}");
        }
    }
}
