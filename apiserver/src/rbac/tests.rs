//! The resolver and the index, with upstream's cases: `TestAuthorizer`
//! (plugin/pkg/auth/authorizer/rbac/rbac_test.go) and `TestAppliesTo`
//! (pkg/registry/rbac/validation/rule_test.go); the default roles against upstream's dump of
//! them (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/cluster-roles.yaml) and
//! their aggregation (pkg/controller/clusterroleaggregation).

use std::collections::BTreeMap;
use std::sync::Arc;

use kcel_stdlib::kubernetes::authz::DecisionKind;
use serde_json::{Value, json};

use super::Rbac;
use super::aggregation::out_of_date;
use super::bootstrap::ensure_bootstrap_policy;
use super::objects::{Binding, Role};
use super::resolver::RbacObjects;
use crate::access_request::{Attributes, User};
use crate::resource::{CLUSTERROLEBINDINGS, CLUSTERROLES, ROLEBINDINGS, ROLES};
use crate::storage::memory::MemoryStorage;
use crate::storage::reloading::track;
use crate::storage::{RangeRequest, keys};

fn user(name: &str, groups: &[&str]) -> User {
    User {
        name: name.to_owned(),
        uid: String::new(),
        groups: groups.iter().map(|g| (*g).to_owned()).collect(),
        extra: BTreeMap::new(),
    }
}

/// upstream's `newRule(verbs, apiGroups, resources, nonResourceURLs)`.
fn rule(verbs: &str, groups: &str, resources: &str, urls: &str) -> Value {
    fn split(s: &str) -> Vec<&str> {
        s.split(',').collect()
    }
    json!({"verbs": split(verbs), "apiGroups": split(groups), "resources": split(resources),
           "nonResourceURLs": split(urls)})
}

fn role(name: &str, namespace: &str, rules: Vec<Value>) -> Role {
    serde_json::from_value(
        json!({"metadata": {"name": name, "namespace": namespace}, "rules": rules}),
    )
    .unwrap()
}

/// `Kind:name` subjects, as upstream's `newRoleBinding` writes them.
fn subjects(list: &[&str]) -> Vec<Value> {
    list.iter()
        .map(|s| {
            let (kind, name) = s.split_once(':').unwrap();
            json!({"kind": kind, "name": name})
        })
        .collect()
}

fn binding(name: &str, namespace: &str, kind: &str, role: &str, who: &[&str]) -> Binding {
    serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": namespace},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": role},
        "subjects": subjects(who),
    }))
    .unwrap()
}

fn resource(verb: &str, resource: &str, sub: &str, namespace: &str) -> Attributes {
    Attributes {
        verb: verb.to_owned(),
        resource_request: true,
        resource: resource.to_owned(),
        subresource: sub.to_owned(),
        namespace: namespace.to_owned(),
        ..Attributes::default()
    }
}

fn allowed(objects: &RbacObjects, who: &User, attrs: &Attributes) -> bool {
    objects.authorize(who, attrs).kind == DecisionKind::Allow
}

