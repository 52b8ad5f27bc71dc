//! Timestamp and duration arithmetic, and the accessor functions (`getFullYear`,
//! `getHours`, ...) with an optional time zone argument.
//!
//! Durations follow cel-go (Go's `time.Duration`, ±2^63 ns); timestamps must stay within
//! years 1..9999 after arithmetic (`timestamp overflow`).

use chrono::{DateTime, Datelike, NaiveDateTime, TimeDelta, Timelike, Utc};

use super::{duration_text, timestamp_text};
use crate::__overloads as overloads;
use crate::error::EvalError;
use crate::registry::{Implementation, Library, Specialization, TimeKernel};
use crate::syntax::ast::op;
use crate::value::EvalResult;
use crate::value::{Timestamp, Value};

const TS: &str = "google.protobuf.Timestamp";
const DUR: &str = "google.protobuf.Duration";
const NANOS: i128 = 1_000_000_000;

/// An accessor declaration: name, doc, overload id and function without and with a time
/// zone, examples.
type Accessor = (
    &'static str,
    &'static str,
    &'static str,
    fn(&Value) -> EvalResult,
    &'static str,
    fn(&Value, &Value) -> EvalResult,
    &'static [&'static str],
);

/// Declares the time arithmetic overloads and the accessors.
pub fn declare(lib: &mut Library) {
    overloads!(lib.function(op::ADD, "");
        global "add_timestamp_duration" (TS, DUR) -> TS
            => Implementation::Binary(add_timestamp_duration),
            specialization: Specialization::Time(TimeKernel::AddTimestampDuration);
        global "add_duration_timestamp" (DUR, TS) -> TS
            => Implementation::Binary(add_duration_timestamp),
            specialization: Specialization::Time(TimeKernel::AddDurationTimestamp);
        global "add_duration_duration" (DUR, DUR) -> DUR
            => Implementation::Binary(add_duration_duration),
            specialization: Specialization::Time(TimeKernel::AddDurationDuration);
    )
    .examples(&[
            "timestamp('2023-01-01T00:00:00Z') + duration('24h1m2s') == timestamp('2023-01-02T00:01:02Z')",
            "duration('24h') + timestamp('2023-01-01T00:00:00Z') == timestamp('2023-01-02T00:00:00Z')",
            "duration('1m') + duration('1s') == duration('61s')",
        ]);

    overloads!(lib.function(op::SUBTRACT, "");
        global "subtract_timestamp_timestamp" (TS, TS) -> DUR
            => Implementation::Binary(subtract_timestamp_timestamp),
            specialization: Specialization::Time(TimeKernel::SubtractTimestampTimestamp);
        global "subtract_timestamp_duration" (TS, DUR) -> TS
            => Implementation::Binary(subtract_timestamp_duration),
            specialization: Specialization::Time(TimeKernel::SubtractTimestampDuration);
        global "subtract_duration_duration" (DUR, DUR) -> DUR
            => Implementation::Binary(subtract_duration_duration),
            specialization: Specialization::Time(TimeKernel::SubtractDurationDuration);
    )
    .examples(&[
        "timestamp('2023-01-10T12:00:00Z') - timestamp('2023-01-10T00:00:00Z') == duration('12h')",
        "timestamp('2023-01-10T12:00:00Z') - duration('12h') == timestamp('2023-01-10T00:00:00Z')",
        "duration('1m') - duration('1s') == duration('59s')",
    ]);

    let accessors: [Accessor; 10] = [
        (
            "getFullYear",
            "The year of a timestamp, in UTC unless a time zone is given.",
            "timestamp_to_year",
            timestamp_to_year,
            "timestamp_to_year_with_tz",
            timestamp_to_year_with_tz,
            &[
                "timestamp('2023-07-14T10:30:45.123Z').getFullYear() == 2023",
                "timestamp('2023-01-01T05:30:00Z').getFullYear('-08:00') == 2022",
            ],
        ),
        (
            "getMonth",
            "The 0-based month of a timestamp (January is 0), in UTC unless a time zone is given.",
            "timestamp_to_month",
            timestamp_to_month,
            "timestamp_to_month_with_tz",
            timestamp_to_month_with_tz,
            &[
                "timestamp('2023-07-14T10:30:45.123Z').getMonth() == 6",
                "timestamp('2023-01-01T05:30:00Z').getMonth('America/Los_Angeles') == 11",
            ],
        ),
        (
            "getDayOfYear",
            "The 0-based day of the year of a timestamp, in UTC unless a time zone is given.",
            "timestamp_to_day_of_year",
            timestamp_to_day_of_year,
            "timestamp_to_day_of_year_with_tz",
            timestamp_to_day_of_year_with_tz,
            &[
                "timestamp('2023-01-02T00:00:00Z').getDayOfYear() == 1",
                "timestamp('2023-01-01T05:00:00Z').getDayOfYear('America/Los_Angeles') == 364",
            ],
        ),
        (
            "getDayOfMonth",
            "The 0-based day of the month of a timestamp, in UTC unless a time zone is given.",
            "timestamp_to_day_of_month",
            timestamp_to_day_of_month,
            "timestamp_to_day_of_month_with_tz",
            timestamp_to_day_of_month_with_tz,
            &[
                "timestamp('2023-07-14T10:30:45.123Z').getDayOfMonth() == 13",
                "timestamp('2023-07-01T05:00:00Z').getDayOfMonth('America/Los_Angeles') == 29",
            ],
        ),
        (
            "getDate",
            "The 1-based day of the month of a timestamp, in UTC unless a time zone is given.",
            "timestamp_to_day_of_month_1_based",
            timestamp_to_day_of_month_1_based,
            "timestamp_to_day_of_month_1_based_with_tz",
            timestamp_to_day_of_month_1_based_with_tz,
            &[
                "timestamp('2023-07-14T10:30:45.123Z').getDate() == 14",
                "timestamp('2023-07-01T05:00:00Z').getDate('America/Los_Angeles') == 30",
            ],
        ),
        (
            "getDayOfWeek",
            "The day of the week of a timestamp (Sunday is 0), in UTC unless a time zone is given.",
            "timestamp_to_day_of_week",
            timestamp_to_day_of_week,
            "timestamp_to_day_of_week_with_tz",
            timestamp_to_day_of_week_with_tz,
            &[
                "timestamp('2023-07-14T10:30:45.123Z').getDayOfWeek() == 5",
                "timestamp('2023-07-16T05:00:00Z').getDayOfWeek('America/Los_Angeles') == 6",
            ],
        ),
        (
            "getHours",
            "The hour of a timestamp (in UTC unless a time zone is given), or a duration in whole hours.",
            "timestamp_to_hours",
            timestamp_to_hours,
            "timestamp_to_hours_with_tz",
            timestamp_to_hours_with_tz,
            &[
                "timestamp('2023-07-14T10:30:45.123Z').getHours() == 10",
                "timestamp('2023-07-14T10:30:45.123Z').getHours('America/Los_Angeles') == 3",
                "timestamp('2023-07-14T10:30:45.123Z').getHours('+05:30') == 16",
                "duration('3723s').getHours() == 1",
            ],
        ),
        (
            "getMinutes",
            "The minute of a timestamp (in UTC unless a time zone is given), or a duration in whole minutes.",
            "timestamp_to_minutes",
            timestamp_to_minutes,
            "timestamp_to_minutes_with_tz",
            timestamp_to_minutes_with_tz,
            &[
                "timestamp('2023-07-14T10:30:45.123Z').getMinutes() == 30",
                "timestamp('2023-07-14T10:30:45.123Z').getMinutes('+05:30') == 0",
                "duration('3723s').getMinutes() == 62",
            ],
        ),
        (
            "getSeconds",
            "The second of a timestamp (in UTC unless a time zone is given), or a duration in whole seconds.",
            "timestamp_to_seconds",
            timestamp_to_seconds,
            // cel-go's id really is `_tz`, not `_with_tz`.
            "timestamp_to_seconds_tz",
            timestamp_to_seconds_with_tz,
            &[
                "timestamp('2023-07-14T10:30:45.123Z').getSeconds() == 45",
                "timestamp('2023-07-14T10:30:45.123Z').getSeconds('America/Los_Angeles') == 45",
                "duration('3723.456s').getSeconds() == 3723",
            ],
        ),
        (
            "getMilliseconds",
            "The millisecond of a timestamp's second (in UTC unless a time zone is given), or a duration in whole milliseconds.",
            "timestamp_to_milliseconds",
            timestamp_to_milliseconds,
            "timestamp_to_milliseconds_with_tz",
            timestamp_to_milliseconds_with_tz,
            &[
                "timestamp('2023-07-14T10:30:45.123Z').getMilliseconds() == 123",
                "timestamp('2023-07-14T10:30:45.123Z').getMilliseconds('Asia/Tokyo') == 123",
                "duration('1.5s').getMilliseconds() == 1500",
            ],
        ),
    ];
    for (name, doc, id, f, id_tz, f_tz, examples) in accessors {
        let b = lib
            .function(name, doc)
            .member(id, &[TS], "int", Implementation::Unary(f))
            .member(id_tz, &[TS, "string"], "int", Implementation::Binary(f_tz));
        let b = match name {
            "getHours" => b.member(
                "duration_to_hours",
                &[DUR],
                "int",
                Implementation::Unary(duration_to_hours),
            ),
            "getMinutes" => b.member(
                "duration_to_minutes",
                &[DUR],
                "int",
                Implementation::Unary(duration_to_minutes),
            ),
            "getSeconds" => b.member(
                "duration_to_seconds",
                &[DUR],
                "int",
                Implementation::Unary(duration_to_seconds),
            ),
            "getMilliseconds" => b.member(
                "duration_to_milliseconds",
                &[DUR],
                "int",
                Implementation::Unary(duration_to_milliseconds),
            ),
            _ => b,
        };
        b.examples(examples);
    }
}

