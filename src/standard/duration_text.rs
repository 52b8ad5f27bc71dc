//! Durations as cel-go sees them: signed 64-bit nanosecond counts (Go's `time.Duration`),
//! parsed with Go's `time.ParseDuration` syntax and printed as cel-go's `string(duration)`
//! ([`format()`]) or as Go's `Duration.String` ([`go_string`]).

use chrono::TimeDelta;

pub use super::go_quote;
use crate::error::EvalError;

const NANOS_PER_SECOND: i64 = 1_000_000_000;

/// The nanoseconds of a duration; durations beyond Go's `time.Duration` range (about ±292
/// years) are an `integer overflow`, as any arithmetic producing them is in cel-go.
pub fn to_nanos(d: &TimeDelta) -> Result<i64, EvalError> {
    d.num_nanoseconds().ok_or_else(EvalError::overflow)
}

/// A duration of `n` nanoseconds.
pub fn from_nanos(n: i64) -> TimeDelta {
    TimeDelta::nanoseconds(n)
}

/// cel-go's `string(duration)`: the seconds as the shortest decimal float, then `s`
/// (`"1.5s"`, `"-0.000000001s"`, `"5400s"`). Large durations with sub-second parts lose
/// precision exactly as cel-go's float formatting does.
pub fn format(nanos: i64) -> String {
    let secs = (nanos / NANOS_PER_SECOND) as f64 + (nanos % NANOS_PER_SECOND) as f64 / 1e9;
    format!("{secs}s")
}

/// Go's `time.Duration.String` (`src/time/time.go`): `0s`; below a second one unit
/// (`ns`, `µs`, `ms`) with a fraction (`1.5ms`); else hours and minutes when there are any,
/// then seconds with their fraction, trailing zeros of fractions left out (`1h30m0s`,
/// `1m30s`, `2.5s`).
pub fn go_string(nanos: i64) -> String {
    const SECOND: u64 = NANOS_PER_SECOND as u64;
    let sign = if nanos < 0 { "-" } else { "" };
    let u = nanos.unsigned_abs();
    if u == 0 {
        return "0s".to_owned();
    }
    if u < SECOND {
        let (digits, unit) = match u {
            ..1_000 => (0, "ns"),
            1_000..1_000_000 => (3, "\u{b5}s"),
            _ => (6, "ms"),
        };
        return format!("{sign}{}{unit}", decimal(u, digits));
    }
    let (minutes, seconds) = (u / SECOND / 60, u % (60 * SECOND));
    let seconds = decimal(seconds, 9);
    match (minutes / 60, minutes % 60) {
        (0, 0) => format!("{sign}{seconds}s"),
        (0, m) => format!("{sign}{m}m{seconds}s"),
        (h, m) => format!("{sign}{h}h{m}m{seconds}s"),
    }
}

/// `value / 10^digits` in decimal, its fraction without trailing zeros (Go's `fmtFrac`
/// then `fmtInt`).
fn decimal(value: u64, digits: u32) -> String {
    let scale = 10u64.pow(digits);
    let (whole, fraction) = (value / scale, value % scale);
    if fraction == 0 {
        return whole.to_string();
    }
    let fraction = format!("{fraction:0width$}", width = digits as usize);
    format!("{whole}.{}", fraction.trim_end_matches('0'))
}

/// Why a text is not a Go duration; `Display` is Go's `time.ParseDuration` message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationSyntaxError {
    /// Malformed or out of range (the text).
    #[error("time: invalid duration {}", go_quote(.0))]
    Invalid(String),
    /// A number without a unit (the text).
    #[error("time: missing unit in duration {}", go_quote(.0))]
    MissingUnit(String),
    /// A unit Go does not know.
    #[error("time: unknown unit {} in duration {}", go_quote(.unit), go_quote(.text))]
    UnknownUnit {
        /// The unit as written.
        unit: String,
        /// The whole text.
        text: String,
    },
}

