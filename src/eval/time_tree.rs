//! Comparisons of timestamps and durations worked out in place (a "time tree"): the
//! standard conversions and arithmetic under a comparison are called on plain chrono
//! values, with operands read in place, no dispatch and no cost check per call. Anything
//! else (another operand kind, a failing conversion, the cost limit) leaves the comparison
//! to the node-by-node evaluation, which starts over and reports what went wrong where.

use crate::cost::CallCost;
use crate::eval::node::{Node, Time, TimeNode, TimeOverloads, call_args};
use crate::eval::operand::{Read, read_cost};
use crate::registry::{Implementation, Overload, Specialization, TimeKernel};
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
    const TIMESTAMP_TO_TIMESTAMP: u16 = Self::bit(TimeKernel::TimestampToTimestamp);
    const INT_TO_TIMESTAMP: u16 = Self::bit(TimeKernel::IntToTimestamp);
    const STRING_TO_TIMESTAMP: u16 = Self::bit(TimeKernel::StringToTimestamp);
    const DURATION_TO_DURATION: u16 = Self::bit(TimeKernel::DurationToDuration);
    const STRING_TO_DURATION: u16 = Self::bit(TimeKernel::StringToDuration);
    const ADD_TIMESTAMP_DURATION: u16 = Self::bit(TimeKernel::AddTimestampDuration);
    const ADD_DURATION_TIMESTAMP: u16 = Self::bit(TimeKernel::AddDurationTimestamp);
    const ADD_DURATION_DURATION: u16 = Self::bit(TimeKernel::AddDurationDuration);
    const SUBTRACT_TIMESTAMP_DURATION: u16 = Self::bit(TimeKernel::SubtractTimestampDuration);
    const SUBTRACT_TIMESTAMP_TIMESTAMP: u16 = Self::bit(TimeKernel::SubtractTimestampTimestamp);
    const SUBTRACT_DURATION_DURATION: u16 = Self::bit(TimeKernel::SubtractDurationDuration);

    /// The bit of a conversion or an arithmetic operation.
    const fn bit(kernel: TimeKernel) -> u16 {
        1 << kernel as u16
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
            let Some(Specialization::Time(kernel)) = o.specialization else {
                return None;
            };
            let plain = matches!(
                o.implementation,
                Implementation::Unary(_) | Implementation::Binary(_)
            );
            if !plain || !matches!(c, CallCost::Fixed(x) if x == cost) {
                return None;
            }
            bits |= Self::bit(kernel);
        }
        Some((TimeOverloads(bits), *cost))
    }

    fn has(self, bit: u16) -> bool {
        self.0 & bit != 0
    }

    /// A conversion of `v` (`timestamp(v)`, `duration(v)`), where one of these overloads
    /// applies and succeeds.
    /// The operand may be JSON read in place (a string or a number).
    pub(crate) fn convert(self, v: Read<'_>) -> Option<Time> {
        if let Some(s) = v.as_str() {
            return if self.has(Self::STRING_TO_TIMESTAMP) {
                timestamp_of_text(s).ok().map(Time::Timestamp)
            } else if self.has(Self::STRING_TO_DURATION) {
                duration_of_text(s).ok().map(Time::Duration)
            } else {
                None
            };
        }
        if let Some(secs) = v.as_int() {
            return if self.has(Self::INT_TO_TIMESTAMP) {
                timestamp_text::from_unix(secs, 0)
                    .ok()
                    .map(|t| Time::Timestamp(t.into()))
            } else {
                None
            };
        }
        match v.value()? {
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
