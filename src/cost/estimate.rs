//! Static cost estimation: a (min, max) range of the runtime cost of a checked expression,
//! computed as cel-go's `checker/cost.go` computes it, from types and size estimates.
//!
//! Sizes of variables come from a [`SizeEstimator`] (Kubernetes derives them from schema
//! `maxLength`/`maxItems`/`maxProperties`); unknown sizes are `[0, 2^64-1]`, and all
//! arithmetic saturates.

use std::collections::HashMap;
use std::ops::Add;

use crate::check::{Checked, Reference};
use crate::cost::{
    CallCost, LIST_CREATE, MAP_CREATE, REGEX_STRING_LENGTH_FACTOR, SELECT_AND_IDENT,
    STRING_TRAVERSAL_FACTOR, STRUCT_CREATE,
};
use crate::registry::{CallShape, Overload, Registry};
use crate::syntax::ast::{ACCUMULATOR, Comprehension, Expr, ExprId, ExprKind, Literal};
use crate::types::Type;

/// A range of sizes (code points, bytes, elements or entries).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeEstimate {
    /// The smallest size.
    pub min: u64,
    /// The largest size.
    pub max: u64,
}

/// A range of costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CostEstimate {
    /// The least cost.
    pub min: u64,
    /// The greatest cost.
    pub max: u64,
}

impl SizeEstimate {
    /// An unknown size: `[0, 2^64-1]`.
    pub const UNKNOWN: SizeEstimate = SizeEstimate {
        min: 0,
        max: u64::MAX,
    };

    /// Exactly `n`.
    pub fn fixed(n: u64) -> SizeEstimate {
        SizeEstimate { min: n, max: n }
    }

    /// Saturating arithmetic as in cel-go.
    pub fn union(self, o: SizeEstimate) -> SizeEstimate {
        SizeEstimate {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }

    /// Saturating arithmetic as in cel-go.
    pub fn times_factor(self, factor: f64) -> CostEstimate {
        CostEstimate {
            min: times_factor(self.min, factor),
            max: times_factor(self.max, factor),
        }
    }

    /// Saturating arithmetic as in cel-go.
    pub fn times_cost(self, c: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.saturating_mul(c.min),
            max: self.max.saturating_mul(c.max),
        }
    }
}

impl CostEstimate {
    /// Exactly `n`.
    pub fn fixed(n: u64) -> CostEstimate {
        CostEstimate { min: n, max: n }
    }

    /// Saturating arithmetic as in cel-go.
    pub fn multiply(self, o: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }

    /// Saturating arithmetic as in cel-go.
    pub fn union(self, o: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
}

impl Add for SizeEstimate {
    type Output = SizeEstimate;

    /// Saturating, as in cel-go.
    fn add(self, o: SizeEstimate) -> SizeEstimate {
        SizeEstimate {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }
}

impl Add for CostEstimate {
    type Output = CostEstimate;

    /// Saturating, as in cel-go.
    fn add(self, o: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }
}

/// `ceil(x × factor)`, saturating at `2^64-1` as cel-go does.
fn times_factor(x: u64, factor: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && factor > 0.0 && xf > u64::MAX as f64 / factor {
        return u64::MAX;
    }
    let c = (xf * factor).ceil();
    if c >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        c as u64
    }
}

/// What an estimator is told about an expression node.
#[derive(Debug)]
pub struct AstNode<'a> {
    /// The path from a variable: `["self", "spec", "items", "@items"]`; empty when the node
    /// is not a path from a variable.
    pub path: &'a [String],
    /// The node's type, as checked.
    pub ty: &'a Type,
    /// The node.
    pub expr: &'a Expr,
    /// The size computed from the expression itself, if known.
    pub computed_size: Option<SizeEstimate>,
}

/// The cost and result size of one call, as a library estimates it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallEstimate {
    /// The call's own cost.
    pub cost: CostEstimate,
    /// The size of its result, where the estimate knows it.
    pub result_size: Option<SizeEstimate>,
}

