//! `kubernetes.quantity`: resource quantities as apimachinery's `resource.Quantity` parses
//! and computes them: exact decimals, small values as a scaled int64 (as upstream), larger
//! ones as an arbitrary-precision decimal rounded up to nano units.

use std::any::Any;
use std::cmp::Ordering;

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

use serde_json::Value as Json;

use super::crd::go_json_number;
use super::{est_one, est_traverse_first, opaque, opaque_arg, rt_traverse_first, string_arg};
use kcel::library::CallCost;
use kcel::library::{Implementation, Library, overloads};
use kcel::{EvalError, EvalResult};
use kcel::{Opaque, Value};

/// The CEL type name.
pub const TYPE: &str = "kubernetes.Quantity";

const FORMAT_ERROR: &str = "quantities must match the regular expression \
     '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const NUMERIC_ERROR: &str = "unable to parse numeric part of quantity";
const SUFFIX_ERROR: &str = "unable to parse quantity's suffix";
/// Decimal exponent differences beyond which arithmetic refuses to materialize digits.
const MAX_SHIFT: u64 = 10_000;

/// An exact decimal `unscaled × 10^exp`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dec {
    pub unscaled: BigInt,
    pub exp: i64,
}

impl Dec {
    fn digits(&self) -> i64 {
        self.unscaled.abs().to_string().len() as i64
    }

    /// Exact comparison, without materializing huge exponent differences.
    fn compare(&self, o: &Dec) -> Ordering {
        let (sa, sb) = (self.unscaled.sign(), o.unscaled.sign());
        if sa != sb {
            return sa.cmp(&sb);
        }
        if self.unscaled.is_zero() {
            return Ordering::Equal;
        }
        let magnitude = (self.digits() + self.exp).cmp(&(o.digits() + o.exp));
        let abs = if magnitude != Ordering::Equal {
            magnitude
        } else {
            // Same order of magnitude: the exponent difference is bounded by the digit counts.
            let e = self.exp.min(o.exp);
            let a = self.unscaled.abs() * pow10((self.exp - e) as u64);
            let b = o.unscaled.abs() * pow10((o.exp - e) as u64);
            a.cmp(&b)
        };
        if sa == num_bigint::Sign::Minus {
            abs.reverse()
        } else {
            abs
        }
    }

    fn add(&self, o: &Dec) -> Result<Dec, EvalError> {
        if o.unscaled.is_zero() {
            return Ok(self.clone());
        }
        if self.unscaled.is_zero() {
            return Ok(o.clone());
        }
        let e = self.exp.min(o.exp);
        let (da, db) = ((self.exp - e) as u64, (o.exp - e) as u64);
        if da.max(db) > MAX_SHIFT {
            return Err(EvalError::new("quantity arithmetic out of range"));
        }
        Ok(Dec {
            unscaled: &self.unscaled * pow10(da) + &o.unscaled * pow10(db),
            exp: e,
        })
    }
}

fn pow10(n: u64) -> BigInt {
    num_traits::pow(BigInt::from(10), n as usize)
}

/// apimachinery's two representations of an amount: a scaled int64 (`value × 10^scale`) or
/// a decimal.
#[derive(Clone, Debug)]
pub enum Amount {
    Int { value: i64, scale: i64 },
    Dec(Dec),
}

/// apimachinery's `Format`: how `Quantity.String()` writes a quantity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `12e6`
    DecimalExponent,
    /// `12Mi`
    BinarySI,
    /// `12M`
    DecimalSI,
}

/// apimachinery's `resource.Quantity`: an amount, its format, and the text it was parsed
/// from when `ParseQuantity` keeps that text as the canonical form.
#[derive(Clone, Debug)]
pub struct Quantity {
    pub amount: Amount,
    pub format: Format,
    text: Option<Box<str>>,
}

impl Quantity {
    /// A quantity without a kept text.
    pub fn new(amount: Amount, format: Format) -> Quantity {
        Quantity {
            amount,
            format,
            text: None,
        }
    }

    /// The exact value.
    pub fn to_dec(&self) -> Dec {
        match &self.amount {
            Amount::Int { value, scale } => Dec {
                unscaled: BigInt::from(*value),
                exp: *scale,
            },
            Amount::Dec(d) => d.clone(),
        }
    }

