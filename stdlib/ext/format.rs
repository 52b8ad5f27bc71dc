//! `string.format`: cel-go's two printf-style formatters.
//!
//! [`Formatter::V1`] is cel-go's first formatter (strings versions 1 to 3, locale `en_US`):
//! `%f` groups thousands, `%e` prints `2.718280 × 10⁰⁰`, and `%s` quotes strings inside
//! lists and maps. [`Formatter::V2`] (version 4) is locale-independent and also accepts ints
//! and uints for `%d`, `%f` and `%e`.
//!
//! Precision above [`MAX_PRECISION`] is rejected with cel-go's (version 5) message, so a
//! format string cannot ask for gigabytes of digits.

use std::fmt::Write as _;

use kcel::Value;
use kcel::library::budget;
use kcel::library::standard::go_quote;
use kcel::library::standard::{duration_text, format_double, timestamp_text};

/// Which of cel-go's formatters to follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formatter {
    /// cel-go's first formatter (strings versions before 4).
    V1,
    /// cel-go's second formatter (`ext/formatting_v2.go`, strings version 4 on).
    V2,
}

/// The largest precision accepted (cel-go's default limit from strings version 5).
pub const MAX_PRECISION: usize = 100;

const DEFAULT_PRECISION: usize = 6;

/// Why `format` failed; `Display` is cel-go's message.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// A clause without an argument (the argument's index).
    #[error("index {0} out of range")]
    MissingArgument(usize),
    /// A `%` at the end of the format string.
    #[error("unexpected end of string")]
    UnexpectedEnd,
    /// A clause that does not parse.
    #[error("could not parse formatting clause: {0}")]
    Clause(#[from] ClauseError),
    /// A clause that cannot format its argument.
    #[error("error during formatting: {0}")]
    Formatting(#[from] ValueError),
    /// The evaluation's memory budget ran out.
    #[error(transparent)]
    Budget(kcel::EvalError),
    /// More arguments than clauses (found at check time).
    #[error("too many arguments supplied to string.format (expected {expected}, got {given})")]
    TooManyArguments {
        /// The clauses.
        expected: usize,
        /// The arguments.
        given: usize,
    },
}

/// Why a clause does not parse ([`FormatError::Clause`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClauseError {
    /// A bad precision.
    #[error("error while parsing precision: {0}")]
    Precision(#[from] PrecisionError),
    /// No verb after the precision.
    #[error("unexpected end of string")]
    UnexpectedEnd,
    /// A verb cel-go does not have.
    #[error("unrecognized formatting clause \"{0}\"")]
    UnknownVerb(char),
}

/// Why a clause's precision (`.N`) is refused ([`ClauseError::Precision`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrecisionError {
    /// The text ends inside the precision.
    #[error("could not find end of precision specifier")]
    NoEnd,
    /// A `.` without digits.
    #[error(
        "error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax"
    )]
    NoDigits,
    /// More digits than an int holds (the digits).
    #[error(
        "error while converting precision to integer: strconv.Atoi: parsing \"{0}\": value out of range"
    )]
    OutOfRange(String),
    /// Above [`MAX_PRECISION`].
    #[error("precision {0} exceeds maximum allowed precision {MAX_PRECISION}")]
    TooLarge(usize),
}

/// Why a clause cannot format its argument ([`FormatError::Formatting`]).
#[derive(Debug, thiserror::Error)]
pub enum ValueError {
    /// An argument of a type the clause does not take: what the clause takes, in cel-go's
    /// words, and the argument's type name.
    #[error("{expected}, was given {given}")]
    WrongType {
        /// What the clause accepts, in cel-go's words.
        expected: &'static str,
        /// The argument's type name.
        given: String,
    },
    /// A list or map member of a type `%s` cannot print.
    #[error("no formatting function for {0}")]
    NoFormatter(String),
    /// The evaluation's memory or traversal budget ran out while writing.
    #[error(transparent)]
    Budget(kcel::EvalError),
}