#[test]
fn upstreams_authorizer_cases() {
    // Case 0: a ClusterRole bound in ns1 by a RoleBinding holds in ns1 only.
    let objects = RbacObjects::new(
        vec![],
        vec![binding(
            "b",
            "ns1",
            "ClusterRole",
            "admin",
            &["User:admin", "Group:admins"],
        )],
        vec![role("admin", "", vec![rule("*", "*", "*", "*")])],
        vec![],
    );
    let admin = user("admin", &[]);
    assert!(allowed(
        &objects,
        &admin,
        &resource("get", "Pods", "", "ns1")
    ));
    assert!(allowed(
        &objects,
        &admin,
        &resource("watch", "Pods", "", "ns1")
    ));
    assert!(allowed(
        &objects,
        &user("admin", &["group1"]),
        &resource("watch", "Foobar", "", "ns1")
    ));
    assert!(allowed(
        &objects,
        &user("joe", &["admins"]),
        &resource("watch", "Foobar", "", "ns1")
    ));
    assert!(allowed(
        &objects,
        &user("joe", &["group1", "admins"]),
        &resource("watch", "Foobar", "", "ns1")
    ));
    assert!(!allowed(
        &objects,
        &admin,
        &resource("GET", "Pods", "", "ns2")
    ));
    assert!(!allowed(
        &objects,
        &admin,
        &resource("GET", "Nodes", "", "")
    ));
    assert!(!allowed(
        &objects,
        &user("admin", &["admins"]),
        &resource("GET", "Pods", "", "ns2")
    ));
    assert!(!allowed(
        &objects,
        &user("admin", &["admins"]),
        &resource("GET", "Nodes", "", "")
    ));

    // Case 1: non-resource URLs through ClusterRoleBindings.
    let objects = RbacObjects::new(
        vec![],
        vec![],
        vec![
            role(
                "non-resource-url-getter",
                "",
                vec![rule("get", "", "", "/apis")],
            ),
            role("non-resource-url", "", vec![rule("*", "", "", "/apis")]),
            role(
                "non-resource-url-prefix",
                "",
                vec![rule("get", "", "", "/apis/*")],
            ),
        ],
        vec![
            binding(
                "g",
                "",
                "ClusterRole",
                "non-resource-url-getter",
                &["User:foo", "Group:bar"],
            ),
            binding(
                "n",
                "",
                "ClusterRole",
                "non-resource-url",
                &["User:admin", "Group:admin"],
            ),
            binding(
                "p",
                "",
                "ClusterRole",
                "non-resource-url-prefix",
                &["User:prefixed", "Group:prefixed"],
            ),
        ],
    );
    let path = |verb: &str, path: &str| Attributes {
        verb: verb.to_owned(),
        path: path.to_owned(),
        ..Attributes::default()
    };
    let (foo, bar) = (user("foo", &[]), user("", &["bar"]));
    let (admin, admins) = (user("admin", &[]), user("", &["admin"]));
    let (prefixed, prefixers) = (user("prefixed", &[]), user("", &["prefixed"]));
    for who in [&foo, &bar, &admin, &admins] {
        assert!(allowed(&objects, who, &path("get", "/apis")), "{who:?}");
    }
    for who in [&admin, &admins] {
        assert!(allowed(&objects, who, &path("watch", "/apis")));
    }
    for who in [&prefixed, &prefixers] {
        assert!(allowed(&objects, who, &path("get", "/apis/v1")));
        assert!(allowed(&objects, who, &path("get", "/apis/v1/foobar")));
        assert!(!allowed(&objects, who, &path("get", "/api/v1")));
    }
    for who in [&foo, &bar] {
        assert!(!allowed(&objects, who, &path("watch", "/apis")));
    }
    for who in [&foo, &bar, &admin, &admins] {
        assert!(!allowed(&objects, who, &path("get", "/api/v1")));
    }

    // Cases 2 and 3: subresources.
    let objects = |resources: &str| {
        RbacObjects::new(
            vec![],
            vec![binding("b", "ns1", "ClusterRole", "admin", &["User:admin"])],
            vec![role("admin", "", vec![rule("*", "*", resources, "*")])],
            vec![],
        )
    };
    let admin = user("admin", &[]);
    assert!(allowed(
        &objects("pods"),
        &admin,
        &resource("get", "pods", "", "ns1")
    ));
    assert!(!allowed(
        &objects("pods"),
        &admin,
        &resource("get", "pods", "status", "ns1")
    ));
    assert!(allowed(
        &objects("pods/status"),
        &admin,
        &resource("get", "pods", "status", "ns1")
    ));
    assert!(!allowed(
        &objects("pods/status"),
        &admin,
        &resource("get", "pods", "", "ns1")
    ));
}

