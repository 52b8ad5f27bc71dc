//! Runtime cost, counted exactly as cel-go's cost tracker counts it (with Kubernetes'
//! options): identifiers and field selections cost 1, constants 0, list/map/message
//! literals 10/30/40, and each call the cost its overload declares (a [`CallCost`]: 1 unless
//! the overload is one of the size-dependent string, bytes, list and regex operations, whose
//! declarations in the standard library give the kinds below). The static estimate of an
//! overload that declares none derives from the same [`CallCost`].

mod estimate;

pub use estimate::{
    AstNode, CallEstimate, CallEstimateFn, CostEstimate, EstimateArgs, EstimateFn, NoSizes,
    SizeEstimate, SizeEstimator, WithCallEstimates, estimate,
};

use crate::value::Value;

/// Cost of evaluating an identifier or a field selection.
pub const SELECT_AND_IDENT: u64 = 1;
/// Cost of building a list literal.
pub const LIST_CREATE: u64 = 10;
/// Cost of building a map literal.
pub const MAP_CREATE: u64 = 30;
/// Cost of building a message literal.
pub const STRUCT_CREATE: u64 = 40;
/// Cost per character of traversing a string.
pub const STRING_TRAVERSAL_FACTOR: f64 = 0.1;
/// Cost per character of a regular expression pattern.
pub const REGEX_STRING_LENGTH_FACTOR: f64 = 0.25;

/// The cost limit of the plain CEL environment when none is given (the CLI's and the
/// browser module's default; Kubernetes' environments have their own 1,000,000 per call):
/// about a third of a second of evaluation, so that no expression runs away.
pub const DEFAULT_CEL_COST_LIMIT: u64 = 100_000_000;

/// The message of the error raised when the cost limit is passed.
pub const LIMIT_EXCEEDED: &str = crate::error::COST_LIMIT_EXCEEDED;

/// How the runtime cost of a call is computed from its arguments (a receiver first), as an
/// overload declares it. An overload that declares no estimate of its own is estimated from
/// it as cel-go's checker estimates the standard overloads of each kind (sizes as ranges,
/// arguments counted without a receiver); a kind's estimate applies only to calls of the
/// shape given, others are estimated at 1.
#[derive(Clone, Copy, Debug)]
pub enum CallCost {
    /// A fixed cost (estimated as itself).
    Fixed(u64),
    /// `⌈size(arg0) × 0.1⌉`: startsWith, endsWith, string↔bytes conversions. Estimated for
    /// calls with one argument besides a receiver as `⌈size × 0.1⌉` of that argument (for
    /// `startsWith` cel-go's checker sizes the prefix, not the receiver).
    TraverseFirst,
    /// `size(arg1)`: `in` on a list (estimated alike, for two arguments).
    SizeOfSecond,
    /// `⌈min(size(arg0), size(arg1)) × 0.1⌉`: equality and string/bytes ordering. Estimated
    /// for two arguments as `⌈[m > 0, m] × 0.1⌉`, `m` the smaller of the greatest sizes.
    TraverseMin,
    /// `⌈(size(arg0) + size(arg1)) × 0.1⌉`: string and bytes concatenation (estimated
    /// alike, for two arguments).
    TraverseSum,
    /// `⌈(1 + size(arg0)) × 0.1⌉ × ⌈size(arg1) × 0.25⌉`: `matches` (estimated alike, for a
    /// receiver and one argument).
    Matches,
    /// `⌈size(arg0) × 0.1⌉ × ⌈size(arg1) × 0.1⌉`: `contains` (estimated alike, for a
    /// receiver and one argument).
    Contains,
    /// A library-specific cost function of the arguments and the result (when the call
    /// succeeded); estimated at 1 unless the overload declares an estimate.
    Custom(fn(&[Value], Option<&Value>) -> u64),
}

impl CallCost {
    /// The cost of one call with these (evaluated) arguments and its result.
    pub fn of_call(&self, args: &[Value], result: Option<&Value>) -> u64 {
        match self {
            CallCost::Custom(f) => f(args, result),
            other => other.of(args),
        }
    }

    /// [`CallCost::of_call`] for a call with two arguments, without collecting them.
    #[inline]
    pub fn of_binary(&self, a: &Value, b: &Value, result: Option<&Value>) -> u64 {
        match self {
            CallCost::Custom(f) => f(&[a.clone(), b.clone()], result),
            other => other.of_sizes(Some(a), Some(b)),
        }
    }

