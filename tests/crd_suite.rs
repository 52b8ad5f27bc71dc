//! The CRD suite: realistic CustomResourceDefinitions under `tests/crd/*.yaml`, each with
//! the schema errors kube-apiserver reports when the CRD is created, the estimated cost of
//! each rule, and objects (with old objects for updates) together with the exact field
//! errors, warnings and actual rule costs Kubernetes reports.
//!
//! Fixture layout:
//!
//! ```yaml
//! crd: { ...a CustomResourceDefinition... }
//! schemaErrors: [ "spec.versions[0].schema.openAPIV3Schema...: Forbidden: ..." ]
//! costs:                       # per rule, matched by rule text
//!   - rule: "self.a <= self.b"
//!     estimated: [5, 5]        # [min, max] of one evaluation
//!     cardinality: 1
//!     source: "how the figure was obtained"
//! cases:
//!   - name: ...
//!     object: {...}
//!     old: {...}               # optional: an update
//!     errors: [ "spec: Invalid value: \"object\": ..." ]   # any order
//!     warnings: []
//!     costs: { "self.a <= self.b": 5 }                     # optional: actual cost per rule
//!     skip: "reason"                                        # optional: a known divergence
//! ```
//!
//! Every expected figure and text is worked out by hand from SPEC.md and upstream sources
//! (the fixture says which), never copied from kcel's output.

use std::collections::BTreeMap;
use std::path::Path;

use kcel::kubernetes::{CompileOptions, FieldPath, Schema, Validator};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Fixture {
    crd: Value,
    #[serde(default)]
    schema_errors: Vec<String>,
    #[serde(default)]
    costs: Vec<CostCase>,
    #[serde(default)]
    cases: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CostCase {
    rule: String,
    estimated: [u64; 2],
    cardinality: u64,
    source: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    object: Value,
    #[serde(default)]
    old: Option<Value>,
    #[serde(default)]
    errors: Vec<String>,
    #[serde(default)]
    warnings: Vec<String>,
    #[serde(default)]
    costs: BTreeMap<String, u64>,
    /// Why this case is skipped (a known divergence of the engine), if it is.
    #[serde(default)]
    skip: Option<String>,
}

fn load(path: &Path) -> Result<Fixture, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    serde_norway::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The first version's schema of a CRD, with its path.
fn crd_schema(crd: &Value) -> Result<(Schema, FieldPath), String> {
    let v = crd
        .pointer("/spec/versions/0/schema/openAPIV3Schema")
        .ok_or("no spec.versions[0].schema.openAPIV3Schema")?;
    let schema = Schema::from_json(v)?;
    let path = FieldPath::new("spec")
        .child("versions")
        .index(0)
        .child("schema")
        .child("openAPIV3Schema");
    Ok((schema, path))
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn run(path: &Path) -> Vec<String> {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let mut failures = Vec::new();
    let fixture = match load(path) {
        Ok(f) => f,
        Err(e) => return vec![e],
    };
    let (schema, schema_path) = match crd_schema(&fixture.crd) {
        Ok(s) => s,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let validator = Validator::new(
        &schema,
        CompileOptions {
            schema_path,
            ..CompileOptions::default()
        },
    );
    let got: Vec<String> = validator.compiled.errors.iter().map(|e| e.to_string()).collect();
    if sorted(got.clone()) != sorted(fixture.schema_errors.clone()) {
        failures.push(format!(
            "{name}: schema errors\n  want {:#?}\n  got  {got:#?}",
            fixture.schema_errors
        ));
    }
    for c in &fixture.costs {
        let Some(report) = validator.compiled.reports.iter().find(|r| r.rule == c.rule) else {
            failures.push(format!("{name}: no cost report for rule {:?}", c.rule));
            continue;
        };
        let got = (
            [report.estimated.min, report.estimated.max],
            report.cardinality,
        );
        if got != (c.estimated, c.cardinality) {
            failures.push(format!(
                "{name}: rule {:?} ({}): want estimated {:?} × {}, got {:?} × {}",
                c.rule, c.source, c.estimated, c.cardinality, got.0, got.1
            ));
        }
    }
    for case in &fixture.cases {
        if let Some(reason) = &case.skip {
            println!("skipped {name} / {}: {reason}", case.name);
            continue;
        }
        let outcome = validator.validate(&case.object, case.old.as_ref());
        let errors: Vec<String> = outcome.errors.iter().map(|e| e.to_string()).collect();
        if sorted(errors.clone()) != sorted(case.errors.clone()) {
            failures.push(format!(
                "{name} / {}: errors\n  want {:#?}\n  got  {errors:#?}",
                case.name, case.errors
            ));
        }
        if sorted(outcome.warnings.clone()) != sorted(case.warnings.clone()) {
            failures.push(format!(
                "{name} / {}: warnings\n  want {:#?}\n  got  {:#?}",
                case.name, case.warnings, outcome.warnings
            ));
        }
        for (rule, want) in &case.costs {
            let got: Vec<u64> = outcome
                .costs
                .iter()
                .filter(|(_, r, _)| r == rule)
                .map(|(_, _, c)| *c)
                .collect();
            if got.iter().sum::<u64>() != *want || got.is_empty() {
                failures.push(format!(
                    "{name} / {}: actual cost of {rule:?}: want {want}, got {got:?}",
                    case.name
                ));
            }
        }
    }
    failures
}

#[test]
fn crd_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crd");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/crd")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    let mut failures = Vec::new();
    let mut cases = 0;
    for p in &paths {
        cases += load(p).map(|f| f.cases.len()).unwrap_or(0);
        failures.extend(run(p));
    }
    println!(
        "{} CRDs, {cases} cases, {} failures",
        paths.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(paths.len() >= 12, "at least 12 CRDs, found {}", paths.len());
}
