//! The engine's error types, one per layer, each rendering cel-go's text in its `Display`
//! (the one place those texts are written):
//!
//! - compile time: [`Issues`], the [`Diagnostic`]s of one expression, each a span and a
//!   [`CompileError`] — a [`ParseError`], [`CheckError`] or [`PlanError`]. `Issues`
//!   renders itself in cel-go's format (`ERROR: <input>:1:5: message`, the source line, a
//!   caret); colour and other presentation belong to the front ends;
//! - evaluation: [`EvalError`], an [`EvalErrorKind`] and the failing node;
//! - input: [`TypeSyntaxError`](crate::TypeSyntaxError) for type syntax, [`FitError`] for values that do not fit a
//!   declared type.
//!
//! Code that must tell errors apart matches on these types, never on their texts:
//!
//! ```
//! use kcel::{Env, EvalErrorKind, Value, Bindings};
//! use kcel::{CheckError, CompileError};
//!
//! let env = Env::new();
//! let issues = env.compile("1 + 'a'").unwrap_err();
//! assert!(matches!(
//!     &issues.diagnostics[0].error,
//!     CompileError::Check(CheckError::NoMatchingOverload { function, .. }) if function == "_+_"
//! ));
//! let program = env.program(&env.compile("1 / 0").unwrap()).unwrap();
//! let error = program.eval(&Bindings::new()).unwrap_err();
//! assert_eq!(*error.kind(), EvalErrorKind::DivisionByZero);
//! assert_eq!(error.to_string(), "division by zero");
//! # let _ = Value::Null;
//! ```

use std::fmt;
use std::sync::Arc;

use crate::syntax::ast::{ExprId, Span};
use crate::types::Type;

/// One compile-time problem at a place in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// What is wrong.
    pub error: CompileError,
    /// Where: the rendering points at its start.
    pub span: Span,
}

impl Diagnostic {
    /// A problem at `span`.
    pub fn new(span: Span, error: impl Into<CompileError>) -> Diagnostic {
        Diagnostic {
            error: error.into(),
            span,
        }
    }

    /// The message as cel-go words it, without position.
    pub fn message(&self) -> String {
        self.error.to_string()
    }
}

