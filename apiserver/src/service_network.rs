//! The cluster IPs and node ports of Services, allocated as kube-apiserver's Service storage
//! allocates them (kubernetes `pkg/registry/core/service/storage/alloc.go` over the
//! `ipallocator` of the ServiceCIDR/IPAddress model, GA since 1.33, and the `portallocator`),
//! on a single-stack IPv4 cluster:
//!
//! - the service range (`--service-cluster-ip-range`, kube-apiserver's default `10.0.0.0/24`)
//!   hands out its addresses but the network and broadcast ones: a requested cluster IP must
//!   lie inside the range (`the provided network does not match the current range`), not be
//!   its first or last address (`provided IP ... is not in the valid range`) and not be taken
//!   (`provided IP is already allocated`); a dynamic one is picked at random from the upper
//!   band of the range first (above `min(max(16, size/16), 256)` addresses), then the lower;
//! - node ports (`--service-node-port-range`, default `30000-32767`) for NodePort and
//!   LoadBalancer Services, and a health check node port for a LoadBalancer with
//!   `externalTrafficPolicy: Local`: requested ones in range and free, others at random (upper
//!   band first, above `min(max(16, size/32), 128)` ports);
//! - `ipFamilies` inferred from the cluster IPs or defaulted (`[IPv4]`; a headless Service
//!   without selector and not single-stack gets `[IPv4, IPv6]` as upstream gives it), and
//!   what the cluster cannot serve refused (IPv6, `RequireDualStack`);
//! - on update, a change from ExternalName gets cluster IPs, one to NodePort or LoadBalancer
//!   node ports.
//!
//! Before that, what the storage does that does not depend on the cluster — `clusterIPs`
//! following `clusterIP`, the policy defaulted, the addresses an update leaves out kept
//! (`patchAllocatedValues`), what a type change leaves behind dropped
//! (`dropTypeDependentFields`) — is the library's
//! ([`kcel_stdlib::kubernetes::builtin::prepare_service`]), the same step its validation of a
//! Service takes.
//!
//! Upstream records each allocation as an IPAddress object or a bit of a RangeAllocation
//! object; here what is taken is read from the stored Services
//! (`routes/service_addresses.rs`), under one lock per server held from the read until the
//! Service is written, so allocations survive restarts and
//! nothing is leaked by a failed write. (Two servers sharing one etcd do not share the lock:
//! a known difference.) The address fields themselves are validated by the library first
//! (`kcel_stdlib::kubernetes::builtin::BuiltinKind::validate_update`): this step adds what
//! depends on the cluster. A dry run allocates nothing: a dynamic cluster IP shows as the range's
//! network address, as upstream's dry-run allocator answers.

use std::collections::HashSet;
use std::net::Ipv4Addr;
use std::ops::RangeInclusive;

use serde_json::{Map, Value, json};
use tokio::sync::{Mutex, MutexGuard};

use crate::error::{ApiError, FieldError};
use crate::object::{self, Object};
use crate::resource::SERVICES;
use crate::storage::KeyValue;

/// Why a range option is refused.
#[derive(Debug, thiserror::Error)]
pub enum RangeError {
    /// Not an IPv4 CIDR this server can allocate from.
    #[error(
        "invalid service cluster IP range {0:?}: an IPv4 CIDR with at least 4 addresses is needed (e.g. 10.0.0.0/24)"
    )]
    Cidr(String),
    /// Not a `low-high` port range.
    #[error("invalid service node port range {0:?}: expected low-high (e.g. 30000-32767)")]
    Ports(String),
}

/// The ranges Services get their addresses from, and the lock their writes take.
#[derive(Debug)]
pub struct ServiceNetwork {
    network: u32,
    prefix: u8,
    node_ports: RangeInclusive<u16>,
    lock: Mutex<()>,
}

impl Default for ServiceNetwork {
    /// kube-apiserver's defaults: `10.0.0.0/24` and node ports `30000-32767`.
    fn default() -> Self {
        ServiceNetwork::new("10.0.0.0/24", "30000-32767").expect("valid defaults")
    }
}

