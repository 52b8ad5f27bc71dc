//! IANA time zones by name: a zone's offset from UTC at an instant, for the timestamp
//! accessors' zone argument (`t.getHours('America/Los_Angeles')`).
//!
//! With the feature `bundled-time-zones` (on by default) the data is chrono-tz's, compiled
//! into the program. Without it — the browser module, which loads the data only when an
//! expression first names a zone — a [`ZoneTable`] must be [`install`]ed; until then a
//! lookup fails with [`NOT_LOADED`]. The table holds the same data as chrono-tz, so both
//! give the same answers (the browser module's tests compare them at every transition).
//!
//! # The table's binary form
//!
//! Integers are LEB128 varints (`u`: unsigned; `s`: zigzag-signed):
//!
//! ```text
//! "KCELTZ1\n"  u(len) version-bytes            (the IANA release, e.g. "2025b")
//! u(timelines) then per timeline:
//!     s(first offset)  u(transitions)  per transition: u(seconds since the previous
//!     transition; the first: s(UTC seconds since 1970)) s(offset from UTC after it)
//! u(zones) then per zone: u(len) name-bytes u(timeline index)
//! ```
//!
//! Offsets are the total offset from UTC in seconds (daylight saving included); a
//! transition applies from its instant on.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::EvalError;

/// The message of a lookup made before any [`ZoneTable`] is installed (only without the
/// `bundled-time-zones` feature).
pub const NOT_LOADED: &str = "time zone data not loaded";

/// One zone's history: the offset before the first transition, then the transitions.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Timeline {
    first: i32,
    /// UTC seconds since 1970 at which each transition applies, ascending.
    at: Vec<i64>,
    /// The offset from UTC from each transition on.
    offsets: Vec<i32>,
}

impl Timeline {
    fn offset_at(&self, utc_secs: i64) -> i32 {
        match self.at.partition_point(|&at| at <= utc_secs) {
            0 => self.first,
            n => self.offsets[n - 1],
        }
    }
}

/// The IANA time-zone database in a compact form (see the module docs), read with
/// [`ZoneTable::decode`].
#[derive(Debug, Clone)]
pub struct ZoneTable {
    version: String,
    timelines: Vec<Timeline>,
    /// Zone name → timeline index, sorted by name.
    zones: Vec<(Box<str>, usize)>,
}

impl ZoneTable {
    /// Reads a table in its binary form; a clear error for anything malformed.
    pub fn decode(bytes: &[u8]) -> Result<ZoneTable, ZoneTableError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(8)? != b"KCELTZ1\n" {
            return Err(ZoneTableError::BadMagic);
        }
        let version = r.text()?;
        let count = r.count()?;
        let mut timelines = Vec::with_capacity(count);
        for _ in 0..count {
            let first = r.offset()?;
            let n = r.count()?;
            let (mut at, mut offsets) = (Vec::with_capacity(n), Vec::with_capacity(n));
            for i in 0..n {
                let t = if i == 0 {
                    r.signed()?
                } else {
                    let step = i64::try_from(r.unsigned()?).map_err(|_| r.error("step"))?;
                    at.last()
                        .and_then(|prev: &i64| prev.checked_add(step))
                        .ok_or_else(|| r.error("transition time"))?
                };
                at.push(t);
                offsets.push(r.offset()?);
            }
            timelines.push(Timeline { first, at, offsets });
        }
        let count = r.count()?;
        let mut zones = Vec::with_capacity(count);
        for _ in 0..count {
            let name = r.text()?.into_boxed_str();
            let index = usize::try_from(r.unsigned()?).unwrap_or(usize::MAX);
            if index >= timelines.len() {
                return Err(r.error("timeline index"));
            }
            zones.push((name, index));
        }
        if r.pos != bytes.len() {
            return Err(r.error("trailing bytes"));
        }
        zones.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(ZoneTable {
            version,
            timelines,
            zones,
        })
    }

    /// The IANA release the data comes from.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The zone names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.zones.iter().map(|(name, _)| &**name)
    }

    /// A zone's history: the offset before its first transition, then each transition's
    /// instant (UTC seconds) and the offset from it on; `None` for a name the table lacks.
    pub fn transitions(&self, zone: &str) -> Option<(i32, Vec<(i64, i32)>)> {
        let t = &self.timelines[self.index(zone)?];
        Some((
            t.first,
            t.at.iter()
                .copied()
                .zip(t.offsets.iter().copied())
                .collect(),
        ))
    }

    fn index(&self, zone: &str) -> Option<usize> {
        let i = self
            .zones
            .binary_search_by(|(name, _)| (**name).cmp(zone))
            .ok()?;
        Some(self.zones[i].1)
    }

    /// The total offset from UTC, in seconds, of `zone` at `utc_secs`; `None` for a name
    /// the table lacks.
    pub fn offset_at(&self, zone: &str, utc_secs: i64) -> Option<i32> {
        Some(self.timelines[self.index(zone)?].offset_at(utc_secs))
    }
}

