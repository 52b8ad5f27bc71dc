//! What kube-apiserver's Service storage and strategy do to a Service before it is validated,
//! done to the object itself (kubernetes/kubernetes `pkg/registry/core/service/storage`
//! `beginCreate`/`beginUpdate`, and the strategy's `PrepareForUpdate`):
//!
//! - the addresses as [`service_ips::prepare`] makes them (`patchAllocatedValues` of the
//!   cluster IPs, `normalizeClusterIPs`, the checks of `initIPFamilyFields` that do not depend
//!   on the cluster, `dropTypeDependentFields` of the cluster IPs, families and policy),
//!   written back;
//! - `patchAllocatedValues` of the node ports: an update of a NodePort or LoadBalancer Service
//!   to one of these types that leaves a port's node port out gets the old port's of the same
//!   name, unless the old and the new Service both use that number elsewhere; one that leaves
//!   out the health check node port (LoadBalancer with `externalTrafficPolicy: Local`, before
//!   and after) keeps the old;
//! - `dropTypeDependentFields` of the rest: a change away from NodePort/LoadBalancer that adds
//!   no node port drops them all, away from needing a health check node port drops an
//!   unchanged one, away from LoadBalancer drops an unchanged `allocateLoadBalancerNodePorts`
//!   and `loadBalancerClass`, away from being externally accessible an unchanged
//!   `externalTrafficPolicy`; and an update to any type but LoadBalancer clears
//!   `status.loadBalancer` (the load balancer is gone, as far as clients are told).
//!
//! What depends on the cluster — the families it serves, the ranges cluster IPs and node
//! ports are allocated from — is the API server's ([`crate::kubernetes::builtin::prepare_service`]
//! is this step for it).

use std::collections::{BTreeSet, HashMap};

use serde_json::Value as Json;

use super::read;
use super::service_ips::{self, Prepared};
use crate::kubernetes::crd::FieldError;

/// Prepares the Service `object` (on update of `old`, the stored one) in place; the errors
/// are those the storage refuses the write with, alone.
pub(super) fn prepare(object: &mut Json, old: Option<&Json>) -> Result<Prepared, Vec<FieldError>> {
    let prepared = service_ips::prepare(object, old)?;
    let Some(object) = object.as_object_mut() else {
        return Ok(prepared);
    };
    let spec = field_of(object, "spec");
    let Some(fields) = spec.as_object_mut() else {
        return Ok(prepared);
    };
    prepared.object().write(fields);
    if let Some(old) = old.and_then(|o| read::field(o, "spec")) {
        keep_node_ports(spec, old);
        drop_type_dependent(spec, old);
        if kind(spec) != "LoadBalancer" {
            clear_load_balancer_status(object);
        }
    }
    Ok(prepared)
}

/// `status.loadBalancer` emptied (`LoadBalancerStatus{}`: `{}`, as upstream's status always
/// shows it).
fn clear_load_balancer_status(object: &mut serde_json::Map<String, Json>) {
    if let Some(status) = field_of(object, "status").as_object_mut() {
        status.insert("loadBalancer".to_owned(), Json::Object(Default::default()));
    }
}

/// The value at `key`, an empty object when unset or `null` (as a Go struct field is).
fn field_of<'a>(object: &'a mut serde_json::Map<String, Json>, key: &str) -> &'a mut Json {
    let value = object
        .entry(key)
        .or_insert_with(|| Json::Object(Default::default()));
    if value.is_null() {
        *value = Json::Object(Default::default());
    }
    value
}

/// `spec.type`, defaulted.
fn kind(spec: &Json) -> &str {
    match read::text(spec, "type") {
        "" => "ClusterIP",
        t => t,
    }
}

/// `needsNodePort`.
fn needs_node_port(spec: &Json) -> bool {
    matches!(kind(spec), "NodePort" | "LoadBalancer")
}

/// `ExternallyAccessible`: LoadBalancer, NodePort, or ClusterIP with external IPs.
fn externally_accessible(spec: &Json) -> bool {
    match kind(spec) {
        "LoadBalancer" | "NodePort" => true,
        "ClusterIP" => !read::list(spec, "externalIPs").is_empty(),
        _ => false,
    }
}

