//! A CRD spec's `conversion` stanza, validated with apiextensions-apiserver's texts
//! (`pkg/apis/apiextensions/validation/validation.go` `validateCustomResourceConversion`,
//! `validateConversionReviewVersions`; k8s.io/apiserver `pkg/util/webhook/validation.go`
//! `ValidateWebhookURL`, `ValidateWebhookService`, `ValidateCABundle`). Paths are upstream's
//! internal ones (`spec.conversion.webhookClientConfig.url`), as kube-apiserver reports them.

use serde_json::Value;

use super::field_error::{ErrorType, FieldError, FieldPath};
use crate::ext::encoders;
use crate::kubernetes::go_url::parse_url;
use crate::kubernetes::named_formats::messages;
use crate::kubernetes::object_meta_update::go_string_slice;

/// The ConversionReview versions a conversion webhook may be asked in, in upstream's order.
pub const ACCEPTED_REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];

fn text<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// A webhook client configuration's `caBundle` (a `[]byte`), decoded as encoding/json
/// decodes one (empty when there is none); the error is the offset Go's decoder names.
pub fn decode_ca_bundle(config: &Value) -> Result<Vec<u8>, usize> {
    match config.get("caBundle").and_then(Value::as_str) {
        Some(b) => encoders::decode_std(b),
        None => Ok(Vec::new()),
    }
}

/// Go's `%#v` of a `[]byte`: `[]byte{0x2d, 0x2d}`.
fn go_bytes(bytes: &[u8]) -> String {
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:#x}")).collect();
    format!("[]byte{{{}}}", hex.join(", "))
}

/// The errors of a CRD spec's `conversion` stanza (`spec` is the CRD's `spec`).
/// `check_ca_bundle` is false when upstream lets an invalid bundle stand (an update of a
/// CRD that is not established yet, or whose stored bundle was already invalid). A
/// `caBundle` that is not base64 never gets here from a request body (decoding refuses it
/// first); it is reported in the decoder's words.
pub fn conversion_errors(spec: &Value, check_ca_bundle: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let Some(conversion) = spec.get("conversion").filter(|c| c.is_object()) else {
        return errors;
    };
    let at = FieldPath::new("spec").child("conversion");
    let strategy = text(conversion, "/strategy");
    match strategy {
        "" => errors.push(FieldError::new(
            at.child("strategy"),
            ErrorType::Required,
            "",
            "",
        )),
        "None" | "Webhook" => {}
        other => errors.push(FieldError::new(
            at.child("strategy"),
            ErrorType::NotSupported,
            other,
            "supported values: \"None\", \"Webhook\"",
        )),
    }
    let config = conversion.pointer("/webhook/clientConfig");
    let versions = strings(conversion.pointer("/webhook/conversionReviewVersions"));
    let config_at = at.child("webhookClientConfig");
    if strategy == "Webhook" {
        match config {
            None => errors.push(FieldError::new(
                config_at,
                ErrorType::Required,
                "",
                "required when strategy is set to Webhook",
            )),
            Some(config) => {
                let url = config.get("url").and_then(Value::as_str);
                let service = config.get("service").filter(|s| !s.is_null());
                match (url, service) {
                    (Some(url), None) => errors.extend(url_errors(config_at.child("url"), url)),
                    (None, Some(service)) => {
                        errors.extend(service_errors(config_at.child("service"), service))
                    }
                    _ => errors.push(FieldError::new(
                        config_at.clone(),
                        ErrorType::Required,
                        "",
                        "exactly one of url or service is required",
                    )),
                }
                if check_ca_bundle {
                    errors.extend(ca_bundle_errors(config_at.child("caBundle"), config));
                }
            }
        }
        errors.extend(review_version_errors(
            at.child("conversionReviewVersions"),
            &versions,
        ));
    } else {
        if config.is_some() {
            errors.push(FieldError::new(
                config_at,
                ErrorType::Forbidden,
                "",
                "should not be set when strategy is not set to Webhook",
            ));
        }
        if !versions.is_empty() {
            errors.push(FieldError::new(
                at.child("conversionReviewVersions"),
                ErrorType::Forbidden,
                "",
                "should not be set when strategy is not set to Webhook",
            ));
        }
    }
    if !matches!(strategy, "None" | "") && spec["preserveUnknownFields"] == true {
        errors.push(FieldError::new(
            at.child("strategy"),
            ErrorType::Invalid,
            strategy,
            "must be None if spec.preserveUnknownFields is true",
        ));
    }
    errors
}

