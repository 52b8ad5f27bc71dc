//! `kubernetes.regex`: `find` and `findAll` with RE2 patterns and Go's `regexp` semantics.

use std::sync::Arc;

use regex::Regex;

use super::string_arg;
use kcel::Value;
use kcel::library::overloads;
use kcel::library::{
    CallCost, CallEstimate, EstimateArgs, REGEX_STRING_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR,
    SizeEstimate,
};
use kcel::library::{ConstantRejected, Implementation, Library};
use kcel::{EvalError, EvalResult};

/// Builds the library.
pub fn library() -> Library {
    let mut lib = Library::new("kubernetes.regex", 0);
    overloads!(lib.function(
        "find",
        "The leftmost match of a RE2 pattern in the string, or '' when there is none.",
    );
        member "string_find_string" ("string", "string") -> "string"
            => Implementation::Binary(find),
            cost: CallCost::Custom(runtime_cost),
            estimate: estimate,
            specialize: precompiled_find;
    )
    .examples(&[
        "'abc 123'.find('[0-9]+') == '123'",
        "'abc'.find('[0-9]+') == ''",
    ]);
    overloads!(lib.function(
        "findAll",
        "All non-overlapping matches of a RE2 pattern, optionally at most n (n < 0: all).",
    );
        member "string_find_all_string" ("string", "string") -> "list(string)"
            => Implementation::Binary(find_all),
            cost: CallCost::Custom(runtime_cost),
            estimate: estimate,
            specialize: precompiled_find_all;
        member "string_find_all_string_int" ("string", "string", "int") -> "list(string)"
            => Implementation::Nary(find_all_n),
            cost: CallCost::Custom(runtime_cost),
            estimate: estimate,
            specialize: precompiled_find_all;
    )
    .examples(&[
        "'123 abc 456'.findAll('[0-9]+') == ['123', '456']",
        "'123 abc 456'.findAll('[0-9]+', 1) == ['123']",
        "'123 abc 456'.findAll('xyz') == []",
    ]);
    lib
}

fn compile(pattern: &str) -> Result<Regex, EvalError> {
    kcel::library::standard::compile_regex(pattern)
        .map_err(|e| EvalError::new(format!("Illegal regex: {e}")))
}

/// `find` with a constant pattern compiled once (the planner's counterpart of cel-go's regex
/// optimization).
/// A bad constant pattern fails when the program is built, with Go's `regexp` error.
fn precompiled_find(
    constants: &[Option<&Value>],
) -> Option<Result<Implementation, ConstantRejected>> {
    precompiled(constants, false)
}

/// `findAll` with a constant pattern compiled once.
fn precompiled_find_all(
    constants: &[Option<&Value>],
) -> Option<Result<Implementation, ConstantRejected>> {
    precompiled(constants, true)
}

fn precompiled(
    constants: &[Option<&Value>],
    find_all: bool,
) -> Option<Result<Implementation, ConstantRejected>> {
    let Some(Some(Value::String(pattern))) = constants.get(1) else {
        return None;
    };
    let re = match kcel::library::standard::compile_regex(pattern) {
        Ok(re) => Arc::new(re),
        Err(e) => {
            return Some(Err(ConstantRejected {
                argument: 1,
                message: e.into_message(),
            }));
        }
    };
    Some(Ok(Implementation::Closure(Arc::new(
        move |args: &[Value]| {
            let s = args
                .first()
                .map(string_arg)
                .transpose()?
                .unwrap_or_default();
            if !find_all {
                return Ok(Value::from(re.find(s).map_or("", |m| m.as_str())));
            }
            let limit = match args.get(2) {
                None => usize::MAX,
                Some(Value::Int(n)) if *n < 0 => usize::MAX,
                Some(Value::Int(n)) => *n as usize,
                Some(_) => return Err(EvalError::no_such_overload()),
            };
            Ok(matches(&re, s, limit))
        },
    ))))
}

fn matches(re: &Regex, s: &str, limit: usize) -> Value {
    Value::list(
        go_find_all(re, s, limit)
            .into_iter()
            .map(Value::from)
            .collect::<Vec<_>>(),
    )
}

/// `s.find(re)`.
pub fn find(s: &Value, pattern: &Value) -> EvalResult {
    let (s, p) = (string_arg(s)?, string_arg(pattern)?);
    let re = compile(p)?;
    Ok(Value::from(re.find(s).map_or("", |m| m.as_str())))
}

/// `s.findAll(re)`.
pub fn find_all(s: &Value, pattern: &Value) -> EvalResult {
    find_all_n(&[s.clone(), pattern.clone(), Value::Int(-1)])
}

/// `s.findAll(re, n)`.
pub fn find_all_n(args: &[Value]) -> EvalResult {
    let [s, p, n] = args else {
        return Err(EvalError::no_such_overload());
    };
    let (s, p) = (string_arg(s)?, string_arg(p)?);
    let Value::Int(n) = n else {
        return Err(EvalError::no_such_overload());
    };
    let re = compile(p)?;
    let limit = if *n < 0 { usize::MAX } else { *n as usize };
    Ok(matches(&re, s, limit))
}

/// Go's `FindAllString`: successive non-overlapping matches, ignoring an empty match that
/// abuts the previous match.
fn go_find_all<'s>(re: &Regex, s: &'s str, limit: usize) -> Vec<&'s str> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut prev_end: Option<usize> = None;
    while out.len() < limit && pos <= s.len() {
        let Some(m) = re.find_at(s, pos) else {
            break;
        };
        let mut accept = true;
        if m.end() == pos {
            if prev_end == Some(m.start()) {
                accept = false;
            }
            pos += s[pos..].chars().next().map_or(1, char::len_utf8);
        } else {
            pos = m.end();
        }
        prev_end = Some(m.end());
        if accept {
            out.push(m.as_str());
        }
    }
    out
}

/// `⌈(1 + S(str)) × 0.1⌉ × ⌈S(pattern) × 0.25⌉`.
fn runtime_cost(args: &[Value], _: Option<&Value>) -> u64 {
    let size = |i: usize| args.get(i).map_or(0, kcel::library::actual_size);
    let s = super::ceil_cost(1 + size(0), STRING_TRAVERSAL_FACTOR);
    let p = super::ceil_cost(size(1), REGEX_STRING_LENGTH_FACTOR);
    s.saturating_mul(p)
}

/// `⌈(E(str) + 1) × 0.1⌉ × ⌈E(pattern) × 0.25⌉`; result size `[0, E(str).max]`.
fn estimate(a: &EstimateArgs<'_>) -> CallEstimate {
    let s = a.target.map_or(SizeEstimate::UNKNOWN, |t| a.size(t));
    let p = a.args.first().map_or(SizeEstimate::UNKNOWN, |n| a.size(n));
    let cost = (s + SizeEstimate::fixed(1))
        .times_factor(STRING_TRAVERSAL_FACTOR)
        .multiply(p.times_factor(REGEX_STRING_LENGTH_FACTOR));
    CallEstimate {
        cost,
        result_size: Some(SizeEstimate { min: 0, max: s.max }),
    }
}
