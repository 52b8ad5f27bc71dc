//! Kubernetes' checks of a rule's own fields (empty rule, messages, reason, fieldPath), the
//! normalization of `fieldPath`, and the rule as Go prints it in errors.

use super::field_error::{ErrorType, FieldError, FieldPath, go_json_quote, go_quote};
use super::schema::{Schema, ValidationRule};

/// Kubernetes' checks of each rule's fields at a schema node, before any compilation.
pub fn rule_field_errors(s: &Schema, path: &FieldPath) -> Vec<FieldError> {
    let mut all = Vec::new();
    const REASONS: [&str; 4] = [
        "FieldValueDuplicate",
        "FieldValueForbidden",
        "FieldValueInvalid",
        "FieldValueRequired",
    ];
    let has_newlines = |t: &str| t.contains(['\n', '\r']);
    for (i, rule) in s.validations.iter().enumerate() {
        let at = path.child("x-kubernetes-validations").index(i);
        let mut errors = Vec::new();
        let (r, m) = (rule.rule.trim(), rule.message.trim());
        if r.is_empty() {
            errors.push(FieldError::new(
                at.child("rule"),
                ErrorType::Required,
                "",
                "rule is not specified",
            ));
        } else if !rule.message.is_empty() && m.is_empty() {
            errors.push(FieldError::new(
                at.child("message"),
                ErrorType::Invalid,
                &rule.message,
                "must be non-empty if specified",
            ));
        } else if has_newlines(m) {
            errors.push(FieldError::new(
                at.child("message"),
                ErrorType::Invalid,
                &rule.message,
                "must not contain line breaks",
            ));
        } else if has_newlines(r) && m.is_empty() {
            errors.push(FieldError::new(
                at.child("message"),
                ErrorType::Required,
                "",
                "message must be specified if rule contains line breaks",
            ));
        }
        if !rule.message_expression.is_empty() && rule.message_expression.trim().is_empty() {
            errors.push(FieldError::new(
                at.child("messageExpression"),
                ErrorType::Required,
                "",
                "messageExpression must be non-empty if specified",
            ));
        }
        if let Some(reason) = rule.reason.as_deref().filter(|r| !REASONS.contains(r)) {
            let supported: Vec<String> = REASONS.iter().map(|r| go_quote(r)).collect();
            errors.push(FieldError::new(
                at.child("reason"),
                ErrorType::NotSupported,
                reason,
                format!("supported values: {}", supported.join(", ")),
            ));
        }
        if !rule.field_path.is_empty() && rule.field_path.trim().is_empty() {
            errors.push(FieldError::new(
                at.child("fieldPath"),
                ErrorType::Invalid,
                &rule.field_path,
                "must be non-empty if specified",
            ));
        }
        if has_newlines(&rule.field_path) {
            errors.push(FieldError::new(
                at.child("fieldPath"),
                ErrorType::Invalid,
                &rule.field_path,
                "must not contain line breaks",
            ));
        }
        if !rule.field_path.is_empty() && normalize_field_path(&rule.field_path, s).is_err() {
            errors.push(FieldError::new(
                at.child("fieldPath"),
                ErrorType::Invalid,
                &rule.field_path,
                "must be a valid path",
            ));
        }
        all.extend(errors);
    }
    all
}

/// The rule as Kubernetes shows it as the bad value of a compilation error: Go's
/// `json.Marshal` of the internal `apiextensions.ValidationRule`, whose fields carry no JSON
/// tags (so Go's field names, in declaration order; unset pointers are `null`).
pub fn rule_json(rule: &ValidationRule) -> String {
    let reason = rule
        .reason
        .as_deref()
        .map_or("null".to_string(), go_json_quote);
    let old = rule
        .optional_old_self
        .map_or("null".to_string(), |b| b.to_string());
    format!(
        "{{\"Rule\":{},\"Message\":{},\"MessageExpression\":{},\"Reason\":{reason},\"FieldPath\":{},\"OptionalOldSelf\":{old}}}",
        go_json_quote(&rule.rule),
        go_json_quote(&rule.message),
        go_json_quote(&rule.message_expression),
        go_json_quote(&rule.field_path),
    )
}

/// Normalizes a rule's `fieldPath` (`.spec.x`, `.m['a.b']`) to a field path string
/// (`spec.x`, `m[a.b]`), checking each step against the schema.
pub fn normalize_field_path(
    path: &str,
    schema: &Schema,
) -> Result<String, super::selectable::FieldPathError> {
    super::selectable::resolve_field_path(path, schema, true).map(|(path, _)| path.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn normalizes_field_paths() {
        let s = Schema::from_json(&json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"x": {"type": "string"}}},
            "m": {"type": "object", "additionalProperties": {"type": "string"}}
        }}))
        .unwrap();
        assert_eq!(normalize_field_path(".spec.x", &s).unwrap(), "spec.x");
        assert_eq!(normalize_field_path(".m['a.b']", &s).unwrap(), "m[a.b]");
        assert_eq!(
            normalize_field_path(".nope", &s).unwrap_err().to_string(),
            "does not refer to a valid field"
        );
        assert!(normalize_field_path("spec", &s).is_err());
    }
}
