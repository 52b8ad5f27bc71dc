//! Go's `time.Parse` for the two layouts Kubernetes decodes its times with: `time.RFC3339`
//! (`metav1.Time`) and `RFC3339Micro` (`metav1.MicroTime`), answering the instant a text
//! names or, when it does not parse, Go's `*time.ParseError` text (`parsing time "x" as
//! "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`); and `Time.Format` of an
//! instant in UTC with those layouts, as the two types' `MarshalJSON` write it.
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

/// An instant as a Go `time.Time` holds it, its zone aside: seconds since the Unix epoch
/// and nanoseconds within the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instant {
    pub unix_seconds: i64,
    pub nanos: u32,
}

/// Go's zero `time.Time`, 0001-01-01T00:00:00Z, in Unix seconds.
const ZERO_UNIX_SECONDS: i64 = -62_135_596_800;

impl Instant {
    /// Go's `Time.IsZero`: exactly January 1 of year 1, 00:00:00 UTC.
    pub fn is_zero(self) -> bool {
        self.unix_seconds == ZERO_UNIX_SECONDS && self.nanos == 0
    }

    /// `t.UTC().Format(time.RFC3339)`, as `metav1.Time.MarshalJSON` writes a time: whole
    /// seconds, `Z` (`2024-01-01T00:00:00Z`). `None` beyond the years chrono represents,
    /// which no parsed text reaches.
    pub fn rfc3339_utc(self) -> Option<String> {
        self.format_utc(0)
    }

    /// `t.UTC().Format(RFC3339Micro)`, as `metav1.MicroTime.MarshalJSON` writes a time: six
    /// digits of fraction, cut rather than rounded (`2024-01-01T00:00:00.123456Z`).
    pub fn rfc3339_micro_utc(self) -> Option<String> {
        self.format_utc(6)
    }

    /// Go's `Time.Format` in UTC of `2006-01-02T15:04:05` with `fraction` digits of `.000000`
    /// (Go's `formatNano`: the leading digits of the nanoseconds) and `Z07:00`. The year is
    /// Go's `appendInt(year, 4)`: at least four digits, a sign when negative.
    fn format_utc(self, fraction: usize) -> Option<String> {
        use chrono::{Datelike, Timelike};
        let t = chrono::DateTime::from_timestamp(self.unix_seconds, self.nanos)?.naive_utc();
        let year = t.year();
        let sign = if year < 0 { "-" } else { "" };
        let mut out = format!(
            "{sign}{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            year.unsigned_abs(),
            t.month(),
            t.day(),
            t.hour(),
            t.minute(),
            t.second()
        );
        if fraction > 0 {
            out.push('.');
            out.push_str(&format!("{:09}", self.nanos)[..fraction]);
        }
        out.push('Z');
        Some(out)
    }
}

/// Go's `time.Parse(time.RFC3339, value)`.
pub fn parse_rfc3339(value: &str) -> Result<Instant, ParseError> {
    parse(RFC3339, value)
}

