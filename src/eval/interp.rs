//! The interpreter: walks a planned [`Node`] tree over a frame of slots.

use std::borrow::Cow;

use smallvec::SmallVec;
use std::mem::ManuallyDrop;
use std::sync::Arc;

use crate::cost::{self, CallCost};
use crate::error::EvalError;
use crate::eval::node::{
    AccessNode, BinaryNode, BlockNode, BlockSlots, ConcatNode, DispatchTable, Field, FoldNode,
    MAX_BLOCK_NESTING, MapEntryNode, Node, Operand, PathCache, PathNode, Quantifier,
    QuantifierNode, Slot, StringTestNode, Time, TimeNode, TimeOverloads, call_args,
};
use crate::eval::operand::{Read, Reader, Reads, Values, read_cost, simple_read_cost, walk_maps};
use crate::eval::slot::SlotContent;
use crate::eval::slot::{cached_prefix, unset};
use crate::registry::{Implementation, Overload};
use crate::syntax::ast::ExprId;
use crate::value::EvalResult;
use crate::value::{JsonNode, Key, List, Map, Value, str_eq};

/// A callback polled during long comprehensions; returning true stops evaluation.
pub type Interrupt = dyn Fn() -> bool + Send + Sync;

/// Per-evaluation state: one entry per slot, and the cost meter. A slot may hold an error
/// (an unbound variable, or a comprehension accumulator that absorbed one).
pub(crate) struct Frame<'s, 'a> {
    /// Held by a [`SlotStorage`]: a plain slice, so that reading a slot is one bounds check.
    pub slots: &'s mut [SlotContent<'a>],
    /// Cost so far.
    pub cost: u64,
    /// Evaluation stops with an error as soon as the cost passes this.
    pub limit: u64,
    /// Cost of a `has()` test (cel-go: 1; Kubernetes: 0).
    pub presence_cost: u64,
    pub interrupt: Option<&'a Interrupt>,
    /// The nesting of the block expressions being evaluated (see `MAX_BLOCK_NESTING`).
    pub block_nesting: u32,
    /// Where chains of string `+` are built (see [`concat`]), kept to be reused.
    pub text_buffer: String,
    /// The steps of a traced evaluation ([`crate::trace`]); `None` otherwise.
    pub trace: Option<Box<crate::eval::trace_log::TraceLog>>,
    /// The error of the last condition that gave [`Truth::Error`], until taken.
    error: Option<EvalError>,
    /// Whether a variable is bound to JSON read in place: the in-place evaluations then read
    /// with [`Reads`], otherwise with [`Values`] (see [`crate::eval::operand::Reader`]).
    pub json: bool,
}

/// How many slots a frame holds without allocating.
const INLINE_SLOTS: usize = 8;

/// Where a frame's slots live: on the stack for the few slots most programs have (no
/// allocation per evaluation), in a vector beyond that. The inline slots are written only
/// for a frame that has slots (a program that reads no variable has none): writing them is
/// a good part of a small evaluation's fixed cost.
pub(crate) struct SlotStorage<'a> {
    /// Dropped by hand (see the `Drop` impl): only the slots given to a frame can hold
    /// anything to drop, and dropping all of them cost more than the evaluation of a small
    /// expression.
    inline: Option<ManuallyDrop<[SlotContent<'a>; INLINE_SLOTS]>>,
    /// How many of the inline slots were given to a frame.
    used: usize,
    /// Made only for frames with more slots than the inline ones.
    spilled: Option<Vec<SlotContent<'a>>>,
}

impl Drop for SlotStorage<'_> {
    fn drop(&mut self) {
        // What the used slots hold is dropped here; every inline slot then holds `null`,
        // which owns nothing, so the array itself needs no drop.
        if let Some(inline) = &mut self.inline {
            for slot in &mut inline[..self.used] {
                *slot = unset();
            }
        }
    }
}

impl<'a> SlotStorage<'a> {
    /// Storage with no slots written yet.
    #[inline]
    pub fn new() -> SlotStorage<'a> {
        SlotStorage {
            inline: None,
            used: 0,
            spilled: None,
        }
    }

    /// A frame of `size` unset slots, with no cost limit.
    #[inline]
    pub fn frame(&mut self, size: usize) -> Frame<'_, 'a> {
        let slots = if size == 0 {
            &mut []
        } else if size <= INLINE_SLOTS {
            self.used = size;
            // Unset slots hold `null`: nothing to drop.
            let inline = self.inline.insert(ManuallyDrop::new(
                [const { SlotContent::Result(Ok(Value::Null)) }; INLINE_SLOTS],
            ));
            &mut inline[..size]
        } else {
            let spilled = self.spilled.insert(Vec::new());
            spilled.resize_with(size, unset);
            &mut spilled[..]
        };
        Frame {
            slots,
            cost: 0,
            limit: u64::MAX,
            presence_cost: cost::SELECT_AND_IDENT,
            interrupt: None,
            block_nesting: 0,
            text_buffer: String::new(),
            trace: None,
            error: None,
            json: false,
        }
    }
}

/// How often (in comprehension iterations) the interrupt callback is polled, as in cel-go.
const INTERRUPT_CHECK_FREQUENCY: usize = 100;

/// Whether this build reads JSON in place in its in-place evaluations. Not in the browser
/// module, whose first download counts more than the speed of JSON read in place: there the
/// [`Reads`] forms would double the in-place kernels (about 15 KB gzip), and JSON nodes are
/// evaluated node by node instead, with the same values, errors and costs.
const READS_JSON_IN_PLACE: bool = !cfg!(target_arch = "wasm32");

impl Frame<'_, '_> {
    /// Whether the in-place evaluations read with [`Reads`] (a variable is bound to JSON
    /// read in place, in a build that reads JSON in place) rather than [`Values`].
    #[inline(always)]
    pub fn reads_json(&self) -> bool {
        READS_JSON_IN_PLACE && self.json
    }

    /// Fails if the cost limit has been passed (errors are otherwise absorbable; this one
    /// must not be).
    #[inline]
    pub fn check_limit(&self) -> Result<(), EvalError> {
        if self.cost > self.limit {
            Err(EvalError::cost_limit_exceeded())
        } else {
            Ok(())
        }
    }

    /// Adds to the cost, failing once the limit is passed.
    #[inline]
    fn charge(&mut self, amount: u64) -> Result<(), EvalError> {
        self.cost = self.cost.saturating_add(amount);
        self.check_limit()
    }
}

/// Adds `amount` to `cost` when the total stays within `limit`; otherwise leaves `cost` as
/// it is and gives `None`: an in-place evaluation then leaves the work to the node-by-node
/// evaluation, which stops where the limit is passed. (On the frame's fields rather than
/// the frame, so that slots may stay borrowed.)
#[inline(always)]
pub(crate) fn charge_within(cost: &mut u64, limit: u64, amount: u64) -> Option<()> {
    let total = cost.saturating_add(amount);
    if total > limit {
        return None;
    }
    *cost = total;
    Some(())
}

/// Evaluates a node. Every construct but constants and variable reads is evaluated by a
/// function of its own, so that this dispatcher, entered for every node, keeps a small
/// stack frame and saves few registers.
pub(crate) fn eval(node: &Node, frame: &mut Frame) -> EvalResult {
    match node {
        Node::Const(v) => Ok(v.clone()),
        Node::Load(slot) => load(*slot, frame),
        Node::LoadUncharged(slot) => frame.slots[*slot as usize].to_result(),
        Node::Fail(e) => Err(e.clone()),
        Node::Path(p) => path_value(p, frame),
        Node::Access(a) => access(a, frame),
        Node::Select { id, operand, field } => select_node(*id, operand, field, frame),
        Node::Has { id, operand, field } => has_node(*id, operand, field, frame),
        Node::And(a, b) => logical_node(a, b, frame, false),
        Node::Or(a, b) => logical_node(a, b, frame, true),
        Node::Conditional(parts) => conditional(parts, frame),
        Node::NotStrictlyFalse(a) => not_strictly_false(a, frame),
        Node::Not { id, operand, cost } => not_node(*id, operand, *cost, frame),
        Node::Call {
            id,
            implementation,
            cost,
            args,
        } => call(*id, implementation, *cost, args, frame),
        Node::Binary(b) => binary(b, frame),
        Node::Dispatch {
            id,
            overloads,
            args,
            table,
        } => dispatch(*id, overloads, args, table.as_ref(), frame),
        Node::OptionalOr { lhs, rhs, or_value } => optional_or(lhs, rhs, *or_value, frame),
        Node::InConstantList {
            element,
            strings,
            values,
        } => in_constant_list(element, strings, values, frame),
        Node::MatchesConstant {
            id,
            subject,
            regex,
            pattern,
            cost,
        } => matches_constant(*id, subject, regex, pattern, *cost, frame),
        Node::StringTest(t) => match string_test_in_place(t, frame) {
            Some(holds) => Ok(Value::Bool(holds)),
            None => eval(&t.call, frame),
        },
        Node::InsertIntoAccumulator {
            id,
            slot,
            key,
            value,
        } => insert_into_accumulator(*id, *slot, key, value, frame),
        Node::AppendToAccumulator {
            id,
            slot,
            elements,
            list_cost,
        } => append_to_accumulator(*id, *slot, elements, *list_cost, frame),
        Node::List { elements, optional } => list_literal(elements, optional, frame),
        Node::Map { id, entries } => map_literal(*id, entries, frame),
        Node::Fold(f) => fold(f, frame),
        Node::Memo { slot, node } => memo(*slot, node, frame),
        Node::Size(call) => size(call, frame),
        Node::Time(t) => eval(&t.call, frame),
        Node::Quantifier(q) => quantify(q, frame),
        Node::Evaluated(node) => eval(node, frame),
        Node::Relative(node) => relative(node, frame),
        Node::Traced(t) => traced(t, frame),
        Node::Concat(c) => concat(c, frame),
        Node::Block(b) => block(b, frame),
        Node::BlockIndex {
            block,
            index,
            charged,
        } => block_index(block, *index, *charged, frame),
    }
}

#[inline(never)]
fn load(slot: Slot, frame: &mut Frame) -> EvalResult {
    frame.charge(cost::SELECT_AND_IDENT)?;
    frame.slots[slot as usize].to_result()
}

#[inline(never)]
fn path_value(p: &PathNode, frame: &mut Frame) -> EvalResult {
    let v = path(p, frame.slots, &mut frame.cost).map(Cow::into_owned);
    frame.check_limit()?;
    v
}

/// [`Node::Access`]: under [`Values`], the operand read in place and charged its reading
/// cost, when it reads and that stays within the limit; otherwise the chain evaluated
/// node by node.
#[inline(never)]
fn access(a: &AccessNode, frame: &mut Frame) -> EvalResult {
    if !frame.reads_json() {
        if let Some(v) = a.operand.read::<Values>(frame.slots) {
            if charge_within(&mut frame.cost, frame.limit, a.operand.static_cost).is_some() {
                return Ok(v.clone());
            }
        }
    }
    eval(&a.node, frame)
}

#[inline(never)]
fn select_node(id: ExprId, operand: &Node, field: &Field, frame: &mut Frame) -> EvalResult {
    // The selection is a qualifier of an attribute, which cel-go charges when it is
    // applied (`interpreter/interpretable.go`, `evalWatchConstQual.Qualify`), failing or
    // not: not when its operand failed, as the qualifiers after a failed one are not
    // applied (`attributes.go`, `applyQualifiers`). The attribute itself is charged by
    // its variable, or by [`Node::Relative`] around any other operand, whatever it gave.
    // Through an optional, only a field that is there is charged (`QualifyIfPresent`).
    let v = cancelled(eval(operand, frame))??;
    let result = select(&v, field).map_err(|e| e.at(id));
    if !matches!(
        (&v, &result),
        (Value::Optional(_), Ok(Value::Optional(None)))
    ) {
        frame.charge(cost::SELECT_AND_IDENT)?;
    }
    result
}

/// [`Node::Relative`]: `node`, then the relative attribute's 1, whatever `node` gave.
#[inline(never)]
fn relative(node: &Node, frame: &mut Frame) -> EvalResult {
    let v = cancelled(eval(node, frame))?;
    frame.charge(cost::SELECT_AND_IDENT)?;
    v
}

#[inline(never)]
fn has_node(id: ExprId, operand: &Node, field: &Field, frame: &mut Frame) -> EvalResult {
    let t = has_truth(id, operand, field, frame);
    from_truth(t, frame)
}

/// `has(operand.field)`, as a [`Truth`].
#[inline(never)]
fn has_truth(id: ExprId, operand: &Node, field: &Field, frame: &mut Frame) -> Truth {
    let tested = cost::SELECT_AND_IDENT + frame.presence_cost;
    if frame.reads_json() {
        if let Some(found) = has_json(operand, field, tested, frame) {
            return Truth::Bool(found);
        }
    } else if let Some(found) = in_place::<Values, _>(operand, frame, |v| match v {
        Value::Map(m) => Some((field.find(m).is_some(), tested)),
        _ => None,
    }) {
        return Truth::Bool(found);
    }
    let result = has_evaluated(id, operand, field, frame);
    to_truth(result, frame)
}