/// Formats `args` into `fmt`; the error renders cel-go's message.
pub fn format(fmt: &str, args: &[Value], f: Formatter) -> Result<String, FormatError> {
    let b = fmt.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut arg = 0;
    while i < b.len() {
        if b[i] != b'%' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        let Some(value) = args.get(arg) else {
            return Err(FormatError::MissingArgument(arg));
        };
        if i + 1 >= b.len() {
            return Err(FormatError::UnexpectedEnd);
        }
        let (read, text) = clause(&b[i + 1..], value, f)?;
        out.extend_from_slice(&text);
        budget::within(out.len() as u64).map_err(FormatError::Budget)?;
        i += 1 + read;
        arg += 1;
    }
    budget::reserve(out.len() as u64).map_err(FormatError::Budget)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Counts text built apart and copied into the output.
fn produced(text: &[u8]) -> Result<(), ValueError> {
    budget::reserve(text.len() as u64).map_err(ValueError::Budget)
}

/// Before writing the `n` elements of a list or map: they count against the evaluation's
/// visit budget, and what was written so far against its memory budget (a list that holds
/// one list many times is written in full each time).
fn entering(out: &[u8], n: usize) -> Result<(), ValueError> {
    if !budget::visit(n) {
        return Err(ValueError::Budget(budget::traversal_error()));
    }
    budget::within(out.len() as u64).map_err(ValueError::Budget)
}

/// Parses and applies one clause (after the `%`); returns the bytes read and the output.
fn clause(b: &[u8], v: &Value, f: Formatter) -> Result<(usize, Vec<u8>), FormatError> {
    let (mut i, precision) = precision(b).map_err(ClauseError::Precision)?;
    let Some(&verb) = b.get(i) else {
        return Err(ClauseError::UnexpectedEnd.into());
    };
    i += 1;
    let result = match verb {
        b's' => string_clause(v, f),
        b'd' => decimal(v, f),
        b'f' => fixed(v, precision, f),
        b'e' => scientific(v, precision, f),
        b'b' => binary(v, f),
        b'x' => hex(v, false, f),
        b'X' => hex(v, true, f),
        b'o' => octal(v, f),
        other => return Err(ClauseError::UnknownVerb(char::from(other)).into()),
    };
    Ok((i, result?))
}

/// Parses `.N`; returns the bytes read and the precision if given.
pub(super) fn precision(b: &[u8]) -> Result<(usize, Option<usize>), PrecisionError> {
    if b.first() != Some(&b'.') {
        return Ok((0, None));
    }
    let mut i = 1;
    loop {
        match b.get(i) {
            None => return Err(PrecisionError::NoEnd),
            Some(c) if c.is_ascii_digit() => i += 1,
            Some(_) => break,
        }
    }
    let digits = std::str::from_utf8(&b[1..i]).unwrap_or("");
    let p: usize = match digits.parse() {
        Ok(p) => p,
        Err(_) if digits.is_empty() => return Err(PrecisionError::NoDigits),
        Err(_) => return Err(PrecisionError::OutOfRange(digits.to_string())),
    };
    if p > MAX_PRECISION {
        return Err(PrecisionError::TooLarge(p));
    }
    Ok((i, Some(p)))
}

fn type_err(expected: &'static str, v: &Value) -> ValueError {
    ValueError::WrongType {
        expected,
        given: v.type_name().to_string(),
    }
}

const STRING_ERR: &str = "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps";

/// What a clause accepts, as cel-go words its type errors (`..., was given T` follows).
pub(super) fn expectation(verb: u8, f: Formatter) -> &'static str {
    match (verb, f) {
        (b'd', Formatter::V1) => "decimal clause can only be used on integers",
        (b'd', Formatter::V2) => "decimal clause can only be used on ints, uints, and doubles",
        (b'f', Formatter::V1) => "fixed-point clause can only be used on doubles",
        (b'f', Formatter::V2) => "fixed-point clause can only be used on ints, uints, and doubles",
        (b'e', Formatter::V1) => "scientific clause can only be used on doubles",
        (b'e', Formatter::V2) => "scientific clause can only be used on ints, uints, and doubles",
        (b'b', Formatter::V1) => "only integers and bools can be formatted as binary",
        (b'b', Formatter::V2) => "only ints, uints, and bools can be formatted as binary",
        (b'x' | b'X', Formatter::V1) => {
            "only integers, byte buffers, and strings can be formatted as hex"
        }
        (b'x' | b'X', Formatter::V2) => {
            "only ints, uints, bytes, and strings can be formatted as hex"
        }
        (b'o', Formatter::V1) => "octal clause can only be used on integers",
        (b'o', Formatter::V2) => "octal clause can only be used on ints and uints",
        _ => STRING_ERR,
    }
}

