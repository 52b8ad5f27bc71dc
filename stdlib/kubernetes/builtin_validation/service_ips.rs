//! A Service's addresses — cluster IPs, IP families and family policy, external IPs, load
//! balancer source ranges — as kube-apiserver 1.37 handles them. First what the Service
//! storage does before anything is validated (kubernetes/kubernetes
//! `pkg/registry/core/service/storage`: `beginCreate` and `beginUpdate` with
//! `patchAllocatedValues`, `normalizeClusterIPs` and `Allocators.initIPFamilyFields`; then
//! the strategy's `dropTypeDependentFields`): the store calls `BeginCreate`/`BeginUpdate`
//! before `rest.BeforeCreate`/`BeforeUpdate`, so the errors found there are the whole
//! answer, without the metadata's. Then the rules of `pkg/apis/core/validation`:
//! `ValidateServiceClusterIPsRelatedFields`, the external IPs (`IsValidIPForLegacyField`,
//! then `ValidateEndpointIP`) and load balancer source ranges (`IsValidCIDRForLegacyField` of
//! the field, or else of the annotation) of `validateService`, and on update
//! `validateUpgradeDowngradeClusterIPs` and `validateUpgradeDowngradeIPFamilies`.
//!
//! IPs and CIDRs are checked with the `StrictIPCIDRValidation` feature gate on, its default
//! in 1.37: no leading zeros, no IPv4-mapped IPv6 addresses, no bits set beyond a prefix
//! length; on update a value the old object had is accepted again.
//!
//! Not modelled: what depends on the cluster's service CIDRs (the families it serves and the
//! ranges IPs are allocated from: `... is not configured on this cluster`, `this cluster is
//! not configured for dual-stack services`, `failed to allocate IP ...`), the allocator's
//! filling in of `ipFamilies` and `clusterIPs`, the families a stored headless Service gets
//! on read (the cluster's primary family). (`service_storage` writes what is prepared here
//! back into the object, with the node ports `patchAllocatedValues` keeps.)

use std::net::IpAddr;

use serde_json::Value as Json;

use super::errors::Errors;
use super::read;
use crate::kubernetes::cidr::Cidr;
use crate::kubernetes::crd::FieldError;
use crate::kubernetes::crd::field_error::{FieldPath, go_json_quote};
use crate::kubernetes::ip::{link_local_multicast, link_local_unicast};
use crate::kubernetes::netip::{is_4in6, parse_addr, parse_prefix};
use crate::kubernetes::sloppy_ip;

/// `core.ClusterIPNone`: the cluster IP of a headless Service.
const NONE: &str = "None";
const SINGLE_STACK: &str = "SingleStack";
const PREFER_DUAL_STACK: &str = "PreferDualStack";
const REQUIRE_DUAL_STACK: &str = "RequireDualStack";
const EXTERNAL_NAME: &str = "ExternalName";
/// `core.AnnotationLoadBalancerSourceRangesKey`.
const SOURCE_RANGES_ANNOTATION: &str = "service.beta.kubernetes.io/load-balancer-source-ranges";
const ONLY_LOAD_BALANCER: &str = "may only be used when `type` is 'LoadBalancer'";
const CHANGED: &str = "may not change once set";

/// The address fields of one Service object.
#[derive(Clone, Debug)]
pub(super) struct Addresses {
    /// `spec.type`, defaulted (`ClusterIP`).
    kind: String,
    cluster_ip: String,
    /// `spec.clusterIPs`: `None` when unset (Go's nil slice, shown as `null`).
    cluster_ips: Option<Vec<String>>,
    families: Option<Vec<String>>,
    policy: Option<String>,
    selector_empty: bool,
    external_ips: Vec<String>,
    source_ranges: Vec<String>,
    source_ranges_annotation: Option<String>,
}

