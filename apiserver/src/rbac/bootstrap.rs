//! The default ClusterRoles and ClusterRoleBindings kube-apiserver makes at start (kubernetes
//! `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go`, whose objects upstream dumps
//! in `bootstrappolicy/testdata/cluster-roles.yaml` and `cluster-role-bindings.yaml`): the
//! user-facing roles `cluster-admin`, `admin`, `edit` and `view` (the last three aggregated
//! from `system:aggregate-to-*` by the `rbac.authorization.k8s.io/aggregate-to-*` labels),
//! `system:basic-user`, `system:discovery` and `system:public-info-viewer`, and their
//! bindings to `system:masters`, `system:authenticated` and `system:unauthenticated`. The
//! roles of the controllers and nodes that this server does not run are left out.
//!
//! Each object carries upstream's label `kubernetes.io/bootstrapping: rbac-defaults` and
//! annotation `rbac.authorization.kubernetes.io/autoupdate: "true"`. At every start a missing
//! object is created and an existing one reconciled with the default ([`super::reconcile`]:
//! missing rules, aggregation selectors, subjects, labels and annotations added back) unless
//! its annotation is `"false"`.

use serde_json::{Value, json};

use super::reconcile::{self, Reconciled};
use crate::object;
use crate::resource::{CLUSTERROLEBINDINGS, CLUSTERROLES, Resource};
use crate::storage::{KeyValue, Storage, StorageError, keys};

/// The label every bootstrap object carries.
pub const BOOTSTRAPPING_LABEL: &str = "kubernetes.io/bootstrapping";
pub use super::reconcile::AUTOUPDATE_ANNOTATION;
/// The label prefix of the aggregated roles' selectors.
const AGGREGATE_TO: &str = "rbac.authorization.k8s.io/aggregate-to-";

/// upstream's `Read` verbs.
const READ: &[&str] = &["get", "list", "watch"];
/// upstream's `Write` verbs, sorted as its rule builder sorts them.
const WRITE: &[&str] = &["create", "delete", "deletecollection", "patch", "update"];
/// upstream's `ReadWrite` verbs, sorted.
const READ_WRITE: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// One rule of a default role: verbs, then API groups and resources, or non-resource URLs.
struct Rule {
    verbs: &'static [&'static str],
    groups: &'static [&'static str],
    resources: &'static [&'static str],
    urls: &'static [&'static str],
}

const fn rule(
    verbs: &'static [&'static str],
    groups: &'static [&'static str],
    resources: &'static [&'static str],
) -> Rule {
    Rule {
        verbs,
        groups,
        resources,
        urls: &[],
    }
}

const fn urls(verbs: &'static [&'static str], urls: &'static [&'static str]) -> Rule {
    Rule {
        verbs,
        groups: &[],
        resources: &[],
        urls,
    }
}

impl Rule {
    /// Every list written; storing it encodes it as the Go type does (empty lists left out).
    fn to_json(&self) -> Value {
        json!({"verbs": self.verbs, "apiGroups": self.groups, "resources": self.resources,
               "nonResourceURLs": self.urls})
    }
}

/// A default ClusterRole.
struct DefaultRole {
    name: &'static str,
    /// The role it aggregates into (`aggregate-to-<this>: "true"` label), if any.
    aggregates_to: Option<&'static str>,
    /// The `aggregate-to-<this>` label its aggregation rule selects, if it has one.
    aggregated_from: Option<&'static str>,
    rules: &'static [Rule],
}

const AGGREGATE_TO_ADMIN: &[Rule] = &[
    rule(
        &["create"],
        &["authorization.k8s.io"],
        &["localsubjectaccessreviews"],
    ),
    rule(
        READ_WRITE,
        &["rbac.authorization.k8s.io"],
        &["rolebindings", "roles"],
    ),
];

