//! The evaluation trace's run-time half (see [`crate::trace`]): [`Node::Traced`] wraps
//! every node planned from an expression node in a traced program, and evaluating it
//! records the node's id, nesting depth, result and the cost it charged in the frame's
//! [`TraceLog`].

use crate::eval::interp::{Frame, eval};
use crate::eval::node::Node;
use crate::syntax::ast::ExprId;
use crate::trace::TraceStep;
use crate::value::EvalResult;

/// See [`Node::Traced`].
#[derive(Debug)]
pub(crate) struct TracedNode {
    pub id: ExprId,
    pub node: Node,
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

/// Wraps a planned node for tracing. Constants are left as they are: they have nothing to
/// explain, and the planner folds and recognises them by kind (cel-go's constant folding
/// changes costs, so it must see through nothing).
pub(crate) fn wrap(id: ExprId, node: Node) -> Node {
    match node {
        Node::Const(_) => node,
        node => Node::Traced(Box::new(TracedNode { id, node })),
    }
}

/// Evaluates a traced node, recording its step (in evaluation order: a node before the
/// nodes evaluated within it).
pub(crate) fn traced(t: &TracedNode, frame: &mut Frame) -> EvalResult {
    let Some(log) = frame.trace.as_mut() else {
        return eval(&t.node, frame);
    };
    let index = (log.steps.len() < log.max_steps).then(|| {
        log.steps.push(TraceStep {
            id: t.id,
            depth: log.depth,
            result: Ok(crate::Value::Null),
            cost: 0,
        });
        log.steps.len() - 1
    });
    if index.is_none() {
        log.dropped += 1;
    }
    log.depth += 1;
    let before = frame.cost;
    let result = eval(&t.node, frame);
    if let Some(log) = frame.trace.as_mut() {
        log.depth -= 1;
        if let Some(step) = index.and_then(|i| log.steps.get_mut(i)) {
            step.result = result.clone();
            step.cost = frame.cost.saturating_sub(before);
        }
    }
    result
}