/// Environment-specific knowledge for estimation (cel-go's `CostEstimator`).
pub trait SizeEstimator {
    /// The size of a node, typically from the schema at its path.
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        let _ = node;
        None
    }

    /// The cost of a call of a library function, excluding its arguments' own costs.
    fn estimate_call_cost(
        &self,
        function: &str,
        overload_id: &str,
        target: Option<&AstNode<'_>>,
        args: &[AstNode<'_>],
    ) -> Option<CallEstimate> {
        let _ = (function, overload_id, target, args);
        None
    }
}

/// Call estimates of a whole environment, by function name, consulted before a size
/// estimator's own (see `Env::set_call_estimates`): the function, its call's target and
/// arguments, and the sizes of the estimate in progress; `None` where it has no estimate.
pub type CallEstimateFn = fn(
    function: &str,
    target: Option<&AstNode<'_>>,
    args: &[AstNode<'_>],
    sizes: &dyn SizeEstimator,
) -> Option<CallEstimate>;

/// A size estimator with call estimates consulted before its own: what
/// `Env::set_call_estimates` makes of the estimator an estimate is given.
pub struct WithCallEstimates<'a> {
    /// Consulted first.
    pub calls: CallEstimateFn,
    /// Sizes, and the call estimates `calls` has none for.
    pub sizes: &'a dyn SizeEstimator,
}

impl SizeEstimator for WithCallEstimates<'_> {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        self.sizes.estimate_size(node)
    }

    fn estimate_call_cost(
        &self,
        function: &str,
        overload_id: &str,
        target: Option<&AstNode<'_>>,
        args: &[AstNode<'_>],
    ) -> Option<CallEstimate> {
        (self.calls)(function, target, args, self.sizes).or_else(|| {
            self.sizes
                .estimate_call_cost(function, overload_id, target, args)
        })
    }
}

/// What a library's estimate function is given about a call.
pub struct EstimateArgs<'a> {
    /// The receiver of a receiver-style call.
    pub target: Option<&'a AstNode<'a>>,
    /// The arguments, without the receiver.
    pub args: &'a [AstNode<'a>],
    /// The environment's sizes (see [`EstimateArgs::size`]).
    pub sizes: &'a dyn SizeEstimator,
}

impl EstimateArgs<'_> {
    /// The size of a node: computed from the expression, else from the environment's
    /// estimator, else unknown.
    pub fn size(&self, node: &AstNode<'_>) -> SizeEstimate {
        node.computed_size
            .or_else(|| self.sizes.estimate_size(node))
            .unwrap_or(SizeEstimate::UNKNOWN)
    }
}

/// A library function's cost estimate (excluding its arguments' own costs).
pub type EstimateFn = fn(&EstimateArgs<'_>) -> CallEstimate;

/// An estimator that knows nothing beyond the expression itself.
pub struct NoSizes;

impl SizeEstimator for NoSizes {}

#[derive(Clone, Copy, Debug)]
struct EntrySize {
    is_list: bool,
    key: SizeEstimate,
    val: SizeEstimate,
}

#[derive(Clone, Debug)]
struct LocalVar {
    path: Vec<String>,
    size: Option<SizeEstimate>,
    entry: Option<EntrySize>,
}

/// Estimates the cost of a checked expression.
pub fn estimate(
    expr: &Expr,
    checked: &Checked,
    registry: &Registry,
    estimator: &dyn SizeEstimator,
    presence_test_cost: bool,
) -> CostEstimate {
    let mut c = Coster {
        checked,
        registry,
        estimator,
        presence_cost: CostEstimate::fixed(u64::from(presence_test_cost)),
        paths: HashMap::new(),
        sizes: HashMap::new(),
        entries: HashMap::new(),
        locals: HashMap::new(),
    };
    c.cost(expr)
}

struct Coster<'a> {
    checked: &'a Checked,
    registry: &'a Registry,
    estimator: &'a dyn SizeEstimator,
    presence_cost: CostEstimate,
    paths: HashMap<ExprId, Vec<String>>,
    sizes: HashMap<ExprId, SizeEstimate>,
    entries: HashMap<ExprId, EntrySize>,
    locals: HashMap<String, Vec<LocalVar>>,
}

