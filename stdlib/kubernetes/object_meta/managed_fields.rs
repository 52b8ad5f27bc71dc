//! `metadata.managedFields` as the API server validates them: apimachinery
//! `pkg/apis/meta/v1/validation`, `ValidateManagedFields` (an operation `Apply` or `Update`,
//! a `fieldsType` of `FieldsV1` when given, the manager by `ValidateFieldManager`, a
//! subresource of at most 256 bytes).
//!
//! What a request sends is not what the API server validates: its field manager runs first
//! (`managedfields/internal` `decodeLiveOrNew`, `DecodeManagedFields`) and keeps the sent
//! entries only when they decode (every operation `Apply` or `Update`, an apiVersion, a
//! `fieldsType` of `FieldsV1`) and are not a reset (`[]` or `[{}]`); otherwise the stored
//! object's entries are used. [`request_errors`] validates what it keeps.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value as Json;

use crate::kubernetes::crd::field_error::{ErrorType, FieldError, FieldPath, go_json_quote};

/// metav1 validation `FieldManagerMaxLength`.
pub const FIELD_MANAGER_MAX_LENGTH: usize = 128;
/// metav1 validation `MaxSubresourceNameLength`.
pub const MAX_SUBRESOURCE_NAME_LENGTH: usize = 256;

/// A character Go's `unicode.IsPrint` rejects: not a letter, mark, number, punctuation or
/// symbol, and not the ASCII space.
static NOT_PRINTABLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[^\p{L}\p{M}\p{N}\p{P}\p{S} ]").expect("a valid character class")
});

/// `ValidateManagedFields` of the entries at `path` (`metadata.managedFields`), in order.
pub fn errors(path: &FieldPath, entries: &[Json]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let at = path.index(i);
        let text = |f: &str| entry.get(f).and_then(Json::as_str).unwrap_or_default();
        match text("operation") {
            "" => errors.push(FieldError::new(
                at.child("operation"),
                ErrorType::Required,
                "",
                "must not be empty",
            )),
            "Apply" | "Update" => {}
            // The value is a ManagedFieldsOperationType, not a Go string: json.Marshal shows it.
            other => errors.push(FieldError::with_rendered_value(
                at.child("operation"),
                ErrorType::NotSupported,
                go_json_quote(other),
                "supported values: \"Apply\", \"Update\"",
            )),
        }
        let fields_type = text("fieldsType");
        if !fields_type.is_empty() && fields_type != "FieldsV1" {
            errors.push(FieldError::new(
                at.child("fieldsType"),
                ErrorType::Invalid,
                fields_type,
                "must be `FieldsV1`",
            ));
        }
        errors.extend(manager_errors(&at.child("manager"), text("manager")));
        if text("subresource").len() > MAX_SUBRESOURCE_NAME_LENGTH {
            errors.push(FieldError::too_long(
                at.child("subresource"),
                MAX_SUBRESOURCE_NAME_LENGTH,
            ));
        }
    }
    errors
}

/// metav1 validation `ValidateFieldManager`: at most 128 bytes, every character printable
/// (each other one an error naming it as Go's `%#U` does and its byte offset).
pub fn manager_errors(path: &FieldPath, manager: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if manager.len() > FIELD_MANAGER_MAX_LENGTH {
        errors.push(FieldError::too_long(path.clone(), FIELD_MANAGER_MAX_LENGTH));
    }
    for found in NOT_PRINTABLE.find_iter(manager) {
        let c = found.as_str().chars().next().unwrap_or_default();
        errors.push(FieldError::new(
            path.clone(),
            ErrorType::Invalid,
            manager,
            format!(
                "invalid character U+{:04X} (at position {})",
                c as u32,
                found.start()
            ),
        ));
    }
    errors
}

