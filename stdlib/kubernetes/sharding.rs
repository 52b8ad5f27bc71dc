//! Shard selectors of sharded list and watch (KEP-5866, `ShardedListAndWatch`, alpha in
//! Kubernetes 1.36): `shardRange(object.metadata.uid, '0x…', '0x…')` and `||` chains of such
//! calls, FNV-1a hashing of the field, and matching.
//!
//! kube-apiserver parses the `shardSelector` list/watch parameter with cel-go's parser (no
//! macros) and walks the syntax tree, never evaluating it (k8s.io/apiserver
//! `pkg/sharding/parser.go`); [`ShardSelector::parse`] does the same with kcel's parser and
//! gives upstream's error texts. The hash and the range test are those of
//! k8s.io/apimachinery `pkg/sharding` (`hash.go`, `selector.go`).
//!
//! The library [`library`] (`kubernetes.sharding`) declares `shardRange(string, string,
//! string) -> bool` so that the same selector text can also be *evaluated*, e.g. with
//! `kcel eval --lib kubernetes.sharding`, for debugging: it is true exactly when the selector
//! matches (upstream has no such function; it only parses the text).
//!
//! ```
//! use kcel_stdlib::kubernetes::sharding::{ShardSelector, hash_field};
//!
//! assert_eq!(hash_field("default"), "ebada5168620c5fe");
//! let s = ShardSelector::parse(
//!     "shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')",
//! )
//! .unwrap();
//! assert!(s.matches_value("default"));
//! let e = ShardSelector::parse("shardRange(object.metadata.uid, '0x0', '0x8000000000000000')");
//! assert_eq!(
//!     e.unwrap_err().to_string(),
//!     "hexStart must be a 0x-prefixed 16-digit hex value, got \"0x0\" (did you mean \"0x0000000000000000\"?)"
//! );
//! ```

use std::fmt;

use kcel::Value;
use kcel::library::syntax::{Expr, ExprKind, Literal, op};
use kcel::library::syntax::{ParseOptions, parse};
use kcel::library::{CallCost, CallEstimate, CostEstimate, EstimateArgs, STRING_TRAVERSAL_FACTOR};
use kcel::library::{Implementation, Library, overloads};
use kcel::{EvalError, EvalResult};

use super::{ceil_cost, go_quote, string_arg, value_size};

/// The exclusive upper bound of the whole hash space, 2^64: the one 17-digit bound.
pub const FULL_END: &str = "0x10000000000000000";

/// The object field a shard selector hashes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShardField {
    /// `object.metadata.uid`.
    Uid,
    /// `object.metadata.namespace`.
    Namespace,
}

impl ShardField {
    /// The field path as written in a selector.
    pub fn path(self) -> &'static str {
        match self {
            ShardField::Uid => "object.metadata.uid",
            ShardField::Namespace => "object.metadata.namespace",
        }
    }

    /// The field's value in an object (a JSON map), `""` when absent, as upstream's
    /// metadata accessor reads it.
    pub fn value_in(self, object: &serde_json::Map<String, serde_json::Value>) -> &str {
        let name = match self {
            ShardField::Uid => "uid",
            ShardField::Namespace => "namespace",
        };
        object
            .get("metadata")
            .and_then(|m| m.get(name))
            .and_then(serde_json::Value::as_str)
            .unwrap_or("")
    }
}

/// One `shardRange(field, start, end)`: hashes in `[start, end)`, both bounds `0x` + 16
/// lowercase hex digits (or [`FULL_END`] for the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardRange {
    /// The inclusive lower bound, e.g. `0x0000000000000000`.
    pub start: String,
    /// The exclusive upper bound, e.g. `0x8000000000000000` or [`FULL_END`].
    pub end: String,
}

impl ShardRange {
    /// Whether a `0x`-prefixed hash lies in the range.
    pub fn contains(&self, hash: &str) -> bool {
        !hex_less(hash, &self.start) && hex_less(hash, &self.end)
    }
}

/// A parsed shard selector: one field and one or more hash ranges (an object matches when its
/// field's hash is in any of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardSelector {
    field: ShardField,
    ranges: Vec<ShardRange>,
    /// The ranges' bounds as numbers, `[start, end)`, for [`ShardSelector::matches_hash`].
    bounds: Vec<(u128, u128)>,
}

