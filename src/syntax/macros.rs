//! Parse-time macros: `has`, `all`, `exists`, `exists_one` (also spelled `existsOne`), `map`,
//! `filter`.
//!
//! Macros are a table of [`Macro`] entries (name, call style, argument count, expander), so
//! new ones (two-variable comprehensions, `cel.bind`, optional macros) are added here without
//! touching the parser. Expansions have cel-go's shapes: every loop becomes one
//! [`Comprehension`] with the accumulator [`ACCUMULATOR`].

use std::sync::Arc;

pub use crate::error::MacroError;
use crate::error::MacroErrorKind;
use crate::syntax::ast::{
    ACCUMULATOR, Comprehension, Expr, ExprId, ExprKind, Literal, Span, is_accumulator_name, op,
};

/// Whether a macro is called as a global function (`has(x)`) or on a receiver (`x.all(..)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `name(args)`.
    Global,
    /// `target.name(args)`.
    Receiver,
}

/// The expander function of a macro: gets the receiver (for receiver-style macros) and the
/// arguments, and returns the replacement expression.
pub type ExpandFn = fn(&mut Expander, Option<Expr>, Vec<Expr>) -> Result<Expr, MacroError>;

/// One macro definition.
#[derive(Clone, Copy)]
pub struct Macro {
    /// The function name that triggers the macro.
    pub name: &'static str,
    /// Global or receiver style.
    pub style: Style,
    /// The exact number of arguments (not counting the receiver).
    pub args: usize,
    /// For receiver macros that are namespaced functions (`cel.bind`): the identifier the
    /// receiver must be; otherwise the call is an ordinary call.
    pub receiver: Option<&'static str>,
    /// Builds the expansion.
    pub expand: ExpandFn,
}

impl std::fmt::Debug for Macro {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Macro({}/{:?}/{})", self.name, self.style, self.args)
    }
}

/// The standard macros of CEL.
pub const STANDARD: &[Macro] = &[
    Macro {
        name: "has",
        style: Style::Global,
        args: 1,
        receiver: None,
        expand: expand_has,
    },
    Macro {
        name: "all",
        style: Style::Receiver,
        args: 2,
        receiver: None,
        expand: |ex, t, a| quantifier1(ex, t, a, Quantifier::All),
    },
    Macro {
        name: "exists",
        style: Style::Receiver,
        args: 2,
        receiver: None,
        expand: |ex, t, a| quantifier1(ex, t, a, Quantifier::Exists),
    },
    Macro {
        name: "exists_one",
        style: Style::Receiver,
        args: 2,
        receiver: None,
        expand: |ex, t, a| quantifier1(ex, t, a, Quantifier::ExistsOne),
    },
    // cel-go's newer spelling of `exists_one`.
    Macro {
        name: "existsOne",
        style: Style::Receiver,
        args: 2,
        receiver: None,
        expand: |ex, t, a| quantifier1(ex, t, a, Quantifier::ExistsOne),
    },
    Macro {
        name: "map",
        style: Style::Receiver,
        args: 2,
        receiver: None,
        expand: expand_map,
    },
    Macro {
        name: "map",
        style: Style::Receiver,
        args: 3,
        receiver: None,
        expand: expand_map_filter,
    },
    Macro {
        name: "filter",
        style: Style::Receiver,
        args: 2,
        receiver: None,
        expand: expand_filter,
    },
];

/// Finds the macro for a call, if any.
pub fn find<'a>(table: &'a [Macro], name: &str, style: Style, args: usize) -> Option<&'a Macro> {
    table
        .iter()
        .find(|m| m.name == name && m.style == style && m.args == args)
}

/// Builds the nodes of an expansion: fresh ids, all with the macro call's span.
#[derive(Debug)]
pub struct Expander {
    next_id: ExprId,
    span: Span,
}

impl Expander {
    /// An expander handing out ids from `next_id` on, for a call at `span`.
    pub fn new(next_id: ExprId, span: Span) -> Expander {
        Expander { next_id, span }
    }

