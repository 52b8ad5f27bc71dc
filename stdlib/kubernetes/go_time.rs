//! Go's `time.Parse` for the two layouts Kubernetes decodes its times with: `time.RFC3339`
//! (`metav1.Time`) and `RFC3339Micro` (`metav1.MicroTime`), answering whether a text parses
//! and, when it does not, Go's `*time.ParseError` text (`parsing time "x" as
//! "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`).
//!
//! Reimplemented from Go's `src/time/format.go` (`parse`, `getnum`, `skip`, `atoi`,
//! `parseNanoseconds`, `ParseError.Error` and its `quote`) for these layouts only: the layout
//! is walked as `nextStdChunk` splits it (a literal prefix, then one element). `time.Parse`'s
//! fast path for RFC 3339 (`parseRFC3339`, Go 1.20+) accepts a subset of what the general
//! parser accepts and reports no errors of its own, so the general parser alone decides.

use std::fmt;

/// `time.RFC3339`, the layout of `metav1.Time`.
pub const RFC3339: &str = "2006-01-02T15:04:05Z07:00";

/// apimachinery's `RFC3339Micro`, the layout of `metav1.MicroTime`.
pub const RFC3339_MICRO: &str = "2006-01-02T15:04:05.000000Z07:00";

/// Go's `*time.ParseError`; `Display` is its `Error()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    layout: &'static str,
    value: String,
    layout_elem: &'static str,
    value_elem: String,
    /// Set for range and extra-text errors (`: month out of range`).
    message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(
                f,
                "parsing time {} as {}: cannot parse {} as {}",
                quote(&self.value),
                quote(self.layout),
                quote(&self.value_elem),
                quote(self.layout_elem)
            )
        } else {
            write!(f, "parsing time {}{}", quote(&self.value), self.message)
        }
    }
}

impl std::error::Error for ParseError {}

/// The elements of the two layouts (Go's `std*` constants that occur in them).
#[derive(Clone, Copy, PartialEq)]
enum Element {
    LongYear,
    ZeroMonth,
    ZeroDay,
    Hour,
    ZeroMinute,
    ZeroSecond,
    /// `.000000`: exactly this many digits.
    FracSecond0(usize),
    Iso8601ColonTz,
}

/// A layout as `nextStdChunk` walks it: (literal prefix, element text, element).
fn chunks(layout: &str) -> &'static [(&'static str, &'static str, Element)] {
    use Element::*;
    const RFC: &[(&str, &str, Element)] = &[
        ("", "2006", LongYear),
        ("-", "01", ZeroMonth),
        ("-", "02", ZeroDay),
        ("T", "15", Hour),
        (":", "04", ZeroMinute),
        (":", "05", ZeroSecond),
        ("", "Z07:00", Iso8601ColonTz),
    ];
    const MICRO: &[(&str, &str, Element)] = &[
        ("", "2006", LongYear),
        ("-", "01", ZeroMonth),
        ("-", "02", ZeroDay),
        ("T", "15", Hour),
        (":", "04", ZeroMinute),
        (":", "05", ZeroSecond),
        ("", ".000000", FracSecond0(6)),
        ("", "Z07:00", Iso8601ColonTz),
    ];
    if layout == RFC3339_MICRO { MICRO } else { RFC }
}

/// Go's `time.Parse(time.RFC3339, value)`: `Ok` when Go parses it.
pub fn parse_rfc3339(value: &str) -> Result<(), ParseError> {
    parse(RFC3339, value)
}

/// Go's `time.Parse(metav1.RFC3339Micro, value)`.
pub fn parse_rfc3339_micro(value: &str) -> Result<(), ParseError> {
    parse(RFC3339_MICRO, value)
}

/// Go's `errBad`/`errAtoi`: a field that does not parse (never printed).
struct Bad;

fn is_digit(s: &[u8], i: usize) -> bool {
    s.get(i).is_some_and(u8::is_ascii_digit)
}

/// Go's `getnum`: one or two digits (`fixed`: exactly two).
fn getnum(s: &[u8], fixed: bool) -> Result<(i64, &[u8]), Bad> {
    if !is_digit(s, 0) {
        return Err(Bad);
    }
    if !is_digit(s, 1) {
        if fixed {
            return Err(Bad);
        }
        return Ok((i64::from(s[0] - b'0'), &s[1..]));
    }
    Ok((
        i64::from(s[0] - b'0') * 10 + i64::from(s[1] - b'0'),
        &s[2..],
    ))
}

