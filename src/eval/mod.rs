//! From AST to value: the planner ([`plan`]) and the interpreter ([`interp`]).

pub(crate) mod interp;
pub(crate) mod plan;
