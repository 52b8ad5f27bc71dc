//! Timestamps as cel-go sees them: RFC 3339 parsing and printing, the valid range
//! (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z), and time zones for the
//! accessor functions (IANA names or fixed `±hh:mm` offsets).

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, TimeDelta, Timelike, Utc};

use super::duration_text::go_quote;
use super::timestamp_overflow;
use crate::error::EvalError;
use crate::value::Timestamp;

/// Seconds from the Unix epoch to 0001-01-01T00:00:00Z.
pub const MIN_UNIX_SECONDS: i64 = -62_135_596_800;
/// Seconds from the Unix epoch to 9999-12-31T23:59:59Z.
pub const MAX_UNIX_SECONDS: i64 = 253_402_300_799;

/// A timestamp from Unix seconds and nanoseconds, or `timestamp overflow` outside CEL's range.
pub fn from_unix(secs: i64, nanos: u32) -> Result<DateTime<Utc>, EvalError> {
    if !(MIN_UNIX_SECONDS..=MAX_UNIX_SECONDS).contains(&secs) {
        return Err(timestamp_overflow());
    }
    DateTime::from_timestamp(secs, nanos).ok_or_else(timestamp_overflow)
}

/// Checks that a timestamp's instant lies in CEL's range.
pub fn check_range(t: Timestamp) -> Result<Timestamp, EvalError> {
    // Years 2 to 9998 lie inside whatever the day and time (the year is stored as such;
    // the seconds since the epoch are computed).
    if (2..=9998).contains(&t.naive_utc().year())
        || (MIN_UNIX_SECONDS..=MAX_UNIX_SECONDS).contains(&t.timestamp())
    {
        Ok(t)
    } else {
        Err(timestamp_overflow())
    }
}

/// Parses RFC 3339 as Go's `time.Parse(time.RFC3339, s)` does, including its lenient
/// fallback: a four-digit year, `T`, a one- or two-digit hour, optional fractional seconds
/// after `.` or `,` (digits past nine are dropped), and `Z` or `±hh:mm`, which the result
/// keeps as its offset (Go's fixed zone). Returns `None` for text Go rejects; the caller
/// checks the range.
pub fn parse_rfc3339(s: &str) -> Option<Timestamp> {
    let mut p = Cursor(s.as_bytes());
    let [year, month, day, hour, min, sec] = match fixed_date_time(p.0) {
        Some(fields) => {
            p.0 = &p.0[19..];
            fields
        }
        None => p.date_time()?,
    };
    if hour > 23 || min > 59 || sec > 59 {
        return None;
    }
    let mut nanos = 0u32;
    if matches!(p.0, [b'.' | b',', d, ..] if d.is_ascii_digit()) {
        p.0 = &p.0[1..];
        let n = p.0.iter().take_while(|c| c.is_ascii_digit()).count();
        // Nine digits, padded with zeros; further digits are dropped.
        let digits = p.0[..n].iter().chain(std::iter::repeat(&b'0')).take(9);
        nanos = digits.fold(0, |acc, c| acc * 10 + u32::from(c - b'0'));
        p.0 = &p.0[n..];
    }
    let offset_secs = match p.0 {
        [b'Z'] => 0,
        [sign @ (b'+' | b'-'), rest @ ..] => {
            let mut z = Cursor(rest);
            let h = z.digits(2, 2)?;
            z.expect(b':')?;
            let m = z.digits(2, 2)?;
            if !z.0.is_empty() || h > 24 || m > 60 {
                return None;
            }
            let secs = i64::from(h * 60 + m) * 60;
            if *sign == b'-' { -secs } else { secs }
        }
        _ => return None,
    };
    // Validates month and day-of-month too.
    let date = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    let local = date.and_hms_nano_opt(hour, min, sec, nanos)?;
    if offset_secs == 0 {
        return Some(Timestamp::utc(local.and_utc()));
    }
    let utc = local.checked_sub_signed(TimeDelta::seconds(offset_secs))?;
    Some(Timestamp::with_offset(utc.and_utc(), offset_secs as i32))
}