/// FNV-1a (64 bits) of `value`'s UTF-8 bytes, as upstream's `sharding.HashField` computes it
/// (`fnv.New64a()`) before formatting it.
pub fn fnv1a64(value: &str) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    value
        .bytes()
        .fold(OFFSET, |h, b| (h ^ u64::from(b)).wrapping_mul(PRIME))
}

/// FNV-1a (64 bits) of `value`'s UTF-8 bytes as 16 lowercase hex digits, as upstream's
/// `sharding.HashField` (`fnv.New64a()`, `%016x`).
pub fn hash_field(value: &str) -> String {
    format!("{:016x}", fnv1a64(value))
}

/// A checked bound (`0x` + 16 lowercase hex digits, or [`FULL_END`]) as a number.
fn bound_value(bound: &str) -> u128 {
    if bound == FULL_END {
        return 1 << 64;
    }
    bound
        .strip_prefix("0x")
        .and_then(|hex| u64::from_str_radix(hex, 16).ok())
        .map_or(0, u128::from)
}

/// Compares two `0x`-prefixed lowercase hex values of 16 digits (or [`FULL_END`]) as numbers,
/// as upstream's `sharding.HexLess`: the longer is larger, else the text decides.
pub fn hex_less(a: &str, b: &str) -> bool {
    if a.len() != b.len() {
        return a.len() < b.len();
    }
    a < b
}

/// Why a shard selector is refused; `Display` is upstream's message (k8s.io/apiserver
/// `pkg/sharding/parser.go`; the API server prefixes it with `invalid shard selector: `).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardSelectorError {
    /// Only blanks.
    #[error("empty shard selector is not allowed; omit the parameter for unfiltered lists")]
    Empty,
    /// Not CEL syntax (the parser's first error).
    #[error("CEL parse error: {}", .0.as_ref().map(ToString::to_string).unwrap_or_default())]
    Syntax(Option<kcel::CompileError>),
    /// Ranges over different fields.
    #[error("all shard ranges must use the same field, got {} and {}", go_quote(.first.path()), go_quote(.other.path()))]
    MixedFields {
        /// The first range's field.
        first: ShardField,
        /// The first other field.
        other: ShardField,
    },
    /// An expression that is not a call (cel-go's number of its kind).
    #[error("unexpected expression kind {0}; expected shardRange() call or || operator")]
    UnexpectedKind(u8),
    /// `||` with other than two operands.
    #[error("|| operator requires exactly 2 arguments")]
    OrArity,
    /// A call of another function.
    #[error("unsupported function {}; only shardRange() and || are allowed", go_quote(.0))]
    UnsupportedFunction(String),
    /// `shardRange` with other than three arguments.
    #[error("shardRange() requires exactly 3 arguments, got {0}")]
    RangeArity(usize),
    /// A first argument that is not a field path (cel-go's number of its kind).
    #[error(
        "shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind {0}"
    )]
    NotAFieldPath(u8),
    /// A field path other than the uid or the namespace.
    #[error(
        "unsupported field path {}; supported: object.metadata.uid, object.metadata.namespace",
        go_quote(.0)
    )]
    UnsupportedField(String),
    /// A bound that is not a literal (cel-go's number of its kind).
    #[error("{bound} must be a string literal (e.g. '0xff'), got expression kind {kind}")]
    BoundNotLiteral {
        /// `hexStart` or `hexEnd`.
        bound: &'static str,
        /// cel-go's number of the expression's kind.
        kind: u8,
    },
    /// A bound that is a literal of another type (Go's name of it).
    #[error("{bound} must be a string literal, got {go_type}")]
    BoundNotString {
        /// `hexStart` or `hexEnd`.
        bound: &'static str,
        /// Go's type name of the literal's value.
        go_type: &'static str,
    },
    /// A malformed bound.
    #[error(transparent)]
    Bound(#[from] BoundError),
    /// A start not below the end.
    #[error("shard range start {start} must be less than end {end}")]
    Order {
        /// The start.
        start: String,
        /// The end.
        end: String,
    },
}