const AGGREGATE_TO_EDIT: &[Rule] = &[
    rule(
        READ,
        &[""],
        &[
            "pods/attach",
            "pods/exec",
            "pods/portforward",
            "pods/proxy",
            "secrets",
            "services/proxy",
        ],
    ),
    rule(&["impersonate"], &[""], &["serviceaccounts"]),
    rule(
        WRITE,
        &[""],
        &[
            "pods",
            "pods/attach",
            "pods/exec",
            "pods/portforward",
            "pods/proxy",
        ],
    ),
    rule(&["create"], &[""], &["pods/eviction"]),
    rule(
        WRITE,
        &[""],
        &[
            "configmaps",
            "events",
            "persistentvolumeclaims",
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "secrets",
            "serviceaccounts",
            "services",
            "services/proxy",
        ],
    ),
    rule(&["create"], &[""], &["serviceaccounts/token"]),
    rule(
        WRITE,
        &["apps"],
        &[
            "daemonsets",
            "deployments",
            "deployments/rollback",
            "deployments/scale",
            "replicasets",
            "replicasets/scale",
            "statefulsets",
            "statefulsets/scale",
        ],
    ),
    rule(WRITE, &["autoscaling"], &["horizontalpodautoscalers"]),
    rule(WRITE, &["batch"], &["cronjobs", "jobs"]),
    rule(
        WRITE,
        &["extensions"],
        &[
            "daemonsets",
            "deployments",
            "deployments/rollback",
            "deployments/scale",
            "ingresses",
            "networkpolicies",
            "replicasets",
            "replicasets/scale",
            "replicationcontrollers/scale",
        ],
    ),
    rule(WRITE, &["policy"], &["poddisruptionbudgets"]),
    rule(
        WRITE,
        &["networking.k8s.io"],
        &["ingresses", "networkpolicies"],
    ),
    rule(READ_WRITE, &["coordination.k8s.io"], &["leases"]),
];

const AGGREGATE_TO_VIEW: &[Rule] = &[
    rule(
        READ,
        &[""],
        &[
            "configmaps",
            "endpoints",
            "persistentvolumeclaims",
            "persistentvolumeclaims/status",
            "pods",
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "serviceaccounts",
            "services",
            "services/status",
        ],
    ),
    rule(
        READ,
        &[""],
        &[
            "bindings",
            "events",
            "limitranges",
            "namespaces/status",
            "pods/log",
            "pods/status",
            "replicationcontrollers/status",
            "resourcequotas",
            "resourcequotas/status",
        ],
    ),
    rule(READ, &[""], &["namespaces"]),
    rule(READ, &["discovery.k8s.io"], &["endpointslices"]),
    rule(
        READ,
        &["apps"],
        &[
            "controllerrevisions",
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/scale",
            "deployments/status",
            "replicasets",
            "replicasets/scale",
            "replicasets/status",
            "statefulsets",
            "statefulsets/scale",
            "statefulsets/status",
        ],
    ),
    rule(
        READ,
        &["autoscaling"],
        &[
            "horizontalpodautoscalers",
            "horizontalpodautoscalers/status",
        ],
    ),
    rule(
        READ,
        &["batch"],
        &["cronjobs", "cronjobs/status", "jobs", "jobs/status"],
    ),
    rule(
        READ,
        &["extensions"],
        &[
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/scale",
            "deployments/status",
            "ingresses",
            "ingresses/status",
            "networkpolicies",
            "replicasets",
            "replicasets/scale",
            "replicasets/status",
            "replicationcontrollers/scale",
        ],
    ),
    rule(
        READ,
        &["policy"],
        &["poddisruptionbudgets", "poddisruptionbudgets/status"],
    ),
    rule(
        READ,
        &["networking.k8s.io"],
        &["ingresses", "ingresses/status", "networkpolicies"],
    ),
];

/// The discovery paths every authenticated user may read.
const DISCOVERY_URLS: &[&str] = &[
    "/api",
    "/api/*",
    "/apis",
    "/apis/*",
    "/healthz",
    "/livez",
    "/openapi",
    "/openapi/*",
    "/readyz",
    "/version",
    "/version/",
];