/// [`has_truth`] in place on an operand that may be JSON, charged its reading cost and
/// `tested`: `None` (nothing charged) where it does not apply.
#[inline(always)]
fn has_json(operand: &Node, field: &Field, tested: u64, frame: &mut Frame) -> Option<bool> {
    in_place::<Reads, _>(operand, frame, |v| Some((v.has_field(field)?, tested)))
}

/// [`has_truth`] for an operand not read in place.
///
/// cel-go resolves the operand's attribute without evaluating it as an expression
/// (`interpreter/interpretable.go`, `evalTestOnly.Eval`), so its variable, or its relative
/// attribute, is not charged (the planner made the operand's root free); the tested field
/// is a qualifier, 1 when the operand gave a value, and the presence test itself is charged
/// whatever it gave (`runtimecost.go`, `Observe`: `evalTestOnly`).
fn has_evaluated(id: ExprId, operand: &Node, field: &Field, frame: &mut Frame) -> EvalResult {
    if is_simple(operand) {
        let v = simple(operand, frame.slots, &mut frame.cost);
        let qualifier = u64::from(v.is_ok()) * cost::SELECT_AND_IDENT;
        frame.cost = frame.cost.saturating_add(frame.presence_cost + qualifier);
        frame.check_limit()?;
        return has(v?.as_ref(), field).map_err(|e| e.at(id));
    }
    let v = cancelled(eval(operand, frame))?;
    let qualifier = u64::from(v.is_ok()) * cost::SELECT_AND_IDENT;
    frame.charge(frame.presence_cost + qualifier)?;
    has(&v?, field).map_err(|e| e.at(id))
}

/// `c ? t : f`; a chosen branch that is itself a conditional is taken in the same loop.
#[inline(never)]
fn conditional(mut parts: &[Node; 3], frame: &mut Frame) -> EvalResult {
    loop {
        let [c, t, f] = parts;
        let branch = match truth(c, frame) {
            Truth::Bool(true) => t,
            Truth::Bool(false) => f,
            other => return from_truth(other, frame),
        };
        match branch {
            Node::Conditional(next) => parts = next,
            other => return eval(other, frame),
        }
    }
}

#[inline(never)]
fn not_node(id: ExprId, operand: &Node, cost: u64, frame: &mut Frame) -> EvalResult {
    let t = not(id, operand, cost, frame);
    from_truth(t, frame)
}

/// `!operand`: the standard overload, charged `cost`, with its errors at node `id`.
#[inline(never)]
fn not(id: ExprId, operand: &Node, cost: u64, frame: &mut Frame) -> Truth {
    let operand = truth(operand, frame);
    if operand == Truth::Error {
        let e = take_error(frame);
        // cel-go charges the call whose argument failed (see `failed_call_cost`).
        if !e.is_cancellation() {
            if let Err(e) = frame.charge(cost) {
                return fail(e, frame);
            }
        }
        return fail(e.at(id), frame);
    }
    if let Err(e) = frame.charge(cost) {
        return fail(e.at(id), frame);
    }
    match operand {
        Truth::Bool(b) => Truth::Bool(!b),
        _ => fail(EvalError::no_such_overload().at(id), frame),
    }
}

/// A [`Node::Memo`]: the kept value, charged what its evaluation was charged, when there is
/// one and that charge stays within the limit; otherwise `node` evaluated (and its value
/// kept).
#[inline(never)]
fn memo(slot: Slot, node: &Node, frame: &mut Frame) -> EvalResult {
    let (value, cost) = (slot as usize, slot as usize + 1);
    if let Ok(Value::Uint(charged)) = frame.slots[cost].get() {
        if charge_within(&mut frame.cost, frame.limit, *charged).is_some() {
            return frame.slots[value].to_result();
        }
    }
    let before = frame.cost;
    let result = eval(node, frame);
    if let Ok(v) = &result {
        frame.slots[value] = SlotContent::Result(Ok(v.clone()));
        let charged = frame.cost.saturating_sub(before);
        frame.slots[cost] = SlotContent::Result(Ok(Value::Uint(charged)));
    }
    result
}

#[inline(never)]
fn not_strictly_false(a: &Node, frame: &mut Frame) -> EvalResult {
    let v = eval(a, frame);
    frame.charge(1)?;
    Ok(Value::Bool(!matches!(v, Ok(Value::Bool(false)))))
}

#[inline(never)]
fn optional_or(lhs: &Node, rhs: &Node, or_value: bool, frame: &mut Frame) -> EvalResult {
    match eval(lhs, frame)? {
        Value::Optional(Some(v)) if or_value => Ok((*v).clone()),
        present @ Value::Optional(Some(_)) => Ok(present),
        Value::Optional(None) => {
            let other = eval(rhs, frame)?;
            if or_value || matches!(other, Value::Optional(_)) {
                Ok(other)
            } else {
                Err(EvalError::no_such_overload())
            }
        }
        _ => Err(EvalError::no_such_overload()),
    }
}

#[inline(never)]
fn in_constant_list(
    element: &Node,
    strings: &[Arc<str>],
    values: &List,
    frame: &mut Frame,
) -> EvalResult {
    match in_constant_list_test(element, strings, frame) {
        Some(found) => Ok(Value::Bool(found)),
        None => in_constant_list_evaluated(element, strings, values, frame),
    }
}

/// `element in [constant list]` for a string element read in place: `None` (nothing
/// charged) otherwise.
#[inline(never)]
fn in_constant_list_test(element: &Node, strings: &[Arc<str>], frame: &mut Frame) -> Option<bool> {
    if frame.reads_json() {
        return in_constant_list_json(element, strings, frame);
    }
    in_place::<Values, _>(element, frame, |v| match v {
        Value::String(s) => Some((contains_string(strings, s), 0)),
        _ => None,
    })
}

/// [`in_constant_list_test`] on an element that may be JSON.
#[inline(never)]
fn in_constant_list_json(element: &Node, strings: &[Arc<str>], frame: &mut Frame) -> Option<bool> {
    in_place::<Reads, _>(element, frame, |v| {
        Some((contains_string(strings, v.as_str()?), 0))
    })
}

/// [`in_constant_list`] with the element evaluated.
fn in_constant_list_evaluated(
    element: &Node,
    strings: &[Arc<str>],
    values: &List,
    frame: &mut Frame,
) -> EvalResult {
    let v = if is_simple(element) {
        simple(element, frame.slots, &mut frame.cost)?
    } else {
        Cow::Owned(eval(element, frame)?)
    };
    frame.check_limit()?;
    Ok(Value::Bool(match plain(v).as_ref() {
        Value::String(s) => contains_string(strings, s),
        other => values.iter().any(|x| x.cel_eq(other)),
    }))
}

/// Whether the sorted `strings` contain `s`: a few strings (the usual case) are compared in
/// turn; more are searched.
fn contains_string(strings: &[Arc<str>], s: &str) -> bool {
    if strings.len() <= 8 {
        strings.iter().any(|x| str_eq(x, s))
    } else {
        strings.binary_search_by(|x| (**x).cmp(s)).is_ok()
    }
}

#[inline(never)]
fn matches_constant(
    id: ExprId,
    subject: &Node,
    regex: &regex::Regex,
    pattern: &Value,
    cost: CallCost,
    frame: &mut Frame,
) -> EvalResult {
    if frame.reads_json() {
        if let Some(holds) = matches_json(subject, regex, pattern, cost, frame) {
            return Ok(Value::Bool(holds));
        }
    } else if let Some(holds) = in_place::<Values, _>(subject, frame, |s| match s {
        // A `bool`, not the call's `Result`, out of the in-place read: moving the
        // `Option<Result<Value, EvalError>>` through it stalled on store forwarding (~18%
        // of regex_matches' time, BENCHMARKS.md "A/B in one binary"). Other subjects take
        // the path below, which charges and fails as the call does.
        Value::String(text) => Some((regex.is_match(text), cost.of_binary(s, pattern, None))),
        _ => None,
    }) {
        return Ok(Value::Bool(holds));
    }
    let s = if is_simple(subject) {
        simple(subject, frame.slots, &mut frame.cost)
    } else {
        cancelled(eval(subject, frame))?.map(Cow::Owned)
    };
    let charge = match &s {
        Ok(s) => cost.of_binary(s, pattern, None),
        // cel-go charges the call whose argument failed (see `failed_call_cost`).
        Err(_) => cost.of_failed(&[None, Some(pattern)]),
    };
    frame.cost = frame.cost.saturating_add(charge);
    let s = s?;
    frame.check_limit()?;
    crate::standard::strings::matches_compiled(&s, regex).map_err(|e| e.at(id))
}

/// [`matches_constant`] on a string read in place that may be JSON (charged as the string
/// it converts to); `None` (nothing charged) for anything else.
#[inline(always)]
fn matches_json(
    subject: &Node,
    regex: &regex::Regex,
    pattern: &Value,
    cost: CallCost,
    frame: &mut Frame,
) -> Option<bool> {
    in_place::<Reads, _>(subject, frame, |s| {
        let charge = match s {
            Read::Value(v @ Value::String(_)) => cost.of_binary(v, pattern, None),
            Read::Json(_, serde_json::Value::String(s)) => cost.of_text_and(s, pattern)?,
            _ => return None,
        };
        Some((regex.is_match(s.as_str()?), charge))
    })
}

/// A [`Node::StringTest`] on a string [`peek`] reads, charged as the call; `None`
/// (nothing charged) for other subjects and where the cost limit would be passed.
#[inline(never)]
fn string_test_in_place(t: &StringTestNode, frame: &mut Frame) -> Option<bool> {
    let Node::Call { args, .. } = &t.call else {
        return None;
    };
    let subject = args.first()?;
    let test = |s: &str| {
        let traversal = cost::traverse(cost::code_points(s)).saturating_mul(t.factor);
        Some((t.test.holds(s), traversal))
    };
    if frame.reads_json() {
        in_place::<Reads, _>(subject, frame, |v| test(v.as_str()?))
    } else {
        in_place::<Values, _>(subject, frame, |v| match v {
            Value::String(s) => test(s),
            _ => None,
        })
    }
}

/// A string [`peek_costed`] reads, with its reading cost; with `json`, JSON strings too.
#[inline(always)]
fn peek_text<'s>(
    node: &'s Node,
    slots: &'s [SlotContent<'_>],
    json: bool,
) -> Option<(&'s str, u64)> {
    if json {
        return peek_text_json(node, slots);
    }
    match peek_costed::<Values>(node, slots)? {
        (Value::String(s), read) => Some((s, read)),
        _ => None,
    }
}

/// A string [`peek_costed`] reads, JSON included, with its reading cost.
#[inline(always)]
fn peek_text_json<'s>(node: &'s Node, slots: &'s [SlotContent<'_>]) -> Option<(&'s str, u64)> {
    let (v, read) = peek_costed::<Reads>(node, slots)?;
    Some((v.as_str()?, read))
}

#[inline(never)]
fn insert_into_accumulator(
    id: ExprId,
    slot: Slot,
    key: &Node,
    value: &Node,
    frame: &mut Frame,
) -> EvalResult {
    inserted(slot, key, value, frame).map_err(|e| e.at(id))
}

/// [`insert_into_accumulator`] without the call's position on its errors.
fn inserted(slot: Slot, key: &Node, value: &Node, frame: &mut Frame) -> EvalResult {
    // As the call `cel.@mapInsert(accu, k, v)` evaluates: the accumulator read (1; an
    // error there is the result), the key and the value, then the call (1).
    frame.charge(cost::SELECT_AND_IDENT)?;
    if let Err(e) = frame.slots[slot as usize].get() {
        return Err(e.clone());
    }
    let k = eval(key, frame)?;
    // `cel.@mapInsert` has three arguments (cel-go's `evalVarArgs`): a failed key leaves the
    // value unevaluated and the call uncharged; a failed value (the last argument) is
    // charged as its call (see `failed_call_cost`).
    let v = match cancelled(eval(value, frame))? {
        Ok(v) => v.materialize(),
        Err(e) => {
            frame.charge(1)?;
            return Err(e);
        }
    };
    frame.charge(1)?;
    let accu = std::mem::replace(&mut frame.slots[slot as usize], unset()).into_result()?;
    crate::standard::collections::map_insert(accu, &k, v)
}

#[inline(never)]
fn append_to_accumulator(
    id: ExprId,
    slot: Slot,
    elements: &[Node],
    list_cost: u64,
    frame: &mut Frame,
) -> EvalResult {
    appended(slot, elements, list_cost, frame).map_err(|e| e.at(id))
}

/// [`append_to_accumulator`] without the call's position on its errors.
fn appended(slot: Slot, elements: &[Node], list_cost: u64, frame: &mut Frame) -> EvalResult {
    // As `@result + [elements]` evaluates: the accumulator read (1), the list literal
    // (`list_cost`) and its elements, then the `_+_` call (1, in `append`). The first two
    // are charged at once: the limit stops the evaluation whether it is passed by the
    // first or by the sum. `_+_` evaluates both operands whatever the first gives, and is charged when either
    // failed (cel-go's `evalBinary`; see `failed_call_cost`): an accumulator that holds an
    // error, or a list literal whose element failed, costs the list literal and the call.
    frame.charge(cost::SELECT_AND_IDENT + list_cost)?;
    // One element (`map`, `filter`) needs no argument list.
    let values = if let [e] = elements {
        match cancelled(eval(e, frame))? {
            Ok(Value::Json(node)) => return append_node(slot, node, frame),
            other => other.map(|v| smallvec::smallvec![v]),
        }
    } else {
        match eval_args(elements, frame) {
            Err(e) if e.is_cancellation() => return Err(e),
            other => other,
        }
    };
    if let Err(e) = frame.slots[slot as usize].get() {
        let e = e.clone();
        frame.charge(1)?;
        return Err(e);
    }
    match values {
        Ok(values) => append(slot, values, frame),
        Err(e) => {
            frame.charge(1)?;
            Err(e)
        }
    }
}

