//! cel-go's `ext.Lists`: `slice` (version 0), `flatten` (version 1), `sort`, `lists.range`,
//! `reverse` and `distinct` (version 2), and their cost functions (version 3).
//!
//! `list.sortBy(v, key)` is a macro (version 2): it binds the list once, maps it to its keys
//! and calls `@sortByAssociatedKeys(keys)` on it, as cel-go does.

use std::cmp::Ordering;

use kcel::Value;
use kcel::library::EqualitySet;
use kcel::library::budget;
use kcel::library::syntax::{ACCUMULATOR, Comprehension, Expr, ExprKind, Literal, op};
use kcel::library::syntax::{Expander, Macro, MacroError, MacroErrorKind, Style};
use kcel::library::{
    CallCost, CallEstimate, CostEstimate, EstimateArgs, LIST_CREATE, SizeEstimate,
};
use kcel::library::{Implementation, Library};
use kcel::{EvalError, EvalResult};

use super::{floor_factor, literal_uint, sat_add, size_mul, size_times, target_size};

/// The largest `n` accepted by `lists.range(n)`; larger requests fail instead of exhausting
/// memory (cel-go has no limit).
pub const MAX_RANGE: i64 = 1 << 26;

/// The element types `sort` accepts, as cel-go names them in overload ids.
const COMPARABLE: [(&str, &str); 8] = [
    ("int", "int"),
    ("uint", "uint"),
    ("double", "double"),
    ("bool", "bool"),
    ("google.protobuf.Duration", "duration"),
    ("google.protobuf.Timestamp", "timestamp"),
    ("string", "string"),
    ("bytes", "bytes"),
];

