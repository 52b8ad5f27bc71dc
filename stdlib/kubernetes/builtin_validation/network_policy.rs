//! NetworkPolicies (kubernetes/kubernetes `pkg/apis/networking/validation/validation.go`):
//! `ValidateNetworkPolicySpec` — the pod selector, each ingress and egress rule's ports
//! (`ValidateNetworkPolicyPort`) and peers (`ValidateNetworkPolicyPeer`, `ValidateIPBlock`),
//! the policy types — with the update's options (`ValidationOptionsForNetworking`: label
//! values of an already invalid pod selector allowed; `ValidateNetworkPolicyUpdate`: the
//! CIDRs of the old object allowed as they are).

use std::net::IpAddr;

use serde_json::Value as Json;

use super::errors::{Errors, port_name, port_num};
use super::label_selector::LabelSelector;
use super::read;
use super::service_ips::legacy_cidr;
use crate::kubernetes::cidr::Cidr;
use crate::kubernetes::crd::field_error::FieldPath;
use crate::kubernetes::sloppy_ip;

/// What an update lets stand (`NetworkPolicyValidationOptions`).
#[derive(Default)]
struct Options {
    /// `AllowInvalidLabelValueInSelector`: the old pod selector was invalid.
    allow_invalid_label_values: bool,
    /// `AllowCIDRsEvenIfInvalid`: every CIDR (and `except`) of the old object's peers.
    old_cidrs: Vec<String>,
}

impl Options {
    fn of(old: Option<&Json>) -> Options {
        let Some(old) = old else {
            return Options::default();
        };
        let spec = read::field(old, "spec").unwrap_or(&Json::Null);
        let selector = read::field(spec, "podSelector").unwrap_or(&Json::Null);
        let mut old_cidrs = Vec::new();
        for (rules, peers) in [("ingress", "from"), ("egress", "to")] {
            for rule in read::list(spec, rules) {
                for peer in read::list(rule, peers) {
                    if let Some(block) = read::field(peer, "ipBlock") {
                        old_cidrs.push(read::text(block, "cidr").to_owned());
                        old_cidrs.extend(
                            read::list(block, "except")
                                .iter()
                                .filter_map(|c| c.as_str().map(str::to_owned)),
                        );
                    }
                }
            }
        }
        Options {
            allow_invalid_label_values: LabelSelector::read(selector).is_invalid(),
            old_cidrs,
        }
    }
}

/// `ValidateNetworkPolicy`'s spec (after the metadata), or on update (`old` given)
/// `ValidateNetworkPolicyUpdate`'s.
pub(super) fn network_policy(e: &mut Errors, object: &Json, old: Option<&Json>) {
    let options = Options::of(old);
    let spec = read::field(object, "spec").unwrap_or(&Json::Null);
    let path = FieldPath::new("spec");
    let selector = read::field(spec, "podSelector").unwrap_or(&Json::Null);
    LabelSelector::read(selector).validate_with(
        e,
        &path.child("podSelector"),
        options.allow_invalid_label_values,
    );
    for (rules, peers) in [("ingress", "from"), ("egress", "to")] {
        for (i, rule) in read::list(spec, rules).iter().enumerate() {
            let at = path.child(rules).index(i);
            for (j, port) in read::list(rule, "ports").iter().enumerate() {
                policy_port(e, port, &at.child("ports").index(j));
            }
            for (j, peer) in read::list(rule, peers).iter().enumerate() {
                policy_peer(e, peer, &options, &at.child(peers).index(j));
            }
        }
    }
    policy_types(e, spec, &path.child("policyTypes"));
}

