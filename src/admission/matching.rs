//! Which requests a policy or binding applies to: resource rules, exclusions and label
//! selectors (Kubernetes' `generic` policy matcher with `matchPolicy: Exact`).

use std::collections::BTreeMap;

use super::types::{AdmissionRequest, LabelSelector, MatchResources, NamedRuleWithOperations};

/// Labels of a JSON object (`metadata.labels`), empty when absent.
pub fn labels_of(object: Option<&serde_json::Value>) -> BTreeMap<String, String> {
    object
        .and_then(|o| o.pointer("/metadata/labels"))
        .and_then(|l| l.as_object())
        .map(|l| {
            l.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `labels` satisfy `selector` (all `matchLabels` and `matchExpressions`).
/// An unknown operator matches nothing.
pub fn selector_matches(selector: &LabelSelector, labels: &BTreeMap<String, String>) -> bool {
    selector
        .match_labels
        .iter()
        .all(|(k, v)| labels.get(k) == Some(v))
        && selector.match_expressions.iter().all(|e| {
            let value = labels.get(&e.key);
            match e.operator.as_str() {
                "In" => value.is_some_and(|v| e.values.contains(v)),
                "NotIn" => value.is_none_or(|v| !e.values.contains(v)),
                "Exists" => value.is_some(),
                "DoesNotExist" => value.is_none(),
                _ => false,
            }
        })
}

fn listed(list: &[String], value: &str) -> bool {
    list.iter().any(|x| x == "*" || x == value)
}

fn resource_matches(patterns: &[String], resource: &str, subresource: &str) -> bool {
    patterns.iter().any(|p| {
        if p == "*/*" {
            return true;
        }
        match p.split_once('/') {
            Some((res, sub)) => {
                (res == "*" || res == resource) && (sub == "*" || sub == subresource)
            }
            None => subresource.is_empty() && (p == "*" || p == resource),
        }
    })
}

fn is_namespace_resource(request: &AdmissionRequest) -> bool {
    request.resource.group.is_empty() && request.resource.resource == "namespaces"
}

/// Whether one rule matches the request.
pub fn rule_matches(rule: &NamedRuleWithOperations, request: &AdmissionRequest) -> bool {
    let scope = match rule.scope.as_deref() {
        Some("Namespaced") => !is_namespace_resource(request) && !request.namespace.is_empty(),
        Some("Cluster") => is_namespace_resource(request) || request.namespace.is_empty(),
        _ => true,
    };
    scope
        && listed(&rule.operations, &request.operation)
        && listed(&rule.api_groups, &request.resource.group)
        && listed(&rule.api_versions, &request.resource.version)
        && resource_matches(
            &rule.resources,
            &request.resource.resource,
            &request.sub_resource,
        )
        && (rule.resource_names.is_empty() || rule.resource_names.contains(&request.name))
}

/// The labels of the request's namespace for `namespaceSelector`: the namespace object's
/// labels, or (for a Namespace itself) the object's own; `None` for cluster-scoped
/// resources, which every namespace selector matches.
fn namespace_labels(
    request: &AdmissionRequest,
    namespace: Option<&serde_json::Value>,
) -> Option<BTreeMap<String, String>> {
    if is_namespace_resource(request) {
        let object = request.object.as_ref().or(request.old_object.as_ref());
        return Some(labels_of(object));
    }
    if request.namespace.is_empty() {
        return None;
    }
    Some(labels_of(namespace))
}

/// Whether `resources` matches the request. With `constrain_rules` false (a binding), empty
/// `resourceRules` do not constrain.
pub fn matches(
    resources: &MatchResources,
    request: &AdmissionRequest,
    namespace: Option<&serde_json::Value>,
    constrain_rules: bool,
) -> bool {
    if let Some(selector) = &resources.namespace_selector
        && let Some(labels) = namespace_labels(request, namespace)
        && !selector_matches(selector, &labels)
    {
        return false;
    }
    if let Some(selector) = &resources.object_selector
        && !(selector.match_labels.is_empty() && selector.match_expressions.is_empty())
    {
        let matches = |o: Option<&serde_json::Value>| {
            o.is_some_and(|_| selector_matches(selector, &labels_of(o)))
        };
        if !matches(request.object.as_ref()) && !matches(request.old_object.as_ref()) {
            return false;
        }
    }
    if resources
        .exclude_resource_rules
        .iter()
        .any(|r| rule_matches(r, request))
    {
        return false;
    }
    if !constrain_rules && resources.resource_rules.is_empty() {
        return true;
    }
    resources
        .resource_rules
        .iter()
        .any(|r| rule_matches(r, request))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::types::LabelSelectorRequirement;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn selectors() {
        let sel = LabelSelector {
            match_labels: labels(&[("env", "prod")]),
            match_expressions: vec![LabelSelectorRequirement {
                key: "tier".into(),
                operator: "NotIn".into(),
                values: vec!["db".into()],
            }],
        };
        assert!(selector_matches(&sel, &labels(&[("env", "prod")])));
        assert!(!selector_matches(
            &sel,
            &labels(&[("env", "prod"), ("tier", "db")])
        ));
        assert!(!selector_matches(&sel, &labels(&[])));
        assert!(selector_matches(&LabelSelector::default(), &labels(&[])));
    }

    #[test]
    fn subresources_and_wildcards() {
        let pats = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(resource_matches(&pats(&["pods"]), "pods", ""));
        assert!(!resource_matches(&pats(&["pods"]), "pods", "status"));
        assert!(!resource_matches(&pats(&["*"]), "pods", "status"));
        assert!(resource_matches(&pats(&["*/status"]), "pods", "status"));
        assert!(resource_matches(&pats(&["pods/*"]), "pods", "log"));
        assert!(resource_matches(&pats(&["*/*"]), "pods", ""));
    }
}