/// Builds the library at `version`.
pub fn library(version: u32) -> Library {
    let costs = version >= 3;
    let mut lib = Library::new("cel.lib.ext.lists", version);
    let mut f = lib
        .function(
            "slice",
            "The elements from a start index (inclusive) to an end index (exclusive).",
        )
        .member(
            "list_slice",
            &["list(T)", "int", "int"],
            "list(T)",
            Implementation::Nary(slice),
        );
    if costs {
        f = f
            .cost(CallCost::Custom(cost_output_size))
            .estimate(estimate_slice);
    }
    f.examples(&[
        "[1, 2, 3, 4].slice(1, 3) == [2, 3]",
        "[1, 2, 3, 4].slice(2, 4) == [3, 4]",
    ]);

    if version >= 1 {
        let mut f = lib
            .function(
                "flatten",
                "Flattens nested lists by one level, or by the given number of levels.",
            )
            .member(
                "list_flatten",
                &["list(list(T))"],
                "list(T)",
                Implementation::Nary(flatten),
            );
        if costs {
            f = f
                .cost(CallCost::Custom(cost_flatten))
                .estimate(estimate_flatten);
        }
        f = f.member(
            "list_flatten_int",
            &["list(dyn)", "int"],
            "list(dyn)",
            Implementation::Nary(flatten),
        );
        if costs {
            f = f
                .cost(CallCost::Custom(cost_flatten))
                .estimate(estimate_flatten);
        }
        f.examples(&[
            "[1, [2, 3], [4]].flatten() == [1, 2, 3, 4]",
            "[1, [2, [3, 4]]].flatten() == [1, 2, [3, 4]]",
            "[1, 2, [], [], [3, 4]].flatten() == [1, 2, 3, 4]",
            "[1, [2, [3, [4]]]].flatten(2) == [1, 2, 3, [4]]",
        ]);
    }

    if version >= 2 {
        let mut f = lib.function(
            "sort",
            "Sorts a list of comparable elements (all of one type) in ascending order.",
        );
        for (name, decl) in COMPARABLE {
            let ty = format!("list({decl})");
            f = f.member(
                &format!("list_{name}_sort"),
                &[&ty],
                &ty,
                Implementation::Unary(sort),
            );
            if costs {
                f = f.cost(CallCost::Custom(cost_self_compare)).estimate(
                    if decl == "string" || decl == "bytes" {
                        estimate_sort_text
                    } else {
                        estimate_sort
                    },
                );
            }
        }
        f.examples(&[
            "[3, 2, 1].sort() == [1, 2, 3]",
            "['b', 'c', 'a'].sort() == ['a', 'b', 'c']",
        ]);

        lib.add_macros(SORT_BY);
        let mut f = lib.function(
            SORT_BY_KEYS,
            "Internal to the sortBy macro: sorts a list by a list of keys of the same length.",
        );
        for (name, decl) in COMPARABLE {
            f = f.member(
                &format!("list_{name}_sortByAssociatedKeys"),
                &["list(T)", &format!("list({decl})")],
                "list(T)",
                Implementation::Binary(sort_by_keys),
            );
            if costs {
                f = f.cost(CallCost::Custom(cost_sort_by)).estimate(
                    if decl == "string" || decl == "bytes" {
                        estimate_sort_by_text
                    } else {
                        estimate_sort_by
                    },
                );
            }
        }
        f.examples(&[
            "[-3, 1, -5, -2, 4].sortBy(e, -(e * e)) == [-5, 4, -3, -2, 1]",
            "['a', 'c', 'b', 'first'].sortBy(e, e == 'first' ? '' : e) == ['first', 'a', 'b', 'c']",
            "[{'n': 2}, {'n': 1}].sortBy(m, m.n) == [{'n': 1}, {'n': 2}]",
        ]);

        let mut f = lib
            .function(
                "lists.range",
                "The list of ints from 0 up to n (exclusive).",
            )
            .global(
                "lists_range",
                &["int"],
                "list(int)",
                Implementation::Unary(range),
            );
        if costs {
            f = f
                .cost(CallCost::Custom(cost_output_size))
                .estimate(estimate_range);
        }
        f.examples(&["lists.range(4) == [0, 1, 2, 3]", "lists.range(0) == []"]);

        let mut f = lib
            .function("reverse", "The elements of a list in reverse order.")
            .member(
                "list_reverse",
                &["list(T)"],
                "list(T)",
                Implementation::Unary(reverse),
            );
        if costs {
            f = f
                .cost(CallCost::Custom(cost_output_size))
                .estimate(estimate_reverse);
        }
        f.examples(&[
            "[5, 3, 1, 2].reverse() == [2, 1, 3, 5]",
            "[].reverse() == []",
        ]);

        let mut f = lib
            .function(
                "distinct",
                "The list without repeated elements (the first occurrence is kept; CEL equality).",
            )
            .member(
                "list_distinct",
                &["list(T)"],
                "list(T)",
                Implementation::Unary(distinct),
            );
        if costs {
            f = f
                .cost(CallCost::Custom(cost_self_compare))
                .estimate(estimate_distinct);
        }
        f.examples(&[
            "[1, 2, 2, 3, 3, 3].distinct() == [1, 2, 3]",
            "['b', 'b', 'c', 'a', 'c'].distinct() == ['b', 'c', 'a']",
            "[1, 1.0, 2].distinct() == [1, 2]",
        ]);
    }
    lib
}

fn nso() -> EvalError {
    EvalError::no_such_overload()
}

fn list_of(v: Option<&Value>) -> Result<&[Value], EvalError> {
    match v {
        Some(Value::List(l)) => Ok(l),
        _ => Err(nso()),
    }
}

/// `list.slice(start, end)`.
pub fn slice(args: &[Value]) -> EvalResult {
    let list = list_of(args.first())?;
    let (Some(Value::Int(start)), Some(Value::Int(end)), 3) =
        (args.get(1), args.get(2), args.len())
    else {
        return Err(nso());
    };
    let (start, end) = (*start, *end);
    if start < 0 || end < 0 {
        return Err(EvalError::new(format!(
            "cannot slice({start}, {end}), negative indexes not supported"
        )));
    }
    if start > end {
        return Err(EvalError::new(format!(
            "cannot slice({start}, {end}), start index must be less than or equal to end index"
        )));
    }
    let len = list.len();
    match (usize::try_from(start), usize::try_from(end)) {
        (Ok(s), Ok(e)) if e <= len => {
            budget::reserve_values(e - s)?;
            Ok(Value::list(list[s..e].to_vec()))
        }
        _ => Err(EvalError::new(format!(
            "cannot slice({start}, {end}), list is length {len}"
        ))),
    }
}

