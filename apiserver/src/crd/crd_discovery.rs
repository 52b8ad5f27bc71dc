//! Discovery of the custom resources: their groups (versions in kube-aware priority order,
//! the first preferred), and their entries in aggregated and legacy discovery, with
//! subresources, short names and categories.

use std::collections::BTreeMap;

use serde_json::Value;

use super::registry::{Crds, ServedVersion};
use kcel_stdlib::kubernetes::crd::compare_versions;

/// The groups of the served custom resources, each with its versions, highest priority
/// first.
pub fn groups(crds: &Crds) -> Vec<(String, Vec<String>)> {
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for crd in crds.all() {
        let versions = groups.entry(crd.group().to_owned()).or_default();
        for v in &crd.versions {
            if !versions.iter().any(|x| x == v.resource.version) {
                versions.push(v.resource.version.to_owned());
            }
        }
    }
    groups
        .into_iter()
        .map(|(g, mut vs)| {
            vs.sort_by(|a, b| compare_versions(b, a));
            (g, vs)
        })
        .collect()
}

/// Each served custom resource version of `group`/`version` with its CRD's categories.
type Served = (Vec<String>, &'static crate::resource::Resource);

fn versions(crds: &Crds, group: &str, version: &str) -> Vec<Served> {
    let mut out = Vec::new();
    for crd in crds.all() {
        if crd.group() != group {
            continue;
        }
        for v in &crd.versions {
            let v: &ServedVersion = v;
            if v.resource.version == version {
                out.push((crd.categories.clone(), v.resource));
            }
        }
    }
    out
}

/// The aggregated (`apidiscovery.k8s.io/v2`) resources of a group-version.
pub fn aggregated(crds: &Crds, group: &str, version: &str) -> Vec<Value> {
    versions(crds, group, version)
        .into_iter()
        .map(|(categories, r)| crate::discovery_entries::aggregated(r, &categories))
        .collect()
}

/// The legacy (`APIResourceList`) resources of a group-version.
pub fn legacy(crds: &Crds, group: &str, version: &str) -> Vec<Value> {
    versions(crds, group, version)
        .into_iter()
        .flat_map(|(categories, r)| crate::discovery_entries::legacy(r, &categories))
        .collect()
}
