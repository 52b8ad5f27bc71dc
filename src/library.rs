//! The API for writing CEL libraries: what a library declares ([`Library`], [`Function`],
//! [`Overload`]; see [`Library::function`]), how its calls are priced ([`CallCost`] at run
//! time, an estimate function for the checker's estimate), what it may specialise when a
//! program is planned ([`Specialization`], [`SpecializeFn`]), the memory budget its
//! implementations consult before building large values ([`budget`]), the syntax its macros
//! and validators work on ([`syntax`]), and the parts of the CEL standard library that other
//! libraries reuse ([`standard`]).
//!
//! A library is a value: build it once and add it to as many environments as need it.
//!
//! ```
//! use kcel::library::{Implementation, Library};
//! use kcel::{Env, EvalError, Type, Value};
//!
//! fn twice(v: &Value) -> Result<Value, EvalError> {
//!     match v {
//!         Value::Int(n) => n.checked_mul(2).map(Value::Int).ok_or_else(|| EvalError::new("int overflow")),
//!         _ => Err(EvalError::new("no such overload")),
//!     }
//! }
//!
//! let mut lib = Library::new("example.twice", 1);
//! lib.function("twice", "Twice an int.")
//!     .global("twice_int", &["int"], "int", Implementation::Unary(twice))
//!     .examples(&["twice(21) == 42"]);
//!
//! let mut env = Env::new();
//! env.add_library(&lib);
//! let ast = env.compile("twice(21)").unwrap();
//! assert_eq!(ast.output_type(), Some(&Type::Int));
//! let program = env.program(&ast).unwrap();
//! assert_eq!(program.eval(&kcel::Bindings::new()).unwrap(), Value::Int(42));
//! ```

pub use crate::check::{Checked, Reference};
pub use crate::cost::{
    AstNode, CallCost, CallEstimate, CallEstimateFn, CostEstimate, EstimateArgs, EstimateFn,
    LIMIT_EXCEEDED, LIST_CREATE, MAP_CREATE, NoSizes, REGEX_STRING_LENGTH_FACTOR, SELECT_AND_IDENT,
    STRING_TRAVERSAL_FACTOR, STRUCT_CREATE, SizeEstimate, SizeEstimator, WithCallEstimates,
    actual_size,
};
pub use crate::registry::{
    ConstantRejected, Function, FunctionBuilder, Implementation, Library, Overload, Registry,
    SharedFn, Specialization, SpecializeFn, StringTest, TimeKernel, Validator, is_internal_name,
};
pub use crate::value::{EqualitySet, equality_hash};

/// The memory budget of an evaluation (beside its cost limit), which implementations
/// consult before producing a value larger than their inputs: [`budget::reserve`] the
/// bytes about to be produced, [`budget::visit`] the elements a walk over a value visits.
/// Outside an evaluation nothing is counted and nothing fails.
pub mod budget {
    pub use crate::budget::{
        BYTES_PER_VISIT, DEFAULT_MEMORY_LIMIT, MEMORY_EXCEEDED, TRAVERSAL_EXCEEDED, VALUE_BYTES,
        bytes_left, check, is_exceeded, reserve, reserve_values, traversal_error, visit, within,
    };
    pub use crate::value::text_exceeds;
}

/// The syntax tree that macros build and validators read, the macro tables, and the
/// parser on its own (for tools that read CEL without an environment).
pub mod syntax {
    pub use crate::error::MacroErrorKind;
    pub use crate::syntax::ast::{
        ACCUMULATOR, Comprehension, Expr, ExprId, ExprKind, FieldInit, LEGACY_ACCUMULATOR, Literal,
        MapEntry, NodeMap, Span, is_accumulator_name, op,
    };
    pub use crate::syntax::macro_docs::{self, MacroDoc};
    pub use crate::syntax::macros::{
        BIND, ExpandFn, Expander, MAP_INSERT, Macro, MacroError, OPTIONAL, STANDARD, Style,
        TWO_VARIABLE,
    };
    pub use crate::syntax::parser::{ParseOptions, RESERVED, parse};
}

/// The parts of the CEL standard library that other libraries build on: the library
/// itself, implementations they reuse, and Go's text forms of values, durations and
/// timestamps.
pub mod standard {
    pub use crate::standard::arithmetic::{add_double, add_int64, add_list, add_uint64};
    pub use crate::standard::collections::{index_list, index_map, map_insert};
    pub use crate::standard::conversions::format_double;
    pub use crate::standard::logic::equals;
    pub use crate::standard::strings::compile_regex;
    pub use crate::standard::time::add_duration_duration;
    pub use crate::standard::{duration_text, go_display, go_quote, library, re2, timestamp_text};
}
