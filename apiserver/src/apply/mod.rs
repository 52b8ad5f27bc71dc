//! Server-side apply and field management, following structured-merge-diff and
//! kube-apiserver's field manager:
//!
//! - [`fieldpath`]: paths, sets of paths and their `FieldsV1` form;
//! - [`schema`]: what merging needs of a schema ([`schema::ApplySchema`]), implemented over
//!   the vendored OpenAPI documents (CRD structural schemas can implement it too);
//! - [`typed`]: field sets, comparison, merge and removal of values with a schema;
//! - [`updater`]: the three-way ownership computation of updates and applies, with
//!   conflicts, independent of HTTP;
//! - [`managed_fields`]: `metadata.managedFields` entries as kube-apiserver writes them.

pub mod fieldpath;
pub mod managed_fields;
pub mod schema;
pub mod strict;
pub mod typed;
pub mod updater;

#[cfg(test)]
mod upstream_cases;

pub use managed_fields::{
    ApplyError, ConflictText, LAST_APPLIED, Writer, apply, conflict_message, manager_name, update,
};
