//! A CronJob's schedule as kube-apiserver parses it: github.com/robfig/cron/v3
//! `ParseStandard` (five fields, or a descriptor), whose error texts the API server shows.
//!
//! Source: robfig/cron v3 `parser.go` (`Parser.Parse`, `normalizeFields`, `getField`,
//! `getRange`, `parseIntOrName`, `mustParseInt`, `parseDescriptor`) and `spec.go` (the
//! bounds and names of each field). Not checked here: the time zone of a `TZ=`/`CRON_TZ=`
//! prefix (Go's `time.LoadLocation`) and the duration of `@every` (Go's
//! `time.ParseDuration`); such schedules are accepted.

use crate::kubernetes::go_quote;

/// The bounds of one field and its names.
struct Bounds {
    min: u64,
    max: u64,
    names: &'static [(&'static str, u64)],
}

const MINUTES: Bounds = Bounds {
    min: 0,
    max: 59,
    names: &[],
};
const HOURS: Bounds = Bounds {
    min: 0,
    max: 23,
    names: &[],
};
const DOM: Bounds = Bounds {
    min: 1,
    max: 31,
    names: &[],
};
const MONTHS: Bounds = Bounds {
    min: 1,
    max: 12,
    names: &[
        ("jan", 1),
        ("feb", 2),
        ("mar", 3),
        ("apr", 4),
        ("may", 5),
        ("jun", 6),
        ("jul", 7),
        ("aug", 8),
        ("sep", 9),
        ("oct", 10),
        ("nov", 11),
        ("dec", 12),
    ],
};
const DOW: Bounds = Bounds {
    min: 0,
    max: 6,
    names: &[
        ("sun", 0),
        ("mon", 1),
        ("tue", 2),
        ("wed", 3),
        ("thu", 4),
        ("fri", 5),
        ("sat", 6),
    ],
};

/// The descriptors `parseDescriptor` knows (besides `@every <duration>`).
const DESCRIPTORS: [&str; 7] = [
    "@yearly",
    "@annually",
    "@monthly",
    "@weekly",
    "@daily",
    "@midnight",
    "@hourly",
];

/// Why `cron.ParseStandard` refuses a schedule; `Display` is robfig/cron's text, which the
/// API server shows as the field error's detail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum ScheduleError {
    /// `Parse`: an empty spec.
    #[error("empty spec string")]
    Empty,
    /// `Parse`: a `TZ=`/`CRON_TZ=` prefix with nothing after it.
    #[error("invalid timezone specification: {0}")]
    TimeZone(String),
    /// `parseDescriptor`: an `@` word it does not know.
    #[error("unrecognized descriptor: {0}")]
    Descriptor(String),
    /// `normalizeFields`: not five fields (the fields found).
    #[error("expected exactly 5 fields, found {}: [{}]", .0.len(), .0.join(" "))]
    FieldCount(Vec<String>),
    /// `getRange`: `a-b-c`.
    #[error("too many hyphens: {0}")]
    Hyphens(String),
    /// `getRange`: `a/b/c`.
    #[error("too many slashes: {0}")]
    Slashes(String),
    /// `getRange`: a range starting below its field's minimum.
    #[error("beginning of range ({start}) below minimum ({min}): {expr}")]
    BelowMinimum {
        /// The range's start.
        start: u64,
        /// The field's minimum.
        min: u64,
        /// The range as written.
        expr: String,
    },
    /// `getRange`: a range ending above its field's maximum.
    #[error("end of range ({end}) above maximum ({max}): {expr}")]
    AboveMaximum {
        /// The range's end.
        end: u64,
        /// The field's maximum.
        max: u64,
        /// The range as written.
        expr: String,
    },
    /// `getRange`: a range whose start is past its end.
    #[error("beginning of range ({start}) beyond end of range ({end}): {expr}")]
    StartBeyondEnd {
        /// The range's start.
        start: u64,
        /// The range's end.
        end: u64,
        /// The range as written.
        expr: String,
    },
    /// `getRange`: a step of 0.
    #[error("step of range should be a positive number: {0}")]
    ZeroStep(String),
    /// `mustParseInt`: not a number.
    #[error("failed to parse int from {expr}: {source}")]
    Int {
        /// The text that is not a number.
        expr: String,
        /// Go's `strconv.Atoi` error.
        source: AtoiError,
    },
    /// `mustParseInt`: a negative number.
    #[error("negative number ({num}) not allowed: {expr}")]
    Negative {
        /// The number.
        num: i64,
        /// The text it was read from.
        expr: String,
    },
}

/// Go's `strconv.Atoi` error (`*strconv.NumError`) for the text it was given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum AtoiError {
    /// `strconv.ErrSyntax`.
    #[error("strconv.Atoi: parsing {}: invalid syntax", go_quote(.0))]
    Syntax(String),
    /// `strconv.ErrRange`.
    #[error("strconv.Atoi: parsing {}: value out of range", go_quote(.0))]
    Range(String),
}

/// `cron.ParseStandard(spec)`'s error, if any.
pub(super) fn parse(spec: &str) -> Result<(), ScheduleError> {
    if spec.is_empty() {
        return Err(ScheduleError::Empty);
    }
    let mut spec = spec;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let Some(i) = spec.find(' ') else {
            return Err(ScheduleError::TimeZone(spec.to_owned()));
        };
        spec = spec[i..].trim_matches(go_space);
    }
    if spec.starts_with('@') {
        if DESCRIPTORS.contains(&spec) || spec.starts_with("@every ") {
            return Ok(());
        }
        return Err(ScheduleError::Descriptor(spec.to_owned()));
    }
    let fields: Vec<&str> = spec.split(go_space).filter(|f| !f.is_empty()).collect();
    if fields.len() != 5 {
        return Err(ScheduleError::FieldCount(
            fields.iter().map(|f| (*f).to_owned()).collect(),
        ));
    }
    let bounds = [MINUTES, HOURS, DOM, MONTHS, DOW];
    for (field, bounds) in fields.iter().zip(bounds.iter()) {
        for expr in field.split(',').filter(|r| !r.is_empty()) {
            range(expr, bounds)?;
        }
    }
    Ok(())
}

