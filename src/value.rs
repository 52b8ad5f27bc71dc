//! The one CEL value type.
//!
//! Heap values are shared through `Arc`, so cloning a [`Value`] never deep-copies a string,
//! list or map. Equality follows cel-go's heterogeneous equality: numbers compare across
//! int, uint and double, and values of unrelated types are simply unequal.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use chrono::TimeDelta;

use crate::error::EvalError;
use crate::types::Type;

mod document;
mod equality_set;
mod json;
mod list;
mod map;
mod natural_json;
mod object_lookup;
mod timestamp;

pub use document::from_document;
pub use equality_set::{EqualitySet, equality_hash};
pub(crate) use json::InDocument;
pub use json::JsonNode;
pub use list::{List, ListSemantics};
pub(crate) use map::str_eq;
pub(crate) use map::string_key_hash;
pub use map::{Key, Map};
pub use natural_json::Natural;
pub(crate) use object_lookup::{object_get, object_get_hinted};
pub use timestamp::Timestamp;

/// Shorthand for results of evaluation.
pub type EvalResult<T = Value> = Result<T, EvalError>;

/// Which values a type admits (here rather than in `types.rs`, so that types know nothing
/// of values).
impl Type {
    /// Whether a runtime value may belong to this type (type parameters and `dyn` accept
    /// everything). Used to pick an overload at run time.
    pub fn accepts(&self, v: &Value) -> bool {
        match (self, v) {
            (Type::Dyn | Type::Param(_), _) => true,
            (Type::Null, Value::Null)
            | (Type::Bool, Value::Bool(_))
            | (Type::Int, Value::Int(_))
            | (Type::Uint, Value::Uint(_))
            | (Type::Double, Value::Double(_))
            | (Type::String, Value::String(_))
            | (Type::Bytes, Value::Bytes(_))
            | (Type::Timestamp, Value::Timestamp(_))
            | (Type::Duration, Value::Duration(_))
            | (Type::List(_), Value::List(_))
            | (Type::Map(..), Value::Map(_))
            | (Type::TypeOf(_), Value::Type(_))
            | (Type::Optional(_), Value::Optional(_)) => true,
            (Type::Named(name, _), Value::Opaque(o)) => o.type_name() == &**name,
            _ => false,
        }
    }

    /// [`Type::accepts`] for every value of a kind ([`Value::kind`]): `None` when the answer
    /// depends on the value (a library type against an opaque value).
    pub(crate) fn accepts_kind(&self, kind: u8) -> Option<bool> {
        use crate::value::kind;
        Some(match self {
            Type::Dyn | Type::Param(_) => true,
            Type::Null => kind == kind::NULL,
            Type::Bool => kind == kind::BOOL,
            Type::Int => kind == kind::INT,
            Type::Uint => kind == kind::UINT,
            Type::Double => kind == kind::DOUBLE,
            Type::String => kind == kind::STRING,
            Type::Bytes => kind == kind::BYTES,
            Type::Timestamp => kind == kind::TIMESTAMP,
            Type::Duration => kind == kind::DURATION,
            Type::List(_) => kind == kind::LIST,
            Type::Map(..) => kind == kind::MAP,
            Type::TypeOf(_) => kind == kind::TYPE,
            Type::Optional(_) => kind == kind::OPTIONAL,
            Type::Named(..) if kind == kind::OPAQUE => return None,
            _ => false,
        })
    }
}

