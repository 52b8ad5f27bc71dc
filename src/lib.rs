#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]

// pest's derive, built without its `std` feature (whose per-rule stack probing costs a
// quarter of parse time; our own depth limits make it unnecessary), refers to `alloc`.
extern crate alloc;

pub mod activation;
pub mod admission;
pub mod check;
pub mod cost;
pub mod env;
pub mod error;
mod eval;
pub mod kubernetes;
mod names;
pub mod presets;
pub mod registry;
pub mod suite;
pub mod syntax;
pub mod types;
pub mod value;

#[path = "../stdlib/mod.rs"]
pub mod stdlib;

pub use activation::{Activation, Bindings, JsonActivation};
pub use env::{Ast, Env, EvalDetails, Program, ProgramOptions};
pub use error::{EvalError, EvalResult, Issues};
pub use types::Type;
pub use value::{Key, Map, Value};
