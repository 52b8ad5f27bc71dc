//! The core group (kubernetes/kubernetes `pkg/apis/core/validation`): `ValidatePodCreate`,
//! `ValidateService`(`Update`) and `validateServicePort` (a Service's addresses:
//! [`super::service_ips`]), `ValidateConfigMap`(`Update`), `ValidateSecret`(`Update`).

use serde_json::Value as Json;

use super::errors::{Errors, config_key, go_struct};
use super::pod_spec_validation;
use super::read;
use super::service_ips::Prepared;
use crate::kubernetes::crd::FieldError;
use crate::kubernetes::crd::field_error::{FieldPath, go_json_value};

/// `core.MaxSecretSize`: the most bytes of a Secret's data.
const MAX_SECRET_SIZE: usize = 1024 * 1024;

/// The text of `field is immutable when `immutable` is set`.
const IMMUTABLE_WHEN_SET: &str = "field is immutable when `immutable` is set";

/// `ValidatePodCreate` after the metadata (`old` is `None`): the pod spec, images without
/// surrounding whitespace, no ephemeral containers at create; on update `ValidatePodUpdate`
/// (the same, then what an update may change: [`super::pod_update`]).
pub(super) fn pod(e: &mut Errors, object: &Json, old: Option<&Json>) {
    let spec = read::field(object, "spec").unwrap_or(&Json::Null);
    let path = FieldPath::new("spec");
    pod_spec_validation::pod_spec(e, spec, &path);
    for list in ["containers", "initContainers"] {
        for (i, c) in read::list(spec, list).iter().enumerate() {
            let image = read::text(c, "image");
            if image.len() != image.trim().len() {
                e.invalid(
                    &path.child(list).index(i).child("image"),
                    image,
                    "must not have leading or trailing whitespace",
                );
            }
        }
    }
    match old {
        // ValidatePodCreate: ephemeral containers come through their subresource only.
        None if !read::list(spec, "ephemeralContainers").is_empty() => {
            e.forbidden(
                &path.child("ephemeralContainers"),
                "cannot be set on create",
            );
        }
        None => {}
        Some(old) => super::pod_update::validate(e, object, old),
    }
}

/// `ValidateService` after the metadata, on update after `ValidateServiceUpdate`'s rules
/// for the cluster IPs and families: ports (required but for headless and ExternalName
/// services), the ExternalName's name, each port, the selector's labels, session affinity,
/// the addresses, the type (session affinity and type defaulted when unset). `addresses`
/// are the Service's as its storage prepared them ([`super::service_ips::prepare`]).
pub(super) fn service(e: &mut Errors, object: &Json, addresses: &Prepared) {
    addresses.update_rules(e);
    let spec = read::field(object, "spec").unwrap_or(&Json::Null);
    let path = FieldPath::new("spec");
    let kind = match read::text(spec, "type") {
        "" => "ClusterIP",
        t => t,
    };
    let ips = addresses.object();
    let headless = ips.headless();
    let ports = read::list(spec, "ports");
    if ports.is_empty() && !headless && kind != "ExternalName" {
        e.required(&path.child("ports"), "");
    }
    match kind {
        "LoadBalancer" | "NodePort" if headless => {
            e.invalid(
                &path.child("clusterIPs").index(0),
                "None",
                &format!("may not be set to 'None' for {kind} services"),
            );
        }
        "ExternalName" => {
            // (The storage set clusterIPs from clusterIP.)
            if !ips.cluster_ips().is_empty() {
                e.forbidden(
                    &path.child("clusterIPs"),
                    "may not be set for ExternalName services",
                );
            }
            if !ips.families().is_empty() {
                e.forbidden(
                    &path.child("ipFamilies"),
                    "may not be set for ExternalName services",
                );
            }
            if ips.has_policy() {
                e.forbidden(
                    &path.child("ipFamilyPolicy"),
                    "may not be set for ExternalName services",
                );
            }
            let name = read::text(spec, "externalName");
            let cname = name.strip_suffix('.').unwrap_or(name);
            if cname.is_empty() {
                e.required(&path.child("externalName"), "");
            } else {
                e.dns1123_subdomain(&path.child("externalName"), cname);
            }
        }
        _ => {}
    }
    let mut names = std::collections::BTreeSet::new();
    for (i, port) in ports.iter().enumerate() {
        let at = path.child("ports").index(i);
        let name = read::text(port, "name");
        if ports.len() > 1 && name.is_empty() {
            e.required(&at.child("name"), "");
        } else if !name.is_empty() {
            e.dns1123_label(&at.child("name"), name);
            if !names.insert(name) {
                e.duplicate(&at.child("name"), name);
            }
        }
        let number = read::int(port, "port").unwrap_or(0);
        if let Some(m) = super::errors::port_num(number) {
            e.invalid_int(&at.child("port"), number, &m);
        }
        pod_spec_validation::protocol(e, port, &at.child("protocol"));
        // (targetPort defaults to the port when unset, 0 or "".)
        let target = match port.get("targetPort") {
            None | Some(Json::Null) => Json::from(number),
            Some(Json::String(s)) if s.is_empty() => Json::from(number),
            Some(t) if t.as_i64() == Some(0) => Json::from(number),
            Some(t) => t.clone(),
        };
        e.port_num_or_name(&at.child("targetPort"), &target);
    }
    if read::field(spec, "selector").is_some() {
        e.labels(&path.child("selector"), &read::strings(spec, "selector"));
    }
    let affinity = match read::text(spec, "sessionAffinity") {
        "" => "None",
        a => a,
    };
    match affinity {
        "None" | "ClientIP" => {}
        other => e.not_supported(&path.child("sessionAffinity"), other, &["ClientIP", "None"]),
    }
    if affinity == "None" && read::field(spec, "sessionAffinityConfig").is_some() {
        e.forbidden(
            &path.child("sessionAffinityConfig"),
            "must not be set when session affinity is None",
        );
    }
    addresses.cluster_and_external_ips(e);
    match kind {
        "ClusterIP" | "ExternalName" | "LoadBalancer" | "NodePort" => {}
        other => e.not_supported(
            &path.child("type"),
            other,
            &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"],
        ),
    }
    service_node_ports(e, spec, kind, &path);
    service_type_fields(e, spec, kind, &path, addresses);
}

