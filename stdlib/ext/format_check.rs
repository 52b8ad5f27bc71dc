//! cel-go's compile-time check of `format` calls (`cel.validator.string_format`): a constant
//! format string applied to a list literal must have a clause for every argument, and each
//! argument's checked type must suit its clause.

use super::format::{ClauseError, FormatError, Formatter, ValueError, expectation, precision};
use kcel::Type;
use kcel::library::syntax::NodeMap;
use kcel::library::syntax::{Expr, ExprKind, Literal, Span};
use kcel::{CheckError, Diagnostic};

/// The validator for strings versions 1 to 3 (cel-go's first formatter).
pub fn validate_v1(expr: &Expr, types: &NodeMap<Type>) -> Vec<Diagnostic> {
    validate(expr, types, Formatter::V1)
}

/// The validator for strings version 4 and later.
pub fn validate_v2(expr: &Expr, types: &NodeMap<Type>) -> Vec<Diagnostic> {
    validate(expr, types, Formatter::V2)
}

fn validate(expr: &Expr, types: &NodeMap<Type>, f: Formatter) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    expr.walk(|e| {
        let ExprKind::Call {
            target: Some(target),
            function,
            args,
        } = &e.kind
        else {
            return;
        };
        let (ExprKind::Literal(Literal::String(fmt)), "format", [list]) =
            (&target.kind, &**function, args.as_slice())
        else {
            return;
        };
        let ExprKind::List { elements, .. } = &list.kind else {
            return;
        };
        let check = Check { types, f };
        match check.format(fmt, elements) {
            Err((error, span)) => out.push(Diagnostic::new(
                span.unwrap_or(e.span),
                CheckError::Library(error.to_string()),
            )),
            Ok(requested) if elements.len() > requested => out.push(Diagnostic::new(
                e.span,
                CheckError::Library(
                    FormatError::TooManyArguments {
                        expected: requested,
                        given: elements.len(),
                    }
                    .to_string(),
                ),
            )),
            Ok(_) => {}
        }
    });
    out.sort_by_key(|d| d.span.start);
    out
}

struct Check<'a> {
    types: &'a NodeMap<Type>,
    f: Formatter,
}

type Failure = (FormatError, Option<Span>);

impl Check<'_> {
    /// Walks the format string as the runtime does; returns the number of clauses.
    fn format(&self, fmt: &str, args: &[Expr]) -> Result<usize, Failure> {
        let b = fmt.as_bytes();
        let (mut i, mut requested) = (0, 0);
        while i < b.len() {
            if b[i] != b'%' {
                i += 1;
                continue;
            }
            if b.get(i + 1) == Some(&b'%') {
                i += 2;
                continue;
            }
            let index = requested;
            requested += 1;
            if i + 1 >= b.len() {
                return Err((FormatError::UnexpectedEnd, None));
            }
            let Some(arg) = args.get(index) else {
                return Err((FormatError::MissingArgument(index), None));
            };
            let parse_err = |e: ClauseError| (FormatError::Clause(e), None);
            let (read, _) = precision(&b[i + 1..]).map_err(|e| parse_err(e.into()))?;
            let Some(&verb) = b.get(i + 1 + read) else {
                return Err(parse_err(ClauseError::UnexpectedEnd));
            };
            if !matches!(verb, b's' | b'd' | b'f' | b'e' | b'b' | b'x' | b'X' | b'o') {
                return Err(parse_err(ClauseError::UnknownVerb(char::from(verb))));
            }
            self.argument(verb, arg)?;
            i += 2 + read;
        }
        Ok(requested)
    }

    fn type_of(&self, e: &Expr) -> &Type {
        self.types.get(&e.id).unwrap_or(&Type::Dyn)
    }

    /// Checks one argument against its clause.
    fn argument(&self, verb: u8, arg: &Expr) -> Result<(), Failure> {
        if verb == b's' {
            return self.printable(arg);
        }
        use Type::*;
        let accepted: &[Type] = match (verb, self.f) {
            (b'd', Formatter::V1) | (b'o', _) => &[Int, Uint],
            (b'd' | b'f' | b'e', Formatter::V2) => &[Int, Uint, Double],
            (b'f' | b'e', Formatter::V1) => &[Double, String],
            (b'b', _) => &[Int, Uint, Bool],
            _ => &[Int, Uint, String, Bytes],
        };
        if one_of(self.type_of(arg), accepted) {
            Ok(())
        } else {
            Err(self.mismatch(verb, arg))
        }
    }

    /// `%s`: the argument, and every element of a list or map literal, must be printable.
    fn printable(&self, e: &Expr) -> Result<(), Failure> {
        use Type::*;
        let printable = [
            List(Dyn.into()),
            Map(Dyn.into(), Dyn.into()),
            Int,
            Uint,
            Double,
            Bool,
            String,
            Timestamp,
            Bytes,
            Duration,
            TypeOf(Dyn.into()),
            Null,
        ];
        if !one_of(self.type_of(e), &printable) {
            return Err(self.mismatch(b's', e));
        }
        match &e.kind {
            ExprKind::List { elements, .. } => elements.iter().try_for_each(|x| self.printable(x)),
            ExprKind::Map { entries } => entries.iter().try_for_each(|entry| {
                self.printable(&entry.key)?;
                self.printable(&entry.value)
            }),
            _ => Ok(()),
        }
    }

    fn mismatch(&self, verb: u8, e: &Expr) -> Failure {
        let error = ValueError::WrongType {
            expected: expectation(verb, self.f),
            given: type_name(self.type_of(e)),
        };
        (FormatError::Formatting(error), Some(e.span))
    }
}

