//! The pod spec and pod template (kubernetes/kubernetes `pkg/apis/core/validation`:
//! `ValidatePodTemplateSpec`, `ValidatePodSpec`, `validateContainers`,
//! `validateInitContainers`, `validateContainerCommon`, `validateContainerPorts`,
//! `ValidateEnv`, `ValidateEnvFrom`, `ValidateVolumes` (sources in `volumes`),
//! `ValidateVolumeMounts`,
//! probes and lifecycle handlers, `ValidateTolerations`, `validatePodDNSConfig`).

use std::cmp::Ordering;
use std::collections::BTreeSet;

use serde_json::Value as Json;

use super::errors::{Errors, config_key, env_var_name, inclusive_range, port_name, port_num};
use super::read;
use crate::kubernetes::crd::field_error::FieldPath;
use crate::kubernetes::named_formats::messages;
use crate::kubernetes::quantity::{Quantity, from_go_json};

/// The most seconds `activeDeadlineSeconds` may be (`math.MaxInt32`).
const MAX_INT32: i64 = i32::MAX as i64;

/// `ValidatePodTemplateSpec`: the template's labels (at `<path>.labels`, as upstream names
/// them), annotations and pod spec; no ephemeral containers.
pub(super) fn template(e: &mut Errors, template: &Json, path: &FieldPath) {
    let meta = read::field(template, "metadata").unwrap_or(&Json::Null);
    e.labels(&path.child("labels"), &read::strings(meta, "labels"));
    e.annotations(
        &path.child("annotations"),
        &read::strings(meta, "annotations"),
    );
    let spec = read::field(template, "spec").unwrap_or(&Json::Null);
    pod_spec(e, spec, &path.child("spec"));
    if !read::list(spec, "ephemeralContainers").is_empty() {
        e.forbidden(
            &path.child("spec").child("ephemeralContainers"),
            "ephemeral containers not allowed in pod template",
        );
    }
}

/// The restart policy after defaulting (`Always` when unset).
pub(super) fn restart_policy(spec: &Json) -> &str {
    match read::text(spec, "restartPolicy") {
        "" => "Always",
        p => p,
    }
}

/// `ValidatePodSpec`, in its order.
pub(super) fn pod_spec(e: &mut Errors, spec: &Json, path: &FieldPath) {
    let volumes = volumes(e, spec, &path.child("volumes"));
    let containers = read::list(spec, "containers");
    // (`hostUsers` defaults to true: the host's user namespace.)
    let host_users = spec.get("hostUsers").and_then(Json::as_bool) != Some(false);
    let shared = Shared {
        volumes: &volumes,
        host_users,
    };
    regular_containers(e, containers, &shared, &path.child("containers"));
    init_containers(e, spec, containers, &shared, &path.child("initContainers"));
    host_network(e, spec, path);
    match restart_policy(spec) {
        "Always" | "OnFailure" | "Never" => {}
        other => e.not_supported(
            &path.child("restartPolicy"),
            other,
            &["Always", "OnFailure", "Never"],
        ),
    }
    let dns_policy = match read::text(spec, "dnsPolicy") {
        "" => "ClusterFirst",
        p => p,
    };
    match dns_policy {
        "ClusterFirstWithHostNet" | "ClusterFirst" | "Default" | "None" => {}
        other => e.not_supported(
            &path.child("dnsPolicy"),
            other,
            &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"],
        ),
    }
    e.labels(
        &path.child("nodeSelector"),
        &read::strings(spec, "nodeSelector"),
    );
    if let Some(affinity) = read::field(spec, "affinity") {
        super::affinity::affinity(e, affinity, &path.child("affinity"));
    }
    dns_config(e, spec, dns_policy, &path.child("dnsConfig"));
    topology_spread(
        e,
        read::list(spec, "topologySpreadConstraints"),
        &path.child("topologySpreadConstraints"),
    );
    for field in ["serviceAccountName", "nodeName"] {
        let value = read::text(spec, field);
        if !value.is_empty() {
            e.dns1123_subdomain(&path.child(field), value);
        }
    }
    if let Some(n) = read::int(spec, "activeDeadlineSeconds")
        && !(1..=MAX_INT32).contains(&n)
    {
        e.invalid_int(
            &path.child("activeDeadlineSeconds"),
            n,
            &inclusive_range(1, MAX_INT32),
        );
    }
    for field in ["hostname", "subdomain"] {
        let value = read::text(spec, field);
        if !value.is_empty() {
            e.dns1123_label(&path.child(field), value);
        }
    }
    tolerations(
        e,
        read::list(spec, "tolerations"),
        &path.child("tolerations"),
    );
    let priority_class = read::text(spec, "priorityClassName");
    if !priority_class.is_empty() {
        e.dns1123_subdomain(&path.child("priorityClassName"), priority_class);
    }
}

