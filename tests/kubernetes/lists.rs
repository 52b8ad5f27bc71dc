//! `kubernetes.lists`.

use super::support::*;

fn cases() -> Vec<Case> {
    vec![
        // Values (spec §2.1).
        t("[1, 2, 3].isSorted()", "spec"),
        t("[1, 1, 2].isSorted()", "spec: equal neighbours"),
        t("![2, 1].isSorted()", "spec"),
        t("[].isSorted() && [1].isSorted()", "spec"),
        t("['a', 'b'].isSorted() && !['b', 'a'].isSorted()", "spec"),
        t("[timestamp(1), timestamp(2)].isSorted()", "spec"),
        v("[1, 2, 3, 4].sum()", "10", "spec"),
        v("[1u, 2u].sum()", "3u", "spec"),
        v("[1.5, 2.5].sum()", "4.0", "spec"),
        v(
            "[duration('1s'), duration('1m')].sum()",
            "duration('61s')",
            "spec",
        ),
        v("dyn([]).sum()", "0", "spec §9.2: typed zero (int for dyn)"),
        v("[0.0].sum()", "0.0", "spec"),
        e("[9223372036854775807, 1].sum()", "integer overflow", "spec"),
        v("[3, 1, 2].min()", "1", "spec"),
        v("[3, 1, 2].max()", "3", "spec"),
        v("['b', 'c', 'a'].max()", "'c'", "spec"),
        v("[b'b', b'a'].min()", "b'a'", "spec"),
        v("[true, false].min()", "false", "spec"),
        e("[].min()", "min called on empty list", "spec §9.2"),
        e("[].max()", "max called on empty list", "spec §9.2"),
        e(
            "dyn([1, 'a']).min()",
            "no such overload",
            "spec: mixed types via dyn",
        ),
        v("[1, 2, 2, 3].indexOf(2)", "1", "spec"),
        v("[1, 2, 2, 3].lastIndexOf(2)", "2", "spec"),
        v("[1, 2].indexOf(5)", "-1", "spec"),
        v("[1.0, 2.0].indexOf(dyn(2))", "1", "spec: CEL equality"),
        v("[[1], [2]].lastIndexOf([2])", "1", "spec: any element type"),
        t("[1, 2, 3].includes(2)", "spec"),
        t("![1, 2, 3].includes(4)", "spec"),
        t("'a'.includes('a')", "spec: non-list receiver compares"),
        t("[1].includes(1.0)", "spec: CEL equality"),
        Case {
            expr: "[[1]].min()",
            want: Want::Compile("found no matching overload for 'min'"),
            ..T
        },
        // Costs: ct:TestListsCost (no optimizer, literal lists cost 10).
        ct(
            "[1, 2, 3, 4, 5].sum()",
            (15, 15),
            15,
            "ct:TestListsCost/int.sum",
        ),
        ct(
            "[uint(1), uint(2), uint(3), uint(4), uint(5)].sum()",
            (20, 20),
            20,
            "ct:TestListsCost/uint.sum",
        ),
        ct(
            "[1.0, 2.0, 3.0, 4.0, 5.0].sum()",
            (15, 15),
            15,
            "ct:TestListsCost/double.sum",
        ),
        ct(
            "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')].sum()",
            (20, 20),
            20,
            "ct:TestListsCost/duration.sum",
        ),
        ct(
            "[1, 2, 3, 4, 5].isSorted()",
            (15, 15),
            15,
            "ct:TestListsCost/int.isSorted",
        ),
        ct(
            "[false, true, false, true, false].max()",
            (15, 15),
            15,
            "ct:TestListsCost/bool.max",
        ),
        ct(
            "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901'].min()",
            (15, 25),
            15,
            "ct:TestListsCost/string.min",
        ),
        ct(
            "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901')].isSorted()",
            (25, 35),
            25,
            "ct:TestListsCost/bytes.isSorted",
        ),
        ct(
            "[timestamp('2011-01-01T00:00:00.000+01:00'), timestamp('2011-01-02T00:00:00.000+01:00'), timestamp('2011-01-03T00:00:00.000+01:00'), timestamp('2011-01-04T00:00:00.000+01:00'), timestamp('2011-01-05T00:00:00.000+01:00')].max()",
            (20, 20),
            20,
            "ct:TestListsCost/timestamp.max",
        ),
        // ct:TestIndexOfCost and ct:TestIncludesCost.
        ct(
            "[1, 2, 3, 4, 5].indexOf(3)",
            (15, 15),
            15,
            "ct:TestIndexOfCost/int",
        ),
        ct(
            "[uint(1), uint(2), uint(3), uint(4), uint(5)].lastIndexOf(uint(3))",
            (21, 21),
            21,
            "ct:TestIndexOfCost/uint",
        ),
        ct(
            "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901'].indexOf('x')",
            (15, 25),
            15,
            "ct:TestIndexOfCost/string",
        ),
        ct(
            "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')].indexOf(duration('3s'))",
            (21, 21),
            21,
            "ct:TestIndexOfCost/duration",
        ),
        ct(
            "[1, 2, 3, 4, 5].includes(3)",
            (15, 15),
            15,
            "ct:TestIncludesCost/int",
        ),
        ct(
            "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901')].includes(bytes('x'))",
            (26, 36),
            26,
            "ct:TestIncludesCost/bytes",
        ),
        ct(
            "'01234567890123456789012345678901234567890123456789'.includes('123')",
            (50, 50),
            5,
            "ct:TestIncludesCost/string",
        ),
        // With the optimizer (as Kubernetes runs), constant lists are free: only the traversal.
        sc("[1, 2, 3, 4, 5].sum()", (15, 15), 5),
        // Element sizes unknown: 10 + 2 × (1 + ⌈(2^64−1) × 0.1⌉) in f64 arithmetic.
        sc(
            "['012345678901', '012345678901'].max()",
            (12, 3689348814741910540),
            2,
        ),
        t("[1, 2, 3, 4, 5].max() == 5", "spec"),
    ]
}

#[test]
fn lists() {
    run("kubernetes.lists", &cases(), 40);
}