/// Nanoseconds since the Unix epoch (always fits in i128).
fn unix_nanos(t: &DateTime<Utc>) -> i128 {
    i128::from(t.timestamp()) * NANOS + i128::from(t.timestamp_subsec_nanos())
}

/// A timestamp `nanos` after the epoch, within CEL's range.
fn timestamp_at(nanos: i128) -> Result<DateTime<Utc>, EvalError> {
    let secs = nanos.div_euclid(NANOS);
    // rem_euclid is in [0, 1e9), so it fits in u32.
    let sub = nanos.rem_euclid(NANOS) as u32;
    let secs = i64::try_from(secs).map_err(|_| super::timestamp_overflow())?;
    timestamp_text::from_unix(secs, sub)
}

/// `t + d`, within CEL's range, shown at `t`'s offset (Go's `Time.Add` keeps the location).
pub fn timestamp_plus(t: &Timestamp, d: &TimeDelta) -> Result<Timestamp, EvalError> {
    let instant = timestamp_at(unix_nanos(t) + i128::from(duration_text::to_nanos(d)?))?;
    Ok(t.at(instant))
}

/// `t - d`, within CEL's range, shown at `t`'s offset.
pub fn timestamp_minus(t: &Timestamp, d: &TimeDelta) -> Result<Timestamp, EvalError> {
    let instant = timestamp_at(unix_nanos(t) - i128::from(duration_text::to_nanos(d)?))?;
    Ok(t.at(instant))
}

