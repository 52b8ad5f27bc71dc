//! The memory budget of an evaluation, beside its cost budget: what library functions and
//! the interpreter consult before producing a large value, and what walks over values
//! (equality, text conversion, flattening) count their steps against.
//!
//! cel-go's costs charge most operations by the size of their inputs, so an operation whose
//! output is much larger than its inputs (`replace`, `join`, `format`, `lists.range`,
//! `flatten` of shared lists), or a walk over a value whose parts are shared (a list holding
//! the same list twice, doubled 30 times), can take far more memory or time than its cost
//! says. The budget is the safety net: Kubernetes' costs stay exactly as they are, and an
//! evaluation that would pass the budget stops with an evaluation error instead.
//!
//! Two counters, both set from [`ProgramOptions::memory_limit`](crate::ProgramOptions):
//!
//! - **bytes** ([`reserve`]): the bytes of the values an evaluation produces through the
//!   operations that allocate in proportion to their output (strings built by `+`,
//!   `replace`, `join`, `format`, base64 and regex replacement; lists built by literals,
//!   `+`, `map`/`filter`, `lists.range`, `flatten`, `distinct`, `sort`; maps built by
//!   literals and comprehensions), counted cumulatively, each before it is allocated
//!   ([`VALUE_BYTES`] per list element or map entry, one byte per byte of text). Being
//!   cumulative, the count bounds the evaluation's peak memory from above.
//! - **visits** ([`visit`]): the elements that walks over values visit (equality of lists
//!   and maps, `%s` of `format`, `flatten`), at most the memory limit divided by
//!   [`BYTES_PER_VISIT`]. A walk past it stops, and the evaluation ends with
//!   [`TRAVERSAL_EXCEEDED`].
//!
//! Passing either is not absorbed by `||`, `&&` or `?:`: like the cost limit, it ends the
//! evaluation ([`Program::eval`](crate::Program::eval) reports it whatever the expression
//! made of the failing operation's result).
//!
//! The counters live in a thread-local for the duration of one evaluation
//! (`Program::eval` installs them, and restores the enclosing evaluation's on return, so an
//! evaluation nested in another — a lazily computed admission variable — has budgets of its
//! own). A parameter would be more explicit, but the places that must count include
//! `Value`'s own equality (`cel_eq`, reached from `==`, `in`, `distinct`, the sets library
//! and Kubernetes' list types) and function implementations whose signatures
//! (`fn(&Value) -> EvalResult`, embedders' closures) are public: neither can see the
//! evaluation. Outside an evaluation nothing is counted and nothing fails.

use std::cell::Cell;

use crate::error::{EvalError, EvalErrorKind};

/// The default memory limit of a program: 64 MiB.
pub const DEFAULT_MEMORY_LIMIT: u64 = 64 << 20;

/// The error of an evaluation that would produce more than its memory limit.
pub const MEMORY_EXCEEDED: &str = crate::error::MEMORY_LIMIT_EXCEEDED;

/// The error of an evaluation whose walks over values visit more elements than its memory
/// limit allows (the limit divided by [`BYTES_PER_VISIT`]).
pub const TRAVERSAL_EXCEEDED: &str = crate::error::TRAVERSAL_LIMIT_EXCEEDED;

/// The bytes one visited element stands for in the visit budget.
pub const BYTES_PER_VISIT: u64 = 8;

/// The bytes counted per list element or map entry produced: the size of a `Value` on a
/// 64-bit target (a constant, so that every target counts alike; `value.rs` asserts it).
pub const VALUE_BYTES: u64 = 24;

// A word, so that a meter is three words with no padding to copy.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
enum Exceeded {
    No,
    Memory,
    Traversal,
}

#[derive(Clone, Copy)]
struct Meter {
    bytes_left: u64,
    visits_left: u64,
    exceeded: Exceeded,
}

impl Meter {
    const UNLIMITED: Meter = Meter {
        bytes_left: u64::MAX,
        visits_left: u64::MAX,
        exceeded: Exceeded::No,
    };
}

thread_local! {
    static METER: Cell<Meter> = const { Cell::new(Meter::UNLIMITED) };
}

/// Counts `bytes` about to be produced; fails (and ends the evaluation) when they would
/// pass the memory limit. Call it before allocating.
#[inline]
pub fn reserve(bytes: u64) -> Result<(), EvalError> {
    METER.with(|m| {
        let mut meter = m.get();
        if bytes <= meter.bytes_left && meter.exceeded == Exceeded::No {
            // `u64::MAX` left is no limit: nothing is counted.
            if meter.bytes_left == u64::MAX {
                return Ok(());
            }
            meter.bytes_left -= bytes;
            m.set(meter);
            return Ok(());
        }
        if meter.exceeded == Exceeded::No {
            meter.exceeded = Exceeded::Memory;
            m.set(meter);
        }
        Err(error(meter.exceeded))
    })
}

/// [`reserve`] for `n` list elements or map entries.
#[inline]
pub fn reserve_values(n: usize) -> Result<(), EvalError> {
    reserve((n as u64).saturating_mul(VALUE_BYTES))
}

