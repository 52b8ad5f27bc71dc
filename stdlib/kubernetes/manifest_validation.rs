//! Manifests validated offline as kube-apiserver would validate writes of them: what `kcel
//! validate` does, as a library the playground and other front ends share.
//!
//! A [`ManifestSet`] takes the texts of manifests (YAML documents or JSON values, `kind:
//! List`s standing for their items), the CRDs of their custom resources and the old objects
//! of an update; each object is validated by the CRD of its kind and group (its schema and
//! `x-kubernetes-validations` rules, [`CrdValidator`]) or as an object of a built-in kind
//! (decoding, `metadata` and the kind's own rules, [`BuiltinKind`]); an object of neither is
//! reported as kubectl reports it ([`Unmapped`]). An object's old object is the old object
//! with its group, kind, namespace and name. [`ManifestSet::validate`] then gives one
//! [`ObjectReport`] per object, in input order: its identity, the field errors as values and
//! the warnings (strict decoding's duplicate and unknown fields, errors of unchanged values
//! under ratcheting), serialisable as `kcel validate -o json` prints it; a custom resource's
//! report also holds the costs of its rules ([`RuleCosts`], which the playground shows).
//!
//! ```
//! use kcel_stdlib::kubernetes::manifest_validation::{ManifestReport, ManifestSet};
//!
//! let mut set = ManifestSet::new(&[], Vec::new());
//! set.add(
//!     "web.yaml",
//!     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Web}\ndata: {a: b}\n",
//! )
//! .unwrap();
//! let mut report = ManifestReport::default();
//! for object in set.validate() {
//!     report.push(object.unwrap());
//! }
//! assert!(!report.valid);
//! assert_eq!(report.objects[0].kind, "ConfigMap");
//! assert_eq!(
//!     report.objects[0].errors[0].to_string(),
//!     "metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of \
//!      lower case alphanumeric characters, '-' or '.', and must start and end with an \
//!      alphanumeric character (e.g. 'example.com', regex used for validation is \
//!      '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
//! );
//! ```

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value as Json;

use super::builtin::{self, BuiltinKind};
use super::crd::{CrdError, CrdValidator, FieldError, NotServed, RuleCost};
use crate::documents::{DocumentError, list_items, namespace_and_name, read_manifests};

/// Why a text of manifests cannot be validated: the message names the input (`-` is
/// standard input, named `stdin`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// The text is not YAML or JSON (the reader's message).
    #[error("'{file}': {error}")]
    Unreadable {
        /// The input's name.
        file: String,
        /// What the reader found.
        error: DocumentError,
    },
    /// The text holds no document (an empty `List` is a document with no objects, which
    /// is no error: there is nothing in it to fail).
    #[error("{} holds no objects", input_name(file))]
    NoObjects {
        /// The input's name.
        file: String,
    },
}

/// An input's name in messages: `stdin` for `-`, any other quoted.
fn input_name(file: &str) -> String {
    if file == "-" {
        "stdin".to_string()
    } else {
        format!("'{file}'")
    }
}

/// Why an object is not validated at all: kubectl's "resource mapping not found" — its kind
/// is neither built in nor a given CRD's, or the CRD of its kind and group does not serve its
/// version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unmapped {
    /// No built-in kind and no CRD has the object's kind and group: the words of kubectl's
    /// `NoKindMatchError` (apimachinery `meta.NoKindMatchError.Error`).
    #[error("no matches for kind {kind:?} in version {api_version:?}")]
    UnknownKind {
        /// Its `kind`.
        kind: String,
        /// Its `apiVersion`.
        api_version: String,
    },
    /// The CRD of the object's kind and group does not serve its version.
    #[error(transparent)]
    NotServed(NotServed),
}

