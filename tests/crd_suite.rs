//! The CRD suite: realistic CustomResourceDefinitions under `tests/crd/*.yaml`, each with
//! the schema errors kube-apiserver reports when the CRD is created, the estimated cost of
//! each rule, and objects (with old objects for updates) together with the exact field
//! errors, warnings and actual rule costs Kubernetes reports. The fixtures are
//! `kcel_stdlib::kubernetes::suite::CrdSuite`s and run through `kcel_stdlib::kubernetes::suite`, the runner of `kcel test` (the
//! format is documented there and in README).
//!
//! Every expected figure and text is worked out by hand from SPEC.md and upstream sources
//! (the fixture says which), never copied from kcel's output.

use std::path::Path;

use kcel_stdlib::kubernetes::crd::{CompileOptions, FieldPath, Items, Schema, Validator};
use kcel_stdlib::kubernetes::suite::{CrdSuite, Outcome, Suite};
use serde_json::Value;

type Fixture = CrdSuite;

fn load(path: &Path) -> Result<Fixture, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    // Strictly, as `kcel test` reads suites: a misspelt field is an error, not ignored.
    match Suite::from_yaml(&text).map_err(|e| format!("{}: {e}", path.display()))? {
        Suite::Crd(suite) => Ok(suite),
        Suite::Admission(_) => Err(format!("{}: not a CRD suite", path.display())),
    }
}

/// The first version's schema of a CRD, with its path.
fn crd_schema(fixture: &Fixture) -> Result<(Schema, FieldPath), String> {
    fixture.schema().map_err(|e| e.to_string())
}

fn run(path: &Path) -> Vec<String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let fixture = match load(path) {
        Ok(f) => f,
        Err(e) => return vec![e],
    };
    // Each suite twice: as planned, and in reference mode (no evaluation shortcut), which
    // must give the same field errors and costs.
    [false, true]
        .into_iter()
        .flat_map(|reference| {
            let results = fixture.run_with(reference);
            results.into_iter().map(move |r| (reference, r))
        })
        .filter_map(|(reference, r)| match r.outcome {
            Outcome::Failed(m) => Some(format!(
                "{name}{} / {}:\n  {}",
                if reference { " (reference mode)" } else { "" },
                r.name,
                m.iter()
                    .map(|m| m.to_string())
                    .collect::<Vec<_>>()
                    .join("\n  ")
            )),
            Outcome::Skipped(reason) => {
                if !reference {
                    println!("skipped {name} / {}: {reason}", r.name);
                }
                None
            }
            Outcome::Passed => None,
        })
        .collect()
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

fn spec_schema(spec: Value) -> Schema {
    Schema::from_json(&serde_json::json!({
        "type": "object",
        "properties": {"spec": spec}
    }))
    .expect("schema")
}

#[test]
fn per_call_cost_limit_stops_validation() {
    // An O(n²) rule over 600 items costs well over the 1,000,000 per-call limit; Kubernetes
    // then stops running rules (SPEC.md §4.1, §8).
    let schema = spec_schema(serde_json::json!({
        "type": "object",
        "properties": {
            "values": {
                "type": "array", "maxItems": 600, "items": {"type": "integer"},
                "x-kubernetes-validations": [{"rule": "self.all(x, self.all(y, x <= y || x > y))"}]
            },
            "zzz": {
                "type": "string",
                "x-kubernetes-validations": [{"rule": "self == 'never checked'"}]
            }
        }
    }));
    let validator = Validator::new(&schema, CompileOptions::default());
    let values: Vec<i64> = (0..600).collect();
    let outcome = validator.validate(
        &serde_json::json!({"spec": {"values": values, "zzz": "x"}}),
        None,
    );
    let errors: Vec<String> = outcome.errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        errors,
        [
            "spec.values: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, x <= y || x > y))"
        ]
    );
    assert!(outcome.remaining_budget < 0);
}

#[test]
fn per_object_budget_runs_out() {
    // Fixture 02's rules cost 5 and 8; with a budget of 7 the second rule no longer fits.
    let fixture =
        load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crd/02_cross_field.yaml"))
            .expect("fixture");
    let (schema, _) = crd_schema(&fixture).expect("schema");
    let validator = Validator::new(&schema, CompileOptions::default());
    let obj = serde_json::json!({"spec": {"minReplicas": 1, "maxReplicas": 3, "targetCPU": 50}});
    let outcome = validator.validate_with_budget(&obj, None, 7);
    let errors: Vec<String> = outcome.errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        errors,
        [
            "spec: Invalid value: \"object\": validation failed due to running out of cost budget, no further validation rules will be run"
        ]
    );
    assert_eq!(validator.validate_with_budget(&obj, None, 13).errors, []);
}

