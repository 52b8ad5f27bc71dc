//! One RBAC `PolicyRule` and whether it allows a request (kubernetes
//! `plugin/pkg/auth/authorizer/rbac/rbac.go` `RuleAllows`, with the matchers of
//! `pkg/apis/rbac/v1/evaluation_helpers.go`): every list must match, `*` matches anything,
//! a resource may be `resource/subresource` or `*/subresource`, `resourceNames` limit a rule
//! to requests that name one of them, and a non-resource URL ending in `*` matches a prefix.

use serde::{Deserialize, Serialize};

use crate::access_request::Attributes;

/// `*`: every verb, API group, resource or non-resource URL.
const ALL: &str = "*";

/// An RBAC `PolicyRule` as stored in a Role or ClusterRole (written with every list; the
/// write path encodes it as upstream's Go type does: [`crate::defaults::go_round_trip`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PolicyRule {
    /// The verbs it allows (`*`: all).
    #[serde(deserialize_with = "nullable")]
    pub verbs: Vec<String>,
    /// The API groups of the resources (`""` the core group, `*` all).
    #[serde(deserialize_with = "nullable")]
    pub api_groups: Vec<String>,
    /// The resources (`pods`, `pods/status`, `*/scale`, `*`).
    #[serde(deserialize_with = "nullable")]
    pub resources: Vec<String>,
    /// The names the rule is limited to (empty: any).
    #[serde(deserialize_with = "nullable")]
    pub resource_names: Vec<String>,
    /// The non-resource URLs (`/healthz`, `/apis/*`, `*`).
    #[serde(rename = "nonResourceURLs", deserialize_with = "nullable")]
    pub non_resource_urls: Vec<String>,
}

/// A list that may be `null` in the stored object (read as empty).
pub(super) fn nullable<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// Whether `rule` allows the request (`RuleAllows`).
pub fn rule_allows(attrs: &Attributes, rule: &PolicyRule) -> bool {
    if !attrs.resource_request {
        return verb_matches(rule, &attrs.verb) && non_resource_url_matches(rule, &attrs.path);
    }
    let combined = if attrs.subresource.is_empty() {
        attrs.resource.clone()
    } else {
        format!("{}/{}", attrs.resource, attrs.subresource)
    };
    verb_matches(rule, &attrs.verb)
        && api_group_matches(rule, &attrs.group)
        && resource_matches(rule, &combined, &attrs.subresource)
        && resource_name_matches(rule, &attrs.name)
}

fn verb_matches(rule: &PolicyRule, verb: &str) -> bool {
    rule.verbs.iter().any(|v| v == ALL || v == verb)
}

fn api_group_matches(rule: &PolicyRule, group: &str) -> bool {
    rule.api_groups.iter().any(|g| g == ALL || g == group)
}

/// `*`, the exact `resource[/subresource]`, or `*/<subresource>` for a subresource request.
fn resource_matches(rule: &PolicyRule, combined: &str, subresource: &str) -> bool {
    rule.resources.iter().any(|r| {
        r == ALL
            || r == combined
            || (!subresource.is_empty()
                && r.strip_prefix("*/").is_some_and(|sub| sub == subresource))
    })
}

/// No names: any request; else the request's name (a request without a name, such as a
/// list or a create, matches none).
fn resource_name_matches(rule: &PolicyRule, name: &str) -> bool {
    rule.resource_names.is_empty() || rule.resource_names.iter().any(|n| n == name)
}

