//! The ten surprises of `../shared/k8s-cel/SPEC.md` §9, one test each, in Kubernetes' CEL
//! environment (`presets::kubernetes`, 1.37, new expressions, unless a test says otherwise) and
//! for CRD rules (`kcel_stdlib::kubernetes::crd::Validator`). Each test quotes its surprise and asserts
//! the exact values, error texts and costs. The library suites (`tests/kubernetes/*.rs`),
//! the cost suites and the CRD fixtures (`tests/crd/`) hold more cases of each.

use std::collections::HashMap;

use kcel::library::NoSizes;
use kcel::{Env, ProgramOptions, Value};
use kcel_stdlib::kubernetes::crd::{CompileOptions, Schema, Validator};
use kcel_stdlib::kubernetes::presets::Mode;
use serde_json::json;

fn env() -> Env {
    kcel_stdlib::kubernetes::presets::kubernetes((1, 37), Mode::NewExpressions)
}

/// The compile error, rendered as cel-go does.
fn compile_error(expr: &str) -> String {
    match env().compile(expr) {
        Ok(_) => panic!("{expr} compiled"),
        Err(issues) => issues.to_string(),
    }
}

/// The value (or error message) and the actual cost, with or without the optimizer.
fn run_with(expr: &str, optimize: bool) -> (Result<Value, String>, u64) {
    let env = env();
    let ast = env.compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let options = ProgramOptions::default().with_optimize(optimize);
    let program = env
        .program_with(&ast, options)
        .unwrap_or_else(|e| panic!("{expr}: {e}"));
    let (value, details) = program.eval_with_details(&HashMap::<String, Value>::new());
    (value.map_err(|e| e.into_message()), details.actual_cost)
}

fn run(expr: &str) -> (Result<Value, String>, u64) {
    run_with(expr, true)
}

fn value(expr: &str) -> Value {
    run(expr).0.unwrap_or_else(|e| panic!("{expr}: {e}"))
}

/// The estimated cost range with no size information beyond literals.
fn estimate(expr: &str) -> (u64, u64) {
    let env = env();
    let ast = env.compile(expr).unwrap();
    let e = env.estimate_cost(&ast, &NoSizes).unwrap();
    (e.min, e.max)
}