/// Whether the text of `value` (CEL syntax or JSON) would be longer than `max_bytes`: a walk
/// that counts at least one byte for every element and scalar, each string's and bytes'
/// length, and stops as soon as the count passes `max_bytes` (so it takes at most
/// `max_bytes` steps, however much of the value is shared). For front ends, before they
/// print a result.
pub fn text_exceeds(value: &Value, max_bytes: u64) -> bool {
    fn walk(v: &Value, left: &mut u64) -> bool {
        let own = match v {
            Value::String(s) => s.len() as u64 + 2,
            Value::Bytes(b) => b.len() as u64 + 3,
            Value::List(items) => 2 + 2 * items.len() as u64,
            Value::Map(m) => 2 + 4 * m.len() as u64,
            _ => 1,
        };
        if own > *left {
            return true;
        }
        *left -= own;
        match v {
            Value::List(items) => items.iter().any(|x| walk(x, left)),
            Value::Map(m) => m
                .iter()
                .any(|(k, x)| walk(&k.to_value(), left) || walk(x, left)),
            Value::Optional(Some(x)) => walk(x, left),
            Value::Json(j) => walk(&j.materialize(), left),
            _ => false,
        }
    }
    let mut left = max_bytes;
    walk(value, &mut left)
}

// The memory budget counts a `Value` per list element or map entry as `VALUE_BYTES`.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<Value>() as u64 == crate::budget::VALUE_BYTES);

/// A CEL value.
#[derive(Clone)]
pub enum Value {
    /// `null`.
    Null,
    /// A `bool`.
    Bool(bool),
    /// An `int`.
    Int(i64),
    /// A `uint`.
    Uint(u64),
    /// A `double`.
    Double(f64),
    /// A `string`.
    String(Arc<str>),
    /// A `bytes` value.
    Bytes(Arc<[u8]>),
    /// A list. Behind an `Arc` so that a uniquely owned accumulator can grow in place; a
    /// Kubernetes set or map list carries its semantics in the payload ([`List`]).
    List(Arc<List>),
    /// A map ([`Map`]: keys of the kinds CEL allows, [`Key`]).
    Map(Arc<Map>),
    /// `google.protobuf.Timestamp`: an instant and the offset it is shown at ([`Timestamp`]).
    Timestamp(Timestamp),
    /// `google.protobuf.Duration`.
    Duration(TimeDelta),
    /// A type used as a value (`int`, `type(x)`).
    Type(TypeValue),
    /// `optional_type(T)`: `None` is `optional.none()`.
    Optional(Option<Arc<Value>>),
    /// A library-defined value (IP address, quantity, URL, ...).
    Opaque(Arc<dyn Opaque>),
    /// The evaluator's own: an object or array of a shared JSON document, read in place
    /// ([`Value::from_shared_json`], [`crate::JsonActivation`]). Its payload is opaque; the
    /// interpreter converts it before it reaches a function, a result or an error, so
    /// library code sees ordinary maps and lists ([`Value::materialize`] converts it
    /// elsewhere).
    Json(JsonNode),
}

/// A value type defined by a library rather than by the core language.
pub trait Opaque: fmt::Debug + Send + Sync {
    /// The CEL type name, e.g. `net.IP`.
    fn type_name(&self) -> &str;
    /// Equality with another opaque value (of any type).
    fn equals(&self, other: &dyn Opaque) -> bool;
    /// Access to the concrete type, for downcasting.
    fn as_any(&self) -> &dyn std::any::Any;
    /// The value's string form, used by `string()` and for display.
    fn to_display_string(&self) -> String;
    /// cel-go's `Equal` for `self == other` (`other` not `null`): `Some(equal)`, or `None`
    /// for a `no such overload` error. The default is CEL's heterogeneous equality (`false`
    /// for other types); Kubernetes' types error on other types instead.
    fn equal_to(&self, other: &Value) -> Option<bool> {
        Some(matches!(other, Value::Opaque(o) if self.equals(o.as_ref())))
    }
    /// Field selection (`v.name`, `has(v.name)`) on a value with fields computed on demand
    /// (Kubernetes' lazily evaluated `variables`): `None` when the value has no such field,
    /// `Some(Err(error))` when computing the field failed. Default: no fields.
    fn field(&self, _name: &str) -> Option<Result<Value, crate::EvalError>> {
        None
    }
    /// The size cel-go's cost model gives the value (`traits.Sizer`: entries of a map read
    /// lazily, ...), for [`crate::library::actual_size`]. Default: none (size 1).
    fn size(&self) -> Option<u64> {
        None
    }
    /// The ordinary value this value stands for, converted whole, when it is one read on
    /// demand (Kubernetes' unstructured objects, whose fields convert as rules read them),
    /// for functions that need the value whole; `Some(Err(error))` when the data does not
    /// convert. Default: none (a value type of its own).
    fn to_value(&self) -> Option<Result<Value, crate::EvalError>> {
        None
    }
}

