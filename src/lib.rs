#![doc = include_str!("../README.md")]
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
mod names;
pub mod registry;
pub mod standard;
pub mod syntax;
pub mod types;
pub mod value;

pub use activation::{Activation, Bindings, JsonActivation};
pub use env::{Ast, Env, EvalDetails, Program, ProgramOptions};
pub use error::{EvalError, EvalResult, Issues};
pub use types::Type;
pub use value::{Key, Map, Value};
