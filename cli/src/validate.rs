//! `kcel validate --crd CRD.yaml [--old OLD.yaml] OBJECT.yaml...`: validates custom
//! resources against a CRD's schema and `x-kubernetes-validations` rules, offline, as
//! kube-apiserver would, printing Kubernetes' field errors in kubectl's words (text, or one
//! JSON/YAML report). Files may hold several YAML documents and `kind: List`s; `-` is stdin;
//! each object must be of the CRD's group, kind and a served version; an update's old object
//! is the `--old` object with the same namespace and name.

use std::path::Path;

use kcel_stdlib::kubernetes::crd::{CrdError, CrdValidator, FieldError, Outcome};
use serde::Serialize;
use serde_json::Value as Json;

use crate::args::Format;
use crate::input::{read_document, read_documents};
use crate::output::{Status, machine, usage};
use kcel_stdlib::documents::{list_items, namespace_and_name};

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
    kind: String,
    namespace: String,
    name: String,
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

/// An object to validate and where it came from.
struct Input {
    file: String,
    object: Json,
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
    let crd = match CrdValidator::new(&crd) {
        Ok(c) => c,
        Err(e) => return usage(format!("invalid CRD: {e}")),
    };
    // Old objects, paired with objects by namespace and name.
    let old = match old.map(read_documents).transpose() {
        Ok(o) => list_items(o.unwrap_or_default()),
        Err(e) => return usage(&e),
    };
    // Every input is read (and matched with a version) before anything is printed.
    let mut inputs = Vec::with_capacity(objects.len());
    for path in objects {
        let documents = match read_documents(path) {
            Ok(d) if d.is_empty() => {
                let what = if path.as_os_str() == "-" {
                    "stdin".to_string()
                } else {
                    format!("'{}'", path.display())
                };
                // (An empty List is objects enough: there is nothing in it to fail.)
                return usage(format!("{what} holds no objects"));
            }
            Ok(d) => d,
            Err(e) => return usage(&e),
        };
        for object in list_items(documents) {
            if let Err(e) = crd.version_of(&object) {
                let (_, name) = namespace_and_name(&object);
                return usage(format!("'{}': object {name:?}: {e}", path.display()));
            }
            inputs.push(Input {
                file: path.display().to_string(),
                object,
            });
        }
    }
    for o in &old {
        if !inputs
            .iter()
            .any(|i| namespace_and_name(&i.object) == namespace_and_name(o))
        {
            let (namespace, name) = namespace_and_name(o);
            eprintln!("Warning: --old: {namespace}/{name} matches no object");
        }
    }
    let mut report = Report {
        valid: true,
        objects: Vec::with_capacity(inputs.len()),
    };
    for input in &inputs {
        let (namespace, name) = namespace_and_name(&input.object);
        let old = old
            .iter()
            .find(|o| namespace_and_name(o) == (namespace, name));
        let outcome = match crd.validate(&input.object, old) {
            Ok(outcome) => outcome,
            Err(CrdError::Schema { version, errors }) => {
                return schema_failure(format, &version, &errors);
            }
            Err(e @ CrdError::NotServed(_)) => return usage(e),
        };
        if format.is_text() {
            print_outcome(&input.file, crd.kind(), name, &outcome);
        }
        report.valid &= outcome.errors.is_empty();
        report.objects.push(ObjectReport {
            file: input.file.clone(),
            kind: crd.kind().to_string(),
            namespace: namespace.to_string(),
            name: name.to_string(),
            valid: outcome.errors.is_empty(),
            errors: outcome.errors.iter().map(Cause::from).collect(),
            warnings: outcome.warnings,
        });
    }
    if !format.is_text() {
        out!("{}", machine(format, &report));
    }
    if report.valid {
        Status::Ok
    } else {
        Status::False
    }
}

/// One object's outcome in kubectl's words: `The Widget "w" is invalid: ...`, one error on
/// the line, several as `* ` lines below it (kubectl's `MultilineError`).
fn print_outcome(file: &str, kind: &str, name: &str, outcome: &Outcome) {
    for w in &outcome.warnings {
        eprintln!("Warning: {file}: {w}");
    }
    match outcome.errors.as_slice() {
        [] => outln!("{file}: {kind} {name:?} is valid"),
        [one] => outln!("{file}: The {kind} {name:?} is invalid: {one}"),
        several => {
            outln!("{file}: The {kind} {name:?} is invalid: ");
            for e in several {
                outln!("* {e}");
            }
        }
    }
}

/// Reports the CRD's schema errors (exit 3).
fn schema_failure(format: Format, version: &str, errors: &[FieldError]) -> Status {
    match format {
        _ if format.is_text() => {
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
