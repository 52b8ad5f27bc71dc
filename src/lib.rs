//! kcel: the Common Expression Language (CEL) for Kubernetes work — cel-go's semantics,
//! error texts and costs, and fast.
//!
//! An [`Env`] declares variables and holds functions; it compiles an expression into an
//! [`Ast`] (parsed and type-checked), and the `Ast` into a [`Program`] that can be evaluated
//! many times, from many threads, against any [`Activation`] (variables by name:
//! [`Bindings`], maps, or a shared JSON document read in place with [`JsonActivation`]):
//!
//! ```
//! use kcel::{Bindings, Env, ProgramOptions, Type, Value};
//!
//! let mut env = Env::new(); // the CEL standard library
//! env.declare("replicas", Type::Int);
//! let ast = env.compile("replicas > 3 ? 'many' : 'few'").unwrap();
//! let options = ProgramOptions { cost_limit: Some(1_000_000), ..Default::default() };
//! let program = env.program_with(&ast, options).unwrap();
//! let vars = Bindings::new().with("replicas", Value::Int(5));
//! assert_eq!(program.eval(&vars).unwrap(), Value::from("many"));
//! ```
//!
//! Errors are values: compile errors are [`Issues`] (rendered as cel-go renders them, with
//! the source line and a caret), evaluation errors [`EvalError`]s with the failing node;
//! [`report::Failure`] turns either into a record with phase, line and column. Values come
//! out as natural JSON with [`value::Natural`]; input read from JSON or YAML is fitted to
//! declared types with [`Env::fit`].
//!
//! Libraries are declared in one place per function ([`registry::Library`]: signature,
//! implementation, runtime cost, estimate). The CEL standard library is [`standard`]; the
//! cel-go extensions, the Kubernetes libraries, Kubernetes' environments by version, CRD
//! validation and admission policies are in the crate `kcel-stdlib`. The repository's
//! README is a tour of the command-line tool; ARCHITECTURE.md explains the design.
#![deny(unsafe_code)]

// pest's derive, built without its `std` feature (whose per-rule stack probing costs a
// quarter of parse time; our own depth limits make it unnecessary), refers to `alloc`.
extern crate alloc;

pub mod activation;
pub mod budget;
pub mod check;
pub mod cost;
pub mod env;
pub mod error;
mod eval;
mod fit;
mod names;
pub mod registry;
pub mod report;
pub mod standard;
pub mod syntax;
pub mod trace;
pub mod types;
pub mod value;

pub use activation::{Activation, Bindings, JsonActivation};
pub use env::{Ast, Env, EvalDetails, Program, ProgramOptions};
pub use error::{EvalError, EvalErrorKind, EvalResult, Issues};
pub use types::Type;
pub use value::{Key, Map, Value};

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
