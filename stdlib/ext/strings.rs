//! cel-go's `ext.Strings`: string functions on Unicode code points.
//!
//! Version 0: `charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`, `replace`,
//! `split`, `substring`, `trim`, `join`; version 1 adds `format` (cel-go's first formatter)
//! and `strings.quote`; version 3 adds `reverse`; version 4 switches `format` to the second
//! formatter (locale-independent, numbers accepted by `%f`, `%e` and `%d`). cel-go's cost
//! trackers for these functions only exist from version 5, so costs are the defaults (1),
//! but for `format` and `strings.quote`, which cel-go's runtime tracker prices as a
//! traversal of their first argument (the format string, the string quoted).

use std::sync::Arc;

use super::format::{self, Formatter};
use kcel::Value;
use kcel::library::budget;
use kcel::library::{CallCost, CallEstimate, EstimateArgs, STRING_TRAVERSAL_FACTOR, SizeEstimate};
use kcel::library::{Implementation, Library, overloads};
use kcel::{EvalError, EvalResult};

/// Builds the library at `version`.
pub fn library(version: u32) -> Library {
    let mut lib = Library::new("cel.lib.ext.strings", version);
    overloads!(lib.function(
        "charAt",
        "The code point at an index as a string; the length itself gives ''.",
    );
        member "string_char_at_int" ("string", "int") -> "string"
            => Implementation::Binary(char_at);
    )
    .examples(&["'hello'.charAt(4) == 'o'", "'hello'.charAt(5) == ''"]);

    overloads!(lib.function(
        "indexOf",
        "The code-point index of the first occurrence of a substring (at or after an offset), or -1.",
    );
        member "string_index_of_string" ("string", "string") -> "int"
            => Implementation::Binary(index_of);
        member "string_index_of_string_int" ("string", "string", "int") -> "int"
            => Implementation::Nary(index_of_offset);
    )
    .examples(&[
        "'hello mellow'.indexOf('') == 0",
        "'hello mellow'.indexOf('ello') == 1",
        "'hello mellow'.indexOf('jello') == -1",
        "'hello mellow'.indexOf('', 2) == 2",
        "'hello mellow'.indexOf('ello', 2) == 7",
    ]);

    overloads!(lib.function(
        "lastIndexOf",
        "The code-point index of the last occurrence of a substring (at or before an offset), or -1.",
    );
        member "string_last_index_of_string" ("string", "string") -> "int"
            => Implementation::Binary(last_index_of);
        member "string_last_index_of_string_int" ("string", "string", "int") -> "int"
            => Implementation::Nary(last_index_of_offset);
    )
    .examples(&[
        "'hello mellow'.lastIndexOf('') == 12",
        "'hello mellow'.lastIndexOf('ello') == 7",
        "'hello mellow'.lastIndexOf('jello') == -1",
        "'hello mellow'.lastIndexOf('ello', 6) == 1",
    ]);

    overloads!(lib.function("lowerAscii", "Lower-cases the ASCII letters of a string.");
        member "string_lower_ascii" ("string") -> "string" => Implementation::Unary(lower_ascii);
    )
    .examples(&[
        "'TacoCat'.lowerAscii() == 'tacocat'",
        "'TacoCÆt Xii'.lowerAscii() == 'tacocÆt xii'",
    ]);

    overloads!(lib.function(
        "replace",
        "Replaces occurrences of a substring (all, or at most n; n < 0 means all).",
    );
        member "string_replace_string_string" ("string", "string", "string") -> "string"
            => Implementation::Nary(replace);
        member "string_replace_string_string_int" ("string", "string", "string", "int") -> "string"
            => Implementation::Nary(replace);
    )
    .examples(&[
        "'hello hello'.replace('he', 'we') == 'wello wello'",
        "'hello hello'.replace('he', 'we', -1) == 'wello wello'",
        "'hello hello'.replace('he', 'we', 1) == 'wello hello'",
        "'hello hello'.replace('he', 'we', 0) == 'hello hello'",
    ]);

    overloads!(lib.function(
        "split",
        "Splits a string at a separator (into at most n parts; n < 0 means all).",
    );
        member "string_split_string" ("string", "string") -> "list(string)"
            => Implementation::Nary(split);
        member "string_split_string_int" ("string", "string", "int") -> "list(string)"
            => Implementation::Nary(split);
    )
    .examples(&[
        "'hello hello hello'.split(' ') == ['hello', 'hello', 'hello']",
        "'hello hello hello'.split(' ', 0) == []",
        "'hello hello hello'.split(' ', 1) == ['hello hello hello']",
        "'hello hello hello'.split(' ', 2) == ['hello', 'hello hello']",
        "'hello hello hello'.split(' ', -1) == ['hello', 'hello', 'hello']",
    ]);

    overloads!(lib.function(
        "substring",
        "The code points from a start index (inclusive) to an end index (exclusive).",
    );
        member "string_substring_int" ("string", "int") -> "string"
            => Implementation::Nary(substring);
        member "string_substring_int_int" ("string", "int", "int") -> "string"
            => Implementation::Nary(substring);
    )
    .examples(&[
        "'tacocat'.substring(4) == 'cat'",
        "'tacocat'.substring(0, 4) == 'taco'",
    ]);

    overloads!(lib.function("trim", "Removes leading and trailing Unicode whitespace.");
        member "string_trim" ("string") -> "string" => Implementation::Unary(trim);
    )
    .examples(&["'  \\ttrim\\n    '.trim() == 'trim'"]);

    overloads!(lib.function("upperAscii", "Upper-cases the ASCII letters of a string.");
        member "string_upper_ascii" ("string") -> "string" => Implementation::Unary(upper_ascii);
    )
    .examples(&[
        "'TacoCat'.upperAscii() == 'TACOCAT'",
        "'TacoCÆt Xii'.upperAscii() == 'TACOCÆT XII'",
    ]);

    overloads!(lib.function(
        "join",
        "Concatenates a list of strings, with an optional separator between elements.",
    );
        member "list_join" ("list(string)") -> "string" => Implementation::Nary(join);
        member "list_join_string" ("list(string)", "string") -> "string"
            => Implementation::Nary(join);
    )
    .examples(&[
        "['hello', 'mellow'].join() == 'hellomellow'",
        "['hello', 'mellow'].join(' ') == 'hello mellow'",
        "[].join('/') == ''",
    ]);

    if version >= 1 {
        // As cel-go's format validator configures it.
        lib.exempt_from_homogeneous("format");
        lib.add_validator(
            "cel.validator.string_format",
            if version >= 4 {
                super::format_check::validate_v2
            } else {
                super::format_check::validate_v1
            },
        );
        let (imp, doc) = if version >= 4 {
            (
                Implementation::Binary(format_v2),
                "printf-style formatting: %s %d %f %e %b %x %X %o with optional .N precision, %% for a percent sign.",
            )
        } else {
            (
                Implementation::Binary(format_v1),
                "printf-style formatting (cel-go's first formatter, locale en_US): %s %d %f %e %b %x %X %o, %%.",
            )
        };
        overloads!(lib.function("format", doc);
            member "string_format" ("string", "list(dyn)") -> "string"
                => imp, cost: CallCost::TraverseFirst, estimate: estimate_format;
        )
        .examples(&[
            "'this is a string: %s'.format(['hello']) == 'this is a string: hello'",
            "'%d apples'.format([3]) == '3 apples'",
            "'%.2f'.format([3.14159]) == '3.14'",
            "'%b %o %x %X'.format([5, 8, 255, 255]) == '101 10 ff FF'",
            "'100%%'.format([]) == '100%'",
        ]);
        overloads!(lib.function(
            "strings.quote",
            "Quotes a string as a CEL double-quoted literal, escaping special characters.",
        );
            global "strings_quote" ("string") -> "string"
                => Implementation::Unary(quote), cost: CallCost::TraverseFirst,
                estimate: estimate_quote;
        )
        .examples(&[
            "strings.quote('single-quote with \"double quote\"') == '\"single-quote with \\\\\"double quote\\\\\"\"'",
            "strings.quote('two\\nlines') == '\"two\\\\nlines\"'",
        ]);
    }
    if version >= 3 {
        overloads!(lib.function("reverse", "Reverses the code points of a string.");
            member "string_reverse" ("string") -> "string" => Implementation::Unary(reverse);
        )
        .examples(&[
            "'gums'.reverse() == 'smug'",
            "'John Smith'.reverse() == 'htimS nhoJ'",
        ]);
    }
    lib
}

