//! Variables from `--var NAME=VALUE` and `--declare NAME=TYPE`: reading the text (inline,
//! `@PATH` or `@-`), parsing it as JSON or YAML, and fitting it to the declared type.

use std::collections::HashMap;

use kcel::{Env, Key, Map, Type, Value};

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
        let value = parse_document(&text).map_err(|e| format!("variable '{name}': {e}"))?;
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

/// Parses JSON, or else YAML (one document). Text that looks like JSON but is neither gets the
/// JSON parser's message; JSON nested too deeply is not re-read as YAML (whose parser would
/// take minutes over it).
pub fn parse_document(text: &str) -> Result<Value, String> {
    let json_error = match serde_json::from_str::<serde_json::Value>(text) {
        Ok(json) => return Ok(Value::from(json)),
        Err(e) => e,
    };
    let looks_like_json = text.trim_start().starts_with(['{', '[', '"']);
    if looks_like_json
        && json_error
            .to_string()
            .starts_with("recursion limit exceeded")
    {
        return Err(format!("invalid JSON: {json_error}"));
    }
    match serde_norway::from_str::<serde_norway::Value>(text) {
        Ok(yaml) => from_yaml(&yaml),
        Err(yaml_error) => {
            if looks_like_json {
                Err(format!("invalid JSON: {json_error}"))
            } else {
                Err(format!("invalid YAML: {yaml_error}"))
            }
        }
    }
}

/// Converts a YAML value; maps may have string, integer or boolean keys.
fn from_yaml(yaml: &serde_norway::Value) -> Result<Value, String> {
    use serde_norway::Value as Y;
    Ok(match yaml {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(*b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Int(i)
            } else if let Some(u) = n.as_u64() {
                Value::Uint(u)
            } else {
                Value::Double(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Y::String(s) => Value::from(s.as_str()),
        Y::Sequence(items) => {
            Value::from(items.iter().map(from_yaml).collect::<Result<Vec<_>, _>>()?)
        }
        Y::Mapping(entries) => {
            let mut map = Map::with_capacity(entries.len());
            for (k, v) in entries {
                let key = match from_yaml(k)? {
                    Value::String(s) => Key::String(s),
                    Value::Int(i) => Key::Int(i),
                    Value::Uint(u) => Key::Uint(u),
                    Value::Bool(b) => Key::Bool(b),
                    other => {
                        return Err(format!(
                            "unsupported map key {other} (keys must be strings, integers or booleans)"
                        ));
                    }
                };
                map.insert(key, from_yaml(v)?);
            }
            Value::from(map)
        }
        Y::Tagged(tagged) => from_yaml(&tagged.value)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_yaml_documents() {
        assert_eq!(parse_document("[1, 2.5]").unwrap().to_string(), "[1, 2.5]");
        assert_eq!(
            parse_document("a: 1\nb: [x, true]\n").unwrap().to_string(),
            "{\"a\": 1, \"b\": [\"x\", true]}"
        );
        assert_eq!(
            parse_document("1: one").unwrap().to_string(),
            "{1: \"one\"}"
        );
        assert!(
            parse_document("{\"a\": 1")
                .unwrap_err()
                .starts_with("invalid JSON")
        );
        assert!(
            parse_document("a: [1")
                .unwrap_err()
                .starts_with("invalid YAML")
        );
    }
}