    /// The next id not yet handed out.
    pub fn next_id(&self) -> ExprId {
        self.next_id
    }

    /// The span of the macro call.
    pub fn span(&self) -> Span {
        self.span
    }

    /// A new node with a fresh id.
    pub fn node(&mut self, kind: ExprKind) -> Expr {
        let id = self.next_id;
        self.next_id += 1;
        Expr {
            id,
            span: self.span,
            kind,
        }
    }

    /// An identifier node.
    pub fn ident(&mut self, name: &str) -> Expr {
        self.node(ExprKind::Ident(name.into()))
    }

    /// A literal node.
    pub fn literal(&mut self, lit: Literal) -> Expr {
        self.node(ExprKind::Literal(lit))
    }

    /// A global call node.
    pub fn call(&mut self, function: &str, args: Vec<Expr>) -> Expr {
        self.node(ExprKind::Call {
            target: None,
            function: function.into(),
            args,
        })
    }

    /// A list literal node.
    pub fn list(&mut self, elements: Vec<Expr>) -> Expr {
        self.node(ExprKind::List {
            elements,
            optional_indices: Vec::new(),
        })
    }

    /// The accumulator identifier.
    pub fn accu(&mut self) -> Expr {
        self.ident(ACCUMULATOR)
    }

    /// A one-variable comprehension node.
    pub fn fold(
        &mut self,
        iter_var: Arc<str>,
        iter_range: Expr,
        accu_init: Expr,
        loop_condition: Expr,
        loop_step: Expr,
        result: Expr,
    ) -> Expr {
        self.node(ExprKind::Comprehension(Box::new(Comprehension {
            iter_var,
            iter_var2: None,
            iter_range,
            accu_var: ACCUMULATOR.into(),
            accu_init,
            loop_condition,
            loop_step,
            result,
        })))
    }
}

/// The receiver and the iteration variable name of a one-variable comprehension macro;
/// `not_ident` is the error for a variable that is not an identifier, which cel-go words
/// differently for the quantifiers (`makeQuantifier`: [`MacroErrorKind::NotSimpleName`])
/// and for `map` and `filter` (`MakeMap`, `MakeFilter`:
/// [`MacroErrorKind::NotAnIdentifier`]).
fn iter_parts(
    target: Option<Expr>,
    var: &Expr,
    ex: &Expander,
    not_ident: MacroErrorKind,
) -> Result<(Expr, Arc<str>), MacroError> {
    let ExprKind::Ident(name) = &var.kind else {
        return Err(MacroError {
            kind: not_ident,
            span: var.span,
        });
    };
    if is_accumulator_name(name) {
        return Err(MacroError {
            kind: MacroErrorKind::OverwritesAccumulator,
            span: var.span,
        });
    }
    let Some(target) = target else {
        return Err(MacroError {
            kind: MacroErrorKind::MissingReceiver,
            span: ex.span,
        });
    };
    Ok((target, name.clone()))
}

/// Splits `args` into exactly `N` expressions (the table guarantees the count).
fn take<const N: usize>(args: Vec<Expr>, span: Span) -> Result<[Expr; N], MacroError> {
    args.try_into().map_err(|_| MacroError {
        kind: MacroErrorKind::ArgumentCount,
        span,
    })
}

fn expand_has(
    ex: &mut Expander,
    _target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let [arg] = take(args, ex.span)?;
    match arg.kind {
        ExprKind::Select {
            operand,
            field,
            test_only: false,
        } => Ok(ex.node(ExprKind::Select {
            operand,
            field,
            test_only: true,
        })),
        _ => Err(MacroError {
            kind: MacroErrorKind::InvalidHasArgument,
            span: arg.span,
        }),
    }
}