/// Go's `time.Parse(metav1.RFC3339Micro, value)`.
pub fn parse_rfc3339_micro(value: &str) -> Result<Instant, ParseError> {
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

/// Go's `parseNanoseconds`: the nanoseconds of the fraction in the first `nbytes` bytes of
/// `value` (its separator, then digits: past nine they are dropped), or the range error's
/// name (`fractional second`).
fn nanoseconds(value: &[u8], nbytes: usize) -> Result<Result<i64, &'static str>, Bad> {
    if !matches!(value.first(), Some(b'.' | b',')) {
        return Err(Bad);
    }
    let nbytes = nbytes.min(10);
    let ns = atoi(&value[1..nbytes])?;
    if ns < 0 {
        return Ok(Err("fractional second"));
    }
    Ok(Ok(ns * 10i64.pow((10 - nbytes) as u32)))
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (what Go's `Date`
/// computes for a valid date), by whole 400-year eras from March 1 of year 0.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
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

/// Go's `parse` for the two layouts: the instant, or how it fails.
fn parse(layout: &'static str, text: &str) -> Result<Instant, ParseError> {
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
    // Hour, minute, second, nanoseconds, and the zone's offset east of UTC in seconds.
    let (mut hour, mut minute, mut second, mut nanos, mut offset) = (0, 0, 0, 0, 0);
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
                    (hour, value) = (h, rest);
                    if h >= 24 {
                        range = Some("hour");
                    }
                }
                Element::ZeroMinute => {
                    let (m, rest) = getnum(value, true)?;
                    (minute, value) = (m, rest);
                    if m >= 60 {
                        range = Some("minute");
                    }
                }
                Element::ZeroSecond => {
                    let (s, rest) = getnum(value, true)?;
                    (second, value) = (s, rest);
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
                        nanos = nanoseconds(value, n)?.unwrap_or_else(|name| {
                            range = Some(name);
                            0
                        });
                        value = &value[n..];
                    }
                }
                Element::FracSecond0(digits) => {
                    let n = 1 + digits;
                    if value.len() < n {
                        return Err(Bad);
                    }
                    nanos = nanoseconds(value, n)?.unwrap_or_else(|name| {
                        range = Some(name);
                        0
                    });
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
                    offset = match sign {
                        b'+' if !failed => (hr * 60 + mm) * 60,
                        b'-' if !failed => -(hr * 60 + mm) * 60,
                        _ => return Err(Bad),
                    };
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
    // Go's `Date` in UTC, then the zone's offset taken away.
    let seconds = hour * 3600 + minute * 60 + second;
    Ok(Instant {
        unix_seconds: days_from_civil(year, month, day) * 86_400 + seconds - offset,
        nanos: nanos as u32,
    })
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

    fn at(unix_seconds: i64, nanos: u32) -> Instant {
        Instant {
            unix_seconds,
            nanos,
        }
    }

    /// Go `format_test.go` `TestParse`'s RFC3339 rows and apimachinery
    /// `pkg/apis/meta/v1/time_test.go` `TestTimeUnmarshalJSON` (values that parse); the
    /// instants are Go 1.19's `time.Parse(layout, value)` `Unix()` and `Nanosecond()`.
    #[test]
    fn accepted() {
        for (value, instant) in [
            ("2010-02-04T21:00:57-08:00", at(1_265_346_057, 0)),
            (
                "2010-02-04T21:00:57.012345678-08:00",
                at(1_265_346_057, 12_345_678),
            ),
            (
                "2010-02-04T21:00:57,012345678-08:00",
                at(1_265_346_057, 12_345_678),
            ),
            ("2014-12-16T06:20:00Z", at(1_418_710_800, 0)),
            ("2014-12-16T06:20:00+01:00", at(1_418_707_200, 0)),
            ("2024-02-29T00:00:00Z", at(1_709_164_800, 0)),
            ("2024-02-29T1:00:00Z", at(1_709_168_400, 0)),
            ("2024-02-29T00:00:00+24:60", at(1_709_074_800, 0)),
            (
                "2024-01-01T02:00:00.5+02:00",
                at(1_704_067_200, 500_000_000),
            ),
            ("1969-12-31T23:59:59.999999999Z", at(-1, 999_999_999)),
            ("0001-01-01T01:00:00+01:00", at(ZERO_UNIX_SECONDS, 0)),
            ("0000-01-01T00:00:00+01:00", at(-62_167_222_800, 0)),
        ] {
            assert_eq!(parse_rfc3339(value), Ok(instant), "{value}");
        }
        for (value, instant) in [
            ("2017-01-01T00:00:00.000000Z", at(1_483_228_800, 0)),
            (
                "2017-01-01T00:00:00,123456-08:00",
                at(1_483_257_600, 123_456_000),
            ),
            ("2024-01-01T00:00:00.+12345Z", at(1_704_067_200, 12_345_000)),
        ] {
            assert_eq!(parse_rfc3339_micro(value), Ok(instant), "{value}");
        }
    }

    /// `t.UTC().Format(time.RFC3339)` and `t.UTC().Format(RFC3339Micro)` as Go 1.19 writes
    /// them (`metav1.Time.MarshalJSON`, `MicroTime.MarshalJSON`): UTC, the fraction cut.
    #[test]
    fn formats_in_utc() {
        for (value, rfc, micro) in [
            (
                "2024-01-01T02:00:00.5+02:00",
                "2024-01-01T00:00:00Z",
                "2024-01-01T00:00:00.500000Z",
            ),
            (
                "2024-06-01T12:00:00.123456789+05:30",
                "2024-06-01T06:30:00Z",
                "2024-06-01T06:30:00.123456Z",
            ),
            (
                "0000-01-01T00:00:00+01:00",
                "-0001-12-31T23:00:00Z",
                "-0001-12-31T23:00:00.000000Z",
            ),
            (
                "9999-12-31T23:00:00-02:00",
                "10000-01-01T01:00:00Z",
                "10000-01-01T01:00:00.000000Z",
            ),
        ] {
            let instant = parse_rfc3339(value).unwrap();
            assert_eq!(instant.rfc3339_utc().as_deref(), Some(rfc), "{value}");
            assert_eq!(
                instant.rfc3339_micro_utc().as_deref(),
                Some(micro),
                "{value}"
            );
        }
    }

    /// Go's `Time.IsZero`: the instant, whatever the offset it was written with, and not
    /// with a fraction of a second.
    #[test]
    fn zero_instant() {
        for (value, zero) in [
            ("0001-01-01T00:00:00Z", true),
            ("0001-01-01T01:00:00+01:00", true),
            ("0001-01-01T00:00:00.5Z", false),
            ("2024-01-01T00:00:00Z", false),
        ] {
            assert_eq!(
                parse_rfc3339(value).map(Instant::is_zero),
                Ok(zero),
                "{value}"
            );
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
