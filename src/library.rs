//! The API for writing CEL libraries: what a library declares ([`Library`], [`Function`],
//! [`Overload`]; see [`Library::function`]), how its calls are priced ([`CallCost`] at run
//! time, from which the checker's estimate derives unless an estimate function is declared
//! too), the structure of its calls the engine relies on ([`CallShape`]), what it may
//! specialise when a program is planned ([`Specialization`], [`SpecializeFn`]), the memory budget its
//! implementations consult before building large values ([`budget`]), the syntax its macros
//! and validators work on ([`syntax`]), and the parts of the CEL standard library that other
//! libraries reuse ([`standard`]).
//!
//! A library is a value: build it once and add it to as many environments as need it.
//! Overloads are declared one at a time ([`FunctionBuilder::global`],
//! [`FunctionBuilder::member`], each followed by its cost, estimate, shape or specialisation
//! where it has one: the cost is 1 unless declared) or as a table, one line per overload ([`overloads!`]).
//! What a library declared is read back, not changed, through [`Function`] and
//! [`Overload`].
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
//! let twice = &lib.functions()[0];
//! assert_eq!(twice.overloads()[0].signature(twice.name()), "twice(int) -> int");
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
    CallShape, ConstantRejected, Function, FunctionBuilder, Implementation, Library, Overload,
    Registry, SharedFn, Specialization, SpecializeFn, StringTest, TimeKernel, Validator,
    is_internal_name,
};
pub use crate::value::{EqualitySet, equality_hash};

/// Declares a function's overloads as a table, one line per overload:
/// `global "id" ("param", ...) -> "result" => implementation;` or the same with `member`
/// (the receiver's type first), types as [`Type::parse`](crate::Type::parse) reads them.
/// The first argument is the [`FunctionBuilder`] (from [`Library::function`]); the value is
/// the builder, for `.examples(...)` or more overloads. Each line is the builder's
/// [`FunctionBuilder::global`] or [`FunctionBuilder::member`] call.
///
/// What the builder sets on the overload declared last goes after the implementation, as
/// `, setting: value` pairs named by the builder's methods: `cost:`
/// ([`FunctionBuilder::cost`]), `estimate:` ([`FunctionBuilder::estimate`]), `shape:`
/// ([`FunctionBuilder::shape`]), `specialize:`
/// ([`FunctionBuilder::specialize`]) and `specialization:`
/// ([`FunctionBuilder::specialization`]).
///
/// ```
/// use kcel::library::{CallCost, Implementation, Library, overloads};
/// use kcel::{EvalError, Value};
///
/// fn half(v: &Value) -> Result<Value, EvalError> {
///     match v {
///         Value::Int(n) => Ok(Value::Int(n / 2)),
///         Value::Double(d) => Ok(Value::Double(d / 2.0)),
///         _ => Err(EvalError::no_such_overload()),
///     }
/// }
///
/// let mut lib = Library::new("example.half", 1);
/// overloads!(lib.function("half", "Half a number.");
///     global "half_int" ("int") -> "int" => Implementation::Unary(half);
///     global "half_double" ("double") -> "double" => Implementation::Unary(half);
///     member "int_half" ("int") -> "int" => Implementation::Unary(half),
///         cost: CallCost::Fixed(2);
/// )
/// .examples(&["half(5) == 2", "half(3.0) == 1.5", "(8).half() == 4"]);
/// let half = &lib.functions()[0];
/// assert_eq!(half.overloads().len(), 3);
/// assert_eq!(half.overloads()[2].signature(half.name()), "int.half() -> int");
/// assert!(matches!(half.overloads()[2].call_cost(), CallCost::Fixed(2)));
/// ```
pub use crate::__overloads as overloads;

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