static INSTALLED: OnceLock<ZoneTable> = OnceLock::new();

/// Set when a lookup failed for want of data.
static WANTED: AtomicBool = AtomicBool::new(false);

/// Installs the table every later lookup reads (once per process); false when one was
/// already installed (the first stays).
pub fn install(table: ZoneTable) -> bool {
    INSTALLED.set(table).is_ok()
}

/// Whether a lookup has failed with [`NOT_LOADED`] since the process started — also one
/// whose error the expression absorbed (`true || t.getHours('Europe/Paris') > 1`): the
/// browser module then loads the table and evaluates again, so that every answer is the
/// one the data gives.
pub fn wanted() -> bool {
    WANTED.load(Ordering::Relaxed)
}

/// Whether lookups can answer: the data is compiled in or a table is installed.
pub fn available() -> bool {
    cfg!(feature = "bundled-time-zones") || INSTALLED.get().is_some()
}

/// The total offset from UTC, in seconds, of the IANA zone `zone` at `utc_secs`: from the
/// installed table if there is one, else from the compiled-in data (feature
/// `bundled-time-zones`). Errors: `unknown time zone NAME` (cel-go's text), or
/// [`NOT_LOADED`] when there is no data at all.
pub fn offset_at(zone: &str, utc_secs: i64) -> Result<i32, EvalError> {
    let unknown = || EvalError::new(format!("unknown time zone {zone}"));
    if let Some(table) = INSTALLED.get() {
        return table.offset_at(zone, utc_secs).ok_or_else(unknown);
    }
    bundled_offset_at(zone, utc_secs).unwrap_or_else(|| {
        WANTED.store(true, Ordering::Relaxed);
        Err(EvalError::new(NOT_LOADED))
    })
}

/// chrono-tz's answer; `None` when it is not compiled in.
#[cfg(feature = "bundled-time-zones")]
fn bundled_offset_at(zone: &str, utc_secs: i64) -> Option<Result<i32, EvalError>> {
    use chrono::{Offset, TimeZone};
    let Ok(tz) = zone.parse::<chrono_tz::Tz>() else {
        return Some(Err(EvalError::new(format!("unknown time zone {zone}"))));
    };
    let utc = chrono::DateTime::from_timestamp(utc_secs, 0)?.naive_utc();
    Some(Ok(tz
        .offset_from_utc_datetime(&utc)
        .fix()
        .local_minus_utc()))
}

#[cfg(not(feature = "bundled-time-zones"))]
fn bundled_offset_at(_: &str, _: i64) -> Option<Result<i32, EvalError>> {
    None
}

/// Why bytes are not a time-zone table ([`ZoneTable::decode`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ZoneTableError {
    /// The bytes do not start as a table does.
    #[error("not a kcel time-zone table (bad magic)")]
    BadMagic,
    /// A part of the table is malformed or truncated.
    #[error("time-zone table: bad {part} at byte {at}")]
    Malformed {
        /// What was being read (`count`, `offset`, `length (truncated)`, ...).
        part: &'static str,
        /// The byte position reached.
        at: usize,
    },
}

