//! `kubernetes.lists`: `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf` and (v1)
//! `includes`.

use std::cmp::Ordering;

use kcel::Type;
use kcel::Value;
use kcel::library::standard::{add_double, add_duration_duration, add_int64, add_uint64};
use kcel::library::{
    AstNode, CallEstimate, CostEstimate, EstimateArgs, STRING_TRAVERSAL_FACTOR, SizeEstimate,
};
use kcel::library::{Implementation, Library, overloads};
use kcel::{EvalError, EvalResult};

/// Element types with an ordering, with the names used in overload ids.
const COMPARABLE: &[&str] = &[
    "int",
    "uint",
    "double",
    "bool",
    "duration",
    "timestamp",
    "string",
    "bytes",
];
/// Element types with `+`.
const SUMMABLE: &[&str] = &["int", "uint", "double", "duration"];

/// Builds the library at `version` (0, or 1 with `includes`).
pub fn library(version: u32) -> Library {
    let mut lib = Library::new("kubernetes.lists", version);
    {
        let mut f = lib.function(
            "isSorted",
            "Whether the list's elements are in non-decreasing order.",
        );
        for t in COMPARABLE {
            f = f
                .member(
                    &format!("list_{t}_is_sorted_bool"),
                    &[&format!("list({t})")],
                    "bool",
                    Implementation::Unary(is_sorted),
                )
                .cost(kcel::library::CallCost::Custom(traversal_cost))
                .estimate(estimate);
        }
        f.examples(&[
            "[1, 2, 3].isSorted()",
            "!['b', 'a'].isSorted()",
            "[].isSorted()",
        ]);
    }
    {
        let mut f = lib.function(
            "sum",
            "The sum of the list's elements; the typed zero for an empty list.",
        );
        for t in SUMMABLE {
            let imp: fn(&Value) -> EvalResult = match *t {
                "int" => sum_int,
                "uint" => sum_uint,
                "double" => sum_double,
                _ => sum_duration,
            };
            f = f
                .member(
                    &format!("list_{t}_sum_{t}"),
                    &[&format!("list({t})")],
                    t,
                    Implementation::Unary(imp),
                )
                .cost(kcel::library::CallCost::Custom(traversal_cost))
                .estimate(estimate);
        }
        f.examples(&[
            "[1, 2, 3].sum() == 6",
            "[0.5, 1.5].sum() == 2.0",
            "[duration('1s'), duration('2s')].sum() == duration('3s')",
        ]);
    }
    for (name, doc, imp, examples) in [
        (
            "min",
            "The smallest element; an error for an empty list.",
            min as fn(&Value) -> EvalResult,
            &["[3, 1, 2].min() == 1", "['b', 'a'].min() == 'a'"][..],
        ),
        (
            "max",
            "The largest element; an error for an empty list.",
            max,
            &["[3, 1, 2].max() == 3", "[false, true].max()"][..],
        ),
    ] {
        let mut f = lib.function(name, doc);
        for t in COMPARABLE {
            f = f
                .member(
                    &format!("list_{t}_{name}_{t}"),
                    &[&format!("list({t})")],
                    t,
                    Implementation::Unary(imp),
                )
                .cost(kcel::library::CallCost::Custom(traversal_cost))
                .estimate(estimate);
        }
        f.examples(examples);
    }
    overloads!(lib.function(
        "indexOf",
        "The index of the first element equal to the argument, or -1.",
    );
        member "list_a_index_of_int" ("list(A)", "A") -> "int"
            => Implementation::Binary(index_of),
            cost: kcel::library::CallCost::Custom(traversal_cost),
            estimate: estimate;
    )
    .examples(&["[1, 2, 2, 3].indexOf(2) == 1", "['a'].indexOf('b') == -1"]);
    overloads!(lib.function(
        "lastIndexOf",
        "The index of the last element equal to the argument, or -1.",
    );
        member "list_a_last_index_of_int" ("list(A)", "A") -> "int"
            => Implementation::Binary(last_index_of),
            cost: kcel::library::CallCost::Custom(traversal_cost),
            estimate: estimate;
    )
    .examples(&[
        "[1, 2, 2, 3].lastIndexOf(2) == 2",
        "[].lastIndexOf(1) == -1",
    ]);
    if version >= 1 {
        overloads!(lib.function(
            "includes",
            "Whether a list has an element equal to the argument; on a non-list, whether the \
             receiver equals the argument.",
        );
            member "list_includes_dyn_dyn" ("dyn", "dyn") -> "bool"
                => Implementation::Binary(includes),
                cost: kcel::library::CallCost::Custom(traversal_cost),
                estimate: estimate;
        )
        .examples(&[
            "[1, 2, 3].includes(2)",
            "!['a'].includes('b')",
            "'a'.includes('a')",
        ]);
    }
    lib
}