    /// Exact numeric comparison.
    pub fn compare(&self, o: &Quantity) -> Ordering {
        self.to_dec().compare(&o.to_dec())
    }

    /// -1, 0 or 1.
    pub fn sign(&self) -> i64 {
        match &self.amount {
            Amount::Int { value, .. } => value.signum(),
            Amount::Dec(d) => match d.unscaled.sign() {
                num_bigint::Sign::Minus => -1,
                num_bigint::Sign::NoSign => 0,
                num_bigint::Sign::Plus => 1,
            },
        }
    }

    /// apimachinery's `AsInt64`: only a scaled int64 with a non-negative scale converts.
    pub fn as_i64(&self) -> Option<i64> {
        match self.amount {
            Amount::Int { value, scale: 0 } => Some(value),
            Amount::Int { value, scale } if scale > 0 => scale_i64(value, scale),
            _ => None,
        }
    }

    /// apimachinery's `AsApproximateFloat64`: `base × 10^exponent`.
    pub fn as_f64(&self) -> f64 {
        let (base, exp) = match &self.amount {
            Amount::Int { value, scale } => (*value as f64, *scale),
            Amount::Dec(d) => (d.unscaled.to_f64().unwrap_or(f64::NAN), d.exp),
        };
        if exp == 0 {
            base
        } else {
            base * pow10_f64(exp)
        }
    }

    /// apimachinery's `Add`: int64 arithmetic when it fits, else exact decimals; a zero
    /// receiver takes the argument's format.
    pub fn add(&self, o: &Quantity) -> Result<Quantity, EvalError> {
        let format = self.result_format(o);
        if let (
            Amount::Int {
                value: a,
                scale: sa,
            },
            Amount::Int {
                value: b,
                scale: sb,
            },
        ) = (&self.amount, &o.amount)
        {
            if let Some(amount) = int_add((*a, *sa), (*b, *sb)) {
                return Ok(Quantity::new(amount, format));
            }
        }
        let sum = self.to_dec().add(&o.to_dec())?;
        Ok(Quantity::new(Amount::Dec(sum), format))
    }

    /// apimachinery's `Sub`: int64 arithmetic (`int64Amount.Sub` adds the negated value,
    /// which wraps for the most negative int64, as in Go) when it fits, else exact decimals.
    pub fn sub(&self, o: &Quantity) -> Result<Quantity, EvalError> {
        let format = self.result_format(o);
        if let (
            Amount::Int {
                value: a,
                scale: sa,
            },
            Amount::Int {
                value: b,
                scale: sb,
            },
        ) = (&self.amount, &o.amount)
        {
            if let Some(amount) = int_add((*a, *sa), (b.wrapping_neg(), *sb)) {
                return Ok(Quantity::new(amount, format));
            }
        }
        let mut neg = o.to_dec();
        neg.unscaled = -neg.unscaled;
        let difference = self.to_dec().add(&neg)?;
        Ok(Quantity::new(Amount::Dec(difference), format))
    }

    /// The format of `self + o` or `self - o`: a zero receiver takes the argument's.
    fn result_format(&self, o: &Quantity) -> Format {
        if self.sign() == 0 {
            o.format
        } else {
            self.format
        }
    }

