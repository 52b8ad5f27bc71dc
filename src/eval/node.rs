//! The evaluation tree a plan is made of: every node kind with what it needs at run time
//! (slots, fields with their precomputed hashes, dispatch tables, inline operators, time
//! trees). The planner ([`super::plan`]) builds these, the interpreter ([`super::interp`])
//! walks them; this module depends on neither.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU8, AtomicU32};
use std::sync::{Arc, Weak};

use chrono::TimeDelta;
use regex::Regex;

use crate::cost::CallCost;
use crate::error::EvalError;
use crate::registry::{Implementation, Overload};
use crate::standard::strings::ConstantTest;
use crate::syntax::ast::ExprId;
use crate::value::{List, Map, Timestamp, Value};

/// cel-go's `cel.@block` function (bindings version 1).
pub(crate) const BLOCK: &str = "cel.@block";

/// How deep lazily evaluated block expressions may nest: the sum of the depths of the
/// expressions being evaluated at once (a read within another's evaluation). A longer chain
/// of reads (an expression that reads one that reads one ...) fails instead of overflowing
/// the stack; with the parser's depth limit (250) on the reading expression, 100 leaves a
/// margin on a 2 MB (test thread) stack in a debug build. cel-go, whose stacks grow, has no
/// such limit.
pub(crate) const MAX_BLOCK_NESTING: u32 = 100;

/// A frame slot index.
pub(crate) type Slot = u32;

