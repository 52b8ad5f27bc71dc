//! A CronJob's schedule as kube-apiserver parses it: github.com/robfig/cron/v3
//! `ParseStandard` (five fields, or a descriptor), whose error texts the API server shows.
//!
//! Source: robfig/cron v3 `parser.go` (`Parser.Parse`, `normalizeFields`, `getField`,
//! `getRange`, `parseIntOrName`, `mustParseInt`, `parseDescriptor`) and `spec.go` (the
//! bounds and names of each field). Not checked here: the time zone of a `TZ=`/`CRON_TZ=`
//! prefix (Go's `time.LoadLocation`) and the duration of `@every` (Go's
//! `time.ParseDuration`); such schedules are accepted.

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

/// The error `cron.ParseStandard(spec)` returns, if any.
pub(super) fn parse_error(spec: &str) -> Option<String> {
    if spec.is_empty() {
        return Some("empty spec string".into());
    }
    let mut spec = spec;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let Some(i) = spec.find(' ') else {
            return Some(format!("invalid timezone specification: {spec}"));
        };
        spec = spec[i..].trim_matches(go_space);
    }
    if spec.starts_with('@') {
        if DESCRIPTORS.contains(&spec) || spec.starts_with("@every ") {
            return None;
        }
        return Some(format!("unrecognized descriptor: {spec}"));
    }
    let fields: Vec<&str> = spec.split(go_space).filter(|f| !f.is_empty()).collect();
    if fields.len() != 5 {
        return Some(format!(
            "expected exactly 5 fields, found {}: [{}]",
            fields.len(),
            fields.join(" ")
        ));
    }
    let bounds = [MINUTES, HOURS, DOM, MONTHS, DOW];
    for (field, bounds) in fields.iter().zip(bounds.iter()) {
        for expr in field.split(',').filter(|r| !r.is_empty()) {
            if let Err(e) = range(expr, bounds) {
                return Some(e);
            }
        }
    }
    None
}

/// Go's `unicode.IsSpace` for the characters `strings.Fields` splits on.
fn go_space(c: char) -> bool {
    c.is_whitespace()
}

/// `getRange`: `number | number "-" number [ "/" number ]` or `*`/`?` with a step.
fn range(expr: &str, r: &Bounds) -> Result<(), String> {
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
            _ => return Err(format!("too many hyphens: {expr}")),
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
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < r.min {
        return Err(format!(
            "beginning of range ({start}) below minimum ({}): {expr}",
            r.min
        ));
    }
    if end > r.max {
        return Err(format!(
            "end of range ({end}) above maximum ({}): {expr}",
            r.max
        ));
    }
    if start > end {
        return Err(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    Ok(())
}

/// `parseIntOrName`: a name of the field (any case) or a number.
fn int_or_name(expr: &str, r: &Bounds) -> Result<u64, String> {
    let lower = expr.to_lowercase();
    if let Some((_, n)) = r.names.iter().find(|(name, _)| *name == lower) {
        return Ok(*n);
    }
    must_parse_int(expr)
}

/// `mustParseInt`: Go's `strconv.Atoi`, non-negative.
fn must_parse_int(expr: &str) -> Result<u64, String> {
    let num = atoi(expr).map_err(|e| format!("failed to parse int from {expr}: {e}"))?;
    if num < 0 {
        return Err(format!("negative number ({num}) not allowed: {expr}"));
    }
    Ok(num as u64)
}

/// Go's `strconv.Atoi` (base 10, an optional sign), with its error text.
fn atoi(s: &str) -> Result<i64, String> {
    let quoted = crate::kubernetes::go_quote(s);
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("strconv.Atoi: parsing {quoted}: invalid syntax"));
    }
    s.parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing {quoted}: value out of range"))
}

#[cfg(test)]
mod tests {
    use super::parse_error;

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
        ] {
            assert_eq!(parse_error(bad).as_deref(), Some(text), "{bad:?}");
        }
    }
}
