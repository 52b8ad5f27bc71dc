//! Kubernetes' cost functions for functions it does not define: the `ext.Strings` functions
//! (`lowerAscii`, `replace`, `split`, `join`, `indexOf`, ...), priced by function name as
//! `library/cost.go` does. One table (`PRICED_BY_NAME`) gives each such function its
//! runtime cost and its static estimate: [`apply_runtime_costs`] sets the runtime side on a
//! library's overloads, and [`super::estimate_call`] reads the static side from the same
//! rows.

use kcel::Type;
use kcel::Value;
use kcel::library::Library;
use kcel::library::syntax::{ExprKind, Literal};
use kcel::library::{
    AstNode, CallCost, CallEstimate, EstimateArgs, STRING_TRAVERSAL_FACTOR, SizeEstimate,
    SizeEstimator,
};

/// A runtime cost: of the arguments (the receiver first) and the result.
type RuntimeCost = fn(&[Value], Option<&Value>) -> u64;

/// A static estimate; `None` where Kubernetes does not price the call by name (e.g. a
/// receiver of another type), so the overload's own estimate applies.
type Estimate = fn(&EstimateArgs<'_>) -> Option<CallEstimate>;

/// One function Kubernetes prices by name: its runtime cost and its static estimate.
struct PricedByName {
    /// The function's name (every overload of it is priced).
    name: &'static str,
    /// The runtime cost.
    runtime: RuntimeCost,
    /// The static estimate.
    estimate: Estimate,
}

/// Every function Kubernetes prices by name (`library/cost.go`, `CallCost` and
/// `EstimateCallCost`), one row each: changing a function's price is an edit of its row.
const PRICED_BY_NAME: [PricedByName; 9] = [
    priced("lowerAscii", traverse_receiver, estimate_traversal),
    priced("upperAscii", traverse_receiver, estimate_traversal),
    priced("substring", traverse_receiver, estimate_traversal),
    priced("trim", traverse_receiver, estimate_traversal),
    priced("replace", traverse_receiver_twice, estimate_replace),
    priced("split", traverse_receiver_twice, estimate_split),
    priced("join", traverse_result_twice, estimate_join),
    priced("indexOf", traverse_first, estimate_string_search),
    priced("lastIndexOf", traverse_first, estimate_string_search),
];

/// A row of [`PRICED_BY_NAME`].
const fn priced(name: &'static str, runtime: RuntimeCost, estimate: Estimate) -> PricedByName {
    PricedByName {
        name,
        runtime,
        estimate,
    }
}

/// The row of a function Kubernetes prices by name.
fn priced_by_name(function: &str) -> Option<&'static PricedByName> {
    PRICED_BY_NAME.iter().find(|p| p.name == function)
}

/// Kubernetes' runtime cost for a function it prices by name, if it does.
pub(crate) fn runtime_cost(function: &str) -> Option<CallCost> {
    priced_by_name(function).map(|p| CallCost::Custom(p.runtime))
}

/// Gives the overloads of a library's functions that Kubernetes prices by name (e.g.
/// cel-go's `ext.Strings`) Kubernetes' runtime costs.
pub fn apply_runtime_costs(lib: &mut Library) {
    for f in lib.functions_mut() {
        if let Some(cost) = runtime_cost(f.name()) {
            f.set_runtime_cost(cost);
        }
    }
}