/// `ValidateService`'s node ports and ports: no node port on a ClusterIP service, none used
/// twice for one protocol, no (protocol, port) pair twice. (Whether a node port is in the
/// cluster's range is the allocator's check.)
fn service_node_ports(e: &mut Errors, spec: &Json, kind: &str, path: &FieldPath) {
    let ports = read::list(spec, "ports");
    if kind == "ClusterIP" {
        for (i, port) in ports.iter().enumerate() {
            if read::int(port, "nodePort").is_some_and(|n| n != 0) {
                e.forbidden(
                    &path.child("ports").index(i).child("nodePort"),
                    "may not be used when `type` is 'ClusterIP'",
                );
            }
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for (i, port) in ports.iter().enumerate() {
        let Some(node_port) = read::int(port, "nodePort").filter(|n| *n != 0) else {
            continue;
        };
        let protocol = match read::text(port, "protocol") {
            "" => "TCP",
            p => p,
        };
        if !seen.insert((protocol, node_port)) {
            e.push(FieldError::with_rendered_value(
                path.child("ports").index(i).child("nodePort"),
                crate::kubernetes::crd::field_error::ErrorType::Duplicate,
                node_port.to_string(),
                "",
            ));
        }
    }
    // A (protocol, port) pair given twice: `field.Duplicate` of the whole port, with the
    // key upstream builds (`core.ServicePort{Protocol, Port}`, the internal struct with
    // its other fields zero) as its value.
    let mut pairs = std::collections::BTreeSet::new();
    for (i, port) in ports.iter().enumerate() {
        let protocol = match read::text(port, "protocol") {
            "" => "TCP",
            p => p,
        };
        let number = read::int(port, "port").unwrap_or(0);
        if !pairs.insert((protocol, number)) {
            let key = go_struct(&[
                ("Name", "\"\"".to_string()),
                ("Protocol", go_json_value(&Json::from(protocol))),
                ("AppProtocol", "null".to_string()),
                ("Port", number.to_string()),
                ("TargetPort", "0".to_string()),
                ("NodePort", "0".to_string()),
            ]);
            e.push(FieldError::with_rendered_value(
                path.child("ports").index(i),
                crate::kubernetes::crd::field_error::ErrorType::Duplicate,
                key,
                "",
            ));
        }
    }
}

/// `ValidateService`'s fields that only some types may set: load balancer source ranges
/// ([`Prepared::source_ranges`]) and node port allocation (LoadBalancer), the external
/// traffic policy (externally accessible services: LoadBalancer, NodePort, or with external
/// IPs), the health check node port (LoadBalancer with the Local policy), and the internal
/// traffic policy's value.
fn service_type_fields(
    e: &mut Errors,
    spec: &Json,
    kind: &str,
    path: &FieldPath,
    addresses: &Prepared,
) {
    addresses.source_ranges(e);
    if read::field(spec, "allocateLoadBalancerNodePorts").is_some() && kind != "LoadBalancer" {
        e.forbidden(
            &path.child("allocateLoadBalancerNodePorts"),
            "may only be used when `type` is 'LoadBalancer'",
        );
    }
    let accessible = kind == "LoadBalancer"
        || kind == "NodePort"
        || (kind == "ClusterIP" && !read::list(spec, "externalIPs").is_empty());
    let external = read::text(spec, "externalTrafficPolicy");
    if !accessible {
        if !external.is_empty() {
            e.invalid(
                &path.child("externalTrafficPolicy"),
                external,
                "may only be set for externally-accessible services",
            );
        }
    } else if !external.is_empty() && external != "Cluster" && external != "Local" {
        e.not_supported(
            &path.child("externalTrafficPolicy"),
            external,
            &["Cluster", "Local"],
        );
    }
    let needs_health_check = kind == "LoadBalancer" && external == "Local";
    let health = read::int(spec, "healthCheckNodePort").unwrap_or(0);
    if !needs_health_check && health != 0 {
        e.invalid_int(
            &path.child("healthCheckNodePort"),
            health,
            "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        );
    } else if needs_health_check && health != 0 {
        if let Some(m) = super::errors::port_num(health) {
            e.invalid_int(&path.child("healthCheckNodePort"), health, &m);
        }
    }
    match read::text(spec, "internalTrafficPolicy") {
        "" | "Cluster" | "Local" => {}
        other => e.not_supported(
            &path.child("internalTrafficPolicy"),
            other,
            &["Cluster", "Local"],
        ),
    }
}

/// Whether `immutable: true` is set.
fn immutable(object: &Json) -> bool {
    object.get("immutable").and_then(Json::as_bool) == Some(true)
}

/// `ValidateConfigMap` (after the `metadata` errors): keys of `data` and `binaryData` config
/// keys, none in both, at most 1 MiB of values (`core.MaxSecretSize`); on update
/// (`ValidateConfigMapUpdate`) first nothing changed once `immutable` is set.
pub(super) fn config_map(e: &mut Errors, object: &Json, old: Option<&Json>) {
    if let Some(old) = old.filter(|o| immutable(o)) {
        if !immutable(object) {
            e.forbidden(&FieldPath::new("immutable"), IMMUTABLE_WHEN_SET);
        }
        for field in ["data", "binaryData"] {
            if read::object(object, field) != read::object(old, field) {
                e.forbidden(&FieldPath::new(field), IMMUTABLE_WHEN_SET);
            }
        }
    }
    let binary = read::object(object, "binaryData");
    let data = FieldPath::new("data");
    for key in read::object(object, "data")
        .into_iter()
        .flat_map(|m| m.keys())
    {
        e.each(&data.key(key), key, config_key(key));
        if binary.is_some_and(|b| b.contains_key(key)) {
            e.invalid(
                &data.key(key),
                key,
                "duplicate of key present in binaryData",
            );
        }
    }
    let binary_path = FieldPath::new("binaryData");
    for key in binary.into_iter().flat_map(|m| m.keys()) {
        e.each(&binary_path.key(key), key, config_key(key));
    }
    // The values' bytes (binaryData's decoded) together, reported for the whole object at
    // upstream's field.NewPath(""): a non-nil path of one unnamed element, which
    // field.Path.String() prints as its empty subscript `[]`.
    let text_bytes: usize = read::object(object, "data")
        .into_iter()
        .flat_map(|m| m.values())
        .map(|v| v.as_str().map_or(0, str::len))
        .sum();
    let binary_bytes: usize = binary
        .into_iter()
        .flat_map(|m| m.values())
        .map(|v| v.as_str().map_or(0, decoded_len))
        .sum();
    if text_bytes + binary_bytes > MAX_SECRET_SIZE {
        e.push(FieldError::too_long(FieldPath::new("[]"), MAX_SECRET_SIZE));
    }
}

/// A Secret's data as decoding leaves it: `data` decoded from base64, `stringData` over it.
fn secret_bytes(object: &Json) -> std::collections::BTreeMap<&str, Vec<u8>> {
    use base64::Engine;
    let mut bytes = std::collections::BTreeMap::new();
    for (k, v) in read::object(object, "data").into_iter().flatten() {
        let text = v.as_str().unwrap_or_default();
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(text)
            .unwrap_or_else(|_| text.as_bytes().to_vec());
        bytes.insert(k.as_str(), decoded);
    }
    for (k, v) in read::object(object, "stringData").into_iter().flatten() {
        bytes.insert(
            k.as_str(),
            v.as_str().unwrap_or_default().as_bytes().to_vec(),
        );
    }
    bytes
}

/// The bytes a base64 text decodes to (the text is valid: decoding checked it).
fn decoded_len(text: &str) -> usize {
    let text = text.trim_end_matches('=');
    text.len() * 3 / 4
}

/// `ValidateSecret` (`stringData` merged into `data`, as decoding does; after the `metadata`
/// errors): keys, the total size, the keys each type requires; on update
/// (`ValidateSecretUpdate`) first the type is immutable, and nothing changes once
/// `immutable` is set.
pub(super) fn secret(e: &mut Errors, object: &Json, old: Option<&Json>) {
    fn secret_type(o: &Json) -> &str {
        match read::text(o, "type") {
            "" => "Opaque",
            t => t,
        }
    }
    if let Some(old) = old {
        if secret_type(object) != secret_type(old) {
            e.invalid(
                &FieldPath::new("type"),
                secret_type(object),
                "field is immutable",
            );
        }
        if immutable(old) {
            if !immutable(object) {
                e.forbidden(&FieldPath::new("immutable"), IMMUTABLE_WHEN_SET);
            }
            // (Compared as decoding leaves them: stringData merged into data.)
            if secret_bytes(object) != secret_bytes(old) {
                e.forbidden(&FieldPath::new("data"), IMMUTABLE_WHEN_SET);
            }
        }
    }
    // data with stringData over it, by key.
    let mut data: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for (k, v) in read::object(object, "data").into_iter().flatten() {
        data.insert(k, decoded_len(v.as_str().unwrap_or_default()));
    }
    for (k, v) in read::object(object, "stringData").into_iter().flatten() {
        data.insert(k, v.as_str().unwrap_or_default().len());
    }
    let path = FieldPath::new("data");
    for key in data.keys() {
        e.each(&path.key(key), key, config_key(key));
    }
    if data.values().sum::<usize>() > MAX_SECRET_SIZE {
        e.push(FieldError::too_long(path.clone(), MAX_SECRET_SIZE));
    }
    let has = |k: &str| data.contains_key(k);
    match secret_type(object) {
        "kubernetes.io/service-account-token" => {
            let meta = read::field(object, "metadata").unwrap_or(&Json::Null);
            let annotations = read::field(meta, "annotations").unwrap_or(&Json::Null);
            if read::text(annotations, "kubernetes.io/service-account.name").is_empty() {
                e.required(
                    &FieldPath::new("metadata")
                        .child("annotations")
                        .key("kubernetes.io/service-account.name"),
                    "",
                );
            }
        }
        "kubernetes.io/dockercfg" if !has(".dockercfg") => {
            e.required(&path.key(".dockercfg"), "");
        }
        "kubernetes.io/dockerconfigjson" if !has(".dockerconfigjson") => {
            e.required(&path.key(".dockerconfigjson"), "");
        }
        "kubernetes.io/basic-auth" if !has("username") && !has("password") => {
            e.required(&path.key("username"), "");
            e.required(&path.key("password"), "");
        }
        "kubernetes.io/ssh-auth" if data.get("ssh-privatekey").copied().unwrap_or(0) == 0 => {
            e.required(&path.key("ssh-privatekey"), "");
        }
        "kubernetes.io/tls" => {
            for key in ["tls.crt", "tls.key"] {
                if !has(key) {
                    e.required(&path.key(key), "");
                }
            }
        }
        _ => {}
    }
}
