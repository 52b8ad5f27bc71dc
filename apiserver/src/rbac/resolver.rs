//! The RBAC objects in effect and what they give a user (kubernetes
//! `pkg/registry/rbac/validation/rule.go` `DefaultRuleResolver.VisitRulesFor`, and
//! `plugin/pkg/auth/authorizer/rbac/rbac.go` `RBACAuthorizer.Authorize`).
//!
//! ClusterRoleBindings apply everywhere; a namespaced request also sees the RoleBindings of
//! its namespace, which bind a Role of that namespace or a ClusterRole (whose rules then hold
//! in that namespace only). A binding applies to a user through its first matching subject:
//! a `User` by name, a `Group` the user is in, or a `ServiceAccount` by the user name
//! `system:serviceaccount:<namespace>:<name>` (the namespace defaults to the binding's). A
//! ClusterRole with an `aggregationRule` has the rules of the other ClusterRoles its
//! selectors pick ([`super::aggregation`]; the server's aggregation controller also writes
//! them into the object, and they are computed again when the objects are read, from the
//! other roles' stored rules).
//!
//! RBAC never denies: the answer is allow, with the binding that allowed, or no opinion,
//! with the role references that could not be resolved.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use kcel_stdlib::kubernetes::authz::{Decision, DecisionKind};

use super::aggregation::aggregated_rules;
use super::objects::{Binding, Role, RoleRef, Subject};
use super::rules::{PolicyRule, rule_allows};
use crate::access_request::{Attributes, User};

/// A role reference that does not resolve, worded as kube-apiserver's listers word it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RoleRefError {
    /// No such Role (`role`) or ClusterRole (`clusterrole`).
    #[error("{resource}.rbac.authorization.k8s.io {name:?} not found")]
    NotFound {
        /// `role` or `clusterrole`.
        resource: &'static str,
        /// The name referenced.
        name: String,
    },
    /// A `roleRef.kind` other than `Role` and `ClusterRole`.
    #[error("unsupported role reference kind: {0:?}")]
    UnsupportedKind(String),
}

/// Which binding gave a rule, and through which subject: upstream's binding describers
/// (`ClusterRoleBinding "b" of ClusterRole "r" to User "u"`, `RoleBinding "b/ns" of Role
/// "r" to ServiceAccount "sa/ns"`).
#[derive(Debug)]
pub struct Source<'a> {
    binding: &'a Binding,
    subject: &'a Subject,
}

impl fmt::Display for Source<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let namespace = &self.binding.metadata.namespace;
        let (kind, name) = if namespace.is_empty() {
            ("ClusterRoleBinding", self.binding.metadata.name.clone())
        } else {
            (
                "RoleBinding",
                format!("{}/{namespace}", self.binding.metadata.name),
            )
        };
        let role = &self.binding.role_ref;
        let subject = match self.subject.kind.as_str() {
            "ServiceAccount" => {
                let sa_namespace = if self.subject.namespace.is_empty() {
                    namespace
                } else {
                    &self.subject.namespace
                };
                format!("{}/{sa_namespace}", self.subject.name)
            }
            _ => self.subject.name.clone(),
        };
        write!(
            f,
            "{kind} {name:?} of {} {:?} to {} {subject:?}",
            role.kind, role.name, self.subject.kind
        )
    }
}

/// What the visit of a user's rules meets.
#[derive(Debug)]
pub enum Visit<'a> {
    /// A rule, with the binding that gives it.
    Rule(&'a Source<'a>, &'a PolicyRule),
    /// A binding of the user whose role does not resolve.
    Error(RoleRefError),
}

/// The RBAC objects in effect: roles by namespace and name, ClusterRoles by name (aggregated),
/// bindings in name order.
#[derive(Debug, Default)]
pub struct RbacObjects {
    roles: HashMap<(String, String), Vec<PolicyRule>>,
    cluster_roles: HashMap<String, Vec<PolicyRule>>,
    role_bindings: HashMap<String, Vec<Binding>>,
    cluster_role_bindings: Vec<Binding>,
}

impl RbacObjects {
    /// The objects given (ClusterRoles' aggregation rules resolved).
    pub fn new(
        roles: Vec<Role>,
        role_bindings: Vec<Binding>,
        cluster_roles: Vec<Role>,
        mut cluster_role_bindings: Vec<Binding>,
    ) -> RbacObjects {
        let by_name: BTreeMap<&str, &Role> = cluster_roles
            .iter()
            .map(|r| (r.metadata.name.as_str(), r))
            .collect();
        let cluster_roles = cluster_roles
            .iter()
            .map(|role| {
                let rules = match &role.aggregation_rule {
                    Some(aggregation) => {
                        aggregated_rules(&role.metadata.name, aggregation, &by_name)
                    }
                    None => role.rules.clone(),
                };
                (role.metadata.name.clone(), rules)
            })
            .collect();
        let roles = roles
            .into_iter()
            .map(|r| ((r.metadata.namespace, r.metadata.name), r.rules))
            .collect();
        let mut by_namespace: HashMap<String, Vec<Binding>> = HashMap::new();
        for binding in role_bindings {
            by_namespace
                .entry(binding.metadata.namespace.clone())
                .or_default()
                .push(binding);
        }
        for bindings in by_namespace.values_mut() {
            bindings.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        }
        cluster_role_bindings.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        RbacObjects {
            roles,
            cluster_roles,
            role_bindings: by_namespace,
            cluster_role_bindings,
        }
    }

