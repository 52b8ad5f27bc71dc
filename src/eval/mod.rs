//! From AST to value: the planner ([`plan`]) and the interpreter ([`interp`]).

pub(crate) mod inline;
pub(crate) mod interp;
pub(crate) mod node;
pub(crate) mod operand;
pub(crate) mod plan;
pub(crate) mod shared_paths;
pub(crate) mod slot;
pub(crate) mod time_tree;
pub(crate) mod trace_log;