/// `list.flatten()` / `list.flatten(depth)`.
pub fn flatten(args: &[Value]) -> EvalResult {
    let list = list_of(args.first())?;
    let depth = match (args.len(), args.get(1)) {
        (1, _) => 1,
        (2, Some(Value::Int(d))) => *d,
        _ => return Err(nso()),
    };
    if depth < 0 {
        return Err(EvalError::new("level must be non-negative"));
    }
    budget::reserve_values(list.len())?;
    let mut out = Vec::with_capacity(list.len());
    flatten_into(list, depth, &mut out)?;
    Ok(Value::list(out))
}

/// Appends the elements of `list`, flattened `depth` levels deep. The lists entered count
/// against the evaluation's visit budget, and the output's growth against its memory
/// budget (a list that holds one list many times flattens to many copies).
fn flatten_into(list: &[Value], depth: i64, out: &mut Vec<Value>) -> Result<(), EvalError> {
    if !budget::visit(list.len()) {
        return Err(budget::traversal_error());
    }
    for v in list {
        match v {
            Value::List(inner) if depth > 0 => flatten_into(inner, depth - 1, out)?,
            other => {
                if out.len() == out.capacity() {
                    budget::reserve_values(out.len().max(4))?;
                }
                out.push(other.clone())
            }
        }
    }
    Ok(())
}

fn comparable(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::Bool(_)
            | Value::String(_)
            | Value::Bytes(_)
            | Value::Timestamp(_)
            | Value::Duration(_)
    )
}

/// A total order within one comparable type (doubles by `total_cmp`, so sorting never
/// meets an inconsistent comparison).
fn order(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y).unwrap_or_else(|| x.total_cmp(y)),
        _ => a.cel_cmp(b).flatten().unwrap_or(Ordering::Equal),
    }
}

/// `list.sort()`.
pub fn sort(v: &Value) -> EvalResult {
    sort_by_keys(v, v)
}

/// `list.@sortByAssociatedKeys(keys)`: the list ordered as its keys sort (keys must be
/// comparable and all of one type).
pub fn sort_by_keys(v: &Value, keys: &Value) -> EvalResult {
    let (Value::List(list), Value::List(keys)) = (v, keys) else {
        return Err(nso());
    };
    if list.len() != keys.len() {
        return Err(EvalError::new(format!(
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got {} and {} elements respectively",
            list.len(),
            keys.len()
        )));
    }
    let Some(first) = keys.first() else {
        return Ok(v.clone());
    };
    if !comparable(first) {
        return Err(EvalError::new("list elements must be comparable"));
    }
    let kind = std::mem::discriminant(first);
    if keys.len() > 1 && keys.iter().any(|x| std::mem::discriminant(x) != kind) {
        return Err(EvalError::new("list elements must have the same type"));
    }
    budget::reserve_values(2 * keys.len())?;
    let mut order_of: Vec<usize> = (0..keys.len()).collect();
    order_of.sort_by(|&a, &b| order(&keys[a], &keys[b]));
    Ok(Value::list(
        order_of
            .into_iter()
            .map(|i| list[i].clone())
            .collect::<Vec<_>>(),
    ))
}

/// The function the `sortBy` macro calls.
pub const SORT_BY_KEYS: &str = "@sortByAssociatedKeys";

/// The variable the `sortBy` macro binds the list to.
const SORT_BY_INPUT: &str = "@__sortBy_input__";

/// The `sortBy(var, key)` macro.
pub const SORT_BY: &[Macro] = &[Macro {
    name: "sortBy",
    style: Style::Receiver,
    args: 2,
    receiver: None,
    expand: expand_sort_by,
}];

