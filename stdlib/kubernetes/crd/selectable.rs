//! Simple JSON paths into a structural schema (apiextensions-apiserver's `cel.ValidFieldPath`,
//! which checks a rule's `fieldPath` and a version's `selectableFields`), the checks of
//! `spec.versions[].selectableFields` at CRD write time (`ValidateCustomResourceSelectableFields`
//! in `pkg/apis/apiextensions/validation/validation.go`), and the field-selector value a
//! selectable field has on an object (the custom resource strategy's `selectableFields`).

use std::collections::BTreeSet;

use super::field_error::{ErrorType, FieldError, FieldPath};
use super::schema::Schema;

/// At most this many distinct selectable fields per version (upstream's `MaxSelectableFields`).
pub const MAX_SELECTABLE_FIELDS: usize = 8;

/// Why a simple JSON path does not resolve: upstream's texts (`cel.ValidFieldPath`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FieldPathError {
    /// A step to a field the schema does not have.
    #[error("does not refer to a valid field")]
    NoSuchField,
    /// `['key']` where it is not allowed.
    #[error("array notation is not allowed")]
    ArrayNotation,
    /// The path ends after `.` or `[`.
    #[error("unexpected end of JSON path")]
    UnexpectedEnd,
    /// `[` not followed by a single-quoted string.
    #[error("expected single quoted string but got {0}")]
    NotQuoted(String),
    /// A quoted key with a bad escape.
    #[error("invalid string literal: {0}")]
    StringLiteral(EscapeError),
    /// `['key'` not followed by `]`.
    #[error("expected ] but got {0}")]
    NotClosed(String),
    /// A step that starts with neither `.` nor `[`.
    #[error("expected [ or . but got: {0}")]
    NotAStep(String),
}

/// A bad escape in a single-quoted key of a JSON path.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EscapeError {
    /// A backslash before a character other than `\\` or `'`.
    #[error("invalid escape sequence '\\{0}'")]
    Invalid(char),
    /// A backslash at the end.
    #[error("unterminated escape sequence")]
    Unterminated,
}

/// Resolves a simple JSON path (`.spec.x`, `.m['a.b']`) against `schema`, as upstream's
/// `cel.ValidFieldPath` does: the field path it names and the schema found there (`None`
/// under a map whose values have no schema). Array notation (`['key']`) is refused unless
/// `allow_array_notation`. The error texts are upstream's.
pub fn resolve_field_path<'s>(
    json_path: &str,
    schema: &'s Schema,
    allow_array_notation: bool,
) -> Result<(FieldPath, Option<&'s Schema>), FieldPathError> {
    let mut path = FieldPath::root();
    let mut at = Some(schema);
    let mut tokens = tokens(json_path).into_iter();
    // One step into the current schema: a declared property, or a key of a map.
    let step = |path: &mut FieldPath, at: &mut Option<&'s Schema>, name: &str| {
        let Some(s) = *at else {
            return Err(FieldPathError::NoSuchField);
        };
        if !s.properties.is_empty() {
            *path = path.child(name);
            *at = Some(s.properties.get(name).ok_or(FieldPathError::NoSuchField)?);
        } else if s.additional_properties.is_some() {
            *path = path.key(name);
            *at = s.additional_schema();
        } else {
            return Err(FieldPathError::NoSuchField);
        }
        Ok(())
    };
    while let Some(token) = tokens.next() {
        match token {
            "[" => {
                if !allow_array_notation {
                    return Err(FieldPathError::ArrayNotation);
                }
                let quoted = tokens.next().ok_or(FieldPathError::UnexpectedEnd)?;
                let inner = quoted
                    .strip_prefix('\'')
                    .and_then(|q| q.strip_suffix('\''))
                    .filter(|_| quoted.len() >= 2)
                    .ok_or_else(|| FieldPathError::NotQuoted(quoted.to_owned()))?;
                let name = unescape_single_quoted(inner).map_err(FieldPathError::StringLiteral)?;
                step(&mut path, &mut at, &name)?;
                match tokens.next() {
                    Some("]") => {}
                    Some(other) => return Err(FieldPathError::NotClosed(other.to_owned())),
                    None => return Err(FieldPathError::UnexpectedEnd),
                }
            }
            "." => {
                let name = tokens.next().ok_or(FieldPathError::UnexpectedEnd)?;
                step(&mut path, &mut at, name)?;
            }
            other => return Err(FieldPathError::NotAStep(other.to_owned())),
        }
    }
    Ok((path, at))
}