#[test]
fn data_of_the_wrong_shape_is_reported_not_panicked_on() {
    let fixture =
        load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crd/07_nested_arrays.yaml"))
            .expect("fixture");
    let (schema, _) = crd_schema(&fixture).expect("schema");
    let validator = Validator::new(&schema, CompileOptions::default());
    for obj in [
        serde_json::json!(null),
        serde_json::json!(42),
        serde_json::json!({"spec": "x"}),
        serde_json::json!({"spec": {"windows": {"a": 1}}}),
        serde_json::json!({"spec": {"windows": [1, null, {"start": "x", "end": []}]}}),
        serde_json::json!({"spec": {"windows": [{"start": 1, "end": 2, "days": [null, 3]}]}}),
    ] {
        let _ = validator.validate(&obj, Some(&obj));
    }
    // The rules alone: kube-apiserver's OpenAPI validation would stop such data first.
    let outcome = validator.validate_rules(
        &serde_json::json!({"spec": {"windows": [{"start": "x", "end": 2}]}}),
        None,
        kcel_stdlib::kubernetes::crd::PER_OBJECT_COST_BUDGET,
    );
    let errors: Vec<String> = outcome.errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        errors,
        [
            "spec.windows[0]: Invalid value: \"object\": invalid data, expected int, got string evaluating rule: start must be before end",
            "spec.windows[0]: Invalid value: \"object\": invalid data, expected int, got string evaluating rule: self.end - self.start <= 720",
        ]
    );
}

#[test]
fn bad_yaml_and_schemas_are_errors() {
    assert!(serde_norway::from_str::<Value>("crd: [unclosed").is_err());
    assert!(Suite::from_json(&serde_json::json!({"crd": {"spec": {}}})).is_err());
    assert!(Schema::from_json(&serde_json::json!({"properties": {"a": 3}})).is_err());
    assert!(
        Schema::from_json(
            &serde_json::json!({"x-kubernetes-validations": [{"message": "no rule"}]})
        )
        .is_err()
    );
    // A schema nested far deeper than any real one.
    let mut s = Schema {
        type_: "string".into(),
        ..Schema::default()
    };
    s.validations
        .push(kcel_stdlib::kubernetes::crd::ValidationRule {
            rule: "self != ''".into(),
            ..Default::default()
        });
    for _ in 0..500 {
        s = Schema {
            type_: "array".into(),
            items: Some(Items::Schema(Box::new(s))),
            ..Schema::default()
        };
    }
    let validator = Validator::new(&s, CompileOptions::default());
    assert!(!validator.compiled().errors().is_empty());
    let mut data = serde_json::json!("x");
    for _ in 0..500 {
        data = serde_json::json!([data]);
    }
    let _ = validator.validate(&data, None);
}

#[test]
fn rules_on_nodes_without_a_cel_type_are_schema_errors() {
    // Kubernetes apiextensions validation.go: the node's CEL type cannot be built.
    let schema = spec_schema(serde_json::json!({
        "x-kubernetes-preserve-unknown-fields": true,
        "x-kubernetes-validations": [{"rule": "true"}]
    }));
    let validator = Validator::new(&schema, CompileOptions::default());
    let errors: Vec<String> = validator
        .compiled()
        .errors()
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(
        errors,
        [
            "openAPIV3Schema.properties[spec].x-kubernetes-validations: Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations"
        ]
    );
}

mod random_data {
    use super::*;
    use proptest::prelude::*;

    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|i| serde_json::json!(i)),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| serde_json::json!(f)),
            "[a-z0-9%:.-]{0,8}".prop_map(Value::String),
            Just(Value::String("2024-01-01T00:00:00Z".into())),
            Just(Value::String("1h".into())),
        ];
        leaf.prop_recursive(5, 48, 6, |inner| {
            let keys = prop_oneof![
                Just("spec".to_string()),
                Just("name".to_string()),
                Just("ports".to_string()),
                Just("port".to_string()),
                Just("windows".to_string()),
                Just("start".to_string()),
                Just("end".to_string()),
                Just("tags".to_string()),
                Just("template".to_string()),
                Just("metadata".to_string()),
                "[a-z]{1,3}",
            ];
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(keys, inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn validators() -> &'static [Validator] {
        static VALIDATORS: std::sync::OnceLock<Vec<Validator>> = std::sync::OnceLock::new();
        VALIDATORS.get_or_init(build_validators)
    }

    fn build_validators() -> Vec<Validator> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crd");
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .expect("tests/crd")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        paths.sort();
        paths
            .iter()
            .filter_map(|p| load(p).ok())
            .filter_map(|f| crd_schema(&f).ok())
            .map(|(schema, _)| Validator::new(&schema, CompileOptions::default()))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Arbitrary objects and old objects never make validation panic.
        #[test]
        fn arbitrary_objects_do_not_panic(obj in json(), old in json()) {
            for v in validators() {
                let _ = v.validate(&obj, None);
                let _ = v.validate(&obj, Some(&old));
                let wrapped = serde_json::json!({"spec": obj.clone()});
                let _ = v.validate(&wrapped, Some(&serde_json::json!({"spec": old.clone()})));
            }
        }
    }
}
