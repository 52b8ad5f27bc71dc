//! The checks kube-apiserver's RBAC registry makes on a write of a Role, ClusterRole,
//! RoleBinding or ClusterRoleBinding before storing it (kubernetes `pkg/registry/rbac`:
//! `role/policybased`, `clusterrole/policybased`, `rolebinding/policybased`,
//! `clusterrolebinding/policybased` and `escalation_check.go`).
//!
//! A member of `system:masters` writes anything (`EscalationAllowed`). Otherwise a role's
//! rules must all be held by the author already ([`super::escalation`]) unless the author may
//! `escalate` the role; a ClusterRole's `aggregationRule` needs `*` on everything ("must have
//! cluster-admin privileges to use the aggregationRule"). A binding's role must be held
//! whole unless the author may `bind` it (the `bind` verb on `roles` or `clusterroles`
//! named as the role, in the binding's namespace). An update that changes only what the
//! garbage collector changes (owner references, finalizers, deletion) is not checked.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::escalation::confirm_no_escalation;
use super::objects::RoleRef;
use super::resolver::RoleRefError;
use super::rules::PolicyRule;
use crate::access_request::{Attributes, MASTERS, User};
use crate::authz::Authz;
use crate::error::ApiError;
use crate::object::Object;
use crate::resource::{CLUSTERROLEBINDINGS, CLUSTERROLES, ROLEBINDINGS, ROLES, Resource};
use crate::status::StatusDetails;

/// The API group of the RBAC resources.
const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// A write of `object` (the stored `old` one for an update) by `user`, as upstream's RBAC
/// registry checks it; `name` is the object's name as the request gave it, `namespace` the
/// object's. Writes of other resources pass.
pub fn check(
    authz: &Authz,
    user: &User,
    resource: &Resource,
    namespace: &str,
    name: &str,
    object: &Object,
    old: Option<&Object>,
) -> Result<(), ApiError> {
    let role = resource.plural == ROLES.plural || resource.plural == CLUSTERROLES.plural;
    let binding =
        resource.plural == ROLEBINDINGS.plural || resource.plural == CLUSTERROLEBINDINGS.plural;
    if resource.group != RBAC_GROUP || !(role || binding) {
        return Ok(());
    }
    if user.groups.iter().any(|g| g == MASTERS) {
        return Ok(());
    }
    if old.is_some_and(|old| only_collector_fields(object, old)) {
        return Ok(());
    }
    let namespace = if resource.namespaced { namespace } else { "" };
    if role {
        check_role(authz, user, resource, namespace, name, object, old)
    } else {
        check_binding(authz, user, resource, namespace, name, object)
    }
}

/// A Role's or ClusterRole's rules (and aggregation rule).
fn check_role(
    authz: &Authz,
    user: &User,
    resource: &Resource,
    namespace: &str,
    name: &str,
    object: &Object,
    old: Option<&Object>,
) -> Result<(), ApiError> {
    // `RoleEscalationAuthorized`: the request's own attributes with the verb `escalate` (a
    // create names no object).
    let escalate = Attributes {
        verb: "escalate".to_owned(),
        resource_request: true,
        group: RBAC_GROUP.to_owned(),
        version: "v1".to_owned(),
        resource: resource.plural.to_owned(),
        namespace: namespace.to_owned(),
        name: if old.is_some() {
            name.to_owned()
        } else {
            String::new()
        },
        ..Attributes::default()
    };
    if authz.decide(user, &escalate).0 {
        return Ok(());
    }
    let objects = authz.rbac().current();
    let rules: Vec<PolicyRule> = field(object, "rules");
    confirm_no_escalation(&objects, user, namespace, &rules)
        .map_err(|e| ApiError::forbidden(resource, name, &e.to_string()))?;
    let aggregates = |o: &Object| o.get("aggregationRule").is_some_and(|a| !a.is_null());
    if resource.plural == CLUSTERROLES.plural && (aggregates(object) || old.is_some_and(aggregates))
    {
        let full = [
            PolicyRule {
                verbs: vec!["*".to_owned()],
                api_groups: vec!["*".to_owned()],
                resources: vec!["*".to_owned()],
                ..PolicyRule::default()
            },
            PolicyRule {
                verbs: vec!["*".to_owned()],
                non_resource_urls: vec!["*".to_owned()],
                ..PolicyRule::default()
            },
        ];
        if confirm_no_escalation(&objects, user, "", &full).is_err() {
            return Err(ApiError::forbidden(
                resource,
                name,
                "must have cluster-admin privileges to use the aggregationRule",
            ));
        }
    }
    Ok(())
}