/// `a - b` for timestamps: a duration, or `integer overflow` beyond ±2^63 ns.
pub fn timestamp_difference(a: &DateTime<Utc>, b: &DateTime<Utc>) -> Result<TimeDelta, EvalError> {
    i64::try_from(unix_nanos(a) - unix_nanos(b))
        .map(duration_text::from_nanos)
        .map_err(|_| EvalError::overflow())
}

/// `a + b` for durations, erroring on overflow.
pub fn duration_sum(a: &TimeDelta, b: &TimeDelta) -> Result<TimeDelta, EvalError> {
    let (x, y) = (duration_text::to_nanos(a)?, duration_text::to_nanos(b)?);
    x.checked_add(y)
        .map(duration_text::from_nanos)
        .ok_or_else(EvalError::overflow)
}

/// `a - b` for durations, erroring on overflow.
pub fn duration_difference(a: &TimeDelta, b: &TimeDelta) -> Result<TimeDelta, EvalError> {
    let (x, y) = (duration_text::to_nanos(a)?, duration_text::to_nanos(b)?);
    x.checked_sub(y)
        .map(duration_text::from_nanos)
        .ok_or_else(EvalError::overflow)
}

/// `timestamp + duration`.
pub fn add_timestamp_duration(t: &Value, d: &Value) -> EvalResult {
    match (t, d) {
        (Value::Timestamp(t), Value::Duration(d)) => timestamp_plus(t, d).map(Value::Timestamp),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `duration + timestamp`.
pub fn add_duration_timestamp(d: &Value, t: &Value) -> EvalResult {
    add_timestamp_duration(t, d)
}

/// `timestamp - duration`.
pub fn subtract_timestamp_duration(t: &Value, d: &Value) -> EvalResult {
    match (t, d) {
        (Value::Timestamp(t), Value::Duration(d)) => timestamp_minus(t, d).map(Value::Timestamp),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `timestamp - timestamp`.
pub fn subtract_timestamp_timestamp(a: &Value, b: &Value) -> EvalResult {
    match (a, b) {
        (Value::Timestamp(a), Value::Timestamp(b)) => {
            timestamp_difference(a, b).map(Value::Duration)
        }
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `duration + duration`.
pub fn add_duration_duration(a: &Value, b: &Value) -> EvalResult {
    match (a, b) {
        (Value::Duration(a), Value::Duration(b)) => duration_sum(a, b).map(Value::Duration),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `duration - duration`.
pub fn subtract_duration_duration(a: &Value, b: &Value) -> EvalResult {
    match (a, b) {
        (Value::Duration(a), Value::Duration(b)) => duration_difference(a, b).map(Value::Duration),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// Applies `field` to a timestamp's wall-clock time in UTC or the given zone.
fn field_of(t: &Value, tz: Option<&Value>, field: fn(&NaiveDateTime) -> i64) -> EvalResult {
    let Value::Timestamp(t) = t else {
        return Err(EvalError::no_such_overload());
    };
    let local = match tz {
        None => t.naive_utc(),
        Some(Value::String(zone)) => timestamp_text::local_time(t, zone)?,
        Some(_) => return Err(EvalError::no_such_overload()),
    };
    Ok(Value::Int(field(&local)))
}

macro_rules! timestamp_accessor {
    ($(#[$doc:meta] $name:ident, $name_tz:ident, $field:expr;)*) => {$(
        #[$doc]
        pub fn $name(t: &Value) -> EvalResult {
            field_of(t, None, $field)
        }
        #[$doc]
        /// In the time zone given by the second argument.
        pub fn $name_tz(t: &Value, tz: &Value) -> EvalResult {
            field_of(t, Some(tz), $field)
        }
    )*};
}

timestamp_accessor! {
    /// `t.getFullYear()`.
    timestamp_to_year, timestamp_to_year_with_tz, |t| i64::from(t.year());
    /// `t.getMonth()`: 0-based.
    timestamp_to_month, timestamp_to_month_with_tz, |t| i64::from(t.month0());
    /// `t.getDayOfYear()`: 0-based.
    timestamp_to_day_of_year, timestamp_to_day_of_year_with_tz, |t| i64::from(t.ordinal0());
    /// `t.getDayOfMonth()`: 0-based.
    timestamp_to_day_of_month, timestamp_to_day_of_month_with_tz, |t| i64::from(t.day0());
    /// `t.getDate()`: 1-based day of the month.
    timestamp_to_day_of_month_1_based, timestamp_to_day_of_month_1_based_with_tz,
        |t| i64::from(t.day());
    /// `t.getDayOfWeek()`: Sunday is 0.
    timestamp_to_day_of_week, timestamp_to_day_of_week_with_tz,
        |t| i64::from(t.weekday().num_days_from_sunday());
    /// `t.getHours()`.
    timestamp_to_hours, timestamp_to_hours_with_tz, |t| i64::from(t.hour());
    /// `t.getMinutes()`.
    timestamp_to_minutes, timestamp_to_minutes_with_tz, |t| i64::from(t.minute());
    /// `t.getSeconds()`.
    timestamp_to_seconds, timestamp_to_seconds_with_tz, |t| i64::from(t.second());
    /// `t.getMilliseconds()`: the milliseconds within the second.
    timestamp_to_milliseconds, timestamp_to_milliseconds_with_tz,
        |t| i64::from(t.nanosecond() % 1_000_000_000 / 1_000_000);
}

fn duration_in(d: &Value, unit: i64) -> EvalResult {
    match d {
        // Integer division truncates toward zero, like Go's float conversion does.
        Value::Duration(d) => Ok(Value::Int(duration_text::to_nanos(d)? / unit)),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `d.getHours()`: the whole hours in a duration.
pub fn duration_to_hours(d: &Value) -> EvalResult {
    duration_in(d, 3_600_000_000_000)
}

/// `d.getMinutes()`: the whole minutes in a duration.
pub fn duration_to_minutes(d: &Value) -> EvalResult {
    duration_in(d, 60_000_000_000)
}

/// `d.getSeconds()`: the whole seconds in a duration.
pub fn duration_to_seconds(d: &Value) -> EvalResult {
    duration_in(d, 1_000_000_000)
}

/// `d.getMilliseconds()`: the whole milliseconds in a duration (as cel-go; the spec's
/// conformance test expecting only the sub-second part is skipped by cel-go too).
pub fn duration_to_milliseconds(d: &Value) -> EvalResult {
    duration_in(d, 1_000_000)
}

#[cfg(test)]
mod tests {
    use super::super::conversions::{to_duration, to_timestamp};
    use super::*;

    fn ts(s: &str) -> Value {
        to_timestamp(&Value::from(s)).unwrap()
    }

    fn dur(s: &str) -> Value {
        to_duration(&Value::from(s)).unwrap()
    }

    fn err(msg: &str) -> EvalResult {
        Err(EvalError::new(msg))
    }

    #[test]
    fn timestamp_arithmetic() {
        assert_eq!(
            add_timestamp_duration(&ts("2009-02-13T23:00:00Z"), &dur("240s")),
            Ok(ts("2009-02-13T23:04:00Z"))
        );
        assert_eq!(
            add_duration_timestamp(&dur("120s"), &ts("2009-02-13T23:01:00Z")),
            Ok(ts("2009-02-13T23:03:00Z"))
        );
        assert_eq!(
            add_timestamp_duration(&ts("0001-01-01T00:00:01.000000001Z"), &dur("-999999999ns")),
            Ok(ts("0001-01-01T00:00:00.000000002Z"))
        );
        assert_eq!(
            add_timestamp_duration(&ts("0001-01-01T00:00:01.999999999Z"), &dur("999999999ns")),
            Ok(ts("0001-01-01T00:00:02.999999998Z"))
        );
        assert_eq!(
            subtract_timestamp_duration(&ts("2009-02-13T23:10:00Z"), &dur("600s")),
            Ok(ts("2009-02-13T23:00:00Z"))
        );
        assert_eq!(
            subtract_timestamp_timestamp(&ts("2009-02-13T23:31:00Z"), &ts("2009-02-13T23:29:00Z")),
            Ok(dur("120s"))
        );
        assert_eq!(
            subtract_timestamp_timestamp(
                &ts("2009-02-13T23:29:00Z"),
                &ts("2009-02-13T23:31:00.5Z")
            ),
            Ok(dur("-120.5s"))
        );
    }

    #[test]
    fn timestamp_range_errors() {
        let overflow = err("timestamp overflow");
        assert_eq!(
            add_timestamp_duration(&ts("0001-01-01T00:00:00Z"), &dur("-1ns")),
            overflow
        );
        assert_eq!(
            add_timestamp_duration(&ts("9999-12-31T23:59:59.999999999Z"), &dur("1ns")),
            overflow
        );
        assert_eq!(
            subtract_timestamp_duration(&ts("9999-12-31T23:59:59Z"), &dur("-1s")),
            overflow
        );
        assert_eq!(
            subtract_timestamp_timestamp(&ts("9999-12-31T23:59:59Z"), &ts("0001-01-01T00:00:00Z")),
            Err(EvalError::overflow())
        );
    }

    #[test]
    fn duration_arithmetic() {
        assert_eq!(
            add_duration_duration(&dur("600s"), &dur("50s")),
            Ok(dur("650s"))
        );
        assert_eq!(
            subtract_duration_duration(&dur("900s"), &dur("42s")),
            Ok(dur("858s"))
        );
        let max = Value::Duration(duration_text::from_nanos(i64::MAX));
        assert_eq!(
            add_duration_duration(&max, &dur("1ns")),
            Err(EvalError::overflow())
        );
        let min = Value::Duration(duration_text::from_nanos(i64::MIN));
        assert_eq!(
            subtract_duration_duration(&min, &dur("1ns")),
            Err(EvalError::overflow())
        );
        assert_eq!(
            add_duration_duration(&dur("1s"), &Value::Int(1)),
            Err(EvalError::no_such_overload())
        );
    }

    #[test]
    fn timestamp_accessors() {
        let t = ts("2009-02-13T23:31:30Z");
        assert_eq!(timestamp_to_year(&t), Ok(Value::Int(2009)));
        assert_eq!(timestamp_to_month(&t), Ok(Value::Int(1)));
        assert_eq!(timestamp_to_day_of_year(&t), Ok(Value::Int(43)));
        assert_eq!(timestamp_to_day_of_month(&t), Ok(Value::Int(12)));
        assert_eq!(timestamp_to_day_of_month_1_based(&t), Ok(Value::Int(13)));
        assert_eq!(timestamp_to_day_of_week(&t), Ok(Value::Int(5)));
        assert_eq!(timestamp_to_hours(&t), Ok(Value::Int(23)));
        assert_eq!(timestamp_to_minutes(&t), Ok(Value::Int(31)));
        assert_eq!(timestamp_to_seconds(&t), Ok(Value::Int(30)));
        let ms = ts("2009-02-13T23:31:20.123456789Z");
        assert_eq!(timestamp_to_milliseconds(&ms), Ok(Value::Int(123)));
        assert_eq!(
            timestamp_to_milliseconds(&Value::Int(1)),
            Err(EvalError::no_such_overload())
        );
    }

    #[test]
    fn timestamp_accessors_with_zones() {
        let t = ts("2009-02-13T23:31:30Z");
        let z = |s: &str| Value::from(s);
        assert_eq!(
            timestamp_to_day_of_month_1_based_with_tz(&t, &z("Australia/Sydney")),
            Ok(Value::Int(14))
        );
        assert_eq!(
            timestamp_to_day_of_month_with_tz(&t, &z("US/Central")),
            Ok(Value::Int(12))
        );
        assert_eq!(
            timestamp_to_day_of_month_with_tz(&t, &z("+11:00")),
            Ok(Value::Int(13))
        );
        let early = ts("2009-02-13T02:00:00Z");
        assert_eq!(
            timestamp_to_day_of_month_with_tz(&early, &z("-02:30")),
            Ok(Value::Int(11))
        );
        assert_eq!(
            timestamp_to_day_of_month_with_tz(&early, &z("America/St_Johns")),
            Ok(Value::Int(11))
        );
        assert_eq!(
            timestamp_to_year_with_tz(&t, &z("-09:30")),
            Ok(Value::Int(2009))
        );
        assert_eq!(
            timestamp_to_hours_with_tz(&t, &z("02:00")),
            Ok(Value::Int(1))
        );
        assert_eq!(
            timestamp_to_minutes_with_tz(&t, &z("Asia/Kathmandu")),
            Ok(Value::Int(16))
        );
        assert_eq!(
            timestamp_to_seconds_with_tz(&t, &z("-00:00")),
            Ok(Value::Int(30))
        );
        assert_eq!(timestamp_to_month_with_tz(&t, &z("UTC")), Ok(Value::Int(1)));
        assert_eq!(
            timestamp_to_hours_with_tz(&ts("2023-07-14T10:30:45.123Z"), &z("America/Los_Angeles")),
            Ok(Value::Int(3))
        );
        assert_eq!(
            timestamp_to_year_with_tz(&t, &z("Nowhere/Special")),
            err("unknown time zone Nowhere/Special")
        );
        assert_eq!(
            timestamp_to_year_with_tz(&t, &Value::Int(1)),
            Err(EvalError::no_such_overload())
        );
    }

    #[test]
    fn accessors_agree_with_cel_go_unit_tests() {
        let t = Value::Timestamp(timestamp_text::from_unix(7506, 0).unwrap().into());
        let z = |s: &str| Value::from(s);
        let int = |i: i64| Ok(Value::Int(i));
        assert_eq!(timestamp_to_day_of_month(&t), int(0));
        assert_eq!(
            timestamp_to_day_of_month_with_tz(&t, &z("America/Phoenix")),
            int(30)
        );
        assert_eq!(timestamp_to_day_of_month_with_tz(&t, &z("-07:00")), int(30));
        assert_eq!(timestamp_to_day_of_month_1_based(&t), int(1));
        assert_eq!(
            timestamp_to_day_of_month_1_based_with_tz(&t, &z("+23:00")),
            int(2)
        );
        assert_eq!(timestamp_to_day_of_year_with_tz(&t, &z("-07:00")), int(364));
        assert_eq!(
            timestamp_to_year_with_tz(&t, &z("America/Phoenix")),
            int(1969)
        );
        assert_eq!(
            timestamp_to_month_with_tz(&t, &z("America/Phoenix")),
            int(11)
        );
        assert_eq!(
            timestamp_to_day_of_week_with_tz(&t, &z("America/Phoenix")),
            int(3)
        );
        assert_eq!(
            timestamp_to_hours_with_tz(&t, &z("America/Phoenix")),
            int(19)
        );
        assert_eq!(timestamp_to_minutes_with_tz(&t, &z("-08:30")), int(35));
        for bad in ["+00:99", "-00:90", "+05:-30"] {
            assert!(timestamp_to_minutes_with_tz(&t, &z(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn duration_accessors() {
        assert_eq!(duration_to_hours(&dur("10000s")), Ok(Value::Int(2)));
        assert_eq!(duration_to_minutes(&dur("3730s")), Ok(Value::Int(62)));
        assert_eq!(duration_to_seconds(&dur("3730s")), Ok(Value::Int(3730)));
        assert_eq!(duration_to_seconds(&dur("-1.5s")), Ok(Value::Int(-1)));
        assert_eq!(
            duration_to_milliseconds(&dur("123.321456789s")),
            Ok(Value::Int(123321))
        );
        assert_eq!(
            duration_to_hours(&Value::Int(1)),
            Err(EvalError::no_such_overload())
        );
    }
}
