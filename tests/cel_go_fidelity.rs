//! Behaviours where kcel must do exactly what cel-go does, each case with the upstream
//! source it follows (cel-go file and function, or test name). Compile errors and runtime
//! errors are compared as texts.

use kcel::{Env, ProgramOptions, Value};

/// The CEL standard library with optional types, the two-variable comprehensions and every
/// extension library, as cel-go's tests build their environments.
fn env() -> Env {
    let mut env = Env::new();
    env.add_library(&kcel_stdlib::optional::optional(
        kcel_stdlib::optional::LATEST,
    ));
    env.add_library(&kcel_stdlib::comprehensions::two_var_comprehensions());
    for lib in kcel_stdlib::ext::all() {
        env.add_library(&lib);
    }
    env
}

/// Evaluates with the optimizer on (the default) and off, which must agree.
fn eval_in(env: &Env, expr: &str) -> Result<Value, String> {
    let ast = env.compile(expr).map_err(|e| e.to_string())?;
    let run = |optimize: bool| {
        let options = ProgramOptions::default().with_optimize(optimize);
        let program = env.program_with(&ast, options).map_err(|e| e.to_string())?;
        program.eval(&()).map_err(|e| e.to_string())
    };
    let (folded, plain) = (run(true), run(false));
    let same = match (&folded, &plain) {
        (Ok(a), Ok(b)) => a.to_string() == b.to_string(),
        (a, b) => a.is_err() == b.is_err(),
    };
    assert!(same, "{expr}: optimized {folded:?}, plain {plain:?}");
    folded
}

fn eval(expr: &str) -> Result<Value, String> {
    eval_in(&env(), expr)
}

#[track_caller]
fn assert_true(expr: &str) {
    assert_eq!(eval(expr), Ok(Value::Bool(true)), "{expr}");
}

#[track_caller]
fn assert_eval_error(expr: &str, want: &str) {
    match eval(expr) {
        Err(e) => assert!(e.contains(want), "{expr}: {e}"),
        Ok(v) => panic!("{expr}: {v}, wanted error {want}"),
    }
}

#[track_caller]
fn assert_compile_error(expr: &str, want: &str) {
    match env().compile(expr) {
        Err(e) => assert!(e.to_string().contains(want), "{expr}: {e}"),
        Ok(_) => panic!("{expr}: compiled, wanted error {want}"),
    }
}

/// cel-go `ext/comprehensions_test.go`, `TestTwoVarComprehensionsStaticErrors` (the
/// accumulator-name cases; `extractIterVars` in `ext/comprehensions.go`).
#[test]
fn two_variable_comprehensions_static_errors() {
    for (expr, want) in [
        ("[].all(i, i, i < i)", "duplicate variable name: i"),
        (
            "[].all(__result__, i, __result__ < i)",
            "iteration variable overwrites accumulator variable",
        ),
        (
            "[].all(j, __result__, __result__ < j)",
            "iteration variable overwrites accumulator variable",
        ),
        ("[].all(i.j, k, i.j < k)", "argument must be a simple name"),
        ("[].all(j, i.k, j < i.k)", "argument must be a simple name"),
        (
            "[].exists(i.j, k, i.j < k)",
            "argument must be a simple name",
        ),
        (
            "[].exists_one(i.j, k, i.j < k)",
            "argument must be a simple name",
        ),
        (
            "[].existsOne(j, i.k, j < i.k)",
            "argument must be a simple name",
        ),
        (
            "[].transformList(i.j, k, i.j + k)",
            "argument must be a simple name",
        ),
        (
            "{}.transformMap(j, i.k, j + i.k)",
            "argument must be a simple name",
        ),
        (
            "{}.transformMapEntry(i.j, k, {k: i.j})",
            "argument must be a simple name",
        ),
    ] {
        assert_compile_error(expr, want);
    }
}