    /// The cost of a call that an argument's error decided: `None` for each argument that
    /// failed. cel-go's tracker prices such a call with the error values in the arguments'
    /// places (`interpreter/runtimecost.go`, `costCall`: `actualSize` of an error is 1) and
    /// the error as the result; custom costs see `null` there and no result.
    pub fn of_failed(&self, args: &[Option<&Value>]) -> u64 {
        match self {
            CallCost::Custom(f) => {
                let values: Vec<Value> = args
                    .iter()
                    .map(|a| a.cloned().unwrap_or(Value::Null))
                    .collect();
                f(&values, None)
            }
            other => other.of_sizes(
                args.first().copied().flatten(),
                args.get(1).copied().flatten(),
            ),
        }
    }

    /// The cost of one call with these (evaluated) arguments; custom costs see no result.
    pub fn of(&self, args: &[Value]) -> u64 {
        match (self, args) {
            (CallCost::Custom(f), _) => f(args, None),
            (_, [a, b]) => self.of_sizes(Some(a), Some(b)),
            _ => self.of_sizes(args.first(), args.get(1)),
        }
    }

    /// [`CallCost::of_binary`] for a first argument that is a string given as text (a JSON
    /// string read in place): the same figure without making a value; `None` for a custom
    /// cost, which sees values.
    pub(crate) fn of_text_and(&self, text: &str, second: &Value) -> Option<u64> {
        let first = code_points(text);
        let second = actual_size(second);
        Some(match self {
            CallCost::Fixed(c) => *c,
            CallCost::TraverseFirst => traverse(first),
            CallCost::SizeOfSecond => second,
            CallCost::TraverseMin => traverse(first.min(second)),
            CallCost::TraverseSum => traverse(first.saturating_add(second)),
            CallCost::Matches => {
                let s = ceil_factor(1.0 + first as f64, STRING_TRAVERSAL_FACTOR);
                let p = ceil_factor(second as f64, REGEX_STRING_LENGTH_FACTOR);
                s.saturating_mul(p)
            }
            CallCost::Contains => traverse(first).saturating_mul(traverse(second)),
            CallCost::Custom(_) => return None,
        })
    }

    /// The non-custom costs from the first two arguments (a missing one has size 1).
    fn of_sizes(&self, first: Option<&Value>, second: Option<&Value>) -> u64 {
        let size = |v: Option<&Value>| v.map_or(1, actual_size);
        match self {
            CallCost::Fixed(c) => *c,
            CallCost::TraverseFirst => traverse(size(first)),
            CallCost::SizeOfSecond => size(second),
            CallCost::TraverseMin => match (first, second) {
                (Some(Value::String(a)), Some(Value::String(b))) if a.len().min(b.len()) <= 10 => {
                    // At most 10 bytes, so at most 10 code points: ⌈n × 0.1⌉ is 1 unless a
                    // string is empty (no code points to count).
                    u64::from(a.len().min(b.len()) > 0)
                }
                (Some(a), Some(b)) => traverse(min_size(a, b)),
                _ => traverse(1),
            },
            CallCost::TraverseSum => traverse(size(first).saturating_add(size(second))),
            CallCost::Matches => {
                let s = ceil_factor(1.0 + size(first) as f64, STRING_TRAVERSAL_FACTOR);
                let p = ceil_factor(size(second) as f64, REGEX_STRING_LENGTH_FACTOR);
                s.saturating_mul(p)
            }
            CallCost::Contains => traverse(size(first)).saturating_mul(traverse(size(second))),
            // Not reached: the callers price custom costs with the arguments.
            CallCost::Custom(f) => f(&[], None),
        }
    }
}

fn ceil_factor(x: f64, factor: f64) -> u64 {
    // Float-to-int casts saturate, matching cel-go's clamping of huge sizes.
    (x * factor).ceil() as u64
}

/// `⌈size × 0.1⌉`, in integers where that is exact (below 2^52 the product's rounding
/// cannot cross an integer).
pub(crate) fn traverse(size: u64) -> u64 {
    if size < 1 << 52 {
        size.div_ceil(10)
    } else {
        ceil_factor(size as f64, STRING_TRAVERSAL_FACTOR)
    }
}

/// `min(size(a), size(b))`, counting the code points of the longer string only when needed
/// (a string of `n` bytes has at least `n / 4` code points).
fn min_size(a: &Value, b: &Value) -> u64 {
    match (a, b) {
        (Value::String(a), Value::String(b)) => {
            let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
            let short_chars = code_points(short);
            if (long.len() as u64).div_ceil(4) >= short_chars {
                short_chars
            } else {
                short_chars.min(code_points(long))
            }
        }
        (a, b) => actual_size(a).min(actual_size(b)),
    }
}