/// The accumulator parts `(init, condition, step, result)` of the quantifier macros, as cel-go
/// shapes them: `all` (`@result && p` while not strictly false), `exists` (`@result || p`
/// while `!@result` is not strictly false) and `exists_one` (count, `== 1`).
fn quantifier_parts(ex: &mut Expander, kind: Quantifier, pred: Expr) -> [Expr; 4] {
    match kind {
        Quantifier::All => {
            let init = ex.literal(Literal::Bool(true));
            let a = ex.accu();
            let cond = ex.call(op::NOT_STRICTLY_FALSE, vec![a]);
            let a = ex.accu();
            let step = ex.call(op::LOGICAL_AND, vec![a, pred]);
            [init, cond, step, ex.accu()]
        }
        Quantifier::Exists => {
            let init = ex.literal(Literal::Bool(false));
            let a = ex.accu();
            let not = ex.call(op::LOGICAL_NOT, vec![a]);
            let cond = ex.call(op::NOT_STRICTLY_FALSE, vec![not]);
            let a = ex.accu();
            let step = ex.call(op::LOGICAL_OR, vec![a, pred]);
            [init, cond, step, ex.accu()]
        }
        Quantifier::ExistsOne => {
            let init = ex.literal(Literal::Int(0));
            let cond = ex.literal(Literal::Bool(true));
            let a = ex.accu();
            let one = ex.literal(Literal::Int(1));
            let inc = ex.call(op::ADD, vec![a, one]);
            let a = ex.accu();
            let step = ex.call(op::CONDITIONAL, vec![pred, inc, a]);
            let a = ex.accu();
            let one = ex.literal(Literal::Int(1));
            let result = ex.call(op::EQUALS, vec![a, one]);
            [init, cond, step, result]
        }
    }
}

#[derive(Clone, Copy)]
enum Quantifier {
    All,
    Exists,
    ExistsOne,
}

fn quantifier1(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
    kind: Quantifier,
) -> Result<Expr, MacroError> {
    let [var, pred] = take(args, ex.span)?;
    let (range, v) = iter_parts(target, &var, ex, MacroErrorKind::NotSimpleName)?;
    let [init, cond, step, result] = quantifier_parts(ex, kind, pred);
    Ok(ex.fold(v, range, init, cond, step, result))
}

fn quantifier2(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
    kind: Quantifier,
) -> Result<Expr, MacroError> {
    let [v1, v2, pred] = take(args, ex.span)?;
    let (range, v1, v2) = iter_parts2(target, &v1, &v2, ex)?;
    let [init, cond, step, result] = quantifier_parts(ex, kind, pred);
    Ok(ex.fold2(v1, v2, range, init, cond, step, result))
}

/// `@result + [elem]`, optionally guarded by `pred ? ... : @result`.
fn append_step(ex: &mut Expander, elem: Expr, pred: Option<Expr>) -> Expr {
    let a = ex.accu();
    let single = ex.list(vec![elem]);
    let add = ex.call(op::ADD, vec![a, single]);
    match pred {
        None => add,
        Some(p) => {
            let a = ex.accu();
            ex.call(op::CONDITIONAL, vec![p, add, a])
        }
    }
}

fn list_fold(ex: &mut Expander, var: Arc<str>, range: Expr, step: Expr) -> Expr {
    let init = ex.list(Vec::new());
    let cond = ex.literal(Literal::Bool(true));
    let result = ex.accu();
    ex.fold(var, range, init, cond, step, result)
}

fn expand_map(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let [var, transform] = take(args, ex.span)?;
    let (range, v) = iter_parts(target, &var, ex, MacroErrorKind::NotAnIdentifier)?;
    let step = append_step(ex, transform, None);
    Ok(list_fold(ex, v, range, step))
}

fn expand_map_filter(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let [var, pred, transform] = take(args, ex.span)?;
    let (range, v) = iter_parts(target, &var, ex, MacroErrorKind::NotAnIdentifier)?;
    let step = append_step(ex, transform, Some(pred));
    Ok(list_fold(ex, v, range, step))
}

fn expand_filter(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let [var, pred] = take(args, ex.span)?;
    let (range, v) = iter_parts(target, &var, ex, MacroErrorKind::NotAnIdentifier)?;
    let elem = ex.ident(&v);
    let step = append_step(ex, elem, Some(pred));
    Ok(list_fold(ex, v, range, step))
}

