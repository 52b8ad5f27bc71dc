//! Kubernetes' costs for the `ext.Strings` functions (priced by name in `library/cost.go`)
//! and `kubernetes.jsonpatch`, with cel-go's `ext.Strings` version 2 as Kubernetes enables it.

use kcel_stdlib::kubernetes::{self, costs};

use super::support::*;

/// cel-go's `ext.Strings` at the version Kubernetes enables, with Kubernetes' runtime costs.
fn strings_v2() -> kcel::library::Library {
    let mut lib = kcel_stdlib::ext::strings(2);
    costs::apply_runtime_costs(&mut lib);
    lib
}

fn cases() -> Vec<Case> {
    vec![
        ct(
            "'ABCDEFGHIJ abcdefghij'.lowerAscii()",
            (3, 3),
            3,
            "ct:TestStringLibrary/lowerAscii",
        ),
        ct(
            "'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()",
            (7, 9),
            9,
            "ct:TestStringLibrary/lowerAsciiEquals",
        ),
        ct(
            "'ABCDEFGHIJ abcdefghij'.upperAscii()",
            (3, 3),
            3,
            "ct:TestStringLibrary/upperAscii",
        ),
        ct(
            "'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()",
            (7, 9),
            9,
            "ct:TestStringLibrary/upperAsciiEquals",
        ),
        ct(
            "strings.quote('ABCDEFGHIJ abcdefghij')",
            (3, 3),
            3,
            "ct:TestStringLibrary/quote",
        ),
        ct(
            "strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')",
            (7, 11),
            9,
            "ct:TestStringLibrary/quoteEquals",
        ),
        ct(
            "'abc 123 def 123'.replace('123', '456')",
            (3, 3),
            3,
            "ct:TestStringLibrary/replace",
        ),
        ct(
            "'abc 123 def 123'.replace('', 'x')",
            (3, 3),
            3,
            "ct:TestStringLibrary/replace between all chars",
        ),
        ct(
            "'abc 123 def 123'.replace('123', '')",
            (3, 3),
            3,
            "ct:TestStringLibrary/replace with empty",
        ),
        ct(
            "'abc 123 def 123'.replace('123', '456', 1)",
            (3, 3),
            3,
            "ct:TestStringLibrary/replace with limit",
        ),
        ct(
            "'abc 123 def 123'.split(' ')",
            (3, 3),
            3,
            "ct:TestStringLibrary/split",
        ),
        ct(
            "'abc 123 def 123'.split(' ', 1)",
            (3, 3),
            3,
            "ct:TestStringLibrary/split with limit",
        ),
        ct(
            "'abc 123 def 123'.substring(5)",
            (2, 2),
            2,
            "ct:TestStringLibrary/substring",
        ),
        ct(
            "'abc 123 def 123'.substring(5, 8)",
            (2, 2),
            2,
            "ct:TestStringLibrary/substring with end",
        ),
        ct(
            "'  abc 123 def 123  '.trim()",
            (2, 2),
            2,
            "ct:TestStringLibrary/trim",
        ),
        ct(
            "['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')",
            (11, 23),
            15,
            "ct:TestStringLibrary/join with separator",
        ),
        ct(
            "['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()",
            (10, 22),
            13,
            "ct:TestStringLibrary/join",
        ),
        ct(
            "jsonpatch.escapeKey('abc/def~ abc/def~')",
            (2, 2),
            2,
            "ct:TestStringLibrary/jsonpatch.escapeKey",
        ),
        ct(
            "'01234567890123456789012345678901234567890123456789'.indexOf('123')",
            (5, 5),
            5,
            "ct:TestIndexOfCost/string receiver",
        ),
        v("jsonpatch.escapeKey('a/b~c')", "'a~1b~0c'", "spec §2.10"),
        // Sizes flow on: lowerAscii's result keeps the receiver's size for the comparison.
        sc("'abcdefghij'.lowerAscii() == 'x'", (2, 2), 2),
        sc("'012345678901234'.split('')", (3, 3), 3),
    ]
}

#[test]
fn strings_costs() {
    let mut env = env();
    env.add_library(&strings_v2());
    env.add_library(&kubernetes::jsonpatch());
    run_in(&env, "Kubernetes string costs", &cases(), 20);
}