impl ServiceNetwork {
    /// The ranges of `--service-cluster-ip-range` and `--service-node-port-range`.
    pub fn new(cidr: &str, node_ports: &str) -> Result<ServiceNetwork, RangeError> {
        let bad = || RangeError::Cidr(cidr.to_owned());
        let (ip, prefix) = cidr.split_once('/').ok_or_else(bad)?;
        let ip: Ipv4Addr = ip.parse().map_err(|_| bad())?;
        let prefix: u8 = prefix.parse().map_err(|_| bad())?;
        if prefix > 30 {
            return Err(bad());
        }
        let mask = u32::MAX << (32 - prefix);
        let bad_ports = || RangeError::Ports(node_ports.to_owned());
        let (low, high) = node_ports.split_once('-').ok_or_else(bad_ports)?;
        let low: u16 = low.trim().parse().map_err(|_| bad_ports())?;
        let high: u16 = high.trim().parse().map_err(|_| bad_ports())?;
        if low == 0 || high < low {
            return Err(bad_ports());
        }
        Ok(ServiceNetwork {
            network: u32::from(ip) & mask,
            prefix,
            node_ports: low..=high,
            lock: Mutex::new(()),
        })
    }

    /// The range as upstream prints it (`10.0.0.0/24`).
    pub fn cidr(&self) -> String {
        format!("{}/{}", Ipv4Addr::from(self.network), self.prefix)
    }

    /// Taken before the addresses in use are read, held until the Service is written.
    pub async fn lock(&self) -> MutexGuard<'_, ()> {
        self.lock.lock().await
    }

    fn broadcast(&self) -> u32 {
        self.network | (u32::MAX >> self.prefix)
    }

    fn ports_text(&self) -> String {
        format!("{}-{}", self.node_ports.start(), self.node_ports.end())
    }

    /// A requested cluster IP, or why it cannot be had.
    fn request_ip(&self, ip: &str, used: &InUse) -> Result<Ipv4Addr, String> {
        let Ok(addr) = ip.parse::<Ipv4Addr>() else {
            return Err(format!("{} is not configured on this cluster", "IPv6"));
        };
        let n = u32::from(addr);
        let mask = u32::MAX << (32 - self.prefix);
        if n & mask != self.network {
            return Err("the provided network does not match the current range".to_owned());
        }
        if n == self.network || n == self.broadcast() {
            return Err(format!("provided IP {addr} is not in the valid range"));
        }
        if used.ips.contains(&addr) {
            return Err("provided IP is already allocated".to_owned());
        }
        Ok(addr)
    }

    /// A free cluster IP: upper band first, from a random place, then the lower band.
    fn next_ip(&self, used: &InUse) -> Option<Ipv4Addr> {
        let first = self.network + 1;
        let last = self.broadcast() - 1;
        let size = last - first + 1;
        let offset = if size + 2 <= 16 {
            0
        } else {
            ((size + 2) / 16).clamp(16, 256)
        };
        let free = |n: u32| !used.ips.contains(&Ipv4Addr::from(n));
        pick(first + offset, last, free)
            .or_else(|| {
                (offset > 0)
                    .then(|| pick(first, first + offset - 1, free))
                    .flatten()
            })
            .map(Ipv4Addr::from)
    }

    /// A requested node port, or why it cannot be had.
    fn request_port(&self, port: i64, used: &InUse) -> Result<u16, String> {
        let in_range = u16::try_from(port)
            .ok()
            .filter(|p| self.node_ports.contains(p));
        let Some(port) = in_range else {
            return Err(format!(
                "provided port is not in the valid range. The range of valid ports is {}",
                self.ports_text()
            ));
        };
        if used.ports.contains(&port) {
            return Err("provided port is already allocated".to_owned());
        }
        Ok(port)
    }

    /// A free node port: upper band first, from a random place, then the lower band.
    fn next_port(&self, used: &InUse) -> Option<u16> {
        let (low, high) = (
            u32::from(*self.node_ports.start()),
            u32::from(*self.node_ports.end()),
        );
        let size = high - low + 1;
        let offset = if size <= 16 {
            0
        } else {
            (size / 32).clamp(16, 128)
        };
        let free = |n: u32| u16::try_from(n).is_ok_and(|p| !used.ports.contains(&p));
        let port = pick(low + offset, high, free).or_else(|| {
            (offset > 0)
                .then(|| pick(low, low + offset - 1, free))
                .flatten()
        })?;
        u16::try_from(port).ok()
    }
}