/// The function that the map-building two-variable macros call to insert an entry
/// (`cel.@mapInsert(map, key, value)` or `cel.@mapInsert(map, entryMap)`), as in cel-go.
pub const MAP_INSERT: &str = "cel.@mapInsert";

/// The two-variable comprehension macros of cel-go's `ext.TwoVarComprehensions()`:
/// `all`, `exists`, `existsOne`/`exists_one` with `(i, v, p)`, and `transformList`,
/// `transformMap`, `transformMapEntry` with `(i, v, [filter,] transform)`.
pub const TWO_VARIABLE: &[Macro] = &[
    Macro {
        name: "all",
        style: Style::Receiver,
        args: 3,
        receiver: None,
        expand: |ex, t, a| quantifier2(ex, t, a, Quantifier::All),
    },
    Macro {
        name: "exists",
        style: Style::Receiver,
        args: 3,
        receiver: None,
        expand: |ex, t, a| quantifier2(ex, t, a, Quantifier::Exists),
    },
    Macro {
        name: "existsOne",
        style: Style::Receiver,
        args: 3,
        receiver: None,
        expand: |ex, t, a| quantifier2(ex, t, a, Quantifier::ExistsOne),
    },
    Macro {
        name: "exists_one",
        style: Style::Receiver,
        args: 3,
        receiver: None,
        expand: |ex, t, a| quantifier2(ex, t, a, Quantifier::ExistsOne),
    },
    Macro {
        name: "transformList",
        style: Style::Receiver,
        args: 3,
        receiver: None,
        expand: expand_transform_list,
    },
    Macro {
        name: "transformList",
        style: Style::Receiver,
        args: 4,
        receiver: None,
        expand: expand_transform_list,
    },
    Macro {
        name: "transformMap",
        style: Style::Receiver,
        args: 3,
        receiver: None,
        expand: expand_transform_map,
    },
    Macro {
        name: "transformMap",
        style: Style::Receiver,
        args: 4,
        receiver: None,
        expand: expand_transform_map,
    },
    Macro {
        name: "transformMapEntry",
        style: Style::Receiver,
        args: 3,
        receiver: None,
        expand: expand_transform_map_entry,
    },
    Macro {
        name: "transformMapEntry",
        style: Style::Receiver,
        args: 4,
        receiver: None,
        expand: expand_transform_map_entry,
    },
];

/// The receiver and both iteration variable names of a two-variable macro, checked as
/// cel-go checks them.
fn iter_parts2(
    target: Option<Expr>,
    var1: &Expr,
    var2: &Expr,
    ex: &Expander,
) -> Result<(Expr, Arc<str>, Arc<str>), MacroError> {
    let simple = |e: &Expr| match &e.kind {
        ExprKind::Ident(name) => Ok(name.clone()),
        _ => Err(MacroError {
            kind: MacroErrorKind::NotSimpleName,
            span: e.span,
        }),
    };
    let (v1, v2) = (simple(var1)?, simple(var2)?);
    if v1 == v2 {
        return Err(MacroError {
            kind: MacroErrorKind::DuplicateVariable(v1),
            span: var2.span,
        });
    }
    for (v, e) in [(&v1, var1), (&v2, var2)] {
        if is_accumulator_name(v) {
            return Err(MacroError {
                kind: MacroErrorKind::OverwritesAccumulator,
                span: e.span,
            });
        }
    }
    let Some(target) = target else {
        return Err(MacroError {
            kind: MacroErrorKind::MissingReceiver,
            span: ex.span,
        });
    };
    Ok((target, v1, v2))
}

impl Expander {
    /// A two-variable comprehension node.
    #[allow(clippy::too_many_arguments)]
    pub fn fold2(
        &mut self,
        iter_var: Arc<str>,
        iter_var2: Arc<str>,
        iter_range: Expr,
        accu_init: Expr,
        loop_condition: Expr,
        loop_step: Expr,
        result: Expr,
    ) -> Expr {
        self.node(ExprKind::Comprehension(Box::new(Comprehension {
            iter_var,
            iter_var2: Some(iter_var2),
            iter_range,
            accu_var: ACCUMULATOR.into(),
            accu_init,
            loop_condition,
            loop_step,
            result,
        })))
    }
}

