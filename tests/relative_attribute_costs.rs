//! The runtime cost of selections and indexes whose operand is not an attribute (#26, item
//! 6 of the cost review): a literal, a call, a comprehension.
//!
//! cel-go plans a selection or an index as a qualifier of an attribute. Where the operand
//! is a variable (or a selection, an index, a conditional) the qualifier extends that
//! attribute; any other operand is made a relative attribute first
//! (`interpreter/planner.go`: `planSelect` and `planCallIndex` call `relativeAttr`, which
//! wraps the operand in an `evalAttr` over `RelativeAttribute` and decorates it). Its cost
//! tracker charges the attribute 1 when it is evaluated, whatever its operand gave
//! (`interpreter/interpretable.go` `evalWatchAttr.Eval`; `interpreter/runtimecost.go`
//! `costTrackerFactory.Observe`, the `InterpretableAttribute` case), and each qualifier 1
//! when applied, failing or not (`evalWatchConstQual`/`evalWatchAttrQual`, the
//! `ConstantQualifier` and `Qualifier` cases); the qualifiers after a failed one, or after
//! a failed operand, are not applied (`interpreter/attributes.go`:
//! `relativeAttribute.Resolve`, `applyQualifiers`). Where the attribute is used without
//! being evaluated as an expression, its 1 is not charged: a presence test resolves it
//! (`evalTestOnly.Eval`, whose own 1 is the presence test's), a conditional takes a
//! branch's attribute without its watch (`planCallConditional`), and an index key that is
//! an attribute is resolved as a qualifier (`newQualifier`'s `attrQualifier`,
//! `attrQualify`). Kubernetes evaluates with `cel.OptOptimize`, which builds constant list
//! and map literals and constant type conversions once (`decOptimize`): there they cost 0.
//!
//! No upstream test evaluates such an expression with its cost, so each figure is worked
//! out by hand from those functions (the derivation beside it), as `TestRuntimeCost`
//! (`interpreter/runtimecost_test.go`) counts; the rows marked `rct` are that test's own
//! cases with an attribute operand, for contrast. Estimates are cel-go's
//! `checker/cost.go` (`coster.costSelect`: the operand plus 1 when its type is a map, a
//! message or a type parameter, nothing for a presence test but the test's cost;
//! `costCall`: an index 1, `dyn` 1 plus its argument), which does not count the relative
//! attribute; the environment is Kubernetes', whose estimator charges presence tests
//! nothing (`checker.PresenceTestHasCost(false)`), while the runtime cases below use cel-go's
//! default (presence tests cost 1). Each case runs in fast and in reference mode (`ProgramOptions::reference`),
//! which must agree.

use std::collections::HashMap;

use kcel::library::{AstNode, SizeEstimate, SizeEstimator};
use kcel::{Env, Type, Value};

struct Case {
    expr: &'static str,
    optimize: bool,
    /// Presence tests cost 1 (cel-go's default) rather than 0 (Kubernetes').
    presence_cost: bool,
    /// The actual cost.
    want: u64,
    /// The error the evaluation ends with, if any (a prefix of its message).
    error: Option<&'static str>,
    /// cel-go's estimate.
    estimate: (u64, u64),
    /// How the figure is made up.
    sum: &'static str,
}

const fn case(
    expr: &'static str,
    optimize: bool,
    want: u64,
    estimate: (u64, u64),
    sum: &'static str,
) -> Case {
    Case {
        expr,
        optimize,
        presence_cost: true,
        want,
        error: None,
        estimate,
        sum,
    }
}

const fn failing(
    expr: &'static str,
    optimize: bool,
    want: u64,
    error: &'static str,
    estimate: (u64, u64),
    sum: &'static str,
) -> Case {
    Case {
        expr,
        optimize,
        presence_cost: true,
        want,
        error: Some(error),
        estimate,
        sum,
    }
}

