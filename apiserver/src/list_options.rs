//! `ListOptions` as kube-apiserver validates and reads them: `resourceVersion`,
//! `resourceVersionMatch`, `continue` and `sendInitialEvents` (kubernetes/apimachinery
//! `apis/meta/internalversion/validation`).

use std::collections::HashMap;

use crate::error::{ApiError, FieldError};

/// Which state a list or get reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// No resourceVersion (or `0`): the current state.
    Current,
    /// `resourceVersion=N` (NotOlderThan): the current state, which must have reached N.
    NotOlderThan(i64),
    /// `resourceVersionMatch=Exact`: the state at exactly N.
    Exact(i64),
}

fn param<'a>(params: &'a HashMap<String, String>, name: &str) -> &'a str {
    params.get(name).map(String::as_str).unwrap_or("")
}

/// Upstream's `ValidateListOptions` for lists and watches.
pub fn validate(params: &HashMap<String, String>, watch: bool) -> Result<(), ApiError> {
    let matched = param(params, "resourceVersionMatch");
    let rv = param(params, "resourceVersion");
    let continuing = !param(params, "continue").is_empty();
    let send_initial = params.contains_key("sendInitialEvents");
    let field = "resourceVersionMatch";
    let mut errors = Vec::new();
    if watch {
        if send_initial && matched != "NotOlderThan" {
            errors.push(FieldError::forbidden(
                field,
                "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
            ));
        }
        if !matched.is_empty() {
            if !send_initial {
                errors.push(FieldError::forbidden(
                    field,
                    "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                ));
            }
            if matched != "NotOlderThan" {
                errors.push(FieldError::not_supported(field, matched, &["NotOlderThan"]));
            }
            if continuing {
                errors.push(FieldError::forbidden(
                    field,
                    "resourceVersionMatch is forbidden when continue is provided",
                ));
            }
        }
    } else {
        if !matched.is_empty() {
            if rv.is_empty() {
                errors.push(FieldError::forbidden(
                    field,
                    "resourceVersionMatch is forbidden unless resourceVersion is provided",
                ));
            }
            if continuing {
                errors.push(FieldError::forbidden(
                    field,
                    "resourceVersionMatch is forbidden when continue is provided",
                ));
            }
            if matched != "Exact" && matched != "NotOlderThan" {
                errors.push(FieldError::not_supported(
                    field,
                    matched,
                    &["Exact", "NotOlderThan", ""],
                ));
            }
            if matched == "Exact" && rv == "0" {
                errors.push(FieldError::forbidden(
                    field,
                    "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                ));
            }
        }
        if send_initial {
            errors.push(FieldError::forbidden(
                "sendInitialEvents",
                "sendInitialEvents is forbidden for list",
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiError::invalid_list_options(errors))
    }
}

/// The resourceVersion asked for, as a number (`None` when absent or `0`).
pub fn resource_version(params: &HashMap<String, String>) -> Result<Option<i64>, ApiError> {
    match param(params, "resourceVersion") {
        "" | "0" => Ok(None),
        text => text.parse::<i64>().map(Some).map_err(|_| {
            ApiError::bad_request(format!(
                "invalid resource version {text:?}: must be an integer"
            ))
        }),
    }
}

/// What a (validated) list or get reads.
pub fn read(params: &HashMap<String, String>) -> Result<Read, ApiError> {
    Ok(
        match (
            resource_version(params)?,
            param(params, "resourceVersionMatch"),
        ) {
            (None, _) => Read::Current,
            (Some(rv), "Exact") => Read::Exact(rv),
            (Some(rv), _) => Read::NotOlderThan(rv),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn upstreams_list_option_rules() {
        let e = validate(&params(&[("resourceVersionMatch", "Exact")]), false).unwrap_err();
        assert_eq!(
            e.message,
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: \
             resourceVersionMatch is forbidden unless resourceVersion is provided"
        );
        let e = validate(
            &params(&[("resourceVersionMatch", "Newest"), ("resourceVersion", "1")]),
            false,
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: \
             \"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\""
        );
        let e = validate(
            &params(&[
                ("resourceVersionMatch", "Exact"),
                ("resourceVersion", "0"),
                ("sendInitialEvents", "true"),
            ]),
            false,
        )
        .unwrap_err();
        assert_eq!(e.details.unwrap().causes.len(), 2);
        assert!(validate(&params(&[("sendInitialEvents", "true")]), true).is_err());
        assert!(
            validate(
                &params(&[
                    ("sendInitialEvents", "true"),
                    ("resourceVersionMatch", "NotOlderThan")
                ]),
                true
            )
            .is_ok()
        );
        assert_eq!(
            read(&params(&[
                ("resourceVersion", "5"),
                ("resourceVersionMatch", "Exact")
            ]))
            .unwrap(),
            Read::Exact(5)
        );
        assert_eq!(
            read(&params(&[("resourceVersion", "0")])).unwrap(),
            Read::Current
        );
    }
}
