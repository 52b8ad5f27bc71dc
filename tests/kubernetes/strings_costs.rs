//! Kubernetes' costs for the `ext.Strings` functions (priced by name in `library/cost.go`)
//! and `kubernetes.jsonpatch`. The string functions here are minimal stand-ins declared
//! with cel-go's overload ids (the real `ext.Strings` library lives elsewhere); only their
//! costs are under test.

use kcel::registry::{Implementation, Library};
use kcel::stdlib::kubernetes::{self, costs};
use kcel::{EvalError, Value};

use super::support::*;

fn s(v: &Value) -> Result<&str, EvalError> {
    match v {
        Value::String(s) => Ok(s),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn strings_stand_in() -> Library {
    let mut lib = Library::new("test.strings", 2);
    lib.function("lowerAscii", "").member(
        "string_lower_ascii",
        &["string"],
        "string",
        Implementation::Unary(|v| Ok(Value::from(s(v)?.to_ascii_lowercase()))),
    );
    lib.function("upperAscii", "").member(
        "string_upper_ascii",
        &["string"],
        "string",
        Implementation::Unary(|v| Ok(Value::from(s(v)?.to_ascii_uppercase()))),
    );
    lib.function("trim", "").member(
        "string_trim",
        &["string"],
        "string",
        Implementation::Unary(|v| Ok(Value::from(s(v)?.trim()))),
    );
    lib.function("replace", "")
        .member(
            "string_replace_string_string",
            &["string", "string", "string"],
            "string",
            Implementation::Nary(|a| Ok(Value::from(s(&a[0])?.replace(s(&a[1])?, s(&a[2])?)))),
        )
        .member(
            "string_replace_string_string_int",
            &["string", "string", "string", "int"],
            "string",
            Implementation::Nary(|a| Ok(Value::from(s(&a[0])?.replacen(s(&a[1])?, s(&a[2])?, 1)))),
        );
    lib.function("split", "")
        .member(
            "string_split_string",
            &["string", "string"],
            "list(string)",
            Implementation::Binary(|a, b| {
                Ok(Value::list(
                    s(a)?.split(s(b)?).map(Value::from).collect::<Vec<_>>(),
                ))
            }),
        )
        .member(
            "string_split_string_int",
            &["string", "string", "int"],
            "list(string)",
            // A stand-in for the limit-1 case only: the whole string.
            Implementation::Nary(|a| Ok(Value::list(vec![Value::from(s(&a[0])?)]))),
        );
    lib.function("substring", "")
        .member(
            "string_substring_int",
            &["string", "int"],
            "string",
            Implementation::Binary(|a, _| Ok(Value::from(&s(a)?[5..]))),
        )
        .member(
            "string_substring_int_int",
            &["string", "int", "int"],
            "string",
            Implementation::Nary(|a| Ok(Value::from(&s(&a[0])?[5..8]))),
        );
    lib.function("join", "")
        .member(
            "list_join",
            &["list(string)"],
            "string",
            Implementation::Unary(|v| match v {
                Value::List(l) => Ok(Value::from(
                    l.iter()
                        .map(|x| s(x).unwrap_or_default())
                        .collect::<String>(),
                )),
                _ => Err(EvalError::no_such_overload()),
            }),
        )
        .member(
            "list_join_string",
            &["list(string)", "string"],
            "string",
            Implementation::Binary(|v, sep| match v {
                Value::List(l) => Ok(Value::from(
                    l.iter()
                        .map(|x| s(x).unwrap_or_default())
                        .collect::<Vec<_>>()
                        .join(s(sep)?),
                )),
                _ => Err(EvalError::no_such_overload()),
            }),
        );
    lib.function("indexOf", "").member(
        "string_index_of_string",
        &["string", "string"],
        "int",
        Implementation::Binary(|a, b| Ok(Value::Int(s(a)?.find(s(b)?).map_or(-1, |i| i as i64)))),
    );
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
    env.add_library(&strings_stand_in());
    env.add_library(&kubernetes::jsonpatch());
    run_in(&env, "Kubernetes string costs", &cases(), 20);
}
