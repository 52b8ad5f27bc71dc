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
//! assert!(validator.compiled().errors().is_empty());
//! let outcome = validator.validate(&json!({"spec": {"min": 3, "max": 1}}), None);
//! assert_eq!(
//!     outcome.errors[0].to_string(),
//!     "spec: Invalid value: min must not exceed max"
//! );
//! ```

pub(crate) mod compile_rules;
pub(crate) mod conversion_validation;
pub(crate) mod decl_types;
#[cfg(test)]
mod deep_nesting_tests;
pub(crate) mod defaulting;
pub(crate) mod definition;
pub(crate) mod definition_errors;
pub(crate) mod definition_validation;
pub(crate) mod embedded_meta;
pub(crate) mod escaping;
pub(crate) mod field_error;
pub(crate) mod key_index;
pub(crate) mod list_invariants;
pub(crate) mod list_types;
pub(crate) mod openapi;
pub(crate) mod pruning;
pub(crate) mod rule_fields;
pub(crate) mod schema;
pub(crate) mod selectable;
pub(crate) mod sizes;
pub(crate) mod structural;
pub(crate) mod validation;
pub(crate) mod values;
pub(crate) mod versions;

pub use compile_rules::{
    CompileOptions, CompiledSchema, PER_CALL_COST_LIMIT, RuleReport, compile_schema, rule_env,
};
pub use conversion_validation::{ACCEPTED_REVIEW_VERSIONS, conversion_errors, decode_ca_bundle};
pub use decl_types::{DeclType, Field, SchemaTooDeep, SchemaTypes};
pub use definition::CrdValidator;
pub use definition_errors::{CrdError, DefinitionError, NotServed, SchemaFailure};
pub use definition_validation::{
    condition_true, default_names, definition_errors, definition_errors_before_schemas,
    definition_name_problems, definition_schema_errors,
};
pub use field_error::{
    ErrorType, FieldCause, FieldError, FieldPath, aggregate, go_json_float, go_json_number,
    go_json_quote, go_json_type, go_json_value, invalid_message,
};
pub use schema::{
    AdditionalProperties, Dependency, Items, Schema, Unsupported, ValidationRule,
    crd_version_schemas,
};
pub use selectable::{
    MAX_SELECTABLE_FIELDS, selectable_field_errors, selectable_field_label, selectable_field_value,
};
pub use sizes::SchemaSizes;
pub use validation::{Outcome, PER_OBJECT_COST_BUDGET, RuleCost, Validator};
pub use values::{DataError, to_value};
pub use versions::{compare_versions, deprecation_warning};
