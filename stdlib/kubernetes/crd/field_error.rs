//! Field errors and paths, formatted as Kubernetes' `field.Error` prints them
//! (`spec.replicas: Invalid value: -1: must be positive`).

use std::fmt;

/// A path into an object (`spec.items[2].name`, `metadata.labels[app]`); empty is Go's nil
/// path and prints as `<nil>`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldPath(String);

impl FieldPath {
    /// The nil path (the root of a custom resource).
    pub fn root() -> FieldPath {
        FieldPath(String::new())
    }

    /// A path starting with a name.
    pub fn new(name: &str) -> FieldPath {
        FieldPath(name.to_string())
    }

    /// `path.name`.
    pub fn child(&self, name: &str) -> FieldPath {
        if self.0.is_empty() {
            FieldPath(name.to_string())
        } else {
            FieldPath(format!("{}.{name}", self.0))
        }
    }

    /// `path[key]`.
    pub fn key(&self, key: &str) -> FieldPath {
        FieldPath(format!("{}[{key}]", self.0))
    }

    /// `path[i]`.
    pub fn index(&self, i: usize) -> FieldPath {
        FieldPath(format!("{}[{i}]", self.0))
    }

    /// Whether this is the nil path.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("<nil>")
        } else {
            f.write_str(&self.0)
        }
    }
}

/// The type of a field error (its reason).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorType {
    /// `field.Invalid`: `Invalid value`.
    Invalid,
    /// A value of the wrong type (`field.TypeInvalid`; printed as an invalid value).
    TypeInvalid,
    /// `field.Forbidden`: `Forbidden`.
    Forbidden,
    /// `field.Required`: `Required value`.
    Required,
    /// `field.Duplicate`: `Duplicate value`.
    Duplicate,
    /// `field.NotSupported`: `Unsupported value`.
    NotSupported,
    /// `field.TooLong`: `Too long`.
    TooLong,
    /// `field.TooMany`: `Too many`.
    TooMany,
    /// `field.InternalError`: `Internal error`.
    Internal,
    /// `field.NotFound`: `Not found` (a reference to something that does not exist).
    NotFound,
}

impl ErrorType {
    /// The text Kubernetes prints for this type.
    pub fn text(self) -> &'static str {
        match self {
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::Required => "Required value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::Internal => "Internal error",
            ErrorType::NotFound => "Not found",
        }
    }

    /// The `metav1.CauseType` of this type (`FieldValueInvalid`, ...).
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::Internal => "InternalError",
            ErrorType::NotFound => "FieldValueNotFound",
        }
    }

    /// Whether an error of this type keeps kube-apiserver from running a custom resource's
    /// CEL rules (`hasBlockingErr`: unsupported, required, too long, too many, wrong type).
    pub fn blocks_rules(self) -> bool {
        matches!(
            self,
            ErrorType::NotSupported
                | ErrorType::Required
                | ErrorType::TooLong
                | ErrorType::TooMany
                | ErrorType::TypeInvalid
        )
    }

    /// The type for an `x-kubernetes-validations` `reason` (Invalid when absent or unknown).
    pub fn from_reason(reason: Option<&str>) -> ErrorType {
        match reason {
            Some("FieldValueForbidden") => ErrorType::Forbidden,
            Some("FieldValueRequired") => ErrorType::Required,
            Some("FieldValueDuplicate") => ErrorType::Duplicate,
            _ => ErrorType::Invalid,
        }
    }
}

/// One field error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// Where: the field's path (`spec.replicas`).
    pub path: FieldPath,
    /// What kind of error.
    pub error_type: ErrorType,
    /// The bad value as Go's `%#v`/`%q` renders it (`"object"`); printed for Invalid and
    /// Duplicate errors.
    pub bad_value: String,
    /// The message after the type (and value).
    pub detail: String,
}

impl FieldError {
    /// An error of `error_type`; `bad_value` is a string shown quoted.
    pub fn new(
        path: FieldPath,
        error_type: ErrorType,
        bad_value: &str,
        detail: impl Into<String>,
    ) -> FieldError {
        FieldError {
            path,
            error_type,
            bad_value: go_quote(bad_value),
            detail: detail.into(),
        }
    }

    /// An error whose bad value is already rendered (e.g. a Go struct literal).
    pub fn with_rendered_value(
        path: FieldPath,
        error_type: ErrorType,
        bad_value: String,
        detail: impl Into<String>,
    ) -> FieldError {
        FieldError {
            path,
            error_type,
            bad_value,
            detail: detail.into(),
        }
    }