fn nso() -> EvalError {
    EvalError::no_such_overload()
}

fn str_arg(v: Option<&Value>) -> Result<&str, EvalError> {
    match v {
        Some(Value::String(s)) => Ok(s),
        _ => Err(nso()),
    }
}

fn int_arg(v: Option<&Value>) -> Result<i64, EvalError> {
    match v {
        Some(Value::Int(i)) => Ok(*i),
        _ => Err(nso()),
    }
}

fn out_of_range(i: i64) -> EvalError {
    EvalError::new(format!("index out of range: {i}"))
}

fn string(s: impl Into<Arc<str>>) -> EvalResult {
    Ok(Value::String(s.into()))
}

/// `s.charAt(i)`.
pub fn char_at(s: &Value, i: &Value) -> EvalResult {
    let (s, i) = (str_arg(Some(s))?, int_arg(Some(i))?);
    let len = s.chars().count();
    match usize::try_from(i) {
        Ok(n) if n == len => string(""),
        Ok(n) if n < len => match s.chars().nth(n) {
            Some(c) => string(c.to_string()),
            None => string(""),
        },
        _ => Err(out_of_range(i)),
    }
}

/// `s.indexOf(sub)`.
pub fn index_of(s: &Value, sub: &Value) -> EvalResult {
    index_of_offset(&[s.clone(), sub.clone(), Value::Int(0)])
}