impl Addresses {
    fn read(object: &Json) -> Addresses {
        let spec = read::field(object, "spec").unwrap_or(&Json::Null);
        let strings = |key: &str| {
            read::field(spec, key).and_then(Json::as_array).map(|a| {
                a.iter()
                    .map(|v| v.as_str().unwrap_or_default().to_string())
                    .collect::<Vec<_>>()
            })
        };
        let annotation = read::field(object, "metadata")
            .and_then(|m| read::object(m, "annotations"))
            .and_then(|a| a.get(SOURCE_RANGES_ANNOTATION))
            .map(|v| v.as_str().unwrap_or_default().to_string());
        Addresses {
            kind: match read::text(spec, "type") {
                "" => "ClusterIP",
                t => t,
            }
            .to_string(),
            cluster_ip: read::text(spec, "clusterIP").to_string(),
            cluster_ips: strings("clusterIPs"),
            families: strings("ipFamilies"),
            policy: read::field(spec, "ipFamilyPolicy")
                .map(|p| p.as_str().unwrap_or_default().to_string()),
            selector_empty: read::object(spec, "selector").is_none_or(|s| s.is_empty()),
            external_ips: strings("externalIPs").unwrap_or_default(),
            source_ranges: strings("loadBalancerSourceRanges").unwrap_or_default(),
            source_ranges_annotation: annotation,
        }
    }

    /// `spec.clusterIPs` (empty when unset).
    pub(super) fn cluster_ips(&self) -> &[String] {
        self.cluster_ips.as_deref().unwrap_or_default()
    }

    /// `spec.ipFamilies` (empty when unset).
    pub(super) fn families(&self) -> &[String] {
        self.families.as_deref().unwrap_or_default()
    }

    /// Whether `spec.ipFamilyPolicy` is set.
    pub(super) fn has_policy(&self) -> bool {
        self.policy.is_some()
    }

    /// `isHeadlessService`: the cluster IPs are exactly `["None"]`.
    pub(super) fn headless(&self) -> bool {
        self.cluster_ips() == [NONE]
    }

    /// `needsClusterIP`: every type but ExternalName.
    fn needs_cluster_ip(&self) -> bool {
        self.kind != EXTERNAL_NAME
    }

    /// The policy as a field error shows the `*IPFamilyPolicy` (JSON; `null` when unset).
    fn policy_value(&self) -> String {
        self.policy
            .as_deref()
            .map_or("null".to_string(), go_json_quote)
    }

    /// Writes the fields [`prepare`] may change into a Service's `spec` (an unset or empty
    /// one removed, as the Go types' `omitempty` leave them out); fields that keep their
    /// value are not touched.
    pub(super) fn write(&self, spec: &mut serde_json::Map<String, Json>) {
        let mut set = |key: &str, value: Option<Json>| match value {
            Some(v) if spec.get(key) != Some(&v) => {
                spec.insert(key.to_string(), v);
            }
            Some(_) => {}
            None => {
                spec.remove(key);
            }
        };
        let cluster_ip = (!self.cluster_ip.is_empty()).then(|| Json::from(self.cluster_ip.clone()));
        set("clusterIP", cluster_ip);
        set("clusterIPs", self.cluster_ips.clone().map(Json::from));
        set("ipFamilies", self.families.clone().map(Json::from));
        set("ipFamilyPolicy", self.policy.clone().map(Json::from));
    }

    /// `defaultOnReadService` of a stored object: `normalizeClusterIPs` as for a create,
    /// then a headful Service without families gets those of its cluster IPs (and
    /// `SingleStack` for one, `RequireDualStack` for two).
    fn default_on_read(&mut self) {
        normalize_cluster_ips(self, None);
        if !self.needs_cluster_ip() || !self.families().is_empty() || self.cluster_ip == NONE {
            return;
        }
        let families: Vec<String> = self
            .cluster_ips()
            .iter()
            .map(|ip| if is_ipv6_string(ip) { "IPv6" } else { "IPv4" }.to_string())
            .collect();
        match families.len() {
            1 => self.policy = Some(SINGLE_STACK.to_string()),
            2 => self.policy = Some(REQUIRE_DUAL_STACK.to_string()),
            _ => {}
        }
        self.families = Some(families);
    }
}

