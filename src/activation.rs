//! Activations: where a program's variables get their values for one evaluation.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::error::EvalError;
use crate::value::{JsonNode, Value, str_eq};

/// Supplies variable values by name. Each variable a program reads is resolved once per
/// evaluation.
pub trait Activation {
    /// The value of a variable, or `None` when it is not bound.
    fn resolve(&self, name: &str) -> Option<Value>;

    /// Like [`Activation::resolve`], but a bound variable may fail to compute (lazily
    /// evaluated variables); the error surfaces where the program reads the variable.
    fn try_resolve(&self, name: &str) -> Option<Result<Value, EvalError>> {
        self.resolve(name).map(Ok)
    }

    /// The value of a variable by reference, for activations that hold their values:
    /// evaluation then reads it in place instead of copying it (`None`, the default, means
    /// [`Activation::try_resolve`] is asked).
    fn resolve_ref(&self, _name: &str) -> Option<&Value> {
        None
    }

    /// The JSON object whose fields are this activation's variables, for activations that
    /// hold one ([`JsonActivation`]): evaluation then reads a variable from it in place,
    /// without a reference count of its own, and asks [`Activation::resolve_ref`] and
    /// [`Activation::try_resolve`] only for names the object does not have. `None`, the
    /// default, for other activations.
    fn json_variables(&self) -> Option<&JsonNode> {
        None
    }
}

impl Activation for HashMap<String, Value> {
    fn resolve(&self, name: &str) -> Option<Value> {
        self.get(name).cloned()
    }

    fn resolve_ref(&self, name: &str) -> Option<&Value> {
        self.get(name)
    }
}

impl Activation for BTreeMap<String, Value> {
    fn resolve(&self, name: &str) -> Option<Value> {
        self.get(name).cloned()
    }

    fn resolve_ref(&self, name: &str) -> Option<&Value> {
        self.get(name)
    }
}

impl Activation for () {
    fn resolve(&self, _: &str) -> Option<Value> {
        None
    }
}

/// A JSON object whose top-level keys are the variables, read in place: binding it copies
/// nothing, and evaluation converts only what the program reads (see [`Value::Json`]).
#[derive(Clone, Debug)]
pub struct JsonActivation {
    root: Value,
}

impl JsonActivation {
    /// Binds the keys of a JSON object (any other JSON binds nothing).
    pub fn new(json: Arc<serde_json::Value>) -> JsonActivation {
        JsonActivation {
            root: Value::from_shared_json(json),
        }
    }
}

impl Activation for JsonActivation {
    fn resolve(&self, name: &str) -> Option<Value> {
        match &self.root {
            Value::Json(j) => j.field(name),
            _ => None,
        }
    }

    fn json_variables(&self) -> Option<&JsonNode> {
        match &self.root {
            Value::Json(j) => Some(j),
            _ => None,
        }
    }
}

/// A JSON object used as an activation: each top-level key is a variable, converted when
/// the program reads it ([`JsonActivation`] reads in place instead).
impl Activation for serde_json::Map<String, serde_json::Value> {
    fn resolve(&self, name: &str) -> Option<Value> {
        self.get(name).map(Value::from)
    }
}

/// A small set of named values, looked up by comparing names: for the handful of variables
/// a Kubernetes expression has (`self`, `oldSelf`, `object`, `params`, ...), cheaper to
/// resolve than a hash map, which hashes the name on every evaluation.
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    entries: Vec<(Box<str>, Value)>,
}

impl Bindings {
    /// No variables.
    pub fn new() -> Bindings {
        Bindings::default()
    }

    /// Binds `name` to `value`, replacing an earlier binding of the name.
    pub fn bind(&mut self, name: &str, value: impl Into<Value>) -> &mut Bindings {
        let value = value.into();
        match self.entries.iter_mut().find(|(n, _)| **n == *name) {
            Some((_, v)) => *v = value,
            None => self.entries.push((name.into(), value)),
        }
        self
    }

    /// [`Bindings::bind`] by value, for building in one expression.
    pub fn with(mut self, name: &str, value: impl Into<Value>) -> Bindings {
        self.bind(name, value);
        self
    }
}

impl Activation for Bindings {
    fn resolve(&self, name: &str) -> Option<Value> {
        self.resolve_ref(name).cloned()
    }

    fn resolve_ref(&self, name: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(n, _)| str_eq(n, name))
            .map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_resolve_the_latest_value_of_a_name() {
        let mut b = Bindings::new().with("self", 1i64).with("oldSelf", 2i64);
        b.bind("self", 3i64);
        assert_eq!(b.resolve("self"), Some(Value::Int(3)));
        assert_eq!(b.resolve("oldSelf"), Some(Value::Int(2)));
        assert_eq!(b.resolve("params"), None);
    }
}
