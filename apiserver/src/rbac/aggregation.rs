//! ClusterRole aggregation (kubernetes `pkg/controller/clusterroleaggregation`,
//! `syncClusterRole`): a ClusterRole with an `aggregationRule` has the rules of the other
//! ClusterRoles its selectors pick — selector by selector, the picked roles in name order,
//! each rule once. The controller that writes them into the object is
//! `crate::routes::cluster_role_aggregation`; the authorizer computes the same rules when it
//! reads the objects ([`super::RbacObjects::new`]), so a role's change counts before the
//! write-back lands.

use std::collections::BTreeMap;

use kcel_stdlib::kubernetes::admission::selector_matches;

use super::objects::{AggregationRule, Role};
use super::rules::PolicyRule;

/// The rules `aggregation` gives the ClusterRole `name`, taken from `roles` (all ClusterRoles,
/// by name): upstream's `syncClusterRole` loop.
pub fn aggregated_rules(
    name: &str,
    aggregation: &AggregationRule,
    roles: &BTreeMap<&str, &Role>,
) -> Vec<PolicyRule> {
    let mut rules: Vec<PolicyRule> = Vec::new();
    for selector in &aggregation.cluster_role_selectors {
        for (other_name, other) in roles {
            if *other_name == name || !selector_matches(selector, &other.metadata.labels) {
                continue;
            }
            for rule in &other.rules {
                if !rules.contains(rule) {
                    rules.push(rule.clone());
                }
            }
        }
    }
    rules
}

/// The ClusterRoles among `roles` whose stored rules are not their aggregated rules, with
/// the rules they should have (what one pass of the controller writes), in name order.
pub fn out_of_date(roles: &[Role]) -> Vec<(String, Vec<PolicyRule>)> {
    let by_name: BTreeMap<&str, &Role> = roles
        .iter()
        .map(|r| (r.metadata.name.as_str(), r))
        .collect();
    by_name
        .values()
        .filter_map(|role| {
            let aggregation = role.aggregation_rule.as_ref()?;
            let rules = aggregated_rules(&role.metadata.name, aggregation, &by_name);
            (rules != role.rules).then(|| (role.metadata.name.clone(), rules))
        })
        .collect()
}
