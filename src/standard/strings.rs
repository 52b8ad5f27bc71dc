//! String functions: `contains`, `startsWith`, `endsWith` and `matches` (RE2 syntax).

use std::sync::Arc;

use memchr::memmem;
use regex::Regex;

use crate::__overloads as overloads;
use crate::cost::CallCost;
use crate::error::EvalError;
use crate::registry::{Implementation, Library, Specialization, StringTest};
use crate::value::EvalResult;
use crate::value::Value;

/// Declares the string functions.
pub fn declare(lib: &mut Library) {
    overloads!(lib.function("contains", "Tests whether a string contains a substring.");
        member "contains_string" ("string", "string") -> "bool"
            => Implementation::Binary(contains_string),
            specialization: Specialization::StringTest(StringTest::Contains),
            cost: CallCost::Contains;
    )
    .examples(&[
        "'hello world'.contains('o w')",
        "!'hello world'.contains('goodbye')",
    ]);

    overloads!(lib.function("startsWith", "Tests whether a string starts with a prefix.");
        member "starts_with_string" ("string", "string") -> "bool"
            => Implementation::Binary(starts_with_string),
            specialization: Specialization::StringTest(StringTest::StartsWith),
            cost: CallCost::TraverseFirst;
    )
    .examples(&[
        "'hello world'.startsWith('hello')",
        "!'hello world'.startsWith('world')",
    ]);

    overloads!(lib.function("endsWith", "Tests whether a string ends with a suffix.");
        member "ends_with_string" ("string", "string") -> "bool"
            => Implementation::Binary(ends_with_string),
            specialization: Specialization::StringTest(StringTest::EndsWith),
            cost: CallCost::TraverseFirst;
    )
    .examples(&[
        "'hello world'.endsWith('world')",
        "!'hello world'.endsWith('hello')",
    ]);

    overloads!(lib.function(
        "matches",
        "Tests whether a RE2 regular expression matches anywhere in a string.",
    );
        // cel-go prices the member overload by sizes, the global one at 1.
        global "matches" ("string", "string") -> "bool"
            => Implementation::Binary(matches), specialization: Specialization::ConstantPattern;
        member "matches_string" ("string", "string") -> "bool"
            => Implementation::Binary(matches), specialization: Specialization::ConstantPattern,
            cost: CallCost::Matches;
    )
    .examples(&[
        "matches('123-456', '^[0-9]+(-[0-9]+)?$')",
        "'hello'.matches('^h.*o$')",
        "'hubba'.matches('ubb')",
        "!'grey'.matches('^gr(a|o)y$')",
    ]);
}