/// One node of the evaluation tree.
#[derive(Debug)]
pub(crate) enum Node {
    Const(Value),
    /// Reads a frame slot (a variable or a comprehension variable).
    Load(Slot),
    /// Reads a frame slot without charging for it: cel-go resolves a variable used as a
    /// conditional branch or as an index key as an attribute, which it does not meter.
    LoadUncharged(Slot),
    /// Fails with an error when evaluated (unbound function, unsupported construct).
    Fail(EvalError),
    Select {
        id: ExprId,
        operand: Box<Node>,
        field: Field,
    },
    /// A variable followed by field selections (`self.spec.replicas`), walked by reference.
    Path(Box<PathNode>),
    /// An access chain over a constant, a variable or a path (`self.items[0].name`,
    /// `labels['app']`), planned once into an [`Operand`] that the in-place evaluations
    /// read without matching the chain's nodes; `node`, the chain as planned, is what is
    /// evaluated where the operand does not read in place (see [`AccessNode`]).
    Access(Box<AccessNode>),
    /// The operand of a selection or an index (or their optional forms) that is not an
    /// attribute (a literal, a call, a comprehension): cel-go plans the chain on it as a
    /// relative attribute, which its cost tracker charges 1 when evaluated, whatever the
    /// operand gave (`interpreter/planner.go`: `planSelect`/`planCallIndex` call
    /// `relativeAttr`; `runtimecost.go`: `Observe`, the `InterpretableAttribute` case).
    /// Evaluated as `node`, then charged 1. Not under a presence test, a conditional's
    /// branch or an index key, where cel-go resolves the attribute without evaluating it
    /// as an expression (see `plan::uncharge_attribute_root`).
    Relative(Box<Node>),
    /// `has(operand.field)`.
    Has {
        id: ExprId,
        operand: Box<Node>,
        field: Field,
    },
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Conditional(Box<[Node; 3]>),
    NotStrictlyFalse(Box<Node>),
    /// `!operand` (the standard `logical_not` overload, at its cost).
    Not {
        id: ExprId,
        operand: Box<Node>,
        cost: u64,
    },
    /// A call with its overload decided at plan time.
    Call {
        id: ExprId,
        implementation: Implementation,
        cost: CallCost,
        args: Box<[Node]>,
    },
    /// A binary operator, inline for ints and strings.
    Binary(Box<BinaryNode>),
    /// A call whose overload is chosen at run time from the argument types.
    Dispatch {
        id: ExprId,
        overloads: Box<[(Overload, CallCost)]>,
        args: Box<[Node]>,
        /// For one or two arguments: the overload to call by argument kinds.
        table: Option<DispatchTable>,
    },
    /// `a.or(b)` / `a.orValue(b)` on optionals: `b` is evaluated only when `a` is none
    /// (cel-go's lazy evaluation; no cost of its own).
    OptionalOr {
        lhs: Box<Node>,
        rhs: Box<Node>,
        or_value: bool,
    },
    /// `x in [constant list]`: a search of the sorted strings for a string, a scan otherwise
    /// (cost 0 itself, as cel-go's optimized set membership).
    InConstantList {
        element: Box<Node>,
        /// The list's strings, sorted and without duplicates.
        strings: Box<[Arc<str>]>,
        values: Arc<List>,
    },
    /// `s.matches('constant pattern')` with the pattern compiled once.
    MatchesConstant {
        id: ExprId,
        subject: Box<Node>,
        regex: Box<Regex>,
        pattern: Value,
        /// The overload's cost: size-priced for `matches_string`, 1 for the global
        /// `matches` (as cel-go prices them).
        cost: CallCost,
    },
    /// `s.startsWith(x)`, `s.endsWith(x)` or `s.contains(x)` (the standard overloads, at
    /// their cost) with a constant `x`: tested in place on a string read in place.
    StringTest(Box<StringTestNode>),
    /// `cel.@mapInsert(accu, key, value)` on a comprehension accumulator: inserts in place.
    InsertIntoAccumulator {
        id: ExprId,
        slot: Slot,
        key: Box<Node>,
        value: Box<Node>,
    },
    /// `accu + [elements]` where `accu` is a comprehension accumulator: appends in place.
    AppendToAccumulator {
        /// The `_+_` call's node, where errors of its operands are reported.
        id: ExprId,
        slot: Slot,
        elements: Box<[Node]>,
        /// What the list literal `[elements]` costs: 10, or 0 where the optimizer folds it
        /// (every element a constant).
        list_cost: u64,
    },
    List {
        elements: Box<[Node]>,
        /// Per element: written `?e` (include only when the optional has a value).
        optional: Box<[bool]>,
    },
    Map {
        id: ExprId,
        entries: Box<[MapEntryNode]>,
    },
    Fold(Box<FoldNode>),
    /// `a + b + c ...` (three or more operands): strings are appended to one buffer, other
    /// values added pairwise as the `_+_` overloads do.
    Concat(Box<ConcatNode>),
    /// `cel.@block([e0, e1, ...], body)` (cel-go's bindings version 1): `body` with the
    /// block's expressions as lazily evaluated slots.
    Block(Box<BlockNode>),
    /// `@indexN` inside a block: the block's expression N, evaluated when first read and
    /// remembered (error included) for the rest of the block's evaluation.
    BlockIndex {
        block: Weak<BlockSlots>,
        index: u32,
        /// Whether reading it is charged (see [`Node::LoadUncharged`]).
        charged: bool,
    },
    /// `size(x)` or `x.size()` (the standard overloads, at their cost of 1): the call,
    /// which int operator trees read in place (see `interp::int_tree`).
    Size(Box<Node>),
    /// A call of standard timestamp and duration conversions or arithmetic (all its
    /// candidate overloads such, at one fixed cost), possibly a [`Node::Memo`]: the call,
    /// which comparisons of timestamps or durations work out in place (see
    /// `time_tree::time_tree`).
    Time(Box<TimeNode>),
    /// A type conversion of an input variable's path (`timestamp(self.metadata.x)`) that
    /// occurs more than once, or inside a comprehension: its value does not change during
    /// an evaluation, so `node` is evaluated when first read and its value kept in `slot`
    /// and its cost in `slot + 1` (`null` until then; an error is not kept). Every read is
    /// charged that cost, as if the conversion were evaluated again.
    Memo {
        slot: Slot,
        node: Box<Node>,
    },
    /// The `all`/`exists` macros as a dedicated loop, with cel-go's cost and error
    /// absorption but without evaluating the accumulator bookkeeping.
    Quantifier(Box<QuantifierNode>),
    /// In reference mode ([`crate::ProgramOptions::reference`]), every constant, variable
    /// and selection below the root: evaluated as `node`, but never read in place (what
    /// reads operands in place does not recognise it), so that operands take the
    /// node-by-node path without a check in the fast one.
    Evaluated(Box<Node>),
    /// In a traced program ([`crate::trace`]): `node`, with its evaluation recorded as a
    /// step of expression node `id`.
    Traced(Box<TracedNode>),
}