const CASES: &[Case] = &[
    // Selections and indexes over literals.
    case(
        "{'a': 1}.a",
        true,
        2,
        (31, 31),
        "the map built once (0), the relative attribute 1, the qualifier `a` 1; E: map 30 + \
         select 1",
    ),
    case(
        "{'a': 1}.a",
        false,
        32,
        (31, 31),
        "map 30, the relative attribute 1, the qualifier `a` 1",
    ),
    case(
        "[1, 2][1]",
        true,
        2,
        (11, 11),
        "the list built once (0), the relative attribute 1, the qualifier 1 1; E: list 10 + \
         index 1",
    ),
    case(
        "[1, 2][1]",
        false,
        12,
        (11, 11),
        "list 10, attribute 1, qualifier 1",
    ),
    case(
        "{'a': {'b': 1}}.a.b",
        true,
        3,
        (62, 62),
        "one attribute for the chain: constant 0, attribute 1, qualifiers `a` and `b` 1 each; \
         E: maps 60 + 2 selects",
    ),
    case(
        "{'a': {'b': 1}}.a.b",
        false,
        63,
        (62, 62),
        "maps 60, attribute 1, 2 qualifiers",
    ),
    case(
        "{'a': [1, 2]}.a[1] == 2",
        true,
        4,
        (43, 43),
        "constant 0, attribute 1, qualifiers `a` and 1 (planCallIndex extends the \
         attribute), `==` 1; E: 30 + 10 + select 1 + index 1 + `==` 1",
    ),
    // Over calls and comprehensions.
    case(
        "dyn({'a': 1}).a",
        false,
        33,
        (31, 31),
        "map 30, dyn 1, attribute 1, qualifier 1; E: dyn 1 + map 30, no select cost on a dyn \
         operand",
    ),
    case(
        "dyn({'a': 1}).a",
        true,
        2,
        (31, 31),
        "dyn of a constant folded by the optimizer (maybeOptimizeConstUnary): 0, attribute \
         1, qualifier 1",
    ),
    case(
        "[1, 2, 3].map(v, v * 2)[2] == 6",
        false,
        66,
        (65, 65),
        "map macro: range 10, accumulator [] 10, per element @result 1 + [v * 2] 10 + v 1 + \
         `*` 1 + `+` 1 = 14, × 3, result 1 = 63; attribute 1, qualifier 1, `==` 1; E: 63 + \
         index 1 + `==` 1",
    ),
    case(
        "[x, 2][0] == 1",
        true,
        14,
        (13, 13),
        "a list with a variable element is not built once: list 10, x 1; attribute 1, \
         qualifier 1, `==` 1; E: 10 + 1 + index 1 + `==` 1",
    ),
    // An optional selection is a qualifier too (`planCall`: OptSelect and OptIndex go to
    // planCallIndex).
    case(
        "{'a': 1}.?a == optional.of(1)",
        true,
        4,
        (33, 33),
        "constant 0, attribute 1, qualifier `a` 1 (present), optional.of 1, `==` 1; E: map \
         30 + `_?._` 1 + optional.of 1 + `==` 1",
    ),
    case(
        "{'a': 1}[?'a'] == optional.of(1)",
        true,
        4,
        (33, 33),
        "as above with an optional index",
    ),
    // An optional qualifier is applied with QualifyIfPresent, which is observed only when
    // the field or element is there (`evalWatchConstQual.QualifyIfPresent`), and no
    // qualifier is applied to `optional.none()` (`applyQualifiers`).
    case(
        "{'a': 1}.?b == optional.none()",
        true,
        3,
        (33, 33),
        "constant 0, attribute 1, qualifier `b` absent 0, optional.none() 1, `==` 1; E: map \
         30 + `_?._` 1 + optional.none 1 + `==` 1",
    ),
    case(
        "{'a': 1}[?'b'] == optional.none()",
        true,
        3,
        (33, 33),
        "as above with an optional index",
    ),
    case(
        "{'a': {'b': 1}}.?a.b == optional.of(1)",
        true,
        5,
        (63, 63),
        "constant 0, attribute 1, `a` present 1, `b` (optional from there on) present 1, \
         optional.of 1, `==` 1; E: maps 60 + `_?._` 1 + optional.of 1 + `==` 1 (no select \
         cost on an optional operand, which is no map)",
    ),
    case(
        "{'a': {'b': 1}}.?a.c == optional.none()",
        true,
        4,
        (63, 63),
        "constant 0, attribute 1, `a` present 1, `c` absent 0, optional.none() 1, `==` 1",
    ),
    case(
        "{'a': {'b': {'c': 1}}}.?x.b.c == optional.none()",
        true,
        3,
        (93, 93),
        "constant 0, attribute 1, `x` absent 0, `b` and `c` not applied to none, \
         optional.none() 1, `==` 1",
    ),
    // Where the attribute is not evaluated as an expression: no 1 of its own.
    case(
        "has({'a': 1}.a)",
        true,
        2,
        (30, 30),
        "the relative attribute resolved by evalTestOnly: constant 0, the tested qualifier 1, \
         the presence test 1; E: map 30 (presence tests free in Kubernetes' estimator)",
    ),
    Case {
        presence_cost: false,
        ..case(
            "has({'a': 1}.a)",
            true,
            1,
            (30, 30),
            "as above with Kubernetes' free presence test: the tested qualifier 1",
        )
    },
    case(
        "true ? {'a': 1}.a : 0",
        true,
        1,
        (0, 31),
        "the branch's attribute taken without its watch (planCallConditional): constant 0, \
         qualifier 1; E: condition 0 + [0, 31]",
    ),
    case(
        "m['a'][{'k': 0}.k] == 1",
        true,
        5,
        (35, 35),
        "m 1, qualifier 'a' 1; the key an attribute (attrQualifier): constant 0, its qualifier \
         `k` 1, no attribute 1; the key's qualification 1; `==` 1; E: m 1 + index 1 + 30 + 1 \
         + index 1 + `==` 1",
    ),
    case(
        "m['a'][l[0]] == 1",
        false,
        5,
        (6, 6),
        "m 1, qualifier 'a' 1; the key l[0] an attribute resolved as a qualifier: l not \
         charged, its qualifier 0 1; the key's qualification 1; `==` 1; E: m 1 + index 1 + l \
         1 + index 1 + index 1 + `==` 1",
    ),
    case(
        "(x > 0 ? l[0] : 1) == 0",
        false,
        4,
        (3, 5),
        "x 1, `>` 1; the branch l[0] taken without its watch: l not charged, qualifier 0 1; \
         `==` 1; E: 2 + [0, 2] + 1",
    ),
    // A presence test resolves its operand's attribute: the variable is not charged, the
    // tested field is a qualifier (1 when the operand gave a value), the test itself costs
    // its presence cost whatever it gave (TestRuntimeCost: `select: non-proto field test no
    // has() cost` `has(input.testAttr.nestedAttr)` 2, `... has() cost` 3).
    Case {
        presence_cost: false,
        ..case(
            "has(n.a.b)",
            false,
            2,
            (2, 2),
            "rct: qualifiers `a` and `b` 1 each, the test 0; E: n 1 + select 1",
        )
    },
    Case {
        presence_cost: false,
        ..failing(
            "has(n.x.b)",
            false,
            1,
            "no such key: x",
            (2, 2),
            "the qualifier `x` 1 (failed), the tested `b` not applied, the test 0",
        )
    },
    failing(
        "has(n.x.b)",
        false,
        2,
        "no such key: x",
        (2, 2),
        "the qualifier `x` 1 (failed), the tested `b` not applied, the test 1",
    ),
    // For contrast, attribute operands (TestRuntimeCost's cases: `select: map`
    // `input['key']` 2, `expr select: array index` `input[3-3]` 3).
    case(
        "m['a'][0]",
        false,
        3,
        (3, 3),
        "rct select: the variable's attribute 1, qualifiers 'a' and 0",
    ),
    case(
        "m['a'][1 - 1]",
        false,
        4,
        (4, 4),
        "rct expr select: m 1, qualifier 'a' 1, the key 1 - 1 1, its qualification 1",
    ),
    // Failures: the attribute is charged whatever its operand gave; the qualifiers after a
    // failed one are not applied.
    failing(
        "[1, 2][x/0] == 1",
        false,
        15,
        "division by zero",
        (14, 14),
        "list 10, attribute 1; the key: x 1, `/` 1 (failed), its qualification 1; `==` 1 (its \
         lhs failed); E: 10 + 1 + 1 + index 1 + `==` 1",
    ),
    failing(
        "[1, 2][x/0] == 1",
        true,
        5,
        "division by zero",
        (14, 14),
        "as above, the list built once",
    ),
    failing(
        "{'a': 1}.b",
        true,
        2,
        "no such key: b",
        (31, 31),
        "constant 0, attribute 1, qualifier `b` 1 (failed)",
    ),
    failing(
        "{'a': [[1]]}['b'][0][0] == 1",
        false,
        53,
        "no such key: b",
        (54, 54),
        "map 30 + lists 20, attribute 1, qualifier 'b' 1 (failed), qualifiers 0 and 0 not \
         applied, `==` 1; E: 50 + 3 indexes + `==` 1",
    ),
    failing(
        "dyn(x/0).f == 1",
        false,
        5,
        "division by zero",
        (4, 4),
        "x 1, `/` 1, dyn 1, attribute 1 (its operand failed), `==` 1; E: 3 + `==` 1",
    ),
    failing(
        "dyn({'a': 1}).missing.k == 1",
        false,
        34,
        "no such key: missing",
        (32, 32),
        "map 30, dyn 1, attribute 1, qualifier `missing` 1 (failed), `k` not applied, `==` 1; \
         E: 31 + `==` 1",
    ),
    failing(
        "has(dyn({'a': 1}).missing.k)",
        false,
        33,
        "no such key: missing",
        (31, 31),
        "map 30, dyn 1, qualifier `missing` 1 (failed), the tested `k` not applied, the \
         presence test 1 (evalTestOnly observed whatever it gave); E: 31",
    ),
    failing(
        "has(dyn(x/0).f)",
        false,
        4,
        "division by zero",
        (3, 3),
        "x 1, `/` 1, dyn 1, the tested `f` not applied, the presence test 1; E: 3",
    ),
];