/// Why a bound (`hexStart` or `hexEnd`, the `bound` of each variant) is malformed, with
/// upstream's `extractHexLiteral` messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoundError {
    /// No `0x`.
    #[error("{bound} must have '0x' prefix, got {}", go_quote(.text))]
    NoPrefix {
        /// Which bound.
        bound: &'static str,
        /// The bound as written.
        text: String,
    },
    /// Nothing after `0x`.
    #[error("{bound}: hex value is required after '0x'")]
    NoDigits {
        /// Which bound.
        bound: &'static str,
    },
    /// More than 17 digits.
    #[error("{bound}: hex value too long ({} chars, max 17): {}", .hex.len(), go_quote(.hex))]
    TooLong {
        /// Which bound.
        bound: &'static str,
        /// The digits.
        hex: String,
    },
    /// A character that is not a lowercase hex digit.
    #[error("{bound}: invalid hex character {} in {}", go_quote(&.character.to_string()), go_quote(.text))]
    InvalidCharacter {
        /// Which bound.
        bound: &'static str,
        /// The character.
        character: char,
        /// The bound as written.
        text: String,
    },
    /// 17 digits other than 2^64.
    #[error("{bound}: 17-digit hex value must be '{FULL_END}' (2^64), got {}", go_quote(.text))]
    NotFullEnd {
        /// Which bound.
        bound: &'static str,
        /// The bound as written.
        text: String,
    },
    /// Fewer than 16 digits.
    #[error(
        "{bound} must be a 0x-prefixed 16-digit hex value, got {} (did you mean {}?)",
        go_quote(.text),
        go_quote(&padded(.text))
    )]
    Short {
        /// Which bound.
        bound: &'static str,
        /// The bound as written.
        text: String,
    },
}

/// A short bound padded to 16 digits.
fn padded(text: &str) -> String {
    let hex = text.strip_prefix("0x").unwrap_or(text);
    format!("0x{}{hex}", "0".repeat(16usize.saturating_sub(hex.len())))
}

/// Checks one bound (`hexStart` or `hexEnd`) as upstream's `extractHexLiteral` does.
fn check_bound(bound: &'static str, s: &str) -> Result<(), BoundError> {
    let text = || s.to_string();
    let Some(hex) = s.strip_prefix("0x") else {
        return Err(BoundError::NoPrefix {
            bound,
            text: text(),
        });
    };
    if hex.is_empty() {
        return Err(BoundError::NoDigits { bound });
    }
    if hex.len() > 17 {
        return Err(BoundError::TooLong {
            bound,
            hex: hex.to_string(),
        });
    }
    if let Some(character) = hex.chars().find(|c| !matches!(c, '0'..='9' | 'a'..='f')) {
        return Err(BoundError::InvalidCharacter {
            bound,
            character,
            text: text(),
        });
    }
    if hex.len() == 17 {
        if s != FULL_END {
            return Err(BoundError::NotFullEnd {
                bound,
                text: text(),
            });
        }
    } else if hex.len() != 16 {
        return Err(BoundError::Short {
            bound,
            text: text(),
        });
    }
    Ok(())
}

/// Checks both bounds and their order; the range they make.
fn checked_range(start: &str, end: &str) -> Result<ShardRange, ShardSelectorError> {
    check_bound("hexStart", start)?;
    check_bound("hexEnd", end)?;
    if !hex_less(start, end) {
        return Err(ShardSelectorError::Order {
            start: start.to_owned(),
            end: end.to_owned(),
        });
    }
    Ok(ShardRange {
        start: start.to_owned(),
        end: end.to_owned(),
    })
}

/// The number cel-go prints for a node kind (`ast.ExprKind` has no `String` method, so
/// upstream's `%v` shows the constant's value).
fn kind_number(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Call { .. } => 1,
        ExprKind::Comprehension(_) => 2,
        ExprKind::Ident(_) => 3,
        ExprKind::List { .. } => 4,
        ExprKind::Literal(_) => 5,
        ExprKind::Map { .. } => 6,
        ExprKind::Select { .. } => 7,
        ExprKind::Struct { .. } => 8,
    }
}

/// The Go type name upstream's `%T` prints for a literal's native value.
fn go_type_name(literal: &Literal) -> &'static str {
    match literal {
        Literal::Null => "structpb.NullValue",
        Literal::Bool(_) => "bool",
        Literal::Int(_) => "int64",
        Literal::Uint(_) => "uint64",
        Literal::Double(_) => "float64",
        Literal::String(_) => "string",
        Literal::Bytes(_) => "[]uint8",
    }
}

