//! `double(string)`, `int(string)` and `uint(string)` end to end (#26, item 2): compiled
//! and evaluated through [`Env`], in fast and reference mode, with and without the
//! optimizer, on a constant argument and on a variable.
//!
//! cel-go converts with Go's `strconv` (`common/types/string.go`, `String.ConvertToType`):
//! `ParseFloat(s, 64)`, `ParseInt(s, 10, 64)` and `ParseUint(s, 10, 64)`, and fails with
//! `type conversion error from 'string' to '<type>'` wherever those return an error (a
//! syntax error or a value out of range). The inputs and results below are the cases of
//! Go's own tests: `strconv/atof_test.go` (`atoftests`) and `strconv/atoi_test.go`
//! (`parseInt64Tests`, `parseUint64Tests`, base 10).

use std::collections::HashMap;

use kcel::{Env, Type, Value};

/// `atoftests`: input and the float it gives, or `None` for an error.
const DOUBLES: &[(&str, Option<f64>)] = &[
    ("", None),
    ("1", Some(1.0)),
    ("+1", Some(1.0)),
    ("1x", None),
    ("1.1.", None),
    ("1e23", Some(1e23)),
    ("1E23", Some(1e23)),
    ("100000000000000000000000", Some(1e23)),
    ("1e-100", Some(1e-100)),
    ("123456700", Some(1.234567e8)),
    ("-1", Some(-1.0)),
    ("-0.1", Some(-0.1)),
    ("-0", Some(-0.0)),
    ("1e-20", Some(1e-20)),
    ("625e-3", Some(0.625)),
    // Hexadecimal floating point.
    ("0x1p0", Some(1.0)),
    ("0x1p1", Some(2.0)),
    ("0x1p-1", Some(0.5)),
    ("0x1ep-1", Some(15.0)),
    ("-0x1ep-1", Some(-15.0)),
    ("-0x1_ep-1", Some(-15.0)),
    ("0x1p-200", Some(6.223015277861142e-61)),
    ("0x1p200", Some(1.6069380442589903e60)),
    ("0x1fFe2.p0", Some(131042.0)),
    ("0x1fFe2.P0", Some(131042.0)),
    ("-0x2p3", Some(-16.0)),
    ("0x0.fp4", Some(15.0)),
    ("0x0.fp0", Some(0.9375)),
    ("0x1e2", None),
    ("1p2", None),
    // The cases.
    ("0x1p3", Some(8.0)),
    ("0x1.8p1", Some(3.0)),
    ("0x10", None),
    // Special names.
    ("inf", Some(f64::INFINITY)),
    ("-Inf", Some(f64::NEG_INFINITY)),
    ("+INF", Some(f64::INFINITY)),
    ("-Infinity", Some(f64::NEG_INFINITY)),
    ("+INFINITY", Some(f64::INFINITY)),
    ("Infinity", Some(f64::INFINITY)),
    // Largest float64 and overflow.
    ("1.7976931348623157e308", Some(f64::MAX)),
    ("-1.7976931348623157e308", Some(-f64::MAX)),
    ("1.7976931348623159e308", None),
    ("1e308", Some(1e308)),
    ("2e308", None),
    ("1e309", None),
    ("1e400", None),
    ("0x1.fffffffffffffp1023", Some(f64::MAX)),
    ("0x1.fffffffffffff8p1023", None),
    ("0x1p1024", None),
    // Denormals and underflow to zero.
    ("1e-320", Some(1e-320)),
    ("1e-350", Some(0.0)),
    ("0x1p-1074", Some(5e-324)),
    ("0x1p-1075", Some(0.0)),
    ("1e-4294967296", Some(0.0)),
    // Partial exponents and other syntax errors.
    ("1e", None),
    ("1e-", None),
    (".e-1", None),
    ("1\x00.2", None),
    ("0x", None),
    ("0x1p", None),
    ("0xp1", None),
    // Underscores between digits, as in Go literals.
    ("1_23.50_0_0e+1_2", Some(1.235e14)),
    ("-_123.5e+12", None),
    ("+_123.5e+12", None),
    ("_123.5e+12", None),
    ("1__23.5e+12", None),
    ("123_.5e+12", None),
    ("123._5e+12", None),
    ("123.5_e+12", None),
    ("123.5__0e+12", None),
    ("123.5e_+12", None),
    ("123.5e+_12", None),
    ("123.5e_-12", None),
    ("123.5e-_12", None),
    ("123.5e+1__2", None),
    ("123.5e+12_", None),
    ("0x_1_2.3_4_5p+1_2", Some(74565.0)),
    ("1_000", Some(1000.0)),
    ("1__0", None),
];

