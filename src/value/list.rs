//! CEL lists: the items, and for a Kubernetes list type (`x-kubernetes-list-type: set` or
//! `map`) the semantics of `==` and `+`.
//!
//! The semantics travel with the value: a set list read from a schema keeps them through
//! variables, fields, optionals and comprehension results that return it unchanged, and
//! `+` with it on the left gives a list with the same semantics. Every other operation
//! treats it as an ordinary list (its results are plain lists).

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use super::Value;
use crate::error::EvalError;

/// The payload of a [`Value::List`]. Plain lists have no `semantics`; reading the items
/// costs what reading a `Vec` behind an `Arc` costs.
#[derive(Clone, Default)]
pub struct List {
    /// The elements.
    pub items: Vec<Value>,
    /// How `==` and `+` behave when this list is the left operand (`None`: ordered
    /// element-wise equality and concatenation).
    pub semantics: Option<Arc<dyn ListSemantics>>,
}

/// The semantics of a typed list, applied when it is the left operand of `==` or `+`.
/// Errors are evaluation errors (Kubernetes': `listSet operations are only supported on
/// lists of scalar values`).
pub trait ListSemantics: Send + Sync + fmt::Debug {
    /// `left == right`.
    fn equals(&self, left: &[Value], right: &[Value]) -> Result<bool, EvalError>;
    /// `left + right`; the result keeps these semantics.
    fn concat(&self, left: &[Value], right: &[Value]) -> Result<Vec<Value>, EvalError>;
    /// The error of `list[index]` outside a list of `len` items. Default: cel-go's
    /// `index 'i' out of range in list size 'n'` (Kubernetes' unstructured lists say
    /// `index out of bounds: i`).
    fn index_out_of_range(&self, index: i64, len: usize) -> EvalError {
        EvalError::index_out_of_range(index, len)
    }
}

impl List {
    /// A list with the semantics of a list type.
    pub fn with_semantics(items: Vec<Value>, semantics: Arc<dyn ListSemantics>) -> List {
        List {
            items,
            semantics: Some(semantics),
        }
    }

    /// The error of `self[index]` when `index` lies outside the list (see
    /// [`ListSemantics::index_out_of_range`]).
    pub fn index_error(&self, index: i64) -> EvalError {
        match &self.semantics {
            Some(semantics) => semantics.index_out_of_range(index, self.items.len()),
            None => EvalError::index_out_of_range(index, self.items.len()),
        }
    }

    /// `self == other` as the left operand: element-wise, or under the list's semantics.
    #[inline]
    pub fn equals(&self, other: &[Value]) -> Result<bool, EvalError> {
        match &self.semantics {
            Some(semantics) => semantics.equals(&self.items, other),
            None => Ok(self.items.len() == other.len()
                && crate::budget::visit(other.len())
                && self.items.iter().zip(other).all(|(x, y)| x.cel_eq(y))),
        }
    }
}

impl Deref for List {
    type Target = Vec<Value>;

    #[inline]
    fn deref(&self) -> &Vec<Value> {
        &self.items
    }
}

impl From<Vec<Value>> for List {
    #[inline]
    fn from(items: Vec<Value>) -> List {
        List {
            items,
            semantics: None,
        }
    }
}

impl FromIterator<Value> for List {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> List {
        List::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl fmt::Debug for List {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        list.entries(self.items.iter());
        list.finish()?;
        if let Some(semantics) = &self.semantics {
            write!(f, " ({semantics:?})")?;
        }
        Ok(())
    }
}
