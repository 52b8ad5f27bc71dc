//! An operation's value and a stored scalar as evanphx/json-patch v4 sees them: JSON texts
//! (see the parent module's notes on `test`).

use serde_json::Value as Json;

use crate::kubernetes::crd::{go_json_number, go_json_quote};

/// An operation's `value` as the library holds it (a `*json.RawMessage`).
#[derive(Clone, Debug, PartialEq)]
pub enum PatchValue {
    /// Go's nil `RawMessage`: a patch body's `"value": null`, which encoding/json decodes
    /// into a nil pointer. Applied as `null`; only a missing or null value tests equal to it.
    Nil,
    /// The value's JSON text as the library got it (a patch body's bytes as written; what
    /// a mutating policy's value marshals to): what `add` and `replace` put, and what
    /// `test` compares.
    Text(Vec<u8>),
}

impl PatchValue {
    /// A value whose text is `text` (which must be JSON).
    pub fn from_text(text: &str) -> PatchValue {
        PatchValue::Text(text.as_bytes().to_vec())
    }

    /// The text (`None`: Go's nil).
    pub(super) fn text(&self) -> Option<&[u8]> {
        match self {
            PatchValue::Nil => None,
            PatchValue::Text(text) => Some(text),
        }
    }
}

/// A stored scalar's text as apimachinery's JSON serializer writes it (encoding/json with
/// its HTML escaping: `"a\u003cb"`; numbers as an int64 or a float64: `1` for `1.0`).
pub fn scalar_text(scalar: &Json) -> String {
    match scalar {
        Json::String(s) => go_json_quote(s),
        Json::Number(n) => go_json_number(n),
        other => other.to_string(),
    }
}