/// One object's outcome; serialised as `{"file", "kind", "namespace", "name", "valid",
/// "mapping_error"?, "decode_error"?, "errors": [{"field", "reason", "message"}],
/// "warnings"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ObjectReport {
    /// The name of the input it was read from.
    pub file: String,
    /// Its kind (`Deployment`, the CRD's kind).
    pub kind: String,
    /// Its `metadata.namespace` (empty when absent).
    pub namespace: String,
    /// Its `metadata.name` (empty when absent).
    pub name: String,
    /// Whether kube-apiserver would accept the write: no decoding error, no field error.
    pub valid: bool,
    /// Why the object is not validated at all ([`Unmapped`]); nothing else is reported then.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "as_message")]
    pub mapping_error: Option<Unmapped>,
    /// An object of a built-in kind that cannot be decoded: kube-apiserver's 400 message
    /// (nothing else is checked after it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_error: Option<String>,
    /// The field errors (422 Invalid), in Kubernetes' order; serialised as the API
    /// server's status causes ([`FieldError::cause`]).
    #[serde(serialize_with = "as_causes")]
    pub errors: Vec<FieldError>,
    /// The warnings, as kube-apiserver returns them under `fieldValidation=Warn`: strict
    /// decoding's duplicate and unknown fields first, then (custom resources) the errors
    /// of unchanged values under ratcheting and the finalizer warnings.
    pub warnings: Vec<String>,
    /// A custom resource's version and the costs of its rules; `None` for a built-in kind.
    /// Not serialised (`kcel validate -o json` prints no costs).
    #[serde(skip)]
    pub rule_costs: Option<RuleCosts>,
}

/// What a custom resource's validation cost: the CRD version that validated it, the actual
/// cost of each rule evaluation and what is left of the per-object budget
/// ([`PER_OBJECT_COST_BUDGET`](super::crd::PER_OBJECT_COST_BUDGET)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleCosts {
    /// The CRD version the object was validated by (its `apiVersion`'s version).
    pub version: String,
    /// The actual cost of each rule evaluation, in order.
    pub costs: Vec<RuleCost>,
    /// What is left of the per-object budget (negative once it ran out).
    pub remaining_budget: i64,
}

/// Field errors serialised as status causes.
fn as_causes<S: serde::Serializer>(errors: &[FieldError], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(errors.iter().map(FieldError::cause))
}

/// A mapping error serialised as its message.
fn as_message<S: serde::Serializer>(error: &Option<Unmapped>, s: S) -> Result<S::Ok, S::Error> {
    match error {
        Some(error) => s.collect_str(error),
        None => s.serialize_none(),
    }
}

/// Every object's outcome; serialised as `{"valid": B, "objects": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ManifestReport {
    /// Whether every object is valid.
    pub valid: bool,
    /// The objects' outcomes, in input order.
    pub objects: Vec<ObjectReport>,
}

impl Default for ManifestReport {
    fn default() -> ManifestReport {
        ManifestReport {
            valid: true,
            objects: Vec::new(),
        }
    }
}

impl ManifestReport {
    /// Adds an object's outcome.
    pub fn push(&mut self, object: ObjectReport) {
        self.valid &= object.valid;
        self.objects.push(object);
    }
}

/// What validates an object.
enum Target<'c> {
    Builtin(BuiltinKind),
    /// The CRD of its kind and group, which serves its version.
    Crd(&'c CrdValidator),
    /// Nothing.
    Unmapped(Unmapped),
}

/// An object to validate and where it came from.
struct Input<'c> {
    file: String,
    /// Given up to validation, which prunes and defaults it in place and whose rules read
    /// it in place (no copy of a large object).
    object: Json,
    target: Target<'c>,
    /// What strict decoding reports of its text (warnings, as under `fieldValidation=Warn`):
    /// for a built-in kind, unknown and duplicate fields as typed decoding reports them; for
    /// a custom resource, its duplicate keys (the unknown fields come from pruning).
    strict: Vec<String>,
}

/// Manifests to validate, with the CRDs of their custom resources and the old objects of
/// an update; see the [module docs](self).
pub struct ManifestSet<'c> {
    crds: &'c [CrdValidator],
    /// Shared: the CRD's rules read an old object in place (no copy).
    old: Vec<Arc<Json>>,
    inputs: Vec<Input<'c>>,
}

