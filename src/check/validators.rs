//! Compile-time checks of constant arguments (cel-go's `ExtendedValidations`, enabled by
//! Kubernetes since 1.29): `duration('...')` and `timestamp('...')` literals must convert,
//! and `matches` patterns must compile. Errors read `invalid <function> argument`, at the
//! literal, as in cel-go.

use std::sync::Arc;

use regex::Regex;

use crate::error::{CheckError, Diagnostic};
use crate::standard::conversions::{to_duration, to_timestamp};
use crate::standard::strings::compile_regex;
use crate::syntax::ast::{Expr, ExprKind, Literal};
use crate::value::Value;

/// Reports every constant argument of `duration`, `timestamp` and `matches` that would fail
/// at run time. The `matches` patterns that compile are added to `regexes` (by pattern),
/// for the planner.
pub(crate) fn validate_literals(
    expr: &Expr,
    regexes: &mut Vec<(Arc<str>, Regex)>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    expr.walk(|e| {
        let ExprKind::Call { function, args, .. } = &e.kind else {
            return;
        };
        // cel-go checks argument 0 of the call (for receiver calls, the first argument after
        // the receiver).
        let Some(
            arg @ Expr {
                kind: ExprKind::Literal(lit),
                ..
            },
        ) = args.first()
        else {
            return;
        };
        let ok = match (&**function, lit) {
            ("duration", Literal::String(s)) => to_duration(&Value::String(s.clone())).is_ok(),
            ("timestamp", Literal::String(s)) => to_timestamp(&Value::String(s.clone())).is_ok(),
            ("timestamp", Literal::Int(i)) => to_timestamp(&Value::Int(*i)).is_ok(),
            ("matches", Literal::String(p)) => {
                regexes.iter().any(|(known, _)| known == p)
                    || compile_regex(p)
                        .map(|r| regexes.push((p.clone(), r)))
                        .is_ok()
            }
            _ => true,
        };
        if !ok {
            out.push(Diagnostic::new(
                arg.span,
                CheckError::InvalidArgument(function.to_string()),
            ));
        }
    });
    out
}