/// `ValidateVolumes`: each volume's source ([`super::volume_validation::source`]), then its name (a
/// DNS-1123 label, given once); the names of the valid ones (what mounts may refer to).
fn volumes(e: &mut Errors, spec: &Json, path: &FieldPath) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (i, volume) in read::list(spec, "volumes").iter().enumerate() {
        let at = path.index(i).child("name");
        let name = read::text(volume, "name");
        let mut found = Errors::default();
        super::volume_validation::source(&mut found, volume, &path.index(i));
        if name.is_empty() {
            found.required(&at, "");
        } else {
            found.dns1123_label(&at, name);
        }
        if names.contains(name) {
            found.duplicate(&at, name);
        }
        let found = found.into_vec();
        if found.is_empty() {
            names.insert(name.to_string());
        } else {
            e.extend(found);
        }
    }
    names
}

/// `validateContainers`: at least one; each valid and named once; probes and handlers;
/// no `restartPolicy`; host ports not shared.
fn regular_containers(e: &mut Errors, containers: &[Json], shared: &Shared, path: &FieldPath) {
    if containers.is_empty() {
        e.required(path, "");
        return;
    }
    let mut names = BTreeSet::new();
    for (i, c) in containers.iter().enumerate() {
        let at = path.index(i);
        container_common(e, c, shared, &at);
        let name = read::text(c, "name");
        if !names.insert(name) {
            e.duplicate(&at.child("name"), name);
        }
        if let Some(lifecycle) = read::field(c, "lifecycle") {
            self::lifecycle(e, lifecycle, &at.child("lifecycle"));
        }
        probes(e, c, &at);
        if read::field(c, "restartPolicy").is_some() {
            e.forbidden(
                &at.child("restartPolicy"),
                "may not be set for non-init containers",
            );
        }
    }
    host_port_conflicts(e, containers.iter().enumerate(), path);
}

/// `validateInitContainers`: names unique across regular and init containers; only
/// `restartPolicy: Always` (sidecars) may have probes and lifecycle handlers.
fn init_containers(
    e: &mut Errors,
    spec: &Json,
    regular: &[Json],
    shared: &Shared,
    path: &FieldPath,
) {
    let mut names: BTreeSet<&str> = regular.iter().map(|c| read::text(c, "name")).collect();
    for (i, c) in read::list(spec, "initContainers").iter().enumerate() {
        let at = path.index(i);
        container_common(e, c, shared, &at);
        let restart = read::text(c, "restartPolicy");
        if read::field(c, "restartPolicy").is_some() && restart != "Always" {
            e.not_supported(&at.child("restartPolicy"), restart, &["Always"]);
        }
        let name = read::text(c, "name");
        if names.contains(name) {
            e.duplicate(&at.child("name"), name);
        } else if !name.is_empty() {
            names.insert(name);
        }
        // Upstream checks each init container alone, as a list of one: its paths say [0].
        host_port_conflicts(e, std::iter::once((0, c)), path);
        if restart == "Always" {
            if let Some(lifecycle) = read::field(c, "lifecycle") {
                self::lifecycle(e, lifecycle, &at.child("lifecycle"));
            }
            probes(e, c, &at);
        } else {
            for field in [
                "lifecycle",
                "livenessProbe",
                "readinessProbe",
                "startupProbe",
            ] {
                if read::field(c, field).is_some() {
                    e.forbidden(
                        &at.child(field),
                        "may not be set for init containers without restartPolicy=Always",
                    );
                }
            }
        }
    }
}

/// What the pod spec gives every container's validation: the names of the mountable
/// volumes, whether the pod uses the host's user namespace.
struct Shared<'a> {
    volumes: &'a BTreeSet<String>,
    host_users: bool,
}

