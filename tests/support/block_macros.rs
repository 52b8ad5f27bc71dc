//! cel-go's test-only `cel.block` macros (its conformance runner's `celBlockLib`), shared
//! by the conformance runner and `tests/block.rs`. Test code only: no environment of
//! kcel's has these macros.

use kcel::library::syntax::{Expander, Macro, MacroError, MacroErrorKind, Style};
use kcel::library::syntax::{Expr, ExprKind, Literal};

/// How many `@indexN` variables cel-go's runner declares (`dyn`, as an optimizer would
/// declare them with their types).
pub const BLOCK_TEST_INDICES: usize = 30;

/// cel-go's test-only library of its conformance runner (`celBlockLib`): the macros
/// `cel.block(list, expr)` → `cel.@block(list, expr)`, `cel.index(N)` → `@indexN`,
/// `cel.iterVar(N, M)` → `@it:N:M` and `cel.accuVar(N, M)` → `@ac:N:M`, which let block_ext
/// spell what cel-go's optimizer produces. No environment of kcel's has them.
pub fn block_test_library() -> kcel::library::Library {
    let mut lib = kcel::library::Library::new("cel.lib.ext.cel.block.conformance", 0);
    lib.add_macros(BLOCK_TEST_MACROS);
    lib
}

const BLOCK_TEST_MACROS: &[Macro] = &[
    Macro {
        name: "block",
        style: Style::Receiver,
        args: 2,
        receiver: Some("cel"),
        expand: expand_block,
    },
    Macro {
        name: "index",
        style: Style::Receiver,
        args: 1,
        receiver: Some("cel"),
        expand: expand_index,
    },
    Macro {
        name: "iterVar",
        style: Style::Receiver,
        args: 2,
        receiver: Some("cel"),
        expand: |ex, _, args| expand_comprehension_var(ex, args, "cel.iterVar", "@it"),
    },
    Macro {
        name: "accuVar",
        style: Style::Receiver,
        args: 2,
        receiver: Some("cel"),
        expand: |ex, _, args| expand_comprehension_var(ex, args, "cel.accuVar", "@ac"),
    },
];

/// cel-go's errors of the block macros.
#[derive(Debug, thiserror::Error)]
enum BlockError {
    #[error("cel.block requires the first arg to be a list literal")]
    Block,
    #[error("cel.index requires a single non-negative int constant arg")]
    Index,
    #[error("{0} requires two non-negative int constant args")]
    Variable(String),
}

fn expand_block(ex: &mut Expander, _: Option<Expr>, args: Vec<Expr>) -> Result<Expr, MacroError> {
    match args.first() {
        Some(Expr {
            kind: ExprKind::List { .. },
            ..
        }) => Ok(ex.call("cel.@block", args)),
        other => Err(MacroError {
            kind: MacroErrorKind::library(BlockError::Block),
            span: other.map_or(ex.span(), |e| e.span),
        }),
    }
}

/// The value of a non-negative int literal.
fn non_negative_int(e: &Expr) -> Option<i64> {
    match e.kind {
        ExprKind::Literal(Literal::Int(i)) if i >= 0 => Some(i),
        _ => None,
    }
}

fn expand_index(ex: &mut Expander, _: Option<Expr>, args: Vec<Expr>) -> Result<Expr, MacroError> {
    match args.first().map(|a| (a, non_negative_int(a))) {
        Some((_, Some(i))) => Ok(ex.ident(&format!("@index{i}"))),
        other => Err(MacroError {
            kind: MacroErrorKind::library(BlockError::Index),
            span: other.map_or(ex.span(), |(e, _)| e.span),
        }),
    }
}

fn expand_comprehension_var(
    ex: &mut Expander,
    args: Vec<Expr>,
    function: &str,
    prefix: &str,
) -> Result<Expr, MacroError> {
    let mut values = Vec::new();
    for a in &args {
        match non_negative_int(a) {
            Some(v) => values.push(v),
            None => {
                return Err(MacroError {
                    kind: MacroErrorKind::library(BlockError::Variable(function.into())),
                    span: a.span,
                });
            }
        }
    }
    match values.as_slice() {
        [depth, unique] => Ok(ex.ident(&format!("{prefix}:{depth}:{unique}"))),
        _ => Err(MacroError {
            kind: MacroErrorKind::library(BlockError::Variable(function.into())),
            span: ex.span(),
        }),
    }
}
