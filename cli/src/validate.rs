//! `kcel validate --crd CRD.yaml [--old OLD.yaml] OBJECT.yaml...`: validates custom
//! resources against a CRD's schema and `x-kubernetes-validations` rules, offline, as
//! kube-apiserver would, printing Kubernetes' field errors.

use std::path::Path;

use kcel::kubernetes::{CompileOptions, Validator, crd_version_schemas};
use serde_json::Value as Json;

use crate::output::{Status, usage};

/// Reads a YAML or JSON document from a file.
fn read_document(path: &Path) -> Result<Json, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    serde_norway::from_str::<Json>(&text)
        .map_err(|e| format!("'{}' is not valid YAML or JSON: {e}", path.display()))
}

/// The version part of an object's `apiVersion` (`group/v1` → `v1`).
fn version_of(object: &Json) -> Option<&str> {
    let api_version = object.get("apiVersion")?.as_str()?;
    Some(api_version.rsplit('/').next().unwrap_or(api_version))
}

/// Runs the command; see the module docs.
pub fn run(crd: &Path, old: Option<&Path>, objects: &[std::path::PathBuf]) -> Status {
    let crd = match read_document(crd) {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    let schemas = match crd_version_schemas(&crd) {
        Ok(s) => s,
        Err(e) => return usage(&format!("invalid CRD: {e}")),
    };
    let old = match old.map(read_document).transpose() {
        Ok(o) => o,
        Err(e) => return usage(&e),
    };
    let mut status = Status::Ok;
    for path in objects {
        let object = match read_document(path) {
            Ok(o) => o,
            Err(e) => return usage(&e),
        };
        let Some((name, schema, _)) = schemas
            .iter()
            .find(|(name, _, _)| version_of(&object).is_some_and(|v| v == name.as_str()))
        else {
            return usage(&format!(
                "'{}': apiVersion {} matches no version of the CRD",
                path.display(),
                object.get("apiVersion").unwrap_or(&Json::Null)
            ));
        };
        let validator = Validator::new(schema, CompileOptions::default());
        if !validator.compiled.errors.is_empty() {
            for e in &validator.compiled.errors {
                eprintln!("error: CRD version {name}: {e}");
            }
            return Status::Compile;
        }
        let outcome = validator.validate(&object, old.as_ref());
        for w in &outcome.warnings {
            eprintln!("Warning: {}: {w}", path.display());
        }
        if outcome.errors.is_empty() {
            out!("{}: valid\n", path.display());
        } else {
            for e in &outcome.errors {
                out!("{}: {e}\n", path.display());
            }
            status = Status::False;
        }
    }
    status
}
