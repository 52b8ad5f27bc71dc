//! `kubernetes.quantity`: resource quantities as apimachinery's `resource.Quantity` parses
//! and computes them: exact decimals, small values as a scaled int64 (as upstream), larger
//! ones as an arbitrary-precision decimal rounded up to nano units.

use std::any::Any;
use std::cmp::Ordering;

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

use super::{est_one, est_traverse_first, opaque, opaque_arg, rt_traverse_first, string_arg};
use kcel::cost::CallCost;
use kcel::error::{EvalError, EvalResult};
use kcel::registry::{Implementation, Library};
use kcel::value::{Opaque, Value};

/// The CEL type name.
pub const TYPE: &str = "kubernetes.Quantity";

const FORMAT_ERROR: &str = "quantities must match the regular expression \
     '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const NUMERIC_ERROR: &str = "unable to parse quantity's numeric part";
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

/// apimachinery's two representations: a scaled int64 (`value × 10^scale`) or a decimal.
#[derive(Clone, Debug)]
pub enum Quantity {
    Int { value: i64, scale: i64 },
    Dec(Dec),
}

impl Quantity {
    /// The exact value.
    pub fn to_dec(&self) -> Dec {
        match self {
            Quantity::Int { value, scale } => Dec {
                unscaled: BigInt::from(*value),
                exp: *scale,
            },
            Quantity::Dec(d) => d.clone(),
        }
    }

    /// Exact numeric comparison.
    pub fn compare(&self, o: &Quantity) -> Ordering {
        self.to_dec().compare(&o.to_dec())
    }

    /// -1, 0 or 1.
    pub fn sign(&self) -> i64 {
        match self {
            Quantity::Int { value, .. } => value.signum(),
            Quantity::Dec(d) => match d.unscaled.sign() {
                num_bigint::Sign::Minus => -1,
                num_bigint::Sign::NoSign => 0,
                num_bigint::Sign::Plus => 1,
            },
        }
    }

    /// apimachinery's `AsInt64`: only a scaled int64 with a non-negative scale converts.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Quantity::Int { value, scale: 0 } => Some(*value),
            Quantity::Int { value, scale } if *scale > 0 => scale_i64(*value, *scale),
            _ => None,
        }
    }

    /// apimachinery's `AsApproximateFloat64`: `base × 10^exponent`.
    pub fn as_f64(&self) -> f64 {
        let (base, exp) = match self {
            Quantity::Int { value, scale } => (*value as f64, *scale),
            Quantity::Dec(d) => (d.unscaled.to_f64().unwrap_or(f64::NAN), d.exp),
        };
        if exp == 0 {
            base
        } else {
            base * pow10_f64(exp)
        }
    }

    /// apimachinery's `Add`: int64 arithmetic when it fits, else exact decimals.
    pub fn add(&self, o: &Quantity) -> Result<Quantity, EvalError> {
        if let (
            Quantity::Int {
                value: a,
                scale: sa,
            },
            Quantity::Int {
                value: b,
                scale: sb,
            },
        ) = (self, o)
        {
            if let Some(r) = int_add((*a, *sa), (*b, *sb)) {
                return Ok(r);
            }
        }
        Ok(Quantity::Dec(self.to_dec().add(&o.to_dec())?))
    }

    /// apimachinery's `Sub`.
    pub fn sub(&self, o: &Quantity) -> Result<Quantity, EvalError> {
        let neg = match o {
            Quantity::Int { value, scale } => Quantity::Int {
                value: value.wrapping_neg(),
                scale: *scale,
            },
            Quantity::Dec(d) => Quantity::Dec(Dec {
                unscaled: -d.unscaled.clone(),
                exp: d.exp,
            }),
        };
        self.add(&neg)
    }
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
fn int_add((a, sa): (i64, i64), (b, sb): (i64, i64)) -> Option<Quantity> {
    let q = |value, scale| Some(Quantity::Int { value, scale });
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
    fn to_display_string(&self) -> String {
        let d = self.to_dec();
        format!("quantity('{}')", decimal_text(&d))
    }
}