/// Whether an update may keep an invalid `caBundle` (upstream's `allowInvalidCABundle`): the
/// stored CRD is not established, or its own bundle was invalid.
pub fn allow_invalid_ca_bundle(old: &Value, established: bool) -> bool {
    if !established {
        return true;
    }
    let Some(config) = old.pointer("/spec/conversion/webhook/clientConfig") else {
        return false;
    };
    if text(config, "/caBundle").is_empty() {
        return false;
    }
    !ca_bundle_errors(FieldPath::new("caBundle"), config).is_empty()
}

/// `ValidateWebhookURL` (k8s.io/apiserver `pkg/util/webhook/validation.go`) with `forceHttps`,
/// the URL read as Go's `url.Parse` reads it.
fn url_errors(at: FieldPath, url: &str) -> Vec<FieldError> {
    const FORM: &str = "; desired format: https://host[/path]";
    let u = match parse_url(url) {
        Ok(u) => u,
        Err(e) => {
            return vec![FieldError::new(
                at,
                ErrorType::Required,
                "",
                format!("url must be a valid URL: {e}{FORM}"),
            )];
        }
    };
    let mut errors = Vec::new();
    if u.scheme != "https" {
        errors.push(FieldError::new(
            at.clone(),
            ErrorType::Invalid,
            &u.scheme,
            format!("'https' is the only allowed URL scheme{FORM}"),
        ));
    }
    if u.host.is_empty() {
        errors.push(FieldError::new(
            at.clone(),
            ErrorType::Invalid,
            "",
            format!("host must be provided{FORM}"),
        ));
    }
    if let Some(user) = &u.user {
        errors.push(FieldError::new(
            at.clone(),
            ErrorType::Invalid,
            user,
            "user information is not permitted in the URL",
        ));
    }
    if !u.fragment.is_empty() {
        errors.push(FieldError::new(
            at.clone(),
            ErrorType::Invalid,
            &u.fragment,
            "fragments are not permitted in the URL",
        ));
    }
    if !u.raw_query.is_empty() {
        errors.push(FieldError::new(
            at,
            ErrorType::Invalid,
            &u.raw_query,
            "query parameters are not permitted in the URL",
        ));
    }
    errors
}

fn service_errors(at: FieldPath, service: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if text(service, "/name").is_empty() {
        errors.push(FieldError::new(
            at.child("name"),
            ErrorType::Required,
            "",
            "service name is required",
        ));
    }
    if text(service, "/namespace").is_empty() {
        errors.push(FieldError::new(
            at.child("namespace"),
            ErrorType::Required,
            "",
            "service namespace is required",
        ));
    }
    let port = service["port"].as_i64().unwrap_or(443);
    if !(1..=65535).contains(&port) {
        errors.push(FieldError::with_rendered_value(
            at.child("port"),
            ErrorType::Invalid,
            port.to_string(),
            "port is not valid: must be between 1 and 65535, inclusive",
        ));
    }
    let Some(url_path) = service["path"].as_str() else {
        return errors;
    };
    if url_path.is_empty() || url_path == "/" {
        return errors;
    }
    let path_at = at.child("path");
    if url_path == "//" {
        errors.push(FieldError::new(
            path_at,
            ErrorType::Invalid,
            url_path,
            "segment[0] may not be empty",
        ));
        return errors;
    }
    if !url_path.starts_with('/') {
        errors.push(FieldError::new(
            path_at.clone(),
            ErrorType::Invalid,
            url_path,
            "must start with a '/'",
        ));
    }
    let mut steps = url_path.get(1..).unwrap_or("");
    steps = steps.strip_suffix('/').unwrap_or(steps);
    for (i, step) in steps.split('/').enumerate() {
        if step.is_empty() {
            errors.push(FieldError::new(
                path_at.clone(),
                ErrorType::Invalid,
                url_path,
                format!("segment[{i}] may not be empty"),
            ));
            continue;
        }
        for problem in messages("dns1123Subdomain", step) {
            errors.push(FieldError::new(
                path_at.clone(),
                ErrorType::Invalid,
                url_path,
                format!("segment[{i}]: {problem}"),
            ));
        }
    }
    errors
}

/// Why a CA bundle gives no roots, as client-go's `TLSConfigFor` says it (`unable to load
/// root certificates: ...`); `None` when at least one certificate loads (a certificate loads
/// when it parses as a trust anchor, as rustls' root store takes one). Without the feature
/// `x509` (the browser module) no bundle is refused.
fn ca_bundle_problem(bundle: &[u8]) -> Option<String> {
    #[cfg(feature = "x509")]
    {
        use rustls_pki_types::CertificateDer;
        use rustls_pki_types::pem::PemObject;
        let mut loaded = false;
        let mut malformed = false;
        for cert in CertificateDer::pem_slice_iter(bundle) {
            match cert.map(|c| webpki::anchor_from_trusted_cert(&c).is_ok()) {
                Ok(true) => loaded = true,
                Ok(false) | Err(_) => malformed = true,
            }
        }
        if loaded {
            return None;
        }
        let pem = bundle.windows(11).any(|w| w == b"-----BEGIN ");
        let detail = if !pem {
            "unable to parse bytes as PEM block"
        } else if malformed {
            "failed to parse certificate: x509: malformed certificate"
        } else {
            "no valid certificate authority data seen"
        };
        Some(format!("unable to load root certificates: {detail}"))
    }
    #[cfg(not(feature = "x509"))]
    {
        let _ = bundle;
        None
    }
}