/// A type value. Built-in types need no allocation; other types carry their name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeValue {
    /// `null_type`.
    Null,
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `uint`.
    Uint,
    /// `double`.
    Double,
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// `list`.
    List,
    /// `map`.
    Map,
    /// `type`.
    Type,
    /// `google.protobuf.Timestamp`.
    Timestamp,
    /// `google.protobuf.Duration`.
    Duration,
    /// `optional_type`.
    Optional,
    /// Any other type, by its fully qualified name.
    Named(Arc<String>),
}

impl TypeValue {
    /// The CEL name of this type, as `type()` values print.
    pub fn name(&self) -> &str {
        match self {
            TypeValue::Null => "null_type",
            TypeValue::Bool => "bool",
            TypeValue::Int => "int",
            TypeValue::Uint => "uint",
            TypeValue::Double => "double",
            TypeValue::String => "string",
            TypeValue::Bytes => "bytes",
            TypeValue::List => "list",
            TypeValue::Map => "map",
            TypeValue::Type => "type",
            TypeValue::Timestamp => "google.protobuf.Timestamp",
            TypeValue::Duration => "google.protobuf.Duration",
            TypeValue::Optional => "optional_type",
            TypeValue::Named(n) => n,
        }
    }

    /// The type value for a name, if the name is one of CEL's built-in type identifiers.
    pub fn builtin(name: &str) -> Option<TypeValue> {
        Some(match name {
            "null_type" => TypeValue::Null,
            "bool" => TypeValue::Bool,
            "int" => TypeValue::Int,
            "uint" => TypeValue::Uint,
            "double" => TypeValue::Double,
            "string" => TypeValue::String,
            "bytes" => TypeValue::Bytes,
            "list" => TypeValue::List,
            "map" => TypeValue::Map,
            "type" => TypeValue::Type,
            "google.protobuf.Timestamp" => TypeValue::Timestamp,
            "google.protobuf.Duration" => TypeValue::Duration,
            "optional_type" => TypeValue::Optional,
            _ => return None,
        })
    }
}

impl fmt::Display for TypeValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Small integers naming the variants of [`Value`] ([`Value::kind`]), for tables indexed by
/// argument kinds.
pub(crate) mod kind {
    pub const NULL: u8 = 0;
    pub const BOOL: u8 = 1;
    pub const INT: u8 = 2;
    pub const UINT: u8 = 3;
    pub const DOUBLE: u8 = 4;
    pub const STRING: u8 = 5;
    pub const BYTES: u8 = 6;
    pub const LIST: u8 = 7;
    pub const MAP: u8 = 8;
    pub const TIMESTAMP: u8 = 9;
    pub const DURATION: u8 = 10;
    pub const TYPE: u8 = 11;
    pub const OPTIONAL: u8 = 12;
    pub const OPAQUE: u8 = 13;
    /// The number of kinds.
    pub const COUNT: usize = 14;
}

impl Value {
    /// Which variant this is (see [`kind`]).
    #[inline]
    pub(crate) fn kind(&self) -> u8 {
        match self {
            Value::Null => kind::NULL,
            Value::Bool(_) => kind::BOOL,
            Value::Int(_) => kind::INT,
            Value::Uint(_) => kind::UINT,
            Value::Double(_) => kind::DOUBLE,
            Value::String(_) => kind::STRING,
            Value::Bytes(_) => kind::BYTES,
            Value::List(_) => kind::LIST,
            Value::Map(_) => kind::MAP,
            Value::Timestamp(_) => kind::TIMESTAMP,
            Value::Duration(_) => kind::DURATION,
            Value::Type(_) => kind::TYPE,
            Value::Optional(_) => kind::OPTIONAL,
            Value::Opaque(_) => kind::OPAQUE,
            Value::Json(j) if j.is_object() => kind::MAP,
            Value::Json(_) => kind::LIST,
        }
    }