    /// The rules of the role a binding in `namespace` (empty: a ClusterRoleBinding) refers
    /// to (`GetRoleReferenceRules`).
    pub fn role_reference_rules(
        &self,
        role: &RoleRef,
        namespace: &str,
    ) -> Result<&[PolicyRule], RoleRefError> {
        let found = match role.kind.as_str() {
            "Role" => self
                .roles
                .get(&(namespace.to_owned(), role.name.clone()))
                .ok_or("role"),
            "ClusterRole" => self.cluster_roles.get(&role.name).ok_or("clusterrole"),
            other => return Err(RoleRefError::UnsupportedKind(other.to_owned())),
        };
        found
            .map(Vec::as_slice)
            .map_err(|resource| RoleRefError::NotFound {
                resource,
                name: role.name.clone(),
            })
    }

    /// Visits the rules that apply to `user` in `namespace` (empty: cluster-wide only), the
    /// ClusterRoleBindings' first, until `visit` answers false (`VisitRulesFor`).
    pub fn visit_rules_for(
        &self,
        user: &User,
        namespace: &str,
        mut visit: impl FnMut(Visit<'_>) -> bool,
    ) {
        let namespaced = if namespace.is_empty() {
            None
        } else {
            self.role_bindings.get(namespace)
        };
        let bindings = self
            .cluster_role_bindings
            .iter()
            .map(|b| (b, ""))
            .chain(namespaced.into_iter().flatten().map(|b| (b, namespace)));
        for (binding, namespace) in bindings {
            let Some(subject) = binding
                .subjects
                .iter()
                .find(|s| applies_to(user, s, namespace))
            else {
                continue;
            };
            let rules = match self.role_reference_rules(&binding.role_ref, namespace) {
                Ok(rules) => rules,
                Err(e) => {
                    if !visit(Visit::Error(e)) {
                        return;
                    }
                    continue;
                }
            };
            let source = Source { binding, subject };
            for rule in rules {
                if !visit(Visit::Rule(&source, rule)) {
                    return;
                }
            }
        }
    }

    /// Allow with the binding that allows (`RBAC: allowed by ...`), else no opinion, with the
    /// role references that did not resolve (`RBAC: ...`) if any.
    pub fn authorize(&self, user: &User, attrs: &Attributes) -> Decision {
        let mut allowed_by = None;
        let mut errors = Vec::new();
        self.visit_rules_for(user, &attrs.namespace, |visit| match visit {
            Visit::Rule(source, rule) if rule_allows(attrs, rule) => {
                allowed_by = Some(source.to_string());
                false
            }
            Visit::Rule(..) => true,
            Visit::Error(e) => {
                errors.push(e.to_string());
                true
            }
        });
        match allowed_by {
            Some(source) => {
                Decision::new(DecisionKind::Allow, format!("RBAC: allowed by {source}"))
            }
            None if errors.is_empty() => Decision::new(DecisionKind::NoOpinion, ""),
            None => Decision::new(
                DecisionKind::NoOpinion,
                format!("RBAC: {}", aggregate(&errors)),
            ),
        }
    }

    /// Every rule that applies to `user` in `namespace`, and the role references that did
    /// not resolve (`RulesFor`).
    pub fn rules_for(&self, user: &User, namespace: &str) -> (Vec<PolicyRule>, Vec<RoleRefError>) {
        let mut rules = Vec::new();
        let mut errors = Vec::new();
        self.visit_rules_for(user, namespace, |visit| {
            match visit {
                Visit::Rule(_, rule) => rules.push(rule.clone()),
                Visit::Error(e) => errors.push(e),
            }
            true
        });
        (rules, errors)
    }
}

/// Whether a binding's subject is `user` (`appliesToUser`); `namespace` is the binding's
/// (empty for a ClusterRoleBinding).
fn applies_to(user: &User, subject: &Subject, namespace: &str) -> bool {
    match subject.kind.as_str() {
        "User" => user.name == subject.name,
        "Group" => user.groups.contains(&subject.name),
        "ServiceAccount" => {
            let sa_namespace = if subject.namespace.is_empty() {
                namespace
            } else {
                &subject.namespace
            };
            !sa_namespace.is_empty()
                && user.name == format!("system:serviceaccount:{sa_namespace}:{}", subject.name)
        }
        _ => false,
    }
}

/// apimachinery's aggregate error text: one message alone, several (duplicates dropped)
/// as `[a, b]`.
pub fn aggregate(errors: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for e in errors {
        if !seen.contains(&e.as_str()) {
            seen.push(e);
        }
    }
    match seen.as_slice() {
        [one] => (*one).to_owned(),
        many => format!("[{}]", many.join(", ")),
    }
}