/// `object.metadata.uid` and the like: an identifier with selections; else the kind number
/// of the first node that is neither.
fn field_path(e: &Expr) -> Result<String, u8> {
    match &e.kind {
        ExprKind::Ident(name) => Ok(name.to_string()),
        ExprKind::Select { operand, field, .. } => Ok(format!("{}.{field}", field_path(operand)?)),
        _ => Err(kind_number(e)),
    }
}

/// A bound's text: a string literal, else upstream's error.
fn hex_literal<'a>(e: &'a Expr, bound: &'static str) -> Result<&'a str, ShardSelectorError> {
    let ExprKind::Literal(literal) = &e.kind else {
        return Err(ShardSelectorError::BoundNotLiteral {
            bound,
            kind: kind_number(e),
        });
    };
    match literal {
        Literal::String(s) => {
            check_bound(bound, s)?;
            Ok(s)
        }
        other => Err(ShardSelectorError::BoundNotString {
            bound,
            go_type: go_type_name(other),
        }),
    }
}

/// One `shardRange(...)` call.
fn shard_range_call(args: &[Expr]) -> Result<(ShardField, ShardRange), ShardSelectorError> {
    let [field, start, end] = args else {
        return Err(ShardSelectorError::RangeArity(args.len()));
    };
    let path = field_path(field).map_err(ShardSelectorError::NotAFieldPath)?;
    let field = match path.as_str() {
        "object.metadata.uid" => ShardField::Uid,
        "object.metadata.namespace" => ShardField::Namespace,
        _ => {
            return Err(ShardSelectorError::UnsupportedField(path));
        }
    };
    let start = hex_literal(start, "hexStart")?;
    let end = hex_literal(end, "hexEnd")?;
    if !hex_less(start, end) {
        return Err(ShardSelectorError::Order {
            start: start.to_owned(),
            end: end.to_owned(),
        });
    }
    Ok((
        field,
        ShardRange {
            start: start.to_owned(),
            end: end.to_owned(),
        },
    ))
}

/// The ranges of a `shardRange()` call or an `||` chain of them, left to right.
fn walk(e: &Expr, out: &mut Vec<(ShardField, ShardRange)>) -> Result<(), ShardSelectorError> {
    // An `||` chain is walked with an explicit stack: the parser bounds the depth, but the
    // walk need not rely on it.
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        let ExprKind::Call { function, args, .. } = &e.kind else {
            return Err(ShardSelectorError::UnexpectedKind(kind_number(e)));
        };
        match &**function {
            op::LOGICAL_OR => {
                let [left, right] = args.as_slice() else {
                    return Err(ShardSelectorError::OrArity);
                };
                stack.push(right);
                stack.push(left);
            }
            "shardRange" => out.push(shard_range_call(args)?),
            other => {
                return Err(ShardSelectorError::UnsupportedFunction(other.to_string()));
            }
        }
    }
    Ok(())
}

impl ShardSelector {
    /// Parses a `shardSelector` as kube-apiserver does (k8s.io/apiserver
    /// `pkg/sharding/parser.go` `Parse`): CEL syntax without macros, then the restricted
    /// grammar. The error is upstream's message (the API server prefixes it with `invalid
    /// shard selector: `).
    pub fn parse(text: &str) -> Result<ShardSelector, ShardSelectorError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(ShardSelectorError::Empty);
        }
        let options = ParseOptions {
            macros: false,
            optional_syntax: false,
            ..ParseOptions::default()
        };
        let expr = parse(text, &options).map_err(|issues| {
            ShardSelectorError::Syntax(issues.diagnostics.first().map(|d| d.error.clone()))
        })?;
        let mut found = Vec::new();
        walk(&expr, &mut found)?;
        let field = found[0].0;
        if let Some((other, _)) = found.iter().find(|(f, _)| *f != field) {
            return Err(ShardSelectorError::MixedFields {
                first: field,
                other: *other,
            });
        }
        let ranges: Vec<ShardRange> = found.into_iter().map(|(_, r)| r).collect();
        let bounds = ranges
            .iter()
            .map(|r| (bound_value(&r.start), bound_value(&r.end)))
            .collect();
        Ok(ShardSelector {
            field,
            ranges,
            bounds,
        })
    }

    /// The field every range hashes.
    pub fn field(&self) -> ShardField {
        self.field
    }

    /// The ranges, in the order written.
    pub fn ranges(&self) -> &[ShardRange] {
        &self.ranges
    }

    /// Whether a field value's hash lies in one of the ranges.
    pub fn matches_value(&self, value: &str) -> bool {
        self.matches_hash(fnv1a64(value))
    }

    /// Whether a hash ([`fnv1a64`] of the field's value) lies in one of the ranges: numbers
    /// compared, no text formatted, so that a server can hash each object's field once and
    /// test it against every selector. The same answer as [`ShardSelector::matches_value`]
    /// and as the `shardRange` function of [`library`].
    pub fn matches_hash(&self, hash: u64) -> bool {
        let hash = u128::from(hash);
        self.bounds
            .iter()
            .any(|&(start, end)| start <= hash && hash < end)
    }

    /// Whether an object (a JSON map with `metadata`) is in the shard.
    pub fn matches(&self, object: &serde_json::Map<String, serde_json::Value>) -> bool {
        self.matches_value(self.field.value_in(object))
    }
}

