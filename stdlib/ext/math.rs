//! cel-go's `ext.Math`: `math.greatest` and `math.least` (version 0); rounding,
//! classification, `math.abs`, `math.sign` and bit operations (version 1); `math.sqrt`
//! (version 2).
//!
//! As in cel-go, `math.greatest(...)` and `math.least(...)` are macros: they check their
//! literal arguments at parse time and become calls of `math.@max` / `math.@min` (with one
//! argument, two arguments, or a list of three or more).

use std::cmp::Ordering;

use kcel::Value;
use kcel::library::syntax::{ExpandFn, Expander, Macro, MacroError, MacroErrorKind, Style};
use kcel::library::syntax::{Expr, ExprKind, Literal};
use kcel::library::{FunctionBuilder, Implementation, Library, overloads};
use kcel::{EvalError, EvalResult};

const NUMS: [&str; 3] = ["double", "int", "uint"];

/// Builds the library at `version`.
pub fn library(version: u32) -> Library {
    let mut lib = Library::new("cel.lib.ext.math", version);
    lib.add_macros(&GREATEST);
    lib.add_macros(&LEAST);
    declare_extremum(&mut lib, true);
    declare_extremum(&mut lib, false);
    if version >= 1 {
        declare_v1(&mut lib);
    }
    if version >= 2 {
        overloads!(lib.function("math.sqrt", "The square root of a number, as a double.");
            global "math_sqrt_double" ("double") -> "double" => Implementation::Unary(sqrt);
            global "math_sqrt_int" ("int") -> "double" => Implementation::Unary(sqrt);
            global "math_sqrt_uint" ("uint") -> "double" => Implementation::Unary(sqrt);
        )
        .examples(&["math.sqrt(81) == 9.0", "math.isNaN(math.sqrt(-15))"]);
    }
    lib
}

/// The most arguments `math.greatest`/`math.least` take (cel-go has no limit; a call with
/// more stays an ordinary, undeclared call).
pub const MAX_ARGS: usize = 64;

/// The macros `math.greatest(...)` and `math.least(...)`, one entry per argument count.
static GREATEST: [Macro; MAX_ARGS + 1] = extremum_macros("greatest", expand_greatest);
static LEAST: [Macro; MAX_ARGS + 1] = extremum_macros("least", expand_least);

const fn extremum_macros(name: &'static str, expand: ExpandFn) -> [Macro; MAX_ARGS + 1] {
    let mut table = [Macro {
        name,
        style: Style::Receiver,
        args: 0,
        receiver: Some("math"),
        expand,
    }; MAX_ARGS + 1];
    let mut i = 0;
    while i <= MAX_ARGS {
        table[i].args = i;
        i += 1;
    }
    table
}

fn expand_greatest(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    expand_extremum(ex, target, args, "math.greatest()", MAX_FN)
}

fn expand_least(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    expand_extremum(ex, target, args, "math.least()", MIN_FN)
}

