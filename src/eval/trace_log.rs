//! The evaluation trace's records (see [`crate::trace`]): a traced program's nodes
//! ([`crate::eval::node::TracedNode`]) record their steps in the frame's [`TraceLog`].

use crate::error::EvalError;
use crate::syntax::ast::ExprId;
use crate::value::Value;

/// One evaluation of one expression node.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceStep {
    /// The expression node (its source span: [`crate::Program::span`]).
    pub id: ExprId,
    /// How many traced steps enclose this one: a step's sub-steps follow it with a greater
    /// depth, in evaluation order.
    pub depth: u32,
    /// What the node evaluated to.
    pub result: Result<Value, EvalError>,
    /// The cost charged while evaluating it, its sub-steps included.
    pub cost: u64,
}

/// The steps recorded so far in one traced evaluation.
#[derive(Debug, Default)]
pub(crate) struct TraceLog {
    pub steps: Vec<TraceStep>,
    /// How many traced nodes are being evaluated around the current one.
    pub depth: u32,
    /// Record at most this many steps; later ones are counted in `dropped` only.
    pub max_steps: usize,
    pub dropped: u64,
}