/// A compile-time error of one of the three phases.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    /// Found by the parser or a macro.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// Found by the type checker or a library's check-time validator.
    #[error(transparent)]
    Check(#[from] CheckError),
    /// Found while planning the program.
    #[error(transparent)]
    Plan(#[from] PlanError),
}

/// A syntax error, worded as cel-go's parser words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The grammar rejected the text; the detail in ANTLR's words as cel-go reports them
    /// (`mismatched input ')' expecting ...`, `token recognition error at: '#'`).
    #[error("Syntax error: {0}")]
    Syntax(String),
    /// The source has more code points than the parser accepts.
    #[error("expression code point size exceeds limit: size: {size}, limit {limit}")]
    SourceTooLong {
        /// Code points in the source.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// Expressions nested deeper than the parser accepts.
    #[error("max recursion depth exceeded")]
    TooDeep,
    /// Syntax the environment does not enable (`.?`, `[?`, `?` in literals).
    #[error("unsupported syntax '{0}'")]
    UnsupportedSyntax(&'static str),
    /// A reserved word used as a name.
    #[error("reserved identifier: {0}")]
    ReservedIdentifier(String),
    /// A number literal out of range or malformed.
    #[error("invalid {0} literal")]
    InvalidNumber(NumberKind),
    /// A string or bytes literal with a bad escape sequence.
    #[error("{0}")]
    InvalidText(TextProblem),
    /// A macro could not expand its arguments (e.g. `invalid argument to has() macro`).
    #[error(transparent)]
    Macro(MacroErrorKind),
}

/// An expansion failure of a macro: what is wrong and the node it points at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct MacroError {
    /// What is wrong.
    pub kind: MacroErrorKind,
    /// The node it points at.
    pub span: Span,
}

impl MacroError {
    /// A failure of `kind` at `span`.
    pub fn new(kind: MacroErrorKind, span: Span) -> MacroError {
        MacroError { kind, span }
    }
}

/// Why a macro could not expand, worded as cel-go's parser words it
/// ([`ParseError::Macro`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MacroErrorKind {
    /// A receiver-style macro called without a receiver.
    #[error("macro requires a receiver")]
    MissingReceiver,
    /// A macro called with an argument count it does not accept.
    #[error("wrong number of macro arguments")]
    ArgumentCount,
    /// An iteration variable named like the accumulator (`@result`, `__result__`).
    #[error("iteration variable overwrites accumulator variable")]
    OverwritesAccumulator,
    /// A quantifier's (or a two-variable comprehension's) variable that is not an
    /// identifier (cel-go's `makeQuantifier`).
    #[error("argument must be a simple name")]
    NotSimpleName,
    /// A `map` or `filter` variable that is not an identifier (cel-go's `MakeMap`,
    /// `MakeFilter`).
    #[error("argument is not an identifier")]
    NotAnIdentifier,
    /// `has()` of something other than a field selection.
    #[error("invalid argument to has() macro")]
    InvalidHasArgument,
    /// A two-variable comprehension with both variables named alike.
    #[error("duplicate variable name: {0}")]
    DuplicateVariable(Arc<str>),
    /// `optMap`/`optFlatMap` (the name) with a variable that is not a simple identifier.
    #[error("{0}() variable name must be a simple identifier")]
    OptionalVariable(&'static str),
    /// `optMap`/`optFlatMap` (the name) without a receiver.
    #[error("{0}() requires a receiver")]
    OptionalReceiver(&'static str),
    /// `cel.bind` with a variable that is not a simple identifier.
    #[error("cel.bind() variable names must be simple identifiers")]
    BindVariable,
    /// A library macro's own error, rendered by the library's error type (see
    /// [`MacroErrorKind::library`]).
    #[error("{0}")]
    Library(Arc<str>),
}

impl MacroErrorKind {
    /// A library macro's error: `error`'s text is the message (libraries keep their own
    /// typed errors and render them in their `Display`).
    pub fn library(error: impl std::error::Error) -> MacroErrorKind {
        MacroErrorKind::Library(error.to_string().into())
    }
}

/// The kind of number literal in [`ParseError::InvalidNumber`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NumberKind {
    /// An `int` literal.
    #[error("int")]
    Int,
    /// A `uint` literal.
    #[error("uint")]
    Uint,
    /// A `double` literal.
    #[error("double")]
    Double,
    /// A token of no known number kind.
    #[error("number")]
    Unknown,
}

/// What is wrong with a string or bytes literal ([`ParseError::InvalidText`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TextProblem {
    /// A malformed escape sequence.
    #[error("unable to unescape string")]
    Unescape,
    /// A backslash at the very end of the literal.
    #[error("unable to unescape string, found '\\' as last character")]
    TrailingBackslash,
    /// An escape that denotes a surrogate or a value above U+10FFFF.
    #[error("invalid unicode code point")]
    CodePoint,
    /// A malformed octal escape.
    #[error("unable to unescape octal sequence in string")]
    Octal,
}

