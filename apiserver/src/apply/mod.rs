//! Server-side apply and field management, following structured-merge-diff and
//! kube-apiserver's field manager:
//!
//! - [`fieldpath`], [`apply_schema`], [`typed`]: the library's structured merge
//!   (`kcel_stdlib::kubernetes::merge`: paths and field sets, what merging needs of a
//!   schema over the vendored OpenAPI schemas and CRD structural schemas, merge and
//!   comparison of values), which MutatingAdmissionPolicy's apply configurations use too;
//! - [`updater`]: the three-way ownership computation of updates and applies, with
//!   conflicts, independent of HTTP;
//! - [`managed_fields`]: `metadata.managedFields` entries as kube-apiserver writes them.

pub mod managed_fields;
pub mod strict;
pub mod updater;

pub use kcel_stdlib::kubernetes::merge::{apply_schema, fieldpath, typed};

#[cfg(test)]
mod upstream_cases;

pub use managed_fields::{
    ApplyError, ConflictText, LAST_APPLIED, Writer, apply, conflict_message, manager_name, update,
    update_by_server,
};