    /// `field.TooMany`: a list of `actual` items where at most `max` are allowed
    /// (`Too many: 65: must have at most 64 items`).
    pub fn too_many(path: FieldPath, actual: usize, max: usize) -> FieldError {
        let items = if max == 1 { "item" } else { "items" };
        FieldError {
            path,
            error_type: ErrorType::TooMany,
            bad_value: actual.to_string(),
            detail: format!("must have at most {max} {items}"),
        }
    }

    /// `field.TooLong`: a value longer than `max` bytes (the value is not shown:
    /// `Too long: may not be more than 262144 bytes`).
    pub fn too_long(path: FieldPath, max: usize) -> FieldError {
        let bytes = if max == 1 { "byte" } else { "bytes" };
        FieldError {
            path,
            error_type: ErrorType::TooLong,
            bad_value: String::new(),
            detail: format!("may not be more than {max} {bytes}"),
        }
    }

    /// The error without its path, as `field.Error.ErrorBody` renders it.
    pub fn body(&self) -> String {
        let mut s = match self.error_type {
            ErrorType::Invalid
            | ErrorType::TypeInvalid
            | ErrorType::Duplicate
            | ErrorType::NotSupported
            | ErrorType::NotFound
            | ErrorType::TooMany => {
                if self.bad_value.is_empty() {
                    // The value is omitted (`field.OmitValueType`).
                    self.error_type.text().to_string()
                } else {
                    format!("{}: {}", self.error_type.text(), self.bad_value)
                }
            }
            other => other.text().to_string(),
        };
        // A duplicate error carries no detail in Kubernetes.
        if !self.detail.is_empty() && self.error_type != ErrorType::Duplicate {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

impl FieldError {
    /// The error as the API server reports it among a `Status`' causes.
    pub fn cause(&self) -> FieldCause {
        FieldCause {
            field: self.path.to_string(),
            reason: self.error_type.reason(),
            message: self.body(),
        }
    }
}

/// A field error as the API server reports it among a `Status`' causes
/// (`metav1.StatusCause`): the field's path, the error type's reason (`FieldValueInvalid`)
/// and the error without its path; serialised as `{"field", "reason", "message"}`, the
/// shape of `kcel validate -o json`'s and the playground's errors.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldCause {
    field: String,
    reason: &'static str,
    message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.body())
    }
}

