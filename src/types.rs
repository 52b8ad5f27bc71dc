//! CEL types, as declarations and (later) the checker use them, and a parser for CEL's type
//! syntax (`list(int)`, `map(string, dyn)`, `optional_type(A)`, `net.IP`).

use std::fmt;
use std::sync::Arc;

/// A CEL type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `dyn`: any value, checked at run time.
    Dyn,
    /// `null_type`.
    Null,
    /// `bool`.
    Bool,
    /// `int` (64-bit signed).
    Int,
    /// `uint` (64-bit unsigned).
    Uint,
    /// `double` (64-bit floating point).
    Double,
    /// `string` (Unicode text).
    String,
    /// `bytes`.
    Bytes,
    /// `google.protobuf.Timestamp`.
    Timestamp,
    /// `google.protobuf.Duration`.
    Duration,
    /// The type of an expression that cannot be typed (the checker reports why).
    Error,
    /// `list(T)`.
    List(Arc<Type>),
    /// `map(K, V)`.
    Map(Arc<Type>, Arc<Type>),
    /// `type(T)`; plain `type` is `type(dyn)`.
    TypeOf(Arc<Type>),
    /// `optional_type(T)`.
    Optional(Arc<Type>),
    /// A type parameter of a generic overload (`A`, `K`, `V`).
    Param(Arc<str>),
    /// An opaque library type by name, with type parameters if any (`net.IP`).
    Named(Arc<str>, Vec<Type>),
    /// An object (message) type with fields, supplied by a type provider.
    Object(Arc<str>),
}

impl Type {
    /// `list(elem)`.
    pub fn list(elem: Type) -> Type {
        Type::List(Arc::new(elem))
    }

    /// `map(key, value)`.
    pub fn map(key: Type, value: Type) -> Type {
        Type::Map(Arc::new(key), Arc::new(value))
    }

    /// Parses CEL type syntax. Single upper-case letters (optionally followed by digits) are
    /// type parameters.
    pub fn parse(text: &str) -> Result<Type, TypeSyntaxError> {
        let mut p = TypeParser { s: text, pos: 0 };
        let t = p.parse_type(0)?;
        p.skip_ws();
        if p.pos != p.s.len() {
            return Err(TypeSyntaxError::Trailing {
                rest: p.s[p.pos..].to_string(),
                text: text.to_string(),
            });
        }
        Ok(t)
    }
}

struct TypeParser<'a> {
    s: &'a str,
    pos: usize,
}