/// A list as a field error shows a `[]string` or `[]IPFamily` (JSON; `null` when unset).
fn list_value(list: &Option<Vec<String>>) -> String {
    match list {
        None => "null".to_string(),
        Some(items) => {
            let items: Vec<String> = items.iter().map(|s| go_json_quote(s)).collect();
            format!("[{}]", items.join(","))
        }
    }
}

/// A Service's addresses as its storage leaves them for validation: the object's, and on
/// update the old object's as read back.
pub(super) struct Prepared {
    new: Addresses,
    old: Option<Addresses>,
}

/// What the Service storage makes of the addresses of a create (`old` unset) or of an
/// update of `old`, or the errors it refuses the write with.
pub(super) fn prepare(object: &Json, old: Option<&Json>) -> Result<Prepared, Vec<FieldError>> {
    let mut new = Addresses::read(object);
    let old = old.map(|o| {
        let mut o = Addresses::read(o);
        o.default_on_read();
        o
    });
    if let Some(old) = &old {
        patch_allocated_values(&mut new, old);
    }
    normalize_cluster_ips(&mut new, old.as_ref());
    init_ip_family_fields(&mut new, old.as_ref())?;
    if let Some(old) = &old {
        drop_type_dependent_fields(&mut new, old);
    }
    Ok(Prepared { new, old })
}

/// `patchAllocatedValues`: an update that leaves out the cluster IPs keeps the old ones.
fn patch_allocated_values(new: &mut Addresses, old: &Addresses) {
    if new.needs_cluster_ip() && old.needs_cluster_ip() {
        if new.cluster_ip.is_empty() {
            new.cluster_ip.clone_from(&old.cluster_ip);
        }
        if new.cluster_ips().is_empty() && !old.cluster_ips().is_empty() {
            new.cluster_ips.clone_from(&old.cluster_ips);
        }
    }
}

/// `normalizeClusterIPs`: `clusterIPs` follows `clusterIP` where a client set only the
/// latter.
fn normalize_cluster_ips(new: &mut Addresses, old: Option<&Addresses>) {
    let Some(old) = old else {
        if !new.cluster_ip.is_empty() && new.cluster_ips().is_empty() {
            new.cluster_ips = Some(vec![new.cluster_ip.clone()]);
        }
        return;
    };
    if !old.cluster_ips().is_empty()
        && new.cluster_ips().is_empty()
        && old.cluster_ip == new.cluster_ip
    {
        new.cluster_ips.clone_from(&old.cluster_ips);
    }
    if old.cluster_ip != new.cluster_ip {
        let same = old.cluster_ips() == new.cluster_ips();
        if !old.cluster_ip.is_empty() && new.cluster_ip.is_empty() {
            if same {
                new.cluster_ips = None;
            }
        } else if same {
            new.cluster_ips = Some(vec![new.cluster_ip.clone()]);
        }
    }
}

/// `isMatchingPreferDualStackClusterIPFields`: an update of a PreferDualStack Service that
/// keeps its type, policy, cluster IPs and families is left alone.
fn matching_prefer_dual_stack(new: &Addresses, old: Option<&Addresses>) -> bool {
    let (Some(old), Some(policy)) = (old, new.policy.as_deref()) else {
        return false;
    };
    old.kind == new.kind
        && matches!(new.kind.as_str(), "ClusterIP" | "NodePort" | "LoadBalancer")
        && policy == PREFER_DUAL_STACK
        && old.policy.as_deref().is_none_or(|p| p == PREFER_DUAL_STACK)
        && old.cluster_ips() == new.cluster_ips()
        && old.families() == new.families()
}

