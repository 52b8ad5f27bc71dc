//! A CRD's versions as Kubernetes ranks them and warns of them: the kube-aware version
//! priority (apimachinery `version.CompareKubeAwareVersionStrings`) and the `Warning:` text
//! of a request to a deprecated version (apiextensions-apiserver `crdHandler`: the version's
//! `deprecationWarning`, else `defaultDeprecationWarning`). `kcel validate` and the API
//! server both use them.

use std::cmp::Ordering;

use serde_json::Value as Json;

/// Kube-aware version priority: GA before beta before alpha, higher numbers first, then
/// other names in lexical order (`Greater`: `a` ranks higher).
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    fn parse(v: &str) -> Option<(u8, u64, u64)> {
        let rest = v.strip_prefix('v')?;
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let major: u64 = rest[..digits].parse().ok()?;
        let tail = &rest[digits..];
        if tail.is_empty() {
            return Some((3, major, 0));
        }
        for (word, rank) in [("beta", 2), ("alpha", 1)] {
            if let Some(n) = tail.strip_prefix(word) {
                let minor: u64 = if n.is_empty() { 0 } else { n.parse().ok()? };
                return Some((rank, major, minor));
            }
        }
        None
    }
    match (parse(a), parse(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => b.cmp(a),
    }
}

/// The `Warning:` text of a request to `version` (an item of the CRD's `spec.versions`)
/// when it is deprecated: its `deprecationWarning`, else `<group>/<version> <Kind> is
/// deprecated`, with `; use <group>/<v> <Kind>` naming the highest-ranked served version
/// that is not deprecated and ranks above it, if any. `None` when it is not deprecated.
pub fn deprecation_warning(spec: &Json, version: &Json) -> Option<String> {
    if version["deprecated"] != true {
        return None;
    }
    if let Some(w) = version["deprecationWarning"].as_str() {
        return Some(w.to_owned());
    }
    let text = |pointer: &str| spec.pointer(pointer).and_then(Json::as_str).unwrap_or("");
    let (group, kind) = (text("/group"), text("/names/kind"));
    let name = version["name"].as_str().unwrap_or("");
    let mut msg = format!("{group}/{name} {kind} is deprecated");
    let better = spec["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| v["served"] == true && v["deprecated"] != true)
        .filter_map(|v| v["name"].as_str())
        .filter(|v| compare_versions(name, v) == Ordering::Less)
        .max_by(|a, b| compare_versions(a, b));
    if let Some(b) = better {
        msg.push_str(&format!("; use {group}/{b} {kind}"));
    }
    Some(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kube_aware_version_order() {
        let mut vs = vec![
            "v1alpha1", "foo", "v2", "v1beta2", "v1", "v1beta1", "v10", "bar",
        ];
        vs.sort_by(|a, b| compare_versions(b, a));
        assert_eq!(
            vs,
            [
                "v10", "v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "bar", "foo"
            ]
        );
    }

    #[test]
    fn deprecation_warnings() {
        let spec = json!({"group": "example.com", "names": {"kind": "Widget"}, "versions": [
            {"name": "v1alpha1", "served": true, "deprecated": true},
            {"name": "v1beta1", "served": true, "deprecated": true, "deprecationWarning": "use v1"},
            {"name": "v1", "served": true},
            {"name": "v2", "served": false},
            {"name": "v3alpha1", "served": true, "deprecated": true}
        ]});
        let of = |i: usize| deprecation_warning(&spec, &spec["versions"][i]);
        assert_eq!(
            of(0).as_deref(),
            Some("example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget")
        );
        assert_eq!(of(1).as_deref(), Some("use v1"));
        assert_eq!(of(2), None);
        // GA ranks above any alpha, whatever the numbers.
        assert_eq!(
            of(4).as_deref(),
            Some("example.com/v3alpha1 Widget is deprecated; use example.com/v1 Widget")
        );
        // No served version that is not deprecated ranks above it.
        let alone = json!({"group": "example.com", "names": {"kind": "Widget"}, "versions": [
            {"name": "v1", "served": true, "deprecated": true},
            {"name": "v1beta1", "served": true}
        ]});
        assert_eq!(
            deprecation_warning(&alone, &alone["versions"][0]).as_deref(),
            Some("example.com/v1 Widget is deprecated")
        );
    }
}
