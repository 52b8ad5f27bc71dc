//! Operators evaluated inline for the most common operand kinds (two ints, two strings, a
//! string key and a map, a list and an int index, two timestamps or two durations compared,
//! two bools tested for equality), skipping overload dispatch. The planner uses one only
//! where the call would resolve to the standard overload with its standard cost, so the
//! result and the cost are those of the overload.

use std::cmp::Ordering;

use crate::cost::CallCost;
use crate::error::EvalError;
use crate::eval::node::{Field, Inline, Operator, Time};
use crate::eval::operand::Read;
use crate::registry::{Overload, Specialization};
use crate::standard::go_display;
use crate::syntax::ast::op;
use crate::value::EvalResult;
use crate::value::Value;
use crate::value::str_eq;

impl Operator {
    /// The operator a function name stands for, if it has an inline form.
    pub fn of(function: &str) -> Option<Operator> {
        Some(match function {
            op::EQUALS => Operator::Equals,
            op::NOT_EQUALS => Operator::NotEquals,
            op::LESS => Operator::Less,
            op::LESS_EQUALS => Operator::LessEquals,
            op::GREATER => Operator::Greater,
            op::GREATER_EQUALS => Operator::GreaterEquals,
            op::ADD => Operator::Add,
            op::SUBTRACT => Operator::Subtract,
            op::MULTIPLY => Operator::Multiply,
            op::DIVIDE => Operator::Divide,
            op::MODULO => Operator::Modulo,
            op::IN => Operator::In,
            op::INDEX => Operator::Index,
            _ => return None,
        })
    }

    /// The cost of the standard overload this operator applies to two ints, if it has an
    /// inline kernel for them (equality is priced as cel-go's `equals`, on sizes).
    fn int_overload(self) -> Option<CallCost> {
        Some(match self {
            Operator::Equals | Operator::NotEquals => CallCost::TraverseMin,
            Operator::In | Operator::Index => return None,
            _ => CallCost::Fixed(1),
        })
    }

    /// The cost of the standard overload this operator applies to two timestamps and to two
    /// durations, if it compares them inline.
    fn time_overload(self) -> Option<CallCost> {
        match self {
            Operator::Equals | Operator::NotEquals => Some(CallCost::TraverseMin),
            Operator::Less | Operator::LessEquals | Operator::Greater | Operator::GreaterEquals => {
                Some(CallCost::Fixed(1))
            }
            _ => None,
        }
    }

    /// The cost of the standard overload this operator applies to two bools, if handled
    /// here (only equality).
    fn bool_overload(self) -> Option<CallCost> {
        match self {
            Operator::Equals | Operator::NotEquals => Some(CallCost::TraverseMin),
            _ => None,
        }
    }

    /// The cost of the standard overload this operator applies to a string key and a map,
    /// if any.
    fn keyed_overload(self) -> Option<CallCost> {
        matches!(self, Operator::In | Operator::Index).then_some(CallCost::Fixed(1))
    }

    /// The cost of the standard overload this operator applies to a list and an int, if any.
    fn list_overload(self) -> Option<CallCost> {
        (self == Operator::Index).then_some(CallCost::Fixed(1))
    }

    /// Whether this operator computes a number (rather than comparing or looking up).
    pub fn is_arithmetic(self) -> bool {
        matches!(
            self,
            Operator::Add
                | Operator::Subtract
                | Operator::Multiply
                | Operator::Divide
                | Operator::Modulo
        )
    }

    /// This arithmetic operator on two ints, when it succeeds: `None` on overflow, on
    /// division by zero and for other operators.
    #[inline(always)]
    fn int_arithmetic(self, x: i64, y: i64) -> Option<i64> {
        match self {
            Operator::Add => x.checked_add(y),
            Operator::Subtract => x.checked_sub(y),
            Operator::Multiply => x.checked_mul(y),
            Operator::Divide if y != 0 => x.checked_div(y),
            Operator::Modulo if y != 0 => x.checked_rem(y),
            _ => None,
        }
    }

    /// Whether the key is the second operand (`map[key]`) rather than the first.
    pub fn key_second(self) -> bool {
        self == Operator::Index
    }

