//! Golden tests for checker diagnostics: each `tests/golden/check/NAME.cel` holds an
//! expression, preceded by `//` header lines (`// decl NAME: TYPE`, `// container: NAME`,
//! `// option: homogeneous`, `// option: literal-validators`, `// option: optional-syntax`
//! (cel-go's checker tests enable it with `parser.EnableOptionalSyntax`), and free-form comments naming the source of the expectation).
//! `NAME.out` holds the expected output: the rendered errors, or `type: T` on success.
//! `KCEL_BLESS=1 cargo test --test check_golden` rewrites the `.out` files from our output;
//! review the diff against the cited source before committing.

use std::path::Path;

use kcel::{Env, Type};

fn run_case(text: &str) -> Result<String, String> {
    let mut env = Env::new();
    let mut source = Vec::new();
    for line in text.lines() {
        if let Some(directive) = line.strip_prefix("// ") {
            if let Some(decl) = directive.strip_prefix("decl ") {
                let (name, ty) = decl.split_once(':').ok_or("bad decl")?;
                env.declare(
                    name.trim(),
                    Type::parse(ty.trim()).map_err(|e| e.to_string())?,
                );
            } else if let Some(c) = directive.strip_prefix("container: ") {
                env.set_container(c.trim());
            } else if directive.trim() == "option: homogeneous" {
                env.set_homogeneous_literals(true);
            } else if directive.trim() == "option: literal-validators" {
                env.set_literal_validators(true);
            } else if directive.trim() == "option: optional-syntax" {
                env.parse_options_mut().optional_syntax = true;
            }
        } else {
            source.push(line);
        }
    }
    let source = source.join("\n");
    Ok(match env.compile(source.trim_end()) {
        Ok(ast) => format!("type: {}\n", ast.output_type().unwrap_or(&Type::Dyn)),
        Err(issues) => format!("{issues}\n"),
    })
}

#[test]
fn checker_diagnostics_match_golden_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/check");
    let bless = std::env::var_os("KCEL_BLESS").is_some();
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/golden/check exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cel"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 40, "expected at least 40 golden cases");
    let mut failures = Vec::new();
    for case in &cases {
        let text = std::fs::read_to_string(case).expect("readable case");
        let got = run_case(&text).unwrap_or_else(|e| format!("bad case: {e}\n"));
        let out = case.with_extension("out");
        if bless {
            std::fs::write(&out, &got).expect("writable .out file");
            continue;
        }
        let want = std::fs::read_to_string(&out).unwrap_or_default();
        if want != got {
            failures.push(format!(
                "{}:\n--- want\n{want}--- got\n{got}",
                case.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