/// Creates the `kubernetes` Service in `default` if it is missing, as kube-apiserver's
/// kubernetes-service controller does at start (`pkg/controlplane/controller/
/// kubernetesservice`): the first address of the range, port `https` 443 to the server's
/// own port, labels `component: apiserver` and `provider: kubernetes`, written as field
/// manager `kube-apiserver`. One that exists is left as it is (upstream's controller also
/// updates its ports when the server moved); none is made while another Service holds the
/// address.
pub fn ensure_kubernetes_service(
    store: &dyn crate::storage::Storage,
    network: &ServiceNetwork,
    port: u16,
) -> Result<(), crate::storage::StorageError> {
    let key = crate::storage::keys::namespaced(SERVICES.plural, "default", "kubernetes");
    let wanted = json!([{"name": "https", "port": 443, "protocol": "TCP", "targetPort": port}]);
    if store.get(&key, None)?.0.is_some() {
        return Ok(());
    }
    let ip = Ipv4Addr::from(network.network + 1).to_string();
    let now = object::now_timestamp();
    let Value::Object(mut service) = json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": "kubernetes",
            "namespace": "default",
            "uid": crate::random::uuid_v4()?,
            "creationTimestamp": now,
            "labels": {"component": "apiserver", "provider": "kubernetes"},
        },
        "spec": {
            "clusterIP": ip,
            "ports": wanted,
            "sessionAffinity": "None",
            "type": "ClusterIP",
            "ipFamilyPolicy": "SingleStack",
        },
    }) else {
        unreachable!("an object literal");
    };
    crate::apply::update_by_server(&SERVICES, None, &mut service, &now);
    crate::defaults::on_create(&SERVICES, &mut service);
    let services =
        crate::storage::RangeRequest::prefix(crate::storage::keys::prefix(SERVICES.plural, None));
    let used = InUse::of_stored(&store.range(&services)?.kvs, None);
    if let Err(refused) = allocate(network, &mut service, None, used, false) {
        // Another Service holds the address: upstream's controller logs and retries.
        eprintln!(
            "kcel-apiserver: the kubernetes Service: {}",
            refused.message
        );
        return Ok(());
    }
    let bytes = serde_json::to_vec(&service).expect("JSON");
    match store.create(&key, &bytes) {
        Ok(_) | Err(crate::storage::StorageError::AlreadyExists { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

/// A free number in `first..=last`, searched from a random start, wrapping around.
fn pick(first: u32, last: u32, free: impl Fn(u32) -> bool) -> Option<u32> {
    if last < first {
        return None;
    }
    let size = u64::from(last - first) + 1;
    let start = crate::random::below(size);
    (0..size)
        .map(|i| first + ((start + i) % size) as u32)
        .find(|&n| free(n))
}

/// Whether writes of `resource` allocate Service addresses (Services, not their status).
pub fn allocates(resource: &crate::resource::Resource, subresource: Option<&str>) -> bool {
    (resource.group, resource.kind) == ("", "Service") && subresource.is_none()
}

/// The cluster IPs and node ports the stored Services hold.
#[derive(Debug, Default)]
pub struct InUse {
    ips: HashSet<Ipv4Addr>,
    ports: HashSet<u16>,
}

impl InUse {
    /// What the Services stored in `kvs` (a range of Service keys) hold, but the one at
    /// `except` (the Service an update rewrites).
    pub fn of_stored(kvs: &[KeyValue], except: Option<&str>) -> InUse {
        let mut used = InUse::default();
        for kv in kvs.iter().filter(|kv| except != Some(kv.key.as_str())) {
            if let Ok(service) = serde_json::from_slice::<Value>(&kv.value)
                && let Some(spec) = service.get("spec").and_then(Value::as_object)
            {
                used.add_spec(spec);
            }
        }
        used
    }

    /// Records what a stored Service's spec holds.
    fn add_spec(&mut self, spec: &Map<String, Value>) {
        let ips = object::string_list(spec.get("clusterIPs"));
        let ip = spec.get("clusterIP").and_then(Value::as_str);
        for ip in ips.iter().map(String::as_str).chain(ip) {
            if let Ok(ip) = ip.parse() {
                self.take_ip(ip);
            }
        }
        for port in node_ports(spec) {
            self.take_port(port);
        }
    }

    fn take_ip(&mut self, ip: Ipv4Addr) {
        self.ips.insert(ip);
    }

    fn take_port(&mut self, port: u16) {
        self.ports.insert(port);
    }
}

/// The node ports (and health check node port) a Service's spec names.
fn node_ports(spec: &Map<String, Value>) -> Vec<u16> {
    let ports = spec
        .get("ports")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    ports
        .filter_map(|p| p.get("nodePort"))
        .chain(spec.get("healthCheckNodePort"))
        .filter_map(Value::as_u64)
        .filter_map(|p| u16::try_from(p).ok())
        .filter(|&p| p != 0)
        .collect()
}

fn kind(spec: &Map<String, Value>) -> &str {
    spec.get("type")
        .and_then(Value::as_str)
        .unwrap_or("ClusterIP")
}

fn needs_cluster_ip(spec: &Map<String, Value>) -> bool {
    kind(spec) != "ExternalName"
}

fn needs_node_ports(spec: &Map<String, Value>) -> bool {
    matches!(kind(spec), "NodePort" | "LoadBalancer")
}

fn needs_health_check(spec: &Map<String, Value>) -> bool {
    kind(spec) == "LoadBalancer"
        && spec.get("externalTrafficPolicy").and_then(Value::as_str) == Some("Local")
}

fn allocates_node_ports(spec: &Map<String, Value>) -> bool {
    kind(spec) == "NodePort" || spec.get("allocateLoadBalancerNodePorts") != Some(&json!(false))
}

fn number(fields: &Value, field: &str) -> i64 {
    fields.get(field).and_then(Value::as_i64).unwrap_or(0)
}

/// Why an allocation failed: a field error (a 422 for the Service) or, for a full range,
/// upstream's internal error.
enum Refused {
    Field(FieldError),
    Internal(&'static str),
}

/// Allocates what the Service `object` needs (on update, `old` is the stored Service), from
/// the ranges of `network` and around `used`, after the library's preparation of it
/// ([`kcel_stdlib::kubernetes::builtin::prepare_service`]); the errors are a 422 for the
/// Service.
pub fn allocate(
    network: &ServiceNetwork,
    object: &mut Object,
    old: Option<&Object>,
    mut used: InUse,
    dry_run: bool,
) -> Result<(), ApiError> {
    let name = object::meta_str(object, "name").to_owned();
    let refused = |r: Refused| match r {
        Refused::Field(e) => ApiError::invalid(&SERVICES, &name, vec![e]),
        Refused::Internal(text) => ApiError::internal(text),
    };
    prepare(object, old, &name)?;
    let old_spec = old.and_then(|o| o.get("spec")).and_then(Value::as_object);
    let from_external_name = old_spec.is_some_and(|o| !needs_cluster_ip(o));
    let old_ports: HashSet<u16> = old_spec.map(node_ports).into_iter().flatten().collect();
    let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    if needs_cluster_ip(spec) {
        families(spec).map_err(|e| refused(Refused::Field(e)))?;
        if old.is_none() || from_external_name {
            cluster_ips(network, spec, &mut used, dry_run).map_err(refused)?;
        }
    }
    if needs_node_ports(spec) {
        ports(network, spec, &old_ports, old.is_none(), &mut used).map_err(refused)?;
    }
    let health_check_port = spec.get("healthCheckNodePort").and_then(Value::as_i64);
    if needs_health_check(spec) && health_check_port.unwrap_or(0) == 0 {
        let port = network.next_port(&used).ok_or_else(|| {
            ApiError::internal("failed to allocate a HealthCheck NodePort 0: range is full")
        })?;
        spec.insert("healthCheckNodePort".to_owned(), json!(port));
    }
    Ok(())
}

/// What the Service storage does before it allocates, as the library models it
/// ([`kcel_stdlib::kubernetes::builtin::prepare_service`]): `clusterIPs` following
/// `clusterIP`, the policy defaulted, what an update leaves out kept, what a type change
/// leaves behind dropped.
fn prepare(object: &mut Object, old: Option<&Object>, name: &str) -> Result<(), ApiError> {
    let old = old.map(|o| Value::Object(o.clone()));
    let mut value = Value::Object(std::mem::take(object));
    let prepared = kcel_stdlib::kubernetes::builtin::prepare_service(&mut value, old.as_ref());
    if let Value::Object(prepared) = value {
        *object = prepared;
    }
    prepared.map_err(|errors| {
        crate::crd::definition::invalid_error(
            &SERVICES.group_kind(),
            SERVICES.group,
            SERVICES.kind,
            name,
            &errors,
        )
    })
}

/// The checks of `initIPFamilyFields` against a single-stack IPv4 cluster (the policy is
/// defaulted by then): the families inferred from the cluster IPs or defaulted, what the
/// cluster cannot serve refused.
fn families(spec: &mut Map<String, Value>) -> Result<(), FieldError> {
    let cluster_ips = object::string_list(spec.get("clusterIPs"));
    let headless = spec.get("clusterIP").and_then(Value::as_str) == Some("None");
    let selectorless = spec
        .get("selector")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    let policy = spec
        .get("ipFamilyPolicy")
        .and_then(Value::as_str)
        .unwrap_or("SingleStack")
        .to_owned();
    let mut families = object::string_list(spec.get("ipFamilies"));
    for (i, ip) in cluster_ips.iter().enumerate() {
        if ip == "None" {
            break;
        }
        if i >= families.len() {
            if ip.parse::<Ipv4Addr>().is_err() {
                return Err(FieldError::invalid_rendered(
                    &format!("spec.clusterIPs[{i}]"),
                    json!(cluster_ips).to_string(),
                    "IPv6 is not configured on this cluster",
                ));
            }
            families.push("IPv4".to_owned());
        }
    }
    if headless && selectorless {
        if families.is_empty() {
            families.push("IPv4".to_owned());
        }
        if families.len() < 2 && policy != "SingleStack" {
            let other = if families[0] == "IPv4" {
                "IPv6"
            } else {
                "IPv4"
            };
            families.push(other.to_owned());
        }
        spec.insert("ipFamilies".to_owned(), json!(families));
        return Ok(());
    }
    if policy == "RequireDualStack" {
        return Err(FieldError::invalid_string(
            "spec.ipFamilyPolicy",
            &policy,
            "this cluster is not configured for dual-stack services",
        ));
    }
    if let Some(i) = families.iter().position(|f| f != "IPv4") {
        return Err(FieldError::invalid_string(
            &format!("spec.ipFamilies[{i}]"),
            &families[i],
            "not configured on this cluster",
        ));
    }
    if families.is_empty() {
        families.push("IPv4".to_owned());
    }
    spec.insert("ipFamilies".to_owned(), json!(families));
    Ok(())
}

/// `allocClusterIPs`: the cluster IP of the (one) family, requested or dynamic; none for a
/// headless Service.
fn cluster_ips(
    network: &ServiceNetwork,
    spec: &mut Map<String, Value>,
    used: &mut InUse,
    dry_run: bool,
) -> Result<(), Refused> {
    let requested = object::string_list(spec.get("clusterIPs"));
    if requested.first().map(String::as_str) == Some("None") {
        return Ok(());
    }
    let ip = match requested.first().filter(|ip| !ip.is_empty()) {
        Some(ip) => network.request_ip(ip, used).map_err(|why| {
            Refused::Field(FieldError::invalid_rendered(
                "spec.clusterIPs",
                json!(requested).to_string(),
                &format!("failed to allocate IP {ip}: {why}"),
            ))
        })?,
        None if dry_run => Ipv4Addr::from(network.network),
        None => network.next_ip(used).ok_or(Refused::Internal(
            "failed to allocate a serviceIP: range is full",
        ))?,
    };
    used.take_ip(ip);
    spec.insert("clusterIP".to_owned(), json!(ip.to_string()));
    spec.insert("clusterIPs".to_owned(), json!([ip.to_string()]));
    Ok(())
}

/// `initNodePorts` (create) and `updateNodePorts` (update): each port's node port, requested
/// (in range, free; on update one the old Service held is kept) or dynamic (on create shared
/// by the ports of one port number).
fn ports(
    network: &ServiceNetwork,
    spec: &mut Map<String, Value>,
    old_ports: &HashSet<u16>,
    create: bool,
    used: &mut InUse,
) -> Result<(), Refused> {
    let allocates = allocates_node_ports(spec);
    let Some(ports) = spec.get_mut("ports").and_then(Value::as_array_mut) else {
        return Ok(());
    };
    let requested: Vec<(i64, i64)> = ports
        .iter()
        .map(|p| (number(p, "port"), number(p, "nodePort")))
        .collect();
    let mut by_port: Vec<(i64, u16)> = Vec::new();
    for (i, port) in ports.iter_mut().enumerate() {
        let (number, asked) = requested[i];
        if asked == 0 && !allocates {
            continue;
        }
        let field = format!("spec.ports[{i}].nodePort");
        let shared = create
            .then(|| by_port.iter().find(|(n, _)| *n == number).map(|(_, p)| *p))
            .flatten();
        let chosen = match (asked, shared) {
            (0, Some(p)) => p,
            (0, None) => {
                let first_asked = create
                    .then(|| requested.iter().find(|(n, np)| *n == number && *np != 0))
                    .flatten();
                match first_asked {
                    Some(&(_, np)) => network.request_port(np, used).map_err(|why| {
                        Refused::Field(FieldError::invalid_number(&field, np, &why))
                    })?,
                    None => network.next_port(used).ok_or(Refused::Internal(
                        "failed to allocate a nodePort: range is full",
                    ))?,
                }
            }
            (np, Some(p)) if np == i64::from(p) => p,
            (np, _) => {
                let kept = u16::try_from(np).ok().filter(|p| old_ports.contains(p));
                match kept {
                    Some(p) if !create => p,
                    _ => network.request_port(np, used).map_err(|why| {
                        Refused::Field(FieldError::invalid_number(&field, np, &why))
                    })?,
                }
            }
        };
        used.take_port(chosen);
        if create && !by_port.iter().any(|(n, _)| *n == number) {
            by_port.push((number, chosen));
        }
        if let Some(port) = port.as_object_mut() {
            port.insert("nodePort".to_owned(), json!(chosen));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(spec: Value) -> Object {
        serde_json::from_value(json!({"metadata": {"name": "web"}, "spec": spec})).unwrap()
    }

    fn allocated(spec: Value, used: InUse) -> Result<Value, ApiError> {
        let mut s = service(spec);
        allocate(&ServiceNetwork::default(), &mut s, None, used, false)?;
        Ok(Value::Object(s)["spec"].clone())
    }

    #[test]
    fn a_cluster_ip_service_gets_an_address_of_the_upper_band_and_its_family() {
        for _ in 0..50 {
            let spec = allocated(
                json!({"type": "ClusterIP", "selector": {"a": "b"}}),
                InUse::default(),
            )
            .unwrap();
            let ip: Ipv4Addr = spec["clusterIP"].as_str().unwrap().parse().unwrap();
            let last = ip.octets()[3];
            assert!((17..=254).contains(&last), "{ip}");
            assert_eq!(spec["clusterIPs"], json!([ip.to_string()]));
            assert_eq!(spec["ipFamilies"], json!(["IPv4"]));
            assert_eq!(spec["ipFamilyPolicy"], "SingleStack");
            assert!(spec["ports"].is_null());
        }
    }

    #[test]
    fn requested_addresses_are_checked_against_the_range_and_the_taken_ones() {
        let mut used = InUse::default();
        used.take_ip("10.0.0.5".parse().unwrap());
        let refused = |ip: &str, used: InUse| {
            allocated(json!({"clusterIP": ip, "selector": {"a": "b"}}), used)
                .unwrap_err()
                .message
        };
        assert_eq!(
            refused("10.0.0.5", used),
            "Service \"web\" is invalid: spec.clusterIPs: Invalid value: [\"10.0.0.5\"]: failed \
             to allocate IP 10.0.0.5: provided IP is already allocated"
        );
        assert_eq!(
            refused("10.1.0.5", InUse::default()),
            "Service \"web\" is invalid: spec.clusterIPs: Invalid value: [\"10.1.0.5\"]: failed \
             to allocate IP 10.1.0.5: the provided network does not match the current range"
        );
        assert_eq!(
            refused("10.0.0.255", InUse::default()),
            "Service \"web\" is invalid: spec.clusterIPs: Invalid value: [\"10.0.0.255\"]: failed \
             to allocate IP 10.0.0.255: provided IP 10.0.0.255 is not in the valid range"
        );
        let spec = allocated(json!({"clusterIP": "10.0.0.7"}), InUse::default()).unwrap();
        assert_eq!(spec["clusterIPs"], json!(["10.0.0.7"]));
    }

    #[test]
    fn headless_services_get_no_address_and_selectorless_ones_both_families() {
        let spec = allocated(
            json!({"clusterIP": "None", "selector": {"a": "b"}}),
            InUse::default(),
        )
        .unwrap();
        assert_eq!(spec["clusterIPs"], json!(["None"]));
        assert_eq!(spec["ipFamilies"], json!(["IPv4"]));
        assert_eq!(spec["ipFamilyPolicy"], "SingleStack");
        let spec = allocated(json!({"clusterIP": "None"}), InUse::default()).unwrap();
        assert_eq!(spec["ipFamilies"], json!(["IPv4", "IPv6"]));
        assert_eq!(spec["ipFamilyPolicy"], "RequireDualStack");
        let err = allocated(
            json!({"ipFamilyPolicy": "RequireDualStack", "selector": {"a": "b"}}),
            InUse::default(),
        )
        .unwrap_err();
        assert_eq!(
            err.message,
            "Service \"web\" is invalid: spec.ipFamilyPolicy: Invalid value: \"RequireDualStack\": \
             this cluster is not configured for dual-stack services"
        );
    }

    #[test]
    fn node_ports_are_allocated_shared_by_port_number_and_checked() {
        let spec = allocated(
            json!({"type": "NodePort", "ports": [
                {"port": 53, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"},
                {"port": 80, "nodePort": 30080}]}),
            InUse::default(),
        )
        .unwrap();
        let first = spec["ports"][0]["nodePort"].as_u64().unwrap();
        assert!((30086..=32767).contains(&first), "{first}");
        assert_eq!(spec["ports"][1]["nodePort"], first);
        assert_eq!(spec["ports"][2]["nodePort"], 30080);
        let mut used = InUse::default();
        used.take_port(30080);
        let err = allocated(
            json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 30080}]}),
            used,
        )
        .unwrap_err();
        assert_eq!(
            err.message,
            "Service \"web\" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided \
             port is already allocated"
        );
        let err = allocated(
            json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 80}]}),
            InUse::default(),
        )
        .unwrap_err();
        assert_eq!(
            err.message,
            "Service \"web\" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port \
             is not in the valid range. The range of valid ports is 30000-32767"
        );
    }

    #[test]
    fn updates_keep_what_they_leave_out_and_external_names_drop_it() {
        let network = ServiceNetwork::default();
        let mut old = service(json!({"type": "NodePort", "selector": {"a": "b"},
            "ports": [{"name": "http", "port": 80}]}));
        allocate(&network, &mut old, None, InUse::default(), false).unwrap();
        let old_spec = Value::Object(old.clone())["spec"].clone();
        let mut new = service(json!({"type": "NodePort", "selector": {"a": "b"},
            "ports": [{"name": "http", "port": 80}]}));
        allocate(&network, &mut new, Some(&old), InUse::default(), false).unwrap();
        assert_eq!(Value::Object(new.clone())["spec"], old_spec);
        let mut external = service(json!({"type": "ExternalName", "externalName": "x.example",
            "clusterIP": old_spec["clusterIP"], "clusterIPs": old_spec["clusterIPs"],
            "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
            "ports": old_spec["ports"]}));
        allocate(&network, &mut external, Some(&old), InUse::default(), false).unwrap();
        let spec = &Value::Object(external)["spec"];
        assert!(
            spec.get("clusterIP").is_none() && spec.get("ipFamilies").is_none(),
            "{spec}"
        );
        assert!(spec["ports"][0].get("nodePort").is_none(), "{spec}");
    }

    #[test]
    fn ranges_are_parsed_as_the_flags_give_them() {
        let n = ServiceNetwork::new("10.96.0.5/12", "30000-30010").unwrap();
        assert_eq!(n.cidr(), "10.96.0.0/12");
        assert!(ServiceNetwork::new("fd00::/108", "30000-32767").is_err());
        assert!(ServiceNetwork::new("10.0.0.0/24", "32767-30000").is_err());
    }
}
