//! Whether a user already holds the permissions a Role, ClusterRole or binding grants
//! (kubernetes `pkg/registry/rbac/validation`: `policy_comparator.go` `Covers`, `rule.go`
//! `ConfirmNoEscalation`, `compact.go` `CompactRules`; `pkg/apis/rbac/v1/helpers.go`
//! `CompactString`). Every granted rule is broken down to one verb, group, resource and name
//! (or one verb and non-resource URL) each, and each piece must be covered by one rule the
//! user holds; the pieces left are the 403's list, compacted and sorted as upstream's.

use std::collections::{BTreeMap, BTreeSet};

use super::resolver::{RbacObjects, RoleRefError, aggregate};
use super::rules::PolicyRule;
use crate::access_request::User;

/// `*`: every verb, API group or resource.
const ALL: &str = "*";

/// A write that would grant permissions its author does not hold: upstream's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "user {user:?} (groups={}) is attempting to grant RBAC permissions not currently held:\n{}{}",
    go_quoted(groups),
    missing.join("\n"),
    resolution_errors(unresolved)
)]
pub struct Escalation {
    /// The author's name.
    pub user: String,
    /// The author's groups.
    pub groups: Vec<String>,
    /// The rules not held, as [`compact_string`]s, sorted, each once.
    pub missing: Vec<String>,
    /// The author's role references that did not resolve (their rules may be missing).
    pub unresolved: Vec<RoleRefError>,
}

/// Go's `%q` of a `[]string`: `["a" "b"]`.
fn go_quoted(list: &[String]) -> String {
    let quoted: Vec<String> = list.iter().map(|s| format!("{s:?}")).collect();
    format!("[{}]", quoted.join(" "))
}

/// `; resolution errors: [<aggregate>]` when the author's rules could not all be resolved.
fn resolution_errors(unresolved: &[RoleRefError]) -> String {
    if unresolved.is_empty() {
        return String::new();
    }
    let texts: Vec<String> = unresolved.iter().map(ToString::to_string).collect();
    format!("; resolution errors: [{}]", aggregate(&texts))
}

/// Checks that `user` holds every rule of `rules` in `namespace` (empty: cluster-wide) through
/// the RBAC objects (`ConfirmNoEscalation`).
pub fn confirm_no_escalation(
    objects: &RbacObjects,
    user: &User,
    namespace: &str,
    rules: &[PolicyRule],
) -> Result<(), Escalation> {
    let (owned, unresolved) = objects.rules_for(user, namespace);
    let missing = uncovered(&owned, rules);
    if missing.is_empty() {
        return Ok(());
    }
    let missing: BTreeSet<String> = compact(missing).iter().map(compact_string).collect();
    Err(Escalation {
        user: user.name.clone(),
        groups: user.groups.clone(),
        missing: missing.into_iter().collect(),
        unresolved,
    })
}

/// The pieces of `servant` no rule of `owner` covers (`Covers`).
pub fn uncovered(owner: &[PolicyRule], servant: &[PolicyRule]) -> Vec<PolicyRule> {
    servant
        .iter()
        .flat_map(breakdown)
        .filter(|piece| !owner.iter().any(|o| rule_covers(o, piece)))
        .collect()
}

/// One rule as rules of one group, resource, verb and name each, then one verb and URL each
/// (`BreakdownRule`).
pub fn breakdown(rule: &PolicyRule) -> Vec<PolicyRule> {
    let one = |s: &String| vec![s.clone()];
    let mut pieces = Vec::new();
    for group in &rule.api_groups {
        for resource in &rule.resources {
            for verb in &rule.verbs {
                let piece = PolicyRule {
                    verbs: one(verb),
                    api_groups: one(group),
                    resources: one(resource),
                    ..PolicyRule::default()
                };
                if rule.resource_names.is_empty() {
                    pieces.push(piece);
                } else {
                    for name in &rule.resource_names {
                        pieces.push(PolicyRule {
                            resource_names: one(name),
                            ..piece.clone()
                        });
                    }
                }
            }
        }
    }
    for url in &rule.non_resource_urls {
        for verb in &rule.verbs {
            pieces.push(PolicyRule {
                verbs: one(verb),
                non_resource_urls: one(url),
                ..PolicyRule::default()
            });
        }
    }
    pieces
}