/// The field errors of validating `object` against a schema whose `spec` has `rules`.
fn crd_errors(spec: serde_json::Value, object: serde_json::Value) -> Vec<String> {
    let schema = Schema::from_json(&json!({
        "type": "object",
        "properties": {"spec": spec}
    }))
    .unwrap();
    let validator = Validator::new(&schema, CompileOptions::default());
    assert!(
        validator.compiled().errors().is_empty(),
        "{:?}",
        validator.compiled().errors()
    );
    validator
        .validate(&object, None)
        .errors
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// "1. Kubernetes does **not** enable `cel.bind`, `base64`, `math.*` or string `reverse`."
#[test]
fn surprise_1_no_bind_base64_math_or_string_reverse() {
    assert_eq!(
        compile_error("cel.bind(x, 1, x)"),
        "ERROR: <input>:1:1: undeclared reference to 'cel' (in container '')\n | cel.bind(x, 1, x)\n | ^\n\
         ERROR: <input>:1:9: undeclared reference to 'bind' (in container '')\n | cel.bind(x, 1, x)\n | ........^\n\
         ERROR: <input>:1:10: undeclared reference to 'x' (in container '')\n | cel.bind(x, 1, x)\n | .........^\n\
         ERROR: <input>:1:16: undeclared reference to 'x' (in container '')\n | cel.bind(x, 1, x)\n | ...............^"
    );
    assert_eq!(
        compile_error("base64.encode(b'a')"),
        "ERROR: <input>:1:1: undeclared reference to 'base64' (in container '')\n | base64.encode(b'a')\n | ^\n\
         ERROR: <input>:1:14: undeclared reference to 'encode' (in container '')\n | base64.encode(b'a')\n | .............^"
    );
    assert_eq!(
        compile_error("math.greatest(1, 2)"),
        "ERROR: <input>:1:1: undeclared reference to 'math' (in container '')\n | math.greatest(1, 2)\n | ^\n\
         ERROR: <input>:1:14: undeclared reference to 'greatest' (in container '')\n | math.greatest(1, 2)\n | .............^"
    );
    // ext.Lists v3 has a list `reverse`; ext.Strings stays at version 2 (no string one).
    assert_eq!(
        compile_error("'abc'.reverse()"),
        "ERROR: <input>:1:14: found no matching overload for 'reverse' applied to 'string.()'\n | 'abc'.reverse()\n | .............^"
    );
    assert_eq!(value("[1, 2].reverse()"), value("[2, 1]"));
}

/// "2. `min()/max()` on empty lists are errors; `sum()` of an empty list is the typed zero."
#[test]
fn surprise_2_min_max_of_empty_lists_error_sum_is_zero() {
    assert_eq!(run("[].min()").0, Err("min called on empty list".into()));
    assert_eq!(run("[].max()").0, Err("max called on empty list".into()));
    assert_eq!(value("[].sum()"), Value::Int(0));
    assert_eq!(value("dyn([]).sum()"), Value::Int(0));
    // The zero of the list's element type.
    assert_eq!(value("[1.5].slice(0, 0).sum()"), Value::Double(0.0));
    assert_eq!(value("[1u].slice(0, 0).sum()"), Value::Uint(0));
    assert_eq!(
        value("[duration('1s')].slice(0, 0).sum()"),
        value("duration('0s')")
    );
}

/// "3. `cidr('192.168.0.1/24')` is valid and unequal to its `masked()` form; CIDR cost size
/// is the prefix length in bytes."
#[test]
fn surprise_3_cidr_keeps_host_bits_and_sizes_by_prefix_length() {
    assert_eq!(
        value("string(cidr('192.168.0.1/24'))"),
        Value::from("192.168.0.1/24")
    );
    assert_eq!(
        value("cidr('192.168.0.1/24') == cidr('192.168.0.1/24').masked()"),
        Value::Bool(false)
    );
    assert_eq!(
        value("string(cidr('192.168.0.1/24').masked())"),
        Value::from("192.168.0.0/24")
    );
    // containsIP costs ⌈2 × size(cidr) × 0.1⌉ with size = ⌈prefix bits / 8⌉, whatever the
    // address length: an IPv6 /8 has size 1 (cost ⌈0.2⌉ = 1), a /128 size 16 (cost
    // ⌈3.2⌉ = 4). Parsing costs ⌈S × 0.1⌉ for S characters: cidr('fd00::/8') 1,
    // cidr('fd00::1/128') 2, ip('fd00::1') 1.
    assert_eq!(
        run("cidr('fd00::/8').containsIP(ip('fd00::1'))"),
        (Ok(Value::Bool(true)), 1 + 1 + 1)
    );
    assert_eq!(
        run("cidr('fd00::1/128').containsIP(ip('fd00::1'))"),
        (Ok(Value::Bool(true)), 2 + 1 + 4)
    );
}

/// "4. `ip.isCanonical('bad')` errors instead of returning false; IPv4-mapped IPv6 and zones
/// are rejected by `ip()`, `isIP()` and `cidr()`."
#[test]
fn surprise_4_is_canonical_errors_and_mapped_or_zoned_addresses_are_rejected() {
    assert_eq!(
        run("ip.isCanonical('bad')").0,
        Err(
            "IP Address \"bad\" parse error during conversion from string: \
             ParseAddr(\"bad\"): unable to parse IP"
                .into()
        )
    );
    assert_eq!(
        run("ip('::ffff:1.2.3.4')").0,
        Err("IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed".into())
    );
    assert_eq!(
        run("ip('fe80::1%eth0')").0,
        Err("IP address \"fe80::1%eth0\" with zone value is not allowed".into())
    );
    assert_eq!(
        run("cidr('::ffff:1.2.3.4/120')").0,
        Err(
            "network address parse error during conversion from string: \
             IPv4-mapped IPv6 address \"::ffff:1.2.3.4/120\" is not allowed"
                .into()
        )
    );
    assert_eq!(
        value("isIP('::ffff:1.2.3.4') || isIP('fe80::1%eth0') || isCIDR('::ffff:1.2.3.4/120')"),
        Value::Bool(false)
    );
}

/// "5. Quantity `sign` is global-only; quantity equality is numeric (`200M == 0.2G`)."
#[test]
fn surprise_5_quantity_sign_is_global_and_equality_numeric() {
    assert_eq!(
        compile_error("quantity('1').sign()"),
        "ERROR: <input>:1:19: found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'\n | quantity('1').sign()\n | ..................^"
    );
    assert_eq!(value("sign(quantity('-1'))"), Value::Int(-1));
    assert_eq!(
        value("quantity('200M') == quantity('0.2G')"),
        Value::Bool(true)
    );
    assert_eq!(
        value("quantity('1Gi') == quantity('1024Mi')"),
        Value::Bool(true)
    );
}

/// "6. Constant-pattern errors: `matches` at type-check, `find/findAll` at program creation."
#[test]
fn surprise_6_bad_constant_patterns_fail_at_check_or_program_creation() {
    assert_eq!(
        compile_error("'abc'.matches('(')"),
        "ERROR: <input>:1:15: invalid matches argument\n | 'abc'.matches('(')\n | ..............^"
    );
    let env = env();
    for expr in ["'abc'.find('(')", "'abc'.findAll('(')"] {
        let ast = env.compile(expr).expect("checks");
        let err = env.program(&ast).expect_err("program creation fails");
        assert!(
            err.to_string()
                .contains("error parsing regexp: missing closing ): `(`"),
            "{expr}: {err}"
        );
    }
    // Not constant: the error comes at evaluation.
    assert_eq!(
        run("'abc'.find('(' + '')").0,
        Err("Illegal regex: error parsing regexp: missing closing ): `(`".into())
    );
}

/// "7. String `maxLength` counts ×4 in cost estimates; scalars from the schema estimate to
/// size 0."
#[test]
fn surprise_7_max_length_counts_four_bytes_and_schema_scalars_size_zero() {
    let schema = Schema::from_json(&json!({
        "type": "object",
        "properties": {"spec": {
            "type": "object",
            "properties": {
                "s": {"type": "string", "maxLength": 10},
                "n": {"type": "integer"}
            },
            "x-kubernetes-validations": [
                {"rule": "self.s.matches('^a')"},
                {"rule": "self.n == 1"}
            ]
        }}
    }))
    .unwrap();
    let validator = Validator::new(&schema, CompileOptions::default());
    let estimates: Vec<(&str, u64, u64)> = validator
        .compiled()
        .reports()
        .iter()
        .map(|r| (r.rule.as_str(), r.estimated.min, r.estimated.max))
        .collect();
    assert_eq!(
        estimates,
        [
            // self 1 + .s 1 + matches ⌈(1 + [0, 4 × 10]) × 0.1⌉ × ⌈2 × 0.25⌉ = [1, 5]
            // (with maxLength counted once it would be [1, 2]).
            ("self.s.matches('^a')", 3, 7),
            // self 1 + .n 1 + `==` ⌈min([0, 0], 1) × 0.1⌉ = 0: the schema integer has size
            // [0, 0].
            ("self.n == 1", 2, 2),
        ]
    );
    // At run time a scalar has size 1 and `==` costs 1.
    let outcome = validator.validate(&json!({"spec": {"s": "abc", "n": 1}}), None);
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let costs: Vec<u64> = outcome.costs.iter().map(|c| c.cost()).collect();
    assert_eq!(costs, [3, 3]);
}

/// "8. `OptOptimize` makes constant literals and constant conversions free at run time."
#[test]
fn surprise_8_the_optimizer_makes_constant_literals_and_conversions_free() {
    for (expr, optimized, plain) in [
        ("[1, 2, 3]", 0, 10),
        ("{'a': 1}", 0, 30),
        ("int('5')", 0, 1),
        ("duration('1h') > duration('1m')", 1, 3),
        ("[1, 2, 3].size()", 1, 11),
    ] {
        assert_eq!(run_with(expr, true).1, optimized, "{expr} optimized");
        assert_eq!(run_with(expr, false).1, plain, "{expr} unoptimized");
    }
    // The estimate does not know about the optimizer.
    assert_eq!(estimate("[1, 2, 3]"), (10, 10));
}

/// "9. Set/map list equality is order-insensitive only when the schema list is the left
/// operand."
#[test]
fn surprise_9_set_list_equality_ignores_order_only_on_the_left() {
    let spec = json!({
        "type": "object",
        "properties": {"tags": {
            "type": "array",
            "maxItems": 10,
            "x-kubernetes-list-type": "set",
            "items": {"type": "string", "maxLength": 16}
        }},
        "x-kubernetes-validations": [
            {"rule": "self.tags == ['a', 'b']", "message": "set on the left"},
            {"rule": "['a', 'b'] == self.tags", "message": "literal on the left"}
        ]
    });
    assert_eq!(
        crd_errors(spec.clone(), json!({"spec": {"tags": ["b", "a"]}})),
        ["spec: Invalid value: literal on the left"]
    );
    assert!(crd_errors(spec, json!({"spec": {"tags": ["a", "b"]}})).is_empty());
}

/// "10. Reserved words: `namespace` must be `__namespace__` in stored rules before 1.31
/// semantics; `self.true` never parses; map keys are never escaped."
///
/// kcel implements the 1.31+ semantics for every version: a reserved word that the parser
/// accepts as a field name (`namespace`) may be written either way.
#[test]
fn surprise_10_reserved_words_and_unescaped_map_keys() {
    let spec = json!({
        "type": "object",
        "properties": {
            "namespace": {"type": "string"},
            "true": {"type": "boolean"},
            "m": {"type": "object", "additionalProperties": {"type": "string"}}
        },
        "x-kubernetes-validations": [
            {"rule": "self.__namespace__ == 'prod'", "message": "escaped"},
            {"rule": "self.namespace == 'prod'", "message": "unescaped (1.31+)"},
            {"rule": "self.__true__", "message": "true is escaped"},
            {"rule": "self.m['a.b'] == 'x' && 'a.b' in self.m", "message": "map keys verbatim"},
            {"rule": "!('a__dot__b' in self.m)", "message": "map keys are not escaped"}
        ]
    });
    let ok = json!({"spec": {"namespace": "prod", "true": true, "m": {"a.b": "x"}}});
    assert!(crd_errors(spec.clone(), ok).is_empty());
    let bad = json!({"spec": {"namespace": "dev", "true": false, "m": {"a.b": "y"}}});
    assert_eq!(
        crd_errors(spec, bad),
        [
            "spec: Invalid value: escaped",
            "spec: Invalid value: unescaped (1.31+)",
            "spec: Invalid value: true is escaped",
            "spec: Invalid value: map keys verbatim",
        ]
    );
    // `true` is a literal to the parser: never a field name.
    assert_eq!(
        compile_error("self.true"),
        "ERROR: <input>:1:6: Syntax error: mismatched input 'true' expecting IDENTIFIER\n | self.true\n | .....^"
    );
}
