//! `kcel validate [--crd CRD.yaml]... [--old OLD.yaml] OBJECT.yaml...`: validates objects
//! offline, as kube-apiserver would, printing Kubernetes' errors in kubectl's words (text,
//! or one JSON/YAML report). The validation is the library's
//! ([`kcel_stdlib::kubernetes::manifest_validation`]: custom resources against a CRD's
//! schema and `x-kubernetes-validations` rules, objects of built-in kinds against
//! Kubernetes' OpenAPI schemas and their hand-written rules, `--old` objects paired by
//! group, kind, namespace and name); this module reads the files (`-` is stdin, a directory
//! its manifests), renders the reports and chooses the exit status.

use std::path::{Path, PathBuf};

use kcel_stdlib::documents::list_items;
use kcel_stdlib::kubernetes::builtin;
use kcel_stdlib::kubernetes::crd::{CrdError, CrdValidator, FieldError, SchemaFailure};
use kcel_stdlib::kubernetes::manifest_validation::{
    ManifestReport, ManifestSet, ObjectReport, Unmapped,
};
use serde::Serialize;

use crate::args::Format;
use crate::input::{expand_directories, read_documents, read_text};
use crate::output::{Status, machine, usage};

/// The `-o json` shape when the CRD's rules do not compile.
#[derive(Serialize)]
struct SchemaErrors {
    error: SchemaFailure,
}

/// Runs the command; see the module docs.
pub fn run(
    crds: &[PathBuf],
    old: Option<&Path>,
    objects: &[PathBuf],
    memory_limit: Option<u64>,
    format: Format,
) -> Status {
    let memory_limit = match memory_limit {
        Some(0) => None,
        Some(bytes) => Some(bytes),
        None => Some(kcel::DEFAULT_MEMORY_LIMIT),
    };
    let crds = match read_crds(crds) {
        Ok(crds) => crds,
        Err(message) => return usage(message),
    };
    let crds: Vec<CrdValidator> = (crds.into_iter())
        .map(|c| c.with_memory_limit(memory_limit))
        .collect();
    let old = match old.map(read_documents).transpose() {
        Ok(o) => o.unwrap_or_default(),
        Err(e) => return usage(&e),
    };
    let objects = match expand_directories(objects) {
        Ok(objects) => objects,
        Err(e) => return usage(&e),
    };
    let mut set = ManifestSet::new(&crds, old);
    // Every input is read (and matched with a kind or version) before anything is printed.
    for path in &objects {
        let text = match read_text(path) {
            Ok(text) => text,
            Err(e) => return usage(&e),
        };
        if let Err(e) = set.add(&path.display().to_string(), &text) {
            return usage(&e);
        }
    }
    for (kind, namespace, name) in set.unmatched_old() {
        eprintln!("Warning: --old: {kind} {namespace}/{name} matches no object");
    }
    let mut report = ManifestReport::default();
    for object in set.validate() {
        let object = match object {
            Ok(object) => object,
            Err(CrdError::Schema { version, errors }) => {
                return schema_failure(format, &version, &errors);
            }
            Err(e @ CrdError::NotServed(_)) => return usage(e),
        };
        if format.is_text() {
            print_object(&object);
        }
        report.push(object);
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

/// The CRDs of the files (each document a CRD, a `List` standing for its items): an error
/// names the file, or the two CRDs of one kind and group.
fn read_crds(paths: &[PathBuf]) -> Result<Vec<CrdValidator>, String> {
    let mut crds: Vec<CrdValidator> = Vec::new();
    for path in expand_directories(paths).map_err(|e| e.to_string())? {
        let documents = read_documents(&path).map_err(|e| e.to_string())?;
        for document in list_items(documents) {
            let crd = CrdValidator::new(&document)
                .map_err(|e| format!("invalid CRD in '{}': {e}", path.display()))?;
            if crds
                .iter()
                .any(|c| (c.group(), c.kind()) == (crd.group(), crd.kind()))
            {
                return Err(format!(
                    "'{}': a second CRD of kind {:?} in group {:?}",
                    path.display(),
                    crd.kind(),
                    crd.group()
                ));
            }
            crds.push(crd);
        }
    }
    Ok(crds)
}

/// One object's outcome in kubectl's words: why nothing validates it (kubectl's mapping
/// error); a decoding error as kube-apiserver's 400 says it; otherwise the warnings (on stderr), then `The Widget "w" is invalid: ...`, one error
/// on the line, several as `* ` lines below it (kubectl's `MultilineError`).
fn print_object(object: &ObjectReport) {
    let (file, kind, name) = (&object.file, &object.kind, &object.name);
    if let Some(e) = &object.mapping_error {
        let hint = match e {
            Unmapped::UnknownKind { .. } => format!(
                " (not a built-in kind of Kubernetes {}; give its CRD with --crd)",
                builtin::KUBERNETES_VERSION
            ),
            _ => String::new(),
        };
        outln!("{file}: {kind} {name:?}: {e}{hint}");
        return;
    }
    if let Some(e) = &object.decode_error {
        outln!("{file}: {kind} {name:?}: {e}");
        return;
    }
    for w in &object.warnings {
        eprintln!("Warning: {file}: {w}");
    }
    match object.errors.as_slice() {
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
            let failure = SchemaErrors {
                error: SchemaFailure::new(version, errors),
            };
            out!("{}", machine(format, &failure));
        }
    }
    Status::Compile
}