/// cel-go `ext/comprehensions_test.go`, `TestTwoVarComprehensionsRuntimeErrors`; the text is
/// `mutableMap.Insert`'s (`common/types/map.go`), the key formatted with Go's `%v`.
#[test]
fn two_variable_comprehensions_runtime_errors() {
    assert_eval_error(
        "[1, 1].transformMapEntry(i, v, {v: i})",
        "insert failed: key 1 already exists",
    );
    assert_eval_error(
        "[0, 0u].transformMapEntry(i, v, {v: i})",
        "insert failed: key 0 already exists",
    );
    assert_eval_error(
        "['a', 'a'].transformMapEntry(i, v, {v: i})",
        "insert failed: key a already exists",
    );
    assert_eval_error(
        "[true, true].transformMapEntry(i, v, {v: i})",
        "insert failed: key true already exists",
    );
    assert_true("[1, 2].transformMapEntry(i, v, {v: i}) == {1: 0, 2: 1}");
}

/// `optional.ofNonZeroValue` (cel-go `cel/library.go`) is `optional.none()` exactly where the
/// value's type implements `traits.Zeroer` and `IsZeroValue` is true (`common/types/*.go`):
/// `Timestamp.IsZeroValue` is Go's `time.Time.IsZero` (year 1, not the epoch); `Double`
/// compares with `== 0.0` (so `-0.0` is zero, NaN is not); optionals and types have no
/// `IsZeroValue`.
#[test]
fn of_non_zero_value_follows_is_zero_value() {
    for zero in [
        "null",
        "false",
        "0",
        "0u",
        "0.0",
        "-0.0",
        "''",
        "b''",
        "[]",
        "{}",
        "duration('0s')",
        "timestamp('0001-01-01T00:00:00Z')",
        "timestamp('0001-01-01T01:00:00+01:00')",
    ] {
        assert_true(&format!(
            "optional.ofNonZeroValue({zero}) == optional.none()"
        ));
    }
    for non_zero in [
        "true",
        "1",
        "1u",
        "0.5",
        "double('NaN')",
        "' '",
        "b'\\x00'",
        "[0]",
        "{0: 0}",
        "duration('1ns')",
        "timestamp(0)",
        "timestamp('0001-01-01T00:00:00.000000001Z')",
        "optional.none()",
        "int",
        "null_type",
    ] {
        assert_true(&format!("optional.ofNonZeroValue({non_zero}).hasValue()"));
    }
}

