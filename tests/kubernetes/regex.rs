//! `kubernetes.regex`.

use super::support::*;

fn cases() -> Vec<Case> {
    vec![
        v("'abc 123'.find('[0-9]+')", "'123'", "spec"),
        v("'abc 123'.find('xyz')", "''", "spec"),
        v("'abc 123 def 456'.find('[0-9]+')", "'123'", "go: leftmost"),
        v(
            "'abc 123'.find('[0-9]*')",
            "''",
            "go: leftmost match is empty at 0 (the upstream doc comment says '123')",
        ),
        v("'aaa'.find('a*?')", "''", "go: non-greedy"),
        v("'héllo'.find('é.')", "'él'", "go: code points"),
        v("'Hello'.find('(?i)h')", "'H'", "go: flags"),
        v("'123 abc 456'.findAll('[0-9]+')", "['123', '456']", "spec"),
        v("'123 abc 456'.findAll('[0-9]+', 1)", "['123']", "spec"),
        v("'123 abc 456'.findAll('[0-9]+', 0)", "[]", "spec: n = 0"),
        v(
            "'123 abc 456'.findAll('[0-9]+', -1)",
            "['123', '456']",
            "spec: n < 0",
        ),
        v("'123 abc 456'.findAll('xyz')", "[]", "spec"),
        v(
            "'123 abc 456'.findAll('[0-9]*')",
            "['123', '', '', '', '', '456']",
            "go: FindAllString drops only empty matches abutting a match",
        ),
        v("'abc'.findAll('')", "['', '', '', '']", "go: empty pattern"),
        v("'baaab'.findAll('a*')", "['', 'aaa', '']", "go"),
        v(
            "'aaaa'.findAll('aa')",
            "['aa', 'aa']",
            "go: non-overlapping",
        ),
        v("'a1b2c3'.findAll('[a-z][0-9]', 2)", "['a1', 'b2']", "spec"),
        e(
            "'abc'.find('(' + '')",
            "Illegal regex: error parsing regexp: missing closing ): `(`",
            "spec: non-constant pattern",
        ),
        e(
            "'abc'.findAll('[a-' + '')",
            "Illegal regex: error parsing regexp: missing closing ]: `[a-`",
            "spec",
        ),
        Case {
            expr: "'abc'.find(')')",
            want: Want::Program("error parsing regexp: unexpected ): `)`"),
            ..T
        },
        Case {
            expr: "'abc'.findAll('(', 2)",
            want: Want::Program("error parsing regexp: missing closing ): `(`"),
            ..T
        },
        // Costs: ⌈(1 + S) × 0.1⌉ × ⌈P × 0.25⌉.
        ct(
            "'abc 123 def 123'.find('123')",
            (2, 2),
            2,
            "ct:TestStringLibrary/find",
        ),
        ct(
            "'abc 123 def 123'.findAll('123')",
            (2, 2),
            2,
            "ct:TestStringLibrary/findAll",
        ),
        ct(
            "'abc 123 def 123'.findAll('123', 1)",
            (2, 2),
            2,
            "ct:TestStringLibrary/findAll with limit",
        ),
        sc("'x'.find('0123456789abcdef')", (4, 4), 4),
        sc("'01234567890123456789'.findAll('[0-9]+[a-z]+')", (9, 9), 9),
    ]
}

#[test]
fn regex() {
    run("kubernetes.regex", &cases(), 20);
}