    /// apimachinery's `Quantity.String()`: the text `ParseQuantity` kept, else the canonical
    /// form (`CanonicalizeBytes`): `0` for zero; in BinarySI, a multiple of a power of 1024
    /// with its suffix (`Ki` ... `Ei`), unless the value is within ±1024 or not an integer
    /// (then DecimalSI); in DecimalSI and DecimalExponent, the mantissa with the exponent
    /// brought down to a multiple of 3 (`n` ... `E`, or `e<exp>`). An exponent without a
    /// suffix of its format gets no suffix at all, as upstream's suffix lookup gives none.
    pub fn canonical_string(&self) -> String {
        if let Some(text) = &self.text {
            return text.to_string();
        }
        let d = self.to_dec();
        if d.unscaled.is_zero() {
            return "0".to_string();
        }
        let mut format = self.format;
        if format == Format::BinarySI {
            let within = d.compare(&Dec {
                unscaled: BigInt::from(1024),
                exp: 0,
            }) == Ordering::Less
                && d.compare(&Dec {
                    unscaled: BigInt::from(-1024),
                    exp: 0,
                }) == Ordering::Greater;
            if within || integer_value(&d).is_none() {
                format = Format::DecimalSI;
            }
        }
        if format == Format::BinarySI {
            let mut amount = integer_value(&d).unwrap_or_default();
            let mut times = 0;
            let k = BigInt::from(1024);
            while !amount.is_zero() && (&amount % &k).is_zero() {
                amount /= &k;
                times += 1;
            }
            let suffix = match times {
                1 => "Ki",
                2 => "Mi",
                3 => "Gi",
                4 => "Ti",
                5 => "Pi",
                6 => "Ei",
                _ => "",
            };
            return format!("{amount}{suffix}");
        }
        let mut amount = d.unscaled;
        let mut exponent = d.exp;
        let ten = BigInt::from(10);
        while (&amount % &ten).is_zero() {
            amount /= &ten;
            exponent += 1;
        }
        while exponent % 3 != 0 {
            amount *= &ten;
            exponent -= 1;
        }
        let suffix = if format == Format::DecimalExponent {
            if exponent == 0 {
                String::new()
            } else {
                format!("e{exponent}")
            }
        } else {
            match exponent {
                -9 => "n",
                -6 => "u",
                -3 => "m",
                3 => "k",
                6 => "M",
                9 => "G",
                12 => "T",
                15 => "P",
                18 => "E",
                _ => "",
            }
            .to_string()
        };
        format!("{amount}{suffix}")
    }
}

/// The value as an integer, if it is one.
fn integer_value(d: &Dec) -> Option<BigInt> {
    if d.exp >= 0 {
        return Some(&d.unscaled * pow10(d.exp as u64));
    }
    let div = pow10(d.exp.unsigned_abs());
    let (q, r) = num_integer::Integer::div_rem(&d.unscaled, &div);
    r.is_zero().then_some(q)
}

fn pow10_f64(exp: i64) -> f64 {
    if exp > 308 {
        return f64::INFINITY;
    }
    if exp < -323 {
        return 0.0;
    }
    format!("1e{exp}").parse().unwrap_or(f64::NAN)
}

/// `value × 10^scale` if it fits in an int64.
fn scale_i64(value: i64, scale: i64) -> Option<i64> {
    if value == 0 {
        return Some(0);
    }
    if scale > 19 {
        return None;
    }
    let mut v = value;
    for _ in 0..scale {
        v = v.checked_mul(10)?;
    }
    Some(v)
}

/// apimachinery's `int64Amount.Add`.
fn int_add((a, sa): (i64, i64), (b, sb): (i64, i64)) -> Option<Amount> {
    let q = |value, scale| Some(Amount::Int { value, scale });
    if b == 0 {
        return q(a, sa);
    }
    if a == 0 {
        return q(b, sb);
    }
    match sa.cmp(&sb) {
        Ordering::Equal => q(a.checked_add(b)?, sa),
        Ordering::Greater => q(scale_i64(a, sa - sb)?.checked_add(b)?, sb),
        Ordering::Less => q(a.checked_add(scale_i64(b, sb - sa)?)?, sa),
    }
}

impl Opaque for Quantity {
    fn type_name(&self) -> &str {
        TYPE
    }
    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<Quantity>()
            .is_some_and(|o| self.compare(o) == Ordering::Equal)
    }
    fn equal_to(&self, other: &Value) -> Option<bool> {
        super::strict_equal_to(self, other)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    /// `Quantity.String()`, as Kubernetes' CEL quantity converts to a string
    /// (`ConvertToNative`).
    fn to_display_string(&self) -> String {
        self.canonical_string()
    }
}

/// The parts of a quantity string (apimachinery's `parseQuantityString`).
struct Parts<'a> {
    positive: bool,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