/// The text of a list of field errors as apimachinery's `ErrorList.ToAggregate().Error()`
/// prints it: an error whose text repeats an earlier one's dropped, a single error bare,
/// several in brackets joined by `, `; an empty list is empty text (Go: no error).
pub fn aggregate(errors: &[FieldError]) -> String {
    let mut unique: Vec<String> = Vec::new();
    for e in errors {
        let text = e.to_string();
        if !unique.contains(&text) {
            unique.push(text);
        }
    }
    match unique.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// The message of apimachinery's `errors.NewInvalid(qualifiedKind, name, errs)`, the 422
/// Invalid an API server answers for an object its validation refuses:
/// `<Kind>.<group> "<name>" is invalid: <errors>`, the errors as [`aggregate`] prints them
/// (none: no `: ` part).
pub fn invalid_message(qualified_kind: &str, name: &str, errors: &[FieldError]) -> String {
    let name = go_quote(name);
    if errors.is_empty() {
        return format!("{qualified_kind} {name} is invalid");
    }
    format!("{qualified_kind} {name} is invalid: {}", aggregate(errors))
}

/// Go's `%q` of a string.
pub use kcel::library::standard::go_quote;

/// How encoding/json names a JSON value's type in its errors (`json: cannot unmarshal
/// <type> into Go value of type ...`).
pub fn go_json_type(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A string as Go's `encoding/json` writes it (`json.Marshal`): HTML-sensitive `<`, `>`, `&`
/// and U+2028/U+2029 as `\u` escapes, control characters as `\n`, `\r`, `\t`, `\b`, `\f`
/// or `\u00XX`.
pub fn go_json_quote(s: &str) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A number as Go's `encoding/json` writes an int64 or a float64 (protojson writes a
/// double the same way): integers in decimal; floats in their shortest form, fixed-point
/// unless below 1e-6 or from 1e21 on, then with an exponent (`1e+21`, `1e-7`).
pub fn go_json_number(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    go_json_float(n.as_f64().unwrap_or_default())
}

/// A float64 as `encoding/json`'s `floatEncoder` writes it (see [`go_json_number`]).
pub fn go_json_float(f: f64) -> String {
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        // Rust's shortest fixed-point form is strconv's 'f' with precision -1.
        return format!("{f}");
    }
    let text = format!("{f:e}");
    match text.split_once('e') {
        // Go writes a positive exponent with its sign; a negative one loses the padding
        // zero `strconv` gives it (`e-07` becomes `e-7`), which Rust never writes.
        Some((mantissa, exponent)) if !exponent.starts_with('-') => {
            format!("{mantissa}e+{exponent}")
        }
        _ => text,
    }
}

/// A JSON value as Go's `json.Marshal` writes a decoded `interface{}`: object keys sorted,
/// strings as [`go_json_quote`].
pub fn go_json_value(v: &serde_json::Value) -> String {
    use serde_json::Value as J;
    match v {
        J::String(s) => go_json_quote(s),
        J::Array(items) => {
            let items: Vec<String> = items.iter().map(go_json_value).collect();
            format!("[{}]", items.join(","))
        }
        J::Object(o) => {
            let mut entries: Vec<(&String, &J)> = o.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let entries: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| format!("{}:{}", go_json_quote(k), go_json_value(v)))
                .collect();
            format!("{{{}}}", entries.join(","))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_as_go_json_marshal() {
        let v = serde_json::json!({"z": [1, 2.5, null, true], "a": {"k": "<x>"}});
        assert_eq!(
            go_json_value(&v),
            r#"{"a":{"k":"\u003cx\u003e"},"z":[1,2.5,null,true]}"#
        );
    }

    #[test]
    fn numbers_as_go_json_marshal() {
        let cases = [
            (serde_json::json!(1), "1"),
            (serde_json::json!(-7), "-7"),
            (serde_json::json!(u64::MAX), "18446744073709551615"),
            (serde_json::json!(1.0), "1"),
            (serde_json::json!(-0.0), "-0"),
            (serde_json::json!(2.5), "2.5"),
            (serde_json::json!(1e20), "100000000000000000000"),
            (serde_json::json!(1e21), "1e+21"),
            (serde_json::json!(1.5e300), "1.5e+300"),
            (serde_json::json!(0.000001), "0.000001"),
            (serde_json::json!(1e-7), "1e-7"),
            (serde_json::json!(-2.5e-10), "-2.5e-10"),
        ];
        for (value, expected) in cases {
            let serde_json::Value::Number(n) = &value else {
                unreachable!()
            };
            assert_eq!(go_json_number(n), expected, "{value}");
        }
    }

    #[test]
    fn quotes_as_go_json_marshal() {
        assert_eq!(
            go_json_quote("a > 'b' && c<d"),
            r#""a \u003e 'b' \u0026\u0026 c\u003cd""#
        );
        assert_eq!(
            go_json_quote("\"\\\n\r\t\u{8}\u{c}\u{1}\u{7f}é\u{2028}"),
            "\"\\\"\\\\\\n\\r\\t\\b\\f\\u0001\u{7f}é\\u2028\""
        );
    }

    #[test]
    fn formats_as_kubernetes_does() {
        let p = FieldPath::root();
        assert_eq!(p.to_string(), "<nil>");
        let p = p.child("spec").child("items").index(2).key("a.b");
        assert_eq!(p.to_string(), "spec.items[2][a.b]");
        let e = FieldError::new(p.clone(), ErrorType::Invalid, "object", "bad");
        assert_eq!(
            e.to_string(),
            "spec.items[2][a.b]: Invalid value: \"object\": bad"
        );
        let e = FieldError::new(p.clone(), ErrorType::Forbidden, "object", "no");
        assert_eq!(e.to_string(), "spec.items[2][a.b]: Forbidden: no");
        let e = FieldError::too_many(FieldPath::new("spec").child("items"), 65, 64);
        assert_eq!(
            e.to_string(),
            "spec.items: Too many: 65: must have at most 64 items"
        );
        assert_eq!(e.error_type.reason(), "FieldValueTooMany");
        let e = FieldError::too_long(FieldPath::new("metadata").child("annotations"), 262144);
        assert_eq!(
            e.to_string(),
            "metadata.annotations: Too long: may not be more than 262144 bytes"
        );
        let e = FieldError::too_many(FieldPath::new("x"), 2, 1);
        assert_eq!(e.to_string(), "x: Too many: 2: must have at most 1 item");
        let e = FieldError::new(p, ErrorType::Duplicate, "string", "ignored");
        assert_eq!(
            e.to_string(),
            "spec.items[2][a.b]: Duplicate value: \"string\""
        );
    }
}
