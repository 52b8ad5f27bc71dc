//! The Kubernetes CEL libraries (k8s.io/apiserver `pkg/cel/library`), with Kubernetes'
//! overload ids, semantics, error messages and cost functions.
//!
//! | declared by | library | functions |
//! | --- | --- | --- |
//! | [`lists`](fn@lists) | `kubernetes.lists` | `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`, (v1) `includes` |
//! | [`regex`](fn@regex) | `kubernetes.regex` | `find`, `findAll` |
//! | [`urls`](fn@urls) | `kubernetes.urls` | `url`, `isURL`, `getScheme` ... `getQuery` |
//! | [`quantity`](fn@quantity) | `kubernetes.quantity` | `quantity`, `isQuantity`, `sign`, `add`, `sub`, ... |
//! | [`ip`](fn@ip) | `kubernetes.net.ip` | `ip`, `isIP`, `ip.isCanonical`, `family`, ... |
//! | [`cidr`](fn@cidr) | `kubernetes.net.cidr` | `cidr`, `isCIDR`, `containsIP`, `containsCIDR`, ... |
//! | [`named_formats`] ([`format()`](fn@format)) | `kubernetes.format` | `format.named`, `format.<name>()`, `validate` |
//! | [`semver`](fn@semver) | `kubernetes.Semver` | `semver`, `isSemver`, `major`, `compareTo`, ... |
//! | [`authz`](mod@authz) | `kubernetes.authz`, `kubernetes.authzSelectors` | `authorizer.path`, `check`, `allowed`, ... |
//! | [`sharding`](mod@sharding) | `kubernetes.sharding` | `shardRange` (shard selectors of sharded list and watch) |
//! | [`costs`](mod@costs) | `kubernetes.jsonpatch` | `jsonpatch.escapeKey`; Kubernetes' costs for `ext.Strings` |
//!
//! The private modules `netip` and `go_url` reproduce Go's `net/netip` and `net/url` parsing and messages.
//!
//! [`libraries_for`] gives the libraries a Kubernetes version enables; [`cost_estimator`] adds
//! Kubernetes' estimates (`==` on its types, the `ext.Strings` functions priced by name) to
//! any [`SizeEstimator`]; [`costs::apply_runtime_costs`] gives other libraries' functions
//! Kubernetes' runtime costs.
//!
//! ```
//! use std::collections::HashMap;
//! use std::sync::Arc;
//!
//! use kcel::library::NoSizes;
//! use kcel_stdlib::kubernetes::{self, AllowAll, authz::AUTHORIZER};
//! use kcel::{Env, ProgramOptions, Type, Value};
//!
//! let mut env = Env::new();
//! for lib in kubernetes::libraries_for((1, 37)) {
//!     env.add_library(&lib);
//! }
//! env.declare("authorizer", Type::Named(AUTHORIZER.into(), vec![]));
//! env.set_presence_test_cost(false);
//! let ast = env
//!     .compile("cidr('10.0.0.0/8').containsIP('10.1.2.3') && authorizer.path('/healthz').check('get').allowed()")
//!     .unwrap();
//! // Left: cidr() 1 + containsIP [1, 4] + 1; right: 1 + 1 + 350000 + 1.
//! let est = env.estimate_cost(&ast, &kubernetes::cost_estimator(&NoSizes)).unwrap();
//! assert_eq!((est.min, est.max), (3, 350009));
//!
//! let program = env.program_with(&ast, ProgramOptions::default().with_presence_test_cost(false)).unwrap();
//! let mut vars = HashMap::new();
//! vars.insert("authorizer".to_string(), kubernetes::authorizer_value(Default::default(), Arc::new(AllowAll)));
//! let (value, details) = program.eval_with_details(&vars);
//! assert_eq!(value, Ok(Value::Bool(true)));
//! assert_eq!(details.actual_cost, 350006);
//! ```

pub mod admission;
pub mod authz;
pub mod builtin;
pub(crate) mod builtin_validation;
pub(crate) mod cidr;
pub mod costs;
pub mod crd;
pub mod defaults;
pub(crate) mod go_time;
pub(crate) mod go_url;
pub(crate) mod ip;
pub(crate) mod list_queries;
pub mod manifest_validation;
pub mod merge;
pub mod named_formats;
pub(crate) mod netip;
pub(crate) mod object_meta;
pub mod object_meta_update;
pub mod pod_qos;
pub mod presets;
pub(crate) mod quantity;
pub(crate) mod regex_find;
pub mod selectors;
pub(crate) mod semver;
pub mod sharding;
pub(crate) mod sloppy_ip;
pub mod strfmt;
pub mod suite;
pub(crate) mod urls;

