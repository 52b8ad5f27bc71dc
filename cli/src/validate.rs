//! `kcel validate [--crd CRD.yaml] [--old OLD.yaml] OBJECT.yaml...`: validates objects
//! offline, as kube-apiserver would, printing Kubernetes' errors in kubectl's words (text,
//! or one JSON/YAML report): custom resources against a CRD's schema and
//! `x-kubernetes-validations` rules, objects of built-in kinds against Kubernetes' OpenAPI
//! schemas and their hand-written rules ([`kcel_stdlib::kubernetes::builtin`]: decoding
//! errors, unknown fields, `metadata`, the kind's own validation). Files may hold several YAML documents and `kind: List`s; `-` is stdin; each
//! object must be of the CRD's group, kind and a served version, or of a built-in kind; an
//! update's old object is the `--old` object with the same namespace and name.

use std::path::Path;

use kcel_stdlib::kubernetes::builtin::{self, BuiltinKind};
use kcel_stdlib::kubernetes::crd::{
    CrdError, CrdValidator, FieldCause, FieldError, Outcome, SchemaFailure,
};
use serde::Serialize;
use serde_json::Value as Json;

use crate::args::Format;
use crate::input::{read_document, read_documents, read_objects};
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
    /// A built-in object that cannot be decoded: kube-apiserver's 400 message.
    #[serde(skip_serializing_if = "Option::is_none")]
    decode_error: Option<String>,
    errors: Vec<FieldCause>,
    warnings: Vec<String>,
}

/// The `-o json` shape when the CRD's rules do not compile.
#[derive(Serialize)]
struct SchemaErrors {
    error: SchemaFailure,
}

/// An object to validate and where it came from.
struct Input {
    file: String,
    /// Given up to validation, which prunes and defaults it in place and whose rules read
    /// it in place (no copy of a large object).
    object: Json,
    /// The object's built-in kind; `None` for a resource of the CRD.
    builtin: Option<BuiltinKind>,
    /// What strict decoding reports of its text (warnings, as under `fieldValidation=Warn`):
    /// for a built-in kind, unknown and duplicate fields as typed decoding reports them; for
    /// a custom resource, its duplicate keys (the unknown fields come from pruning).
    strict: Vec<String>,
}

/// Whether an object is of the CRD's kind and group (then the CRD decides its version).
fn of_crd(crd: Option<&CrdValidator>, object: &Json) -> bool {
    let Some(crd) = crd else { return false };
    let field = |f: &str| object.get(f).and_then(Json::as_str).unwrap_or_default();
    let group = field("apiVersion").rsplit_once('/').map_or("", |(g, _)| g);
    field("kind") == crd.kind() && group == crd.group()
}