/// Year, month, day, hour, minute and second of text starting with the usual layout
/// `dddd-dd-ddTdd:dd:dd` (what Kubernetes writes), read at fixed positions; `None` for any
/// other start, which [`parse_rfc3339`] reads digit run by digit run.
fn fixed_date_time(text: &[u8]) -> Option<[u32; 6]> {
    let b: &[u8; 19] = text.get(..19)?.try_into().ok()?;
    if [b[4], b[7], b[10], b[13], b[16]] != *b"--T::" {
        return None;
    }
    let digit = |i: usize| {
        let d = b[i].wrapping_sub(b'0');
        (d < 10).then_some(u32::from(d))
    };
    let two = |i: usize| Some(digit(i)? * 10 + digit(i + 1)?);
    Some([
        two(0)? * 100 + two(2)?,
        two(5)?,
        two(8)?,
        two(11)?,
        two(14)?,
        two(17)?,
    ])
}

/// A read position in ASCII text.
struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    /// Year, month, day, hour, minute and second: `dddd-dd-ddTh:dd:dd` or
    /// `dddd-dd-ddThh:dd:dd`.
    fn date_time(&mut self) -> Option<[u32; 6]> {
        let year = self.digits(4, 4)?;
        self.expect(b'-')?;
        let month = self.digits(2, 2)?;
        self.expect(b'-')?;
        let day = self.digits(2, 2)?;
        self.expect(b'T')?;
        let hour = self.digits(1, 2)?;
        self.expect(b':')?;
        let min = self.digits(2, 2)?;
        self.expect(b':')?;
        Some([year, month, day, hour, min, self.digits(2, 2)?])
    }

    /// Consumes `min..=max` decimal digits (as many as present, up to `max`).
    fn digits(&mut self, min: usize, max: usize) -> Option<u32> {
        let n = self
            .0
            .iter()
            .take(max)
            .take_while(|c| c.is_ascii_digit())
            .count();
        if n < min {
            return None;
        }
        let value = self.0[..n]
            .iter()
            .fold(0u32, |acc, c| acc * 10 + u32::from(c - b'0'));
        self.0 = &self.0[n..];
        Some(value)
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        let (&first, rest) = self.0.split_first()?;
        (first == c).then(|| self.0 = rest)
    }
}