/// Kubernetes' static estimate for a function it prices by name, if it does.
pub(crate) fn estimate_by_name(
    function: &str,
    target: Option<&AstNode<'_>>,
    args: &[AstNode<'_>],
    sizes: &dyn SizeEstimator,
) -> Option<CallEstimate> {
    let priced = priced_by_name(function)?;
    (priced.estimate)(&EstimateArgs {
        target,
        args,
        sizes,
    })
}

fn size(v: Option<&Value>) -> f64 {
    v.map_or(0.0, |v| kcel::library::actual_size(v) as f64)
}

fn traverse_receiver(args: &[Value], _: Option<&Value>) -> u64 {
    (size(args.first()) * STRING_TRAVERSAL_FACTOR).ceil() as u64
}

// Upstream's order of operations: × 2, then × 0.1.
fn traverse_receiver_twice(args: &[Value], _: Option<&Value>) -> u64 {
    (size(args.first()) * 2.0 * STRING_TRAVERSAL_FACTOR).ceil() as u64
}

fn traverse_result_twice(_: &[Value], result: Option<&Value>) -> u64 {
    (size(result) * 2.0 * STRING_TRAVERSAL_FACTOR).ceil() as u64
}

/// A search's traversal of its receiver (a string's, or each element's of a list).
fn traverse_first(args: &[Value], _: Option<&Value>) -> u64 {
    args.first().map_or(0, super::list_queries::traversal)
}

/// The receiver's size (`None` for a global call).
fn receiver_size(a: &EstimateArgs<'_>) -> Option<SizeEstimate> {
    a.target.map(|t| a.size(t))
}

/// One traversal of the receiver; the result as large as the receiver.
fn estimate_traversal(a: &EstimateArgs<'_>) -> Option<CallEstimate> {
    let sz = receiver_size(a)?;
    Some(CallEstimate {
        cost: sz.times_factor(STRING_TRAVERSAL_FACTOR),
        result_size: Some(sz),
    })
}

/// One traversal of a string receiver (a list's search is priced by its overload).
fn estimate_string_search(a: &EstimateArgs<'_>) -> Option<CallEstimate> {
    let sz = receiver_size(a)?;
    matches!(a.target?.ty, Type::String).then(|| CallEstimate {
        cost: sz.times_factor(STRING_TRAVERSAL_FACTOR),
        result_size: None,
    })
}

/// Two traversals of the receiver; the result as [`replace_size`] bounds it.
fn estimate_replace(a: &EstimateArgs<'_>) -> Option<CallEstimate> {
    let sz = receiver_size(a)?;
    let [old, new, ..] = a.args else {
        return None;
    };
    Some(CallEstimate {
        cost: sz.times_factor(2.0 * STRING_TRAVERSAL_FACTOR),
        result_size: Some(replace_size(sz, a.size(old), a.size(new))),
    })
}

/// Two traversals of the receiver; at most a constant limit's pieces, else the receiver's
/// size.
fn estimate_split(a: &EstimateArgs<'_>) -> Option<CallEstimate> {
    let sz = receiver_size(a)?;
    let max = match a.args.get(1).map(|n| &n.expr.kind) {
        Some(ExprKind::Literal(Literal::Int(n))) => *n as u64,
        Some(ExprKind::Literal(Literal::Uint(n))) => *n,
        _ => sz.max,
    };
    Some(CallEstimate {
        cost: sz.times_factor(2.0 * STRING_TRAVERSAL_FACTOR),
        result_size: Some(SizeEstimate { min: 0, max }),
    })
}

/// One traversal of the result: the elements' sizes and the separators between them.
fn estimate_join(a: &EstimateArgs<'_>) -> Option<CallEstimate> {
    let list = receiver_size(a)?;
    let t = a.target?;
    let mut sz = match t.ty {
        Type::List(elem) => {
            let mut path = t.path.to_vec();
            if !path.is_empty() {
                path.push("@items".into());
            }
            let node = AstNode {
                path: &path,
                ty: elem,
                expr: t.expr,
                computed_size: None,
            };
            let elem = (a.sizes.estimate_size(&node)).unwrap_or(SizeEstimate::UNKNOWN);
            SizeEstimate {
                min: list.min.saturating_mul(elem.min),
                max: list.max.saturating_mul(elem.max),
            }
        }
        _ => SizeEstimate { min: 0, max: 0 },
    };
    if let Some(sep) = a.args.first() {
        let sep = a.size(sep);
        sz = sz
            + SizeEstimate {
                min: sep.min.saturating_mul(list.min.saturating_sub(1)),
                max: sep.max.saturating_mul(list.max.saturating_sub(1)),
            };
    }
    Some(CallEstimate {
        cost: sz.times_factor(STRING_TRAVERSAL_FACTOR),
        result_size: Some(sz),
    })
}

/// The result size of `s.replace(old, new)` (upstream `EstimateCallCost`, "replace").
pub(crate) fn replace_size(sz: SizeEstimate, old: SizeEstimate, new: SizeEstimate) -> SizeEstimate {
    let bump = |x: u64| if x < u64::MAX { x + 1 } else { x };
    let (count_max, retained_max) = if old.min == 0 {
        (bump(sz.max), sz.max)
    } else if new.max <= old.min {
        (0, sz.max)
    } else {
        ((sz.max as f64 / old.min as f64).ceil() as u64, 0)
    };
    let (count_min, retained_min) = if old.max == 0 {
        (bump(sz.min), sz.min)
    } else if old.max <= new.min {
        (0, sz.min)
    } else {
        ((sz.min as f64 / old.max as f64).ceil() as u64, 0)
    };
    SizeEstimate {
        min: count_min
            .saturating_mul(new.min)
            .saturating_add(retained_min),
        max: count_max
            .saturating_mul(new.max)
            .saturating_add(retained_max),
    }
}

/// Builds `kubernetes.jsonpatch` (not part of the base environment; MutatingAdmissionPolicy
/// adds it).
pub(crate) fn jsonpatch_library() -> Library {
    let mut lib = Library::new("kubernetes.jsonpatch", 0);
    lib.function(
        "jsonpatch.escapeKey",
        "Escapes a JSON Patch path segment: '~' → '~0', '/' → '~1'.",
    )
    .global(
        "string_jsonpatch_escapeKey_string",
        &["string"],
        "string",
        kcel::library::Implementation::Unary(escape_key),
    )
    .cost(CallCost::Custom(traverse_receiver))
    .estimate(|a| {
        let sz = a.args.first().map_or(SizeEstimate::UNKNOWN, |n| a.size(n));
        CallEstimate {
            cost: sz.times_factor(STRING_TRAVERSAL_FACTOR),
            result_size: Some(sz),
        }
    })
    .examples(&["jsonpatch.escapeKey('k8s.io/my~label') == 'k8s.io~1my~0label'"]);
    lib
}

fn escape_key(v: &Value) -> kcel::EvalResult {
    let s = super::string_arg(v)?;
    Ok(Value::from(s.replace('~', "~0").replace('/', "~1")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row naming no `ext.Strings` function would price nothing: the table's names are
    /// checked against the library they price.
    #[test]
    fn every_function_priced_by_name_is_an_ext_strings_function() {
        let strings = crate::ext::strings(2);
        for priced in &PRICED_BY_NAME {
            assert!(
                strings.functions().iter().any(|f| f.name() == priced.name),
                "{} is not in ext.Strings",
                priced.name
            );
        }
    }

    // Expected sizes from upstream cost_test.go TestSize.
    #[test]
    fn replace_result_sizes() {
        let x = SizeEstimate::fixed;
        let r = |min, max| SizeEstimate { min, max };
        assert_eq!(replace_size(x(3), x(0), x(1)), x(7));
        assert_eq!(replace_size(x(3), x(1), x(0)), r(0, 3));
        assert_eq!(replace_size(x(4), x(2), x(4)), r(4, 8));
        assert_eq!(replace_size(x(4), r(0, 1), r(0, 2)), r(0, 14));
        assert_eq!(replace_size(x(4), r(1, 1), r(1, 2)), r(4, 8));
        assert_eq!(replace_size(x(4), r(1, 2), r(1, 1)), r(2, 4));
    }
}