/// The tokens of a simple JSON path as upstream's scanner splits it: the delimiters `.`, `[`
/// and `]` alone, a single-quoted string whole, and the text between delimiters.
fn tokens(path: &str) -> Vec<&str> {
    let bytes = path.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let end = if bytes[start] == b'\'' {
            // Up to the next quote not escaped by a backslash, or the end.
            (start + 1..bytes.len())
                .find(|&i| bytes[i] == b'\'' && bytes[i - 1] != b'\\')
                .map_or(bytes.len(), |i| i + 1)
        } else if matches!(bytes[start], b'.' | b'[' | b']') {
            start + 1
        } else {
            (start..bytes.len())
                .find(|&i| matches!(bytes[i], b'.' | b'[' | b']'))
                .unwrap_or(bytes.len())
        };
        out.push(&path[start..end]);
        start = end;
    }
    out
}

/// The text of a single-quoted string: `\\` and `\'` are the only escapes.
fn unescape_single_quoted(text: &str) -> Result<String, EscapeError> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(e @ ('\\' | '\'')) => out.push(e),
            Some(e) => return Err(EscapeError::Invalid(e)),
            None => return Err(EscapeError::Unterminated),
        }
    }
    Ok(out)
}

/// The errors of a version's `selectableFields` (the `jsonPath` of each, at `at`), checked
/// against the version's schema with upstream's texts: a required path, a valid simple path
/// without array notation, not into `metadata`, to a string, boolean or integer field, no
/// duplicates, and at most [`MAX_SELECTABLE_FIELDS`].
pub fn selectable_field_errors(
    json_paths: &[&str],
    schema: &Schema,
    at: &FieldPath,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut unique = BTreeSet::new();
    for (i, json_path) in json_paths.iter().enumerate() {
        let here = at.index(i).child("jsonPath");
        if json_path.is_empty() {
            errors.push(FieldError::new(here, ErrorType::Required, "", ""));
            continue;
        }
        let (path, found) = match resolve_field_path(json_path, schema, false) {
            Ok(resolved) => resolved,
            Err(e) => {
                errors.push(FieldError::new(
                    here,
                    ErrorType::Invalid,
                    json_path,
                    format!("is an invalid path: {e}"),
                ));
                continue;
            }
        };
        let text = path.to_string();
        let root = text.split(['.', '[']).next().unwrap_or("");
        if root == "metadata" {
            errors.push(FieldError::new(
                here.clone(),
                ErrorType::Invalid,
                json_path,
                "must not point to fields in metadata",
            ));
        }
        if !found.is_some_and(|s| matches!(s.type_.as_str(), "string" | "boolean" | "integer")) {
            errors.push(FieldError::new(
                here.clone(),
                ErrorType::Invalid,
                json_path,
                "must point to a field of type string, boolean or integer. Enum string fields \
                 and strings with formats are allowed.",
            ));
        }
        if !unique.insert(text) {
            errors.push(FieldError::new(here, ErrorType::Duplicate, json_path, ""));
        }
    }
    if unique.len() > MAX_SELECTABLE_FIELDS {
        errors.push(FieldError::too_many(
            at.clone(),
            unique.len(),
            MAX_SELECTABLE_FIELDS,
        ));
    }
    errors
}

/// The field-selector label of a selectable field (`spec.color` for `.spec.color`).
pub fn selectable_field_label(json_path: &str) -> &str {
    json_path.strip_prefix('.').unwrap_or(json_path)
}