fn strs<'a>(a: &'a Value, b: &'a Value) -> Result<(&'a str, &'a str), EvalError> {
    match (a, b) {
        (Value::String(x), Value::String(y)) => Ok((x, y)),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `s.contains(sub)`.
pub fn contains_string(s: &Value, sub: &Value) -> EvalResult {
    let (s, sub) = strs(s, sub)?;
    Ok(Value::Bool(s.contains(sub)))
}

/// `s.startsWith(prefix)`.
pub fn starts_with_string(s: &Value, prefix: &Value) -> EvalResult {
    let (s, prefix) = strs(s, prefix)?;
    Ok(Value::Bool(s.starts_with(prefix)))
}

/// `s.endsWith(suffix)`.
pub fn ends_with_string(s: &Value, suffix: &Value) -> EvalResult {
    let (s, suffix) = strs(s, suffix)?;
    Ok(Value::Bool(s.ends_with(suffix)))
}

/// `s.startsWith(x)`, `s.endsWith(x)` or `s.contains(x)` with a constant `x`, prepared
/// once for a program (the substring search built for `x`).
#[derive(Debug)]
pub enum ConstantTest {
    StartsWith(Arc<str>),
    EndsWith(Arc<str>),
    Contains(Box<memmem::Finder<'static>>),
}

impl ConstantTest {
    /// The test `test` with the constant argument `x`.
    pub fn new(test: StringTest, x: &Arc<str>) -> ConstantTest {
        match test {
            StringTest::StartsWith => ConstantTest::StartsWith(x.clone()),
            StringTest::EndsWith => ConstantTest::EndsWith(x.clone()),
            StringTest::Contains => {
                ConstantTest::Contains(Box::new(memmem::Finder::new(x.as_bytes()).into_owned()))
            }
        }
    }

    /// Whether `s` passes: what the overload gives for `s`.
    pub fn holds(&self, s: &str) -> bool {
        match self {
            ConstantTest::StartsWith(prefix) => s.starts_with(&**prefix),
            ConstantTest::EndsWith(suffix) => s.ends_with(&**suffix),
            ConstantTest::Contains(finder) => finder.find(s.as_bytes()).is_some(),
        }
    }
}

/// `matches(s, re)` / `s.matches(re)`: compiles the pattern and searches for a match.
/// The planner should compile constant patterns once with [`compile_regex`] instead.
pub fn matches(s: &Value, pattern: &Value) -> EvalResult {
    let (s, pattern) = strs(s, pattern)?;
    let re = compile_regex(pattern)?;
    Ok(Value::Bool(re.is_match(s)))
}

/// `matches` with a pattern compiled ahead of time (by the planner, for constant patterns).
pub fn matches_compiled(s: &Value, re: &Regex) -> EvalResult {
    match s {
        Value::String(s) => Ok(Value::Bool(re.is_match(s))),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// Compiles a RE2 pattern with Go's semantics and error messages (see [`super::re2`]).
pub fn compile_regex(pattern: &str) -> Result<Regex, EvalError> {
    #[cfg(test)]
    COMPILED_REGEXES.with(|n| n.set(n.get() + 1));
    super::re2::compile(pattern)
}

#[cfg(test)]
thread_local! {
    /// How many patterns [`compile_regex`] compiled on this thread (for tests that check
    /// that a program compiles each constant pattern once).
    pub(crate) static COMPILED_REGEXES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::from(x)
    }

    #[test]
    fn substring_tests() {
        assert_eq!(
            contains_string(&s("Straße"), &s("aß")),
            Ok(Value::Bool(true))
        );
        assert_eq!(contains_string(&s(""), &s("")), Ok(Value::Bool(true)));
        assert_eq!(contains_string(&s(""), &s("x")), Ok(Value::Bool(false)));
        assert_eq!(
            starts_with_string(&s("🐱😀😛"), &s("🐱")),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            ends_with_string(&s("forté"), &s("té")),
            Ok(Value::Bool(true))
        );
        assert_eq!(ends_with_string(&s(""), &s("foo")), Ok(Value::Bool(false)));
        assert_eq!(
            contains_string(&s("a"), &Value::Int(1)),
            Err(EvalError::no_such_overload())
        );
    }

    #[test]
    fn regex_matching() {
        assert_eq!(matches(&s("hubba"), &s("ubb")), Ok(Value::Bool(true)));
        assert_eq!(matches(&s(""), &s("foo|bar")), Ok(Value::Bool(false)));
        assert_eq!(matches(&s("cows"), &s("")), Ok(Value::Bool(true)));
        assert_eq!(matches(&s("mañana"), &s("a+ñ+a+")), Ok(Value::Bool(true)));
        assert_eq!(
            matches(&s("🐱😀😀"), &s("(a|😀){2}")),
            Ok(Value::Bool(true))
        );
        let re = compile_regex("^a+$").unwrap();
        assert_eq!(matches_compiled(&s("aaa"), &re), Ok(Value::Bool(true)));
        assert_eq!(matches_compiled(&s("ab"), &re), Ok(Value::Bool(false)));
        assert_eq!(
            matches(&s("x"), &Value::Null),
            Err(EvalError::no_such_overload())
        );
    }
}