    /// The cost of the standard overload this operator applies to two strings, if it
    /// compares them inline.
    fn string_overload(self) -> Option<CallCost> {
        match self {
            Operator::Equals
            | Operator::NotEquals
            | Operator::Less
            | Operator::LessEquals
            | Operator::Greater
            | Operator::GreaterEquals => Some(CallCost::TraverseMin),
            _ => None,
        }
    }

    fn holds(self, order: Ordering) -> bool {
        match self {
            Operator::Equals => order.is_eq(),
            Operator::NotEquals => order.is_ne(),
            Operator::Less => order.is_lt(),
            Operator::LessEquals => order.is_le(),
            Operator::Greater => order.is_gt(),
            Operator::GreaterEquals => order.is_ge(),
            _ => false,
        }
    }
}

impl Inline {
    /// The inline form of a call of `function`, given the overload `chosen` picks for a
    /// pair of operand kinds (`value::kind`): `None` unless some pair of kinds handled here
    /// would reach the standard overload at its standard cost.
    pub fn for_call<'o>(
        function: &str,
        chosen: impl Fn(u8, u8) -> Option<&'o (Overload, CallCost)>,
    ) -> Option<Inline> {
        use crate::value::kind::{BOOL, DURATION, INT, LIST, MAP, STRING, TIMESTAMP};
        let op = Operator::of(function)?;
        // The overload the call reaches for these kinds declares the operator's kernel
        // and keeps the kernel's cost.
        let is = |kinds: (u8, u8), expected: Option<CallCost>| match (
            chosen(kinds.0, kinds.1),
            expected,
        ) {
            (Some((o, c)), Some(cost)) => {
                o.specialization == Some(Specialization::Operator) && same_cost(*c, cost)
            }
            _ => false,
        };
        let ints = is((INT, INT), op.int_overload());
        let strings = is((STRING, STRING), op.string_overload());
        let key_map = if op.key_second() {
            (MAP, STRING)
        } else {
            (STRING, MAP)
        };
        let keyed = is(key_map, op.keyed_overload());
        let indexed = is((LIST, INT), op.list_overload());
        let timestamps = is((TIMESTAMP, TIMESTAMP), op.time_overload());
        let durations = is((DURATION, DURATION), op.time_overload());
        let bools = is((BOOL, BOOL), op.bool_overload());
        (ints || strings || keyed || indexed || timestamps || durations || bools).then_some(
            Inline {
                op,
                ints,
                strings,
                keyed,
                indexed,
                timestamps,
                durations,
                bools,
            },
        )
    }

    /// Whether two ints are evaluated inline.
    pub fn on_ints(self) -> bool {
        self.ints
    }

    /// The result of this arithmetic operator on two ints when it succeeds (`None` on
    /// overflow or division by zero, which the overload reports, and for other operators).
    #[inline(always)]
    pub fn int_arithmetic(self, x: i64, y: i64) -> Option<i64> {
        self.op.int_arithmetic(x, y)
    }

    /// The result of this operator on two ints, as [`Inline::apply`] computes it when it
    /// succeeds (`None` otherwise).
    #[inline]
    pub fn ints(self, x: i64, y: i64) -> Option<Value> {
        if !self.ints {
            return None;
        }
        if self.op.is_arithmetic() {
            self.int_arithmetic(x, y).map(Value::Int)
        } else {
            Some(Value::Bool(self.op.holds(x.cmp(&y))))
        }
    }

    /// Whether this indexes a list by an int inline.
    pub fn indexes_list(self) -> bool {
        self.indexed
    }

    /// Whether this compares two timestamps or two durations inline.
    pub fn compares_times(self) -> bool {
        self.timestamps || self.durations
    }

    /// Whether this indexes a map by a string key inline.
    pub fn indexes_map(self) -> bool {
        self.keyed && self.op == Operator::Index
    }

    /// The operator.
    pub fn operator(self) -> Operator {
        self.op
    }

    /// Whether this operator gives a bool (a comparison or `in`) rather than a value.
    pub fn tests(self) -> bool {
        !self.op.is_arithmetic() && self.op != Operator::Index
    }

    /// The result and cost for `a` and `b` of an operator that gives a bool (see
    /// [`Inline::tests`]), when they are of kinds evaluated inline (it cannot fail then).
    /// `key` is the constant key operand of `in`, if it is one, with its hash.
    #[inline(always)]
    pub fn test(self, a: Read<'_>, b: Read<'_>, key: Option<&Field>) -> Option<(bool, u64)> {
        match (a, b) {
            (Read::Value(a), Read::Value(b)) => self.test_values(a, b, key),
            _ => self.test_json(a, b, key),
        }
    }

    /// [`Inline::test`] where an operand is JSON read in place: as on the values it
    /// converts to.
    #[inline(never)]
    fn test_json(self, a: Read<'_>, b: Read<'_>, key: Option<&Field>) -> Option<(bool, u64)> {
        if self.keyed && self.op == Operator::In {
            if let Some(k) = a.as_str() {
                let found = match key {
                    Some(field) => b.has_field(field),
                    None => b.has_key(k),
                };
                if let Some(found) = found {
                    return Some((found, 1));
                }
            }
        }
        if self.ints && self.tests() {
            if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
                return Some((self.op.holds(x.cmp(&y)), 1));
            }
        }
        if self.bools {
            if let (Some(x), Some(y)) = (a.as_bool(), b.as_bool()) {
                return Some((self.op.holds(x.cmp(&y)), 1));
            }
        }
        if self.strings {
            if let (Some(x), Some(y)) = (a.as_str(), b.as_str()) {
                return Some((self.strings_hold(x, y), string_cost(x, y)));
            }
        }
        None
    }

    /// This comparison on two strings.
    #[inline(always)]
    fn strings_hold(self, x: &str, y: &str) -> bool {
        match self.op {
            Operator::Equals => str_eq(x, y),
            Operator::NotEquals => !str_eq(x, y),
            op => op.holds(x.as_bytes().cmp(y.as_bytes())),
        }
    }

    /// [`Inline::test`] on two values (which a JSON node is not: none of its kinds).
    #[inline(always)]
    pub fn test_values(self, a: &Value, b: &Value, key: Option<&Field>) -> Option<(bool, u64)> {
        if self.keyed && self.op == Operator::In {
            if let (Value::String(k), Value::Map(m)) = (a, b) {
                let found = match key {
                    Some(field) => field.find(m),
                    None => m.get_str(k),
                };
                return Some((found.is_some(), 1));
            }
        }
        match (a, b) {
            (Value::Int(x), Value::Int(y)) if self.ints && self.tests() => {
                Some((self.op.holds(x.cmp(y)), 1))
            }
            (Value::Timestamp(x), Value::Timestamp(y)) if self.timestamps => {
                Some((self.op.holds(x.cmp(y)), 1))
            }
            (Value::Duration(x), Value::Duration(y)) if self.durations => {
                Some((self.op.holds(x.cmp(y)), 1))
            }
            (Value::Bool(x), Value::Bool(y)) if self.bools => Some((self.op.holds(x.cmp(y)), 1)),
            (Value::String(x), Value::String(y)) if self.strings => {
                Some((self.strings_hold(x, y), string_cost(x, y)))
            }
            _ => None,
        }
    }

    /// [`Inline::test`] for two timestamps or two durations worked out by a time tree.
    #[inline(always)]
    pub fn test_times(self, a: Time, b: Time) -> Option<(bool, u64)> {
        let order = match (a, b) {
            (Time::Timestamp(x), Time::Timestamp(y)) if self.timestamps => x.cmp(&y),
            (Time::Duration(x), Time::Duration(y)) if self.durations => x.cmp(&y),
            _ => return None,
        };
        Some((self.op.holds(order), 1))
    }

    /// The result and cost for `a` and `b`, when they are of kinds evaluated inline. `key`
    /// is the constant key operand of `in` or an index, if it is one, with its hash.
    #[inline(always)]
    pub fn apply(self, a: Read<'_>, b: Read<'_>, key: Option<&Field>) -> Option<(EvalResult, u64)> {
        if self.tests() {
            return self
                .test(a, b, key)
                .map(|(holds, cost)| (Ok(Value::Bool(holds)), cost));
        }
        match (a, b) {
            (Read::Value(a), Read::Value(b)) => self.compute_values(a, b, key),
            _ => self.apply_json(a, b, key),
        }
    }

    /// [`Inline::apply`] (not a test) where an operand is JSON read in place: as on the
    /// values it converts to.
    #[inline(never)]
    fn apply_json(
        self,
        a: Read<'_>,
        b: Read<'_>,
        key: Option<&Field>,
    ) -> Option<(EvalResult, u64)> {
        if self.keyed && a.is_map() {
            if let Some(k) = b.as_str() {
                let found = match key {
                    Some(field) => a.field(field),
                    None => a.key(k),
                };
                let result = found
                    .map(Read::to_value)
                    .ok_or_else(|| EvalError::no_such_key(go_display(&Value::from(k))));
                return Some((result, 1));
            }
        }
        if self.ints {
            if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
                return Some((int_op(self.op, x, y), 1));
            }
        }
        if self.indexed && a.is_list() {
            if let Some(i) = b.as_int() {
                let element = a
                    .element(i)
                    .map(Read::to_value)
                    .ok_or_else(|| EvalError::index_out_of_range(i, a.len().unwrap_or(0)));
                return Some((element, 1));
            }
        }
        None
    }

    /// [`Inline::apply`] on two values (which a JSON node is not: none of its kinds).
    #[inline(always)]
    pub fn apply_values(
        self,
        a: &Value,
        b: &Value,
        key: Option<&Field>,
    ) -> Option<(EvalResult, u64)> {
        if self.tests() {
            return self
                .test_values(a, b, key)
                .map(|(holds, cost)| (Ok(Value::Bool(holds)), cost));
        }
        self.compute_values(a, b, key)
    }

    /// [`Inline::apply`] (not a test) on two values.
    #[inline(always)]
    fn compute_values(
        self,
        a: &Value,
        b: &Value,
        key: Option<&Field>,
    ) -> Option<(EvalResult, u64)> {
        if self.keyed {
            if let (Value::Map(m), Value::String(k)) = (a, b) {
                let found = match key {
                    Some(field) => field.find(m),
                    None => m.get_str(k),
                };
                let result = found
                    .cloned()
                    .ok_or_else(|| EvalError::no_such_key(go_display(&Value::String(k.clone()))));
                return Some((result, 1));
            }
        }
        match (a, b) {
            (Value::Int(x), Value::Int(y)) if self.ints => Some((int_op(self.op, *x, *y), 1)),
            (Value::List(items), Value::Int(i)) if self.indexed => {
                let element = usize::try_from(*i).ok().and_then(|at| items.get(at));
                Some((element.cloned().ok_or_else(|| items.index_error(*i)), 1))
            }
            _ => None,
        }
    }
}