fn split(s: &str) -> Result<Parts<'_>, EvalError> {
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    let mut positive = true;
    match b.first() {
        Some(b'-') => {
            positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    let zero = |positive| Parts {
        positive,
        num: "0",
        denom: "",
        suffix: "",
    };
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Ok(zero(positive));
    }
    let start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let mut num = &s[start..pos];
    if num.is_empty() {
        num = "0";
    }
    let mut denom = "";
    if pos < end && b[pos] == b'.' {
        pos += 1;
        let ds = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[ds..pos];
    }
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return Err(EvalError::new(FORMAT_ERROR));
    }
    Ok(Parts {
        positive,
        num,
        denom,
        suffix: &s[suffix_start..],
    })
}

/// The base (10 or 2), exponent and format of a suffix.
fn interpret(suffix: &str) -> Option<(u32, i64, Format)> {
    let dec = |e| Some((10, e, Format::DecimalSI));
    match suffix {
        "" => dec(0),
        "n" => dec(-9),
        "u" => dec(-6),
        "m" => dec(-3),
        "k" => dec(3),
        "M" => dec(6),
        "G" => dec(9),
        "T" => dec(12),
        "P" => dec(15),
        "E" => dec(18),
        "Ki" => Some((2, 10, Format::BinarySI)),
        "Mi" => Some((2, 20, Format::BinarySI)),
        "Gi" => Some((2, 30, Format::BinarySI)),
        "Ti" => Some((2, 40, Format::BinarySI)),
        "Pi" => Some((2, 50, Format::BinarySI)),
        "Ei" => Some((2, 60, Format::BinarySI)),
        s if s.len() > 1 && (s.starts_with('e') || s.starts_with('E')) => {
            // Go parses a 64-bit integer and keeps its low 32 bits.
            let e: i64 = s[1..].parse().ok()?;
            Some((10, i64::from(e as i32), Format::DecimalExponent))
        }
        _ => None,
    }
}

/// apimachinery's `ParseQuantity`.
pub fn parse_quantity(s: &str) -> Result<Quantity, EvalError> {
    if s.is_empty() {
        return Err(EvalError::new(FORMAT_ERROR));
    }
    let p = split(s)?;
    let (base, exponent, mut format) =
        interpret(p.suffix).ok_or_else(|| EvalError::new(SUFFIX_ERROR))?;
    let binary = format == Format::BinarySI;
    let digits = (p.num.len() + p.denom.len()) as i64;
    let (mut scale, mantissa, precision) = if !binary {
        (exponent, 1i64, 18 - digits)
    } else if exponent >= 0 && p.denom.is_empty() {
        let precision = 15 - p.num.len() as i64 - (exponent as f32 * 3.0 / 10.0) as i64 - 1;
        (0, 1i64 << exponent, precision)
    } else {
        (0, 1, -1)
    };
    if precision >= 0 {
        scale -= p.denom.len() as i64;
        if scale >= -9 {
            let shifted = format!("{}{}", p.num, p.denom);
            let value: i64 = shifted.parse().map_err(|_| EvalError::new(NUMERIC_ERROR))?;
            if let Some(r) = value.checked_mul(mantissa) {
                let amount = Amount::Int {
                    value: if p.positive { r } else { -r },
                    scale,
                };
                // Upstream keeps the text itself as the canonical form when it looks
                // canonical (a test of the digits, not of the whole text: `+1k`, `01Ki`
                // and `1.500k` are kept as written).
                let kept = if binary {
                    exponent % 10 == 0 && value & 0x07 != 0
                } else {
                    scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0')
                } || s == "0";
                return Ok(Quantity {
                    amount,
                    format,
                    text: kept.then(|| s.into()),
                });
            }
        }
    }
    // Slow path: an exact decimal, rounded up to nano units, binary values capped at 2^63-1.
    let unscaled: BigInt = format!("{}{}", p.num, p.denom)
        .parse()
        .map_err(|_| EvalError::new(NUMERIC_ERROR))?;
    let mut d = Dec {
        unscaled,
        exp: -(p.denom.len() as i64),
    };
    if base == 10 {
        d.exp += exponent;
    } else {
        d.unscaled <<= exponent as usize;
    }
    if d.exp < -9 && !d.unscaled.is_zero() {
        let shift = (-9 - d.exp) as u64;
        d.unscaled = if shift > d.digits() as u64 + 1 {
            BigInt::from(1)
        } else {
            let div = pow10(shift);
            let (q, r) = num_integer::Integer::div_rem(&d.unscaled, &div);
            if r.is_zero() { q } else { q + 1 }
        };
        d.exp = -9;
    }
    if binary {
        let max = Dec {
            unscaled: BigInt::from(i64::MAX),
            exp: 0,
        };
        if d.compare(&max) == Ordering::Greater {
            d = max;
        }
        // Binary values between 0 and 1 are DecimalSI (upstream: "this avoids rounding").
        if !d.unscaled.is_zero()
            && d.compare(&Dec {
                unscaled: BigInt::from(1),
                exp: 0,
            }) == Ordering::Less
        {
            format = Format::DecimalSI;
        }
    }
    if !p.positive {
        d.unscaled = -d.unscaled;
    }
    Ok(Quantity::new(Amount::Dec(d), format))
}