/// `s.indexOf(sub, offset)`.
pub fn index_of_offset(args: &[Value]) -> EvalResult {
    let (runes, needle, off) = match search_args(args)? {
        Search::Answer(i) => return Ok(Value::Int(i)),
        Search::Find(r, n, o) => (r, n, o),
    };
    let found =
        (off..=runes.len() - needle.len()).find(|&i| runes[i..i + needle.len()] == needle[..]);
    Ok(Value::Int(found.map_or(-1, |i| i as i64)))
}

/// The shared start of `indexOf`/`lastIndexOf` with an offset: the code points of the
/// string and the substring and the offset, or the answer when no search is needed.
enum Search {
    Answer(i64),
    Find(Vec<char>, Vec<char>, usize),
}

fn search_args(args: &[Value]) -> Result<Search, EvalError> {
    if args.len() != 3 {
        return Err(nso());
    }
    let (s, sub, off) = (
        str_arg(args.first())?,
        str_arg(args.get(1))?,
        int_arg(args.get(2))?,
    );
    if off < 0 {
        return Err(out_of_range(off));
    }
    let runes: Vec<char> = s.chars().collect();
    let off = usize::try_from(off).unwrap_or(usize::MAX);
    if sub.is_empty() {
        return Ok(Search::Answer(off.min(runes.len()) as i64));
    }
    let needle: Vec<char> = sub.chars().collect();
    if off >= runes.len() || needle.len() > runes.len() {
        return Ok(Search::Answer(-1));
    }
    Ok(Search::Find(runes, needle, off))
}