fn has(set: &[String], item: &str) -> bool {
    set.iter().any(|s| s == item)
}

fn has_all(set: &[String], items: &[String]) -> bool {
    items.iter().all(|i| has(set, i))
}

/// `*`, every resource, or for a subresource `*/<subresource>` (`resourceCoversAll`).
fn resources_cover(set: &[String], resources: &[String]) -> bool {
    if has(set, ALL) || has_all(set, resources) {
        return true;
    }
    resources.iter().all(|path| {
        has(set, path)
            || path
                .split_once('/')
                .is_some_and(|(_, sub)| has(set, &format!("*/{sub}")))
    })
}

/// Each URL equal to one of `set`, or under one ending in `*` (`nonResourceURLsCoversAll`).
fn urls_cover(set: &[String], urls: &[String]) -> bool {
    urls.iter().all(|path| {
        set.iter().any(|owner| {
            owner == path || (owner.ends_with('*') && path.starts_with(owner.trim_end_matches('*')))
        })
    })
}

/// Whether `owner` covers the broken-down `piece` (`ruleCovers`).
fn rule_covers(owner: &PolicyRule, piece: &PolicyRule) -> bool {
    let verbs = has(&owner.verbs, ALL) || has_all(&owner.verbs, &piece.verbs);
    let groups = has(&owner.api_groups, ALL) || has_all(&owner.api_groups, &piece.api_groups);
    let names = owner.resource_names.is_empty()
        || (!piece.resource_names.is_empty()
            && has_all(&owner.resource_names, &piece.resource_names));
    verbs
        && groups
        && resources_cover(&owner.resources, &piece.resources)
        && names
        && urls_cover(&owner.non_resource_urls, &piece.non_resource_urls)
}

/// Merges the rules of one group, one resource and at most one name that differ only by
/// verb (`CompactRules`; the others are kept as they are).
pub fn compact(rules: Vec<PolicyRule>) -> Vec<PolicyRule> {
    let mut simple: BTreeMap<(String, String, Option<String>), PolicyRule> = BTreeMap::new();
    let mut compacted = Vec::new();
    for rule in rules {
        let is_simple = rule.resource_names.len() <= 1
            && rule.non_resource_urls.is_empty()
            && rule.api_groups.len() == 1
            && rule.resources.len() == 1;
        if !is_simple {
            compacted.push(rule);
            continue;
        }
        let key = (
            rule.api_groups[0].clone(),
            rule.resources[0].clone(),
            rule.resource_names.first().cloned(),
        );
        match simple.get_mut(&key) {
            Some(existing) => existing.verbs.extend(rule.verbs),
            None => {
                simple.insert(key, rule);
            }
        }
    }
    compacted.extend(simple.into_values());
    compacted
}