/// `ValidateNetworkPolicyPort`.
fn policy_port(e: &mut Errors, port: &Json, path: &FieldPath) {
    if let Some(protocol) = read::field(port, "protocol").and_then(Json::as_str)
        && !matches!(protocol, "TCP" | "UDP" | "SCTP")
    {
        e.not_supported(&path.child("protocol"), protocol, &["TCP", "UDP", "SCTP"]);
    }
    let end_port = read::int(port, "endPort");
    match read::field(port, "port") {
        Some(Json::String(name)) => {
            if let Some(end) = end_port {
                e.invalid_int(
                    &path.child("endPort"),
                    end,
                    "may not be specified when `port` is non-numeric",
                );
            }
            e.each(&path.child("port"), name, port_name(name));
        }
        Some(number) => {
            let number = number.as_i64().unwrap_or_default();
            if let Some(m) = port_num(number) {
                e.invalid_int(&path.child("port"), number, &m);
            }
            if let Some(end) = end_port {
                if end < number {
                    e.invalid_int(
                        &path.child("endPort"),
                        end,
                        "must be greater than or equal to `port`",
                    );
                }
                if let Some(m) = port_num(end) {
                    e.invalid_int(&path.child("endPort"), end, &m);
                }
            }
        }
        None => {
            if let Some(end) = end_port {
                e.invalid_int(
                    &path.child("endPort"),
                    end,
                    "may not be specified when `port` is not specified",
                );
            }
        }
    }
}

/// `ValidateNetworkPolicyPeer`.
fn policy_peer(e: &mut Errors, peer: &Json, options: &Options, path: &FieldPath) {
    let mut peers = 0;
    for field in ["podSelector", "namespaceSelector"] {
        if let Some(selector) = read::field(peer, field) {
            peers += 1;
            LabelSelector::read(selector).validate_with(
                e,
                &path.child(field),
                options.allow_invalid_label_values,
            );
        }
    }
    let block = read::field(peer, "ipBlock");
    if let Some(block) = block {
        peers += 1;
        ip_block(e, block, options, &path.child("ipBlock"));
    }
    if peers == 0 {
        e.required(path, "must specify a peer");
    } else if peers > 1 && block.is_some() {
        e.forbidden(path, "may not specify both ipBlock and another peer");
    }
}

/// `ValidateIPBlock`: the CIDR and its exceptions as legacy CIDR fields, each exception a
/// strict subset of the CIDR.
fn ip_block(e: &mut Errors, block: &Json, options: &Options, path: &FieldPath) {
    let cidr = read::text(block, "cidr");
    if cidr.is_empty() {
        e.required(&path.child("cidr"), "");
        return;
    }
    e.extend(legacy_cidr(&path.child("cidr"), cidr, &options.old_cidrs));
    let Some(network) = sloppy_ip::parse_cidr(cidr) else {
        return;
    };
    for (i, except) in read::list(block, "except").iter().enumerate() {
        let text = except.as_str().unwrap_or_default();
        let at = path.child("except").index(i);
        e.extend(legacy_cidr(&at, text, &options.old_cidrs));
        let Some(inner) = sloppy_ip::parse_cidr(text) else {
            continue;
        };
        if !contains(network, inner) || network.1 >= inner.1 {
            e.invalid(&at, text, "must be a strict subset of `cidr`");
        }
    }
}

/// Go's `IPNet.Contains` of the network `outer` (as `net.ParseCIDR` gives it) and the
/// network address of `inner`: both seen as `net.IP` sees them (an IPv4-mapped address as
/// IPv4, its prefix length less 96), of one family.
fn contains(outer: (IpAddr, u8), inner: (IpAddr, u8)) -> bool {
    let as_net = |(ip, bits): (IpAddr, u8)| match ip {
        IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some() => Cidr {
            addr: sloppy_ip::as_net_ip(ip),
            bits: bits.saturating_sub(96),
        },
        _ => Cidr { addr: ip, bits },
    };
    as_net(outer).contains(&as_net(inner).masked().addr)
}

/// The policy types: at most two, each `Ingress` or `Egress`.
fn policy_types(e: &mut Errors, spec: &Json, path: &FieldPath) {
    let types = read::list(spec, "policyTypes");
    if types.len() > 2 {
        e.invalid_json(
            path,
            &Json::Array(types.to_vec()),
            "may not specify more than two policyTypes",
        );
        return;
    }
    for (i, t) in types.iter().enumerate() {
        let t = t.as_str().unwrap_or_default();
        if !matches!(t, "Ingress" | "Egress") {
            e.not_supported(&path.index(i), t, &["Ingress", "Egress"]);
        }
    }
}