fn items(v: &Value) -> Result<&[Value], EvalError> {
    match v {
        Value::List(l) => Ok(l),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn compare(a: &Value, b: &Value) -> Result<Ordering, EvalError> {
    match a.cel_cmp(b) {
        Some(Some(o)) => Ok(o),
        Some(None) => Err(EvalError::new("NaN values cannot be ordered")),
        None => Err(EvalError::no_such_overload()),
    }
}

/// `list.isSorted()`.
pub fn is_sorted(list: &Value) -> EvalResult {
    let l = items(list)?;
    for w in l.windows(2) {
        if compare(&w[0], &w[1])? == Ordering::Greater {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

/// Sums a list from the zero of its elements' type (of `empty` for an empty list). The zero
/// comes from the first element, as cel-go's runtime dispatch picks the overload for a `dyn`
/// list by its first element (`dyn([1.0, 2.0]).sum()` is `3.0`).
fn sum(list: &Value, empty: Value) -> EvalResult {
    let l = items(list)?;
    let Some(first) = l.first() else {
        return Ok(empty);
    };
    let (zero, add): (Value, fn(&Value, &Value) -> EvalResult) = match first {
        Value::Int(_) => (Value::Int(0), add_int64),
        Value::Uint(_) => (Value::Uint(0), add_uint64),
        Value::Double(_) => (Value::Double(0.0), add_double),
        Value::Duration(_) => (
            Value::Duration(chrono::TimeDelta::zero()),
            add_duration_duration,
        ),
        _ => return Err(EvalError::no_such_overload()),
    };
    l.iter().try_fold(zero, |acc, x| add(&acc, x))
}

/// `list(int).sum()`.
pub fn sum_int(list: &Value) -> EvalResult {
    sum(list, Value::Int(0))
}

/// `list(uint).sum()`.
pub fn sum_uint(list: &Value) -> EvalResult {
    sum(list, Value::Uint(0))
}

/// `list(double).sum()`.
pub fn sum_double(list: &Value) -> EvalResult {
    sum(list, Value::Double(0.0))
}

/// `list(duration).sum()`.
pub fn sum_duration(list: &Value) -> EvalResult {
    sum(list, Value::Duration(chrono::TimeDelta::zero()))
}

fn extreme(list: &Value, name: &str, replace_when: Ordering) -> EvalResult {
    let l = items(list)?;
    let Some(first) = l.first() else {
        return Err(EvalError::new(format!("{name} called on empty list")));
    };
    let mut best = first;
    for x in &l[1..] {
        if compare(x, best)? == replace_when {
            best = x;
        }
    }
    Ok(best.clone())
}

/// `list.min()`: ties keep the earliest element.
pub fn min(list: &Value) -> EvalResult {
    extreme(list, "min", Ordering::Less)
}

/// `list.max()`: ties keep the earliest element.
pub fn max(list: &Value) -> EvalResult {
    extreme(list, "max", Ordering::Greater)
}

/// `list.indexOf(x)`.
pub fn index_of(list: &Value, x: &Value) -> EvalResult {
    let l = items(list)?;
    Ok(Value::Int(
        l.iter().position(|e| e.cel_eq(x)).map_or(-1, |i| i as i64),
    ))
}

/// `list.lastIndexOf(x)`.
pub fn last_index_of(list: &Value, x: &Value) -> EvalResult {
    let l = items(list)?;
    Ok(Value::Int(
        l.iter().rposition(|e| e.cel_eq(x)).map_or(-1, |i| i as i64),
    ))
}

/// `x.includes(y)`: list membership, or equality for a non-list receiver.
pub fn includes(x: &Value, y: &Value) -> EvalResult {
    Ok(Value::Bool(match x {
        Value::List(l) => l.iter().any(|e| e.cel_eq(y)),
        other => other.cel_eq(y),
    }))
}

/// Kubernetes' traversal cost of a value: `⌊bytes × 0.1⌋` for strings and bytes, the sum
/// over elements (keys and values) for lists and maps, 1 for anything else.
pub fn traversal(v: &Value) -> u64 {
    match v {
        Value::String(s) => (s.len() as f64 * STRING_TRAVERSAL_FACTOR) as u64,
        Value::Bytes(b) => (b.len() as f64 * STRING_TRAVERSAL_FACTOR) as u64,
        Value::List(l) => l.iter().map(traversal).fold(0, u64::saturating_add),
        Value::Map(m) => m
            .iter()
            .map(|(k, v)| traversal(&k.to_value()).saturating_add(traversal(v)))
            .fold(0, u64::saturating_add),
        // A map read lazily (a Kubernetes object): as the map it stands for.
        Value::Opaque(o) => match o.to_value() {
            Some(Ok(whole)) => traversal(&whole),
            _ => 1,
        },
        _ => 1,
    }
}

fn traversal_cost(args: &[Value], _: Option<&Value>) -> u64 {
    args.first().map_or(0, traversal)
}

/// `E(list) × elemCost`, elemCost 1 plus `⌈E(elem) × 0.1⌉` for string and bytes elements
/// (element sizes come from the environment's estimator, as upstream); `E × 1` for a
/// receiver that is not a list.
fn estimate(a: &EstimateArgs<'_>) -> CallEstimate {
    let Some(target) = a.target else {
        return CallEstimate {
            cost: CostEstimate::fixed(1),
            result_size: None,
        };
    };
    let size = a.size(target);
    let cost = match target.ty {
        Type::List(elem) => {
            let mut el = CostEstimate::fixed(1);
            if matches!(**elem, Type::String | Type::Bytes) {
                let mut path = target.path.to_vec();
                if !path.is_empty() {
                    path.push("@items".into());
                }
                let node = AstNode {
                    path: &path,
                    ty: elem,
                    expr: target.expr,
                    computed_size: None,
                };
                let es = a
                    .sizes
                    .estimate_size(&node)
                    .unwrap_or(SizeEstimate::UNKNOWN);
                el = el + es.times_factor(STRING_TRAVERSAL_FACTOR);
            }
            size.times_cost(el)
        }
        // `includes` on a non-list receiver: one comparison per element of a dyn list.
        _ => size.times_cost(CostEstimate::fixed(1)),
    };
    CallEstimate {
        cost,
        result_size: None,
    }
}