/// cel-go's error for `sortBy` on a receiver that cannot be a list.
#[derive(Debug, thiserror::Error)]
#[error(
    "sortBy can only be applied to a list, identifier, comprehension, call or select expression"
)]
struct SortByTargetError;

/// `target.sortBy(v, key)` becomes (with `@in` the input list, bound once):
/// `@in.@sortByAssociatedKeys(@in.map(v, key))`.
fn expand_sort_by(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let Some(target) = target else {
        return Err(MacroError {
            kind: MacroErrorKind::MissingReceiver,
            span: ex.span(),
        });
    };
    if !matches!(
        target.kind,
        ExprKind::List { .. }
            | ExprKind::Select { .. }
            | ExprKind::Ident(_)
            | ExprKind::Comprehension(_)
            | ExprKind::Call { .. }
    ) {
        return Err(MacroError {
            kind: MacroErrorKind::library(SortByTargetError),
            span: target.span,
        });
    }
    let Ok([var, key]) = <[Expr; 2]>::try_from(args) else {
        return Err(MacroError {
            kind: MacroErrorKind::ArgumentCount,
            span: ex.span(),
        });
    };
    let ExprKind::Ident(var_name) = &var.kind else {
        return Err(MacroError {
            kind: MacroErrorKind::NotAnIdentifier,
            span: var.span,
        });
    };
    if kcel::library::syntax::is_accumulator_name(var_name) {
        return Err(MacroError {
            kind: MacroErrorKind::OverwritesAccumulator,
            span: var.span,
        });
    }
    // @in.map(v, key)
    let range = ex.ident(SORT_BY_INPUT);
    let init = ex.list(Vec::new());
    let cond = ex.literal(Literal::Bool(true));
    let accu = ex.ident(ACCUMULATOR);
    let single = ex.list(vec![key]);
    let step = ex.call(op::ADD, vec![accu, single]);
    let result = ex.ident(ACCUMULATOR);
    let keys = ex.fold(var_name.clone(), range, init, cond, step, result);
    // @in.@sortByAssociatedKeys(keys)
    let input = ex.ident(SORT_BY_INPUT);
    let call = ex.node(ExprKind::Call {
        target: Some(Box::new(input)),
        function: SORT_BY_KEYS.into(),
        args: vec![keys],
    });
    // Bind @in to the target: a comprehension whose loop never runs.
    let empty = ex.list(Vec::new());
    let never = ex.literal(Literal::Bool(false));
    let same = ex.ident(SORT_BY_INPUT);
    Ok(ex.node(ExprKind::Comprehension(Box::new(Comprehension {
        iter_var: "#unused".into(),
        iter_var2: None,
        iter_range: empty,
        accu_var: SORT_BY_INPUT.into(),
        accu_init: target,
        loop_condition: never,
        loop_step: same,
        result: call,
    }))))
}

/// `lists.range(n)`: `[0, 1, ..., n-1]`; empty for `n <= 0`.
pub fn range(v: &Value) -> EvalResult {
    let Value::Int(n) = v else {
        return Err(nso());
    };
    if *n > MAX_RANGE {
        return Err(EvalError::new(format!(
            "lists.range({n}) exceeds the maximum list size {MAX_RANGE}"
        )));
    }
    budget::reserve_values(usize::try_from(*n).unwrap_or(0))?;
    Ok(Value::list(
        (0..(*n).max(0)).map(Value::Int).collect::<Vec<_>>(),
    ))
}

/// `list.reverse()`.
pub fn reverse(v: &Value) -> EvalResult {
    let Value::List(list) = v else {
        return Err(nso());
    };
    budget::reserve_values(list.len())?;
    Ok(Value::list(list.iter().rev().cloned().collect::<Vec<_>>()))
}