/// Go's `atoi` (an optional sign, then `leadingInt`, nothing left over).
fn atoi(s: &[u8]) -> Result<i64, Bad> {
    let (negative, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut x: u64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return Err(Bad);
        }
        // leadingInt's overflow checks.
        if x > (1 << 63) / 10 {
            return Err(Bad);
        }
        x = x * 10 + u64::from(c - b'0');
        if x > 1 << 63 {
            return Err(Bad);
        }
    }
    let x = x as i64;
    Ok(if negative { x.wrapping_neg() } else { x })
}

/// Go's `parseNanoseconds`: the range error's name, if any (`fractional second`).
fn nanoseconds(value: &[u8], nbytes: usize) -> Result<Option<&'static str>, Bad> {
    if !matches!(value.first(), Some(b'.' | b',')) {
        return Err(Bad);
    }
    let nbytes = nbytes.min(10);
    let ns = atoi(&value[1..nbytes])?;
    Ok((ns < 0).then_some("fractional second"))
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Go's `daysIn`.
fn days_in(month: i64, year: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The rest of `value` from `rest` (a suffix of it), as a string for an error.
fn tail(value: &str, rest: &[u8]) -> String {
    String::from_utf8_lossy(&value.as_bytes()[value.len() - rest.len()..]).into_owned()
}

/// Go's `parse` for the two layouts (the values it computes are not kept: only whether it
/// fails, and how).
fn parse(layout: &'static str, text: &str) -> Result<(), ParseError> {
    let error = |layout_elem: &'static str, value_elem: String, message: String| ParseError {
        layout,
        value: text.to_owned(),
        layout_elem,
        value_elem,
        message,
    };
    let chunks = chunks(layout);
    let mut value = text.as_bytes();
    let (mut year, mut month, mut day) = (0, -1, -1);
    for (i, &(prefix, element_text, element)) in chunks.iter().enumerate() {
        // skip: the literal prefix (none of these prefixes has spaces).
        match value.strip_prefix(prefix.as_bytes()) {
            Some(rest) => value = rest,
            None => {
                // Go's skip stops at the first byte that differs.
                let same = prefix
                    .bytes()
                    .zip(value)
                    .take_while(|(p, v)| p == *v)
                    .count();
                return Err(error(prefix, tail(text, &value[same..]), String::new()));
            }
        }
        let hold = value;
        let mut range: Option<&'static str> = None;
        let result: Result<(), Bad> = (|| {
            match element {
                Element::LongYear => {
                    if value.len() < 4 || !is_digit(value, 0) {
                        return Err(Bad);
                    }
                    let (digits, rest) = value.split_at(4);
                    value = rest;
                    year = atoi(digits)?;
                }
                Element::ZeroMonth => {
                    let (m, rest) = getnum(value, true)?;
                    (month, value) = (m, rest);
                    if !(1..=12).contains(&month) {
                        range = Some("month");
                    }
                }
                Element::ZeroDay => {
                    let (d, rest) = getnum(value, true)?;
                    (day, value) = (d, rest);
                }
                Element::Hour => {
                    let (h, rest) = getnum(value, false)?;
                    value = rest;
                    if h >= 24 {
                        range = Some("hour");
                    }
                }
                Element::ZeroMinute => {
                    let (m, rest) = getnum(value, true)?;
                    value = rest;
                    if m >= 60 {
                        range = Some("minute");
                    }
                }
                Element::ZeroSecond => {
                    let (s, rest) = getnum(value, true)?;
                    value = rest;
                    if s >= 60 {
                        range = Some("second");
                        return Ok(());
                    }
                    // A fractional second the layout does not have.
                    if value.len() >= 2 && matches!(value[0], b'.' | b',') && is_digit(value, 1) {
                        if matches!(chunks.get(i + 1), Some((_, _, Element::FracSecond0(_)))) {
                            return Ok(());
                        }
                        let mut n = 2;
                        while is_digit(value, n) {
                            n += 1;
                        }
                        range = nanoseconds(value, n)?;
                        value = &value[n..];
                    }
                }
                Element::FracSecond0(digits) => {
                    let n = 1 + digits;
                    if value.len() < n {
                        return Err(Bad);
                    }
                    range = nanoseconds(value, n)?;
                    value = &value[n..];
                }
                Element::Iso8601ColonTz => {
                    if value.first() == Some(&b'Z') {
                        value = &value[1..];
                        return Ok(());
                    }
                    if value.len() < 6 || value[3] != b':' {
                        return Err(Bad);
                    }
                    let (sign, hour, minute) = (value[0], &value[1..3], &value[4..6]);
                    value = &value[6..];
                    let mut failed = false;
                    let hr = getnum(hour, true).map(|(h, _)| h).unwrap_or_else(|_| {
                        failed = true;
                        0
                    });
                    let mm = if failed {
                        0
                    } else {
                        getnum(minute, true).map(|(m, _)| m).unwrap_or_else(|_| {
                            failed = true;
                            0
                        })
                    };
                    // Offsets of 24 hours and 60 minutes are allowed (`>`, not `>=`).
                    if hr > 24 {
                        range = Some("time zone offset hour");
                    }
                    if mm > 60 {
                        range = Some("time zone offset minute");
                    }
                    if failed || !matches!(sign, b'+' | b'-') {
                        return Err(Bad);
                    }
                }
            }
            Ok(())
        })();
        if let Some(name) = range {
            return Err(error(
                element_text,
                tail(text, value),
                format!(": {name} out of range"),
            ));
        }
        if result.is_err() {
            return Err(error(element_text, tail(text, hold), String::new()));
        }
    }
    if !value.is_empty() {
        let rest = tail(text, value);
        let message = format!(": extra text: {}", quote(&rest));
        return Err(error("", rest, message));
    }
    if day < 1 || day > days_in(month, year) {
        return Err(error("", String::new(), ": day out of range".into()));
    }
    Ok(())
}

