//! The values documents hold, before they become JSON objects or CEL values: what go-yaml
//! v2 decodes YAML into (`interface{}` with typed map keys) and what encoding/json decodes
//! JSON into. Two views of a tree: [`to_object`] as Kubernetes sees an object (YAML
//! converted to JSON by sigs.k8s.io/yaml, then decoded by apimachinery), [`to_value`] as a
//! YAML value with its keys' kinds kept (`kcel eval --var`).

use kcel::Value;
use kcel::{Key, Map};

/// What a reader refused (see `DocumentError`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The Go library's message (encoding/json's, go-yaml v2's, sigs.k8s.io/yaml's).
    #[error("{0}")]
    Go(String),
    /// A value nested deeper than this library holds ([`MAX_DEPTH`]): in the browser
    /// module, past its lower limit; natively, a YAML text whose aliases make its value
    /// deeper than the text's own nesting.
    #[error(
        "nesting deeper than {MAX_DEPTH} levels is not supported (Kubernetes reads up to {})",
        KUBERNETES_MAX_DEPTH
    )]
    TooDeep,
}

/// Nesting that Kubernetes' readers accept: encoding/json's `maxNestingDepth` and go-yaml
/// v2's `max_flow_level`/`max_indents` are all 10,000.
pub const KUBERNETES_MAX_DEPTH: usize = 10_000;

/// Nesting this library holds in memory, the one limit of every walk over a document
/// (pruning, defaulting, validation, list invariants, typed decoding): Kubernetes' own
/// ([`KUBERNETES_MAX_DEPTH`]). Texts nested deeper get Kubernetes' errors.
///
/// Values this deep are walked recursively — by this library, by the CEL engine and by
/// serde_json (`Drop`, `Clone`, `PartialEq`, serialization) — so whoever reads a document
/// runs the work on a stack of [`DEEP_STACK`] bytes ([`with_deep_stack`], or a thread
/// spawned with that stack size).
#[cfg(not(target_arch = "wasm32"))]
pub const MAX_DEPTH: usize = KUBERNETES_MAX_DEPTH;

/// Nesting this library holds in memory. The browser module keeps 1,000 levels: every wasm
/// call also takes a frame on the engine's own call stack, which the browser sizes (V8's
/// default: 984 KiB) and no module can grow — a link-time `stack-size` sizes only the module's
/// stack in linear memory — and in Chromium's Web Worker it holds about 1,600 levels of
/// the walks of `evaluate` in the playground's build, fewer in unoptimised ones
/// (ARCHITECTURE.md, "Deep documents"). Deeper values are refused with a clear error
/// ([`ReadError::TooDeep`]) after the whole text is checked (Kubernetes' errors win), never
/// with the engine's `RangeError`.
#[cfg(target_arch = "wasm32")]
pub const MAX_DEPTH: usize = 1_000;

/// The stack, in bytes, that reading a document [`MAX_DEPTH`] levels deep, validating it
/// against a CRD (pruning, defaulting, OpenAPI checks, list invariants, CEL rules over the
/// whole of it), serializing and dropping it takes, with room to spare: measured in
/// unoptimised builds, whose frames are the largest
/// (`kubernetes::crd::deep_nesting_tests::walkers_fit_the_deep_stack`). Only the pages a
/// walk touches are ever mapped.
pub const DEEP_STACK: usize = 64 << 20;

/// Runs `f` with at least [`DEEP_STACK`] bytes of stack: on the current thread's stack when
/// that much is left, else on a fresh segment of that size (mapped, not touched: only the
/// pages used cost memory). The CLI runs its commands through this; a server gives its
/// worker threads that stack size instead. In the browser module it just runs `f`: the
/// engine's call stack, which bounds recursion there, cannot grow, and stacker would take
/// the segment from linear memory, which never shrinks (64 MiB more for good).
pub fn with_deep_stack<R>(f: impl FnOnce() -> R) -> R {
    if cfg!(target_arch = "wasm32") {
        f()
    } else {
        stacker::maybe_grow(DEEP_STACK, DEEP_STACK, f)
    }
}

