//! Which requests a policy or binding applies to: resource rules, exclusions and label
//! selectors, with `matchPolicy` (Kubernetes' policy matcher, `policy/matching`, and its
//! rule matcher, `webhook/predicates/rules`).

use std::collections::BTreeMap;

use super::api::{
    AdmissionRequest, GroupVersionKind, GroupVersionResource, LabelSelector, MatchPolicy,
    MatchResources, NamedRuleWithOperations,
};
use super::configuration_errors::{ConfigurationError, ConversionError};

/// What kube-apiserver's equivalent-resource registry knows: which resources are the same
/// objects served under other API groups or versions (`matchPolicy: Equivalent`), the kind
/// served at each, and how an object converts between them.
pub trait EquivalentResources: Send + Sync {
    /// The resources (the given one included or not) serving the same objects as
    /// `resource` with `subresource`, in preference order.
    fn equivalents(
        &self,
        resource: &GroupVersionResource,
        subresource: &str,
    ) -> Vec<GroupVersionResource>;

    /// The kind served at `resource` with `subresource`, if known.
    fn kind_for(
        &self,
        resource: &GroupVersionResource,
        subresource: &str,
    ) -> Option<GroupVersionKind>;

    /// Converts an object to `kind` (the request's object, when a rule matched an equivalent
    /// resource). The default only rewrites `apiVersion` and `kind`, which is the whole
    /// conversion for versions with the same schema; implement it for others.
    fn convert(
        &self,
        object: &serde_json::Value,
        kind: &GroupVersionKind,
    ) -> Result<serde_json::Value, ConversionError> {
        let mut object = object.clone();
        if let Some(map) = object.as_object_mut() {
            let api_version = if kind.group.is_empty() {
                kind.version.clone()
            } else {
                format!("{}/{}", kind.group, kind.version)
            };
            map.insert("apiVersion".into(), api_version.into());
            map.insert("kind".into(), kind.kind.clone().into());
        }
        Ok(object)
    }
}

/// A table of equivalent resources: groups of `(resource, subresource, kind)` entries that
/// serve the same objects.
#[derive(Clone, Debug, Default)]
pub struct ResourceTable {
    groups: Vec<Vec<(GroupVersionResource, String, GroupVersionKind)>>,
}

fn gvr(group: &str, version: &str, resource: &str) -> GroupVersionResource {
    GroupVersionResource {
        group: group.into(),
        version: version.into(),
        resource: resource.into(),
    }
}

fn gvk(group: &str, version: &str, kind: &str) -> GroupVersionKind {
    GroupVersionKind {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
    }
}

impl ResourceTable {
    /// An empty table: no resource has equivalents.
    pub fn new() -> ResourceTable {
        ResourceTable::default()
    }

    /// The built-in resources of kube-apiserver 1.37 served under several groups or
    /// versions: `horizontalpodautoscalers` (and `/status`) in `autoscaling/v1` and
    /// `autoscaling/v2`, and `events` in `v1` and `events.k8s.io/v1` (one storage).
    /// Custom resources with several served versions are the embedder's to add.
    pub fn builtin() -> ResourceTable {
        let mut table = ResourceTable::new();
        for sub in ["", "status"] {
            table.add_group(["v1", "v2"].map(|v| {
                let kind = gvk("autoscaling", v, "HorizontalPodAutoscaler");
                (gvr("autoscaling", v, "horizontalpodautoscalers"), sub, kind)
            }));
        }
        table.add_group([
            (gvr("", "v1", "events"), "", gvk("", "v1", "Event")),
            (
                gvr("events.k8s.io", "v1", "events"),
                "",
                gvk("events.k8s.io", "v1", "Event"),
            ),
        ]);
        table
    }

    /// Adds a group of equivalent `(resource, subresource, kind)` entries, in preference
    /// order (e.g. the versions of a custom resource).
    pub fn add_group<'s>(
        &mut self,
        entries: impl IntoIterator<Item = (GroupVersionResource, &'s str, GroupVersionKind)>,
    ) -> &mut ResourceTable {
        let group = entries
            .into_iter()
            .map(|(r, s, k)| (r, s.to_string(), k))
            .collect();
        self.groups.push(group);
        self
    }

    fn group_of(
        &self,
        resource: &GroupVersionResource,
        subresource: &str,
    ) -> Option<&[(GroupVersionResource, String, GroupVersionKind)]> {
        self.groups
            .iter()
            .find(|g| g.iter().any(|(r, s, _)| r == resource && s == subresource))
            .map(Vec::as_slice)
    }
}

impl EquivalentResources for ResourceTable {
    fn equivalents(
        &self,
        resource: &GroupVersionResource,
        subresource: &str,
    ) -> Vec<GroupVersionResource> {
        self.group_of(resource, subresource)
            .map(|g| g.iter().map(|(r, _, _)| r.clone()).collect())
            .unwrap_or_default()
    }

    fn kind_for(
        &self,
        resource: &GroupVersionResource,
        subresource: &str,
    ) -> Option<GroupVersionKind> {
        let group = self.group_of(resource, subresource)?;
        group
            .iter()
            .find(|(r, s, _)| r == resource && s == subresource)
            .map(|(_, _, k)| k.clone())
    }
}

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

fn is_namespace_resource(resource: &GroupVersionResource) -> bool {
    resource.group.is_empty() && resource.version == "v1" && resource.resource == "namespaces"
}

