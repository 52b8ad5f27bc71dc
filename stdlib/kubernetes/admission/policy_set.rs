//! A set of compiled policies and their bindings, indexed by the resources they can match,
//! deciding requests with the embedder's lookups (namespaces, params, authorization): the
//! shape an API server keeps and swaps when policies change.
//!
//! ```
//! use std::sync::Arc;
//! use kcel_stdlib::kubernetes::admission::{AdmissionRequest, CompiledPolicy, Lookups, PolicySet};
//!
//! let policy = serde_json::from_value(serde_json::json!({
//!     "metadata": {"name": "max-replicas"},
//!     "spec": {
//!         "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
//!             "operations": ["CREATE"], "resources": ["deployments"]}]},
//!         "validations": [{"expression": "object.spec.replicas <= 5"}]
//!     }
//! })).unwrap();
//! let binding = serde_json::from_value(serde_json::json!({
//!     "metadata": {"name": "max-replicas-binding"},
//!     "spec": {"policyName": "max-replicas", "validationActions": ["Warn"]}
//! })).unwrap();
//! let set = PolicySet::new([Arc::new(CompiledPolicy::new(policy))], [binding]);
//! let request: AdmissionRequest = serde_json::from_value(serde_json::json!({
//!     "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
//!     "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
//!     "name": "web", "operation": "CREATE",
//!     "object": {"metadata": {"name": "web"}, "spec": {"replicas": 7}}
//! })).unwrap();
//! let decision = set.admit(&request, &Lookups::none());
//! assert!(decision.allowed());
//! assert_eq!(decision.warnings, ["Validation failed for ValidatingAdmissionPolicy \
//!     'max-replicas' with binding 'max-replicas-binding': failed expression: \
//!     object.spec.replicas <= 5"]);
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use crate::kubernetes::authz::Authorizer;

use super::api::{
    AdmissionRequest, NamedRuleWithOperations, ParamKind, ValidatingAdmissionPolicyBinding,
};
use super::compile::CompiledPolicy;
use super::matching::{EquivalentResources, ResourceTable};
use super::{Decision, Input, dispatch};

/// Finds the request's Namespace object (`namespaceObject`, `namespaceSelector`).
pub trait NamespaceLookup: Send + Sync {
    /// The Namespace named `name`, or `None` if there is none.
    fn namespace(&self, name: &str) -> Option<serde_json::Value>;
}

/// Finds the candidate params objects of a policy's `paramKind`.
pub trait ParamLookup: Send + Sync {
    /// The objects of `kind` a binding may select: with `namespace` given, those in that
    /// namespace (a cluster-scoped kind's objects have none and are all candidates); with
    /// `None`, every object of the kind. Objects without `apiVersion`/`kind` are taken to be
    /// of `kind`. `paramRef` name and selector are applied by the caller.
    fn params(&self, kind: &ParamKind, namespace: Option<&str>) -> Vec<serde_json::Value>;
}

/// The embedder's answers a decision may need.
#[derive(Clone, Copy)]
pub struct Lookups<'a> {
    /// Finds the namespace object of a namespaced request (`namespaceObject`, namespaceSelector).
    pub namespaces: &'a dyn NamespaceLookup,
    /// Finds the param objects a binding's `paramRef` may select.
    pub params: &'a dyn ParamLookup,
    /// Answers `authorizer` checks; without one, `authorizer` is unbound.
    pub authorizer: Option<&'a Arc<dyn Authorizer>>,
}

/// Lookups that find nothing.
struct Nothing;

impl NamespaceLookup for Nothing {
    fn namespace(&self, _: &str) -> Option<serde_json::Value> {
        None
    }
}

impl ParamLookup for Nothing {
    fn params(&self, _: &ParamKind, _: Option<&str>) -> Vec<serde_json::Value> {
        Vec::new()
    }
}

impl Lookups<'static> {
    /// No namespaces, no params, no authorizer.
    pub fn none() -> Lookups<'static> {
        Lookups {
            namespaces: &Nothing,
            params: &Nothing,
            authorizer: None,
        }
    }
}

/// A fixed list of objects as params and namespaces (what `kcel test` suites give).
#[derive(Clone, Debug, Default)]
pub struct StaticObjects {
    /// The Namespace objects.
    pub namespaces: Vec<serde_json::Value>,
    /// The params candidates.
    pub params: Vec<serde_json::Value>,
}

fn meta_str<'v>(object: &'v serde_json::Value, field: &str) -> &'v str {
    object
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(|v| v.as_str())
        .unwrap_or("")
}

impl NamespaceLookup for StaticObjects {
    fn namespace(&self, name: &str) -> Option<serde_json::Value> {
        let found = self.namespaces.iter().find(|n| meta_str(n, "name") == name);
        found.cloned()
    }
}