/// `needsHCNodePort`.
fn needs_health_check(spec: &Json) -> bool {
    kind(spec) == "LoadBalancer" && read::text(spec, "externalTrafficPolicy") == "Local"
}

/// The node ports the ports set (not 0).
fn node_ports(spec: &Json) -> BTreeSet<i64> {
    read::list(spec, "ports")
        .iter()
        .filter_map(|p| read::int(p, "nodePort"))
        .filter(|&n| n != 0)
        .collect()
}

fn health_check_port(spec: &Json) -> i64 {
    read::int(spec, "healthCheckNodePort").unwrap_or(0)
}

/// `patchAllocatedValues` of the node ports and the health check node port.
fn keep_node_ports(spec: &mut Json, old: &Json) {
    if needs_node_port(spec) && needs_node_port(old) {
        let used: BTreeSet<i64> = node_ports(old)
            .intersection(&node_ports(spec))
            .copied()
            .collect();
        // By name, the last port of a name winning (a Go map filled in order).
        let by_name: HashMap<&str, i64> = read::list(old, "ports")
            .iter()
            .map(|p| (read::text(p, "name"), read::int(p, "nodePort").unwrap_or(0)))
            .collect();
        let ports = spec.get_mut("ports").and_then(Json::as_array_mut);
        for port in ports.into_iter().flatten() {
            let Some(fields) = port.as_object_mut() else {
                continue;
            };
            let name = fields.get("name").and_then(Json::as_str).unwrap_or("");
            let given = fields.get("nodePort").and_then(Json::as_i64).unwrap_or(0);
            let kept = by_name.get(name).copied().unwrap_or(0);
            if given == 0 && kept != 0 && !used.contains(&kept) {
                fields.insert("nodePort".to_owned(), Json::from(kept));
            }
        }
    }
    if needs_health_check(spec) && needs_health_check(old) && health_check_port(spec) == 0 {
        let kept = health_check_port(old);
        if let Some(fields) = spec.as_object_mut().filter(|_| kept != 0) {
            fields.insert("healthCheckNodePort".to_owned(), Json::from(kept));
        }
    }
}