fn special_double(d: f64, f: Formatter) -> Option<&'static str> {
    if d.is_nan() {
        Some("NaN")
    } else if d.is_infinite() {
        Some(match (f, d > 0.0) {
            (Formatter::V2, true) => "Infinity",
            (Formatter::V2, false) => "-Infinity",
            (Formatter::V1, true) => "∞",
            (Formatter::V1, false) => "-∞",
        })
    } else {
        None
    }
}

fn duration_text(v: &chrono::TimeDelta) -> String {
    let nanos = v.num_nanoseconds().unwrap_or(i64::MAX);
    duration_text::format(nanos)
}

/// `%s`.
fn string_clause(v: &Value, f: Formatter) -> Result<Vec<u8>, ValueError> {
    let mut out = Vec::new();
    match f {
        Formatter::V2 => write_v2(&mut out, v)?,
        Formatter::V1 => write_v1(&mut out, v)?,
    }
    Ok(out)
}

/// cel-go's second formatter's `%s`.
fn write_v2(out: &mut Vec<u8>, v: &Value) -> Result<(), ValueError> {
    match v {
        Value::Bool(b) => out.extend_from_slice(b.to_string().as_bytes()),
        Value::Int(i) => out.extend_from_slice(i.to_string().as_bytes()),
        Value::Uint(u) => out.extend_from_slice(u.to_string().as_bytes()),
        Value::Double(d) => match special_double(*d, Formatter::V2) {
            Some(s) => out.extend_from_slice(s.as_bytes()),
            None => out.extend_from_slice(format!("{d}").as_bytes()),
        },
        Value::Bytes(b) => out.extend_from_slice(b),
        Value::String(s) => out.extend_from_slice(s.as_bytes()),
        Value::Duration(d) => out.extend_from_slice(duration_text(d).as_bytes()),
        Value::Timestamp(t) => {
            // cel-go's `formatting_v2.go` formats `argTime.UTC()`, whatever the offset.
            let utc = kcel::Timestamp::utc(t.instant());
            out.extend_from_slice(timestamp_text::format_rfc3339(&utc).as_bytes());
        }
        Value::Null => out.extend_from_slice(b"null"),
        Value::Type(t) => out.extend_from_slice(t.name().as_bytes()),
        Value::List(items) => {
            entering(out, items.len())?;
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                write_v2(out, item)?;
            }
            out.push(b']');
        }
        Value::Map(m) => {
            entering(out, m.len())?;
            let mut entries = Vec::with_capacity(m.len());
            for (k, val) in m.iter() {
                let mut ks = Vec::new();
                write_v2(&mut ks, &k.to_value())?;
                let mut vs = Vec::new();
                write_v2(&mut vs, val)?;
                // Copied into the enclosing text: counted (see `v1_member`).
                produced(&vs)?;
                entries.push((ks, vs));
            }
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            out.push(b'{');
            for (i, (k, val)) in entries.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                out.extend_from_slice(k);
                out.extend_from_slice(b": ");
                out.extend_from_slice(val);
            }
            out.push(b'}');
        }
        other => return Err(type_err(STRING_ERR, other)),
    }
    Ok(())
}

