//! Comparisons of timestamps and durations worked out in place (a "time tree"): the
//! standard conversions and arithmetic under a comparison are called on plain chrono
//! values, with operands read in place, no dispatch and no cost check per call. Anything
//! else (another operand kind, a failing conversion, the cost limit) leaves the comparison
//! to the node-by-node evaluation, which starts over and reports what went wrong where.

use crate::cost::CallCost;
use crate::eval::interp::read_cost;
use crate::eval::node::{Node, Time, TimeNode, TimeOverloads, call_args};
use crate::registry::{Implementation, Overload};
use crate::standard::conversions::{duration_of_text, timestamp_of_text};
use crate::standard::time::{
    duration_difference, duration_sum, timestamp_difference, timestamp_minus, timestamp_plus,
};
use crate::standard::timestamp_text;
use crate::value::Value;

impl Time {
    /// The timestamp or duration `v` holds.
    #[inline]
    pub(crate) fn of(v: &Value) -> Option<Time> {
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
    pub(crate) fn convert(self, v: &Value) -> Option<Time> {
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
    pub(crate) fn arithmetic(self, a: Time, b: Time) -> Option<Time> {
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

/// What evaluating an operand of a time tree node by node charges when it succeeds; `None`
/// for an operand a time tree cannot work out.
pub(crate) fn operand_cost(node: &Node) -> Option<u64> {
    match node {
        Node::Time(t) => t.cost,
        other => read_cost(other),
    }
}