/// cel-go's errors of `math.greatest()`/`math.least()` (the name) at expansion.
#[derive(Debug, thiserror::Error)]
enum ExtremumError {
    #[error("{0} requires at least one argument")]
    NoArguments(&'static str),
    #[error("{0} invalid single argument value")]
    InvalidSingle(&'static str),
    #[error("{0} simple literal arguments must be numeric")]
    NotNumeric(&'static str),
}

/// cel-go's expansion: one argument stays (a number or a list literal of numbers), two are
/// passed as they are, more are passed as one list; literal arguments must be numbers.
fn expand_extremum(
    ex: &mut Expander,
    target: Option<Expr>,
    args: Vec<Expr>,
    name: &'static str,
    func: &str,
) -> Result<Expr, MacroError> {
    let error =
        |kind: ExtremumError, span| Err(MacroError::new(MacroErrorKind::library(kind), span));
    match args.len() {
        0 => error(
            ExtremumError::NoArguments(name),
            target.map_or(ex.span(), |t| t.span),
        ),
        1 => {
            if is_numeric_list_literal(&args[0]) || is_numeric_arg(&args[0]) {
                Ok(ex.call(func, args))
            } else {
                error(ExtremumError::InvalidSingle(name), args[0].span)
            }
        }
        n => {
            if let Some(bad) = args.iter().find(|a| !is_numeric_arg(a)) {
                return error(ExtremumError::NotNumeric(name), bad.span);
            }
            if n == 2 {
                Ok(ex.call(func, args))
            } else {
                let list = ex.list(args);
                Ok(ex.call(func, vec![list]))
            }
        }
    }
}

/// Whether an argument may be a number: numeric literals and anything not a literal,
/// list, map or message.
fn is_numeric_arg(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Literal(l) => {
            matches!(l, Literal::Int(_) | Literal::Uint(_) | Literal::Double(_))
        }
        ExprKind::List { .. } | ExprKind::Map { .. } | ExprKind::Struct { .. } => false,
        _ => true,
    }
}

fn is_numeric_list_literal(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::List { elements, .. } if !elements.is_empty() && elements.iter().all(is_numeric_arg))
}

const MAX_FN: &str = "math.@max";
const MIN_FN: &str = "math.@min";

/// The one-argument, pair and list implementations of an extremum.
type Impls = (
    fn(&Value) -> EvalResult,
    fn(&Value, &Value) -> EvalResult,
    fn(&Value) -> EvalResult,
);

fn declare_extremum(lib: &mut Library, greatest: bool) {
    let (name, tag, doc) = if greatest {
        (
            MAX_FN,
            "max",
            "The greatest of its numeric arguments (or of a list of numbers); called as math.greatest(...).",
        )
    } else {
        (
            MIN_FN,
            "min",
            "The least of its numeric arguments (or of a list of numbers); called as math.least(...).",
        )
    };
    let imps: Impls = if greatest {
        (max_one, max_pair, max_list)
    } else {
        (min_one, min_pair, min_list)
    };
    let (one, pair, list) = imps;
    let mut f: FunctionBuilder<'_> = lib.function(name, doc);
    for t in NUMS {
        f = f.global(
            &format!("math_@{tag}_{t}"),
            &[t],
            t,
            Implementation::Unary(one),
        );
    }
    for a in NUMS {
        for b in NUMS {
            let result = if a == b { a } else { "dyn" };
            let id = format!("math_@{tag}_{a}_{b}");
            f = f.global(&id, &[a, b], result, Implementation::Binary(pair));
        }
    }
    for t in NUMS {
        f = f.global(
            &format!("math_@{tag}_list_{t}"),
            &[&format!("list({t})")],
            t,
            Implementation::Unary(list),
        );
    }
    if greatest {
        f.examples(&[
            "math.greatest(1) == 1",
            "math.greatest(1u, 2u) == 2u",
            "math.greatest(-42.0, -21.5, -100.0) == -21.5",
            "math.greatest([-42.0, -21.5, -100.0]) == -21.5",
            "math.greatest(1, 1.0) == 1",
        ]);
    } else {
        f.examples(&[
            "math.least(1) == 1",
            "math.least(1u, 2u) == 1u",
            "math.least(-42.0, -21.5, -100.0) == -100.0",
            "math.least([-42.0, -21.5, -100.0]) == -100.0",
            "math.least(5.4, 10, 3u, -5.0) == -5.0",
        ]);
    }
}

fn declare_v1(lib: &mut Library) {
    let unary_double = |lib: &mut Library,
                        name: &str,
                        id: &str,
                        result: &str,
                        doc: &str,
                        imp: fn(&Value) -> EvalResult,
                        examples: &[&str]| {
        lib.function(name, doc)
            .global(id, &["double"], result, Implementation::Unary(imp))
            .examples(examples);
    };
    unary_double(
        lib,
        "math.ceil",
        "math_ceil_double",
        "double",
        "Rounds up to the nearest integral double.",
        ceil,
        &["math.ceil(1.2) == 2.0", "math.ceil(-1.2) == -1.0"],
    );
    unary_double(
        lib,
        "math.floor",
        "math_floor_double",
        "double",
        "Rounds down to the nearest integral double.",
        floor,
        &["math.floor(1.2) == 1.0", "math.floor(-1.2) == -2.0"],
    );
    unary_double(
        lib,
        "math.round",
        "math_round_double",
        "double",
        "Rounds to the nearest integral double, halves away from zero.",
        round,
        &[
            "math.round(1.5) == 2.0",
            "math.round(-1.5) == -2.0",
            "math.round(1.2) == 1.0",
        ],
    );
    unary_double(
        lib,
        "math.trunc",
        "math_trunc_double",
        "double",
        "Drops the fractional part of a double.",
        trunc,
        &["math.trunc(-1.3) == -1.0", "math.trunc(1.3) == 1.0"],
    );
    unary_double(
        lib,
        "math.isInf",
        "math_isInf_double",
        "bool",
        "Whether a double is infinite.",
        is_inf,
        &["math.isInf(1.0/0.0)", "!math.isInf(1.2)"],
    );
    unary_double(
        lib,
        "math.isNaN",
        "math_isNaN_double",
        "bool",
        "Whether a double is NaN.",
        is_nan,
        &["math.isNaN(0.0/0.0)", "!math.isNaN(1.2)"],
    );
    unary_double(
        lib,
        "math.isFinite",
        "math_isFinite_double",
        "bool",
        "Whether a double is neither infinite nor NaN.",
        is_finite,
        &["math.isFinite(1.2)", "!math.isFinite(0.0/0.0)"],
    );

    overloads!(lib.function("math.abs", "The absolute value of a number; -2^63 overflows.");
        global "math_abs_double" ("double") -> "double" => Implementation::Unary(abs);
        global "math_abs_int" ("int") -> "int" => Implementation::Unary(abs);
        global "math_abs_uint" ("uint") -> "uint" => Implementation::Unary(abs);
    )
    .examples(&[
        "math.abs(-1) == 1",
        "math.abs(1u) == 1u",
        "math.abs(-1.5) == 1.5",
    ]);
    overloads!(lib.function(
        "math.sign",
        "The sign of a number: -1, 0 or 1 of the same type (NaN for NaN).",
    );
        global "math_sign_double" ("double") -> "double" => Implementation::Unary(sign);
        global "math_sign_int" ("int") -> "int" => Implementation::Unary(sign);
        global "math_sign_uint" ("uint") -> "uint" => Implementation::Unary(sign);
    )
    .examples(&[
        "math.sign(-42) == -1",
        "math.sign(0.0) == 0.0",
        "math.sign(42u) == 1u",
    ]);

    let bitwise = |lib: &mut Library,
                   name: &str,
                   op: &str,
                   doc: &str,
                   imp: fn(&Value, &Value) -> EvalResult,
                   examples: &[&str]| {
        lib.function(name, doc)
            .global(
                &format!("math_{op}_int_int"),
                &["int", "int"],
                "int",
                Implementation::Binary(imp),
            )
            .global(
                &format!("math_{op}_uint_uint"),
                &["uint", "uint"],
                "uint",
                Implementation::Binary(imp),
            )
            .examples(examples);
    };
    bitwise(
        lib,
        "math.bitAnd",
        "bitAnd",
        "Bitwise AND of two ints or two uints.",
        bit_and,
        &["math.bitAnd(3, 5) == 1", "math.bitAnd(3u, 5u) == 1u"],
    );
    bitwise(
        lib,
        "math.bitOr",
        "bitOr",
        "Bitwise OR of two ints or two uints.",
        bit_or,
        &["math.bitOr(1u, 2u) == 3u", "math.bitOr(4, -2) == -2"],
    );
    bitwise(
        lib,
        "math.bitXor",
        "bitXor",
        "Bitwise XOR of two ints or two uints.",
        bit_xor,
        &["math.bitXor(3u, 5u) == 6u", "math.bitXor(1, 3) == 2"],
    );
    overloads!(lib.function("math.bitNot", "Bitwise complement of an int or uint.");
        global "math_bitNot_int_int" ("int") -> "int" => Implementation::Unary(bit_not);
        global "math_bitNot_uint_uint" ("uint") -> "uint" => Implementation::Unary(bit_not);
    )
    .examples(&[
        "math.bitNot(1) == -2",
        "math.bitNot(0u) == 18446744073709551615u",
    ]);
    overloads!(lib.function(
        "math.bitShiftLeft",
        "Shifts left by a non-negative number of bits (64 or more gives 0).",
    );
        global "math_bitShiftLeft_int_int" ("int", "int") -> "int"
            => Implementation::Binary(shift_left);
        global "math_bitShiftLeft_uint_int" ("uint", "int") -> "uint"
            => Implementation::Binary(shift_left);
    )
    .examples(&[
        "math.bitShiftLeft(1, 2) == 4",
        "math.bitShiftLeft(1u, 200) == 0u",
    ]);
    overloads!(lib.function(
        "math.bitShiftRight",
        "Logical right shift by a non-negative number of bits (the sign bit is not kept).",
    );
        global "math_bitShiftRight_int_int" ("int", "int") -> "int"
            => Implementation::Binary(shift_right);
        global "math_bitShiftRight_uint_int" ("uint", "int") -> "uint"
            => Implementation::Binary(shift_right);
    )
    .examples(&[
        "math.bitShiftRight(1024, 2) == 256",
        "math.bitShiftRight(-1024, 3) == 2305843009213693824",
    ]);
}

fn nso() -> EvalError {
    EvalError::no_such_overload()
}

fn is_num(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Uint(_) | Value::Double(_))
}