/// Go's `time.quote`: double quotes, `\"` and `\\` escaped, each byte of a non-ASCII or
/// control character as `\xNN`.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for b in s.bytes() {
        if !(b' '..0x80).contains(&b) {
            out.push_str(&format!("\\x{b:02x}"));
        } else {
            if b == b'"' || b == b'\\' {
                out.push('\\');
            }
            out.push(char::from(b));
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(layout: &str, value: &str) -> String {
        let result = if layout == RFC3339 {
            parse_rfc3339(value)
        } else {
            parse_rfc3339_micro(value)
        };
        result.unwrap_err().to_string()
    }

    /// Go `src/time/format_test.go` `parseErrorTests`, the RFC3339 rows (the test checks
    /// that the error contains the expected text; these are the whole texts).
    #[test]
    fn go_parse_error_tests() {
        let as_rfc = r#" as "2006-01-02T15:04:05Z07:00": "#;
        for (value, want) in [
            (
                "2006-01-02T15:04:05Z07:00",
                r#"parsing time "2006-01-02T15:04:05Z07:00": extra text: "07:00""#.to_owned(),
            ),
            (
                "2006-01-02T15:04_abc",
                format!(r#"parsing time "2006-01-02T15:04_abc"{as_rfc}cannot parse "_abc" as ":""#),
            ),
            (
                "2006-01-02T15:04:05_abc",
                format!(
                    r#"parsing time "2006-01-02T15:04:05_abc"{as_rfc}cannot parse "_abc" as "Z07:00""#
                ),
            ),
            (
                "2006-01-02T15:04:05Z_abc",
                r#"parsing time "2006-01-02T15:04:05Z_abc": extra text: "_abc""#.to_owned(),
            ),
            (
                "2010-02-04T21:00:67.012345678-08:00",
                r#"parsing time "2010-02-04T21:00:67.012345678-08:00": second out of range"#
                    .to_owned(),
            ),
            (
                "0000-01-01T00:00:.0+00:00",
                format!(
                    r#"parsing time "0000-01-01T00:00:.0+00:00"{as_rfc}cannot parse ".0+00:00" as "05""#
                ),
            ),
            (
                "\"",
                format!(r#"parsing time "\""{as_rfc}cannot parse "\"" as "2006""#),
            ),
            (
                "0000-01-01T00:00:00+00:+0",
                format!(
                    r#"parsing time "0000-01-01T00:00:00+00:+0"{as_rfc}cannot parse "+00:+0" as "Z07:00""#
                ),
            ),
            (
                "0000-01-01T00:00:00+-0:00",
                format!(
                    r#"parsing time "0000-01-01T00:00:00+-0:00"{as_rfc}cannot parse "+-0:00" as "Z07:00""#
                ),
            ),
        ] {
            assert_eq!(error(RFC3339, value), want, "{value:?}");
        }
    }

    /// Go `format_test.go` `TestParse`'s RFC3339 rows and apimachinery
    /// `pkg/apis/meta/v1/time_test.go` `TestTimeUnmarshalJSON` (values that parse).
    #[test]
    fn accepted() {
        for value in [
            "2010-02-04T21:00:57-08:00",
            "2010-02-04T21:00:57.012345678-08:00",
            "2010-02-04T21:00:57,012345678-08:00",
            "2014-12-16T06:20:00Z",
            "2014-12-16T06:20:00+01:00",
            "2024-02-29T00:00:00Z",
            "2024-02-29T1:00:00Z",
            "2024-02-29T00:00:00+24:60",
        ] {
            assert_eq!(parse_rfc3339(value), Ok(()), "{value}");
        }
        for value in [
            "2017-01-01T00:00:00.000000Z",
            "2017-01-01T00:00:00,123456-08:00",
        ] {
            assert_eq!(parse_rfc3339_micro(value), Ok(()), "{value}");
        }
    }

    /// The remaining messages of Go's `parse` for these layouts.
    #[test]
    fn range_and_element_errors() {
        let as_rfc = r#" as "2006-01-02T15:04:05Z07:00": "#;
        for (value, want) in [
            (
                "x",
                format!(r#"parsing time "x"{as_rfc}cannot parse "x" as "2006""#),
            ),
            (
                "",
                format!(r#"parsing time ""{as_rfc}cannot parse "" as "2006""#),
            ),
            (
                "2024/01/01",
                format!(r#"parsing time "2024/01/01"{as_rfc}cannot parse "/01/01" as "-""#),
            ),
            (
                "2024-1-01T00:00:00Z",
                format!(
                    r#"parsing time "2024-1-01T00:00:00Z"{as_rfc}cannot parse "1-01T00:00:00Z" as "01""#
                ),
            ),
            (
                "2024-13-01T00:00:00Z",
                r#"parsing time "2024-13-01T00:00:00Z": month out of range"#.to_owned(),
            ),
            (
                "2023-02-29T00:00:00Z",
                r#"parsing time "2023-02-29T00:00:00Z": day out of range"#.to_owned(),
            ),
            (
                "2024-01-01T24:00:00Z",
                r#"parsing time "2024-01-01T24:00:00Z": hour out of range"#.to_owned(),
            ),
            (
                "2024-01-01T00:60:00Z",
                r#"parsing time "2024-01-01T00:60:00Z": minute out of range"#.to_owned(),
            ),
            (
                "2024-01-01T00:00:00+25:00",
                r#"parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range"#
                    .to_owned(),
            ),
            (
                "2024-01-01",
                format!(r#"parsing time "2024-01-01"{as_rfc}cannot parse "" as "T""#),
            ),
            (
                "2024-01-01 00:00:00Z",
                format!(
                    r#"parsing time "2024-01-01 00:00:00Z"{as_rfc}cannot parse " 00:00:00Z" as "T""#
                ),
            ),
            (
                "2024-01-01T00:00:00z",
                format!(
                    r#"parsing time "2024-01-01T00:00:00z"{as_rfc}cannot parse "z" as "Z07:00""#
                ),
            ),
            (
                "2024-01-01T00:00:00",
                format!(r#"parsing time "2024-01-01T00:00:00"{as_rfc}cannot parse "" as "Z07:00""#),
            ),
            (
                "héllo",
                format!(
                    r#"parsing time "h\xc3\xa9llo"{as_rfc}cannot parse "h\xc3\xa9llo" as "2006""#
                ),
            ),
        ] {
            assert_eq!(error(RFC3339, value), want, "{value:?}");
        }
        // RFC3339Micro wants exactly six digits of fraction.
        assert_eq!(
            error(RFC3339_MICRO, "2024-01-01T00:00:00Z"),
            r#"parsing time "2024-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000""#
        );
        assert_eq!(
            error(RFC3339_MICRO, "2024-01-01T00:00:00.-12345Z"),
            r#"parsing time "2024-01-01T00:00:00.-12345Z": fractional second out of range"#
        );
    }
}
