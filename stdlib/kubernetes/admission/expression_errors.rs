//! The errors of compiling a policy's expressions, in the API server's words (the errors of
//! a policy's fields are `FieldError`s; an admission decision's are `Status` values).

use kcel::Issues;

/// Why a policy's expression has no program, in the API server's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpressionError {
    /// The expression does not parse, type-check or plan.
    #[error("compilation failed: {0}")]
    Compile(Issues),
    /// The expression's type is not the one its field needs (cel-go's `IsExactType`).
    #[error("must evaluate to {expected} but got {found}")]
    OutputType {
        /// The type(s) the field needs, as Kubernetes lists them (`bool`, `string`,
        /// `one of [string null_type]`).
        expected: &'static str,
        /// The expression's type, as cel-go names it.
        found: String,
    },
}