impl TypeParser<'_> {
    fn skip_ws(&mut self) {
        while let Some(c) = self.s[self.pos..]
            .chars()
            .next()
            .filter(|c| c.is_whitespace())
        {
            self.pos += c.len_utf8();
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.s[self.pos..].starts_with(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn parse_type(&mut self, depth: usize) -> Result<Type, TypeSyntaxError> {
        if depth > 32 {
            return Err(TypeSyntaxError::TooDeep);
        }
        self.skip_ws();
        let start = self.pos;
        while let Some(c) = self.s[self.pos..]
            .chars()
            .next()
            .filter(|&c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            self.pos += c.len_utf8();
        }
        let name = &self.s[start..self.pos];
        if name.is_empty() {
            return Err(TypeSyntaxError::ExpectedName(self.s.to_string()));
        }
        let mut params = Vec::new();
        if self.eat('(') {
            loop {
                params.push(self.parse_type(depth + 1)?);
                if self.eat(')') {
                    break;
                }
                if !self.eat(',') {
                    return Err(TypeSyntaxError::ExpectedSeparator(self.s.to_string()));
                }
            }
        }
        let arity = |n: usize| -> Result<(), TypeSyntaxError> {
            if params.len() == n {
                Ok(())
            } else {
                Err(TypeSyntaxError::Arity {
                    name: name.to_string(),
                    count: n,
                })
            }
        };
        let mut ps = params.clone().into_iter();
        let mut next = || Arc::new(ps.next().unwrap_or(Type::Dyn));
        Ok(match name {
            "dyn" => Type::Dyn,
            "null" | "null_type" => Type::Null,
            "bool" => Type::Bool,
            "int" => Type::Int,
            "uint" => Type::Uint,
            "double" => Type::Double,
            "string" => Type::String,
            "bytes" => Type::Bytes,
            "error" => Type::Error,
            "timestamp" | "google.protobuf.Timestamp" => Type::Timestamp,
            "duration" | "google.protobuf.Duration" => Type::Duration,
            "list" => {
                arity(1)?;
                Type::List(next())
            }
            "map" => {
                arity(2)?;
                Type::Map(next(), next())
            }
            "optional_type" => {
                arity(1)?;
                Type::Optional(next())
            }
            "type" => {
                if params.len() > 1 {
                    return Err(TypeSyntaxError::TypeArity);
                }
                Type::TypeOf(next())
            }
            n if is_type_param(n) && params.is_empty() => Type::Param(n.into()),
            n => Type::Named(n.into(), params),
        })
    }
}

fn is_type_param(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase()) && chars.all(|c| c.is_ascii_digit())
}

/// Formats types as cel-go's checker does in its messages (`list(int)`, `timestamp`, `null`).
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Dyn => f.write_str("dyn"),
            Type::Null => f.write_str("null"),
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::Uint => f.write_str("uint"),
            Type::Double => f.write_str("double"),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            Type::Timestamp => f.write_str("timestamp"),
            Type::Duration => f.write_str("duration"),
            Type::Error => f.write_str("!error!"),
            Type::List(e) => write!(f, "list({e})"),
            Type::Map(k, v) => write!(f, "map({k}, {v})"),
            Type::TypeOf(t) => write!(f, "type({t})"),
            Type::Optional(t) => write!(f, "optional_type({t})"),
            Type::Param(p) => f.write_str(p),
            Type::Object(n) => f.write_str(n),
            Type::Named(n, ps) => {
                f.write_str(n)?;
                if !ps.is_empty() {
                    f.write_str("(")?;
                    for (i, p) in ps.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{p}")?;
                    }
                    f.write_str(")")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_round_trip() {
        for t in [
            "int",
            "list(int)",
            "map(string, dyn)",
            "optional_type(list(A))",
            "type(int)",
            "net.IP",
            "timestamp",
            "duration",
        ] {
            assert_eq!(Type::parse(t).unwrap().to_string(), t);
        }
        assert_eq!(Type::parse("K").unwrap(), Type::Param("K".into()));
    }

    #[test]
    fn rejects_bad_syntax() {
        assert!(Type::parse("list(").is_err());
        assert!(Type::parse("map(int)").is_err());
        assert!(Type::parse("").is_err());
        assert!(Type::parse("int int").is_err());
    }
}

/// An error in CEL type syntax ([`Type::parse`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TypeSyntaxError {
    /// Type parameters nested more than 32 deep.
    #[error("type nested too deeply")]
    TooDeep,
    /// Text left after a complete type.
    #[error("unexpected '{rest}' in type '{text}'")]
    Trailing {
        /// The text left over.
        rest: String,
        /// The whole text.
        text: String,
    },
    /// No type name where one must be.
    #[error("expected a type name in '{0}'")]
    ExpectedName(String),
    /// Type parameters not separated by `,` or closed by `)`.
    #[error("expected ',' or ')' in type '{0}'")]
    ExpectedSeparator(String),
    /// A built-in type with the wrong number of parameters.
    #[error("type '{name}' takes {count} parameter(s)")]
    Arity {
        /// The type's name.
        name: String,
        /// The parameters it takes.
        count: usize,
    },
    /// `type(...)` with more than one parameter.
    #[error("type 'type' takes at most 1 parameter")]
    TypeArity,
}