/// A binding's role.
fn check_binding(
    authz: &Authz,
    user: &User,
    resource: &Resource,
    namespace: &str,
    name: &str,
    object: &Object,
) -> Result<(), ApiError> {
    let role_ref: RoleRef = field(object, "roleRef");
    // `BindingAuthorized`: `bind` on the role, in the binding's namespace.
    let role_resource = match role_ref.kind.as_str() {
        "ClusterRole" => Some("clusterroles"),
        "Role" => Some("roles"),
        _ => None,
    };
    if let Some(role_resource) = role_resource {
        let bind = Attributes {
            verb: "bind".to_owned(),
            resource_request: true,
            group: object
                .get("roleRef")
                .and_then(|r| r.get("apiGroup"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            resource: role_resource.to_owned(),
            namespace: namespace.to_owned(),
            name: role_ref.name.clone(),
            ..Attributes::default()
        };
        if authz.decide(user, &bind).0 {
            return Ok(());
        }
    }
    let objects = authz.rbac().current();
    let rules = objects
        .role_reference_rules(&role_ref, namespace)
        .map_err(role_ref_error)?
        .to_vec();
    confirm_no_escalation(&objects, user, namespace, &rules)
        .map_err(|e| ApiError::forbidden(resource, name, &e.to_string()))
}

/// upstream's error for a role reference that does not resolve: the lister's 404 (`role` or
/// `clusterrole` as the resource), or an internal error for an unknown kind.
fn role_ref_error(error: RoleRefError) -> ApiError {
    match &error {
        RoleRefError::NotFound { resource, name } => ApiError {
            code: 404,
            reason: "NotFound",
            message: error.to_string(),
            details: Some(Box::new(StatusDetails {
                name: name.clone(),
                group: RBAC_GROUP.to_owned(),
                kind: (*resource).to_owned(),
                ..StatusDetails::default()
            })),
        },
        RoleRefError::UnsupportedKind(_) => ApiError::internal(error),
    }
}

/// A field of the object decoded as `T` (the default when absent or malformed: the kind's
/// validation, after this check, reports a malformed object).
fn field<T: DeserializeOwned + Default>(object: &Object, name: &str) -> T {
    object
        .get(name)
        .filter(|v| !v.is_null())
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

/// Whether `new` differs from `old` only in what the garbage collector writes
/// (`IsOnlyMutatingGCFields`: owner references, finalizers, deletion timestamp and grace
/// period; the server-kept resourceVersion and managedFields are not compared).
fn only_collector_fields(new: &Object, old: &Object) -> bool {
    const IGNORED: &[&str] = &[
        "ownerReferences",
        "finalizers",
        "selfLink",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "resourceVersion",
        "managedFields",
    ];
    let strip = |o: &Object| {
        let mut o = o.clone();
        if let Some(meta) = o.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.retain(|k, _| !IGNORED.contains(&k.as_str()));
        }
        o
    };
    strip(new) == strip(old)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::rbac::Rbac;
    use crate::storage::Storage;
    use crate::storage::keys;

    fn bob() -> User {
        User {
            name: "bob".to_owned(),
            uid: String::new(),
            groups: vec!["dev".to_owned(), "system:authenticated".to_owned()],
            extra: BTreeMap::new(),
        }
    }

    fn object(value: Value) -> Object {
        value.as_object().cloned().unwrap()
    }

    /// The default roles, with bob bound to `admin` in `default` (its aggregated rules
    /// written, as the controller writes them).
    fn server() -> (Authz, Arc<dyn Storage>) {
        let rbac = Arc::new(Rbac::default());
        let store = crate::storage::reloading::track(
            Arc::new(crate::storage::memory::MemoryStorage::new()),
            rbac.clone(),
        )
        .unwrap();
        crate::rbac::bootstrap::ensure_bootstrap_policy(&*store).unwrap();
        crate::rbac::tests::settle_aggregation(&*store);
        put(
            &*store,
            &keys::namespaced("rolebindings", "default", "bob-admin"),
            json!({"metadata": {"name": "bob-admin", "namespace": "default"},
                   "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": "admin"},
                   "subjects": [{"kind": "User", "name": "bob"}]}),
        );
        (Authz::with_rbac(None, rbac), store)
    }

    fn put(store: &dyn Storage, key: &str, value: Value) {
        store
            .create(key, &serde_json::to_vec(&value).unwrap())
            .unwrap();
    }

    fn role(rules: Value) -> Object {
        object(json!({"metadata": {"name": "r", "namespace": "default"}, "rules": rules}))
    }

    fn binding(kind: &str, name: &str) -> Object {
        object(json!({"metadata": {"name": "b", "namespace": "default"},
                      "roleRef": {"apiGroup": RBAC_GROUP, "kind": kind, "name": name},
                      "subjects": [{"kind": "User", "name": "alice"}]}))
    }

    fn write(authz: &Authz, resource: &Resource, object: &Object) -> Result<(), ApiError> {
        let namespace = if resource.namespaced { "default" } else { "" };
        check(authz, &bob(), resource, namespace, "r", object, None)
    }

    /// Expectations of upstream's pkg/registry/rbac/validation/rule_test.go
    /// (`TestConfirmNoEscalation`-style: rules held pass, others are listed) and of the
    /// policybased storages' `escalate` and `bind` short-cuts.
    #[test]
    fn roles_grant_only_what_the_author_holds() {
        let (authz, store) = server();
        // admin (through edit and view) reads and writes Pods in default.
        let held =
            role(json!([{"verbs": ["get", "delete"], "apiGroups": [""], "resources": ["pods"]}]));
        assert!(write(&authz, &ROLES, &held).is_ok());
        let more = role(json!([
            {"verbs": ["get", "create", "delete"], "apiGroups": [""], "resources": ["resourcequotas"]},
            {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}
        ]));
        let denied = write(&authz, &ROLES, &more).unwrap_err();
        assert_eq!((denied.code, denied.reason), (403, "Forbidden"));
        assert_eq!(
            denied.message,
            "roles.rbac.authorization.k8s.io \"r\" is forbidden: user \"bob\" \
             (groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC permissions \
             not currently held:\n{APIGroups:[\"\"], Resources:[\"resourcequotas\"], \
             Verbs:[\"create\" \"delete\"]}"
        );
        // Held in default only: the same rules in a ClusterRole are checked cluster-wide.
        let denied = write(&authz, &CLUSTERROLES, &held).unwrap_err();
        assert!(
            denied.message.starts_with(
                "clusterroles.rbac.authorization.k8s.io \"r\" is forbidden: user \"bob\""
            ),
            "{}",
            denied.message
        );
        // Masters write anything.
        let admin = User::admin();
        assert!(check(&authz, &admin, &ROLES, "default", "r", &more, None).is_ok());
        // `escalate` on roles in default lets bob write rules he does not hold.
        put(
            &*store,
            &keys::namespaced("roles", "default", "escalator"),
            json!({"metadata": {"name": "escalator", "namespace": "default"},
                   "rules": [{"verbs": ["escalate"], "apiGroups": [RBAC_GROUP], "resources": ["roles"]}]}),
        );
        put(
            &*store,
            &keys::namespaced("rolebindings", "default", "bob-escalates"),
            json!({"metadata": {"name": "bob-escalates", "namespace": "default"},
                   "roleRef": {"apiGroup": RBAC_GROUP, "kind": "Role", "name": "escalator"},
                   "subjects": [{"kind": "User", "name": "bob"}]}),
        );
        assert!(write(&authz, &ROLES, &more).is_ok());
        // An aggregation rule needs everything, whatever the rules.
        let aggregating = object(json!({"metadata": {"name": "r"},
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"x": "y"}}]}}));
        let denied = write(&authz, &CLUSTERROLES, &aggregating).unwrap_err();
        assert_eq!(
            denied.message,
            "clusterroles.rbac.authorization.k8s.io \"r\" is forbidden: must have cluster-admin \
             privileges to use the aggregationRule"
        );
    }

    #[test]
    fn bindings_grant_only_held_roles_unless_bind_is_allowed() {
        let (authz, store) = server();
        assert!(write(&authz, &ROLEBINDINGS, &binding("ClusterRole", "edit")).is_ok());
        let root = binding("ClusterRole", "cluster-admin");
        let denied = write(&authz, &ROLEBINDINGS, &root).unwrap_err();
        assert_eq!(
            denied.message,
            "rolebindings.rbac.authorization.k8s.io \"r\" is forbidden: user \"bob\" \
             (groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC permissions \
             not currently held:\n{APIGroups:[\"*\"], Resources:[\"*\"], Verbs:[\"*\"]}\n\
             {NonResourceURLs:[\"*\"], Verbs:[\"*\"]}"
        );
        // A missing role: the lister's 404.
        let missing = write(&authz, &ROLEBINDINGS, &binding("Role", "nope")).unwrap_err();
        assert_eq!(
            (missing.code, missing.message.as_str()),
            (404, "role.rbac.authorization.k8s.io \"nope\" not found")
        );
        // `bind` on that ClusterRole, by name, in default.
        put(
            &*store,
            &keys::namespaced("roles", "default", "binder"),
            json!({"metadata": {"name": "binder", "namespace": "default"},
                   "rules": [{"verbs": ["bind"], "apiGroups": [RBAC_GROUP],
                              "resources": ["clusterroles"], "resourceNames": ["cluster-admin"]}]}),
        );
        put(
            &*store,
            &keys::namespaced("rolebindings", "default", "bob-binds"),
            json!({"metadata": {"name": "bob-binds", "namespace": "default"},
                   "roleRef": {"apiGroup": RBAC_GROUP, "kind": "Role", "name": "binder"},
                   "subjects": [{"kind": "User", "name": "bob"}]}),
        );
        assert!(write(&authz, &ROLEBINDINGS, &root).is_ok());
        // Not cluster-wide: a ClusterRoleBinding is checked in no namespace.
        assert!(write(&authz, &CLUSTERROLEBINDINGS, &root).is_err());
    }

    #[test]
    fn updates_of_collector_fields_only_are_not_checked() {
        let (authz, _store) = server();
        let old = binding("ClusterRole", "cluster-admin");
        let mut new = old.clone();
        new["metadata"]["finalizers"] = json!(["example.com/keep"]);
        let update = |new: &Object| {
            check(
                &authz,
                &bob(),
                &ROLEBINDINGS,
                "default",
                "b",
                new,
                Some(&old),
            )
        };
        assert!(update(&new).is_ok());
        new["metadata"]["labels"] = json!({"a": "b"});
        assert_eq!(update(&new).unwrap_err().code, 403);
    }
}