/// The canonical text, as upstream's `String()`: `shardRange(<field>, '<start>', '<end>')`
/// joined by ` || `; it parses back to the same selector.
impl fmt::Display for ShardSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(" || ")?;
            }
            write!(
                f,
                "shardRange({}, '{}', '{}')",
                self.field.path(),
                r.start,
                r.end
            )?;
        }
        Ok(())
    }
}

/// `shardRange(value, start, end)` evaluated: the bounds checked as the selector parser checks
/// them, then `start <= "0x" + fnv1a64(value) < end`.
fn shard_range(args: &[Value]) -> EvalResult {
    let [value, start, end] = args else {
        return Err(EvalError::no_such_overload());
    };
    let (value, start, end) = (string_arg(value)?, string_arg(start)?, string_arg(end)?);
    let range = checked_range(start, end).map_err(|e| EvalError::new(e.to_string()))?;
    Ok(Value::Bool(
        range.contains(&format!("0x{}", hash_field(value))),
    ))
}

/// Runtime cost: hashing traverses the value, `⌈size × 0.1⌉`, plus one for the comparison.
fn shard_range_cost(args: &[Value], _: Option<&Value>) -> u64 {
    1 + args
        .first()
        .map_or(0, |a| ceil_cost(value_size(a), STRING_TRAVERSAL_FACTOR))
}

fn shard_range_estimate(a: &EstimateArgs<'_>) -> CallEstimate {
    let traverse = match a.args.first() {
        Some(n) => a.size(n).times_factor(STRING_TRAVERSAL_FACTOR),
        None => CostEstimate::fixed(0),
    };
    CallEstimate {
        cost: traverse + CostEstimate::fixed(1),
        result_size: None,
    }
}