/// See [`Node::Traced`].
#[derive(Debug)]
pub(crate) struct TracedNode {
    pub id: ExprId,
    pub node: Node,
}

impl Node {
    /// Wraps a planned node for tracing. Constants are left as they are: they have nothing
    /// to explain, and the planner folds and recognises them by kind (cel-go's constant
    /// folding changes costs, so it must see through nothing).
    pub(crate) fn traced(id: ExprId, node: Node) -> Node {
        match node {
            Node::Const(_) => node,
            node => Node::Traced(Box::new(TracedNode { id, node })),
        }
    }
}

/// See [`Node::StringTest`].
#[derive(Debug)]
pub(crate) struct StringTestNode {
    pub test: ConstantTest,
    /// What the call charges per traversal of its subject (`⌈size × 0.1⌉`): 1, or for
    /// `contains` the constant's own traversal cost.
    pub factor: u64,
    /// The call (a [`Node::Call`]), evaluated node by node where the subject is not a
    /// string read in place.
    pub call: Node,
}

/// See [`Node::Access`]: an access chain planned once, and the chain's nodes.
#[derive(Debug)]
pub(crate) struct AccessNode {
    pub operand: Operand,
    /// The chain as planned (field selections and inline indexes over the operand's
    /// base), evaluated node by node where [`AccessNode::operand`] does not read in place.
    pub node: Node,
}

/// An operand of the in-place evaluations planned once: a base that reads in place by
/// itself (a constant, a variable, a path, a constant under [`Node::Relative`]) and the
/// steps taken from it (field selections, map indexes by a constant string, list indexes
/// by a constant int), with what reading it charges when every step finds its entry:
/// the base's reading cost and 1 per step, as the node-by-node evaluation charges it.
#[derive(Debug)]
pub(crate) struct Operand {
    pub base: Node,
    pub steps: Box<[Step]>,
    pub static_cost: u64,
}

/// One step of an [`Operand`].
#[derive(Debug)]
pub(crate) enum Step {
    /// A map's (JSON object's) entry: a field selection or an index by a constant string.
    Field(Field),
    /// A list's (JSON array's) element: an index by a constant int.
    Index(i64),
}

/// A selected field name with its map-key hash, computed once when planning, and the
/// position where it was last found (objects of one shape keep fields in one place).
#[derive(Debug)]
pub(crate) struct Field {
    pub name: Arc<str>,
    hash: u64,
    hint: AtomicU32,
    /// Where the field was last found in a JSON object (its position in key order; see
    /// [`crate::value::object_get_hinted`]).
    json_hint: AtomicU32,
}

impl Field {
    pub(crate) fn new(name: Arc<str>) -> Field {
        let hash = crate::value::string_key_hash(&name);
        Field {
            name,
            hash,
            hint: AtomicU32::new(0),
            json_hint: AtomicU32::new(0),
        }
    }

    /// The same field with a position hint of its own.
    pub(crate) fn copy(&self) -> Field {
        Field {
            name: self.name.clone(),
            hash: self.hash,
            hint: AtomicU32::new(self.hint.load(Relaxed)),
            json_hint: AtomicU32::new(self.json_hint.load(Relaxed)),
        }
    }

    /// Whether `other` selects the same name.
    pub(crate) fn same_name(&self, other: &Field) -> bool {
        self.hash == other.hash && self.name == other.name
    }

    /// This field's entry in `map`.
    #[inline(always)]
    pub fn find<'m>(&self, map: &'m Map) -> Option<&'m Value> {
        map.get_str_hinted(&self.name, self.hash, &self.hint)
    }

    /// This field's entry in the JSON object `object`.
    #[inline(always)]
    pub fn find_json<'j>(
        &self,
        object: &'j serde_json::Map<String, serde_json::Value>,
    ) -> Option<&'j serde_json::Value> {
        crate::value::object_get_hinted(object, &self.name, &self.json_hint)
    }

    /// The field's name and its JSON position hint, for [`crate::value::InDocument::select`].
    pub(crate) fn json_selection(&self) -> (&str, &AtomicU32) {
        (&self.name, &self.json_hint)
    }
}