/// apimachinery's `Quantity.UnmarshalJSON` of a JSON value: `null` is zero; else the value's
/// JSON text without the quotes of a string, trimmed as Go's `strings.TrimSpace` trims it,
/// read by [`parse_quantity`]. A number's text as the client wrote it is not kept: it is
/// taken in encoding/json's form ([`go_json_number`]), which kubectl sends (`1e16` is read
/// as `10000000000000000`).
/// Go reads the bytes between a string's quotes without unescaping them: a string holding a
/// character JSON escapes (a control character, `"`, `\`) keeps a backslash there, which no
/// quantity has, so its escaped form is what is read (`"1\n"` is refused, not trimmed).
pub fn from_go_json(value: &Json) -> Result<Quantity, EvalError> {
    let text = match value {
        Json::Null => {
            let zero = Amount::Int { value: 0, scale: 0 };
            return Ok(Quantity::new(zero, Format::DecimalSI));
        }
        Json::Number(n) => go_json_number(n),
        other => other.to_string(),
    };
    let unquoted = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(&text);
    parse_quantity(unquoted.trim())
}

/// Builds the library.
pub fn library() -> Library {
    let mut lib = Library::new("kubernetes.quantity", 0);
    lib.opaque_type(TYPE);
    overloads!(lib.function(
        "quantity",
        "Parses a Kubernetes resource quantity such as '1.5Gi' or '200m'.",
    );
        global "string_to_quantity" ("string") -> TYPE
            => Implementation::Unary(to_quantity),
            cost: CallCost::Custom(rt_traverse_first),
            estimate: est_traverse_first;
    )
    .examples(&[
        "quantity('200M') == quantity('0.2G')",
        "quantity('1Ki').asInteger() == 1024",
    ]);
    overloads!(lib.function("isQuantity", "Whether a string is a quantity `quantity()` accepts.");
        global "is_quantity_string" ("string") -> "bool"
            => Implementation::Unary(is_quantity),
            cost: CallCost::Custom(rt_traverse_first),
            estimate: est_traverse_first;
    )
    .examples(&["isQuantity('1.3G')", "!isQuantity('1K')"]);
    overloads!(lib.function("sign", "The sign of a quantity: -1, 0 or 1 (a global function only).");
        global "quantity_sign" (TYPE) -> "int"
            => Implementation::Unary(sign), cost: CallCost::Fixed(1), estimate: est_one;
    )
    .examples(&["sign(quantity('-1m')) == -1", "sign(quantity('0')) == 0"]);
    type Cmp = fn(&Value, &Value) -> EvalResult;
    let comparisons: [super::Row<Cmp>; 3] = [
        (
            "isGreaterThan",
            "quantity_is_greater_than",
            "bool",
            "Whether the receiver is numerically greater than the argument.",
            is_greater_than,
            &["quantity('1Gi').isGreaterThan(quantity('1G'))"],
        ),
        (
            "isLessThan",
            "quantity_is_less_than",
            "bool",
            "Whether the receiver is numerically less than the argument.",
            is_less_than,
            &["quantity('50M').isLessThan(quantity('50Mi'))"],
        ),
        (
            "compareTo",
            "quantity_compare_to",
            "int",
            "-1, 0 or 1 as the receiver is less than, equal to or greater than the argument.",
            compare_to,
            &["quantity('200M').compareTo(quantity('0.2G')) == 0"],
        ),
    ];
    for (name, id, result, doc, f, examples) in comparisons {
        lib.function(name, doc)
            .member(id, &[TYPE, TYPE], result, Implementation::Binary(f))
            .cost(CallCost::Fixed(1))
            .estimate(est_one)
            .examples(examples);
    }
    overloads!(lib.function(
        "asApproximateFloat",
        "The quantity as the nearest double (±Inf on overflow).",
    );
        member "quantity_get_float" (TYPE) -> "double"
            => Implementation::Unary(as_float), cost: CallCost::Fixed(1), estimate: est_one;
    )
    .examples(&["quantity('50.703k').asApproximateFloat() == 50703.0"]);
    overloads!(lib.function(
        "asInteger",
        "The quantity as an int; an error if it is not an exact int64.",
    );
        member "quantity_get_int" (TYPE) -> "int"
            => Implementation::Unary(as_integer), cost: CallCost::Fixed(1), estimate: est_one;
    )
    .examples(&["quantity('50k').asInteger() == 50000"]);
    overloads!(lib.function("isInteger", "Whether `asInteger` would succeed.");
        member "quantity_is_integer" (TYPE) -> "bool"
            => Implementation::Unary(is_integer), cost: CallCost::Fixed(1), estimate: est_one;
    )
    .examples(&["quantity('50').isInteger()", "!quantity('1.5').isInteger()"]);
    overloads!(lib.function("add", "The exact sum of two quantities, or of a quantity and an int.");
        member "quantity_add" (TYPE, TYPE) -> TYPE
            => Implementation::Binary(add), cost: CallCost::Fixed(1), estimate: est_one;
        member "quantity_add_int" (TYPE, "int") -> TYPE
            => Implementation::Binary(add), cost: CallCost::Fixed(1), estimate: est_one;
    )
    .examples(&[
        "quantity('50k').add(quantity('20')) == quantity('50.02k')",
        "quantity('1').add(2) == quantity('3')",
    ]);
    overloads!(lib.function(
        "sub",
        "The exact difference of two quantities, or of a quantity and an int.",
    );
        member "quantity_sub" (TYPE, TYPE) -> TYPE
            => Implementation::Binary(sub), cost: CallCost::Fixed(1), estimate: est_one;
        member "quantity_sub_int" (TYPE, "int") -> TYPE
            => Implementation::Binary(sub), cost: CallCost::Fixed(1), estimate: est_one;
    )
    .examples(&["quantity('50k').sub(20) == quantity('49980')"]);
    lib
}