    /// The runtime type of this value.
    pub fn type_value(&self) -> TypeValue {
        match self {
            Value::Null => TypeValue::Null,
            Value::Bool(_) => TypeValue::Bool,
            Value::Int(_) => TypeValue::Int,
            Value::Uint(_) => TypeValue::Uint,
            Value::Double(_) => TypeValue::Double,
            Value::String(_) => TypeValue::String,
            Value::Bytes(_) => TypeValue::Bytes,
            Value::List(_) => TypeValue::List,
            Value::Map(_) => TypeValue::Map,
            Value::Timestamp(_) => TypeValue::Timestamp,
            Value::Duration(_) => TypeValue::Duration,
            Value::Type(_) => TypeValue::Type,
            Value::Optional(_) => TypeValue::Optional,
            Value::Opaque(o) => TypeValue::Named(Arc::new(o.type_name().to_string())),
            Value::Json(j) if j.is_object() => TypeValue::Map,
            Value::Json(_) => TypeValue::List,
        }
    }

    /// The runtime type name of this value (`int`, `list`, `net.IP`, ...).
    pub fn type_name(&self) -> &str {
        match self {
            Value::Opaque(o) => o.type_name(),
            other => match other.type_value() {
                TypeValue::Null => "null_type",
                TypeValue::Bool => "bool",
                TypeValue::Int => "int",
                TypeValue::Uint => "uint",
                TypeValue::Double => "double",
                TypeValue::String => "string",
                TypeValue::Bytes => "bytes",
                TypeValue::List => "list",
                TypeValue::Map => "map",
                TypeValue::Type => "type",
                TypeValue::Timestamp => "google.protobuf.Timestamp",
                TypeValue::Duration => "google.protobuf.Duration",
                TypeValue::Optional => "optional_type",
                TypeValue::Named(_) => "unknown",
            },
        }
    }

    /// A string value.
    pub fn string(s: impl Into<Arc<str>>) -> Value {
        Value::String(s.into())
    }

    /// A list value.
    pub fn list(items: impl Into<Vec<Value>>) -> Value {
        Value::List(Arc::new(List::from(items.into())))
    }

    /// CEL equality (`==`): heterogeneous across numeric types, `false` across unrelated
    /// types, element-wise for lists and maps, and `NaN` unequal to itself. Within an
    /// evaluation, the elements of lists and maps compared count against its visit budget
    /// ([`crate::budget::visit`]); past it the answer is `false` and the evaluation fails.
    pub fn cel_eq(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (Null, Null) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Uint(a), Uint(b)) => a == b,
            (Double(a), Double(b)) => a == b,
            (Int(_) | Uint(_) | Double(_), Int(_) | Uint(_) | Double(_)) => {
                numeric_cmp(self, other) == Some(Ordering::Equal)
            }
            (String(a), String(b)) => a == b,
            (Bytes(a), Bytes(b)) => a == b,
            // A typed list's semantics decide; their errors (set equality of non-scalar
            // items) are `false` here, an error only for `==` itself (`logic::equals`).
            (List(a), List(b)) => a.equals(b).unwrap_or(false),
            (Map(a), Map(b)) => {
                a.len() == b.len()
                    && crate::budget::visit(a.len())
                    && a.iter().all(|(k, v)| match b.get_key(k) {
                        Some(w) => v.cel_eq(w),
                        None => false,
                    })
            }
            (Timestamp(a), Timestamp(b)) => a == b,
            (Duration(a), Duration(b)) => a == b,
            (Type(a), Type(b)) => a.name() == b.name(),
            (Optional(a), Optional(b)) => match (a, b) {
                (None, None) => true,
                (Some(x), Some(y)) => x.cel_eq(y),
                _ => false,
            },
            (Opaque(a), Opaque(b)) => a.equals(b.as_ref()),
            (Json(a), _) => a.materialize().cel_eq(other),
            (_, Json(b)) => self.cel_eq(&b.materialize()),
            _ => false,
        }
    }

    /// CEL ordering for `<`, `<=`, `>`, `>=`: defined within bool, string, bytes, timestamp
    /// and duration, and across int, uint and double. `None` means the operands cannot be
    /// ordered (a "no such overload" error for the caller); `Some(None)` is a comparison
    /// involving `NaN` (cel-go reports "NaN values cannot be ordered").
    pub fn cel_cmp(&self, other: &Value) -> Option<Option<Ordering>> {
        use Value::*;
        Some(match (self, other) {
            (Bool(a), Bool(b)) => Some(a.cmp(b)),
            (Int(a), Int(b)) => Some(a.cmp(b)),
            (Uint(a), Uint(b)) => Some(a.cmp(b)),
            (Int(_) | Uint(_) | Double(_), Int(_) | Uint(_) | Double(_)) => {
                numeric_cmp(self, other)
            }
            (String(a), String(b)) => Some(a.cmp(b)),
            (Bytes(a), Bytes(b)) => Some(a.cmp(b)),
            (Timestamp(a), Timestamp(b)) => Some(a.cmp(b)),
            (Duration(a), Duration(b)) => Some(a.cmp(b)),
            _ => return None,
        })
    }
}