/// The errors of the entries a request sends (`managedFields`, absent or not a list: none)
/// as the API server finds them: none unless its field manager keeps them (see the module
/// docs), then [`errors`].
pub fn request_errors(path: &FieldPath, managed_fields: Option<&Json>) -> Vec<FieldError> {
    let Some(entries) = managed_fields.and_then(Json::as_array) else {
        return Vec::new();
    };
    let reset = match entries.as_slice() {
        [] => true,
        [only] => only.as_object().is_some_and(serde_json::Map::is_empty),
        _ => false,
    };
    let decodes = entries.iter().all(|entry| {
        let text = |f: &str| entry.get(f).and_then(Json::as_str).unwrap_or_default();
        matches!(text("operation"), "Apply" | "Update")
            && !text("apiVersion").is_empty()
            && text("fieldsType") == "FieldsV1"
    });
    if reset || !decodes {
        return Vec::new();
    }
    errors(path, entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn path() -> FieldPath {
        FieldPath::new("managedFields")
    }

    fn texts(entries: Json) -> Vec<String> {
        errors(&path(), entries.as_array().unwrap())
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    // apimachinery meta/v1/validation validation_test.go TestValidateManagedFieldsInvalid:
    // each entry fails, with these errors.
    #[test]
    fn validate_managed_fields_invalid() {
        let long = "TooLong".repeat(37);
        assert_eq!(
            texts(json!([
                {"operation": "Update", "fieldsType": "RandomVersion", "apiVersion": "v1"},
                {"operation": "RandomOperation", "fieldsType": "FieldsV1", "apiVersion": "v1"},
                {"fieldsType": "FieldsV1", "apiVersion": "v1"},
                {"operation": "Update", "fieldsType": "FieldsV1", "manager": "field\nmanager",
                 "apiVersion": "v1"},
                {"operation": "Apply", "fieldsType": "FieldsV1", "apiVersion": "v1",
                 "subresource": long},
            ])),
            [
                "managedFields[0].fieldsType: Invalid value: \"RandomVersion\": must be `FieldsV1`",
                "managedFields[1].operation: Unsupported value: \"RandomOperation\": supported values: \"Apply\", \"Update\"",
                "managedFields[2].operation: Required value: must not be empty",
                "managedFields[3].manager: Invalid value: \"field\\nmanager\": invalid character U+000A (at position 5)",
                "managedFields[4].subresource: Too long: may not be more than 256 bytes",
            ]
        );
    }

    // TestValidateMangedFieldsValid, and TestValidateFieldManagerInvalid's length.
    #[test]
    fn validate_managed_fields_valid() {
        assert!(
            texts(json!([
                {"operation": "Update", "apiVersion": "v1"},
                {"operation": "Update", "fieldsType": "FieldsV1", "apiVersion": "v1"},
                {"operation": "Apply", "fieldsType": "FieldsV1", "apiVersion": "v1",
                 "subresource": "scale"},
                {"operation": "Apply", "fieldsType": "FieldsV1", "apiVersion": "v1",
                 "manager": "🍔"},
            ]))
            .is_empty()
        );
        assert_eq!(
            manager_errors(&path(), &"x".repeat(129))
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            ["managedFields: Too long: may not be more than 128 bytes"]
        );
        assert!(manager_errors(&path(), &"x".repeat(128)).is_empty());
        // A no-break space is not printable for Go; the offset counts bytes.
        assert_eq!(
            manager_errors(&path(), "é\u{a0}")[0].detail,
            "invalid character U+00A0 (at position 2)"
        );
    }

    // decodeLiveOrNew: entries that do not decode, or a reset, are replaced before validation.
    #[test]
    fn requests_are_validated_as_the_field_manager_keeps_them() {
        let long = json!([{"operation": "Update", "fieldsType": "FieldsV1", "apiVersion": "v1",
                           "manager": "m".repeat(200), "fieldsV1": {}}]);
        assert_eq!(request_errors(&path(), Some(&long)).len(), 1);
        for dropped in [
            json!([]),
            json!([{}]),
            json!([{"operation": "Nope", "fieldsType": "FieldsV1", "apiVersion": "v1"}]),
            json!([{"operation": "Update", "fieldsType": "FieldsV2", "apiVersion": "v1",
                    "manager": "m".repeat(200)}]),
            json!([{"operation": "Update", "fieldsType": "FieldsV1", "manager": "m".repeat(200)}]),
            json!("not a list"),
        ] {
            assert!(
                request_errors(&path(), Some(&dropped)).is_empty(),
                "{dropped}"
            );
        }
    }
}