use kcel::EvalError;
use kcel::Type;
use kcel::library::Library;
use kcel::library::{
    AstNode, CallEstimate, CostEstimate, EstimateArgs, STRING_TRAVERSAL_FACTOR, SizeEstimate,
    SizeEstimator, WithCallEstimates,
};
use kcel::{Opaque, Value};

pub use authz::{
    AllowAll, Authorizer, AuthzRequest, Decision, DenyAll, Rule, RuleAuthorizer, authorizer_value,
};
pub(crate) use kcel::library::standard::go_quote;
pub use object_meta::{annotation_errors, label_errors, reference_errors};

/// The Kubernetes libraries enabled at a Kubernetes version `(major, minor)` for new
/// expressions (SPEC §1.2); the cel-go extensions are not included.
pub fn libraries_for(version: (u32, u32)) -> Vec<Library> {
    let at_least = |minor: u32| version.0 > 1 || (version.0 == 1 && version.1 >= minor);
    let mut libs = vec![urls(), regex()];
    libs.push(lists(if at_least(37) { 1 } else { 0 }));
    if at_least(27) {
        libs.push(authz());
    }
    if at_least(28) {
        libs.push(quantity());
    }
    if at_least(30) {
        libs.push(ip());
        libs.push(cidr());
    }
    if at_least(31) {
        libs.push(format());
        libs.push(authz_selectors());
    }
    if at_least(33) {
        libs.push(semver(1));
    }
    libs
}

/// The Kubernetes libraries for stored expressions (SPEC §1.1: every option group not
/// removed, i.e. the newest configuration).
pub fn stored_libraries() -> Vec<Library> {
    libraries_for((1, 37))
}

/// `kubernetes.lists` at a version (0, or 1 with `includes`).
pub fn lists(version: u32) -> Library {
    list_queries::library(version)
}

/// `kubernetes.regex`: `find`, `findAll`.
pub fn regex() -> Library {
    regex_find::library()
}

/// `kubernetes.urls`.
pub fn urls() -> Library {
    urls::library()
}

/// `kubernetes.quantity`.
pub fn quantity() -> Library {
    quantity::library()
}

/// `kubernetes.net.ip`.
pub fn ip() -> Library {
    ip::library()
}

/// `kubernetes.net.cidr`.
pub fn cidr() -> Library {
    cidr::library()
}

/// `kubernetes.format`.
pub fn format() -> Library {
    named_formats::library()
}

/// `kubernetes.Semver` at a version (0, or 1 with the normalizing overloads).
pub fn semver(version: u32) -> Library {
    semver::library(version)
}

/// `kubernetes.authz`.
pub fn authz() -> Library {
    authz::library()
}

/// `kubernetes.jsonpatch`: `jsonpatch.escapeKey` (not in the base environment).
pub fn jsonpatch() -> Library {
    costs::jsonpatch_library()
}

/// `kubernetes.authzSelectors`: `fieldSelector`, `labelSelector`.
pub fn authz_selectors() -> Library {
    authz::selectors_library()
}

/// `kubernetes.sharding`: `shardRange` (not in any Kubernetes environment: upstream only
/// parses shard selectors; this makes them evaluable for debugging).
pub fn sharding() -> Library {
    sharding::library()
}

// ----- helpers shared by the libraries -----