/// `validateContainerCommon`: name, image, termination message policy, ports, env, envFrom,
/// volume mounts, image pull policy, resources, security context.
fn container_common(e: &mut Errors, c: &Json, shared: &Shared, path: &FieldPath) {
    let name = read::text(c, "name");
    if name.is_empty() {
        e.required(&path.child("name"), "");
    } else {
        e.dns1123_label(&path.child("name"), name);
    }
    if read::text(c, "image").is_empty() {
        e.required(&path.child("image"), "");
    }
    match read::text(c, "terminationMessagePolicy") {
        "" | "File" | "FallbackToLogsOnError" => {}
        other => e.not_supported(
            &path.child("terminationMessagePolicy"),
            other,
            &["File", "FallbackToLogsOnError"],
        ),
    }
    ports(e, read::list(c, "ports"), &path.child("ports"));
    env(e, read::list(c, "env"), &path.child("env"));
    env_from(e, read::list(c, "envFrom"), &path.child("envFrom"));
    volume_mounts(
        e,
        read::list(c, "volumeMounts"),
        shared.volumes,
        &path.child("volumeMounts"),
    );
    match read::text(c, "imagePullPolicy") {
        "" | "Always" | "IfNotPresent" | "Never" => {}
        other => e.not_supported(
            &path.child("imagePullPolicy"),
            other,
            &["Always", "IfNotPresent", "Never"],
        ),
    }
    if let Some(r) = read::field(c, "resources") {
        resources(e, r, &path.child("resources"));
    }
    if let Some(sc) = read::field(c, "securityContext") {
        security_context(e, sc, shared.host_users, &path.child("securityContext"));
    }
}

/// `ValidateSecurityContext` as far as IDs and `/proc` mounts go: user and group IDs in
/// 0–2147483647 (`IsValidUserID`, `IsValidGroupID`), a known `procMount`, `Unmasked` only
/// outside the host's user namespace. (Whether privileged containers are allowed is the
/// cluster's policy; seccomp, AppArmor and Windows options are not checked here.)
fn security_context(e: &mut Errors, sc: &Json, host_users: bool, path: &FieldPath) {
    for field in ["runAsUser", "runAsGroup"] {
        if let Some(id) = read::int(sc, field).filter(|id| !(0..=MAX_INT32).contains(id)) {
            e.invalid_int(&path.child(field), id, &inclusive_range(0, MAX_INT32));
        }
    }
    if let Some(Json::String(mount)) = read::field(sc, "procMount") {
        if mount != "Default" && mount != "Unmasked" {
            e.not_supported(&path.child("procMount"), mount, &["Default", "Unmasked"]);
        }
        if host_users && mount == "Unmasked" {
            e.invalid(
                &path.child("procMount"),
                mount,
                "`hostUsers` must be false to use `Unmasked`",
            );
        }
    }
}

/// `IsOvercommitAllowed`: native resources (no domain, or a `kubernetes.io` one) other than
/// huge pages.
fn overcommit_allowed(name: &str) -> bool {
    let native = match name.split_once('/') {
        None => true,
        Some((domain, _)) => domain == "kubernetes.io" || domain.ends_with(".kubernetes.io"),
    };
    native && !name.starts_with("hugepages-")
}

/// `ValidateContainerResourceRequirements` as far as amounts go: none negative, requests
/// at most the limits (equal to them for resources that cannot be overcommitted, which
/// need a limit). (Resource names and huge-page sizes are not checked here.)
fn resources(e: &mut Errors, r: &Json, path: &FieldPath) {
    let limits = read::object(r, "limits");
    let lim_path = path.child("limits");
    let req_path = path.child("requests");
    let negative = |e: &mut Errors, at: &FieldPath, q: &Quantity| {
        if q.sign() < 0 {
            e.invalid(at, &q.canonical_string(), super::errors::NEGATIVE);
        }
    };
    for (name, v) in limits.into_iter().flatten() {
        if let Ok(q) = from_go_json(v) {
            negative(e, &lim_path.key(name), &q);
        }
    }
    for (name, v) in read::object(r, "requests").into_iter().flatten() {
        let Ok(q) = from_go_json(v) else { continue };
        negative(e, &req_path.key(name), &q);
        match limits
            .and_then(|l| l.get(name))
            .and_then(|v| from_go_json(v).ok())
        {
            Some(limit) => {
                let order = q.compare(&limit);
                if order != Ordering::Equal && !overcommit_allowed(name) {
                    e.invalid(
                        &req_path,
                        &q.canonical_string(),
                        &format!(
                            "must be equal to {name} limit of {}",
                            limit.canonical_string()
                        ),
                    );
                } else if order == Ordering::Greater {
                    e.invalid(
                        &req_path,
                        &q.canonical_string(),
                        &format!(
                            "must be less than or equal to {name} limit of {}",
                            limit.canonical_string()
                        ),
                    );
                }
            }
            None if !overcommit_allowed(name) => {
                e.required(
                    &lim_path,
                    "Limit must be set for non overcommitable resources",
                );
            }
            None => {}
        }
    }
}