impl<'c> ManifestSet<'c> {
    /// An empty set whose custom resources `crds` validate (each object by the CRD of its
    /// kind and group), and whose objects are updates of the `old` documents' objects (a
    /// `kind: List` standing for its items) of the same group, kind, namespace and name.
    pub fn new(crds: &'c [CrdValidator], old: Vec<Json>) -> ManifestSet<'c> {
        ManifestSet {
            crds,
            old: list_items(old).into_iter().map(Arc::new).collect(),
            inputs: Vec::new(),
        }
    }

    /// Adds the objects of `text`, named `file` in reports and messages: its YAML
    /// documents or JSON values, a `kind: List` standing for its items. An object that no
    /// CRD serves and of no built-in kind is reported as such ([`Unmapped`]), as kubectl
    /// goes on with the other objects of its inputs.
    pub fn add(&mut self, file: &str, text: &str) -> Result<(), ManifestError> {
        let manifests = read_manifests(text).map_err(|error| ManifestError::Unreadable {
            file: file.to_string(),
            error,
        })?;
        if manifests.documents.is_empty() {
            return Err(ManifestError::NoObjects {
                file: file.to_string(),
            });
        }
        for manifest in manifests.into_objects() {
            let target = self.target_of(&manifest.object);
            let strict = match &target {
                Target::Builtin(kind) => kind.strict_errors(&manifest, text),
                Target::Crd(_) => (manifest.duplicates.iter())
                    .map(|d| d.error.to_string())
                    .collect(),
                Target::Unmapped(_) => Vec::new(),
            };
            self.inputs.push(Input {
                file: file.to_string(),
                object: manifest.object,
                target,
                strict,
            });
        }
        Ok(())
    }

    /// What validates an object: the CRD of its kind and group (even where a built-in kind
    /// has the name) when it serves the object's version, else its built-in kind.
    fn target_of(&self, object: &Json) -> Target<'c> {
        let (group, kind) = group_and_kind(object);
        if let Some(crd) = (self.crds.iter()).find(|c| c.group() == group && c.kind() == kind) {
            return match crd.version_of(object) {
                Ok(_) => Target::Crd(crd),
                Err(reason) => Target::Unmapped(Unmapped::NotServed(reason)),
            };
        }
        match builtin::kind_of(object) {
            Some(kind) => Target::Builtin(kind),
            None => Target::Unmapped(Unmapped::UnknownKind {
                kind: kind.to_string(),
                api_version: field(object, "apiVersion").to_string(),
            }),
        }
    }

    /// The kind, namespace and name of each old object that no object added pairs with.
    pub fn unmatched_old(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        (self.old.iter())
            .filter(|o| !self.inputs.iter().any(|i| same_object(&i.object, o)))
            .map(|o| {
                let (namespace, name) = namespace_and_name(o);
                (field(o, "kind"), namespace, name)
            })
    }

    /// Validates the objects one at a time, in the order added (each given up to its
    /// validation: a large object is pruned, defaulted and read in place). An error is the
    /// CRD's: the schema of an object's version is one Kubernetes rejects
    /// ([`CrdError::Schema`]).
    pub fn validate(self) -> Validations<'c> {
        Validations {
            old: self.old,
            inputs: self.inputs.into_iter(),
        }
    }
}

/// A top-level string field of an object (empty when absent).
fn field<'o>(object: &'o Json, name: &str) -> &'o str {
    object.get(name).and_then(Json::as_str).unwrap_or_default()
}

/// An object's group (of its `apiVersion`; empty for the core group) and kind.
fn group_and_kind(object: &Json) -> (&str, &str) {
    let group = field(object, "apiVersion")
        .rsplit_once('/')
        .map_or("", |(g, _)| g);
    (group, field(object, "kind"))
}

