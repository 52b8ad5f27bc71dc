//! `kcel validate --crd CRD.yaml [--old OLD.yaml] OBJECT.yaml...`: validates custom
//! resources against a CRD's schema and `x-kubernetes-validations` rules, offline, as
//! kube-apiserver would, printing Kubernetes' field errors (text, or one JSON/YAML report).

use std::path::Path;

use kcel_stdlib::kubernetes::crd::{CompileOptions, FieldError, Validator, crd_version_schemas};
use serde::Serialize;
use serde_json::Value as Json;

use crate::args::Format;
use crate::input::read_document;
use crate::output::{Status, machine, usage};

/// The `-o json` shape: `{"valid": B, "objects": [...]}`.
#[derive(Serialize)]
struct Report {
    valid: bool,
    objects: Vec<ObjectReport>,
}

/// One object's outcome.
#[derive(Serialize)]
struct ObjectReport {
    file: String,
    valid: bool,
    errors: Vec<Cause>,
    warnings: Vec<String>,
}

/// A field error as Kubernetes' API status reports it (`metav1.StatusCause`).
#[derive(Serialize)]
struct Cause {
    field: String,
    reason: &'static str,
    message: String,
}

impl From<&FieldError> for Cause {
    fn from(e: &FieldError) -> Cause {
        Cause {
            field: e.path.to_string(),
            reason: e.error_type.reason(),
            message: e.body(),
        }
    }
}

/// The `-o json` shape when the CRD's rules do not compile.
#[derive(Serialize)]
struct SchemaFailure {
    error: SchemaErrors,
}

#[derive(Serialize)]
struct SchemaErrors {
    phase: &'static str,
    message: String,
    errors: Vec<Cause>,
}

/// The version part of an object's `apiVersion` (`group/v1` → `v1`).
fn version_of(object: &Json) -> Option<&str> {
    let api_version = object.get("apiVersion")?.as_str()?;
    Some(api_version.rsplit('/').next().unwrap_or(api_version))
}

/// Runs the command; see the module docs.
pub fn run(
    crd: &Path,
    old: Option<&Path>,
    objects: &[std::path::PathBuf],
    format: Format,
) -> Status {
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
    // Every input is read (and matched with a version) before anything is printed.
    let mut inputs = Vec::with_capacity(objects.len());
    for path in objects {
        let object = match read_document(path) {
            Ok(o) => o,
            Err(e) => return usage(&e),
        };
        let Some(index) = schemas
            .iter()
            .position(|(name, _, _)| version_of(&object).is_some_and(|v| v == name.as_str()))
        else {
            return usage(&format!(
                "'{}': apiVersion {} matches no version of the CRD",
                path.display(),
                object.get("apiVersion").unwrap_or(&Json::Null)
            ));
        };
        inputs.push((path, object, index));
    }
    let mut validators: Vec<Option<Validator>> = schemas.iter().map(|_| None).collect();
    let mut report = Report {
        valid: true,
        objects: Vec::with_capacity(inputs.len()),
    };
    for (path, object, index) in &inputs {
        let (name, schema, _) = &schemas[*index];
        let validator = validators[*index]
            .get_or_insert_with(|| Validator::new(schema, CompileOptions::default()));
        let errors = &validator.compiled.errors;
        if !errors.is_empty() {
            return schema_failure(format, name, errors);
        }
        let outcome = validator.validate(object, old.as_ref());
        let file = path.display().to_string();
        if format == Format::Text {
            for w in &outcome.warnings {
                eprintln!("Warning: {file}: {w}");
            }
            if outcome.errors.is_empty() {
                outln!("{file}: valid");
            }
            for e in &outcome.errors {
                outln!("{file}: {e}");
            }
        }
        report.valid &= outcome.errors.is_empty();
        report.objects.push(ObjectReport {
            file,
            valid: outcome.errors.is_empty(),
            errors: outcome.errors.iter().map(Cause::from).collect(),
            warnings: outcome.warnings,
        });
    }
    if format != Format::Text {
        out!("{}", machine(format, &report));
    }
    if report.valid {
        Status::Ok
    } else {
        Status::False
    }
}

/// Reports the CRD's schema errors (exit 3).
fn schema_failure(format: Format, version: &str, errors: &[FieldError]) -> Status {
    match format {
        Format::Text => {
            for e in errors {
                eprintln!("error: CRD version {version}: {e}");
            }
        }
        _ => {
            let message = errors
                .iter()
                .map(|e| format!("CRD version {version}: {e}"))
                .collect::<Vec<_>>()
                .join("\n");
            let failure = SchemaFailure {
                error: SchemaErrors {
                    phase: "schema",
                    message,
                    errors: errors.iter().map(Cause::from).collect(),
                },
            };
            out!("{}", machine(format, &failure));
        }
    }
    Status::Compile
}