fn q(v: &Value) -> Result<&Quantity, EvalError> {
    opaque_arg::<Quantity>(v)
}

/// A quantity or an int operand (as `NewQuantity(i, DecimalExponent)`).
fn operand(v: &Value) -> Result<Quantity, EvalError> {
    match v {
        Value::Int(i) => Ok(Quantity::new(
            Amount::Int {
                value: *i,
                scale: 0,
            },
            Format::DecimalExponent,
        )),
        other => Ok(q(other)?.clone()),
    }
}

/// `quantity(s)`.
pub fn to_quantity(s: &Value) -> EvalResult {
    Ok(opaque(parse_quantity(string_arg(s)?)?))
}

/// `isQuantity(s)`.
pub fn is_quantity(s: &Value) -> EvalResult {
    Ok(Value::Bool(parse_quantity(string_arg(s)?).is_ok()))
}

/// `sign(q)`.
pub fn sign(v: &Value) -> EvalResult {
    Ok(Value::Int(q(v)?.sign()))
}

fn is_greater_than(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Bool(q(a)?.compare(q(b)?) == Ordering::Greater))
}

fn is_less_than(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Bool(q(a)?.compare(q(b)?) == Ordering::Less))
}

fn compare_to(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Int(q(a)?.compare(q(b)?) as i64))
}

fn as_float(v: &Value) -> EvalResult {
    Ok(Value::Double(q(v)?.as_f64()))
}

fn as_integer(v: &Value) -> EvalResult {
    q(v)?
        .as_i64()
        .map(Value::Int)
        .ok_or_else(|| EvalError::new("cannot convert value to integer"))
}

fn is_integer(v: &Value) -> EvalResult {
    Ok(Value::Bool(q(v)?.as_i64().is_some()))
}

