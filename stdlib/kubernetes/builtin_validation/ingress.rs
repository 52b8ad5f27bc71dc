//! Ingresses (kubernetes/kubernetes `pkg/apis/networking/validation/validation.go`):
//! `ValidateIngressSpec` — the default backend or rules, each rule's host and HTTP paths
//! (`validateHTTPIngressPath`: path types and path texts), backends
//! (`validateIngressBackend`: a Service by name and port, or a typed resource), TLS hosts
//! and secret names, the class name — and on create the `kubernetes.io/ingress.class`
//! annotation agreeing with `ingressClassName`; on update the leniencies upstream keeps for
//! stored objects (`allowInvalidSecretName`, `allowInvalidWildcardHostRule`,
//! `allowRelaxedServiceNameValidation`, with the `RelaxedServiceNameValidation` gate off).

use serde_json::Value as Json;

use super::errors::{Errors, port_name, port_num};
use super::read;
use crate::kubernetes::crd::field_error::FieldPath;
use crate::kubernetes::named_formats::{messages, wildcard_dns1123_subdomain};
use crate::kubernetes::object_meta::path_segment_name;
use crate::kubernetes::sloppy_ip;

const CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";

/// What an update lets stand (`IngressValidationOptions`).
#[derive(Default)]
struct Options {
    /// `AllowInvalidSecretName`: a TLS secret name of the old object was invalid.
    invalid_secret_name: bool,
    /// `AllowInvalidWildcardHostRule`: a wildcard-host rule of the old object was invalid.
    invalid_wildcard_host_rule: bool,
    /// `AllowRelaxedServiceNameValidation`: the old object names a Service that is a DNS
    /// label but not a DNS-1035 label.
    relaxed_service_name: bool,
}

impl Options {
    fn of(old: Option<&Json>) -> Options {
        let Some(old) = old else {
            return Options::default();
        };
        let spec = read::field(old, "spec").unwrap_or(&Json::Null);
        let invalid_secret_name = read::list(spec, "tls").iter().any(|tls| {
            let name = read::text(tls, "secretName");
            !name.is_empty() && !messages("dns1123Subdomain", name).is_empty()
        });
        let invalid_wildcard_host_rule = read::list(spec, "rules").iter().any(|rule| {
            let mut check = Errors::default();
            rule_value(&mut check, rule, &FieldPath::new(""), &Options::default());
            read::text(rule, "host").contains('*') && !check.into_vec().is_empty()
        });
        let relaxed = |backend: &Json| {
            let name = read::field(backend, "service").map_or("", |s| read::text(s, "name"));
            messages("dns1123Label", name).is_empty() && !messages("dns1035Label", name).is_empty()
        };
        let default_backend = read::field(spec, "defaultBackend").is_some_and(relaxed);
        let path_backends = read::list(spec, "rules").iter().any(|rule| {
            let http = read::field(rule, "http").unwrap_or(&Json::Null);
            read::list(http, "paths")
                .iter()
                .any(|p| read::field(p, "backend").is_some_and(relaxed))
        });
        Options {
            invalid_secret_name,
            invalid_wildcard_host_rule,
            relaxed_service_name: default_backend || path_backends,
        }
    }
}

/// `ValidateIngressCreate` (after the metadata), or on update (`old` given)
/// `ValidateIngressUpdate`'s spec rules.
pub(super) fn ingress(e: &mut Errors, object: &Json, old: Option<&Json>) {
    let options = Options::of(old);
    let spec = read::field(object, "spec").unwrap_or(&Json::Null);
    let path = FieldPath::new("spec");
    let rules = read::list(spec, "rules");
    let default_backend = read::field(spec, "defaultBackend");
    if rules.is_empty() && default_backend.is_none() {
        let value = read::field(spec, "rules").cloned().unwrap_or(Json::Null);
        e.invalid_json(
            &path,
            &value,
            "either `defaultBackend` or `rules` must be specified",
        );
    }
    if let Some(backend) = default_backend {
        ingress_backend(e, backend, &path.child("defaultBackend"), &options);
    }
    for (i, rule) in rules.iter().enumerate() {
        let at = path.child("rules").index(i);
        let host = read::text(rule, "host");
        let mut wildcard = false;
        if !host.is_empty() {
            if sloppy_ip::parse_ip(host).is_some() {
                e.invalid(
                    &at.child("host"),
                    host,
                    "must be a DNS name, not an IP address",
                );
            }
            if host.contains('*') {
                e.each(&at.child("host"), host, wildcard_dns1123_subdomain(host));
                wildcard = true;
            } else {
                e.dns1123_subdomain(&at.child("host"), host);
            }
        }
        if !wildcard || !options.invalid_wildcard_host_rule {
            rule_value(e, rule, &at, &options);
        }
    }
    for (i, tls) in read::list(spec, "tls").iter().enumerate() {
        let at = path.child("tls").index(i);
        for (j, host) in read::list(tls, "hosts").iter().enumerate() {
            let host = host.as_str().unwrap_or_default();
            let host_at = at.child("hosts").index(j);
            if host.contains('*') {
                e.each(&host_at, host, wildcard_dns1123_subdomain(host));
            } else {
                e.dns1123_subdomain(&host_at, host);
            }
        }
        let secret = read::text(tls, "secretName");
        if !options.invalid_secret_name && !secret.is_empty() {
            e.dns1123_subdomain(&at.child("secretName"), secret);
        }
    }
    if let Some(class) = read::field(spec, "ingressClassName").and_then(Json::as_str) {
        e.dns1123_subdomain(&path.child("ingressClassName"), class);
    }
    if old.is_none() {
        let annotation = read::field(object, "metadata")
            .and_then(|m| read::field(m, "annotations"))
            .and_then(|a| read::field(a, CLASS_ANNOTATION))
            .and_then(Json::as_str);
        let class = read::field(spec, "ingressClassName").and_then(Json::as_str);
        if let (Some(annotation), Some(class)) = (annotation, class)
            && annotation != class
        {
            e.invalid(
                &FieldPath::new("annotations").child(CLASS_ANNOTATION),
                annotation,
                "must match `ingressClassName` when both are specified",
            );
        }
    }
}

