//! Kubernetes schemas in CEL: OpenAPI v3 structural schemas as CEL types and values,
//! property-name escaping, list-type semantics, size estimation, and validation of CRD
//! `x-kubernetes-validations` rules as kube-apiserver performs it.
//!
//! ```
//! use kcel_stdlib::kubernetes::crd::{CompileOptions, Schema, Validator};
//! use serde_json::json;
//!
//! let schema = Schema::from_json(&json!({
//!     "type": "object",
//!     "properties": {"spec": {
//!         "type": "object",
//!         "x-kubernetes-validations": [{"rule": "self.min <= self.max", "message": "min must not exceed max"}],
//!         "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}}
//!     }}
//! })).unwrap();
//! let validator = Validator::new(&schema, CompileOptions::default());
//! assert!(validator.compiled.errors.is_empty());
//! let outcome = validator.validate(&json!({"spec": {"min": 3, "max": 1}}), None);
//! assert_eq!(
//!     outcome.errors[0].to_string(),
//!     "spec: Invalid value: min must not exceed max"
//! );
//! ```

pub mod compile;
pub mod decl_types;
pub mod defaulting;
pub mod definition;
pub mod errors;
pub mod escaping;
pub mod field_error;
pub mod list_invariants;
pub mod list_types;
pub mod openapi;
pub mod pruning;
pub mod rule_fields;
pub mod schema;
pub mod sizes;
pub mod structural;
pub mod validation;
pub mod values;

pub use compile::{CompileOptions, CompiledSchema, RuleReport, rule_env};
pub use decl_types::{DeclType, SchemaTypes};
pub use definition::CrdValidator;
pub use errors::{CrdError, DefinitionError, NotServed};
pub use field_error::{ErrorType, FieldError, FieldPath};
pub use schema::{Schema, ValidationRule, crd_version_schemas};
pub use validation::{Outcome, RuleCost, Validator};
