//! Fuzzes the parser: random text and random token soups must never panic, and whatever
//! parses must have unique node ids and spans inside the source.

use std::collections::HashSet;

use kcel::syntax::{ParseOptions, parse};
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
    fn deep_token_soup_never_panics(
        prefix in prop::collection::vec(prop::sample::select(&["(", "[", "{", "f(", "-", "!", "a.", "1+"][..]), 200..400),
        middle in token_soup(),
    ) {
        let src = format!("{}{middle}", prefix.concat());
        check(&src);
    }
}
