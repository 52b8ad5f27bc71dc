//! Field errors as apimachinery's `field` package builds them (`field.Required`,
//! `field.Invalid`, `field.NotSupported`, ...), and the messages of
//! `k8s.io/apimachinery/pkg/util/validation` the kinds share (port numbers and names,
//! environment variable names, config keys, ranges).

use serde_json::Value as Json;

use crate::kubernetes::crd::field_error::{ErrorType, FieldError, FieldPath, go_json_value};
use crate::kubernetes::named_formats::{messages, regex_error};
use crate::kubernetes::object_meta;

/// `IsNegativeErrorMsg`.
pub(super) const NEGATIVE: &str = "must be greater than or equal to 0";

/// The errors found so far, in upstream's order.
#[derive(Default)]
pub(super) struct Errors(Vec<FieldError>);

impl Errors {
    pub(super) fn into_vec(self) -> Vec<FieldError> {
        self.0
    }

    pub(super) fn push(&mut self, e: FieldError) {
        self.0.push(e);
    }

    pub(super) fn extend(&mut self, e: Vec<FieldError>) {
        self.0.extend(e);
    }

    /// `field.Required(path, detail)`.
    pub(super) fn required(&mut self, path: &FieldPath, detail: &str) {
        self.push(FieldError::new(
            path.clone(),
            ErrorType::Required,
            "",
            detail,
        ));
    }

    /// `field.Invalid` of a string value.
    pub(super) fn invalid(&mut self, path: &FieldPath, value: &str, detail: &str) {
        self.push(FieldError::new(
            path.clone(),
            ErrorType::Invalid,
            value,
            detail,
        ));
    }

    /// `field.Invalid` of an integer value.
    pub(super) fn invalid_int(&mut self, path: &FieldPath, value: i64, detail: &str) {
        self.invalid_json(path, &Json::from(value), detail);
    }

    /// `field.Invalid` of a map or struct value, shown as its JSON.
    pub(super) fn invalid_json(&mut self, path: &FieldPath, value: &Json, detail: &str) {
        self.push(FieldError::with_rendered_value(
            path.clone(),
            ErrorType::Invalid,
            go_json_value(value),
            detail,
        ));
    }

    /// `field.Invalid` whose value is already rendered.
    pub(super) fn invalid_rendered(&mut self, path: &FieldPath, value: String, detail: &str) {
        self.push(FieldError::with_rendered_value(
            path.clone(),
            ErrorType::Invalid,
            value,
            detail,
        ));
    }

    /// `field.Duplicate` of a string value.
    pub(super) fn duplicate(&mut self, path: &FieldPath, value: &str) {
        self.push(FieldError::new(
            path.clone(),
            ErrorType::Duplicate,
            value,
            "",
        ));
    }

    /// `field.Duplicate` whose value is already rendered (a named string type as its JSON).
    pub(super) fn duplicate_rendered(&mut self, path: &FieldPath, value: String) {
        self.push(FieldError::with_rendered_value(
            path.clone(),
            ErrorType::Duplicate,
            value,
            "",
        ));
    }

    /// `field.NotFound` of a string value.
    pub(super) fn not_found(&mut self, path: &FieldPath, value: &str) {
        self.push(FieldError::new(
            path.clone(),
            ErrorType::NotFound,
            value,
            "",
        ));
    }

    /// `field.Forbidden(path, detail)`.
    pub(super) fn forbidden(&mut self, path: &FieldPath, detail: &str) {
        self.push(FieldError::new(
            path.clone(),
            ErrorType::Forbidden,
            "",
            detail,
        ));
    }

    /// `field.NotSupported(path, value, supported)`: `Unsupported value: "x": supported
    /// values: "A", "B"` (in the order given: upstream sorts some lists, not others).
    pub(super) fn not_supported(&mut self, path: &FieldPath, value: &str, supported: &[&str]) {
        self.not_supported_rendered(path, crate::kubernetes::go_quote(value), supported);
    }

    /// `field.NotSupported` whose value is already rendered (a struct as its JSON).
    pub(super) fn not_supported_rendered(
        &mut self,
        path: &FieldPath,
        value: String,
        supported: &[&str],
    ) {
        let list: Vec<String> = supported
            .iter()
            .map(|s| crate::kubernetes::go_quote(s))
            .collect();
        self.push(FieldError::with_rendered_value(
            path.clone(),
            ErrorType::NotSupported,
            value,
            format!("supported values: {}", list.join(", ")),
        ));
    }

