//! cel-go's `ext.Regex`: `regex.replace`, `regex.extract` (an optional string) and
//! `regex.extractAll`, with RE2 (Go) pattern semantics and cel-go's cost functions.
//!
//! cel-go refuses to build an environment with this library unless the optional types
//! library is present too; add [`crate::optional::optional`] alongside it.

use regex::Regex;

use kcel::Value;
use kcel::library::standard::re2;
use kcel::library::{
    CallCost, CallEstimate, CostEstimate, EstimateArgs, LIST_CREATE, REGEX_STRING_LENGTH_FACTOR,
    STRING_TRAVERSAL_FACTOR, SizeEstimate, actual_size,
};
use kcel::library::{Implementation, Library, overloads};
use kcel::{EvalError, EvalResult};

use super::arg_size;

/// Builds the library.
pub fn library() -> Library {
    let mut lib = Library::new("cel.lib.ext.regex", 0);
    overloads!(lib.function(
        "regex.extract",
        "The first match of a pattern (or of its one capture group), if any.",
    );
        global "regex_extract_string_string" ("string", "string") -> "optional_type(string)"
            => Implementation::Binary(extract),
            cost: CallCost::Custom(cost_extract),
            estimate: estimate_extract;
    )
    .examples(&[
        "regex.extract('hello world', 'hello (.*)') == optional.of('world')",
        "regex.extract('item-A, item-B', 'item-(\\\\w+)') == optional.of('A')",
        "regex.extract('HELLO', 'hello') == optional.none()",
        "regex.extract('4122345432', '22').orValue('777') == '22'",
    ]);
    overloads!(lib.function(
        "regex.extractAll",
        "All non-overlapping matches of a pattern (or of its one capture group).",
    );
        global "regex_extractAll_string_string" ("string", "string") -> "list(string)"
            => Implementation::Binary(extract_all),
            cost: CallCost::Custom(cost_extract_all),
            estimate: estimate_extract_all;
    )
    .examples(&[
        "regex.extractAll('id:123, id:456', 'id:\\\\d+') == ['id:123', 'id:456']",
        "regex.extractAll('id:123, id:456', 'assa') == []",
        "regex.extractAll('testuser@testdomain', '(.*)@') == ['testuser']",
    ]);
    overloads!(lib.function(
        "regex.replace",
        "Replaces matches of a pattern (all, or at most n); \\\\1 in the replacement inserts a group.",
    );
        global "regex_replace_string_string_string" ("string", "string", "string") -> "string"
            => Implementation::Nary(replace),
            cost: CallCost::Custom(cost_replace),
            estimate: estimate_replace;
        global "regex_replace_string_string_string_int" ("string", "string", "string", "int") -> "string"
            => Implementation::Nary(replace),
            cost: CallCost::Custom(cost_replace),
            estimate: estimate_replace;
    )
    .examples(&[
        "regex.replace('hello world hello', 'hello', 'hi') == 'hi world hi'",
        "regex.replace('banana', 'a', 'x', 2) == 'bxnxna'",
        "regex.replace('abc', 'b(.)', 'X\\\\1') == 'aXc'",
        "regex.replace('10 - 20', '(\\\\d+) - (\\\\d+)', '\\\\2 - \\\\1') == '20 - 10'",
    ]);
    lib
}

fn nso() -> EvalError {
    EvalError::no_such_overload()
}

fn too_many_groups(pattern: &str) -> EvalError {
    EvalError::new(format!(
        "regular expression has more than one capturing group: {}",
        kcel::library::standard::go_quote(pattern)
    ))
}

fn compile(pattern: &str) -> Result<(Regex, usize), EvalError> {
    let re = re2::compile(pattern)?;
    let groups = re.captures_len().saturating_sub(1);
    if groups > 1 {
        return Err(too_many_groups(pattern));
    }
    Ok((re, groups))
}

/// `regex.extract(target, pattern)`.
pub fn extract(target: &Value, pattern: &Value) -> EvalResult {
    let (Value::String(t), Value::String(p)) = (target, pattern) else {
        return Err(nso());
    };
    let (re, groups) = compile(p)?;
    let Some(caps) = re.captures(t) else {
        return Ok(Value::Optional(None));
    };
    let text = if groups == 1 {
        match caps.get(1).map(|m| m.as_str()) {
            Some(s) if !s.is_empty() => s,
            _ => return Ok(Value::Optional(None)),
        }
    } else {
        caps.get(0).map_or("", |m| m.as_str())
    };
    Ok(Value::Optional(Some(std::sync::Arc::new(Value::from(
        text,
    )))))
}