/// Runs a step of a recursive walk over a tree with enough stack: a fresh segment when the
/// thread's stack runs low (trees are up to [`MAX_DEPTH`] deep, and frames of unoptimised
/// builds are large). In the browser module the segment is 1 MiB of the heap, taken at the
/// outermost step (stacker cannot tell how much of the module's stack is left) and reused
/// by the allocator after.
pub(super) fn with_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, f)
}

/// A decoded document value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer above `i64::MAX` (go-yaml's `uint64`).
    Uint(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    /// Pairs in document order, keys unique (a later duplicate replaced the earlier value).
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// The value as Go's `%#v` prints it (in sigs.k8s.io/yaml's and go-yaml's messages).
    pub(super) fn go_syntax(&self) -> String {
        with_stack(|| match self {
            Node::Null => "<nil>".into(),
            Node::Bool(b) => b.to_string(),
            Node::Int(i) => i.to_string(),
            Node::Uint(u) => format!("0x{u:x}"),
            Node::Float(f) => go_format_g(*f, false),
            Node::Str(s) => go_quote(s),
            Node::Seq(items) => format!(
                "[]interface {{}}{{{}}}",
                items
                    .iter()
                    .map(Node::go_element)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Node::Map(pairs) => format!(
                "map[interface {{}}]interface {{}}{{{}}}",
                pairs
                    .iter()
                    .map(|(k, v)| format!("{}:{}", k.go_element(), v.go_element()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
    }

    /// An element inside a collection as `%#v` prints it (nil is typed there).
    fn go_element(&self) -> String {
        match self {
            Node::Null => "interface {}(nil)".into(),
            other => other.go_syntax(),
        }
    }
}

/// A string quoted as Go's `%q`/`strconv.Quote` does (printable characters kept).
pub(super) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `strconv.FormatFloat(f, 'g', -1, 64)` (`32`: `single`): the shortest digits that read
/// back, in exponent form (`1e+06`, `1e-05`) when the decimal exponent is below -4 or at
/// least 6 — Go's rule for the shortest `'g'` form.
pub(super) fn go_format_g(f: f64, single: bool) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    // Rust's `{:e}` gives the shortest round-tripping digits (of the f32 when single).
    let sci = if single {
        format!("{:e}", f as f32)
    } else {
        format!("{f:e}")
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let nd = digits.len() as i32;
    let dp = exp + 1;
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if nd > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let abs = exp.unsigned_abs();
        if abs < 10 {
            out.push('0');
        }
        out.push_str(&abs.to_string());
    } else if dp <= 0 {
        out.push_str("0.");
        for _ in 0..(-dp) {
            out.push('0');
        }
        out.push_str(&digits);
    } else if dp >= nd {
        out.push_str(&digits);
        for _ in 0..(dp - nd) {
            out.push('0');
        }
    } else {
        out.push_str(&digits[..dp as usize]);
        out.push('.');
        out.push_str(&digits[dp as usize..]);
    }
    out
}

/// The JSON text sigs.k8s.io/yaml makes of a map key (`convertToJSONableObject`): strings
/// as they are, integers in decimal, floats as `FormatFloat(k, 'g', -1, 32)` (`.inf`,
/// `-.inf`, `.nan` for the special values), booleans as `true`/`false`; other keys are
/// refused.
fn object_key(key: &Node, value: &Node) -> Result<String, ReadError> {
    if let Some(text) = plain_key(key) {
        return Ok(text);
    }
    Err(match key {
        Node::Uint(_) => ReadError::Go(format!(
            "Unsupported map key of type: uint64, key: {}, value: {}",
            key.go_syntax(),
            value.go_syntax()
        )),
        Node::Null => ReadError::Go(format!(
            "Unsupported map key of type: %!s(<nil>), key: <nil>, value: {}",
            value.go_syntax()
        )),
        _ => ReadError::Go(format!("yaml: invalid map key: {}", key.go_syntax())),
    })
}

/// The JSON text of a map key that converts without error (see [`object_key`]): strings,
/// integers, booleans and floats; `None` for the others.
pub(super) fn plain_key(key: &Node) -> Option<String> {
    Some(match key {
        Node::Str(s) => s.clone(),
        Node::Int(i) => i.to_string(),
        Node::Bool(b) => b.to_string(),
        Node::Float(f) => match go_format_g(*f, true).as_str() {
            "+Inf" => ".inf".into(),
            "-Inf" => "-.inf".into(),
            "NaN" => ".nan".into(),
            s => s.into(),
        },
        Node::Uint(_) | Node::Null | Node::Seq(_) | Node::Map(_) => return None,
    })
}

/// A number as apimachinery reads the JSON text `json.Marshal` writes for it: integers
/// that fit int64 stay integers; a float64 is written without exponent when it is
/// integral and below 1e21 in magnitude, and so reads back as an integer when it fits
/// int64 (`replicas: 3.0` is the integer 3); NaN and infinities cannot be written.
fn object_number(node: &Node) -> Result<serde_json::Value, ReadError> {
    use serde_json::Value as Json;
    Ok(match node {
        Node::Int(i) => Json::from(*i),
        Node::Uint(u) => float(*u as f64),
        Node::Float(f) => {
            if !f.is_finite() {
                return Err(ReadError::Go(format!(
                    "json: unsupported value: {}",
                    go_format_g(*f, false)
                )));
            }
            if f.fract() == 0.0
                && f.abs() < 1e21
                && *f >= -9.223_372_036_854_776e18
                && *f < 9.223_372_036_854_776e18
            {
                Json::from(*f as i64)
            } else {
                float(*f)
            }
        }
        _ => Json::Null,
    })
}

fn float(f: f64) -> serde_json::Value {
    serde_json::Number::from_f64(f).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

/// The tree as Kubernetes sees the object: sigs.k8s.io/yaml's conversion to JSON, then
/// apimachinery's decoding of that JSON (see [`object_key`], [`object_number`]).
pub(super) fn to_object(node: Node) -> Result<serde_json::Value, ReadError> {
    use serde_json::Value as Json;
    with_stack(|| {
        Ok(match node {
            Node::Null => Json::Null,
            Node::Bool(b) => Json::Bool(b),
            Node::Str(s) => Json::String(s),
            Node::Int(_) | Node::Uint(_) | Node::Float(_) => object_number(&node)?,
            Node::Seq(items) => {
                Json::Array(items.into_iter().map(to_object).collect::<Result<_, _>>()?)
            }
            Node::Map(pairs) => {
                let mut map = serde_json::Map::new();
                for (k, v) in pairs {
                    let key = match k {
                        Node::Str(s) => s,
                        other => object_key(&other, &v)?,
                    };
                    map.insert(key, to_object(v)?);
                }
                Json::Object(map)
            }
        })
    })
}

/// The tree as a CEL value: map keys keep their kind (YAML's `1: one` is `{1: "one"}`),
/// numbers as go-yaml decodes them (`3.0` a double; above int64, an unsigned integer).
pub(super) fn to_value(node: &Node) -> Result<Value, ReadError> {
    with_stack(|| {
        Ok(match node {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Int(i) => Value::Int(*i),
            Node::Uint(u) => Value::Uint(*u),
            Node::Float(f) => Value::Double(*f),
            Node::Str(s) => Value::from(s.as_str()),
            Node::Seq(items) => {
                Value::list(items.iter().map(to_value).collect::<Result<Vec<_>, _>>()?)
            }
            Node::Map(pairs) => {
                let mut map = Map::new();
                for (k, v) in pairs {
                    let key = match k {
                        Node::Str(s) => Key::String(s.as_str().into()),
                        Node::Int(i) => Key::Int(*i),
                        Node::Uint(u) => Key::Uint(*u),
                        Node::Bool(b) => Key::Bool(*b),
                        Node::Seq(_) | Node::Map(_) => {
                            return Err(ReadError::Go(format!(
                                "yaml: invalid map key: {}",
                                k.go_syntax()
                            )));
                        }
                        Node::Null | Node::Float(_) => {
                            return Err(ReadError::Go(format!(
                                "unsupported map key {} (keys must be strings, integers or booleans)",
                                k.go_syntax()
                            )));
                        }
                    };
                    map.insert(key, to_value(v)?);
                }
                Value::from(map)
            }
        })
    })
}