/// `parseInt64Tests` (base 10): input and the int it gives, or `None` for an error.
const INTS: &[(&str, Option<i64>)] = &[
    ("", None),
    ("0", Some(0)),
    ("-0", Some(0)),
    ("+0", Some(0)),
    ("1", Some(1)),
    ("-1", Some(-1)),
    ("+1", Some(1)),
    ("12345", Some(12345)),
    ("-12345", Some(-12345)),
    ("012345", Some(12345)),
    ("-012345", Some(-12345)),
    ("98765432100", Some(98765432100)),
    ("-98765432100", Some(-98765432100)),
    ("9223372036854775807", Some(i64::MAX)),
    ("-9223372036854775807", Some(-i64::MAX)),
    ("9223372036854775808", None),
    ("-9223372036854775808", Some(i64::MIN)),
    ("-9223372036854775809", None),
    ("-1_2_3_4_5", None),
    ("-_12345", None),
    ("_12345", None),
    ("1__2345", None),
    ("12345_", None),
    ("123%45", None),
    // Base prefixes are Go syntax only with base 0.
    ("0x10", None),
    ("0b1", None),
    ("0o7", None),
];

/// `parseUint64Tests` (base 10): input and the uint it gives, or `None` for an error.
const UINTS: &[(&str, Option<u64>)] = &[
    ("", None),
    ("0", Some(0)),
    ("1", Some(1)),
    ("12345", Some(12345)),
    ("012345", Some(12345)),
    ("12345x", None),
    ("98765432100", Some(98765432100)),
    ("18446744073709551615", Some(u64::MAX)),
    ("18446744073709551616", None),
    ("18446744073709551620", None),
    ("1_2_3_4_5", None),
    ("_12345", None),
    ("1__2345", None),
    ("12345_", None),
    ("-0", None),
    ("-1", None),
    ("+1", None),
    ("0x10", None),
];

/// A CEL string literal for `text` (escaping what a single-quoted literal cannot hold).
fn literal(text: &str) -> String {
    let mut out = String::from("'");
    for c in text.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\x00"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Evaluates `function(<text>)` every way: a constant argument and a variable, fast and
/// reference mode, optimizer on and off. Each way's outcome, described.
fn outcomes(env: &Env, function: &str, text: &str) -> Vec<(String, Result<Value, String>)> {
    let vars: HashMap<String, Value> = [("s".to_string(), Value::from(text))].into();
    let mut out = Vec::new();
    for source in [
        format!("{function}({})", literal(text)),
        format!("{function}(s)"),
    ] {
        let ast = match env.compile(&source) {
            Ok(ast) => ast,
            Err(e) => {
                out.push((source, Err(format!("compile error: {e}"))));
                continue;
            }
        };
        for optimize in [false, true] {
            for reference in [false, true] {
                let options = env
                    .program_options()
                    .with_optimize(optimize)
                    .with_reference(reference);
                let way = format!(
                    "{source}{}{}",
                    if optimize { " optimized" } else { "" },
                    if reference { " in reference mode" } else { "" }
                );
                let result = match env.program_with(&ast, options) {
                    // cel-go's optimizer folds a conversion of a constant when the program
                    // is built (`maybeOptimizeConstUnary`), so its error may come then.
                    Err(e) => Err(e.to_string()),
                    Ok(program) => program.eval(&vars).map_err(|e| e.message()),
                };
                out.push((way, result));
            }
        }
    }
    out
}

fn check<T: Copy + std::fmt::Debug>(
    function: &str,
    cases: &[(&str, Option<T>)],
    want_value: impl Fn(T) -> Value,
    same: impl Fn(&Value, &Value) -> bool,
) -> (usize, Vec<String>) {
    let mut env = Env::new();
    env.declare("s", Type::String);
    let error = format!("type conversion error from 'string' to '{function}'");
    let mut failures = Vec::new();
    let mut passed = 0;
    for (text, want) in cases {
        for (way, got) in outcomes(&env, function, text) {
            let ok = match (want, &got) {
                (Some(w), Ok(v)) => same(v, &want_value(*w)),
                (None, Err(e)) => e.contains(&error),
                _ => false,
            };
            if ok {
                passed += 1;
            } else {
                failures.push(format!("{way} with {text:?}: want {want:?}, got {got:?}"));
            }
        }
    }
    (passed, failures)
}

/// Doubles compare bit for bit, so that `-0` keeps its sign.
fn same_double(a: &Value, b: &Value) -> bool {
    matches!((a, b), (Value::Double(x), Value::Double(y)) if x.to_bits() == y.to_bits())
}

#[test]
fn double_of_a_string_is_go_parse_float() {
    let (passed, failures) = check("double", DOUBLES, Value::Double, same_double);
    eprintln!("{passed} passed, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn int_of_a_string_is_go_parse_int_base_10() {
    let (passed, failures) = check("int", INTS, Value::Int, |a, b| a == b);
    eprintln!("{passed} passed, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn uint_of_a_string_is_go_parse_uint_base_10() {
    let (passed, failures) = check("uint", UINTS, Value::Uint, |a, b| a == b);
    eprintln!("{passed} passed, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
