//! The runtime cost suite: every expected figure comes from a reference, named beside the
//! case (cel-go's `interpreter/runtimecost_test.go`, abbreviated `rct`, which runs without
//! the optimizer; or the formulas of `../shared/k8s-cel/SPEC.md` §4.2 worked by hand).

use std::collections::HashMap;

use kcel::{Env, ProgramOptions, Type, Value};

struct Case {
    expr: &'static str,
    decls: &'static [(&'static str, &'static str)],
    /// Variables as a JSON object.
    vars: &'static str,
    optimize: bool,
    presence_test_cost: bool,
    limit: Option<u64>,
    /// The actual cost, or `None` when the limit must stop evaluation.
    want: Option<u64>,
    source: &'static str,
}

const CEL: Case = Case {
    expr: "",
    decls: &[],
    vars: "{}",
    optimize: false,
    presence_test_cost: true,
    limit: None,
    want: Some(0),
    source: "",
};

fn s500() -> String {
    "a".repeat(500)
}

fn cases() -> Vec<(Case, Vec<(&'static str, Value)>)> {
    let long = || Value::from(s500());
    let none = Vec::new;
    vec![
        (
            Case {
                expr: r#""Hello World!""#,
                want: Some(0),
                source: "rct const",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input",
                decls: &[("input", "list(int)")],
                vars: r#"{"input": [1, 2]}"#,
                want: Some(1),
                source: "rct identity",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input['key']",
                decls: &[("input", "map(string, string)")],
                vars: r#"{"input": {"key": "v"}}"#,
                want: Some(2),
                source: "rct select: map",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input[0]",
                decls: &[("input", "list(string)")],
                vars: r#"{"input": ["v"]}"#,
                want: Some(2),
                source: "rct select: array index",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input.single_int32",
                decls: &[("input", "map(string, int)")],
                vars: r#"{"input": {"single_int32": 1}}"#,
                want: Some(2),
                source: "rct select: field (map in place of the proto message)",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input['ke' + 'y']",
                decls: &[("input", "map(string, string)")],
                vars: r#"{"input": {"key": "v"}}"#,
                want: Some(3),
                source: "rct expr select: map",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input[3-3]",
                decls: &[("input", "list(string)")],
                vars: r#"{"input": ["v"]}"#,
                want: Some(3),
                source: "rct expr select: array index",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "has(input.testAttr.nestedAttr)",
                decls: &[("input", "map(string, map(string, int))")],
                vars: r#"{"input": {"testAttr": {"nestedAttr": 1}}}"#,
                want: Some(3),
                source: "rct select: non-proto field test has() cost",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "has(input.testAttr.nestedAttr)",
                decls: &[("input", "map(string, map(string, int))")],
                vars: r#"{"input": {"testAttr": {"nestedAttr": 1}}}"#,
                presence_test_cost: false,
                want: Some(2),
                source: "rct select: non-proto field test no has() cost",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "has(input.single_int32)",
                decls: &[("input", "map(string, int)")],
                vars: r#"{"input": {"single_int32": 1}}"#,
                presence_test_cost: false,
                want: Some(1),
                source: "rct select: field test only no has() cost",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "has(input.single_int32)",
                decls: &[("input", "map(string, int)")],
                vars: r#"{"input": {"single_int32": 1}}"#,
                want: Some(2),
                source: "rct select: field test only",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "[1, 2, 3]",
                want: Some(10),
                source: "rct create list",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: r#"{"a": 1, "b": 2, "c": 3}"#,
                want: Some(30),
                source: "rct create map",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input.all(x, true)",
                decls: &[("input", "list(map(string, int))")],
                vars: r#"{"input": []}"#,
                want: Some(2),
                source: "rct all comprehension",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input.all(x, x.all(y, true))",
                decls: &[("input", "list(list(int))")],
                vars: r#"{"input": []}"#,
                want: Some(2),
                source: "rct nested all comprehension",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "[1, 2, 3].all(x, true)",
                want: Some(20),
                source: "rct all comprehension on literal",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input.matches('[0-9]')",
                decls: &[("input", "string")],
                want: Some(103),
                source: "rct variable cost function",
                ..CEL
            },
            vec![("input", long())],
        ),
        (
            Case {
                expr: "'123'.matches('[0-9]')",
                want: Some(2),
                source: "rct variable cost function with constant",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "false || false",
                want: Some(0),
                source: "rct or",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "true || false",
                want: Some(0),
                source: "rct or short-circuit",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "a || b || c || d",
                decls: &[("a", "bool"), ("b", "bool"), ("c", "bool"), ("d", "bool")],
                vars: r#"{"a": false, "b": false, "c": false, "d": false}"#,
                want: Some(4),
                source: "rct or accumulated branch cost",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "true && false",
                want: Some(0),
                source: "rct and",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "false && true",
                want: Some(0),
                source: "rct and short-circuit",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "a && b && c && d",
                decls: &[("a", "bool"), ("b", "bool"), ("c", "bool"), ("d", "bool")],
                vars: r#"{"a": true, "b": true, "c": true, "d": true}"#,
                want: Some(4),
                source: "rct and accumulated branch cost",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "1 < 2",
                want: Some(1),
                source: "rct lt",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "1 <= 2",
                want: Some(1),
                source: "rct lte",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "1 == 2",
                want: Some(1),
                source: "rct eq",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "2 > 1",
                want: Some(1),
                source: "rct gt",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "2 >= 1",
                want: Some(1),
                source: "rct gte",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "2 in [1, 2, 3]",
                want: Some(13),
                source: "rct in",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "1 + 1",
                want: Some(1),
                source: "rct plus",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "1 - 1",
                want: Some(1),
                source: "rct minus",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "1 / 1",
                want: Some(1),
                source: "rct /",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "1 * 1",
                want: Some(1),
                source: "rct *",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "1 % 1",
                want: Some(1),
                source: "rct %",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "true ? 1 : 2",
                want: Some(0),
                source: "rct ternary",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: r#"size("123")"#,
                want: Some(1),
                source: "rct string size",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "'12345678901234567890' == '123456789012345678901234567890'",
                want: Some(2),
                source: "rct str eq str",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "string(input)",
                decls: &[("input", "bytes")],
                want: Some(51),
                source: "rct bytes to string conversion",
                ..CEL
            },
            vec![("input", Value::Bytes(s500().into_bytes().into()))],
        ),
        (
            Case {
                expr: "bytes(input)",
                decls: &[("input", "string")],
                want: Some(51),
                source: "rct string to bytes conversion",
                ..CEL
            },
            vec![("input", long())],
        ),
        (
            Case {
                expr: "string(1)",
                want: Some(1),
                source: "rct int to string conversion",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input.contains(arg1)",
                decls: &[("input", "string"), ("arg1", "string")],
                want: Some(2502),
                source: "rct contains",
                ..CEL
            },
            vec![("input", long()), ("arg1", long())],
        ),
        (
            Case {
                expr: r"input.matches('\\d+a\\d+b')",
                decls: &[("input", "string")],
                want: Some(103),
                source: "rct matches",
                ..CEL
            },
            vec![("input", long())],
        ),
        (
            Case {
                expr: "input.startsWith(arg1)",
                decls: &[("input", "string"), ("arg1", "string")],
                vars: r#"{"input": "idc"}"#,
                want: Some(3),
                source: "rct startsWith",
                ..CEL
            },
            vec![("arg1", long())],
        ),
        (
            Case {
                expr: "input.endsWith(arg1)",
                decls: &[("input", "string"), ("arg1", "string")],
                vars: r#"{"input": "idc"}"#,
                want: Some(3),
                source: "rct endsWith",
                ..CEL
            },
            vec![("arg1", long())],
        ),
        (
            Case {
                expr: "input.size()",
                decls: &[("input", "string")],
                vars: r#"{"input": "500"}"#,
                want: Some(2),
                source: "rct size receiver",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "size(input)",
                decls: &[("input", "string")],
                vars: r#"{"input": "500"}"#,
                want: Some(2),
                source: "rct size",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "(x > 2 ? input1 : input2).all(y, true)",
                decls: &[
                    ("x", "int"),
                    ("input1", "list(map(string, int))"),
                    ("input2", "list(map(string, int))"),
                ],
                vars: r#"{"x": 1, "input1": [{}], "input2": [{}]}"#,
                want: Some(6),
                source: "rct ternary eval",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "true ? false : 1 > 3",
                want: Some(0),
                source: "rct ternary eval trivial, true",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "false ? false : 1 > 3",
                want: Some(1),
                source: "rct ternary eval trivial, false",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input.all(k, input[k].single_int32 > 3)",
                decls: &[("input", "map(string, map(string, int))")],
                vars: r#"{"input": {"val": {"single_int32": 0}}}"#,
                want: Some(9),
                source: "rct comprehension over map",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input.all(k, input[k].all(x, true))",
                decls: &[("input", "map(string, map(string, int))")],
                vars: r#"{"input": {}}"#,
                want: Some(2),
                source: "rct comprehension over nested map of maps",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input.all(k, k.contains(k))",
                decls: &[("input", "map(string, int)")],
                vars: r#"{"input": {}}"#,
                want: Some(2),
                source: "rct string size of map keys",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "input.all(k, input[k].all(k, true) && k.contains(k))",
                decls: &[("input", "map(string, map(string, int))")],
                vars: r#"{"input": {}}"#,
                want: Some(2),
                source: "rct comprehension variable shadowing",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "(list1 + list2).all(x, true)",
                decls: &[("list1", "list(int)"), ("list2", "list(int)")],
                vars: r#"{"list1": [], "list2": []}"#,
                want: Some(4),
                source: "rct list concat",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: r#""abcdefg".contains(str1 + str2)"#,
                decls: &[("str1", "string"), ("str2", "string")],
                vars: r#"{"str1": "val1", "str2": "val2222222"}"#,
                want: Some(6),
                source: "rct str concat",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: r#""abcdefg".contains(str1 + str2)"#,
                decls: &[("str1", "string"), ("str2", "string")],
                vars: r#"{"str1": "val1", "str2": "val2222222"}"#,
                limit: Some(6),
                want: Some(6),
                source: "rct at limit",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: r#""abcdefg".contains(str1 + str2)"#,
                decls: &[("str1", "string"), ("str2", "string")],
                vars: r#"{"str1": "val1", "str2": "val2222222"}"#,
                limit: Some(5),
                want: None,
                source: "rct above limit",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "(1 > 2 ? 5 : 3) > 1",
                want: Some(2),
                source: "rct ternary as operand",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "(1 > 2 || 2 > 1) == true",
                want: Some(3),
                source: "rct ternary as operand (logical)",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "[{'k1': 1}, {'k2': 2}].all(x, true)",
                want: Some(77),
                source: "rct list map literal",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "[1,2,3,4,5].filter(x, x % 2 == 0)",
                want: Some(62),
                source: "rct .filter list literal",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "[1,2,3,4,5].map(x, x)",
                want: Some(86),
                source: "rct .map list literal",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)",
                want: Some(138),
                source: "rct .map.filter list literal",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "[1,2,3,4,5].map(x, x).exists(x, x == 5) == true",
                want: Some(118),
                source: "rct .map.exists list literal",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "[1,2,3,4,5].map(x, x).map(x, x)",
                want: Some(162),
                source: "rct .map.map list literal",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "[1,2,3,4,5].map(x, [x, x]).filter(z, z.size() == 2)",
                want: Some(232),
                source: "rct .map.map list literal (filter)",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))",
                want: Some(171),
                source: "rct comprehension on nested list",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "[1,2,3,4,5].map(x, x).map(x, x) + [1]",
                want: Some(173),
                source: "rct comprehension size",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "[1,2,3].all(i, i in [1,2,3].map(j, j + j))",
                want: Some(86),
                source: "rct nested comprehension",
                ..CEL
            },
            none(),
        ),
        // Optimizer (Kubernetes' OptOptimize), SPEC §4.2 worked by hand.
        (
            Case {
                expr: "[1, 2, 3]",
                optimize: true,
                want: Some(0),
                source: "SPEC 4.2: constant list literal is pre-built",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "{'a': 1}",
                optimize: true,
                want: Some(0),
                source: "SPEC 4.2: constant map literal is pre-built",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "duration('1s')",
                optimize: true,
                want: Some(0),
                source: "SPEC 4.2: constant conversion folded",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "int('5') + 1",
                optimize: true,
                want: Some(1),
                source: "SPEC 4.2: constant conversion folded, + costs 1",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "x in ['a', 'b', 'c']",
                decls: &[("x", "string")],
                vars: r#"{"x": "b"}"#,
                optimize: true,
                want: Some(1),
                source: "SPEC 4.2: in over a constant list is a set lookup (ident 1)",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "x in ['a', 'b', 'c']",
                decls: &[("x", "string")],
                vars: r#"{"x": "b"}"#,
                want: Some(14),
                source: "SPEC 4.2 unoptimized: ident 1 + list 10 + in_list size 3",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "[x, 1]",
                decls: &[("x", "int")],
                vars: r#"{"x": 1}"#,
                optimize: true,
                want: Some(11),
                source: "SPEC 4.2: a literal with a variable element is not pre-built",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "self.a.b",
                decls: &[("self", "dyn")],
                vars: r#"{"self": {"a": {"b": 1}}}"#,
                optimize: true,
                want: Some(3),
                source: "SPEC 4.2: self.a.b = 3",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "has(self.a)",
                decls: &[("self", "dyn")],
                vars: r#"{"self": {"a": 1}}"#,
                optimize: true,
                presence_test_cost: false,
                want: Some(1),
                source: "SPEC 4.2: has() costs 0 in Kubernetes (ident 1)",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "'abc' + 'def'",
                optimize: true,
                want: Some(1),
                source: "SPEC 4.2: string + is ceil((3+3)*0.1)",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "x + x",
                decls: &[("x", "string")],
                want: Some(102),
                source: "SPEC 4.2: 2 idents + ceil((500+500)*0.1)",
                ..CEL
            },
            vec![("x", long())],
        ),
        (
            Case {
                expr: "x < 'b'",
                decls: &[("x", "string")],
                want: Some(2),
                source: "SPEC 4.2: ident + ceil(min(500,1)*0.1)",
                ..CEL
            },
            vec![("x", long())],
        ),
        (
            Case {
                expr: "x == x",
                decls: &[("x", "list(int)")],
                vars: r#"{"x": [1,2,3,4,5,6,7,8,9,10,11]}"#,
                want: Some(4),
                source: "SPEC 4.2: 2 idents + ceil(min(11,11)*0.1)",
                ..CEL
            },
            none(),
        ),
        (
            Case {
                expr: "x.map(i, i * 2).all(j, j > 0)",
                decls: &[("x", "list(int)")],
                vars: r#"{"x": [1, 2]}"#,
                limit: Some(30),
                want: None,
                source: "cel-go tracker checks the limit after every step",
                ..CEL
            },
            none(),
        ),
    ]
}