/// `q.add(x)`.
pub fn add(a: &Value, b: &Value) -> EvalResult {
    Ok(opaque(q(a)?.add(&operand(b)?)?))
}

/// `q.sub(x)`.
pub fn sub(a: &Value, b: &Value) -> EvalResult {
    Ok(opaque(q(a)?.sub(&operand(b)?)?))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn text(s: &str) -> String {
        parse_quantity(s).unwrap().to_display_string()
    }

    fn dec(unscaled: i64, exp: i64, format: Format) -> Quantity {
        Quantity::new(
            Amount::Dec(Dec {
                unscaled: BigInt::from(unscaled),
                exp,
            }),
            format,
        )
    }

    /// apimachinery `pkg/api/resource/quantity_test.go`, `TestQuantityString`, every row:
    /// the canonical form of a decimal amount in a format, which `ParseQuantity` keeps as
    /// written; the alternate spelling parses to the same canonical form; the negated amount
    /// prints with a `-`.
    #[test]
    fn quantity_string() {
        use Format::*;
        let table: &[(i64, i64, Format, &str, &str)] = &[
            (1024 * 1024 * 1024, 0, BinarySI, "1Gi", "1024Mi"),
            (300 * 1024 * 1024, 0, BinarySI, "300Mi", "307200Ki"),
            (6 * 1024, 0, BinarySI, "6Ki", ""),
            (
                1001 * 1024 * 1024 * 1024,
                0,
                BinarySI,
                "1001Gi",
                "1025024Mi",
            ),
            (1024 * 1024 * 1024 * 1024, 0, BinarySI, "1Ti", "1024Gi"),
            (5, 0, BinarySI, "5", "5000m"),
            (500, -3, BinarySI, "500m", "0.5"),
            (1, 9, DecimalSI, "1G", "1000M"),
            (1000, 6, DecimalSI, "1G", "0.001T"),
            (1000000, 3, DecimalSI, "1G", ""),
            (1000000000, 0, DecimalSI, "1G", ""),
            (1, -3, DecimalSI, "1m", "1000u"),
            (80, -3, DecimalSI, "80m", ""),
            (1080, -3, DecimalSI, "1080m", "1.08"),
            (108, -2, DecimalSI, "1080m", "1080000000n"),
            (10800, -4, DecimalSI, "1080m", ""),
            (300, 6, DecimalSI, "300M", ""),
            (1, 12, DecimalSI, "1T", ""),
            (1234567, 6, DecimalSI, "1234567M", ""),
            (1234567, -3, BinarySI, "1234567m", ""),
            (3, 3, DecimalSI, "3k", ""),
            (1025, 0, BinarySI, "1025", ""),
            (0, 0, DecimalSI, "0", ""),
            (0, 0, BinarySI, "0", ""),
            (1, 9, DecimalExponent, "1e9", ".001e12"),
            (1, -3, DecimalExponent, "1e-3", "0.001e0"),
            (1, -9, DecimalExponent, "1e-9", "1000e-12"),
            (80, -3, DecimalExponent, "80e-3", ""),
            (300, 6, DecimalExponent, "300e6", ""),
            (1, 12, DecimalExponent, "1e12", ""),
            (1, 3, DecimalExponent, "1e3", ""),
            (3, 3, DecimalExponent, "3e3", ""),
            (3, 3, DecimalSI, "3k", ""),
            (0, 0, DecimalExponent, "0", "00"),
            (1, -9, DecimalSI, "1n", ""),
            (80, -9, DecimalSI, "80n", ""),
            (1080, -9, DecimalSI, "1080n", ""),
            (108, -8, DecimalSI, "1080n", ""),
            (10800, -10, DecimalSI, "1080n", ""),
            (1, -6, DecimalSI, "1u", ""),
            (80, -6, DecimalSI, "80u", ""),
            (1080, -6, DecimalSI, "1080u", ""),
        ];
        for &(unscaled, exp, format, expect, alternate) in table {
            assert_eq!(dec(unscaled, exp, format).canonical_string(), expect);
            let parsed = parse_quantity(expect).unwrap();
            assert_eq!(
                parsed.text.as_deref(),
                Some(expect),
                "kept text of {expect}"
            );
            if !alternate.is_empty() {
                let q = parse_quantity(alternate).unwrap();
                assert_eq!(q.text, None, "{alternate} is not canonical");
                assert_eq!(q.canonical_string(), expect, "{alternate}");
            }
            if unscaled != 0 {
                let negated = dec(-unscaled, exp, format);
                assert_eq!(negated.canonical_string(), format!("-{expect}"));
            }
        }
    }

    /// apimachinery `quantity_test.go`, `TestQuantityParseEmit`, every row, and negated.
    #[test]
    fn quantity_parse_emit() {
        let table = [
            ("1Ki", "1Ki"),
            ("1Mi", "1Mi"),
            ("1Gi", "1Gi"),
            ("1024Mi", "1Gi"),
            ("1000M", "1G"),
            (".001Ki", "1024m"),
            (".000001Ki", "1024u"),
            (".000000001Ki", "1024n"),
            (".000000000001Ki", "2n"),
        ];
        for (input, expect) in table {
            assert_eq!(text(input), expect, "{input}");
            assert_eq!(text(&format!("-{input}")), format!("-{expect}"), "-{input}");
        }
    }

    /// apimachinery `quantity_test.go`, `TestQuantityParseZero`,
    /// `TestQuantityAddZeroPreservesSuffix` and `TestQuantitySubZeroPreservesSuffix`: a zero
    /// receiver takes the argument's format.
    #[test]
    fn zero_takes_the_other_format() {
        assert_eq!(text("0"), "0");
        let zero = parse_quantity("0").unwrap();
        for input in ["100m", "1Gi"] {
            let q = parse_quantity(input).unwrap();
            assert_eq!(q.add(&zero).unwrap().canonical_string(), input);
            assert_eq!(zero.add(&q).unwrap().canonical_string(), input);
            assert_eq!(q.sub(&zero).unwrap().canonical_string(), input);
            assert_eq!(
                zero.sub(&q).unwrap().canonical_string(),
                format!("-{input}")
            );
        }
    }

    /// `ParseQuantity` keeps the text when its digits look canonical, whatever else the
    /// text holds; arithmetic drops it (quantity.go, `ParseQuantity` and `Add`).
    #[test]
    fn kept_texts() {
        assert_eq!(text("+1k"), "+1k");
        assert_eq!(text("01Ki"), "01Ki");
        assert_eq!(text("1.500k"), "1.500k");
        assert_eq!(text("1E3"), "1E3");
        assert_eq!(text("1000m"), "1");
        assert_eq!(text("1.5k"), "1500");
        assert_eq!(text("1.5Gi"), "1536Mi");
        assert_eq!(text("0.5Ki"), "512");
        assert_eq!(text("1e50"), "100e48");
        // 10^21 in DecimalSI has no suffix: upstream's suffix lookup gives none.
        assert_eq!(text("1000E"), "1");
        let q = parse_quantity("+1k").unwrap();
        assert_eq!(
            q.add(&parse_quantity("0").unwrap())
                .unwrap()
                .canonical_string(),
            "1k"
        );
    }

    /// apimachinery `quantity_test.go` `TestJSONWhitespace` (a string's spaces trimmed, a
    /// bare number read as its text), plus what its `UnmarshalJSON` makes of `null`, of a
    /// fraction (encoding/json's text of it: `0.5`, not an exponent) and of an escaped
    /// character (the backslash stays: `ErrFormatWrong`).
    #[test]
    fn from_json_like_unmarshal_json() {
        let read = |v: Json| from_go_json(&v).map(|q| q.canonical_string());
        for (value, want) in [
            (json!(" 1"), "1"),
            (json!("1 "), "1"),
            (json!(1), "1"),
            (json!(10), "10"),
            (json!(-1), "-1"),
            (Json::Null, "0"),
            (json!(0.5), "500m"),
            (json!(1e16), "10P"),
            (json!("1.5Gi"), "1536Mi"),
            (json!("\u{a0}2\u{2003}"), "2"),
        ] {
            assert_eq!(read(value.clone()), Ok(want.to_owned()), "{value}");
        }
        for value in [json!("1\n"), json!("\t1"), json!(true), json!({})] {
            assert_eq!(
                read(value.clone()),
                Err(EvalError::new(FORMAT_ERROR)),
                "{value}"
            );
        }
    }
}