/// Compares as cel-go's `Compare`, with cel-go's errors suffixed by the function name.
fn compare(a: &Value, b: &Value, func: &str) -> Result<Ordering, EvalError> {
    let nan = |v: &Value| matches!(v, Value::Double(d) if d.is_nan());
    if is_num(a) && (nan(a) || nan(b)) && is_num(b) {
        return Err(EvalError::new(format!(
            "NaN values cannot be ordered: {func}"
        )));
    }
    match a.cel_cmp(b) {
        Some(Some(o)) if is_num(a) == is_num(b) => Ok(o),
        _ => Err(EvalError::new(format!("no such overload: {func}"))),
    }
}

fn one(v: &Value) -> EvalResult {
    if is_num(v) { Ok(v.clone()) } else { Err(nso()) }
}

fn pick(a: &Value, b: &Value, greatest: bool) -> EvalResult {
    if !is_num(a) || !is_num(b) {
        return Err(nso());
    }
    let func = if greatest { "math.@max" } else { "math.@min" };
    pick_checked(a, b, greatest, func)
}

fn pick_checked(a: &Value, b: &Value, greatest: bool, func: &str) -> EvalResult {
    let o = compare(a, b, func)?;
    Ok(match (greatest, o) {
        (true, Ordering::Less) | (false, Ordering::Greater) => b.clone(),
        _ => a.clone(),
    })
}