/// Appends evaluated elements to the accumulator list in `slot`, charging the `_+_` call
/// of the unoptimized `@result + [elements]` (1; its accumulator read and list literal
/// are charged before the elements are evaluated).
#[inline(always)]
fn append(slot: Slot, values: impl IntoIterator<Item = Value>, frame: &mut Frame) -> EvalResult {
    frame.charge(1)?;
    let accu = std::mem::replace(&mut frame.slots[slot as usize], unset()).into_result()?;
    append_to(accu, values)
}

/// `accu + values` for an accumulator: a list (grown in place when uniquely owned), or a
/// list of JSON nodes (see [`append_node`]), converted to a list first.
#[inline(always)]
fn append_to(accu: Value, values: impl IntoIterator<Item = Value>) -> EvalResult {
    let values = values.into_iter();
    let added = values.size_hint().0;
    match accu {
        Value::List(mut list) => {
            let shared = Arc::strong_count(&list) > 1;
            reserve_appended(list.items.len(), list.items.capacity(), shared, added)?;
            Arc::make_mut(&mut list).items.extend(values);
            Ok(Value::List(list))
        }
        Value::Json(nodes) => {
            let Some((len, capacity, shared)) = nodes.list_shape() else {
                return Err(EvalError::no_such_overload());
            };
            reserve_appended(len, capacity, shared, added)?;
            // The vector a list of values in its place would have before growing: a
            // shared one is copied (to its length).
            let capacity = if shared { len } else { capacity };
            let mut items = nodes.into_values(capacity).unwrap_or_default();
            items.extend(values);
            Ok(Value::list(items))
        }
        _ => Err(EvalError::no_such_overload()),
    }
}

/// Counts what appending `added` values to an accumulator's vector of `len` values and
/// `capacity` takes from the memory budget: a shared vector is copied; a vector that grows
/// doubles (at least). Counted when the vector grows, not per element.
#[inline(always)]
fn reserve_appended(
    len: usize,
    capacity: usize,
    shared: bool,
    added: usize,
) -> Result<(), EvalError> {
    if shared {
        crate::budget::reserve_values(len + added)?;
    } else if len + added > capacity {
        crate::budget::reserve_values((len + added).max(2 * capacity))?;
    }
    Ok(())
}

/// [`append`] of one element that is a JSON node: an empty accumulator (the start of
/// `filter` or `map`) becomes a list of nodes of its document, which further nodes of that
/// document join as pointers, so that `filter` and `map` over a JSON array convert none of
/// the objects they keep (the interpreter converts the list where it is needed as a value:
/// a function's argument, a literal's element, the result). Charged and counted against
/// the memory budget as [`append`] (a list of nodes grows as a vector of values would);
/// any other accumulator gets the node converted.
#[inline(never)]
fn append_node(slot: Slot, node: JsonNode, frame: &mut Frame) -> EvalResult {
    if let Err(e) = frame.slots[slot as usize].get() {
        let e = e.clone();
        frame.charge(1)?;
        return Err(e);
    }
    frame.charge(1)?;
    let accu = std::mem::replace(&mut frame.slots[slot as usize], unset()).into_result()?;
    match accu {
        Value::Json(mut nodes) if nodes.takes(&node) => {
            if let Some((len, capacity, shared)) = nodes.list_shape() {
                reserve_appended(len, capacity, shared, 1)?;
            }
            nodes.push(&node);
            Ok(Value::Json(nodes))
        }
        Value::List(list) if list.items.is_empty() && list.semantics.is_none() => {
            let shared = Arc::strong_count(&list) > 1;
            let capacity = list.items.capacity();
            match JsonNode::list_of(&node, if shared { 0 } else { capacity }) {
                Some(nodes) => {
                    reserve_appended(0, capacity, shared, 1)?;
                    Ok(Value::Json(nodes))
                }
                None => append_to(Value::List(list), [node.materialize()]),
            }
        }
        accu => append_to(accu, [node.materialize()]),
    }
}

#[inline(never)]
fn list_literal(elements: &[Node], optional: &[bool], frame: &mut Frame) -> EvalResult {
    frame.charge(cost::LIST_CREATE)?;
    crate::budget::reserve_values(elements.len())?;
    let mut out = Vec::with_capacity(elements.len());
    for (e, opt) in elements.iter().zip(optional.iter()) {
        let v = eval(e, frame)?;
        if *opt {
            match v {
                Value::Optional(Some(inner)) => out.push((*inner).clone()),
                Value::Optional(None) => {}
                _ => return Err(EvalError::no_matching_overload("optional list element")),
            }
        } else {
            out.push(v.materialize());
        }
    }
    Ok(Value::list(out))
}

// A block slot's state (in the frame slot after its value's): not read yet in this
// evaluation of the block (`null`), being evaluated (`false`), read (`true`: its value or
// error is in the value slot).
const SLOT_UNREAD: Value = Value::Null;

/// `cel.@block`: clears the block's slots (each evaluation of the block starts afresh, as
/// cel-go's slot activation does) and evaluates the body.
#[inline(never)]
fn block(b: &BlockNode, frame: &mut Frame) -> EvalResult {
    let base = b.slots.base as usize;
    for s in &mut frame.slots[base..base + 2 * b.slots.exprs.len()] {
        *s = SlotContent::Result(Ok(SLOT_UNREAD));
    }
    if !b.hidden {
        return eval(&b.body, frame);
    }
    let (cost, limit) = (frame.cost, frame.limit);
    frame.limit = u64::MAX;
    let result = eval(&b.body, frame);
    frame.cost = cost;
    frame.limit = limit;
    result
}

/// `@indexN`: the block's expression N, evaluated on first read. A read while it is being
/// evaluated (an expression that refers to itself) finds no such variable, as in cel-go.
#[inline(never)]
fn block_index(
    block: &std::sync::Weak<BlockSlots>,
    index: u32,
    charged: bool,
    frame: &mut Frame,
) -> EvalResult {
    let block = block
        .upgrade()
        .ok_or_else(|| EvalError::new("cel.@block slot read outside its block"))?;
    let value = block.base as usize + 2 * index as usize;
    let state = value + 1;
    match frame.slots[state].get() {
        Ok(Value::Bool(true)) => {}
        Ok(Value::Bool(false)) => {
            if charged {
                frame.charge(cost::SELECT_AND_IDENT)?;
            }
            return Err(EvalError::no_such_attribute(format_args!("@index{index}")));
        }
        _ => {
            let depth = block.depths[index as usize];
            let nesting = frame.block_nesting.saturating_add(depth);
            let v = if nesting > MAX_BLOCK_NESTING {
                Err(EvalError::new(format!(
                    "cel.@block expressions nested too deeply (more than {MAX_BLOCK_NESTING}) \
                     reading @index{index}"
                )))
            } else {
                frame.slots[state] = SlotContent::Result(Ok(Value::Bool(false)));
                let outer = std::mem::replace(&mut frame.block_nesting, nesting);
                let v = eval(&block.exprs[index as usize], frame);
                frame.block_nesting = outer;
                v
            };
            frame.slots[value] = SlotContent::Result(v);
            frame.slots[state] = SlotContent::Result(Ok(Value::Bool(true)));
        }
    }
    if charged {
        frame.charge(cost::SELECT_AND_IDENT)?;
    }
    frame.slots[value].to_result()
}

/// Evaluates arguments for a function: JSON nodes converted (functions see plain values).
fn eval_args(args: &[Node], frame: &mut Frame) -> EvalResult<SmallVec<[Value; 3]>> {
    args.iter()
        .map(|a| eval(a, frame).map(Value::materialize))
        .collect()
}

/// A function argument with a JSON node converted.
#[inline]
fn plain(v: Cow<'_, Value>) -> Cow<'_, Value> {
    match v.as_ref() {
        Value::Json(j) => Cow::Owned(j.materialize()),
        _ => v,
    }
}

#[inline(never)]
fn call(
    id: ExprId,
    implementation: &Implementation,
    cost: CallCost,
    args: &[Node],
    frame: &mut Frame,
) -> EvalResult {
    call_overload(implementation, cost, args, frame).map_err(|e| e.at(id))
}

fn call_overload(
    implementation: &Implementation,
    cost: CallCost,
    args: &[Node],
    frame: &mut Frame,
) -> EvalResult {
    match (implementation, args, cost) {
        (Implementation::Unary(f), [a], CallCost::Fixed(c)) => {
            if let Some(result) = in_place::<Values, _>(a, frame, |x| {
                (!matches!(x, Value::Json(_))).then(|| (f(x), c))
            }) {
                return result;
            }
            // cel-go charges a call whose argument failed too (see `failed_call_cost`).
            if is_simple(a) {
                return match simple(a, frame.slots, &mut frame.cost) {
                    Ok(a) => {
                        let a = plain(a);
                        frame.cost = frame.cost.saturating_add(c);
                        frame.check_limit()?;
                        f(&a)
                    }
                    Err(e) => {
                        frame.charge(c)?;
                        Err(e)
                    }
                };
            }
            let a = cancelled(eval(a, frame))?;
            unary_call(*f, c, a, frame)
        }
        (Implementation::Binary(f), [a, b], _) => {
            if let Some(done) = call_in_place(*f, cost, a, b, frame) {
                return done;
            }
            let (result, c) = match operands(a, b, frame, || false)? {
                (Ok(a), Ok(b)) => {
                    let (a, b) = (plain(a), plain(b));
                    let result = f(&a, &b);
                    let c = cost.of_binary(&a, &b, result.as_ref().ok());
                    (result, c)
                }
                (a, b) => {
                    let (e, c) = failed_operands(a, b, |v| cost.of_failed(v));
                    (Err(e), c)
                }
            };
            frame.charge(c)?;
            result
        }
        _ => {
            let values = call_arguments(args, frame, |v| cost.of_failed(v), || false)?;
            let result = implementation
                .call(&values)
                .unwrap_or_else(|| Err(EvalError::no_such_overload()));
            frame.charge(cost.of_call(&values, result.as_ref().ok()))?;
            result
        }
    }
}

/// A call of the one-argument function `f` at the fixed cost `c` on its evaluated argument
/// (charged whether or not it failed, as cel-go does: see [`failed_call_cost`]).
#[inline(always)]
fn unary_call(f: fn(&Value) -> EvalResult, c: u64, a: EvalResult, frame: &mut Frame) -> EvalResult {
    match a {
        Ok(a) => {
            let a = a.materialize();
            frame.charge(c)?;
            f(&a)
        }
        Err(e) => {
            frame.charge(c)?;
            Err(e)
        }
    }
}

/// [`Node::Size`]: the call, except where JSON is read in place and the argument is one
/// that is evaluated (not read in place, see [`is_simple`]): a JSON node or list of nodes
/// it gives (the list `filter` keeps of a JSON array) is measured where it lies rather than
/// converted for the call, with the call's charge and result (the overloads of a
/// [`Node::Size`] measure as `size()` does, as [`int_operand`] reads them).
#[inline(never)]
fn size(call: &Node, frame: &mut Frame) -> EvalResult {
    if frame.json {
        match call {
            Node::Call {
                id,
                implementation: Implementation::Unary(f),
                cost: CallCost::Fixed(c),
                args,
            } if let [a] = &**args
                && !is_simple(a) =>
            {
                let result = match cancelled(eval(a, frame))? {
                    Ok(Value::Json(j)) => frame.charge(*c).map(|()| json_size(&j)),
                    a => unary_call(*f, *c, a, frame),
                };
                return result.map_err(|e| e.at(*id));
            }
            Node::Dispatch {
                id,
                overloads,
                args,
                table: Some(table),
            } if let [a] = &**args
                && !is_simple(a) =>
            {
                let a = cancelled(eval(a, frame))?;
                return size_dispatched(overloads, table, a, frame).map_err(|e| e.at(*id));
            }
            _ => {}
        }
    }
    eval(call, frame)
}

/// [`size`] of a dispatched call, on its evaluated argument (see [`dispatch_overload`]).
fn size_dispatched(
    overloads: &[(Overload, CallCost)],
    table: &DispatchTable,
    a: EvalResult,
    frame: &mut Frame,
) -> EvalResult {
    let a = match a {
        Ok(a) => a,
        Err(e) => {
            frame.charge(failed_call_cost(overloads, &[None]))?;
            return Err(e);
        }
    };
    if let Value::Json(j) = &a {
        // The overload for the kind the node converts to (a list or a map), as the
        // converted value would choose it.
        match table.get(overloads, &[&a]) {
            DispatchTable::NONE => return Err(EvalError::no_such_overload()),
            DispatchTable::SCAN => {}
            i => {
                if let Some((_, CallCost::Fixed(c))) = overloads.get(usize::from(i)) {
                    frame.charge(*c)?;
                    return Ok(json_size(j));
                }
            }
        }
    }
    call_accepting(overloads, Some(table), &[a.materialize()], frame)
}

/// What `size()` gives of the value a JSON node or list of nodes converts to.
fn json_size(j: &JsonNode) -> Value {
    // Lengths of in-memory values always fit in i64.
    Value::Int(j.len() as i64)
}

/// A call of a two-argument function on arguments [`peek`] reads: no copies. `None`
/// (nothing charged) otherwise, and where the cost limit would be passed.
#[inline]
fn call_in_place(
    f: fn(&Value, &Value) -> EvalResult,
    cost: CallCost,
    a: &Node,
    b: &Node,
    frame: &mut Frame,
) -> Option<EvalResult> {
    let read = peek_cost(a)? + peek_cost(b)?;
    in_place_pair::<Values, _>(a, b, read, frame, |x, y| {
        if matches!(x, Value::Json(_)) || matches!(y, Value::Json(_)) {
            return None;
        }
        let result = f(x, y);
        let charge = cost.of_binary(x, y, result.as_ref().ok());
        Some((result, charge))
    })
}

/// A one-argument call dispatched on an argument that [`peek`] reads: no copy. `None`
/// (nothing charged) otherwise, where no overload accepts the argument, and where the
/// cost limit would be passed.
#[inline]
fn dispatch_in_place(
    overloads: &[(Overload, CallCost)],
    table: &DispatchTable,
    a: &Node,
    frame: &mut Frame,
) -> Option<EvalResult> {
    in_place::<Values, _>(a, frame, |x| {
        if matches!(x, Value::Json(_)) {
            return None;
        }
        let arg = std::slice::from_ref(x);
        let (o, cost) = unary_overload(overloads, table, x)?;
        let result = match &o.implementation {
            Implementation::Unary(f) => f(x),
            other => other
                .call(arg)
                .unwrap_or_else(|| Err(EvalError::no_such_overload())),
        };
        let charge = cost.of_call(arg, result.as_ref().ok());
        Some((result, charge))
    })
}

/// The overload of a one-argument dispatch that accepts `x`.
#[inline(always)]
fn unary_overload<'o>(
    overloads: &'o [(Overload, CallCost)],
    table: &DispatchTable,
    x: &Value,
) -> Option<&'o (Overload, CallCost)> {
    match table.get(overloads, &[x]) {
        DispatchTable::NONE => None,
        DispatchTable::SCAN => overloads
            .iter()
            .find(|(o, _)| o.accepts(std::slice::from_ref(x))),
        i => overloads.get(usize::from(i)),
    }
}

