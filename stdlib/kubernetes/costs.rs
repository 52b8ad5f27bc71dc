//! Kubernetes' cost functions for functions it does not define: the `ext.Strings` functions
//! (`lowerAscii`, `replace`, `split`, `join`, `indexOf`, ...), priced by function name as
//! `library/cost.go` does. [`apply_runtime_costs`] sets the runtime side on a library's
//! overloads; the static side is [`super::estimate_call`]'s, by the same names.

use kcel::Type;
use kcel::Value;
use kcel::library::Library;
use kcel::library::syntax::{ExprKind, Literal};
use kcel::library::{
    AstNode, CallCost, CallEstimate, EstimateArgs, STRING_TRAVERSAL_FACTOR, SizeEstimate,
    SizeEstimator,
};

/// Kubernetes' runtime cost for a function it prices by name, if it does.
pub(crate) fn runtime_cost(function: &str) -> Option<CallCost> {
    Some(CallCost::Custom(match function {
        "lowerAscii" | "upperAscii" | "substring" | "trim" => traverse_receiver,
        "replace" | "split" => traverse_receiver_twice,
        "join" => traverse_result_twice,
        "indexOf" | "lastIndexOf" => {
            |args, _| args.first().map_or(0, super::list_queries::traversal)
        }
        _ => return None,
    }))
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

/// Kubernetes' static estimate for a function it prices by name, if it does.
pub(crate) fn estimate_by_name(
    function: &str,
    target: Option<&AstNode<'_>>,
    args: &[AstNode<'_>],
    sizes: &dyn SizeEstimator,
) -> Option<CallEstimate> {
    let a = EstimateArgs {
        target,
        args,
        sizes,
    };
    let t = target.map(|t| a.size(t));
    Some(match (function, t) {
        ("lowerAscii" | "upperAscii" | "substring" | "trim", Some(sz)) => CallEstimate {
            cost: sz.times_factor(STRING_TRAVERSAL_FACTOR),
            result_size: Some(sz),
        },
        ("indexOf" | "lastIndexOf", Some(sz)) if matches!(target?.ty, Type::String) => {
            CallEstimate {
                cost: sz.times_factor(STRING_TRAVERSAL_FACTOR),
                result_size: None,
            }
        }
        ("replace", Some(sz)) if args.len() >= 2 => CallEstimate {
            cost: sz.times_factor(2.0 * STRING_TRAVERSAL_FACTOR),
            result_size: Some(replace_size(sz, a.size(&args[0]), a.size(&args[1]))),
        },
        ("split", Some(sz)) => {
            let max = match args.get(1).map(|n| &n.expr.kind) {
                Some(ExprKind::Literal(Literal::Int(n))) => *n as u64,
                Some(ExprKind::Literal(Literal::Uint(n))) => *n,
                _ => sz.max,
            };
            CallEstimate {
                cost: sz.times_factor(2.0 * STRING_TRAVERSAL_FACTOR),
                result_size: Some(SizeEstimate { min: 0, max }),
            }
        }
        ("join", Some(list)) => {
            let t = target?;
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
                    let elem = sizes.estimate_size(&node).unwrap_or(SizeEstimate::UNKNOWN);
                    SizeEstimate {
                        min: list.min.saturating_mul(elem.min),
                        max: list.max.saturating_mul(elem.max),
                    }
                }
                _ => SizeEstimate { min: 0, max: 0 },
            };
            if let Some(sep) = args.first() {
                let sep = a.size(sep);
                sz = sz
                    + SizeEstimate {
                        min: sep.min.saturating_mul(list.min.saturating_sub(1)),
                        max: sep.max.saturating_mul(list.max.saturating_sub(1)),
                    };
            }
            CallEstimate {
                cost: sz.times_factor(STRING_TRAVERSAL_FACTOR),
                result_size: Some(sz),
            }
        }
        _ => return None,
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
