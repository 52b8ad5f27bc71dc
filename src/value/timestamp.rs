//! The timestamp value: an instant and the UTC offset it is shown in.

use std::cmp::Ordering;
use std::fmt;
use std::ops::Deref;

use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};

/// A `google.protobuf.Timestamp` value as cel-go holds one (a Go `time.Time`): an instant,
/// plus the fixed UTC offset of the text it was parsed from (`time.Parse` keeps the zone),
/// which `string()` and JSON output show and which `+` and `-` with a duration keep
/// (`Timestamp.ConvertToType`, `Time.Add` in cel-go's `common/types/timestamp.go`).
/// Everything else reads the instant: equality and ordering compare instants, and the
/// accessors without a time zone work in UTC (cel-go's standard library passes `UTC`).
///
/// It dereferences to the instant in UTC, so `t.timestamp()`, `t.hour()` and the like are
/// UTC readings. Copy, 16 bytes, no allocation.
#[derive(Clone, Copy)]
pub struct Timestamp {
    instant: DateTime<Utc>,
    /// Seconds east of UTC.
    offset: i32,
}

impl Timestamp {
    /// An instant shown in UTC.
    pub const fn utc(instant: DateTime<Utc>) -> Timestamp {
        Timestamp { instant, offset: 0 }
    }

    /// An instant shown at `offset` seconds east of UTC.
    pub const fn with_offset(instant: DateTime<Utc>, offset: i32) -> Timestamp {
        Timestamp { instant, offset }
    }

    /// The Unix epoch, in UTC.
    pub const UNIX_EPOCH: Timestamp = Timestamp::utc(DateTime::UNIX_EPOCH);

    /// The instant.
    pub fn instant(&self) -> DateTime<Utc> {
        self.instant
    }

    /// The offset it is shown at, in seconds east of UTC.
    pub fn offset_seconds(&self) -> i32 {
        self.offset
    }

    /// Another instant shown at the same offset (Go's `Time.Add` keeps the location).
    pub fn at(&self, instant: DateTime<Utc>) -> Timestamp {
        Timestamp {
            instant,
            offset: self.offset,
        }
    }

    /// The wall-clock date and time at its offset.
    pub fn local(&self) -> NaiveDateTime {
        let utc = self.instant.naive_utc();
        if self.offset == 0 {
            return utc;
        }
        // Instants lie within years 1 to 9999 and offsets within a day or so: no overflow.
        utc.checked_add_signed(TimeDelta::seconds(i64::from(self.offset)))
            .unwrap_or(utc)
    }
}

impl Deref for Timestamp {
    type Target = DateTime<Utc>;

    fn deref(&self) -> &DateTime<Utc> {
        &self.instant
    }
}

impl From<DateTime<Utc>> for Timestamp {
    fn from(instant: DateTime<Utc>) -> Timestamp {
        Timestamp::utc(instant)
    }
}

/// Instants compare; the offsets do not (Go's `Time.Equal`).
impl PartialEq for Timestamp {
    fn eq(&self, other: &Timestamp) -> bool {
        self.instant == other.instant
    }
}

impl Eq for Timestamp {}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Timestamp) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timestamp {
    fn cmp(&self, other: &Timestamp) -> Ordering {
        self.instant.cmp(&other.instant)
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.offset == 0 {
            write!(f, "{:?}", self.instant)
        } else {
            write!(f, "{:?} (shown at {:+}s)", self.instant, self.offset)
        }
    }
}