/// Evaluates the two operands of a call, by reference when they are simple, as cel-go's
/// `evalBinary`, `evalEq` and `evalNe` do (`interpreter/interpretable.go`): both, whatever
/// the first gives. Only an error that cancels the evaluation returns at once.
#[inline(always)]
///
/// `qualifies` (asked only when `a` failed) says whether `b` qualifies `a` (an index key):
/// then `b` is not evaluated, as cel-go does not evaluate a qualifier of an attribute whose
/// operand failed (`interpreter/attributes.go`, `relativeAttribute.Resolve` returns the
/// operand's error before `applyQualifiers`).
fn operands<'f>(
    a: &'f Node,
    b: &'f Node,
    frame: &'f mut Frame,
    qualifies: impl FnOnce() -> bool,
) -> Operands<'f> {
    if is_simple(a) && is_simple(b) {
        let a = simple(a, frame.slots, &mut frame.cost);
        if a.is_err() && qualifies() {
            return Ok((a, Err(not_evaluated())));
        }
        Ok((a, simple(b, frame.slots, &mut frame.cost)))
    } else {
        let a = cancelled(eval(a, frame))?;
        if a.is_err() && qualifies() {
            return Ok((a.map(Cow::Owned), Err(not_evaluated())));
        }
        let b = cancelled(eval(b, frame))?;
        Ok((a.map(Cow::Owned), b.map(Cow::Owned)))
    }
}

/// What marks an operand that was not evaluated (see [`operands`]); never reported, as
/// the operand before it failed first.
const NOT_EVALUATED: &str = "internal: operand not evaluated";

#[cold]
fn not_evaluated() -> EvalError {
    EvalError::new(NOT_EVALUATED)
}

/// Whether `overloads` are an index's (`_[_]`, `_[?_]`: overloads that declare an index
/// [`CallShape`](crate::registry::CallShape)), whose key qualifies the operand.
#[cold]
pub(crate) fn is_index(overloads: &[(Overload, CallCost)]) -> bool {
    overloads.iter().any(|(o, _)| o.shape.is_index())
}

/// Two evaluated operands, each a value or its error; `Err` for an error that cancels the
/// evaluation.
type Operands<'f> = Result<(OperandResult<'f>, OperandResult<'f>), EvalError>;
type OperandResult<'f> = Result<Cow<'f, Value>, EvalError>;

/// `result`, or `Err` with its error when that error cancels the evaluation (the cost or
/// memory limit): cel-go stops there (its tracker panics), where other errors are values
/// that the evaluation goes on with.
#[inline(always)]
fn cancelled(result: EvalResult) -> Result<EvalResult, EvalError> {
    match result {
        Err(e) if e.is_cancellation() => Err(e),
        other => Ok(other),
    }
}

/// What a call of `overloads` charges when one of its arguments failed (`None` in `args`):
/// cel-go's tracker charges every call whose arguments were all evaluated, failed ones
/// included (`interpreter/runtimecost.go`, `Observe` and `refValStack.dropArgs`), at the
/// overload's cost with the errors in the arguments' places ([`CallCost::of_failed`]). A
/// call with several candidate overloads has no overload id there: cel-go's default, 1.
fn failed_call_cost(overloads: &[(Overload, CallCost)], args: &[Option<&Value>]) -> u64 {
    match overloads {
        [(_, cost)] => cost.of_failed(args),
        _ => 1,
    }
}

/// The error of a call whose two operands were evaluated and one failed, and what the call
/// charges (`cost` of the operands, `None` for a failed one): the first operand's error
/// wins, as in cel-go.
#[cold]
fn failed_operands(
    a: OperandResult<'_>,
    b: OperandResult<'_>,
    cost: impl FnOnce(&[Option<&Value>]) -> u64,
) -> (EvalError, u64) {
    if let (Err(e), Err(not)) = (&a, &b) {
        if not.message() == NOT_EVALUATED {
            // The key qualifies the failed operand: not applied, not charged.
            return (e.clone(), 0);
        }
    }
    let cost = cost(&[a.as_deref().ok(), b.as_deref().ok()]);
    let error = match (a, b) {
        (Err(e), _) | (_, Err(e)) => e,
        (Ok(_), Ok(_)) => EvalError::new("internal: no operand failed"),
    };
    (error, cost)
}

/// Evaluates a call's arguments as cel-go does (`interpreter/interpretable.go`): one or two
/// all (`evalUnary`, `evalBinary`), more up to the first that fails (`evalVarArgs`). When
/// one fails, the call is charged `cost` of the arguments (`None` for failed ones) where
/// cel-go's tracker charges it, when every argument was evaluated (see
/// [`failed_call_cost`]), and the first error is returned.
/// `qualifies` as for [`operands`].
fn call_arguments(
    args: &[Node],
    frame: &mut Frame,
    cost: impl FnOnce(&[Option<&Value>]) -> u64,
    qualifies: impl FnOnce() -> bool,
) -> EvalResult<SmallVec<[Value; 3]>> {
    let mut values = SmallVec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        match eval(a, frame) {
            Ok(v) => values.push(v.materialize()),
            Err(e) => {
                let qualified = i == 0 && args.len() == 2 && qualifies();
                return Err(failed_arguments(args, i, qualified, values, e, frame, cost));
            }
        }
    }
    Ok(values)
}

/// [`call_arguments`] from the argument `failed`, which failed with `error`; with
/// `qualified`, the argument after it qualifies it and is not evaluated (see [`operands`]).
#[cold]
fn failed_arguments(
    args: &[Node],
    failed: usize,
    qualified: bool,
    values: SmallVec<[Value; 3]>,
    error: EvalError,
    frame: &mut Frame,
    cost: impl FnOnce(&[Option<&Value>]) -> u64,
) -> EvalError {
    if error.is_cancellation() {
        return error;
    }
    if qualified {
        // The key qualifies the failed operand: not applied, not charged.
        return error;
    }
    let mut got: SmallVec<[Option<Value>; 3]> = values.into_iter().map(Some).collect();
    got.push(None);
    if args.len() <= 2 {
        for a in &args[failed + 1..] {
            match cancelled(eval(a, frame)) {
                Ok(v) => got.push(v.ok().map(Value::materialize)),
                Err(e) => return e,
            }
        }
    }
    if got.len() == args.len() {
        let refs: SmallVec<[Option<&Value>; 3]> = got.iter().map(Option::as_ref).collect();
        if let Err(e) = frame.charge(cost(&refs)) {
            return e;
        }
    }
    error
}

/// A binary operator: inline for the operand kinds it has an inline form for, through the
/// overloads otherwise.
#[inline(never)]
fn binary(node: &BinaryNode, frame: &mut Frame) -> EvalResult {
    if let Some(v) = fused_int_tree(node, frame) {
        return Ok(v);
    }
    if node.time_tree.is_some() {
        if let Some(holds) = time_tree(node, frame) {
            return Ok(Value::Bool(holds));
        }
    }
    if let Some(done) = binary_in_place(node, frame) {
        return done;
    }
    binary_operands(node, frame).map_err(|e| e.at(node.id))
}

/// [`binary`] for an operator that gives a bool (see [`Inline::tests`]), as a [`Truth`].
#[inline(always)]
fn binary_truth(node: &BinaryNode, frame: &mut Frame) -> Truth {
    let test = if frame.reads_json() {
        binary_test_json(node, frame)
    } else {
        binary_test(node, frame)
    };
    match test {
        Some(holds) => Truth::Bool(holds),
        None => {
            let result = binary_evaluated(node, frame);
            to_truth(result, frame)
        }
    }
}

/// The in-place evaluations of [`binary`] for an operator that gives a bool: `None`
/// (nothing charged) where they do not apply. A bool in a register, for the usual case.
#[inline(never)]
fn binary_test(node: &BinaryNode, frame: &mut Frame) -> Option<bool> {
    binary_test_read::<Values>(node, frame, |a, b| {
        node.inline.test_values(a, b, node.key.as_ref())
    })
}

/// [`binary_test`] on operands that may be JSON.
#[inline(never)]
fn binary_test_json(node: &BinaryNode, frame: &mut Frame) -> Option<bool> {
    binary_test_read::<Reads>(node, frame, |a, b| {
        node.inline.test(a, b, node.key.as_ref())
    })
}

/// [`binary_test`] with operands read by `R` and tested by `test`.
#[inline(always)]
fn binary_test_read<R: Reader>(
    node: &BinaryNode,
    frame: &mut Frame,
    test: impl FnOnce(R::Out<'_>, R::Out<'_>) -> Option<(bool, u64)>,
) -> Option<bool> {
    if let Some(Value::Bool(b)) = fused_int_tree(node, frame) {
        return Some(b);
    }
    if node.time_tree.is_some() {
        return time_tree(node, frame);
    }
    on_operands_in_place::<R, _>(node, frame, test)
}

/// `operation` on the operands of a binary operator that [`peek`] reads, charged their
/// reading cost and the cost it gives with its result; `None` (nothing charged) where an
/// operand is not read in place, `operation` gives `None`, or the limit would be passed.
#[inline(always)]
fn on_operands_in_place<R: Reader, T>(
    node: &BinaryNode,
    frame: &mut Frame,
    operation: impl FnOnce(R::Out<'_>, R::Out<'_>) -> Option<(T, u64)>,
) -> Option<T> {
    let read = node.read_cost?;
    in_place_pair::<R, _>(&node.lhs, &node.rhs, read, frame, operation)
}

/// [`binary`] with its operands evaluated node by node.
#[inline(never)]
fn binary_evaluated(node: &BinaryNode, frame: &mut Frame) -> EvalResult {
    binary_operands(node, frame).map_err(|e| e.at(node.id))
}

/// The value of a fused int operator tree (see [`BinaryNode::fused_cost`]), charged, when
/// it evaluates without intermediate values within the cost limit; `None` (nothing charged)
/// otherwise.
#[inline(always)]
fn fused_int_tree(node: &BinaryNode, frame: &mut Frame) -> Option<Value> {
    let cost = node.fused_cost?;
    let v = if frame.reads_json() {
        int_tree::<Reads>(node, frame.slots)?
    } else {
        int_tree::<Values>(node, frame.slots)?
    };
    charge_within(&mut frame.cost, frame.limit, cost)?;
    Some(v)
}