impl Node {
    /// Calls `f` on each direct child node (the expressions of a block, shared with its
    /// reads, are not visited).
    pub(crate) fn for_each_child_mut(&mut self, f: &mut dyn FnMut(&mut Node)) {
        match self {
            Node::Const(_)
            | Node::Load(_)
            | Node::LoadUncharged(_)
            | Node::Fail(_)
            | Node::Path(_)
            | Node::BlockIndex { .. } => {}
            Node::Select { operand, .. }
            | Node::Memo { node: operand, .. }
            | Node::Size(operand)
            | Node::Has { operand, .. }
            | Node::NotStrictlyFalse(operand)
            | Node::Not { operand, .. }
            | Node::InConstantList {
                element: operand, ..
            }
            | Node::MatchesConstant {
                subject: operand, ..
            }
            | Node::Relative(operand)
            | Node::Evaluated(operand) => f(operand),
            Node::Access(a) => f(&mut a.node),
            Node::And(a, b)
            | Node::Or(a, b)
            | Node::OptionalOr { lhs: a, rhs: b, .. }
            | Node::InsertIntoAccumulator {
                key: a, value: b, ..
            } => {
                f(a);
                f(b);
            }
            Node::Time(t) => f(&mut t.call),
            Node::Binary(b) => {
                f(&mut b.lhs);
                f(&mut b.rhs);
            }
            Node::Conditional(parts) => parts.iter_mut().for_each(f),
            Node::Call { args, .. }
            | Node::Dispatch { args, .. }
            | Node::AppendToAccumulator { elements: args, .. }
            | Node::List { elements: args, .. } => args.iter_mut().for_each(f),
            Node::Map { entries, .. } => {
                for e in entries.iter_mut() {
                    f(&mut e.key);
                    f(&mut e.value);
                }
            }
            Node::Fold(x) => {
                for n in [
                    &mut x.range,
                    &mut x.init,
                    &mut x.condition,
                    &mut x.step,
                    &mut x.result,
                ] {
                    f(n);
                }
            }
            Node::Quantifier(q) => {
                f(&mut q.range);
                f(&mut q.predicate);
            }
            Node::Concat(c) => {
                f(&mut c.first);
                c.rest.iter_mut().for_each(|(_, n)| f(n));
            }
            Node::Block(b) => f(&mut b.body),
            Node::StringTest(t) => f(&mut t.call),
            Node::Traced(t) => f(&mut t.node),
        }
    }
}

/// Overload choice by argument kinds ([`Value::kind`]) for calls with one or two
/// arguments: one entry per kind (or pair of kinds), each worked out from the overloads
/// the first time a call meets those kinds (most calls only ever see one or two).
pub(crate) struct DispatchTable {
    arity: usize,
    entries: Box<[AtomicU8]>,
}

impl DispatchTable {
    /// No overload accepts these kinds.
    pub const NONE: u8 = u8::MAX;
    /// The choice depends on more than the kinds: try the overloads in order.
    pub const SCAN: u8 = u8::MAX - 1;
    /// Not worked out yet.
    const UNKNOWN: u8 = u8::MAX - 2;

    pub(crate) fn new(overloads: &[(Overload, CallCost)], arity: usize) -> Option<DispatchTable> {
        if !(1..=2).contains(&arity) || overloads.len() >= usize::from(Self::UNKNOWN) {
            return None;
        }
        let entries = (0..crate::value::kind::COUNT.pow(arity as u32))
            .map(|_| AtomicU8::new(Self::UNKNOWN))
            .collect();
        Some(DispatchTable { arity, entries })
    }

    /// The entry for a pair of argument kinds (of a two-argument table).
    pub(crate) fn get_kinds(&self, overloads: &[(Overload, CallCost)], a: u8, b: u8) -> u8 {
        self.entry(
            overloads,
            usize::from(a) * crate::value::kind::COUNT + usize::from(b),
        )
    }

    /// The entry for the argument kinds; `overloads` are those the table was made for.
    #[inline]
    pub fn get(&self, overloads: &[(Overload, CallCost)], args: &[&Value]) -> u8 {
        let i = match args {
            [a] if self.arity == 1 => usize::from(a.kind()),
            [a, b] if self.arity == 2 => {
                usize::from(a.kind()) * crate::value::kind::COUNT + usize::from(b.kind())
            }
            _ => return Self::SCAN,
        };
        self.entry(overloads, i)
    }

