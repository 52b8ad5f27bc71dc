//! Error types: compile-time diagnostics (parse, and later check) and runtime errors.
//!
//! Errors are data. [`Issues`] renders itself in cel-go's text format (`ERROR: <input>:1:5:
//! message`, the source line, a caret); colour and other presentation belong to the CLI.

use std::fmt;
use std::sync::Arc;

use crate::syntax::ast::{ExprId, Span};

/// One compile-time problem at a place in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub message: String,
    pub span: Span,
}

/// All problems found while compiling one expression, with the source for rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issues {
    pub source: Arc<str>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Issues {
    /// Issues holding a single diagnostic.
    pub fn single(source: &str, span: Span, message: impl Into<String>) -> Issues {
        Issues {
            source: source.into(),
            diagnostics: vec![Diagnostic {
                message: message.into(),
                span,
            }],
        }
    }
}

/// A position as line and column, both starting at 1; the column counts code points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub line: usize,
    pub column: usize,
}

/// Converts a byte offset into a line and column.
pub fn location(source: &str, offset: usize) -> Location {
    let offset = offset.min(source.len());
    let before = &source[..floor_char_boundary(source, offset)];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Location {
        line: before.matches('\n').count() + 1,
        column: before[line_start..].chars().count() + 1,
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The longest source line (in bytes) shown under a message, as cel-go's
/// `maxSnippetLength` (common/error.go).
const MAX_SNIPPET_LENGTH: usize = 16384;

/// At most this many messages are rendered; a last line says how many more there were
/// (cel-go's `maxErrorsToReport`, common/errors.go).
pub const MAX_ERRORS_TO_REPORT: usize = 100;

/// Renders one message in cel-go's format (`Error.ToDisplayString`, common/error.go):
/// `ERROR: <input>:L:C: msg`, then the source line with tabs shown as spaces and a caret
/// line that pads with `.` per character before the column — a full-width `．` for each
/// character of more than one UTF-8 byte, and a full-width `＾` caret under such a
/// character — so that the caret lines up in a terminal. Lines longer than 16,384 bytes
/// are not shown.
pub fn render(source: &str, offset: usize, message: &str) -> String {
    let loc = location(source, offset);
    let mut out = format!("ERROR: <input>:{}:{}: {}", loc.line, loc.column, message);
    if let Some(line) = source.split('\n').nth(loc.line - 1) {
        if line.len() > MAX_SNIPPET_LENGTH {
            return out;
        }
        let line = line.replace('\t', " ");
        out.push_str("\n | ");
        out.push_str(&line);
        out.push_str("\n | ");
        let mut chars = line.chars();
        for c in chars.by_ref().take(loc.column - 1) {
            out.push(if c.len_utf8() > 1 { '\u{ff0e}' } else { '.' });
        }
        match chars.next() {
            Some(c) if c.len_utf8() > 1 => out.push('\u{ff3e}'),
            _ => out.push('^'),
        }
    }
    out
}

impl std::error::Error for Issues {}

impl fmt::Display for Issues {
    /// The messages in source order (cel-go's `Errors.ToDisplayString` sorts them by line
    /// and column, stably), at most [`MAX_ERRORS_TO_REPORT`] of them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut ordered: Vec<(Location, &Diagnostic)> = self
            .diagnostics
            .iter()
            .map(|d| (location(&self.source, d.span.start as usize), d))
            .collect();
        ordered.sort_by_key(|(loc, _)| (loc.line, loc.column));
        for (i, (_, d)) in ordered.iter().take(MAX_ERRORS_TO_REPORT).enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            f.write_str(&render(&self.source, d.span.start as usize, &d.message))?;
        }
        if ordered.len() > MAX_ERRORS_TO_REPORT {
            write!(
                f,
                "\n{} more errors were truncated",
                ordered.len() - MAX_ERRORS_TO_REPORT
            )?;
        }
        Ok(())
    }
}

/// A runtime error: the message cel-go would give, and the node that failed.
///
/// Boxed so that `Result<Value, EvalError>` is no larger than a [`Value`](crate::Value): results move
/// through every step of evaluation, errors are rare. The fields are read and written
/// through `Deref` (`error.message`, `error.node`).
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.message)]
pub struct EvalError(Box<EvalErrorData>);