/// Whether an old object is the earlier state of `object`: the same group, kind, namespace
/// and name (the version may differ).
fn same_object(object: &Json, old: &Json) -> bool {
    group_and_kind(object) == group_and_kind(old)
        && namespace_and_name(object) == namespace_and_name(old)
}

/// The outcomes of a [`ManifestSet`]'s objects, one at a time ([`ManifestSet::validate`]).
pub struct Validations<'c> {
    old: Vec<Arc<Json>>,
    inputs: std::vec::IntoIter<Input<'c>>,
}

impl Iterator for Validations<'_> {
    type Item = Result<ObjectReport, CrdError>;

    fn next(&mut self) -> Option<Self::Item> {
        let input = self.inputs.next()?;
        let (namespace, name) = namespace_and_name(&input.object);
        let (namespace, name) = (namespace.to_string(), name.to_string());
        let old = (self.old.iter()).find(|o| same_object(&input.object, o));
        let crd = match input.target {
            Target::Builtin(kind) => {
                return Some(Ok(validate_builtin(input, kind, old.map(|o| o.as_ref()))));
            }
            Target::Unmapped(error) => {
                let kind = field(&input.object, "kind").to_string();
                return Some(Ok(unmapped(input.file, kind, namespace, name, error)));
            }
            Target::Crd(crd) => crd,
        };
        let deprecation = crd.deprecation_of(&input.object).map(str::to_string);
        // `add` admitted only objects of a served version.
        let version = crd
            .version_of(&input.object)
            .unwrap_or_default()
            .to_string();
        let mut outcome = match crd.validate_owned(input.object, old) {
            // (The object as it would be stored is not needed here.)
            Ok((_, outcome)) => outcome,
            Err(e) => return Some(Err(e)),
        };
        // Duplicate keys first, then pruning's unknown fields, as the custom resource
        // handler's decoder reports them (apiextensions-apiserver schemaCoercingDecoder).
        outcome.warnings.splice(0..0, input.strict);
        // A deprecated version's warning comes first: the handler sends it before it
        // decodes the body (apiextensions-apiserver crdHandler.ServeHTTP).
        outcome.warnings.splice(0..0, deprecation);
        Some(Ok(ObjectReport {
            file: input.file,
            kind: crd.kind().to_string(),
            namespace,
            name,
            valid: outcome.errors.is_empty(),
            mapping_error: None,
            decode_error: None,
            errors: outcome.errors,
            warnings: outcome.warnings,
            rule_costs: Some(RuleCosts {
                version,
                costs: outcome.costs,
                remaining_budget: outcome.remaining_budget,
            }),
        }))
    }
}

/// Validates an object of a built-in kind, as an update of `old` when it is of the same
/// kind: a decoding error (kube-apiserver's 400) or the field errors of `metadata` and of
/// the kind's own rules; unknown and duplicate fields are warnings (as under
/// `fieldValidation=Warn`).
fn validate_builtin(input: Input, kind: BuiltinKind, old: Option<&Json>) -> ObjectReport {
    let (namespace, name) = namespace_and_name(&input.object);
    let mut outcome = kind.validate_update(&input.object, old);
    if outcome.decode_error.is_none() {
        outcome.unknown_fields = input.strict;
    }
    ObjectReport {
        file: input.file,
        kind: kind.kind().to_string(),
        namespace: namespace.to_string(),
        name: name.to_string(),
        valid: outcome.decode_error.is_none() && outcome.errors.is_empty(),
        mapping_error: None,
        decode_error: outcome.decode_error,
        errors: outcome.errors,
        warnings: outcome.unknown_fields,
        rule_costs: None,
    }
}

/// The report of an object nothing validates.
fn unmapped(
    file: String,
    kind: String,
    namespace: String,
    name: String,
    error: Unmapped,
) -> ObjectReport {
    ObjectReport {
        file,
        kind,
        namespace,
        name,
        valid: false,
        mapping_error: Some(error),
        decode_error: None,
        errors: Vec::new(),
        warnings: Vec::new(),
        rule_costs: None,
    }
}

#[cfg(test)]
mod tests;