fn ca_bundle_errors(at: FieldPath, config: &Value) -> Vec<FieldError> {
    let bundle = match decode_ca_bundle(config) {
        Ok(b) => b,
        Err(e) => {
            return vec![FieldError::new(
                at,
                ErrorType::Invalid,
                text(config, "/caBundle"),
                format!("illegal base64 data at input byte {e}"),
            )];
        }
    };
    if bundle.is_empty() {
        return Vec::new();
    }
    match ca_bundle_problem(&bundle) {
        None => Vec::new(),
        Some(problem) => vec![FieldError::with_rendered_value(
            at,
            ErrorType::Invalid,
            go_bytes(&bundle),
            problem,
        )],
    }
}

fn review_version_errors(at: FieldPath, versions: &[String]) -> Vec<FieldError> {
    if versions.is_empty() {
        return vec![FieldError::new(at, ErrorType::Required, "", "")];
    }
    let mut errors = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let mut accepted = false;
    for (i, v) in versions.iter().enumerate() {
        if seen.contains(&v.as_str()) {
            errors.push(FieldError::new(
                at.index(i),
                ErrorType::Invalid,
                v,
                "duplicate version",
            ));
            continue;
        }
        seen.push(v);
        for problem in messages("dns1035Label", v) {
            errors.push(FieldError::new(at.index(i), ErrorType::Invalid, v, problem));
        }
        accepted |= ACCEPTED_REVIEW_VERSIONS.contains(&v.as_str());
    }
    if !accepted {
        errors.push(FieldError::with_rendered_value(
            at,
            ErrorType::Invalid,
            go_string_slice(versions),
            format!(
                "must include at least one of {}",
                ACCEPTED_REVIEW_VERSIONS.join(", ")
            ),
        ));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(spec: Value) -> Vec<String> {
        conversion_errors(&spec, true)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn webhook(config: Value, versions: Value) -> Value {
        json!({"conversion": {"strategy": "Webhook",
            "webhook": {"clientConfig": config, "conversionReviewVersions": versions}}})
    }

    // Texts from apiextensions-apiserver validation.go validateCustomResourceConversion and
    // k8s.io/apiserver pkg/util/webhook/validation.go.
    #[test]
    fn webhook_stanza_errors_are_upstreams() {
        assert_eq!(
            texts(json!({"conversion": {"strategy": "Webhook"}})),
            [
                "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
                "spec.conversion.conversionReviewVersions: Required value",
            ]
        );
        assert_eq!(
            texts(webhook(
                json!({"url": "http://user@h/p?x=1#f"}),
                json!(["v3", "v3"])
            )),
            [
                "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
                "spec.conversion.webhookClientConfig.url: Invalid value: \"user\": user information is not permitted in the URL",
                "spec.conversion.webhookClientConfig.url: Invalid value: \"f\": fragments are not permitted in the URL",
                "spec.conversion.webhookClientConfig.url: Invalid value: \"x=1\": query parameters are not permitted in the URL",
                "spec.conversion.conversionReviewVersions[1]: Invalid value: \"v3\": duplicate version",
                "spec.conversion.conversionReviewVersions: Invalid value: []string{\"v3\", \"v3\"}: must include at least one of v1, v1beta1",
            ]
        );
        assert_eq!(
            texts(webhook(
                json!({"url": "https://h", "service": {"name": "s", "namespace": "n"}}),
                json!(["v1"])
            )),
            [
                "spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required"
            ]
        );
        assert_eq!(
            texts(webhook(
                json!({"service": {"port": 0, "path": "/a//B"}}),
                json!(["v1"])
            )),
            [
                "spec.conversion.webhookClientConfig.service.name: Required value: service name is required",
                "spec.conversion.webhookClientConfig.service.namespace: Required value: service namespace is required",
                "spec.conversion.webhookClientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive",
                "spec.conversion.webhookClientConfig.service.path: Invalid value: \"/a//B\": segment[1] may not be empty",
                "spec.conversion.webhookClientConfig.service.path: Invalid value: \"/a//B\": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            ]
        );
        assert_eq!(
            texts(json!({"conversion": {"strategy": "None",
                "webhook": {"clientConfig": {"url": "https://h"}, "conversionReviewVersions": ["v1"]}}})),
            [
                "spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook",
                "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook",
            ]
        );
        assert_eq!(
            texts(json!({"conversion": {"strategy": "Other"}})),
            [
                "spec.conversion.strategy: Unsupported value: \"Other\": supported values: \"None\", \"Webhook\""
            ]
        );
    }

    #[cfg(feature = "x509")]
    /// A self-signed certificate (`openssl req -x509 -newkey ec`, valid to 2126): a fact for
    /// the bundle check, trusted by nothing.
    const CERTIFICATE: &str = "\
-----BEGIN CERTIFICATE-----\n\
MIIBhjCCASugAwIBAgIUKNf+HlOe+uCbsV9Seh9lN3/BuAswCgYIKoZIzj0EAwIw\n\
FzEVMBMGA1UEAwwMa2NlbC10ZXN0LWNhMCAXDTI2MTIwNDEwNTQzNloYDzIxMjYx\n\
MTEwMTA1NDM2WjAXMRUwEwYDVQQDDAxrY2VsLXRlc3QtY2EwWTATBgcqhkjOPQIB\n\
BggqhkjOPQMBBwNCAARxbXLC8PJRcI2vWn9DmzdCOST+LqZvxVxowEftZWRRI1hP\n\
X51/yRSbDPCOWLo9jJuZcQ34qQ1wjvUb67r0+uEio1MwUTAdBgNVHQ4EFgQULj3Q\n\
tHgm2BC3qzxBdo5jyj+YujswHwYDVR0jBBgwFoAULj3QtHgm2BC3qzxBdo5jyj+Y\n\
ujswDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNJADBGAiEA4UKOWEbSraJ3\n\
qSicB07Rx9npPew2UpPuMQ3nyDl4Gt4CIQDUbBMU7Wsoy0TYpnMMI9TpVgu/oftD\n\
VsOoc5DJUUqRuQ==\n\
-----END CERTIFICATE-----\n";

    #[cfg(feature = "x509")]
    #[test]
    fn ca_bundles_are_checked_as_client_go_loads_them() {
        let bundle = |b: &[u8]| encoders::encode_std(b);
        let ca = |b: &[u8]| {
            texts(webhook(
                json!({"url": "https://h", "caBundle": bundle(b)}),
                json!(["v1"]),
            ))
        };
        assert_eq!(
            ca(b"no"),
            [
                "spec.conversion.webhookClientConfig.caBundle: Invalid value: []byte{0x6e, 0x6f}: unable to load root certificates: unable to parse bytes as PEM block"
            ]
        );
        assert!(ca(CERTIFICATE.as_bytes()).is_empty());
        // encoding/json's base64 skips line breaks, as in a wrapped bundle.
        let wrapped: Vec<String> = bundle(CERTIFICATE.as_bytes())
            .as_bytes()
            .chunks(64)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect();
        let spec = webhook(
            json!({"url": "https://h", "caBundle": wrapped.join("\n")}),
            json!(["v1"]),
        );
        assert_eq!(texts(spec), Vec::<String>::new());
        assert_eq!(
            ca_bundle_problem(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
                .as_deref(),
            Some(
                "unable to load root certificates: failed to parse certificate: x509: malformed certificate"
            )
        );
    }

    #[test]
    fn a_bundle_that_is_not_base64_is_invalid() {
        assert_eq!(
            texts(webhook(
                json!({"url": "https://h", "caBundle": "%%"}),
                json!(["v1"])
            )),
            [
                "spec.conversion.webhookClientConfig.caBundle: Invalid value: \"%%\": illegal base64 data at input byte 0"
            ]
        );
    }

    #[cfg(feature = "x509")]
    #[test]
    fn an_invalid_bundle_may_stay_where_upstream_lets_it() {
        let old = json!({"spec": webhook(json!({"url": "https://h", "caBundle": "bm8="}), json!(["v1"]))});
        assert!(allow_invalid_ca_bundle(&old, true));
        assert!(allow_invalid_ca_bundle(&json!({}), false));
        let good = json!({"spec": webhook(json!({"url": "https://h"}), json!(["v1"]))});
        assert!(!allow_invalid_ca_bundle(&good, true));
    }

    #[test]
    fn a_url_go_cannot_parse_is_required_with_gos_error() {
        assert_eq!(
            texts(webhook(json!({"url": "https://h:x/"}), json!(["v1"]))),
            [
                "spec.conversion.webhookClientConfig.url: Required value: url must be a valid URL: parse \"https://h:x/\": invalid port \":x\" after host; desired format: https://host[/path]"
            ]
        );
    }
}