/// A rule as the 403 lists it: `{APIGroups:["g"], Resources:["r"], NonResourceURLs:[...],
/// ResourceNames:[...], Verbs:["v"]}`, empty lists left out (`CompactString`).
pub fn compact_string(rule: &PolicyRule) -> String {
    let parts: Vec<String> = [
        ("APIGroups", &rule.api_groups),
        ("Resources", &rule.resources),
        ("NonResourceURLs", &rule.non_resource_urls),
        ("ResourceNames", &rule.resource_names),
        ("Verbs", &rule.verbs),
    ]
    .into_iter()
    .filter(|(_, list)| !list.is_empty())
    .map(|(label, list)| format!("{label}:{}", go_quoted(list)))
    .collect();
    format!("{{{}}}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &str) -> Vec<String> {
        items.split(',').map(str::to_owned).collect()
    }

    /// verbs; groups (`""` the core group); resources; names (`""` none)
    fn rule(verbs: &str, groups: &str, resources: &str, names: &str) -> PolicyRule {
        PolicyRule {
            verbs: list(verbs),
            api_groups: list(groups),
            resources: list(resources),
            resource_names: if names.is_empty() {
                Vec::new()
            } else {
                list(names)
            },
            ..PolicyRule::default()
        }
    }

    fn urls(verbs: &str, urls: &str) -> PolicyRule {
        PolicyRule {
            verbs: list(verbs),
            non_resource_urls: list(urls),
            ..PolicyRule::default()
        }
    }

    fn covers(owner: &[PolicyRule], servant: &[PolicyRule]) -> bool {
        uncovered(owner, servant).is_empty()
    }

    /// Cases of upstream's pkg/registry/rbac/validation/policy_comparator_test.go.
    #[test]
    fn upstreams_covers_cases() {
        // "exact match", "partial match" (servant asks for less), "partial miss".
        let owner = [rule("get,list,watch", "v1,v2", "pods,builds", "")];
        assert!(covers(&owner, &[rule("get", "v1", "builds", "")]));
        assert!(covers(&owner, &owner));
        let servant = [rule("get,delete", "v1", "builds", "")];
        assert_eq!(
            uncovered(&owner, &servant),
            [rule("delete", "v1", "builds", "")]
        );
        // "multiple subrules with one owner", split over several owner rules.
        let owner = [
            rule("get", "v1", "pods", ""),
            rule("list", "v1", "pods", ""),
        ];
        assert!(covers(&owner, &[rule("get,list", "v1", "pods", "")]));
        // "star verb", "star group", "star resource".
        assert!(covers(
            &[rule("*", "*", "*", "")],
            &[rule("get,impersonate", "apps,", "deployments,users", "")]
        ));
        // resource names: an owner limited to names covers those names only, and never a
        // request for every name.
        let named = [rule("get", "", "secrets", "a,b")];
        assert!(covers(&named, &[rule("get", "", "secrets", "a")]));
        assert!(!covers(&named, &[rule("get", "", "secrets", "c")]));
        assert!(!covers(&named, &[rule("get", "", "secrets", "")]));
        assert!(covers(
            &[rule("get", "", "secrets", "")],
            &[rule("get", "", "secrets", "c")]
        ));
        // "*/subresource" covers any resource's subresource, not the resource itself.
        let scale = [rule("get", "apps", "*/scale", "")];
        assert!(covers(
            &scale,
            &[rule("get", "apps", "deployments/scale", "")]
        ));
        assert!(!covers(&scale, &[rule("get", "apps", "deployments", "")]));
        // non-resource URLs: exact, or under a trailing `*`.
        let owner = [urls("get", "/apis/*,/healthz")];
        assert!(covers(&owner, &[urls("get", "/apis/apps,/healthz")]));
        assert!(!covers(&owner, &[urls("get", "/api")]));
        assert!(!covers(&owner, &[urls("post", "/healthz")]));
        assert!(covers(&[urls("*", "*")], &[urls("get,post", "/x")]));
    }

    #[test]
    fn missing_rules_are_compacted_and_worded_as_upstream() {
        let missing = uncovered(
            &[rule("get", "", "configmaps", "")],
            &[
                rule("get,list,watch", "", "configmaps,secrets", ""),
                urls("get", "/metrics"),
                rule("get,update", "apps", "deployments", "web"),
            ],
        );
        let mut texts: Vec<String> = compact(missing).iter().map(compact_string).collect();
        texts.sort();
        assert_eq!(
            texts,
            [
                "{APIGroups:[\"\"], Resources:[\"configmaps\"], Verbs:[\"list\" \"watch\"]}",
                "{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" \"list\" \"watch\"]}",
                "{APIGroups:[\"apps\"], Resources:[\"deployments\"], ResourceNames:[\"web\"], Verbs:[\"get\" \"update\"]}",
                "{NonResourceURLs:[\"/metrics\"], Verbs:[\"get\"]}",
            ]
        );
        let error = Escalation {
            user: "bob".to_owned(),
            groups: vec!["dev".to_owned(), "system:authenticated".to_owned()],
            missing: texts[..1].to_vec(),
            unresolved: vec![RoleRefError::NotFound {
                resource: "role",
                name: "x".to_owned(),
            }],
        };
        assert_eq!(
            error.to_string(),
            "user \"bob\" (groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC \
             permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"configmaps\"], \
             Verbs:[\"list\" \"watch\"]}; resolution errors: [role.rbac.authorization.k8s.io \"x\" \
             not found]"
        );
    }
}