/// The value a selectable field has on `object` for field selectors, as upstream prints it
/// (`fmt.Sprint`): a string as it is, an integer or boolean in Go's text, the empty string
/// where the path leads nowhere or to null.
pub fn selectable_field_value(object: &serde_json::Value, json_path: &str) -> String {
    let mut at = Some(object);
    for name in selectable_field_label(json_path).split('.') {
        at = at.and_then(|v| v.get(name));
    }
    match at {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Schema {
        Schema::from_json(&json!({"type": "object", "properties": {
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {
                "color": {"type": "string", "enum": ["red", "blue"]},
                "size": {"type": "integer"},
                "on": {"type": "boolean"},
                "ratio": {"type": "number"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "nested": {"type": "object", "properties": {"deep": {"type": "string"}}},
            }},
        }}))
        .unwrap()
    }

    // Upstream: apiserver/schema/cel/validation_test.go TestValidFieldPath's cases for the
    // texts of malformed paths.
    #[test]
    fn paths_resolve_as_upstreams_valid_field_path() {
        let s = schema();
        let ok = |p: &str, array: bool| match resolve_field_path(p, &s, array) {
            Ok((p, _)) => Ok(p.to_string()),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(ok(".spec.color", false).unwrap(), "spec.color");
        assert_eq!(ok(".spec.labels.a", false).unwrap(), "spec.labels[a]");
        assert_eq!(ok(".spec.labels['a.b']", true).unwrap(), "spec.labels[a.b]");
        assert_eq!(
            ok(".spec.labels['a.b']", false).unwrap_err(),
            "array notation is not allowed"
        );
        assert_eq!(
            ok("spec.color", false).unwrap_err(),
            "expected [ or . but got: spec"
        );
        assert_eq!(
            ok(".spec.", false).unwrap_err(),
            "unexpected end of JSON path"
        );
        assert_eq!(
            ok(".spec.nope", false).unwrap_err(),
            "does not refer to a valid field"
        );
        assert_eq!(
            ok(".spec.color.x", false).unwrap_err(),
            "does not refer to a valid field"
        );
        assert_eq!(
            ok(".spec[spec]", true).unwrap_err(),
            "expected single quoted string but got spec"
        );
        assert_eq!(
            ok(".spec['color'", true).unwrap_err(),
            "unexpected end of JSON path"
        );
    }

    // Upstream: validation_test.go's selectableFields cases (TestValidateCustomResourceDefinition
    // "selectableFields with ...").
    #[test]
    fn selectable_fields_are_checked_as_upstream() {
        let s = schema();
        let at = FieldPath::new("spec.versions[0].selectableFields");
        let texts = |paths: &[&str]| -> Vec<String> {
            selectable_field_errors(paths, &s, &at)
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert!(texts(&[".spec.color", ".spec.size", ".spec.on", ".spec.nested.deep"]).is_empty());
        assert_eq!(
            texts(&[
                "",
                ".spec.ratio",
                ".metadata.name",
                "spec.color",
                ".spec.color",
                ".spec.color"
            ]),
            [
                "spec.versions[0].selectableFields[0].jsonPath: Required value",
                "spec.versions[0].selectableFields[1].jsonPath: Invalid value: \".spec.ratio\": \
                 must point to a field of type string, boolean or integer. Enum string fields and \
                 strings with formats are allowed.",
                "spec.versions[0].selectableFields[2].jsonPath: Invalid value: \".metadata.name\": \
                 is an invalid path: does not refer to a valid field",
                "spec.versions[0].selectableFields[3].jsonPath: Invalid value: \"spec.color\": is \
                 an invalid path: expected [ or . but got: spec",
                "spec.versions[0].selectableFields[5].jsonPath: Duplicate value: \".spec.color\"",
            ]
        );
        let nine: Vec<String> = (0..9).map(|i| format!(".spec.labels.k{i}")).collect();
        let nine: Vec<&str> = nine.iter().map(String::as_str).collect();
        assert_eq!(
            texts(&nine),
            ["spec.versions[0].selectableFields: Too many: 9: must have at most 8 items"]
        );
    }

    // Upstream: registry/customresource/strategy_test.go TestSelectableFields — values in
    // fmt.Sprint's text, missing ones empty.
    #[test]
    fn values_are_printed_as_upstream() {
        let o = json!({"spec": {"color": "red", "size": 3, "on": true, "none": null}});
        assert_eq!(selectable_field_value(&o, ".spec.color"), "red");
        assert_eq!(selectable_field_value(&o, ".spec.size"), "3");
        assert_eq!(selectable_field_value(&o, ".spec.on"), "true");
        assert_eq!(selectable_field_value(&o, ".spec.none"), "");
        assert_eq!(selectable_field_value(&o, ".spec.missing.x"), "");
        assert_eq!(selectable_field_label(".spec.color"), "spec.color");
    }
}