/// The ClusterRoles, in upstream's name order.
const ROLES: &[DefaultRole] = &[
    DefaultRole {
        name: "admin",
        aggregates_to: None,
        aggregated_from: Some("admin"),
        rules: &[],
    },
    DefaultRole {
        name: "cluster-admin",
        aggregates_to: None,
        aggregated_from: None,
        rules: &[rule(&["*"], &["*"], &["*"]), urls(&["*"], &["*"])],
    },
    DefaultRole {
        name: "edit",
        aggregates_to: Some("admin"),
        aggregated_from: Some("edit"),
        rules: &[],
    },
    DefaultRole {
        name: "system:aggregate-to-admin",
        aggregates_to: Some("admin"),
        aggregated_from: None,
        rules: AGGREGATE_TO_ADMIN,
    },
    DefaultRole {
        name: "system:aggregate-to-edit",
        aggregates_to: Some("edit"),
        aggregated_from: None,
        rules: AGGREGATE_TO_EDIT,
    },
    DefaultRole {
        name: "system:aggregate-to-view",
        aggregates_to: Some("view"),
        aggregated_from: None,
        rules: AGGREGATE_TO_VIEW,
    },
    DefaultRole {
        name: "system:basic-user",
        aggregates_to: None,
        aggregated_from: None,
        rules: &[
            rule(
                &["create"],
                &["authorization.k8s.io"],
                &["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
            ),
            rule(
                &["create"],
                &["authentication.k8s.io"],
                &["selfsubjectreviews"],
            ),
        ],
    },
    DefaultRole {
        name: "system:discovery",
        aggregates_to: None,
        aggregated_from: None,
        rules: &[urls(&["get"], DISCOVERY_URLS)],
    },
    DefaultRole {
        name: "system:public-info-viewer",
        aggregates_to: None,
        aggregated_from: None,
        rules: &[urls(
            &["get"],
            &["/healthz", "/livez", "/readyz", "/version", "/version/"],
        )],
    },
    DefaultRole {
        name: "view",
        aggregates_to: Some("edit"),
        aggregated_from: Some("view"),
        rules: &[],
    },
];

/// The ClusterRoleBindings: name (also the role's), and the groups bound.
const BINDINGS: &[(&str, &[&str])] = &[
    ("cluster-admin", &[crate::access_request::MASTERS]),
    ("system:basic-user", &["system:authenticated"]),
    ("system:discovery", &["system:authenticated"]),
    (
        "system:public-info-viewer",
        &["system:authenticated", "system:unauthenticated"],
    ),
];

/// The metadata of a bootstrap object named `name` with these extra labels.
fn metadata(name: &str, labels: &[(String, &str)]) -> Value {
    let mut all = json!({BOOTSTRAPPING_LABEL: "rbac-defaults"});
    for (key, value) in labels {
        all[key] = json!(value);
    }
    json!({
        "name": name,
        "labels": all,
        "annotations": {AUTOUPDATE_ANNOTATION: "true"},
    })
}

/// The default ClusterRoles as stored objects (without uid and timestamps).
pub fn cluster_roles() -> Vec<Value> {
    ROLES
        .iter()
        .map(|role| {
            let labels: Vec<(String, &str)> = role
                .aggregates_to
                .map(|to| (format!("{AGGREGATE_TO}{to}"), "true"))
                .into_iter()
                .collect();
            let mut object = json!({
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRole",
                "metadata": metadata(role.name, &labels),
                "rules": role.rules.iter().map(Rule::to_json).collect::<Vec<_>>(),
            });
            if let Some(from) = role.aggregated_from {
                object["aggregationRule"] = json!({"clusterRoleSelectors": [
                    {"matchLabels": {format!("{AGGREGATE_TO}{from}"): "true"}}
                ]});
                // The aggregation controller fills them.
                object["rules"] = Value::Null;
            }
            object
        })
        .collect()
}

/// The default ClusterRoleBindings as stored objects (without uid and timestamps).
pub fn cluster_role_bindings() -> Vec<Value> {
    BINDINGS
        .iter()
        .map(|(name, groups)| {
            let subjects: Vec<Value> = groups
                .iter()
                .map(|g| json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": g}))
                .collect();
            json!({
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRoleBinding",
                "metadata": metadata(name, &[]),
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
                "subjects": subjects,
            })
        })
        .collect()
}

/// Creates the default ClusterRoles, then their bindings, that do not exist yet, and
/// reconciles those that do (synchronously, before serving; kube-apiserver's
/// `rbac/bootstrap-roles` post-start hook).
pub fn ensure_bootstrap_policy(store: &dyn Storage) -> Result<(), StorageError> {
    let objects = cluster_roles()
        .into_iter()
        .map(|o| (&CLUSTERROLES, o))
        .chain(
            cluster_role_bindings()
                .into_iter()
                .map(|o| (&CLUSTERROLEBINDINGS, o)),
        );
    for (resource, object) in objects {
        ensure(store, resource, object)?;
    }
    Ok(())
}

/// How often a reconciliation that lost a race to another write is tried, a short pause
/// apart. Upstream retries each object on conflict and the whole policy for up to 30
/// seconds (`ensureRBACPolicy`'s poll); another server on the same etcd whose aggregation
/// controller rewrites `view`, `edit` and `admin` one after another can win several races.
const ATTEMPTS: usize = 20;

/// The pause between two attempts.
const RETRY_PAUSE: std::time::Duration = std::time::Duration::from_millis(50);

/// Creates `expected` if missing, else reconciles the stored object with it.
fn ensure(
    store: &dyn Storage,
    resource: &'static Resource,
    expected: Value,
) -> Result<(), StorageError> {
    let name = expected["metadata"]["name"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let key = keys::cluster(resource.plural, &name);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let outcome = match store.get(&key, None)?.0 {
            None => create(store, resource, &key, expected.clone()),
            Some(kv) => reconcile_stored(store, resource, &key, &kv, &expected),
        };
        match outcome {
            // Another write came between the read and this one: read again.
            Err(
                StorageError::Conflict { .. }
                | StorageError::NotFound { .. }
                | StorageError::AlreadyExists { .. },
            ) if attempt < ATTEMPTS => std::thread::sleep(RETRY_PAUSE),
            other => return other,
        }
    }
}

/// Reconciles the stored object `kv` with `expected` and writes the result, if any.
fn reconcile_stored(
    store: &dyn Storage,
    resource: &'static Resource,
    key: &str,
    kv: &KeyValue,
    expected: &Value,
) -> Result<(), StorageError> {
    // A stored object that is not JSON is left as it is (nothing to reconcile with).
    let Ok(existing) = serde_json::from_slice::<Value>(&kv.value) else {
        return Ok(());
    };
    let outcome = if resource.kind == CLUSTERROLEBINDINGS.kind {
        reconcile::binding(&existing, expected)
    } else {
        reconcile::role(&existing, expected)
    };
    match outcome {
        Reconciled::Unchanged | Reconciled::Protected => Ok(()),
        Reconciled::Update(Value::Object(mut updated)) => {
            let Value::Object(old) = existing else {
                return Ok(());
            };
            let now = object::now_timestamp();
            crate::defaults::go_round_trip(resource, &mut updated);
            crate::apply::update_by_server(resource, Some(&old), &mut updated, &now);
            store
                .update(key, &object::encode_for_storage(&updated), kv.mod_revision)
                .map(|_| ())
        }
        Reconciled::Recreate(object) => {
            store.delete(key, kv.mod_revision)?;
            create(store, resource, key, object)
        }
        Reconciled::Update(_) => Ok(()),
    }
}

/// Creates `value` (a default object) under `key`, with a uid, a creation time and
/// kube-apiserver's managed fields.
fn create(
    store: &dyn Storage,
    resource: &'static Resource,
    key: &str,
    mut value: Value,
) -> Result<(), StorageError> {
    let Some(object) = value.as_object_mut() else {
        return Ok(());
    };
    let now = object::now_timestamp();
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("uid".to_owned(), json!(crate::random::uuid_v4()?));
        meta.insert("creationTimestamp".to_owned(), json!(now));
    }
    crate::defaults::go_round_trip(resource, object);
    crate::apply::update_by_server(resource, None, object, &now);
    store
        .create(key, &object::encode_for_storage(object))
        .map(|_| ())
}
