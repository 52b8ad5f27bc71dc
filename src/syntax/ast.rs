//! The CEL abstract syntax tree.
//!
//! Every node carries a unique [`ExprId`] and the byte [`Span`] of the source text it came
//! from. Operators are calls with cel-go's operator names (`_+_`, `_[_]`, `!_`, ...), and
//! macros have already been expanded into [`Comprehension`] nodes, so later stages (checker,
//! planner) handle a small, closed set of node kinds.

use std::sync::Arc;

/// Identifier of one node, unique within one parsed expression. Ids start at 1.
pub type ExprId = u32;

/// A half-open byte range `[start, end)` into the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// A span covering `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }
}

/// One expression node.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub id: ExprId,
    pub span: Span,
    pub kind: ExprKind,
}

/// The node kinds of CEL.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A literal constant.
    Literal(Literal),
    /// A plain identifier (possibly with a leading dot: `.x` is stored as `".x"`).
    Ident(Arc<str>),
    /// `operand.field`; with `test_only` it is the `has(operand.field)` presence test.
    Select {
        operand: Box<Expr>,
        field: Arc<str>,
        test_only: bool,
    },
    /// A function call: global (`f(x)`) when `target` is `None`, receiver style (`x.f(y)`)
    /// otherwise. Operators are calls too, named as in cel-go (`_+_`, `_&&_`, `@in`, ...).
    Call {
        target: Option<Box<Expr>>,
        function: Arc<str>,
        args: Vec<Expr>,
    },
    /// `[a, b, ?c]`; `optional_indices` lists the positions written with `?`.
    List {
        elements: Vec<Expr>,
        optional_indices: Vec<usize>,
    },
    /// `{k: v, ?k2: v2}`.
    Map { entries: Vec<MapEntry> },
    /// `Name{field: value, ?field2: value2}`: a message literal.
    Struct {
        type_name: Arc<str>,
        fields: Vec<FieldInit>,
    },
    /// The single loop primitive that all macros expand to.
    Comprehension(Box<Comprehension>),
}

/// A map literal entry.
#[derive(Debug, Clone, PartialEq)]
pub struct MapEntry {
    pub id: ExprId,
    pub key: Expr,
    pub value: Expr,
    /// Written as `?key: value`.
    pub optional: bool,
}

/// A message literal field initializer.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldInit {
    pub id: ExprId,
    pub field: Arc<str>,
    pub value: Expr,
    /// Written as `?field: value`.
    pub optional: bool,
}

/// A fold over a list or map, in cel-go's shape:
///
/// ```text
/// accu = accu_init
/// for (iter_var[, iter_var2]) in iter_range:
///     if !loop_condition: break
///     accu = loop_step
/// return result
/// ```
///
/// Over a list `iter_var` is the element (or, with `iter_var2`, the index and `iter_var2` the
/// element); over a map `iter_var` is the key (and `iter_var2` the value).
#[derive(Debug, Clone, PartialEq)]
pub struct Comprehension {
    pub iter_var: Arc<str>,
    pub iter_var2: Option<Arc<str>>,
    pub iter_range: Expr,
    pub accu_var: Arc<str>,
    pub accu_init: Expr,
    pub loop_condition: Expr,
    pub loop_step: Expr,
    pub result: Expr,
}

/// Literal constants.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(Arc<str>),
    Bytes(Arc<[u8]>),
}

/// The name of the accumulator variable that macros introduce (as in cel-go).
pub const ACCUMULATOR: &str = "@result";

/// Operator function names, as cel-go spells them.
pub mod op {
    pub const CONDITIONAL: &str = "_?_:_";
    pub const LOGICAL_AND: &str = "_&&_";
    pub const LOGICAL_OR: &str = "_||_";
    pub const LOGICAL_NOT: &str = "!_";
    pub const NOT_STRICTLY_FALSE: &str = "@not_strictly_false";
    pub const EQUALS: &str = "_==_";
    pub const NOT_EQUALS: &str = "_!=_";
    pub const LESS: &str = "_<_";
    pub const LESS_EQUALS: &str = "_<=_";
    pub const GREATER: &str = "_>_";
    pub const GREATER_EQUALS: &str = "_>=_";
    pub const ADD: &str = "_+_";
    pub const SUBTRACT: &str = "_-_";
    pub const MULTIPLY: &str = "_*_";
    pub const DIVIDE: &str = "_/_";
    pub const MODULO: &str = "_%_";
    pub const NEGATE: &str = "-_";
    pub const INDEX: &str = "_[_]";
    pub const OPT_INDEX: &str = "_[?_]";
    pub const OPT_SELECT: &str = "_?._";
    pub const IN: &str = "@in";
}

impl Expr {
    /// Calls `f` on this node and every node below it, parents before children.
    ///
    /// Iterative, so arbitrarily deep trees cannot overflow the stack.
    pub fn walk<'a>(&'a self, mut f: impl FnMut(&'a Expr)) {
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            f(e);
            e.push_children(&mut stack);
        }
    }

    /// Pushes the direct children of this node onto `out` (in reverse source order, so that
    /// popping visits them in source order).
    fn push_children<'a>(&'a self, out: &mut Vec<&'a Expr>) {
        let start = out.len();
        match &self.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => {}
            ExprKind::Select { operand, .. } => out.push(operand),
            ExprKind::Call { target, args, .. } => {
                out.extend(target.as_deref());
                out.extend(args.iter());
            }
            ExprKind::List { elements, .. } => out.extend(elements.iter()),
            ExprKind::Map { entries } => {
                for e in entries {
                    out.push(&e.key);
                    out.push(&e.value);
                }
            }
            ExprKind::Struct { fields, .. } => out.extend(fields.iter().map(|f| &f.value)),
            ExprKind::Comprehension(c) => {
                out.extend([
                    &c.iter_range,
                    &c.accu_init,
                    &c.loop_condition,
                    &c.loop_step,
                    &c.result,
                ]);
            }
        }
        out[start..].reverse();
    }

    /// Returns the largest node id in this tree.
    pub fn max_id(&self) -> ExprId {
        let mut max = 0;
        self.walk(|e| max = max.max(e.id));
        max
    }
}
