//! Variables from `--var NAME=VALUE` and `--declare NAME=TYPE`: reading the text (inline,
//! `@PATH` or `@-`), parsing it as JSON or YAML, and fitting it to the declared type.

use std::collections::HashMap;

use kcel::{Env, Type, Value};

use kcel_stdlib::documents::parse_value;

use crate::input::read_spec;
use crate::schema::{RootSchema, is_schema_variable};

/// Declares every variable on `env` (given-but-undeclared ones as `dyn`) and loads the values;
/// with `--schema`, `self` and `oldSelf` are read under the schema (which declared them).
/// Returns the values by name; errors are usage errors (exit status 2).
pub fn bind(
    env: &mut Env,
    vars: &[(String, String)],
    declarations: &[(String, Type)],
    schema: Option<&RootSchema>,
) -> Result<HashMap<String, Value>, String> {
    let mut types: HashMap<&str, &Type> = HashMap::new();
    for (name, ty) in declarations {
        if schema.is_some() && is_schema_variable(name) {
            return Err(format!(
                "variable '{name}' is typed by --schema; do not --declare it"
            ));
        }
        if types.insert(name, ty).is_some() {
            return Err(format!("variable '{name}' is declared twice"));
        }
        env.declare(name.clone(), ty.clone());
    }
    let mut values = HashMap::new();
    let mut stdin_used = false;
    if let Some(schema) = schema {
        schema.bind(vars, &mut stdin_used, &mut values)?;
    }
    for (name, spec) in vars {
        if schema.is_some() && is_schema_variable(name) {
            continue;
        }
        if values.contains_key(name) {
            return Err(format!("variable '{name}' is given twice"));
        }
        let text =
            read_spec(spec, &mut stdin_used).map_err(|e| format!("variable '{name}': {e}"))?;
        let value = parse_value(&text).map_err(|e| format!("variable '{name}': {e}"))?;
        let value = match types.get(name.as_str()) {
            Some(ty) => env
                .fit(value, ty)
                .map_err(|e| format!("variable '{name}': {e}"))?,
            None => {
                env.declare(name.clone(), Type::Dyn);
                value
            }
        };
        values.insert(name.clone(), value);
    }
    Ok(values)
}