#[test]
fn upstreams_applies_to_cases() {
    let sa =
        |ns: &str, name: &str| json!({"kind": "ServiceAccount", "name": name, "namespace": ns});
    let cases: &[(Value, &str, &[&str], &str, bool)] = &[
        (
            json!({"kind": "User", "name": "foobar"}),
            "foobar",
            &[],
            "",
            true,
        ),
        (
            json!({"kind": "User", "name": "foobar"}),
            "barfoo",
            &[],
            "",
            false,
        ),
        (
            json!({"kind": "Group", "name": "foobar"}),
            "baz",
            &["foobar"],
            "",
            true,
        ),
        (
            json!({"kind": "Group", "name": "foobar"}),
            "baz",
            &["barfoo"],
            "",
            false,
        ),
        (
            sa("kube-system", "default"),
            "system:serviceaccount:kube-system:default",
            &[],
            "",
            true,
        ),
        (
            sa("kube-system", "default"),
            "system:serviceaccount:default:default",
            &[],
            "",
            false,
        ),
        // The namespace of a subject without one is the binding's; a ClusterRoleBinding's
        // such subject matches nobody.
        (
            sa("", "default"),
            "system:serviceaccount:kube-system:default",
            &[],
            "kube-system",
            true,
        ),
        (
            sa("", "default"),
            "system:serviceaccount::default",
            &[],
            "",
            false,
        ),
        (
            json!({"kind": "Unknown", "name": "foobar"}),
            "foobar",
            &[],
            "",
            false,
        ),
    ];
    for (i, (subject, name, groups, namespace, applies)) in cases.iter().enumerate() {
        let ns = *namespace;
        let mut b = binding("b", ns, "ClusterRole", "r", &[]);
        b.subjects = vec![serde_json::from_value(subject.clone()).unwrap()];
        let objects = RbacObjects::new(
            vec![],
            if ns.is_empty() {
                vec![]
            } else {
                vec![b.clone()]
            },
            vec![role("r", "", vec![rule("get", "", "pods", "")])],
            if ns.is_empty() { vec![b] } else { vec![] },
        );
        let attrs = resource("get", "pods", "", if ns.is_empty() { "x" } else { ns });
        assert_eq!(
            allowed(&objects, &user(name, groups), &attrs),
            *applies,
            "case {i}"
        );
    }
}

#[test]
fn reasons_name_the_binding_as_upstream_does() {
    let objects = RbacObjects::new(
        vec![role("reader", "ns1", vec![rule("get", "", "pods", "")])],
        vec![
            binding(
                "sa-reads",
                "ns1",
                "Role",
                "reader",
                &["ServiceAccount:robot"],
            ),
            binding("missing", "ns1", "Role", "nope", &["User:bob"]),
            binding("odd", "ns1", "Thing", "x", &["User:bob"]),
        ],
        vec![role(
            "viewer",
            "",
            vec![rule("list", "apps", "deployments", "")],
        )],
        vec![
            binding(
                "view",
                "",
                "ClusterRole",
                "viewer",
                &["Group:dev", "User:bob"],
            ),
            binding("gone", "", "ClusterRole", "gone", &["User:bob"]),
        ],
    );
    let bob = user("bob", &["dev"]);
    let mut list = resource("list", "deployments", "", "ns1");
    list.group = "apps".to_owned();
    assert_eq!(
        objects.authorize(&bob, &list).reason,
        "RBAC: allowed by ClusterRoleBinding \"view\" of ClusterRole \"viewer\" to Group \"dev\""
    );
    let robot = user("system:serviceaccount:ns1:robot", &[]);
    assert_eq!(
        objects
            .authorize(&robot, &resource("get", "pods", "", "ns1"))
            .reason,
        "RBAC: allowed by RoleBinding \"sa-reads/ns1\" of Role \"reader\" to ServiceAccount \"robot/ns1\""
    );
    // Unresolved references are the reason of no opinion, each once, in visit order.
    let denied = objects.authorize(&bob, &resource("delete", "pods", "", "ns1"));
    assert_eq!(denied.kind, DecisionKind::NoOpinion);
    assert_eq!(
        denied.reason,
        "RBAC: [clusterrole.rbac.authorization.k8s.io \"gone\" not found, \
         role.rbac.authorization.k8s.io \"nope\" not found, \
         unsupported role reference kind: \"Thing\"]"
    );
    let cluster = objects.authorize(&bob, &resource("delete", "pods", "", ""));
    assert_eq!(
        cluster.reason,
        "RBAC: clusterrole.rbac.authorization.k8s.io \"gone\" not found"
    );
    assert_eq!(
        objects.authorize(&user("carol", &[]), &list).reason,
        "",
        "no binding of carol: no opinion without a reason"
    );
}

