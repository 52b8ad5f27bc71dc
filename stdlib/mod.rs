//! Function declarations and implementations: the CEL standard library, cel-go extensions and
//! the Kubernetes libraries ([`kubernetes`]). Compiled into the engine crate as `kcel::stdlib`.

pub mod catalog;
pub mod comprehensions;
pub mod ext;
pub mod kubernetes;
pub mod optional;
pub mod standard;

use crate::registry::Library;

/// The CEL standard library (operators, conversions, strings, time, collections).
pub fn standard() -> Library {
    standard::library()
}
