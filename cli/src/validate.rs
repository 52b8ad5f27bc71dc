//! `kcel validate --crd CRD.yaml [--old OLD.yaml] OBJECT.yaml...`: validates custom
//! resources against a CRD's schema and `x-kubernetes-validations` rules, offline, as
//! kube-apiserver would, printing Kubernetes' field errors in kubectl's words (text, or one
//! JSON/YAML report). Files may hold several YAML documents and `kind: List`s; `-` is stdin;
//! each object must be of the CRD's group, kind and a served version; an update's old object
//! is the `--old` object with the same namespace and name.

use std::path::Path;

use kcel_stdlib::kubernetes::crd::{
    CompileOptions, FieldError, Outcome, Validator, crd_version_schemas,
};
use serde::Serialize;
use serde_json::Value as Json;

use crate::args::Format;
use crate::input::{read_document, read_documents};
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

/// An object to validate: where it came from and who it is.
struct Input {
    file: String,
    object: Json,
    /// The index of its version among the CRD's schemas.
    version: usize,
}

/// `metadata.namespace` and `metadata.name` (empty when absent).
fn identity(object: &Json) -> (&str, &str) {
    let field = |f: &str| {
        object
            .pointer(&format!("/metadata/{f}"))
            .and_then(Json::as_str)
            .unwrap_or_default()
    };
    (field("namespace"), field("name"))
}

/// The objects of a file's documents: a `kind: List` (or `*List` with `items`) stands for
/// its items, as kubectl reads it.
fn objects_of(documents: Vec<Json>) -> Vec<Json> {
    let mut out = Vec::with_capacity(documents.len());
    for mut document in documents {
        let is_list = document
            .get("kind")
            .and_then(Json::as_str)
            .is_some_and(|k| k.ends_with("List"))
            && document.get("items").is_some_and(Json::is_array);
        match document.get_mut("items").map(Json::take) {
            Some(Json::Array(items)) if is_list => out.extend(items),
            _ => out.push(document),
        }
    }
    out
}

/// What an object must be to be validated against the CRD: of its group and kind, at a
/// served version that has a schema.
struct Crd<'a> {
    group: &'a str,
    kind: &'a str,
    /// Version names with a schema, in the CRD's order, and whether each is served.
    versions: Vec<(&'a str, bool)>,
}

impl Crd<'_> {
    /// The index of `object`'s version, or why it cannot be validated against the CRD.
    fn version_of(&self, object: &Json) -> Result<usize, String> {
        let api_version = object
            .get("apiVersion")
            .and_then(Json::as_str)
            .unwrap_or_default();
        let kind = object
            .get("kind")
            .and_then(Json::as_str)
            .unwrap_or_default();
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        if kind != self.kind {
            return Err(format!(
                "kind {kind:?} is not the CRD's kind {:?}",
                self.kind
            ));
        }
        if group != self.group {
            return Err(format!(
                "apiVersion {api_version:?} is not in the CRD's group {:?}",
                self.group
            ));
        }
        match self.versions.iter().position(|(v, _)| *v == version) {
            Some(i) if self.versions[i].1 => Ok(i),
            Some(_) => Err(format!("version {version:?} of the CRD is not served")),
            None => Err(format!(
                "apiVersion {api_version:?} matches no version of the CRD"
            )),
        }
    }
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
    let text = |pointer: &str| {
        crd.pointer(pointer)
            .and_then(Json::as_str)
            .unwrap_or_default()
    };
    let served = |name: &str| {
        crd.pointer("/spec/versions")
            .and_then(Json::as_array)
            .and_then(|vs| {
                vs.iter()
                    .find(|v| v.get("name").and_then(Json::as_str) == Some(name))
            })
            .and_then(|v| v.get("served"))
            .and_then(Json::as_bool)
            .unwrap_or(true)
    };
    let expected = Crd {
        group: text("/spec/group"),
        kind: text("/spec/names/kind"),
        versions: schemas
            .iter()
            .map(|(name, _, _)| (name.as_str(), served(name)))
            .collect(),
    };
    // Old objects, paired with objects by namespace and name.
    let old = match old.map(read_documents).transpose() {
        Ok(o) => objects_of(o.unwrap_or_default()),
        Err(e) => return usage(&e),
    };
    // Every input is read (and matched with a version) before anything is printed.
    let mut inputs = Vec::with_capacity(objects.len());
    for path in objects {
        let documents = match read_documents(path) {
            Ok(d) => d,
            Err(e) => return usage(&e),
        };
        for object in objects_of(documents) {
            let version = match expected.version_of(&object) {
                Ok(v) => v,
                Err(e) => {
                    let (_, name) = identity(&object);
                    return usage(&format!("'{}': object {name:?}: {e}", path.display()));
                }
            };
            inputs.push(Input {
                file: path.display().to_string(),
                object,
                version,
            });
        }
    }
    for o in &old {
        if !inputs.iter().any(|i| identity(&i.object) == identity(o)) {
            let (namespace, name) = identity(o);
            eprintln!("Warning: --old: {namespace}/{name} matches no object");
        }
    }
    let mut validators: Vec<Option<Validator>> = schemas.iter().map(|_| None).collect();
    let mut report = Report {
        valid: true,
        objects: Vec::with_capacity(inputs.len()),
    };
    for input in &inputs {
        let (name, schema, _) = &schemas[input.version];
        let validator = validators[input.version]
            .get_or_insert_with(|| Validator::new(schema, CompileOptions::default()));
        let errors = &validator.compiled.errors;
        if !errors.is_empty() {
            return schema_failure(format, name, errors);
        }
        let (namespace, object_name) = identity(&input.object);
        let old = old.iter().find(|o| identity(o) == (namespace, object_name));
        let outcome = validator.validate(&input.object, old);
        if format == Format::Text {
            print_outcome(&input.file, expected.kind, object_name, &outcome);
        }
        report.valid &= outcome.errors.is_empty();
        report.objects.push(ObjectReport {
            file: input.file.clone(),
            kind: expected.kind.to_string(),
            namespace: namespace.to_string(),
            name: object_name.to_string(),
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