/// The checks of `initIPFamilyFields` that do not depend on the cluster: the policy
/// defaulted (the old one, `RequireDualStack` for a headless Service without selector,
/// else `SingleStack`), `ValidateServiceClusterIPsRelatedFields` as a pre-check (its errors
/// alone), then on update a release of a secondary IP or family only with `SingleStack`
/// (which keeps the primary of unchanged lists), and `SingleStack` with two IPs or families.
fn init_ip_family_fields(
    new: &mut Addresses,
    old: Option<&Addresses>,
) -> Result<(), Vec<FieldError>> {
    if new.kind == EXTERNAL_NAME || matching_prefer_dual_stack(new, old) {
        return Ok(());
    }
    if new.policy.is_none() {
        new.policy = Some(match old.and_then(|o| o.policy.clone()) {
            Some(p) => p,
            None if new.cluster_ip == NONE && new.selector_empty => REQUIRE_DUAL_STACK.into(),
            None => SINGLE_STACK.into(),
        });
    }
    let mut e = Errors::default();
    cluster_ips_related_fields(&mut e, new, old);
    let found = e.into_vec();
    if !found.is_empty() {
        return Err(found);
    }
    let mut e = Errors::default();
    let policy_path = FieldPath::new("spec").child("ipFamilyPolicy");
    let single = new.policy.as_deref() == Some(SINGLE_STACK);
    if let Some(old) = old {
        if single {
            // (ClusterIPs[0:1], IPFamilies[0:1].)
            if old.cluster_ips() == new.cluster_ips()
                && let Some(ips) = new.cluster_ips.as_mut()
            {
                ips.truncate(1);
            }
            if old.families() == new.families()
                && let Some(families) = new.families.as_mut()
            {
                families.truncate(1);
            }
        } else {
            let reduced = |n: &[String], o: &[String]| !n.is_empty() && n.len() < o.len();
            if reduced(new.cluster_ips(), old.cluster_ips()) {
                e.invalid_rendered(
                    &policy_path,
                    new.policy_value(),
                    "must be 'SingleStack' to release the secondary cluster IP",
                );
            }
            if reduced(new.families(), old.families()) {
                e.invalid_rendered(
                    &policy_path,
                    new.policy_value(),
                    "must be 'SingleStack' to release the secondary IP family",
                );
            }
        }
    }
    if single {
        if new.cluster_ips().len() == 2 {
            e.invalid_rendered(
                &policy_path,
                new.policy_value(),
                "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
            );
        }
        if new.families().len() == 2 {
            e.invalid_rendered(
                &policy_path,
                new.policy_value(),
                "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
            );
        }
    }
    let found = e.into_vec();
    if found.is_empty() { Ok(()) } else { Err(found) }
}

/// The strategy's `dropTypeDependentFields` for the addresses: an update to ExternalName
/// drops the cluster IPs, families and policy it did not change.
fn drop_type_dependent_fields(new: &mut Addresses, old: &Addresses) {
    if !old.needs_cluster_ip() || new.needs_cluster_ip() {
        return;
    }
    if old.cluster_ip == new.cluster_ip && old.cluster_ips() == new.cluster_ips() {
        new.cluster_ip.clear();
        new.cluster_ips = None;
    }
    // (reflect.DeepEqual: an unset list is not an empty one.)
    if old.families == new.families {
        new.families = None;
    }
    if old.policy.as_deref().unwrap_or_default() == new.policy.as_deref().unwrap_or_default() {
        new.policy = None;
    }
}

/// `netutils.IsIPv6String`.
fn is_ipv6_string(ip: &str) -> bool {
    sloppy_ip::parse_ip(ip).is_some_and(|ip| sloppy_ip::as_net_ip(ip).is_ipv6())
}