/// An int operator tree (see [`BinaryNode::int_tree`]) evaluated without intermediate
/// values. `None` when a leaf is not an int read in place or an operation fails: the
/// node-by-node evaluation then starts over (nothing was charged) and reports what went
/// wrong where it happened.
#[inline(never)]
fn int_tree<R: Reader>(node: &BinaryNode, slots: &[SlotContent<'_>]) -> Option<Value> {
    let x = int_operand::<R>(&node.lhs, slots)?;
    let y = int_operand::<R>(&node.rhs, slots)?;
    node.inline.ints(x, y)
}

/// An operand of [`int_tree`]: a nested int operator, or a leaf read here (so that only
/// operators cost a call).
#[inline(always)]
fn int_operand<R: Reader>(node: &Node, slots: &[SlotContent<'_>]) -> Option<i64> {
    match node {
        Node::Binary(b) if b.int_tree && b.inline.operator().is_arithmetic() => {
            int_arithmetic::<R>(b, slots)
        }
        Node::Size(call) => {
            i64::try_from(R::read(peek::<R>(size_operand(call)?, slots)?).size()?).ok()
        }
        _ => R::read(peek::<R>(node, slots)?).as_int(),
    }
}

/// A nested int operator of an [`int_tree`].
#[inline(never)]
fn int_arithmetic<R: Reader>(b: &BinaryNode, slots: &[SlotContent<'_>]) -> Option<i64> {
    let x = int_operand::<R>(&b.lhs, slots)?;
    let y = int_operand::<R>(&b.rhs, slots)?;
    b.inline.int_arithmetic(x, y)
}

/// The argument of the call a [`Node::Size`] holds.
fn size_operand(call: &Node) -> Option<&Node> {
    match call {
        Node::Call { args, .. } | Node::Dispatch { args, .. } => match &**args {
            [operand] => Some(operand),
            _ => None,
        },
        _ => None,
    }
}

/// What evaluating an operand of an int tree node by node charges when it succeeds (see
/// [`BinaryNode::fused_cost`]); `None` for an operand [`int_tree`] cannot read.
pub(crate) fn int_tree_cost(node: &Node) -> Option<u64> {
    match node {
        Node::Binary(b) if b.int_tree && b.inline.operator().is_arithmetic() => {
            Some(int_tree_cost(&b.lhs)? + int_tree_cost(&b.rhs)? + 1)
        }
        // The operand's reading cost and the call's (1).
        Node::Size(call) => Some(read_cost(size_operand(call)?)? + 1),
        other => read_cost(other),
    }
}

/// A binary operator whose operands [`peek`] reads, of kinds with an inline form: no copy,
/// no dispatch, and a reading cost known in advance. `None` (nothing charged) for anything
/// else, and where the cost limit would be passed. A function of its own so that, in
/// builds without inlining, its locals are off the stack before [`binary_operands`]
/// recurses.
#[inline]
fn binary_in_place(node: &BinaryNode, frame: &mut Frame) -> Option<EvalResult> {
    let result = if frame.reads_json() {
        binary_apply_json(node, frame)?
    } else {
        on_operands_in_place::<Values, _>(node, frame, |a, b| {
            node.inline.apply_values(a, b, node.key.as_ref())
        })?
    };
    Some(result.map_err(|e| e.at(node.id)))
}

/// [`binary_in_place`]'s operation on operands that may be JSON.
#[inline(never)]
fn binary_apply_json(node: &BinaryNode, frame: &mut Frame) -> Option<EvalResult> {
    on_operands_in_place::<Reads, _>(node, frame, |a, b| {
        node.inline.apply(a, b, node.key.as_ref())
    })
}

fn binary_operands(node: &BinaryNode, frame: &mut Frame) -> EvalResult {
    let (result, cost) = match operands(&node.lhs, &node.rhs, frame, || is_index(&node.overloads))?
    {
        (Ok(a), Ok(b)) => apply_operator(node, a, b),
        (a, b) => {
            let (e, cost) = failed_operands(a, b, |v| failed_call_cost(&node.overloads, v));
            (Err(e), cost)
        }
    };
    frame.charge(cost)?;
    result
}

/// A binary operator on evaluated operands: the result and its cost. Not inlined, so that
/// [`binary_operands`], on the recursion path, keeps a small stack frame in debug builds.
#[inline(never)]
fn apply_operator(node: &BinaryNode, a: Cow<'_, Value>, b: Cow<'_, Value>) -> (EvalResult, u64) {
    let key = node.key.as_ref();
    let inline = match node.inline.apply_values(&a, &b, key) {
        None if matches!(*a, Value::Json(_)) || matches!(*b, Value::Json(_)) => {
            node.inline.apply(Read::of(&a), Read::of(&b), key)
        }
        inline => inline,
    };
    match inline {
        Some(done) => done,
        None => apply_binary(&node.overloads, &node.table, a, b),
    }
}

/// A call whose overload depends on the argument values' types.
#[inline(never)]
fn dispatch(
    id: ExprId,
    overloads: &[(Overload, CallCost)],
    args: &[Node],
    table: Option<&DispatchTable>,
    frame: &mut Frame,
) -> EvalResult {
    dispatch_overload(overloads, args, table, frame).map_err(|e| e.at(id))
}

fn dispatch_overload(
    overloads: &[(Overload, CallCost)],
    args: &[Node],
    table: Option<&DispatchTable>,
    frame: &mut Frame,
) -> EvalResult {
    if let ([a, b], Some(table)) = (args, table) {
        // Two arguments (most operators): no allocation, no clones of simple operands.
        let (result, cost) = match operands(a, b, frame, || is_index(overloads))? {
            (Ok(a), Ok(b)) => apply_binary(overloads, table, a, b),
            (a, b) => {
                let (e, cost) = failed_operands(a, b, |v| failed_call_cost(overloads, v));
                (Err(e), cost)
            }
        };
        frame.charge(cost)?;
        return result;
    }
    if let ([a], Some(table)) = (args, table) {
        if let Some(done) = dispatch_in_place(overloads, table, a, frame) {
            return done;
        }
        if is_simple(a) {
            // One simple argument (conversions): read in place.
            let a = match simple(a, frame.slots, &mut frame.cost) {
                Ok(a) => plain(a),
                Err(e) => {
                    // cel-go charges a call whose argument failed (see `failed_call_cost`).
                    frame.charge(failed_call_cost(overloads, &[None]))?;
                    return Err(e);
                }
            };
            let arg = std::slice::from_ref(a.as_ref());
            let Some((o, cost)) = unary_overload(overloads, table, &a) else {
                return Err(EvalError::no_such_overload());
            };
            let result = match &o.implementation {
                Implementation::Unary(f) => f(&a),
                other => other
                    .call(arg)
                    .unwrap_or_else(|| Err(EvalError::no_such_overload())),
            };
            frame.cost = frame
                .cost
                .saturating_add(cost.of_call(arg, result.as_ref().ok()));
            frame.check_limit()?;
            return result;
        }
    }
    let values = call_arguments(
        args,
        frame,
        |v| failed_call_cost(overloads, v),
        || is_index(overloads),
    )?;
    call_accepting(overloads, table, &values, frame)
}

/// Calls the overload of `overloads` that accepts the evaluated arguments `values`
/// (converted: no JSON node), charging its cost.
fn call_accepting(
    overloads: &[(Overload, CallCost)],
    table: Option<&DispatchTable>,
    values: &[Value],
    frame: &mut Frame,
) -> EvalResult {
    let chosen = match (table, values) {
        (Some(table), [a]) => match table.get(overloads, &[a]) {
            DispatchTable::NONE => None,
            DispatchTable::SCAN => overloads.iter().find(|(o, _)| o.accepts(values)),
            i => overloads.get(usize::from(i)),
        },
        _ => overloads.iter().find(|(o, _)| o.accepts(values)),
    };
    let Some((o, cost)) = chosen else {
        return Err(EvalError::no_such_overload());
    };
    let result = o
        .implementation
        .call(values)
        .unwrap_or_else(|| Err(EvalError::no_such_overload()));
    frame.charge(cost.of_call(values, result.as_ref().ok()))?;
    result
}

/// Calls the overload of `overloads` that accepts the two values; the result and the
/// call's cost (for the caller to charge).
fn apply_binary(
    overloads: &[(Overload, CallCost)],
    table: &DispatchTable,
    a: Cow<'_, Value>,
    b: Cow<'_, Value>,
) -> (EvalResult, u64) {
    // Functions see plain values (a binary operator's inline kernel reads JSON in place).
    let (a, b) = (plain(a), plain(b));
    let chosen = match table.get(overloads, &[&a, &b]) {
        // The overload the checker resolved is called as a call node would call it: its
        // implementation may take more than its declared types (a list index as a uint or
        // an integral double, as in cel-go).
        DispatchTable::NONE => match overloads {
            [only] => Some(only),
            _ => None,
        },
        DispatchTable::SCAN => {
            let pair = [a.as_ref().clone(), b.as_ref().clone()];
            overloads.iter().find(|(o, _)| o.accepts(&pair))
        }
        i => overloads.get(usize::from(i)),
    };
    let Some((o, cost)) = chosen else {
        return (Err(EvalError::no_such_overload()), 0);
    };
    let result = match &o.implementation {
        Implementation::Binary(f) => f(&a, &b),
        other => other
            .call(&[a.as_ref().clone(), b.as_ref().clone()])
            .unwrap_or_else(|| Err(EvalError::no_such_overload())),
    };
    let cost = cost.of_binary(&a, &b, result.as_ref().ok());
    (result, cost)
}

/// A chain of additions (see [`ConcatNode`]): while both sides are strings they are
/// appended to one buffer, charged as `add_string` (⌈(size(a) + size(b)) × 0.1⌉ per step,
/// sizes in code points); any other pair is added by the overloads. Operands are evaluated
/// and errors raised in the order of the pairwise calls.
#[inline(never)]
fn concat(c: &ConcatNode, frame: &mut Frame) -> EvalResult {
    let mut next = 0;
    match concat_parts(c, frame, &mut next) {
        Err(e) if !e.is_cancellation() => concat_failed(c, next, e, frame),
        done => done,
    }
}

/// The additions of a chain after an error, as cel-go's nested `_+_` calls go on: each
/// evaluates its right operand and is charged with the error as its left (see
/// [`failed_call_cost`]); the first error is the result. `next` is the first operand of
/// `c.rest` not evaluated yet.
#[cold]
fn concat_failed(c: &ConcatNode, next: usize, error: EvalError, frame: &mut Frame) -> EvalResult {
    for (_, part) in &c.rest[next..] {
        let v = cancelled(eval(part, frame))?.map(Value::materialize);
        frame.charge(failed_call_cost(&c.overloads, &[None, v.as_ref().ok()]))?;
    }
    Err(error)
}

/// [`concat`] up to the first error, with `next` set to the operand of `c.rest` that the
/// additions after that error start from.
fn concat_parts(c: &ConcatNode, frame: &mut Frame, next: &mut usize) -> EvalResult {
    // The string built so far and its size, once the first operand was a string read in
    // place or two strings have been joined: built in the frame's buffer (taken, so that a
    // nested chain gets a buffer of its own). `acc` is unused while there is one.
    let mut text: Option<(String, u64)> = None;
    let mut buffer = std::mem::take(&mut frame.text_buffer);
    let first_text = if is_simple(&c.first) {
        peek_text(&c.first, frame.slots, frame.reads_json())
    } else {
        None
    };
    let mut acc = if let Some((s, read)) = first_text {
        // A string read in place (from a JSON document too): no copy.
        frame.cost = frame.cost.saturating_add(read);
        frame.check_limit()?;
        crate::budget::reserve(s.len() as u64)?;
        let mut buf = std::mem::take(&mut buffer);
        buf.clear();
        buf.push_str(s);
        text = Some((buf, cost::code_points(s)));
        Value::Null
    } else if is_simple(&c.first) {
        let first = simple(&c.first, frame.slots, &mut frame.cost)?;
        frame.check_limit()?;
        match first {
            Cow::Borrowed(Value::String(s)) => {
                crate::budget::reserve(s.len() as u64)?;
                let mut buf = std::mem::take(&mut buffer);
                buf.clear();
                buf.push_str(s);
                text = Some((buf, cost::code_points(s)));
                Value::Null
            }
            v => v.into_owned(),
        }
    } else {
        eval(&c.first, frame)?
    };
    for (i, (id, part)) in c.rest.iter().enumerate() {
        *next = i + 1;
        // A string read in place (from a JSON document too) joined to the text: no copy.
        if is_simple(part) && (text.is_some() || matches!(acc, Value::String(_))) {
            if let Some((s, read)) = peek_text(part, frame.slots, frame.reads_json()) {
                frame.cost = frame.cost.saturating_add(read);
                if let (None, Value::String(a)) = (&text, &acc) {
                    crate::budget::reserve(a.len() as u64).map_err(|e| e.at(*id))?;
                    let mut buf = std::mem::take(&mut buffer);
                    buf.clear();
                    buf.push_str(a);
                    text = Some((buf, cost::code_points(a)));
                }
                if let Some((buf, size)) = &mut text {
                    let n = cost::code_points(s);
                    frame.cost = frame
                        .cost
                        .saturating_add(cost::traverse(size.saturating_add(n)));
                    frame.check_limit()?;
                    crate::budget::reserve(s.len() as u64).map_err(|e| e.at(*id))?;
                    buf.push_str(s);
                    *size = size.saturating_add(n);
                    continue;
                }
            }
        }
        // Simple operands (constants, variables, paths) are read in place: the frame's
        // cost is then updated through its field, as the slots stay borrowed.
        let v = if is_simple(part) {
            simple(part, frame.slots, &mut frame.cost)
        } else {
            eval(part, frame).map(Cow::Owned)
        };
        let v = match v {
            Ok(v) => v,
            Err(e) => {
                // The addition is charged with its failed operand (see `failed_call_cost`).
                if !e.is_cancellation() {
                    let acc = match &text {
                        Some((buf, _)) => Value::from(buf.as_str()),
                        None => acc.clone(),
                    };
                    frame.charge(failed_call_cost(&c.overloads, &[Some(&acc), None]))?;
                }
                return Err(e);
            }
        };
        if let Value::String(s) = &*v {
            let joined = match (&mut text, &acc) {
                (Some(t), _) => Some(t),
                (None, Value::String(a)) => {
                    crate::budget::reserve(a.len() as u64).map_err(|e| e.at(*id))?;
                    let mut buf = std::mem::take(&mut buffer);
                    buf.clear();
                    buf.push_str(a);
                    Some(text.insert((buf, cost::code_points(a))))
                }
                _ => None,
            };
            if let Some((buf, size)) = joined {
                let n = cost::code_points(s);
                frame.cost = frame
                    .cost
                    .saturating_add(cost::traverse(size.saturating_add(n)));
                frame.check_limit()?;
                crate::budget::reserve(s.len() as u64).map_err(|e| e.at(*id))?;
                buf.push_str(s);
                *size = size.saturating_add(n);
                continue;
            }
        }
        let a = match text.take() {
            Some((buf, _)) => {
                let joined = Value::from(buf.as_str());
                buffer = buf;
                joined
            }
            None => std::mem::replace(&mut acc, Value::Null),
        };
        let table = c.table.as_ref().ok_or_else(EvalError::no_such_overload)?;
        let (result, cost) = apply_binary(&c.overloads, table, Cow::Owned(a), v);
        frame.cost = frame.cost.saturating_add(cost);
        frame.check_limit()?;
        acc = result.map_err(|e| e.at(*id))?;
    }
    Ok(match text {
        Some((buf, _)) => {
            let joined = Value::from(buf.as_str());
            frame.text_buffer = buf;
            joined
        }
        None => {
            frame.text_buffer = buffer;
            acc
        }
    })
}

/// What a condition (an operand of `&&`, `||` or `!`, the condition of `?:`, a quantifier's
/// predicate) gave: a bool, an error (left in the frame, see [`take_error`]), or a value of
/// another kind. One byte, returned in a register, with no value to drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Truth {
    Bool(bool),
    Error,
    Other,
}

/// A condition's outcome with its error held: a bool, an error (`Some`), or a value of
/// another kind (`None`). What [`combine`] and the quantifiers' accumulators work with.
type Outcome = Result<bool, Option<EvalError>>;

/// [`Truth::Error`] for `error`, which is left in the frame.
#[cold]
fn fail(error: EvalError, frame: &mut Frame) -> Truth {
    frame.error = Some(error);
    Truth::Error
}

/// The error of the condition that just gave [`Truth::Error`].
fn take_error(frame: &mut Frame) -> EvalError {
    frame
        .error
        .take()
        .unwrap_or_else(|| EvalError::new("internal: a failed condition left no error"))
}

/// A result as a [`Truth`].
#[inline]
fn to_truth(result: EvalResult, frame: &mut Frame) -> Truth {
    match result {
        Ok(Value::Bool(b)) => Truth::Bool(b),
        Ok(_) => Truth::Other,
        Err(e) => fail(e, frame),
    }
}

/// A [`Truth`] as a result, where a value other than a bool is a missing overload.
#[inline]
fn from_truth(truth: Truth, frame: &mut Frame) -> EvalResult {
    match truth {
        Truth::Bool(b) => Ok(Value::Bool(b)),
        Truth::Error => Err(take_error(frame)),
        Truth::Other => Err(EvalError::no_such_overload()),
    }
}

/// An [`Outcome`] as a result, where a value other than a bool is a missing overload.
fn outcome_result(outcome: Outcome) -> EvalResult {
    match outcome {
        Ok(b) => Ok(Value::Bool(b)),
        Err(e) => Err(e.unwrap_or_else(EvalError::no_such_overload)),
    }
}

/// A [`Truth`] as an [`Outcome`], taking its error from the frame.
#[inline]
fn settle(truth: Truth, frame: &mut Frame) -> Outcome {
    match truth {
        Truth::Bool(b) => Ok(b),
        Truth::Error => Err(Some(take_error(frame))),
        Truth::Other => Err(None),
    }
}

/// An [`Outcome`] as a [`Truth`], leaving its error in the frame.
#[inline]
fn unsettle(outcome: Outcome, frame: &mut Frame) -> Truth {
    match outcome {
        Ok(b) => Truth::Bool(b),
        Err(Some(e)) => fail(e, frame),
        Err(None) => Truth::Other,
    }
}

/// Evaluates a condition. Conditions most often compare, test presence or combine other
/// conditions: these give their bool directly, without building a [`Value`].
#[inline(always)]
fn truth(node: &Node, frame: &mut Frame) -> Truth {
    match node {
        Node::Binary(b) if b.inline.tests() => binary_truth(b, frame),
        Node::And(a, b) => logical(a, b, frame, false),
        Node::Or(a, b) => logical(a, b, frame, true),
        Node::Not { id, operand, cost } => not(*id, operand, *cost, frame),
        Node::Has { id, operand, field } => has_truth(*id, operand, field, frame),
        Node::InConstantList {
            element,
            strings,
            values,
        } => match in_constant_list_test(element, strings, frame) {
            Some(found) => Truth::Bool(found),
            None => {
                let result = in_constant_list_evaluated(element, strings, values, frame);
                to_truth(result, frame)
            }
        },
        Node::Call {
            id,
            implementation,
            cost,
            args,
        } => {
            let result = call(*id, implementation, *cost, args, frame);
            to_truth(result, frame)
        }
        Node::StringTest(t) => match string_test_in_place(t, frame) {
            Some(holds) => Truth::Bool(holds),
            None => {
                let result = eval(&t.call, frame);
                to_truth(result, frame)
            }
        },
        other => {
            let result = eval(other, frame);
            to_truth(result, frame)
        }
    }
}

#[inline(never)]
fn logical_node(a: &Node, b: &Node, frame: &mut Frame, or: bool) -> EvalResult {
    let t = logical(a, b, frame, or);
    from_truth(t, frame)
}

/// `&&` (`or == false`) and `||` (`or == true`): commutative over errors, as in cel-go. The
/// deciding value (`false` for `&&`, `true` for `||`) wins over an error on either side.
#[inline(never)]
fn logical(a: &Node, b: &Node, frame: &mut Frame, or: bool) -> Truth {
    let left = truth(a, frame);
    if let Err(e) = frame.check_limit() {
        return fail(e, frame);
    }
    if let Truth::Bool(l) = left {
        if l == or {
            return left;
        }
        // The left operand does not decide: the right one's bool or error is the result.
        return match truth(b, frame) {
            Truth::Other => fail(EvalError::no_such_overload(), frame),
            right => right,
        };
    }
    let left = settle(left, frame);
    let right = truth(b, frame);
    let right = settle(right, frame);
    unsettle(combine(left, right, or), frame)
}

/// Combines two evaluated operands of `&&`/`||` (see [`logical`]).
#[cold]
fn combine(left: Outcome, right: Outcome, or: bool) -> Outcome {
    match (left, right) {
        (Ok(l), Ok(r)) => Ok(if or { l || r } else { l && r }),
        (Ok(v), _) | (_, Ok(v)) if v == or => Ok(or),
        (Err(Some(e)), _) | (_, Err(Some(e))) => Err(Some(e)),
        // An error from here on, which wins over errors that come later (in a quantifier).
        _ => Err(Some(EvalError::no_such_overload())),
    }
}

/// Whether a node can be evaluated by reference with [`simple`].
#[inline]
fn is_simple(node: &Node) -> bool {
    matches!(
        node,
        Node::Const(_) | Node::Load(_) | Node::LoadUncharged(_) | Node::Path(_)
    )
}

/// Evaluates a constant, a variable or a path by reference (see [`is_simple`]), charging
/// as [`eval`] would (the caller checks the limit).
#[inline(always)]
fn simple<'s>(
    node: &'s Node,
    slots: &'s [SlotContent<'_>],
    cost: &mut u64,
) -> Result<Cow<'s, Value>, EvalError> {
    match node {
        Node::Const(v) => Ok(Cow::Borrowed(v)),
        Node::Load(slot) => {
            *cost = cost.saturating_add(cost::SELECT_AND_IDENT);
            slots[*slot as usize]
                .get()
                .map(Cow::Borrowed)
                .map_err(Clone::clone)
        }
        Node::LoadUncharged(slot) => slots[*slot as usize]
            .get()
            .map(Cow::Borrowed)
            .map_err(Clone::clone),
        Node::Path(p) => path(p, slots, cost),
        other => Err(EvalError::new(format!("internal: not simple: {other:?}"))),
    }
}

