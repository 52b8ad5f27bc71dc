//! Type conversions: `int()`, `uint()`, `double()`, `string()`, `bytes()`, `bool()`,
//! `timestamp()`, `duration()`, `dyn()` and `type()`, with cel-go's ranges, parsing rules and
//! error messages.

use chrono::TimeDelta;
use std::sync::Arc;

use super::{
    TWO_POW_63, TWO_POW_64, conversion_error, duration_text, timestamp_text, uint_overflow,
};
use crate::__overloads as overloads;
use crate::cost::CallCost;
use crate::error::EvalError;
use crate::registry::{CallShape, Implementation, Library, Specialization, TimeKernel};
use crate::value::EvalResult;
use crate::value::{Timestamp, Value};

/// Declares the conversion functions.
pub fn declare(lib: &mut Library) {
    overloads!(lib.function("type", "The type of a value, as a type value.");
        global "type" ("A") -> "type(A)" => Implementation::Unary(type_of);
    )
    .examples(&[
        "type(1) == int",
        "type('hello') == string",
        "type(int) == type",
        "type(type) == type",
    ]);

    overloads!(lib.function("bool", "Converts a value to a bool.");
        global "bool_to_bool" ("bool") -> "bool" => Implementation::Unary(to_bool);
        global "string_to_bool" ("string") -> "bool" => Implementation::Unary(to_bool);
    )
    .examples(&["bool(true)", "bool('true')", "bool('TRUE')", "!bool('f')"]);

    overloads!(lib.function("bytes", "Converts a value to bytes (strings as UTF-8).");
        global "bytes_to_bytes" ("bytes") -> "bytes" => Implementation::Unary(to_bytes);
        global "string_to_bytes" ("string") -> "bytes" => Implementation::Unary(to_bytes),
            cost: CallCost::TraverseFirst, shape: CallShape::Utf8 { to_bytes: true };
    )
    .examples(&["bytes(b'abc') == b'abc'", "bytes('hello') == b'hello'"]);

    overloads!(lib.function("double", "Converts a value to a double.");
        global "double_to_double" ("double") -> "double" => Implementation::Unary(to_double);
        global "int64_to_double" ("int") -> "double" => Implementation::Unary(to_double);
        global "uint64_to_double" ("uint") -> "double" => Implementation::Unary(to_double);
        global "string_to_double" ("string") -> "double" => Implementation::Unary(to_double);
    )
    .examples(&[
        "double(1.5) == 1.5",
        "double(123) == 123.0",
        "double(123u) == 123.0",
        "double('1.5') == 1.5",
        "double('1e3') == 1000.0",
    ]);

    overloads!(lib.function(
        "duration",
        "Converts a value to a google.protobuf.Duration; strings use Go's duration syntax.",
    );
        global "duration_to_duration" ("google.protobuf.Duration") -> "google.protobuf.Duration"
            => Implementation::Unary(to_duration),
            specialization: Specialization::Time(TimeKernel::DurationToDuration);
        global "string_to_duration" ("string") -> "google.protobuf.Duration"
            => Implementation::Unary(to_duration),
            specialization: Specialization::Time(TimeKernel::StringToDuration);
    )
    .examples(&[
        "duration(duration('1s')) == duration('1s')",
        "duration('1h2m3s') == duration('3723s')",
        "duration('-1.5h') == duration('-90m')",
        "duration('1us') == duration('1000ns')",
    ]);

    overloads!(lib.function(
        "dyn",
        "Marks a value as dynamically typed for the type checker; returns it unchanged.",
    );
        global "to_dyn" ("A") -> "dyn" => Implementation::Unary(to_dyn);
    )
    .examples(&["dyn(1) == 1", "dyn([1, 'one']).size() == 2"]);

    overloads!(lib.function("int", "Converts a value to an int.");
        global "int64_to_int64" ("int") -> "int" => Implementation::Unary(to_int);
        global "uint64_to_int64" ("uint") -> "int" => Implementation::Unary(to_int);
        global "double_to_int64" ("double") -> "int" => Implementation::Unary(to_int);
        global "string_to_int64" ("string") -> "int" => Implementation::Unary(to_int);
        global "timestamp_to_int64" ("google.protobuf.Timestamp") -> "int"
            => Implementation::Unary(to_int);
        global "duration_to_int64" ("google.protobuf.Duration") -> "int"
            => Implementation::Unary(to_int);
    )
    .examples(&[
        "int(123) == 123",
        "int(123u) == 123",
        "int(123.45) == 123",
        "int(-7.9) == -7",
        "int('-456') == -456",
        "int(timestamp('1970-01-01T00:00:01Z')) == 1",
        "int(duration('1s')) == 1000000000",
    ]);

    overloads!(lib.function("string", "Converts a value to a string.");
        global "string_to_string" ("string") -> "string" => Implementation::Unary(to_string);
        global "bool_to_string" ("bool") -> "string" => Implementation::Unary(to_string);
        global "int64_to_string" ("int") -> "string" => Implementation::Unary(to_string);
        global "uint64_to_string" ("uint") -> "string" => Implementation::Unary(to_string);
        global "double_to_string" ("double") -> "string" => Implementation::Unary(to_string);
        global "bytes_to_string" ("bytes") -> "string" => Implementation::Unary(to_string),
            cost: CallCost::TraverseFirst, shape: CallShape::Utf8 { to_bytes: false };
        global "timestamp_to_string" ("google.protobuf.Timestamp") -> "string"
            => Implementation::Unary(to_string);
        global "duration_to_string" ("google.protobuf.Duration") -> "string"
            => Implementation::Unary(to_string);
    )
    .examples(&[
        "string('hello') == 'hello'",
        "string(true) == 'true'",
        "string(-123) == '-123'",
        "string(123u) == '123'",
        "string(-1.23e4) == '-12300'",
        "string(1e21) == '1e+21'",
        "string(b'hello') == 'hello'",
        "string(timestamp('1970-01-01T00:00:00Z')) == '1970-01-01T00:00:00Z'",
        "string(duration('1h30m')) == '5400s'",
    ]);

    overloads!(lib.function(
        "timestamp",
        "Converts a value to a google.protobuf.Timestamp: RFC 3339 text or Unix seconds.",
    );
        global "timestamp_to_timestamp" ("google.protobuf.Timestamp") -> "google.protobuf.Timestamp"
            => Implementation::Unary(to_timestamp),
            specialization: Specialization::Time(TimeKernel::TimestampToTimestamp);
        global "int64_to_timestamp" ("int") -> "google.protobuf.Timestamp"
            => Implementation::Unary(to_timestamp),
            specialization: Specialization::Time(TimeKernel::IntToTimestamp);
        global "string_to_timestamp" ("string") -> "google.protobuf.Timestamp"
            => Implementation::Unary(to_timestamp),
            specialization: Specialization::Time(TimeKernel::StringToTimestamp);
    )
    .examples(&[
        "timestamp(1) == timestamp('1970-01-01T00:00:01Z')",
        "timestamp('2025-01-01T12:34:56+01:00') == timestamp('2025-01-01T11:34:56Z')",
        "timestamp(timestamp('2023-01-01T00:00:00Z')) == timestamp('2023-01-01T00:00:00Z')",
    ]);

    overloads!(lib.function("uint", "Converts a value to a uint.");
        global "uint64_to_uint64" ("uint") -> "uint" => Implementation::Unary(to_uint);
        global "int64_to_uint64" ("int") -> "uint" => Implementation::Unary(to_uint);
        global "double_to_uint64" ("double") -> "uint" => Implementation::Unary(to_uint);
        global "string_to_uint64" ("string") -> "uint" => Implementation::Unary(to_uint);
    )
    .examples(&[
        "uint(123u) == 123u",
        "uint(123) == 123u",
        "uint(123.45) == 123u",
        "uint('123') == 123u",
    ]);
}

