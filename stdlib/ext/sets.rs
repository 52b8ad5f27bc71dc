//! cel-go's `ext.Sets`: set relations between lists, with CEL equality (`[1] ⊇ [1.0, 1u]`).
//!
//! Costs, at run time and in estimates: `1 + |a|×|b|` for `sets.contains` and
//! `sets.intersects`, `1 + 2×|a|×|b|` for `sets.equivalent`.

use kcel::Value;
use kcel::library::overloads;
use kcel::library::{CallCost, CallEstimate, CostEstimate, EstimateArgs};
use kcel::library::{EqualitySet, Implementation, Library};
use kcel::{EvalError, EvalResult};

use super::{arg_size, floor_factor, sat_add, size_mul, size_times};

/// Builds the library.
pub fn library() -> Library {
    let mut lib = Library::new("cel.lib.ext.sets", 0);
    overloads!(lib.function(
        "sets.contains",
        "Whether the first list contains every element of the second.",
    );
        global "list_sets_contains_list" ("list(T)", "list(T)") -> "bool"
            => Implementation::Binary(contains),
            cost: CallCost::Custom(cost_contains),
            estimate: estimate_contains;
    )
    .examples(&[
        "sets.contains([], [])",
        "sets.contains([1, 2, 3, 4], [2, 3])",
        "!sets.contains([1, 2], [2, 3])",
        "sets.contains([1], [1.0, 1u])",
    ]);
    overloads!(lib.function(
        "sets.equivalent",
        "Whether two lists hold the same elements, ignoring order and duplicates.",
    );
        global "list_sets_equivalent_list" ("list(T)", "list(T)") -> "bool"
            => Implementation::Binary(equivalent),
            cost: CallCost::Custom(cost_equivalent),
            estimate: estimate_equivalent;
    )
    .examples(&[
        "sets.equivalent([], [])",
        "sets.equivalent([1], [1, 1])",
        "sets.equivalent([1, 2, 3], [3u, 2.0, 1])",
        "!sets.equivalent([1, 2], [2, 3])",
    ]);
    overloads!(lib.function(
        "sets.intersects",
        "Whether the two lists have at least one element in common.",
    );
        global "list_sets_intersects_list" ("list(T)", "list(T)") -> "bool"
            => Implementation::Binary(intersects),
            cost: CallCost::Custom(cost_contains),
            estimate: estimate_contains;
    )
    .examples(&[
        "sets.intersects([1], [1])",
        "sets.intersects([1], [1.0, 2])",
        "!sets.intersects([1], [])",
        "!sets.intersects([1, 2], [3, 4])",
    ]);
    lib
}

fn lists<'a>(a: &'a Value, b: &'a Value) -> Result<(&'a [Value], &'a [Value]), EvalError> {
    match (a, b) {
        (Value::List(x), Value::List(y)) => Ok((x, y)),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// Whether every element of `sub` is in `set` (an element of `set` on the left of each
/// comparison, as cel-go compares). cel-go compares every pair, and charges the product of
/// the sizes once the call returns; the elements of `set` are grouped by hash instead, so
/// only equal candidates are compared (counted against the evaluation's visit budget; past
/// it the answer is `false` and the evaluation fails).
fn contains_all(set: &[Value], sub: &[Value]) -> bool {
    let set = EqualitySet::of(set);
    sub.iter().all(|x| set.contains(x))
}

/// `sets.contains(a, b)`.
pub fn contains(a: &Value, b: &Value) -> EvalResult {
    let (a, b) = lists(a, b)?;
    Ok(Value::Bool(contains_all(a, b)))
}

/// `sets.equivalent(a, b)`.
pub fn equivalent(a: &Value, b: &Value) -> EvalResult {
    let (a, b) = lists(a, b)?;
    Ok(Value::Bool(contains_all(a, b) && contains_all(b, a)))
}

/// `sets.intersects(a, b)`: some element of `a` equal to one of `b` (on the left).
pub fn intersects(a: &Value, b: &Value) -> EvalResult {
    let (a, b) = lists(a, b)?;
    let b = EqualitySet::of(b);
    Ok(Value::Bool(a.iter().any(|x| b.contains(x))))
}

fn sizes(args: &[Value]) -> u64 {
    let n = |i: usize| args.get(i).map_or(1, kcel::library::actual_size);
    n(0).saturating_mul(n(1))
}

fn cost_contains(args: &[Value], _: Option<&Value>) -> u64 {
    sat_add(1, floor_factor(sizes(args), 1.0))
}

fn cost_equivalent(args: &[Value], _: Option<&Value>) -> u64 {
    sat_add(1, floor_factor(sizes(args), 2.0))
}

fn estimate_with(e: &EstimateArgs<'_>, factor: f64) -> CallEstimate {
    let product = size_mul(arg_size(e, 0), arg_size(e, 1));
    CallEstimate {
        cost: size_times(product, factor) + CostEstimate::fixed(1),
        result_size: None,
    }
}

fn estimate_contains(e: &EstimateArgs<'_>) -> CallEstimate {
    estimate_with(e, 1.0)
}

fn estimate_equivalent(e: &EstimateArgs<'_>) -> CallEstimate {
    estimate_with(e, 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(v: &[i64]) -> Value {
        Value::list(v.iter().map(|&i| Value::Int(i)).collect::<Vec<_>>())
    }

    #[test]
    fn relations() {
        assert_eq!(contains(&l(&[1, 2]), &l(&[])), Ok(Value::Bool(true)));
        assert_eq!(intersects(&l(&[1, 2]), &l(&[])), Ok(Value::Bool(false)));
        assert_eq!(
            equivalent(&l(&[1, 2, 2]), &l(&[2, 1])),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            contains(&l(&[1]), &Value::Int(1)),
            Err(EvalError::no_such_overload())
        );
    }

    #[test]
    fn costs() {
        assert_eq!(cost_contains(&[l(&[1, 2, 3]), l(&[1, 2])], None), 7);
        assert_eq!(cost_equivalent(&[l(&[1, 2, 3]), l(&[1, 2])], None), 13);
    }
}