/// `ValidateServiceClusterIPsRelatedFields` (nothing for ExternalName, checked before).
fn cluster_ips_related_fields(e: &mut Errors, svc: &Addresses, old: Option<&Addresses>) {
    if svc.kind == EXTERNAL_NAME {
        return;
    }
    let spec = FieldPath::new("spec");
    let ips_path = spec.child("clusterIPs");
    let families_path = spec.child("ipFamilies");
    let ips = svc.cluster_ips();
    let ips_value = || list_value(&svc.cluster_ips);
    if !svc.cluster_ip.is_empty() {
        if ips.is_empty() {
            e.required(&ips_path, "");
        } else if ips[0] != svc.cluster_ip {
            e.invalid_rendered(&ips_path, ips_value(), "first value must match `clusterIP`");
        }
    } else if !ips.is_empty() {
        e.invalid_rendered(
            &ips_path,
            ips_value(),
            "must be empty when `clusterIP` is not specified",
        );
    }
    let mut seen = Vec::new();
    for (i, family) in svc.families().iter().enumerate() {
        if family != "IPv4" && family != "IPv6" {
            e.not_supported_rendered(
                &families_path.index(i),
                go_json_quote(family),
                &["IPv4", "IPv6"],
            );
        }
        if seen.contains(&family) {
            e.duplicate_rendered(&families_path.index(i), go_json_quote(family));
        }
        seen.push(family);
    }
    if let Some(policy) = &svc.policy
        && ![SINGLE_STACK, PREFER_DUAL_STACK, REQUIRE_DUAL_STACK].contains(&policy.as_str())
    {
        e.not_supported_rendered(
            &spec.child("ipFamilyPolicy"),
            go_json_quote(policy),
            &[PREFER_DUAL_STACK, REQUIRE_DUAL_STACK, SINGLE_STACK],
        );
    }
    let existing = old.map(Addresses::cluster_ips).unwrap_or_default();
    let mut invalid_ips = false;
    for (i, ip) in ips.iter().enumerate() {
        if i == 0 && ip == NONE {
            if ips.len() > 1 {
                invalid_ips = true;
                e.invalid_rendered(
                    &ips_path,
                    ips_value(),
                    "'None' must be the first and only value",
                );
            }
            continue;
        }
        let found = legacy_ip(&ips_path.index(i), ip, existing);
        invalid_ips |= !found.is_empty();
        e.extend(found);
    }
    if ips.len() > 2 {
        e.invalid_rendered(&ips_path, ips_value(), "may only hold up to 2 values");
    }
    // Bad or misplaced IPs would skew the checks below.
    if invalid_ips {
        return;
    }
    if ips.len() > 1 {
        // netutils.IsDualStackIPStrings: an IP of each family. (An old object's value that
        // does not parse counts for neither; upstream adds an internal error for it.)
        let family =
            |ip: &String| sloppy_ip::parse_ip(ip).map(|ip| sloppy_ip::as_net_ip(ip).is_ipv6());
        let v6 = ips.iter().any(|ip| family(ip) == Some(true));
        let v4 = ips.iter().any(|ip| family(ip) == Some(false));
        if !(v4 && v6) {
            e.invalid_rendered(
                &ips_path,
                ips_value(),
                "may specify no more than one IP for each IP family",
            );
        }
    }
    if !svc.headless() && !ips.is_empty() {
        for (i, (ip, family)) in ips.iter().zip(svc.families()).enumerate() {
            let wanted = match (family.as_str(), is_ipv6_string(ip)) {
                ("IPv4", true) => "IPv4",
                ("IPv6", false) => "IPv6",
                _ => continue,
            };
            e.invalid(
                &ips_path.index(i),
                ip,
                &format!("expected an {wanted} value as indicated by `ipFamilies[{i}]`"),
            );
        }
    }
}

/// `IsValidIPForLegacyField` with strict validation: an IP `ParseIPSloppy` reads, without
/// leading zeros, not IPv4-mapped — or one of the old object's values.
fn legacy_ip(path: &FieldPath, value: &str, valid_old: &[String]) -> Vec<FieldError> {
    let mut e = Errors::default();
    if valid_old.iter().any(|v| v == value) {
        return Vec::new();
    }
    if sloppy_ip::parse_ip(value).is_none() {
        e.invalid(
            path,
            value,
            "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
        );
    } else {
        match parse_addr(value) {
            // What the sloppy parser reads and netip.ParseAddr does not has leading zeros.
            Err(_) => e.invalid(path, value, "must not have leading 0s"),
            Ok(a) if is_4in6(&a.ip) => {
                e.invalid(path, value, "must not be an IPv4-mapped IPv6 address");
            }
            Ok(_) => {}
        }
    }
    e.into_vec()
}