/// Parses Go's duration syntax: an optional sign, then one or more decimal numbers with
/// optional fractions, each followed by a unit (`ns`, `us`, `µs`, `μs`, `ms`, `s`, `m`, `h`),
/// e.g. `"1h2m3.5s"`, `"-1.5h"`, `"300ms"`. The error renders Go's message.
pub fn parse(text: &str) -> Result<i64, DurationSyntaxError> {
    let invalid = || DurationSyntaxError::Invalid(text.to_string());
    let mut s = text;
    let mut neg = false;
    if let Some(rest) = s.strip_prefix('-') {
        neg = true;
        s = rest;
    } else if let Some(rest) = s.strip_prefix('+') {
        s = rest;
    }
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    const LIMIT: u64 = 1 << 63;
    let mut total: u64 = 0;
    while !s.is_empty() {
        if !s.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
            return Err(invalid());
        }
        // Integer part.
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        let mut v: u64 = 0;
        for b in s[..digits].bytes() {
            if v > LIMIT / 10 {
                return Err(invalid());
            }
            v = v * 10 + u64::from(b - b'0');
            if v > LIMIT {
                return Err(invalid());
            }
        }
        let pre = digits > 0;
        s = &s[digits..];
        // Fraction: digits beyond what fits are consumed and ignored.
        let mut f: u64 = 0;
        let mut scale = 1.0f64;
        let mut post = false;
        if let Some(rest) = s.strip_prefix('.') {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            post = digits > 0;
            let mut overflow = false;
            for b in rest[..digits].bytes() {
                if overflow {
                    continue;
                }
                if f > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let y = f * 10 + u64::from(b - b'0');
                if y > LIMIT {
                    overflow = true;
                    continue;
                }
                f = y;
                scale *= 10.0;
            }
            s = &rest[digits..];
        }
        if !pre && !post {
            return Err(invalid());
        }
        // Unit: everything up to the next number.
        let unit_len = s
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if unit_len == 0 {
            return Err(DurationSyntaxError::MissingUnit(text.to_string()));
        }
        let unit_text = &s[..unit_len];
        s = &s[unit_len..];
        let unit: u64 = match unit_text {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(DurationSyntaxError::UnknownUnit {
                    unit: unit_text.to_string(),
                    text: text.to_string(),
                });
            }
        };
        if v > LIMIT / unit {
            return Err(invalid());
        }
        v *= unit;
        if f > 0 {
            // As in Go: float64 keeps nanosecond accuracy for fractions of the largest unit.
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return Err(invalid());
            }
        }
        total += v;
        if total > LIMIT {
            return Err(invalid());
        }
    }
    if neg {
        // total <= 2^63, so the negation fits (2^63 itself becomes i64::MIN).
        Ok((total as i64).wrapping_neg())
    } else if total > LIMIT - 1 {
        Err(invalid())
    } else {
        Ok(total as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_syntax() {
        assert_eq!(parse("1h2m3.5s"), Ok(3_723_500_000_000));
        assert_eq!(parse("-1.5h"), Ok(-5_400_000_000_000));
        assert_eq!(parse("300ms"), Ok(300_000_000));
        assert_eq!(parse("1us"), Ok(1_000));
        assert_eq!(parse("1µs"), Ok(1_000));
        assert_eq!(parse("1μs"), Ok(1_000));
        assert_eq!(parse("1ns"), Ok(1));
        assert_eq!(parse("0"), Ok(0));
        assert_eq!(parse("+5s"), Ok(5_000_000_000));
        assert_eq!(parse(".5s"), Ok(500_000_000));
        assert_eq!(parse("1.s"), Ok(1_000_000_000));
        assert_eq!(parse("-999999999ns"), Ok(-999_999_999));
        assert_eq!(parse("2562047h47m16.854775807s"), Ok(i64::MAX));
        assert_eq!(parse("-2562047h47m16.854775808s"), Ok(i64::MIN));
    }

    #[test]
    fn rejects_what_go_rejects() {
        assert_eq!(
            parse("").unwrap_err().to_string(),
            "time: invalid duration \"\""
        );
        assert_eq!(
            parse("-").unwrap_err().to_string(),
            "time: invalid duration \"-\""
        );
        assert_eq!(
            parse("1").unwrap_err().to_string(),
            "time: missing unit in duration \"1\""
        );
        assert_eq!(
            parse("1d").unwrap_err().to_string(),
            "time: unknown unit \"d\" in duration \"1d\""
        );
        assert_eq!(
            parse(".s").unwrap_err().to_string(),
            "time: invalid duration \".s\""
        );
        assert_eq!(
            parse("s").unwrap_err().to_string(),
            "time: invalid duration \"s\""
        );
        assert!(parse("320000000000s").is_err());
        assert!(parse("2562047h47m16.854775808s").is_err());
        assert!(parse("99999999999999999999ns").is_err());
    }

    #[test]
    fn formats_like_cel_go() {
        assert_eq!(format(0), "0s");
        assert_eq!(format(1_500_000_000), "1.5s");
        assert_eq!(format(-1), "-0.000000001s");
        assert_eq!(format(5_400_000_000_000), "5400s");
        assert_eq!(format(7_506_000_001_000), "7506.000001s");
        assert_eq!(format(1_000_000 * NANOS_PER_SECOND), "1000000s");
    }

    /// Go `src/time/time_test.go` `durationTests` (`TestDurationString`).
    #[test]
    fn formats_like_go() {
        for (want, nanos) in [
            ("0s", 0),
            ("1ns", 1),
            ("1.1\u{b5}s", 1_100),
            ("2.2ms", 2_200_000),
            ("3.3s", 3_300_000_000),
            ("4m5s", 245_000_000_000),
            ("4m5.001s", 245_001_000_000),
            ("5h6m7.001s", 18_367_001_000_000),
            ("8m0.000000001s", 480_000_000_001),
            ("2562047h47m16.854775807s", i64::MAX),
            ("-2562047h47m16.854775808s", i64::MIN),
        ] {
            assert_eq!(go_string(nanos), want, "{nanos}");
        }
        // metav1.Duration's round trip: ParseDuration, then String.
        assert_eq!(parse("90s").map(go_string), Ok("1m30s".to_owned()));
        assert_eq!(parse("1.5h").map(go_string), Ok("1h30m0s".to_owned()));
    }

    #[test]
    fn nanos_round_trip() {
        assert_eq!(to_nanos(&from_nanos(-7)), Ok(-7));
        assert_eq!(
            to_nanos(&TimeDelta::seconds(400_000_000_000)),
            Err(EvalError::overflow())
        );
    }
}