/// The number of code points of a string (its length when it is ASCII).
pub(crate) fn code_points(s: &str) -> u64 {
    if s.is_ascii() {
        s.len() as u64
    } else {
        s.chars().count() as u64
    }
}

/// The size cel-go uses for costs: code points of a string, bytes of bytes, entries of a
/// list or map, the payload of an optional; 1 for everything else.
pub fn actual_size(v: &Value) -> u64 {
    match v {
        Value::String(s) => code_points(s),
        Value::Bytes(b) => b.len() as u64,
        Value::List(l) => l.len() as u64,
        Value::Map(m) => m.len() as u64,
        Value::Optional(Some(inner)) => actual_size(inner),
        // A JSON value read in place has the size of the value it reads as.
        Value::Json(j) => j.len() as u64,
        Value::Opaque(o) => o.size().unwrap_or(1),
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Costs from a string's text are those from the string value.
    #[test]
    fn costs_of_text_are_those_of_the_string() {
        let texts = [
            "",
            "a",
            "é",
            "abcdefghij",
            "ééééééééééé",
            "a longer string of text",
        ];
        let seconds = [
            Value::from(""),
            Value::from("^a.*$"),
            Value::from("ééééééééééééé"),
            Value::Int(3),
            Value::from(vec![Value::Int(1), Value::Int(2)]),
        ];
        let costs = [
            CallCost::Fixed(7),
            CallCost::TraverseFirst,
            CallCost::SizeOfSecond,
            CallCost::TraverseMin,
            CallCost::TraverseSum,
            CallCost::Matches,
            CallCost::Contains,
        ];
        for cost in costs {
            for text in texts {
                for second in &seconds {
                    assert_eq!(
                        cost.of_text_and(text, second),
                        Some(cost.of_binary(&Value::from(text), second, None)),
                        "{cost:?} {text:?} {second}"
                    );
                }
            }
        }
        assert_eq!(
            CallCost::Custom(|_, _| 1).of_text_and("x", &Value::Null),
            None
        );
    }

    #[test]
    fn short_string_comparisons_cost_as_counted() {
        let eq = CallCost::TraverseMin;
        let long = "x".repeat(30);
        let samples = [
            "",
            "a",
            "é",
            "abcdefghij",
            "ééééé",
            "abcdefghijk",
            "€€€€",
            &long,
        ];
        for a in samples {
            for b in samples {
                let (a, b) = (Value::from(a), Value::from(b));
                assert_eq!(eq.of(&[a.clone(), b.clone()]), traverse(min_size(&a, &b)));
            }
        }
    }

    #[test]
    fn integer_traversal_agrees_with_cel_go_float_formula() {
        let float = |n: u64| ceil_factor(n as f64, STRING_TRAVERSAL_FACTOR);
        for n in (0..200_000).chain([(1 << 52) - 1, 1 << 52, u64::MAX]) {
            assert_eq!(traverse(n), float(n), "size {n}");
        }
    }

    // Expected figures from cel-go interpreter/runtimecost_test.go.
    #[test]
    fn string_equality_traverses_the_shorter_string() {
        let a = Value::from("12345678901234567890");
        let b = Value::from("123456789012345678901234567890");
        assert_eq!(CallCost::TraverseMin.of(&[a, b]), 2);
    }

    #[test]
    fn matches_multiplies_string_and_pattern_costs() {
        let args = [Value::from("123"), Value::from("[0-9]")];
        assert_eq!(CallCost::Matches.of(&args), 2);
        let long = Value::from("x".repeat(500));
        assert_eq!(CallCost::Matches.of(&[long, Value::from("[0-9]")]), 102);
    }

    #[test]
    fn contains_multiplies_traversals() {
        let a = Value::from("x".repeat(500));
        assert_eq!(CallCost::Contains.of(&[a.clone(), a]), 2500);
    }

    #[test]
    fn min_size_is_exact_for_multibyte_strings() {
        let eq = CallCost::TraverseMin;
        // 10 code points in 30 bytes versus 12 ASCII characters: the minimum is 10.
        let wide = Value::from("ééééééééé€"); // 9 x 2 bytes + 3 bytes = 21 bytes, 10 chars
        let ascii = Value::from("abcdefghijkl");
        assert_eq!(min_size(&wide, &ascii), 10);
        assert_eq!(eq.of(&[wide, ascii]), 1);
        assert_eq!(
            min_size(&Value::from("€€€€€€€€€€€€"), &Value::from("ab")),
            2
        );
    }

    #[test]
    fn scalars_have_size_one() {
        assert_eq!(CallCost::TraverseMin.of(&[Value::Int(1), Value::Int(2)]), 1);
        assert_eq!(CallCost::Fixed(1).of(&[]), 1);
    }
}