/// `validateIngressRuleValue`: the HTTP paths, at least one.
fn rule_value(e: &mut Errors, rule: &Json, path: &FieldPath, options: &Options) {
    let Some(http) = read::field(rule, "http") else {
        return;
    };
    let at = path.child("http").child("paths");
    let paths = read::list(http, "paths");
    if paths.is_empty() {
        e.required(&at, "");
    }
    for (i, p) in paths.iter().enumerate() {
        http_path(e, p, &at.index(i), options);
    }
}

/// `validateHTTPIngressPath`.
fn http_path(e: &mut Errors, p: &Json, path: &FieldPath, options: &Options) {
    let Some(path_type) = read::field(p, "pathType").and_then(Json::as_str) else {
        e.required(&path.child("pathType"), "pathType must be specified");
        return;
    };
    let text = read::text(p, "path");
    let at = path.child("path");
    match path_type {
        "Exact" | "Prefix" => {
            if !text.starts_with('/') {
                e.invalid(&at, text, "must be an absolute path");
            }
            for bad in ["//", "/./", "/../", "%2f", "%2F"] {
                if text.contains(bad) {
                    e.invalid(&at, text, &format!("must not contain '{bad}'"));
                }
            }
            for bad in ["/..", "/."] {
                if text.ends_with(bad) {
                    e.invalid(&at, text, &format!("cannot end with '{bad}'"));
                }
            }
        }
        "ImplementationSpecific" => {
            if !text.is_empty() && !text.starts_with('/') {
                e.invalid(&at, text, "must be an absolute path");
            }
        }
        other => e.not_supported(
            &path.child("pathType"),
            other,
            &["Exact", "ImplementationSpecific", "Prefix"],
        ),
    }
    let backend = read::field(p, "backend").unwrap_or(&Json::Null);
    ingress_backend(e, backend, &path.child("backend"), options);
}

/// `validateIngressBackend`: a Service (name and one of port name or number) or a typed
/// local object reference, not both.
fn ingress_backend(e: &mut Errors, backend: &Json, path: &FieldPath, options: &Options) {
    let resource = read::field(backend, "resource");
    let service = read::field(backend, "service");
    match (resource, service) {
        (Some(_), Some(_)) => {
            e.invalid(path, "", "cannot set both resource and service backends");
        }
        (Some(resource), None) => typed_reference(e, resource, &path.child("resource")),
        (None, Some(service)) => {
            let at = path.child("service");
            let name = read::text(service, "name");
            if name.is_empty() {
                e.required(&at.child("name"), "");
            } else {
                let rule = if options.relaxed_service_name {
                    "dns1123Label"
                } else {
                    "dns1035Label"
                };
                e.each(&at.child("name"), name, messages(rule, name));
            }
            let port = read::field(service, "port").unwrap_or(&Json::Null);
            let port_at = at.child("port");
            let name = read::text(port, "name");
            let number = read::int(port, "number").unwrap_or_default();
            match (name.is_empty(), number == 0) {
                (false, false) => e.invalid(path, "", "cannot set both port name & port number"),
                (false, true) => e.each(&port_at.child("name"), name, port_name(name)),
                (true, false) => {
                    if let Some(m) = port_num(number) {
                        e.invalid_int(&port_at.child("number"), number, &m);
                    }
                }
                (true, true) => e.required(path, "port name or number is required"),
            }
        }
        (None, None) => e.invalid(path, "", "resource or service backend is required"),
    }
}

/// `validateIngressTypedLocalObjectReference`.
fn typed_reference(e: &mut Errors, reference: &Json, path: &FieldPath) {
    if let Some(group) = read::field(reference, "apiGroup").and_then(Json::as_str) {
        e.dns1123_subdomain(&path.child("apiGroup"), group);
    }
    for field in ["kind", "name"] {
        let value = read::text(reference, field);
        if value.is_empty() {
            e.required(&path.child(field), "");
        } else {
            e.each(&path.child(field), value, path_segment_name(value));
        }
    }
}