fn extremum(items: &[Value], greatest: bool) -> EvalResult {
    let func = if greatest { "math.@max" } else { "math.@min" };
    let Some(first) = items.first() else {
        return Err(EvalError::new(format!(
            "{func}(list) argument must not be empty"
        )));
    };
    let mut best = first.clone();
    for v in &items[1..] {
        best = pick_checked(&best, v, greatest, func)?;
    }
    if is_num(&best) {
        Ok(best)
    } else {
        Err(EvalError::new(format!("no such overload: {func}")))
    }
}

fn max_one(v: &Value) -> EvalResult {
    match v {
        Value::List(items) => extremum(items, true),
        _ => one(v),
    }
}

fn min_one(v: &Value) -> EvalResult {
    match v {
        Value::List(items) => extremum(items, false),
        _ => one(v),
    }
}

fn max_pair(a: &Value, b: &Value) -> EvalResult {
    pick(a, b, true)
}

fn min_pair(a: &Value, b: &Value) -> EvalResult {
    pick(a, b, false)
}

fn max_list(v: &Value) -> EvalResult {
    match v {
        Value::List(items) => extremum(items, true),
        _ => Err(nso()),
    }
}

fn min_list(v: &Value) -> EvalResult {
    match v {
        Value::List(items) => extremum(items, false),
        _ => Err(nso()),
    }
}

fn double_op(v: &Value, f: fn(f64) -> f64) -> EvalResult {
    match v {
        Value::Double(d) => Ok(Value::Double(f(*d))),
        _ => Err(nso()),
    }
}

fn double_test(v: &Value, f: fn(f64) -> bool) -> EvalResult {
    match v {
        Value::Double(d) => Ok(Value::Bool(f(*d))),
        _ => Err(nso()),
    }
}

/// `math.ceil(d)`.
pub fn ceil(v: &Value) -> EvalResult {
    double_op(v, f64::ceil)
}

/// `math.floor(d)`.
pub fn floor(v: &Value) -> EvalResult {
    double_op(v, f64::floor)
}

/// `math.round(d)`: halves away from zero, like Go's `math.Round`.
pub fn round(v: &Value) -> EvalResult {
    double_op(v, f64::round)
}

/// `math.trunc(d)`.
pub fn trunc(v: &Value) -> EvalResult {
    double_op(v, f64::trunc)
}

/// `math.isInf(d)`.
pub fn is_inf(v: &Value) -> EvalResult {
    double_test(v, f64::is_infinite)
}

