//! Comparisons of timestamps and durations worked out in place (a "time tree"): the
//! standard conversions and arithmetic under a comparison are called on plain chrono
//! values, with operands read in place, no dispatch and no cost check per call. Anything
//! else (another operand kind, a failing conversion, the cost limit) leaves the comparison
//! to the node-by-node evaluation, which starts over and reports what went wrong where.

use chrono::TimeDelta;

use crate::cost::CallCost;
use crate::eval::interp::{Frame, SlotContent, charge_within, peek, read_cost};
use crate::eval::plan::{BinaryNode, Node};
use crate::registry::{Implementation, Overload};
use crate::standard::conversions::{duration_of_text, timestamp_of_text};
use crate::standard::time::{
    duration_difference, duration_sum, timestamp_difference, timestamp_minus, timestamp_plus,
};
use crate::standard::timestamp_text;
use crate::value::{Timestamp, Value};

/// A timestamp or a duration: what a time tree computes with.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Time {
    Timestamp(Timestamp),
    Duration(TimeDelta),
}

impl Time {
    /// The timestamp or duration `v` holds.
    #[inline]
    fn of(v: &Value) -> Option<Time> {
        match v {
            Value::Timestamp(t) => Some(Time::Timestamp(*t)),
            Value::Duration(d) => Some(Time::Duration(*d)),
            _ => None,
        }
    }
}

impl From<Time> for Value {
    fn from(t: Time) -> Value {
        match t {
            Time::Timestamp(t) => Value::Timestamp(t),
            Time::Duration(d) => Value::Duration(d),
        }
    }
}

/// The standard timestamp and duration overloads among a call's candidates, as bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TimeOverloads(u16);

impl TimeOverloads {
    /// The overload ids, bit `i` standing for `IDS[i]`.
    const IDS: [&'static str; 11] = [
        "timestamp_to_timestamp",
        "int64_to_timestamp",
        "string_to_timestamp",
        "duration_to_duration",
        "string_to_duration",
        "add_timestamp_duration",
        "add_duration_timestamp",
        "add_duration_duration",
        "subtract_timestamp_duration",
        "subtract_timestamp_timestamp",
        "subtract_duration_duration",
    ];
    const TIMESTAMP_TO_TIMESTAMP: u16 = Self::bit("timestamp_to_timestamp");
    const INT_TO_TIMESTAMP: u16 = Self::bit("int64_to_timestamp");
    const STRING_TO_TIMESTAMP: u16 = Self::bit("string_to_timestamp");
    const DURATION_TO_DURATION: u16 = Self::bit("duration_to_duration");
    const STRING_TO_DURATION: u16 = Self::bit("string_to_duration");
    const ADD_TIMESTAMP_DURATION: u16 = Self::bit("add_timestamp_duration");
    const ADD_DURATION_TIMESTAMP: u16 = Self::bit("add_duration_timestamp");
    const ADD_DURATION_DURATION: u16 = Self::bit("add_duration_duration");
    const SUBTRACT_TIMESTAMP_DURATION: u16 = Self::bit("subtract_timestamp_duration");
    const SUBTRACT_TIMESTAMP_TIMESTAMP: u16 = Self::bit("subtract_timestamp_timestamp");
    const SUBTRACT_DURATION_DURATION: u16 = Self::bit("subtract_duration_duration");

    /// The bit of overload `id` (worked out at compile time; an id not in [`Self::IDS`]
    /// does not compile).
    const fn bit(id: &str) -> u16 {
        let mut i = 0;
        while i < Self::IDS.len() {
            if Self::IDS[i].len() == id.len() {
                let (a, b) = (Self::IDS[i].as_bytes(), id.as_bytes());
                let mut j = 0;
                while j < a.len() && a[j] == b[j] {
                    j += 1;
                }
                if j == a.len() {
                    return 1 << i;
                }
            }
            i += 1;
        }
        panic!("not a standard time overload")
    }

    /// The overloads of a call whose candidates are all standard timestamp and duration
    /// conversions or arithmetic at one fixed cost, with that cost; `None` for any other
    /// call.
    pub fn of(candidates: &[(Overload, CallCost)]) -> Option<(TimeOverloads, u64)> {
        let [(_, CallCost::Fixed(cost)), ..] = candidates else {
            return None;
        };
        let mut bits = 0;
        for (o, c) in candidates {
            let i = Self::IDS.iter().position(|id| **id == *o.id)?;
            let plain = matches!(
                o.implementation,
                Implementation::Unary(_) | Implementation::Binary(_)
            );
            if !plain || !matches!(c, CallCost::Fixed(x) if x == cost) {
                return None;
            }
            bits |= 1 << i;
        }
        Some((TimeOverloads(bits), *cost))
    }

    fn has(self, bit: u16) -> bool {
        self.0 & bit != 0
    }

