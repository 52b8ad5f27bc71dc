//! The errors of reading a CustomResourceDefinition and of matching objects with it;
//! each renders its text in its `Display` (the validation errors of an object's fields are
//! [`FieldError`]s, in Kubernetes' words).

use super::field_error::{FieldCause, FieldError, FieldPath};

/// Why a CustomResourceDefinition could not be read ([`CrdValidator::new`](super::CrdValidator::new)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DefinitionError {
    /// A required field is missing or empty (`spec.group`, `spec.names.kind`,
    /// `spec.versions`).
    #[error("a CustomResourceDefinition needs {0}")]
    Missing(&'static str),
    /// A version's `openAPIV3Schema` is not a schema.
    #[error("{path}: {error}")]
    Schema {
        /// Where the schema is in the CRD.
        path: FieldPath,
        /// What is wrong with it.
        error: serde_json::Error,
    },
}

impl DefinitionError {
    /// The error as the field error a write of the CRD is refused with
    /// (`spec.versions: Invalid value: "": <this error>`).
    pub fn field_error(&self) -> FieldError {
        FieldError::new(
            FieldPath::new("spec").child("versions"),
            super::field_error::ErrorType::Invalid,
            "",
            self.to_string(),
        )
    }
}

/// Why an object is not a resource a CRD serves.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotServed {
    /// Another kind than the CRD's.
    #[error("kind {kind:?} is not the CRD's kind {expected:?}")]
    Kind {
        /// The object's kind.
        kind: String,
        /// The CRD's kind.
        expected: String,
    },
    /// An `apiVersion` outside the CRD's group.
    #[error("apiVersion {api_version:?} is not in the CRD's group {group:?}")]
    Group {
        /// The object's `apiVersion`.
        api_version: String,
        /// The CRD's group.
        group: String,
    },
    /// A version the CRD has but does not serve.
    #[error("version {0:?} of the CRD is not served")]
    Version(String),
    /// A version the CRD does not have.
    #[error("apiVersion {0:?} matches no version of the CRD")]
    UnknownVersion(String),
}

/// Why an object was not validated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CrdError {
    /// The object is not a resource of this CRD (its kind, group or version).
    #[error(transparent)]
    NotServed(#[from] NotServed),
    /// The schema of the object's version is one Kubernetes rejects (not structural,
    /// invalid defaults, rules that do not compile or cost too much).
    #[error("CRD version {version}: {}", .errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Schema {
        /// The version whose schema it is.
        version: String,
        /// Kubernetes' errors for the schema.
        errors: Vec<FieldError>,
    },
}

/// A CRD version's schema errors ([`CrdError::Schema`]) as one serialisable report,
/// `{"phase": "schema", "message": ..., "errors": [...]}`: the message one line per error,
/// `CRD version <version>: <error>`, and each error as a [`FieldCause`] (`kcel validate -o
/// json` and the playground report a schema Kubernetes rejects so).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SchemaFailure {
    phase: &'static str,
    message: String,
    errors: Vec<FieldCause>,
}

impl SchemaFailure {
    /// The report of `version`'s schema errors.
    pub fn new(version: &str, errors: &[FieldError]) -> SchemaFailure {
        let message = errors
            .iter()
            .map(|e| format!("CRD version {version}: {e}"))
            .collect::<Vec<_>>()
            .join("\n");
        SchemaFailure {
            phase: "schema",
            message,
            errors: errors.iter().map(FieldError::cause).collect(),
        }
    }

    /// The errors' text, one line each.
    pub fn message(&self) -> &str {
        &self.message
    }
}
