//! `ListOptions` as kube-apiserver validates and reads them: `resourceVersion`,
//! `resourceVersionMatch`, `continue` and `sendInitialEvents` (kubernetes/apimachinery
//! `apis/meta/internalversion/validation`).

use std::collections::HashMap;

use crate::error::{ApiError, FieldError};

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
    let rv = parse_resource_version(param(params, "resourceVersion"))?;
    Ok((rv > 0).then_some(rv))
}

/// Where a list reads from storage, after upstream's storage-level check of the options
/// (k8s.io/apiserver `pkg/storage/interfaces.go` `ValidateListOptions`, which runs before any
/// read, cached or not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListRead {
    /// Read at exactly this revision (a continue token's snapshot, `Exact`, or the legacy
    /// `resourceVersion=N` with a `limit`); `None` reads the current revision.
    pub revision: Option<i64>,
    /// The store must have reached this revision (`NotOlderThan`, or `resourceVersion=N`
    /// without a limit).
    pub not_older_than: Option<i64>,
    /// The continue token's start key, relative to the list prefix.
    pub continue_from: Option<String>,
    /// `resourceVersion=0` without a continue token: any recent state will do, served from
    /// the watch cache without a limit (k8s.io/apiserver `pkg/storage/cacher/cacher.go`,
    /// `shouldDelegateList`: "Serve paginated requests about revision "0" from watch cache").
    pub any_recent: bool,
}

/// Go's `strconv.ParseUint(text, 10, 64)` error text.
fn parse_uint_error(text: &str) -> String {
    let quoted = kcel::library::standard::go_quote(text);
    let syntax = text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit());
    let reason = if syntax {
        "invalid syntax"
    } else {
        "value out of range"
    };
    format!("strconv.ParseUint: parsing {quoted}: {reason}")
}

/// A resourceVersion as upstream's `APIObjectVersioner.ParseResourceVersion` reads it (`""`
/// and `"0"` are 0), or the `BadRequest` it gives.
pub fn parse_resource_version(text: &str) -> Result<i64, ApiError> {
    if text.is_empty() || text == "0" {
        return Ok(0);
    }
    text.parse::<u64>()
        .ok()
        .and_then(|n| i64::try_from(n).ok())
        .ok_or_else(|| {
            ApiError::bad_request(format!(
                "invalid resource version: resourceVersion: Invalid value: {}: {}",
                kcel::library::standard::go_quote(text),
                parse_uint_error(text)
            ))
        })
}

/// Upstream's storage-level `ValidateListOptions` for a (recursive) list with `limit` (0 for
/// none): the continue token (400 `invalid continue token: ...`), a resourceVersion beside it
/// (400), the resourceVersion's syntax (400), and where the list reads.
pub fn list_read(params: &HashMap<String, String>, limit: usize) -> Result<ListRead, ApiError> {
    let rv = param(params, "resourceVersion");
    let token = param(params, "continue");
    if !token.is_empty() {
        let (revision, start) = crate::continue_token::decode(token)
            .map_err(|e| ApiError::bad_request(format!("invalid continue token: {e}")))?;
        if !rv.is_empty() && rv != "0" {
            return Err(ApiError::bad_request(
                "specifying resource version is not allowed when using continue",
            ));
        }
        return Ok(ListRead {
            // A negative revision continues at the latest one.
            revision: (revision > 0).then_some(revision),
            not_older_than: None,
            continue_from: Some(start),
            any_recent: false,
        });
    }
    let parsed = parse_resource_version(rv)?;
    let mut read = ListRead {
        revision: None,
        not_older_than: None,
        continue_from: None,
        any_recent: rv == "0",
    };
    if parsed == 0 {
        return Ok(read);
    }
    match param(params, "resourceVersionMatch") {
        "Exact" => read.revision = Some(parsed),
        // The legacy case: with a limit, a resourceVersion is the snapshot to page.
        "" if limit > 0 => read.revision = Some(parsed),
        _ => read.not_older_than = Some(parsed),
    }
    Ok(read)
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
            resource_version(&params(&[("resourceVersion", "0")])).unwrap(),
            None
        );
        assert_eq!(
            resource_version(&params(&[("resourceVersion", "12")])).unwrap(),
            Some(12)
        );
    }

    /// k8s.io/apiserver `pkg/storage/interfaces.go` `ValidateListOptions`.
    #[test]
    fn upstreams_storage_list_rules() {
        let token = crate::continue_token::encode(7, "b\u{0}");
        let read = list_read(&params(&[("continue", &token)]), 2).unwrap();
        assert_eq!(
            read,
            ListRead {
                revision: Some(7),
                not_older_than: None,
                continue_from: Some("b\u{0}".to_owned()),
                any_recent: false,
            }
        );
        let e = list_read(
            &params(&[("continue", &token), ("resourceVersion", "5")]),
            2,
        )
        .unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                400,
                "specifying resource version is not allowed when using continue"
            )
        );
        assert!(
            list_read(
                &params(&[("continue", &token), ("resourceVersion", "0")]),
                2
            )
            .is_ok()
        );
        let e = list_read(&params(&[("continue", "x!")]), 2).unwrap_err();
        assert_eq!(
            e.message,
            "invalid continue token: continue key is not valid: illegal base64 data at input byte 1"
        );
        let e = list_read(&params(&[("resourceVersion", "abc")]), 0).unwrap_err();
        assert_eq!(
            e.message,
            "invalid resource version: resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax"
        );
        let e = list_read(&params(&[("resourceVersion", "99999999999999999999")]), 0).unwrap_err();
        assert!(e.message.ends_with("value out of range"), "{}", e.message);
        let at = |pairs: &[(&str, &str)], limit| {
            let r = list_read(&params(pairs), limit).unwrap();
            (r.revision, r.not_older_than)
        };
        assert_eq!(at(&[("resourceVersion", "5")], 0), (None, Some(5)));
        assert_eq!(at(&[("resourceVersion", "5")], 10), (Some(5), None));
        assert_eq!(
            at(
                &[
                    ("resourceVersion", "5"),
                    ("resourceVersionMatch", "NotOlderThan")
                ],
                10
            ),
            (None, Some(5))
        );
        assert_eq!(
            at(
                &[("resourceVersion", "5"), ("resourceVersionMatch", "Exact")],
                0
            ),
            (Some(5), None)
        );
        assert_eq!(at(&[("resourceVersion", "0")], 10), (None, None));
        let minus = crate::continue_token::encode(-1, "b");
        assert_eq!(at(&[("continue", &minus)], 1), (None, None));
    }
}