#[test]
fn aggregation_rules_take_the_selected_cluster_roles_rules() {
    let labelled = |name: &str, labels: Value, rules: Vec<Value>| -> Role {
        serde_json::from_value(
            json!({"metadata": {"name": name, "labels": labels}, "rules": rules}),
        )
        .unwrap()
    };
    let mut monitoring: Role = labelled(
        "monitoring",
        json!({}),
        vec![rule("delete", "", "nodes", "")],
    );
    monitoring.aggregation_rule = Some(
        serde_json::from_value(json!({"clusterRoleSelectors": [
            {"matchLabels": {"rbac.example.com/aggregate-to-monitoring": "true"}}
        ]}))
        .unwrap(),
    );
    let objects = RbacObjects::new(
        vec![],
        vec![],
        vec![
            monitoring,
            labelled(
                "b-endpoints",
                json!({"rbac.example.com/aggregate-to-monitoring": "true"}),
                vec![
                    rule("get", "", "endpoints", ""),
                    rule("get", "", "services", ""),
                ],
            ),
            labelled(
                "a-services",
                json!({"rbac.example.com/aggregate-to-monitoring": "true"}),
                vec![rule("get", "", "services", "")],
            ),
            labelled("other", json!({}), vec![rule("get", "", "secrets", "")]),
        ],
        vec![binding("m", "", "ClusterRole", "monitoring", &["User:ann"])],
    );
    let ann = user("ann", &[]);
    let (rules, errors) = objects.rules_for(&ann, "");
    assert!(errors.is_empty());
    let resources: Vec<&str> = rules.iter().map(|r| r.resources[0].as_str()).collect();
    // By name (a-services first), each rule once; the role's own rules are replaced.
    assert_eq!(resources, ["services", "endpoints"]);
    assert!(!allowed(
        &objects,
        &ann,
        &resource("delete", "nodes", "", "")
    ));
    assert!(!allowed(
        &objects,
        &ann,
        &resource("get", "secrets", "", "")
    ));
}

#[test]
fn a_binding_takes_effect_when_its_write_returns() {
    let rbac = Arc::new(Rbac::default());
    let store = track(Arc::new(MemoryStorage::new()), rbac.clone()).unwrap();
    let bob = user("bob", &["system:authenticated"]);
    let get = resource("get", "configmaps", "", "default");
    assert!(!allowed(&rbac.current(), &bob, &get));
    let role = json!({"metadata": {"name": "cm", "namespace": "default"},
                      "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"]}]});
    store
        .create(
            &keys::namespaced(ROLES.plural, "default", "cm"),
            &serde_json::to_vec(&role).unwrap(),
        )
        .unwrap();
    let rb = json!({"metadata": {"name": "bob-cm", "namespace": "default"},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "cm"},
                    "subjects": [{"kind": "User", "name": "bob"}]});
    let key = keys::namespaced(ROLEBINDINGS.plural, "default", "bob-cm");
    let kv = store
        .create(&key, &serde_json::to_vec(&rb).unwrap())
        .unwrap();
    assert!(allowed(&rbac.current(), &bob, &get));
    store.delete(&key, kv.mod_revision).unwrap();
    assert!(!allowed(&rbac.current(), &bob, &get));
    // Cluster-wide: a ClusterRoleBinding to the group of every authenticated user.
    let cr = json!({"metadata": {"name": "all-cm"},
                    "rules": [{"verbs": ["*"], "apiGroups": [""], "resources": ["configmaps"]}]});
    store
        .create(
            &keys::cluster(CLUSTERROLES.plural, "all-cm"),
            &serde_json::to_vec(&cr).unwrap(),
        )
        .unwrap();
    let crb = json!({"metadata": {"name": "everyone"},
                     "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "all-cm"},
                     "subjects": [{"kind": "Group", "name": "system:authenticated"}]});
    store
        .create(
            &keys::cluster(CLUSTERROLEBINDINGS.plural, "everyone"),
            &serde_json::to_vec(&crb).unwrap(),
        )
        .unwrap();
    assert!(allowed(
        &rbac.current(),
        &bob,
        &resource("delete", "configmaps", "", "kube-system")
    ));
}

/// What the clusterrole-aggregation controller does, on `store` directly: passes of
/// [`out_of_date`] until none is left; the number of passes that wrote.
pub(super) fn settle_aggregation(store: &dyn crate::storage::Storage) -> usize {
    let prefix = keys::prefix(CLUSTERROLES.plural, None);
    for passes in 0..10 {
        let kvs = store
            .range(&RangeRequest::prefix(prefix.clone()))
            .unwrap()
            .kvs;
        let roles: Vec<Role> = kvs
            .iter()
            .map(|kv| serde_json::from_slice(&kv.value).unwrap())
            .collect();
        let stale = out_of_date(&roles);
        if stale.is_empty() {
            return passes;
        }
        for (name, rules) in stale {
            let kv = kvs
                .iter()
                .find(|kv| kv.key == keys::cluster(CLUSTERROLES.plural, &name))
                .unwrap();
            let mut object: Value = serde_json::from_slice(&kv.value).unwrap();
            object["rules"] = serde_json::to_value(&rules).unwrap();
            store
                .update(
                    &kv.key,
                    &serde_json::to_vec(&object).unwrap(),
                    kv.mod_revision,
                )
                .unwrap();
        }
    }
    panic!("aggregation does not settle");
}