impl ParamLookup for StaticObjects {
    fn params(&self, kind: &ParamKind, namespace: Option<&str>) -> Vec<serde_json::Value> {
        let field = |o: &serde_json::Value, f: &str| {
            o.get(f).and_then(|v| v.as_str()).unwrap_or("").to_string()
        };
        self.params
            .iter()
            .filter(|p| {
                let (version, k) = (field(p, "apiVersion"), field(p, "kind"));
                (version.is_empty() || version == kind.api_version)
                    && (k.is_empty() || k == kind.kind)
            })
            .filter(|p| {
                let ns = meta_str(p, "namespace");
                namespace.is_none_or(|wanted| ns.is_empty() || ns == wanted)
            })
            .cloned()
            .collect()
    }
}

/// Policies compiled once with their bindings, indexed by the `(group, resource)` their
/// `matchConstraints.resourceRules` name (rules with a wildcard group or resource go to a
/// list every request consults). Build a new set when policies or bindings change; a set is
/// immutable and can be shared between threads.
pub struct PolicySet {
    policies: Vec<Arc<CompiledPolicy>>,
    /// The bindings of each policy, by the policy's position.
    bindings: Vec<Vec<ValidatingAdmissionPolicyBinding>>,
    /// Policies (positions, ascending) by `(group, resource)`.
    index: HashMap<(String, String), Vec<usize>>,
    /// Policies with a wildcard group or resource (positions, ascending).
    wildcard: Vec<usize>,
    resources: Arc<dyn EquivalentResources>,
}

impl std::fmt::Debug for PolicySet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicySet")
            .field("policies", &self.policies.len())
            .field(
                "bindings",
                &self.bindings.iter().map(Vec::len).sum::<usize>(),
            )
            .finish()
    }
}

impl Default for PolicySet {
    fn default() -> PolicySet {
        PolicySet::new(Vec::new(), Vec::new())
    }
}

/// The `(group, resource)` keys of a rule, or `None` when it names a wildcard.
fn rule_keys(rule: &NamedRuleWithOperations) -> Option<Vec<(String, String)>> {
    let mut keys = Vec::new();
    for group in &rule.api_groups {
        for resource in &rule.resources {
            let resource = resource.split('/').next().unwrap_or("");
            if group == "*" || resource == "*" {
                return None;
            }
            keys.push((group.clone(), resource.to_string()));
        }
    }
    Some(keys)
}

impl PolicySet {
    /// A set of `policies` (evaluated in this order) and `bindings` (each applies to the
    /// policy it names; a binding naming no policy of the set is kept for nothing), with
    /// the built-in table of equivalent resources.
    pub fn new(
        policies: impl IntoIterator<Item = Arc<CompiledPolicy>>,
        bindings: impl IntoIterator<Item = ValidatingAdmissionPolicyBinding>,
    ) -> PolicySet {
        PolicySet::with_resources(policies, bindings, Arc::new(ResourceTable::builtin()))
    }