fn same_cost(a: CallCost, b: CallCost) -> bool {
    match (a, b) {
        (CallCost::Fixed(x), CallCost::Fixed(y)) => x == y,
        (CallCost::TraverseMin, CallCost::TraverseMin) => true,
        _ => false,
    }
}

/// `⌈min(size(x), size(y)) × 0.1⌉`, sizes in code points (cel-go's equality and string
/// ordering cost).
#[inline(always)]
fn string_cost(x: &str, y: &str) -> u64 {
    let shorter = x.len().min(y.len());
    if shorter <= 10 {
        // At most 10 bytes, so at most 10 code points: 1 unless a string is empty.
        u64::from(shorter > 0)
    } else {
        CallCost::TraverseMin.of_binary(&Value::from(x), &Value::from(y), None)
    }
}

/// An arithmetic operator on two ints, with the overload's errors.
fn int_op(op: Operator, x: i64, y: i64) -> EvalResult {
    match op {
        Operator::Divide if y == 0 => Err(EvalError::division_by_zero()),
        Operator::Modulo if y == 0 => Err(EvalError::modulus_by_zero()),
        op => op
            .int_arithmetic(x, y)
            .map(Value::Int)
            .ok_or_else(EvalError::overflow),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost;
    use crate::registry::Registry;
    use crate::value as kcel_map;

    /// The inline result and cost equal the standard overload's, for every operator and a
    /// spread of operands (overflow, division by zero, empty, short, long and non-ASCII
    /// strings).
    #[test]
    fn inline_operators_agree_with_their_overloads() {
        let mut registry = Registry::new();
        registry.add_library(&crate::standard::library());
        let ints = [0, 1, -1, 7, -7, i64::MAX, i64::MIN];
        let long = "long string of more than ten bytes";
        let strings = ["", "a", "b", "é", "abcdefghij", long, "ééééééééééééé"];
        let mut values: Vec<Value> = ints.iter().map(|i| Value::Int(*i)).collect();
        values.extend([Value::Bool(false), Value::Bool(true)]);
        values.extend(strings.iter().map(|s| Value::from(*s)));
        let map: kcel_map::Map = strings[..4]
            .iter()
            .map(|s| {
                (
                    kcel_map::Key::String((*s).into()),
                    Value::from(s.len() as i64),
                )
            })
            .collect();
        values.push(Value::Map(std::sync::Arc::new(map)));
        values.push(Value::from(vec![Value::from("first"), Value::Int(2)]));
        for secs in [0, 1, -86_400, 1_700_000_000] {
            let t = chrono::DateTime::from_timestamp(secs, 5).expect("in range");
            values.push(Value::Timestamp(t.into()));
            values.push(Value::Duration(
                chrono::TimeDelta::new(secs, 5).expect("in range"),
            ));
        }
        let functions = [
            op::EQUALS,
            op::NOT_EQUALS,
            op::LESS,
            op::LESS_EQUALS,
            op::GREATER,
            op::GREATER_EQUALS,
            op::ADD,
            op::SUBTRACT,
            op::MULTIPLY,
            op::DIVIDE,
            op::MODULO,
            op::IN,
            op::INDEX,
        ];
        let mut checked = 0;
        let mut checked_times = 0;
        for function in functions {
            let f = registry.get(function).expect("standard operator");
            let overloads: Vec<(Overload, CallCost)> = f
                .candidates(false, 2)
                .map(|o| (o.clone(), o.call_cost()))
                .collect();
            let find = |a: &Value, b: &Value| {
                let pair = [a.clone(), b.clone()];
                overloads.iter().find(|(o, _)| o.accepts(&pair))
            };
            let inline = Inline::for_call(function, |_, _| None);
            assert!(inline.is_none(), "{function}: no overloads, no inline form");
            let inline = Inline::for_call(function, |ka, kb| {
                let sample = |k| values.iter().find(|v| v.kind() == k).unwrap();
                find(sample(ka), sample(kb))
            })
            .unwrap_or_else(|| panic!("{function} has an inline form"));
            for a in &values {
                for b in &values {
                    let Some((result, cost)) = inline.apply(Read::of(a), Read::of(b), None) else {
                        continue;
                    };
                    let constant = Field::new(match (a, b) {
                        (Value::String(k), _) | (_, Value::String(k)) => k.clone(),
                        _ => "".into(),
                    });
                    if let (Value::Map(_), Value::String(_)) | (Value::String(_), Value::Map(_)) =
                        (a, b)
                    {
                        assert_eq!(
                            inline.apply(Read::of(a), Read::of(b), Some(&constant)),
                            Some((result.clone(), cost))
                        );
                    }
                    let (o, c) = find(a, b).expect("an overload");
                    let expected = o.implementation.call(&[a.clone(), b.clone()]).unwrap();
                    assert_eq!(result, expected, "{a} {function} {b}");
                    let expected_cost = c.of_binary(a, b, expected.as_ref().ok());
                    assert_eq!(cost, expected_cost, "cost of {a} {function} {b}");
                    checked += 1;
                    if matches!(a, Value::Timestamp(_) | Value::Duration(_)) {
                        checked_times += 1;
                    }
                }
            }
        }
        assert!(checked > 500, "{checked} pairs checked");
        assert!(
            checked_times >= 6 * 32,
            "{checked_times} time pairs checked"
        );
        // Keep the cost helper honest for long strings too.
        assert_eq!(string_cost(long, long), cost::traverse(long.len() as u64));
    }
}
