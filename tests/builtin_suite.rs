//! Objects of built-in kinds under `tests/builtin/*.yaml`, each with what kube-apiserver
//! answers a create of it (an update of `old`, when the case has one): the decoding error
//! (a 400), the unknown (and, for a body given as text, duplicate) fields (warnings under
//! `fieldValidation=Warn`), and the field errors of `metadata` and of the kind's own
//! validation (a 422). Each fixture file says which upstream sources its texts were worked out
//! from; they are never copied from kcel's output.
//!
//! Also: the vendored schemas (`stdlib/kubernetes/builtin/schemas.json`) are what their
//! generator writes from `../shared/k8s-openapi` (skipped visibly without it).

#[path = "support/shared_data.rs"]
mod shared_data;

use std::path::Path;

use kcel_stdlib::documents::{parse_manifests, read_manifests};
use kcel_stdlib::kubernetes::builtin;
use serde_json::Value;
use shared_data::shared_data;

fn strings(case: &Value, field: &str) -> Vec<String> {
    case.get(field)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Runs one case: `None` when it passes, else what differs. A case gives its `object` as
/// a value, or as the `text` of a request body (JSON or YAML, read as `kcel validate` reads
/// a file), whose warnings are then what strict field validation reports of the text.
fn run_case(case: &Value) -> Option<String> {
    let read;
    let (object, manifest) = match case.get("text").and_then(Value::as_str) {
        Some(text) => {
            read = match read_manifests(text) {
                Ok(m) => m.into_objects(),
                Err(e) => return Some(format!("unreadable text: {e}")),
            };
            let [one] = read.as_slice() else {
                return Some(format!("{} objects in the text, not one", read.len()));
            };
            (&one.object, Some((one, text)))
        }
        None => (&case["object"], None),
    };
    let Some(kind) = builtin::kind_of(object) else {
        return Some(format!("no built-in kind for {}", object["kind"]));
    };
    let old = case.get("old");
    if let Some(old) = old
        && builtin::kind_of(old).map(|k| k.kind()) != Some(kind.kind())
    {
        return Some("the old object is of another kind".to_string());
    }
    let mut outcome = kind.validate_update(object, old);
    if let (Some((manifest, text)), None) = (manifest, &outcome.decode_error) {
        outcome.unknown_fields = kind.strict_errors(manifest, text);
    }
    let mut diffs = Vec::new();
    let expected_decode = case.get("decode_error").and_then(Value::as_str);
    if outcome.decode_error.as_deref() != expected_decode {
        diffs.push(format!(
            "decode error: expected {expected_decode:?}, got {:?}",
            outcome.decode_error
        ));
    }
    let warnings = strings(case, "warnings");
    if outcome.unknown_fields != warnings {
        diffs.push(format!(
            "warnings: expected {warnings:?}, got {:?}",
            outcome.unknown_fields
        ));
    }
    let errors = strings(case, "errors");
    let got: Vec<String> = outcome.errors.iter().map(ToString::to_string).collect();
    if got != errors {
        diffs.push(format!("errors: expected {errors:#?}, got {got:#?}"));
    }
    (!diffs.is_empty()).then(|| diffs.join("\n  "))
}

#[test]
fn builtin_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/builtin");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/builtin")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    let (mut passed, mut failures) = (0, Vec::new());
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let docs = parse_manifests(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for case in docs[0]["cases"].as_array().expect("cases") {
            let name = case["name"].as_str().unwrap_or("?");
            match run_case(case) {
                None => passed += 1,
                Some(diff) => failures.push(format!("{} / {name}:\n  {diff}", path.display())),
            }
        }
    }
    println!(
        "built-in fixtures: {passed} passed, {} failed, 0 skipped",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(passed >= 70, "too few cases ({passed})");
}

#[test]
fn vendored_schemas_are_the_generators_output() {
    let Some(shared) = shared_data(
        "k8s-openapi/v1.37/openapi-v3",
        "vendored built-in schemas against their generator",
    ) else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out =
        std::env::temp_dir().join(format!("kcel-builtin-schemas-{}.json", std::process::id()));
    let run = std::process::Command::new("python3")
        .arg(root.join("stdlib/kubernetes/builtin/generate.py"))
        .arg(shared.join("../../.."))
        .arg(&out)
        .output();
    let run = match run {
        Ok(r) => r,
        Err(e) => {
            eprintln!("skipped: vendored built-in schemas: python3 not runnable ({e})");
            return;
        }
    };
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let generated = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let vendored = std::fs::read(root.join("stdlib/kubernetes/builtin/schemas.json")).unwrap();
    assert!(
        generated == vendored,
        "stdlib/kubernetes/builtin/schemas.json differs from generate.py's output: rerun it"
    );
}