/// A timestamp keeps the offset it was parsed with, as a Go `time.Time` from `time.Parse`
/// keeps its fixed zone: `string()` formats it there (`Timestamp.ConvertToType(StringType)`,
/// `t.Format(time.RFC3339Nano)`, `common/types/timestamp.go`), and `+`/`-` with a duration
/// keep it (`Timestamp.Add`/`Subtract` call Go's `Time.Add`). Equality and ordering compare
/// instants (`Time.Equal`, `Before`, `After`); the accessors without a time zone read UTC
/// (`common/stdlib/standard.go` passes `utcTZ`), with one the given zone (`inTimeZone`).
#[test]
fn timestamps_keep_their_offset() {
    for (expr, want) in [
        (
            "string(timestamp('1999-12-31T23:00:00-01:00'))",
            "1999-12-31T23:00:00-01:00",
        ),
        (
            "string(timestamp('2009-02-13T23:31:30.5+05:30'))",
            "2009-02-13T23:31:30.5+05:30",
        ),
        (
            "string(timestamp('2000-01-01T00:00:00+00:00'))",
            "2000-01-01T00:00:00Z",
        ),
        (
            "string(timestamp('2000-01-01T00:00:00-00:00'))",
            "2000-01-01T00:00:00Z",
        ),
        (
            "string(timestamp('1999-12-31T23:00:00-01:00') + duration('1h30m'))",
            "2000-01-01T00:30:00-01:00",
        ),
        (
            "string(duration('1ns') + timestamp('1999-12-31T23:00:00+14:00'))",
            "1999-12-31T23:00:00.000000001+14:00",
        ),
        (
            "string(timestamp('2000-01-01T00:00:00-09:30') - duration('24h'))",
            "1999-12-31T00:00:00-09:30",
        ),
        (
            "string(timestamp(timestamp('2000-01-01T00:00:00-09:30')))",
            "2000-01-01T00:00:00-09:30",
        ),
        ("string(timestamp(946684800))", "2000-01-01T00:00:00Z"),
        (
            "string([timestamp('2000-01-01T00:00:00+01:00')][0])",
            "2000-01-01T00:00:00+01:00",
        ),
    ] {
        assert_eq!(eval(expr), Ok(Value::from(want)), "{expr}");
    }
    for expr in [
        "timestamp('1999-12-31T23:00:00-01:00') == timestamp('2000-01-01T00:00:00Z')",
        "timestamp('1999-12-31T23:00:00-01:00') <= timestamp('2000-01-01T00:00:00Z')",
        "timestamp('2000-01-01T00:30:00+01:00') < timestamp('2000-01-01T00:00:00Z')",
        "timestamp('1999-12-31T23:00:00-01:00') - timestamp('2000-01-01T00:00:00Z') == duration('0s')",
        "int(timestamp('1999-12-31T23:00:00-01:00')) == 946684800",
        "timestamp('1999-12-31T23:00:00-01:00').getHours() == 0",
        "timestamp('1999-12-31T23:00:00-01:00').getFullYear() == 2000",
        "timestamp('1999-12-31T23:00:00-01:00').getDayOfYear() == 0",
        "(timestamp('1999-12-31T23:00:00-01:00') + duration('1m')).getMinutes() == 1",
        "timestamp('1999-12-31T23:00:00-01:00').getHours('-01:00') == 23",
        "timestamp('1999-12-31T23:00:00-01:00').getHours('UTC') == 0",
        "{'a': timestamp('1999-12-31T23:00:00-01:00')} == {'a': timestamp('2000-01-01T00:00:00Z')}",
    ] {
        assert_true(expr);
    }
}

/// cel-go `cel/validator_test.go`, `TestValidateRegexLiterals`: with the literal validators,
/// a constant `matches` pattern RE2 rejects is a compile error at the pattern.
#[test]
fn regex_literals_are_validated_as_re2() {
    let mut env = env();
    env.declare("x", kcel::Type::String);
    env.set_literal_validators(true);
    for expr in ["'hello'.matches('el*')", "'hello'.matches(x)"] {
        assert!(env.compile(expr).is_ok(), "{expr}");
    }
    for expr in [
        "'hello'.matches('x++')",
        "'hello'.matches('(?<name%>el*)')",
        "'hello'.matches('??el*')",
        "'hello'.matches('a{1001}')",
    ] {
        let e = env.compile(expr).err().map(|e| e.to_string());
        assert!(
            e.as_deref()
                .is_some_and(|e| e.starts_with("ERROR: <input>:1:17: invalid matches argument")),
            "{expr}: {e:?}"
        );
    }
}

/// Without the validators, the pattern's RE2 error is the evaluation's (cel-go
/// `interpreter/interpreter_test.go`, `matches_error`: "unexpected ): `)k.*`"), with RE2's
/// code and fragment (`regexp/syntax/parse.go`).
#[test]
fn regex_errors_are_re2_errors() {
    for (expr, want) in [
        (
            "'kathmandu'.matches(')k.*')",
            "error parsing regexp: unexpected ): `)k.*`",
        ),
        (
            "'a'.matches('a{1001}')",
            "error parsing regexp: invalid repeat count: `{1001}`",
        ),
        (
            "'xx'.matches('x++')",
            "error parsing regexp: invalid nested repetition operator: `++`",
        ),
        (
            "'a'.matches('(?x)a')",
            "error parsing regexp: invalid or unsupported Perl syntax: `(?x`",
        ),
        (
            "'A'.matches('\\\\u0041')",
            "error parsing regexp: invalid escape sequence: `\\u`",
        ),
        (
            "'a'.matches(dyn('(a{500}){3}'))",
            "error parsing regexp: invalid repeat count: `{3}`",
        ),
    ] {
        assert_eval_error(expr, want);
    }
    assert_true("'a{,3}'.matches('^a{,3}$')");
    assert_true("'ab'.matches('^(?P<x>a)(?P<x>b)$')");
}