/// Formats a timestamp as Go's `t.Format(time.RFC3339Nano)` (cel-go's `string(timestamp)`):
/// the wall clock at the timestamp's offset, fractional seconds without trailing zeros
/// (omitted when zero), then `Z` for a zero offset or `±hh:mm`
/// (`2009-02-13T23:31:30.5Z`, `1999-12-31T23:00:00-01:00`).
pub fn format_rfc3339(t: &Timestamp) -> String {
    use std::fmt::Write;
    let local = t.local();
    let mut out = String::with_capacity(35);
    let _ = write!(
        out,
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        local.year(),
        local.month(),
        local.day(),
        local.hour(),
        local.minute(),
        local.second()
    );
    let nanos = local.nanosecond() % 1_000_000_000;
    if nanos != 0 {
        let frac = format!("{nanos:09}");
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    let offset = t.offset_seconds();
    if offset == 0 {
        out.push('Z');
    } else {
        // Go's `Z07:00`: whole minutes, the sign of the offset.
        let minutes = offset.unsigned_abs() / 60;
        let sign = if offset < 0 { '-' } else { '+' };
        let _ = write!(out, "{sign}{:02}:{:02}", minutes / 60, minutes % 60);
    }
    out
}

/// The wall-clock date and time of `t` in a time zone given as cel-go accepts it: an IANA
/// name (`"America/Los_Angeles"`, `"UTC"`; empty means UTC) or, when the text contains a
/// colon, a fixed offset `[±]hh:mm` (`"+05:30"`, `"-09:30"`, `"02:00"`, `"-00:00"`).
pub fn local_time(t: &DateTime<Utc>, tz: &str) -> Result<NaiveDateTime, EvalError> {
    let Some(colon) = tz.find(':') else {
        if tz.is_empty() || tz == "UTC" || tz == "Local" {
            // The engine never reads the machine's zone: "Local" is UTC.
            return Ok(t.naive_utc());
        }
        let offset = super::time_zones::offset_at(tz, t.timestamp())?;
        return t
            .naive_utc()
            .checked_add_signed(TimeDelta::seconds(offset.into()))
            .ok_or_else(timestamp_overflow);
    };
    let hours = go_atoi(&tz[..colon])?;
    let minutes = go_atoi(&tz[colon + 1..])?;
    if !(0..=59).contains(&minutes) {
        return Err(EvalError::new(format!(
            "timezone offset minutes out of range [0, 59]: {tz}"
        )));
    }
    let offset_minutes = hours
        .checked_mul(60)
        .and_then(|h| {
            if tz.starts_with('-') {
                h.checked_sub(minutes)
            } else {
                h.checked_add(minutes)
            }
        })
        .and_then(|m| m.checked_mul(60))
        .and_then(TimeDelta::try_seconds)
        .ok_or_else(timestamp_overflow)?;
    t.naive_utc()
        .checked_add_signed(offset_minutes)
        .ok_or_else(timestamp_overflow)
}

/// Go's `strconv.Atoi`: an optional sign and decimal digits.
fn go_atoi(s: &str) -> Result<i64, EvalError> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    let err =
        |reason: &str| EvalError::new(format!("strconv.Atoi: parsing {}: {reason}", go_quote(s)));
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(err("invalid syntax"));
    }
    s.parse::<i64>().map_err(|_| err("value out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Datelike;

    fn ts(s: &str) -> Timestamp {
        parse_rfc3339(s).unwrap()
    }

    #[test]
    fn parses_rfc3339() {
        assert_eq!(ts("1970-01-01T00:00:01Z").timestamp(), 1);
        assert_eq!(ts("2009-02-13T23:31:30Z").timestamp(), 1_234_567_890);
        assert_eq!(
            ts("2009-02-13T23:31:30+01:00").timestamp(),
            1_234_567_890 - 3600
        );
        assert_eq!(
            ts("2009-02-13T23:31:30-00:30").timestamp(),
            1_234_567_890 + 1800
        );
        let t = ts("2009-02-13T23:31:20.123456789Z");
        assert_eq!(t.nanosecond(), 123_456_789);
        assert_eq!(
            ts("2009-02-13T23:31:20.1234567891Z").nanosecond(),
            123_456_789
        );
        assert_eq!(ts("2009-02-13T23:31:20.5Z").nanosecond(), 500_000_000);
        assert_eq!(ts("0000-01-01T00:00:00Z").year(), 0);
        // Go's fallback parser: one-digit hours, comma fractions, offsets up to 24:60.
        assert_eq!(ts("2009-02-13T3:31:30Z").hour(), 3);
        assert_eq!(ts("2009-02-13T23:31:30,25Z").nanosecond(), 250_000_000);
        assert_eq!(
            ts("2009-02-13T23:31:30+24:00").timestamp(),
            1_234_567_890 - 86_400
        );
    }

    /// Where the fixed-position reading applies, it reads what the digit-run reading reads,
    /// and ends where it ends: checked on every one-byte change of a timestamp.
    #[test]
    fn fixed_positions_read_as_digit_runs() {
        let base = b"2009-02-13T23:31:30Z".to_vec();
        let mut fixed = 0;
        for i in 0..base.len() {
            for c in b"0159-T:Z+.x" {
                let mut text = base.clone();
                text[i] = *c;
                let mut cursor = Cursor(&text);
                let runs = cursor.date_time().map(|f| (f, cursor.0.len()));
                if let Some(f) = fixed_date_time(&text) {
                    assert_eq!(Some((f, text.len() - 19)), runs, "{text:?}");
                    fixed += 1;
                }
            }
        }
        assert!(fixed > 50);
    }

    #[test]
    fn rejects_malformed_rfc3339() {
        for s in [
            "",
            "2009-02-13",
            "2009-02-13 23:31:30Z",
            "2009-02-13t23:31:30Z",
            "2009-02-13T23:31:30z",
            "2009-02-13T23:31:30",
            "2009-02-30T23:31:30Z",
            "2009-13-01T23:31:30Z",
            "2009-02-13T24:00:00Z",
            "2009-02-13T123:31:30Z",
            "2009-2-13T23:31:30Z",
            "2009-02-13T23:31:30+25:00",
            "2009-02-13T23:31:30+1:00",
            "2009-02-13T23:31:30.Z",
            "2009-02-13T23:31:30+0100",
            "10000-01-01T00:00:00Z",
            "2009-02-13T23:31:30+01:00x",
            "２００９-02-13T23:31:30Z",
        ] {
            assert!(parse_rfc3339(s).is_none(), "{s}");
        }
    }

    #[test]
    fn range_is_checked() {
        assert!(check_range(ts("0001-01-01T00:00:00Z")).is_ok());
        assert!(check_range(ts("9999-12-31T23:59:59.999999999Z")).is_ok());
        assert_eq!(
            check_range(ts("0000-12-31T23:59:59Z")),
            Err(timestamp_overflow())
        );
        assert_eq!(
            check_range(ts("9999-12-31T23:59:59-01:00")),
            Err(timestamp_overflow())
        );
        assert_eq!(
            from_unix(MAX_UNIX_SECONDS + 1, 0),
            Err(timestamp_overflow())
        );
        assert!(from_unix(MIN_UNIX_SECONDS, 0).is_ok());
    }

    #[test]
    fn formats_rfc3339_nano() {
        assert_eq!(
            format_rfc3339(&ts("2009-02-13T23:31:30Z")),
            "2009-02-13T23:31:30Z"
        );
        assert_eq!(
            format_rfc3339(&ts("9999-12-31T23:59:59.999999999Z")),
            "9999-12-31T23:59:59.999999999Z"
        );
        assert_eq!(
            format_rfc3339(&ts("0001-01-01T00:00:00.120Z")),
            "0001-01-01T00:00:00.12Z"
        );
    }

    #[test]
    fn time_zones() {
        let t = ts("2009-02-13T23:31:30Z");
        assert_eq!(local_time(&t, "Australia/Sydney").unwrap().day(), 14);
        assert_eq!(local_time(&t, "US/Central").unwrap().hour(), 17);
        assert_eq!(local_time(&t, "Asia/Kathmandu").unwrap().minute(), 16);
        assert_eq!(local_time(&t, "02:00").unwrap().hour(), 1);
        assert_eq!(local_time(&t, "+11:00").unwrap().day(), 14);
        assert_eq!(local_time(&t, "-00:00").unwrap(), t.naive_utc());
        assert_eq!(local_time(&t, "").unwrap(), t.naive_utc());
        let early = ts("2009-02-13T02:00:00Z");
        assert_eq!(local_time(&early, "-02:30").unwrap().day(), 12);
        assert_eq!(local_time(&early, "-02:30").unwrap().hour(), 23);
        assert_eq!(
            local_time(&t, "Mars/Olympus"),
            Err(EvalError::new("unknown time zone Mars/Olympus"))
        );
        assert_eq!(
            local_time(&t, "+05:75"),
            Err(EvalError::new(
                "timezone offset minutes out of range [0, 59]: +05:75"
            ))
        );
        assert_eq!(
            local_time(&t, "ab:00"),
            Err(EvalError::new(
                "strconv.Atoi: parsing \"ab\": invalid syntax"
            ))
        );
    }
}