    /// One `field.Invalid` per message of a string rule.
    pub(super) fn each(&mut self, path: &FieldPath, value: &str, msgs: Vec<String>) {
        for m in msgs {
            self.invalid(path, value, &m);
        }
    }

    /// `ValidateNonnegativeField`.
    pub(super) fn nonnegative(&mut self, path: &FieldPath, value: Option<i64>) {
        if let Some(n) = value.filter(|n| *n < 0) {
            self.invalid_int(path, n, NEGATIVE);
        }
    }

    /// `ValidateDNS1123Label`.
    pub(super) fn dns1123_label(&mut self, path: &FieldPath, value: &str) {
        self.each(path, value, messages("dns1123Label", value));
    }

    /// A name checked with `NameIsDNSSubdomain` (`false` for prefix).
    pub(super) fn dns1123_subdomain(&mut self, path: &FieldPath, value: &str) {
        self.each(path, value, messages("dns1123Subdomain", value));
    }

    /// metav1 `ValidateLabels`: keys and values, errors at `path` itself.
    pub(super) fn labels(&mut self, path: &FieldPath, labels: &[(String, String)]) {
        self.extend(object_meta::label_errors(path, labels));
    }

    /// apimachinery `ValidateAnnotations`.
    pub(super) fn annotations(&mut self, path: &FieldPath, annotations: &[(String, String)]) {
        self.extend(object_meta::annotation_errors(path, annotations));
    }

    /// `ValidatePortNumOrName` of an int-or-string port.
    pub(super) fn port_num_or_name(&mut self, path: &FieldPath, port: &Json) {
        match port {
            Json::String(name) => self.each(path, name, port_name(name)),
            other => {
                let n = other.as_i64().unwrap_or_default();
                if let Some(m) = port_num(n) {
                    self.invalid_int(path, n, &m);
                }
            }
        }
    }
}

/// A Go struct of the internal API types (which have no JSON tags) as `json.Marshal` writes
/// it in a field error's value since Kubernetes 1.34: its fields by their Go names, in
/// declaration order, each value already rendered as JSON.
pub(super) fn go_struct(fields: &[(&str, String)]) -> String {
    let fields: Vec<String> = fields
        .iter()
        .map(|(name, value)| format!("\"{name}\":{value}"))
        .collect();
    format!("{{{}}}", fields.join(","))
}

/// `InclusiveRangeError`.
pub(super) fn inclusive_range(lo: i64, hi: i64) -> String {
    format!("must be between {lo} and {hi}, inclusive")
}

/// `IsValidPortNum`: the message for a port outside 1–65535.
pub(super) fn port_num(port: i64) -> Option<String> {
    (!(1..=65535).contains(&port)).then(|| inclusive_range(1, 65535))
}

/// `IsValidPortName` (an IANA service name).
pub(super) fn port_name(port: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if port.len() > 15 {
        errs.push("must be no more than 15 characters".to_string());
    }
    if port.is_empty()
        || !port
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".into());
    }
    if !port.bytes().any(|b| b.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".into());
    }
    if port.contains("--") {
        errs.push("must not contain consecutive hyphens".into());
    }
    if port.starts_with('-') || port.ends_with('-') {
        errs.push("must not begin or end with a hyphen".into());
    }
    errs
}

/// `IsRelaxedEnvVarName` (the rule since RelaxedEnvironmentVariableValidation went GA).
pub(super) fn env_var_name(name: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if name.is_empty() {
        errs.push("environment variable name must be non-empty".to_string());
    }
    if name.chars().any(|c| !(' '..='~').contains(&c) || c == '=') {
        errs.push(
            "a valid environment variable name must consist only of printable ASCII characters other than '='"
                .to_string(),
        );
    }
    errs
}

/// `IsConfigMapKey`: keys of ConfigMaps and Secrets.
pub(super) fn config_key(key: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if key.len() > 253 {
        errs.push("must be no more than 253 characters".to_string());
    }
    if key.is_empty()
        || !key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
    {
        errs.push(regex_error(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
            "[-._a-zA-Z0-9]+",
            &["key.name", "KEY_NAME", "key-name"],
        ));
    }
    match key {
        "." => errs.push("must not be '.'".to_string()),
        ".." => errs.push("must not be '..'".to_string()),
        k if k.starts_with("..") => errs.push("must not start with '..'".to_string()),
        _ => {}
    }
    errs
}