/// `IsValidCIDRForLegacyField` with strict validation: a CIDR `ParseCIDRSloppy` reads,
/// without leading zeros, not IPv4-mapped, no bits set beyond the prefix length — or one
/// of the old object's values.
pub(super) fn legacy_cidr(path: &FieldPath, value: &str, valid_old: &[String]) -> Vec<FieldError> {
    let mut e = Errors::default();
    if valid_old.iter().any(|v| v == value) {
        return Vec::new();
    }
    if sloppy_ip::parse_cidr(value).is_none() {
        e.invalid(
            path,
            value,
            "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        );
    } else {
        match parse_prefix(value) {
            Err(_) => e.invalid(
                path,
                value,
                "must not have leading 0s in IP or prefix length",
            ),
            Ok((a, _)) if is_4in6(&a.ip) => {
                e.invalid(path, value, "must not have an IPv4-mapped IPv6 address");
            }
            Ok((a, bits)) if (Cidr { addr: a.ip, bits }).masked().addr != a.ip => {
                e.invalid(
                    path,
                    value,
                    "must not have bits set beyond the prefix length",
                );
            }
            Ok(_) => {}
        }
    }
    e.into_vec()
}

/// `ValidateEndpointIP`: no unspecified, loopback, link-local or link-local multicast
/// address (as `net.IP` sees it: an IPv4-mapped address as IPv4).
fn endpoint_ip(e: &mut Errors, path: &FieldPath, value: &str) {
    let Some(ip) = sloppy_ip::parse_ip(value) else {
        e.invalid(path, value, "must be a valid IP address");
        return;
    };
    let ip: IpAddr = sloppy_ip::as_net_ip(ip);
    if ip.is_unspecified() {
        e.invalid(path, value, &format!("may not be unspecified ({value})"));
    }
    if ip.is_loopback() {
        e.invalid(
            path,
            value,
            "may not be in the loopback range (127.0.0.0/8, ::1/128)",
        );
    }
    if link_local_unicast(&ip) {
        e.invalid(
            path,
            value,
            "may not be in the link-local range (169.254.0.0/16, fe80::/10)",
        );
    }
    if link_local_multicast(&ip) {
        e.invalid(
            path,
            value,
            "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)",
        );
    }
}

impl Prepared {
    /// The object's addresses as validation sees them.
    pub(super) fn object(&self) -> &Addresses {
        &self.new
    }

    /// `ValidateServiceUpdate`'s `validateUpgradeDowngradeClusterIPs` and
    /// `validateUpgradeDowngradeIPFamilies` (nothing on create): the primary cluster IP and
    /// family may not change, a secondary one is released only with `SingleStack`.
    pub(super) fn update_rules(&self, e: &mut Errors) {
        let Some(old) = &self.old else {
            return;
        };
        let new = &self.new;
        if new.kind == EXTERNAL_NAME || old.kind == EXTERNAL_NAME {
            return;
        }
        let spec = FieldPath::new("spec");
        let policy_path = spec.child("ipFamilyPolicy");
        let not_single = new.policy.as_deref() != Some(SINGLE_STACK);
        // Cluster IPs (not between two headless Services).
        let ips_path = spec.child("clusterIPs");
        let (o, n) = (old.cluster_ips(), new.cluster_ips());
        let ips_value = list_value(&new.cluster_ips);
        if !(old.headless() && new.headless()) {
            if o.len() == n.len() {
                for (i, ip) in o.iter().enumerate() {
                    if *ip != n[i] {
                        e.invalid_rendered(&ips_path.index(i), ips_value.clone(), CHANGED);
                    }
                }
            } else if o.len() > n.len() {
                if n.is_empty() {
                    e.invalid_rendered(
                        &ips_path.index(0),
                        ips_value.clone(),
                        "primary clusterIP can not be unset",
                    );
                }
                if !o.is_empty() && !n.is_empty() && n[0] != o[0] {
                    e.invalid_rendered(&ips_path.index(0), ips_value.clone(), CHANGED);
                }
                if n.len() == 1 && not_single {
                    e.invalid_rendered(
                        &policy_path,
                        new.policy_value(),
                        "must be set to 'SingleStack' when releasing the secondary clusterIP",
                    );
                }
            } else if !o.is_empty() && n[0] != o[0] {
                e.invalid_rendered(&ips_path.index(0), ips_value.clone(), CHANGED);
            }
        }
        // Families (not when either Service is headless). The allocator fills an unset list
        // from the cluster IPs or the cluster's default family before this upstream, so an
        // empty one is not compared here.
        if old.headless() || new.headless() || new.families().is_empty() {
            return;
        }
        let families_path = spec.child("ipFamilies").index(0);
        let (o, n) = (old.families(), new.families());
        let families_value = list_value(&new.families);
        if o.len() == n.len() {
            for (i, family) in o.iter().enumerate() {
                if *family != n[i] {
                    e.invalid_rendered(&families_path, families_value.clone(), CHANGED);
                }
            }
        } else if o.len() > n.len() {
            // (Upstream tests the cluster IPs here.)
            if new.cluster_ips().is_empty() {
                e.invalid_rendered(
                    &families_path,
                    families_value,
                    "primary ipFamily can not be unset",
                );
            }
            // (And shows the cluster IPs here.)
            if n[0] != o[0] {
                e.invalid_rendered(&families_path, ips_value.clone(), CHANGED);
            }
            if n.len() == 1 && not_single {
                e.invalid_rendered(
                    &policy_path,
                    new.policy_value(),
                    "must be set to 'SingleStack' when releasing the secondary ipFamily",
                );
            }
        } else if !o.is_empty() && n[0] != o[0] {
            e.invalid_rendered(&families_path, ips_value, CHANGED);
        }
    }

    /// `validateService`'s `ValidateServiceClusterIPsRelatedFields`, then each external IP:
    /// a legacy IP (or the old object's), then `ValidateEndpointIP`.
    pub(super) fn cluster_and_external_ips(&self, e: &mut Errors) {
        cluster_ips_related_fields(e, &self.new, self.old.as_ref());
        let existing = self
            .old
            .as_ref()
            .map(|o| o.external_ips.as_slice())
            .unwrap_or_default();
        let path = FieldPath::new("spec").child("externalIPs");
        for (i, ip) in self.new.external_ips.iter().enumerate() {
            let at = path.index(i);
            let found = legacy_ip(&at, ip, existing);
            if found.is_empty() {
                endpoint_ip(e, &at, ip);
            } else {
                e.extend(found);
            }
        }
    }

    /// `validateService`'s source ranges: `spec.loadBalancerSourceRanges` (reported as
    /// upstream spells it, `spec.LoadBalancerSourceRanges`) only for a LoadBalancer, each
    /// value trimmed and a legacy CIDR (or one of the old object's); without the field, the
    /// annotation likewise, its comma-separated values when it changed.
    pub(super) fn source_ranges(&self, e: &mut Errors) {
        let new = &self.new;
        let load_balancer = new.kind == "LoadBalancer";
        if !new.source_ranges.is_empty() {
            let path = FieldPath::new("spec").child("LoadBalancerSourceRanges");
            if !load_balancer {
                e.forbidden(&path, ONLY_LOAD_BALANCER);
            }
            let existing: Vec<String> = self
                .old
                .as_ref()
                .map(|o| {
                    o.source_ranges
                        .iter()
                        .map(|v| v.trim().to_string())
                        .collect()
                })
                .unwrap_or_default();
            for (i, value) in new.source_ranges.iter().enumerate() {
                // (Upstream allows space around the values, a leftover of the annotation.)
                e.extend(legacy_cidr(&path.index(i), value.trim(), &existing));
            }
        } else if let Some(value) = &new.source_ranges_annotation {
            let path = FieldPath::new("metadata")
                .child("annotations")
                .key(SOURCE_RANGES_ANNOTATION);
            if !load_balancer {
                e.forbidden(&path, ONLY_LOAD_BALANCER);
            }
            let unchanged = self.old.as_ref().is_some_and(|o| {
                o.source_ranges_annotation.as_deref().unwrap_or_default() == value
            });
            let value = value.trim();
            if !unchanged && !value.is_empty() {
                for cidr in value.split(',') {
                    e.extend(legacy_cidr(&path, cidr.trim(), &[]));
                }
            }
        }
    }
}
