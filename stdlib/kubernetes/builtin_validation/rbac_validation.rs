//! The RBAC group (kubernetes/kubernetes `pkg/apis/rbac/validation/validation.go`):
//! `ValidateRole` and `ValidateClusterRole` (`ValidatePolicyRule`; a ClusterRole's
//! aggregation rule), `ValidateRoleBinding` and `ValidateClusterRoleBinding` (the role
//! reference, `ValidateRoleBindingSubject`), and the bindings' update rule: the role
//! reference cannot change. The names (`ValidateRBACName`, a path segment) are checked with
//! the metadata.
//!
//! Read after defaulting: a binding's `roleRef.apiGroup` and its users' and groups'
//! `apiGroup` are `rbac.authorization.k8s.io` when left out.

use serde_json::Value as Json;

use super::errors::Errors;
use super::label_selector::LabelSelector;
use super::read;
use crate::kubernetes::crd::field_error::FieldPath;

/// The RBAC API group (`rbac.GroupName`).
const GROUP: &str = "rbac.authorization.k8s.io";

/// `ValidateRole` after the metadata: its rules, namespaced.
pub(super) fn role(e: &mut Errors, object: &Json) {
    rules(e, object, true);
}

/// `ValidateClusterRole` after the metadata: its rules, then its aggregation rule's
/// selectors.
pub(super) fn cluster_role(e: &mut Errors, object: &Json) {
    rules(e, object, false);
    let Some(aggregation) = read::field(object, "aggregationRule") else {
        return;
    };
    let path = FieldPath::new("aggregationRule").child("clusterRoleSelectors");
    let selectors = read::list(aggregation, "clusterRoleSelectors");
    if selectors.is_empty() {
        e.required(
            &path,
            "at least one clusterRoleSelector required if aggregationRule is non-nil",
        );
    }
    for (i, raw) in selectors.iter().enumerate() {
        let selector = LabelSelector::read(raw);
        selector.validate(e, &path.index(i));
        if !selector.converts() {
            // The value is the nil selector LabelSelectorAsSelector returns with its error.
            e.invalid_rendered(&path.index(i), "null".to_owned(), "invalid label selector.");
        }
    }
}

/// Every rule of a Role or ClusterRole (`ValidatePolicyRule`).
fn rules(e: &mut Errors, object: &Json, namespaced: bool) {
    let path = FieldPath::new("rules");
    for (i, rule) in read::list(object, "rules").iter().enumerate() {
        policy_rule(e, rule, namespaced, &path.index(i));
    }
}

/// `ValidatePolicyRule`: verbs required; non-resource URLs only in cluster rules and never
/// with resources; resource rules name API groups and resources.
fn policy_rule(e: &mut Errors, rule: &Json, namespaced: bool, path: &FieldPath) {
    let given = |field: &str| !read::list(rule, field).is_empty();
    if !given("verbs") {
        e.required(
            &path.child("verbs"),
            "verbs must contain at least one value",
        );
    }
    if given("nonResourceURLs") {
        let urls = read::field(rule, "nonResourceURLs").unwrap_or(&Json::Null);
        let at = path.child("nonResourceURLs");
        if namespaced {
            e.invalid_json(
                &at,
                urls,
                "namespaced rules cannot apply to non-resource URLs",
            );
        }
        if given("apiGroups") || given("resources") || given("resourceNames") {
            e.invalid_json(
                &at,
                urls,
                "rules cannot apply to both regular resources and non-resource URLs",
            );
        }
        return;
    }
    if !given("apiGroups") {
        e.required(
            &path.child("apiGroups"),
            "resource rules must supply at least one api group",
        );
    }
    if !given("resources") {
        e.required(
            &path.child("resources"),
            "resource rules must supply at least one resource",
        );
    }
}

/// `ValidateRoleBinding` (`cluster` false: a Role or ClusterRole, namespaced subjects) or
/// `ValidateClusterRoleBinding` (`cluster` true) after the metadata, and on update
/// (`old` given) the unchanged role reference.
pub(super) fn binding(e: &mut Errors, object: &Json, old: Option<&Json>, cluster: bool) {
    let role_ref = read::field(object, "roleRef").unwrap_or(&Json::Null);
    let path = FieldPath::new("roleRef");
    let api_group = read::text(role_ref, "apiGroup");
    if api_group != GROUP {
        e.not_supported(&path.child("apiGroup"), api_group, &[GROUP]);
    }
    let kind = read::text(role_ref, "kind");
    let kinds: &[&str] = if cluster {
        &["ClusterRole"]
    } else {
        &["Role", "ClusterRole"]
    };
    if !kinds.contains(&kind) {
        e.not_supported(&path.child("kind"), kind, kinds);
    }
    let name = read::text(role_ref, "name");
    if name.is_empty() {
        e.required(&path.child("name"), "");
    } else {
        e.each(
            &path.child("name"),
            name,
            crate::kubernetes::object_meta::path_segment_name(name),
        );
    }
    let subjects = FieldPath::new("subjects");
    for (i, subject) in read::list(object, "subjects").iter().enumerate() {
        self::subject(e, subject, !cluster, &subjects.index(i));
    }
    if let Some(old) = old {
        let old_ref = read::field(old, "roleRef").unwrap_or(&Json::Null);
        if role_ref_of(old_ref) != role_ref_of(role_ref) {
            // The value is the new rbac.RoleRef struct, shown as its JSON (field order
            // apiGroup, kind, name; none omitted).
            let shown = serde_json::json!({
                "apiGroup": api_group, "kind": kind, "name": name,
            });
            e.invalid_json(&path, &shown, "cannot change roleRef");
        }
    }
}

/// A role reference's three fields, as Go compares the struct.
fn role_ref_of(role_ref: &Json) -> [&str; 3] {
    ["apiGroup", "kind", "name"].map(|f| read::text(role_ref, f))
}

/// `ValidateRoleBindingSubject`.
fn subject(e: &mut Errors, subject: &Json, namespaced: bool, path: &FieldPath) {
    let name = read::text(subject, "name");
    if name.is_empty() {
        e.required(&path.child("name"), "");
    }
    let api_group = read::text(subject, "apiGroup");
    match read::text(subject, "kind") {
        "ServiceAccount" => {
            if !name.is_empty() {
                // ValidateServiceAccountName: NameIsDNSSubdomain.
                e.dns1123_subdomain(&path.child("name"), name);
            }
            if !api_group.is_empty() {
                e.not_supported(&path.child("apiGroup"), api_group, &[""]);
            }
            if !namespaced && read::text(subject, "namespace").is_empty() {
                e.required(&path.child("namespace"), "");
            }
        }
        "User" | "Group" => {
            if api_group != GROUP {
                e.not_supported(&path.child("apiGroup"), api_group, &[GROUP]);
            }
        }
        other => e.not_supported(
            &path.child("kind"),
            other,
            &["ServiceAccount", "User", "Group"],
        ),
    }
}