    #[inline]
    fn entry(&self, overloads: &[(Overload, CallCost)], i: usize) -> u8 {
        let Some(slot) = self.entries.get(i) else {
            return Self::NONE;
        };
        match slot.load(Relaxed) {
            Self::UNKNOWN => {
                // Every thread works out the same entry, so a race only repeats work.
                let entry = self.choose(overloads, i);
                slot.store(entry, Relaxed);
                entry
            }
            entry => entry,
        }
    }

    /// The first overload that accepts the kinds of entry `i` by kind alone, `SCAN` when
    /// one before it needs the values themselves, `NONE` when none does.
    #[cold]
    fn choose(&self, overloads: &[(Overload, CallCost)], i: usize) -> u8 {
        let kinds = crate::value::kind::COUNT;
        let pair = [(i / kinds) as u8, (i % kinds) as u8];
        let args = if self.arity == 1 {
            &[i as u8][..]
        } else {
            &pair[..]
        };
        for (n, (o, _)) in overloads.iter().enumerate() {
            if o.params.len() != self.arity {
                continue;
            }
            let mut accepts = Some(true);
            for (t, k) in o.params.iter().zip(args) {
                match t.accepts_kind(*k) {
                    Some(true) => {}
                    Some(false) => {
                        accepts = Some(false);
                        break;
                    }
                    None => accepts = None,
                }
            }
            match accepts {
                Some(true) => return n as u8,
                Some(false) => {}
                None => return Self::SCAN,
            }
        }
        Self::NONE
    }
}

impl std::fmt::Debug for DispatchTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DispatchTable")
    }
}

/// A chain of `_+_` calls, innermost first: `first + rest[0].1 + rest[1].1 ...`, each step
/// with the id of its call. Every call of the chain resolves to the same overloads, among
/// them `add_string` at cel-go's default cost.
#[derive(Debug)]
pub(crate) struct ConcatNode {
    pub first: Node,
    pub rest: Box<[(ExprId, Node)]>,
    pub overloads: Box<[(Overload, CallCost)]>,
    pub table: Option<DispatchTable>,
}

/// A call of a binary operator with an inline evaluation for common operand kinds (see
/// [`Inline`]); other operands go through the overloads as a [`Node::Dispatch`] would.
#[derive(Debug)]
pub(crate) struct BinaryNode {
    pub id: ExprId,
    pub inline: Inline,
    pub lhs: Node,
    pub rhs: Node,
    /// The key of `in` or an index when it is a constant string, with its hash.
    pub key: Option<Field>,
    /// What reading both operands costs when both can be read in place (see
    /// `interp::read_cost`).
    pub read_cost: Option<u64>,
    /// Whether this is an int operator over operands that are int operators of the same
    /// kind or operands with a reading cost, down to the leaves (see `interp::int_tree`).
    pub int_tree: bool,
    /// Where `int_tree` holds and an operand is itself an int operator, the whole tree is
    /// first tried without intermediate values: what that charges when it succeeds (each
    /// leaf's reading cost and 1 per operator, as node by node).
    pub fused_cost: Option<u64>,
    /// Where this compares timestamps or durations and an operand is a [`Node::Time`]
    /// call, the comparison is first tried with its operands worked out in place (see
    /// `time_tree::time_tree`): what their evaluation charges when it succeeds.
    pub time_tree: Option<u64>,
    pub overloads: Box<[(Overload, CallCost)]>,
    pub table: DispatchTable,
}

/// A variable followed by one or more field selections.
#[derive(Debug)]
pub(crate) struct PathNode {
    pub slot: Slot,
    /// Whether reading the variable is charged (see [`Node::LoadUncharged`]).
    pub charged: bool,
    /// The selections in order, each with the id of its select expression.
    pub fields: Box<[(ExprId, Field)]>,
    /// Where the value at a prefix shared with other paths is kept (see
    /// [`crate::eval::shared_paths`]).
    pub cache: Option<PathCache>,
    /// The same where the variables are a JSON activation's document, whose selections
    /// cost more, so that more prefixes are worth sharing (in a frame of its own size).
    pub json_cache: Option<PathCache>,
}