/// The bytes left in the budget (`u64::MAX` outside an evaluation), for operations that
/// build their output piece by piece: they stop once it grows past this, then
/// [`reserve`] what they built.
#[inline]
pub fn bytes_left() -> u64 {
    METER.with(|m| {
        let meter = m.get();
        if meter.exceeded == Exceeded::No {
            meter.bytes_left
        } else {
            0
        }
    })
}

/// Fails when the evaluation's budget has already run out: for operations that do work in
/// proportion to their input before they know the size of their output (and then
/// [`reserve`] it), so that a loop calling them after the budget ran out stops cheaply.
#[inline]
pub fn check() -> Result<(), EvalError> {
    reserve(0)
}

/// Whether `error` is one of the budget's (which end the evaluation whatever absorbs
/// them): loops stop at it rather than run on.
pub fn is_exceeded(error: &EvalError) -> bool {
    matches!(
        error.kind(),
        EvalErrorKind::MemoryLimitExceeded | EvalErrorKind::TraversalLimitExceeded
    )
}

/// Fails as [`reserve`] would when `bytes` would pass what is left, without counting
/// them: for output built piece by piece, checked as it grows and [`reserve`]d when done.
#[inline]
pub fn within(bytes: u64) -> Result<(), EvalError> {
    if bytes <= bytes_left() {
        Ok(())
    } else {
        reserve(bytes)
    }
}

/// Counts `n` elements a walk over a value is about to visit; `false` when that passes
/// the visit budget (or the evaluation's budget was already passed): the walk should
/// then stop at once with any answer, as the evaluation fails with [`TRAVERSAL_EXCEEDED`].
#[inline]
pub fn visit(n: usize) -> bool {
    METER.with(|m| {
        let mut meter = m.get();
        let n = n as u64;
        if n <= meter.visits_left && meter.exceeded == Exceeded::No {
            if meter.visits_left == u64::MAX {
                return true;
            }
            meter.visits_left -= n;
            m.set(meter);
            return true;
        }
        if meter.exceeded == Exceeded::No {
            meter.exceeded = Exceeded::Traversal;
            m.set(meter);
        }
        false
    })
}

/// The error of a walk that [`visit`] stopped (or of the budget passed before it).
pub fn traversal_error() -> EvalError {
    METER.with(|m| match m.get().exceeded {
        Exceeded::Memory => error(Exceeded::Memory),
        _ => error(Exceeded::Traversal),
    })
}

#[cold]
#[inline(never)]
fn exceeded_error(exceeded: Exceeded) -> EvalError {
    error(exceeded)
}

fn error(exceeded: Exceeded) -> EvalError {
    EvalError::from(match exceeded {
        Exceeded::Memory => EvalErrorKind::MemoryLimitExceeded,
        _ => EvalErrorKind::TraversalLimitExceeded,
    })
}

/// The budgets of one evaluation, installed until dropped (the enclosing ones restored).
pub(crate) struct Scope {
    saved: Meter,
}

impl Scope {
    /// Installs budgets for a memory limit (`None`: unlimited).
    #[inline]
    pub(crate) fn enter(limit: Option<u64>) -> Scope {
        let meter = match limit {
            None => Meter::UNLIMITED,
            Some(bytes) => Meter {
                bytes_left: bytes,
                visits_left: bytes / BYTES_PER_VISIT,
                exceeded: Exceeded::No,
            },
        };
        Scope {
            saved: METER.with(|m| m.replace(meter)),
        }
    }

    /// Ends the evaluation's budgets (the enclosing ones restored): the error of a budget
    /// passed during it, if any.
    #[inline]
    pub(crate) fn finish(self) -> Option<EvalError> {
        let ended = METER.with(|m| m.replace(self.saved));
        std::mem::forget(self);
        if ended.exceeded == Exceeded::No {
            None
        } else {
            Some(exceeded_error(ended.exceeded))
        }
    }
}

impl Drop for Scope {
    /// Restores the enclosing budgets when an evaluation unwinds without
    /// [`Scope::finish`].
    fn drop(&mut self) {
        METER.with(|m| m.set(self.saved));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_counted_outside_an_evaluation() {
        assert!(reserve(u64::MAX).is_ok());
        assert!(visit(usize::MAX));
        assert_eq!(bytes_left(), u64::MAX);
    }

    #[test]
    fn budgets_stop_and_stay_stopped_and_nest() {
        let outer = Scope::enter(Some(100));
        assert!(reserve(60).is_ok());
        let inner = Scope::enter(Some(10));
        assert_eq!(
            reserve(11).unwrap_err().kind(),
            &EvalErrorKind::MemoryLimitExceeded
        );
        assert_eq!(
            inner.finish().unwrap().kind(),
            &EvalErrorKind::MemoryLimitExceeded
        );
        assert_eq!(bytes_left(), 40);
        {
            // Unwinding without `finish` restores the enclosing budgets too.
            let _dropped = Scope::enter(Some(1));
        }
        assert_eq!(bytes_left(), 40);
        assert!(visit(12));
        assert!(!visit(1));
        assert_eq!(
            reserve(1).unwrap_err().kind(),
            &EvalErrorKind::TraversalLimitExceeded
        );
        assert_eq!(
            outer.finish().unwrap().kind(),
            &EvalErrorKind::TraversalLimitExceeded
        );
        assert!(reserve(u64::MAX).is_ok());
    }
}