/// Whether `t` is `dyn` or of the same kind as one of `kinds` (parameters ignored).
fn one_of(t: &Type, kinds: &[Type]) -> bool {
    matches!(t, Type::Dyn)
        || kinds
            .iter()
            .any(|k| std::mem::discriminant(k) == std::mem::discriminant(t))
}

/// A type's name as cel-go's `TypeName()` gives it.
fn type_name(t: &Type) -> String {
    match t {
        Type::Null => "null_type".into(),
        Type::Timestamp => "google.protobuf.Timestamp".into(),
        Type::Duration => "google.protobuf.Duration".into(),
        Type::List(_) => "list".into(),
        Type::Map(..) => "map".into(),
        Type::TypeOf(_) => "type".into(),
        Type::Optional(_) => "optional_type".into(),
        Type::Named(n, _) | Type::Object(n) => n.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use kcel::Env;

    fn compile_error(version: u32, expr: &str) -> String {
        let mut env = Env::new();
        env.add_library(&super::super::strings(version));
        match env.compile(expr) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn constant_format_calls_are_checked() {
        let cases = [
            (
                4,
                "'%s %s'.format(['a', 'b', 'c'])",
                "ERROR: <input>:1:15: too many arguments supplied to string.format (expected 2, got 3)",
            ),
            (
                4,
                "'%d %d'.format([1])",
                "ERROR: <input>:1:15: index 1 out of range",
            ),
            (
                4,
                "'%b'.format(['abc'])",
                "ERROR: <input>:1:14: error during formatting: only ints, uints, and bools can be formatted as binary, was given string",
            ),
            (
                2,
                "'%f'.format([1])",
                "ERROR: <input>:1:14: error during formatting: fixed-point clause can only be used on doubles, was given int",
            ),
            (4, "'%s'.format([[1, {'a': timestamp(0)}, []]])", ""),
            (
                4,
                "'%a'.format([1])",
                "ERROR: <input>:1:12: could not parse formatting clause: unrecognized formatting clause \"a\"",
            ),
            (4, "'%d'.format([dyn('x')])", ""),
            (
                4,
                "x.format([1])",
                "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')",
            ),
        ];
        for (version, expr, want) in cases {
            let got = compile_error(version, expr);
            let first = got.lines().next().unwrap_or("");
            assert_eq!(first, want, "{expr}");
        }
    }
}