/// `dropTypeDependentFields` but the addresses (which [`service_ips::prepare`] drops).
fn drop_type_dependent(spec: &mut Json, old: &Json) {
    let drop_node_ports = needs_node_port(old)
        && !needs_node_port(spec)
        && node_ports(old).is_superset(&node_ports(spec));
    let drop_health_check = needs_health_check(old)
        && !needs_health_check(spec)
        && health_check_port(old) == health_check_port(spec);
    let from_load_balancer = kind(old) == "LoadBalancer" && kind(spec) != "LoadBalancer";
    let same = |key: &str| read::field(old, key) == read::field(spec, key);
    let drop_allocate = from_load_balancer
        && read::field(spec, "allocateLoadBalancerNodePorts").is_some()
        && same("allocateLoadBalancerNodePorts");
    let drop_class = from_load_balancer && same("loadBalancerClass");
    let drop_traffic_policy = externally_accessible(old)
        && !externally_accessible(spec)
        && read::text(old, "externalTrafficPolicy") == read::text(spec, "externalTrafficPolicy");
    let Some(fields) = spec.as_object_mut() else {
        return;
    };
    if drop_node_ports {
        let ports = fields.get_mut("ports").and_then(Json::as_array_mut);
        for port in ports.into_iter().flatten().filter_map(Json::as_object_mut) {
            port.remove("nodePort");
        }
    }
    if drop_health_check {
        fields.remove("healthCheckNodePort");
    }
    if drop_allocate {
        fields.remove("allocateLoadBalancerNodePorts");
    }
    if drop_class {
        fields.remove("loadBalancerClass");
    }
    if drop_traffic_policy {
        fields.remove("externalTrafficPolicy");
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn prepared(object: Json, old: Option<Json>) -> Json {
        let mut object = object;
        prepare(&mut object, old.as_ref()).unwrap();
        object["spec"].clone()
    }

    #[test]
    fn a_create_gets_its_cluster_ips_and_policy_written_back() {
        let spec = prepared(
            json!({"spec": {"clusterIP": "10.0.0.9", "ports": [{"port": 80}]}}),
            None,
        );
        assert_eq!(spec["clusterIPs"], json!(["10.0.0.9"]));
        assert_eq!(spec["ipFamilyPolicy"], "SingleStack");
        let spec = prepared(json!({"spec": {"clusterIP": "None"}}), None);
        assert_eq!(spec["ipFamilyPolicy"], "RequireDualStack");
        let spec = prepared(json!({"metadata": {"name": "x"}}), None);
        assert_eq!(spec, json!({"ipFamilyPolicy": "SingleStack"}));
    }

    #[test]
    fn an_update_keeps_allocated_values_it_leaves_out() {
        let old = json!({"spec": {"type": "LoadBalancer", "externalTrafficPolicy": "Local",
            "clusterIP": "10.0.0.9", "clusterIPs": ["10.0.0.9"], "ipFamilyPolicy": "SingleStack",
            "healthCheckNodePort": 31000,
            "ports": [{"name": "a", "port": 80, "nodePort": 30080},
                      {"name": "b", "port": 81, "nodePort": 30081}]}});
        let new = json!({"spec": {"type": "LoadBalancer", "externalTrafficPolicy": "Local",
            "ports": [{"name": "a", "port": 80}, {"name": "b", "port": 82, "nodePort": 30080}]}});
        let spec = prepared(new, Some(old));
        assert_eq!(spec["clusterIPs"], json!(["10.0.0.9"]));
        assert_eq!(spec["clusterIP"], "10.0.0.9");
        // 30080 is used by the old and the new Service: not patched into port a.
        assert!(spec["ports"][0].get("nodePort").is_none(), "{spec}");
        assert_eq!(spec["ports"][1]["nodePort"], 30080);
        assert_eq!(spec["healthCheckNodePort"], 31000);
    }

    #[test]
    fn a_type_change_drops_what_the_new_type_does_not_use() {
        let old = json!({"spec": {"type": "LoadBalancer", "clusterIP": "10.0.0.9",
            "externalTrafficPolicy": "Cluster",
            "clusterIPs": ["10.0.0.9"], "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
            "allocateLoadBalancerNodePorts": true, "loadBalancerClass": "x/y",
            "ports": [{"port": 80, "nodePort": 30080}]}});
        let mut to_cluster_ip = old.clone();
        to_cluster_ip["spec"]["type"] = json!("ClusterIP");
        let spec = prepared(to_cluster_ip, Some(old.clone()));
        assert!(spec["ports"][0].get("nodePort").is_none(), "{spec}");
        assert!(spec.get("externalTrafficPolicy").is_none(), "{spec}");
        assert!(
            spec.get("allocateLoadBalancerNodePorts").is_none(),
            "{spec}"
        );
        assert!(spec.get("loadBalancerClass").is_none(), "{spec}");
        assert_eq!(spec["clusterIP"], "10.0.0.9");
        // A new node port is the client's: kept (and refused by validation).
        let mut added = old.clone();
        added["spec"]["type"] = json!("ClusterIP");
        added["spec"]["ports"][0]["nodePort"] = json!(30090);
        let spec = prepared(added, Some(old.clone()));
        assert_eq!(spec["ports"][0]["nodePort"], 30090);
        // The load balancer's status goes with the type (on update only).
        let mut with_status = old.clone();
        with_status["spec"]["type"] = json!("NodePort");
        with_status["status"] = json!({"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}});
        let mut updated = with_status.clone();
        prepare(&mut updated, Some(&old)).unwrap();
        assert_eq!(updated["status"], json!({"loadBalancer": {}}));
        let mut created = with_status;
        prepare(&mut created, None).unwrap();
        assert_eq!(
            created["status"]["loadBalancer"]["ingress"][0]["ip"],
            "192.0.2.1"
        );
        let mut external = old.clone();
        external["spec"]["type"] = json!("ExternalName");
        external["spec"]["externalName"] = json!("x.example");
        let spec = prepared(external, Some(old));
        for gone in ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"] {
            assert!(spec.get(gone).is_none(), "{gone}: {spec}");
        }
    }
}