/// `kubernetes.sharding`: `shardRange(string, string, string) -> bool`, the shard selector's
/// function made evaluable (see the module documentation).
pub fn library() -> Library {
    let mut lib = Library::new("kubernetes.sharding", 0);
    overloads!(lib.function(
        "shardRange",
        "Whether the FNV-1a 64-bit hash of a string, as 0x + 16 hex digits, lies in [start, end): \
         the shardSelector function of sharded list and watch (KEP-5866).",
    );
        global "shard_range_string_string_string" ("string", "string", "string") -> "bool"
            => Implementation::Nary(shard_range),
            cost: CallCost::Custom(shard_range_cost),
            estimate: shard_range_estimate;
    )
    .examples(&[
        "shardRange('default', '0x8000000000000000', '0x10000000000000000')",
        "!shardRange('a', '0x0000000000000000', '0x8000000000000000')",
    ]);
    lib
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Upstream's `hash_test.go` vectors (and the KEP's).
    #[test]
    fn fnv1a_vectors() {
        assert_eq!(hash_field(""), "cbf29ce484222325");
        assert_eq!(hash_field("a"), "af63dc4c8601ec8c");
        assert_eq!(hash_field("default"), "ebada5168620c5fe");
    }

    fn ranges(text: &str) -> Vec<(ShardField, String, String)> {
        let s = ShardSelector::parse(text).unwrap();
        s.ranges()
            .iter()
            .map(|r| (s.field(), r.start.clone(), r.end.clone()))
            .collect()
    }

    /// k8s.io/apiserver `pkg/sharding/parser_test.go` `TestParse`, the accepted inputs.
    #[test]
    fn upstream_parse_accepts() {
        let uid = ShardField::Uid;
        let r = |f, a: &str, b: &str| (f, a.to_owned(), b.to_owned());
        assert_eq!(
            ranges("shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"),
            [r(uid, "0x0000000000000000", "0x8000000000000000")]
        );
        assert_eq!(
            ranges("shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')"),
            [r(uid, "0x0000000000000000", FULL_END)]
        );
        assert_eq!(
            ranges(
                "shardRange(object.metadata.namespace, '0x00000000000000aa', '0x00000000000000ff')"
            ),
            [r(
                ShardField::Namespace,
                "0x00000000000000aa",
                "0x00000000000000ff"
            )]
        );
        assert_eq!(
            ranges(
                "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000005') || \
                 shardRange(object.metadata.uid, '0x0000000000000005', '0x000000000000000a') || \
                 shardRange(object.metadata.uid, '0x000000000000000a', '0x000000000000000f')"
            ),
            [
                r(uid, "0x0000000000000000", "0x0000000000000005"),
                r(uid, "0x0000000000000005", "0x000000000000000a"),
                r(uid, "0x000000000000000a", "0x000000000000000f"),
            ]
        );
        assert_eq!(
            ranges("shardRange(object.metadata.uid,'0x0000000000000000','0x8000000000000000')"),
            [r(uid, "0x0000000000000000", "0x8000000000000000")]
        );
        assert_eq!(
            ranges(
                "  shardRange( object.metadata.uid ,  '0x0000000000000000' ,  '0x8000000000000000' )  "
            ),
            [r(uid, "0x0000000000000000", "0x8000000000000000")]
        );
    }

    fn error(text: &str) -> String {
        ShardSelector::parse(text).unwrap_err().to_string()
    }

    /// `TestParse`'s rejected inputs, each with the message upstream's parser gives.
    #[test]
    fn upstream_parse_rejects_with_its_messages() {
        let cases = [
            (
                "",
                "empty shard selector is not allowed; omit the parameter for unfiltered lists",
            ),
            (
                "shardRange(object.metadata.uid, '0000000000000000', '0x8000000000000000')",
                "hexStart must have '0x' prefix, got \"0000000000000000\"",
            ),
            (
                "shardRange(object.metadata.uid, '0x0000000000000000', '8000000000000000')",
                "hexEnd must have '0x' prefix, got \"8000000000000000\"",
            ),
            (
                "shardRange(object.metadata.uid, '0x', '0x8000000000000000')",
                "hexStart: hex value is required after '0x'",
            ),
            (
                "shardRange(object.metadata.name, '0x00', '0x80')",
                "unsupported field path \"object.metadata.name\"; supported: object.metadata.uid, object.metadata.namespace",
            ),
            (
                "shardRange(object.metadata.labels, '0x00', '0x80')",
                "unsupported field path \"object.metadata.labels\"; supported: object.metadata.uid, object.metadata.namespace",
            ),
            (
                "invalidFunc(object.metadata.uid, '0x00', '0x80')",
                "unsupported function \"invalidFunc\"; only shardRange() and || are allowed",
            ),
            (
                "shardRange(object.metadata.uid, '0x000000000000000000', '0x80')",
                "hexStart: hex value too long (18 chars, max 17): \"000000000000000000\"",
            ),
            (
                "shardRange(object.metadata.uid, '0x0g', '0x80')",
                "hexStart: invalid hex character \"g\" in \"0x0g\"",
            ),
            (
                "shardRange(object.metadata.uid, '0x0', '0x8') && shardRange(object.metadata.uid, '0x8', '0xf')",
                "unsupported function \"_&&_\"; only shardRange() and || are allowed",
            ),
            (
                "shardRange(object.metadata.uid, 0, 8)",
                "hexStart must be a string literal, got int64",
            ),
            (
                "object.metadata.uid > '0x0'",
                "unsupported function \"_>_\"; only shardRange() and || are allowed",
            ),
            (
                "shardRange(object.metadata.uid, '0x0')",
                "shardRange() requires exactly 3 arguments, got 2",
            ),
            (
                "shardRange(object.metadata.uid, hex(0), '0x8')",
                "hexStart must be a string literal (e.g. '0xff'), got expression kind 1",
            ),
            (
                "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')",
                "all shard ranges must use the same field, got \"object.metadata.uid\" and \"object.metadata.namespace\"",
            ),
            (
                "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
                "hexStart must be a 0x-prefixed 16-digit hex value, got \"0x0\" (did you mean \"0x0000000000000000\"?)",
            ),
            (
                "shardRange(object.metadata.uid, '0x0000000000000000', '0xff')",
                "hexEnd must be a 0x-prefixed 16-digit hex value, got \"0xff\" (did you mean \"0x00000000000000ff\"?)",
            ),
            (
                "shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')",
                "shard range start 0x8000000000000000 must be less than end 0x8000000000000000",
            ),
            (
                "shardRange(object.metadata.uid, '0xffffffffffffffff', '0x0000000000000000')",
                "shard range start 0xffffffffffffffff must be less than end 0x0000000000000000",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(error(input), want, "input {input:?}");
        }
    }

    /// Further shapes: a bare identifier, a literal root, a non-path first argument, the
    /// 17-digit start, macros not expanded, a parse error.
    #[test]
    fn other_rejections() {
        assert_eq!(
            error("object"),
            "unexpected expression kind 3; expected shardRange() call or || operator"
        );
        assert_eq!(
            error("'0x0'"),
            "unexpected expression kind 5; expected shardRange() call or || operator"
        );
        assert_eq!(
            error("shardRange('uid', '0x0000000000000000', '0x8000000000000000')"),
            "shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 5"
        );
        assert_eq!(
            error("shardRange(object.metadata.uid, '0x10000000000000001', '0x10000000000000000')"),
            "hexStart: 17-digit hex value must be '0x10000000000000000' (2^64), got \"0x10000000000000001\""
        );
        assert_eq!(
            error("shardRange(object.metadata.uid, '0x10000000000000000', '0x10000000000000000')"),
            "shard range start 0x10000000000000000 must be less than end 0x10000000000000000"
        );
        assert_eq!(
            error("has(object.metadata.uid)"),
            "unsupported function \"has\"; only shardRange() and || are allowed"
        );
        assert_eq!(
            error("shardRange(object.metadata.uid, b'0x0', '0x8')"),
            "hexStart must be a string literal, got []uint8"
        );
        // The first of the parser's errors, in cel-go's words.
        assert_eq!(
            error("shardRange(object.metadata.uid, '0x0'"),
            "CEL parse error: Syntax error: mismatched input '<EOF>' expecting {'!=', '%', '&&', \
             ')', '*', '+', ',', '-', '.', '/', '<', '<=', '==', '>', '>=', '?', '[', 'in', '||'}"
        );
        // Macros are not expanded and the optional syntax is off, as upstream's parser.
        assert_eq!(
            error("object.?metadata"),
            "CEL parse error: unsupported syntax '.?'"
        );
    }

    /// `TestParseRoundTrip`: the canonical text is the input for canonical inputs.
    #[test]
    fn canonical_text_round_trips() {
        for input in [
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
            "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')",
            "shardRange(object.metadata.namespace, '0x00000000000000aa', '0x00000000000000ff')",
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
        ] {
            let s = ShardSelector::parse(input).unwrap();
            assert_eq!(s.to_string(), input);
            assert_eq!(ShardSelector::parse(&s.to_string()).unwrap(), s);
        }
        let spaced = ShardSelector::parse(
            " shardRange( object.metadata.uid ,'0x0000000000000000','0x8000000000000000')",
        )
        .unwrap();
        assert_eq!(
            spaced.to_string(),
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
        );
    }

    /// `selector_test.go`'s matching: inclusive start, exclusive end, any range of a chain.
    #[test]
    fn matching() {
        // "default" hashes to 0xebada5168620c5fe.
        let at = |start: &str, end: &str| {
            ShardSelector::parse(&format!(
                "shardRange(object.metadata.namespace, '{start}', '{end}')"
            ))
            .unwrap()
            .matches_value("default")
        };
        assert!(at("0xebada5168620c5fe", "0xebada5168620c5ff"));
        assert!(!at("0xebada5168620c5ff", FULL_END));
        assert!(!at("0x0000000000000000", "0xebada5168620c5fe"));
        assert!(at("0x0000000000000000", FULL_END));
        let chain = ShardSelector::parse(
            "shardRange(object.metadata.namespace, '0x0000000000000000', '0x1000000000000000') || \
             shardRange(object.metadata.namespace, '0xe000000000000000', '0xf000000000000000')",
        )
        .unwrap();
        assert!(chain.matches_value("default"));
        let object = serde_json::json!({"metadata": {"namespace": "default", "uid": "x"}});
        assert!(chain.matches(object.as_object().unwrap()));
        let no_ns = serde_json::json!({"metadata": {"name": "n"}});
        // No namespace hashes "" (0xcbf29ce484222325), outside both ranges.
        assert!(!chain.matches(no_ns.as_object().unwrap()));
    }

    /// The library function agrees with the parsed selector, and checks its bounds alike.
    #[test]
    fn evaluated_selector_agrees_with_matching() {
        let mut env = kcel::Env::new();
        env.add_library(&library());
        env.declare("object", kcel::Type::Dyn);
        let text = "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || \
                    shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')";
        let selector = ShardSelector::parse(text).unwrap();
        let ast = env.compile(text).unwrap();
        let program = env.program(&ast).unwrap();
        for i in 0..64 {
            let uid = format!("uid-{i}");
            let object = serde_json::json!({"metadata": {"uid": uid}});
            let mut vars = std::collections::HashMap::new();
            vars.insert("object".to_owned(), Value::from(&object));
            let (value, _) = program.eval_with_details(&vars);
            assert_eq!(
                value,
                Ok(Value::Bool(selector.matches_value(&uid))),
                "uid {uid}"
            );
        }
        let ast = env
            .compile("shardRange('a', '0x0', '0x8000000000000000')")
            .unwrap();
        let err = env
            .program(&ast)
            .unwrap()
            .eval_with_details(&std::collections::HashMap::<String, Value>::new())
            .0;
        assert_eq!(
            err.unwrap_err().message(),
            "hexStart must be a 0x-prefixed 16-digit hex value, got \"0x0\" (did you mean \"0x0000000000000000\"?)"
        );
    }

    /// The numeric fast path ([`ShardSelector::matches_hash`] of [`fnv1a64`], what the API
    /// server tests per object) agrees with the library function `shardRange`, which formats
    /// the hash and compares text as upstream's `HexLess`: random values, random bounds, and
    /// bounds at the value's own hash and its neighbours (the edges of a range).
    mod fast_path {
        use super::super::*;
        use proptest::prelude::*;

        fn bound(n: u128) -> String {
            if n >= 1 << 64 {
                FULL_END.to_owned()
            } else {
                format!("0x{n:016x}")
            }
        }

        /// The evaluated `shardRange(v, s, e)`.
        fn evaluated(value: &str, start: &str, end: &str) -> bool {
            let mut env = kcel::Env::new();
            env.add_library(&library());
            for name in ["v", "s", "e"] {
                env.declare(name, kcel::Type::String);
            }
            let ast = env.compile("shardRange(v, s, e)").unwrap();
            let vars: std::collections::HashMap<String, Value> = [
                ("v".to_owned(), Value::from(value)),
                ("s".to_owned(), Value::from(start)),
                ("e".to_owned(), Value::from(end)),
            ]
            .into();
            match env.program(&ast).unwrap().eval_with_details(&vars).0 {
                Ok(Value::Bool(b)) => b,
                other => panic!("shardRange({value:?}, {start}, {end}): {other:?}"),
            }
        }

        fn check(value: &str, a: u128, b: u128) -> Result<(), TestCaseError> {
            let (start, end) = (a.min(b), a.max(b));
            if start == end {
                return Ok(());
            }
            let (start, end) = (bound(start), bound(end));
            let text = format!("shardRange(object.metadata.uid, '{start}', '{end}')");
            let selector = ShardSelector::parse(&text).unwrap();
            let fast = selector.matches_hash(fnv1a64(value));
            prop_assert_eq!(
                fast,
                evaluated(value, &start, &end),
                "{} in {}",
                value,
                text
            );
            prop_assert_eq!(fast, selector.matches_value(value));
            Ok(())
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

            #[test]
            fn random_bounds(value in "\\PC{0,40}", a in 0u128..=(1 << 64), b in 0u128..=(1 << 64)) {
                check(&value, a, b)?;
            }

            #[test]
            fn bounds_at_the_hash(value in "\\PC{0,40}", d in -2i128..=2, e in -2i128..=2) {
                let h = i128::from(fnv1a64(&value));
                let clamp = |x: i128| x.clamp(0, 1 << 64) as u128;
                check(&value, clamp(h + d), clamp(h + e))?;
                check(&value, clamp(h + d), 1 << 64)?;
                check(&value, 0, clamp(h + e))?;
            }
        }
    }
}