/// `s.lastIndexOf(sub)`.
pub fn last_index_of(s: &Value, sub: &Value) -> EvalResult {
    let (text, needle) = (str_arg(Some(s))?, str_arg(Some(sub))?);
    let len = text.chars().count();
    if needle.is_empty() {
        return Ok(Value::Int(len as i64));
    }
    // cel-go compares byte lengths here.
    if text.len() < needle.len() {
        return Ok(Value::Int(-1));
    }
    last_index_of_offset(&[s.clone(), sub.clone(), Value::Int(len as i64 - 1)])
}

/// `s.lastIndexOf(sub, offset)`.
pub fn last_index_of_offset(args: &[Value]) -> EvalResult {
    let (runes, needle, off) = match search_args(args)? {
        Search::Answer(i) => return Ok(Value::Int(i)),
        Search::Find(r, n, o) => (r, n, o),
    };
    let start = off.min(runes.len() - needle.len());
    let found = (0..=start)
        .rev()
        .find(|&i| runes[i..i + needle.len()] == needle[..]);
    Ok(Value::Int(found.map_or(-1, |i| i as i64)))
}

/// `s.lowerAscii()`.
pub fn lower_ascii(s: &Value) -> EvalResult {
    let s = str_arg(Some(s))?;
    budget::reserve(s.len() as u64)?;
    string(s.to_ascii_lowercase())
}

/// `s.upperAscii()`.
pub fn upper_ascii(s: &Value) -> EvalResult {
    let s = str_arg(Some(s))?;
    budget::reserve(s.len() as u64)?;
    string(s.to_ascii_uppercase())
}

/// `s.replace(old, new)` / `s.replace(old, new, n)`: Go's `strings.Replace`.
pub fn replace(args: &[Value]) -> EvalResult {
    let n = match args.len() {
        3 => -1,
        4 => int_arg(args.get(3))?,
        _ => return Err(nso()),
    };
    let (s, old, new) = (
        str_arg(args.first())?,
        str_arg(args.get(1))?,
        str_arg(args.get(2))?,
    );
    budget::reserve(replaced_len(s, old, new, n))?;
    string(go_replace(s, old, new, n))
}

/// The length of [`go_replace`]'s result, worked out before it is built.
fn replaced_len(s: &str, old: &str, new: &str, n: i64) -> u64 {
    let limit = u64::try_from(n).unwrap_or(u64::MAX);
    let matches = if old.is_empty() {
        s.chars().count() as u64 + 1
    } else {
        s.matches(old).count() as u64
    }
    .min(limit);
    let grown = (s.len() as u64).saturating_add(matches.saturating_mul(new.len() as u64));
    grown.saturating_sub(matches.saturating_mul(old.len() as u64))
}

/// Go's `strings.Replace`: an empty `old` matches before every code point and at the end.
pub fn go_replace(s: &str, old: &str, new: &str, n: i64) -> String {
    let limit = usize::try_from(n).unwrap_or(usize::MAX);
    if limit == 0 || old == new && !old.is_empty() {
        return s.to_string();
    }
    if !old.is_empty() {
        return s.replacen(old, new, limit);
    }
    let mut out = String::with_capacity(s.len() + new.len());
    let mut count = 0;
    for c in s.chars() {
        if count < limit {
            out.push_str(new);
            count += 1;
        }
        out.push(c);
    }
    if count < limit {
        out.push_str(new);
    }
    out
}

/// `s.split(sep)` / `s.split(sep, n)`: Go's `strings.Split` / `strings.SplitN`.
pub fn split(args: &[Value]) -> EvalResult {
    let n = match args.len() {
        2 => -1,
        3 => int_arg(args.get(2))?,
        _ => return Err(nso()),
    };
    let (s, sep) = (str_arg(args.first())?, str_arg(args.get(1))?);
    let parts = go_split(s, sep, n);
    budget::reserve_values(parts.len())?;
    Ok(Value::list(
        parts.into_iter().map(Value::from).collect::<Vec<_>>(),
    ))
}