/// Runs the command; see the module docs.
pub fn run(
    crd: Option<&Path>,
    old: Option<&Path>,
    objects: &[std::path::PathBuf],
    memory_limit: Option<u64>,
    format: Format,
) -> Status {
    let crd = match crd.map(read_document).transpose() {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    let memory_limit = match memory_limit {
        Some(0) => None,
        Some(bytes) => Some(bytes),
        None => Some(kcel::DEFAULT_MEMORY_LIMIT),
    };
    let crd = match crd.as_ref().map(CrdValidator::new).transpose() {
        Ok(c) => c.map(|c| c.with_memory_limit(memory_limit)),
        Err(e) => return usage(format!("invalid CRD: {e}")),
    };
    // Old objects, paired with objects by namespace and name.
    let old = match old.map(read_documents).transpose() {
        // Shared: the CRD's rules read an old object in place (no copy).
        Ok(o) => list_items(o.unwrap_or_default())
            .into_iter()
            .map(std::sync::Arc::new)
            .collect::<Vec<_>>(),
        Err(e) => return usage(&e),
    };
    // Every input is read (and matched with a version) before anything is printed.
    let mut inputs = Vec::with_capacity(objects.len());
    for path in objects {
        let read = match read_objects(path) {
            Ok(read) if read.documents == 0 => {
                let what = if path.as_os_str() == "-" {
                    "stdin".to_string()
                } else {
                    format!("'{}'", path.display())
                };
                // (An empty List is objects enough: there is nothing in it to fail.)
                return usage(format!("{what} holds no objects"));
            }
            Ok(read) => read,
            Err(e) => return usage(&e),
        };
        for manifest in read.objects.iter() {
            let object = &manifest.object;
            let builtin = match (&crd, builtin::kind_of(object)) {
                (Some(_), _) if of_crd(crd.as_ref(), object) => None,
                (_, Some(kind)) => Some(kind),
                (Some(crd), None) => match crd.version_of(object) {
                    Ok(_) => None,
                    Err(e) => {
                        let (_, name) = namespace_and_name(object);
                        return usage(format!("'{}': object {name:?}: {e}", path.display()));
                    }
                },
                (None, None) => {
                    let (_, name) = namespace_and_name(object);
                    let field = |f: &str| object.get(f).and_then(Json::as_str).unwrap_or("");
                    // kubectl's words for a kind the server does not have.
                    return usage(format!(
                        "'{}': object {name:?}: no matches for kind {:?} in version {:?} \
                         (not a built-in kind of Kubernetes {}; give its CRD with --crd)",
                        path.display(),
                        field("kind"),
                        field("apiVersion"),
                        builtin::KUBERNETES_VERSION,
                    ));
                }
            };
            if let (Some(crd), None) = (&crd, builtin)
                && let Err(e) = crd.version_of(object)
            {
                let (_, name) = namespace_and_name(object);
                return usage(format!("'{}': object {name:?}: {e}", path.display()));
            }
        }
        let text = read.text;
        for manifest in read.objects {
            let builtin = match &crd {
                Some(_) if of_crd(crd.as_ref(), &manifest.object) => None,
                _ => builtin::kind_of(&manifest.object),
            };
            let strict = match builtin {
                Some(kind) => kind.strict_errors(&manifest, &text),
                None => (manifest.duplicates.iter())
                    .map(|d| d.error.to_string())
                    .collect(),
            };
            inputs.push(Input {
                file: path.display().to_string(),
                object: manifest.object,
                builtin,
                strict,
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
    for input in inputs {
        let (namespace, name) = namespace_and_name(&input.object);
        let (namespace, name) = (namespace.to_string(), name.to_string());
        let old = old
            .iter()
            .find(|o| namespace_and_name(o) == (namespace.as_str(), name.as_str()));
        if let Some(kind) = input.builtin {
            let object = validate_builtin(&input, kind, old.map(|o| o.as_ref()), format);
            report.valid &= object.valid;
            report.objects.push(object);
            continue;
        }
        let crd = crd
            .as_ref()
            .expect("objects without a built-in kind are the CRD's");
        let mut outcome = match crd.validate_owned(input.object, old) {
            // (The object as it would be stored is not needed here.)
            Ok((_, outcome)) => outcome,
            Err(CrdError::Schema { version, errors }) => {
                return schema_failure(format, &version, &errors);
            }
            Err(e @ CrdError::NotServed(_)) => return usage(e),
        };
        // Duplicate keys first, then pruning's unknown fields, as the custom resource
        // handler's decoder reports them (apiextensions-apiserver schemaCoercingDecoder).
        outcome.warnings.splice(0..0, input.strict.iter().cloned());
        if format.is_text() {
            print_outcome(&input.file, crd.kind(), &name, &outcome);
        }
        report.valid &= outcome.errors.is_empty();
        report.objects.push(ObjectReport {
            file: input.file,
            kind: crd.kind().to_string(),
            namespace,
            name,
            valid: outcome.errors.is_empty(),
            decode_error: None,
            errors: outcome.errors.iter().map(FieldError::cause).collect(),
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

/// Validates an object of a built-in kind, as an update of `old` when given (printing its
/// outcome as text, unless the report is a machine one): a decoding error (kube-apiserver's
/// 400) or the field errors of `metadata` and of the kind's own rules; unknown and duplicate
/// fields are warnings (as under `fieldValidation=Warn`).
fn validate_builtin(
    input: &Input,
    kind: BuiltinKind,
    old: Option<&Json>,
    format: Format,
) -> ObjectReport {
    let (namespace, name) = namespace_and_name(&input.object);
    let old = old.filter(|o| builtin::kind_of(o).is_some_and(|k| k.kind() == kind.kind()));
    let mut outcome = kind.validate_update(&input.object, old);
    if outcome.decode_error.is_none() {
        outcome.unknown_fields = input.strict.clone();
    }
    if format.is_text() {
        match &outcome.decode_error {
            Some(e) => {
                outln!("{}: {} {name:?}: {e}", input.file, kind.kind());
            }
            None => print_outcome(
                &input.file,
                kind.kind(),
                name,
                &Outcome {
                    errors: outcome.errors.clone(),
                    warnings: outcome.unknown_fields.clone(),
                    ..Outcome::default()
                },
            ),
        }
    }
    ObjectReport {
        file: input.file.clone(),
        kind: kind.kind().to_string(),
        namespace: namespace.to_string(),
        name: name.to_string(),
        valid: outcome.decode_error.is_none() && outcome.errors.is_empty(),
        errors: outcome.errors.iter().map(FieldError::cause).collect(),
        decode_error: outcome.decode_error,
        warnings: outcome.unknown_fields,
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
            let failure = SchemaErrors {
                error: SchemaFailure::new(version, errors),
            };
            out!("{}", machine(format, &failure));
        }
    }
    Status::Compile
}
