//! kcel: the Common Expression Language (CEL) for Kubernetes work — cel-go's semantics,
//! error texts and costs, and fast.
//!
//! # Compile once, evaluate many times
//!
//! An [`Env`] declares variables and holds functions (the CEL standard library to begin
//! with). It compiles an expression into an [`Ast`] (parsed and type-checked), and the
//! `Ast` into a [`Program`] that can be evaluated many times, from many threads, against
//! any [`Activation`]: variables by name in [`Bindings`] or a map, or a shared JSON
//! document read in place with [`JsonActivation`].
//!
//! ```
//! use kcel::{Bindings, Env, ProgramOptions, Type, Value};
//!
//! let mut env = Env::new(); // the CEL standard library
//! env.declare("replicas", Type::Int);
//! let ast = env.compile("replicas > 3 ? 'many' : 'few'").unwrap();
//! assert_eq!(ast.output_type(), Some(&Type::String));
//!
//! let options = ProgramOptions::default().with_cost_limit(Some(1_000_000));
//! let program = env.program_with(&ast, options).unwrap();
//! let vars = Bindings::new().with("replicas", Value::Int(5));
//! assert_eq!(program.eval(&vars).unwrap(), Value::from("many"));
//! ```
//!
//! # Errors are values
//!
//! Compile errors are [`Issues`]: each a [`Diagnostic`] with a typed [`CompileError`] and
//! a span, displayed as cel-go displays them (source line and caret). Evaluation errors
//! are [`EvalError`]s: a kind ([`EvalErrorKind`]) and the failing node. [`report::Failure`]
//! turns either into one record with phase, line and column, as text or JSON.
//!
//! ```
//! use kcel::{Bindings, Env, EvalErrorKind, Type, Value};
//!
//! let mut env = Env::new();
//! env.declare("n", Type::Int);
//! let issues = env.compile("n + 'x'").unwrap_err();
//! assert!(issues.to_string().starts_with("ERROR: <input>:1:3: found no matching overload for '_+_'"));
//!
//! let program = env.program(&env.compile("10 / n").unwrap()).unwrap();
//! let error = program.eval(&Bindings::new().with("n", Value::Int(0))).unwrap_err();
//! assert_eq!(error.kind(), &EvalErrorKind::DivisionByZero);
//! assert_eq!(program.render_error(&error), "ERROR: <input>:1:4: division by zero\n | 10 / n\n | ...^");
//! ```
//!
//! # Costs and limits
//!
//! Evaluation is metered as cel-go meters it ([`Program::eval_with_details`] returns the
//! actual cost), stops at [`ProgramOptions::cost_limit`], and has a memory budget
//! ([`ProgramOptions::memory_limit`]) for what the cost does not bound.
//! [`Env::estimate_cost`] gives the checker's (min, max) estimate before any evaluation.
//!
//! ```
//! use kcel::{Bindings, Env, NoSizes, Type, Value};
//!
//! let mut env = Env::new();
//! env.declare("name", Type::String);
//! let ast = env.compile("name.startsWith('kube') && size(name) < 64").unwrap();
//! let estimate = env.estimate_cost(&ast, &NoSizes).unwrap();
//! assert_eq!((estimate.min, estimate.max), (2, 5));
//!
//! let program = env.program(&ast).unwrap();
//! let (value, details) = program.eval_with_details(&Bindings::new().with("name", Value::from("kubelet")));
//! assert_eq!(value.unwrap(), Value::Bool(true));
//! assert_eq!(details.actual_cost, 5);
//! ```
//!
//! # Values in and out
//!
//! [`Value`] is the one value type. Values come out as natural JSON with [`Natural`]
//! (`serde`) or [`Value::to_natural_json`]; input read from JSON or YAML is fitted to a
//! declared type with [`Env::fit`] (strings become timestamps, durations or bytes, ints
//! doubles or uints, as the declared type says).
//!
//! ```
//! use kcel::{Env, Type, Value};
//!
//! let env = Env::new();
//! let ty = Type::parse("map(string, duration)").unwrap();
//! let input = serde_json::json!({"timeout": "1.5s"});
//! let value = env.fit(Value::from(&input), &ty).unwrap();
//! assert_eq!(value.to_string(), r#"{"timeout": duration("1.5s")}"#);
//! assert_eq!(value.to_natural_json(), input);
//! ```
//!
//! # Libraries
//!
//! A library declares each function in one place ([`library::Library`]: signature,
//! implementation, runtime cost, estimate, plan-time specialisations); [`library`] is the
//! API for writing one. The cel-go extensions, the Kubernetes libraries, Kubernetes'
//! environments by version, CRD validation and admission policies are in the crate
//! `kcel-stdlib`. The repository's README is a tour of the command-line tool;
//! ARCHITECTURE.md explains the design.
#![deny(unsafe_code)]
#![deny(missing_docs)]

// pest's derive, built without its `std` feature (whose per-rule stack probing costs a
// quarter of parse time; our own depth limits make it unnecessary), refers to `alloc`.
extern crate alloc;

mod activation;
mod budget;
mod check;
mod cost;
mod env;
mod error;
mod eval;
mod fit;
pub mod library;
mod names;
mod registry;
pub mod report;
mod standard;
mod syntax;
pub mod trace;
mod types;
mod value;

pub use activation::{Activation, Bindings, JsonActivation};
pub use budget::DEFAULT_MEMORY_LIMIT;
pub use check::{StructConstructor, TypeProvider};
pub use cost::{CostEstimate, DEFAULT_CEL_COST_LIMIT, NoSizes, SizeEstimate, SizeEstimator};
pub use env::{Ast, Env, EvalDetails, Program, ProgramOptions};
pub use error::{
    CheckError, CompileError, DeclaredTypeError, Diagnostic, EvalError, EvalErrorKind, FitError,
    Issues, Location, MacroErrorKind, NumberKind, ParseError, PlanError, TextProblem,
};
pub use eval::interp::Interrupt;
pub use standard::time_zones;
pub use types::{Type, TypeSyntaxError};
pub use value::{
    EvalResult, JsonNode, Key, List, ListSemantics, Map, Natural, Opaque, Timestamp, TypeValue,
    Value, from_document,
};

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