/// Go's `strings.SplitN`: `n == 0` gives no parts, `n < 0` all parts; an empty separator
/// splits into code points.
pub fn go_split<'a>(s: &'a str, sep: &str, n: i64) -> Vec<&'a str> {
    if n == 0 {
        return Vec::new();
    }
    let limit = usize::try_from(n).unwrap_or(usize::MAX);
    if sep.is_empty() {
        let mut parts: Vec<&str> = Vec::new();
        let mut rest = s;
        while !rest.is_empty() {
            if parts.len() + 1 == limit {
                parts.push(rest);
                return parts;
            }
            let w = rest.chars().next().map_or(1, char::len_utf8);
            parts.push(&rest[..w]);
            rest = &rest[w..];
        }
        return parts;
    }
    s.splitn(limit, sep).collect()
}

/// `s.substring(start)` / `s.substring(start, end)`.
pub fn substring(args: &[Value]) -> EvalResult {
    // Counts code points before it knows the output's size.
    budget::check()?;
    let s = str_arg(args.first())?;
    let start = int_arg(args.get(1))?;
    let len = s.chars().count() as i64;
    let end = match args.len() {
        2 => None,
        3 => Some(int_arg(args.get(2))?),
        _ => return Err(nso()),
    };
    if let Some(end) = end {
        if start > end {
            return Err(EvalError::new(format!(
                "invalid substring range. start: {start}, end: {end}"
            )));
        }
    }
    if !(0..=len).contains(&start) {
        return Err(out_of_range(start));
    }
    let end = end.unwrap_or(len);
    if !(0..=len).contains(&end) {
        return Err(out_of_range(end));
    }
    // Both bounds are within 0..=len here.
    let out: String = s
        .chars()
        .skip(start as usize)
        .take((end - start) as usize)
        .collect();
    budget::reserve(out.len() as u64)?;
    string(out)
}

/// `s.trim()`: Go's `strings.TrimSpace` (Unicode white space).
pub fn trim(s: &Value) -> EvalResult {
    let trimmed = str_arg(Some(s))?.trim_matches(is_go_space);
    budget::reserve(trimmed.len() as u64)?;
    string(trimmed)
}

/// Go's `unicode.IsSpace`.
fn is_go_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{85}' | '\u{A0}'
    ) || (c as u32 > 0xff && c.is_whitespace())
}

/// `list.join()` / `list.join(sep)`.
pub fn join(args: &[Value]) -> EvalResult {
    let Some(Value::List(items)) = args.first() else {
        return Err(nso());
    };
    let sep = match args.len() {
        1 => "",
        2 => str_arg(args.get(1))?,
        _ => return Err(nso()),
    };
    // The result's length first (elements that are not strings fail below).
    let texts: u64 = items
        .iter()
        .map(|v| match v {
            Value::String(s) => s.len() as u64,
            _ => 0,
        })
        .sum();
    let seps = (items.len().saturating_sub(1) as u64).saturating_mul(sep.len() as u64);
    budget::reserve(texts.saturating_add(seps))?;
    let mut out = String::new();
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        match v {
            Value::String(s) => out.push_str(s),
            other => {
                return Err(EvalError::new(format!(
                    "join: invalid input: {}",
                    kcel::library::standard::go_display(other)
                )));
            }
        }
    }
    string(out)
}

/// `strings.quote(s)`: a double-quoted CEL literal of the string.
pub fn quote(s: &Value) -> EvalResult {
    let s = str_arg(Some(s))?;
    // At most two bytes for each escaped byte.
    budget::reserve(2 * s.len() as u64 + 2)?;
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\u{07}' => out.push_str("\\a"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0C}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{0B}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    string(out)
}

/// `s.reverse()`: the code points in reverse order.
pub fn reverse(s: &Value) -> EvalResult {
    let s = str_arg(Some(s))?;
    budget::reserve(s.len() as u64)?;
    string(s.chars().rev().collect::<String>())
}

