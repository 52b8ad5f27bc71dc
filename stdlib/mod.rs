//! Function declarations and implementations: the CEL standard library, cel-go extensions and
//! (later) the Kubernetes libraries. Compiled into the engine crate as `kcel::stdlib`.

use crate::registry::Library;

/// The CEL standard library (operators, conversions, strings, time, collections).
pub fn standard() -> Library {
    Library::new("cel.stdlib", 0)
}
