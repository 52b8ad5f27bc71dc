//! apiextensions-apiserver `pkg/apiserver/schema/cel/celcoststability_test.go`,
//! `TestCelCostStability` (its current form), as a table
//! (`tests/crd_rules/cel_cost_stability.yaml`): each case a
//! structural schema, an object and a map of rules to their expected actual (runtime) cost.
//! As upstream, each rule is put alone on the schema's root, the validator is built for a
//! resource root (`NewValidator(&s, true, PerCallLimit)`) and run with the per-object runtime
//! budget; the rule must succeed and the budget it used must equal the expected cost exactly.
//! Structural checks are off as upstream builds the structural schema directly. A rule whose
//! cost kcel cannot match yet is listed under `known` with the precise reason and counted as a
//! skip; the run prints pass/fail/skip counts. The sibling `TestCelEstimatedCostStability`
//! (`tests/crd_rules/cel_estimated_cost_stability.yaml`) checks each rule's static estimate.

use std::collections::BTreeMap;

use kcel_stdlib::kubernetes::crd::PER_OBJECT_COST_BUDGET as RUNTIME_CEL_COST_BUDGET;
use kcel_stdlib::kubernetes::crd::{CompileOptions, FieldPath, Schema, Validator};
use kcel_stdlib::kubernetes::crd::{compile_schema, rule_env};
use serde::Deserialize;
use serde_json::Value as Json;

/// One case of either table: a schema, the object to validate (the runtime table only) and
/// the expected cost of each rule.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    schema: Json,
    /// The object the rules run on (runtime costs only).
    #[serde(default)]
    object: Option<Json>,
    /// Rule → expected cost (upstream's `expectCost`: actual, or the static estimate).
    cost: BTreeMap<String, u64>,
    /// Rule → why kcel's cost differs (a skip with its reason).
    #[serde(default)]
    known: BTreeMap<String, String>,
}

/// Runs every rule of the table in `tests/crd_rules/<file>` through `check` (case, rule,
/// expected cost), skipping the known differences with their reasons, and prints upstream's
/// test name with pass/fail/skip counts.
fn run_table(test: &str, file: &str, check: impl Fn(&Case, &str, u64) -> Result<(), String>) {
    let path = format!("{}/tests/crd_rules/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("table");
    let cases: Vec<Case> = serde_norway::from_str(&text).expect("table parses");
    let (mut passed, mut skipped, mut failures) = (0, 0, Vec::new());
    for case in &cases {
        for rule in case.known.keys() {
            assert!(
                case.cost.contains_key(rule),
                "{}: known difference for an unlisted rule {rule}",
                case.name
            );
        }
        for (rule, &want) in &case.cost {
            if let Some(reason) = case.known.get(rule) {
                println!("SKIP {} / {rule}: known difference: {reason}", case.name);
                skipped += 1;
                continue;
            }
            match check(case, rule, want) {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("  {} / {rule}: {e}", case.name)),
            }
        }
    }
    println!(
        "{test}: {} cases, {passed} rules passed, {} failed, {skipped} skipped",
        cases.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn with_rule(schema: &Json, rule: &str) -> Json {
    let mut schema = schema.clone();
    // A CRD requires a message for a rule with line breaks (the validator ignores it).
    schema["x-kubernetes-validations"] = if rule.contains('\n') {
        serde_json::json!([{ "rule": rule, "message": "rule with line breaks" }])
    } else {
        serde_json::json!([{ "rule": rule }])
    };
    schema
}

fn validator(schema: &Json, rule: &str, reference: bool) -> Result<Validator, String> {
    let schema = Schema::from_json(&with_rule(schema, rule)).map_err(|e| e.to_string())?;
    Ok(Validator::new(
        &schema,
        CompileOptions {
            is_resource_root: true,
            reference,
            structural_check: false,
            ..CompileOptions::default()
        },
    ))
}

/// The rule alone on `case`'s schema runs on its object without error, at cost `want`.
fn check(case: &Case, rule: &str, want: u64, reference: bool) -> Result<(), String> {
    let object = case.object.as_ref().ok_or("the case has no object")?;
    let v = validator(&case.schema, rule, reference)?;
    let outcome = v.validate_rules(object, None, RUNTIME_CEL_COST_BUDGET);
    if !outcome.costs.iter().any(|c| c.rule() == rule) {
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
    let cost: u64 = outcome.costs.iter().map(|c| c.cost()).sum();
    if cost != want {
        return Err(format!("cost {cost}, want {want}"));
    }
    Ok(())
}

#[test]
fn cel_cost_stability() {
    run_table(
        "TestCelCostStability",
        "cel_cost_stability.yaml",
        |case, rule, want| {
            check(case, rule, want, false)?;
            check(case, rule, want, true).map_err(|e| format!("in reference mode: {e}"))
        },
    );
}

fn estimate(schema: &Json, rule: &str) -> Result<u64, String> {
    let schema = Schema::from_json(&with_rule(schema, rule)).map_err(|e| e.to_string())?;
    let compiled = compile_schema(
        &schema,
        &rule_env(),
        CompileOptions {
            schema_path: FieldPath::root(),
            structural_check: false,
            ..CompileOptions::default()
        },
    );
    // Over-budget errors are expected for the unbounded cases; nothing else may fail.
    let failures: Vec<String> = compiled
        .errors()
        .iter()
        .filter(|e| !e.detail.contains("exceeds budget") && !e.detail.contains("cost total"))
        .map(|e| e.to_string())
        .collect();
    if !failures.is_empty() {
        return Err(format!("compile errors {failures:?}"));
    }
    let report = compiled.reports().first().ok_or("no rule compiled")?;
    Ok(report.estimated.max)
}

/// apiextensions-apiserver `celcoststability_test.go`, `TestCelEstimatedCostStability`
/// (`tests/crd_rules/cel_estimated_cost_stability.yaml`): each rule alone on the schema, its
/// static cost estimate (the compiled rule's `MaxCost`, as upstream's `schemaChecker` reads it)
/// must equal upstream's.
#[test]
fn cel_estimated_cost_stability() {
    run_table(
        "TestCelEstimatedCostStability",
        "cel_estimated_cost_stability.yaml",
        |case, rule, want| match estimate(&case.schema, rule)? {
            got if got == want => Ok(()),
            got => Err(format!("estimate {got}, want {want}")),
        },
    );
}