/// The value of an operand that is simple (see [`is_simple`]) or an access chain over one
/// planned into an [`Operand`] (`x.items[0].labels['app']`), when it reads without an error
/// through maps and lists (with [`Reads`], JSON objects and arrays too) only: by reference,
/// at the fixed cost [`peek_cost`] gives. `None` for anything else, which evaluation
/// handles.
#[inline(always)]
pub(crate) fn peek<'s, R: Reader>(
    node: &'s Node,
    slots: &'s [SlotContent<'_>],
) -> Option<R::Out<'s>> {
    match node {
        Node::Access(a) => a.operand.read::<R>(slots),
        other => peek_simple::<R>(other, slots),
    }
}

/// What reading an operand [`peek`] reads charges (its planned reading cost); `None` for
/// other nodes.
#[inline(always)]
fn peek_cost(node: &Node) -> Option<u64> {
    match node {
        Node::Access(a) => Some(a.operand.static_cost),
        other => simple_read_cost(other),
    }
}

/// [`peek`] with the cost of the read ([`peek_cost`]).
#[inline(always)]
fn peek_costed<'s, R: Reader>(
    node: &'s Node,
    slots: &'s [SlotContent<'_>],
) -> Option<(R::Out<'s>, u64)> {
    match node {
        Node::Access(a) => Some((a.operand.read::<R>(slots)?, a.operand.static_cost)),
        other => Some((peek_simple::<R>(other, slots)?, simple_read_cost(other)?)),
    }
}

impl Operand {
    /// The operand read in place: its base, then each step, when every step finds its
    /// entry (through maps and lists; with [`Reads`], JSON objects and arrays too). `None`
    /// for anything else (a missing entry, another kind of value, an error on the way),
    /// where the chain is evaluated node by node instead.
    #[inline(never)]
    pub(crate) fn read<'s, R: Reader>(
        &'s self,
        slots: &'s [SlotContent<'_>],
    ) -> Option<R::Out<'s>> {
        let mut current = peek_simple::<R>(&self.base, slots)?;
        for step in &*self.steps {
            current = R::step(current, step)?;
        }
        Some(current)
    }
}

/// The one charge-or-fall-back step of the in-place evaluations on one operand:
/// `operation` on `operand` read in place by `R`, charged the operand's reading cost and
/// the cost `operation` gives with its result, when that stays within the cost limit.
/// `None` (nothing charged) where the operand does not read in place, `operation` gives
/// `None` (an operand of a kind it does not take) or the limit would be passed: the caller
/// then evaluates node by node from the start, which charges, fails and stops at the limit
/// where the node-by-node evaluation does.
#[inline(always)]
fn in_place<R: Reader, T>(
    operand: &Node,
    frame: &mut Frame,
    operation: impl FnOnce(R::Out<'_>) -> Option<(T, u64)>,
) -> Option<T> {
    let (v, read) = peek_costed::<R>(operand, frame.slots)?;
    let (result, cost) = operation(v)?;
    charge_within(&mut frame.cost, frame.limit, read + cost)?;
    Some(result)
}

/// [`in_place`] on two operands, whose reading costs together are `read`.
#[inline(always)]
fn in_place_pair<R: Reader, T>(
    a: &Node,
    b: &Node,
    read: u64,
    frame: &mut Frame,
    operation: impl FnOnce(R::Out<'_>, R::Out<'_>) -> Option<(T, u64)>,
) -> Option<T> {
    let x = peek::<R>(a, frame.slots)?;
    let y = peek::<R>(b, frame.slots)?;
    let (result, cost) = operation(x, y)?;
    charge_within(&mut frame.cost, frame.limit, read + cost)?;
    Some(result)
}

/// [`peek`] for a simple operand (and an [`Operand`]'s base).
#[inline(always)]
fn peek_simple<'s, R: Reader>(node: &'s Node, slots: &'s [SlotContent<'_>]) -> Option<R::Out<'s>> {
    match node {
        Node::Const(v) => Some(R::of(v)),
        Node::Relative(inner) => match &**inner {
            Node::Const(v) => Some(R::of(v)),
            _ => None,
        },
        Node::Load(slot) | Node::LoadUncharged(slot) => slots[*slot as usize].get().ok().map(R::of),
        Node::Path(p) => {
            if let Some((base, len)) = R::prefix(p, slots) {
                return R::walk(base, &p.fields[len..]);
            }
            R::walk(slots[p.slot as usize].get().ok()?, &p.fields)
        }
        _ => None,
    }
}