/// `validateContainerPorts`.
fn ports(e: &mut Errors, ports: &[Json], path: &FieldPath) {
    let mut names = BTreeSet::new();
    for (i, port) in ports.iter().enumerate() {
        let at = path.index(i);
        let name = read::text(port, "name");
        if !name.is_empty() {
            let msgs = port_name(name);
            if !msgs.is_empty() {
                e.each(&at.child("name"), name, msgs);
            } else if !names.insert(name) {
                e.duplicate(&at.child("name"), name);
            }
        }
        match read::int(port, "containerPort").unwrap_or(0) {
            0 => e.required(&at.child("containerPort"), ""),
            n => {
                if let Some(m) = port_num(n) {
                    e.invalid_int(&at.child("containerPort"), n, &m);
                }
            }
        }
        let host_port = read::int(port, "hostPort").unwrap_or(0);
        if host_port != 0
            && let Some(m) = port_num(host_port)
        {
            e.invalid_int(&at.child("hostPort"), host_port, &m);
        }
        protocol(e, port, &at.child("protocol"));
    }
}

/// A port's protocol after defaulting (`TCP`): one of `supportedPortProtocols` (sorted).
pub(super) fn protocol(e: &mut Errors, port: &Json, path: &FieldPath) {
    match read::text(port, "protocol") {
        "" | "TCP" | "UDP" | "SCTP" => {}
        other => e.not_supported(path, other, &["SCTP", "TCP", "UDP"]),
    }
}

/// `ValidateEnv` (names by the relaxed rule, `valueFrom` sources).
fn env(e: &mut Errors, vars: &[Json], path: &FieldPath) {
    for (i, var) in vars.iter().enumerate() {
        let at = path.index(i);
        let name = read::text(var, "name");
        if name.is_empty() {
            e.required(&at.child("name"), "");
        } else {
            e.each(&at.child("name"), name, env_var_name(name));
        }
        let Some(from) = read::field(var, "valueFrom") else {
            continue;
        };
        let from_path = at.child("valueFrom");
        let mut sources = 0;
        if let Some(field_ref) = read::field(from, "fieldRef") {
            sources += 1;
            // (apiVersion is defaulted to v1.)
            if read::text(field_ref, "fieldPath").is_empty() {
                e.required(&from_path.child("fieldRef").child("fieldPath"), "");
            }
        }
        if let Some(resource_ref) = read::field(from, "resourceFieldRef") {
            sources += 1;
            if read::text(resource_ref, "resource").is_empty() {
                e.required(&from_path.child("resourceFieldRef").child("resource"), "");
            }
        }
        for source in ["configMapKeyRef", "secretKeyRef"] {
            if let Some(selector) = read::field(from, source) {
                sources += 1;
                key_selector(e, selector, &from_path.child(source));
            }
        }
        if sources == 0 {
            e.invalid(
                &from_path,
                "",
                "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
            );
        } else if !read::text(var, "value").is_empty() {
            e.invalid(
                &from_path,
                "",
                "may not be specified when `value` is not empty",
            );
        } else if sources > 1 {
            e.invalid(
                &from_path,
                "",
                "may not have more than one field specified at a time",
            );
        }
    }
}

