//! The static cost estimate suite. Every expected range comes from cel-go's
//! `checker/cost_test.go` (abbreviated `ct`; cases over proto messages use a map type with
//! the same selection cost), or from SPEC.md §4.3 worked by hand. Hints give the maximum
//! size of a path, as cel-go's test estimator does.

use kcel::library::{AstNode, CostEstimate, SizeEstimate, SizeEstimator};
use kcel::{Env, Type};

struct Hints(&'static [(&'static str, u64)]);

impl SizeEstimator for Hints {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        let path = node.path.join(".");
        self.0
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, max)| SizeEstimate { min: 0, max: *max })
    }
}

struct Case {
    expr: &'static str,
    decls: &'static [(&'static str, &'static str)],
    hints: &'static [(&'static str, u64)],
    presence_test_cost: bool,
    want: (u64, u64),
    source: &'static str,
}

const CT: Case = Case {
    expr: "",
    decls: &[],
    hints: &[],
    presence_test_cost: true,
    want: (0, 0),
    source: "",
};

const MAX: u64 = u64::MAX;

fn cases() -> Vec<Case> {
    vec![
        Case {
            expr: r#""Hello World!""#,
            want: (0, 0),
            source: "ct const",
            ..CT
        },
        Case {
            expr: "input",
            decls: &[("input", "list(int)")],
            want: (1, 1),
            source: "ct identity",
            ..CT
        },
        Case {
            expr: "input['key']",
            decls: &[("input", "map(string, string)")],
            want: (2, 2),
            source: "ct select: map",
            ..CT
        },
        Case {
            expr: "input.single_int32",
            decls: &[("input", "map(string, int)")],
            want: (2, 2),
            source: "ct select: field",
            ..CT
        },
        Case {
            expr: "has(input.single_int32)",
            decls: &[("input", "map(string, int)")],
            presence_test_cost: false,
            want: (1, 1),
            source: "ct select: field test only no has() cost",
            ..CT
        },
        Case {
            expr: "has(input.single_int32)",
            decls: &[("input", "map(string, int)")],
            want: (2, 2),
            source: "ct select: field test only",
            ..CT
        },
        Case {
            expr: "has(input.testAttr.nestedAttr)",
            decls: &[("input", "map(string, map(string, int))")],
            want: (3, 3),
            source: "ct select: non-proto field test has() cost",
            ..CT
        },
        Case {
            expr: "has(input.testAttr.nestedAttr)",
            decls: &[("input", "map(string, map(string, int))")],
            presence_test_cost: false,
            want: (2, 2),
            source: "ct select: non-proto field test no has() cost",
            ..CT
        },
        Case {
            expr: "[1, 2, 3]",
            want: (10, 10),
            source: "ct create list",
            ..CT
        },
        Case {
            expr: r#"{"a": 1, "b": 2, "c": 3}"#,
            want: (30, 30),
            source: "ct create map",
            ..CT
        },
        Case {
            expr: "input.all(x, true)",
            decls: &[("input", "list(map(string, int))")],
            hints: &[("input", 100)],
            want: (2, 302),
            source: "ct all comprehension",
            ..CT
        },
        Case {
            expr: "input.all(x, x.all(y, true))",
            decls: &[("input", "list(list(int))")],
            hints: &[("input", 50), ("input.@items", 10)],
            want: (2, 1752),
            source: "ct nested all comprehension",
            ..CT
        },
        Case {
            expr: "[1, 2, 3].all(x, true)",
            want: (20, 20),
            source: "ct all comprehension on literal",
            ..CT
        },
        Case {
            expr: "input.matches('[0-9]')",
            decls: &[("input", "string")],
            hints: &[("input", 500)],
            want: (3, 103),
            source: "ct variable cost function",
            ..CT
        },
        Case {
            expr: "'123'.matches('[0-9]')",
            want: (2, 2),
            source: "ct variable cost function with constant",
            ..CT
        },
        Case {
            expr: "true || false",
            want: (0, 0),
            source: "ct or",
            ..CT
        },
        Case {
            expr: "a || b || c || d",
            decls: &[("a", "bool"), ("b", "bool"), ("c", "bool"), ("d", "bool")],
            want: (1, 4),
            source: "ct or accumulated branch cost",
            ..CT
        },
        Case {
            expr: "true && false",
            want: (0, 0),
            source: "ct and",
            ..CT
        },
        Case {
            expr: "a && b && c && d",
            decls: &[("a", "bool"), ("b", "bool"), ("c", "bool"), ("d", "bool")],
            want: (1, 4),
            source: "ct and accumulated branch cost",
            ..CT
        },
        Case {
            expr: "1 < 2",
            want: (1, 1),
            source: "ct lt",
            ..CT
        },
        Case {
            expr: "1 <= 2",
            want: (1, 1),
            source: "ct lte",
            ..CT
        },
        Case {
            expr: "1 == 2",
            want: (1, 1),
            source: "ct eq",
            ..CT
        },
        Case {
            expr: "2 > 1",
            want: (1, 1),
            source: "ct gt",
            ..CT
        },
        Case {
            expr: "2 >= 1",
            want: (1, 1),
            source: "ct gte",
            ..CT
        },
        Case {
            expr: "2 in [1, 2, 3]",
            want: (13, 13),
            source: "ct in",
            ..CT
        },
        Case {
            expr: "1 + 1",
            want: (1, 1),
            source: "ct plus",
            ..CT
        },
        Case {
            expr: "1 - 1",
            want: (1, 1),
            source: "ct minus",
            ..CT
        },
        Case {
            expr: "1 / 1",
            want: (1, 1),
            source: "ct /",
            ..CT
        },
        Case {
            expr: "1 * 1",
            want: (1, 1),
            source: "ct *",
            ..CT
        },
        Case {
            expr: "1 % 1",
            want: (1, 1),
            source: "ct %",
            ..CT
        },
        Case {
            expr: "true ? 1 : 2",
            want: (0, 0),
            source: "ct ternary",
            ..CT
        },
        Case {
            expr: r#"size("123")"#,
            want: (1, 1),
            source: "ct string size",
            ..CT
        },
        Case {
            expr: r#"size(b"123")"#,
            want: (1, 1),
            source: "ct bytes size",
            ..CT
        },
        Case {
            expr: "string(input)",
            decls: &[("input", "bytes")],
            hints: &[("input", 500)],
            want: (1, 51),
            source: "ct bytes to string conversion",
            ..CT
        },
        Case {
            expr: "string(input) == string(input)",
            decls: &[("input", "bytes")],
            hints: &[("input", 500)],
            want: (3, 152),
            source: "ct bytes to string conversion equality",
            ..CT
        },
        Case {
            expr: "bytes(input)",
            decls: &[("input", "string")],
            hints: &[("input", 500)],
            want: (1, 51),
            source: "ct string to bytes conversion",
            ..CT
        },
        Case {
            expr: "bytes(input) == bytes(input)",
            decls: &[("input", "string")],
            hints: &[("input", 500)],
            want: (3, 302),
            source: "ct string to bytes conversion equality",
            ..CT
        },
        Case {
            expr: "string(1)",
            want: (1, 1),
            source: "ct int to string conversion",
            ..CT
        },
        Case {
            expr: "input.contains(arg1)",
            decls: &[("input", "string"), ("arg1", "string")],
            hints: &[("input", 500), ("arg1", 500)],
            want: (2, 2502),
            source: "ct contains",
            ..CT
        },
        Case {
            expr: r"input.matches('\\d+a\\d+b')",
            decls: &[("input", "string")],
            hints: &[("input", 500)],
            want: (3, 103),
            source: "ct matches",
            ..CT
        },
        Case {
            expr: "input.startsWith(arg1)",
            decls: &[("input", "string"), ("arg1", "string")],
            hints: &[("arg1", 500)],
            want: (2, 52),
            source: "ct startsWith",
            ..CT
        },
        Case {
            expr: "input.endsWith(arg1)",
            decls: &[("input", "string"), ("arg1", "string")],
            hints: &[("arg1", 500)],
            want: (2, 52),
            source: "ct endsWith",
            ..CT
        },
        Case {
            expr: "input.size()",
            decls: &[("input", "string")],
            want: (2, 2),
            source: "ct size receiver",
            ..CT
        },
        Case {
            expr: "size(input)",
            decls: &[("input", "string")],
            want: (2, 2),
            source: "ct size",
            ..CT
        },
        Case {
            expr: "(x > 2 ? input1 : input2).all(y, true)",
            decls: &[
                ("x", "int"),
                ("input1", "list(map(string, int))"),
                ("input2", "list(map(string, int))"),
            ],
            hints: &[("input1", 1), ("input2", 1)],
            want: (4, 7),
            source: "ct ternary eval",
            ..CT
        },
        Case {
            expr: "input.all(k, input[k].single_int32 > 3)",
            decls: &[("input", "map(string, map(string, int))")],
            hints: &[("input", 10)],
            want: (2, 82),
            source: "ct comprehension over map",
            ..CT
        },
        Case {
            expr: "input.all(k, input[k].all(x, true))",
            decls: &[("input", "map(string, map(string, int))")],
            hints: &[("input", 5), ("input.@values", 10)],
            want: (2, 187),
            source: "ct comprehension over nested map of maps",
            ..CT
        },
        Case {
            expr: "input.all(k, k.contains(k))",
            decls: &[("input", "map(string, map(string, int))")],
            hints: &[("input", 5), ("input.@keys", 10)],
            want: (2, 32),
            source: "ct string size of map keys",
            ..CT
        },
        Case {
            expr: "input.all(k, input[k].all(k, true) && k.contains(k))",
            decls: &[("input", "map(string, map(string, int))")],
            hints: &[("input", 2), ("input.@values", 2), ("input.@keys", 5)],
            want: (2, 34),
            source: "ct comprehension variable shadowing",
            ..CT
        },
        Case {
            expr: "(list1 + list2).all(x, true)",
            decls: &[("list1", "list(int)"), ("list2", "list(int)")],
            hints: &[("list1", 10), ("list2", 10)],
            want: (4, 64),
            source: "ct list concat",
            ..CT
        },
        Case {
            expr: r#""abcdefg".contains(str1 + str2)"#,
            decls: &[("str1", "string"), ("str2", "string")],
            hints: &[("str1", 10), ("str2", 10)],
            want: (2, 6),
            source: "ct str concat",
            ..CT
        },
        Case {
            expr: "list1.size() == list2.size()",
            decls: &[("list1", "list(int)"), ("list2", "list(int)")],
            want: (5, 5),
            source: "ct list size comparison",
            ..CT
        },
        Case {
            expr: "x > y ? list1.size() : list2.size()",
            decls: &[
                ("x", "int"),
                ("y", "int"),
                ("list1", "list(int)"),
                ("list2", "list(int)"),
            ],
            want: (5, 5),
            source: "ct list size from ternary",
            ..CT
        },
        Case {
            expr: "([x, y] + list1 + list2).size()",
            decls: &[
                ("x", "int"),
                ("y", "int"),
                ("list1", "list(int)"),
                ("list2", "list(int)"),
            ],
            hints: &[("list1", 10), ("list2", 20)],
            want: (17, 17),
            source: "ct list size from concat",
            ..CT
        },
        Case {
            expr: "[list1, list2].exists(l, l.exists(v, v.startsWith('hi')))",
            decls: &[("list1", "list(string)"), ("list2", "list(string)")],
            hints: &[
                ("list1", 10),
                ("list1.@items", 64),
                ("list2", 20),
                ("list2.@items", 128),
            ],
            want: (21, 265),
            source: "ct list cost tracking through comprehension",
            ..CT
        },
        Case {
            expr: r#"str1.endsWith("abcdefghijklmnopqrstuvwxyz") == str2.endsWith("abcdefghijklmnopqrstuvwxyz")"#,
            decls: &[("str1", "string"), ("str2", "string")],
            want: (9, 9),
            source: "ct str endsWith equality",
            ..CT
        },
        Case {
            expr: "((5 != 6) == (1 == 2)) == ((3 <= 4) == (9 != 9))",
            want: (7, 7),
            source: "ct nested subexpression operators",
            ..CT
        },
        Case {
            expr: "string(timestamp1) == string(timestamp2)",
            decls: &[("timestamp1", "timestamp"), ("timestamp2", "timestamp")],
            want: (5, 1844674407370955268),
            source: "ct str size estimate",
            ..CT
        },
        Case {
            expr: "timestamp1 == timestamp2",
            decls: &[("timestamp1", "timestamp"), ("timestamp2", "timestamp")],
            want: (3, 3),
            source: "ct timestamp equality check",
            ..CT
        },
        Case {
            expr: "duration1 != duration2",
            decls: &[("duration1", "duration"), ("duration2", "duration")],
            want: (3, 3),
            source: "ct duration inequality check",
            ..CT
        },
        Case {
            expr: "[1,2,3,4,5].filter(x, x % 2 == 0)",
            want: (41, 101),
            source: "ct .filter list literal",
            ..CT
        },
        Case {
            expr: "[1,2,3,4,5].map(x, x)",
            want: (86, 86),
            source: "ct .map list literal",
            ..CT
        },
        Case {
            expr: "[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)",
            want: (117, 177),
            source: "ct .map.filter list literal",
            ..CT
        },
        Case {
            expr: "[1,2,3,4,5].map(x, x).exists(x, x == 5) == true",
            want: (108, 118),
            source: "ct .map.exists list literal",
            ..CT
        },
        Case {
            expr: "[1,2,3,4,5].map(x, x).map(x, x)",
            want: (162, 162),
            source: "ct .map.map list literal",
            ..CT
        },
        Case {
            expr: "[1,2,3,4,5].map(x, x)[4]",
            want: (87, 87),
            source: "ct .map list literal selection",
            ..CT
        },
        Case {
            expr: "[[1,2],[1,2],[1,2],[1,2],[1,2]][4]",
            want: (61, 61),
            source: "ct nested array selection",
            ..CT
        },
        Case {
            expr: "{'a': [1,2], 'b': [1,2], 'c': [1,2], 'd': [1,2], 'e': [1,2]}.b",
            want: (81, 81),
            source: "ct nested map selection",
            ..CT
        },
        Case {
            expr: "[[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]].all(y, y.all(y, y == 1))",
            want: (76, 136),
            source: "ct comprehension on nested list",
            ..CT
        },
        Case {
            expr: "[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))",
            want: (157, 217),
            source: "ct comprehension on transformed nested list",
            ..CT
        },
        Case {
            expr: r#"["a", "ab", "abc", "abcd", "abcde"].map(x, [x, x]).all(y, y.all(y, y.startsWith('a')))"#,
            want: (157, 217),
            source: "ct comprehension on nested literal list",
            ..CT
        },
        Case {
            expr: "input.map(x, [x, x]).all(y, y.all(y, y.startsWith('a')))",
            decls: &[("input", "list(string)")],
            hints: &[("input", 5), ("input.@items", 10)],
            want: (13, 208),
            source: "ct comprehension on nested variable list",
            ..CT
        },
        Case {
            expr: "[1,2,3,4,5].map(x, x).map(x, x) + [1]",
            want: (173, 173),
            source: "ct comprehension chaining with concat",
            ..CT
        },
        Case {
            expr: "[1,2,3].all(i, i in [1,2,3].map(j, j + j))",
            want: (20, 230),
            source: "ct nested comprehension",
            ..CT
        },
        Case {
            expr: "dyn([1,2,3]).all(i, i in dyn([1,2,3]).map(j, j + j))",
            want: (21, 234),
            source: "ct nested dyn comprehension",
            ..CT
        },
        Case {
            expr: "{'hello': 'hi'}['hello'] != {'hello': 'bye'}['hello']",
            want: (63, 63),
            source: "ct literal map access",
            ..CT
        },
        Case {
            expr: "['hello', 'hi'][0] != ['hello', 'bye'][1]",
            want: (23, 23),
            source: "ct literal list access",
            ..CT
        },
        Case {
            expr: "type(1)",
            want: (1, 1),
            source: "ct type call",
            ..CT
        },
        Case {
            expr: "type(self.val1)",
            decls: &[("self", "map(string, int)")],
            want: (3, 3),
            source: "ct type call variable",
            ..CT
        },
        Case {
            expr: "type(self.val1) == int",
            decls: &[("self", "map(string, int)")],
            want: (5, 1844674407370955268),
            source: "ct type call variable equality",
            ..CT
        },
        Case {
            expr: "type(1) == int",
            want: (3, 1844674407370955266),
            source: "ct type literal equality cost",
            ..CT
        },
        Case {
            expr: "self.val1 == 1.0",
            decls: &[("self.val1", "double")],
            want: (2, 2),
            source: "ct namespace variable equality",
            ..CT
        },
        Case {
            expr: "self.val1 == 1.0",
            decls: &[("self", "map(string, double)")],
            want: (3, 3),
            source: "ct simple map variable equality",
            ..CT
        },
        Case {
            expr: "self.val1 == timestamp('2011-08-18T00:00:00.000+01:00') + duration('19h3m37s10ms')",
            decls: &[("self", "map(string, timestamp)")],
            want: (6, 6),
            source: "ct date-time math",
            ..CT
        },
        Case {
            expr: "timestamp(self.val1) == timestamp('2011-08-18T00:00:00.000+01:00') + duration('19h3m37s10ms')",
            decls: &[("self", "map(string, timestamp)")],
            want: (7, 7),
            source: "ct date-time math self-conversion",
            ..CT
        },
        Case {
            expr: "self.val1 != self.val2",
            decls: &[("self", "map(string, bool)")],
            want: (5, 5),
            source: "ct boolean vars equal",
            ..CT
        },
        Case {
            expr: "self.val1 != true",
            decls: &[("self", "map(string, bool)")],
            want: (3, 3),
            source: "ct boolean var equals literal",
            ..CT
        },
        Case {
            expr: "self.val1 == 1.0",
            decls: &[("self", "map(string, double)")],
            want: (3, 3),
            source: "ct double var equals literal",
            ..CT
        },
        // SPEC §4.3 worked by hand.
        Case {
            expr: "x",
            decls: &[("x", "string")],
            want: (1, 1),
            source: "SPEC 4.3: ident 1",
            ..CT
        },
        Case {
            expr: "x == 'abc'",
            decls: &[("x", "string")],
            hints: &[("x", 100)],
            want: (2, 2),
            source: "SPEC 4.3: ident 1 + [1 (min>0), ceil(min(100,3)*0.1)=1]",
            ..CT
        },
        Case {
            expr: "x == y",
            decls: &[("x", "string"), ("y", "string")],
            hints: &[("x", 100), ("y", 40)],
            want: (3, 6),
            source: "SPEC 4.3 / ct functionCost: 2 idents + [1 (smallest max 40 > 0), ceil(40*0.1)]",
            ..CT
        },
        Case {
            expr: "dyn(x)",
            decls: &[("x", "int")],
            want: (2, 2),
            source: "SPEC 4.3: dyn(x) = 1 + cost(x)",
            ..CT
        },
        Case {
            expr: "l.exists(e, e > 0)",
            decls: &[("l", "list(int)")],
            hints: &[("l", 10)],
            want: (2, 62),
            source: "SPEC 4.3: range 1 + result 1 + 10 x (cond 2 + step 1+1+1)",
            ..CT
        },
        Case {
            expr: "has(m.a) && m.a > 0",
            decls: &[("m", "map(string, int)")],
            presence_test_cost: false,
            want: (1, 4),
            source: "SPEC 4.3: has 0 + ident 1; && max adds rhs 3",
            ..CT
        },
        Case {
            expr: "x.size() < 10",
            decls: &[("x", "list(int)")],
            want: (3, 3),
            source: "SPEC 4.3: ident + size + <",
            ..CT
        },
        Case {
            expr: "x + y",
            decls: &[("x", "list(int)"), ("y", "list(int)")],
            want: (3, 3),
            source: "SPEC 4.3: list + costs 1",
            ..CT
        },
        Case {
            expr: "x + y",
            decls: &[("x", "string"), ("y", "string")],
            hints: &[("x", 10), ("y", 20)],
            want: (2, 5),
            source: "SPEC 4.3: string + is ceil((S1+S2)*0.1) over size ranges",
            ..CT
        },
        Case {
            expr: "x",
            decls: &[("x", "string")],
            hints: &[("x", MAX)],
            want: (1, 1),
            source: "SPEC 4.3: an ident costs 1 whatever its size",
            ..CT
        },
    ]
}

#[test]
fn estimates_match_the_references() {
    let mut failures = Vec::new();
    for case in cases() {
        let mut env = Env::new();
        env.set_presence_test_cost(case.presence_test_cost);
        for (name, ty) in case.decls {
            env.declare(*name, Type::parse(ty).expect("valid type"));
        }
        let ast = match env.compile(case.expr) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{}: {e}", case.expr));
                continue;
            }
        };
        let got = env
            .estimate_cost(&ast, &Hints(case.hints))
            .unwrap_or_default();
        let want = CostEstimate {
            min: case.want.0,
            max: case.want.1,
        };
        if got != want {
            failures.push(format!(
                "{} [{}]: want [{}, {}], got [{}, {}]",
                case.expr, case.source, want.min, want.max, got.min, got.max
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