/// `fmt.format(args)` with cel-go's first formatter (strings versions 1 to 3).
pub fn format_v1(fmt: &Value, args: &Value) -> EvalResult {
    format_with(fmt, args, Formatter::V1)
}

/// `fmt.format(args)` with cel-go's second formatter (strings version 4 and later).
pub fn format_v2(fmt: &Value, args: &Value) -> EvalResult {
    format_with(fmt, args, Formatter::V2)
}

fn format_with(fmt: &Value, args: &Value, f: Formatter) -> EvalResult {
    match (fmt, args) {
        // Budget errors included, the failure is an ordinary error with the message.
        (Value::String(s), Value::List(items)) => format::format(s, items, f)
            .map(Value::from)
            .map_err(|e| EvalError::new(e.to_string())),
        _ => Err(nso()),
    }
}

/// cel-go's checker estimate for `format`: a traversal of the format string (the result
/// size is unbounded).
fn estimate_format(e: &EstimateArgs<'_>) -> CallEstimate {
    CallEstimate {
        cost: super::target_size(e).times_factor(STRING_TRAVERSAL_FACTOR),
        result_size: None,
    }
}

/// cel-go's checker estimate for `strings.quote`: a traversal; the result gains two quotes
/// and at most doubles.
fn estimate_quote(e: &EstimateArgs<'_>) -> CallEstimate {
    let sz = super::arg_size(e, 0);
    CallEstimate {
        cost: sz.times_factor(STRING_TRAVERSAL_FACTOR),
        result_size: Some(SizeEstimate {
            min: sz.min.saturating_add(2),
            max: sz.max.saturating_mul(2).saturating_add(2),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::from(x)
    }

    fn err(m: &str) -> EvalResult {
        Err(EvalError::new(m))
    }

    #[test]
    fn char_at_counts_code_points() {
        let cases: &[(&str, i64, EvalResult)] = &[
            ("tacocat", 3, Ok(s("o"))),
            ("tacocat", 7, Ok(s(""))),
            ("©αT", 1, Ok(s("α"))),
            ("tacocat", 30, err("index out of range: 30")),
            ("tacocat", -1, err("index out of range: -1")),
        ];
        for (text, i, want) in cases {
            assert_eq!(
                &char_at(&s(text), &Value::Int(*i)),
                want,
                "{text}.charAt({i})"
            );
        }
        assert_eq!(char_at(&Value::Int(1), &Value::Int(1)), Err(nso()));
    }

    #[test]
    fn index_of_and_last_index_of() {
        let idx = |t: &str, sub: &str, off: i64| index_of_offset(&[s(t), s(sub), Value::Int(off)]);
        let last =
            |t: &str, sub: &str, off: i64| last_index_of_offset(&[s(t), s(sub), Value::Int(off)]);
        assert_eq!(index_of(&s("tacocat"), &s("")), Ok(Value::Int(0)));
        assert_eq!(index_of(&s("tacocat"), &s("ac")), Ok(Value::Int(1)));
        assert_eq!(index_of(&s("ta©o©αT"), &s("©")), Ok(Value::Int(2)));
        assert_eq!(idx("ta©o©αT", "©", 3), Ok(Value::Int(4)));
        assert_eq!(idx("tacocat", "a", 30), Ok(Value::Int(-1)));
        assert_eq!(idx("tacocat", "", 30), Ok(Value::Int(7)));
        assert_eq!(idx("tacocat", "a", -1), err("index out of range: -1"));
        assert_eq!(index_of(&s("a"), &s("abc")), Ok(Value::Int(-1)));
        assert_eq!(last_index_of(&s("tacocat"), &s("")), Ok(Value::Int(7)));
        assert_eq!(last_index_of(&s("tacocat"), &s("at")), Ok(Value::Int(5)));
        assert_eq!(last_index_of(&s("ta©o©αT"), &s("©")), Ok(Value::Int(4)));
        assert_eq!(last("ta©o©αT", "©", 3), Ok(Value::Int(2)));
        assert_eq!(last("tacocat", "a", -1), err("index out of range: -1"));
        assert_eq!(last("tacocat", "a", 30), Ok(Value::Int(-1)));
        assert_eq!(last("tacocat", "", 3), Ok(Value::Int(3)));
        assert_eq!(last_index_of(&s(""), &s("a")), Ok(Value::Int(-1)));
    }

    #[test]
    fn replace_and_split_follow_go() {
        assert_eq!(go_replace("abc", "", "-", -1), "-a-b-c-");
        assert_eq!(go_replace("abc", "", "-", 2), "-a-bc");
        assert_eq!(go_replace("aaa", "a", "b", 2), "bba");
        assert_eq!(go_replace("aaa", "a", "b", 0), "aaa");
        assert_eq!(go_split("a,b,c", ",", 2), vec!["a", "b,c"]);
        assert_eq!(go_split("abc", "", -1), vec!["a", "b", "c"]);
        assert_eq!(go_split("abc", "", 2), vec!["a", "bc"]);
        assert_eq!(go_split("", ",", -1), vec![""]);
        assert_eq!(go_split("", "", -1), Vec::<&str>::new());
        assert_eq!(go_split("a", ",", 0), Vec::<&str>::new());
    }

    #[test]
    fn substring_errors_match_cel_go() {
        let sub = |a: i64, b: i64| substring(&[s("tacocat"), Value::Int(a), Value::Int(b)]);
        assert_eq!(sub(0, 4), Ok(s("taco")));
        assert_eq!(sub(4, 3), err("invalid substring range. start: 4, end: 3"));
        assert_eq!(sub(1, 50), err("index out of range: 50"));
        assert_eq!(sub(49, 50), err("index out of range: 49"));
        assert_eq!(sub(-1, 2), err("index out of range: -1"));
        assert_eq!(
            substring(&[s("tacocat"), Value::Int(40)]),
            err("index out of range: 40")
        );
        assert_eq!(substring(&[s("ta©o©αT"), Value::Int(5)]), Ok(s("αT")));
    }

    #[test]
    fn trim_casing_join_quote_reverse() {
        assert_eq!(trim(&s("\u{a0}\u{2003} x \u{85}")), Ok(s("x")));
        assert_eq!(lower_ascii(&s("TacoCÆt")), Ok(s("tacocÆt")));
        assert_eq!(upper_ascii(&s("tacocæt")), Ok(s("TACOCæT")));
        assert_eq!(
            join(&[Value::list(vec![s("a"), s("b")]), s("-")]),
            Ok(s("a-b"))
        );
        assert_eq!(
            join(&[Value::list(vec![s("a"), Value::Int(1)])]),
            err("join: invalid input: 1")
        );
        assert_eq!(quote(&s("a\"b\\\u{07}\n")), Ok(s("\"a\\\"b\\\\\\a\\n\"")));
        assert_eq!(reverse(&s("©αT")), Ok(s("Tα©")));
    }

    #[test]
    fn format_arguments_may_mix_types() {
        let mut env = kcel::Env::new();
        env.set_homogeneous_literals(true);
        assert!(env.compile("'%s %d'.format(['a', 1])").is_err());
        env.add_library(&library(2));
        assert!(env.compile("'%s %d'.format(['a', 1])").is_ok());
        assert!(env.compile("['a', 1].size() == 2").is_err());
    }

    #[test]
    fn versions_gate_functions() {
        let names = |v: u32| -> Vec<String> {
            library(v)
                .functions()
                .iter()
                .map(|f| f.name().to_string())
                .collect()
        };
        assert!(!names(0).contains(&"format".to_string()));
        assert!(names(1).contains(&"strings.quote".to_string()));
        assert!(!names(2).contains(&"reverse".to_string()));
        assert!(names(3).contains(&"reverse".to_string()));
    }
}