/// `validateConfigMapKeySelector` / `validateSecretKeySelector`.
fn key_selector(e: &mut Errors, selector: &Json, path: &FieldPath) {
    let name = read::text(selector, "name");
    e.dns1123_subdomain(&path.child("name"), name);
    let key = read::text(selector, "key");
    if key.is_empty() {
        e.required(&path.child("key"), "");
    } else {
        e.each(&path.child("key"), key, config_key(key));
    }
}

/// `ValidateEnvFrom`.
fn env_from(e: &mut Errors, sources: &[Json], path: &FieldPath) {
    for (i, source) in sources.iter().enumerate() {
        let at = path.index(i);
        let prefix = read::text(source, "prefix");
        if !prefix.is_empty() {
            e.each(&at.child("prefix"), prefix, env_var_name(prefix));
        }
        let mut count = 0;
        for field in ["configMapRef", "secretRef"] {
            if let Some(reference) = read::field(source, field) {
                count += 1;
                let name = read::text(reference, "name");
                if name.is_empty() {
                    e.required(&at.child(field).child("name"), "");
                } else {
                    // The names are checked as prefixes (`true`): a trailing dash is allowed.
                    e.each(
                        &at.child(field).child("name"),
                        name,
                        messages("dns1123SubdomainPrefix", name),
                    );
                }
            }
        }
        if count == 0 {
            e.invalid(
                path,
                "",
                "must specify one of: `configMapRef` or `secretRef`",
            );
        } else if count > 1 {
            e.invalid(
                path,
                "",
                "may not have more than one field specified at a time",
            );
        }
    }
}

/// `ValidateVolumeMounts` (name and path; sub-paths and propagation are not checked here).
fn volume_mounts(e: &mut Errors, mounts: &[Json], volumes: &BTreeSet<String>, path: &FieldPath) {
    let mut points = BTreeSet::new();
    for (i, mount) in mounts.iter().enumerate() {
        let at = path.index(i);
        let name = read::text(mount, "name");
        if name.is_empty() {
            e.required(&at.child("name"), "");
        }
        if !volumes.contains(name) {
            e.not_found(&at.child("name"), name);
        }
        let mount_path = read::text(mount, "mountPath");
        if mount_path.is_empty() {
            e.required(&at.child("mountPath"), "");
        }
        if !points.insert(mount_path) {
            e.invalid(&at.child("mountPath"), mount_path, "must be unique");
        }
    }
}

/// The liveness, readiness and startup probes of a container.
fn probes(e: &mut Errors, c: &Json, path: &FieldPath) {
    for (field, success_must_be_one) in [
        ("livenessProbe", true),
        ("readinessProbe", false),
        ("startupProbe", true),
    ] {
        let Some(probe) = read::field(c, field) else {
            continue;
        };
        let at = path.child(field);
        handler(e, probe, &at, &["exec", "httpGet", "tcpSocket", "grpc"]);
        for number in [
            "initialDelaySeconds",
            "timeoutSeconds",
            "periodSeconds",
            "successThreshold",
            "failureThreshold",
        ] {
            e.nonnegative(&at.child(number), read::int(probe, number));
        }
        if let Some(n) = read::int(probe, "terminationGracePeriodSeconds") {
            if n <= 0 {
                e.invalid_int(
                    &at.child("terminationGracePeriodSeconds"),
                    n,
                    "must be greater than 0",
                );
            }
            if !success_must_be_one {
                e.invalid_int(
                    &at.child("terminationGracePeriodSeconds"),
                    n,
                    "must not be set for readinessProbes",
                );
            }
        }
        // (successThreshold defaults to 1.)
        if success_must_be_one
            && let Some(n) = read::int(probe, "successThreshold").filter(|n| *n != 0 && *n != 1)
        {
            e.invalid_int(&at.child("successThreshold"), n, "must be 1");
        }
    }
}

/// `validateLifecycle`: `postStart` and `preStop` handlers.
fn lifecycle(e: &mut Errors, lifecycle: &Json, path: &FieldPath) {
    for field in ["postStart", "preStop"] {
        if let Some(h) = read::field(lifecycle, field) {
            handler(
                e,
                h,
                &path.child(field),
                &["exec", "httpGet", "tcpSocket", "sleep"],
            );
        }
    }
}