/// Splits `(v1, v2, [filter,] transform)` arguments.
fn transform_args(
    args: Vec<Expr>,
    span: Span,
) -> Result<(Expr, Expr, Option<Expr>, Expr), MacroError> {
    let mut it = args.into_iter();
    match (it.next(), it.next(), it.next(), it.next(), it.next()) {
        (Some(v1), Some(v2), Some(t), None, None) => Ok((v1, v2, None, t)),
        (Some(v1), Some(v2), Some(f), Some(t), None) => Ok((v1, v2, Some(f), t)),
        _ => Err(MacroError {
            kind: MacroErrorKind::ArgumentCount,
            span,
        }),
    }
}

/// Guards `step` with `filter ? step : @result` when there is a filter.
fn filtered(ex: &mut Expander, filter: Option<Expr>, step: Expr) -> Expr {
    match filter {
        None => step,
        Some(f) => {
            let a = ex.accu();
            ex.call(op::CONDITIONAL, vec![f, step, a])
        }
    }
}

fn expand_transform_list(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let (v1, v2, filter, transform) = transform_args(args, ex.span)?;
    let (range, v1, v2) = iter_parts2(target, &v1, &v2, ex)?;
    let a = ex.accu();
    let single = ex.list(vec![transform]);
    let step = ex.call(op::ADD, vec![a, single]);
    let step = filtered(ex, filter, step);
    let init = ex.list(Vec::new());
    let cond = ex.literal(Literal::Bool(true));
    let result = ex.accu();
    Ok(ex.fold2(v1, v2, range, init, cond, step, result))
}

fn expand_transform_map(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let (v1, v2, filter, transform) = transform_args(args, ex.span)?;
    let (range, v1, v2) = iter_parts2(target, &v1, &v2, ex)?;
    let a = ex.accu();
    let key = ex.ident(&v1);
    let step = ex.call(MAP_INSERT, vec![a, key, transform]);
    let step = filtered(ex, filter, step);
    let init = ex.node(ExprKind::Map {
        entries: Vec::new(),
    });
    let cond = ex.literal(Literal::Bool(true));
    let result = ex.accu();
    Ok(ex.fold2(v1, v2, range, init, cond, step, result))
}

fn expand_transform_map_entry(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let (v1, v2, filter, transform) = transform_args(args, ex.span)?;
    let (range, v1, v2) = iter_parts2(target, &v1, &v2, ex)?;
    let a = ex.accu();
    let step = ex.call(MAP_INSERT, vec![a, transform]);
    let step = filtered(ex, filter, step);
    let init = ex.node(ExprKind::Map {
        entries: Vec::new(),
    });
    let cond = ex.literal(Literal::Bool(true));
    let result = ex.accu();
    Ok(ex.fold2(v1, v2, range, init, cond, step, result))
}

/// The name of the iteration variable of comprehensions that never iterate (`cel.bind`,
/// `optMap`), as in cel-go.
const UNUSED_ITER_VAR: &str = "#unused";

/// The optional-type macros of cel-go's `OptionalTypes()`: `opt.optMap(v, expr)` and
/// `opt.optFlatMap(v, expr)`.
pub const OPTIONAL: &[Macro] = &[
    Macro {
        name: "optMap",
        style: Style::Receiver,
        args: 2,
        receiver: None,
        expand: |ex, t, a| expand_opt(ex, t, a, "optMap", true),
    },
    Macro {
        name: "optFlatMap",
        style: Style::Receiver,
        args: 2,
        receiver: None,
        expand: |ex, t, a| expand_opt(ex, t, a, "optFlatMap", false),
    },
];

/// The `cel.bind(name, init, expr)` macro of cel-go's `ext.Bindings()`.
pub const BIND: &[Macro] = &[Macro {
    name: "bind",
    style: Style::Receiver,
    args: 3,
    receiver: Some("cel"),
    expand: expand_bind,
}];