/// Stores the values at the shared path prefixes (see [`crate::eval::shared_paths`]), each
/// prefix given as a path whose cache slot receives its value. A prefix that fails is not
/// stored (its slot stays `null`): its paths are then walked from their variable and fail
/// where they would have.
pub(crate) fn store_shared_prefixes(prefixes: &[PathNode], slots: &mut [SlotContent<'_>]) {
    for p in prefixes {
        let Some(cache) = p.cache else { continue };
        match &slots[p.slot as usize] {
            SlotContent::Borrowed(input) => {
                // A value the activation holds: the prefix's value is borrowed from it too.
                if let Some(v) = walk_maps(input, &p.fields) {
                    slots[cache.slot as usize] = SlotContent::Borrowed(v);
                    continue;
                }
            }
            SlotContent::InDocument(input) => {
                // A node of a JSON activation's document: so is the prefix's value (a
                // scalar converted), walked on from a shorter prefix's value where it has one
                // (see `shared_paths::chain_prefixes`).
                let (start, skip) = match p.json_cache {
                    Some(PathCache { slot, len }) => match &slots[slot as usize] {
                        SlotContent::InDocument(base) => (base, len as usize),
                        _ => (input, 0),
                    },
                    None => (input, 0),
                };
                let fields = p.fields[skip..].iter().map(|(_, f)| f.json_selection());
                if let Some(v) = start.select(fields) {
                    if !matches!(v.get(), Value::Null) {
                        slots[cache.slot as usize] = SlotContent::InDocument(v);
                    }
                }
                continue;
            }
            _ => {}
        }
        let mut uncharged = 0;
        if let Ok(v) = walk(slots[p.slot as usize].get(), &p.fields, &mut uncharged) {
            let v = v.into_owned();
            slots[cache.slot as usize] = SlotContent::Result(Ok(v));
        }
    }
}

/// Walks a variable-rooted selection chain by reference, cloning nothing but what optional
/// chaining creates; charges as the node-by-node evaluation would (the variable, then each
/// selection attempted), also when it starts from a shared prefix's stored value.
#[inline(always)]
fn path<'s>(
    p: &PathNode,
    slots: &'s [SlotContent<'_>],
    cost: &mut u64,
) -> Result<Cow<'s, Value>, EvalError> {
    // The whole path's cost when every selection is attempted (the usual case).
    let full_cost = u64::from(p.charged) + p.fields.len() as u64;
    // The prefixes of a frame of values, else those of a JSON frame (each set is unset in
    // the other kind of frame, or beyond its slots).
    let prefix = cached_prefix(p.cache, slots).or_else(|| cached_prefix(p.json_cache, slots));
    if let Some((base, len)) = prefix {
        *cost = cost.saturating_add(full_cost);
        let tail = &p.fields[len..];
        return match walk_maps(base, tail) {
            Some(v) => Ok(Cow::Borrowed(v)),
            None => {
                // Charged again by the step-by-step walk below.
                *cost = cost.saturating_sub(tail.len() as u64);
                walk(Ok(base), tail, cost)
            }
        };
    }
    let root = slots[p.slot as usize].get();
    if let Ok(Some(v)) = root.map(|r| walk_maps(r, &p.fields)) {
        *cost = cost.saturating_add(full_cost);
        return Ok(Cow::Borrowed(v));
    }
    if p.charged {
        *cost = cost.saturating_add(cost::SELECT_AND_IDENT);
    }
    walk(root, &p.fields, cost)
}

/// Selects `fields` in turn from `start`, charging each selection attempted.
#[inline]
fn walk<'s>(
    start: Result<&'s Value, &EvalError>,
    fields: &[(ExprId, Field)],
    cost: &mut u64,
) -> Result<Cow<'s, Value>, EvalError> {
    let mut current = start.map_err(Clone::clone)?;
    for (i, (id, field)) in fields.iter().enumerate() {
        if let Value::Json(j) = current
            && let Some(json) = j.json()
        {
            return walk_json(j.root(), json, &fields[i..], cost).map(Cow::Owned);
        }
        *cost = cost.saturating_add(cost::SELECT_AND_IDENT);
        let Value::Map(m) = current else {
            // Optional chaining or a selection error: continue by value.
            let mut owned = select(current, field).map_err(|e| e.at(*id))?;
            for (id, field) in &fields[i + 1..] {
                *cost = cost.saturating_add(cost::SELECT_AND_IDENT);
                owned = select(&owned, field).map_err(|e| e.at(*id))?;
            }
            return Ok(Cow::Owned(owned));
        };
        current = field
            .find(m)
            .ok_or_else(|| EvalError::no_such_key(&*field.name).at(*id))?;
    }
    Ok(Cow::Borrowed(current))
}

/// [`walk`] from `start`, a node of `root`'s document: the selections read the document in
/// place, and only the value at the end is made (as selecting them in turn would give it).
#[inline(never)]
fn walk_json(
    root: &Arc<serde_json::Value>,
    start: &serde_json::Value,
    fields: &[(ExprId, Field)],
    cost: &mut u64,
) -> EvalResult {
    let mut current = start;
    for (id, field) in fields {
        *cost = cost.saturating_add(cost::SELECT_AND_IDENT);
        current = match current {
            serde_json::Value::Object(o) => field
                .find_json(o)
                .ok_or_else(|| EvalError::no_such_key(&*field.name).at(*id))?,
            other => {
                return Err(not_selectable(&JsonNode::child_of(root, other), field).at(*id));
            }
        };
    }
    Ok(JsonNode::child_of(root, current))
}

fn select(v: &Value, field: &Field) -> EvalResult {
    match v {
        Value::Json(j) if j.is_object() => j
            .field(&field.name)
            .ok_or_else(|| EvalError::no_such_key(&*field.name)),
        Value::Map(m) => field
            .find(m)
            .cloned()
            .ok_or_else(|| EvalError::no_such_key(&*field.name)),
        // Selection through an optional is optional chaining: an absent field gives none.
        Value::Optional(None) => Ok(Value::Optional(None)),
        Value::Optional(Some(inner)) => match &**inner {
            Value::Map(m) => Ok(Value::Optional(field.find(m).cloned().map(Arc::new))),
            Value::Json(j) if j.is_object() => Ok(Value::Optional(
                j.field(&field.name).map(|v| Arc::new(v.materialize())),
            )),
            other => select(other, field),
        },
        Value::Opaque(o) if let Some(v) = o.field(&field.name) => v,
        other => Err(not_selectable(other, field)),
    }
}

/// cel-go's `refQualify` selecting a field of a value that is no map: a list cannot be
/// indexed by a string; anything else (null, a scalar, ...) has no keys.
fn not_selectable(v: &Value, field: &Field) -> EvalError {
    match v {
        Value::List(_) => EvalError::new("unsupported index type 'string' in list"),
        Value::Json(j) if j.is_list() => EvalError::new("unsupported index type 'string' in list"),
        _ => EvalError::no_such_key(&*field.name),
    }
}

fn has(v: &Value, field: &Field) -> EvalResult {
    match v {
        Value::Map(m) => Ok(Value::Bool(field.find(m).is_some())),
        Value::Json(j) if j.is_object() => Ok(Value::Bool(j.field(&field.name).is_some())),
        Value::Optional(None) => Ok(Value::Bool(false)),
        Value::Optional(Some(inner)) => has(inner, field),
        // A computed field is present when it computes (Kubernetes' lazy map `Contains`).
        Value::Opaque(o) if let Some(v) = o.field(&field.name) => v.map(|_| Value::Bool(true)),
        // cel-go's `refQualify` in a presence test: a list fails as a selection does; any
        // other value that is no map has no field (an error only with cel-go's
        // `EnableErrorOnBadPresenceTest`, which Kubernetes does not set).
        Value::List(_) => Err(not_selectable(v, field)),
        Value::Json(j) if j.is_list() => Err(not_selectable(v, field)),
        _ => Ok(Value::Bool(false)),
    }
}

#[inline(never)]
fn map_literal(id: ExprId, entries: &[MapEntryNode], frame: &mut Frame) -> EvalResult {
    frame.charge(cost::MAP_CREATE)?;
    map_entries(entries, frame).map_err(|e| e.at(id))
}

fn map_entries(entries: &[MapEntryNode], frame: &mut Frame) -> EvalResult {
    crate::budget::reserve_values(2 * entries.len())?;
    let mut map = Map::with_capacity(entries.len());
    for e in entries {
        let k = eval(&e.key, frame)?;
        let mut v = eval(&e.value, frame)?.materialize();
        let key = Key::from_value(&k).ok_or_else(|| EvalError::new("unsupported key type"))?;
        if e.optional {
            match v {
                Value::Optional(Some(inner)) => v = (*inner).clone(),
                Value::Optional(None) => continue,
                _ => return Err(EvalError::no_matching_overload("optional map entry")),
            }
        }
        if !map.insert_new(key, v) {
            return Err(EvalError::new(format!("Failed with repeated key: {k}")));
        }
    }
    Ok(Value::Map(Arc::new(map)))
}

#[inline(never)]
fn fold(f: &FoldNode, frame: &mut Frame) -> EvalResult {
    let range = eval(&f.range, frame)?;
    let accu = eval(&f.init, frame);
    if let (
        Node::AppendToAccumulator {
            id,
            elements,
            list_cost,
            ..
        },
        Ok(Value::List(init)),
    ) = (&f.step, &accu)
        && let [element] = &**elements
        && f.appends
        && f.iter_slot2.is_none()
    {
        let step = (*id, element, *list_cost);
        let mapped = match &range {
            Value::List(items) => {
                let bind = |slot: &mut SlotContent, i| slot.set_element(items, i);
                Some(map_list(f, items.len(), bind, step, init, frame))
            }
            Value::Json(j) => match j.json() {
                Some(serde_json::Value::Array(items)) => {
                    let root = j.root();
                    let bind = |slot: &mut SlotContent, i| slot.set_json(root, &items[i]);
                    Some(map_list(f, items.len(), bind, step, init, frame))
                }
                _ => None,
            },
            _ => None,
        };
        if let Some(mapped) = mapped {
            mapped?;
            let result = eval(&f.result, frame);
            frame.slots[f.accu_slot as usize] = unset();
            return result;
        }
    }
    fold_generic(f, &range, accu, frame)
}

/// [`fold`]'s iterations step by step, from the accumulator's initial value `accu`.
fn fold_generic(f: &FoldNode, range: &Value, accu: EvalResult, frame: &mut Frame) -> EvalResult {
    frame.slots[f.accu_slot as usize] = SlotContent::Result(accu);
    let iter = f.iter_slot as usize;
    if let (Value::List(items), None) = (range, f.iter_slot2) {
        // The usual case (`map`, `filter` over a list), in a loop of its own.
        for i in 0..items.len() {
            poll_interrupt(i, frame)?;
            frame.slots[iter].set_element(items, i);
            if !step(f, frame)? {
                break;
            }
        }
    } else {
        fold_entries(f, range, frame)?;
    }
    let result = eval(&f.result, frame);
    frame.slots[f.accu_slot as usize] = unset();
    result
}

/// The `len` iterations of [`fold`] over a list (of values, or a JSON array: `bind` puts
/// element `i` in a slot) when each appends `element` to a list accumulator (see
/// [`FoldNode::appends`]): the list is built as a vector and stored in the accumulator's
/// slot at the end, with the charges, errors and result of the steps
/// ([`append_to_accumulator`]): an element's error replaces the accumulator, which an
/// accumulator holding an error keeps.
fn map_list(
    f: &FoldNode,
    len: usize,
    bind: impl Fn(&mut SlotContent, usize),
    (id, element, list_cost): (ExprId, &Node, u64),
    init: &List,
    frame: &mut Frame,
) -> Result<(), EvalError> {
    // Not reserved to the list's length: glibc's malloc then consolidates its free lists,
    // which costs more (in the allocations of the elements) than the vector's regrowth.
    let mut built = Ok(init.clone());
    let iter = f.iter_slot as usize;
    let mut outcome = Ok(());
    for i in 0..len {
        outcome = poll_interrupt(i, frame);
        if outcome.is_err() {
            break;
        }
        bind(&mut frame.slots[iter], i);
        // As the step `@result + [element]` evaluates (see `append_to_accumulator`): the
        // accumulator read (1) and the list literal, the element (evaluated also when the
        // accumulator holds an error, as cel-go's `evalBinary` evaluates both operands),
        // then the `_+_` call (1, charged whether or not an operand failed). An
        // accumulator holding an error stays the result.
        outcome = frame.charge(cost::SELECT_AND_IDENT + list_cost);
        if outcome.is_err() {
            break;
        }
        match eval(element, frame) {
            Err(e) if e.is_cancellation() => {
                outcome = Err(e);
                break;
            }
            Err(e) => {
                if built.is_ok() {
                    built = Err(e.at(id));
                }
            }
            Ok(v) => {
                if let Ok(list) = &mut built {
                    if list.items.len() == list.items.capacity() {
                        // Counted as the vector grows, not per element.
                        if let Err(e) = crate::budget::reserve_values(list.items.len().max(4)) {
                            outcome = Err(e);
                            break;
                        }
                    }
                    list.items.push(v.materialize());
                }
            }
        }
        frame.cost = frame.cost.saturating_add(1);
        outcome = frame.check_limit();
        if outcome.is_err() {
            break;
        }
    }
    frame.slots[f.accu_slot as usize] =
        SlotContent::Result(built.map(|list| Value::List(Arc::new(list))));
    outcome
}

