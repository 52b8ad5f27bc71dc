//! Fitting input values, read from JSON or YAML, to the types variables are declared with
//! (what the CLI's `--var`, the playground and the server's tests need alike).

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::error::FitError;
use crate::{Env, Key, Map, Type, Value};

impl Env {
    /// Fits a value read from JSON or YAML to a declared type where JSON has no native
    /// form: ints to double or uint, strings to timestamp, duration (CEL syntax) or bytes
    /// (base64), string map keys to int, uint or bool keys; `null` to `optional.none()`.
    /// Other mismatches are errors, worded for the user.
    ///
    /// ```
    /// use kcel::{Env, Type, Value};
    ///
    /// let env = Env::new();
    /// let ty = Type::parse("map(int, double)").unwrap();
    /// let json = serde_json::json!({"1": 2});
    /// assert_eq!(env.fit(Value::from(&json), &ty).unwrap().to_string(), "{1: 2.0}");
    /// ```
    pub fn fit(&self, value: Value, ty: &Type) -> Result<Value, FitError> {
        fit(self, value, ty)
    }
}

fn fit(env: &Env, value: Value, ty: &Type) -> Result<Value, FitError> {
    Ok(match (ty, value) {
        (Type::Double, Value::Int(i)) => Value::Double(i as f64),
        (Type::Double, Value::Uint(u)) => Value::Double(u as f64),
        (Type::Uint, Value::Int(i)) if i >= 0 => Value::Uint(i as u64),
        (Type::Timestamp, v @ Value::String(_)) => convert(env, "timestamp", v)?,
        (Type::Duration, v @ Value::String(_)) => convert(env, "duration", v)?,
        (Type::Bytes, Value::String(s)) => Value::Bytes(Arc::from(
            STANDARD
                .decode(s.as_bytes())
                .map_err(|e| FitError::NotBase64(base64_error(e)))?,
        )),
        (Type::List(elem), Value::List(items)) => Value::from(
            items
                .iter()
                .map(|v| fit(env, v.clone(), elem))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        (Type::Map(kt, vt), Value::Map(m)) => {
            let mut map = Map::with_capacity(m.len());
            for (k, v) in m.iter() {
                map.insert(fit_key(k, kt)?, fit(env, v.clone(), vt)?);
            }
            Value::from(map)
        }
        (Type::Optional(_), Value::Null) => Value::Optional(None),
        (Type::Optional(inner), v) => Value::Optional(Some(Arc::new(fit(env, v, inner)?))),
        (Type::Param(_) | Type::Dyn, v) => v,
        (ty, v) if ty.accepts(&v) => v,
        (ty, v) => {
            return Err(FitError::Mismatch {
                found: v.type_name().to_string(),
                declared: ty.clone(),
            });
        }
    })
}

/// A base64 decoding error in words: what is wrong and where.
fn base64_error(e: base64::DecodeError) -> String {
    use base64::DecodeError;
    let printable = |byte: u8| match byte {
        b' ' => "a space".to_string(),
        b'\n' => "a line break".to_string(),
        b if b.is_ascii_graphic() => format!("'{}'", b as char),
        b => format!("byte 0x{b:02x}"),
    };
    match e {
        DecodeError::InvalidByte(offset, byte) => {
            format!(
                "{} at offset {offset} is not a base64 character",
                printable(byte)
            )
        }
        DecodeError::InvalidLength(length) => {
            format!(
                "{length} base64 characters cannot be decoded (a length of 4n, padded with '=')"
            )
        }
        DecodeError::InvalidLastSymbol(offset, byte) => {
            format!(
                "the last character, {} at offset {offset}, has bits set that no byte uses",
                printable(byte)
            )
        }
        DecodeError::InvalidPadding => "the '=' padding is missing or wrong".to_string(),
    }
}

fn fit_key(key: &Key, ty: &Type) -> Result<Key, FitError> {
    let bad = || FitError::Key {
        key: key.to_value().to_string(),
        declared: ty.clone(),
    };
    Ok(match (ty, key) {
        (Type::Int, Key::String(s)) => Key::Int(s.parse().map_err(|_| bad())?),
        (Type::Uint, Key::String(s)) => Key::Uint(s.parse().map_err(|_| bad())?),
        (Type::Uint, Key::Int(i)) => Key::Uint(u64::try_from(*i).map_err(|_| bad())?),
        (Type::Bool, Key::String(s)) => Key::Bool(s.parse().map_err(|_| bad())?),
        (ty, k) if ty.accepts(&k.to_value()) => k.clone(),
        _ => return Err(bad()),
    })
}

/// Calls the environment's global conversion function `name(string)`.
fn convert(env: &Env, name: &str, arg: Value) -> Result<Value, FitError> {
    let args = [arg];
    let overload = env
        .registry()
        .get(name)
        .and_then(|f| f.overloads.iter().find(|o| !o.member && o.accepts(&args)))
        .ok_or_else(|| FitError::NoConversion(name.to_string()))?;
    match overload.implementation.call(&args) {
        Some(Ok(v)) => Ok(v),
        Some(Err(error)) => Err(FitError::Invalid {
            conversion: name.to_string(),
            error,
        }),
        None => Err(FitError::NoConversion(name.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_fit_declared_types() {
        let env = Env::new();
        let t = Type::parse("map(int, list(double))").unwrap();
        let v = fit(&env, Value::from(&serde_json::json!({"1": [1, 2]})), &t).unwrap();
        assert_eq!(v.to_string(), "{1: [1.0, 2.0]}");
        let d = fit(&env, Value::from("1m30s"), &Type::Duration).unwrap();
        assert_eq!(d.to_string(), "duration(\"90s\")");
        assert!(fit(&env, Value::from("x"), &Type::Int).is_err());
        assert!(fit(&env, Value::from("soon"), &Type::Timestamp).is_err());
    }
}