fn non_resource_url_matches(rule: &PolicyRule, path: &str) -> bool {
    rule.non_resource_urls.iter().any(|url| {
        url == ALL
            || url == path
            || (url.ends_with('*') && path.starts_with(url.trim_end_matches('*')))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn rule(verbs: &[&str], groups: &[&str], resources: &[&str]) -> PolicyRule {
        PolicyRule {
            verbs: list(verbs),
            api_groups: list(groups),
            resources: list(resources),
            ..PolicyRule::default()
        }
    }

    fn urls(verbs: &[&str], urls: &[&str]) -> PolicyRule {
        PolicyRule {
            verbs: list(verbs),
            non_resource_urls: list(urls),
            ..PolicyRule::default()
        }
    }

    fn resource(verb: &str, group: &str, resource: &str, sub: &str) -> Attributes {
        Attributes {
            verb: verb.to_owned(),
            resource_request: true,
            group: group.to_owned(),
            resource: resource.to_owned(),
            subresource: sub.to_owned(),
            ..Attributes::default()
        }
    }

    fn path(verb: &str, path: &str) -> Attributes {
        Attributes {
            verb: verb.to_owned(),
            path: path.to_owned(),
            ..Attributes::default()
        }
    }

    /// Each of upstream's `TestRuleMatches` cases (plugin/pkg/auth/authorizer/rbac/rbac_test.go)
    /// over the eight combinations of two verbs, groups and resources.
    fn grid(rule: &PolicyRule, sub: &str) -> Vec<bool> {
        let mut out = Vec::new();
        for verb in ["verb1", "verb2"] {
            for (group, res) in [
                ("group1", "resource1"),
                ("group2", "resource1"),
                ("group1", "resource2"),
                ("group2", "resource2"),
            ] {
                out.push(rule_allows(&resource(verb, group, res, sub), rule));
            }
        }
        out
    }

    #[test]
    fn upstreams_rule_matches_for_resources() {
        let (t, f) = (true, false);
        // "star verb, exact match other"
        let r = rule(&["*"], &["group1"], &["resource1"]);
        assert_eq!(grid(&r, ""), [t, f, f, f, t, f, f, f]);
        // "star group, exact match other"
        let r = rule(&["verb1"], &["*"], &["resource1"]);
        assert_eq!(grid(&r, ""), [t, t, f, f, f, f, f, f]);
        // "star resource, exact match other"
        let r = rule(&["verb1"], &["group1"], &["*"]);
        assert_eq!(grid(&r, ""), [t, f, t, f, f, f, f, f]);
        // "tuple expansion"
        let r = rule(
            &["verb1", "verb2"],
            &["group1", "group2"],
            &["resource1", "resource2"],
        );
        assert_eq!(grid(&r, ""), [t; 8]);
        // "subresource expansion": only resource1/subresource1 matches.
        let r = rule(&["*"], &["*"], &["resource1/subresource1"]);
        assert_eq!(grid(&r, "subresource1"), [t, t, f, f, t, t, f, f]);
        assert!(!rule_allows(
            &resource("verb1", "group2", "resource1", "subresource2"),
            &r
        ));
    }

    #[test]
    fn upstreams_rule_matches_for_urls() {
        let paths = [
            "/foo",
            "/foo/bar",
            "/foo/baz",
            "/foo/bar/one",
            "/foo/baz/one",
        ];
        let matched = |rule: &PolicyRule, verb: &str| -> Vec<bool> {
            paths
                .iter()
                .map(|p| rule_allows(&path(verb, p), rule))
                .collect()
        };
        // "star nonresource, exact match other"
        let r = urls(&["verb1"], &["*"]);
        assert_eq!(matched(&r, "verb1"), [true; 5]);
        assert_eq!(matched(&r, "verb2"), [false; 5]);
        // "star nonresource subpath": `/foo/*` is not `/foo`, nor `/notfoo/...`.
        let r = urls(&["verb1"], &["/foo/*"]);
        assert_eq!(matched(&r, "verb1"), [false, true, true, true, true]);
        assert!(!rule_allows(&path("verb1", "/notfoo/bar"), &r));
        // "star verb, exact nonresource"
        let r = urls(&["*"], &["/foo", "/foo/bar/one"]);
        assert_eq!(matched(&r, "verb2"), [true, false, false, true, false]);
    }

    #[test]
    fn upstreams_subresource_resolution() {
        // TestAuthorizer's subresource cases: `pods` is not `pods/status`, nor the reverse.
        let pods = rule(&["*"], &["*"], &["pods"]);
        assert!(rule_allows(&resource("get", "", "pods", ""), &pods));
        assert!(!rule_allows(&resource("get", "", "pods", "status"), &pods));
        let status = rule(&["*"], &["*"], &["pods/status"]);
        assert!(rule_allows(&resource("get", "", "pods", "status"), &status));
        assert!(!rule_allows(&resource("get", "", "pods", ""), &status));
        // `*/scale` matches any resource's scale, and nothing without a subresource.
        let scale = rule(&["get"], &["*"], &["*/scale"]);
        assert!(rule_allows(
            &resource("get", "apps", "deployments", "scale"),
            &scale
        ));
        assert!(!rule_allows(
            &resource("get", "apps", "deployments", "status"),
            &scale
        ));
        assert!(!rule_allows(
            &resource("get", "apps", "deployments", ""),
            &scale
        ));
    }

    #[test]
    fn resource_names_need_a_named_request() {
        let named = PolicyRule {
            resource_names: list(&["a"]),
            ..rule(&["get", "list"], &[""], &["configmaps"])
        };
        let mut get = resource("get", "", "configmaps", "");
        get.name = "a".to_owned();
        assert!(rule_allows(&get, &named));
        get.name = "b".to_owned();
        assert!(!rule_allows(&get, &named));
        assert!(!rule_allows(
            &resource("list", "", "configmaps", ""),
            &named
        ));
    }

    #[test]
    fn rules_are_written_as_upstreams_json() {
        // `PolicyRule`'s JSON tags: `verbs` always, the other lists `omitempty`; the write
        // path's round trip through the Go types leaves the empty ones out.
        let rule = urls(&["get"], &["/healthz"]);
        let mut role = serde_json::Map::new();
        role.insert(
            "rules".to_owned(),
            serde_json::json!([serde_json::to_value(&rule).unwrap()]),
        );
        crate::defaults::go_round_trip(&crate::resource::CLUSTERROLES, &mut role);
        assert_eq!(
            role["rules"],
            serde_json::json!([{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}])
        );
    }

    #[test]
    fn stored_rules_decode_with_nulls() {
        let rule: PolicyRule = serde_json::from_value(serde_json::json!({
            "verbs": ["get"], "apiGroups": null, "nonResourceURLs": ["/healthz"]
        }))
        .unwrap();
        assert_eq!(rule.non_resource_urls, ["/healthz"]);
        assert!(rule.api_groups.is_empty());
    }
}