/// `validateHandler`: exactly one handler type among `kinds` (in upstream's order).
fn handler(e: &mut Errors, h: &Json, path: &FieldPath, kinds: &[&str]) {
    let mut count = 0;
    for kind in kinds {
        let Some(action) = read::field(h, kind) else {
            continue;
        };
        let at = path.child(kind);
        if count > 0 {
            e.forbidden(&at, "may not specify more than 1 handler type");
            continue;
        }
        count += 1;
        match *kind {
            "exec" if read::list(action, "command").is_empty() => {
                e.required(&at.child("command"), "");
            }
            "httpGet" => {
                // (path defaults to "/", scheme to HTTP.)
                e.port_num_or_name(&at.child("port"), action.get("port").unwrap_or(&Json::Null));
                match read::text(action, "scheme") {
                    "" | "HTTP" | "HTTPS" => {}
                    other => e.not_supported(&at.child("scheme"), other, &["HTTP", "HTTPS"]),
                }
                for header in read::list(action, "httpHeaders") {
                    let name = read::text(header, "name");
                    if name.is_empty()
                        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                    {
                        e.invalid(
                            &at.child("httpHeaders"),
                            name,
                            &crate::kubernetes::named_formats::regex_error(
                                "a valid HTTP header must consist of alphanumeric characters or '-'",
                                "[-A-Za-z0-9]+",
                                &["X-Header-Name"],
                            ),
                        );
                    }
                }
            }
            "tcpSocket" => {
                e.port_num_or_name(&at.child("port"), action.get("port").unwrap_or(&Json::Null));
            }
            "grpc" => {
                let port = read::int(action, "port").unwrap_or(0);
                if let Some(m) = port_num(port) {
                    e.invalid_int(&at.child("port"), port, &m);
                }
            }
            _ => {}
        }
    }
    if count == 0 {
        e.required(path, "must specify a handler type");
    }
}

/// `checkHostPortConflicts`: a host port (by protocol, host IP and port) used once.
fn host_port_conflicts<'a>(
    e: &mut Errors,
    containers: impl Iterator<Item = (usize, &'a Json)>,
    path: &FieldPath,
) {
    let mut seen = BTreeSet::new();
    for (i, c) in containers {
        for (j, port) in read::list(c, "ports").iter().enumerate() {
            let host_port = read::int(port, "hostPort").unwrap_or(0);
            if host_port == 0 {
                continue;
            }
            let protocol = match read::text(port, "protocol") {
                "" => "TCP",
                p => p,
            };
            let key = format!("{protocol}/{}/{host_port}", read::text(port, "hostIP"));
            if !seen.insert(key.clone()) {
                e.duplicate(
                    &path.index(i).child("ports").index(j).child("hostPort"),
                    &key,
                );
            }
        }
    }
}

/// `validatePodHostNetworkDeps`: with `hostNetwork`, a host port given must be the container
/// port.
fn host_network(e: &mut Errors, spec: &Json, path: &FieldPath) {
    if spec.get("hostNetwork").and_then(Json::as_bool) != Some(true) {
        return;
    }
    for (i, c) in read::list(spec, "containers").iter().enumerate() {
        for (j, port) in read::list(c, "ports").iter().enumerate() {
            let host = read::int(port, "hostPort").unwrap_or(0);
            let container = read::int(port, "containerPort").unwrap_or(0);
            if host != 0 && host != container {
                e.invalid_int(
                    &path
                        .child("containers")
                        .index(i)
                        .child("ports")
                        .index(j)
                        .child("hostPort"),
                    host,
                    "must match `containerPort` when `hostNetwork` is true",
                );
            }
        }
    }
}

/// `validatePodDNSConfig` (nameserver addresses and search domains are not checked here).
fn dns_config(e: &mut Errors, spec: &Json, dns_policy: &str, path: &FieldPath) {
    let config = read::field(spec, "dnsConfig");
    if dns_policy == "None" {
        match config {
            None => {
                e.required(path, "must provide `dnsConfig` when `dnsPolicy` is None");
                return;
            }
            Some(c) if read::list(c, "nameservers").is_empty() => {
                e.required(
                    &path.child("nameservers"),
                    "must provide at least one DNS nameserver when `dnsPolicy` is None",
                );
                return;
            }
            _ => {}
        }
    }
    let Some(config) = config else { return };
    let nameservers = read::list(config, "nameservers");
    if nameservers.len() > 3 {
        e.invalid_json(
            &path.child("nameservers"),
            &Json::Array(nameservers.to_vec()),
            "must not have more than 3 nameservers",
        );
    }
    for (i, option) in read::list(config, "options").iter().enumerate() {
        if read::text(option, "name").is_empty() {
            e.required(&path.child("options").index(i), "must not be empty");
        }
    }
}