struct NoHints;

impl SizeEstimator for NoHints {
    fn estimate_size(&self, _: &AstNode<'_>) -> Option<SizeEstimate> {
        None
    }
}

fn env() -> Env {
    let mut env = kcel_stdlib::kubernetes::presets::kubernetes(
        (1, 37),
        kcel_stdlib::kubernetes::presets::Mode::NewExpressions,
    );
    env.declare("x", Type::Int);
    env.declare("m", Type::map(Type::String, Type::list(Type::Int)));
    env.declare("l", Type::list(Type::Int));
    env.declare(
        "n",
        Type::map(Type::String, Type::map(Type::String, Type::Int)),
    );
    env
}

#[test]
fn selections_and_indexes_on_non_attributes_cost_as_in_cel_go() {
    let vars: HashMap<String, Value> = [
        ("x".to_string(), Value::Int(1)),
        (
            "m".to_string(),
            Value::from(serde_json::json!({"a": [1, 2]})),
        ),
        ("l".to_string(), Value::from(serde_json::json!([0]))),
        (
            "n".to_string(),
            Value::from(serde_json::json!({"a": {"b": 1}})),
        ),
    ]
    .into();
    let env = env();
    let mut failures = Vec::new();
    for case in CASES {
        let ast = env
            .compile(case.expr)
            .unwrap_or_else(|e| panic!("{}: {e}", case.expr));
        let estimate = env.estimate_cost(&ast, &NoHints).expect("estimates");
        if (estimate.min, estimate.max) != case.estimate {
            failures.push(format!(
                "{}: estimate [{}, {}], cel-go's [{}, {}]",
                case.expr, estimate.min, estimate.max, case.estimate.0, case.estimate.1
            ));
        }
        for reference in [false, true] {
            let options = env
                .program_options()
                .with_optimize(case.optimize)
                .with_presence_test_cost(case.presence_cost)
                .with_reference(reference)
                .with_cost_limit(None);
            let program = env.program_with(&ast, options).expect("plans");
            let (result, details) = program.eval_with_details(&vars);
            let outcome_ok = match (&result, case.error) {
                (Ok(_), None) => true,
                (Err(e), Some(prefix)) => e.message().starts_with(prefix),
                _ => false,
            };
            if !outcome_ok || details.actual_cost != case.want {
                failures.push(format!(
                    "{}{}{}: want {} ({}){}, got {:?} at cost {}",
                    case.expr,
                    if case.optimize { " (optimized)" } else { "" },
                    if reference { " in reference mode" } else { "" },
                    case.want,
                    case.sum,
                    case.error
                        .map(|e| format!(" with `{e}`"))
                        .unwrap_or_default(),
                    result.map_err(|e| e.message()),
                    details.actual_cost,
                ));
            }
        }
    }
    eprintln!(
        "{} passed, {} failed",
        CASES.len() * 2 - failures.len().min(CASES.len() * 2),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