/// Compares two numeric values exactly (no rounding through f64 for int/uint pairs).
fn numeric_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    use Value::*;
    match (a, b) {
        (Int(x), Int(y)) => Some(x.cmp(y)),
        (Uint(x), Uint(y)) => Some(x.cmp(y)),
        (Double(x), Double(y)) => x.partial_cmp(y),
        (Int(x), Uint(y)) => Some(if *x < 0 {
            Ordering::Less
        } else {
            (*x as u64).cmp(y)
        }),
        (Uint(_), Int(_)) => numeric_cmp(b, a).map(Ordering::reverse),
        (Int(x), Double(y)) => cmp_i64_f64(*x, *y),
        (Double(_), Int(_)) => numeric_cmp(b, a).map(Ordering::reverse),
        (Uint(x), Double(y)) => cmp_u64_f64(*x, *y),
        (Double(_), Uint(_)) => numeric_cmp(b, a).map(Ordering::reverse),
        _ => None,
    }
}

/// int versus double as cel-go compares them: doubles beyond the int range are larger or
/// smaller, otherwise the int is converted to double (lossily, like cel-go).
fn cmp_i64_f64(x: i64, y: f64) -> Option<Ordering> {
    if y < i64::MIN as f64 {
        return Some(Ordering::Greater);
    }
    if y > i64::MAX as f64 {
        return Some(Ordering::Less);
    }
    (x as f64).partial_cmp(&y)
}

/// uint versus double as cel-go compares them (see [`cmp_i64_f64`]).
fn cmp_u64_f64(x: u64, y: f64) -> Option<Ordering> {
    if y < 0.0 {
        return Some(Ordering::Greater);
    }
    if y > u64::MAX as f64 {
        return Some(Ordering::Less);
    }
    (x as f64).partial_cmp(&y)
}

impl PartialEq for Value {
    /// Same as [`Value::cel_eq`].
    fn eq(&self, other: &Value) -> bool {
        self.cel_eq(other)
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Value {
    /// Formats the value in CEL literal syntax where one exists.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Uint(u) => write!(f, "{u}u"),
            Value::Double(d) => write_double(f, *d),
            Value::String(s) => write_string_literal(f, s),
            Value::Bytes(b) => {
                f.write_str("b\"")?;
                for &c in b.iter() {
                    if c.is_ascii_graphic() && c != b'"' && c != b'\\' || c == b' ' {
                        write!(f, "{}", c as char)?;
                    } else {
                        write!(f, "\\x{c:02x}")?;
                    }
                }
                f.write_str("\"")
            }
            Value::List(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Map(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}: {v}", k.to_value())?;
                }
                f.write_str("}")
            }
            Value::Timestamp(t) => write!(
                f,
                "timestamp(\"{}\")",
                t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
            ),
            Value::Duration(d) => write!(f, "duration(\"{}\")", format_duration(d)),
            Value::Type(t) => f.write_str(t.name()),
            Value::Optional(None) => f.write_str("optional.none()"),
            Value::Optional(Some(v)) => write!(f, "optional.of({v})"),
            Value::Opaque(o) => f.write_str(&o.to_display_string()),
            Value::Json(j) => fmt::Display::fmt(&j.materialize(), f),
        }
    }
}

