//! What an evaluation gives, in a form tests compare: shared by the tests that check an
//! evaluation shortcut against the evaluation it replaces.

/// The outcome of `program` over `activation`: the value, or the error with the span of
/// the node it names; and the actual cost.
pub fn outcome(program: &kcel::Program, activation: &dyn kcel::Activation) -> (String, u64) {
    let (result, details) = program.eval_with_details(activation);
    let shown = match result {
        Ok(v) => format!("{v:?}"),
        Err(e) => format!("{} at {:?}", e, e.node().and_then(|n| program.span(n))),
    };
    (shown, details.actual_cost)
}