/// A type-checking error, worded as cel-go's checker words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// A name, function or type that is not declared.
    #[error("undeclared reference to '{name}' (in container '{container}')")]
    UndeclaredReference {
        /// The name as written (qualified as far as resolved).
        name: String,
        /// The environment's container.
        container: String,
    },
    /// A field the object type does not have.
    #[error("undefined field '{0}'")]
    UndefinedField(String),
    /// A field initialised with a value of the wrong type.
    #[error("expected type of field '{field}' is '{expected}' but provided type is '{provided}'")]
    FieldType {
        /// The field.
        field: String,
        /// Its declared type.
        expected: Type,
        /// The value's type.
        provided: Type,
    },
    /// An expression of the wrong type where a type is required.
    #[error("expected type '{expected}' but found '{found}'")]
    TypeMismatch {
        /// The type required.
        expected: Type,
        /// The expression's type.
        found: Type,
    },
    /// Field selection on a type without fields.
    #[error("type '{0}' does not support field selection")]
    NoFieldSelection(Type),
    /// `a.?b` where optional syntax is not enabled.
    #[error("unsupported optional field selection")]
    UnsupportedOptionalSelection,
    /// No overload of the function accepts the argument types (shown as cel-go shows them:
    /// `(string, int)` or `string.(int)`).
    #[error("found no matching overload for '{function}' applied to '{signature}'")]
    NoMatchingOverload {
        /// The function.
        function: String,
        /// The argument types.
        signature: String,
    },
    /// A comprehension over something that is not a list, map or `dyn`.
    #[error(
        "expression of type '{0}' cannot be range of a comprehension (must be list, map, or dynamic)"
    )]
    NotARange(Type),
    /// A constant argument a function rejects at check time (`duration('1x')`,
    /// `matches` with a bad pattern): `invalid <function> argument`.
    #[error("invalid {0} argument")]
    InvalidArgument(String),
    /// A library validator's own error, with its text (`string.format`'s checks,
    /// `ip('...')`'s parse error).
    #[error("{0}")]
    Library(String),
}

/// An error found while planning a checked expression into a program.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// A message (struct) construction: kcel has no message types.
    #[error("unknown type '{0}': message types are not supported")]
    MessageType(String),
    /// `cel.@block` with other than two arguments.
    #[error("cel.@block expects two arguments, but got {0}")]
    BlockArity(usize),
    /// `cel.@block` whose first argument is not a list literal.
    #[error("cel.@block expects a list constructor as the first argument")]
    BlockNotAList,
    /// `cel.@block` with more slots than a program can hold.
    #[error("cel.@block has too many expressions")]
    BlockTooLarge,
    /// A constant argument that fails when the program is built (Kubernetes compiles
    /// constant `find`/`findAll` patterns then): the error evaluation would give.
    #[error(transparent)]
    Constant(EvalError),
}

/// All problems found while compiling one expression, with the source for rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issues {
    /// The source text.
    pub source: Arc<str>,
    /// The problems, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

impl Issues {
    /// Issues holding a single diagnostic.
    pub fn single(source: &str, span: Span, error: impl Into<CompileError>) -> Issues {
        Issues {
            source: source.into(),
            diagnostics: vec![Diagnostic::new(span, error)],
        }
    }
}

/// A type that cannot declare a variable in an environment ([`Env::check_declared_type`]).
///
/// [`Env::check_declared_type`]: crate::Env::check_declared_type
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeclaredTypeError {
    /// A type parameter (`A`, `T`) where a type must be.
    #[error(
        "'{0}' is a type parameter, not a type (types: int, string, list(int), map(string, dyn), ...)"
    )]
    TypeParameter(String),
    /// A named type that neither the environment's libraries nor its type provider know.
    #[error(
        "unknown type '{0}' (types: int, uint, double, bool, string, bytes, timestamp, duration, null, dyn, list(T), map(K, V), optional_type(T), and the environment's library types)"
    )]
    UnknownType(String),
    /// An object type the environment's type provider does not know.
    #[error("unknown type '{0}'")]
    UnknownObject(String),
}

/// A value read from JSON or YAML that does not fit a declared type ([`Env::fit`]).
///
/// [`Env::fit`]: crate::Env::fit
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FitError {
    /// A string declared `bytes` that is not base64.
    #[error("bytes must be base64 (standard alphabet, padded): {0}")]
    NotBase64(String),
    /// A value of another type than declared.
    #[error("a value of type {found} does not fit the declared type {declared}")]
    Mismatch {
        /// The value's CEL type name.
        found: String,
        /// The declared type.
        declared: Type,
    },
    /// A map key that does not fit the declared key type.
    #[error("map key '{key}' does not fit the declared key type {declared}")]
    Key {
        /// The key as CEL prints it.
        key: String,
        /// The declared key type.
        declared: Type,
    },
    /// The environment has no conversion function (`timestamp`, `duration`) for the
    /// declared type.
    #[error("no conversion to {0} in this environment")]
    NoConversion(String),
    /// The conversion function rejected the text.
    #[error("not a valid {conversion}: {error}")]
    Invalid {
        /// The conversion (`timestamp`, `duration`).
        conversion: String,
        /// Its error.
        error: EvalError,
    },
}