    /// [`PolicySet::new`] with the embedder's table of equivalent resources.
    pub fn with_resources(
        policies: impl IntoIterator<Item = Arc<CompiledPolicy>>,
        bindings: impl IntoIterator<Item = ValidatingAdmissionPolicyBinding>,
        resources: Arc<dyn EquivalentResources>,
    ) -> PolicySet {
        let policies: Vec<Arc<CompiledPolicy>> = policies.into_iter().collect();
        let positions: HashMap<&str, usize> = policies
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name(), i))
            .rev()
            .collect();
        let mut by_policy = vec![Vec::new(); policies.len()];
        for binding in bindings {
            if let Some(&i) = positions.get(binding.spec.policy_name.as_str()) {
                by_policy[i].push(binding);
            }
        }
        let mut index: HashMap<(String, String), Vec<usize>> = HashMap::new();
        let mut wildcard = Vec::new();
        for (i, policy) in policies.iter().enumerate() {
            if by_policy[i].is_empty() {
                continue; // a policy without bindings does nothing
            }
            let Some(constraints) = &policy.policy.spec.match_constraints else {
                continue; // matches nothing
            };
            let keys: Option<Vec<_>> = constraints
                .resource_rules
                .iter()
                .map(rule_keys)
                .collect::<Option<Vec<_>>>()
                .map(|k| k.into_iter().flatten().collect());
            match keys {
                None => wildcard.push(i),
                Some(keys) => {
                    for key in keys {
                        let entry = index.entry(key).or_default();
                        if entry.last() != Some(&i) {
                            entry.push(i);
                        }
                    }
                }
            }
        }
        PolicySet {
            policies,
            bindings: by_policy,
            index,
            wildcard,
            resources,
        }
    }

    /// The policies of the set, in evaluation order.
    pub fn policies(&self) -> impl Iterator<Item = &Arc<CompiledPolicy>> {
        self.policies.iter()
    }

    /// Whether no policy has a binding (every request is admitted without work).
    pub fn is_empty(&self) -> bool {
        self.index.is_empty() && self.wildcard.is_empty()
    }

    /// The positions of the policies that may match `request` (ascending): those indexed
    /// under its resource or an equivalent one, and the wildcard ones.
    fn candidates(&self, request: &AdmissionRequest) -> Vec<usize> {
        let mut found: Vec<usize> = self.wildcard.clone();
        let mut add = |group: &str, resource: &str| {
            if let Some(list) = self.index.get(&(group.to_string(), resource.to_string())) {
                found.extend(list);
            }
        };
        let r = &request.resource;
        add(&r.group, &r.resource);
        for e in self.resources.equivalents(r, &request.sub_resource) {
            if e.group != r.group || e.resource != r.resource {
                add(&e.group, &e.resource);
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    /// Whether some policy of the set may match `request` (its resource is indexed, or a
    /// wildcard policy exists): when not, [`PolicySet::admit`] allows without work and the
    /// caller need not build the request's objects.
    pub fn may_match(&self, request: &AdmissionRequest) -> bool {
        !self.candidates(request).is_empty()
    }

    /// Decides `request`: the candidate policies' matching, params, evaluation and
    /// validation actions, as kube-apiserver's ValidatingAdmissionPolicy plugin (see
    /// [`super::admit`] for the texts). The namespace is looked up once, only when a
    /// candidate policy exists; params only for bindings with a `paramRef`.
    pub fn admit(&self, request: &AdmissionRequest, lookups: &Lookups<'_>) -> Decision {
        let Some(prepared) = self.prepare(request, lookups) else {
            return Decision::default();
        };
        let input = Input {
            request,
            namespace: prepared.namespace.as_ref(),
            params: &prepared.params,
            authorizer: lookups.authorizer.cloned(),
        };
        let policies = prepared
            .candidates
            .iter()
            .map(|&i| (&*self.policies[i], self.bindings[i].iter().collect()));
        dispatch(policies, &input, &*self.resources)
    }

    /// The policy at a position, with its bindings.
    pub(crate) fn at(&self, i: usize) -> (&CompiledPolicy, &[ValidatingAdmissionPolicyBinding]) {
        (&self.policies[i], &self.bindings[i])
    }

    /// The table of equivalent resources.
    pub(crate) fn resources(&self) -> &dyn EquivalentResources {
        &*self.resources
    }

    /// What deciding `request` needs: the candidate policies (positions, ascending), the
    /// request's namespace and the params candidates of their bindings; `None` when no
    /// policy may match (or the request is for the policy resources themselves).
    pub(crate) fn prepare(
        &self,
        request: &AdmissionRequest,
        lookups: &Lookups<'_>,
    ) -> Option<Prepared> {
        let candidates = self.candidates(request);
        if candidates.is_empty() || super::is_admission_policy_resource(&request.resource) {
            return None;
        }
        let namespace = if request.namespace.is_empty() {
            None
        } else {
            lookups.namespaces.namespace(&request.namespace)
        };
        // The params candidates of every paramKind the candidate bindings refer to.
        let mut params: Vec<serde_json::Value> = Vec::new();
        let mut asked: Vec<(&ParamKind, Option<&str>)> = Vec::new();
        for &i in &candidates {
            let Some(kind) = &self.policies[i].policy.spec.param_kind else {
                continue;
            };
            for binding in &self.bindings[i] {
                let Some(param_ref) = &binding.spec.param_ref else {
                    continue;
                };
                let ns = if param_ref.namespace.is_empty() {
                    request.namespace.as_str()
                } else {
                    param_ref.namespace.as_str()
                };
                let ns = (!ns.is_empty()).then_some(ns);
                // Everything of the kind once asked without a namespace covers the rest.
                let covered = asked
                    .iter()
                    .any(|(k, n)| *k == kind && (n.is_none() || *n == ns));
                if !covered {
                    asked.push((kind, ns));
                    for p in lookups.params.params(kind, ns) {
                        let same = |q: &serde_json::Value| {
                            ["namespace", "name"]
                                .iter()
                                .all(|f| meta_str(q, f) == meta_str(&p, f))
                                && q.get("kind") == p.get("kind")
                                && q.get("apiVersion") == p.get("apiVersion")
                        };
                        if !params.iter().any(same) {
                            params.push(p);
                        }
                    }
                }
            }
        }
        Some(Prepared {
            candidates,
            namespace,
            params,
        })
    }
}

/// The candidates of a request and what their evaluation needs ([`PolicySet::prepare`]).
pub(crate) struct Prepared {
    pub(crate) candidates: Vec<usize>,
    pub(crate) namespace: Option<serde_json::Value>,
    pub(crate) params: Vec<serde_json::Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy(name: &str, group: &str, resource: &str, version: &str) -> Arc<CompiledPolicy> {
        let p = json!({"metadata": {"name": name}, "spec": {
            "matchConstraints": {"resourceRules": [{"apiGroups": [group], "apiVersions": [version],
                "operations": ["*"], "resources": [resource]}]},
            "validations": [{"expression": "false", "message": name}]}});
        Arc::new(CompiledPolicy::new(serde_json::from_value(p).unwrap()))
    }

    fn warn(policy: &str) -> ValidatingAdmissionPolicyBinding {
        serde_json::from_value(json!({"metadata": {"name": format!("{policy}-b")},
            "spec": {"policyName": policy, "validationActions": ["Warn"]}}))
        .unwrap()
    }

    fn request(group: &str, version: &str, resource: &str, kind: &str) -> AdmissionRequest {
        serde_json::from_value(json!({
            "kind": {"group": group, "version": version, "kind": kind},
            "resource": {"group": group, "version": version, "resource": resource},
            "name": "x", "operation": "CREATE", "object": {"metadata": {"name": "x"}}}))
        .unwrap()
    }

    fn warned(set: &PolicySet, request: &AdmissionRequest) -> Vec<String> {
        let decision = set.admit(request, &Lookups::none());
        let names = decision.warnings.iter().map(|w| {
            let start = w.find('\'').unwrap() + 1;
            w[start..start + w[start..].find('\'').unwrap()].to_string()
        });
        names.collect()
    }

    #[test]
    fn only_indexed_and_wildcard_policies_are_evaluated_in_order() {
        let set = PolicySet::new(
            [
                policy("all", "*", "*", "*"),
                policy("deploy", "apps", "deployments", "v1"),
                policy("cm", "", "configmaps", "v1"),
                policy("unbound", "apps", "deployments", "v1"),
                policy("hpa", "autoscaling", "horizontalpodautoscalers", "v2"),
            ],
            ["deploy", "cm", "all", "hpa", "nothing"].map(warn),
        );
        let deploy = request("apps", "v1", "deployments", "Deployment");
        assert_eq!(set.candidates(&deploy), [0, 1]);
        assert_eq!(warned(&set, &deploy), ["all", "deploy"]);
        let cm = request("", "v1", "configmaps", "ConfigMap");
        assert_eq!(warned(&set, &cm), ["all", "cm"]);
        // matchPolicy Equivalent: autoscaling/v1 is the same objects as v2.
        let hpa = request(
            "autoscaling",
            "v1",
            "horizontalpodautoscalers",
            "HorizontalPodAutoscaler",
        );
        assert_eq!(warned(&set, &hpa), ["all", "hpa"]);
        assert!(!set.is_empty());
        assert!(PolicySet::new([policy("x", "", "pods", "v1")], []).is_empty());
    }

    #[test]
    fn params_are_looked_up_in_the_binding_namespace() {
        let p = json!({"metadata": {"name": "limit"}, "spec": {
            "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
            "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                "operations": ["*"], "resources": ["secrets"]}]},
            "validations": [{"expression": "params.data.ok == 'yes'", "message": "no"}]}});
        let policy = Arc::new(CompiledPolicy::new(serde_json::from_value(p).unwrap()));
        let binding = serde_json::from_value(json!({"metadata": {"name": "b"}, "spec": {
            "policyName": "limit", "validationActions": ["Deny"],
            "paramRef": {"selector": {}, "parameterNotFoundAction": "Deny"}}}))
        .unwrap();
        let set = PolicySet::new([policy], [binding]);
        let objects = StaticObjects {
            namespaces: vec![
                json!({"metadata": {"name": "a"}}),
                json!({"metadata": {"name": "b"}}),
            ],
            params: vec![
                json!({"metadata": {"name": "p", "namespace": "a"}, "data": {"ok": "yes"}}),
                json!({"metadata": {"name": "p", "namespace": "b"}, "data": {"ok": "no"}}),
            ],
        };
        let lookups = Lookups {
            namespaces: &objects,
            params: &objects,
            authorizer: None,
        };
        let mut r = request("", "v1", "secrets", "Secret");
        r.namespace = "a".into();
        assert!(set.admit(&r, &lookups).allowed());
        r.namespace = "b".into();
        assert_eq!(set.admit(&r, &lookups).status.unwrap().code, 422);
        // No params in namespace c: the binding's Deny (params are collected before the
        // namespace is fetched, as the dispatcher does).
        r.namespace = "c".into();
        let status = set.admit(&r, &lookups).status.unwrap();
        assert!(
            status.message.ends_with(
                "no params found for policy binding with `Deny` parameterNotFoundAction"
            )
        );
    }
}