/// The type of nodes the checker did not type.
static DYN: Type = Type::Dyn;

const IDENT: CostEstimate = CostEstimate {
    min: SELECT_AND_IDENT,
    max: SELECT_AND_IDENT,
};

impl<'a> Coster<'a> {
    fn ty(&self, e: &Expr) -> &Type {
        self.checked.types.get(&e.id).unwrap_or(&DYN)
    }

    fn local(&self, name: &str) -> Option<&LocalVar> {
        self.locals.get(name).and_then(|v| v.last())
    }

    fn path(&self, e: &Expr) -> Vec<String> {
        if let ExprKind::Ident(n) = &e.kind {
            if let Some(v) = self.local(n) {
                return v.path.clone();
            }
        }
        self.paths.get(&e.id).cloned().unwrap_or_default()
    }

    /// The variable a node was resolved to by the checker (`a.b.c` may be one variable).
    fn variable(&self, e: &Expr) -> Option<&'a str> {
        match self.checked.references.get(&e.id) {
            Some(Reference::Variable(n)) => Some(n),
            _ => None,
        }
    }

    fn cost(&mut self, e: &Expr) -> CostEstimate {
        match &e.kind {
            ExprKind::Literal(_) => CostEstimate::default(),
            ExprKind::Ident(name) => self.cost_ident(e, name),
            ExprKind::Select {
                operand,
                field,
                test_only,
            } => {
                if let (Some(var), false) = (self.variable(e), *test_only) {
                    return self.cost_ident(e, var);
                }
                if *test_only {
                    return self.presence_cost.add(self.cost(operand));
                }
                let mut sum = self.cost(operand);
                if matches!(
                    self.ty(operand),
                    Type::Map(..) | Type::Object(_) | Type::Param(_)
                ) {
                    sum = sum.add(IDENT);
                }
                let mut p = self.path(operand);
                p.push(field.to_string());
                self.paths.insert(e.id, p);
                sum
            }
            ExprKind::Call { .. } => self.cost_call(e),
            ExprKind::List { elements, .. } => {
                let mut sum = CostEstimate::default();
                let mut item = SizeEstimate {
                    min: if elements.is_empty() { 0 } else { u64::MAX },
                    max: 0,
                };
                for el in elements {
                    sum = sum.add(self.cost(el));
                    item = item.union(self.size_or_unknown(el));
                }
                self.entries.insert(
                    e.id,
                    EntrySize {
                        is_list: true,
                        key: SizeEstimate::fixed(1),
                        val: item,
                    },
                );
                sum.add(CostEstimate::fixed(LIST_CREATE))
            }
            ExprKind::Map { entries } => {
                let mut sum = CostEstimate::default();
                let start = if entries.is_empty() { 0 } else { u64::MAX };
                let mut key = SizeEstimate { min: start, max: 0 };
                let mut val = SizeEstimate { min: start, max: 0 };
                for entry in entries {
                    sum = sum.add(self.cost(&entry.key));
                    sum = sum.add(self.cost(&entry.value));
                    key = key.union(self.size_or_unknown(&entry.key));
                    val = val.union(self.size_or_unknown(&entry.value));
                }
                self.entries.insert(
                    e.id,
                    EntrySize {
                        is_list: false,
                        key,
                        val,
                    },
                );
                sum.add(CostEstimate::fixed(MAP_CREATE))
            }
            ExprKind::Struct { fields, .. } => {
                let mut sum = CostEstimate::default();
                for f in fields {
                    sum = sum.add(self.cost(&f.value));
                }
                sum.add(CostEstimate::fixed(STRUCT_CREATE))
            }
            ExprKind::Comprehension(c) => {
                if is_bind(c) {
                    self.cost_bind(e, c)
                } else {
                    self.cost_comprehension(e, c)
                }
            }
        }
    }

    fn cost_ident(&mut self, e: &Expr, name: &str) -> CostEstimate {
        let path = match self.local(name) {
            Some(v) => v.path.clone(),
            None => vec![name.to_string()],
        };
        self.paths.insert(e.id, path);
        IDENT
    }

    fn new_node<'e>(&self, e: &'e Expr, path: &'e [String]) -> AstNode<'e>
    where
        'a: 'e,
    {
        AstNode {
            path,
            ty: self.checked.types.get(&e.id).unwrap_or(&DYN),
            expr: e,
            computed_size: self.compute_size(e),
        }
    }

    /// The node's path for estimators: empty for paths rooted in an accumulator.
    fn node_path(&self, e: &Expr) -> Vec<String> {
        let p = self.path(e);
        if p.first()
            .is_some_and(|r| r == ACCUMULATOR || r == "__result__")
        {
            Vec::new()
        } else {
            p
        }
    }

    fn cost_call(&mut self, e: &Expr) -> CostEstimate {
        let ExprKind::Call {
            target,
            function,
            args,
        } = &e.kind
        else {
            return CostEstimate::default();
        };
        if &**function == "dyn" && target.is_none() && args.len() == 1 {
            let c = self.cost(&args[0]);
            self.copy_sizes(e, &args[0]);
            return CostEstimate::fixed(1).add(c);
        }
        let (name, overload_ids) = match self.checked.references.get(&e.id) {
            Some(Reference::Function { name, overloads }) => (name.to_string(), overloads.clone()),
            _ => return CostEstimate::default(),
        };
        let arg_costs: Vec<CostEstimate> = args.iter().map(|a| self.cost(a)).collect();
        let mut sum = CostEstimate::default();
        // A call resolved to a qualified global function (`a.b.f(x)`) has no receiver.
        let target = target
            .as_deref()
            .filter(|_| !name.contains('.') || name == **function);
        if let Some(t) = target {
            sum = sum.add(self.cost(t));
        }
        let arg_paths: Vec<Vec<String>> = args.iter().map(|a| self.node_path(a)).collect();
        let target_path = target.map(|t| self.node_path(t)).unwrap_or_default();

        let mut fn_cost = CostEstimate {
            min: u64::MAX,
            max: 0,
        };
        let mut result_size: Option<SizeEstimate> = None;
        for id in &overload_ids {
            let overload = self.overload(&name, id);
            let (cost, size) = self.function_cost(
                e,
                &name,
                id,
                overload,
                target,
                &target_path,
                args,
                &arg_paths,
                &arg_costs,
            );
            fn_cost = fn_cost.union(cost);
            if let Some(s) = size {
                result_size = Some(match result_size {
                    None => s,
                    Some(r) => r.union(s),
                });
            }
            if let (Some(o), Some(a0)) = (overload, args.first()) {
                if o.shape == CallShape::Index {
                    // An element of the operand: of a list its items, of a map its values.
                    result_size = self.entry_size(a0).map(|es| es.val);
                    let mut p = self.path(a0);
                    p.push(
                        if matches!(o.params.first(), Some(Type::List(_))) {
                            "@items"
                        } else {
                            "@values"
                        }
                        .into(),
                    );
                    self.paths.insert(e.id, p);
                }
            }
            if result_size.is_none() {
                result_size = self.compute_size(e);
            }
        }
        if let Some(s) = result_size {
            self.sizes.insert(e.id, s);
        }
        if overload_ids.is_empty() {
            return CostEstimate::default();
        }
        sum.add(fn_cost)
    }

    /// The overload a call was resolved to, as the registry declares it.
    fn overload(&self, function: &str, overload_id: &str) -> Option<&'a Overload> {
        self.registry
            .get(function)
            .and_then(|f| f.overloads.iter().find(|o| &*o.id == overload_id))
    }

    /// The cost of a call of one overload with its arguments' costs, and its result's size
    /// where known: the overload's declared estimate, else the environment's, else what the
    /// overload's [`CallShape`] and the estimate of its [`CallCost`] give.
    #[allow(clippy::too_many_arguments)]
    fn function_cost(
        &mut self,
        e: &Expr,
        function: &str,
        overload_id: &str,
        overload: Option<&Overload>,
        target: Option<&Expr>,
        target_path: &[String],
        args: &[Expr],
        arg_paths: &[Vec<String>],
        arg_costs: &[CostEstimate],
    ) -> (CostEstimate, Option<SizeEstimate>) {
        let arg_sum = arg_costs
            .iter()
            .fold(CostEstimate::default(), |a, b| a.add(*b));
        {
            let nodes: Vec<AstNode<'_>> = args
                .iter()
                .zip(arg_paths)
                .map(|(a, p)| self.new_node(a, p))
                .collect();
            let tnode = target.map(|t| self.new_node(t, target_path));
            if let Some(estimate) = overload.and_then(|o| o.estimate) {
                let est = estimate(&EstimateArgs {
                    target: tnode.as_ref(),
                    args: &nodes,
                    sizes: self.estimator,
                });
                return (est.cost.add(arg_sum), est.result_size);
            }
            if let Some(est) =
                self.estimator
                    .estimate_call_cost(function, overload_id, tnode.as_ref(), &nodes)
            {
                return (est.cost.add(arg_sum), est.result_size);
            }
        }
        let Some(overload) = overload else {
            return (CostEstimate::fixed(1).add(arg_sum), None);
        };
        let own = self
            .kind_cost(overload.runtime_cost, target, args)
            .unwrap_or(CostEstimate::fixed(1))
            .add(arg_sum);
        let size = |c: &Coster<'_>, x: &Expr| c.size_or_unknown(x);
        match overload.shape {
            CallShape::ShortCircuit if arg_costs.len() == 2 => {
                let (l, r) = (arg_costs[0], arg_costs[1]);
                let cost = CostEstimate {
                    min: l.min,
                    max: l.add(r).max,
                };
                (cost, None)
            }
            CallShape::Conditional if args.len() == 3 => {
                let rs = size(self, &args[1]).union(size(self, &args[2]));
                self.union_entries(e, &args[1], &args[2]);
                let cost = arg_costs[0].add(arg_costs[1].union(arg_costs[2]));
                (cost, Some(rs))
            }
            CallShape::Concatenation if args.len() == 2 => {
                let rs = size(self, &args[0]).add(size(self, &args[1]));
                self.union_entries(e, &args[0], &args[1]);
                (own, Some(rs))
            }
            CallShape::Utf8 { to_bytes } if args.len() == 1 => {
                let sz = size(self, &args[0]);
                let rs = if to_bytes {
                    SizeEstimate {
                        min: sz.min,
                        max: sz.max.saturating_mul(4),
                    }
                } else {
                    SizeEstimate {
                        min: sz.min / 4,
                        max: sz.max,
                    }
                };
                (own, Some(rs))
            }
            _ => (own, None),
        }
    }

    /// The estimate of a call's own cost from the overload's runtime cost kind, for calls of
    /// the shape the kind applies to (see [`CallCost`]); `None` otherwise.
    fn kind_cost(
        &self,
        cost: CallCost,
        target: Option<&Expr>,
        args: &[Expr],
    ) -> Option<CostEstimate> {
        let size = |x: &Expr| self.size_or_unknown(x);
        Some(match (cost, target, args) {
            (CallCost::Fixed(c), _, _) => CostEstimate::fixed(c),
            (CallCost::TraverseFirst, _, [first]) => {
                size(first).times_factor(STRING_TRAVERSAL_FACTOR)
            }
            (CallCost::SizeOfSecond, _, [_, second]) => size(second).times_factor(1.0),
            (CallCost::TraverseMin, _, [l, r]) => {
                let smallest_max = size(l).max.min(size(r).max);
                SizeEstimate {
                    min: u64::from(smallest_max > 0),
                    max: smallest_max,
                }
                .times_factor(STRING_TRAVERSAL_FACTOR)
            }
            (CallCost::TraverseSum, _, [l, r]) => {
                size(l).add(size(r)).times_factor(STRING_TRAVERSAL_FACTOR)
            }
            (CallCost::Matches, Some(s), [p]) => {
                let str_cost = size(s)
                    .add(SizeEstimate::fixed(1))
                    .times_factor(STRING_TRAVERSAL_FACTOR);
                str_cost.multiply(size(p).times_factor(REGEX_STRING_LENGTH_FACTOR))
            }
            (CallCost::Contains, Some(t), [sub]) => {
                let s = size(t).times_factor(STRING_TRAVERSAL_FACTOR);
                s.multiply(size(sub).times_factor(STRING_TRAVERSAL_FACTOR))
            }
            _ => return None,
        })
    }

    /// Sizes the elements of `e`'s result as those of either `a` or `b`, where both are
    /// known.
    fn union_entries(&mut self, e: &Expr, a: &Expr, b: &Expr) {
        if let (Some(a), Some(b)) = (self.entry_size(a), self.entry_size(b)) {
            self.entries.insert(
                e.id,
                EntrySize {
                    is_list: a.is_list,
                    key: a.key.union(b.key),
                    val: a.val.union(b.val),
                },
            );
        }
    }

    fn cost_comprehension(&mut self, e: &Expr, c: &Comprehension) -> CostEstimate {
        let mut sum = self.cost(&c.iter_range);
        sum = sum.add(self.cost(&c.accu_init));
        self.push_local(&c.accu_var, &c.accu_init);
        let range_entry = self.entry_size(&c.iter_range);
        let range_path = self.path(&c.iter_range);
        let range_is_list = match range_entry {
            Some(es) => es.is_list,
            None => matches!(self.ty(&c.iter_range), Type::List(_)),
        };
        let with_sub = |sub: &str| {
            let mut p = range_path.clone();
            p.push(sub.to_string());
            p
        };
        match &c.iter_var2 {
            Some(v2) => {
                let key = LocalVar {
                    path: with_sub(if range_is_list { "@indices" } else { "@keys" }),
                    size: range_entry.map(|es| es.key),
                    entry: None,
                };
                let val = LocalVar {
                    path: with_sub(if range_is_list { "@items" } else { "@values" }),
                    size: range_entry.map(|es| es.val),
                    entry: None,
                };
                self.locals
                    .entry(c.iter_var.to_string())
                    .or_default()
                    .push(key);
                self.locals.entry(v2.to_string()).or_default().push(val);
            }
            None => {
                let v = if range_is_list {
                    LocalVar {
                        path: with_sub("@items"),
                        size: range_entry.map(|es| es.val),
                        entry: None,
                    }
                } else {
                    LocalVar {
                        path: with_sub("@keys"),
                        size: range_entry.map(|es| es.key),
                        entry: None,
                    }
                };
                self.locals
                    .entry(c.iter_var.to_string())
                    .or_default()
                    .push(v);
            }
        }
        let loop_cost = self.cost(&c.loop_condition);
        let step_cost = self.cost(&c.loop_step);
        self.pop_local(&c.iter_var);
        if let Some(v2) = &c.iter_var2 {
            self.pop_local(v2);
        }
        sum = sum.add(self.cost(&c.result));
        self.pop_local(&c.accu_var);
        let range_count = self.size_or_unknown(&c.iter_range);
        sum = sum.add(range_count.times_cost(step_cost.add(loop_cost)));
        match &c.accu_init.kind {
            ExprKind::Literal(_) => {
                if let Some(s) = self.compute_size(&c.accu_init) {
                    self.sizes.insert(e.id, s);
                }
            }
            ExprKind::List { .. } | ExprKind::Map { .. } => {
                self.sizes.insert(e.id, range_count);
                if let Some(es) = self.entry_size(&c.loop_step) {
                    self.entries.insert(e.id, es);
                }
            }
            _ => {}
        }
        sum
    }

    fn cost_bind(&mut self, e: &Expr, c: &Comprehension) -> CostEstimate {
        let mut sum = self.cost(&c.iter_range);
        sum = sum.add(self.cost(&c.accu_init));
        self.push_local(&c.accu_var, &c.accu_init);
        sum = sum.add(self.cost(&c.result));
        self.pop_local(&c.accu_var);
        self.copy_sizes(e, &c.result);
        sum
    }

    fn push_local(&mut self, name: &str, e: &Expr) {
        let v = LocalVar {
            path: self.path(e),
            size: self.compute_size(e),
            entry: self.entry_size(e),
        };
        self.locals.entry(name.to_string()).or_default().push(v);
    }

    fn pop_local(&mut self, name: &str) {
        if let Some(stack) = self.locals.get_mut(name) {
            stack.pop();
        }
    }

    fn copy_sizes(&mut self, dst: &Expr, src: &Expr) {
        if let Some(s) = self.compute_size(src) {
            self.sizes.insert(dst.id, s);
        }
        if let Some(es) = self.entry_size(src) {
            self.entries.insert(dst.id, es);
        }
    }

    fn size_or_unknown(&self, e: &Expr) -> SizeEstimate {
        self.compute_size(e).unwrap_or(SizeEstimate::UNKNOWN)
    }

    fn compute_size(&self, e: &Expr) -> Option<SizeEstimate> {
        if let Some(s) = self.sizes.get(&e.id) {
            return Some(*s);
        }
        if let Some(s) = expr_size(e) {
            return Some(s);
        }
        let path = self.path(e);
        let node = AstNode {
            path: &path,
            ty: self.ty(e),
            expr: e,
            computed_size: None,
        };
        if let Some(s) = self.estimator.estimate_size(&node) {
            return Some(s);
        }
        if is_scalar(self.ty(e)) {
            return Some(SizeEstimate::fixed(1));
        }
        if let ExprKind::Ident(n) = &e.kind {
            if let Some(s) = self.local(n).and_then(|v| v.size) {
                return Some(s);
            }
        }
        None
    }

    fn entry_size(&self, e: &Expr) -> Option<EntrySize> {
        if let Some(es) = self.entries.get(&e.id) {
            return Some(*es);
        }
        if let ExprKind::Ident(n) = &e.kind {
            return self.local(n).and_then(|v| v.entry);
        }
        None
    }
}

/// Sizes known from the expression itself: literals and aggregate literals.
fn expr_size(e: &Expr) -> Option<SizeEstimate> {
    Some(SizeEstimate::fixed(match &e.kind {
        ExprKind::Literal(Literal::String(s)) => s.chars().count() as u64,
        ExprKind::Literal(Literal::Bytes(b)) => b.len() as u64,
        ExprKind::Literal(_) => 1,
        ExprKind::List { elements, .. } => elements.len() as u64,
        ExprKind::Map { entries } => entries.len() as u64,
        _ => return None,
    }))
}

fn is_scalar(t: &Type) -> bool {
    match t {
        Type::Bool | Type::Double | Type::Duration | Type::Int | Type::Timestamp | Type::Uint => {
            true
        }
        Type::Optional(inner) => is_scalar(inner),
        _ => false,
    }
}

/// `cel.bind` expands to a comprehension over an empty list whose loop never runs.
fn is_bind(c: &Comprehension) -> bool {
    matches!(&c.iter_range.kind, ExprKind::List { elements, .. } if elements.is_empty())
        && matches!(
            c.loop_condition.kind,
            ExprKind::Literal(Literal::Bool(false))
        )
        && &*c.accu_var != ACCUMULATOR
}
