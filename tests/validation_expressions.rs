//! apiextensions-apiserver `pkg/apiserver/schema/cel/validation_test.go`,
//! `TestValidationExpressions`, as a table (`tests/crd_rules/validation_expressions.yaml`):
//! each case a structural schema, an object (and old object), the rules that must hold and
//! the rules that must fail with an error containing a text. As upstream, each rule is put
//! alone on the schema's root and run by the CEL validator alone (no OpenAPI validation
//! first, and no CRD-level schema checks: `CompileOptions::structural_check` off, as
//! upstream builds the structural schema directly — some cases' schemas a CRD would
//! reject), with the runtime budget; a rule's expected actual cost is checked where the case
//! gives one. Cases and rules not ported, or that cannot pass yet, are listed with reasons;
//! the run prints pass/fail/skip counts.

use std::collections::BTreeMap;

use kcel_stdlib::kubernetes::crd::PER_OBJECT_COST_BUDGET as RUNTIME_CEL_COST_BUDGET;
use kcel_stdlib::kubernetes::crd::{CompileOptions, Schema, Validator};
use serde::Deserialize;
use serde_json::Value as Json;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Case {
    name: String,
    schema: Json,
    object: Json,
    #[serde(default)]
    old_object: Option<Json>,
    #[serde(default)]
    is_root: bool,
    #[serde(default)]
    valid: Vec<String>,
    /// Rule → text every error must contain.
    #[serde(default)]
    errors: BTreeMap<String, String>,
    /// The runtime cost every valid rule must have.
    #[serde(default)]
    expected_cost: Option<i64>,
    /// The rules are transition rules without an old value: skipped, at no cost.
    #[serde(default)]
    expect_skipped: bool,
    /// Rule → why it is skipped.
    #[serde(default)]
    skip: BTreeMap<String, String>,
}

fn validator(case: &Case, rule: &str, reference: bool) -> Result<Validator, String> {
    let mut schema = case.schema.clone();
    // A CRD requires a message for a rule with line breaks (the validator ignores it).
    schema["x-kubernetes-validations"] = if rule.contains('\n') {
        serde_json::json!([{ "rule": rule, "message": "rule with line breaks" }])
    } else {
        serde_json::json!([{ "rule": rule }])
    };
    let schema = Schema::from_json(&schema).map_err(|e| e.to_string())?;
    Ok(Validator::new(
        &schema,
        CompileOptions {
            is_resource_root: case.is_root,
            reference,
            // As upstream's test, which builds the structural schema directly.
            structural_check: false,
            ..CompileOptions::default()
        },
    ))
}

/// Checks a rule as planned, then in reference mode (no evaluation shortcut).
fn in_both_modes(check: impl Fn(bool) -> Result<(), String>) -> Result<(), String> {
    check(false)?;
    check(true).map_err(|e| format!("in reference mode: {e}"))
}

fn check_valid(case: &Case, rule: &str, reference: bool) -> Result<(), String> {
    let v = validator(case, rule, reference)?;
    let budget = RUNTIME_CEL_COST_BUDGET;
    let outcome = v.validate_rules(&case.object, case.old_object.as_ref(), budget);
    // A rule that did not run (its schema has structural errors, which a CRD would reject
    // and upstream's test, building the structural schema directly, does not check) is no
    // pass; a skipped transition rule does not run either.
    let ran = outcome.costs.iter().any(|c| c.rule() == rule);
    if !ran && !case.expect_skipped {
        let errors: Vec<String> = v
            .compiled()
            .errors()
            .iter()
            .map(|e| e.to_string())
            .collect();
        return Err(format!("the rule did not run; schema errors {errors:?}"));
    }
    if !outcome.errors.is_empty() {
        let errors: Vec<String> = outcome.errors.iter().map(|e| e.to_string()).collect();
        return Err(format!("unexpected errors {errors:?}"));
    }
    let want = case.expected_cost.or(case.expect_skipped.then_some(0));
    if let Some(want) = want {
        let cost: u64 = outcome.costs.iter().map(|c| c.cost()).sum();
        if cost as i64 != want {
            return Err(format!("cost {cost}, want {want}"));
        }
    }
    Ok(())
}

fn check_error(case: &Case, rule: &str, text: &str, reference: bool) -> Result<(), String> {
    let v = validator(case, rule, reference)?;
    let budget = RUNTIME_CEL_COST_BUDGET;
    let outcome = v.validate_rules(&case.object, case.old_object.as_ref(), budget);
    if outcome.errors.is_empty() {
        return Err("no error".into());
    }
    for e in &outcome.errors {
        let e = e.to_string();
        if !e.contains("Invalid value") || !e.contains(text) {
            return Err(format!("error {e:?} does not contain {text:?}"));
        }
    }
    Ok(())
}

#[test]
fn validation_expressions() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/crd_rules/validation_expressions.yaml"
    );
    let text = std::fs::read_to_string(path).expect("table");
    let cases: Vec<Case> = serde_norway::from_str(&text).expect("table parses");
    let (mut passed, mut skipped, mut failures) = (0, 0, Vec::new());
    for case in &cases {
        let mut run = |rule: &str, result: &dyn Fn() -> Result<(), String>| {
            if let Some(reason) = case.skip.get(rule) {
                println!("SKIP {} / {rule}: {reason}", case.name);
                skipped += 1;
            } else {
                match result() {
                    Ok(()) => passed += 1,
                    Err(e) => failures.push(format!("  {} / {rule}: {e}", case.name)),
                }
            }
        };
        for rule in &case.valid {
            run(rule, &|| in_both_modes(|r| check_valid(case, rule, r)));
        }
        for (rule, text) in &case.errors {
            run(rule, &|| {
                in_both_modes(|r| check_error(case, rule, text, r))
            });
        }
    }
    println!(
        "TestValidationExpressions: {} cases, {passed} rules passed, {} failed, {skipped} skipped",
        cases.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}
