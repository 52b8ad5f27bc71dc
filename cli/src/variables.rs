//! Variables from `--var NAME=VALUE` and `--declare NAME=TYPE`: reading the text (inline,
//! `@PATH` or `@-`), parsing it as JSON or YAML, and fitting it to the declared type.

use std::collections::HashMap;

use kcel::{Env, Type, Value};

use kcel_stdlib::documents::parse_value;

use crate::input::read_spec;
use crate::schema_variables::{RootSchema, is_schema_variable};
use crate::usage_error::{EmptySource, UsageError};

/// Declares the `--declare`d variables on `env` after checking their types, and the
/// `--var` ones without a declaration as `dyn` (values are not read). Returns the declared
/// types by name.
pub fn declare<'a>(
    env: &mut Env,
    vars: &[(String, String)],
    declarations: &'a [(String, Type)],
    schema: Option<&RootSchema>,
) -> Result<HashMap<&'a str, &'a Type>, UsageError> {
    let mut types: HashMap<&str, &Type> = HashMap::new();
    for (name, ty) in declarations {
        if schema.is_some() && is_schema_variable(name) {
            return Err(UsageError::TypedBySchema(name.clone()));
        }
        if types.insert(name, ty).is_some() {
            return Err(UsageError::DeclaredTwice(name.clone()));
        }
        env.check_declared_type(ty)
            .map_err(|error| UsageError::DeclaredType {
                name: name.clone(),
                error,
            })?;
        env.declare(name.clone(), ty.clone());
    }
    for (name, _) in vars {
        let schema_typed = schema.is_some() && is_schema_variable(name);
        if !schema_typed && !types.contains_key(name.as_str()) {
            env.declare(name.clone(), Type::Dyn);
        }
    }
    Ok(types)
}

/// Declares every variable on `env` (given-but-undeclared ones as `dyn`) and loads the values;
/// with `--schema`, `self` and `oldSelf` are read under the schema (which declared them).
/// `stdin_used` says whether stdin was read already. Returns the values by name; errors are
/// usage errors (exit status 2).
pub fn bind(
    env: &mut Env,
    vars: &[(String, String)],
    declarations: &[(String, Type)],
    schema: Option<&RootSchema>,
    stdin_used: &mut bool,
) -> Result<HashMap<String, Value>, UsageError> {
    let types = declare(env, vars, declarations, schema)?;
    let mut values = HashMap::new();
    if let Some(schema) = schema {
        schema.bind(vars, stdin_used, &mut values)?;
    }
    for (name, spec) in vars {
        if schema.is_some() && is_schema_variable(name) {
            continue;
        }
        if values.contains_key(name) {
            return Err(UsageError::GivenTwice(name.clone()));
        }
        let text = read_spec(spec, stdin_used).map_err(|error| UsageError::VariableInput {
            name: name.clone(),
            error,
        })?;
        if text.trim().is_empty() {
            let from = match spec.strip_prefix('@') {
                Some("-") => EmptySource::Stdin,
                Some(path) => EmptySource::File(path.to_string()),
                None => EmptySource::Inline,
            };
            return Err(UsageError::EmptyVariable {
                name: name.clone(),
                from,
            });
        }
        let value = parse_value(&text).map_err(|error| UsageError::VariableDocument {
            name: name.clone(),
            error,
        })?;
        let value = match types.get(name.as_str()) {
            Some(ty) => env
                .fit(value, ty)
                .map_err(|error| UsageError::VariableFit {
                    name: name.clone(),
                    error,
                })?,
            None => value,
        };
        values.insert(name.clone(), value);
    }
    Ok(values)
}

/// A hint for an evaluation error about variables that are declared but not bound
/// (`no such attribute(s): t`): how to bind them.
pub fn unbound_hint(
    error: &kcel::EvalError,
    env: &Env,
    values: &HashMap<String, Value>,
) -> Option<String> {
    let kcel::EvalErrorKind::NoSuchAttribute(attribute) = error.kind() else {
        return None;
    };
    let unbound: Vec<&str> = env
        .variables()
        .keys()
        .filter(|name| !values.contains_key(*name))
        .map(String::as_str)
        .collect();
    let named: Vec<&str> = unbound
        .iter()
        .copied()
        .filter(|name| *name == attribute.as_str())
        .collect();
    let names = if named.is_empty() { unbound } else { named };
    let first = names.first()?;
    Some(format!(
        "hint: {} declared but not bound; give a value with --var {first}=VALUE (JSON or YAML, @FILE or @-)",
        names
            .iter()
            .map(|n| format!("'{n}'"))
            .collect::<Vec<_>>()
            .join(", ")
            + if names.len() == 1 { " is" } else { " are" }
    ))
}