/// Whether one rule matches the request, as if made to `resource` (the request's own, or an
/// equivalent one). Resource names are not considered.
fn rule_matches_resource(
    rule: &NamedRuleWithOperations,
    request: &AdmissionRequest,
    resource: &GroupVersionResource,
) -> bool {
    let scope = match rule.scope.as_deref() {
        None | Some("*") => true,
        Some("Namespaced") => !is_namespace_resource(resource) && !request.namespace.is_empty(),
        Some("Cluster") => is_namespace_resource(resource) || request.namespace.is_empty(),
        Some(_) => false,
    };
    scope
        && listed(&rule.operations, &request.operation)
        && listed(&rule.api_groups, &resource.group)
        && listed(&rule.api_versions, &resource.version)
        && resource_matches(&rule.resources, &resource.resource, &request.sub_resource)
}

fn name_matches(rule: &NamedRuleWithOperations, request: &AdmissionRequest) -> bool {
    rule.resource_names.is_empty() || rule.resource_names.contains(&request.name)
}

/// Whether one rule matches the request (exactly: its own resource).
pub fn rule_matches(rule: &NamedRuleWithOperations, request: &AdmissionRequest) -> bool {
    rule_matches_resource(rule, request, &request.resource) && name_matches(rule, request)
}

/// The resource and kind a request matched as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matched {
    /// The resource the rule matched (an equivalent of the request's, or its own).
    pub resource: GroupVersionResource,
    /// The kind of that resource.
    pub kind: GroupVersionKind,
}

/// The first rule matching the request: with its own resource, or (`Equivalent`, the
/// default the API server sets) with an equivalent resource, whose kind the request is then
/// evaluated as. `Err` when an equivalent resource's kind is unknown.
fn rules_match(
    rules: &[NamedRuleWithOperations],
    policy: Option<&MatchPolicy>,
    request: &AdmissionRequest,
    resources: &dyn EquivalentResources,
) -> Result<Option<Matched>, ConfigurationError> {
    if rules.iter().any(|r| rule_matches(r, request)) {
        return Ok(Some(Matched {
            resource: request.resource.clone(),
            kind: request.kind.clone(),
        }));
    }
    if policy == Some(&MatchPolicy::Exact) {
        return Ok(None);
    }
    let equivalents = resources.equivalents(&request.resource, &request.sub_resource);
    for rule in rules {
        for equivalent in equivalents.iter().filter(|e| **e != request.resource) {
            if !rule_matches_resource(rule, request, equivalent) {
                continue;
            }
            let Some(kind) = resources.kind_for(equivalent, &request.sub_resource) else {
                return Err(ConfigurationError::UnknownKind(equivalent.clone()));
            };
            if name_matches(rule, request) {
                return Ok(Some(Matched {
                    resource: equivalent.clone(),
                    kind,
                }));
            }
        }
    }
    Ok(None)
}

/// The labels of the request's namespace for `namespaceSelector` (Kubernetes' namespace
/// matcher): `Ok(None)` for cluster-scoped resources other than namespaces, which every
/// namespace selector matches; the object's own labels when a Namespace is created or
/// updated; otherwise the labels of the namespace object, `Err` (the NotFound error) when
/// there is none.
fn namespace_labels(
    request: &AdmissionRequest,
    namespace: Option<&serde_json::Value>,
) -> Result<Option<BTreeMap<String, String>>, ConfigurationError> {
    let namespaces = request.resource.resource == "namespaces";
    if request.namespace.is_empty() && !namespaces {
        return Ok(None);
    }
    if namespaces
        && request.sub_resource.is_empty()
        && matches!(request.operation.as_str(), "CREATE" | "UPDATE")
    {
        return Ok(Some(labels_of(request.object.as_ref())));
    }
    match namespace {
        Some(namespace) => Ok(Some(labels_of(Some(namespace)))),
        None => Err(ConfigurationError::NamespaceNotFound(
            request.namespace.clone(),
        )),
    }
}

fn selector_is_empty(selector: &LabelSelector) -> bool {
    selector.match_labels.is_empty() && selector.match_expressions.is_empty()
}

/// Whether `resources` matches the request, and as which resource and kind (the request's
/// own unless an equivalent resource matched). Empty `resourceRules` match every resource
/// (bindings; a policy must have some). `Err`: a configuration error. As Kubernetes' policy
/// matcher, a namespace that cannot be found for a non-empty `namespaceSelector` is an
/// error only when the rest (object selector, rules) matches.
pub fn matches(
    resources: &MatchResources,
    request: &AdmissionRequest,
    namespace: Option<&serde_json::Value>,
    equivalents: &dyn EquivalentResources,
) -> Result<Option<Matched>, ConfigurationError> {
    let mut namespace_error = None;
    if let Some(selector) = &resources.namespace_selector
        && !selector_is_empty(selector)
    {
        match namespace_labels(request, namespace) {
            Ok(Some(labels)) if !selector_matches(selector, &labels) => return Ok(None),
            Ok(_) => {}
            Err(e) => namespace_error = Some(e),
        }
    }
    if let Some(selector) = &resources.object_selector
        && !selector_is_empty(selector)
    {
        let matches = |o: Option<&serde_json::Value>| {
            o.is_some_and(|_| selector_matches(selector, &labels_of(o)))
        };
        if !matches(request.object.as_ref()) && !matches(request.old_object.as_ref()) {
            return Ok(None);
        }
    }
    let policy = resources.match_policy.as_ref();
    let excluded = rules_match(
        &resources.exclude_resource_rules,
        policy,
        request,
        equivalents,
    )?;
    if excluded.is_some() {
        return Ok(None);
    }
    let matched = if resources.resource_rules.is_empty() {
        Some(Matched {
            resource: request.resource.clone(),
            kind: request.kind.clone(),
        })
    } else {
        rules_match(&resources.resource_rules, policy, request, equivalents)?
    };
    match (matched, namespace_error) {
        (Some(_), Some(e)) => Err(e),
        (matched, _) => Ok(matched),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubernetes::admission::api::LabelSelectorRequirement;

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