fn stored(store: &dyn crate::storage::Storage, resource: &str, name: &str) -> Value {
    let (kv, _) = store.get(&keys::cluster(resource, name), None).unwrap();
    serde_json::from_slice(&kv.unwrap().value).unwrap()
}

/// The default objects as upstream's `bootstrappolicy/testdata/cluster-roles.yaml` and
/// `cluster-role-bindings.yaml` show them (labels, annotation, aggregation), and what they
/// give: masters everything, every authenticated user discovery and the self reviews.
#[test]
fn the_default_roles_are_upstreams() {
    let rbac = Arc::new(Rbac::default());
    let store = track(Arc::new(MemoryStorage::new()), rbac.clone()).unwrap();
    ensure_bootstrap_policy(&*store).unwrap();
    let names: Vec<String> = store
        .range(&RangeRequest::prefix(keys::prefix(
            CLUSTERROLES.plural,
            None,
        )))
        .unwrap()
        .kvs
        .iter()
        .map(|kv| {
            serde_json::from_slice::<Value>(&kv.value).unwrap()["metadata"]["name"].to_string()
        })
        .collect();
    assert_eq!(
        names.join(" "),
        "\"admin\" \"cluster-admin\" \"edit\" \"system:aggregate-to-admin\" \
         \"system:aggregate-to-edit\" \"system:aggregate-to-view\" \"system:basic-user\" \
         \"system:discovery\" \"system:public-info-viewer\" \"view\""
    );
    let edit = stored(&*store, CLUSTERROLES.plural, "edit");
    assert_eq!(
        edit["metadata"]["labels"],
        json!({"kubernetes.io/bootstrapping": "rbac-defaults",
               "rbac.authorization.k8s.io/aggregate-to-admin": "true"})
    );
    assert_eq!(
        edit["metadata"]["annotations"],
        json!({"rbac.authorization.kubernetes.io/autoupdate": "true"})
    );
    assert_eq!(
        edit["aggregationRule"],
        json!({"clusterRoleSelectors": [
            {"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-edit": "true"}}]})
    );
    assert_eq!(edit["rules"], Value::Null);
    assert!(!edit["metadata"]["uid"].as_str().unwrap().is_empty());
    let public = stored(
        &*store,
        CLUSTERROLEBINDINGS.plural,
        "system:public-info-viewer",
    );
    assert_eq!(
        public["subjects"],
        json!([{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:authenticated"},
               {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:unauthenticated"}])
    );
    let objects = rbac.current();
    let anyone = user("anyone", &["system:authenticated"]);
    let version = Attributes {
        verb: "get".to_owned(),
        path: "/version".to_owned(),
        ..Attributes::default()
    };
    assert_eq!(
        objects
            .authorize(
                &user("system:anonymous", &["system:unauthenticated"]),
                &version
            )
            .reason,
        "RBAC: allowed by ClusterRoleBinding \"system:public-info-viewer\" of ClusterRole \
         \"system:public-info-viewer\" to Group \"system:unauthenticated\""
    );
    assert!(allowed(&objects, &anyone, &version));
    assert!(!allowed(
        &objects,
        &anyone,
        &resource("get", "pods", "", "default")
    ));
    let admin = user("root", &["system:masters"]);
    assert_eq!(
        objects
            .authorize(&admin, &resource("delete", "nodes", "", ""))
            .reason,
        "RBAC: allowed by ClusterRoleBinding \"cluster-admin\" of ClusterRole \"cluster-admin\" \
         to Group \"system:masters\""
    );
    // A default object that exists is reconciled at start (here: a binding emptied by the
    // admin gets its subject back), unless annotated `autoupdate: "false"`.
    let key = keys::cluster(CLUSTERROLEBINDINGS.plural, "system:discovery");
    let empty = |autoupdate: &str| {
        let mut emptied = stored(&*store, CLUSTERROLEBINDINGS.plural, "system:discovery");
        emptied["subjects"] = json!([]);
        emptied["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] =
            json!(autoupdate);
        let (kv, _) = store.get(&key, None).unwrap();
        store
            .update(
                &key,
                &serde_json::to_vec(&emptied).unwrap(),
                kv.unwrap().mod_revision,
            )
            .unwrap();
    };
    empty("true");
    ensure_bootstrap_policy(&*store).unwrap();
    assert_eq!(
        stored(&*store, CLUSTERROLEBINDINGS.plural, "system:discovery")["subjects"],
        json!([{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:authenticated"}])
    );
    let revision = store.current_revision().unwrap();
    ensure_bootstrap_policy(&*store).unwrap();
    assert_eq!(
        store.current_revision().unwrap(),
        revision,
        "nothing to reconcile"
    );
    empty("false");
    ensure_bootstrap_policy(&*store).unwrap();
    assert_eq!(
        stored(&*store, CLUSTERROLEBINDINGS.plural, "system:discovery")["subjects"],
        json!([])
    );
}

/// `view` ⊂ `edit` ⊂ `admin` once the aggregation controller settled (one pass per level, as
/// upstream's controller, each of whose writes triggers the next); a user bound to `view` in
/// a namespace reads Pods there and may not delete them, one bound to `edit` may.
#[test]
fn aggregated_defaults_nest_view_in_edit_in_admin() {
    let rbac = Arc::new(Rbac::default());
    let store = track(Arc::new(MemoryStorage::new()), rbac.clone()).unwrap();
    ensure_bootstrap_policy(&*store).unwrap();
    assert_eq!(settle_aggregation(&*store), 3);
    let rules = |name: &str| -> Vec<super::PolicyRule> {
        serde_json::from_value(stored(&*store, CLUSTERROLES.plural, name)["rules"].clone()).unwrap()
    };
    let own = |name: &str| rules(&format!("system:aggregate-to-{name}"));
    assert_eq!(rules("view"), own("view"));
    let edit: Vec<_> = own("edit").into_iter().chain(own("view")).collect();
    assert_eq!(rules("edit"), edit);
    let admin: Vec<_> = edit.into_iter().chain(own("admin")).collect();
    assert_eq!(rules("admin"), admin);
    assert_eq!(admin.len(), 25);

    for (name, role) in [("viewer", "view"), ("editor", "edit")] {
        let rb = json!({"metadata": {"name": name, "namespace": "default"},
                        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
                        "subjects": [{"kind": "User", "name": name}]});
        store
            .create(
                &keys::namespaced(ROLEBINDINGS.plural, "default", name),
                &serde_json::to_vec(&rb).unwrap(),
            )
            .unwrap();
    }
    let objects = rbac.current();
    let viewer = user("viewer", &["system:authenticated"]);
    let editor = user("editor", &["system:authenticated"]);
    let get_pods = resource("get", "pods", "", "default");
    let delete_pods = resource("delete", "pods", "", "default");
    assert_eq!(
        objects.authorize(&viewer, &get_pods).reason,
        "RBAC: allowed by RoleBinding \"viewer/default\" of ClusterRole \"view\" to User \"viewer\""
    );
    assert!(!allowed(&objects, &viewer, &delete_pods));
    assert!(!allowed(
        &objects,
        &viewer,
        &resource("get", "secrets", "", "default")
    ));
    assert!(!allowed(
        &objects,
        &viewer,
        &resource("get", "pods", "", "other")
    ));
    assert!(allowed(&objects, &editor, &delete_pods));
    assert!(allowed(&objects, &editor, &get_pods));
    assert!(!allowed(
        &objects,
        &editor,
        &resource("create", "roles", "", "default")
    ));
}

/// upstream's `syncClusterRole` takes the roles selector by selector, each in name order.
#[test]
fn aggregation_goes_selector_by_selector() {
    let labelled = |name: &str, label: &str, resource: &str| -> Role {
        serde_json::from_value(
            json!({"metadata": {"name": name, "labels": {label: "true"}},
                                      "rules": [rule("get", "", resource, "")]}),
        )
        .unwrap()
    };
    let mut both: Role = serde_json::from_value(json!({"metadata": {"name": "both"},
        "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"second": "true"}},
                                                      {"matchLabels": {"first": "true"}}]}}))
    .unwrap();
    let roles = vec![
        labelled("a", "first", "configmaps"),
        labelled("b", "second", "secrets"),
        both.clone(),
    ];
    let stale = out_of_date(&roles);
    assert_eq!(stale.len(), 1);
    let resources: Vec<&str> = stale[0].1.iter().map(|r| r.resources[0].as_str()).collect();
    assert_eq!(resources, ["secrets", "configmaps"]);
    both.rules = stale[0].1.clone();
    assert!(out_of_date(&[roles[0].clone(), roles[1].clone(), both]).is_empty());
}