/// The content of an [`EvalError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalErrorData {
    pub message: String,
    /// The node whose evaluation failed, when known.
    pub node: Option<ExprId>,
}

impl fmt::Debug for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::ops::Deref for EvalError {
    type Target = EvalErrorData;
    fn deref(&self) -> &EvalErrorData {
        &self.0
    }
}

impl std::ops::DerefMut for EvalError {
    fn deref_mut(&mut self) -> &mut EvalErrorData {
        &mut self.0
    }
}

impl EvalError {
    /// An error with a message and no position yet.
    pub fn new(message: impl Into<String>) -> EvalError {
        EvalError(Box::new(EvalErrorData {
            message: message.into(),
            node: None,
        }))
    }

    /// The message, taken out of the error.
    pub fn into_message(self) -> String {
        self.0.message
    }

    /// Attaches the failing node, unless one is already set.
    pub fn at(mut self, node: ExprId) -> EvalError {
        self.0.node.get_or_insert(node);
        self
    }

    /// cel-go's error for a function with no overload for the argument types.
    pub fn no_such_overload() -> EvalError {
        EvalError::new("no such overload")
    }

    /// cel-go's error for a function called with arguments of the wrong runtime types.
    pub fn no_matching_overload(function: &str) -> EvalError {
        EvalError::new(format!("no matching overload for '{function}'"))
    }

    /// cel-go's error for a missing map key.
    pub fn no_such_key(key: impl fmt::Display) -> EvalError {
        EvalError::new(format!("no such key: {key}"))
    }

    /// cel-go's error for int or uint arithmetic overflow.
    pub fn overflow() -> EvalError {
        EvalError::new("integer overflow")
    }

    /// cel-go's error for `x / 0`.
    pub fn division_by_zero() -> EvalError {
        EvalError::new("division by zero")
    }

    /// cel-go's error for `x % 0`.
    pub fn modulus_by_zero() -> EvalError {
        EvalError::new("modulus by zero")
    }
}

/// Shorthand for results of evaluation.
pub type EvalResult<T = crate::value::Value> = Result<T, EvalError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_cel_go() {
        let text = render("a + x", 4, "undeclared reference to 'x' (in container '')");
        assert_eq!(
            text,
            "ERROR: <input>:1:5: undeclared reference to 'x' (in container '')\n | a + x\n | ....^"
        );
    }

    /// cel-go's common/error_test.go and errors_test.go: tabs as spaces, full-width dots and
    /// caret for wide characters, long lines without a snippet.
    #[test]
    fn snippets_follow_cel_go() {
        assert_eq!(render("\ta", 1, "m"), "ERROR: <input>:1:2: m\n |  a\n | .^");
        assert_eq!(
            render("'\u{4f60}' + x", 6, "m"),
            "ERROR: <input>:1:5: m\n | '\u{4f60}' + x\n | .\u{ff0e}..^"
        );
        assert_eq!(
            render("'\u{4f60}'", 1, "m"),
            "ERROR: <input>:1:2: m\n | '\u{4f60}'\n | .\u{ff3e}"
        );
        let long = "a".repeat(MAX_SNIPPET_LENGTH + 1);
        assert_eq!(render(&long, 0, "m"), "ERROR: <input>:1:1: m");
    }

    #[test]
    fn issues_render_in_source_order_and_at_most_100() {
        let diagnostic = |start: u32, message: &str| Diagnostic {
            message: message.into(),
            span: Span {
                start,
                end: start + 1,
            },
        };
        let issues = Issues {
            source: "ab".into(),
            diagnostics: vec![diagnostic(1, "second"), diagnostic(0, "first")],
        };
        let text = issues.to_string();
        assert!(text.find("first").unwrap() < text.find("second").unwrap());
        let many = Issues {
            source: "a".into(),
            diagnostics: (0..102).map(|_| diagnostic(0, "m")).collect(),
        };
        let text = many.to_string();
        assert_eq!(text.matches("ERROR:").count(), 100);
        assert!(text.ends_with("\n2 more errors were truncated"));
    }

    #[test]
    fn columns_count_code_points_on_later_lines() {
        let src = "'é'\n  + y";
        assert_eq!(
            location(src, src.find('+').unwrap()),
            Location { line: 2, column: 3 }
        );
    }
}