/// `type(x)`.
pub fn type_of(v: &Value) -> EvalResult {
    Ok(Value::Type(v.type_value()))
}

/// `dyn(x)`: the identity.
pub fn to_dyn(v: &Value) -> EvalResult {
    Ok(v.clone())
}

/// `bool(x)` for bools and strings (Go's `strconv.ParseBool`: `1 t T TRUE true True` and
/// `0 f F FALSE false False`).
pub fn to_bool(v: &Value) -> EvalResult {
    match v {
        Value::Bool(_) => Ok(v.clone()),
        Value::String(s) => match &**s {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(Value::Bool(true)),
            "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(Value::Bool(false)),
            _ => Err(conversion_error("string", "bool")),
        },
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `bytes(x)` for bytes and strings.
pub fn to_bytes(v: &Value) -> EvalResult {
    match v {
        Value::Bytes(_) => Ok(v.clone()),
        Value::String(s) => {
            // A copy at a fixed cost: counted, or a loop of them could fill memory.
            crate::budget::reserve(s.len() as u64)?;
            Ok(Value::Bytes(Arc::from(s.as_bytes())))
        }
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `double(x)` for numbers and strings (Go's `strconv.ParseFloat(s, 64)`, which cel-go's
/// `String.ConvertToType` calls: decimal and hexadecimal forms, `_` between digits, `Inf`,
/// `Infinity`, `NaN`; out-of-range text is an error rather than an infinity).
pub fn to_double(v: &Value) -> EvalResult {
    match v {
        Value::Double(_) => Ok(v.clone()),
        Value::Int(i) => Ok(Value::Double(*i as f64)),
        Value::Uint(u) => Ok(Value::Double(*u as f64)),
        Value::String(s) => parse_go_float(s)
            .map(Value::Double)
            .ok_or_else(|| conversion_error("string", "double")),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// Go's `strconv.ParseFloat(s, 64)` (`strconv/atof.go`), `None` where it returns an error:
/// the special names (`special`), then the syntax of `readFloat` — an optional sign, decimal
/// digits with at most one `.` and an optional `e` exponent, or `0x` hex digits with a
/// mandatory `p` exponent, `_` only between digits (`underscoreOK`) — rounded to nearest
/// even; a result beyond the largest double is a range error.
fn parse_go_float(s: &str) -> Option<f64> {
    if let Some(d) = go_float_special(s) {
        return Some(d);
    }
    let b = s.as_bytes();
    let mut i = 0;
    let negative = b.first() == Some(&b'-');
    if matches!(b.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let hex = i + 2 < b.len() && b[i] == b'0' && (b[i + 1] | 0x20) == b'x';
    if hex {
        i += 2;
    }
    let mantissa_start = i;
    let is_digit = |c: u8| c.is_ascii_digit() || hex && c.is_ascii_hexdigit();
    let (mut underscores, mut dot, mut digits) = (false, false, false);
    while i < b.len() {
        match b[i] {
            b'_' => underscores = true,
            b'.' if !dot => dot = true,
            c if is_digit(c) => digits = true,
            _ => break,
        }
        i += 1;
    }
    if !digits {
        return None;
    }
    let mantissa_end = i;
    let exp_char = if hex { b'p' } else { b'e' };
    let mut exponent = 0i64;
    if i < b.len() && (b[i] | 0x20) == exp_char {
        i += 1;
        let sign = match b.get(i) {
            Some(b'+') => {
                i += 1;
                1
            }
            Some(b'-') => {
                i += 1;
                -1
            }
            _ => 1,
        };
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            if b[i] == b'_' {
                underscores = true;
            } else if exponent < 10_000 {
                exponent = exponent * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        exponent *= sign;
    } else if hex {
        return None;
    }
    if i != b.len() || underscores && !go_underscores_ok(s) {
        return None;
    }
    let d = if hex {
        hex_float(&b[mantissa_start..mantissa_end], exponent)
    } else if underscores {
        s.replace('_', "").parse().ok()?
    } else {
        s.parse().ok()?
    };
    let d = if negative && hex { -d } else { d };
    (!d.is_infinite()).then_some(d)
}

/// Go's `special`: `inf` and `infinity` with an optional sign, `nan` without one, in any case.
fn go_float_special(s: &str) -> Option<f64> {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    if unsigned.eq_ignore_ascii_case("inf") || unsigned.eq_ignore_ascii_case("infinity") {
        return Some(if s.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    s.eq_ignore_ascii_case("nan").then_some(f64::NAN)
}

/// Go's `underscoreOK` (`strconv/atoi.go`): each `_` follows a digit or the base prefix and
/// is followed by a digit.
fn go_underscores_ok(s: &str) -> bool {
    let b = s.strip_prefix(['+', '-']).unwrap_or(s).as_bytes();
    // The class of the last character: b'^' start, b'0' digit or prefix, b'_', b'!' other.
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1] | 0x20, b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = b[1] | 0x20 == b'x';
    }
    for &c in &b[i..] {
        if c.is_ascii_digit() || hex && c.is_ascii_hexdigit() {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else if saw == b'_' {
            return false;
        } else {
            saw = b'!';
        }
    }
    saw != b'_'
}

/// The value of hex digits (with an optional `.` and `_`s) times `2^exponent`, rounded to
/// the nearest double, ties to even (an infinity when too large), as Go's `atofHex`.
fn hex_float(digits: &[u8], exponent: i64) -> f64 {
    // The first 30 significant hex digits exactly (120 bits), the rest as a sticky bit.
    let (mut m, mut exp2, mut sticky, mut dot) = (0u128, exponent, false, false);
    for &c in digits {
        let v = match c {
            b'.' => {
                dot = true;
                continue;
            }
            b'_' => continue,
            _ => (c as char).to_digit(16).unwrap_or(0) as u128,
        };
        if m >> 116 == 0 {
            m = m << 4 | v;
            if dot {
                exp2 -= 4;
            }
        } else {
            sticky |= v != 0;
            if !dot {
                exp2 += 4;
            }
        }
    }
    if m == 0 {
        return 0.0;
    }
    // Normalize so that bit 127 is the leading one: the value is m * 2^exp2.
    let lz = m.leading_zeros();
    m <<= lz;
    exp2 -= i64::from(lz);
    // The value lies in [2^top, 2^(top+1)).
    let top = exp2 + 127;
    if top > 1023 {
        return f64::INFINITY;
    }
    // Keep 53 bits, or fewer below the normal range (the last kept bit weighs 2^-1074).
    let keep_lsb = (top - 52).max(-1074);
    let shift = keep_lsb - exp2; // bits of m dropped, at least 75
    if shift > 128 {
        return 0.0;
    }
    let (kept, rest) = if shift == 128 {
        (0u128, m)
    } else {
        (m >> shift, m & ((1u128 << shift) - 1))
    };
    let half = 1u128 << (shift - 1);
    let round_up = rest > half || rest == half && (sticky || kept & 1 == 1);
    let kept = kept + u128::from(round_up);
    // kept < 2^54, exact in a double; scaling by a power of two in steps stays exact until
    // the result, which overflows to an infinity where Go reports a range error.
    let mut d = kept as f64;
    let mut e = keep_lsb;
    while e < -1000 {
        d *= f64::powi(2.0, -1000);
        e += 1000;
    }
    while e > 1000 {
        d *= f64::powi(2.0, 1000);
        e -= 1000;
    }
    d * f64::powi(2.0, e as i32)
}

/// `int(x)`: uints and doubles must fit (doubles truncate toward zero), strings are base-10,
/// timestamps give Unix seconds and durations nanoseconds.
pub fn to_int(v: &Value) -> EvalResult {
    match v {
        Value::Int(_) => Ok(v.clone()),
        Value::Uint(u) => i64::try_from(*u)
            .map(Value::Int)
            .map_err(|_| EvalError::overflow()),
        Value::Double(d) => {
            // cel-go's bounds: both ends exclusive, so -2^63 itself is rejected.
            let d = *d;
            if d > -TWO_POW_63 && d < TWO_POW_63 {
                Ok(Value::Int(d as i64))
            } else {
                Err(EvalError::overflow())
            }
        }
        Value::String(s) => parse_go_int(s)
            .map(Value::Int)
            .ok_or_else(|| conversion_error("string", "int")),
        Value::Timestamp(t) => Ok(Value::Int(t.timestamp())),
        Value::Duration(d) => duration_text::to_nanos(d).map(Value::Int),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// Go's `strconv.ParseInt(s, 10, 64)`: optional sign, ASCII digits only.
fn parse_go_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `uint(x)`: ints must be non-negative, doubles in `[0, 2^64)` (truncated), strings are
/// unsigned base-10 (no sign).
pub fn to_uint(v: &Value) -> EvalResult {
    match v {
        Value::Uint(_) => Ok(v.clone()),
        Value::Int(i) => u64::try_from(*i)
            .map(Value::Uint)
            .map_err(|_| uint_overflow()),
        Value::Double(d) => {
            let d = *d;
            if (0.0..TWO_POW_64).contains(&d) {
                Ok(Value::Uint(d as u64))
            } else {
                Err(uint_overflow())
            }
        }
        Value::String(s) => {
            if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
                return Err(conversion_error("string", "uint"));
            }
            s.parse()
                .map(Value::Uint)
                .map_err(|_| conversion_error("string", "uint"))
        }
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `string(x)` for strings, bools, numbers, UTF-8 bytes, timestamps (RFC 3339) and
/// durations (seconds, e.g. `"1.5s"`).
pub fn to_string(v: &Value) -> EvalResult {
    let s = match v {
        Value::String(_) => return Ok(v.clone()),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => format_double(*d),
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => {
                crate::budget::reserve(s.len() as u64)?;
                s.to_string()
            }
            Err(_) => {
                return Err(EvalError::new(
                    "invalid UTF-8 in bytes, cannot convert to string",
                ));
            }
        },
        Value::Timestamp(t) => timestamp_text::format_rfc3339(t),
        Value::Duration(d) => duration_text::format(duration_text::to_nanos(d)?),
        _ => return Err(EvalError::no_such_overload()),
    };
    Ok(Value::from(s))
}

/// Formats a double as Go's `%g` with the shortest precision (what cel-go's `string(double)`
/// uses): plain decimals for decimal exponents in `[-4, 6)`, otherwise `d.ddde±XX`.
pub fn format_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    // Shortest round-trip digits and the decimal exponent, from Rust's `{:e}`.
    let sci = format!("{d:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        // Rust's `{}` prints the same shortest digits without an exponent.
        return format!("{d}");
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
}

/// `duration(x)` for durations and strings in Go's syntax (`"1h30m"`, `"-1.5s"`).
pub fn to_duration(v: &Value) -> EvalResult {
    match v {
        Value::Duration(_) => Ok(v.clone()),
        Value::String(s) => duration_of_text(s).map(Value::Duration),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `duration(s)` for a string.
pub fn duration_of_text(s: &str) -> Result<TimeDelta, EvalError> {
    duration_text::parse(s)
        .map(duration_text::from_nanos)
        .map_err(|_| conversion_error("string", "google.protobuf.Duration"))
}

/// `timestamp(x)` for timestamps, RFC 3339 strings and Unix seconds, within years 1..9999.
pub fn to_timestamp(v: &Value) -> EvalResult {
    match v {
        Value::Timestamp(_) => Ok(v.clone()),
        Value::Int(secs) => timestamp_text::from_unix(*secs, 0).map(|t| Value::Timestamp(t.into())),
        Value::String(s) => timestamp_of_text(s).map(Value::Timestamp),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `timestamp(s)` for a string, keeping the text's offset (cel-go's `String.ConvertToType`
/// with Go's `time.Parse`).
pub fn timestamp_of_text(s: &str) -> Result<Timestamp, EvalError> {
    let t = timestamp_text::parse_rfc3339(s)
        .ok_or_else(|| conversion_error("string", "google.protobuf.Timestamp"))?;
    timestamp_text::check_range(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::TypeValue;

    fn s(x: &str) -> Value {
        Value::from(x)
    }

    fn err(msg: &str) -> EvalResult {
        Err(EvalError::new(msg))
    }

    #[test]
    fn to_int_conversions() {
        assert_eq!(to_int(&Value::Uint(42)), Ok(Value::Int(42)));
        assert_eq!(to_int(&Value::Uint(u64::MAX)), Err(EvalError::overflow()));
        assert_eq!(to_int(&Value::Double(-123.456)), Ok(Value::Int(-123)));
        assert_eq!(to_int(&Value::Double(11.5)), Ok(Value::Int(11)));
        assert_eq!(
            to_int(&Value::Double(36028797018963969.0)),
            Ok(Value::Int(36028797018963968))
        );
        assert_eq!(
            to_int(&Value::Double(TWO_POW_63)),
            Err(EvalError::overflow())
        );
        assert_eq!(
            to_int(&Value::Double(-TWO_POW_63)),
            Err(EvalError::overflow())
        );
        assert_eq!(to_int(&Value::Double(f64::NAN)), Err(EvalError::overflow()));
        assert_eq!(
            to_int(&Value::Double(f64::INFINITY)),
            Err(EvalError::overflow())
        );
        assert_eq!(to_int(&s("987")), Ok(Value::Int(987)));
        assert_eq!(to_int(&s("+5")), Ok(Value::Int(5)));
        assert_eq!(to_int(&s("-456")), Ok(Value::Int(-456)));
        for bad in ["", "0x10", "1_000", " 1", "1.0", "9223372036854775808", "-"] {
            assert_eq!(
                to_int(&s(bad)),
                err("type conversion error from 'string' to 'int'"),
                "{bad}"
            );
        }
        let t = to_timestamp(&s("2004-09-16T23:59:59Z")).unwrap();
        assert_eq!(to_int(&t), Ok(Value::Int(1095379199)));
        let d = to_duration(&s("1s")).unwrap();
        assert_eq!(to_int(&d), Ok(Value::Int(1_000_000_000)));
        assert_eq!(to_int(&Value::Null), Err(EvalError::no_such_overload()));
    }

    #[test]
    fn to_uint_conversions() {
        assert_eq!(to_uint(&Value::Int(1729)), Ok(Value::Uint(1729)));
        assert_eq!(to_uint(&Value::Int(-1)), err("unsigned integer overflow"));
        assert_eq!(to_uint(&Value::Double(25.5)), Ok(Value::Uint(25)));
        assert_eq!(
            to_uint(&Value::Double(-0.5)),
            err("unsigned integer overflow")
        );
        assert_eq!(
            to_uint(&Value::Double(6.022e23)),
            err("unsigned integer overflow")
        );
        assert_eq!(
            to_uint(&Value::Double(18446744073709551615.0)),
            err("unsigned integer overflow")
        );
        assert_eq!(to_uint(&s("300")), Ok(Value::Uint(300)));
        for bad in ["-1", "+1", "", "18446744073709551616"] {
            assert_eq!(
                to_uint(&s(bad)),
                err("type conversion error from 'string' to 'uint'"),
                "{bad}"
            );
        }
    }

    #[test]
    fn to_double_conversions() {
        assert_eq!(
            to_double(&Value::Int(i64::MAX)),
            Ok(Value::Double(9.223372036854776e18))
        );
        assert_eq!(
            to_double(&Value::Uint(u64::MAX)),
            Ok(Value::Double(1.8446744073709552e19))
        );
        assert_eq!(to_double(&s("6.02214e23")), Ok(Value::Double(6.02214e23)));
        assert_eq!(to_double(&s("-84.32e7")), Ok(Value::Double(-843200000.0)));
        assert_eq!(to_double(&s("1e3")), Ok(Value::Double(1000.0)));
        assert_eq!(to_double(&s(".5")), Ok(Value::Double(0.5)));
        assert_eq!(to_double(&s("-Inf")), Ok(Value::Double(f64::NEG_INFINITY)));
        assert!(matches!(to_double(&s("NaN")), Ok(Value::Double(d)) if d.is_nan()));
        assert!(matches!(
            to_double(&s("-0.0")),
            Ok(Value::Double(d)) if d == 0.0 && d.is_sign_negative()
        ));
        for bad in ["", "abc", "1e400", "1,5", "+nan"] {
            assert_eq!(
                to_double(&s(bad)),
                err("type conversion error from 'string' to 'double'"),
                "{bad}"
            );
        }
    }

    /// cel-go's `String.ConvertToType(DoubleType)` (`common/types/string.go`) is Go's
    /// `strconv.ParseFloat(s, 64)`; the cases follow `strconv/atof_test.go` (`atoftests`: the
    /// hexadecimal, underscore, special-name and range cases).
    #[test]
    fn to_double_follows_go_parse_float() {
        let ok = [
            ("0x1p3", 8.0),
            ("0x1.8p1", 3.0),
            ("0X1P-2", 0.25),
            ("-0x2p0", -2.0),
            ("+0x.8p1", 1.0),
            ("0x1p-1074", 5e-324),
            ("0x1p-1075", 0.0),
            ("0x1.8p-1074", 1e-323),
            ("0x1.fffffffffffffp1023", f64::MAX),
            ("0x1.fffffffffffff7ffp1023", f64::MAX),
            ("0x1.00000000000008p0", 1.0),
            ("0x1.00000000000018p0", 1.0000000000000004),
            (
                "0x1.000000000000080000000000000000001p0",
                1.0000000000000002,
            ),
            ("0x_1_2.3_4_5p+1_2", 74565.0),
            ("1_000", 1000.0),
            ("1_23.50_0_0e+1_2", 1.235e14),
            ("5.", 5.0),
            ("5.e3", 5000.0),
            ("+.5", 0.5),
            ("1e-400", 0.0),
            ("infinity", f64::INFINITY),
            ("-Infinity", f64::NEG_INFINITY),
            ("+INF", f64::INFINITY),
        ];
        for (text, want) in ok {
            assert_eq!(to_double(&s(text)), Ok(Value::Double(want)), "{text}");
        }
        for bad in [
            "0x10",
            "0x1.8",
            "0xp1",
            "0x",
            "0x1p",
            "0x1p+",
            "1e400",
            "-1e400",
            "0x1p1024",
            "0x1.fffffffffffff8p1023",
            "1__0",
            "_1",
            "1_",
            "-_123.5e+12",
            "123_.5e+12",
            "123._5e+12",
            "123.5e_+12",
            "123.5e+_12",
            "123.5e+12_",
            "0x_p1",
            "1.5x",
            "1.2.3",
            ".",
            "e5",
            "infin",
            "-nan",
            "0b1",
            "0o7",
        ] {
            assert_eq!(
                to_double(&s(bad)),
                err("type conversion error from 'string' to 'double'"),
                "{bad}"
            );
        }
    }

    /// cel-go converts strings to ints with `strconv.ParseInt(s, 10, 64)` and to uints with
    /// `strconv.ParseUint(s, 10, 64)` (`common/types/string.go`, `ConvertToType`): base 10
    /// only, so no prefixes and no underscores (Go allows those only with base 0); a sign
    /// only for ints.
    #[test]
    fn int_and_uint_follow_go_parse_int_base_10() {
        assert_eq!(to_int(&s("+17")), Ok(Value::Int(17)));
        assert_eq!(to_int(&s("-0")), Ok(Value::Int(0)));
        assert_eq!(to_int(&s("007")), Ok(Value::Int(7)));
        assert_eq!(to_uint(&s("007")), Ok(Value::Uint(7)));
        for bad in [
            "0x10",
            "0b1",
            "0o7",
            "1_000",
            "1e3",
            " 1",
            "1 ",
            "--1",
            "9223372036854775808",
        ] {
            assert_eq!(
                to_int(&s(bad)),
                err("type conversion error from 'string' to 'int'"),
                "{bad}"
            );
        }
        assert_eq!(to_int(&s("-9223372036854775808")), Ok(Value::Int(i64::MIN)));
        for bad in ["0x10", "1_000", "+1", "-0"] {
            assert_eq!(
                to_uint(&s(bad)),
                err("type conversion error from 'string' to 'uint'"),
                "{bad}"
            );
        }
    }

    #[test]
    fn to_string_conversions() {
        assert_eq!(to_string(&Value::Int(-456)), Ok(s("-456")));
        assert_eq!(to_string(&Value::Uint(9876)), Ok(s("9876")));
        assert_eq!(to_string(&Value::Bool(true)), Ok(s("true")));
        assert_eq!(
            to_string(&Value::Bytes(b"\xc3\xbf".as_slice().into())),
            Ok(s("\u{ff}"))
        );
        assert_eq!(
            to_string(&Value::Bytes(b"\x00\xff".as_slice().into())),
            err("invalid UTF-8 in bytes, cannot convert to string")
        );
        let t = to_timestamp(&s("2009-02-13T23:31:30.100Z")).unwrap();
        assert_eq!(to_string(&t), Ok(s("2009-02-13T23:31:30.1Z")));
        let d = to_duration(&s("1h30m")).unwrap();
        assert_eq!(to_string(&d), Ok(s("5400s")));
        let d = to_duration(&s("-1.5ms")).unwrap();
        assert_eq!(to_string(&d), Ok(s("-0.0015s")));
        assert_eq!(to_string(&Value::Null), Err(EvalError::no_such_overload()));
    }

    #[test]
    fn doubles_format_like_go_g() {
        let cases = [
            (123.456, "123.456"),
            (-4.5e-3, "-0.0045"),
            (-1.23e4, "-12300"),
            (1e6, "1e+06"),
            (123456789.0, "1.23456789e+08"),
            (100000.0, "100000"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e300, "1.5e+300"),
            (0.0, "0"),
            (-0.0, "-0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "+Inf"),
            (f64::NEG_INFINITY, "-Inf"),
        ];
        for (d, want) in cases {
            assert_eq!(format_double(d), want, "{d}");
        }
    }

    #[test]
    fn bool_bytes_type_dyn() {
        for t in ["1", "t", "T", "TRUE", "true", "True"] {
            assert_eq!(to_bool(&s(t)), Ok(Value::Bool(true)));
        }
        for f in ["0", "f", "F", "FALSE", "false", "False"] {
            assert_eq!(to_bool(&s(f)), Ok(Value::Bool(false)));
        }
        assert_eq!(
            to_bool(&s("TrUe")),
            err("type conversion error from 'string' to 'bool'")
        );
        assert_eq!(
            to_bytes(&s("ÿ")),
            Ok(Value::Bytes(b"\xc3\xbf".as_slice().into()))
        );
        assert_eq!(type_of(&Value::Uint(1)), Ok(Value::Type(TypeValue::Uint)));
        assert_eq!(
            type_of(&Value::Type(TypeValue::Int)),
            Ok(Value::Type(TypeValue::Type))
        );
        assert_eq!(to_dyn(&s("x")), Ok(s("x")));
    }

    #[test]
    fn timestamp_and_duration_conversions() {
        assert_eq!(
            to_timestamp(&Value::Int(-62135596801)),
            err("timestamp overflow")
        );
        assert_eq!(
            to_timestamp(&Value::Int(253402300800)),
            err("timestamp overflow")
        );
        assert!(to_timestamp(&Value::Int(253402300799)).is_ok());
        assert_eq!(
            to_timestamp(&s("0000-01-01T00:00:00Z")),
            err("timestamp overflow")
        );
        assert_eq!(
            to_timestamp(&s("10000-01-01T00:00:00Z")),
            err("type conversion error from 'string' to 'google.protobuf.Timestamp'")
        );
        assert_eq!(
            to_duration(&s("320000000000s")),
            err("type conversion error from 'string' to 'google.protobuf.Duration'")
        );
        assert_eq!(
            to_duration(&s("1d")),
            err("type conversion error from 'string' to 'google.protobuf.Duration'")
        );
        assert_eq!(
            to_duration(&s("100s")),
            Ok(Value::Duration(chrono::TimeDelta::seconds(100)))
        );
    }
}
