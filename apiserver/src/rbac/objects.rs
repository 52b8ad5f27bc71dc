//! The RBAC objects as the authorizer reads them from storage: Roles and ClusterRoles
//! (rules, a ClusterRole's aggregation rule), RoleBindings and ClusterRoleBindings (subjects,
//! role reference), with the metadata these need. Fields not listed are ignored; a `null`
//! list reads as empty, as Go's decoder leaves a nil slice.

use std::collections::BTreeMap;

use kcel_stdlib::kubernetes::admission::LabelSelector;
use serde::Deserialize;

use super::rules::{PolicyRule, nullable};

/// A binding's subject.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Subject {
    /// `User`, `Group` or `ServiceAccount`.
    pub kind: String,
    /// The user's, group's or service account's name.
    pub name: String,
    /// A service account's namespace (empty: the binding's).
    pub namespace: String,
}

/// A binding's `roleRef`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RoleRef {
    /// `Role` or `ClusterRole`.
    pub kind: String,
    /// The role's name.
    pub name: String,
}

/// The metadata RBAC reads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Metadata {
    /// The object's name.
    pub name: String,
    /// The object's namespace (empty for cluster-scoped objects).
    pub namespace: String,
    /// The object's labels (an aggregation rule selects ClusterRoles by them).
    #[serde(deserialize_with = "nullable")]
    pub labels: BTreeMap<String, String>,
}

/// A RoleBinding or ClusterRoleBinding.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Binding {
    /// Its name and namespace.
    pub metadata: Metadata,
    /// Who it binds.
    #[serde(deserialize_with = "nullable")]
    pub subjects: Vec<Subject>,
    /// The role it grants.
    pub role_ref: RoleRef,
}

/// A Role or ClusterRole.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Role {
    /// Its name, namespace and labels.
    pub metadata: Metadata,
    /// What it allows.
    #[serde(deserialize_with = "nullable")]
    pub rules: Vec<PolicyRule>,
    /// A ClusterRole's aggregation rule.
    pub aggregation_rule: Option<AggregationRule>,
}

/// A ClusterRole's `aggregationRule`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AggregationRule {
    /// The ClusterRoles whose rules it takes (any selector).
    #[serde(deserialize_with = "nullable")]
    pub cluster_role_selectors: Vec<LabelSelector>,
}