/// Writes a double as a CEL literal that parses back to the same double: `2.0`, `0.5`,
/// `1e+300`, `double("NaN")`, `double("-Infinity")`.
fn write_double(f: &mut fmt::Formatter<'_>, d: f64) -> fmt::Result {
    if d.is_nan() {
        f.write_str("double(\"NaN\")")
    } else if d.is_infinite() {
        f.write_str(if d > 0.0 {
            "double(\"Infinity\")"
        } else {
            "double(\"-Infinity\")"
        })
    } else if d != 0.0 && !(1e-5..1e16).contains(&d.abs()) {
        // Rust's `{:e}` is the shortest round-trip form: `1e300`, `1.5e-7`.
        write!(f, "{d:e}")
    } else if d.fract() == 0.0 {
        write!(f, "{d:.1}")
    } else {
        write!(f, "{d}")
    }
}

/// Writes a string as a double-quoted CEL string literal: `\\`, `\"` and the control
/// characters with CEL's escapes, and characters that would be invisible or reorder the
/// text (other spaces, format characters, unassigned planes' separators) as `\u` escapes.
pub(crate) fn write_string_literal(f: &mut impl fmt::Write, s: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in s.chars() {
        match c {
            '\\' => f.write_str("\\\\")?,
            '"' => f.write_str("\\\"")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '\u{07}' => f.write_str("\\a")?,
            '\u{08}' => f.write_str("\\b")?,
            '\u{0C}' => f.write_str("\\f")?,
            '\u{0B}' => f.write_str("\\v")?,
            c if needs_escape(c) => {
                if (c as u32) <= 0xFFFF {
                    write!(f, "\\u{:04x}", c as u32)?
                } else {
                    write!(f, "\\U{:08x}", c as u32)?
                }
            }
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

/// Characters a string literal shows escaped: controls, whitespace other than the space,
/// and the invisible format characters (soft hyphen, zero-width and bidirectional marks,
/// the byte order mark, interlinear annotations).
fn needs_escape(c: char) -> bool {
    c.is_control()
        || (c.is_whitespace() && c != ' ')
        || matches!(c,
            '\u{AD}' | '\u{34F}' | '\u{61C}' | '\u{180E}' | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}' | '\u{E0000}'..='\u{E007F}')
}

/// Formats a duration as CEL's `string(duration)` does: seconds with up to nine fractional
/// digits and an `s` suffix (`"1.5s"`, `"-0.000000001s"`).
pub fn format_duration(d: &TimeDelta) -> String {
    let total_nanos = d.num_seconds() as i128 * 1_000_000_000 + d.subsec_nanos() as i128;
    let neg = total_nanos < 0;
    let abs = total_nanos.unsigned_abs();
    let secs = abs / 1_000_000_000;
    let nanos = abs % 1_000_000_000;
    let sign = if neg { "-" } else { "" };
    if nanos == 0 {
        format!("{sign}{secs}s")
    } else {
        let frac = format!("{nanos:09}");
        format!("{sign}{secs}.{}s", frac.trim_end_matches('0'))
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}
impl From<u64> for Value {
    fn from(u: u64) -> Value {
        Value::Uint(u)
    }
}
impl From<f64> for Value {
    fn from(d: f64) -> Value {
        Value::Double(d)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.into())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s.into())
    }
}
impl From<Vec<Value>> for Value {
    fn from(v: Vec<Value>) -> Value {
        Value::list(v)
    }
}
impl From<Map> for Value {
    fn from(m: Map) -> Value {
        Value::Map(Arc::new(m))
    }
}

impl From<&serde_json::Value> for Value {
    /// Converts JSON as Kubernetes does for objects without a schema: integral numbers
    /// become `int` (or `uint` beyond `i64`), other numbers `double`, objects maps with
    /// string keys.
    fn from(j: &serde_json::Value) -> Value {
        match j {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Value::Int(i)
                } else if let Some(u) = n.as_u64() {
                    Value::Uint(u)
                } else {
                    Value::Double(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            serde_json::Value::String(s) => Value::String(s.as_str().into()),
            serde_json::Value::Array(a) => {
                Value::List(Arc::new(a.iter().map(Value::from).collect()))
            }
            serde_json::Value::Object(o) => Value::Map(Arc::new(
                o.iter()
                    .map(|(k, v)| (Key::String(k.as_str().into()), Value::from(v)))
                    .collect(),
            )),
        }
    }
}

impl From<serde_json::Value> for Value {
    fn from(j: serde_json::Value) -> Value {
        Value::from(&j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_sizes_stop_early() {
        let mut v = Value::list(vec![Value::Int(1), Value::from("ab")]);
        assert!(!text_exceeds(&v, 100));
        assert!(text_exceeds(&v, 5));
        // 2^60 leaves, shared: refused after a few steps.
        for _ in 0..60 {
            v = Value::list(vec![v.clone(), v]);
        }
        assert!(text_exceeds(&v, 1 << 20));
    }

    #[test]
    fn value_is_three_words() {
        assert!(std::mem::size_of::<Value>() <= 24);
    }

    #[test]
    fn numeric_equality_crosses_types() {
        assert!(Value::Int(1).cel_eq(&Value::Uint(1)));
        assert!(Value::Int(1).cel_eq(&Value::Double(1.0)));
        assert!(!Value::Int(-1).cel_eq(&Value::Uint(u64::MAX)));
        assert!(!Value::Double(f64::NAN).cel_eq(&Value::Double(f64::NAN)));
        assert!(!Value::Int(1).cel_eq(&Value::string("1")));
    }

    #[test]
    fn ints_compare_with_doubles_like_cel_go() {
        // cel-go converts the int to double, so i64::MAX equals 2^63 as a double.
        let big = Value::Int(i64::MAX);
        assert_eq!(
            big.cel_cmp(&Value::Double(2f64.powi(63))),
            Some(Some(Ordering::Equal))
        );
        assert_eq!(
            Value::Int(0).cel_cmp(&Value::Double(1e19)),
            Some(Some(Ordering::Less))
        );
        assert_eq!(
            Value::Int(2).cel_cmp(&Value::Double(1.5)),
            Some(Some(Ordering::Greater))
        );
        assert_eq!(
            Value::Int(1).cel_cmp(&Value::Double(1.5)),
            Some(Some(Ordering::Less))
        );
    }

    #[test]
    fn map_lookup_is_numeric() {
        let m: Map = [(Key::Int(1), Value::from("a"))].into_iter().collect();
        assert!(m.get(&Value::Uint(1)).unwrap().is_some());
        assert!(m.get(&Value::Double(1.0)).unwrap().is_some());
        assert!(m.get(&Value::Double(1.5)).unwrap().is_none());
        assert!(m.get(&Value::Null).is_err());
        let s: Map = [(Key::from("x"), Value::Int(1))].into_iter().collect();
        assert!(s.get_str("x").is_some());
    }

    #[test]
    fn durations_format_like_cel_go() {
        assert_eq!(format_duration(&TimeDelta::milliseconds(1500)), "1.5s");
        assert_eq!(
            format_duration(&TimeDelta::nanoseconds(-1)),
            "-0.000000001s"
        );
        assert_eq!(format_duration(&TimeDelta::seconds(60)), "60s");
    }
}
