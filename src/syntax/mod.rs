//! Source text to AST: the pest grammar, literal decoding, and macro expansion.

pub mod ast;
pub mod literal;
pub mod macro_docs;
pub mod macros;
pub mod parser;

pub use parser::{ParseOptions, parse};