    /// A conversion of `v` (`timestamp(v)`, `duration(v)`), where one of these overloads
    /// applies and succeeds.
    fn convert(self, v: &Value) -> Option<Time> {
        match v {
            Value::String(s) if self.has(Self::STRING_TO_TIMESTAMP) => {
                timestamp_of_text(s).ok().map(Time::Timestamp)
            }
            Value::String(s) if self.has(Self::STRING_TO_DURATION) => {
                duration_of_text(s).ok().map(Time::Duration)
            }
            Value::Int(secs) if self.has(Self::INT_TO_TIMESTAMP) => {
                timestamp_text::from_unix(*secs, 0)
                    .ok()
                    .map(|t| Time::Timestamp(t.into()))
            }
            Value::Timestamp(t) if self.has(Self::TIMESTAMP_TO_TIMESTAMP) => {
                Some(Time::Timestamp(*t))
            }
            Value::Duration(d) if self.has(Self::DURATION_TO_DURATION) => Some(Time::Duration(*d)),
            _ => None,
        }
    }

    /// `a + b` or `a - b`, where one of these overloads applies and succeeds.
    fn arithmetic(self, a: Time, b: Time) -> Option<Time> {
        use Time::{Duration as D, Timestamp as T};
        let result = match (a, b) {
            (T(x), T(y)) if self.has(Self::SUBTRACT_TIMESTAMP_TIMESTAMP) => {
                timestamp_difference(&x, &y).map(D)
            }
            (T(t), D(d)) if self.has(Self::ADD_TIMESTAMP_DURATION) => timestamp_plus(&t, &d).map(T),
            (T(t), D(d)) if self.has(Self::SUBTRACT_TIMESTAMP_DURATION) => {
                timestamp_minus(&t, &d).map(T)
            }
            (D(d), T(t)) if self.has(Self::ADD_DURATION_TIMESTAMP) => timestamp_plus(&t, &d).map(T),
            (D(x), D(y)) if self.has(Self::ADD_DURATION_DURATION) => duration_sum(&x, &y).map(D),
            (D(x), D(y)) if self.has(Self::SUBTRACT_DURATION_DURATION) => {
                duration_difference(&x, &y).map(D)
            }
            _ => return None,
        };
        result.ok()
    }
}

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

impl TimeNode {
    /// `call` (of overloads `overloads`, at `fixed_cost` each) with its cost worked out.
    pub fn new(call: Node, overloads: TimeOverloads, fixed_cost: u64) -> TimeNode {
        let cost = call_args(&call).and_then(|args| {
            args.iter()
                .try_fold(fixed_cost, |total, a| Some(total + operand_cost(a)?))
        });
        TimeNode {
            call,
            overloads,
            cost,
        }
    }
}

/// The arguments of the call a [`TimeNode`] holds (or its memo).
#[inline(always)]
fn call_args(call: &Node) -> Option<&[Node]> {
    let call = match call {
        Node::Memo { node, .. } => node,
        other => other,
    };
    match call {
        Node::Call { args, .. } | Node::Dispatch { args, .. } => Some(args),
        _ => None,
    }
}

/// What evaluating an operand of a time tree node by node charges when it succeeds; `None`
/// for an operand a time tree cannot work out.
pub(crate) fn operand_cost(node: &Node) -> Option<u64> {
    match node {
        Node::Time(t) => t.cost,
        other => read_cost(other),
    }
}

/// A comparison of timestamps or durations (see [`BinaryNode::time_tree`]) worked out in
/// place and charged; `None` (nothing charged) where the node-by-node evaluation must do
/// it. Memos it fills hold what converting again would give, so that evaluation reads
/// them as it would its own.
#[inline(never)]
pub(crate) fn time_tree(node: &BinaryNode, frame: &mut Frame) -> Option<bool> {
    let operands_cost = node.time_tree?;
    let a = operand(&node.lhs, frame.slots)?;
    let b = operand(&node.rhs, frame.slots)?;
    let (holds, cost) = node.inline.test_times(a, b)?;
    charge_within(&mut frame.cost, frame.limit, operands_cost + cost)?;
    Some(holds)
}

/// An operand of a time tree: a [`Node::Time`] worked out, or a value read in place (here,
/// so that only calls cost a call).
#[inline(always)]
fn operand(node: &Node, slots: &mut [SlotContent<'_>]) -> Option<Time> {
    match node {
        Node::Time(t) => call(t, slots),
        other => Time::of(peek(other, slots)?),
    }
}

/// The value of the call a [`TimeNode`] holds: read from its memo when that is filled,
/// else worked out (and the memo filled).
#[inline(never)]
fn call(t: &TimeNode, slots: &mut [SlotContent<'_>]) -> Option<Time> {
    let Node::Memo { slot, node } = &t.call else {
        return apply(t.overloads, call_args(&t.call)?, slots);
    };
    let (value, cost) = (*slot as usize, *slot as usize + 1);
    if let Ok(Value::Uint(_)) = slots[cost].get() {
        return Time::of(slots[value].get().ok()?);
    }
    let charged = t.cost?;
    let v = apply(t.overloads, call_args(node)?, slots)?;
    slots[value] = SlotContent::Result(Ok(v.into()));
    slots[cost] = SlotContent::Result(Ok(Value::Uint(charged)));
    Some(v)
}

/// `overloads` applied to `args` worked out in place.
#[inline(always)]
fn apply(overloads: TimeOverloads, args: &[Node], slots: &mut [SlotContent<'_>]) -> Option<Time> {
    match args {
        [Node::Time(inner)] => overloads.convert(&call(inner, slots)?.into()),
        [a] => overloads.convert(peek(a, slots)?),
        [a, b] => {
            let x = operand(a, slots)?;
            let y = operand(b, slots)?;
            overloads.arithmetic(x, y)
        }
        _ => None,
    }
}