/// `list.distinct()`: keeps the first of equal elements (CEL equality).
pub fn distinct(v: &Value) -> EvalResult {
    let Value::List(list) = v else {
        return Err(nso());
    };
    budget::reserve_values(list.len())?;
    // cel-go compares each element with those kept (and charges that quadratic work once
    // the call returns); the kept ones are grouped by hash instead, so that only equal
    // candidates are compared (counted against the visit budget).
    let mut kept = EqualitySet::with_capacity(list.len());
    let mut out: Vec<Value> = Vec::with_capacity(list.len());
    for x in list.iter() {
        if !kept.contains(x) {
            budget::check().map_err(|_| budget::traversal_error())?;
            kept.insert(x);
            out.push(x.clone());
        }
    }
    budget::check().map_err(|_| budget::traversal_error())?;
    Ok(Value::list(out))
}

// Costs (version 3), as cel-go's `ext/lists.go` computes them.

fn allocating(size: u64, factor: f64) -> u64 {
    sat_add(sat_add(floor_factor(size, factor), 1), LIST_CREATE)
}

fn cost_output_size(_: &[Value], result: Option<&Value>) -> u64 {
    allocating(result.map_or(0, kcel::library::actual_size), 1.0)
}

fn cost_flatten(args: &[Value], _: Option<&Value>) -> u64 {
    let depth = match args.get(1) {
        Some(Value::Int(d)) => *d as f64,
        _ => 1.0,
    };
    let size = args.first().map_or(0, kcel::library::actual_size);
    allocating(size, depth)
}

fn cost_self_compare(args: &[Value], _: Option<&Value>) -> u64 {
    let Some(Value::List(list)) = args.first() else {
        return allocating(0, 2.0);
    };
    let factor = match list.first() {
        Some(Value::String(_) | Value::Bytes(_)) => 2.1,
        _ => 2.0,
    };
    let n = list.len() as u64;
    allocating(n.saturating_mul(n), factor)
}

fn cost_sort_by(args: &[Value], result: Option<&Value>) -> u64 {
    cost_self_compare(args.get(1..).unwrap_or(&[]), result)
}

fn estimate_list_call(factor: f64, size: SizeEstimate) -> CallEstimate {
    CallEstimate {
        cost: size_times(size, factor) + CostEstimate::fixed(1 + LIST_CREATE),
        result_size: Some(size),
    }
}

fn estimate_slice(e: &EstimateArgs<'_>) -> CallEstimate {
    let sz = target_size(e);
    let start = literal_uint(e, 0, 0);
    let end = literal_uint(e, 1, sz.max);
    estimate_list_call(1.0, SizeEstimate::fixed(end.saturating_sub(start)))
}

fn estimate_range(e: &EstimateArgs<'_>) -> CallEstimate {
    estimate_list_call(1.0, SizeEstimate::fixed(literal_uint(e, 0, u64::MAX)))
}

fn estimate_reverse(e: &EstimateArgs<'_>) -> CallEstimate {
    estimate_list_call(1.0, target_size(e))
}

fn estimate_flatten(e: &EstimateArgs<'_>) -> CallEstimate {
    let depth = if e.args.len() == 1 {
        literal_uint(e, 0, u64::MAX)
    } else {
        1
    };
    estimate_list_call(depth as f64, target_size(e))
}

fn estimate_distinct(e: &EstimateArgs<'_>) -> CallEstimate {
    let sz = target_size(e);
    estimate_list_call(2.0, size_mul(sz, sz))
}

fn estimate_sort(e: &EstimateArgs<'_>) -> CallEstimate {
    let sz = target_size(e);
    estimate_list_call(2.0, size_mul(sz, sz))
}

fn estimate_sort_text(e: &EstimateArgs<'_>) -> CallEstimate {
    let sz = target_size(e);
    estimate_list_call(2.1, size_mul(sz, sz))
}

fn estimate_sort_by(e: &EstimateArgs<'_>) -> CallEstimate {
    let sz = super::arg_size(e, 0);
    estimate_list_call(2.0, size_mul(sz, sz))
}