/// Go's `unicode.IsSpace` for the characters `strings.Fields` splits on.
fn go_space(c: char) -> bool {
    c.is_whitespace()
}

/// `getRange`: `number | number "-" number [ "/" number ]` or `*`/`?` with a step.
fn range(expr: &str, r: &Bounds) -> Result<(), ScheduleError> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_and_high: Vec<&str> = range_and_step[0].split('-').collect();
    let single = low_and_high.len() == 1;
    let (start, mut end);
    if low_and_high[0] == "*" || low_and_high[0] == "?" {
        start = r.min;
        end = r.max;
    } else {
        start = int_or_name(low_and_high[0], r)?;
        end = match low_and_high.len() {
            1 => start,
            2 => int_or_name(low_and_high[1], r)?,
            _ => return Err(ScheduleError::Hyphens(expr.to_owned())),
        };
    }
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = must_parse_int(range_and_step[1])?;
            if single {
                end = r.max;
            }
            step
        }
        _ => return Err(ScheduleError::Slashes(expr.to_owned())),
    };
    let expr = expr.to_owned();
    if start < r.min {
        return Err(ScheduleError::BelowMinimum {
            start,
            min: r.min,
            expr,
        });
    }
    if end > r.max {
        return Err(ScheduleError::AboveMaximum {
            end,
            max: r.max,
            expr,
        });
    }
    if start > end {
        return Err(ScheduleError::StartBeyondEnd { start, end, expr });
    }
    if step == 0 {
        return Err(ScheduleError::ZeroStep(expr));
    }
    Ok(())
}

/// `parseIntOrName`: a name of the field (any case) or a number.
fn int_or_name(expr: &str, r: &Bounds) -> Result<u64, ScheduleError> {
    let lower = expr.to_lowercase();
    if let Some((_, n)) = r.names.iter().find(|(name, _)| *name == lower) {
        return Ok(*n);
    }
    must_parse_int(expr)
}

/// `mustParseInt`: Go's `strconv.Atoi`, non-negative.
fn must_parse_int(expr: &str) -> Result<u64, ScheduleError> {
    let num = atoi(expr).map_err(|source| ScheduleError::Int {
        expr: expr.to_owned(),
        source,
    })?;
    if num < 0 {
        return Err(ScheduleError::Negative {
            num,
            expr: expr.to_owned(),
        });
    }
    Ok(num as u64)
}

/// Go's `strconv.Atoi` (base 10, an optional sign).
fn atoi(s: &str) -> Result<i64, AtoiError> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AtoiError::Syntax(s.to_owned()));
    }
    s.parse::<i64>().map_err(|_| AtoiError::Range(s.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::{AtoiError, ScheduleError, parse};

    /// The text the API server shows for `spec`, if it refuses it.
    fn parse_error(spec: &str) -> Option<String> {
        parse(spec).err().map(|e| e.to_string())
    }

    // After robfig/cron v3 parser_test.go (TestParseScheduleErrors, TestStandardSpecSchedule).
    #[test]
    fn schedules_and_their_errors() {
        for good in [
            "* * * * *",
            "*/5 * * * *",
            "0 0 1 jan *",
            "5 4 * * SUN",
            "0-30/10 1,2 * * mon-fri",
            "@hourly",
            "@every 5m",
            "TZ=UTC 0 * * * *",
            "5/15 * * * *",
        ] {
            assert_eq!(parse_error(good), None, "{good}");
        }
        for (bad, text) in [
            ("", "empty spec string"),
            ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
            (
                "0 0 0 0 0 0",
                "expected exactly 5 fields, found 6: [0 0 0 0 0 0]",
            ),
            ("@weekday", "unrecognized descriptor: @weekday"),
            ("60 * * * *", "end of range (60) above maximum (59): 60"),
            ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
            (
                "5-1 * * * *",
                "beginning of range (5) beyond end of range (1): 5-1",
            ),
            ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
            ("*/1/2 * * * *", "too many slashes: */1/2"),
            (
                "*/0 * * * *",
                "step of range should be a positive number: */0",
            ),
            (
                "x * * * *",
                "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax",
            ),
            ("TZ=UTC", "invalid timezone specification: TZ=UTC"),
            ("*/-1 * * * *", "negative number (-1) not allowed: -1"),
            (
                "99999999999999999999 * * * *",
                "failed to parse int from 99999999999999999999: strconv.Atoi: parsing \"99999999999999999999\": value out of range",
            ),
        ] {
            assert_eq!(parse_error(bad).as_deref(), Some(text), "{bad:?}");
        }
    }

    /// Callers tell the refusals apart by kind, not by text.
    #[test]
    fn refusals_are_typed() {
        assert_eq!(parse(""), Err(ScheduleError::Empty));
        assert_eq!(
            parse("1-2-3 * * * *"),
            Err(ScheduleError::Hyphens("1-2-3".into()))
        );
        assert_eq!(
            parse("* x * * *"),
            Err(ScheduleError::Int {
                expr: "x".into(),
                source: AtoiError::Syntax("x".into()),
            })
        );
        assert_eq!(
            parse("* * * 13 *"),
            Err(ScheduleError::AboveMaximum {
                end: 13,
                max: 12,
                expr: "13".into(),
            })
        );
    }
}