/// A frame slot holding the value at the first `len` selections of the path (`null` when
/// that prefix failed or is `null` in this evaluation).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PathCache {
    pub slot: Slot,
    pub len: u32,
}

/// Which quantifier macro.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quantifier {
    All,
    Exists,
}

#[derive(Debug)]
pub(crate) struct QuantifierNode {
    pub id: ExprId,
    pub kind: Quantifier,
    pub iter_slot: Slot,
    pub range: Node,
    pub predicate: Node,
}

#[derive(Debug)]
pub(crate) struct MapEntryNode {
    pub key: Node,
    pub value: Node,
    pub optional: bool,
}

#[derive(Debug)]
pub(crate) struct FoldNode {
    pub id: ExprId,
    pub iter_slot: Slot,
    pub iter_slot2: Option<Slot>,
    pub accu_slot: Slot,
    pub range: Node,
    pub init: Node,
    pub condition: Node,
    pub step: Node,
    pub result: Node,
    /// Whether the loop runs while `true` and each step appends one element, computed
    /// without reading the accumulator, to it (`map`): over a list, the accumulator is
    /// then built as a vector (see `interp::fold`).
    pub appends: bool,
}

/// The expressions of a `cel.@block`, shared by the block and its `@indexN` reads.
#[derive(Debug)]
pub(crate) struct BlockSlots {
    pub exprs: Box<[Node]>,
    /// Per expression: its depth (nesting of its AST), which evaluating it on a read adds
    /// to the evaluation's nesting (see [`MAX_BLOCK_NESTING`]).
    pub depths: Box<[u32]>,
    /// Expression `i`'s value is in frame slot `base + 2i`, its state (unread, being
    /// evaluated, read) in `base + 2i + 1`.
    pub base: Slot,
}

#[derive(Debug)]
pub(crate) struct BlockNode {
    pub slots: Arc<BlockSlots>,
    pub body: Node,
    /// cel-go meters nothing evaluated inside a block that no comprehension encloses: its
    /// slot activation hides the cost tracker from everything evaluated under it (the
    /// tracker is looked up through `Parent()`, which that activation forwards past the
    /// activation it wraps). Such a block's body and slots are free, and unlimited.
    pub hidden: bool,
}

/// A timestamp or a duration: what a time tree computes with.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Time {
    Timestamp(Timestamp),
    Duration(TimeDelta),
}

/// The standard timestamp and duration overloads among a call's candidates, as bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TimeOverloads(pub(crate) u16);

/// A call of standard timestamp and duration conversions or arithmetic (see
/// [`TimeOverloads::of`]): the payload of a [`Node::Time`].
#[derive(Debug)]
pub(crate) struct TimeNode {
    /// The call (a [`Node::Call`] or [`Node::Dispatch`], possibly in a [`Node::Memo`]),
    /// evaluated node by node where the time tree does not apply.
    pub call: Node,
    pub overloads: TimeOverloads,
    /// What evaluating the call node by node charges when it succeeds, its arguments
    /// included; `None` when an argument is not one a time tree works out.
    pub cost: Option<u64>,
}

/// A binary operator with an inline evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operator {
    Equals,
    NotEquals,
    Less,
    LessEquals,
    Greater,
    GreaterEquals,
    Add,
    Subtract,
    Multiply,
    Divide,
    Modulo,
    /// `key in map`.
    In,
    /// `map[key]`.
    Index,
}

/// An operator and the operand kinds it is evaluated inline for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Inline {
    pub(crate) op: Operator,
    pub(crate) ints: bool,
    pub(crate) strings: bool,
    /// A string key and a map (for `in` and indexing).
    pub(crate) keyed: bool,
    /// A list and an int index.
    pub(crate) indexed: bool,
    /// Two timestamps (compared).
    pub(crate) timestamps: bool,
    /// Two durations (compared).
    pub(crate) durations: bool,
    /// Two bools (tested for equality).
    pub(crate) bools: bool,
}

/// The arguments of the call a [`TimeNode`] holds (or its memo).
#[inline(always)]
pub(crate) fn call_args(call: &Node) -> Option<&[Node]> {
    let call = match call {
        Node::Memo { node, .. } => node,
        other => other,
    };
    match call {
        Node::Call { args, .. } | Node::Dispatch { args, .. } => Some(args),
        _ => None,
    }
}