fn estimate_sort_by_text(e: &EstimateArgs<'_>) -> CallEstimate {
    let sz = super::arg_size(e, 0);
    estimate_list_call(2.1, size_mul(sz, sz))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Value {
        Value::list(v.iter().map(|&i| Value::Int(i)).collect::<Vec<_>>())
    }

    fn err(m: &str) -> EvalResult {
        Err(EvalError::new(m))
    }

    #[test]
    fn slicing() {
        let l = ints(&[1, 2, 3, 4]);
        let s = |a: i64, b: i64| slice(&[l.clone(), Value::Int(a), Value::Int(b)]);
        assert_eq!(s(1, 3), Ok(ints(&[2, 3])));
        assert_eq!(s(4, 4), Ok(ints(&[])));
        assert_eq!(
            s(-1, 3),
            err("cannot slice(-1, 3), negative indexes not supported")
        );
        assert_eq!(
            s(3, 1),
            err("cannot slice(3, 1), start index must be less than or equal to end index")
        );
        assert_eq!(s(1, 5), err("cannot slice(1, 5), list is length 4"));
    }

    #[test]
    fn flattening() {
        let nested = Value::list(vec![
            Value::Int(1),
            Value::list(vec![Value::Int(2), ints(&[3])]),
        ]);
        assert_eq!(
            flatten(std::slice::from_ref(&nested)),
            Ok(Value::list(vec![Value::Int(1), Value::Int(2), ints(&[3])]))
        );
        assert_eq!(
            flatten(&[nested.clone(), Value::Int(5)]),
            Ok(ints(&[1, 2, 3]))
        );
        assert_eq!(
            flatten(&[nested, Value::Int(-1)]),
            err("level must be non-negative")
        );
        assert_eq!(flatten(&[Value::Int(1)]), Err(nso()));
    }

    #[test]
    fn sorting_and_friends() {
        assert_eq!(sort(&ints(&[3, 1, 2])), Ok(ints(&[1, 2, 3])));
        assert_eq!(
            sort(&Value::list(vec![Value::Int(1), Value::Uint(2)])),
            err("list elements must have the same type")
        );
        assert_eq!(
            sort(&Value::list(vec![ints(&[1])])),
            err("list elements must be comparable")
        );
        let nan = Value::list(vec![
            Value::Double(f64::NAN),
            Value::Double(1.0),
            Value::Double(0.5),
        ]);
        assert!(sort(&nan).is_ok());
        assert_eq!(range(&Value::Int(3)), Ok(ints(&[0, 1, 2])));
        assert_eq!(range(&Value::Int(-3)), Ok(ints(&[])));
        assert!(range(&Value::Int(i64::MAX)).is_err());
        assert_eq!(reverse(&ints(&[1, 2])), Ok(ints(&[2, 1])));
        assert_eq!(
            distinct(&Value::list(vec![
                Value::Int(1),
                Value::Double(1.0),
                Value::Int(2)
            ])),
            Ok(ints(&[1, 2]))
        );
    }

    #[test]
    fn sorting_by_keys() {
        let l = Value::list(vec![Value::from("a"), Value::from("b"), Value::from("c")]);
        assert_eq!(
            sort_by_keys(&l, &ints(&[3, 1, 2])),
            Ok(Value::list(vec![
                Value::from("b"),
                Value::from("c"),
                Value::from("a")
            ]))
        );
        assert_eq!(
            sort_by_keys(&l, &ints(&[1])),
            err(
                "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got 3 and 1 elements respectively"
            )
        );
        let mut env = kcel::Env::new();
        env.add_library(&library(2));
        let e = env
            .compile("1.sortBy(e, e)")
            .expect_err("not a list expression");
        assert_eq!(
            e.diagnostics[0].message(),
            "sortBy can only be applied to a list, identifier, comprehension, call or select expression"
        );
        assert!(library(1).macros().is_empty());
    }

    #[test]
    fn costs() {
        assert_eq!(cost_output_size(&[], Some(&ints(&[1, 2]))), 13);
        assert_eq!(cost_flatten(&[ints(&[1, 2, 3]), Value::Int(2)], None), 17);
        assert_eq!(cost_self_compare(&[ints(&[3, 2, 1])], None), 29);
        assert_eq!(
            cost_self_compare(
                &[Value::list(vec![Value::from("a"), Value::from("b")])],
                None
            ),
            19
        );
    }
}
