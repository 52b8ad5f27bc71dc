//! cel-spec's `parse.json` against the parser: every expression in it parses, and its string
//! and bytes literals give the expected values. Reads `../shared/cel-spec/tests/parse.json`;
//! without it (a fresh clone) the test says so and skips (see `support/shared_data.rs`).

use base64::Engine as _;
use kcel::library::syntax::{ExprKind, Literal};
use kcel::library::syntax::{ParseOptions, parse};
use serde_json::Value as Json;

#[path = "support/shared_data.rs"]
mod shared_data;

fn lit(src: &str) -> Literal {
    match parse(src, &ParseOptions::default()) {
        Ok(e) => match e.kind {
            ExprKind::Literal(l) => l,
            other => panic!("{src}: not a literal: {other:?}"),
        },
        Err(issues) => panic!("{src}: {issues}"),
    }
}

#[test]
fn conformance_literal_sections() {
    let Some(path) = shared_data::shared_data(
        "cel-spec/tests/parse.json",
        "parse_literals::conformance_literal_sections",
    ) else {
        return;
    };
    let text = std::fs::read_to_string(&path).expect("parse.json is readable");
    let json: Json = serde_json::from_str(&text).expect("parse.json is JSON");
    let mut checked = 0;
    for section in json["section"].as_array().into_iter().flatten() {
        for test in section["test"].as_array().into_iter().flatten() {
            let Some(expr) = test["expr"].as_str() else {
                continue;
            };
            // Every expression in parse.json is syntactically valid.
            let parsed = parse(expr, &ParseOptions::default());
            assert!(parsed.is_ok(), "{expr}: {}", parsed.unwrap_err());
            if let Some(want) = test["value"]["string_value"].as_str() {
                if section["name"] == "string_literals" {
                    assert_eq!(lit(expr), Literal::String(want.into()), "{expr}");
                    checked += 1;
                }
            }
            if let Some(want) = test["value"]["bytes_value"].as_str() {
                if section["name"] == "bytes_literals" {
                    let want = base64::engine::general_purpose::STANDARD
                        .decode(want)
                        .expect("parse.json holds valid base64");
                    assert_eq!(lit(expr), Literal::Bytes(want.into()), "{expr}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 140, "{checked}");
}