/// `%s` of a timestamp: cel-go's first formatter (strings versions 1 to 3) prints its
/// `string()`, offset included (`ext/formatting.go`, `FormatString` converts with
/// `ConvertToType(StringType)`); the second (version 4 on) prints it in UTC
/// (`ext/formatting_v2.go`, `argTime.UTC().AppendFormat(..., time.RFC3339Nano)`).
#[test]
fn format_prints_timestamps_as_each_formatter_does() {
    let expr = "'%s'.format([timestamp('1999-12-31T23:00:00.5-01:00')])";
    let with_strings = |version: u32| {
        let mut env = Env::new();
        env.add_library(&kcel_stdlib::ext::strings(version));
        eval_in(&env, expr)
    };
    assert_eq!(
        with_strings(3),
        Ok(Value::from("1999-12-31T23:00:00.5-01:00"))
    );
    assert_eq!(with_strings(4), Ok(Value::from("2000-01-01T00:00:00.5Z")));
}

/// Selecting a field of a value that is no map at run time (behind `dyn`): cel-go's
/// `interpreter/attributes.go`, `refQualify` — `no such key: <field>` and, in a presence
/// test, false (cel-go errors there only with `EnableErrorOnBadPresenceTest`, which
/// Kubernetes does not set); a list is indexed by the name and fails as `IndexOrError`
/// (`common/types/list.go`) does. Kubernetes' admission `params` are such a null
/// (`Test_ValidateNamespace_NoParams`).
#[test]
fn selecting_a_field_of_no_map() {
    assert_eval_error("dyn(null).metadata", "no such key: metadata");
    assert_eval_error("dyn(1).x", "no such key: x");
    assert_eval_error("dyn('s').x.y", "no such key: x");
    assert_true("!has(dyn(null).metadata)");
    assert_true("!has(dyn(1.5).x)");
    assert_eval_error("dyn([1]).x", "unsupported index type 'string' in list");
    assert_eval_error("has(dyn([1]).x)", "unsupported index type 'string' in list");
    assert_true("has({'a': dyn(null)}.a) && !has({'a': dyn(null)}.a.b)");
}

/// An optional field selection (`.?f`) on a present value that is no map, list or value with
/// fields gives `optional.none()`: cel-go `interpreter/attributes.go`, `refQualify` (its
/// default case returns "not present" when `presenceTest` is set). A list still rejects a
/// field name (`refQualify`'s `traits.Lister` case, `types.IndexOrError`). A plain selection
/// after an optional one stays an error (cel-spec `optionals.textproto`,
/// `map_null_entry_no_such_key`).
#[test]
fn optional_selection_on_values_without_fields() {
    // `dyn` hides the type from the checker, which rejects selection on a known int.
    for value in ["1", "'s'", "true", "2.5", "b'x'", "null", "duration('1s')"] {
        assert_true(&format!("dyn({value}).?c == optional.none()"));
        assert_true(&format!("{{'a': dyn({value})}}.?a.?c == optional.none()"));
        assert_eval_error(&format!("{{'a': dyn({value})}}.?a.c"), "no such key: c");
    }
    assert_true("{'a': {'c': 1}}.?a.c == optional.of(1)");
    assert_true("{'a': {'b': 1}}.?a.c == optional.none()");
    assert_eval_error("dyn([1]).?c", "unsupported index type 'string' in list");
    assert_eval_error(
        "{'a': dyn([1])}.?a.?c",
        "unsupported index type 'string' in list",
    );
    // Without an optional qualifier, selection on a value without fields stays an error.
    assert_eval_error("{'a': dyn(1)}.a.c", "no such key: c");
}
