//! `kubernetes.Semver`: semantic versions parsed strictly as blang/semver v4 does, and
//! (v1) with Kubernetes' optional normalization (`v` prefix, short versions, leading zeros).

use std::any::Any;
use std::cmp::Ordering;

use super::{est_one, est_traverse_first, opaque, opaque_arg, rt_traverse_first, string_arg};
use kcel::library::CallCost;
use kcel::library::{Implementation, Library};
use kcel::{EvalError, EvalResult};
use kcel::{Opaque, Value};

/// The CEL type name.
pub const TYPE: &str = "kubernetes.Semver";

/// A prerelease identifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pre {
    Num(u64),
    Str(String),
}

/// A semantic version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Semver {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Vec<Pre>,
    pub build: Vec<String>,
}

impl Semver {
    /// SemVer precedence (build metadata ignored).
    pub fn compare(&self, o: &Semver) -> Ordering {
        let core = (self.major, self.minor, self.patch).cmp(&(o.major, o.minor, o.patch));
        if core != Ordering::Equal {
            return core;
        }
        match (self.pre.is_empty(), o.pre.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        for (a, b) in self.pre.iter().zip(&o.pre) {
            let c = match (a, b) {
                (Pre::Num(x), Pre::Num(y)) => x.cmp(y),
                (Pre::Num(_), Pre::Str(_)) => Ordering::Less,
                (Pre::Str(_), Pre::Num(_)) => Ordering::Greater,
                (Pre::Str(x), Pre::Str(y)) => x.cmp(y),
            };
            if c != Ordering::Equal {
                return c;
            }
        }
        self.pre.len().cmp(&o.pre.len())
    }
}

impl Opaque for Semver {
    fn type_name(&self) -> &str {
        TYPE
    }
    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<Semver>()
            .is_some_and(|o| self.compare(o) == Ordering::Equal)
    }
    fn equal_to(&self, other: &Value) -> Option<bool> {
        super::strict_equal_to(self, other)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_display_string(&self) -> String {
        let mut s = format!("{}.{}.{}", self.major, self.minor, self.patch);
        let pre: Vec<String> = self
            .pre
            .iter()
            .map(|p| match p {
                Pre::Num(n) => n.to_string(),
                Pre::Str(s) => s.clone(),
            })
            .collect();
        if !pre.is_empty() {
            s.push('-');
            s.push_str(&pre.join("."));
        }
        if !self.build.is_empty() {
            s.push('+');
            s.push_str(&self.build.join("."));
        }
        s
    }
}

fn only_digits(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
}

fn alphanumeric(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

fn leading_zero(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// Go's `strconv.ParseUint(s, 10, 64)` with its error text.
fn parse_uint(s: &str) -> Result<u64, EvalError> {
    if s.is_empty() || !only_digits(s) {
        return Err(EvalError::new(format!(
            "strconv.ParseUint: parsing {}: invalid syntax",
            super::go_quote(s)
        )));
    }
    s.parse().map_err(|_| {
        EvalError::new(format!(
            "strconv.ParseUint: parsing {}: value out of range",
            super::go_quote(s)
        ))
    })
}

fn number(s: &str, what: &str, cap: &str) -> Result<u64, EvalError> {
    let q = super::go_quote(s);
    if !only_digits(s) {
        return Err(EvalError::new(format!(
            "Invalid character(s) found in {what} number {q}"
        )));
    }
    if leading_zero(s) {
        return Err(EvalError::new(format!(
            "{cap} number must not contain leading zeroes {q}"
        )));
    }
    parse_uint(s)
}

/// blang/semver v4 `Parse`.
pub fn parse(s: &str) -> Result<Semver, EvalError> {
    if s.is_empty() {
        return Err(EvalError::new("Version string empty"));
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    let [major, minor, rest] = parts[..] else {
        return Err(EvalError::new("No Major.Minor.Patch elements found"));
    };
    let major = number(major, "major", "Major")?;
    let minor = number(minor, "minor", "Minor")?;
    let mut patch = rest;
    let mut build = Vec::new();
    if let Some(i) = patch.find('+') {
        build = patch[i + 1..].split('.').map(String::from).collect();
        patch = &patch[..i];
    }
    let mut pre_strs = Vec::new();
    if let Some(i) = patch.find('-') {
        pre_strs = patch[i + 1..].split('.').collect();
        patch = &patch[..i];
    }
    let patch = number(patch, "patch", "Patch")?;
    let mut pre = Vec::new();
    for p in pre_strs {
        if p.is_empty() {
            return Err(EvalError::new("Prerelease is empty"));
        }
        if only_digits(p) {
            if leading_zero(p) {
                return Err(EvalError::new(format!(
                    "Numeric PreRelease version must not contain leading zeroes {}",
                    super::go_quote(p)
                )));
            }
            pre.push(Pre::Num(parse_uint(p)?));
        } else if alphanumeric(p) {
            pre.push(Pre::Str(p.to_string()));
        } else {
            return Err(EvalError::new(format!(
                "Invalid character(s) found in prerelease {}",
                super::go_quote(p)
            )));
        }
    }
    for b in &build {
        if b.is_empty() {
            return Err(EvalError::new("Build meta data is empty"));
        }
        if !alphanumeric(b) {
            return Err(EvalError::new(format!(
                "Invalid character(s) found in build meta data {}",
                super::go_quote(b)
            )));
        }
    }
    Ok(Semver {
        major,
        minor,
        patch,
        pre,
        build,
    })
}

/// Kubernetes' `normalizeAndParse`: strip one leading `v`, strip leading zeros, pad a short
/// version with zeros.
pub fn normalize_and_parse(s: &str) -> Result<Semver, EvalError> {
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s
        .splitn(3, '.')
        .map(|p| {
            if p.len() > 1 {
                let t = p.trim_start_matches('0');
                if t.is_empty() || !t.as_bytes()[0].is_ascii_digit() {
                    format!("0{t}")
                } else {
                    t.to_string()
                }
            } else {
                p.to_string()
            }
        })
        .collect();
    if parts.len() < 3 {
        if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
            return Err(EvalError::new(
                "short version cannot contain PreRelease/Build meta data",
            ));
        }
        while parts.len() < 3 {
            parts.push("0".into());
        }
    }
    parse(&parts.join("."))
}

/// Builds the library at `version` (1 adds the normalizing overloads).
pub fn library(version: u32) -> Library {
    let mut lib = Library::new("kubernetes.Semver", version);
    lib.opaque_type(TYPE);
    {
        let f = lib
            .function(
                "semver",
                "Parses a semantic version (strict SemVer 2.0; optionally normalized first).",
            )
            .global(
                "string_to_semver",
                &["string"],
                TYPE,
                Implementation::Unary(to_semver),
            )
            .cost(CallCost::Custom(rt_traverse_first))
            .estimate(est_traverse_first);
        let f = if version >= 1 {
            f.global(
                "string_bool_to_semver",
                &["string", "bool"],
                TYPE,
                Implementation::Binary(to_semver_normalize),
            )
            .cost(CallCost::Custom(rt_traverse_first))
            .estimate(est_traverse_first)
            .examples(&["semver('v1.2', true) == semver('1.2.0')"])
        } else {
            f
        };
        f.examples(&["semver('1.2.3').major() == 1"]);
    }
    {
        let f = lib
            .function(
                "isSemver",
                "Whether a string is a semantic version `semver()` accepts.",
            )
            .global(
                "is_semver_string",
                &["string"],
                "bool",
                Implementation::Unary(is_semver),
            )
            .cost(CallCost::Custom(rt_traverse_first))
            .estimate(est_traverse_first);
        let f = if version >= 1 {
            f.global(
                "is_semver_string_bool",
                &["string", "bool"],
                "bool",
                Implementation::Binary(is_semver_normalize),
            )
            .cost(CallCost::Custom(rt_traverse_first))
            .estimate(est_traverse_first)
            .examples(&["isSemver('v1.0', true)"])
        } else {
            f
        };
        f.examples(&["isSemver('1.0.0-rc.1+build.5')", "!isSemver('v1.0.0')"]);
    }
    type Cmp = fn(&Value, &Value) -> EvalResult;
    let comparisons: [super::Row<Cmp>; 3] = [
        (
            "isGreaterThan",
            "semver_is_greater_than",
            "bool",
            "Whether the receiver has higher precedence.",
            is_greater_than,
            &["semver('1.1.0').isGreaterThan(semver('1.0.0'))"],
        ),
        (
            "isLessThan",
            "semver_is_less_than",
            "bool",
            "Whether the receiver has lower precedence.",
            is_less_than,
            &["semver('1.0.0-alpha').isLessThan(semver('1.0.0'))"],
        ),
        (
            "compareTo",
            "semver_compare_to",
            "int",
            "-1, 0 or 1 by SemVer precedence.",
            compare_to,
            &["semver('1.0.0+a').compareTo(semver('1.0.0+b')) == 0"],
        ),
    ];
    for (name, id, result, doc, f, examples) in comparisons {
        lib.function(name, doc)
            .member(id, &[TYPE, TYPE], result, Implementation::Binary(f))
            .cost(CallCost::Fixed(1))
            .estimate(est_one)
            .examples(examples);
    }
    type Part = fn(&Value) -> EvalResult;
    let parts: [(&str, &str, &str, Part, &str); 3] = [
        (
            "major",
            "semver_major",
            "The major version.",
            major,
            "semver('1.2.3').major() == 1",
        ),
        (
            "minor",
            "semver_minor",
            "The minor version.",
            minor,
            "semver('1.2.3').minor() == 2",
        ),
        (
            "patch",
            "semver_patch",
            "The patch version.",
            patch,
            "semver('1.2.3').patch() == 3",
        ),
    ];
    for (name, id, doc, f, example) in parts {
        lib.function(name, doc)
            .member(id, &[TYPE], "int", Implementation::Unary(f))
            .cost(CallCost::Fixed(1))
            .estimate(est_one)
            .examples(&[example]);
    }
    lib
}

fn sv(v: &Value) -> Result<&Semver, EvalError> {
    opaque_arg::<Semver>(v)
}

fn bool_arg(v: &Value) -> Result<bool, EvalError> {
    match v {
        Value::Bool(b) => Ok(*b),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `semver(s)`.
pub fn to_semver(s: &Value) -> EvalResult {
    Ok(opaque(parse(string_arg(s)?)?))
}

/// `semver(s, normalize)`.
pub fn to_semver_normalize(s: &Value, n: &Value) -> EvalResult {
    let s = string_arg(s)?;
    let v = if bool_arg(n)? {
        normalize_and_parse(s)?
    } else {
        parse(s)?
    };
    Ok(opaque(v))
}

/// `isSemver(s)`.
pub fn is_semver(s: &Value) -> EvalResult {
    Ok(Value::Bool(parse(string_arg(s)?).is_ok()))
}

/// `isSemver(s, normalize)`.
pub fn is_semver_normalize(s: &Value, n: &Value) -> EvalResult {
    let s = string_arg(s)?;
    let ok = if bool_arg(n)? {
        normalize_and_parse(s).is_ok()
    } else {
        parse(s).is_ok()
    };
    Ok(Value::Bool(ok))
}

fn is_greater_than(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Bool(sv(a)?.compare(sv(b)?) == Ordering::Greater))
}

fn is_less_than(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Bool(sv(a)?.compare(sv(b)?) == Ordering::Less))
}

fn compare_to(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Int(sv(a)?.compare(sv(b)?) as i64))
}

// Go converts the uint64 parts with a plain (wrapping) int64 conversion.
fn major(v: &Value) -> EvalResult {
    Ok(Value::Int(sv(v)?.major as i64))
}

fn minor(v: &Value) -> EvalResult {
    Ok(Value::Int(sv(v)?.minor as i64))
}

fn patch(v: &Value) -> EvalResult {
    Ok(Value::Int(sv(v)?.patch as i64))
}
