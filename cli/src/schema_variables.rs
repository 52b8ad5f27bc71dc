//! `--schema PATH` and `--resource-root`: `self` and `oldSelf` typed by an OpenAPI v3 schema
//! as for a CRD rule at the schema's root (through `kcel_stdlib::kubernetes::crd`), with their values
//! read under the schema (escaped field names, formats, set and map lists).

use std::collections::HashMap;
use std::sync::Arc;

use kcel::{Env, Value};
use kcel_stdlib::kubernetes::crd::SchemaSizes;
use kcel_stdlib::kubernetes::crd::to_value;
use kcel_stdlib::kubernetes::crd::{DeclType, Schema, SchemaTypes, crd_version_schemas};

use crate::args::SchemaArgs;
use crate::input;
use crate::usage_error::UsageError;

/// The variables a schema types.
pub const SCHEMA_VARIABLES: [&str; 2] = ["self", "oldSelf"];

/// A loaded schema: the root's type.
pub struct RootSchema {
    root: Arc<DeclType>,
}

impl RootSchema {
    /// Reads `--schema` (None without it) and declares `self` and `oldSelf` on `env`.
    pub fn load(args: &SchemaArgs, env: &mut Env) -> Result<Option<RootSchema>, UsageError> {
        let Some(path) = &args.schema else {
            return Ok(None);
        };
        let json = input::read_document(path)?;
        let schema =
            if json.get("kind").and_then(|k| k.as_str()) == Some("CustomResourceDefinition") {
                // A whole CRD: its first version's openAPIV3Schema.
                crd_version_schemas(&json)
                    .map_err(|error| UsageError::Definition {
                        path: path.display().to_string(),
                        error,
                    })?
                    .into_iter()
                    .next()
                    .map(|(_, schema, _)| schema)
                    .ok_or_else(|| UsageError::NoCrdSchema(path.display().to_string()))?
            } else {
                Schema::from_json(&json).map_err(|error| UsageError::NotASchema {
                    path: path.display().to_string(),
                    error,
                })?
            };
        let (types, root) =
            SchemaTypes::build(&schema, "selfType", args.resource_root).map_err(|error| {
                UsageError::SchemaTooDeep {
                    path: path.display().to_string(),
                    error,
                }
            })?;
        let root = root.ok_or_else(|| UsageError::UntypedSchemaRoot(path.display().to_string()))?;
        env.set_type_provider(Arc::new(types));
        for name in SCHEMA_VARIABLES {
            env.declare(name, root.cel.clone());
        }
        Ok(Some(RootSchema { root }))
    }

    /// The sizes of `self` paths, for cost estimates.
    pub fn sizes(&self) -> SchemaSizes {
        SchemaSizes {
            root: self.root.clone(),
        }
    }

    /// Reads the `--var` values of `self` and `oldSelf` under the schema into `values`.
    pub fn bind(
        &self,
        vars: &[(String, String)],
        stdin_used: &mut bool,
        values: &mut HashMap<String, Value>,
    ) -> Result<(), UsageError> {
        for (name, spec) in vars.iter().filter(|(n, _)| is_schema_variable(n)) {
            if values.contains_key(name) {
                return Err(UsageError::GivenTwice(name.clone()));
            }
            let text =
                input::read_spec(spec, stdin_used).map_err(|error| UsageError::VariableInput {
                    name: name.clone(),
                    error,
                })?;
            let json = kcel_stdlib::documents::parse_document(&text).map_err(|error| {
                UsageError::VariableDocument {
                    name: name.clone(),
                    error,
                }
            })?;
            let value =
                to_value(&json, &self.root).map_err(|error| UsageError::VariableSchema {
                    name: name.clone(),
                    error,
                })?;
            values.insert(name.clone(), value);
        }
        Ok(())
    }
}

/// Whether `--schema` types this variable.
pub fn is_schema_variable(name: &str) -> bool {
    SCHEMA_VARIABLES.contains(&name)
}