/// `ValidateTolerations`.
pub(super) fn tolerations(e: &mut Errors, tolerations: &[Json], path: &FieldPath) {
    for (i, t) in tolerations.iter().enumerate() {
        let at = path.index(i);
        let key = read::text(t, "key");
        let operator = read::text(t, "operator");
        let effect = read::text(t, "effect");
        let value = read::text(t, "value");
        if !key.is_empty() {
            e.each(&at.child("key"), key, messages("qualifiedName", key));
        }
        if key.is_empty() && operator != "Exists" {
            e.invalid(
                &at.child("operator"),
                operator,
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            );
        }
        if read::field(t, "tolerationSeconds").is_some() && effect != "NoExecute" {
            e.invalid(
                &at.child("effect"),
                effect,
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            );
        }
        match operator {
            "Equal" | "" => {
                let msgs = messages("labelValue", value);
                if !msgs.is_empty() {
                    e.invalid(&at.child("operator"), value, &msgs.join(";"));
                }
            }
            "Exists" => {
                if !value.is_empty() {
                    e.invalid(
                        &at.child("operator"),
                        value,
                        "value must be empty when `operator` is 'Exists'",
                    );
                }
            }
            other => e.not_supported(&at.child("operator"), other, &["Equal", "Exists"]),
        }
        if !effect.is_empty() && !matches!(effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute")
        {
            e.not_supported(
                &at.child("effect"),
                effect,
                &["NoSchedule", "PreferNoSchedule", "NoExecute"],
            );
        }
    }
}

/// `validateTopologySpreadConstraints`: a positive skew, a topology key, a known action, no
/// (topology key, action) pair twice, `minDomains` positive and only with `DoNotSchedule`,
/// known node inclusion policies, the label selector. (`matchLabelKeys` is not checked
/// here.)
fn topology_spread(e: &mut Errors, constraints: &[Json], path: &FieldPath) {
    const NOT_POSITIVE: &str = "must be greater than zero";
    for (i, c) in constraints.iter().enumerate() {
        let at = path.index(i);
        let skew = read::int(c, "maxSkew").unwrap_or(0);
        if skew <= 0 {
            e.invalid_int(&at.child("maxSkew"), skew, NOT_POSITIVE);
        }
        let key = read::text(c, "topologyKey");
        if key.is_empty() {
            e.required(&at.child("topologyKey"), "can not be empty");
        }
        let action = read::text(c, "whenUnsatisfiable");
        if action != "DoNotSchedule" && action != "ScheduleAnyway" {
            e.not_supported(
                &at.child("whenUnsatisfiable"),
                action,
                &["DoNotSchedule", "ScheduleAnyway"],
            );
        }
        let repeated = constraints[i + 1..].iter().any(|other| {
            read::text(other, "topologyKey") == key
                && read::text(other, "whenUnsatisfiable") == action
        });
        if repeated {
            e.duplicate(
                &at.child("{topologyKey, whenUnsatisfiable}"),
                &format!("{{{key}, {action}}}"),
            );
        }
        if let Some(min) = read::int(c, "minDomains") {
            if min <= 0 {
                e.invalid_int(&at.child("minDomains"), min, NOT_POSITIVE);
            }
            if action != "DoNotSchedule" {
                e.invalid_int(
                    &at.child("minDomains"),
                    min,
                    &format!(
                        "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"
                    ),
                );
            }
        }
        for field in ["nodeAffinityPolicy", "nodeTaintsPolicy"] {
            if let Some(Json::String(policy)) = read::field(c, field)
                && policy != "Honor"
                && policy != "Ignore"
            {
                e.not_supported(&at.child(field), policy, &["Honor", "Ignore"]);
            }
        }
        if let Some(selector) = read::field(c, "labelSelector") {
            super::label_selector::LabelSelector::read(selector)
                .validate(e, &at.child("labelSelector"));
        }
    }
}