/// Plain decimal text for moderate exponents (`1.5`, `1536`), `<digits>e<exp>` otherwise.
fn decimal_text(d: &Dec) -> String {
    if d.exp.unsigned_abs() > 40 {
        return format!("{}e{}", d.unscaled, d.exp);
    }
    let neg = d.unscaled.sign() == num_bigint::Sign::Minus;
    let digits = d.unscaled.abs().to_string();
    let mut text = if d.exp >= 0 {
        if d.unscaled.is_zero() {
            "0".to_string()
        } else {
            format!("{digits}{}", "0".repeat(d.exp as usize))
        }
    } else {
        let frac = (-d.exp) as usize;
        let padded = format!(
            "{}{digits}",
            "0".repeat((frac + 1).saturating_sub(digits.len()))
        );
        let (int, f) = padded.split_at(padded.len() - frac);
        let f = f.trim_end_matches('0');
        if f.is_empty() {
            int.to_string()
        } else {
            format!("{int}.{f}")
        }
    };
    if neg {
        text.insert(0, '-');
    }
    text
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

/// The base (10 or 2), exponent and whether the suffix is binary.
fn interpret(suffix: &str) -> Option<(u32, i64, bool)> {
    let dec = |e| Some((10, e, false));
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
        "Ki" => Some((2, 10, true)),
        "Mi" => Some((2, 20, true)),
        "Gi" => Some((2, 30, true)),
        "Ti" => Some((2, 40, true)),
        "Pi" => Some((2, 50, true)),
        "Ei" => Some((2, 60, true)),
        s if s.len() > 1 && (s.starts_with('e') || s.starts_with('E')) => {
            // Go parses a 64-bit integer and keeps its low 32 bits.
            let e: i64 = s[1..].parse().ok()?;
            Some((10, i64::from(e as i32), false))
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
    let (base, exponent, binary) =
        interpret(p.suffix).ok_or_else(|| EvalError::new(SUFFIX_ERROR))?;
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
                let value = if p.positive { r } else { -r };
                return Ok(Quantity::Int { value, scale });
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
    }
    if !p.positive {
        d.unscaled = -d.unscaled;
    }
    Ok(Quantity::Dec(d))
}

/// Builds the library.
pub fn library() -> Library {
    let mut lib = Library::new("kubernetes.quantity", 0);
    lib.opaque_type(TYPE);
    lib.function(
        "quantity",
        "Parses a Kubernetes resource quantity such as '1.5Gi' or '200m'.",
    )
    .global(
        "string_to_quantity",
        &["string"],
        TYPE,
        Implementation::Unary(to_quantity),
    )
    .cost(CallCost::Custom(rt_traverse_first))
    .estimate(est_traverse_first)
    .examples(&[
        "quantity('200M') == quantity('0.2G')",
        "quantity('1Ki').asInteger() == 1024",
    ]);
    lib.function(
        "isQuantity",
        "Whether a string is a quantity `quantity()` accepts.",
    )
    .global(
        "is_quantity_string",
        &["string"],
        "bool",
        Implementation::Unary(is_quantity),
    )
    .cost(CallCost::Custom(rt_traverse_first))
    .estimate(est_traverse_first)
    .examples(&["isQuantity('1.3G')", "!isQuantity('1K')"]);
    lib.function(
        "sign",
        "The sign of a quantity: -1, 0 or 1 (a global function only).",
    )
    .global("quantity_sign", &[TYPE], "int", Implementation::Unary(sign))
    .cost(CallCost::Fixed(1))
    .estimate(est_one)
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
    lib.function(
        "asApproximateFloat",
        "The quantity as the nearest double (±Inf on overflow).",
    )
    .member(
        "quantity_get_float",
        &[TYPE],
        "double",
        Implementation::Unary(as_float),
    )
    .cost(CallCost::Fixed(1))
    .estimate(est_one)
    .examples(&["quantity('50.703k').asApproximateFloat() == 50703.0"]);
    lib.function(
        "asInteger",
        "The quantity as an int; an error if it is not an exact int64.",
    )
    .member(
        "quantity_get_int",
        &[TYPE],
        "int",
        Implementation::Unary(as_integer),
    )
    .cost(CallCost::Fixed(1))
    .estimate(est_one)
    .examples(&["quantity('50k').asInteger() == 50000"]);
    lib.function("isInteger", "Whether `asInteger` would succeed.")
        .member(
            "quantity_is_integer",
            &[TYPE],
            "bool",
            Implementation::Unary(is_integer),
        )
        .cost(CallCost::Fixed(1))
        .estimate(est_one)
        .examples(&["quantity('50').isInteger()", "!quantity('1.5').isInteger()"]);
    lib.function(
        "add",
        "The exact sum of two quantities, or of a quantity and an int.",
    )
    .member(
        "quantity_add",
        &[TYPE, TYPE],
        TYPE,
        Implementation::Binary(add),
    )
    .cost(CallCost::Fixed(1))
    .estimate(est_one)
    .member(
        "quantity_add_int",
        &[TYPE, "int"],
        TYPE,
        Implementation::Binary(add),
    )
    .cost(CallCost::Fixed(1))
    .estimate(est_one)
    .examples(&[
        "quantity('50k').add(quantity('20')) == quantity('50.02k')",
        "quantity('1').add(2) == quantity('3')",
    ]);
    lib.function(
        "sub",
        "The exact difference of two quantities, or of a quantity and an int.",
    )
    .member(
        "quantity_sub",
        &[TYPE, TYPE],
        TYPE,
        Implementation::Binary(sub),
    )
    .cost(CallCost::Fixed(1))
    .estimate(est_one)
    .member(
        "quantity_sub_int",
        &[TYPE, "int"],
        TYPE,
        Implementation::Binary(sub),
    )
    .cost(CallCost::Fixed(1))
    .estimate(est_one)
    .examples(&["quantity('50k').sub(20) == quantity('49980')"]);
    lib
}

fn q(v: &Value) -> Result<&Quantity, EvalError> {
    opaque_arg::<Quantity>(v)
}

/// A quantity or an int operand (as `NewQuantity(i, DecimalExponent)`).
fn operand(v: &Value) -> Result<Quantity, EvalError> {
    match v {
        Value::Int(i) => Ok(Quantity::Int {
            value: *i,
            scale: 0,
        }),
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
    use super::*;

    fn text(s: &str) -> String {
        parse_quantity(s).unwrap().to_display_string()
    }

    #[test]
    fn displays_plain_decimals() {
        assert_eq!(text("1.5Ki"), "quantity('1536')");
        assert_eq!(text("100m"), "quantity('0.1')");
        assert_eq!(text("-2.50"), "quantity('-2.5')");
        assert_eq!(text("0"), "quantity('0')");
        assert_eq!(text("1e50"), "quantity('1e50')");
    }
}