/// `regex.extractAll(target, pattern)`.
pub fn extract_all(target: &Value, pattern: &Value) -> EvalResult {
    let (Value::String(t), Value::String(p)) = (target, pattern) else {
        return Err(nso());
    };
    let (re, groups) = compile(p)?;
    let mut out = Vec::new();
    for caps in re.captures_iter(t) {
        let m = if groups == 1 {
            caps.get(1)
        } else {
            caps.get(0)
        };
        match m.map(|m| m.as_str()) {
            Some(s) if groups != 1 || !s.is_empty() => out.push(Value::from(s)),
            _ => {}
        }
    }
    Ok(Value::list(out))
}

/// `regex.replace(target, pattern, replacement)` / `(..., n)`.
pub fn replace(args: &[Value]) -> EvalResult {
    let (Some(Value::String(t)), Some(Value::String(p)), Some(Value::String(r))) =
        (args.first(), args.get(1), args.get(2))
    else {
        return Err(nso());
    };
    let count = match (args.len(), args.get(3)) {
        (3, _) => -1,
        (4, Some(Value::Int(n))) => *n,
        _ => return Err(nso()),
    };
    if count == 0 {
        return Ok(Value::String(t.clone()));
    }
    let limit = usize::try_from(count).unwrap_or(usize::MAX);
    let re = re2::compile(p)?;
    let groups = re.captures_len().saturating_sub(1);
    let mut out = String::with_capacity(t.len());
    let mut last = 0;
    for caps in re.captures_iter(t).take(limit) {
        let Some(whole) = caps.get(0) else { continue };
        let replacement = expand(t, &caps, groups, r)?;
        // The output grows by each replacement: checked against the memory budget as it
        // grows (a long replacement for every match of a short pattern), counted at the end.
        kcel::library::budget::within(
            (out.len() + replacement.len() + whole.start() - last) as u64,
        )?;
        out.push_str(&t[last..whole.start()]);
        out.push_str(&replacement);
        last = whole.end();
    }
    out.push_str(&t[last..]);
    kcel::library::budget::reserve(out.len() as u64)?;
    Ok(Value::from(out))
}

/// Expands `\N` group references and `\\` in a replacement, with cel-go's errors.
fn expand(
    target: &str,
    caps: &regex::Captures<'_>,
    groups: usize,
    replacement: &str,
) -> Result<String, EvalError> {
    let mut out = String::with_capacity(replacement.len());
    let mut chars = replacement.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(next) = chars.next() else {
            return Err(EvalError::new(format!(
                "invalid replacement string: '{replacement}' \\ not allowed at end"
            )));
        };
        if next == '\\' {
            out.push('\\');
            continue;
        }
        let Some(n) = next.to_digit(10).filter(|_| next.is_ascii_digit()) else {
            return Err(EvalError::new(format!(
                "invalid replacement string: '{replacement}' \\ must be followed by a digit or \\"
            )));
        };
        let n = n as usize;
        if n > groups {
            return Err(EvalError::new(format!(
                "replacement string references group {n} but regex has only {groups} group(s)"
            )));
        }
        if let Some(m) = caps.get(n) {
            out.push_str(&target[m.start()..m.end()]);
        }
    }
    Ok(out)
}

// Costs, as cel-go's `ext/regex.go` computes them.

fn search_cost(args: &[Value]) -> f64 {
    let size = |i: usize| args.get(i).map_or(1, actual_size);
    let target = size(0).saturating_add(1) as f64 * STRING_TRAVERSAL_FACTOR;
    let pattern = size(1).saturating_add(1) as f64 * REGEX_STRING_LENGTH_FACTOR;
    target * pattern
}

/// cel-go sizes only strings, bytes, lists and maps; an optional counts as 1.
fn result_size(result: Option<&Value>) -> f64 {
    match result {
        Some(Value::Optional(_)) | None => 1.0,
        Some(v) => actual_size(v) as f64,
    }
}

fn cost_extract(args: &[Value], result: Option<&Value>) -> u64 {
    (1.0 + search_cost(args) + result_size(result)).ceil() as u64
}

fn cost_extract_all(args: &[Value], result: Option<&Value>) -> u64 {
    (1.0 + search_cost(args) + result_size(result) + LIST_CREATE as f64).ceil() as u64
}

fn cost_replace(args: &[Value], result: Option<&Value>) -> u64 {
    (1.0 + search_cost(args) + result_size(result)) as u64
}