/// `math.isNaN(d)`.
pub fn is_nan(v: &Value) -> EvalResult {
    double_test(v, f64::is_nan)
}

/// `math.isFinite(d)`.
pub fn is_finite(v: &Value) -> EvalResult {
    double_test(v, f64::is_finite)
}

/// `math.abs(x)`.
pub fn abs(v: &Value) -> EvalResult {
    match v {
        Value::Double(d) => Ok(Value::Double(d.abs())),
        Value::Int(i) => i
            .checked_abs()
            .map(Value::Int)
            .ok_or_else(EvalError::overflow),
        Value::Uint(_) => Ok(v.clone()),
        _ => Err(nso()),
    }
}

/// `math.sign(x)`.
pub fn sign(v: &Value) -> EvalResult {
    match v {
        Value::Double(d) if d.is_nan() => Ok(v.clone()),
        Value::Double(d) => Ok(Value::Double(if *d > 0.0 {
            1.0
        } else if *d < 0.0 {
            -1.0
        } else {
            0.0
        })),
        Value::Int(i) => Ok(Value::Int(i.signum())),
        Value::Uint(u) => Ok(Value::Uint(u64::from(*u != 0))),
        _ => Err(nso()),
    }
}

/// `math.sqrt(x)`.
pub fn sqrt(v: &Value) -> EvalResult {
    match v {
        Value::Double(d) => Ok(Value::Double(d.sqrt())),
        Value::Int(i) => Ok(Value::Double((*i as f64).sqrt())),
        Value::Uint(u) => Ok(Value::Double((*u as f64).sqrt())),
        _ => Err(nso()),
    }
}

fn bits(a: &Value, b: &Value, fi: fn(i64, i64) -> i64, fu: fn(u64, u64) -> u64) -> EvalResult {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Ok(Value::Int(fi(*x, *y))),
        (Value::Uint(x), Value::Uint(y)) => Ok(Value::Uint(fu(*x, *y))),
        _ => Err(nso()),
    }
}

/// `math.bitAnd(a, b)`.
pub fn bit_and(a: &Value, b: &Value) -> EvalResult {
    bits(a, b, |x, y| x & y, |x, y| x & y)
}

/// `math.bitOr(a, b)`.
pub fn bit_or(a: &Value, b: &Value) -> EvalResult {
    bits(a, b, |x, y| x | y, |x, y| x | y)
}

/// `math.bitXor(a, b)`.
pub fn bit_xor(a: &Value, b: &Value) -> EvalResult {
    bits(a, b, |x, y| x ^ y, |x, y| x ^ y)
}

/// `math.bitNot(a)`.
pub fn bit_not(a: &Value) -> EvalResult {
    match a {
        Value::Int(x) => Ok(Value::Int(!x)),
        Value::Uint(x) => Ok(Value::Uint(!x)),
        _ => Err(nso()),
    }
}

fn shift_amount(b: &Value, func: &str) -> Result<u32, EvalError> {
    match b {
        Value::Int(n) if *n < 0 => Err(EvalError::new(format!(
            "math.{func}() negative offset: {n}"
        ))),
        // Shifts of 64 or more give 0, as in Go.
        Value::Int(n) => Ok(u32::try_from(*n).unwrap_or(u32::MAX)),
        _ => Err(nso()),
    }
}

/// `math.bitShiftLeft(a, n)`.
pub fn shift_left(a: &Value, b: &Value) -> EvalResult {
    if !matches!(a, Value::Int(_) | Value::Uint(_)) {
        return Err(nso());
    }
    let n = shift_amount(b, "bitShiftLeft")?;
    Ok(match a {
        Value::Int(x) => Value::Int(x.checked_shl(n).unwrap_or(0)),
        Value::Uint(x) => Value::Uint(x.checked_shl(n).unwrap_or(0)),
        _ => return Err(nso()),
    })
}