/// A position as line and column, both starting at 1; the column counts code points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in code points.
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
    /// and column, stably), at most 100 of them (cel-go's limit).
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
            f.write_str(&render(&self.source, d.span.start as usize, &d.message()))?;
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

/// What went wrong in an evaluation. The `Display` of a kind is cel-go's text for it (the
/// one place those texts are written); [`EvalError`] adds the failing node.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EvalErrorKind {
    /// No overload of a function accepts the arguments' runtime types: `no such overload`.
    #[error("no such overload")]
    NoSuchOverload,
    /// A function or operator was applied to values of the wrong kind:
    /// `no matching overload for '<function>'`.
    #[error("no matching overload for '{0}'")]
    NoMatchingOverload(String),
    /// A map has no entry for the key, or a value no field of the name (the key as cel-go
    /// prints it): `no such key: <key>`.
    #[error("no such key: {0}")]
    NoSuchKey(String),
    /// A declared variable the activation does not bind: `no such attribute(s): <name>`.
    #[error("no such attribute(s): {0}")]
    NoSuchAttribute(String),
    /// A name that is neither declared nor bound:
    /// `undeclared reference to '<name>' (in container '<container>')`.
    #[error("undeclared reference to '{name}' (in container '{container}')")]
    UndeclaredReference {
        /// The name as written.
        name: String,
        /// The environment's container.
        container: String,
    },
    /// Signed integer arithmetic overflowed: `integer overflow`.
    #[error("integer overflow")]
    Overflow,
    /// `x / 0` on integers: `division by zero`.
    #[error("division by zero")]
    DivisionByZero,
    /// `x % 0` on integers: `modulus by zero`.
    #[error("modulus by zero")]
    ModulusByZero,
    /// The actual cost passed [`ProgramOptions::cost_limit`](crate::ProgramOptions):
    /// `operation cancelled: actual cost limit exceeded`. Never absorbed by `&&`, `||`, `?:`.
    #[error("{}", COST_LIMIT_EXCEEDED)]
    CostLimitExceeded,
    /// The values produced passed the memory budget ([`crate::library::budget`]):
    /// `operation cancelled: memory limit exceeded`. Never absorbed.
    #[error("{}", MEMORY_LIMIT_EXCEEDED)]
    MemoryLimitExceeded,
    /// Walks over values visited more elements than the memory budget allows:
    /// `operation cancelled: value traversal limit exceeded`. Never absorbed.
    #[error("{}", TRAVERSAL_LIMIT_EXCEEDED)]
    TraversalLimitExceeded,
    /// [`ProgramOptions::interrupt`](crate::ProgramOptions) asked evaluation to stop:
    /// `operation interrupted`.
    #[error("operation interrupted")]
    Interrupted,
    /// Any other failure, with its text: a library function's own error (`invalid
    /// argument`, `type conversion error from 'string' to 'int'`, a Kubernetes library's
    /// message, ...). The text is what users see, as the reference implementation words it.
    #[error("{0}")]
    Other(String),
}

/// cel-go's text of the cost limit error ([`EvalErrorKind::CostLimitExceeded`]).
pub const COST_LIMIT_EXCEEDED: &str = "operation cancelled: actual cost limit exceeded";
/// The text of [`EvalErrorKind::MemoryLimitExceeded`].
pub const MEMORY_LIMIT_EXCEEDED: &str = "operation cancelled: memory limit exceeded";
/// The text of [`EvalErrorKind::TraversalLimitExceeded`].
pub const TRAVERSAL_LIMIT_EXCEEDED: &str = "operation cancelled: value traversal limit exceeded";