/// cel-go's first formatter's `%s` (its `FormatString`).
fn write_v1(out: &mut Vec<u8>, v: &Value) -> Result<(), ValueError> {
    let text = match v {
        Value::List(items) => {
            entering(out, items.len())?;
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                out.extend_from_slice(v1_member(item)?.as_bytes());
            }
            out.push(b']');
            return Ok(());
        }
        Value::Map(m) => {
            entering(out, m.len())?;
            let mut entries = Vec::with_capacity(m.len());
            for (k, val) in m.iter() {
                let key = match k.to_value() {
                    Value::String(s) => go_quote(&s),
                    other => v1_scalar(&other)?,
                };
                entries.push((key, v1_member(val)?));
            }
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            out.push(b'{');
            for (i, (k, val)) in entries.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                out.extend_from_slice(format!("{k}:{val}").as_bytes());
            }
            out.push(b'}');
            return Ok(());
        }
        Value::Bytes(b) => {
            out.extend_from_slice(b);
            return Ok(());
        }
        other => v1_scalar(other)?,
    };
    out.extend_from_slice(text.as_bytes());
    Ok(())
}

/// A scalar as cel-go's `string()` conversion prints it.
fn v1_scalar(v: &Value) -> Result<String, ValueError> {
    Ok(match v {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => format_double(*d),
        Value::String(s) => s.to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Duration(d) => duration_text(d),
        Value::Timestamp(t) => timestamp_text::format_rfc3339(t),
        Value::Null => "null".into(),
        Value::Type(t) => t.name().to_string(),
        other => return Err(type_err(STRING_ERR, other)),
    })
}

/// A list element or map value inside `%s` (cel-go's `clauseForType` + `quoteForCEL`).
fn v1_member(v: &Value) -> Result<String, ValueError> {
    Ok(match v {
        Value::String(s) => go_quote(s),
        Value::Bytes(b) => format!("b{}", go_quote(&String::from_utf8_lossy(b))),
        Value::Double(d) => {
            if d.is_nan() {
                "\"NaN\"".into()
            } else if d.is_infinite() {
                if *d > 0.0 { "\"+Inf\"" } else { "\"-Inf\"" }.into()
            } else {
                format!("{d:.6}")
            }
        }
        Value::Timestamp(t) => format!(
            "timestamp({})",
            go_quote(&timestamp_text::format_rfc3339(t))
        ),
        Value::Duration(d) => format!("duration({})", go_quote(&duration_text(d))),
        Value::List(_) | Value::Map(_) => {
            let mut out = Vec::new();
            write_v1(&mut out, v)?;
            // Copied into the enclosing text: counted, so that the copies of a deep
            // value's text cannot add up to more than the budget.
            produced(&out)?;
            String::from_utf8_lossy(&out).into_owned()
        }
        Value::Int(_) | Value::Uint(_) | Value::Bool(_) | Value::Null | Value::Type(_) => {
            v1_scalar(v)?
        }
        other => return Err(ValueError::NoFormatter(other.type_name().to_string())),
    })
}

/// `%d`.
fn decimal(v: &Value, f: Formatter) -> Result<Vec<u8>, ValueError> {
    let s = match (v, f) {
        (Value::Int(i), _) => i.to_string(),
        (Value::Uint(u), _) => u.to_string(),
        (Value::Double(d), Formatter::V2) => match special_double(*d, f) {
            Some(s) => s.into(),
            None => format!("{d}"),
        },
        (other, _) => return Err(type_err(expectation(b'd', f), other)),
    };
    Ok(s.into_bytes())
}