impl Expander {
    /// A comprehension that binds `name` to `init` and evaluates `result` once (its loop
    /// never runs).
    fn binding(&mut self, name: Arc<str>, init: Expr, result: Expr) -> Expr {
        let range = self.list(Vec::new());
        let condition = self.literal(Literal::Bool(false));
        let step = self.ident(&name);
        self.node(ExprKind::Comprehension(Box::new(Comprehension {
            iter_var: UNUSED_ITER_VAR.into(),
            iter_var2: None,
            iter_range: range,
            accu_var: name,
            accu_init: init,
            loop_condition: condition,
            loop_step: step,
            result,
        })))
    }

    /// A deep copy of `e` with fresh ids (so that no id appears twice in the tree).
    fn copy(&mut self, e: &Expr) -> Expr {
        let mut c = e.clone();
        self.renumber(&mut c);
        c
    }

    fn renumber(&mut self, e: &mut Expr) {
        e.id = self.next_id;
        self.next_id += 1;
        match &mut e.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => {}
            ExprKind::Select { operand, .. } => self.renumber(operand),
            ExprKind::Call { target, args, .. } => {
                if let Some(t) = target {
                    self.renumber(t);
                }
                args.iter_mut().for_each(|a| self.renumber(a));
            }
            ExprKind::List { elements, .. } => elements.iter_mut().for_each(|a| self.renumber(a)),
            ExprKind::Map { entries } => {
                for entry in entries {
                    entry.id = self.next_id;
                    self.next_id += 1;
                    self.renumber(&mut entry.key);
                    self.renumber(&mut entry.value);
                }
            }
            ExprKind::Struct { fields, .. } => {
                for f in fields {
                    f.id = self.next_id;
                    self.next_id += 1;
                    self.renumber(&mut f.value);
                }
            }
            ExprKind::Comprehension(c) => {
                self.renumber(&mut c.iter_range);
                self.renumber(&mut c.accu_init);
                self.renumber(&mut c.loop_condition);
                self.renumber(&mut c.loop_step);
                self.renumber(&mut c.result);
            }
        }
    }

    fn member_call(&mut self, function: &str, target: Expr) -> Expr {
        self.node(ExprKind::Call {
            target: Some(Box::new(target)),
            function: function.into(),
            args: Vec::new(),
        })
    }
}

fn simple_name(e: &Expr, kind: MacroErrorKind) -> Result<Arc<str>, MacroError> {
    match &e.kind {
        ExprKind::Ident(n) if !n.starts_with('.') => Ok(n.clone()),
        _ => Err(MacroError { kind, span: e.span }),
    }
}

/// `opt.optMap(v, e)` → `opt.hasValue() ? optional.of(bind(v, opt.value(), e)) :
/// optional.none()`; `optFlatMap` (`wrap` false) leaves the result of `e` unwrapped.
fn expand_opt(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
    name: &'static str,
    wrap: bool,
) -> Result<Expr, MacroError> {
    let [var, body] = take(args, ex.span)?;
    let var = simple_name(&var, MacroErrorKind::OptionalVariable(name))?;
    let Some(target) = target else {
        return Err(MacroError {
            kind: MacroErrorKind::OptionalReceiver(name),
            span: ex.span,
        });
    };
    let copy = ex.copy(&target);
    let value = ex.member_call("value", copy);
    let mut mapped = ex.binding(var, value, body);
    if wrap {
        mapped = ex.call("optional.of", vec![mapped]);
    }
    let has = ex.member_call("hasValue", target);
    let none = ex.call("optional.none", Vec::new());
    Ok(ex.call(op::CONDITIONAL, vec![has, mapped, none]))
}

/// `cel.bind(v, init, e)`: evaluates `e` with `v` bound to `init`.
fn expand_bind(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let _ = target;
    let [var, init, body] = take(args, ex.span)?;
    let var = simple_name(&var, MacroErrorKind::BindVariable)?;
    Ok(ex.binding(var, init, body))
}