fn plus_one(s: SizeEstimate) -> SizeEstimate {
    s + SizeEstimate::fixed(1)
}

fn search_estimate(e: &EstimateArgs<'_>) -> (SizeEstimate, CostEstimate) {
    let target = arg_size(e, 0);
    let target_cost = plus_one(target).times_factor(STRING_TRAVERSAL_FACTOR);
    let regex_cost = plus_one(arg_size(e, 1)).times_factor(REGEX_STRING_LENGTH_FACTOR);
    (target, regex_cost.multiply(target_cost))
}

fn as_cost(s: SizeEstimate) -> CostEstimate {
    CostEstimate {
        min: s.min,
        max: s.max,
    }
}

fn estimate_extract(e: &EstimateArgs<'_>) -> CallEstimate {
    let (target, search) = search_estimate(e);
    let result = SizeEstimate {
        min: 0,
        max: target.max,
    };
    CallEstimate {
        cost: search + as_cost(result),
        result_size: Some(result),
    }
}

fn estimate_extract_all(e: &EstimateArgs<'_>) -> CallEstimate {
    let (target, search) = search_estimate(e);
    let result = SizeEstimate {
        min: 0,
        max: target.max,
    };
    CallEstimate {
        cost: search + as_cost(result + SizeEstimate::fixed(LIST_CREATE)),
        result_size: Some(result),
    }
}

fn estimate_replace(e: &EstimateArgs<'_>) -> CallEstimate {
    let (target, search) = search_estimate(e);
    let replacement = arg_size(e, 2);
    let all = target.max.saturating_mul(replacement.max);
    let none = target.max;
    let result = if replacement.max == 0 {
        SizeEstimate {
            min: all,
            max: none,
        }
    } else {
        SizeEstimate {
            min: none,
            max: all,
        }
    };
    CallEstimate {
        cost: search + as_cost(result),
        result_size: Some(result),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::from(x)
    }

    fn some(x: &str) -> Value {
        Value::Optional(Some(std::sync::Arc::new(s(x))))
    }

    fn err(m: &str) -> EvalResult {
        Err(EvalError::new(m))
    }

    #[test]
    fn extracting() {
        assert_eq!(
            extract(&s("hello world"), &s("hello (.*)")),
            Ok(some("world"))
        );
        assert_eq!(extract(&s("hello"), &s("x")), Ok(Value::Optional(None)));
        assert_eq!(extract(&s("ab"), &s("a(x?)b")), Ok(Value::Optional(None)));
        assert_eq!(extract(&s("ab"), &s("a")), Ok(some("a")));
        assert_eq!(
            extract(&s("ab"), &s("(a)(b)")),
            err("regular expression has more than one capturing group: \"(a)(b)\"")
        );
        assert_eq!(
            extract_all(&s("a1 b2 c"), &s("[a-z](\\d?)")),
            Ok(Value::list(vec![s("1"), s("2")]))
        );
        assert!(extract(&s("a"), &s("(")).is_err());
    }

    #[test]
    fn replacing() {
        let r = |args: &[&str]| replace(&args.iter().map(|a| s(a)).collect::<Vec<_>>());
        assert_eq!(r(&["banana", "a", "x"]), Ok(s("bxnxnx")));
        assert_eq!(r(&["abc", "(b)", "[\\1\\\\]"]), Ok(s("a[b\\]c")));
        assert_eq!(
            r(&["abc", "b", "\\2"]),
            err("replacement string references group 2 but regex has only 0 group(s)")
        );
        assert_eq!(
            r(&["abc", "b", "x\\"]),
            err("invalid replacement string: 'x\\' \\ not allowed at end")
        );
        assert_eq!(
            r(&["abc", "b", "\\a"]),
            err("invalid replacement string: '\\a' \\ must be followed by a digit or \\")
        );
        assert_eq!(
            replace(&[s("aaa"), s("a"), s("b"), Value::Int(2)]),
            Ok(s("bba"))
        );
        assert_eq!(
            replace(&[s("aaa"), s("("), s("b"), Value::Int(0)]),
            Ok(s("aaa"))
        );
    }

    #[test]
    fn costs() {
        // ceil(1 + (5+1)*0.1 * (3+1)*0.25 + 1)
        assert_eq!(
            cost_extract(&[s("hello"), s("h.o")], Some(&some("hello"))),
            3
        );
        assert_eq!(cost_replace(&[s("hello"), s("l")], Some(&s("heo"))), 4);
    }
}
