//! The core group (kubernetes/kubernetes `pkg/apis/core/validation`): `ValidatePodCreate`,
//! `ValidateService` and `validateServicePort`, `ValidateConfigMap`(`Update`),
//! `ValidateSecret`(`Update`).

use serde_json::Value as Json;

use super::errors::{Errors, config_key};
use super::pod;
use super::read;
use crate::kubernetes::crd::field_error::FieldPath;

/// `core.MaxSecretSize`: the most bytes of a Secret's data.
const MAX_SECRET_SIZE: usize = 1024 * 1024;

/// The text of `field is immutable when `immutable` is set`.
const IMMUTABLE_WHEN_SET: &str = "field is immutable when `immutable` is set";

/// `ValidatePodCreate` after the metadata: the pod spec, images without surrounding
/// whitespace, no ephemeral containers at create.
pub(super) fn pod(e: &mut Errors, object: &Json) {
    let spec = read::field(object, "spec").unwrap_or(&Json::Null);
    let path = FieldPath::new("spec");
    pod::pod_spec(e, spec, &path);
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
    if !read::list(spec, "ephemeralContainers").is_empty() {
        e.forbidden(
            &path.child("ephemeralContainers"),
            "cannot be set on create",
        );
    }
}

/// `ValidateService` after the metadata: ports (required but for headless and ExternalName
/// services), the ExternalName's name, each port, the selector's labels, session affinity
/// and type (both defaulted when unset).
pub(super) fn service(e: &mut Errors, object: &Json) {
    let spec = read::field(object, "spec").unwrap_or(&Json::Null);
    let path = FieldPath::new("spec");
    let kind = match read::text(spec, "type") {
        "" => "ClusterIP",
        t => t,
    };
    let headless = kind == "ClusterIP" && read::text(spec, "clusterIP") == "None";
    let ports = read::list(spec, "ports");
    if ports.is_empty() && !headless && kind != "ExternalName" {
        e.required(&path.child("ports"), "");
    }
    match kind {
        "LoadBalancer" | "NodePort" if read::text(spec, "clusterIP") == "None" => {
            e.invalid(
                &path.child("clusterIPs").index(0),
                "None",
                &format!("may not be set to 'None' for {kind} services"),
            );
        }
        "ExternalName" => {
            // (The strategy sets clusterIPs from clusterIP.)
            if !read::text(spec, "clusterIP").is_empty()
                || !read::list(spec, "clusterIPs").is_empty()
            {
                e.forbidden(
                    &path.child("clusterIPs"),
                    "may not be set for ExternalName services",
                );
            }
            for field in ["ipFamilies", "ipFamilyPolicy"] {
                let set = match read::field(spec, field) {
                    Some(Json::Array(a)) => !a.is_empty(),
                    Some(_) => true,
                    None => false,
                };
                if set {
                    e.forbidden(
                        &path.child(field),
                        "may not be set for ExternalName services",
                    );
                }
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
        pod::protocol(e, port, &at.child("protocol"));
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
    match read::text(spec, "sessionAffinity") {
        "" | "None" | "ClientIP" => {}
        other => e.not_supported(&path.child("sessionAffinity"), other, &["ClientIP", "None"]),
    }
    match kind {
        "ClusterIP" | "ExternalName" | "LoadBalancer" | "NodePort" => {}
        other => e.not_supported(
            &path.child("type"),
            other,
            &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"],
        ),
    }
}

/// Whether `immutable: true` is set.
fn immutable(object: &Json) -> bool {
    object.get("immutable").and_then(Json::as_bool) == Some(true)
}

/// `ValidateConfigMap`: keys of `data` and `binaryData` config keys, none in both; on
/// update (`ValidateConfigMapUpdate`) nothing changes once `immutable` is set.
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
}

/// The bytes a base64 text decodes to (the text is valid: decoding checked it).
fn decoded_len(text: &str) -> usize {
    let text = text.trim_end_matches('=');
    text.len() * 3 / 4
}

/// `ValidateSecret` after the metadata (`stringData` merged into `data`, as decoding does):
/// keys, the total size, the keys each type requires; on update (`ValidateSecretUpdate`)
/// the type is immutable, and nothing changes once `immutable` is set.
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
            let string_data = read::object(object, "stringData").is_some_and(|m| !m.is_empty());
            if read::object(object, "data") != read::object(old, "data") || string_data {
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
        e.push(crate::kubernetes::crd::FieldError::too_long(
            path.clone(),
            MAX_SECRET_SIZE,
        ));
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