/// `math.bitShiftRight(a, n)`: logical (the int's bits are shifted as unsigned).
pub fn shift_right(a: &Value, b: &Value) -> EvalResult {
    if !matches!(a, Value::Int(_) | Value::Uint(_)) {
        return Err(nso());
    }
    let n = shift_amount(b, "bitShiftRight")?;
    Ok(match a {
        Value::Int(x) => Value::Int((*x as u64).checked_shr(n).unwrap_or(0) as i64),
        Value::Uint(x) => Value::Uint(x.checked_shr(n).unwrap_or(0)),
        _ => return Err(nso()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(m: &str) -> EvalResult {
        Err(EvalError::new(m))
    }

    #[test]
    fn extremes_keep_the_first_of_equals() {
        assert_eq!(
            max_pair(&Value::Int(1), &Value::Double(1.0)),
            Ok(Value::Int(1))
        );
        assert!(matches!(
            max_pair(&Value::Int(1), &Value::Double(1.0)),
            Ok(Value::Int(1))
        ));
        assert!(matches!(
            min_pair(&Value::Uint(1), &Value::Int(1)),
            Ok(Value::Uint(1))
        ));
        assert!(matches!(
            max_list(&Value::list(vec![
                Value::Double(5.4),
                Value::Int(10),
                Value::Uint(3)
            ])),
            Ok(Value::Int(10))
        ));
        assert_eq!(
            max_list(&Value::list(vec![])),
            err("math.@max(list) argument must not be empty")
        );
        assert_eq!(
            min_list(&Value::list(vec![Value::Int(1), Value::from("a")])),
            err("no such overload: math.@min")
        );
        assert_eq!(
            max_pair(&Value::Int(1), &Value::Double(f64::NAN)),
            err("NaN values cannot be ordered: math.@max")
        );
        assert_eq!(max_one(&Value::from("a")), Err(nso()));
    }

    #[test]
    fn numeric_functions() {
        assert_eq!(abs(&Value::Int(i64::MIN)), Err(EvalError::overflow()));
        assert!(
            matches!(sign(&Value::Double(-0.0)), Ok(Value::Double(d)) if d == 0.0 && d.is_sign_positive())
        );
        assert_eq!(round(&Value::Double(-1.5)), Ok(Value::Double(-2.0)));
        assert_eq!(ceil(&Value::Int(1)), Err(nso()));
        assert_eq!(sqrt(&Value::Uint(81)), Ok(Value::Double(9.0)));
    }

    #[test]
    fn bit_operations() {
        assert_eq!(
            shift_left(&Value::Int(-1), &Value::Int(200)),
            Ok(Value::Int(0))
        );
        assert_eq!(
            shift_right(&Value::Int(-1024), &Value::Int(3)),
            Ok(Value::Int(2305843009213693824))
        );
        assert_eq!(
            shift_right(&Value::Int(-1024), &Value::Int(64)),
            Ok(Value::Int(0))
        );
        assert_eq!(
            shift_left(&Value::Uint(1), &Value::Int(-1)),
            err("math.bitShiftLeft() negative offset: -1")
        );
        assert_eq!(bit_and(&Value::Uint(2), &Value::from("")), Err(nso()));
        assert_eq!(bit_not(&Value::Uint(1)), Ok(Value::Uint(u64::MAX - 1)));
    }

    #[test]
    fn versions_gate_functions() {
        assert_eq!(library(0).functions().len(), 2);
        assert!(
            library(1)
                .functions()
                .iter()
                .all(|f| f.name() != "math.sqrt")
        );
        assert!(
            library(2)
                .functions()
                .iter()
                .any(|f| f.name() == "math.sqrt")
        );
    }
}

#[cfg(test)]
mod macro_tests {
    use kcel::Env;

    fn compile_error(expr: &str) -> String {
        let mut env = Env::new();
        env.add_library(&super::library(2));
        match env.compile(expr) {
            Ok(_) => String::new(),
            Err(e) => e.diagnostics[0].message(),
        }
    }

    #[test]
    fn macros_check_literal_arguments() {
        let cases = [
            (
                "math.least()",
                "math.least() requires at least one argument",
            ),
            (
                "math.greatest('a')",
                "math.greatest() invalid single argument value",
            ),
            (
                "math.greatest([])",
                "math.greatest() invalid single argument value",
            ),
            (
                "math.least({})",
                "math.least() invalid single argument value",
            ),
            (
                "math.least(1, true)",
                "math.least() simple literal arguments must be numeric",
            ),
            (
                "math.greatest(1, 2, [3])",
                "math.greatest() simple literal arguments must be numeric",
            ),
            ("math.greatest(1, 2, 3)", ""),
            ("math.greatest([1, 2.0])", ""),
        ];
        for (expr, want) in cases {
            assert_eq!(compile_error(expr), want, "{expr}");
        }
    }
}