/// The iterations of [`fold`] over a map, a JSON node or a list with two variables.
fn fold_entries(f: &FoldNode, range: &Value, frame: &mut Frame) -> Result<(), EvalError> {
    let iter = f.iter_slot as usize;
    for_each_entry(range, f.iter_slot2.is_some(), f.id, |i, first, second| {
        poll_interrupt(i, frame)?;
        first.bind(&mut frame.slots[iter]);
        if let (Some(s2), Some(second)) = (f.iter_slot2, second) {
            second.bind(&mut frame.slots[s2 as usize]);
        }
        step(f, frame)
    })
}

/// A comprehension variable's value for one iteration.
enum Entry<'r> {
    /// Element `i` of a list value, bound in place (see [`SlotContent::Element`]).
    Element(&'r Arc<List>, usize),
    /// An element of a JSON array or of a list of JSON nodes, bound as a node of the
    /// document `root` holds.
    Json(&'r Arc<serde_json::Value>, &'r serde_json::Value),
    Value(Value),
}

impl Entry<'_> {
    /// Puts this value in a comprehension variable's slot.
    #[inline]
    fn bind(self, slot: &mut SlotContent<'_>) {
        match self {
            Entry::Element(list, i) => slot.set_element(list, i),
            Entry::Json(root, item) => slot.set_json(root, item),
            Entry::Value(v) => *slot = SlotContent::Result(Ok(v)),
        }
    }
}

/// Calls `visit` for each iteration over `range` until it returns false: a list gives its
/// elements (with `pairs`: index and element), a map its keys (with `pairs`: key and
/// value). Other values cannot be iterated over (an error at node `id`).
fn for_each_entry(
    range: &Value,
    pairs: bool,
    id: ExprId,
    mut visit: impl FnMut(usize, Entry, Option<Entry>) -> Result<bool, EvalError>,
) -> Result<(), EvalError> {
    let mut list = |i: usize, item: Entry| {
        if pairs {
            visit(i, Entry::Value(Value::Int(i as i64)), Some(item))
        } else {
            visit(i, item, None)
        }
    };
    match range {
        Value::List(items) => {
            for i in 0..items.len() {
                if !list(i, Entry::Element(items, i))? {
                    break;
                }
            }
        }
        Value::Json(j) if j.is_list() => {
            let root = j.root();
            if let Some(serde_json::Value::Array(items)) = j.json() {
                for (i, item) in items.iter().enumerate() {
                    if !list(i, Entry::Json(root, item))? {
                        break;
                    }
                }
            } else {
                for (i, item) in j.elements().enumerate() {
                    if !list(i, Entry::Json(root, item))? {
                        break;
                    }
                }
            }
        }
        Value::Map(m) => {
            for (i, (k, v)) in m.iter().enumerate() {
                let value = pairs.then(|| Entry::Value(v.clone()));
                if !visit(i, Entry::Value(k.to_value()), value)? {
                    break;
                }
            }
        }
        Value::Json(j) => {
            for (i, (k, v)) in j.entries().enumerate() {
                if !visit(i, Entry::Value(k), Some(Entry::Value(v)))? {
                    break;
                }
            }
        }
        other => {
            return Err(EvalError::new(format!(
                "cannot iterate over a value of type '{}'",
                other.type_name()
            ))
            .at(id));
        }
    }
    Ok(())
}

/// `range.all(x, p)` / `range.exists(x, p)`. Costs as cel-go's expansion: per iteration the
/// loop condition `@not_strictly_false(@result)` (2; 3 with the `!_` of `exists`) and the
/// step's accumulator read (1) plus the predicate; the final `@result` read (1).
#[inline(never)]
fn quantify(q: &QuantifierNode, frame: &mut Frame) -> EvalResult {
    let range = eval(&q.range, frame)?;
    let (condition_cost, decided) = match q.kind {
        Quantifier::All => (2, false),
        Quantifier::Exists => (3, true),
    };
    if let Value::List(items) = &range {
        return quantify_list(q, items.len(), frame, condition_cost, decided, |slot, i| {
            slot.set_element(items, i)
        });
    }
    // A JSON array read in place: the same loop, the variable moved along the array.
    if READS_JSON_IN_PLACE {
        if let Value::Json(j) = &range {
            if let Some(serde_json::Value::Array(items)) = j.json() {
                let root = j.root();
                return quantify_list(q, items.len(), frame, condition_cost, decided, |slot, i| {
                    slot.set_json(root, &items[i])
                });
            }
        }
    }
    let or = q.kind == Quantifier::Exists;
    let mut accu: Outcome = Ok(!decided);
    let slot = q.iter_slot as usize;
    for_each_entry(&range, false, q.id, |i, item, _| {
        poll_interrupt(i, frame)?;
        if matches!(accu, Ok(b) if b == decided) {
            frame.charge(condition_cost)?;
            return Ok(false);
        }
        // The condition and the accumulator read, charged at once: the limit fails the
        // same way whether it is passed by the first charge or by the sum. `!` on an error
        // is charged too (see `failed_call_cost`).
        frame.charge(condition_cost + cost::SELECT_AND_IDENT)?;
        item.bind(&mut frame.slots[slot]);
        let p = truth(&q.predicate, frame);
        frame.check_limit()?;
        let p = settle(p, frame);
        accu = match (&accu, p) {
            // The usual case: the accumulator holds the undecided value (the decided one
            // stopped the loop), so a bool predicate is the new value.
            (Ok(_), Ok(v)) => Ok(v),
            (_, p) => combine(std::mem::replace(&mut accu, Ok(false)), p, or),
        };
        Ok(true)
    })?;
    frame.charge(cost::SELECT_AND_IDENT)?;
    outcome_result(accu)
}

/// [`quantify`] over a list of `n` elements (a list value, or a JSON array read in place),
/// `bind` putting element `i` in the variable's slot, with the same charges, results and
/// errors: the accumulator is kept as a value only once the predicate gave something other
/// than the undecided bool.
fn quantify_list(
    q: &QuantifierNode,
    n: usize,
    frame: &mut Frame,
    condition_cost: u64,
    decided: bool,
    bind: impl Fn(&mut SlotContent<'_>, usize),
) -> EvalResult {
    let slot = q.iter_slot as usize;
    // `None` while the accumulator is the undecided bool.
    let mut accu: Option<Outcome> = None;
    // The condition (charged whatever the accumulator holds: cel-go charges `!` on an
    // error too, see `failed_call_cost`) and the accumulator read.
    let charge = condition_cost + cost::SELECT_AND_IDENT;
    for i in 0..n {
        poll_interrupt(i, frame)?;
        frame.charge(charge)?;
        bind(&mut frame.slots[slot], i);
        let p = truth(&q.predicate, frame);
        frame.check_limit()?;
        let a = match (accu.take(), p) {
            // The usual case: the accumulator stays the undecided bool.
            (None, Truth::Bool(v)) if v != decided => continue,
            (None, p) => combine(Ok(!decided), settle(p, frame), decided),
            (Some(a), p) => combine(a, settle(p, frame), decided),
        };
        accu = Some(a);
        if matches!(accu, Some(Ok(b)) if b == decided) {
            // The next iteration's condition stops the loop.
            if i + 1 < n {
                poll_interrupt(i + 1, frame)?;
                frame.charge(condition_cost)?;
            }
            break;
        }
    }
    frame.charge(cost::SELECT_AND_IDENT)?;
    outcome_result(accu.unwrap_or(Ok(!decided)))
}

/// One loop iteration: checks the condition, then runs the step. Returns false to stop.
/// Only the cost limit aborts the loop with an error; other errors are absorbed into the
/// accumulator as CEL requires.
fn step(f: &FoldNode, frame: &mut Frame) -> Result<bool, EvalError> {
    let go = match &f.condition {
        // `map` and `filter` loop while `true`.
        Node::Const(Value::Bool(go)) => *go,
        condition => {
            let condition = eval(condition, frame);
            frame.check_limit()?;
            matches!(condition, Ok(Value::Bool(true)))
        }
    };
    if !go {
        return Ok(false);
    }
    let next = eval(&f.step, frame);
    frame.check_limit()?;
    if let Err(e) = &next
        && crate::budget::is_exceeded(e)
    {
        // Not absorbable: the evaluation fails, so the loop need not run on.
        return Err(next.unwrap_err());
    }
    frame.slots[f.accu_slot as usize] = SlotContent::Result(next);
    Ok(true)
}

#[inline]
fn poll_interrupt(iteration: usize, frame: &Frame) -> Result<(), EvalError> {
    match frame.interrupt {
        None => Ok(()),
        Some(interrupted) => poll(iteration, interrupted),
    }
}

/// [`poll_interrupt`] with a callback: out of the loops, which mostly run without one.
#[cold]
#[inline(never)]
fn poll(iteration: usize, interrupted: &Interrupt) -> Result<(), EvalError> {
    if iteration % INTERRUPT_CHECK_FREQUENCY == 0 && interrupted() {
        return Err(EvalError::interrupted());
    }
    Ok(())
}

/// A comparison of timestamps or durations (see [`BinaryNode::time_tree`]) worked out in
/// place and charged; `None` (nothing charged) where the node-by-node evaluation must do
/// it. Memos it fills hold what converting again would give, so that evaluation reads
/// them as it would its own.
#[inline(never)]
pub(crate) fn time_tree(node: &BinaryNode, frame: &mut Frame) -> Option<bool> {
    if frame.reads_json() {
        time_tree_read::<Reads>(node, frame)
    } else {
        time_tree_read::<Values>(node, frame)
    }
}

/// [`time_tree`] with its leaves read by `R`.
#[inline(always)]
fn time_tree_read<R: Reader>(node: &BinaryNode, frame: &mut Frame) -> Option<bool> {
    let operands_cost = node.time_tree?;
    let a = time_operand::<R>(&node.lhs, frame.slots)?;
    let b = time_operand::<R>(&node.rhs, frame.slots)?;
    let (holds, cost) = node.inline.test_times(a, b)?;
    charge_within(&mut frame.cost, frame.limit, operands_cost + cost)?;
    Some(holds)
}

/// An operand of a time tree: a [`Node::Time`] worked out, or a value read in place (here,
/// so that only calls cost a call).
#[inline(always)]
fn time_operand<R: Reader>(node: &Node, slots: &mut [SlotContent<'_>]) -> Option<Time> {
    match node {
        Node::Time(t) => time_call::<R>(t, slots),
        other => Time::of(R::read(peek::<R>(other, slots)?).value()?),
    }
}

/// The value of the call a [`TimeNode`] holds: read from its memo when that is filled,
/// else worked out (and the memo filled).
#[inline(never)]
fn time_call<R: Reader>(t: &TimeNode, slots: &mut [SlotContent<'_>]) -> Option<Time> {
    let Node::Memo { slot, node } = &t.call else {
        return time_apply::<R>(t.overloads, call_args(&t.call)?, slots);
    };
    let (value, cost) = (*slot as usize, *slot as usize + 1);
    if let Ok(Value::Uint(_)) = slots[cost].get() {
        return Time::of(slots[value].get().ok()?);
    }
    let charged = t.cost?;
    let v = time_apply::<R>(t.overloads, call_args(node)?, slots)?;
    slots[value] = SlotContent::Result(Ok(v.into()));
    slots[cost] = SlotContent::Result(Ok(Value::Uint(charged)));
    Some(v)
}

/// `overloads` applied to `args` worked out in place.
#[inline(always)]
fn time_apply<R: Reader>(
    overloads: TimeOverloads,
    args: &[Node],
    slots: &mut [SlotContent<'_>],
) -> Option<Time> {
    match args {
        [Node::Time(inner)] => {
            overloads.convert(Read::Value(&time_call::<R>(inner, slots)?.into()))
        }
        [a] => overloads.convert(R::read(peek::<R>(a, slots)?)),
        [a, b] => {
            let x = time_operand::<R>(a, slots)?;
            let y = time_operand::<R>(b, slots)?;
            overloads.arithmetic(x, y)
        }
        _ => None,
    }
}

/// Evaluates a traced node, recording its step (in evaluation order: a node before the
/// nodes evaluated within it).
fn traced(t: &crate::eval::node::TracedNode, frame: &mut Frame) -> EvalResult {
    let Some(log) = frame.trace.as_mut() else {
        return eval(&t.node, frame);
    };
    let index = (log.steps.len() < log.max_steps).then(|| {
        log.steps.push(crate::eval::trace_log::TraceStep {
            id: t.id,
            depth: log.depth,
            result: Ok(crate::Value::Null),
            cost: 0,
        });
        log.steps.len() - 1
    });
    if index.is_none() {
        log.dropped += 1;
    }
    log.depth += 1;
    let before = frame.cost;
    let result = eval(&t.node, frame);
    if let Some(log) = frame.trace.as_mut() {
        log.depth -= 1;
        if let Some(step) = index.and_then(|i| log.steps.get_mut(i)) {
            step.result = result.clone();
            step.cost = frame.cost.saturating_sub(before);
        }
    }
    result
}