impl EvalErrorKind {
    /// Whether this error ends the evaluation whatever the expression would make of it
    /// (the cost limit, the memory budget, an interrupt): `&&`, `||` and `?:` do not
    /// absorb it, and the validators that run many rules stop at it.
    pub fn is_cancellation(&self) -> bool {
        matches!(
            self,
            EvalErrorKind::CostLimitExceeded
                | EvalErrorKind::MemoryLimitExceeded
                | EvalErrorKind::TraversalLimitExceeded
                | EvalErrorKind::Interrupted
        )
    }
}

/// A runtime error: what went wrong ([`EvalErrorKind`], displayed as cel-go words it) and
/// the node that failed, when known.
///
/// Boxed so that `Result<Value, EvalError>` is no larger than a [`Value`](crate::Value): results move
/// through every step of evaluation, errors are rare.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.kind)]
pub struct EvalError(Box<EvalErrorData>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct EvalErrorData {
    kind: EvalErrorKind,
    node: Option<ExprId>,
}

impl fmt::Debug for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<EvalErrorKind> for EvalError {
    fn from(kind: EvalErrorKind) -> EvalError {
        EvalError(Box::new(EvalErrorData { kind, node: None }))
    }
}

impl EvalError {
    /// An error with its own text ([`EvalErrorKind::Other`]) and no position yet: for
    /// library functions' errors. Errors of a known kind have their own constructors.
    pub fn new(message: impl Into<String>) -> EvalError {
        EvalErrorKind::Other(message.into()).into()
    }

    /// What went wrong.
    pub fn kind(&self) -> &EvalErrorKind {
        &self.0.kind
    }

    /// The node whose evaluation failed, when known.
    pub fn node(&self) -> Option<ExprId> {
        self.0.node
    }

    /// The message as cel-go words it (the error's `Display`).
    pub fn message(&self) -> String {
        self.0.kind.to_string()
    }

    /// The message, taken out of the error.
    pub fn into_message(self) -> String {
        match self.0.kind {
            EvalErrorKind::Other(message) => message,
            kind => kind.to_string(),
        }
    }

    /// Attaches the failing node, unless one is already set.
    pub fn at(mut self, node: ExprId) -> EvalError {
        self.0.node.get_or_insert(node);
        self
    }

    /// Whether the error ends the evaluation whatever absorbs it
    /// ([`EvalErrorKind::is_cancellation`]).
    pub fn is_cancellation(&self) -> bool {
        self.0.kind.is_cancellation()
    }

    /// cel-go's error for a function with no overload for the argument types.
    pub fn no_such_overload() -> EvalError {
        EvalErrorKind::NoSuchOverload.into()
    }

    /// cel-go's error for a function called with arguments of the wrong runtime types.
    pub fn no_matching_overload(function: &str) -> EvalError {
        EvalErrorKind::NoMatchingOverload(function.to_string()).into()
    }

    /// cel-go's error for a missing map key (the key as it should be printed).
    pub fn no_such_key(key: impl fmt::Display) -> EvalError {
        EvalErrorKind::NoSuchKey(key.to_string()).into()
    }

    /// cel-go's error for a list index outside a list of `len` items.
    pub(crate) fn index_out_of_range(index: i64, len: usize) -> EvalError {
        EvalError::new(format!("index '{index}' out of range in list size '{len}'"))
    }

    /// cel-go's error for a declared variable the activation does not bind.
    pub fn no_such_attribute(name: impl fmt::Display) -> EvalError {
        EvalErrorKind::NoSuchAttribute(name.to_string()).into()
    }

    /// cel-go's error for a name that is neither declared nor bound.
    pub fn undeclared_reference(name: &str, container: &str) -> EvalError {
        EvalErrorKind::UndeclaredReference {
            name: name.to_string(),
            container: container.to_string(),
        }
        .into()
    }

    /// cel-go's error for int arithmetic overflow.
    pub fn overflow() -> EvalError {
        EvalErrorKind::Overflow.into()
    }

    /// cel-go's error for `x / 0`.
    pub fn division_by_zero() -> EvalError {
        EvalErrorKind::DivisionByZero.into()
    }

    /// cel-go's error for `x % 0`.
    pub fn modulus_by_zero() -> EvalError {
        EvalErrorKind::ModulusByZero.into()
    }

    /// cel-go's error when the actual cost passes the limit.
    pub fn cost_limit_exceeded() -> EvalError {
        EvalErrorKind::CostLimitExceeded.into()
    }

    /// cel-go's error when an interrupt stops evaluation.
    pub fn interrupted() -> EvalError {
        EvalErrorKind::Interrupted.into()
    }
}

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
        let diagnostic = |start: u32, field: &str| {
            Diagnostic::new(
                Span {
                    start,
                    end: start + 1,
                },
                CheckError::UndefinedField(field.into()),
            )
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

    /// Each kind's text is cel-go's (interpreter/errors, common/types/err.go) or, for the
    /// memory budget, kcel's own in cel-go's style.
    #[test]
    fn kinds_display_upstream_texts() {
        let texts = [
            (EvalError::no_such_overload(), "no such overload"),
            (
                EvalError::no_matching_overload("_+_"),
                "no matching overload for '_+_'",
            ),
            (EvalError::no_such_key("'a'"), "no such key: 'a'"),
            (EvalError::no_such_attribute("x"), "no such attribute(s): x"),
            (
                EvalError::undeclared_reference("x", "ns"),
                "undeclared reference to 'x' (in container 'ns')",
            ),
            (EvalError::overflow(), "integer overflow"),
            (EvalError::division_by_zero(), "division by zero"),
            (EvalError::modulus_by_zero(), "modulus by zero"),
            (EvalError::cost_limit_exceeded(), COST_LIMIT_EXCEEDED),
            (EvalError::interrupted(), "operation interrupted"),
            (EvalError::new("invalid argument"), "invalid argument"),
        ];
        for (error, text) in texts {
            assert_eq!(error.to_string(), text);
            assert_eq!(error.message(), text);
            assert_eq!(error.clone().into_message(), text);
        }
        assert!(EvalError::cost_limit_exceeded().is_cancellation());
        assert!(EvalError::from(EvalErrorKind::MemoryLimitExceeded).is_cancellation());
        assert!(!EvalError::overflow().is_cancellation());
        // The node is kept once set.
        let e = EvalError::overflow().at(3).at(4);
        assert_eq!(e.node(), Some(3));
    }

    #[test]
    fn compile_errors_display_upstream_texts() {
        let d = Diagnostic::new(
            Span::new(0, 1),
            CheckError::NoMatchingOverload {
                function: "_+_".into(),
                signature: "(int, string)".into(),
            },
        );
        assert_eq!(
            d.message(),
            "found no matching overload for '_+_' applied to '(int, string)'"
        );
        let t = CheckError::TypeMismatch {
            expected: Type::Bool,
            found: Type::List(Arc::new(Type::Int)),
        };
        assert_eq!(t.to_string(), "expected type 'bool' but found 'list(int)'");
        assert_eq!(
            ParseError::Syntax("mismatched input ')'".into()).to_string(),
            "Syntax error: mismatched input ')'"
        );
        assert_eq!(
            ParseError::InvalidNumber(NumberKind::Uint).to_string(),
            "invalid uint literal"
        );
        assert_eq!(
            PlanError::BlockArity(3).to_string(),
            "cel.@block expects two arguments, but got 3"
        );
        let issues = Issues::single("a +", Span::new(2, 3), ParseError::TooDeep);
        assert_eq!(
            issues.to_string(),
            "ERROR: <input>:1:3: max recursion depth exceeded\n | a +\n | ..^"
        );
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