/// A cursor over the binary form.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn error(&self, part: &'static str) -> ZoneTableError {
        ZoneTableError::Malformed { part, at: self.pos }
    }

    fn take(&mut self, n: usize) -> Result<&[u8], ZoneTableError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| self.error("length (truncated)"))?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn unsigned(&mut self) -> Result<u64, ZoneTableError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.take(1)?.first().unwrap_or(&0);
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.error("varint"))
    }

    fn signed(&mut self) -> Result<i64, ZoneTableError> {
        let u = self.unsigned()?;
        Ok((u >> 1) as i64 ^ -((u & 1) as i64))
    }

    fn offset(&mut self) -> Result<i32, ZoneTableError> {
        let s = self.signed()?;
        // No zone is ever a day or more away from UTC.
        i32::try_from(s)
            .ok()
            .filter(|o| o.unsigned_abs() < 86_400)
            .ok_or_else(|| self.error("offset"))
    }

    fn count(&mut self) -> Result<usize, ZoneTableError> {
        let n = self.unsigned()?;
        // Each counted item takes at least one byte.
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.bytes.len() - self.pos)
            .ok_or_else(|| self.error("count"))
    }

    fn text(&mut self) -> Result<String, ZoneTableError> {
        let n = self.count()?;
        let bytes = self.take(n)?.to_vec();
        String::from_utf8(bytes).map_err(|_| self.error("text (not UTF-8)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(out: &mut Vec<u8>, mut v: u64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }

    fn zigzag(out: &mut Vec<u8>, v: i64) {
        varint(out, ((v << 1) ^ (v >> 63)) as u64);
    }

    /// A table with one zone "X/Y": +1h, then +2h from t=100, +1h from t=300.
    fn sample() -> Vec<u8> {
        let mut b = b"KCELTZ1\n".to_vec();
        varint(&mut b, 5);
        b.extend_from_slice(b"2099z");
        varint(&mut b, 1);
        zigzag(&mut b, 3600);
        varint(&mut b, 2);
        zigzag(&mut b, 100);
        zigzag(&mut b, 7200);
        varint(&mut b, 200);
        zigzag(&mut b, 3600);
        varint(&mut b, 1);
        varint(&mut b, 3);
        b.extend_from_slice(b"X/Y");
        varint(&mut b, 0);
        b
    }

    #[test]
    fn reads_and_looks_up_a_table() {
        let table = ZoneTable::decode(&sample()).unwrap();
        assert_eq!(table.version(), "2099z");
        assert_eq!(table.names().collect::<Vec<_>>(), ["X/Y"]);
        let at = |t| table.offset_at("X/Y", t);
        assert_eq!(
            [at(-1_000_000), at(99), at(100), at(299), at(300)],
            [3600, 3600, 7200, 7200, 3600].map(Some)
        );
        assert_eq!(table.offset_at("X/Z", 0), None);
    }

    #[cfg(feature = "bundled-time-zones")]
    #[test]
    fn bundled_data_answers_without_a_table() {
        // 2024-07-01T18:30:00Z: daylight saving time in Los Angeles (UTC-7), none in Kolkata.
        let t = 1_719_858_600;
        assert_eq!(offset_at("America/Los_Angeles", t).unwrap(), -7 * 3600);
        assert_eq!(offset_at("Asia/Kolkata", t).unwrap(), 19_800);
        let e = offset_at("Mars/Olympus", t).unwrap_err();
        assert!(
            format!("{e:?}").contains("unknown time zone Mars/Olympus"),
            "{e:?}"
        );
        assert!(available() && !wanted());
    }

    #[test]
    fn malformed_tables_are_errors_not_panics() {
        let good = sample();
        for len in 0..good.len() {
            assert!(ZoneTable::decode(&good[..len]).is_err(), "prefix {len}");
        }
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(ZoneTable::decode(&trailing).is_err());
        let mut bad_magic = good.clone();
        bad_magic[0] = b'X';
        assert!(ZoneTable::decode(&bad_magic).is_err());
        // A count far beyond the input.
        let mut huge = b"KCELTZ1\n".to_vec();
        varint(&mut huge, u64::MAX >> 1);
        assert!(ZoneTable::decode(&huge).is_err());
    }
}