/// The string inside a value, or `no such overload`.
pub(crate) fn string_arg(v: &Value) -> Result<&str, EvalError> {
    match v {
        Value::String(s) => Ok(s),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// The library value of type `T` inside an opaque value, or `no such overload`.
pub(crate) fn opaque_arg<T: 'static>(v: &Value) -> Result<&T, EvalError> {
    match v {
        Value::Opaque(o) => o
            .as_any()
            .downcast_ref::<T>()
            .ok_or_else(EvalError::no_such_overload),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `Equal` of Kubernetes' types (`pkg/cel/*.go`): a value of another type is
/// `no such overload` (SPEC §2.11), not `false`.
pub(crate) fn strict_equal_to<T: Opaque + 'static>(this: &T, other: &Value) -> Option<bool> {
    match other {
        Value::Opaque(o) if o.as_any().is::<T>() => Some(this.equals(o.as_ref())),
        _ => None,
    }
}

/// Wraps a library value.
pub(crate) fn opaque(o: impl Opaque + 'static) -> Value {
    Value::Opaque(std::sync::Arc::new(o))
}

/// `⌈x × factor⌉` as Kubernetes computes runtime costs.
pub(crate) fn ceil_cost(x: u64, factor: f64) -> u64 {
    (x as f64 * factor).ceil() as u64
}

/// The size cel-go's cost tracker uses (code points, bytes, entries; 1 for scalars), plus
/// the sizes of Kubernetes' sized types (IP and CIDR).
pub(crate) fn value_size(v: &Value) -> u64 {
    if let Ok(ip) = opaque_arg::<ip::Ip>(v) {
        return ip.size();
    }
    if let Ok(c) = opaque_arg::<cidr::Cidr>(v) {
        return c.size();
    }
    kcel::library::actual_size(v)
}

/// One row of a declaration table: name, overload id, result type, doc, implementation,
/// examples.
pub(crate) type Row<F> = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    F,
    &'static [&'static str],
);

/// Runtime cost `⌈size(arg0) × 0.1⌉` (string parsing).
pub(crate) fn rt_traverse_first(args: &[Value], _: Option<&Value>) -> u64 {
    args.first()
        .map_or(0, |a| ceil_cost(value_size(a), STRING_TRAVERSAL_FACTOR))
}

/// Estimate `⌈E(arg0) × 0.1⌉` (string parsing), no result size.
pub(crate) fn est_traverse_first(a: &EstimateArgs<'_>) -> CallEstimate {
    let cost = match a.args.first() {
        Some(n) => a.size(n).times_factor(STRING_TRAVERSAL_FACTOR),
        None => CostEstimate::fixed(1),
    };
    CallEstimate {
        cost,
        result_size: None,
    }
}

/// Estimate 1 (nominal-cost builders and accessors).
pub(crate) fn est_one(_: &EstimateArgs<'_>) -> CallEstimate {
    CallEstimate {
        cost: CostEstimate::fixed(1),
        result_size: None,
    }
}

/// Kubernetes' call estimates (`library/cost.go`), for `Env::set_call_estimates`: `==` on
/// Kubernetes types (1 for IP, CIDR, Quantity, Semver and authz types; `[1, ⌈64 × 0.1⌉]` for
/// formats; `[1, ⌈max × 0.1⌉]` for URLs) and the `ext.Strings` functions by name.
pub fn estimate_call(
    function: &str,
    target: Option<&AstNode<'_>>,
    args: &[AstNode<'_>],
    sizes: &dyn SizeEstimator,
) -> Option<CallEstimate> {
    if function == "_==_" {
        if let [l, r] = args {
            if let Some(e) = equality_estimate(l, r) {
                return Some(e);
            }
        }
    }
    costs::estimate_by_name(function, target, args, sizes)
}

/// Kubernetes' `CostEstimator`: [`estimate_call`] first, then `sizes`, which also gives the
/// sizes (what Kubernetes' environments do through `Env::set_call_estimates`).
pub fn cost_estimator(sizes: &dyn SizeEstimator) -> WithCallEstimates<'_> {
    WithCallEstimates {
        calls: estimate_call,
        sizes,
    }
}

fn equality_estimate(l: &AstNode<'_>, r: &AstNode<'_>) -> Option<CallEstimate> {
    let (Type::Named(name, _), Type::Named(other, _)) = (l.ty, r.ty) else {
        return None;
    };
    if name != other {
        return None;
    }
    let cost = match &**name {
        "net.IP" | "net.CIDR" | "kubernetes.Quantity" | "kubernetes.Semver" => {
            CostEstimate::fixed(1)
        }
        n if n.starts_with("kubernetes.authorization.") => CostEstimate::fixed(1),
        "kubernetes.NamedFormat" => SizeEstimate { min: 1, max: 64 }.times_factor(0.1),
        "kubernetes.URL" => {
            // Upstream reads the right operand's size twice.
            let max = r.computed_size.map_or(1, |s| s.max);
            SizeEstimate { min: 1, max }.times_factor(STRING_TRAVERSAL_FACTOR)
        }
        _ => return None,
    };
    Some(CallEstimate {
        cost,
        result_size: None,
    })
}
