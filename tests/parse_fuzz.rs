//! Fuzzes the parser: random text and random token soups must never panic, and whatever
//! parses must have unique node ids and spans inside the source.

use std::collections::HashSet;

use kcel::library::syntax::{ParseOptions, parse};
use proptest::prelude::*;

/// Tokens of CEL (and near misses), glued together by the token-soup strategy.
const TOKENS: &[&str] = &[
    "a",
    "b",
    "x",
    "_y",
    "has",
    "all",
    "exists",
    "exists_one",
    "map",
    "filter",
    "size",
    "in",
    "true",
    "false",
    "null",
    "if",
    "as",
    "while",
    "1",
    "0",
    "-1",
    "0x1F",
    "1u",
    "0xFFu",
    "1.5",
    ".5",
    "1e10",
    "1.5e-3",
    "1.",
    "9223372036854775808",
    "'s'",
    "\"s\"",
    "'''t'''",
    "r'\\n'",
    "b'\\xFF'",
    "br'x'",
    "'\\u00e9'",
    "'\\q'",
    "b'\\u0041'",
    "'\\",
    "'",
    "\"",
    "`",
    "`a-b`",
    "+",
    "-",
    "*",
    "/",
    "%",
    "!",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "&&",
    "||",
    "?",
    ":",
    ".",
    ".?",
    "[",
    "]",
    "[?",
    "(",
    ")",
    "{",
    "}",
    ",",
    "//c\n",
    " ",
    "\n",
    "\t",
    "@result",
    "é",
    "\u{0}",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..40).prop_map(|t| t.concat())
}

fn check(src: &str) {
    let options = ParseOptions::default();
    match parse(src, &options) {
        Ok(expr) => {
            let mut ids = HashSet::new();
            expr.walk(|e| {
                assert!(ids.insert(e.id), "duplicate id {} in {src:?}", e.id);
                assert!(e.span.start <= e.span.end && e.span.end as usize <= src.len());
            });
        }
        Err(issues) => {
            assert!(!issues.diagnostics.is_empty());
            // Rendering must not panic either.
            let _ = issues.to_string();
        }
    }
}

/// Random well-formed expressions (fully parenthesized where precedence would matter).
fn well_formed() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(
        &[
            "a",
            "_b",
            "x1",
            ".y",
            "1",
            "-2",
            "0x1F",
            "3u",
            "1.5",
            ".5",
            "1e3",
            "'s'",
            "\"t\"",
            "b'u'",
            r"r'\d'",
            "true",
            "false",
            "null",
            "'''m\nl'''",
        ][..],
    )
    .prop_map(str::to_string);
    leaf.prop_recursive(6, 64, 4, |inner| {
        let op = prop::sample::select(
            &[
                "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "in",
            ][..],
        );
        let list = |v: Vec<String>| v.join(", ");
        prop_oneof![
            (inner.clone(), op, inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("({c} ? {a} : {b})")),
            inner.clone().prop_map(|a| format!("!({a})")),
            inner.clone().prop_map(|a| format!("-({a})")),
            inner.clone().prop_map(|a| format!("({a}).f")),
            inner.clone().prop_map(|a| format!("({a}).?`g-h`")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a})[{b}]")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a})[?{b}]")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}).m({b})")),
            prop::collection::vec(inner.clone(), 0..3).prop_map(move |v| format!("f({})", list(v))),
            prop::collection::vec(inner.clone(), 0..3).prop_map(move |v| format!("[{}]", list(v))),
            prop::collection::vec((inner.clone(), inner.clone()), 0..3).prop_map(|v| {
                let entries: Vec<String> = v.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                format!("{{{}}}", entries.join(", "))
            }),
            inner
                .clone()
                .prop_map(|a| format!("M.N{{f: {a}, ?g: {a},}}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}).all(v, {b})")),
            inner.clone().prop_map(|a| format!("has(({a}).f)")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(src in "\\PC{0,60}") {
        check(&src);
    }

    #[test]
    fn random_ascii_never_panics(src in "[ -~\n]{0,60}") {
        check(&src);
    }

    #[test]
    fn token_soup_never_panics(src in token_soup()) {
        check(&src);
    }

    #[test]
    fn well_formed_expressions_parse(src in well_formed()) {
        let result = parse(&src, &ParseOptions::default());
        prop_assert!(result.is_ok(), "{src}: {}", result.unwrap_err());
        check(&src);
    }

    #[test]
    fn deep_token_soup_never_panics(
        prefix in prop::collection::vec(prop::sample::select(&["(", "[", "{", "f(", "-", "!", "a.", "1+"][..]), 200..400),
        middle in token_soup(),
    ) {
        let src = format!("{}{middle}", prefix.concat());
        check(&src);
    }
}