#[test]
fn runtime_costs_match_the_references() {
    let mut failures = Vec::new();
    for (case, extra_vars) in cases() {
        let mut env = Env::new();
        for (name, ty) in case.decls {
            env.declare(*name, Type::parse(ty).expect("valid type"));
        }
        let ast = match env.compile(case.expr) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{}: compile error {e}", case.expr));
                continue;
            }
        };
        let json: serde_json::Value = serde_json::from_str(case.vars).expect("valid JSON");
        let mut vars: HashMap<String, Value> = json
            .as_object()
            .expect("object")
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v)))
            .collect();
        vars.extend(extra_vars.into_iter().map(|(k, v)| (k.to_string(), v)));
        // Each case also in reference mode (no evaluation shortcut): the same cost.
        for reference in [false, true] {
            let options = ProgramOptions::default()
                .with_optimize(case.optimize)
                .with_cost_limit(case.limit)
                .with_presence_test_cost(case.presence_test_cost)
                .with_interrupt(None)
                .with_reference(reference);
            let program = env.program_with(&ast, options).expect("plans");
            let (result, details) = program.eval_with_details(&vars);
            match (case.want, result) {
                (Some(want), Ok(_)) if details.actual_cost == want => {}
                (None, Err(e)) if *e.kind() == kcel::EvalErrorKind::CostLimitExceeded => {}
                (want, result) => failures.push(format!(
                    "{} [{}]{}: want {:?}, got cost {} with {:?}",
                    case.expr,
                    case.source,
                    if reference { " in reference mode" } else { "" },
                    want,
                    details.actual_cost,
                    result
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