/// The double a `%f` or `%e` clause formats, or the error text's prefix.
fn float_arg(v: &Value, f: Formatter) -> Option<f64> {
    match (v, f) {
        (Value::Double(d), _) => Some(*d),
        (Value::Int(i), Formatter::V2) => Some(*i as f64),
        (Value::Uint(u), Formatter::V2) => Some(*u as f64),
        (Value::String(s), Formatter::V1) => match &**s {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// `%f`.
fn fixed(v: &Value, precision: Option<usize>, f: Formatter) -> Result<Vec<u8>, ValueError> {
    let Some(d) = float_arg(v, f) else {
        return Err(type_err(expectation(b'f', f), v));
    };
    if let Some(s) = special_double(d, f) {
        return Ok(s.as_bytes().to_vec());
    }
    let p = precision.unwrap_or(DEFAULT_PRECISION);
    let text = format!("{d:.p$}");
    Ok(match f {
        Formatter::V2 => text,
        Formatter::V1 => group_thousands(&text),
    }
    .into_bytes())
}

/// Inserts `,` between groups of three integer digits (the `en_US` number format).
fn group_thousands(text: &str) -> String {
    let (sign, rest) = match text.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", text),
    };
    let (int, frac) = match rest.find('.') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let mut out = String::from(sign);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out.push_str(frac);
    out
}

/// `%e`.
fn scientific(v: &Value, precision: Option<usize>, f: Formatter) -> Result<Vec<u8>, ValueError> {
    let Some(d) = float_arg(v, f) else {
        return Err(type_err(expectation(b'e', f), v));
    };
    if let Some(s) = special_double(d, f) {
        return Ok(s.as_bytes().to_vec());
    }
    // cel-go's first formatter passes the precision as a width, so it always prints 6 digits.
    let p = match f {
        Formatter::V1 => DEFAULT_PRECISION,
        Formatter::V2 => precision.unwrap_or(DEFAULT_PRECISION),
    };
    let text = format!("{d:.p$e}");
    let (mantissa, exp) = text.split_once('e').unwrap_or((text.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    Ok(match f {
        Formatter::V2 => {
            let sign = if exp < 0 { '-' } else { '+' };
            format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
        }
        Formatter::V1 => {
            let mut out = format!("{mantissa}\u{202f}×\u{202f}10");
            if exp < 0 {
                out.push('⁻');
            }
            for c in format!("{:02}", exp.unsigned_abs()).chars() {
                out.push(superscript(c));
            }
            out
        }
    }
    .into_bytes())
}

fn superscript(c: char) -> char {
    match c {
        '0' => '⁰',
        '1' => '¹',
        '2' => '²',
        '3' => '³',
        '4' => '⁴',
        '5' => '⁵',
        '6' => '⁶',
        '7' => '⁷',
        '8' => '⁸',
        '9' => '⁹',
        c => c,
    }
}

/// An integer in a base, with a leading `-` for negative ints (Go's `%b`, `%o`, `%x`).
fn int_in_base(v: &Value, base: u32, upper: bool) -> Option<String> {
    let (neg, mag) = match v {
        Value::Int(i) => (*i < 0, i.unsigned_abs()),
        Value::Uint(u) => (false, *u),
        _ => return None,
    };
    let digits = match (base, upper) {
        (2, _) => format!("{mag:b}"),
        (8, _) => format!("{mag:o}"),
        (_, false) => format!("{mag:x}"),
        (_, true) => format!("{mag:X}"),
    };
    Some(if neg { format!("-{digits}") } else { digits })
}

/// `%b`.
fn binary(v: &Value, f: Formatter) -> Result<Vec<u8>, ValueError> {
    if let Value::Bool(b) = v {
        return Ok(if *b { b"1".to_vec() } else { b"0".to_vec() });
    }
    int_in_base(v, 2, false)
        .map(String::into_bytes)
        .ok_or_else(|| type_err(expectation(b'b', f), v))
}

/// `%x` / `%X`.
fn hex(v: &Value, upper: bool, f: Formatter) -> Result<Vec<u8>, ValueError> {
    let bytes: Option<&[u8]> = match v {
        Value::String(s) => Some(s.as_bytes()),
        Value::Bytes(b) => Some(b),
        _ => None,
    };
    if let Some(bytes) = bytes {
        let mut out = String::with_capacity(bytes.len() * 2);
        for b in bytes {
            let _ = if upper {
                write!(out, "{b:02X}")
            } else {
                write!(out, "{b:02x}")
            };
        }
        return Ok(out.into_bytes());
    }
    int_in_base(v, 16, upper)
        .map(String::into_bytes)
        .ok_or_else(|| type_err(expectation(b'x', f), v))
}

/// `%o`.
fn octal(v: &Value, f: Formatter) -> Result<Vec<u8>, ValueError> {
    int_in_base(v, 8, false)
        .map(String::into_bytes)
        .ok_or_else(|| type_err(expectation(b'o', f), v))
}

#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;
    use chrono::TimeDelta;

    fn fmt2(f: &str, args: Vec<Value>) -> Result<String, String> {
        format(f, &args, Formatter::V2).map_err(|e| e.to_string())
    }

    fn fmt1(f: &str, args: Vec<Value>) -> Result<String, String> {
        format(f, &args, Formatter::V1).map_err(|e| e.to_string())
    }

    #[test]
    fn v2_clauses() {
        let cases: Vec<(&str, Vec<Value>, &str)> = vec![
            ("%%%s%%", vec![Value::from("x")], "%x%"),
            ("%.3f", vec![Value::Double(1.2345)], "1.234"),
            ("%.0f", vec![Value::Double(2.5)], "2"),
            ("%f", vec![Value::Int(2)], "2.000000"),
            ("%e", vec![Value::Double(2.71828)], "2.718280e+00"),
            ("%.6e", vec![Value::Double(1052.032911275)], "1.052033e+03"),
            ("%e", vec![Value::Double(0.00012)], "1.200000e-04"),
            ("%d", vec![Value::Double(f64::NAN)], "NaN"),
            ("%f", vec![Value::Double(f64::NEG_INFINITY)], "-Infinity"),
            ("%b", vec![Value::Int(-5)], "-101"),
            ("%x", vec![Value::Int(-30)], "-1e"),
            ("%X", vec![Value::from("Hello")], "48656C6C6F"),
            ("%o", vec![Value::Uint(65535)], "177777"),
            (
                "%s",
                vec![Value::Duration(TimeDelta::seconds(6347))],
                "6347s",
            ),
            ("%s", vec![Value::Double(56.8)], "56.8"),
            ("%s", vec![Value::Null], "null"),
        ];
        for (f, args, want) in cases {
            assert_eq!(fmt2(f, args).as_deref(), Ok(want), "{f}");
        }
    }

    #[test]
    fn v2_errors() {
        assert_eq!(
            fmt2("%d %d", vec![Value::Int(1)]),
            Err("index 1 out of range".into())
        );
        assert_eq!(
            fmt2("%a", vec![Value::Int(1)]),
            Err("could not parse formatting clause: unrecognized formatting clause \"a\"".into())
        );
        assert_eq!(
            fmt2("%", vec![Value::Int(1)]),
            Err("unexpected end of string".into())
        );
        assert_eq!(
            fmt2("%.3", vec![Value::Int(1)]),
            Err("could not parse formatting clause: error while parsing precision: could not find end of precision specifier".into())
        );
        assert_eq!(
            fmt2("%b", vec![Value::from("abc")]),
            Err("error during formatting: only ints, uints, and bools can be formatted as binary, was given string".into())
        );
        assert!(fmt2("%.1000f", vec![Value::Double(1.0)]).is_err());
    }

    #[test]
    fn v1_clauses() {
        assert_eq!(
            fmt1("%f", vec![Value::Double(1234.5)]).as_deref(),
            Ok("1,234.500000")
        );
        assert_eq!(
            fmt1("%e", vec![Value::Double(2.71828)]).as_deref(),
            Ok("2.718280\u{202f}×\u{202f}10⁰⁰")
        );
        assert_eq!(
            fmt1("%f", vec![Value::from("Infinity")]).as_deref(),
            Ok("∞")
        );
        assert_eq!(
            fmt1("%s", vec![Value::Double(0.000000002)]).as_deref(),
            Ok("2e-09")
        );
        assert_eq!(
            fmt1(
                "%s",
                vec![Value::list(vec![Value::Double(2.71), Value::from("a")])]
            )
            .as_deref(),
            Ok("[2.710000, \"a\"]")
        );
        assert_eq!(
            fmt1("%d", vec![Value::Double(1.0)]),
            Err("error during formatting: decimal clause can only be used on integers, was given double".into())
        );
        assert_eq!(
            fmt1("%f", vec![Value::Int(1)]),
            Err("error during formatting: fixed-point clause can only be used on doubles, was given int".into())
        );
    }
}
